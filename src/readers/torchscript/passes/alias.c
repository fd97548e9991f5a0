/*
 * readers/torchscript/passes/alias.c - the alias facts the optimizer's passes consult: which
 * values some node writes to, and which escape to a graph input, output or the wildcard.
 *
 * torch asks its AliasDb whether a list is mutated, whether a mutating op is dead and
 * whether dim(conv) may fold; opmap keeps a coarser analysis (docs/torchscript.md, "Known
 * differences"), rebuilt from scratch whenever a pass needs fresh facts.
 *
 * What needs aliasing facts uses a small union-find alias analysis: fresh results, views
 * and in-place ops alias their input, block outputs alias what flows into them, and graph
 * inputs, attributes and container elements are one "wildcard" set.
 */
#include <string.h>

#include "readers/torchscript/jit/kinds.h"
#include "pass_state.h"

void tsp_alias_free(tsp_state *o)
{
    tsp_alias *a = &o->a;
    if (a->parent) {
        om_dealloc(o->c->mem, a->parent, a->cap * sizeof(uint32_t));
        om_dealloc(o->c->mem, a->written, a->cap);
        om_dealloc(o->c->mem, a->escapes, a->cap);
        om_dealloc(o->c->mem, a->flag, a->cap);
    }
    memset(a, 0, sizeof(*a));
}

uint32_t tsp_alias_find(tsp_alias *a, uint32_t x)
{
    uint32_t r = x;
    if (!x)
        return 0;
    while (a->parent[r] != r)
        r = a->parent[r];
    while (a->parent[x] != r) {
        uint32_t nx = a->parent[x];
        a->parent[x] = r;
        x = nx;
    }
    return r;
}

static void alias_union(tsp_alias *a, uint32_t x, uint32_t y)
{
    x = tsp_alias_find(a, x);
    y = tsp_alias_find(a, y);
    if (x && y && x != y)
        a->parent[y] = x;
}

/* The value's alias id in the current analysis; 0 for values made after it, and for
 * values of nodes removed since (dead If/Loop outputs may still name them). */
uint32_t tsp_alias_id(const tsp_alias *a, tsj_value *v)
{
    v = tsj_resolve(v);
    return v && a->stamp && v->astamp == a->stamp ? v->aset : 0;
}

static void count_vals(const tsj_block *b, uint32_t *n)
{
    const tsj_node *x;
    uint32_t i;
    *n += b->n_params;
    for (x = b->head; x; x = x->next) {
        *n += x->n_out;
        for (i = 0; i < x->n_blk; i++)
            count_vals(x->blk[i], n);
    }
}

static void number_vals(tsp_alias *a, tsj_block *b)
{
    tsj_node *x;
    uint32_t i;
    for (i = 0; i < b->n_params; i++) {
        b->params[i]->aset = ++a->n;
        b->params[i]->astamp = a->stamp;
        a->parent[a->n] = a->n;
    }
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_out; i++) {
            x->out[i].aset = ++a->n;
            x->out[i].astamp = a->stamp;
            a->parent[a->n] = a->n;
        }
        for (i = 0; i < x->n_blk; i++)
            number_vals(a, x->blk[i]);
    }
}

/* The value a node writes to, or NULL. */
tsj_value *tsp_written_by(const tsj_node *n)
{
    uint16_t i;
    if (n->kind == TSJ_KIND_SETATTR)
        return n->n_in ? tsj_input(n, 0) : NULL;
    if (!tsj_mutates(n))
        return NULL;
    for (i = 0; i < n->n_kw; i++)
        if (strcmp(n->kw[i], "out") == 0)
            return tsj_input(n, n->n_in - n->n_kw + i);
    return n->n_in ? tsj_input(n, 0) : NULL;
}

