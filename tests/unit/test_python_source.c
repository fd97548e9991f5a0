/*
 * tests/unit/test_python_source.c - the Python source reader (readers/python): tokens as
 * Python reads them, imports and aliases, chains, calls, method calls and string arguments
 * with their exact line:column, and the limits and errors of hostile text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/mem.h"
#include "readers/python/python_source.h"

typedef struct scan {
    om_mem mem;
    om_arena arena;
    om_vec sites;
    opmap_error err;
    opmap_limits lim;
    int rc;
} scan;

static void limits(opmap_limits *l)
{
    memset(l, 0, sizeof(*l));
    l->max_file_bytes = 1u << 20;
    l->max_heap_bytes = 64u << 20;
    l->max_depth = 64;
    l->max_string_bytes = 4096;
}

static scan *run_lim(const char *src, size_t len, const opmap_limits *lim)
{
    scan *s = calloc(1, sizeof(*s));
    opmap_allocator al = { 0, 0, 0, 0 };
    assert_non_null(s);
    s->lim = *lim;
    om_mem_init(&s->mem, &al, lim->max_heap_bytes);
    om_arena_init(&s->arena, &s->mem, 4096);
    om_vec_init(&s->sites, sizeof(py_site));
    s->rc = py_scan_source("train.py", (const unsigned char *)src, len, &s->lim, &s->arena,
                           &s->sites, &s->err);
    return s;
}

static scan *run(const char *src)
{
    opmap_limits l;
    limits(&l);
    return run_lim(src, strlen(src), &l);
}

static void done(scan *s)
{
    om_vec_free(&s->sites, &s->mem);
    om_arena_free(&s->arena);
    assert_int_equal(s->mem.used, 0);
    free(s);
}

static const py_site *at(scan *s, size_t i)
{
    if (i >= s->sites.len) {
        size_t k;
        for (k = 0; k < s->sites.len; k++) {
            const py_site *p = &OM_VEC_AT(&s->sites, py_site, k);
            fprintf(stderr, "  site %zu: kind %d %s (%s) %u:%u\n", k, p->kind,
                    p->name ? p->name : "-", p->text ? p->text : "-", p->line, p->col);
        }
        fail_msg("site %zu of %zu", i, s->sites.len);
    }
    return &OM_VEC_AT(&s->sites, py_site, i);
}

/* site i is of `kind`, named `name`, at line:col */
static const py_site *expect(scan *s, size_t i, py_site_kind kind, const char *name,
                             uint32_t line, uint32_t col)
{
    const py_site *p = at(s, i);
    if (p->kind != kind || (name && (!p->name || strcmp(p->name, name))) ||
        p->line != line || p->col != col)
        fail_msg("site %zu: kind %d '%s' at %u:%u, expected kind %d '%s' at %u:%u", i,
                 p->kind, p->name ? p->name : "(null)", p->line, p->col, kind,
                 name ? name : "(null)", line, col);
    return p;
}

static void expect_none_of_kind(scan *s, py_site_kind kind)
{
    size_t k;
    for (k = 0; k < s->sites.len; k++)
        if (at(s, k)->kind == kind)
            fail_msg("site %zu is of kind %d: %s", k, kind, at(s, k)->name);
}

/* ---- imports and aliases ---- */

