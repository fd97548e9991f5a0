/*
 * tests/support/onnx_build.c - in-memory ONNX model builder for tests (see onnx_build.h).
 */
#include "onnx_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP 64 /* repeated fields hold up to CAP entries in tests */

void mb_init(mb *b)
{
    memset(b, 0, sizeof(*b));
}

void mb_free(mb *b)
{
    size_t i;
    for (i = 0; i < b->n; i++)
        free(b->ptrs[i]);
    free(b->ptrs);
    memset(b, 0, sizeof(*b));
}

void *mb_alloc(mb *b, size_t size)
{
    void *p = calloc(1, size ? size : 1);
    if (!p)
        abort();
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->ptrs = realloc(b->ptrs, b->cap * sizeof(*b->ptrs));
        if (!b->ptrs)
            abort();
    }
    b->ptrs[b->n++] = p;
    return p;
}

char *mb_str(mb *b, const char *s)
{
    char *p = mb_alloc(b, strlen(s) + 1);
    memcpy(p, s, strlen(s) + 1);
    return p;
}

#define ARRAY(b, type) ((type *)mb_alloc((b), CAP * sizeof(type)))
#define APPEND(b, count, arr, type, value)            \
    do {                                              \
        if (!(arr))                                   \
            (arr) = ARRAY(b, type);                   \
        if ((count) >= CAP)                           \
            abort();                                  \
        (arr)[(count)++] = (value);                   \
    } while (0)

Onnx__ModelProto *mb_model(mb *b, Onnx__GraphProto *graph, int64_t ir_version)
{
    Onnx__ModelProto *m = mb_alloc(b, sizeof(*m));
    onnx__model_proto__init(m);
    m->has_ir_version = 1;
    m->ir_version = ir_version;
    m->producer_name = mb_str(b, "opmap-tests");
    m->graph = graph;
    return m;
}

void mb_opset(mb *b, Onnx__ModelProto *m, const char *domain, int64_t version)
{
    Onnx__OperatorSetIdProto *o = mb_alloc(b, sizeof(*o));
    onnx__operator_set_id_proto__init(o);
    o->domain = mb_str(b, domain);
    o->has_version = 1;
    o->version = version;
    APPEND(b, m->n_opset_import, m->opset_import, Onnx__OperatorSetIdProto *, o);
}

Onnx__GraphProto *mb_graph(mb *b, const char *name)
{
    Onnx__GraphProto *g = mb_alloc(b, sizeof(*g));
    onnx__graph_proto__init(g);
    g->name = mb_str(b, name);
    return g;
}

static Onnx__NodeProto *new_node(mb *b, const char *op, const char *domain, const char *name,
                                 const char *const *inputs, const char *const *outputs)
{
    Onnx__NodeProto *n = mb_alloc(b, sizeof(*n));
    onnx__node_proto__init(n);
    n->op_type = mb_str(b, op);
    if (domain)
        n->domain = mb_str(b, domain);
    if (name)
        n->name = mb_str(b, name);
    for (; inputs && *inputs; inputs++)
        APPEND(b, n->n_input, n->input, char *, mb_str(b, *inputs));
    for (; outputs && *outputs; outputs++)
        APPEND(b, n->n_output, n->output, char *, mb_str(b, *outputs));
    return n;
}

Onnx__NodeProto *mb_node(mb *b, Onnx__GraphProto *g, const char *op, const char *domain,
                         const char *name, const char *const *inputs, const char *const *outputs)
{
    Onnx__NodeProto *n = new_node(b, op, domain, name, inputs, outputs);
    APPEND(b, g->n_node, g->node, Onnx__NodeProto *, n);
    return n;
}

static Onnx__AttributeProto *new_attr(mb *b, Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = mb_alloc(b, sizeof(*a));
    onnx__attribute_proto__init(a);
    a->name = mb_str(b, name);
    a->has_type = 1;
    a->type = type;
    APPEND(b, n->n_attribute, n->attribute, Onnx__AttributeProto *, a);
    return a;
}

