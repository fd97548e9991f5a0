/*
 * tests/unit/test_shapes.c - the shapes opmap infers for an ONNX model exported without
 * value_info (ir/shapes.c): Conv, MaxPool, Shape data through Gather and Concat into a
 * Reshape's target, Gemm, Slice to INT64_MAX, Transpose and Unsqueeze, each against the
 * sizes onnx's own shape inference gives; a declared shape wins; a dimension nothing
 * states stays unknown. A Reshape to run-time sizes gets its rank alone from its target's
 * length, never a dimension, and hostile lengths leave it unknown.
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
#include "signature/signature.h"
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

/* The facts of output 0 of the node named `name`. */
static const ir_fact *out_fact(const opmap_model *m, const char *name)
{
    size_t i;
    for (i = 0; i < m->ir.main->n_nodes; i++)
        if (strcmp(m->ir.main->nodes[i].name, name) == 0)
            return &m->ir.main->nodes[i].out_facts[0];
    fail_msg("no node %s", name);
    return NULL;
}

/* Output 0 of `name` has a rank-only reading of `rank_only` (0: none) and no rank or
 * dimension that any reader of shapes could take for a shape. */
static void expect_rank_only(const opmap_model *m, const char *name, int rank_only)
{
    const ir_fact *f = out_fact(m, name);
    int64_t v;
    const char *param;
    if (f->rank_only != rank_only)
        fail_msg("%s: rank-only %d, expected %d", name, f->rank_only, rank_only);
    assert_int_equal(f->rank, -1);
    assert_null(f->dims);
    assert_false(f->dims_inferred);
    assert_int_equal(om_sig_rank(f), -1);   /* what testgen and signatures read */
    assert_false(om_sig_dim(f, 0, &v, &param));
}

/* A Reshape to sizes computed at run time: its output's rank is the length of the target
 * where that length is known (a Concat of 1-element pieces, a constant, a stated 1-D size, a
 * Shape of a tensor of known rank, a Concat of those), carried through rank-keeping
 * operators; no dimension is made up; a length that is unknown, negative, past MAXR or whose
 * sum is stays unknown. */
