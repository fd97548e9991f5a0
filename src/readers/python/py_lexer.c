/*
 * readers/python/py_lexer.c - Python 3 source into tokens (see py_lexer.h).
 */
#include "py_lexer.h"

#include <inttypes.h>
#include <string.h>

#include "core/err.h"

typedef struct py_lexer {
    py_cursor c;
    om_vec *toks;
    uint32_t depth;
    uint32_t open_line, open_col;  /* the outermost open bracket */
    int has_token;                 /* the logical line holds a token */
} py_lexer;

static int is_name0(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch >= 0x80;
}

static int is_digit(unsigned char ch)
{
    return ch >= '0' && ch <= '9';
}

static py_token *emit(py_lexer *l, int type, size_t start, uint32_t line, uint32_t col)
{
    py_token *t = om_vec_push(l->toks, l->c.in->mem);
    if (!t) {
        om_fail_mem(l->c.err, l->c.in->mem, l->c.in->name);
        return NULL;
    }
    t->type = (uint8_t)type;
    t->line = line;
    t->col = col;
    t->off = (uint32_t)start;
    t->len = (uint32_t)(l->c.pos - start);
    if (type != PY_T_NEWLINE && type != PY_T_EOF)
        l->has_token = 1;
    return t;
}

/* A string literal: the prefix (if any) at start, its first quote at q. */
static int lex_string(py_lexer *l, size_t start, size_t q, int flags)
{
    const unsigned char *s = l->c.in->text;
    uint32_t line = l->c.line, col = py_col(&l->c, start);
    int triple = q + 2 < l->c.in->len && s[q + 1] == s[q] && s[q + 2] == s[q];
    size_t body = q + (triple ? 3 : 1), blen;
    py_token *t;
    int rc;
    l->c.pos = body;
    if ((rc = py_skip_string(&l->c, (unsigned)flags, s[q], triple, line, col)))
        return rc;
    /* a literal of any length (CPython has no limit): the file's own bound holds it; a
     * site keeps the first max_string_bytes of its value (py_sites.c) */
    blen = l->c.pos - body - (triple ? 3 : 1);
    if (!(t = emit(l, PY_T_STRING, start, line, col)))
        return l->c.err ? l->c.err->code : OPMAP_ENOMEM;
    t->flags = (uint8_t)(flags | (triple ? PY_STR_TRIPLE : 0));
    t->body = (uint32_t)body;
    t->blen = (uint32_t)blen;
    return OPMAP_OK;
}

/* A name, or the prefix of a string literal. */
static int lex_name(py_lexer *l)
{
    const unsigned char *s = l->c.in->text;
    size_t start = l->c.pos;
    int flags;
    while (l->c.pos < l->c.in->len && (is_name0(s[l->c.pos]) || is_digit(s[l->c.pos])))
        l->c.pos++;
    if (l->c.pos < l->c.in->len && (s[l->c.pos] == '"' || s[l->c.pos] == '\'') &&
        (flags = py_string_prefix(s + start, l->c.pos - start)) >= 0)
        return lex_string(l, start, l->c.pos, flags);
    if (l->c.pos - start > l->c.in->lim->max_string_bytes)
        return om_fail_line(l->c.err, OPMAP_ELIMIT, l->c.in->name, l->c.line,
                            py_col(&l->c, start), "name over max_string_bytes (%" PRIu32 ")",
                            l->c.in->lim->max_string_bytes);
    return emit(l, PY_T_NAME, start, l->c.line, py_col(&l->c, start)) ? OPMAP_OK
                                                                         : l->c.err->code;
}

/* A number: digits, letters, '_' and '.', and a sign after a decimal exponent. The value
 * is not needed, so 0x1F, 1_000, 1e-3, 2j and 0o7 are all one token. */
static int lex_number(py_lexer *l)
{
    const unsigned char *s = l->c.in->text;
    size_t start = l->c.pos;
    int hex = s[start] == '0' && start + 1 < l->c.in->len && (s[start + 1] | 0x20) == 'x';
    while (l->c.pos < l->c.in->len) {
        unsigned char ch = s[l->c.pos];
        if (is_name0(ch) && ch < 0x80) {
            l->c.pos++;
            if (!hex && (ch | 0x20) == 'e' && l->c.pos < l->c.in->len &&
                (s[l->c.pos] == '+' || s[l->c.pos] == '-'))
                l->c.pos++;
        } else if (is_digit(ch) || ch == '.') {
            l->c.pos++;
        } else {
            break;
        }
    }
    return emit(l, PY_T_NUMBER, start, l->c.line, py_col(&l->c, start)) ? OPMAP_OK
                                                                           : l->c.err->code;
}

static const char *const ops3[] = { "**=", "//=", ">>=", "<<=", "..." };
static const char *const ops2[] = { "->", "==", "!=", "<=", ">=", "**", "//", "+=", "-=",
                                    "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", ":=",
                                    "@=" };
static const char ops1[] = "()[]{},:.;=+-*/%<>@&|^~!";

