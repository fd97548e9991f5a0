/*
 * report/view.c - the view every writer formats (view.h): built once per report from the
 * results, the portfolio and the headlines, in its own arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/text.h"
#include "report_internal.h"
#include "view.h"

#define OOM(p) do { if (!(p)) return OPMAP_ENOMEM; } while (0)

/* The next commands of a model: ATC's for each chip (ONNX), torch_npu's (ATen formats). */
static int next_commands(om_view *v, om_vmodel *m)
{
    const opmap_result *r = m->r;
    char buf[4096];
    size_t k, n = m->atc ? r->n_chips : om_torch_npu_step_count(r);
    if (!n)
        return OPMAP_OK;
    OOM(m->next = om_arena_array(&v->arena, n, sizeof(*m->next)));
    for (k = 0; k < n; k++) {
        om_vcmd *c = &m->next[k];
        if (m->atc) {
            om_atc_command(r, k, buf, sizeof(buf));
            OOM(c->text = om_arena_strdup(&v->arena, buf));
            om_atc_notes(r, k, buf, sizeof(buf));
            OOM(c->notes = om_arena_strdup(&v->arena, buf));
            c->chip = (int)k;
        } else {
            om_torch_npu_step(r, k, buf, sizeof(buf));
            OOM(c->text = om_arena_strdup(&v->arena, buf));
            c->notes = "";
            c->chip = -1;
        }
    }
    m->n_next = n;
    return OPMAP_OK;
}

static int operators(om_view *v, om_vmodel *m)
{
    const opmap_result *r = m->r;
    char step[1024];
    size_t i;
    if (!r->n_ops)
        return OPMAP_OK;
    OOM(m->ops = om_arena_array(&v->arena, r->n_ops, sizeof(*m->ops)));
    for (i = 0; i < r->n_ops; i++) {
        const opmap_op *op = r->ops[i];
        om_vop *x = &m->ops[i];
        x->op = op;
        x->on_ascend = op->becomes;
        x->engine = op->engine;
        if (op->status >= OPMAP_OP_PARTIAL)
            OOM(x->next_step = om_arena_strdup(&v->arena, om_next_step(op, step, sizeof(step))));
    }
    return OPMAP_OK;
}

/* Every distinct source line of an advice's places, in the order first met. */
static int advice_lines(om_view *v, om_vadvice *x)
{
    const om_advice *a = x->a;
    const char **seen;
    size_t i, cap = 16;
    x->lines = NULL;
    x->n_lines = 0;
    if (!a->lines || !a->n_places)
        return OPMAP_OK;
    while (cap < 2 * a->n_places)
        cap *= 2;
    OOM(seen = om_arena_array(&v->arena, cap, sizeof(*seen)));
    OOM(x->lines = om_arena_array(&v->arena, a->n_places, sizeof(*x->lines)));
    for (i = 0; i < a->n_places; i++) {
        const char *l = a->lines[i];
        size_t h;
        if (!l)
            continue;
        for (h = om_hash_str(OM_HASH_SEED, l) & (cap - 1); seen[h] && strcmp(seen[h], l) != 0;
             h = (h + 1) & (cap - 1))
            continue;
        if (!seen[h])
            seen[h] = x->lines[x->n_lines++] = l;
    }
    return OPMAP_OK;
}

const char *om_view_advice_kind(const om_advice *a)
{
    return a->fused ? "fused kernel" : a->custom_op ? "custom operator"
                                     : a->optional  ? "optional" : NULL;
}

int om_view_line_shown(const om_vadvice *x, size_t k, size_t shown)
{
    size_t i;
    for (i = 0; i < shown && i < x->a->n_places; i++)
        if (x->a->lines[i] && strcmp(x->a->lines[i], x->lines[k]) == 0)
            return 1;
    return 0;
}

/* "ATC parses Abs at opset 8-18 only": the range a row without an ATC parser registration
 * at the model's opset gives (tools/table/build_table.py writes it as ascend.how: "nothing
 * at opset 1-5: ATC parses Abs at opset 8-18 only"); 0 when it says none. */
