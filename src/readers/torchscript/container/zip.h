/*
 * readers/torchscript/container/zip.h - the archive's zip container, read from memory as torch
 * reads it.
 *
 * torch.jit.load reads archives with miniz (caffe2 PyTorchStreamReader); opmap reads the
 * directory the same way or refuses (docs/torchscript.md, "Reading the archive as
 * torch.jit.load does"): the end record is the last "PK\5\6" with 22 bytes after it in the
 * file's last 69,584 bytes (the blocks miniz searches), its comment length not looked at;
 * a zip64 locator just before it, pointing at a zip64 end record, makes that record's
 * counts, sizes and offsets the ones used (torch writes one in every archive); zip64 extra
 * fields give entries' sizes and offsets. opmap also refuses what torch would read
 * ambiguously or what could cost more than the file: entry names equal but for ASCII case
 * (torch's lookup ignores case and then hits either), overlapping entries, a directory
 * outside the file, counts that do not fit it. Entries are inflated (zlib) one at a time
 * into buffers sized from the directory but capped; nothing under a `data/` folder (tensor
 * storages) is ever read.
 */
#ifndef OM_TS_CONTAINER_ZIP_H
#define OM_TS_CONTAINER_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/common/context.h"

typedef struct tsc_zip tsc_zip;

/* Opens the zip in `data` (borrowed until tsc_zip_close). */
int tsc_zip_open(tsc_zip **out, ts_ctx *c, const unsigned char *data, uint64_t size);
void tsc_zip_close(tsc_zip *z);

uint64_t tsc_zip_count(const tsc_zip *z);
/* Entry i's name (NUL-terminated; names never hold a NUL), valid until close. */
const char *tsc_zip_name(const tsc_zip *z, uint64_t i);
/* The entry named `name`, ASCII case ignored as torch's lookup does, or -1. */
int64_t tsc_zip_find(const tsc_zip *z, const char *name);

/*
 * Reads entry i whole into a NUL-terminated buffer from the model's budget (free it with
 * tsc_zip_free). Entries declaring more than `cap` bytes fail with OPMAP_ELIMIT; entries
 * under a `data/` folder are refused. With `prefix_only`, at most `cap` bytes are read and
 * a longer entry is not an error (used for the version entry).
 */
int tsc_zip_read(tsc_zip *z, uint64_t i, uint64_t cap, int prefix_only, unsigned char **buf,
                 size_t *len);
void tsc_zip_free(tsc_zip *z, unsigned char *buf, size_t len);

#endif /* OM_TS_CONTAINER_ZIP_H */
