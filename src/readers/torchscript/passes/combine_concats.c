/*
 * readers/torchscript/passes/combine_concats.c - CombineConcats, the last of torch's peepholes:
 * cat(a, cat(b, c), d), the inner cat used once, becomes cat(a, b, c, d).
 *
 * It has a file of its own because torch's pass is not a local rewrite: pairs are
 * collected over the whole graph first, then combined in graph order through a map
 * (the first pair into an outer cat wins, a chain of cats moves one list along), and
 * those order rules decide which cat nodes remain to be counted.
 */
#include <string.h>

#include "pass_state.h"

typedef struct cat_pair {
    tsj_node *first, *second;
    uint32_t idx;
} cat_pair;

static int cat_dim(tsj_node *n, int64_t *dim)
{
    const tsj_const *cv;
    if (n->n_in < 2) {
        *dim = 0;
        return 1;
    }
    cv = tsj_const_of(n->in[1]);
    if (!cv || cv->k != TSJ_CONST_INT)
        return 0;
    *dim = cv->i;
    return 1;
}

static int collect_cats(tsp_state *o, tsj_block *b, uint32_t stamp, om_vec *pairs)
{
    tsj_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        int64_t dim, dim2;
        tsj_value *list;
        tsj_node *next_list, *next_cat;
        cat_pair *p;
        if (n->kind == TSJ_KIND_CAT && n->n_in >= 1 && n->n_kw == 0 && cat_dim(n, &dim)) {
            list = tsj_input(n, 0);
            if (list->def && list->def->kind == TSJ_KIND_LISTC && !tsp_has_writers(o, list) &&
                tsp_uses_of(&n->out[0], stamp) == 1 &&
                (next_list = tsj_resolve(&n->out[0])->user) && next_list->kind == TSJ_KIND_LISTC &&
                tsp_uses_of(&next_list->out[0], stamp) == 1 &&
                (next_cat = tsj_resolve(&next_list->out[0])->user) &&
                next_cat->kind == TSJ_KIND_CAT && next_cat->n_kw == 0 &&
                tsj_input(next_cat, 0) == &next_list->out[0] && cat_dim(next_cat, &dim2) &&
                dim2 == dim) {
                for (i = 0; i < next_list->n_in; i++)
                    if (tsj_input(next_list, i) == tsj_resolve(&n->out[0]))
                        break;
                if (i < next_list->n_in) {
                    if (!(p = om_vec_push(pairs, o->c->mem)))
                        return ts_oom(o->c);
                    p->first = n;
                    p->second = next_cat;
                    p->idx = i;
                }
            }
        }
        for (i = 0; i < n->n_blk; i++)
            if ((rc = collect_cats(o, n->blk[i], stamp, pairs)))
                return rc;
    }
    return OPMAP_OK;
}

/* A list being built for a cat (torch's deque in getListConstructInputs). */
typedef struct clist {
    tsj_node *key;          /* the cat it is registered for, or NULL (orphaned / moved) */
    tsj_value **v;
    size_t n, cap;
} clist;

static int clist_put(tsp_state *o, clist *l, size_t at, tsj_value *const *v, size_t n)
{
    if (l->n + n > l->cap) {
        size_t ncap = (l->n + n) * 2 + 4;
        tsj_value **nv = om_arena_array(&o->c->tmp, ncap, sizeof(*nv));
        if (!nv)
            return ts_oom(o->c);
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof(*nv));
        l->v = nv;
        l->cap = ncap;
    }
    memmove(l->v + at + n, l->v + at, (l->n - at) * sizeof(*l->v));
    memcpy(l->v + at, v, n * sizeof(*v));
    l->n += n;
    return OPMAP_OK;
}

/*
 * CombineConcats: cat(a, cat(b, c), d) with one use in between becomes cat(a, b, c, d).
 * Pairs are combined in graph order with torch's map semantics: the first pair registered
 * for an outer cat wins (a later pair into the same cat is dropped), and a chain of cats
 * moves its list along.
 */
int tsp_combine_concats(tsp_state *o)
{
    om_vec pairs, lists;
    uint32_t stamp = ++o->c->stamp;
    size_t i;
    int rc;
    if ((rc = tsp_alias_run(o)))
        return rc;
    tsp_count_uses(o->g->top, stamp);
    om_vec_init(&pairs, sizeof(cat_pair));
    om_vec_init(&lists, sizeof(clist *));
    rc = collect_cats(o, o->g->top, stamp, &pairs);
    tsp_alias_free(o);
    for (i = 0; !rc && i < pairs.len; i++) {
        cat_pair *p = &OM_VEC_AT(&pairs, cat_pair, i);
        tsj_node *l2 = tsj_input(p->second, 0)->def;
        clist *cur = p->first->aux_stamp == stamp ? p->first->aux : NULL, **slot;
        if (cur) {
            p->first->aux_stamp = 0; /* erased from the map under the inner cat */
            cur->key = NULL;
        } else if (!(cur = om_arena_alloc(&o->c->tmp, sizeof(*cur))) ||
                   !(slot = om_vec_push(&lists, o->c->mem))) {
            rc = ts_oom(o->c);
            break;
        } else {
            *slot = cur;
        }
        if (p->second->aux_stamp != stamp) {
            cur->key = p->second;
            p->second->aux = cur;
            p->second->aux_stamp = stamp;
        }
        if (!cur->n) {
            tsj_node *l1 = tsj_input(p->first, 0)->def;
            if ((rc = clist_put(o, cur, 0, l1->in, l1->n_in)))
                break;
        }
        if ((rc = clist_put(o, cur, 0, l2->in, p->idx)) ||
            (rc = clist_put(o, cur, cur->n, l2->in + p->idx + 1, l2->n_in - p->idx - 1)))
            break;
    }
    for (i = 0; !rc && i < lists.len; i++) {
        clist *cl = OM_VEC_AT(&lists, clist *, i);
        tsj_node *old, *l;
        size_t k;
        if (!cl->key)
            continue;
        old = tsj_input(cl->key, 0)->def;
        if (!(l = tsp_new_list(o, cl->key, (uint32_t)cl->n, old->out[0].type))) {
            rc = ts_oom(o->c);
            break;
        }
        for (k = 0; k < cl->n; k++)
            l->in[k] = cl->v[k];
        tsj_replace_uses(&old->out[0], &l->out[0]);
        o->changed = 1;
    }
    if (!rc && pairs.len)
        rc = tsp_dce(o, 1);
    om_vec_free(&pairs, o->c->mem);
    om_vec_free(&lists, o->c->mem);
    return rc;
}
