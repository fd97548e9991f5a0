/*
 * opmap/table.h - the operator compatibility table (docs/table-format.md).
 *
 * A table is loaded once, validated completely (a malformed table is an error naming
 * file:line:column), and is immutable afterwards: any number of scans, in any number of
 * threads, may read one table at the same time.
 */
#ifndef OPMAP_TABLE_H
#define OPMAP_TABLE_H

#include "common.h"
#include "context.h"
#include "error.h"

OPMAP_BEGIN_DECL

/** An opaque, immutable compatibility table. */
typedef struct opmap_table opmap_table;

/** One row of a table; an opaque handle borrowed from its table. */
typedef struct opmap_row opmap_row;

/**
 * Operator status, ordered from best to worst: "worse" outcomes compare greater.
 * OPMAP_OP_STRUCTURAL is graph plumbing: counted, never estimated.
 */
typedef enum opmap_op_status_code {
    OPMAP_OP_STRUCTURAL = 0, /**< graph plumbing (Identity, Constant, prim::*): counted only */
    OPMAP_OP_FULL = 1,       /**< runs on Ascend as is */
    OPMAP_OP_PARTIAL = 2,    /**< runs with limits (dtypes, attributes, chips) */
    OPMAP_OP_REWRITE = 3,    /**< no Ascend implementation: the model must change */
    OPMAP_OP_UNMAPPED = 4    /**< the table has no row for it */
} opmap_op_status_code;

/** The number of opmap_op_status_code values; sizes the per-status arrays. */
#define OPMAP_OP_STATUS_COUNT 5

/** @return "structural", "full", "partial", "rewrite" or "unmapped" ("?" if out of range). */
OPMAP_API const char *opmap_op_status_name(int status);

/** Risk flags (a bit set). */
enum {
    OPMAP_FLAG_PRECISION = 1u << 0,        /**< results may differ numerically */
    OPMAP_FLAG_NONDETERMINISTIC = 1u << 1, /**< not bit-reproducible run to run */
    OPMAP_FLAG_RNG = 1u << 2,              /**< random number streams differ from CUDA's */
    OPMAP_FLAG_PERFORMANCE = 1u << 3,      /**< runs on AI CPU, the host or CPU fallback */
    OPMAP_FLAG_DYNAMIC_SHAPE = 1u << 4,    /**< shape changes recompile the graph */
    OPMAP_FLAG_INF_NAN = 1u << 5,          /**< inf/nan semantics differ on Ascend */
    OPMAP_FLAG_DEPRECATED = 1u << 6        /**< deprecated in torch_npu */
};

/** The number of OPMAP_FLAG_* bits; opmap_flag_name() takes 0 .. OPMAP_FLAG_COUNT - 1. */
#define OPMAP_FLAG_COUNT 7

/** @return the table name of flag bit `index` (0-based), e.g. "precision"; NULL if out of range. */
OPMAP_API const char *opmap_flag_name(unsigned index);

/** Person-days as thousandths (exact arithmetic): 2500 is 2.5 person-days. */
typedef struct opmap_effort {
    uint64_t min;        /**< the optimistic bound */
    uint64_t expected;   /**< the likely cost */
    uint64_t max;        /**< the pessimistic bound */
} opmap_effort;

/**
 * Effort weights that replace the table's: person-days per distinct operator of each
 * status, as thousandths. Only statuses whose bit is set in `set` are replaced.
 */
typedef struct opmap_weights {
    unsigned version;                            /**< OPMAP_WEIGHTS_VERSION */
    unsigned set;                                /**< bit (1 << status) per replaced status */
    opmap_effort effort[OPMAP_OP_STATUS_COUNT];  /**< indexed by opmap_op_status_code */
} opmap_weights;

/** The current layout of opmap_weights. */
#define OPMAP_WEIGHTS_VERSION 1

/**
 * Reads a weights file: YAML shaped like a table's `weights:` section, e.g.
 * `partial: {min: 0.5, expected: 0.8, max: 1}` (keys full, partial, rewrite, unmapped).
 * @return OPMAP_OK, OPMAP_EIO, OPMAP_EFORMAT, OPMAP_ETABLE (with line:column), OPMAP_ENOMEM.
 */
