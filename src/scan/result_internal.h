/*
 * scan/result_internal.h - what a scan result holds. Everything is copied into the
 * result's arena, so it outlives the model and the table it came from.
 */
#ifndef OM_RESULT_INTERNAL_H
#define OM_RESULT_INTERNAL_H

#include <opmap/scan.h>

#include "core/mem.h"
#include "ir/ir.h"
#include "rules/segments.h"

/* Why an operator is not simply "full": a constraint that fired, a dtype a chip lacks. */
typedef struct om_reason {
    const char *message;      /* the table's message */
    const char *actual;       /* the value that made it hold, e.g. "mode=cubic" */
    int status;               /* the status it leads to, or -1 (flag only) */
    unsigned flag;            /* OPMAP_FLAG_* or 0 */
    uint64_t chips;           /* bit i: the result's chip i */
    uint64_t instances;
    const char *example;      /* the first instance's node path */
    uint8_t grade;            /* OM_GRADE_* of the fact behind it (0: none) */
    const char *sources;      /* its source ids, comma-separated ("" when none) */
} om_reason;

#define OM_MAX_REASONS 64     /* distinct reasons kept per operator */

struct opmap_op {
    const char *domain, *name;
    int64_t opset, since;
    int status;               /* worst over the chips scanned for */
    unsigned flags;
    uint64_t instances;
    opmap_effort effort;
    const opmap_row *row;
    const char *notes, *hint, *ascend_op, *aclnn, *api, *engine;
    const char *becomes;      /* what it ends as on Ascend, for reports (see new_op) */
    const char *becomes_how;  /* the row's ascend.how, or "" */
    const char **sources;
    size_t n_sources;
    const char **paths;
    const char **locations;   /* "file.py:12" per path (NULL where unknown), or NULL */
    size_t n_paths;
    int *chip_status;         /* per chip of the result */
    uint8_t *chip_unknown;    /* per chip: the table says nobody published an answer */
    size_t n_chips;           /* of the result: bounds opmap_op_chip() */
    uint8_t unpublished;      /* some chip scanned for has no published answer */
    uint8_t all_unknown;      /* ... and none has: the status is the row's general answer */
    const char *exported_as;  /* "org.pytorch.aten::ATen" for an ATen fallback node, or "" */
    uint8_t source;           /* a source rule's finding (domain "py"; row is NULL) */
    uint8_t grade;            /* ... its evidence grade, OM_GRADE_* */
    uint8_t sr_status;        /* ... the rule's status, OM_SR_* (table/source_rules.h) */
    uint32_t dtypes_seen;     /* bit per dtype of input 0 over the instances (bit 0: unknown) */
    om_reason *reasons;
    size_t n_reasons;
    uint64_t reasons_dropped; /* distinct reasons beyond OM_MAX_REASONS */
    /* while scanning */
    om_vec path_vec;          /* const char* */
    om_vec loc_vec;           /* const char*, parallel to path_vec, once a location is known */
    om_vec reason_vec;        /* om_reason */
    const void *key_domain, *key_op;  /* the model's interned pointers */
};

typedef struct om_diag {
    int level;
    const char *message;
    const char *where;
} om_diag;

typedef struct om_risk {
    const char *kind;         /* "dynamic_shape", "dtype", "rng", "precision", ... */
    int level;                /* OPMAP_DIAG_* */
    int from_flag;            /* restates an operator's risk flag (the gate has it already) */
    const char *message;
    const char *where;
} om_risk;

#define OM_MAX_RISKS 200
/* Calls left in a graph printed without inlining: one diagnostic each, up to this many. */
#define OM_MAX_CALL_NOTES 100
#define OM_NOT_INLINED "not inlined: print `module.inlined_graph` for its operators"

/* Advice that applies to the model (docs/table-format.md, "Advice"). */
typedef struct om_advice {
    const char *id, *message, *action;
    const char *value;        /* what matched */
    const char *where;        /* the first match's node path */
    uint64_t count;
    uint8_t grade;
    uint8_t optional;         /* a performance/precision option, not needed to convert */
    const char *sources;      /* source ids, comma-separated */
    const char *recipes;      /* recipe paths, "; "-separated */
} om_advice;

/* A chip of the result: the part asked for and the parts of its family (about.soc_parts). */
typedef struct om_chip {
    const char *part;         /* "Ascend910B3" as the table spells it, or NULL: a family */
    const char **parts;       /* the family's parts, or NULL when the table names none */
    size_t n_parts;
} om_chip;

typedef struct om_ext_ref {
    const char *tensor, *location;
    uint64_t offset, length;
    int has_length;
    int check;                /* IR_EXT_* */
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
    /* the table and the chips answered for */
    const char *table_origin, *table_name, *table_version, *torch_npu, *cann;
    const char *tnpu_target;  /* opmap_scan_options.torch_npu as given, or "" */
    int mode;                 /* opmap_scan_options.mode: OPMAP_MODE_EAGER or _GRAPH */
    const char *tnpu_needed;  /* newest torch_npu.min of the rows matched, or "" */
    const char *tnpu_needed_by; /* "domain::name" of the first op (report order) needing it */
    const char **chips;
    om_chip *chip_info;       /* per chip, parallel to chips */
    size_t n_chips;
    /* findings */
    opmap_op **ops;
    size_t n_ops;
    opmap_summary summary;
    uint64_t unpublished_ops; /* distinct operators with an unpublished chip answer */
    opmap_effort unpublished_effort; /* verifying them: counted apart from the estimate */
    om_vec diags;             /* om_diag */
    om_vec risks;             /* om_risk */
    om_vec advice;            /* om_advice */
    uint64_t risks_dropped;
    uint64_t calls;           /* calls a graph printed without inlining leaves (risks.c) */
    const char *first_call;   /* where the first one is */
    om_segments segments;
    /* Python sources (OPMAP_FORMAT_PYTHON): the files read, their lines, the files that
     * did not parse (each a diagnostic) */
    uint64_t src_files, src_lines, src_not_read;
};

/* An empty result on the context's budget, as opmap_scan() and the report reader
 * (merge/) start one; freed with opmap_result_free(). NULL when memory ran out. */
opmap_result *om_result_new(opmap_ctx *ctx);

#endif /* OM_RESULT_INTERNAL_H */
