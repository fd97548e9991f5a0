/*
 * readers/torchscript/ts_build.c - emits a function's graph from its syntax tree, the way
 * torch's compiler does when it loads the printed code (see ts_build.h).
 *
 * Names are SSA-like in printed code, so an environment from name to value suffices; an
 * undo log scopes it for branches and loops. Variables assigned in an if's branches become
 * the If's outputs; variables assigned in a loop body and defined before it are carried.
 * Calls: `torch.X` is aten::X, `ops.NS.X` is NS::X, `(obj).m(...)` a prim::CallMethod on
 * obj's class, `__torch__.f(...)` a prim::CallFunction; the printer's builtins map to
 * their kinds (ts_kinds). Each node gets its original file and line from the entry's
 * debug records.
 */
#include "ts_build.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "ts_kinds.h"

typedef struct undo_rec {
    const char *k;
    og_val *old;
} undo_rec;

typedef struct bld {
    ts_ctx *c;
    ts_prog *prog;
    ts_tys *ty;
    ts_func *fn;
    ts_file *file;
    og_graph *g;
    og_block *blk;
    og_val *self;
    /* environment: interned name -> value, with an undo log */
    const char **keys;
    og_val **vals;
    uint32_t *stamps, *aux;
    const ts_type **decl;     /* declared types of annotated assignments */
    size_t cap, len;
    om_vec undo;
    const char *n_torch, *n_ops, *n_torch_, *n_constants, *n_self;
} bld;

/* ---- errors and small helpers ---- */

static int berr(bld *b, const ts_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int berr(bld *b, const ts_expr *e, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ts_fail(b->c, OPMAP_EFORMAT, b->file->entry, e ? e->line : b->fn->line,
                   e ? e->col : 1, "%s", msg);
}

static int oom(bld *b)
{
    return ts_oom(b->c);
}

static const ts_type *T(bld *b, int k)
{
    return ty_prim(b->ty, k);
}

/* ---- environment ---- */

static size_t hslot(const bld *b, const char *k)
{
    uintptr_t v = (uintptr_t)k;
    v ^= v >> 15;
    v *= 0x9E3779B97F4A7C15ull;
    return (size_t)(v >> 9) & (b->cap - 1);
}

static int env_grow(bld *b)
{
    size_t ncap = b->cap ? b->cap * 2 : 256, i;
    const char **nk = om_calloc(b->c->mem, ncap, sizeof(*nk));
    og_val **nv = om_calloc(b->c->mem, ncap, sizeof(*nv));
    uint32_t *ns = om_calloc(b->c->mem, ncap, sizeof(*ns));
    uint32_t *na = om_calloc(b->c->mem, ncap, sizeof(*na));
    const ts_type **nd = om_calloc(b->c->mem, ncap, sizeof(*nd));
    const char **ok = b->keys;
    og_val **ov = b->vals;
    uint32_t *os = b->stamps, *oa = b->aux;
    const ts_type **od = b->decl;
    size_t ocap = b->cap;
    if (!nk || !nv || !ns || !na || !nd) {
        if (nd)
            om_dealloc(b->c->mem, nd, ncap * sizeof(*nd));
        if (nk)
            om_dealloc(b->c->mem, nk, ncap * sizeof(*nk));
        if (nv)
            om_dealloc(b->c->mem, nv, ncap * sizeof(*nv));
        if (ns)
            om_dealloc(b->c->mem, ns, ncap * sizeof(*ns));
        if (na)
            om_dealloc(b->c->mem, na, ncap * sizeof(*na));
        return 0;
    }
    b->keys = nk;
    b->vals = nv;
    b->stamps = ns;
    b->aux = na;
    b->decl = nd;
    b->cap = ncap;
    for (i = 0; i < ocap; i++) {
        size_t j;
        if (!ok[i])
            continue;
        for (j = hslot(b, ok[i]); nk[j]; j = (j + 1) & (ncap - 1))
            ;
        nk[j] = ok[i];
        nv[j] = ov[i];
        ns[j] = os[i];
        na[j] = oa[i];
        nd[j] = od[i];
    }
    if (ok) {
        om_dealloc(b->c->mem, od, ocap * sizeof(*od));
        om_dealloc(b->c->mem, ok, ocap * sizeof(*ok));
        om_dealloc(b->c->mem, ov, ocap * sizeof(*ov));
        om_dealloc(b->c->mem, os, ocap * sizeof(*os));
        om_dealloc(b->c->mem, oa, ocap * sizeof(*oa));
    }
    return 1;
}

/* The slot of name k (inserted empty when missing); SIZE_MAX when out of memory. */
static size_t env_slot(bld *b, const char *k)
{
    size_t j;
    if ((b->len + 1) * 2 > b->cap && !env_grow(b))
        return SIZE_MAX;
    for (j = hslot(b, k); b->keys[j]; j = (j + 1) & (b->cap - 1))
        if (b->keys[j] == k)
            return j;
    b->keys[j] = k;
    b->len++;
    return j;
}

/* The slot of a name known to be present (never grows the table). */
static size_t env_find(const bld *b, const char *k)
{
    size_t j;
    for (j = hslot(b, k); b->keys[j] != k; j = (j + 1) & (b->cap - 1))
        ;
    return j;
}

static og_val *env_get(bld *b, const char *k)
{
    size_t j;
    if (!b->cap)
        return NULL;
    for (j = hslot(b, k); b->keys[j]; j = (j + 1) & (b->cap - 1))
        if (b->keys[j] == k)
            return b->vals[j];
    return NULL;
}

static int env_set(bld *b, const char *k, og_val *v)
{
    size_t j = env_slot(b, k);
    undo_rec *u;
    if (j == SIZE_MAX || !(u = om_vec_push(&b->undo, b->c->mem)))
        return oom(b);
    u->k = k;
    u->old = b->vals[j];
    b->vals[j] = v;
    return OPMAP_OK;
}

static void env_restore(bld *b, size_t mark)
{
    while (b->undo.len > mark) {
        undo_rec *u = &OM_VEC_AT(&b->undo, undo_rec, b->undo.len - 1);
        b->vals[env_find(b, u->k)] = u->old;
        b->undo.len--;
    }
}

typedef struct named {
    const char *k;
    og_val *v;
} named;

/* Distinct names assigned since `mark`, with their current values, in first-set order;
 * their slots get `stamp` and aux = index in the list. */
static int assigned_since(bld *b, size_t mark, uint32_t stamp, om_vec *out)
{
    size_t i;
    for (i = mark; i < b->undo.len; i++) {
        const char *k = OM_VEC_AT(&b->undo, undo_rec, i).k;
        size_t j = env_find(b, k);
        named *n;
        if (b->stamps[j] == stamp)
            continue;
        b->stamps[j] = stamp;
        b->aux[j] = (uint32_t)out->len;
        if (!(n = om_vec_push(out, b->c->mem)))
            return oom(b);
        n->k = k;
        n->v = b->vals[j];
    }
    return OPMAP_OK;
}

/* ---- nodes ---- */

static void set_src(bld *b, og_node *n, const ts_expr *at, uint32_t off)
{
    const char *file;
    uint32_t line;
    if (at)
        off = at->off;
    if (ts_dbg_find(&b->file->dbg, off, &file, &line)) {
        n->file = file;
        n->line = line;
    }
}

static og_node *emit(bld *b, int kind, const char *ns, const char *op, uint32_t n_in,
                     uint32_t n_out, const ts_expr *at)
{
    og_node *n = og_node_new(b->c, kind, ns, op, n_in, n_out, 0);
    if (!n)
        return NULL;
    set_src(b, n, at, 0);
    og_append(b->blk, n);
    return n;
}

/* Moves n, appended before its arguments were built, after them (operands come first). */
static void settle(bld *b, og_node *n)
{
    og_block *blk = n->owner;
    if (blk->tail == n)
        return;
    if (n->prev)
        n->prev->next = n->next;
    else
        blk->head = n->next;
    n->next->prev = n->prev;
    og_append(b->blk, n);
}

static og_node *emit_kind(bld *b, const char *ns, const char *op, uint32_t n_in,
                          uint32_t n_out, const ts_expr *at)
{
    return emit(b, ts_kind_lookup(ns, op), ns, op, n_in, n_out, at);
}

static const ts_type *const_type(bld *b, const og_const *cv)
{
    switch (cv->k) {
    case C_NONE: return T(b, TY_NONE);
    case C_BOOL: return T(b, TY_BOOL);
    case C_INT: return T(b, TY_INT);
    case C_FLOAT: return T(b, TY_FLOAT);
    case C_STR: return T(b, TY_STR);
    case C_DEVICE: return T(b, TY_DEVICE);
    case C_TENSOR: return T(b, TY_TENSOR);
    case C_FUNC: return T(b, TY_FUNCTION);
    case C_TUPLE: {
        const ts_type *el[64];
        uint32_t i;
        if (cv->n > 64)
            return T(b, TY_UNKNOWN);
        for (i = 0; i < cv->n; i++)
            el[i] = const_type(b, cv->el[i]);
        return ty_tuple(b->ty, el, cv->n);
    }
    default: return T(b, TY_UNKNOWN);
    }
}

static og_val *konst(bld *b, og_const *cv, const ts_expr *at)
{
    og_node *n;
    const ts_type *t;
    if (!cv || !(t = const_type(b, cv)))
        return NULL;
    if (!(n = og_const_node(b->c, cv, t)))
        return NULL;
    set_src(b, n, at, 0);
    og_append(b->blk, n);
    return &n->out[0];
}

static og_val *k_simple(bld *b, int k, int64_t i, const ts_expr *at)
{
    og_const *cv = og_const_new(b->c, k);
    if (!cv)
        return NULL;
    cv->i = i;
    return konst(b, cv, at);
}

/* ---- names ---- */

const char *ts_display_name(ts_ctx *c, const char *qual)
{
    char buf[1024];
    size_t k = 0;
    const char *p = qual;
    if (strncmp(p, "__torch__.", 10) == 0)
        p += 10;
    while (*p && k + 1 < sizeof(buf)) {
        if (strncmp(p, "___torch_mangle_", 16) == 0) {
            const char *q = p + 16;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == '.') {
                p = q + 1;
                continue;
            }
        }
        buf[k++] = *p++;
    }
    buf[k] = 0;
    return ts_tintern(c, buf, k);
}

