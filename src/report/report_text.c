/*
 * report/report_text.c - the terminal summary.
 *
 * One block per model: what it is, counts per status, the effort range, then one line per
 * distinct operator (worst first). Model strings are stripped of control characters so a
 * hostile node name cannot drive the terminal. Colour only when the caller asks for it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "table/source_rules.h"
#include "scan/result_internal.h"
#include "table/table_internal.h"
#include "report_internal.h"
#include "verified.h"
#include "torch_npu_need.h"

#define C_RESET "\033[0m"

static const char *status_colour(int status)
{
    switch (status) {
    case OPMAP_OP_UNMAPPED: return "\033[1;31m";
    case OPMAP_OP_REWRITE: return "\033[31m";
    case OPMAP_OP_PARTIAL: return "\033[33m";
    case OPMAP_OP_FULL: return "\033[32m";
    default: return "\033[2m";
    }
}

static void named_status_cell(om_out *o, const char *name, int status, int colour)
{
    if (colour)
        om_out_printf(o, "%s%-10s%s", status_colour(status), name, C_RESET);
    else
        om_out_printf(o, "%-10s", name);
}

static void status_cell(om_out *o, int status, int colour)
{
    named_status_cell(o, opmap_op_status_name(status), status, colour);
}

/* A source finding says what the migration does: automatic, renamed, manual, ... */
static void op_status_cell(om_out *o, const opmap_op *op, int colour)
{
    named_status_cell(o, op->guarded  ? "guarded"
                         : op->source ? om_sr_status_name(op->sr_status)
                                      : opmap_op_status_name(op->status), op->status, colour);
}

/* Where a source finding is: its first places, each "file:line:col text". */
static void source_places(om_out *o, const opmap_op *op)
{
    size_t i, shown = op->n_paths < 5 ? op->n_paths : 5;
    for (i = 0; i < shown; i++) {
        om_out_str(o, "             at ");
        om_out_term(o, op->paths[i]);
        om_out_str(o, "\n");
    }
    if (op->n_paths > shown)
        om_out_printf(o, "             ... and %zu more places (see --format json)\n",
                      op->n_paths - shown);
}

/* The estimate, and its cost when a day rate was given (a lead's first question). */
static void effort_line(om_out *o, const om_report_in *in, const char *label, opmap_effort e)
{
    char lo[64], ex[64], hi[64];
    om_format_days(e.min, lo, sizeof(lo));
    om_format_days(e.expected, ex, sizeof(ex));
    om_format_days(e.max, hi, sizeof(hi));
    om_out_printf(o, "  %s %s person-days (range %s to %s)", label, ex, lo, hi);
    if (in->day_rate > 0) {
        om_format_amount(om_cost(in, e.expected), ex, sizeof(ex));
        om_format_amount(om_cost(in, e.min), lo, sizeof(lo));
        om_format_amount(om_cost(in, e.max), hi, sizeof(hi));
        om_out_printf(o, ", cost %s", ex);
        if (in->currency[0]) {
            om_out_str(o, " ");
            om_out_term(o, in->currency);
        }
        om_out_printf(o, " (%s to %s)", lo, hi);
    }
    om_out_str(o, "\n");
}

