/*
 * scan/scan.c - the pipeline: walk the model, group instances per distinct operator,
 * look each up in the table, estimate, and keep it all in a self-contained result.
 *
 * A distinct operator is (domain, name, opset in effect): adapting it once serves all
 * its instances, which is what the estimate counts.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../api/ctx_internal.h"
#include "../api/model_internal.h"
#include "../core/err.h"
#include "../estimate/estimate.h"
#include "../table/table_internal.h"
#include "../walker/walker.h"
#include "result_internal.h"

typedef struct group {
    opmap_result *res;
    om_vec ops;           /* opmap_op* */
    opmap_op **index;     /* open addressing over (domain, op, opset) */
    size_t index_cap;
    opmap_error *err;
} group;

static uint64_t key_hash(const void *d, const void *o, int64_t opset)
{
    uint64_t h = (uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)o + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)opset * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int oom(group *g)
{
    return om_fail_mem(g->err, &g->res->mem, g->res->model_name);
}

static int grow_index(group *g)
{
    size_t ncap = g->index_cap ? g->index_cap * 2 : 64, i;
    opmap_op **ni = om_calloc(&g->res->mem, ncap, sizeof(*ni));
    if (!ni)
        return 0;
    for (i = 0; i < g->index_cap; i++) {
        opmap_op *op = g->index[i];
        size_t j;
        if (!op)
            continue;
        j = key_hash(op->key_domain, op->key_op, op->opset) & (ncap - 1);
        while (ni[j])
            j = (j + 1) & (ncap - 1);
        ni[j] = op;
    }
    if (g->index)
        om_dealloc(&g->res->mem, g->index, g->index_cap * sizeof(*g->index));
    g->index = ni;
    g->index_cap = ncap;
    return 1;
}

static int on_instance(void *payload, const om_visit *v)
{
    group *g = payload;
    opmap_result *res = g->res;
    const ir_node *n = v->node;
    opmap_op *op;
    const char **slot;
    size_t j;

    if ((g->ops.len + 1) * 2 > g->index_cap && !grow_index(g))
        return oom(g);
    j = key_hash(n->domain, n->op, v->opset) & (g->index_cap - 1);
    while ((op = g->index[j])) {
        if (op->key_domain == n->domain && op->key_op == n->op && op->opset == v->opset)
            break;
        j = (j + 1) & (g->index_cap - 1);
    }
    if (!op) {
        opmap_op **p;
        if (!(op = om_arena_alloc(&res->arena, sizeof(*op))) ||
            !(op->domain = om_arena_strdup(&res->arena, n->domain)) ||
            !(op->name = om_arena_strdup(&res->arena, n->op)) ||
            !(p = om_vec_push(&g->ops, &res->mem)))
            return oom(g);
        op->key_domain = n->domain;
        op->key_op = n->op;
        op->opset = v->opset;
        om_vec_init(&op->path_vec, sizeof(const char *));
        *p = op;
        g->index[j] = op;
    }
    op->instances++;
    if (!(slot = om_vec_push(&op->path_vec, &res->mem)) ||
        !(*slot = om_arena_strdup(&res->arena, v->path)))
        return oom(g);
    return OPMAP_OK;
}

static int on_note(void *payload, const char *message, const char *path)
{
    group *g = payload;
    om_diag *d = om_vec_push(&g->res->diags, &g->res->mem);
    if (!d || !(d->message = om_arena_strdup(&g->res->arena, message)) ||
        !(d->where = om_arena_strdup(&g->res->arena, path)))
        return oom(g);
    d->level = OPMAP_DIAG_WARNING;
    return OPMAP_OK;
}

/* Worst status first, then most instances, then name: stable, readable output. */
static int op_cmp(const void *a, const void *b)
{
    const opmap_op *x = *(opmap_op *const *)a, *y = *(opmap_op *const *)b;
    int c;
    if (x->status != y->status)
        return x->status > y->status ? -1 : 1;
    if (x->instances != y->instances)
        return x->instances > y->instances ? -1 : 1;
    if ((c = strcmp(x->domain, y->domain)))
        return c;
    if ((c = strcmp(x->name, y->name)))
        return c;
    return x->opset < y->opset ? -1 : x->opset > y->opset;
}

static const char *dup_or_empty(om_arena *a, const char *s)
{
    return om_arena_strdup(a, s ? s : "");
}

