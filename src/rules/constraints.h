/*
 * rules/constraints.h - one table constraint against one operator instance.
 *
 * Conditions read the instance's attributes (with the table's default when one is absent),
 * whether an input is a constant, and the rank and dtype facts of ir/values.c. A
 * condition on something unknown (a rank nobody declared) does not hold: opmap reports
 * what it can show, never a guess.
 */
#ifndef OM_CONSTRAINTS_H
#define OM_CONSTRAINTS_H

#include <stddef.h>

#include "ir/ir.h"
#include "table/table_internal.h"

/*
 * 1 when `c` holds for node `n` (each of its conditions, when `when` is a list); then
 * `actual` receives the values that made it hold, e.g. "mode=cubic", "kernel_shape=[300,
 * 300]", "input 1 not constant", "dtype(input 0)=float64", joined by "; ".
 */
int om_constraint_holds(const om_constraint *c, const ir_node *n, char *actual, size_t size);

#endif /* OM_CONSTRAINTS_H */
