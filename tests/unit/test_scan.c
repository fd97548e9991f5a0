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
#include "../../src/report/report_internal.h"
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

/* Instance i's node path; the instance must exist. */
static const char *path_of(const opmap_op *op, size_t i)
{
    opmap_path_info p = { .size = sizeof(p) };
    assert_int_equal(opmap_op_path(op, i, &p), OPMAP_OK);
    return p.path;
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
    opmap_summary s = { .size = sizeof(s) };
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
    assert_int_equal(opmap_result_op(res, 0, &op), OPMAP_OK);
    assert_string_equal(opmap_op_domain(op), "com.example");
    assert_string_equal(opmap_op_name(op), "NoSuchOp");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_UNMAPPED);
    assert_int_equal(opmap_op_opset(op), 2);
    assert_int_equal(opmap_op_since(op), 0);
    assert_null(opmap_op_row(op));

    assert_int_equal(opmap_result_op(res, 1, &op), OPMAP_OK);
    assert_string_equal(opmap_op_name(op), "Relu");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_int_equal(opmap_op_instances(op), 2);
    assert_int_equal(opmap_op_since(op), 14);
    assert_string_equal(opmap_op_hint(op), "do x");
    assert_int_equal(opmap_op_path_count(op), 2);
    assert_string_equal(path_of(op, 0), "main/Relu_1");
    assert_string_equal(path_of(op, 1), "main/If_3/then_branch/inner_relu");

    assert_int_equal(opmap_result_op(res, 2, &op), OPMAP_OK);
    assert_string_equal(opmap_op_name(op), "Conv");
    assert_int_equal(opmap_op_instances(op), 3);
    assert_string_equal(opmap_op_ascend_op(op), "Conv2D");
    assert_string_equal(opmap_op_engine(op), "ai_core");
    assert_string_equal(path_of(op, 2), "main/c3");

    assert_int_equal(opmap_result_op(res, 3, &op), OPMAP_OK);
    assert_int_equal(opmap_op_status(op), OPMAP_OP_STRUCTURAL);

    assert_int_equal(opmap_result_summary(res, &s), OPMAP_OK);
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

    /* Info structs (docs/api.md): the caller's size says what may be written. */
    {
        struct { opmap_summary s; unsigned char tail[16]; } newer;
        opmap_summary older;
        opmap_path_info p = { .size = sizeof(p) };
        memset(&newer, 0xab, sizeof(newer));
        newer.s.size = sizeof(newer); /* built against larger headers: fill ours, no more */
        assert_int_equal(opmap_result_summary(res, &newer.s), OPMAP_OK);
        assert_int_equal(newer.s.size, sizeof(newer));
        assert_int_equal(newer.s.operators_total, 4);
        assert_int_equal(newer.tail[0], 0xab);
        assert_int_equal(newer.tail[15], 0xab);
        memset(&older, 0xcd, sizeof(older));
        older.size = 0;
        assert_int_equal(opmap_result_summary(res, &older), OPMAP_EINVAL);
        older.size = offsetof(opmap_summary, unpublished_effort); /* below the first version */
        assert_int_equal(opmap_result_summary(res, &older), OPMAP_EINVAL);
        assert_int_equal(older.operators_total, 0xcdcdcdcdcdcdcdcdull); /* nothing written */
        assert_int_equal(opmap_result_summary(res, NULL), OPMAP_EINVAL);
        assert_int_equal(opmap_op_path(op, opmap_op_path_count(op), &p), OPMAP_EINVAL);
        assert_int_equal(opmap_result_op(res, 4, &op), OPMAP_EINVAL);
        assert_null(op);
    }
    opmap_result_free(res);
    mb_free(&b);
}

/* A model of the nodes named by `ops` in order ("Conv", "Relu", "NoSuchOp"). */
static opmap_result *scan_ops(fixture *f, const char *const *ops, size_t n)
{
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len, i;
    opmap_model *model;
    opmap_result *res;
    opmap_error err;
    mb_init(&b);
    g = mb_graph(&b, "g");
    for (i = 0; i < n; i++)
        mb_node(&b, g, ops[i], strcmp(ops[i], "NoSuchOp") == 0 ? "com.example" : NULL, NULL,
                NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "com.example", 1);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "h.onnx", &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, &err), OPMAP_OK);
    opmap_model_free(model);
    mb_free(&b);
    return res;
}

