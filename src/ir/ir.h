/*
 * ir/ir.h - the format-neutral model IR every reader fills and everything after reads.
 *
 * A model is graphs of nodes. Nodes carry a namespace (`domain`: "ai.onnx", "aten", ...),
 * an operator name, attributes, and may own subgraphs (ONNX If/Loop/Scan, TorchScript
 * prim::If/prim::Loop blocks) or call a function of the model (an ONNX model-local
 * FunctionProto, a TorchScript method of a submodule class). The walker (walker/) expands
 * calls at each call site, so instance counts and node paths follow the call stack.
 *
 * All IR memory lives in the model's arena; strings are NUL-terminated copies (operator
 * names and domains are interned, so equal names share one pointer). Nothing here points
 * into the input file.
 */
#ifndef OM_IR_H
#define OM_IR_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/model.h>

#include "core/mem.h"

/* dtypes: ONNX TensorProto.DataType numbering, which TorchScript types are mapped onto. */
enum {
    IR_DT_UNDEFINED = 0, IR_DT_FLOAT = 1, IR_DT_UINT8 = 2, IR_DT_INT8 = 3, IR_DT_UINT16 = 4,
    IR_DT_INT16 = 5, IR_DT_INT32 = 6, IR_DT_INT64 = 7, IR_DT_STRING = 8, IR_DT_BOOL = 9,
    IR_DT_FLOAT16 = 10, IR_DT_DOUBLE = 11, IR_DT_UINT32 = 12, IR_DT_UINT64 = 13,
    IR_DT_COMPLEX64 = 14, IR_DT_COMPLEX128 = 15, IR_DT_BFLOAT16 = 16,
    IR_DT_FLOAT8E4M3FN = 17, IR_DT_FLOAT8E4M3FNUZ = 18, IR_DT_FLOAT8E5M2 = 19,
    IR_DT_FLOAT8E5M2FNUZ = 20, IR_DT_UINT4 = 21, IR_DT_INT4 = 22, IR_DT_FLOAT4E2M1 = 23,
    IR_DT_COUNT = 24
};

/* The table's dtype name ("float32", "float16", ...) for a dtype; "unknown" if none. */
const char *ir_dtype_name(int dtype);
/* The dtype for a table dtype name; IR_DT_UNDEFINED if unknown. */
int ir_dtype_from_name(const char *name);

/* One dimension: a value, a symbolic name, or neither (unknown). */
typedef struct ir_dim {
    int64_t value;        /* -1 when not a fixed value */
    const char *param;    /* dim_param, or NULL */
} ir_dim;

enum { IR_TYPE_NONE = 0, IR_TYPE_TENSOR, IR_TYPE_SPARSE_TENSOR, IR_TYPE_SEQUENCE, IR_TYPE_MAP,
       IR_TYPE_OPTIONAL, IR_TYPE_OPAQUE, IR_TYPE_OTHER };

/* A value's type. Containers (sequence/map/optional) keep the innermost tensor's dtype. */
typedef struct ir_type {
    uint8_t kind;         /* IR_TYPE_* */
    uint8_t outer;        /* for containers: the outermost kind, e.g. sequence of tensor */
    int32_t elem;         /* dtype, IR_DT_UNDEFINED when unknown */
    int32_t rank;         /* -1 when the shape is unknown */
    ir_dim *dims;         /* rank entries */
} ir_type;

typedef struct ir_value {
    const char *name;
    ir_type type;
} ir_value;

