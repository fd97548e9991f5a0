/*
 * tests/support/zip_build.c - zip archives in memory for tests (see zip_build.h).
 */
#include "zip_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void zb_put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

void zb_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static int grow(zb_zip *z, size_t *cap, size_t need)
{
    unsigned char *nb;
    size_t ncap = *cap ? *cap : 4096;
    if (z->len + need <= *cap)
        return 0;
    while (ncap < z->len + need)
        ncap *= 2;
    if (!(nb = realloc(z->buf, ncap)))
        return -1;
    z->buf = nb;
    *cap = ncap;
    return 0;
}

static int raw_deflate(const void *in, size_t len, unsigned char **out, size_t *olen)
{
    z_stream s;
    size_t cap = compressBound((uLong)len) + 64;
    memset(&s, 0, sizeof(s));
    if (!(*out = malloc(cap)))
        return -1;
    if (deflateInit2(&s, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(*out);
        return -1;
    }
    s.next_in = (Bytef *)in;
    s.avail_in = (uInt)len;
    s.next_out = *out;
    s.avail_out = (uInt)cap;
    if (deflate(&s, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&s);
        free(*out);
        return -1;
    }
    *olen = cap - s.avail_out;
    deflateEnd(&s);
    return 0;
}

int zb_build(const zb_entry *e, size_t n, zb_zip *z)
{
    size_t cap = 0, i, cd_start;
    unsigned char **comp;
    size_t *clen;
    memset(z, 0, sizeof(*z));
    z->n = n;
    z->local_off = calloc(n ? n : 1, sizeof(size_t));
    z->cd_off = calloc(n ? n : 1, sizeof(size_t));
    comp = calloc(n ? n : 1, sizeof(*comp));
    clen = calloc(n ? n : 1, sizeof(*clen));
    if (!z->local_off || !z->cd_off || !comp || !clen)
        return -1;
    for (i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name);
        const unsigned char *data = e[i].data;
        size_t dl = e[i].len;
        if (e[i].deflate) {
            if (raw_deflate(e[i].data, e[i].len, &comp[i], &clen[i]))
                return -1;
            data = comp[i];
            dl = clen[i];
        } else {
            clen[i] = dl;
        }
        if (grow(z, &cap, 30 + nl + dl))
            return -1;
        z->local_off[i] = z->len;
        memset(z->buf + z->len, 0, 30);
        zb_put32(z->buf + z->len, 0x04034b50u);
        zb_put16(z->buf + z->len + 4, 20);
        zb_put16(z->buf + z->len + 8, e[i].deflate ? 8 : 0);
        zb_put32(z->buf + z->len + 14, (uint32_t)crc32(0, e[i].data, (uInt)e[i].len));
        zb_put32(z->buf + z->len + 18, (uint32_t)dl);
        zb_put32(z->buf + z->len + 22, (uint32_t)e[i].len);
        zb_put16(z->buf + z->len + 26, (uint32_t)nl);
        memcpy(z->buf + z->len + 30, e[i].name, nl);
        if (dl)
            memcpy(z->buf + z->len + 30 + nl, data, dl);
        z->len += 30 + nl + dl;
    }
    cd_start = z->len;
    for (i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name);
        unsigned char *p;
        if (grow(z, &cap, 46 + nl))
            return -1;
        p = z->buf + z->len;
        z->cd_off[i] = z->len;
        memset(p, 0, 46);
        zb_put32(p, 0x02014b50u);
        zb_put16(p + 4, 20);
        zb_put16(p + 6, 20);
        zb_put16(p + 10, e[i].deflate ? 8 : 0);
        zb_put32(p + 16, (uint32_t)crc32(0, e[i].data, (uInt)e[i].len));
        zb_put32(p + 20, (uint32_t)clen[i]);
        zb_put32(p + 24, (uint32_t)e[i].len);
        zb_put16(p + 28, (uint32_t)nl);
        zb_put32(p + 42, (uint32_t)z->local_off[i]);
        memcpy(p + 46, e[i].name, nl);
        z->len += 46 + nl;
    }
    if (grow(z, &cap, 22))
        return -1;
    z->eocd_off = z->len;
    memset(z->buf + z->len, 0, 22);
    zb_put32(z->buf + z->len, 0x06054b50u);
    zb_put16(z->buf + z->len + 8, (uint32_t)n);
    zb_put16(z->buf + z->len + 10, (uint32_t)n);
    zb_put32(z->buf + z->len + 12, (uint32_t)(z->len - cd_start));
    zb_put32(z->buf + z->len + 16, (uint32_t)cd_start);
    z->len += 22;
    for (i = 0; i < n; i++)
        free(comp[i]);
    free(comp);
    free(clen);
    return 0;
}

void zb_free(zb_zip *z)
{
    free(z->buf);
    free(z->local_off);
    free(z->cd_off);
    memset(z, 0, sizeof(*z));
}

int zb_archive(zb_zip *out, ...)
{
    zb_entry e[64];
    char names[64][256];
    size_t n = 0;
    const char *name;
    va_list ap;
    va_start(ap, out);
    while ((name = va_arg(ap, const char *)) != NULL && n < 63) {
        const char *text = va_arg(ap, const char *);
        snprintf(names[n], sizeof(names[n]), "archive/%s", name);
        e[n].name = names[n];
        e[n].data = text;
        e[n].len = strlen(text);
        e[n].deflate = n % 2; /* both methods, as torch writes them */
        n++;
    }
    va_end(ap);
    e[n].name = "archive/version";
    e[n].data = "3\n";
    e[n].len = 2;
    e[n].deflate = 0;
    n++;
    return zb_build(e, n, out);
}
