/*
 * report/report_markdown.c - a report for a pull-request comment: the gate, one line per
 * model, and the operators that need work with why and the next step. Model strings are
 * escaped for Markdown tables (escape.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan/result_internal.h"
#include "table/table_internal.h"
#include "core/err.h"
#include "escape.h"
#include "report_internal.h"
#include "verified.h"
#include "torch_npu_need.h"

/*
 * Text inside a code span: Markdown is literal there, so only what ends the span or the
 * table row matters -- the backtick and the pipe become ', and control bytes (a newline
 * would end the row and start free Markdown; ESC would reach a terminal) and bytes that are
 * not UTF-8 become '?'.
 */
static void code_span_text(om_out *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t n = c >= 0x80 ? om_term_seq(p) : 1; /* not UTF-8, or a C1 control: '?' */
        if (c >= 0x80 && n) {
            om_out_bytes(o, p, n);
            p += n;
            continue;
        }
        om_out_bytes(o, c == '`' || c == '|' ? "'"
                        : c < 0x20 || c >= 0x7f ? "?" : (const char *)p, 1);
        p++;
    }
}

static void days(om_out *o, uint64_t milli)
{
    char buf[32];
    om_format_days(milli, buf, sizeof(buf));
    om_out_str(o, buf);
}

static void effort(om_out *o, opmap_effort e)
{
    days(o, e.expected);
    om_out_str(o, " (");
    days(o, e.min);
    om_out_str(o, "–");
    days(o, e.max);
    om_out_str(o, ")");
}

/* "Minimum torch_npu: **2.7** (aten::x in m.pt); per model: ..." after the model table. */
static void tnpu_needed(om_out *o, const om_report_in *in)
{
    const opmap_result *need = om_report_tnpu_needed(in);
    size_t i, k;
    om_out_str(o, "\nMinimum torch_npu: ");
    if (!need) {
        om_out_str(o, "none stated (no operator's row gives a torch_npu range).\n");
        return;
    }
    om_out_str(o, "**");
    om_out_md(o, need->tnpu_needed);
    om_out_str(o, "** (");
    om_out_md(o, need->tnpu_needed_by);
    if (in->count > 1) {
        om_out_str(o, " in ");
        om_out_md(o, need->model_name);
    }
    om_out_str(o, ")");
    for (i = 0, k = 0; in->count > 1 && i < in->count; i++) {
        if (!in->view->models[i].detailed)
            continue;
        om_out_str(o, k++ ? ", " : "; per model: ");
        om_out_md(o, in->results[i]->model_name);
        om_out_str(o, " ");
        om_out_md(o, in->results[i]->tnpu_needed[0] ? in->results[i]->tnpu_needed : "-");
    }
    om_out_str(o, ".\n");
}

/* The next commands: the ATC line per ONNX model and chip, torch_npu's for the others. */
static void next_commands(om_out *o, const om_report_in *in)
{
    size_t i, k, shown = 0;
    for (i = 0; i < in->view->n_models; i++) {
        const om_vmodel *m = &in->view->models[i];
        for (k = 0; m->detailed && k < m->n_next; k++) {
            if (!shown++)
                om_out_str(o, "\n### Next commands\n\n");
            om_out_str(o, "- `");
            code_span_text(o, m->next[k].text);
            om_out_str(o, "`");
            if (m->next[k].notes[0]) {
                om_out_str(o, " (");
                om_out_md(o, m->next[k].notes);
                om_out_str(o, ")");
            }
            om_out_str(o, "\n");
        }
    }
}

/* Places in a cell: `place` (line), ... the first `max`, then how many more. */
static void places_cell(om_out *o, const char *const *places, const char *const *lines,
                        size_t n, size_t max)
{
    size_t i;
    for (i = 0; i < n && i < max; i++) {
        om_out_str(o, i ? ", `" : "`");
        code_span_text(o, places[i]);
        om_out_str(o, "`");
        if (lines && lines[i]) {
            om_out_str(o, " (");
            om_out_md(o, lines[i]);
            om_out_str(o, ")");
        }
    }
    if (n > max)
        om_out_printf(o, " and %zu more", n - max);
}

