/*
 * tests/unit/test_torchscript.c - the TorchScript reader: graph text (types, shapes,
 * constants, nested blocks, source comments), archives built in memory (every printed
 * form, mangled classes, methods other than forward, ModuleList / Sequential indexing,
 * scripted if / loops, torch's constant propagation into callees, .debug_pkl line
 * mapping), the 18 torch fixtures (archive against graph text, kinds and source lines),
 * and hostile or unsupported input.
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

#include "core/text.h"
#include "readers/model.h"
#include "../../src/walker/walker.h"
#include "../support/zip_build.h"

#ifndef OPMAP_TS_FIXTURES
#define OPMAP_TS_FIXTURES "tests/fixtures/torchscript"
#endif

/* ---- helpers ---- */

typedef struct inst {
    char dom[32], op[64], path[512], file[256];
    uint32_t line;
    const ir_node *node;
} inst;

typedef struct insts {
    inst *v;
    size_t n, cap;
    char note[256];
} insts;

static int record(void *payload, const om_visit *v)
{
    insts *s = payload;
    inst *x;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof(*s->v));
        assert_non_null(s->v);
    }
    x = &s->v[s->n++];
    snprintf(x->dom, sizeof(x->dom), "%s", v->node->domain);
    snprintf(x->op, sizeof(x->op), "%s", v->node->op);
    snprintf(x->path, sizeof(x->path), "%s", v->path);
    snprintf(x->file, sizeof(x->file), "%s", v->node->src_file ? v->node->src_file : "");
    x->line = v->node->src_line;
    x->node = v->node;
    return OPMAP_OK;
}

static int note(void *payload, const char *message, const char *path)
{
    insts *s = payload;
    snprintf(s->note, sizeof(s->note), "%s @ %s", message, path);
    return OPMAP_OK;
}

static void walk(opmap_ctx *ctx, opmap_model *m, insts *s)
{
    opmap_error err;
    om_mem mem;
    memset(s, 0, sizeof(*s));
    om_mem_init(&mem, NULL, 1u << 30);
    assert_int_equal(om_walk(&m->ir, opmap_ctx_limits(ctx), &mem, record, note, s, &err),
                     OPMAP_OK);
    if (getenv("OPMAP_TEST_DUMP")) {
        size_t i;
        for (i = 0; i < s->n; i++)
            printf("  %s::%s %s %s:%u\n", s->v[i].dom, s->v[i].op, s->v[i].path, s->v[i].file,
                   s->v[i].line);
    }
}

static size_t count(const insts *s, const char *dom, const char *op)
{
    size_t i, n = 0;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->v[i].dom, dom) == 0 && strcmp(s->v[i].op, op) == 0)
            n++;
    return n;
}

static const inst *find(const insts *s, const char *dom, const char *op)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->v[i].dom, dom) == 0 && strcmp(s->v[i].op, op) == 0)
            return &s->v[i];
    return NULL;
}

static int has_path(const insts *s, const char *path)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->v[i].path, path) == 0)
            return 1;
    return 0;
}

static opmap_model *open_text(opmap_ctx *ctx, const char *text, opmap_error *err)
{
    opmap_model *m = NULL;
    opmap_model_open_memory(&m, ctx, text, strlen(text), "g.txt", err);
    return m;
}

static opmap_model *open_zip(opmap_ctx *ctx, const zb_zip *z, opmap_error *err)
{
    opmap_model *m = NULL;
    opmap_model_open_memory(&m, ctx, z->buf, z->len, "m.pt", err);
    return m;
}

static unsigned char *slurp(const char *name, size_t *len)
{
    char path[1024];
    FILE *f;
    unsigned char *buf;
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
    *len = (size_t)n;
    return buf;
}

static opmap_model *open_fixture(opmap_ctx *ctx, const char *name, opmap_error *err)
{
    char path[1024];
    opmap_model *m = NULL;
    snprintf(path, sizeof(path), "%s/%s", OPMAP_TS_FIXTURES, name);
    opmap_model_open_file(&m, ctx, path, err);
    return m;
}

/* data.pkl of a `__torch__.<cls>` object (GLOBAL, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, BUILD). */
#define ROOT_PKL(cls) "\x80\x02" "c__torch__\n" cls "\n)\x81}b."

/* A module class header with no attributes but `training`. */
#define HDR(cls) "class " cls "(Module):\n  __parameters__ = []\n  __buffers__ = []\n" \
                 "  training : bool\n"

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

/* ---- graph text ---- */

static const char graph_types[] =
    "graph(%x.1 : Float(1, 3, 224, 224, strides=[150528, 50176, 224, 1], requires_grad=0, "
    "device=cpu),\n"
    "      %n : int):\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %2 : float = prim::Constant[value=0.5]()\n"
    "  %3 : str = prim::Constant[value=\"a \\\"b\\\" # c\"]() # /src/k.py:3:1\n"
    "  %y : Half(2, *, strides=[3, 1], requires_grad=0, device=cpu) = aten::relu(%x.1) "
    "# /src/model.py:12:4\n"
    "  %z : Long(requires_grad=0, device=cpu), %w : Tensor = aten::max(%y, %1) # :0:0\n"
    "  %l : int[] = aten::size(%x.1)\n"
    "  %o : Tensor? = prim::Constant()\n"
    "  %b : BFloat16(4, strides=[1], requires_grad=0, device=cpu) = aten::to(%y, %1)\n"
    "  return (%y)\n";

static void test_graph__types_constants_sources(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    opmap_model *m = open_text(ctx, graph_types, &err);
    insts s;
    const inst *relu, *max, *to, *k;
    const ir_attr *a;
    assert_non_null(m);
    assert_int_equal(opmap_model_format(m), OPMAP_FORMAT_TORCHSCRIPT_GRAPH);
    walk(ctx, m, &s);
    assert_int_equal(s.n, 8);
    /* graph inputs and their types */
    assert_int_equal(m->ir.main->n_inputs, 2);
    assert_string_equal(m->ir.main->inputs[0].name, "x.1");
    assert_int_equal(m->ir.main->inputs[0].type.elem, IR_DT_FLOAT);
    assert_int_equal(m->ir.main->inputs[0].type.rank, 4);
    assert_int_equal(m->ir.main->inputs[0].type.dims[1].value, 3);
    /* output types: dtype and shape, unknown dims */
    relu = find(&s, "aten", "relu");
    assert_non_null(relu);
    assert_int_equal(relu->node->n_outputs, 1);
    assert_string_equal(relu->node->outputs[0], "y");
    assert_string_equal(relu->node->inputs[0], "x.1");
    assert_int_equal(relu->node->out_types[0].kind, IR_TYPE_TENSOR);
    assert_int_equal(relu->node->out_types[0].elem, IR_DT_FLOAT16);
    assert_int_equal(relu->node->out_types[0].rank, 2);
    assert_int_equal(relu->node->out_types[0].dims[0].value, 2);
    assert_int_equal(relu->node->out_types[0].dims[1].value, -1);
    /* source comment -> location; ":0:0" is none */
    assert_string_equal(relu->file, "/src/model.py");
    assert_int_equal(relu->line, 12);
    max = find(&s, "aten", "max");
    assert_int_equal(max->node->n_outputs, 2);
    assert_int_equal(max->node->out_types[0].elem, IR_DT_INT64);
    assert_int_equal(max->node->out_types[1].kind, IR_TYPE_TENSOR);
    assert_string_equal(max->file, "");
    to = find(&s, "aten", "to");
    assert_int_equal(to->node->out_types[0].elem, IR_DT_BFLOAT16);
    assert_int_equal(find(&s, "aten", "size")->node->out_types[0].outer, IR_TYPE_SEQUENCE);
    /* constants keep their values; a '#' inside a string is not a comment */
    assert_int_equal(count(&s, "prim", "Constant"), 4);
    k = &s.v[0];
    a = ir_node_attr(k->node, "value");
    assert_non_null(a);
    assert_int_equal(a->type, IR_ATTR_INT);
    assert_int_equal(a->i, 1);
    a = ir_node_attr(s.v[1].node, "value");
    assert_int_equal(a->type, IR_ATTR_FLOAT);
    assert_true(a->f == 0.5);
    a = ir_node_attr(s.v[2].node, "value");
    assert_int_equal(a->type, IR_ATTR_STRING);
    assert_string_equal(a->s.data, "a \"b\" # c");
    assert_string_equal(s.v[2].file, "/src/k.py");
    free(s.v);
    opmap_model_free(m);
}

static const char graph_blocks[] =
    "graph(%x : Tensor, %c : bool, %n : int):\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %r : Tensor = prim::If(%c) # /a.py:1:0\n"
    "    block0():\n"
    "      %l : Tensor = prim::Loop(%n, %t, %x) # /a.py:2:0\n"
    "        block0(%i : int, %acc : Tensor):\n"
    "          %q : Tensor = prim::If(%c)\n"
    "            block0():\n"
    "              %e : Tensor = aten::exp(%acc) # /a.py:4:8\n"
    "              -> (%e)\n"
    "            block1():\n"
    "              -> (%acc)\n"
    "          -> (%t, %q)\n"
    "      -> (%l)\n"
    "    block1():\n"
    "      %s : Tensor = aten::sigmoid(%x)\n"
    "      -> (%s)\n"
    "   = prim::RaiseException(%x)\n"
    "  return (%r)\n";

