/*
 * tests/unit/test_ts_graph_text.c - graph text as users print it from modules in memory
 * (tests/fixtures/torchscript/memory/): scope suffixes as module paths that match the
 * archive reader's, source comments as locations, CRLF and tab-mixed whitespace, and
 * graphs printed without inlining (calls are structure, reported as not inlined).
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

#include "readers/model.h"
#include "readers/torchscript/graph_text/scope.h"
#include "../../src/walker/walker.h"

#ifndef OPMAP_TS_FIXTURES
#define OPMAP_TS_FIXTURES "tests/fixtures/torchscript"
#endif

typedef struct inst {
    char key[700];            /* "dom::op path file:line" */
    char op[64], module[512]; /* "aten::_convolution", "main/layer1/0/conv1" */
} inst;

typedef struct insts {
    inst *v;
    size_t n, cap;
} insts;

static int record(void *payload, const om_visit *v)
{
    insts *s = payload;
    inst *x;
    const char *slash = strrchr(v->path, '/');
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof(*s->v));
        assert_non_null(s->v);
    }
    x = &s->v[s->n++];
    snprintf(x->key, sizeof(x->key), "%s::%s %s %s:%u", v->node->domain, v->node->op, v->path,
             v->node->src_file ? v->node->src_file : "", (unsigned)v->node->src_line);
    snprintf(x->op, sizeof(x->op), "%s::%s", v->node->domain, v->node->op);
    snprintf(x->module, sizeof(x->module), "%.*s", (int)(slash - v->path), v->path);
    return OPMAP_OK;
}

static void walk(opmap_ctx *ctx, opmap_model *m, insts *s)
{
    opmap_error err;
    om_mem mem;
    memset(s, 0, sizeof(*s));
    om_mem_init(&mem, NULL, 1u << 30);
    assert_int_equal(om_walk(&m->ir, opmap_ctx_limits(ctx), &mem, record, NULL, s, &err),
                     OPMAP_OK);
}

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    FILE *f;
    char *buf;
    long n;
    snprintf(path, sizeof(path), "%s/%s", OPMAP_TS_FIXTURES, name);
    f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static opmap_model *open_buf(opmap_ctx *ctx, const char *buf, size_t len, const char *name)
{
    opmap_model *m = NULL;
    opmap_error err;
    if (opmap_model_open_memory(&m, ctx, buf, len, name, &err) != OPMAP_OK)
        fail_msg("%s: %s", name, err.message);
    return m;
}

static opmap_model *open_fixture(opmap_ctx *ctx, const char *name)
{
    size_t len;
    char *buf = slurp(name, &len);
    opmap_model *m = open_buf(ctx, buf, len, name);
    free(buf);
    return m;
}

