/*
 * table/weights.c - effort weights from a file, replacing the table's (see opmap/table.h).
 */
#include <inttypes.h>
#include <string.h>

#include <opmap/table.h>

#include "core/context.h"
#include "core/err.h"
#include "core/mapfile.h"
#include "core/yaml_read.h"

int opmap_weights_load_memory(opmap_weights *out, opmap_ctx *ctx, const void *data, size_t size,
                              const char *name, opmap_error *err)
{
    static const char *const keys[] = { "full", "partial", "rewrite", "unmapped", NULL };
    om_mem mem;
    om_arena arena;
    yt_node *root;
    yr y;
    int rc;
    om_err_clear(err);
    if (!name)
        name = "<memory>";
    if (!out || !ctx || (!data && size))
        return om_fail(err, OPMAP_EINVAL, name, "opmap_weights_load_memory: NULL argument");
    memset(out, 0, sizeof(*out));
    out->version = OPMAP_WEIGHTS_VERSION;
    if (size > ctx->limits.max_table_bytes)
        return om_fail(err, OPMAP_ELIMIT, name, "weights file is %zu bytes, over max_table_bytes (%" PRIu64 ")",
                       size, ctx->limits.max_table_bytes);
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&arena, &mem, 0);
    y.src = name;
    y.err = err;
    y.A = &arena;
    rc = yt_parse(data ? data : (const void *)"", size, name, &arena, ctx->limits.max_yaml_depth,
                  ctx->limits.max_yaml_nodes, &root, err);
    if (rc == OPMAP_OK && !(rc = yr_kind(&y, root, YT_MAP, "a weights file")) &&
        !(rc = yr_keys(&y, root, keys, "a weights file")))
        rc = yr_weights(&y, root, out->effort, &out->set, NULL);
    om_arena_free(&arena);
    return rc;
}

int opmap_weights_load_file(opmap_weights *out, opmap_ctx *ctx, const char *path,
                            opmap_error *err)
{
    om_mapped map;
    om_mem mem;
    int rc;
    om_err_clear(err);
    if (!out || !ctx || !path)
        return om_fail(err, OPMAP_EINVAL, path, "opmap_weights_load_file: NULL argument");
    om_mem_init(&mem, &ctx->al, ctx->limits.max_table_bytes + 1);
    if ((rc = om_map_file_limit(&map, &mem, path, ctx->limits.max_table_bytes,
                                   "max_table_bytes", err)))
        return rc;
    rc = opmap_weights_load_memory(out, ctx, map.data, (size_t)map.size, path, err);
    om_unmap(&map);
    return rc;
}
