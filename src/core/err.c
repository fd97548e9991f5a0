/*
 * core/err.c - status names and the caller-owned error record (see opmap/error.h).
 */
#include "err.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *opmap_status_str(int status)
{
    switch (status) {
    case OPMAP_OK: return "ok";
    case OPMAP_EINVAL: return "invalid argument";
    case OPMAP_ENOMEM: return "out of memory";
    case OPMAP_EIO: return "input/output error";
    case OPMAP_EFORMAT: return "invalid format";
    case OPMAP_EUNSUPPORTED: return "unsupported input";
    case OPMAP_ETABLE: return "invalid table";
    case OPMAP_ELIMIT: return "limit exceeded";
    case OPMAP_EWRITE: return "write failed";
    case OPMAP_EINTERNAL: return "internal error";
    default: return "unknown status";
    }
}

size_t opmap_error_format(const opmap_error *err, char *buf, size_t size)
{
    int n;
    const char *src;
    if (!err) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    src = err->source[0] ? err->source : "opmap";
    if (err->line)
        n = snprintf(buf, size, "%s:%" PRIu32 ":%" PRIu32 ": %s", src, err->line, err->column,
                     err->message);
    else if (err->offset != OPMAP_NO_OFFSET)
        n = snprintf(buf, size, "%s: offset %" PRIu64 ": %s", src, err->offset, err->message);
    else
        n = snprintf(buf, size, "%s: %s", src, err->message);
    return n < 0 ? 0 : (size_t)n;
}

void om_err_clear(opmap_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof(*err));
    err->offset = OPMAP_NO_OFFSET;
}

size_t om_term_seq(const unsigned char *p)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n, i;
    if (c >= 0x20 && c < 0x7f)
        return 1;
    if (c < 0xC2 || c > 0xF4) /* controls, DEL, stray continuation bytes, overlong leads */
        return 0;
    n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (c == 0xC2)
        lo = 0xA0; /* U+0080..U+009F are the C1 controls */
    else if (c == 0xE0)
        lo = 0xA0; /* overlong */
    else if (c == 0xED)
        hi = 0x9F; /* UTF-16 surrogates */
    else if (c == 0xF0)
        lo = 0x90; /* overlong */
    else if (c == 0xF4)
        hi = 0x8F; /* over U+10FFFF */
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    /* the bidirectional embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069):
     * they reorder what follows on the line, so a name can make a report or a log line read
     * as something else */
    if (c == 0xE2 && ((p[1] == 0x80 && p[2] >= 0xAA && p[2] <= 0xAE) ||
                      (p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9)))
        return 0;
    return n;
}

size_t opmap_text_for_terminal(const char *s, char *buf, size_t size)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t used = 0, need = 0;
    int full = size == 0;
    while (*p) {
        size_t n = om_term_seq(p), len = n ? n : 1;
        const char *from = n ? (const char *)p
                           : (*p == '\n' || *p == '\t' || *p == '\r') ? " " : "?";
        if (!full && used + len < size) { /* whole sequences only */
            memcpy(buf + used, from, len);
            used += len;
        } else {
            full = 1;
        }
        need += len;
        p += len;
    }
    if (size)
        buf[used] = '\0';
    return need;
}

/*
 * The record promises one line of text: names quoted from a model (a node name, a YAML key,
 * a zip entry) may hold newlines and escape sequences, which must not reach the terminal
 * that prints the message. Line breaks and tabs become spaces, other such bytes '?'.
 */
void om_one_line(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        size_t n = om_term_seq(p);
        if (n) {
            p += n;
        } else {
            *p = (*p == '\n' || *p == '\t' || *p == '\r') ? ' ' : '?';
            p++;
        }
    }
}

static int vfail(opmap_error *err, int code, const char *source, uint64_t offset, uint32_t line,
                 uint32_t column, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

static int vfail(opmap_error *err, int code, const char *source, uint64_t offset, uint32_t line,
                 uint32_t column, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    om_err_clear(err);
    err->code = code;
    err->offset = offset;
    err->line = line;
    err->column = column;
    if (source)
        snprintf(err->source, sizeof(err->source), "%s", source);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    om_one_line(err->source);
    om_one_line(err->message);
    return code;
}

int om_fail(opmap_error *err, int code, const char *source, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(err, code, source, OPMAP_NO_OFFSET, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int om_fail_at(opmap_error *err, int code, const char *source, uint64_t offset, const char *fmt,
               ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(err, code, source, offset, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int om_fail_line(opmap_error *err, int code, const char *source, uint32_t line, uint32_t column,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(err, code, source, OPMAP_NO_OFFSET, line, column, fmt, ap);
    va_end(ap);
    return code;
}

int om_fail_mem(opmap_error *err, const om_mem *m, const char *source)
{
    if (m && m->over_limit)
        return om_fail(err, OPMAP_ELIMIT, source,
                       "memory limit exceeded (max_heap_bytes = %" PRIu64 ")", m->limit);
    return om_fail(err, OPMAP_ENOMEM, source, "out of memory");
}

void om_source_name(char *buf, size_t size, const char *file, const char *entry)
{
    if (entry)
        snprintf(buf, size, "%s:%s", file, entry);
    else
        snprintf(buf, size, "%s", file);
}
