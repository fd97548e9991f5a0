/*
 * ir/values.c - dtype, rank and constness of every value (see values.h).
 *
 * Each graph gets a scope: a hash table from value name to fact, chained to the enclosing
 * graph's scope, filled in node order (ONNX graphs are topologically sorted). Recursion
 * follows subgraph nesting, which the readers already bounded by limits.max_depth.
 */
#include "values.h"

#include <string.h>

#include "core/err.h"
#include "core/hash.h"

typedef struct scope {
    struct scope *parent;
    const char **names;
    ir_fact *facts;
    size_t cap;
} scope;

typedef struct infer {
    ir_model *m;
    opmap_error *err;
} infer;

static int scope_init(infer *in, scope *s, scope *parent, size_t values)
{
    s->parent = parent;
    s->cap = 16;
    while (s->cap < values * 2)
        s->cap *= 2;
    s->names = om_calloc(&in->m->mem, s->cap, sizeof(*s->names));
    s->facts = om_calloc(&in->m->mem, s->cap, sizeof(*s->facts));
    return s->names && s->facts;
}

static void scope_free(infer *in, scope *s)
{
    if (s->names)
        om_dealloc(&in->m->mem, s->names, s->cap * sizeof(*s->names));
    if (s->facts)
        om_dealloc(&in->m->mem, s->facts, s->cap * sizeof(*s->facts));
}

/* The slot for `name` in this scope only (found or empty). */
static size_t slot(const scope *s, const char *name)
{
    size_t j = om_hash_name(name) & (s->cap - 1);
    while (s->names[j] && strcmp(s->names[j], name) != 0)
        j = (j + 1) & (s->cap - 1);
    return j;
}

static const ir_fact *lookup(const scope *s, const char *name)
{
    for (; s; s = s->parent) {
        size_t j = slot(s, name);
        if (s->names[j])
            return &s->facts[j];
    }
    return NULL;
}

/* Records what is known about `name`; a known dtype or rank is never replaced by unknown. */
static void define(scope *s, const char *name, const ir_fact *f)
{
    size_t j;
    if (!name || !name[0])
        return;
    j = slot(s, name);
    if (!s->names[j]) {
        s->names[j] = name;
        s->facts[j] = *f;
        return;
    }
    if (!s->facts[j].dtype)
        s->facts[j].dtype = f->dtype;
    if (s->facts[j].rank < 0)
        s->facts[j].rank = f->rank;
    if (s->facts[j].rank >= 0)
        s->facts[j].rank_only = 0; /* a rank known: no reading of it */
    else if (!s->facts[j].rank_only)
        s->facts[j].rank_only = f->rank_only;
    if (!s->facts[j].dims && f->dims && f->rank == s->facts[j].rank)
        s->facts[j].dims = f->dims;
    s->facts[j].is_const |= f->is_const;
    s->facts[j].is_shape |= f->is_shape;
    s->facts[j].from_shape |= f->from_shape;
    if (!s->facts[j].value)
        s->facts[j].value = f->value;
    if (!s->facts[j].def)
        s->facts[j].def = f->def;
}

static ir_fact from_type(const ir_type *t)
{
    ir_fact f;
    memset(&f, 0, sizeof(f));
    f.dtype = t->kind == IR_TYPE_TENSOR || t->kind == IR_TYPE_SPARSE_TENSOR ? t->elem : 0;
    f.rank = t->kind == IR_TYPE_TENSOR ? t->rank : -1;
    f.dims = f.rank > 0 ? t->dims : NULL;
    return f;
}

/* ---- per-operator dtype rules (ai.onnx) ---- */

static int in_list(const char *op, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(op, *list) == 0)
            return 1;
    return 0;
}