static void test_headline__verdict_coverage_and_rule(void **state)
{
    fixture *f = *state;
    static const char *const ready_ops[] = { "Conv", "Conv" };
    static const char *const blocked_ops[] = { "Conv", "Relu", "NoSuchOp", "Conv" };
    const opmap_result *both[2];
    opmap_result *a = scan_ops(f, ready_ops, 2), *b = scan_ops(f, blocked_ops, 4);
    opmap_headline h = { .size = sizeof(h) };
    opmap_report_options opts = OPMAP_REPORT_OPTIONS_INIT;
    opmap_file_problem problem = { "gone.onnx", 0, NULL };
    opmap_error err;
    both[0] = a;
    both[1] = b;

    /* every instance full and on the NPU: ready */
    assert_int_equal(opmap_headline_compute(f->ctx, both, 1, NULL, &h, &err), OPMAP_OK);
    assert_int_equal(h.readiness, OPMAP_READY);
    assert_int_equal(h.found, 0);
    assert_int_equal(h.coverage, 1000);
    assert_int_equal(h.operators, 1);
    assert_int_equal(h.operators_full, 1);
    assert_int_equal(h.instances_full, 2);
    assert_int_equal(h.placed, 2);
    assert_string_equal(opmap_readiness_name(h.readiness), "ready");

    /* an unmapped operator splits the graph: Conv Relu | NoSuchOp | Conv */
    assert_int_equal(opmap_headline_compute(f->ctx, both + 1, 1, &opts, &h, &err), OPMAP_OK);
    assert_int_equal(h.readiness, OPMAP_BLOCKED);
    assert_int_equal(h.blocking, OPMAP_FAIL_UNMAPPED);
    assert_int_equal(h.needing_work, OPMAP_FAIL_PARTIAL);
    assert_int_equal(h.placed, 4);
    assert_int_equal(h.on_npu, 3);
    assert_int_equal(h.coverage, 750);
    assert_int_equal(h.largest, 2);
    assert_int_equal(h.largest_share, 666); /* rounded down */
    assert_int_equal(h.operators, 3);
    assert_int_equal(h.operators_full, 1);
    assert_int_equal(h.instances, 4);
    assert_int_equal(h.instances_full, 2);

    /* the rule is the caller's: unmapped no longer blocks, the coverage still needs work */
    opts.blocked_on = OPMAP_FAIL_REWRITE;
    opts.needs_work_on = OPMAP_FAIL_PRECISION;
    assert_int_equal(opmap_headline_compute(f->ctx, both + 1, 1, &opts, &h, &err), OPMAP_OK);
    assert_int_equal(h.readiness, OPMAP_NEEDS_WORK);
    assert_int_equal(h.blocking, 0);
    assert_int_equal(h.needing_work, 0);
    opts.blocked_on = OPMAP_FAIL_PARTIAL;
    assert_int_equal(opmap_headline_compute(f->ctx, both + 1, 1, &opts, &h, &err), OPMAP_OK);
    assert_int_equal(h.readiness, OPMAP_BLOCKED);
    assert_int_equal(h.blocking, OPMAP_FAIL_PARTIAL);

    /* both models: shared operators once, instances and coverage summed, the lowest share */
    opts.blocked_on = opts.needs_work_on = 0;
    assert_int_equal(opmap_headline_compute(f->ctx, both, 2, &opts, &h, &err), OPMAP_OK);
    assert_int_equal(h.readiness, OPMAP_BLOCKED);
    assert_int_equal(h.models, 2);
    assert_int_equal(h.operators, 3);
    assert_int_equal(h.operators_full, 1);
    assert_int_equal(h.instances, 6);
    assert_int_equal(h.instances_full, 4);
    assert_int_equal(h.placed, 6);
    assert_int_equal(h.on_npu, 5);
    assert_int_equal(h.coverage, 833);
    assert_int_equal(h.largest_share, 666);

    /* a file that could not be read blocks even a ready model */
    opts.problems = &problem;
    opts.problem_count = 1;
    assert_int_equal(opmap_headline_compute(f->ctx, both, 1, &opts, &h, &err), OPMAP_OK);
    assert_int_equal(h.readiness, OPMAP_BLOCKED);
    assert_int_equal(h.blocking, OPMAP_FAIL_UNREADABLE);
    assert_int_equal(h.files_not_read, 1);

    /* hostile calls */
    h.size = 4;
    assert_int_equal(opmap_headline_compute(f->ctx, both, 1, NULL, &h, &err), OPMAP_EINVAL);
    h.size = sizeof(h);
    opts.version = 99;
    assert_int_equal(opmap_headline_compute(f->ctx, both, 1, &opts, &h, &err), OPMAP_EINVAL);
    assert_int_equal(opmap_headline_compute(f->ctx, NULL, 1, NULL, &h, &err), OPMAP_EINVAL);
    assert_null(opmap_readiness_name(7));
    opmap_result_free(a);
    opmap_result_free(b);
}

