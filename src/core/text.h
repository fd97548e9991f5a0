/*
 * core/text.h - bounded formatting into fixed buffers (messages, risk texts), and the one
 * UTF-8 check of the readers of text formats.
 */
#ifndef OM_TEXT_H
#define OM_TEXT_H

#include <stddef.h>

/*
 * Appends to buf[0, size) at *used, and never past the end: snprintf returns the length it
 * would have written, so adding it up unchecked walks `used` past the buffer (a symbolic
 * dimension of 40 bytes, a Reshape value of 1e308 printed with 309 digits) and the next
 * write lands outside it. buf stays NUL-terminated once anything is appended.
 */
void om_appendf(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 when it is not one:
 * overlong forms, surrogates and code points over U+10FFFF are malformed. */
size_t om_utf8_len(const unsigned char *s, size_t n);

#endif /* OM_TEXT_H */
