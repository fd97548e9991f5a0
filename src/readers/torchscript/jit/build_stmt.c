/*
 * readers/torchscript/jit/build_stmt.c - statements: assignments, if, for / while, with,
 * closures and the final return.
 *
 * Statements are where control flow becomes blocks, as torch's compiler makes them.
 * Variables assigned in an if's branches become the If's outputs; variables assigned in a
 * loop body and defined before it are carried. Types declared by annotated assignments
 * win over the unified types of the branches.
 */
#include <string.h>

#include "build_internal.h"

static int assign_name(tsj_builder *b, const tsl_expr *t, tsj_value *v)
{
    if (t->k != EX_NAME)
        return tsj_build_fail(b, t, "cannot assign to this expression");
    return tsj_env_set(b, t->s, v);
}

static int st_assign(tsj_builder *b, const tsl_stmt *s)
{
    const tsl_expr *rhs = s->e;
    tsj_value *v;
    tsj_node *n;
    uint32_t i;
    int rc;
    if (s->n_t == 1 && !s->trailing) {
        const tsl_expr *t = s->t[0];
        if (t->k == EX_ATTR) {
            /* obj.attr = value */
            tsj_value *obj;
            if ((rc = tsj_build_expr(b, rhs, &v)) || (rc = tsj_build_expr(b, t->base, &obj)))
                return rc;
            if (!(n = tsj_add_node(b, TSJ_KIND_SETATTR, "prim", "SetAttr", 2, 0, t)))
                return tsj_build_oom(b);
            n->in[0] = obj;
            n->in[1] = v;
            n->name = t->s;
            return OPMAP_OK;
        }
        if ((rc = tsj_build_expr(b, rhs, &v)))
            return rc;
        if (s->ann && t->k == EX_NAME) {
            const tsl_type *dt = tsl_type_from_expr(b->ty, s->ann);
            size_t j = tsj_env_slot(b, t->s);
            tsj_value *r = tsj_resolve(v);
            if (!dt || j == SIZE_MAX)
                return tsj_build_oom(b);
            b->decl[j] = dt;
            /* `f : Iface = self.blocks[k]`: the entry is of the declared interface, as
             * torch's prim::ModuleContainerIndex output is */
            if (r->def && r->def->kind == TSJ_KIND_MCINDEX)
                r->type = dt;
        }
        return assign_name(b, t, v);
    }
    if (!s->trailing && rhs->k == EX_TUPLE && rhs->n == s->n_t) {
        /* a, b = c, d: a parallel assignment, no node */
        tsj_value **vals = om_arena_array(&b->c->tmp, s->n_t, sizeof(*vals));
        if (!vals)
            return tsj_build_oom(b);
        for (i = 0; i < s->n_t; i++)
            if ((rc = tsj_build_expr(b, rhs->a[i], &vals[i])))
                return rc;
        for (i = 0; i < s->n_t; i++)
            if ((rc = assign_name(b, s->t[i], vals[i])))
                return rc;
        return OPMAP_OK;
    }
    if (!s->trailing && rhs->k == EX_CALL && rhs->base->k == EX_ATTR) {
        /* a, b = torch.op(...): one node with several outputs */
        const char *root;
        uint32_t parts;
        const char *q = tsj_dotted_name(b, rhs->base, &root, &parts);
        if (q && (root == b->n_torch || root == b->n_ops)) {
            tsj_node *mn = NULL;
            if ((rc = tsj_build_call(b, rhs, s->n_t, &mn, &v)))
                return rc;
            if (mn && mn->n_out == s->n_t) {
                for (i = 0; i < s->n_t; i++)
                    if ((rc = assign_name(b, s->t[i], &mn->out[i])))
                        return rc;
                return OPMAP_OK;
            }
            /* not a multi-output op after all (e.g. a constant): unpack it */
            goto unpack_v;
        }
    }
    if ((rc = tsj_build_expr(b, rhs, &v)))
        return rc;
unpack_v:
    {
        const tsl_type *t = tsj_resolve(v)->type;
        int is_list = t && t->k == TY_LIST;
        if (!(n = tsj_add_node(b, is_list ? TSJ_KIND_LISTUNPACK : TSJ_KIND_TUPLEUNPACK, "prim",
                               is_list ? "ListUnpack" : "TupleUnpack", 1, s->n_t, rhs)))
            return tsj_build_oom(b);
        n->in[0] = v;
        for (i = 0; i < s->n_t; i++) {
            const tsl_type *et = tsj_prim_type(b, TY_UNKNOWN);
            if (is_list)
                et = t->el[0];
            else if (t && (t->k == TY_TUPLE || t->k == TY_NAMEDTUPLE) && i < t->n)
                et = t->el[i];
            n->out[i].type = et;
            if ((rc = assign_name(b, s->t[i], &n->out[i])))
                return rc;
        }
    }
    return OPMAP_OK;
}

