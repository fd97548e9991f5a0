/*
 * scan/scan.c - the pipeline: walk the model, answer each instance from the table for
 * every chip asked for (answer.c), group per distinct operator (operators.c), segments,
 * risks and advice, the estimate, all kept in a self-contained result.
 *
 * A distinct operator is (domain, name, opset in effect): adapting it once serves all its
 * instances, which is what the estimate counts. Its status is the worst any instance gets
 * on any chip scanned for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/verify.h>

#include "core/context.h"
#include "core/err.h"
#include "core/text.h"
#include "readers/model.h"
#include "rules/placement.h"
#include "result_estimate.h"
#include "scan_internal.h"

int om_scan_oom(group *g)
{
    return om_fail_mem(g->err, &g->res->mem, g->res->model_name);
}

/* The instance in its graph's NPU segment; a breaker is kept with why it breaks. */
static int segment(group *g, const opmap_op *op, const om_visit *v, int status)
{
    opmap_result *res = g->res;
    int place = om_placement(op->engine, v->node, status);
    om_seq *q = om_segments_add(&res->segments, &res->mem, v->seq, place);
    if (!q)
        return om_scan_oom(g);
    if (!q->graph && !(q->graph = om_arena_strndup(&res->arena, v->path, v->seq_path_len)))
        return om_scan_oom(g);
    if (place == OM_PLACE_BREAK) {
        om_breaker *b;
        char name[300];
        res->segments.n_breakers++;
        if (res->segments.breakers.len >= OM_MAX_BREAKERS)
            return OPMAP_OK;
        snprintf(name, sizeof(name), "%s::%s", op->domain, op->name);
        if (!(b = om_vec_push(&res->segments.breakers, &res->mem)) ||
            !(b->node = om_arena_strdup(&res->arena, v->path)) ||
            !(b->op = om_arena_strdup(&res->arena, name)) ||
            !(b->why = om_arena_strdup(&res->arena, om_break_why(op->engine, status))))
            return om_scan_oom(g);
    }
    return OPMAP_OK;
}

static int on_instance(void *payload, const om_visit *v)
{
    group *g = payload;
    opmap_result *res = g->res;
    const ir_node *n = v->node;
    om_op_work *w;
    opmap_op *op;
    const char **slot;
    int inst[64], rc, placed = OPMAP_OP_STRUCTURAL;
    size_t j;

    if ((rc = om_risks_call(res, v)) != 0) /* structure, not an operator */
        return rc < 0 ? om_scan_oom(g) : OPMAP_OK;
    /* a printed graph's constants are values (kept as the arguments of the calls that use
     * them), as an archive's are: a 0-dim Double constant is a Python number, no tensor op */
    if (om_format_has(res->format, OPMAP_FORMAT_TRAIT_PRINTED) && strcmp(n->domain, "prim") == 0 &&
        strcmp(n->op, "Constant") == 0)
        return OPMAP_OK;

    if (!(w = om_scan_operator(g, n, v->opset)))
        return om_scan_oom(g);
    op = w->op;
    om_scan_atc_note(g, v, op);
    op->instances++;
    op->dtypes_seen |= n->n_inputs && n->in_facts && n->in_facts[0].dtype > 0 &&
                               n->in_facts[0].dtype < 32
                           ? 1u << n->in_facts[0].dtype
                           : 1u;
    if (!(slot = om_vec_push(&w->paths, &res->mem)) ||
        !(*slot = om_arena_strdup(&res->arena, v->path)))
        return om_scan_oom(g);
    if (n->src_file || w->locs.len) {
        /* source lines (TorchScript debug info): kept parallel to the paths */
        while (w->locs.len + 1 < w->paths.len)
            if (!om_vec_push(&w->locs, &res->mem))
                return om_scan_oom(g);
        if (!(slot = om_vec_push(&w->locs, &res->mem)))
            return om_scan_oom(g);
        if (n->src_file &&
            !(*slot = om_arena_printf(&res->arena, "%s:%u", n->src_file, (unsigned)n->src_line)))
            return om_scan_oom(g);
    }
    om_scan_evaluate(g, w, v, inst, &placed, &rc);
    if (rc)
        return rc;
    for (j = 0; g->advice && j < g->table->n_advice; j++)
        if (om_advice_applies(g->table->advice[j].detector, g->atc))
            om_advice_visit(g->table->advice[j].detector, &g->advice[j], v);
    if ((rc = om_risks_instance(res, op, v)))
        return rc == OPMAP_ENOMEM ? om_scan_oom(g) : rc;
    if ((rc = om_scan_patterns_visit(g, v)))
        return rc;
    if ((rc = om_scan_verify_instance(g, w, v)))
        return rc;
    return segment(g, op, v, placed);
}

