/*
 * readers/torchscript/passes/pass_state.h - what the optimizer's files share: the state of
 * one function's optimization (its graph and the current alias facts) and the entry
 * points of the passes, so that each pass can live in a file of its own.
 */
#ifndef OM_TS_PASSES_PASS_STATE_H
#define OM_TS_PASSES_PASS_STATE_H

#include "readers/torchscript/passes/optimize.h"

typedef struct alias {
    uint32_t n, cap;
    uint32_t *parent;
    uint8_t *written;      /* per root: some node mutates the set */
    uint8_t *escapes;      /* per root: reaches a graph input/output or the wildcard */
    uint8_t *flag;         /* per root: pass-specific marks (live, stale) */
    uint32_t wild;
    uint32_t stamp;        /* values numbered in this analysis carry it */
} alias;

typedef struct opt {
    ts_ctx *c;
    ts_prog *prog;
    ts_tys *ty;
    og_graph *g;
    alias a;
    int changed;
} opt;

/* passes/alias.c: alias facts of o->g, valid until the graph changes (then run again) */
int tso_alias_run(opt *o);
void tso_alias_free(opt *o);
uint32_t tso_alias_find(alias *a, uint32_t x);
uint32_t tso_alias_id(const alias *a, og_val *v);
og_val *tso_written_by(const og_node *n);
int tso_has_writers(opt *o, og_val *v);
int tso_escapes(opt *o, og_val *v);

/* The alias id of v in the analysis of the `opt *o` in scope (0: none, see tso_alias_id). */
#define TSO_VID(v) tso_alias_id(&o->a, (v))

/* passes/dce.c: use counts under a stamp, and dead code elimination */
void tso_count_uses(og_block *b, uint32_t stamp);
uint32_t tso_uses_of(og_val *v, uint32_t stamp);
int tso_dce(opt *o, int use_alias);

/* passes/constprop.c: constant nodes, and ConstantPropagationImmutableTypes */
og_val *tso_new_const(opt *o, og_node *before, og_const *cv, const ts_type *t);
int tso_constprop(opt *o);

/* passes/peephole.c: PeepholeOptimize; new list constructions (also for CombineConcats) */
og_node *tso_new_list(opt *o, og_node *before, uint32_t n, const ts_type *t);
int tso_peephole(opt *o);

/* passes/combine_concats.c: CombineConcats, run by tso_peephole */
int tso_combine_concats(opt *o);

#endif /* OM_TS_PASSES_PASS_STATE_H */
