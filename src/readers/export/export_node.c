/*
 * readers/export/export_node.c - one node of a Graph (schema.yaml) -> ir_node.
 *
 * Every node (a call_function: placeholders, outputs and getitems are not serialized as
 * nodes) becomes an ir_node: `torch.ops.<ns>.<op>.<overload>` is domain <ns>, op <op>, the
 * overload kept as the attribute `overload`; any other target (`_operator.mul`,
 * `torch.sym_float`) is the part before its last dot and the part after. Its NamedArguments
 * become inputs (tensor names) and `args` in schema order (constants with their values, as
 * the TorchScript reader gives them); a GraphArgument (the branches of cond, the bodies
 * of while_loop and map, wrap_with_set_grad_enabled's graph, ...) becomes a GRAPH
 * attribute named after the submodule, walked like any subgraph (export_graph.c).
 */
#include "readers/export/export_graph.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

static int push_name(gstate *s, om_vec *v, const char *name)
{
    const char **slot;
    const char *in = ir_intern(s->x->in, name ? name : "", name ? strlen(name) : 0);
    if (!in || !(slot = om_vec_push(v, &s->x->m->mem)))
        return ex_oom(s->x);
    *slot = in;
    return OPMAP_OK;
}

/* A list of integers (as_ints, as_bools, as_sym_ints of constants) into a; 0 if one is not. */
static int int_list(gstate *s, const oj_value *l, ir_attr *a, int *ok)
{
    uint32_t i;
    *ok = 0;
    if (l->type != OJ_ARRAY)
        return OPMAP_OK;
    if (l->n && !(a->ints = om_arena_array(&s->x->m->arena, l->n, sizeof(int64_t))))
        return ex_oom(s->x);
    for (i = 0; i < l->n; i++) {
        const oj_value *e = &l->kids[i], *k;
        if (e->type == OJ_OBJECT && (k = oj_get(e, "as_int")))
            e = k;
        if (e->type == OJ_TRUE || e->type == OJ_FALSE)
            a->ints[i] = e->type == OJ_TRUE;
        else if (e->type == OJ_NUMBER && e->is_int)
            a->ints[i] = e->i;
        else
            return OPMAP_OK;
    }
    a->n_ints = l->n;
    a->type = IR_ATTR_INTS;
    *ok = 1;
    return OPMAP_OK;
}

/* Tensor names of as_tensors / as_optional_tensors / as_sym_ints lists (a None: ""). */
static int names_of(gstate *s, const oj_value *l)
{
    uint32_t i;
    int rc;
    for (i = 0; l->type == OJ_ARRAY && i < l->n; i++) {
        const oj_value *e = &l->kids[i], *t = oj_obj(e, "as_tensor");
        const char *name = oj_str(t ? t : e, t ? "name" : oj_get(e, "as_name") ? "as_name"
                                                                              : "name");
        if ((rc = push_name(s, &s->inputs, name)))
            return rc;
    }
    return OPMAP_OK;
}

static int sub_graph(gstate *s, const oj_value *ga, ir_attr *a)
{
    const char *name = oj_str(ga, "name");
    const oj_value *g = oj_obj(ga, "graph");
    int rc;
    if (!g)
        return ex_fail(s->x, OPMAP_EFORMAT, ga, "a GraphArgument without its graph");
    a->type = IR_ATTR_GRAPH;
    a->n_graphs = 1;
    if (!(a->graphs = om_arena_alloc(&s->x->m->arena, sizeof(*a->graphs))))
        return ex_oom(s->x);
    if (!name || !*name)
        name = "graph"; /* IR attributes are named: the walker's path needs a segment */
    if (!(a->name = ir_intern(s->x->in, name, strlen(name))))
        return ex_oom(s->x);
    if ((rc = ex_graph(s->x, g, NULL, s->fqn, s->depth + 1, &a->graphs[0])))
        return rc;
    return OPMAP_OK;
}

