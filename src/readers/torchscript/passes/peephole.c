/*
 * readers/torchscript/passes/peephole.c - torch's PeepholeOptimize(graph,
 * disable_shape_peepholes=true), then dead code elimination without aliasing.
 *
 * torch runs it on each callee before inlining it, so the idioms it rewrites never reach the
 * inlined graph: casts of NumToTensor, t(t(x)), list and dict idioms on containers nothing writes
 * to, dim() of a convolution, tensor x + 0 and x * 1, None checks and casts that cannot fail,
 * integer arithmetic with 0 and 1, and CombineConcats (passes/combine_concats.c). Each sub-pass
 * runs once, in torch's order, with fresh alias facts where it needs them; docs/torchscript.md
 * lists the rules.
 */
#include "readers/torchscript/passes/pass_state.h"

static const ts_type *T(opt *o, int k)
{
    return ty_prim(o->ty, k);
}

/* ---- constants ---- */

static og_val *const_bool(opt *o, og_node *before, int v)
{
    og_const *cv = og_const_new(o->c, C_BOOL);
    if (!cv)
        return NULL;
    cv->i = v != 0;
    return tso_new_const(o, before, cv, T(o, TY_BOOL));
}

static og_val *const_int(opt *o, og_node *before, int64_t v)
{
    og_const *cv = og_const_new(o->c, C_INT);
    if (!cv)
        return NULL;
    cv->i = v;
    return tso_new_const(o, before, cv, T(o, TY_INT));
}

static int must_be_none(og_val *v)
{
    const og_const *cv;
    v = og_v(v);
    if (v->type && v->type->k == TY_NONE)
        return 1;
    cv = og_cval(v);
    return cv && cv->k == C_NONE;
}

static int must_not_be_none(og_val *v)
{
    const og_const *cv = og_cval(v);
    if (cv)
        return cv->k != C_NONE;
    return ty_must_not_be_none(og_v(v)->type);
}

static int is_type(og_val *v, int k)
{
    v = og_v(v);
    return v && v->type && v->type->k == k;
}

static int ph_basic(opt *o, og_block *b)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_basic(o, n->blk[i])))
                return rc;
        switch (n->kind) {
        case OK_GRADSUM:
            if (n->n_in == 2 && must_be_none(n->in[1])) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_T:
            if (n->n_in == 1) {
                og_val *x = og_in(n, 0);
                if (x->def && x->def->kind == OK_T && x->def->n_in == 1) {
                    og_replace(&n->out[0], x->def->in[0]);
                    o->changed = 1;
                }
            }
            break;
        case OK_FLOAT: case OK_INT: case OK_FLOATIMPL: case OK_INTIMPL: case OK_SCALARIMPL:
            if (n->n_in == 1) {
                og_val *x = og_in(n, 0);
                if (x->def && x->def->kind == OK_NUMTOTENSOR && x->def->n_in == 1) {
                    og_replace(&n->out[0], x->def->in[0]);
                    o->changed = 1;
                }
            }
            break;
        default:
            break;
        }
    }
    return OPMAP_OK;
}

/* Lists and dicts some node writes to, by alias set (PeepholeOptimizeListIdioms). */
static int mutated(opt *o, og_val *v)
{
    return tso_has_writers(o, v);
}

static int list_of(og_val *v, og_node **lc)
{
    v = og_v(v);
    if (!v->type || v->type->k != TY_LIST || !v->def || v->def->kind != OK_LISTC)
        return 0;
    *lc = v->def;
    return 1;
}

static int const_int_or_default(og_node *n, uint32_t i, int64_t dflt, int *is_none,
                                int64_t *out)
{
    const og_const *cv;
    *is_none = 0;
    if (i >= n->n_in) {
        *out = dflt;
        return 1;
    }
    cv = og_cval(n->in[i]);
    if (!cv)
        return 0;
    if (cv->k == C_NONE) {
        *is_none = 1;
        return 1;
    }
    if (cv->k != C_INT)
        return 0;
    *out = cv->i;
    return 1;
}