/* The dotted name of an attribute chain rooted at a global (not a local) name. */
static const char *chain(bld *b, const ts_expr *e, const char **root, uint32_t *parts)
{
    char buf[2048];
    size_t len, i, np = 0;
    const ts_expr *ps[256];
    while (e->k == EX_ATTR && np < 256) {
        ps[np++] = e;
        e = e->base;
    }
    if (e->k != EX_NAME || np == 256 || env_get(b, e->s))
        return NULL;
    *root = e->s;
    *parts = (uint32_t)np;
    len = strlen(e->s);
    if (len >= sizeof(buf))
        return NULL;
    memcpy(buf, e->s, len);
    for (i = np; i-- > 0;) {
        size_t l = strlen(ps[i]->s);
        if (len + 1 + l >= sizeof(buf))
            return NULL;
        buf[len++] = '.';
        memcpy(buf + len, ps[i]->s, l);
        len += l;
    }
    return ts_tintern(b->c, buf, len);
}

/* ---- types of what builtins return ---- */

static const ts_type *num_result(bld *b, og_node *n, int to_float)
{
    uint32_t i;
    int any_float = 0, any_num = 0, any_unknown = 0;
    for (i = 0; i < n->n_in; i++) {
        const ts_type *t = og_in(n, i)->type;
        if (!t)
            any_unknown = 1;
        else if (t->k == TY_FLOAT)
            any_float = 1;
        else if (t->k == TY_NUMBER)
            any_num = 1;
        else if (t->k != TY_INT && t->k != TY_BOOL)
            any_unknown = 1;
    }
    if (any_unknown)
        return T(b, TY_UNKNOWN);
    if (any_num)
        return T(b, TY_NUMBER);
    return T(b, to_float || any_float ? TY_FLOAT : TY_INT);
}

