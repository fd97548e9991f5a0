/*
 * table/table_internal.h - the loaded table: rows, constraints, sources, index.
 *
 * Everything lives in the table's arena and is immutable after loading, so scans may read
 * one table from many threads.
 */
#ifndef OM_TABLE_INTERNAL_H
#define OM_TABLE_INTERNAL_H

#include <opmap/table.h>

#include "core/mem.h"

/* Per-chip status adds "unknown" (nobody published an answer) to the row statuses. */
#define OM_SOC_UNKNOWN (-1)

/*
 * Evidence grades, weakest first (docs/table-format.md, "Evidence"): what kind of source a
 * fact rests on. A fact of a lower grade never overrides one of a higher grade.
 */
enum { OM_GRADE_NONE = 0, OM_GRADE_PRACTICE, OM_GRADE_DERIVED, OM_GRADE_DOC, OM_GRADE_KERNEL,
       OM_GRADE_COUNT };

/* "kernel", "doc", "derived", "practice"; "" for OM_GRADE_NONE. */
const char *om_grade_name(int grade);

/* Where one fact comes from: its grade and the ids of the sources it rests on. */
typedef struct om_evidence {
    uint8_t grade;             /* OM_GRADE_*; NONE when the table does not say */
    const char **sources;
    size_t n_sources;
} om_evidence;

typedef struct om_value {
    uint8_t kind;              /* OM_VAL_* */
    double num;
    const char *str;
    struct om_value *list;
    size_t n;
} om_value;

enum { OM_VAL_NUM = 1, OM_VAL_STR, OM_VAL_BOOL, OM_VAL_LIST };

/* OM_SUBJ_ATTR_COUNT: how many values a list attribute holds (kernel_shape's length, the
 * pooling's dimensions); OM_CMP_ABSENT: an attribute the node does not carry (ReduceMean
 * without axes) */
enum { OM_SUBJ_ATTR = 1, OM_SUBJ_CONST, OM_SUBJ_RANK, OM_SUBJ_DTYPE, OM_SUBJ_VALUE,
       OM_SUBJ_ATTR_COUNT };
enum { OM_CMP_EQ = 1, OM_CMP_NE, OM_CMP_LT, OM_CMP_LE, OM_CMP_GT, OM_CMP_GE, OM_CMP_IN,
       OM_CMP_NOT_IN, OM_CMP_IS_CONST, OM_CMP_NOT_CONST, OM_CMP_NOT_FOLDED, OM_CMP_ABSENT };

typedef struct om_constraint {
    uint8_t subject;           /* OM_SUBJ_* */
    uint8_t cmp;               /* OM_CMP_* */
    uint8_t on_output;         /* the tensor is an output (else an input) */
    uint8_t has_default;
    uint32_t index;            /* input/output index */
    const char *attr;          /* attribute name */
    om_value value;            /* what is compared against */
    om_value def;              /* attribute default */
    uint64_t soc_mask;         /* bit i: about.socs[i]; 0 = every chip */
    int then_status;           /* OPMAP_OP_PARTIAL / REWRITE, or -1 */
    unsigned flag;             /* OPMAP_FLAG_* or 0 */
    const char *message;
    uint32_t line;
    int32_t arg;               /* attribute conditions on ATen rows: the argument's position
                                  in the ATen schema (TorchScript passes it as an input), or -1 */
    uint8_t note_only;         /* then: note: an advisory that changes no status, adds no flag */
    const char *becomes;       /* a case, not a restriction: an instance it holds for becomes
                                  these operators on Ascend ("Conv2D"), the first case wins */
    om_evidence ev;
    /* `when` given as a list: the further conditions that must hold too (condition fields
     * only: subject, cmp, index, attr, arg, value, def) */
    struct om_constraint *also;
    size_t n_also;
} om_constraint;

/* The dtypes one input of an operator takes (its kernels'), with their evidence. */
typedef struct om_input_dtypes {
    uint32_t index;            /* the operator's input position */
    const char *name;          /* the input's name in the source, or NULL */
    uint32_t dtypes;           /* bit per IR dtype */
    om_evidence ev;
} om_input_dtypes;

typedef struct om_soc_answer {
    uint32_t soc;              /* index into about.socs */
    const char *name;          /* about.socs[soc] */
    int status;                /* opmap_op_status or OM_SOC_UNKNOWN */
    uint32_t dtypes;           /* bit per IR dtype; 0 = not stated */
    const char *note;
    const char **sources;
    size_t n_sources;
    uint8_t grade;             /* OM_GRADE_* of the answer */
} om_soc_answer;

/*
 * Advice (docs/table-format.md, "Advice"): what Ascend's engineers changed beyond operators
 * (ATC flags, graph edits), given when its detector (rules/advice.c) finds the pattern.
 */
