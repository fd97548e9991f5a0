/*
 * tests/unit/test_graph_mode.c - graph mode (torch.compile with torchair): a row's `graph:`
 * answer read strictly and through its accessors, what each answer makes of an instance
 * (by the operator, and by a torch.export node's own overload), and the scan option
 * (versions, values, formats it applies to).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <opmap/opmap.h>

#include "../../src/scan/scan_internal.h"
#include "../support/onnx_build.h"

/* eager: every row full; graph: one answer of each kind */
static const char table_yaml[] =
    "schema: 1\n"
    "sources:\n"
    "  - {id: k, grade: kernel}\n"
    "  - {id: tor, repo: Ascend/torchair, commit: abcdef0123456789abcdef0123456789abcdef01,"
    " grade: kernel}\n"
    "ops:\n"
    "  - {domain: aten, op: relu, status: full, sources: [k], graph: {status: implemented,"
    " implemented: [default], stub: [out], counted: [default], grade: kernel, sources: [tor]}}\n"
    "  - {domain: aten, op: relu_, status: full, sources: [k], graph: {status: implemented,"
    " via: relu, stub: [default], grade: derived, sources: [tor]}}\n"
    "  - {domain: aten, op: sigmoid, status: full, sources: [k], graph: {status: stub,"
    " stub: [default, out], counted: [default], where: \"ge_converter/aten/sigmoid.py:4\","
    " grade: kernel, sources: [tor]}}\n"
    "  - {domain: aten, op: tanh, status: full, sources: [k], graph: {status: none,"
    " grade: kernel, sources: [tor]}}\n"
    "  - {domain: aten, op: neg, status: full, sources: [k], graph: {status: partial,"
    " declared: 3, implemented: [default], stub: [Scalar], counted: [default, Scalar],"
    " note: \"neg.Scalar only raises.\", grade: kernel, sources: [tor]}}\n"
    "  - {domain: aten, op: abs, status: full, sources: [k], graph: {status: decomposed,"
    " grade: derived, sources: [tor]}}\n"
    "  - {domain: aten, op: exp, status: full, sources: [k]}\n"
    "  - {domain: aten, op: sub, status: full, sources: [k], graph: {status: stub,"
    " stub: [Tensor], counted: [Tensor], grade: kernel, sources: [tor]}}\n"
    "  - {domain: prim, op: Constant, status: structural, sources: [k]}\n"
    "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [k]}\n";

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

static const opmap_row *row_of(const fixture *f, const char *op)
{
    const opmap_row *r = opmap_table_lookup(f->table, "aten", op, 0);
    assert_non_null(r);
    return r;
}

static void test_graph__accessors(void **state)
{
    fixture *f = *state;
    opmap_row_graph_info g = { .size = sizeof(g) };
    opmap_row_graph_overload_info ov = { .size = sizeof(ov) };
    const char *id;
    const opmap_row *neg = row_of(f, "neg");
    assert_int_equal(opmap_row_graph(neg, &g), OPMAP_OK);
    assert_string_equal(g.status, "partial");
    assert_string_equal(g.note, "neg.Scalar only raises.");
    assert_string_equal(g.via, "");
    assert_int_equal(g.declared, 3);
    /* sorted by name, each with its converter's status and whether it is counted */
    assert_int_equal(opmap_row_graph_overload_count(neg), 2);
    assert_int_equal(opmap_row_graph_overload(neg, 0, &ov), OPMAP_OK);
    assert_string_equal(ov.name, "Scalar");
    assert_string_equal(ov.status, "stub");
    assert_int_equal(ov.counted, 1);
    assert_int_equal(opmap_row_graph_overload(neg, 1, &ov), OPMAP_OK);
    assert_string_equal(ov.name, "default");
    assert_string_equal(ov.status, "implemented");
    assert_int_equal(opmap_row_graph_overload(neg, 2, &ov), OPMAP_EINVAL);
    assert_string_equal(opmap_row_evidence(neg, "graph"), "kernel");
    assert_int_equal(opmap_row_evidence_source(neg, "graph", 0, &id), OPMAP_OK);
    assert_string_equal(id, "tor");
    assert_int_equal(opmap_row_graph(row_of(f, "relu_"), &g), OPMAP_OK);
    assert_string_equal(g.via, "relu");
    assert_string_equal(opmap_row_evidence(row_of(f, "relu_"), "graph"), "derived");
    /* a row without an answer: status "", no evidence */
    assert_int_equal(opmap_row_graph(row_of(f, "exp"), &g), OPMAP_OK);
    assert_string_equal(g.status, "");
    assert_null(opmap_row_evidence(row_of(f, "exp"), "graph"));
    g.size = 8; /* older than the first version */
    assert_int_equal(opmap_row_graph(neg, &g), OPMAP_EINVAL);
}

