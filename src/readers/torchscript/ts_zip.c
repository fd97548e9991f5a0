/*
 * readers/torchscript/ts_zip.c - a checked view of a zip archive in memory (see ts_zip.h).
 *
 * libzip does the reading and inflating; this file first walks the end records and the
 * central directory itself, because libzip trusts what they declare: entry counts and
 * offsets are checked against the file, and overlapping entries (one compressed stream
 * shared by many entries) are refused. Entry data is read with zip_fread into a buffer of
 * the declared size, and one more read must hit the end: a stream that inflates to more
 * than its entry declares is an error, so nothing inflates beyond the cap.
 */
#include "ts_zip.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "../../core/err.h"

struct ts_zip {
    ts_ctx *c;
    zip_t *za;
    uint64_t n;
};

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

static int bad(ts_zip *z, uint64_t off, const char *what)
{
    return om_fail_at(z->c->err, OPMAP_EFORMAT, z->c->src, off, "malformed zip archive: %s",
                      what);
}

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Reads the zip64 extra field of a central directory entry for the 0xFFFFFFFF fields. */
static int zip64_extra(const unsigned char *ex, uint32_t elen, uint64_t *usize, uint64_t *comp,
                       uint64_t *lho)
{
    uint32_t pos = 0;
    while (pos + 4 <= elen) {
        uint32_t id = rd16(ex + pos), len = rd16(ex + pos + 2), q = pos + 4;
        if (pos + 4 + len > elen)
            return 0;
        if (id == 1) {
            if (*usize == 0xFFFFFFFFu) {
                if (q + 8 > pos + 4 + len)
                    return 0;
                *usize = rd64(ex + q);
                q += 8;
            }
            if (*comp == 0xFFFFFFFFu) {
                if (q + 8 > pos + 4 + len)
                    return 0;
                *comp = rd64(ex + q);
                q += 8;
            }
            if (*lho == 0xFFFFFFFFu) {
                if (q + 8 > pos + 4 + len)
                    return 0;
                *lho = rd64(ex + q);
            }
            return 1;
        }
        pos += 4 + len;
    }
    return *usize != 0xFFFFFFFFu && *comp != 0xFFFFFFFFu && *lho != 0xFFFFFFFFu;
}

/*
 * The checks libzip does not make: where the central directory is, that its entry count
 * fits in its size (so nothing is allocated from a made-up count), that every entry's
 * local header and data lie before it, and that no two entries share bytes.
 */
