/*
 * readers/python/py_names.c - the finder's small pieces: keywords, dotted chains, joined
 * names and new sites, every string bounded by max_string_bytes and kept in the arena.
 */
#include <inttypes.h>
#include <string.h>

#include "core/err.h"
#include "py_finder.h"

static const char *const keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "while", "with", "yield"
};

int py_is_keyword(const py_finder *f, const py_token *t)
{
    size_t k;
    if (t->type != PY_T_NAME || t->len > 8)
        return 0;
    for (k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
        if (py_tok_is(f, t, PY_T_NAME, keywords[k]))
            return 1;
    return 0;
}

static int too_long(py_finder *f, const py_token *t)
{
    return om_fail_line(f->err, OPMAP_ELIMIT, f->file, t->line, t->col,
                        "dotted name over max_string_bytes (%" PRIu32 ")",
                        f->lim->max_string_bytes);
}

const char *py_chain(py_finder *f, size_t first, size_t *last, const char *prefix)
{
    size_t j = first, n = prefix ? strlen(prefix) : 0, k = 0;
    char *out;
    /* NAME ('.' NAME)*: the names' bytes and the dots between them */
    n += f->toks[j].len;
    while (j + 2 < f->ntok && py_tok_is(f, &f->toks[j + 1], PY_T_OP, ".") &&
           f->toks[j + 2].type == PY_T_NAME && !py_is_keyword(f, &f->toks[j + 2])) {
        j += 2;
        n += 1 + f->toks[j].len;
        if (n > f->lim->max_string_bytes) {
            too_long(f, &f->toks[first]);
            return NULL;
        }
    }
    if (n > f->lim->max_string_bytes) {
        too_long(f, &f->toks[first]);
        return NULL;
    }
    if (!(out = om_arena_alloc(f->arena, n + 1))) {
        om_fail_mem(f->err, f->arena->mem, f->file);
        return NULL;
    }
    if (prefix) {
        k = strlen(prefix);
        memcpy(out, prefix, k);
    }
    for (*last = first;; *last += 2) {
        const py_token *t = &f->toks[*last];
        memcpy(out + k, py_tok_text(f, t), t->len);
        k += t->len;
        if (*last == j)
            break;
        out[k++] = '.';
    }
    out[k] = 0;
    return out;
}

const char *py_join(py_finder *f, const char *a, const char *sep, const char *b,
                    const py_token *t)
{
    size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
    char *out;
    if (na + ns + nb > f->lim->max_string_bytes) {
        too_long(f, t);
        return NULL;
    }
    if (!(out = om_arena_alloc(f->arena, na + ns + nb + 1))) {
        om_fail_mem(f->err, f->arena->mem, f->file);
        return NULL;
    }
    memcpy(out, a, na);
    memcpy(out + na, sep, ns);
    memcpy(out + na + ns, b, nb);
    out[na + ns + nb] = 0;
    return out;
}

py_site *py_site_new(py_finder *f, py_site_kind kind, const py_token *t)
{
    py_site *s = om_vec_push(f->sites, f->arena->mem);
    if (!s) {
        om_fail_mem(f->err, f->arena->mem, f->file);
        return NULL;
    }
    s->kind = kind;
    s->file = f->file;
    s->line = t->line;
    s->col = t->col;
    s->arg_index = -1;
    s->in_loop = f->in_loop || (f->in_comp && f->in_comp[t - f->toks]);
    return s;
}