static void expect_refused(const fixture *f, const char *row, const char *what)
{
    char yaml[1024];
    opmap_table *t = NULL;
    opmap_error err;
    snprintf(yaml, sizeof(yaml), "schema: 1\nsources:\n  - {id: k, grade: kernel}\nops:\n  - %s\n",
             row);
    assert_int_equal(opmap_table_load_memory(&t, f->ctx, yaml, strlen(yaml), "bad", &err),
                     OPMAP_ETABLE);
    if (!strstr(err.message, what))
        fail_msg("'%s' not in '%s'", what, err.message);
    assert_null(t);
}

static void test_graph__strict(void **state)
{
    fixture *f = *state;
    expect_refused(f, "{domain: ai.onnx, op: Relu, since: 14, status: full, sources: [k], "
                      "graph: {status: stub}}", "only ATen rows");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: stubbed}}",
                   "unknown graph.status 'stubbed'");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {}}",
                   "status");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: stub, "
                      "fallback: eager}}", "fallback");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: "
                      "partial, implemented: [a], stub: [a]}}", "'a' is listed twice");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: "
                      "stub, stub: [a], counted: [b]}}", "'b' is in none of");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: "
                      "stub, declared: -1}}", "graph.declared");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: "
                      "stub, sources: [nowhere]}}", "nowhere");
    expect_refused(f, "{domain: aten, op: x, status: full, sources: [k], graph: {status: "
                      "stub, grade: doc}}", "needs the sources");
}

/* what graph mode makes of one TorchScript instance (no overload) of `op` */
static int verdict(const fixture *f, const char *op, const char *overload,
                   om_graph_verdict *out)
{
    ir_node n;
    ir_attr a;
    memset(&n, 0, sizeof(n));
    memset(&a, 0, sizeof(a));
    if (overload) {
        a.name = "overload";
        a.type = IR_ATTR_STRING;
        a.s.data = overload;
        a.s.size = strlen(overload);
        n.attrs = &a;
        n.n_attrs = 1;
    }
    memset(out, 0, sizeof(*out));
    return om_graph_verdict_of(f->table, row_of(f, op), &n, out);
}

static void test_graph__by_operator(void **state)
{
    fixture *f = *state;
    om_graph_verdict v;
    assert_int_equal(verdict(f, "relu", NULL, &v), 0);  /* converted: nothing to say */
    assert_int_equal(verdict(f, "relu_", NULL, &v), 0); /* functionalized into relu */
    assert_int_equal(verdict(f, "exp", NULL, &v), 0);   /* the row gives no answer */
    assert_int_equal(verdict(f, "sigmoid", NULL, &v), 1);
    assert_int_equal(v.status, OPMAP_OP_REWRITE);
    assert_non_null(strstr(v.message, "only raises for aten::sigmoid"));
    assert_non_null(strstr(v.message, "Ascend/torchair abcdef012345")); /* the commit */
    assert_string_equal(v.actual, "graph: torchair stub");
    assert_int_equal(v.ev->grade, 4); /* kernel */
    assert_int_equal(verdict(f, "tanh", NULL, &v), 1);
    assert_int_equal(v.status, OPMAP_OP_REWRITE);
    assert_non_null(strstr(v.message, "torchair registers no converter for aten::tanh"));
    assert_int_equal(verdict(f, "neg", NULL, &v), 1);
    assert_int_equal(v.status, OPMAP_OP_PARTIAL);
    assert_non_null(strstr(v.message, "neg.Scalar only raises."));
    assert_int_equal(verdict(f, "abs", NULL, &v), 1);
    assert_int_equal(v.status, -1); /* a note: what it decomposes into is answered */
    assert_non_null(strstr(v.message, "decomposes aten::abs"));
}

static void test_graph__by_overload(void **state)
{
    fixture *f = *state;
    om_graph_verdict v;
    /* torch.export names the overload: its own converter decides */
    assert_int_equal(verdict(f, "neg", "default", &v), 0);
    assert_int_equal(verdict(f, "neg", "Scalar", &v), 1);
    assert_int_equal(v.status, OPMAP_OP_REWRITE);
    assert_string_equal(v.actual, "graph: aten::neg.Scalar stub");
    assert_int_equal(verdict(f, "relu", "out", &v), 1);
    assert_int_equal(v.status, OPMAP_OP_REWRITE);
    assert_int_equal(verdict(f, "relu", "Tensor", &v), 1); /* no converter for it */
    assert_non_null(strstr(v.message, "registers no converter for aten::relu.Tensor"));
    /* an in-place op by its functional op's converter of the same overload */
    assert_int_equal(verdict(f, "relu_", "default", &v), 0);
    assert_int_equal(verdict(f, "abs", "default", &v), 1);
    assert_int_equal(v.status, -1);
}

static const char graph_text[] =
    "graph(%x.1 : Tensor):\n"
    "  %a : Tensor = aten::relu(%x.1)\n"
    "  %b : Tensor = aten::sigmoid(%a)\n"
    "  %c : Tensor = aten::tanh(%b)\n"
    "  %d : Tensor = aten::neg(%c)\n"
    "  %e : Tensor = aten::abs(%d)\n"
    "  %g : Tensor = aten::relu_(%e)\n"
    "  %k : int = prim::Constant[value=2]()\n"
    "  %n : int = aten::sub(%k, %k)\n"
    "  return (%g, %n)\n";

