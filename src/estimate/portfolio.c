/*
 * estimate/portfolio.c - several models estimated together (see portfolio.h), built one
 * model at a time: a hash index of the distinct operators, so memory follows them, not
 * the models.
 */
#include "portfolio.h"

#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

static int port_cmp(const void *a, const void *b)
{
    const om_port_op *x = a, *y = b;
    int c;
    if (x->status != y->status)
        return x->status > y->status ? -1 : 1;
    if (x->models != y->models)
        return x->models > y->models ? -1 : 1;
    if (x->instances != y->instances)
        return x->instances > y->instances ? -1 : 1;
    if ((c = strcmp(x->domain, y->domain)))
        return c;
    return strcmp(x->name, y->name);
}

void om_portfolio_begin(om_portfolio *p, om_mem *mem, int copy)
{
    memset(p, 0, sizeof(*p));
    p->mem = mem;
    p->copy = copy;
    om_arena_init(&p->strings, mem, 4096); /* names: a few KB, in budgets of 256 KB too */
}

/* Room for `more` operators: ops grown, the index at a load of at most one half. */
static int grow(om_portfolio *p, size_t more)
{
    size_t need = p->n + more, cap = p->cap ? p->cap : 16, i;
    if (need > p->allocated) {
        size_t n = p->allocated ? p->allocated : 16;
        om_port_op *ops;
        while (n < need)
            n *= 2;
        if (!(ops = om_calloc(p->mem, n, sizeof(*ops))))
            return OPMAP_ENOMEM;
        if (p->ops) {
            memcpy(ops, p->ops, p->n * sizeof(*ops));
            om_dealloc(p->mem, p->ops, p->allocated * sizeof(*ops));
        }
        p->ops = ops;
        p->allocated = n;
    }
    while (cap < need * 2)
        cap *= 2;
    if (cap != p->cap) {
        size_t *index = om_calloc(p->mem, cap, sizeof(*index));
        if (!index)
            return OPMAP_ENOMEM;
        for (i = 0; i < p->n; i++) {
            size_t k = om_hash_key(p->ops[i].domain, p->ops[i].name) & (cap - 1);
            while (index[k])
                k = (k + 1) & (cap - 1);
            index[k] = i + 1;
        }
        if (p->index)
            om_dealloc(p->mem, p->index, p->cap * sizeof(*index));
        p->index = index;
        p->cap = cap;
    }
    return OPMAP_OK;
}

/* s, or its copy when the portfolio outlives the models. */
static const char *keep(om_portfolio *p, const char *s)
{
    return !p->copy || !s ? s : om_arena_strdup(&p->strings, s);
}

/* One distinct operator of `models` models into the union (grown for it already). */
static int add_op(om_portfolio *p, const om_estimate_op *op, uint32_t models)
{
    size_t k = om_hash_key(op->domain, op->name) & (p->cap - 1);
    om_port_op *x;
    while (p->index[k]) {
        x = &p->ops[p->index[k] - 1];
        if (strcmp(x->domain, op->domain) == 0 && strcmp(x->name, op->name) == 0)
            break;
        k = (k + 1) & (p->cap - 1);
    }
    if (!p->index[k]) {
        x = &p->ops[p->n];
        if (!(x->domain = keep(p, op->domain)) || !(x->name = keep(p, op->name)))
            return OPMAP_ENOMEM;
        x->status = -1;
        p->index[k] = ++p->n;
    }
    x = &p->ops[p->index[k] - 1];
    if (op->status > x->status) {
        x->status = op->status;
        x->effort = op->effort;
        if ((op->ascend_op && !(x->ascend_op = keep(p, op->ascend_op))) ||
            (op->engine && !(x->engine = keep(p, op->engine))) ||
            (op->hint && !(x->hint = keep(p, op->hint))))
            return OPMAP_ENOMEM;
        if (!op->ascend_op)
            x->ascend_op = NULL;
        if (!op->engine)
            x->engine = NULL;
        if (!op->hint)
            x->hint = NULL;
    }
    x->flags |= op->flags;
    x->instances += op->instances;
    x->models = x->models > UINT32_MAX - models ? UINT32_MAX : x->models + models;
    return OPMAP_OK;
}

int om_portfolio_add(om_portfolio *p, const om_portfolio_model *m)
{
    size_t j;
    om_effort_add(&p->separately, m->own);
    if (m->n && grow(p, m->n) != OPMAP_OK)
        return OPMAP_ENOMEM;
    for (j = 0; j < m->n; j++)
        if (add_op(p, &m->ops[j], 1) != OPMAP_OK)
            return OPMAP_ENOMEM;
    return OPMAP_OK;
}

int om_portfolio_add_union(om_portfolio *p, const om_estimate_op *op, uint32_t models)
{
    if (grow(p, 1) != OPMAP_OK)
        return OPMAP_ENOMEM;
    return add_op(p, op, models);
}

void om_portfolio_end(om_portfolio *p)
{
    size_t i;
    if (p->index)
        om_dealloc(p->mem, p->index, p->cap * sizeof(*p->index));
    p->index = NULL;
    p->cap = 0;
    if (p->n)
        qsort(p->ops, p->n, sizeof(*p->ops), port_cmp);
    memset(&p->summary, 0, sizeof(p->summary));
    for (i = 0; i < p->n; i++) { /* the union, summed as one model's operators are */
        om_estimate_op e = { 0 };
        e.status = p->ops[i].status;
        e.instances = p->ops[i].instances;
        e.effort = p->ops[i].effort;
        om_estimate_add(&p->summary, &e);
    }
}

int om_portfolio_build(const om_portfolio_model *models, size_t count, om_mem *mem,
                       om_portfolio *out)
{
    size_t i, total = 0;
    om_portfolio_begin(out, mem, 0);
    for (i = 0; i < count; i++)
        total += models[i].n;
    if (total && grow(out, total) != OPMAP_OK) { /* once, at the size the union can reach */
        om_portfolio_free(out, mem);
        return OPMAP_ENOMEM;
    }
    for (i = 0; i < count; i++)
        if (om_portfolio_add(out, &models[i]) != OPMAP_OK) {
            om_portfolio_free(out, mem);
            return OPMAP_ENOMEM;
        }
    om_portfolio_end(out);
    return OPMAP_OK;
}

void om_portfolio_free(om_portfolio *p, om_mem *mem)
{
    if (p->ops)
        om_dealloc(mem, p->ops, p->allocated * sizeof(*p->ops));
    if (p->index)
        om_dealloc(mem, p->index, p->cap * sizeof(*p->index));
    if (p->mem)
        om_arena_free(&p->strings);
    memset(p, 0, sizeof(*p));
}