/* A tensor's header; its payload is never copied. */
typedef struct ir_tensor {
    const char *name;
    int32_t dtype;
    uint32_t ndims;
    int64_t *dims;
    uint64_t payload_offset;   /* where embedded data starts in the input, when embedded */
    uint64_t payload_bytes;    /* embedded data size (raw_data or typed *_data) */
    uint8_t external;          /* data_location == EXTERNAL */
    uint8_t sparse;            /* ONNX: a GraphProto.sparse_initializer (ATC's parser reads
                                  only the dense ones: scan/atc_graph.c) */
    uint8_t has_ext_offset, has_ext_length;
    const char *ext_location;  /* external_data "location", or NULL */
    uint64_t ext_offset;       /* external_data "offset" (default 0) */
    uint64_t ext_length;       /* external_data "length" */
    uint8_t ext_check;         /* IR_EXT_*: what stat() said of the side file */
    /* Values of small numeric tensors (at most IR_SMALL_TENSOR elements), e.g. Reshape
     * targets and axes; NULL for anything larger or non-numeric. */
    double *values;
    uint32_t n_values;
} ir_tensor;

#define IR_SMALL_TENSOR 64

/* External-data side files are checked with stat() only, never opened. */
enum { IR_EXT_UNCHECKED = 0, IR_EXT_OK, IR_EXT_MISSING, IR_EXT_SHORT, IR_EXT_OUTSIDE };

enum {
    IR_ATTR_UNDEFINED = 0, IR_ATTR_FLOAT = 1, IR_ATTR_INT = 2, IR_ATTR_STRING = 3,
    IR_ATTR_TENSOR = 4, IR_ATTR_GRAPH = 5, IR_ATTR_FLOATS = 6, IR_ATTR_INTS = 7,
    IR_ATTR_STRINGS = 8, IR_ATTR_TENSORS = 9, IR_ATTR_GRAPHS = 10, IR_ATTR_SPARSE_TENSOR = 11,
    IR_ATTR_SPARSE_TENSORS = 12, IR_ATTR_TYPE_PROTO = 13, IR_ATTR_TYPE_PROTOS = 14
};

typedef struct ir_bytes {
    const char *data;     /* NUL-terminated copy (may contain NULs before size) */
    size_t size;
} ir_bytes;

struct ir_graph;

typedef struct ir_attr {
    const char *name;
    int type;                 /* IR_ATTR_* (inferred from the fields when the file omits it) */
    const char *ref_attr_name;/* in function bodies: refers to the caller's attribute */
    int64_t i;
    double f;
    ir_bytes s;
    size_t n_ints, n_floats, n_strings, n_tensors, n_graphs;
    int64_t *ints;
    double *floats;
    ir_bytes *strings;
    ir_tensor *tensors;       /* t (first) and tensors, sparse ones included */
    struct ir_graph **graphs; /* g (first) and graphs: every subgraph the attribute holds */
    /* ATen call arguments (ir_node.args) only: what the type does not say. IR_ARG_BOOL:
     * an IR_ATTR_INT that is a bool; IR_ARG_NONE: None; IR_ARG_INPUTS: the argument passes
     * inputs [arg_input, arg_input + arg_inputs) of the node (a tensor, a tensor list, a
     * value computed at run time). 0: nothing more is known. */
    uint8_t arg_kind;
    /* ... and for an argument computed at run time, its TorchScript type when the reader
     * knows it (IR_AT_*), so a call's overload can be told from its arguments */
    uint8_t arg_type;
    uint32_t arg_input, arg_inputs;
} ir_attr;

enum { IR_ARG_UNKNOWN = 0, IR_ARG_BOOL, IR_ARG_NONE, IR_ARG_INPUTS };
enum { IR_AT_UNKNOWN = 0, IR_AT_TENSOR, IR_AT_NUMBER, IR_AT_LIST, IR_AT_STRING, IR_AT_OTHER };

struct ir_function;

/*
 * What is known statically about a value a node reads or writes (ir/values.c fills it
 * after reading): dtype and rank when declared or inferable, the dimensions a declaration
 * gives (graph inputs and outputs, value_info, TorchScript's printed types, torch.export's
 * tensor metadata), whether it is a constant
 * (initializer, Constant, ConstantOfShape), and the constant tensor when there is one.
 */
