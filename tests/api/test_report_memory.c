/*
 * tests/api/test_report_memory.c - reports into memory and into files, and the portfolio
 * estimate (opmap_report_write_memory, opmap_report_write_file, opmap_portfolio_estimate),
 * through the public API of libopmap.so only.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <opmap/opmap.h>

static char model_a[1024], model_b[1024];

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
    opmap_result *res[2];
    char dir[64];
} fixture;

static opmap_result *scan_file(opmap_ctx *ctx, const opmap_table *table, const char *path)
{
    opmap_model *m = NULL;
    opmap_result *r = NULL;
    opmap_error err;
    assert_int_equal(opmap_model_open_file(&m, ctx, path, &err), OPMAP_OK);
    assert_int_equal(opmap_scan(&r, ctx, m, table, NULL, &err), OPMAP_OK);
    opmap_model_free(m);
    return r;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    opmap_error err;
    assert_non_null(f);
    assert_int_equal(opmap_ctx_new(&f->ctx, NULL, &err), OPMAP_OK);
    assert_int_equal(opmap_table_load_default(&f->table, f->ctx, &err), OPMAP_OK);
    f->res[0] = scan_file(f->ctx, f->table, model_a);
    f->res[1] = scan_file(f->ctx, f->table, model_b);
    strcpy(f->dir, "/tmp/opmap-api-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    DIR *d = opendir(f->dir);
    struct dirent *e;
    char path[1200];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", f->dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(f->dir);
    opmap_result_free(f->res[0]);
    opmap_result_free(f->res[1]);
    opmap_table_free(f->table);
    opmap_ctx_free(f->ctx);
    free(f);
    return 0;
}

typedef struct sink {
    char *data;
    size_t len;
} sink;

static int to_sink(void *payload, const void *data, size_t size)
{
    sink *s = payload;
    char *n = realloc(s->data, s->len + size + 1);
    if (!n)
        return -1;
    memcpy(n + s->len, data, size);
    s->data = n;
    s->len += size;
    return 0;
}

static char *read_file(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    long n;
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *size = (size_t)n;
    return buf;
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Memory and callback give the same bytes, in every format; the buffer is a C string. */
static void memory_equals_callback(void **state)
{
    fixture *f = *state;
    const opmap_result *const *res = (const opmap_result *const *)f->res;
    int fmt;
    for (fmt = 0; opmap_report_format_name((opmap_report_format)fmt); fmt++) {
        sink s = { NULL, 0 };
        char *text = NULL;
        size_t size = 0;
        opmap_error err;
        assert_int_equal(opmap_report_write(f->ctx, res, 2, (opmap_report_format)fmt, NULL,
                                            to_sink, &s, &err), OPMAP_OK);
        assert_int_equal(opmap_report_write_memory(f->ctx, res, 2, (opmap_report_format)fmt,
                                                   NULL, &text, &size, &err), OPMAP_OK);
        assert_non_null(text);
        assert_int_equal(size, s.len);
        assert_int_equal(strlen(text), size);
        assert_memory_equal(text, s.data, size);
        opmap_free(f->ctx, text);
        free(s.data);
    }
}

static void memory_size_optional(void **state)
{
    fixture *f = *state;
    char *text = NULL;
    opmap_error err;
    assert_int_equal(opmap_report_write_memory(f->ctx, (const opmap_result *const *)f->res, 1,
                                               OPMAP_REPORT_JSON, NULL, &text, NULL, &err),
                     OPMAP_OK);
    assert_non_null(strstr(text, "\"schema\""));
    opmap_free(f->ctx, text);
}

