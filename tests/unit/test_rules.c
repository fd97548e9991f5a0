/*
 * tests/unit/test_rules.c - rule evaluation: each constraint kind with its reason and the
 * actual value, ONNX defaults, dtype inference, per-chip answers, NPU segments and
 * model-level risks.
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
#include "../../src/rules/advice.h"
#include "../../src/rules/constraints.h"
#include "ir/values.h"
#include "../support/onnx_build.h"

static const char table_yaml[] =
    "schema: 1\n"
    "about: {socs: [chip_a, chip_b, chip_c], default_soc: chip_a}\n"
    "sources:\n  - {id: s}\n"
    "ops:\n"
    "  - domain: ai.onnx\n    op: Resize\n    since: 11\n    status: full\n    sources: [s]\n"
    "    constraints:\n"
    "      - {when: {attr: mode, default: nearest, in: [cubic]}, then: rewrite, socs: [chip_b],\n"
    "         message: cubic unsupported}\n"
    "      - {when: {attr: mode, default: nearest, in: [linear]}, flag: precision,\n"
    "         message: linear may drift}\n"
    "      - {when: {input: 2, is: not_constant}, then: partial, message: scales must be constant}\n"
    "      - {when: [{attr: mode, default: nearest, eq: nearest}, {input: 0, rank: {gt: 4}}],\n"
    "         then: rewrite, message: nearest over rank 4}\n"
    "  - domain: ai.onnx\n    op: AveragePool\n    since: 11\n    status: full\n    sources: [s]\n"
    "    ascend: {engine: ai_core}\n"
    "    constraints:\n"
    "      - {when: {attr: kernel_shape, gt: 255}, then: partial, flag: performance,\n"
    "         message: big kernels run on AI CPU}\n"
    "      - {when: {attr: count_include_pad, default: 0, ne: 0}, then: partial, message: cip}\n"
    "  - domain: ai.onnx\n    op: LayerNormalization\n    since: 17\n    status: full\n"
    "    sources: [s]\n"
    "    constraints:\n"
    "      - {when: {attr: epsilon, default: 1.0e-05, lt: 1.0e-05}, then: partial,\n"
    "         flag: precision, message: eps too small}\n"
    "  - domain: ai.onnx\n    op: MatMul\n    since: 13\n    status: full\n    sources: [s]\n"
    "    constraints:\n"
    "      - {when: {input: 0, rank: {gt: 6}}, then: rewrite, message: rank over 6}\n"
    "      - {when: {input: 0, dtype: {in: [float64]}}, then: partial, message: no float64}\n"
    "    socs:\n"
    "      chip_a: {status: full, dtypes: [float16, float32]}\n"
    "      chip_b: {status: full, dtypes: [float16]}\n"
    "      chip_c: {status: unknown, note: nobody says}\n"
    "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Cast, since: 13, status: full, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Shape, since: 15, status: full, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Reshape, since: 14, status: full, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Constant, since: 13, status: structural, sources: [s]}\n"
    "  - {domain: ai.onnx, op: NonZero, since: 13, status: full, sources: [s],\n"
    "     ascend: {engine: ai_cpu}}\n"
    "  - {domain: ai.onnx, op: Loop, since: 16, status: full, sources: [s], ascend: {engine: host}}\n"
    "  - {domain: ai.onnx, op: Dropout, since: 13, status: full, sources: [s], flags: [rng]}\n"
    /* per-input lists: input 0 float, input 1 (the shape) int64 only */
    "  - domain: ai.onnx\n    op: Expand\n    since: 13\n    status: full\n    sources: [s]\n"
    "    inputs:\n"
    "      - {index: 0, name: input, dtypes: [float16, float32]}\n"
    "      - {index: 1, name: shape, dtypes: [int64], sources: [s]}\n"
    "  - domain: ai.onnx\n    op: Mul\n    since: 14\n    status: full\n    sources: [s]\n"
    "    inputs: [{index: 0, dtypes: [float16, float32]}, {index: 1, dtypes: [float16, float32]}]\n"
    "  - {domain: ai.onnx, op: Gather, since: 13, status: full, sources: [s], dtypes: [float32]}\n"
    "  - {domain: ai.onnx, op: Unsqueeze, since: 13, status: full, sources: [s], dtypes: [float32]}\n"
    /* an advisory, and a condition list that must hold as a whole */
    "  - domain: ai.onnx\n    op: Celu\n    since: 12\n    status: full\n    sources: [s]\n"
    "    constraints:\n"
    "      - {when: {attr: alpha, lt: 0.5}, then: note, message: small alpha reported}\n"
    "      - {when: [{attr: alpha, lt: 0.5}, {input: 0, rank: {eq: 2}}], then: partial,\n"
    "         message: small alpha on a matrix}\n"
    /* ATen rows: TorchScript arguments by position; fallback exports */
    "  - {domain: aten, op: fft_rfft, status: partial, sources: [s]}\n"
    /* a general answer worse than the one published chip's; chip_c unpublished */
    "  - domain: ai.onnx\n    op: Softsign\n    since: 1\n    status: rewrite\n    sources: [s]\n"
    "    socs: {chip_a: {status: full}, chip_b: {status: full}, chip_c: {status: unknown}}\n"
    /* a condition list whose values print long; a rank condition behind another one */
    "  - domain: ai.onnx\n    op: Concat\n    since: 13\n    status: full\n    sources: [s]\n"
    "    constraints:\n"
    "      - {when: [{attr: foo, gt: 0}, {attr: foo, gt: 0}, {attr: foo, gt: 0}], then: partial,\n"
    "         message: three conditions}\n"
    "      - {when: [{attr: axis, eq: 0}, {input: 0, rank: {eq: 1}}], then: rewrite,\n"
    "         message: rank behind axis}\n";

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
} fixture;

