/*
 * report/report_junit.c - JUnit XML for CI test reports (GitLab, Jenkins): a test suite
 * per model, a test case per distinct operator, failing with what the policy fails on;
 * model-level findings are a test case named after the model. Waived-only cases are
 * skipped with the waiver's reason. Files the scan did not read are a suite of their own:
 * an <error> for each that could not be read, a skipped (or, with --fail-on skipped,
 * failing) case for each skipped one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan/result_internal.h"
#include "escape.h"
#include "report_internal.h"
#include "verified.h"

/* Findings of one operator (op NULL: model-level) of one model. */
static void count(const opmap_verdict *v, const char *model, const opmap_op *op, size_t *fails,
                  size_t *waived)
{
    size_t i, n = opmap_verdict_finding_count(v);
    *fails = *waived = 0;
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, i, &f);
        if (strcmp(f.model, model) != 0)
            continue;
        if (op ? strcmp(f.op, op->name) != 0 || strcmp(f.domain, op->domain) != 0 : f.op[0] != 0)
            continue;
        *fails += f.fails != 0;
        *waived += f.waived && !f.fails;
    }
}

static void testcase(om_out *o, const opmap_verdict *v, const char *model, const opmap_op *op)
{
    size_t i, n = opmap_verdict_finding_count(v), fails, waived;
    count(v, model, op, &fails, &waived);
    om_out_str(o, "    <testcase classname=\"");
    om_out_xml(o, model);
    om_out_str(o, "\" name=\"");
    if (op) {
        om_out_xml(o, op->domain);
        om_out_str(o, "::");
        om_out_xml(o, op->name);
    } else {
        om_out_str(o, "model-level findings");
    }
    om_out_str(o, "\">");
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, i, &f);
        if (strcmp(f.model, model) != 0 ||
            (op ? strcmp(f.op, op->name) != 0 || strcmp(f.domain, op->domain) != 0 : f.op[0] != 0))
            continue;
        if (f.fails) {
            om_out_printf(o, "\n      <failure type=\"%s\" message=\"",
                          opmap_fail_kind_name((unsigned)__builtin_ctz(f.kind)));
            om_out_xml(o, f.message);
            om_out_str(o, "\">");
            om_out_xml(o, f.node);
            if (f.waiver_expired) {
                om_out_str(o, " (waiver expired ");
                om_out_xml(o, f.waiver_expires);
                om_out_str(o, ")");
            }
            om_out_str(o, "</failure>");
        } else if (!fails && f.waived) {
            om_out_str(o, "\n      <skipped message=\"waived: ");
            om_out_xml(o, f.waiver_reason);
            om_out_str(o, "\"/>");
            break;
        }
    }
    if (op && op->verify_state != OPMAP_VERIFY_NONE) { /* what the device said of it */
        char said[1024];
        om_verify_summary(op, said, sizeof(said));
        om_out_str(o, "\n      <system-out>");
        om_out_xml(o, said);
        om_out_str(o, "</system-out>");
    }
    om_out_str(o, fails || waived || (op && op->verify_state != OPMAP_VERIFY_NONE)
                      ? "\n    </testcase>\n"
                      : "</testcase>\n");
}

/*
 * Whether the gate fails on each problem file in turn (a skipped one only with --fail-on
 * skipped): the verdict holds one unreadable-or-skipped finding per problem, in the
 * problems' order, so a cursor walks them once. *at starts at 0.
 */
static int next_problem_fails(const opmap_verdict *v, size_t *at)
{
    size_t n = opmap_verdict_finding_count(v);
    for (; *at < n; (*at)++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, *at, &f);
        if (f.kind == OPMAP_FAIL_SKIPPED || f.kind == OPMAP_FAIL_UNREADABLE) {
            (*at)++;
            return f.fails;
        }
    }
    return 0;
}

static void problem_suite(om_out *o, const om_report_in *in, size_t failing)
{
    size_t i, at = 0;
    char msg[1200];
    om_out_printf(o, "  <testsuite name=\"files not read\" tests=\"%zu\" failures=\"%zu\" "
                     "errors=\"%zu\" skipped=\"%zu\">\n", in->n_problems, failing,
                  in->n_unreadable, in->n_problems - in->n_unreadable - failing);
    for (i = 0; i < in->n_problems; i++) {
        const opmap_file_problem *p = &in->problems[i];
        int fails = next_problem_fails(in->verdict, &at);
        om_problem_message(p, msg, sizeof(msg));
        om_out_str(o, "    <testcase classname=\"files not read\" name=\"");
        om_out_xml(o, p->file ? p->file : "");
        if (!p->skipped)
            om_out_str(o, "\">\n      <error type=\"unreadable\" message=\"");
        else if (fails)
            om_out_str(o, "\">\n      <failure type=\"skipped\" message=\"");
        else
            om_out_str(o, "\">\n      <skipped message=\"");
        om_out_xml(o, msg);
        om_out_str(o, "\"/>\n    </testcase>\n");
    }
    om_out_str(o, "  </testsuite>\n");
}

/* The suite's torch_npu properties: the version answered for (when given), the model's
 * minimum and the operator that sets it ("" when no row gives a range). */
