/*
 * tests/unit/test_table.c - the table loader's errors (each with line:column) and the
 * look-up rules (largest since <= opset, unversioned namespaces, unmapped).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

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

#define HEAD "schema: 1\nsources:\n  - {id: src1, repo: a/b}\nops:\n"

/* Loads `yaml`, expects failure `code` at line:col with `needle` in the message. */
static void expect_error(opmap_ctx *ctx, const char *yaml, int code, uint32_t line, uint32_t col,
                         const char *needle)
{
    opmap_table *t = NULL;
    opmap_error err;
    int rc = opmap_table_load_memory(&t, ctx, yaml, strlen(yaml), "t.yaml", &err);
    if (rc != code)
        fail_msg("expected %s, got %s (%s)", opmap_status_str(code), opmap_status_str(rc),
                 err.message);
    assert_null(t);
    assert_string_equal(err.source, "t.yaml");
    if (err.line != line || err.column != col)
        fail_msg("expected %u:%u, got %u:%u: %s", line, col, err.line, err.column, err.message);
    if (!strstr(err.message, needle))
        fail_msg("message '%s' lacks '%s'", err.message, needle);
}

static void test_table__syntax_error_has_line_and_column(void **state)
{
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu\n", OPMAP_EFORMAT, 6, 1, "");
}

static void test_table__unknown_key(void **state)
{
    expect_error(*state, HEAD "  - domain: ai.onnx\n    op: Relu\n    since: 1\n"
                              "    status: full\n    sources: [src1]\n    colour: red\n",
                 OPMAP_ETABLE, 10, 5, "unknown key 'colour'");
}

static void test_table__unknown_status(void **state)
{
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu, since: 1, status: maybe, "
                              "sources: [src1]}\n",
                 OPMAP_ETABLE, 5, 51, "unknown status 'maybe'");
}

static void test_table__wrong_type(void **state)
{
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu, since: one, status: full, "
                              "sources: [src1]}\n",
                 OPMAP_ETABLE, 5, 40, "since must be an integer");
    expect_error(*state, "schema: 1\nops: {a: 1}\n", OPMAP_ETABLE, 2, 6, "ops must be a list");
}

static void test_table__duplicate_row(void **state)
{
    expect_error(*state,
                 HEAD "  - {domain: ai.onnx, op: Relu, since: 6, status: full, sources: [src1]}\n"
                      "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [src1]}\n"
                      "  - {domain: ai.onnx, op: Relu, since: 6, status: partial, sources: [src1]}\n",
                 OPMAP_ETABLE, 7, 5, "duplicate row ai.onnx Relu since 6 (first at line 5)");
}

static void test_table__duplicate_key(void **state)
{
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu, op: Elu, since: 1, status: full, "
                              "sources: [src1]}\n",
                 OPMAP_EFORMAT, 5, 33, "duplicate key 'op'");
}

static void test_table__aliases_are_refused(void **state)
{
    expect_error(*state,
                 "schema: 1\nsources: &s [{id: a}]\nops: []\n", OPMAP_EFORMAT, 2, 10,
                 "anchors");
    expect_error(*state, "schema: 1\nops:\n  - *x\n", OPMAP_EFORMAT, 3, 5, "");
}

static void test_table__dangling_source_and_missing_provenance(void **state)
{
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu, since: 1, status: full, "
                              "sources: [nope]}\n",
                 OPMAP_ETABLE, 5, 67, "unknown source id 'nope'");
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu, since: 1, status: full}\n",
                 OPMAP_ETABLE, 5, 5, "curated");
}

static void test_table__onnx_rows_need_since(void **state)
{
    expect_error(*state, HEAD "  - {domain: ai.onnx, op: Relu, status: full, sources: [src1]}\n",
                 OPMAP_ETABLE, 5, 5, "need 'since'");
}

static void test_table__bad_weights_and_schema(void **state)
{
    expect_error(*state, "schema: 1\nweights:\n  full: {min: 0.1, expected: 0.05, max: 1}\nops: []\n",
                 OPMAP_ETABLE, 3, 9, "min <= expected <= max");
    expect_error(*state, "schema: 1\nweights:\n  full: {min: 0.1234, expected: 1, max: 1}\nops: []\n",
                 OPMAP_ETABLE, 3, 15, "three decimals");
    expect_error(*state, "schema: 2\nops: []\n", OPMAP_ETABLE, 1, 9, "schema 2");
    expect_error(*state, "", OPMAP_EFORMAT, 1, 1, "empty");
}

