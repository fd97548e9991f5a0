/*
 * readers/zip/zip_directory.c - a zip's end records and central directory, read
 * as torch's miniz reads them (see zip.h), with the checks that keep a hostile directory
 * from costing more than the file: counts that fit the directory, entries inside the file and
 * apart, names unique. Every loop is bounded by the file: the end-record search by miniz's window
 * (69,584 bytes), the directory walk by its entry count (itself at most size / 46). A file's bytes
 * are asked for (om_need) before they are read: the end records, the directory, each local header;
 * the entries' data when one is read (zip_entry.c).
 */
#include "readers/zip/zip_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/mapfile.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_Z64_EOCD 0x06064b50u
#define SIG_Z64_LOC 0x07064b50u
#define U32_MAX 0xFFFFFFFFu

typedef struct span {
    uint64_t start, end;
} span;

static uint32_t rd16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static int bad(omz_zip *z, uint64_t off, const char *what)
{
    return om_fail_at(z->c->err, OPMAP_EFORMAT, z->c->src, off, "malformed zip archive: %s",
                      what);
}

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static unsigned char lower(unsigned char ch)
{
    return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch - 'A' + 'a') : ch;
}

int omz_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i, n = alen < blen ? alen : blen;
    for (i = 0; i < n; i++) {
        unsigned char x = lower((unsigned char)a[i]), y = lower((unsigned char)b[i]);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return alen < blen ? -1 : alen > blen;
}

static int cmp_key(const void *a, const void *b)
{
    const omz_key *x = a, *y = b;
    return omz_key_cmp(x->name, x->nlen, y->name, y->nlen);
}

/* The directory's place and size, from the end record and its zip64 record (miniz's rules). */
typedef struct dir_loc {
    uint64_t n, size, off;
    uint64_t end;          /* the directory must end before this: the first end record */
    uint32_t disk;         /* this disk's number, which entries must start on (or 1) */
    uint64_t eocd;
} dir_loc;

static int find_dir(omz_zip *z, dir_loc *dl)
{
    const unsigned char *d = z->d;
    uint64_t size = z->size, lo, pos, eocd = UINT64_MAX, on_disk, cd_disk;
    if (size < 22)
        return bad(z, 0, "too short for an end of central directory record");
    /* the last signature with a whole record after it, its comment length unchecked, in
     * the bytes miniz searches: 4 KiB blocks back from the end until one starts 65,557
     * bytes or more from it (17 blocks, overlapping by 3: the last 69,584 bytes) */
    lo = size > 69584 ? size - 69584 : 0;
    om_need(z->c->input, lo, size - lo);
    for (pos = size - 22 + 1; pos-- > lo;)
        if (rd32(d + pos) == SIG_EOCD) {
            eocd = pos;
            break;
        }
    if (eocd == UINT64_MAX)
        return bad(z, size, "no end of central directory record (truncated file?)");
    dl->eocd = eocd;
    dl->n = rd16(d + eocd + 10);
    on_disk = rd16(d + eocd + 8);
    dl->disk = rd16(d + eocd + 4);
    cd_disk = rd16(d + eocd + 6);
    dl->size = rd32(d + eocd + 12);
    dl->off = rd32(d + eocd + 16);
    dl->end = eocd;
    if (eocd >= 20 + 56)
        om_need(z->c->input, eocd - 20, 20);
    if (eocd >= 20 + 56 && rd32(d + eocd - 20) == SIG_Z64_LOC) {
        uint64_t loc = eocd - 20, z64 = rd64(d + loc + 8);
        dl->end = loc;
        if (z64 > size - 56)
            return bad(z, loc, "zip64 locator points past the end of the file");
        om_need(z->c->input, z64, 56);
        if (rd32(d + z64) == SIG_Z64_EOCD) {
            /* torch takes every count, size and offset from here, markers or not */
            if (rd64(d + z64 + 4) < 44)
                return bad(z, z64, "zip64 end record too short");
            if (rd32(d + loc + 16) != 1)
                return bad(z, loc, "a multi-disk archive (zip64 locator)");
            dl->n = rd64(d + z64 + 32);
            on_disk = rd64(d + z64 + 24);
            dl->size = rd64(d + z64 + 40);
            if (dl->n > U32_MAX || on_disk > U32_MAX || dl->size > U32_MAX)
                return bad(z, z64, "zip64 directory over 2^32 entries or bytes");
            dl->disk = rd32(d + z64 + 16);
            cd_disk = rd32(d + z64 + 20);
            dl->off = rd64(d + z64 + 48);
            if (z64 < dl->end)
                dl->end = z64;
        }
    }
    if (dl->n != on_disk || ((dl->disk | cd_disk) != 0 && (dl->disk != 1 || cd_disk != 1)))
        return bad(z, eocd, "a multi-disk archive");
    if (dl->off > dl->end || dl->size > dl->end - dl->off)
        return bad(z, eocd, "central directory lies outside the file (truncated file?)");
    if (dl->n > dl->size / 46)
        return om_fail_at(z->c->err, OPMAP_EFORMAT, z->c->src, eocd,
                          "malformed zip archive: %" PRIu64 " entries declared in a %" PRIu64
                          "-byte central directory", dl->n, dl->size);
    if (dl->n > z->c->lim->max_zip_entries)
        return om_fail_at(z->c->err, OPMAP_ELIMIT, z->c->src, eocd,
                          "zip archive has %" PRIu64 " entries, over max_zip_entries (%" PRIu64
                          ")", dl->n, z->c->lim->max_zip_entries);
    return OPMAP_OK;
}

