/*
 * The context's limits: defaults, version-1 options (the struct before the limits added in
 * version 2), and each limit of version 2 ending a read or scan with OPMAP_ELIMIT and a
 * message naming it, on real inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <opmap/opmap.h>

#include "../support/onnx_build.h"

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

/*
 * A version-1 caller's options, allocated at exactly their old size: reading past them (the
 * new limits) is a heap overflow the sanitizer build reports. Fields are written through
 * their offsets, as the struct type is larger than the buffer.
 */
#define V1_SIZE (offsetof(opmap_ctx_options, limits) + offsetof(opmap_limits, max_pickle_depth))
#define LIMIT_AT(field) (offsetof(opmap_ctx_options, limits) + offsetof(opmap_limits, field))

static void put(unsigned char *raw, size_t off, const void *v, size_t n)
{
    assert_true(off + n <= V1_SIZE);
    memcpy(raw + off, v, n);
}

static void test_limits__version_1_options_keep_what_they_bounded(void **state)
{
    unsigned char *raw = calloc(1, V1_SIZE);
    unsigned version = 1;
    uint64_t nodes = 1234;
    uint32_t depth = 9, strings = 100, yaml_depth = 5;
    opmap_ctx *ctx = NULL;
    opmap_error err;
    const opmap_limits *l;
    (void)state;
    assert_non_null(raw);
    put(raw, offsetof(opmap_ctx_options, version), &version, sizeof(version));
    /* untouched: the new limits take their defaults */
    assert_int_equal(opmap_ctx_new(&ctx, (const opmap_ctx_options *)(void *)raw, &err),
                     OPMAP_OK);
    l = opmap_ctx_limits(ctx);
    assert_int_equal(l->max_pickle_depth, 64);
    assert_int_equal(l->max_expansions, 10000000);
    assert_int_equal(l->max_zip_entries, 100000);
    assert_int_equal(l->max_entry_bytes, 64u << 20);
    assert_int_equal(l->max_yaml_nodes, 10000000);
    opmap_ctx_free(ctx);
    /* tightened: the bounds version 1 derived from them stay as tight */
    put(raw, LIMIT_AT(max_nodes), &nodes, sizeof(nodes));
    put(raw, LIMIT_AT(max_depth), &depth, sizeof(depth));
    put(raw, LIMIT_AT(max_string_bytes), &strings, sizeof(strings));
    put(raw, LIMIT_AT(max_yaml_depth), &yaml_depth, sizeof(yaml_depth)); /* the last field */
    assert_int_equal(opmap_ctx_new(&ctx, (const opmap_ctx_options *)(void *)raw, &err),
                     OPMAP_OK);
    l = opmap_ctx_limits(ctx);
    assert_int_equal(l->max_nodes, 1234);
    assert_int_equal(l->max_yaml_depth, 5);
    assert_int_equal(l->max_expansions, 1234);
    assert_int_equal(l->max_zip_entries, 1234);
    assert_int_equal(l->max_pickle_depth, 9);
    assert_int_equal(l->max_entry_bytes, 6400);
    assert_int_equal(l->max_yaml_nodes, 10000000);
    opmap_ctx_free(ctx);
    free(raw);
}

static void test_limits__unknown_options_version_is_refused(void **state)
{
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *ctx = NULL;
    opmap_error err;
    (void)state;
    o.version = 3;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_EINVAL);
    assert_non_null(strstr(err.message, "options version 3"));
    assert_null(ctx);
}