static void test_table__constraints_are_checked_at_load(void **state)
{
    expect_error(*state,
                 HEAD "  - domain: ai.onnx\n    op: Resize\n    since: 13\n    status: full\n"
                      "    sources: [src1]\n    constraints:\n"
                      "      - {when: {attr: mode, in: cubic}, then: partial, message: m}\n",
                 OPMAP_ETABLE, 11, 33, "needs a list");
    expect_error(*state,
                 HEAD "  - domain: ai.onnx\n    op: Resize\n    since: 13\n    status: full\n"
                      "    sources: [src1]\n    constraints:\n"
                      "      - {when: {attr: mode, in: [cubic]}, socs: [ascend999], then: rewrite, "
                      "message: m}\n",
                 OPMAP_ETABLE, 11, 50, "unknown SoC 'ascend999'");
}

static void test_table__lookup_picks_largest_since_not_above_opset(void **state)
{
    opmap_ctx *ctx = *state;
    static const char yaml[] =
        HEAD "  - {domain: ai.onnx, op: Resize, since: 10, status: rewrite, sources: [src1]}\n"
             "  - {domain: ai.onnx, op: Resize, since: 13, status: partial, sources: [src1]}\n"
             "  - {domain: ai.onnx, op: Resize, since: 11, status: full, sources: [src1]}\n"
             "  - {domain: aten, op: conv2d, status: full, curated: \"test\"}\n"
             "  - {domain: ai.onnx.ml, op: Scaler, since: 1, status: structural, sources: [src1]}\n";
    opmap_table *t;
    opmap_error err;
    const opmap_row *r;
    assert_int_equal(opmap_table_load_memory(&t, ctx, yaml, sizeof(yaml) - 1, "t", &err), OPMAP_OK);
    assert_int_equal(opmap_table_row_count(t), 5);
    assert_null(opmap_table_lookup(t, "ai.onnx", "Resize", 9));
    assert_int_equal(opmap_row_since(opmap_table_lookup(t, "ai.onnx", "Resize", 10)), 10);
    assert_int_equal(opmap_row_since(opmap_table_lookup(t, "", "Resize", 12)), 11);
    assert_int_equal(opmap_row_since(opmap_table_lookup(t, "ai.onnx", "Resize", 13)), 13);
    r = opmap_table_lookup(t, "ai.onnx", "Resize", 21);
    assert_int_equal(opmap_row_status(r), OPMAP_OP_PARTIAL);
    assert_int_equal(opmap_row_line(r), 6);
    r = opmap_table_lookup(t, "aten", "conv2d", 0);
    assert_non_null(r);
    assert_string_equal(opmap_row_curated(r), "test");
    assert_null(opmap_table_lookup(t, "aten", "conv3d", 0));
    assert_null(opmap_table_lookup(t, "ai.onnx", "resize", 13)); /* names are exact */
    assert_int_equal(opmap_row_status(opmap_table_lookup(t, "ai.onnx.ml", "Scaler", 3)),
                     OPMAP_OP_STRUCTURAL);
    opmap_table_free(t);
}

static void test_table__weights_default_and_override(void **state)
{
    opmap_ctx *ctx = *state;
    static const char yaml[] = "schema: 1\nweights:\n"
                               "  partial: {min: 0.5, expected: 0.75, max: 1}\nops: []\n";
    opmap_table *t;
    opmap_effort e;
    assert_int_equal(opmap_table_load_memory(&t, ctx, yaml, sizeof(yaml) - 1, "t", NULL), OPMAP_OK);
    e = opmap_table_weights(t, OPMAP_OP_PARTIAL);
    assert_int_equal(e.min, 500);
    assert_int_equal(e.expected, 750);
    assert_int_equal(e.max, 1000);
    e = opmap_table_weights(t, OPMAP_OP_FULL);
    assert_int_equal(e.expected, 100);
    e = opmap_table_weights(t, OPMAP_OP_UNMAPPED);
    assert_int_equal(e.expected, 2500);
    e = opmap_table_weights(t, OPMAP_OP_STRUCTURAL);
    assert_int_equal(e.max, 0);
    opmap_table_free(t);
}