/* The headline first (docs/reports.md): the verdict, the coverage, what runs as-is. */
static void headline_lines(om_out *o, const opmap_headline *h, const char *label, int colour,
                           int sources_only, const char *reexport)
{
    char cov[16], share[16], kinds[400];
    om_format_permille(h->coverage, cov, sizeof(cov));
    om_format_permille(h->largest_share, share, sizeof(share));
    om_kind_list(h->blocking ? h->blocking : h->needing_work, kinds, sizeof(kinds));
    om_out_printf(o, "%s%s%s%s", label,
                  colour ? (h->readiness == OPMAP_BLOCKED ? "\033[1;31m"
                            : h->readiness == OPMAP_NEEDS_WORK ? "\033[33m" : "\033[32m")
                         : "",
                  om_readiness_label(h->readiness), colour ? C_RESET : "");
    if (kinds[0])
        om_out_printf(o, " (%s)", kinds);
    else if (h->readiness == OPMAP_NEEDS_WORK)
        om_out_str(o, " (coverage below 100%)");
    if (reexport && reexport[0]) { /* before any figure: nothing else holds until it is done */
        om_out_str(o, "\n  first: ");
        om_out_term(o, reexport);
    }
    if (!h->models) { /* no model read: no figure describes anything (the files follow) */
        om_out_str(o, "\n");
        return;
    }
    if (sources_only) { /* no graph: nothing is placed, the patterns are what there is */
        om_out_printf(o, "\n  coverage: no graph scanned (Python sources only)\n");
        om_out_printf(o, "  runs as-is: %" PRIu64 " of %" PRIu64 " patterns, %" PRIu64 " of %"
                      PRIu64 " places in the code\n", h->operators_full, h->operators,
                      h->instances_full, h->instances);
        return;
    }
    om_out_printf(o, "\n  coverage: %s of the placed instances on the NPU (%" PRIu64 " of %" PRIu64
                  "); largest NPU segment: %s of them (%" PRIu64 ")\n", cov, h->on_npu,
                  h->placed, share, h->largest);
    om_out_printf(o, "  supported as-is: %" PRIu64 " of %" PRIu64 " operators, %" PRIu64 " of %"
                  PRIu64 " instances\n", h->operators_full, h->operators, h->instances_full,
                  h->instances);
}

static void segments_lines(om_out *o, const opmap_result *r)
{
    opmap_segments t = { .size = sizeof(t) };
    size_t i, shown = 0;
    opmap_result_segments(r, &t);
    if (!t.npu_nodes && !t.breakers)
        return;
    om_out_printf(o, "  NPU segments: %" PRIu64 " (largest %" PRIu64 " of %" PRIu64
                  " NPU nodes), %" PRIu64 " device<->host transitions, %" PRIu64
                  " breaking nodes\n", t.segments, t.largest, t.npu_nodes, t.transitions,
                  t.breakers);
    for (i = 0; i < r->segments.breakers.len && shown < 5; i++, shown++) {
        const om_breaker *b = &OM_VEC_AT(&r->segments.breakers, om_breaker, i);
        om_out_str(o, "    breaks at ");
        om_out_term(o, b->node);
        om_out_str(o, " (");
        om_out_term(o, b->op);
        om_out_str(o, ": ");
        om_out_term(o, b->why);
        om_out_str(o, ")\n");
    }
    if (t.breakers > shown)
        om_out_printf(o, "    ... and %" PRIu64 " more (see --format json)\n", t.breakers - shown);
}

/* Model-level risks; the ones that restate an operator's flag are summarised as counts. */
static void risk_lines(om_out *o, const opmap_result *r)
{
    size_t i, shown = 0, hidden = 0, notes = 0;
    uint64_t per_flag[OPMAP_FLAG_COUNT] = { 0 };
    char note_kinds[128] = "";
    unsigned f;
    int any = 0;
    for (i = 0; i < r->risks.len; i++) {
        const om_risk *k = &OM_VEC_AT(&r->risks, om_risk, i);
        /* a flag restated is summarised below, except a data-dependent shape: the verdict
         * turns on it and its message says why the ONNX and ATen answers differ */
        if (k->from_flag && strcmp(k->kind, "dynamic_shape") != 0)
            continue;
        if (k->level != OPMAP_DIAG_WARNING &&
            (strcmp(k->kind, "eval_mode") == 0 || strcmp(k->kind, "workload") == 0)) {
            /* what the scan left out, said where it is read */
            om_out_printf(o, "  note (%s): ", k->kind);
            om_out_term(o, k->message);
            om_out_str(o, "\n");
            continue;
        }
        if (k->level != OPMAP_DIAG_WARNING) {
            if (notes < 4 && !strstr(note_kinds, k->kind)) {
                size_t used = strlen(note_kinds);
                om_appendf(note_kinds, sizeof(note_kinds), &used, "%s%s", used ? ", " : "",
                           k->kind);
            }
            notes++;
            continue;
        }
        if (shown == 8) {
            hidden++;
            continue;
        }
        om_out_str(o, "  risk (");
        om_out_str(o, k->kind);
        om_out_str(o, "): ");
        om_out_term(o, k->message);
        om_out_str(o, "\n");
        shown++;
    }
    if (hidden || r->risks_dropped)
        om_out_printf(o, "  ... and %llu more risks (see --format json)\n",
                      (unsigned long long)(hidden + r->risks_dropped));
    if (notes)
        om_out_printf(o, "  %zu informational note%s (%s; see --format json)\n", notes,
                      notes == 1 ? "" : "s", note_kinds);
    for (i = 0; i < r->n_ops; i++)
        for (f = 0; f < OPMAP_FLAG_COUNT; f++)
            per_flag[f] += (r->ops[i]->flags >> f) & 1u;
    for (f = 0; f < OPMAP_FLAG_COUNT; f++)
        if (per_flag[f]) {
            om_out_printf(o, "%s %s %llu", any ? "," : "  flagged operators:", opmap_flag_name(f),
                          (unsigned long long)per_flag[f]);
            any = 1;
        }
    if (any)
        om_out_str(o, "\n");
}