static void test_limits__new_limits_are_not_governed_by_the_old_fields(void **state)
{
    /* version 2: max_nodes no longer bounds zip entries (1,000 here) */
    opmap_limits lim;
    opmap_error err;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    lim.max_nodes = 100;
    assert_int_equal(open_and_scan(&lim, "tests/hostile/cases/zip_many_entries.pt", 0, &err),
                     OPMAP_OK);
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

static void test_limits__a_walk_of_many_instances_is_refused_by_max_nodes(void **state)
{
    /* F0 calls F1 twice, ... F4 calls F5 twice; F5 holds 50 Relus and calls itself. The
     * recursive call makes every F5 body count on its own (its totals depend on the call
     * chain), so the pre-count runs out of steps: most of them were instances, and the
     * error must name max_nodes, not max_expansions. */
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    Onnx__FunctionProto *f;
    opmap_limits lim;
    opmap_ctx *ctx;
    opmap_model *model = NULL;
    opmap_table *t = NULL;
    opmap_result *r = NULL;
    opmap_error err;
    const uint8_t *buf;
    size_t len;
    char name[8], callee[8];
    int i;
    (void)state;
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "F0", "fan", NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "fan", 1);
    for (i = 0; i <= 5; i++) {
        snprintf(name, sizeof(name), "F%d", i);
        snprintf(callee, sizeof(callee), "F%d", i + 1);
        f = mb_function(&b, m, "fan", name);
        mb_fopset(&b, f, "", 17);
        mb_fopset(&b, f, "fan", 1);
        if (i < 5) {
            mb_fnode(&b, f, callee, "fan");
            mb_fnode(&b, f, callee, "fan");
        } else {
            int k;
            for (k = 0; k < 50; k++)
                mb_fnode(&b, f, "Relu", "");
            mb_fnode(&b, f, "F5", "fan");
        }
    }
    buf = mb_pack(&b, m, &len);
    memset(&lim, 0, sizeof(lim));
    lim.max_nodes = 100;       /* 32 x 50 instances */
    lim.max_expansions = 100;  /* 63 calls expanded, 32 recursive calls noted */
    ctx = ctx_with(&lim);
    assert_int_equal(opmap_model_open_memory(&model, ctx, buf, len, "fan.onnx", &err), OPMAP_OK);
    assert_int_equal(opmap_table_load_default(&t, ctx, &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&r, ctx, model, t, NULL, &err), OPMAP_ELIMIT);
    if (!strstr(err.message, "max_nodes (100)"))
        fail_msg("expected max_nodes to be named: %s", err.message);
    opmap_table_free(t);
    opmap_model_free(model);
    opmap_ctx_free(ctx);
    mb_free(&b);
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

static void test_limits__yaml_nodes_of_waiver_and_weights_files(void **state)
{
    static const char waivers[] =
        "schema: 1\nwaivers:\n  - {op: Resize, reason: r, owner: o, expires: \"2027-03-31\"}\n";
    static const char weights[] =
        "partial: {min: 0.5, expected: 0.8, max: 1}\nrewrite: {min: 2, expected: 2.5, max: 3}\n";
    opmap_limits lim;
    opmap_ctx *ctx;
    opmap_waivers *ws = NULL;
    opmap_weights wt;
    opmap_error err;
    (void)state;
    memset(&lim, 0, sizeof(lim));
    ctx = ctx_with(&lim);
    assert_int_equal(opmap_waivers_load_memory(&ws, ctx, waivers, sizeof(waivers) - 1, "w.yaml",
                                               &err), OPMAP_OK);
    opmap_waivers_free(ws);
    ws = NULL;
    assert_int_equal(opmap_weights_load_memory(&wt, ctx, weights, sizeof(weights) - 1, "e.yaml",
                                               &err), OPMAP_OK);
    opmap_ctx_free(ctx);
    lim.max_yaml_nodes = 6;
    ctx = ctx_with(&lim);
    assert_int_equal(opmap_waivers_load_memory(&ws, ctx, waivers, sizeof(waivers) - 1, "w.yaml",
                                               &err), OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_yaml_nodes"));
    assert_int_equal(opmap_weights_load_memory(&wt, ctx, weights, sizeof(weights) - 1, "e.yaml",
                                               &err), OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_yaml_nodes"));
    opmap_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits__defaults_fill_zero_fields),
        cmocka_unit_test(test_limits__version_1_options_keep_what_they_bounded),
        cmocka_unit_test(test_limits__unknown_options_version_is_refused),
        cmocka_unit_test(test_limits__new_limits_are_not_governed_by_the_old_fields),
        cmocka_unit_test(test_limits__zip_entries),
        cmocka_unit_test(test_limits__entry_bytes),
        cmocka_unit_test(test_limits__pickle_depth),
        cmocka_unit_test(test_limits__expansions),
        cmocka_unit_test(test_limits__a_walk_of_many_instances_is_refused_by_max_nodes),
        cmocka_unit_test(test_limits__yaml_nodes),
        cmocka_unit_test(test_limits__yaml_nodes_of_waiver_and_weights_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