/* The headline first (docs/reports.md): verdict, coverage, what runs as-is. */
/* Operators with device results (scan --results): each result on a row. */
static void verified_table(om_out *o, const om_report_in *in)
{
    char line[1024];
    size_t i, j, k;
    if (!om_report_verified(in))
        return;
    om_out_str(o, "\n### Verified on the device\n\n"
                  "| Operator | Model | Verdict | Result | Signature |\n|---|---|---|---|---|\n");
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        for (j = 0; in->view->models[i].detailed && j < r->n_ops; j++) {
            const opmap_op *op = r->ops[j];
            for (k = 0; k < op->n_verified; k++) {
                om_out_str(o, "| `");
                code_span_text(o, op->domain);
                om_out_str(o, "::");
                code_span_text(o, op->name);
                om_out_str(o, "` | ");
                om_out_md(o, r->model_name);
                om_out_printf(o, " | %s | ", opmap_verify_state_name(op->verify_state));
                om_verify_result(&op->verified[k], line, sizeof(line));
                om_out_md(o, line);
                om_out_str(o, " | `");
                code_span_text(o, op->verified[k].signature);
                om_out_str(o, "` |\n");
            }
        }
    }
}

static void headline(om_out *o, const om_report_in *in)
{
    const opmap_headline *h = &in->overall;
    char cov[16], share[16], kinds[400];
    om_format_permille(h->coverage, cov, sizeof(cov));
    om_format_permille(h->largest_share, share, sizeof(share));
    om_kind_list(h->blocking ? h->blocking : h->needing_work, kinds, sizeof(kinds));
    om_out_printf(o, "**Verdict: %s**", om_readiness_label(h->readiness));
    if (kinds[0])
        om_out_printf(o, " (%s)", kinds);
    if (in->view->reexport[0]) { /* before any figure: nothing else holds until it is done */
        om_out_str(o, " · first: **");
        om_out_md(o, in->view->reexport);
        om_out_str(o, "**");
    }
    if (!h->models) { /* no model read: no figure describes anything (the files follow) */
        om_out_str(o, " · no model read\n\n");
        return;
    }
    if (in->view->sources_only) {
        om_out_printf(o, " · no graph scanned (Python sources only) · runs as-is: %" PRIu64
                      " of %" PRIu64 " patterns, %" PRIu64 " of %" PRIu64 " places%s\n\n",
                      h->operators_full, h->operators, h->instances_full, h->instances,
                      in->count > 1 ? " (all projects)" : "");
        return;
    }
    om_out_printf(o, " · coverage **%s** of the placed instances on the NPU (%" PRIu64 " of %"
                  PRIu64 ") · largest NPU segment %s of them · supported as-is: %" PRIu64 " of %"
                  PRIu64 " operators, %" PRIu64 " of %" PRIu64 " instances%s\n\n", cov,
                  h->on_npu, h->placed, share, h->operators_full, h->operators,
                  h->instances_full, h->instances, in->count > 1 ? " (all models)" : "");
}

/* The operators without a published answer for a chip, over every model: counted apart;
 * then, with several models, each model's re-export its opset calls for. */
static void unpublished_note(om_out *o, const om_report_in *in)
{
    uint64_t n = in->view->unpublished_ops;
    size_t i;
    for (i = 0; in->count > 1 && i < in->count; i++)
        if (in->view->models[i].reexport && in->view->models[i].detailed) {
            om_out_str(o, "\nFirst, ");
            om_out_md(o, in->results[i]->model_name);
            om_out_str(o, ": **");
            om_out_md(o, in->view->models[i].reexport);
            om_out_str(o, "**.\n");
        }
    if (n)
        om_out_printf(o, "\n%" PRIu64 " operator%s without a published answer for a chip "
                      "scanned for: counted apart, not in the effort.\n", n, n == 1 ? "" : "s");
}

/* "**CI gate: PASS** · chips ... · table ... · answered for ...": what was answered. */
static void gate_line(om_out *o, const om_report_in *in)
{
    size_t c;
    om_out_printf(o, "**CI gate: %s**",
                  opmap_verdict_incomplete(in->verdict) ? "FAIL (incomplete)"
                  : opmap_verdict_passed(in->verdict) ? "PASS" : "FAIL");
    if (in->count) {
        const opmap_result *r0 = in->results[0];
        om_out_str(o, " · chips ");
        for (c = 0; c < r0->n_chips; c++) {
            om_out_str(o, c ? ", " : "");
            om_out_md(o, r0->chips[c]);
        }
        om_out_str(o, " · table ");
        om_out_md(o, r0->table_name[0] ? r0->table_name : r0->table_origin);
        om_out_str(o, " ");
        om_out_md(o, r0->table_version);
        if (om_report_tnpu_target(in)[0]) {
            om_out_str(o, " · answered for torch_npu ");
            om_out_md(o, om_report_tnpu_target(in));
        }
        if (om_report_mode(in) == OPMAP_MODE_GRAPH)
            om_out_printf(o, " · mode %s", om_report_graph_mode_text);
        if (om_report_workload(in) == OPMAP_WORKLOAD_TRAINING)
            om_out_printf(o, " · workload %s", om_report_training_text);
    }
}

