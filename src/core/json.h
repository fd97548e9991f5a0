/*
 * core/json.h - a bounded JSON reader: the graph entries of torch.export archives and
 * opmap's own JSON reports (opmap merge) are read with it.
 *
 * The text is parsed without recursion into a tree in an arena drawn from the model's
 * budget: nesting is bounded by `max_depth` (an explicit stack), every string by
 * `max_string_bytes`, the whole by the caller's input (an archive entry: max_entry_bytes), so a
 * JSON bomb ends in one error naming the input, the byte offset and the limit. It reads
 * what Python's json.dumps writes: RFC 8259 plus the NaN, Infinity and -Infinity it
 * writes for such floats. Integers keep their exact value when they fit 64 bits; others
 * are flagged (readers say which field overflows). Strings are decoded to UTF-8
 * (\uXXXX escapes and surrogate pairs); a NUL in a string, malformed UTF-8 and a lone
 * surrogate are errors. A duplicate key is kept; lookups find the last, as json.loads.
 */
#ifndef OM_CORE_JSON_H
#define OM_CORE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"

enum { OJ_NULL = 0, OJ_FALSE, OJ_TRUE, OJ_NUMBER, OJ_STRING, OJ_ARRAY, OJ_OBJECT };

typedef struct oj_value oj_value;
struct oj_value {
    uint8_t type;       /* OJ_* */
    uint8_t is_int;     /* a number written as an integer that fits int64 */
    uint32_t n;         /* children of an array or object */
    uint64_t offset;    /* of its first byte in the text */
    int64_t i;          /* is_int: the value */
    double d;           /* every number, as near as a double goes (NaN, +-Infinity too) */
    const char *s;      /* a string (NUL-terminated, decoded) */
    size_t len;
    const char *key;    /* a member of an object: its key */
    oj_value *kids;     /* n children */
};

/* Where errors go and what bounds the parse. */
typedef struct oj_src {
    om_mem *mem;
    om_arena *arena;    /* the tree lives here */
    opmap_error *err;
    const char *source; /* where the text is from, for errors: "<model>:<entry>", a file */
    uint32_t max_depth;
    uint64_t max_string;
} oj_src;

/* Parses `len` bytes into *out (one value, then only whitespace). */
int oj_parse(const oj_src *src, const char *text, size_t len, oj_value **out);

/* Member `key` of an object (the last of that name), or NULL (also when v is not an object). */
const oj_value *oj_get(const oj_value *v, const char *key);

/* Typed views: NULL / 0 when v is missing or of another type. */
const oj_value *oj_obj(const oj_value *v, const char *key);
const oj_value *oj_arr(const oj_value *v, const char *key);
const char *oj_str(const oj_value *v, const char *key);

#endif /* OM_CORE_JSON_H */
