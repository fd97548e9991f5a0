/*
 * testgen/cases.c - the tests to write: every instance of a chosen operator walked, its
 * signature taken (signature/), one case per distinct signature across the models, each
 * naming the instances and models it stands for.
 *
 * An operator is chosen when its scan says it needs checking on the device: partial,
 * rewrite or unmapped, flagged precision or performance, or without a published answer for
 * a chip scanned for; or every operator but graph plumbing with OPMAP_TESTGEN_ALL; or when
 * opts->ops names it.
 */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "readers/model.h"
#include "scan/scan_internal.h"
#include "walker/walker.h"
#include "testgen_internal.h"

typedef struct walkst {
    tg_set *set;
    const opmap_result *res;
    const opmap_testgen_options *o;
    const char *model;
    const opmap_op **index;   /* the result's operators by (domain, name, opset) */
    size_t cap;
    const om_advice **places; /* fused-kernel advice by the node path of each place */
    const char **place_path;
    size_t place_cap;
} walkst;

/* The fused-kernel advice the harness can test a swap of, by place: at most one per path. */
static int index_places(walkst *w, om_mem *mem)
{
    size_t i, k, n = 0;
    for (i = 0; i < w->res->advice.len; i++) {
        const om_advice *a = &OM_VEC_AT(&w->res->advice, om_advice, i);
        if (a->fused && tg_swap_supported(a->id))
            n += a->n_places;
    }
    if (!n)
        return 1;
    w->place_cap = 16;
    while (w->place_cap < 2 * n)
        w->place_cap *= 2;
    if (!(w->places = om_calloc(mem, w->place_cap, sizeof(*w->places))) ||
        !(w->place_path = om_calloc(mem, w->place_cap, sizeof(*w->place_path))))
        return 0;
    for (i = 0; i < w->res->advice.len; i++) {
        const om_advice *a = &OM_VEC_AT(&w->res->advice, om_advice, i);
        if (!a->fused || !tg_swap_supported(a->id))
            continue;
        for (k = 0; k < a->n_places; k++) {
            size_t j = om_hash_name(a->places[k]) & (w->place_cap - 1);
            while (w->place_path[j] && strcmp(w->place_path[j], a->places[k]) != 0)
                j = (j + 1) & (w->place_cap - 1);
            w->place_path[j] = a->places[k];
            w->places[j] = a;
        }
    }
    return 1;
}

static const om_advice *place_of(const walkst *w, const char *path)
{
    size_t j;
    if (!w->place_cap)
        return NULL;
    for (j = om_hash_name(path) & (w->place_cap - 1); w->place_path[j];
         j = (j + 1) & (w->place_cap - 1))
        if (strcmp(w->place_path[j], path) == 0)
            return w->places[j];
    return NULL;
}

static uint64_t op_hash(const char *domain, const char *name, int64_t opset)
{
    return om_hash_key(domain, name) ^ ((uint64_t)opset * 0x9e3779b97f4a7c15ull);
}

static int index_ops(walkst *w, om_mem *mem)
{
    size_t i;
    w->cap = 16;
    while (w->cap < 2 * w->res->n_ops)
        w->cap *= 2;
    if (!(w->index = om_calloc(mem, w->cap, sizeof(*w->index))))
        return 0;
    for (i = 0; i < w->res->n_ops; i++) {
        const opmap_op *op = w->res->ops[i];
        size_t j = op_hash(op->domain, op->name, op->opset) & (w->cap - 1);
        while (w->index[j])
            j = (j + 1) & (w->cap - 1);
        w->index[j] = op;
    }
    return 1;
}

static const opmap_op *find_op(const walkst *w, const char *domain, const char *name,
                               int64_t opset)
{
    size_t j = op_hash(domain, name, opset) & (w->cap - 1);
    for (; w->index[j]; j = (j + 1) & (w->cap - 1))
        if (w->index[j]->opset == opset && strcmp(w->index[j]->name, name) == 0 &&
            strcmp(w->index[j]->domain, domain) == 0)
            return w->index[j];
    return NULL;
}

/* Whether opts->ops names op: "domain::name" exactly, or a bare name. */
static int named(const opmap_op *op, const char *list)
{
    size_t dl = strlen(op->domain), nl = strlen(op->name);
    while (list && *list) {
        size_t n = strcspn(list, ",");
        if ((n == nl && memcmp(list, op->name, n) == 0) ||
            (n == dl + 2 + nl && memcmp(list, op->domain, dl) == 0 &&
             memcmp(list + dl, "::", 2) == 0 && memcmp(list + dl + 2, op->name, nl) == 0))
            return 1;
        list += n + (list[n] == ',');
    }
    return 0;
}

