/*
 * readers/torchscript/lang/types.c - TorchScript types: construction from annotations,
 * subtyping, unification and the predicates torch's passes use (see lang/types.h).
 */
#include "types.h"

#include <string.h>

void tsl_types_init(tsl_types *t, ts_ctx *c, tsl_program *prog)
{
    int k;
    memset(t, 0, sizeof(*t));
    t->c = c;
    t->prog = prog;
    for (k = 0; k < TY_PRIM_COUNT; k++)
        t->prim[k].k = (uint8_t)k;
}

const tsl_type *tsl_type_prim(tsl_types *t, int k)
{
    return &t->prim[k];
}

static tsl_type *mk(tsl_types *t, int k, uint32_t n)
{
    tsl_type *y = om_arena_alloc(&t->c->tmp, sizeof(*y));
    if (!y)
        return NULL;
    y->k = (uint8_t)k;
    y->n = n;
    if (n && !(y->el = om_arena_array(&t->c->tmp, n, sizeof(*y->el))))
        return NULL;
    return y;
}

const tsl_type *tsl_type_optional(tsl_types *t, const tsl_type *e)
{
    tsl_type *y;
    if (!e)
        return NULL;
    if (e->k == TY_OPTIONAL || e->k == TY_NONE || e->k == TY_ANY || e->k == TY_UNKNOWN)
        return e;
    if (!(y = mk(t, TY_OPTIONAL, 1)))
        return NULL;
    y->el[0] = e;
    return y;
}

const tsl_type *tsl_type_list(tsl_types *t, const tsl_type *e)
{
    tsl_type *y;
    if (!e || !(y = mk(t, TY_LIST, 1)))
        return NULL;
    y->el[0] = e;
    return y;
}

const tsl_type *tsl_type_dict(tsl_types *t, const tsl_type *k, const tsl_type *v)
{
    tsl_type *y;
    if (!k || !v || !(y = mk(t, TY_DICT, 2)))
        return NULL;
    y->el[0] = k;
    y->el[1] = v;
    return y;
}

const tsl_type *tsl_type_tuple(tsl_types *t, const tsl_type *const *els, uint32_t n)
{
    tsl_type *y = mk(t, TY_TUPLE, n);
    uint32_t i;
    if (!y)
        return NULL;
    for (i = 0; i < n; i++) {
        if (!els[i])
            return NULL;
        y->el[i] = els[i];
    }
    return y;
}

const tsl_type *tsl_type_class(tsl_types *t, tsl_class *cls)
{
    tsl_type *y;
    if (cls->type)
        return cls->type;
    if (strcmp(cls->base, "NamedTuple") == 0) {
        uint32_t i, n = 0;
        /* a placeholder first: a (hostile) field of its own type does not recurse */
        cls->type = &t->prim[TY_OTHER];
        for (i = 0; i < cls->n_attrs; i++)
            n++;
        if (!(y = mk(t, TY_NAMEDTUPLE, n)))
            return NULL;
        y->cls = cls;
        for (i = 0; i < cls->n_attrs; i++) {
            const tsl_type *f = cls->attrs[i].type ? tsl_type_from_expr(t, cls->attrs[i].type)
                                                  : &t->prim[TY_UNKNOWN];
            if (!f)
                return NULL;
            y->el[i] = f;
        }
        cls->type = y;
        return y;
    }
    if (!(y = mk(t, TY_CLASS, 0)))
        return NULL;
    y->cls = cls;
    cls->type = y;
    return y;
}

/* "__torch__.a.b.C" from an attribute chain rooted at the name __torch__, or NULL. */
static const char *chain_name(tsl_types *t, const tsl_expr *e)
{
    char buf[1024];
    size_t len = 0;
    const tsl_expr *parts[128];
    size_t np = 0, i;
    while (e->k == EX_ATTR && np < 128) {
        parts[np++] = e;
        e = e->base;
    }
    if (e->k != EX_NAME || strcmp(e->s, "__torch__") != 0 || np == 128)
        return NULL;
    len = strlen(e->s);
    memcpy(buf, e->s, len);
    for (i = np; i-- > 0;) {
        size_t l = strlen(parts[i]->s);
        if (len + 1 + l >= sizeof(buf))
            return NULL;
        buf[len++] = '.';
        memcpy(buf + len, parts[i]->s, l);
        len += l;
    }
    return ts_intern_scratch(t->c, buf, len);
}

