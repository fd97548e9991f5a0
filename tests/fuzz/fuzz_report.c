/*
 * tests/fuzz/fuzz_report.c - a JSON report read back (opmap merge): the input is the report.
 * Shards' reports travel between machines and through people's hands: hostile.
 *
 * Invariants: the report is refused with OPMAP_EFORMAT or a limit (a clean error naming
 * "fuzz.json"), or read; a report read writes in every format (the checks of
 * fuzz_common.h), and its JSON re-rendering reads back to the same bytes (the reader and
 * the writer agree on everything a report holds); the same report added twice is refused
 * as overlapping when it has a file; a refused report leaves the set as it was. Everything
 * is freed.
 */
#include "fuzz_common.h"

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
