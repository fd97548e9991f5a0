/*
 * tests/unit/test_ts_passes.c - each TorchScript optimisation pass on its own: a tiny
 * program from printed code, parsed and built through the reader's internal entry points,
 * then one pass, and the effect that pass alone has (constant folded, peephole applied,
 * concats combined, dead node removed, a mutated list kept, a call inlined).
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

#include "core/context.h"
#include "readers/torchscript/common/context.h"
#include "readers/torchscript/jit/build.h"
#include "readers/torchscript/lang/lexer.h"
#include "readers/torchscript/lang/syntax.h"
#include "readers/torchscript/lang/types.h"
#include "readers/torchscript/passes/optimize.h"
#include "readers/torchscript/passes/pass_state.h"

typedef struct fixture {
    opmap_ctx *ctx;
    ir_model m;
    opmap_error err;
    ts_ctx c;
    tsl_program prog;
    tsl_types ty;
    tsp_state o;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(opmap_ctx_new(&f->ctx, NULL, NULL), OPMAP_OK);
    om_mem_init(&f->m.mem, &f->ctx->al, f->ctx->limits.max_heap_bytes);
    om_arena_init(&f->m.arena, &f->m.mem, 0);
    f->m.name = "test.pt";
    ts_ctx_init(&f->c, &f->m, &f->ctx->limits, &f->err);
    tsl_program_init(&f->prog);
    tsl_types_init(&f->ty, &f->c, &f->prog);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tsp_alias_free(&f->o);
    tsl_program_free(&f->c, &f->prog);
    ts_ctx_fini(&f->c);
    om_arena_free(&f->m.arena);
    opmap_ctx_free(f->ctx);
    free(f);
    return 0;
}

/* Parses `code` as code/__torch__.py and builds function `name`'s graph into f->o. */
static tsl_func *build(fixture *f, const char *code, const char *name)
{
    tsl_file *file;
    const char *qual;
    void *v = NULL;
    tsj_graph *g = NULL;
    char q[128];
    assert_int_equal(tsl_parse_entry(&f->c, &f->prog, "code/__torch__.py", "__torch__",
                                     (const unsigned char *)code, strlen(code), &file),
                     OPMAP_OK);
    snprintf(q, sizeof(q), "__torch__.%s", name);
    qual = ts_intern_scratch(&f->c, q, strlen(q));
    assert_non_null(qual);
    assert_int_equal(tsl_program_find(&f->prog, qual, &v), 2);
    assert_int_equal(tsj_build_function(&f->c, &f->prog, &f->ty, v, &g), OPMAP_OK);
    memset(&f->o, 0, sizeof(f->o));
    f->o.c = &f->c;
    f->o.prog = &f->prog;
    f->o.ty = &f->ty;
    f->o.g = g;
    return v;
}

/* Live nodes ns::op in b and its nested blocks. */
static int count(const tsj_block *b, const char *ns, const char *op)
{
    const tsj_node *n;
    uint32_t i;
    int k = 0;
    for (n = b->head; n; n = n->next) {
        if (!n->dead && !strcmp(n->ns, ns) && !strcmp(n->op, op))
            k++;
        for (i = 0; i < n->n_blk; i++)
            k += count(n->blk[i], ns, op);
    }
    return k;
}

static tsj_node *first(const tsj_block *b, const char *ns, const char *op)
{
    tsj_node *n;
    for (n = b->head; n; n = n->next)
        if (!n->dead && !strcmp(n->ns, ns) && !strcmp(n->op, op))
            return n;
    return NULL;
}

/* ConstantPropagationImmutableTypes: an If on a constant keeps one branch, int arithmetic
 * on constants becomes a constant. */
static void test_constprop__folds_if_and_arithmetic(void **state)
{
    fixture *f = *state;
    const tsj_const *cv;
    build(f,
          "def f(x: Tensor) -> Tensor:\n"
          "  n = torch.add(2, 3)\n"
          "  if torch.__is__(None, None):\n"
          "    _0 = torch.sigmoid(x)\n"
          "  else:\n"
          "    _0 = torch.tanh(x)\n"
          "  return torch.mul(_0, n)\n",
          "f");
    assert_int_equal(count(f->o.g->top, "prim", "If"), 1);
    assert_int_equal(count(f->o.g->top, "aten", "add"), 1);
    assert_int_equal(tsp_constprop(&f->o), OPMAP_OK);
    assert_int_equal(count(f->o.g->top, "prim", "If"), 0);
    assert_int_equal(count(f->o.g->top, "aten", "sigmoid"), 1);
    assert_int_equal(count(f->o.g->top, "aten", "tanh"), 0);
    assert_int_equal(count(f->o.g->top, "aten", "add"), 0);
    /* mul's second input is now the constant 5 */
    cv = tsj_const_of(first(f->o.g->top, "aten", "mul")->in[1]);
    assert_non_null(cv);
    assert_int_equal(cv->k, TSJ_CONST_INT);
    assert_int_equal(cv->i, 5);
}

/* The value constprop folds `expr` (printed code) to, as a double (int and bool too); fails
 * when it is not a constant. */