static void test_table__builtin_table_loads(void **state)
{
    opmap_table *t;
    opmap_error err;
    int rc = opmap_table_load_default(&t, *state, &err);
    if (rc != OPMAP_OK)
        fail_msg("built-in table: %s:%u:%u: %s", err.source, err.line, err.column, err.message);
    assert_string_equal(opmap_table_origin(t), "built-in");
    assert_true(opmap_table_row_count(t) > 0);
    opmap_table_free(t);
}

/* A table of two chips whose about.soc_parts is `parts` (indented under soc_parts:). */
#define SOC_TABLE(parts)                                                                   \
    "schema: 1\nsources:\n  - {id: src1, grade: doc}\nabout:\n"                                   \
    "  socs: [ascend910b, ascend310p]\n  soc_parts:\n" parts "ops: []\n"

/*
 * about.soc_parts: a part names one chip only, case aside (--soc compares that way), in
 * whatever order the families are listed; every entry cites its sources.
 */
static void test_table__soc_parts_are_checked_at_load(void **state)
{
    opmap_table *t;
    opmap_error err;
    static const char ok[] = SOC_TABLE("    ascend310p: {parts: [Ascend310P3], sources: [src1]}\n"
                                       "    ascend910b: {parts: [Ascend910B3, Ascend910B4], "
                                       "sources: [src1], grade: doc}\n");
    assert_int_equal(opmap_table_load_memory(&t, *state, ok, sizeof(ok) - 1, "t.yaml", &err),
                     OPMAP_OK);
    opmap_table_free(t);
    /* a part spelling a family id, any case */
    expect_error(*state, SOC_TABLE("    ascend310p: {parts: [Ascend310P3, ASCEND910B], "
                                   "sources: [src1]}\n"),
                 OPMAP_ETABLE, 7, 39, "part 'ASCEND910B' spells the chip id 'ascend910b'");
    /* a part listed twice in one family, case aside */
    expect_error(*state, SOC_TABLE("    ascend910b: {parts: [Ascend910B3, ascend910b3], "
                                   "sources: [src1]}\n"),
                 OPMAP_ETABLE, 7, 39, "part 'ascend910b3' is listed twice (as ascend910b's "
                                      "'Ascend910B3'");
    /* ... or in two families, the later chip of about.socs first */
    expect_error(*state, SOC_TABLE("    ascend310p: {parts: [Ascend910B3], sources: [src1]}\n"
                                   "    ascend910b: {parts: [ascend910b3], sources: [src1]}\n"),
                 OPMAP_ETABLE, 7, 26, "part 'Ascend910B3' is listed twice (as ascend910b's "
                                      "'ascend910b3'");
    /* no sources (a grade alone is not evidence), an unknown family, an empty list */
    expect_error(*state, SOC_TABLE("    ascend910b: {parts: [Ascend910B3], grade: doc}\n"),
                 OPMAP_ETABLE, 7, 17, "a chip's parts: missing required key 'sources'");
    expect_error(*state, SOC_TABLE("    ascend999: {parts: [Ascend999A], sources: [src1]}\n"),
                 OPMAP_ETABLE, 7, 5, "unknown SoC 'ascend999' (not in about.socs)");
    expect_error(*state, SOC_TABLE("    ascend910b: {parts: [], sources: [src1]}\n"),
                 OPMAP_ETABLE, 7, 25, "between 1 and 64");
    /* two family ids that differ only in case */
    expect_error(*state, "schema: 1\nabout:\n  socs: [ascend910b, Ascend910B]\nops: []\n",
                 OPMAP_ETABLE, 3, 22, "SoC 'Ascend910B' listed twice (as 'ascend910b'");
}

/* Compares two versions through the public API; the result's sign. */
static int vcmp(const char *a, const char *b)
{
    opmap_error err;
    int c = 99;
    if (opmap_torch_npu_compare(a, b, &c, &err) != OPMAP_OK)
        fail_msg("%s vs %s: %s", a, b, err.message);
    return c < 0 ? -1 : c > 0;
}

