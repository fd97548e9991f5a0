/*
 * opmap/scan.h - scanning a model against a table, and reading the result.
 *
 * opmap_scan() walks every operator instance of a model (main graph, every nested subgraph
 * of If/Loop/Scan to any depth, and the bodies of model-local functions at each call, with
 * the call stack in the node path), looks each up in the table and groups the instances per
 * distinct operator. The result owns copies of everything it reports: the model and the
 * table may be freed while the result lives.
 */
#ifndef OPMAP_SCAN_H
#define OPMAP_SCAN_H

#include "common.h"
#include "context.h"
#include "error.h"
#include "model.h"
#include "table.h"

OPMAP_BEGIN_DECL

/** An opaque scan result. */
typedef struct opmap_result opmap_result;

/** One distinct operator of a result (domain, op, opset); borrowed from its result. */
typedef struct opmap_op opmap_op;

/** The current layout of opmap_scan_options (2: torch_npu added; 3: results and mode; 4:
 *  workload; older layouts are still accepted). */
#define OPMAP_SCAN_OPTIONS_VERSION 4

struct opmap_results;

/** How the model will run, which decides what an ATen operator needs (opmap_scan_options.mode,
 *  docs/reports.md, "Graph mode"). */
typedef enum opmap_mode {
    OPMAP_MODE_EAGER = 0,  /**< eagerly, through torch_npu's kernels (the default) */
    OPMAP_MODE_GRAPH = 1   /**< compiled, torch.compile with torchair: an ATen operator of a
                                TorchScript or torch.export model also needs a torchair GE
                                converter that does not raise (the table's `graph:` answers) */
} opmap_mode;

/** @return "eager" or "graph" ("?" if out of range). */
OPMAP_API const char *opmap_mode_name(int mode);

/** What the model is run for (opmap_scan_options.workload, docs/reports.md, "Workload"). */
typedef enum opmap_workload {
    OPMAP_WORKLOAD_INFERENCE = 0, /**< the forward pass only (the default) */
    OPMAP_WORKLOAD_TRAINING = 1   /**< forward and backward: each differentiable ATen
                                       operator of a TorchScript or torch.export model also
                                       needs its backward on the NPU (the table's `backward:`
                                       answers), and fused-kernel advice names only kernels
                                       with a backward. ONNX models are inference graphs:
                                       they are answered for inference, and say so */
} opmap_workload;

/** @return "inference" or "training" ("?" if out of range). */
OPMAP_API const char *opmap_workload_name(int workload);

