/*
 * readers/torchscript/jit/graph.c - building and copying optimizer graphs (see jit/graph.h).
 *
 * Inlining copies a callee's optimized graph in front of its call node, as torch's
 * inlineCallTo does. Nodes made in all graphs together (each instance is copied once per
 * inlining level) are bounded by ts_ctx.node_budget, memory by max_heap_bytes.
 */
#include "graph.h"

#include <inttypes.h>
#include <string.h>

#include "kinds.h"

static int count_node(ts_ctx *c)
{
    if (++c->nodes > c->node_budget) {
        ts_fail(c, OPMAP_ELIMIT, NULL, 0, 0,
                "more than %" PRIu64 " nodes while inlining TorchScript calls (max_nodes, or "
                "max_heap_bytes / 512 when smaller)", c->node_budget);
        return 0;
    }
    return 1;
}

uint64_t tsj_count_nodes(const tsj_block *b)
{
    const tsj_node *x;
    uint64_t n = 0;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        n++;
        for (i = 0; i < x->n_blk; i++)
            n += tsj_count_nodes(x->blk[i]);
    }
    return n;
}

tsj_node *tsj_node_new(ts_ctx *c, int kind, const char *ns, const char *op, uint32_t n_in,
                       uint32_t n_out, uint32_t n_blk)
{
    tsj_node *n;
    uint32_t i;
    if (!count_node(c))
        return NULL;
    n = om_arena_alloc(&c->tmp, sizeof(*n));
    if (!n)
        goto oom;
    n->kind = (uint16_t)kind;
    n->ns = ns;
    n->op = op;
    n->n_in = n->cap_in = n_in;
    if (n_in && !(n->in = om_arena_array(&c->tmp, n_in, sizeof(*n->in))))
        goto oom;
    n->n_out = n_out;
    if (n_out && !(n->out = om_arena_array(&c->tmp, n_out, sizeof(*n->out))))
        goto oom;
    for (i = 0; i < n_out; i++)
        n->out[i].def = n;
    n->n_blk = n_blk;
    if (n_blk) {
        if (!(n->blk = om_arena_array(&c->tmp, n_blk, sizeof(*n->blk))))
            goto oom;
        for (i = 0; i < n_blk; i++)
            if (!(n->blk[i] = tsj_block_new(c, n)))
                return NULL;
    }
    return n;
oom:
    ts_oom(c);
    return NULL;
}

tsj_block *tsj_block_new(ts_ctx *c, tsj_node *owner)
{
    tsj_block *b = om_arena_alloc(&c->tmp, sizeof(*b));
    if (!b) {
        ts_oom(c);
        return NULL;
    }
    b->owner = owner;
    return b;
}

tsj_value *tsj_param_new(ts_ctx *c, const tsl_type *t)
{
    tsj_value *v = om_arena_alloc(&c->tmp, sizeof(*v));
    if (!v) {
        ts_oom(c);
        return NULL;
    }
    v->type = t;
    return v;
}

void tsj_append(tsj_block *b, tsj_node *n)
{
    n->owner = b;
    n->next = NULL;
    n->prev = b->tail;
    if (b->tail)
        b->tail->next = n;
    else
        b->head = n;
    b->tail = n;
}

void tsj_insert_before(tsj_node *at, tsj_node *n)
{
    tsj_block *b = at->owner;
    n->owner = b;
    n->next = at;
    n->prev = at->prev;
    if (at->prev)
        at->prev->next = n;
    else
        b->head = n;
    at->prev = n;
}

void tsj_unlink(tsj_node *n)
{
    tsj_block *b = n->owner;
    if (n->dead)
        return;
    if (n->prev)
        n->prev->next = n->next;
    else
        b->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        b->tail = n->prev;
    n->dead = 1;
}

