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

#include "syntax.h"

enum {
    TY_UNKNOWN, TY_ANY, TY_TENSOR, TY_INT, TY_FLOAT, TY_BOOL, TY_STR, TY_NONE, TY_DEVICE,
    TY_NUMBER, TY_FUNCTION, TY_OTHER, TY_PRIM_COUNT,
    TY_OPTIONAL = TY_PRIM_COUNT, TY_LIST, TY_TUPLE, TY_DICT, TY_UNION, TY_CLASS, TY_NAMEDTUPLE,
    TY_FUTURE
};

typedef struct tsl_type {
    uint8_t k;
    uint32_t n;                       /* contained types */
    const struct tsl_type **el;        /* Optional/List/Future: 1; Dict: 2; Tuple/Union: n */
    tsl_class *cls;                    /* TY_CLASS, TY_NAMEDTUPLE */
} tsl_type;

typedef struct tsl_types {
    ts_ctx *c;
    tsl_program *prog;
    tsl_type prim[TY_PRIM_COUNT];
} tsl_types;

void tsl_types_init(tsl_types *t, ts_ctx *c, tsl_program *prog);

const tsl_type *tsl_type_prim(tsl_types *t, int k);
const tsl_type *tsl_type_optional(tsl_types *t, const tsl_type *e);
const tsl_type *tsl_type_list(tsl_types *t, const tsl_type *e);
const tsl_type *tsl_type_dict(tsl_types *t, const tsl_type *k, const tsl_type *v);
const tsl_type *tsl_type_tuple(tsl_types *t, const tsl_type *const *els, uint32_t n);
const tsl_type *tsl_type_class(tsl_types *t, tsl_class *cls); /* NamedTuple classes become tuples */

/* Resolves an annotation; unknown names give TY_OTHER, NULL only when out of memory. */
const tsl_type *tsl_type_from_expr(tsl_types *t, const tsl_expr *e);

int tsl_type_eq(const tsl_type *a, const tsl_type *b);
int tsl_type_is_subtype(const tsl_type *a, const tsl_type *b); /* a is a subtype of b */
const tsl_type *tsl_type_unify(tsl_types *t, const tsl_type *a,
                               const tsl_type *b); /* UNKNOWN if none */

int tsl_type_mutable(const tsl_type *t);           /* AliasDb::isMutableType */
int tsl_type_must_not_be_none(const tsl_type *t);  /* Value::mustNotBeNone, by type */

/* The class of a class-typed value (Optional stripped), or NULL. */
tsl_class *tsl_type_get_class(const tsl_type *t);

#endif /* OM_TS_LANG_TYPES_H */
