/*
 * readers/python/py_coding.h - a Python file's source encoding (PEP 263) and its text in
 * UTF-8: what CPython decodes before it tokenizes (py_coding.c).
 */
#ifndef OM_PY_CODING_H
#define OM_PY_CODING_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/error.h>

#include "core/mem.h"

enum {
    PY_CODING_NONE,    /* no declaration: UTF-8, Python 3's default */
    PY_CODING_UTF8,
    PY_CODING_ASCII,   /* a byte over 0x7F is an error, as in CPython */
    PY_CODING_LATIN1,  /* ISO-8859-1: every byte is its code point */
    PY_CODING_CP1252,  /* Windows-1252: 0x80..0x9F differ, five bytes have no character */
    PY_CODING_OTHER    /* a codec opmap does not read: the file is not scanned */
};

/*
 * The declaration of text[0, len) (after a BOM, when `bom`): 0 when there is none (*codec
 * PY_CODING_NONE, or UTF8 with a BOM), 1 with *codec, *line (1 or 2) and the name as
 * written (truncated into name[name_size]), -1 for a BOM with a declaration of another
 * codec (CPython refuses the file).
 */
int py_coding(const unsigned char *text, size_t len, int bom, int *codec, uint32_t *line,
              char *name, size_t name_size);

/*
 * text[0, len) in Latin-1 or cp1252 (codec) as UTF-8: *out (*out_len bytes and a NUL, *cap
 * bytes from mem, for om_dealloc). OPMAP_EFORMAT at the offset of a byte cp1252 has no
 * character for; OPMAP_ENOMEM / ELIMIT when mem says so.
 */
int py_to_utf8(const char *name, const unsigned char *text, size_t len, int codec, om_mem *mem,
               unsigned char **out, size_t *out_len, size_t *cap, opmap_error *err);

#endif /* OM_PY_CODING_H */
