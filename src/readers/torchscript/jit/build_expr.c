/*
 * readers/torchscript/jit/build_expr.c - expressions: names, literals, attributes,
 * indexing and list, tuple and dict displays.
 *
 * Each expression becomes the nodes torch's compiler emits for it, in evaluation order,
 * and yields one value: a name is its value in the environment, a literal a constant
 * (tuples of literals too), `x[i]` a prim::TupleIndex on tuples and aten::__getitem__
 * otherwise, `obj.attr` a prim::GetAttr (or a class's Final constant). Calls are in
 * jit/build_call.c.
 */
#include <math.h>
#include <string.h>

#include "readers/torchscript/jit/build_internal.h"

int tsb_expr_args(bld *b, const ts_expr *e, og_node *n, uint32_t first)
{
    uint32_t i;
    int rc;
    for (i = 0; i < e->n; i++)
        if ((rc = tsb_expr(b, e->a[i], &n->in[first + i])))
            return rc;
    return OPMAP_OK;
}

/* A literal expression as a constant (defaults, Final values): NULL when not literal. */
int tsb_literal(bld *b, const ts_expr *e, og_const **out)
{
    og_const *cv = NULL;
    *out = NULL;
    switch (e->k) {
    case EX_NONE:
        cv = og_const_new(b->c, C_NONE);
        break;
    case EX_TRUE:
    case EX_FALSE:
        if ((cv = og_const_new(b->c, C_BOOL)))
            cv->i = e->k == EX_TRUE;
        break;
    case EX_INT:
        if ((cv = og_const_new(b->c, C_INT)))
            cv->i = e->i;
        break;
    case EX_FLOAT:
        if ((cv = og_const_new(b->c, C_FLOAT)))
            cv->f = e->f;
        break;
    case EX_STR:
        if ((cv = og_const_new(b->c, C_STR))) {
            cv->s = e->s;
            cv->slen = e->slen;
        }
        break;
    case EX_NAME:
        if (!strcmp(e->s, "inf") || !strcmp(e->s, "nan")) {
            if ((cv = og_const_new(b->c, C_FLOAT)))
                cv->f = !strcmp(e->s, "inf") ? HUGE_VAL : NAN;
        } else {
            return OPMAP_OK;
        }
        break;
    case EX_NEG: {
        og_const *x;
        int rc = tsb_literal(b, e->base, &x);
        if (rc || !x)
            return rc;
        if (x->k == C_INT)
            x->i = (int64_t)(0 - (uint64_t)x->i);
        else if (x->k == C_FLOAT)
            x->f = -x->f;
        else
            return OPMAP_OK;
        *out = x;
        return OPMAP_OK;
    }
    case EX_TUPLE: {
        uint32_t i;
        og_const *x;
        if (!(cv = og_const_new(b->c, C_TUPLE)))
            return tsb_oom(b);
        if (e->n && !(cv->el = om_arena_array(&b->c->tmp, e->n, sizeof(*cv->el))))
            return tsb_oom(b);
        for (i = 0; i < e->n; i++) {
            int rc = tsb_literal(b, e->a[i], &x);
            if (rc || !x)
                return rc;
            cv->el[i] = x;
        }
        cv->n = e->n;
        break;
    }
    case EX_CALL:
        /* torch.device("cpu") */
        if (e->base->k == EX_ATTR && e->base->base->k == EX_NAME &&
            e->base->base->s == b->n_torch && !strcmp(e->base->s, "device") && e->n == 1 &&
            e->a[0]->k == EX_STR && !tsb_env_get(b, b->n_torch)) {
            if ((cv = og_const_new(b->c, C_DEVICE))) {
                cv->s = e->a[0]->s;
                cv->slen = e->a[0]->slen;
            }
            break;
        }
        return OPMAP_OK;
    default:
        return OPMAP_OK;
    }
    if (!cv)
        return tsb_oom(b);
    *out = cv;
    return OPMAP_OK;
}