static const char *const same_as_input0[] = {
    "Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "AveragePool",
    "BatchNormalization", "BitShift", "Ceil", "Celu", "Clip", "Compress", "Concat", "Conv",
    "ConvTranspose", "Cos", "Cosh", "CumSum", "DepthToSpace", "Det", "Div", "Dropout",
    "Einsum", "Elu", "Erf", "Exp", "Expand", "Flatten", "Floor", "Gather", "GatherElements",
    "GatherND", "Gelu", "Gemm", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool",
    "GroupNormalization", "HardSigmoid", "HardSwish", "Hardmax", "Identity",
    "InstanceNormalization", "LRN", "LayerNormalization", "LeakyRelu", "Log", "LogSoftmax",
    "LpNormalization", "LpPool", "MatMul", "Max", "MaxPool", "MaxRoiPool", "MaxUnpool", "Mean",
    "MeanVarianceNormalization", "Min", "Mish", "Mod", "Mul", "Neg", "PRelu", "Pad", "Pow",
    "Reciprocal", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
    "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Relu", "Reshape",
    "Resize", "ReverseSequence", "RoiAlign", "Round", "ScatterElements", "ScatterND", "Scatter",
    "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Slice", "Softmax", "Softplus",
    "Softsign", "SpaceToDepth", "Split", "Sqrt", "Squeeze", "Sub", "Sum", "Tan", "Tanh",
    "ThresholdedRelu", "Tile", "TopK", "Transpose", "Trilu", "Unique", "Unsqueeze", "Upsample",
    "GridSample", "AffineGrid", "CenterCropPad", "Col2Im", "DFT", "STFT", NULL
};

/* Operators whose inputs all share the output's type. */
static const char *const variadic[] = {
    "Concat", "Max", "Mean", "Min", "Sum", NULL
};

static const char *const recurrent[] = { "GRU", "LSTM", "RNN", NULL };

static const char *const gives_bool[] = {
    "And", "Equal", "Greater", "GreaterOrEqual", "IsInf", "IsNaN", "Less", "LessOrEqual",
    "Not", "Or", "Xor", NULL
};

static const char *const gives_int64[] = {
    "ArgMax", "ArgMin", "NonMaxSuppression", "NonZero", "Shape", "Size", NULL
};

static int32_t attr_int(const ir_node *n, const char *name, int32_t dflt)
{
    const ir_attr *a = ir_node_attr(n, name);
    return a && a->type == IR_ATTR_INT ? (int32_t)a->i : dflt;
}

static int32_t in_dtype(const ir_node *n, uint32_t i)
{
    return i < n->n_inputs && n->in_facts ? n->in_facts[i].dtype : 0;
}

/* ONNX operators whose output 0 has input 0's rank, whatever their attributes */
static const char *const same_rank_as_input0[] = {
    "Abs", "Acos", "Asin", "Atan", "AveragePool", "BatchNormalization", "Cast", "Ceil", "Celu",
    "Clip", "Conv", "ConvTranspose", "Cos", "DepthToSpace", "Dropout", "Elu", "Erf", "Exp",
    "Floor", "Gelu", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "GroupNormalization",
    "HardSigmoid", "HardSwish", "Hardmax", "Identity", "InstanceNormalization", "IsInf", "IsNaN",
    "LRN", "LayerNormalization", "LeakyRelu", "Log", "LogSoftmax", "LpNormalization", "LpPool",
    "MaxPool", "Mish", "Neg", "Not", "Pad", "Reciprocal", "Relu", "Resize", "Round", "Selu",
    "Shrink", "Sigmoid", "Sign", "Sin", "Softmax", "Softplus", "Softsign", "SpaceToDepth", "Sqrt",
    "Tan", "Tanh", "ThresholdedRelu", "Transpose", "Upsample", NULL
};

/* ... and the elementwise ones that broadcast their inputs: the largest rank */
static const char *const broadcast_rank[] = {
    "Add", "And", "BitShift", "Div", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual",
    "Max", "Mean", "Min", "Mod", "Mul", "Or", "PRelu", "Pow", "Sub", "Sum", "Where", "Xor", NULL
};

/* An input's rank; with `only`, its rank-only reading (ir_fact.rank_only) where no rank is
 * known. -1 when unknown. */
static int32_t in_rank(const ir_node *n, uint32_t i, int only)
{
    const ir_fact *f = &n->in_facts[i];
    if (!n->inputs[i][0])
        return -1;
    if (f->rank >= 0)
        return f->rank;
    return only && f->rank_only ? (int32_t)f->rank_only : -1;
}

static int32_t rule_rank(const ir_node *n, int only)
{
    uint32_t i;
    int32_t r = -1;
    if (strcmp(n->domain, "ai.onnx") != 0 || !n->in_facts || !n->n_inputs)
        return -1;
    if (in_list(n->op, same_rank_as_input0))
        return in_rank(n, 0, only);
    if (!in_list(n->op, broadcast_rank))
        return -1;
    for (i = 0; i < n->n_inputs; i++) {
        int32_t k = in_rank(n, i, only);
        if (k < 0)
            return -1;     /* every input's rank known, or none told */
        if (k > r)
            r = k;
    }
    return r;
}

