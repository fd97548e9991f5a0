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

#define OPMAP_SCAN_OPTIONS_VERSION 1

/** Options for opmap_scan(); initialise with OPMAP_SCAN_OPTIONS_INIT. */
typedef struct opmap_scan_options {
    unsigned version;  /**< OPMAP_SCAN_OPTIONS_VERSION */
    /**
     * The chips to answer for: NULL for the table's default chip (about.default_soc;
     * ascend910b in the built-in table), "all" for every chip the table speaks for, or
     * names separated by commas ("ascend910b,ascend310p"). With several chips, an
     * operator's status is the worst over them: the model has to run on each.
     */
    const char *soc;
    /** Effort weights replacing the table's for the statuses they set, or NULL. */
    const opmap_weights *weights;
    unsigned reserved; /**< zero */
} opmap_scan_options;

#define OPMAP_SCAN_OPTIONS_INIT { OPMAP_SCAN_OPTIONS_VERSION, NULL, NULL, 0 }

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

/** Releases a result; NULL is a no-op. */
OPMAP_API void opmap_result_free(opmap_result *res);

/** Model facts copied into the result; strings borrowed from the result. */
OPMAP_API const char *opmap_result_model_name(const opmap_result *res);
OPMAP_API opmap_format opmap_result_format(const opmap_result *res);
OPMAP_API const char *opmap_result_table_origin(const opmap_result *res);

/** The chips the result answers for (see opmap_scan_options.soc); borrowed. */
OPMAP_API size_t opmap_result_chip_count(const opmap_result *res);
OPMAP_API const char *opmap_result_chip(const opmap_result *res, size_t i);

/** The torch_npu and CANN versions the table speaks for ("" when it does not say). */
OPMAP_API const char *opmap_result_torch_npu(const opmap_result *res);
OPMAP_API const char *opmap_result_cann(const opmap_result *res);

/** @return the number of distinct operators (structural ones included). */
OPMAP_API size_t opmap_result_op_count(const opmap_result *res);

/**
 * @return distinct operator i; operators are sorted worst status first, then by instance
 * count (descending), domain and name, so output is stable.
 */
OPMAP_API const opmap_op *opmap_result_op(const opmap_result *res, size_t i);

OPMAP_API const char *opmap_op_domain(const opmap_op *op);   /**< "ai.onnx" for ONNX's default */
OPMAP_API const char *opmap_op_name(const opmap_op *op);     /**< op_type / ATen name */
OPMAP_API int64_t opmap_op_opset(const opmap_op *op);        /**< opset in effect, 0 if unversioned */
OPMAP_API int64_t opmap_op_since(const opmap_op *op);        /**< matched row's since, 0 if none */
OPMAP_API int opmap_op_status(const opmap_op *op);           /**< an opmap_op_status_code */
OPMAP_API unsigned opmap_op_flags(const opmap_op *op);       /**< OPMAP_FLAG_* bits */
OPMAP_API uint64_t opmap_op_instances(const opmap_op *op);   /**< instances, calls expanded */
OPMAP_API opmap_effort opmap_op_effort(const opmap_op *op);  /**< what adapting it costs once */
/** @return the table row used, or NULL when unmapped; borrowed from the table, so valid only
 *  while that table lives. */
OPMAP_API const opmap_row *opmap_op_row(const opmap_op *op);
/** Node paths of the instances, e.g. "main/If_3/then_branch/Conv_7". */
OPMAP_API size_t opmap_op_path_count(const opmap_op *op);
OPMAP_API const char *opmap_op_path(const opmap_op *op, size_t i);
/** The original source line of instance i ("model.py:42", from TorchScript debug info), or
 *  NULL when the model does not say. */
OPMAP_API const char *opmap_op_location(const opmap_op *op, size_t i);
/** Row facts copied into the result ("" when absent or unmapped). */
OPMAP_API const char *opmap_op_notes(const opmap_op *op);
OPMAP_API const char *opmap_op_hint(const opmap_op *op);
OPMAP_API const char *opmap_op_ascend_op(const opmap_op *op);
OPMAP_API const char *opmap_op_engine(const opmap_op *op);

/** @return the operator's status on the result's chip i (the worst of its instances there). */
OPMAP_API int opmap_op_chip_status(const opmap_op *op, size_t chip);
/** @return 1 when the table says nobody has published an answer for chip i (the row's
 *  general answer was used), else 0. */
OPMAP_API int opmap_op_chip_unknown(const opmap_op *op, size_t chip);

/** Why an operator is worse than its table row says: a constraint that fired on some
 *  instances, or an input dtype a chip's kernels do not take. Strings borrowed. */
typedef struct opmap_reason {
    const char *message;   /**< the table's explanation */
    const char *value;     /**< what made it fire, e.g. "mode=cubic", "dtype(input 0)=float64" */
    int status;            /**< the status it leads to, or -1 when it only adds a flag */
    unsigned flag;         /**< an OPMAP_FLAG_* it adds, or 0 */
    uint64_t chips;        /**< bit i: the result's chip i */
    uint64_t instances;    /**< instances it fired on */
    const char *example;   /**< the node path of the first one */
} opmap_reason;

