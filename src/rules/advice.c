/*
 * rules/advice.c - the advice detectors (see advice.h).
 *
 * Each looks at one instance at a time, or at the model's inputs at the end; none recurses
 * and none allocates. A value chain is followed through ir_fact.def at most CHAIN_MAX steps.
 */
#include "advice.h"

#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "table/table_internal.h"

#define CHAIN_MAX 16

static int onnx_op(const ir_node *n, const char *op)
{
    return strcmp(n->domain, "ai.onnx") == 0 && strcmp(n->op, op) == 0;
}

int om_advice_applies(int detector, int atc)
{
    /* the ATC conversion advice reads the graphs ATC converts; aten_gelu reads ATen ones
     * (table/detectors.def) */
    enum { ATC = 1, ATEN = 0 };
    static const unsigned char reads_atc[OM_DET_COUNT] = {
        0,
#define OM_DETECTOR(id, name, graphs, matches) graphs,
#include "table/detectors.def"
#undef OM_DETECTOR
    };
    return detector > 0 && detector < OM_DET_COUNT && reads_atc[detector] ? atc : !atc;
}

/* Counts a match and keeps the first one's path. */
static void hit(om_advice_state *st, const om_visit *v)
{
    if (!st->count++)
        snprintf(st->where, sizeof(st->where), "%s", v->path);
}

