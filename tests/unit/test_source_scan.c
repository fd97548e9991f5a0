/*
 * tests/unit/test_source_scan.c - Python sources scanned against the built-in source rules
 * (opmap_scan_sources, docs/source-scan.md): which rule answers which site (aliases, exact
 * before prefix, the longest prefix, calls before names), what never matches (comments,
 * strings that are messages, bytes, rules needing a loop), statuses and the estimate, files
 * that do not tokenize, and the limits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
} fixture;

static int setup(void **state)
{
    static fixture f;
    opmap_error err;
    if (opmap_ctx_new(&f.ctx, NULL, &err) != OPMAP_OK ||
        opmap_table_load_default(&f.table, f.ctx, &err) != OPMAP_OK)
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

static opmap_result *scan_texts(fixture *f, const opmap_source_text *files, size_t n)
{
    opmap_result *res = NULL;
    opmap_error err;
    int rc = opmap_scan_sources_memory(&res, f->ctx, "proj", files, n, f->table, NULL, &err);
    if (rc != OPMAP_OK)
        fail_msg("%s: %s", err.source, err.message);
    return res;
}

static opmap_result *scan_one(fixture *f, const char *name, const char *text)
{
    opmap_source_text t = { name, text, strlen(text) };
    return scan_texts(f, &t, 1);
}

static const opmap_op *find_rule(const opmap_result *r, const char *id)
{
    size_t i;
    for (i = 0; i < opmap_result_op_count(r); i++) {
        const opmap_op *op;
        assert_int_equal(opmap_result_op(r, i, &op), OPMAP_OK);
        assert_string_equal(opmap_op_domain(op), "py");
        if (strcmp(opmap_op_name(op), id) == 0)
            return op;
    }
    return NULL;
}

/* The rule's places, joined by '|', for exact comparisons. */
static const char *places(const opmap_result *r, const char *id)
{
    static char buf[4096];
    const opmap_op *op = find_rule(r, id);
    size_t i, used = 0;
    buf[0] = 0;
    if (!op)
        return "(not found)";
    for (i = 0; i < opmap_op_path_count(op); i++) {
        opmap_path_info p = { .size = sizeof(p) };
        assert_int_equal(opmap_op_path(op, i, &p), OPMAP_OK);
        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "|" : "", p.path);
    }
    assert_int_equal(opmap_op_instances(op), opmap_op_path_count(op));
    return buf;
}

static const char RESOLVE[] =
    "import torch as T\n"                                          /* 1 */
    "import torch.distributed as dist\n"                           /* 2 */
    "from torch.cuda import amp\n"                                 /* 3 */
    "from torch import cuda as C\n"                                /* 4 */
    "T.cuda.synchronize()\n"                                       /* 5 */
    "scaler = amp.GradScaler()\n"                                  /* 6 */
    "T.cuda.nvtx.range_push('x')\n"                                /* 7 */
    "C.some_new_api(1)\n"                                          /* 8 */
    "if T.cuda.is_available():\n"                                  /* 9 */
    "    dist.init_process_group('nccl')\n"                        /* 10 */
    "dist.init_process_group(backend=\"nccl\", rank=0)\n"          /* 11 */
    "model = build(cfg).cuda()\n"                                  /* 12 */
    "x = x.to(f\"cuda:{rank}\")\n"                                 /* 13 */
    "T.backends.cudnn.benchmark = True\n";                         /* 14 */

static void resolution(void **state)
{
    opmap_result *r = scan_one(*state, "t.py", RESOLVE);
    assert_int_equal(opmap_result_format(r), OPMAP_FORMAT_PYTHON);
    /* an alias followed; exact names of torch_npu.npu's exports */
    assert_string_equal(places(r, "torch-cuda-npu-exports"), "t.py:5:1 T.cuda.synchronize");
    /* the longest prefix: torch.cuda.amp, not the torch.cuda fallback */
    assert_string_equal(places(r, "torch-cuda-amp"),
                        "t.py:3:1 torch.cuda.amp|t.py:6:10 amp.GradScaler");
    assert_string_equal(places(r, "torch-cuda-nvtx"), "t.py:7:1 T.cuda.nvtx.range_push");
    /* the fallback answers what no longer prefix does */
    assert_string_equal(places(r, "torch-cuda-other"), "t.py:8:1 C.some_new_api");
    /* importing the module itself is no use */
    assert_string_equal(places(r, "import-cuda-module"), "t.py:4:1 torch.cuda");
    /* a call rule before the prefix */
    assert_string_equal(places(r, "torch-cuda-is-available"), "t.py:9:4 T.cuda.is_available");
    /* a positional string of a named call, and a keyword */
    assert_string_equal(places(r, "init-process-group-nccl"), "t.py:10:29 'nccl'");
    assert_string_equal(places(r, "backend-nccl"), "t.py:11:33 \"nccl\"");
    assert_string_equal(places(r, "method-cuda"), "t.py:12:19 .cuda");
    /* an f-string's value keeps its fields: still a cuda device */
    assert_string_equal(places(r, "to-cuda-string"), "t.py:13:10 f\"cuda:{rank}\"");
    assert_string_equal(places(r, "cudnn-flags"), "t.py:14:1 T.backends.cudnn.benchmark");
    opmap_result_free(r);
}

