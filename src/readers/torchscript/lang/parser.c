/*
 * readers/torchscript/lang/parser.c - parser for TorchScript code entries (see lang/syntax.h).
 *
 * Recursive descent over the logical lines of tsl_lex. Expression nesting is bounded by the
 * lexer's bracket limit plus a depth counter here (unary minus chains), block nesting by
 * max_depth. Syntax outside what the printer emits (binary operators, lambdas, ...) is an
 * error naming the entry, line and column.
 */
#include "syntax.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lexer.h"

typedef struct tsl_parser {
    ts_ctx *c;
    tsl_program *prog;
    tsl_file *file;
    const char *entry;
    tsl_token *t;
    size_t n, i;
    uint32_t depth;
} tsl_parser;

/* ---- program registry ---- */

void tsl_program_init(tsl_program *p)
{
    memset(p, 0, sizeof(*p));
    om_vec_init(&p->classes, sizeof(tsl_class *));
    om_vec_init(&p->funcs, sizeof(tsl_func *));
    om_vec_init(&p->files, sizeof(tsl_file *));
    om_vec_init(&p->held, sizeof(tsl_held));
}

int tsl_class_is_interface(const tsl_class *k)
{
    return k && (strcmp(k->base, "ModuleInterface") == 0 || strcmp(k->base, "Interface") == 0);
}

void tsl_program_free(ts_ctx *c, tsl_program *p)
{
    om_vec_free(&p->classes, c->mem);
    om_vec_free(&p->funcs, c->mem);
    om_vec_free(&p->files, c->mem);
    om_vec_free(&p->held, c->mem);
    if (p->keys) {
        om_dealloc(c->mem, p->keys, p->cap * sizeof(*p->keys));
        om_dealloc(c->mem, p->vals, p->cap * sizeof(*p->vals));
        om_dealloc(c->mem, p->kinds, p->cap);
    }
    memset(p, 0, sizeof(*p));
}

static size_t hptr(const void *p, size_t cap)
{
    uintptr_t v = (uintptr_t)p;
    v ^= v >> 17;
    v *= 0x9E3779B97F4A7C15ull;
    return (size_t)(v >> 7) & (cap - 1);
}

int tsl_program_find(const tsl_program *p, const char *qual, void **out)
{
    size_t j;
    if (!p->cap || !qual)
        return 0;
    for (j = hptr(qual, p->cap); p->keys[j]; j = (j + 1) & (p->cap - 1))
        if (p->keys[j] == qual) {
            *out = p->vals[j];
            return p->kinds[j];
        }
    return 0;
}

static int prog_grow(ts_ctx *c, tsl_program *p)
{
    size_t ncap = p->cap ? p->cap * 2 : 64, i;
    const char **nk = om_calloc(c->mem, ncap, sizeof(*nk));
    void **nv = om_calloc(c->mem, ncap, sizeof(*nv));
    uint8_t *nt = om_calloc(c->mem, ncap, 1);
    if (!nk || !nv || !nt) {
        if (nk)
            om_dealloc(c->mem, nk, ncap * sizeof(*nk));
        if (nv)
            om_dealloc(c->mem, nv, ncap * sizeof(*nv));
        if (nt)
            om_dealloc(c->mem, nt, ncap);
        return 0;
    }
    for (i = 0; i < p->cap; i++) {
        size_t j;
        if (!p->keys[i])
            continue;
        for (j = hptr(p->keys[i], ncap); nk[j]; j = (j + 1) & (ncap - 1))
            ;
        nk[j] = p->keys[i];
        nv[j] = p->vals[i];
        nt[j] = p->kinds[i];
    }
    if (p->keys) {
        om_dealloc(c->mem, p->keys, p->cap * sizeof(*p->keys));
        om_dealloc(c->mem, p->vals, p->cap * sizeof(*p->vals));
        om_dealloc(c->mem, p->kinds, p->cap);
    }
    p->keys = nk;
    p->vals = nv;
    p->kinds = nt;
    p->cap = ncap;
    return 1;
}

/* 1 added, 0 already defined, -1 out of memory */
static int prog_add(ts_ctx *c, tsl_program *p, const char *qual, void *val, int kind)
{
    size_t j;
    if ((p->len + 1) * 2 > p->cap && !prog_grow(c, p))
        return -1;
    for (j = hptr(qual, p->cap); p->keys[j]; j = (j + 1) & (p->cap - 1))
        if (p->keys[j] == qual)
            return 0;
    p->keys[j] = qual;
    p->vals[j] = val;
    p->kinds[j] = (uint8_t)kind;
    p->len++;
    return 1;
}

/* ---- token helpers ---- */

static tsl_token *cur(tsl_parser *p)
{
    return &p->t[p->i];
}

static int is_op(const tsl_token *t, const char *op)
{
    return t->t == TK_OP && strcmp(t->op, op) == 0;
}

static int is_kw(const tsl_token *t, const char *kw)
{
    return t->t == TK_NAME && strcmp(t->s, kw) == 0;
}