/* The zip64 extra field of a directory record: the 0xFFFFFFFF fields, in miniz's order. */
static int zip64_extra(const unsigned char *ex, uint32_t elen, uint64_t *usize, uint64_t *comp,
                       uint64_t *lho)
{
    uint32_t pos = 0;
    while (pos < elen) {
        uint32_t id, len, q, end;
        if (elen - pos < 4)
            return 0;
        id = rd16(ex + pos);
        len = rd16(ex + pos + 2);
        if (len > elen - pos - 4)
            return 0;
        q = pos + 4;
        end = q + len;
        if (id == 1) {
            uint64_t *f[3];
            int k;
            f[0] = usize;
            f[1] = comp;
            f[2] = lho;
            for (k = 0; k < 3; k++) {
                if (*f[k] != U32_MAX)
                    continue;
                if (end - q < 8)
                    return 0;
                *f[k] = rd64(ex + q);
                q += 8;
            }
            return 1;
        }
        pos = end;
    }
    return 1;
}

/* The directory record at p -> e, its name into name_out, its extent; *next: the record after. */
static int read_entry(omz_zip *z, const dir_loc *dl, uint64_t p, omz_entry *e, span *sp,
                      char *name_out, uint64_t *next)
{
    const unsigned char *d = z->d;
    uint64_t cd_end = dl->off + dl->size, lho, lh_end;
    uint32_t nlen, elen, clen, disk;
    if (cd_end - p < 46 || rd32(d + p) != SIG_CENTRAL)
        return bad(z, p, "bad central directory entry");
    e->flags = (uint16_t)rd16(d + p + 8);
    e->method = (uint16_t)rd16(d + p + 10);
    e->comp = rd32(d + p + 20);
    e->usize = rd32(d + p + 24);
    nlen = rd16(d + p + 28);
    elen = rd16(d + p + 30);
    clen = rd16(d + p + 32);
    disk = rd16(d + p + 34);
    e->ext_attr = rd32(d + p + 38);
    lho = rd32(d + p + 42);
    if (cd_end - p - 46 < (uint64_t)nlen + elen + clen)
        return bad(z, p, "central directory entry runs past the directory");
    if (disk == 0xFFFF || (disk != dl->disk && disk != 1))
        return bad(z, p, "an entry on another disk (multi-disk archive)");
    if (e->flags & 0x2000)
        return bad(z, p, "masked local headers (an encrypted directory)");
    if (memchr(d + p + 46, 0, nlen))
        return bad(z, p, "a NUL byte in an entry name");
    if ((e->comp == U32_MAX || e->usize == U32_MAX || lho == U32_MAX) &&
        !zip64_extra(d + p + 46 + nlen, elen, &e->usize, &e->comp, &lho))
        return bad(z, p, "bad zip64 extra field");
    if ((e->method == 0 && e->comp != e->usize) || (e->usize && !e->comp))
        return bad(z, p, "compressed and uncompressed sizes disagree");
    /* the local header, its name and extra field, then the data: all before the directory */
    if (lho <= dl->off && dl->off - lho >= 30)
        om_need(z->c->input, lho, 30);
    if (lho > dl->off || dl->off - lho < 30 || rd32(d + lho) != SIG_LOCAL)
        return bad(z, p, "entry has no local header (truncated file?)");
    lh_end = lho + 30 + rd16(d + lho + 26) + rd16(d + lho + 28);
    if (lh_end > dl->off || e->comp > dl->off - lh_end)
        return bad(z, p, "entry data lies outside the file (truncated file?)");
    e->data = lh_end;
    e->nlen = nlen;
    memcpy(name_out, d + p + 46, nlen);
    name_out[nlen] = 0;
    e->name = name_out;
    sp->start = lho;
    sp->end = lh_end + e->comp;
    *next = p + 46 + (uint64_t)nlen + elen + clen;
    return OPMAP_OK;
}