static int parses_at(const opmap_op *op, long *lo, long *hi)
{
    const char *p;
    char *end;
    if (strncmp(op->becomes_how, "nothing at opset ", 17) != 0 ||
        !(p = strstr(op->becomes_how, ": ATC parses ")) || !(p = strstr(p, " at opset ")))
        return 0;
    *lo = strtol(p + 10, &end, 10);
    *hi = *end == '-' ? strtol(end + 1, &end, 10) : *lo;
    return *lo > 0 && *hi >= *lo && strncmp(end, " only", 5) == 0;
}

/* The re-export a model's opset calls for: the opsets every operator ATC cannot parse at
 * the model's opset parses at (their intersection; the first one's when they share none). */
static int reexport(om_view *v, om_vmodel *m)
{
    const opmap_result *r = m->r;
    long lo = 0, hi = 0, a, b;
    int64_t opset = 0;
    uint64_t n = 0, of = 0;
    size_t i;
    for (i = 0; m->atc && i < r->n_ops; i++) {
        const opmap_op *op = r->ops[i];
        of += op->status != OPMAP_OP_STRUCTURAL;
        if (op->status == OPMAP_OP_STRUCTURAL || !parses_at(op, &a, &b))
            continue; /* plumbing ATC does not parse is no reason to re-export */
        if (!n++) {
            lo = a, hi = b, opset = op->opset;
        } else if (a <= hi && b >= lo) {
            lo = a > lo ? a : lo;
            hi = b < hi ? b : hi;
        }
    }
    if (!n)
        return OPMAP_OK;
    OOM(m->reexport = om_arena_printf(&v->arena, "re-export at opset %ld-%ld: ATC cannot parse %llu "
                                      "of its %llu operators at opset %lld", lo, hi,
                                      (unsigned long long)n, (unsigned long long)of,
                                      (long long)opset));
    return OPMAP_OK;
}

static int model(om_view *v, const om_report_in *in, size_t i)
{
    om_vmodel *m = &v->models[i];
    const opmap_result *r = in->results[i];
    size_t k;
    int rc;
    m->r = r;
    m->headline = &in->headlines[i];
    m->traits = om_format_of(r->format)->traits;
    m->atc = (m->traits & OPMAP_FORMAT_TRAIT_ATC) != 0;
    m->aten = (m->traits & OPMAP_FORMAT_TRAIT_ATEN) != 0;
    m->sources = (m->traits & OPMAP_FORMAT_TRAIT_SOURCES) != 0;
    if (m->sources) /* code, not a graph: nothing is placed */
        snprintf(m->coverage, sizeof(m->coverage), "-");
    else
        om_format_permille(m->headline->coverage, m->coverage, sizeof(m->coverage));
    if ((rc = next_commands(v, m)) || (rc = operators(v, m)) || (rc = reexport(v, m)))
        return rc;
    if (r->advice.len) {
        OOM(m->advice = om_arena_array(&v->arena, r->advice.len, sizeof(*m->advice)));
        for (k = 0; k < r->advice.len; k++) {
            m->advice[k].a = &OM_VEC_AT(&r->advice, om_advice, k);
            if ((rc = advice_lines(v, &m->advice[k])))
                return rc;
        }
        m->n_advice = r->advice.len;
    }
    v->unpublished_ops += r->unpublished_ops;
    v->unpublished_effort.min += r->unpublished_effort.min;
    v->unpublished_effort.expected += r->unpublished_effort.expected;
    v->unpublished_effort.max += r->unpublished_effort.max;
    return OPMAP_OK;
}

/* The distinct non-empty strings of items[0, n), joined by sep ("" for none). */
static const char *join_distinct(om_view *v, const char **items, size_t n, const char *sep)
{
    size_t i, k, kept = 0, len = 1;
    char *out;
    for (i = 0; i < n; i++) {
        for (k = 0; k < kept && strcmp(items[k], items[i]) != 0; k++)
            continue;
        if (items[i][0] && k == kept) {
            items[kept++] = items[i];
            len += strlen(items[i]) + strlen(sep);
        }
    }
    if (!(out = om_arena_alloc(&v->arena, len)))
        return NULL;
    for (i = 0, len = 0; i < kept; i++) {
        size_t a = i ? strlen(sep) : 0, b = strlen(items[i]);
        memcpy(out + len, sep, a);
        memcpy(out + len + a, items[i], b);
        len += a + b;
    }
    out[len] = '\0';
    return out;
}

