/*
 * core/text.c - bounded formatting into fixed buffers (see text.h).
 */
#include "text.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void om_appendf(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (*used + 1 >= size)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used = (size_t)n < size - *used ? *used + (size_t)n : size - 1;
}

size_t om_utf8_len(const unsigned char *s, size_t n)
{
    size_t k, i;
    uint32_t c;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        k = 2, c = s[0] & 0x1Fu;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        k = 3, c = s[0] & 0x0Fu;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        k = 4, c = s[0] & 0x07u;
    else
        return 0;
    if (k > n)
        return 0;
    for (i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3Fu);
    }
    if ((k == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) || (k == 4 && (c < 0x10000 ||
                                                                               c > 0x10FFFF)))
        return 0;
    return k;
}

void om_measure_text(double v, char buf[OM_MEASURE_TEXT])
{
    size_t i, k = 0;
    if (!isfinite(v)) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, OM_MEASURE_TEXT, "%.6g", fabs(v) < 1e-300 ? 0.0 : v);
    for (i = 0; buf[i]; i++) { /* '.' whatever LC_NUMERIC made %g write */
        unsigned char c = (unsigned char)buf[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e')
            buf[k++] = (char)c;
        else if ((c < 0x80 || !(c & 0x40)) && (k == 0 || buf[k - 1] != '.'))
            buf[k++] = '.';
    }
    buf[k] = '\0';
}

/* m * 10^e by exact powers of ten (IEEE products and quotients: the same everywhere). */
static double scale10(double m, int e)
{
    static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    for (; e > 22; e -= 22)
        m *= 1e22;
    for (; e < -22; e += 22)
        m /= 1e22;
    return e >= 0 ? m * p10[e] : m / p10[-e];
}

double om_measure_value(const char *s)
{
    uint64_t m = 0;
    int e = 0, ex = 0, neg = 0, eneg = 0, digits = 0;
    if (*s == '-')
        neg = 1, s++;
    for (; *s >= '0' && *s <= '9'; s++, digits++)
        if (m < 100000000000000000ull)
            m = m * 10 + (uint64_t)(*s - '0');
        else
            e++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, digits++)
            if (m < 100000000000000000ull)
                m = m * 10 + (uint64_t)(*s - '0'), e--;
    if (!digits)
        return NAN;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            eneg = *s++ == '-';
        if (*s < '0' || *s > '9')
            return NAN;
        for (; *s >= '0' && *s <= '9'; s++)
            if (ex < 10000)
                ex = ex * 10 + (*s - '0');
    }
    if (*s)
        return NAN;
    e += eneg ? -ex : ex;
    if (e > 400 || e < -400)
        return m ? (e > 0 ? INFINITY : 0.0) * (neg ? -1 : 1) : 0.0;
    return (neg ? -1.0 : 1.0) * scale10((double)m, e);
}

double om_measure_round(double v)
{
    char t[OM_MEASURE_TEXT];
    om_measure_text(v, t);
    return t[0] ? om_measure_value(t) : NAN;
}

const char *om_find_in(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle), i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(s + i, needle, k) == 0)
            return s + i;
    return NULL;
}

int om_installed_path(const char *path, size_t n)
{
    const char *p = path, *end = path + n;
    if (om_find_in(path, n, "/site-packages/") || om_find_in(path, n, "/dist-packages/"))
        return 1;
    /* code made at run time (a dataclass's __init__, frozen importlib): nobody's file */
    if ((n == 8 && memcmp(path, "<string>", 8) == 0) || (n > 8 && memcmp(path, "<frozen ", 8) == 0))
        return 1;
    while ((p = om_find_in(p, (size_t)(end - p), "/lib/python"))) { /* lib/python3.11/ */
        const char *v = p += 11;
        while (p < end && ((*p >= '0' && *p <= '9') || *p == '.'))
            p++;
        if (p > v && *v >= '0' && *v <= '9' && p < end && *p == '/')
            return 1;
    }
    return 0;
}

int om_tracer_path(const char *path, size_t n)
{
    return om_find_in(path, n, "/torch/jit/_trace.py") || om_find_in(path, n, "/torch/export/") ||
           om_find_in(path, n, "/torch/_export/") || om_find_in(path, n, "/torch/_dynamo/") ||
           om_find_in(path, n, "/torch/fx/");
}