static size_t occurrences(const char *text, const char *needle)
{
    size_t n = 0;
    const char *p = text;
    while ((p = strstr(p, needle)))
        n++, p++;
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

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

/* ---- scopes ---- */

static void expect_path(const char *scope, const char *want)
{
    char out[512];
    size_t n = gts_scope_path(scope, strlen(scope), out);
    if (n != strlen(want) || (n && strcmp(out, want) != 0))
        fail_msg("scope '%s': got '%.*s', want '%s'", scope, (int)n, out, want);
}

static void test_scope__spellings(void **state)
{
    (void)state;
    /* torch's tracer: the last segment is qualified from the root */
    expect_path("__module.layer1/__module.layer1.0/__module.layer1.0.conv1 ", "layer1/0/conv1");
    expect_path("__module.fc", "fc");
    expect_path("__module", "");
    /* torch.onnx: Class::name, the root's name empty */
    expect_path("torchvision.models.resnet.ResNet::/torch.nn.modules.container.Sequential::"
                "layer1/torch.nn.modules.conv.Conv2d::layer1.0.conv1", "layer1/0/conv1");
    expect_path("A/B::", "");
    expect_path("A::/B::b", "b");
    /* older tracers: Root/Class[name]/... */
    expect_path("ResNet/Sequential[layer1]/BasicBlock[0]/Conv2d[conv1]", "layer1/0/conv1");
    expect_path("ResNet", "");
    expect_path("\t ", "");
}

/* ---- traced in memory: module paths as the archive's, source lines from comments ---- */

/* "aten::op module" of every ATen instance, sorted: what runs where, index aside. */
static char (*aten_modules(const insts *s, size_t *n))[600]
{
    char (*k)[600] = calloc(s->n + 1, sizeof(*k));
    size_t i, m = 0;
    assert_non_null(k);
    for (i = 0; i < s->n; i++)
        if (strncmp(s->v[i].op, "aten::", 6) == 0)
            snprintf(k[m++], sizeof(*k), "%s %s", s->v[i].op, s->v[i].module);
    qsort(k, m, sizeof(*k), cmp_str);
    *n = m;
    return k;
}

static void test_memory__paths_match_archive(void **state)
{
    static const char *const pairs[][2] = {
        { "resnet18.traced.pt", "memory/resnet18.traced.graph.txt" },
        { "lstm.traced.pt", "memory/lstm.traced.graph.txt" },
    };
    opmap_ctx *ctx = *state;
    size_t f, i;
    for (f = 0; f < sizeof(pairs) / sizeof(pairs[0]); f++) {
        char path[1024];
        opmap_model *a, *g;
        opmap_error err;
        insts sa, sg;
        char (*ka)[600], (*kg)[600];
        size_t na, ng, located = 0;
        snprintf(path, sizeof(path), "%s/%s", OPMAP_TS_FIXTURES, pairs[f][0]);
        a = NULL;
        if (opmap_model_open_file(&a, ctx, path, &err) != OPMAP_OK)
            fail_msg("%s: %s", path, err.message);
        g = open_fixture(ctx, pairs[f][1]);
        walk(ctx, a, &sa);
        walk(ctx, g, &sg);
        ka = aten_modules(&sa, &na);
        kg = aten_modules(&sg, &ng);
        assert_int_equal(na, ng);
        for (i = 0; i < na; i++)
            if (strcmp(ka[i], kg[i]) != 0)
                fail_msg("%s: archive '%s', graph text '%s'", pairs[f][1], ka[i], kg[i]);
        /* every ATen instance has the line its `# file:line:col` comment prints */
        for (i = 0; i < sg.n; i++)
            located += strncmp(sg.v[i].op, "aten::", 6) == 0 && !strstr(sg.v[i].key, " :0");
        assert_int_equal(located, ng);
        free(ka);
        free(kg);
        free(sa.v);
        free(sg.v);
        opmap_model_free(a);
        opmap_model_free(g);
    }
}

static void test_memory__traced_locations(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_model *m = open_fixture(ctx, "memory/resnet18.traced.graph.txt");
    insts s;
    size_t i, convs = 0;
    walk(ctx, m, &s);
    for (i = 0; i < s.n; i++) {
        if (strcmp(s.v[i].op, "aten::_convolution") != 0)
            continue;
        convs++;
        /* the comment torch prints for every convolution of a traced resnet */
        if (!strstr(s.v[i].key, "torch/nn/modules/conv.py:459"))
            fail_msg("no source line: %s", s.v[i].key);
    }
    assert_true(convs > 0);
    assert_true(strstr(s.v[0].key, "main/") == s.v[0].key + strlen("prim::GetAttr "));
    free(s.v);
    opmap_model_free(m);
}

/* ---- CRLF and tabs ---- */

/* text with CRLF on every other line and its indentation, ", scope:" and " # " in tabs. */
static char *mixed_whitespace(const char *text, size_t len, size_t *out_len)
{
    char *o = malloc(len * 3 + 1);
    size_t i = 0, k = 0, line = 0;
    int bol = 1;
    assert_non_null(o);
    while (i < len) {
        char ch = text[i];
        if (ch == '\n') {
            if (line++ % 2 == 0)
                o[k++] = '\r';
            o[k++] = '\n';
            bol = 1;
            i++;
            continue;
        }
        if (bol && ch == ' ') {
            o[k++] = (i % 3) ? '\t' : ' ';
            i++;
            continue;
        }
        bol = 0;
        if (strncmp(text + i, ", scope: ", 9) == 0) {
            memcpy(o + k, ",\tscope:\t", 9);
            k += 9;
            i += 9;
        } else if (strncmp(text + i, " # ", 3) == 0) {
            memcpy(o + k, "\t#\t", 3);
            k += 3;
            i += 3;
        } else {
            o[k++] = ch;
            i++;
        }
    }
    o[k] = 0;
    *out_len = k;
    return o;
}

static char *all_crlf(const char *text, size_t len, size_t *out_len)
{
    char *o = malloc(len * 2 + 1);
    size_t i, k = 0;
    assert_non_null(o);
    for (i = 0; i < len; i++) {
        if (text[i] == '\n')
            o[k++] = '\r';
        o[k++] = text[i];
    }
    o[k] = 0;
    *out_len = k;
    return o;
}

static void same_instances(const insts *a, const insts *b, const char *what)
{
    size_t i;
    assert_int_equal(a->n, b->n);
    for (i = 0; i < a->n; i++)
        if (strcmp(a->v[i].key, b->v[i].key) != 0)
            fail_msg("%s: '%s' / '%s'", what, a->v[i].key, b->v[i].key);
}

static void test_whitespace__crlf_and_tabs(void **state)
{
    static const char *const names[] = { "memory/resnet18.traced.graph.txt",
                                         "memory/controlflow.scripted.graph.txt",
                                         "memory/lstm.traced.forward.graph.txt" };
    opmap_ctx *ctx = *state;
    size_t f;
    for (f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
        size_t len, vlen;
        char *text = slurp(names[f], &len), *v;
        opmap_model *m = open_buf(ctx, text, len, names[f]), *mv;
        insts s, sv;
        walk(ctx, m, &s);
        v = all_crlf(text, len, &vlen);
        mv = open_buf(ctx, v, vlen, "crlf");
        walk(ctx, mv, &sv);
        same_instances(&s, &sv, "CRLF");
        free(sv.v);
        free(v);
        opmap_model_free(mv);
        v = mixed_whitespace(text, len, &vlen);
        assert_non_null(strchr(v, '\t'));
        mv = open_buf(ctx, v, vlen, "mixed");
        walk(ctx, mv, &sv);
        same_instances(&s, &sv, "CRLF/LF with tabs");
        free(sv.v);
        free(v);
        opmap_model_free(mv);
        free(s.v);
        free(text);
        opmap_model_free(m);
    }
}

/* ---- graphs printed without inlining ---- */

static void scan_not_inlined(opmap_ctx *ctx, opmap_table *t, const char *name)
{
    size_t len, i, calls, notes = 0, risks = 0;
    char *text = slurp(name, &len);
    opmap_model *m = open_buf(ctx, text, len, name);
    opmap_result *res = NULL;
    opmap_verdict *v = NULL;
    opmap_error err;
    calls = occurrences(text, "= prim::CallMethod") + occurrences(text, "= prim::CallFunction");
    assert_true(calls > 0);
    assert_int_equal(opmap_scan(&res, ctx, m, t, NULL, &err), OPMAP_OK);
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *o = NULL;
        const char *op;
        assert_int_equal(opmap_result_op(res, i, &o), OPMAP_OK);
        op = opmap_op_name(o);
        if (strcmp(op, "CallMethod") == 0 || strcmp(op, "CallFunction") == 0)
            fail_msg("%s: the call %s is reported as an operator", name, op);
    }
    for (i = 0; i < opmap_result_diag_count(res); i++) {
        opmap_diag_info d = { .size = sizeof(d) };
        assert_int_equal(opmap_result_diag(res, i, &d), OPMAP_OK);
        if (strcmp(d.message, "not inlined: print `module.inlined_graph` for its operators") == 0)
            notes++;
    }
    assert_int_equal(notes, calls);
    for (i = 0; i < opmap_result_risk_count(res); i++) {
        opmap_risk_info r = { .size = sizeof(r) };
        char want[64];
        assert_int_equal(opmap_result_risk(res, i, &r), OPMAP_OK);
        snprintf(want, sizeof(want), "graph not inlined: %zu call", calls);
        if (strcmp(r.kind, "not_inlined") == 0) {
            assert_non_null(strstr(r.message, want));
            risks++;
        }
    }
    assert_int_equal(risks, 1);
    /* the gate judges the operators printed: no unmapped one here, so it passes */
    assert_int_equal(opmap_policy_check(&v, ctx, (const opmap_result *const *)&res, 1, NULL,
                                        &err), OPMAP_OK);
    assert_int_equal(opmap_verdict_passed(v), 1);
    opmap_verdict_free(v);
    opmap_result_free(res);
    opmap_model_free(m);
    free(text);
}

