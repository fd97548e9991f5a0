/*
 * readers/torchscript/jit/build.c - emits a function's graph from its syntax tree, the way
 * torch's compiler does when it loads the printed code (see jit/build.h).
 *
 * Names are SSA-like in printed code, so an environment from name to value suffices; an
 * undo log scopes it for branches and loops. Each node gets its original file and line
 * from the entry's debug records.
 *
 * This file holds the entry point and what the builder's other files share
 * (jit/build_internal.h): errors, the environment, node emission and global names. The
 * types of builtins' results, expressions, calls and statements have a file each
 * (jit/build_types.c, jit/build_expr.c, jit/build_call.c, jit/build_stmt.c).
 */
#include "build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "build_internal.h"
#include "kinds.h"

/* ---- errors and small helpers ---- */

int tsj_build_fail(tsj_builder *b, const tsl_expr *e, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ts_fail(b->c, OPMAP_EFORMAT, b->file->entry, e ? e->line : b->fn->line,
                   e ? e->col : 1, "%s", msg);
}

int tsj_build_oom(tsj_builder *b)
{
    return ts_oom(b->c);
}

const tsl_type *tsj_prim_type(tsj_builder *b, int k)
{
    return tsl_type_prim(b->ty, k);
}

/* ---- environment ---- */

static size_t hslot(const tsj_builder *b, const char *k)
{
    uintptr_t v = (uintptr_t)k;
    v ^= v >> 15;
    v *= 0x9E3779B97F4A7C15ull;
    return (size_t)(v >> 9) & (b->cap - 1);
}

static int env_grow(tsj_builder *b)
{
    size_t ncap = b->cap ? b->cap * 2 : 256, i;
    const char **nk = om_calloc(b->c->mem, ncap, sizeof(*nk));
    tsj_value **nv = om_calloc(b->c->mem, ncap, sizeof(*nv));
    uint32_t *ns = om_calloc(b->c->mem, ncap, sizeof(*ns));
    uint32_t *na = om_calloc(b->c->mem, ncap, sizeof(*na));
    const tsl_type **nd = om_calloc(b->c->mem, ncap, sizeof(*nd));
    const char **ok = b->keys;
    tsj_value **ov = b->vals;
    uint32_t *os = b->stamps, *oa = b->aux;
    const tsl_type **od = b->decl;
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
size_t tsj_env_slot(tsj_builder *b, const char *k)
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
size_t tsj_env_find(const tsj_builder *b, const char *k)
{
    size_t j;
    for (j = hslot(b, k); b->keys[j] != k; j = (j + 1) & (b->cap - 1))
        ;
    return j;
}

tsj_value *tsj_env_get(tsj_builder *b, const char *k)
{
    size_t j;
    if (!b->cap)
        return NULL;
    for (j = hslot(b, k); b->keys[j]; j = (j + 1) & (b->cap - 1))
        if (b->keys[j] == k)
            return b->vals[j];
    return NULL;
}

int tsj_env_set(tsj_builder *b, const char *k, tsj_value *v)
{
    size_t j = tsj_env_slot(b, k);
    tsj_undo_rec *u;
    if (j == SIZE_MAX || !(u = om_vec_push(&b->undo, b->c->mem)))
        return tsj_build_oom(b);
    u->k = k;
    u->old = b->vals[j];
    b->vals[j] = v;
    return OPMAP_OK;
}

void tsj_env_restore(tsj_builder *b, size_t mark)
{
    while (b->undo.len > mark) {
        tsj_undo_rec *u = &OM_VEC_AT(&b->undo, tsj_undo_rec, b->undo.len - 1);
        b->vals[tsj_env_find(b, u->k)] = u->old;
        b->undo.len--;
    }
}

/* Distinct names assigned since `mark`, with their current values, in first-set order;
 * their slots get `stamp` and aux = index in the list. */
int tsj_env_assigned_since(tsj_builder *b, size_t mark, uint32_t stamp, om_vec *out)
{
    size_t i;
    for (i = mark; i < b->undo.len; i++) {
        const char *k = OM_VEC_AT(&b->undo, tsj_undo_rec, i).k;
        size_t j = tsj_env_find(b, k);
        tsj_named_value *n;
        if (b->stamps[j] == stamp)
            continue;
        b->stamps[j] = stamp;
        b->aux[j] = (uint32_t)out->len;
        if (!(n = om_vec_push(out, b->c->mem)))
            return tsj_build_oom(b);
        n->k = k;
        n->v = b->vals[j];
    }
    return OPMAP_OK;
}

/* ---- nodes ---- */

void tsj_set_source(tsj_builder *b, tsj_node *n, const tsl_expr *at, uint32_t off)
{
    const char *file;
    uint32_t line;
    if (at)
        off = at->off;
    if (tsc_debug_find(&b->file->dbg, off, &file, &line)) {
        n->file = file;
        n->line = line;
    }
}

tsj_node *tsj_add_node(tsj_builder *b, int kind, const char *ns, const char *op, uint32_t n_in,
                       uint32_t n_out, const tsl_expr *at)
{
    tsj_node *n = tsj_node_new(b->c, kind, ns, op, n_in, n_out, 0);
    if (!n)
        return NULL;
    tsj_set_source(b, n, at, 0);
    tsj_append(b->blk, n);
    return n;
}

/* Moves n, appended before its arguments were built, after them (operands come first). */
void tsj_settle(tsj_builder *b, tsj_node *n)
{
    tsj_block *blk = n->owner;
    if (blk->tail == n)
        return;
    if (n->prev)
        n->prev->next = n->next;
    else
        blk->head = n->next;
    n->next->prev = n->prev;
    tsj_append(b->blk, n);
}

tsj_node *tsj_add_op(tsj_builder *b, const char *ns, const char *op, uint32_t n_in,
                     uint32_t n_out, const tsl_expr *at)
{
    return tsj_add_node(b, tsj_kind_lookup(ns, op), ns, op, n_in, n_out, at);
}

static const tsl_type *const_type(tsj_builder *b, const tsj_const *cv)
{
    switch (cv->k) {
    case TSJ_CONST_NONE: return tsj_prim_type(b, TY_NONE);
    case TSJ_CONST_BOOL: return tsj_prim_type(b, TY_BOOL);
    case TSJ_CONST_INT: return tsj_prim_type(b, TY_INT);
    case TSJ_CONST_FLOAT: return tsj_prim_type(b, TY_FLOAT);
    case TSJ_CONST_STR: return tsj_prim_type(b, TY_STR);
    case TSJ_CONST_DEVICE: return tsj_prim_type(b, TY_DEVICE);
    case TSJ_CONST_TENSOR: return tsj_prim_type(b, TY_TENSOR);
    case TSJ_CONST_FUNC: return tsj_prim_type(b, TY_FUNCTION);
    case TSJ_CONST_TUPLE: {
        const tsl_type *el[64];
        uint32_t i;
        if (cv->n > 64)
            return tsj_prim_type(b, TY_UNKNOWN);
        for (i = 0; i < cv->n; i++)
            el[i] = const_type(b, cv->el[i]);
        return tsl_type_tuple(b->ty, el, cv->n);
    }
    default: return tsj_prim_type(b, TY_UNKNOWN);
    }
}

tsj_value *tsj_add_const(tsj_builder *b, tsj_const *cv, const tsl_expr *at)
{
    tsj_node *n;
    const tsl_type *t;
    if (!cv || !(t = const_type(b, cv)))
        return NULL;
    if (!(n = tsj_const_node(b->c, cv, t)))
        return NULL;
    tsj_set_source(b, n, at, 0);
    tsj_append(b->blk, n);
    return &n->out[0];
}

tsj_value *tsj_add_const_simple(tsj_builder *b, int k, int64_t i, const tsl_expr *at)
{
    tsj_const *cv = tsj_const_new(b->c, k);
    if (!cv)
        return NULL;
    cv->i = i;
    return tsj_add_const(b, cv, at);
}

/* ---- names ---- */

const char *tsj_display_name(ts_ctx *c, const char *qual)
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
    return ts_intern_scratch(c, buf, k);
}

