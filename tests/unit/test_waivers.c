/*
 * tests/unit/test_waivers.c - waiver matching: the index gives the waiver trying them one by
 * one in file order would (checked against that naive matcher on mixed random sets), and
 * 10,000 waivers on a 20,000-node model cost a number of pattern comparisons linear in
 * paths plus waivers, not their product (counted, not timed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "../../src/policy/policy_internal.h"
#include "../../src/scan/result_internal.h"
#include "../support/onnx_build.h"

static const char table_yaml[] =
    "schema: 1\n"
    "sources:\n  - {id: s}\n"
    "ops:\n"
    "  - {domain: ai.onnx, op: Relu, since: 14, status: full, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Tanh, since: 13, status: rewrite, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Sigmoid, since: 13, status: partial, sources: [s]}\n"
    "  - {domain: ai.onnx, op: Abs, since: 13, status: partial, flags: [precision],"
    " sources: [s]}\n";

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

/* A deterministic generator: the same sets on every run. */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* `n` nodes cycling through `n_ops` ops, named blk<i%3>/n<i>; a dynamic input when asked. */
static opmap_result *scan_model(fixture *f, const char *name, const char *const *ops,
                                size_t n_ops, size_t n, int dynamic)
{
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    opmap_model *model;
    opmap_result *res;
    size_t i, len;
    char node[64];
    int64_t dims[2] = { -1, 4 };
    const char *params[2] = { "batch", NULL };
    mb_init(&b);
    g = mb_graph(&b, "g");
    if (dynamic)
        mb_input(&b, g, "x", 1, dims, params, 2);
    /* the builder's arrays hold 64: each node is made in a scratch graph, then moved */
    g->node = mb_alloc(&b, n * sizeof(*g->node));
    for (i = 0; i < n; i++) {
        const char *op = ops[i % n_ops];
        snprintf(node, sizeof(node), "blk%zu/n%zu", i % 3, i);
        g->node[g->n_node++] = mb_node(&b, mb_graph(&b, "scratch"), op,
                                       strncmp(op, "Mystery", 7) == 0 ? "com.x" : NULL, node,
                                       NULL, NULL);
    }
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "com.x", 1);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, name, NULL), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, NULL), OPMAP_OK);
    opmap_model_free(model);
    mb_free(&b);
    return res;
}

/* The matcher before the index: every waiver, in file order, on every path. */
static const om_waiver *naive(const opmap_waivers *ws, const opmap_finding *f,
                              const opmap_op *op)
{
    size_t i, k;
    for (i = 0; i < ws->n; i++) {
        const om_waiver *w = &ws->w[i];
        if (w->kind && w->kind != f->kind)
            continue;
        if (strcmp(w->op, f->op) != 0 && !(w->op[0] == '*' && !w->op[1]))
            continue;
        if (w->domain && strcmp(w->domain, f->domain) != 0)
            continue;
        if (w->model && !om_glob(w->model, f->model))
            continue;
        if (w->node) {
            int any = 0;
            if (op)
                for (k = 0; k < op->n_paths && !any; k++)
                    any = om_glob(w->node, op->paths[k]);
            else
                any = om_glob(w->node, f->node);
            if (!any)
                continue;
        }
        return w;
    }
    return NULL;
}

static const opmap_op *op_of(opmap_result *const *res, size_t n, const opmap_finding *f)
{
    size_t i, k;
    if (!f->op[0])
        return NULL;
    for (i = 0; i < n; i++)
        if (strcmp(res[i]->model_name, f->model) == 0)
            for (k = 0; k < res[i]->n_ops; k++)
                if (strcmp(res[i]->ops[k]->name, f->op) == 0 &&
                    strcmp(res[i]->ops[k]->domain, f->domain) == 0)
                    return res[i]->ops[k];
    fail_msg("no operator %s::%s in %s", f->domain, f->op, f->model);
    return NULL;
}

static const char *const w_ops[] = { "Mystery", "com.x::Mystery", "ai.onnx::Tanh", "Tanh",
                                     "Sigmoid", "Abs", "*", "::*", "com.x::*", "Nope",
                                     "ai.onnx::Abs" };
static const char *const w_kinds[] = { NULL, "unmapped", "rewrite", "partial", "precision",
                                       "dynamic-shape" };
static const char *const w_models[] = { NULL, "models/a.onnx", "models/b.onnx", "models/*",
                                        "*c.onnx", "*", "models/?.onnx", "nomatch",
                                        "other/c.onnx", "**" };