static void test_imports(void **state)
{
    scan *s = run("import torch as T, os\n"
                  "import torch.distributed\n"
                  "from torch.cuda import amp\n"
                  "from apex import amp as apex_amp, parallel\n"
                  "from . import utils\n"
                  "from ..models.net import (Net,\n"
                  "    Head as H,)\n"
                  "from flash_attn import *\n");
    const py_site *p;
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    p = expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    assert_string_equal(p->bound, "T");
    p = expect(s, 1, PY_SITE_IMPORT, "os", 1, 20);
    assert_string_equal(p->bound, "os");
    p = expect(s, 2, PY_SITE_IMPORT, "torch.distributed", 2, 8);
    assert_string_equal(p->bound, "torch");
    p = expect(s, 3, PY_SITE_IMPORT, "torch.cuda.amp", 3, 24);
    assert_string_equal(p->text, "torch.cuda");
    expect(s, 4, PY_SITE_IMPORT, "apex.amp", 4, 18);
    assert_string_equal(at(s, 4)->bound, "apex_amp");
    expect(s, 5, PY_SITE_IMPORT, "apex.parallel", 4, 35);
    p = expect(s, 6, PY_SITE_IMPORT, ".utils", 5, 15);
    assert_int_equal(p->level, 1);
    p = expect(s, 7, PY_SITE_IMPORT, "..models.net.Net", 6, 27);
    assert_int_equal(p->level, 2);
    p = expect(s, 8, PY_SITE_IMPORT, "..models.net.Head", 7, 5);
    assert_string_equal(p->bound, "H");
    p = expect(s, 9, PY_SITE_IMPORT, "flash_attn.*", 8, 24);
    assert_true(p->star);
    assert_null(p->bound);
    assert_int_equal(s->sites.len, 10);
    done(s);
}

/* An import under `try:` is guarded when an `except` clause of that try catches a failed
 * import (ImportError, ModuleNotFoundError, Exception, BaseException, bare); imports of the
 * except, else and finally clauses, of a try catching something else, or after it are not. */
static void test_guarded_imports(void **state)
{
    scan *s = run("try:\n"
                  "    import flash_attn\n"
                  "    if x:\n"
                  "        import xformers\n"
                  "except (ValueError, ImportError) as e:\n"
                  "    import a_fallback\n"
                  "else:\n"
                  "    import b_else\n"
                  "try:\n"
                  "    import apex\n"
                  "except ValueError:\n"
                  "    pass\n"
                  "def f():\n"
                  "    try:\n"
                  "        import triton\n"
                  "    except:\n"
                  "        triton = None\n"
                  "    try:\n"
                  "        import deepspeed\n"
                  "    finally:\n"
                  "        pass\n"
                  "import torch\n");
    size_t k;
    static const char *const guarded[] = { "flash_attn", "xformers", "triton" };
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    for (k = 0; k < s->sites.len; k++) {
        const py_site *p = at(s, k);
        size_t g;
        int want = 0;
        if (p->kind != PY_SITE_IMPORT)
            continue;
        for (g = 0; g < sizeof(guarded) / sizeof(guarded[0]); g++)
            want |= strcmp(p->name, guarded[g]) == 0;
        if (p->guarded != want)
            fail_msg("import %s: guarded %d, expected %d", p->name, p->guarded, want);
    }
    done(s);
}

static void test_aliases_resolve(void **state)
{
    scan *s = run("import torch as T\n"
                  "from torch.cuda import amp\n"
                  "def train(model):\n"
                  "    import torch.distributed as dist\n"
                  "    if T.cuda.is_available():\n"
                  "        with amp.autocast():\n"
                  "            dist.init_process_group(backend='nccl')\n"
                  "    T.backends.cudnn.benchmark = True\n");
    const py_site *p;
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    expect(s, 1, PY_SITE_IMPORT, "torch.cuda.amp", 2, 24);
    expect(s, 2, PY_SITE_IMPORT, "torch.distributed", 4, 12);
    p = expect(s, 3, PY_SITE_CALL, "torch.cuda.is_available", 5, 8);
    assert_string_equal(p->text, "T.cuda.is_available");
    assert_true(p->resolved);
    expect(s, 4, PY_SITE_CALL, "torch.cuda.amp.autocast", 6, 14);
    expect(s, 5, PY_SITE_CALL, "torch.distributed.init_process_group", 7, 13);
    p = expect(s, 6, PY_SITE_STRING_ARG, "torch.distributed.init_process_group", 7, 45);
    assert_string_equal(p->bound, "backend");
    assert_string_equal(p->value, "nccl");
    assert_string_equal(p->text, "'nccl'");
    assert_true(p->alone);
    assert_int_equal(p->arg_index, 0);
    expect(s, 7, PY_SITE_NAME, "torch.backends.cudnn.benchmark", 8, 5);
    assert_int_equal(s->sites.len, 8);
    done(s);
}