/* A report larger than the context's max_heap_bytes is refused with ELIMIT, nothing leaks. */
static void memory_limit(void **state)
{
    fixture *f = *state;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *small;
    char *text = (char *)1;
    size_t size = 7;
    opmap_error err;
    o.limits.max_heap_bytes = 2048;
    assert_int_equal(opmap_ctx_new(&small, &o, &err), OPMAP_OK);
    assert_int_equal(opmap_report_write_memory(small, (const opmap_result *const *)f->res, 2,
                                               OPMAP_REPORT_JSON, NULL, &text, &size, &err),
                     OPMAP_ELIMIT);
    assert_null(text);
    assert_int_equal(size, 0);
    assert_int_equal(err.code, OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_heap_bytes"));
    opmap_ctx_free(small);
}

/* The buffer comes from the context's allocator, and opmap_free() gives it back there. */
static long live_blocks;

static void *count_malloc(void *o, size_t n)
{
    (void)o;
    live_blocks++;
    return malloc(n);
}

static void *count_realloc(void *o, void *p, size_t n)
{
    (void)o;
    if (!p)
        live_blocks++;
    return realloc(p, n);
}

static void count_free(void *o, void *p)
{
    (void)o;
    if (p)
        live_blocks--;
    free(p);
}

static void memory_uses_ctx_allocator(void **state)
{
    fixture *f = *state;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *ctx;
    char *text = NULL;
    size_t size;
    long before;
    opmap_error err;
    o.allocator.malloc_fn = count_malloc;
    o.allocator.realloc_fn = count_realloc;
    o.allocator.free_fn = count_free;
    assert_int_equal(opmap_ctx_new(&ctx, &o, &err), OPMAP_OK);
    before = live_blocks;
    assert_int_equal(opmap_report_write_memory(ctx, (const opmap_result *const *)f->res, 2,
                                               OPMAP_REPORT_TEXT, NULL, &text, &size, &err),
                     OPMAP_OK);
    assert_int_equal(live_blocks, before + 1);
    opmap_free(ctx, text);
    assert_int_equal(live_blocks, before);
    opmap_ctx_free(ctx);
    assert_int_equal(live_blocks, 0);
}

static void memory_bad_arguments(void **state)
{
    fixture *f = *state;
    char *text;
    opmap_error err;
    assert_int_equal(opmap_report_write_memory(f->ctx, (const opmap_result *const *)f->res, 1,
                                               OPMAP_REPORT_JSON, NULL, NULL, NULL, &err),
                     OPMAP_EINVAL);
    assert_int_equal(opmap_report_write_memory(NULL, (const opmap_result *const *)f->res, 1,
                                               OPMAP_REPORT_JSON, NULL, &text, NULL, &err),
                     OPMAP_EINVAL);
    assert_null(text);
    assert_int_equal(opmap_report_write_memory(f->ctx, (const opmap_result *const *)f->res, 1,
                                               (opmap_report_format)99, NULL, &text, NULL, &err),
                     OPMAP_EINVAL);
    assert_null(text);
}

/* A file gets exactly the memory report, replaces what was there, leaves no temporary file
 * and has the permissions of a new file (0666 less the umask). */
static void file_written_atomically(void **state)
{
    fixture *f = *state;
    const opmap_result *const *res = (const opmap_result *const *)f->res;
    char path[256], *want, *got;
    size_t want_size, got_size;
    struct stat st;
    FILE *fp;
    mode_t old = umask(022);
    opmap_error err;
    snprintf(path, sizeof path, "%s/report.json", f->dir);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("old content", fp);
    fclose(fp);
    assert_int_equal(opmap_report_write_file(f->ctx, res, 2, OPMAP_REPORT_JSON, NULL, path, &err),
                     OPMAP_OK);
    assert_int_equal(opmap_report_write_memory(f->ctx, res, 2, OPMAP_REPORT_JSON, NULL, &want,
                                               &want_size, &err), OPMAP_OK);
    got = read_file(path, &got_size);
    assert_non_null(got);
    assert_int_equal(got_size, want_size);
    assert_memory_equal(got, want, want_size);
    assert_int_equal(count_entries(f->dir), 1);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    free(got);
    opmap_free(f->ctx, want);
    umask(old);
}

/* A file that cannot be created: OPMAP_EIO naming the path, with errno. */
static void file_cannot_create(void **state)
{
    fixture *f = *state;
    char path[256];
    opmap_error err;
    snprintf(path, sizeof path, "%s/no/such/dir/report.json", f->dir);
    assert_int_equal(opmap_report_write_file(f->ctx, (const opmap_result *const *)f->res, 1,
                                             OPMAP_REPORT_TEXT, NULL, path, &err), OPMAP_EIO);
    assert_int_equal(err.code, OPMAP_EIO);
    assert_int_equal(err.sys_errno, ENOENT);
    assert_string_equal(err.source, path);
    assert_non_null(strstr(err.message, "cannot create"));
    assert_int_equal(opmap_report_write_file(f->ctx, (const opmap_result *const *)f->res, 1,
                                             OPMAP_REPORT_TEXT, NULL, NULL, &err), OPMAP_EINVAL);
}

/* A writer error (an unknown format) leaves neither the file nor a temporary behind. */
static void file_failed_report_leaves_nothing(void **state)
{
    fixture *f = *state;
    char path[256];
    struct stat st;
    opmap_error err;
    snprintf(path, sizeof path, "%s/bad.txt", f->dir);
    assert_int_equal(opmap_report_write_file(f->ctx, (const opmap_result *const *)f->res, 1,
                                             (opmap_report_format)99, NULL, path, &err),
                     OPMAP_EINVAL);
    assert_int_equal(stat(path, &st), -1);
    assert_int_equal(count_entries(f->dir), 0);
}

/* A fill that writes half and then fails: the old file is left whole, its error returned. */
static int fill_half_then_fail(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    (void)arg;
    (void)err;
    if (write(payload, "half a report", 13) != 0)
        return OPMAP_EWRITE;
    return OPMAP_ENOMEM;
}

static int fill_hello(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    (void)arg;
    (void)err;
    return write(payload, "hello\n", 6) == 0 ? OPMAP_OK : OPMAP_EWRITE;
}

static void write_file_kinds(void **state)
{
    fixture *f = *state;
    char path[256], link[256], dir_link[256], dangling[256], *got;
    size_t got_size;
    struct stat st;
    opmap_error err;
    FILE *fp;
    snprintf(path, sizeof path, "%s/old.txt", f->dir);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("old content", fp);
    fclose(fp);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(opmap_write_file(path, fill_half_then_fail, NULL, &err), OPMAP_ENOMEM);
    got = read_file(path, &got_size);
    assert_non_null(got);
    assert_int_equal(got_size, 11);
    assert_memory_equal(got, "old content", 11);
    free(got);
    assert_int_equal(count_entries(f->dir), 1);
    /* through a link: the link stays, its target is replaced and keeps its mode */
    snprintf(link, sizeof link, "%s/link.txt", f->dir);
    assert_int_equal(symlink("old.txt", link), 0);
    assert_int_equal(opmap_write_file(link, fill_hello, NULL, &err), OPMAP_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    got = read_file(path, &got_size);
    assert_non_null(got);
    assert_int_equal(got_size, 6);
    assert_memory_equal(got, "hello\n", 6);
    free(got);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* a directory, directly or through a link, and a link to nothing: refused, nothing made */
    snprintf(dir_link, sizeof dir_link, "%s/dir-link", f->dir);
    assert_int_equal(symlink(".", dir_link), 0);
    assert_int_equal(opmap_write_file(f->dir, fill_hello, NULL, &err), OPMAP_EIO);
    assert_non_null(strstr(err.message, "is a directory"));
    assert_int_equal(opmap_write_file(dir_link, fill_hello, NULL, &err), OPMAP_EIO);
    snprintf(dangling, sizeof dangling, "%s/dangling", f->dir);
    assert_int_equal(symlink("nowhere", dangling), 0);
    assert_int_equal(opmap_write_file(dangling, fill_hello, NULL, &err), OPMAP_EIO);
    assert_string_equal(err.source, dangling);
    assert_int_equal(count_entries(f->dir), 4); /* old.txt and the three links */
    /* devices: tests/e2e/test_cli.py makes its own node rather than risk the machine's */
    assert_int_equal(opmap_write_file(path, NULL, NULL, &err), OPMAP_EINVAL);
}

/* Files not read: listed in the report, the verdict incomplete; a version-1 caller's
 * struct (which has no `problems`) is read only as far as version 1 goes. */
static void problems_and_old_versions(void **state)
{
    fixture *f = *state;
    opmap_error bad;
    opmap_file_problem probs[2];
    opmap_report_options ro = OPMAP_REPORT_OPTIONS_INIT;
    opmap_policy pol = OPMAP_POLICY_INIT;
    opmap_verdict *v = NULL;
    opmap_error err;
    opmap_finding fi = { .size = sizeof(fi) };
    char *text = NULL;
    size_t size, i, unreadable = 0, skipped = 0;
    memset(&bad, 0, sizeof(bad));
    bad.code = OPMAP_EFORMAT;
    bad.offset = 12;
    snprintf(bad.source, sizeof(bad.source), "m/b.onnx");
    snprintf(bad.message, sizeof(bad.message), "truncated");
    probs[0].file = "m/b.onnx";
    probs[0].skipped = 0;
    probs[0].error = &bad;
    probs[1].file = "m/w.pt";
    probs[1].skipped = 1;
    probs[1].error = NULL;
    pol.problems = probs;
    pol.problem_count = 2;
    assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)f->res, 2, &pol,
                                        &err), OPMAP_OK);
    assert_true(opmap_verdict_incomplete(v));
    assert_false(opmap_verdict_passed(v));
    for (i = 0; i < opmap_verdict_finding_count(v); i++) {
        assert_int_equal(opmap_verdict_finding(v, i, &fi), OPMAP_OK);
        if (fi.kind == OPMAP_FAIL_UNREADABLE) {
            unreadable++;
            assert_true(fi.fails);
            assert_string_equal(fi.model, "m/b.onnx");
        } else if (fi.kind == OPMAP_FAIL_SKIPPED) {
            skipped++;
            assert_false(fi.fails); /* not in fail_on */
        }
    }
    assert_int_equal(unreadable, 1);
    assert_int_equal(skipped, 1);
    opmap_verdict_free(v);
    /* version 1: `problems` is past the end of such a struct, so it is never read */
    pol.version = 1;
    pol.problems = (const opmap_file_problem *)(uintptr_t)1; /* would crash if read */
    pol.problem_count = 7;
    assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)f->res, 2, &pol,
                                        &err), OPMAP_OK);
    assert_false(opmap_verdict_incomplete(v));
    opmap_verdict_free(v);
    /* the report lists them; version-1 report options list nothing */
    ro.problems = probs;
    ro.problem_count = 2;
    assert_int_equal(opmap_report_write_memory(f->ctx, (const opmap_result *const *)f->res, 2,
                                               OPMAP_REPORT_JSON, &ro, &text, &size, &err),
                     OPMAP_OK);
    assert_non_null(strstr(text, "\"file\": \"m/b.onnx\""));
    assert_non_null(strstr(text, "\"file\": \"m/w.pt\""));
    assert_non_null(strstr(text, "\"incomplete\": true"));
    opmap_free(f->ctx, text);
    ro.version = 1;
    ro.problems = (const opmap_file_problem *)(uintptr_t)1;
    assert_int_equal(opmap_report_write_memory(f->ctx, (const opmap_result *const *)f->res, 2,
                                               OPMAP_REPORT_JSON, &ro, &text, &size, &err),
                     OPMAP_OK);
    assert_non_null(strstr(text, "\"errors\": []"));
    assert_non_null(strstr(text, "\"incomplete\": false"));
    opmap_free(f->ctx, text);
    /* a count without an array is refused, not read */
    pol.version = OPMAP_POLICY_VERSION;
    pol.problems = NULL;
    pol.problem_count = 1;
    assert_int_equal(opmap_policy_check(&v, f->ctx, (const opmap_result *const *)f->res, 2, &pol,
                                        &err), OPMAP_EINVAL);
}