static void test_version__compare_and_refuse(void **state)
{
    static const char *const bad[] = { "", "2", "2.", "2.x", "x2.1", "2.1.", "2.1.0.post",
                                       "2.1rc", "2.1.0-beta", "2.1 ", "1234567.1", "2..1" };
    opmap_error err;
    size_t i;
    int c;
    (void)state;
    assert_int_equal(vcmp("2.10", "2.9"), 1);
    assert_int_equal(vcmp("2.1", "2.1.0"), 0);
    assert_int_equal(vcmp("v2.6.0", "2.6"), 0);
    assert_int_equal(vcmp("2.1.0.post3", "2.1.0"), 1);
    assert_int_equal(vcmp("2.1.0.post3", "2.1.0.post10"), -1);
    assert_int_equal(vcmp("v2.6.0rc1", "2.6.0"), -1);
    assert_int_equal(vcmp("2.6.0rc2", "2.6.0rc1"), 1);
    assert_int_equal(vcmp("2.6.0rc1", "2.5.1.post2"), 1);
    assert_int_equal(vcmp("3.0", "2.15"), 1);
    for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        if (opmap_torch_npu_compare(bad[i], "2.1", &c, &err) != OPMAP_EINVAL)
            fail_msg("'%s' was taken as a version", bad[i]);
        assert_non_null(strstr(err.message, "is not a torch_npu version"));
    }
    assert_int_equal(opmap_torch_npu_compare("2.1", "2.1", NULL, &err), OPMAP_EINVAL);
}

/* A row's range holds a version's line; a range that is not versions is refused at load. */
static void test_version__row_ranges(void **state)
{
    static const char yaml[] = HEAD
        "  - {domain: aten, op: a, status: full, sources: [src1], torch_npu: {min: \"2.6\", max: \"2.8\"}}\n"
        "  - {domain: aten, op: b, status: full, sources: [src1]}\n";
    static const struct { const char *v; int a, b; } cases[] = {
        { "2.5.1", 0, 1 }, { "2.6", 1, 1 }, { "v2.6.0rc1", 1, 1 }, { "2.8.0.post2", 1, 1 },
        { "2.9", 0, 1 }, { "2.10", 0, 1 },
    };
    opmap_table *t;
    const opmap_row *ra, *rb;
    opmap_error err;
    size_t i;
    int has;
    assert_int_equal(opmap_table_load_memory(&t, *state, yaml, sizeof(yaml) - 1, "t.yaml", &err),
                     OPMAP_OK);
    assert_int_equal(opmap_table_row(t, 0, &ra), OPMAP_OK);
    assert_int_equal(opmap_table_row(t, 1, &rb), OPMAP_OK);
    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        assert_int_equal(opmap_row_torch_npu_has(ra, cases[i].v, &has, &err), OPMAP_OK);
        if (has != cases[i].a)
            fail_msg("aten::a at %s: %d", cases[i].v, has);
        assert_int_equal(opmap_row_torch_npu_has(rb, cases[i].v, &has, &err), OPMAP_OK);
        assert_int_equal(has, cases[i].b);
    }
    assert_int_equal(opmap_row_torch_npu_has(ra, "newest", &has, &err), OPMAP_EINVAL);
    opmap_table_free(t);
    expect_error(*state, HEAD "  - {domain: aten, op: a, status: full, sources: [src1],\n"
                              "     torch_npu: {min: \"2.1\", max: latest}}\n",
                 OPMAP_ETABLE, 6, 35, "torch_npu.max");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table__syntax_error_has_line_and_column),
        cmocka_unit_test(test_table__unknown_key),
        cmocka_unit_test(test_table__unknown_status),
        cmocka_unit_test(test_table__wrong_type),
        cmocka_unit_test(test_table__duplicate_row),
        cmocka_unit_test(test_table__duplicate_key),
        cmocka_unit_test(test_table__aliases_are_refused),
        cmocka_unit_test(test_table__dangling_source_and_missing_provenance),
        cmocka_unit_test(test_table__onnx_rows_need_since),
        cmocka_unit_test(test_table__bad_weights_and_schema),
        cmocka_unit_test(test_table__constraints_are_checked_at_load),
        cmocka_unit_test(test_table__lookup_picks_largest_since_not_above_opset),
        cmocka_unit_test(test_table__weights_default_and_override),
        cmocka_unit_test(test_table__builtin_table_loads),
        cmocka_unit_test(test_table__soc_parts_are_checked_at_load),
        cmocka_unit_test(test_version__compare_and_refuse),
        cmocka_unit_test(test_version__row_ranges),
    };
    return cmocka_run_group_tests_name("table", tests, setup, teardown);
}