/** Options for opmap_scan(); initialise with OPMAP_SCAN_OPTIONS_INIT. */
typedef struct opmap_scan_options {
    unsigned version;  /**< OPMAP_SCAN_OPTIONS_VERSION */
    /**
     * The chips to answer for: NULL for the table's default chip (about.default_soc;
     * ascend910b in the built-in table), "all" for every chip the table speaks for, or
     * names separated by commas ("ascend910b,ascend310p"). A name is a family id of the
     * table (about.socs) or one of its exact parts (about.soc_parts: "Ascend910B3"), case
     * aside; a part is answered from its family's row (opmap_result_chip_part names it).
     * With several chips, an operator's status is the worst over them: the model has to
     * run on each.
     */
    const char *soc;
    /** Effort weights replacing the table's for the statuses they set, or NULL. */
    const opmap_weights *weights;
    unsigned reserved; /**< zero */
    /**
     * Version 2: the torch_npu version to answer for ("2.1", "2.6.0", "2.1.0.post3",
     * "v2.6.0rc1"), or NULL for any the table covers. A row whose torch_npu range starts
     * after that version's line (or ends before it) has no NPU kernel there: the operator
     * is rewrite, with a reason naming the first (or last) version that has one. A string
     * that is not a version is OPMAP_EINVAL.
     */
    const char *torch_npu;
    /**
     * Version 3: device results of opmap testgen's tests (opmap/verify.h), or NULL. Each
     * instance whose signature a result names, on a chip of the scan's families, is
     * verified by it: the operator lists the results (opmap_op_verified), and one whose
     * every instance passed on every chip scanned for costs its effort's minimum (the
     * range's risk is gone) and leaves opmap_summary.unpublished (nothing left to verify).
     * Borrowed for the call: the result copies what it reports.
     */
    const struct opmap_results *results;
    /**
     * Version 3 too: an opmap_mode. OPMAP_MODE_GRAPH answers each ATen operator of a
     * TorchScript or torch.export model as the worse of its eager answer and what torchair's
     * converters do with it (a converter that only raises, or none: rewrite; one for some
     * overloads or inputs only: partial), with a reason naming torchair's commit; ONNX
     * models are unchanged. Another value is OPMAP_EINVAL.
     */
    int mode;
    /**
     * Version 4: an opmap_workload. OPMAP_WORKLOAD_TRAINING answers each ATen and npu
     * operator of a TorchScript or torch.export model as the worse of its forward answer and
     * its backward's (a backward operator without an NPU kernel: partial or rewrite, as its
     * row says; an npu operator torch_npu registers no backward for: partial, gradients
     * cannot flow through it), with a reason naming the backward operator; fused-kernel
     * advice then names only kernels with a backward. An ONNX model is answered for
     * inference (opmap_result_workload says so). Another value is OPMAP_EINVAL.
     */
    int workload;
} opmap_scan_options;

/** Initialiser of an opmap_scan_options: the current version, the table's default chip,
 *  eager mode, inference. */
#define OPMAP_SCAN_OPTIONS_INIT                                                            \
    { OPMAP_SCAN_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL, OPMAP_MODE_EAGER,             \
      OPMAP_WORKLOAD_INFERENCE }

/**
 * Scans a model.
 *
 * @param[out] out  receives the result; the caller owns it (opmap_result_free).
 * @param opts      NULL for defaults.
 * @return OPMAP_OK; OPMAP_ELIMIT (nesting or node limits); OPMAP_ENOMEM; OPMAP_EINVAL.
 */
OPMAP_API int opmap_scan(opmap_result **out, opmap_ctx *ctx, const opmap_model *model,
                         const opmap_table *table, const opmap_scan_options *opts,
                         opmap_error *err);

/**
 * Scans Python training code (docs/source-scan.md): every `.py` file's imports, names,
 * calls and string arguments, and every file by its name (`*.cu`), against the built-in
 * source rules (data/source_rules.yaml). The result reads like a model's (format
 * OPMAP_FORMAT_PYTHON, named `project`): each rule found is a distinct operator of domain
 * "py" named by the rule id, with one instance per place ("train.py:12:5 model.cuda", the
 * location "train.py:12:5"); its status is the rule's (unchanged and automatic: full;
 * renamed and manual: partial; rewrite; unknown: unmapped) and its effort the rule's
 * weight, once per project. The table gives the chips and the torch_npu target, as in
 * opmap_scan; opts->weights does not apply (the rules carry their own weights).
 *
 * A `.py` file that does not tokenize (invalid UTF-8, a string never closed) or is over a
 * limit is a warning diagnostic naming file:line:column, and the rest is scanned; a file
 * that cannot be read fails the call (OPMAP_EIO naming it).
 *
 * @param paths  the project's files, in the order given (a caller sorts them).
 * @return OPMAP_OK; OPMAP_EIO; OPMAP_ELIMIT; OPMAP_ENOMEM; OPMAP_EINVAL.
 */
OPMAP_API int opmap_scan_sources(opmap_result **out, opmap_ctx *ctx, const char *project,
                                 const char *const *paths, size_t n_paths,
                                 const opmap_table *table, const opmap_scan_options *opts,
                                 opmap_error *err);