/* Every entry read; none overlaps another (one stream read as many: the zip-bomb trick). */
static int read_dir(omz_zip *z, const dir_loc *dl)
{
    omz_src *c = z->c;
    uint64_t i, p = dl->off;
    span *spans;
    char *name;
    int rc = OPMAP_OK;
    if (!dl->n)
        return OPMAP_OK;
    om_need(c->input, dl->off, dl->size);
    /* names: at most the directory's bytes, plus a NUL each */
    z->n = dl->n;
    z->names_len = (size_t)dl->size + (size_t)dl->n;
    if (!(z->names = om_alloc(c->mem, z->names_len)) ||
        !(z->e = om_calloc(c->mem, (size_t)dl->n, sizeof(*z->e))) ||
        !(z->keys = om_calloc(c->mem, (size_t)dl->n, sizeof(*z->keys))))
        return omz_oom(c);
    if (!(spans = om_calloc(c->mem, (size_t)dl->n, sizeof(*spans))))
        return omz_oom(c);
    name = z->names;
    for (i = 0; i < dl->n && rc == OPMAP_OK; i++) {
        rc = read_entry(z, dl, p, &z->e[i], &spans[i], name, &p);
        if (rc == OPMAP_OK) {
            z->keys[i].name = z->e[i].name;
            z->keys[i].nlen = z->e[i].nlen;
            z->keys[i].idx = (uint32_t)i;
            name += z->e[i].nlen + 1;
        }
    }
    if (rc == OPMAP_OK) {
        qsort(spans, (size_t)dl->n, sizeof(*spans), cmp_span);
        for (i = 1; i < dl->n; i++)
            if (spans[i].start < spans[i - 1].end) {
                rc = bad(z, spans[i].start, "entries overlap (one data stream used twice)");
                break;
            }
    }
    om_dealloc(c->mem, spans, (size_t)dl->n * sizeof(*spans));
    if (rc != OPMAP_OK)
        return rc;
    /* torch finds entries by a case-blind binary search: two names it cannot tell apart are
     * read as whichever the search hits, so they are refused */
    qsort(z->keys, (size_t)dl->n, sizeof(*z->keys), cmp_key);
    for (i = 1; i < dl->n; i++)
        if (cmp_key(&z->keys[i - 1], &z->keys[i]) == 0)
            return omz_fail(c, OPMAP_EFORMAT, z->keys[i].name,
                           "malformed zip archive: two entries named '%s'%s (torch would "
                           "read either)", z->keys[i - 1].name,
                           strcmp(z->keys[i - 1].name, z->keys[i].name) ? " but for case" : "");
    return OPMAP_OK;
}

int omz_oom(const omz_src *c)
{
    return om_fail_mem(c->err, c->mem, c->src);
}

int omz_fail(const omz_src *c, int code, const char *entry, const char *fmt, ...)
{
    char msg[512], source[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    om_source_name(source, sizeof(source), c->src, entry);
    return om_fail(c->err, code, source, "%s", msg);
}

int omz_open(omz_zip **out, const omz_src *src, const unsigned char *data, uint64_t size)
{
    omz_zip *z;
    dir_loc dl;
    int rc;
    *out = NULL;
    memset(&dl, 0, sizeof(dl));
    if (!(z = om_calloc(src->mem, 1, sizeof(*z))))
        return omz_oom(src);
    z->src = *src;
    z->c = &z->src;
    z->d = data;
    z->size = size;
    if ((rc = find_dir(z, &dl)) == OPMAP_OK)
        rc = read_dir(z, &dl);
    if (rc != OPMAP_OK) {
        omz_close(z);
        return rc;
    }
    *out = z;
    return OPMAP_OK;
}

void omz_close(omz_zip *z)
{
    om_mem *m;
    if (!z)
        return;
    m = z->c->mem;
    if (z->names)
        om_dealloc(m, z->names, z->names_len);
    if (z->e)
        om_dealloc(m, z->e, (size_t)z->n * sizeof(*z->e));
    if (z->keys)
        om_dealloc(m, z->keys, (size_t)z->n * sizeof(*z->keys));
    om_dealloc(m, z, sizeof(*z));
}
