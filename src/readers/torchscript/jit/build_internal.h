/*
 * readers/torchscript/jit/build_internal.h - what the builder's files share: the state of
 * one function's build (its graph so far and the name environment) and the helpers that
 * expressions, calls and statements all use, so each of them can live in a file of its own.
 */
#ifndef OM_TS_JIT_BUILD_INTERNAL_H
#define OM_TS_JIT_BUILD_INTERNAL_H

#include "build.h"

typedef struct tsj_undo_rec {
    const char *k;
    tsj_value *old;
} tsj_undo_rec;

typedef struct tsj_builder {
    ts_ctx *c;
    tsl_program *prog;
    tsl_types *ty;
    tsl_func *fn;
    tsl_file *file;
    tsj_graph *g;
    tsj_block *blk;
    tsj_value *self;
    /* environment: interned name -> value, with an undo log */
    const char **keys;
    tsj_value **vals;
    uint32_t *stamps, *aux;
    const tsl_type **decl;     /* declared types of annotated assignments */
    size_t cap, len;
    om_vec undo;
    const char *n_torch, *n_ops, *n_torch_, *n_constants, *n_self;
} tsj_builder;

typedef struct tsj_named_value {
    const char *k;
    tsj_value *v;
} tsj_named_value;

/* jit/build.c: errors (each returns the status it set) and small helpers */
int tsj_build_fail(tsj_builder *b, const tsl_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tsj_build_oom(tsj_builder *b);
const tsl_type *tsj_prim_type(tsj_builder *b, int k);

/* jit/build.c: the environment */
size_t tsj_env_slot(tsj_builder *b, const char *k);
size_t tsj_env_find(const tsj_builder *b, const char *k);
tsj_value *tsj_env_get(tsj_builder *b, const char *k);
int tsj_env_set(tsj_builder *b, const char *k, tsj_value *v);
void tsj_env_restore(tsj_builder *b, size_t mark);
int tsj_env_assigned_since(tsj_builder *b, size_t mark, uint32_t stamp, om_vec *out);

/* jit/build.c: nodes, appended to the current block with their source line */
void tsj_set_source(tsj_builder *b, tsj_node *n, const tsl_expr *at, uint32_t off);
tsj_node *tsj_add_node(tsj_builder *b, int kind, const char *ns, const char *op, uint32_t n_in,
                       uint32_t n_out, const tsl_expr *at);
void tsj_settle(tsj_builder *b, tsj_node *n);
tsj_node *tsj_add_op(tsj_builder *b, const char *ns, const char *op, uint32_t n_in,
                     uint32_t n_out, const tsl_expr *at);
tsj_value *tsj_add_const(tsj_builder *b, tsj_const *cv, const tsl_expr *at);
tsj_value *tsj_add_const_simple(tsj_builder *b, int k, int64_t i, const tsl_expr *at);

/* jit/build.c: global names */
const char *tsj_dotted_name(tsj_builder *b, const tsl_expr *e, const char **root, uint32_t *parts);
int tsj_find_qual(tsj_builder *b, const char *q, void **v);

/* jit/build_types.c: the type of a builtin's result (aten::, prim:: and custom ops) */
const tsl_type *tsj_builtin_type(tsj_builder *b, tsj_node *n, uint32_t out_index);

/* jit/build_expr.c */
int tsj_build_expr(tsj_builder *b, const tsl_expr *e, tsj_value **out);
int tsj_build_args(tsj_builder *b, const tsl_expr *e, tsj_node *n, uint32_t first);
int tsj_literal(tsj_builder *b, const tsl_expr *e, tsj_const **out);
int tsj_get_attr(tsj_builder *b, const tsl_expr *at, tsj_value *obj, const char *name,
                 tsj_value **out);

/* jit/build_call.c: calls; n_out > 1 only for `a, b = torch.op(...)` */
int tsj_build_call(tsj_builder *b, const tsl_expr *e, uint32_t n_out, tsj_node **multi,
                   tsj_value **out);

/* jit/build_stmt.c: a statement list; `top` for a function's body (where return may end it) */
int tsj_build_stmts(tsj_builder *b, tsl_stmt **s, uint32_t n, int top);

#endif /* OM_TS_JIT_BUILD_INTERNAL_H */