/* torch's slice_indices_adjust, for list slices */
static int64_t slice_adjust(int64_t len, int64_t *start, int64_t *stop, int64_t step)
{
    if (step == 0)
        return -1;
    if (*start < 0) {
        *start += len;
        if (*start < 0)
            *start = step < 0 ? -1 : 0;
    } else if (*start >= len) {
        *start = step < 0 ? len - 1 : len;
    }
    if (*stop < 0) {
        *stop += len;
        if (*stop < 0)
            *stop = step < 0 ? -1 : 0;
    } else if (*stop >= len) {
        *stop = step < 0 ? len - 1 : len;
    }
    if (step < 0) {
        if (*stop < *start)
            return (*start - *stop - 1) / (-step) + 1;
    } else if (*start < *stop) {
        return (*stop - *start - 1) / step + 1;
    }
    return 0;
}

og_node *tso_new_list(opt *o, og_node *before, uint32_t n, const ts_type *t)
{
    og_node *l = og_node_new(o->c, OK_LISTC, "prim", "ListConstruct", n, 1, 0);
    if (!l)
        return NULL;
    l->out[0].type = t;
    l->frame = before->frame;
    l->file = before->file;
    l->line = before->line;
    og_insert_before(before, l);
    return l;
}

static int ph_lists(opt *o, og_block *b)
{
    og_node *n, *lc, *lc2;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_lists(o, n->blk[i])))
                return rc;
        if (!n->n_in || !list_of(n->in[0], &lc) || mutated(o, n->in[0]))
            continue;
        if (n->kind == OK_LEN) {
            og_val *v = const_int(o, n, lc->n_in);
            if (!v)
                return ts_oom(o->c);
            og_replace(&n->out[0], v);
            o->changed = 1;
        } else if (n->kind == OK_GETITEM && n->n_in == 2) {
            const og_const *ix = og_cval(n->in[1]);
            if (ix && ix->k == C_INT) {
                int64_t k = ix->i < 0 ? ix->i + (int64_t)lc->n_in : ix->i;
                if (k >= 0 && k < (int64_t)lc->n_in) {
                    og_replace(&n->out[0], lc->in[k]);
                    o->changed = 1;
                }
            }
        } else if (n->kind == OK_LISTUNPACK) {
            if (lc->n_in != n->n_out)
                continue;
            for (i = 0; i < n->n_out; i++) {
                og_replace(&n->out[i], lc->in[i]);
                o->changed = 1;
            }
        } else if (n->kind == OK_ADD && n->n_in == 2) {
            og_node *l;
            if (mutated(o, n->in[1]) || !list_of(n->in[1], &lc2))
                continue;
            if (!(l = tso_new_list(o, n, lc->n_in + lc2->n_in, n->out[0].type)))
                return ts_oom(o->c);
            for (i = 0; i < lc->n_in; i++)
                l->in[i] = lc->in[i];
            for (i = 0; i < lc2->n_in; i++)
                l->in[lc->n_in + i] = lc2->in[i];
            /* keeps the replaced list's mutation facts: the set is only read while its
             * stamp is current, so both are copied */
            l->out[0].aset = n->out[0].aset;
            l->out[0].astamp = n->out[0].astamp;
            og_replace(&n->out[0], &l->out[0]);
            o->changed = 1;
        } else if (n->kind == OK_SLICE) {
            int64_t start = 0, end = INT64_MAX, step = 1, len = lc->n_in, cnt, k;
            int none;
            og_node *l;
            if (!const_int_or_default(n, 1, INT64_MAX, &none, &start))
                continue;
            if (none)
                start = INT64_MAX;
            if (!const_int_or_default(n, 2, INT64_MAX, &none, &end))
                continue;
            if (none)
                end = INT64_MAX;
            if (!const_int_or_default(n, 3, 1, &none, &step))
                continue;
            if (none)
                step = 1;
            if (n->n_in < 2)
                start = INT64_MAX;
            /* torch: a None start is INT64_MAX too (slice_indices_adjust handles it) */
            if (start == INT64_MAX && step > 0)
                start = 0;
            if ((cnt = slice_adjust(len, &start, &end, step)) < 0)
                continue;
            if (!(l = tso_new_list(o, n, (uint32_t)cnt, n->out[0].type)))
                return ts_oom(o->c);
            for (i = 0, k = start; i < (uint32_t)cnt; i++, k += step)
                l->in[i] = lc->in[k];
            l->out[0].aset = n->out[0].aset;
            l->out[0].astamp = n->out[0].astamp;
            og_replace(&n->out[0], &l->out[0]);
            o->changed = 1;
        }
    }
    return OPMAP_OK;
}