int32_t om_values_rule_rank(const ir_node *n)
{
    return rule_rank(n, 0);
}

/* ir_fact.rank_only of output 0 where its rank is unknown: a Reshape's from its target's
 * length, or carried from the inputs by the rank rules above; 0 when none. */
static uint8_t rank_only(const ir_node *n)
{
    int32_t r = om_values_rule_reshape_rank(n);
    if (r < 0)
        r = rule_rank(n, 1);
    return r > 0 && r <= UINT8_MAX ? (uint8_t)r : 0;
}

int32_t om_values_rule_dtype(const ir_node *n, uint32_t out)
{
    const char *op = n->op;
    if (strcmp(n->domain, "ai.onnx") != 0)
        return 0;
    /* operators whose second output has its own type */
    if (out == 1 && (strcmp(op, "TopK") == 0 || strcmp(op, "MaxPool") == 0 ||
                     strcmp(op, "Unique") == 0))
        return IR_DT_INT64;
    if (out == 1 && strcmp(op, "Dropout") == 0)
        return IR_DT_BOOL;
    if (out > 0 && (strcmp(op, "LayerNormalization") == 0 || strcmp(op, "Unique") == 0))
        return 0;
    if (in_list(op, gives_bool))
        return IR_DT_BOOL;
    if (in_list(op, gives_int64))
        return IR_DT_INT64;
    if (strcmp(op, "Cast") == 0)
        return attr_int(n, "to", 0);
    if (strcmp(op, "CastLike") == 0)
        return in_dtype(n, 1);
    if (strcmp(op, "Where") == 0)
        return in_dtype(n, 1) ? in_dtype(n, 1) : in_dtype(n, 2);
    if (strcmp(op, "Range") == 0)
        return in_dtype(n, 0);
    if (strcmp(op, "EyeLike") == 0 || strcmp(op, "RandomNormalLike") == 0 ||
        strcmp(op, "RandomUniformLike") == 0 || strcmp(op, "Bernoulli") == 0)
        return attr_int(n, "dtype", in_dtype(n, 0));
    if (strcmp(op, "RandomNormal") == 0 || strcmp(op, "RandomUniform") == 0)
        return attr_int(n, "dtype", IR_DT_FLOAT);
    if (strcmp(op, "Multinomial") == 0)
        return attr_int(n, "dtype", IR_DT_INT32);
    if (strcmp(op, "MatMulInteger") == 0 || strcmp(op, "ConvInteger") == 0)
        return IR_DT_INT32;
    if (strcmp(op, "QuantizeLinear") == 0)
        return n->n_inputs > 2 && n->inputs[2][0] ? in_dtype(n, 2) : IR_DT_UINT8;
    if (strcmp(op, "DequantizeLinear") == 0)
        return in_dtype(n, 1) ? in_dtype(n, 1) : IR_DT_FLOAT;
    if (in_list(op, recurrent))
        return in_dtype(n, 0); /* Y, Y_h, Y_c: the type of X */
    if (in_list(op, variadic)) {
        uint32_t i;
        /* every input has the output's type: the first one whose type is known */
        for (i = 0; i < n->n_inputs; i++)
            if (in_dtype(n, i))
                return in_dtype(n, i);
    }
    /* input 0 only: the other inputs (axes, shape, indices, pads) have types of their own */
    if (in_list(op, same_as_input0))
        return in_dtype(n, 0);
    return 0;
}

/* ---- constants ---- */

static void constant_fact(const ir_node *n, ir_fact *f)
{
    uint32_t i;
    f->is_const = 1;
    for (i = 0; i < n->n_attrs; i++) {
        const ir_attr *a = &n->attrs[i];
        if (strcmp(a->name, "value") == 0 && a->n_tensors) {
            f->dtype = a->tensors[0].dtype;
            f->rank = (int32_t)a->tensors[0].ndims;
            f->value = &a->tensors[0];
        } else if (strcmp(a->name, "value_float") == 0) {
            f->dtype = IR_DT_FLOAT;
            f->rank = 0;
        } else if (strcmp(a->name, "value_floats") == 0) {
            f->dtype = IR_DT_FLOAT;
            f->rank = 1;
        } else if (strcmp(a->name, "value_int") == 0) {
            f->dtype = IR_DT_INT64;
            f->rank = 0;
        } else if (strcmp(a->name, "value_ints") == 0) {
            f->dtype = IR_DT_INT64;
            f->rank = 1;
        } else if (strcmp(a->name, "value_string") == 0 || strcmp(a->name, "value_strings") == 0) {
            f->dtype = IR_DT_STRING;
            f->rank = a->name[12] == 's' ? 1 : 0;
        }
    }
}