/* Why op gets tests ("partial; precision"), or NULL when it does not. */
static const char *chosen(const opmap_op *op, const opmap_testgen_options *o, char *buf,
                          size_t size)
{
    int flagged = (op->flags & (OPMAP_FLAG_PRECISION | OPMAP_FLAG_PERFORMANCE)) != 0 ||
                  op->unpublished;
    if (op->source)
        return NULL; /* a pattern of Python sources: no operator to run */
    if (named(op, o->ops)) {
        snprintf(buf, size, "%s; named by --ops", opmap_op_status_name(op->status));
        return buf;
    }
    if (op->status == OPMAP_OP_STRUCTURAL)
        return NULL;
    if (o->select != OPMAP_TESTGEN_ALL && op->status < OPMAP_OP_PARTIAL && !flagged)
        return NULL;
    snprintf(buf, size, "%s%s%s%s%s", opmap_op_status_name(op->status),
             op->flags & OPMAP_FLAG_PRECISION ? "; precision" : "",
             op->flags & OPMAP_FLAG_PERFORMANCE ? "; performance" : "",
             op->unpublished ? "; unpublished for a chip scanned for" : "",
             op->status < OPMAP_OP_PARTIAL && !flagged ? "; --all" : "");
    return buf;
}

static size_t find_case(const tg_set *s, const char *sig, uint64_t h, size_t *slot)
{
    size_t j = h & (s->cap - 1);
    *slot = 0;
    if (!s->cap)
        return SIZE_MAX;
    for (; s->slots[j]; j = (j + 1) & (s->cap - 1)) {
        const tg_case *c = &OM_VEC_AT(&s->cases, tg_case, s->slots[j] - 1);
        if (c->h == h && strcmp(c->signature, sig) == 0)
            return s->slots[j] - 1;
    }
    *slot = j;
    return SIZE_MAX;
}

/* Room for one more case in the index (at most half full). */
static int grow(tg_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64, i, *slots;
    if ((s->cases.len + 1) * 2 <= s->cap)
        return 1;
    if (!(slots = om_calloc(s->mem, cap, sizeof(*slots))))
        return 0;
    for (i = 0; i < s->cases.len; i++) {
        size_t j = OM_VEC_AT(&s->cases, tg_case, i).h & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = i + 1;
    }
    if (s->slots)
        om_dealloc(s->mem, s->slots, s->cap * sizeof(*s->slots));
    s->slots = slots;
    s->cap = cap;
    return 1;
}

static int new_case(walkst *w, const om_sig *sig, const char *text, uint64_t h,
                    const char *why, tg_case **out)
{
    tg_set *s = w->set;
    tg_buf code = { NULL, 0, 0, s->mem, 0 };
    char skip[256], op[600];
    tg_case *c;
    size_t slot;
    if (s->cases.len >= s->max)
        return om_fail(s->err, OPMAP_ELIMIT, w->model, "more than max_tests (%u) tests: "
                       "choose operators with --ops", (unsigned)s->max);
    if (!grow(s))
        return om_fail_mem(s->err, s->mem, w->model);
    find_case(s, text, h, &slot);
    tg_case_code(&code, sig, skip);
    snprintf(op, sizeof(op), "%s::%s", sig->domain, sig->op);
    if (code.oom || !(c = om_vec_push(&s->cases, s->mem)) ||
        !(c->signature = om_arena_strdup(s->arena, text)) ||
        !(c->op = om_arena_strdup(s->arena, op)) || !(c->why = om_arena_strdup(s->arena, why)) ||
        !(c->code = om_arena_strdup(s->arena, code.data)) ||
        (skip[0] && !(c->skip = om_arena_strdup(s->arena, skip)))) {
        tg_free(&code);
        return om_fail_mem(s->err, s->mem, w->model);
    }
    tg_free(&code);
    c->h = h;
    s->slots[slot] = s->cases.len;
    *out = c;
    return OPMAP_OK;
}