/* The source lines of an advice its first places did not show: every line appears. */
static void more_lines(om_out *o, const om_vadvice *x, size_t shown)
{
    size_t i, more = 0;
    for (i = 0; i < x->n_lines; i++) {
        if (om_view_line_shown(x, i, shown))
            continue;
        om_out_str(o, more++ ? ", " : "\n           source lines: ");
        om_out_term(o, x->lines[i]);
    }
}

/* A pattern a fused NPU kernel replaces (docs/patterns.md): where, with what, what it costs. */
static void fused_lines(om_out *o, const om_vadvice *x)
{
    const om_advice *a = x->a;
    char ex[64];
    size_t i, shown = a->n_places < OM_VIEW_ADVICE_PLACES ? a->n_places : OM_VIEW_ADVICE_PLACES;
    om_format_days(a->effort.expected, ex, sizeof(ex));
    om_out_str(o, "  advice, fused kernel (");
    om_out_term(o, a->id);
    om_out_str(o, "): ");
    om_out_term(o, a->message);
    om_out_printf(o, " [%llu place%s; %s grade; %s person-days]\n           use: ",
                  (unsigned long long)a->count, a->count == 1 ? "" : "s",
                  om_grade_name(a->grade), ex);
    om_out_term(o, a->action);
    om_out_str(o, "\n           how: ");
    om_out_term(o, a->value);
    if (a->atc[0]) {
        om_out_str(o, "\n           ATC: ");
        om_out_term(o, a->atc);
    }
    for (i = 0; i < shown; i++) {
        om_out_str(o, "\n           at ");
        om_out_term(o, a->places[i]);
        if (a->lines[i]) {
            om_out_str(o, " (");
            om_out_term(o, a->lines[i]);
            om_out_str(o, ")");
        }
    }
    if (a->count > shown)
        om_out_printf(o, "\n           ... and %llu more (see --format json)",
                      (unsigned long long)(a->count - shown));
    more_lines(o, x, shown);
    om_out_str(o, "\n");
}

/* Advice: what Ascend's engineers did for patterns this model has (not in the estimate). */
static void advice_lines(om_out *o, const om_vmodel *m)
{
    opmap_effort fused = { 0, 0, 0 };
    size_t i, n_fused = 0;
    for (i = 0; i < m->n_advice; i++) {
        const om_advice *a = m->advice[i].a;
        if (a->fused) {
            fused_lines(o, &m->advice[i]);
            fused.min += a->effort.min;
            fused.expected += a->effort.expected;
            fused.max += a->effort.max;
            n_fused++;
            continue;
        }
        om_out_str(o, a->custom_op ? "  advice, custom operator (" : a->optional
                      ? "  advice, optional (" : "  advice (");
        om_out_term(o, a->id);
        om_out_str(o, "): ");
        om_out_term(o, a->message);
        om_out_str(o, " [");
        om_out_term(o, a->value[0] ? a->value : a->where);
        if (a->count > 1)
            om_out_printf(o, "; %llu places", (unsigned long long)a->count);
        if (a->grade)
            om_out_printf(o, "; %s grade", om_grade_name(a->grade));
        om_out_str(o, "]\n           do: ");
        om_out_term(o, a->action);
        om_out_str(o, "\n");
    }
    if (n_fused) {
        char lo[64], ex[64], hi[64];
        om_format_days(fused.min, lo, sizeof(lo));
        om_format_days(fused.expected, ex, sizeof(ex));
        om_format_days(fused.max, hi, sizeof(hi));
        om_out_printf(o, "  fused kernels: %zu pattern%s to replace, %s person-days (range %s to %s;"
                      " not in the effort)\n", n_fused, n_fused == 1 ? "" : "s", ex, lo, hi);
    }
}

