/*
 * table/data_load.c - helpers of the strict loaders of opmap's curated data files
 * (data_load.h): source_rules_load.c and patterns_load.c.
 */
#include <inttypes.h>
#include <string.h>

#include <opmap/error.h>

#include "core/context.h"
#include "core/err.h"
#include "data_load.h"
#include "table_internal.h"

static const char *const grade_names[OM_GRADE_COUNT] = { "", "practice", "derived", "doc",
                                                         "kernel" };

int om_data_pick(yr *y, const yt_node *n, const char *what, const char *const *names, int count,
                const char *expected, int *out)
{
    const char *s;
    int i, rc = yr_str(y, n, what, &s);
    if (rc)
        return rc;
    for (i = 0; i < count; i++)
        if (names[i][0] && strcmp(s, names[i]) == 0) {
            *out = i;
            return OPMAP_OK;
        }
    return yr_bad(y, n, "unknown %s '%s' (expected %s)", what, s, expected);
}

int om_data_opt_str(yr *y, const yt_node *map, const char *key, const char **out)
{
    const yt_node *n = yt_get(map, key);
    *out = NULL;
    if (!n)
        return OPMAP_OK;
    if (n->kind == YT_SCALAR && n->len == 0 && strcmp(key, "replacement") == 0) {
        *out = "";
        return OPMAP_OK;
    }
    return yr_str(y, n, key, out);
}

int om_data_effort(yr *y, const yt_node *n, const char *what, opmap_effort *e)
{
    static const char *const keys[] = { "min", "expected", "max", NULL };
    const yt_node *v;
    uint64_t m[3];
    int i, rc;
    if ((rc = yr_kind(y, n, YT_MAP, what)) || (rc = yr_keys(y, n, keys, what)))
        return rc;
    for (i = 0; i < 3; i++)
        if ((rc = yr_require(y, n, keys[i], what, &v)) || (rc = yr_milli(y, v, keys[i], &m[i])))
            return rc;
    if (!(m[0] <= m[1] && m[1] <= m[2]))
        return yr_bad(y, n, "%s: need min <= expected <= max", what);
    e->min = m[0];
    e->expected = m[1];
    e->max = m[2];
    return OPMAP_OK;
}

int om_data_sources(yr *y, om_arena *A, const yt_node *seq, om_data_source **out, size_t *count)
{
    static const char *const keys[] = { "id", "repo", "path", "commit", "license", "taken", "grade",
                                        NULL };
    om_data_source *src = NULL;
    size_t i, j;
    int rc, g = 0;
    *out = NULL;
    *count = 0;
    if ((rc = yr_kind(y, seq, YT_SEQ, "sources")))
        return rc;
    if (seq->n && !(src = om_arena_array(A, seq->n, sizeof(*src))))
        return yr_oom(y);
    for (i = 0; i < seq->n; i++) {
        const yt_node *e = seq->items[i], *n;
        om_data_source *s = &src[i];
        if ((rc = yr_kind(y, e, YT_MAP, "a source")) || (rc = yr_keys(y, e, keys, "a source")) ||
            (rc = yr_require(y, e, "id", "a source", &n)) || (rc = yr_str(y, n, "id", &s->id)) ||
            (rc = om_data_opt_str(y, e, "repo", &s->repo)) ||
            (rc = om_data_opt_str(y, e, "path", &s->path)) ||
            (rc = om_data_opt_str(y, e, "commit", &s->commit)) ||
            (rc = om_data_opt_str(y, e, "license", &s->license)) ||
            (rc = om_data_opt_str(y, e, "taken", &s->taken)) ||
            (rc = yr_require(y, e, "grade", "a source", &n)) ||
            (rc = om_data_pick(y, n, "grade", grade_names, OM_GRADE_COUNT,
                               "kernel, doc, derived, practice", &g)))
            return rc;
        s->grade = (uint8_t)g;
        for (j = 0; j < i; j++)
            if (strcmp(src[j].id, s->id) == 0)
                return yr_bad(y, yt_get(e, "id"), "source '%s' is defined twice", s->id);
    }
    *out = src;
    *count = seq->n;
    return OPMAP_OK;
}

const om_data_source *om_data_source_find(const om_data_source *s, size_t n, const char *id)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(s[i].id, id) == 0)
            return &s[i];
    return NULL;
}

int om_data_cited(yr *y, const yt_node *row, const char *id, const om_data_source *sources,
                  size_t n_sources, const char *curated, const char ***ids, size_t *n_ids,
                  uint8_t *grade)
{
    const yt_node *srcs = yt_get(row, "sources"), *n;
    uint8_t best = OM_GRADE_NONE;
    size_t i;
    int rc, v = 0;
    if (!srcs)
        return yr_bad(y, row, "'%s' has no sources (every row cites its evidence)", id);
    if ((rc = yr_str_list(y, srcs, "sources", ids, n_ids)))
        return rc;
    if (!*n_ids)
        return yr_bad(y, srcs, "'%s' has no sources", id);
    for (i = 0; i < *n_ids; i++) {
        const om_data_source *s = om_data_source_find(sources, n_sources, (*ids)[i]);
        if (!s)
            return yr_bad(y, srcs->items[i], "unknown source '%s'", (*ids)[i]);
        if (strcmp(s->id, "curated") == 0 && !curated)
            return yr_bad(y, srcs->items[i], "'%s' cites curated without a curated: reason", id);
        if (s->grade > best)
            best = s->grade;
    }
    if (!(n = yt_get(row, "grade")))
        return yr_bad(y, row, "'%s' has no grade", id);
    if ((rc = om_data_pick(y, n, "grade", grade_names, OM_GRADE_COUNT,
                           "kernel, doc, derived, practice", &v)))
        return rc;
    if ((uint8_t)v > best)
        return yr_bad(y, n, "grade %s is above every cited source's (best: %s)", grade_names[v],
                      grade_names[best]);
    *grade = (uint8_t)v;
    return OPMAP_OK;
}

void om_data_free(om_data_file *f, size_t struct_size)
{
    om_mem mem;
    if (!f)
        return;
    mem = f->mem;
    om_arena_free(&f->arena);
    om_dealloc(&mem, f, struct_size);
}

int om_data_load(void **out, size_t struct_size, opmap_ctx *ctx, const void *data, size_t size,
                 const char *name, const char *what, om_data_parse_fn parse, opmap_error *err)
{
    om_mem mem;
    om_data_file *f;
    yr y;
    int rc;
    om_err_clear(err);
    if (!name)
        name = "<memory>";
    if (!out || !ctx || (!data && size))
        return om_fail(err, OPMAP_EINVAL, name, "loading %s: NULL argument", what);
    *out = NULL;
    if (size > ctx->limits.max_table_bytes)
        return om_fail(err, OPMAP_ELIMIT, name, "%s are %zu bytes, over max_table_bytes (%" PRIu64
                       ")", what, size, ctx->limits.max_table_bytes);
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    if (!(f = om_calloc(&mem, 1, struct_size)))
        return om_fail_mem(err, &mem, name);
    f->mem = mem;
    om_arena_init(&f->arena, &f->mem, 0);
    memset(&y, 0, sizeof(y));
    y.err = err;
    y.A = &f->arena;
    if (!(f->origin = om_arena_strdup(&f->arena, name))) {
        om_data_free(f, struct_size);
        return om_fail_mem(err, &mem, name);
    }
    y.src = f->origin;
    if ((rc = parse(&y, f, data, size, ctx))) {
        om_data_free(f, struct_size);
        return rc;
    }
    *out = f;
    return OPMAP_OK;
}
