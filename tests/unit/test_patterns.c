/*
 * tests/unit/test_patterns.c - the pattern table (data/patterns.yaml) and its matcher
 * (rules/pattern_match.c): the built-in table loads; malformed entries are refused with
 * line:column; chains are found backwards through their producers (optional steps, skipped
 * casts, the shares and other constraints) and not where a step or a constraint fails; a
 * node of enormous fan-in costs a bounded walk.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "../support/onnx_build.h"
#include "table/patterns.h"

static opmap_table *table; /* the built-in table, for the scans (setup to teardown) */

static int setup(void **state)
{
    opmap_ctx *ctx;
    opmap_error err;
    if (opmap_ctx_new(&ctx, NULL, NULL) != OPMAP_OK ||
        opmap_table_load_default(&table, ctx, &err) != OPMAP_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state)
{
    opmap_table_free(table);
    opmap_ctx_free(*state);
    return 0;
}

static void builtin_loads(void **state)
{
    om_patterns *t = NULL;
    opmap_error err;
    size_t i;
    const char *want[] = { "rmsnorm", "rotary", "attention", "swiglu", "moe_router", "layernorm",
                           "gelu" };
    if (om_patterns_default(&t, *state, &err) != OPMAP_OK)
        fail_msg("%s:%u:%u: %s", err.source, err.line, err.column, err.message);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        size_t k;
        for (k = 0; k < t->n_patterns && strcmp(t->patterns[k].id, want[i]) != 0; k++)
            ;
        assert_true(k < t->n_patterns);
        assert_true(t->patterns[k].n_sources > 0 && t->patterns[k].grade > 0);
        assert_non_null(t->patterns[k].replacement);
    }
    om_patterns_free(t);
}

static void refused(void **state, const char *yaml, const char *want, uint32_t line)
{
    om_patterns *t = NULL;
    opmap_error err;
    int rc = om_patterns_load_memory(&t, *state, yaml, strlen(yaml), "p.yaml", &err);
    assert_int_not_equal(rc, OPMAP_OK);
    assert_null(t);
    if (!strstr(err.message, want))
        fail_msg("'%s' does not say '%s'", err.message, want);
    assert_int_equal(err.line, line);
}

#define HEAD "schema: 1\nsources:\n  - {id: s, grade: doc}\npatterns:\n"
#define PAT(chain) "  - {id: p, name: n, replacement: r, hint: h, sources: [s], grade: doc,\n" \
                   "     chains: [" chain "]}\n"

static void malformed_refused(void **state)
{
    /* the chain is on line 6 */
    refused(state, HEAD PAT("{steps: [Pow]}"), "is not domain::op", 6);
    refused(state, HEAD PAT("{steps: [\"ai.onnx::Pow?\", ai.onnx::Mul]}"),
            "only a chain's inner steps may be optional", 6);
    refused(state, HEAD PAT("{steps: [ai.onnx::Pow, ai.onnx::Mul], shares: [[0, 2]]}"),
            "is not another of the chain's", 6);
    refused(state, HEAD PAT("{steps: [ai.onnx::Pow], colour: red}"), "colour", 6);
    refused(state, HEAD "  - {id: p, name: n, replacement: r, hint: h, sources: [t], grade: doc,"
                        " chains: [{steps: [a::b]}]}\n", "unknown source 't'", 5);
    refused(state, HEAD "  - {id: p, name: n, replacement: r, hint: h, sources: [s], grade: "
                        "kernel, chains: [{steps: [a::b]}]}\n", "above every cited source", 5);
}

/* A model of `spec`: "op:in1,in2>out;..." in the default domain, graph input "x". */
static opmap_result *scan_spec(opmap_ctx *ctx, const char *spec)
{
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    opmap_model *model = NULL;
    opmap_result *res = NULL;
    opmap_error err;
    char buf[4096], *save = NULL, *item;
    size_t len, k = 0;
    uint8_t *bytes;
    int64_t dims[2] = { 4, 8 };
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, dims, NULL, 2);
    snprintf(buf, sizeof(buf), "%s", spec);
    for (item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save), k++) {
        char *colon = strchr(item, ':'), *gt = strchr(item, '>');
        const char *ins[5] = { NULL }, *outs[2] = { NULL };
        char name[16], *in, *s2 = NULL;
        size_t n = 0;
        *colon = *gt = 0;
        for (in = strtok_r(colon + 1, ",", &s2); in && n < 4; in = strtok_r(NULL, ",", &s2))
            ins[n++] = mb_str(&b, in);
        outs[0] = mb_str(&b, gt + 1);
        snprintf(name, sizeof(name), "n%zu", k);
        mb_node(&b, g, mb_str(&b, item), NULL, mb_str(&b, name), ins, outs);
    }
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    bytes = mb_pack(&b, m, &len);
    if (opmap_model_open_memory(&model, ctx, bytes, len, "m.onnx", &err) != OPMAP_OK ||
        opmap_scan(&res, ctx, model, table, NULL, &err) != OPMAP_OK)
        fail_msg("%s", err.message);
    opmap_model_free(model);
    mb_free(&b);
    return res;
}

