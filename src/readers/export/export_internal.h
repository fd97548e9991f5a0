/*
 * readers/export/export_internal.h - what the program converter (export_graph.c,
 * export_program.c) and the metadata readers (export_meta.c) share.
 */
#ifndef OM_EXPORT_INTERNAL_H
#define OM_EXPORT_INTERNAL_H

#include <stddef.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "ir/ir.h"
#include "core/json.h"

typedef struct ex_ctx {
    ir_model *m;
    const opmap_limits *lim;
    opmap_error *err;
    char source[700];         /* "<model>:<entry>" */
    ir_interner *in;          /* the model's: domains, ops, names (compared by pointer) */
    const oj_value *ranges;   /* range_constraints */
    const char *d_aten;
} ex_ctx;

int ex_oom(ex_ctx *x);
/* An error at JSON value v (its byte offset in the entry), or the entry when v is NULL. */
int ex_fail(ex_ctx *x, int code, const oj_value *v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* export_meta.c */
int ex_dtype(const oj_value *scalar_type);
int ex_tensor_type(ex_ctx *x, const oj_value *meta, ir_type *t);
void ex_module_path(const char *nn_module_stack, char *out, size_t cap);
void ex_source_line(ex_ctx *x, const char *stack_trace, ir_node *n);

/* export_graph.c: one Graph (schema.yaml) into *out; `fqn` is the module path of the node
 * holding it ("" for the program's graph), `depth` its nesting. `sig` (the program's
 * graph signature, or NULL) makes parameters, buffers and constants initializers. */
int ex_graph(ex_ctx *x, const oj_value *graph, const oj_value *sig, const char *fqn,
             uint32_t depth, ir_graph **out);

#endif /* OM_EXPORT_INTERNAL_H */