static int on_note(void *payload, const char *message, const char *path)
{
    group *g = payload;
    om_diag *d = om_vec_push(&g->res->diags, &g->res->mem);
    if (!d || !(d->message = om_arena_strdup(&g->res->arena, message)) ||
        !(d->where = om_arena_strdup(&g->res->arena, path)))
        return om_scan_oom(g);
    d->level = OPMAP_DIAG_WARNING;
    return OPMAP_OK;
}

/* The advice that applies, once the walk has seen every instance. */
static int finish_advice(group *g)
{
    opmap_result *res = g->res;
    om_arena *A = &res->arena;
    size_t i;
    for (i = 0; g->advice && i < g->table->n_advice; i++) {
        const om_advice_rule *rule = &g->table->advice[i];
        om_advice_state *st = &g->advice[i];
        om_advice *a;
        if (!om_advice_applies(rule->detector, g->atc))
            continue;
        if (!om_advice_finish(rule->detector, st, res->inputs, res->n_inputs, res->outputs,
                              res->n_outputs))
            continue;
        if (!(a = om_vec_push(&res->advice, &res->mem)) || !(a->id = om_arena_strdup(A, rule->id)) ||
            !(a->message = om_arena_strdup(A, rule->message)) ||
            !(a->action = om_arena_strdup(A, rule->action)) ||
            !(a->value = om_arena_strdup(A, st->value)) ||
            !(a->where = om_arena_strdup(A, st->where)) ||
            !(a->sources = om_scan_sources(A, &rule->ev)) ||
            !(a->recipes = om_scan_join(A, rule->recipes, rule->n_recipes, "; ")))
            return om_scan_oom(g);
        a->count = st->count;
        a->grade = rule->ev.grade;
        a->optional = rule->optional;
        a->custom_op = rule->custom_op;
    }
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

/*
 * What the instances become, from the cases they took (answer.c, take_case): the one case
 * when all took it ("Conv2D"), each case with its count when they differ ("Conv2D (53),
 * Conv3D (2)"); the row's union, saying so, for the instances no case decided.
 */
static int becomes_of_cases(group *g, const om_op_work *w)
{
    opmap_op *op = w->op;
    char text[600];
    size_t used = 0, i;
    if (w->n_cases_seen == 1 && !w->cases_undecided) {
        op->becomes = om_arena_strdup(&g->res->arena, w->case_seen[0]);
        return op->becomes ? OPMAP_OK : om_scan_oom(g);
    }
    text[0] = 0;
    for (i = 0; i < w->n_cases_seen; i++)
        om_appendf(text, sizeof(text), &used, "%s%s (%llu)", i ? ", " : "", w->case_seen[i],
                   (unsigned long long)w->case_count[i]);
    if (w->cases_undecided)
        om_appendf(text, sizeof(text), &used, "%s%s (%llu instance%s: which one is not decided "
                   "from the model)", used ? "; " : "", op->becomes,
                   (unsigned long long)w->cases_undecided, w->cases_undecided == 1 ? "" : "s");
    op->becomes = om_arena_strdup(&g->res->arena, text);
    return op->becomes ? OPMAP_OK : om_scan_oom(g);
}

/* After the walk: each operator's status over the chips, its effort, and its lists. */
static int finish_ops(group *g)
{
    opmap_result *res = g->res;
    size_t i, c;
    int rc;
    for (i = 0; i < g->ops.len; i++) {
        om_op_work *w = OM_VEC_AT(&g->ops, om_op_work *, i);
        opmap_op *op = w->op;
        /* chips whose answer is unpublished count apart; with no other chip, the row's
         * general answer is all there is */
        op->status = OPMAP_OP_STRUCTURAL;
        for (c = 0; c < res->n_chips; c++)
            if (op->chip_status[c] > op->status && (!op->chip_unknown[c] || op->all_unknown))
                op->status = op->chip_status[c];
        if ((rc = om_scan_verify_finish(g, w)) != OPMAP_OK)
            return rc;
        /* verified on every chip, the unpublished answer is known: nothing left to verify */
        if (op->unpublished && op->status != OPMAP_OP_STRUCTURAL &&
            op->verify_state != OPMAP_VERIFY_PASS) {
            res->unpublished_ops++;
            res->unpublished_effort.min += g->table->unpublished.min;
            res->unpublished_effort.expected += g->table->unpublished.expected;
            res->unpublished_effort.max += g->table->unpublished.max;
        }
        if (w->has_cases && (rc = becomes_of_cases(g, w)) != OPMAP_OK)
            return rc;
        op->effort = g->weights && (g->weights->set & (1u << op->status)) &&
                             op->status != OPMAP_OP_STRUCTURAL
                         ? g->weights->effort[op->status]
                         : opmap_table_weights(g->table, op->status);
        op->effort_unverified = op->effort;
        if (op->verify_state == OPMAP_VERIFY_PASS) /* what the range held for the unknown */
            op->effort.expected = op->effort.max = op->effort.min;
        if ((rc = om_scan_work_finish(g, w)) != OPMAP_OK)
            return rc;
        if (w->reasons.len) {
            if (!(op->reasons = om_arena_array(&res->arena, w->reasons.len, sizeof(om_reason))))
                return om_scan_oom(g);
            memcpy(op->reasons, w->reasons.data, w->reasons.len * sizeof(om_reason));
            op->n_reasons = w->reasons.len;
        }
    }
    return OPMAP_OK;
}

/* The error for a chip the table has no column for: it names the ones it has. */
static int unknown_chip(const opmap_table *t, const char *name, size_t len, opmap_error *err)
{
    char known[256] = "";
    size_t i, used = 0;
    for (i = 0; i < t->n_socs; i++) {
        if (used + strlen(t->socs[i]) + 8 > sizeof(known)) { /* leave room for ", ..." */
            om_appendf(known, sizeof(known), &used, ", ...");
            break;
        }
        om_appendf(known, sizeof(known), &used, "%s%s", i ? ", " : "", t->socs[i]);
    }
    return om_fail(err, OPMAP_EINVAL, t->origin,
                   "unknown chip '%.*s' (a chip or one of its parts, e.g. Ascend910B3; the "
                   "table has: %s; or use all)",
                   (int)(len > 64 ? 64 : len), name, known);
}

/* Each chip's part asked for (or NULL) and its family's parts, copied into the result. */
static int copy_chips(opmap_result *res, const opmap_table *t, const uint32_t *soc,
                      const char *const *asked, opmap_error *err)
{
    size_t i, j;
    if (!(res->chips = om_arena_array(&res->arena, res->n_chips, sizeof(char *))) ||
        !(res->chip_info = om_arena_array(&res->arena, res->n_chips, sizeof(om_chip))))
        return om_fail_mem(err, &res->mem, NULL);
    for (i = 0; i < res->n_chips; i++) {
        const om_soc_parts *sp = t->soc_parts ? &t->soc_parts[soc[i]] : NULL;
        om_chip *c = &res->chip_info[i];
        if (!(res->chips[i] = om_arena_strdup(&res->arena, t->socs[soc[i]])) ||
            (asked[i] && !(c->part = om_arena_strdup(&res->arena, asked[i]))))
            return om_fail_mem(err, &res->mem, NULL);
        if (!sp || !sp->n_parts)
            continue;
        if (!(c->parts = om_arena_array(&res->arena, sp->n_parts, sizeof(char *))))
            return om_fail_mem(err, &res->mem, NULL);
        for (j = 0; j < sp->n_parts; j++)
            if (!(c->parts[j] = om_arena_strdup(&res->arena, sp->parts[j])))
                return om_fail_mem(err, &res->mem, NULL);
        c->n_parts = sp->n_parts;
    }
    return OPMAP_OK;
}

/*
 * Which chips to answer for: NULL (the table's default), "all", or names separated by ',',
 * each a family id or one of its parts (case aside: om_table_find_soc).
 */
static int pick_chips(group *g, const opmap_table *t, const char *soc, opmap_error *err)
{
    opmap_result *res = g->res;
    const char *asked[64] = { NULL };
    size_t i;
    if (!soc || !soc[0]) {
        g->chip_soc[0] = (uint32_t)t->default_soc;
        res->n_chips = 1;
    } else if (strcmp(soc, "all") == 0) {
        for (i = 0; i < t->n_socs; i++)
            g->chip_soc[i] = (uint32_t)i;
        res->n_chips = t->n_socs;
    } else {
        const char *p = soc, *part;
        uint64_t named = 0; /* a chip named twice is answered once, for its first name */
        res->n_chips = 0;
        while (*p) {
            size_t len = strcspn(p, ",");
            if (!om_table_find_soc(t, p, len, &i, &part))
                return unknown_chip(t, p, len, err);
            if (!(named & (1ull << i))) {
                asked[res->n_chips] = part;
                g->chip_soc[res->n_chips++] = (uint32_t)i;
            }
            named |= 1ull << i;
            p += len;
            if (*p == ',')
                p++;
        }
        if (!res->n_chips)
            return om_fail(err, OPMAP_EINVAL, NULL, "no chip given");
    }
    return copy_chips(res, t, g->chip_soc, asked, err);
}

/* The result's totals: the estimate over its distinct operators. */
void om_scan_summarize(opmap_result *res)
{
    size_t k;
    memset(&res->summary, 0, sizeof(res->summary));
    for (k = 0; k < res->n_ops; k++) {
        om_estimate_op e = om_result_estimate_op(res->ops[k]);
        om_estimate_add(&res->summary, &e);
    }
}

int om_scan_begin(group *g, opmap_result **resp, opmap_ctx *ctx, const char *name,
                  const opmap_table *table, const opmap_scan_options *opts, opmap_error *err)
{
    opmap_result *res;
    int rc;
    *resp = NULL;
    memset(g, 0, sizeof(*g));
    if (opts && (opts->version < 1 || opts->version > OPMAP_SCAN_OPTIONS_VERSION))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: options version %u, expected 1 to %u",
                       opts->version, OPMAP_SCAN_OPTIONS_VERSION);
    if (opts && opts->weights && opts->weights->version != OPMAP_WEIGHTS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: weights version %u, expected %u",
                       opts->weights->version, OPMAP_WEIGHTS_VERSION);
    if (opts && opts->version >= 3 && opts->mode != OPMAP_MODE_EAGER &&
        opts->mode != OPMAP_MODE_GRAPH)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: mode %d, expected OPMAP_MODE_EAGER "
                       "or OPMAP_MODE_GRAPH", opts->mode);
    if (opts && opts->version >= 4 && opts->workload != OPMAP_WORKLOAD_INFERENCE &&
        opts->workload != OPMAP_WORKLOAD_TRAINING)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: workload %d, expected "
                       "OPMAP_WORKLOAD_INFERENCE or OPMAP_WORKLOAD_TRAINING", opts->workload);
    if (!(res = om_result_new(ctx)))
        return om_fail(err, OPMAP_ENOMEM, name, "out of memory");
    res->mode = opts && opts->version >= 3 ? opts->mode : OPMAP_MODE_EAGER;
    res->workload = opts && opts->version >= 4 ? opts->workload : OPMAP_WORKLOAD_INFERENCE;
    g->res = res;
    g->table = table;
    g->weights = opts ? opts->weights : NULL;
    g->err = err;
    om_vec_init(&g->ops, sizeof(opmap_op *));
    ir_intern_init(&g->names, &res->mem, &res->arena);
    *resp = res;
    if ((rc = pick_chips(g, table, opts ? opts->soc : NULL, err)) ||
        (rc = om_scan_torch_npu_target(g, opts && opts->version >= 2 ? opts->torch_npu : NULL)) ||
        (rc = om_scan_verify_begin(g, opts && opts->version >= 3 ? opts->results : NULL)))
        return rc;
    if (!(res->model_name = om_arena_strdup(&res->arena, name)) ||
        !(res->table_origin = om_arena_strdup(&res->arena, table->origin)) ||
        !(res->table_name = om_arena_strdup(&res->arena, table->name)) ||
        !(res->table_version = om_arena_strdup(&res->arena, table->version)) ||
        !(res->torch_npu = om_arena_strdup(&res->arena, table->torch_npu)) ||
        !(res->cann = om_arena_strdup(&res->arena, table->cann)))
        return om_fail_mem(err, &res->mem, name);
    return OPMAP_OK;
}