static void test_estimate__weights_override_the_table(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_result *res;
    opmap_summary s = { .size = sizeof(s) };
    opmap_weights w;
    opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
    opmap_error err;
    static const char weights_yaml[] = "partial: {min: 1, expected: 1.5, max: 2}\n"
                                       "unmapped: {min: 5, expected: 6, max: 9}\n";

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Conv", NULL, NULL, NULL, NULL);      /* full: the table's 0.1 */
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);      /* partial: overridden */
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);      /* a second instance costs nothing */
    mb_node(&b, g, "Mystery", "x", NULL, NULL, NULL);    /* unmapped: overridden */
    mb_node(&b, g, "If", NULL, NULL, NULL, NULL);        /* structural: never estimated */
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "x", 1);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_weights_load_memory(&w, f->ctx, weights_yaml, sizeof(weights_yaml) - 1,
                                               "w.yaml", &err), OPMAP_OK);
    assert_int_equal(w.set, (1u << OPMAP_OP_PARTIAL) | (1u << OPMAP_OP_UNMAPPED));
    w.set |= 1u << OPMAP_OP_STRUCTURAL; /* asking to weigh structural ops changes nothing */
    w.effort[OPMAP_OP_STRUCTURAL].expected = 999000;
    opts.weights = &w;
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "w.onnx", &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, &opts, &err), OPMAP_OK);
    assert_int_equal(opmap_result_summary(res, &s), OPMAP_OK);
    assert_int_equal(s.effort_total.min, 100 + 1000 + 5000);
    assert_int_equal(s.effort_total.expected, 100 + 1500 + 6000);
    assert_int_equal(s.effort_total.max, 100 + 2000 + 9000);
    assert_int_equal(s.effort[OPMAP_OP_STRUCTURAL].expected, 0);
    assert_int_equal(s.instances[OPMAP_OP_PARTIAL], 2);
    opmap_result_free(res);
    /* without the override: unmapped weighs as rewrite (table default 2/2.5/3) */
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, &err), OPMAP_OK);
    assert_int_equal(opmap_result_summary(res, &s), OPMAP_OK);
    assert_int_equal(s.effort[OPMAP_OP_UNMAPPED].expected, 2500);
    assert_int_equal(s.effort_total.expected, 100 + 800 + 2500);
    opmap_result_free(res);
    opmap_model_free(model);
    /* a bad weights file names its line and column */
    assert_int_equal(opmap_weights_load_memory(&w, f->ctx, "partial: {min: 2, expected: 1, max: 3}",
                                               38, "bad.yaml", &err), OPMAP_ETABLE);
    assert_int_equal(err.line, 1);
    assert_non_null(strstr(err.message, "min <= expected <= max"));
    mb_free(&b);
}

/*
 * --torch-npu: a row whose range starts after the target's line is rewrite there, with a
 * reason naming the first version; without a target, or at a version in range, the
 * table's answer stands. The model's minimum is the newest min over its rows.
 */
static void test_scan__torch_npu_target(void **state)
{
    static const char yaml[] =
        "schema: 1\nsources:\n  - {id: s}\nops:\n"
        "  - {domain: ai.onnx, op: Conv, since: 11, status: full, sources: [s],\n"
        "     torch_npu: {min: \"2.6\"}}\n"
        "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [s],\n"
        "     torch_npu: {min: \"2.1\", max: \"2.2\"}}\n";
    static const struct { const char *target; int conv, relu; } cases[] = {
        { NULL, OPMAP_OP_FULL, OPMAP_OP_FULL },
        { "2.1", OPMAP_OP_REWRITE, OPMAP_OP_FULL },
        { "2.6.0rc1", OPMAP_OP_FULL, OPMAP_OP_REWRITE },
        { "2.2.0.post3", OPMAP_OP_REWRITE, OPMAP_OP_FULL },
    };
    fixture *f = *state;
    opmap_table *t;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len, i, k;
    opmap_model *model;
    opmap_result *res;
    opmap_error err;

    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "t", &err),
                     OPMAP_OK);
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Conv", NULL, NULL, NULL, NULL);
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "v.onnx", &err), OPMAP_OK);
    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
        opts.torch_npu = cases[i].target;
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, &opts, &err), OPMAP_OK);
        assert_string_equal(opmap_result_torch_npu_target(res), cases[i].target ? cases[i].target : "");
        assert_string_equal(opmap_result_torch_npu_needed(res), "2.6");
        assert_string_equal(opmap_result_torch_npu_needed_by(res), "ai.onnx::Conv");
        for (k = 0; k < opmap_result_op_count(res); k++) {
            const opmap_op *op;
            int conv;
            assert_int_equal(opmap_result_op(res, k, &op), OPMAP_OK);
            conv = strcmp(opmap_op_name(op), "Conv") == 0;
            if (opmap_op_status(op) != (conv ? cases[i].conv : cases[i].relu))
                fail_msg("%s at %s: %s", opmap_op_name(op), cases[i].target ? cases[i].target : "-",
                         opmap_op_status_name(opmap_op_status(op)));
            if (opmap_op_status(op) == OPMAP_OP_REWRITE) {
                opmap_reason_info r = { .size = sizeof(r) };
                assert_int_equal(opmap_op_reason(op, 0, &r), OPMAP_OK);
                assert_non_null(strstr(r.message, conv ? "no NPU kernel before torch_npu 2.6"
                                                       : "no NPU kernel after torch_npu 2.2"));
                assert_int_equal(r.status, OPMAP_OP_REWRITE);
            }
        }
        opmap_result_free(res);
    }
    /* a target that is not a version, and version-1 options (no torch_npu field) */
    {
        opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
        opts.torch_npu = "latest";
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, &opts, &err), OPMAP_EINVAL);
        assert_non_null(strstr(err.message, "not a torch_npu version"));
        opts.version = 1;
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, &opts, &err), OPMAP_OK);
        assert_string_equal(opmap_result_torch_npu_target(res), "");
        opmap_result_free(res);
    }
    opmap_model_free(model);
    opmap_table_free(t);
    mb_free(&b);
}