static void alias_block(tsp_state *o, tsj_block *b)
{
    tsp_alias *a = &o->a;
    tsj_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_blk; i++)
            alias_block(o, x->blk[i]);
        switch (x->kind) {
        case TSJ_KIND_GETATTR:
        case TSJ_KIND_TUPLEIDX:
        case TSJ_KIND_TUPLEUNPACK:
        case TSJ_KIND_LISTUNPACK:
        case TSJ_KIND_GETITEM:
            /* attributes and container elements: the wildcard */
            for (i = 0; i < x->n_out; i++)
                if (tsl_type_mutable(x->out[i].type))
                    alias_union(a, a->wild, x->out[i].aset);
            break;
        case TSJ_KIND_CALLM:
        case TSJ_KIND_CALLF:
        case TSJ_KIND_DISPATCH:
            for (i = 0; i < x->n_out; i++)
                alias_union(a, a->wild, x->out[i].aset);
            for (i = 0; i < x->n_in; i++)
                if (tsl_type_mutable(tsj_input(x, i)->type))
                    alias_union(a, a->wild, TSP_ALIAS_ID(x->in[i]));
            break;
        case TSJ_KIND_UNCHECKED:
        case TSJ_KIND_UNWRAP:
        case TSJ_KIND_UNWRAP_OPT:
            alias_union(a, TSP_ALIAS_ID(x->in[0]), x->out[0].aset);
            break;
        case TSJ_KIND_IF:
            for (i = 0; i < x->n_out; i++) {
                if (x->blk[0]->rets[i])
                    alias_union(a, x->out[i].aset, TSP_ALIAS_ID(x->blk[0]->rets[i]));
                if (x->blk[1]->rets[i])
                    alias_union(a, x->out[i].aset, TSP_ALIAS_ID(x->blk[1]->rets[i]));
            }
            break;
        case TSJ_KIND_LOOP:
            for (i = 0; i < x->n_out; i++) {
                tsj_block *body = x->blk[0];
                alias_union(a, x->out[i].aset, TSP_ALIAS_ID(x->in[2 + i]));
                alias_union(a, x->out[i].aset, body->params[1 + i]->aset);
                alias_union(a, x->out[i].aset, TSP_ALIAS_ID(body->rets[1 + i]));
            }
            break;
        default:
            /* slice of a list is aten::slice.t, a fresh list (no alias annotation); only
             * the Tensor overload is a view */
            if (x->n_in && x->n_out && strcmp(x->ns, "aten") == 0 && tsj_kind_view(x->op) &&
                tsl_type_mutable(x->out[0].type) &&
                !(strcmp(x->op, "slice") == 0 && tsj_resolve(x->in[0])->type &&
                  tsj_resolve(x->in[0])->type->k == TY_LIST))
                alias_union(a, TSP_ALIAS_ID(x->in[0]), x->out[0].aset);
            if (strcmp(x->ns, "aten") == 0) {
                /* elements stored into a list or dict join the wildcard (schema `t(c -> *)`) */
                int el = !strcmp(x->op, "append") ? 1
                       : (!strcmp(x->op, "_set_item") || !strcmp(x->op, "insert") ||
                          !strcmp(x->op, "setdefault")) ? 2 : -1;
                if (el >= 0 && (uint32_t)el < x->n_in &&
                    tsl_type_mutable(tsj_input(x, (uint32_t)el)->type))
                    alias_union(a, a->wild, TSP_ALIAS_ID(x->in[el]));
            }
            {
                uint16_t k;
                for (k = 0; k < x->n_kw; k++)
                    if (strcmp(x->kw[k], "out") == 0 && x->n_out)
                        alias_union(a, TSP_ALIAS_ID(x->in[x->n_in - x->n_kw + k]), x->out[0].aset);
            }
            break;
        }
    }
}

static void mark_written(tsp_state *o, tsj_block *b)
{
    tsp_alias *a = &o->a;
    tsj_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        tsj_value *w = tsp_written_by(x);
        if (w && TSP_ALIAS_ID(w))
            a->written[tsp_alias_find(a, TSP_ALIAS_ID(w))] = 1;
        for (i = 0; i < x->n_blk; i++)
            mark_written(o, x->blk[i]);
    }
}

int tsp_alias_run(tsp_state *o)
{
    tsp_alias *a = &o->a;
    uint32_t n = 0, i;
    tsj_block *top = o->g->top;
    tsp_alias_free(o);
    count_vals(top, &n);
    a->cap = n + 2;
    a->parent = om_alloc(o->c->mem, a->cap * sizeof(uint32_t));
    a->written = om_calloc(o->c->mem, a->cap, 1);
    a->escapes = om_calloc(o->c->mem, a->cap, 1);
    a->flag = om_calloc(o->c->mem, a->cap, 1);
    if (!a->parent || !a->written || !a->escapes || !a->flag) {
        if (a->parent)
            om_dealloc(o->c->mem, a->parent, a->cap * sizeof(uint32_t));
        if (a->written)
            om_dealloc(o->c->mem, a->written, a->cap);
        if (a->escapes)
            om_dealloc(o->c->mem, a->escapes, a->cap);
        if (a->flag)
            om_dealloc(o->c->mem, a->flag, a->cap);
        memset(a, 0, sizeof(*a));
        return ts_oom(o->c);
    }
    a->stamp = ++o->c->stamp;
    a->wild = ++a->n;
    a->parent[a->wild] = a->wild;
    number_vals(a, top);
    for (i = 0; i < top->n_params; i++)
        if (tsl_type_mutable(top->params[i]->type))
            alias_union(a, a->wild, top->params[i]->aset);
    alias_block(o, top);
    mark_written(o, top);
    a->escapes[tsp_alias_find(a, a->wild)] = 1;
    for (i = 0; i < top->n_rets; i++)
        if (TSP_ALIAS_ID(top->rets[i]))
            a->escapes[tsp_alias_find(a, TSP_ALIAS_ID(top->rets[i]))] = 1;
    return OPMAP_OK;
}

int tsp_has_writers(tsp_state *o, tsj_value *v)
{
    uint32_t id = TSP_ALIAS_ID(v);
    return id && o->a.parent && o->a.written[tsp_alias_find(&o->a, id)];
}

int tsp_escapes(tsp_state *o, tsj_value *v)
{
    uint32_t id = TSP_ALIAS_ID(v);
    return id && o->a.parent && o->a.escapes[tsp_alias_find(&o->a, id)];
}