static int setup(void **state)
{
    static fixture f;
    opmap_error err;
    if (opmap_ctx_new(&f.ctx, NULL, NULL) != OPMAP_OK)
        return -1;
    if (opmap_table_load_memory(&f.table, f.ctx, table_yaml, sizeof(table_yaml) - 1, "t", &err)) {
        fprintf(stderr, "table: %u:%u: %s\n", err.line, err.column, err.message);
        return -1;
    }
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

static opmap_result *scan_model(fixture *f, mb *b, Onnx__ModelProto *m, const char *soc,
                                opmap_model **model_out)
{
    size_t len;
    const uint8_t *buf = mb_pack(b, m, &len);
    opmap_model *model;
    opmap_result *res;
    opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
    opmap_error err;
    opts.soc = soc;
    if (opmap_model_open_memory(&model, f->ctx, buf, len, "m.onnx", &err) != OPMAP_OK)
        fail_msg("open: %s", err.message);
    if (opmap_scan(&res, f->ctx, model, f->table, &opts, &err) != OPMAP_OK)
        fail_msg("scan: %s", err.message);
    if (model_out)
        *model_out = model;
    else
        opmap_model_free(model);
    return res;
}

static const opmap_op *find_op(const opmap_result *res, const char *name)
{
    size_t i;
    const opmap_op *op;
    for (i = 0; i < opmap_result_op_count(res); i++) {
        assert_int_equal(opmap_result_op(res, i, &op), OPMAP_OK);
        if (strcmp(opmap_op_name(op), name) == 0)
            return op;
    }
    fail_msg("no operator %s in the result", name);
    return NULL;
}

/* The operator's answer on the result's chip i, which must exist. */
static opmap_op_chip_info chip_of(const opmap_op *op, size_t i)
{
    opmap_op_chip_info c = { .size = sizeof(c) };
    assert_int_equal(opmap_op_chip(op, i, &c), OPMAP_OK);
    return c;
}

/* The result's unpublished operators, and what verifying them costs. */
static uint64_t unpublished(const opmap_result *res, opmap_effort *effort)
{
    opmap_summary s = { .size = sizeof(s) };
    assert_int_equal(opmap_result_summary(res, &s), OPMAP_OK);
    if (effort)
        *effort = s.unpublished_effort;
    return s.unpublished;
}

/* The reason whose message contains `needle`, or a failure. */
static opmap_reason_info find_reason(const opmap_op *op, const char *needle)
{
    opmap_reason_info r = { .size = sizeof(r) };
    size_t i;
    for (i = 0; i < opmap_op_reason_count(op); i++) {
        assert_int_equal(opmap_op_reason(op, i, &r), OPMAP_OK);
        if (strstr(r.message, needle))
            return r;
    }
    fail_msg("%s has no reason containing '%s'", opmap_op_name(op), needle);
    memset(&r, 0, sizeof(r));
    return r;
}

static Onnx__ModelProto *model17(mb *b, Onnx__GraphProto *g)
{
    Onnx__ModelProto *m = mb_model(b, g, 8);
    mb_opset(b, m, "", 17);
    return m;
}

/* ---- constraint kinds ---- */

static void test_rules__attribute_in_set_per_chip(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;
    int64_t dims[1] = { 4 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_initializer(&b, g, mb_tensor_raw(&b, "scales", dims, 1, 16));
    n = mb_node(&b, g, "Resize", NULL, "up", (const char *const[]){ "x", "", "scales", NULL }, NULL);
    mb_attr_string(&b, n, "mode", "cubic");
    res = scan_model(f, &b, model17(&b, g), "all", NULL);
    op = find_op(res, "Resize");
    assert_int_equal(opmap_result_chip_count(res), 3);
    assert_int_equal(chip_of(op, 0).status, OPMAP_OP_FULL);    /* chip_a */
    assert_int_equal(chip_of(op, 1).status, OPMAP_OP_REWRITE); /* chip_b: the constraint */
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);         /* worst over chips */
    r = find_reason(op, "cubic unsupported");
    assert_string_equal(r.value, "mode=cubic");
    assert_int_equal(r.status, OPMAP_OP_REWRITE);
    assert_int_equal(r.chips, 1u << 1);
    assert_string_equal(r.example, "main/up");
    opmap_result_free(res);

    /* the default chip alone does not see chip_b's constraint */
    res = scan_model(f, &b, model17(&b, g), NULL, NULL);
    op = find_op(res, "Resize");
    assert_int_equal(opmap_result_chip_count(res), 1);
    {
        const char *chip = NULL;
        assert_int_equal(opmap_result_chip(res, 0, &chip), OPMAP_OK);
        assert_string_equal(chip, "chip_a");
        assert_int_equal(opmap_result_chip(res, opmap_result_chip_count(res), &chip),
                         OPMAP_EINVAL);
        assert_null(chip);
    }
    assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
    assert_int_equal(opmap_op_reason_count(op), 0);
    opmap_result_free(res);
    mb_free(&b);
}

static void test_rules__defaults_and_flags(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;

    mb_init(&b);
    g = mb_graph(&b, "g");
    /* no mode attribute: ONNX's default (nearest) applies, nothing fires */
    mb_node(&b, g, "Resize", NULL, "plain", (const char *const[]){ "x", "", "s", NULL }, NULL);
    n = mb_node(&b, g, "Resize", NULL, "lin", (const char *const[]){ "x", "", "s", NULL }, NULL);
    mb_attr_string(&b, n, "mode", "linear");
    /* LayerNormalization without epsilon: the default 1e-5 is not < 1e-5 */
    mb_node(&b, g, "LayerNormalization", NULL, "ln_default", NULL, NULL);
    n = mb_node(&b, g, "LayerNormalization", NULL, "ln_small", NULL, NULL);
    mb_attr_float(&b, n, "epsilon", 1e-6f);
    res = scan_model(f, &b, model17(&b, g), NULL, NULL);

    op = find_op(res, "Resize");
    r = find_reason(op, "linear may drift");
    assert_string_equal(r.value, "mode=linear");
    assert_int_equal(r.status, -1);          /* a flag, no status change */
    assert_int_equal(r.flag, OPMAP_FLAG_PRECISION);
    assert_int_equal(r.instances, 1);
    assert_true(opmap_op_flags(op) & OPMAP_FLAG_PRECISION);
    /* scales ("s") is a graph input, not a constant: both instances */
    r = find_reason(op, "scales must be constant");
    assert_string_equal(r.value, "input 2 is not constant");
    assert_int_equal(r.instances, 2);
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);

    op = find_op(res, "LayerNormalization");
    r = find_reason(op, "eps too small");
    assert_int_equal(r.instances, 1);
    assert_string_equal(r.example, "main/ln_small");
    assert_non_null(strstr(r.value, "epsilon=1e-06"));
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    opmap_result_free(res);
    mb_free(&b);
}

static void test_rules__list_attributes_and_ordering(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;

    mb_init(&b);
    g = mb_graph(&b, "g");
    n = mb_node(&b, g, "AveragePool", NULL, "small", NULL, NULL);
    mb_attr_ints(&b, n, "kernel_shape", (const int64_t[]){ 3, 3 }, 2);
    n = mb_node(&b, g, "AveragePool", NULL, "big", NULL, NULL);
    mb_attr_ints(&b, n, "kernel_shape", (const int64_t[]){ 3, 300 }, 2);
    mb_attr_int(&b, n, "count_include_pad", 1);
    res = scan_model(f, &b, model17(&b, g), NULL, NULL);
    op = find_op(res, "AveragePool");
    r = find_reason(op, "big kernels");
    assert_string_equal(r.value, "kernel_shape=[3, 300]"); /* any element > 255 */
    assert_int_equal(r.instances, 1);
    assert_int_equal(r.flag, OPMAP_FLAG_PERFORMANCE);
    r = find_reason(op, "cip");
    assert_string_equal(r.value, "count_include_pad=1");
    assert_int_equal(opmap_op_reason_count(op), 2);
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    opmap_result_free(res);
    mb_free(&b);
}

/* ---- dtypes, ranks, chips ---- */

