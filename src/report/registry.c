/*
 * report/registry.c - the registry report built one model at a time (registry.h): from
 * results (a scan, a merge of JSON reports) or from registry reports (a merge of them,
 * merge/registry_read.c). Both add the same numbers: a row per model (spooled at once),
 * its distinct operators into the portfolio (and into the one counted without device
 * results, for the budget), what they become on Ascend, the headline's sums and the
 * gate's counts; so a merge of registry reports writes what one scan over their files
 * would.
 */
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "merge/registry_read.h"
#include "scan/result_estimate.h"
#include "scan/result_internal.h"
#include "registry_internal.h"
#include "report_internal.h"

static int spool_write(void *payload, const void *data, size_t size)
{
    return om_spool_write(payload, data, size) == OPMAP_OK ? 0 : -1;
}

int om_registry_new(om_registry **out, opmap_ctx *ctx, const om_registry_opts *o,
                    opmap_error *err)
{
    opmap_policy init = OPMAP_POLICY_INIT;
    om_registry *g;
    int rc;
    *out = NULL;
    if (!(g = om_ctx_calloc(ctx, sizeof(*g))))
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    g->ctx = ctx;
    g->o = *o;
    g->policy = o->policy ? *o->policy : init;
    g->policy.problems = NULL; /* given to om_registry_finish */
    g->policy.problem_count = 0;
    g->rows.fd = -1;
    om_mem_init(&g->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&g->arena, &g->mem, 4096); /* names and phrases: small, as the budget may be */
    om_portfolio_begin(&g->port, &g->mem, 1);
    om_portfolio_begin(&g->port_unverified, &g->mem, 1);
    om_headline_acc_init(&g->head);
    g->need = g->need_by = g->need_model = "";
    g->first_file = "";
    if ((rc = om_spool_open(&g->rows, &g->mem, o->spool_dir, err)) ||
        (rc = om_gate_begin(&g->gate, ctx, &g->policy, err))) {
        om_registry_free(g);
        return rc;
    }
    om_gate_spool(g->gate);
    om_out_init(&g->rout, spool_write, &g->rows);
    *out = g;
    return OPMAP_OK;
}

/* The slot of (domain, name) in the index of phrases. */
static size_t *becomes_slot(const om_registry *g, const char *domain, const char *name)
{
    size_t k = om_hash_key(domain, name) & (g->bindex_cap - 1);
    while (g->bindex[k]) {
        const om_reg_becomes *b = &g->becomes[g->bindex[k] - 1];
        if (strcmp(b->domain, domain) == 0 && strcmp(b->name, name) == 0)
            break;
        k = (k + 1) & (g->bindex_cap - 1);
    }
    return &g->bindex[k];
}

const om_reg_becomes *om_registry_becomes(const om_registry *g, const char *domain,
                                          const char *name)
{
    size_t *slot;
    if (!g->bindex_cap)
        return NULL;
    slot = becomes_slot(g, domain, name);
    return *slot ? &g->becomes[*slot - 1] : NULL;
}

/* Room for one more operator: entries grown, the index at a load of at most one half. */
static int becomes_grow(om_registry *g)
{
    size_t i;
    if (g->n_becomes == g->becomes_cap) {
        size_t cap = g->becomes_cap ? g->becomes_cap * 2 : 16;
        om_reg_becomes *nb = om_realloc(&g->mem, g->becomes, g->becomes_cap * sizeof(*nb),
                                        cap * sizeof(*nb));
        if (!nb)
            return OPMAP_ENOMEM;
        g->becomes = nb;
        g->becomes_cap = cap;
    }
    if ((g->n_becomes + 1) * 2 > g->bindex_cap) {
        size_t cap = g->bindex_cap ? g->bindex_cap * 2 : 32, old = g->bindex_cap;
        size_t *oi = g->bindex, *ni = om_calloc(&g->mem, cap, sizeof(*ni));
        if (!ni)
            return OPMAP_ENOMEM;
        g->bindex = ni;
        g->bindex_cap = cap;
        for (i = 0; i < g->n_becomes; i++)
            *becomes_slot(g, g->becomes[i].domain, g->becomes[i].name) = i + 1;
        if (oi)
            om_dealloc(&g->mem, oi, old * sizeof(*oi));
    }
    return OPMAP_OK;
}

