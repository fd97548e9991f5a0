/*
 * readers/torchscript/passes/constprop.c - torch's ConstantPropagationImmutableTypes, then dead
 * code elimination if it changed anything.
 *
 * It runs on every compiled function and again on every optimized callee, and is what
 * makes constant arguments reach callees: an If on a constant condition keeps only its
 * live block, loops that cannot run disappear, and If / Loop outputs that do not change
 * are forwarded. Constant folding evaluates the scalar operators printed code uses; other
 * foldable operators (all inputs constant, nothing mutable) become constants of unknown
 * value, as their node would vanish in torch too.
 */
#include <math.h>
#include <string.h>

#include "readers/torchscript/jit/kinds.h"
#include "pass_state.h"

tsj_value *tsp_new_const(tsp_state *o, tsj_node *before, tsj_const *cv, const tsl_type *t)
{
    tsj_node *n;
    if (!cv || !(n = tsj_const_node(o->c, cv, t)))
        return NULL;
    n->frame = before->frame;
    tsj_insert_before(before, n);
    return &n->out[0];
}

static int num(const tsj_const *c, int *isf, int64_t *i, double *f)
{
    if (!c)
        return 0;
    if (c->k == TSJ_CONST_INT || c->k == TSJ_CONST_BOOL) {
        *isf = 0;
        *i = c->i;
        *f = (double)c->i;
        return 1;
    }
    if (c->k == TSJ_CONST_FLOAT) {
        *isf = 1;
        *f = c->f;
        *i = 0;
        return 1;
    }
    return 0;
}

static tsj_const *mk_int(tsp_state *o, int64_t v)
{
    tsj_const *c = tsj_const_new(o->c, TSJ_CONST_INT);
    if (c)
        c->i = v;
    return c;
}

static tsj_const *mk_float(tsp_state *o, double v)
{
    tsj_const *c = tsj_const_new(o->c, TSJ_CONST_FLOAT);
    if (c)
        c->f = v;
    return c;
}

static tsj_const *mk_bool(tsp_state *o, int v)
{
    tsj_const *c = tsj_const_new(o->c, TSJ_CONST_BOOL);
    if (c)
        c->i = v != 0;
    return c;
}

/* Decoded numeric inputs of a node with one or two (see num). */
typedef struct num_inputs {
    int fa, fb;         /* input is a float */
    int64_t ia, ib;
    double da, db;
    int two, one;       /* two / one numeric inputs */
} num_inputs;