static void test_not_inlined__calls_are_structure(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_table *t = NULL;
    opmap_error err;
    opmap_model *m;
    insts s;
    assert_int_equal(opmap_table_load_default(&t, ctx, &err), OPMAP_OK);
    scan_not_inlined(ctx, t, "memory/resnet18.traced.forward.graph.txt");
    scan_not_inlined(ctx, t, "memory/controlflow.scripted.forward.graph.txt");
    scan_not_inlined(ctx, t, "memory/lstm.traced.forward.graph.txt");
    /* each call is at the path of the submodule its prim::GetAttr chain names */
    m = open_fixture(ctx, "memory/controlflow.scripted.forward.graph.txt");
    walk(ctx, m, &s);
    {
        size_t i, at_blocks = 0;
        for (i = 0; i < s.n; i++)
            at_blocks += strcmp(s.v[i].op, "prim::CallMethod") == 0 &&
                         strncmp(s.v[i].module, "main/blocks/", 12) == 0;
        assert_int_equal(at_blocks, 3); /* ModuleList of three */
    }
    free(s.v);
    opmap_model_free(m);
    opmap_table_free(t);
}

/* ---- custom autograd.Functions ---- */

/* torch prints a traced autograd.Function as `^Name[...](scalar args)(inputs)`: read as
 * prim::PythonOp with its inputs and the function's name, whatever the scalar group holds */
