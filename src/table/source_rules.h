/*
 * table/source_rules.h - the source-rule table (data/source_rules.yaml, docs/source-rules.md):
 * CUDA-isms of Python training code -> their migration status. Internal API.
 */
#ifndef OM_SOURCE_RULES_H
#define OM_SOURCE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>
#include <opmap/table.h>

#include "core/mem.h"
#include "data_load.h"

typedef enum { OM_SR_IMPORT, OM_SR_NAME, OM_SR_CALL, OM_SR_METHOD_CALL, OM_SR_STRING_ARG,
               OM_SR_FILE, OM_SR_STRING, OM_SR_KIND_COUNT } om_sr_kind;
typedef enum { OM_SR_UNCHANGED, OM_SR_AUTOMATIC, OM_SR_RENAMED, OM_SR_MANUAL, OM_SR_REWRITE,
               OM_SR_UNKNOWN, OM_SR_STATUS_COUNT } om_sr_status;

typedef om_data_source om_sr_source;

typedef struct om_source_rule {
    const char *id;
    om_sr_kind kind;
    const char **names;            /* exact names (name:, or names:) */
    size_t n_names;
    const char *prefix;            /* dotted prefix: matches it and prefix.* (NULL: none) */
    const char *value, *value_prefix, *call, *keyword, *glob;  /* string_arg / file */
    int position;                  /* string_arg: positional index, -1 when not given */
    int ignore_case;               /* string_arg, string: the value compared case aside */
    om_sr_status status;
    const char *replacement, *hint, *notes, *curated, *needs;
    const char *group;             /* rules that are one piece of work (a CUDA extension's
                                      build entry and its kernels): charged once per project */
    opmap_effort weight;           /* the row's, else weights[status] */
    const char **sources;
    size_t n_sources;
    uint8_t grade;
} om_source_rule;

typedef struct om_source_rules {
    om_data_file f;                /* first: its budget, arena and name */
    opmap_effort weights[OM_SR_STATUS_COUNT];
    om_sr_source *sources;
    size_t n_sources;
    om_source_rule *rules;
    size_t n_rules;
} om_source_rules;

const char *om_sr_kind_name(int kind);
const char *om_sr_status_name(int status);
/* The operator status a rule's status is reported and gated as: unchanged, automatic ->
 * full; renamed, manual -> partial; rewrite -> rewrite; unknown -> unmapped. */
int om_sr_op_status(int status);
/* The rule of that id, or NULL. */
const om_source_rule *om_source_rule_find(const om_source_rules *r, const char *id);

/* Strict load (errors name file:line:column); *out is NULL on failure. */
int om_source_rules_load_memory(om_source_rules **out, opmap_ctx *ctx, const void *data,
                                size_t size, const char *name, opmap_error *err);
/* The built-in rules (data/source_rules.yaml embedded at build time). */
int om_source_rules_default(om_source_rules **out, opmap_ctx *ctx, opmap_error *err);
void om_source_rules_free(om_source_rules *r);

#endif /* OM_SOURCE_RULES_H */
