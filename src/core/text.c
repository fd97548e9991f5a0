/*
 * core/text.c - bounded formatting into fixed buffers (see text.h).
 */
#include "text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

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