static void test_graph__nested_blocks(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    opmap_model *m = open_text(ctx, graph_blocks, &err);
    insts s;
    const inst *e;
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "prim", "If"), 2);
    assert_int_equal(count(&s, "prim", "Loop"), 1);
    assert_int_equal(count(&s, "aten", "exp"), 1);
    assert_int_equal(count(&s, "aten", "sigmoid"), 1);
    assert_int_equal(count(&s, "prim", "RaiseException"), 1);
    e = find(&s, "aten", "exp");
    assert_string_equal(e->path, "main/If_1/block[0]/Loop_0/block[0]/If_0/block[0]/exp_0");
    assert_int_equal(e->line, 4);
    assert_true(has_path(&s, "main/If_1/block[1]/sigmoid_0"));
    /* block parameters are the block's inputs */
    assert_int_equal(find(&s, "prim", "Loop")->node->attrs[0].graphs[0]->n_inputs, 2);
    free(s.v);
    opmap_model_free(m);
}

static void test_graph__depth_limit(void **state)
{
    opmap_ctx *ctx;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_error err;
    opmap_model *m = NULL;
    char *text = malloc(200000), *p = text;
    int d;
    (void)state;
    o.limits.max_depth = 8;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_OK);
    p += sprintf(p, "graph(%%c : bool):\n");
    for (d = 0; d < 20; d++)
        p += sprintf(p, "%*s = prim::If(%%c)\n%*sblock0():\n", 2 + 4 * d, "", 4 + 4 * d, "");
    *p = 0;
    assert_int_equal(opmap_model_open_memory(&m, ctx, text, strlen(text), "deep.txt", &err),
                     OPMAP_ELIMIT);
    assert_null(m);
    assert_non_null(strstr(err.message, "max_depth"));
    free(text);
    opmap_ctx_free(ctx);
}

static void test_graph__errors(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    char buf[600];
    assert_null(open_text(ctx, "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n", &err));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "return"));
    assert_null(open_text(ctx, "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x\n"
                               "  return (%y)\n", &err));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_int_equal(err.line, 2);
    opmap_error_format(&err, buf, sizeof(buf));
    assert_non_null(strstr(buf, "g.txt:2:"));
    assert_null(open_text(ctx, "graph(%x : Tensor):\n  %y : Tensor = relu(%x)\n"
                               "  return (%y)\n", &err));
    assert_non_null(strstr(err.message, "ns::op"));
    assert_null(open_text(ctx, "graph(%x : Tensor):\n  -> (%x)\n  return (%x)\n", &err));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_null(open_text(ctx, "graph(%x : Tensor\n", &err));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_null(open_text(ctx, "graph(%x : Tensor):\n  return (%x)\nstray\n", &err));
    assert_int_equal(err.line, 3);
}

static void test_graph__fork_sections(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    opmap_model *m = open_text(ctx,
        "graph(%x : Tensor):\n"
        "  %f : Future[Tensor] = prim::fork_0(%x)\n"
        "  %y : Tensor = aten::wait(%f)\n"
        "  %g : Tensor = prim::TensorExprGroup_0(%y)\n"
        "  return (%g)\n"
        "with prim::fork_0 = graph(%a : Tensor):\n"
        "  %b : Tensor = aten::sin(%a)\n"
        "  return (%b)\n"
        "with prim::TensorExprGroup_0 = graph(%a : Tensor,\n"
        "      %u : int):\n"
        "  %b : Tensor = aten::cos(%a)\n"
        "  return (%b)\n", &err);
    assert_non_null(m);
    walk(ctx, m, &s);
    /* a fork's closure is not walked (like torch's inlined graph); fusion groups are */
    assert_int_equal(count(&s, "prim", "fork"), 1);
    assert_int_equal(count(&s, "aten", "sin"), 0);
    assert_int_equal(count(&s, "prim", "TensorExprGroup"), 1);
    assert_int_equal(count(&s, "aten", "cos"), 1);
    free(s.v);
    opmap_model_free(m);
}

/* ---- archives built in memory ---- */

static opmap_model *archive(opmap_ctx *ctx, opmap_error *err, const char *code)
{
    zb_zip z;
    opmap_model *m;
    assert_int_equal(zb_archive(&z, "data.pkl", ROOT_PKL("M"),
                                "code/__torch__.py", code, (const char *)NULL), 0);
    m = open_zip(ctx, &z, err);
    zb_free(&z);
    return m;
}

static void test_code__printed_forms(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    opmap_model *m = archive(ctx, &err,
        HDR("M")
        "  lin : __torch__.Lin\n"
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor,\n"
        "    t: Tuple[Tensor, Tensor],\n"
        "    l: List[int]) -> Tensor:\n"
        "    _0 = int(torch.sum(x))\n"
        "    _1 = float(torch.mean(x))\n"
        "    _2 = bool(torch.gt(x, 0))\n"
        "    _3 = annotate(int, torch.select(x, 0, 0))\n"
        "    _4 = str(_0)\n"
        "    a = (t)[0]\n"
        "    b = l[0]\n"
        "    d = {\"k\": _1}\n"
        "    e = d[\"k\"]\n"
        "    u, v, = t\n"
        "    p, q = torch.max(x, 1)\n"
        "    n0, n1 = b, _0\n"
        "    _5 = ops.prim.NumToTensor(torch.size(x, 0))\n"
        "    _6 = ops.torchvision.nms(x, u, 0.5)\n"
        "    _7 = torch.to(x, 7, False, False, None)\n"
        "    _8 = torch.zeros([2, n0], dtype=6, layout=None, device=torch.device(\"cpu\"), "
        "pin_memory=False)\n"
        "    c = CONSTANTS.c0\n"
        "    _9 = isinstance(x, Tensor)\n"
        "    _10 = unchecked_cast(Tensor, v)\n"
        "    lin = self.lin\n"
        "    _11 = getattr(self, \"lin\")\n"
        "    w = lin.weight\n"
        "    _12 = uninitialized(Tensor)\n"
        "    _13 = torch.multiply(x, -1.5)\n"
        "    _14 = torch.neg(x)\n"
        "    return torch.add(torch.linear(x, w), c)\n"
        "class Lin(Module):\n"
        "  __parameters__ = [\"weight\", ]\n"
        "  __buffers__ = []\n"
        "  weight : Tensor\n"
        "  training : bool\n");
    assert_non_null(m);
    assert_int_equal(opmap_model_format(m), OPMAP_FORMAT_TORCHSCRIPT);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "aten", "Int"), 1);
    assert_int_equal(count(&s, "aten", "Float"), 1);
    assert_int_equal(count(&s, "aten", "Bool"), 1);
    assert_int_equal(count(&s, "aten", "IntImplicit"), 1);
    assert_int_equal(count(&s, "aten", "str"), 1);
    assert_int_equal(count(&s, "prim", "TupleIndex"), 1);   /* (t)[0]: t is a tuple */
    assert_int_equal(count(&s, "aten", "__getitem__"), 2);  /* l[0], d["k"] */
    assert_int_equal(count(&s, "prim", "DictConstruct"), 1);
    assert_int_equal(count(&s, "prim", "TupleUnpack"), 1);
    assert_int_equal(count(&s, "aten", "max"), 1);          /* one node, two outputs */
    assert_int_equal(count(&s, "prim", "NumToTensor"), 1);
    assert_int_equal(count(&s, "torchvision", "nms"), 1);
    assert_int_equal(count(&s, "aten", "zeros"), 1);
    assert_int_equal(count(&s, "prim", "ListConstruct"), 1);
    assert_int_equal(count(&s, "prim", "isinstance"), 1);
    assert_int_equal(count(&s, "prim", "unchecked_cast"), 1);
    assert_int_equal(count(&s, "prim", "GetAttr"), 3);
    assert_int_equal(count(&s, "prim", "Uninitialized"), 1);
    assert_int_equal(count(&s, "aten", "mul"), 1);          /* aten::multiply normalized */
    assert_int_equal(count(&s, "aten", "neg"), 1);
    assert_int_equal(count(&s, "aten", "device"), 0);       /* torch.device(...) is a constant */
    assert_int_equal(count(&s, "prim", "Constant"), 0);     /* constants are not reported */
    assert_int_equal(count(&s, "aten", "linear"), 1);
    assert_int_equal(count(&s, "aten", "add"), 1);
    free(s.v);
    opmap_model_free(m);
}

static void test_code__mangled_classes(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    zb_zip z;
    opmap_model *m;
    /* two different types of the Python class Block, one of them mangled */
    assert_int_equal(zb_archive(&z, "data.pkl", ROOT_PKL("Net"),
        "code/__torch__.py",
        HDR("Net")
        "  first : __torch__.Block\n"
        "  second : __torch__.___torch_mangle_3.Block\n"
        "  def forward(self: __torch__.Net,\n"
        "    x: Tensor) -> Tensor:\n"
        "    first = self.first\n"
        "    second = self.second\n"
        "    return (second).forward((first).forward(x, ), )\n"
        HDR("Block")
        "  def forward(self: __torch__.Block,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return torch.relu(x)\n",
        "code/__torch__/___torch_mangle_3.py",
        HDR("Block")
        "  def forward(self: __torch__.___torch_mangle_3.Block,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return torch.tanh(x)\n", (const char *)NULL), 0);
    m = open_zip(ctx, &z, &err);
    zb_free(&z);
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "aten", "relu"), 1);
    assert_int_equal(count(&s, "aten", "tanh"), 1);
    assert_string_equal(find(&s, "aten", "relu")->path, "main/first/relu_0");
    assert_string_equal(find(&s, "aten", "tanh")->path, "main/second/tanh_0");
    free(s.v);
    opmap_model_free(m);
}