const tsl_type *tsl_type_from_expr(tsl_types *t, const tsl_expr *e)
{
    if (!e)
        return &t->prim[TY_UNKNOWN];
    if (e->k == EX_NONE)
        return &t->prim[TY_NONE];
    if (e->k == EX_NAME) {
        static const struct {
            const char *name;
            int k;
        } names[] = {
            { "Tensor", TY_TENSOR }, { "int", TY_INT }, { "float", TY_FLOAT },
            { "bool", TY_BOOL }, { "str", TY_STR }, { "NoneType", TY_NONE },
            { "Device", TY_DEVICE }, { "number", TY_NUMBER }, { "Scalar", TY_NUMBER },
            { "Any", TY_ANY }, { "ScalarType", TY_INT }, { "Layout", TY_INT },
            { "MemoryFormat", TY_INT }, { "complex", TY_NUMBER }
        };
        size_t k;
        for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
            if (strcmp(e->s, names[k].name) == 0)
                return &t->prim[names[k].k];
        return &t->prim[TY_OTHER];
    }
    if (e->k == EX_ATTR) {
        const char *q = chain_name(t, e);
        void *v;
        if (q && tsl_program_find(t->prog, q, &v) == 1)
            return tsl_type_class(t, v);
        return &t->prim[TY_OTHER];
    }
    if (e->k == EX_SUB && e->base->k == EX_NAME) {
        const char *g = e->base->s;
        const tsl_expr *ix = e->a[0];
        const tsl_expr *const *args =
            ix->k == EX_TUPLE && !ix->paren ? (const tsl_expr *const *)ix->a : &ix;
        uint32_t n = ix->k == EX_TUPLE && !ix->paren ? ix->n : 1, i;
        const tsl_type *el[64];
        if (n > 64)
            return &t->prim[TY_OTHER];
        if (n == 1 && args[0]->k == EX_TUPLE && args[0]->n == 0) /* Tuple[()] */
            n = 0;
        for (i = 0; i < n; i++)
            if (!(el[i] = tsl_type_from_expr(t, args[i])))
                return NULL;
        if (strcmp(g, "Optional") == 0 && n == 1)
            return tsl_type_optional(t, el[0]);
        if (strcmp(g, "List") == 0 && n == 1)
            return tsl_type_list(t, el[0]);
        if (strcmp(g, "Final") == 0 && n == 1)
            return el[0];
        if (strcmp(g, "Tuple") == 0)
            return tsl_type_tuple(t, el, n);
        if (strcmp(g, "Dict") == 0 && n == 2)
            return tsl_type_dict(t, el[0], el[1]);
        if ((strcmp(g, "Future") == 0 || strcmp(g, "Await") == 0) && n == 1) {
            tsl_type *y = mk(t, TY_FUTURE, 1);
            if (y)
                y->el[0] = el[0];
            return y;
        }
        if (strcmp(g, "Union") == 0 && n) {
            tsl_type *y;
            int has_none = 0;
            uint32_t m = 0;
            for (i = 0; i < n; i++)
                has_none |= el[i]->k == TY_NONE;
            if (n == 2 && has_none)
                return tsl_type_optional(t, el[0]->k == TY_NONE ? el[1] : el[0]);
            if (!(y = mk(t, TY_UNION, n)))
                return NULL;
            for (i = 0; i < n; i++)
                y->el[m++] = el[i];
            return y;
        }
        return &t->prim[TY_OTHER];
    }
    return &t->prim[TY_OTHER];
}

tsl_class *tsl_type_get_class(const tsl_type *t)
{
    if (t && t->k == TY_OPTIONAL)
        t = t->el[0];
    return t && (t->k == TY_CLASS || t->k == TY_NAMEDTUPLE) ? t->cls : NULL;
}

int tsl_type_eq(const tsl_type *a, const tsl_type *b)
{
    uint32_t i;
    if (a == b)
        return 1;
    if (!a || !b || a->k != b->k || a->n != b->n)
        return 0;
    if (a->k == TY_UNKNOWN || a->k == TY_OTHER)
        return 0;
    if ((a->k == TY_CLASS || a->k == TY_NAMEDTUPLE) && a->cls != b->cls)
        return 0;
    for (i = 0; i < a->n; i++)
        if (!tsl_type_eq(a->el[i], b->el[i]))
            return 0;
    return 1;
}

