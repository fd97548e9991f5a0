/*
 * core/mapfile.h - read-only view of an input file.
 *
 * Regular files are memory-mapped: readers touch only the structural bytes, so weight
 * payloads they step over are never read from disk or counted in the heap. Small files
 * (a few hundred KB) and other files (pipes, character devices) are read into the heap,
 * up to the limit.
 */
#ifndef OM_MAPFILE_H
#define OM_MAPFILE_H

#include <stdint.h>

#include <opmap/error.h>

#include "mem.h"

typedef struct om_mapped {
    const unsigned char *data;  /* NULL when size is 0 */
    uint64_t size;
    void *map_base;             /* mmap'ed region, or NULL */
    void *heap;                 /* heap copy, or NULL */
    size_t heap_cap;            /* its allocated size */
    om_mem *mem;
} om_mapped;

/* Maps `path`; files over max_bytes fail with OPMAP_ELIMIT (naming max_file_bytes). */
int om_map_file(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                opmap_error *err);

/* The same, for a file whose limit has another name (e.g. "max_table_bytes"). */
int om_map_file_limit(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                      const char *limit_name, opmap_error *err);

void om_unmap(om_mapped *m);

#endif /* OM_MAPFILE_H */
