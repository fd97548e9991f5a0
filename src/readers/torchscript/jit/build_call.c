/*
 * readers/torchscript/jit/build_call.c - calls: operators, the printer's builtins, script
 * functions and methods.
 *
 * Calls are most of what printed code says, and their form decides the node kind (the
 * table in docs/torchscript.md). Calls: `torch.X` is aten::X, `ops.NS.X` is NS::X,
 * `(obj).m(...)` a prim::CallMethod on obj's class, `__torch__.f(...)` a
 * prim::CallFunction; the printer's builtins map to their kinds (ts_kinds). Script calls
 * get their arguments in parameter order, with defaults, and the attribute path of their
 * receiver that later names the call's frame.
 */
#include <stdio.h>
#include <string.h>

#include "build_internal.h"
#include "kinds.h"

/* The attribute path of a module value from self ("layer1", "blocks.0"), or NULL. */
static const char *receiver_label(tsj_builder *b, tsj_value *v)
{
    const char *parts[64];
    size_t np = 0, len = 0, i;
    char buf[1024];
    v = tsj_resolve(v);
    while (v && v->def && v->def->kind == TSJ_KIND_GETATTR && np < 64) {
        parts[np++] = v->def->name;
        v = tsj_input(v->def, 0);
    }
    if (v != b->self || np == 0 || np == 64)
        return NULL;
    for (i = np; i-- > 0;) {
        size_t l = strlen(parts[i]);
        if (len + l + 2 >= sizeof(buf))
            return NULL;
        if (len)
            buf[len++] = '.';
        memcpy(buf + len, parts[i], l);
        len += l;
    }
    return ts_intern_scratch(b->c, buf, len);
}

/* Arguments of a call to script function fn: positional, keywords by name, defaults. */
static int script_args(tsj_builder *b, const tsl_expr *e, tsl_func *fn, tsj_node *n, uint32_t first)
{
    uint32_t np = fn->n_params, i, npos = e->n - e->n_kw;
    int rc;
    if (e->n + first > np)
        return tsj_build_fail(b, e, "too many arguments in a call to '%s'", fn->qual);
    for (i = 0; i < npos; i++)
        if ((rc = tsj_build_expr(b, e->a[i], &n->in[first + i])))
            return rc;
    for (i = npos; i < e->n; i++) {
        uint32_t p;
        const char *kw = e->kw[i - npos];
        for (p = first; p < np; p++)
            if (fn->params[p].name == kw)
                break;
        if (p == np)
            return tsj_build_fail(b, e, "unknown keyword argument '%s'", kw);
        if ((rc = tsj_build_expr(b, e->a[i], &n->in[p])))
            return rc;
    }
    for (i = first; i < np; i++) {
        tsj_const *cv;
        if (n->in[i])
            continue;
        if (!fn->params[i].dflt)
            return tsj_build_fail(b, e, "missing argument '%s'", fn->params[i].name);
        if ((rc = tsj_literal(b, fn->params[i].dflt, &cv)))
            return rc;
        if (!cv) {
            if (fn->params[i].dflt->k == EX_LIST && fn->params[i].dflt->n == 0) {
                tsj_node *l = tsj_add_node(b, TSJ_KIND_LISTC, "prim", "ListConstruct", 0, 1, e);
                if (!l)
                    return tsj_build_oom(b);
                l->out[0].type = fn->params[i].type ? tsl_type_from_expr(b->ty, fn->params[i].type)
                                                    : tsj_prim_type(b, TY_UNKNOWN);
                n->in[i] = &l->out[0];
                continue;
            }
            if ((rc = tsj_build_expr(b, fn->params[i].dflt, &n->in[i])))
                return rc;
            continue;
        }
        if (!(n->in[i] = tsj_add_const(b, cv, e)))
            return tsj_build_oom(b);
    }
    return OPMAP_OK;
}

static const tsl_type *ret_type(tsj_builder *b, tsl_func *fn)
{
    const tsl_type *t = fn->ret ? tsl_type_from_expr(b->ty, fn->ret) : tsj_prim_type(b, TY_NONE);
    return t ? t : tsj_prim_type(b, TY_UNKNOWN);
}

