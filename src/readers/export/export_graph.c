/*
 * readers/export/export_graph.c - one Graph of an ExportedProgram (schema.yaml) -> ir_graph:
 * its inputs and outputs (parameters, buffers and constants as initializers), the index of
 * its tensor_values (output types come from it, indexed once per graph), and its nodes
 * (export_node.c). Subgraphs nest at most max_depth deep (one C frame per level).
 */
#include "readers/export/export_graph.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/hash.h"

static int index_build(ex_ctx *x, const oj_value *tv, tindex *ix)
{
    uint32_t i;
    ix->cap = 0;
    ix->slots = NULL;
    if (!tv || !tv->n)
        return OPMAP_OK;
    for (ix->cap = 16; ix->cap < (size_t)tv->n * 2; ix->cap *= 2)
        ;
    if (!(ix->slots = om_calloc(&x->m->mem, ix->cap, sizeof(*ix->slots))))
        return ex_oom(x);
    for (i = 0; i < tv->n; i++) {
        size_t h = (size_t)om_hash_name(tv->kids[i].key) & (ix->cap - 1);
        while (ix->slots[h] && strcmp(ix->slots[h]->key, tv->kids[i].key) != 0)
            h = (h + 1) & (ix->cap - 1);
        ix->slots[h] = &tv->kids[i]; /* a repeated key: the last, as json.loads */
    }
    return OPMAP_OK;
}

const oj_value *ex_tensor_value(const tindex *ix, const char *name)
{
    size_t h;
    if (!ix->cap || !name)
        return NULL;
    h = (size_t)om_hash_name(name) & (ix->cap - 1);
    while (ix->slots[h]) {
        if (strcmp(ix->slots[h]->key, name) == 0)
            return ix->slots[h];
        h = (h + 1) & (ix->cap - 1);
    }
    return NULL;
}

static void index_free(ex_ctx *x, tindex *ix)
{
    if (ix->slots)
        om_dealloc(&x->m->mem, ix->slots, ix->cap * sizeof(*ix->slots));
}

/* The one member of a union (schema.yaml `kind: union`), or NULL. */
const oj_value *ex_member(const oj_value *u)
{
    return u && u->type == OJ_OBJECT && u->n >= 1 ? &u->kids[u->n - 1] : NULL;
}

static int is_weight(const oj_value *sig, const char *name)
{
    const oj_value *specs = oj_arr(sig, "input_specs");
    uint32_t i;
    for (i = 0; specs && i < specs->n; i++) {
        const oj_value *m = ex_member(&specs->kids[i]);
        if (m && (strcmp(m->key, "parameter") == 0 || strcmp(m->key, "buffer") == 0 ||
                  strcmp(m->key, "tensor_constant") == 0)) {
            const char *arg = oj_str(oj_obj(m, "arg"), "name");
            if (arg && strcmp(arg, name) == 0)
                return 1;
        }
    }
    return 0;
}

static int graph_io(gstate *s, ir_graph *g, const oj_value *gj, const oj_value *sig)
{
    const oj_value *ins = oj_arr(gj, "inputs"), *outs = oj_arr(gj, "outputs");
    uint32_t i, n = ins ? ins->n : 0, no = outs ? outs->n : 0;
    int rc;
    if ((n && (!(g->inputs = om_arena_array(&s->x->m->arena, n, sizeof(ir_value))) ||
               !(g->inits = om_arena_array(&s->x->m->arena, n, sizeof(ir_tensor))))) ||
        (no && !(g->outputs = om_arena_array(&s->x->m->arena, no, sizeof(ir_value)))))
        return ex_oom(s->x);
    for (i = 0; i < n + no; i++) {
        const oj_value *t = oj_obj(i < n ? &ins->kids[i] : &outs->kids[i - n], "as_tensor");
        const char *name = oj_str(t, "name");
        const oj_value *meta = name ? ex_tensor_value(&s->tv, name) : NULL;
        ir_value *v;
        ir_type ty;
        if (!name)
            continue; /* a SymInt, a constant, a custom object */
        memset(&ty, 0, sizeof(ty));
        if (meta && (rc = ex_tensor_type(s->x, meta, &ty)))
            return rc;
        if (i < n && sig && is_weight(sig, name)) {
            ir_tensor *w = &g->inits[g->n_inits++];
            int32_t d;
            w->name = ir_intern(s->x->in, name, strlen(name));
            w->dtype = ty.elem;
            w->ndims = ty.rank > 0 ? (uint32_t)ty.rank : 0;
            if (w->ndims && !(w->dims = om_arena_array(&s->x->m->arena, w->ndims, 8)))
                return ex_oom(s->x);
            for (d = 0; d < (int32_t)w->ndims; d++)
                w->dims[d] = ty.dims[d].value;
            s->x->m->stats.initializers++;
            continue;
        }
        v = i < n ? &g->inputs[g->n_inputs++] : &g->outputs[g->n_outputs++];
        v->name = ir_intern(s->x->in, name, strlen(name));
        v->type = ty;
        if (!v->name)
            return ex_oom(s->x);
    }
    return OPMAP_OK;
}

int ex_graph(ex_ctx *x, const oj_value *gj, const oj_value *sig, const char *fqn,
             uint32_t depth, ir_graph **out)
{
    gstate s;
    const oj_value *nodes = oj_arr(gj, "nodes");
    ir_graph *g;
    uint32_t i;
    int rc;
    if (!gj || gj->type != OJ_OBJECT)
        return ex_fail(x, OPMAP_EFORMAT, gj, "a Graph that is not an object");
    if (depth > x->lim->max_depth)
        return ex_fail(x, OPMAP_ELIMIT, gj, "subgraphs nested deeper than max_depth (%" PRIu32
                       ")", x->lim->max_depth);
    if (!(g = *out = om_arena_alloc(&x->m->arena, sizeof(*g))))
        return ex_oom(x);
    memset(&s, 0, sizeof(s));
    s.x = x;
    s.fqn = fqn;
    s.depth = depth;
    om_vec_init(&s.inputs, sizeof(const char *));
    om_vec_init(&s.outputs, sizeof(const char *));
    om_vec_init(&s.args, sizeof(ir_attr));
    om_vec_init(&s.attrs, sizeof(ir_attr));
    om_vec_init(&s.types, sizeof(ir_type));
    x->m->stats.graphs++;
    rc = index_build(x, oj_obj(gj, "tensor_values"), &s.tv);
    if (!rc)
        rc = graph_io(&s, g, gj, sig);
    if (!rc && nodes && nodes->n &&
        !(g->nodes = om_arena_array(&x->m->arena, nodes->n, sizeof(ir_node))))
        rc = ex_oom(x);
    for (i = 0; !rc && nodes && i < nodes->n; i++)
        rc = ex_node(&s, &nodes->kids[i], &g->nodes[g->n_nodes++]);
    index_free(x, &s.tv);
    om_vec_free(&s.inputs, &x->m->mem);
    om_vec_free(&s.outputs, &x->m->mem);
    om_vec_free(&s.args, &x->m->mem);
    om_vec_free(&s.attrs, &x->m->mem);
    om_vec_free(&s.types, &x->m->mem);
    return rc;
}