/* Adds an operator name to a list once ("Shape, Gather, Unsqueeze"), six at most. */
static void note_op_in(char *list, size_t size, size_t *list_len, const char *op)
{
    const char *p = list;
    size_t n = 0, len = strlen(op);
    while (*p) {
        size_t item = strcspn(p, ",");
        if (item == len && strncmp(p, op, len) == 0)
            return; /* named already */
        n++;
        p += item;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (n >= 6)
        return;
    om_appendf(list, size, list_len, "%s%s", *list_len ? ", " : "", op);
}

static void note_op(om_advice_state *st, const char *op)
{
    note_op_in(st->value, sizeof(st->value), &st->value_len, op);
}

static int const_scalar(const ir_fact *f, double *out)
{
    if (!f->is_const || !f->value || !f->value->values || f->value->n_values != 1)
        return 0;
    *out = f->value->values[0];
    return 1;
}

/* The number of values list attribute `name` holds (0 when absent). */
static size_t attr_count(const ir_node *n, const char *name)
{
    const ir_attr *a = ir_node_attr(n, name);
    return !a ? 0 : a->type == IR_ATTR_INTS ? a->n_ints : 1;
}

/* Whether the node is one of the ONNX operators of a NULL-terminated list. */
static int onnx_op_in(const ir_node *n, const char *const *ops)
{
    size_t i;
    for (i = 0; ops[i]; i++)
        if (onnx_op(n, ops[i]))
            return 1;
    return 0;
}

/* Operators that move or select a constant's values without arithmetic: left out of the
 * constant arithmetic onnx_simplifier names (an Expand of a class token is not worth a pass). */
static const char *const data_movement[] = { "Identity", "Reshape", "Transpose", "Unsqueeze",
                                             "Squeeze", "Flatten", "Cast", "Concat", "Slice",
                                             "Gather", "Split", "Expand", "Tile", NULL };

static int float_dtype(int32_t dt)
{
    return dt == IR_DT_FLOAT || dt == IR_DT_FLOAT16 || dt == IR_DT_BFLOAT16 ||
           dt == IR_DT_DOUBLE;
}

/* An operator that works element by element on one tensor: a Transpose commutes with it. */
static int elementwise(const ir_node *n)
{
    static const char *const ops[] = { "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Selu",
                                       "Abs", "Neg", "Exp", "Cast", "HardSigmoid", "Softplus",
                                       "Identity", NULL };
    return onnx_op_in(n, ops) && n->n_inputs == 1;
}

/* 1 when Transposes a then b (perms) leave the axes where they were. */
static int perms_cancel(const ir_node *a, const ir_node *b)
{
    const ir_attr *p = ir_node_attr(a, "perm"), *q = ir_node_attr(b, "perm");
    size_t i;
    if (!p || !q || p->type != IR_ATTR_INTS || q->type != IR_ATTR_INTS || p->n_ints != q->n_ints ||
        !p->n_ints || p->n_ints > 8)
        return 0;
    for (i = 0; i < q->n_ints; i++)
        if (q->ints[i] < 0 || (size_t)q->ints[i] >= p->n_ints || p->ints[q->ints[i]] != (int64_t)i)
            return 0;
    return 1;
}

/* The node of the main graph computing input k, or NULL. */
static const ir_node *def_of(const ir_node *n, uint32_t k)
{
    return k < n->n_inputs && n->inputs[k][0] ? n->in_facts[k].def : NULL;
}

static int any_shape_input(const ir_node *n)
{
    uint32_t i;
    for (i = 0; i < n->n_inputs; i++)
        if (n->inputs[i][0] && n->in_facts[i].is_shape)
            return 1;
    return 0;
}

/* The operators whose int64 arithmetic the recipes narrow to int32: any input of the
 * first list, the data input (0) of the second. */
static const char *const int64_any_input[] = { "Add", "Sub", "Mul", "Div", "Mod", "Neg", "Abs",
                                               "Max", "Min", "Equal", "Less", "Greater",
                                               "LessOrEqual", "GreaterOrEqual", "Where", NULL };
static const char *const int64_data_input[] = { "Slice", "ScatterND", "ScatterElements",
                                                "Expand", "Tile", "CumSum", NULL };

/* Whether one of inputs [from, to) is int64, computed at run time and not from shapes. */
static int runtime_int64(const ir_node *n, uint32_t from, uint32_t to)
{
    uint32_t k;
    for (k = from; k < to && k < n->n_inputs; k++)
        if (n->inputs[k][0] && n->in_facts[k].dtype == IR_DT_INT64 && !n->in_facts[k].is_const &&
            !n->in_facts[k].is_shape)
            return 1;
    return 0;
}

/* Whether a value's known shape has a dimension of size 0 (an empty tensor). */
static int has_zero_dim(const ir_fact *f)
{
    int32_t i;
    if (!f->dims || f->rank <= 0)
        return 0;
    for (i = 0; i < f->rank; i++)
        if (!f->dims[i].param && f->dims[i].value == 0)
            return 1;
    return 0;
}

/* The constant values of a node's input k, or NULL. */
static const ir_tensor *const_input(const ir_node *n, uint32_t k)
{
    const ir_tensor *t;
    if (k >= n->n_inputs || !n->inputs[k][0] || !n->in_facts[k].is_const)
        return NULL;
    t = n->in_facts[k].value;
    return t && t->values ? t : NULL;
}

/* A Slice that is empty whatever its input: on some axis its start equals its end with a
 * positive step (inputs at opset 10 and later, attributes before). */
static int slice_empty_range(const ir_node *d)
{
    const ir_tensor *s = const_input(d, 1), *e = const_input(d, 2), *st = const_input(d, 4);
    const ir_attr *as = ir_node_attr(d, "starts"), *ae = ir_node_attr(d, "ends");
    uint32_t i;
    if (d->n_inputs >= 3) {
        if (!s || !e || s->n_values != e->n_values || (d->n_inputs > 4 && d->inputs[4][0] &&
                                                      (!st || st->n_values != s->n_values)))
            return 0;
        for (i = 0; i < s->n_values; i++)
            if (s->values[i] == e->values[i] && (!st || st->values[i] > 0))
                return 1;
        return 0;
    }
    if (!as || !ae || as->type != IR_ATTR_INTS || ae->type != IR_ATTR_INTS ||
        as->n_ints != ae->n_ints)
        return 0;
    for (i = 0; i < as->n_ints; i++)
        if (as->ints[i] == ae->ints[i])
            return 1;
    return 0;
}

/* The ops from the graph input to a value, following input 0 (outermost first). */
static void chain_to_input(const ir_fact *f, char *buf, size_t size)
{
    const ir_node *seen[CHAIN_MAX];
    size_t n = 0, used = 0, i;
    buf[0] = 0;
    while (f && f->def && n < CHAIN_MAX) {
        const ir_node *d = f->def;
        seen[n++] = d;
        if (!d->n_inputs || !d->in_facts || !d->inputs[0][0])
            return; /* starts at a constant or an omitted input: not an input's preprocessing */
        f = &d->in_facts[0];
    }
    if (!f || f->def || f->is_const || !n)
        return;
    for (i = n; i-- > 0;)
        om_appendf(buf, size, &used, "%s%s", i + 1 == n ? "" : " -> ", seen[i]->op);
}

/*
 * The detectors of one node's pattern (issue 31: what the recipes of detection, audio, OCR,
 * NLP, super-resolution and video models changed): 1 when the node is a match.
 */
static int pattern_hit(int detector, const ir_node *n, om_advice_state *st)
{
    const ir_node *d;
    const ir_attr *a;
    const ir_tensor *t;
    switch (detector) {
    case OM_DET_CONV_1D:
        /* a 1-D Conv / ConvTranspose (3-D weight) or a 1-D pool (one kernel value): ATC wraps
         * each in Unsqueeze/Squeeze; the recipes lift the stack to [N, C, 1, T] once */
        if (((onnx_op(n, "Conv") || onnx_op(n, "ConvTranspose")) && n->n_inputs > 1 &&
             n->in_facts[1].rank == 3) ||
            ((onnx_op(n, "MaxPool") || onnx_op(n, "AveragePool")) &&
             attr_count(n, "kernel_shape") == 1)) {
            note_op(st, n->op);
            return 1;
        }
        return 0;
    case OM_DET_SIGMOID_GATE:
        /* Mul(x, Sigmoid(g)) with g not x: a gate (attention, filter-wise scaling), the
         * Sigmoid's output perhaps reshaped first; x * Sigmoid(x), the SiLU, is left out */
        if (!onnx_op(n, "Mul") || n->n_inputs != 2)
            return 0;
        for (uint32_t k = 0; k < 2; k++) {
            if ((d = def_of(n, k)) && (onnx_op(d, "Reshape") || onnx_op(d, "Unsqueeze") ||
                                       onnx_op(d, "Expand")))
                d = def_of(d, 0);
            if (d && onnx_op(d, "Sigmoid") && d->n_inputs &&
                strcmp(d->inputs[0], n->inputs[1 - k]) != 0)
                return 1;
        }
        return 0;
    case OM_DET_TRANSPOSE_ROUNDTRIP: {
        /* Transpose(p) <- element-wise op <- Transpose(q), p after q the identity */
        const ir_node *e;
        if (!onnx_op(n, "Transpose") || !(e = def_of(n, 0)))
            return 0;
        if (elementwise(e))
            e = def_of(e, 0);
        return e && onnx_op(e, "Transpose") && perms_cancel(e, n);
    }
    case OM_DET_NMS:
        return onnx_op(n, "NonMaxSuppression");
    case OM_DET_ROI_ALIGN:
        return onnx_op(n, "RoiAlign");
    case OM_DET_PIXEL_SHUFFLE:
        /* PixelShuffle written out (opset 9): Reshape [N, C, r, r, H, W] -> Transpose
         * [0, 1, 4, 2, 5, 3] -> Reshape */
        if (!onnx_op(n, "Transpose") || !(a = ir_node_attr(n, "perm")) || a->type != IR_ATTR_INTS ||
            a->n_ints != 6 || a->ints[0] != 0 || a->ints[1] != 1 || a->ints[2] != 4 ||
            a->ints[3] != 2 || a->ints[4] != 5 || a->ints[5] != 3)
            return 0;
        return (d = def_of(n, 0)) && onnx_op(d, "Reshape");
    case OM_DET_SELF_SUB:
        return onnx_op(n, "Sub") && n->n_inputs == 2 && n->inputs[0][0] &&
               strcmp(n->inputs[0], n->inputs[1]) == 0;
    case OM_DET_SLICE_CHAIN:
        return onnx_op(n, "Slice") && (d = def_of(n, 0)) && onnx_op(d, "Slice");
    case OM_DET_SPLIT_ONE:
        return onnx_op(n, "Split") && n->n_outputs == 1;
    case OM_DET_INT64_ARITHMETIC:
        /* int64 indices or token ids computed on at run time (not folded: no constant, no
         * shape arithmetic): what the recipes narrow to int32 */
        if (onnx_op_in(n, int64_any_input))
            return runtime_int64(n, 0, n->n_inputs);
        return onnx_op_in(n, int64_data_input) && runtime_int64(n, 0, 1);
    case OM_DET_EMPTY_SLICE_CONCAT:
        /* Concat(x[a:], x[:0]): a roll by 0 written out, one operand an empty Slice of
         * data (msit surgeon KnowledgeEmptySliceFix: ATC's Concat refuses empty inputs in
         * some cases); shape arithmetic is left out, the graph engine folds it */
        if (!onnx_op(n, "Concat"))
            return 0;
        for (uint32_t k = 0; k < n->n_inputs; k++)
            if ((d = def_of(n, k)) && onnx_op(d, "Slice") && !n->in_facts[k].is_shape &&
                (has_zero_dim(&n->in_facts[k]) || slice_empty_range(d)))
                return 1;
        return 0;
    case OM_DET_LN_SQUARE_MUL:
        /* ReduceMean(Mul(d, d)) with d = Sub(x, mean): the variance squared with Mul, which
         * LayerNorm's fusion pattern (Pow(d, 2)) does not match */
        return onnx_op(n, "ReduceMean") && (d = def_of(n, 0)) && onnx_op(d, "Mul") &&
               d->n_inputs == 2 && d->inputs[0][0] && strcmp(d->inputs[0], d->inputs[1]) == 0 &&
               d->in_facts[0].def && onnx_op(d->in_facts[0].def, "Sub");
    case OM_DET_GATHER_COLUMN:
        /* a column of a [N, k] table by a constant scalar index (Gather axis 1): the
         * recipe transposes the table once and gathers rows */
        if (!onnx_op(n, "Gather") || n->n_inputs != 2 || n->in_facts[0].is_shape ||
            (n->in_facts[0].rank != 2 && n->in_facts[0].rank >= 0) ||
            !(a = ir_node_attr(n, "axis")) || a->type != IR_ATTR_INT || (a->i != 1 && a->i != -1))
            return 0;
        t = n->in_facts[1].is_const ? n->in_facts[1].value : NULL;
        return t && t->ndims == 0;
    default:
        return 0;
    }
}

/* Marks the graph outputs (the first OUTPUTS_LOOKED_AT) returned beside the result: those
 * this node takes as input (values the model computes on), a Constant's output, and, at the
 * first node, the initializers. The bound keeps the work per node (and per initializer)
 * fixed whatever the number of outputs. */
#define OUTPUTS_LOOKED_AT 64
static void mark_output(om_advice_state *st, const ir_graph *g, size_t n_out, const char *name)
{
    size_t o;
    for (o = 0; name && name[0] && o < n_out; o++)
        if (g->outputs[o].name && strcmp(name, g->outputs[o].name) == 0)
            st->outputs_extra |= (uint64_t)1 << o;
}

static void note_extra_outputs(om_advice_state *st, const ir_node *n, const ir_graph *g)
{
    size_t i, n_out = g->n_outputs < OUTPUTS_LOOKED_AT ? g->n_outputs : OUTPUTS_LOOKED_AT;
    uint32_t k;
    if (!st->outputs_checked) {
        st->outputs_checked = 1;
        for (i = 0; i < g->n_inits; i++)
            mark_output(st, g, n_out, g->inits[i].name);
    }
    for (k = 0; k < n->n_inputs; k++)
        mark_output(st, g, n_out, n->inputs[k]);
    if (onnx_op(n, "Constant"))
        for (k = 0; k < n->n_outputs; k++)
            mark_output(st, g, n_out, n->outputs[k]);
}

void om_advice_visit(int detector, om_advice_state *st, const om_visit *v)
{
    const ir_node *n = v->node;
    uint32_t k;
    double x;
    if (detector == OM_DET_ATEN_GELU) {
        /* nn.GELU / F.gelu in an ATen graph, at any depth (a TorchScript module's methods) */
        if (strcmp(n->domain, "aten") == 0 && (strcmp(n->op, "gelu") == 0 ||
                                               strcmp(n->op, "gelu_") == 0))
            hit(st, v);
        return;
    }
    if (detector == OM_DET_INTERMEDIATE_OUTPUT) {
        if (v->depth == 0)
            note_extra_outputs(st, n, v->graph);
        return;
    }
    if (v->depth != 0 || strcmp(n->domain, "ai.onnx") != 0 || !n->in_facts)
        return;
    if (detector >= OM_DET_CONV_1D && detector != OM_DET_DYNAMIC_DIMS &&
        detector != OM_DET_FLOAT_OUTPUT && detector != OM_DET_INPUT_5D) {
        if (pattern_hit(detector, n, st))
            hit(st, v);
        return;
    }
    switch (detector) {
    case OM_DET_SHAPE_ARITHMETIC:
        if (!n->n_outputs || !n->out_facts || !n->out_facts[0].is_shape)
            break;
        if (n->out_facts[0].from_shape) {
            /* computing from shapes: Shape/Size, or arithmetic on their values */
            if (onnx_op(n, "Shape") || onnx_op(n, "Size") || any_shape_input(n)) {
                hit(st, v);
                note_op(st, n->op);
            }
        } else if (float_dtype(n->out_facts[0].dtype) && !onnx_op_in(n, data_movement)) {
            /* float arithmetic on constants alone the exporter left in the graph (a spectral
             * norm's power iteration): onnx-simplifier folds it whatever the input shapes */
            if (!st->const_nodes++)
                snprintf(st->const_where, sizeof(st->const_where), "%s", v->path);
            note_op_in(st->const_ops, sizeof(st->const_ops), &st->const_ops_len, n->op);
        }
        break;
    case OM_DET_SMALL_CHANNEL:
    case OM_DET_IMAGE_INPUT:
        if (!onnx_op(n, "Conv"))
            break;
        st->convs++;
        if (n->n_inputs > 1 && n->in_facts[1].is_const && n->in_facts[1].value &&
            n->in_facts[1].value->ndims == 4 && n->in_facts[1].value->dims[1] > 0 &&
            attr_count(n, "group") <= 1 &&
            (!ir_node_attr(n, "group") || ir_node_attr(n, "group")->i == 1) &&
            (!st->small_cin || n->in_facts[1].value->dims[1] < st->small_cin)) {
            st->small_cin = n->in_facts[1].value->dims[1];
            if (!st->seen_conv)
                snprintf(st->where, sizeof(st->where), "%s", v->path);
        }
        if (!st->seen_conv && n->n_inputs) {
            st->seen_conv = 1;
            chain_to_input(&n->in_facts[0], st->chain, sizeof(st->chain));
            snprintf(st->where, sizeof(st->where), "%s", v->path);
        }
        break;
    case OM_DET_GELU:
        if (onnx_op(n, "Erf") || onnx_op(n, "Gelu"))
            hit(st, v);
        break;
    case OM_DET_VARIANCE:
        /* ReduceMean(Pow(x, 2)): the variance of a LayerNorm written out of primitives;
         * ReduceSum(Pow(x, 2)): an L2Norm's sum of squares (SSD, RefineDet), which float16
         * overflows sooner still */
        if ((onnx_op(n, "ReduceMean") || onnx_op(n, "ReduceSum")) && n->n_inputs &&
            n->in_facts[0].def &&
            onnx_op(n->in_facts[0].def, "Pow") && n->in_facts[0].def->n_inputs > 1 &&
            n->in_facts[0].def->in_facts && const_scalar(&n->in_facts[0].def->in_facts[1], &x) &&
            x == 2.0)
            hit(st, v);
        break;
    case OM_DET_TOKEN_PADDING:
        /* x + pos_embedding with a [1, N, D] constant: N tokens, D a multiple of 16 */
        if (!onnx_op(n, "Add"))
            break;
        for (k = 0; k < n->n_inputs && k < 2; k++) {
            const ir_tensor *t = n->in_facts[k].is_const ? n->in_facts[k].value : NULL;
            /* dims come from the model: bounded before any arithmetic on them */
            if (t && t->ndims == 3 && t->dims[0] == 1 && t->dims[1] > 16 &&
                t->dims[1] < ((int64_t)1 << 40) && t->dims[1] % 16 && t->dims[2] > 0 &&
                t->dims[2] % 16 == 0) {
                if (!st->count)
                    snprintf(st->value, sizeof(st->value), "%lld tokens (pad to %lld)",
                             (long long)t->dims[1], (long long)((t->dims[1] + 15) / 16 * 16));
                hit(st, v);
                break;
            }
        }
        break;
    default:
        break;
    }
}

/* "[batch, 3, 224, 224]" */
static void dims_text(const ir_type *t, char *buf, size_t size)
{
    size_t used = 0;
    int32_t d;
    buf[0] = 0;
    om_appendf(buf, size, &used, "[");
    for (d = 0; t->dims && d < t->rank && d < 8; d++) {
        const ir_dim *x = &t->dims[d];
        if (x->param)
            om_appendf(buf, size, &used, "%s%.40s", d ? ", " : "", x->param);
        else if (x->value >= 0)
            om_appendf(buf, size, &used, "%s%lld", d ? ", " : "", (long long)x->value);
        else
            om_appendf(buf, size, &used, "%s?", d ? ", " : "");
    }
    om_appendf(buf, size, &used, "%s]", !t->dims && t->rank > 0 ? "?" : d < t->rank ? ", ..." : "");
}

/* An image-like input: NCHW with 1 to 4 channels. */
static const ir_value *image_input(const ir_value *inputs, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const ir_type *t = &inputs[i].type;
        if (t->kind == IR_TYPE_TENSOR && t->rank == 4 && t->dims && t->dims[1].value >= 1 &&
            t->dims[1].value <= 4 && !t->dims[1].param)
            return &inputs[i];
    }
    return NULL;
}