static int call_script(tsj_builder *b, const tsl_expr *e, tsl_func *fn, tsj_value *recv,
                       tsj_value **out)
{
    tsj_node *n;
    int rc;
    uint32_t first = recv ? 1 : 0;
    if (fn->n_params < first)
        return tsj_build_fail(b, e, "method '%s' has no self parameter", fn->qual);
    if (!(n = tsj_add_node(b, recv ? TSJ_KIND_CALLM : TSJ_KIND_CALLF, "prim",
                           recv ? "CallMethod" : "CallFunction", fn->n_params, 1, e)))
        return tsj_build_oom(b);
    n->callee = fn;
    n->name = fn->name;
    if (recv) {
        n->in[0] = recv;
        n->label = receiver_label(b, recv);
    }
    if ((rc = script_args(b, e, fn, n, first)))
        return rc;
    tsj_settle(b, n);
    if (!(n->out[0].type = ret_type(b, fn)))
        return tsj_build_oom(b);
    *out = &n->out[0];
    return OPMAP_OK;
}

static int call_op(tsj_builder *b, const tsl_expr *e, const char *ns, const char *op,
                   uint32_t n_out, tsj_node **out)
{
    tsj_node *n;
    uint32_t i;
    int rc;
    if (!(n = tsj_add_op(b, ns, op, e->n, n_out, e)))
        return tsj_build_oom(b);
    if ((rc = tsj_build_args(b, e, n, 0)))
        return rc;
    tsj_settle(b, n);
    if (e->n_kw) {
        n->kw = e->kw;
        n->n_kw = e->n_kw;
    }
    for (i = 0; i < n_out; i++)
        if (!(n->out[i].type = tsj_builtin_type(b, n, i)))
            return tsj_build_oom(b);
    /* ops that return nothing in torch have no output (a None-typed one would be folded) */
    if (n_out == 1 && ((strcmp(ns, "prim") == 0 && (strcmp(op, "RaiseException") == 0 ||
                                                     strcmp(op, "Print") == 0)) ||
                       (strcmp(ns, "aten") == 0 && strcmp(op, "warn") == 0)))
        n->n_out = 0;
    *out = n;
    return OPMAP_OK;
}

/* The value of a call node: its output, or None for ops without one. */
static tsj_value *call_value(tsj_builder *b, tsj_node *n, const tsl_expr *e)
{
    return n->n_out ? &n->out[0] : tsj_add_const_simple(b, TSJ_CONST_NONE, 0, e);
}

static const tsl_type *type_arg(tsj_builder *b, const tsl_expr *e)
{
    return tsl_type_from_expr(b->ty, e);
}

