/*
 * core/yaml_read.h - typed reads from a yaml_tree, each failing with file:line:column.
 *
 * Shared by every YAML input opmap reads: the table, weights files and waiver files.
 * Each function returns OPMAP_OK or the status it put in the error record.
 */
#ifndef OM_YAML_READ_H
#define OM_YAML_READ_H

#include <stdint.h>

#include <opmap/error.h>
#include <opmap/table.h>

#include "mem.h"
#include "yaml_tree.h"

typedef struct yr {
    const char *src;       /* file name for messages */
    opmap_error *err;
    om_arena *A;
} yr;

int yr_bad(yr *y, const yt_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int yr_oom(yr *y);
int yr_kind(yr *y, const yt_node *n, yt_kind kind, const char *what);
int yr_is_null(const yt_node *n);
/* A non-empty scalar of text: control characters (but newline and tab) are refused. */
int yr_str(yr *y, const yt_node *n, const char *what, const char **out);
/* A non-empty scalar of any bytes (waiver patterns: model strings may hold anything). */
int yr_str_any(yr *y, const yt_node *n, const char *what, const char **out);
int yr_int(yr *y, const yt_node *n, const char *what, int64_t *out);
/* Non-negative decimal with at most three decimals, as thousandths ("2.5" -> 2500). */
int yr_milli(yr *y, const yt_node *n, const char *what, uint64_t *out);
int yr_str_list(yr *y, const yt_node *n, const char *what, const char ***out, size_t *count);
/* Every key of `map` must be one of `allowed` (NULL-terminated). */
int yr_keys(yr *y, const yt_node *map, const char *const *allowed, const char *what);
int yr_require(yr *y, const yt_node *map, const char *key, const char *what, const yt_node **out);

/* The `weights:` mapping (full/partial/rewrite/unmapped: {min, expected, max}) into
 * effort[status]; `set` gets a bit per status given. A table's weights may also give
 * `unpublished` (into *unpublished); NULL refuses that key (weights files). */
int yr_weights(yr *y, const yt_node *w, opmap_effort *effort, unsigned *set,
               opmap_effort *unpublished);

#endif /* OM_YAML_READ_H */