/* The next commands: ATC's per chip for an ONNX model, torch_npu's for the others. */
static void next_command_lines(om_out *o, const om_vmodel *m)
{
    size_t k;
    for (k = 0; k < m->n_next; k++) {
        const om_vcmd *c = &m->next[k];
        if (c->chip >= 0) {
            om_out_str(o, "  next (");
            om_out_term(o, m->r->chips[c->chip]);
            om_out_str(o, "): ");
        } else {
            om_out_str(o, k ? "            " : "  next (torch_npu): ");
        }
        om_out_term(o, c->text);
        om_out_str(o, "\n");
        if (c->notes[0]) {
            om_out_str(o, "           ");
            om_out_term(o, c->notes);
            om_out_str(o, "\n");
        }
    }
}

static void reason_lines(om_out *o, const opmap_result *r, const opmap_op *op)
{
    size_t i;
    for (i = 0; i < op->n_reasons && i < 4; i++) {
        const om_reason *x = &op->reasons[i];
        om_out_str(o, "             why: ");
        om_out_term(o, x->message);
        om_out_str(o, " [");
        om_out_term(o, x->actual);
        if (r->n_chips > 1 && x->chips != (1ull << r->n_chips) - 1) {
            size_t c, first = 1;
            om_out_str(o, "; on ");
            for (c = 0; c < r->n_chips; c++)
                if (x->chips & (1ull << c)) {
                    om_out_str(o, first ? "" : ", ");
                    om_out_term(o, r->chips[c]);
                    first = 0;
                }
        }
        om_out_printf(o, "; %llu instance%s", (unsigned long long)x->instances,
                      x->instances == 1 ? "" : "s");
        if (x->example && x->example[0]) {
            om_out_str(o, x->instances > 1 ? ", e.g. " : ": ");
            om_out_term(o, x->example);
        }
        if (x->grade)
            om_out_printf(o, "; %s grade", om_grade_name(x->grade));
        om_out_str(o, "]\n");
    }
    if (op->n_reasons > i)
        om_out_printf(o, "             ... %zu more reasons (see --format json)\n",
                      op->n_reasons - i);
}

/* The device results that matched the operator's instances (scan --results). */
static void verified_lines(om_out *o, const opmap_op *op)
{
    char line[1024];
    size_t i;
    for (i = 0; i < op->n_verified && i < 4; i++) {
        const om_verified *x = &op->verified[i];
        om_verify_result(x, line, sizeof(line));
        om_out_str(o, "             verified: ");
        om_out_term(o, line);
        om_out_printf(o, " [%llu instance%s", (unsigned long long)x->instances,
                      x->instances == 1 ? "" : "s");
        om_out_str(o, x->instances > 1 ? ", e.g. " : ": ");
        om_out_term(o, x->example);
        om_out_str(o, "]\n");
    }
    if (op->n_verified + op->verified_dropped > i)
        om_out_printf(o, "             ... %llu more results (see --format json)\n",
                      (unsigned long long)(op->n_verified + op->verified_dropped - i));
    if (op->verify_state == OPMAP_VERIFY_PARTLY) {
        om_out_printf(o, "             verified: %llu of %llu instances passed on every chip "
                      "scanned for; the others have no result\n",
                      (unsigned long long)op->verified_instances,
                      (unsigned long long)op->instances);
    }
}

/* "  verified: 1 operator passes on the device, ...", when device results matched. */
static void verified_count_line(om_out *o, const opmap_result *r)
{
    char counts[512];
    om_verify_counts_text(r, counts, sizeof(counts));
    if (counts[0]) {
        om_out_str(o, "  verified: ");
        om_out_term(o, counts);
        om_out_str(o, "\n");
    }
}

