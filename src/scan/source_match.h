/*
 * scan/source_match.h - which source rule answers a site of Python code (source_match.c).
 *
 * Resolution (docs/source-rules.md): an exact name beats a prefix and the longest prefix
 * wins; a call is answered by call rules before name rules, an import by import rules
 * before name rules; an attribute of a receiver the file did not import (`x.is_cuda`,
 * `f().cuda(`) only by rules naming a bare attribute; a string by the most specific
 * string_arg rule (call, keyword, position), else by a string rule. A rule with `needs:
 * loop` answers only sites inside a loop's body or a comprehension.
 */
#ifndef OM_SOURCE_MATCH_H
#define OM_SOURCE_MATCH_H

#include <stddef.h>

#include "core/mem.h"
#include "readers/python/python_source.h"
#include "table/source_rules.h"

typedef struct om_sr_index {
    const om_source_rules *rules;
    struct om_sr_slot *slots;   /* (kind, name) -> rule, open addressing */
    size_t cap;
    const om_source_rule **prefixed[OM_SR_KIND_COUNT]; /* longest prefix first */
    size_t n_prefixed[OM_SR_KIND_COUNT];
    const om_source_rule **strings; /* string_arg and string rules, in table order */
    size_t n_strings;
    const om_source_rule **files;
    size_t n_files;
    om_mem *mem;
} om_sr_index;

/* Builds the index on mem (OPMAP_ENOMEM); om_sr_index_free releases it. */
int om_sr_index_build(om_sr_index *ix, const om_source_rules *rules, om_mem *mem);
void om_sr_index_free(om_sr_index *ix);

/* The rule answering the site, or NULL. */
const om_source_rule *om_sr_match_site(const om_sr_index *ix, const py_site *s);

/* The file rule answering a file of the project by its base name, or NULL. */
const om_source_rule *om_sr_match_file(const om_sr_index *ix, const char *path);

#endif /* OM_SOURCE_MATCH_H */
