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

/** One row of a table; borrowed from its table. */
typedef struct opmap_row opmap_row;

/**
 * Operator status, ordered from best to worst: "worse" outcomes compare greater.
 * OPMAP_OP_STRUCTURAL is graph plumbing: counted, never estimated.
 */
typedef enum opmap_op_status_code {
    OPMAP_OP_STRUCTURAL = 0,
    OPMAP_OP_FULL = 1,
    OPMAP_OP_PARTIAL = 2,
    OPMAP_OP_REWRITE = 3,
    OPMAP_OP_UNMAPPED = 4
} opmap_op_status_code;

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

#define OPMAP_FLAG_COUNT 7

/** @return the table name of flag bit `index` (0-based), e.g. "precision"; NULL if out of range. */
OPMAP_API const char *opmap_flag_name(unsigned index);

/** Person-days as thousandths (exact arithmetic): 2500 is 2.5 person-days. */
typedef struct opmap_effort {
    uint64_t min;
    uint64_t expected;
    uint64_t max;
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

/** @return about.name / about.version of the table ("" when absent); borrowed. */
OPMAP_API const char *opmap_table_name(const opmap_table *table);
OPMAP_API const char *opmap_table_version(const opmap_table *table);

/** @return the number of rows. */
OPMAP_API size_t opmap_table_row_count(const opmap_table *table);

/** @return row i (0 <= i < row_count), in file order; borrowed. */
OPMAP_API const opmap_row *opmap_table_row(const opmap_table *table, size_t i);

/** @return the chips the table speaks for (about.socs), and the default one; borrowed. */
OPMAP_API size_t opmap_table_soc_count(const opmap_table *table);
OPMAP_API const char *opmap_table_soc(const opmap_table *table, size_t i);
OPMAP_API const char *opmap_table_default_soc(const opmap_table *table);

/** @return about.torch_npu / about.cann: the versions the table speaks for ("" when absent). */
OPMAP_API const char *opmap_table_torch_npu(const opmap_table *table);
OPMAP_API const char *opmap_table_cann(const opmap_table *table);

/** A source the table's facts come from (docs/sources.md); strings borrowed, "" if absent. */
typedef struct opmap_source_info {
    const char *id, *title, *repo, *path, *commit, *license, *taken, *url;
} opmap_source_info;

/** @return the number of declared sources. */
OPMAP_API size_t opmap_table_source_count(const opmap_table *table);
/** Fills `out` with source i; @return OPMAP_OK or OPMAP_EINVAL when i is out of range. */
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

/** Row accessors; strings are borrowed from the table, "" when the field is absent. */
OPMAP_API const char *opmap_row_domain(const opmap_row *row);
OPMAP_API const char *opmap_row_op(const opmap_row *row);
OPMAP_API int64_t opmap_row_since(const opmap_row *row);       /**< 0 when unversioned */
OPMAP_API int opmap_row_status(const opmap_row *row);          /**< an opmap_op_status_code */
OPMAP_API unsigned opmap_row_flags(const opmap_row *row);      /**< OPMAP_FLAG_* bits */
OPMAP_API const char *opmap_row_notes(const opmap_row *row);
OPMAP_API const char *opmap_row_hint(const opmap_row *row);
OPMAP_API const char *opmap_row_curated(const opmap_row *row);
OPMAP_API const char *opmap_row_ascend_op(const opmap_row *row);  /**< CANN op type */
OPMAP_API const char *opmap_row_aclnn(const opmap_row *row);      /**< aclnn kernel */
OPMAP_API const char *opmap_row_api(const opmap_row *row);        /**< torch_npu API */
OPMAP_API const char *opmap_row_engine(const opmap_row *row);     /**< ai_core, ai_cpu, ... */
OPMAP_API size_t opmap_row_source_count(const opmap_row *row);
OPMAP_API const char *opmap_row_source(const opmap_row *row, size_t i);
/** Per-chip answers of a row: chip i's name, its status (an opmap_op_status_code, or -1 for
 *  "unknown": nobody has published an answer) and its note ("" when none). */
OPMAP_API size_t opmap_row_soc_count(const opmap_row *row);
OPMAP_API const char *opmap_row_soc(const opmap_row *row, size_t i, int *status,
                                    const char **note);
/** Declarative constraints of a row: their messages (see docs/table-format.md). */
OPMAP_API size_t opmap_row_constraint_count(const opmap_row *row);
OPMAP_API const char *opmap_row_constraint_message(const opmap_row *row, size_t i);
/** ATen rows: the overloads covered, and the torch_npu versions with a kernel ("" if absent). */
OPMAP_API size_t opmap_row_overload_count(const opmap_row *row);
OPMAP_API const char *opmap_row_overload(const opmap_row *row, size_t i);
OPMAP_API const char *opmap_row_torch_npu_min(const opmap_row *row);
OPMAP_API const char *opmap_row_torch_npu_max(const opmap_row *row);
/** @return the source line of the row in its table file (1-based). */
OPMAP_API uint32_t opmap_row_line(const opmap_row *row);

/**
 * The evidence behind one fact of a row (docs/table-format.md, "Evidence"). `fact` names it:
 * "status", "ascend", "dtypes" (input 0's list), "flags.<flag>", "inputs.<k>" (the dtype
 * list of input k), "socs.<chip>" (a per-chip answer) or "constraints.<i>".
 * @return the grade ("kernel", "doc", "derived", "practice", or "" when the table gives
 *         none), with *n_sources the number of its source ids (n_sources may be NULL); NULL
 *         when the row has no such fact. Borrowed.
 */
OPMAP_API const char *opmap_row_evidence(const opmap_row *row, const char *fact,
                                         size_t *n_sources);
/** @return source id k of a fact (see opmap_row_evidence), or NULL. */
OPMAP_API const char *opmap_row_evidence_source(const opmap_row *row, const char *fact,
                                                size_t k);
/**
 * The dtypes a fact lists ("dtypes", "inputs.<k>" or "socs.<chip>"), comma-separated, into
 * buf (always terminated when size > 0). @return the number of dtypes, 0 when none is listed.
 */
OPMAP_API size_t opmap_row_dtypes(const opmap_row *row, const char *fact, char *buf,
                                  size_t size);
/** Per-input dtype lists of a row: how many, and list i's input position and name ("" when
 *  the table gives none). */
OPMAP_API size_t opmap_row_input_count(const opmap_row *row);
OPMAP_API uint32_t opmap_row_input_index(const opmap_row *row, size_t i);
OPMAP_API const char *opmap_row_input_name(const opmap_row *row, size_t i);
/** What the operator ends as on Ascend (ascend.ops) and when which ("" when not said). */
OPMAP_API size_t opmap_row_ascend_op_count(const opmap_row *row);
OPMAP_API const char *opmap_row_ascend_ops(const opmap_row *row, size_t i);
OPMAP_API const char *opmap_row_ascend_how(const opmap_row *row);
/** @return the grade of a source ("" when it has none), for the ids of opmap_table_source. */
OPMAP_API const char *opmap_table_source_grade(const opmap_table *table, size_t i);

OPMAP_END_DECL

#endif /* OPMAP_TABLE_H */