/** A source file in memory, for opmap_scan_sources_memory() (borrowed for the call). */
typedef struct opmap_source_text {
    const char *name;   /**< its path in the project, as reports show it */
    const void *data;
    size_t size;
} opmap_source_text;

/** As opmap_scan_sources(), over files in memory. */
OPMAP_API int opmap_scan_sources_memory(opmap_result **out, opmap_ctx *ctx, const char *project,
                                        const opmap_source_text *files, size_t n_files,
                                        const opmap_table *table,
                                        const opmap_scan_options *opts, opmap_error *err);

/** Releases a result; NULL is a no-op. */
OPMAP_API void opmap_result_free(opmap_result *res);

/** @return the name the scanned model was opened under; borrowed from the result. */
OPMAP_API const char *opmap_result_model_name(const opmap_result *res);
/** @return the format of the scanned model. */
OPMAP_API opmap_format opmap_result_format(const opmap_result *res);
/** @return where the table scanned with came from ("built-in" or its file); borrowed. */
OPMAP_API const char *opmap_result_table_origin(const opmap_result *res);

/** @return the number of chips the result answers for (see opmap_scan_options.soc). */
OPMAP_API size_t opmap_result_chip_count(const opmap_result *res);
/**
 * Chip i's name, into *out (borrowed from the result).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_result_chip(const opmap_result *res, size_t i, const char **out);
/**
 * The exact part chip i was asked for by, into *out: "Ascend910B3" for --soc ascend910b3,
 * spelled as the table's about.soc_parts spells it (its family is opmap_result_chip), or ""
 * when the family itself was named; borrowed from the result.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_result_chip_part(const opmap_result *res, size_t i, const char **out);

/** @return the torch_npu version the table speaks for ("" when it does not say). */
OPMAP_API const char *opmap_result_torch_npu(const opmap_result *res);
/** @return the CANN version the table speaks for ("" when it does not say). */
OPMAP_API const char *opmap_result_cann(const opmap_result *res);
/** @return the torch_npu version the result answers for (opmap_scan_options.torch_npu,
 *  as given), or "" when none was given. */
OPMAP_API const char *opmap_result_torch_npu_target(const opmap_result *res);
/** @return the mode the result answers for, an opmap_mode (opmap_scan_options.mode). */
OPMAP_API int opmap_result_mode(const opmap_result *res);
/** @return the workload the result answers for, an opmap_workload: the one asked for, except
 *  OPMAP_WORKLOAD_INFERENCE for an ONNX model (an inference graph: ATC builds no backward). */
OPMAP_API int opmap_result_workload(const opmap_result *res);
/** @return 1 when training was asked for and the model could only be answered for inference
 *  (an ONNX model), else 0. */
OPMAP_API int opmap_result_workload_narrowed(const opmap_result *res);
/** @return the oldest torch_npu line with a kernel for every operator of the model: the
 *  newest `torch_npu.min` of the rows it matched ("2.6"), or "" when no row has one. */
OPMAP_API const char *opmap_result_torch_npu_needed(const opmap_result *res);
/** @return the operator that sets opmap_result_torch_npu_needed(), "domain::name" (the
 *  first in report order among those that need it), or "" when none does. */
OPMAP_API const char *opmap_result_torch_npu_needed_by(const opmap_result *res);

/** @return the number of distinct operators (structural ones included). */
OPMAP_API size_t opmap_result_op_count(const opmap_result *res);

