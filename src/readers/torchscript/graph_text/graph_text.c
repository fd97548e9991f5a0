/*
 * readers/torchscript/graph_text/graph_text.c - TorchScript graph text (str(module.graph),
 * str(module.inlined_graph)) -> IR.
 *
 * Every line is a node, a block header (`block0(%i : int):`), a block end (`-> (...)`) or the
 * graph's `return (...)`; blocks nest by these markers, not by indentation, and nesting is
 * bounded by max_depth. A node line is `%out : Type, ... = ns::op[attr=value, ...](%in, ...)`
 * with an optional `# file:line:col` comment, which becomes the node's source location.
 * Output types become ir_types (dtype and shape of `Float(1, 3, 224, 224, strides=...)`).
 * Once all is read, each node gets its call's arguments (ir_node.args): the values of its
 * inputs that are prim::Constant scalars, or int/float lists (prim::ListConstruct of such
 * constants, or list constants) that nothing mutates, stores or returns.
 */
#include "readers/torchscript/torchscript_reader.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/hash.h"
#include "core/text.h"
#include "readers/torchscript/common/context.h"
#include "readers/torchscript/graph_text/scope.h"
#include "readers/torchscript/lower/lower.h"
#include "readers/torchscript/jit/kinds.h"
#include "readers/torchscript/lang/lexer.h"

typedef struct gblk {
    size_t node_index;        /* owner: index in the parent context's node vector */
    ir_graph *g;
} gblk;

typedef struct gctx {
    om_vec nodes;             /* ir_node */
    om_vec blocks;            /* gblk: closed blocks of this context's nodes */
    ir_value *params;
    size_t n_params;
    ir_value *rets;           /* a block's `-> (%a, %b)`: the values it yields */
    size_t n_rets;
} gctx;

typedef struct gp {
    ts_ctx *c;
    const char *s;
    size_t len, pos;          /* pos: start of the next line */
    uint32_t line;
    const char *ls;           /* current line: in the text, or lbuf when it has tabs */
    size_t ll, loff;          /* its length and its offset in the text */
    char *lbuf;               /* a line with tabs, as spaces (columns stay the same) */
    size_t lcap;
    const char *self;         /* the main graph's module input (%self), or NULL */
    gts_modtab mods;          /* submodule values -> their module paths */
    om_vec stack;             /* gctx */
    uint64_t n_nodes;
    om_vec graphs;            /* ir_graph*: every graph made, for the arguments */
    struct cval *vtab;        /* constant values by name */
    size_t vcap, vlen;
    const char *too_long;     /* a name mstrndup refused: goom() names the limit, not memory */
    size_t too_long_len;
    const char *prim, *python_op; /* interned "prim", "PythonOp" */
} gp;

/* A value defined by a prim::Constant (a scalar, or a list constant) or by a
 * prim::ListConstruct of int/float constants: what an argument reading it holds. */
typedef struct cval {
    const char *name;         /* model arena (the node's output name) */
    uint64_t h;
    ir_attr a;                /* IR_ATTR_INT / FLOAT / STRING / INTS / FLOATS */
    uint8_t list;
    uint8_t written;          /* a list something mutates, stores, aliases or returns */
    uint8_t by_training;      /* a bool known only because a module's `training` is */
} cval;

static int gfail(gp *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int gfail(gp *p, size_t at, const char *fmt, ...)
{
    char msg[300];
    uint64_t col = at + 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return om_fail_line(p->c->err, OPMAP_EFORMAT, p->c->src, p->line,
                        col > UINT32_MAX ? UINT32_MAX : (uint32_t)col, "%s", msg);
}

static int goom(gp *p)
{
    if (p->too_long) {
        /* the column from the line's start in the text (the header line has no p->ls) */
        const char *q = p->too_long;
        int in_line = p->lbuf && q >= p->lbuf && q <= p->lbuf + p->lcap;
        int in_text = in_line || (q >= p->s && q <= p->s + p->len); /* else the header */
        uint64_t col;
        if (in_line)
            q = p->lbuf;
        else if (in_text)
            while (q > p->s && q[-1] != '\n')
                q--;
        col = in_text ? (uint64_t)(p->too_long - q) + 1 : 1;
        return p->c->rc = om_fail_line(p->c->err, OPMAP_ELIMIT, p->c->src, p->line,
                                       col > UINT32_MAX ? UINT32_MAX : (uint32_t)col,
                                       "a name of %zu bytes%s, over max_string_bytes (%" PRIu32
                                       ")", p->too_long_len,
                                       in_text ? "" : " in the graph's inputs",
                                       p->c->lim->max_string_bytes);
    }
    return ts_oom(p->c);
}

static const char *mstrndup(gp *p, const char *s, size_t n)
{
    if (n > p->c->lim->max_string_bytes) {
        p->too_long = s;
        p->too_long_len = n;
        return NULL;
    }
    return om_arena_strndup(&p->c->m->arena, s, n);
}

/* ---- types ---- */

static const struct {
    const char *name;
    int dt;
} scalar_types[] = {
    { "Float", IR_DT_FLOAT }, { "Double", IR_DT_DOUBLE }, { "Half", IR_DT_FLOAT16 },
    { "BFloat16", IR_DT_BFLOAT16 }, { "Long", IR_DT_INT64 }, { "Int", IR_DT_INT32 },
    { "Short", IR_DT_INT16 }, { "Char", IR_DT_INT8 }, { "Byte", IR_DT_UINT8 },
    { "Bool", IR_DT_BOOL }, { "ComplexFloat", IR_DT_COMPLEX64 },
    { "ComplexDouble", IR_DT_COMPLEX128 }, { "QInt8", IR_DT_INT8 }, { "QUInt8", IR_DT_UINT8 },
    { "QInt32", IR_DT_INT32 }, { "ComplexHalf", IR_DT_UNDEFINED },
    { "Float8_e5m2", IR_DT_FLOAT8E5M2 }, { "Float8_e4m3fn", IR_DT_FLOAT8E4M3FN },
};

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* Parses a printed type s[0, n) into t. */

/* The end of one item of a tensor type's list (a dimension, or `name=value`): the next
 * ',' outside brackets, or the closing ')' at n - 1. */
static size_t dim_item_end(const char *s, size_t j, size_t n)
{
    int depth = 0;
    while (j < n - 1 && (depth || s[j] != ',')) {
        if (s[j] == '(' || s[j] == '[')
            depth++;
        else if (s[j] == ')' || s[j] == ']')
            depth--;
        j++;
    }
    return j;
}
static int parse_type(gp *p, const char *s, size_t n, ir_type *t)
{
    size_t k, nl;
    memset(t, 0, sizeof(*t));
    t->rank = -1;
    while (n && s[n - 1] == ' ')
        n--;
    if (n && s[n - 1] == '?') {
        int rc = parse_type(p, s, n - 1, t);
        if (!rc && t->kind == IR_TYPE_TENSOR) {
            t->outer = IR_TYPE_OPTIONAL;
        } else if (!rc) {
            t->outer = IR_TYPE_OPTIONAL;
            t->kind = IR_TYPE_OPTIONAL;
        }
        return rc;
    }
    if (n >= 2 && s[n - 2] == '[' && s[n - 1] == ']') {
        int rc = parse_type(p, s, n - 2, t);
        t->outer = IR_TYPE_SEQUENCE;
        if (t->kind != IR_TYPE_TENSOR)
            t->kind = IR_TYPE_SEQUENCE;
        t->rank = t->kind == IR_TYPE_TENSOR ? t->rank : -1;
        return rc;
    }
    if (n == 6 && memcmp(s, "Tensor", 6) == 0) {
        t->kind = IR_TYPE_TENSOR;
        return OPMAP_OK;
    }
    if ((n == 3 && memcmp(s, "int", 3) == 0) || (n == 4 && memcmp(s, "bool", 4) == 0) ||
        (n == 5 && memcmp(s, "float", 5) == 0) || (n == 3 && memcmp(s, "str", 3) == 0)) {
        t->kind = IR_TYPE_OTHER;
        t->elem = s[0] == 'i' ? IR_DT_INT64 : s[0] == 'b' ? IR_DT_BOOL
                : s[0] == 'f' ? IR_DT_DOUBLE : IR_DT_STRING;
        return OPMAP_OK;
    }
    if (n >= 5 && memcmp(s, "Dict(", 5) == 0) {
        t->kind = IR_TYPE_MAP;
        return OPMAP_OK;
    }
    for (k = 0; k < sizeof(scalar_types) / sizeof(scalar_types[0]); k++) {
        nl = strlen(scalar_types[k].name);
        if (n > nl && memcmp(s, scalar_types[k].name, nl) == 0 && s[nl] == '(' &&
            s[n - 1] == ')') {
            /* Float(1, 3, 224, 224, strides=[...], requires_grad=0, device=cpu) */
            size_t i = nl + 1, ndims = 0, di = 0;
            size_t j;
            t->kind = IR_TYPE_TENSOR;
            t->elem = scalar_types[k].dt;
            /* count leading dims: items before the first name= */
            for (j = i; j < n - 1;) {
                size_t e = dim_item_end(s, j, n);
                if (memchr(s + j, '=', e - j))
                    break;
                ndims++;
                j = e + 1;
                while (j < n - 1 && s[j] == ' ')
                    j++;
            }
            if (!ndims)
                return OPMAP_OK;
            if (ndims > 1024)
                return gfail(p, 0, "tensor type with too many dimensions");
            if (!(t->dims = om_arena_array(&p->c->m->arena, ndims, sizeof(ir_dim))))
                return goom(p);
            t->rank = (int32_t)ndims;
            for (j = i; di < ndims && j < n - 1;) {
                size_t e = dim_item_end(s, j, n);
                int64_t v = 0;
                int ok = 1;
                t->dims[di].value = -1;
                if (e > j && is_digit(s[j])) {
                    size_t q;
                    for (q = j; q < e; q++) {
                        if (!is_digit(s[q]) || v > (INT64_MAX - 9) / 10) {
                            ok = 0;
                            break;
                        }
                        v = v * 10 + (s[q] - '0');
                    }
                    if (ok)
                        t->dims[di].value = v;
                } else if (e > j && s[j] != '*') {
                    /* a symbolic size: SS(-2) */
                    if (!(t->dims[di].param = mstrndup(p, s + j, e - j)))
                        return goom(p);
                }
                di++;
                j = e + 1;
                while (j < n - 1 && s[j] == ' ')
                    j++;
            }
            return OPMAP_OK;
        }
    }
    if (n && s[0] == '(') {
        t->kind = IR_TYPE_OTHER;
        return OPMAP_OK;
    }
    t->kind = IR_TYPE_OPAQUE;
    return OPMAP_OK;
}

/* ---- lines ---- */

/* The next line, without its CR LF or LF; tabs read as spaces. -1 when out of memory. */
static int next_line(gp *p)
{
    const char *nl;
    if (p->pos >= p->len)
        return 0;
    p->loff = p->pos;
    p->ls = p->s + p->pos;
    nl = memchr(p->ls, '\n', p->len - p->pos);
    p->ll = nl ? (size_t)(nl - p->ls) : p->len - p->pos;
    p->pos += p->ll + (nl ? 1 : 0);
    p->line++;
    if (p->ll && p->ls[p->ll - 1] == '\r')
        p->ll--;
    if (memchr(p->ls, '\t', p->ll)) {
        size_t i;
        if (p->ll + 1 > p->lcap) {
            char *nb = om_realloc(p->c->mem, p->lbuf, p->lcap, p->ll + 1);
            if (!nb)
                return -1;
            p->lbuf = nb;
            p->lcap = p->ll + 1;
        }
        for (i = 0; i < p->ll; i++)
            p->lbuf[i] = p->ls[i] == '\t' ? ' ' : p->ls[i];
        p->ls = p->lbuf;
    }
    return 1;
}

/* The end of a %name : Type item starting at s[i] (a ',' ')' or '=' at depth 0). */
static size_t item_end(const char *s, size_t i, size_t n, int stop_at_eq)
{
    int depth = 0, in_str = 0;
    for (; i < n; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\' && i + 1 < n) /* a '\\' ending the text escapes nothing */
                i++;
            else if (ch == '"')
                in_str = 0;
            continue;
        }
        if (ch == '"')
            in_str = 1;
        else if (ch == '(' || ch == '[' || ch == '{')
            depth++;
        else if (ch == ')' || ch == ']' || ch == '}') {
            if (!depth)
                return i;
            depth--;
        } else if (!depth && ch == ',')
            return i;
        else if (!depth && stop_at_eq && ch == '=' && i + 1 < n && s[i + 1] == ' ' && i &&
                 s[i - 1] == ' ')
            return i;
    }
    return i;
}