static const char *const w_nodes[] = { NULL, "main/blk1/*", "main/blk?/n1*", "*n7", "*",
                                       "main/*/n3", "", "main/blk2/n", "main/blk0/n9",
                                       "main/blk1/n1", "main/blk0/n0", "x", "main/blk2/n11",
                                       "*/n2?", "main/blk0/n3*", "main/blk0/n30" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char *random_waivers(uint32_t seed, size_t n)
{
    size_t cap = 200 * n + 64, len = 0, i;
    char *y = malloc(cap);
    assert_non_null(y);
    len += (size_t)snprintf(y, cap, "schema: 1\nwaivers:\n");
    for (i = 0; i < n; i++) {
        const char *kind = w_kinds[lcg(&seed) % COUNT(w_kinds)];
        const char *model = w_models[lcg(&seed) % COUNT(w_models)];
        const char *node = w_nodes[lcg(&seed) % COUNT(w_nodes)];
        char path[64];
        if (lcg(&seed) % 4 == 0) { /* a literal path that exists in some model */
            unsigned k = lcg(&seed) % 60;
            snprintf(path, sizeof(path), "main/blk%u/n%u", k % 3, k);
            node = path;
        }
        len += (size_t)snprintf(y + len, cap - len, "  - op: \"%s\"\n",
                                w_ops[lcg(&seed) % COUNT(w_ops)]);
        if (kind)
            len += (size_t)snprintf(y + len, cap - len, "    kind: %s\n", kind);
        if (model)
            len += (size_t)snprintf(y + len, cap - len, "    model: \"%s\"\n", model);
        if (node)
            len += (size_t)snprintf(y + len, cap - len, "    node: \"%s\"\n", node);
        len += (size_t)snprintf(y + len, cap - len,
                                "    reason: w%zu\n    owner: o\n    expires: \"2030-01-01\"\n", i);
    }
    return y;
}

static void test_waivers__index_matches_the_naive_order(void **state)
{
    fixture *f = *state;
    static const char *const ops[] = { "Mystery", "Tanh", "Sigmoid", "Abs", "Relu" };
    static const char *const names[] = { "models/a.onnx", "models/b.onnx", "other/c.onnx" };
    static const size_t sizes[] = { 1, 7, 40, 300, 2000 };
    opmap_result *res[3];
    size_t i, r, s, checked = 0, waived = 0;
    for (r = 0; r < 3; r++)
        res[r] = scan_model(f, names[r], ops, 5, 20 + 20 * r, r == 1);
    for (s = 0; s < COUNT(sizes); s++) {
        for (i = 0; i < 4; i++) {
            char *y = random_waivers((uint32_t)(s * 7919 + i + 1), sizes[s]);
            opmap_waivers *ws;
            opmap_verdict *v;
            opmap_policy policy = OPMAP_POLICY_INIT;
            size_t k;
            assert_int_equal(opmap_waivers_load_memory(&ws, f->ctx, y, strlen(y), "w.yaml", NULL),
                             OPMAP_OK);
            policy.waivers = ws;
            policy.fail_on = (1u << OPMAP_FAIL_KIND_COUNT) - 1;
            policy.today = "2026-06-01";
            assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)res, 3,
                                                &policy, NULL), OPMAP_OK);
            for (k = 0; k < opmap_verdict_finding_count(v); k++) {
                opmap_finding fd = { .size = sizeof(fd) };
                const om_waiver *want;
                assert_int_equal(opmap_verdict_finding(v, k, &fd), OPMAP_OK);
                want = naive(ws, &fd, op_of(res, 3, &fd));
                if (!want) {
                    assert_false(fd.waived);
                } else {
                    assert_true(fd.waived);
                    assert_string_equal(fd.waiver_reason, want->reason);
                    waived++;
                }
                checked++;
            }
            opmap_verdict_free(v);
            opmap_waivers_free(ws);
            free(y);
        }
    }
    /* the sets exercise both outcomes */
    assert_true(waived > 0 && waived < checked);
    for (r = 0; r < 3; r++)
        opmap_result_free(res[r]);
}

static void test_waivers__matching_is_linear(void **state)
{
    fixture *f = *state;
    static const char *const ops[] = { "Mystery" };
    enum { NODES = 20000, WAIVERS = 10000 };
    opmap_result *res = scan_model(f, "big.onnx", ops, 1, NODES, 0);
    size_t cap = (size_t)WAIVERS * 160, len = 0, i;
    char *y = malloc(cap);
    opmap_waivers *ws;
    opmap_verdict *v;
    opmap_policy policy = OPMAP_POLICY_INIT;
    opmap_finding fd = { .size = sizeof(fd) };
    assert_non_null(y);
    assert_int_equal(res->n_ops, 1);
    assert_int_equal(res->ops[0]->n_paths, NODES);
    /* none of the first WAIVERS - 1 matches: literal paths that do not exist, and globs
     * whose literal prefix no path has; the naive matcher compared each with every path */
    len += (size_t)snprintf(y, cap, "schema: 1\nwaivers:\n");
    for (i = 0; i + 1 < WAIVERS; i++)
        len += (size_t)snprintf(y + len, cap - len,
                                "  - {op: Mystery, node: \"main/blk%zu/%s%zu%s\", reason: r%zu, "
                                "owner: o, expires: \"2030-01-01\"}\n",
                                i % 3, i % 2 ? "gone" : "m", i, i % 2 ? "" : "*", i);
    snprintf(y + len, cap - len,
             "  - {op: Mystery, node: \"main/blk%d/n%d\", reason: last, owner: o, "
             "expires: \"2030-01-01\"}\n", (NODES - 64) % 3, NODES - 64);
    assert_int_equal(opmap_waivers_load_memory(&ws, f->ctx, y, strlen(y), "w.yaml", NULL),
                     OPMAP_OK);
    policy.waivers = ws;
    policy.today = "2026-06-01";
    assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)&res, 1, &policy,
                                        NULL), OPMAP_OK);
    assert_int_equal(opmap_verdict_finding_count(v), 1);
    assert_int_equal(opmap_verdict_finding(v, 0, &fd), OPMAP_OK);
    assert_true(fd.waived);
    assert_string_equal(fd.waiver_reason, "last");
    /* naively: up to WAIVERS x NODES = 2e8 comparisons; here a few per match */
    assert_true(v->pattern_compares <= NODES + WAIVERS);
    print_message("pattern comparisons: %llu\n", (unsigned long long)v->pattern_compares);
    opmap_verdict_free(v);
    opmap_waivers_free(ws);
    opmap_result_free(res);
    free(y);
}