/* One NamedArgument: its tensors become inputs, its constant its value in args. */
static int named_arg(gstate *s, const oj_value *na, const char *fqn)
{
    const oj_value *arg = oj_obj(na, "arg"), *m = ex_member(arg), *v, *kind = oj_get(na, "kind");
    const char *key = m ? m->key : "", *name = oj_str(na, "name");
    ir_attr *a, *g;
    size_t at = s->args.len, before = s->inputs.len;
    int rc = OPMAP_OK, ok;
    (void)fqn;
    if (!(a = om_vec_push(&s->args, &s->x->m->mem)))
        return ex_oom(s->x);
    if (kind && kind->type == OJ_NUMBER && kind->is_int && kind->i == 2 && name &&
        !(a->name = ir_intern(s->x->in, name, strlen(name))))
        return ex_oom(s->x);
    if (!m)
        return OPMAP_OK;
    v = m;
    if (strcmp(key, "as_none") == 0) {
        a->arg_kind = IR_ARG_NONE;
    } else if (strcmp(key, "as_tensor") == 0 || strcmp(key, "as_optional_tensor") == 0) {
        const oj_value *t = oj_obj(v, "as_tensor");
        if (strcmp(key, "as_tensor") == 0 || t)
            rc = push_name(s, &s->inputs, oj_str(t ? t : v, "name"));
        else
            a->arg_kind = IR_ARG_NONE;
    } else if (strcmp(key, "as_tensors") == 0 || strcmp(key, "as_optional_tensors") == 0) {
        rc = names_of(s, v);
    } else if (strcmp(key, "as_sym_int") == 0 && oj_get(v, "as_name")) {
        rc = push_name(s, &s->inputs, oj_str(v, "as_name"));
    } else if (strcmp(key, "as_sym_int") == 0 && (v = oj_get(v, "as_int")) && v->is_int) {
        a->type = IR_ATTR_INT, a->i = v->i;
    } else if ((strcmp(key, "as_int") == 0 || strcmp(key, "as_scalar_type") == 0 ||
                strcmp(key, "as_memory_format") == 0 || strcmp(key, "as_layout") == 0) &&
               v->type == OJ_NUMBER && v->is_int) {
        a->type = IR_ATTR_INT, a->i = v->i;
    } else if (strcmp(key, "as_bool") == 0 && (v->type == OJ_TRUE || v->type == OJ_FALSE)) {
        a->type = IR_ATTR_INT, a->i = v->type == OJ_TRUE, a->arg_kind = IR_ARG_BOOL;
    } else if (strcmp(key, "as_float") == 0 && v->type == OJ_NUMBER) {
        a->type = IR_ATTR_FLOAT, a->f = v->d;
    } else if (strcmp(key, "as_string") == 0 && v->type == OJ_STRING) {
        a->type = IR_ATTR_STRING, a->s.data = om_arena_strndup(&s->x->m->arena, v->s, v->len);
        a->s.size = v->len;
        if (!a->s.data)
            return ex_oom(s->x);
    } else if (strcmp(key, "as_ints") == 0 || strcmp(key, "as_bools") == 0) {
        rc = int_list(s, v, a, &ok);
    } else if (strcmp(key, "as_sym_ints") == 0) {
        if (!(rc = int_list(s, v, a, &ok)) && !ok)
            rc = names_of(s, v);
    } else if (strcmp(key, "as_graph") == 0) {
        if (!(g = om_vec_push(&s->attrs, &s->x->m->mem)))
            return ex_oom(s->x);
        rc = sub_graph(s, v, g);
    }
    if (!rc && s->inputs.len > before) { /* the vector may have moved: find it again */
        a = &OM_VEC_AT(&s->args, ir_attr, at);
        a->arg_kind = IR_ARG_INPUTS;
        a->arg_input = (uint32_t)before;
        a->arg_inputs = (uint32_t)(s->inputs.len - before);
    }
    return rc;
}

/* One output Argument: the names it defines, with their types from tensor_values. */
static int output(gstate *s, const oj_value *arg)
{
    const oj_value *m = ex_member(arg), *l;
    uint32_t i, n = 1;
    int rc;
    if (!m)
        return OPMAP_OK;
    l = m->type == OJ_ARRAY ? m : NULL;
    if (l)
        n = l->n;
    for (i = 0; i < n; i++) {
        const oj_value *e = l ? &l->kids[i] : m, *t = oj_obj(e, "as_tensor");
        const char *name = oj_str(t ? t : e, oj_get(t ? t : e, "as_name") ? "as_name" : "name");
        const oj_value *meta;
        ir_type *ty;
        if (!name)
            continue; /* as_none, a constant output */
        if ((rc = push_name(s, &s->outputs, name)))
            return rc;
        if (!(ty = om_vec_push(&s->types, &s->x->m->mem)))
            return ex_oom(s->x);
        if ((meta = ex_tensor_value(&s->tv, name)) && (rc = ex_tensor_type(s->x, meta, ty)))
            return rc;
    }
    return OPMAP_OK;
}

/* target -> domain, op, overload (see the top of the file). */
static int parse_target(gstate *s, const char *t, ir_node *n, const char **overload)
{
    const char *rest = NULL, *dot1, *last;
    static const char *const roots[] = { "torch.ops.", "executorch.exir.dialects.edge._ops." };
    size_t i;
    *overload = NULL;
    for (i = 0; i < 2 && !rest; i++)
        if (strncmp(t, roots[i], strlen(roots[i])) == 0)
            rest = t + strlen(roots[i]);
    if (rest && (dot1 = strchr(rest, '.'))) {
        last = strrchr(dot1 + 1, '.');
        n->domain = ir_intern(s->x->in, rest, (size_t)(dot1 - rest));
        if (last) {
            n->op = ir_intern(s->x->in, dot1 + 1, (size_t)(last - dot1 - 1));
            *overload = last + 1;
        } else {
            n->op = ir_intern(s->x->in, dot1 + 1, strlen(dot1 + 1));
        }
    } else if ((last = strrchr(t, '.')) && last != t && last[1]) {
        n->domain = ir_intern(s->x->in, t, (size_t)(last - t));
        n->op = ir_intern(s->x->in, last + 1, strlen(last + 1));
    } else {
        n->domain = ir_intern(s->x->in, "", 0);
        n->op = ir_intern(s->x->in, t, strlen(t));
    }
    return n->domain && n->op ? OPMAP_OK : ex_oom(s->x);
}

