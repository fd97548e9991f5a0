/*
 * core/json_stream.c - a JSON file read a value at a time (json_stream.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "core/json_stream.h"

int ojs_fail(oj_stream *s, int code, uint64_t offset, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return om_fail_at(s->err, code, s->source, offset, "%s", msg);
}

int ojs_open(oj_stream *s, const char *path, om_mem *mem, uint32_t max_depth, uint64_t max_value,
             opmap_error *err)
{
    memset(s, 0, sizeof(*s));
    s->source = path;
    s->err = err;
    s->mem = mem;
    s->max_depth = max_depth;
    s->max_value = max_value;
    if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        int e = errno;
        om_fail(err, OPMAP_EIO, path, "%s", strerror(e));
        if (err)
            err->sys_errno = e;
        return OPMAP_EIO;
    }
    return OPMAP_OK;
}

void ojs_close(oj_stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    if (s->val)
        om_dealloc(s->mem, s->val, s->val_cap);
    s->fd = -1;
    s->val = NULL;
    s->val_cap = s->val_len = 0;
}

/* More bytes into buf (the unread ones moved to its start); 0 at the end of the file. */
static int fill(oj_stream *s, int *got)
{
    ssize_t n;
    *got = 0;
    if (s->eof)
        return OPMAP_OK;
    if (s->pos) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->offset += s->pos;
        s->len -= s->pos;
        s->pos = 0;
    }
    do
        n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        int e = errno;
        om_fail(s->err, OPMAP_EIO, s->source, "%s", strerror(e));
        if (s->err)
            s->err->sys_errno = e;
        return OPMAP_EIO;
    }
    if (n == 0)
        s->eof = 1;
    s->len += (size_t)n;
    *got = n > 0;
    return OPMAP_OK;
}

int ojs_peek(oj_stream *s, int *c)
{
    int rc;
    for (;;) {
        int got;
        if (s->pos == s->len && ((rc = fill(s, &got)) || !got)) {
            *c = -1;
            return rc;
        }
        *c = (unsigned char)s->buf[s->pos];
        if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r')
            return OPMAP_OK;
        s->pos++;
    }
}

int ojs_expect(oj_stream *s, char c, const char *what)
{
    int got, rc;
    if ((rc = ojs_peek(s, &got)))
        return rc;
    if (got != (unsigned char)c)
        return ojs_fail(s, OPMAP_EFORMAT, s->offset + s->pos, "JSON: expected %s, found %s",
                        what, got < 0 ? "the end of the file" : "something else");
    s->pos++;
    return OPMAP_OK;
}

/* Bytes of the value into val (when kept), within max_value (and room for a NUL). */
static int keep_bytes(oj_stream *s, const char *p, size_t n)
{
    if (s->val_len + n + 1 > s->val_cap) {
        size_t cap = s->val_cap ? s->val_cap : 4096;
        char *nv;
        while (cap < s->val_len + n + 1)
            cap *= 2;
        if (!(nv = om_realloc(s->mem, s->val, s->val_cap, cap)))
            return om_fail_mem(s->err, s->mem, s->source);
        s->val = nv;
        s->val_cap = cap;
    }
    memcpy(s->val + s->val_len, p, n);
    s->val_len += n;
    s->val[s->val_len] = '\0';
    return OPMAP_OK;
}

/* The value's state between chunks. */
typedef struct cut {
    uint32_t depth;
    uint64_t size, objects;   /* bytes so far; bit k: level k + 1 is an object */
    int in_string, escaped, done;
} cut;

/* Steps over the buffered bytes of the value; done when it ends. */
static int scan_chunk(oj_stream *s, cut *x)
{
    const char *b = s->buf;
    while (s->pos < s->len) {
        int c = (unsigned char)b[s->pos];
        if (x->in_string) {
            if (!x->escaped && c != '"' && c != '\\') { /* the run of plain bytes at once */
                size_t q = s->pos + 1;
                while (q < s->len && b[q] != '"' && b[q] != '\\')
                    q++;
                x->size += q - s->pos;
                s->pos = q;
                continue;
            }
            s->pos++;
            x->size++;
            if (x->escaped)
                x->escaped = 0;
            else if (c == '\\')
                x->escaped = 1;
            else if (c == '"' && (x->in_string = 0, !x->depth))
                return x->done = 1, OPMAP_OK;
            continue;
        }
        if (!x->depth && x->size && (c == ',' || c == ']' || c == '}' || c == ' ' ||
                                     c == '\n' || c == '\r' || c == '\t'))
            return x->done = 1, OPMAP_OK; /* a number or literal ends before it */
        s->pos++;
        x->size++;
        if (c == '"') {
            x->in_string = 1;
        } else if (c == '{' || c == '[') {
            if (++x->depth > s->max_depth || x->depth > 64)
                return ojs_fail(s, OPMAP_ELIMIT, s->offset + s->pos - 1,
                                "JSON nested deeper than %" PRIu32 " levels (max_depth)",
                                s->max_depth < 64 ? s->max_depth : 64);
            if (c == '{')
                x->objects |= 1ull << (x->depth - 1);
            else
                x->objects &= ~(1ull << (x->depth - 1));
        } else if (c == '}' || c == ']') {
            if (!x->depth || ((x->objects >> (x->depth - 1)) & 1) != (c == '}'))
                return ojs_fail(s, OPMAP_EFORMAT, s->offset + s->pos - 1,
                                "JSON: '%c' closes nothing open", c);
            if (!--x->depth)
                return x->done = 1, OPMAP_OK;
        }
    }
    return OPMAP_OK;
}

int ojs_value(oj_stream *s, int keep)
{
    cut x;
    uint64_t taken = 0;
    int c, rc;
    if ((rc = ojs_peek(s, &c)))
        return rc;
    s->val_len = 0;
    s->val_offset = s->offset + s->pos;
    if (c < 0)
        return ojs_fail(s, OPMAP_EFORMAT, s->val_offset, "JSON: a value expected, at the end");
    memset(&x, 0, sizeof(x));
    for (;;) {
        size_t start = s->pos;
        int got;
        if ((rc = scan_chunk(s, &x)))
            return rc;
        taken += s->pos - start;
        if (taken > s->max_value)
            return ojs_fail(s, OPMAP_ELIMIT, s->val_offset, "a JSON value of over %" PRIu64
                            " bytes, over max_file_bytes", s->max_value);
        if (keep && (rc = keep_bytes(s, s->buf + start, s->pos - start)))
            return rc;
        if (x.done)
            break;
        if ((rc = fill(s, &got)))
            return rc;
        if (!got) {
            if (!x.depth && !x.in_string && x.size) /* a number at the end of the file */
                break;
            return ojs_fail(s, OPMAP_EFORMAT, s->val_offset, "JSON: a value that never ends");
        }
    }
    if (keep && !s->val && (rc = keep_bytes(s, "", 0)))
        return rc;
    return OPMAP_OK;
}