OPMAP_API int opmap_weights_load_file(opmap_weights *out, opmap_ctx *ctx, const char *path,
                                      opmap_error *err);

/** As opmap_weights_load_file(), from memory; `name` is used in messages. */
OPMAP_API int opmap_weights_load_memory(opmap_weights *out, opmap_ctx *ctx, const void *data,
                                        size_t size, const char *name, opmap_error *err);

/**
 * Loads the table built into the library (data/op_map.yaml at build time).
 * @return OPMAP_OK, OPMAP_ENOMEM, OPMAP_ELIMIT.
 */
OPMAP_API int opmap_table_load_default(opmap_table **out, opmap_ctx *ctx, opmap_error *err);

/**
 * Loads and validates a table file.
 * @return OPMAP_OK; OPMAP_EIO; OPMAP_EFORMAT (YAML syntax); OPMAP_ETABLE (schema: unknown key,
 *         wrong type, duplicate key or row, unknown status/flag/SoC/dtype, dangling source id);
 *         OPMAP_ELIMIT; OPMAP_ENOMEM. err->line / err->column locate the problem.
 */
OPMAP_API int opmap_table_load_file(opmap_table **out, opmap_ctx *ctx, const char *path,
                                    opmap_error *err);

/** As opmap_table_load_file(), from memory (borrowed for the call); `name` is used in messages. */
OPMAP_API int opmap_table_load_memory(opmap_table **out, opmap_ctx *ctx, const void *data,
                                      size_t size, const char *name, opmap_error *err);

/** Releases a table; NULL is a no-op. */
OPMAP_API void opmap_table_free(opmap_table *table);

/** @return where the table came from: "built-in" or the file name; borrowed. */
OPMAP_API const char *opmap_table_origin(const opmap_table *table);

/** @return the table's about.name ("" when absent); borrowed. */
OPMAP_API const char *opmap_table_name(const opmap_table *table);
/** @return the table's about.version ("" when absent); borrowed. */
OPMAP_API const char *opmap_table_version(const opmap_table *table);

/** @return the number of rows. */
OPMAP_API size_t opmap_table_row_count(const opmap_table *table);

/**
 * Row i (in file order), into *out (borrowed from the table).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_table_row(const opmap_table *table, size_t i, const opmap_row **out);

/** @return the number of chips the table speaks for (about.socs). */
OPMAP_API size_t opmap_table_soc_count(const opmap_table *table);
/**
 * Chip i's name, into *out (borrowed from the table).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_table_soc(const opmap_table *table, size_t i, const char **out);
/** @return the chip scanned for when none is named (about.default_soc); borrowed. */
OPMAP_API const char *opmap_table_default_soc(const opmap_table *table);

/** @return about.torch_npu: the torch_npu version the table speaks for ("" when absent). */
OPMAP_API const char *opmap_table_torch_npu(const opmap_table *table);
/** @return about.cann: the CANN version the table speaks for ("" when absent). */
OPMAP_API const char *opmap_table_cann(const opmap_table *table);

/** A source the table's facts come from (docs/sources.md). Versioned: set `size`
 *  (docs/api.md); strings borrowed from the table, "" when absent. */
typedef struct opmap_source_info {
    size_t size;            /**< set by the caller: sizeof(opmap_source_info) */
    const char *id;         /**< the id rows cite */
    const char *title;      /**< what it is */
    const char *repo;       /**< the repository it was read in */
    const char *path;       /**< the file in that repository */
    const char *commit;     /**< the commit read */
    const char *license;    /**< its licence */
    const char *taken;      /**< when it was read (YYYY-MM-DD) */
    const char *url;        /**< where to read it */
    const char *grade;      /**< its evidence grade ("kernel", "doc", ...; "" when none) */
} opmap_source_info;

/** @return the number of declared sources. */
OPMAP_API size_t opmap_table_source_count(const opmap_table *table);
/**
 * Fills `out` with source i.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or out->size is too
 *         small.
 */
