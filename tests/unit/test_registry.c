/*
 * tests/unit/test_registry.c - the registry report (OPMAP_REPORT_REGISTRY): streamed, it
 * is opmap_report_write()'s bytes and the JSON stream's gate; what it holds does not grow
 * with the models (the context's allocator counts the bytes at the high-water mark); registry
 * shards, and JSON shards, merge into the bytes of one scan; a cut, edited or malformed
 * registry report is refused with the file, the offset and the field.
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
    snprintf(f->dir, sizeof(f->dir), "/tmp/opmap-registry-XXXXXX");
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

/* A registry stream of models [from, from + n), finished with n_probs problems. */
static opmap_report_stream *streamed(fixture *f, size_t from, size_t n,
                                     const opmap_report_options *ropts, size_t n_probs,
                                     const char *dir)
{
    opmap_report_stream_options so = OPMAP_REPORT_STREAM_OPTIONS_INIT;
    opmap_report_stream *s;
    size_t i;
    so.spool_dir = dir;
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_REGISTRY, ropts, &so,
                                             NULL), OPMAP_OK);
    for (i = 0; i < n; i++)
        assert_int_equal(opmap_report_stream_take(s, scan_one(f, from + i, 0), NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_finish(s, n_probs ? problems : NULL, n_probs, NULL),
                     OPMAP_OK);
    return s;
}

/* The registry of n models streamed against opmap_report_write's, and its gate against the
 * JSON report's. */
