/*
 * table/patterns.h - the pattern table (data/patterns.yaml, docs/patterns.md): chains of
 * operators that write out of primitives what a fused NPU kernel does in one (RMSNorm,
 * rotary embedding, attention, SwiGLU, MoE routing, LayerNorm, GELU), each with its torch_npu
 * replacement, the chips that replacement is documented for, and its sources. Internal API.
 */
#ifndef OM_PATTERNS_H
#define OM_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>
#include <opmap/table.h>

#include "core/mem.h"
#include "data_load.h"

#define OM_PAT_MAX_STEPS 16    /* steps of a chain */
#define OM_PAT_MAX_ALTS 8      /* operators one step may be */
#define OM_PAT_MAX_PAIRS 4     /* shares / other constraints of a chain */

typedef struct om_pat_op {
    const char *domain, *op;   /* "ai.onnx", "Pow"; "aten", "pow" */
} om_pat_op;

typedef struct om_pat_step {
    om_pat_op alts[OM_PAT_MAX_ALTS];
    uint8_t n_alts;
    uint8_t optional;          /* `?`: the chain may go without it */
} om_pat_step;

typedef struct om_pat_chain {
    om_pat_step steps[OM_PAT_MAX_STEPS];
    uint8_t n_steps;
    uint8_t shares[OM_PAT_MAX_PAIRS][2];  /* steps a and b read one value */
    uint8_t n_shares;
    uint8_t other_step[OM_PAT_MAX_PAIRS]; /* the step has an input (not its chain input) ... */
    om_pat_step other[OM_PAT_MAX_PAIRS];  /* ... made by one of these */
    uint8_t n_other;
} om_pat_chain;

/* What a training scan advises instead (`training:`), where it differs: each field NULL
 * (n 0) when the pattern's own one holds for training too. */
typedef struct om_pat_training {
    const char *replacement, *hint;
    const char **kernels;      /* "npu::npu_moe_gating_top_k": the table rows it calls */
    size_t n_kernels;
    const char **chips;
    size_t n_chips;
    uint8_t given;             /* the pattern has a `training:` mapping */
} om_pat_training;

typedef struct om_pattern {
    const char *id, *name, *replacement, *atc, *hint, *notes, *curated;
    const char **kernels;      /* the table rows the replacement calls ("npu::npu_rms_norm"):
                                  a training scan checks each has a backward */
    size_t n_kernels;
    om_pat_training training;
    om_pat_op *skip;           /* operators walked through (casts) */
    size_t n_skip;
    om_pat_chain *chains;
    size_t n_chains;
    const char **chips;        /* chip families the replacement is documented for (NULL: any) */
    size_t n_chips;
    opmap_effort weight;       /* once per model that has the pattern */
    const char **sources;
    size_t n_sources;
    uint8_t grade;
} om_pattern;

typedef struct om_patterns {
    om_data_file f;            /* first: its budget, arena and name */
    om_data_source *sources;
    size_t n_sources;
    om_pattern *patterns;
    size_t n_patterns;
} om_patterns;

/* Strict load (errors name file:line:column); *out is NULL on failure. */
int om_patterns_load_memory(om_patterns **out, opmap_ctx *ctx, const void *data, size_t size,
                            const char *name, opmap_error *err);
/* The built-in patterns (data/patterns.yaml embedded at build time). */
int om_patterns_default(om_patterns **out, opmap_ctx *ctx, opmap_error *err);
void om_patterns_free(om_patterns *p);

#endif /* OM_PATTERNS_H */
