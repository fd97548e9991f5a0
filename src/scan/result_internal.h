/*
 * scan/result_internal.h - what a scan result holds. Everything is copied into the
 * result's arena, so it outlives the model and the table it came from.
 */
#ifndef OM_RESULT_INTERNAL_H
#define OM_RESULT_INTERNAL_H

#include <string.h>

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

/* A device result that matched instances of the operator (opmap/verify.h), copied. */
typedef struct om_verified {
    const char *signature, *chip, *family, *torch_npu, *cann, *standard, *message, *source;
    uint8_t passed;
    double max_abs, max_rel, cpu_ms, device_ms;   /* NaN: not measured */
    uint64_t instances;       /* instances with its signature */
    const char *example;      /* the first one's node path */
} om_verified;

#define OM_MAX_VERIFIED 64    /* device results kept per operator */

struct opmap_op {
    const char *domain, *name;
    int64_t opset, since;
    int status;               /* worst over the chips scanned for */
    unsigned flags;
    uint64_t instances;
    opmap_effort effort;
    /* the effort before device results narrowed it (a verified pass costs its minimum):
     * what the gate's --max-effort counts, since results are evidence for the report only */
    opmap_effort effort_unverified;
    const opmap_row *row;
    const char *notes, *hint, *ascend_op, *aclnn, *api, *engine;
    const char *becomes;      /* what it ends as on Ascend, for reports (see new_op) */
    const char *becomes_how;  /* the row's ascend.how, or "" */
    /* a training scan: the row's backward answer (status "" otherwise) */
    const char *bw_status, *bw_ops, *bw_note;
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
    uint8_t guarded;          /* ... every import of it under try/except ImportError: the
                                 code has a fallback, so it is a note, not a blocker */
    const char *charged_with; /* ... a rule of a group (a CUDA extension) charged with the
                                 group's first finding, named here; NULL otherwise */
    uint32_t dtypes_seen;     /* bit per dtype of input 0 over the instances (bit 0: unknown) */
    om_reason *reasons;
    size_t n_reasons;
    uint64_t reasons_dropped; /* distinct reasons beyond OM_MAX_REASONS */
    /* device results (opmap_scan_options.results): those that matched, the state they
     * give, and the instances that passed on every chip of the result */
    om_verified *verified;
    size_t n_verified;
    uint64_t verified_dropped; /* matched results beyond OM_MAX_VERIFIED */
    uint8_t verify_state;      /* OPMAP_VERIFY_* */
    uint64_t verified_instances;
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
/* The message of a Python source file that was not scanned starts with this (a warning
 * diagnostic, where: file:line:col): one per file, res->src_not_read of them; the gate's
 * source-unscanned findings are read from them (policy/verdict.c). */
#define OM_NOT_SCANNED "not scanned ("

/* 1 when diagnostic d says a source file was not scanned. */
static inline int om_diag_unscanned(const om_diag *d)
{
    return d->level == OPMAP_DIAG_WARNING && d->message &&
           strncmp(d->message, OM_NOT_SCANNED, sizeof(OM_NOT_SCANNED) - 1) == 0;
}

/* Advice that applies to the model (docs/table-format.md, "Advice"). */
typedef struct om_advice {
    const char *id, *message, *action;
    const char *value;        /* what matched */
    const char *where;        /* the first match's node path */
    uint64_t count;
    uint8_t grade;
    uint8_t optional;         /* a performance/precision option, not needed to convert */
    uint8_t custom_op;        /* a CANN custom operator to substitute for a pattern */
    const char *sources;      /* source ids, comma-separated */
    const char *recipes;      /* recipe paths, "; "-separated */
    /* a fused kernel for a pattern of the model (data/patterns.yaml, docs/patterns.md) */
    uint8_t fused;
    opmap_effort effort;      /* replacing it, once for the model: counted apart */
    const char *atc;          /* what ATC does with the ONNX form ("" for other formats) */
    const char **places;      /* every place's node path ... */
    const char **lines;       /* ... and source line (NULL where the model does not say) */
    size_t n_places;
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

/*
 * One entry of the list ATC's ONNX pre-check makes of the main graph (scan/atc_graph.c;
 * docs/reports.md, "ATC pre-check"): a node, a graph input or an initializer, named and
 * typed as ATC's parser names and types it, in its order.
 */
enum { OM_ATC_NODE, OM_ATC_CALL, OM_ATC_INPUT, OM_ATC_INITIALIZER, OM_ATC_KIND_COUNT };
#define OM_ATC_NO_OP ((size_t)-1)

typedef struct om_atc_entry {
    const char *name;         /* the node's name, or <op_type>_<k> for the k-th unnamed node */
    const char *type;         /* "ai.onnx::17::Conv", or bare: "Input", "Constant", "FileConstant" */
    size_t op;                /* OM_ATC_NODE: its operator, an index into ops; else OM_ATC_NO_OP */
    uint8_t kind;             /* OM_ATC_*: CALL is a node calling a function of the model */
    uint8_t repeated;         /* its name is another entry's too: 1 the first, 2 a later one */
} om_atc_entry;

/* Marks the entries whose names repeat (their `repeated`), as scans and merges both leave
 * them; OPMAP_ENOMEM on failure. */
int om_atc_mark_repeated(opmap_result *res);

/* The kind's name in JSON reports ("node", "call", "input", "initializer"), or NULL. */
const char *om_atc_kind_name(int kind);

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
    int workload;             /* OPMAP_WORKLOAD_*: what the result answers for */
    uint8_t workload_narrowed; /* training asked, the model answered for inference (ONNX) */
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
    uint64_t training_reads;  /* TorchScript: reads of a module's training flag taken as
                                 False (ir_model.training_reads_folded) */
    const char *first_call;   /* where the first one is */
    om_segments segments;
    /* Python sources (OPMAP_FORMAT_PYTHON): the files read, their lines, the files that
     * did not parse (each a diagnostic) */
    uint64_t src_files, src_lines, src_not_read;
    /* ONNX models: the main graph as ATC's pre-check lists it (has_atc says it is known;
     * a main graph without inputs lists nothing, as ATC stops before its pre-check) */
    om_atc_entry *atc;
    size_t n_atc;
    uint8_t has_atc;
};

/* An empty result on the context's budget, as opmap_scan() and the report reader
 * (merge/) start one; freed with opmap_result_free(). NULL when memory ran out. */
opmap_result *om_result_new(opmap_ctx *ctx);

#endif /* OM_RESULT_INTERNAL_H */