/* The operators that need work (partial and worse) of the models listed, a row each. */
static void needs_work_table(om_out *o, const om_report_in *in)
{
    size_t i, j, listed = 0;
    om_out_str(o, "\n### Operators that need work\n\n"
                  "| Status | Operator | Model | Instances | On Ascend | Why | Next step |\n"
                  "|---|---|---|---:|---|---|---|\n");
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        for (j = 0; in->view->models[i].detailed && j < r->n_ops; j++) {
            const opmap_op *op = r->ops[j];
            const om_vop *x = &in->view->models[i].ops[j];
            if (op->status < OPMAP_OP_PARTIAL)
                continue;
            listed++;
            om_out_printf(o, "| %s | `", opmap_op_status_name(op->status));
            code_span_text(o, op->domain);
            om_out_str(o, "::");
            code_span_text(o, op->name);
            om_out_str(o, "` | ");
            om_out_md(o, r->model_name);
            om_out_printf(o, " | %" PRIu64 " | ", op->instances);
            om_out_md(o, x->on_ascend);
            if (x->engine[0]) {
                om_out_str(o, " (");
                om_out_md(o, x->engine);
                om_out_str(o, ")");
            }
            om_out_str(o, " | ");
            if (op->n_reasons) {
                om_out_md(o, op->reasons[0].message);
                om_out_str(o, " (");
                om_out_md(o, op->reasons[0].actual);
                om_out_str(o, ")");
                if (op->n_reasons > 1)
                    om_out_printf(o, " and %zu more", op->n_reasons - 1);
            } else if (op->status == OPMAP_OP_UNMAPPED) {
                om_out_str(o, "no row in the compatibility table");
            } else {
                om_out_md(o, op->notes);
            }
            if (op->source && op->locations) { /* where in the code */
                om_out_str(o, "; at ");
                places_cell(o, op->locations, NULL, op->n_paths, OM_VIEW_SOURCE_PLACES);
            }
            om_out_str(o, " | ");
            om_out_md(o, x->next_step);
            om_out_str(o, " |\n");
        }
    }
    if (!listed)
        om_out_str(o, "| – | none | | | | | |\n");
}

/* Past OM_VIEW_DETAILED_MAX models the report lists those with the most to change (the
 * view's choice, as the HTML page's); the others in one row, and it says so. */
static void not_listed(om_out *o, const om_report_in *in)
{
    uint64_t by[3] = { 0, 0, 0 }, unpublished = 0;
    opmap_effort sum = { 0, 0, 0 };
    size_t i, rest = in->count - in->view->n_detailed;
    if (!rest)
        return;
    for (i = 0; i < in->count; i++)
        if (!in->view->models[i].detailed) {
            const opmap_effort *e = &in->results[i]->summary.effort_total;
            by[in->headlines[i].readiness]++;
            sum.min += e->min;
            sum.expected += e->expected;
            sum.max += e->max;
            unpublished += in->results[i]->unpublished_ops;
        }
    om_out_printf(o, "| %zu more models, not listed | %" PRIu64 " blocked, %" PRIu64
                     " needs work, %" PRIu64 " ready | | | | | | ", rest, by[OPMAP_BLOCKED],
                  by[OPMAP_NEEDS_WORK], by[OPMAP_READY]);
    effort(o, sum);
    om_out_printf(o, " | %" PRIu64 " |\n\nThis report lists the %zu models with the most to "
                     "change (worst verdict, then most effort) of %zu; the JSON report holds "
                     "every model.\n", unpublished, in->view->n_detailed, in->count);
}