/* "  torch_npu: answered for 2.1; needs 2.7 or later (aten::x)": the version answered for
 * (--torch-npu) and the oldest line with a kernel for every operator; then the mode, when
 * it is graph. */
static void tnpu_line(om_out *o, const opmap_result *r)
{
    om_out_str(o, "  torch_npu: ");
    if (r->tnpu_target[0]) {
        om_out_str(o, "answered for ");
        om_out_term(o, r->tnpu_target);
        om_out_str(o, "; ");
    }
    if (r->tnpu_needed[0]) {
        om_out_str(o, "the model needs ");
        om_out_term(o, r->tnpu_needed);
        om_out_str(o, " or later (");
        om_out_term(o, r->tnpu_needed_by);
        om_out_str(o, ")\n");
    } else {
        om_out_str(o, "no minimum version (no operator's row gives a torch_npu range)\n");
    }
    if (r->mode == OPMAP_MODE_GRAPH)
        om_out_printf(o, "  mode: %s\n", om_report_graph_mode_text);
    if (r->workload == OPMAP_WORKLOAD_TRAINING)
        om_out_printf(o, "  workload: %s\n", om_report_training_text);
}

/* The portfolio's: the version answered for, the newest minimum and each model's. */
static void tnpu_portfolio(om_out *o, const om_report_in *in)
{
    const opmap_result *need = om_report_tnpu_needed(in);
    const char *target = om_report_tnpu_target(in);
    size_t i;
    om_out_str(o, "  torch_npu: ");
    if (target[0]) {
        om_out_str(o, "answered for ");
        om_out_term(o, target);
        om_out_str(o, "; ");
    }
    if (!need) {
        om_out_str(o, "no minimum version (no operator's row gives a torch_npu range)\n");
        return;
    }
    om_out_str(o, "the models need ");
    om_out_term(o, need->tnpu_needed);
    om_out_str(o, " or later (");
    om_out_term(o, need->tnpu_needed_by);
    om_out_str(o, " in ");
    om_out_term(o, need->model_name);
    om_out_str(o, "); per model:");
    for (i = 0; i < in->count; i++) {
        om_out_str(o, i ? ", " : " ");
        om_out_term(o, in->results[i]->model_name);
        om_out_str(o, " ");
        om_out_term(o, in->results[i]->tnpu_needed[0] ? in->results[i]->tnpu_needed : "-");
    }
    om_out_str(o, "\n");
}

/* One operator's row and the lines under it. */
static void op_row(om_out *o, const opmap_result *r, const om_vop *x, int colour)
{
    const opmap_op *op = x->op;
    char name[512];
    size_t len;
    om_out_str(o, "  ");
    op_status_cell(o, op, colour);
    om_out_str(o, " ");
    len = (size_t)snprintf(name, sizeof(name), "%s::%s", op->domain, op->name);
    om_out_term(o, name);
    for (; len < 40; len++)
        om_out_str(o, " ");
    if (op->opset)
        om_out_printf(o, " %6" PRId64 " %9" PRIu64 "  ", op->opset, op->instances);
    else /* TorchScript namespaces have no opset */
        om_out_printf(o, " %6s %9" PRIu64 "  ", "-", op->instances);
    if (r->n_chips > 1) {
        size_t c;
        for (c = 0; c < r->n_chips; c++) {
            char cell[32];
            snprintf(cell, sizeof(cell), "%s", op->chip_unknown[c]
                                                   ? "unpublished"
                                                   : opmap_op_status_name(op->chip_status[c]));
            om_out_printf(o, "%-13s ", cell);
        }
    }
    om_out_term(o, x->on_ascend);
    if (x->engine[0]) {
        om_out_str(o, " (");
        om_out_term(o, x->engine);
        om_out_str(o, ")");
    }
    om_out_str(o, "\n");
    if (op->exported_as[0]) {
        om_out_str(o, "             exported as: ");
        om_out_term(o, op->exported_as);
        om_out_str(o, "\n");
    }
    reason_lines(o, r, op);
    verified_lines(o, op);
    if (op->bw_status && op->bw_status[0]) {
        /* a training scan: what the gradient runs on the NPU */
        om_out_str(o, "             backward: ");
        om_out_str(o, op->bw_status);
        if (op->bw_ops[0]) {
            om_out_str(o, " (");
            om_out_term(o, op->bw_ops);
            om_out_str(o, ")");
        }
        om_out_str(o, "\n");
    }
    if (x->next_step) {
        om_out_str(o, "             hint: ");
        om_out_term(o, x->next_step);
        om_out_str(o, "\n");
    }
    if (op->source && op->sr_status != OM_SR_UNCHANGED) {
        source_places(o, op);
    } else if (op->status >= OPMAP_OP_PARTIAL && op->locations && op->locations[0]) {
        om_out_str(o, "             first at: ");
        om_out_term(o, op->locations[0]);
        om_out_str(o, "\n");
    }
}

