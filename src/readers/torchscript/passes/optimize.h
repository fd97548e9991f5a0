/*
 * readers/torchscript/passes/optimize.h - torch's inlining and pre-optimization, reproduced so
 * that the operators opmap counts are those of torch.jit.load(f).inlined_graph.
 *
 * torch compiles each function from its printed code (cleanup: constant propagation on
 * immutable types), and inlines a call by copying the callee's *optimized* graph: the
 * callee's own calls inlined, then PeepholeOptimize and ConstantPropagationImmutableTypes
 * (each followed by dead code elimination when it changed something). The root `forward`
 * is inlined but not optimized. tsp_optimize_function does exactly this, memoizing each
 * function's optimized graph; docs/torchscript.md lists the rules.
 */
#ifndef OM_TS_PASSES_OPTIMIZE_H
#define OM_TS_PASSES_OPTIMIZE_H

#include "readers/torchscript/lang/syntax.h"
#include "readers/torchscript/jit/graph.h"
#include "readers/torchscript/lang/types.h"

/*
 * The graph of fn with every call inlined; optimized unless `root`. A call that would recurse
 * is left as a prim::CallMethod / prim::CallFunction node.
 */
int tsp_optimize_function(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn, int root,
                          tsj_graph **out);

/*
 * Builds the graphs of fn and everything it calls and checks, before any copying, that
 * inlining cannot explode: the unoptimized expansion must stay under 64 x the node budget
 * (exponential call fan-out fails here at once).
 */
int tsp_precheck(ts_ctx *c, tsl_program *prog, tsl_types *ty, tsl_func *fn);

#endif /* OM_TS_PASSES_OPTIMIZE_H */
