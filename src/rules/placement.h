/*
 * rules/placement.h - where one operator instance runs: on the NPU, beside it (plumbing that
 * never splits the graph), or off it (a breaker of an NPU segment, see segments.h).
 */
#ifndef OM_PLACEMENT_H
#define OM_PLACEMENT_H

#include "ir/ir.h"
#include "segments.h"

/* OM_PLACE_* of an instance of node n, whose operator runs on `engine` (the table's
 * engine: "ai_core", "ai_cpu", "host", "cpu_fallback", or "") with status `status`. */
int om_placement(const char *engine, const ir_node *n, int status);

/* Why an instance with that engine and status breaks a segment, in a phrase. */
const char *om_break_why(const char *engine, int status);

#endif /* OM_PLACEMENT_H */