/* "%name : Type" -> value */
static int parse_value(gp *p, const char *s, size_t n, size_t at, ir_value *v)
{
    const char *colon;
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    if (i >= n || s[i] != '%')
        return gfail(p, at + i, "expected a %%value");
    colon = memchr(s + i, ':', n - i);
    if (!colon) {
        size_t e = n;
        while (e > i && s[e - 1] == ' ')
            e--;
        v->type.rank = -1;
        v->name = mstrndup(p, s + i + 1, e - i - 1);
        return v->name ? OPMAP_OK : goom(p);
    }
    {
        size_t ne = (size_t)(colon - s);
        while (ne > i && s[ne - 1] == ' ')
            ne--;
        if (!(v->name = mstrndup(p, s + i + 1, ne - i - 1)))
            return goom(p);
    }
    i = (size_t)(colon - s) + 1;
    while (i < n && s[i] == ' ')
        i++;
    return parse_type(p, s + i, n - i, &v->type);
}

/* A comma-separated list of values s[0, n), appended to out (ir_value). */
static int parse_values(gp *p, const char *s, size_t n, size_t at, om_vec *out, int stop_at_eq,
                        size_t *end)
{
    size_t i = 0;
    int rc;
    while (i < n) {
        size_t e;
        ir_value *v;
        while (i < n && s[i] == ' ')
            i++;
        if (i >= n || s[i] != '%')
            break;
        e = item_end(s, i, n, stop_at_eq);
        if (!(v = om_vec_push(out, p->c->mem)))
            return goom(p);
        if ((rc = parse_value(p, s + i, e - i, at + i, v)))
            return rc;
        i = e;
        if (i < n && s[i] == ',')
            i++;
        else
            break;
    }
    *end = i;
    return OPMAP_OK;
}

static const char *unquote(gp *p, const char *s, size_t n, size_t *outlen)
{
    char *o = om_arena_alloc(&p->c->m->arena, n + 1);
    size_t i, k = 0;
    if (!o)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char ch = s[++i];
            o[k++] = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch;
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = 0;
    *outlen = k;
    return o;
}

/* [name=value, ...] -> attributes */
static int parse_attrs(gp *p, const char *s, size_t n, size_t at, ir_node *node)
{
    size_t i = 0, cnt = 0, k = 0;
    for (i = 0; i < n;) {
        size_t e = item_end(s, i, n, 0);
        cnt++;
        i = e + 1;
    }
    if (!cnt)
        return OPMAP_OK;
    if (!(node->attrs = om_arena_array(&p->c->m->arena, cnt, sizeof(ir_attr))))
        return goom(p);
    for (i = 0; i < n && k < cnt;) {
        size_t e = item_end(s, i, n, 0), q, vs;
        const char *eq;
        ir_attr *a = &node->attrs[k];
        while (i < e && s[i] == ' ')
            i++;
        eq = memchr(s + i, '=', e - i);
        if (!eq)
            return gfail(p, at + i, "attribute without '='");
        q = (size_t)(eq - s);
        if (!(a->name = mstrndup(p, s + i, q - i)))
            return goom(p);
        vs = q + 1;
        if (vs < e && s[vs] == '"') {
            size_t ve = e;
            while (ve > vs && s[ve - 1] != '"')
                ve--;
            a->type = IR_ATTR_STRING;
            if (ve <= vs + 1 || !(a->s.data = unquote(p, s + vs + 1, ve - vs - 2, &a->s.size)))
                return ve <= vs + 1 ? gfail(p, at + vs, "unterminated string") : goom(p);
        } else {
            int is_int = vs < e, is_num = vs < e;
            size_t j;
            for (j = vs; j < e; j++) {
                char ch = s[j];
                if (!(is_digit(ch) || (ch == '-' && j == vs)))
                    is_int = 0;
                if (!(is_digit(ch) || ch == '-' || ch == '.' || ch == 'e' || ch == '+'))
                    is_num = 0;
            }
            if (is_int && e - vs < 19) {
                int64_t v = 0;
                int neg = s[vs] == '-';
                for (j = vs + (size_t)neg; j < e; j++)
                    v = v * 10 + (s[j] - '0');
                a->type = IR_ATTR_INT;
                a->i = neg ? -v : v;
            } else if (is_num) {
                double f;
                a->type = IR_ATTR_FLOAT;
                if (s[vs] == '-' ? tsl_parse_float(s + vs + 1, e - vs - 1, &f)
                                 : tsl_parse_float(s + vs, e - vs, &f))
                    a->f = s[vs] == '-' ? -f : f;
            } else {
                a->type = IR_ATTR_STRING;
                if (!(a->s.data = mstrndup(p, s + vs, e - vs)))
                    return goom(p);
                a->s.size = e - vs;
            }
        }
        k++;
        i = e + 1;
    }
    node->n_attrs = (uint32_t)k;
    return OPMAP_OK;
}

