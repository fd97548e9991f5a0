/*
 * readers/python/py_fstring.c - the code inside an f-string's replacement fields:
 * `f"{torch.cuda.max_memory_allocated()}"` runs that call. Each field's expression (up to
 * its `!conversion`, `:format spec` or `=`) is tokenized on its own and walked like any code,
 * its sites moved to their place in the file. Fields nest only as deep as the lexer let
 * f-strings nest (max_depth); a field that does not tokenize on its own adds nothing.
 */
#include <string.h>

#include "core/err.h"
#include "py_finder.h"

/* Past a quoted string inside a field starting at b[i] (a quote); n: body length. */
static size_t skip_quoted(const unsigned char *b, size_t i, size_t n)
{
    unsigned char q = b[i];
    int triple = i + 2 < n && b[i + 1] == q && b[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < n) {
        if (b[i] == '\\') {
            i += 2;
        } else if (b[i] == q && (!triple || (i + 2 < n && b[i + 1] == q && b[i + 2] == q))) {
            return i + (triple ? 3 : 1);
        } else {
            i++;
        }
    }
    return n;
}

/* The end of the expression of the field whose '{' is at b[start - 1], and of the whole
 * field (past its '}'), in *field_end. */
static size_t field_expr(const unsigned char *b, size_t start, size_t n, size_t *field_end)
{
    size_t i = start, expr_end = 0;
    int depth = 0, braces = 0;
    while (i < n) {
        unsigned char c = b[i];
        if (c == '\'' || c == '"') {
            i = skip_quoted(b, i, n);
            continue;
        }
        if (!expr_end && depth == 0 &&
            ((c == '!' && i + 1 < n && b[i + 1] != '=') || c == ':' ||
             (c == '=' && i + 1 < n && (b[i + 1] == '}' || b[i + 1] == '!' || b[i + 1] == ':') &&
              i > start && !strchr("=!<>", b[i - 1]))))
            expr_end = i; /* then the conversion or spec, nested fields and all */
        if (c == '(' || c == '[' || (c == '{' && !expr_end))
            depth++;
        else if ((c == ')' || c == ']' || (c == '}' && !expr_end)) && depth > 0)
            depth--;
        else if (c == '{')
            braces++;
        else if (c == '}' && braces > 0)
            braces--;
        else if (c == '}' && depth == 0) {
            *field_end = i + 1;
            return expr_end ? expr_end : i;
        }
        i++;
    }
    *field_end = n;
    return expr_end ? expr_end : n;
}

/* Line and column of text offset `off`, from token t's start. */
static void position(const py_finder *f, const py_token *t, size_t off, uint32_t *line,
                     uint32_t *col)
{
    size_t i, line_start = t->off;
    uint32_t l = t->line, c0 = t->col;
    for (i = t->off; i < off; i++)
        if (f->text[i] == '\n' || (f->text[i] == '\r' && f->text[i + 1] != '\n')) {
            l++;
            line_start = i + 1;
            c0 = 1;
        }
    *line = l;
    *col = line_start == t->off ? c0 + (uint32_t)(off - t->off) : (uint32_t)(off - line_start) + 1;
}

/* One field's code [a, b) of the text: tokenized, walked, its sites placed. */
static int field_sites(py_finder *f, const py_token *t, size_t a, size_t b)
{
    py_lex_in in;
    py_finder sub;
    om_vec toks;
    opmap_error local;
    uint32_t line, col;
    size_t first = f->sites->len, k;
    int rc;
    memset(&in, 0, sizeof(in));
    in.name = f->file;
    in.text = f->text + a;
    in.len = b - a;
    in.lim = f->lim;
    in.mem = f->arena->mem;
    om_vec_init(&toks, sizeof(py_token));
    if (py_lex(&in, &toks, &local) != OPMAP_OK) {
        om_vec_free(&toks, f->arena->mem);
        return local.code == OPMAP_ENOMEM ? om_fail_mem(f->err, f->arena->mem, f->file)
                                          : OPMAP_OK;
    }
    sub = *f;
    sub.text = f->text + a;
    sub.toks = toks.data;
    sub.ntok = toks.len;
    sub.fdepth = f->fdepth + 1;
    sub.in_loop = f->in_loop || (f->in_comp && f->in_comp[t - f->toks]);
    sub.in_comp = NULL;
    rc = py_find_sites(&sub);
    om_vec_free(&toks, f->arena->mem);
    position(f, t, a, &line, &col);
    for (k = first; rc == OPMAP_OK && k < f->sites->len; k++) {
        py_site *s = &OM_VEC_AT(f->sites, py_site, k);
        if (s->line == 1)
            s->col += col - 1;
        s->line += line - 1;
    }
    return rc;
}

int py_fstring_sites(py_finder *f, const py_token *t)
{
    const unsigned char *body = f->text + t->body;
    size_t n = t->blen, i = 0;
    int rc = OPMAP_OK;
    if (f->fdepth >= f->lim->max_depth)
        return OPMAP_OK; /* the lexer bounded the nesting already: never reached */
    while (i < n && rc == OPMAP_OK) {
        size_t end, field_end;
        if (body[i] != '{') {
            i++;
            continue;
        }
        if (i + 1 < n && body[i + 1] == '{') { /* a literal brace */
            i += 2;
            continue;
        }
        end = field_expr(body, i + 1, n, &field_end);
        if (end > i + 1)
            rc = field_sites(f, t, t->body + i + 1, t->body + end);
        i = field_end;
    }
    return rc;
}
