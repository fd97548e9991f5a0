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
#include <string.h>

#include "readers/torchscript/jit/kinds.h"
#include "readers/torchscript/passes/pass_state.h"

og_val *tso_new_const(opt *o, og_node *before, og_const *cv, const ts_type *t)
{
    og_node *n;
    if (!cv || !(n = og_const_node(o->c, cv, t)))
        return NULL;
    n->frame = before->frame;
    og_insert_before(before, n);
    return &n->out[0];
}

static double fl(double x)
{
    double t;
    if (x != x || x >= 4503599627370496.0 || x <= -4503599627370496.0)
        return x;
    t = (double)(int64_t)x;
    return t > x ? t - 1 : t;
}

static int num(const og_const *c, int *isf, int64_t *i, double *f)
{
    if (!c)
        return 0;
    if (c->k == C_INT || c->k == C_BOOL) {
        *isf = 0;
        *i = c->i;
        *f = (double)c->i;
        return 1;
    }
    if (c->k == C_FLOAT) {
        *isf = 1;
        *f = c->f;
        *i = 0;
        return 1;
    }
    return 0;
}

static og_const *mk_int(opt *o, int64_t v)
{
    og_const *c = og_const_new(o->c, C_INT);
    if (c)
        c->i = v;
    return c;
}

static og_const *mk_float(opt *o, double v)
{
    og_const *c = og_const_new(o->c, C_FLOAT);
    if (c)
        c->f = v;
    return c;
}

static og_const *mk_bool(opt *o, int v)
{
    og_const *c = og_const_new(o->c, C_BOOL);
    if (c)
        c->i = v != 0;
    return c;
}

/*
 * Evaluates n on constant inputs: 1 and outs[] set, 0 when the value is not computable
 * here (the output becomes an opaque constant), -1 when torch's run would fail (no fold).
 */
