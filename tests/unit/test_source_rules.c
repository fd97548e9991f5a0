/*
 * tests/unit/test_source_rules.c - the source-rule table (data/source_rules.yaml): the
 * built-in rules load, every rule has sources and a grade, malformed entries are refused
 * with line:column.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "table/source_rules.h"
#include "table/table_internal.h"

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

static void builtin_loads(void **state)
{
    om_source_rules *r = NULL;
    opmap_error err;
    size_t i, j, n_unknown = 0;
    int found_cuda = 0, found_nccl = 0;
    int rc = om_source_rules_default(&r, *state, &err);
    if (rc != OPMAP_OK)
        fail_msg("%s:%u:%u: %s", err.source, err.line, err.column, err.message);
    assert_true(r->n_rules >= 30);
    for (i = 0; i < r->n_rules; i++) {
        const om_source_rule *u = &r->rules[i];
        assert_true(u->n_sources > 0);
        assert_true(u->grade > OM_GRADE_NONE);
        assert_non_null(u->hint);
        for (j = 0; j < u->n_sources; j++) {
            size_t k;
            int ok = 0;
            for (k = 0; k < r->n_sources; k++)
                ok |= strcmp(r->sources[k].id, u->sources[j]) == 0;
            assert_true(ok);
        }
        if (u->status == OM_SR_UNKNOWN)
            n_unknown++;
        if (u->kind == OM_SR_METHOD_CALL && u->n_names && strcmp(u->names[0], "cuda") == 0) {
            found_cuda = 1;
            assert_int_equal(u->status, OM_SR_AUTOMATIC);
            assert_int_equal(u->grade, OM_GRADE_KERNEL);
        }
        if (u->kind == OM_SR_STRING_ARG && u->value && strcmp(u->value, "nccl") == 0 && u->keyword)
            found_nccl = 1;
        if (u->status == OM_SR_UNKNOWN) /* unpublished: the table's unpublished weight */
            assert_int_equal(u->weight.expected, 200);
    }
    assert_true(found_cuda && found_nccl && n_unknown > 0);
    for (i = 0; i < r->n_sources; i++)
        if (strcmp(r->sources[i].id, "curated") != 0 && strcmp(r->sources[i].id, "migration-guides") != 0) {
            assert_non_null(r->sources[i].repo);
            assert_non_null(r->sources[i].commit);
            assert_int_equal(strlen(r->sources[i].commit), 40);
        }
    om_source_rules_free(r);
}

#define HEAD "schema: 1\nsources:\n  - {id: k, repo: a/b, grade: kernel}\n  - {id: p, grade: practice}\nrules:\n"

/* Expects a refusal at `line`, column of the first `at` on that line, naming `needle`. */
static void expect_error(opmap_ctx *ctx, const char *yaml, uint32_t line, const char *at,
                         const char *needle)
{
    om_source_rules *r = NULL;
    opmap_error err;
    const char *p = yaml;
    uint32_t col, l;
    int rc;
    for (l = 1; l < line && (p = strchr(p, '\n')); l++)
        p++;
    assert_non_null(p);
    p = strstr(p, at);
    assert_non_null(p);
    {
        const char *b = p;
        while (b > yaml && b[-1] != '\n')
            b--;
        col = (uint32_t)(p - b) + 1;
    }
    rc = om_source_rules_load_memory(&r, ctx, yaml, strlen(yaml), "r.yaml", &err);
    if (rc == OPMAP_OK)
        fail_msg("expected an error containing '%s'", needle);
    assert_null(r);
    if (err.line != line || err.column != col || !strstr(err.message, needle))
        fail_msg("got %u:%u '%s', expected %u:%u '%s'", err.line, err.column, err.message, line,
                 col, needle);
}

static void malformed_refused(void **state)
{
    opmap_ctx *ctx = *state;
    om_source_rules *r = NULL;
    opmap_error err;
    const char *good = HEAD
        "  - {id: a, match: {kind: method_call, name: cuda}, status: automatic, hint: h, sources: [k], grade: kernel}\n"
        "  - {id: b, match: {kind: string_arg, value: nccl, keyword: backend}, status: automatic, hint: h, sources: [k], grade: derived,\n"
        "     weight: {min: 0, expected: 0.1, max: 0.2}}\n";
    assert_int_equal(om_source_rules_load_memory(&r, ctx, good, strlen(good), "r.yaml", &err), OPMAP_OK);
    assert_int_equal(r->n_rules, 2);
    assert_int_equal(r->rules[0].weight.expected, 100);
    assert_int_equal(r->rules[1].weight.max, 200);
    om_source_rules_free(r);

    expect_error(ctx, HEAD "  - {id: a, match: {kind: method_call, name: cuda}, status: automatic, hint: h, grade: kernel}\n",
                 6, "{id: a", "no sources");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: method_call, name: cuda}, status: automatic, hint: h, sources: [k]}\n",
                 6, "{id: a", "no grade");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: method_call, name: cuda}, status: fine, hint: h, sources: [k], grade: kernel}\n",
                 6, "fine", "unknown status");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: macro, name: cuda}, status: automatic, hint: h, sources: [k], grade: kernel}\n",
                 6, "macro", "unknown match kind");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: name, name: x}, status: automatic, hint: h, sources: [zz], grade: kernel}\n",
                 6, "zz", "unknown source 'zz'");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: name, name: x}, status: automatic, hint: h, sources: [p], grade: doc}\n",
                 6, "doc}", "above every cited source");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: name, name: x}, status: automatic, hint: h, sources: [k], grade: kernel, colour: red}\n",
                 6, "colour", "colour");
    expect_error(ctx, HEAD "  - {id: a, match: {kind: string_arg, value: nccl}, status: automatic, hint: h, sources: [k], grade: kernel}\n",
                 6, "{kind: string_arg", "call or keyword");
    expect_error(ctx, HEAD
                 "  - {id: a, match: {kind: name, name: x}, status: automatic, hint: h, sources: [k], grade: kernel}\n"
                 "  - {id: b, match: {kind: name, names: [y, x]}, status: manual, hint: h, sources: [k], grade: kernel}\n",
                 7, "{kind: name, names", "answered by rules 'a' and 'b'");
    expect_error(ctx, "schema: 2\nsources: []\nrules: []\n", 1, "2", "schema 2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_loads),
        cmocka_unit_test(malformed_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
