/*
 * report/spool.c - the spool of a report stream (report_stream.h): an unnamed temporary
 * file (mkstemp, then unlink: nothing stays behind, whatever ends the process), or memory
 * from the stream's budget.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "report_stream.h"

int om_spool_open(om_spool *s, om_mem *mem, const char *dir, opmap_error *err)
{
    char path[4096];
    memset(s, 0, sizeof(*s));
    s->mem = mem;
    s->fd = -1;
    if (!dir)
        return OPMAP_OK;
    snprintf(s->dir, sizeof(s->dir), "%s", dir);
    if ((size_t)snprintf(path, sizeof(path), "%s/opmap-spool-XXXXXX", dir) >= sizeof(path))
        return om_fail(err, OPMAP_EINVAL, dir, "spool directory name too long");
    if ((s->fd = mkstemp(path)) < 0) {
        int e = errno;
        om_fail(err, OPMAP_EIO, dir, "cannot create the spool of the report: %s", strerror(e));
        if (err)
            err->sys_errno = e;
        return OPMAP_EIO;
    }
    unlink(path);
    return OPMAP_OK;
}

int om_spool_write(om_spool *s, const void *data, size_t size)
{
    const char *p = data;
    if (s->rc)
        return s->rc;
    if (s->fd < 0) {
        if (s->len + size > s->cap) {
            size_t cap = s->cap ? s->cap : 4096; /* doubles: a small report stays small */
            char *nb;
            while (cap < s->len + size)
                cap *= 2;
            if (!(nb = om_realloc(s->mem, s->buf, s->cap, cap)))
                return s->rc = s->mem->over_limit ? OPMAP_ELIMIT : OPMAP_ENOMEM;
            s->buf = nb;
            s->cap = cap;
        }
        memcpy(s->buf + s->len, data, size);
        s->len += size;
        s->size += size;
        return OPMAP_OK;
    }
    while (size) {
        ssize_t n = write(s->fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->sys_errno = n < 0 ? errno : ENOSPC;
            return s->rc = OPMAP_EIO;
        }
        p += n;
        size -= (size_t)n;
        s->size += (uint64_t)n;
    }
    return OPMAP_OK;
}

int om_spool_replay(om_spool *s, opmap_write_fn fn, void *payload)
{
    char buf[65536];
    uint64_t left = s->size;
    if (s->rc)
        return s->rc;
    if (s->fd < 0)
        return s->len && fn(payload, s->buf, s->len) ? OPMAP_EWRITE : OPMAP_OK;
    if (lseek(s->fd, 0, SEEK_SET) != 0) {
        s->sys_errno = errno;
        return s->rc = OPMAP_EIO;
    }
    while (left) {
        ssize_t n = read(s->fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->sys_errno = n < 0 ? errno : EIO;
            return s->rc = OPMAP_EIO;
        }
        left -= (uint64_t)n;
        if (fn(payload, buf, (size_t)n))
            return OPMAP_EWRITE;
    }
    /* the next write goes at the end again */
    if (lseek(s->fd, 0, SEEK_END) < 0) {
        s->sys_errno = errno;
        return s->rc = OPMAP_EIO;
    }
    return OPMAP_OK;
}

int om_spool_fail(const om_spool *s, opmap_error *err)
{
    int rc = s->rc ? s->rc : OPMAP_EIO;
    if (rc == OPMAP_EIO) {
        om_fail(err, rc, s->dir[0] ? s->dir : NULL, "the spool of the report: %s",
                strerror(s->sys_errno ? s->sys_errno : EIO));
        if (err)
            err->sys_errno = s->sys_errno;
        return rc;
    }
    return om_fail(err, rc, NULL, "%s: the spool of the report (it is kept in memory without "
                   "a spool directory)", rc == OPMAP_ELIMIT ? "over max_heap_bytes" : "out of memory");
}

void om_spool_close(om_spool *s)
{
    if (s->fd >= 0)
        close(s->fd);
    if (s->buf)
        om_dealloc(s->mem, s->buf, s->cap);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}