static int parse_comment(gp *p, const char *s, size_t n, ir_node *node)
{
    /* "path:line:col" */
    size_t i = n, c2, c1;
    int64_t line = 0, mul = 1;
    while (i && is_digit(s[i - 1]))
        i--;
    if (!i || s[i - 1] != ':')
        return OPMAP_OK;
    c2 = i - 1;
    i = c2;
    while (i && is_digit(s[i - 1]))
        i--;
    if (!i || s[i - 1] != ':' || i == c2)
        return OPMAP_OK;
    c1 = i - 1;
    for (i = c2; i > c1 + 1 && i - (c1 + 1) <= 9; i--) {
        line += (s[i - 1] - '0') * mul;
        mul *= 10;
    }
    if (c1 == 0 || line <= 0)
        return OPMAP_OK;
    {
        char *tmp = om_arena_strndup(&p->c->tmp, s, c1);
        if (!tmp || !(node->src_file = ts_intern_model(p->c, tmp)))
            return goom(p);
        node->src_line = (uint32_t)line;
    }
    return OPMAP_OK;
}

/* ---- constant values, for the call arguments ---- */

static cval *cval_find(gp *p, const char *name, uint64_t h)
{
    size_t j;
    if (!p->vcap)
        return NULL;
    for (j = h & (p->vcap - 1); p->vtab[j].name; j = (j + 1) & (p->vcap - 1))
        if (p->vtab[j].h == h && strcmp(p->vtab[j].name, name) == 0)
            return &p->vtab[j];
    return NULL;
}

static cval *cval_get(gp *p, const char *name)
{
    return name ? cval_find(p, name, om_hash_name(name)) : NULL;
}

/* Adds (or replaces: names are SSA, a repeat is a malformed graph) the value `name`. */
static int cval_put(gp *p, const char *name, const ir_attr *a, int list)
{
    uint64_t h = om_hash_name(name);
    size_t j;
    cval *e;
    if ((p->vlen + 1) * 2 > p->vcap) {
        size_t ncap = p->vcap ? p->vcap * 2 : 256, i;
        cval *nt = om_calloc(p->c->mem, ncap, sizeof(*nt));
        if (!nt)
            return goom(p);
        for (i = 0; i < p->vcap; i++) {
            if (!p->vtab[i].name)
                continue;
            for (j = p->vtab[i].h & (ncap - 1); nt[j].name; j = (j + 1) & (ncap - 1))
                ;
            nt[j] = p->vtab[i];
        }
        if (p->vtab)
            om_dealloc(p->c->mem, p->vtab, p->vcap * sizeof(*p->vtab));
        p->vtab = nt;
        p->vcap = ncap;
    }
    if (!(e = cval_find(p, name, h))) {
        for (j = h & (p->vcap - 1); p->vtab[j].name; j = (j + 1) & (p->vcap - 1))
            ;
        e = &p->vtab[j];
        p->vlen++;
    }
    memset(e, 0, sizeof(*e));
    e->name = name;
    e->h = h;
    e->a = *a;
    e->a.name = NULL;
    e->list = (uint8_t)list;
    return OPMAP_OK;
}

/* Marks the lists named in s[0, n) (`-> (%a, %b)`, `return (%x)`) as escaping. */
static void cval_escape_names(gp *p, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t b;
        if (s[i++] != '%')
            continue;
        b = i;
        while (i < n && s[i] != ',' && s[i] != ')' && s[i] != ' ')
            i++;
        if (i > b && i - b < 1024) {
            char name[1024];
            cval *e;
            memcpy(name, s + b, i - b);
            name[i - b] = 0;
            if ((e = cval_get(p, name)) && e->list)
                e->written = 1;
        }
    }
}

/* Whether input k of node reading a list may write, store or alias it. */
static int list_escapes(const ir_node *node, uint32_t k)
{
    if (strcmp(node->domain, "aten") != 0)
        return strcmp(node->domain, "prim") != 0 || strcmp(node->op, "ListUnpack") != 0;
    return tsj_kind_mutable(node->domain, node->op) || (k == 0 && tsj_kind_view(node->op));
}

/* A printed list constant "[1, 2]" / "[0.5, 1.]" into a (its elements: dt). */
static int parse_list_const(gp *p, const char *s, size_t n, int dt, ir_attr *a)
{
    size_t i, cnt = 0, k = 0;
    int floats = dt == IR_DT_DOUBLE;
    if (n < 2 || s[0] != '[' || s[n - 1] != ']')
        return OPMAP_OK;
    s++;
    n -= 2;
    for (i = 0; i < n; i++)
        cnt += s[i] == ',';
    cnt = n ? cnt + 1 : 0;
    if (cnt && !(floats ? (void *)(a->floats = om_arena_array(&p->c->m->arena, cnt,
                                                              sizeof(double)))
                        : (void *)(a->ints = om_arena_array(&p->c->m->arena, cnt,
                                                            sizeof(int64_t)))))
        return goom(p);
    for (i = 0; i < n && k < cnt;) {
        size_t b, e;
        int neg;
        while (i < n && s[i] == ' ')
            i++;
        b = i;
        while (i < n && s[i] != ',')
            i++;
        e = i++;
        while (e > b && s[e - 1] == ' ')
            e--;
        neg = e > b && s[b] == '-';
        if (floats) {
            double f;
            if (e <= b + (size_t)neg || !tsl_parse_float(s + b + neg, e - b - neg, &f))
                return OPMAP_OK;
            a->floats[k++] = neg ? -f : f;
        } else {
            int64_t v = 0;
            size_t j;
            if (e <= b + (size_t)neg || e - b - (size_t)neg > 18)
                return OPMAP_OK;
            for (j = b + (size_t)neg; j < e; j++) {
                if (!is_digit(s[j]))
                    return OPMAP_OK;
                v = v * 10 + (s[j] - '0');
            }
            a->ints[k++] = neg ? -v : v;
        }
    }
    if (k != cnt)
        return OPMAP_OK;
    a->type = floats ? IR_ATTR_FLOATS : IR_ATTR_INTS;
    if (floats)
        a->n_floats = cnt;
    else
        a->n_ints = cnt;
    return OPMAP_OK;
}

/* What a node line tells about constant values: the lists its inputs may change, and the
 * value it defines when it is a prim::Constant or a prim::ListConstruct of constants. */
static int note_values(gp *p, const ir_node *node)
{
    uint32_t k;
    ir_attr a;
    for (k = 0; k < node->n_inputs; k++) {
        cval *e = cval_get(p, node->inputs[k]);
        if (e && e->list && list_escapes(node, k))
            e->written = 1;
    }
    if (node->n_outputs != 1 || strcmp(node->domain, "prim") != 0)
        return OPMAP_OK;
    memset(&a, 0, sizeof(a));
    if (strcmp(node->op, "Constant") == 0) {
        const ir_attr *v = ir_node_attr(node, "value");
        const ir_type *t = &node->out_types[0];
        int scalar = t->kind == IR_TYPE_OTHER && t->outer == 0;
        if (!v && !node->n_attrs) { /* `prim::Constant()`: None */
            a.arg_kind = IR_ARG_NONE;
            return cval_put(p, node->outputs[0], &a, 0);
        }
        if (!v || node->n_attrs != 1)
            return OPMAP_OK;   /* a kind of constant not known */
        if (scalar && (t->elem == IR_DT_INT64 || t->elem == IR_DT_BOOL) &&
            v->type == IR_ATTR_INT) {
            a.type = IR_ATTR_INT;
            a.i = v->i;
            a.arg_kind = t->elem == IR_DT_BOOL ? IR_ARG_BOOL : IR_ARG_UNKNOWN;
        } else if (scalar && t->elem == IR_DT_DOUBLE && v->type == IR_ATTR_FLOAT) {
            a.type = IR_ATTR_FLOAT;
            a.f = v->f;
        } else if (scalar && t->elem == IR_DT_DOUBLE && v->type == IR_ATTR_INT) {
            a.type = IR_ATTR_FLOAT;
            a.f = (double)v->i;
        } else if (scalar && t->elem == IR_DT_STRING && v->type == IR_ATTR_STRING) {
            a.type = IR_ATTR_STRING;
            a.s = v->s;
        } else if (t->kind == IR_TYPE_SEQUENCE && t->outer == IR_TYPE_SEQUENCE &&
                   (t->elem == IR_DT_INT64 || t->elem == IR_DT_BOOL ||
                    t->elem == IR_DT_DOUBLE) && v->type == IR_ATTR_STRING) {
            int rc = parse_list_const(p, v->s.data, v->s.size, t->elem, &a);
            if (rc || a.type == IR_ATTR_UNDEFINED)
                return rc;
            return cval_put(p, node->outputs[0], &a, 1);
        } else {
            return OPMAP_OK;
        }
        return cval_put(p, node->outputs[0], &a, 0);
    }
    if (strcmp(node->op, "ListConstruct") == 0) {
        const ir_type *t = &node->out_types[0];
        int kind = 0;      /* 1 ints, 2 floats */
        for (k = 0; k < node->n_inputs; k++) {
            cval *e = cval_get(p, node->inputs[k]);
            int ek = !e || e->list ? 0 : e->a.type == IR_ATTR_INT ? 1
                   : e->a.type == IR_ATTR_FLOAT ? 2 : 0;
            if (!ek || (kind && ek != kind))
                return OPMAP_OK;
            kind = ek;
        }
        if (!kind) {
            /* empty: the printed type says int[] or float[] */
            if (t->kind != IR_TYPE_SEQUENCE || t->outer != IR_TYPE_SEQUENCE)
                return OPMAP_OK;
            kind = t->elem == IR_DT_INT64 || t->elem == IR_DT_BOOL ? 1
                 : t->elem == IR_DT_DOUBLE ? 2 : 0;
            if (!kind)
                return OPMAP_OK;
        }
        if (node->n_inputs &&
            !(kind == 1 ? (void *)(a.ints = om_arena_array(&p->c->m->arena, node->n_inputs,
                                                           sizeof(int64_t)))
                        : (void *)(a.floats = om_arena_array(&p->c->m->arena, node->n_inputs,
                                                             sizeof(double)))))
            return goom(p);
        for (k = 0; k < node->n_inputs; k++) {
            const cval *e = cval_get(p, node->inputs[k]);
            if (kind == 1)
                a.ints[k] = e->a.i;
            else
                a.floats[k] = e->a.f;
        }
        a.type = kind == 1 ? IR_ATTR_INTS : IR_ATTR_FLOATS;
        if (kind == 1)
            a.n_ints = node->n_inputs;
        else
            a.n_floats = node->n_inputs;
        return cval_put(p, node->outputs[0], &a, 1);
    }
    return OPMAP_OK;
}