/* Chip i of the result: its family and the part it was asked by ("" for the family). */
static void expect_chip(const opmap_result *res, size_t i, const char *family, const char *part)
{
    const char *got;
    assert_int_equal(opmap_result_chip(res, i, &got), OPMAP_OK);
    assert_string_equal(got, family);
    assert_int_equal(opmap_result_chip_part(res, i, &got), OPMAP_OK);
    assert_string_equal(got, part);
}

/*
 * --soc names a family id or one of its exact parts (about.soc_parts), case aside: a part
 * is answered from its family's row and keeps the table's spelling; a name the table does
 * not know fails with the family ids.
 */
/* The ATC command is pasted into a shell: a model path and input names (both the model's
 * to choose) stay single words, and nothing in them runs. */
static void test_report__atc_command_quotes_names(void **state)
{
    static const int64_t dims[] = { 1, 3 };
    static const struct { const char *model, *input, *want; } cases[] = {
        { "m.onnx", "x", "atc --model=m.onnx --framework=5 --output=m --soc_version=$SOC_VERSION "
          "--input_shape=\"x:1,3\"" },
        { "my dir/m$(id).onnx", "x\";touch pwned;\"", "atc --model='my dir/m$(id).onnx' "
          "--framework=5 --output='m$(id)' --soc_version=$SOC_VERSION "
          "--input_shape='x\";touch pwned;\":1,3'" },
        { "m.onnx", "it's", "--input_shape=\"it's:1,3\"" },
        { "m.onnx", "it's $HOME", "--input_shape='it'\\''s $HOME:1,3'" },
    };
    fixture *f = *state;
    size_t i, len;
    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        mb b;
        Onnx__GraphProto *g;
        Onnx__ModelProto *m;
        const uint8_t *buf;
        opmap_model *model;
        opmap_result *res;
        char *text = NULL;
        mb_init(&b);
        g = mb_graph(&b, "g");
        mb_input(&b, g, cases[i].input, 1, dims, NULL, 2);
        mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
        m = mb_model(&b, g, 8);
        mb_opset(&b, m, "", 17);
        buf = mb_pack(&b, m, &len);
        assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, cases[i].model, NULL),
                         OPMAP_OK);
        assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, NULL), OPMAP_OK);
        assert_int_equal(opmap_report_write_memory(f->ctx, (const opmap_result *const *)&res, 1,
                                                   OPMAP_REPORT_TEXT, NULL, &text, &len, NULL),
                         OPMAP_OK);
        if (!strstr(text, cases[i].want))
            fail_msg("'%s' not in the report:\n%s", cases[i].want, text);
        opmap_free(f->ctx, text);
        opmap_result_free(res);
        opmap_model_free(model);
        mb_free(&b);
    }
}

static void test_scan__soc_names_a_family_or_a_part(void **state)
{
    static const char yaml[] =
        "schema: 1\nsources:\n  - {id: s}\n"
        "about:\n  socs: [ascend910b, ascend310p]\n  default_soc: ascend910b\n"
        "  soc_parts:\n"
        "    ascend910b: {parts: [Ascend910B3, Ascend910B4], sources: [s]}\n"
        "    ascend310p: {parts: [Ascend310P3], sources: [s]}\n"
        "ops:\n"
        "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [s],\n"
        "     socs: {ascend310p: {status: rewrite}}}\n";
    static const struct { const char *soc; size_t n; const char *family[2], *part[2]; int relu; }
        cases[] = {
            { "Ascend910B3", 1, { "ascend910b" }, { "Ascend910B3" }, OPMAP_OP_FULL },
            { "ascend910b3", 1, { "ascend910b" }, { "Ascend910B3" }, OPMAP_OP_FULL },
            { "ASCEND910B", 1, { "ascend910b" }, { "" }, OPMAP_OP_FULL },
            { NULL, 1, { "ascend910b" }, { "" }, OPMAP_OP_FULL },
            /* a part answers from its family's row: ascend310p's rewrite */
            { "ascend910b4,Ascend310P3", 2, { "ascend910b", "ascend310p" },
              { "Ascend910B4", "Ascend310P3" }, OPMAP_OP_REWRITE },
            /* a family named twice is answered once, for its first name */
            { "Ascend910B3,ascend910b,ascend910b4", 1, { "ascend910b" }, { "Ascend910B3" },
              OPMAP_OP_FULL },
            { "all", 2, { "ascend910b", "ascend310p" }, { "", "" }, OPMAP_OP_REWRITE },
        };
    fixture *f = *state;
    opmap_table *t;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len, i, k;
    opmap_model *model;
    opmap_result *res;
    opmap_error err;

    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "t", &err),
                     OPMAP_OK);
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "s.onnx", &err), OPMAP_OK);
    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
        const opmap_op *op;
        const char *got;
        opts.soc = cases[i].soc;
        if (opmap_scan(&res, f->ctx, model, t, &opts, &err) != OPMAP_OK)
            fail_msg("--soc %s: %s", cases[i].soc ? cases[i].soc : "-", err.message);
        assert_int_equal(opmap_result_chip_count(res), cases[i].n);
        for (k = 0; k < cases[i].n; k++)
            expect_chip(res, k, cases[i].family[k], cases[i].part[k]);
        assert_int_equal(opmap_result_chip_part(res, cases[i].n, &got), OPMAP_EINVAL);
        assert_null(got);
        assert_int_equal(opmap_result_op(res, 0, &op), OPMAP_OK);
        assert_int_equal(opmap_op_status(op), cases[i].relu);
        opmap_result_free(res);
    }
    /* unknown names: the error lists the family ids; a family id's prefix is no part */
    {
        static const char *const bad[] = { "Ascend910B9", "ascend910", "ascend910b3,nope", "," };
        opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
        for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
            opts.soc = bad[i];
            assert_int_equal(opmap_scan(&res, f->ctx, model, t, &opts, &err), OPMAP_EINVAL);
            if (!strstr(err.message, "the table has: ascend910b, ascend310p; or use all"))
                fail_msg("--soc %s: %s", bad[i], err.message);
        }
        assert_non_null(strstr(err.message, "unknown chip ''"));
    }
    opmap_model_free(model);
    opmap_table_free(t);
    mb_free(&b);
}

