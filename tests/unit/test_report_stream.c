/*
 * tests/unit/test_report_stream.c - reports written one model at a time
 * (opmap_report_stream_*) and read back one model at a time (opmap_report_set_stream_file):
 * the streamed report is opmap_report_write()'s bytes under every option that changes
 * them; what the stream holds does not grow with the models (counted by the context's
 * allocator: the bytes live at the high-water mark, never a time or an RSS figure); a
 * report streamed back and streamed out again is the same bytes; a cut or edited report,
 * or two that overlap, are refused with the file, the offset and the field.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "../support/onnx_build.h"

static const char table_yaml[] =
    "schema: 1\n"
    "about: {name: t, version: \"1\"}\n"
    "sources:\n  - {id: s}\n"
    "ops:\n"
    "  - {domain: ai.onnx, op: Conv, since: 11, status: full, sources: [s],\n"
    "     ascend: {op: Conv2D, engine: ai_core}}\n"
    "  - {domain: ai.onnx, op: Relu, since: 14, status: partial, sources: [s], hint: x}\n";

/* The context's allocator counts the bytes live and their high-water mark. */
typedef struct counter {
    size_t live, peak;
} counter;

static void *c_malloc(void *o, size_t n)
{
    counter *c = o;
    size_t *p = malloc(n + 16);
    if (!p)
        return NULL;
    p[0] = n;
    c->live += n;
    if (c->live > c->peak)
        c->peak = c->live;
    return (char *)p + 16;
}

static void c_free(void *o, void *q)
{
    counter *c = o;
    size_t *p;
    if (!q)
        return;
    p = (size_t *)((char *)q - 16);
    c->live -= p[0];
    free(p);
}

static void *c_realloc(void *o, void *q, size_t n)
{
    counter *c = o;
    size_t *p = q ? (size_t *)((char *)q - 16) : NULL, old = p ? p[0] : 0;
    size_t *np = realloc(p, n + 16);
    if (!np)
        return NULL;
    np[0] = n;
    c->live = c->live - old + n;
    if (c->live > c->peak)
        c->peak = c->live;
    return (char *)np + 16;
}

typedef struct fixture {
    counter count;
    opmap_ctx *ctx;
    opmap_table *table;
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    o.allocator.malloc_fn = c_malloc;
    o.allocator.realloc_fn = c_realloc;
    o.allocator.free_fn = c_free;
    o.allocator.opaque = &f->count;
    assert_int_equal(opmap_ctx_new(&f->ctx, &o, NULL), OPMAP_OK);
    assert_int_equal(opmap_table_load_memory(&f->table, f->ctx, table_yaml, strlen(table_yaml),
                                             "t.yaml", NULL), OPMAP_OK);
    snprintf(f->dir, sizeof(f->dir), "/tmp/opmap-stream-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    opmap_table_free(f->table);
    opmap_ctx_free(f->ctx);
    assert_int_equal(f->count.live, 0);
    rmdir(f->dir); /* the spools were unlinked when made: it is empty */
    free(f);
    return 0;
}

/* Model i: Conv, and every third one Relu, every fifth one an operator no table has. */
static opmap_result *scan_one(fixture *f, size_t i, int plain)
{
    char name[64];
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len;
    opmap_model *model;
    opmap_result *res;
    snprintf(name, sizeof(name), "models/m%04zu.onnx", i);
    mb_init(&b);
    g = mb_graph(&b, "g");
    mb_node(&b, g, "Conv", NULL, NULL, NULL, NULL);
    if (!plain && i % 3 == 0)
        mb_node(&b, g, "Relu", NULL, NULL, NULL, NULL);
    if (!plain && i % 5 == 0)
        mb_node(&b, g, "NoSuchOp", "com.example", NULL, NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "com.example", 1);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, name, NULL), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, NULL), OPMAP_OK);
    opmap_model_free(model);
    mb_free(&b);
    return res;
}

typedef struct buf {
    char *data;
    size_t len;
} buf;

