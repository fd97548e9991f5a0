/*
 * readers/python/py_finder.h - what the site finder's files share: the file's alias map
 * (py_alias.c), import statements (py_imports.c), chains, calls and strings (py_sites.c).
 */
#ifndef OM_PY_FINDER_H
#define OM_PY_FINDER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "py_lexer.h"
#include "python_source.h"

/* local name -> full name, open addressing; the last binding of a name wins */
typedef struct py_alias {
    const char *local;   /* in the text: local[0, n) */
    uint32_t n;
    const char *full;    /* in the arena */
} py_alias;

typedef struct py_aliases {
    py_alias *slots;
    size_t cap, used;
    om_mem *mem;
} py_aliases;

typedef struct py_finder {
    const char *file;             /* in the arena */
    const unsigned char *text;
    const py_token *toks;
    size_t ntok;
    const opmap_limits *lim;
    om_arena *arena;
    om_vec *sites;
    opmap_error *err;
    py_aliases aliases;
    uint32_t fdepth;              /* f-string fields being walked (py_fstring.c) */
    uint8_t in_loop;              /* the statement being walked is in a loop's body */
    const uint8_t *in_comp;       /* per token: inside a comprehension's brackets, or NULL */
} py_finder;

int py_alias_bind(py_finder *f, const char *local, size_t n, const char *full);
const char *py_alias_find(const py_aliases *a, const char *local, size_t n);
void py_alias_free(py_aliases *a);

/* The import statement at toks[*i] ("import" or "from"): its sites and bindings, *i moved
 * past what it read; a `from` that is no import (`raise E from x`) moves *i by one. */
int py_find_import(py_finder *f, size_t *i);

/* A new site of `kind` at token t (position and file set), or NULL with err set. */
py_site *py_site_new(py_finder *f, py_site_kind kind, const py_token *t);

/* The text of a token */
static inline const char *py_tok_text(const py_finder *f, const py_token *t)
{
    return (const char *)f->text + t->off;
}

static inline int py_tok_is(const py_finder *f, const py_token *t, int type, const char *s)
{
    size_t n = strlen(s);
    if (t->type != type)
        return 0;
    if (type == PY_T_OP)
        return strcmp(t->op, s) == 0;
    return t->len == n && memcmp(f->text + t->off, s, n) == 0;
}

/* The dotted chain of names at toks[first] (NAME ('.' NAME)*): its last name's index in
 * *last, its text after `prefix` (NULL: none) in the arena, bounded by max_string_bytes.
 * NULL with err set on failure. */
const char *py_chain(py_finder *f, size_t first, size_t *last, const char *prefix);

/* a + sep + b in the arena, bounded by max_string_bytes (at token t for the error) */
const char *py_join(py_finder *f, const char *a, const char *sep, const char *b,
                    const py_token *t);

int py_is_keyword(const py_finder *f, const py_token *t);

/* Everything but the imports: chains, calls, method calls, strings. */
int py_find_sites(py_finder *f);

/* The sites of the code inside f-string token t's replacement fields (py_fstring.c). */
int py_fstring_sites(py_finder *f, const py_token *t);

#endif /* OM_PY_FINDER_H */
