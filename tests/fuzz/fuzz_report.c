/*
 * tests/fuzz/fuzz_report.c - a JSON report read back (opmap merge): the input is the report.
 * Shards' reports travel between machines and through people's hands: hostile.
 *
 * Invariants: the report is refused with OPMAP_EFORMAT or a limit (a clean error naming
 * "fuzz.json"), or read; a report read writes in every format (the checks of
 * fuzz_common.h), and its JSON re-rendering reads back to the same bytes (the reader and
 * the writer agree on everything a report holds); the same report added twice is refused
 * as overlapping when it has a file; a refused report leaves the set as it was. A report
 * read whole also reads one model at a time (opmap_report_set_stream_file, from a file), and
 * streamed out again (opmap_report_stream_*) it is the same bytes. Everything is freed.
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "fuzz_common.h"

static int stream_take(void *payload, opmap_result *res, opmap_error *err)
{
    return opmap_report_stream_take(payload, res, err);
}

/* The report read one model at a time and written by a report stream must be `want`. */
static void streamed(opmap_ctx *ctx, const opmap_table *t, const uint8_t *data, size_t size,
                     const fz_buf *want)
{
    char path[] = "/tmp/opmap-fuzz-report-XXXXXX";
    opmap_report_set *set = NULL;
    opmap_report_stream *s = NULL;
    opmap_error err;
    fz_buf got = { NULL, 0, 0 };
    const opmap_file_problem *p;
    size_t n_p;
    int fd = mkstemp(path), rc;
    FZ_CHECK(fd >= 0, "mkstemp");
    FZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
    close(fd);
    FZ_CHECK(opmap_report_set_new(&set, ctx, t, &err) == OPMAP_OK, "%s", err.message);
    rc = opmap_report_stream_new(&s, ctx, OPMAP_REPORT_JSON, NULL, NULL, &err);
    if (rc == OPMAP_OK)
        rc = opmap_report_set_stream_file(set, path, stream_take, s, &err);
    unlink(path);
    if (rc == OPMAP_OK) {
        p = opmap_report_set_problems(set, &n_p);
        rc = opmap_report_stream_finish(s, p, n_p, &err);
    }
    if (rc == OPMAP_OK) {
        rc = opmap_report_stream_write(s, fz_buf_write, &got, &err);
        FZ_CHECK(rc == OPMAP_OK, "a streamed report was not written: %s", err.message);
        FZ_CHECK(got.len == want->len && memcmp(got.data, want->data, got.len) == 0,
                 "read one model at a time, the report writes other bytes");
    } else {
        FZ_CHECK(rc == OPMAP_ENOMEM || rc == OPMAP_ELIMIT,
                 "a report read whole is refused streamed (%d): %s", rc, err.message);
    }
    free(got.data);
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
}

/* The set's JSON rendering (with its problems), into b. */
static void render(opmap_ctx *ctx, const opmap_report_set *set, fz_buf *b)
{
    opmap_report_options ro = OPMAP_REPORT_OPTIONS_INIT;
    opmap_error err;
    int rc;
    ro.problems = opmap_report_set_problems(set, &ro.problem_count);
    rc = opmap_report_write(ctx, opmap_report_set_results(set), opmap_report_set_count(set),
                            OPMAP_REPORT_JSON, &ro, fz_buf_write, b, &err);
    FZ_CHECK(rc == OPMAP_OK, "json report of a set read: %s", err.message);
}

/* The built-in table, loaded once (in a context of its own, with the default limits: a
 * tight input context could not hold it) and kept for the process. */
static const opmap_table *table(void)
{
    static opmap_ctx *tctx;
    static opmap_table *t;
    opmap_error err;
    if (!t) {
        FZ_CHECK(opmap_ctx_new(&tctx, NULL, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_table_load_default(&t, tctx, &err) == OPMAP_OK, "%s", err.message);
    }
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_alloc a = { 0 };
    const opmap_table *t = table();
    opmap_ctx *ctx = fz_ctx(&a, (fz_hash(data, size) & 7) == 0);
    opmap_report_set *set = NULL, *again = NULL;
    opmap_error err;
    size_t before, n_problems;
    int rc;
    FZ_CHECK(opmap_report_set_new(&set, ctx, t, &err) == OPMAP_OK, "%s", err.message);
    rc = opmap_report_set_add(set, "fuzz.json", data, size, &err);
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ELIMIT || rc == OPMAP_ENOMEM,
                 "report read returned %d: %s", rc, err.message);
        fz_check_error(rc, &err, "fuzz.json");
        FZ_CHECK(opmap_report_set_count(set) == 0, "a refused report left results");
    } else {
        fz_buf one = { NULL, 0, 0 }, two = { NULL, 0, 0 };
        opmap_report_set_problems(set, &n_problems);
        fz_write_reports(ctx, opmap_report_set_results(set), opmap_report_set_count(set),
                         fz_hash(data, size));
        render(ctx, set, &one);
        streamed(ctx, t, data, size, &one);
        FZ_CHECK(opmap_report_set_new(&again, ctx, t, &err) == OPMAP_OK, "%s", err.message);
        rc = opmap_report_set_add(again, "fuzz.json", one.data, one.len, &err);
        FZ_CHECK(rc == OPMAP_OK, "a report opmap wrote does not read back: %s", err.message);
        render(ctx, again, &two);
        FZ_CHECK(one.len == two.len && memcmp(one.data, two.data, one.len) == 0,
                 "written, read and written again, the report changed");
        before = opmap_report_set_count(set);
        rc = opmap_report_set_add(set, "fuzz.json", data, size, &err);
        if (before || n_problems)
            FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ENOMEM || rc == OPMAP_ELIMIT,
                     "the same files twice were taken: %d", rc);
        if (rc != OPMAP_OK)
            FZ_CHECK(opmap_report_set_count(set) == before, "a refused report left results");
        free(one.data);
        free(two.data);
    }
    opmap_report_set_free(again);
    opmap_report_set_free(set);
    fz_ctx_free(ctx, &a);
    return 0;
}
