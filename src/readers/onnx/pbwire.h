/*
 * readers/onnx/pbwire.h - a bounded cursor over protobuf wire format.
 *
 * The ONNX reader walks the large, recursive messages (ModelProto, GraphProto, NodeProto,
 * AttributeProto, TensorProto) field by field with this cursor, so it can step over weight
 * payloads by their length without reading them, enforce nesting limits protobuf-c lacks,
 * and use 64-bit offsets (protobuf-c refuses fields over 2 GiB). Offsets are absolute
 * positions in the input, so errors can name them.
 */
#ifndef OM_PBWIRE_H
#define OM_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "core/mapfile.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_SGROUP = 3, PB_EGROUP = 4, PB_FIXED32 = 5 };

typedef struct pb_cur {
    const unsigned char *base;  /* the whole input */
    om_mapped *view;            /* its lazy view (bytes are asked for before use), or NULL */
    uint64_t pos;               /* next byte to read, absolute */
    uint64_t end;               /* end of this message, absolute */
    uint64_t err_off;           /* where the last error was found */
    const char *err;            /* why, a constant string */
} pb_cur;

typedef struct pb_field {
    uint32_t num;
    uint8_t wt;
    uint64_t tag_off;   /* offset of the tag */
    uint64_t v;         /* VARINT / FIXED32 / FIXED64 value */
    uint64_t off, len;  /* LEN: payload position and length */
} pb_field;

/* A cursor over [off, off + len) of base. */
static inline pb_cur pb_span(const unsigned char *base, om_mapped *view, uint64_t off,
                             uint64_t len)
{
    pb_cur c;
    c.base = base;
    c.view = view;
    c.pos = off;
    c.end = off + len;
    c.err_off = off;
    c.err = 0;
    return c;
}

/* Reads the next field: 1 = got one, 0 = end of message, -1 = malformed (c->err, c->err_off). */
int pb_next(pb_cur *c, pb_field *f);

/*
 * A message given in pieces: protobuf merges every occurrence of a singular message field
 * (ModelProto.graph given twice is one graph holding both's nodes), which reads exactly like
 * the concatenation of the occurrences. A cursor over the pieces in order, without copying.
 */
typedef struct pb_seg {
    uint64_t off, len;
} pb_seg;

typedef struct pb_mcur {
    pb_cur c;                   /* the current piece; its err/err_off on failure */
    const pb_seg *segs;
    size_t n, i;
} pb_mcur;

static inline pb_mcur pb_multi(const unsigned char *base, om_mapped *view, const pb_seg *segs,
                               size_t n)
{
    pb_mcur m;
    m.segs = segs;
    m.n = n;
    m.i = 0;
    m.c = pb_span(base, view, n ? segs[0].off : 0, n ? segs[0].len : 0);
    return m;
}

/* As pb_next, across the pieces. */
int pb_mnext(pb_mcur *m, pb_field *f);

/* Reads one varint from a cursor (for packed repeated fields). 1 ok, -1 malformed. */
int pb_varint(pb_cur *c, uint64_t *out);

/* Number of varints in a packed payload (bytes with the high bit clear). */
uint64_t pb_count_varints(const unsigned char *base, om_mapped *view, uint64_t off,
                          uint64_t len);

#endif /* OM_PBWIRE_H */