/* Copies the table's answer for each distinct operator into the result. */
static int classify(group *g, const opmap_table *table)
{
    opmap_result *res = g->res;
    size_t i;
    for (i = 0; i < g->ops.len; i++) {
        opmap_op *op = OM_VEC_AT(&g->ops, opmap_op *, i);
        const opmap_row *row = opmap_table_lookup(table, op->domain, op->name, op->opset);
        size_t k;
        op->row = row;
        op->status = row ? row->status : OPMAP_OP_UNMAPPED;
        op->since = row ? row->since : 0;
        op->flags = row ? row->flags : 0;
        if (!(op->notes = dup_or_empty(&res->arena, row ? row->notes : NULL)) ||
            !(op->hint = dup_or_empty(&res->arena, row ? row->hint : NULL)) ||
            !(op->ascend_op = dup_or_empty(&res->arena, row ? row->ascend_op : NULL)) ||
            !(op->engine = dup_or_empty(&res->arena, row ? row->engine : NULL)))
            return oom(g);
        if (row && row->n_sources) {
            if (!(op->sources = om_arena_array(&res->arena, row->n_sources, sizeof(char *))))
                return oom(g);
            for (k = 0; k < row->n_sources; k++)
                if (!(op->sources[k] = om_arena_strdup(&res->arena, row->sources[k])))
                    return oom(g);
            op->n_sources = row->n_sources;
        }
        op->effort = opmap_table_weights(table, op->status);
        /* paths: move out of the growable vector into the arena */
        if (op->path_vec.len) {
            if (!(op->paths = om_arena_array(&res->arena, op->path_vec.len, sizeof(char *))))
                return oom(g);
            memcpy(op->paths, op->path_vec.data, op->path_vec.len * sizeof(char *));
            op->n_paths = op->path_vec.len;
        }
        om_vec_free(&op->path_vec, &res->mem);
    }
    return OPMAP_OK;
}

static int copy_values(opmap_result *res, const ir_graph *g, const ir_value *src, size_t n,
                       ir_value **out, size_t *count, int skip_inits)
{
    size_t i, k = 0;
    *count = 0;
    if (!n)
        return OPMAP_OK;
    if (!(*out = om_arena_array(&res->arena, n, sizeof(ir_value))))
        return OPMAP_ENOMEM;
    for (i = 0; i < n; i++) {
        ir_value *v = &(*out)[k];
        size_t d, j;
        int is_init = 0;
        /* Older exporters list initializers as graph inputs: they are weights, not inputs. */
        for (j = 0; skip_inits && j < g->n_inits; j++)
            if (strcmp(g->inits[j].name, src[i].name) == 0) {
                is_init = 1;
                break;
            }
        if (is_init)
            continue;
        *v = src[i];
        if (!(v->name = om_arena_strdup(&res->arena, src[i].name)))
            return OPMAP_ENOMEM;
        if (src[i].type.rank > 0) {
            if (!(v->type.dims = om_arena_array(&res->arena, (size_t)src[i].type.rank,
                                                sizeof(ir_dim))))
                return OPMAP_ENOMEM;
            for (d = 0; d < (size_t)src[i].type.rank; d++) {
                v->type.dims[d] = src[i].type.dims[d];
                if (src[i].type.dims[d].param &&
                    !(v->type.dims[d].param =
                          om_arena_strdup(&res->arena, src[i].type.dims[d].param)))
                    return OPMAP_ENOMEM;
            }
        }
        k++;
    }
    *count = k;
    return OPMAP_OK;
}

/* External-data references of every tensor, so reports can list the side files. */
static int copy_external(opmap_result *res, const ir_model *m)
{
    size_t i;
    if (!m->n_external)
        return OPMAP_OK;
    if (!(res->ext = om_arena_array(&res->arena, m->n_external, sizeof(om_ext_ref))))
        return OPMAP_ENOMEM;
    for (i = 0; i < m->n_external; i++) {
        const ir_tensor *t = &m->external[i];
        om_ext_ref *r = &res->ext[i];
        if (!(r->tensor = om_arena_strdup(&res->arena, t->name)) ||
            !(r->location = om_arena_strdup(&res->arena, t->ext_location ? t->ext_location : "")))
            return OPMAP_ENOMEM;
        r->offset = t->ext_offset;
        r->length = t->ext_length;
        r->has_length = t->has_ext_length;
    }
    res->n_ext = m->n_external;
    return OPMAP_OK;
}

