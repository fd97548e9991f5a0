/*
 * report/registry.h - the registry report (registry.c; docs/reports.md, "Registry"): a
 * row per model and per distinct operator, the totals, the portfolio and the gate's
 * counts, built one model at a time. Memory follows the distinct operators; the rows go
 * to a spool as they are made.
 */
#ifndef OM_REPORT_REGISTRY_H
#define OM_REPORT_REGISTRY_H

#include <opmap/policy.h>
#include <opmap/report.h>

#include "core/out.h"

typedef struct om_registry om_registry;

typedef struct om_registry_opts {
    unsigned flags;
    double day_rate;
    const char *currency;
    unsigned blocked_on, needs_work_on;   /* the headline's rule, 0: the defaults */
    const opmap_policy *policy;           /* the gate (copied), NULL: the default */
    const char *spool_dir;                /* NULL: the rows are kept in memory */
} om_registry_opts;

int om_registry_new(om_registry **out, opmap_ctx *ctx, const om_registry_opts *o,
                    opmap_error *err);
/* One more model, in the report's order. The result stays the caller's; the first one
 * taken is borrowed until the registry is freed (it names the table and the chips). */
int om_registry_take(om_registry *g, const opmap_result *r, opmap_error *err);
/* The models and operators of the registry report `path` (opmap merge), its files not read
 * into `set`. A registry takes results or registry reports, not both. */
int om_registry_read(om_registry *g, opmap_report_set *set, const char *path, opmap_error *err);
/* The files not read (borrowed until it is freed), then the verdict and the headline. */
int om_registry_finish(om_registry *g, const opmap_file_problem *problems, size_t count,
                       opmap_error *err);
/* The report (after finish), into out. */
int om_registry_write(om_registry *g, om_out *out, opmap_error *err);
size_t om_registry_count(const om_registry *g);
const opmap_verdict *om_registry_verdict(const om_registry *g);
/* Every finding of the gate (the models' counted, the verdict's), *failing those that fail. */
size_t om_registry_findings(const om_registry *g, size_t *failing);
void om_registry_free(om_registry *g);

#endif /* OM_REPORT_REGISTRY_H */