static int precheck(ts_zip *z, const unsigned char *d, uint64_t size)
{
    ts_ctx *c = z->c;
    uint64_t pos, lo, eocd = UINT64_MAX, n, cd_size, cd_off, cd_end, p, i;
    span *spans;
    int rc = OPMAP_OK;

    if (size < 22)
        return bad(z, 0, "too short for an end of central directory record");
    lo = size - 22 > 65535 ? size - 22 - 65535 : 0;
    for (pos = size - 22 + 1; pos-- > lo;) {
        if (rd32(d + pos) == 0x06054b50u && pos + 22 + rd16(d + pos + 20) <= size) {
            eocd = pos;
            break;
        }
    }
    if (eocd == UINT64_MAX)
        return bad(z, size, "no end of central directory record (truncated file?)");
    n = rd16(d + eocd + 10);
    cd_size = rd32(d + eocd + 12);
    cd_off = rd32(d + eocd + 16);
    cd_end = eocd;
    if (n == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) {
        uint64_t z64;
        if (eocd < 20 || rd32(d + eocd - 20) != 0x07064b50u)
            return bad(z, eocd, "zip64 markers without a zip64 locator");
        z64 = rd64(d + eocd - 20 + 8);
        if (z64 > eocd - 20 || eocd - 20 - z64 < 56 || rd32(d + z64) != 0x06064b50u)
            return bad(z, eocd - 20, "zip64 locator points to no zip64 end record");
        n = rd64(d + z64 + 32);
        cd_size = rd64(d + z64 + 40);
        cd_off = rd64(d + z64 + 48);
        cd_end = z64;
    } else if (eocd >= 20 && rd32(d + eocd - 20) == 0x07064b50u) {
        cd_end = eocd - 20;
        {
            uint64_t z64 = rd64(d + eocd - 20 + 8);
            if (z64 < cd_end && cd_end - z64 >= 56 && rd32(d + z64) == 0x06064b50u)
                cd_end = z64;
        }
    }
    if (cd_off > cd_end || cd_size > cd_end - cd_off)
        return bad(z, eocd, "central directory lies outside the file (truncated file?)");
    if (n > cd_size / 46)
        return om_fail_at(c->err, OPMAP_EFORMAT, c->src, eocd,
                          "malformed zip archive: %" PRIu64 " entries declared in a %" PRIu64
                          "-byte central directory", n, cd_size);
    if (n > c->lim->max_zip_entries)
        return om_fail_at(c->err, OPMAP_ELIMIT, c->src, eocd,
                          "zip archive has %" PRIu64 " entries, over max_zip_entries (%" PRIu64
                          ")", n, c->lim->max_zip_entries);
    z->n = n;
    if (!n)
        return OPMAP_OK;
    spans = om_calloc(c->mem, (size_t)n, sizeof(*spans));
    if (!spans)
        return ts_oom(c);
    p = cd_off;
    for (i = 0; i < n && rc == OPMAP_OK; i++) {
        uint64_t comp, usize, lho, end;
        uint32_t nlen, elen, clen;
        if (cd_off + cd_size - p < 46 || rd32(d + p) != 0x02014b50u) {
            rc = bad(z, p, "bad central directory entry");
            break;
        }
        comp = rd32(d + p + 20);
        usize = rd32(d + p + 24);
        nlen = rd16(d + p + 28);
        elen = rd16(d + p + 30);
        clen = rd16(d + p + 32);
        lho = rd32(d + p + 42);
        if (cd_off + cd_size - p - 46 < (uint64_t)nlen + elen + clen) {
            rc = bad(z, p, "central directory entry runs past the directory");
            break;
        }
        if ((comp == 0xFFFFFFFFu || usize == 0xFFFFFFFFu || lho == 0xFFFFFFFFu) &&
            !zip64_extra(d + p + 46 + nlen, elen, &usize, &comp, &lho)) {
            rc = bad(z, p, "bad zip64 extra field");
            break;
        }
        /* a lower bound of the entry's extent: local header, name, compressed data */
        if (lho > cd_off || comp > cd_off || cd_off - lho < 30 + (uint64_t)nlen ||
            cd_off - lho - 30 - nlen < comp) {
            rc = bad(z, p, "entry data lies outside the file (truncated file?)");
            break;
        }
        end = lho + 30 + nlen + comp;
        spans[i].start = lho;
        spans[i].end = end;
        p += 46 + (uint64_t)nlen + elen + clen;
    }
    if (rc == OPMAP_OK) {
        qsort(spans, (size_t)n, sizeof(*spans), cmp_span);
        for (i = 1; i < n; i++)
            if (spans[i].start < spans[i - 1].end) {
                rc = bad(z, spans[i].start, "entries overlap (one data stream used twice)");
                break;
            }
    }
    om_dealloc(c->mem, spans, (size_t)n * sizeof(*spans));
    return rc;
}

int ts_zip_open(ts_zip **out, ts_ctx *c, const unsigned char *data, uint64_t size)
{
    ts_zip *z;
    zip_error_t ze;
    zip_source_t *src;
    int rc;
    *out = NULL;
    if (!(z = om_calloc(c->mem, 1, sizeof(*z))))
        return ts_oom(c);
    z->c = c;
    if ((rc = precheck(z, data, size)) != OPMAP_OK) {
        om_dealloc(c->mem, z, sizeof(*z));
        return rc;
    }
    zip_error_init(&ze);
    src = zip_source_buffer_create(data, size, 0, &ze);
    if (src && !(z->za = zip_open_from_source(src, ZIP_RDONLY, &ze)))
        zip_source_free(src);
    if (!z->za) {
        rc = om_fail(c->err, OPMAP_EFORMAT, c->src, "malformed zip archive: %s",
                     zip_error_strerror(&ze));
        zip_error_fini(&ze);
        om_dealloc(c->mem, z, sizeof(*z));
        return rc;
    }
    zip_error_fini(&ze);
    if ((uint64_t)zip_get_num_entries(z->za, 0) != z->n) {
        ts_zip_close(z);
        return om_fail(c->err, OPMAP_EFORMAT, c->src,
                       "malformed zip archive: inconsistent entry count");
    }
    *out = z;
    return OPMAP_OK;
}

