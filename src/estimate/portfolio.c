/*
 * estimate/portfolio.c - several models estimated together (see portfolio.h).
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

int om_portfolio_build(const om_portfolio_model *models, size_t count, om_mem *mem,
                       om_portfolio *out)
{
    size_t total = 0, cap = 16, i, j, n = 0;
    size_t *index;
    om_port_op *ops;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < count; i++) {
        total += models[i].n;
        om_effort_add(&out->separately, models[i].own);
    }
    if (!total)
        return OPMAP_OK;
    while (cap < total * 2)
        cap *= 2;
    ops = om_calloc(mem, total, sizeof(*ops));
    index = om_calloc(mem, cap, sizeof(*index)); /* 0 = empty, else op index + 1 */
    if (!ops || !index) {
        if (ops)
            om_dealloc(mem, ops, total * sizeof(*ops));
        if (index)
            om_dealloc(mem, index, cap * sizeof(*index));
        return OPMAP_ENOMEM;
    }
    for (i = 0; i < count; i++) {
        for (j = 0; j < models[i].n; j++) {
            const om_estimate_op *op = &models[i].ops[j];
            size_t k = om_hash_key(op->domain, op->name) & (cap - 1);
            om_port_op *p;
            while (index[k]) {
                p = &ops[index[k] - 1];
                if (strcmp(p->domain, op->domain) == 0 && strcmp(p->name, op->name) == 0)
                    break;
                k = (k + 1) & (cap - 1);
            }
            if (!index[k]) {
                index[k] = ++n;
                p = &ops[n - 1];
                p->domain = op->domain;
                p->name = op->name;
                p->status = -1;
            }
            p = &ops[index[k] - 1];
            if (op->status > p->status) {
                p->status = op->status;
                p->effort = op->effort;
                p->ascend_op = op->ascend_op;
                p->engine = op->engine;
                p->hint = op->hint;
            }
            p->flags |= op->flags;
            p->instances += op->instances;
            p->models++;
        }
    }
    om_dealloc(mem, index, cap * sizeof(*index));
    qsort(ops, n, sizeof(*ops), port_cmp);
    for (i = 0; i < n; i++) { /* the union, summed as one model's operators are */
        om_estimate_op e = { 0 };
        e.status = ops[i].status;
        e.instances = ops[i].instances;
        e.effort = ops[i].effort;
        om_estimate_add(&out->summary, &e);
    }
    out->ops = ops;
    out->n = n;
    out->allocated = total;
    return OPMAP_OK;
}

void om_portfolio_free(om_portfolio *p, om_mem *mem)
{
    if (p->ops)
        om_dealloc(mem, p->ops, p->allocated * sizeof(*p->ops));
    memset(p, 0, sizeof(*p));
}