/* The phrases of one operator of a model (or of a report's union) added, past those met. */
static int add_becomes(om_registry *g, const char *domain, const char *name,
                       const char *const *phrases, size_t n)
{
    om_reg_becomes *b;
    size_t *slot, i, k;
    if (becomes_grow(g) != OPMAP_OK)
        return OPMAP_ENOMEM;
    slot = becomes_slot(g, domain, name);
    if (!*slot) {
        b = &g->becomes[g->n_becomes];
        memset(b, 0, sizeof(*b));
        if (!(b->domain = om_arena_strdup(&g->arena, domain)) ||
            !(b->name = om_arena_strdup(&g->arena, name)))
            return OPMAP_ENOMEM;
        *slot = ++g->n_becomes;
    }
    b = &g->becomes[*slot - 1];
    for (i = 0; i < n && b->n < OM_REG_BECOMES_MAX; i++) {
        if (!phrases[i] || !phrases[i][0])
            continue;
        for (k = 0; k < b->n && strcmp(b->phrases[k], phrases[i]) != 0; k++)
            continue;
        if (k == b->n && !(b->phrases[b->n++] = om_arena_strdup(&g->arena, phrases[i])))
            return OPMAP_ENOMEM;
    }
    return OPMAP_OK;
}

/* A newer torch_npu minimum than any so far (the first model of it, as the report says). */
static int keep_need(om_registry *g, const char *need, const char *by, const char *model)
{
    om_npu_version v;
    if (!need || !need[0] || om_npu_version_parse(need, &v, NULL, 0))
        return OPMAP_OK;
    if (g->need[0] && om_npu_version_cmp(&v, &g->need_v) <= 0)
        return OPMAP_OK;
    g->need_v = v;
    if (!(g->need = om_arena_strdup(&g->arena, need)) ||
        !(g->need_by = om_arena_strdup(&g->arena, by ? by : "")) ||
        !(g->need_model = om_arena_strdup(&g->arena, model ? model : "")))
        return OPMAP_ENOMEM;
    return OPMAP_OK;
}

void om_registry_row_headline(const om_registry *g, const om_reg_row *row, opmap_headline *h)
{
    om_headline_of_row(row, g->o.blocked_on, g->o.needs_work_on, h);
}

/* The root, cut to what the files have in common up to a '/' (the first file: its
 * directory). It only shrinks, so it is the same over shards as over all their files. */
static int keep_root(om_registry *g, const char *file)
{
    size_t n = 0, len = strlen(file);
    if (!g->count) {
        if (!(g->root = om_alloc(&g->mem, len + 1)))
            return OPMAP_ENOMEM;
        g->root_cap = len + 1;
        memcpy(g->root, file, len + 1);
        g->root_len = len;
    } else {
        while (n < g->root_len && file[n] == g->root[n])
            n++;
        g->root_len = n;
    }
    while (g->root_len && g->root[g->root_len - 1] != '/')
        g->root_len--;
    g->root[g->root_len] = '\0';
    return OPMAP_OK;
}

/* A row, whichever way it came: spooled, summed into the headline, the first kept. */
static int add_row(om_registry *g, const om_reg_row *row)
{
    om_headline_counts c;
    int rc;
    if ((rc = om_registry_row_out(g, row)) || (rc = keep_root(g, row->file)))
        return rc;
    om_headline_counts_of_row(row, &c);
    om_headline_acc_add_counts(&g->head, &c);
    g->findings += row->findings;
    g->failing += row->failing;
    if (!g->count) {
        g->first_row = *row;
        if (!(g->first_file = om_arena_strdup(&g->arena, row->file)))
            return OPMAP_ENOMEM;
        g->first_row.file = g->first_file;
    }
    g->count++;
    return OPMAP_OK;
}

static int count_finding(void *payload, const opmap_finding *f)
{
    om_reg_row *row = payload;
    row->findings++;
    row->failing += f->fails != 0;
    return 0;
}

/* The model's distinct operators into both unions and the phrases. */
static int add_ops(om_registry *g, const opmap_result *r)
{
    size_t j;
    for (j = 0; j < r->n_ops; j++) {
        om_estimate_op e = om_result_estimate_op(r->ops[j]);
        const char *becomes = r->ops[j]->becomes;
        if (add_becomes(g, e.domain, e.name, &becomes, 1) != OPMAP_OK)
            return OPMAP_ENOMEM;
    }
    {
        om_estimate_op *ops = NULL;
        om_portfolio_model m;
        int rc;
        if (r->n_ops && !(ops = om_calloc(&g->mem, r->n_ops, sizeof(*ops))))
            return OPMAP_ENOMEM;
        for (j = 0; j < r->n_ops; j++)
            ops[j] = om_result_estimate_op(r->ops[j]);
        m.ops = ops;
        m.n = r->n_ops;
        m.own = r->summary.effort_total;
        rc = om_portfolio_add(&g->port, &m);
        for (j = 0; j < r->n_ops; j++)
            ops[j].effort = r->ops[j]->effort_unverified;
        if (rc == OPMAP_OK)
            rc = om_portfolio_add(&g->port_unverified, &m);
        if (ops)
            om_dealloc(&g->mem, ops, r->n_ops * sizeof(*ops));
        return rc;
    }
}