void mb_attr_int(mb *b, Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = new_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

void mb_attr_float(mb *b, Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = new_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

void mb_attr_string(mb *b, Onnx__NodeProto *n, const char *name, const char *v)
{
    Onnx__AttributeProto *a = new_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.data = (uint8_t *)mb_str(b, v);
    a->s.len = strlen(v);
}

void mb_attr_ints(mb *b, Onnx__NodeProto *n, const char *name, const int64_t *v, size_t count)
{
    Onnx__AttributeProto *a = new_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->ints = mb_alloc(b, count * sizeof(int64_t));
    memcpy(a->ints, v, count * sizeof(int64_t));
    a->n_ints = count;
}

void mb_attr_graph(mb *b, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g)
{
    Onnx__AttributeProto *a = new_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
    a->g = g;
}

void mb_attr_tensor(mb *b, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t)
{
    Onnx__AttributeProto *a = new_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    a->t = t;
}

Onnx__TensorProto *mb_tensor_raw(mb *b, const char *name, const int64_t *dims, size_t ndims,
                                 size_t payload)
{
    Onnx__TensorProto *t = mb_alloc(b, sizeof(*t));
    size_t i;
    onnx__tensor_proto__init(t);
    t->name = mb_str(b, name);
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->dims = mb_alloc(b, (ndims ? ndims : 1) * sizeof(int64_t));
    memcpy(t->dims, dims, ndims * sizeof(int64_t));
    t->n_dims = ndims;
    t->has_raw_data = 1;
    t->raw_data.data = mb_alloc(b, payload);
    for (i = 0; i < payload; i++)
        t->raw_data.data[i] = (uint8_t)(i * 31 + 7);
    t->raw_data.len = payload;
    return t;
}

static void ext_entry(mb *b, Onnx__TensorProto *t, const char *key, const char *value)
{
    Onnx__StringStringEntryProto *e = mb_alloc(b, sizeof(*e));
    onnx__string_string_entry_proto__init(e);
    e->key = mb_str(b, key);
    e->value = mb_str(b, value);
    APPEND(b, t->n_external_data, t->external_data, Onnx__StringStringEntryProto *, e);
}

Onnx__TensorProto *mb_tensor_external(mb *b, const char *name, const char *location,
                                      const char *offset, const char *length)
{
    Onnx__TensorProto *t = mb_alloc(b, sizeof(*t));
    onnx__tensor_proto__init(t);
    t->name = mb_str(b, name);
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    ext_entry(b, t, "location", location);
    if (offset)
        ext_entry(b, t, "offset", offset);
    if (length)
        ext_entry(b, t, "length", length);
    return t;
}

void mb_initializer(mb *b, Onnx__GraphProto *g, Onnx__TensorProto *t)
{
    APPEND(b, g->n_initializer, g->initializer, Onnx__TensorProto *, t);
}

void mb_input(mb *b, Onnx__GraphProto *g, const char *name, int32_t elem, const int64_t *dims,
              const char *const *params, size_t rank)
{
    Onnx__ValueInfoProto *v = mb_alloc(b, sizeof(*v));
    Onnx__TypeProto *tp = mb_alloc(b, sizeof(*tp));
    Onnx__TypeProto__Tensor *tt = mb_alloc(b, sizeof(*tt));
    Onnx__TensorShapeProto *shape = mb_alloc(b, sizeof(*shape));
    size_t i;
    onnx__value_info_proto__init(v);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(shape);
    v->name = mb_str(b, name);
    v->type = tp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    tt->shape = shape;
    for (i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = mb_alloc(b, sizeof(*d));
        onnx__tensor_shape_proto__dimension__init(d);
        if (dims[i] >= 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[i];
        } else {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = mb_str(b, params[i]);
        }
        APPEND(b, shape->n_dim, shape->dim, Onnx__TensorShapeProto__Dimension *, d);
    }
    APPEND(b, g->n_input, g->input, Onnx__ValueInfoProto *, v);
}

Onnx__FunctionProto *mb_function(mb *b, Onnx__ModelProto *m, const char *domain,
                                 const char *name)
{
    Onnx__FunctionProto *f = mb_alloc(b, sizeof(*f));
    onnx__function_proto__init(f);
    f->domain = mb_str(b, domain);
    f->name = mb_str(b, name);
    APPEND(b, m->n_functions, m->functions, Onnx__FunctionProto *, f);
    return f;
}

Onnx__NodeProto *mb_fnode(mb *b, Onnx__FunctionProto *f, const char *op, const char *domain)
{
    Onnx__NodeProto *n = new_node(b, op, domain, NULL, NULL, NULL);
    APPEND(b, f->n_node, f->node, Onnx__NodeProto *, n);
    return n;
}

void mb_fopset(mb *b, Onnx__FunctionProto *f, const char *domain, int64_t version)
{
    Onnx__OperatorSetIdProto *o = mb_alloc(b, sizeof(*o));
    onnx__operator_set_id_proto__init(o);
    o->domain = mb_str(b, domain);
    o->has_version = 1;
    o->version = version;
    APPEND(b, f->n_opset_import, f->opset_import, Onnx__OperatorSetIdProto *, o);
}

uint8_t *mb_pack(mb *b, const Onnx__ModelProto *m, size_t *len)
{
    size_t n = onnx__model_proto__get_packed_size(m);
    uint8_t *buf = mb_alloc(b, n);
    *len = onnx__model_proto__pack(m, buf);
    return buf;
}