/* Portfolio: the same model twice is adapted once; separately is the sum of the summaries. */
static void portfolio(void **state)
{
    fixture *f = *state;
    const opmap_result *twice[2];
    opmap_summary a = { .size = sizeof(a) }, b = { .size = sizeof(b) };
    opmap_effort together, separately;
    opmap_error err;
    assert_int_equal(opmap_result_summary(f->res[0], &a), OPMAP_OK);
    assert_int_equal(opmap_result_summary(f->res[1], &b), OPMAP_OK);
    twice[0] = twice[1] = f->res[0];
    assert_int_equal(opmap_portfolio_estimate(f->ctx, twice, 2, &together, &separately, &err),
                     OPMAP_OK);
    assert_int_equal(together.expected, a.effort_total.expected);
    assert_int_equal(together.min, a.effort_total.min);
    assert_int_equal(together.max, a.effort_total.max);
    assert_int_equal(separately.expected, 2 * a.effort_total.expected);
    assert_int_equal(opmap_portfolio_estimate(f->ctx, (const opmap_result *const *)f->res, 2,
                                              &together, &separately, &err), OPMAP_OK);
    assert_int_equal(separately.expected, a.effort_total.expected + b.effort_total.expected);
    assert_true(together.expected <= separately.expected);
    assert_true(together.min <= together.expected && together.expected <= together.max);
    assert_int_equal(opmap_portfolio_estimate(f->ctx, NULL, 0, &together, NULL, &err), OPMAP_OK);
    assert_int_equal(together.expected, 0);
    twice[1] = NULL;
    assert_int_equal(opmap_portfolio_estimate(f->ctx, twice, 2, &together, NULL, &err),
                     OPMAP_EINVAL);
}

int main(void)
{
    const char *data = getenv("OPMAP_TESTDATA");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(memory_equals_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_size_optional, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_uses_ctx_allocator, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(file_written_atomically, setup, teardown),
        cmocka_unit_test_setup_teardown(file_cannot_create, setup, teardown),
        cmocka_unit_test_setup_teardown(file_failed_report_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(write_file_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(problems_and_old_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(portfolio, setup, teardown),
    };
    if (!data)
        data = "/usr/share/libonnx-testdata/data";
    snprintf(model_a, sizeof model_a, "%s/pytorch-converted/test_Conv2d/model.onnx", data);
    snprintf(model_b, sizeof model_b, "%s/node/test_if/model.onnx", data);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