static int eval(opt *o, og_node *n, const og_const **in, og_const **outs)
{
    int fa = 0, fb = 0;
    int64_t ia = 0, ib = 0;
    double da = 0, db = 0;
    int two = n->n_in == 2 && num(in[0], &fa, &ia, &da) && num(in[1], &fb, &ib, &db);
    int one = n->n_in == 1 && num(in[0], &fa, &ia, &da);
    uint32_t i;
    switch (n->kind) {
    case OK_TUPLEC: {
        og_const *t = og_const_new(o->c, C_TUPLE);
        if (!t || (n->n_in && !(t->el = om_arena_array(&o->c->tmp, n->n_in, sizeof(*t->el)))))
            return 0;
        for (i = 0; i < n->n_in; i++)
            t->el[i] = in[i];
        t->n = n->n_in;
        outs[0] = t;
        return 1;
    }
    case OK_UNCHECKED:
    case OK_UNWRAP_OPT:
        if (n->n_in == 1 && (n->kind == OK_UNCHECKED || in[0]->k != C_NONE)) {
            outs[0] = (og_const *)in[0];
            return 1;
        }
        return n->kind == OK_UNWRAP_OPT ? -1 : 0;
    case OK_TUPLEIDX:
        if (n->n_in == 2 && in[0]->k == C_TUPLE && in[1]->k == C_INT) {
            int64_t k = in[1]->i < 0 ? in[1]->i + (int64_t)in[0]->n : in[1]->i;
            if (k < 0 || k >= (int64_t)in[0]->n)
                return -1;
            outs[0] = (og_const *)in[0]->el[k];
            return 1;
        }
        return 0;
    case OK_TUPLEUNPACK:
        if (in[0]->k == C_TUPLE) {
            if (in[0]->n != n->n_out)
                return -1;
            for (i = 0; i < n->n_out; i++)
                outs[i] = (og_const *)in[0]->el[i];
            return 1;
        }
        return 0;
    case OK_ADD: case OK_SUB: case OK_MUL:
        if (two) {
            if (!fa && !fb && in[0]->k == C_INT && in[1]->k == C_INT) {
                uint64_t r = n->kind == OK_ADD ? (uint64_t)ia + (uint64_t)ib
                           : n->kind == OK_SUB ? (uint64_t)ia - (uint64_t)ib
                                               : (uint64_t)ia * (uint64_t)ib;
                outs[0] = mk_int(o, (int64_t)r);
            } else {
                double r = n->kind == OK_ADD ? da + db : n->kind == OK_SUB ? da - db : da * db;
                outs[0] = mk_float(o, r);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_DIV:
        if (two) {
            if (db == 0)
                return -1;
            outs[0] = mk_float(o, da / db);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_FLOORDIV:
    case OK_REMAINDER:
        if (two) {
            if (!fa && !fb) {
                int64_t q, r;
                if (ib == 0 || (ia == INT64_MIN && ib == -1))
                    return -1;
                q = ia / ib;
                r = ia % ib;
                if (r != 0 && ((r < 0) != (ib < 0))) {
                    q--;
                    r += ib;
                }
                outs[0] = mk_int(o, n->kind == OK_FLOORDIV ? q : r);
            } else {
                double q;
                if (db == 0)
                    return -1;
                q = fl(da / db);
                outs[0] = mk_float(o, n->kind == OK_FLOORDIV ? q : da - q * db);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_NEG:
        if (one) {
            outs[0] = fa ? mk_float(o, -da) : mk_int(o, (int64_t)(0 - (uint64_t)ia));
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_ABS:
        if (one) {
            outs[0] = fa ? mk_float(o, da < 0 ? -da : da)
                         : mk_int(o, ia < 0 ? (int64_t)(0 - (uint64_t)ia) : ia);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_EQ: case OK_NE: case OK_LT: case OK_LE: case OK_GT: case OK_GE: {
        int r;
        if (two) {
            int cmp = (!fa && !fb) ? (ia < ib ? -1 : ia > ib) : (da < db ? -1 : da > db);
            if ((fa || fb) && (da != da || db != db))
                r = n->kind == OK_NE;
            else
                r = n->kind == OK_EQ ? cmp == 0 : n->kind == OK_NE ? cmp != 0
                  : n->kind == OK_LT ? cmp < 0 : n->kind == OK_LE ? cmp <= 0
                  : n->kind == OK_GT ? cmp > 0 : cmp >= 0;
        } else if (n->n_in == 2 && in[0]->k == C_STR && in[1]->k == C_STR) {
            size_t l = in[0]->slen < in[1]->slen ? in[0]->slen : in[1]->slen;
            int cmp = memcmp(in[0]->s, in[1]->s, l);
            if (!cmp)
                cmp = in[0]->slen < in[1]->slen ? -1 : in[0]->slen > in[1]->slen;
            r = n->kind == OK_EQ ? cmp == 0 : n->kind == OK_NE ? cmp != 0
              : n->kind == OK_LT ? cmp < 0 : n->kind == OK_LE ? cmp <= 0
              : n->kind == OK_GT ? cmp > 0 : cmp >= 0;
        } else if (n->n_in == 2 && in[0]->k == C_NONE && in[1]->k == C_NONE &&
                   (n->kind == OK_EQ || n->kind == OK_NE)) {
            r = n->kind == OK_EQ;
        } else if (n->n_in == 2 && (n->kind == OK_EQ || n->kind == OK_NE) &&
                   in[0]->k == C_TUPLE && in[1]->k == C_TUPLE) {
            r = og_const_eq(in[0], in[1]) == (n->kind == OK_EQ);
        } else {
            return 0;
        }
        outs[0] = mk_bool(o, r);
        return outs[0] ? 1 : 0;
    }
    case OK_NOT:
        if (n->n_in == 1 && in[0]->k == C_BOOL) {
            outs[0] = mk_bool(o, !in[0]->i);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_AND: case OK_OR: case OK_XOR:
        if (two && !fa && !fb) {
            int64_t r = n->kind == OK_AND ? (ia & ib) : n->kind == OK_OR ? (ia | ib) : (ia ^ ib);
            outs[0] = in[0]->k == C_BOOL && in[1]->k == C_BOOL ? mk_bool(o, (int)r)
                                                               : mk_int(o, r);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_IS: case OK_ISNOT: {
        int same;
        if (n->n_in != 2)
            return 0;
        if (in[0]->k == C_NONE || in[1]->k == C_NONE)
            same = in[0]->k == in[1]->k;
        else if (in[0]->k == C_BOOL && in[1]->k == C_BOOL)
            same = in[0]->i == in[1]->i;
        else
            return 0;
        outs[0] = mk_bool(o, n->kind == OK_IS ? same : !same);
        return outs[0] ? 1 : 0;
    }
    case OK_INT:
        if (one) {
            if (fa && (da != da || da >= 9.2233720368547758e18 || da <= -9.2233720368547758e18))
                return -1;
            outs[0] = mk_int(o, fa ? (int64_t)da : ia);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_FLOAT:
        if (one) {
            outs[0] = mk_float(o, da);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_BOOL:
        if (one) {
            outs[0] = mk_bool(o, fa ? da != 0 : ia != 0);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_FLOOR:
    case OK_CEIL:
        if (one) {
            double r = fa ? fl(da) : (double)ia;
            if (fa && n->kind == OK_CEIL && r != da)
                r += 1;
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
    case OK_LEN:
        if (n->n_in == 1 && in[0]->k == C_STR) {
            uint32_t k, chars = 0;
            for (k = 0; k < in[0]->slen; k++)
                chars += ((unsigned char)in[0]->s[k] & 0xC0) != 0x80;
            outs[0] = mk_int(o, chars);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_PMIN:
    case OK_PMAX:
        if (two) {
            int pick_a = n->kind == OK_PMIN ? (fa || fb ? da <= db : ia <= ib)
                                            : (fa || fb ? da >= db : ia >= ib);
            outs[0] = (og_const *)(pick_a ? in[0] : in[1]);
            return 1;
        }
        return 0;
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

static int is_skip_kind(const og_node *n)
{
    switch (n->kind) {
    case OK_IF: case OK_LOOP: case OK_CONST: case OK_UNINIT: case OK_UNWRAP:
        return 1;
    default:
        return strcmp(n->ns, "prim") == 0 &&
               (!strcmp(n->op, "Closure") || !strcmp(n->op, "AutogradZero") ||
                !strcmp(n->op, "Guard") || !strcmp(n->op, "profile") ||
                !strcmp(n->op, "profile_ivalue") || !strcmp(n->op, "awaitable"));
    }
}

static int supported(const og_node *n)
{
    uint32_t i;
    if (is_skip_kind(n) || n->n_blk || og_side_effects(n))
        return 0;
    for (i = 0; i < n->n_in; i++)
        if (ty_mutable(og_in(n, i)->type))
            return 0;
    for (i = 0; i < n->n_out; i++)
        if (ty_mutable(n->out[i].type))
            return 0;
    /* vararg schemas are not run by constant propagation */
    if (n->kind == OK_FORMAT || n->kind == OK_PERCENTFORMAT || n->kind == OK_PRINT)
        return 0;
    /* the listed ops need their lists; lists are never constants */
    if (n->kind == OK_LISTC || n->kind == OK_DICTC || n->kind == OK_LISTUNPACK)
        return 0;
    if (strcmp(n->ns, "aten") == 0 && ts_kind_fresh_tensor(n->op))
        return 0;
    /* ops without inputs read global state (is_grad_enabled): only the known ones fold */
    if (n->n_in == 0 && (strcmp(n->ns, "aten") != 0 || (strcmp(n->op, "_get_tracing_state") &&
                                                         strcmp(n->op, "is_scripting"))))
        return 0;
    return 1;
}

static int cp_block(opt *o, og_block *b);

static int all_const(const og_node *n)
{
    uint32_t i;
    for (i = 0; i < n->n_in; i++)
        if (!og_cval(n->in[i]))
            return 0;
    return 1;
}

static int propagate(opt *o, og_node *n)
{
    const og_const *in[64];
    og_const *outs[64];
    uint32_t i;
    int r;
    if (n->n_in > 64 || n->n_out > 64)
        return OPMAP_OK;
    for (i = 0; i < n->n_in; i++)
        in[i] = og_cval(n->in[i]);
    memset(outs, 0, sizeof(outs));
    r = eval(o, n, in, outs);
    if (r < 0)
        return OPMAP_OK;
    for (i = 0; i < n->n_out; i++) {
        og_val *v;
        og_const *cv = outs[i];
        if (!cv) {
            if (r > 0)
                return ts_oom(o->c);
            /* folded by torch, value unknown here */
            if (!(cv = og_const_new(o->c, C_OPAQUE)))
                return ts_oom(o->c);
        }
        if (!(v = tso_new_const(o, n, cv, n->out[i].type)))
            return ts_oom(o->c);
        og_replace(&n->out[i], v);
        o->changed = 1;
    }
    return OPMAP_OK;
}

static int inline_block_into(og_node *n, og_block *b)
{
    og_node *x, *next;
    uint32_t i;
    for (x = b->head; x; x = next) {
        next = x->next;
        x->owner = NULL;
        x->prev = x->next = NULL;
        og_insert_before(n, x);
    }
    b->head = b->tail = NULL;
    for (i = 0; i < n->n_out && i < b->n_rets; i++)
        og_replace(&n->out[i], b->rets[i]);
    og_unlink(n);
    return OPMAP_OK;
}

static int cp_node(opt *o, og_node *n)
{
    int rc;
    uint32_t i;
    if (n->kind == OK_IF) {
        const og_const *cv = og_cval(n->in[0]);
        if (cv && cv->k == C_BOOL) {
            og_block *taken = n->blk[cv->i ? 0 : 1];
            if ((rc = cp_block(o, taken)))
                return rc;
            o->changed = 1;
            return inline_block_into(n, taken);
        }
        if ((rc = cp_block(o, n->blk[0])) || (rc = cp_block(o, n->blk[1])))
            return rc;
        /* removeExtraIfOutputs */
        for (i = 0; i < n->n_out; i++) {
            og_val *t = og_v(n->blk[0]->rets[i]), *f = og_v(n->blk[1]->rets[i]);
            const og_const *tc, *fc;
            if (n->out[i].repl || !t || !f)
                continue;
            if (t == f) {
                og_replace(&n->out[i], t);
                o->changed = 1;
                continue;
            }
            tc = og_cval(t);
            fc = og_cval(f);
            if (tc && fc && tc->k != C_OPAQUE && og_const_eq(tc, fc)) {
                og_val *v = tso_new_const(o, n, (og_const *)tc, t->type);
                if (!v)
                    return ts_oom(o->c);
                og_replace(&n->out[i], v);
                o->changed = 1;
            }
        }
        return OPMAP_OK;
    }
    if (n->kind == OK_LOOP) {
        const og_const *trip = og_cval(n->in[0]), *start = og_cval(n->in[1]);
        int64_t iters = trip && trip->k == C_INT ? trip->i : 1;
        int c0 = start && start->k == C_BOOL ? (int)start->i : 1;
        og_block *body = n->blk[0];
        if (!(c0 && iters > 0)) {
            for (i = 0; i < n->n_out; i++)
                og_replace(&n->out[i], n->in[2 + i]);
            og_unlink(n);
            o->changed = 1;
            return OPMAP_OK;
        }
        if ((rc = cp_block(o, body)))
            return rc;
        /* removeExtraLoopOutputs */
        for (i = n->n_out; i-- > 0;) {
            if (n->out[i].repl)
                continue;
            if (og_v(body->params[1 + i]) == og_v(body->rets[1 + i])) {
                og_replace(&n->out[i], n->in[2 + i]);
                og_replace(body->params[1 + i], n->in[2 + i]);
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

static int cp_block(opt *o, og_block *b)
{
    og_node *n, *next;
    int rc;
    for (n = b->head; n; n = next) {
        next = n->next;
        if ((rc = cp_node(o, n)))
            return rc;
    }
    return OPMAP_OK;
}

/* ConstantPropagationImmutableTypes, then dead code elimination if it changed anything. */
int tso_constprop(opt *o)
{
    int rc;
    o->changed = 0;
    if ((rc = cp_block(o, o->g->top)))
        return rc;
    if (o->changed)
        return tso_dce(o, 1);
    return OPMAP_OK;
}
