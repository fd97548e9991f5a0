/*
 * tests/unit/test_shapes.c - the shapes opmap infers for an ONNX model exported without
 * value_info (ir/shapes.c): Conv, MaxPool, Shape data through Gather and Concat into a
 * Reshape's target, Gemm, Slice to INT64_MAX, Transpose and Unsqueeze, each against the
 * sizes onnx's own shape inference gives; a declared shape wins; a dimension nothing
 * states stays unknown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "readers/model.h"
#include "../support/onnx_build.h"

/* An int64 initializer with these values (raw little-endian data). */
static Onnx__TensorProto *ints(mb *b, const char *name, const int64_t *v, size_t n)
{
    int64_t dims[1];
    Onnx__TensorProto *t;
    size_t i, k;
    dims[0] = (int64_t)n;
    t = mb_tensor_raw(b, name, dims, 1, n * 8);
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    for (i = 0; i < n; i++)
        for (k = 0; k < 8; k++)
            t->raw_data.data[i * 8 + k] = (uint8_t)((uint64_t)v[i] >> (8 * k));
    return t;
}

/* Output 0 of the node named `name` is float32 of these dims (-1: unknown). */
static void expect(const opmap_model *m, const char *name, const int64_t *want, int32_t rank)
{
    size_t i;
    int32_t d;
    for (i = 0; i < m->ir.main->n_nodes; i++) {
        const ir_node *n = &m->ir.main->nodes[i];
        const ir_fact *f;
        if (strcmp(n->name, name) != 0)
            continue;
        f = &n->out_facts[0];
        if (f->rank != rank)
            fail_msg("%s: rank %d, expected %d", name, f->rank, rank);
        for (d = 0; d < rank; d++) {
            int64_t got = f->dims ? f->dims[d].value : -2;
            if (got != want[d])
                fail_msg("%s: dim %d is %lld, expected %lld", name, d, (long long)got,
                         (long long)want[d]);
        }
        return;
    }
    fail_msg("no node %s", name);
}

static void test_shapes__inferred_where_the_model_states_none(void **state)
{
    static const int64_t x_dims[] = { 1, 3, 8, 8 }, w_dims[] = { 4, 3, 3, 3 },
                         fc_dims[] = { 10, 64 }, zero[] = { 0 }, minus1[] = { -1 },
                         one[] = { 1 }, big[] = { INT64_MAX }, kernel[] = { 2, 2 },
                         pads[] = { 1, 1, 1, 1 }, perm[] = { 1, 0 };
    static const char *const conv_in[] = { "x", "w", NULL }, *const conv_out[] = { "c", NULL },
                             *const pool_in[] = { "c", NULL }, *const pool_out[] = { "p", NULL },
                             *const shape_in[] = { "p", NULL }, *const shape_out[] = { "s", NULL },
                             *const g_in[] = { "s", "i0", NULL }, *const g_out[] = { "n", NULL },
                             *const cat_in[] = { "n", "m1", NULL }, *const cat_out[] = { "t", NULL },
                             *const rs_in[] = { "p", "t", NULL }, *const rs_out[] = { "r", NULL },
                             *const gm_in[] = { "r", "fc", NULL }, *const gm_out[] = { "g", NULL },
                             *const sl_in[] = { "g", "i0", "big", "i1", NULL },
                             *const sl_out[] = { "sl", NULL }, *const tr_in[] = { "sl", NULL },
                             *const tr_out[] = { "tr", NULL }, *const ab_in[] = { "y", NULL },
                             *const ab_out[] = { "ab", NULL };
    opmap_ctx *ctx = *state;
    opmap_model *m;
    opmap_error err;
    Onnx__GraphProto *g;
    Onnx__ModelProto *model;
    Onnx__NodeProto *n;
    const uint8_t *buf;
    size_t len;
    mb b;
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, x_dims, NULL, 4);
    mb_input(&b, g, "y", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, x_dims, NULL, 2);
    mb_initializer(&b, g, mb_tensor_raw(&b, "w", w_dims, 4, 4 * 108));
    mb_initializer(&b, g, mb_tensor_raw(&b, "fc", fc_dims, 2, 4 * 640));
    mb_initializer(&b, g, ints(&b, "i0", zero, 1));
    mb_initializer(&b, g, ints(&b, "i1", one, 1));
    mb_initializer(&b, g, ints(&b, "m1", minus1, 1));
    mb_initializer(&b, g, ints(&b, "big", big, 1));
    n = mb_node(&b, g, "Conv", NULL, "conv", conv_in, conv_out);
    mb_attr_ints(&b, n, "pads", pads, 4);
    n = mb_node(&b, g, "MaxPool", NULL, "pool", pool_in, pool_out);
    mb_attr_ints(&b, n, "kernel_shape", kernel, 2);
    mb_attr_ints(&b, n, "strides", kernel, 2);
    mb_node(&b, g, "Shape", NULL, "shape", shape_in, shape_out);
    mb_node(&b, g, "Gather", NULL, "gather", g_in, g_out);
    n = mb_node(&b, g, "Concat", NULL, "concat", cat_in, cat_out);
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "reshape", rs_in, rs_out);
    n = mb_node(&b, g, "Gemm", NULL, "gemm", gm_in, gm_out);
    mb_attr_int(&b, n, "transB", 1);
    mb_node(&b, g, "Slice", NULL, "slice", sl_in, sl_out);
    n = mb_node(&b, g, "Transpose", NULL, "transpose", tr_in, tr_out);
    mb_attr_ints(&b, n, "perm", perm, 2);
    mb_node(&b, g, "Abs", NULL, "abs", ab_in, ab_out);
    model = mb_model(&b, g, 8);
    mb_opset(&b, model, "", 17);
    buf = mb_pack(&b, model, &len);
    assert_int_equal(opmap_model_open_memory(&m, ctx, buf, len, "s.onnx", &err), OPMAP_OK);
    {
        static const int64_t c[] = { 1, 4, 8, 8 }, p[] = { 1, 4, 4, 4 }, r[] = { 1, 64 },
                             gm[] = { 1, 10 }, sl[] = { 1, 10 }, tr[] = { 10, 1 };
        expect(m, "conv", c, 4);
        expect(m, "pool", p, 4);
        expect(m, "reshape", r, 2);  /* [Shape(p)[0], -1]: the data of the shape arithmetic */
        expect(m, "gemm", gm, 2);
        expect(m, "slice", sl, 2);   /* INT64_MAX as the end: to the end, no overflow */
        expect(m, "transpose", tr, 2);
    }
    {
        /* y's declared rank is 2 but its dims say 1, 3: as declared */
        static const int64_t ab[] = { 1, 3 };
        expect(m, "abs", ab, 2);
    }
    opmap_model_free(m);
    mb_free(&b);
}

static int setup(void **state)
{
    opmap_ctx *ctx;
    if (opmap_ctx_new(&ctx, NULL, NULL) != OPMAP_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state)
{
    opmap_ctx_free(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes__inferred_where_the_model_states_none),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
