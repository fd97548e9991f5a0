/*
 * table/data_load.h - what the strict loaders of opmap's curated data files share
 * (data/source_rules.yaml, data/patterns.yaml): named values, optional strings, person-day
 * ranges, the `sources:` list and a row's cited sources with its evidence grade, each error
 * naming file:line:column.
 */
#ifndef OM_DATA_LOAD_H
#define OM_DATA_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/table.h>

#include "core/yaml_read.h"
#include "core/yaml_tree.h"

/* What every loaded data file starts with: its budget, its arena, its name. */
typedef struct om_data_file {
    om_mem mem;
    om_arena arena;
    const char *origin;
} om_data_file;

/* Parses data into `file` (a struct starting with an om_data_file, zeroed otherwise). */
typedef int (*om_data_parse_fn)(yr *y, void *file, const void *data, size_t size,
                                const opmap_ctx *ctx);

/* A new struct of struct_size bytes on ctx's budget, its om_data_file set up and named
 * `name`, filled by parse; `what` names the file in the size error ("patterns"). On failure
 * *out is NULL and nothing is left allocated. */
int om_data_load(void **out, size_t struct_size, opmap_ctx *ctx, const void *data, size_t size,
                 const char *name, const char *what, om_data_parse_fn parse, opmap_error *err);
/* Releases what om_data_load made; NULL is a no-op. */
void om_data_free(om_data_file *f, size_t struct_size);

/* A source of a data file (its `sources:` list). */
typedef struct om_data_source {
    const char *id, *repo, *path, *commit, *license, *taken;
    uint8_t grade;                 /* OM_GRADE_* */
} om_data_source;

/* n's string as one of names[0, count) (*out its index); else an error listing `expected`. */
int om_data_pick(yr *y, const yt_node *n, const char *what, const char *const *names, int count,
                 const char *expected, int *out);
/* An optional string member (NULL when absent; an empty `replacement:` is ""). */
int om_data_opt_str(yr *y, const yt_node *map, const char *key, const char **out);
/* {min, expected, max} person-days, min <= expected <= max, as thousandths. */
int om_data_effort(yr *y, const yt_node *n, const char *what, opmap_effort *e);
/* The `sources:` list: ids unique, each with a grade. */
int om_data_sources(yr *y, om_arena *A, const yt_node *seq, om_data_source **out, size_t *n);
/* A row's `sources:` (non-empty, each defined; `curated` only with a `curated:` reason) and
 * `grade:` (at most the best cited source's), into *ids, *n_ids and *grade. */
int om_data_cited(yr *y, const yt_node *row, const char *id, const om_data_source *sources,
                  size_t n_sources, const char *curated, const char ***ids, size_t *n_ids,
                  uint8_t *grade);
/* The source of that id, or NULL. */
const om_data_source *om_data_source_find(const om_data_source *s, size_t n, const char *id);

#endif /* OM_DATA_LOAD_H */
