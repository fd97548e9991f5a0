/*
 * core/err.h - filling the caller's opmap_error. Every helper accepts err == NULL and
 * returns the status code, so failures read: `return om_fail(err, OPMAP_EFORMAT, ...);`
 */
#ifndef OM_ERR_H
#define OM_ERR_H

#include <stdint.h>

#include <opmap/error.h>

#include "mem.h"

void om_err_clear(opmap_error *err);

/* Sets code, source and message; offset, line and column are cleared. */
int om_fail(opmap_error *err, int code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Same, with a byte offset into a binary input. */
int om_fail_at(opmap_error *err, int code, const char *source, uint64_t offset,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Same, with a line and column in a text input. */
int om_fail_line(opmap_error *err, int code, const char *source, uint32_t line,
                 uint32_t column, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Out of memory or over budget, whichever `m` says happened. */
int om_fail_mem(opmap_error *err, const om_mem *m, const char *source);

#endif /* OM_ERR_H */
