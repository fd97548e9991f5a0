/*
 * tests/support/zip_build.h - write zip archives in memory, for tests of the TorchScript
 * reader.
 *
 * Entries are stored or raw-deflated (zlib); every size, offset and count the archive
 * declares can be patched afterwards through the offsets zb_build reports, so tests can
 * make hostile archives (lying sizes, overlapping entries, impossible counts) from valid
 * ones.
 */
#ifndef OPMAP_TEST_ZIP_BUILD_H
#define OPMAP_TEST_ZIP_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct zb_entry {
    const char *name;
    const void *data;
    size_t len;
    int deflate;          /* 1: raw deflate (method 8), 0: stored */
} zb_entry;

typedef struct zb_zip {
    unsigned char *buf;   /* malloc'ed; free with zb_free */
    size_t len;
    size_t n;
    size_t *local_off;    /* per entry: offset of its local header */
    size_t *cd_off;       /* per entry: offset of its central directory record */
    size_t eocd_off;      /* offset of the end of central directory record */
} zb_zip;

/* Builds a zip of n entries; 0 on success. */
int zb_build(const zb_entry *entries, size_t n, zb_zip *out);
void zb_free(zb_zip *z);

/* Little-endian patching helpers. */
void zb_put16(unsigned char *p, uint32_t v);
void zb_put32(unsigned char *p, uint32_t v);

/* Convenience: an archive "archive/<name>" of NUL-terminated texts (name, text, name, ...,
 * NULL), stored, plus archive/version. */
int zb_archive(zb_zip *out, ...);

#endif /* OPMAP_TEST_ZIP_BUILD_H */
