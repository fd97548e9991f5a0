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
#include "pass_state.h"

static const tsl_type *prim_type(tsp_state *o, int k)
{
    return tsl_type_prim(o->ty, k);
}

/* ---- constants ---- */

static tsj_value *const_bool(tsp_state *o, tsj_node *before, int v)
{
    tsj_const *cv = tsj_const_new(o->c, TSJ_CONST_BOOL);
    if (!cv)
        return NULL;
    cv->i = v != 0;
    return tsp_new_const(o, before, cv, prim_type(o, TY_BOOL));
}

static tsj_value *const_int(tsp_state *o, tsj_node *before, int64_t v)
{
    tsj_const *cv = tsj_const_new(o->c, TSJ_CONST_INT);
    if (!cv)
        return NULL;
    cv->i = v;
    return tsp_new_const(o, before, cv, prim_type(o, TY_INT));
}

static int must_be_none(tsj_value *v)
{
    const tsj_const *cv;
    v = tsj_resolve(v);
    if (v->type && v->type->k == TY_NONE)
        return 1;
    cv = tsj_const_of(v);
    return cv && cv->k == TSJ_CONST_NONE;
}

static int must_not_be_none(tsj_value *v)
{
    const tsj_const *cv = tsj_const_of(v);
    if (cv)
        return cv->k != TSJ_CONST_NONE;
    return tsl_type_must_not_be_none(tsj_resolve(v)->type);
}

static int is_type(tsj_value *v, int k)
{
    v = tsj_resolve(v);
    return v && v->type && v->type->k == k;
}