static int st_if(tsj_builder *b, const tsl_stmt *s)
{
    tsj_value *cond;
    tsj_node *n;
    tsj_block *outer = b->blk;
    size_t mark = b->undo.len, i;
    om_vec tv, ev, outs;
    uint32_t st_then, st_else, st_out, k = 0;
    int rc;
    if ((rc = tsj_build_expr(b, s->e, &cond)))
        return rc;
    if (!(n = tsj_node_new(b->c, TSJ_KIND_IF, "prim", "If", 1, 0, 2)))
        return tsj_build_oom(b);
    tsj_set_source(b, n, s->e, 0);
    n->in[0] = cond;
    tsj_append(outer, n);
    om_vec_init(&tv, sizeof(tsj_named_value));
    om_vec_init(&ev, sizeof(tsj_named_value));
    om_vec_init(&outs, sizeof(tsj_named_value));
    st_then = ++b->c->stamp;
    b->blk = n->blk[0];
    rc = tsj_build_stmts(b, s->body, s->n_body, 0);
    if (!rc)
        rc = tsj_env_assigned_since(b, mark, st_then, &tv);
    tsj_env_restore(b, mark);
    st_else = ++b->c->stamp;
    b->blk = n->blk[1];
    if (!rc)
        rc = tsj_build_stmts(b, s->orelse, s->n_else, 0);
    if (!rc)
        rc = tsj_env_assigned_since(b, mark, st_else, &ev);
    tsj_env_restore(b, mark);
    b->blk = outer;
    /* outputs: names assigned in either branch and defined in both */
    st_out = ++b->c->stamp;
    for (i = 0; !rc && i < tv.len + ev.len; i++) {
        tsj_named_value *x = i < tv.len ? &OM_VEC_AT(&tv, tsj_named_value, i)
                                        : &OM_VEC_AT(&ev, tsj_named_value, i - tv.len);
        size_t j = tsj_env_find(b, x->k);
        tsj_named_value *o;
        tsj_value *a, *c;
        if (b->stamps[j] == st_out)
            continue;
        if (i < tv.len) {
            a = x->v;
            c = b->stamps[j] == st_else ? OM_VEC_AT(&ev, tsj_named_value, b->aux[j]).v : b->vals[j];
        } else {
            a = b->vals[j];
            c = x->v;
        }
        b->stamps[j] = st_out;
        if (!a || !c)
            continue;
        if (!(o = om_vec_push(&outs, b->c->mem))) {
            rc = tsj_build_oom(b);
            break;
        }
        o->k = x->k;
        o->v = a;
        if (!(o = om_vec_push(&outs, b->c->mem))) {
            rc = tsj_build_oom(b);
            break;
        }
        o->k = x->k;
        o->v = c;
    }
    if (!rc && outs.len) {
        uint32_t no = (uint32_t)(outs.len / 2);
        if (!(n->out = om_arena_array(&b->c->tmp, no, sizeof(tsj_value))) ||
            !(n->blk[0]->rets = om_arena_array(&b->c->tmp, no, sizeof(tsj_value *))) ||
            !(n->blk[1]->rets = om_arena_array(&b->c->tmp, no, sizeof(tsj_value *)))) {
            rc = tsj_build_oom(b);
        } else {
            n->n_out = n->blk[0]->n_rets = n->blk[1]->n_rets = no;
            for (k = 0; k < no && !rc; k++) {
                tsj_named_value *a = &OM_VEC_AT(&outs, tsj_named_value, 2 * k), *c = a + 1;
                n->out[k].def = n;
                n->blk[0]->rets[k] = a->v;
                n->blk[1]->rets[k] = c->v;
                n->out[k].type =
                    b->decl[tsj_env_find(b, a->k)]
                        ? b->decl[tsj_env_find(b, a->k)]
                        : tsl_type_unify(b->ty, tsj_resolve(a->v)->type, tsj_resolve(c->v)->type);
                if (!n->out[k].type)
                    rc = tsj_build_oom(b);
                else
                    rc = tsj_env_set(b, a->k, &n->out[k]);
            }
        }
    }
    om_vec_free(&tv, b->c->mem);
    om_vec_free(&ev, b->c->mem);
    om_vec_free(&outs, b->c->mem);
    return rc;
}

