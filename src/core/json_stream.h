/*
 * core/json_stream.h - a JSON text read from a file a value at a time (json_stream.c), so
 * that a report of a hundred thousand models is never held whole: the file is read in
 * 64 KiB chunks, and each value asked for is cut out whole (its bytes, checked for the
 * nesting and strings of JSON only as far as finding its end needs) for oj_parse to read.
 *
 * Bounded as oj_parse is: nesting by max_depth (a counter, no recursion), a value's bytes
 * by max_value (the buffer draws from the caller's budget); every error names the file,
 * the byte offset and the limit.
 */
#ifndef OM_CORE_JSON_STREAM_H
#define OM_CORE_JSON_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/error.h>

#include "core/mem.h"

typedef struct oj_stream {
    int fd;
    const char *source;         /* the file, for errors */
    opmap_error *err;
    om_mem *mem;
    uint32_t max_depth;
    uint64_t max_value;         /* bytes of one value cut out */
    char buf[65536];
    size_t pos, len;            /* unread bytes: buf[pos, len) */
    uint64_t offset;            /* of buf[0] in the file */
    int eof;
    char *val;                  /* the last value cut out (NUL-terminated), val_len bytes */
    size_t val_len, val_cap;
    uint64_t val_offset;        /* its first byte in the file */
} oj_stream;

/* Opens `path`; OPMAP_OK or OPMAP_EIO. */
int ojs_open(oj_stream *s, const char *path, om_mem *mem, uint32_t max_depth, uint64_t max_value,
             opmap_error *err);
void ojs_close(oj_stream *s);

/* The next byte that is not white space, not consumed: *c, or -1 at the end of the file. */
int ojs_peek(oj_stream *s, int *c);
/* That byte consumed when it is `c`; else fails naming what was expected. */
int ojs_expect(oj_stream *s, char c, const char *what);
/* The next value whole: into s->val when keep (the buffer is reused by the next call),
 * else stepped over (nothing is held). */
int ojs_value(oj_stream *s, int keep);
/* Fails as the stream's errors do: "<source>: offset N: <message>". */
int ojs_fail(oj_stream *s, int code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* OM_CORE_JSON_STREAM_H */
