/*
 * api/ctx_internal.h - the context behind opmap_ctx, for the other api/ files.
 */
#ifndef OM_CTX_INTERNAL_H
#define OM_CTX_INTERNAL_H

#include <opmap/context.h>

struct opmap_ctx {
    opmap_allocator al;
    opmap_limits limits;
};

/* Allocates `size` zeroed bytes from the context's allocator (objects' own structs). */
void *om_ctx_calloc(opmap_ctx *ctx, size_t size);
void om_ctx_release(opmap_ctx *ctx, void *p);

#endif /* OM_CTX_INTERNAL_H */
