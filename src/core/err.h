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

/* The source an error names: the file, or "file:entry" for an entry of an archive. */
void om_source_name(char *buf, size_t size, const char *file, const char *entry);

/* Out of memory or over budget, whichever `m` says happened. */
int om_fail_mem(opmap_error *err, const om_mem *m, const char *source);

/*
 * Terminal safety for strings that come from inputs. Returns the length of the UTF-8
 * sequence at `p` (NUL-terminated) when a terminal shows it as text, or 0 when the byte at
 * `p` must not reach a terminal: C0 controls (ESC, CR, LF, BEL...), DEL, the C1 controls
 * U+0080..U+009F (CSI, OSC as UTF-8), the bidirectional embeddings, overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069) and any byte of malformed UTF-8 (a lone 0x9B is CSI to
 * an 8-bit terminal). Never reads past the NUL. opmap_text_for_terminal (opmap/error.h) is
 * the public form.
 */
size_t om_term_seq(const unsigned char *p);

/* Makes `s` one line of text a terminal shows as is: what om_term_seq refuses becomes '?'. */
void om_one_line(char *s);

#endif /* OM_ERR_H */
