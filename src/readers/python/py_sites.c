/*
 * readers/python/py_sites.c - the finder's walk over the tokens: dotted chains resolved
 * through the alias map, calls and method calls, string literals with the call, argument
 * and keyword they are passed by. Brackets are a stack (bounded: the lexer refused
 * nesting over max_depth), imports go to py_imports.c.
 */
#include <string.h>

#include "core/err.h"
#include "core/py_escape.h"
#include "py_finder.h"

typedef struct frame {
    int32_t callf;       /* the innermost call frame, this one or an outer one; -1: none */
    int32_t argi;        /* a call: the argument being read */
    uint8_t call;
    uint8_t arg_start;   /* at the start of an argument or element (or after kw=) */
    uint8_t resolved;
    const char *callee;  /* a call: its name ("" for an expression) */
    const char *kw;      /* a call: the keyword of the argument being read */
} frame;

typedef struct walk {
    py_finder *f;
    frame *fr;
    size_t n, cap;
    size_t call_at;           /* the token a pending callee's '(' must be at */
    const char *callee;
    uint8_t callee_resolved;
    uint8_t no_call;          /* the next '(' is a def's or class's */
} walk;

static frame *top(walk *w)
{
    return w->n ? &w->fr[w->n - 1] : NULL;
}

static int push(walk *w, int call, const char *callee, uint8_t resolved)
{
    frame *t = top(w), *nf;
    if (w->n == w->cap) {
        py_finder *f = w->f;
        size_t cap = w->cap ? w->cap * 2 : 16;
        frame *fr = om_realloc(f->arena->mem, w->fr, w->cap * sizeof(*fr), cap * sizeof(*fr));
        if (!fr)
            return om_fail_mem(f->err, f->arena->mem, f->file);
        w->fr = fr;
        w->cap = cap;
        t = top(w);
    }
    nf = &w->fr[w->n];
    memset(nf, 0, sizeof(*nf));
    nf->call = (uint8_t)call;
    nf->callf = call ? (int32_t)w->n : t ? t->callf : -1;
    nf->arg_start = 1;
    nf->callee = callee;
    nf->resolved = resolved;
    w->n++;
    return OPMAP_OK;
}

static int ends_expr(const py_finder *f, size_t i)
{
    const py_token *t;
    if (i == 0)
        return 0;
    t = &f->toks[i - 1];
    return (t->type == PY_T_NAME && !py_is_keyword(f, t)) || t->type == PY_T_STRING ||
           (t->type == PY_T_OP && (!strcmp(t->op, ")") || !strcmp(t->op, "]") ||
                                   !strcmp(t->op, "}")));
}

/* A chain at toks[i]: a name's (postfix 0) or an expression's attributes (postfix 1,
 * toks[i] is the '.'). */
static int chain(walk *w, size_t *pi, int postfix)
{
    py_finder *f = w->f;
    size_t at = *pi, first = *pi + (size_t)postfix, last;
    const char *text = py_chain(f, first, &last, postfix ? "." : NULL), *full = NULL;
    const py_token *head = &f->toks[first];
    int called;
    py_site *s;
    if (!text)
        return f->err->code;
    called = last + 1 < f->ntok && py_tok_is(f, &f->toks[last + 1], PY_T_OP, "(");
    if (!postfix && (full = py_alias_find(&f->aliases, py_tok_text(f, head), head->len)) &&
        !(full = py_join(f, full, "", text + head->len, head)))
        return f->err->code;
    *pi = last + 1;
    if (!full && !postfix && last == first && !called)
        return OPMAP_OK; /* a bare local name: no site */
    s = py_site_new(f, PY_SITE_NAME, &f->toks[at]);
    if (!s)
        return f->err->code;
    s->text = text;
    s->resolved = full != NULL;
    if (full) {
        s->name = full;
        s->kind = called ? PY_SITE_CALL : PY_SITE_NAME;
    } else if (called && (postfix || last > first)) {
        const py_token *attr = &f->toks[last];
        s->kind = PY_SITE_METHOD_CALL;
        s->name = text + strlen(text) - attr->len - 1;
    } else {
        s->name = text;
        s->kind = called ? PY_SITE_CALL : PY_SITE_NAME;
    }
    if (called) {
        w->call_at = *pi;
        w->callee = s->name;
        w->callee_resolved = s->resolved;
    }
    return OPMAP_OK;
}

/* The value of a string literal, decoded as Python does (raw and f-strings as written). */
static int string_value(py_finder *f, const py_token *t, py_site *s)
{
    const unsigned char *body = f->text + t->body;
    unsigned char *out = om_arena_alloc(f->arena, (size_t)t->blen + 1);
    size_t n = t->blen, bad = 0;
    const char *why = NULL;
    if (!out)
        return om_fail_mem(f->err, f->arena->mem, f->file);
    if (t->flags & (PY_STR_RAW | PY_STR_F)) {
        memcpy(out, body, n);
        out[n] = 0;
    } else if (!om_py_unescape(body, t->blen, OM_PYESC_KEEP_UNKNOWN |
                                   (t->flags & PY_STR_BYTES ? OM_PYESC_BYTES : 0u),
                               out, &n, &bad, &why)) {
        return om_fail_line(f->err, OPMAP_EFORMAT, f->file, t->line, t->col,
                            "%s in a string literal", why);
    }
    s->value = (const char *)out;
    s->value_len = (uint32_t)n;
    return (s->text = om_arena_strndup(f->arena, py_tok_text(f, t), t->len))
               ? OPMAP_OK : om_fail_mem(f->err, f->arena->mem, f->file);
}

