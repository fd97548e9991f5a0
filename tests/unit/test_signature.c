/*
 * tests/unit/test_signature.c - instance signatures (src/signature/): ATen calls from a
 * printed graph (shapes, constants, None, bools, runtime values), ONNX nodes (omitted
 * inputs, small constants, symbolic dimensions, attributes in name order at float
 * precision), names and strings escaped to ASCII, long texts cut with a hash of the whole,
 * and numbers in their shortest spelling.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "../../src/core/context.h"
#include "../../src/readers/model.h"
#include "../../src/signature/signature.h"
#include "../../src/walker/walker.h"
#include "../support/onnx_build.h"

/* Every instance's signature text, one per line, in walk order. */
typedef struct texts {
    char buf[16384];
    size_t len;
} texts;

static int visit(void *p, const om_visit *v)
{
    texts *t = p;
    om_sig s;
    char one[OM_SIG_TEXT_MAX];
    om_sig_build(&s, v->node, v->node->domain, v->node->op, v->opset);
    om_sig_text(&s, one, sizeof(one));
    t->len += (size_t)snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s\n", one);
    return 0;
}

static int note(void *p, const char *m, const char *w)
{
    (void)p, (void)m, (void)w;
    return 0;
}

static void signatures(const void *data, size_t size, const char *name, texts *t)
{
    opmap_ctx *ctx;
    opmap_model *m;
    opmap_error err;
    om_mem mem;
    assert_int_equal(opmap_ctx_new(&ctx, NULL, &err), OPMAP_OK);
    if (opmap_model_open_memory(&m, ctx, data, size, name, &err) != OPMAP_OK)
        fail_msg("%s", err.message);
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    memset(t, 0, sizeof(*t));
    assert_int_equal(om_walk(&m->ir, &ctx->limits, &mem, visit, note, t, &err), OPMAP_OK);
    opmap_model_free(m);
    opmap_ctx_free(ctx);
}

static const char graph[] =
    "graph(%x : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu),\n"
    "      %w : Float(64, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %2 : int[] = prim::Constant[value=[64]]()\n"
    "  %3 : float = prim::Constant[value=1.0000000000000001e-05]()\n"
    "  %4 : bool = prim::Constant[value=1]()\n"
    "  %5 : NoneType = prim::Constant()\n"
    "  %6 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::layer_norm(%x, %2, %w, %5, %3, %4)\n"
    "  %7 : int = prim::Constant[value=1]()\n"
    "  %8 : Float(2, 16, 64, strides=[1024, 64, 1], requires_grad=0, device=cpu) = "
    "aten::add(%6, %w, %7)\n"
    "  %9 : int = aten::size(%x, %7)\n"
    "  %10 : Tensor = aten::mul(%8, %9)\n"
    "  return (%10)\n";

static void test_signature__aten_calls_of_a_printed_graph(void **state)
{
    texts t;
    (void)state;
    signatures(graph, sizeof(graph) - 1, "g.txt", &t);
    /* a list, a float at double precision, None and a bool, the tensors' shapes */
    assert_non_null(strstr(t.buf, "aten::layer_norm(float32[2,16,64], [64], float32[64], None, "
                                  "1e-05, True)\n"));
    /* an int stays an int, a tensor of the same shape */
    assert_non_null(strstr(t.buf, "aten::add(float32[2,16,64], float32[64], 1)\n"));
    /* a value computed at run time (an int from aten::size) says only what is known */
    assert_non_null(strstr(t.buf, "aten::mul(float32[2,16,64], ?)\n"));
}

/* Resize(x, roi omitted, scales constant) with attributes given out of name order. */
static const uint8_t *resize_model(mb *b, size_t *len, const char *mode)
{
    Onnx__GraphProto *g = mb_graph(b, "g");
    Onnx__ModelProto *m = mb_model(b, g, 8);
    Onnx__NodeProto *n;
    Onnx__TensorProto *scales;
    static const int64_t four[] = { 4 }, dims[] = { 1, 3, -1, 20 };
    static const char *const params[] = { NULL, NULL, "height", NULL };
    static const char *const ins[] = { "x", "", "scales", NULL }, *const outs[] = { "y", NULL };
    float sv[4] = { 1.0f, 1.0f, 2.0f, 2.0f };
    mb_opset(b, m, "", 13);
    mb_input(b, g, "x", 1, dims, params, 4);
    scales = mb_tensor_raw(b, "scales", four, 1, 16);
    memcpy(scales->raw_data.data, sv, sizeof(sv));
    mb_initializer(b, g, scales);
    n = mb_node(b, g, "Resize", NULL, "resize", ins, outs);
    mb_attr_string(b, n, "mode", mode);
    mb_attr_string(b, n, "coordinate_transformation_mode", "asymmetric");
    mb_attr_float(b, n, "cubic_coeff_a", -0.75f);
    mb_attr_int(b, n, "exclude_outside", 0);
    return mb_pack(b, m, len);
}