OPMAP_API int opmap_table_source(const opmap_table *table, size_t i, opmap_source_info *out);

/** @return the effort weights of a status (OPMAP_OP_UNMAPPED included; structural is zero). */
OPMAP_API opmap_effort opmap_table_weights(const opmap_table *table, int status);

/**
 * Finds the row answering for an operator.
 *
 * @param domain  "" and "ai.onnx" are the same domain.
 * @param op      the operator name (ONNX op_type, or an ATen/prim name without "aten::").
 * @param version the opset in effect for the domain, or 0 for unversioned namespaces.
 * @return the row with the largest `since` <= version (or the unversioned row), or NULL when
 *         the operator is unmapped; borrowed.
 */
OPMAP_API const opmap_row *opmap_table_lookup(const opmap_table *table, const char *domain,
                                              const char *op, int64_t version);

/* Row accessors: strings are borrowed from the table, "" when the field is absent. */

/** @return the row's domain ("ai.onnx", "aten", "prim", ...). */
OPMAP_API const char *opmap_row_domain(const opmap_row *row);
/** @return the row's operator name. */
OPMAP_API const char *opmap_row_op(const opmap_row *row);
/** @return the first opset the row answers for, 0 when unversioned. */
OPMAP_API int64_t opmap_row_since(const opmap_row *row);
/** @return the row's status, an opmap_op_status_code. */
OPMAP_API int opmap_row_status(const opmap_row *row);
/** @return the row's risk flags, OPMAP_FLAG_* bits. */
OPMAP_API unsigned opmap_row_flags(const opmap_row *row);
/** @return the row's notes. */
OPMAP_API const char *opmap_row_notes(const opmap_row *row);
/** @return the row's migration hint. */
OPMAP_API const char *opmap_row_hint(const opmap_row *row);
/** @return the row's `curated:` reasoning (our own judgement, when no source says). */
OPMAP_API const char *opmap_row_curated(const opmap_row *row);
/** @return the CANN operator type it runs as. */
OPMAP_API const char *opmap_row_ascend_op(const opmap_row *row);
/** @return the aclnn kernel it runs as. */
OPMAP_API const char *opmap_row_aclnn(const opmap_row *row);
/** @return the torch_npu API that provides it. */
OPMAP_API const char *opmap_row_api(const opmap_row *row);
/** @return the engine it runs on: "ai_core", "ai_cpu", ... */
OPMAP_API const char *opmap_row_engine(const opmap_row *row);
/** @return the source line of the row in its table file (1-based). */
OPMAP_API uint32_t opmap_row_line(const opmap_row *row);

/** @return the number of source ids the row cites. */
OPMAP_API size_t opmap_row_source_count(const opmap_row *row);
/**
 * Source id i of the row, into *out (see opmap_table_source for the sources themselves).
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_row_source(const opmap_row *row, size_t i, const char **out);

/** A row's answer for one chip. Versioned: set `size`; strings borrowed from the table. */
typedef struct opmap_row_soc_info {
    size_t size;            /**< set by the caller: sizeof(opmap_row_soc_info) */
    const char *name;       /**< the chip */
    int status;             /**< an opmap_op_status_code, or -1 for "unknown": nobody has
                                 published an answer */
    const char *note;       /**< "" when none */
} opmap_row_soc_info;

/** @return the number of per-chip answers of the row. */
OPMAP_API size_t opmap_row_soc_count(const opmap_row *row);
/**
 * Fills `out` with the row's answer i.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_row_soc(const opmap_row *row, size_t i, opmap_row_soc_info *out);

/** @return the number of declarative constraints of the row (docs/table-format.md). */
OPMAP_API size_t opmap_row_constraint_count(const opmap_row *row);
/**
 * Constraint i's message, into *out.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_row_constraint_message(const opmap_row *row, size_t i, const char **out);

/** @return the number of ATen overloads an ATen row covers. */
OPMAP_API size_t opmap_row_overload_count(const opmap_row *row);
/**
 * Overload i's name, into *out.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_row_overload(const opmap_row *row, size_t i, const char **out);
/** @return the first torch_npu version with a kernel for an ATen row ("" if absent). */
OPMAP_API const char *opmap_row_torch_npu_min(const opmap_row *row);
/** @return the last torch_npu version with a kernel for an ATen row ("" if absent). */
OPMAP_API const char *opmap_row_torch_npu_max(const opmap_row *row);
/** @return the first pinned PyTorch release whose native_functions.yaml has an ATen row's
 *  operator ("1.13.1", "2.6.0", ...; "" if the row does not say). */