static void test_waivers__model_keys(void **state)
{
    static const char *const cases[][3] = {
        { "models/a.onnx", "/w", "models/a.onnx" },
        { "./models//a.onnx", "/w", "models/a.onnx" },
        { "/w/models/a.onnx", "/w", "models/a.onnx" },
        { "//w/x/../models/./a.onnx/", "/w", "models/a.onnx" },
        { "../w/models/a.onnx", "/w", "models/a.onnx" },
        { "/other/a.onnx", "/w", "/other/a.onnx" },
        { "../other/a.onnx", "/w/r", "/w/other/a.onnx" },
        { "/wx/a.onnx", "/w", "/wx/a.onnx" },
        { "/w", "/w", "." },
        { "/w/.", "/w", "." },
        { "a.onnx", "/", "a.onnx" },
        { "/a.onnx", "/", "a.onnx" },
        { "/", "/", "." },
        { "../../x", NULL, "../../x" },
        { "a/../../b/./", NULL, "../b" },
        { "/../a", NULL, "/a" },
        { "./", NULL, "." },
        { "", "/w", "" },
        { "<memory>", "/w", "<memory>" },
        { "/w/models/*.onnx", "/w", "models/*.onnx" },
        { "*detector.onnx", "/w", "*detector.onnx" },
    };
    om_mem mem;
    om_arena A;
    size_t i;
    (void)state;
    om_mem_init(&mem, NULL, 1u << 20);
    om_arena_init(&A, &mem, 0);
    for (i = 0; i < COUNT(cases); i++) {
        const char *key = om_model_key(&A, cases[i][0], cases[i][1]);
        assert_non_null(key);
        if (strcmp(key, cases[i][2]) != 0)
            fail_msg("'%s' in %s: '%s', expected '%s'", cases[i][0],
                     cases[i][1] ? cases[i][1] : "(no cwd)", key, cases[i][2]);
    }
    om_arena_free(&A);
}

static int collect(void *arg, const void *data, size_t size)
{
    char **text = arg;
    size_t have = *text ? strlen(*text) : 0;
    char *t = realloc(*text, have + size + 1);
    if (!t)
        return -1;
    memcpy(t + have, data, size);
    t[have + size] = 0;
    *text = t;
    return 0;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (; (text = strstr(text, needle)); text++)
        n++;
    return n;
}

/* One waiver per (kind, operator, model), however many findings say it; the model as keyed. */
static void test_waivers__baseline_writes_each_waiver_once(void **state)
{
    fixture *f = *state;
    static const char *const ops[] = { "Mystery", "Tanh", "Sigmoid", "Abs", "Relu" };
    opmap_result *res[3];
    opmap_verdict *v;
    opmap_policy policy = OPMAP_POLICY_INIT;
    char *text = NULL;
    res[0] = scan_model(f, "models/a.onnx", ops, 5, 30, 0);
    res[1] = scan_model(f, "./models//a.onnx", ops, 5, 30, 0);  /* the same model again */
    res[2] = scan_model(f, "models/b.onnx", ops, 5, 30, 0);
    policy.fail_on = (1u << OPMAP_FAIL_KIND_COUNT) - 1;
    policy.today = "2026-06-01";
    assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)res, 3, &policy,
                                        NULL), OPMAP_OK);
    /* per model: Mystery unmapped, Tanh rewrite, Sigmoid partial, Abs partial + precision */
    assert_int_equal(opmap_verdict_finding_count(v), 15);
    assert_int_equal(opmap_baseline_write(v, NULL, collect, &text, NULL), OPMAP_OK);
    assert_int_equal(count_of(text, "  - op: "), 10);
    assert_int_equal(count_of(text, "model: \"models/a.onnx\""), 5);
    assert_int_equal(count_of(text, "model: \"models/b.onnx\""), 5);
    free(text);
    opmap_verdict_free(v);
    opmap_result_free(res[0]);
    opmap_result_free(res[1]);
    opmap_result_free(res[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waivers__model_keys),
        cmocka_unit_test(test_waivers__index_matches_the_naive_order),
        cmocka_unit_test(test_waivers__matching_is_linear),
        cmocka_unit_test(test_waivers__baseline_writes_each_waiver_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
