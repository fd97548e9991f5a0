/*
 * walker/precount.h - what a walk would do, counted before walking: a small file can
 * describe 2^40 instances or expansions through function calls, and the walk must refuse
 * it in time linear in the file, not after hours (precount.c says how).
 */
#ifndef OM_PRECOUNT_H
#define OM_PRECOUNT_H

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"
#include "ir/ir.h"

/* OPMAP_OK when the walk of m stays within lim's max_nodes and max_expansions; else
 * OPMAP_ELIMIT naming the limit (or a memory error). */
int om_walk_precount(const ir_model *m, const opmap_limits *lim, om_mem *mem, opmap_error *err);

/* The errors a walk over those limits ends with (the walk itself uses them too). */
int om_walk_too_many_expansions(const ir_model *m, const opmap_limits *lim, opmap_error *err);
int om_walk_too_many_instances(const ir_model *m, const opmap_limits *lim, opmap_error *err);

#endif /* OM_PRECOUNT_H */