static void test_rules__rank_and_dtype_from_inference(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;
    int64_t d7[7] = { 1, 1, 1, 1, 1, 2, 2 }, d2[2] = { 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x7", 1, d7, NULL, 7);          /* float32, rank 7 */
    mb_input(&b, g, "x2", 1, d2, NULL, 2);
    mb_node(&b, g, "MatMul", NULL, "mm7", (const char *const[]){ "x7", "x7", NULL },
            (const char *const[]){ "y7", NULL });
    n = mb_node(&b, g, "Cast", NULL, "to_double", (const char *const[]){ "x2", NULL },
                (const char *const[]){ "d", NULL });
    mb_attr_int(&b, n, "to", 11);
    mb_node(&b, g, "MatMul", NULL, "mm_double", (const char *const[]){ "d", "d", NULL },
            (const char *const[]){ "y2", NULL });
    res = scan_model(f, &b, model17(&b, g), "all", NULL);
    op = find_op(res, "MatMul");
    r = find_reason(op, "rank over 6");
    assert_string_equal(r.value, "rank(input 0)=7");
    assert_string_equal(r.example, "main/mm7");
    r = find_reason(op, "no float64");        /* Cast's `to` gave the dtype */
    assert_string_equal(r.value, "dtype(input 0)=float64");
    assert_string_equal(r.example, "main/mm_double");
    /* chip_c is unknown and says so */
    r = find_reason(op, "nobody says");
    assert_int_equal(r.chips, 1u << 2);
    assert_true(chip_of(op, 2).unknown);
    assert_false(chip_of(op, 0).unknown);
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
    opmap_result_free(res);
    mb_free(&b);
}

/* A Reshape to sizes computed at run time (SlowFast's dynamic-batch export: Shape -> Gather
 * -> Unsqueeze -> Concat) states its output's rank by its target's length: a rank condition
 * holds on it and says so; a rank-only 4-D input does not meet "over 4". */
static void test_rules__rank_condition_on_a_rank_only_input(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;
    opmap_model *model;
    int64_t x_dims[6] = { -1, 1, 3, 8, 6, 6 }, axes0[1] = { 0 }, one[1] = { 1 };
    const char *const params[6] = { "N", NULL, NULL, NULL, NULL, NULL };
    static const char *const idx[] = { "i1", "i2", "i3", "i4" },
                             *const gat[] = { "g1", "g2", "g3", "g4" },
                             *const uns[] = { "u1", "u2", "u3", "u4" };
    int k;

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, x_dims, params, 6);
    mb_initializer(&b, g, mb_tensor_raw(&b, "scales", (const int64_t[]){ 5 }, 1, 20));
    mb_initializer(&b, g, mb_tensor_raw(&b, "scales4", (const int64_t[]){ 4 }, 1, 16));
    mb_node(&b, g, "Shape", NULL, "shape", (const char *const[]){ "x", NULL },
            (const char *const[]){ "s", NULL });
    for (k = 0; k < 4; k++) {
        Onnx__TensorProto *t = mb_tensor_raw(&b, idx[k], one, 0, 8);
        t->data_type = 7; /* int64 scalar */
        mb_initializer(&b, g, t);
        n = mb_node(&b, g, "Gather", NULL, gat[k], (const char *const[]){ "s", idx[k], NULL },
                    (const char *const[]){ gat[k], NULL });
        mb_attr_int(&b, n, "axis", 0);
        n = mb_node(&b, g, "Unsqueeze", NULL, uns[k], (const char *const[]){ gat[k], NULL },
                    (const char *const[]){ uns[k], NULL });
        mb_attr_ints(&b, n, "axes", axes0, 1);
    }
    n = mb_node(&b, g, "Concat", NULL, "t5",
                (const char *const[]){ "u1", "u1", "u2", "u3", "u4", NULL },
                (const char *const[]){ "t5", NULL });
    mb_attr_int(&b, n, "axis", 0);
    n = mb_node(&b, g, "Concat", NULL, "t4", (const char *const[]){ "u1", "u2", "u3", "u4", NULL },
                (const char *const[]){ "t4", NULL });
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "r5", (const char *const[]){ "x", "t5", NULL },
            (const char *const[]){ "x5", NULL });
    mb_node(&b, g, "Reshape", NULL, "r4", (const char *const[]){ "x", "t4", NULL },
            (const char *const[]){ "x4", NULL });
    mb_node(&b, g, "Resize", NULL, "temporal", (const char *const[]){ "x5", "", "scales", NULL },
            (const char *const[]){ "y5", NULL });
    mb_node(&b, g, "Resize", NULL, "spatial", (const char *const[]){ "x4", "", "scales4", NULL },
            (const char *const[]){ "y4", NULL });
    res = scan_model(f, &b, model17(&b, g), NULL, &model);
    op = find_op(res, "Resize");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
    r = find_reason(op, "nearest over rank 4");
    assert_string_equal(r.value,
                        "mode=nearest (default); rank(input 0)=5 (its sizes computed at run time)");
    assert_string_equal(r.example, "main/temporal");
    assert_int_equal(r.instances, 1);
    /* the rank is all that is known: no shape for anything else to read */
    assert_int_equal(model->ir.main->nodes[model->ir.main->n_nodes - 2].in_facts[0].rank, -1);
    assert_int_equal(model->ir.main->nodes[model->ir.main->n_nodes - 2].in_facts[0].rank_only, 5);
    opmap_result_free(res);
    opmap_model_free(model);
    mb_free(&b);
}

static void test_rules__dtype_differs_by_chip(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;
    int64_t d2[2] = { 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);  /* float32: chip_a takes it, chip_b only float16 */
    mb_input(&b, g, "i", 3, d2, NULL, 2);  /* int8: neither takes it */
    mb_node(&b, g, "MatMul", NULL, "mm", (const char *const[]){ "x", "x", NULL }, NULL);
    mb_node(&b, g, "MatMul", NULL, "mm_int8", (const char *const[]){ "i", "i", NULL }, NULL);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "MatMul");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL); /* the int8 instance */
    r = find_reason(op, "not among the dtypes");
    assert_string_equal(r.value, "dtype(input 0)=int8");
    assert_string_equal(r.example, "main/mm_int8");
    opmap_result_free(res);
    /* ATC's default precision mode computes float32 in float16 where no float32 kernel is
     * listed: a precision note on a supported operator, not a partial */
    res = scan_model(f, &b, model17(&b, g), "chip_b", NULL);
    op = find_op(res, "MatMul");
    r = find_reason(op, "force_fp16");
    assert_int_equal(r.status, -1);
    assert_int_equal(r.flag, 0);
    assert_string_equal(r.value, "dtype(input 0)=float32");
    assert_string_equal(r.example, "main/mm");
    assert_string_equal(find_reason(op, "not among the dtypes").value, "dtype(input 0)=int8");
    opmap_result_free(res);
    mb_free(&b);
}

/* A dtype list is about the input it names: Expand's int64 list is its shape's. */
static void test_rules__dtypes_bound_to_their_input(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;
    int64_t d2[2] = { 2, 2 }, d1[1] = { 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);
    mb_input(&b, g, "shape", 7, d1, NULL, 1);
    mb_input(&b, g, "shape32", 6, d1, NULL, 1);
    mb_input(&b, g, "y8", 3, d2, NULL, 2);
    mb_node(&b, g, "Expand", NULL, "e", (const char *const[]){ "x", "shape", NULL }, NULL);
    mb_node(&b, g, "Expand", NULL, "e32", (const char *const[]){ "x", "shape32", NULL }, NULL);
    mb_node(&b, g, "Mul", NULL, "m", (const char *const[]){ "x", "y8", NULL }, NULL);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "Expand");
    assert_int_equal(opmap_op_reason_count(op), 1);  /* float32 data, int64 shape: fine */
    r = find_reason(op, "input 1 dtype int32");
    assert_string_equal(r.value, "dtype(input 1)=int32");
    assert_string_equal(r.example, "main/e32");
    assert_string_equal(r.sources, "s");
    op = find_op(res, "Mul");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_string_equal(find_reason(op, "input 1 dtype int8").value, "dtype(input 1)=int8");
    opmap_result_free(res);
    mb_free(&b);
}

/*
 * Integer shape arithmetic (Shape -> Gather -> Unsqueeze) is folded or computed on the host:
 * the kernels' dtype lists do not apply. The same ops on int64 data do.
 */
static void test_rules__shape_arithmetic_is_not_partial(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    opmap_result *res;
    const opmap_op *op;
    int64_t d2[2] = { 2, 2 }, d0[1] = { 1 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);
    mb_input(&b, g, "ids", 7, d2, NULL, 2);
    mb_initializer(&b, g, mb_tensor_raw(&b, "zero", d0, 0, 4));
    mb_node(&b, g, "Shape", NULL, "sh", (const char *const[]){ "x", NULL },
            (const char *const[]){ "s", NULL });
    mb_node(&b, g, "Gather", NULL, "dim0", (const char *const[]){ "s", "zero", NULL },
            (const char *const[]){ "n", NULL });
    mb_node(&b, g, "Unsqueeze", NULL, "u", (const char *const[]){ "n", "zero", NULL },
            (const char *const[]){ "n1", NULL });
    mb_node(&b, g, "Gather", NULL, "lookup", (const char *const[]){ "ids", "zero", NULL },
            (const char *const[]){ "g", NULL });
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    assert_int_equal(opmap_op_status(find_op(res, "Unsqueeze")), OPMAP_OP_FULL);
    op = find_op(res, "Gather");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_int_equal(opmap_op_reason_count(op), 1);
    assert_string_equal(find_reason(op, "not among").example, "main/lookup");
    opmap_result_free(res);
    mb_free(&b);
}

