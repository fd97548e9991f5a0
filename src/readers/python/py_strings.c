/*
 * readers/python/py_strings.c - string literals skipped as Python's tokenizer reads them:
 * prefixes, single and triple quotes, backslashes, and f-strings' replacement fields with
 * the strings and f-strings nested in them (PEP 701: a field may reuse the quote). The
 * nesting is an explicit stack bounded by max_depth, never recursion.
 */
#include "py_lexer.h"

#include <inttypes.h>

#include "core/err.h"

enum { FR_LIT, FR_EXPR, FR_SPEC };

typedef struct fs_frame {
    uint8_t kind;      /* FR_* */
    uint8_t quote;     /* FR_LIT: the quote character */
    uint8_t triple;    /* FR_LIT */
    uint8_t raw;       /* FR_LIT */
    uint32_t brackets; /* FR_EXPR: brackets open inside the field */
} fs_frame;

int py_string_prefix(const unsigned char *s, size_t n)
{
    int flags = 0;
    size_t i;
    if (n == 0 || n > 2)
        return -1;
    for (i = 0; i < n; i++) {
        int f;
        switch (s[i] | 0x20) {
        case 'r': f = PY_STR_RAW; break;
        case 'b': f = PY_STR_BYTES; break;
        case 'f': case 't': f = PY_STR_F; break;
        case 'u': f = 0; if (n != 1) return -1; break;
        default: return -1;
        }
        if (s[i] < 'A' || (s[i] > 'Z' && s[i] < 'a') || (flags & f))
            return -1;
        flags |= f;
    }
    if ((flags & PY_STR_BYTES) && (flags & PY_STR_F))
        return -1;
    if (n == 2 && !(flags & PY_STR_RAW))
        return -1;
    return flags;
}

size_t py_newline_at(const py_lex_in *in, size_t pos)
{
    if (pos >= in->len)
        return 0;
    if (in->text[pos] == '\n')
        return 1;
    if (in->text[pos] == '\r')
        return pos + 1 < in->len && in->text[pos + 1] == '\n' ? 2 : 1;
    return 0;
}