/* A dimension that is not a fixed number: symbolic or unknown. */
static int dynamic_dim(const ir_dim *d)
{
    return d->param || d->value < 0;
}

/*
 * Whether a graph input or output has the detector's pattern: a dynamic batch (dimension
 * 0), a dynamic dimension past the batch (a sequence length, an image's H and W), five
 * dimensions (a clip of frames, whose layout the recipes declare with --input_format), a
 * float32 output (what the recipes return in float16 with --output_type=FP16).
 */
static int value_matches(int detector, const ir_type *t)
{
    int32_t d;
    if (t->kind != IR_TYPE_TENSOR)
        return 0;
    switch (detector) {
    case OM_DET_DYNAMIC_BATCH:
        return t->rank >= 1 && t->dims && dynamic_dim(&t->dims[0]);
    case OM_DET_DYNAMIC_DIMS:
        for (d = 1; t->dims && d < t->rank; d++)
            if (dynamic_dim(&t->dims[d]))
                return 1;
        return 0;
    case OM_DET_INPUT_5D:
        return t->rank == 5;
    default:
        return t->elem == IR_DT_FLOAT;
    }
}

/* Counts the values with the pattern; the first one's name and dims are what matched. */
static int count_values(int detector, om_advice_state *st, const ir_value *vals, size_t n,
                        const char *what)
{
    char dims[160];
    size_t i;
    for (i = 0; i < n; i++) {
        if (!value_matches(detector, &vals[i].type) || st->count++)
            continue;
        dims_text(&vals[i].type, dims, sizeof(dims));
        snprintf(st->value, sizeof(st->value), "%s '%.60s' %s%s", what, vals[i].name, dims,
                 detector == OM_DET_FLOAT_OUTPUT ? " float32" : "");
        snprintf(st->where, sizeof(st->where), "main/%ss/%.200s", what, vals[i].name);
    }
    return st->count > 0;
}