/* The swap test of a fused-kernel advice at this place: one case per distinct signature. */
static int swap_case(walkst *w, const om_advice *a, const om_visit *v)
{
    tg_set *s = w->set;
    tg_buf code = { NULL, 0, 0, s->mem, 0 };
    char sig[OM_SIG_TEXT_MAX], skip[256], why[160], op[96];
    size_t k, slot;
    tg_case *c;
    uint64_t h;
    int training = w->res->workload == OPMAP_WORKLOAD_TRAINING;
    tg_swap_code(a->id, v->node, training, &code, sig, sizeof(sig), skip);
    h = om_hash_name(sig);
    if ((k = find_case(s, sig, h, &slot)) != SIZE_MAX) {
        tg_free(&code);
        c = &OM_VEC_AT(&s->cases, tg_case, k);
    } else {
        if (s->cases.len >= s->max) {
            tg_free(&code);
            return om_fail(s->err, OPMAP_ELIMIT, w->model, "more than max_tests (%u) tests: "
                           "choose operators with --ops", (unsigned)s->max);
        }
        if (!grow(s)) {
            tg_free(&code);
            return om_fail_mem(s->err, s->mem, w->model);
        }
        find_case(s, sig, h, &slot);
        snprintf(why, sizeof(why), "fused-kernel swap (%s advised%s)", a->id,
                 training ? "; training: gradients too" : "");
        snprintf(op, sizeof(op), "swap::%s", a->id);
        if (code.oom || !(c = om_vec_push(&s->cases, s->mem)) ||
            !(c->signature = om_arena_strdup(s->arena, sig)) ||
            !(c->op = om_arena_strdup(s->arena, op)) || !(c->why = om_arena_strdup(s->arena, why)) ||
            !(c->code = om_arena_strdup(s->arena, code.data)) ||
            (skip[0] && !(c->skip = om_arena_strdup(s->arena, skip)))) {
            tg_free(&code);
            return om_fail_mem(s->err, s->mem, w->model);
        }
        tg_free(&code);
        memset(c->nodes, 0, sizeof(c->nodes));
        c->n_nodes = c->n_models = 0;
        c->instances = 0;
        c->h = h;
        s->slots[slot] = s->cases.len;
    }
    c->instances++;
    if (c->n_nodes < TG_MAX_NODES &&
        !(c->nodes[c->n_nodes++] = om_arena_strdup(s->arena, v->path)))
        return om_fail_mem(s->err, s->mem, w->model);
    if ((!c->n_models || c->models[c->n_models - 1] != w->model) && c->n_models < TG_MAX_MODELS)
        c->models[c->n_models++] = w->model;
    return OPMAP_OK;
}

static int visit_op(walkst *w, const om_visit *v);

static int visit(void *payload, const om_visit *v)
{
    walkst *w = payload;
    const om_advice *a = place_of(w, v->path);
    int rc;
    if (a && (rc = swap_case(w, a, v)))
        return rc;
    return visit_op(w, v);
}

static int visit_op(walkst *w, const om_visit *v)
{
    const char *domain, *name;
    int64_t opset = om_scan_answered_as(v->node, &domain, &name) ? 0 : v->opset;
    const opmap_op *op = find_op(w, domain, name, opset);
    char why[128], text[OM_SIG_TEXT_MAX];
    om_sig sig;
    tg_case *c = NULL;
    size_t k, slot;
    int rc;
    if (!op || !chosen(op, w->o, why, sizeof(why)))
        return OPMAP_OK; /* call structure, or an operator not chosen */
    om_sig_build(&sig, v->node, op->domain, op->name, op->opset);
    om_sig_text(&sig, text, sizeof(text));
    if ((k = find_case(w->set, text, om_hash_name(text), &slot)) != SIZE_MAX)
        c = &OM_VEC_AT(&w->set->cases, tg_case, k);
    else if ((rc = new_case(w, &sig, text, om_hash_name(text), why, &c)))
        return rc;
    c->instances++;
    if (c->n_nodes < TG_MAX_NODES &&
        !(c->nodes[c->n_nodes++] = om_arena_strdup(w->set->arena, v->path)))
        return om_fail_mem(w->set->err, w->set->mem, w->model);
    if ((!c->n_models || c->models[c->n_models - 1] != w->model) && c->n_models < TG_MAX_MODELS)
        c->models[c->n_models++] = w->model;
    return OPMAP_OK;
}

static int note(void *payload, const char *message, const char *path)
{
    (void)payload, (void)message, (void)path;
    return OPMAP_OK; /* the scan's diagnostics already say it */
}

int tg_collect(tg_set *set, const opmap_model *model, const opmap_result *res,
               const opmap_testgen_options *o, const opmap_ctx *ctx)
{
    walkst w;
    int rc;
    memset(&w, 0, sizeof(w));
    w.set = set;
    w.res = res;
    w.o = o;
    if (!(w.model = om_arena_strdup(set->arena, res->model_name)) || !index_ops(&w, set->mem) ||
        !index_places(&w, set->mem)) {
        if (w.index)
            om_dealloc(set->mem, w.index, w.cap * sizeof(*w.index));
        if (w.places)
            om_dealloc(set->mem, w.places, w.place_cap * sizeof(*w.places));
        if (w.place_path)
            om_dealloc(set->mem, w.place_path, w.place_cap * sizeof(*w.place_path));
        return om_fail_mem(set->err, set->mem, res->model_name);
    }
    rc = om_walk(&model->ir, &ctx->limits, set->mem, visit, note, &w, set->err);
    om_dealloc(set->mem, w.index, w.cap * sizeof(*w.index));
    if (w.places) {
        om_dealloc(set->mem, w.places, w.place_cap * sizeof(*w.places));
        om_dealloc(set->mem, w.place_path, w.place_cap * sizeof(*w.place_path));
    }
    return rc;
}

void tg_set_free(tg_set *set)
{
    if (set->slots)
        om_dealloc(set->mem, set->slots, set->cap * sizeof(*set->slots));
    om_vec_free(&set->cases, set->mem);
}
