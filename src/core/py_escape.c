/*
 * core/py_escape.c - Python string escapes (see core/py_escape.h).
 */
#include "py_escape.h"

#include <stdint.h>

static int put_utf8(unsigned char *o, size_t *k, uint32_t cp)
{
    if (cp < 0x80) {
        o[(*k)++] = (unsigned char)cp;
    } else if (cp < 0x800) {
        o[(*k)++] = (unsigned char)(0xC0 | cp >> 6);
        o[(*k)++] = (unsigned char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*k)++] = (unsigned char)(0xE0 | cp >> 12);
        o[(*k)++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (unsigned char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x110000) {
        o[(*k)++] = (unsigned char)(0xF0 | cp >> 18);
        o[(*k)++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*k)++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        return 0;
    }
    return 1;
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* \uXXXX or \UXXXXXXXX at s[i] ('u' or 'U'); i is left on the last digit */
static int unicode_escape(const unsigned char *s, size_t n, size_t *i, unsigned char *o,
                          size_t *k)
{
    int nd = s[*i] == 'u' ? 4 : 8, d;
    uint32_t cp = 0;
    if (*i + (size_t)nd >= n)
        return 0;
    for (d = 1; d <= nd; d++) {
        int h = hexval(s[*i + (size_t)d]);
        if (h < 0)
            return 0;
        cp = cp * 16 + (uint32_t)h;
    }
    if (!put_utf8(o, k, cp))
        return 0;
    *i += (size_t)nd;
    return 1;
}

int om_py_unescape(const unsigned char *s, size_t n, unsigned flags, unsigned char *o,
                   size_t *out_n, size_t *bad_at, const char **why)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        unsigned char ch = s[i];
        if (ch != '\\' || i + 1 >= n) {
            o[k++] = ch;
            continue;
        }
        ch = s[++i];
        switch (ch) {
        case 'n': o[k++] = '\n'; break;
        case 't': o[k++] = '\t'; break;
        case 'r': o[k++] = '\r'; break;
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'v': o[k++] = '\v'; break;
        case 'a': o[k++] = '\a'; break;
        case 'x': {
            int h1 = i + 2 < n ? hexval(s[i + 1]) : -1, h2 = h1 >= 0 ? hexval(s[i + 2]) : -1;
            if (h2 < 0) {
                *bad_at = i;
                *why = "bad \\x escape";
                return 0;
            }
            o[k++] = (unsigned char)(h1 * 16 + h2);
            i += 2;
            break;
        }
        default:
            if ((ch == 'u' || ch == 'U') && !(flags & OM_PYESC_BYTES)) {
                if (!unicode_escape(s, n, &i, o, &k)) {
                    *bad_at = i;
                    *why = "bad unicode escape";
                    return 0;
                }
            } else if (ch >= '0' && ch <= '7') {
                unsigned v = 0;
                int d;
                for (d = 0; d < 3 && i < n && s[i] >= '0' && s[i] <= '7'; d++, i++)
                    v = v * 8 + (unsigned)(s[i] - '0');
                i--;
                o[k++] = (unsigned char)v;
            } else if (ch == '\\' || ch == '\'' || ch == '"') {
                o[k++] = ch;
            } else if (ch == '\n') {
                /* a backslash-newline inside the literal joins the lines */
            } else {
                if (flags & OM_PYESC_KEEP_UNKNOWN)
                    o[k++] = '\\';
                o[k++] = ch;
            }
            break;
        }
    }
    o[k] = 0;
    *out_n = k;
    return 1;
}