static void tnpu_properties(om_out *o, const opmap_result *r)
{
    if (r->mode == OPMAP_MODE_GRAPH)
        om_out_str(o, "<property name=\"mode\" value=\"graph\"/>");
    if (r->workload == OPMAP_WORKLOAD_TRAINING || r->workload_narrowed)
        om_out_printf(o, "<property name=\"workload\" value=\"%s\"/>",
                      opmap_workload_name(r->workload));
    if (r->tnpu_target[0]) {
        om_out_str(o, "<property name=\"torch_npu_target\" value=\"");
        om_out_xml(o, r->tnpu_target);
        om_out_str(o, "\"/>");
    }
    om_out_str(o, "<property name=\"torch_npu_needed\" value=\"");
    om_out_xml(o, r->tnpu_needed);
    om_out_str(o, "\"/><property name=\"torch_npu_needed_by\" value=\"");
    om_out_xml(o, r->tnpu_needed_by);
    om_out_str(o, "\"/>");
}

/* "verdict=needs work; coverage=97.5%; ...": the headline (docs/reports.md), as the
 * comment before the suites and each suite's properties say it. */
static void headline_words(const opmap_headline *h, char *buf, size_t size)
{
    char cov[16], share[16], kinds[400];
    om_format_permille(h->coverage, cov, sizeof(cov));
    om_format_permille(h->largest_share, share, sizeof(share));
    om_kind_list(h->blocking ? h->blocking : h->needing_work, kinds, sizeof(kinds));
    snprintf(buf, size, "verdict: %s%s%s%s; coverage: %s of the placed instances on the NPU (%"
             PRIu64 " of %" PRIu64 "); largest NPU segment: %s; supported as-is: %" PRIu64
             " of %" PRIu64 " operators, %" PRIu64 " of %" PRIu64 " instances",
             om_readiness_label(h->readiness), kinds[0] ? " (" : "", kinds, kinds[0] ? ")" : "",
             cov, h->on_npu, h->placed, share, h->operators_full, h->operators,
             h->instances_full, h->instances);
}

static void headline_properties(om_out *o, const opmap_headline *h)
{
    char cov[16], kinds[400];
    om_format_days(h->coverage, cov, sizeof(cov));
    om_kind_list(h->blocking ? h->blocking : h->needing_work, kinds, sizeof(kinds));
    om_out_printf(o, "<property name=\"verdict\" value=\"%s\"/><property name=\"because\" "
                  "value=\"%s\"/><property name=\"coverage\" value=\"%s\"/>",
                  opmap_readiness_name(h->readiness), kinds, cov);
    om_format_days(h->largest_share, cov, sizeof(cov));
    om_out_printf(o, "<property name=\"largest_segment_share\" value=\"%s\"/><property "
                  "name=\"operators_full\" value=\"%" PRIu64 " of %" PRIu64 "\"/><property "
                  "name=\"instances_full\" value=\"%" PRIu64 " of %" PRIu64 "\"/>", cov,
                  h->operators_full, h->operators, h->instances_full, h->instances);
}

int om_report_junit(const om_report_in *in, om_out *o)
{
    size_t i, j, tests = 0, failures = 0, skipped = 0, failing_skips = 0, at = 0;
    char words[800];
    /* totals first: the root element carries them */
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        for (j = 0; j <= r->n_ops; j++) {
            size_t fails, waived;
            count(in->verdict, r->model_name, j < r->n_ops ? r->ops[j] : NULL, &fails, &waived);
            if (j == r->n_ops && !fails && !waived)
                continue;
            tests++;
            failures += fails != 0;
            skipped += !fails && waived;
        }
    }
    for (i = 0; i < in->n_problems; i++)
        failing_skips += next_problem_fails(in->verdict, &at) && in->problems[i].skipped;
    tests += in->n_problems;
    failures += failing_skips;
    skipped += in->n_problems - in->n_unreadable - failing_skips;
    headline_words(&in->overall, words, sizeof(words));
    om_out_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- opmap %s%s -->\n"
                     "<testsuites name=\"opmap\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                     "skipped=\"%zu\">\n", in->count > 1 ? "overall " : "", words, tests,
                  failures, in->n_unreadable, skipped);
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        size_t t = 0, fl = 0, sk = 0, fails, waived;
        for (j = 0; j <= r->n_ops; j++) {
            count(in->verdict, r->model_name, j < r->n_ops ? r->ops[j] : NULL, &fails, &waived);
            if (j == r->n_ops && !fails && !waived)
                continue;
            t++;
            fl += fails != 0;
            sk += !fails && waived;
        }
        om_out_str(o, "  <testsuite name=\"");
        om_out_xml(o, r->model_name);
        om_out_printf(o, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", t, fl, sk);
        om_out_str(o, "    <properties>");
        headline_properties(o, &in->headlines[i]);
        om_out_printf(o, "<property name=\"unpublished_operators\" "
                         "value=\"%" PRIu64 "\"/>", r->unpublished_ops);
        tnpu_properties(o, r);
        om_out_str(o, "</properties>\n");
        for (j = 0; j < r->n_ops; j++)
            testcase(o, in->verdict, r->model_name, r->ops[j]);
        count(in->verdict, r->model_name, NULL, &fails, &waived);
        if (fails || waived)
            testcase(o, in->verdict, r->model_name, NULL);
        om_out_str(o, "  </testsuite>\n");
    }
    if (in->n_problems)
        problem_suite(o, in, failing_skips);
    om_out_str(o, "</testsuites>\n");
    return OPMAP_OK;
}