static const ts_type *aten_type(bld *b, og_node *n, uint32_t out_index)
{
    const char *op = n->op;
    uint32_t i;
    int any_tensor = 0;
    const ts_type *t0 = n->n_in ? og_in(n, 0)->type : NULL;
    (void)out_index;
    for (i = 0; i < n->n_in; i++) {
        const ts_type *t = og_in(n, i)->type;
        if (t && (t->k == TY_TENSOR || (t->k == TY_OPTIONAL && t->el[0]->k == TY_TENSOR)))
            any_tensor = 1;
    }
    if (strcmp(n->ns, "prim") == 0) {
        static const char *const bools[] = { "is_cuda", "is_xpu", "is_sparse", "is_sparse_csr",
                                             "is_nested", "requires_grad", "is_quantized",
                                             "is_meta", "is_mkldnn", "is_vulkan", "is_ort",
                                             "is_mps", "is_ipu", "isinstance" };
        for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
            if (strcmp(op, bools[i]) == 0)
                return T(b, TY_BOOL);
        if (!strcmp(op, "dtype") || !strcmp(op, "layout") || !strcmp(op, "itemsize"))
            return T(b, TY_INT);
        if (!strcmp(op, "device"))
            return T(b, TY_DEVICE);
        if (!strcmp(op, "NumToTensor") || !strcmp(op, "data") || !strcmp(op, "grad"))
            return !strcmp(op, "grad") ? ty_optional(b->ty, T(b, TY_TENSOR)) : T(b, TY_TENSOR);
        if (!strcmp(op, "shape"))
            return ty_list(b->ty, T(b, TY_INT));
        if (!strcmp(op, "name") || !strcmp(op, "type"))
            return !strcmp(op, "name") ? ty_optional(b->ty, T(b, TY_STR)) : T(b, TY_STR);
        if (!strcmp(op, "min") || !strcmp(op, "max")) {
            if (t0 && t0->k == TY_LIST && n->n_in == 1)
                return t0->el[0];
            return num_result(b, n, 0);
        }
        if (!strcmp(op, "RaiseException") || !strcmp(op, "Print"))
            return T(b, TY_NONE);
        return T(b, TY_UNKNOWN);
    }
    if (strcmp(n->ns, "aten") != 0)
        return T(b, TY_TENSOR);
    {
        /* ops returning a list of tensors (some take one: meshgrid([a, b])) */
        static const char *const lists_t[] = { "split", "chunk", "unbind", "tensor_split",
                                               "split_with_sizes", "meshgrid",
                                               "broadcast_tensors", "unsafe_chunk",
                                               "unsafe_split", "hsplit", "vsplit", "dsplit",
                                               "nonzero_numpy", "atleast_1d", "atleast_2d",
                                               "atleast_3d", "align_tensors",
                                               "unsafe_split_with_sizes", "gradient",
                                               "_foreach_add", "_foreach_mul" };
        int list_in = t0 && t0->k == TY_LIST && t0->el[0]->k == TY_TENSOR;
        for (i = 0; i < sizeof(lists_t) / sizeof(lists_t[0]); i++)
            if (strcmp(op, lists_t[i]) == 0 && (any_tensor || list_in) &&
                !(t0 && t0->k == TY_STR))
                return ty_list(b->ty, T(b, TY_TENSOR));
        if ((!strcmp(op, "atleast_1d") || !strcmp(op, "dequantize")) && list_in)
            return ty_list(b->ty, T(b, TY_TENSOR));
    }
    if (any_tensor) {
        static const char *const ints[] = { "dim", "numel", "size", "len", "element_size",
                                            "get_device", "Int", "IntImplicit", "stride",
                                            "nbytes", "itemsize", "storage_offset" };
        static const char *const bools_t[] = { "is_floating_point", "is_complex", "Bool",
                                               "is_contiguous", "is_nonzero", "equal",
                                               "allclose", "is_same_size", "is_signed",
                                               "is_pinned", "is_set_to", "is_conj", "is_neg",
                                               "is_inference", "__is__", "__isnot__",
                                               "__contains__", "_has_compatible_shallow_copy_type" };
        if (!strcmp(op, "size") && n->n_in == 1)
            return ty_list(b->ty, T(b, TY_INT));
        if (!strcmp(op, "stride") && n->n_in == 1)
            return ty_list(b->ty, T(b, TY_INT));
        for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
            if (strcmp(op, ints[i]) == 0)
                return T(b, TY_INT);
        for (i = 0; i < sizeof(bools_t) / sizeof(bools_t[0]); i++)
            if (strcmp(op, bools_t[i]) == 0)
                return T(b, TY_BOOL);
        if (!strcmp(op, "Float") || !strcmp(op, "FloatImplicit"))
            return T(b, TY_FLOAT);
        if (!strcmp(op, "item") || !strcmp(op, "ScalarImplicit"))
            return T(b, TY_NUMBER);
        if (!strcmp(op, "str") || !strcmp(op, "format"))
            return T(b, TY_STR);
        if (!strcmp(op, "tolist"))
            return T(b, TY_UNKNOWN);
        if (!strcmp(op, "where") && n->n_in == 1)
            return ty_list(b->ty, T(b, TY_TENSOR));
        if (t0 && t0->k == TY_LIST && (!strcmp(op, "__getitem__") || !strcmp(op, "pop")))
            return t0->el[0];
        return T(b, TY_TENSOR);
    }
    /* no tensor input */
    {
        static const char *const ints[] = { "len", "Int", "IntImplicit", "ord", "__range_length",
                                            "__derive_index", "index", "count", "dim", "numel",
                                            "size", "_get_tracing_state", "get_device", "find",
                                            "rfind", "hash", "__round_to_zero_floordiv" };
        static const char *const bools[] = { "__not__", "__is__", "__isnot__", "__contains__",
                                             "Bool", "eq", "ne", "lt", "le", "gt", "ge",
                                             "isnan", "isinf", "isfinite", "is_scripting",
                                             "startswith", "endswith", "isdigit", "isalpha",
                                             "isupper", "islower", "isspace", "isalnum",
                                             "__isnot__", "is_grad_enabled", "is_autocast_enabled",
                                             "is_tensor", "all", "any" };
        static const char *const strs[] = { "str", "format", "percentFormat", "join", "lower",
                                            "upper", "strip", "lstrip", "rstrip", "replace",
                                            "capitalize", "title", "center", "ljust", "rjust",
                                            "zfill", "swapcase", "expandtabs", "hex", "oct",
                                            "bin", "chr", "__str__", "repr", "casefold" };
        if (!strcmp(op, "size") && n->n_in == 1)
            return ty_list(b->ty, T(b, TY_INT));
        for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
            if (strcmp(op, ints[i]) == 0 && !(t0 && t0->k == TY_UNKNOWN && !strcmp(op, "index")))
                return T(b, TY_INT);
        for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
            if (strcmp(op, bools[i]) == 0)
                return T(b, TY_BOOL);
        for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
            if (strcmp(op, strs[i]) == 0)
                return T(b, TY_STR);
        if (!strcmp(op, "Float") || !strcmp(op, "FloatImplicit"))
            return T(b, TY_FLOAT);
        if (!strcmp(op, "ScalarImplicit") || !strcmp(op, "item"))
            return T(b, TY_NUMBER);
        if (!strcmp(op, "device"))
            return T(b, TY_DEVICE);
        if (!strcmp(op, "warn"))
            return T(b, TY_NONE);
        if (!strcmp(op, "split") || !strcmp(op, "splitlines") || !strcmp(op, "rsplit"))
            return t0 && t0->k == TY_STR ? ty_list(b->ty, T(b, TY_STR))
                                         : ty_list(b->ty, T(b, TY_TENSOR));
        if (!strcmp(op, "list") || !strcmp(op, "copy") || !strcmp(op, "sorted") ||
            !strcmp(op, "append") || !strcmp(op, "_set_item") || !strcmp(op, "add_") ||
            !strcmp(op, "mul_") || !strcmp(op, "extend"))
            return t0 && (t0->k == TY_LIST || t0->k == TY_DICT) ? t0
                   : t0 && t0->k == TY_STR ? ty_list(b->ty, T(b, TY_STR)) : T(b, TY_UNKNOWN);
        if (t0 && t0->k == TY_DICT) {
            if (!strcmp(op, "keys"))
                return ty_list(b->ty, t0->el[0]);
            if (!strcmp(op, "values"))
                return ty_list(b->ty, t0->el[1]);
            if (!strcmp(op, "items")) {
                const ts_type *kv[2] = { t0->el[0], t0->el[1] };
                return ty_list(b->ty, ty_tuple(b->ty, kv, 2));
            }
            if (!strcmp(op, "get"))
                return n->n_in >= 3 ? t0->el[1] : ty_optional(b->ty, t0->el[1]);
            if (!strcmp(op, "pop") || !strcmp(op, "setdefault") || !strcmp(op, "__getitem__"))
                return t0->el[1];
        }
        if (t0 && t0->k == TY_LIST) {
            if (!strcmp(op, "__getitem__") || !strcmp(op, "pop"))
                return t0->el[0];
            if (!strcmp(op, "add") || !strcmp(op, "mul") || !strcmp(op, "slice"))
                return t0;
        }
        if (t0 && t0->k == TY_STR && (!strcmp(op, "__getitem__") || !strcmp(op, "add") ||
                                      !strcmp(op, "mul") || !strcmp(op, "slice")))
            return T(b, TY_STR);
        if (!strcmp(op, "div") || !strcmp(op, "pow") || !strcmp(op, "sqrt") ||
            !strcmp(op, "log") || !strcmp(op, "exp") || !strcmp(op, "log2") ||
            !strcmp(op, "log10") || !strcmp(op, "sin") || !strcmp(op, "cos") ||
            !strcmp(op, "tan") || !strcmp(op, "atan2") || !strcmp(op, "tanh") ||
            !strcmp(op, "log1p") || !strcmp(op, "erf") || !strcmp(op, "sqrt"))
            return n->n_in ? (num_result(b, n, 1)->k == TY_UNKNOWN ? T(b, TY_UNKNOWN)
                                                                    : T(b, TY_FLOAT))
                           : T(b, TY_FLOAT);
        if (!strcmp(op, "floor") || !strcmp(op, "ceil") || !strcmp(op, "round") ||
            !strcmp(op, "trunc"))
            return t0 && t0->k == TY_FLOAT ? T(b, TY_INT) : num_result(b, n, 0);
        if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") ||
            !strcmp(op, "floordiv") || !strcmp(op, "remainder") || !strcmp(op, "neg") ||
            !strcmp(op, "abs") || !strcmp(op, "fmod") || !strcmp(op, "min") ||
            !strcmp(op, "max") || !strcmp(op, "__and__") || !strcmp(op, "__or__") ||
            !strcmp(op, "__xor__") || !strcmp(op, "__lshift__") || !strcmp(op, "__rshift__") ||
            !strcmp(op, "__invert__") || !strcmp(op, "gcd") || !strcmp(op, "copysign")) {
            if (t0 && t0->k == TY_BOOL && (!strcmp(op, "__and__") || !strcmp(op, "__or__") ||
                                           !strcmp(op, "__xor__")))
                return T(b, TY_BOOL);
            if (!strcmp(op, "fmod") || !strcmp(op, "copysign"))
                return T(b, TY_FLOAT);
            return num_result(b, n, 0);
        }
        if (ts_kind_fresh_tensor(op))
            return T(b, TY_TENSOR);
        if (!strcmp(op, "__getitem__"))
            return T(b, TY_UNKNOWN);
    }
    return T(b, TY_TENSOR);
}

/* ---- expressions ---- */

static int ex(bld *b, const ts_expr *e, og_val **out);

static int ex_args(bld *b, const ts_expr *e, og_node *n, uint32_t first)
{
    uint32_t i;
    int rc;
    for (i = 0; i < e->n; i++)
        if ((rc = ex(b, e->a[i], &n->in[first + i])))
            return rc;
    return OPMAP_OK;
}

static int literal(bld *b, const ts_expr *e, og_const **out);

