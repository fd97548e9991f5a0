/*
 * readers/torchscript/passes/pass_state.h - what the optimizer's files share: the state of
 * one function's optimization (its graph and the current alias facts) and the entry
 * points of the passes, so that each pass can live in a file of its own.
 */
#ifndef OM_TS_PASSES_PASS_STATE_H
#define OM_TS_PASSES_PASS_STATE_H

#include "optimize.h"

typedef struct tsp_alias {
    uint32_t n, cap;
    uint32_t *parent;
    uint8_t *written;      /* per root: some node mutates the set */
    uint8_t *escapes;      /* per root: reaches a graph input/output or the wildcard */
    uint8_t *flag;         /* per root: pass-specific marks (live, stale) */
    uint32_t wild;
    uint32_t stamp;        /* values numbered in this analysis carry it */
} tsp_alias;

typedef struct tsp_state {
    ts_ctx *c;
    tsl_program *prog;
    tsl_types *ty;
    tsj_graph *g;
    tsp_alias a;
    int changed;
} tsp_state;

/* passes/alias.c: alias facts of o->g, valid until the graph changes (then run again) */
int tsp_alias_run(tsp_state *o);
void tsp_alias_free(tsp_state *o);
uint32_t tsp_alias_find(tsp_alias *a, uint32_t x);
uint32_t tsp_alias_id(const tsp_alias *a, tsj_value *v);
tsj_value *tsp_written_by(const tsj_node *n);
int tsp_has_writers(tsp_state *o, tsj_value *v);
int tsp_escapes(tsp_state *o, tsj_value *v);

/* The alias id of v in the analysis of the `tsp_state *o` in scope (0: none, see tsp_alias_id). */
#define TSP_ALIAS_ID(v) tsp_alias_id(&o->a, (v))

/* passes/dce.c: use counts under a stamp, and dead code elimination */
void tsp_count_uses(tsj_block *b, uint32_t stamp);
uint32_t tsp_uses_of(tsj_value *v, uint32_t stamp);
int tsp_dce(tsp_state *o, int use_alias);

/* passes/constprop.c: constant nodes, and ConstantPropagationImmutableTypes */
tsj_value *tsp_new_const(tsp_state *o, tsj_node *before, tsj_const *cv, const tsl_type *t);
int tsp_constprop(tsp_state *o);

/* passes/peephole.c: PeepholeOptimize; new list constructions (also for CombineConcats) */
tsj_node *tsp_new_list(tsp_state *o, tsj_node *before, uint32_t n, const tsl_type *t);
int tsp_peephole(tsp_state *o);

/* passes/combine_concats.c: CombineConcats, run by tsp_peephole */
int tsp_combine_concats(tsp_state *o);

#endif /* OM_TS_PASSES_PASS_STATE_H */
