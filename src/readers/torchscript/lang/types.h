/*
 * readers/torchscript/lang/types.h - TorchScript types, as far as the optimizer needs them.
 *
 * Types come from annotations in the code (signatures, class headers, annotate(),
 * unchecked_cast(), uninitialized()) and from what builtins return. They decide what
 * torch's optimizer may fold: which values can be None, which are mutable, whether `x[i]`
 * is a tuple index or aten::__getitem__, and what an If's outputs unify to.
 */
#ifndef OM_TS_LANG_TYPES_H
#define OM_TS_LANG_TYPES_H

#include <stdint.h>

#include "readers/torchscript/lang/syntax.h"

enum {
    TY_UNKNOWN, TY_ANY, TY_TENSOR, TY_INT, TY_FLOAT, TY_BOOL, TY_STR, TY_NONE, TY_DEVICE,
    TY_NUMBER, TY_FUNCTION, TY_OTHER, TY_PRIM_COUNT,
    TY_OPTIONAL = TY_PRIM_COUNT, TY_LIST, TY_TUPLE, TY_DICT, TY_UNION, TY_CLASS, TY_NAMEDTUPLE,
    TY_FUTURE
};

typedef struct ts_type {
    uint8_t k;
    uint32_t n;                       /* contained types */
    const struct ts_type **el;        /* Optional/List/Future: 1; Dict: 2; Tuple/Union: n */
    ts_class *cls;                    /* TY_CLASS, TY_NAMEDTUPLE */
} ts_type;

typedef struct ts_tys {
    ts_ctx *c;
    ts_prog *prog;
    ts_type prim[TY_PRIM_COUNT];
} ts_tys;

void ts_tys_init(ts_tys *t, ts_ctx *c, ts_prog *prog);

const ts_type *ty_prim(ts_tys *t, int k);
const ts_type *ty_optional(ts_tys *t, const ts_type *e);
const ts_type *ty_list(ts_tys *t, const ts_type *e);
const ts_type *ty_dict(ts_tys *t, const ts_type *k, const ts_type *v);
const ts_type *ty_tuple(ts_tys *t, const ts_type *const *els, uint32_t n);
const ts_type *ty_class(ts_tys *t, ts_class *cls);   /* NamedTuple classes become tuples */

/* Resolves an annotation; unknown names give TY_OTHER, NULL only when out of memory. */
const ts_type *ty_from_expr(ts_tys *t, const ts_expr *e);

int ty_eq(const ts_type *a, const ts_type *b);
int ty_sub(const ts_type *a, const ts_type *b);              /* a is a subtype of b */
const ts_type *ty_unify(ts_tys *t, const ts_type *a, const ts_type *b); /* UNKNOWN if none */

int ty_mutable(const ts_type *t);           /* AliasDb::isMutableType */
int ty_must_not_be_none(const ts_type *t);  /* Value::mustNotBeNone, by type */

/* The class of a class-typed value (Optional stripped), or NULL. */
ts_class *ty_get_class(const ts_type *t);

#endif /* OM_TS_LANG_TYPES_H */
