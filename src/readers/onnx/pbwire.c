/*
 * readers/onnx/pbwire.c - bounded protobuf wire cursor (see pbwire.h).
 */
#include "pbwire.h"

static int fail(pb_cur *c, uint64_t off, const char *why)
{
    c->err = why;
    c->err_off = off;
    return -1;
}

int pb_varint(pb_cur *c, uint64_t *out)
{
    uint64_t v = 0, start = c->pos;
    unsigned shift = 0;
    while (c->pos < c->end) {
        unsigned char b;
        om_need(c->view, c->pos, 1); /* byte by byte: only the varint's own bytes */
        b = c->base[c->pos++];
        if (shift == 63 && b > 1)
            return fail(c, start, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
        shift += 7;
        if (shift > 63)
            return fail(c, start, "varint longer than 10 bytes");
    }
    return fail(c, start, "truncated varint");
}

int pb_next(pb_cur *c, pb_field *f)
{
    uint64_t tag;
    if (c->pos >= c->end)
        return 0;
    f->tag_off = c->pos;
    if (pb_varint(c, &tag) < 0)
        return -1;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
        return fail(c, f->tag_off, "invalid field number");
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint8_t)(tag & 7);
    f->v = 0;
    f->off = f->len = 0;
    switch (f->wt) {
    case PB_VARINT:
        return pb_varint(c, &f->v) < 0 ? -1 : 1;
    case PB_FIXED64:
        if (c->end - c->pos < 8)
            return fail(c, f->tag_off, "truncated fixed64 field");
        om_need(c->view, c->pos, 8);
        {
            uint64_t v = 0;
            int i;
            for (i = 7; i >= 0; i--)
                v = (v << 8) | c->base[c->pos + (uint64_t)i];
            f->v = v;
        }
        c->pos += 8;
        return 1;
    case PB_FIXED32:
        if (c->end - c->pos < 4)
            return fail(c, f->tag_off, "truncated fixed32 field");
        om_need(c->view, c->pos, 4);
        f->v = (uint64_t)c->base[c->pos] | (uint64_t)c->base[c->pos + 1] << 8 |
               (uint64_t)c->base[c->pos + 2] << 16 | (uint64_t)c->base[c->pos + 3] << 24;
        c->pos += 4;
        return 1;
    case PB_LEN: {
        uint64_t len;
        if (pb_varint(c, &len) < 0)
            return -1;
        if (len > c->end - c->pos)
            return fail(c, f->tag_off, "length points past the end of its message");
        f->off = c->pos;
        f->len = len;
        c->pos += len;
        return 1;
    }
    case PB_SGROUP:
    case PB_EGROUP:
        return fail(c, f->tag_off, "group wire type (not used by ONNX)");
    default:
        return fail(c, f->tag_off, "invalid wire type");
    }
}

uint64_t pb_count_varints(const unsigned char *base, om_mapped *view, uint64_t off,
                          uint64_t len)
{
    uint64_t n = 0, i;
    om_need(view, off, len);
    for (i = 0; i < len; i++)
        if (!(base[off + i] & 0x80))
            n++;
    return n;
}

int pb_mnext(pb_mcur *m, pb_field *f)
{
    for (;;) {
        int k = pb_next(&m->c, f);
        if (k != 0)
            return k;
        if (++m->i >= m->n)
            return 0;
        m->c = pb_span(m->c.base, m->c.view, m->segs[m->i].off, m->segs[m->i].len);
    }
}
