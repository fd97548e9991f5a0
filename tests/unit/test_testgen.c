/*
 * tests/unit/test_testgen.c - the per-operator tests opmap_testgen_write() writes: one case
 * per distinct signature of the operators chosen (flagged by default, named by ops, all),
 * each with its arguments in the harness's terms, the instances and models it stands for,
 * and why it skips when the model does not hold what it needs; hostile names never leave
 * their Python string; options and inputs refused; the runner written as it is.
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

#include "../support/onnx_build.h"

/* layer_norm twice alike and once with another eps (partial: two signatures), add (full,
 * not chosen unless named), mul of a runtime int (partial: a case that skips). */
static const char graph[] =
    "graph(%x : Float(2, s0, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu),\n"
    "      %w : Float(64, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %2 : int[] = prim::Constant[value=[64]]()\n"
    "  %3 : float = prim::Constant[value=1.0000000000000001e-05]()\n"
    "  %9 : float = prim::Constant[value=0.001]()\n"
    "  %4 : bool = prim::Constant[value=1]()\n"
    "  %5 : NoneType = prim::Constant()\n"
    "  %6 : Tensor = aten::layer_norm(%x, %2, %w, %5, %3, %4)\n"
    "  %7 : Tensor = aten::layer_norm(%x, %2, %w, %5, %3, %4)\n"
    "  %8 : Tensor = aten::layer_norm(%x, %2, %w, %5, %9, %4)\n"
    "  %10 : int = prim::Constant[value=1]()\n"
    "  %11 : Tensor = aten::add(%x, %w, %10)\n"
    "  %12 : int = aten::size(%x, %10)\n"
    "  %13 : Tensor = aten::mul(%x, %12)\n"
    "  return (%13)\n";

static const char table_yaml[] =
    "schema: 1\n"
    "weights:\n"
    "  partial: {min: 0.5, expected: 0.8, max: 1.0}\n"
    "sources:\n  - {id: s}\n"
    "ops:\n"
    "  - {domain: aten, op: layer_norm, status: partial, sources: [s]}\n"
    "  - {domain: aten, op: mul, status: partial, sources: [s]}\n"
    "  - {domain: aten, op: add, status: full, sources: [s]}\n"
    "  - {domain: aten, op: size, status: full, sources: [s]}\n"
    "  - {domain: prim, op: Constant, status: structural, sources: [s]}\n";

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
} fixture;

