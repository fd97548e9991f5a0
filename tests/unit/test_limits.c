/*
 * The context's limits: defaults, version-1 options (the struct before the limits added in
 * version 2), and each limit of version 2 ending a read or scan with OPMAP_ELIMIT and a
 * message naming it, on real inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <opmap/opmap.h>

static unsigned char *slurp(const char *rel, size_t *len)
{
    char path[1024];
    FILE *f;
    unsigned char *buf;
    long n;
    snprintf(path, sizeof(path), "%s/%s", OPMAP_SOURCE_DIR, rel);
    f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static opmap_ctx *ctx_with(const opmap_limits *lim)
{
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *ctx = NULL;
    opmap_error err;
    o.limits = *lim;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_OK);
    return ctx;
}

/* opens rel (and scans it with the built-in table when `scan`) under lim; returns the
 * status of the first step that fails, its message in err */
static int open_and_scan(const opmap_limits *lim, const char *rel, int scan, opmap_error *err)
{
    opmap_ctx *ctx = ctx_with(lim);
    opmap_model *m = NULL;
    opmap_table *t = NULL;
    opmap_result *r = NULL;
    size_t len;
    unsigned char *buf = slurp(rel, &len);
    int rc = opmap_model_open_memory(&m, ctx, buf, len, rel, err);
    if (rc == OPMAP_OK && scan) {
        assert_int_equal(opmap_table_load_default(&t, ctx, err), OPMAP_OK);
        rc = opmap_scan(&r, ctx, m, t, NULL, err);
    }
    opmap_result_free(r);
    opmap_table_free(t);
    opmap_model_free(m);
    opmap_ctx_free(ctx);
    free(buf);
    return rc;
}

static void expect_limit(const opmap_limits *lim, const char *rel, int scan, const char *name)
{
    opmap_limits none;
    opmap_error err;
    int rc = open_and_scan(lim, rel, scan, &err);
    if (rc != OPMAP_ELIMIT || !strstr(err.message, name))
        fail_msg("%s: status %d, '%s'; expected a limit error naming %s", rel, rc, err.message,
                 name);
    /* and the same input passes with the defaults: it is the limit that refused it */
    memset(&none, 0, sizeof(none));
    if ((rc = open_and_scan(&none, rel, scan, &err)) != OPMAP_OK)
        fail_msg("%s with default limits: status %d, '%s'", rel, rc, err.message);
}

static void test_limits__defaults_fill_zero_fields(void **state)
{
    opmap_limits lim;
    opmap_ctx *ctx;
    const opmap_limits *got;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    lim.max_zip_entries = 7;
    ctx = ctx_with(&lim);
    got = opmap_ctx_limits(ctx);
    assert_int_equal(got->max_zip_entries, 7);
    assert_int_equal(got->max_depth, 64);
    assert_int_equal(got->max_pickle_depth, 64);
    assert_int_equal(got->max_expansions, 10000000);
    assert_int_equal(got->max_entry_bytes, 64u << 20);
    assert_int_equal(got->max_yaml_nodes, 10000000);
    opmap_ctx_free(ctx);
}

static void test_limits__version_1_options_leave_the_new_limits_at_their_defaults(void **state)
{
    /* a version-1 caller's struct ends before max_pickle_depth: whatever follows it in
     * memory must not be read as limits */
    opmap_ctx_options o;
    opmap_ctx *ctx = NULL;
    opmap_error err;
    (void)state;
    memset(&o, 0xA5, sizeof(o));
    o.version = 1;
    o.allocator.malloc_fn = NULL;
    o.allocator.realloc_fn = NULL;
    o.allocator.free_fn = NULL;
    memset(&o.limits, 0, offsetof(opmap_limits, max_pickle_depth));
    o.limits.max_nodes = 1234;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_OK);
    assert_int_equal(opmap_ctx_limits(ctx)->max_nodes, 1234);
    assert_int_equal(opmap_ctx_limits(ctx)->max_pickle_depth, 64);
    assert_int_equal(opmap_ctx_limits(ctx)->max_zip_entries, 100000);
    assert_int_equal(opmap_ctx_limits(ctx)->max_yaml_nodes, 10000000);
    opmap_ctx_free(ctx);

    o.version = 3;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_EINVAL);
    assert_non_null(strstr(err.message, "options version 3"));
}

static void test_limits__zip_entries(void **state)
{
    opmap_limits lim;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    lim.max_zip_entries = 100; /* the archive holds 1,000 extra entries */
    expect_limit(&lim, "tests/hostile/cases/zip_many_entries.pt", 0, "max_zip_entries (100)");
}

static void test_limits__entry_bytes(void **state)
{
    opmap_limits lim;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    lim.max_entry_bytes = 256;
    expect_limit(&lim, "tests/fixtures/torchscript/controlflow.scripted.pt", 0,
                 "max_entry_bytes (256)");
}

static void test_limits__pickle_depth(void **state)
{
    opmap_limits lim;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    lim.max_pickle_depth = 1; /* debug pickles nest MARKs deeper than that */
    expect_limit(&lim, "tests/fixtures/torchscript/controlflow.scripted.pt", 0,
                 "max_pickle_depth (1)");
}

static void test_limits__expansions(void **state)
{
    opmap_limits lim;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    lim.max_expansions = 1;
    expect_limit(&lim, "tests/fuzz/corpus/onnx/seed-functions.onnx", 1, "max_expansions (1)");
}

static void test_limits__yaml_nodes(void **state)
{
    static const char table[] =
        "schema: 1\nsources:\n  - {id: s, title: t}\n"
        "ops:\n  - {domain: ai.onnx, op: Relu, since: 1, status: full, sources: [s]}\n";
    opmap_limits lim;
    opmap_ctx *ctx;
    opmap_table *t = NULL;
    opmap_error err;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    ctx = ctx_with(&lim);
    assert_int_equal(opmap_table_load_memory(&t, ctx, table, sizeof(table) - 1, "t.yaml", &err),
                     OPMAP_OK);
    opmap_table_free(t);
    opmap_ctx_free(ctx);
    lim.max_yaml_nodes = 10;
    ctx = ctx_with(&lim);
    assert_int_equal(opmap_table_load_memory(&t, ctx, table, sizeof(table) - 1, "t.yaml", &err),
                     OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_yaml_nodes"));
    assert_true(err.line > 0);
    opmap_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits__defaults_fill_zero_fields),
        cmocka_unit_test(test_limits__version_1_options_leave_the_new_limits_at_their_defaults),
        cmocka_unit_test(test_limits__zip_entries),
        cmocka_unit_test(test_limits__entry_bytes),
        cmocka_unit_test(test_limits__pickle_depth),
        cmocka_unit_test(test_limits__expansions),
        cmocka_unit_test(test_limits__yaml_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