/* ---- shape arithmetic ---- */

/*
 * Whether a node's outputs are shape arithmetic: Shape and Size read only a tensor's shape;
 * any other ai.onnx node whose inputs are all shape arithmetic or constants computes a
 * function of shapes and constants (pads from sizes, window indices...), which the graph
 * engine folds at compile time for static shapes and runs on the host otherwise. Random
 * operators and nodes with subgraphs never qualify.
 */
static int shape_arithmetic(const ir_node *n)
{
    uint32_t i, present = 0;
    if (strcmp(n->domain, "ai.onnx") != 0 || !n->in_facts)
        return 0;
    if (strcmp(n->op, "Shape") == 0 || strcmp(n->op, "Size") == 0)
        return 1;
    if (strncmp(n->op, "Random", 6) == 0 || strcmp(n->op, "Bernoulli") == 0 ||
        strcmp(n->op, "Multinomial") == 0 || strcmp(n->op, "Dropout") == 0)
        return 0;
    for (i = 0; i < n->n_attrs; i++)
        if (n->attrs[i].n_graphs)
            return 0; /* If, Loop, Scan: their bodies decide */
    for (i = 0; i < n->n_inputs; i++) {
        const ir_fact *f = &n->in_facts[i];
        if (!n->inputs[i][0])
            continue; /* an omitted optional input */
        if (!f->is_shape && !f->is_const)
            return 0;
        present++;
    }
    return present > 0;
}

/* Whether shape arithmetic reads a tensor's shape: a Shape or Size, or an input that does;
 * the rest of it computes from constants alone. */
static int reads_a_shape(const ir_node *n)
{
    uint32_t i;
    if (strcmp(n->op, "Shape") == 0 || strcmp(n->op, "Size") == 0)
        return 1;
    for (i = 0; i < n->n_inputs; i++)
        if (n->inputs[i][0] && n->in_facts[i].from_shape)
            return 1;
    return 0;
}

/* ---- graphs ---- */

static int infer_graph(infer *in, ir_graph *g, scope *parent);

static int infer_node(infer *in, ir_node *n, scope *s)
{
    uint32_t i, a;
    size_t k;
    int is_shape, from_shape;
    int32_t rule_dt = 0;
    if ((n->n_inputs && !(n->in_facts = om_arena_array(&in->m->arena, n->n_inputs, sizeof(ir_fact)))) ||
        (n->n_outputs && !(n->out_facts = om_arena_array(&in->m->arena, n->n_outputs, sizeof(ir_fact)))))
        return om_fail_mem(in->err, &in->m->mem, in->m->name);
    for (i = 0; i < n->n_inputs; i++) {
        const ir_fact *f = n->inputs[i][0] ? lookup(s, n->inputs[i]) : NULL;
        n->in_facts[i].rank = -1;
        if (f)
            n->in_facts[i] = *f;
    }
    /* once per node, not per output: a hostile node may have many of both */
    is_shape = shape_arithmetic(n);
    from_shape = is_shape && reads_a_shape(n);
    for (i = 0; i < n->n_outputs; i++) {
        ir_fact *o = &n->out_facts[i];
        const ir_fact *declared = lookup(s, n->outputs[i]);
        o->rank = -1;
        if (n->out_types && n->out_types[i].kind == IR_TYPE_TENSOR)
            *o = from_type(&n->out_types[i]);
        if (i == 0 && strcmp(n->domain, "ai.onnx") == 0) {
            if (strcmp(n->op, "Constant") == 0) {
                constant_fact(n, o);
            } else if (strcmp(n->op, "ConstantOfShape") == 0) {
                const ir_attr *v = ir_node_attr(n, "value");
                o->is_const = 1;
                o->dtype = v && v->n_tensors ? v->tensors[0].dtype : IR_DT_FLOAT;
            } else if (strcmp(n->op, "Shape") == 0) {
                o->rank = 1;
            } else if (strcmp(n->op, "Size") == 0) {
                o->rank = 0;
            }
        }
        /* the rules tell outputs 0 to 3 apart (TopK, Unique...); later ones are like 3 */
        if (i < 4)
            rule_dt = om_values_rule_dtype(n, i);
        if (!o->dtype)
            o->dtype = rule_dt;
        if (i == 0 && o->rank < 0)
            o->rank = om_values_rule_rank(n);
        if (i == 0 && !o->dims && !o->value && !(declared && declared->dims)) {
            /* what onnx's shape inference would state, where the model does not */
            int32_t r;
            const ir_dim *d;
            int got = om_values_rule_dims(n, &in->m->arena, &r, &d);
            if (got < 0)
                return om_fail_mem(in->err, &in->m->mem, in->m->name);
            if (got && (o->rank < 0 || o->rank == r)) {
                o->rank = r;
                o->dims = d;
                o->dims_inferred = 1;
            }
        }
        if (i == 0 && !o->value && is_shape) {
            /* the values of shape arithmetic, for a Reshape's or Expand's target below */
            const ir_tensor *data;
            int got = om_values_rule_data(n, &in->m->arena, &data);
            if (got < 0)
                return om_fail_mem(in->err, &in->m->mem, in->m->name);
            o->shape_data = got ? data : NULL;
        }
        o->is_shape = (uint8_t)is_shape;
        o->from_shape = (uint8_t)from_shape;
        o->def = n;
        if (declared) {
            if (declared->dtype)
                o->dtype = declared->dtype;
            if (declared->rank >= 0 && declared->rank != o->rank) {
                o->rank = declared->rank;
                o->dims = declared->dims;
            } else if (declared->dims) {
                o->dims = declared->dims;
            }
        }
        if (i == 0 && o->rank < 0)
            o->rank_only = rank_only(n);
        define(s, n->outputs[i], o);
    }
    for (a = 0; a < n->n_attrs; a++)
        for (k = 0; k < n->attrs[a].n_graphs; k++) {
            int rc = infer_graph(in, n->attrs[a].graphs[k], s);
            if (rc)
                return rc;
        }
    return OPMAP_OK;
}