static int setup(void **state)
{
    static fixture f;
    if (opmap_ctx_new(&f.ctx, NULL, NULL) ||
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

typedef struct text {
    char *data;
    size_t len;
} text;

static int collect(void *payload, const void *data, size_t size)
{
    text *t = payload;
    char *p = realloc(t->data, t->len + size + 1);
    if (!p)
        return -1;
    memcpy(p + t->len, data, size);
    t->data = p;
    t->len += size;
    p[t->len] = '\0';
    return 0;
}

/* The module for the graph opened under `name`, with options o; returns the status. */
static int module(fixture *f, const char *name, const opmap_testgen_options *o, text *t,
                  opmap_error *err)
{
    opmap_model *m;
    opmap_result *r;
    int rc;
    memset(t, 0, sizeof(*t));
    assert_int_equal(opmap_model_open_memory(&m, f->ctx, graph, sizeof(graph) - 1, name, err),
                     OPMAP_OK);
    assert_int_equal(opmap_scan(&r, f->ctx, m, f->table, NULL, err), OPMAP_OK);
    rc = opmap_testgen_write(f->ctx, (const opmap_model *const *)&m,
                             (const opmap_result *const *)&r, 1, OPMAP_TESTGEN_MODULE, o,
                             collect, t, err);
    opmap_result_free(r);
    opmap_model_free(m);
    return rc;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (; (s = strstr(s, needle)); s += strlen(needle))
        n++;
    return n;
}

static void test_testgen__one_case_per_flagged_signature(void **state)
{
    fixture *f = *state;
    opmap_testgen_options o = OPMAP_TESTGEN_OPTIONS_INIT;
    const char *dims[] = { "s0=16" };
    opmap_error err;
    text t;
    o.dims = dims;
    o.n_dims = 1;
    assert_int_equal(module(f, "g.txt", &o, &t, &err), OPMAP_OK);
    /* layer_norm twice (eps 1e-05 for two instances, 0.001 for one), mul once; add is full */
    assert_int_equal(count(t.data, "\ndef test_"), 3);
    assert_int_equal(count(t.data, "    Case(\""), 3);
    assert_non_null(strstr(t.data, "\"aten::layer_norm(float32[2,s0,64], [64], float32[64], None, "
                                   "1e-05, True)\""));
    assert_non_null(strstr(t.data, "[T(\"float32\", [2, D(\"s0\"), 64]), [64], T(\"float32\", "
                                   "[64]), None, 1e-05, True]"));
    assert_non_null(strstr(t.data, "instances=2"));
    assert_non_null(strstr(t.data, "why=\"partial\""));
    assert_null(strstr(t.data, "aten::add("));
    /* the size of a runtime int is not in the model: that case skips, saying so */
    assert_non_null(strstr(t.data, "skip=\"argument 1: the model states neither its dtype nor "
                                   "its shape"));
    assert_non_null(strstr(t.data, "DIMS = {\"s0\": 16}\nDEFAULT_DIM = 2\n"));
    /* the harness and its cited source come with every module */
    assert_non_null(strstr(t.data, "def run_case(case):"));
    assert_non_null(strstr(t.data, "99c2e0f990a17d328f487062acc9c490f7f6ff26"));
    free(t.data);

    o.ops = "aten::add"; /* named: tested too */
    o.default_dim = 5;
    assert_int_equal(module(f, "g.txt", &o, &t, &err), OPMAP_OK);
    assert_int_equal(count(t.data, "\ndef test_"), 4);
    assert_non_null(strstr(t.data, "why=\"full; named by --ops\""));
    assert_non_null(strstr(t.data, "DEFAULT_DIM = 5\n"));
    free(t.data);
}

/* A model name with a newline and quotes stays inside its string, in the comments too. */
static void test_testgen__hostile_names_stay_in_their_strings(void **state)
{
    fixture *f = *state;
    opmap_error err;
    text t;
    assert_int_equal(module(f, "a\nos.system('x')\"\\\xe4.txt", NULL, &t, &err), OPMAP_OK);
    assert_non_null(strstr(t.data, "# \"a\\nos.system('x')\\\"\\\\\\ufffd.txt\"\n"));
    assert_null(strstr(t.data, "\nos.system")); /* no line of the module starts with it */
    free(t.data);
}

static void test_testgen__refused(void **state)
{
    fixture *f = *state;
    opmap_testgen_options o = OPMAP_TESTGEN_OPTIONS_INIT;
    const char *bad[] = { "s0" }, *zero[] = { "s0=0" };
    opmap_error err;
    text t;
    o.dims = bad;
    o.n_dims = 1;
    assert_int_equal(module(f, "g.txt", &o, &t, &err), OPMAP_EINVAL);
    assert_non_null(strstr(err.message, "not NAME=SIZE"));
    free(t.data);
    o.dims = zero;
    assert_int_equal(module(f, "g.txt", &o, &t, &err), OPMAP_EINVAL);
    free(t.data);
    o.n_dims = 0;
    o.max_tests = 2;
    assert_int_equal(module(f, "g.txt", &o, &t, &err), OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_tests"));
    free(t.data);
    o.max_tests = 0;
    o.version = 99;
    assert_int_equal(module(f, "g.txt", &o, &t, &err), OPMAP_EINVAL);
    free(t.data);
    assert_int_equal(opmap_testgen_write(f->ctx, NULL, NULL, 0, OPMAP_TESTGEN_MODULE, NULL, NULL,
                                         NULL, &err), OPMAP_EINVAL);
}

/* A result must be the scan of the model it comes with. */
static void test_testgen__result_of_another_model(void **state)
{
    fixture *f = *state;
    opmap_model *a, *b;
    opmap_result *r;
    opmap_error err;
    text t = { NULL, 0 };
    assert_int_equal(opmap_model_open_memory(&a, f->ctx, graph, sizeof(graph) - 1, "a.txt", &err),
                     OPMAP_OK);
    assert_int_equal(opmap_model_open_memory(&b, f->ctx, graph, sizeof(graph) - 1, "b.txt", &err),
                     OPMAP_OK);
    assert_int_equal(opmap_scan(&r, f->ctx, b, f->table, NULL, &err), OPMAP_OK);
    assert_int_equal(opmap_testgen_write(f->ctx, (const opmap_model *const *)&a,
                                         (const opmap_result *const *)&r, 1,
                                         OPMAP_TESTGEN_MODULE, NULL, collect, &t, &err),
                     OPMAP_EINVAL);
    assert_non_null(strstr(err.message, "another model"));
    assert_int_equal(opmap_testgen_write(f->ctx, (const opmap_model *const *)&a,
                                         (const opmap_result *const *)&r, 1,
                                         OPMAP_TESTGEN_RUNNER, NULL, collect, &t, &err),
                     OPMAP_EINVAL);
    assert_int_equal(opmap_testgen_write(f->ctx, NULL, NULL, 0, OPMAP_TESTGEN_RUNNER, NULL,
                                         collect, &t, &err), OPMAP_OK);
    assert_non_null(strstr(t.data, "SCHEMA = \"opmap-results/1\""));
    free(t.data);
    opmap_result_free(r);
    opmap_model_free(a);
    opmap_model_free(b);
}

/* A rank opmap reads off a Reshape's target length (ir/shapes.c: rank only, no dimension)
 * makes a rank rule fire, and testgen writes that case as one whose shape the model does not
 * state: it skips, and no size is made up for it. */
static void test_testgen__rank_only_is_no_shape(void **state)
{
    static const char onnx_table[] =
        "schema: 1\nsources:\n  - {id: s}\nops:\n"
        "  - domain: ai.onnx\n    op: Resize\n    since: 11\n    status: full\n    sources: [s]\n"
        "    constraints:\n"
        "      - {when: [{attr: mode, default: nearest, eq: nearest}, {input: 0, rank: {gt: 4}}],\n"
        "         then: rewrite, message: nearest over rank 4}\n"
        "  - {domain: ai.onnx, op: Shape, since: 15, status: full, sources: [s]}\n"
        "  - {domain: ai.onnx, op: Gather, since: 13, status: full, sources: [s]}\n"
        "  - {domain: ai.onnx, op: Unsqueeze, since: 13, status: full, sources: [s]}\n"
        "  - {domain: ai.onnx, op: Concat, since: 13, status: full, sources: [s]}\n"
        "  - {domain: ai.onnx, op: Reshape, since: 14, status: full, sources: [s]}\n";
    fixture *f = *state;
    opmap_table *table;
    opmap_model *m;
    opmap_result *r;
    opmap_error err;
    Onnx__GraphProto *g;
    Onnx__ModelProto *model;
    Onnx__NodeProto *n;
    Onnx__TensorProto *t;
    const uint8_t *buf;
    const char *c;
    size_t len;
    text out;
    mb b;
    int64_t x_dims[6] = { -1, 1, 3, 8, 6, 6 }, axes0[1] = { 0 }, one[1] = { 1 }, five[1] = { 5 };
    const char *const params[6] = { "N", NULL, NULL, NULL, NULL, NULL };

    assert_int_equal(opmap_table_load_memory(&table, f->ctx, onnx_table, sizeof(onnx_table) - 1,
                                             "t", &err), OPMAP_OK);
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_input(&b, g, "x", 1, x_dims, params, 6);
    mb_initializer(&b, g, mb_tensor_raw(&b, "scales", five, 1, 20));
    t = mb_tensor_raw(&b, "i1", one, 0, 8);
    t->data_type = 7; /* an int64 scalar */
    mb_initializer(&b, g, t);
    mb_node(&b, g, "Shape", NULL, "shape", (const char *const[]){ "x", NULL },
            (const char *const[]){ "s", NULL });
    n = mb_node(&b, g, "Gather", NULL, "gather", (const char *const[]){ "s", "i1", NULL },
                (const char *const[]){ "g1", NULL });
    mb_attr_int(&b, n, "axis", 0);
    n = mb_node(&b, g, "Unsqueeze", NULL, "unsqueeze", (const char *const[]){ "g1", NULL },
                (const char *const[]){ "u1", NULL });
    mb_attr_ints(&b, n, "axes", axes0, 1);
    n = mb_node(&b, g, "Concat", NULL, "target",
                (const char *const[]){ "u1", "u1", "u1", "u1", "u1", NULL },
                (const char *const[]){ "t5", NULL });
    mb_attr_int(&b, n, "axis", 0);
    mb_node(&b, g, "Reshape", NULL, "fold", (const char *const[]){ "x", "t5", NULL },
            (const char *const[]){ "x5", NULL });
    mb_node(&b, g, "Resize", NULL, "temporal", (const char *const[]){ "x5", "", "scales", NULL },
            (const char *const[]){ "y", NULL });
    model = mb_model(&b, g, 8);
    mb_opset(&b, model, "", 17);
    buf = mb_pack(&b, model, &len);
    assert_int_equal(opmap_model_open_memory(&m, f->ctx, buf, len, "r.onnx", &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&r, f->ctx, m, table, NULL, &err), OPMAP_OK);
    memset(&out, 0, sizeof(out));
    assert_int_equal(opmap_testgen_write(f->ctx, (const opmap_model *const *)&m,
                                         (const opmap_result *const *)&r, 1, OPMAP_TESTGEN_MODULE,
                                         NULL, collect, &out, &err), OPMAP_OK);
    /* the rewrite is chosen; its input's shape is not the model's to give */
    assert_int_equal(count(out.data, "\ndef test_"), 1);
    c = strstr(out.data, "    Case(\"");
    assert_non_null(c);
    assert_non_null(strstr(c, "\"onnx\", \"Resize\""));
    assert_non_null(strstr(c, "[T(\"float32\", []), None, T(\"float32\", [5]"));
    assert_null(strstr(c, "D()"));
    assert_non_null(strstr(c, "skip=\"argument 0: the model does not state its shape\""));
    free(out.data);
    opmap_result_free(r);
    opmap_model_free(m);
    opmap_table_free(table);
    mb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_testgen__one_case_per_flagged_signature),
        cmocka_unit_test(test_testgen__hostile_names_stay_in_their_strings),
        cmocka_unit_test(test_testgen__refused),
        cmocka_unit_test(test_testgen__result_of_another_model),
        cmocka_unit_test(test_testgen__rank_only_is_no_shape),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