/* Tuples and the casts that only forward their input. */
static int eval_tuple(tsp_state *o, tsj_node *n, const tsj_const **in, const num_inputs *x,
                      tsj_const **outs)
{
    uint32_t i;
    (void)x;
    switch (n->kind) {
    case TSJ_KIND_TUPLEC: {
        tsj_const *t = tsj_const_new(o->c, TSJ_CONST_TUPLE);
        if (!t || (n->n_in && !(t->el = om_arena_array(&o->c->tmp, n->n_in, sizeof(*t->el)))))
            return 0;
        for (i = 0; i < n->n_in; i++)
            t->el[i] = in[i];
        t->n = n->n_in;
        outs[0] = t;
        return 1;
    }
    case TSJ_KIND_UNCHECKED:
    case TSJ_KIND_UNWRAP_OPT:
        if (n->n_in == 1 && (n->kind == TSJ_KIND_UNCHECKED || in[0]->k != TSJ_CONST_NONE)) {
            outs[0] = (tsj_const *)in[0];
            return 1;
        }
        return n->kind == TSJ_KIND_UNWRAP_OPT ? -1 : 0;
    case TSJ_KIND_TUPLEIDX:
        if (n->n_in == 2 && in[0]->k == TSJ_CONST_TUPLE && in[1]->k == TSJ_CONST_INT) {
            int64_t k = in[1]->i < 0 ? in[1]->i + (int64_t)in[0]->n : in[1]->i;
            if (k < 0 || k >= (int64_t)in[0]->n)
                return -1;
            outs[0] = (tsj_const *)in[0]->el[k];
            return 1;
        }
        return 0;
    case TSJ_KIND_TUPLEUNPACK:
        if (in[0]->k == TSJ_CONST_TUPLE) {
            if (in[0]->n != n->n_out)
                return -1;
            for (i = 0; i < n->n_out; i++)
                outs[i] = (tsj_const *)in[0]->el[i];
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* Arithmetic: int where torch gives an int, float otherwise. */
static int eval_arith(tsp_state *o, tsj_node *n, const tsj_const **in, const num_inputs *x,
                      tsj_const **outs)
{
    int fa = x->fa, fb = x->fb, two = x->two, one = x->one;
    int64_t ia = x->ia, ib = x->ib;
    double da = x->da, db = x->db;
    switch (n->kind) {
    case TSJ_KIND_ADD: case TSJ_KIND_SUB: case TSJ_KIND_MUL:
        if (two) {
            if (!fa && !fb && in[0]->k == TSJ_CONST_INT && in[1]->k == TSJ_CONST_INT) {
                uint64_t r = n->kind == TSJ_KIND_ADD ? (uint64_t)ia + (uint64_t)ib
                           : n->kind == TSJ_KIND_SUB ? (uint64_t)ia - (uint64_t)ib
                                               : (uint64_t)ia * (uint64_t)ib;
                outs[0] = mk_int(o, (int64_t)r);
            } else {
                double r = n->kind == TSJ_KIND_ADD   ? da + db
                           : n->kind == TSJ_KIND_SUB ? da - db
                                                     : da * db;
                outs[0] = mk_float(o, r);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_DIV:
        if (two) {
            if (db == 0)
                return -1;
            outs[0] = mk_float(o, da / db);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_FLOORDIV:
    case TSJ_KIND_REMAINDER:
        if (two) {
            if (!fa && !fb) {
                int64_t q, r, sum;
                if (ib == 0 || (ia == INT64_MIN && ib == -1))
                    return -1; /* ZeroDivisionError, or C++'s overflow trap */
                q = ia / ib;
                r = ia % ib;
                if (r != 0 && ((r < 0) != (ib < 0)))
                    q--; /* torch's floordiv: the quotient rounded down */
                if (n->kind == TSJ_KIND_FLOORDIV) {
                    outs[0] = mk_int(o, q);
                    return outs[0] ? 1 : 0;
                }
                /* torch's remainder.int: (b + a % b) % b in int64_t, whose sum can
                 * overflow (undefined in C++): no exact value to fold then */
                if (__builtin_add_overflow(ib, r, &sum))
                    return 0;
                outs[0] = mk_int(o, sum % ib);
            } else {
                /* torch 1.13 (register_prim_ops.cpp): floordiv.float is floor(a / b),
                 * remainder.float fmod(b + fmod(a, b), b), both in double, by zero too
                 * (inf, nan): not Python's divmod (1.0 // 0.1 is 10.0 in TorchScript,
                 * 9.0 in Python). fmod and floor are exact, the sums rounded once. */
                double r = n->kind == TSJ_KIND_FLOORDIV ? floor(da / db)
                                                          : fmod(db + fmod(da, db), db);
                outs[0] = mk_float(o, r);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_NEG:
        if (one) {
            outs[0] = fa ? mk_float(o, -da) : mk_int(o, (int64_t)(0 - (uint64_t)ia));
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_ABS:
        if (one) {
            outs[0] = fa ? mk_float(o, da < 0 ? -da : da)
                         : mk_int(o, ia < 0 ? (int64_t)(0 - (uint64_t)ia) : ia);
            return outs[0] ? 1 : 0;
        }
        return 0;
    default:
        return 0;
    }
}

/* Comparisons, not, bitwise and/or/xor, is / is not. */
static int eval_compare(tsp_state *o, tsj_node *n, const tsj_const **in, const num_inputs *x,
                        tsj_const **outs)
{
    int fa = x->fa, fb = x->fb, two = x->two;
    int64_t ia = x->ia, ib = x->ib;
    double da = x->da, db = x->db;
    switch (n->kind) {
    case TSJ_KIND_EQ:
    case TSJ_KIND_NE:
    case TSJ_KIND_LT:
    case TSJ_KIND_LE:
    case TSJ_KIND_GT:
    case TSJ_KIND_GE: {
        int r;
        if (two) {
            int cmp = (!fa && !fb) ? (ia < ib ? -1 : ia > ib) : (da < db ? -1 : da > db);
            if ((fa || fb) && (da != da || db != db))
                r = n->kind == TSJ_KIND_NE;
            else
                r = n->kind == TSJ_KIND_EQ ? cmp == 0 : n->kind == TSJ_KIND_NE ? cmp != 0
                  : n->kind == TSJ_KIND_LT ? cmp < 0 : n->kind == TSJ_KIND_LE ? cmp <= 0
                  : n->kind == TSJ_KIND_GT ? cmp > 0 : cmp >= 0;
        } else if (n->n_in == 2 && in[0]->k == TSJ_CONST_STR && in[1]->k == TSJ_CONST_STR) {
            size_t l = in[0]->slen < in[1]->slen ? in[0]->slen : in[1]->slen;
            int cmp = memcmp(in[0]->s, in[1]->s, l);
            if (!cmp)
                cmp = in[0]->slen < in[1]->slen ? -1 : in[0]->slen > in[1]->slen;
            r = n->kind == TSJ_KIND_EQ ? cmp == 0 : n->kind == TSJ_KIND_NE ? cmp != 0
              : n->kind == TSJ_KIND_LT ? cmp < 0 : n->kind == TSJ_KIND_LE ? cmp <= 0
              : n->kind == TSJ_KIND_GT ? cmp > 0 : cmp >= 0;
        } else if (n->n_in == 2 && in[0]->k == TSJ_CONST_NONE && in[1]->k == TSJ_CONST_NONE &&
                   (n->kind == TSJ_KIND_EQ || n->kind == TSJ_KIND_NE)) {
            r = n->kind == TSJ_KIND_EQ;
        } else if (n->n_in == 2 && (n->kind == TSJ_KIND_EQ || n->kind == TSJ_KIND_NE) &&
                   in[0]->k == TSJ_CONST_TUPLE && in[1]->k == TSJ_CONST_TUPLE) {
            r = tsj_const_eq(in[0], in[1]) == (n->kind == TSJ_KIND_EQ);
        } else {
            return 0;
        }
        outs[0] = mk_bool(o, r);
        return outs[0] ? 1 : 0;
    }
    case TSJ_KIND_NOT:
        if (n->n_in == 1 && in[0]->k == TSJ_CONST_BOOL) {
            outs[0] = mk_bool(o, !in[0]->i);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_AND: case TSJ_KIND_OR: case TSJ_KIND_XOR:
        if (two && !fa && !fb) {
            int64_t r = n->kind == TSJ_KIND_AND  ? (ia & ib)
                        : n->kind == TSJ_KIND_OR ? (ia | ib)
                                                 : (ia ^ ib);
            outs[0] = in[0]->k == TSJ_CONST_BOOL && in[1]->k == TSJ_CONST_BOOL ? mk_bool(o, (int)r)
                                                               : mk_int(o, r);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_IS: case TSJ_KIND_ISNOT: {
        int same;
        if (n->n_in != 2)
            return 0;
        if (in[0]->k == TSJ_CONST_NONE || in[1]->k == TSJ_CONST_NONE)
            same = in[0]->k == in[1]->k;
        else if (in[0]->k == TSJ_CONST_BOOL && in[1]->k == TSJ_CONST_BOOL)
            same = in[0]->i == in[1]->i;
        else
            return 0;
        outs[0] = mk_bool(o, n->kind == TSJ_KIND_IS ? same : !same);
        return outs[0] ? 1 : 0;
    }
    default:
        return 0;
    }
}

/* Conversions, floor / ceil, len of a string, min / max. */
static int eval_convert(tsp_state *o, tsj_node *n, const tsj_const **in, const num_inputs *x,
                        tsj_const **outs)
{
    int fa = x->fa, fb = x->fb, two = x->two, one = x->one;
    int64_t ia = x->ia, ib = x->ib;
    double da = x->da, db = x->db;
    switch (n->kind) {
    case TSJ_KIND_INT:
        if (one) {
            if (fa && (da != da || da >= 9.2233720368547758e18 || da <= -9.2233720368547758e18))
                return -1;
            outs[0] = mk_int(o, fa ? (int64_t)da : ia);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_FLOAT:
        if (one) {
            outs[0] = mk_float(o, da);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_BOOL:
        if (one) {
            outs[0] = mk_bool(o, fa ? da != 0 : ia != 0);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_FLOOR:
    case TSJ_KIND_CEIL:
        if (one) {
            double r = !fa ? (double)ia : n->kind == TSJ_KIND_CEIL ? ceil(da) : floor(da);
            if (!fa) {
                outs[0] = mk_int(o, ia);
            } else {
                if (r != r || r >= 9.2233720368547758e18 || r <= -9.2233720368547758e18)
                    return -1;
                outs[0] = mk_int(o, (int64_t)r);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_LEN:
        if (n->n_in == 1 && in[0]->k == TSJ_CONST_STR) {
            /* aten::len.str is std::string::size(): bytes of the UTF-8, not characters */
            outs[0] = mk_int(o, (int64_t)in[0]->slen);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case TSJ_KIND_PMIN:
    case TSJ_KIND_PMAX:
        if (two) {
            int pick_a = n->kind == TSJ_KIND_PMIN ? (fa || fb ? da <= db : ia <= ib)
                                            : (fa || fb ? da >= db : ia >= ib);
            outs[0] = (tsj_const *)(pick_a ? in[0] : in[1]);
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/*
 * Evaluates n on constant inputs: 1 and outs[] set, 0 when the value is not computable
 * here (the output becomes an opaque constant), -1 when torch's run would fail (no fold).
 */
static int eval(tsp_state *o, tsj_node *n, const tsj_const **in, tsj_const **outs)
{
    num_inputs x;
    memset(&x, 0, sizeof(x));
    x.two = n->n_in == 2 && num(in[0], &x.fa, &x.ia, &x.da) && num(in[1], &x.fb, &x.ib, &x.db);
    x.one = n->n_in == 1 && num(in[0], &x.fa, &x.ia, &x.da);
    switch (n->kind) {
    case TSJ_KIND_TUPLEC: case TSJ_KIND_UNCHECKED: case TSJ_KIND_UNWRAP_OPT:
    case TSJ_KIND_TUPLEIDX: case TSJ_KIND_TUPLEUNPACK:
        return eval_tuple(o, n, in, &x, outs);
    case TSJ_KIND_ADD: case TSJ_KIND_SUB: case TSJ_KIND_MUL: case TSJ_KIND_DIV:
    case TSJ_KIND_FLOORDIV: case TSJ_KIND_REMAINDER: case TSJ_KIND_NEG: case TSJ_KIND_ABS:
        return eval_arith(o, n, in, &x, outs);
    case TSJ_KIND_EQ: case TSJ_KIND_NE: case TSJ_KIND_LT: case TSJ_KIND_LE: case TSJ_KIND_GT:
    case TSJ_KIND_GE: case TSJ_KIND_NOT: case TSJ_KIND_AND: case TSJ_KIND_OR:
    case TSJ_KIND_XOR: case TSJ_KIND_IS: case TSJ_KIND_ISNOT:
        return eval_compare(o, n, in, &x, outs);
    case TSJ_KIND_INT: case TSJ_KIND_FLOAT: case TSJ_KIND_BOOL: case TSJ_KIND_FLOOR:
    case TSJ_KIND_CEIL: case TSJ_KIND_LEN: case TSJ_KIND_PMIN: case TSJ_KIND_PMAX:
        return eval_convert(o, n, in, &x, outs);
    default:
        if (n->n_in == 0 && strcmp(n->ns, "aten") == 0) {
            /* the two argument-less ops torch folds, with the values TorchScript gives */
            if (strcmp(n->op, "_get_tracing_state") == 0 || strcmp(n->op, "is_scripting") == 0) {
                outs[0] = mk_bool(o, n->op[0] == 'i');
                return outs[0] ? 1 : 0;
            }
        }
        return 0;
    }
}

static int is_skip_kind(const tsj_node *n)
{
    switch (n->kind) {
        case TSJ_KIND_IF:
        case TSJ_KIND_LOOP:
        case TSJ_KIND_CONST:
        case TSJ_KIND_UNINIT:
        case TSJ_KIND_UNWRAP: return 1;
        default:
            return strcmp(n->ns, "prim") == 0 &&
                   (!strcmp(n->op, "Closure") || !strcmp(n->op, "AutogradZero") ||
                    !strcmp(n->op, "Guard") || !strcmp(n->op, "profile") ||
                    !strcmp(n->op, "profile_ivalue") || !strcmp(n->op, "awaitable"));
    }
}

static int supported(const tsj_node *n)
{
    uint32_t i;
    if (is_skip_kind(n) || n->n_blk || tsj_side_effects(n))
        return 0;
    for (i = 0; i < n->n_in; i++)
        if (tsl_type_mutable(tsj_input(n, i)->type))
            return 0;
    for (i = 0; i < n->n_out; i++)
        if (tsl_type_mutable(n->out[i].type))
            return 0;
    /* vararg schemas are not run by constant propagation */
    if (n->kind == TSJ_KIND_FORMAT || n->kind == TSJ_KIND_PERCENTFORMAT ||
        n->kind == TSJ_KIND_PRINT)
        return 0;
    /* the listed ops need their lists; lists are never constants */
    if (n->kind == TSJ_KIND_LISTC || n->kind == TSJ_KIND_DICTC || n->kind == TSJ_KIND_LISTUNPACK)
        return 0;
    if (strcmp(n->ns, "aten") == 0 && tsj_kind_fresh_tensor(n->op))
        return 0;
    /* ops without inputs read global state (is_grad_enabled): only the known ones fold */
    if (n->n_in == 0 && (strcmp(n->ns, "aten") != 0 || (strcmp(n->op, "_get_tracing_state") &&
                                                         strcmp(n->op, "is_scripting"))))
        return 0;
    return 1;
}

static int cp_block(tsp_state *o, tsj_block *b);

static int all_const(const tsj_node *n)
{
    uint32_t i;
    for (i = 0; i < n->n_in; i++)
        if (!tsj_const_of(n->in[i]))
            return 0;
    return 1;
}

static int propagate(tsp_state *o, tsj_node *n)
{
    const tsj_const *in[64];
    tsj_const *outs[64];
    uint32_t i;
    int r;
    if (n->n_in > 64 || n->n_out > 64)
        return OPMAP_OK;
    for (i = 0; i < n->n_in; i++)
        in[i] = tsj_const_of(n->in[i]);
    memset(outs, 0, sizeof(outs));
    r = eval(o, n, in, outs);
    if (r < 0)
        return OPMAP_OK;
    for (i = 0; i < n->n_out; i++) {
        tsj_value *v;
        tsj_const *cv = outs[i];
        if (!cv) {
            if (r > 0)
                return ts_oom(o->c);
            /* folded by torch, value unknown here */
            if (!(cv = tsj_const_new(o->c, TSJ_CONST_OPAQUE)))
                return ts_oom(o->c);
        }
        if (!(v = tsp_new_const(o, n, cv, n->out[i].type)))
            return ts_oom(o->c);
        tsj_replace_uses(&n->out[i], v);
        o->changed = 1;
    }
    return OPMAP_OK;
}

static int inline_block_into(tsj_node *n, tsj_block *b)
{
    tsj_node *x, *next;
    uint32_t i;
    for (x = b->head; x; x = next) {
        next = x->next;
        x->owner = NULL;
        x->prev = x->next = NULL;
        tsj_insert_before(n, x);
    }
    b->head = b->tail = NULL;
    for (i = 0; i < n->n_out && i < b->n_rets; i++)
        tsj_replace_uses(&n->out[i], b->rets[i]);
    tsj_unlink(n);
    return OPMAP_OK;
}

static int cp_node(tsp_state *o, tsj_node *n)
{
    int rc;
    uint32_t i;
    if (n->kind == TSJ_KIND_IF) {
        const tsj_const *cv = tsj_const_of(n->in[0]);
        if (cv && cv->k == TSJ_CONST_BOOL) {
            tsj_block *taken = n->blk[cv->i ? 0 : 1];
            if ((rc = cp_block(o, taken)))
                return rc;
            o->changed = 1;
            return inline_block_into(n, taken);
        }
        if ((rc = cp_block(o, n->blk[0])) || (rc = cp_block(o, n->blk[1])))
            return rc;
        /* removeExtraIfOutputs */
        for (i = 0; i < n->n_out; i++) {
            tsj_value *t = tsj_resolve(n->blk[0]->rets[i]), *f = tsj_resolve(n->blk[1]->rets[i]);
            const tsj_const *tc, *fc;
            if (n->out[i].repl || !t || !f)
                continue;
            if (t == f) {
                tsj_replace_uses(&n->out[i], t);
                o->changed = 1;
                continue;
            }
            tc = tsj_const_of(t);
            fc = tsj_const_of(f);
            if (tc && fc && tc->k != TSJ_CONST_OPAQUE && tsj_const_eq(tc, fc)) {
                tsj_value *v = tsp_new_const(o, n, (tsj_const *)tc, t->type);
                if (!v)
                    return ts_oom(o->c);
                tsj_replace_uses(&n->out[i], v);
                o->changed = 1;
            }
        }
        return OPMAP_OK;
    }
    if (n->kind == TSJ_KIND_LOOP) {
        const tsj_const *trip = tsj_const_of(n->in[0]), *start = tsj_const_of(n->in[1]);
        int64_t iters = trip && trip->k == TSJ_CONST_INT ? trip->i : 1;
        int c0 = start && start->k == TSJ_CONST_BOOL ? (int)start->i : 1;
        tsj_block *body = n->blk[0];
        if (!(c0 && iters > 0)) {
            for (i = 0; i < n->n_out; i++)
                tsj_replace_uses(&n->out[i], n->in[2 + i]);
            tsj_unlink(n);
            o->changed = 1;
            return OPMAP_OK;
        }
        if ((rc = cp_block(o, body)))
            return rc;
        /* removeExtraLoopOutputs */
        for (i = n->n_out; i-- > 0;) {
            if (n->out[i].repl)
                continue;
            if (tsj_resolve(body->params[1 + i]) == tsj_resolve(body->rets[1 + i])) {
                tsj_replace_uses(&n->out[i], n->in[2 + i]);
                tsj_replace_uses(body->params[1 + i], n->in[2 + i]);
                o->changed = 1;
            }
        }
        return OPMAP_OK;
    }
    if (all_const(n) && supported(n))
        return propagate(o, n);
    for (i = 0; i < n->n_blk; i++)
        if ((rc = cp_block(o, n->blk[i])))
            return rc;
    return OPMAP_OK;
}

static int cp_block(tsp_state *o, tsj_block *b)
{
    tsj_node *n, *next;
    int rc;
    for (n = b->head; n; n = next) {
        next = n->next;
        if ((rc = cp_node(o, n)))
            return rc;
    }
    return OPMAP_OK;
}

/* ConstantPropagationImmutableTypes, then dead code elimination if it changed anything. */
int tsp_constprop(tsp_state *o)
{
    int rc;
    o->changed = 0;
    if ((rc = cp_block(o, o->g->top)))
        return rc;
    if (o->changed)
        return tsp_dce(o, 1);
    return OPMAP_OK;
}
