/*
 * scan/model_copy.c - what a result keeps of the model: metadata, opset imports, the main
 * graph's inputs and outputs, external-data references. Copied, so the model can go.
 */
#include <string.h>

#include "scan_internal.h"
#include "core/hash.h"

static const char *dup_or_empty(om_arena *a, const char *s)
{
    return om_arena_strdup(a, s ? s : "");
}

/*
 * Initializer names of a graph as a hash set: a hostile graph may hold hundreds of thousands
 * of inputs and initializers, and matching them pairwise would be quadratic.
 */
typedef struct name_set {
    const char **slots;
    size_t cap;
} name_set;

static int init_names(opmap_result *res, const ir_graph *g, name_set *set)
{
    size_t i;
    set->cap = 16;
    while (set->cap < g->n_inits * 2)
        set->cap *= 2;
    if (!(set->slots = om_calloc(&res->mem, set->cap, sizeof(*set->slots))))
        return OPMAP_ENOMEM;
    for (i = 0; i < g->n_inits; i++) {
        size_t j = om_hash_name(g->inits[i].name) & (set->cap - 1);
        while (set->slots[j] && strcmp(set->slots[j], g->inits[i].name) != 0)
            j = (j + 1) & (set->cap - 1);
        set->slots[j] = g->inits[i].name;
    }
    return OPMAP_OK;
}

static int is_init_name(const name_set *set, const char *name)
{
    size_t j = om_hash_name(name) & (set->cap - 1);
    while (set->slots[j]) {
        if (strcmp(set->slots[j], name) == 0)
            return 1;
        j = (j + 1) & (set->cap - 1);
    }
    return 0;
}

static int copy_values(opmap_result *res, const ir_graph *g, const ir_value *src, size_t n,
                       ir_value **out, size_t *count, int skip_inits)
{
    size_t i, k = 0;
    name_set inits = { NULL, 0 };
    int rc = OPMAP_OK;
    *count = 0;
    if (!n)
        return OPMAP_OK;
    if (!(*out = om_arena_array(&res->arena, n, sizeof(ir_value))))
        return OPMAP_ENOMEM;
    if (skip_inits && g->n_inits && init_names(res, g, &inits) != OPMAP_OK)
        return OPMAP_ENOMEM;
    for (i = 0; i < n && rc == OPMAP_OK; i++) {
        ir_value *v = &(*out)[k];
        size_t d;
        /* Older exporters list initializers as graph inputs: they are weights, not inputs. */
        if (inits.slots && is_init_name(&inits, src[i].name))
            continue;
        *v = src[i];
        if (!(v->name = om_arena_strdup(&res->arena, src[i].name))) {
            rc = OPMAP_ENOMEM;
            break;
        }
        if (src[i].type.rank > 0) {
            if (!(v->type.dims = om_arena_array(&res->arena, (size_t)src[i].type.rank,
                                                sizeof(ir_dim)))) {
                rc = OPMAP_ENOMEM;
                break;
            }
            for (d = 0; d < (size_t)src[i].type.rank; d++) {
                v->type.dims[d] = src[i].type.dims[d];
                if (src[i].type.dims[d].param &&
                    !(v->type.dims[d].param =
                          om_arena_strdup(&res->arena, src[i].type.dims[d].param))) {
                    rc = OPMAP_ENOMEM;
                    break;
                }
            }
        }
        k++;
    }
    if (inits.slots)
        om_dealloc(&res->mem, inits.slots, inits.cap * sizeof(*inits.slots));
    *count = k;
    return rc;
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
        r->check = t->ext_check;
    }
    res->n_ext = m->n_external;
    return OPMAP_OK;
}

int om_scan_copy_model(opmap_result *res, const ir_model *m)
{
    size_t i;
    om_arena *A = &res->arena;
    res->format = m->format;
    res->training_reads = m->training_reads_folded;
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
