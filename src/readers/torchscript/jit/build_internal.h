/*
 * readers/torchscript/jit/build_internal.h - what the builder's files share: the state of
 * one function's build (its graph so far and the name environment) and the helpers that
 * expressions, calls and statements all use, so each of them can live in a file of its own.
 */
#ifndef OM_TS_JIT_BUILD_INTERNAL_H
#define OM_TS_JIT_BUILD_INTERNAL_H

#include "readers/torchscript/jit/build.h"

typedef struct undo_rec {
    const char *k;
    og_val *old;
} undo_rec;

typedef struct bld {
    ts_ctx *c;
    ts_prog *prog;
    ts_tys *ty;
    ts_func *fn;
    ts_file *file;
    og_graph *g;
    og_block *blk;
    og_val *self;
    /* environment: interned name -> value, with an undo log */
    const char **keys;
    og_val **vals;
    uint32_t *stamps, *aux;
    const ts_type **decl;     /* declared types of annotated assignments */
    size_t cap, len;
    om_vec undo;
    const char *n_torch, *n_ops, *n_torch_, *n_constants, *n_self;
} bld;

typedef struct named {
    const char *k;
    og_val *v;
} named;

/* jit/build.c: errors (each returns the status it set) and small helpers */
int tsb_fail(bld *b, const ts_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tsb_oom(bld *b);
const ts_type *tsb_prim(bld *b, int k);

/* jit/build.c: the environment */
size_t tsb_env_slot(bld *b, const char *k);
size_t tsb_env_find(const bld *b, const char *k);
og_val *tsb_env_get(bld *b, const char *k);
int tsb_env_set(bld *b, const char *k, og_val *v);
void tsb_env_restore(bld *b, size_t mark);
int tsb_assigned_since(bld *b, size_t mark, uint32_t stamp, om_vec *out);

/* jit/build.c: nodes, appended to the current block with their source line */
void tsb_set_src(bld *b, og_node *n, const ts_expr *at, uint32_t off);
og_node *tsb_emit(bld *b, int kind, const char *ns, const char *op, uint32_t n_in,
                  uint32_t n_out, const ts_expr *at);
void tsb_settle(bld *b, og_node *n);
og_node *tsb_emit_kind(bld *b, const char *ns, const char *op, uint32_t n_in,
                       uint32_t n_out, const ts_expr *at);
og_val *tsb_const(bld *b, og_const *cv, const ts_expr *at);
og_val *tsb_const_simple(bld *b, int k, int64_t i, const ts_expr *at);

/* jit/build.c: global names */
const char *tsb_dotted_name(bld *b, const ts_expr *e, const char **root, uint32_t *parts);
int tsb_find_qual(bld *b, const char *q, void **v);

/* jit/build_types.c: the type of a builtin's result (aten::, prim:: and custom ops) */
const ts_type *tsb_builtin_type(bld *b, og_node *n, uint32_t out_index);

/* jit/build_expr.c */
int tsb_expr(bld *b, const ts_expr *e, og_val **out);
int tsb_expr_args(bld *b, const ts_expr *e, og_node *n, uint32_t first);
int tsb_literal(bld *b, const ts_expr *e, og_const **out);
int tsb_get_attr(bld *b, const ts_expr *at, og_val *obj, const char *name, og_val **out);

/* jit/build_call.c: calls; n_out > 1 only for `a, b = torch.op(...)` */
int tsb_call(bld *b, const ts_expr *e, uint32_t n_out, og_node **multi, og_val **out);

/* jit/build_stmt.c: a statement list; `top` for a function's body (where return may end it) */
int tsb_stmts(bld *b, ts_stmt **s, uint32_t n, int top);

#endif /* OM_TS_JIT_BUILD_INTERNAL_H */