int om_scan_list_ops(group *g)
{
    opmap_result *res = g->res;
    size_t i;
    if (g->ops.len) {
        if (!(res->ops = om_arena_array(&res->arena, g->ops.len, sizeof(opmap_op *))))
            return om_scan_oom(g);
        for (i = 0; i < g->ops.len; i++)
            res->ops[i] = OM_VEC_AT(&g->ops, om_op_work *, i)->op;
        res->n_ops = g->ops.len;
        qsort(res->ops, res->n_ops, sizeof(*res->ops), op_cmp);
    }
    return OPMAP_OK;
}

void om_scan_end(group *g)
{
    opmap_result *res = g->res;
    size_t i;
    if (!res)
        return;
    om_scan_patterns_end(g);
    for (i = 0; i < g->ops.len; i++) {
        om_op_work *w = OM_VEC_AT(&g->ops, om_op_work *, i);
        om_vec_free(&w->paths, &res->mem);
        om_vec_free(&w->locs, &res->mem);
        om_vec_free(&w->reasons, &res->mem);
        om_vec_free(&w->verified, &res->mem);
        om_vec_free(&w->verified_entry, &res->mem);
        om_dealloc(&res->mem, w, sizeof(*w));
    }
    om_scan_verify_end(g);
    om_vec_free(&g->ops, &res->mem);
    if (g->index)
        om_dealloc(&res->mem, g->index, g->index_cap * sizeof(*g->index));
    ir_intern_free(&g->names);
    if (g->advice)
        om_dealloc(&res->mem, g->advice, g->table->n_advice * sizeof(*g->advice));
    if (g->main_ops)
        om_dealloc(&res->mem, g->main_ops, g->main->n_nodes * sizeof(*g->main_ops));
}