typedef struct ir_fact {
    int32_t dtype;            /* IR_DT_*, IR_DT_UNDEFINED when unknown */
    int32_t rank;             /* -1 when unknown */
    const ir_dim *dims;       /* rank entries when a declaration gives the shape, else NULL
                                 (a constant's shape is its tensor's: `value`) */
    uint8_t is_const;
    uint8_t dims_inferred;    /* dims computed from the inputs' (ir/shapes.c), not declared */
    /* Where `rank` is unknown: the rank ir/shapes.c reads off the length of a Reshape's
     * target whose values are computed at run time (Shape -> Gather -> Unsqueeze -> Concat),
     * carried through rank-keeping operators; 0 when none. No dimension is known, so `rank`
     * stays -1 and every reader of shapes (signatures, testgen, reports) sees an unknown
     * shape; only rank conditions (rules/constraints.c) read it. */
    uint8_t rank_only;
    /* The integer values of shape arithmetic (Shape of a known shape, Gather, Concat, ...
     * of them), computed by ir/shapes.c for the shapes downstream (a Reshape's target):
     * opmap's reading, never a constant of the model (`value` is that), or NULL. */
    const struct ir_tensor *shape_data;
    /* Integer shape arithmetic: computed only from tensor shapes (Shape, Size) and integer
     * constants, so the graph engine folds it at compile time or runs it on the host. */
    uint8_t is_shape;
    /* Of is_shape: read off a tensor's shape (a Shape or Size upstream), so fixing the input
     * shapes decides it; 0 where it is computed from constants alone (a weight's norm). */
    uint8_t from_shape;
    const ir_tensor *value;   /* the constant's tensor (values only when small), or NULL */
    const struct ir_node *def;/* the node of the same graph computing it, or NULL (an input,
                                 an initializer, a value of an enclosing graph) */
} ir_fact;

typedef struct ir_node {
    const char *name;         /* "" when unnamed */
    const char *domain;       /* canonical: ONNX "" is "ai.onnx"; interned */
    const char *op;           /* op_type / kind without namespace; interned */
    uint32_t n_inputs, n_outputs, n_attrs;
    const char **inputs;      /* "" for an omitted optional input */
    const char **outputs;
    ir_attr *attrs;
    ir_type *out_types;       /* TorchScript: printed output types (n_outputs), else NULL */
    struct ir_function *callee;  /* a function of the model this node calls, or NULL */
    const char *overload;     /* ONNX IR 10 NodeProto.overload: with domain and op, which
                                 local function it calls; "" or NULL when none; interned */
    const char *call_label;   /* path segment for the call (TorchScript module attribute) */
    const char *src_file;     /* original source location, when known */
    uint32_t src_line;
    uint64_t offset;          /* byte offset of the node in the input (binary formats) */
    ir_fact *in_facts;        /* n_inputs entries, filled by ir/values.c */
    ir_fact *out_facts;       /* n_outputs entries */
    /* TorchScript: the call's arguments in schema order, as the graph passes them. An
     * argument that is a constant scalar (bool and int as IR_ATTR_INT, float, string) or a
     * constant list of ints/floats is kept with its value; anything else (a tensor, a value
     * computed at run time, None) has type IR_ATTR_UNDEFINED. `name` is the keyword of a
     * keyword argument, else NULL. Constraints on ATen rows read arguments by position. */
    ir_attr *args;
    uint32_t n_args;
    /* TorchScript archives: which value each input reads and each output writes, as names
     * unique within the lowering ("7"), so patterns can follow the dataflow (rules/
     * pattern_match.c); inputs/outputs stay empty there, as value facts are not inferred
     * for those graphs. NULL elsewhere. */
    const char **flow_in, **flow_out;
    uint32_t n_flow_in, n_flow_out;
    /* TorchScript archives: every output is a scalar, a string, or a list, tuple or
     * optional of them (`int = aten::sub(%a, %b)`: the interpreter's arithmetic, no tensor
     * computed); printed graphs say it in out_types instead */
    uint8_t scalar_out;
} ir_node;

