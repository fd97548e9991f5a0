/*
 * readers/torchscript/graph_text/scope.c - module paths from printed scopes and from the
 * prim::GetAttr chains of graphs that are not inlined.
 */
#include "readers/torchscript/graph_text/scope.h"

#include <string.h>

#include "core/hash.h"

typedef struct gts_mod {
    const char *name, *path;
    uint64_t h;
    uint32_t depth;
} gts_mod;

/* Appends seg[0, n) to out at *len, '.' becoming '/' (qualified names are dotted). */
static void put_seg(char *out, size_t *len, const char *seg, size_t n)
{
    size_t i;
    if (!n)
        return;
    if (*len)
        out[(*len)++] = '/';
    for (i = 0; i < n; i++)
        out[(*len)++] = seg[i] == '.' ? '/' : seg[i];
}

/* The last occurrence of "::" in s[0, n), or NULL. */
static const char *last_colons(const char *s, size_t n)
{
    size_t i;
    for (i = n; i >= 2; i--)
        if (s[i - 2] == ':' && s[i - 1] == ':')
            return s + i - 2;
    return NULL;
}

size_t gts_scope_path(const char *s, size_t n, char *out)
{
    const char *last, *cc;
    size_t len = 0, ln, i;
    while (n && (s[0] == ' ' || s[0] == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (!n)
        return 0;
    for (last = s + n; last > s && last[-1] != '/'; last--)
        ;
    ln = (size_t)(s + n - last);
    if (ln >= 9 && memcmp(last, "__module.", 9) == 0) {
        put_seg(out, &len, last + 9, ln - 9);
    } else if (ln == 8 && memcmp(last, "__module", 8) == 0) {
        return 0;
    } else if ((cc = last_colons(last, ln))) {
        put_seg(out, &len, cc + 2, (size_t)(last + ln - cc - 2));
    } else {
        /* Root/Class[name]/Class[name] (older tracers): the bracketed names, a segment
         * without brackets as it is; the first segment is the root's class */
        size_t b = 0;
        for (i = 0; i <= n; i++) {
            const char *open;
            if (i < n && s[i] != '/')
                continue;
            open = i > b && s[i - 1] == ']' ? memchr(s + b, '[', i - b) : NULL;
            if (open)
                put_seg(out, &len, open + 1, (size_t)(s + i - 1 - open - 1));
            else if (b)
                put_seg(out, &len, s + b, i - b);
            b = i + 1;
        }
    }
    out[len] = 0;
    return len;
}

const char *gts_mod_get(const gts_modtab *t, const char *name, uint32_t *depth)
{
    uint64_t h;
    size_t j;
    if (!t->cap || !name)
        return NULL;
    h = om_hash_name(name);
    for (j = h & (t->cap - 1); t->slots[j].name; j = (j + 1) & (t->cap - 1))
        if (t->slots[j].h == h && strcmp(t->slots[j].name, name) == 0) {
            *depth = t->slots[j].depth;
            return t->slots[j].path;
        }
    return NULL;
}

int gts_mod_put(gts_modtab *t, const char *name, const char *path, uint32_t depth)
{
    uint64_t h = om_hash_name(name);
    size_t j;
    if ((t->len + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64, i;
        gts_mod *ns = om_calloc(t->mem, ncap, sizeof(*ns));
        if (!ns)
            return 0;
        for (i = 0; i < t->cap; i++) {
            if (!t->slots[i].name)
                continue;
            for (j = t->slots[i].h & (ncap - 1); ns[j].name; j = (j + 1) & (ncap - 1))
                ;
            ns[j] = t->slots[i];
        }
        if (t->slots)
            om_dealloc(t->mem, t->slots, t->cap * sizeof(*t->slots));
        t->slots = ns;
        t->cap = ncap;
    }
    for (j = h & (t->cap - 1); t->slots[j].name; j = (j + 1) & (t->cap - 1))
        if (t->slots[j].h == h && strcmp(t->slots[j].name, name) == 0)
            break;
    if (!t->slots[j].name)
        t->len++;
    t->slots[j].name = name;
    t->slots[j].path = path;
    t->slots[j].h = h;
    t->slots[j].depth = depth;
    return 1;
}

void gts_mod_free(gts_modtab *t)
{
    if (t->slots)
        om_dealloc(t->mem, t->slots, t->cap * sizeof(*t->slots));
    memset(t, 0, sizeof(*t));
}
