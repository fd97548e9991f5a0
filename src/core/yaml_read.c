/*
 * core/yaml_read.c - typed reads from a yaml_tree with file:line:column errors (see
 * yaml_read.h).
 */
#include "yaml_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

int yr_bad(yr *l, const yt_node *n, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return om_fail_line(l->err, OPMAP_ETABLE, l->src, n ? n->line : 0, n ? n->col : 0, "%s",
                        msg);
}

int yr_oom(yr *l)
{
    return om_fail_mem(l->err, l->A->mem, l->src);
}

static const char *kind_name(yt_kind k)
{
    return k == YT_MAP ? "a mapping" : k == YT_SEQ ? "a list" : "a scalar";
}

int yr_kind(yr *l, const yt_node *n, yt_kind kind, const char *what)
{
    if (n->kind == kind)
        return OPMAP_OK;
    return yr_bad(l, n, "%s must be %s, not %s", what, kind_name(kind), kind_name(n->kind));
}

int yr_is_null(const yt_node *n)
{
    return n->kind == YT_SCALAR && n->plain &&
           (n->len == 0 || strcmp(n->str, "null") == 0 || strcmp(n->str, "~") == 0);
}

/* A non-empty scalar, any bytes: for patterns matched against model strings. */
int yr_str_any(yr *l, const yt_node *n, const char *what, const char **out)
{
    int rc = yr_kind(l, n, YT_SCALAR, what);
    if (rc)
        return rc;
    if (yr_is_null(n))
        return yr_bad(l, n, "%s must not be empty", what);
    *out = n->str;
    return OPMAP_OK;
}

int yr_str(yr *l, const yt_node *n, const char *what, const char **out)
{
    const unsigned char *p;
    size_t i;
    int rc = yr_str_any(l, n, what, out);
    if (rc)
        return rc;
    /*
     * Tables, weights and waiver files hold text that reports and `opmap table show` print:
     * a control character ("\e[2J" is valid YAML), a C1 control or a NUL (which would cut
     * the string short) has no business there. Newlines and tabs are text.
     */
    for (p = (const unsigned char *)n->str, i = 0; i < n->len; i++)
        if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f ||
            (p[i] == 0xC2 && i + 1 < n->len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)) {
            *out = NULL;
            return yr_bad(l, n, "%s holds a control character (byte %zu of the string)", what,
                          i);
        }
    return OPMAP_OK;
}

int yr_int(yr *l, const yt_node *n, const char *what, int64_t *out)
{
    char *end;
    long long v;
    int rc = yr_kind(l, n, YT_SCALAR, what);
    if (rc)
        return rc;
    errno = 0;
    v = strtoll(n->str, &end, 10);
    if (!n->plain || !n->str[0] || *end || errno)
        return yr_bad(l, n, "%s must be an integer, not '%s'", what, n->str);
    *out = v;
    return OPMAP_OK;
}

/* Person-days with at most three decimals, as thousandths. */
int yr_milli(yr *l, const yt_node *n, const char *what, uint64_t *out)
{
    const char *p;
    uint64_t whole = 0, frac = 0;
    int digits = 0, fdigits = 0;
    int rc = yr_kind(l, n, YT_SCALAR, what);
    if (rc)
        return rc;
    for (p = n->str; *p >= '0' && *p <= '9'; p++, digits++) {
        if (whole > 1000000000ull)
            return yr_bad(l, n, "%s is too large", what);
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, fdigits++) {
            if (fdigits < 3)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else if (*p != '0')
                return yr_bad(l, n, "%s has more than three decimals: '%s'", what, n->str);
        }
        if (fdigits > 3)
            fdigits = 3;
    }
    if (!n->plain || *p || digits == 0)
        return yr_bad(l, n, "%s must be a non-negative decimal number, not '%s'", what, n->str);
    while (fdigits < 3) {
        frac *= 10;
        fdigits++;
    }
    *out = whole * 1000 + frac;
    return OPMAP_OK;
}