static int ph_basic(tsp_state *o, tsj_block *b)
{
    tsj_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_basic(o, n->blk[i])))
                return rc;
        switch (n->kind) {
        case TSJ_KIND_GRADSUM:
            if (n->n_in == 2 && must_be_none(n->in[1])) {
                tsj_replace_uses(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case TSJ_KIND_T:
            if (n->n_in == 1) {
                tsj_value *x = tsj_input(n, 0);
                if (x->def && x->def->kind == TSJ_KIND_T && x->def->n_in == 1) {
                    tsj_replace_uses(&n->out[0], x->def->in[0]);
                    o->changed = 1;
                }
            }
            break;
        case TSJ_KIND_FLOAT:
        case TSJ_KIND_INT:
        case TSJ_KIND_FLOATIMPL:
        case TSJ_KIND_INTIMPL:
        case TSJ_KIND_SCALARIMPL:
            if (n->n_in == 1) {
                tsj_value *x = tsj_input(n, 0);
                if (x->def && x->def->kind == TSJ_KIND_NUMTOTENSOR && x->def->n_in == 1) {
                    tsj_replace_uses(&n->out[0], x->def->in[0]);
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
static int mutated(tsp_state *o, tsj_value *v)
{
    return tsp_has_writers(o, v);
}

static int list_of(tsj_value *v, tsj_node **lc)
{
    v = tsj_resolve(v);
    if (!v->type || v->type->k != TY_LIST || !v->def || v->def->kind != TSJ_KIND_LISTC)
        return 0;
    *lc = v->def;
    return 1;
}

static int const_int_or_default(tsj_node *n, uint32_t i, int64_t dflt, int *is_none,
                                int64_t *out)
{
    const tsj_const *cv;
    *is_none = 0;
    if (i >= n->n_in) {
        *out = dflt;
        return 1;
    }
    cv = tsj_const_of(n->in[i]);
    if (!cv)
        return 0;
    if (cv->k == TSJ_CONST_NONE) {
        *is_none = 1;
        return 1;
    }
    if (cv->k != TSJ_CONST_INT)
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

tsj_node *tsp_new_list(tsp_state *o, tsj_node *before, uint32_t n, const tsl_type *t)
{
    tsj_node *l = tsj_node_new(o->c, TSJ_KIND_LISTC, "prim", "ListConstruct", n, 1, 0);
    if (!l)
        return NULL;
    l->out[0].type = t;
    l->frame = before->frame;
    l->file = before->file;
    l->line = before->line;
    tsj_insert_before(before, l);
    return l;
}

static int ph_lists(tsp_state *o, tsj_block *b)
{
    tsj_node *n, *lc, *lc2;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_lists(o, n->blk[i])))
                return rc;
        if (!n->n_in || !list_of(n->in[0], &lc) || mutated(o, n->in[0]))
            continue;
        if (n->kind == TSJ_KIND_LEN) {
            tsj_value *v = const_int(o, n, lc->n_in);
            if (!v)
                return ts_oom(o->c);
            tsj_replace_uses(&n->out[0], v);
            o->changed = 1;
        } else if (n->kind == TSJ_KIND_GETITEM && n->n_in == 2) {
            const tsj_const *ix = tsj_const_of(n->in[1]);
            if (ix && ix->k == TSJ_CONST_INT) {
                int64_t k = ix->i < 0 ? ix->i + (int64_t)lc->n_in : ix->i;
                if (k >= 0 && k < (int64_t)lc->n_in) {
                    tsj_replace_uses(&n->out[0], lc->in[k]);
                    o->changed = 1;
                }
            }
        } else if (n->kind == TSJ_KIND_LISTUNPACK) {
            if (lc->n_in != n->n_out)
                continue;
            for (i = 0; i < n->n_out; i++) {
                tsj_replace_uses(&n->out[i], lc->in[i]);
                o->changed = 1;
            }
        } else if (n->kind == TSJ_KIND_ADD && n->n_in == 2) {
            tsj_node *l;
            if (mutated(o, n->in[1]) || !list_of(n->in[1], &lc2))
                continue;
            if (!(l = tsp_new_list(o, n, lc->n_in + lc2->n_in, n->out[0].type)))
                return ts_oom(o->c);
            for (i = 0; i < lc->n_in; i++)
                l->in[i] = lc->in[i];
            for (i = 0; i < lc2->n_in; i++)
                l->in[lc->n_in + i] = lc2->in[i];
            /* keeps the replaced list's mutation facts: the set is only read while its
             * stamp is current, so both are copied */
            l->out[0].aset = n->out[0].aset;
            l->out[0].astamp = n->out[0].astamp;
            tsj_replace_uses(&n->out[0], &l->out[0]);
            o->changed = 1;
        } else if (n->kind == TSJ_KIND_SLICE) {
            int64_t start = 0, end = INT64_MAX, step = 1, len = lc->n_in, cnt, k;
            int none;
            tsj_node *l;
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
            if (!(l = tsp_new_list(o, n, (uint32_t)cnt, n->out[0].type)))
                return ts_oom(o->c);
            for (i = 0, k = start; i < (uint32_t)cnt; i++, k += step)
                l->in[i] = lc->in[k];
            l->out[0].aset = n->out[0].aset;
            l->out[0].astamp = n->out[0].astamp;
            tsj_replace_uses(&n->out[0], &l->out[0]);
            o->changed = 1;
        }
    }
    return OPMAP_OK;
}

static int dict_key_ok(const tsj_const *k)
{
    return k && (k->k == TSJ_CONST_INT || k->k == TSJ_CONST_FLOAT || k->k == TSJ_CONST_STR);
}

static int ph_dicts(tsp_state *o, tsj_block *b)
{
    tsj_node *n;
    uint32_t i, j;
    int rc;
    for (n = b->head; n; n = n->next) {
        tsj_value *d;
        tsj_node *dc;
        int ok = 1;
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_dicts(o, n->blk[i])))
                return rc;
        if (!n->n_in)
            continue;
        d = tsj_input(n, 0);
        if (!d->type || d->type->k != TY_DICT || mutated(o, d) || !d->def ||
            d->def->kind != TSJ_KIND_DICTC)
            continue;
        dc = d->def;
        /* canOptimize: constant, distinct keys of type int, float or str */
        if (!d->type->el[0] || (d->type->el[0]->k != TY_INT && d->type->el[0]->k != TY_FLOAT &&
                                d->type->el[0]->k != TY_STR))
            continue;
        for (i = 0; i + 1 < dc->n_in && ok; i += 2) {
            const tsj_const *ki = tsj_const_of(dc->in[i]);
            if (!dict_key_ok(ki)) {
                ok = 0;
                break;
            }
            for (j = 0; j < i && ok; j += 2)
                if (tsj_const_eq(ki, tsj_const_of(dc->in[j])))
                    ok = 0;
        }
        if (!ok)
            continue;
        if (n->kind == TSJ_KIND_LEN) {
            tsj_value *v = const_int(o, n, dc->n_in / 2);
            if (!v)
                return ts_oom(o->c);
            tsj_replace_uses(&n->out[0], v);
            o->changed = 1;
        } else if (n->kind == TSJ_KIND_GETITEM && n->n_in == 2) {
            const tsj_const *key = tsj_const_of(n->in[1]);
            if (!key)
                continue;
            for (i = 0; i + 1 < dc->n_in; i += 2)
                if (tsj_const_eq(key, tsj_const_of(dc->in[i]))) {
                    tsj_replace_uses(&n->out[0], dc->in[i + 1]);
                    o->changed = 1;
                    break;
                }
        }
    }
    return OPMAP_OK;
}

static int dim_of_conv(int kind)
{
    return kind == TSJ_KIND_CONV1D ? 3 : kind == TSJ_KIND_CONV2D ? 4 : 5;
}

static int scalar_int(tsj_value *v)
{
    return is_type(v, TY_INT);
}

static int scalar_type(tsj_value *v)
{
    v = tsj_resolve(v);
    return v->type && (v->type->k == TY_INT || v->type->k == TY_FLOAT ||
                       v->type->k == TY_NUMBER || v->type->k == TY_BOOL);
}

static int try_replace_with_input(tsp_state *o, tsj_node *n)
{
    tsj_value *in = tsj_input(n, 0), *out = &n->out[0];
    tsp_alias *a = &o->a;
    if (tsp_has_writers(o, in) || tsp_has_writers(o, out))
        return 0;
    if (tsp_escapes(o, in) && tsp_escapes(o, out))
        return 0;
    if ((TSP_ALIAS_ID(in) && a->flag[tsp_alias_find(a, TSP_ALIAS_ID(in))]) ||
        (TSP_ALIAS_ID(out) && a->flag[tsp_alias_find(a, TSP_ALIAS_ID(out))]))
        return 0;
    if (TSP_ALIAS_ID(in))
        a->flag[tsp_alias_find(a, TSP_ALIAS_ID(in))] = 1;
    if (TSP_ALIAS_ID(out))
        a->flag[tsp_alias_find(a, TSP_ALIAS_ID(out))] = 1;
    tsj_replace_uses(out, in);
    o->changed = 1;
    return 1;
}

static int ph_alias(tsp_state *o, tsj_block *b)
{
    tsj_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_alias(o, n->blk[i])))
                return rc;
        if (n->kind == TSJ_KIND_DIM && n->n_in == 1) {
            tsj_value *x = tsj_input(n, 0);
            if (x->def && (x->def->kind == TSJ_KIND_CONV1D || x->def->kind == TSJ_KIND_CONV2D ||
                           x->def->kind == TSJ_KIND_CONV3D) && !tsp_has_writers(o, x)) {
                tsj_value *v = const_int(o, n, dim_of_conv(x->def->kind));
                if (!v)
                    return ts_oom(o->c);
                tsj_replace_uses(&n->out[0], v);
                o->changed = 1;
            }
        } else if ((n->kind == TSJ_KIND_ADD || n->kind == TSJ_KIND_SUB) &&
                   (n->n_in == 2 || n->n_in == 3) && !n->n_kw && is_type(n->in[0], TY_TENSOR) &&
                   scalar_type(n->in[1])) {
            const tsj_const *other = tsj_const_of(n->in[1]);
            const tsj_const *alpha = n->n_in == 3 ? tsj_const_of(n->in[2]) : NULL;
            int alpha_int = n->n_in == 2 || scalar_int(n->in[2]);
            if (!other || (n->n_in == 3 && !alpha))
                continue;
            if (!scalar_int(n->in[1]) || !alpha_int)
                continue;
            if ((alpha ? alpha->i : 1) == 1 && other->k == TSJ_CONST_INT && other->i == 0)
                try_replace_with_input(o, n);
        } else if (n->kind == TSJ_KIND_MUL && n->n_in == 2 && is_type(n->in[0], TY_TENSOR) &&
                   scalar_type(n->in[1])) {
            const tsj_const *other = tsj_const_of(n->in[1]);
            if (!other || !scalar_int(n->in[1]))
                continue;
            if (other->k == TSJ_CONST_INT && other->i == 1)
                try_replace_with_input(o, n);
        }
    }
    return OPMAP_OK;
}