static void test_code__methods_and_containers(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    opmap_model *m = archive(ctx, &err,
        HDR("M")
        "  blocks : __torch__.ModuleList\n"
        "  seq : __torch__.Sequential\n"
        "  act : __torch__.Act\n"
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    blocks = self.blocks\n"
        "    _0 = getattr(blocks, \"0\")\n"
        "    _1 = getattr(blocks, \"1\")\n"
        "    x0 = (_1).forward((_0).forward(x, ), )\n"
        "    seq = self.seq\n"
        "    x1 = (seq).forward(x0, )\n"
        "    act = self.act\n"
        "    x2 = (act).forward1((act).forward(x1, ), )\n"
        "    return (self).helper(x2, 3, )\n"
        "  def helper(self: __torch__.M,\n"
        "    x: Tensor,\n"
        "    k: int) -> Tensor:\n"
        "    return torch.mul(x, k)\n"
        HDR("ModuleList")
        "  __annotations__[\"0\"] = __torch__.Act\n"
        "  __annotations__[\"1\"] = __torch__.Act\n"
        "  def __len__(self: __torch__.ModuleList) -> int:\n"
        "    return 2\n"
        HDR("Sequential")
        "  __annotations__[\"0\"] = __torch__.Act\n"
        "  def forward(self: __torch__.Sequential,\n"
        "    input: Tensor) -> Tensor:\n"
        "    _0 = getattr(self, \"0\")\n"
        "    return (_0).forward1(input, )\n"
        HDR("Act")
        "  def forward(self: __torch__.Act,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return torch.relu(x)\n"
        "  def forward1(self: __torch__.Act,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return torch.sigmoid(x)\n"
        "  def unused(self: __torch__.Act) -> Tensor:\n"
        "    return torch.zeros([1])\n");
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "aten", "relu"), 3);
    assert_int_equal(count(&s, "aten", "sigmoid"), 2);
    assert_int_equal(count(&s, "aten", "mul"), 1);
    assert_int_equal(count(&s, "aten", "zeros"), 0); /* never called */
    assert_true(has_path(&s, "main/blocks.0/relu_0"));
    assert_true(has_path(&s, "main/blocks.1/relu_0"));
    assert_true(has_path(&s, "main/seq/0/sigmoid_0"));
    assert_true(has_path(&s, "main/act/relu_0"));
    assert_true(has_path(&s, "main/act/sigmoid_0")); /* a second call of act */
    /* a method of the module itself adds no path segment */
    assert_string_equal(find(&s, "aten", "mul")->path, "main/mul_10");
    /* identical bodies share one function: blocks.0 and blocks.1 */
    assert_true(m->ir.n_functions < 6);
    free(s.v);
    opmap_model_free(m);
}

static void test_code__control_flow(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    opmap_model *m = archive(ctx, &err,
        HDR("M")
        "  depth : Final[int] = 3\n"
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor,\n"
        "    n: int) -> Tensor:\n"
        "    _0 = uninitialized(int)\n"
        "    if torch.gt(n, 0):\n"
        "      reps = torch.mul(n, 2)\n"
        "    else:\n"
        "      ops.prim.RaiseException(\"n must be positive\", \"builtins.RuntimeError\")\n"
        "      reps = _0\n"
        "    x0 = x\n"
        "    for i in range(reps):\n"
        "      if torch.eq(torch.remainder(i, 2), 0):\n"
        "        x1 = torch.mul(x0, 2)\n"
        "      else:\n"
        "        x1 = torch.sigmoid(x0)\n"
        "      x0 = x1\n"
        "    _1 = torch.gt(float(torch.max(x0)), 1.)\n"
        "    x2 = x0\n"
        "    steps = 0\n"
        "    _2 = _1\n"
        "    while _2:\n"
        "      x3 = torch.div(x2, 2)\n"
        "      steps0 = torch.add(steps, 1)\n"
        "      if torch.lt(steps0, 3):\n"
        "        _4 = torch.gt(float(torch.max(x3)), 1.)\n"
        "        _3 = _4\n"
        "      else:\n"
        "        _3 = False\n"
        "      _2, x2, steps = _3, x3, steps0\n"
        "    return x2\n");
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "prim", "If"), 3);
    assert_int_equal(count(&s, "prim", "Loop"), 2);
    assert_int_equal(count(&s, "aten", "mul"), 2);
    assert_int_equal(count(&s, "aten", "sigmoid"), 1);
    assert_int_equal(count(&s, "aten", "max"), 2);
    assert_int_equal(count(&s, "aten", "Float"), 2);
    assert_int_equal(count(&s, "prim", "RaiseException"), 1);
    assert_true(has_path(&s, "main/Loop_3/block[0]/If_2/block[1]/sigmoid_0"));
    free(s.v);
    opmap_model_free(m);
}

/*
 * torch inlines each callee's optimized graph: constant arguments reach the callee's ifs
 * and only the live branch stays, but the root forward itself is not optimized.
 */
static void test_code__constant_propagation(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    opmap_model *m = archive(ctx, &err,
        HDR("M")
        "  act : __torch__.Act\n"
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    act = self.act\n"
        "    y = (act).forward(x, )\n"
        "    return __torch__.relu(y, True, )\n"
        HDR("Act")
        "  inplace : Final[bool] = True\n"
        "  def forward(self: __torch__.Act,\n"
        "    input: Tensor) -> Tensor:\n"
        "    _0 = __torch__.relu(input, True, )\n"
        "    if torch.__is__(None, None):\n"
        "      _1 = torch.sigmoid(_0)\n"
        "    else:\n"
        "      _1 = torch.tanh(_0)\n"
        "    return _1\n"
        "def relu(input: Tensor,\n"
        "    inplace: bool=False) -> Tensor:\n"
        "  if inplace:\n"
        "    result = torch.relu_(input)\n"
        "  else:\n"
        "    result = torch.relu(input)\n"
        "  return result\n");
    assert_non_null(m);
    walk(ctx, m, &s);
    /* inside Act.forward (a callee): folded */
    assert_int_equal(count(&s, "aten", "sigmoid"), 1);
    assert_int_equal(count(&s, "aten", "tanh"), 0);
    /* relu_ from Act, relu_ and relu from the unoptimized root */
    assert_int_equal(count(&s, "aten", "relu_"), 2);
    assert_int_equal(count(&s, "aten", "relu"), 1);
    assert_int_equal(count(&s, "prim", "If"), 1);
    free(s.v);
    opmap_model_free(m);
}

/* A .debug_pkl: string table, then records (code offset, ((text pieces, file, line),
 * start, end), tag), as torch.jit.save writes them. */
static size_t put_str(unsigned char *p, const char *s)
{
    size_t n = strlen(s);
    p[0] = 'X';
    p[1] = (unsigned char)n;
    p[2] = (unsigned char)(n >> 8);
    p[3] = p[4] = 0;
    memcpy(p + 5, s, n);
    return 5 + n;
}

static size_t put_int(unsigned char *p, uint32_t v)
{
    p[0] = 'J';
    p[1] = (unsigned char)v;
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)(v >> 16);
    p[4] = (unsigned char)(v >> 24);
    return 5;
}

/* A record whose source text is the string-table pieces idx[0, n). */
static size_t put_record_of(unsigned char *p, uint32_t off, const int *idx, size_t n, int file,
                            uint32_t line, uint32_t start)
{
    static const char g[] = "ctorch.jit._pickle\nbuild_intlist\n";
    size_t k = 0, i;
    p[k++] = '(';
    k += put_int(p + k, off);
    p[k++] = '(';
    p[k++] = '(';
    memcpy(p + k, g, sizeof(g) - 1);
    k += sizeof(g) - 1;
    p[k++] = '(';
    p[k++] = ']';
    if (n) {
        p[k++] = '(';
        for (i = 0; i < n; i++)
            k += put_int(p + k, (uint32_t)idx[i]);
        p[k++] = 'e';
    }
    p[k++] = 't';
    p[k++] = 'R';
    k += put_int(p + k, (uint32_t)file);
    k += put_int(p + k, line);
    p[k++] = 't';
    k += put_int(p + k, start);
    k += put_int(p + k, start + 3);
    p[k++] = 't';
    k += put_int(p + k, 7);
    p[k++] = 't';
    return k;
}

static size_t put_record(unsigned char *p, uint32_t off, int idx0, int idx1, int file,
                         uint32_t line, uint32_t start)
{
    int idx[2] = { idx0, idx1 };
    return put_record_of(p, off, idx, idx0 >= 0 ? 2 : 0, file, line, start);
}

static opmap_model *archive_with_debug(opmap_ctx *ctx, const char *code, const unsigned char *pkl,
                                       size_t k, opmap_error *err)
{
    zb_entry e[4];
    zb_zip z;
    opmap_model *m;
    e[0].name = "archive/data.pkl";
    e[0].data = ROOT_PKL("M");
    e[0].len = sizeof(ROOT_PKL("M")) - 1;
    e[0].deflate = 0;
    e[1].name = "archive/code/__torch__.py";
    e[1].data = code;
    e[1].len = strlen(code);
    e[1].deflate = 1;
    e[2].name = "archive/code/__torch__.py.debug_pkl";
    e[2].data = pkl;
    e[2].len = k;
    e[2].deflate = 1;
    e[3].name = "archive/version";
    e[3].data = "3\n";
    e[3].len = 2;
    e[3].deflate = 0;
    assert_int_equal(zb_build(e, 4, &z), 0);
    m = open_zip(ctx, &z, err);
    zb_free(&z);
    return m;
}