static int infer_graph(infer *in, ir_graph *g, scope *parent)
{
    scope s;
    size_t i, values = g->n_inputs + g->n_outputs + g->n_value_info + g->n_inits;
    int rc = OPMAP_OK;
    for (i = 0; i < g->n_nodes; i++)
        values += g->nodes[i].n_outputs;
    if (!scope_init(in, &s, parent, values)) {
        scope_free(in, &s);
        return om_fail_mem(in->err, &in->m->mem, in->m->name);
    }
    for (i = 0; i < g->n_inputs; i++) {
        ir_fact f = from_type(&g->inputs[i].type);
        define(&s, g->inputs[i].name, &f);
    }
    for (i = 0; i < g->n_inits; i++) {
        ir_fact f;
        memset(&f, 0, sizeof(f)); /* is_shape and def too: stack garbage made reports vary */
        f.dtype = g->inits[i].dtype;
        f.rank = (int32_t)g->inits[i].ndims;
        f.is_const = 1;
        f.value = &g->inits[i];
        define(&s, g->inits[i].name, &f);
    }
    for (i = 0; i < g->n_value_info; i++) {
        ir_fact f = from_type(&g->value_info[i].type);
        define(&s, g->value_info[i].name, &f);
    }
    for (i = 0; i < g->n_outputs; i++) {
        ir_fact f = from_type(&g->outputs[i].type);
        define(&s, g->outputs[i].name, &f);
    }
    for (i = 0; i < g->n_nodes && rc == OPMAP_OK; i++)
        rc = infer_node(in, &g->nodes[i], &s);
    scope_free(in, &s);
    return rc;
}

int om_values_infer(ir_model *m, opmap_error *err)
{
    infer in;
    size_t i;
    int rc = OPMAP_OK;
    in.m = m;
    in.err = err;
    if (m->main)
        rc = infer_graph(&in, m->main, NULL);
    for (i = 0; rc == OPMAP_OK && i < m->n_extra; i++)
        rc = infer_graph(&in, m->extra_graphs[i], NULL);
    /* function bodies know nothing of their callers: only what they declare or compute */
    for (i = 0; rc == OPMAP_OK && i < m->n_functions; i++) {
        const ir_function *fn = &m->functions[i];
        size_t d, k;
        rc = infer_graph(&in, &m->functions[i].body, NULL);
        /* graphs of attribute defaults (IR 9) are walked where a call does not pass them */
        for (d = 0; rc == OPMAP_OK && d < fn->n_defaults; d++)
            for (k = 0; rc == OPMAP_OK && k < fn->defaults[d].n_graphs; k++)
                rc = infer_graph(&in, fn->defaults[d].graphs[k], NULL);
    }
    return rc;
}
