/*
 * policy/policy_internal.h - what the gate's files share: waivers, findings, the verdict.
 */
#ifndef OM_POLICY_INTERNAL_H
#define OM_POLICY_INTERNAL_H

#include <opmap/policy.h>

#include "core/mem.h"

typedef struct om_waiver {
    const char *domain;        /* NULL: any domain */
    const char *op;
    const char *model, *node;  /* glob patterns, NULL: any */
    unsigned kind;             /* OPMAP_FAIL_* bit, 0: any */
    const char *reason, *owner, *expires;
    uint32_t line;
} om_waiver;

struct opmap_waivers {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;
    const char *origin;
    om_waiver *w;
    size_t n;
};

struct opmap_verdict {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;
    opmap_finding *findings;
    const char **keys;           /* per finding: its model as waivers match it (model_path.c) */
    size_t n;
    int passed;
    int incomplete;   /* a file could not be read: the verdict covers part of the scan */
    char today[11];
    uint64_t pattern_compares;   /* waiver patterns compared with a string (tests bound it) */
};

/*
 * The waivers indexed for matching (waiver_index.c): grouped by the (model, domain, op,
 * kind) they name, node patterns in a trie of their literal prefixes, so matching costs
 * about the node paths plus the waivers instead of their product. `model` is the literal a
 * group is keyed by, or NULL for waivers whose model pattern the caller has matched (or
 * that have none).
 */
typedef struct om_wedge {
    uint32_t from, to;   /* to: child + 1, 0 for an empty slot */
    unsigned char c;
} om_wedge;

typedef struct om_widx {
    om_mem *mem;
    const opmap_waivers *ws;
    void *groups, *nodes, *pats;
    size_t n_groups, groups_cap, n_nodes, nodes_cap, n_pats, pats_cap;
    uint32_t *gslots;
    size_t gslots_cap;
    om_wedge *eslots;
    size_t eslots_cap, n_edges;
} om_widx;

enum { OM_WMODEL_ANY, OM_WMODEL_LITERAL, OM_WMODEL_GLOB };

/* How a waiver's model pattern is matched: not at all ("*" or none), exactly, or as a glob. */
int om_waiver_model_class(const om_waiver *w);

void om_widx_init(om_widx *x, om_mem *mem, const opmap_waivers *ws);
/* Adds waiver `wi` (in file order) under `model`; OPMAP_OK or OPMAP_ENOMEM. */
int om_widx_add(om_widx *x, uint32_t wi, const char *model);
/* Frees what the index holds; it stays usable (empty). */
void om_widx_clear(om_widx *x);
/*
 * The first waiver (index, below `best`; else `best`) covering a finding of `kind` on
 * domain::op in `model` at one of `paths`. *compares counts pattern comparisons.
 */
uint32_t om_widx_query(const om_widx *x, const char *model, const char *domain, const char *op,
                       unsigned kind, const char *const *paths, size_t n_paths, uint32_t best,
                       uint64_t *compares);

/*
 * A model path as waivers and baselines match it: cleaned lexically (no ".", no "//", ".."
 * removing the component before it), relative to `cwd` when under it, else absolute; ""
 * stays "". `cwd` is om_model_cwd()'s answer, or NULL (then the path is only cleaned).
 * Waiver model patterns are spelled the same way. NULL when out of memory.
 */
char *om_model_key(om_arena *A, const char *path, const char *cwd);
/* The working directory, cleaned; NULL when it cannot be known. */
char *om_model_cwd(om_arena *A);

/* Glob with '*' and '?', linear in practice (no backtracking explosion). */
int om_glob(const char *pattern, const char *text);

/* "YYYY-MM-DD" validity, and today's date in that form (from `today` or the clock). */
int om_date_valid(const char *s);
void om_today(const char *override, char out[11]);
void om_date_add_days(const char *ymd, long days, char out[11]);

#endif /* OM_POLICY_INTERNAL_H */
