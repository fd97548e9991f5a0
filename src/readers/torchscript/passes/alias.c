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
#include "readers/torchscript/passes/pass_state.h"

void tso_alias_free(opt *o)
{
    alias *a = &o->a;
    if (a->parent) {
        om_dealloc(o->c->mem, a->parent, a->cap * sizeof(uint32_t));
        om_dealloc(o->c->mem, a->written, a->cap);
        om_dealloc(o->c->mem, a->escapes, a->cap);
        om_dealloc(o->c->mem, a->flag, a->cap);
    }
    memset(a, 0, sizeof(*a));
}

uint32_t tso_alias_find(alias *a, uint32_t x)
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

static void au(alias *a, uint32_t x, uint32_t y)
{
    x = tso_alias_find(a, x);
    y = tso_alias_find(a, y);
    if (x && y && x != y)
        a->parent[y] = x;
}

/* The value's alias id in the current analysis; 0 for values made after it, and for
 * values of nodes removed since (dead If/Loop outputs may still name them). */
uint32_t tso_alias_id(const alias *a, og_val *v)
{
    v = og_v(v);
    return v && a->stamp && v->astamp == a->stamp ? v->aset : 0;
}

static void count_vals(const og_block *b, uint32_t *n)
{
    const og_node *x;
    uint32_t i;
    *n += b->n_params;
    for (x = b->head; x; x = x->next) {
        *n += x->n_out;
        for (i = 0; i < x->n_blk; i++)
            count_vals(x->blk[i], n);
    }
}

static void number_vals(alias *a, og_block *b)
{
    og_node *x;
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
og_val *tso_written_by(const og_node *n)
{
    uint16_t i;
    if (n->kind == OK_SETATTR)
        return n->n_in ? og_in(n, 0) : NULL;
    if (!og_mutates(n))
        return NULL;
    for (i = 0; i < n->n_kw; i++)
        if (strcmp(n->kw[i], "out") == 0)
            return og_in(n, n->n_in - n->n_kw + i);
    return n->n_in ? og_in(n, 0) : NULL;
}

static void alias_block(opt *o, og_block *b)
{
    alias *a = &o->a;
    og_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_blk; i++)
            alias_block(o, x->blk[i]);
        switch (x->kind) {
        case OK_GETATTR:
        case OK_TUPLEIDX:
        case OK_TUPLEUNPACK:
        case OK_LISTUNPACK:
        case OK_GETITEM:
            /* attributes and container elements: the wildcard */
            for (i = 0; i < x->n_out; i++)
                if (ty_mutable(x->out[i].type))
                    au(a, a->wild, x->out[i].aset);
            break;
        case OK_CALLM:
        case OK_CALLF:
            for (i = 0; i < x->n_out; i++)
                au(a, a->wild, x->out[i].aset);
            for (i = 0; i < x->n_in; i++)
                if (ty_mutable(og_in(x, i)->type))
                    au(a, a->wild, TSO_VID(x->in[i]));
            break;
        case OK_UNCHECKED:
        case OK_UNWRAP:
        case OK_UNWRAP_OPT:
            au(a, TSO_VID(x->in[0]), x->out[0].aset);
            break;
        case OK_IF:
            for (i = 0; i < x->n_out; i++) {
                if (x->blk[0]->rets[i])
                    au(a, x->out[i].aset, TSO_VID(x->blk[0]->rets[i]));
                if (x->blk[1]->rets[i])
                    au(a, x->out[i].aset, TSO_VID(x->blk[1]->rets[i]));
            }
            break;
        case OK_LOOP:
            for (i = 0; i < x->n_out; i++) {
                og_block *body = x->blk[0];
                au(a, x->out[i].aset, TSO_VID(x->in[2 + i]));
                au(a, x->out[i].aset, body->params[1 + i]->aset);
                au(a, x->out[i].aset, TSO_VID(body->rets[1 + i]));
            }
            break;
        default:
            /* slice of a list is aten::slice.t, a fresh list (no alias annotation); only
             * the Tensor overload is a view */
            if (x->n_in && x->n_out && strcmp(x->ns, "aten") == 0 && ts_kind_view(x->op) &&
                ty_mutable(x->out[0].type) &&
                !(strcmp(x->op, "slice") == 0 && og_v(x->in[0])->type &&
                  og_v(x->in[0])->type->k == TY_LIST))
                au(a, TSO_VID(x->in[0]), x->out[0].aset);
            if (strcmp(x->ns, "aten") == 0) {
                /* elements stored into a list or dict join the wildcard (schema `t(c -> *)`) */
                int el = !strcmp(x->op, "append") ? 1
                       : (!strcmp(x->op, "_set_item") || !strcmp(x->op, "insert") ||
                          !strcmp(x->op, "setdefault")) ? 2 : -1;
                if (el >= 0 && (uint32_t)el < x->n_in && ty_mutable(og_in(x, (uint32_t)el)->type))
                    au(a, a->wild, TSO_VID(x->in[el]));
            }
            {
                uint16_t k;
                for (k = 0; k < x->n_kw; k++)
                    if (strcmp(x->kw[k], "out") == 0 && x->n_out)
                        au(a, TSO_VID(x->in[x->n_in - x->n_kw + k]), x->out[0].aset);
            }
            break;
        }
    }
}

static void mark_written(opt *o, og_block *b)
{
    alias *a = &o->a;
    og_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        og_val *w = tso_written_by(x);
        if (w && TSO_VID(w))
            a->written[tso_alias_find(a, TSO_VID(w))] = 1;
        for (i = 0; i < x->n_blk; i++)
            mark_written(o, x->blk[i]);
    }
}

int tso_alias_run(opt *o)
{
    alias *a = &o->a;
    uint32_t n = 0, i;
    og_block *top = o->g->top;
    tso_alias_free(o);
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
        if (ty_mutable(top->params[i]->type))
            au(a, a->wild, top->params[i]->aset);
    alias_block(o, top);
    mark_written(o, top);
    a->escapes[tso_alias_find(a, a->wild)] = 1;
    for (i = 0; i < top->n_rets; i++)
        if (TSO_VID(top->rets[i]))
            a->escapes[tso_alias_find(a, TSO_VID(top->rets[i]))] = 1;
    return OPMAP_OK;
}

int tso_has_writers(opt *o, og_val *v)
{
    uint32_t id = TSO_VID(v);
    return id && o->a.parent && o->a.written[tso_alias_find(&o->a, id)];
}

int tso_escapes(opt *o, og_val *v)
{
    uint32_t id = TSO_VID(v);
    return id && o->a.parent && o->a.escapes[tso_alias_find(&o->a, id)];
}
