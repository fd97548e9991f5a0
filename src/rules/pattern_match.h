/*
 * rules/pattern_match.h - the pattern table (table/patterns.h) over a model's instances:
 * at each instance, whether it ends a chain of a pattern, walking back through the
 * producers of its inputs in its own graph (operators of the pattern's `skip` list walked
 * through). Work is bounded per instance (OM_PAT_MAX_WORK producers looked at), so a
 * hostile graph of wide fan-in costs a constant per node; a chain that needs more is no
 * match.
 */
#ifndef OM_PATTERN_MATCH_H
#define OM_PATTERN_MATCH_H

#include <stddef.h>

#include "core/mem.h"
#include "table/patterns.h"
#include "walker/walker.h"

#define OM_PAT_MAX_WORK 4096

typedef struct om_pat_graph om_pat_graph;   /* a graph's producer index */

typedef struct om_pattern_run {
    const om_patterns *t;
    om_mem *mem;
    om_pat_graph **graphs;   /* open addressing by graph pointer */
    size_t cap, used;
} om_pattern_run;

void om_pattern_run_init(om_pattern_run *r, const om_patterns *t, om_mem *mem);
void om_pattern_run_free(om_pattern_run *r);

/* 1 when the instance ends a chain of pattern p, 0 when not, OPMAP_ENOMEM. */
int om_pattern_match(om_pattern_run *r, const om_pattern *p, const om_visit *v);

#endif /* OM_PATTERN_MATCH_H */
