/*
 * tests/unit/test_onnx_reader.c - the ONNX reader and the walker over what it reads:
 * opset resolution per domain, subgraphs, local functions, external data, payloads
 * never copied, malformed and hostile bytes.
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
#include "../../src/walker/walker.h"
#include "../support/onnx_build.h"

/* ---- helpers ---- */

typedef struct seen {
    char op[64], domain[64], path[256];
    int64_t opset;
} seen;

typedef struct visits {
    seen v[256];
    size_t n;
    char note[256];
} visits;

static int record(void *payload, const om_visit *v)
{
    visits *vs = payload;
    seen *s;
    if (vs->n >= 256)
        return OPMAP_ELIMIT;
    s = &vs->v[vs->n++];
    snprintf(s->op, sizeof(s->op), "%s", v->node->op);
    snprintf(s->domain, sizeof(s->domain), "%s", v->node->domain);
    snprintf(s->path, sizeof(s->path), "%s", v->path);
    s->opset = v->opset;
    return OPMAP_OK;
}

static int note(void *payload, const char *message, const char *path)
{
    visits *vs = payload;
    snprintf(vs->note, sizeof(vs->note), "%s @ %s", message, path);
    return OPMAP_OK;
}

static const seen *find(const visits *vs, const char *op)
{
    size_t i;
    for (i = 0; i < vs->n; i++)
        if (strcmp(vs->v[i].op, op) == 0)
            return &vs->v[i];
    return NULL;
}

static opmap_model *open_bytes(opmap_ctx *ctx, const uint8_t *buf, size_t len, opmap_error *err)
{
    opmap_model *m = NULL;
    int rc = opmap_model_open_memory(&m, ctx, buf, len, "test.onnx", err);
    return rc == OPMAP_OK ? m : NULL;
}