int om_advice_finish(int detector, om_advice_state *st, const ir_value *inputs, size_t n_inputs,
                     const ir_value *outputs, size_t n_outputs)
{
    const ir_value *img;
    char dims[160];
    size_t i;
    switch (detector) {
    case OM_DET_DYNAMIC_BATCH:
    case OM_DET_DYNAMIC_DIMS:
    case OM_DET_INPUT_5D:
        return count_values(detector, st, inputs, n_inputs, "input");
    case OM_DET_FLOAT_OUTPUT:
        return count_values(detector, st, outputs, n_outputs, "output");
    case OM_DET_INTERMEDIATE_OUTPUT: {
        size_t first = n_outputs;
        st->count = 0;
        for (i = 0; i < n_outputs && i < OUTPUTS_LOOKED_AT; i++)
            if (st->outputs_extra >> i & 1) {
                if (!st->count++)
                    first = i;
            }
        if (!st->count)
            return 0;
        snprintf(st->value, sizeof(st->value),
                 "%llu of %zu outputs feed nodes of the graph or are constants ('%.60s' the first)",
                 (unsigned long long)st->count, n_outputs, outputs[first].name);
        snprintf(st->where, sizeof(st->where), "main/outputs/%.200s", outputs[first].name);
        return 1;
    }
    case OM_DET_SMALL_CHANNEL:
        if (st->convs && !image_input(inputs, n_inputs) && st->small_cin > 0 &&
            st->small_cin <= 4) {
            /* no image input, but a convolution over 1 to 4 channels (a text CNN's
             * embedding map, unsqueezed to one channel) */
            snprintf(st->value, sizeof(st->value), "a Conv takes %lld input channel%s",
                     (long long)st->small_cin, st->small_cin == 1 ? "" : "s");
            st->count = 1;
            return 1;
        }
        if (!st->convs || !(img = image_input(inputs, n_inputs)))
            return 0;
        snprintf(st->value, sizeof(st->value), "input '%.60s' has %lld channels", img->name,
                 (long long)img->type.dims[1].value);
        snprintf(st->where, sizeof(st->where), "main/inputs/%.200s", img->name);
        st->count = 1;
        return 1;
    case OM_DET_IMAGE_INPUT:
        if (!(img = image_input(inputs, n_inputs)))
            return 0;
        dims_text(&img->type, dims, sizeof(dims));
        st->value_len = 0;
        om_appendf(st->value, sizeof(st->value), &st->value_len, "input '%.60s' %s", img->name,
                   dims);
        if (st->chain[0])
            om_appendf(st->value, sizeof(st->value), &st->value_len,
                       "; before the first Conv: %s", st->chain);
        if (!st->chain[0])
            snprintf(st->where, sizeof(st->where), "main/inputs/%.200s", img->name);
        st->count = 1;
        return 1;
    case OM_DET_SHAPE_ARITHMETIC: {
        /* with a dynamic input, fixing it at ATC time (--input_shape) lets the graph engine
         * fold the shapes itself; onnx-simplifier is for graphs static already. Arithmetic
         * on constants alone is named whatever the inputs. */
        int fixed = 1;
        for (i = 0; i < n_inputs && fixed; i++) {
            const ir_type *t = &inputs[i].type;
            int32_t d;
            for (d = 0; t->kind == IR_TYPE_TENSOR && t->dims && d < t->rank; d++)
                if (t->dims[d].param || t->dims[d].value < 0)
                    fixed = 0;
        }
        if (!fixed || !st->count) {
            st->count = 0;
            st->value_len = 0;
            st->value[0] = '\0';
            if (!st->const_nodes)
                return 0;
            snprintf(st->where, sizeof(st->where), "%s", st->const_where);
        }
        if (st->const_nodes) {
            om_appendf(st->value, sizeof(st->value), &st->value_len,
                       "%son constants alone: %s", st->value_len ? "; " : "", st->const_ops);
            st->count += st->const_nodes;
        }
        return 1;
    }
    default:
        return st->count > 0;
    }
}