static double folded(fixture *f, const char *ret, const char *expr, int *kind)
{
    static const char *const names[] = { "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7" };
    static unsigned next;
    char code[512];
    const char *name = names[next++ % 8];
    const tsj_const *cv;
    snprintf(code, sizeof(code), "def %s(x: Tensor) -> %s:\n  return %s\n", name, ret, expr);
    build(f, code, name);
    assert_int_equal(tsp_constprop(&f->o), OPMAP_OK);
    cv = tsj_const_of(f->o.g->top->rets[0]);
    if (!cv) {
        *kind = -1;
        return 0;
    }
    *kind = cv->k;
    return cv->k == TSJ_CONST_FLOAT ? cv->f : (double)cv->i;
}

/* Folding is TorchScript's own arithmetic (issue 29): len of a str counts UTF-8 bytes
 * (aten::len.str is std::string::size), float % is fmod(b + fmod(a, b), b) and // is
 * floor(a / b) (register_prim_ops.cpp; not Python's divmod), an int % whose C++ sum would
 * overflow is not folded. The values are torch 1.13's (tests/hostile/bypass). */
static void test_constprop__torchscript_arithmetic(void **state)
{
    fixture *f = *state;
    int k;
    double v = folded(f, "int", "torch.len(\"\\u00e9\")", &k);
    assert_int_equal(k, TSJ_CONST_INT);
    assert_true(v == 2);
    v = folded(f, "float", "torch.remainder(1., 0.10000000000000001)", &k);
    assert_int_equal(k, TSJ_CONST_FLOAT);
    assert_true(v == 0.09999999999999995);
    v = folded(f, "float", "torch.floordiv(1., 0.10000000000000001)", &k);
    assert_true(v == 10.0); /* Python says 9.0 */
    v = folded(f, "float", "torch.remainder(-5.5, 2.)", &k);
    assert_true(v == 0.5);
    v = folded(f, "float", "torch.remainder(1., 0.)", &k);
    assert_int_equal(k, TSJ_CONST_FLOAT);
    assert_true(v != v); /* torch: nan, no error */
    v = folded(f, "int", "torch.remainder(-7, 3)", &k);
    assert_true(v == 2);
    v = folded(f, "int", "torch.remainder(9223372036854775806, 9223372036854775807)", &k);
    assert_int_not_equal(k, TSJ_CONST_INT); /* torch's sum overflows: not folded to a value */
}

/* Float literals are read correctly rounded (strtod in the "C" locale, as torch's
 * strtod_c): the three below add up exactly; a digit-by-digit reading was one ulp off. */
static void test_lexer__float_literals_correctly_rounded(void **state)
{
    double a = 0, b = 0, c = 0;
    (void)state;
    assert_true(tsl_parse_float("0.48248787268182491", 19, &a));
    assert_true(tsl_parse_float("0.72414263293808367", 19, &b));
    assert_true(tsl_parse_float("1.2066305056199087", 18, &c));
    assert_true(a == 0.48248787268182491 && b == 0.72414263293808367 && c == 1.2066305056199087);
    assert_true(a + b == c);
    assert_true(tsl_parse_float("1e400", 5, &a) && a > 1e308);
    assert_true(tsl_parse_float("4.9406564584124654e-324", 23, &a) && a > 0);
    assert_false(tsl_parse_float("1.5x", 4, &a));
    assert_false(tsl_parse_float(".", 1, &a));
    assert_false(tsl_parse_float("1e", 2, &a));
}

/* PeepholeOptimize: t(t(x)) is x. */
static void test_peephole__double_transpose(void **state)
{
    fixture *f = *state;
    build(f,
          "def f(x: Tensor) -> Tensor:\n"
          "  _0 = torch.t(x)\n"
          "  _1 = torch.t(_0)\n"
          "  return torch.relu(_1)\n",
          "f");
    assert_int_equal(count(f->o.g->top, "aten", "t"), 2);
    assert_int_equal(tsp_peephole(&f->o), OPMAP_OK);
    assert_int_equal(count(f->o.g->top, "aten", "t"), 0);
    assert_ptr_equal(tsj_input(first(f->o.g->top, "aten", "relu"), 0), f->o.g->top->params[0]);
}

/* CombineConcats: cat([cat([a, b]), c]) with the inner cat used once is cat([a, b, c]). */
static void test_combine_concats__nested_cat(void **state)
{
    fixture *f = *state;
    tsj_node *cat, *list;
    build(f,
          "def f(a: Tensor, b: Tensor, c: Tensor) -> Tensor:\n"
          "  _0 = torch.cat([a, b])\n"
          "  return torch.cat([_0, c])\n",
          "f");
    assert_int_equal(count(f->o.g->top, "aten", "cat"), 2);
    assert_int_equal(tsp_combine_concats(&f->o), OPMAP_OK);
    assert_int_equal(count(f->o.g->top, "aten", "cat"), 1);
    cat = first(f->o.g->top, "aten", "cat");
    list = tsj_input(cat, 0)->def;
    assert_non_null(list);
    assert_int_equal(list->kind, TSJ_KIND_LISTC);
    assert_int_equal(list->n_in, 3);
    assert_ptr_equal(tsj_input(list, 0), f->o.g->top->params[0]);
    assert_ptr_equal(tsj_input(list, 1), f->o.g->top->params[1]);
    assert_ptr_equal(tsj_input(list, 2), f->o.g->top->params[2]);
}