static void test_shapes__rank_of_a_reshape_to_run_time_sizes(void **state)
{
    static const int64_t x_dims[] = { -1, 1, 3, 8, 6, 6 }, w_dims[] = { -1, 3, -1, 8 },
                         v_dims[] = { 3 }, huge_dims[] = { INT64_MAX }, minus1[] = { -1 },
                         zero_m1[] = { 0, -1, 4 }, i1[] = { 1 }, i2[] = { 2 }, i3[] = { 3 },
                         i4[] = { 4 }, neg_dims[] = { -3 }, big_dims[] = { INT64_MAX },
                         seventeen[] = { 17 }, axes0[] = { 0 };
    static const char *const x_params[] = { "N", NULL, NULL, NULL, NULL, NULL },
                             *const w_params[] = { "B", NULL, "H", NULL },
                             *const v_params[] = { NULL },
                             *const huge_params[] = { NULL };
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
    mb_input(&b, g, "x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, x_dims, x_params, 6);
    mb_input(&b, g, "w", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, w_dims, w_params, 4);
    /* an int64 target whose length is stated (3), values not; and one of a huge length */
    mb_input(&b, g, "v", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, v_dims, v_params, 1);
    mb_input(&b, g, "vhuge", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, huge_dims, huge_params, 1);
    mb_initializer(&b, g, ints(&b, "m1", minus1, 1));
    mb_initializer(&b, g, ints(&b, "zm4", zero_m1, 3));
    {
        /* scalar indices into Shape(x) */
        static const char *const names[] = { "i1", "i2", "i3", "i4" };
        const int64_t *vals[] = { i1, i2, i3, i4 };
        int k;
        for (k = 0; k < 4; k++) {
            Onnx__TensorProto *t = ints(&b, names[k], vals[k], 1);
            t->n_dims = 0;
            mb_initializer(&b, g, t);
        }
    }
    /* constants whose length is negative, huge, or past the ranks computed (17 elements) */
    {
        Onnx__TensorProto *t = mb_tensor_raw(&b, "neg", neg_dims, 1, 0);
        t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
        mb_initializer(&b, g, t);
        t = mb_tensor_raw(&b, "big", big_dims, 1, 0);
        t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
        mb_initializer(&b, g, t);
        t = mb_tensor_raw(&b, "long17", seventeen, 1, 17 * 8);
        t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
        mb_initializer(&b, g, t);
    }
    /* SlowFast's export: Shape -> Gather -> Unsqueeze (x4) -> Concat with [-1] -> Reshape */
    mb_node(&b, g, "Shape", NULL, "shape", (const char *const[]){ "x", NULL },
            (const char *const[]){ "s", NULL });
    {
        static const char *const idx[] = { "i1", "i2", "i3", "i4" },
                                 *const gat[] = { "g1", "g2", "g3", "g4" },
                                 *const uns[] = { "u1", "u2", "u3", "u4" };
        int k;
        for (k = 0; k < 4; k++) {
            const char *gin[] = { "s", idx[k], NULL }, *gout[] = { gat[k], NULL },
                       *uin[] = { gat[k], NULL }, *uout[] = { uns[k], NULL };
            n = mb_node(&b, g, "Gather", NULL, gat[k], gin, gout);
            mb_attr_int(&b, n, "axis", 0);
            n = mb_node(&b, g, "Unsqueeze", NULL, uns[k], uin, uout);
            mb_attr_ints(&b, n, "axes", axes0, 1);
        }
    }
    n = mb_node(&b, g, "Concat", NULL, "target",
                (const char *const[]){ "m1", "u1", "u2", "u3", "u4", NULL },
                (const char *const[]){ "t", NULL });
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "fold", (const char *const[]){ "x", "t", NULL },
            (const char *const[]){ "r5", NULL });
    mb_node(&b, g, "Relu", NULL, "relu", (const char *const[]){ "r5", NULL },
            (const char *const[]){ "rr", NULL });
    mb_node(&b, g, "Add", NULL, "add", (const char *const[]){ "rr", "rr", NULL },
            (const char *const[]){ "ra", NULL });
    /* a constant target the dims rule cannot read ([0, -1, 4] of an unknown tensor) */
    mb_node(&b, g, "Reshape", NULL, "const_target", (const char *const[]){ "unknown", "zm4", NULL },
            (const char *const[]){ "rc", NULL });
    /* a stated length */
    mb_node(&b, g, "Reshape", NULL, "stated", (const char *const[]){ "x", "v", NULL },
            (const char *const[]){ "rv", NULL });
    /* a Shape of a known-rank tensor, whole and from start 1; a Concat of Shape and [-1] */
    mb_node(&b, g, "Shape", NULL, "shape_w", (const char *const[]){ "w", NULL },
            (const char *const[]){ "sw", NULL });
    n = mb_node(&b, g, "Shape", NULL, "shape_w1", (const char *const[]){ "w", NULL },
                (const char *const[]){ "sw1", NULL });
    mb_attr_int(&b, n, "start", 1);
    n = mb_node(&b, g, "Shape", NULL, "shape_wneg", (const char *const[]){ "w", NULL },
                (const char *const[]){ "swn", NULL });
    mb_attr_int(&b, n, "start", INT64_MIN);  /* clamped to 0 */
    mb_attr_int(&b, n, "end", -1);           /* 3 of the 4 */
    mb_node(&b, g, "Reshape", NULL, "by_shape", (const char *const[]){ "x", "sw", NULL },
            (const char *const[]){ "rs", NULL });
    mb_node(&b, g, "Reshape", NULL, "by_shape1", (const char *const[]){ "x", "sw1", NULL },
            (const char *const[]){ "rs1", NULL });
    mb_node(&b, g, "Reshape", NULL, "by_shape_neg", (const char *const[]){ "x", "swn", NULL },
            (const char *const[]){ "rsn", NULL });
    n = mb_node(&b, g, "Concat", NULL, "shape_cat", (const char *const[]){ "sw", "m1", NULL },
                (const char *const[]){ "swc", NULL });
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "by_shape_cat", (const char *const[]){ "x", "swc", NULL },
            (const char *const[]){ "rsc", NULL });
    /* unknown: a target of unknown length, a Concat with such a piece, hostile lengths */
    mb_node(&b, g, "Reshape", NULL, "unknown_len", (const char *const[]){ "x", "nobody", NULL },
            (const char *const[]){ "ru", NULL });
    n = mb_node(&b, g, "Concat", NULL, "cat_unknown", (const char *const[]){ "m1", "nobody", NULL },
                (const char *const[]){ "cu", NULL });
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "unknown_piece", (const char *const[]){ "x", "cu", NULL },
            (const char *const[]){ "rup", NULL });
    mb_node(&b, g, "Reshape", NULL, "negative", (const char *const[]){ "x", "neg", NULL },
            (const char *const[]){ "rn", NULL });
    mb_node(&b, g, "Reshape", NULL, "huge", (const char *const[]){ "x", "big", NULL },
            (const char *const[]){ "rh", NULL });
    mb_node(&b, g, "Reshape", NULL, "huge_stated", (const char *const[]){ "x", "vhuge", NULL },
            (const char *const[]){ "rhs", NULL });
    mb_node(&b, g, "Reshape", NULL, "past_max", (const char *const[]){ "x", "long17", NULL },
            (const char *const[]){ "rl", NULL });
    /* pieces of 4 + 4 + 4 + 4 + 1: each known, their sum past the ranks computed */
    n = mb_node(&b, g, "Concat", NULL, "cat_long",
                (const char *const[]){ "sw", "sw", "sw", "sw", "m1", NULL },
                (const char *const[]){ "cl", NULL });
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "sum_past_max", (const char *const[]){ "x", "cl", NULL },
            (const char *const[]){ "rsl", NULL });
    model = mb_model(&b, g, 8);
    mb_opset(&b, model, "", 17);
    buf = mb_pack(&b, model, &len);
    assert_int_equal(opmap_model_open_memory(&m, ctx, buf, len, "r.onnx", &err), OPMAP_OK);
    /* the target's length is stated (Concat of 1-element pieces), its values are not */
    assert_int_equal(out_fact(m, "target")->rank, 1);
    assert_int_equal(out_fact(m, "target")->dims[0].value, 5);
    expect_rank_only(m, "fold", 5);
    expect_rank_only(m, "relu", 5);          /* rank-keeping operators carry it */
    expect_rank_only(m, "add", 5);
    expect_rank_only(m, "const_target", 3);
    expect_rank_only(m, "stated", 3);
    expect_rank_only(m, "by_shape", 4);
    expect_rank_only(m, "by_shape1", 3);
    expect_rank_only(m, "by_shape_neg", 3);
    expect_rank_only(m, "by_shape_cat", 5);
    expect_rank_only(m, "unknown_len", 0);
    expect_rank_only(m, "unknown_piece", 0);
    expect_rank_only(m, "negative", 0);
    expect_rank_only(m, "huge", 0);
    expect_rank_only(m, "huge_stated", 0);
    expect_rank_only(m, "past_max", 0);
    expect_rank_only(m, "sum_past_max", 0);
    opmap_model_free(m);
    mb_free(&b);
}