/* ONNX keeps float attributes as float32: epsilon=1e-5 is not "less than 1e-5". */
static void test_rules__float_attributes_at_stored_precision(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    int64_t d2[2] = { 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);
    n = mb_node(&b, g, "LayerNormalization", NULL, "ln5", (const char *const[]){ "x", NULL }, NULL);
    mb_attr_float(&b, n, "epsilon", 1e-5f);
    n = mb_node(&b, g, "LayerNormalization", NULL, "ln_default", (const char *const[]){ "x", NULL },
                NULL);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "LayerNormalization");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
    assert_int_equal(opmap_op_reason_count(op), 0);
    opmap_result_free(res);
    n = mb_node(&b, g, "LayerNormalization", NULL, "ln6", (const char *const[]){ "x", NULL }, NULL);
    mb_attr_float(&b, n, "epsilon", 1e-6f);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "LayerNormalization");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_string_equal(find_reason(op, "eps too small").value, "epsilon=1e-06");
    assert_string_equal(find_reason(op, "eps too small").example, "main/ln6");
    opmap_result_free(res);
    mb_free(&b);
}

/* `then: note` changes nothing; a list of conditions holds only as a whole. */
static void test_rules__advisory_and_condition_lists(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    opmap_reason_info r;
    int64_t d2[2] = { 2, 2 }, d3[3] = { 2, 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x3", 1, d3, NULL, 3);
    n = mb_node(&b, g, "Celu", NULL, "c3", (const char *const[]){ "x3", NULL }, NULL);
    mb_attr_float(&b, n, "alpha", 0.25f);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "Celu");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
    r = find_reason(op, "small alpha reported");
    assert_int_equal(r.status, -1);
    assert_int_equal(r.flag, 0);
    assert_int_equal(opmap_op_reason_count(op), 1); /* rank 3: the list does not hold */
    opmap_result_free(res);
    mb_input(&b, g, "x2", 1, d2, NULL, 2);
    n = mb_node(&b, g, "Celu", NULL, "c2", (const char *const[]){ "x2", NULL }, NULL);
    mb_attr_float(&b, n, "alpha", 0.25f);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "Celu");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    r = find_reason(op, "small alpha on a matrix");
    assert_string_equal(r.value, "alpha=0.25; rank(input 0)=2");
    assert_string_equal(r.example, "main/c2");
    opmap_result_free(res);
    mb_free(&b);
}

/* A chip nobody published an answer for is shown and counted apart, never estimated. */
static void test_rules__unpublished_chip_counted_apart(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    opmap_result *res;
    const opmap_op *op;
    opmap_summary one = { .size = sizeof(one) }, two = { .size = sizeof(two) };
    opmap_effort e;
    int64_t d2[2] = { 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);
    mb_input(&b, g, "i", 3, d2, NULL, 2);
    mb_node(&b, g, "MatMul", NULL, "mm", (const char *const[]){ "i", "i", NULL }, NULL);
    mb_node(&b, g, "Relu", NULL, "r", (const char *const[]){ "x", NULL }, NULL);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    assert_int_equal(opmap_result_summary(res, &one), OPMAP_OK);
    assert_int_equal(unpublished(res, &e), 0);
    opmap_result_free(res);
    res = scan_model(f, &b, model17(&b, g), "chip_a,chip_c", NULL);
    assert_int_equal(opmap_result_summary(res, &two), OPMAP_OK);
    assert_int_equal(two.effort_total.expected, one.effort_total.expected);
    assert_int_equal(two.effort_total.max, one.effort_total.max);
    assert_int_equal(unpublished(res, &e), 1);
    assert_int_equal(e.expected, 200); /* the table's default weights.unpublished */
    op = find_op(res, "MatMul");
    assert_true(opmap_op_unpublished(op));
    assert_true(chip_of(op, 1).unknown);
    assert_false(opmap_op_unpublished(find_op(res, "Relu")));
    opmap_result_free(res);
    /* with only the unpublished chip, the row's general answer is all there is */
    res = scan_model(f, &b, model17(&b, g), "chip_c", NULL);
    op = find_op(res, "MatMul");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL); /* the row has no general dtypes */
    assert_int_equal(unpublished(res, NULL), 1);
    opmap_result_free(res);
    mb_free(&b);
}

/* Only the chip without a published answer: the general answer is estimated, and says so. */
static void test_rules__unpublished_only_says_it_is_estimated(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    opmap_result *res;
    const opmap_op *op;
    opmap_summary one = { .size = sizeof(one) }, two = { .size = sizeof(two) };
    opmap_reason_info r;
    int64_t d2[2] = { 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);
    mb_node(&b, g, "Softsign", NULL, "s", (const char *const[]){ "x", NULL }, NULL);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    assert_int_equal(opmap_result_summary(res, &one), OPMAP_OK);
    assert_int_equal(opmap_op_status(find_op(res, "Softsign")), OPMAP_OP_FULL);
    opmap_result_free(res);
    /* chip_c's general answer (rewrite) would cost 2.5 days: it is left out */
    res = scan_model(f, &b, model17(&b, g), "chip_a,chip_c", NULL);
    assert_int_equal(opmap_result_summary(res, &two), OPMAP_OK);
    op = find_op(res, "Softsign");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
    assert_int_equal(two.effort_total.expected, one.effort_total.expected);
    assert_int_equal(chip_of(op, 1).status, OPMAP_OP_REWRITE);
    assert_string_equal(find_reason(op, "no public source").value,
                        "answer unpublished for this chip: counted apart, not estimated");
    assert_string_equal(opmap_op_ascend_op(op), "");
    opmap_result_free(res);
    res = scan_model(f, &b, model17(&b, g), "chip_c", NULL);
    op = find_op(res, "Softsign");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
    r = find_reason(op, "no public source");
    assert_non_null(strstr(r.value, "estimated on the row's general answer"));
    assert_int_equal(unpublished(res, NULL), 1);
    opmap_result_free(res);
    mb_free(&b);
}

/* A list of conditions holds or not whatever the length of their values' text; a rank
 * condition anywhere in the list makes it a kernel restriction folded instances skip. */
static void test_rules__condition_lists_are_order_and_length_free(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    const opmap_op *op;
    int64_t d4[1] = { 4 }, many[100];
    size_t i;

    for (i = 0; i < 100; i++)
        many[i] = 1000000000 + (int64_t)i;
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "v", 1, d4, NULL, 1);
    n = mb_node(&b, g, "Concat", NULL, "long", (const char *const[]){ "v", "v", NULL },
                (const char *const[]){ "c1", NULL });
    mb_attr_ints(&b, n, "foo", many, 100);
    mb_attr_int(&b, n, "axis", 1);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "Concat");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_string_equal(find_reason(op, "three conditions").example, "main/long");
    opmap_result_free(res);
    /* Concat(Shape(v), Shape(v)) is shape arithmetic: the rank condition behind axis=0 does
     * not apply to it */
    mb_free(&b);
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "v", 1, d4, NULL, 1);
    mb_node(&b, g, "Shape", NULL, "sh", (const char *const[]){ "v", NULL },
            (const char *const[]){ "s", NULL });
    n = mb_node(&b, g, "Concat", NULL, "shapes", (const char *const[]){ "s", "s", NULL }, NULL);
    mb_attr_int(&b, n, "axis", 0);
    n = mb_node(&b, g, "Concat", NULL, "data", (const char *const[]){ "v", "v", NULL }, NULL);
    mb_attr_int(&b, n, "axis", 0);
    res = scan_model(f, &b, model17(&b, g), "chip_a", NULL);
    op = find_op(res, "Concat");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
    assert_string_equal(find_reason(op, "rank behind axis").example, "main/data");
    assert_int_equal(find_reason(op, "rank behind axis").instances, 1);
    opmap_result_free(res);
    mb_free(&b);
}