static void walk_model(opmap_ctx *ctx, opmap_model *m, visits *vs)
{
    opmap_error err;
    om_mem mem;
    memset(vs, 0, sizeof(*vs));
    om_mem_init(&mem, NULL, 1 << 20);
    assert_int_equal(om_walk(&m->ir, opmap_ctx_limits(ctx), &mem, record, note, vs, &err),
                     OPMAP_OK);
    assert_int_equal(mem.used, 0); /* the walker frees what it used */
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

/* ---- opsets ---- */

static void test_reader__opset_per_domain(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    visits vs;
    opmap_error err;

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Relu", "", NULL, NULL, NULL);
    mb_node(&b, g, "Conv", "ai.onnx", NULL, NULL, NULL);
    mb_node(&b, g, "TreeEnsembleClassifier", "ai.onnx.ml", NULL, NULL, NULL);
    mb_node(&b, g, "FusedGemm", "com.microsoft", NULL, NULL, NULL);
    mb_node(&b, g, "MyOp", "my.custom", NULL, NULL, NULL);
    mb_node(&b, g, "Orphan", "not.imported", NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "my.custom", 7);   /* order must not matter (msit's opset_import[0] bug) */
    mb_opset(&b, m, "", 13);
    mb_opset(&b, m, "ai.onnx.ml", 3);
    mb_opset(&b, m, "com.microsoft", 1);
    buf = mb_pack(&b, m, &len);

    assert_non_null(model = open_bytes(ctx, buf, len, &err));
    walk_model(ctx, model, &vs);
    assert_int_equal(vs.n, 6);
    assert_string_equal(find(&vs, "Relu")->domain, "ai.onnx");  /* "" is ai.onnx */
    assert_int_equal(find(&vs, "Relu")->opset, 13);
    assert_int_equal(find(&vs, "Conv")->opset, 13);              /* "ai.onnx" is the same */
    assert_int_equal(find(&vs, "TreeEnsembleClassifier")->opset, 3);
    assert_int_equal(find(&vs, "FusedGemm")->opset, 1);
    assert_int_equal(find(&vs, "MyOp")->opset, 7);
    assert_int_equal(find(&vs, "Orphan")->opset, 0);
    opmap_model_free(model);
    mb_free(&b);
}

static void test_reader__old_ir_without_imports_means_opset_1(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    visits vs;

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
    buf = mb_pack(&b, mb_model(&b, g, 2), &len);
    assert_non_null(model = open_bytes(ctx, buf, len, NULL));
    walk_model(ctx, model, &vs);
    assert_int_equal(vs.v[0].opset, 1);
    opmap_model_free(model);
    mb_free(&b);
}

/* ---- subgraphs ---- */

static void test_reader__nested_subgraphs_are_walked_with_paths(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g, *then_g, *else_g, *body;
    Onnx__NodeProto *iff, *loop;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    visits vs;

    mb_init(&b);
    body = mb_graph(&b, "body");
    mb_node(&b, body, "Add", NULL, "add_in_loop", NULL, NULL);
    then_g = mb_graph(&b, "then");
    loop = mb_node(&b, then_g, "Loop", NULL, NULL, NULL, NULL);
    mb_attr_graph(&b, loop, "body", body);
    else_g = mb_graph(&b, "else");
    mb_node(&b, else_g, "Identity", NULL, NULL, NULL, NULL);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
    iff = mb_node(&b, g, "If", NULL, "If_3", NULL, NULL);
    mb_attr_graph(&b, iff, "then_branch", then_g);
    mb_attr_graph(&b, iff, "else_branch", else_g);
    mb_node(&b, g, "Sigmoid", NULL, NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 16);
    buf = mb_pack(&b, m, &len);

    assert_non_null(model = open_bytes(ctx, buf, len, NULL));
    walk_model(ctx, model, &vs);
    assert_int_equal(vs.n, 6);
    /* depth-first, a node before its subgraphs, then_branch before else_branch */
    assert_string_equal(vs.v[0].path, "main/Relu_0");
    assert_string_equal(vs.v[1].path, "main/If_3");
    assert_string_equal(vs.v[2].path, "main/If_3/then_branch/Loop_0");
    assert_string_equal(vs.v[3].path, "main/If_3/then_branch/Loop_0/body/add_in_loop");
    assert_string_equal(vs.v[4].path, "main/If_3/else_branch/Identity_0");
    assert_string_equal(vs.v[5].path, "main/Sigmoid_2");
    assert_int_equal(vs.v[3].opset, 16); /* subgraphs use the model's imports */
    assert_int_equal(model->ir.stats.graphs, 4);
    opmap_model_free(model);
    mb_free(&b);
}

static void test_reader__nesting_over_max_depth_is_an_error(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g, *inner;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model = NULL;
    opmap_error err;
    int i;

    mb_init(&b);
    inner = mb_graph(&b, "leaf");
    mb_node(&b, inner, "Relu", NULL, NULL, NULL, NULL);
    for (i = 0; i < 70; i++) { /* default max_depth is 64 */
        Onnx__GraphProto *outer = mb_graph(&b, "g");
        Onnx__NodeProto *n = mb_node(&b, outer, "If", NULL, NULL, NULL, NULL);
        mb_attr_graph(&b, n, "then_branch", inner);
        inner = outer;
    }
    g = inner;
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 16);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, ctx, buf, len, "deep.onnx", &err),
                     OPMAP_ELIMIT);
    assert_null(model);
    assert_non_null(strstr(err.message, "max_depth"));
    assert_string_equal(err.source, "deep.onnx");
    assert_true(err.offset != OPMAP_NO_OFFSET);
    mb_free(&b);
}

/* ---- local functions ---- */