/* Value of a class attribute access obj.name. */
int tsb_get_attr(bld *b, const ts_expr *at, og_val *obj, const char *name, og_val **out)
{
    const ts_type *t = og_v(obj)->type;
    ts_class *cls = ty_get_class(t);
    og_node *n;
    uint32_t i;
    if (cls && t->k == TY_NAMEDTUPLE) {
        /* field access on a named tuple is a tuple index */
        for (i = 0; i < cls->n_attrs; i++)
            if (cls->attrs[i].name == name) {
                og_val *ix = tsb_const_simple(b, C_INT, i, at);
                if (!ix || !(n = tsb_emit(b, OK_TUPLEIDX, "prim", "TupleIndex", 2, 1, at)))
                    return tsb_oom(b);
                n->in[0] = obj;
                n->in[1] = ix;
                n->out[0].type = t->el[i];
                *out = &n->out[0];
                return OPMAP_OK;
            }
        return tsb_fail(b, at, "named tuple has no field '%s'", name);
    }
    if (cls) {
        for (i = 0; i < cls->n_attrs; i++) {
            ts_cattr *a = &cls->attrs[i];
            if (a->name != name)
                continue;
            if (a->value) {
                /* Final constants are folded by the compiler */
                og_const *cv;
                int rc = tsb_literal(b, a->value, &cv);
                if (rc)
                    return rc;
                if (cv) {
                    *out = tsb_const(b, cv, at);
                    return *out ? OPMAP_OK : tsb_oom(b);
                }
            }
            if (!a->rtype && !(a->rtype = ty_from_expr(b->ty, a->type)))
                return tsb_oom(b);
            if (!(n = tsb_emit(b, OK_GETATTR, "prim", "GetAttr", 1, 1, at)))
                return tsb_oom(b);
            n->in[0] = obj;
            n->name = name;
            n->out[0].type = a->rtype;
            *out = &n->out[0];
            return OPMAP_OK;
        }
        return tsb_fail(b, at, "class has no attribute '%s'", name);
    }
    if (!(n = tsb_emit(b, OK_GETATTR, "prim", "GetAttr", 1, 1, at)))
        return tsb_oom(b);
    n->in[0] = obj;
    n->name = name;
    n->out[0].type = tsb_prim(b, TY_UNKNOWN);
    *out = &n->out[0];
    return OPMAP_OK;
}

static int ex_attr_value(bld *b, const ts_expr *e, og_val **out)
{
    const char *root, *q;
    uint32_t parts;
    og_val *obj;
    int rc;
    q = tsb_dotted_name(b, e, &root, &parts);
    if (q && root == b->n_torch_) {
        void *v;
        int k = tsb_find_qual(b, q, &v);
        og_const *cv;
        if (k == 2) {
            if (!(cv = og_const_new(b->c, C_FUNC)))
                return tsb_oom(b);
            cv->fn = v;
            *out = tsb_const(b, cv, e);
            return *out ? OPMAP_OK : tsb_oom(b);
        }
        return tsb_fail(b, e, "'%s' is not a function of the archive", q);
    }
    if (q && root == b->n_constants && parts == 1) {
        og_const *cv = og_const_new(b->c, C_TENSOR);
        if (!cv)
            return tsb_oom(b);
        cv->s = e->s;
        cv->slen = (uint32_t)strlen(e->s);
        *out = tsb_const(b, cv, e);
        return *out ? OPMAP_OK : tsb_oom(b);
    }
    if (q && (root == b->n_torch || root == b->n_ops))
        return tsb_fail(b, e, "'%s' used as a value is not TorchScript's printed form", q);
    if ((rc = tsb_expr(b, e->base, &obj)))
        return rc;
    return tsb_get_attr(b, e, obj, e->s, out);
}