static int to_buf(void *payload, const void *data, size_t size)
{
    buf *b = payload;
    b->data = realloc(b->data, b->len + size + 1);
    memcpy(b->data + b->len, data, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 0;
}

static opmap_error e_unreadable, e_skipped;
static opmap_file_problem problems[2];

static void make_problems(void)
{
    memset(&e_unreadable, 0, sizeof(e_unreadable));
    e_unreadable.code = OPMAP_EFORMAT;
    e_unreadable.offset = 12;
    snprintf(e_unreadable.source, sizeof(e_unreadable.source), "bad.onnx");
    snprintf(e_unreadable.message, sizeof(e_unreadable.message), "truncated");
    e_skipped = e_unreadable;
    e_skipped.code = OPMAP_EUNSUPPORTED;
    e_skipped.offset = OPMAP_NO_OFFSET;
    snprintf(e_skipped.source, sizeof(e_skipped.source), "w.pt");
    problems[0].file = "bad.onnx";
    problems[0].error = &e_unreadable;
    problems[1].file = "w.pt";
    problems[1].skipped = 1;
    problems[1].error = &e_skipped;
}

/* The stream's report of n models against opmap_report_write's, under `ropts`. */
static void same_bytes(fixture *f, size_t n, const opmap_report_options *ropts, size_t n_probs,
                       const char *dir)
{
    opmap_report_stream_options so = OPMAP_REPORT_STREAM_OPTIONS_INIT;
    opmap_report_options whole = *ropts;
    opmap_report_stream *s;
    opmap_result **res = calloc(n ? n : 1, sizeof(*res));
    buf a = { 0 }, b = { 0 };
    size_t i;
    so.spool_dir = dir;
    whole.problems = n_probs ? problems : NULL;
    whole.problem_count = n_probs;
    for (i = 0; i < n; i++)
        res[i] = scan_one(f, i, 0);
    assert_int_equal(opmap_report_write(f->ctx, (const opmap_result *const *)res, n,
                                        OPMAP_REPORT_JSON, &whole, to_buf, &a, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, ropts, &so, NULL),
                     OPMAP_OK);
    for (i = 0; i < n; i++)
        assert_int_equal(opmap_report_stream_take(s, scan_one(f, i, 0), NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_finish(s, n_probs ? problems : NULL, n_probs, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_report_stream_count(s), n);
    assert_int_equal(opmap_report_stream_write(s, to_buf, &b, NULL), OPMAP_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    free(b.data); /* written again: the spool reads back as often as asked */
    memset(&b, 0, sizeof(b));
    assert_int_equal(opmap_report_stream_write(s, to_buf, &b, NULL), OPMAP_OK);
    assert_int_equal(a.len, b.len);
    {
        opmap_verdict *v;
        opmap_policy p = ropts->policy ? *ropts->policy : (opmap_policy)OPMAP_POLICY_INIT;
        p.problems = n_probs ? problems : NULL;
        p.problem_count = n_probs;
        assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)res, n, &p,
                                            NULL), OPMAP_OK);
        assert_int_equal(opmap_verdict_passed(v),
                         opmap_verdict_passed(opmap_report_stream_verdict(s)));
        {   /* the models' findings were written out: the stream counts them */
            size_t k, failing = 0, streamed_failing = 0;
            for (k = 0; k < opmap_verdict_finding_count(v); k++) {
                opmap_finding fi = { .size = sizeof(fi) };
                opmap_verdict_finding(v, k, &fi);
                failing += fi.fails != 0;
            }
            assert_int_equal(opmap_verdict_finding_count(v),
                             opmap_report_stream_findings(s, &streamed_failing));
            assert_int_equal(failing, streamed_failing);
            assert_true(opmap_verdict_finding_count(opmap_report_stream_verdict(s)) <=
                        n_probs + 1);
        }
        opmap_verdict_free(v);
    }
    opmap_report_stream_free(s);
    for (i = 0; i < n; i++)
        opmap_result_free(res[i]);
    free(res);
    free(a.data);
    free(b.data);
}

static void stream_is_write(void **state)
{
    fixture *f = *state;
    opmap_report_options o = OPMAP_REPORT_OPTIONS_INIT;
    opmap_policy p = OPMAP_POLICY_INIT;
    make_problems();
    same_bytes(f, 0, &o, 0, NULL);
    same_bytes(f, 0, &o, 2, f->dir);
    same_bytes(f, 1, &o, 0, f->dir);
    same_bytes(f, 1, &o, 2, NULL);
    same_bytes(f, 40, &o, 0, f->dir);
    same_bytes(f, 40, &o, 2, NULL);
    o.flags = OPMAP_REPORT_COMPACT;
    o.day_rate = 640;
    o.currency = "EUR";
    p.fail_on = 0x7ffff;
    p.max_effort = 1500;
    o.policy = &p;
    o.blocked_on = 1u << 1;
    same_bytes(f, 1, &o, 0, f->dir);
    same_bytes(f, 40, &o, 2, f->dir);
    p.max_effort = 1000000;
    same_bytes(f, 40, &o, 2, NULL);
}

/* The bytes live at the stream's high-water mark, over n models of one operator. */
static size_t stream_peak(fixture *f, size_t n, int plain)
{
    opmap_report_stream_options so = OPMAP_REPORT_STREAM_OPTIONS_INIT;
    opmap_report_stream *s;
    size_t i, base;
    so.spool_dir = f->dir;
    base = f->count.live;
    f->count.peak = base;
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, NULL, &so, NULL),
                     OPMAP_OK);
    for (i = 0; i < n; i++)
        assert_int_equal(opmap_report_stream_take(s, scan_one(f, i, plain), NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_finish(s, NULL, 0, NULL), OPMAP_OK);
    if (!plain)
        assert_true(opmap_report_stream_findings(s, NULL) >= n / 3);
    opmap_report_stream_free(s);
    assert_int_equal(f->count.live, base);
    return f->count.peak - base;
}