static int dict_key_ok(const og_const *k)
{
    return k && (k->k == C_INT || k->k == C_FLOAT || k->k == C_STR);
}

static int ph_dicts(opt *o, og_block *b)
{
    og_node *n;
    uint32_t i, j;
    int rc;
    for (n = b->head; n; n = n->next) {
        og_val *d;
        og_node *dc;
        int ok = 1;
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_dicts(o, n->blk[i])))
                return rc;
        if (!n->n_in)
            continue;
        d = og_in(n, 0);
        if (!d->type || d->type->k != TY_DICT || mutated(o, d) || !d->def ||
            d->def->kind != OK_DICTC)
            continue;
        dc = d->def;
        /* canOptimize: constant, distinct keys of type int, float or str */
        if (!d->type->el[0] || (d->type->el[0]->k != TY_INT && d->type->el[0]->k != TY_FLOAT &&
                                d->type->el[0]->k != TY_STR))
            continue;
        for (i = 0; i + 1 < dc->n_in && ok; i += 2) {
            const og_const *ki = og_cval(dc->in[i]);
            if (!dict_key_ok(ki)) {
                ok = 0;
                break;
            }
            for (j = 0; j < i && ok; j += 2)
                if (og_const_eq(ki, og_cval(dc->in[j])))
                    ok = 0;
        }
        if (!ok)
            continue;
        if (n->kind == OK_LEN) {
            og_val *v = const_int(o, n, dc->n_in / 2);
            if (!v)
                return ts_oom(o->c);
            og_replace(&n->out[0], v);
            o->changed = 1;
        } else if (n->kind == OK_GETITEM && n->n_in == 2) {
            const og_const *key = og_cval(n->in[1]);
            if (!key)
                continue;
            for (i = 0; i + 1 < dc->n_in; i += 2)
                if (og_const_eq(key, og_cval(dc->in[i]))) {
                    og_replace(&n->out[0], dc->in[i + 1]);
                    o->changed = 1;
                    break;
                }
        }
    }
    return OPMAP_OK;
}

static int dim_of_conv(int kind)
{
    return kind == OK_CONV1D ? 3 : kind == OK_CONV2D ? 4 : 5;
}

static int scalar_int(og_val *v)
{
    return is_type(v, TY_INT);
}

static int scalar_type(og_val *v)
{
    v = og_v(v);
    return v->type && (v->type->k == TY_INT || v->type->k == TY_FLOAT ||
                       v->type->k == TY_NUMBER || v->type->k == TY_BOOL);
}

static int try_replace_with_input(opt *o, og_node *n)
{
    og_val *in = og_in(n, 0), *out = &n->out[0];
    alias *a = &o->a;
    if (tso_has_writers(o, in) || tso_has_writers(o, out))
        return 0;
    if (tso_escapes(o, in) && tso_escapes(o, out))
        return 0;
    if ((TSO_VID(in) && a->flag[tso_alias_find(a, TSO_VID(in))]) ||
        (TSO_VID(out) && a->flag[tso_alias_find(a, TSO_VID(out))]))
        return 0;
    if (TSO_VID(in))
        a->flag[tso_alias_find(a, TSO_VID(in))] = 1;
    if (TSO_VID(out))
        a->flag[tso_alias_find(a, TSO_VID(out))] = 1;
    og_replace(out, in);
    o->changed = 1;
    return 1;
}

