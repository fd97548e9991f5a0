/*
 * readers/python/py_sites.c - the finder's walk over the tokens: dotted chains resolved
 * through the alias map, calls and method calls, string literals with the call, argument
 * and keyword they are passed by. Brackets are a stack (bounded: the lexer refused
 * nesting over PY_MAX_BRACKETS), imports go to py_imports.c.
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

/* A `try:` statement being read: its body's imports are guarded when an `except` clause
 * catches ImportError (py_site.guarded). */
typedef struct try_block {
    uint32_t col;             /* the indentation of `try` */
    size_t first;             /* the first site of its body */
    size_t body_end;          /* the first site after it (SIZE_MAX: in the body still) */
} try_block;

typedef struct walk {
    py_finder *f;
    om_vec loops;             /* uint32_t: the indentation of each enclosing loop header */
    om_vec tries;             /* try_block: the enclosing try statements */
    uint8_t at_stmt;          /* the next token starts a logical line */
    uint8_t header;           /* the logical line is a for/while header */
    uint32_t header_col;      /* ... and its indentation */
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

/*
 * The value of a string literal, decoded as Python does (raw and f-strings as written). A
 * literal of any length is checked whole (a bad escape anywhere is Python's SyntaxError);
 * the site keeps the first max_string_bytes of its value and of its text (a rule's string is
 * shorter than that, so an exact match is decided and a prefix kept).
 */
static int string_value(py_finder *f, const py_token *t, py_site *s)
{
    const unsigned char *body = f->text + t->body;
    size_t keep = f->lim->max_string_bytes, n = t->blen, bad = 0, cap = (size_t)t->blen + 1;
    unsigned char *tmp = NULL, *out;
    const char *why = NULL;
    if (!(t->flags & (PY_STR_RAW | PY_STR_F))) {
        if (!(tmp = om_alloc(f->arena->mem, cap)))
            return om_fail_mem(f->err, f->arena->mem, f->file);
        if (!om_py_unescape(body, t->blen, OM_PYESC_KEEP_UNKNOWN |
                                (t->flags & PY_STR_BYTES ? OM_PYESC_BYTES : 0u),
                            tmp, &n, &bad, &why)) {
            om_dealloc(f->arena->mem, tmp, cap);
            return om_fail_line(f->err, OPMAP_EFORMAT, f->file, t->line, t->col,
                                "%s in a string literal", why);
        }
        body = tmp;
    }
    if (n > keep)
        n = keep;
    out = om_arena_alloc(f->arena, n + 1);
    if (out) {
        memcpy(out, body, n);
        out[n] = 0;
    }
    if (tmp)
        om_dealloc(f->arena->mem, tmp, cap);
    if (!out)
        return om_fail_mem(f->err, f->arena->mem, f->file);
    s->value = (const char *)out;
    s->value_len = (uint32_t)n;
    return (s->text = om_arena_strndup(f->arena, py_tok_text(f, t), t->len < keep ? t->len : keep))
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

/* A logical line's end: a loop header's body is what is indented below it. */
static int end_of_line(walk *w)
{
    py_finder *f = w->f;
    w->n = 0;
    w->no_call = 0;
    w->at_stmt = 1;
    if (w->header) {
        uint32_t *slot = om_vec_push(&w->loops, f->arena->mem);
        if (!slot)
            return om_fail_mem(f->err, f->arena->mem, f->file);
        *slot = w->header_col;
        w->header = 0;
    }
    return OPMAP_OK;
}

/* `except` at toks[i]: whether the clause catches a failed import (ImportError,
 * ModuleNotFoundError, Exception, BaseException, or no class at all). */
static int catches_import(const py_finder *f, size_t i)
{
    static const char *const names[] = { "ImportError", "ModuleNotFoundError", "Exception",
                                         "BaseException" };
    size_t k, j = i + 1;
    if (j < f->ntok && py_tok_is(f, &f->toks[j], PY_T_OP, ":"))
        return 1;  /* a bare except */
    for (; j < f->ntok && f->toks[j].type != PY_T_NEWLINE && f->toks[j].type != PY_T_EOF; j++) {
        if (py_tok_is(f, &f->toks[j], PY_T_NAME, "as"))
            break;
        for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
            if (py_tok_is(f, &f->toks[j], PY_T_NAME, names[k]))
                return 1;
    }
    return 0;
}

/* A logical line at token t ends the try statements it is not indented under; at a try's
 * own indentation, an `except` that catches ImportError marks the body's imports guarded
 * (`else`, `finally` and other clauses keep the try open). */
static int track_try(walk *w, size_t i)
{
    py_finder *f = w->f;
    const py_token *t = &f->toks[i];
    size_t k;
    while (w->tries.len) {
        try_block *tb = &OM_VEC_AT(&w->tries, try_block, w->tries.len - 1);
        int clause = py_tok_is(f, t, PY_T_NAME, "except") || py_tok_is(f, t, PY_T_NAME, "else") ||
                     py_tok_is(f, t, PY_T_NAME, "finally");
        if (tb->col < t->col)
            break;
        if (tb->col == t->col && clause) {
            if (tb->body_end == SIZE_MAX)
                tb->body_end = f->sites->len;
            if (py_tok_is(f, t, PY_T_NAME, "except") && catches_import(f, i))
                for (k = tb->first; k < tb->body_end; k++) {
                    py_site *s = &OM_VEC_AT(f->sites, py_site, k);
                    s->guarded |= s->kind == PY_SITE_IMPORT;
                }
            break;
        }
        w->tries.len--;
    }
    if (py_tok_is(f, t, PY_T_NAME, "try")) {
        try_block *tb = om_vec_push(&w->tries, f->arena->mem);
        if (!tb)
            return om_fail_mem(f->err, f->arena->mem, f->file);
        tb->col = t->col;
        tb->first = f->sites->len;
        tb->body_end = SIZE_MAX;
    }
    return OPMAP_OK;
}

/* A logical line's start at token t: the loops it is indented under, and whether it opens
 * one (`for`, `async for`, `while`). */
static void start_of_line(walk *w, size_t i)
{
    py_finder *f = w->f;
    const py_token *t = &f->toks[i];
    while (w->loops.len && OM_VEC_AT(&w->loops, uint32_t, w->loops.len - 1) >= t->col)
        w->loops.len--;
    f->in_loop = w->loops.len > 0;
    w->at_stmt = 0;
    w->header = py_tok_is(f, t, PY_T_NAME, "for") || py_tok_is(f, t, PY_T_NAME, "while") ||
                (py_tok_is(f, t, PY_T_NAME, "async") && i + 1 < f->ntok &&
                 py_tok_is(f, &f->toks[i + 1], PY_T_NAME, "for"));
    w->header_col = t->col;
    if (py_tok_is(f, t, PY_T_NAME, "while"))
        f->in_loop = 1; /* a while condition runs every iteration; a for's iterable once */
}

/* One token (or a chain or import from it); *pi moves past what was read. */
static int step(walk *w, size_t *pi)
{
    py_finder *f = w->f;
    size_t i = *pi;
    const py_token *t = &f->toks[i];
    frame *tp = top(w);
    int rc = OPMAP_OK, k;
    if (w->at_stmt && t->type != PY_T_NEWLINE && !f->fdepth) {
        start_of_line(w, i);
        if ((rc = track_try(w, i)))
            return rc;
    }
    if (w->header && !w->n && t->type == PY_T_OP && !strcmp(t->op, ":"))
        f->in_loop = 1; /* `for x in y: body` on one line */
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
            rc = end_of_line(w);
        *pi = i + 1;
    }
    if ((tp = top(w)) && t->type != PY_T_OP)
        tp->arg_start = 0;
    return rc;
}

/* Per token: inside the brackets of a comprehension or generator expression (a `for` at
 * that bracket's own level). Brackets nest at most PY_MAX_BRACKETS (the lexer's bound). */
static uint8_t *comprehensions(py_finder *f)
{
    size_t *open = om_calloc(f->arena->mem, PY_MAX_BRACKETS + 1, sizeof(size_t));
    uint8_t *has_for = om_calloc(f->arena->mem, PY_MAX_BRACKETS + 1, 1);
    uint8_t *in = om_calloc(f->arena->mem, f->ntok ? f->ntok : 1, 1);
    size_t i, depth = 0;
    if (open && has_for && in)
        for (i = 0; i < f->ntok; i++) {
            const py_token *t = &f->toks[i];
            if (t->type == PY_T_OP && strchr("([{", t->op[0]) && !t->op[1]) {
                if (depth <= PY_MAX_BRACKETS) {
                    open[depth] = i;
                    has_for[depth] = 0;
                }
                depth++;
            } else if (t->type == PY_T_OP && strchr(")]}", t->op[0]) && !t->op[1] && depth) {
                depth--;
                if (depth <= PY_MAX_BRACKETS && has_for[depth])
                    memset(in + open[depth], 1, i - open[depth] + 1);
            } else if (depth && depth <= PY_MAX_BRACKETS + 1 &&
                       py_tok_is(f, t, PY_T_NAME, "for")) {
                has_for[depth - 1] = 1;
            }
        }
    if (open)
        om_dealloc(f->arena->mem, open, (PY_MAX_BRACKETS + 1) * sizeof(size_t));
    if (has_for)
        om_dealloc(f->arena->mem, has_for, PY_MAX_BRACKETS + 1);
    if (!open || !has_for) {
        if (in)
            om_dealloc(f->arena->mem, in, f->ntok ? f->ntok : 1);
        return NULL;
    }
    return in;
}

int py_find_sites(py_finder *f)
{
    walk w;
    size_t i = 0;
    int rc = OPMAP_OK;
    uint8_t *comp = NULL;
    memset(&w, 0, sizeof(w));
    w.f = f;
    w.call_at = SIZE_MAX;
    w.at_stmt = 1;
    om_vec_init(&w.loops, sizeof(uint32_t));
    om_vec_init(&w.tries, sizeof(try_block));
    if (!f->fdepth) {
        if (!(comp = comprehensions(f)))
            return om_fail_mem(f->err, f->arena->mem, f->file);
        f->in_comp = comp;
        f->in_loop = 0;
    }
    while (i < f->ntok && f->toks[i].type != PY_T_EOF && rc == OPMAP_OK)
        rc = step(&w, &i);
    if (w.fr)
        om_dealloc(f->arena->mem, w.fr, w.cap * sizeof(*w.fr));
    om_vec_free(&w.loops, f->arena->mem);
    om_vec_free(&w.tries, f->arena->mem);
    if (comp) {
        om_dealloc(f->arena->mem, comp, f->ntok ? f->ntok : 1);
        f->in_comp = NULL;
    }
    return rc;
}
