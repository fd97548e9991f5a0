/*
 * readers/python/py_alias.c - the file's alias map: which full name each imported local
 * name stands for, in file order (a later import of the same name replaces the earlier).
 */
#include <string.h>

#include "core/err.h"
#include "core/hash.h"
#include "py_finder.h"

static size_t slot_of(const py_alias *slots, size_t cap, const char *s, size_t n)
{
    size_t i = (size_t)om_hash_bytes(OM_HASH_SEED, s, n) & (cap - 1);
    while (slots[i].local && !(slots[i].n == n && memcmp(slots[i].local, s, n) == 0))
        i = (i + 1) & (cap - 1);
    return i;
}

static int grow(py_finder *f)
{
    py_aliases *a = &f->aliases;
    size_t cap = a->cap ? a->cap * 2 : 64, i;
    py_alias *slots = om_calloc(a->mem, cap, sizeof(*slots));
    if (!slots)
        return om_fail_mem(f->err, a->mem, f->file);
    for (i = 0; i < a->cap; i++)
        if (a->slots[i].local)
            slots[slot_of(slots, cap, a->slots[i].local, a->slots[i].n)] = a->slots[i];
    if (a->slots)
        om_dealloc(a->mem, a->slots, a->cap * sizeof(*a->slots));
    a->slots = slots;
    a->cap = cap;
    return OPMAP_OK;
}

int py_alias_bind(py_finder *f, const char *local, size_t n, const char *full)
{
    py_aliases *a = &f->aliases;
    size_t i;
    int rc;
    if ((a->used + 1) * 2 > a->cap && (rc = grow(f)))
        return rc;
    i = slot_of(a->slots, a->cap, local, n);
    if (!a->slots[i].local)
        a->used++;
    a->slots[i].local = local;
    a->slots[i].n = (uint32_t)n;
    a->slots[i].full = full;
    return OPMAP_OK;
}

const char *py_alias_find(const py_aliases *a, const char *local, size_t n)
{
    size_t i;
    if (!a->cap)
        return NULL;
    i = slot_of(a->slots, a->cap, local, n);
    return a->slots[i].local ? a->slots[i].full : NULL;
}

void py_alias_free(py_aliases *a)
{
    if (a->slots)
        om_dealloc(a->mem, a->slots, a->cap * sizeof(*a->slots));
    a->slots = NULL;
    a->cap = a->used = 0;
}
