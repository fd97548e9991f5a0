/*
 * readers/zip/zip_entry.c - finding and reading one entry (see zip.h).
 *
 * An entry is read as miniz extracts it for torch: stored or deflate only, no encryption,
 * the data right after the local header's name and extra field. A deflate stream is
 * inflated into a buffer one byte larger than the declared size: the stream must end
 * exactly at that size, so nothing inflates beyond the cap. CRCs are not checked: torch
 * 1.13 does not check them either (its miniz is built without CRC checks), so a file torch
 * reads is read the same.
 */
#include "readers/zip/zip_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <zlib.h>

#include "core/err.h"
#include "core/mapfile.h"

uint64_t omz_count(const omz_zip *z)
{
    return z->n;
}

const char *omz_name(const omz_zip *z, uint64_t i)
{
    return i < z->n ? z->e[i].name : NULL;
}

int64_t omz_find(const omz_zip *z, const char *name)
{
    size_t len = strlen(name), lo = 0, hi = (size_t)z->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = omz_key_cmp(z->keys[mid].name, z->keys[mid].nlen, name, len);
        if (r == 0)
            return z->keys[mid].idx;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* True for "<archive>/data/...": tensor storages, never read. */
static int is_storage(const char *name)
{
    const char *slash = strchr(name, '/');
    return slash && strncmp(slash + 1, "data/", 5) == 0;
}

/* zlib's allocations, from the model's budget: a size header keeps om_dealloc exact. */
static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    size_t n;
    uint64_t *p;
    if (!om_mul_ok(items, size, &n) || !om_add_ok(n, 16, &n) || !(p = om_alloc(opaque, n)))
        return Z_NULL;
    p[0] = n;
    return p + 2;
}

static void z_free(voidpf opaque, voidpf address)
{
    uint64_t *p = (uint64_t *)address - 2;
    om_dealloc(opaque, p, (size_t)p[0]);
}

/* Inflates e's raw deflate data into b (room for `room` bytes); *got: bytes produced. */
static int inflate_entry(omz_zip *z, const omz_entry *e, unsigned char *b, uint64_t room,
                         uint64_t *got, int *ended)
{
    omz_src *c = z->c;
    z_stream s;
    const unsigned char *in = z->d + e->data;
    uint64_t in_left = e->comp, out_left = room;
    int zr = Z_OK;
    memset(&s, 0, sizeof(s));
    s.zalloc = z_alloc;
    s.zfree = z_free;
    s.opaque = c->mem;
    if (inflateInit2(&s, -15) != Z_OK)
        return omz_oom(c);
    s.next_out = b;
    /* each round either makes progress (bounded by the input and the room) or stops */
    for (;;) {
        if (!s.avail_in && in_left) {
            /* 64 KiB at a time: a prefix read asks the file for no more than it inflates */
            uInt k = in_left > 65536 ? 65536 : (uInt)in_left;
            om_need(c->input, (uint64_t)(in - z->d), k);
            s.next_in = (unsigned char *)(uintptr_t)in;
            s.avail_in = k;
            in += k;
            in_left -= k;
        }
        if (!s.avail_out && out_left) {
            uInt k = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
            s.avail_out = k;
            out_left -= k;
        }
        zr = inflate(&s, Z_NO_FLUSH);
        if (zr != Z_OK)
            break;
    }
    *got = (uint64_t)s.total_out;
    *ended = zr == Z_STREAM_END;
    inflateEnd(&s);
    if (zr == Z_MEM_ERROR)
        return omz_oom(c);
    if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR)
        return omz_fail(c, OPMAP_EFORMAT, e->name, "malformed deflate data: %s",
                       s.msg ? s.msg : "error");
    return OPMAP_OK; /* Z_STREAM_END, or Z_BUF_ERROR: out of input or out of room */
}

int omz_read(omz_zip *z, uint64_t i, uint64_t cap, int prefix_only, unsigned char **buf,
                 size_t *len)
{
    omz_src *c = z->c;
    const omz_entry *e;
    uint64_t want, got = 0;
    unsigned char *b;
    int rc = OPMAP_OK, ended = 1;

    *buf = NULL;
    *len = 0;
    if (i >= z->n)
        return omz_fail(c, OPMAP_EINTERNAL, NULL, "zip entry %" PRIu64 " out of range", i);
    e = &z->e[i];
    if (is_storage(e->name))
        return omz_fail(c, OPMAP_EINTERNAL, e->name, "refusing to read a tensor storage");
    if (e->flags & (0x01 | 0x40))
        return omz_fail(c, OPMAP_EUNSUPPORTED, e->name, "encrypted zip entry");
    if (e->flags & 0x20)
        return omz_fail(c, OPMAP_EUNSUPPORTED, e->name, "zip entry is a patch");
    if (e->method != 0 && e->method != 8)
        return omz_fail(c, OPMAP_EUNSUPPORTED, e->name,
                       "zip compression method %u (torch reads only stored and deflate)",
                       (unsigned)e->method);
    if (e->usize && ((e->nlen && e->name[e->nlen - 1] == '/') || (e->ext_attr & 0x10)))
        return omz_fail(c, OPMAP_EFORMAT, e->name,
                       "a directory entry with %" PRIu64 " bytes (torch reads none of them)",
                       e->usize);
    want = e->usize;
    if (want > cap) {
        if (!prefix_only)
            return omz_fail(c, OPMAP_ELIMIT, e->name,
                           "entry declares %" PRIu64 " bytes, over max_entry_bytes (%" PRIu64
                           ")", want, cap);
        want = cap;
    }
    if (want >= SIZE_MAX - 1)
        return omz_fail(c, OPMAP_ELIMIT, e->name, "entry too large");
    if (!(b = om_alloc(c->mem, (size_t)want + 1)))
        return omz_oom(c);
    if (e->method == 0) {
        om_need(c->input, e->data, want);
        memcpy(b, z->d + e->data, (size_t)want); /* stored: comp == usize, inside the file */
    }
    else if (e->comp)
        rc = inflate_entry(z, e, b, prefix_only ? want : want + 1, &got, &ended);
    if (rc == OPMAP_OK && e->method == 8 && e->comp) {
        /* the stream must end exactly at the declared size (a prefix: reach it) */
        if (got > want)
            rc = omz_fail(c, OPMAP_EFORMAT, e->name,
                         "entry inflates to more than its declared %" PRIu64 " bytes", want);
        else if (got < want)
            rc = omz_fail(c, OPMAP_EFORMAT, e->name,
                         "entry ends after %" PRIu64 " of its %" PRIu64 " declared bytes%s",
                         got, want, ended ? "" : " (deflate stream cut short)");
        else if (!ended && !prefix_only)
            rc = omz_fail(c, OPMAP_EFORMAT, e->name,
                         "deflate stream does not end after its %" PRIu64 " declared bytes",
                         want);
    }
    if (rc != OPMAP_OK) {
        om_dealloc(c->mem, b, (size_t)want + 1);
        return rc;
    }
    b[want] = 0;
    *buf = b;
    *len = (size_t)want;
    return OPMAP_OK;
}

void omz_free(omz_zip *z, unsigned char *buf, size_t len)
{
    if (buf)
        om_dealloc(z->c->mem, buf, len + 1);
}