/* A literal expression as a constant (defaults, Final values): NULL when not literal. */
static int literal(bld *b, const ts_expr *e, og_const **out)
{
    og_const *cv = NULL;
    *out = NULL;
    switch (e->k) {
    case EX_NONE:
        cv = og_const_new(b->c, C_NONE);
        break;
    case EX_TRUE:
    case EX_FALSE:
        if ((cv = og_const_new(b->c, C_BOOL)))
            cv->i = e->k == EX_TRUE;
        break;
    case EX_INT:
        if ((cv = og_const_new(b->c, C_INT)))
            cv->i = e->i;
        break;
    case EX_FLOAT:
        if ((cv = og_const_new(b->c, C_FLOAT)))
            cv->f = e->f;
        break;
    case EX_STR:
        if ((cv = og_const_new(b->c, C_STR))) {
            cv->s = e->s;
            cv->slen = e->slen;
        }
        break;
    case EX_NAME:
        if (!strcmp(e->s, "inf") || !strcmp(e->s, "nan")) {
            if ((cv = og_const_new(b->c, C_FLOAT)))
                cv->f = !strcmp(e->s, "inf") ? HUGE_VAL : NAN;
        } else {
            return OPMAP_OK;
        }
        break;
    case EX_NEG: {
        og_const *x;
        int rc = literal(b, e->base, &x);
        if (rc || !x)
            return rc;
        if (x->k == C_INT)
            x->i = (int64_t)(0 - (uint64_t)x->i);
        else if (x->k == C_FLOAT)
            x->f = -x->f;
        else
            return OPMAP_OK;
        *out = x;
        return OPMAP_OK;
    }
    case EX_TUPLE: {
        uint32_t i;
        og_const *x;
        if (!(cv = og_const_new(b->c, C_TUPLE)))
            return oom(b);
        if (e->n && !(cv->el = om_arena_array(&b->c->tmp, e->n, sizeof(*cv->el))))
            return oom(b);
        for (i = 0; i < e->n; i++) {
            int rc = literal(b, e->a[i], &x);
            if (rc || !x)
                return rc;
            cv->el[i] = x;
        }
        cv->n = e->n;
        break;
    }
    case EX_CALL:
        /* torch.device("cpu") */
        if (e->base->k == EX_ATTR && e->base->base->k == EX_NAME &&
            e->base->base->s == b->n_torch && !strcmp(e->base->s, "device") && e->n == 1 &&
            e->a[0]->k == EX_STR && !env_get(b, b->n_torch)) {
            if ((cv = og_const_new(b->c, C_DEVICE))) {
                cv->s = e->a[0]->s;
                cv->slen = e->a[0]->slen;
            }
            break;
        }
        return OPMAP_OK;
    default:
        return OPMAP_OK;
    }
    if (!cv)
        return oom(b);
    *out = cv;
    return OPMAP_OK;
}

static int ex_attr_value(bld *b, const ts_expr *e, og_val **out);

/* Resolves a script call target from a `__torch__....` chain: 2 function, 1 class. */
static int find_qual(bld *b, const char *q, void **v)
{
    return q ? ts_prog_find(b->prog, q, v) : 0;
}

/* Value of a class attribute access obj.name. */
static int get_attr(bld *b, const ts_expr *at, og_val *obj, const char *name, og_val **out)
{
    const ts_type *t = og_v(obj)->type;
    ts_class *cls = ty_get_class(t);
    og_node *n;
    uint32_t i;
    if (cls && t->k == TY_NAMEDTUPLE) {
        /* field access on a named tuple is a tuple index */
        for (i = 0; i < cls->n_attrs; i++)
            if (cls->attrs[i].name == name) {
                og_val *ix = k_simple(b, C_INT, i, at);
                if (!ix || !(n = emit(b, OK_TUPLEIDX, "prim", "TupleIndex", 2, 1, at)))
                    return oom(b);
                n->in[0] = obj;
                n->in[1] = ix;
                n->out[0].type = t->el[i];
                *out = &n->out[0];
                return OPMAP_OK;
            }
        return berr(b, at, "named tuple has no field '%s'", name);
    }
    if (cls) {
        for (i = 0; i < cls->n_attrs; i++) {
            ts_cattr *a = &cls->attrs[i];
            if (a->name != name)
                continue;
            if (a->value) {
                /* Final constants are folded by the compiler */
                og_const *cv;
                int rc = literal(b, a->value, &cv);
                if (rc)
                    return rc;
                if (cv) {
                    *out = konst(b, cv, at);
                    return *out ? OPMAP_OK : oom(b);
                }
            }
            if (!a->rtype && !(a->rtype = ty_from_expr(b->ty, a->type)))
                return oom(b);
            if (!(n = emit(b, OK_GETATTR, "prim", "GetAttr", 1, 1, at)))
                return oom(b);
            n->in[0] = obj;
            n->name = name;
            n->out[0].type = a->rtype;
            *out = &n->out[0];
            return OPMAP_OK;
        }
        return berr(b, at, "class has no attribute '%s'", name);
    }
    if (!(n = emit(b, OK_GETATTR, "prim", "GetAttr", 1, 1, at)))
        return oom(b);
    n->in[0] = obj;
    n->name = name;
    n->out[0].type = T(b, TY_UNKNOWN);
    *out = &n->out[0];
    return OPMAP_OK;
}

static int ex_attr_value(bld *b, const ts_expr *e, og_val **out)
{
    const char *root, *q;
    uint32_t parts;
    og_val *obj;
    int rc;
    q = chain(b, e, &root, &parts);
    if (q && root == b->n_torch_) {
        void *v;
        int k = find_qual(b, q, &v);
        og_const *cv;
        if (k == 2) {
            if (!(cv = og_const_new(b->c, C_FUNC)))
                return oom(b);
            cv->fn = v;
            *out = konst(b, cv, e);
            return *out ? OPMAP_OK : oom(b);
        }
        return berr(b, e, "'%s' is not a function of the archive", q);
    }
    if (q && root == b->n_constants && parts == 1) {
        og_const *cv = og_const_new(b->c, C_TENSOR);
        if (!cv)
            return oom(b);
        cv->s = e->s;
        cv->slen = (uint32_t)strlen(e->s);
        *out = konst(b, cv, e);
        return *out ? OPMAP_OK : oom(b);
    }
    if (q && (root == b->n_torch || root == b->n_ops))
        return berr(b, e, "'%s' used as a value is not TorchScript's printed form", q);
    if ((rc = ex(b, e->base, &obj)))
        return rc;
    return get_attr(b, e, obj, e->s, out);
}

/* The attribute path of a module value from self ("layer1", "blocks.0"), or NULL. */
static const char *receiver_label(bld *b, og_val *v)
{
    const char *parts[64];
    size_t np = 0, len = 0, i;
    char buf[1024];
    v = og_v(v);
    while (v && v->def && v->def->kind == OK_GETATTR && np < 64) {
        parts[np++] = v->def->name;
        v = og_in(v->def, 0);
    }
    if (v != b->self || np == 0 || np == 64)
        return NULL;
    for (i = np; i-- > 0;) {
        size_t l = strlen(parts[i]);
        if (len + l + 2 >= sizeof(buf))
            return NULL;
        if (len)
            buf[len++] = '.';
        memcpy(buf + len, parts[i], l);
        len += l;
    }
    return ts_tintern(b->c, buf, len);
}

/* Arguments of a call to script function fn: positional, keywords by name, defaults. */
static int script_args(bld *b, const ts_expr *e, ts_func *fn, og_node *n, uint32_t first)
{
    uint32_t np = fn->n_params, i, npos = e->n - e->n_kw;
    int rc;
    if (e->n + first > np)
        return berr(b, e, "too many arguments in a call to '%s'", fn->qual);
    for (i = 0; i < npos; i++)
        if ((rc = ex(b, e->a[i], &n->in[first + i])))
            return rc;
    for (i = npos; i < e->n; i++) {
        uint32_t p;
        const char *kw = e->kw[i - npos];
        for (p = first; p < np; p++)
            if (fn->params[p].name == kw)
                break;
        if (p == np)
            return berr(b, e, "unknown keyword argument '%s'", kw);
        if ((rc = ex(b, e->a[i], &n->in[p])))
            return rc;
    }
    for (i = first; i < np; i++) {
        og_const *cv;
        if (n->in[i])
            continue;
        if (!fn->params[i].dflt)
            return berr(b, e, "missing argument '%s'", fn->params[i].name);
        if ((rc = literal(b, fn->params[i].dflt, &cv)))
            return rc;
        if (!cv) {
            if (fn->params[i].dflt->k == EX_LIST && fn->params[i].dflt->n == 0) {
                og_node *l = emit(b, OK_LISTC, "prim", "ListConstruct", 0, 1, e);
                if (!l)
                    return oom(b);
                l->out[0].type = fn->params[i].type ? ty_from_expr(b->ty, fn->params[i].type)
                                                    : T(b, TY_UNKNOWN);
                n->in[i] = &l->out[0];
                continue;
            }
            if ((rc = ex(b, fn->params[i].dflt, &n->in[i])))
                return rc;
            continue;
        }
        if (!(n->in[i] = konst(b, cv, e)))
            return oom(b);
    }
    return OPMAP_OK;
}

static const ts_type *ret_type(bld *b, ts_func *fn)
{
    const ts_type *t = fn->ret ? ty_from_expr(b->ty, fn->ret) : T(b, TY_NONE);
    return t ? t : T(b, TY_UNKNOWN);
}