/* The node's name: its module path below the enclosing one ('.' as '/'), then the name of
 * its first output (torch.fx's node name). */
static int node_name(gstate *s, ir_node *n, const char *path, const char *outname)
{
    size_t pl = strlen(s->fqn), i;
    char buf[1200];
    if (pl && strncmp(path, s->fqn, pl) == 0 && (path[pl] == '.' || !path[pl]))
        path += pl + (path[pl] == '.');
    snprintf(buf, sizeof(buf), "%s%s%s", path, *path && *outname ? "/" : "", outname);
    for (i = 0; buf[i] && i < strlen(path); i++)
        if (buf[i] == '.')
            buf[i] = '/';
    n->name = ir_intern(s->x->in, buf, strlen(buf));
    return n->name ? OPMAP_OK : ex_oom(s->x);
}

static void *vec_copy(ex_ctx *x, om_vec *v, uint32_t *n)
{
    void *out = NULL;
    *n = (uint32_t)v->len;
    if (v->len && (out = om_arena_array(&x->m->arena, v->len, v->elem)))
        memcpy(out, v->data, v->len * v->elem);
    v->len = 0;
    return out;
}

static int node_attrs(gstate *s, ir_node *n, const char *overload)
{
    ir_attr *a;
    uint32_t k, na = (uint32_t)s->attrs.len + (overload ? 1 : 0);
    if (!na)
        return OPMAP_OK;
    if (!(n->attrs = om_arena_array(&s->x->m->arena, na, sizeof(ir_attr))))
        return ex_oom(s->x);
    for (k = 0; k < s->attrs.len; k++)
        n->attrs[k] = ((ir_attr *)s->attrs.data)[k];
    if (overload) {
        a = &n->attrs[k];
        a->name = ir_intern(s->x->in, "overload", 8);
        a->type = IR_ATTR_STRING;
        a->s.size = strlen(overload);
        if (!a->name || !(a->s.data = om_arena_strdup(&s->x->m->arena, overload)))
            return ex_oom(s->x);
    }
    n->n_attrs = na;
    s->attrs.len = 0;
    return OPMAP_OK;
}

int ex_node(gstate *s, const oj_value *nj, ir_node *n)
{
    const char *target = oj_str(nj, "target"), *overload;
    const oj_value *ins = oj_arr(nj, "inputs"), *outs = oj_arr(nj, "outputs");
    const oj_value *meta = oj_obj(nj, "metadata");
    char path[1024];
    uint32_t i, nt;
    int rc;
    if (!target || !*target)
        return ex_fail(s->x, OPMAP_EFORMAT, nj, "a node without a target");
    if (++s->x->m->stats.nodes > s->x->lim->max_nodes)
        return ex_fail(s->x, OPMAP_ELIMIT, nj, "more than max_nodes (%" PRIu64 ") nodes",
                       s->x->lim->max_nodes);
    n->offset = nj->offset;
    if ((rc = parse_target(s, target, n, &overload)))
        return rc;
    ex_module_path(oj_str(meta, "nn_module_stack"), path, sizeof(path));
    for (i = 0; ins && i < ins->n; i++) {
        const char *saved = s->fqn;
        s->fqn = path[0] ? path : s->fqn; /* a subgraph's nodes sit below this module */
        rc = named_arg(s, &ins->kids[i], path);
        s->fqn = saved;
        if (rc)
            return rc;
    }
    for (i = 0; outs && i < outs->n; i++)
        if ((rc = output(s, &outs->kids[i])))
            return rc;
    n->inputs = vec_copy(s->x, &s->inputs, &n->n_inputs);
    n->args = vec_copy(s->x, &s->args, &n->n_args);
    n->outputs = vec_copy(s->x, &s->outputs, &n->n_outputs);
    n->out_types = vec_copy(s->x, &s->types, &nt);
    if ((n->n_inputs && !n->inputs) || (n->n_args && !n->args) ||
        (n->n_outputs && !n->outputs) || (nt && !n->out_types))
        return ex_oom(s->x);
    if (!nt)
        n->out_types = NULL;
    if ((rc = node_attrs(s, n, overload)) ||
        (rc = node_name(s, n, path, n->n_outputs ? n->outputs[0] : "")))
        return rc;
    ex_source_line(s->x, oj_str(meta, "stack_trace"), n);
    return OPMAP_OK;
}

/* The names the signature says are parameters, buffers or constants (weights). */