static void test_reader__local_function_calls_are_expanded(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    Onnx__FunctionProto *gelu, *outer;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    visits vs;
    size_t i, erf = 0;

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "MyGelu", "my.fn", "gelu_a", NULL, NULL);
    mb_node(&b, g, "Outer", "my.fn", "outer_b", NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "my.fn", 1);
    gelu = mb_function(&b, m, "my.fn", "MyGelu");
    mb_fopset(&b, gelu, "", 13); /* the function's own import wins inside its body */
    mb_fnode(&b, gelu, "Erf", "");
    mb_fnode(&b, gelu, "Mul", "");
    outer = mb_function(&b, m, "my.fn", "Outer");
    mb_fopset(&b, outer, "my.fn", 1);
    mb_fopset(&b, outer, "", 15);
    mb_fnode(&b, outer, "MyGelu", "my.fn"); /* a function calling a function */
    mb_fnode(&b, outer, "Outer", "my.fn");  /* and itself: not expanded, reported */
    buf = mb_pack(&b, m, &len);

    assert_non_null(model = open_bytes(ctx, buf, len, NULL));
    assert_int_equal(model->ir.stats.functions, 2);
    walk_model(ctx, model, &vs);
    /* the call nodes are replaced by the bodies' operators */
    assert_null(find(&vs, "MyGelu"));
    assert_null(find(&vs, "Outer"));
    assert_int_equal(vs.n, 4);
    for (i = 0; i < vs.n; i++)
        if (strcmp(vs.v[i].op, "Erf") == 0)
            erf++;
    assert_int_equal(erf, 2);
    assert_string_equal(vs.v[0].path, "main/gelu_a/Erf_0");
    assert_int_equal(vs.v[0].opset, 13);
    assert_string_equal(vs.v[2].path, "main/outer_b/MyGelu_0/Erf_0");
    assert_non_null(strstr(vs.note, "recursive"));
    assert_non_null(strstr(vs.note, "main/outer_b/Outer_1"));
    opmap_model_free(model);
    mb_free(&b);
}

/* ---- initializers and external data ---- */

static void test_reader__external_data_is_recorded_not_opened(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_model_stats st = { .size = sizeof(st) };
    int64_t dims[2] = { 4, 4 };

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "MatMul", NULL, NULL, NULL, NULL);
    mb_initializer(&b, g, mb_tensor_external(&b, "w1", "weights.bin", "0", "4096"));
    mb_initializer(&b, g, mb_tensor_external(&b, "w2", "does/not/exist.bin", "4096", NULL));
    mb_initializer(&b, g, mb_tensor_raw(&b, "b", dims, 2, 64));
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    buf = mb_pack(&b, m, &len);

    assert_non_null(model = open_bytes(ctx, buf, len, NULL));
    assert_int_equal(opmap_model_stats_get(model, &st), OPMAP_OK);
    assert_int_equal(st.initializers, 3);
    assert_int_equal(st.external_tensors, 2);
    assert_int_equal(st.weight_bytes, 4096 + 64);
    assert_int_equal(model->ir.n_external, 2);
    assert_string_equal(model->ir.external[0].ext_location, "weights.bin");
    assert_int_equal(model->ir.external[0].ext_length, 4096);
    assert_true(model->ir.external[0].has_ext_length);
    assert_string_equal(model->ir.external[1].ext_location, "does/not/exist.bin");
    assert_int_equal(model->ir.external[1].ext_offset, 4096);
    assert_false(model->ir.external[1].has_ext_length);
    assert_int_equal(model->ir.main->inits[2].payload_bytes, 64);
    assert_int_equal(model->ir.main->inits[2].dims[1], 4);
    opmap_model_free(model);
    mb_free(&b);
}

static void test_reader__bad_external_offset_is_a_format_error(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g;
    const uint8_t *buf;
    size_t len;
    opmap_model *model = NULL;
    opmap_error err;

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_initializer(&b, g, mb_tensor_external(&b, "w", "w.bin", "-12", "8"));
    buf = mb_pack(&b, mb_model(&b, g, 8), &len);
    assert_int_equal(opmap_model_open_memory(&model, ctx, buf, len, "x.onnx", &err),
                     OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "offset '-12'"));
    mb_free(&b);
}

