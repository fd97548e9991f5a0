/*
 * readers/torchscript/passes/dce.c - dead code elimination (torch's EliminateDeadCode), and
 * the use counts it and CombineConcats read.
 *
 * Every pass that changes something is followed by it, as in torch, so that what a later
 * pass sees (and what opmap counts) is what torch's graph still holds. Live is what a
 * block returns, what has side effects and what those need, through If outputs and
 * loop-carried values. Without aliasing every mutating op stays; with aliasing one stays
 * only if it writes to something live or to the wildcard.
 */
#include <string.h>

#include "pass_state.h"

static void use(tsj_value *v, tsj_node *user, uint32_t stamp)
{
    v = tsj_resolve(v);
    if (!v)
        return;
    if (v->ustamp != stamp) {
        v->ustamp = stamp;
        v->nuses = 0;
    }
    v->nuses++;
    v->user = user;
}

void tsp_count_uses(tsj_block *b, uint32_t stamp)
{
    tsj_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_in; i++)
            use(x->in[i], x, stamp);
        for (i = 0; i < x->n_blk; i++)
            tsp_count_uses(x->blk[i], stamp);
    }
    for (i = 0; i < b->n_rets; i++)
        use(b->rets[i], NULL, stamp);
}

uint32_t tsp_uses_of(tsj_value *v, uint32_t stamp)
{
    v = tsj_resolve(v);
    return v->ustamp == stamp ? v->nuses : 0;
}

typedef struct dce {
    tsp_state *o;
    int use_alias;
    uint32_t live_stamp, use_stamp;
} dce;

static int node_side_effects(dce *d, tsj_node *n);

static int block_side_effects(dce *d, tsj_block *b)
{
    tsj_node *x;
    for (x = b->head; x; x = x->next)
        if (node_side_effects(d, x))
            return 1;
    return 0;
}

static int node_side_effects(dce *d, tsj_node *n)
{
    uint32_t i;
    if (tsj_side_effects(n))
        return 1;
    for (i = 0; i < n->n_blk; i++)
        if (block_side_effects(d, n->blk[i]))
            return 1;
    if (!d->use_alias)
        return tsj_mutates(n);
    {
        tsj_value *w = tsp_written_by(n);
        tsp_state *o = d->o;
        tsp_alias *a = &o->a;
        return w && TSP_ALIAS_ID(w) &&
               tsp_alias_find(a, TSP_ALIAS_ID(w)) == tsp_alias_find(a, a->wild);
    }
}

static void set_live(dce *d, tsj_value *v)
{
    tsp_state *o = d->o;
    v = tsj_resolve(v);
    if (!v)
        return;
    v->mark = d->live_stamp;
    if (d->use_alias && TSP_ALIAS_ID(v))
        o->a.flag[tsp_alias_find(&o->a, TSP_ALIAS_ID(v))] = 1;
}

static int is_live(dce *d, tsj_value *v)
{
    v = tsj_resolve(v);
    return v && v->mark == d->live_stamp;
}

static int mark_node(dce *d, tsj_node *n)
{
    tsj_node *up;
    uint32_t i;
    if (n->live)
        return 0;
    n->live = 1;
    for (up = n->owner ? n->owner->owner : NULL; up; up = up->owner ? up->owner->owner : NULL)
        if (!up->live)
            mark_node(d, up);
    for (i = 0; i < n->n_in; i++)
        set_live(d, n->in[i]);
    return 1;
}

static int mark_block(dce *d, tsj_block *b);

static int mark_returns(dce *d, tsj_block *b)
{
    tsj_node *owner = b->owner;
    uint32_t i;
    int any = 0;
    if (!owner) {
        for (i = 0; i < b->n_rets; i++)
            if (!is_live(d, b->rets[i])) {
                set_live(d, b->rets[i]);
                any = 1;
            }
        return any;
    }
    if (owner->kind == TSJ_KIND_LOOP) {
        for (i = 0; i + 1 < b->n_rets; i++) {
            if ((!owner->out[i].repl && is_live(d, &owner->out[i])) ||
                tsp_uses_of(b->params[1 + i], d->use_stamp)) {
                if (!is_live(d, b->rets[1 + i])) {
                    set_live(d, b->rets[1 + i]);
                    any = 1;
                }
            }
        }
        if (b->n_rets && !is_live(d, b->rets[0])) {
            set_live(d, b->rets[0]);
            any = 1;
        }
        return any;
    }
    if (owner->kind == TSJ_KIND_DISPATCH) {
        /* a call through an interface runs, its result used or not (torch's CallMethod has
         * side effects): every implementation's call stays */
        for (i = 0; i < b->n_rets; i++)
            if (b->rets[i] && !is_live(d, b->rets[i])) {
                set_live(d, b->rets[i]);
                any = 1;
            }
        return any;
    }
    for (i = 0; i < b->n_rets && i < owner->n_out; i++)
        if (b->rets[i] && !owner->out[i].repl && is_live(d, &owner->out[i]) &&
            !is_live(d, b->rets[i])) {
            set_live(d, b->rets[i]);
            any = 1;
        }
    return any;
}

static int writes_to_live(dce *d, tsj_node *n)
{
    tsj_value *w;
    tsp_state *o = d->o;
    if (!d->use_alias)
        return 0;
    w = tsp_written_by(n);
    return w && TSP_ALIAS_ID(w) && o->a.flag[tsp_alias_find(&o->a, TSP_ALIAS_ID(w))];
}

static int mark_if_live(dce *d, tsj_node *n)
{
    uint32_t i;
    /* a replaced output has no uses left: its replacement is what is live */
    for (i = 0; i < n->n_out; i++)
        if (!n->out[i].repl && is_live(d, &n->out[i]))
            return mark_node(d, n);
    if (writes_to_live(d, n))
        return mark_node(d, n);
    return 0;
}

static int mark_block(dce *d, tsj_block *b)
{
    tsj_node *x;
    uint32_t i;
    int any = 0;
    for (x = b->head; x; x = x->next)
        if (node_side_effects(d, x))
            any |= mark_node(d, x);
    any |= mark_returns(d, b);
    for (x = b->tail; x; x = x->prev) {
        if (x->kind == TSJ_KIND_LOOP) {
            int m;
            do {
                m = mark_block(d, x->blk[0]);
                any |= m;
            } while (m);
        } else {
            for (i = 0; i < x->n_blk; i++)
                any |= mark_block(d, x->blk[i]);
        }
        any |= mark_if_live(d, x);
    }
    return any;
}

static void clear_live(tsj_block *b)
{
    tsj_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        x->live = 0;
        for (i = 0; i < x->n_blk; i++)
            clear_live(x->blk[i]);
    }
}

static void sweep(dce *d, tsj_block *b)
{
    tsj_node *x, *prev;
    uint32_t i;
    for (x = b->tail; x; x = prev) {
        prev = x->prev;
        for (i = 0; i < x->n_blk; i++)
            sweep(d, x->blk[i]);
        if (!x->live)
            tsj_unlink(x);
    }
}

int tsp_dce(tsp_state *o, int use_alias)
{
    dce d;
    int rc;
    memset(&d, 0, sizeof(d));
    d.o = o;
    d.use_alias = use_alias;
    d.live_stamp = ++o->c->stamp;
    d.use_stamp = ++o->c->stamp;
    if (use_alias && (rc = tsp_alias_run(o)))
        return rc;
    tsp_count_uses(o->g->top, d.use_stamp);
    clear_live(o->g->top);
    mark_block(&d, o->g->top);
    sweep(&d, o->g->top);
    if (use_alias)
        tsp_alias_free(o);
    return OPMAP_OK;
}
