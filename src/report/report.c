/*
 * report/report.c - opmap_report_write(): format names, the inputs every writer shares
 * (portfolio, the gate's verdict), dispatch, and helpers used by several writers; the ATC
 * command is in atc_command.c.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "scan/result_estimate.h"
#include "policy/headline.h"
#include "scan/result_internal.h"
#include "report_internal.h"
#include "view.h"

static const struct {
    const char *name, *ext;
    int (*write)(const om_report_in *in, om_out *out);
} formats[OPMAP_REPORT_FORMAT_COUNT] = {
    [OPMAP_REPORT_TEXT] = { "text", "txt", om_report_text },
    [OPMAP_REPORT_JSON] = { "json", "json", om_report_json },
    [OPMAP_REPORT_HTML] = { "html", "html", om_report_html },
    [OPMAP_REPORT_MARKDOWN] = { "markdown", "md", om_report_markdown },
    [OPMAP_REPORT_CSV] = { "csv", "csv", om_report_csv },
    [OPMAP_REPORT_SARIF] = { "sarif", "sarif", om_report_sarif },
    [OPMAP_REPORT_JUNIT] = { "junit", "xml", om_report_junit },
    /* its own extension: several formats go into one directory beside opmap-report.json */
    [OPMAP_REPORT_ATC_PRECHECK] = { "atc-precheck", "atc-precheck.json", om_report_atc_precheck },
    /* its own extension too: beside opmap-report.json, and what `opmap merge` reads */
    [OPMAP_REPORT_REGISTRY] = { "registry", "registry.json", om_report_registry },
};

const char *opmap_report_format_name(opmap_report_format format)
{
    return (unsigned)format < OPMAP_REPORT_FORMAT_COUNT ? formats[format].name : NULL;
}

const char *opmap_report_format_extension(opmap_report_format format)
{
    return (unsigned)format < OPMAP_REPORT_FORMAT_COUNT ? formats[format].ext : NULL;
}

int opmap_report_format_parse(const char *name, opmap_report_format *out)
{
    unsigned i;
    if (!name || !out)
        return OPMAP_EINVAL;
    if (strcmp(name, "md") == 0) {
        *out = OPMAP_REPORT_MARKDOWN;
        return OPMAP_OK;
    }
    for (i = 0; i < OPMAP_REPORT_FORMAT_COUNT; i++)
        if (strcmp(name, formats[i].name) == 0) {
            *out = (opmap_report_format)i;
            return OPMAP_OK;
        }
    return OPMAP_EINVAL;
}

/* "2.5", "0.125", "3": by hand, as a JSON report over many models holds a great many of
 * them and snprintf was a tenth of its cost. */