static void model_block(om_out *o, const om_report_in *in, const om_vmodel *m, int colour)
{
    const opmap_result *r = m->r;
    const opmap_summary *s = &r->summary;
    size_t i;
    int st;

    headline_lines(o, &in->overall, "verdict: ", colour, in->view->sources_only,
                   in->view->reexport);
    om_out_term(o, r->model_name);
    om_out_printf(o, "  [%s", opmap_format_name(r->format));
    if (r->ir_version)
        om_out_printf(o, ", IR %" PRId64, r->ir_version);
    for (i = 0; i < r->n_opsets; i++) {
        om_out_str(o, i ? ", " : ", opsets ");
        om_out_term(o, r->opsets[i].domain);
        om_out_printf(o, " %" PRId64, r->opsets[i].version);
    }
    if (m->sources)
        om_out_printf(o, ", %" PRIu64 " files, %" PRIu64 " lines", r->src_files, r->src_lines);
    if (r->src_not_read)
        om_out_printf(o, ", %" PRIu64 " not scanned", r->src_not_read);
    if (r->producer_name[0]) {
        om_out_str(o, ", from ");
        om_out_term(o, r->producer_name);
        if (r->producer_version[0]) {
            om_out_str(o, " ");
            om_out_term(o, r->producer_version);
        }
    }
    om_out_str(o, "]\n");
    om_out_str(o, "  for ");
    for (i = 0; i < r->n_chips; i++) {
        om_out_str(o, i ? ", " : "");
        om_out_term(o, r->chips[i]);
        if (r->chip_info && r->chip_info[i].part) {
            om_out_str(o, " (");
            om_out_term(o, r->chip_info[i].part);
            om_out_str(o, ")");
        }
    }
    if (r->torch_npu[0]) {
        om_out_str(o, "; torch_npu ");
        om_out_term(o, r->torch_npu);
    }
    if (r->cann[0]) {
        om_out_str(o, "; CANN ");
        om_out_term(o, r->cann);
    }
    om_out_str(o, "\n");
    tnpu_line(o, r);
    if (m->sources)
        om_out_printf(o, "  %" PRIu64 " places in the code, %" PRIu64 " distinct patterns:",
                      s->instances_total, s->operators_total);
    else
        om_out_printf(o, "  %" PRIu64 " operator instances, %" PRIu64 " distinct operators:",
                      s->instances_total, s->operators_total);
    for (st = OPMAP_OP_STATUS_COUNT - 1; st >= 0; st--)
        om_out_printf(o, " %" PRIu64 " %s%s", s->operators[st], opmap_op_status_name(st),
                      st ? "," : "");
    om_out_str(o, "\n");
    effort_line(o, in, "effort:", s->effort_total);
    if (r->unpublished_ops) {
        char lo[64], ex[64], hi[64];
        om_format_days(r->unpublished_effort.min, lo, sizeof(lo));
        om_format_days(r->unpublished_effort.expected, ex, sizeof(ex));
        om_format_days(r->unpublished_effort.max, hi, sizeof(hi));
        om_out_printf(o, "  unpublished: %" PRIu64 " operator%s without a published answer for a "
                      "chip scanned for (verifying: %s person-days, range %s to %s; not in the "
                      "effort)\n", r->unpublished_ops, r->unpublished_ops == 1 ? "" : "s", ex, lo,
                      hi);
    }
    verified_count_line(o, r);
    segments_lines(o, r);
    if (r->n_ext)
        om_out_printf(o, "  external data: %zu tensors in side files (not opened)\n", r->n_ext);
    for (i = 0; i < r->diags.len; i++) {
        const om_diag *d = &OM_VEC_AT(&r->diags, om_diag, i);
        om_out_str(o, "  warning: ");
        om_out_term(o, d->message);
        om_out_str(o, " at ");
        om_out_term(o, d->where);
        om_out_str(o, "\n");
    }
    risk_lines(o, r);
    advice_lines(o, m);
    next_command_lines(o, m);
    if (!r->n_ops) {
        om_out_str(o, "  (no operators)\n\n");
        return;
    }
    if (m->sources)
        om_out_printf(o, "\n  %-10s %-40s %6s %9s  ", "STATUS", "PATTERN", "", "PLACES");
    else
        om_out_printf(o, "\n  %-10s %-40s %6s %9s  ", "STATUS", "OPERATOR", "OPSET", "INSTANCES");
    if (r->n_chips > 1)
        for (i = 0; i < r->n_chips; i++)
            om_out_printf(o, "%-13.13s ", r->chips[i]);
    om_out_str(o, "ON ASCEND\n");
    for (i = 0; i < r->n_ops; i++)
        op_row(o, r, &m->ops[i], colour);
    om_out_str(o, "\n");
}

