/*
 * core/context.c - opmap_ctx: allocator and limits (see opmap/context.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/context.h>
#include <opmap/version.h>

#include "err.h"
#include "context.h"

#define KiB (1024ull)
#define MiB (1024ull * KiB)
#define GiB (1024ull * MiB)
#define OM_MAX_DEPTH_CEILING 4096u

static void fill_defaults(opmap_limits *l)
{
    if (!l->max_file_bytes) l->max_file_bytes = 1024ull * GiB;
    if (!l->max_heap_bytes) l->max_heap_bytes = 1ull * GiB;
    if (!l->max_nodes) l->max_nodes = 10000000ull;
    if (!l->max_depth) l->max_depth = 64;
    /* The readers recurse per level of nesting (a few frames each: ONNX graph/node/attribute,
     * TorchScript expressions; some allow a few levels of slack): past some 20,000 levels a
     * hostile file would overflow an 8 MiB stack, so a caller's larger max_depth is held to
     * OM_MAX_DEPTH_CEILING (docs/limits.md). */
    if (l->max_depth > OM_MAX_DEPTH_CEILING) l->max_depth = OM_MAX_DEPTH_CEILING;
    if (!l->max_string_bytes) l->max_string_bytes = (uint32_t)MiB;
    if (!l->max_table_bytes) l->max_table_bytes = 64ull * MiB;
    if (!l->max_yaml_depth) l->max_yaml_depth = 32;
    if (!l->max_pickle_depth) l->max_pickle_depth = 64;
    if (!l->max_expansions) l->max_expansions = 10000000ull;
    if (!l->max_zip_entries) l->max_zip_entries = 100000ull;
    if (!l->max_entry_bytes) l->max_entry_bytes = 64ull * MiB;
    if (!l->max_yaml_nodes) l->max_yaml_nodes = 10000000ull;
}

/*
 * A version-1 struct ends before max_pickle_depth. Its caller's tighter bounds keep
 * governing what they governed then: max_nodes the expansions and zip entries, max_depth
 * pickle nesting, 64 x max_string_bytes an archive entry.
 */
static void limits_v1(opmap_limits *l, const opmap_limits *v1)
{
    memcpy(l, v1, offsetof(opmap_limits, max_pickle_depth));
    if (l->max_nodes)
        l->max_expansions = l->max_zip_entries = l->max_nodes;
    if (l->max_depth)
        l->max_pickle_depth = l->max_depth;
    if (l->max_string_bytes)
        l->max_entry_bytes = 64u * (uint64_t)l->max_string_bytes;
}

int opmap_ctx_new(opmap_ctx **out, const opmap_ctx_options *opts, opmap_error *err)
{
    opmap_ctx *ctx;
    opmap_allocator al = { 0, 0, 0, 0 };
    om_err_clear(err);
    if (!out)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_ctx_new: out is NULL");
    *out = NULL;
    if (opts) {
        int set = (opts->allocator.malloc_fn != NULL) + (opts->allocator.realloc_fn != NULL) +
                  (opts->allocator.free_fn != NULL);
        if (opts->version != 1 && opts->version != OPMAP_CTX_OPTIONS_VERSION)
            return om_fail(err, OPMAP_EINVAL, NULL,
                           "opmap_ctx_new: options version %u, this library knows %u",
                           opts->version, OPMAP_CTX_OPTIONS_VERSION);
        if (set != 0 && set != 3)
            return om_fail(err, OPMAP_EINVAL, NULL,
                           "opmap_ctx_new: set all three allocator functions or none");
        al = opts->allocator;
    }
    ctx = al.malloc_fn ? al.malloc_fn(al.opaque, sizeof(*ctx)) : malloc(sizeof(*ctx));
    if (!ctx)
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    memset(ctx, 0, sizeof(*ctx));
    ctx->al = al;
    if (opts && opts->version == 1)
        limits_v1(&ctx->limits, &opts->limits);
    else if (opts)
        ctx->limits = opts->limits;
    fill_defaults(&ctx->limits);
    *out = ctx;
    return OPMAP_OK;
}

void opmap_ctx_free(opmap_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->al.free_fn)
        ctx->al.free_fn(ctx->al.opaque, ctx);
    else
        free(ctx);
}

const opmap_limits *opmap_ctx_limits(const opmap_ctx *ctx)
{
    return &ctx->limits;
}

void *om_ctx_calloc(opmap_ctx *ctx, size_t size)
{
    void *p = ctx->al.malloc_fn ? ctx->al.malloc_fn(ctx->al.opaque, size) : malloc(size);
    if (p)
        memset(p, 0, size);
    return p;
}

void om_ctx_release(opmap_ctx *ctx, void *p)
{
    if (!p)
        return;
    if (ctx->al.free_fn)
        ctx->al.free_fn(ctx->al.opaque, p);
    else
        free(p);
}

void opmap_free(opmap_ctx *ctx, void *ptr)
{
    if (ctx)
        om_ctx_release(ctx, ptr);
}

unsigned opmap_version_number(void)
{
    return OPMAP_VERSION_NUMBER;
}

unsigned opmap_abi_version(void)
{
    return OPMAP_ABI_VERSION;
}

#define STR2(x) #x
#define STR(x) STR2(x)

const char *opmap_version_string(void)
{
    return STR(OPMAP_VERSION_MAJOR) "." STR(OPMAP_VERSION_MINOR) "." STR(OPMAP_VERSION_PATCH);
}
