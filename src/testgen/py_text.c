/*
 * testgen/py_text.c - Python text: a growable buffer, and literals that are plain ASCII,
 * so a model's names (which may hold newlines, quotes, any byte) never escape the string
 * they are written in, in code or in a comment.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "testgen_internal.h"

void tg_put(tg_buf *b, const char *s, size_t n)
{
    if (b->oom || !n)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *p;
        while (cap < b->len + n + 1)
            cap *= 2;
        if (!(p = om_realloc(b->mem, b->data, b->cap, cap))) {
            b->oom = 1;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tg_puts(tg_buf *b, const char *s)
{
    tg_put(b, s, strlen(s));
}

void tg_int(tg_buf *b, int64_t v)
{
    char n[32];
    snprintf(n, sizeof(n), "%" PRId64, v);
    tg_puts(b, n);
}

void tg_free(tg_buf *b)
{
    if (b->data)
        om_dealloc(b->mem, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* The code point of the UTF-8 sequence s[0, k). */
static uint32_t code_point(const unsigned char *s, size_t k)
{
    uint32_t c = k == 2 ? s[0] & 0x1f : k == 3 ? s[0] & 0x0f : s[0] & 0x07;
    size_t i;
    for (i = 1; i < k; i++)
        c = (c << 6) | (s[i] & 0x3f);
    return c;
}

void tg_py_str(tg_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    char e[16];
    tg_put(b, "\"", 1);
    while (i < n) {
        unsigned char c = p[i];
        size_t k = 1;
        if (c == '"' || c == '\\') {
            e[0] = '\\', e[1] = (char)c;
            tg_put(b, e, 2);
        } else if (c >= 0x20 && c < 0x7f) {
            tg_put(b, (const char *)&p[i], 1);
        } else if (c == '\n' || c == '\t' || c == '\r') {
            e[0] = '\\', e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            tg_put(b, e, 2);
        } else if (c < 0x80) {
            snprintf(e, sizeof(e), "\\x%02x", c);
            tg_puts(b, e);
        } else if ((k = om_utf8_len(p + i, n - i)) > 1) {
            uint32_t cp = code_point(p + i, k);
            snprintf(e, sizeof(e), cp > 0xffff ? "\\U%08" PRIx32 : "\\u%04" PRIx32, cp);
            tg_puts(b, e);
        } else {
            k = 1;
            tg_puts(b, "\\ufffd"); /* not UTF-8: a Python str cannot hold the byte */
        }
        i += k;
    }
    tg_put(b, "\"", 1);
}

void tg_py_float(tg_buf *b, double v, int single)
{
    char t[48];
    om_sig_float(v, single, t, sizeof(t));
    if (strcmp(t, "nan") == 0 || strcmp(t, "inf") == 0 || strcmp(t, "-inf") == 0) {
        tg_puts(b, "float(\"");
        tg_puts(b, t);
        tg_puts(b, "\")");
        return;
    }
    tg_puts(b, t);
}
