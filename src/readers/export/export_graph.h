/*
 * readers/export/export_graph.h - the Graph being converted, shared by export_graph.c (the
 * graph, its inputs and outputs, the tensor_values index) and export_node.c (its nodes).
 */
#ifndef OM_EXPORT_GRAPH_H
#define OM_EXPORT_GRAPH_H

#include "core/mem.h"
#include "readers/export/export_internal.h"

typedef struct tindex {
    const oj_value **slots;   /* members of tensor_values, open addressing */
    size_t cap;
} tindex;

typedef struct gstate {
    ex_ctx *x;
    tindex tv;
    const char *fqn;          /* module path of the enclosing node */
    uint32_t depth;
    om_vec inputs, args, attrs, outputs, types;   /* the node being built */
} gstate;

/* The tensor_values entry of a value name, or NULL. */
const oj_value *ex_tensor_value(const tindex *ix, const char *name);

/* The one member of a union (schema.yaml `kind: union`), or NULL. */
const oj_value *ex_member(const oj_value *u);

/* Node nj of the graph into n. */
int ex_node(gstate *s, const oj_value *nj, ir_node *n);

#endif /* OM_EXPORT_GRAPH_H */
