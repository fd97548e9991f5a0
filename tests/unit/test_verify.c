/*
 * tests/unit/test_verify.c - device results (src/verify/, src/scan/verify_match.c): a
 * results file read and checked member by member, refused whole with the member named,
 * repeats merged with the failure kept; a scan with results matching instances by
 * signature on the chip's family, giving each operator its state, and a verified pass its
 * effort's minimum.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "signature/signature.h"

/* x normalized twice alike (one signature), then once with another eps (another). */
static const char graph[] =
    "graph(%x : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu),\n"
    "      %w : Float(64, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %2 : int[] = prim::Constant[value=[64]]()\n"
    "  %3 : float = prim::Constant[value=1.0000000000000001e-05]()\n"
    "  %9 : float = prim::Constant[value=0.001]()\n"
    "  %4 : bool = prim::Constant[value=1]()\n"
    "  %5 : NoneType = prim::Constant()\n"
    "  %6 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::layer_norm(%x, %2, %w, %5, %3, %4)\n"
    "  %7 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::layer_norm(%x, %2, %w, %5, %3, %4)\n"
    "  %8 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::layer_norm(%x, %2, %w, %5, %9, %4)\n"
    "  return (%8)\n";

#define SIG_A "aten::layer_norm(float32[2,16,64], [64], float32[64], None, 1e-05, True)"
#define SIG_B "aten::layer_norm(float32[2,16,64], [64], float32[64], None, 0.001, True)"

static const char table_yaml[] =
    "schema: 1\n"
    "about:\n"
    "  socs: [ascend910b, ascend310p]\n"
    "  default_soc: ascend910b\n"
    "  soc_parts:\n"
    "    ascend910b: {parts: [Ascend910B1, Ascend910B3], sources: [s]}\n"
    "    ascend310p: {parts: [Ascend310P3], sources: [s]}\n"
    "weights:\n"
    "  partial: {min: 0.5, expected: 0.8, max: 1.0}\n"
    "sources:\n  - {id: s}\n"
    "ops:\n"
    "  - {domain: aten, op: layer_norm, status: partial, sources: [s]}\n"
    "  - {domain: prim, op: Constant, status: structural, sources: [s]}\n";

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
    opmap_model *model;
} fixture;

static int setup(void **state)
{
    static fixture f;
    opmap_error err;
    if (opmap_ctx_new(&f.ctx, NULL, &err) ||
        opmap_table_load_memory(&f.table, f.ctx, table_yaml, sizeof(table_yaml) - 1, "t", &err) ||
        opmap_model_open_memory(&f.model, f.ctx, graph, sizeof(graph) - 1, "g.txt", &err))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    opmap_model_free(f->model);
    opmap_table_free(f->table);
    opmap_ctx_free(f->ctx);
    return 0;
}

/* A results file of chip `chip` with `entries` (JSON objects, comma-separated). */
static size_t results_json(char *buf, size_t size, const char *device, const char *chip,
                           const char *entries)
{
    return (size_t)snprintf(buf, size,
                            "{\"schema\": \"opmap-results/1\", \"device\": \"%s\", \"chip\": "
                            "\"%s\", \"torch_npu\": \"2.1.0\", \"cann\": \"8.0.RC1\", "
                            "\"results\": [%s]}",
                            device, chip, entries);
}

/* One test's result, with the id opmap testgen gives the test of that signature. */
static size_t entry(char *buf, size_t size, const char *sig, const char *outcome, double err)
{
    char id[64];
    om_sig_test_id("aten::layer_norm", sig, id, sizeof(id));
    return (size_t)snprintf(buf, size,
                            "{\"id\": \"%s\", \"op\": \"aten::layer_norm\", \"signature\": "
                            "\"%s\", \"outcome\": \"%s\", \"standard\": \"thousandth\", "
                            "\"max_abs_error\": %g, \"max_rel_error\": %g, \"cpu_ms\": 0.5, "
                            "\"device_ms\": null}",
                            id, sig, outcome, err, err * 10);
}

static opmap_results *load(fixture *f, const char *text, int want, const char *says)
{
    opmap_results *set;
    opmap_error err;
    assert_int_equal(opmap_results_new(&set, f->ctx, &err), OPMAP_OK);
    assert_int_equal(opmap_results_add(set, "r.json", text, strlen(text), &err), want);
    if (says) {
        char msg[1200];
        opmap_error_format(&err, msg, sizeof(msg));
        if (!strstr(msg, says))
            fail_msg("'%s' does not say '%s'", msg, says);
        assert_int_equal(opmap_results_count(set), 0);
    }
    return set;
}