static int ph_alias(opt *o, og_block *b)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_alias(o, n->blk[i])))
                return rc;
        if (n->kind == OK_DIM && n->n_in == 1) {
            og_val *x = og_in(n, 0);
            if (x->def && (x->def->kind == OK_CONV1D || x->def->kind == OK_CONV2D ||
                           x->def->kind == OK_CONV3D) && !tso_has_writers(o, x)) {
                og_val *v = const_int(o, n, dim_of_conv(x->def->kind));
                if (!v)
                    return ts_oom(o->c);
                og_replace(&n->out[0], v);
                o->changed = 1;
            }
        } else if ((n->kind == OK_ADD || n->kind == OK_SUB) && (n->n_in == 2 || n->n_in == 3) &&
                   !n->n_kw && is_type(n->in[0], TY_TENSOR) && scalar_type(n->in[1])) {
            const og_const *other = og_cval(n->in[1]);
            const og_const *alpha = n->n_in == 3 ? og_cval(n->in[2]) : NULL;
            int alpha_int = n->n_in == 2 || scalar_int(n->in[2]);
            if (!other || (n->n_in == 3 && !alpha))
                continue;
            if (!scalar_int(n->in[1]) || !alpha_int)
                continue;
            if ((alpha ? alpha->i : 1) == 1 && other->k == C_INT && other->i == 0)
                try_replace_with_input(o, n);
        } else if (n->kind == OK_MUL && n->n_in == 2 && is_type(n->in[0], TY_TENSOR) &&
                   scalar_type(n->in[1])) {
            const og_const *other = og_cval(n->in[1]);
            if (!other || !scalar_int(n->in[1]))
                continue;
            if (other->k == C_INT && other->i == 1)
                try_replace_with_input(o, n);
        }
    }
    return OPMAP_OK;
}

/* checkArithNode: both inputs int; for mul/add a constant first input is swapped */
static int arith_const(og_node *n, int64_t *c)
{
    const og_const *cv;
    if (n->n_in != 2 || !is_type(n->in[0], TY_INT) || !is_type(n->in[1], TY_INT))
        return 0;
    if (n->kind == OK_MUL || n->kind == OK_ADD) {
        cv = og_cval(n->in[0]);
        if (cv && cv->k == C_INT) {
            og_val *t = n->in[0];
            n->in[0] = n->in[1];
            n->in[1] = t;
            *c = cv->i;
            return 1;
        }
    }
    cv = og_cval(n->in[1]);
    if (cv && cv->k == C_INT) {
        *c = cv->i;
        return 1;
    }
    return 0;
}

static int immut_handled(const ts_type *t)
{
    return t && (t->k == TY_BOOL || t->k == TY_INT || t->k == TY_FLOAT || t->k == TY_NONE);
}

