/*
 * readers/torchscript/lang/lexer.c - tokenizer for TorchScript code entries (see lang/lexer.h).
 */
#define _GNU_SOURCE 1 /* strtod_l: torch's strtod_c is strtod_l in the "C" locale */

#include "lexer.h"

#include <inttypes.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "core/py_escape.h"

typedef struct tsl_lexer {
    ts_ctx *c;
    const char *entry;
    const unsigned char *s;
    size_t len, pos, line_start;
    uint32_t line;
    uint32_t depth;
    om_vec *toks;
    int at_bol;
} tsl_lexer;

static uint32_t col_of(const tsl_lexer *l, size_t pos)
{
    size_t col = pos - l->line_start + 1;
    return col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

static int lfail(tsl_lexer *l, int code, size_t pos, const char *what)
{
    return ts_fail(l->c, code, l->entry, l->line, col_of(l, pos), "%s", what);
}

static tsl_token *tok(tsl_lexer *l, int t, size_t start)
{
    tsl_token *k = om_vec_push(l->toks, l->c->mem);
    if (!k)
        return NULL;
    k->t = (uint8_t)t;
    k->line = l->line;
    k->col = col_of(l, start);
    k->off = (uint32_t)start;
    if (l->at_bol && t != TK_NEWLINE && t != TK_EOF) {
        k->bol = 1;
        k->indent = k->col - 1;
        l->at_bol = 0;
    }
    return k;
}

static int is_name0(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static int is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

/*
 * A decimal literal as torch reads it: its lexer's syntax, then torch::jit::strtod_c, which
 * is strtod_l in the "C" locale: correctly rounded, whatever the process's locale is.
 * glibc's newlocale() of "C" for every category is its built-in object (nothing is
 * allocated or kept). Longer literals than TSL_FLOAT_MAX are not read (0).
 */
int tsl_parse_float(const char *s, size_t n, double *out)
{
    char buf[TSL_FLOAT_MAX + 1];
    size_t i = 0, d = 0;
    locale_t cl;
    char *end;
    while (i < n && is_digit((unsigned char)s[i]))
        i++, d++;
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit((unsigned char)s[i]); i++)
            d++;
    if (!d)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (e0 = i; i < n && is_digit((unsigned char)s[i]); i++)
            ;
        if (i == e0)
            return 0;
    }
    if (i != n || n > TSL_FLOAT_MAX)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!(cl = newlocale(LC_ALL_MASK, "C", (locale_t)0)))
        return 0;
    *out = strtod_l(buf, &end, cl);
    freelocale(cl);
    return end == buf + n;
}

/* A quoted string starting at l->pos; decoded into the scratch arena. */
static int lex_string(tsl_lexer *l)
{
    size_t start = l->pos, i, end, k = 0, bad = 0;
    unsigned char q = l->s[l->pos], *o;
    const char *why = NULL;
    tsl_token *t;
    for (i = start + 1; i < l->len && l->s[i] != q; i++) {
        if (l->s[i] == '\n')
            return lfail(l, OPMAP_EFORMAT, start, "string not closed on its line");
        if (l->s[i] == '\\')
            i++;
    }
    if (i >= l->len)
        return lfail(l, OPMAP_EFORMAT, start, "string not closed");
    end = i;
    if (end - start - 1 > l->c->lim->max_string_bytes)
        return ts_fail(l->c, OPMAP_ELIMIT, l->entry, l->line, col_of(l, start),
                       "string over max_string_bytes (%" PRIu32 ")",
                       l->c->lim->max_string_bytes);
    /* escapes only shrink the text (\x41 -> 1 byte, \u00e9 -> 2 bytes) */
    if (!(o = om_arena_alloc(&l->c->tmp, end - start + 4)))
        return ts_oom(l->c);
    if (!om_py_unescape(l->s + start + 1, end - start - 1, 0, o, &k, &bad, &why))
        return lfail(l, OPMAP_EFORMAT, start + 1 + bad, why);
    if (!(t = tok(l, TK_STR, start)))
        return ts_oom(l->c);
    t->s = (const char *)o;
    t->n = (uint32_t)k;
    l->pos = end + 1;
    return OPMAP_OK;
}