static int string_site(walk *w, size_t i)
{
    py_finder *f = w->f;
    const py_token *t = &f->toks[i], *next = &f->toks[i + 1];
    frame *tp = top(w), *cf = tp && tp->callf >= 0 ? &w->fr[tp->callf] : NULL;
    int at_start = tp ? tp->arg_start : (i == 0 || f->toks[i - 1].type == PY_T_NEWLINE ||
                                         py_tok_is(f, &f->toks[i - 1], PY_T_OP, "=") ||
                                         py_tok_is(f, &f->toks[i - 1], PY_T_OP, ";"));
    py_site *s = py_site_new(f, cf ? PY_SITE_STRING_ARG : PY_SITE_STRING, t);
    int rc;
    if (!s)
        return f->err->code;
    s->str_flags = t->flags;
    s->alone = at_start && (next->type == PY_T_NEWLINE || next->type == PY_T_EOF ||
                            (next->type == PY_T_OP && strchr(",)]};:", next->op[0]) &&
                             !next->op[1]));
    if (cf) {
        s->name = cf->callee;
        s->resolved = cf->resolved;
        s->arg_index = cf->argi;
        s->bound = cf->kw;
        s->nested = cf != tp;
    }
    if ((rc = string_value(f, t, s)) != OPMAP_OK || !(t->flags & PY_STR_F))
        return rc;
    return py_fstring_sites(f, t);
}

/* A keyword argument's name (`device=` at an argument's start in a call). */
static int keyword_arg(walk *w, size_t i)
{
    py_finder *f = w->f;
    frame *tp = top(w);
    const py_token *t = &f->toks[i];
    if (!tp || !tp->call || !tp->arg_start || i + 1 >= f->ntok ||
        !py_tok_is(f, &f->toks[i + 1], PY_T_OP, "="))
        return 0;
    tp->kw = om_arena_strndup(f->arena, py_tok_text(f, t), t->len);
    return tp->kw ? 1 : -1;
}

static int op(walk *w, size_t i)
{
    py_finder *f = w->f;
    const py_token *t = &f->toks[i];
    frame *tp = top(w);
    int rc = OPMAP_OK;
    if (!strcmp(t->op, "(")) {
        int call = !w->no_call && ends_expr(f, i);
        rc = push(w, call, w->call_at == i ? w->callee : "", w->call_at == i &&
                  w->callee_resolved);
        w->no_call = 0;
    } else if (!strcmp(t->op, "[") || !strcmp(t->op, "{")) {
        rc = push(w, 0, NULL, 0);
    } else if (strchr(")]}", t->op[0])) {
        if (w->n)
            w->n--;
        if ((tp = top(w)))
            tp->arg_start = 0;
    } else if (tp && !strcmp(t->op, ",")) {
        tp->argi++;
        tp->kw = NULL;
        tp->arg_start = 1;
    } else if (tp && strcmp(t->op, "*") && strcmp(t->op, "**") && strcmp(t->op, "=")) {
        tp->arg_start = 0;
    }
    return rc;
}

/* One token (or a chain or import from it); *pi moves past what was read. */
static int step(walk *w, size_t *pi)
{
    py_finder *f = w->f;
    size_t i = *pi;
    const py_token *t = &f->toks[i];
    frame *tp = top(w);
    int rc = OPMAP_OK, k;
    if (t->type == PY_T_NAME && py_is_keyword(f, t)) {
        if ((py_tok_is(f, t, PY_T_NAME, "import") || py_tok_is(f, t, PY_T_NAME, "from")) &&
            !f->fdepth) /* a field is an expression: its aliases are the file's */
            return py_find_import(f, pi);
        if ((py_tok_is(f, t, PY_T_NAME, "def") || py_tok_is(f, t, PY_T_NAME, "class")) &&
            f->toks[i + 1].type == PY_T_NAME) {
            w->no_call = 1;
            i++; /* the name defined is no site */
        }
        if (tp)
            tp->arg_start = 0;
        *pi = i + 1;
        return OPMAP_OK;
    }
    if (t->type == PY_T_NAME) {
        if ((k = keyword_arg(w, i)) != 0) {
            *pi = i + 2;
            return k < 0 ? om_fail_mem(f->err, f->arena->mem, f->file) : OPMAP_OK;
        }
        rc = chain(w, pi, 0);
    } else if (t->type == PY_T_OP && !strcmp(t->op, ".") && ends_expr(f, i) &&
               f->toks[i + 1].type == PY_T_NAME) {
        rc = chain(w, pi, 1);
    } else {
        if (t->type == PY_T_STRING)
            rc = string_site(w, i);
        else if (t->type == PY_T_OP)
            rc = op(w, i);
        else if (t->type == PY_T_NEWLINE)
            w->n = 0, w->no_call = 0;
        *pi = i + 1;
    }
    if ((tp = top(w)) && t->type != PY_T_OP)
        tp->arg_start = 0;
    return rc;
}

int py_find_sites(py_finder *f)
{
    walk w;
    size_t i = 0;
    int rc = OPMAP_OK;
    memset(&w, 0, sizeof(w));
    w.f = f;
    w.call_at = SIZE_MAX;
    while (i < f->ntok && f->toks[i].type != PY_T_EOF && rc == OPMAP_OK)
        rc = step(&w, &i);
    if (w.fr)
        om_dealloc(f->arena->mem, w.fr, w.cap * sizeof(*w.fr));
    return rc;
}