int om_registry_take(om_registry *g, const opmap_result *r, opmap_error *err)
{
    om_reg_row row;
    opmap_headline h;
    om_headline_counts c;
    int s, rc;
    if (g->read || g->finished || g->failed)
        return om_fail(err, OPMAP_EINVAL, NULL, "the registry report %s", g->read
                       ? "reads registry reports: it takes no result" : "is finished or failed");
    memset(&row, 0, sizeof(row));
    row.file = r->model_name;
    row.effort = r->summary.effort_total;
    for (s = 0; s < OPMAP_OP_STATUS_COUNT; s++) {
        row.operators[s] = r->summary.operators[s];
        row.instances[s] = r->summary.instances[s];
    }
    om_headline_counts_of(r, &c);
    row.found = c.found;
    row.placed = c.placed;
    row.on_npu = c.on_npu;
    row.largest = c.largest;
    om_registry_row_headline(g, &row, &h);
    row.verdict = h.readiness;
    row.coverage = h.coverage;
    if ((rc = om_gate_model(g->gate, r, err)))
        goto fail;
    om_gate_take(g->gate, count_finding, &row);
    if ((rc = add_row(g, &row)) || (rc = add_ops(g, r)) ||
        (rc = keep_need(g, r->tnpu_needed, r->tnpu_needed_by, r->model_name))) {
        rc = rc == OPMAP_ENOMEM ? om_fail_mem(err, &g->mem, NULL) : om_spool_fail(&g->rows, err);
        goto fail;
    }
    if (!g->first)
        g->first = r;
    g->took = 1;
    return OPMAP_OK;
fail:
    g->failed = 1;
    return rc;
}

/* --- a registry report read back (merge/registry_read.c hands its parts here) --- */

static int on_header(void *payload, opmap_result *first, opmap_error *err)
{
    om_registry *g = payload;
    (void)err;
    if (!first)
        return OPMAP_OK;
    if (g->own_first || g->first) {
        opmap_result_free(first); /* the set held it against the first report's already */
        return OPMAP_OK;
    }
    g->own_first = first;
    g->first = first;
    return OPMAP_OK;
}

static int on_row(void *payload, const om_reg_row *in, opmap_error *err)
{
    om_registry *g = payload;
    om_reg_row row = *in;
    opmap_headline h;
    int rc;
    om_registry_row_headline(g, &row, &h); /* this registry's rule, not the report's */
    row.verdict = h.readiness;
    row.coverage = h.coverage;
    if ((rc = add_row(g, &row)) == OPMAP_OK) {
        om_gate_add_counted(g->gate, row.findings, row.failing);
        om_effort_add(&g->port.separately, row.effort); /* as om_portfolio_add sums them */
        om_effort_add(&g->port_unverified.separately, row.effort);
        return OPMAP_OK;
    }
    return rc == OPMAP_ENOMEM ? om_fail_mem(err, &g->mem, NULL) : om_spool_fail(&g->rows, err);
}

static int on_op(void *payload, const om_reg_op *op, opmap_error *err)
{
    om_registry *g = payload;
    om_estimate_op unv = op->op;
    unv.effort.min = unv.effort.expected = unv.effort.max = op->budget;
    if (om_portfolio_add_union(&g->port, &op->op, op->models) != OPMAP_OK ||
        om_portfolio_add_union(&g->port_unverified, &unv, op->models) != OPMAP_OK ||
        add_becomes(g, op->op.domain, op->op.name, op->becomes, op->n_becomes) != OPMAP_OK)
        return om_fail_mem(err, &g->mem, NULL);
    return OPMAP_OK;
}

