/*
 * estimate/estimate.h - person-day totals over distinct operators.
 *
 * Adapting an operator once serves every instance of it, so effort is summed per distinct
 * operator (domain, name, opset), never per instance; instance counts are shown beside.
 * Structural operators are counted but never estimated. Arithmetic is in thousandths of a
 * person-day, in integers: the same model gives the same digits everywhere.
 *
 * The estimate knows nothing of scans: callers hand it what it needs of each distinct
 * operator (om_estimate_op), so it sits below the scan that feeds it.
 */
#ifndef OM_ESTIMATE_H
#define OM_ESTIMATE_H

#include <opmap/scan.h>

/* What the estimate needs of one distinct operator. Strings are borrowed from the caller
 * and only carried through to the portfolio, for reports. */
typedef struct om_estimate_op {
    const char *domain, *name;
    int status;                  /* an opmap_op_status_code; others are left out */
    unsigned flags;              /* OPMAP_FLAG_* */
    uint64_t instances;
    opmap_effort effort;         /* adapting it once */
    const char *ascend_op, *engine, *hint;
} om_estimate_op;

/* Adds one distinct operator to `out`. */
void om_estimate_add(opmap_summary *out, const om_estimate_op *op);

/* Adds e to acc, saturating instead of wrapping. */
void om_effort_add(opmap_effort *acc, opmap_effort e);

#endif /* OM_ESTIMATE_H */
