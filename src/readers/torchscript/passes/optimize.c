/*
 * readers/torchscript/passes/optimize.c - inlining and torch's pre-optimization passes over
 * optimizer graphs (see passes/optimize.h).
 *
 * Each pass follows its torch 1.13 counterpart (torch/csrc/jit/passes/...): one forward walk,
 * sub-blocks first, replacements visible at once, no fixpoint. This file is the driver: it inlines
 * calls with the callees' memoized optimized graphs, runs the passes in torch's order, and
 * estimates the unoptimized expansion before anything is copied. The passes have a file each,
 * sharing the state of passes/pass_state.h: constant folding (passes/constprop.c), the peepholes
 * (passes/peephole.c, CombineConcats in passes/combine_concats.c), dead code elimination
 * (passes/dce.c) and the alias analysis they consult (passes/alias.c).
 */
#include "optimize.h"

#include <inttypes.h>
#include <string.h>

#include "readers/torchscript/jit/build.h"
#include "pass_state.h"

/* ---- inlining ---- */

static int inline_calls(tsp_state *o, tsj_block *b)
{
    tsj_node *n, *next;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = next) {
        next = n->next;
        if ((n->kind == TSJ_KIND_CALLM || n->kind == TSJ_KIND_CALLF) && n->callee) {
            tsj_graph *cg;
            tsj_frame *frame = n->frame;
            tsj_value **outs;
            rc = tsp_optimize_function(o->c, o->prog, o->ty, n->callee, 0, &cg);
            if (rc == 1)
                continue; /* recursive: left as a call */
            if (rc)
                return rc;
            if (n->label) {
                if (!(frame = om_arena_alloc(&o->c->tmp, sizeof(*frame))))
                    return ts_oom(o->c);
                frame->parent = n->frame;
                frame->label = n->label;
                frame->depth = n->frame ? n->frame->depth + 1 : 1;
                if (frame->depth > o->c->lim->max_depth)
                    return ts_fail(o->c, OPMAP_ELIMIT, NULL, 0, 0,
                                   "TorchScript submodule calls nested deeper than max_depth "
                                   "(%" PRIu32 ")", o->c->lim->max_depth);
                frame->what = n->callee->cls ? tsj_display_name(o->c, n->callee->cls->qual)
                                             : tsj_display_name(o->c, n->callee->qual);
                if (!frame->what)
                    return ts_oom(o->c);
            }
            /* refuse before copying: fan-out (f calls g twice, g calls h twice, ...) grows
             * exponentially */
            if (o->c->nodes > o->c->node_budget ||
                n->callee->optimized_size > o->c->node_budget - o->c->nodes)
                return ts_fail(o->c, OPMAP_ELIMIT, n->callee->file->entry, n->callee->line, 1,
                               "calls to %s expand to more than %" PRIu64 " nodes (max_nodes, "
                               "or max_heap_bytes / 512 when smaller)", n->callee->qual,
                               o->c->node_budget);
            if ((rc = tsj_inline_copy(o->c, cg, n, n->in, n->n_in, frame, &outs)))
                return rc;
            for (i = 0; i < n->n_out && i < cg->top->n_rets; i++)
                tsj_replace_uses(&n->out[i], outs[i]);
            tsj_unlink(n);
            continue;
        }
        for (i = 0; i < n->n_blk; i++)
            if ((rc = inline_calls(o, n->blk[i])))
                return rc;
    }
    return OPMAP_OK;
}

int tsp_optimize_function(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn, int root,
                          tsj_graph **out)
{
    tsp_state o;
    tsj_graph *g;
    int rc;
    if (fn->state == 2 && !root) {
        *out = fn->optimized;
        return OPMAP_OK;
    }
    if (fn->state == 1)
        return 1;
    if (c->call_depth >= c->lim->max_depth)
        return ts_fail(c, OPMAP_ELIMIT, fn->file->entry, fn->line, 1,
                       "TorchScript calls nested deeper than max_depth (%" PRIu32 ")",
                       c->lim->max_depth);
    fn->state = 1;
    if (fn->built) {
        g = fn->built;
        fn->built = NULL;
    } else if ((rc = tsj_build_function(c, prog, ty, fn, &g))) {
        return rc;
    }
    c->call_depth++;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.prog = prog;
    o.ty = ty;
    o.g = g;
    /* the compiler's cleanup passes, then inlining, then pre-optimization */
    rc = tsp_constprop(&o);
    if (!rc)
        rc = inline_calls(&o, g->top);
    if (!rc && !root) {
        rc = tsp_peephole(&o);
        if (!rc)
            rc = tsp_constprop(&o);
    }
    tsp_alias_free(&o);
    c->call_depth--;
    if (rc)
        return rc;
    fn->state = root ? 0 : 2;
    fn->optimized = root ? NULL : g;
    fn->optimized_size = tsj_count_nodes(g->top);
    *out = g;
    return OPMAP_OK;
}

/* ---- size estimate before inlining ---- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX / 4 - b ? UINT64_MAX / 4 : a + b;
}

static int estimate(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn, uint32_t depth);

static int estimate_block(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsj_block *b, uint32_t depth,
                          uint64_t *sum)
{
    tsj_node *x;
    uint32_t i;
    int rc;
    for (x = b->head; x; x = x->next) {
        *sum = sat_add(*sum, 1);
        if ((x->kind == TSJ_KIND_CALLM || x->kind == TSJ_KIND_CALLF) && x->callee) {
            if ((rc = estimate(c, prog, ty, x->callee, depth + 1)))
                return rc;
            *sum = sat_add(*sum, x->callee->est);
        }
        for (i = 0; i < x->n_blk; i++)
            if ((rc = estimate_block(c, prog, ty, x->blk[i], depth, sum)))
                return rc;
    }
    return OPMAP_OK;
}

static int estimate(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn, uint32_t depth)
{
    tsj_graph *g;
    int rc;
    uint64_t sum = 0;
    if (fn->est_state)
        return OPMAP_OK; /* done, or recursion (counted as nothing: it is not expanded) */
    if (depth >= c->lim->max_depth)
        return ts_fail(c, OPMAP_ELIMIT, fn->file->entry, fn->line, 1,
                       "TorchScript calls nested deeper than max_depth (%" PRIu32 ")",
                       c->lim->max_depth);
    fn->est_state = 1;
    if ((rc = tsj_build_function(c, prog, ty, fn, &g)))
        return rc;
    fn->built = g;
    if ((rc = estimate_block(c, prog, ty, g->top, depth, &sum)))
        return rc;
    fn->est = sum;
    fn->est_state = 2;
    return OPMAP_OK;
}

int tsp_precheck(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn)
{
    int rc = estimate(c, prog, ty, fn, 0);
    if (rc)
        return rc;
    if (fn->est / 64 > c->node_budget)
        return ts_fail(c, OPMAP_ELIMIT, fn->file->entry, fn->line, 1,
                       "calls from %s expand to about %" PRIu64 " nodes, over 64 x %" PRIu64
                       " (max_nodes, or max_heap_bytes / 512 when smaller)", fn->qual,
                       fn->est, c->node_budget);
    return OPMAP_OK;
}