static void test_verify__file_read(void **state)
{
    fixture *f = *state;
    char a[512], b[512], c[512], d[512], all[2100], file[2500];
    opmap_results *set;
    entry(a, sizeof(a), SIG_A, "pass", 1e-6);
    entry(b, sizeof(b), SIG_B, "fail", 0.5);
    entry(c, sizeof(c), SIG_B, "error", 0);
    entry(d, sizeof(d), SIG_B, "skipped", 0);
    snprintf(all, sizeof(all), "%s, %s, %s, %s", a, b, c, d);
    results_json(file, sizeof(file), "npu", "Ascend910B3", all);
    set = load(f, file, OPMAP_OK, NULL);
    assert_int_equal(opmap_results_count(set), 2); /* errored and skipped measured nothing */
    opmap_results_free(set);
}

static void test_verify__file_refused(void **state)
{
    fixture *f = *state;
    char a[512], file[2500];
    static const struct {
        const char *from, *to, *says;
    } edits[] = {
        { "opmap-results/1", "opmap-results/2", "schema: 'opmap-results/2'" },
        { "\"npu\"", "\"cpu\"", "only a run on the NPU verifies anything" },
        { "1e-06", "-1", "results[0].max_abs_error: negative" },
        { "\"aten::layer_norm\"", "\"aten::add\"", "results[0].signature: not a signature of" },
        { "\"pass\"", "\"passed\"", "results[0].outcome" },
        { "Ascend910B3", "Ascend\\u0007", "chip: not printable ASCII" },
        { "\"cpu_ms\": 0.5", "\"cpu_ms\": NaN", "results[0].cpu_ms: not a finite number" },
        { "\"standard\": \"thousandth\", ", "", "results[0].standard: missing" },
        { "\"results\": [", "\"results\": {\"x\": [", "results: not an array" },
        /* a test that is not the one testgen writes for the signature: not its result */
        { "\"id\": \"aten_layer_norm_", "\"id\": \"aten_layer_norm_0", "results[0].id: " },
        { "\"id\": \"aten_layer_norm_", "\"xid\": \"aten_layer_norm_", "results[0].id: missing" },
    };
    size_t i;
    entry(a, sizeof(a), SIG_A, "pass", 1e-6);
    results_json(file, sizeof(file), "npu", "Ascend910B3", a);
    for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        char edited[3000], *at = strstr(file, edits[i].from);
        size_t pre;
        assert_non_null(at);
        pre = (size_t)(at - file);
        snprintf(edited, sizeof(edited), "%.*s%s%s%s", (int)pre, file, edits[i].to,
                 at + strlen(edits[i].from),
                 strcmp(edits[i].to, "\"results\": {\"x\": [") == 0 ? "}" : "");
        opmap_results_free(load(f, edited, OPMAP_EFORMAT, edits[i].says));
    }
}

/* A refused file leaves what the set had; a repeat of a run keeps its failure. */
static void test_verify__refused_file_leaves_the_set(void **state)
{
    fixture *f = *state;
    char a[512], file[2500];
    opmap_results *set;
    opmap_error err;
    entry(a, sizeof(a), SIG_A, "pass", 1e-6);
    results_json(file, sizeof(file), "npu", "Ascend910B3", a);
    set = load(f, file, OPMAP_OK, NULL);
    assert_int_equal(opmap_results_add(set, "bad.json", "{\"schema\": 1}", 13, &err),
                     OPMAP_EFORMAT);
    assert_int_equal(opmap_results_count(set), 1);
    entry(a, sizeof(a), SIG_A, "fail", 0.25);
    results_json(file, sizeof(file), "npu", "Ascend910B3", a);
    assert_int_equal(opmap_results_add(set, "again.json", file, strlen(file), &err), OPMAP_OK);
    assert_int_equal(opmap_results_count(set), 1); /* the same run: one result, failed */
    opmap_results_free(set);
}

/* The scan's aten::layer_norm with the results of `file`. */
static opmap_result *scan(fixture *f, const char *file, const char *soc, const opmap_op **op)
{
    opmap_scan_options o = OPMAP_SCAN_OPTIONS_INIT;
    opmap_results *set = load(f, file, OPMAP_OK, NULL);
    opmap_result *res;
    opmap_error err;
    size_t i;
    o.results = set;
    o.soc = soc;
    assert_int_equal(opmap_scan(&res, f->ctx, f->model, f->table, &o, &err), OPMAP_OK);
    opmap_results_free(set); /* the result keeps its copies */
    *op = NULL;
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *x;
        assert_int_equal(opmap_result_op(res, i, &x), OPMAP_OK);
        if (strcmp(opmap_op_name(x), "layer_norm") == 0)
            *op = x;
    }
    assert_non_null(*op);
    return res;
}

