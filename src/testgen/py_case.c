/*
 * testgen/py_case.c - one signature as the Python of a harness case (data/testgen/
 * harness.py): its kind and target ("aten", "aten::native_layer_norm.default"; "onnx",
 * "Resize"), its arguments in harness terms (T(dtype, shape, values) for a tensor, D(name)
 * for a symbolic dimension, constants as Python writes them), ATen keyword arguments,
 * ONNX attributes and output shapes, and the first reason it cannot run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "testgen_internal.h"

/* Keeps the first reason a case cannot run (into `why`, a buffer of 256). */
static void cannot(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cannot(char *why, const char *fmt, ...)
{
    va_list ap;
    if (why[0])
        return;
    va_start(ap, fmt);
    vsnprintf(why, 256, fmt, ap);
    va_end(ap);
}

static int is_float(int32_t dt)
{
    return dt == IR_DT_FLOAT || dt == IR_DT_FLOAT16 || dt == IR_DT_BFLOAT16 || dt == IR_DT_DOUBLE;
}

/* T("float32", [2, D("batch"), 64], values=[...]) from a tensor's facts. */
static void tensor(tg_buf *b, const ir_fact *f, unsigned i, char *why)
{
    int32_t rank = om_sig_rank(f), d;
    const char *name = ir_dtype_name(f->dtype);
    if ((!f->dtype || strcmp(name, "unknown") == 0) && rank < 0)
        cannot(why, "argument %u: the model states neither its dtype nor its shape (a value "
               "computed at run time?)", i);
    if (!f->dtype || strcmp(name, "unknown") == 0)
        cannot(why, "argument %u: the model does not state its dtype", i);
    if (rank < 0)
        cannot(why, "argument %u: the model does not state its shape", i);
    tg_puts(b, "T(");
    tg_py_str(b, name, strlen(name));
    tg_puts(b, ", [");
    for (d = 0; d < rank; d++) {
        int64_t v;
        const char *param;
        tg_puts(b, d ? ", " : "");
        if (!om_sig_dim(f, d, &v, &param)) {
            tg_puts(b, "D()");
        } else if (param) {
            tg_puts(b, "D(");
            tg_py_str(b, param, strlen(param));
            tg_puts(b, ")");
        } else {
            tg_int(b, v);
        }
    }
    tg_puts(b, "]");
    if (f->value && f->value->values && f->value->n_values &&
        f->value->n_values <= OM_SIG_MAX_VALUES) {
        uint32_t k;
        tg_puts(b, ", values=[");
        for (k = 0; k < f->value->n_values; k++) {
            double v = f->value->values[k];
            char n[48];
            tg_puts(b, k ? ", " : "");
            if (is_float(f->dtype) || !om_sig_integer(v, n, sizeof(n)))
                tg_py_float(b, v, f->dtype != IR_DT_DOUBLE);
            else
                tg_puts(b, n);
        }
        tg_puts(b, "]");
    }
    tg_puts(b, ")");
}

static void int_list(tg_buf *b, const int64_t *v, size_t n)
{
    size_t i;
    tg_puts(b, "[");
    for (i = 0; i < n; i++) {
        tg_puts(b, i ? ", " : "");
        tg_int(b, v[i]);
    }
    tg_puts(b, "]");
}

static void float_list(tg_buf *b, const double *v, size_t n, int single)
{
    size_t i;
    tg_puts(b, "[");
    for (i = 0; i < n; i++) {
        tg_puts(b, i ? ", " : "");
        tg_py_float(b, v[i], single);
    }
    tg_puts(b, "]");
}

static void arg(tg_buf *b, const om_sig_arg *a, unsigned i, char *why)
{
    uint32_t k;
    switch (a->kind) {
    case OM_SIG_TENSOR: tensor(b, a->fact, i, why); return;
    case OM_SIG_TENSORS:
        tg_puts(b, "[");
        for (k = 0; k < a->n; k++) {
            tg_puts(b, k ? ", " : "");
            tensor(b, &a->fact[k], i, why);
        }
        tg_puts(b, "]");
        return;
    case OM_SIG_OMITTED:
    case OM_SIG_NONE: tg_puts(b, "None"); return;
    case OM_SIG_BOOL: tg_puts(b, a->value->i ? "True" : "False"); return;
    case OM_SIG_INT: tg_int(b, a->value->i); return;
    case OM_SIG_FLOAT: tg_py_float(b, a->value->f, 0); return;
    case OM_SIG_STRING:
        tg_py_str(b, a->value->s.data ? a->value->s.data : "", a->value->s.size);
        return;
    case OM_SIG_INTS: int_list(b, a->value->ints, a->value->n_ints); return;
    case OM_SIG_FLOATS: float_list(b, a->value->floats, a->value->n_floats, 0); return;
    default:
        cannot(why, "argument %u is computed at run time: the model does not hold its value", i);
        tg_puts(b, "None");
    }
}

/* An ONNX attribute's value (a tensor as T with its values). */
static void attr_value(tg_buf *b, const ir_attr *a, char *why)
{
    size_t i;
    if (a->ref_attr_name) {
        cannot(why, "an attribute refers to its function's caller");
        tg_puts(b, "None");
        return;
    }
    switch (a->type) {
    case IR_ATTR_INT: tg_int(b, a->i); break;
    case IR_ATTR_FLOAT: tg_py_float(b, a->f, 1); break;
    case IR_ATTR_STRING: tg_py_str(b, a->s.data ? a->s.data : "", a->s.size); break;
    case IR_ATTR_INTS: int_list(b, a->ints, a->n_ints); break;
    case IR_ATTR_FLOATS: float_list(b, a->floats, a->n_floats, 1); break;
    case IR_ATTR_STRINGS:
        tg_puts(b, "[");
        for (i = 0; i < a->n_strings; i++) {
            tg_puts(b, i ? ", " : "");
            tg_py_str(b, a->strings[i].data ? a->strings[i].data : "", a->strings[i].size);
        }
        tg_puts(b, "]");
        break;
    case IR_ATTR_TENSOR:
        if (a->n_tensors) {
            ir_fact f;
            memset(&f, 0, sizeof(f));
            f.dtype = a->tensors[0].dtype;
            f.rank = (int32_t)a->tensors[0].ndims;
            f.value = &a->tensors[0];
            tensor(b, &f, 0, why);
            break;
        }
        /* fall through */
    default:
        cannot(why, "a node with a subgraph or an attribute of kind %u is not one kernel",
               (unsigned)a->type);
        tg_puts(b, "None");
    }
}

static void onnx_attrs(tg_buf *b, const ir_node *n, char *why)
{
    const ir_attr *sorted[OM_SIG_MAX_ATTRS];
    size_t i, k = om_sig_attrs(n, sorted);
    if (n->n_attrs && !k)
        cannot(why, "more than %d attributes", OM_SIG_MAX_ATTRS);
    tg_puts(b, "{");
    for (i = 0; i < k; i++) {
        const char *name = sorted[i]->name ? sorted[i]->name : "";
        tg_puts(b, i ? ", " : "");
        tg_py_str(b, name, strlen(name));
        tg_puts(b, ": ");
        attr_value(b, sorted[i], why);
    }
    tg_puts(b, "}");
}

/*
 * The operator namespaces a test may call through torch.ops: the table's namespaces of
 * kernels (prim, _operator, higher_order and torch are graph plumbing, which the harness
 * skips). A node of any other namespace is not called: `ops.load_library.__call__("x.so")`
 * in a model would otherwise make the test call torch.ops.load_library, which loads a
 * library, during the --device cpu self-check.
 */
static const char *const callable_ns[] = { "aten", "torchvision", "npu" };

static int callable(const char *ns)
{
    size_t i;
    for (i = 0; i < sizeof(callable_ns) / sizeof(callable_ns[0]); i++)
        if (strcmp(ns, callable_ns[i]) == 0)
            return 1;
    return 0;
}

/* kind and target: an ATen call names its operator; an ONNX node its op type. */
static void target(tg_buf *b, const om_sig *s, char *why)
{
    char t[600];
    if (s->aten) {
        if (!callable(s->domain))
            cannot(why, "'%.80s' is not an operator namespace of the table (aten, torchvision, "
                   "npu): the test does not call it", s->domain);
        snprintf(t, sizeof(t), "%s::%s%s%s", s->domain, s->op, s->overload ? "." : "",
                 s->overload ? s->overload : "");
        tg_puts(b, "\"aten\", ");
        tg_py_str(b, t, strlen(t));
        return;
    }
    if (!why[0] && (strcmp(s->node->domain, "ai.onnx") != 0 || strcmp(s->node->op, "ATen") == 0))
        snprintf(why, 256, "%.80s::%.80s: no ATen equivalent is written in this harness",
                 s->node->domain, s->node->op);
    tg_puts(b, "\"onnx\", ");
    tg_py_str(b, s->node->op, strlen(s->node->op));
}

/* The outputs' shapes (ONNX: the harness derives a shape input it lacks from them). */
static void outs(tg_buf *b, const om_sig *s)
{
    uint32_t i;
    tg_puts(b, "[");
    for (i = 0; !s->aten && s->node->out_facts && i < s->node->n_outputs; i++) {
        char ignored[256] = "x"; /* an output's facts never stop a case */
        tg_puts(b, i ? ", " : "");
        tensor(b, &s->node->out_facts[i], i, ignored);
    }
    tg_puts(b, "]");
}

/* A comment naming the shapes opmap inferred (ir/shapes.c) where the model states none:
 * what the test runs with is opmap's reading of the graph, not the model's declaration. */
static void inferred_note(tg_buf *b, const om_sig *s)
{
    uint32_t i, n = 0;
    char num[16];
    for (i = 0; i < s->n_args; i++) {
        const om_sig_arg *a = &s->args[i];
        if (a->kind != OM_SIG_TENSOR || !a->fact || !a->fact->dims_inferred)
            continue;
        tg_puts(b, n++ ? ", " : "\n         # shapes inferred by opmap, not stated by the model: argument ");
        snprintf(num, sizeof(num), "%u", i);
        tg_puts(b, num);
    }
    for (i = 0; !s->aten && s->node->out_facts && i < s->node->n_outputs; i++)
        if (s->node->out_facts[i].dims_inferred) {
            tg_puts(b, n++ ? ", output " : "\n         # shapes inferred by opmap, not stated by the model: output ");
            snprintf(num, sizeof(num), "%u", i);
            tg_puts(b, num);
        }
}

void tg_case_code(tg_buf *b, const om_sig *s, char *why)
{
    uint32_t i, positional = 0;
    why[0] = '\0';
    target(b, s, why);
    tg_puts(b, ",\n         [");
    for (i = 0; i < s->n_args; i++) {
        if (s->aten && s->args[i].name)
            continue; /* a keyword: in kwargs */
        tg_puts(b, positional++ ? ", " : "");
        arg(b, &s->args[i], i, why);
    }
    if (s->more)
        cannot(why, "more than %d arguments", OM_SIG_MAX_ARGS);
    tg_puts(b, "],\n         kwargs={");
    for (i = 0, positional = 0; s->aten && i < s->n_args; i++) {
        if (!s->args[i].name)
            continue;
        tg_puts(b, positional++ ? ", " : "");
        tg_py_str(b, s->args[i].name, strlen(s->args[i].name));
        tg_puts(b, ": ");
        arg(b, &s->args[i], i, why);
    }
    tg_puts(b, "}, attrs=");
    if (s->aten)
        tg_puts(b, "{}");
    else
        onnx_attrs(b, s->node, why);
    tg_puts(b, ", opset=");
    tg_int(b, s->opset);
    tg_puts(b, ",");
    inferred_note(b, s);
    tg_puts(b, "\n         outs=");
    outs(b, s);
}