static void test_code__debug_lines(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    static const char code[] =
        HDR("M")
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    y = torch.relu(x)\n"
        "    return torch.tanh(y)\n";
    unsigned char pkl[2048];
    size_t k = 0;
    uint32_t at_relu = (uint32_t)(strstr(code, "torch.relu") - code);
    uint32_t at_tanh = (uint32_t)(strstr(code, "torch.tanh") - code);
    opmap_model *m;
    pkl[k++] = 0x80;
    pkl[k++] = 2;
    k += put_str(pkl + k, "FORMAT_WITH_STRING_TABLE");
    pkl[k++] = '(';
    k += put_str(pkl + k, "");
    k += put_str(pkl + k, "def forward(self, x):\n");
    k += put_str(pkl + k, "    return g(x).tanh()\n");
    k += put_str(pkl + k, "/src/orig.py");
    pkl[k++] = 't';
    pkl[k++] = '(';
    k += put_record(pkl + k, 0, -1, 0, 0, 0, 0);              /* header: no source */
    k += put_record(pkl + k, at_relu, 1, 2, 3, 40, 32);       /* second line -> 41 */
    k += put_record(pkl + k, at_relu + 10, -1, 0, 0, 0, 0);
    k += put_record(pkl + k, at_tanh, 1, 2, 3, 40, 3);        /* first line -> 40 */
    pkl[k++] = 't';
    pkl[k++] = (unsigned char)0x87; /* TUPLE3: (format, string table, records) */
    pkl[k++] = '.';
    if (!(m = archive_with_debug(ctx, code, pkl, k, &err)))
        fail_msg("%s", err.message);
    walk(ctx, m, &s);
    assert_string_equal(find(&s, "aten", "relu")->file, "/src/orig.py");
    assert_int_equal(find(&s, "aten", "relu")->line, 41);
    assert_string_equal(find(&s, "aten", "tanh")->file, "/src/orig.py");
    assert_int_equal(find(&s, "aten", "tanh")->line, 40);
    free(s.v);
    opmap_model_free(m);
}

/* An archive of debug_pkl `pkl` over code `code` (one module M). */
/*
 * A traced module's source is the stack the tracer saw, innermost first: the line kept is
 * the user's own frame (outside installed packages, before the tracer's frames), and the
 * innermost when the model's frames are all installed (torchvision's), never the script
 * that called torch.jit.trace.
 */
static void test_code__traced_stack_lines(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    static const char code[] =
        HDR("M")
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    y = torch.relu(x)\n"
        "    return torch.tanh(y)\n";
    static const int user[] = { 1, 2, 3, 4, 5 }, library[] = { 1, 2, 6, 4, 5 };
    unsigned char pkl[4096];
    size_t k = 0;
    opmap_model *m;
    pkl[k++] = 0x80;
    pkl[k++] = 2;
    k += put_str(pkl + k, "FORMAT_WITH_STRING_TABLE");
    pkl[k++] = '(';
    k += put_str(pkl + k, "");
    k += put_str(pkl + k, "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py(114): forward\n");
    k += put_str(pkl + k, "/usr/lib/python3/dist-packages/torch/nn/modules/module.py(1182): _slow_forward\n");
    k += put_str(pkl + k, "/home/u/model.py(42): forward\n");
    k += put_str(pkl + k, "/usr/lib/python3/dist-packages/torch/jit/_trace.py(976): trace_module\n");
    k += put_str(pkl + k, "/home/u/run.py(7): main\n");
    k += put_str(pkl + k, "/usr/local/lib/python3.11/site-packages/torchvision/models/resnet.py(268): forward\n");
    k += put_str(pkl + k, "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py");
    pkl[k++] = 't';
    pkl[k++] = '(';
    k += put_record_of(pkl + k, (uint32_t)(strstr(code, "torch.relu") - code), user, 5, 7, 114, 0);
    k += put_record_of(pkl + k, (uint32_t)(strstr(code, "torch.tanh") - code), library, 5, 7, 114,
                       0);
    pkl[k++] = 't';
    pkl[k++] = (unsigned char)0x87;
    pkl[k++] = '.';
    if (!(m = archive_with_debug(ctx, code, pkl, k, &err)))
        fail_msg("%s", err.message);
    walk(ctx, m, &s);
    assert_string_equal(find(&s, "aten", "relu")->file, "/home/u/model.py");
    assert_int_equal(find(&s, "aten", "relu")->line, 42);
    assert_string_equal(find(&s, "aten", "tanh")->file,
                        "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py");
    assert_int_equal(find(&s, "aten", "tanh")->line, 114);
    free(s.v);
    opmap_model_free(m);
    assert_true(om_installed_path("/usr/lib/python3.11/contextlib.py", 32));
    assert_true(om_installed_path("<string>", 8));
    assert_false(om_installed_path("/home/u/lib/python/m.py", 23));
    assert_false(om_installed_path("<ipython-input-3-1>", 19));
}

static void test_code__recursion_and_fan_out(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    char code[8192], *p = code;
    int i;
    opmap_model *m = archive(ctx, &err,
        HDR("M")
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return (self).again(x, )\n"
        "  def again(self: __torch__.M,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return (self).again(torch.relu(x), )\n");
    /* a method calling itself is read; the walker reports the recursion, not expanded */
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "aten", "relu"), 1);
    assert_int_equal(count(&s, "prim", "CallMethod"), 0);
    assert_non_null(strstr(s.note, "recursive"));
    free(s.v);
    opmap_model_free(m);
    /* f0 calls f1 twice, f1 calls f2 twice, ...: refused before it is materialized */
    p += sprintf(p, HDR("M") "  def forward(self: __torch__.M,\n    x: Tensor) -> Tensor:\n"
                    "    return __torch__.f0(x, )\n");
    for (i = 0; i < 40; i++)
        p += sprintf(p, "def f%d(x: Tensor) -> Tensor:\n  return torch.add(__torch__.f%d(x, ), "
                        "__torch__.f%d(x, ))\n", i, i + 1, i + 1);
    p += sprintf(p, "def f40(x: Tensor) -> Tensor:\n  return torch.relu(x)\n");
    assert_null(archive(ctx, &err, code));
    assert_int_equal(err.code, OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_nodes"));
}

static void test_code__syntax_errors(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    char buf[700];
    assert_null(archive(ctx, &err, HDR("M") "  def forward(self: __torch__.M,\n"
                                   "    x: Tensor) -> Tensor:\n    return x + 1\n"));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_int_equal(err.line, 7);
    opmap_error_format(&err, buf, sizeof(buf));
    assert_non_null(strstr(buf, "m.pt:archive/code/__torch__.py:7:"));
    assert_null(archive(ctx, &err, HDR("M") "  def forward(self: __torch__.M,\n"
                                   "    x: Tensor) -> Tensor:\n    return torch.nope(y)\n"));
    assert_non_null(strstr(err.message, "'y' is not defined"));
    assert_null(archive(ctx, &err, HDR("M") "  def forward(self: __torch__.M,\n"
                                   "    x: Tensor) -> Tensor:\n    return (x).foo(1, )\n"));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_null(archive(ctx, &err, HDR("M") "  def forward(self: __torch__.M,\n"
                                   "    x: Tensor) -> Tensor:\n    return \"open\n"));
    assert_int_equal(err.code, OPMAP_EFORMAT);
    assert_null(archive(ctx, &err, HDR("M") "  def other(self: __torch__.M) -> int:\n"
                                   "    return 1\n"));
    assert_non_null(strstr(err.message, "no forward"));
}