/* Names assigned anywhere in a statement list (loop bodies), stamped with `stamp`. */
static int collect_assigned(tsj_builder *b, tsl_stmt **s, uint32_t n, uint32_t stamp, om_vec *out)
{
    uint32_t i, k;
    int rc;
    for (i = 0; i < n; i++) {
        const tsl_stmt *x = s[i];
        const char *names[1];
        uint32_t nn = 0;
        if (x->k == ST_ASSIGN) {
            for (k = 0; k < x->n_t; k++) {
                size_t j;
                tsj_named_value *o;
                if (x->t[k]->k != EX_NAME)
                    continue;
                if ((j = tsj_env_slot(b, x->t[k]->s)) == SIZE_MAX)
                    return tsj_build_oom(b);
                if (b->stamps[j] == stamp)
                    continue;
                b->stamps[j] = stamp;
                if (!(o = om_vec_push(out, b->c->mem)))
                    return tsj_build_oom(b);
                o->k = x->t[k]->s;
            }
        } else if (x->k == ST_FOR) {
            names[nn++] = x->var;
        }
        for (k = 0; k < nn; k++) {
            size_t j = tsj_env_slot(b, names[k]);
            tsj_named_value *o;
            if (j == SIZE_MAX)
                return tsj_build_oom(b);
            if (b->stamps[j] == stamp)
                continue;
            b->stamps[j] = stamp;
            if (!(o = om_vec_push(out, b->c->mem)))
                return tsj_build_oom(b);
            o->k = names[k];
        }
        if ((rc = collect_assigned(b, x->body, x->n_body, stamp, out)) ||
            (rc = collect_assigned(b, x->orelse, x->n_else, stamp, out)))
            return rc;
    }
    return OPMAP_OK;
}

static int st_loop(tsj_builder *b, const tsl_stmt *s)
{
    tsj_block *outer = b->blk, *body = NULL;
    tsj_node *n = NULL;
    tsj_value *trip, *cond0, *next = NULL;
    om_vec names, carried;
    size_t mark, i;
    uint32_t nc, stamp = ++b->c->stamp;
    const char *cond_name = NULL;
    int rc = OPMAP_OK, is_for = s->k == ST_FOR;

    if (is_for) {
        const tsl_expr *it = s->e;
        if (it->k != EX_CALL || it->base->k != EX_NAME || strcmp(it->base->s, "range") != 0 ||
            it->n != 1 || it->n_kw)
            return tsj_build_fail(b, it,
                                  "only 'for x in range(n)' loops are TorchScript's printed form");
        if ((rc = tsj_build_expr(b, it->a[0], &trip)) ||
            !(cond0 = tsj_add_const_simple(b, TSJ_CONST_BOOL, 1, it)))
            return rc ? rc : tsj_build_oom(b);
    } else {
        if (!(trip = tsj_add_const_simple(b, TSJ_CONST_INT, INT64_MAX, s->e)) ||
            (rc = tsj_build_expr(b, s->e, &cond0)))
            return rc ? rc : tsj_build_oom(b);
        if (s->e->k == EX_NAME)
            cond_name = s->e->s;
    }
    om_vec_init(&names, sizeof(tsj_named_value));
    om_vec_init(&carried, sizeof(tsj_named_value));
    rc = collect_assigned(b, s->body, s->n_body, stamp, &names);
    for (i = 0; !rc && i < names.len; i++) {
        tsj_named_value *x = &OM_VEC_AT(&names, tsj_named_value, i), *o;
        tsj_value *v = tsj_env_get(b, x->k);
        if (!v || x->k == cond_name || (is_for && x->k == s->var))
            continue;
        if (!(o = om_vec_push(&carried, b->c->mem))) {
            rc = tsj_build_oom(b);
            break;
        }
        o->k = x->k;
        o->v = v;
    }
    nc = (uint32_t)carried.len;
    if (!rc && !(n = tsj_node_new(b->c, TSJ_KIND_LOOP, "prim", "Loop", 2 + nc, nc, 1)))
        rc = tsj_build_oom(b);
    if (!rc) {
        tsj_set_source(b, n, NULL, s->off);
        tsj_append(outer, n);
        body = n->blk[0];
        n->in[0] = trip;
        n->in[1] = cond0;
        if (!(body->params = om_arena_array(&b->c->tmp, 1 + nc, sizeof(tsj_value *))) ||
            !(body->rets = om_arena_array(&b->c->tmp, 1 + nc, sizeof(tsj_value *))) ||
            !(body->params[0] = tsj_param_new(b->c, tsj_prim_type(b, TY_INT))))
            rc = tsj_build_oom(b);
        body->n_params = body->n_rets = 1 + nc;
    }
    mark = b->undo.len;
    if (!rc && is_for)
        rc = tsj_env_set(b, s->var, body->params[0]);
    for (i = 0; !rc && i < nc; i++) {
        tsj_named_value *x = &OM_VEC_AT(&carried, tsj_named_value, i);
        n->in[2 + i] = x->v;
        if (!(body->params[1 + i] = tsj_param_new(b->c, tsj_resolve(x->v)->type)))
            rc = tsj_build_oom(b);
        else
            rc = tsj_env_set(b, x->k, body->params[1 + i]);
    }
    if (!rc) {
        b->blk = body;
        rc = tsj_build_stmts(b, s->body, s->n_body, 0);
        if (!rc) {
            if (is_for)
                next = tsj_add_const_simple(b, TSJ_CONST_BOOL, 1, s->e);
            else if (cond_name)
                next = tsj_env_get(b, cond_name);
            else
                rc = tsj_build_expr(b, s->e, &next);
            if (!rc && !next)
                rc = tsj_build_oom(b);
        }
        if (!rc) {
            body->rets[0] = next;
            for (i = 0; i < nc; i++) {
                tsj_named_value *x = &OM_VEC_AT(&carried, tsj_named_value, i);
                tsj_value *last = tsj_env_get(b, x->k);
                const tsl_type *d = b->decl[tsj_env_find(b, x->k)];
                const tsl_type *u =
                    d ? d : tsl_type_unify(b->ty, tsj_resolve(x->v)->type, tsj_resolve(last)->type);
                body->rets[1 + i] = last;
                if (u && u->k != TY_UNKNOWN)
                    body->params[1 + i]->type = u;
                n->out[i].type = body->params[1 + i]->type;
            }
        }
        b->blk = outer;
    }
    tsj_env_restore(b, mark);
    for (i = 0; !rc && i < nc; i++)
        rc = tsj_env_set(b, OM_VEC_AT(&carried, tsj_named_value, i).k, &n->out[i]);
    om_vec_free(&names, b->c->mem);
    om_vec_free(&carried, b->c->mem);
    return rc;
}

