/*
 * estimate/estimate.h - person-day totals over distinct operators.
 *
 * Adapting an operator once serves every instance of it, so effort is summed per distinct
 * operator (domain, name, opset), never per instance; instance counts are shown beside.
 * Structural operators are counted but never estimated. Arithmetic is in thousandths of a
 * person-day, in integers: the same model gives the same digits everywhere.
 */
#ifndef OM_ESTIMATE_H
#define OM_ESTIMATE_H

#include <opmap/scan.h>

/* Fills `out` from the distinct operators (each with status, instances and effort set). */
void om_estimate_summary(opmap_op *const *ops, size_t n, opmap_summary *out);

/* Adds e to acc, saturating instead of wrapping. */
void om_effort_add(opmap_effort *acc, opmap_effort e);

#endif /* OM_ESTIMATE_H */