/* Counting allocator: how much heap does reading take? */
typedef struct counting {
    size_t live, peak;
} counting;

static void *c_malloc(void *o, size_t n)
{
    counting *c = o;
    size_t *p = malloc(n + sizeof(size_t));
    if (!p)
        return NULL;
    *p = n;
    c->live += n;
    if (c->live > c->peak)
        c->peak = c->live;
    return p + 1;
}

static void *c_realloc(void *o, void *ptr, size_t n)
{
    counting *c = o;
    size_t *p = ptr ? (size_t *)ptr - 1 : NULL, old = p ? *p : 0, *q;
    q = realloc(p, n + sizeof(size_t));
    if (!q)
        return NULL;
    *q = n;
    c->live = c->live - old + n;
    if (c->live > c->peak)
        c->peak = c->live;
    return q + 1;
}

static void c_free(void *o, void *ptr)
{
    counting *c = o;
    size_t *p;
    if (!ptr)
        return;
    p = (size_t *)ptr - 1;
    c->live -= *p;
    free(p);
}

static void test_reader__weight_payloads_are_never_copied(void **state)
{
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    Onnx__NodeProto *k;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_ctx *ctx;
    opmap_ctx_options opts = OPMAP_CTX_OPTIONS_INIT;
    counting cnt = { 0, 0 };
    int64_t dims[1] = { 4 << 20 };
    (void)state;

    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "MatMul", NULL, NULL, NULL, NULL);
    mb_initializer(&b, g, mb_tensor_raw(&b, "w", dims, 1, 16u << 20));   /* 16 MiB */
    k = mb_node(&b, g, "Constant", NULL, NULL, NULL, NULL);
    mb_attr_tensor(&b, k, "value", mb_tensor_raw(&b, "c", dims, 1, 8u << 20)); /* 8 MiB */
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    buf = mb_pack(&b, m, &len);
    assert_true(len > 24u << 20);

    opts.allocator.malloc_fn = c_malloc;
    opts.allocator.realloc_fn = c_realloc;
    opts.allocator.free_fn = c_free;
    opts.allocator.opaque = &cnt;
    assert_int_equal(opmap_ctx_new(&ctx, &opts, NULL), OPMAP_OK);
    assert_non_null(model = open_bytes(ctx, buf, len, NULL));
    assert_int_equal(model->ir.stats.weight_bytes, 24u << 20);
    assert_true(cnt.peak < 256 * 1024); /* a 24 MiB model read in well under 1 MiB */
    opmap_model_free(model);
    opmap_ctx_free(ctx);
    assert_int_equal(cnt.live, 0);
    mb_free(&b);
}

/* ---- malformed and hostile bytes ---- */

static void test_reader__every_truncation_fails_cleanly(void **state)
{
    opmap_ctx *ctx = *state;
    mb b;
    Onnx__GraphProto *g, *then_g;
    Onnx__NodeProto *n;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len, cut;
    int64_t dims[2] = { 2, 3 };

    mb_init(&b);
    then_g = mb_graph(&b, "t");
    mb_node(&b, then_g, "Relu", NULL, "r", NULL, NULL);
    g = mb_graph(&b, "g");
    n = mb_node(&b, g, "If", NULL, "if", NULL, NULL);
    mb_attr_graph(&b, n, "then_branch", then_g);
    mb_attr_int(&b, n, "axis", -1);
    mb_attr_string(&b, n, "mode", "nearest");
    mb_initializer(&b, g, mb_tensor_raw(&b, "w", dims, 2, 24));
    mb_input(&b, g, "x", 1, (int64_t[]){ -1, 3 }, (const char *const[]){ "batch", NULL }, 2);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    buf = mb_pack(&b, m, &len);

    for (cut = 0; cut < len; cut++) {
        opmap_model *model = NULL;
        opmap_error err;
        int rc = opmap_model_open_memory(&model, ctx, buf, cut, "cut.onnx", &err);
        if (rc == OPMAP_OK) {
            /* a cut at a field boundary of ModelProto can still be a valid model */
            opmap_model_free(model);
            continue;
        }
        assert_int_equal(rc, OPMAP_EFORMAT);
        assert_string_equal(err.source, "cut.onnx");
        assert_true(err.message[0] != '\0');
    }
    mb_free(&b);
}

