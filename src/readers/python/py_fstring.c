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
        if (expr_end) { /* the conversion and format spec: only braces nest there */
            if (c == '{')
                braces++;
            else if (c == '}' && braces > 0)
                braces--;
            else if (c == '}')
                break;
            i++;
            continue;
        }
        if (c == '\'' || c == '"') {
            i = skip_quoted(b, i, n);
            continue;
        }
        if (depth == 0 &&
            ((c == '!' && i + 1 < n && b[i + 1] != '=') || c == ':' ||
             (c == '=' && i + 1 < n && (b[i + 1] == '}' || b[i + 1] == '!' || b[i + 1] == ':') &&
              i > start && !strchr("=!<>", b[i - 1])))) {
            expr_end = i;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            depth--;
        else if (c == '}')
            break;
        i++;
    }
    *field_end = i < n ? i + 1 : n;
    return expr_end ? expr_end : i;
}

/* Where the walk through an f-string's body has got to: offsets only move forward, so
 * finding each field's line and column costs the body's length once, not once per field. */
typedef struct fcursor {
    size_t off, line_start;
    uint32_t line, col0;      /* col0: the column of line_start (the token's own on its line) */
    uint8_t in_loop;          /* the f-string is in a loop: so is the code of its fields */
} fcursor;

static void cursor_to(const py_finder *f, fcursor *c, size_t off, uint32_t *line, uint32_t *col)
{
    for (; c->off < off; c->off++)
        if (f->text[c->off] == '\n' ||
            (f->text[c->off] == '\r' && f->text[c->off + 1] != '\n')) {
            c->line++;
            c->line_start = c->off + 1;
            c->col0 = 1;
        }
    *line = c->line;
    *col = c->col0 + (uint32_t)(off - c->line_start);
}

/* One field's code [a, b) of the text: tokenized, walked, its sites (and an error's
 * place) moved to where they are in the file. */
static int field_sites(py_finder *f, fcursor *cur, size_t a, size_t b)
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
    cursor_to(f, cur, a, &line, &col);
    if (py_lex(&in, &toks, &local) != OPMAP_OK) {
        om_vec_free(&toks, f->arena->mem);
        if (local.code == OPMAP_EFORMAT) /* the file's own lexer took it: nothing to add */
            return OPMAP_OK;
        *f->err = local;
        return local.code;
    }
    sub = *f;
    sub.text = f->text + a;
    sub.toks = toks.data;
    sub.ntok = toks.len;
    sub.fdepth = f->fdepth + 1;
    sub.in_loop = cur->in_loop;
    sub.in_comp = NULL;
    rc = py_find_sites(&sub);
    om_vec_free(&toks, f->arena->mem);
    if (rc != OPMAP_OK && f->err->line) { /* the sub-walk's error, at the field's place */
        if (f->err->line == 1)
            f->err->column += col - 1;
        f->err->line += line - 1;
    }
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
    fcursor cur = { t->off, t->off, t->line, t->col, 0 };
    int rc = OPMAP_OK;
    if (f->fdepth >= f->lim->max_depth)
        return OPMAP_OK; /* the lexer bounded the nesting already: never reached */
    cur.in_loop = f->in_loop || (f->in_comp && f->in_comp[t - f->toks]);
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
            rc = field_sites(f, &cur, t->body + i + 1, t->body + end);
        i = field_end;
    }
    return rc;
}
