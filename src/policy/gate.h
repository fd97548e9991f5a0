/*
 * policy/gate.h - the gate's verdict built one result at a time (verdict.c), for report
 * streams that never hold every result: what is kept is the findings, never the models.
 * opmap_policy_check is this over an array.
 */
#ifndef OM_POLICY_GATE_H
#define OM_POLICY_GATE_H

#include <stdint.h>

#include <opmap/policy.h>

typedef struct om_gate om_gate;

/* A gate under `policy` (copied; its waivers borrowed until the end; NULL: the default). */
int om_gate_begin(om_gate **out, opmap_ctx *ctx, const opmap_policy *policy, opmap_error *err);
/* The findings of one more result, in the report's order. */
int om_gate_model(om_gate *g, const opmap_result *r, opmap_error *err);
/*
 * Spooling: the findings of each result are handed on (om_gate_take, after om_gate_model)
 * and dropped, so that the gate keeps their count, not them; the verdict then holds the
 * files not read and the budget only, its `passed` over everything.
 */
void om_gate_spool(om_gate *g);
typedef int (*om_gate_finding_fn)(void *payload, const opmap_finding *f);
int om_gate_take(om_gate *g, om_gate_finding_fn fn, void *payload);
/* Findings handed on so far (*failing: those that fail the gate). */
size_t om_gate_spooled(const om_gate *g, size_t *failing);

/* Findings a registry report counted per model (its rows), taken as handed on. */
void om_gate_add_counted(om_gate *g, uint64_t findings, uint64_t failing);
/* A digest of what the waivers say (0: none), so that reports judged by the same waivers
 * can be told from others without the file. */
uint64_t om_waivers_digest(const opmap_waivers *ws);

/* 1 when the policy has a budget (--max-effort): om_gate_end then needs the estimate of the
 * union counted without device results (om_result_portfolio_as, unverified). */
int om_gate_wants_effort(const om_gate *g);
/* The verdict over `count` results (only_model: the one result's name), the files not read
 * and the budget; frees g whatever it returns. */
int om_gate_end(om_gate *g, size_t count, const char *only_model, uint64_t unverified_expected,
                const opmap_file_problem *problems, size_t n_problems, opmap_verdict **out,
                opmap_error *err);
void om_gate_free(om_gate *g);

#endif /* OM_POLICY_GATE_H */
