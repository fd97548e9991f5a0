/*
 * walker/walker.h - visit every operator instance of a model.
 *
 * Order: depth-first, in node order: the main graph, then ONNX training graphs. A node is
 * visited, then each subgraph it holds (If's then/else, Loop's body, Scan's body, any
 * GRAPH/GRAPHS attribute, to any depth). A node that calls a function of the model is not
 * visited itself: the function's body is walked in its place, once per call, so counts and
 * paths follow the call stack. Recursive calls are not expanded (reported through `diag`).
 *
 * Iterative (explicit stack), bounded by limits.max_depth (nesting of subgraphs and calls),
 * limits.max_nodes (instances visited after expansion) and limits.max_expansions (subgraphs
 * entered and calls expanded).
 */
#ifndef OM_WALKER_H
#define OM_WALKER_H

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"
#include "ir/ir.h"

typedef struct om_visit {
    const ir_node *node;
    /* The node with its attributes as the call binds them, for what reads attribute values
     * (constraints): in a function body, each attribute with a ref_attr_name is replaced by
     * the caller's attribute of that name (keeping its own name), or the function's default
     * (ONNX IR 9), or dropped when neither is there, as onnx's inliner and onnxruntime bind
     * them. `node` itself when nothing is bound. Valid during the call only; its address is
     * not in `graph` (use `node` for positions). */
    const ir_node *bound;
    const ir_graph *graph;     /* the graph (or function body) holding the node */
    const char *path;          /* e.g. "main/If_3/then_branch/Conv_7"; valid during the call */
    int64_t opset;             /* version of the node's domain in effect, 0 if not imported */
    uint32_t depth;            /* nesting: 0 in the main graph */
    const ir_opset *opsets;    /* imports in effect (the function's inside a function body) */
    size_t n_opsets;
    uint32_t seq;              /* the node sequence it belongs to: one per graph and subgraph
                                * instance; a function body continues its caller's */
    size_t seq_path_len;       /* path[0, seq_path_len) names that sequence's graph */
} om_visit;

/* Called per instance; a non-zero return (an opmap_status) stops the walk with it. */
typedef int (*om_visit_fn)(void *payload, const om_visit *v);

/* Called for things worth telling that are not instances (e.g. recursion not expanded). */
typedef int (*om_walk_note_fn)(void *payload, const char *message, const char *path);

int om_walk(const ir_model *m, const opmap_limits *lim, om_mem *mem, om_visit_fn visit,
            om_walk_note_fn note, void *payload, opmap_error *err);

#endif /* OM_WALKER_H */