/* TorchScript arguments are doubles: p=0.1 is not below 0.1. */
static void test_rules__torchscript_floats_are_doubles(void **state)
{
    opmap_table *t;
    opmap_error err;
    const opmap_row *row;
    const om_constraint *lt, *eq;
    ir_node n;
    ir_attr args[2];
    char actual[256];
    fixture *f = *state;
    static const char yaml[] =
        "schema: 1\nsources: [{id: s}]\nops:\n"
        "  - domain: aten\n    op: dropout\n    status: full\n    sources: [s]\n"
        "    constraints:\n"
        "      - {when: {attr: p, arg: 1, lt: 0.1}, then: partial, message: lt}\n"
        "      - {when: {attr: p, arg: 1, eq: 0.1}, then: partial, message: eq}\n";
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "t", &err),
                     OPMAP_OK);
    row = opmap_table_lookup(t, "aten", "dropout", 0);
    lt = &row->constraints[0];
    eq = &row->constraints[1];
    memset(&n, 0, sizeof(n));
    memset(args, 0, sizeof(args));
    n.domain = "aten";
    n.op = "dropout";
    args[1].type = IR_ATTR_FLOAT;
    args[1].f = 0.1;
    n.args = args;
    n.n_args = 2;
    assert_false(om_constraint_holds(lt, &n, actual, sizeof(actual)));
    assert_true(om_constraint_holds(eq, &n, actual, sizeof(actual)));
    assert_string_equal(actual, "p=0.1");
    n.n_args = 1; /* not passed: no default in the table, nothing to compare */
    assert_false(om_constraint_holds(eq, &n, actual, sizeof(actual)));
    opmap_table_free(t);
}

/* Model dimensions reach the advice arithmetic bounded (no signed overflow). */
static void test_rules__advice_dims_bounded(void **state)
{
    om_advice_state st;
    om_visit v;
    ir_node n;
    ir_fact in[2];
    ir_tensor t;
    int64_t dims[3] = { 1, INT64_MAX, 16 };
    const char *inputs[2] = { "x", "pos" };
    (void)state;
    memset(&st, 0, sizeof(st));
    memset(&v, 0, sizeof(v));
    memset(&n, 0, sizeof(n));
    memset(in, 0, sizeof(in));
    memset(&t, 0, sizeof(t));
    t.ndims = 3;
    t.dims = dims;
    in[1].is_const = 1;
    in[1].value = &t;
    n.domain = "ai.onnx";
    n.op = "Add";
    n.n_inputs = 2;
    n.inputs = inputs;
    n.in_facts = in;
    v.node = &n;
    v.path = "main/add";
    om_advice_visit(OM_DET_TOKEN_PADDING, &st, &v);
    assert_int_equal(st.count, 0);
    dims[1] = 197;
    om_advice_visit(OM_DET_TOKEN_PADDING, &st, &v);
    assert_int_equal(st.count, 1);
    assert_string_equal(st.value, "197 tokens (pad to 208)");
}

/* Issue 31's conditions: an attribute's count of values and its absence, on one instance. */
static void test_rules__attribute_count_and_absence(void **state)
{
    opmap_table *t;
    opmap_error err;
    const opmap_row *row;
    ir_node n;
    ir_attr attrs[1];
    int64_t k3[3] = { 1, 3, 3 };
    char actual[256];
    fixture *f = *state;
    static const char yaml[] =
        "schema: 1\nsources: [{id: s}]\nops:\n"
        "  - domain: ai.onnx\n    op: MaxPool\n    since: 1\n    status: full\n    sources: [s]\n"
        "    constraints:\n"
        "      - {when: {attr: kernel_shape, count: {eq: 3}}, then: rewrite, message: three}\n"
        "      - {when: {attr: axes, is: absent}, then: partial, message: noaxes}\n";
    static const char bad[] =
        "schema: 1\nsources: [{id: s}]\nops:\n"
        "  - domain: ai.onnx\n    op: MaxPool\n    since: 1\n    status: full\n    sources: [s]\n"
        "    constraints:\n"
        "      - {when: {attr: axes, is: present}, then: partial, message: m}\n";
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, sizeof(yaml) - 1, "t", &err),
                     OPMAP_OK);
    row = opmap_table_lookup(t, "ai.onnx", "MaxPool", 12);
    memset(&n, 0, sizeof(n));
    memset(attrs, 0, sizeof(attrs));
    n.domain = "ai.onnx";
    n.op = "MaxPool";
    attrs[0].name = "kernel_shape";
    attrs[0].type = IR_ATTR_INTS;
    attrs[0].ints = k3;
    attrs[0].n_ints = 3;
    n.attrs = attrs;
    n.n_attrs = 1;
    assert_true(om_constraint_holds(&row->constraints[0], &n, actual, sizeof(actual)));
    assert_string_equal(actual, "kernel_shape has 3 values");
    assert_true(om_constraint_holds(&row->constraints[1], &n, actual, sizeof(actual)));
    assert_string_equal(actual, "axes absent");
    attrs[0].n_ints = 2;            /* a 2-D kernel */
    assert_false(om_constraint_holds(&row->constraints[0], &n, actual, sizeof(actual)));
    attrs[0].name = "axes";         /* axes given: not absent, and kernel_shape has none */
    assert_false(om_constraint_holds(&row->constraints[1], &n, actual, sizeof(actual)));
    assert_false(om_constraint_holds(&row->constraints[0], &n, actual, sizeof(actual)));
    opmap_table_free(t);
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, bad, sizeof(bad) - 1, "t", &err),
                     OPMAP_ETABLE);
    assert_non_null(strstr(err.message, "must be absent"));
}