static const char SILENT[] =
    "# model.cuda() and torch.cuda.synchronize() in a comment\n"
    "'''Docstring: call torch.cuda.empty_cache() and .cuda() on CUDA.'''\n"
    "print('moving the model to cuda now')\n"
    "log.info(\"nccl backend: %s\", name)\n"
    "parser.add_argument('--amp', help='use torch.cuda.amp')\n"
    "raw = b'cuda'\n"
    "print('cuda: out of memory, try a smaller batch')\n"
    "for batch in loader:\n"
    "    pass\n"
    "loss.item()\n"
    "t.cpu()\n"
    "cuda = 1\n"
    "def cuda(x): return x\n";

static void strings_and_comments_are_silent(void **state)
{
    opmap_result *r = scan_one(*state, "s.py", SILENT);
    size_t i;
    for (i = 0; i < opmap_result_op_count(r); i++) {
        const opmap_op *op;
        opmap_result_op(r, i, &op);
        fail_msg("unexpected finding %s: %s", opmap_op_name(op), places(r, opmap_op_name(op)));
    }
    opmap_result_free(r);
}

static const char LOOPS[] =
    "for step, (x, y) in enumerate(loader):\n"                    /* 1 */
    "    total += loss.item()\n"                                   /* 2 */
    "    if step % 10 == 0:\n"                                     /* 3 */
    "        print(loss.cpu())\n"                                  /* 4 */
    "print(total.item())\n"                                        /* 5: after the loop */
    "while True: v = t.cpu()\n"                                    /* 6: a one-line body */
    "vals = [t.item() for t in ts]\n"                              /* 7: a comprehension */
    "async def f():\n"                                             /* 8 */
    "    async for b in s:\n"                                      /* 9 */
    "        b.item()\n"                                           /* 10 */
    "    b.item()\n"                                               /* 11: after it */
    "x = sum(p.item() for p in params)\n"                          /* 12: a generator */
    "s = f\"{loss.item()}\" if q else [y.cpu()]\n";               /* 13: neither */

/* The guides' performance traps count only inside a loop: the reader tells which sites are. */
static void loop_traps(void **state)
{
    opmap_result *r = scan_one(*state, "l.py", LOOPS);
    assert_string_equal(places(r, "item-in-loop"),
                        "l.py:2:14 loss.item|l.py:7:9 t.item|l.py:10:9 b.item|l.py:12:9 p.item");
    assert_string_equal(places(r, "cpu-in-loop"), "l.py:4:15 loss.cpu|l.py:6:17 t.cpu");
    opmap_result_free(r);
}

/* What a second read found (each a regression test): an exact rule before a prefix for an
 * imported name, a format spec's fill character, a while condition in its loop. */
static void review_cases(void **state)
{
    opmap_result *r = scan_one(*state, "v.py",
                               "import torch\n"
                               "from torch.cuda import is_available\n"
                               "if is_available(): pass\n"
                               "s = f\"{x:'>10} {torch.cuda.synchronize()}\"\n"
                               "while loss.item() > 0.1: pass\n");
    assert_string_equal(places(r, "torch-cuda-is-available"),
                        "v.py:2:1 torch.cuda.is_available|v.py:3:4 is_available");
    assert_null(find_rule(r, "torch-cuda-other"));
    assert_string_equal(places(r, "torch-cuda-npu-exports"), "v.py:4:17 torch.cuda.synchronize");
    assert_string_equal(places(r, "item-in-loop"), "v.py:5:7 loss.item");
    opmap_result_free(r);
}

static void statuses_and_estimate(void **state)
{
    fixture *f = *state;
    opmap_source_text files[] = {
        { "a/train.py", "import flash_attn\nx.cuda()\ny.cuda()\nimport xformers.ops\n", 0 },
        { "a/kern.cu", "__global__ void k() {}\n", 0 },
        { "a/README.md", "torch.cuda.synchronize()\n", 0 },
    };
    opmap_summary s = { .size = sizeof(s) };
    const opmap_op *op;
    opmap_result *r;
    size_t i;
    for (i = 0; i < 3; i++)
        files[i].size = strlen(files[i].data);
    r = scan_texts(f, files, 3);
    assert_int_equal(opmap_result_op_count(r), 4);     /* README.md is no source */
    op = find_rule(r, "import-flash-attn");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
    op = find_rule(r, "file-cu");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_REWRITE);
    assert_string_equal(places(r, "file-cu"), "a/kern.cu");
    op = find_rule(r, "import-xformers");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_UNMAPPED); /* unknown: nobody published */
    op = find_rule(r, "method-cuda");
    assert_int_equal(opmap_op_status(op), OPMAP_OP_FULL);
    assert_int_equal(opmap_op_instances(op), 2);
    /* a rule is one cost however often it is found: 2.5 + 2.5 + 0.2 + 0.1 */
    assert_int_equal(opmap_result_summary(r, &s), OPMAP_OK);
    assert_int_equal(s.effort_total.expected, 2500 + 2500 + 200 + 100);
    assert_int_equal(s.operators_total, 4);
    assert_int_equal(s.instances_total, 5);
    opmap_result_free(r);
}