static int on_end(void *payload, const om_reg_end *e, const char *source, opmap_error *err)
{
    om_registry *g = payload;
    char want[400], have[400];
    unsigned fail_on = OM_REG_FAIL_ON(g);
    uint64_t waivers = om_waivers_digest(g->policy.waivers);
    if (e->fail_on != fail_on || e->waivers != waivers) {
        om_kind_list(e->fail_on, have, sizeof(have));
        om_kind_list(fail_on, want, sizeof(want));
        return om_fail(err, OPMAP_EFORMAT, source, "offset %llu: gate: its models were judged "
                       "failing on '%s'%s, where this merge fails on '%s'%s: a registry report "
                       "keeps each model's count of findings, not the findings, so give the "
                       "merge the --fail-on and --waivers its scans had (or merge JSON "
                       "reports)", (unsigned long long)e->gate_offset, have,
                       e->waivers ? " with waivers" : "", want,
                       waivers ? (e->waivers == waivers ? " with the same waivers"
                                                        : " with other waivers") : "");
    }
    if (keep_need(g, e->need, e->need_by, e->need_model) != OPMAP_OK)
        return om_fail_mem(err, &g->mem, NULL);
    return OPMAP_OK;
}

int om_registry_read(om_registry *g, opmap_report_set *set, const char *path, opmap_error *err)
{
    om_reg_sink sink;
    int rc;
    if (g->took || g->finished || g->failed)
        return om_fail(err, OPMAP_EINVAL, NULL, "the registry report %s", g->took
                       ? "takes results: it reads no registry report (merge JSON reports or "
                         "registry reports, not both)" : "is finished or failed");
    memset(&sink, 0, sizeof(sink));
    sink.payload = g;
    sink.header = on_header;
    sink.row = on_row;
    sink.op = on_op;
    sink.end = on_end;
    g->read = 1;
    if ((rc = om_merge_read_registry(set, path, &sink, err)))
        g->failed = 1;
    return rc;
}

int om_registry_finish(om_registry *g, const opmap_file_problem *problems, size_t count,
                       opmap_error *err)
{
    const opmap_summary *distinct;
    opmap_summary one;
    int rc;
    if (g->finished || g->failed)
        return om_fail(err, OPMAP_EINVAL, NULL, "the registry report is %s",
                       g->finished ? "finished" : "failed");
    g->failed = 1; /* until it is done */
    if (om_out_finish(&g->rout) != OPMAP_OK)
        return om_spool_fail(&g->rows, err);
    om_portfolio_end(&g->port);
    om_portfolio_end(&g->port_unverified);
    rc = om_gate_end(g->gate, g->count, g->first_file,
                     g->port_unverified.summary.effort_total.expected, problems, count,
                     &g->verdict, err);
    g->gate = NULL;
    if (rc)
        return rc;
    om_headline_row_distinct(&g->first_row, &one);
    distinct = g->count == 1 ? &one : &g->port.summary;
    om_headline_acc_end(&g->head, g->count, distinct, problems, count, g->o.blocked_on,
                        g->o.needs_work_on, &g->overall);
    g->problems = problems;
    g->n_problems = count;
    g->finished = 1;
    g->failed = 0;
    return OPMAP_OK;
}

size_t om_registry_count(const om_registry *g)
{
    return g ? g->count : 0;
}

const opmap_verdict *om_registry_verdict(const om_registry *g)
{
    return g && g->finished ? g->verdict : NULL;
}

size_t om_registry_findings(const om_registry *g, size_t *failing)
{
    size_t n = 0, k = 0, i;
    if (g && g->finished) {
        n = g->findings + opmap_verdict_finding_count(g->verdict);
        k = g->failing;
        for (i = 0; i < opmap_verdict_finding_count(g->verdict); i++) {
            opmap_finding f = { .size = sizeof(f) };
            opmap_verdict_finding(g->verdict, i, &f);
            k += f.fails != 0;
        }
    }
    if (failing)
        *failing = k;
    return n;
}

void om_registry_free(om_registry *g)
{
    if (!g)
        return;
    om_gate_free(g->gate);
    opmap_verdict_free(g->verdict);
    opmap_result_free(g->own_first);
    om_portfolio_free(&g->port, &g->mem);
    om_portfolio_free(&g->port_unverified, &g->mem);
    if (g->becomes)
        om_dealloc(&g->mem, g->becomes, g->becomes_cap * sizeof(*g->becomes));
    if (g->bindex)
        om_dealloc(&g->mem, g->bindex, g->bindex_cap * sizeof(*g->bindex));
    if (g->root)
        om_dealloc(&g->mem, g->root, g->root_cap);
    om_spool_close(&g->rows);
    om_arena_free(&g->arena);
    om_ctx_release(g->ctx, g);
}