/**
 * Distinct operator i, into *out (borrowed from the result). Operators are sorted worst
 * status first, then by instance count (descending), domain and name, so output is stable.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_result_op(const opmap_result *res, size_t i, const opmap_op **out);

/** @return the operator's domain: "ai.onnx" for ONNX's default, "aten", "prim", ... */
OPMAP_API const char *opmap_op_domain(const opmap_op *op);
/** @return the operator's name: the ONNX op_type or the ATen/prim name. */
OPMAP_API const char *opmap_op_name(const opmap_op *op);
/** @return the opset in effect for its domain, 0 when unversioned. */
OPMAP_API int64_t opmap_op_opset(const opmap_op *op);
/** @return the matched row's `since`, 0 when none. */
OPMAP_API int64_t opmap_op_since(const opmap_op *op);
/** @return the operator's status, an opmap_op_status_code (the worst over the chips). */
OPMAP_API int opmap_op_status(const opmap_op *op);
/** @return its risk flags, OPMAP_FLAG_* bits. */
OPMAP_API unsigned opmap_op_flags(const opmap_op *op);
/** @return its instances in the model, function calls expanded. */
OPMAP_API uint64_t opmap_op_instances(const opmap_op *op);
/** @return what adapting it costs, once for all its instances. */
OPMAP_API opmap_effort opmap_op_effort(const opmap_op *op);
/** @return the table row used, or NULL when unmapped; borrowed from the table, so valid only
 *  while that table lives. */
OPMAP_API const opmap_row *opmap_op_row(const opmap_op *op);

/** Where one instance of an operator is. Versioned: set `size` (docs/api.md). */
typedef struct opmap_path_info {
    size_t size;            /**< set by the caller: sizeof(opmap_path_info) */
    const char *path;       /**< node path, e.g. "main/If_3/then_branch/Conv_7" */
    const char *location;   /**< the original source line ("model.py:42", from TorchScript
                                 debug info), or NULL when the model does not say */
} opmap_path_info;

/** @return the number of instance paths kept for the operator. */
OPMAP_API size_t opmap_op_path_count(const opmap_op *op);
/**
 * Fills `out` with instance i's path and source line (strings borrowed from the result).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or out->size is too
 *         small.
 */
OPMAP_API int opmap_op_path(const opmap_op *op, size_t i, opmap_path_info *out);

/** @return the row's notes, copied into the result ("" when absent or unmapped). */
OPMAP_API const char *opmap_op_notes(const opmap_op *op);
/** @return the row's migration hint ("" when absent or unmapped). */
OPMAP_API const char *opmap_op_hint(const opmap_op *op);
/** @return the CANN operator the row names ("" when absent or unmapped). */
OPMAP_API const char *opmap_op_ascend_op(const opmap_op *op);
/** @return the engine the row names: "ai_core", "ai_cpu", ... ("" when absent). */
OPMAP_API const char *opmap_op_engine(const opmap_op *op);

/** An operator's backward answer in a training scan (docs/reports.md, "Workload").
 *  Versioned: set `size`; strings borrowed from the result. */
typedef struct opmap_op_backward_info {
    size_t size;          /**< set by the caller: sizeof(opmap_op_backward_info) */
    const char *status;   /**< the row's backward answer: "full", "partial", "rewrite",
                               "missing", "none", "decomposed"; "" in an inference scan or
                               when the row gives none */
    const char *ops;      /**< the backward operators, comma-separated
                               ("aten::convolution_backward"), or "" */
    const char *note;     /**< what the answer rests on, or "" */
} opmap_op_backward_info;

/**
 * Fills `out` with the operator's backward answer.
 * @return OPMAP_OK, or OPMAP_EINVAL when an argument is NULL or out->size is too small.
 */
OPMAP_API int opmap_op_backward(const opmap_op *op, opmap_op_backward_info *out);

/** An operator's answer on one chip of the result. Versioned: set `size`. */
typedef struct opmap_op_chip_info {
    size_t size;   /**< set by the caller: sizeof(opmap_op_chip_info) */
    int status;    /**< the worst status of its instances there (opmap_op_status_code) */
    int unknown;   /**< 1: the table says nobody has published an answer for this chip (the
                        row's general answer was used), else 0 */
} opmap_op_chip_info;

/**
 * Fills `out` with the operator's answer on the result's chip i
 * (0 <= i < opmap_result_chip_count()).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_op_chip(const opmap_op *op, size_t i, opmap_op_chip_info *out);

/** Why an operator is worse than its table row says: a constraint that fired on some
 *  instances, or an input dtype a chip's kernels do not take. Versioned: set `size`;
 *  strings borrowed from the result. */
