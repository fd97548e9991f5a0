/*
 * report/report_stream.c - a report written one model at a time (opmap_report_stream_*,
 * docs/scale.md "Memory"): each result handed to the stream is written into the spool as
 * its element of "models" and freed, and only what the top and the end of the report need
 * is kept: the distinct operators (the portfolio), the overall headline's sums, the gate's
 * findings, the newest torch_npu minimum and the first result (its table, chips and mode).
 * The report then reads as opmap_report_write() over every result would write it, byte for
 * byte: the same writer functions (report_json.h) write each part.
 *
 * The spool is an unnamed temporary file in the directory the caller names (created and
 * unlinked at once, so nothing is left behind whatever happens), or memory from the
 * context's budget when it names none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/context.h"
#include "core/err.h"
#include "policy/gate.h"
#include "policy/headline.h"
#include "scan/result_estimate.h"
#include "scan/result_internal.h"
#include "table/npu_version.h"
#include "report_internal.h"
#include "registry.h"
#include "report_json.h"
#include "report_stream.h"
#include "view.h"

struct opmap_report_stream {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;               /* the first model's re-export, the torch_npu minimum */
    opmap_report_format format;
    opmap_report_options ropts;
    opmap_policy policy;
    int has_policy;
    om_spool spool;
    om_out sout;                  /* into the spool */
    om_spool fspool;              /* the models' findings, as elements of gate.findings */
    om_out fout;
    size_t n_findings, failing_spooled;
    opmap_result *first;          /* kept: the table, chips, mode; one model's own totals */
    const char *first_reexport;
    size_t count;
    om_portfolio port, port_unverified;
    om_headline_acc head;
    om_gate *gate;
    om_npu_version need_v;
    const char *need, *need_by, *need_model;
    /* after opmap_report_stream_finish */
    int finished;
    opmap_verdict *verdict;
    opmap_headline overall;
    const opmap_file_problem *problems;
    size_t n_problems;
    int failed;                   /* a take or finish failed: the report would be partial */
    om_registry *reg;             /* a registry report: it keeps all of the above itself */
};

static int spool_write(void *payload, const void *data, size_t size)
{
    return om_spool_write(payload, data, size) == OPMAP_OK ? 0 : -1;
}

static int check_options(const opmap_report_options *o, opmap_error *err)
{
    if (o->version < 1 || o->version > OPMAP_REPORT_OPTIONS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "report options version %u, expected %u",
                       o->version, OPMAP_REPORT_OPTIONS_VERSION);
    if (!(o->day_rate >= 0.0 && o->day_rate < 1e12))
        return om_fail(err, OPMAP_EINVAL, NULL, "day rate out of range");
    if (o->policy && o->policy->version != 1 && o->policy->version != OPMAP_POLICY_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_new: policy version %u",
                       o->policy->version);
    return OPMAP_OK;
}

