/*
 * readers/torchscript/container/debug_pkl.h - the .debug_pkl entries of a TorchScript
 * archive, read as data.
 *
 * `code/X.py.debug_pkl` maps byte ranges of `code/X.py` to ranges of the original Python
 * source; tsc_debug_read turns it into (byte offset -> file, line) records. It runs the
 * entry on the pickle machine of container/pickle.h, which never calls anything: the only
 * global it understands is torch.jit._pickle.build_intlist and friends, whose argument it
 * returns as is. Stack, memo and nesting are bounded.
 */
#ifndef OM_TS_CONTAINER_DEBUG_PKL_H
#define OM_TS_CONTAINER_DEBUG_PKL_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/common/context.h"

typedef struct tsc_debug_rec {
    uint64_t off;          /* first byte of the code range this record covers */
    const char *file;      /* original file (model arena, interned), NULL: generated code */
    uint32_t line;         /* 1-based line in that file */
} tsc_debug_rec;

typedef struct tsc_debug_map {
    tsc_debug_rec *recs;      /* sorted by off, in the scratch arena */
    size_t n;
} tsc_debug_map;

/* Reads a .debug_pkl entry (`entry` names it in errors). */
int tsc_debug_read(ts_ctx *c, const char *entry, const unsigned char *data, size_t len,
                   tsc_debug_map *out);

/* The source of code byte `off`: 1 and file/line when a record maps it, else 0. */
int tsc_debug_find(const tsc_debug_map *d, uint64_t off, const char **file, uint32_t *line);

#endif /* OM_TS_CONTAINER_DEBUG_PKL_H */