typedef struct opmap_reason_info {
    size_t size;           /**< set by the caller: sizeof(opmap_reason_info) */
    const char *message;   /**< the table's explanation */
    const char *value;     /**< what made it fire, e.g. "mode=cubic", "dtype(input 0)=float64" */
    int status;            /**< the status it leads to, or -1 when it only adds a flag */
    unsigned flag;         /**< an OPMAP_FLAG_* it adds, or 0 */
    uint64_t chips;        /**< bit i: the result's chip i */
    uint64_t instances;    /**< instances it fired on */
    const char *example;   /**< the node path of the first one */
    const char *grade;     /**< its evidence (docs/table-format.md, "Evidence"): "kernel",
                                "doc", "derived", "practice", or "" when the table gives none */
    const char *sources;   /**< the ids of its sources, comma-separated ("" when none) */
} opmap_reason_info;

/** @return the number of reasons the operator is worse than its row. */
OPMAP_API size_t opmap_op_reason_count(const opmap_op *op);
/**
 * Fills `out` with reason i.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_op_reason(const opmap_op *op, size_t i, opmap_reason_info *out);

/**
 * @return the operator's name as the model wrote it when it differs from the one it is
 * answered as: an ONNX ATen fallback node (`org.pytorch.aten::ATen` with operator="fft_rfft")
 * is answered as aten::fft_rfft; "" otherwise. Borrowed.
 */
OPMAP_API const char *opmap_op_exported_as(const opmap_op *op);

/** @return 1 when some chip of the result has no published answer for the operator (it is
 *  left out of the operator's status and counted apart), else 0. */
OPMAP_API int opmap_op_unpublished(const opmap_op *op);

/** How the model splits between the NPU and the host (docs/report-json.md, "segments").
 *  Versioned: set `size`. */
typedef struct opmap_segments {
    size_t size;           /**< set by the caller: sizeof(opmap_segments) */
    uint64_t segments;     /**< maximal runs of NPU nodes, over every graph and subgraph */
    uint64_t transitions;  /**< device<->host boundaries between them */
    uint64_t npu_nodes;    /**< instances that run on the NPU */
    uint64_t nodes;        /**< all instances, structural ones included */
    uint64_t largest;      /**< NPU nodes in the largest segment */
    uint64_t breakers;     /**< instances that split the graph */
} opmap_segments;

/**
 * Fills `out` with the result's NPU segments.
 * @return OPMAP_OK, or OPMAP_EINVAL when an argument is NULL or out->size is too small.
 */
OPMAP_API int opmap_result_segments(const opmap_result *res, opmap_segments *out);

/** A node that splits the graph between NPU and host. Versioned: set `size`. */
typedef struct opmap_breaker_info {
    size_t size;        /**< set by the caller: sizeof(opmap_breaker_info) */
    const char *node;   /**< its node path */
    const char *op;     /**< its operator, "domain::name" */
    const char *why;    /**< why it leaves the NPU */
} opmap_breaker_info;

/** @return the number of breakers kept (at most 1,000; opmap_segments.breakers counts all). */
OPMAP_API size_t opmap_result_breaker_count(const opmap_result *res);
/**
 * Fills `out` with breaker i (strings borrowed from the result).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_result_breaker(const opmap_result *res, size_t i, opmap_breaker_info *out);

/** Diagnostic levels: how much a risk or a diagnostic matters. */
typedef enum opmap_diag_level {
    OPMAP_DIAG_INFO = 0,    /**< worth knowing */
    OPMAP_DIAG_WARNING = 1  /**< likely to need work */
} opmap_diag_level;