static int lex_op(py_lexer *l)
{
    const unsigned char *s = l->c.in->text + l->c.pos;
    size_t k, n = 0, left = l->c.in->len - l->c.pos;
    uint32_t line = l->c.line, col = py_col(&l->c, l->c.pos);
    unsigned char ch = s[0];
    py_token *t;
    for (k = 0; k < sizeof(ops3) / sizeof(ops3[0]) && !n; k++)
        if (left >= 3 && memcmp(s, ops3[k], 3) == 0)
            n = 3;
    for (k = 0; k < sizeof(ops2) / sizeof(ops2[0]) && !n; k++)
        if (left >= 2 && memcmp(s, ops2[k], 2) == 0)
            n = 2;
    if (!n && ch && strchr(ops1, ch))
        n = 1;
    if (!n)
        return om_fail_line(l->c.err, OPMAP_EFORMAT, l->c.in->name, line, col,
                            "unexpected character 0x%02x", ch);
    if (ch == '(' || ch == '[' || ch == '{') {
        if (l->depth == 0) {
            l->open_line = line;
            l->open_col = col;
        }
        /* CPython's tokenizer refuses the 201st (MAXLEVEL: "too many nested
         * parentheses"), so a file past it is not Python that runs */
        if (++l->depth > PY_MAX_BRACKETS)
            return om_fail_line(l->c.err, OPMAP_ELIMIT, l->c.in->name, line, col,
                                "brackets nested deeper than %d (CPython's limit)",
                                PY_MAX_BRACKETS);
    } else if (ch == ')' || ch == ']' || ch == '}') {
        if (l->depth == 0)
            return py_lex_fail(&l->c, OPMAP_EFORMAT, line, col, "closing bracket never opened");
        l->depth--;
    }
    l->c.pos += n;
    if (!(t = emit(l, PY_T_OP, l->c.pos - n, line, col)))
        return l->c.err->code;
    memcpy(t->op, s, n);
    return OPMAP_OK;
}

/* Blanks, comments, line breaks and continuations at c.pos: 1 when one was stepped over. */
static int lex_space(py_lexer *l, int *rc)
{
    const py_lex_in *in = l->c.in;
    unsigned char ch = in->text[l->c.pos];
    size_t nl = py_newline_at(in, l->c.pos);
    if (nl) {
        if (l->depth == 0 && l->has_token) {
            if (!emit(l, PY_T_NEWLINE, l->c.pos, l->c.line, py_col(&l->c, l->c.pos)))
                return *rc = l->c.err->code, 1;
            l->has_token = 0;
        }
        l->c.pos += nl;
        l->c.line++;
        l->c.line_start = l->c.pos;
        return 1;
    }
    if (ch == ' ' || ch == '\t' || ch == '\f') {
        l->c.pos++;
        return 1;
    }
    if (ch == '#') {
        while (l->c.pos < in->len && !py_newline_at(in, l->c.pos))
            l->c.pos++;
        return 1;
    }
    if (ch == '\\') {
        if (!(nl = py_newline_at(in, l->c.pos + 1)))
            *rc = py_lex_fail(&l->c, OPMAP_EFORMAT, l->c.line, py_col(&l->c, l->c.pos),
                              "backslash not at the end of a line");
        l->c.pos += 1 + nl;
        l->c.line++;
        l->c.line_start = l->c.pos;
        return 1;
    }
    return 0;
}

int py_lex(const py_lex_in *in, om_vec *toks, opmap_error *err)
{
    py_lexer l;
    int rc = OPMAP_OK;
    memset(&l, 0, sizeof(l));
    l.c.in = in;
    l.c.line = 1;
    l.c.err = err;
    l.toks = toks;
    if (in->len > in->lim->max_file_bytes || in->len > UINT32_MAX)
        return om_fail(err, OPMAP_ELIMIT, in->name, "file over max_file_bytes (%" PRIu64
                       ") or 4 GiB", in->lim->max_file_bytes);
    while (l.c.pos < in->len && rc == OPMAP_OK) {
        unsigned char ch = in->text[l.c.pos];
        if (lex_space(&l, &rc))
            continue;
        if (is_name0(ch))
            rc = lex_name(&l);
        else if (is_digit(ch) || (ch == '.' && l.c.pos + 1 < in->len &&
                                  is_digit(in->text[l.c.pos + 1])))
            rc = lex_number(&l);
        else if (ch == '"' || ch == '\'')
            rc = lex_string(&l, l.c.pos, l.c.pos, 0);
        else
            rc = lex_op(&l);
    }
    if (rc)
        return rc;
    if (l.depth)
        return py_lex_fail(&l.c, OPMAP_EFORMAT, l.open_line, l.open_col,
                           "bracket never closed");
    if (l.has_token && !emit(&l, PY_T_NEWLINE, l.c.pos, l.c.line, py_col(&l.c, l.c.pos)))
        return err->code;
    if (!emit(&l, PY_T_EOF, l.c.pos, l.c.line, py_col(&l.c, l.c.pos)))
        return err->code;
    return OPMAP_OK;
}