/* Issue 31's pattern detectors, each on the smallest graph that has its pattern. */
static void test_rules__pattern_detectors(void **state)
{
    om_advice_state st;
    om_visit v;
    ir_node n, d;
    ir_fact in[2], din[2];
    ir_attr attrs[1];
    ir_value outs[1];
    ir_dim dims4[5];
    int64_t perm[6] = { 0, 1, 4, 2, 5, 3 }, k1[1] = { 3 };
    const char *xy[2] = { "x", "g" }, *xx[2] = { "x", "x" }, *one[1] = { "y" };
    (void)state;
#define RESET() do { memset(&st, 0, sizeof(st)); memset(&v, 0, sizeof(v)); \
        memset(&n, 0, sizeof(n)); memset(&d, 0, sizeof(d)); memset(in, 0, sizeof(in)); \
        memset(din, 0, sizeof(din)); memset(attrs, 0, sizeof(attrs)); \
        n.domain = d.domain = "ai.onnx"; n.in_facts = in; d.in_facts = din; \
        in[0].rank = in[1].rank = -1; v.node = &n; v.path = "main/n"; } while (0)
    /* a gate: Mul(x, Sigmoid(g)); SiLU x * Sigmoid(x) is not one */
    RESET();
    d.op = "Sigmoid"; d.n_inputs = 1; d.inputs = xy + 1;
    n.op = "Mul"; n.n_inputs = 2; n.inputs = xy; in[1].def = &d;
    om_advice_visit(OM_DET_SIGMOID_GATE, &st, &v);
    assert_int_equal(st.count, 1);
    d.inputs = xy;
    om_advice_visit(OM_DET_SIGMOID_GATE, &st, &v);
    assert_int_equal(st.count, 1);
    /* Sub(x, x), a Split with one output */
    RESET();
    n.op = "Sub"; n.n_inputs = 2; n.inputs = xx;
    om_advice_visit(OM_DET_SELF_SUB, &st, &v);
    n.inputs = xy;
    om_advice_visit(OM_DET_SELF_SUB, &st, &v);
    assert_int_equal(st.count, 1);
    RESET();
    n.op = "Split"; n.n_inputs = 1; n.inputs = xy; n.n_outputs = 1; n.outputs = one;
    om_advice_visit(OM_DET_SPLIT_ONE, &st, &v);
    n.n_outputs = 2;
    om_advice_visit(OM_DET_SPLIT_ONE, &st, &v);
    assert_int_equal(st.count, 1);
    /* Concat(x[a:], x[:0]): an operand a Slice leaves empty; a non-empty one is not */
    RESET();
    d.op = "Slice";
    n.op = "Concat"; n.n_inputs = 2; n.inputs = xy; in[1].def = &d;
    in[1].rank = 4; in[1].dims = dims4;
    memset(dims4, 0, sizeof(dims4));
    dims4[0].value = 1; dims4[1].value = 8; dims4[2].value = 7; dims4[3].value = 0;
    om_advice_visit(OM_DET_EMPTY_SLICE_CONCAT, &st, &v);
    assert_int_equal(st.count, 1);
    dims4[3].value = 7;             /* a roll by 3 keeps both operands */
    om_advice_visit(OM_DET_EMPTY_SLICE_CONCAT, &st, &v);
    dims4[3].value = 0;
    dims4[3].param = "W";           /* a symbolic dimension is not known to be 0 */
    om_advice_visit(OM_DET_EMPTY_SLICE_CONCAT, &st, &v);
    dims4[3].param = NULL;
    d.op = "Reshape";               /* an empty operand from another op is not this pattern */
    om_advice_visit(OM_DET_EMPTY_SLICE_CONCAT, &st, &v);
    assert_int_equal(st.count, 1);
    /* an output a node also takes (a hidden state returned beside the logits); past the
     * first 64 outputs none is looked at */
    {
        ir_graph g;
        ir_value gouts[70];
        char names[70][8];
        memset(&g, 0, sizeof(g));
        memset(gouts, 0, sizeof(gouts));
        for (int o = 0; o < 70; o++) {
            snprintf(names[o], sizeof(names[o]), "o%d", o);
            gouts[o].name = names[o];
        }
        g.outputs = gouts;
        g.n_outputs = 2;
        RESET();
        v.graph = &g;
        gouts[1].name = "x";        /* the second output is x, which n takes */
        n.op = "MatMul"; n.n_inputs = 2; n.inputs = xy;
        om_advice_visit(OM_DET_INTERMEDIATE_OUTPUT, &st, &v);
        assert_true(om_advice_finish(OM_DET_INTERMEDIATE_OUTPUT, &st, NULL, 0, gouts, 2));
        assert_string_equal(st.value, "1 of 2 outputs feed nodes of the graph or are constants ('x' the first)");
        assert_string_equal(st.where, "main/outputs/x");
        RESET();
        v.graph = &g;
        gouts[1].name = names[1];   /* no output is taken */
        n.op = "MatMul"; n.n_inputs = 2; n.inputs = xy;
        om_advice_visit(OM_DET_INTERMEDIATE_OUTPUT, &st, &v);
        assert_false(om_advice_finish(OM_DET_INTERMEDIATE_OUTPUT, &st, NULL, 0, gouts, 2));
        RESET();
        v.graph = &g;               /* an output that is an initializer (a prior-box table) */
        {
            ir_tensor init;
            memset(&init, 0, sizeof(init));
            init.name = names[0];
            n.op = "Relu"; n.n_inputs = 0;
            g.inits = &init;
            g.n_inits = 1;
            om_advice_visit(OM_DET_INTERMEDIATE_OUTPUT, &st, &v);
            g.inits = NULL;
            g.n_inits = 0;
        }
        assert_true(om_advice_finish(OM_DET_INTERMEDIATE_OUTPUT, &st, NULL, 0, gouts, 2));
        assert_string_equal(st.where, "main/outputs/o0");
        RESET();
        v.graph = &g;
        g.n_outputs = 70;
        gouts[66].name = "x";       /* past the bound: not looked at */
        n.op = "MatMul"; n.n_inputs = 2; n.inputs = xy;
        om_advice_visit(OM_DET_INTERMEDIATE_OUTPUT, &st, &v);
        assert_false(om_advice_finish(OM_DET_INTERMEDIATE_OUTPUT, &st, NULL, 0, gouts, 70));
    }
    /* a mean or sum of squares: ReduceMean / ReduceSum of Pow(x, 2); of Pow(x, 3) is not one */
    {
        double two = 2.0;
        ir_tensor exponent;
        memset(&exponent, 0, sizeof(exponent));
        exponent.values = &two;
        exponent.n_values = 1;
        RESET();
        d.op = "Pow"; d.n_inputs = 2; d.inputs = xy;
        din[1].is_const = 1; din[1].value = &exponent;
        n.op = "ReduceSum"; n.n_inputs = 1; n.inputs = xy; in[0].def = &d;
        om_advice_visit(OM_DET_VARIANCE, &st, &v);
        n.op = "ReduceMean";
        om_advice_visit(OM_DET_VARIANCE, &st, &v);
        n.op = "ReduceMax";
        om_advice_visit(OM_DET_VARIANCE, &st, &v);
        assert_int_equal(st.count, 2);
        two = 3.0;
        n.op = "ReduceSum";
        om_advice_visit(OM_DET_VARIANCE, &st, &v);
        assert_int_equal(st.count, 2);
    }
    /* int64 computed at run time: any input of Add, the data input of Slice; an int64
     * constant or shape arithmetic is folded, and Slice's int64 starts are not its data */
    RESET();
    n.op = "Add"; n.n_inputs = 2; n.inputs = xy;
    in[1].dtype = IR_DT_INT64;
    om_advice_visit(OM_DET_INT64_ARITHMETIC, &st, &v);
    in[1].is_shape = 1;
    om_advice_visit(OM_DET_INT64_ARITHMETIC, &st, &v);
    in[1].is_shape = 0; in[1].is_const = 1;
    om_advice_visit(OM_DET_INT64_ARITHMETIC, &st, &v);
    assert_int_equal(st.count, 1);
    n.op = "Slice";             /* input 1 (starts) int64: not the data */
    in[1].is_const = 0;
    om_advice_visit(OM_DET_INT64_ARITHMETIC, &st, &v);
    assert_int_equal(st.count, 1);
    in[0].dtype = IR_DT_INT64;  /* the data input int64 */
    om_advice_visit(OM_DET_INT64_ARITHMETIC, &st, &v);
    n.op = "Gather";            /* an index input is not arithmetic */
    om_advice_visit(OM_DET_INT64_ARITHMETIC, &st, &v);
    assert_int_equal(st.count, 2);
    /* PixelShuffle written out: Reshape -> Transpose [0, 1, 4, 2, 5, 3] */
    RESET();
    d.op = "Reshape";
    n.op = "Transpose"; n.n_inputs = 1; n.inputs = xy; in[0].def = &d;
    attrs[0].name = "perm"; attrs[0].type = IR_ATTR_INTS; attrs[0].ints = perm; attrs[0].n_ints = 6;
    n.attrs = attrs; n.n_attrs = 1;
    om_advice_visit(OM_DET_PIXEL_SHUFFLE, &st, &v);
    assert_int_equal(st.count, 1);
    perm[2] = 3; perm[3] = 4;       /* Swin's window partition is not one */
    om_advice_visit(OM_DET_PIXEL_SHUFFLE, &st, &v);
    assert_int_equal(st.count, 1);
    /* a 1-D pool and a 1-D Conv (3-D weight); a 2-D Conv is not one */
    RESET();
    n.op = "MaxPool"; n.n_inputs = 1; n.inputs = xy;
    attrs[0].name = "kernel_shape"; attrs[0].type = IR_ATTR_INTS; attrs[0].ints = k1; attrs[0].n_ints = 1;
    n.attrs = attrs; n.n_attrs = 1;
    om_advice_visit(OM_DET_CONV_1D, &st, &v);
    n.op = "Conv"; n.n_attrs = 0; n.n_inputs = 2; in[1].rank = 3;
    om_advice_visit(OM_DET_CONV_1D, &st, &v);
    in[1].rank = 4;
    om_advice_visit(OM_DET_CONV_1D, &st, &v);
    assert_int_equal(st.count, 2);
    assert_string_equal(st.value, "MaxPool, Conv");
    /* a dynamic dimension past the batch; an image-like float32 output */
    RESET();
    memset(outs, 0, sizeof(outs));
    memset(dims4, 0, sizeof(dims4));
    dims4[0].param = "batch"; dims4[1].value = 3; dims4[2].value = 224; dims4[3].value = 224;
    outs[0].name = "y";
    outs[0].type.kind = IR_TYPE_TENSOR; outs[0].type.rank = 4; outs[0].type.dims = dims4;
    outs[0].type.elem = IR_DT_FLOAT;
    assert_false(om_advice_finish(OM_DET_DYNAMIC_DIMS, &st, outs, 1, NULL, 0));
    dims4[3].param = "W";
    assert_true(om_advice_finish(OM_DET_DYNAMIC_DIMS, &st, outs, 1, NULL, 0));
    assert_string_equal(st.value, "input 'y' [batch, 3, 224, W]");
    RESET();
    assert_true(om_advice_finish(OM_DET_FLOAT_OUTPUT, &st, NULL, 0, outs, 1));
    outs[0].type.elem = IR_DT_FLOAT16;
    RESET();
    assert_false(om_advice_finish(OM_DET_FLOAT_OUTPUT, &st, NULL, 0, outs, 1));
    assert_false(om_advice_finish(OM_DET_INPUT_5D, &st, outs, 1, NULL, 0));
    outs[0].type.rank = 5;
    assert_true(om_advice_finish(OM_DET_INPUT_5D, &st, outs, 1, NULL, 0));