/* ---- eval mode: a module's `training` read as False, as inference runs it ---- */

/* A scalar the graph holds as a constant, or knows because a module's training is False. */
typedef struct kval {
    int kind;                 /* 0 unknown, 1 bool, 2 int, 3 float, 4 None */
    int64_t i;
    double f;
    int by;                   /* known only because a module's `training` is */
} kval;

static kval known(gp *p, const char *name)
{
    kval v;
    const cval *e = cval_get(p, name);
    memset(&v, 0, sizeof(v));
    if (!e || e->list)
        return v;
    v.by = e->by_training;
    if (e->a.arg_kind == IR_ARG_NONE) {
        v.kind = 4;
    } else if (e->a.type == IR_ATTR_INT) {
        v.kind = e->a.arg_kind == IR_ARG_BOOL ? 1 : 2;
        v.i = e->a.i;
        v.f = (double)e->a.i;
    } else if (e->a.type == IR_ATTR_FLOAT) {
        v.kind = 3;
        v.f = e->a.f;
    }
    return v;
}

static int put_known(gp *p, const char *name, const kval *v)
{
    ir_attr a;
    int rc;
    memset(&a, 0, sizeof(a));
    if (v->kind == 4) {
        a.arg_kind = IR_ARG_NONE;
    } else if (v->kind == 3) {
        a.type = IR_ATTR_FLOAT;
        a.f = v->f;
    } else {
        a.type = IR_ATTR_INT;
        a.i = v->i;
        a.arg_kind = v->kind == 1 ? IR_ARG_BOOL : IR_ARG_UNKNOWN;
    }
    if ((rc = cval_put(p, name, &a, 0)) == OPMAP_OK)
        cval_get(p, name)->by_training = 1;
    return rc;
}

static int is_module_value(gp *p, const char *name)
{
    uint32_t depth;
    return (p->self && strcmp(name, p->self) == 0) || gts_mod_get(&p->mods, name, &depth);
}

/* The value of a scalar operator whose operands are known, one of them through training:
 * not / and / or, comparisons of numbers, `is` / `is not` None. 0 when not evaluated. */
static int evaluate(gp *p, const ir_node *nd, kval *out)
{
    static const char *const cmp[] = { "eq", "ne", "lt", "le", "gt", "ge" };
    kval x, y;
    size_t k;
    if (strcmp(nd->domain, "aten") != 0 || nd->n_outputs != 1 || !nd->n_inputs ||
        nd->n_inputs > 2)
        return 0;
    x = known(p, nd->inputs[0]);
    memset(&y, 0, sizeof(y));
    if (nd->n_inputs == 2)
        y = known(p, nd->inputs[1]);
    if (!x.kind || (nd->n_inputs == 2 && !y.kind) || !(x.by || y.by))
        return 0;
    memset(out, 0, sizeof(*out));
    out->kind = 1;
    out->by = 1;
    if (strcmp(nd->op, "__not__") == 0 && nd->n_inputs == 1 && x.kind == 1) {
        out->i = !x.i;
        return 1;
    }
    if (nd->n_inputs != 2)
        return 0;
    if ((strcmp(nd->op, "__and__") == 0 || strcmp(nd->op, "__or__") == 0) && x.kind == 1 &&
        y.kind == 1) {
        out->i = nd->op[2] == 'a' ? (x.i && y.i) : (x.i || y.i);
        return 1;
    }
    if (strcmp(nd->op, "__is__") == 0 || strcmp(nd->op, "__isnot__") == 0) {
        if (x.kind != 4 && y.kind != 4)
            return 0;  /* identity of two values: not a None check */
        out->i = (x.kind == 4 && y.kind == 4) == (nd->op[4] != 'n');
        return 1;
    }
    if (x.kind < 1 || x.kind > 3 || y.kind < 1 || y.kind > 3)
        return 0;
    for (k = 0; k < sizeof(cmp) / sizeof(cmp[0]); k++)
        if (strcmp(nd->op, cmp[k]) == 0) {
            double a = x.f, b = y.f;
            out->i = k == 0 ? a == b : k == 1 ? a != b : k == 2 ? a < b
                   : k == 3 ? a <= b : k == 4 ? a > b : a >= b;
            return 1;
        }
    return 0;
}

/*
 * As the archive reader does (ts_ctx.eval_mode): `self.training` of a module is False, and
 * what follows from it is known too: scalar operators on it (evaluate()), and an If it
 * decides, which keeps only the block that runs (the other's nodes are dropped) and whose
 * outputs take that block's values. The operators so decided leave no node, as torch's
 * constant propagation leaves none. Conditions known for other reasons (a constant
 * `inplace`) are not decided: torch's inlined graph, which the archive reader matches,
 * keeps both of their blocks. Blocks nest at most max_depth deep.
 */
static int fold_training(gp *p, ir_graph *g, uint32_t depth)
{
    size_t i;
    uint32_t a, k;
    int rc;
    kval v;
    if (depth > p->c->lim->max_depth)
        return om_fail(p->c->err, OPMAP_ELIMIT, p->c->src,
                       "blocks nested deeper than max_depth (%" PRIu32 ")", p->c->lim->max_depth);
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *nd = &g->nodes[i];
        const ir_attr *at;
        ir_attr *blocks = NULL;
        int is_prim = strcmp(nd->domain, "prim") == 0;
        for (a = 0; a < nd->n_attrs; a++)
            if (nd->attrs[a].n_graphs)
                blocks = &nd->attrs[a];
        if (is_prim && strcmp(nd->op, "GetAttr") == 0 && nd->n_inputs == 1 &&
            nd->n_outputs == 1 && (at = ir_node_attr(nd, "name")) && at->type == IR_ATTR_STRING &&
            at->s.data && strcmp(at->s.data, "training") == 0 &&
            is_module_value(p, nd->inputs[0])) {
            memset(&v, 0, sizeof(v));
            v.kind = 1;
            if ((rc = put_known(p, nd->outputs[0], &v)))
                return rc;
            p->c->m->training_reads_folded++;
        } else if (evaluate(p, nd, &v)) {
            if ((rc = put_known(p, nd->outputs[0], &v)))
                return rc;
            nd->domain = ts_intern_model(p->c, "prim");   /* no node is left */
            nd->op = ts_intern_model(p->c, "Constant");
            if (!nd->domain || !nd->op)
                return goom(p);
        } else if (is_prim && strcmp(nd->op, "If") == 0 && blocks && blocks->n_graphs == 2 &&
                   nd->n_inputs >= 1 && (v = known(p, nd->inputs[0])).kind == 1 && v.by) {
            ir_graph *live = blocks->graphs[v.i ? 0 : 1], *dead = blocks->graphs[v.i ? 1 : 0];
            dead->n_nodes = 0;
            if ((rc = fold_training(p, live, depth + 1)))
                return rc;
            for (k = 0; k < nd->n_outputs && k < live->n_outputs; k++) {
                kval r = known(p, live->outputs[k].name);
                if (r.kind && (rc = put_known(p, nd->outputs[k], &r)))
                    return rc;
            }
            continue;
        }
        for (a = 0; a < nd->n_attrs; a++)
            for (k = 0; k < nd->attrs[a].n_graphs; k++)
                if (nd->attrs[a].graphs[k] != g &&
                    (rc = fold_training(p, nd->attrs[a].graphs[k], depth + 1)))
                    return rc;
    }
    return OPMAP_OK;
}