OPMAP_API size_t opmap_op_reason_count(const opmap_op *op);
/** Fills `out` with reason i; @return OPMAP_OK or OPMAP_EINVAL when out of range. */
OPMAP_API int opmap_op_reason(const opmap_op *op, size_t i, opmap_reason *out);
/**
 * The evidence behind reason i (docs/table-format.md, "Evidence"): its grade ("kernel",
 * "doc", "derived", "practice", or "" when the table gives none) and the ids of its sources,
 * comma-separated ("" when none). Either pointer may be NULL; strings borrowed.
 * @return OPMAP_OK or OPMAP_EINVAL when out of range.
 */
OPMAP_API int opmap_op_reason_evidence(const opmap_op *op, size_t i, const char **grade,
                                       const char **sources);

/**
 * @return the operator's name as the model wrote it when it differs from the one it is
 * answered as: an ONNX ATen fallback node (`org.pytorch.aten::ATen` with operator="fft_rfft")
 * is answered as aten::fft_rfft; "" otherwise. Borrowed.
 */
OPMAP_API const char *opmap_op_exported_as(const opmap_op *op);

/** @return 1 when some chip of the result has no published answer for the operator (it is
 *  left out of the operator's status and counted apart), else 0. */
OPMAP_API int opmap_op_unpublished(const opmap_op *op);

/** How the model splits between the NPU and the host (docs/report-json.md, "segments"). */
typedef struct opmap_segments {
    uint64_t segments;     /**< maximal runs of NPU nodes, over every graph and subgraph */
    uint64_t transitions;  /**< device<->host boundaries between them */
    uint64_t npu_nodes;    /**< instances that run on the NPU */
    uint64_t nodes;        /**< all instances, structural ones included */
    uint64_t largest;      /**< NPU nodes in the largest segment */
    uint64_t breakers;     /**< instances that split the graph */
} opmap_segments;

OPMAP_API void opmap_result_segments(const opmap_result *res, opmap_segments *out);
/** Breaker i (at most 1,000 are kept): its node path, operator and why it breaks. */
OPMAP_API size_t opmap_result_breaker_count(const opmap_result *res);
OPMAP_API int opmap_result_breaker(const opmap_result *res, size_t i, const char **node,
                                   const char **op, const char **why);

/** Model-level risks (dynamic dimensions, float64, random ops, ...): kind, message and where;
 *  @return the level (an opmap_diag_level) or -1 when i is out of range. */
OPMAP_API size_t opmap_result_risk_count(const opmap_result *res);
OPMAP_API int opmap_result_risk(const opmap_result *res, size_t i, const char **kind,
                                const char **message, const char **where);

/** Totals of a result. */
typedef struct opmap_summary {
    uint64_t operators[OPMAP_OP_STATUS_COUNT]; /**< distinct operators per status */
    uint64_t instances[OPMAP_OP_STATUS_COUNT]; /**< instances per status */
    opmap_effort effort[OPMAP_OP_STATUS_COUNT];/**< effort per status (structural: zero) */
    uint64_t operators_total;
    uint64_t instances_total;
    opmap_effort effort_total;                 /**< sum over distinct operators */
} opmap_summary;

/** Fills `out` with the result's totals. */
OPMAP_API void opmap_result_summary(const opmap_result *res, opmap_summary *out);

/**
 * Operators with a chip answer nobody has published (see opmap_op_unpublished): how many,
 * and what verifying them would cost with the table's weights.unpublished. Counted apart:
 * never part of opmap_summary's effort. `effort` may be NULL.
 * @return the number of such distinct operators.
 */
OPMAP_API uint64_t opmap_result_unpublished(const opmap_result *res, opmap_effort *effort);

/**
 * Advice (docs/table-format.md, "Advice"): an ATC flag or graph edit that Ascend's engineers
 * used in their conversions for a pattern this model has (a dynamic batch, shape arithmetic
 * onnx-simplifier folds, GELU's implementation mode...). ONNX models only; counted apart
 * from the estimate and not a finding of the gate.
 */
OPMAP_API size_t opmap_result_advice_count(const opmap_result *res);
/** Advice i: its id, what and why, the flag or edit to apply, what matched and the first
 *  place it matched (any pointer may be NULL; strings borrowed).
 *  @return OPMAP_OK or OPMAP_EINVAL when i is out of range. */
OPMAP_API int opmap_result_advice(const opmap_result *res, size_t i, const char **id,
                                  const char **message, const char **action,
                                  const char **value, const char **where);
/** Advice i's evidence: its grade, source ids (comma-separated) and the recipes that did it
 *  ("; "-separated). @return OPMAP_OK or OPMAP_EINVAL. */
OPMAP_API int opmap_result_advice_evidence(const opmap_result *res, size_t i,
                                           const char **grade, const char **sources,
                                           const char **recipes);

/** Diagnostic levels: things the scan noticed that are not operator findings. */
typedef enum opmap_diag_level {
    OPMAP_DIAG_INFO = 0,
    OPMAP_DIAG_WARNING = 1
} opmap_diag_level;

/** @return the number of diagnostics (e.g. a recursive local function left unexpanded). */
OPMAP_API size_t opmap_result_diag_count(const opmap_result *res);

/** Diagnostic i: its level, and a one-line message and where it applies (borrowed). */
OPMAP_API int opmap_result_diag(const opmap_result *res, size_t i, const char **message,
                                const char **where);

OPMAP_END_DECL

#endif /* OPMAP_SCAN_H */