static void test_python_op__printed_syntax(void **state)
{
    opmap_ctx *ctx = *state;
    static const char text[] =
        "graph(%x : Float(2, 3), %y : Float(3, 4)):\n"
        "  %z : Float(2, 4) = ^StridedBmm[inplace=0, module=\"m(a)\", Subgraph=<Graph>]()(%x, %y),"
        " scope: __module.attn # m.py:87:0\n"
        "  %w : Float(2, 4) = ^Scale[inplace=0, module=\"m\"](2.5, \"a)b\", [1, (2, 3)])(%z)"
        " # m.py:90:0\n"
        "  return (%w)\n";
    opmap_model *m = open_buf(ctx, text, sizeof(text) - 1, "p.txt");
    insts s;
    size_t i, k;
    walk(ctx, m, &s);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.v[0].op, "prim::PythonOp");
    assert_string_equal(s.v[1].op, "prim::PythonOp");
    assert_string_equal(s.v[0].module, "main/attn");
    assert_non_null(strstr(s.v[1].key, "m.py:90"));
    for (i = k = 0; i < m->ir.main->n_nodes; i++) {
        const ir_node *nd = &m->ir.main->nodes[i];
        const ir_attr *a = ir_node_attr(nd, "name");
        assert_non_null(a);
        assert_int_equal(a->type, IR_ATTR_STRING);
        assert_string_equal(a->s.data, k ? "Scale" : "StridedBmm");
        assert_int_equal(nd->n_inputs, k ? 1 : 2);
        k++;
    }
    assert_int_equal(k, 2);
    free(s.v);
    opmap_model_free(m);
    /* a scalar group that never closes is an error at the group, not a crash */
    {
        static const char bad[] = "graph(%x : Tensor):\n"
                                  "  %z : Tensor = ^F[inplace=0](1, (2)\n"
                                  "  return (%z)\n";
        opmap_error err;
        opmap_model *b = NULL;
        assert_int_equal(opmap_model_open_memory(&b, ctx, bad, sizeof(bad) - 1, "b.txt", &err),
                         OPMAP_EFORMAT);
        assert_int_equal(err.line, 2);
        assert_non_null(strstr(err.message, "scalar argument list not closed"));
    }
}

/* ---- limits ---- */

static void expect_limit(const char *text, const char *want)
{
    opmap_ctx *ctx;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_error err;
    opmap_model *m = NULL;
    o.limits.max_depth = 8;
    o.limits.max_string_bytes = 64;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_OK);
    assert_int_equal(opmap_model_open_memory(&m, ctx, text, strlen(text), "g.txt", &err),
                     OPMAP_ELIMIT);
    assert_null(m);
    {
        char got[1200];
        snprintf(got, sizeof(got), "%s:%u:%u: %s", err.source, (unsigned)err.line,
                 (unsigned)err.column, err.message);
        if (strcmp(got, want) != 0)
            fail_msg("'%s', not '%s'", got, want);
    }
    opmap_ctx_free(ctx);
}

static void test_limits__scopes_and_chains(void **state)
{
    char text[4096], *p = text;
    int d;
    (void)state;
    /* a scope naming a path over max_string_bytes: the error is at the scope */
    expect_limit("graph(%x : Tensor):\n"
                 "  %y : Tensor = aten::relu(%x), scope: __module.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa # f.py:1:0\n"
                 "  return (%y)\n",
                 "g.txt:2:40: a name of 76 bytes, over max_string_bytes (64)");
    /* submodules reached through more prim::GetAttr links than max_depth */
    p += sprintf(p, "graph(%%self : __torch__.M, %%x : Tensor):\n");
    for (d = 0; d < 12; d++)
        p += sprintf(p, "  %%m%d : __torch__.M = prim::GetAttr[name=\"a\"](%%%s%.0d)\n", d + 1,
                     d ? "m" : "self", d);
    sprintf(p, "  return (%%x)\n");
    expect_limit(text, "g.txt:10:1: prim::GetAttr chain of submodules deeper than max_depth (8)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scope__spellings),
        cmocka_unit_test(test_memory__paths_match_archive),
        cmocka_unit_test(test_memory__traced_locations),
        cmocka_unit_test(test_whitespace__crlf_and_tabs),
        cmocka_unit_test(test_not_inlined__calls_are_structure),
        cmocka_unit_test(test_python_op__printed_syntax),
        cmocka_unit_test(test_limits__scopes_and_chains),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
