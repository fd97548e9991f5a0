/*
 * tests/fuzz/fuzz_zip.h - a minimal zip writer (stored entries, CRC-32), so the harnesses
 * of the TorchScript code text and pickles can hand fuzzed bytes to the public API inside
 * a well-formed archive: mutations then land in the code or the pickle, not in the zip
 * records around them (fuzz_ts_archive.c fuzzes those).
 */
#ifndef OPMAP_FUZZ_ZIP_H
#define OPMAP_FUZZ_ZIP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fz_zip {
    unsigned char *data;
    size_t len, cap;
    unsigned char cd[4096];   /* central directory records */
    size_t cd_len;
    unsigned n;
    int failed;
} fz_zip;

static uint32_t fz_crc32(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void fz_zip_put(fz_zip *z, const void *p, size_t n)
{
    if (z->failed)
        return;
    if (z->len + n > z->cap) {
        size_t cap = z->cap ? z->cap : 4096;
        unsigned char *nd;
        while (cap < z->len + n)
            cap *= 2;
        if (!(nd = realloc(z->data, cap))) {
            z->failed = 1;
            return;
        }
        z->data = nd;
        z->cap = cap;
    }
    memcpy(z->data + z->len, p, n);
    z->len += n;
}

static void fz_le(unsigned char *b, uint32_t v, int bytes)
{
    int i;
    for (i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* Adds a stored entry. */
static void fz_zip_add(fz_zip *z, const char *name, const unsigned char *data, size_t n)
{
    unsigned char h[30], c[46];
    size_t nl = strlen(name);
    uint32_t crc = fz_crc32(data, n), off = (uint32_t)z->len;
    if (n > 0xFFFFFFF0u || z->cd_len + sizeof(c) + nl > sizeof(z->cd)) {
        z->failed = 1;
        return;
    }
    memset(h, 0, sizeof(h));
    fz_le(h, 0x04034B50u, 4);
    fz_le(h + 4, 20, 2);
    fz_le(h + 14, crc, 4);
    fz_le(h + 18, (uint32_t)n, 4);
    fz_le(h + 22, (uint32_t)n, 4);
    fz_le(h + 26, (uint32_t)nl, 2);
    fz_zip_put(z, h, sizeof(h));
    fz_zip_put(z, name, nl);
    fz_zip_put(z, data, n);
    memset(c, 0, sizeof(c));
    fz_le(c, 0x02014B50u, 4);
    fz_le(c + 4, 20, 2);
    fz_le(c + 6, 20, 2);
    fz_le(c + 16, crc, 4);
    fz_le(c + 20, (uint32_t)n, 4);
    fz_le(c + 24, (uint32_t)n, 4);
    fz_le(c + 28, (uint32_t)nl, 2);
    fz_le(c + 42, off, 4);
    memcpy(z->cd + z->cd_len, c, sizeof(c));
    memcpy(z->cd + z->cd_len + sizeof(c), name, nl);
    z->cd_len += sizeof(c) + nl;
    z->n++;
}

/* Appends the central directory and the end record; returns 0 when the zip is complete. */
static int fz_zip_finish(fz_zip *z)
{
    unsigned char e[22];
    uint32_t cd_off = (uint32_t)z->len;
    fz_zip_put(z, z->cd, z->cd_len);
    memset(e, 0, sizeof(e));
    fz_le(e, 0x06054B50u, 4);
    fz_le(e + 8, z->n, 2);
    fz_le(e + 10, z->n, 2);
    fz_le(e + 12, (uint32_t)z->cd_len, 4);
    fz_le(e + 16, cd_off, 4);
    fz_zip_put(z, e, sizeof(e));
    return z->failed ? -1 : 0;
}

#endif /* OPMAP_FUZZ_ZIP_H */
