/*
 * core/py_escape.h - Python's backslash escapes in a string literal's body, decoded.
 *
 * Shared by the TorchScript lexer (the code torch.jit.save prints) and the Python source
 * reader (training code). Escapes only shrink the text, so the output needs at most the
 * input's length plus one byte (a NUL is written after the decoded bytes).
 */
#ifndef OM_PY_ESCAPE_H
#define OM_PY_ESCAPE_H

#include <stddef.h>

enum {
    OM_PYESC_BYTES = 1,        /* a bytes literal: \u, \U and \N are not escapes */
    OM_PYESC_KEEP_UNKNOWN = 2  /* Python's rule: an unknown escape keeps its backslash
                                  (TorchScript's printer never writes one: dropped) */
};

/*
 * Decodes s[0, n) into out (room for n + 1 bytes) and sets *out_n. Returns 1, or 0 for a
 * malformed escape with *bad_at its offset in s and *why a constant message
 * ("bad \\x escape", "bad unicode escape").
 */
int om_py_unescape(const unsigned char *s, size_t n, unsigned flags, unsigned char *out,
                   size_t *out_n, size_t *bad_at, const char **why);

#endif /* OM_PY_ESCAPE_H */
