/*
 * policy/headline.c - the headline (docs/reports.md, "The headline"): operators and
 * instances supported as-is, the share of the placed instances on the NPU, the largest
 * NPU segment's share, and the verdict the rule gives (ready / needs work / blocked).
 *
 * Coverage uses the NPU segments: an instance is placed when it runs on the NPU
 * (npu_nodes) or splits the graph (a breaker); structural nodes and shape plumbing are
 * neutral and not counted. Waivers are not applied: a waived finding still needs the work.
 */
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/info.h"
#include "scan/result_estimate.h"
#include "headline.h"
#include "kinds.h"

static const char *const readiness_names[] = { "ready", "needs-work", "blocked" };

const char *opmap_readiness_name(int readiness)
{
    return readiness >= OPMAP_READY && readiness <= OPMAP_BLOCKED ? readiness_names[readiness]
                                                                  : NULL;
}

static unsigned permille(uint64_t part, uint64_t whole)
{
    if (!whole)
        return 1000;
    if (part > whole) /* only a report edited by hand says so: read back, never trusted */
        part = whole;
    while (whole > UINT64_MAX / 1000) { /* the remainder times 1000 must fit */
        part >>= 1;
        whole >>= 1;
    }
    return (unsigned)(part * 1000 / whole);
}

/* a + b, held at UINT64_MAX: counts summed over models read back from reports */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void om_headline_acc_init(om_headline_acc *a)
{
    memset(a, 0, sizeof(*a));
    a->share = 1001;
}

void om_headline_counts_of(const opmap_result *r, om_headline_counts *c)
{
    opmap_segments seg = { .size = sizeof(seg) };
    opmap_result_segments(r, &seg);
    c->found = om_result_kinds(r);
    c->instances = r->summary.instances_total - r->summary.instances[OPMAP_OP_STRUCTURAL];
    c->instances_full = r->summary.instances[OPMAP_OP_FULL];
    c->placed = sat_add(seg.npu_nodes, seg.breakers);
    c->on_npu = seg.npu_nodes;
    c->largest = seg.largest;
}

void om_headline_acc_add_counts(om_headline_acc *a, const om_headline_counts *c)
{
    opmap_headline *out = &a->h;
    unsigned s;
    out->found |= c->found;
    out->instances += c->instances;
    out->instances_full += c->instances_full;
    out->placed = sat_add(out->placed, c->placed);
    out->on_npu = sat_add(out->on_npu, c->on_npu);
    /* nothing on the NPU: no segment at all, not one that holds everything */
    s = c->on_npu ? permille(c->largest, c->on_npu) : 0;
    if (c->placed && s < a->share) {  /* the most fragmented */
        a->share = s;
        out->largest = c->largest;
    }
}

void om_headline_counts_of_row(const om_reg_row *row, om_headline_counts *c)
{
    uint64_t total = 0;
    int s;
    for (s = 0; s < OPMAP_OP_STATUS_COUNT; s++)
        total = sat_add(total, row->instances[s]);
    c->found = row->found;
    c->instances = total - row->instances[OPMAP_OP_STRUCTURAL];
    c->instances_full = row->instances[OPMAP_OP_FULL];
    c->placed = row->placed;
    c->on_npu = row->on_npu;
    c->largest = row->largest;
}

void om_headline_row_distinct(const om_reg_row *row, opmap_summary *d)
{
    int s;
    memset(d, 0, sizeof(*d));
    for (s = 0; s < OPMAP_OP_STATUS_COUNT; s++) {
        d->operators[s] = row->operators[s];
        d->operators_total = sat_add(d->operators_total, row->operators[s]);
    }
}

void om_headline_of_row(const om_reg_row *row, unsigned blocked_on, unsigned needs_work_on,
                        opmap_headline *out)
{
    om_headline_acc a;
    om_headline_counts c;
    opmap_summary d;
    om_headline_counts_of_row(row, &c);
    om_headline_row_distinct(row, &d);
    om_headline_acc_init(&a);
    om_headline_acc_add_counts(&a, &c);
    om_headline_acc_end(&a, 1, &d, NULL, 0, blocked_on, needs_work_on, out);
}