static opmap_result *scan_text(const fixture *f, const opmap_scan_options *o, int *rc)
{
    opmap_model *m = NULL;
    opmap_result *res = NULL;
    opmap_error err;
    assert_int_equal(opmap_model_open_memory(&m, f->ctx, graph_text, sizeof(graph_text) - 1,
                                             "g.txt", &err), OPMAP_OK);
    *rc = opmap_scan(&res, f->ctx, m, f->table, o, &err);
    opmap_model_free(m);
    return res;
}

static int status_of(const opmap_result *res, const char *name)
{
    size_t i;
    const opmap_op *op;
    for (i = 0; i < opmap_result_op_count(res); i++)
        if (opmap_result_op(res, i, &op) == OPMAP_OK && strcmp(opmap_op_name(op), name) == 0)
            return opmap_op_status(op);
    fail_msg("%s not in the result", name);
    return -1;
}

static void test_graph__scan_option(void **state)
{
    fixture *f = *state;
    opmap_scan_options o = OPMAP_SCAN_OPTIONS_INIT;
    opmap_result *res;
    int rc;
    assert_int_equal(o.version, 4);
    assert_int_equal(o.mode, OPMAP_MODE_EAGER);
    res = scan_text(f, &o, &rc);
    assert_int_equal(rc, OPMAP_OK);
    assert_int_equal(opmap_result_mode(res), OPMAP_MODE_EAGER);
    assert_int_equal(status_of(res, "sigmoid"), OPMAP_OP_FULL);
    opmap_result_free(res);

    o.mode = OPMAP_MODE_GRAPH;
    res = scan_text(f, &o, &rc);
    assert_int_equal(rc, OPMAP_OK);
    assert_int_equal(opmap_result_mode(res), OPMAP_MODE_GRAPH);
    assert_string_equal(opmap_mode_name(opmap_result_mode(res)), "graph");
    assert_int_equal(status_of(res, "relu"), OPMAP_OP_FULL);
    assert_int_equal(status_of(res, "relu_"), OPMAP_OP_FULL);
    assert_int_equal(status_of(res, "sigmoid"), OPMAP_OP_REWRITE);
    assert_int_equal(status_of(res, "tanh"), OPMAP_OP_REWRITE);
    assert_int_equal(status_of(res, "neg"), OPMAP_OP_PARTIAL);
    assert_int_equal(status_of(res, "abs"), OPMAP_OP_FULL);
    /* `int = aten::sub(...)`: the interpreter's arithmetic on the host, no tensor for
     * torchair and no kernel: structural in either mode */
    assert_int_equal(status_of(res, "sub"), OPMAP_OP_STRUCTURAL);
    {
        /* placement follows the eager answer: an unconvertible op still runs on the NPU */
        opmap_segments s = { .size = sizeof(s) };
        assert_int_equal(opmap_result_segments(res, &s), OPMAP_OK);
        assert_int_equal(s.breakers, 0);
    }
    opmap_result_free(res);

    /* version 2 has no mode field: eager, whatever follows in memory */
    o.version = 2;
    res = scan_text(f, &o, &rc);
    assert_int_equal(rc, OPMAP_OK);
    assert_int_equal(opmap_result_mode(res), OPMAP_MODE_EAGER);
    assert_int_equal(status_of(res, "sigmoid"), OPMAP_OP_FULL);
    opmap_result_free(res);

    o.version = 3;
    o.mode = 7;
    res = scan_text(f, &o, &rc);
    assert_int_equal(rc, OPMAP_EINVAL);
    assert_null(res);
    assert_string_equal(opmap_mode_name(7), "?");
}

/* An ONNX model is never compiled by torch.compile: its ATen fallback nodes keep their
 * eager answer in graph mode. */
static void test_graph__onnx_unchanged(void **state)
{
    fixture *f = *state;
    opmap_scan_options o = OPMAP_SCAN_OPTIONS_INIT;
    mb b;
    Onnx__GraphProto *g;
    Onnx__NodeProto *n;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_result *res;
    opmap_error err;
    mb_init(&b);
    g = mb_graph(&b, "g");
    n = mb_node(&b, g, "ATen", "org.pytorch.aten", "fallback", NULL, NULL);
    mb_attr_string(&b, n, "operator", "sigmoid");
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "org.pytorch.aten", 1);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, "m.onnx", &err), OPMAP_OK);
    o.mode = OPMAP_MODE_GRAPH;
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, &o, &err), OPMAP_OK);
    assert_int_equal(opmap_result_mode(res), OPMAP_MODE_GRAPH);
    assert_int_equal(status_of(res, "sigmoid"), OPMAP_OP_FULL);
    opmap_result_free(res);
    opmap_model_free(model);
    mb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph__accessors),
        cmocka_unit_test(test_graph__strict),
        cmocka_unit_test(test_graph__by_operator),
        cmocka_unit_test(test_graph__by_overload),
        cmocka_unit_test(test_graph__scan_option),
        cmocka_unit_test(test_graph__onnx_unchanged),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
