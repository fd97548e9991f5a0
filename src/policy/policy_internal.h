/*
 * policy/policy_internal.h - what the gate's files share: waivers, findings, the verdict.
 */
#ifndef OM_POLICY_INTERNAL_H
#define OM_POLICY_INTERNAL_H

#include <opmap/policy.h>

#include "../core/mem.h"

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
    size_t n;
    int passed;
    int incomplete;   /* a file could not be read: the verdict covers part of the scan */
    char today[11];
};

/* Glob with '*' and '?', linear in practice (no backtracking explosion). */
int om_glob(const char *pattern, const char *text);

/* "YYYY-MM-DD" validity, and today's date in that form (from `today` or the clock). */
int om_date_valid(const char *s);
void om_today(const char *override, char out[11]);
void om_date_add_days(const char *ymd, long days, char out[11]);

#endif /* OM_POLICY_INTERNAL_H */