int opmap_report_stream_new(opmap_report_stream **out, opmap_ctx *ctx,
                            opmap_report_format format, const opmap_report_options *report,
                            const opmap_report_stream_options *opts, opmap_error *err)
{
    opmap_report_options init = OPMAP_REPORT_OPTIONS_INIT;
    opmap_report_stream *s;
    int rc;
    om_err_clear(err);
    if (!out || !ctx)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_new: NULL argument");
    *out = NULL;
    if (opts && opts->version != OPMAP_REPORT_STREAM_OPTIONS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "report stream options version %u, expected %u",
                       opts->version, OPMAP_REPORT_STREAM_OPTIONS_VERSION);
    if (format != OPMAP_REPORT_JSON && format != OPMAP_REPORT_REGISTRY)
        return om_fail(err, OPMAP_EUNSUPPORTED, NULL, "a %s report is not written as a stream "
                       "(json and registry are)", opmap_report_format_name(format)
                       ? opmap_report_format_name(format) : "unknown");
    if (report && (rc = check_options(report, err)))
        return rc;
    if (!(s = om_ctx_calloc(ctx, sizeof(*s))))
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    s->ctx = ctx;
    s->format = format;
    s->spool.fd = -1;
    s->fspool.fd = -1;
    om_mem_init(&s->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&s->arena, &s->mem, 0);
    s->ropts = init;
    if (report) /* an older caller's struct ends before the newer fields: they stay zero */
        memcpy(&s->ropts, report, report->version == 1 ? offsetof(opmap_report_options, problems)
                                  : report->version == 2 ? offsetof(opmap_report_options, blocked_on)
                                                         : sizeof(s->ropts));
    s->ropts.version = OPMAP_REPORT_OPTIONS_VERSION;
    s->ropts.problems = NULL;
    s->ropts.problem_count = 0;
    if (s->ropts.policy) {
        opmap_policy pinit = OPMAP_POLICY_INIT;
        s->policy = pinit;
        memcpy(&s->policy, s->ropts.policy, s->ropts.policy->version == 1
                                                ? offsetof(opmap_policy, problems)
                                                : sizeof(s->policy));
        s->policy.version = OPMAP_POLICY_VERSION;
    } else {
        opmap_policy pinit = OPMAP_POLICY_INIT;
        s->policy = pinit;
    }
    s->policy.problems = NULL;
    s->policy.problem_count = 0;
    s->has_policy = 1;
    if (format == OPMAP_REPORT_REGISTRY) {
        om_registry_opts ro;
        memset(&ro, 0, sizeof(ro));
        ro.flags = s->ropts.flags;
        ro.day_rate = s->ropts.day_rate;
        ro.currency = s->ropts.currency;
        ro.blocked_on = s->ropts.blocked_on;
        ro.needs_work_on = s->ropts.needs_work_on;
        ro.policy = &s->policy;
        ro.spool_dir = opts ? opts->spool_dir : NULL;
        if ((rc = om_registry_new(&s->reg, ctx, &ro, err))) {
            opmap_report_stream_free(s);
            return rc;
        }
        *out = s;
        return OPMAP_OK;
    }
    om_portfolio_begin(&s->port, &s->mem, 1);
    om_portfolio_begin(&s->port_unverified, &s->mem, 1);
    om_headline_acc_init(&s->head);
    s->need = s->need_by = s->need_model = "";
    if ((rc = om_spool_open(&s->spool, &s->mem, opts ? opts->spool_dir : NULL, err)) ||
        (rc = om_spool_open(&s->fspool, &s->mem, opts ? opts->spool_dir : NULL, err)) ||
        (rc = om_gate_begin(&s->gate, ctx, &s->policy, err))) {
        opmap_report_stream_free(s);
        return rc;
    }
    om_gate_spool(s->gate);
    om_out_init(&s->sout, spool_write, &s->spool);
    om_out_init(&s->fout, spool_write, &s->fspool);
    *out = s;
    return OPMAP_OK;
}

/* A finding of a model, into the findings' spool as the report's gate lists it. */
static int spool_finding(void *payload, const opmap_finding *f)
{
    opmap_report_stream *s = payload;
    jsonw w;
    jw_init(&w, &s->fout, (s->ropts.flags & OPMAP_REPORT_COMPACT) != 0);
    w.depth = 3; /* inside the report's object, "gate" and its "findings" */
    w.first[3] = s->n_findings == 0;
    om_json_finding(&w, f);
    s->n_findings++;
    return s->fout.failed ? -1 : 0;
}