static int is_tuple(const tsl_type *t)
{
    return t->k == TY_TUPLE || t->k == TY_NAMEDTUPLE;
}

int tsl_type_is_subtype(const tsl_type *a, const tsl_type *b)
{
    uint32_t i;
    if (!a || !b || a->k == TY_UNKNOWN || b->k == TY_UNKNOWN || a->k == TY_OTHER ||
        b->k == TY_OTHER)
        return 0;
    if (tsl_type_eq(a, b) || b->k == TY_ANY)
        return 1;
    if (b->k == TY_NUMBER && (a->k == TY_INT || a->k == TY_FLOAT))
        return 1;
    if (b->k == TY_OPTIONAL) {
        if (a->k == TY_NONE)
            return 1;
        if (a->k == TY_OPTIONAL)
            return tsl_type_is_subtype(a->el[0], b->el[0]);
        return tsl_type_is_subtype(a, b->el[0]);
    }
    if (b->k == TY_UNION) {
        if (a->k == TY_UNION) {
            for (i = 0; i < a->n; i++)
                if (!tsl_type_is_subtype(a->el[i], b))
                    return 0;
            return 1;
        }
        for (i = 0; i < b->n; i++)
            if (tsl_type_is_subtype(a, b->el[i]))
                return 1;
        return 0;
    }
    if (is_tuple(a) && b->k == TY_TUPLE && a->n == b->n) {
        for (i = 0; i < a->n; i++)
            if (!tsl_type_is_subtype(a->el[i], b->el[i]))
                return 0;
        return 1;
    }
    return 0;
}

const tsl_type *tsl_type_unify(tsl_types *t, const tsl_type *a, const tsl_type *b)
{
    if (!a || !b)
        return &t->prim[TY_UNKNOWN];
    if (tsl_type_is_subtype(a, b))
        return b;
    if (tsl_type_is_subtype(b, a))
        return a;
    if (a->k == TY_NONE && b->k != TY_UNKNOWN && b->k != TY_OTHER)
        return tsl_type_optional(t, b);
    if (b->k == TY_NONE && a->k != TY_UNKNOWN && a->k != TY_OTHER)
        return tsl_type_optional(t, a);
    if (a->k == TY_OPTIONAL && b->k != TY_OPTIONAL) {
        const tsl_type *u = tsl_type_unify(t, a->el[0], b);
        return u && u->k != TY_UNKNOWN ? tsl_type_optional(t, u) : u;
    }
    if (b->k == TY_OPTIONAL && a->k != TY_OPTIONAL) {
        const tsl_type *u = tsl_type_unify(t, a, b->el[0]);
        return u && u->k != TY_UNKNOWN ? tsl_type_optional(t, u) : u;
    }
    if (is_tuple(a) && is_tuple(b) && a->n == b->n && a->n <= 64) {
        const tsl_type *el[64];
        uint32_t i;
        for (i = 0; i < a->n; i++) {
            el[i] = tsl_type_unify(t, a->el[i], b->el[i]);
            if (!el[i] || el[i]->k == TY_UNKNOWN)
                return &t->prim[TY_UNKNOWN];
        }
        return tsl_type_tuple(t, el, a->n);
    }
    return &t->prim[TY_UNKNOWN];
}

int tsl_type_mutable(const tsl_type *t)
{
    uint32_t i;
    if (!t)
        return 1;
    switch (t->k) {
    case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STR: case TY_NONE: case TY_DEVICE:
    case TY_NUMBER: case TY_FUNCTION:
        return 0;
    case TY_OPTIONAL:
        return tsl_type_mutable(t->el[0]);
    case TY_TUPLE: case TY_NAMEDTUPLE: case TY_UNION:
        for (i = 0; i < t->n; i++)
            if (tsl_type_mutable(t->el[i]))
                return 1;
        return 0;
    default:
        return 1;
    }
}

int tsl_type_must_not_be_none(const tsl_type *t)
{
    uint32_t i;
    if (!t || t->k == TY_UNKNOWN || t->k == TY_OTHER || t->k == TY_NONE ||
        t->k == TY_OPTIONAL)
        return 0;
    if (t->k == TY_UNION) {
        for (i = 0; i < t->n; i++)
            if (t->el[i]->k == TY_NONE || t->el[i]->k == TY_OPTIONAL)
                return 0;
    }
    return 1;
}