enum {
    OM_DET_NONE = 0,
#define OM_DETECTOR(id, name, graphs, matches) OM_DET_##id,
#include "detectors.def"
#undef OM_DETECTOR
    OM_DET_COUNT
};

/* The detector for a name ("dynamic_batch", ...), or 0. */
int om_detector_from_name(const char *name);
const char *om_detector_name(int detector);

typedef struct om_advice_rule {
    const char *id;            /* unique within the table */
    int detector;              /* OM_DET_* */
    const char *message;       /* what and why */
    const char *action;        /* the ATC flag or graph edit to apply */
    const char *notes;
    uint8_t optional;          /* kind: optional (performance/precision) vs required (to convert) */
    uint8_t custom_op;         /* kind: custom_op, a CANN operator to substitute (required too) */
    const char **recipes;      /* where Ascend's engineers did it (repository paths) */
    size_t n_recipes;
    om_evidence ev;
    uint32_t line;
} om_advice_rule;

/*
 * An ATen row's graph-mode answer (docs/table-format.md, "graph"): what torchair's GE
 * converters, which torch.compile with torchair turns each FX node into GE operators
 * with, do with the operator.
 */
enum { OM_GRAPH_ABSENT = 0,   /* the row gives no graph-mode answer */
       OM_GRAPH_IMPLEMENTED,  /* every overload a graph can hold is converted */
       OM_GRAPH_PARTIAL,      /* some overloads or inputs only */
       OM_GRAPH_STUB,         /* registered, but every converter only raises */
       OM_GRAPH_NONE,         /* no converter registered */
       OM_GRAPH_DECOMPOSED,   /* PyTorch decomposes it before torchair sees it */
       OM_GRAPH_COUNT };

/* "implemented", "partial", "stub", "none", "decomposed"; "" for OM_GRAPH_ABSENT. */
const char *om_graph_status_name(int status);

/* One overload torchair registers a converter for. */
typedef struct om_graph_ov {
    const char *name;          /* "Tensor", "default", ... */
    uint8_t status;            /* OM_GRAPH_IMPLEMENTED, _PARTIAL or _STUB */
    uint8_t counted;           /* it is one of those the row's status is answered on */
    const char *sig;           /* `sigs`: its arguments' kinds ("T,N,s?"), or NULL */
} om_graph_ov;

typedef struct om_graph {
    uint8_t status;            /* OM_GRAPH_*; ABSENT when the row has no `graph:` */
    uint32_t declared;         /* Support cases torchair declares over the overloads */
    const char *via;           /* the ATen op whose converters answer (in-place ->
                                  functional, a curated alias), or NULL */
    const char *where;         /* "path:line" of its first registration, or NULL */
    const char *note;
    om_graph_ov *ovs;          /* sorted by name */
    size_t n_ovs;
    om_evidence ev;
} om_graph;

/*
 * An ATen or npu row's backward answer (docs/table-format.md, "backward"): what a training
 * step runs for the operator's gradient on the NPU.
 */
enum { OM_BW_ABSENT = 0,      /* the row gives no backward answer */
       OM_BW_FULL,            /* its backward operators have NPU kernels */
       OM_BW_PARTIAL,         /* one of them runs with limits or on the CPU */
       OM_BW_REWRITE,         /* one of them has no NPU implementation */
       OM_BW_MISSING,         /* torch_npu registers no backward: gradients cannot flow */
       OM_BW_NONE,            /* nothing to differentiate (no backward runs) */
       OM_BW_DECOMPOSED,      /* autograd differentiates what PyTorch decomposes it into */
       OM_BW_COUNT };

/* "full", "partial", "rewrite", "missing", "none", "decomposed"; "" for OM_BW_ABSENT. */
const char *om_backward_status_name(int status);

typedef struct om_backward {
    uint8_t status;            /* OM_BW_*; ABSENT when the row has no `backward:` */
    const char *via;           /* "pytorch" or "npu" (whose autograd function), or NULL */
    const char **ops;          /* the table's operators its gradient formulas call */
    size_t n_ops;
    const char **helpers;      /* PyTorch autograd helpers the formulas call */
    size_t n_helpers;
    const char *note;
    om_evidence ev;
} om_backward;

struct opmap_row {
    const char *domain, *op;
    int64_t since;             /* 0 when unversioned */
    int status;
    unsigned flags;
    const char *notes, *hint, *curated;
    const char *ascend_op, *aclnn, *api, *engine;
    const char **ascend_ops;   /* ascend.ops: the CANN/aclnn operators it ends as, in order */
    size_t n_ascend_ops;
    const char *ascend_how;    /* ascend.how: which of them when, in a few words */
    const char *tnpu_min, *tnpu_max;
    const char *pt_since, *pt_until; /* pytorch: the pinned releases that have the op */
    const char **overloads;
    size_t n_overloads;
    const char **sources;
    size_t n_sources;
    uint32_t dtypes;
    om_soc_answer *socs;
    size_t n_socs;
    om_constraint *constraints;
    size_t n_constraints;
    uint32_t line;
    /* evidence of the row's facts (docs/table-format.md, "Evidence") */
    om_evidence ev_status, ev_ascend, ev_dtypes;
    om_evidence ev_flags[OPMAP_FLAG_COUNT];
    om_input_dtypes *inputs;   /* per-input dtype lists (input 0 may also be `dtypes`) */
    size_t n_inputs;
    om_graph graph;            /* graph mode (torchair), ATen rows only */
    om_backward backward;      /* training: the gradient's operators, ATen and npu rows */
};

