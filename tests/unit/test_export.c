/*
 * tests/unit/test_export.c - the torch.export reader: the bounded JSON reader on its own
 * (nesting, strings, numbers, escapes, malformed text), and programs into the IR (targets,
 * overloads, arguments, subgraphs of higher-order ops, module paths, source lines,
 * symbolic dimensions) through om_export_program, and .pt2 zips through the public API.
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

#include "core/mem.h"
#include "ir/ir.h"
#include "readers/export/export_reader.h"
#include "core/json.h"

typedef struct jfix {
    om_mem mem;
    om_arena arena;
    oj_src src;
    opmap_error err;
} jfix;

static void jinit(jfix *f, uint32_t depth, uint64_t max_string)
{
    om_mem_init(&f->mem, NULL, 1u << 26);
    om_arena_init(&f->arena, &f->mem, 4096);
    f->src.mem = &f->mem;
    f->src.arena = &f->arena;
    f->src.err = &f->err;
    f->src.source = "m.pt2:e.json";
    f->src.max_depth = depth;
    f->src.max_string = max_string;
}

static int jparse(jfix *f, const char *text, oj_value **v)
{
    return oj_parse(&f->src, text, strlen(text), v);
}

static void jfree(jfix *f)
{
    om_arena_free(&f->arena);
}

static void test_json_values(void **state)
{
    jfix f;
    oj_value *v;
    const oj_value *a;
    (void)state;
    jinit(&f, 16, 1024);
    assert_int_equal(jparse(&f, " {\"a\": [1, -9223372036854775808, 9223372036854775808, 2.5e1, "
                                "NaN, -Infinity, true, null], \"s\": \"\\u00e9\\ud83d\\ude00\", "
                                "\"a\": 7} ", &v), OPMAP_OK);
    a = oj_get(v, "a");
    assert_int_equal(a->type, OJ_NUMBER); /* a repeated key: the last */
    assert_int_equal(a->i, 7);
    a = &v->kids[0];
    assert_int_equal(a->n, 8);
    assert_true(a->kids[1].is_int);
    assert_true(a->kids[1].i == INT64_MIN);
    assert_false(a->kids[2].is_int); /* 2^63: flagged, not wrapped */
    assert_false(a->kids[3].is_int);
    assert_true(a->kids[3].d > 24.99 && a->kids[3].d < 25.01);
    assert_true(a->kids[4].d != a->kids[4].d);
    assert_true(a->kids[5].d < -1e308);
    assert_int_equal(a->kids[6].type, OJ_TRUE);
    assert_int_equal(a->kids[7].type, OJ_NULL);
    assert_string_equal(oj_str(v, "s"), "\xc3\xa9\xf0\x9f\x98\x80");
    jfree(&f);
}