/* ---- the printed type of every value, for the arguments computed at run time ---- */

typedef struct vtype {
    const char *name;
    uint64_t h;
    uint8_t kind;             /* IR_AT_* */
} vtype;

typedef struct vtypes {
    vtype *tab;
    size_t cap, len;
} vtypes;

static int at_of(const ir_type *t)
{
    if (t->outer == IR_TYPE_SEQUENCE)
        return IR_AT_LIST;
    switch (t->kind) {
    case IR_TYPE_TENSOR:
        return IR_AT_TENSOR;
    case IR_TYPE_SEQUENCE:
        return IR_AT_LIST;
    case IR_TYPE_OTHER:
        return t->elem == IR_DT_STRING ? IR_AT_STRING : IR_AT_NUMBER;
    case IR_TYPE_NONE:
        return IR_AT_UNKNOWN;
    default:
        return IR_AT_OTHER;
    }
}

static int vt_put(gp *p, vtypes *t, const char *name, int kind)
{
    uint64_t h = om_hash_name(name);
    size_t j;
    if ((t->len + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 256, i;
        vtype *nt = om_calloc(p->c->mem, ncap, sizeof(*nt));
        if (!nt)
            return goom(p);
        for (i = 0; i < t->cap; i++)
            if (t->tab[i].name) {
                for (j = t->tab[i].h & (ncap - 1); nt[j].name; j = (j + 1) & (ncap - 1))
                    ;
                nt[j] = t->tab[i];
            }
        if (t->tab)
            om_dealloc(p->c->mem, t->tab, t->cap * sizeof(*t->tab));
        t->tab = nt;
        t->cap = ncap;
    }
    for (j = h & (t->cap - 1); t->tab[j].name; j = (j + 1) & (t->cap - 1))
        if (t->tab[j].h == h && strcmp(t->tab[j].name, name) == 0)
            break;
    if (!t->tab[j].name)
        t->len++;
    t->tab[j].name = name;
    t->tab[j].h = h;
    t->tab[j].kind = (uint8_t)kind;
    return OPMAP_OK;
}

static int vt_get(const vtypes *t, const char *name)
{
    uint64_t h;
    size_t j;
    if (!t->cap || !name)
        return IR_AT_UNKNOWN;
    h = om_hash_name(name);
    for (j = h & (t->cap - 1); t->tab[j].name; j = (j + 1) & (t->cap - 1))
        if (t->tab[j].h == h && strcmp(t->tab[j].name, name) == 0)
            return t->tab[j].kind;
    return IR_AT_UNKNOWN;
}

/* Every value a graph or block defines, by name: its printed type's kind. */
static int collect_types(gp *p, vtypes *t)
{
    size_t gi, i;
    uint32_t k;
    int rc;
    for (gi = 0; gi < p->graphs.len; gi++) {
        const ir_graph *g = OM_VEC_AT(&p->graphs, ir_graph *, gi);
        for (i = 0; i < g->n_inputs; i++)
            if ((rc = vt_put(p, t, g->inputs[i].name, at_of(&g->inputs[i].type))))
                return rc;
        for (i = 0; i < g->n_nodes; i++) {
            const ir_node *nd = &g->nodes[i];
            for (k = 0; nd->out_types && k < nd->n_outputs; k++)
                if ((rc = vt_put(p, t, nd->outputs[k], at_of(&nd->out_types[k]))))
                    return rc;
        }
    }
    return OPMAP_OK;
}

/* Every node's args from the values its inputs name, interned. */
static int fill_args(gp *p)
{
    tsir_argtab tab;
    vtypes vt;
    om_vec buf;
    size_t gi, i;
    int rc;
    memset(&tab, 0, sizeof(tab));
    memset(&vt, 0, sizeof(vt));
    tab.c = p->c;
    om_vec_init(&buf, sizeof(ir_attr));
    rc = collect_types(p, &vt);
    for (gi = 0; gi < p->graphs.len && rc == OPMAP_OK; gi++) {
        ir_graph *g = OM_VEC_AT(&p->graphs, ir_graph *, gi);
        for (i = 0; i < g->n_nodes && rc == OPMAP_OK; i++) {
            ir_node *nd = &g->nodes[i];
            ir_attr *a;
            uint32_t k;
            if (!nd->n_inputs)
                continue;
            while (buf.len < nd->n_inputs)
                if (!om_vec_push(&buf, p->c->mem)) {
                    rc = goom(p);
                    break;
                }
            if (rc)
                break;
            a = buf.data;
            memset(a, 0, nd->n_inputs * sizeof(*a));
            for (k = 0; k < nd->n_inputs; k++) {
                const cval *e = cval_get(p, nd->inputs[k]);
                if (e && !e->written) {
                    a[k] = e->a;
                } else { /* a value the call reads: input k */
                    a[k].arg_kind = IR_ARG_INPUTS;
                    a[k].arg_type = (uint8_t)vt_get(&vt, nd->inputs[k]);
                    a[k].arg_input = k;
                    a[k].arg_inputs = 1;
                }
            }
            if (!(nd->args = tsir_args_intern(&tab, a, nd->n_inputs)))
                rc = goom(p);
            else
                nd->n_args = nd->n_inputs;
        }
    }
    if (vt.tab)
        om_dealloc(p->c->mem, vt.tab, vt.cap * sizeof(*vt.tab));
    om_vec_free(&buf, p->c->mem);
    tsir_args_free(&tab);
    return rc;
}

/* ---- module paths: node names the walker puts in paths (main/layer1/0/conv1/...) ---- */

/* A scope suffix s[0, n) -> node->name holds the module path until pop_ctx names it. */
static int note_scope(gp *p, const char *s, size_t n, ir_node *node)
{
    char *path = om_arena_alloc(&p->c->tmp, n + 1);
    size_t len;
    if (!path)
        return goom(p);
    if ((len = gts_scope_path(s, n, path)) > p->c->lim->max_string_bytes) {
        while (*s == ' ')
            s++;
        p->too_long = s; /* the error's column: the scope's */
        p->too_long_len = len;
        return goom(p);
    }
    if (len && !(node->name = om_arena_strndup(&p->c->m->arena, path, len)))
        return goom(p);
    return OPMAP_OK;
}

/* A submodule's prim::GetAttr gets its path; a prim::CallMethod of one, that path. The
 * chain is as deep as max_depth at most: each link copies the path. */
static int note_module(gp *p, ir_node *node)
{
    const char *base, *path;
    const ir_attr *a;
    uint32_t depth = 0;
    if (strcmp(node->domain, "prim") != 0 || node->n_inputs < 1)
        return OPMAP_OK;
    base = gts_mod_get(&p->mods, node->inputs[0], &depth);
    if (strcmp(node->op, "CallMethod") == 0) {
        if (base && !node->name[0])
            node->name = base;  /* the scope, when printed too, says the same */
        return OPMAP_OK;
    }
    if (strcmp(node->op, "GetAttr") != 0 || node->n_outputs != 1 ||
        node->out_types[0].kind != IR_TYPE_OPAQUE || !(a = ir_node_attr(node, "name")) ||
        a->type != IR_ATTR_STRING || (!base && (!p->self || strcmp(node->inputs[0], p->self))))
        return OPMAP_OK;
    if (!base) {
        path = a->s.data;
    } else if (depth >= p->c->lim->max_depth) {
        return om_fail_line(p->c->err, OPMAP_ELIMIT, p->c->src, p->line, 1,
                            "prim::GetAttr chain of submodules deeper than max_depth (%" PRIu32
                            ")", p->c->lim->max_depth);
    } else if (!(path = om_arena_printf(&p->c->m->arena, "%s/%s", base, a->s.data))) {
        return goom(p);
    }
    return gts_mod_put(&p->mods, node->outputs[0], path, base ? depth + 1 : 1) ? OPMAP_OK
                                                                              : goom(p);
}

/*
 * Names the nodes of a finished graph that have a module path: "layer1/0/conv1/op_7",
 * the path relative to the module of the node owning the block (`owner`, or NULL).
 */
static int name_nodes(gp *p, ir_graph *g, const char *owner)
{
    size_t i, ol = owner ? strlen(owner) : 0;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *nd = &g->nodes[i];
        const char *rel = nd->name;
        char *name;
        if (!rel[0])
            continue;
        if (ol && strncmp(rel, owner, ol) == 0 && (rel[ol] == '/' || !rel[ol]))
            rel += rel[ol] ? ol + 1 : ol;
        if (!rel[0]) {
            nd->name = "";
            continue;
        }
        if (!(name = om_arena_printf(&p->c->m->arena, "%s/%s_%zu", rel, nd->op, i)))
            return goom(p);
        nd->name = name;
    }
    return OPMAP_OK;
}