/* Calls; n_out > 1 only for `a, b = torch.op(...)`. */
/* annotate(T, x) and unchecked_cast(T, x): an implicit scalar conversion, a cast node, or x. */
static int call_cast(tsj_builder *b, const tsl_expr *e, tsj_value **out)
{
    const tsl_expr *f = e->base;
    tsj_node *n;
    int rc;
    const tsl_type *t;
    tsj_value *v;
    int unchecked = f->s[0] == 'u';
    if (e->n != 2)
        return tsj_build_fail(b, e, "%s needs a type and a value", f->s);
    if (!(t = type_arg(b, e->a[0])))
        return tsj_build_oom(b);
    if (!unchecked && (t->k == TY_INT || t->k == TY_FLOAT || t->k == TY_NUMBER) &&
        e->a[1]->k != EX_INT && e->a[1]->k != EX_FLOAT && e->a[1]->k != EX_NEG) {
        /* an implicit tensor -> scalar conversion */
        const char *op = t->k == TY_INT ? "IntImplicit" : t->k == TY_FLOAT
                         ? "FloatImplicit" : "ScalarImplicit";
        if (!(n = tsj_add_op(b, "aten", op, 1, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_expr(b, e->a[1], &n->in[0])))
            return rc;
        tsj_settle(b, n);
        n->out[0].type = t;
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if (unchecked) {
        if (!(n = tsj_add_node(b, TSJ_KIND_UNCHECKED, "prim", "unchecked_cast", 1, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_expr(b, e->a[1], &n->in[0])))
            return rc;
        tsj_settle(b, n);
        n->ty = t;
        n->out[0].type = t;
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if ((rc = tsj_build_expr(b, e->a[1], &v)))
        return rc;
    v = tsj_resolve(v);
    if (v->def && (v->def->kind == TSJ_KIND_LISTC || v->def->kind == TSJ_KIND_DICTC ||
                   v->def->kind == TSJ_KIND_CONST || v->def->kind == TSJ_KIND_TOLIST))
        v->type = t;
    *out = v;
    return OPMAP_OK;
}

/* f(...) for a bare name: a closure, a printed builtin, or one of the special forms. */
static int call_by_name(tsj_builder *b, const tsl_expr *e, tsj_value **out)
{
    const tsl_expr *f = e->base;
    tsj_node *n = NULL;
    int rc;
    tsj_value *fv = tsj_env_get(b, f->s);
    const char *bop;
    if (fv) {
        const tsj_const *cv = tsj_const_of(fv);
        if (cv && cv->k == TSJ_CONST_FUNC)
            return call_script(b, e, cv->fn, NULL, out);
        return tsj_build_fail(b, e, "'%s' is not a function", f->s);
    }
    if ((bop = tsj_builtin_op(f->s))) {
        if ((rc = call_op(b, e, "aten", bop, 1, &n)))
            return rc;
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if (!strcmp(f->s, "getattr")) {
        tsj_value *obj;
        const char *name;
        if (e->n != 2 || e->a[1]->k != EX_STR)
            return tsj_build_fail(b, e, "getattr needs an object and a name");
        if ((rc = tsj_build_expr(b, e->a[0], &obj)))
            return rc;
        if (!(name = ts_intern_scratch(b->c, e->a[1]->s, e->a[1]->slen)))
            return tsj_build_oom(b);
        return tsj_get_attr(b, e, obj, name, out);
    }
    if (!strcmp(f->s, "annotate") || !strcmp(f->s, "unchecked_cast"))
        return call_cast(b, e, out);
    if (!strcmp(f->s, "uninitialized")) {
        const tsl_type *t;
        if (e->n != 1 || !(t = type_arg(b, e->a[0])))
            return e->n != 1 ? tsj_build_fail(b, e, "uninitialized needs a type")
                             : tsj_build_oom(b);
        if (!(n = tsj_add_node(b, TSJ_KIND_UNINIT, "prim", "Uninitialized", 0, 1, e)))
            return tsj_build_oom(b);
        n->ty = t;
        n->out[0].type = t;
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if (!strcmp(f->s, "isinstance")) {
        if (e->n != 2)
            return tsj_build_fail(b, e, "isinstance needs a value and a type");
        if (!(n = tsj_add_node(b, TSJ_KIND_ISINSTANCE, "prim", "isinstance", 1, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_expr(b, e->a[0], &n->in[0])))
            return rc;
        tsj_settle(b, n);
        n->out[0].type = tsj_prim_type(b, TY_BOOL);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if (!strcmp(f->s, "fork") && e->n >= 1) {
        /* prim::fork runs its closure asynchronously; the closure is not inlined */
        const tsj_const *fc;
        tsj_value *cl;
        uint32_t k;
        if ((rc = tsj_build_expr(b, e->a[0], &cl)))
            return rc;
        fc = tsj_const_of(cl);
        if (!fc || fc->k != TSJ_CONST_FUNC)
            return tsj_build_fail(b, e, "fork of something that is not a function");
        if (!(n = tsj_add_node(b, TSJ_KIND_OTHER, "prim", "fork", e->n - 1, 1, e)))
            return tsj_build_oom(b);
        for (k = 1; k < e->n; k++)
            if ((rc = tsj_build_expr(b, e->a[k], &n->in[k - 1])))
                return rc;
        tsj_settle(b, n);
        n->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if (!strcmp(f->s, "print")) {
        if ((rc = call_op(b, e, "prim", "Print", 1, &n)))
            return rc;
        *out = call_value(b, n, e);
        return *out ? OPMAP_OK : tsj_build_oom(b);
    }
    return tsj_build_fail(b, e, "unknown function '%s'", f->s);
}

/* __torch__.f(...): a script function, a NamedTuple constructor or a class's __new__. */
static int call_qualified(tsj_builder *b, const tsl_expr *e, const char *q, tsj_value **out)
{
    const tsl_expr *f = e->base;
    const char *root;
    uint32_t parts;
    tsj_node *n;
    int rc;
    void *v;
    int k = tsj_find_qual(b, q, &v);
    if (k == 2)
        return call_script(b, e, v, NULL, out);
    if (k == 1 && strcmp(((tsl_class *)v)->base, "NamedTuple") == 0) {
        const tsl_type *t = tsl_type_class(b->ty, v);
        if (!t)
            return tsj_build_oom(b);
        if (!(n = tsj_add_node(b, TSJ_KIND_TUPLEC, "prim", "TupleConstruct", e->n, 1, e)))
            return tsj_build_oom(b);
        if ((rc = tsj_build_args(b, e, n, 0)))
            return rc;
        tsj_settle(b, n);
        n->out[0].type = t;
        *out = &n->out[0];
        return OPMAP_OK;
    }
    if (!strcmp(f->s, "__new__")) {
        const char *cq = tsj_dotted_name(b, f->base, &root, &parts);
        if (tsj_find_qual(b, cq, &v) == 1) {
            const tsl_type *t = tsl_type_class(b->ty, v);
            if (!t ||
                !(n = tsj_add_node(b, TSJ_KIND_CREATEOBJ, "prim", "CreateObject", 0, 1, e)))
                return tsj_build_oom(b);
            n->out[0].type = t;
            *out = &n->out[0];
            return OPMAP_OK;
        }
    }
    return tsj_build_fail(b, e, "'%s' is not defined in the archive", q);
}

/* ---- calls through an interface type ---- */

/* One implementation a dispatch may run: a class data.pkl holds and the call's label. */
typedef struct impl {
    tsl_class *k;
    tsl_func *m;
    const char *label;
} impl;

static tsl_func *method_of(tsl_class *k, const char *name)
{
    uint32_t i;
    for (i = 0; i < k->n_methods; i++)
        if (k->methods[i].name == name)
            return &k->methods[i];
    return NULL;
}

/* The label of an implementation: the receiver's attribute path, and for a container entry
 * the entry's name after it ("blocks.a"). */
static const char *impl_label(tsj_builder *b, const char *base, const char *entry)
{
    char buf[1024];
    int n;
    if (!entry)
        return base;
    n = snprintf(buf, sizeof(buf), "%s%s%s", base ? base : "", base ? "." : "", entry);
    if (n < 0 || (size_t)n >= sizeof(buf))
        return base;
    return ts_intern_scratch(b->c, buf, (size_t)n);
}

/*
 * The implementations a call of method `name` through interface value recv can run: what
 * data.pkl holds under the attribute it was read from (every object of the owner's class,
 * so every class that could be there), or under every entry of the ModuleList /
 * ModuleDict it was indexed from. Fills *out (scratch) and *n; fails, naming the call, when
 * the value does not come from an attribute or no object is held there.
 */
static int implementations(tsj_builder *b, const tsl_expr *e, tsl_class *iface, tsj_value *recv,
                           const char *name, impl **out, uint32_t *n)
{
    tsj_value *r = tsj_resolve(recv);
    tsj_node *src = r->def;
    const tsl_class *owner = NULL;
    const char *attr = NULL, *base = NULL;
    om_vec *held = &b->prog->held;
    size_t i, j, cap = 0;
    impl *v = NULL;
    if (src && src->kind == TSJ_KIND_GETATTR) {
        owner = tsl_type_get_class(tsj_resolve(tsj_input(src, 0))->type);
        attr = src->name;
        base = receiver_label(b, recv);
    } else if (src && src->kind == TSJ_KIND_MCINDEX) {
        owner = tsl_type_get_class(tsj_resolve(tsj_input(src, 0))->type);
        base = receiver_label(b, src->in[0]);
    }
    if (!owner)
        return tsj_build_fail(b, e, "a call of '%s' through interface %s on a value that is "
                              "not a module attribute or container entry: which "
                              "implementation runs is not known here", name, iface->qual);
    *n = 0;
    for (i = 0; i < held->len; i++) {
        const tsl_held *h = &OM_VEC_AT(held, tsl_held, i);
        if (h->owner != owner || (attr && h->attr != attr))
            continue;
        for (j = 0; j < *n; j++) /* a class once per attribute (containers: per entry) */
            if (v[j].k == h->value && (attr || v[j].label == impl_label(b, base, h->attr)))
                break;
        if (j < *n)
            continue;
        if (*n == cap) {
            impl *nv = om_arena_array(&b->c->tmp, cap ? cap * 2 : 4, sizeof(*nv));
            if (!nv)
                return tsj_build_oom(b);
            if (*n)
                memcpy(nv, v, *n * sizeof(*nv));
            v = nv;
            cap = cap ? cap * 2 : 4;
        }
        v[*n].k = h->value;
        v[*n].label = attr ? base : impl_label(b, base, h->attr);
        if (!(v[*n].m = method_of(h->value, name)))
            return tsj_build_fail(b, e, "data.pkl holds a %s where interface %s is called, "
                                  "and it has no method '%s'", h->value->qual, iface->qual,
                                  name);
        (*n)++;
        if (*n > b->c->lim->max_depth * 64u)
            return tsj_build_fail(b, e, "a call through interface %s has more than %u "
                                  "implementations", iface->qual, b->c->lim->max_depth * 64u);
    }
    if (!*n)
        return tsj_build_fail(b, e, "a call of '%s' through interface %s, and data.pkl holds "
                              "no object there to run it", name, iface->qual);
    *out = v;
    return OPMAP_OK;
}

/*
 * (obj).m(...) where obj's type is an interface (@torch.jit.interface): torch runs the
 * method of the object held at run time, never the interface's empty body. Every
 * implementation data.pkl holds there could be the one: a dispatch node with a block per
 * implementation, each calling its method with the same arguments; the calls are inlined
 * like any other and the dispatch is lowered as its blocks, so every operator of every
 * implementation is counted, at the receiver's path.
 */
static int call_interface(tsj_builder *b, const tsl_expr *e, tsl_class *iface, tsj_value *recv,
                          tsj_value **out)
{
    const char *name = e->base->s;
    tsl_func *im = method_of(iface, name);
    tsj_block *outer = b->blk;
    impl *v = NULL;
    uint32_t n = 0, i, k;
    tsj_node *d;
    int rc;
    if (!im)
        return tsj_build_fail(b, e, "interface %s has no method '%s'", iface->qual, name);
    if ((rc = implementations(b, e, iface, recv, name, &v, &n)))
        return rc;
    if (!(d = tsj_node_new(b->c, TSJ_KIND_DISPATCH, "prim", "CallMethod", im->n_params, 1, n)))
        return tsj_build_oom(b);
    tsj_set_source(b, d, e, 0);
    tsj_append(b->blk, d);
    if (im->n_params < 1)
        return tsj_build_fail(b, e, "method '%s' has no self parameter", im->qual);
    d->in[0] = recv;
    d->name = name;
    if ((rc = script_args(b, e, im, d, 1)))
        return rc;
    tsj_settle(b, d);
    if (!(d->out[0].type = ret_type(b, im)))
        return tsj_build_oom(b);
    for (i = 0; i < n; i++) {
        tsj_node *c;
        if (v[i].m->n_params != im->n_params)
            return tsj_build_fail(b, e, "%s takes %u arguments where interface %s's '%s' takes "
                                  "%u", v[i].m->qual, v[i].m->n_params, iface->qual, name,
                                  im->n_params);
        b->blk = d->blk[i];
        c = tsj_add_node(b, TSJ_KIND_CALLM, "prim", "CallMethod", im->n_params, 1, e);
        b->blk = outer;
        if (!c || !(d->blk[i]->rets = om_arena_array(&b->c->tmp, 1, sizeof(tsj_value *))))
            return tsj_build_oom(b);
        c->callee = v[i].m;
        c->name = v[i].m->name;
        c->label = v[i].label;
        for (k = 0; k < im->n_params; k++)
            c->in[k] = d->in[k];
        if (!(c->out[0].type = ret_type(b, v[i].m)))
            return tsj_build_oom(b);
        d->blk[i]->rets[0] = &c->out[0];
        d->blk[i]->n_rets = 1;
    }
    *out = &d->out[0];
    return OPMAP_OK;
}

/* (obj).m(...): a method of obj's class, or tolist() on a value of unknown class. */
static int call_method(tsj_builder *b, const tsl_expr *e, tsj_value **out)
{
    const tsl_expr *f = e->base;
    tsj_node *n;
    int rc;
    /* a method call on a value */
    tsj_value *recv;
    tsl_class *cls;
    uint32_t i;
    if ((rc = tsj_build_expr(b, f->base, &recv)))
        return rc;
    cls = tsl_type_get_class(tsj_resolve(recv)->type);
    if (cls && tsl_class_is_interface(cls))
        return call_interface(b, e, cls, recv, out);
    if (cls) {
        for (i = 0; i < cls->n_methods; i++)
            if (cls->methods[i].name == f->s)
                return call_script(b, e, &cls->methods[i], recv, out);
        return tsj_build_fail(b, e, "class has no method '%s'", f->s);
    }
    if (!strcmp(f->s, "tolist") && e->n == 0) {
        if (!(n = tsj_add_node(b, TSJ_KIND_TOLIST, "prim", "tolist", 1, 1, e)))
            return tsj_build_oom(b);
        n->in[0] = recv;
        n->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
        *out = &n->out[0];
        return OPMAP_OK;
    }
    return tsj_build_fail(b, e, "method '%s' called on a value whose class is not known",
                          f->s);
}

/* a.b(...): torch.X, ops.NS.X, __torch__.<qualified name>, or a method call on a value. */
static int call_by_attr(tsj_builder *b, const tsl_expr *e, uint32_t n_out, tsj_node **multi,
                        tsj_value **out)
{
    const tsl_expr *f = e->base;
    tsj_node *n = NULL;
    int rc;
    const char *root, *q;
    uint32_t parts;
    q = tsj_dotted_name(b, f, &root, &parts);
    if (q && root == b->n_torch) {
        if (parts != 1)
            return tsj_build_fail(b, e, "unknown call '%s'", q);
        if (!strcmp(f->s, "device")) {
            tsj_const *cv;
            if ((rc = tsj_literal(b, e, &cv)))
                return rc;
            if (cv) {
                *out = tsj_add_const(b, cv, e);
                return *out ? OPMAP_OK : tsj_build_oom(b);
            }
        }
        if ((rc = call_op(b, e, "aten", tsj_canon_op(f->s), n_out, &n)))
            return rc;
        if (multi)
            *multi = n;
        *out = call_value(b, n, e);
        return *out ? OPMAP_OK : tsj_build_oom(b);
    }
    if (q && root == b->n_ops) {
        const char *ns;
        if (parts != 2)
            return tsj_build_fail(b, e, "unknown call '%s'", q);
        ns = f->base->s;
        if ((rc = call_op(b, e, ns, f->s, n_out, &n)))
            return rc;
        if (multi)
            *multi = n;
        *out = call_value(b, n, e);
        return *out ? OPMAP_OK : tsj_build_oom(b);
    }
    if (q && root == b->n_torch_)
        return call_qualified(b, e, q, out);
    if (q && root == b->n_constants)
        return tsj_build_fail(b, e, "calling a tensor constant");
    return call_method(b, e, out);
}

int tsj_build_call(tsj_builder *b, const tsl_expr *e, uint32_t n_out, tsj_node **multi,
                   tsj_value **out)
{
    const tsl_expr *f = e->base;
    if (f->k == EX_NAME)
        return call_by_name(b, e, out);
    if (f->k == EX_ATTR)
        return call_by_attr(b, e, n_out, multi, out);
    return tsj_build_fail(b, e, "unsupported call form");
}