/*
 * The seed guide's worked example: 200 operators, 58% full, 32% partial, 10% rewrite, at
 * 0.1 / 0.8 / 2.5 person-days: 200 x (0.058 + 0.256 + 0.25) = 112.8 person-days.
 */
/*
 * `becomes` cases: each instance takes the first case that holds (the weight's rank), the
 * operator names what its instances became with counts, and an instance whose rank the
 * model does not state is said to be undecided, with the row's union.
 */
static void test_scan__becomes_per_instance(void **state)
{
    static const char yaml[] =
        "schema: 1\nsources:\n  - {id: s}\nops:\n"
        "  - {domain: ai.onnx, op: Conv, since: 11, status: full, sources: [s],\n"
        "     ascend: {ops: [Conv2D, Conv3D], engine: ai_core},\n"
        "     constraints: [\n"
        "       {when: {input: 1, rank: {eq: 4}}, becomes: Conv2D, message: \"2-D\"},\n"
        "       {when: {input: 1, rank: {eq: 5}}, becomes: Conv3D, message: \"3-D\"}]}\n";
    static const int64_t w4[] = { 2, 1, 3, 3 }, w5[] = { 2, 1, 3, 3, 3 };
    static const char *const in_a[] = { "x", "wa", NULL }, *const in_b[] = { "x", "wb", NULL },
                             *const in_c[] = { "x", "wc", NULL }, *const in_d[] = { "x", "y", NULL };
    static const char *const out_y[] = { "y", NULL };
    fixture *f = *state;
    opmap_table *t = NULL;
    opmap_error err;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_result *res;
    const opmap_op *op;
    int rows;
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "b.yaml", &err),
                     OPMAP_OK);
    for (rows = 0; rows < 2; rows++) {
        mb_init(&b);
        g = mb_graph(&b, "g");
        mb_initializer(&b, g, mb_tensor_raw(&b, "wa", w4, 4, 4 * 18));
        mb_initializer(&b, g, mb_tensor_raw(&b, "wb", w4, 4, 4 * 18));
        mb_initializer(&b, g, mb_tensor_raw(&b, "wc", w5, 5, 4 * 54));
        mb_node(&b, g, "Conv", NULL, "a", in_a, out_y);
        mb_node(&b, g, "Conv", NULL, "b", in_b, NULL);
        mb_node(&b, g, "Conv", NULL, "c", in_c, NULL);
        if (rows)  /* a weight computed in the graph: its rank is not stated */
            mb_node(&b, g, "Conv", NULL, "d", in_d, NULL);
        m = mb_model(&b, g, 8);
        mb_opset(&b, m, "", 17);
        buf = mb_pack(&b, m, &len);
        assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "c.onnx", &err),
                         OPMAP_OK);
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, NULL, &err), OPMAP_OK);
        assert_int_equal(opmap_result_op(res, 0, &op), OPMAP_OK);
        assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL); /* a case restricts nothing */
        if (!rows) {
            assert_string_equal(op->becomes, "Conv2D (2), Conv3D (1)");
        } else {
            assert_non_null(strstr(op->becomes, "Conv2D (2), Conv3D (1); "));
            assert_non_null(strstr(op->becomes, "(1 instance: which one is not decided"));
            assert_non_null(strstr(op->becomes, "Conv2D, Conv3D"));
        }
        opmap_result_free(res);
        opmap_model_free(model);
        mb_free(&b);
    }
    opmap_table_free(t);
    /* a case is not a restriction: `then` beside `becomes` is refused */
    {
        static const char bad[] =
            "schema: 1\nsources:\n  - {id: s}\nops:\n"
            "  - {domain: ai.onnx, op: Conv, since: 11, status: full, sources: [s],\n"
            "     constraints: [{when: {input: 1, rank: {eq: 4}}, becomes: Conv2D, then: partial,"
            " message: m}]}\n";
        assert_int_not_equal(opmap_table_load_memory(&t, f->ctx, bad, sizeof(bad) - 1, "x.yaml",
                                                     &err), OPMAP_OK);
        assert_non_null(strstr(err.message, "becomes"));
    }
}

