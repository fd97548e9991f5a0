/*
 * readers/torchscript/ts_emit.h - the inlined, optimized graph of the root `forward` -> IR.
 *
 * Nodes inlined through a submodule call (`(self.layer1).forward(x)`) are grouped into a
 * call node whose callee is an ir_function and whose call_label is the submodule's
 * attribute path, so the walker's paths read main/layer3/4/conv2/conv2d_0. Identical
 * bodies share one ir_function (every BasicBlock of a ResNet stage, say). prim::If and
 * prim::Loop blocks become a GRAPHS attribute named "block".
 */
#ifndef OM_TS_EMIT_H
#define OM_TS_EMIT_H

#include "ts_og.h"

/* Fills c->m's main graph and functions from `root`. prim::Constant nodes are left out. */
int ts_emit(ts_ctx *c, og_graph *root);

#endif /* OM_TS_EMIT_H */
