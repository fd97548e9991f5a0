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
    unsigned reserved; /**< zero */
} opmap_scan_options;

#define OPMAP_SCAN_OPTIONS_INIT { OPMAP_SCAN_OPTIONS_VERSION, 0 }

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
/** Row facts copied into the result ("" when absent or unmapped). */
OPMAP_API const char *opmap_op_notes(const opmap_op *op);
OPMAP_API const char *opmap_op_hint(const opmap_op *op);
OPMAP_API const char *opmap_op_ascend_op(const opmap_op *op);
OPMAP_API const char *opmap_op_engine(const opmap_op *op);

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
