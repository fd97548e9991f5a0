/*
 * readers/zip/zip_internal.h - what zip_directory.c (the directory)
 * hands zip_entry.c (entries).
 */
#ifndef OM_READERS_ZIP_INTERNAL_H
#define OM_READERS_ZIP_INTERNAL_H

#include "readers/zip/zip.h"

typedef struct omz_entry {
    const char *name;      /* a NUL-terminated copy, in omz_zip.names */
    uint32_t nlen;
    uint16_t method, flags;
    uint32_t ext_attr;
    uint64_t comp, usize;  /* zip64 extra fields applied */
    uint64_t data;         /* first byte of the data: after the local header, its name, extra */
} omz_entry;

/* An entry in name order (ASCII case ignored, shorter first on a common prefix: miniz's). */
typedef struct omz_key {
    const char *name;
    uint32_t nlen, idx;
} omz_key;

struct omz_zip {
    omz_src *c;                  /* &src */
    omz_src src;
    const unsigned char *d;
    uint64_t size;
    uint64_t n;
    omz_entry *e;            /* n entries in directory order */
    omz_key *keys;         /* n entries in name order */
    char *names;
    size_t names_len;
};

int omz_key_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* Out of memory or over budget; an error in entry `entry` (NULL: the file itself). */
int omz_oom(const omz_src *c);
int omz_fail(const omz_src *c, int code, const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* OM_READERS_ZIP_INTERNAL_H */
