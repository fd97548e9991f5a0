/*
 * estimate/estimate.c - person-day totals (see estimate.h).
 */
#include "estimate.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

void om_effort_add(opmap_effort *acc, opmap_effort e)
{
    acc->min = sat_add(acc->min, e.min);
    acc->expected = sat_add(acc->expected, e.expected);
    acc->max = sat_add(acc->max, e.max);
}

void om_estimate_add(opmap_summary *out, const om_estimate_op *op)
{
    int s = op->status;
    if (s < 0 || s >= OPMAP_OP_STATUS_COUNT)
        return;
    out->operators[s]++;
    out->instances[s] = sat_add(out->instances[s], op->instances);
    out->operators_total++;
    out->instances_total = sat_add(out->instances_total, op->instances);
    if (s == OPMAP_OP_STRUCTURAL)
        return;
    om_effort_add(&out->effort[s], op->effort);
    om_effort_add(&out->effort_total, op->effort);
}