int tsb_expr(bld *b, const ts_expr *e, og_val **out)
{
    og_const *cv;
    og_node *n;
    int rc;
    uint32_t i;
    switch (e->k) {
    case EX_NAME: {
        og_val *v = tsb_env_get(b, e->s);
        if (v) {
            *out = v;
            return OPMAP_OK;
        }
        if ((rc = tsb_literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = tsb_const(b, cv, e);
            return *out ? OPMAP_OK : tsb_oom(b);
        }
        return tsb_fail(b, e, "name '%s' is not defined", e->s);
    }
    case EX_INT: case EX_FLOAT: case EX_STR: case EX_NONE: case EX_TRUE: case EX_FALSE:
        if ((rc = tsb_literal(b, e, &cv)))
            return rc;
        *out = tsb_const(b, cv, e);
        return *out ? OPMAP_OK : tsb_oom(b);
    case EX_NEG:
        if ((rc = tsb_literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = tsb_const(b, cv, e);
            return *out ? OPMAP_OK : tsb_oom(b);
        }
        if (!(n = tsb_emit(b, OK_NEG, "aten", "neg", 1, 1, e)))
            return tsb_oom(b);
        if ((rc = tsb_expr(b, e->base, &n->in[0])))
            return rc;
        tsb_settle(b, n);
        n->out[0].type = og_in(n, 0)->type;
        *out = &n->out[0];
        return OPMAP_OK;
    case EX_ATTR:
        return ex_attr_value(b, e, out);
    case EX_CALL:
        return tsb_call(b, e, 1, NULL, out);
    case EX_SUB: {
        og_val *obj, *ix;
        const ts_type *t;
        if ((rc = tsb_expr(b, e->base, &obj)) || (rc = tsb_expr(b, e->a[0], &ix)))
            return rc;
        t = og_v(obj)->type;
        cv = (og_const *)og_cval(obj);
        if ((t && (t->k == TY_TUPLE || t->k == TY_NAMEDTUPLE)) || (cv && cv->k == C_TUPLE)) {
            const og_const *ic = og_cval(ix);
            if (!(n = tsb_emit(b, OK_TUPLEIDX, "prim", "TupleIndex", 2, 1, e)))
                return tsb_oom(b);
            n->out[0].type = tsb_prim(b, TY_UNKNOWN);
            if (ic && ic->k == C_INT && t && t->n) {
                int64_t k = ic->i < 0 ? ic->i + (int64_t)t->n : ic->i;
                if (k >= 0 && k < (int64_t)t->n)
                    n->out[0].type = t->el[k];
            }
        } else {
            if (!(n = tsb_emit(b, OK_GETITEM, "aten", "__getitem__", 2, 1, e)))
                return tsb_oom(b);
        }
        n->in[0] = obj;
        n->in[1] = ix;
        if (n->kind == OK_GETITEM && !(n->out[0].type = tsb_builtin_type(b, n, 0)))
            return tsb_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_LIST: {
        const ts_type *et = NULL;
        if (!(n = tsb_emit(b, OK_LISTC, "prim", "ListConstruct", e->n, 1, e)))
            return tsb_oom(b);
        if ((rc = tsb_expr_args(b, e, n, 0)))
            return rc;
        tsb_settle(b, n);
        for (i = 0; i < e->n; i++) {
            const ts_type *it = og_in(n, i)->type;
            et = et ? ty_unify(b->ty, et, it) : it;
        }
        n->out[0].type = ty_list(b->ty, et ? et : tsb_prim(b, TY_UNKNOWN));
        if (!n->out[0].type)
            return tsb_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_TUPLE: {
        const ts_type *el[64];
        if ((rc = tsb_literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = tsb_const(b, cv, e);
            return *out ? OPMAP_OK : tsb_oom(b);
        }
        if (!(n = tsb_emit(b, OK_TUPLEC, "prim", "TupleConstruct", e->n, 1, e)))
            return tsb_oom(b);
        if ((rc = tsb_expr_args(b, e, n, 0)))
            return rc;
        tsb_settle(b, n);
        if (e->n <= 64) {
            for (i = 0; i < e->n; i++)
                el[i] = og_in(n, i)->type;
            n->out[0].type = ty_tuple(b->ty, el, e->n);
        } else {
            n->out[0].type = tsb_prim(b, TY_UNKNOWN);
        }
        if (!n->out[0].type)
            return tsb_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_DICT:
        if (!(n = tsb_emit(b, OK_DICTC, "prim", "DictConstruct", e->n, 1, e)))
            return tsb_oom(b);
        if ((rc = tsb_expr_args(b, e, n, 0)))
            return rc;
        tsb_settle(b, n);
        n->out[0].type = e->n >= 2 ? ty_dict(b->ty, og_in(n, 0)->type, og_in(n, 1)->type)
                                   : tsb_prim(b, TY_UNKNOWN);
        if (!n->out[0].type)
            return tsb_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    default:
        return tsb_fail(b, e, "unsupported expression");
    }
}