void om_format_days(uint64_t milli, char *buf, size_t size)
{
    char tmp[32];
    size_t i = 20, n = 0;
    uint64_t whole = milli / 1000, frac = milli % 1000;
    tmp[i] = '\0';
    do {
        tmp[--i] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    n = 20 - i;
    if (frac) {
        char f[4] = { (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                      (char)('0' + frac % 10), '\0' };
        size_t k = 3;
        while (f[k - 1] == '0')
            k--;
        tmp[20] = '.';
        memcpy(tmp + 21, f, k);
        tmp[21 + k] = '\0';
        n += 1 + k;
    }
    if (size) {
        n = n < size - 1 ? n : size - 1;
        memcpy(buf, tmp + i, n);
        buf[n] = '\0';
    }
}

void om_format_amount(double v, char *buf, size_t size)
{
    /* integers only: the C library's %f follows the host's LC_NUMERIC (a comma in many locales) */
    long long cents = (long long)(v * 100.0 + (v < 0 ? -0.5 : 0.5));
    long long whole = cents / 100, frac = cents % 100;
    if (frac < 0)
        frac = -frac;
    if (frac)
        snprintf(buf, size, "%lld.%02lld", whole, frac);
    else
        snprintf(buf, size, "%lld", whole);
}

double om_cost(const om_report_in *in, uint64_t milli)
{
    /* rounded to cents: costs are quotes, not measurements */
    double c = (double)milli / 1000.0 * in->day_rate;
    return (double)(long long)(c * 100.0 + 0.5) / 100.0;
}

const char *om_readiness_label(int readiness)
{
    return readiness == OPMAP_BLOCKED ? "blocked"
         : readiness == OPMAP_NEEDS_WORK ? "needs work" : "ready";
}

void om_format_permille(unsigned permille, char *buf, size_t size)
{
    if (permille % 10)
        snprintf(buf, size, "%u.%u%%", permille / 10, permille % 10);
    else
        snprintf(buf, size, "%u%%", permille / 10);
}

size_t om_source_share(const om_portfolio *p, opmap_effort *e)
{
    size_t i, n = 0;
    e->min = e->expected = e->max = 0;
    for (i = 0; i < p->n; i++)
        if (strcmp(p->ops[i].domain, "py") == 0) {
            e->min += p->ops[i].effort.min;
            e->expected += p->ops[i].effort.expected;
            e->max += p->ops[i].effort.max;
            n++;
        }
    return n;
}

void om_kind_list(unsigned bits, char *buf, size_t size)
{
    size_t used = 0;
    unsigned k;
    if (!size)
        return;
    buf[0] = '\0';
    for (k = 0; k < OPMAP_FAIL_KIND_COUNT && used < size; k++)
        if (bits & (1u << k))
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
                                     opmap_fail_kind_name(k));
}

/* Each model's headline and the overall one (with the files not read). */
static int headlines(om_report_in *in, const opmap_report_options *opts, om_mem *mem,
                     opmap_headline **out)
{
    unsigned blocked = 0, work = 0;
    size_t i;
    if (opts && opts->version >= 3) {
        blocked = opts->blocked_on;
        work = opts->needs_work_on;
    }
    in->blocked_on = blocked ? blocked : OPMAP_HEADLINE_BLOCKED_ON;
    in->needs_work_on = work ? work : OPMAP_HEADLINE_NEEDS_WORK_ON;
    *out = NULL;
    if (in->count && !(*out = om_calloc(mem, in->count, sizeof(**out))))
        return OPMAP_ENOMEM;
    for (i = 0; i < in->count; i++)
        om_headline_of(in->results + i, 1, &in->results[i]->summary, NULL, 0, blocked, work,
                       &(*out)[i]);
    /* one model: its own totals (the portfolio unites operators across opsets) */
    om_headline_of(in->results, in->count,
                   in->count == 1 ? &in->results[0]->summary : &in->portfolio->summary,
                   in->problems,
                   in->n_problems, blocked, work, &in->overall);
    in->headlines = *out;
    return OPMAP_OK;
}

void om_problem_message(const opmap_file_problem *p, char *buf, size_t size)
{
    const opmap_error *e = p->error;
    if (!size)
        return;
    if (!e) {
        snprintf(buf, size, "%s", p->skipped ? "skipped" : "could not be read");
    } else if (e->source[0] && (!p->file || strcmp(e->source, p->file) != 0)) {
        opmap_error_format(e, buf, size); /* a zip entry, a side file: say which */
    } else if (e->line) {
        snprintf(buf, size, "line %u:%u: %s", (unsigned)e->line, (unsigned)e->column, e->message);
    } else if (e->offset != OPMAP_NO_OFFSET) {
        snprintf(buf, size, "offset %llu: %s", (unsigned long long)e->offset, e->message);
    } else {
        snprintf(buf, size, "%s", e->message);
    }
    om_one_line(buf);
}

int om_report_prepare(om_report_prep *p, opmap_ctx *ctx, const opmap_result *const *results,
                      size_t count, const opmap_report_options *opts, opmap_error *err)
{
    om_report_in *in = &p->in;
    opmap_policy policy = OPMAP_POLICY_INIT;
    const opmap_file_problem *problems = NULL;
    size_t n_problems = 0, k;
    int rc;
    memset(p, 0, sizeof(*p));
    if (opts && (opts->version < 1 || opts->version > OPMAP_REPORT_OPTIONS_VERSION))
        return om_fail(err, OPMAP_EINVAL, NULL, "report options version %u, expected %u",
                       opts->version, OPMAP_REPORT_OPTIONS_VERSION);
    if (opts && !(opts->day_rate >= 0.0 && opts->day_rate < 1e12))
        return om_fail(err, OPMAP_EINVAL, NULL, "day rate out of range");
    if (opts && opts->version >= 2) { /* a version-1 caller's struct ends before these */
        problems = opts->problems;
        n_problems = opts->problem_count;
        if (n_problems && !problems)
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write: NULL problems");
    }
    /* the report's gate judges the files the report lists */
    if (opts && opts->policy) {
        if (opts->policy->version != 1 && opts->policy->version != OPMAP_POLICY_VERSION)
            return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write: policy version %u",
                           opts->policy->version);
        memcpy(&policy, opts->policy, opts->policy->version == 1
                                          ? offsetof(opmap_policy, problems) : sizeof(policy));
        policy.version = OPMAP_POLICY_VERSION;
    }
    policy.problems = problems;
    policy.problem_count = n_problems;
    if ((rc = opmap_policy_check(&p->verdict, ctx, results, count, &policy, err)))
        return rc;
    p->policy = policy;
    om_mem_init(&p->mem, &ctx->al, ctx->limits.max_heap_bytes);
    if (om_result_portfolio(results, count, &p->mem, &p->portfolio) != OPMAP_OK) {
        opmap_verdict_free(p->verdict);
        p->verdict = NULL;
        return om_fail_mem(err, &p->mem, NULL);
    }
    p->has_portfolio = 1;
    in->ctx = ctx;
    in->policy = &p->policy;
    in->results = results;
    in->count = count;
    in->flags = opts ? opts->flags : 0;
    in->day_rate = opts ? opts->day_rate : 0.0;
    in->currency = opts && opts->currency ? opts->currency : "";
    in->portfolio = &p->portfolio;
    in->verdict = p->verdict;
    in->problems = problems;
    in->n_problems = n_problems;
    for (k = 0; k < n_problems; k++)
        in->n_unreadable += !problems[k].skipped;
    if (headlines(in, opts, &p->mem, &p->heads) != OPMAP_OK ||
        om_view_build(&p->view, in, &p->mem) != OPMAP_OK) {
        om_report_release(p);
        return om_fail_mem(err, &p->mem, NULL);
    }
    p->has_view = 1;
    in->view = &p->view;
    return OPMAP_OK;
}