/* checkArithNode: both inputs int; for mul/add a constant first input is swapped */
static int arith_const(tsj_node *n, int64_t *c)
{
    const tsj_const *cv;
    if (n->n_in != 2 || !is_type(n->in[0], TY_INT) || !is_type(n->in[1], TY_INT))
        return 0;
    if (n->kind == TSJ_KIND_MUL || n->kind == TSJ_KIND_ADD) {
        cv = tsj_const_of(n->in[0]);
        if (cv && cv->k == TSJ_CONST_INT) {
            tsj_value *t = n->in[0];
            n->in[0] = n->in[1];
            n->in[1] = t;
            *c = cv->i;
            return 1;
        }
    }
    cv = tsj_const_of(n->in[1]);
    if (cv && cv->k == TSJ_CONST_INT) {
        *c = cv->i;
        return 1;
    }
    return 0;
}

static int immut_handled(const tsl_type *t)
{
    return t && (t->k == TY_BOOL || t->k == TY_INT || t->k == TY_FLOAT || t->k == TY_NONE);
}

static int ph_nontensor(tsp_state *o, tsj_block *b, int none_to_const)
{
    tsj_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_nontensor(o, n->blk[i], none_to_const)))
                return rc;
        if (none_to_const && n->kind != TSJ_KIND_CONST) {
            for (i = 0; i < n->n_out; i++)
                if (n->out[i].type && n->out[i].type->k == TY_NONE && !n->out[i].repl) {
                    tsj_const *cv = tsj_const_new(o->c, TSJ_CONST_NONE);
                    tsj_value *v = tsp_new_const(o, n, cv, prim_type(o, TY_NONE));
                    if (!v)
                        return ts_oom(o->c);
                    tsj_replace_uses(&n->out[i], v);
                    o->changed = 1;
                }
        }
        switch (n->kind) {
        case TSJ_KIND_IF:
            for (i = 0; i < n->n_out; i++) {
                const tsj_const *tc, *fc;
                if (!n->out[i].type || n->out[i].type->k != TY_BOOL)
                    continue;
                tc = tsj_const_of(n->blk[0]->rets[i]);
                fc = tsj_const_of(n->blk[1]->rets[i]);
                if (tc && tc->k == TSJ_CONST_BOOL && tc->i && fc && fc->k == TSJ_CONST_BOOL &&
                    !fc->i) {
                    tsj_replace_uses(&n->out[i], n->in[0]);
                    o->changed = 1;
                }
            }
            for (i = 0; i < n->n_out; i++) {
                const tsj_value *tv = tsj_resolve(n->blk[0]->rets[i]),
                                *fv = tsj_resolve(n->blk[1]->rets[i]);
                const tsl_type *tt = tv ? tv->type : NULL, *ft = fv ? fv->type : NULL;
                const tsl_type *u;
                if (!tt || !ft || tt->k == TY_OPTIONAL || ft->k == TY_OPTIONAL ||
                    !n->out[i].type || n->out[i].type->k != TY_OPTIONAL)
                    continue;
                /* torch reports a change whenever this unifies, even to the same type */
                u = tsl_type_unify(o->ty, tt, ft);
                if (u && u->k != TY_UNKNOWN) {
                    n->out[i].type = u;
                    o->changed = 1;
                }
            }
            break;
        case TSJ_KIND_IS:
        case TSJ_KIND_ISNOT:
            if (n->n_in != 2)
                break;
            for (i = 0; i < 2; i++) {
                if (must_be_none(n->in[i]) && must_not_be_none(n->in[1 - i])) {
                    tsj_value *v = const_bool(o, n, n->kind == TSJ_KIND_ISNOT);
                    if (!v)
                        return ts_oom(o->c);
                    tsj_replace_uses(&n->out[0], v);
                    o->changed = 1;
                }
            }
            break;
        case TSJ_KIND_UNWRAP:
        case TSJ_KIND_UNWRAP_OPT:
            if (n->n_in == 1 && must_not_be_none(n->in[0])) {
                tsj_replace_uses(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case TSJ_KIND_UNCHECKED:
            if (n->n_in == 1 && tsl_type_is_subtype(tsj_input(n, 0)->type, n->out[0].type)) {
                tsj_replace_uses(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case TSJ_KIND_INT:
        case TSJ_KIND_CEIL:
            if (n->n_in == 1 && is_type(n->in[0], TY_INT)) {
                tsj_replace_uses(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case TSJ_KIND_EQ:
        case TSJ_KIND_NE:
            if (n->n_in == 2 && tsj_input(n, 0) == tsj_input(n, 1)) {
                const tsl_type *t = tsj_input(n, 0)->type;
                int ok = 0;
                if (t && t->k == TY_LIST)
                    ok = immut_handled(t->el[0]);
                else if (t && t->k == TY_DICT)
                    ok = immut_handled(t->el[0]) && immut_handled(t->el[1]);
                else
                    ok = immut_handled(t);
                if (ok) {
                    tsj_value *v = const_bool(o, n, n->kind == TSJ_KIND_EQ);
                    if (!v)
                        return ts_oom(o->c);
                    tsj_replace_uses(&n->out[0], v);
                    o->changed = 1;
                }
            }
            break;
        case TSJ_KIND_MUL:
        case TSJ_KIND_FLOORDIV:
        case TSJ_KIND_DIV: {
            int64_t k;
            if (arith_const(n, &k) && k == 1) {
                tsj_replace_uses(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        }
        case TSJ_KIND_ADD:
        case TSJ_KIND_SUB: {
            int64_t k, d;
            tsj_node *dep;
            if (!arith_const(n, &k))
                break;
            if (k == 0) {
                tsj_replace_uses(&n->out[0], n->in[0]);
                o->changed = 1;
                break;
            }
            dep = tsj_input(n, 0)->def;
            if (!dep || (dep->kind != TSJ_KIND_ADD && dep->kind != TSJ_KIND_SUB) ||
                !arith_const(dep, &d))
                break;
            d = dep->kind == n->kind ? (int64_t)((uint64_t)k + (uint64_t)d)
                                     : (int64_t)((uint64_t)k - (uint64_t)d);
            if (d == 0) {
                tsj_replace_uses(&n->out[0], dep->in[0]);
            } else {
                tsj_value *cv = const_int(o, n, d);
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
int tsp_peephole(tsp_state *o)
{
    int rc, any;
    o->changed = 0;
    if ((rc = ph_basic(o, o->g->top)))
        return rc;
    any = o->changed;
    o->changed = 0;
    if ((rc = tsp_alias_run(o)) || (rc = ph_lists(o, o->g->top)))
        goto out;
    tsp_alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = tsp_alias_run(o)) || (rc = ph_dicts(o, o->g->top)))
        goto out;
    tsp_alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = tsp_alias_run(o)) || (rc = ph_alias(o, o->g->top)))
        goto out;
    tsp_alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = ph_nontensor(o, o->g->top, 1)))
        goto out;
    any |= o->changed;
    o->changed = 0;
    if ((rc = tsp_combine_concats(o)))
        goto out;
    any |= o->changed;
    if (any)
        rc = tsp_dce(o, 0);
out:
    tsp_alias_free(o);
    return rc;
}