static void test_code__nesting_limits(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    char *code = malloc(100000), *p = code;
    int i;
    p += sprintf(p, HDR("M") "  def forward(self: __torch__.M,\n    x: Tensor) -> Tensor:\n");
    for (i = 0; i < 100; i++)
        p += sprintf(p, "%*sif torch.gt(x, 0):\n", 4 + 2 * i, "");
    p += sprintf(p, "%*spass\n    return x\n", 4 + 2 * i, "");
    assert_null(archive(ctx, &err, code));
    assert_int_equal(err.code, OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_depth"));
    p = code;
    p += sprintf(p, HDR("M") "  def forward(self: __torch__.M,\n    x: Tensor) -> Tensor:\n"
                    "    return ");
    for (i = 0; i < 200; i++)
        *p++ = '(';
    *p++ = 'x';
    for (i = 0; i < 200; i++)
        *p++ = ')';
    strcpy(p, "\n");
    assert_null(archive(ctx, &err, code));
    assert_int_equal(err.code, OPMAP_ELIMIT);
    free(code);
}

/* ---- the torch fixtures: archive against graph text ---- */

static const char *const fixtures[] = {
    "controlflow.scripted", "efficientnet_b0.traced", "listops.scripted",
    "fasterrcnn_mobilenet_v3_large_320_fpn.scripted", "inception_v3.scripted",
    "inception_v3.traced", "lraspp_mobilenet_v3_large.traced", "lstm.scripted",
    "lstm.traced", "mha.scripted", "mha.traced", "mobilenet_v3_small.scripted",
    "mobilenet_v3_small.traced", "resnet18.scripted", "resnet18.traced", "swin_t.traced",
    "transformer_encoder.scripted", "transformer_encoder.traced", "vit_tiny.traced"
};

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "aten::op basename:line" for every aten instance, sorted; installed: only those whose
 * line is in an installed package (1), or only the others (0), or all (-1) */
static char **aten_keys(const insts *s, size_t *n, int installed)
{
    char **k = calloc(s->n + 1, sizeof(char *));
    size_t i, m = 0;
    for (i = 0; i < s->n; i++) {
        const char *b = strrchr(s->v[i].file, '/');
        if (strcmp(s->v[i].dom, "aten") != 0 ||
            (installed >= 0 && om_installed_path(s->v[i].file, strlen(s->v[i].file)) != installed))
            continue;
        k[m] = malloc(400);
        snprintf(k[m], 400, "%s %s:%u", s->v[i].op, b ? b + 1 : s->v[i].file, s->v[i].line);
        m++;
    }
    qsort(k, m, sizeof(char *), cmp_key);
    *n = m;
    return k;
}

static void free_keys(char **k, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

/* How many of the sorted keys `sub` are in the sorted keys `of` (as multisets). */
static size_t keys_within(char **sub, size_t ns, char **of, size_t no)
{
    size_t i = 0, j = 0, found = 0;
    while (i < ns && j < no) {
        int c = strcmp(sub[i], of[j]);
        if (c == 0) {
            found++;
            i++;
            j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    return found;
}

/*
 * The archive and the printed graph of a module have the same ATen instances, each at the
 * same source line, but where the printed graph can say only the innermost frame: a traced
 * archive keeps the whole stack and names the user's own frame (docs/reports.md, "Source
 * lines"). So every instance the graph text places in the user's code is there in the
 * archive too, and the archive places no more instances in installed packages.
 */
static void test_fixtures__archive_matches_graph_text(void **state)
{
    opmap_ctx *ctx = *state;
    size_t f;
    for (f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
        char name[256];
        opmap_error err;
        opmap_model *a, *g;
        insts sa, sg;
        char **ka, **kg, **ua, **ug, **ia, **ig;
        size_t na, ng, nua, nug, nia, nig, same;
        snprintf(name, sizeof(name), "%s.pt", fixtures[f]);
        a = open_fixture(ctx, name, &err);
        if (!a)
            fail_msg("%s: %s", name, err.message);
        snprintf(name, sizeof(name), "%s.graph.txt", fixtures[f]);
        g = open_fixture(ctx, name, &err);
        if (!g)
            fail_msg("%s: %s", name, err.message);
        walk(ctx, a, &sa);
        walk(ctx, g, &sg);
        ka = aten_keys(&sa, &na, -1);
        kg = aten_keys(&sg, &ng, -1);
        ua = aten_keys(&sa, &nua, 0);
        ug = aten_keys(&sg, &nug, 0);
        ia = aten_keys(&sa, &nia, 1);
        ig = aten_keys(&sg, &nig, 1);
        /* the same ATen instances (the oracle test checks them against torch) ... */
        if (na != ng)
            fail_msg("%s: %zu ATen instances from the archive, %zu from the graph text",
                     fixtures[f], na, ng);
        same = keys_within(kg, ng, ka, na);
        if (getenv("OPMAP_TEST_DUMP"))
            printf("  %s: %zu of %zu at the same line; %zu of %zu in installed packages, "
                   "%zu in the graph text\n", fixtures[f], same, na, nia, na, nig);
        /* ... each of the user's own lines as the graph text prints it ... */
        if (keys_within(ug, nug, ua, nua) != nug)
            fail_msg("%s: only %zu of the graph text's %zu ATen instances in the user's code at "
                     "the same line in the archive", fixtures[f], keys_within(ug, nug, ua, nua),
                     nug);
        /* ... and the others at the same line, or at the user's frame of the stack */
        if (nia > nig || (strstr(fixtures[f], ".scripted") && same != na))
            fail_msg("%s: %zu ATen instances in installed packages from the archive, %zu from "
                     "the graph text; %zu of %zu at the same line", fixtures[f], nia, nig, same,
                     na);
        free_keys(ka, na);
        free_keys(kg, ng);
        free_keys(ua, nua);
        free_keys(ug, nug);
        free_keys(ia, nia);
        free_keys(ig, nig);
        free(sa.v);
        free(sg.v);
        opmap_model_free(a);
        opmap_model_free(g);
    }
}

static void test_fixtures__paths_follow_submodules(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    opmap_model *m = open_fixture(ctx, "resnet18.scripted.pt", &err);
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "aten", "conv2d"), 20);
    assert_true(has_path(&s, "main/layer3/1/conv2/conv2d_5"));
    assert_true(has_path(&s, "main/layer4/0/downsample/0/conv2d_5"));
    /* 8 BasicBlocks, a handful of distinct bodies */
    assert_true(m->ir.n_functions < 40);
    free(s.v);
    opmap_model_free(m);
}

/* ---- call arguments (ir_node.args) ---- */

/* Argument i of an instance's node, or NULL past the end. */
static const ir_attr *arg(const inst *x, uint32_t i)
{
    return x && i < x->node->n_args ? &x->node->args[i] : NULL;
}

static void dump_args(const insts *s, const char *op)
{
    size_t i;
    uint32_t k;
    if (!getenv("OPMAP_TEST_DUMP"))
        return;
    for (i = 0; i < s->n; i++) {
        const ir_node *n = s->v[i].node;
        if (strcmp(s->v[i].op, op) != 0)
            continue;
        printf("  %s::%s %s:", s->v[i].dom, n->op, s->v[i].path);
        for (k = 0; k < n->n_args; k++) {
            const ir_attr *a = &n->args[k];
            printf(" %s%s", a->name ? a->name : "", a->name ? "=" : "");
            if (a->type == IR_ATTR_INT)
                printf("%lld", (long long)a->i);
            else if (a->type == IR_ATTR_FLOAT)
                printf("%g", a->f);
            else if (a->type == IR_ATTR_STRING)
                printf("\"%s\"", a->s.data);
            else if (a->type == IR_ATTR_INTS) {
                size_t j;
                printf("[");
                for (j = 0; j < a->n_ints; j++)
                    printf("%s%lld", j ? "," : "", (long long)a->ints[j]);
                printf("]");
            }
            else if (a->type == IR_ATTR_FLOATS)
                printf("floats[%zu]", a->n_floats);
            else
                printf("_");
        }
        printf("\n");
    }
}

static void expect_int(const ir_attr *a, int64_t v)
{
    assert_non_null(a);
    assert_int_equal(a->type, IR_ATTR_INT);
    assert_int_equal(a->i, v);
}

/* Printed floats are parsed by tsl_parse_float, which may be an ulp or two off for 17-digit
 * literals (9.9999999999999995e-07 reads as 1.0000000000000002e-06). */
static void expect_float(const ir_attr *a, double v)
{
    double d;
    assert_non_null(a);
    assert_int_equal(a->type, IR_ATTR_FLOAT);
    d = a->f - v;
    if (d < 0)
        d = -d;
    if (!(d <= 1e-12 * (v < 0 ? -v : v)))
        fail_msg("%.17g is not %.17g", a->f, v);
}

static void expect_ints(const ir_attr *a, size_t n, const int64_t *v)
{
    size_t i;
    assert_non_null(a);
    assert_int_equal(a->type, IR_ATTR_INTS);
    assert_int_equal(a->n_ints, n);
    for (i = 0; i < n; i++)
        assert_int_equal(a->ints[i], v[i]);
}

static void expect_undef(const ir_attr *a)
{
    assert_non_null(a);
    assert_int_equal(a->type, IR_ATTR_UNDEFINED);
}

/* Every instance of aten::op in a fixture (archive and graph text); returns how many. */
static size_t fixture_insts(opmap_ctx *ctx, const char *name, insts *s, opmap_model **m)
{
    opmap_error err;
    *m = open_fixture(ctx, name, &err);
    if (!*m)
        fail_msg("%s: %s", name, err.message);
    walk(ctx, *m, s);
    return s->n;
}

static void test_args__layer_norm_eps(void **state)
{
    opmap_ctx *ctx = *state;
    static const struct {
        const char *file;
        double eps;
        int64_t dim;
        size_t n;
    } cases[] = {
        /* traced code leaves out trailing arguments at their defaults: swin's eps (1e-5)
         * is not in the archive, its graph text has every argument */
        { "vit_tiny.traced.pt", 1e-6, 32, 5 },
        { "vit_tiny.traced.graph.txt", 1e-6, 32, 5 },
        { "transformer_encoder.scripted.pt", 1e-5, 32, 4 },
        { "transformer_encoder.scripted.graph.txt", 1e-5, 32, 4 },
        { "swin_t.traced.pt", 1e-5, 0, 0 },
        { "swin_t.traced.graph.txt", 1e-5, 0, 0 },
    };
    size_t c, i;
    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        opmap_model *m;
        insts s;
        size_t seen = 0;
        fixture_insts(ctx, cases[c].file, &s, &m);
        dump_args(&s, "layer_norm");
        for (i = 0; i < s.n; i++) {
            const inst *x = &s.v[i];
            if (strcmp(x->dom, "aten") != 0 || strcmp(x->op, "layer_norm") != 0)
                continue;
            seen++;
            if (strcmp(cases[c].file, "swin_t.traced.pt") == 0) {
                assert_int_equal(x->node->n_args, 4);
                assert_int_equal(arg(x, 1)->type, IR_ATTR_INTS);
                continue;
            }
            if (x->node->n_args < 5)
                fail_msg("%s: %s has %u arguments", cases[c].file, x->path, x->node->n_args);
            expect_undef(arg(x, 0));                      /* the input */
            expect_float(arg(x, 4), cases[c].eps);        /* eps */
            if (cases[c].dim)
                expect_ints(arg(x, 1), 1, &cases[c].dim); /* normalized_shape */
            else
                assert_int_equal(arg(x, 1)->type, IR_ATTR_INTS);
        }
        if (cases[c].n)
            assert_int_equal(seen, cases[c].n);
        else
            assert_true(seen > 0);
        free(s.v);
        opmap_model_free(m);
    }
}

static void test_args__dropout_and_fused_layers(void **state)
{
    opmap_ctx *ctx = *state;
    static const struct {
        const char *file;
        double p;
        size_t n;
    } drop[] = {
        { "vit_tiny.traced.pt", 0.0, 7 },
        { "vit_tiny.traced.graph.txt", 0.0, 7 },
        { "inception_v3.traced.pt", 0.5, 1 },
        { "inception_v3.traced.graph.txt", 0.5, 1 },
    };
    static const char *const fused[] = { "transformer_encoder.traced.pt",
                                         "transformer_encoder.traced.graph.txt" };
    size_t c, i;
    for (c = 0; c < sizeof(drop) / sizeof(drop[0]); c++) {
        opmap_model *m;
        insts s;
        size_t seen = 0;
        fixture_insts(ctx, drop[c].file, &s, &m);
        dump_args(&s, "dropout");
        for (i = 0; i < s.n; i++) {
            const inst *x = &s.v[i];
            if (strcmp(x->dom, "aten") != 0 || strcmp(x->op, "dropout") != 0)
                continue;
            seen++;
            assert_int_equal(x->node->n_args, 3);
            expect_float(arg(x, 1), drop[c].p);
            expect_int(arg(x, 2), 0);                      /* train=False: traced in eval */
        }
        assert_int_equal(seen, drop[c].n);
        free(s.v);
        opmap_model_free(m);
    }
    /* scripted, read in eval mode: train is self.training, False; the dropouts the
     * functional code runs with True inside its `if training:` are gone with that block */
    for (c = 0; c < 2; c++) {
        opmap_model *m;
        insts s;
        size_t n_rt = 0, n_true = 0, n_false = 0;
        fixture_insts(ctx, c ? "transformer_encoder.scripted.graph.txt"
                             : "transformer_encoder.scripted.pt", &s, &m);
        for (i = 0; i < s.n; i++) {
            const ir_attr *t;
            if (strcmp(s.v[i].op, "dropout") != 0)
                continue;
            t = arg(&s.v[i], 2);
            assert_non_null(t);
            n_rt += t->type == IR_ATTR_UNDEFINED;
            n_true += t->type == IR_ATTR_INT && t->i == 1;
            n_false += t->type == IR_ATTR_INT && t->i == 0;
        }
        assert_int_equal(n_rt, 0);
        assert_int_equal(n_true, 0);
        assert_true(n_false > 0);
        free(s.v);
        opmap_model_free(m);
    }
    /* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, ..., use_gelu, norm_first,
     * eps, ..., mask, mask_type): None stays undefined */
    for (c = 0; c < 2; c++) {
        opmap_model *m;
        insts s;
        size_t seen = 0;
        fixture_insts(ctx, fused[c], &s, &m);
        for (i = 0; i < s.n; i++) {
            const inst *x = &s.v[i];
            if (strcmp(x->op, "_transformer_encoder_layer_fwd") != 0)
                continue;
            seen++;
            /* the archive leaves out the defaults of mask and mask_type */
            assert_int_equal(x->node->n_args, c ? 20 : 18);
            expect_undef(arg(x, 0));
            expect_int(arg(x, 1), 32);
            expect_int(arg(x, 2), 4);
            expect_int(arg(x, 7), 0);
            expect_int(arg(x, 8), 0);
            expect_float(arg(x, 9), 1e-5);
            if (c)
                expect_undef(arg(x, 18));
        }
        assert_int_equal(seen, 2);
        free(s.v);
        opmap_model_free(m);
    }
}

/* Convolutions of one source line with different strides keep their own: argument lists
 * take part in the hash-consing of graphs and functions. */
static void test_args__conv_strides_not_merged(void **state)
{
    opmap_ctx *ctx = *state;
    static const struct {
        const char *file, *op;
        uint32_t min_args;
    } cases[] = {
        { "resnet18.traced.pt", "_convolution", 13 },
        { "resnet18.traced.graph.txt", "_convolution", 13 },
        { "resnet18.scripted.pt", "conv2d", 6 },
        { "resnet18.scripted.graph.txt", "conv2d", 7 },
    };
    static const int64_t one[] = { 1, 1 }, two[] = { 2, 2 };
    size_t c, i;
    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        opmap_model *m;
        insts s;
        size_t n = 0, n1 = 0, n2 = 0;
        int stem = 0;
        fixture_insts(ctx, cases[c].file, &s, &m);
        dump_args(&s, cases[c].op);
        for (i = 0; i < s.n; i++) {
            const inst *x = &s.v[i];
            const ir_attr *st;
            if (strcmp(x->op, cases[c].op) != 0)
                continue;
            n++;
            assert_true(x->node->n_args >= cases[c].min_args);
            st = arg(x, 3);
            assert_int_equal(st->type, IR_ATTR_INTS);
            assert_int_equal(st->n_ints, 2);
            n1 += st->ints[0] == 1 && st->ints[1] == 1;
            n2 += st->ints[0] == 2 && st->ints[1] == 2;
            if (strstr(x->path, "layer2/0/conv1"))
                expect_ints(st, 2, two);
            if (strstr(x->path, "layer2/0/conv2"))
                expect_ints(st, 2, one);
            if (strstr(x->path, "layer3/0/downsample"))
                expect_ints(st, 2, two);
            if (strcmp(cases[c].op, "_convolution") == 0) {
                expect_int(arg(x, 6), 0);       /* transposed */
                expect_int(arg(x, 8), 1);       /* groups */
            }
            if (arg(x, 4)->n_ints == 2 && arg(x, 4)->ints[0] == 3 &&
                arg(x, 4)->ints[1] == 3)
                stem++;                         /* padding [3, 3]: the 7x7 stem */
        }
        /* 20 convolutions: the stem, 3 stage-opening convs and 3 downsamples with stride
         * 2, 13 with stride 1 */
        assert_int_equal(n, 20);
        assert_int_equal(n2, 7);
        assert_int_equal(n1, 13);
        assert_int_equal(stem, 1);
        free(s.v);
        opmap_model_free(m);
    }
}