/* ---- calls, methods, strings ---- */

static void test_methods_and_args(void **state)
{
    scan *s = run("import torch\n"
                  "model = Net().cuda()\n"
                  "x = torch.zeros(3, device=\"cuda:0\").to(dev)\n"
                  "d = torch.device(\"cuda\" if ok else \"cpu\")\n"
                  "self.net.cuda(non_blocking=True)\n"
                  "ext = CUDAExtension('k', sources=['a.cpp', \"k.cu\"])\n");
    const py_site *p;
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    p = expect(s, 1, PY_SITE_CALL, "Net", 2, 9);
    assert_false(p->resolved);
    p = expect(s, 2, PY_SITE_METHOD_CALL, ".cuda", 2, 14);
    assert_string_equal(p->text, ".cuda");
    expect(s, 3, PY_SITE_CALL, "torch.zeros", 3, 5);
    p = expect(s, 4, PY_SITE_STRING_ARG, "torch.zeros", 3, 27);
    assert_string_equal(p->bound, "device");
    assert_int_equal(p->arg_index, 1);
    assert_string_equal(p->value, "cuda:0");
    expect(s, 5, PY_SITE_METHOD_CALL, ".to", 3, 36);
    expect(s, 6, PY_SITE_CALL, "torch.device", 4, 5);
    p = expect(s, 7, PY_SITE_STRING_ARG, "torch.device", 4, 18);
    assert_int_equal(p->arg_index, 0);
    assert_null(p->bound);
    assert_false(p->alone);
    expect(s, 8, PY_SITE_STRING_ARG, "torch.device", 4, 36);
    p = expect(s, 9, PY_SITE_METHOD_CALL, ".cuda", 5, 1);
    assert_string_equal(p->text, "self.net.cuda");
    expect(s, 10, PY_SITE_CALL, "CUDAExtension", 6, 7);
    p = expect(s, 11, PY_SITE_STRING_ARG, "CUDAExtension", 6, 21);
    assert_true(p->alone);
    assert_false(p->nested);
    p = expect(s, 12, PY_SITE_STRING_ARG, "CUDAExtension", 6, 35);
    assert_true(p->nested);
    assert_string_equal(p->bound, "sources");
    assert_int_equal(p->arg_index, 1);
    p = expect(s, 13, PY_SITE_STRING_ARG, "CUDAExtension", 6, 44);
    assert_string_equal(p->value, "k.cu");
    assert_int_equal(s->sites.len, 14);
    done(s);
}

static void test_strings_and_comments_are_not_code(void **state)
{
    scan *s = run("import torch\n"
                  "# torch.cuda.synchronize() in a comment\n"
                  "def f():\n"
                  "    \"\"\"Moves to .cuda() and calls torch.cuda.empty_cache().\n"
                  "    x = torch.cuda.current_device()\n"
                  "    \"\"\"\n"
                  "    s = 'model.cuda()'  # torch.cuda\n"
                  "    b = rb'\\x.cuda(' + Br\"torch.cuda\" + u'\\'torch.cuda\\''\n"
                  "    return s\n");
    const py_site *p;
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    p = expect(s, 1, PY_SITE_STRING, NULL, 4, 5);
    assert_true(p->str_flags & 8);
    assert_true(p->alone);
    expect(s, 2, PY_SITE_STRING, NULL, 7, 9);
    p = expect(s, 3, PY_SITE_STRING, NULL, 8, 9);
    assert_string_equal(p->value, "\\x.cuda(");
    expect(s, 4, PY_SITE_STRING, NULL, 8, 24);
    p = expect(s, 5, PY_SITE_STRING, NULL, 8, 41);
    assert_string_equal(p->value, "'torch.cuda'");
    assert_int_equal(s->sites.len, 6);
    expect_none_of_kind(s, PY_SITE_CALL);
    expect_none_of_kind(s, PY_SITE_METHOD_CALL);
    done(s);
}