/* The newest minimum torch_npu line so far (the first model of it, as the report says). */
static int keep_need(opmap_report_stream *s, const opmap_result *r)
{
    om_npu_version v;
    if (!r->tnpu_needed || !r->tnpu_needed[0] || om_npu_version_parse(r->tnpu_needed, &v, NULL, 0))
        return OPMAP_OK;
    if (s->need[0] && om_npu_version_cmp(&v, &s->need_v) <= 0)
        return OPMAP_OK;
    s->need_v = v;
    if (!(s->need = om_arena_strdup(&s->arena, r->tnpu_needed)) ||
        !(s->need_by = om_arena_strdup(&s->arena, r->tnpu_needed_by ? r->tnpu_needed_by : "")) ||
        !(s->need_model = om_arena_strdup(&s->arena, r->model_name)))
        return OPMAP_ENOMEM;
    return OPMAP_OK;
}

/* The model's distinct operators into the portfolio (and, for a budget, into the one
 * counted without device results). */
static int add_ops(opmap_report_stream *s, const opmap_result *r)
{
    om_estimate_op *ops = NULL;
    om_portfolio_model m;
    size_t j;
    int rc = OPMAP_OK;
    if (r->n_ops && !(ops = om_calloc(&s->mem, r->n_ops, sizeof(*ops))))
        return OPMAP_ENOMEM;
    for (j = 0; j < r->n_ops; j++)
        ops[j] = om_result_estimate_op(r->ops[j]);
    m.ops = ops;
    m.n = r->n_ops;
    m.own = r->summary.effort_total;
    rc = om_portfolio_add(&s->port, &m);
    if (rc == OPMAP_OK && om_gate_wants_effort(s->gate)) {
        for (j = 0; j < r->n_ops; j++)
            ops[j].effort = r->ops[j]->effort_unverified;
        rc = om_portfolio_add(&s->port_unverified, &m);
    }
    if (ops)
        om_dealloc(&s->mem, ops, r->n_ops * sizeof(*ops));
    return rc;
}

/* The model's element of "models", into the spool, as the whole report's writer puts it. */
static int spool_model(opmap_report_stream *s, const opmap_result *r)
{
    om_report_in in;
    om_portfolio none;
    opmap_headline h;
    om_view v;
    jsonw w;
    int rc;
    om_headline_of(&r, 1, &r->summary, NULL, 0, s->ropts.blocked_on, s->ropts.needs_work_on, &h);
    memset(&in, 0, sizeof(in));
    memset(&none, 0, sizeof(none));
    in.results = &r;
    in.count = 1;
    in.headlines = &h;
    in.portfolio = &none;
    in.flags = s->ropts.flags;
    if ((rc = om_view_build(&v, &in, &s->mem)))
        return rc;
    if (!s->count && v.models[0].reexport &&
        !(s->first_reexport = om_arena_strdup(&s->arena, v.models[0].reexport)))
        rc = OPMAP_ENOMEM;
    if (rc == OPMAP_OK) {
        jw_init(&w, &s->sout, (s->ropts.flags & OPMAP_REPORT_COMPACT) != 0);
        w.depth = 2; /* inside the report's object and its "models" */
        w.first[2] = s->count == 0;
        om_json_model(&w, &v.models[0]);
    }
    om_view_free(&v);
    return rc != OPMAP_OK ? rc : s->sout.failed ? s->spool.rc : OPMAP_OK;
}

int opmap_report_stream_take(opmap_report_stream *s, opmap_result *result, opmap_error *err)
{
    int rc;
    om_err_clear(err);
    if (!s || !result) {
        opmap_result_free(result);
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_take: NULL argument");
    }
    if (s->finished || s->failed) {
        opmap_result_free(result);
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_take: the stream is %s",
                       s->finished ? "finished" : "failed");
    }
    if (s->reg) {
        if ((rc = om_registry_take(s->reg, result, err)) == OPMAP_OK) {
            if (!s->first)
                s->first = result; /* the registry borrows it: it names the table */
            else
                opmap_result_free(result);
            s->count++;
            return OPMAP_OK;
        }
        opmap_result_free(result);
        s->failed = 1;
        return rc;
    }
    if ((rc = om_gate_model(s->gate, result, err)) == OPMAP_OK) {
        if (om_gate_take(s->gate, spool_finding, s) != OPMAP_OK)
            rc = s->fspool.rc ? s->fspool.rc : OPMAP_EIO;
        else if ((rc = spool_model(s, result)) == OPMAP_OK && (rc = add_ops(s, result)) == OPMAP_OK)
            rc = keep_need(s, result);
        if (rc == OPMAP_ENOMEM)
            rc = om_fail_mem(err, &s->mem, NULL);
        else if (rc)
            rc = om_spool_fail(s->fspool.rc ? &s->fspool : &s->spool, err);
    }
    if (rc == OPMAP_OK) {
        om_headline_acc_add(&s->head, result);
        if (!s->first)
            s->first = result;
        else
            opmap_result_free(result);
        s->count++;
        return OPMAP_OK;
    }
    opmap_result_free(result);
    s->failed = 1;
    return rc;
}

