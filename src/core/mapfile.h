/*
 * core/mapfile.h - an input file, read (never memory-mapped).
 *
 * A file mapping turns a truncation by another process into SIGBUS at the next touch of a
 * page past the new end, and a library may not install signal handlers. So files are read:
 * small ones, pipes and devices whole, into the heap; larger regular files (models) lazily,
 * into an anonymous region as large as the file, chunk by chunk as a reader asks for bytes
 * with om_need(), so weight payloads a reader steps over are never read, copied or
 * resident. Chunks read count against the om_mem budget. A read that comes up short (the
 * file shrank) leaves zeros and marks the view; om_map_check() then reports "file changed
 * while being read", whatever the reader made of the zeros.
 */
#ifndef OM_MAPFILE_H
#define OM_MAPFILE_H

#include <stdint.h>

#include <opmap/error.h>

#include "mem.h"

typedef struct om_mapped {
    const unsigned char *data;  /* NULL when size is 0 */
    uint64_t size;
    om_mem *mem;
    void *heap;                 /* a whole-file copy, or NULL */
    size_t heap_cap;            /* its allocated size */
    /* a lazy view (region != NULL) */
    unsigned char *region;      /* anonymous, `size` bytes; chunks filled by pread */
    int fd;                     /* open while the view is */
    unsigned shift;             /* chunks of 1 << shift bytes */
    uint64_t *loaded;           /* one bit per chunk read */
    size_t loaded_words;
    uint64_t resident;          /* bytes of the chunks read, drawn from `mem` */
    /* what went wrong while reading, reported by om_map_check() */
    int changed;                /* a read came up short or failed */
    int changed_errno;          /* the failed read's errno, or 0 for a short read */
    uint64_t changed_at;        /* where */
    int over_budget;            /* a chunk was not read: over mem's limit */
    int64_t mtime_sec, mtime_nsec;  /* at open, to see a file rewritten in place */
} om_mapped;

/* Default chunk size of a lazy view (16 KiB) and largest file read whole (256 KiB). */
#define OM_MAP_CHUNK_SHIFT 14
#define OM_MAP_SMALL_FILE (256u * 1024u)

/* A model file: whole when small or not a regular file, else a lazy view; files over
 * max_bytes fail with OPMAP_ELIMIT (naming max_file_bytes). */
int om_map_file(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                opmap_error *err);

/* The same with the view's chunk size and the whole-file threshold given (tests). */
int om_map_file_view(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                     uint64_t small_max, unsigned chunk_shift, opmap_error *err);

/* A file parsed in full (a table, waivers, weights), read whole; the limit named as given. */
int om_map_file_limit(om_mapped *out, om_mem *mem, const char *path, uint64_t max_bytes,
                      const char *limit_name, opmap_error *err);

void om_need_slow(om_mapped *m, uint64_t off, uint64_t len);

/*
 * Makes [off, off + len) of the input readable (clipped to its size). A reader calls it
 * before touching bytes it has not asked for yet; `m` NULL (an input in memory) or a
 * whole-file copy need nothing.
 */
static inline void om_need(om_mapped *m, uint64_t off, uint64_t len)
{
    uint64_t c;
    if (!m || !m->region || !len || off >= m->size)
        return;
    if (len > m->size - off)
        len = m->size - off;
    c = off >> m->shift;
    if ((off + len - 1) >> m->shift == c && (m->loaded[c >> 6] >> (c & 63) & 1))
        return;
    om_need_slow(m, off, len);
}

/* After a read: OPMAP_EIO "file changed while being read" when a read came up short or the
 * file's size or modification time moved since it was opened, OPMAP_ELIMIT when a chunk
 * was over the budget, else OPMAP_OK. */
int om_map_check(om_mapped *m, const char *path, opmap_error *err);

void om_unmap(om_mapped *m);

#endif /* OM_MAPFILE_H */
