/*
 * report/report_memory.c - reports into memory or into a file: small conveniences over
 * opmap_report_write() for callers that are not C programs with a stream at hand (the
 * Python binding, services), see opmap/report.h.
 */
#include <string.h>

#include <opmap/report.h>

#include "core/err.h"
#include "core/mem.h"
#include "core/context.h"

/* --- memory --- */

typedef struct membuf {
    om_mem mem;     /* the ctx's allocator, budgeted by max_heap_bytes */
    char *data;
    size_t len, cap;
    int failed;     /* the budget or the allocator said no */
} membuf;

static int mem_write(void *payload, const void *data, size_t size)
{
    membuf *b = payload;
    if (size > SIZE_MAX - 1 - b->len) {
        b->failed = 1;
        return -1;
    }
    if (b->len + size + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        char *nd;
        while (ncap < b->len + size + 1)
            ncap = ncap > SIZE_MAX / 2 ? b->len + size + 1 : ncap * 2;
        nd = b->data ? om_realloc(&b->mem, b->data, b->cap, ncap) : om_alloc(&b->mem, ncap);
        if (!nd) {
            b->failed = 1;
            return -1;
        }
        b->data = nd;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, data, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 0;
}

int opmap_report_write_memory(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                              opmap_report_format format, const opmap_report_options *opts,
                              char **out, size_t *size, opmap_error *err)
{
    membuf b;
    int rc;
    om_err_clear(err);
    if (out)
        *out = NULL;
    if (size)
        *size = 0;
    if (!ctx || !out)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write_memory: NULL argument");
    memset(&b, 0, sizeof(b));
    om_mem_init(&b.mem, &ctx->al, ctx->limits.max_heap_bytes);
    /* An empty report is still a valid, NUL-terminated string. */
    rc = mem_write(&b, "", 0) == 0
             ? opmap_report_write(ctx, results, count, format, opts, mem_write, &b, err)
             : OPMAP_EWRITE;
    if (rc != OPMAP_OK) {
        if (b.data)
            om_dealloc(&b.mem, b.data, b.cap);
        if (b.failed)
            return om_fail_mem(err, &b.mem, NULL);
        return rc;
    }
    *out = b.data; /* opmap_free(ctx, *out): the ctx's allocator, no size needed */
    if (size)
        *size = b.len;
    return OPMAP_OK;
}

/* --- file --- */

typedef struct report_args {
    opmap_ctx *ctx;
    const opmap_result *const *results;
    size_t count;
    opmap_report_format format;
    const opmap_report_options *opts;
} report_args;

static int fill_report(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    report_args *a = arg;
    return opmap_report_write(a->ctx, a->results, a->count, a->format, a->opts, write, payload,
                              err);
}

int opmap_report_write_file(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                            opmap_report_format format, const opmap_report_options *opts,
                            const char *path, opmap_error *err)
{
    report_args a;
    om_err_clear(err);
    if (!ctx || !path || !*path)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write_file: NULL argument");
    a.ctx = ctx;
    a.results = results;
    a.count = count;
    a.format = format;
    a.opts = opts;
    return opmap_write_file(path, fill_report, &a, err);
}