static int perr(tsl_parser *p, const tsl_token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(tsl_parser *p, const tsl_token *t, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ts_fail(p->c, OPMAP_EFORMAT, p->entry, t->line, t->col, "%s", msg);
}

static const char *tok_desc(const tsl_token *t)
{
    switch (t->t) {
    case TK_EOF: return "end of entry";
    case TK_NEWLINE: return "end of line";
    case TK_NAME: return t->s;
    case TK_INT: return "a number";
    case TK_FLOAT: return "a number";
    case TK_STR: return "a string";
    default: return t->op;
    }
}

static int expect_op(tsl_parser *p, const char *op)
{
    if (!is_op(cur(p), op))
        return perr(p, cur(p), "expected '%s', found '%s'", op, tok_desc(cur(p)));
    p->i++;
    return OPMAP_OK;
}

static int expect_eol(tsl_parser *p)
{
    if (cur(p)->t != TK_NEWLINE)
        return perr(p, cur(p), "unexpected '%s' (unsupported syntax?)", tok_desc(cur(p)));
    p->i++;
    return OPMAP_OK;
}

static tsl_expr *new_expr(tsl_parser *p, int k, const tsl_token *at)
{
    tsl_expr *e = om_arena_alloc(&p->c->tmp, sizeof(*e));
    if (e) {
        e->k = (uint8_t)k;
        e->line = at->line;
        e->col = at->col;
        e->off = at->off;
    }
    return e;
}

/* Copies a vector of pointers into the scratch arena. */
static void **freeze(tsl_parser *p, om_vec *v)
{
    void **a;
    if (!v->len)
        return NULL;
    a = om_arena_array(&p->c->tmp, v->len, sizeof(void *));
    if (a)
        memcpy(a, v->data, v->len * sizeof(void *));
    return a;
}

static int push_ptr(tsl_parser *p, om_vec *v, void *x)
{
    void **slot = om_vec_push(v, p->c->mem);
    if (!slot)
        return ts_oom(p->c);
    *slot = x;
    return OPMAP_OK;
}

/* ---- expressions ---- */

static int parse_expr(tsl_parser *p, tsl_expr **out);

/* Comma-separated expressions up to `close` (not consumed); *trailing: ends with ','. */
static int parse_list(tsl_parser *p, const char *close, om_vec *items, int *trailing,
                      om_vec *kwnames)
{
    int rc;
    *trailing = 0;
    while (!is_op(cur(p), close) && cur(p)->t != TK_NEWLINE && cur(p)->t != TK_EOF &&
           !is_op(cur(p), "=")) {
        tsl_expr *e;
        if (kwnames && cur(p)->t == TK_NAME && is_op(&p->t[p->i + 1], "=")) {
            const char **slot = om_vec_push(kwnames, p->c->mem);
            if (!slot)
                return ts_oom(p->c);
            *slot = cur(p)->s;
            p->i += 2;
        } else if (kwnames && kwnames->len) {
            return perr(p, cur(p), "positional argument after keyword argument");
        }
        if ((rc = parse_expr(p, &e)) || (rc = push_ptr(p, items, e)))
            return rc;
        *trailing = 0;
        if (!is_op(cur(p), ","))
            break;
        p->i++;
        *trailing = 1;
    }
    return OPMAP_OK;
}

static int parse_atom(tsl_parser *p, tsl_expr **out)
{
    tsl_token *t = cur(p);
    tsl_expr *e = NULL;
    int rc;
    switch (t->t) {
    case TK_NAME:
        if (strcmp(t->s, "None") == 0)
            e = new_expr(p, EX_NONE, t);
        else if (strcmp(t->s, "True") == 0)
            e = new_expr(p, EX_TRUE, t);
        else if (strcmp(t->s, "False") == 0)
            e = new_expr(p, EX_FALSE, t);
        else if (!strcmp(t->s, "lambda") || !strcmp(t->s, "not") || !strcmp(t->s, "yield") ||
                 !strcmp(t->s, "await"))
            return perr(p, t, "unsupported syntax '%s' in TorchScript code", t->s);
        else if ((e = new_expr(p, EX_NAME, t)))
            e->s = t->s;
        p->i++;
        break;
    case TK_INT:
        if ((e = new_expr(p, EX_INT, t)))
            e->i = t->i;
        p->i++;
        break;
    case TK_FLOAT:
        if ((e = new_expr(p, EX_FLOAT, t)))
            e->f = t->f;
        p->i++;
        break;
    case TK_STR: {
        /* adjacent literals concatenate */
        size_t total = 0, k = p->i;
        char *s;
        while (p->t[k].t == TK_STR)
            total += p->t[k++].n;
        if (total > p->c->lim->max_string_bytes)
            return ts_fail(p->c, OPMAP_ELIMIT, p->entry, t->line, t->col,
                           "string over max_string_bytes");
        if (!(e = new_expr(p, EX_STR, t)))
            return ts_oom(p->c);
        if (k == p->i + 1) {
            e->s = t->s;
            e->slen = t->n;
        } else {
            if (!(s = om_arena_alloc(&p->c->tmp, total + 1)))
                return ts_oom(p->c);
            total = 0;
            for (; p->i < k; p->i++) {
                memcpy(s + total, p->t[p->i].s, p->t[p->i].n);
                total += p->t[p->i].n;
            }
            e->s = s;
            e->slen = (uint32_t)total;
            p->i--;
        }
        p->i++;
        break;
    }
    case TK_OP:
        if (is_op(t, "(") || is_op(t, "[") || is_op(t, "{")) {
            const char *close = is_op(t, "(") ? ")" : is_op(t, "[") ? "]" : "}";
            om_vec items;
            int trailing;
            om_vec_init(&items, sizeof(tsl_expr *));
            p->i++;
            if (close[0] == '}') {
                /* dict: k: v pairs */
                while (!is_op(cur(p), "}")) {
                    tsl_expr *k, *v;
                    if ((rc = parse_expr(p, &k)) || (rc = expect_op(p, ":")) ||
                        (rc = parse_expr(p, &v)) || (rc = push_ptr(p, &items, k)) ||
                        (rc = push_ptr(p, &items, v))) {
                        om_vec_free(&items, p->c->mem);
                        return rc;
                    }
                    if (!is_op(cur(p), ","))
                        break;
                    p->i++;
                }
                trailing = 0;
            } else if ((rc = parse_list(p, close, &items, &trailing, NULL))) {
                om_vec_free(&items, p->c->mem);
                return rc;
            }
            if ((rc = expect_op(p, close))) {
                om_vec_free(&items, p->c->mem);
                return rc;
            }
            if (close[0] == ')' && items.len == 1 && !trailing) {
                e = *(tsl_expr **)items.data;
                e->paren = 1;
            } else {
                e = new_expr(p, close[0] == ')' ? EX_TUPLE : close[0] == ']' ? EX_LIST
                                                                                : EX_DICT, t);
                if (e) {
                    e->n = (uint32_t)items.len;
                    e->a = (tsl_expr **)freeze(p, &items);
                    if (items.len && !e->a)
                        e = NULL;
                }
            }
            om_vec_free(&items, p->c->mem);
            break;
        }
        return perr(p, t, "unexpected '%s' (unsupported syntax?)", tok_desc(t));
    default:
        return perr(p, t, "unexpected %s", tok_desc(t));
    }
    if (!e)
        return ts_oom(p->c);
    *out = e;
    return OPMAP_OK;
}

/*
 * Postfix chains (a.b.c, x[0][1], f(a)(b)) are parsed in a loop, but every later stage walks
 * the chain recursively (an attribute's base, a call's callee), so its length is what bounds
 * their depth: at most 2 x max_depth + 8 links (136 by default; printed code uses a few).
 */
static int parse_postfix(tsl_parser *p, tsl_expr **out)
{
    tsl_expr *e = NULL;
    uint32_t links = 0;
    int rc;
    if ((rc = parse_atom(p, &e)))
        return rc;
    for (;;) {
        tsl_token *t = cur(p);
        if ((is_op(t, ".") || is_op(t, "(") || is_op(t, "[")) &&
            ++links > 2 * p->c->lim->max_depth + 8)
            return ts_fail(p->c, OPMAP_ELIMIT, p->entry, t->line, t->col,
                           "a chain of more than %" PRIu32 " attributes, calls or subscripts "
                           "(2 x max_depth + 8, max_depth %" PRIu32 ")",
                           2 * p->c->lim->max_depth + 8, p->c->lim->max_depth);
        if (is_op(t, ".")) {
            tsl_expr *a;
            if (p->t[p->i + 1].t != TK_NAME)
                return perr(p, &p->t[p->i + 1], "expected a name after '.'");
            if (!(a = new_expr(p, EX_ATTR, t)))
                return ts_oom(p->c);
            a->line = e->line;
            a->col = e->col;
            a->off = e->off;
            a->base = e;
            a->s = p->t[p->i + 1].s;
            p->i += 2;
            e = a;
        } else if (is_op(t, "(")) {
            om_vec args, kws;
            int trailing;
            tsl_expr *call;
            om_vec_init(&args, sizeof(tsl_expr *));
            om_vec_init(&kws, sizeof(const char *));
            p->i++;
            rc = parse_list(p, ")", &args, &trailing, &kws);
            if (!rc)
                rc = expect_op(p, ")");
            if (!rc && kws.len > 0xFFFF)
                rc = perr(p, t, "too many keyword arguments");
            if (!rc && !(call = new_expr(p, EX_CALL, t)))
                rc = ts_oom(p->c);
            if (!rc) {
                call->line = e->line;
                call->col = e->col;
                call->off = e->off;
                call->base = e;
                call->n = (uint32_t)args.len;
                call->n_kw = (uint16_t)kws.len;
                call->a = (tsl_expr **)freeze(p, &args);
                if (kws.len && (call->kw = om_arena_array(&p->c->tmp, kws.len, sizeof(char *))))
                    memcpy(call->kw, kws.data, kws.len * sizeof(char *));
                if ((args.len && !call->a) || (kws.len && !call->kw))
                    rc = ts_oom(p->c);
            }
            om_vec_free(&args, p->c->mem);
            om_vec_free(&kws, p->c->mem);
            if (rc)
                return rc;
            e = call;
        } else if (is_op(t, "[")) {
            om_vec items;
            int trailing;
            tsl_expr *sub, *ix;
            om_vec_init(&items, sizeof(tsl_expr *));
            p->i++;
            rc = parse_list(p, "]", &items, &trailing, NULL);
            if (!rc)
                rc = expect_op(p, "]");
            if (!rc && !items.len)
                rc = perr(p, t, "empty subscript");
            if (rc) {
                om_vec_free(&items, p->c->mem);
                return rc;
            }
            if (items.len == 1 && !trailing) {
                ix = *(tsl_expr **)items.data;
            } else if ((ix = new_expr(p, EX_TUPLE, t))) {
                ix->n = (uint32_t)items.len;
                if (!(ix->a = (tsl_expr **)freeze(p, &items)))
                    ix = NULL;
            }
            om_vec_free(&items, p->c->mem);
            if (!ix || !(sub = new_expr(p, EX_SUB, t)) ||
                !(sub->a = om_arena_alloc(&p->c->tmp, sizeof(tsl_expr *))))
                return ts_oom(p->c);
            sub->line = e->line;
            sub->col = e->col;
            sub->off = e->off;
            sub->base = e;
            sub->a[0] = ix;
            sub->n = 1;
            e = sub;
        } else {
            break;
        }
    }
    *out = e;
    return OPMAP_OK;
}

static int parse_expr(tsl_parser *p, tsl_expr **out)
{
    tsl_token *t = cur(p);
    int rc;
    if (++p->depth > p->c->lim->max_depth + 8) {
        p->depth--;
        return ts_fail(p->c, OPMAP_ELIMIT, p->entry, t->line, t->col,
                       "expression nested deeper than max_depth (%" PRIu32 ")",
                       p->c->lim->max_depth);
    }
    if (is_op(t, "-")) {
        tsl_expr *e, *x;
        p->i++;
        rc = parse_expr(p, &x);
        if (!rc && !(e = new_expr(p, EX_NEG, t)))
            rc = ts_oom(p->c);
        if (!rc) {
            e->base = x;
            *out = e;
        }
    } else {
        rc = parse_postfix(p, out);
        if (!rc) {
            tsl_token *n = cur(p);
            if (n->t == TK_OP && !is_op(n, ",") && !is_op(n, ")") && !is_op(n, "]") &&
                !is_op(n, "}") && !is_op(n, ":") && !is_op(n, "=") && !is_op(n, "->"))
                rc = perr(p, n, "operator '%s' is not TorchScript's printed form", n->op);
            else if (n->t == TK_NAME && strcmp(n->s, "in") != 0 && strcmp(n->s, "as") != 0)
                rc = perr(p, n, "unexpected '%s' (unsupported syntax?)", n->s);
        }
    }
    p->depth--;
    return rc;
}

/* ---- statements ---- */

static int parse_block(tsl_parser *p, uint32_t parent_indent, tsl_stmt ***out, uint32_t *n_out);
static int parse_def(tsl_parser *p, uint32_t indent, tsl_class *cls, tsl_func *f);

static tsl_stmt *new_stmt(tsl_parser *p, int k, const tsl_token *at)
{
    tsl_stmt *s = om_arena_alloc(&p->c->tmp, sizeof(*s));
    if (s) {
        s->k = (uint8_t)k;
        s->line = at->line;
        s->col = at->col;
        s->off = at->off;
    }
    return s;
}

static int parse_stmt(tsl_parser *p, uint32_t indent, tsl_stmt **out);

/* return [value[, value ...]] */
static int parse_return(tsl_parser *p, tsl_token *t, tsl_stmt **out)
{
    tsl_stmt *s;
    int rc;
    p->i++;
    if (!(s = new_stmt(p, ST_RETURN, t)))
        return ts_oom(p->c);
    if (cur(p)->t != TK_NEWLINE) {
        om_vec items;
        int trailing;
        om_vec_init(&items, sizeof(tsl_expr *));
        rc = parse_list(p, "\n", &items, &trailing, NULL);
        if (!rc && !items.len) /* "return= x": nothing parsed before the '=' */
            rc = perr(p, cur(p), "unexpected '%s' after 'return'", tok_desc(cur(p)));
        if (!rc && items.len == 1 && !trailing) {
            s->e = *(tsl_expr **)items.data;
        } else if (!rc) {
            if (!(s->e = new_expr(p, EX_TUPLE, t)) ||
                !(s->e->a = (tsl_expr **)freeze(p, &items)))
                rc = ts_oom(p->c);
            else
                s->e->n = (uint32_t)items.len;
        }
        om_vec_free(&items, p->c->mem);
        if (rc)
            return rc;
    }
    *out = s;
    return expect_eol(p);
}

/* if / elif / else and while; an elif chain is an if in the else branch. */
static int parse_if_while(tsl_parser *p, uint32_t indent, tsl_token *t, tsl_stmt **out)
{
    tsl_stmt *s;
    int rc;
    int is_while = is_kw(t, "while");
    p->i++;
    if (!(s = new_stmt(p, is_while ? ST_WHILE : ST_IF, t)))
        return ts_oom(p->c);
    if ((rc = parse_expr(p, &s->e)) || (rc = expect_op(p, ":")) || (rc = expect_eol(p)) ||
        (rc = parse_block(p, indent, &s->body, &s->n_body)))
        return rc;
    if (!is_while && cur(p)->bol && cur(p)->indent == indent) {
        if (is_kw(cur(p), "else")) {
            p->i++;
            if ((rc = expect_op(p, ":")) || (rc = expect_eol(p)) ||
                (rc = parse_block(p, indent, &s->orelse, &s->n_else)))
                return rc;
        } else if (is_kw(cur(p), "elif")) {
            tsl_stmt *inner;
            if ((rc = parse_stmt(p, indent, &inner)))
                return rc;
            if (!(s->orelse = om_arena_alloc(&p->c->tmp, sizeof(tsl_stmt *))))
                return ts_oom(p->c);
            s->orelse[0] = inner;
            s->n_else = 1;
        }
    }
    *out = s;
    return OPMAP_OK;
}

/* An assignment (annotated or not) or an expression statement. */
static int parse_assign_or_expr(tsl_parser *p, tsl_token *t, tsl_stmt **out)
{
    tsl_stmt *s;
    int rc;
    om_vec items;
    int trailing;
    om_vec_init(&items, sizeof(tsl_expr *));
    rc = parse_list(p, "\n", &items, &trailing, NULL);
    if (!rc && !items.len)
        rc = perr(p, cur(p), "unexpected '%s'", tok_desc(cur(p)));
    if (rc) {
        om_vec_free(&items, p->c->mem);
        return rc;
    }
    if (is_op(cur(p), ":") && items.len == 1 && !trailing) {
        /* name : Type = value */
        tsl_expr *ann;
        p->i++;
        if ((rc = parse_expr(p, &ann))) {
            om_vec_free(&items, p->c->mem);
            return rc;
        }
        if (!is_op(cur(p), "=")) {
            om_vec_free(&items, p->c->mem);
            return perr(p, cur(p), "expected '=' after an annotation");
        }
        if (!(s = new_stmt(p, ST_ASSIGN, t))) {
            om_vec_free(&items, p->c->mem);
            return ts_oom(p->c);
        }
        s->ann = ann;
        s->n_t = 1;
        s->t = (tsl_expr **)freeze(p, &items);
        om_vec_free(&items, p->c->mem);
        if (!s->t)
            return ts_oom(p->c);
        p->i++;
        if ((rc = parse_expr(p, &s->e)))
            return rc;
        *out = s;
        return expect_eol(p);
    }
    if (is_op(cur(p), "=")) {
        if (!(s = new_stmt(p, ST_ASSIGN, t))) {
            om_vec_free(&items, p->c->mem);
            return ts_oom(p->c);
        }
        s->trailing = (uint8_t)trailing;
        s->n_t = (uint32_t)items.len;
        s->t = (tsl_expr **)freeze(p, &items);
        om_vec_free(&items, p->c->mem);
        if (!s->t)
            return ts_oom(p->c);
        p->i++;
        om_vec_init(&items, sizeof(tsl_expr *));
        rc = parse_list(p, "\n", &items, &trailing, NULL);
        if (!rc && !items.len)
            rc = perr(p, cur(p), "missing value after '='");
        if (!rc && is_op(cur(p), "="))
            rc = perr(p, cur(p), "chained assignment is not TorchScript's printed form");
        if (!rc) {
            if (items.len == 1 && !trailing) {
                s->e = *(tsl_expr **)items.data;
            } else if (!(s->e = new_expr(p, EX_TUPLE, t)) ||
                       !(s->e->a = (tsl_expr **)freeze(p, &items))) {
                rc = ts_oom(p->c);
            } else {
                s->e->n = (uint32_t)items.len;
            }
        }
        om_vec_free(&items, p->c->mem);
        if (rc)
            return rc;
    } else {
        if (items.len != 1 || trailing) {
            om_vec_free(&items, p->c->mem);
            return perr(p, t, "a tuple on its own is not a statement");
        }
        if (!(s = new_stmt(p, ST_EXPR, t))) {
            om_vec_free(&items, p->c->mem);
            return ts_oom(p->c);
        }
        s->e = *(tsl_expr **)items.data;
        om_vec_free(&items, p->c->mem);
    }
    *out = s;
    return expect_eol(p);
}

static int parse_stmt(tsl_parser *p, uint32_t indent, tsl_stmt **out)
{
    tsl_token *t = cur(p);
    tsl_stmt *s;
    int rc;
    if (is_kw(t, "pass")) {
        p->i++;
        if (!(s = new_stmt(p, ST_PASS, t)))
            return ts_oom(p->c);
        *out = s;
        return expect_eol(p);
    }
    if (is_kw(t, "return"))
        return parse_return(p, t, out);
    if (is_kw(t, "if") || is_kw(t, "elif") || is_kw(t, "while"))
        return parse_if_while(p, indent, t, out);
    if (is_kw(t, "for")) {
        p->i++;
        if (!(s = new_stmt(p, ST_FOR, t)))
            return ts_oom(p->c);
        if (cur(p)->t != TK_NAME || !is_kw(&p->t[p->i + 1], "in"))
            return perr(p, cur(p), "expected 'for NAME in ...'");
        s->var = cur(p)->s;
        p->i += 2;
        if ((rc = parse_expr(p, &s->e)) || (rc = expect_op(p, ":")) || (rc = expect_eol(p)) ||
            (rc = parse_block(p, indent, &s->body, &s->n_body)))
            return rc;
        *out = s;
        return OPMAP_OK;
    }
    if (is_kw(t, "with")) {
        /* with obj: (prim::Enter / prim::Exit around the body) */
        p->i++;
        if (!(s = new_stmt(p, ST_WITH, t)))
            return ts_oom(p->c);
        if ((rc = parse_expr(p, &s->e)))
            return rc;
        if (is_kw(cur(p), "as"))
            return perr(p, cur(p), "'with ... as' is not TorchScript's printed form");
        if ((rc = expect_op(p, ":")) || (rc = expect_eol(p)) ||
            (rc = parse_block(p, indent, &s->body, &s->n_body)))
            return rc;
        *out = s;
        return OPMAP_OK;
    }
    if (is_kw(t, "else"))
        return perr(p, t, "'else' without 'if'");
    if (is_kw(t, "def")) {
        /* a closure the printer emits for torch.jit.fork: `def __forked_function():` */
        if (!(s = new_stmt(p, ST_DEF, t)) || !(s->def = om_arena_alloc(&p->c->tmp,
                                                                       sizeof(tsl_func))))
            return ts_oom(p->c);
        if ((rc = parse_def(p, indent, NULL, s->def)))
            return rc;
        s->var = s->def->name;
        *out = s;
        return OPMAP_OK;
    }
    if (is_kw(t, "class") || is_kw(t, "raise") ||
        is_kw(t, "try") || is_kw(t, "import") || is_kw(t, "from") || is_kw(t, "del") ||
        is_kw(t, "global") || is_kw(t, "assert") || is_kw(t, "break") || is_kw(t, "continue"))
        return perr(p, t, "'%s' statement is not TorchScript's printed form", t->s);
    /* assignment or expression statement */
    return parse_assign_or_expr(p, t, out);
}

static int parse_block(tsl_parser *p, uint32_t parent_indent, tsl_stmt ***out, uint32_t *n_out)
{
    tsl_token *t = cur(p);
    uint32_t indent;
    om_vec stmts;
    int rc = OPMAP_OK;
    if (!t->bol || t->indent <= parent_indent || t->t == TK_EOF)
        return perr(p, t, "expected an indented block");
    if (++p->depth > p->c->lim->max_depth) {
        p->depth--;
        return ts_fail(p->c, OPMAP_ELIMIT, p->entry, t->line, t->col,
                       "code blocks nested deeper than max_depth (%" PRIu32 ")",
                       p->c->lim->max_depth);
    }
    indent = t->indent;
    om_vec_init(&stmts, sizeof(tsl_stmt *));
    while (rc == OPMAP_OK && cur(p)->t != TK_EOF && cur(p)->bol) {
        tsl_stmt *s;
        if (cur(p)->indent < indent)
            break;
        if (cur(p)->indent > indent) {
            rc = perr(p, cur(p), "unexpected indentation");
            break;
        }
        if ((rc = parse_stmt(p, indent, &s)) == OPMAP_OK)
            rc = push_ptr(p, &stmts, s);
    }
    if (rc == OPMAP_OK && cur(p)->t != TK_EOF && !cur(p)->bol)
        rc = perr(p, cur(p), "unexpected '%s'", tok_desc(cur(p)));
    if (rc == OPMAP_OK) {
        *n_out = (uint32_t)stmts.len;
        *out = (tsl_stmt **)freeze(p, &stmts);
        if (stmts.len && !*out)
            rc = ts_oom(p->c);
    }
    om_vec_free(&stmts, p->c->mem);
    p->depth--;
    return rc;
}

/* ---- definitions ---- */

static const char *join(tsl_parser *p, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = om_arena_alloc(&p->c->tmp, la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = '.';
    memcpy(s + la + 1, b, lb);
    return ts_intern_scratch(p->c, s, la + lb + 1);
}

static int parse_def(tsl_parser *p, uint32_t indent, tsl_class *cls, tsl_func *f)
{
    tsl_token *t = cur(p);
    om_vec params;
    int rc = OPMAP_OK;
    p->i++; /* def */
    if (cur(p)->t != TK_NAME)
        return perr(p, cur(p), "expected a function name");
    f->name = cur(p)->s;
    f->line = t->line;
    f->cls = cls;
    f->file = p->file;
    if (!(f->qual = join(p, cls ? cls->qual : p->file->module, f->name)))
        return ts_oom(p->c);
    p->i++;
    if ((rc = expect_op(p, "(")))
        return rc;
    om_vec_init(&params, sizeof(tsl_param));
    while (rc == OPMAP_OK && !is_op(cur(p), ")")) {
        tsl_param *pa;
        if (cur(p)->t != TK_NAME) {
            rc = perr(p, cur(p), "expected a parameter name, found '%s'", tok_desc(cur(p)));
            break;
        }
        if (!(pa = om_vec_push(&params, p->c->mem))) {
            rc = ts_oom(p->c);
            break;
        }
        pa->name = cur(p)->s;
        p->i++;
        if (is_op(cur(p), ":")) {
            p->i++;
            if ((rc = parse_expr(p, &pa->type)))
                break;
        }
        if (is_op(cur(p), "=")) {
            p->i++;
            if ((rc = parse_expr(p, &pa->dflt)))
                break;
        }
        if (!is_op(cur(p), ","))
            break;
        p->i++;
    }
    if (rc == OPMAP_OK && !(rc = expect_op(p, ")"))) {
        if (is_op(cur(p), "->")) {
            p->i++;
            rc = parse_expr(p, &f->ret);
        }
        if (!rc && !(rc = expect_op(p, ":")) && !(rc = expect_eol(p)))
            rc = parse_block(p, indent, &f->body, &f->n_body);
    }
    if (rc == OPMAP_OK && params.len) {
        if (params.len > UINT32_MAX || !(f->params = om_arena_array(&p->c->tmp, params.len,
                                                                    sizeof(tsl_param))))
            rc = ts_oom(p->c);
        else
            memcpy(f->params, params.data, params.len * sizeof(tsl_param));
        f->n_params = (uint32_t)params.len;
    }
    om_vec_free(&params, p->c->mem);
    return rc;
}

static int parse_class(tsl_parser *p, tsl_class **out)
{
    tsl_token *t = cur(p);
    tsl_class *k = om_arena_alloc(&p->c->tmp, sizeof(*k));
    om_vec attrs, methods;
    uint32_t indent;
    int rc = OPMAP_OK;
    if (!k)
        return ts_oom(p->c);
    p->i++;
    if (cur(p)->t != TK_NAME)
        return perr(p, cur(p), "expected a class name");
    k->name = cur(p)->s;
    k->line = t->line;
    k->file = p->file;
    k->base = "";
    if (!(k->qual = join(p, p->file->module, k->name)))
        return ts_oom(p->c);
    p->i++;
    if (is_op(cur(p), "(")) {
        p->i++;
        if (cur(p)->t == TK_NAME) {
            k->base = cur(p)->s;
            p->i++;
        }
        if ((rc = expect_op(p, ")")))
            return rc;
    }
    if ((rc = expect_op(p, ":")) || (rc = expect_eol(p)))
        return rc;
    if (!cur(p)->bol || cur(p)->indent == 0 || cur(p)->t == TK_EOF)
        return perr(p, cur(p), "expected the class body");
    indent = cur(p)->indent;
    om_vec_init(&attrs, sizeof(tsl_class_attr));
    om_vec_init(&methods, sizeof(tsl_func));
    while (rc == OPMAP_OK && cur(p)->bol && cur(p)->t != TK_EOF && cur(p)->indent >= indent) {
        tsl_token *l = cur(p);
        if (l->indent > indent) {
            rc = perr(p, l, "unexpected indentation");
        } else if (is_kw(l, "def")) {
            tsl_func *f = om_vec_push(&methods, p->c->mem);
            rc = f ? parse_def(p, indent, k, f) : ts_oom(p->c);
        } else if (is_kw(l, "pass")) {
            p->i++;
            rc = expect_eol(p);
        } else if (is_kw(l, "__annotations__") && is_op(&p->t[p->i + 1], "[")) {
            /* __annotations__["0"] = Type */
            tsl_class_attr *a;
            if (p->t[p->i + 2].t != TK_STR || !is_op(&p->t[p->i + 3], "]") ||
                !is_op(&p->t[p->i + 4], "=")) {
                rc = perr(p, l, "malformed __annotations__ line");
                break;
            }
            if (!(a = om_vec_push(&attrs, p->c->mem))) {
                rc = ts_oom(p->c);
                break;
            }
            if (!(a->name = ts_intern_scratch(p->c, p->t[p->i + 2].s, p->t[p->i + 2].n))) {
                rc = ts_oom(p->c);
                break;
            }
            p->i += 5;
            if (!(rc = parse_expr(p, &a->type)))
                rc = expect_eol(p);
        } else if (l->t == TK_NAME && is_op(&p->t[p->i + 1], ":")) {
            tsl_class_attr *a = om_vec_push(&attrs, p->c->mem);
            if (!a) {
                rc = ts_oom(p->c);
                break;
            }
            a->name = l->s;
            p->i += 2;
            if (!(rc = parse_expr(p, &a->type)) && is_op(cur(p), "=")) {
                p->i++;
                rc = parse_expr(p, &a->value);
            }
            if (!rc)
                rc = expect_eol(p);
        } else if (l->t == TK_NAME && is_op(&p->t[p->i + 1], "=")) {
            /* __parameters__ = [...], __buffers__ = [...]: names only, not needed */
            tsl_expr *ignored;
            p->i += 2;
            if (!(rc = parse_expr(p, &ignored)))
                rc = expect_eol(p);
        } else {
            rc = perr(p, l, "unexpected '%s' in a class body", tok_desc(l));
        }
    }
    if (rc == OPMAP_OK) {
        if (attrs.len && (k->attrs = om_arena_array(&p->c->tmp, attrs.len, sizeof(tsl_class_attr))))
            memcpy(k->attrs, attrs.data, attrs.len * sizeof(tsl_class_attr));
        if (methods.len && (k->methods = om_arena_array(&p->c->tmp, methods.len,
                                                        sizeof(tsl_func))))
            memcpy(k->methods, methods.data, methods.len * sizeof(tsl_func));
        if ((attrs.len && !k->attrs) || (methods.len && !k->methods))
            rc = ts_oom(p->c);
        k->n_attrs = (uint32_t)attrs.len;
        k->n_methods = (uint32_t)methods.len;
    }
    om_vec_free(&attrs, p->c->mem);
    om_vec_free(&methods, p->c->mem);
    *out = k;
    return rc;
}

int tsl_parse_entry(ts_ctx *c, tsl_program *prog, const char *entry, const char *module,
                    const unsigned char *text, size_t len, tsl_file **file)
{
    tsl_parser p;
    om_vec toks;
    int rc;
    tsl_file *f = om_arena_alloc(&c->tmp, sizeof(*f));
    tsl_file **slot;
    if (!f || !(f->entry = om_arena_strdup(&c->tmp, entry)) ||
        !(f->module = ts_intern_scratch(c, module, strlen(module))) ||
        !(slot = om_vec_push(&prog->files, c->mem)))
        return ts_oom(c);
    *slot = f;
    *file = f;
    om_vec_init(&toks, sizeof(tsl_token));
    rc = tsl_lex(c, f->entry, text, len, &toks);
    memset(&p, 0, sizeof(p));
    p.c = c;
    p.prog = prog;
    p.file = f;
    p.entry = f->entry;
    p.t = toks.data;
    p.n = toks.len;
    while (rc == OPMAP_OK && cur(&p)->t != TK_EOF) {
        tsl_token *t = cur(&p);
        if (!t->bol || t->indent != 0) {
            rc = perr(&p, t, "unexpected indentation");
        } else if (is_kw(t, "class")) {
            tsl_class *k = NULL;
            if ((rc = parse_class(&p, &k)) == OPMAP_OK) {
                int added = prog_add(c, prog, k->qual, k, 1);
                tsl_class **cs;
                if (added < 0 || !(cs = om_vec_push(&prog->classes, c->mem)))
                    rc = ts_oom(c);
                else if (added == 0)
                    rc = ts_fail(c, OPMAP_EFORMAT, p.entry, t->line, t->col,
                                 "'%s' is defined twice", k->qual);
                else
                    *cs = k;
            }
        } else if (is_kw(t, "def")) {
            tsl_func *fn = om_arena_alloc(&c->tmp, sizeof(*fn));
            if (!fn) {
                rc = ts_oom(c);
            } else if ((rc = parse_def(&p, 0, NULL, fn)) == OPMAP_OK) {
                int added = prog_add(c, prog, fn->qual, fn, 2);
                tsl_func **fs;
                if (added < 0 || !(fs = om_vec_push(&prog->funcs, c->mem)))
                    rc = ts_oom(c);
                else if (added == 0)
                    rc = ts_fail(c, OPMAP_EFORMAT, p.entry, t->line, t->col,
                                 "'%s' is defined twice", fn->qual);
                else
                    *fs = fn;
            }
        } else {
            rc = perr(&p, t, "expected 'class' or 'def' at the top level, found '%s'",
                      tok_desc(t));
        }
    }
    om_vec_free(&toks, c->mem);
    return rc;
}