int opmap_scan(opmap_result **out, opmap_ctx *ctx, const opmap_model *model,
               const opmap_table *table, const opmap_scan_options *opts, opmap_error *err)
{
    opmap_result *res;
    group g;
    int rc;

    om_err_clear(err);
    if (!out || !ctx || !model || !table)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: NULL argument");
    *out = NULL;
    if ((rc = om_scan_begin(&g, &res, ctx, model->ir.name, table, opts, err)))
        goto done;
    if (om_scan_copy_model(res, &model->ir) == OPMAP_OK &&
        res->workload == OPMAP_WORKLOAD_TRAINING &&
        om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATC)) {
        /* an ONNX model is an inference graph: ATC builds no backward (risks.c says so) */
        res->workload = OPMAP_WORKLOAD_INFERENCE;
        res->workload_narrowed = 1;
    }
    if (om_risks_model(res) != OPMAP_OK ||
        om_risks_functions(res, &model->ir) != OPMAP_OK) {
        rc = om_fail_mem(err, &res->mem, model->ir.name);
        goto done;
    }
    g.atc = om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATC);
    if (table->n_advice &&
        !(g.advice = om_calloc(&res->mem, table->n_advice, sizeof(*g.advice)))) {
        rc = om_fail_mem(err, &res->mem, model->ir.name);
        goto done;
    }
    if ((rc = om_scan_patterns_begin(&g)) || (rc = om_scan_atc_begin(&g, &model->ir)))
        goto done;
    rc = om_walk(&model->ir, &ctx->limits, &res->mem, on_instance, on_note, &g, err);
    if (rc == OPMAP_OK)
        rc = finish_ops(&g);
    if (rc == OPMAP_OK)
        rc = finish_advice(&g);
    if (rc == OPMAP_OK)
        rc = om_scan_patterns_finish(&g);
    if (rc == OPMAP_OK)
        rc = om_scan_list_ops(&g);
    if (rc == OPMAP_OK)
        rc = om_scan_atc_graph(&g, &model->ir);
    if (rc == OPMAP_OK && (om_risks_flags(res) != OPMAP_OK || om_risks_calls(res) != OPMAP_OK ||
                           om_scan_torch_npu_needed(res) != OPMAP_OK))
        rc = om_scan_oom(&g);
    if (rc == OPMAP_OK)
        om_scan_summarize(res);
done:
    om_scan_end(&g);
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
    om_vec_free(&res->risks, &res->mem);
    om_vec_free(&res->advice, &res->mem);
    om_segments_free(&res->segments, &res->mem);
    om_arena_free(&res->arena);
    om_ctx_release(res->ctx, res);
}