int yr_str_list(yr *l, const yt_node *n, const char *what, const char ***out,
                        size_t *count)
{
    size_t i;
    int rc = yr_kind(l, n, YT_SEQ, what);
    if (rc)
        return rc;
    *count = n->n;
    *out = NULL;
    if (!n->n)
        return OPMAP_OK;
    if (!(*out = om_arena_array(l->A, n->n, sizeof(char *))))
        return yr_oom(l);
    for (i = 0; i < n->n; i++)
        if ((rc = yr_str(l, n->items[i], what, &(*out)[i])))
            return rc;
    return OPMAP_OK;
}

/* Every key of `map` must be in `allowed` (NULL-terminated). */
int yr_keys(yr *l, const yt_node *map, const char *const *allowed, const char *what)
{
    size_t i;
    for (i = 0; i < map->n; i++) {
        const yt_node *k = map->items[2 * i];
        const char *const *a;
        char list[300];
        size_t used = 0;
        if (k->kind != YT_SCALAR)
            return yr_bad(l, k, "%s: keys must be plain names", what);
        for (a = allowed; *a; a++)
            if (strcmp(*a, k->str) == 0)
                break;
        if (*a)
            continue;
        list[0] = '\0';
        for (a = allowed; *a && used + strlen(*a) + 3 < sizeof(list); a++)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                     a == allowed ? "" : ", ", *a);
        return yr_bad(l, k, "unknown key '%s' in %s (allowed: %s)", k->str, what, list);
    }
    return OPMAP_OK;
}

int yr_require(yr *l, const yt_node *map, const char *key, const char *what,
                   const yt_node **out)
{
    if ((*out = yt_get(map, key)))
        return OPMAP_OK;
    return yr_bad(l, map, "%s: missing required key '%s'", what, key);
}

int yr_weights(yr *l, const yt_node *w, opmap_effort *effort, unsigned *set,
               opmap_effort *unpublished)
{
    static const char *const keys[] = { "full", "partial", "rewrite", "unmapped", "unpublished",
                                        NULL };
    static const char *const range_keys[] = { "min", "expected", "max", NULL };
    static const int status_of[] = { OPMAP_OP_FULL, OPMAP_OP_PARTIAL, OPMAP_OP_REWRITE,
                                     OPMAP_OP_UNMAPPED, -1 };
    int rc, i;
    if ((rc = yr_kind(l, w, YT_MAP, "weights")))
        return rc;
    if (!unpublished && yt_get(w, "unpublished"))
        return yr_bad(l, yt_get(w, "unpublished"), "weights.unpublished belongs in a table's "
                      "weights, not in a weights file");
    if ((rc = yr_keys(l, w, keys, "weights")))
        return rc;
    for (i = 0; i < 5; i++) {
        const yt_node *r = yt_get(w, keys[i]), *n;
        opmap_effort *e = status_of[i] >= 0 ? &effort[status_of[i]] : unpublished;
        if (!r)
            continue;
        if ((rc = yr_kind(l, r, YT_MAP, "a weight")) ||
            (rc = yr_keys(l, r, range_keys, "a weight")) ||
            (rc = yr_require(l, r, "min", "weight", &n)) || (rc = yr_milli(l, n, "min", &e->min)) ||
            (rc = yr_require(l, r, "expected", "weight", &n)) ||
            (rc = yr_milli(l, n, "expected", &e->expected)) ||
            (rc = yr_require(l, r, "max", "weight", &n)) || (rc = yr_milli(l, n, "max", &e->max)))
            return rc;
        if (e->min > e->expected || e->expected > e->max)
            return yr_bad(l, r, "weights.%s: need min <= expected <= max", keys[i]);
        if (status_of[i] >= 0)
            *set |= 1u << status_of[i];
    }
    return OPMAP_OK;
}