void om_report_release(om_report_prep *p)
{
    if (p->has_view)
        om_view_free(&p->view);
    if (p->heads)
        om_dealloc(&p->mem, p->heads, p->in.count * sizeof(*p->heads));
    if (p->has_portfolio)
        om_portfolio_free(&p->portfolio, &p->mem);
    opmap_verdict_free(p->verdict);
    memset(p, 0, sizeof(*p));
}

int opmap_report_write(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                       opmap_report_format format, const opmap_report_options *opts,
                       opmap_write_fn write, void *payload, opmap_error *err)
{
    om_report_prep prep;
    om_out out;
    int rc;
    om_err_clear(err);
    if (!ctx || !write || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write: NULL argument");
    if (!opmap_report_format_name(format))
        return om_fail(err, OPMAP_EINVAL, NULL, "unknown report format %d", (int)format);
    if ((rc = om_report_prepare(&prep, ctx, results, count, opts, err)))
        return rc;
    om_out_init(&out, write, payload);
    rc = formats[format].write(&prep.in, &out);
    if (rc == OPMAP_OK)
        rc = om_out_finish(&out);
    om_report_release(&prep);
    if (rc == OPMAP_EWRITE)
        return om_fail(err, rc, NULL, "the report could not be written");
    if (rc != OPMAP_OK)
        return om_fail(err, rc, NULL, "%s while writing the report", opmap_status_str(rc));
    return OPMAP_OK;
}
