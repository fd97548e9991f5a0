/*
 * opmap/context.h - the context: allocator and limits every other object is made under.
 *
 * A context holds no mutable state after creation, so one context may be shared by
 * threads as long as its allocator is thread-safe (the default, malloc, is). The library
 * has no global state: two contexts never affect each other.
 */
#ifndef OPMAP_CONTEXT_H
#define OPMAP_CONTEXT_H

#include "common.h"
#include "error.h"

OPMAP_BEGIN_DECL

/** An opaque context; create with opmap_ctx_new(), release with opmap_ctx_free(). */
typedef struct opmap_ctx opmap_ctx;

/**
 * A custom allocator. All three functions must be set, or all NULL for malloc/realloc/free.
 * `opaque` is passed back to each call.
 */
typedef struct opmap_allocator {
    void *(*malloc_fn)(void *opaque, size_t size);
    void *(*realloc_fn)(void *opaque, void *ptr, size_t size);
    void (*free_fn)(void *opaque, void *ptr);
    void *opaque;
} opmap_allocator;

/**
 * Limits on untrusted input. Zero in any field means "the default" (docs/limits.md lists
 * them). Exceeding one ends the call with OPMAP_ELIMIT and a message naming the limit.
 */
typedef struct opmap_limits {
    uint64_t max_file_bytes;     /**< largest model file read (default 1 TiB: models are mapped, not read) */
    uint64_t max_heap_bytes;     /**< heap one model, table or result may use (default 1 GiB) */
    uint64_t max_nodes;          /**< nodes in one model, all graphs together (default 10,000,000) */
    uint32_t max_depth;          /**< nesting of subgraphs and function calls (default 64;
                                      held to at most 4096, as the readers recurse per level:
                                      a thread scanning with a large value needs the stack) */
    uint32_t max_string_bytes;   /**< one name or string attribute (default 1 MiB) */
    uint64_t max_table_bytes;    /**< largest table file (default 64 MiB) */
    uint32_t max_yaml_depth;     /**< nesting in a YAML table (default 32) */
    /* the fields below came with OPMAP_CTX_OPTIONS_VERSION 2 */
    uint32_t max_pickle_depth;   /**< MARK nesting in a TorchScript pickle (default 64) */
    uint64_t max_expansions;     /**< subgraphs entered and function calls expanded in one
                                      scan (default 10,000,000) */
    uint64_t max_zip_entries;    /**< entries in a TorchScript archive (default 100,000) */
    uint64_t max_entry_bytes;    /**< uncompressed size of one archive entry opmap reads
                                      (default 64 MiB; tensor data is never read) */
    uint64_t max_yaml_nodes;     /**< YAML nodes in a table, waiver or weights file
                                      (default 10,000,000) */
} opmap_limits;

/** The current layout of opmap_ctx_options: 2 added the limits from max_pickle_depth on;
 *  the library still takes 1 (docs/limits.md). */
#define OPMAP_CTX_OPTIONS_VERSION 2

/** Options for opmap_ctx_new(); initialise with OPMAP_CTX_OPTIONS_INIT. */
typedef struct opmap_ctx_options {
    unsigned version;            /**< OPMAP_CTX_OPTIONS_VERSION */
    opmap_allocator allocator;   /**< all NULL: the C library's malloc */
    opmap_limits limits;         /**< zero fields: defaults */
} opmap_ctx_options;

/** Initialiser of an opmap_ctx_options: the current version, malloc, default limits. */
#define OPMAP_CTX_OPTIONS_INIT { OPMAP_CTX_OPTIONS_VERSION, { 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } }

/**
 * Creates a context.
 *
 * @param[out] out   receives the context; the caller owns it (opmap_ctx_free).
 * @param opts       options, or NULL for all defaults.
 * @return OPMAP_OK, OPMAP_EINVAL (unknown options version, half-set allocator), OPMAP_ENOMEM.
 */
OPMAP_API int opmap_ctx_new(opmap_ctx **out, const opmap_ctx_options *opts, opmap_error *err);

/** Releases a context; NULL is a no-op. Objects made under it must be freed first. */
OPMAP_API void opmap_ctx_free(opmap_ctx *ctx);

/** @return the effective limits (defaults filled in); borrowed from ctx. */
OPMAP_API const opmap_limits *opmap_ctx_limits(const opmap_ctx *ctx);

/**
 * Frees memory the library allocated for the caller (e.g. opmap_report_write_memory()).
 * Uses the context's allocator; never pass such memory to free().
 */
OPMAP_API void opmap_free(opmap_ctx *ctx, void *ptr);

OPMAP_END_DECL

#endif /* OPMAP_CONTEXT_H */