/* Before opset 5 a Reshape's target is its `shape` attribute: the rank is its length (the
 * dims rule does not read the attribute, so no dimension is stated). */
static void test_shapes__rank_of_a_reshape_by_attribute(void **state)
{
    static const int64_t shape_attr[] = { 1, -1, 2 }, many[17] = { 0 };
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
    n = mb_node(&b, g, "Reshape", NULL, "old", (const char *const[]){ "x", NULL },
                (const char *const[]){ "r", NULL });
    mb_attr_ints(&b, n, "shape", shape_attr, 3);
    n = mb_node(&b, g, "Reshape", NULL, "old_long", (const char *const[]){ "x", NULL },
                (const char *const[]){ "rl", NULL });
    mb_attr_ints(&b, n, "shape", many, 17);
    model = mb_model(&b, g, 3);
    mb_opset(&b, model, "", 4);
    buf = mb_pack(&b, model, &len);
    assert_int_equal(opmap_model_open_memory(&m, ctx, buf, len, "r4.onnx", &err), OPMAP_OK);
    expect_rank_only(m, "old", 3);
    expect_rank_only(m, "old_long", 0);
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
        cmocka_unit_test(test_shapes__rank_of_a_reshape_to_run_time_sizes),
        cmocka_unit_test(test_shapes__rank_of_a_reshape_by_attribute),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