/* The fused GELU advice reads ATen graphs; an ONNX Gelu does not raise it. */
static void test_scan__aten_gelu_advice_reads_aten_graphs(void **state)
{
    static const char yaml[] =
        "schema: 1\nsources:\n  - {id: s, grade: practice}\nops:\n"
        "  - {domain: aten, op: gelu, status: full, sources: [s]}\n"
        "  - {domain: ai.onnx, op: Gelu, since: 20, status: full, sources: [s]}\n"
        "advice:\n"
        "  - {id: fast_gelu, detector: aten_gelu, kind: optional, message: m, action: a,\n"
        "     grade: practice, sources: [s]}\n";
    static const char graph[] = "graph(%x : Float(2, 3)):\n"
                                "  %a : str = prim::Constant[value=\"none\"]()\n"
                                "  %y : Float(2, 3) = aten::gelu(%x, %a) # m.py:3:0\n"
                                "  return (%y)\n";
    fixture *f = *state;
    opmap_table *t = NULL;
    opmap_error err;
    opmap_model *model;
    opmap_result *res;
    opmap_advice_info a = { .size = sizeof(a) };
    static const char *const ops[] = { "Gelu" };
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "a.yaml", &err),
                     OPMAP_OK);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, graph, sizeof(graph) - 1, "g.txt",
                                             &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, t, NULL, &err), OPMAP_OK);
    assert_int_equal(opmap_result_advice_count(res), 1);
    assert_int_equal(opmap_result_advice(res, 0, &a), OPMAP_OK);
    assert_string_equal(a.id, "fast_gelu");
    assert_non_null(strstr(a.where, "gelu"));
    opmap_result_free(res);
    opmap_model_free(model);
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, ops[0], NULL, NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 20);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "g.onnx", &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, t, NULL, &err), OPMAP_OK);
    assert_int_equal(opmap_result_advice_count(res), 0);
    opmap_result_free(res);
    opmap_model_free(model);
    mb_free(&b);
    opmap_table_free(t);
}

/*
 * onnx_simplifier names float arithmetic on constants alone (a spectral norm's power iteration the
 * exporter left in the graph) whatever the input shapes, and shape arithmetic only when the
 * inputs are static (with a dynamic batch, ATC folds it once --input_shape fixes them).
 */
static void test_scan__weight_arithmetic_names_onnx_simplifier(void **state)
{
    static const char yaml[] =
        "schema: 1\nsources:\n  - {id: s, grade: practice}\nops:\n"
        "  - {domain: ai.onnx, op: MatMul, since: 1, status: full, sources: [s]}\n"
        "advice:\n"
        "  - {id: onnx_simplifier, detector: shape_arithmetic, kind: optional, message: m,\n"
        "     action: a, grade: practice, sources: [s]}\n";
    fixture *f = *state;
    opmap_table *t = NULL;
    opmap_error err;
    int weights;
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "a.yaml", &err),
                     OPMAP_OK);
    for (weights = 0; weights < 2; weights++) {
        static const int64_t wd[] = { 4, 4 }, ud[] = { 4, 1 }, xd[] = { -1, 4 };
        opmap_advice_info a = { .size = sizeof(a) };
        opmap_model *model;
        opmap_result *res;
        mb b;
        Onnx__GraphProto *g;
        Onnx__ModelProto *m;
        const uint8_t *buf;
        size_t len;
        mb_init(&b);
        g = mb_graph(&b, "g");
        mb_input(&b, g, "x", 1, xd, (const char *const[]){ "batch", NULL }, 2);
        mb_initializer(&b, g, mb_tensor_raw(&b, "w", wd, 2, 64));
        mb_initializer(&b, g, mb_tensor_raw(&b, "u", ud, 2, 16));
        if (weights) {
            mb_node(&b, g, "MatMul", NULL, "wu", (const char *const[]){ "w", "u", NULL },
                    (const char *const[]){ "wu", NULL });
            mb_node(&b, g, "ReduceL2", NULL, "norm", (const char *const[]){ "wu", NULL },
                    (const char *const[]){ "n", NULL });
            mb_node(&b, g, "Div", NULL, "sn", (const char *const[]){ "w", "n", NULL },
                    (const char *const[]){ "wn", NULL });
            mb_node(&b, g, "MatMul", NULL, "y", (const char *const[]){ "x", "wn", NULL },
                    (const char *const[]){ "y", NULL });
        } else {
            mb_node(&b, g, "Shape", NULL, "s", (const char *const[]){ "x", NULL },
                    (const char *const[]){ "s", NULL });
            mb_node(&b, g, "Reshape", NULL, "y", (const char *const[]){ "x", "s", NULL },
                    (const char *const[]){ "y", NULL });
        }
        m = mb_model(&b, g, 8);
        mb_opset(&b, m, "", 13);
        buf = mb_pack(&b, m, &len);
        assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "w.onnx", &err),
                         OPMAP_OK);
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, NULL, &err), OPMAP_OK);
        if (!weights) {
            assert_int_equal(opmap_result_advice_count(res), 0);
        } else {
            assert_int_equal(opmap_result_advice_count(res), 1);
            assert_int_equal(opmap_result_advice(res, 0, &a), OPMAP_OK);
            assert_string_equal(a.id, "onnx_simplifier");
            /* the three nodes on w and u, not the MatMul that reads x */
            assert_string_equal(a.value, "on constants alone: MatMul, ReduceL2, Div");
            assert_non_null(strstr(a.where, "wu"));
        }
        opmap_result_free(res);
        opmap_model_free(model);
        mb_free(&b);
    }
    opmap_table_free(t);
}