#undef RESET
}

/* ONNX_ATEN_FALLBACK exports: an `ATen` node is answered as the ATen op it names. */
static void test_rules__aten_fallback_answered_as_aten(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    Onnx__ModelProto *m;
    opmap_result *res;
    const opmap_op *op;
    int64_t d2[2] = { 2, 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, d2, NULL, 2);
    n = mb_node(&b, g, "ATen", "org.pytorch.aten", "fft", (const char *const[]){ "x", NULL }, NULL);
    mb_attr_string(&b, n, "operator", "fft_rfft");
    n = mb_node(&b, g, "ATen", "org.pytorch.aten", "fft2", (const char *const[]){ "x", NULL }, NULL);
    mb_attr_string(&b, n, "operator", "fft_rfft");
    mb_node(&b, g, "ATen", "org.pytorch.aten", "nameless", (const char *const[]){ "x", NULL }, NULL);
    m = model17(&b, g);
    mb_opset(&b, m, "org.pytorch.aten", 1);
    res = scan_model(f, &b, m, "chip_a", NULL);
    op = find_op(res, "fft_rfft");
    assert_string_equal(opmap_op_domain(op), "aten");
    assert_string_equal(opmap_op_exported_as(op), "org.pytorch.aten::ATen");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_PARTIAL);
    assert_int_equal(opmap_op_instances(op), 2);
    op = find_op(res, "ATen"); /* no operator attribute: answered as written */
    assert_int_equal(opmap_op_status(op), OPMAP_OP_UNMAPPED);
    assert_string_equal(opmap_op_exported_as(op), "");
    opmap_result_free(res);
    mb_free(&b);
}

static void test_rules__dtype_inference_rules(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g, *then_g;
    Onnx__NodeProto *n;
    opmap_model *model;
    opmap_result *res;
    const ir_graph *mg, *tg;
    int64_t d2[2] = { 2, 3 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 10, d2, NULL, 2);                     /* float16 */
    mb_node(&b, g, "Relu", NULL, "r", (const char *const[]){ "x", NULL },
            (const char *const[]){ "a", NULL });              /* keeps float16 */
    mb_node(&b, g, "Greater", NULL, "cmp", (const char *const[]){ "a", "x", NULL },
            (const char *const[]){ "c", NULL });              /* bool */
    mb_node(&b, g, "Shape", NULL, "shp", (const char *const[]){ "a", NULL },
            (const char *const[]){ "s", NULL });              /* int64, rank 1 */
    mb_node(&b, g, "ArgMax", NULL, "am", (const char *const[]){ "a", NULL },
            (const char *const[]){ "i", NULL });              /* int64 */
    mb_node(&b, g, "MyOp", "custom", "mine", (const char *const[]){ "a", NULL },
            (const char *const[]){ "u", NULL });              /* unknown: never guessed */
    n = mb_node(&b, g, "Constant", NULL, "k", NULL, (const char *const[]){ "kk", NULL });
    mb_attr_tensor(&b, n, "value", mb_tensor_raw(&b, "kv", d2, 2, 24));
    then_g = mb_graph(&b, "then");
    mb_node(&b, then_g, "Relu", NULL, "inner", (const char *const[]){ "c", NULL },
            (const char *const[]){ "z", NULL });              /* outer value, bool */
    n = mb_node(&b, g, "If", NULL, "if", (const char *const[]){ "c", NULL }, NULL);
    mb_attr_graph(&b, n, "then_branch", then_g);
    res = scan_model(f, &b, model17(&b, g), NULL, &model);

    mg = model->ir.main;
    assert_int_equal(mg->nodes[0].in_facts[0].dtype, 10);
    assert_int_equal(mg->nodes[0].in_facts[0].rank, 2);
    assert_int_equal(mg->nodes[0].out_facts[0].dtype, 10);
    assert_int_equal(mg->nodes[1].out_facts[0].dtype, 9);
    assert_int_equal(mg->nodes[2].out_facts[0].dtype, 7);
    assert_int_equal(mg->nodes[2].out_facts[0].rank, 1);
    assert_int_equal(mg->nodes[3].out_facts[0].dtype, 7);
    assert_int_equal(mg->nodes[4].out_facts[0].dtype, 0);
    assert_int_equal(mg->nodes[5].out_facts[0].dtype, 1);
    assert_true(mg->nodes[5].out_facts[0].is_const);
    assert_int_equal(mg->nodes[5].out_facts[0].rank, 2);
    tg = mg->nodes[6].attrs[0].graphs[0];
    assert_int_equal(tg->nodes[0].in_facts[0].dtype, 9);    /* seen through the subgraph */
    assert_false(mg->nodes[0].in_facts[0].is_const);
    opmap_result_free(res);
    opmap_model_free(model);
    mb_free(&b);
}

/* Leaves a pattern where the next calls' frames will be. */
static void __attribute__((noinline)) dirty_stack(void)
{
    volatile unsigned char junk[16384];
    size_t i;
    for (i = 0; i < sizeof(junk); i++)
        junk[i] = 0x5e;
}

/* An initializer's fact is a constant, nothing more: its is_shape and def were left as
 * whatever the stack held, so reports varied with the memory layout (issue 16). */