static gctx *top_ctx(gp *p)
{
    return &OM_VEC_AT(&p->stack, gctx, p->stack.len - 1);
}

/*
 * A custom autograd.Function as torch prints it: `^Name[inplace=0, module="m",
 * Subgraph=<Graph>](scalar args)(inputs)`. Its kind is prim::PythonOp; the Python
 * function's name is kept as the attribute "name", its attributes and scalar
 * arguments (Python objects) are skipped. *ip is left at the inputs' '('.
 */
static int python_op(gp *p, const char *s, size_t n, size_t kstart, size_t *ip, ir_node *node)
{
    size_t i = kstart + 1, e, at = (size_t)(s - p->ls);
    ir_attr *a;
    while (i < n && s[i] != '[' && s[i] != '(' && s[i] != ' ')
        i++;
    if (i == kstart + 1)
        return gfail(p, at + kstart, "expected a Python function name after '^'");
    if (!(node->attrs = om_arena_array(&p->c->m->arena, 1, sizeof(ir_attr))))
        return goom(p);
    a = &node->attrs[0];
    if (!(a->name = mstrndup(p, "name", 4)) ||
        !(a->s.data = mstrndup(p, s + kstart + 1, i - kstart - 1)))
        return goom(p);
    a->type = IR_ATTR_STRING;
    a->s.size = i - kstart - 1;
    node->n_attrs = 1;
    if (i < n && s[i] == '[') {
        e = item_end(s, i + 1, n, 0);
        while (e < n && s[e] != ']')
            e = item_end(s, e + 1, n, 0);
        if (e >= n)
            return gfail(p, at + i, "attribute list not closed");
        i = e + 1;
    }
    if (i >= n || s[i] != '(')
        return gfail(p, at + i, "expected '(' with the Python function's scalar arguments");
    e = item_end(s, i + 1, n, 0);
    while (e < n && s[e] != ')')
        e = item_end(s, e + 1, n, 0);
    if (e >= n)
        return gfail(p, at + i, "scalar argument list not closed");
    node->domain = p->prim;
    node->op = p->python_op;
    *ip = e + 1;
    return OPMAP_OK;
}

static int node_line(gp *p, const char *s, size_t n)
{
    gctx *cx = top_ctx(p);
    om_vec outs;
    size_t i = 0, kstart, kend, e;
    ir_node node;
    int rc;
    memset(&node, 0, sizeof(node));
    om_vec_init(&outs, sizeof(ir_value));
    if ((rc = parse_values(p, s, n, (size_t)(s - p->ls), &outs, 1, &i)))
        goto done;
    while (i < n && s[i] == ' ')
        i++;
    if (i >= n || s[i] != '=') {
        rc = gfail(p, (size_t)(s - p->ls) + i, "expected '=' in a node line");
        goto done;
    }
    i++;
    while (i < n && s[i] == ' ')
        i++;
    kstart = i;
    while (i < n && s[i] != '(' && s[i] != '[' && s[i] != ' ')
        i++;
    kend = i;
    if (kend > kstart && s[kstart] == '^') {
        /* a custom autograd.Function: `^Name[inplace=0, module="m", Subgraph=<Graph>](scalar
         * args)(inputs)`, torch's prim::PythonOp; its attributes are Python's, not read */
        if ((rc = python_op(p, s, n, kstart, &i, &node)))
            goto done;
    } else {
        const char *sep = kend > kstart ? memchr(s + kstart, ':', kend - kstart) : NULL;
        char *tmp;
        if (!sep || (size_t)(sep - s) + 2 > kend || sep[1] != ':') {
            rc = gfail(p, (size_t)(s - p->ls) + kstart, "expected a kind ns::op");
            goto done;
        }
        if (!(tmp = om_arena_strndup(&p->c->tmp, s + kstart, (size_t)(sep - (s + kstart)))) ||
            !(node.domain = ts_intern_model(p->c, tmp)) ||
            !(tmp = om_arena_strndup(&p->c->tmp, sep + 2, (size_t)(s + kend - sep - 2))) ||
            !(node.op = ts_intern_model(p->c, tmp))) {
            rc = goom(p);
            goto done;
        }
        if (!node.op[0] || !node.domain[0]) {
            rc = gfail(p, (size_t)(s - p->ls) + kstart, "expected a kind ns::op");
            goto done;
        }
    }
    node.name = "";
    if (node.op == p->python_op)
        ;  /* its attributes and scalar arguments were skipped */
    else if (i < n && s[i] == '[') {
        e = item_end(s, i + 1, n, 0);
        while (e < n && s[e] != ']')
            e = item_end(s, e + 1, n, 0);
        if (e >= n) {
            rc = gfail(p, (size_t)(s - p->ls) + i, "attribute list not closed");
            goto done;
        }
        if ((rc = parse_attrs(p, s + i + 1, e - i - 1, (size_t)(s - p->ls) + i + 1, &node)))
            goto done;
        i = e + 1;
    }
    if (i >= n || s[i] != '(') {
        rc = gfail(p, (size_t)(s - p->ls) + i, "expected '(' after the node kind");
        goto done;
    }
    {
        om_vec ins;
        size_t end;
        om_vec_init(&ins, sizeof(ir_value));
        rc = parse_values(p, s + i + 1, n - i - 1, (size_t)(s - p->ls) + i + 1, &ins, 0, &end);
        if (!rc && (i + 1 + end >= n || s[i + 1 + end] != ')'))
            rc = gfail(p, (size_t)(s - p->ls) + i + 1 + end, "expected ')' after the inputs");
        if (!rc && ins.len) {
            size_t k;
            if (!(node.inputs = om_arena_array(&p->c->m->arena, ins.len, sizeof(char *))))
                rc = goom(p);
            for (k = 0; !rc && k < ins.len; k++)
                node.inputs[k] = OM_VEC_AT(&ins, ir_value, k).name;
            node.n_inputs = (uint32_t)ins.len;
        }
        om_vec_free(&ins, p->c->mem);
        if (rc)
            goto done;
        i = i + 1 + end + 1;
    }
    while (i < n && s[i] == ' ')
        i++;
    if (n - i >= 8 && memcmp(s + i, ", scope:", 8) == 0) {
        /* traced nodes: `, scope: __module.a/__module.a.b`, before the comment */
        const char *hash = memchr(s + i, '#', n - i);
        size_t se = hash ? (size_t)(hash - s) : n;
        if ((rc = note_scope(p, s + i + 8, se - i - 8, &node)))
            goto done;
        i = se;
    }
    if (i < n && s[i] == '#') {
        i++;
        while (i < n && s[i] == ' ')
            i++;
        if ((rc = parse_comment(p, s + i, n - i, &node)))
            goto done;
    } else if (i < n) {
        rc = gfail(p, (size_t)(s - p->ls) + i, "unexpected text after a node");
        goto done;
    }
    if (outs.len) {
        size_t k;
        if (!(node.outputs = om_arena_array(&p->c->m->arena, outs.len, sizeof(char *))) ||
            !(node.out_types = om_arena_array(&p->c->m->arena, outs.len, sizeof(ir_type)))) {
            rc = goom(p);
            goto done;
        }
        for (k = 0; k < outs.len; k++) {
            node.outputs[k] = OM_VEC_AT(&outs, ir_value, k).name;
            node.out_types[k] = OM_VEC_AT(&outs, ir_value, k).type;
        }
        node.n_outputs = (uint32_t)outs.len;
    }
    if (++p->n_nodes > p->c->lim->max_nodes) {
        rc = om_fail(p->c->err, OPMAP_ELIMIT, p->c->src,
                     "more than max_nodes (%" PRIu64 ") nodes", p->c->lim->max_nodes);
        goto done;
    }
    if ((rc = note_values(p, &node)) || (rc = note_module(p, &node)))
        goto done;
    {
        ir_node *slot = om_vec_push(&cx->nodes, p->c->mem);
        if (!slot)
            rc = goom(p);
        else
            *slot = node;
    }
done:
    om_vec_free(&outs, p->c->mem);
    return rc;
}