/*
 * --workload training: an operator whose backward runs an operator without an NPU kernel is
 * rewrite, an npu operator without a backward partial, each with the reason; inference
 * answers the forward only; an ONNX model is answered for inference and says so. The table
 * refuses a backward on a row that is not ATen or npu, and an unknown status.
 */
static void test_scan__training_answers_the_backward(void **state)
{
    static const char yaml[] =
        "schema: 1\nsources:\n  - {id: s, grade: kernel}\nops:\n"
        "  - {domain: aten, op: foo, status: full, sources: [s],\n"
        "     backward: {status: rewrite, via: pytorch, ops: [\"aten::foo_backward\"],\n"
        "                note: \"its backward runs aten::foo_backward\", grade: kernel, sources: [s]}}\n"
        "  - {domain: aten, op: relu, status: full, sources: [s],\n"
        "     backward: {status: full, via: pytorch, ops: [\"aten::threshold_backward\"],\n"
        "                grade: kernel, sources: [s]}}\n"
        "  - {domain: npu, op: bar, status: full, sources: [s],\n"
        "     backward: {status: missing, note: \"no backward\", grade: derived, sources: [s]}}\n"
        "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [s]}\n";
    static const char graph[] = "graph(%x : Float(2, 3)):\n"
                                "  %a : Float(2, 3) = aten::foo(%x) # m.py:1:0\n"
                                "  %b : Float(2, 3) = aten::relu(%a) # m.py:2:0\n"
                                "  %c : Float(2, 3) = npu::bar(%b) # m.py:3:0\n"
                                "  return (%c)\n";
    fixture *f = *state;
    opmap_table *t = NULL;
    opmap_error err;
    opmap_model *model;
    opmap_result *res;
    opmap_scan_options o = OPMAP_SCAN_OPTIONS_INIT;
    opmap_row_backward_info rb = { .size = sizeof(rb) };
    const char *bop;
    size_t i;
    int w;
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "w.yaml", &err),
                     OPMAP_OK);
    assert_int_equal(opmap_row_backward(opmap_table_lookup(t, "aten", "foo", 0), &rb), OPMAP_OK);
    assert_string_equal(rb.status, "rewrite");
    assert_string_equal(rb.via, "pytorch");
    assert_int_equal(rb.op_count, 1);
    assert_int_equal(opmap_row_backward_op(opmap_table_lookup(t, "aten", "foo", 0), 0, &bop),
                     OPMAP_OK);
    assert_string_equal(bop, "aten::foo_backward");
    assert_string_equal(opmap_row_evidence(opmap_table_lookup(t, "npu", "bar", 0), "backward"),
                        "derived");
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, graph, sizeof(graph) - 1, "g.txt",
                                             &err), OPMAP_OK);
    for (w = OPMAP_WORKLOAD_INFERENCE; w <= OPMAP_WORKLOAD_TRAINING; w++) {
        o.workload = w;
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, &o, &err), OPMAP_OK);
        assert_int_equal(opmap_result_workload(res), w);
        assert_int_equal(opmap_result_workload_narrowed(res), 0);
        for (i = 0; i < opmap_result_op_count(res); i++) {
            const opmap_op *op;
            opmap_op_backward_info ob = { .size = sizeof(ob) };
            assert_int_equal(opmap_result_op(res, i, &op), OPMAP_OK);
            assert_int_equal(opmap_op_backward(op, &ob), OPMAP_OK);
            if (w == OPMAP_WORKLOAD_INFERENCE) {
                assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
                assert_string_equal(ob.status, "");
            } else if (strcmp(opmap_op_name(op), "foo") == 0) {
                assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
                assert_string_equal(ob.status, "rewrite");
                assert_string_equal(ob.ops, "aten::foo_backward");
                assert_non_null(strstr(op->reasons[0].message, "foo_backward"));
            } else if (strcmp(opmap_op_name(op), "bar") == 0) {
                assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
                assert_string_equal(ob.status, "missing");
            } else {
                assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
                assert_string_equal(ob.status, "full");
            }
        }
        opmap_result_free(res);
    }
    opmap_model_free(model);
    /* an ONNX model: answered for inference, and it says so */
    {
        static const char *const relu[] = { "Relu" };
        mb b;
        Onnx__GraphProto *g;
        Onnx__ModelProto *m;
        const uint8_t *buf;
        size_t len;
        mb_init(&b);
        g = mb_graph(&b, "g");
        mb_node(&b, g, relu[0], NULL, NULL, NULL, NULL);
        m = mb_model(&b, g, 8);
        mb_opset(&b, m, "", 17);
        buf = mb_pack(&b, m, &len);
        assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "r.onnx", &err),
                         OPMAP_OK);
        o.workload = OPMAP_WORKLOAD_TRAINING;
        assert_int_equal(opmap_scan(&res, f->ctx, model, t, &o, &err), OPMAP_OK);
        assert_int_equal(opmap_result_workload(res), OPMAP_WORKLOAD_INFERENCE);
        assert_int_equal(opmap_result_workload_narrowed(res), 1);
        opmap_result_free(res);
        opmap_model_free(model);
        mb_free(&b);
    }
    o.workload = 7;
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, graph, sizeof(graph) - 1, "g.txt",
                                             &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, t, &o, &err), OPMAP_EINVAL);
    assert_non_null(strstr(err.message, "workload 7"));
    opmap_model_free(model);
    opmap_table_free(t);
    {
        static const char onnx_bw[] =
            "schema: 1\nsources:\n  - {id: s}\nops:\n"
            "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [s],\n"
            "     backward: {status: full}}\n";
        static const char bad_status[] =
            "schema: 1\nsources:\n  - {id: s}\nops:\n"
            "  - {domain: aten, op: relu, status: full, sources: [s],\n"
            "     backward: {status: maybe}}\n";
        assert_int_equal(opmap_table_load_memory(&t, f->ctx, onnx_bw, sizeof(onnx_bw) - 1, "x",
                                                 &err), OPMAP_ETABLE);
        assert_non_null(strstr(err.message, "only ATen and npu rows"));
        assert_int_equal(opmap_table_load_memory(&t, f->ctx, bad_status, sizeof(bad_status) - 1,
                                                 "x", &err), OPMAP_ETABLE);
        assert_non_null(strstr(err.message, "unknown backward.status 'maybe'"));
    }
}

