/*
 * estimate/registry_row.h - what a registry report keeps of a model and of a distinct
 * operator (docs/reports.md, "Registry"): numbers enough to write the totals, the
 * portfolio and the headline over every model again without any model's result, so that
 * registry reports merge as their models' results would.
 */
#ifndef OM_REGISTRY_ROW_H
#define OM_REGISTRY_ROW_H

#include <opmap/scan.h>

#include "estimate.h"

/* Distinct phrases of what an operator becomes on Ascend kept per operator: past them the
 * rest are left out, by the writer and the merge alike (so both say the same). */
#define OM_REG_BECOMES_MAX 8

/* One model: its estimate, its counts, what its headline is computed from, its findings. */
typedef struct om_reg_row {
    const char *file;
    int verdict;                 /* an opmap_readiness, under the report's rule */
    unsigned coverage;           /* thousandths */
    opmap_effort effort;         /* the model's own estimate (effort_total) */
    uint64_t operators[OPMAP_OP_STATUS_COUNT], instances[OPMAP_OP_STATUS_COUNT];
    unsigned found;              /* OPMAP_FAIL_* kinds found, waivers ignored */
    uint64_t placed, on_npu, largest;   /* the segments' (opmap_segments) */
    uint64_t findings, failing;  /* the gate's findings of the model, and those that fail */
} om_reg_row;

/* One distinct operator over the models (the portfolio's entry) and what it becomes. */
typedef struct om_reg_op {
    om_estimate_op op;           /* domain, name, worst status, flags, instances, effort */
    uint32_t models;
    uint64_t budget;             /* expected effort before device results (--max-effort) */
    const char *becomes[OM_REG_BECOMES_MAX];
    size_t n_becomes;
} om_reg_op;

/* The columns of a model's row and of an operator's, in order (the report names them once,
 * in "columns"); by-status arrays go from the worst status (unmapped) to structural. */
enum { OM_REG_MODEL_COLUMNS = 12, OM_REG_OP_COLUMNS = 9 };
const char *om_reg_model_column(size_t i);
const char *om_reg_op_column(size_t i);

#endif /* OM_REGISTRY_ROW_H */
