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

/*
 * Measurements (a test's errors and times, docs/testgen.md) kept at six significant digits,
 * so that a report read back (opmap merge) holds the very doubles the scan held and writes
 * the same digits: om_measure_text writes "%.6g" with '.' in every locale ("" for NaN);
 * om_measure_value reads such text back with one rounding rule (no locale, no libm), NaN for
 * anything else; om_measure_round is the value of the text (magnitudes below 1e-300 are 0:
 * their digits would not survive the trip).
 */
/* The first occurrence of the NUL-terminated `needle` in s[0, n) (no NUL needed there), or
 * NULL. */
const char *om_find_in(const char *s, size_t n, const char *needle);

/*
 * 1 when the source file path[0, n) is not the user's own code: an installed package or
 * Python's own library (a site-packages or dist-packages folder, or lib/pythonX.Y/), or
 * code made at run time ("<string>", "<frozen ...>"). A frame of a stack trace there is
 * torch's or the interpreter's; reports point at the user's own frame instead
 * (docs/reports.md, "Source lines").
 */
int om_installed_path(const char *path, size_t n);

/* 1 when path[0, n) is torch's tracer or exporter (torch/jit/_trace.py, torch/export/,
 * torch/_export/, torch/_dynamo/, torch/fx/): a stack's frames beyond it call the tracer,
 * they are not the model's. */
int om_tracer_path(const char *path, size_t n);

#define OM_MEASURE_TEXT 24
void om_measure_text(double v, char buf[OM_MEASURE_TEXT]);
double om_measure_value(const char *s);
double om_measure_round(double v);

#endif /* OM_TEXT_H */