static void test_reader__length_past_the_end_names_the_offset(void **state)
{
    opmap_ctx *ctx = *state;
    /* ModelProto.graph (field 7, LEN) claiming 2^62 bytes, then 3 bytes */
    static const uint8_t bytes[] = { 0x08, 0x07, 0x3a, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x40, 0x01, 0x02, 0x03 };
    opmap_model *model = NULL;
    opmap_error err;
    char text[1200];
    assert_int_equal(opmap_model_open_memory(&model, ctx, bytes, sizeof(bytes), "huge.onnx", &err),
                     OPMAP_EFORMAT);
    assert_int_equal(err.offset, 2);
    opmap_error_format(&err, text, sizeof(text));
    assert_non_null(strstr(text, "huge.onnx: offset 2: "));
    assert_non_null(strstr(text, "past the end"));
}

static void test_reader__not_a_model(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_model *model = NULL;
    opmap_error err;
    static const char json[] = "{\"hello\": 1}";
    static const uint8_t no_graph[] = { 0x08, 0x07 }; /* ir_version only */
    uint8_t random[4096];
    size_t i;
    uint32_t x = 12345;

    assert_int_equal(opmap_model_open_memory(&model, ctx, "", 0, "empty.onnx", &err),
                     OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "empty"));
    assert_int_equal(opmap_model_open_memory(&model, ctx, json, sizeof(json) - 1, "j", &err),
                     OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "not an ONNX model"));
    assert_int_equal(opmap_model_open_memory(&model, ctx, no_graph, 2, "ng", &err),
                     OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "no graph"));
    for (i = 0; i < sizeof(random); i++) {
        x = x * 1103515245u + 12345u;
        random[i] = (uint8_t)(x >> 16);
    }
    assert_int_not_equal(opmap_model_open_memory(&model, ctx, random, sizeof(random), "r", &err),
                         OPMAP_OK);
    assert_null(model);
}

static void test_reader__zip_goes_to_the_torchscript_reader(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_model *model = NULL;
    opmap_error err;
    static const uint8_t zip[] = { 'P', 'K', 3, 4, 0, 0, 0, 0 };
    assert_int_not_equal(opmap_model_open_memory(&model, ctx, zip, sizeof(zip), "m.pt", &err),
                         OPMAP_OK);
    assert_null(model);
    assert_null(strstr(err.message, "protobuf")); /* not mistaken for a broken ONNX file */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader__opset_per_domain),
        cmocka_unit_test(test_reader__old_ir_without_imports_means_opset_1),
        cmocka_unit_test(test_reader__nested_subgraphs_are_walked_with_paths),
        cmocka_unit_test(test_reader__nesting_over_max_depth_is_an_error),
        cmocka_unit_test(test_reader__local_function_calls_are_expanded),
        cmocka_unit_test(test_reader__external_data_is_recorded_not_opened),
        cmocka_unit_test(test_reader__bad_external_offset_is_a_format_error),
        cmocka_unit_test(test_reader__weight_payloads_are_never_copied),
        cmocka_unit_test(test_reader__every_truncation_fails_cleanly),
        cmocka_unit_test(test_reader__length_past_the_end_names_the_offset),
        cmocka_unit_test(test_reader__not_a_model),
        cmocka_unit_test(test_reader__zip_goes_to_the_torchscript_reader),
    };
    return cmocka_run_group_tests_name("onnx_reader", tests, setup, teardown);
}