OPMAP_API const char *opmap_row_pytorch_since(const opmap_row *row);
/** @return the last pinned PyTorch release that has it, when the newest no longer does
 *  ("" otherwise). */
OPMAP_API const char *opmap_row_pytorch_until(const opmap_row *row);
/**
 * Compares two torch_npu versions: MAJOR.MINOR with an optional leading `v`, .PATCH and
 * rcN or .postN ("2.1", "2.10", "2.1.0.post3", "v2.6.0rc1"); 2.9 < 2.10 and
 * 2.6.0rc1 < 2.6.0 < 2.6.0.post1.
 * @param[out] cmp  <0, 0 or >0 as a is older than, the same as or newer than b.
 * @return OPMAP_OK, or OPMAP_EINVAL (err says which and why) when either is not a version.
 */
OPMAP_API int opmap_torch_npu_compare(const char *a, const char *b, int *cmp,
                                      opmap_error *err);
/**
 * Whether a row has an NPU kernel in a torch_npu version: its line (MAJOR.MINOR) is within
 * the row's torch_npu range. A row without a range has one in every version.
 * @param[out] has  1 or 0.
 * @return OPMAP_OK, or OPMAP_EINVAL when version is not a version or an argument is NULL.
 */
OPMAP_API int opmap_row_torch_npu_has(const opmap_row *row, const char *version, int *has,
                                      opmap_error *err);

/**
 * The evidence behind one fact of a row (docs/table-format.md, "Evidence"). `fact` names it:
 * "status", "ascend", "dtypes" (input 0's list), "flags.<flag>", "inputs.<k>" (the dtype
 * list of input k), "socs.<chip>" (a per-chip answer), "constraints.<i>" or "graph" (the
 * graph-mode answer, opmap_row_graph).
 * @return the grade ("kernel", "doc", "derived", "practice", or "" when the table gives
 *         none); NULL when the row has no such fact. Borrowed.
 */
OPMAP_API const char *opmap_row_evidence(const opmap_row *row, const char *fact);
/** @return the number of source ids behind a fact (see opmap_row_evidence); 0 when none. */
OPMAP_API size_t opmap_row_evidence_source_count(const opmap_row *row, const char *fact);
/**
 * Source id i of a fact, into *out.
 * @return OPMAP_OK, or OPMAP_EINVAL when the row has no such fact, i is out of range or an
 *         argument is NULL.
 */
OPMAP_API int opmap_row_evidence_source(const opmap_row *row, const char *fact, size_t i,
                                        const char **out);
/**
 * The dtypes a fact lists ("dtypes", "inputs.<k>" or "socs.<chip>"), comma-separated, into
 * buf (always terminated when size > 0). @return the number of dtypes, 0 when none is listed.
 */
OPMAP_API size_t opmap_row_dtypes(const opmap_row *row, const char *fact, char *buf,
                                  size_t size);

/** A per-input dtype list of a row. Versioned: set `size`. */
typedef struct opmap_row_input_info {
    size_t size;            /**< set by the caller: sizeof(opmap_row_input_info) */
    uint32_t index;         /**< the input's position; its dtypes are fact "inputs.<index>" */
    const char *name;       /**< the input's name ("" when the table gives none) */
} opmap_row_input_info;

/** @return the number of per-input dtype lists of the row. */
OPMAP_API size_t opmap_row_input_count(const opmap_row *row);
/**
 * Fills `out` with input list i.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_row_input(const opmap_row *row, size_t i, opmap_row_input_info *out);

/** @return the number of operators the row ends as on Ascend (ascend.ops). */
OPMAP_API size_t opmap_row_ascend_op_count(const opmap_row *row);
/**
 * The Ascend operator i it ends as, into *out.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_row_ascend_ops(const opmap_row *row, size_t i, const char **out);
/** @return when which of those operators is used (ascend.how; "" when not said). */
OPMAP_API const char *opmap_row_ascend_how(const opmap_row *row);

