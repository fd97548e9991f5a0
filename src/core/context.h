/*
 * core/context.h - the context behind opmap_ctx: allocator and limits, for every stage.
 */
#ifndef OM_CORE_CONTEXT_H
#define OM_CORE_CONTEXT_H

#include <opmap/context.h>

struct opmap_ctx {
    opmap_allocator al;
    opmap_limits limits;
};

/* Allocates `size` zeroed bytes from the context's allocator (objects' own structs). */
void *om_ctx_calloc(opmap_ctx *ctx, size_t size);
void om_ctx_release(opmap_ctx *ctx, void *p);

#endif /* OM_CORE_CONTEXT_H */
