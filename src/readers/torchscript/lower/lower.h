/*
 * readers/torchscript/lower/lower.h - the inlined, optimized graph of the root `forward` -> IR.
 *
 * Nodes inlined through a submodule call (`(self.layer1).forward(x)`) are grouped into a
 * call node whose callee is an ir_function and whose call_label is the submodule's
 * attribute path, so the walker's paths read main/layer3/4/conv2/conv2d_0. Identical
 * bodies share one ir_function (every BasicBlock of a ResNet stage, say). prim::If and
 * prim::Loop blocks become a GRAPHS attribute named "block".
 */
#ifndef OM_TS_LOWER_LOWER_H
#define OM_TS_LOWER_LOWER_H

#include "readers/torchscript/jit/graph.h"

/* Fills c->m's main graph and functions from `root`. prim::Constant nodes are left out.
 * Each node gets its call's arguments (ir_node.args). */
int tsir_lower(ts_ctx *c, tsj_graph *root);

/*
 * Call argument lists (ir_node.args) interned: equal lists share one copy in the model
 * arena, so nodes compare them by pointer. Floats compare by their bits. Used by tsir_lower
 * and by the graph text reader.
 */
typedef struct tsir_argtab {
    ts_ctx *c;
    struct tsir_arglist *tab;
    size_t cap, len;
} tsir_argtab;

/* The interned copy of a[0, n) (strings, int and float lists copied too); NULL on OOM. */
ir_attr *tsir_args_intern(tsir_argtab *t, const ir_attr *a, uint32_t n);
void tsir_args_free(tsir_argtab *t);

#endif /* OM_TS_LOWER_LOWER_H */