int opmap_report_stream_finish(opmap_report_stream *s, const opmap_file_problem *problems,
                               size_t count, opmap_error *err)
{
    const opmap_summary *distinct;
    uint64_t expected = 0;
    int rc;
    om_err_clear(err);
    if (!s || (count && !problems))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_finish: NULL argument");
    if (s->finished || s->failed)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_finish: the stream is %s",
                       s->finished ? "finished" : "failed");
    if (s->reg) {
        if ((rc = om_registry_finish(s->reg, problems, count, err)))
            s->failed = 1;
        else
            s->finished = 1;
        return rc;
    }
    s->failed = 1; /* until it is done */
    if (om_out_finish(&s->sout) != OPMAP_OK)
        return om_spool_fail(&s->spool, err);
    if (om_out_finish(&s->fout) != OPMAP_OK)
        return om_spool_fail(&s->fspool, err);
    om_gate_spooled(s->gate, &s->failing_spooled);
    om_portfolio_end(&s->port);
    om_portfolio_end(&s->port_unverified);
    if (om_gate_wants_effort(s->gate))
        expected = s->port_unverified.summary.effort_total.expected;
    rc = om_gate_end(s->gate, s->count, s->first ? s->first->model_name : "", expected, problems,
                     count, &s->verdict, err);
    s->gate = NULL;
    if (rc)
        return rc;
    /* one model: its own totals (the portfolio unites operators across opsets) */
    distinct = s->count == 1 ? &s->first->summary : &s->port.summary;
    om_headline_acc_end(&s->head, s->count, distinct, problems, count, s->ropts.blocked_on,
                        s->ropts.needs_work_on, &s->overall);
    s->problems = problems;
    s->n_problems = count;
    s->finished = 1;
    s->failed = 0;
    return OPMAP_OK;
}

/* What the writers of the top and the end of the report are given. */
static void report_in(const opmap_report_stream *s, om_report_in *in)
{
    size_t k;
    memset(in, 0, sizeof(*in));
    in->results = s->first ? (const opmap_result *const *)&s->first : NULL;
    in->count = s->count;
    in->flags = s->ropts.flags;
    in->day_rate = s->ropts.day_rate;
    in->currency = s->ropts.currency ? s->ropts.currency : "";
    in->portfolio = &s->port;
    in->verdict = s->verdict;
    in->problems = s->problems;
    in->n_problems = s->n_problems;
    for (k = 0; k < s->n_problems; k++)
        in->n_unreadable += !s->problems[k].skipped;
    in->overall = s->overall;
    in->blocked_on = s->ropts.blocked_on ? s->ropts.blocked_on : OPMAP_HEADLINE_BLOCKED_ON;
    in->needs_work_on = s->ropts.needs_work_on ? s->ropts.needs_work_on
                                               : OPMAP_HEADLINE_NEEDS_WORK_ON;
}

static int copy_spool(void *arg, const void *data, size_t size)
{
    om_out_bytes(arg, data, size);
    return ((om_out *)arg)->failed ? -1 : 0;
}