tsj_const *tsj_const_new(ts_ctx *c, int k)
{
    tsj_const *cv = om_arena_alloc(&c->tmp, sizeof(*cv));
    if (!cv) {
        ts_oom(c);
        return NULL;
    }
    cv->k = (uint8_t)k;
    return cv;
}

tsj_node *tsj_const_node(ts_ctx *c, const tsj_const *cv, const tsl_type *t)
{
    tsj_node *n = tsj_node_new(c, TSJ_KIND_CONST, "prim", "Constant", 0, 1, 0);
    if (!n)
        return NULL;
    n->cv = cv;
    n->out[0].type = t;
    return n;
}

int tsj_const_eq(const tsj_const *a, const tsj_const *b)
{
    uint32_t i;
    if (a == b)
        return 1;
    if (!a || !b || a->k != b->k)
        return 0;
    switch (a->k) {
    case TSJ_CONST_NONE: return 1;
    case TSJ_CONST_BOOL: case TSJ_CONST_INT: return a->i == b->i;
    case TSJ_CONST_FLOAT: return a->f == b->f;
    case TSJ_CONST_STR: case TSJ_CONST_DEVICE:
        return a->slen == b->slen && memcmp(a->s, b->s, a->slen) == 0;
    case TSJ_CONST_TUPLE:
        if (a->n != b->n)
            return 0;
        for (i = 0; i < a->n; i++)
            if (!tsj_const_eq(a->el[i], b->el[i]))
                return 0;
        return 1;
    case TSJ_CONST_FUNC: return a->fn == b->fn;
    default: return 0;
    }
}

/* ---- copying (inlining) ---- */

typedef struct cp {
    ts_ctx *c;
    uint32_t stamp;
    tsj_frame *base;
} cp;

static tsj_value *map_val(cp *k, tsj_value *v)
{
    v = tsj_resolve(v);
    if (v && v->cstamp == k->stamp)
        return v->copy;
    return v; /* not from the source graph: shared (cannot happen for well-formed graphs) */
}

static int map_frame(cp *k, tsj_frame *f, tsj_frame **out)
{
    tsj_frame *n;
    int rc;
    if (!f) {
        *out = k->base;
        return OPMAP_OK;
    }
    if (f->cstamp == k->stamp) {
        *out = f->copy;
        return OPMAP_OK;
    }
    if (!(n = om_arena_alloc(&k->c->tmp, sizeof(*n))))
        return ts_oom(k->c);
    n->label = f->label;
    n->what = f->what;
    if ((rc = map_frame(k, f->parent, &n->parent)))
        return rc;
    n->depth = n->parent ? n->parent->depth + 1 : 1;
    if (n->depth > k->c->lim->max_depth)
        return ts_fail(k->c, OPMAP_ELIMIT, NULL, 0, 0,
                       "TorchScript submodule calls nested deeper than max_depth (%" PRIu32 ")",
                       k->c->lim->max_depth);
    f->cstamp = k->stamp;
    f->copy = n;
    *out = n;
    return OPMAP_OK;
}

static int copy_block(cp *k, const tsj_block *src, tsj_block *dst);

static tsj_node *copy_node(cp *k, const tsj_node *s)
{
    tsj_node *n = tsj_node_new(k->c, s->kind, s->ns, s->op, s->n_in, s->n_out, s->n_blk);
    uint32_t i;
    if (!n)
        return NULL;
    n->cv = s->cv;
    n->name = s->name;
    n->label = s->label;
    n->callee = s->callee;
    n->ty = s->ty;
    n->kw = s->kw;
    n->n_kw = s->n_kw;
    n->file = s->file;
    n->line = s->line;
    for (i = 0; i < s->n_in; i++)
        n->in[i] = map_val(k, s->in[i]);
    for (i = 0; i < s->n_out; i++) {
        n->out[i].type = s->out[i].type;
        s->out[i].cstamp = k->stamp;
        s->out[i].copy = &n->out[i];
    }
    if (map_frame(k, s->frame, &n->frame) != OPMAP_OK)
        return NULL;
    for (i = 0; i < s->n_blk; i++)
        if (copy_block(k, s->blk[i], n->blk[i]) != OPMAP_OK)
            return NULL;
    return n;
}