/* EliminateDeadCode: an unused pure op goes, a side effect stays. */
static void test_dce__removes_unused_keeps_side_effects(void **state)
{
    fixture *f = *state;
    build(f,
          "def f(x: Tensor) -> Tensor:\n"
          "  _0 = torch.relu(x)\n"
          "  print(\"hi\")\n"
          "  return torch.sigmoid(x)\n",
          "f");
    assert_int_equal(count(f->o.g->top, "aten", "relu"), 1);
    assert_int_equal(tsp_dce(&f->o, 0), OPMAP_OK);
    assert_int_equal(count(f->o.g->top, "aten", "relu"), 0);
    assert_int_equal(count(f->o.g->top, "prim", "Print"), 1);
    assert_int_equal(count(f->o.g->top, "aten", "sigmoid"), 1);
}

/* The alias analysis: a list something appends to has writers, one nothing writes to has
 * none; with it, DCE keeps the append to the returned list and drops the one to a dead
 * list (without it, every mutation stays). */
static void test_alias__mutated_list_kept(void **state)
{
    fixture *f = *state;
    tsj_node *n, *app[2] = { NULL, NULL }, *plain = NULL;
    int k = 0;
    build(f,
          "def f(x: Tensor) -> List[Tensor]:\n"
          "  l = [x]\n"
          "  _0 = torch.append(l, x)\n"
          "  d = [x]\n"
          "  _1 = torch.append(d, x)\n"
          "  u = [x, x]\n"
          "  _2 = torch.len(u)\n"
          "  return l\n",
          "f");
    for (n = f->o.g->top->head; n; n = n->next)
        if (!strcmp(n->op, "append") && k < 2)
            app[k++] = n;
        else if (n->kind == TSJ_KIND_LISTC && n->n_in == 2)
            plain = n;
    assert_int_equal(k, 2);
    assert_non_null(plain);
    assert_int_equal(tsp_alias_run(&f->o), OPMAP_OK);
    assert_true(tsp_has_writers(&f->o, tsj_input(app[0], 0)));
    assert_true(tsp_has_writers(&f->o, tsj_input(app[1], 0)));
    assert_false(tsp_has_writers(&f->o, &plain->out[0]));
    tsp_alias_free(&f->o);
    assert_int_equal(tsp_dce(&f->o, 0), OPMAP_OK);
    assert_int_equal(count(f->o.g->top, "aten", "append"), 2);
    assert_int_equal(count(f->o.g->top, "aten", "len"), 0);
    assert_int_equal(tsp_dce(&f->o, 1), OPMAP_OK);
    assert_int_equal(count(f->o.g->top, "aten", "append"), 1);
    assert_false(app[0]->dead);
    assert_true(app[1]->dead);
}

/* Inlining: the root's call to h is replaced by h's optimized body, where g is inlined
 * and, h being optimized after that, the constant argument has folded g's If (the root
 * itself is inlined, not optimized, as torch's inlined_graph). */
static void test_inline__call_replaced_by_optimized_body(void **state)
{
    fixture *f = *state;
    tsj_graph *g = NULL;
    int rc;
    tsl_func *fn = build(f,
          "def g(x: Tensor, flag: bool) -> Tensor:\n"
          "  if flag:\n"
          "    _0 = torch.relu(x)\n"
          "  else:\n"
          "    _0 = torch.tanh(x)\n"
          "  return _0\n"
          "def h(x: Tensor) -> Tensor:\n"
          "  return __torch__.g(x, True, )\n"
          "def f(x: Tensor) -> Tensor:\n"
          "  _0 = __torch__.h(x, )\n"
          "  return torch.sigmoid(_0)\n",
          "f");
    assert_int_equal(count(f->o.g->top, "prim", "CallFunction"), 1);
    fn->built = f->o.g;
    rc = tsp_optimize_function(&f->c, &f->prog, &f->ty, fn, 1, &g);
    assert_int_equal(rc, OPMAP_OK);
    assert_int_equal(count(g->top, "prim", "CallFunction"), 0);
    assert_int_equal(count(g->top, "aten", "relu"), 1);
    assert_int_equal(count(g->top, "aten", "tanh"), 0);
    assert_int_equal(count(g->top, "prim", "If"), 0);
    assert_int_equal(count(g->top, "aten", "sigmoid"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_constprop__folds_if_and_arithmetic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constprop__torchscript_arithmetic, setup, teardown),
        cmocka_unit_test(test_lexer__float_literals_correctly_rounded),
        cmocka_unit_test_setup_teardown(test_peephole__double_transpose, setup, teardown),
        cmocka_unit_test_setup_teardown(test_combine_concats__nested_cat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dce__removes_unused_keeps_side_effects, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_alias__mutated_list_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline__call_replaced_by_optimized_body, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