static void expect_json_fail(const char *text, uint32_t depth, uint64_t max_string, int code,
                             const char *needle, uint64_t offset)
{
    jfix f;
    oj_value *v;
    jinit(&f, depth, max_string);
    assert_int_equal(jparse(&f, text, &v), code);
    if (!strstr(f.err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", text, f.err.message, needle);
    assert_string_equal(f.err.source, "m.pt2:e.json");
    assert_int_equal(f.err.offset, offset);
    jfree(&f);
}

static void test_json_hostile(void **state)
{
    char deep[200];
    (void)state;
    memset(deep, '[', sizeof(deep) - 1);
    deep[sizeof(deep) - 1] = 0;
    expect_json_fail(deep, 16, 1024, OPMAP_ELIMIT, "JSON nested deeper than 16", 16);
    expect_json_fail("{\"a\": \"0123456789\"}", 16, 8, OPMAP_ELIMIT,
                     "JSON string of 10 bytes, over max_string_bytes (8)", 6);
    expect_json_fail("[1,]", 16, 64, OPMAP_EFORMAT, "trailing comma", 3);
    expect_json_fail("[01]", 16, 64, OPMAP_EFORMAT, "leading zero", 1);
    expect_json_fail("\"\\ud800x\"", 16, 64, OPMAP_EFORMAT, "without its pair", 1);
    expect_json_fail("\"a\\u0000\"", 16, 64, OPMAP_EFORMAT, "NUL", 2);
    expect_json_fail("\"\xc0\xaf\"", 16, 64, OPMAP_EFORMAT, "malformed UTF-8", 1);
    expect_json_fail("\"a\nb\"", 16, 64, OPMAP_EFORMAT, "control character", 2);
    expect_json_fail("{\"a\" 1}", 16, 64, OPMAP_EFORMAT, "expected ':'", 5);
    expect_json_fail("[1] x", 16, 64, OPMAP_EFORMAT, "text after the value", 4);
    expect_json_fail("[1, 2", 16, 64, OPMAP_EFORMAT, "ends inside a container", 5);
    expect_json_fail("\"abc", 16, 64, OPMAP_EFORMAT, "never ends", 0);
}

/* A program: x [s0, 3] -> cond(pred, true_graph_0: mylib.op under module blk) -> conv2d. */
static const char program_json[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"p_w\"}}, {\"as_tensor\": {\"name\": \"x\"}}],"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"conv2d\"}}],"
    "\"tensor_values\": {\"x\": {\"dtype\": 6, \"sizes\": [{\"as_expr\": {\"expr_str\": "
    "\"Symbol('s0', integer=True, positive=True)\"}}, {\"as_int\": 3}]},"
    " \"p_w\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}, {\"as_int\": 3}]},"
    " \"conv2d\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 1}]}},"
    "\"nodes\": ["
    " {\"target\": \"torch.ops.higher_order.cond\", \"inputs\": ["
    "   {\"name\": \"pred\", \"arg\": {\"as_bool\": true}, \"kind\": 1},"
    "   {\"name\": \"true_fn\", \"arg\": {\"as_graph\": {\"name\": \"true_graph_0\", \"graph\": {"
    "     \"nodes\": [{\"target\": \"torch.ops.mylib.op.default\", \"inputs\": [],"
    "       \"outputs\": [{\"as_tensor\": {\"name\": \"op\"}}],"
    "       \"metadata\": {\"nn_module_stack\": \"L__self__,,M;L__self___blk,blk,B;"
    "L__self___blk_inner,blk.inner,C\"}}]}}}, \"kind\": 1}],"
    "  \"outputs\": [{\"as_tensors\": [{\"name\": \"getitem\"}]}],"
    "  \"metadata\": {\"nn_module_stack\": \"L__self__,,M;L__self___blk,blk,B\"}},"
    " {\"target\": \"torch.ops.aten.conv2d.default\", \"inputs\": ["
    "   {\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1},"
    "   {\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"p_w\"}}, \"kind\": 1},"
    "   {\"name\": \"stride\", \"arg\": {\"as_ints\": [2, 2]}, \"kind\": 1},"
    "   {\"name\": \"groups\", \"arg\": {\"as_int\": 1}, \"kind\": 2}],"
    "  \"outputs\": [{\"as_tensor\": {\"name\": \"conv2d\"}}],"
    "  \"metadata\": {\"stack_trace\": \"  File \\\"/a.py\\\", line 3, in f\\n  File "
    "\\\"/b.py\\\", line 42, in forward\\n    return self.conv(x)\\n\","
    "   \"nn_module_stack\": \"L__self__,,M;L__self___conv,conv,torch.nn.Conv2d\"}}]},"
    "\"signature\": {\"input_specs\": [{\"parameter\": {\"arg\": {\"name\": \"p_w\"}, "
    "\"parameter_name\": \"conv.weight\"}}, {\"user_input\": {\"arg\": {\"as_tensor\": "
    "{\"name\": \"x\"}}}}]}},"
    "\"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": null}},"
    "\"schema_version\": {\"major\": 8, \"minor\": 15}, \"verifiers\": [\"TRAINING\"],"
    "\"opset_version\": {\"aten\": 10}, \"torch_version\": \"2.8.0\"}";

static void test_program(void **state)
{
    ir_model m;
    ir_interner in;
    opmap_limits lim;
    opmap_error err;
    const ir_node *cond, *conv, *op;
    const ir_attr *a;
    (void)state;
    memset(&m, 0, sizeof(m));
    memset(&lim, 0, sizeof(lim));
    lim.max_depth = 8;
    lim.max_nodes = 100;
    lim.max_string_bytes = 1 << 20;
    m.name = "p.pt2";
    om_mem_init(&m.mem, NULL, 1u << 26);
    om_arena_init(&m.arena, &m.mem, 4096);
    ir_intern_init(&in, &m.mem, &m.arena);
    assert_int_equal(om_export_program(&m, &in, "models/model.json", "main", program_json,
                                       strlen(program_json), &lim, &err), OPMAP_OK);
    assert_int_equal(m.format, OPMAP_FORMAT_TORCH_EXPORT);
    assert_int_equal(m.ir_version, 8);
    assert_non_null(strstr(m.doc, "dialect TRAINING"));
    assert_int_equal(m.main->n_nodes, 2);
    assert_int_equal(m.main->n_inits, 1); /* the parameter */
    assert_int_equal(m.main->n_inputs, 1);
    assert_string_equal(m.main->inputs[0].name, "x");
    assert_int_equal(m.main->inputs[0].type.elem, IR_DT_FLOAT16);
    assert_string_equal(m.main->inputs[0].type.dims[0].param, "s0[2..inf]");
    assert_int_equal(m.main->inputs[0].type.dims[1].value, 3);
    cond = &m.main->nodes[0];
    assert_string_equal(cond->domain, "higher_order");
    assert_string_equal(cond->op, "cond");
    assert_string_equal(cond->name, "blk/getitem");
    a = ir_node_attr(cond, "true_graph_0");
    assert_non_null(a);
    assert_int_equal(a->type, IR_ATTR_GRAPH);
    op = &a->graphs[0]->nodes[0];
    assert_string_equal(op->domain, "mylib");
    assert_string_equal(op->op, "op");
    assert_string_equal(op->name, "inner/op"); /* below the cond's module */
    conv = &m.main->nodes[1];
    assert_string_equal(conv->domain, "aten");
    assert_string_equal(conv->op, "conv2d");
    assert_string_equal(ir_node_attr(conv, "overload")->s.data, "default");
    assert_string_equal(conv->name, "conv/conv2d");
    assert_string_equal(conv->src_file, "/b.py");
    assert_int_equal(conv->src_line, 42);
    assert_int_equal(conv->n_inputs, 2);
    assert_int_equal(conv->n_args, 4);
    assert_int_equal(conv->args[2].type, IR_ATTR_INTS);
    assert_int_equal(conv->args[2].ints[1], 2);
    assert_null(conv->args[2].name);
    assert_string_equal(conv->args[3].name, "groups");
    assert_int_equal(conv->out_types[0].elem, IR_DT_FLOAT);
    ir_intern_free(&in);
    om_arena_free(&m.arena);
}

static void test_program_limits(void **state)
{
    ir_model m;
    ir_interner in;
    opmap_limits lim;
    opmap_error err;
    (void)state;
    memset(&m, 0, sizeof(m));
    memset(&lim, 0, sizeof(lim));
    lim.max_depth = 0; /* the cond's subgraph is one level too deep */
    lim.max_nodes = 100;
    lim.max_string_bytes = 1 << 20;
    m.name = "p.pt2";
    om_mem_init(&m.mem, NULL, 1u << 26);
    om_arena_init(&m.arena, &m.mem, 4096);
    ir_intern_init(&in, &m.mem, &m.arena);
    assert_int_equal(om_export_program(&m, &in, "models/model.json", "main", program_json,
                                       strlen(program_json), &lim, &err), OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "nested deeper than max_depth (0)"));
    assert_string_equal(err.source, "p.pt2:models/model.json");
    lim.max_depth = 8;
    lim.max_nodes = 1;
    assert_int_equal(om_export_program(&m, &in, "models/model.json", "main", program_json,
                                       strlen(program_json), &lim, &err), OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "more than max_nodes (1) nodes"));
    ir_intern_free(&in);
    om_arena_free(&m.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_json_hostile),
        cmocka_unit_test(test_program),
        cmocka_unit_test(test_program_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
