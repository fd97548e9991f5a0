/*
 * core/out.c - buffered output to the caller's callback (see out.h).
 */
#include "out.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

void om_out_init(om_out *o, opmap_write_fn write, void *payload)
{
    o->write = write;
    o->payload = payload;
    o->len = 0;
    o->failed = 0;
}

static void flush(om_out *o)
{
    if (o->len && !o->failed && o->write(o->payload, o->buf, o->len) != 0)
        o->failed = 1;
    o->len = 0;
}

void om_out_bytes(om_out *o, const void *data, size_t n)
{
    const char *p = data;
    if (n < sizeof(o->buf) - o->len) { /* the common case, kept short: it fits */
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        return;
    }
    while (n && !o->failed) {
        size_t room = sizeof(o->buf) - o->len, k = n < room ? n : room;
        memcpy(o->buf + o->len, p, k);
        o->len += k;
        p += k;
        n -= k;
        if (o->len == sizeof(o->buf))
            flush(o);
    }
}

void om_out_str(om_out *o, const char *s)
{
    om_out_bytes(o, s, strlen(s));
}

void om_out_printf(om_out *o, const char *fmt, ...)
{
    /* Only for short formatted pieces; model strings go through om_out_str/om_out_term. */
    char tmp[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    /* a piece that did not fit is a bug in a writer: fail loudly rather than cut the output */
    if (n < 0 || (size_t)n >= sizeof(tmp))
        o->failed = 1;
    else
        om_out_bytes(o, tmp, (size_t)n);
}

void om_out_term(om_out *o, const char *s)
{
    /* C0/C1 controls, DEL and malformed UTF-8 (a lone 0x9B is CSI to 8-bit terminals) */
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = om_term_seq(p);
        if (n) {
            om_out_bytes(o, p, n);
            p += n;
        } else {
            om_out_bytes(o, "?", 1);
            p++;
        }
    }
}

int om_out_finish(om_out *o)
{
    flush(o);
    return o->failed ? OPMAP_EWRITE : OPMAP_OK;
}