int om_report_markdown(const om_report_in *in, om_out *o)
{
    const om_portfolio *p = in->portfolio;
    size_t i, j;
    om_out_str(o, "## opmap: Ascend migration report\n\n");
    headline(o, in);
    gate_line(o, in);
    om_out_str(o, "\n\n| Model | Verdict | Coverage | Operators | Unmapped | Rewrite | Partial "
                  "| Effort, person-days | Unpublished |\n|---|---|---:|---:|---:|---:|---:|---|---:|\n");
    for (i = 0; i < in->count; i++) {
        const opmap_summary *s = &in->results[i]->summary;
        if (!in->view->models[i].detailed)
            continue;
        om_out_str(o, "| ");
        om_out_md(o, in->results[i]->model_name);
        om_out_printf(o, " | %s | %s", om_readiness_label(in->headlines[i].readiness),
                      in->view->models[i].coverage);
        om_out_printf(o, " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | ",
                      s->operators_total, s->operators[OPMAP_OP_UNMAPPED],
                      s->operators[OPMAP_OP_REWRITE], s->operators[OPMAP_OP_PARTIAL]);
        effort(o, s->effort_total);
        om_out_printf(o, " | %" PRIu64 " |\n", in->results[i]->unpublished_ops);
    }
    not_listed(o, in);
    if (in->count)
        tnpu_needed(o, in);
    unpublished_note(o, in);
    if (in->count > 1) {
        om_out_str(o, "\nAll models, each shared operator adapted once: **");
        effort(o, p->summary.effort_total);
        om_out_str(o, "** person-days (one by one: ");
        days(o, p->separately.expected);
        om_out_str(o, ").\n");
    }
    if (in->day_rate > 0) {
        char rate[64], total[64];
        om_format_amount(in->day_rate, rate, sizeof(rate));
        om_format_amount(om_cost(in, p->summary.effort_total.expected), total, sizeof(total));
        om_out_printf(o, "\nCost at %s ", rate);
        om_out_md(o, in->currency);
        om_out_printf(o, " a day: %s ", total);
        om_out_md(o, in->currency);
        om_out_str(o, ".\n");
    }
    needs_work_table(o, in);
    verified_table(o, in);
    {
        size_t shown = 0;
        for (i = 0; i < in->count; i++) {
            const opmap_result *r = in->results[i];
            const om_vmodel *m = &in->view->models[i];
            for (j = 0; m->detailed && j < m->n_advice; j++) {
                const om_advice *a = m->advice[j].a;
                if (!shown++)
                    om_out_str(o, "\n### Advice (not in the effort)\n\n"
                                  "| Advice | Model | Where | Do |\n|---|---|---|---|\n");
                om_out_str(o, "| ");
                if (om_view_advice_kind(a)) {
                    om_out_str(o, om_view_advice_kind(a));
                    om_out_str(o, ": ");
                }
                om_out_md(o, a->message);
                om_out_str(o, " | ");
                om_out_md(o, r->model_name);
                om_out_str(o, " | ");
                om_out_md(o, a->value[0] ? a->value : a->where);
                if (a->n_places) { /* the places, and every source line they do not show */
                    size_t k, more = 0;
                    om_out_str(o, " · at ");
                    places_cell(o, a->places, a->lines, a->n_places, OM_VIEW_ADVICE_PLACES);
                    for (k = 0; k < m->advice[j].n_lines; k++)
                        if (!om_view_line_shown(&m->advice[j], k, OM_VIEW_ADVICE_PLACES)) {
                            om_out_str(o, more++ ? ", " : " · source lines: ");
                            om_out_md(o, m->advice[j].lines[k]);
                        }
                }
                om_out_str(o, " | ");
                om_out_md(o, a->action);
                om_out_str(o, " |\n");
            }
        }
    }
    if (in->n_problems) {
        char msg[1200];
        if (in->n_unreadable)
            om_out_printf(o, "\n### Files not read: the report is incomplete\n\n");
        else
            om_out_printf(o, "\n### Files skipped\n\n");
        om_out_str(o, "| File | | Why |\n|---|---|---|\n");
        for (i = 0; i < in->n_problems; i++) {
            const opmap_file_problem *q = &in->problems[i];
            om_problem_message(q, msg, sizeof(msg));
            om_out_str(o, "| ");
            om_out_md(o, q->file ? q->file : "");
            om_out_str(o, q->skipped ? " | skipped | " : " | **could not be read** | ");
            om_out_md(o, msg);
            om_out_str(o, " |\n");
        }
    }
    next_commands(o, in);
    om_out_printf(o, "\n%" PRIu64 " operators run as they are (full), %" PRIu64
                     " are graph plumbing (structural).\n",
                  p->summary.operators[OPMAP_OP_FULL], p->summary.operators[OPMAP_OP_STRUCTURAL]);
    om_out_printf(o, "\n<sub>opmap %s · statuses from the compatibility table, each row citing "
                     "its public sources</sub>\n", opmap_version_string());
    return OPMAP_OK;
}
