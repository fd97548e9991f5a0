/*
 * readers/python/py_lexer.h - the tokens of Python 3 source, as far as sites need them.
 *
 * Names, numbers, operators, string literals with every prefix (r b u f and their pairs,
 * any case), single or triple quotes; comments dropped; a newline inside brackets, or after
 * a backslash, joins lines (PY_NEWLINE ends a logical line only at bracket depth 0);
 * LF, CRLF and a lone CR all end a line. Indentation is not tokenized. Strings are not
 * decoded here (py_string_value does it for the few a site keeps). An f-string is one
 * token: its replacement fields are skipped with their nested strings and f-strings, not
 * scanned for sites.
 *
 * Limits: the text is at most max_file_bytes and 4 GiB; brackets nest at most
 * PY_MAX_BRACKETS deep (CPython's tokenizer's own limit), f-strings inside f-strings
 * max_depth; a name is at most max_string_bytes; a string literal is as long as the file
 * allows. Lines and columns are 1-based; a column counts bytes.
 */
#ifndef OM_PY_LEXER_H
#define OM_PY_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"

enum { PY_T_EOF, PY_T_NEWLINE, PY_T_NAME, PY_T_NUMBER, PY_T_STRING, PY_T_OP };

/* CPython's MAXLEVEL (Parser/tokenizer.h): the 201st open bracket is a SyntaxError */
#define PY_MAX_BRACKETS 200

enum { PY_STR_RAW = 1, PY_STR_BYTES = 2, PY_STR_F = 4, PY_STR_TRIPLE = 8 };

typedef struct py_token {
    uint8_t type;          /* PY_T_* */
    uint8_t flags;         /* PY_T_STRING: PY_STR_* */
    char op[4];            /* PY_T_OP: "(", "**=", "...", ... */
    uint32_t line, col;    /* 1-based, of the first byte */
    uint32_t off, len;     /* the token's bytes in the text (a string: prefix to quote) */
    uint32_t body, blen;   /* PY_T_STRING: the body between the quotes */
} py_token;

typedef struct py_lex_in {
    const char *name;           /* the file, for errors */
    const unsigned char *text;  /* UTF-8, a BOM already stepped over */
    size_t len;
    const opmap_limits *lim;
    om_mem *mem;                /* the tokens' vector, the f-string skipper's stack */
} py_lex_in;

/* Tokenizes into `toks` (a vector of py_token on in->mem), ending with PY_T_EOF. */
int py_lex(const py_lex_in *in, om_vec *toks, opmap_error *err);

/* ---- shared by py_lexer.c and py_strings.c ---- */

typedef struct py_cursor {
    const py_lex_in *in;
    size_t pos, line_start;
    uint32_t line;
    opmap_error *err;
} py_cursor;

/* The prefix flags (PY_STR_*) of s[0, n) when it is a string prefix (r, b, u, f, t and
 * the pairs rb br fr rf tr rt, any case), else -1. */
int py_string_prefix(const unsigned char *s, size_t n);

/* Skips a literal whose opening quote(s) c->pos has just passed, to past its closing
 * quote(s); an f-string's replacement fields with the strings inside them. Newlines move
 * c->line. An error names where the literal starts (line, col). */
int py_skip_string(py_cursor *c, unsigned flags, unsigned char quote, int triple,
                   uint32_t line, uint32_t col);

/* Bytes of the line break at pos: 0, 1 (LF, lone CR) or 2 (CRLF). */
size_t py_newline_at(const py_lex_in *in, size_t pos);

uint32_t py_col(const py_cursor *c, size_t pos);
int py_lex_fail(const py_cursor *c, int code, uint32_t line, uint32_t col, const char *what);

#endif /* OM_PY_LEXER_H */