/* Archives built in memory: keyword names, strings, tuples, lists something mutates, and
 * two submodules of one source line that differ only in eps. */
static void test_args__code_forms(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    insts s;
    const inst *x;
    size_t i, n5 = 0, n6 = 0;
    static const int64_t l12[] = { 1, 2 }, t23[] = { 2, 3 };
    opmap_model *m = archive(ctx, &err,
        HDR("M")
        "  a : __torch__.LN\n"
        "  b : __torch__.LN6\n"
        "  c : __torch__.LN\n"
        "  def forward(self: __torch__.M,\n"
        "    x: Tensor, n: int) -> Tensor:\n"
        "    _0 = torch.zeros([2, n], dtype=6, layout=None, device=torch.device(\"cpu\"), "
        "pin_memory=False)\n"
        "    _1 = torch.gelu(x, approximate=\"tanh\")\n"
        "    _2 = torch.view(x, [1, 2])\n"
        "    l = [4, 5]\n"
        "    _3 = torch.append(l, 6)\n"
        "    _4 = torch.reshape(x, l)\n"
        "    _5 = torch.max_pool2d(x, (2, 3), [], [0.5, 1.5], [], True)\n"
        "    _6 = torch.add(x, 2.5, alpha=-3)\n"
        "    a = self.a\n"
        "    b = self.b\n"
        "    c = self.c\n"
        "    return (c).forward((b).forward((a).forward(x, ), ), )\n"
        HDR("LN")
        "  def forward(self: __torch__.LN,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return torch.layer_norm(x, [8], None, None, 1.0000000000000001e-05)\n"
        HDR("LN6")
        "  def forward(self: __torch__.LN6,\n"
        "    x: Tensor) -> Tensor:\n"
        "    return torch.layer_norm(x, [8], None, None, 9.9999999999999995e-07)\n");
    if (!m)
        fail_msg("%s", err.message);
    walk(ctx, m, &s);
    dump_args(&s, "zeros");
    dump_args(&s, "max_pool2d");
    x = find(&s, "aten", "zeros");
    assert_int_equal(x->node->n_args, 5);
    expect_undef(arg(x, 0));                       /* [2, n]: n is not a constant */
    assert_null(arg(x, 0)->name);
    expect_int(arg(x, 1), 6);
    assert_string_equal(arg(x, 1)->name, "dtype");
    expect_undef(arg(x, 2));                       /* None */
    assert_string_equal(arg(x, 2)->name, "layout");
    expect_undef(arg(x, 3));                       /* a Device */
    assert_string_equal(arg(x, 3)->name, "device");
    expect_int(arg(x, 4), 0);
    assert_string_equal(arg(x, 4)->name, "pin_memory");
    x = find(&s, "aten", "gelu");
    assert_int_equal(arg(x, 1)->type, IR_ATTR_STRING);
    assert_string_equal(arg(x, 1)->s.data, "tanh");
    assert_int_equal(arg(x, 1)->s.size, 4);
    assert_string_equal(arg(x, 1)->name, "approximate");
    expect_ints(arg(find(&s, "aten", "view"), 1), 2, l12);
    expect_undef(arg(find(&s, "aten", "reshape"), 1));   /* l is appended to */
    x = find(&s, "aten", "max_pool2d");
    expect_ints(arg(x, 1), 2, t23);                /* a tuple constant */
    expect_ints(arg(x, 2), 0, NULL);               /* [] */
    assert_int_equal(arg(x, 3)->type, IR_ATTR_FLOATS);
    assert_int_equal(arg(x, 3)->n_floats, 2);
    assert_true(arg(x, 3)->floats[0] == 0.5 && arg(x, 3)->floats[1] == 1.5);
    expect_int(arg(x, 5), 1);
    x = find(&s, "aten", "add");
    expect_float(arg(x, 1), 2.5);
    expect_int(arg(x, 2), -3);
    /* the two LNs share a function; LN6 keeps its own eps */
    for (i = 0; i < s.n; i++) {
        x = &s.v[i];
        if (strcmp(x->op, "layer_norm") != 0)
            continue;
        assert_int_equal(x->node->n_args, 5);
        if (strstr(x->path, "main/b/")) {
            expect_float(arg(x, 4), 9.9999999999999995e-07);
            n6++;
        } else {
            expect_float(arg(x, 4), 1e-5);
            n5++;
        }
    }
    assert_int_equal(n5, 2);
    assert_int_equal(n6, 1);
    free(s.v);
    opmap_model_free(m);
}