static void test_verify__scan_matches_by_signature(void **state)
{
    fixture *f = *state;
    char a[512], b[512], both[1100], file[2500];
    opmap_result *plain, *res;
    const opmap_op *op, *op0;
    opmap_verified_info v = { .size = sizeof(v) };
    opmap_effort e0, e;

    assert_int_equal(opmap_scan(&plain, f->ctx, f->model, f->table, NULL, NULL), OPMAP_OK);
    entry(a, sizeof(a), SIG_A, "pass", 1e-6);
    results_json(file, sizeof(file), "npu", "Ascend910B3", a);
    res = scan(f, file, NULL, &op);
    assert_int_equal(opmap_op_verify_state(op), OPMAP_VERIFY_PARTLY); /* 2 of 3 instances */
    assert_int_equal(opmap_op_verified_count(op), 1);
    assert_int_equal(opmap_op_verified(op, 0, &v), OPMAP_OK);
    assert_string_equal(v.signature, SIG_A);
    assert_string_equal(v.chip, "Ascend910B3");
    assert_string_equal(v.family, "ascend910b");
    assert_string_equal(v.torch_npu, "2.1.0");
    assert_int_equal(v.passed, 1);
    assert_int_equal(v.instances, 2);
    assert_true(v.max_abs_error == 1e-6 && v.cpu_ms == 0.5 && isnan(v.device_ms));
    assert_int_equal(opmap_op_verified(op, 1, &v), OPMAP_EINVAL);
    opmap_result_free(res);

    entry(b, sizeof(b), SIG_B, "pass", 1e-6);
    snprintf(both, sizeof(both), "%s, %s", a, b);
    results_json(file, sizeof(file), "npu", "Ascend910B3", both);
    res = scan(f, file, NULL, &op);
    assert_int_equal(opmap_op_verify_state(op), OPMAP_VERIFY_PASS);
    assert_int_equal(opmap_result_op(plain, 0, &op0), OPMAP_OK);
    assert_string_equal(opmap_op_name(op0), "layer_norm");
    e = opmap_op_effort(op);
    e0 = opmap_op_effort(op0);
    assert_true(e0.min == 500 && e0.expected == 800 && e0.max == 1000);
    assert_true(e.min == 500 && e.expected == 500 && e.max == 500); /* the risk is gone */
    {
        /* ... from the report: the gate's budget still counts the range (results are
         * evidence for the report, never for --max-effort) */
        opmap_policy p = OPMAP_POLICY_INIT;
        opmap_verdict *verdict;
        const opmap_result *one[1];
        one[0] = res;
        p.fail_on = OPMAP_FAIL_EFFORT;
        p.max_effort = 600; /* over the verified 0.5 person-days, under the expected 0.8 */
        assert_int_equal(opmap_policy_check(&verdict, f->ctx, one, 1, &p, NULL), OPMAP_OK);
        assert_false(opmap_verdict_passed(verdict));
        opmap_verdict_free(verdict);
    }
    /* ... on every chip scanned for: ascend310p has no result, so it is only partly */
    opmap_result_free(res);
    res = scan(f, file, "ascend910b,ascend310p", &op);
    assert_int_equal(opmap_op_verify_state(op), OPMAP_VERIFY_PARTLY);
    opmap_result_free(res);

    entry(b, sizeof(b), SIG_B, "fail", 0.5);
    snprintf(both, sizeof(both), "%s, %s", a, b);
    results_json(file, sizeof(file), "npu", "Ascend910B3", both);
    res = scan(f, file, NULL, &op);
    assert_int_equal(opmap_op_verify_state(op), OPMAP_VERIFY_FAIL);
    e = opmap_op_effort(op);
    assert_true(e.min == e0.min && e.expected == e0.expected && e.max == e0.max);
    opmap_result_free(res);

    /* a chip of a family the scan does not answer for verifies nothing here */
    results_json(file, sizeof(file), "npu", "Ascend310P3", both);
    res = scan(f, file, NULL, &op);
    assert_int_equal(opmap_op_verify_state(op), OPMAP_VERIFY_NONE);
    assert_int_equal(opmap_op_verified_count(op), 0);
    opmap_result_free(res);
    opmap_result_free(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify__file_read),
        cmocka_unit_test(test_verify__file_refused),
        cmocka_unit_test(test_verify__refused_file_leaves_the_set),
        cmocka_unit_test(test_verify__scan_matches_by_signature),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
