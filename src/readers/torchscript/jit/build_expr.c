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

#include "build_internal.h"

int tsj_build_args(tsj_builder *b, const tsl_expr *e, tsj_node *n, uint32_t first)
{
    uint32_t i;
    int rc;
    for (i = 0; i < e->n; i++)
        if ((rc = tsj_build_expr(b, e->a[i], &n->in[first + i])))
            return rc;
    return OPMAP_OK;
}

/* A literal expression as a constant (defaults, Final values): NULL when not literal. */
int tsj_literal(tsj_builder *b, const tsl_expr *e, tsj_const **out)
{
    tsj_const *cv = NULL;
    *out = NULL;
    switch (e->k) {
    case EX_NONE:
        cv = tsj_const_new(b->c, TSJ_CONST_NONE);
        break;
    case EX_TRUE:
    case EX_FALSE:
        if ((cv = tsj_const_new(b->c, TSJ_CONST_BOOL)))
            cv->i = e->k == EX_TRUE;
        break;
    case EX_INT:
        if ((cv = tsj_const_new(b->c, TSJ_CONST_INT)))
            cv->i = e->i;
        break;
    case EX_FLOAT:
        if ((cv = tsj_const_new(b->c, TSJ_CONST_FLOAT)))
            cv->f = e->f;
        break;
    case EX_STR:
        if ((cv = tsj_const_new(b->c, TSJ_CONST_STR))) {
            cv->s = e->s;
            cv->slen = e->slen;
        }
        break;
    case EX_NAME:
        if (!strcmp(e->s, "inf") || !strcmp(e->s, "nan")) {
            if ((cv = tsj_const_new(b->c, TSJ_CONST_FLOAT)))
                cv->f = !strcmp(e->s, "inf") ? HUGE_VAL : NAN;
        } else {
            return OPMAP_OK;
        }
        break;
    case EX_NEG: {
        tsj_const *x;
        int rc = tsj_literal(b, e->base, &x);
        if (rc || !x)
            return rc;
        if (x->k == TSJ_CONST_INT)
            x->i = (int64_t)(0 - (uint64_t)x->i);
        else if (x->k == TSJ_CONST_FLOAT)
            x->f = -x->f;
        else
            return OPMAP_OK;
        *out = x;
        return OPMAP_OK;
    }
    case EX_TUPLE: {
        uint32_t i;
        tsj_const *x;
        if (!(cv = tsj_const_new(b->c, TSJ_CONST_TUPLE)))
            return tsj_build_oom(b);
        if (e->n && !(cv->el = om_arena_array(&b->c->tmp, e->n, sizeof(*cv->el))))
            return tsj_build_oom(b);
        for (i = 0; i < e->n; i++) {
            int rc = tsj_literal(b, e->a[i], &x);
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
            e->a[0]->k == EX_STR && !tsj_env_get(b, b->n_torch)) {
            if ((cv = tsj_const_new(b->c, TSJ_CONST_DEVICE))) {
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
        return tsj_build_oom(b);
    *out = cv;
    return OPMAP_OK;
}

/* Value of a class attribute access obj.name. */
int tsj_get_attr(tsj_builder *b, const tsl_expr *at, tsj_value *obj, const char *name,
                 tsj_value **out)
{
    const tsl_type *t = tsj_resolve(obj)->type;
    tsl_class *cls = tsl_type_get_class(t);
    tsj_node *n;
    uint32_t i;
    if (cls && t->k == TY_NAMEDTUPLE) {
        /* field access on a named tuple is a tuple index */
        for (i = 0; i < cls->n_attrs; i++)
            if (cls->attrs[i].name == name) {
                tsj_value *ix = tsj_add_const_simple(b, TSJ_CONST_INT, i, at);
                if (!ix ||
                    !(n = tsj_add_node(b, TSJ_KIND_TUPLEIDX, "prim", "TupleIndex", 2, 1, at)))
                    return tsj_build_oom(b);
                n->in[0] = obj;
                n->in[1] = ix;
                n->out[0].type = t->el[i];
                *out = &n->out[0];
                return OPMAP_OK;
            }
        return tsj_build_fail(b, at, "named tuple has no field '%s'", name);
    }
    if (cls) {
        for (i = 0; i < cls->n_attrs; i++) {
            tsl_class_attr *a = &cls->attrs[i];
            if (a->name != name)
                continue;
            if (a->value) {
                /* Final constants are folded by the compiler */
                tsj_const *cv;
                int rc = tsj_literal(b, a->value, &cv);
                if (rc)
                    return rc;
                if (cv) {
                    *out = tsj_add_const(b, cv, at);
                    return *out ? OPMAP_OK : tsj_build_oom(b);
                }
            }
            if (b->c->eval_mode && strcmp(name, "training") == 0 && cls->base &&
                strcmp(cls->base, "Module") == 0) {
                /* a module's mode, read as inference runs it: eval (ts_ctx.eval_mode) */
                b->c->m->training_reads_folded++;
                *out = tsj_add_const_simple(b, TSJ_CONST_BOOL, 0, at);
                return *out ? OPMAP_OK : tsj_build_oom(b);
            }
            if (!a->rtype && !(a->rtype = tsl_type_from_expr(b->ty, a->type)))
                return tsj_build_oom(b);
            if (!(n = tsj_add_node(b, TSJ_KIND_GETATTR, "prim", "GetAttr", 1, 1, at)))
                return tsj_build_oom(b);
            n->in[0] = obj;
            n->name = name;
            n->out[0].type = a->rtype;
            *out = &n->out[0];
            return OPMAP_OK;
        }
        return tsj_build_fail(b, at, "class has no attribute '%s'", name);
    }
    if (!(n = tsj_add_node(b, TSJ_KIND_GETATTR, "prim", "GetAttr", 1, 1, at)))
        return tsj_build_oom(b);
    n->in[0] = obj;
    n->name = name;
    n->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
    *out = &n->out[0];
    return OPMAP_OK;
}

static int ex_attr_value(tsj_builder *b, const tsl_expr *e, tsj_value **out)
{
    const char *root, *q;
    uint32_t parts;
    tsj_value *obj;
    int rc;
    q = tsj_dotted_name(b, e, &root, &parts);
    if (q && root == b->n_torch_) {
        void *v;
        int k = tsj_find_qual(b, q, &v);
        tsj_const *cv;
        if (k == 2) {
            if (!(cv = tsj_const_new(b->c, TSJ_CONST_FUNC)))
                return tsj_build_oom(b);
            cv->fn = v;
            *out = tsj_add_const(b, cv, e);
            return *out ? OPMAP_OK : tsj_build_oom(b);
        }
        return tsj_build_fail(b, e, "'%s' is not a function of the archive", q);
    }
    if (q && root == b->n_constants && parts == 1) {
        tsj_const *cv = tsj_const_new(b->c, TSJ_CONST_TENSOR);
        if (!cv)
            return tsj_build_oom(b);
        cv->s = e->s;
        cv->slen = (uint32_t)strlen(e->s);
        *out = tsj_add_const(b, cv, e);
        return *out ? OPMAP_OK : tsj_build_oom(b);
    }
    if (q && (root == b->n_torch || root == b->n_ops))
        return tsj_build_fail(b, e, "'%s' used as a value is not TorchScript's printed form", q);
    if ((rc = tsj_build_expr(b, e->base, &obj)))
        return rc;
    return tsj_get_attr(b, e, obj, e->s, out);
}

int tsj_build_expr(tsj_builder *b, const tsl_expr *e, tsj_value **out)
{
    tsj_const *cv;
    tsj_node *n;
    int rc;
    uint32_t i;
    switch (e->k) {
    case EX_NAME: {
        tsj_value *v = tsj_env_get(b, e->s);
        if (v) {
            *out = v;
            return OPMAP_OK;
        }
        if ((rc = tsj_literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = tsj_add_const(b, cv, e);
            return *out ? OPMAP_OK : tsj_build_oom(b);
        }
        return tsj_build_fail(b, e, "name '%s' is not defined", e->s);
    }
    case EX_INT: case EX_FLOAT: case EX_STR: case EX_NONE: case EX_TRUE: case EX_FALSE:
        if ((rc = tsj_literal(b, e, &cv)))
            return rc;
        *out = tsj_add_const(b, cv, e);
        return *out ? OPMAP_OK : tsj_build_oom(b);
    case EX_NEG:
        if ((rc = tsj_literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = tsj_add_const(b, cv, e);
            return *out ? OPMAP_OK : tsj_build_oom(b);
        }
        if (!(n = tsj_add_node(b, TSJ_KIND_NEG, "aten", "neg", 1, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_expr(b, e->base, &n->in[0])))
            return rc;
        tsj_settle(b, n);
        n->out[0].type = tsj_input(n, 0)->type;
        *out = &n->out[0];
        return OPMAP_OK;
    case EX_ATTR:
        return ex_attr_value(b, e, out);
    case EX_CALL:
        return tsj_build_call(b, e, 1, NULL, out);
    case EX_SUB: {
        tsj_value *obj, *ix;
        const tsl_type *t;
        if ((rc = tsj_build_expr(b, e->base, &obj)) || (rc = tsj_build_expr(b, e->a[0], &ix)))
            return rc;
        t = tsj_resolve(obj)->type;
        cv = (tsj_const *)tsj_const_of(obj);
        if (tsl_type_get_class(t) && strcmp(tsl_type_get_class(t)->base, "Module") == 0) {
            /* an entry of a ModuleList / ModuleDict: typed by the interface its
             * assignment declares (build_stmt.c), called through it (build_call.c) */
            if (!(n = tsj_add_node(b, TSJ_KIND_MCINDEX, "prim", "ModuleContainerIndex", 2, 1, e)))
                return tsj_build_oom(b);
            n->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
        } else if ((t && (t->k == TY_TUPLE || t->k == TY_NAMEDTUPLE)) ||
            (cv && cv->k == TSJ_CONST_TUPLE)) {
            const tsj_const *ic = tsj_const_of(ix);
            if (!(n = tsj_add_node(b, TSJ_KIND_TUPLEIDX, "prim", "TupleIndex", 2, 1, e)))
                return tsj_build_oom(b);
            n->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
            if (ic && ic->k == TSJ_CONST_INT && t && t->n) {
                int64_t k = ic->i < 0 ? ic->i + (int64_t)t->n : ic->i;
                if (k >= 0 && k < (int64_t)t->n)
                    n->out[0].type = t->el[k];
            }
        } else {
            if (!(n = tsj_add_node(b, TSJ_KIND_GETITEM, "aten", "__getitem__", 2, 1, e)))
                return tsj_build_oom(b);
        }
        n->in[0] = obj;
        n->in[1] = ix;
        if (n->kind == TSJ_KIND_GETITEM && !(n->out[0].type = tsj_builtin_type(b, n, 0)))
            return tsj_build_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_LIST: {
        const tsl_type *et = NULL;
        if (!(n = tsj_add_node(b, TSJ_KIND_LISTC, "prim", "ListConstruct", e->n, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_args(b, e, n, 0)))
            return rc;
        tsj_settle(b, n);
        for (i = 0; i < e->n; i++) {
            const tsl_type *it = tsj_input(n, i)->type;
            et = et ? tsl_type_unify(b->ty, et, it) : it;
        }
        n->out[0].type = tsl_type_list(b->ty, et ? et : tsj_prim_type(b, TY_UNKNOWN));
        if (!n->out[0].type)
            return tsj_build_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_TUPLE: {
        const tsl_type *el[64];
        if ((rc = tsj_literal(b, e, &cv)))
            return rc;
        if (cv) {
            *out = tsj_add_const(b, cv, e);
            return *out ? OPMAP_OK : tsj_build_oom(b);
        }
        if (!(n = tsj_add_node(b, TSJ_KIND_TUPLEC, "prim", "TupleConstruct", e->n, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_args(b, e, n, 0)))
            return rc;
        tsj_settle(b, n);
        if (e->n <= 64) {
            for (i = 0; i < e->n; i++)
                el[i] = tsj_input(n, i)->type;
            n->out[0].type = tsl_type_tuple(b->ty, el, e->n);
        } else {
            n->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
        }
        if (!n->out[0].type)
            return tsj_build_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    case EX_DICT:
        if (!(n = tsj_add_node(b, TSJ_KIND_DICTC, "prim", "DictConstruct", e->n, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_args(b, e, n, 0)))
            return rc;
        tsj_settle(b, n);
        n->out[0].type = e->n >= 2
                             ? tsl_type_dict(b->ty, tsj_input(n, 0)->type, tsj_input(n, 1)->type)
                             : tsj_prim_type(b, TY_UNKNOWN);
        if (!n->out[0].type)
            return tsj_build_oom(b);
        *out = &n->out[0];
        return OPMAP_OK;
    default:
        return tsj_build_fail(b, e, "unsupported expression");
    }
}