static void test_signature__onnx_node(void **state)
{
    mb b;
    size_t len;
    const uint8_t *buf;
    texts t;
    (void)state;
    mb_init(&b);
    buf = resize_model(&b, &len, "cubic");
    signatures(buf, len, "r.onnx", &t);
    assert_string_equal(t.buf,
                        "ai.onnx::Resize@13(float32[1,3,height,20], -, "
                        "float32[4]{1.0,1.0,2.0,2.0}){coordinate_transformation_mode="
                        "'asymmetric', cubic_coeff_a=-0.75, exclude_outside=0, mode='cubic'}\n");
    mb_free(&b);
}

static void test_signature__strings_and_names_are_ascii(void **state)
{
    mb b;
    size_t len;
    const uint8_t *buf;
    texts t;
    (void)state;
    mb_init(&b);
    buf = resize_model(&b, &len, "it's\n\xe4\\");
    signatures(buf, len, "r.onnx", &t);
    assert_non_null(strstr(t.buf, "mode='it\\'s\\x0a\\xe4\\\\'}"));
    mb_free(&b);
}

static void test_signature__long_text_ends_in_a_hash(void **state)
{
    om_sig s;
    ir_node n;
    ir_attr a;
    int64_t ints[400];
    char one[256], two[256], full[OM_SIG_TEXT_MAX];
    size_t i, k;
    (void)state;
    memset(&n, 0, sizeof(n));
    memset(&a, 0, sizeof(a));
    for (i = 0; i < 400; i++)
        ints[i] = (int64_t)i;
    a.type = IR_ATTR_INTS;
    a.ints = ints;
    a.n_ints = 400;
    n.args = &a;
    n.n_args = 1;
    om_sig_build(&s, &n, "aten", "x", 0);
    k = om_sig_text(&s, one, sizeof(one));
    assert_int_equal(k, strlen(one));
    assert_int_equal(k, sizeof(one) - 1);
    assert_non_null(strstr(one, "...#"));
    assert_int_equal(om_sig_text(&s, two, sizeof(two)), k);
    assert_string_equal(one, two);
    ints[399] = 7; /* past the cut: the hash still tells them apart */
    om_sig_text(&s, two, sizeof(two));
    assert_string_not_equal(one, two);
    assert_memory_equal(one, two, sizeof(one) - 1 - 20);
    assert_true(om_sig_text(&s, full, sizeof(full)) < sizeof(full) - 1);
    assert_null(strstr(full, "...#"));
}

static void test_signature__numbers(void **state)
{
    char b[48];
    (void)state;
    om_sig_float(1e-5, 0, b, sizeof(b));
    assert_string_equal(b, "1e-05");
    om_sig_float((double)1e-5f, 1, b, sizeof(b)); /* a float attribute, as stored */
    assert_string_equal(b, "1e-05");
    om_sig_float((double)1e-5f, 0, b, sizeof(b)); /* ... which is not 1e-05 as a double */
    assert_string_not_equal(b, "1e-05");
    om_sig_float(1.0, 0, b, sizeof(b));
    assert_string_equal(b, "1.0");
    om_sig_float(-0.0, 0, b, sizeof(b));
    assert_string_equal(b, "-0.0");
    om_sig_float(0.1, 0, b, sizeof(b));
    assert_string_equal(b, "0.1");
    om_sig_float(1.0 / 0.0, 0, b, sizeof(b));
    assert_string_equal(b, "inf");
    om_sig_float(-1.0 / 0.0, 1, b, sizeof(b));
    assert_string_equal(b, "-inf");
    om_sig_float(0.0 / 0.0, 0, b, sizeof(b));
    assert_string_equal(b, "nan");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signature__aten_calls_of_a_printed_graph),
        cmocka_unit_test(test_signature__onnx_node),
        cmocka_unit_test(test_signature__strings_and_names_are_ascii),
        cmocka_unit_test(test_signature__long_text_ends_in_a_hash),
        cmocka_unit_test(test_signature__numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