static int call_script(bld *b, const ts_expr *e, ts_func *fn, og_val *recv, og_val **out)
{
    og_node *n;
    int rc;
    uint32_t first = recv ? 1 : 0;
    if (fn->n_params < first)
        return berr(b, e, "method '%s' has no self parameter", fn->qual);
    if (!(n = emit(b, recv ? OK_CALLM : OK_CALLF, "prim", recv ? "CallMethod" : "CallFunction",
                   fn->n_params, 1, e)))
        return oom(b);
    n->callee = fn;
    n->name = fn->name;
    if (recv) {
        n->in[0] = recv;
        n->label = receiver_label(b, recv);
    }
    if ((rc = script_args(b, e, fn, n, first)))
        return rc;
    settle(b, n);
    if (!(n->out[0].type = ret_type(b, fn)))
        return oom(b);
    *out = &n->out[0];
    return OPMAP_OK;
}

static int call_op(bld *b, const ts_expr *e, const char *ns, const char *op, uint32_t n_out,
                   og_node **out)
{
    og_node *n;
    uint32_t i;
    int rc;
    if (!(n = emit_kind(b, ns, op, e->n, n_out, e)))
        return oom(b);
    if ((rc = ex_args(b, e, n, 0)))
        return rc;
    settle(b, n);
    if (e->n_kw) {
        n->kw = e->kw;
        n->n_kw = e->n_kw;
    }
    for (i = 0; i < n_out; i++)
        if (!(n->out[i].type = aten_type(b, n, i)))
            return oom(b);
    /* ops that return nothing in torch have no output (a None-typed one would be folded) */
    if (n_out == 1 && ((strcmp(ns, "prim") == 0 && (strcmp(op, "RaiseException") == 0 ||
                                                     strcmp(op, "Print") == 0)) ||
                       (strcmp(ns, "aten") == 0 && strcmp(op, "warn") == 0)))
        n->n_out = 0;
    *out = n;
    return OPMAP_OK;
}

/* The value of a call node: its output, or None for ops without one. */
static og_val *call_value(bld *b, og_node *n, const ts_expr *e)
{
    return n->n_out ? &n->out[0] : k_simple(b, C_NONE, 0, e);
}

static const ts_type *type_arg(bld *b, const ts_expr *e)
{
    return ty_from_expr(b->ty, e);
}

/* Calls; n_out > 1 only for `a, b = torch.op(...)`. */
static int ex_call(bld *b, const ts_expr *e, uint32_t n_out, og_node **multi, og_val **out)
{
    const ts_expr *f = e->base;
    og_node *n;
    int rc;
    if (f->k == EX_NAME) {
        og_val *fv = env_get(b, f->s);
        const char *bop;
        if (fv) {
            const og_const *cv = og_cval(fv);
            if (cv && cv->k == C_FUNC)
                return call_script(b, e, cv->fn, NULL, out);
            return berr(b, e, "'%s' is not a function", f->s);
        }
        if ((bop = ts_builtin_op(f->s))) {
            if ((rc = call_op(b, e, "aten", bop, 1, &n)))
                return rc;
            *out = &n->out[0];
            return OPMAP_OK;
        }
        if (!strcmp(f->s, "getattr")) {
            og_val *obj;
            const char *name;
            if (e->n != 2 || e->a[1]->k != EX_STR)
                return berr(b, e, "getattr needs an object and a name");
            if ((rc = ex(b, e->a[0], &obj)))
                return rc;
            if (!(name = ts_tintern(b->c, e->a[1]->s, e->a[1]->slen)))
                return oom(b);
            return get_attr(b, e, obj, name, out);
        }
        if (!strcmp(f->s, "annotate") || !strcmp(f->s, "unchecked_cast")) {
            const ts_type *t;
            og_val *v;
            int unchecked = f->s[0] == 'u';
            if (e->n != 2)
                return berr(b, e, "%s needs a type and a value", f->s);
            if (!(t = type_arg(b, e->a[0])))
                return oom(b);
            if (!unchecked && (t->k == TY_INT || t->k == TY_FLOAT || t->k == TY_NUMBER) &&
                e->a[1]->k != EX_INT && e->a[1]->k != EX_FLOAT && e->a[1]->k != EX_NEG) {
                /* an implicit tensor -> scalar conversion */
                const char *op = t->k == TY_INT ? "IntImplicit" : t->k == TY_FLOAT
                                 ? "FloatImplicit" : "ScalarImplicit";
                if (!(n = emit_kind(b, "aten", op, 1, 1, e)))
                    return oom(b);
                if ((rc = ex(b, e->a[1], &n->in[0])))
                    return rc;
                settle(b, n);
                n->out[0].type = t;
                *out = &n->out[0];
                return OPMAP_OK;
            }
            if (unchecked) {
                if (!(n = emit(b, OK_UNCHECKED, "prim", "unchecked_cast", 1, 1, e)))
                    return oom(b);
                if ((rc = ex(b, e->a[1], &n->in[0])))
                    return rc;
                settle(b, n);
                n->ty = t;
                n->out[0].type = t;
                *out = &n->out[0];
                return OPMAP_OK;
            }
            if ((rc = ex(b, e->a[1], &v)))
                return rc;
            v = og_v(v);
            if (v->def && (v->def->kind == OK_LISTC || v->def->kind == OK_DICTC ||
                           v->def->kind == OK_CONST || v->def->kind == OK_TOLIST))
                v->type = t;
            *out = v;
            return OPMAP_OK;
        }
        if (!strcmp(f->s, "uninitialized")) {
            const ts_type *t;
            if (e->n != 1 || !(t = type_arg(b, e->a[0])))
                return e->n != 1 ? berr(b, e, "uninitialized needs a type") : oom(b);
            if (!(n = emit(b, OK_UNINIT, "prim", "Uninitialized", 0, 1, e)))
                return oom(b);
            n->ty = t;
            n->out[0].type = t;
            *out = &n->out[0];
            return OPMAP_OK;
        }
        if (!strcmp(f->s, "isinstance")) {
            if (e->n != 2)
                return berr(b, e, "isinstance needs a value and a type");
            if (!(n = emit(b, OK_ISINSTANCE, "prim", "isinstance", 1, 1, e)))
                return oom(b);
            if ((rc = ex(b, e->a[0], &n->in[0])))
                return rc;
            settle(b, n);
            n->out[0].type = T(b, TY_BOOL);
            *out = &n->out[0];
            return OPMAP_OK;
        }
        if (!strcmp(f->s, "fork") && e->n >= 1) {
            /* prim::fork runs its closure asynchronously; the closure is not inlined */
            const og_const *fc;
            og_val *cl;
            uint32_t k;
            if ((rc = ex(b, e->a[0], &cl)))
                return rc;
            fc = og_cval(cl);
            if (!fc || fc->k != C_FUNC)
                return berr(b, e, "fork of something that is not a function");
            if (!(n = emit(b, OK_OTHER, "prim", "fork", e->n - 1, 1, e)))
                return oom(b);
            for (k = 1; k < e->n; k++)
                if ((rc = ex(b, e->a[k], &n->in[k - 1])))
                    return rc;
            settle(b, n);
            n->out[0].type = T(b, TY_UNKNOWN);
            *out = &n->out[0];
            return OPMAP_OK;
        }
        if (!strcmp(f->s, "print")) {
            if ((rc = call_op(b, e, "prim", "Print", 1, &n)))
                return rc;
            *out = call_value(b, n, e);
            return *out ? OPMAP_OK : oom(b);
        }
        return berr(b, e, "unknown function '%s'", f->s);
    }
    if (f->k == EX_ATTR) {
        const char *root, *q;
        uint32_t parts;
        q = chain(b, f, &root, &parts);
        if (q && root == b->n_torch) {
            if (parts != 1)
                return berr(b, e, "unknown call '%s'", q);
            if (!strcmp(f->s, "device")) {
                og_const *cv;
                if ((rc = literal(b, e, &cv)))
                    return rc;
                if (cv) {
                    *out = konst(b, cv, e);
                    return *out ? OPMAP_OK : oom(b);
                }
            }
            if ((rc = call_op(b, e, "aten", ts_canon_op(f->s), n_out, &n)))
                return rc;
            if (multi)
                *multi = n;
            *out = call_value(b, n, e);
            return *out ? OPMAP_OK : oom(b);
        }
        if (q && root == b->n_ops) {
            const char *ns;
            if (parts != 2)
                return berr(b, e, "unknown call '%s'", q);
            ns = f->base->s;
            if ((rc = call_op(b, e, ns, f->s, n_out, &n)))
                return rc;
            if (multi)
                *multi = n;
            *out = call_value(b, n, e);
            return *out ? OPMAP_OK : oom(b);
        }
        if (q && root == b->n_torch_) {
            void *v;
            int k = find_qual(b, q, &v);
            if (k == 2)
                return call_script(b, e, v, NULL, out);
            if (k == 1 && strcmp(((ts_class *)v)->base, "NamedTuple") == 0) {
                const ts_type *t = ty_class(b->ty, v);
                if (!t)
                    return oom(b);
                if (!(n = emit(b, OK_TUPLEC, "prim", "TupleConstruct", e->n, 1, e)))
                    return oom(b);
                if ((rc = ex_args(b, e, n, 0)))
                    return rc;
                settle(b, n);
                n->out[0].type = t;
                *out = &n->out[0];
                return OPMAP_OK;
            }
            if (!strcmp(f->s, "__new__")) {
                const char *cq = chain(b, f->base, &root, &parts);
                if (find_qual(b, cq, &v) == 1) {
                    const ts_type *t = ty_class(b->ty, v);
                    if (!t || !(n = emit(b, OK_CREATEOBJ, "prim", "CreateObject", 0, 1, e)))
                        return oom(b);
                    n->out[0].type = t;
                    *out = &n->out[0];
                    return OPMAP_OK;
                }
            }
            return berr(b, e, "'%s' is not defined in the archive", q);
        }
        if (q && root == b->n_constants)
            return berr(b, e, "calling a tensor constant");
        {
            /* a method call on a value */
            og_val *recv;
            ts_class *cls;
            uint32_t i;
            if ((rc = ex(b, f->base, &recv)))
                return rc;
            cls = ty_get_class(og_v(recv)->type);
            if (cls) {
                for (i = 0; i < cls->n_methods; i++)
                    if (cls->methods[i].name == f->s)
                        return call_script(b, e, &cls->methods[i], recv, out);
                return berr(b, e, "class has no method '%s'", f->s);
            }
            if (!strcmp(f->s, "tolist") && e->n == 0) {
                if (!(n = emit(b, OK_TOLIST, "prim", "tolist", 1, 1, e)))
                    return oom(b);
                n->in[0] = recv;
                n->out[0].type = T(b, TY_UNKNOWN);
                *out = &n->out[0];
                return OPMAP_OK;
            }
            return berr(b, e, "method '%s' called on a value whose class is not known", f->s);
        }
    }
    return berr(b, e, "unsupported call form");
}