static int copy_model(opmap_result *res, const ir_model *m)
{
    size_t i;
    om_arena *A = &res->arena;
    res->format = m->format;
    res->ir_version = m->ir_version;
    res->model_version = m->model_version;
    res->stats = m->stats;
    if (!(res->producer_name = dup_or_empty(A, m->producer_name)) ||
        !(res->producer_version = dup_or_empty(A, m->producer_version)) ||
        !(res->model_domain = dup_or_empty(A, m->domain)))
        return OPMAP_ENOMEM;
    if (m->n_opsets) {
        if (!(res->opsets = om_arena_array(A, m->n_opsets, sizeof(ir_opset))))
            return OPMAP_ENOMEM;
        for (i = 0; i < m->n_opsets; i++) {
            res->opsets[i].version = m->opsets[i].version;
            if (!(res->opsets[i].domain = om_arena_strdup(A, m->opsets[i].domain)))
                return OPMAP_ENOMEM;
        }
        res->n_opsets = m->n_opsets;
    }
    if (m->main &&
        (copy_values(res, m->main, m->main->inputs, m->main->n_inputs, &res->inputs,
                     &res->n_inputs, 1) ||
         copy_values(res, m->main, m->main->outputs, m->main->n_outputs, &res->outputs,
                     &res->n_outputs, 0)))
        return OPMAP_ENOMEM;
    return copy_external(res, m);
}

int opmap_scan(opmap_result **out, opmap_ctx *ctx, const opmap_model *model,
               const opmap_table *table, const opmap_scan_options *opts, opmap_error *err)
{
    opmap_result *res;
    group g;
    int rc;
    size_t i;

    om_err_clear(err);
    if (!out || !ctx || !model || !table)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: NULL argument");
    *out = NULL;
    if (opts && opts->version != OPMAP_SCAN_OPTIONS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: options version %u, expected %u",
                       opts->version, OPMAP_SCAN_OPTIONS_VERSION);
    if (!(res = om_ctx_calloc(ctx, sizeof(*res))))
        return om_fail(err, OPMAP_ENOMEM, model->ir.name, "out of memory");
    res->ctx = ctx;
    om_mem_init(&res->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&res->arena, &res->mem, 0);
    om_vec_init(&res->diags, sizeof(om_diag));

    memset(&g, 0, sizeof(g));
    g.res = res;
    g.err = err;
    om_vec_init(&g.ops, sizeof(opmap_op *));

    if (!(res->model_name = om_arena_strdup(&res->arena, model->ir.name)) ||
        !(res->table_origin = om_arena_strdup(&res->arena, table->origin)) ||
        !(res->table_name = om_arena_strdup(&res->arena, table->name)) ||
        !(res->table_version = om_arena_strdup(&res->arena, table->version)) ||
        copy_model(res, &model->ir) != OPMAP_OK) {
        rc = om_fail_mem(err, &res->mem, model->ir.name);
        goto done;
    }
    rc = om_walk(&model->ir, &ctx->limits, &res->mem, on_instance, on_note, &g, err);
    if (rc == OPMAP_OK)
        rc = classify(&g, table);
    if (rc == OPMAP_OK && g.ops.len) {
        if (!(res->ops = om_arena_array(&res->arena, g.ops.len, sizeof(opmap_op *)))) {
            rc = oom(&g);
        } else {
            memcpy(res->ops, g.ops.data, g.ops.len * sizeof(opmap_op *));
            res->n_ops = g.ops.len;
            qsort(res->ops, res->n_ops, sizeof(*res->ops), op_cmp);
        }
    }
    if (rc == OPMAP_OK)
        om_estimate_summary(res->ops, res->n_ops, &res->summary);
done:
    for (i = 0; i < g.ops.len; i++)
        om_vec_free(&OM_VEC_AT(&g.ops, opmap_op *, i)->path_vec, &res->mem);
    om_vec_free(&g.ops, &res->mem);
    if (g.index)
        om_dealloc(&res->mem, g.index, g.index_cap * sizeof(*g.index));
    if (rc != OPMAP_OK) {
        opmap_result_free(res);
        return rc;
    }
    *out = res;
    return OPMAP_OK;
}

void opmap_result_free(opmap_result *res)
{
    if (!res)
        return;
    om_vec_free(&res->diags, &res->mem);
    om_arena_free(&res->arena);
    om_ctx_release(res->ctx, res);
}