int opmap_report_stream_write(opmap_report_stream *s, opmap_write_fn write, void *payload,
                              opmap_error *err)
{
    om_report_in in;
    om_json_top t;
    om_out out;
    jsonw w;
    int rc;
    om_err_clear(err);
    if (!s || !write)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_write: NULL argument");
    if (!s->finished)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_write: not finished");
    if (s->reg) {
        om_out_init(&out, write, payload);
        if ((rc = om_registry_write(s->reg, &out, err)))
            return rc;
        if ((rc = om_out_finish(&out)) != OPMAP_OK)
            return om_fail(err, rc, NULL, "the report could not be written");
        return OPMAP_OK;
    }
    report_in(s, &in);
    t.count = s->count;
    t.first = s->first;
    t.need = s->need;
    t.need_by = s->need_by;
    t.need_model = s->need_model;
    t.reexport = s->count == 1 && s->first_reexport ? s->first_reexport : "";
    t.findings = &s->fspool;
    t.n_findings = s->n_findings;
    om_out_init(&out, write, payload);
    jw_init(&w, &out, (in.flags & OPMAP_REPORT_COMPACT) != 0);
    om_json_head(&w, &in, &t);
    rc = om_spool_replay(&s->spool, copy_spool, &out);
    if (rc != OPMAP_OK && !out.failed)
        return om_spool_fail(&s->spool, err);
    w.first[w.depth] = s->count == 0;
    om_json_tail(&w, &in, &t);
    if (s->fspool.rc)
        return om_spool_fail(&s->fspool, err);
    if ((rc = om_out_finish(&out)) != OPMAP_OK)
        return om_fail(err, rc, NULL, "the report could not be written");
    return OPMAP_OK;
}

size_t opmap_report_stream_count(const opmap_report_stream *s)
{
    return !s ? 0 : s->reg ? om_registry_count(s->reg) : s->count;
}

int opmap_report_stream_read(opmap_report_stream *s, opmap_report_set *set, const char *path,
                             opmap_error *err)
{
    int rc;
    om_err_clear(err);
    if (!s || !set || !path)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_read: NULL argument");
    if (!s->reg)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_read: a registry report "
                       "holds a summary of each model, not its result: only a registry "
                       "stream reads it");
    if (s->finished || s->failed)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_stream_read: the stream is %s",
                       s->finished ? "finished" : "failed");
    if ((rc = om_registry_read(s->reg, set, path, err)))
        s->failed = 1;
    return rc;
}

size_t opmap_report_stream_findings(const opmap_report_stream *s, size_t *failing)
{
    size_t n = 0, k = 0, i;
    if (s && s->reg)
        return om_registry_findings(s->reg, failing);
    if (s && s->finished) {
        n = s->n_findings + opmap_verdict_finding_count(s->verdict);
        for (i = 0; i < opmap_verdict_finding_count(s->verdict); i++) {
            opmap_finding f = { .size = sizeof(f) };
            opmap_verdict_finding(s->verdict, i, &f);
            k += f.fails != 0;
        }
        k += s->failing_spooled;
    }
    if (failing)
        *failing = k;
    return n;
}

const struct opmap_verdict *opmap_report_stream_verdict(const opmap_report_stream *s)
{
    if (s && s->reg)
        return om_registry_verdict(s->reg);
    return s && s->finished ? s->verdict : NULL;
}

void opmap_report_stream_free(opmap_report_stream *s)
{
    if (!s)
        return;
    om_registry_free(s->reg); /* before the first result it borrows */
    om_gate_free(s->gate);
    opmap_verdict_free(s->verdict);
    opmap_result_free(s->first);
    om_portfolio_free(&s->port, &s->mem);
    om_portfolio_free(&s->port_unverified, &s->mem);
    om_spool_close(&s->spool);
    om_spool_close(&s->fspool);
    om_arena_free(&s->arena);
    om_ctx_release(s->ctx, s);
}