void ts_zip_close(ts_zip *z)
{
    if (!z)
        return;
    if (z->za)
        zip_discard(z->za);
    om_dealloc(z->c->mem, z, sizeof(*z));
}

uint64_t ts_zip_count(const ts_zip *z)
{
    return z->n;
}

const char *ts_zip_name(ts_zip *z, uint64_t i)
{
    return zip_get_name(z->za, i, ZIP_FL_ENC_RAW);
}

int64_t ts_zip_find(ts_zip *z, const char *name)
{
    return zip_name_locate(z->za, name, ZIP_FL_ENC_RAW);
}

/* True for "<archive>/data/...": tensor storages, never read. */
static int is_storage(const char *name)
{
    const char *slash = strchr(name, '/');
    return slash && strncmp(slash + 1, "data/", 5) == 0;
}

int ts_zip_read(ts_zip *z, uint64_t i, uint64_t cap, int prefix_only, unsigned char **buf,
                size_t *len)
{
    ts_ctx *c = z->c;
    const char *name = ts_zip_name(z, i);
    zip_stat_t st;
    zip_file_t *zf;
    uint64_t want, got = 0;
    unsigned char *b, extra;
    zip_int64_t k;
    int rc = OPMAP_OK;

    *buf = NULL;
    *len = 0;
    if (!name)
        return om_fail(c->err, OPMAP_EFORMAT, c->src, "malformed zip archive: unnamed entry");
    if (is_storage(name))
        return ts_fail(c, OPMAP_EINTERNAL, name, 0, 0, "refusing to read a tensor storage");
    zip_stat_init(&st);
    if (zip_stat_index(z->za, i, ZIP_FL_ENC_RAW, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return ts_fail(c, OPMAP_EFORMAT, name, 0, 0, "malformed zip entry: no size");
    want = st.size;
    if (want > cap) {
        if (!prefix_only)
            return ts_fail(c, OPMAP_ELIMIT, name, 0, 0,
                           "entry declares %" PRIu64 " bytes, over max_entry_bytes (%" PRIu64
                           ")", want, cap);
        want = cap;
    }
    if (want >= SIZE_MAX)
        return ts_fail(c, OPMAP_ELIMIT, name, 0, 0, "entry too large");
    if (!(b = om_alloc(c->mem, (size_t)want + 1)))
        return ts_oom(c);
    if (!(zf = zip_fopen_index(z->za, i, 0))) {
        om_dealloc(c->mem, b, (size_t)want + 1);
        return ts_fail(c, OPMAP_EFORMAT, name, 0, 0, "cannot open zip entry: %s",
                       zip_strerror(z->za));
    }
    while (got < want) {
        k = zip_fread(zf, b + got, want - got);
        if (k < 0) {
            rc = ts_fail(c, OPMAP_EFORMAT, name, 0, 0, "cannot read zip entry: %s",
                         zip_file_strerror(zf));
            break;
        }
        if (k == 0) {
            rc = ts_fail(c, OPMAP_EFORMAT, name, 0, 0,
                         "entry ends after %" PRIu64 " of its %" PRIu64 " declared bytes",
                         got, want);
            break;
        }
        got += (uint64_t)k;
    }
    if (rc == OPMAP_OK && !prefix_only) {
        /* the stream must end exactly here: a lying size would inflate past the buffer */
        k = zip_fread(zf, &extra, 1);
        if (k < 0)
            rc = ts_fail(c, OPMAP_EFORMAT, name, 0, 0, "cannot read zip entry: %s",
                         zip_file_strerror(zf));
        else if (k > 0)
            rc = ts_fail(c, OPMAP_EFORMAT, name, 0, 0,
                         "entry inflates to more than its declared %" PRIu64 " bytes", want);
    }
    zip_fclose(zf);
    if (rc != OPMAP_OK) {
        om_dealloc(c->mem, b, (size_t)want + 1);
        return rc;
    }
    b[want] = 0;
    *buf = b;
    *len = (size_t)want;
    return OPMAP_OK;
}

void ts_zip_free(ts_zip *z, unsigned char *buf, size_t len)
{
    if (buf)
        om_dealloc(z->c->mem, buf, len + 1);
}
