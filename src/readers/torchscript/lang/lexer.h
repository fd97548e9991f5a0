/*
 * readers/torchscript/lang/lexer.h - tokens of the Python subset torch.jit.save prints.
 *
 * Logical lines are what the parser works with: a newline inside brackets joins lines
 * (the multi-line `def` signatures), every other newline ends one. The first token of a
 * logical line carries its indentation. Bracket nesting is bounded by max_depth, strings
 * and names by max_string_bytes; every token knows its byte offset, line and column.
 */
#ifndef OM_TS_LANG_LEXER_H
#define OM_TS_LANG_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/common/context.h"

enum { TK_EOF, TK_NEWLINE, TK_NAME, TK_INT, TK_FLOAT, TK_STR, TK_OP };

typedef struct tsl_token {
    uint8_t t;
    uint8_t bol;           /* first token of a logical line */
    char op[3];            /* TK_OP text: "(", "->", "==", ... */
    uint32_t indent;       /* bol: columns of indentation */
    uint32_t line, col;    /* 1-based */
    uint32_t off;          /* byte offset in the entry */
    const char *s;         /* TK_NAME: interned; TK_STR: decoded bytes (scratch arena) */
    uint32_t n;            /* TK_STR length */
    int64_t i;             /* TK_INT */
    double f;              /* TK_FLOAT */
} tsl_token;

/* Tokenizes `text` into `toks` (a vector of tsl_token on the context's budget). */
int tsl_lex(ts_ctx *c, const char *entry, const unsigned char *text, size_t len, om_vec *toks);

/* The longest float literal read (torch's printer writes at most 24 characters). */
#define TSL_FLOAT_MAX 1024
#define OM_STR_(x) #x
#define OM_STR(x) OM_STR_(x)

/* s[0, n), a decimal literal, as torch reads it: strtod in the "C" locale, correctly
 * rounded; 0 when malformed or over TSL_FLOAT_MAX characters. */
int tsl_parse_float(const char *s, size_t n, double *out);

#endif /* OM_TS_LANG_LEXER_H */