typedef struct om_source {
    const char *id, *title, *repo, *path, *commit, *license, *taken, *url;
    uint32_t line;
    uint8_t grade;             /* OM_GRADE_* of what is taken from it */
} om_source;

/* about.soc_parts: the exact parts of one chip family (ATC's --soc_version, npu-smi's name). */
typedef struct om_soc_parts {
    const char **parts;        /* "Ascend910B1", ... as the sources spell them */
    size_t n_parts;            /* 0: the table names no part of this family */
    om_evidence ev;
} om_soc_parts;

/* (domain, op) -> its rows, sorted by since */
typedef struct om_key_slot {
    const char *domain, *op;
    const opmap_row **rows;
    size_t n;
} om_key_slot;

struct opmap_table {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;
    const char *origin;
    const char *name, *version, *torch_npu, *cann;
    int64_t onnx_opset_max;
    const char **socs;
    size_t n_socs;
    int default_soc;
    om_soc_parts *soc_parts;   /* per about.socs entry, or NULL when the table names none */
    opmap_effort weights[OPMAP_OP_STATUS_COUNT];
    opmap_effort unpublished;  /* weights.unpublished: verifying one operator on a chip whose
                                  answer nobody published (counted apart from the estimate) */
    om_source *sources;
    size_t n_sources;
    opmap_row *rows;
    size_t n_rows;
    om_advice_rule *advice;
    size_t n_advice;
    om_key_slot *index;
    size_t index_cap;
    struct om_patterns *patterns; /* the built-in patterns (data/patterns.yaml) and source   */
    struct om_source_rules *source_rules; /* rules (data/source_rules.yaml), loaded with it */
};

/* A new, empty table (ctx, mem, arena and origin set up), or NULL. */
opmap_table *om_table_new(opmap_ctx *ctx, const char *origin);

/* Loads the built-in patterns and source rules into t (table.c), so every scan sharing the
 * table parses them once; a failure is reported under t's origin. */
int om_table_builtins(opmap_table *t, opmap_error *err);

/* Loads `data` into `t` (ctx, mem, arena, origin set up). */
int om_table_parse(opmap_table *t, const unsigned char *data, size_t size,
                   const opmap_limits *lim, opmap_error *err);

/*
 * The built-in table: data/op_map.yaml compiled to C data at build time by
 * tools/table_compile (generated table_builtin.c), so loading it parses nothing.
 */
typedef struct om_builtin {
    const char *name, *version, *torch_npu, *cann;
    int64_t onnx_opset_max;
    const char **socs;
    size_t n_socs;
    int default_soc;
    opmap_effort weights[OPMAP_OP_STATUS_COUNT];
    opmap_effort unpublished;
    om_soc_parts *soc_parts;
    om_source *sources;
    size_t n_sources;
    opmap_row *rows;
    size_t n_rows;
    om_advice_rule *advice;
    size_t n_advice;
} om_builtin;

extern const om_builtin om_builtin_table;

/*
 * Builds t->index over t->rows. On a duplicate (domain, op, since), or a mix of versioned
 * and unversioned rows for one operator, returns OPMAP_ETABLE with the two rows' indexes.
 */
int om_table_index(opmap_table *t, size_t *row_a, size_t *row_b);

/*
 * The chip `name` (its first `len` bytes) names: a family id of about.socs or one of a
 * family's parts (about.soc_parts), compared case-insensitively, family ids first. Sets
 * *family to its index in about.socs and *part to the part as the table spells it (NULL when
 * a family was named). @return 1 when found, 0 when not.
 */
int om_table_find_soc(const opmap_table *t, const char *name, size_t len, size_t *family,
                      const char **part);

/* table_graph.c: a row's `graph:` mapping (its grade and sources are the caller's:
 * table_load.c reads them as every fact's evidence). */
struct yr;
struct yt_node;
int om_graph_parse(struct yr *y, const struct yt_node *map, om_graph *out);

/* table_backward.c: a row's `backward:` mapping (grade and sources: the caller's). */
int om_backward_parse(struct yr *y, const struct yt_node *map, om_backward *out);

/* Flag bit for a table flag name, or 0. */
unsigned om_flag_from_name(const char *name);

#endif /* OM_TABLE_INTERNAL_H */