static int copy_block(cp *k, const tsj_block *src, tsj_block *dst)
{
    const tsj_node *s;
    uint32_t i;
    if (src->n_params) {
        if (!(dst->params = om_arena_array(&k->c->tmp, src->n_params, sizeof(tsj_value *))))
            return ts_oom(k->c);
        dst->n_params = src->n_params;
        for (i = 0; i < src->n_params; i++) {
            tsj_value *v = tsj_param_new(k->c, src->params[i]->type);
            if (!v)
                return ts_oom(k->c);
            dst->params[i] = v;
            src->params[i]->cstamp = k->stamp;
            src->params[i]->copy = v;
        }
    }
    for (s = src->head; s; s = s->next) {
        tsj_node *n = copy_node(k, s);
        if (!n)
            return k->c->rc ? k->c->rc : ts_oom(k->c);
        tsj_append(dst, n);
    }
    if (src->n_rets) {
        if (!(dst->rets = om_arena_array(&k->c->tmp, src->n_rets, sizeof(tsj_value *))))
            return ts_oom(k->c);
        dst->n_rets = src->n_rets;
        for (i = 0; i < src->n_rets; i++)
            dst->rets[i] = map_val(k, src->rets[i]);
    }
    return OPMAP_OK;
}

int tsj_inline_copy(ts_ctx *c, const tsj_graph *src, tsj_node *at, tsj_value **args,
                    uint32_t n_args, tsj_frame *frame, tsj_value ***outs)
{
    cp k;
    const tsj_block *top = src->top;
    tsj_value **o;
    uint32_t i;
    const tsj_node *s;
    k.c = c;
    k.stamp = ++c->stamp;
    k.base = frame;
    if (n_args != top->n_params)
        return ts_fail(c, OPMAP_EINTERNAL, NULL, 0, 0, "inlining with %u arguments for %u "
                       "parameters", (unsigned)n_args, (unsigned)top->n_params);
    for (i = 0; i < n_args; i++) {
        top->params[i]->cstamp = k.stamp;
        top->params[i]->copy = tsj_resolve(args[i]);
    }
    for (s = top->head; s; s = s->next) {
        tsj_node *n = copy_node(&k, s);
        if (!n)
            return c->rc ? c->rc : ts_oom(c);
        tsj_insert_before(at, n);
    }
    if (!(o = om_arena_array(&c->tmp, top->n_rets ? top->n_rets : 1, sizeof(*o))))
        return ts_oom(c);
    for (i = 0; i < top->n_rets; i++)
        o[i] = map_val(&k, top->rets[i]);
    *outs = o;
    return OPMAP_OK;
}

int tsj_side_effects(const tsj_node *n)
{
    return tsj_kind_side_effects(n->ns, n->op);
}

int tsj_mutates(const tsj_node *n)
{
    uint16_t i;
    if (n->kind == TSJ_KIND_SETATTR)
        return 1;
    if (tsj_kind_mutable(n->ns, n->op)) {
        /* list.sort() mutates, Tensor.sort() does not */
        if (strcmp(n->op, "sort") == 0 || strcmp(n->op, "pop") == 0 ||
            strcmp(n->op, "remove") == 0 || strcmp(n->op, "clear") == 0 ||
            strcmp(n->op, "reverse") == 0 || strcmp(n->op, "insert") == 0) {
            const tsj_value *v = n->n_in ? tsj_input(n, 0) : NULL;
            return v && v->type && (v->type->k == TY_LIST || v->type->k == TY_DICT);
        }
        return 1;
    }
    for (i = 0; i < n->n_kw; i++)
        if (strcmp(n->kw[i], "out") == 0)
            return 1;
    return 0;
}
