/*
 * scan/result_estimate.h - results as the estimate sees them (result_estimate.c).
 */
#ifndef OM_RESULT_ESTIMATE_H
#define OM_RESULT_ESTIMATE_H

#include "estimate/portfolio.h"
#include "result_internal.h"

/* What the estimate needs of a distinct operator (strings borrowed from the result). */
om_estimate_op om_result_estimate_op(const opmap_op *op);

/* The portfolio over `count` results (om_portfolio_free with the same mem); OPMAP_ENOMEM. */
int om_result_portfolio(const opmap_result *const *results, size_t count, om_mem *mem,
                        om_portfolio *out);
/* ... with `unverified`, each operator at its effort before device results narrowed it
 * (the gate's budget: results are evidence for the report, not for --max-effort). */
int om_result_portfolio_as(const opmap_result *const *results, size_t count, om_mem *mem,
                           om_portfolio *out, int unverified);

#endif /* OM_RESULT_ESTIMATE_H */