static const char graph_args[] =
    "graph(%input : Tensor, %w : Tensor, %b : Tensor, %n : int):\n"
    "  %eps : float = prim::Constant[value=1.0000000000000001e-05]()\n"
    "  %cudnn : bool = prim::Constant[value=1]()\n"
    "  %768 : int = prim::Constant[value=768]()\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %mode : str = prim::Constant[value=\"tanh\"]()\n"
    "  %shape : int[] = prim::ListConstruct(%768)\n"
    "  %x : Tensor = aten::layer_norm(%input, %shape, %w, %b, %eps, %cudnn) # /m.py:3:0\n"
    "  %g : Tensor = aten::gelu(%x, %mode)\n"
    "  %pc : int[] = prim::Constant[value=[2, -3]]()\n"
    "  %p : Tensor = aten::permute(%g, %pc)\n"
    "  %dyn : int[] = prim::ListConstruct(%768, %n)\n"
    "  %v : Tensor = aten::view(%p, %dyn)\n"
    "  %l : int[] = prim::ListConstruct(%768)\n"
    "  %r : Tensor = aten::reshape(%v, %l)\n"
    "  %a : int[] = aten::append(%l, %768)\n"
    "  %e : int[] = prim::ListConstruct()\n"
    "  %s : Tensor = aten::sum(%r, %e, %cudnn, %none)\n"
    "  %fl : float[] = prim::ListConstruct(%eps, %eps)\n"
    "  %u : Tensor = aten::upsample_nearest2d(%s, %none, %fl)\n"
    "  %c : bool = prim::Constant[value=0]()\n"
    "  %out : Tensor = prim::If(%c)\n"
    "    block0():\n"
    "      %ret : int[] = prim::ListConstruct(%768)\n"
    "      %d : Tensor = aten::dropout(%u, %eps, %c)\n"
    "      -> (%d)\n"
    "    block1():\n"
    "      -> (%u)\n"
    "  %esc : int[] = prim::ListConstruct(%768)\n"
    "  %o2 : Tensor = aten::view(%out, %esc)\n"
    "  return (%o2, %esc)\n";

static void test_args__graph_text(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    opmap_model *m = open_text(ctx, graph_args, &err);
    insts s;
    const inst *x;
    static const int64_t d768[] = { 768 }, pc[] = { 2, -3 };
    size_t i;
    assert_non_null(m);
    walk(ctx, m, &s);
    x = find(&s, "aten", "layer_norm");
    assert_int_equal(x->node->n_args, 6);
    expect_undef(arg(x, 0));
    expect_ints(arg(x, 1), 1, d768);
    expect_undef(arg(x, 2));
    expect_float(arg(x, 4), 1e-5);
    expect_int(arg(x, 5), 1);
    assert_null(arg(x, 4)->name);
    x = find(&s, "aten", "gelu");
    assert_int_equal(arg(x, 1)->type, IR_ATTR_STRING);
    assert_string_equal(arg(x, 1)->s.data, "tanh");
    expect_ints(arg(find(&s, "aten", "permute"), 1), 2, pc);   /* a list constant */
    expect_undef(arg(find(&s, "aten", "view"), 1));            /* [768, n] */
    expect_undef(arg(find(&s, "aten", "reshape"), 1));         /* appended to */
    x = find(&s, "aten", "sum");
    expect_ints(arg(x, 1), 0, NULL);
    expect_int(arg(x, 2), 1);
    expect_undef(arg(x, 3));                                   /* None */
    x = find(&s, "aten", "upsample_nearest2d");
    assert_int_equal(arg(x, 2)->type, IR_ATTR_FLOATS);
    assert_int_equal(arg(x, 2)->n_floats, 2);
    x = find(&s, "aten", "dropout");
    expect_float(arg(x, 1), 1e-5);
    expect_int(arg(x, 2), 0);
    expect_int(arg(find(&s, "prim", "If"), 0), 0);
    /* %esc is returned: the caller may change it */
    for (i = 0; i < s.n; i++)
        if (strcmp(s.v[i].op, "view") == 0)
            expect_undef(arg(&s.v[i], 1));
    /* constants have no inputs, so no arguments */
    assert_int_equal(find(&s, "prim", "Constant")->node->n_args, 0);
    assert_null(find(&s, "prim", "Constant")->node->args);
    free(s.v);
    opmap_model_free(m);
}

/* Many arguments: one node with 20,000 constant inputs (graph text and code) is read, its
 * arguments bounded by its inputs, and a small heap budget refuses it cleanly. */
static void test_args__many_inputs(void **state)
{
    opmap_ctx *ctx = *state, *small;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_error err;
    enum { N = 20000 };
    char *text = malloc((size_t)N * 16 + 4096), *p = text;
    opmap_model *m;
    insts s;
    const inst *x;
    int i;
    /* graph text: aten::cat of N inputs, all the same constant */
    p += sprintf(p, "graph(%%x : Tensor):\n  %%k : int = prim::Constant[value=7]()\n"
                    "  %%l : int[] = prim::ListConstruct(");
    for (i = 0; i < N; i++)
        p += sprintf(p, "%s%%k", i ? ", " : "");
    p += sprintf(p, ")\n  %%y : Tensor = aten::view(%%x, %%l)\n  %%z : Tensor = "
                    "prim::Weird(");
    for (i = 0; i < N; i++)
        p += sprintf(p, "%s%%k", i ? ", " : "");
    p += sprintf(p, ")\n  return (%%y)\n");
    m = open_text(ctx, text, &err);
    if (!m)
        fail_msg("%s", err.message);
    walk(ctx, m, &s);
    x = find(&s, "aten", "view");
    assert_int_equal(arg(x, 1)->type, IR_ATTR_INTS);
    assert_int_equal(arg(x, 1)->n_ints, N);
    assert_int_equal(arg(x, 1)->ints[N - 1], 7);
    x = find(&s, "prim", "Weird");
    assert_int_equal(x->node->n_args, N);
    expect_int(arg(x, N - 1), 7);
    assert_null(arg(x, N));
    free(s.v);
    opmap_model_free(m);
    /* code: torch.view(x, [0, 1, ..., N-1]) */
    p = text;
    p += sprintf(p, HDR("M") "  def forward(self: __torch__.M,\n    x: Tensor) -> Tensor:\n"
                    "    return torch.view(x, [");
    for (i = 0; i < N; i++)
        p += sprintf(p, "%s%d", i ? ", " : "", i);
    p += sprintf(p, "])\n");
    m = archive(ctx, &err, text);
    if (!m)
        fail_msg("%s", err.message);
    walk(ctx, m, &s);
    x = find(&s, "aten", "view");
    assert_int_equal(x->node->n_args, 2);
    assert_int_equal(arg(x, 1)->type, IR_ATTR_INTS);
    assert_int_equal(arg(x, 1)->n_ints, N);
    assert_int_equal(arg(x, 1)->ints[N - 1], N - 1);
    x = find(&s, "prim", "ListConstruct");
    assert_int_equal(x->node->n_args, N);
    expect_int(arg(x, 12345), 12345);
    free(s.v);
    opmap_model_free(m);
    /* a budget too small for it: ELIMIT, nothing leaked (ASan) */
    o.limits.max_heap_bytes = 1u << 20;
    assert_int_equal(opmap_ctx_new(&small, &o, &err), OPMAP_OK);
    assert_null(archive(small, &err, text));
    assert_int_equal(err.code, OPMAP_ELIMIT);
    opmap_ctx_free(small);
    free(text);
}

/* ---- what users will try that is not TorchScript, and hostile archives ---- */

static void expect_fail(opmap_ctx *ctx, const void *data, size_t len, int code,
                        const char *needle)
{
    opmap_error err;
    opmap_model *m = NULL;
    char buf[1200];
    int rc = opmap_model_open_memory(&m, ctx, data, len, "bad.pt", &err);
    opmap_error_format(&err, buf, sizeof(buf));
    if (rc != code || (needle && !strstr(buf, needle)))
        fail_msg("expected %d with '%s', got %d: %s", code, needle ? needle : "", rc, buf);
    assert_null(m);
}

static void test_bad__not_torchscript(void **state)
{
    opmap_ctx *ctx = *state;
    zb_zip z;
    size_t len;
    unsigned char *buf;
    static const char legacy[] = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.";
    /* torch.save(model.state_dict()) and torch.save(model): weights, not a graph */
    buf = slurp("hostile/weights_only.pt", &len);
    expect_fail(ctx, buf, len, OPMAP_EUNSUPPORTED, "torch.jit.trace");
    free(buf);
    buf = slurp("hostile/pickled_module.pt", &len);
    expect_fail(ctx, buf, len, OPMAP_EUNSUPPORTED, "holds weights, not a graph");
    free(buf);
    expect_fail(ctx, legacy, sizeof(legacy) - 1, OPMAP_EUNSUPPORTED, "torch.save");
    /* the layout of a torch.export program, whose JSON is no program: the export reader's */
    buf = slurp("hostile/export.pt2", &len);
    expect_fail(ctx, buf, len, OPMAP_EFORMAT, "export/models/model.json: offset 0: not an "
                "ExportedProgram");
    free(buf);
    /* a zip without code/ */
    assert_int_equal(zb_archive(&z, "readme.txt", "hello", (const char *)NULL), 0);
    expect_fail(ctx, z.buf, z.len, OPMAP_EUNSUPPORTED, "no code/");
    zb_free(&z);
    /* lite-interpreter bytecode only */
    assert_int_equal(zb_archive(&z, "bytecode.pkl", "\x80\x02)." , (const char *)NULL), 0);
    expect_fail(ctx, z.buf, z.len, OPMAP_EUNSUPPORTED, "bytecode");
    zb_free(&z);
}

