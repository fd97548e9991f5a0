/*
 * tests/unit/test_scan.c - grouping instances per distinct operator, the table's answer
 * for each, and the estimate (including the seed guides' worked example).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "../../src/estimate/estimate.h"
#include "../../src/scan/result_internal.h"
#include "../support/onnx_build.h"

static const char table_yaml[] =
    "schema: 1\n"
    "weights:\n"
    "  partial: {min: 0.5, expected: 0.8, max: 1.0}\n"
    "sources:\n  - {id: s}\n"
    "ops:\n"
    "  - {domain: ai.onnx, op: Conv, since: 11, status: full, sources: [s],\n"
    "     ascend: {op: Conv2D, engine: ai_core}}\n"
    "  - {domain: ai.onnx, op: Relu, since: 14, status: partial, sources: [s], hint: \"do x\"}\n"
    "  - {domain: ai.onnx, op: If, since: 16, status: structural, sources: [s]}\n";

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
} fixture;

static int setup(void **state)
{
    static fixture f;
    if (opmap_ctx_new(&f.ctx, NULL, NULL) != OPMAP_OK ||
        opmap_table_load_memory(&f.table, f.ctx, table_yaml, sizeof(table_yaml) - 1, "t", NULL))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    opmap_table_free(f->table);
    opmap_ctx_free(f->ctx);
    return 0;
}

static void test_scan__groups_per_distinct_operator(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g, *then_g;
    Onnx__NodeProto *iff;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_result *res;
    opmap_summary s;
    const opmap_op *op;
    opmap_error err;

    mb_init(&b);
    then_g = mb_graph(&b, "then");
    mb_node(&b, then_g, "Relu", NULL, "inner_relu", NULL, NULL);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Conv", NULL, "c1", NULL, NULL);
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
    mb_node(&b, g, "Conv", NULL, "c2", NULL, NULL);
    iff = mb_node(&b, g, "If", NULL, NULL, NULL, NULL);
    mb_attr_graph(&b, iff, "then_branch", then_g);
    mb_node(&b, g, "Conv", NULL, "c3", NULL, NULL);
    mb_node(&b, g, "NoSuchOp", "com.example", NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "com.example", 2);
    buf = mb_pack(&b, m, &len);

    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "g.onnx", &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, &err), OPMAP_OK);
    opmap_model_free(model); /* the result stands alone */

    assert_int_equal(opmap_result_op_count(res), 4);
    /* worst first: unmapped, partial, full, structural */
    op = opmap_result_op(res, 0);
    assert_string_equal(opmap_op_domain(op), "com.example");
    assert_string_equal(opmap_op_name(op), "NoSuchOp");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_UNMAPPED);
    assert_int_equal(opmap_op_opset(op), 2);
    assert_int_equal(opmap_op_since(op), 0);
    assert_null(opmap_op_row(op));

    op = opmap_result_op(res, 1);
    assert_string_equal(opmap_op_name(op), "Relu");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_int_equal(opmap_op_instances(op), 2);
    assert_int_equal(opmap_op_since(op), 14);
    assert_string_equal(opmap_op_hint(op), "do x");
    assert_int_equal(opmap_op_path_count(op), 2);
    assert_string_equal(opmap_op_path(op, 0), "main/Relu_1");
    assert_string_equal(opmap_op_path(op, 1), "main/If_3/then_branch/inner_relu");

    op = opmap_result_op(res, 2);
    assert_string_equal(opmap_op_name(op), "Conv");
    assert_int_equal(opmap_op_instances(op), 3);
    assert_string_equal(opmap_op_ascend_op(op), "Conv2D");
    assert_string_equal(opmap_op_engine(op), "ai_core");
    assert_string_equal(opmap_op_path(op, 2), "main/c3");

    op = opmap_result_op(res, 3);
    assert_int_equal(opmap_op_status(op), OPMAP_OP_STRUCTURAL);

    opmap_result_summary(res, &s);
    assert_int_equal(s.operators_total, 4);
    assert_int_equal(s.instances_total, 7);
    assert_int_equal(s.operators[OPMAP_OP_FULL], 1);
    assert_int_equal(s.instances[OPMAP_OP_FULL], 3);
    assert_int_equal(s.operators[OPMAP_OP_UNMAPPED], 1);
    /* per distinct operator: full 0.1 + partial 0.8 + unmapped 2.5; structural never */
    assert_int_equal(s.effort_total.expected, 100 + 800 + 2500);
    assert_int_equal(s.effort_total.min, 100 + 500 + 2000);
    assert_int_equal(s.effort_total.max, 100 + 1000 + 3000);
    assert_int_equal(s.effort[OPMAP_OP_STRUCTURAL].expected, 0);
    opmap_result_free(res);
    mb_free(&b);
}

/*
 * The seed guide's worked example: 200 operators, 58% full, 32% partial, 10% rewrite, at
 * 0.1 / 0.8 / 2.5 person-days: 200 x (0.058 + 0.256 + 0.25) = 112.8 person-days.
 */
static void test_estimate__seed_guide_example_is_112_8_days(void **state)
{
    static opmap_op ops[200];
    opmap_op *ptrs[200];
    opmap_summary s;
    size_t i;
    (void)state;
    for (i = 0; i < 200; i++) {
        opmap_effort full = { 100, 100, 100 }, partial = { 800, 800, 800 },
                     rewrite = { 2500, 2500, 2500 };
        ops[i].status = i < 116 ? OPMAP_OP_FULL : i < 180 ? OPMAP_OP_PARTIAL : OPMAP_OP_REWRITE;
        ops[i].effort = i < 116 ? full : i < 180 ? partial : rewrite;
        ops[i].instances = 1 + i % 7; /* instances never change the estimate */
        ptrs[i] = &ops[i];
    }
    om_estimate_summary(ptrs, 200, &s);
    assert_int_equal(s.operators[OPMAP_OP_FULL], 116);
    assert_int_equal(s.operators[OPMAP_OP_PARTIAL], 64);
    assert_int_equal(s.operators[OPMAP_OP_REWRITE], 20);
    assert_int_equal(s.effort_total.expected, 112800);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan__groups_per_distinct_operator),
        cmocka_unit_test(test_estimate__seed_guide_example_is_112_8_days),
    };
    return cmocka_run_group_tests_name("scan", tests, setup, teardown);
}
