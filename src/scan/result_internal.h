/*
 * scan/result_internal.h - what a scan result holds. Everything is copied into the
 * result's arena, so it outlives the model and the table it came from.
 */
#ifndef OM_RESULT_INTERNAL_H
#define OM_RESULT_INTERNAL_H

#include <opmap/scan.h>

#include "../core/mem.h"
#include "../ir/ir.h"

struct opmap_op {
    const char *domain, *name;
    int64_t opset, since;
    int status;
    unsigned flags;
    uint64_t instances;
    opmap_effort effort;
    const opmap_row *row;
    const char *notes, *hint, *ascend_op, *engine;
    const char **sources;
    size_t n_sources;
    const char **paths;
    size_t n_paths;
    om_vec path_vec;      /* const char*, while scanning */
    const void *key_domain, *key_op;  /* model's interned pointers, while scanning */
};

typedef struct om_diag {
    int level;
    const char *message;
    const char *where;
} om_diag;

typedef struct om_ext_ref {
    const char *tensor, *location;
    uint64_t offset, length;
    int has_length;
} om_ext_ref;

struct opmap_result {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;
    /* the model */
    const char *model_name;
    opmap_format format;
    int64_t ir_version, model_version;
    const char *producer_name, *producer_version, *model_domain;
    ir_opset *opsets;
    size_t n_opsets;
    opmap_model_stats stats;
    ir_value *inputs, *outputs;     /* main graph inputs that are not initializers */
    size_t n_inputs, n_outputs;
    om_ext_ref *ext;
    size_t n_ext;
    /* the table */
    const char *table_origin, *table_name, *table_version;
    /* findings */
    opmap_op **ops;
    size_t n_ops;
    opmap_summary summary;
    om_vec diags;  /* om_diag */
};

#endif /* OM_RESULT_INTERNAL_H */
