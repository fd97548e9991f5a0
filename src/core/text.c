/*
 * core/text.c - bounded formatting into fixed buffers (see text.h).
 */
#include "text.h"

#include <stdarg.h>
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