static void stream_memory_flat(void **state)
{
    fixture *f = *state;
    size_t few = stream_peak(f, 30, 1), many = stream_peak(f, 3000, 1);
    if (getenv("OPMAP_TEST_VERBOSE"))
        print_message("peak: %zu bytes over 30 models, %zu over 3000\n", few, many);
    /* a hundred times the models, the same memory: nothing is kept per model */
    assert_true(many <= few + 4096);
    /* ... nor per finding: the models' findings are written out with them */
    few = stream_peak(f, 30, 0);
    many = stream_peak(f, 3000, 0);
    if (getenv("OPMAP_TEST_VERBOSE"))
        print_message("with findings: %zu bytes over 30 models, %zu over 3000\n", few, many);
    assert_true(many <= few + 4096);
}

/* Results read back, handed to a report stream. */
static int take(void *payload, opmap_result *res, opmap_error *err)
{
    return opmap_report_stream_take(payload, res, err);
}

static char *write_file(fixture *f, const char *name, size_t from, size_t n, buf *text)
{
    opmap_result **res = calloc(n, sizeof(*res));
    char *path = malloc(256);
    FILE *fp;
    size_t i;
    for (i = 0; i < n; i++)
        res[i] = scan_one(f, from + i, 0);
    memset(text, 0, sizeof(*text));
    assert_int_equal(opmap_report_write(f->ctx, (const opmap_result *const *)res, n,
                                        OPMAP_REPORT_JSON, NULL, to_buf, text, NULL), OPMAP_OK);
    snprintf(path, 256, "%s/%s", f->dir, name);
    assert_non_null(fp = fopen(path, "wb"));
    assert_int_equal(fwrite(text->data, 1, text->len, fp), text->len);
    fclose(fp);
    for (i = 0; i < n; i++)
        opmap_result_free(res[i]);
    free(res);
    return path;
}

static void read_back_streamed(void **state)
{
    fixture *f = *state;
    opmap_report_set *set;
    opmap_report_stream *s;
    buf one, part, out = { 0 };
    char *a = write_file(f, "a.json", 0, 30, &part), *b, *c;
    opmap_error err;
    free(part.data);
    b = write_file(f, "b.json", 30, 25, &part);
    free(part.data);
    c = write_file(f, "one.json", 0, 55, &one); /* what one scan over both writes */
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, NULL, NULL, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_report_set_stream_file(set, a, take, s, &err), OPMAP_OK);
    assert_int_equal(opmap_report_set_stream_file(set, b, take, s, &err), OPMAP_OK);
    assert_int_equal(opmap_report_set_count(set), 0); /* nothing kept */
    assert_int_equal(opmap_report_stream_finish(s, NULL, 0, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_write(s, to_buf, &out, NULL), OPMAP_OK);
    assert_int_equal(out.len, one.len);
    assert_memory_equal(out.data, one.data, one.len);
    opmap_report_stream_free(s);
    /* the same report again: the shards overlap */
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, NULL, NULL, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_report_set_stream_file(set, a, take, s, &err), OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "the shards overlap"));
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    unlink(a);
    unlink(b);
    unlink(c);
    free(a);
    free(b);
    free(c);
    free(one.data);
    free(out.data);
}

/* A report cut, edited or malformed: refused with the file, the offset and the field. */
static void refuses(fixture *f, const char *text, size_t len, int code, const char *what)
{
    char path[256];
    opmap_report_set *set;
    opmap_report_stream *s;
    opmap_error err;
    FILE *fp;
    snprintf(path, sizeof(path), "%s/bad.json", f->dir);
    assert_non_null(fp = fopen(path, "wb"));
    assert_int_equal(fwrite(text, 1, len, fp), len);
    fclose(fp);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, NULL, NULL, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_report_set_stream_file(set, path, take, s, &err), code);
    if (!strstr(err.message, what))
        fail_msg("'%s' does not say '%s'", err.message, what);
    assert_string_equal(err.source, path);
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    unlink(path);
}

static void refuses_bad_reports(void **state)
{
    fixture *f = *state;
    buf t;
    char *path = write_file(f, "good.json", 0, 12, &t), *edit, *p;
    refuses(f, t.data, t.len / 2, OPMAP_EFORMAT, "");                 /* cut in a model */
    refuses(f, t.data, t.len - 3, OPMAP_EFORMAT, "");                 /* cut at the end */
    edit = strdup(t.data);
    p = strstr(edit, "\"models\": 12");                                /* totals edited */
    assert_non_null(p);
    p[11] = '3';
    refuses(f, edit, t.len, OPMAP_EFORMAT, "but the report lists 12 models");
    strcpy(edit, t.data);
    p = strstr(edit, "\"status\": \"full\"");                          /* a model's field */
    memcpy(p + 11, "fine", 4);
    refuses(f, edit, t.len, OPMAP_EFORMAT, "models[0].operators[");
    strcpy(edit, t.data);
    p = strstr(edit, "\"gate\"");                                      /* a bracket astray */
    p = strchr(p, '[');
    *p = '{';
    refuses(f, edit, t.len, OPMAP_EFORMAT, "closes nothing open");
    refuses(f, "[]", 2, OPMAP_EFORMAT, "an object");
    free(edit);
    free(t.data);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(stream_is_write, setup, teardown),
        cmocka_unit_test_setup_teardown(stream_memory_flat, setup, teardown),
        cmocka_unit_test_setup_teardown(read_back_streamed, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_bad_reports, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