static void test_estimate__seed_guide_example_is_112_8_days(void **state)
{
    static om_estimate_op ops[200];
    opmap_summary s = { .size = sizeof(s) };
    size_t i;
    (void)state;
    for (i = 0; i < 200; i++) {
        opmap_effort full = { 100, 100, 100 }, partial = { 800, 800, 800 },
                     rewrite = { 2500, 2500, 2500 };
        ops[i].status = i < 116 ? OPMAP_OP_FULL : i < 180 ? OPMAP_OP_PARTIAL : OPMAP_OP_REWRITE;
        ops[i].effort = i < 116 ? full : i < 180 ? partial : rewrite;
        ops[i].instances = 1 + i % 7; /* instances never change the estimate */
    }
    for (i = 0; i < 200; i++)
        om_estimate_add(&s, &ops[i]);
    assert_int_equal(s.operators[OPMAP_OP_FULL], 116);
    assert_int_equal(s.operators[OPMAP_OP_PARTIAL], 64);
    assert_int_equal(s.operators[OPMAP_OP_REWRITE], 20);
    assert_int_equal(s.effort_total.expected, 112800);
}

/* Person-days and money as reports write them: exact decimals, no trailing zeros, '.' */
static void test_report__days_and_amounts_are_written_exactly(void **state)
{
    static const struct { uint64_t milli; const char *text; } days[] = {
        { 0, "0" }, { 100, "0.1" }, { 2500, "2.5" }, { 3000, "3" }, { 125, "0.125" },
        { 1010, "1.01" }, { 1001, "1.001" }, { 112800, "112.8" },
        { UINT64_MAX, "18446744073709551.615" }
    };
    char buf[64], small[4];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(days) / sizeof(days[0]); i++) {
        om_format_days(days[i].milli, buf, sizeof(buf));
        assert_string_equal(buf, days[i].text);
    }
    om_format_days(112800, small, sizeof(small)); /* cut, never overrun */
    assert_string_equal(small, "112");
    om_format_amount(2080, buf, sizeof(buf));
    assert_string_equal(buf, "2080");
    om_format_amount(1234.5, buf, sizeof(buf));
    assert_string_equal(buf, "1234.50");
    om_format_amount(0.125, buf, sizeof(buf));
    assert_string_equal(buf, "0.13");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report__days_and_amounts_are_written_exactly),
        cmocka_unit_test(test_scan__groups_per_distinct_operator),
        cmocka_unit_test(test_headline__verdict_coverage_and_rule),
        cmocka_unit_test(test_estimate__weights_override_the_table),
        cmocka_unit_test(test_scan__torch_npu_target),
        cmocka_unit_test(test_scan__soc_names_a_family_or_a_part),
        cmocka_unit_test(test_report__atc_command_quotes_names),
        cmocka_unit_test(test_scan__becomes_per_instance),
        cmocka_unit_test(test_scan__aten_gelu_advice_reads_aten_graphs),
        cmocka_unit_test(test_scan__weight_arithmetic_names_onnx_simplifier),
        cmocka_unit_test(test_scan__training_answers_the_backward),
        cmocka_unit_test(test_estimate__seed_guide_example_is_112_8_days),
    };
    return cmocka_run_group_tests_name("scan", tests, setup, teardown);
}
