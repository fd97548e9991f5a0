/*
 * readers/torchscript/container/debug_pkl.h - the pickles of a TorchScript archive, read as data.
 *
 * `code/X.py.debug_pkl` maps byte ranges of `code/X.py` to ranges of the original Python
 * source; ts_debug_read turns it into (byte offset -> file, line) records. The reader
 * interprets pickle opcodes into plain values (ints, strings, tuples, lists) and never
 * calls anything: the only global it understands is torch.jit._pickle.build_intlist and
 * friends, whose argument it returns as is. Stack, memo and nesting are bounded.
 */
#ifndef OM_TS_CONTAINER_DEBUG_PKL_H
#define OM_TS_CONTAINER_DEBUG_PKL_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/context.h"

typedef struct ts_dbg_rec {
    uint64_t off;          /* first byte of the code range this record covers */
    const char *file;      /* original file (model arena, interned), NULL: generated code */
    uint32_t line;         /* 1-based line in that file */
} ts_dbg_rec;

typedef struct ts_dbg {
    ts_dbg_rec *recs;      /* sorted by off, in the scratch arena */
    size_t n;
} ts_dbg;

/* Reads a .debug_pkl entry (`entry` names it in errors). */
int ts_debug_read(ts_ctx *c, const char *entry, const unsigned char *data, size_t len,
                  ts_dbg *out);

/* The source of code byte `off`: 1 and file/line when a record maps it, else 0. */
int ts_dbg_find(const ts_dbg *d, uint64_t off, const char **file, uint32_t *line);

#endif /* OM_TS_CONTAINER_DEBUG_PKL_H */
