/*
 * readers/model.c - opmap_model: open a file or buffer, read it into the IR.
 */
#include <string.h>

#include <opmap/model.h>

#include "core/err.h"
#include "core/info.h"
#include "core/mapfile.h"
#include "formats.h"
#include "reader.h"
#include "ir/values.h"
#include "core/context.h"
#include "model.h"

static opmap_model *model_new(opmap_ctx *ctx, const char *name)
{
    opmap_model *model = om_ctx_calloc(ctx, sizeof(*model));
    if (!model)
        return NULL;
    model->ctx = ctx;
    om_mem_init(&model->ir.mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&model->ir.arena, &model->ir.mem, 0);
    model->ir.name = om_arena_strdup(&model->ir.arena, name);
    if (!model->ir.name) {
        om_arena_free(&model->ir.arena);
        om_ctx_release(ctx, model);
        return NULL;
    }
    return model;
}

int om_model_open_file_view(opmap_model **out, opmap_ctx *ctx, const char *path,
                            uint64_t small_max, unsigned chunk_shift, opmap_error *err)
{
    opmap_model *model;
    om_mapped map;
    opmap_error why;
    int rc, changed;
    om_err_clear(err);
    if (!out || !ctx || !path)
        return om_fail(err, OPMAP_EINVAL, path, "opmap_model_open_file: NULL argument");
    *out = NULL;
    if (!(model = model_new(ctx, path)))
        return om_fail(err, OPMAP_ENOMEM, path, "out of memory");
    rc = om_map_file_view(&map, &model->ir.mem, path, ctx->limits.max_file_bytes, small_max,
                          chunk_shift, err);
    if (rc == OPMAP_OK) {
        model->ir.input = &map;
        rc = om_read_model(&model->ir, map.data, map.size, &ctx->limits, err);
        model->ir.input = NULL;
        /* a file that changed under the reader: say so, not what the reader made of it */
        if ((changed = om_map_check(&map, path, &why)) != OPMAP_OK) {
            if (err)
                *err = why;
            rc = changed;
        }
        om_unmap(&map);
    }
    if (rc == OPMAP_OK)
        om_check_external(&model->ir, path);
    if (rc == OPMAP_OK)
        rc = om_values_infer(&model->ir, err);
    if (rc != OPMAP_OK) {
        opmap_model_free(model);
        return rc;
    }
    *out = model;
    return OPMAP_OK;
}

int opmap_model_open_file(opmap_model **out, opmap_ctx *ctx, const char *path, opmap_error *err)
{
    return om_model_open_file_view(out, ctx, path, OM_MAP_SMALL_FILE, OM_MAP_CHUNK_SHIFT, err);
}

int opmap_model_open_memory(opmap_model **out, opmap_ctx *ctx, const void *data, size_t size,
                            const char *name, opmap_error *err)
{
    opmap_model *model;
    int rc;
    om_err_clear(err);
    if (!name)
        name = "<memory>";
    if (!out || !ctx || (!data && size))
        return om_fail(err, OPMAP_EINVAL, name, "opmap_model_open_memory: NULL argument");
    *out = NULL;
    if (!(model = model_new(ctx, name)))
        return om_fail(err, OPMAP_ENOMEM, name, "out of memory");
    rc = om_read_model(&model->ir, data, size, &ctx->limits, err);
    if (rc == OPMAP_OK)
        rc = om_values_infer(&model->ir, err);
    if (rc != OPMAP_OK) {
        opmap_model_free(model);
        return rc;
    }
    *out = model;
    return OPMAP_OK;
}

void opmap_model_free(opmap_model *model)
{
    if (!model)
        return;
    om_arena_free(&model->ir.arena);
    om_ctx_release(model->ctx, model);
}

opmap_format opmap_model_format(const opmap_model *model)
{
    return model->ir.format;
}

const char *opmap_model_name(const opmap_model *model)
{
    return model->ir.name;
}

int opmap_model_stats_get(const opmap_model *model, opmap_model_stats *out)
{
    opmap_model_stats s;
    if (!model)
        return OPMAP_EINVAL;
    s = model->ir.stats;
    s.size = sizeof(s);
    return OM_INFO_FILL(out, &s, opmap_model_stats, weight_bytes);
}
