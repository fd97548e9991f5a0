/*
 * core/yaml_tree.h - a YAML document as a small tree with line:column on every node.
 *
 * Built from libyaml's event stream with the limits tables need: nesting depth, node
 * count, no anchors or aliases (so no alias expansion bombs), one document, no duplicate
 * mapping keys. The schema layer (table_load.c) then reads the tree with precise errors.
 */
#ifndef OM_YAML_TREE_H
#define OM_YAML_TREE_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/error.h>

#include "mem.h"

typedef enum { YT_SCALAR, YT_SEQ, YT_MAP } yt_kind;

typedef struct yt_node {
    yt_kind kind;
    uint32_t line, col;        /* 1-based */
    const char *str;           /* scalar text (NUL-terminated) */
    size_t len;
    int plain;                 /* scalar was unquoted (so `null`, numbers mean what they say) */
    struct yt_node **items;    /* SEQ: n items; MAP: keys at 2i, values at 2i+1 */
    size_t n;                  /* SEQ: items; MAP: pairs */
} yt_node;

/*
 * Parses `data` into a tree allocated in `arena`. On error fills err (source `src`, line,
 * column) and returns OPMAP_EFORMAT (syntax, anchors, aliases, duplicate keys) or
 * OPMAP_ELIMIT.
 */
int yt_parse(const unsigned char *data, size_t size, const char *src, om_arena *arena,
             uint32_t max_depth, uint64_t max_nodes, yt_node **root, opmap_error *err);

/* Value of `key` in a MAP node, or NULL. */
const yt_node *yt_get(const yt_node *map, const char *key);

#endif /* OM_YAML_TREE_H */