int tsj_build_stmts(tsj_builder *b, tsl_stmt **s, uint32_t n, int top)
{
    uint32_t i;
    int rc = OPMAP_OK;
    for (i = 0; i < n && rc == OPMAP_OK; i++) {
        const tsl_stmt *x = s[i];
        tsj_value *v;
        switch (x->k) {
        case ST_PASS:
            break;
        case ST_EXPR:
            rc = tsj_build_expr(b, x->e, &v);
            break;
        case ST_ASSIGN:
            rc = st_assign(b, x);
            break;
        case ST_IF:
            rc = st_if(b, x);
            break;
        case ST_FOR:
        case ST_WHILE:
            rc = st_loop(b, x);
            break;
        case ST_DEF: {
            /* a closure: only ever run through fork(), whose body torch does not inline */
            tsj_const *cv = tsj_const_new(b->c, TSJ_CONST_FUNC);
            if (!cv || !(v = tsj_add_const(b, cv, NULL))) {
                rc = tsj_build_oom(b);
                break;
            }
            cv->fn = x->def;
            rc = tsj_env_set(b, x->var, v);
            break;
        }
        case ST_WITH: {
            tsj_node *w;
            if ((rc = tsj_build_expr(b, x->e, &v)))
                break;
            if (!(w = tsj_add_node(b, TSJ_KIND_ENTER, "prim", "Enter", 1, 1, x->e))) {
                rc = tsj_build_oom(b);
                break;
            }
            w->in[0] = v;
            w->out[0].type = tsj_prim_type(b, TY_UNKNOWN);
            if ((rc = tsj_build_stmts(b, x->body, x->n_body, 0)))
                break;
            if (!(w = tsj_add_node(b, TSJ_KIND_EXIT, "prim", "Exit", 1, 0, x->e))) {
                rc = tsj_build_oom(b);
                break;
            }
            w->in[0] = v;
            break;
        }
        case ST_RETURN:
            if (!top || i + 1 != n)
                return ts_fail(b->c, OPMAP_EFORMAT, b->file->entry, x->line, x->col,
                               "'return' before the end of a function is not TorchScript's "
                               "printed form");
            if (x->e)
                rc = tsj_build_expr(b, x->e, &v);
            else if (!(v = tsj_add_const_simple(b, TSJ_CONST_NONE, 0, NULL)))
                rc = tsj_build_oom(b);
            if (!rc) {
                if (!(b->g->top->rets = om_arena_alloc(&b->c->tmp, sizeof(tsj_value *))))
                    return tsj_build_oom(b);
                b->g->top->rets[0] = v;
                b->g->top->n_rets = 1;
            }
            break;
        default:
            rc = ts_fail(b->c, OPMAP_EINTERNAL, b->file->entry, x->line, x->col,
                         "unknown statement");
        }
    }
    return rc;
}