static int ex(bld *b, const ts_expr *e, og_val **out)
{
    og_const *cv;
    og_node *n;
    int rc;
    uint32_t i;
    switch (e->k) {
    case EX_NAME: {
        og_val *v = env_get(b, e->s);
        if (v) {
            *out = v;
            return OPMAP_OK;
        }
        if ((rc = literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = konst(b, cv, e);
            return *out ? OPMAP_OK : oom(b);
        }
        return berr(b, e, "name '%s' is not defined", e->s);
    }
    case EX_INT: case EX_FLOAT: case EX_STR: case EX_NONE: case EX_TRUE: case EX_FALSE:
        if ((rc = literal(b, e, &cv)))
            return rc;
        *out = konst(b, cv, e);
        return *out ? OPMAP_OK : oom(b);
    case EX_NEG:
        if ((rc = literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = konst(b, cv, e);
            return *out ? OPMAP_OK : oom(b);
        }
        if (!(n = emit(b, OK_NEG, "aten", "neg", 1, 1, e)))
            return oom(b);
        if ((rc = ex(b, e->base, &n->in[0])))
            return rc;
        settle(b, n);
        n->out[0].type = og_in(n, 0)->type;
        *out = &n->out[0];
        return OPMAP_OK;
    case EX_ATTR:
        return ex_attr_value(b, e, out);
    case EX_CALL:
        return ex_call(b, e, 1, NULL, out);
    case EX_SUB: {
        og_val *obj, *ix;
        const ts_type *t;
        if ((rc = ex(b, e->base, &obj)) || (rc = ex(b, e->a[0], &ix)))
            return rc;
        t = og_v(obj)->type;
        cv = (og_const *)og_cval(obj);
        if ((t && (t->k == TY_TUPLE || t->k == TY_NAMEDTUPLE)) || (cv && cv->k == C_TUPLE)) {
            const og_const *ic = og_cval(ix);
            if (!(n = emit(b, OK_TUPLEIDX, "prim", "TupleIndex", 2, 1, e)))
                return oom(b);
            n->out[0].type = T(b, TY_UNKNOWN);
            if (ic && ic->k == C_INT && t && t->n) {
                int64_t k = ic->i < 0 ? ic->i + (int64_t)t->n : ic->i;
                if (k >= 0 && k < (int64_t)t->n)
                    n->out[0].type = t->el[k];
            }
        } else {
            if (!(n = emit(b, OK_GETITEM, "aten", "__getitem__", 2, 1, e)))
                return oom(b);
        }
        n->in[0] = obj;
        n->in[1] = ix;
        if (n->kind == OK_GETITEM && !(n->out[0].type = aten_type(b, n, 0)))
            return oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_LIST: {
        const ts_type *et = NULL;
        if (!(n = emit(b, OK_LISTC, "prim", "ListConstruct", e->n, 1, e)))
            return oom(b);
        if ((rc = ex_args(b, e, n, 0)))
            return rc;
        settle(b, n);
        for (i = 0; i < e->n; i++) {
            const ts_type *it = og_in(n, i)->type;
            et = et ? ty_unify(b->ty, et, it) : it;
        }
        n->out[0].type = ty_list(b->ty, et ? et : T(b, TY_UNKNOWN));
        if (!n->out[0].type)
            return oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_TUPLE: {
        const ts_type *el[64];
        if ((rc = literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = konst(b, cv, e);
            return *out ? OPMAP_OK : oom(b);
        }
        if (!(n = emit(b, OK_TUPLEC, "prim", "TupleConstruct", e->n, 1, e)))
            return oom(b);
        if ((rc = ex_args(b, e, n, 0)))
            return rc;
        settle(b, n);
        if (e->n <= 64) {
            for (i = 0; i < e->n; i++)
                el[i] = og_in(n, i)->type;
            n->out[0].type = ty_tuple(b->ty, el, e->n);
        } else {
            n->out[0].type = T(b, TY_UNKNOWN);
        }
        if (!n->out[0].type)
            return oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_DICT:
        if (!(n = emit(b, OK_DICTC, "prim", "DictConstruct", e->n, 1, e)))
            return oom(b);
        if ((rc = ex_args(b, e, n, 0)))
            return rc;
        settle(b, n);
        n->out[0].type = e->n >= 2 ? ty_dict(b->ty, og_in(n, 0)->type, og_in(n, 1)->type)
                                   : T(b, TY_UNKNOWN);
        if (!n->out[0].type)
            return oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    default:
        return berr(b, e, "unsupported expression");
    }
}

/* ---- statements ---- */

static int stmts(bld *b, ts_stmt **s, uint32_t n, int top);

static int assign_name(bld *b, const ts_expr *t, og_val *v)
{
    if (t->k != EX_NAME)
        return berr(b, t, "cannot assign to this expression");
    return env_set(b, t->s, v);
}

static int st_assign(bld *b, const ts_stmt *s)
{
    const ts_expr *rhs = s->e;
    og_val *v;
    og_node *n;
    uint32_t i;
    int rc;
    if (s->n_t == 1 && !s->trailing) {
        const ts_expr *t = s->t[0];
        if (t->k == EX_ATTR) {
            /* obj.attr = value */
            og_val *obj;
            if ((rc = ex(b, rhs, &v)) || (rc = ex(b, t->base, &obj)))
                return rc;
            if (!(n = emit(b, OK_SETATTR, "prim", "SetAttr", 2, 0, t)))
                return oom(b);
            n->in[0] = obj;
            n->in[1] = v;
            n->name = t->s;
            return OPMAP_OK;
        }
        if ((rc = ex(b, rhs, &v)))
            return rc;
        if (s->ann && t->k == EX_NAME) {
            const ts_type *dt = ty_from_expr(b->ty, s->ann);
            size_t j = env_slot(b, t->s);
            if (!dt || j == SIZE_MAX)
                return oom(b);
            b->decl[j] = dt;
        }
        return assign_name(b, t, v);
    }
    if (!s->trailing && rhs->k == EX_TUPLE && rhs->n == s->n_t) {
        /* a, b = c, d: a parallel assignment, no node */
        og_val **vals = om_arena_array(&b->c->tmp, s->n_t, sizeof(*vals));
        if (!vals)
            return oom(b);
        for (i = 0; i < s->n_t; i++)
            if ((rc = ex(b, rhs->a[i], &vals[i])))
                return rc;
        for (i = 0; i < s->n_t; i++)
            if ((rc = assign_name(b, s->t[i], vals[i])))
                return rc;
        return OPMAP_OK;
    }
    if (!s->trailing && rhs->k == EX_CALL && rhs->base->k == EX_ATTR) {
        /* a, b = torch.op(...): one node with several outputs */
        const char *root;
        uint32_t parts;
        const char *q = chain(b, rhs->base, &root, &parts);
        if (q && (root == b->n_torch || root == b->n_ops)) {
            og_node *mn = NULL;
            if ((rc = ex_call(b, rhs, s->n_t, &mn, &v)))
                return rc;
            if (mn && mn->n_out == s->n_t) {
                for (i = 0; i < s->n_t; i++)
                    if ((rc = assign_name(b, s->t[i], &mn->out[i])))
                        return rc;
                return OPMAP_OK;
            }
            /* not a multi-output op after all (e.g. a constant): unpack it */
            goto unpack_v;
        }
    }
    if ((rc = ex(b, rhs, &v)))
        return rc;
unpack_v:
    {
        const ts_type *t = og_v(v)->type;
        int is_list = t && t->k == TY_LIST;
        if (!(n = emit(b, is_list ? OK_LISTUNPACK : OK_TUPLEUNPACK, "prim",
                       is_list ? "ListUnpack" : "TupleUnpack", 1, s->n_t, rhs)))
            return oom(b);
        n->in[0] = v;
        for (i = 0; i < s->n_t; i++) {
            const ts_type *et = T(b, TY_UNKNOWN);
            if (is_list)
                et = t->el[0];
            else if (t && (t->k == TY_TUPLE || t->k == TY_NAMEDTUPLE) && i < t->n)
                et = t->el[i];
            n->out[i].type = et;
            if ((rc = assign_name(b, s->t[i], &n->out[i])))
                return rc;
        }
    }
    return OPMAP_OK;
}

static int st_if(bld *b, const ts_stmt *s)
{
    og_val *cond;
    og_node *n;
    og_block *outer = b->blk;
    size_t mark = b->undo.len, i;
    om_vec tv, ev, outs;
    uint32_t st_then, st_else, st_out, k = 0;
    int rc;
    if ((rc = ex(b, s->e, &cond)))
        return rc;
    if (!(n = og_node_new(b->c, OK_IF, "prim", "If", 1, 0, 2)))
        return oom(b);
    set_src(b, n, s->e, 0);
    n->in[0] = cond;
    og_append(outer, n);
    om_vec_init(&tv, sizeof(named));
    om_vec_init(&ev, sizeof(named));
    om_vec_init(&outs, sizeof(named));
    st_then = ++b->c->stamp;
    b->blk = n->blk[0];
    rc = stmts(b, s->body, s->n_body, 0);
    if (!rc)
        rc = assigned_since(b, mark, st_then, &tv);
    env_restore(b, mark);
    st_else = ++b->c->stamp;
    b->blk = n->blk[1];
    if (!rc)
        rc = stmts(b, s->orelse, s->n_else, 0);
    if (!rc)
        rc = assigned_since(b, mark, st_else, &ev);
    env_restore(b, mark);
    b->blk = outer;
    /* outputs: names assigned in either branch and defined in both */
    st_out = ++b->c->stamp;
    for (i = 0; !rc && i < tv.len + ev.len; i++) {
        named *x = i < tv.len ? &OM_VEC_AT(&tv, named, i) : &OM_VEC_AT(&ev, named, i - tv.len);
        size_t j = env_find(b, x->k);
        named *o;
        og_val *a, *c;
        if (b->stamps[j] == st_out)
            continue;
        if (i < tv.len) {
            a = x->v;
            c = b->stamps[j] == st_else ? OM_VEC_AT(&ev, named, b->aux[j]).v : b->vals[j];
        } else {
            a = b->vals[j];
            c = x->v;
        }
        b->stamps[j] = st_out;
        if (!a || !c)
            continue;
        if (!(o = om_vec_push(&outs, b->c->mem))) {
            rc = oom(b);
            break;
        }
        o->k = x->k;
        o->v = a;
        if (!(o = om_vec_push(&outs, b->c->mem))) {
            rc = oom(b);
            break;
        }
        o->k = x->k;
        o->v = c;
    }
    if (!rc && outs.len) {
        uint32_t no = (uint32_t)(outs.len / 2);
        if (!(n->out = om_arena_array(&b->c->tmp, no, sizeof(og_val))) ||
            !(n->blk[0]->rets = om_arena_array(&b->c->tmp, no, sizeof(og_val *))) ||
            !(n->blk[1]->rets = om_arena_array(&b->c->tmp, no, sizeof(og_val *)))) {
            rc = oom(b);
        } else {
            n->n_out = n->blk[0]->n_rets = n->blk[1]->n_rets = no;
            for (k = 0; k < no && !rc; k++) {
                named *a = &OM_VEC_AT(&outs, named, 2 * k), *c = a + 1;
                n->out[k].def = n;
                n->blk[0]->rets[k] = a->v;
                n->blk[1]->rets[k] = c->v;
                n->out[k].type = b->decl[env_find(b, a->k)]
                                 ? b->decl[env_find(b, a->k)]
                                 : ty_unify(b->ty, og_v(a->v)->type, og_v(c->v)->type);
                if (!n->out[k].type)
                    rc = oom(b);
                else
                    rc = env_set(b, a->k, &n->out[k]);
            }
        }
    }
    om_vec_free(&tv, b->c->mem);
    om_vec_free(&ev, b->c->mem);
    om_vec_free(&outs, b->c->mem);
    return rc;
}

/* Names assigned anywhere in a statement list (loop bodies), stamped with `stamp`. */
static int collect_assigned(bld *b, ts_stmt **s, uint32_t n, uint32_t stamp, om_vec *out)
{
    uint32_t i, k;
    int rc;
    for (i = 0; i < n; i++) {
        const ts_stmt *x = s[i];
        const char *names[1];
        uint32_t nn = 0;
        if (x->k == ST_ASSIGN) {
            for (k = 0; k < x->n_t; k++) {
                size_t j;
                named *o;
                if (x->t[k]->k != EX_NAME)
                    continue;
                if ((j = env_slot(b, x->t[k]->s)) == SIZE_MAX)
                    return oom(b);
                if (b->stamps[j] == stamp)
                    continue;
                b->stamps[j] = stamp;
                if (!(o = om_vec_push(out, b->c->mem)))
                    return oom(b);
                o->k = x->t[k]->s;
            }
        } else if (x->k == ST_FOR) {
            names[nn++] = x->var;
        }
        for (k = 0; k < nn; k++) {
            size_t j = env_slot(b, names[k]);
            named *o;
            if (j == SIZE_MAX)
                return oom(b);
            if (b->stamps[j] == stamp)
                continue;
            b->stamps[j] = stamp;
            if (!(o = om_vec_push(out, b->c->mem)))
                return oom(b);
            o->k = names[k];
        }
        if ((rc = collect_assigned(b, x->body, x->n_body, stamp, out)) ||
            (rc = collect_assigned(b, x->orelse, x->n_else, stamp, out)))
            return rc;
    }
    return OPMAP_OK;
}

static int st_loop(bld *b, const ts_stmt *s)
{
    og_block *outer = b->blk, *body = NULL;
    og_node *n = NULL;
    og_val *trip, *cond0, *next = NULL;
    om_vec names, carried;
    size_t mark, i;
    uint32_t nc, stamp = ++b->c->stamp;
    const char *cond_name = NULL;
    int rc = OPMAP_OK, is_for = s->k == ST_FOR;

    if (is_for) {
        const ts_expr *it = s->e;
        if (it->k != EX_CALL || it->base->k != EX_NAME || strcmp(it->base->s, "range") != 0 ||
            it->n != 1 || it->n_kw)
            return berr(b, it, "only 'for x in range(n)' loops are TorchScript's printed form");
        if ((rc = ex(b, it->a[0], &trip)) || !(cond0 = k_simple(b, C_BOOL, 1, it)))
            return rc ? rc : oom(b);
    } else {
        if (!(trip = k_simple(b, C_INT, INT64_MAX, s->e)) || (rc = ex(b, s->e, &cond0)))
            return rc ? rc : oom(b);
        if (s->e->k == EX_NAME)
            cond_name = s->e->s;
    }
    om_vec_init(&names, sizeof(named));
    om_vec_init(&carried, sizeof(named));
    rc = collect_assigned(b, s->body, s->n_body, stamp, &names);
    for (i = 0; !rc && i < names.len; i++) {
        named *x = &OM_VEC_AT(&names, named, i), *o;
        og_val *v = env_get(b, x->k);
        if (!v || x->k == cond_name || (is_for && x->k == s->var))
            continue;
        if (!(o = om_vec_push(&carried, b->c->mem))) {
            rc = oom(b);
            break;
        }
        o->k = x->k;
        o->v = v;
    }
    nc = (uint32_t)carried.len;
    if (!rc && !(n = og_node_new(b->c, OK_LOOP, "prim", "Loop", 2 + nc, nc, 1)))
        rc = oom(b);
    if (!rc) {
        set_src(b, n, NULL, s->off);
        og_append(outer, n);
        body = n->blk[0];
        n->in[0] = trip;
        n->in[1] = cond0;
        if (!(body->params = om_arena_array(&b->c->tmp, 1 + nc, sizeof(og_val *))) ||
            !(body->rets = om_arena_array(&b->c->tmp, 1 + nc, sizeof(og_val *))) ||
            !(body->params[0] = og_param_new(b->c, T(b, TY_INT))))
            rc = oom(b);
        body->n_params = body->n_rets = 1 + nc;
    }
    mark = b->undo.len;
    if (!rc && is_for)
        rc = env_set(b, s->var, body->params[0]);
    for (i = 0; !rc && i < nc; i++) {
        named *x = &OM_VEC_AT(&carried, named, i);
        n->in[2 + i] = x->v;
        if (!(body->params[1 + i] = og_param_new(b->c, og_v(x->v)->type)))
            rc = oom(b);
        else
            rc = env_set(b, x->k, body->params[1 + i]);
    }
    if (!rc) {
        b->blk = body;
        rc = stmts(b, s->body, s->n_body, 0);
        if (!rc) {
            if (is_for)
                next = k_simple(b, C_BOOL, 1, s->e);
            else if (cond_name)
                next = env_get(b, cond_name);
            else
                rc = ex(b, s->e, &next);
            if (!rc && !next)
                rc = oom(b);
        }
        if (!rc) {
            body->rets[0] = next;
            for (i = 0; i < nc; i++) {
                named *x = &OM_VEC_AT(&carried, named, i);
                og_val *last = env_get(b, x->k);
                const ts_type *d = b->decl[env_find(b, x->k)];
                const ts_type *u = d ? d : ty_unify(b->ty, og_v(x->v)->type, og_v(last)->type);
                body->rets[1 + i] = last;
                if (u && u->k != TY_UNKNOWN)
                    body->params[1 + i]->type = u;
                n->out[i].type = body->params[1 + i]->type;
            }
        }
        b->blk = outer;
    }
    env_restore(b, mark);
    for (i = 0; !rc && i < nc; i++)
        rc = env_set(b, OM_VEC_AT(&carried, named, i).k, &n->out[i]);
    om_vec_free(&names, b->c->mem);
    om_vec_free(&carried, b->c->mem);
    return rc;
}

static int stmts(bld *b, ts_stmt **s, uint32_t n, int top)
{
    uint32_t i;
    int rc = OPMAP_OK;
    for (i = 0; i < n && rc == OPMAP_OK; i++) {
        const ts_stmt *x = s[i];
        og_val *v;
        switch (x->k) {
        case ST_PASS:
            break;
        case ST_EXPR:
            rc = ex(b, x->e, &v);
            break;
        case ST_ASSIGN:
            rc = st_assign(b, x);
            break;
        case ST_IF:
            rc = st_if(b, x);
            break;
        case ST_FOR:
        case ST_WHILE:
            rc = st_loop(b, x);
            break;
        case ST_DEF: {
            /* a closure: only ever run through fork(), whose body torch does not inline */
            og_const *cv = og_const_new(b->c, C_FUNC);
            if (!cv || !(v = konst(b, cv, NULL))) {
                rc = oom(b);
                break;
            }
            cv->fn = x->def;
            rc = env_set(b, x->var, v);
            break;
        }
        case ST_WITH: {
            og_node *w;
            if ((rc = ex(b, x->e, &v)))
                break;
            if (!(w = emit(b, OK_ENTER, "prim", "Enter", 1, 1, x->e))) {
                rc = oom(b);
                break;
            }
            w->in[0] = v;
            w->out[0].type = T(b, TY_UNKNOWN);
            if ((rc = stmts(b, x->body, x->n_body, 0)))
                break;
            if (!(w = emit(b, OK_EXIT, "prim", "Exit", 1, 0, x->e))) {
                rc = oom(b);
                break;
            }
            w->in[0] = v;
            break;
        }
        case ST_RETURN:
            if (!top || i + 1 != n)
                return ts_fail(b->c, OPMAP_EFORMAT, b->file->entry, x->line, x->col,
                               "'return' before the end of a function is not TorchScript's "
                               "printed form");
            if (x->e)
                rc = ex(b, x->e, &v);
            else if (!(v = k_simple(b, C_NONE, 0, NULL)))
                rc = oom(b);
            if (!rc) {
                if (!(b->g->top->rets = om_arena_alloc(&b->c->tmp, sizeof(og_val *))))
                    return oom(b);
                b->g->top->rets[0] = v;
                b->g->top->n_rets = 1;
            }
            break;
        default:
            rc = ts_fail(b->c, OPMAP_EINTERNAL, b->file->entry, x->line, x->col,
                         "unknown statement");
        }
    }
    return rc;
}

int ts_build(ts_ctx *c, ts_prog *prog, ts_tys *ty, ts_func *fn, og_graph **out)
{
    bld b;
    og_graph *g;
    uint32_t i;
    int rc = OPMAP_OK;
    memset(&b, 0, sizeof(b));
    b.c = c;
    b.prog = prog;
    b.ty = ty;
    b.fn = fn;
    b.file = fn->file;
    om_vec_init(&b.undo, sizeof(undo_rec));
    if (!(b.n_torch = ts_tintern(c, "torch", 5)) || !(b.n_ops = ts_tintern(c, "ops", 3)) ||
        !(b.n_torch_ = ts_tintern(c, "__torch__", 9)) ||
        !(b.n_constants = ts_tintern(c, "CONSTANTS", 9)) ||
        !(b.n_self = ts_tintern(c, "self", 4)))
        return oom(&b);
    if (!(g = om_arena_alloc(&c->tmp, sizeof(*g))) || !(g->top = og_block_new(c, NULL)))
        return oom(&b);
    g->fn = fn;
    b.g = g;
    b.blk = g->top;
    if (fn->n_params &&
        !(g->top->params = om_arena_array(&c->tmp, fn->n_params, sizeof(og_val *))))
        return oom(&b);
    g->top->n_params = fn->n_params;
    for (i = 0; i < fn->n_params && !rc; i++) {
        const ts_param *p = &fn->params[i];
        const ts_type *t;
        if (i == 0 && fn->cls && !p->type)
            t = ty_class(ty, fn->cls);
        else
            t = ty_from_expr(ty, p->type);
        if (!t || !(g->top->params[i] = og_param_new(c, t)))
            rc = oom(&b);
        else
            rc = env_set(&b, p->name, g->top->params[i]);
        if (!rc && i == 0 && fn->cls)
            b.self = g->top->params[0];
    }
    if (!rc)
        rc = stmts(&b, fn->body, fn->n_body, 1);
    if (!rc && !g->top->n_rets) {
        og_val *v = k_simple(&b, C_NONE, 0, NULL);
        if (!v || !(g->top->rets = om_arena_alloc(&c->tmp, sizeof(og_val *))))
            rc = oom(&b);
        else {
            g->top->rets[0] = v;
            g->top->n_rets = 1;
        }
    }
    om_vec_free(&b.undo, c->mem);
    if (b.keys) {
        om_dealloc(c->mem, b.keys, b.cap * sizeof(*b.keys));
        om_dealloc(c->mem, b.vals, b.cap * sizeof(*b.vals));
        om_dealloc(c->mem, b.stamps, b.cap * sizeof(*b.stamps));
        om_dealloc(c->mem, b.aux, b.cap * sizeof(*b.aux));
        om_dealloc(c->mem, b.decl, b.cap * sizeof(*b.decl));
    }
    if (rc)
        return rc;
    *out = g;
    return OPMAP_OK;
}