/* What a portfolio's table does not say of one model: the re-export its opset calls for,
 * its advice, its next commands, and each operator that needs work with why and what to do
 * (a source finding with its places); nothing for a model with none of them. */
static void model_details(om_out *o, const om_vmodel *m, int colour)
{
    const opmap_result *r = m->r;
    size_t i, work = 0;
    for (i = 0; i < r->n_ops; i++)
        work += r->ops[i]->status >= OPMAP_OP_PARTIAL;
    if (!m->reexport && !m->n_advice && !m->n_next && !work)
        return;
    om_out_str(o, "\n");
    om_out_term(o, r->model_name);
    om_out_printf(o, ": %s\n", om_readiness_label(m->headline->readiness));
    if (m->reexport) {
        om_out_str(o, "  first: ");
        om_out_term(o, m->reexport);
        om_out_str(o, "\n");
    }
    advice_lines(o, m);
    next_command_lines(o, m);
    for (i = 0; i < r->n_ops; i++)
        if (r->ops[i]->status >= OPMAP_OP_PARTIAL)
            op_row(o, r, &m->ops[i], colour);
}

/* The training code's part of the shared estimate (its patterns, each fixed once), when
 * Python sources were scanned with the models. */
static void source_share(om_out *o, const om_report_in *in)
{
    opmap_effort e;
    size_t n = om_source_share(in->portfolio, &e);
    char label[96];
    if (!n)
        return;
    snprintf(label, sizeof(label), "of which training code (%zu pattern%s in Python sources):", n,
             n == 1 ? "" : "s");
    effort_line(o, in, label, e);
}