static void test_fstrings(void **state)
{
    scan *s = run("import torch\n"
                  "dev = f\"cuda:{rank}\"\n"
                  "msg = f'{x[\"a\"]!r:>{w}} {{torch.cuda}} {f\"{y}\"}'\n"
                  "t = torch.device(F\"cuda:{local_rank}\")\n"
                  "z = rf'''a\n{b}\n'''.cuda()\n"
                  "print(f\"{torch.cuda.memory_allocated() / 2**20:.1f} MiB {n=}\")\n");
    const py_site *p;
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    p = expect(s, 1, PY_SITE_STRING, NULL, 2, 7);
    assert_string_equal(p->value, "cuda:{rank}");
    assert_true(p->str_flags & 4);
    expect(s, 2, PY_SITE_STRING, NULL, 3, 7);
    /* the code of the fields: a subscript's string, a nested f-string; `{{` is no field,
     * and a format spec's nested field is no code of interest */
    p = expect(s, 3, PY_SITE_STRING, NULL, 3, 12);
    assert_string_equal(p->value, "a");
    expect(s, 4, PY_SITE_STRING, NULL, 3, 41);
    expect(s, 5, PY_SITE_CALL, "torch.device", 4, 5);
    p = expect(s, 6, PY_SITE_STRING_ARG, "torch.device", 4, 18);
    assert_string_equal(p->value, "cuda:{local_rank}");
    expect(s, 7, PY_SITE_STRING, NULL, 5, 5);
    expect(s, 8, PY_SITE_METHOD_CALL, ".cuda", 7, 4);
    expect(s, 9, PY_SITE_CALL, "print", 8, 1);
    expect(s, 10, PY_SITE_STRING_ARG, "print", 8, 7);
    /* a call inside a field runs: it is found where it is written */
    expect(s, 11, PY_SITE_CALL, "torch.cuda.memory_allocated", 8, 10);
    assert_int_equal(s->sites.len, 12);
    done(s);
}

static void test_decorators_async_continuations(void **state)
{
    scan *s = run("import torch\n"
                  "@torch.cuda.amp.autocast()\n"
                  "async def step(self, batch):\n"
                  "    out = await self.model(\n"
                  "        batch.cuda(),  # comment in brackets\n"
                  "        ((torch.cuda.\n"
                  "          current_device())))\n"
                  "    y = torch.cuda \\\n"
                  "        .synchronize()\n"
                  "    return out\n");
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    expect(s, 1, PY_SITE_CALL, "torch.cuda.amp.autocast", 2, 2);
    expect(s, 2, PY_SITE_METHOD_CALL, ".model", 4, 17);
    expect(s, 3, PY_SITE_METHOD_CALL, ".cuda", 5, 9);
    expect(s, 4, PY_SITE_CALL, "torch.cuda.current_device", 6, 11);
    expect(s, 5, PY_SITE_CALL, "torch.cuda.synchronize", 8, 9);
    assert_int_equal(s->sites.len, 6);
    expect_none_of_kind(s, PY_SITE_STRING);
    done(s);
}

static void test_crlf_tabs_bom(void **state)
{
    static const char src[] = "\xEF\xBB\xBFimport torch\r\n"
                              "if x:\r\n"
                              "\ty = torch.cuda.device_count()\r"
                              "\tz = 'caf\xC3\xA9'.cuda()\r\n";
    opmap_limits l;
    scan *s;
    (void)state;
    limits(&l);
    s = run_lim(src, sizeof(src) - 1, &l);
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_IMPORT, "torch", 1, 8);
    expect(s, 1, PY_SITE_CALL, "torch.cuda.device_count", 3, 6);
    expect(s, 2, PY_SITE_STRING, NULL, 4, 6);
    expect(s, 3, PY_SITE_METHOD_CALL, ".cuda", 4, 13);
    assert_int_equal(s->sites.len, 4);
    done(s);
}

