/*
 * readers/zip/zip.h - the zip container of torch's archives (torch.jit.save, torch.export.save),
 * read from memory as torch reads it; shared by readers/torchscript and readers/export.
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
#ifndef OM_READERS_ZIP_H
#define OM_READERS_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"

struct om_mapped;

/* What a zip is read for: the budget, the file's view (om_need; NULL: all in memory), the
 * limits (max_zip_entries), where errors go and the model's name they start with. Errors
 * in an entry read "<src>:<entry>: ...", in the directory "<src>: offset N: ...". */
typedef struct omz_src {
    om_mem *mem;
    struct om_mapped *input;
    const opmap_limits *lim;
    opmap_error *err;
    const char *src;
} omz_src;

typedef struct omz_zip omz_zip;

/* Opens the zip in `data` (borrowed until omz_close); `src` is copied. */
int omz_open(omz_zip **out, const omz_src *src, const unsigned char *data, uint64_t size);
void omz_close(omz_zip *z);

uint64_t omz_count(const omz_zip *z);
/* Entry i's name (NUL-terminated; names never hold a NUL), valid until close. */
const char *omz_name(const omz_zip *z, uint64_t i);
/* The entry named `name`, ASCII case ignored as torch's lookup does, or -1. */
int64_t omz_find(const omz_zip *z, const char *name);

/*
 * Reads entry i whole into a NUL-terminated buffer from the model's budget (free it with
 * omz_free). Entries declaring more than `cap` bytes fail with OPMAP_ELIMIT; entries
 * under a `data/` folder are refused. With `prefix_only`, at most `cap` bytes are read and
 * a longer entry is not an error (used for the version entry).
 */
int omz_read(omz_zip *z, uint64_t i, uint64_t cap, int prefix_only, unsigned char **buf,
                 size_t *len);
void omz_free(omz_zip *z, unsigned char *buf, size_t len);

#endif /* OM_READERS_ZIP_H */
