/*
 * policy/waivers.c - loading a waiver file (docs/ci.md): accepted findings, each with a
 * reason, an owner and an expiry date. Strict like the table: unknown keys, missing fields,
 * bad dates and unknown kinds are errors with file:line:column.
 */
#include <inttypes.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/mapfile.h"
#include "core/yaml_read.h"
#include "policy_internal.h"

static int parse_entry(yr *y, const yt_node *e, om_waiver *w)
{
    static const char *const keys[] = { "op", "model", "node", "kind", "reason", "owner",
                                        "expires", NULL };
    const yt_node *n;
    const char *op, *sep;
    int rc;
    w->line = e->line;
    if ((rc = yr_kind(y, e, YT_MAP, "a waiver")) || (rc = yr_keys(y, e, keys, "a waiver")) ||
        (rc = yr_require(y, e, "op", "waiver", &n)) || (rc = yr_str_any(y, n, "op", &op)) ||
        (rc = yr_require(y, e, "reason", "waiver", &n)) ||
        (rc = yr_str(y, n, "reason", &w->reason)) ||
        (rc = yr_require(y, e, "owner", "waiver", &n)) ||
        (rc = yr_str(y, n, "owner", &w->owner)) ||
        (rc = yr_require(y, e, "expires", "waiver", &n)) ||
        (rc = yr_str(y, n, "expires", &w->expires)))
        return rc;
    if (!om_date_valid(w->expires))
        return yr_bad(y, n, "expires must be a date YYYY-MM-DD, not '%s'", w->expires);
    if ((sep = strstr(op, "::"))) {
        if (!(w->domain = om_arena_strndup(y->A, op, (size_t)(sep - op))))
            return yr_oom(y);
        w->op = sep + 2;
    } else {
        w->op = op;
    }
    if ((n = yt_get(e, "model")) && (rc = yr_str_any(y, n, "model", &w->model)))
        return rc;
    if ((n = yt_get(e, "node")) && (rc = yr_str_any(y, n, "node", &w->node)))
        return rc;
    if ((n = yt_get(e, "kind"))) {
        const char *k;
        opmap_error tmp;
        unsigned bits;
        if ((rc = yr_str(y, n, "kind", &k)))
            return rc;
        if (opmap_fail_on_parse(k, &bits, &tmp) != OPMAP_OK || !bits || (bits & (bits - 1)))
            return yr_bad(y, n, "unknown finding kind '%s' (one of unmapped, rewrite, partial, "
                                "precision, performance, dynamic-shape, rng, inf-nan, "
                                "nondeterministic, deprecated, dtype, external-data, skipped, "
                                "not-inlined)",
                          k);
        if (bits == OPMAP_FAIL_UNREADABLE)
            return yr_bad(y, n, "a waiver cannot accept kind '%s': a file that cannot be "
                                "read is fixed, not waived", k);
        w->kind = bits;
    }
    return OPMAP_OK;
}

static int parse(opmap_waivers *ws, const unsigned char *data, size_t size, opmap_error *err)
{
    static const char *const top[] = { "schema", "waivers", NULL };
    yt_node *root;
    const yt_node *list, *n;
    yr y;
    size_t i;
    int rc;
    y.src = ws->origin;
    y.err = err;
    y.A = &ws->arena;
    if ((rc = yt_parse(data, size, ws->origin, &ws->arena, ws->ctx->limits.max_yaml_depth,
                       ws->ctx->limits.max_yaml_nodes, &root, err)))
        return rc;
    if ((rc = yr_kind(&y, root, YT_MAP, "a waiver file")) ||
        (rc = yr_keys(&y, root, top, "a waiver file")) ||
        (rc = yr_require(&y, root, "waivers", "waiver file", &list)) ||
        (rc = yr_kind(&y, list, YT_SEQ, "waivers")))
        return rc;
    if ((n = yt_get(root, "schema"))) {
        int64_t v;
        if ((rc = yr_int(&y, n, "schema", &v)))
            return rc;
        if (v != 1)
            return yr_bad(&y, n, "waiver file schema %lld is not supported (this opmap reads 1)",
                          (long long)v);
    }
    ws->n = list->n;
    if (list->n && !(ws->w = om_arena_array(&ws->arena, list->n, sizeof(om_waiver))))
        return yr_oom(&y);
    for (i = 0; i < list->n; i++)
        if ((rc = parse_entry(&y, list->items[i], &ws->w[i])))
            return rc;
    return OPMAP_OK;
}

int opmap_waivers_load_memory(opmap_waivers **out, opmap_ctx *ctx, const void *data, size_t size,
                              const char *name, opmap_error *err)
{
    opmap_waivers *ws;
    int rc;
    om_err_clear(err);
    if (!name)
        name = "<memory>";
    if (!out || !ctx || (!data && size))
        return om_fail(err, OPMAP_EINVAL, name, "opmap_waivers_load_memory: NULL argument");
    *out = NULL;
    if (size > ctx->limits.max_table_bytes)
        return om_fail(err, OPMAP_ELIMIT, name, "waiver file is %zu bytes, over max_table_bytes (%" PRIu64 ")",
                       size, ctx->limits.max_table_bytes);
    if (!(ws = om_ctx_calloc(ctx, sizeof(*ws))))
        return om_fail(err, OPMAP_ENOMEM, name, "out of memory");
    ws->ctx = ctx;
    om_mem_init(&ws->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&ws->arena, &ws->mem, 0);
    if (!(ws->origin = om_arena_strdup(&ws->arena, name)))
        rc = om_fail(err, OPMAP_ENOMEM, name, "out of memory");
    else
        rc = parse(ws, data ? data : (const void *)"", size, err);
    if (rc != OPMAP_OK) {
        opmap_waivers_free(ws);
        return rc;
    }
    *out = ws;
    return OPMAP_OK;
}

int opmap_waivers_load_file(opmap_waivers **out, opmap_ctx *ctx, const char *path,
                            opmap_error *err)
{
    om_mapped map;
    om_mem mem;
    int rc;
    om_err_clear(err);
    if (!out || !ctx || !path)
        return om_fail(err, OPMAP_EINVAL, path, "opmap_waivers_load_file: NULL argument");
    om_mem_init(&mem, &ctx->al, ctx->limits.max_table_bytes + 1);
    if ((rc = om_map_file_limit(&map, &mem, path, ctx->limits.max_table_bytes,
                                   "max_table_bytes", err)))
        return rc;
    rc = opmap_waivers_load_memory(out, ctx, map.data, (size_t)map.size, path, err);
    om_unmap(&map);
    return rc;
}

void opmap_waivers_free(opmap_waivers *ws)
{
    if (!ws)
        return;
    om_arena_free(&ws->arena);
    om_ctx_release(ws->ctx, ws);
}