static int ph_nontensor(opt *o, og_block *b, int none_to_const)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_nontensor(o, n->blk[i], none_to_const)))
                return rc;
        if (none_to_const && n->kind != OK_CONST) {
            for (i = 0; i < n->n_out; i++)
                if (n->out[i].type && n->out[i].type->k == TY_NONE && !n->out[i].repl) {
                    og_const *cv = og_const_new(o->c, C_NONE);
                    og_val *v = tso_new_const(o, n, cv, T(o, TY_NONE));
                    if (!v)
                        return ts_oom(o->c);
                    og_replace(&n->out[i], v);
                    o->changed = 1;
                }
        }
        switch (n->kind) {
        case OK_IF:
            for (i = 0; i < n->n_out; i++) {
                const og_const *tc, *fc;
                if (!n->out[i].type || n->out[i].type->k != TY_BOOL)
                    continue;
                tc = og_cval(n->blk[0]->rets[i]);
                fc = og_cval(n->blk[1]->rets[i]);
                if (tc && tc->k == C_BOOL && tc->i && fc && fc->k == C_BOOL && !fc->i) {
                    og_replace(&n->out[i], n->in[0]);
                    o->changed = 1;
                }
            }
            for (i = 0; i < n->n_out; i++) {
                const og_val *tv = og_v(n->blk[0]->rets[i]), *fv = og_v(n->blk[1]->rets[i]);
                const ts_type *tt = tv ? tv->type : NULL, *ft = fv ? fv->type : NULL;
                const ts_type *u;
                if (!tt || !ft || tt->k == TY_OPTIONAL || ft->k == TY_OPTIONAL ||
                    !n->out[i].type || n->out[i].type->k != TY_OPTIONAL)
                    continue;
                /* torch reports a change whenever this unifies, even to the same type */
                u = ty_unify(o->ty, tt, ft);
                if (u && u->k != TY_UNKNOWN) {
                    n->out[i].type = u;
                    o->changed = 1;
                }
            }
            break;
        case OK_IS:
        case OK_ISNOT:
            if (n->n_in != 2)
                break;
            for (i = 0; i < 2; i++) {
                if (must_be_none(n->in[i]) && must_not_be_none(n->in[1 - i])) {
                    og_val *v = const_bool(o, n, n->kind == OK_ISNOT);
                    if (!v)
                        return ts_oom(o->c);
                    og_replace(&n->out[0], v);
                    o->changed = 1;
                }
            }
            break;
        case OK_UNWRAP:
        case OK_UNWRAP_OPT:
            if (n->n_in == 1 && must_not_be_none(n->in[0])) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_UNCHECKED:
            if (n->n_in == 1 && ty_sub(og_in(n, 0)->type, n->out[0].type)) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_INT:
        case OK_CEIL:
            if (n->n_in == 1 && is_type(n->in[0], TY_INT)) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_EQ:
        case OK_NE:
            if (n->n_in == 2 && og_in(n, 0) == og_in(n, 1)) {
                const ts_type *t = og_in(n, 0)->type;
                int ok = 0;
                if (t && t->k == TY_LIST)
                    ok = immut_handled(t->el[0]);
                else if (t && t->k == TY_DICT)
                    ok = immut_handled(t->el[0]) && immut_handled(t->el[1]);
                else
                    ok = immut_handled(t);
                if (ok) {
                    og_val *v = const_bool(o, n, n->kind == OK_EQ);
                    if (!v)
                        return ts_oom(o->c);
                    og_replace(&n->out[0], v);
                    o->changed = 1;
                }
            }
            break;
        case OK_MUL:
        case OK_FLOORDIV:
        case OK_DIV: {
            int64_t k;
            if (arith_const(n, &k) && k == 1) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        }
        case OK_ADD:
        case OK_SUB: {
            int64_t k, d;
            og_node *dep;
            if (!arith_const(n, &k))
                break;
            if (k == 0) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
                break;
            }
            dep = og_in(n, 0)->def;
            if (!dep || (dep->kind != OK_ADD && dep->kind != OK_SUB) || !arith_const(dep, &d))
                break;
            d = dep->kind == n->kind ? (int64_t)((uint64_t)k + (uint64_t)d)
                                     : (int64_t)((uint64_t)k - (uint64_t)d);
            if (d == 0) {
                og_replace(&n->out[0], dep->in[0]);
            } else {
                og_val *cv = const_int(o, n, d);
                if (!cv)
                    return ts_oom(o->c);
                n->in[0] = dep->in[0];
                n->in[1] = cv;
            }
            o->changed = 1;
            break;
        }
        default:
            break;
        }
    }
    return OPMAP_OK;
}

/* PeepholeOptimize(graph, disable_shape_peepholes=true), then DCE without aliasing. */
int tso_peephole(opt *o)
{
    int rc, any;
    o->changed = 0;
    if ((rc = ph_basic(o, o->g->top)))
        return rc;
    any = o->changed;
    o->changed = 0;
    if ((rc = tso_alias_run(o)) || (rc = ph_lists(o, o->g->top)))
        goto out;
    tso_alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = tso_alias_run(o)) || (rc = ph_dicts(o, o->g->top)))
        goto out;
    tso_alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = tso_alias_run(o)) || (rc = ph_alias(o, o->g->top)))
        goto out;
    tso_alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = ph_nontensor(o, o->g->top, 1)))
        goto out;
    any |= o->changed;
    o->changed = 0;
    if ((rc = tso_combine_concats(o)))
        goto out;
    any |= o->changed;
    if (any)
        rc = tso_dce(o, 0);
out:
    tso_alias_free(o);
    return rc;
}