typedef struct ir_graph {
    const char *name;
    ir_node *nodes;
    size_t n_nodes;
    ir_value *inputs, *outputs, *value_info;
    size_t n_inputs, n_outputs, n_value_info;
    ir_tensor *inits;
    size_t n_inits;
    size_t n_sparse_inits;
} ir_graph;

typedef struct ir_opset {
    const char *domain;       /* canonical */
    int64_t version;
} ir_opset;

typedef struct ir_function {
    const char *domain;       /* canonical */
    const char *name;
    const char *overload;     /* ONNX IR 10 FunctionProto.overload ("" when none); interned.
                                 Calls are matched on (domain, name, overload). */
    ir_opset *opsets;         /* the function's own imports */
    size_t n_opsets;
    ir_graph body;            /* nodes; inputs/outputs carry names only */
    const char **attr_names;
    size_t n_attr_names;
    /* ONNX IR 9 FunctionProto.attribute_proto: attributes with default values, used where
     * a body attribute's ref_attr_name names one the call does not pass (onnx's inliner
     * and onnxruntime bind them so); names are unique, none has a ref_attr_name */
    ir_attr *defaults;
    size_t n_defaults;
    uint8_t redefined;        /* a later FunctionProto has the same (domain, name,
                                 overload): calls go to the last, as onnxruntime and onnx's
                                 inliner read it; this one is never called */
} ir_function;

typedef struct ir_model {
    opmap_format format;
    const char *name;          /* path or given name */
    int64_t ir_version;
    const char *producer_name, *producer_version, *domain, *doc;
    int64_t model_version;
    ir_opset *opsets;
    size_t n_opsets;
    ir_graph *main;
    ir_graph **extra_graphs;   /* ONNX training_info graphs, walked after main */
    const char **extra_labels; /* their path labels, e.g. "training0/algorithm" */
    size_t n_extra;
    ir_function *functions;
    size_t n_functions;
    ir_tensor *external;       /* copies of every tensor whose data is in a side file */
    size_t n_external;
    opmap_model_stats stats;
    om_mem mem;
    om_arena arena;
    /* While reading a file: its lazy view, whose bytes readers ask for with om_need()
     * (core/mapfile.h); NULL when the input is all in memory. */
    struct om_mapped *input;
    /* TorchScript: the reads of a module's `training` flag taken as False (the model read
     * in eval mode, as inference runs it), so code run only in training is not in the IR */
    uint64_t training_reads_folded;
} ir_model;

/* Canonical domain: NULL, "" and "ai.onnx" are all "ai.onnx". */
const char *ir_canon_domain(const char *domain);

/* Opset version of `domain` in `opsets` (the last import when it is listed twice, as onnx's
 * checker reads it), or 0 when not imported. */
int64_t ir_opset_version(const ir_opset *opsets, size_t n, const char *domain);

/* Attribute `name` of a node, or NULL. */
const ir_attr *ir_node_attr(const ir_node *node, const char *name);

/*
 * TorchScript arithmetic on scalars, strings and lists (`int = aten::sub(%a, %b)`): every
 * output is a scalar, a string, or a list, optional or map of them, so no tensor is
 * computed (the interpreter does it on the host). An archive's lowering marks such nodes
 * (scalar_out); a printed graph gives each output's type. 0 for other formats.
 */
int ir_node_scalar_only(const ir_node *node);

/*
 * String interning for names that repeat (domains, operator names): equal strings share
 * one arena copy, so later stages can compare them by pointer.
 */
typedef struct ir_interner {
    const char **slots;
    size_t cap, len;
    om_mem *mem;
    om_arena *arena;
} ir_interner;

void ir_intern_init(ir_interner *t, om_mem *mem, om_arena *arena);
const char *ir_intern(ir_interner *t, const char *s, size_t n);  /* NULL on OOM */
void ir_intern_free(ir_interner *t);

#endif /* OM_IR_H */