static int lex_number(tsl_lexer *l)
{
    size_t start = l->pos, i = l->pos;
    int is_float = 0;
    tsl_token *t;
    while (i < l->len && is_digit(l->s[i]))
        i++;
    if (i < l->len && l->s[i] == '.') {
        is_float = 1;
        i++;
        while (i < l->len && is_digit(l->s[i]))
            i++;
    }
    if (i < l->len && (l->s[i] == 'e' || l->s[i] == 'E')) {
        size_t j = i + 1;
        if (j < l->len && (l->s[j] == '+' || l->s[j] == '-'))
            j++;
        if (j < l->len && is_digit(l->s[j])) {
            is_float = 1;
            i = j;
            while (i < l->len && is_digit(l->s[i]))
                i++;
        }
    }
    if (i < l->len && (is_name0(l->s[i]) || is_digit(l->s[i])))
        return lfail(l, OPMAP_EFORMAT, start, "malformed number");
    if (!(t = tok(l, is_float ? TK_FLOAT : TK_INT, start)))
        return ts_oom(l->c);
    if (is_float) {
        if (i - start > TSL_FLOAT_MAX)
            return lfail(l, OPMAP_ELIMIT, start, "a float literal over " OM_STR(TSL_FLOAT_MAX)
                         " characters (torch prints at most 24): not read");
        if (!tsl_parse_float((const char *)l->s + start, i - start, &t->f))
            return lfail(l, OPMAP_EFORMAT, start, "malformed number");
    } else {
        uint64_t v = 0;
        size_t k;
        for (k = start; k < i; k++) {
            uint64_t d = (uint64_t)(l->s[k] - '0');
            if (v > (UINT64_MAX - d) / 10)
                return lfail(l, OPMAP_EFORMAT, start, "integer out of range");
            v = v * 10 + d;
        }
        /* 9223372036854775808 only appears negated */
        if (v > (uint64_t)INT64_MAX + 1)
            return lfail(l, OPMAP_EFORMAT, start, "integer out of range");
        t->i = (int64_t)v;
        if (v == (uint64_t)INT64_MAX + 1)
            t->i = INT64_MIN;
    }
    l->pos = i;
    return OPMAP_OK;
}

static const char *const ops3[] = { "**=", "//=", ">>=", "<<=", "..." };
static const char *const ops2[] = { "->", "==", "!=", "<=", ">=", "**", "//", "+=", "-=",
                                    "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", ":=" };
static const char ops1[] = "()[]{},:.=-+*/%<>@&|^~;";