static void test_rules__initializer_facts_are_clean(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    opmap_model *model;
    opmap_result *res;
    const ir_fact *w;
    int64_t d2[2] = { 2, 3 }, d1[1] = { 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    /* no graph input: its fact would have filled the stack slot the initializers' reuse */
    mb_initializer(&b, g, mb_tensor_raw(&b, "x", d2, 2, 24));
    mb_initializer(&b, g, mb_tensor_raw(&b, "w", d1, 1, 8));
    mb_node(&b, g, "Reshape", NULL, "r", (const char *const[]){ "x", "w", NULL },
            (const char *const[]){ "y", NULL });
    res = scan_model(f, &b, model17(&b, g), NULL, &model);
    /* again, over a stack left dirty just before, as the frames of a real run leave it */
    dirty_stack();
    assert_int_equal(om_values_infer(&model->ir, NULL), OPMAP_OK);
    w = &model->ir.main->nodes[0].in_facts[1];
    assert_true(w->is_const);
    assert_int_equal(w->is_shape, 0);
    assert_null(w->def);
    opmap_result_free(res);
    opmap_model_free(model);
    mb_free(&b);
}

/* ---- segments ---- */

static void test_rules__segments_split_at_breakers(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g, *body;
    Onnx__NodeProto *loop;
    opmap_result *res;
    opmap_segments s = { .size = sizeof(s) };
    opmap_breaker_info br = { .size = sizeof(br) };

    mb_init(&b);
    body = mb_graph(&b, "body");
    mb_node(&b, body, "Relu", NULL, "b1", NULL, NULL);
    mb_node(&b, body, "NonZero", NULL, "b2", NULL, NULL);   /* AI CPU: breaks the body */
    mb_node(&b, body, "Relu", NULL, "b3", NULL, NULL);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Relu", NULL, "r1", NULL, NULL);
    mb_node(&b, g, "Constant", NULL, "k", NULL, NULL);     /* structural: joins the run */
    mb_node(&b, g, "Relu", NULL, "r2", NULL, NULL);
    mb_node(&b, g, "Unknown", "x.y", "u", NULL, NULL);     /* unmapped: breaks */
    mb_node(&b, g, "Relu", NULL, "r3", NULL, NULL);
    loop = mb_node(&b, g, "Loop", NULL, "loop", NULL, NULL); /* host: breaks */
    mb_attr_graph(&b, loop, "body", body);
    mb_node(&b, g, "Relu", NULL, "r4", NULL, NULL);
    res = scan_model(f, &b, model17(&b, g), NULL, NULL);
    assert_int_equal(opmap_result_segments(res, &s), OPMAP_OK);
    /* main: [r1 k r2] u [r3] loop [r4] = 3 segments, 4 transitions;
       body: [b1] b2 [b3] = 2 segments, 2 transitions */
    assert_int_equal(s.segments, 5);
    assert_int_equal(s.transitions, 6);
    assert_int_equal(s.largest, 2);
    assert_int_equal(s.npu_nodes, 6);
    assert_int_equal(s.nodes, 10);
    assert_int_equal(s.breakers, 3);
    assert_int_equal(opmap_result_breaker(res, 0, &br), OPMAP_OK);
    assert_string_equal(br.node, "main/u");
    assert_string_equal(br.op, "x.y::Unknown");
    assert_non_null(strstr(br.why, "unmapped"));
    assert_int_equal(opmap_result_breaker(res, 1, &br), OPMAP_OK);
    assert_string_equal(br.node, "main/loop");
    assert_non_null(strstr(br.why, "host"));
    assert_int_equal(opmap_result_breaker(res, 2, &br), OPMAP_OK);
    assert_string_equal(br.node, "main/loop/body/b2"); /* the split inside the body */
    assert_non_null(strstr(br.why, "AI CPU"));
    assert_int_equal(opmap_result_breaker(res, 3, &br), OPMAP_EINVAL);
    opmap_result_free(res);
    mb_free(&b);
}

/* ---- model-level risks ---- */

static int has_risk(const opmap_result *res, const char *kind, const char *needle,
                    const char *where)
{
    size_t i;
    for (i = 0; i < opmap_result_risk_count(res); i++) {
        opmap_risk_info k = { .size = sizeof(k) };
        assert_int_equal(opmap_result_risk(res, i, &k), OPMAP_OK);
        if (strcmp(k.kind, kind) == 0 && strstr(k.message, needle) &&
            (!where || strcmp(k.where, where) == 0))
            return 1;
    }
    return 0;
}

static void test_rules__model_risks(void **state)
{
    fixture *f = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    opmap_result *res;
    Onnx__TensorProto *target;
    int64_t dims[2] = { -1, 3 }, one[1] = { 2 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, dims, (const char *const[]){ "batch", NULL }, 2);
    target = mb_tensor_raw(&b, "shape", one, 1, 16);
    target->data_type = 7; /* int64 [-1, 12] */
    memcpy(target->raw_data.data, (const int64_t[]){ -1, 12 }, 16);
    mb_initializer(&b, g, target);
    mb_node(&b, g, "Reshape", NULL, "flat", (const char *const[]){ "x", "shape", NULL },
            (const char *const[]){ "y", NULL });
    n = mb_node(&b, g, "Cast", NULL, "up", (const char *const[]){ "y", NULL },
                (const char *const[]){ "z", NULL });
    mb_attr_int(&b, n, "to", 11);
    mb_node(&b, g, "Dropout", NULL, "drop", (const char *const[]){ "z", NULL }, NULL);
    res = scan_model(f, &b, model17(&b, g), NULL, NULL);
    assert_true(has_risk(res, "dynamic_shape", "input 'x' has dynamic dimensions [batch, 3]",
                         "main/inputs/x"));
    assert_true(has_risk(res, "dynamic_shape", "Reshape target [-1, 12]", "main/flat"));
    assert_true(has_risk(res, "dtype", "ai.onnx::Cast produces float64", "main/up"));
    assert_true(has_risk(res, "rng", "ai.onnx::Dropout (1 instances)", "main/drop"));
    assert_false(has_risk(res, "inf_nan", "", NULL));
    opmap_result_free(res);
    mb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules__attribute_in_set_per_chip),
        cmocka_unit_test(test_rules__defaults_and_flags),
        cmocka_unit_test(test_rules__list_attributes_and_ordering),
        cmocka_unit_test(test_rules__rank_and_dtype_from_inference),
        cmocka_unit_test(test_rules__rank_condition_on_a_rank_only_input),
        cmocka_unit_test(test_rules__initializer_facts_are_clean),
        cmocka_unit_test(test_rules__dtype_differs_by_chip),
        cmocka_unit_test(test_rules__dtypes_bound_to_their_input),
        cmocka_unit_test(test_rules__shape_arithmetic_is_not_partial),
        cmocka_unit_test(test_rules__float_attributes_at_stored_precision),
        cmocka_unit_test(test_rules__advisory_and_condition_lists),
        cmocka_unit_test(test_rules__unpublished_chip_counted_apart),
        cmocka_unit_test(test_rules__aten_fallback_answered_as_aten),
        cmocka_unit_test(test_rules__unpublished_only_says_it_is_estimated),
        cmocka_unit_test(test_rules__condition_lists_are_order_and_length_free),
        cmocka_unit_test(test_rules__torchscript_floats_are_doubles),
        cmocka_unit_test(test_rules__advice_dims_bounded),
        cmocka_unit_test(test_rules__attribute_count_and_absence),
        cmocka_unit_test(test_rules__pattern_detectors),
        cmocka_unit_test(test_rules__dtype_inference_rules),
        cmocka_unit_test(test_rules__segments_split_at_breakers),
        cmocka_unit_test(test_rules__model_risks),
    };
    return cmocka_run_group_tests_name("rules", tests, setup, teardown);
}