static void same_bytes(fixture *f, size_t n, const opmap_report_options *ropts, size_t n_probs,
                       const char *dir)
{
    opmap_report_options whole = *ropts;
    opmap_report_stream *s, *js;
    opmap_result **res = calloc(n ? n : 1, sizeof(*res));
    buf a = { 0 }, b = { 0 };
    size_t i, fa, fb, failing_a, failing_b;
    whole.problems = n_probs ? problems : NULL;
    whole.problem_count = n_probs;
    for (i = 0; i < n; i++)
        res[i] = scan_one(f, i, 0);
    assert_int_equal(opmap_report_write(f->ctx, (const opmap_result *const *)res, n,
                                        OPMAP_REPORT_REGISTRY, &whole, to_buf, &a, NULL),
                     OPMAP_OK);
    s = streamed(f, 0, n, ropts, n_probs, dir);
    assert_int_equal(opmap_report_stream_count(s), n);
    assert_int_equal(opmap_report_stream_write(s, to_buf, &b, NULL), OPMAP_OK);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    /* the gate as the JSON stream's, its findings counted the same */
    assert_int_equal(opmap_report_stream_new(&js, f->ctx, OPMAP_REPORT_JSON, ropts, NULL, NULL),
                     OPMAP_OK);
    for (i = 0; i < n; i++)
        assert_int_equal(opmap_report_stream_take(js, scan_one(f, i, 0), NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_finish(js, n_probs ? problems : NULL, n_probs, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_verdict_passed(opmap_report_stream_verdict(s)),
                     opmap_verdict_passed(opmap_report_stream_verdict(js)));
    assert_int_equal(opmap_verdict_incomplete(opmap_report_stream_verdict(s)),
                     opmap_verdict_incomplete(opmap_report_stream_verdict(js)));
    fa = opmap_report_stream_findings(s, &failing_a);
    fb = opmap_report_stream_findings(js, &failing_b);
    assert_int_equal(fa, fb);
    assert_int_equal(failing_a, failing_b);
    /* one line a model */
    if (n) {
        size_t lines = 0;
        const char *p = strstr(b.data, "\n\"models\":[\n");
        assert_non_null(p);
        for (p = strchr(p + 1, '\n'); p && strncmp(p, "\n]", 2) != 0; p = strchr(p + 1, '\n'))
            lines += p[1] == '[';
        assert_int_equal(lines, n);
    }
    opmap_report_stream_free(js);
    opmap_report_stream_free(s);
    for (i = 0; i < n; i++)
        opmap_result_free(res[i]);
    free(res);
    free(a.data);
    free(b.data);
}

static void registry_stream_is_write(void **state)
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

/* The bytes live at a registry stream's high-water mark, over n models. */
static size_t stream_peak(fixture *f, size_t n)
{
    opmap_report_stream *s;
    size_t base = f->count.live;
    f->count.peak = base;
    s = streamed(f, 0, n, NULL, 0, f->dir);
    opmap_report_stream_free(s);
    assert_int_equal(f->count.live, base);
    return f->count.peak - base;
}

static void registry_memory_flat(void **state)
{
    fixture *f = *state;
    size_t few = stream_peak(f, 30), many = stream_peak(f, 3000);
    if (getenv("OPMAP_TEST_VERBOSE"))
        print_message("peak: %zu bytes over 30 models, %zu over 3000\n", few, many);
    assert_true(many <= few + 4096); /* nothing is kept per model */
}

static int to_file(void *payload, const void *data, size_t size)
{
    return fwrite(data, 1, size, payload) == size ? 0 : -1;
}

/* A registry report of models [from, from + n) in the file dir/name (returned, malloc'd). */
static char *registry_file(fixture *f, const char *name, size_t from, size_t n,
                           const opmap_report_options *ropts, size_t n_probs)
{
    opmap_report_stream *s = streamed(f, from, n, ropts, n_probs, f->dir);
    char *path = malloc(256);
    FILE *fp;
    snprintf(path, 256, "%s/%s", f->dir, name);
    assert_non_null(fp = fopen(path, "wb"));
    assert_int_equal(opmap_report_stream_write(s, to_file, fp, NULL), OPMAP_OK);
    fclose(fp);
    opmap_report_stream_free(s);
    return path;
}

static char *json_file(fixture *f, const char *name, size_t from, size_t n)
{
    opmap_report_stream *s;
    char *path = malloc(256);
    FILE *fp;
    size_t i;
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, NULL, NULL, NULL),
                     OPMAP_OK);
    for (i = 0; i < n; i++)
        assert_int_equal(opmap_report_stream_take(s, scan_one(f, from + i, 0), NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_finish(s, NULL, 0, NULL), OPMAP_OK);
    snprintf(path, 256, "%s/%s", f->dir, name);
    assert_non_null(fp = fopen(path, "wb"));
    assert_int_equal(opmap_report_stream_write(s, to_file, fp, NULL), OPMAP_OK);
    fclose(fp);
    opmap_report_stream_free(s);
    return path;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *d;
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    d = malloc(*len + 1);
    assert_int_equal(fread(d, 1, *len, fp), *len);
    d[*len] = '\0';
    fclose(fp);
    return d;
}

static int take(void *payload, opmap_result *res, opmap_error *err)
{
    return opmap_report_stream_take(payload, res, err);
}

/* The merge of registry shards, and of JSON shards into a registry, is one scan's bytes. */
static void registry_merges(void **state)
{
    fixture *f = *state;
    opmap_report_options o = OPMAP_REPORT_OPTIONS_INIT;
    opmap_report_set *set;
    opmap_report_stream *s;
    opmap_report_format fmt;
    opmap_error err;
    buf out = { 0 };
    size_t one_len, i;
    char *one, *paths[3], *jpaths[3];
    make_problems();
    o.day_rate = 500;
    o.currency = "USD";
    one = slurp(paths[0] = registry_file(f, "one.registry.json", 0, 55, &o, 2), &one_len);
    unlink(paths[0]);
    free(paths[0]);
    paths[0] = registry_file(f, "a.registry.json", 0, 30, &o, 0);
    paths[1] = registry_file(f, "b.registry.json", 30, 1, &o, 0);
    paths[2] = registry_file(f, "c.registry.json", 31, 24, &o, 2);
    jpaths[0] = json_file(f, "a.json", 0, 30);
    jpaths[1] = json_file(f, "b.json", 30, 25);
    assert_int_equal(opmap_report_file_format(f->ctx, paths[0], &fmt, NULL), OPMAP_OK);
    assert_int_equal(fmt, OPMAP_REPORT_REGISTRY);
    assert_int_equal(opmap_report_file_format(f->ctx, jpaths[0], &fmt, NULL), OPMAP_OK);
    assert_int_equal(fmt, OPMAP_REPORT_JSON);
    /* registry shards */
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_REGISTRY, &o, NULL, NULL),
                     OPMAP_OK);
    for (i = 0; i < 3; i++)
        if (opmap_report_stream_read(s, set, paths[i], &err) != OPMAP_OK)
            fail_msg("%s", err.message);
    assert_int_equal(opmap_report_stream_count(s), 55);
    {
        size_t np;
        const opmap_file_problem *p = opmap_report_set_problems(set, &np);
        assert_int_equal(np, 2);
        assert_int_equal(opmap_report_stream_finish(s, p, np, NULL), OPMAP_OK);
    }
    assert_int_equal(opmap_report_stream_write(s, to_buf, &out, NULL), OPMAP_OK);
    assert_int_equal(out.len, one_len);
    assert_memory_equal(out.data, one, one_len);
    opmap_report_stream_free(s);
    /* the same shard again: the shards overlap */
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_REGISTRY, &o, NULL, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_report_stream_read(s, set, paths[0], &err), OPMAP_EFORMAT);
    assert_non_null(strstr(err.message, "the shards overlap"));
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    /* JSON shards into a registry: the same registry as one scan without the problems */
    free(out.data);
    memset(&out, 0, sizeof(out));
    free(one);
    free(paths[0]); /* a.registry.json: written again below */
    one = slurp(paths[0] = registry_file(f, "one2.registry.json", 0, 55, NULL, 0), &one_len);
    unlink(paths[0]);
    free(paths[0]);
    paths[0] = registry_file(f, "a.registry.json", 0, 30, &o, 0);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_REGISTRY, NULL, NULL, NULL),
                     OPMAP_OK);
    for (i = 0; i < 2; i++)
        assert_int_equal(opmap_report_set_stream_file(set, jpaths[i], take, s, NULL), OPMAP_OK);
    /* a stream that took results reads no registry report */
    assert_int_equal(opmap_report_stream_read(s, set, paths[0], &err), OPMAP_EINVAL);
    opmap_report_stream_free(s);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_REGISTRY, NULL, NULL, NULL),
                     OPMAP_OK);
    opmap_report_set_free(set);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    for (i = 0; i < 2; i++)
        assert_int_equal(opmap_report_set_stream_file(set, jpaths[i], take, s, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_finish(s, NULL, 0, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_write(s, to_buf, &out, NULL), OPMAP_OK);
    assert_int_equal(out.len, one_len);
    assert_memory_equal(out.data, one, one_len);
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    /* a JSON stream reads no registry report */
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_JSON, NULL, NULL, NULL),
                     OPMAP_OK);
    assert_int_equal(opmap_report_stream_read(s, set, paths[0], &err), OPMAP_EINVAL);
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    for (i = 0; i < 3; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
    for (i = 0; i < 2; i++) {
        unlink(jpaths[i]);
        free(jpaths[i]);
    }
    free(one);
    free(out.data);
}