/** A model-level risk (dynamic dimensions, float64, random ops, ...). Versioned: set `size`. */
typedef struct opmap_risk_info {
    size_t size;           /**< set by the caller: sizeof(opmap_risk_info) */
    int level;             /**< an opmap_diag_level */
    const char *kind;      /**< e.g. "dynamic_shape", "dtype", "rng", "precision" */
    const char *message;   /**< one line */
    const char *where;     /**< the input, value or node it applies to */
} opmap_risk_info;

/** @return the number of model-level risks. */
OPMAP_API size_t opmap_result_risk_count(const opmap_result *res);
/**
 * Fills `out` with risk i (strings borrowed from the result).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_result_risk(const opmap_result *res, size_t i, opmap_risk_info *out);

/** Totals of a result. Versioned: set `size`. */
typedef struct opmap_summary {
    size_t size;                               /**< set by the caller: sizeof(opmap_summary) */
    uint64_t operators[OPMAP_OP_STATUS_COUNT]; /**< distinct operators per status */
    uint64_t instances[OPMAP_OP_STATUS_COUNT]; /**< instances per status */
    opmap_effort effort[OPMAP_OP_STATUS_COUNT];/**< effort per status (structural: zero) */
    uint64_t operators_total;                  /**< distinct operators, all statuses */
    uint64_t instances_total;                  /**< instances, all statuses */
    opmap_effort effort_total;                 /**< sum over distinct operators */
    /** Operators with a chip answer nobody has published (see opmap_op_unpublished), counted
     *  apart: never part of the effort above. */
    uint64_t unpublished;
    /** What verifying them would cost, with the table's weights.unpublished. */
    opmap_effort unpublished_effort;
} opmap_summary;

/**
 * Fills `out` with the result's totals.
 * @return OPMAP_OK, or OPMAP_EINVAL when an argument is NULL or out->size is too small.
 */
OPMAP_API int opmap_result_summary(const opmap_result *res, opmap_summary *out);

/**
 * Advice (docs/table-format.md, "Advice"): an ATC flag or graph edit that Ascend's engineers
 * used in their conversions for a pattern this model has (a dynamic batch, shape arithmetic
 * onnx-simplifier folds, GELU's implementation mode...) in an ONNX model, or a fused
 * torch_npu kernel their training recipes swapped in, in an ATen graph (TorchScript,
 * torch.export). Counted apart from the estimate and not a finding of the gate.
 * Versioned: set `size`; strings borrowed.
 */
typedef struct opmap_advice_info {
    size_t size;           /**< set by the caller: sizeof(opmap_advice_info) */
    const char *id;        /**< the advice's id in the table */
    const char *message;   /**< what and why */
    const char *action;    /**< the flag or edit to apply */
    const char *value;     /**< what matched */
    const char *where;     /**< the first place it matched */
    const char *grade;     /**< its evidence grade ("" when the table gives none) */
    const char *sources;   /**< its source ids, comma-separated */
    const char *recipes;   /**< the recipes that did it, "; "-separated */
} opmap_advice_info;

/** @return the number of pieces of advice for the model. */
OPMAP_API size_t opmap_result_advice_count(const opmap_result *res);
/**
 * Fills `out` with advice i.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_result_advice(const opmap_result *res, size_t i, opmap_advice_info *out);

/** A diagnostic: something the scan noticed that is not an operator finding (e.g. a
 *  recursive local function left unexpanded). Versioned: set `size`. */
typedef struct opmap_diag_info {
    size_t size;           /**< set by the caller: sizeof(opmap_diag_info) */
    int level;             /**< an opmap_diag_level */
    const char *message;   /**< one line */
    const char *where;     /**< where it applies */
} opmap_diag_info;

/** @return the number of diagnostics. */
OPMAP_API size_t opmap_result_diag_count(const opmap_result *res);
/**
 * Fills `out` with diagnostic i (strings borrowed from the result).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_result_diag(const opmap_result *res, size_t i, opmap_diag_info *out);

OPMAP_END_DECL

#endif /* OPMAP_SCAN_H */
