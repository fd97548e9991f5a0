/*
 * readers/torchscript/container/zip_internal.h - what container/zip_directory.c (the directory)
 * hands container/zip_entry.c (entries).
 */
#ifndef OM_TS_CONTAINER_ZIP_INTERNAL_H
#define OM_TS_CONTAINER_ZIP_INTERNAL_H

#include "zip.h"

typedef struct tsc_zip_entry {
    const char *name;      /* a NUL-terminated copy, in tsc_zip.names */
    uint32_t nlen;
    uint16_t method, flags;
    uint32_t ext_attr;
    uint64_t comp, usize;  /* zip64 extra fields applied */
    uint64_t data;         /* first byte of the data: after the local header, its name, extra */
} tsc_zip_entry;

/* An entry in name order (ASCII case ignored, shorter first on a common prefix: miniz's). */
typedef struct tsc_zip_key {
    const char *name;
    uint32_t nlen, idx;
} tsc_zip_key;

struct tsc_zip {
    ts_ctx *c;
    const unsigned char *d;
    uint64_t size;
    uint64_t n;
    tsc_zip_entry *e;            /* n entries in directory order */
    tsc_zip_key *keys;         /* n entries in name order */
    char *names;
    size_t names_len;
};

int tsc_zip_key_cmp(const char *a, size_t alen, const char *b, size_t blen);

#endif /* OM_TS_CONTAINER_ZIP_INTERNAL_H */