static int push_ctx(gp *p)
{
    gctx *cx;
    if (p->stack.len > p->c->lim->max_depth)
        return om_fail_line(p->c->err, OPMAP_ELIMIT, p->c->src, p->line, 1,
                            "blocks nested deeper than max_depth (%" PRIu32 ")",
                            p->c->lim->max_depth);
    if (!(cx = om_vec_push(&p->stack, p->c->mem)))
        return goom(p);
    om_vec_init(&cx->nodes, sizeof(ir_node));
    om_vec_init(&cx->blocks, sizeof(gblk));
    cx->params = cx->rets = NULL;
    cx->n_params = cx->n_rets = 0;
    return OPMAP_OK;
}

/* Turns the top context into an ir_graph (attaching its nodes' blocks) and pops it. */
static int pop_ctx(gp *p, ir_graph **out)
{
    gctx *cx = top_ctx(p);
    ir_graph *g = om_arena_alloc(&p->c->m->arena, sizeof(*g));
    size_t i, n = cx->nodes.len;
    int rc = OPMAP_OK;
    if (!g || (n && !(g->nodes = om_arena_array(&p->c->m->arena, n, sizeof(ir_node))))) {
        rc = goom(p);
    } else {
        if (n)
            memcpy(g->nodes, cx->nodes.data, n * sizeof(ir_node));
        g->n_nodes = n;
        if (p->stack.len >= 2) { /* a block: paths continue from its owner's module */
            const gctx *outer = &OM_VEC_AT(&p->stack, gctx, p->stack.len - 2);
            rc = name_nodes(p, g, OM_VEC_AT(&outer->nodes, ir_node, outer->nodes.len - 1).name);
        } else {
            rc = name_nodes(p, g, NULL);
        }
        g->name = "";
        g->inputs = cx->params;
        g->n_inputs = cx->n_params;
        g->outputs = cx->rets;
        g->n_outputs = cx->n_rets;
        /* blocks: consecutive entries of one node */
        for (i = 0; i < cx->blocks.len && rc == OPMAP_OK;) {
            gblk *b = &OM_VEC_AT(&cx->blocks, gblk, i);
            size_t j = i, k;
            ir_attr *a;
            while (j < cx->blocks.len && OM_VEC_AT(&cx->blocks, gblk, j).node_index ==
                                             b->node_index)
                j++;
            if (!(a = om_arena_alloc(&p->c->m->arena, sizeof(*a))) ||
                !(a->graphs = om_arena_array(&p->c->m->arena, j - i, sizeof(ir_graph *)))) {
                rc = goom(p);
                break;
            }
            a->name = "block";
            a->type = IR_ATTR_GRAPHS;
            a->n_graphs = j - i;
            for (k = i; k < j; k++)
                a->graphs[k - i] = OM_VEC_AT(&cx->blocks, gblk, k).g;
            {
                ir_node *nd = &g->nodes[b->node_index];
                ir_attr *all = om_arena_array(&p->c->m->arena, nd->n_attrs + 1, sizeof(ir_attr));
                if (!all) {
                    rc = goom(p);
                    break;
                }
                if (nd->n_attrs)
                    memcpy(all, nd->attrs, nd->n_attrs * sizeof(ir_attr));
                all[nd->n_attrs] = *a;
                nd->attrs = all;
                nd->n_attrs++;
            }
            i = j;
        }
        p->c->m->stats.graphs++;
        p->c->m->stats.nodes += n;
        {
            ir_graph **gs = om_vec_push(&p->graphs, p->c->mem);
            if (!gs)
                rc = goom(p);
            else
                *gs = g;
        }
    }
    om_vec_free(&cx->nodes, p->c->mem);
    om_vec_free(&cx->blocks, p->c->mem);
    p->stack.len--;
    if (rc == OPMAP_OK)
        *out = g;
    return rc;
}

static int block_header(gp *p, const char *s, size_t n)
{
    gctx *outer = top_ctx(p);
    om_vec params;
    const char *open = memchr(s, '(', n);
    size_t end;
    int rc;
    if (!outer->nodes.len)
        return gfail(p, (size_t)(s - p->ls), "a block before any node");
    if (!open)
        return gfail(p, (size_t)(s - p->ls), "expected 'blockN(...):'");
    om_vec_init(&params, sizeof(ir_value));
    rc = parse_values(p, open + 1, n - (size_t)(open + 1 - s), (size_t)(open + 1 - p->ls),
                      &params, 0, &end);
    if (!rc && (rc = push_ctx(p)) == OPMAP_OK && params.len) {
        gctx *cx = top_ctx(p);
        if (!(cx->params = om_arena_array(&p->c->m->arena, params.len, sizeof(ir_value))))
            rc = goom(p);
        else
            memcpy(cx->params, params.data, params.len * sizeof(ir_value));
        cx->n_params = params.len;
    }
    om_vec_free(&params, p->c->mem);
    return rc;
}

/* The names of `-> (%a, %b)` in s[0, n): the values the block yields, kept on its context. */
static int block_rets(gp *p, const char *s, size_t n)
{
    gctx *cx = top_ctx(p);
    size_t i, cnt = 0, k = 0;
    for (i = 0; i < n; i++)
        cnt += s[i] == '%';
    if (!cnt)   /* at most one value per byte of the line, which max_string_bytes bounds */
        return OPMAP_OK;
    if (!(cx->rets = om_arena_array(&p->c->m->arena, cnt, sizeof(ir_value))))
        return goom(p);
    for (i = 0; i < n && k < cnt;) {
        size_t b;
        if (s[i++] != '%')
            continue;
        b = i;
        while (i < n && s[i] != ',' && s[i] != ')' && s[i] != ' ')
            i++;
        memset(&cx->rets[k], 0, sizeof(cx->rets[k]));
        cx->rets[k].type.rank = -1;
        if (!(cx->rets[k++].name = mstrndup(p, s + b, i - b)))
            return goom(p);
    }
    cx->n_rets = k;
    return OPMAP_OK;
}

static int block_end(gp *p)
{
    ir_graph *g;
    gctx *outer;
    gblk *b;
    int rc;
    if (p->stack.len < 2)
        return gfail(p, 0, "'->' outside a block");
    if ((rc = pop_ctx(p, &g)))
        return rc;
    outer = top_ctx(p);
    if (!(b = om_vec_push(&outer->blocks, p->c->mem)))
        return goom(p);
    b->node_index = outer->nodes.len - 1;
    b->g = g;
    return OPMAP_OK;
}

/*
 * Parses one graph whose header "graph(" starts at byte `at` of the text: its inputs (the
 * header may span lines, up to "):"), then node, block and block-end lines to its `return`.
 */
static int parse_graph(gp *p, size_t at, ir_graph **out)
{
    om_vec inputs;
    const char *h = p->s + at;
    size_t k, open = 6, room = p->len - at;
    int depth = 0, rc = OPMAP_OK, done = 0, more = 0;
    om_vec_init(&inputs, sizeof(ir_value));
    for (k = open; k < room; k++) {
        char ch = h[k];
        if (ch == '(' || ch == '[')
            depth++;
        else if (ch == ')' || ch == ']') {
            if (!depth)
                break;
            depth--;
        } else if (ch == '\n') {
            p->line++;
        }
    }
    if (k + 1 >= room || h[k + 1] != ':')
        return gfail(p, 0, "graph header not closed with '):'");
    {
        /* inputs may span lines: parse them as one string with newlines as spaces */
        char *flat = om_arena_strndup(&p->c->tmp, h + open, k - open);
        size_t end, j;
        if (!flat)
            return goom(p);
        for (j = 0; flat[j]; j++)
            if (flat[j] == '\n' || flat[j] == '\r' || flat[j] == '\t')
                flat[j] = ' ';
        rc = parse_values(p, flat, k - open, open, &inputs, 0, &end);
    }
    p->pos = at + k + 2;
    while (p->pos < p->len && p->s[p->pos] != '\n')
        p->pos++;
    if (p->pos < p->len)
        p->pos++;
    if (!rc)
        rc = push_ctx(p);
    if (!rc && !p->self && inputs.len &&
        OM_VEC_AT(&inputs, ir_value, 0).type.kind == IR_TYPE_OPAQUE)
        p->self = OM_VEC_AT(&inputs, ir_value, 0).name; /* the module: GetAttr chains start here */
    while (rc == OPMAP_OK && !done && (more = next_line(p)) > 0) {
        const char *s = p->ls;
        size_t n = p->ll;
        k = 0;
        while (k < n && s[k] == ' ')
            k++;
        if (k == n)
            continue;
        if (n - k >= 6 && memcmp(s + k, "return", 6) == 0) {
            if (p->stack.len != 1)
                rc = gfail(p, k, "'return' inside a block");
            cval_escape_names(p, s + k, n - k);
            done = 1;
        } else if (n - k >= 2 && s[k] == '-' && s[k + 1] == '>') {
            cval_escape_names(p, s + k, n - k);
            if (p->stack.len >= 2)
                rc = block_rets(p, s + k, n - k);
            if (rc == OPMAP_OK)
                rc = block_end(p);
        } else if (n - k >= 5 && memcmp(s + k, "block", 5) == 0 && memchr(s + k, '(', n - k) &&
                   s[n - 1] == ':') {
            rc = block_header(p, s + k, n - k);
        } else {
            rc = node_line(p, s + k, n - k);
        }
    }
    if (rc == OPMAP_OK && more < 0)
        rc = goom(p);
    else if (rc == OPMAP_OK && !done)
        rc = om_fail(p->c->err, OPMAP_EFORMAT, p->c->src,
                     "graph text ends without 'return' (truncated?)");
    if (rc == OPMAP_OK) {
        gctx *cx = top_ctx(p);
        if (inputs.len) {
            if (!(cx->params = om_arena_array(&p->c->m->arena, inputs.len, sizeof(ir_value))))
                rc = goom(p);
            else
                memcpy(cx->params, inputs.data, inputs.len * sizeof(ir_value));
            cx->n_params = inputs.len;
        }
        if (rc == OPMAP_OK)
            rc = pop_ctx(p, out);
    }
    om_vec_free(&inputs, p->c->mem);
    return rc;
}