int tsl_lex(ts_ctx *c, const char *entry, const unsigned char *text, size_t len, om_vec *toks)
{
    tsl_lexer l;
    int rc;
    tsl_token *t;
    memset(&l, 0, sizeof(l));
    l.c = c;
    l.entry = entry;
    l.s = text;
    l.len = len;
    l.line = 1;
    l.toks = toks;
    l.at_bol = 1;
    if (len > UINT32_MAX)
        return ts_fail(c, OPMAP_ELIMIT, entry, 0, 0, "code entry over 4 GiB");
    while (l.pos < l.len) {
        unsigned char ch = l.s[l.pos];
        if (l.at_bol && l.depth == 0) {
            /* indentation: spaces only */
            size_t i = l.pos;
            while (i < l.len && l.s[i] == ' ')
                i++;
            if (i < l.len && l.s[i] == '\t')
                return lfail(&l, OPMAP_EFORMAT, i, "tab in indentation");
            if (i < l.len && (l.s[i] == '\n' || l.s[i] == '\r' || l.s[i] == '#')) {
                /* blank or comment-only line */
                while (i < l.len && l.s[i] != '\n')
                    i++;
                if (i < l.len) {
                    i++;
                    l.line++;
                    l.line_start = i;
                }
                l.pos = i;
                continue;
            }
            l.pos = i;
            if (i >= l.len)
                break;
            ch = l.s[i];
        }
        if (ch == '\n') {
            if (l.depth == 0 && !l.at_bol) {
                if (!tok(&l, TK_NEWLINE, l.pos))
                    return ts_oom(c);
                l.at_bol = 1;
            }
            l.pos++;
            l.line++;
            l.line_start = l.pos;
            continue;
        }
        if (ch == ' ' || ch == '\r' || ch == '\t' || ch == '\f') {
            l.pos++;
            continue;
        }
        if (ch == '#') {
            while (l.pos < l.len && l.s[l.pos] != '\n')
                l.pos++;
            continue;
        }
        if (ch == '\\' && l.pos + 1 < l.len && l.s[l.pos + 1] == '\n') {
            l.pos += 2;
            l.line++;
            l.line_start = l.pos;
            continue;
        }
        if (is_name0(ch) || ch >= 0x80) {
            size_t start = l.pos;
            while (l.pos < l.len && (is_name0(l.s[l.pos]) || is_digit(l.s[l.pos]) ||
                                     l.s[l.pos] >= 0x80))
                l.pos++;
            if (l.pos - start > c->lim->max_string_bytes)
                return ts_fail(c, OPMAP_ELIMIT, entry, l.line, col_of(&l, start),
                               "name over max_string_bytes (%" PRIu32 ")",
                               c->lim->max_string_bytes);
            if (!(t = tok(&l, TK_NAME, start)) ||
                !(t->s = ts_intern_scratch(c, (const char *)l.s + start, l.pos - start)))
                return ts_oom(c);
            continue;
        }
        if (is_digit(ch) || (ch == '.' && l.pos + 1 < l.len && is_digit(l.s[l.pos + 1]))) {
            if ((rc = lex_number(&l)))
                return rc;
            continue;
        }
        if (ch == '"' || ch == '\'') {
            if ((rc = lex_string(&l)))
                return rc;
            continue;
        }
        {
            size_t k, n = 0;
            const char *op = NULL;
            for (k = 0; k < sizeof(ops3) / sizeof(ops3[0]) && !op; k++)
                if (l.len - l.pos >= 3 && memcmp(l.s + l.pos, ops3[k], 3) == 0)
                    op = ops3[k], n = 3;
            for (k = 0; k < sizeof(ops2) / sizeof(ops2[0]) && !op; k++)
                if (l.len - l.pos >= 2 && memcmp(l.s + l.pos, ops2[k], 2) == 0)
                    op = ops2[k], n = 2;
            if (!op && ch && strchr(ops1, ch))
                n = 1;
            if (!n)
                return lfail(&l, OPMAP_EFORMAT, l.pos, "unexpected character in code");
            if (!(t = tok(&l, TK_OP, l.pos)))
                return ts_oom(c);
            memcpy(t->op, l.s + l.pos, n);
            if (ch == '(' || ch == '[' || ch == '{') {
                if (++l.depth > c->lim->max_depth)
                    return ts_fail(c, OPMAP_ELIMIT, entry, l.line, col_of(&l, l.pos),
                                   "brackets nested deeper than max_depth (%" PRIu32 ")",
                                   c->lim->max_depth);
            } else if ((ch == ')' || ch == ']' || ch == '}') && n == 1) {
                if (l.depth == 0)
                    return lfail(&l, OPMAP_EFORMAT, l.pos, "unbalanced bracket");
                l.depth--;
            }
            l.pos += n;
        }
    }
    if (l.depth)
        return lfail(&l, OPMAP_EFORMAT, l.pos, "bracket not closed at the end of the entry");
    if (!l.at_bol && !tok(&l, TK_NEWLINE, l.pos))
        return ts_oom(c);
    if (!tok(&l, TK_EOF, l.pos))
        return ts_oom(c);
    return OPMAP_OK;
}
