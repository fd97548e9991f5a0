/*
 * api/report_memory.c - reports into memory or into a file, and the portfolio estimate:
 * small conveniences over opmap_report_write() for callers that are not C programs with a
 * stream at hand (the Python binding, services), see opmap/report.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <opmap/report.h>

#include "../core/err.h"
#include "../core/mem.h"
#include "../estimate/portfolio.h"
#include "ctx_internal.h"

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

typedef struct filesink {
    int fd;
    int sys_errno;  /* of the first failed write */
} filesink;

static int fd_write(void *payload, const void *data, size_t size)
{
    filesink *f = payload;
    const char *p = data;
    while (size) {
        ssize_t n = write(f->fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->sys_errno = n < 0 ? errno : EIO;
            return -1;
        }
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* strerror_r (POSIX flavour): strerror() may share a buffer between threads. */
static int fail_sys(opmap_error *err, int code, const char *path, const char *what, int e)
{
    char why[128];
    if (strerror_r(e, why, sizeof(why)) != 0)
        snprintf(why, sizeof(why), "error %d", e);
    om_fail(err, code, path, "%s: %s", what, why);
    if (err)
        err->sys_errno = e;
    return code;
}

int opmap_report_write_file(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                            opmap_report_format format, const opmap_report_options *opts,
                            const char *path, opmap_error *err)
{
    char tmp[4096];
    filesink f;
    unsigned attempt;
    int rc, e;
    om_err_clear(err);
    if (!ctx || !path || !*path)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write_file: NULL argument");
    /* A unique name beside the target, so the rename is atomic; O_EXCL instead of mkstemp
     * so the file gets the usual permissions without touching the process's umask. */
    f.fd = -1;
    for (attempt = 0; attempt < 1000 && f.fd < 0; attempt++) {
        if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld.%u", path, (long)getpid(), attempt) >=
            sizeof(tmp))
            return om_fail(err, OPMAP_EINVAL, path, "path too long");
        f.fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f.fd < 0 && errno != EEXIST)
            return fail_sys(err, OPMAP_EIO, path, "cannot create", errno);
    }
    if (f.fd < 0)
        return fail_sys(err, OPMAP_EIO, path, "cannot create", EEXIST);
    f.sys_errno = 0;
    rc = opmap_report_write(ctx, results, count, format, opts, fd_write, &f, err);
    e = f.sys_errno;
    if (close(f.fd) != 0 && rc == OPMAP_OK) {
        rc = OPMAP_EWRITE;
        e = errno;
    }
    if (rc == OPMAP_OK && rename(tmp, path) != 0) {
        rc = OPMAP_EWRITE;
        e = errno;
    }
    if (rc != OPMAP_OK) {
        unlink(tmp);
        if (e)
            return fail_sys(err, OPMAP_EIO, path, "cannot write the report", e);
        return rc; /* the writer's own error (format, memory) is already in err */
    }
    return OPMAP_OK;
}

/* --- portfolio --- */

int opmap_portfolio_estimate(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                             opmap_effort *together, opmap_effort *separately, opmap_error *err)
{
    om_mem mem;
    om_portfolio p;
    size_t i;
    om_err_clear(err);
    if (!ctx || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_portfolio_estimate: NULL argument");
    for (i = 0; i < count; i++)
        if (!results[i])
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_portfolio_estimate: result %zu is NULL",
                           i);
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    if (om_portfolio_build(results, count, &mem, &p) != OPMAP_OK)
        return om_fail_mem(err, &mem, NULL);
    if (together)
        *together = p.summary.effort_total;
    if (separately)
        *separately = p.separately;
    om_portfolio_free(&p, &mem);
    return OPMAP_OK;
}
