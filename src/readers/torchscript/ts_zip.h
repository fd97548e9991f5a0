/*
 * readers/torchscript/ts_zip.h - the archive's zip container, read from memory with libzip.
 *
 * Before libzip sees the bytes, the end records and the central directory are checked
 * against the file: entry counts, offsets and sizes must fit in the file, and entries must
 * not overlap (the usual zip-bomb trick). Entries are then inflated one at a time into
 * buffers sized from the central directory but capped, and a size the directory lies about
 * is an error. Nothing under a `data/` folder (tensor storages) is ever read.
 */
#ifndef OM_TS_ZIP_H
#define OM_TS_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "ts_ctx.h"

typedef struct ts_zip ts_zip;

/* Opens the zip in `data` (borrowed until ts_zip_close). */
int ts_zip_open(ts_zip **out, ts_ctx *c, const unsigned char *data, uint64_t size);
void ts_zip_close(ts_zip *z);

uint64_t ts_zip_count(const ts_zip *z);
/* Entry i's name (borrowed from libzip; valid until close), or NULL. */
const char *ts_zip_name(ts_zip *z, uint64_t i);
/* The index of the entry named `name`, or -1. */
int64_t ts_zip_find(ts_zip *z, const char *name);

/*
 * Reads entry i whole into a NUL-terminated buffer from the model's budget (free it with
 * ts_zip_free). Entries declaring more than `cap` bytes fail with OPMAP_ELIMIT; entries
 * under a `data/` folder are refused. With `prefix_only`, at most `cap` bytes are read and
 * a longer entry is not an error (used for the head of data.pkl).
 */
int ts_zip_read(ts_zip *z, uint64_t i, uint64_t cap, int prefix_only, unsigned char **buf,
                size_t *len);
void ts_zip_free(ts_zip *z, unsigned char *buf, size_t len);

#endif /* OM_TS_ZIP_H */