/**
 * An ATen row's graph-mode answer (docs/table-format.md, "graph"): what torchair's GE
 * converters (torch.compile with torchair) do with the operator, from the pinned torchair
 * the table names as a source. Versioned: set `size`; strings borrowed from the table.
 */
typedef struct opmap_row_graph_info {
    size_t size;            /**< set by the caller: sizeof(opmap_row_graph_info) */
    const char *status;     /**< "implemented", "partial" (some overloads or inputs), "stub"
                                 (every converter only raises), "none" (no converter),
                                 "decomposed" (PyTorch decomposes it before torchair sees
                                 it), or "" when the row gives no graph-mode answer */
    const char *via;        /**< the ATen operator whose converters answer for this one (an
                                 in-place op's functional form, ...), or "" */
    const char *where;      /**< "path:line" of its first converter in torchair, or "" */
    const char *note;       /**< what the answer rests on, or "" */
    uint64_t declared;      /**< Support cases torchair declares for its converters */
} opmap_row_graph_info;

/**
 * Fills `out` with the row's graph-mode answer (status "" when it gives none); its evidence
 * is fact "graph" of opmap_row_evidence().
 * @return OPMAP_OK, or OPMAP_EINVAL when an argument is NULL or out->size is too small.
 */
OPMAP_API int opmap_row_graph(const opmap_row *row, opmap_row_graph_info *out);

/** One overload torchair registers a converter for. Versioned: set `size`. */
typedef struct opmap_row_graph_overload_info {
    size_t size;            /**< set by the caller: sizeof(opmap_row_graph_overload_info) */
    const char *name;       /**< the overload ("Tensor", "default", ...) */
    const char *status;     /**< its converter: "implemented", "partial" or "stub" */
    int counted;            /**< 1: one of the overloads the row's status is answered on */
} opmap_row_graph_overload_info;

/** @return the number of overloads of the row's graph-mode answer, sorted by name. */
OPMAP_API size_t opmap_row_graph_overload_count(const opmap_row *row);
/**
 * Fills `out` with overload i of the row's graph-mode answer.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_row_graph_overload(const opmap_row *row, size_t i,
                                       opmap_row_graph_overload_info *out);

/**
 * An ATen or npu row's backward answer (docs/table-format.md, "backward"): what a training
 * step runs for the operator's gradient on the NPU, from PyTorch's derivatives.yaml and
 * op-plugin's (torch_npu's own autograd functions). Versioned: set `size`; strings borrowed.
 */
typedef struct opmap_row_backward_info {
    size_t size;            /**< set by the caller: sizeof(opmap_row_backward_info) */
    const char *status;     /**< "full" (its backward operators have NPU kernels),
                                 "partial" / "rewrite" (one of them has limits / none),
                                 "missing" (torch_npu registers no backward: gradients
                                 cannot flow through it), "none" (nothing to differentiate),
                                 "decomposed" (autograd differentiates what PyTorch
                                 decomposes it into), or "" when the row gives none */
    const char *via;        /**< "pytorch" or "npu": whose autograd function, or "" */
    const char *note;       /**< what the answer rests on, or "" */
    size_t op_count;        /**< operators its gradient formulas call (opmap_row_backward_op) */
} opmap_row_backward_info;

/**
 * Fills `out` with the row's backward answer; its evidence is fact "backward" of
 * opmap_row_evidence().
 * @return OPMAP_OK, or OPMAP_EINVAL when an argument is NULL or out->size is too small.
 */
OPMAP_API int opmap_row_backward(const opmap_row *row, opmap_row_backward_info *out);
/**
 * The backward operator i ("aten::convolution_backward") into *out.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range or an argument is NULL.
 */
OPMAP_API int opmap_row_backward_op(const opmap_row *row, size_t i, const char **out);

OPMAP_END_DECL

#endif /* OPMAP_TABLE_H */