/* The count of fused advice `id` in the result's JSON (0 when absent); frees the result. */
static int count_of(opmap_ctx *ctx, opmap_result *res, const char *id)
{
    char *json = NULL, key[64], *p;
    size_t len;
    opmap_error err;
    const opmap_result *one = res;
    int n = 0;
    assert_int_equal(opmap_report_write_memory(ctx, &one, 1, OPMAP_REPORT_JSON, NULL, &json,
                                               &len, &err), OPMAP_OK);
    snprintf(key, sizeof(key), "\"id\": \"%s\"", id);
    if ((p = strstr(json, key)) && strstr(p, "\"kind\": \"fused\"") &&
        (p = strstr(p, "\"count\": ")))
        n = atoi(p + 9);
    opmap_free(ctx, json);
    opmap_result_free(res);
    return n;
}

static void chains_are_found_backwards(void **state)
{
    opmap_ctx *ctx = *state;
    /* RMSNorm: x * (1 / sqrt(mean(x^2) + eps)); Pow and the last Mul read x */
    const char *rms = "Pow:x,two>p;ReduceMean:p>m;Add:m,eps>a;Sqrt:a>s;Div:one,s>d;Mul:x,d>y";
    assert_int_equal(count_of(ctx, scan_spec(ctx, rms), "rmsnorm"), 1);
    /* a cast between two steps is walked through */
    assert_int_equal(count_of(ctx, scan_spec(ctx, "Pow:x,two>p;ReduceMean:p>m;Cast:m>c;Add:c,eps>a;"
                                                  "Sqrt:a>s;Div:one,s>d;Mul:x,d>y"), "rmsnorm"), 1);
    /* the last Mul reading another tensor than Pow's: the shares constraint fails */
    assert_int_equal(count_of(ctx, scan_spec(ctx, "Pow:x,two>p;ReduceMean:p>m;Add:m,eps>a;"
                                                  "Sqrt:a>s;Div:one,s>d;Mul:z,d>y"), "rmsnorm"), 0);
    /* attention without its optional scale and mask steps */
    assert_int_equal(count_of(ctx, scan_spec(ctx, "MatMul:x,k>s;Softmax:s>p;MatMul:p,v>o"),
                              "attention"), 1);
    /* and with them */
    assert_int_equal(count_of(ctx, scan_spec(ctx, "MatMul:x,k>s;Div:s,d>t;Add:t,mask>u;"
                                                  "Softmax:u>p;MatMul:p,v>o"), "attention"), 1);
    /* a step missing: no match */
    assert_int_equal(count_of(ctx, scan_spec(ctx, "MatMul:x,k>s;Relu:s>p;MatMul:p,v>o"),
                              "attention"), 0);
    /* SwiGLU needs its up projection: silu(g) * sigmoid(..) (EfficientNet's SE) is none */
    assert_int_equal(count_of(ctx, scan_spec(ctx, "MatMul:x,w1>g;Sigmoid:g>s;Mul:g,s>a;"
                                                  "MatMul:x,w3>u;Mul:a,u>y"), "swiglu"), 1);
    assert_int_equal(count_of(ctx, scan_spec(ctx, "MatMul:x,w1>g;Sigmoid:g>s;Mul:g,s>a;"
                                                  "Sigmoid:x>u;Mul:a,u>y"), "swiglu"), 0);
}

/* A Softmax feeding a TopK through a long ladder of casts: bounded hops, no match; and
 * many Softmax→TopK pairs: each found once. */
static void bounded(void **state)
{
    opmap_ctx *ctx = *state;
    char spec[4000];
    size_t used = 0, i;
    used += (size_t)snprintf(spec + used, sizeof(spec) - used, "Softmax:x>c0");
    for (i = 0; i < 20; i++)
        used += (size_t)snprintf(spec + used, sizeof(spec) - used, ";Cast:c%zu>c%zu", i, i + 1);
    snprintf(spec + used, sizeof(spec) - used, ";TopK:c20,k>t");
    assert_int_equal(count_of(ctx, scan_spec(ctx, spec), "moe_router"), 0);
    used = 0;
    for (i = 0; i < 30; i++)
        used += (size_t)snprintf(spec + used, sizeof(spec) - used, "%sSoftmax:x>s%zu;TopK:s%zu,k>t%zu",
                                 i ? ";" : "", i, i, i);
    assert_int_equal(count_of(ctx, scan_spec(ctx, spec), "moe_router"), 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_loads),
        cmocka_unit_test(malformed_refused),
        cmocka_unit_test(chains_are_found_backwards),
        cmocka_unit_test(bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