/* a def's name and parameters, `raise ... from`, keywords: no sites */
static void test_definitions(void **state)
{
    scan *s = run("def cuda(self, device='cuda'):\n"
                  "    raise ValueError('x') from err\n"
                  "class Model(nn.Module):\n"
                  "    pass\n");
    (void)state;
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_STRING, NULL, 1, 23);
    expect(s, 1, PY_SITE_CALL, "ValueError", 2, 11);
    expect(s, 2, PY_SITE_STRING_ARG, "ValueError", 2, 22);
    expect(s, 3, PY_SITE_NAME, "nn.Module", 3, 13);
    assert_int_equal(s->sites.len, 4);
    done(s);
}

/* ---- hostile text ---- */

static void expect_error(const char *src, size_t len, const opmap_limits *l, int code,
                         uint32_t line, uint32_t col, const char *msg)
{
    scan *s = run_lim(src, len ? len : strlen(src), l);
    if (s->rc != code || s->err.line != line || s->err.column != col ||
        !strstr(s->err.message, msg))
        fail_msg("rc %d at %u:%u '%s', expected %d at %u:%u '%s'", s->rc, s->err.line,
                 s->err.column, s->err.message, code, line, col, msg);
    assert_string_equal(s->err.source, "train.py");
    done(s);
}

static void test_errors(void **state)
{
    opmap_limits l;
    char *bomb;
    (void)state;
    limits(&l);
    expect_error("x = 1\ns = 'abc\n", 0, &l, OPMAP_EFORMAT, 2, 5, "string not closed on its line");
    expect_error("x = 1\ns = \"\"\"abc\n\n", 0, &l, OPMAP_EFORMAT, 2, 5, "string not closed");
    expect_error("x = f'{a\n", 0, &l, OPMAP_EFORMAT, 1, 5, "string not closed");
    expect_error("a = 1\nb = '\xC3\x28'\n", 0, &l, OPMAP_EFORMAT, 2, 6, "invalid UTF-8");
    expect_error("f(a,\n  b\n", 0, &l, OPMAP_EFORMAT, 1, 2, "bracket never closed");
    expect_error("x = 1)\n", 0, &l, OPMAP_EFORMAT, 1, 6, "closing bracket never opened");
    expect_error("x = 1 $ 2\n", 0, &l, OPMAP_EFORMAT, 1, 7, "unexpected character 0x24");
    expect_error("x = a \\ b\n", 0, &l, OPMAP_EFORMAT, 1, 7, "backslash");
    expect_error("x = '\\x4'\n", 0, &l, OPMAP_EFORMAT, 1, 5, "bad \\x escape");
    /* brackets: CPython's own limit, 200, whatever max_depth is (the 201st is its
     * SyntaxError "too many nested parentheses") */
    bomb = malloc(210);
    assert_non_null(bomb);
    memset(bomb, '(', 210);
    expect_error(bomb, 210, &l, OPMAP_ELIMIT, 1, 201, "nested deeper than 200");
    expect_error(bomb, 200, &l, OPMAP_EFORMAT, 1, 1, "bracket never closed");
    free(bomb);
    l.max_string_bytes = 8;
    expect_error("a.bcd.efg = 1\n", 0, &l, OPMAP_ELIMIT, 1, 1, "max_string_bytes (8)");
    l.max_string_bytes = 4096;
    l.max_depth = 3;
    expect_error("x = f'{f\"{f'{f\"{1}\"}'}\"}'\n", 0, &l, OPMAP_ELIMIT, 1, 11, "max_depth (3)");
    l.max_file_bytes = 4;
    expect_error("import torch\n", 0, &l, OPMAP_ELIMIT, 0, 0, "max_file_bytes");
    limits(&l);
    l.max_heap_bytes = 2048;
    {
        static const char src[] = "import torch\nx = torch.cuda.a(1)\ny = 'cuda'\n";
        scan *s = run_lim(src, sizeof(src) - 1, &l);
        assert_int_equal(s->rc, OPMAP_ELIMIT); /* the budget, not the allocator */
        assert_string_equal(s->err.source, "train.py");
        done(s);
    }
}