uint32_t py_col(const py_cursor *c, size_t pos)
{
    size_t col = pos - c->line_start + 1;
    return col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

int py_lex_fail(const py_cursor *c, int code, uint32_t line, uint32_t col, const char *what)
{
    return om_fail_line(c->err, code, c->in->name, line, col, "%s", what);
}

static void newline(py_cursor *c, size_t nl)
{
    c->pos += nl;
    c->line++;
    c->line_start = c->pos;
}

/* At c->pos, does the literal of `f` close? Moves past the quote(s) if so. */
static int closes(py_cursor *c, const fs_frame *f)
{
    const unsigned char *s = c->in->text;
    if (s[c->pos] != f->quote)
        return 0;
    if (!f->triple) {
        c->pos++;
        return 1;
    }
    if (c->pos + 2 < c->in->len && s[c->pos + 1] == f->quote && s[c->pos + 2] == f->quote) {
        c->pos += 3;
        return 1;
    }
    return 0;
}

static int is_name_byte(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
           (ch >= '0' && ch <= '9') || ch >= 0x80;
}

static int push(py_cursor *c, fs_frame *st, size_t *n, fs_frame f)
{
    if (*n > c->in->lim->max_depth)
        return om_fail_line(c->err, OPMAP_ELIMIT, c->in->name, c->line, py_col(c, c->pos),
                            "f-string fields nested deeper than max_depth (%" PRIu32 ")",
                            c->in->lim->max_depth);
    st[(*n)++] = f;
    return OPMAP_OK;
}

/* In a replacement field: a string starting at c->pos (with its prefix), or 0 when
 * there is none. *rc is set when one was pushed or skipped. */
static int field_string(py_cursor *c, fs_frame *st, size_t *n, int *rc)
{
    const unsigned char *s = c->in->text;
    size_t i = c->pos;
    int flags = 0;
    unsigned char q;
    fs_frame f = { FR_LIT, 0, 0, 0, 0 };
    while (i < c->in->len && is_name_byte(s[i]) && i - c->pos < 3)
        i++;
    if (i > c->pos && (flags = py_string_prefix(s + c->pos, i - c->pos)) < 0)
        return 0;
    if (i >= c->in->len || (s[i] != '"' && s[i] != '\''))
        return 0;
    q = s[i];
    f.quote = q;
    f.raw = (flags & PY_STR_RAW) != 0;
    f.triple = i + 2 < c->in->len && s[i + 1] == q && s[i + 2] == q;
    if (flags & PY_STR_F) {
        *rc = push(c, st, n, f); /* an error names the nested f-string's prefix */
        c->pos = i + (f.triple ? 3 : 1);
    } else {
        uint32_t col = py_col(c, c->pos);
        c->pos = i + (f.triple ? 3 : 1);
        *rc = py_skip_string(c, (unsigned)flags, q, f.triple, c->line, col);
    }
    return 1;
}

/* One step inside a replacement field (FR_EXPR) or its format spec (FR_SPEC). */
static int field_step(py_cursor *c, fs_frame *st, size_t *n)
{
    const unsigned char *s = c->in->text;
    fs_frame *top = &st[*n - 1];
    unsigned char ch = s[c->pos];
    int rc = OPMAP_OK;
    fs_frame expr = { FR_EXPR, 0, 0, 0, 0 };
    if (top->kind == FR_SPEC) {
        if (ch == '{')
            rc = push(c, st, n, expr);
        else if (ch == '}')
            (*n)--;
        c->pos++;
        return rc;
    }
    if (field_string(c, st, n, &rc))
        return rc;
    if (is_name_byte(ch)) {
        while (c->pos < c->in->len && is_name_byte(s[c->pos]))
            c->pos++;
        return OPMAP_OK;
    }
    if (ch == '#') {
        while (c->pos < c->in->len && !py_newline_at(c->in, c->pos))
            c->pos++;
        return OPMAP_OK;
    }
    if (ch == '(' || ch == '[' || ch == '{') {
        if (++top->brackets > PY_MAX_BRACKETS)
            return om_fail_line(c->err, OPMAP_ELIMIT, c->in->name, c->line, py_col(c, c->pos),
                                "brackets nested deeper than %d (CPython's limit)",
                                PY_MAX_BRACKETS);
    } else if (ch == ')' || ch == ']') {
        if (top->brackets)
            top->brackets--;
    } else if (ch == '}') {
        if (top->brackets)
            top->brackets--;
        else
            (*n)--;
    } else if (ch == ':' && !top->brackets) {
        top->kind = FR_SPEC;
    }
    c->pos++;
    return OPMAP_OK;
}

/* One step in the literal text of an f-string. */
static int literal_step(py_cursor *c, fs_frame *st, size_t *n)
{
    const unsigned char *s = c->in->text;
    fs_frame *top = &st[*n - 1];
    fs_frame expr = { FR_EXPR, 0, 0, 0, 0 };
    unsigned char ch = s[c->pos];
    if (closes(c, top)) {
        (*n)--;
        return OPMAP_OK;
    }
    if (ch == '\\' && c->pos + 1 < c->in->len && s[c->pos + 1] != '{' && s[c->pos + 1] != '}') {
        size_t nl = py_newline_at(c->in, c->pos + 1);
        c->pos++;
        if (nl)
            newline(c, nl);
        else
            c->pos++;
        return OPMAP_OK;
    }
    if ((ch == '{' || ch == '}') && c->pos + 1 < c->in->len && s[c->pos + 1] == ch) {
        c->pos += 2;
        return OPMAP_OK;
    }
    c->pos++;
    return ch == '{' ? push(c, st, n, expr) : OPMAP_OK;
}

static int skip_fstring(py_cursor *c, unsigned flags, unsigned char quote, int triple,
                        uint32_t line, uint32_t col)
{
    size_t n = 0, cap = (size_t)c->in->lim->max_depth + 2;
    fs_frame *st = om_calloc(c->in->mem, cap, sizeof(*st));
    fs_frame first = { FR_LIT, 0, 0, 0, 0 };
    int rc = OPMAP_OK;
    if (!st)
        return om_fail_mem(c->err, c->in->mem, c->in->name);
    first.quote = quote;
    first.triple = (uint8_t)triple;
    first.raw = (flags & PY_STR_RAW) != 0;
    st[n++] = first;
    while (n && rc == OPMAP_OK) {
        size_t nl;
        if (c->pos >= c->in->len) {
            rc = py_lex_fail(c, OPMAP_EFORMAT, line, col, "string not closed");
            break;
        }
        if ((nl = py_newline_at(c->in, c->pos))) {
            if (st[n - 1].kind == FR_LIT && !st[n - 1].triple) {
                rc = py_lex_fail(c, OPMAP_EFORMAT, line, col, "string not closed on its line");
                break;
            }
            newline(c, nl);
            continue;
        }
        rc = st[n - 1].kind == FR_LIT ? literal_step(c, st, &n) : field_step(c, st, &n);
    }
    om_dealloc(c->in->mem, st, cap * sizeof(*st));
    return rc;
}

int py_skip_string(py_cursor *c, unsigned flags, unsigned char quote, int triple,
                   uint32_t line, uint32_t col)
{
    const unsigned char *s = c->in->text;
    fs_frame f = { FR_LIT, 0, 0, 0, 0 };
    if (flags & PY_STR_F)
        return skip_fstring(c, flags, quote, triple, line, col);
    f.quote = quote;
    f.triple = (uint8_t)triple;
    for (;;) {
        size_t nl;
        if (c->pos >= c->in->len)
            return py_lex_fail(c, OPMAP_EFORMAT, line, col, "string not closed");
        if (closes(c, &f))
            return OPMAP_OK;
        if ((nl = py_newline_at(c->in, c->pos))) {
            if (!triple)
                return py_lex_fail(c, OPMAP_EFORMAT, line, col, "string not closed on its line");
            newline(c, nl);
            continue;
        }
        /* a backslash keeps the next character in the literal, raw or not */
        if (s[c->pos] == '\\' && c->pos + 1 < c->in->len) {
            c->pos++;
            if ((nl = py_newline_at(c->in, c->pos)))
                newline(c, nl);
            else
                c->pos++;
            continue;
        }
        c->pos++;
    }
}