static void a_bad_file_is_a_warning(void **state)
{
    fixture *f = *state;
    opmap_source_text files[] = {
        { "bad.py", "x = 'never closed\n", 0 },
        { "utf.py", "x = 1\ny = '\xff'\n", 0 },
        { "good.py", "m.cuda()\n", 0 },
        { "field.py", "x = 1\nx = 1;       y = f\"{x} {'\\x4'}\"\n", 0 },
    };
    opmap_diag_info d = { .size = sizeof(d) };
    opmap_result *r;
    size_t i;
    for (i = 0; i < 4; i++)
        files[i].size = strlen(files[i].data);
    r = scan_texts(f, files, 4);
    assert_non_null(find_rule(r, "method-cuda"));
    assert_int_equal(opmap_result_diag_count(r), 3);
    assert_int_equal(opmap_result_diag(r, 0, &d), OPMAP_OK);
    assert_int_equal(d.level, OPMAP_DIAG_WARNING);
    assert_string_equal(d.where, "bad.py:1:5");
    assert_non_null(strstr(d.message, "not scanned"));
    assert_int_equal(opmap_result_diag(r, 1, &d), OPMAP_OK);
    assert_string_equal(d.where, "utf.py:2:6");
    assert_non_null(strstr(d.message, "UTF-8"));
    /* an error in an f-string's field names where the field is in the file */
    assert_int_equal(opmap_result_diag(r, 2, &d), OPMAP_OK);
    assert_string_equal(d.where, "field.py:2:25");
    opmap_result_free(r);
}

static void limits(void **state)
{
    fixture *f = *state;
    opmap_ctx *small;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_result *r = NULL;
    opmap_error err;
    opmap_diag_info d = { .size = sizeof(d) };
    opmap_source_text t = { "big.py", "x.cuda()\n# padding padding padding padding\n", 0 };
    const char *missing = "/nonexistent/opmap/train.py";
    t.size = strlen(t.data);
    /* a file over max_file_bytes: a warning naming the limit, no finding from it */
    o.limits.max_file_bytes = 16;
    assert_int_equal(opmap_ctx_new(&small, &o, &err), OPMAP_OK);
    assert_int_equal(opmap_scan_sources_memory(&r, small, "p", &t, 1, f->table, NULL, &err),
                     OPMAP_OK);
    assert_int_equal(opmap_result_op_count(r), 0);
    assert_int_equal(opmap_result_diag(r, 0, &d), OPMAP_OK);
    assert_non_null(strstr(d.message, "max_file_bytes"));
    opmap_result_free(r);
    opmap_ctx_free(small);
    /* a heap budget too small: an error, never a crash */
    o.limits.max_file_bytes = 0;
    o.limits.max_heap_bytes = 4096;
    assert_int_equal(opmap_ctx_new(&small, &o, &err), OPMAP_OK);
    r = NULL;
    assert_int_not_equal(opmap_scan_sources_memory(&r, small, "p", &t, 1, f->table, NULL, &err),
                         OPMAP_OK);
    assert_null(r);
    opmap_ctx_free(small);
    /* a file that cannot be read fails the call, naming it */
    assert_int_equal(opmap_scan_sources(&r, f->ctx, "p", &missing, 1, f->table, NULL, &err),
                     OPMAP_EIO);
    assert_null(r);
    assert_non_null(strstr(err.source, "train.py"));
    /* NULL arguments */
    assert_int_equal(opmap_scan_sources(NULL, f->ctx, "p", &missing, 1, f->table, NULL, &err),
                     OPMAP_EINVAL);
    assert_int_equal(opmap_scan_sources_memory(&r, f->ctx, "p", NULL, 1, f->table, NULL, &err),
                     OPMAP_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolution),
        cmocka_unit_test(strings_and_comments_are_silent),
        cmocka_unit_test(loop_traps),
        cmocka_unit_test(review_cases),
        cmocka_unit_test(statuses_and_estimate),
        cmocka_unit_test(a_bad_file_is_a_warning),
        cmocka_unit_test(limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