void om_headline_acc_add(om_headline_acc *a, const opmap_result *r)
{
    om_headline_counts c;
    om_headline_counts_of(r, &c);
    om_headline_acc_add_counts(a, &c);
}

void om_headline_acc_end(const om_headline_acc *a, size_t count, const opmap_summary *distinct,
                         const opmap_file_problem *problems, size_t n_problems,
                         unsigned blocked_on, unsigned needs_work_on, opmap_headline *out)
{
    size_t i;
    *out = a->h;
    out->size = sizeof(*out);
    blocked_on = blocked_on ? blocked_on : OPMAP_HEADLINE_BLOCKED_ON;
    needs_work_on = needs_work_on ? needs_work_on : OPMAP_HEADLINE_NEEDS_WORK_ON;
    out->models = count;
    out->operators = distinct->operators_total - distinct->operators[OPMAP_OP_STRUCTURAL];
    out->operators_full = distinct->operators[OPMAP_OP_FULL];
    for (i = 0; i < n_problems; i++)
        out->found |= problems[i].skipped ? OPMAP_FAIL_SKIPPED : OPMAP_FAIL_UNREADABLE;
    out->files_not_read = n_problems;
    out->coverage = permille(out->on_npu, out->placed);
    out->largest_share = a->share > 1000 ? 1000 : a->share;
    out->blocking = out->found & blocked_on;
    out->needing_work = out->found & needs_work_on;
    /* files found and none of them read: nothing was judged, so nothing is ready; what
     * was found instead of a model is why */
    if (!count && n_problems)
        out->blocking |= out->found;
    out->readiness = out->blocking ? OPMAP_BLOCKED
                   : out->needing_work || out->coverage < 1000 ? OPMAP_NEEDS_WORK
                   : OPMAP_READY;
}

void om_headline_of(const opmap_result *const *results, size_t count,
                    const opmap_summary *distinct, const opmap_file_problem *problems,
                    size_t n_problems, unsigned blocked_on, unsigned needs_work_on,
                    opmap_headline *out)
{
    om_headline_acc a;
    size_t i;
    om_headline_acc_init(&a);
    for (i = 0; i < count; i++)
        om_headline_acc_add(&a, results[i]);
    om_headline_acc_end(&a, count, distinct, problems, n_problems, blocked_on, needs_work_on,
                        out);
}

int opmap_headline_compute(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                           const opmap_report_options *opts, opmap_headline *out,
                           opmap_error *err)
{
    opmap_headline h;
    const opmap_file_problem *problems = NULL;
    size_t i, n_problems = 0;
    unsigned blocked_on = 0, needs_work_on = 0;
    om_err_clear(err);
    if (!ctx || !out || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_headline_compute: NULL argument");
    if (out->size < OM_INFO_V1(opmap_headline, files_not_read))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_headline_compute: out->size too small");
    for (i = 0; i < count; i++)
        if (!results[i])
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_headline_compute: result %zu is NULL",
                           i);
    if (opts && (opts->version < 1 || opts->version > OPMAP_REPORT_OPTIONS_VERSION))
        return om_fail(err, OPMAP_EINVAL, NULL, "report options version %u, expected %u",
                       opts->version, OPMAP_REPORT_OPTIONS_VERSION);
    if (opts && opts->version >= 2) {
        problems = opts->problems;
        n_problems = opts->problem_count;
        if (n_problems && !problems)
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_headline_compute: NULL problems");
    }
    if (opts && opts->version >= 3) {
        blocked_on = opts->blocked_on;
        needs_work_on = opts->needs_work_on;
    }
    if (count == 1) {
        om_headline_of(results, 1, &results[0]->summary, problems, n_problems, blocked_on,
                       needs_work_on, &h);
    } else {
        om_mem mem;
        om_portfolio p;
        om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
        if (om_result_portfolio(results, count, &mem, &p) != OPMAP_OK)
            return om_fail_mem(err, &mem, NULL);
        om_headline_of(results, count, &p.summary, problems, n_problems, blocked_on,
                       needs_work_on, &h);
        om_portfolio_free(&p, &mem);
    }
    return OM_INFO_FILL(out, &h, opmap_headline, files_not_read);
}