/* Each portfolio operator: what it becomes in the models that have it, as their tables say. */
static int portfolio(om_view *v, const om_report_in *in)
{
    const om_portfolio *p = in->portfolio;
    const char **becomes, **engines;
    size_t i, k, j, n, all = 0;
    if (!p->n)
        return OPMAP_OK;
    for (k = 0; k < in->count; k++)
        all += in->results[k]->n_ops;
    OOM(v->port_ops = om_arena_array(&v->arena, p->n, sizeof(*v->port_ops)));
    OOM(becomes = om_arena_array(&v->arena, all, sizeof(*becomes)));
    OOM(engines = om_arena_array(&v->arena, all, sizeof(*engines)));
    v->n_port_ops = p->n;
    for (i = 0; i < p->n; i++) {
        om_vport_op *x = &v->port_ops[i];
        x->op = &p->ops[i];
        for (k = n = 0; k < in->count; k++) /* once a model, or once an opset it imports */
            for (j = 0; j < in->results[k]->n_ops; j++) {
                const opmap_op *op = in->results[k]->ops[j];
                if (strcmp(op->name, x->op->name) == 0 && strcmp(op->domain, x->op->domain) == 0) {
                    becomes[n] = op->becomes;
                    engines[n++] = op->engine;
                }
            }
        OOM(x->on_ascend = join_distinct(v, becomes, n, "; "));
        OOM(x->engine = join_distinct(v, engines, n, ", "));
    }
    return OPMAP_OK;
}

/* A model's place in the order of what it has to change: worst verdict, most effort,
 * then the report's order, so that a merge picks the models one scan picks. */
typedef struct rank_key {
    int readiness;
    uint64_t effort;
    size_t index;
} rank_key;

static int by_most_to_change(const void *a, const void *b)
{
    const rank_key *x = a, *y = b;
    if (x->readiness != y->readiness)
        return x->readiness > y->readiness ? -1 : 1;
    if (x->effort != y->effort)
        return x->effort > y->effort ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Marks the models a page details: all of them, or the OM_VIEW_DETAILED_MAX with the most
 * to change. */
static int choose_detailed(om_view *v, const om_report_in *in)
{
    rank_key *keys;
    size_t i;
    if (in->count <= OM_VIEW_DETAILED_MAX) {
        for (i = 0; i < in->count; i++)
            v->models[i].detailed = 1;
        v->n_detailed = in->count;
        return OPMAP_OK;
    }
    if (!(keys = om_arena_array(&v->arena, in->count, sizeof(*keys))))
        return OPMAP_ENOMEM;
    for (i = 0; i < in->count; i++) {
        keys[i].readiness = v->models[i].headline->readiness;
        keys[i].effort = in->results[i]->summary.effort_total.expected;
        keys[i].index = i;
    }
    qsort(keys, in->count, sizeof(*keys), by_most_to_change);
    for (i = 0; i < OM_VIEW_DETAILED_MAX; i++)
        v->models[keys[i].index].detailed = 1;
    v->n_detailed = OM_VIEW_DETAILED_MAX;
    return OPMAP_OK;
}

int om_view_build(om_view *v, const om_report_in *in, om_mem *mem)
{
    size_t i;
    int rc = OPMAP_OK;
    memset(v, 0, sizeof(*v));
    om_arena_init(&v->arena, mem, 0);
    v->reexport = "";
    v->sources_only = in->count > 0;
    if (in->count && !(v->models = om_arena_array(&v->arena, in->count, sizeof(*v->models))))
        rc = OPMAP_ENOMEM;
    v->n_models = rc ? 0 : in->count;
    for (i = 0; !rc && i < in->count; i++) {
        rc = model(v, in, i);
        v->sources_only &= v->models[i].sources;
    }
    if (!rc && in->count == 1 && v->models[0].reexport)
        v->reexport = v->models[0].reexport;
    if (!rc)
        rc = choose_detailed(v, in);
    if (!rc)
        rc = portfolio(v, in);
    if (rc)
        om_view_free(v);
    return rc;
}

void om_view_free(om_view *v)
{
    om_arena_free(&v->arena);
    memset(v, 0, sizeof(*v));
}