/* Several models: one line each, then the portfolio (shared operators adapted once). */
static void portfolio_block(om_out *o, const om_report_in *in, int colour)
{
    const om_portfolio *p = in->portfolio;
    const opmap_summary *s = &p->summary;
    char ex[32], cov[16];
    size_t i;
    int st;

    headline_lines(o, &in->overall, "overall verdict: ", colour, in->view->sources_only,
                   in->view->reexport);
    om_out_str(o, "\n");
    om_out_printf(o, "%-52s %5s %8s %7s %7s  %-10s %-8s %s\n", "MODEL", "OPS", "UNMAPPED",
                  "REWRITE", "PARTIAL", "VERDICT", "COVERAGE", "EFFORT (person-days)");
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        const char *name = r->model_name;
        size_t len = strlen(name);
        if (len > 52) {            /* keep the end of long paths: it names the model */
            om_out_str(o, "...");
            name += len - 49;
        }
        om_out_term(o, name);
        for (; len < 52; len++)
            om_out_str(o, " ");
        om_format_days(r->summary.effort_total.expected, ex, sizeof(ex));
        snprintf(cov, sizeof(cov), "%s", in->view->models[i].coverage);
        om_out_printf(o, " %5" PRIu64 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64 "  %-10s %-8s %s\n",
                      r->summary.operators_total, r->summary.operators[OPMAP_OP_UNMAPPED],
                      r->summary.operators[OPMAP_OP_REWRITE], r->summary.operators[OPMAP_OP_PARTIAL],
                      om_readiness_label(in->headlines[i].readiness), cov, ex);
    }
    om_out_printf(o, "\n%zu models, %" PRIu64 " operator instances, %" PRIu64
                  " distinct operators in all:", in->count, s->instances_total, s->operators_total);
    for (st = OPMAP_OP_STATUS_COUNT - 1; st >= 0; st--)
        om_out_printf(o, " %" PRIu64 " %s%s", s->operators[st], opmap_op_status_name(st),
                      st ? "," : "");
    om_out_str(o, "\n");
    effort_line(o, in, "effort, each shared operator adapted once:", s->effort_total);
    effort_line(o, in, "effort, models added up separately:", p->separately);
    source_share(o, in);
    tnpu_portfolio(o, in);
    if (om_report_mode(in) == OPMAP_MODE_GRAPH)
        om_out_printf(o, "  mode: %s\n", om_report_graph_mode_text);
    if (om_report_workload(in) == OPMAP_WORKLOAD_TRAINING)
        om_out_printf(o, "  workload: %s\n", om_report_training_text);
    om_out_printf(o, "\n  %-10s %-40s %6s %9s  %s\n", "STATUS", "OPERATOR", "MODELS", "INSTANCES",
                  "ON ASCEND");
    for (i = 0; i < p->n; i++) {
        const om_port_op *op = &p->ops[i];
        const om_vport_op *x = &in->view->port_ops[i];
        char name[512];
        size_t len;
        om_out_str(o, "  ");
        status_cell(o, op->status, colour);
        om_out_str(o, " ");
        len = (size_t)snprintf(name, sizeof(name), "%s::%s", op->domain, op->name);
        om_out_term(o, name);
        for (; len < 40; len++)
            om_out_str(o, " ");
        om_out_printf(o, " %6" PRIu32 " %9" PRIu64 "  ", op->models, op->instances);
        om_out_term(o, x->on_ascend);
        if (x->engine[0]) {
            om_out_str(o, " (");
            om_out_term(o, x->engine);
            om_out_str(o, ")");
        }
        om_out_str(o, "\n");
    }
    for (i = 0; i < in->count; i++)
        model_details(o, &in->view->models[i], colour);
}

/* Files the scan did not read, after the models: a report never looks complete when it
 * is not. */
static void problem_block(om_out *o, const om_report_in *in, int colour)
{
    size_t i;
    char msg[1200];
    if (!in->n_problems)
        return;
    if (in->count)
        om_out_str(o, "\n");
    if (in->n_unreadable)
        om_out_printf(o, "%sincomplete: %zu file%s could not be read%s\n",
                      colour ? "\033[31m" : "", in->n_unreadable,
                      in->n_unreadable == 1 ? "" : "s", colour ? C_RESET : "");
    else if (!in->count)
        om_out_printf(o, "%sno model found:%s every file found was skipped\n",
                      colour ? "\033[31m" : "", colour ? C_RESET : "");
    else
        om_out_printf(o, "skipped: %zu file%s, not models opmap reads\n", in->n_problems,
                      in->n_problems == 1 ? "" : "s");
    for (i = 0; i < in->n_problems; i++) {
        const opmap_file_problem *p = &in->problems[i];
        om_problem_message(p, msg, sizeof(msg));
        om_out_str(o, p->skipped ? "  skipped     " : "  unreadable  ");
        om_out_term(o, p->file ? p->file : "");
        om_out_str(o, ": ");
        om_out_term(o, msg);
        om_out_str(o, "\n");
    }
}

int om_report_text(const om_report_in *in, om_out *out)
{
    int colour = (in->flags & OPMAP_REPORT_COLOR) != 0;
    if (!in->count) /* no model, only files not read */
        headline_lines(out, &in->overall, "verdict: ", colour, 0, NULL);
    if (in->count == 1)
        model_block(out, in, &in->view->models[0], colour);
    else if (in->count > 1)
        portfolio_block(out, in, colour);
    problem_block(out, in, colour);
    return OPMAP_OK;
}