/* A literal longer than max_string_bytes is scanned: CPython has no limit; its site keeps
 * the first max_string_bytes of the value. */
static void test_long_literal(void **state)
{
    static const char src[] = "x = 'cuda:0123456789'\nmodel.cuda()\n";
    opmap_limits l;
    scan *s;
    (void)state;
    limits(&l);
    l.max_string_bytes = 12;
    s = run_lim(src, sizeof(src) - 1, &l);
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_STRING, NULL, 1, 5);
    assert_int_equal(at(s, 0)->value_len, 12);
    assert_memory_equal(at(s, 0)->value, "cuda:0123456", 12);
    expect(s, 1, PY_SITE_METHOD_CALL, ".cuda", 2, 1);
    done(s);
}

/* PEP 263: Latin-1 and cp1252 files read in UTF-8, as CPython decodes them; a declaration on
 * line 2 after a comment; other codecs, a BOM with another codec, a byte cp1252 lacks and
 * a non-ASCII byte in an ASCII file are errors naming the place. */
static void test_coding_cookies(void **state)
{
    static const char latin[] = "# -*- coding: latin-1 -*-\nx = 'caf\xE9'\nmodel.cuda()\n";
    static const char cp[] = "#!/usr/bin/python\n# vim: set fileencoding=cp1252 :\n"
                             "import torch\nx = '\x80'\ntorch.cuda.synchronize()\n";
    opmap_limits l;
    scan *s;
    (void)state;
    limits(&l);
    s = run_lim(latin, sizeof(latin) - 1, &l);
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 0, PY_SITE_STRING, NULL, 2, 5);
    assert_int_equal(at(s, 0)->value_len, 5);
    assert_memory_equal(at(s, 0)->value, "caf\xC3\xA9", 5);
    expect(s, 1, PY_SITE_METHOD_CALL, ".cuda", 3, 1);
    done(s);
    s = run_lim(cp, sizeof(cp) - 1, &l);
    assert_int_equal(s->rc, OPMAP_OK);
    expect(s, 1, PY_SITE_STRING, NULL, 4, 5);
    assert_memory_equal(at(s, 1)->value, "\xE2\x82\xAC", 3); /* the euro sign */
    expect(s, 2, PY_SITE_CALL, "torch.cuda.synchronize", 5, 1);
    done(s);
    expect_error("# coding: koi8-r\nimport torch\n", 0, &l, OPMAP_EUNSUPPORTED, 1, 1,
                 "coding 'koi8-r' (PEP 263) is not read");
    expect_error("\xEF\xBB\xBF# coding: latin-1\nx = 1\n", 0, &l, OPMAP_EFORMAT, 1, 1,
                 "BOM and a coding declaration");
    expect_error("# coding: cp1252\nx = '\x81'\n", 0, &l, OPMAP_EFORMAT, 0, 0,
                 "byte 0x81 has no character in cp1252");
    expect_error("# coding: ascii\nx = '\xC3\xA9'\n", 0, &l, OPMAP_EFORMAT, 0, 0,
                 "in a file declared ASCII");
    /* a declaration after code on line 1 is no declaration: the file must be UTF-8 */
    expect_error("x = 1\n# coding: latin-1\ny = '\xE9'\n", 0, &l, OPMAP_EFORMAT, 3, 6,
                 "invalid UTF-8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_imports),
        cmocka_unit_test(test_guarded_imports),
        cmocka_unit_test(test_aliases_resolve),
        cmocka_unit_test(test_methods_and_args),
        cmocka_unit_test(test_strings_and_comments_are_not_code),
        cmocka_unit_test(test_fstrings),
        cmocka_unit_test(test_decorators_async_continuations),
        cmocka_unit_test(test_crlf_tabs_bom),
        cmocka_unit_test(test_definitions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_long_literal),
        cmocka_unit_test(test_coding_cookies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