/* A registry report cut, edited or malformed: refused with the file, the offset and what. */
static void refuses(fixture *f, const char *text, size_t len, const opmap_report_options *o,
                    const char *what)
{
    char path[256];
    opmap_report_set *set;
    opmap_report_stream *s;
    opmap_error err;
    FILE *fp;
    int rc;
    snprintf(path, sizeof(path), "%s/bad.registry.json", f->dir);
    assert_non_null(fp = fopen(path, "wb"));
    assert_int_equal(fwrite(text, 1, len, fp), len);
    fclose(fp);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_stream_new(&s, f->ctx, OPMAP_REPORT_REGISTRY, o, NULL, NULL),
                     OPMAP_OK);
    rc = opmap_report_stream_read(s, set, path, &err);
    if (rc == OPMAP_OK)
        fail_msg("accepted; expected '%s'", what);
    assert_true(rc == OPMAP_EFORMAT || rc == OPMAP_ELIMIT);
    if (!strstr(err.message, what))
        fail_msg("'%s' does not say '%s'", err.message, what);
    assert_string_equal(err.source, path);
    /* a stream that failed takes nothing more */
    assert_int_equal(opmap_report_stream_finish(s, NULL, 0, NULL), OPMAP_EINVAL);
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    unlink(path);
}

/* text with the first `from` after `after` replaced by `to` (into a new string) */
static char *edit(const char *text, const char *after, const char *from, const char *to)
{
    const char *a = after ? strstr(text, after) : text, *p;
    char *out;
    if (!a || !(p = strstr(a, from)))
        fail_msg("'%s' is not after '%s' in the report", from, after ? after : "its start");
    out = malloc(strlen(text) + strlen(to) + 1);
    memcpy(out, text, (size_t)(p - text));
    strcpy(out + (p - text), to);
    strcat(out, p + strlen(from));
    return out;
}

static void try_edit(fixture *f, const char *text, const char *after, const char *from,
                     const char *to, const char *what)
{
    char *e = edit(text, after, from, to);
    refuses(f, e, strlen(e), NULL, what);
    free(e);
}

