/*
 * readers/python/py_imports.c - import statements: a site per imported name, and the
 * names they bind in the file's alias map.
 *
 *   import a.b          binds a -> "a"        site "a.b"
 *   import a.b as c     binds c -> "a.b"      site "a.b"
 *   from a.b import c   binds c -> "a.b.c"    site "a.b.c"
 *   from ..m import c   binds c -> "..m.c"    site "..m.c", level 2
 *   from a import *     binds nothing         site "a.*", star
 *
 * Not a parser: a statement that stops making sense ends the import there.
 */
#include "core/err.h"
#include "py_finder.h"

static int is_name(const py_finder *f, size_t i)
{
    return i < f->ntok && f->toks[i].type == PY_T_NAME && !py_is_keyword(f, &f->toks[i]);
}

static int is_op(const py_finder *f, size_t i, const char *op)
{
    return i < f->ntok && py_tok_is(f, &f->toks[i], PY_T_OP, op);
}

static int is_word(const py_finder *f, size_t i, const char *w)
{
    return i < f->ntok && py_tok_is(f, &f->toks[i], PY_T_NAME, w);
}

static int add_import(py_finder *f, const py_token *stmt, const py_token *at, const char *full,
                      const char *module, const py_token *bound, const char *bind_to,
                      unsigned level)
{
    py_site *s = py_site_new(f, PY_SITE_IMPORT, at);
    if (!s)
        return f->err->code;
    s->stmt_line = stmt->line;
    s->stmt_col = stmt->col;
    s->name = full;
    s->text = module;
    s->level = (uint8_t)(level > 255 ? 255 : level);
    if (!bound) {
        s->star = 1;
        return OPMAP_OK;
    }
    if (!(s->bound = om_arena_strndup(f->arena, py_tok_text(f, bound), bound->len)))
        return om_fail_mem(f->err, f->arena->mem, f->file);
    return py_alias_bind(f, py_tok_text(f, bound), bound->len, bind_to);
}

/* import a.b [as c], ... */
static int plain_import(py_finder *f, size_t *pi)
{
    size_t i = *pi + 1, last;
    int rc;
    while (is_name(f, i)) {
        const char *mod = py_chain(f, i, &last, NULL), *head;
        const py_token *bound = &f->toks[i];
        if (!mod)
            return f->err->code;
        head = om_arena_strndup(f->arena, py_tok_text(f, bound), bound->len);
        if (!head)
            return om_fail_mem(f->err, f->arena->mem, f->file);
        if (is_word(f, last + 1, "as") && is_name(f, last + 2)) {
            bound = &f->toks[last + 2];
            head = mod;
            last += 2;
        }
        if ((rc = add_import(f, &f->toks[*pi], &f->toks[i], mod, mod, bound, head, 0)))
            return rc;
        i = last + 1;
        if (!is_op(f, i, ","))
            break;
        i++;
    }
    *pi = i;
    return OPMAP_OK;
}

/* the names after `from M import`, at toks[i] */
static int from_names(py_finder *f, size_t i, const char *mod, unsigned level, size_t *pi)
{
    const py_token *stmt = &f->toks[*pi];
    int paren = is_op(f, i, "("), rc;
    i += (size_t)paren;
    if (is_op(f, i, "*")) {
        const char *full = py_join(f, mod, level && !mod[level] ? "" : ".", "*", &f->toks[i]);
        if (!full || (rc = add_import(f, stmt, &f->toks[i], full, mod, NULL, NULL, level)))
            return f->err->code;
        *pi = i + 1;
        return OPMAP_OK;
    }
    while (is_name(f, i)) {
        const py_token *name = &f->toks[i], *bound = name;
        char *n = om_arena_strndup(f->arena, py_tok_text(f, name), name->len);
        const char *full;
        if (!n)
            return om_fail_mem(f->err, f->arena->mem, f->file);
        if (!(full = py_join(f, mod, level && !mod[level] ? "" : ".", n, name)))
            return f->err->code;
        if (is_word(f, i + 1, "as") && is_name(f, i + 2)) {
            bound = &f->toks[i + 2];
            i += 2;
        }
        if ((rc = add_import(f, stmt, name, full, mod, bound, full, level)))
            return rc;
        i++;
        if (!is_op(f, i, ","))
            break;
        i++;
    }
    if (paren && is_op(f, i, ")"))
        i++;
    *pi = i;
    return OPMAP_OK;
}

/* from [dots] [a.b] import ... */
static int from_import(py_finder *f, size_t *pi)
{
    size_t i = *pi + 1, last = 0, k;
    unsigned level = 0;
    const char *mod = "";
    char dots[256];
    while (is_op(f, i, ".") || is_op(f, i, "...")) {
        level += f->toks[i].op[1] ? 3 : 1;
        i++;
    }
    if (is_name(f, i)) {
        if (!(mod = py_chain(f, i, &last, NULL)))
            return f->err->code;
        i = last + 1;
    }
    if ((!level && !*mod) || !is_word(f, i, "import")) {
        (*pi)++;
        return OPMAP_OK;
    }
    if (level) {
        size_t n = level > 255 ? 255 : level;
        for (k = 0; k < n; k++)
            dots[k] = '.';
        dots[n] = 0;
        if (!(mod = py_join(f, dots, "", mod, &f->toks[*pi])))
            return f->err->code;
    }
    return from_names(f, i + 1, mod, level > 255 ? 255 : level, pi);
}

int py_find_import(py_finder *f, size_t *i)
{
    return py_tok_is(f, &f->toks[*i], PY_T_NAME, "import") ? plain_import(f, i)
                                                            : from_import(f, i);
}
