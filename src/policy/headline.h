/*
 * policy/headline.h - the headline of one model or several (headline.c; public:
 * opmap_headline_compute, docs/reports.md "The headline").
 */
#ifndef OM_POLICY_HEADLINE_H
#define OM_POLICY_HEADLINE_H

#include <opmap/policy.h>

#include "estimate/registry_row.h"

/*
 * Fills `out` (its size field included) for `count` results whose distinct operators,
 * each shared one counted once, `distinct` totals (one result: its own summary; several:
 * the portfolio's), and the files not read. blocked_on / needs_work_on: OPMAP_FAIL_* bits,
 * 0 for the defaults.
 */
void om_headline_of(const opmap_result *const *results, size_t count,
                    const opmap_summary *distinct, const opmap_file_problem *problems,
                    size_t n_problems, unsigned blocked_on, unsigned needs_work_on,
                    opmap_headline *out);

/* The same one result at a time (report streams): om_headline_acc_init, _add for each
 * result in order, then _end with what om_headline_of takes besides the results. */
typedef struct om_headline_acc {
    opmap_headline h;
    unsigned share;     /* the most fragmented model's largest share so far (1001: none) */
} om_headline_acc;
void om_headline_acc_init(om_headline_acc *a);
void om_headline_acc_add(om_headline_acc *a, const opmap_result *r);

/* What a result adds to the headline, as numbers (a registry report's row keeps them, so
 * that the headline over its models is computed again without their results). */
typedef struct om_headline_counts {
    unsigned found;             /* OPMAP_FAIL_* kinds found (om_result_kinds) */
    uint64_t instances, instances_full;   /* structural ones excluded; of full operators */
    uint64_t placed, on_npu, largest;     /* the segments' (opmap_segments) */
} om_headline_counts;
void om_headline_counts_of(const opmap_result *r, om_headline_counts *c);
void om_headline_acc_add_counts(om_headline_acc *a, const om_headline_counts *c);
/* The same of a registry report's row; its distinct operators (its own); its headline
 * alone, as om_headline_of gives it of the model's result. */
void om_headline_counts_of_row(const om_reg_row *row, om_headline_counts *c);
void om_headline_row_distinct(const om_reg_row *row, opmap_summary *d);
void om_headline_of_row(const om_reg_row *row, unsigned blocked_on, unsigned needs_work_on,
                        opmap_headline *out);
void om_headline_acc_end(const om_headline_acc *a, size_t count, const opmap_summary *distinct,
                         const opmap_file_problem *problems, size_t n_problems,
                         unsigned blocked_on, unsigned needs_work_on, opmap_headline *out);

#endif /* OM_POLICY_HEADLINE_H */