static void test_bad__zip(void **state)
{
    opmap_ctx *ctx = *state;
    zb_zip z;
    size_t len;
    unsigned char *buf;
    char big[20000];
    zb_entry e[3];
    /* truncated */
    buf = slurp("controlflow.scripted.pt", &len);
    expect_fail(ctx, buf, len / 2, OPMAP_EFORMAT, "bad.pt");
    free(buf);
    /* a (deflated) code entry declaring 4 GiB: refused before anything is inflated */
    assert_int_equal(zb_archive(&z, "data.pkl", ROOT_PKL("M"), "code/__torch__.py", HDR("M"),
                                (const char *)NULL), 0);
    zb_put32(z.buf + z.cd_off[1] + 24, 0xFFFFFFF0u);
    expect_fail(ctx, z.buf, z.len, OPMAP_ELIMIT, "archive/code/__torch__.py");
    zb_free(&z);
    /* a deflated entry that inflates past the size it declares */
    memset(big, 'a', sizeof(big));
    memcpy(big, "class M(Module):\n  #", 20);
    e[0].name = "archive/code/__torch__.py";
    e[0].data = big;
    e[0].len = sizeof(big);
    e[0].deflate = 1;
    e[1].name = "archive/data.pkl";
    e[1].data = ROOT_PKL("M");
    e[1].len = sizeof(ROOT_PKL("M")) - 1;
    e[1].deflate = 0;
    e[2].name = "archive/version";
    e[2].data = "3\n";
    e[2].len = 2;
    e[2].deflate = 0;
    assert_int_equal(zb_build(e, 3, &z), 0);
    zb_put32(z.buf + z.cd_off[0] + 24, 100);
    expect_fail(ctx, z.buf, z.len, OPMAP_EFORMAT, "more than its declared");
    zb_free(&z);
    /* two directory entries sharing one local header and its data */
    e[0].data = HDR("M");
    e[0].len = strlen(HDR("M"));
    e[0].deflate = 0;
    e[1] = e[0];
    e[1].name = "archive/code/__torch__/x.py";
    assert_int_equal(zb_build(e, 2, &z), 0);
    zb_put32(z.buf + z.cd_off[1] + 42, (uint32_t)z.local_off[0]);
    expect_fail(ctx, z.buf, z.len, OPMAP_EFORMAT, "overlap");
    zb_free(&z);
    /* an end record claiming 65,535 entries in a tiny directory */
    assert_int_equal(zb_archive(&z, "code/__torch__.py", HDR("M"), (const char *)NULL), 0);
    zb_put16(z.buf + z.eocd_off + 8, 0xFFFF);
    zb_put16(z.buf + z.eocd_off + 10, 0xFFFF);
    expect_fail(ctx, z.buf, z.len, OPMAP_EFORMAT, "entries");
    zb_free(&z);
}

static void test_bad__storages_never_read(void **state)
{
    opmap_ctx *ctx = *state;
    opmap_error err;
    zb_zip z;
    zb_entry e[4];
    insts s;
    opmap_model *m;
    static const char code[] = HDR("M") "  def forward(self: __torch__.M,\n"
                               "    x: Tensor) -> Tensor:\n    return torch.relu(x)\n";
    e[0].name = "archive/data/0";
    e[0].data = "garbage that is not a tensor";
    e[0].len = 28;
    e[0].deflate = 1;
    e[1].name = "archive/data.pkl";
    e[1].data = ROOT_PKL("M");
    e[1].len = sizeof(ROOT_PKL("M")) - 1;
    e[1].deflate = 0;
    e[2].name = "archive/code/__torch__.py";
    e[2].data = code;
    e[2].len = strlen(code);
    e[2].deflate = 0;
    e[3].name = "archive/version";
    e[3].data = "3\n";
    e[3].len = 2;
    e[3].deflate = 0;
    assert_int_equal(zb_build(e, 4, &z), 0);
    /* the storage declares 4 GiB and a wrong CRC: it is never opened */
    zb_put32(z.buf + z.cd_off[0] + 24, 0xFFFFFFF0u);
    zb_put32(z.buf + z.cd_off[0] + 16, 0x12345678u);
    m = open_zip(ctx, &z, &err);
    zb_free(&z);
    assert_non_null(m);
    walk(ctx, m, &s);
    assert_int_equal(count(&s, "aten", "relu"), 1);
    free(s.v);
    opmap_model_free(m);
}

static void test_bad__pickles(void **state)
{
    opmap_ctx *ctx = *state;
    size_t len;
    unsigned char *buf;
    static const char *const cases[][3] = {
        { "hostile/debug_huge_string.pt", "debug_pkl", NULL },
        { "hostile/debug_deep_marks.pt", "max_pickle_depth", NULL },
        { "hostile/debug_reduce_call.pt", "debug_pkl", NULL },
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        opmap_error err;
        opmap_model *m = NULL;
        char msg[1200];
        buf = slurp(cases[i][0], &len);
        assert_int_not_equal(opmap_model_open_memory(&m, ctx, buf, len, cases[i][0], &err),
                             OPMAP_OK);
        opmap_error_format(&err, msg, sizeof(msg));
        if (!strstr(msg, cases[i][1]))
            fail_msg("%s: %s", cases[i][0], msg);
        free(buf);
    }
}

/* Every file of tests/fixtures/torchscript/hostile (make_hostile.py's MANIFEST): read or
 * refused with the status it names, never a crash. */
static void test_bad__hostile_folder(void **state)
{
    opmap_ctx *ctx = *state;
    static const struct {
        const char *file;
        int code;
        const char *needle;
    } cases[] = {
        { "weights_only.pt", OPMAP_EUNSUPPORTED, "not a graph" },
        { "pickled_module.pt", OPMAP_EUNSUPPORTED, "not a graph" },
        { "export.pt2", OPMAP_EFORMAT, "no graph_module.graph" },
        { "lite_bytecode.ptl", OPMAP_EUNSUPPORTED, "bytecode" },
        { "no_code.pt", OPMAP_EUNSUPPORTED, "no code/" },
        { "truncated.pt", OPMAP_EFORMAT, "truncated" },
        { "zip_bomb.pt", OPMAP_ELIMIT, "archive/code/__torch__.py: entry declares" },
        { "lying_size.pt", OPMAP_EFORMAT, "more than its declared" },
        { "overlap.pt", OPMAP_EFORMAT, "overlap" },
        { "debug_huge_string.pt", OPMAP_EFORMAT, "__torch__.py.debug_pkl: offset" },
        { "debug_deep_marks.pt", OPMAP_ELIMIT, "max_pickle_depth" },
        { "debug_reduce_call.pt", OPMAP_EFORMAT, "debug records" },
        { "deep_code.pt", OPMAP_ELIMIT, "max_depth" },
        { "deep_brackets.pt", OPMAP_ELIMIT, "max_depth" },
        { "fan_out.pt", OPMAP_ELIMIT, "max_nodes" },
        { "syntax_error.pt", OPMAP_EFORMAT, "archive/code/__torch__.py:7:14" },
        { "recursion.pt", OPMAP_OK, NULL },
        { "deep_blocks.graph.txt", OPMAP_ELIMIT, "max_depth" },
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[256], msg[1200];
        opmap_error err;
        opmap_model *m;
        snprintf(name, sizeof(name), "hostile/%s", cases[i].file);
        m = open_fixture(ctx, name, &err);
        opmap_error_format(&err, msg, sizeof(msg));
        if ((m ? OPMAP_OK : err.code) != cases[i].code ||
            (cases[i].needle && !strstr(msg, cases[i].needle)))
            fail_msg("%s: expected %d with '%s', got: %s", cases[i].file, cases[i].code,
                     cases[i].needle ? cases[i].needle : "", m ? "read" : msg);
        opmap_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph__types_constants_sources),
        cmocka_unit_test(test_graph__nested_blocks),
        cmocka_unit_test(test_graph__depth_limit),
        cmocka_unit_test(test_graph__errors),
        cmocka_unit_test(test_graph__fork_sections),
        cmocka_unit_test(test_code__printed_forms),
        cmocka_unit_test(test_code__mangled_classes),
        cmocka_unit_test(test_code__methods_and_containers),
        cmocka_unit_test(test_code__control_flow),
        cmocka_unit_test(test_code__constant_propagation),
        cmocka_unit_test(test_code__debug_lines),
        cmocka_unit_test(test_code__traced_stack_lines),
        cmocka_unit_test(test_code__recursion_and_fan_out),
        cmocka_unit_test(test_code__syntax_errors),
        cmocka_unit_test(test_code__nesting_limits),
        cmocka_unit_test(test_fixtures__archive_matches_graph_text),
        cmocka_unit_test(test_fixtures__paths_follow_submodules),
        cmocka_unit_test(test_args__layer_norm_eps),
        cmocka_unit_test(test_args__dropout_and_fused_layers),
        cmocka_unit_test(test_args__conv_strides_not_merged),
        cmocka_unit_test(test_args__code_forms),
        cmocka_unit_test(test_args__graph_text),
        cmocka_unit_test(test_args__many_inputs),
        cmocka_unit_test(test_bad__not_torchscript),
        cmocka_unit_test(test_bad__zip),
        cmocka_unit_test(test_bad__storages_never_read),
        cmocka_unit_test(test_bad__pickles),
        cmocka_unit_test(test_bad__hostile_folder),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
