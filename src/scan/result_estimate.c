/*
 * scan/result_estimate.c - results handed to the estimate: each distinct operator as the
 * estimate sees it, and the portfolio over several results (public: opmap_portfolio_estimate).
 */
#include <string.h>

#include <opmap/report.h>

#include "core/context.h"
#include "core/err.h"
#include "result_internal.h"
#include "result_estimate.h"

om_estimate_op om_result_estimate_op(const opmap_op *op)
{
    om_estimate_op e;
    e.domain = op->domain;
    e.name = op->name;
    e.status = op->status;
    e.flags = op->flags;
    e.instances = op->instances;
    e.effort = op->effort;
    e.ascend_op = op->source ? op->becomes : op->ascend_op; /* a rule's replacement */
    e.engine = op->engine;
    e.hint = op->hint;
    return e;
}

int om_result_portfolio(const opmap_result *const *results, size_t count, om_mem *mem,
                        om_portfolio *out)
{
    return om_result_portfolio_as(results, count, mem, out, 0);
}

int om_result_portfolio_as(const opmap_result *const *results, size_t count, om_mem *mem,
                           om_portfolio *out, int unverified)
{
    om_portfolio_model *models;
    size_t i, j, done = 0;
    int rc = OPMAP_ENOMEM;
    memset(out, 0, sizeof(*out));
    if (!count)
        return om_portfolio_build(NULL, 0, mem, out);
    if (!(models = om_calloc(mem, count, sizeof(*models))))
        return OPMAP_ENOMEM;
    for (; done < count; done++) {
        om_estimate_op *ops = NULL;
        const opmap_result *r = results[done];
        if (r->n_ops && !(ops = om_calloc(mem, r->n_ops, sizeof(*ops))))
            goto out;
        for (j = 0; j < r->n_ops; j++) {
            ops[j] = om_result_estimate_op(r->ops[j]);
            if (unverified)
                ops[j].effort = r->ops[j]->effort_unverified;
        }
        models[done].ops = ops;
        models[done].n = r->n_ops;
        models[done].own = r->summary.effort_total;
    }
    rc = om_portfolio_build(models, count, mem, out);
out:
    for (i = 0; i < done; i++)
        if (models[i].ops)
            om_dealloc(mem, (void *)models[i].ops, models[i].n * sizeof(*models[i].ops));
    om_dealloc(mem, models, count * sizeof(*models));
    return rc;
}

int opmap_portfolio_estimate(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                             opmap_effort *together, opmap_effort *separately, opmap_error *err)
{
    om_mem mem;
    om_portfolio p;
    size_t i;
    om_err_clear(err);
    if (!ctx || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_portfolio_estimate: NULL argument");
    for (i = 0; i < count; i++)
        if (!results[i])
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_portfolio_estimate: result %zu is NULL",
                           i);
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    if (om_result_portfolio(results, count, &mem, &p) != OPMAP_OK)
        return om_fail_mem(err, &mem, NULL);
    if (together)
        *together = p.summary.effort_total;
    if (separately)
        *separately = p.separately;
    om_portfolio_free(&p, &mem);
    return OPMAP_OK;
}
