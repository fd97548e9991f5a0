/*
 * tests/fuzz/fuzz_registry.c - a registry report read back (opmap merge of registry
 * shards): the input is the report. Shards travel between machines and through people's
 * hands: hostile.
 *
 * Invariants: the report is refused with OPMAP_EFORMAT or a limit (a clean error naming
 * the file), or read; a report read is written again as a registry report that is valid
 * JSON and UTF-8, and that report, read back, writes the same bytes (the reader and the
 * writer agree on everything a registry holds); the same report read twice into one set is
 * refused as overlapping when it names a file. Everything is freed.
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "fuzz_common.h"

/* The built-in table, loaded once in a context of its own and kept for the process. */
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

static void to_file(char *path, const void *data, size_t size)
{
    int fd = mkstemp(path);
    FZ_CHECK(fd >= 0, "mkstemp");
    FZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
    close(fd);
}

/* The registry report at `path` read into a fresh stream and written into out (when it
 * reads); returns what the read returned. `twice`: read it a second time into the set. */
static int merged(opmap_ctx *ctx, const char *path, fz_buf *out, int twice)
{
    opmap_report_set *set = NULL;
    opmap_report_stream *s = NULL;
    opmap_error err;
    const opmap_file_problem *p;
    size_t n_p;
    int rc;
    FZ_CHECK(opmap_report_set_new(&set, ctx, table(), &err) == OPMAP_OK, "%s", err.message);
    rc = opmap_report_stream_new(&s, ctx, OPMAP_REPORT_REGISTRY, NULL, NULL, &err);
    if (rc == OPMAP_OK && (rc = opmap_report_stream_read(s, set, path, &err)) != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ELIMIT || rc == OPMAP_ENOMEM,
                 "registry read returned %d: %s", rc, err.message);
        fz_check_error(rc, &err, path);
    }
    if (rc == OPMAP_OK) {
        p = opmap_report_set_problems(set, &n_p);
        rc = opmap_report_stream_finish(s, p, n_p, &err);
        if (rc == OPMAP_OK) {
            rc = opmap_report_stream_write(s, fz_buf_write, out, &err);
            FZ_CHECK(rc == OPMAP_OK, "a registry read was not written: %s", err.message);
            fz_check_report("registry", out);
        }
        if (rc == OPMAP_OK && twice && (opmap_report_stream_count(s) || n_p)) {
            opmap_report_stream *again = NULL;
            int rc2 = opmap_report_stream_new(&again, ctx, OPMAP_REPORT_REGISTRY, NULL, NULL,
                                              &err);
            if (rc2 == OPMAP_OK)
                rc2 = opmap_report_stream_read(again, set, path, &err);
            FZ_CHECK(rc2 == OPMAP_EFORMAT || rc2 == OPMAP_ENOMEM || rc2 == OPMAP_ELIMIT,
                     "the same files twice were taken: %d", rc2);
            opmap_report_stream_free(again);
        }
    }
    opmap_report_stream_free(s);
    opmap_report_set_free(set);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_alloc a = { 0 };
    opmap_ctx *ctx = fz_ctx(&a, (fz_hash(data, size) & 7) == 0);
    char path[] = "/tmp/opmap-fuzz-registry-XXXXXX";
    fz_buf one = { NULL, 0, 0 }, two = { NULL, 0, 0 };
    int rc;
    to_file(path, data, size);
    rc = merged(ctx, path, &one, 1);
    unlink(path);
    if (rc == OPMAP_OK) {
        char again[] = "/tmp/opmap-fuzz-registry-XXXXXX";
        to_file(again, one.data, one.len);
        rc = merged(ctx, again, &two, 0);
        unlink(again);
        FZ_CHECK(rc == OPMAP_OK || rc == OPMAP_ENOMEM || rc == OPMAP_ELIMIT,
                 "a registry opmap wrote does not read back (%d)", rc);
        if (rc == OPMAP_OK)
            FZ_CHECK(one.len == two.len && memcmp(one.data, two.data, one.len) == 0,
                     "written, read and written again, the registry changed");
    }
    free(one.data);
    free(two.data);
    fz_ctx_free(ctx, &a);
    return 0;
}