static void registry_refuses_hostile(void **state)
{
    fixture *f = *state;
    opmap_report_options o = OPMAP_REPORT_OPTIONS_INIT;
    opmap_policy p = OPMAP_POLICY_INIT;
    size_t len;
    char *path = registry_file(f, "good.registry.json", 0, 12, NULL, 0);
    char *t = slurp(path, &len);
    unlink(path);
    refuses(f, t, len / 2, NULL, "");                                   /* cut in a row */
    refuses(f, t, len - 3, NULL, "");                                   /* cut at the end */
    refuses(f, t, strstr(t, "\"operators\":[\n") - t, NULL, "");        /* cut after models */
    refuses(f, "[]", 2, NULL, "an object");
    assert_non_null(strstr(t, "\n\"root\":\"models/\",\n\"models\":[\n[\"m0000.onnx\","));
    /* wrong types */
    try_edit(f, t, "\n[\"m0001", ",1,[", ",\"1\",[", "models[1].coverage: not a number");
    try_edit(f, t, "\n[\"m0002", "[\"m0002.onnx\"", "[7",
             "models[2].file: not a string");
    try_edit(f, t, "\n[\"m0002", "\"ready\"", "\"fine\"", "models[2].verdict: unknown");
    try_edit(f, t, "\n[\"m0001", "],", "],[],", "models[1]: not an array of 12");
    try_edit(f, t, "\"operators\":[\n", "\"full\"", "\"great\"", "status: unknown value");
    try_edit(f, t, "\"operators\":[\n", "[]]", "[\"no_flag\"]]", "flags: unknown value");
    /* huge numbers */
    try_edit(f, t, "\n[\"m0001", "[0,0,0,1,0]", "[0,0,0,99999999999999999999999,0]",
             "models[1].full: over 2^64");
    try_edit(f, t, "\n[\"m0001", ",1,[", ",1e400,[", "models[1].coverage: not a number");
    try_edit(f, t, "\"gate\"", "\"findings\":", "\"findings\":123456789012345678901234567890",
             "over 2^64");
    /* sums that disagree */
    try_edit(f, t, "\"totals\"", "\"models\":12", "\"models\":13", "but the report lists 12");
    try_edit(f, t, "\"separately\"", "\"min\":", "\"min\":1", "separately: does not add up");
    try_edit(f, t, "\"estimate\"", "\"expected\":", "\"expected\":9", "does not add up");
    try_edit(f, t, "\n[\"m0001", ",1,[", ",0.5,[", "coverage: does not follow");
    try_edit(f, t, "\n[\"m0001", "\"needs-work\"", "\"ready\"",
             "where its counts give 'needs-work'");
    try_edit(f, t, "\"operators\":[\n", "],", "],7,", "not an array of 9");
    try_edit(f, t, "\"gate\"", "\"passed\":false", "\"passed\":true", "passed: disagrees");
    try_edit(f, t, "\"headline\"", "\"files_not_read\":0", "\"files_not_read\":1",
             "files not read");
    try_edit(f, t, "\"columns\"", "\"found\"", "\"fund\"", "column 6 is not 'found'");
    try_edit(f, t, NULL, "opmap-registry/1", "opmap-registry/2", "schema");
    try_edit(f, t, "\"gate\"", "\"waivers\":\"\"", "\"waivers\":\"12\"", "16 hex digits");
    try_edit(f, t, NULL, "\"root\":\"models/\"", "\"root\":\"models\"", "root: not a directory");
    try_edit(f, t, NULL, "\"root\":\"models/\"", "\"root\":7", "root: not a string");
    /* its rows were judged failing on other kinds than this merge's */
    p.fail_on = OPMAP_FAIL_REWRITE;
    o.policy = &p;
    refuses(f, t, len, &o, "give the merge the --fail-on and --waivers its scans had");
    free(t);
    free(path);
}

/* Not a report: the format is not detected. */
static void file_format_refuses(void **state)
{
    fixture *f = *state;
    char path[256];
    opmap_report_format fmt;
    opmap_error err;
    FILE *fp;
    static const char *const bad[] = { "{\"schema\": \"other/1\"}", "{\"models\": []}", "[]",
                                       "{\"schema\": 5}", "" };
    size_t i;
    snprintf(path, sizeof(path), "%s/x.json", f->dir);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_non_null(fp = fopen(path, "wb"));
        fputs(bad[i], fp);
        fclose(fp);
        assert_int_equal(opmap_report_file_format(f->ctx, path, &fmt, &err), OPMAP_EFORMAT);
        assert_string_equal(err.source, path);
    }
    unlink(path);
    assert_int_equal(opmap_report_file_format(f->ctx, path, &fmt, &err), OPMAP_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registry_stream_is_write, setup, teardown),
        cmocka_unit_test_setup_teardown(registry_memory_flat, setup, teardown),
        cmocka_unit_test_setup_teardown(registry_merges, setup, teardown),
        cmocka_unit_test_setup_teardown(registry_refuses_hostile, setup, teardown),
        cmocka_unit_test_setup_teardown(file_format_refuses, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