/* The dotted name of an attribute chain rooted at a global (not a local) name. */
const char *tsj_dotted_name(tsj_builder *b, const tsl_expr *e, const char **root, uint32_t *parts)
{
    char buf[2048];
    size_t len, i, np = 0;
    const tsl_expr *ps[256];
    while (e->k == EX_ATTR && np < 256) {
        ps[np++] = e;
        e = e->base;
    }
    if (e->k != EX_NAME || np == 256 || tsj_env_get(b, e->s))
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
    return ts_intern_scratch(b->c, buf, len);
}

/* Resolves a script call target from a `__torch__....` chain: 2 function, 1 class. */
int tsj_find_qual(tsj_builder *b, const char *q, void **v)
{
    return q ? tsl_program_find(b->prog, q, v) : 0;
}

int tsj_build_function(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn, tsj_graph **out)
{
    tsj_builder b;
    tsj_graph *g;
    uint32_t i;
    int rc = OPMAP_OK;
    memset(&b, 0, sizeof(b));
    b.c = c;
    b.prog = prog;
    b.ty = ty;
    b.fn = fn;
    b.file = fn->file;
    om_vec_init(&b.undo, sizeof(tsj_undo_rec));
    if (!(b.n_torch = ts_intern_scratch(c, "torch", 5)) ||
        !(b.n_ops = ts_intern_scratch(c, "ops", 3)) ||
        !(b.n_torch_ = ts_intern_scratch(c, "__torch__", 9)) ||
        !(b.n_constants = ts_intern_scratch(c, "CONSTANTS", 9)) ||
        !(b.n_self = ts_intern_scratch(c, "self", 4)))
        return tsj_build_oom(&b);
    if (!(g = om_arena_alloc(&c->tmp, sizeof(*g))) || !(g->top = tsj_block_new(c, NULL)))
        return tsj_build_oom(&b);
    g->fn = fn;
    b.g = g;
    b.blk = g->top;
    if (fn->n_params &&
        !(g->top->params = om_arena_array(&c->tmp, fn->n_params, sizeof(tsj_value *))))
        return tsj_build_oom(&b);
    g->top->n_params = fn->n_params;
    for (i = 0; i < fn->n_params && !rc; i++) {
        const tsl_param *p = &fn->params[i];
        const tsl_type *t;
        if (i == 0 && fn->cls && !p->type)
            t = tsl_type_class(ty, fn->cls);
        else
            t = tsl_type_from_expr(ty, p->type);
        if (!t || !(g->top->params[i] = tsj_param_new(c, t)))
            rc = tsj_build_oom(&b);
        else
            rc = tsj_env_set(&b, p->name, g->top->params[i]);
        if (!rc && i == 0 && fn->cls)
            b.self = g->top->params[0];
    }
    if (!rc)
        rc = tsj_build_stmts(&b, fn->body, fn->n_body, 1);
    if (!rc && !g->top->n_rets) {
        tsj_value *v = tsj_add_const_simple(&b, TSJ_CONST_NONE, 0, NULL);
        if (!v || !(g->top->rets = om_arena_alloc(&c->tmp, sizeof(tsj_value *))))
            rc = tsj_build_oom(&b);
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
