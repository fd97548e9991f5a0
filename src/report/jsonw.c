/*
 * report/jsonw.c - streaming JSON writer (see jsonw.h).
 */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

void jw_init(jsonw *w, om_out *o, int compact)
{
    memset(w, 0, sizeof(*w));
    w->o = o;
    w->compact = compact;
    w->first[0] = 1;
}

/* One write per line break: a report over a thousand models has a million of them. */
static void newline(jsonw *w)
{
    /* depth < JSONW_MAX_DEPTH (32), so "\n" and 2 * 31 spaces always fit */
    static const char spaces[] = "\n                                                               ";
    size_t n = 1 + 2 * (size_t)w->depth;
    if (w->compact == JSONW_LINES && w->depth <= 2) { /* a line each, unindented */
        om_out_bytes(w->o, "\n", 1);
        return;
    }
    if (w->compact)
        return;
    om_out_bytes(w->o, spaces, n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1);
}

/* Before any value: the comma and line break its position needs. */
static void value_start(jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth])
            om_out_bytes(w->o, ",", 1);
        w->first[w->depth] = 0;
        newline(w);
    }
}

static void begin(jsonw *w, const char *c)
{
    value_start(w);
    om_out_str(w->o, c);
    if (w->depth + 1 < JSONW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = 1;
}

static void end(jsonw *w, const char *c)
{
    int empty = w->first[w->depth], inner = w->depth;
    if (w->depth > 0)
        w->depth--;
    if (!empty && (w->compact != JSONW_LINES || inner <= 2)) /* its elements had lines */
        newline(w);
    om_out_str(w->o, c);
}

void jw_object(jsonw *w) { begin(w, "{"); }
void jw_array(jsonw *w) { begin(w, "["); }
void jw_end_object(jsonw *w) { end(w, "}"); }
void jw_end_array(jsonw *w) { end(w, "]"); }

/* Length of a valid UTF-8 sequence starting at s, or 0. */
static int utf8_len(const unsigned char *s)
{
    int n, i;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0) { n = 2; cp = s[0] & 0x1f; }
    else if ((s[0] & 0xf0) == 0xe0) { n = 3; cp = s[0] & 0x0f; }
    else if ((s[0] & 0xf8) == 0xf0) { n = 4; cp = s[0] & 0x07; }
    else return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0; /* overlong, out of range, or a surrogate */
    return n;
}

/* str quoted and escaped: the same for keys and values */
static void put_quoted(om_out *o, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    om_out_str(o, "\"");
    while (*s) {
        const unsigned char *run = s;
        int n;
        /* copy plain runs in one call */
        while (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
            s++;
        if (s > run)
            om_out_bytes(o, run, (size_t)(s - run));
        if (!*s)
            break;
        if (*s == '"' || *s == '\\') {
            char e[3] = { '\\', (char)*s, 0 };
            om_out_str(o, e);
            s++;
        } else if (*s < 0x20) {
            char e[8];
            snprintf(e, sizeof(e), "\\u%04x", *s);
            om_out_str(o, e);
            s++;
        } else if ((n = utf8_len(s)) > 0) {
            om_out_bytes(o, s, (size_t)n);
            s += n;
        } else {
            om_out_str(o, "\xef\xbf\xbd"); /* U+FFFD for a byte that is not UTF-8 */
            s++;
        }
    }
    om_out_str(o, "\"");
}

void jw_string(jsonw *w, const char *str)
{
    value_start(w);
    put_quoted(w->o, str);
}

/* Keys are escaped too: some come from the table (chip names) */
void jw_key(jsonw *w, const char *key)
{
    value_start(w);
    put_quoted(w->o, key);
    om_out_bytes(w->o, ": ", w->compact ? 1 : 2);
    w->after_key = 1;
}

/* Decimal digits of v, written by hand: counts are most of a report's numbers, and the
 * formatted-output functions cost more per call. */
static void put_uint(om_out *o, uint64_t v, int negative)
{
    char buf[24];
    size_t i = sizeof(buf);
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (negative)
        buf[--i] = '-';
    om_out_bytes(o, buf + i, sizeof(buf) - i);
}

void jw_int(jsonw *w, int64_t v)
{
    value_start(w);
    put_uint(w->o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void jw_uint(jsonw *w, uint64_t v)
{
    value_start(w);
    put_uint(w->o, v, 0);
}

void jw_days(jsonw *w, uint64_t milli)
{
    char buf[32];
    value_start(w);
    om_format_days(milli, buf, sizeof(buf));
    om_out_str(w->o, buf);
}

void jw_number(jsonw *w, double v)
{
    char buf[40];
    int p;
    value_start(w);
    if (!isfinite(v)) {
        om_out_str(w->o, "null");
        return;
    }
    for (p = 1; p <= 17; p++) { /* the shortest form that reads back the same */
        snprintf(buf, sizeof(buf), "%.*g", p, v);
        if (strtod(buf, NULL) == v) /* same locale both ways, so the check holds */
            break;
    }
    /* JSON wants '.', whatever decimal point the host's LC_NUMERIC made %g write */
    {
        char fixed[48];
        size_t i, k = 0;
        for (i = 0; buf[i] && k + 1 < sizeof(fixed); i++) {
            unsigned char c = (unsigned char)buf[i];
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e')
                fixed[k++] = (char)c;
            else if (!(c & 0x40) || c < 0x80) /* one '.' for the separator, even multi-byte */
                if (k == 0 || fixed[k - 1] != '.')
                    fixed[k++] = '.';
        }
        fixed[k] = '\0';
        om_out_str(w->o, fixed);
    }
}

void jw_number_text(jsonw *w, const char *t)
{
    value_start(w);
    om_out_str(w->o, t);
}

void jw_bool(jsonw *w, int v)
{
    value_start(w);
    om_out_str(w->o, v ? "true" : "false");
}

void jw_null(jsonw *w)
{
    value_start(w);
    om_out_str(w->o, "null");
}

void jw_kstring(jsonw *w, const char *key, const char *s) { jw_key(w, key); jw_string(w, s); }
void jw_kint(jsonw *w, const char *key, int64_t v) { jw_key(w, key); jw_int(w, v); }
void jw_kuint(jsonw *w, const char *key, uint64_t v) { jw_key(w, key); jw_uint(w, v); }
void jw_kdays(jsonw *w, const char *key, uint64_t milli) { jw_key(w, key); jw_days(w, milli); }
void jw_kbool(jsonw *w, const char *key, int v) { jw_key(w, key); jw_bool(w, v); }