typedef struct section {
    const char *kind;          /* "prim::fork_0" */
    ir_graph *g;
} section;

static int cmp_section(const void *a, const void *b)
{
    return strcmp(((const section *)a)->kind, ((const section *)b)->kind);
}

/*
 * A node printed as ns::Name_N whose subgraph is a `with ns::Name_N = graph(...)` section is
 * an ns::Name node (prim::fork, prim::FusionGroup, ...) holding that graph as "Subgraph".
 */
static int attach_sections(gp *p, ir_graph *g, section *secs, size_t n, uint32_t depth)
{
    size_t i;
    uint32_t a, k;
    int rc;
    if (depth > p->c->lim->max_depth)
        return om_fail(p->c->err, OPMAP_ELIMIT, p->c->src,
                       "subgraphs nested deeper than max_depth (%" PRIu32 ")",
                       p->c->lim->max_depth);
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *nd = &g->nodes[i];
        size_t ol = strlen(nd->op), q = ol;
        for (a = 0; a < nd->n_attrs; a++)
            for (k = 0; k < nd->attrs[a].n_graphs; k++)
                if (nd->attrs[a].graphs[k] != g &&
                    (rc = attach_sections(p, nd->attrs[a].graphs[k], secs, n, depth + 1)))
                    return rc;
        while (q && is_digit(nd->op[q - 1]))
            q--;
        if (q == ol || q < 2 || nd->op[q - 1] != '_')
            continue;
        {
            char key[512];
            section want, *hit;
            ir_attr *all;
            char *op;
            if (snprintf(key, sizeof(key), "%s::%s", nd->domain, nd->op) >= (int)sizeof(key))
                continue;
            want.kind = key;
            hit = bsearch(&want, secs, n, sizeof(*secs), cmp_section);
            if (!hit)
                continue;
            if (!(op = om_arena_strndup(&p->c->tmp, nd->op, q - 1)) ||
                !(nd->op = ts_intern_model(p->c, op)))
                return goom(p);
            /* a fork's subgraph is its closure, which torch's inlined graph does not walk
             * either; fusion groups hold the operators that run */
            if (strcmp(nd->op, "fork") == 0 || strcmp(nd->op, "awaitable") == 0)
                continue;
            if (!(all = om_arena_array(&p->c->m->arena, nd->n_attrs + 1, sizeof(ir_attr))) ||
                !(all[nd->n_attrs].graphs = om_arena_alloc(&p->c->m->arena, sizeof(ir_graph *))))
                return goom(p);
            if (nd->n_attrs)
                memcpy(all, nd->attrs, nd->n_attrs * sizeof(ir_attr));
            all[nd->n_attrs].name = "Subgraph";
            all[nd->n_attrs].type = IR_ATTR_GRAPH;
            all[nd->n_attrs].n_graphs = 1;
            all[nd->n_attrs].graphs[0] = hit->g;
            nd->attrs = all;
            nd->n_attrs++;
        }
    }
    return OPMAP_OK;
}

int om_ts_graph_read(ir_model *m, const unsigned char *data, uint64_t size,
                     const opmap_limits *lim, opmap_error *err)
{
    ts_ctx c;
    gp p;
    int rc = OPMAP_OK, more;
    om_vec secs;
    size_t i, k;
    ts_ctx_init(&c, m, lim, err);
    memset(&p, 0, sizeof(p));
    p.c = &c;
    p.s = (const char *)data;
    p.prim = ts_intern_model(&c, "prim");
    p.python_op = ts_intern_model(&c, "PythonOp");
    p.len = (size_t)size;
    om_vec_init(&p.stack, sizeof(gctx));
    om_vec_init(&p.graphs, sizeof(ir_graph *));
    om_vec_init(&secs, sizeof(section));
    p.mods.mem = c.mem;
    m->format = OPMAP_FORMAT_TORCHSCRIPT_GRAPH;
    m->producer_name = "pytorch";
    m->producer_version = m->domain = "";
    if (!p.prim || !p.python_op) {
        rc = goom(&p);
        goto out;
    }
    do {
        if ((more = next_line(&p)) < 0) {
            rc = goom(&p);
            goto out;
        }
        for (k = 0; k < p.ll && p.ls[k] == ' '; k++)
            ;
    } while (more && k == p.ll);
    if (p.ll - k < 6 || memcmp(p.ls + k, "graph(", 6) != 0) {
        rc = gfail(&p, k, "expected 'graph(' at the start of TorchScript graph text");
        goto out;
    }
    if ((rc = parse_graph(&p, p.loff + k, &m->main)))
        goto out;
    m->main->name = "main";
    /* subgraphs of fork / fusion nodes follow: `with prim::fork_0 = graph(...)` */
    while (rc == OPMAP_OK && (more = next_line(&p)) != 0) {
        const char *s = p.ls, *eq;
        size_t n = p.ll;
        section *sec;
        if (more < 0) {
            rc = goom(&p);
            break;
        }
        k = 0;
        while (k < n && s[k] == ' ')
            k++;
        if (k == n)
            continue;
        /* " = graph(" is looked for after "with ": found inside it ("with = graph(") the
         * kind's length would be negative */
        if (n - k < 5 || memcmp(s + k, "with ", 5) != 0 ||
            !(eq = om_find_in(s + k + 5, n - k - 5, " = graph("))) {
            rc = gfail(&p, k, "text after the graph's return");
            break;
        }
        if (!(sec = om_vec_push(&secs, c.mem))) {
            rc = goom(&p);
            break;
        }
        if (!(sec->kind = mstrndup(&p, s + k + 5, (size_t)(eq - (s + k + 5))))) {
            rc = goom(&p);
            break;
        }
        rc = parse_graph(&p, p.loff + (size_t)(eq + 3 - p.ls), &sec->g);
    }
    if (rc == OPMAP_OK && secs.len) {
        qsort(secs.data, secs.len, sizeof(section), cmp_section);
        rc = attach_sections(&p, m->main, secs.data, secs.len, 0);
        for (i = 0; rc == OPMAP_OK && i < secs.len; i++)
            rc = attach_sections(&p, OM_VEC_AT(&secs, section, i).g, secs.data, secs.len, 0);
    }
    if (rc == OPMAP_OK && c.eval_mode)
        rc = fold_training(&p, m->main, 0);
    if (rc == OPMAP_OK)
        rc = fill_args(&p);
out:
    for (i = p.stack.len; i-- > 0;) {
        gctx *cx = &OM_VEC_AT(&p.stack, gctx, i);
        om_vec_free(&cx->nodes, c.mem);
        om_vec_free(&cx->blocks, c.mem);
    }
    om_vec_free(&p.stack, c.mem);
    om_vec_free(&p.graphs, c.mem);
    if (p.lbuf)
        om_dealloc(c.mem, p.lbuf, p.lcap);
    gts_mod_free(&p.mods);
    if (p.vtab)
        om_dealloc(c.mem, p.vtab, p.vcap * sizeof(*p.vtab));
    om_vec_free(&secs, c.mem);
    ts_ctx_fini(&c);
    return rc;
}
