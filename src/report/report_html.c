/*
 * report/report_html.c - one self-contained HTML page: summary cards, a status chart and
 * an effort-by-operator chart (inline SVG), a sortable, filterable operator table with
 * reasons, flags, hints and node paths, the portfolio when several models were scanned,
 * the gate's findings, and the ATC command line for each ONNX model.
 *
 * Nothing is loaded from anywhere: styles and the small script are inline, and a
 * Content-Security-Policy forbids every other source. Every model string is HTML-escaped
 * (escape.c); the script only sorts and filters rows already in the page.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan/result_internal.h"
#include "table/table_internal.h"
#include "escape.h"
#include "report_internal.h"
#include "verified.h"
#include "torch_npu_need.h"

static const char *const status_colour[OPMAP_OP_STATUS_COUNT] = {
    "#9e9e9e", "#2e7d32", "#ef6c00", "#c62828", "#6a1b9a"
};

static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1b1b1b;"
    "background:#f6f7f9}header,section,footer{max-width:1280px;margin:0 auto;padding:12px 24px}"
    "header{background:#1f2937;color:#fff;max-width:none}header h1{margin:0;font-size:22px}"
    ".sub{color:#cbd5e1;margin:4px 0 0}h2{font-size:17px;margin:18px 0 8px}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px}.card{background:#fff;border-radius:8px;"
    "padding:12px 16px;min-width:150px;box-shadow:0 1px 3px rgba(0,0,0,.12)}"
    ".card .v{font-size:22px;font-weight:600}.card .k{color:#555;font-size:12px;"
    "text-transform:uppercase;letter-spacing:.04em}.pass{color:#2e7d32}.fail{color:#c62828}"
    ".charts{display:flex;flex-wrap:wrap;gap:16px}figure{background:#fff;border-radius:8px;"
    "margin:0;padding:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}figcaption{font-weight:600;"
    "margin-bottom:6px}table{border-collapse:collapse;width:100%;background:#fff}"
    "th,td{border-bottom:1px solid #e5e7eb;padding:5px 8px;text-align:left;vertical-align:top}"
    "th{background:#eef1f5;position:sticky;top:0}th[data-sort]{cursor:pointer}"
    "th[data-sort]:after{content:' \\2195';color:#999}td.n{text-align:right}"
    ".st{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-size:12px}"
    "code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}"
    "pre{background:#0f172a;color:#e2e8f0;padding:10px;border-radius:6px;overflow-x:auto;"
    "white-space:pre-wrap;word-break:break-all}.controls{margin:8px 0;display:flex;gap:8px}"
    ".controls input{flex:1;padding:6px}details summary{cursor:pointer;color:#1d4ed8}"
    "ul{margin:4px 0;padding-left:18px}.muted{color:#666}.flag{background:#fde68a;"
    "border-radius:3px;padding:0 4px;margin-right:3px;font-size:12px}.wide{overflow-x:auto}"
    "th.chip{font-size:11px;font-weight:500}td.d{min-width:220px;max-width:560px}"
    /* Only the columns holding identifiers and node paths (operator, what it becomes,
     * details) may break anywhere, so that a long one never widens the page; the words
     * elsewhere (the chip cells' "unpublished", badges, numbers) never break inside. */
    "#ops td{overflow-wrap:normal;word-break:normal}#ops td.op,#ops td.asc,#ops td.d{"
    "overflow-wrap:anywhere}#ops .st,#ops .flag,#ops td.n,#ops td.chip{overflow-wrap:normal;"
    "white-space:nowrap}#ops td.chip{font-size:12px}td.op{min-width:170px}"
    ".st{white-space:nowrap}" /* a status or verdict badge is one word, in every table */
    ".headline{display:flex;flex-wrap:wrap;align-items:center;gap:14px 28px;background:#fff;"
    "border-radius:8px;margin-top:14px;box-shadow:0 1px 3px rgba(0,0,0,.12)}.verdict{"
    "font-size:24px;font-weight:700;color:#fff;border-radius:8px;padding:6px 16px}"
    ".v-ready{background:#2e7d32}.v-work{background:#ef6c00}.v-blocked{background:#c62828}"
    ".hl .big{font-size:22px;font-weight:600}.hl .k{color:#555;font-size:12px}";

/* Sorting by the cell's data-v (or text), filtering by text and status. */
static const char script[] =
    "(function(){var t=document.getElementById('ops');if(!t)return;var b=t.tBodies[0];"
    "var f=document.getElementById('filter'),s=document.getElementById('status');"
    "function apply(){var q=f.value.toLowerCase(),st=s.value;for(var i=0;i<b.rows.length;i++)"
    "{var r=b.rows[i];r.hidden=!((!q||r.textContent.toLowerCase().indexOf(q)>=0)&&"
    "(!st||r.getAttribute('data-status')===st));}}f.addEventListener('input',apply);"
    "s.addEventListener('change',apply);var h=t.tHead.rows[0].cells;"
    "Array.prototype.forEach.call(h,function(th,i){var kind=th.getAttribute('data-sort');"
    "if(!kind)return;th.addEventListener('click',function(){var up=th.getAttribute('data-dir')"
    "!=='asc';th.setAttribute('data-dir',up?'asc':'desc');var rows=Array.prototype.slice."
    "call(b.rows);rows.sort(function(x,y){var a=x.cells[i].getAttribute('data-v')||x.cells[i]"
    ".textContent,c=y.cells[i].getAttribute('data-v')||y.cells[i].textContent;var d=kind==="
    "'num'?parseFloat(a)-parseFloat(c):a.localeCompare(c);return up?d:-d;});rows.forEach("
    "function(r){b.appendChild(r);});});});})();";

static void days(om_out *o, uint64_t milli)
{
    char buf[32];
    om_format_days(milli, buf, sizeof(buf));
    om_out_str(o, buf);
}

static void status_badge(om_out *o, int status)
{
    om_out_printf(o, "<span class=\"st\" style=\"background:%s\">%s</span>",
                  status_colour[status], opmap_op_status_name(status));
}

static void card(om_out *o, const char *key, const char *value, const char *cls)
{
    om_out_printf(o, "<div class=\"card\"><div class=\"k\">%s</div><div class=\"v%s%s\">", key,
                  cls ? " " : "", cls ? cls : "");
    om_out_html(o, value);
    om_out_str(o, "</div></div>");
}

static void cards(om_out *o, const om_report_in *in)
{
    const opmap_summary *s = &in->portfolio->summary;
    char buf[160], lo[32], ex[32], hi[32];
    int st;
    snprintf(buf, sizeof(buf), "%zu", in->count);
    card(o, "Models", buf, NULL);
    snprintf(buf, sizeof(buf), "%" PRIu64, s->operators_total);
    card(o, "Distinct operators", buf, NULL);
    snprintf(buf, sizeof(buf), "%" PRIu64, s->instances_total);
    card(o, "Operator instances", buf, NULL);
    om_format_days(s->effort_total.min, lo, sizeof(lo));
    om_format_days(s->effort_total.expected, ex, sizeof(ex));
    om_format_days(s->effort_total.max, hi, sizeof(hi));
    snprintf(buf, sizeof(buf), "%s d (%s to %s)", ex, lo, hi);
    card(o, "Effort, person-days", buf, NULL);
    if (in->day_rate > 0) {
        char amount[64];
        om_format_amount(om_cost(in, s->effort_total.expected), amount, sizeof(amount));
        snprintf(buf, sizeof(buf), "%s %s", amount, in->currency);
        card(o, "Cost", buf, NULL);
    }
    om_format_days(in->view->unpublished_effort.min, lo, sizeof(lo));
    om_format_days(in->view->unpublished_effort.expected, ex, sizeof(ex));
    om_format_days(in->view->unpublished_effort.max, hi, sizeof(hi));
    snprintf(buf, sizeof(buf), "%" PRIu64 " (verifying %s d, %s to %s; not in the effort)",
             in->view->unpublished_ops, ex, lo, hi);
    card(o, "Unpublished chip answers", buf, NULL);
    card(o, "CI gate", opmap_verdict_incomplete(in->verdict) ? "FAIL (incomplete)"
                       : opmap_verdict_passed(in->verdict) ? "PASS" : "FAIL",
         opmap_verdict_passed(in->verdict) ? "pass" : "fail");
    if (in->n_problems) {
        snprintf(buf, sizeof(buf), "%zu could not be read, %zu skipped", in->n_unreadable,
                 in->n_problems - in->n_unreadable);
        card(o, "Files not read", buf, in->n_unreadable ? "fail" : NULL);
    }
    for (st = OPMAP_OP_STATUS_COUNT - 1; st >= 0; st--) {
        snprintf(buf, sizeof(buf), "%" PRIu64, s->operators[st]);
        card(o, opmap_op_status_name(st), buf, NULL);
    }
}

/* The headline first (docs/reports.md): the verdict, the coverage, what runs as-is. */
static void headline_section(om_out *o, const om_report_in *in)
{
    const opmap_headline *h = &in->overall;
    char cov[16], share[16], kinds[400];
    om_format_permille(h->coverage, cov, sizeof(cov));
    om_format_permille(h->largest_share, share, sizeof(share));
    om_kind_list(h->blocking ? h->blocking : h->needing_work, kinds, sizeof(kinds));
    /* several models: the worst of them and of the files not read, not each one's */
    om_out_printf(o, "<section class=\"headline\" id=\"headline\"><div class=\"verdict %s\" "
                  "data-verdict=\"%s\">%s%s</div>",
                  h->readiness == OPMAP_BLOCKED ? "v-blocked"
                  : h->readiness == OPMAP_NEEDS_WORK ? "v-work" : "v-ready",
                  opmap_readiness_name(h->readiness), in->count > 1 ? "Overall: " : "",
                  om_readiness_label(h->readiness));
    if (in->view->reexport[0]) { /* before any figure: nothing else holds until it is done */
        om_out_str(o, "<div class=\"hl\" id=\"reexport\"><div class=\"big\">first</div><div>");
        om_out_html(o, in->view->reexport);
        om_out_str(o, "</div></div>");
    }
    if (!h->models) { /* no model read: no figure describes anything (the files follow) */
        om_out_str(o, "<div class=\"hl\"><div class=\"k\">no model read</div></div>");
        if (kinds[0])
            om_out_printf(o, "<div class=\"hl\"><div class=\"k\">because of</div><div>%s</div>"
                          "</div>", kinds);
        om_out_str(o, "</section>");
        return;
    }
    om_out_printf(o, "<div class=\"hl\"><div class=\"big\" id=\"coverage\">%s</div><div "
                  "class=\"k\">of the placed instances on the NPU (%" PRIu64 " of %" PRIu64
                  ")</div></div>", cov, h->on_npu, h->placed);
    om_out_printf(o, "<div class=\"hl\"><div class=\"big\">%s</div><div class=\"k\">of them "
                  "in the largest NPU segment (%" PRIu64 ")</div></div>", share, h->largest);
    om_out_printf(o, "<div class=\"hl\"><div class=\"big\">%" PRIu64 " of %" PRIu64 "</div>"
                  "<div class=\"k\">operators supported as-is (%" PRIu64 " of %" PRIu64
                  " instances)</div></div>", h->operators_full, h->operators, h->instances_full,
                  h->instances);
    if (kinds[0])
        om_out_printf(o, "<div class=\"hl\"><div class=\"k\">because of</div><div>%s</div>"
                      "</div>", kinds);
    om_out_str(o, "</section>");
}

/* A stacked bar of distinct operators per status, with a legend. */
static void status_chart(om_out *o, const opmap_summary *s)
{
    const int w = 460, bar = 28;
    uint64_t total = s->operators_total ? s->operators_total : 1;
    int st, x = 0, ly = 48;
    om_out_printf(o, "<figure><figcaption>Distinct operators by status</figcaption>"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                     "role=\"img\" aria-label=\"operators by status\">", w, 48 + 22 * 5);
    for (st = OPMAP_OP_STATUS_COUNT - 1; st >= 0; st--) {
        int width = (int)((uint64_t)w * s->operators[st] / total);
        if (width)
            om_out_printf(o, "<rect x=\"%d\" y=\"8\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                          x, width, bar, status_colour[st]);
        x += width;
    }
    for (st = OPMAP_OP_STATUS_COUNT - 1; st >= 0; st--, ly += 22)
        om_out_printf(o, "<rect x=\"0\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                         "<text x=\"20\" y=\"%d\" font-size=\"13\">%s: %" PRIu64
                         " operators, %" PRIu64 " instances</text>", ly, status_colour[st],
                      ly + 12, opmap_op_status_name(st), s->operators[st], s->instances[st]);
    om_out_str(o, "</svg></figure>");
}

/* One labelled horizontal bar per entry, scaled to the largest (expected person-days). */
typedef struct bar {
    const char *label;
    uint64_t days;
    int status;
} bar;

static void bar_chart(om_out *o, const char *caption, const bar *bars, size_t n)
{
    size_t i;
    uint64_t top = 1;
    const int w = 600, label = 300, row = 20;
    for (i = 0; i < n; i++)
        if (bars[i].days > top)
            top = bars[i].days;
    om_out_str(o, "<figure class=\"effort\"><figcaption>");
    om_out_str(o, caption);
    om_out_printf(o, "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                     "height=\"%d\" role=\"img\">", w, (int)n * row + 10);
    for (i = 0; i < n; i++) {
        int y = (int)i * row + 4;
        int len = (int)((uint64_t)(w - label - 50) * bars[i].days / top);
        char text[48];
        size_t k = strlen(bars[i].label);
        om_out_printf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">",
                      label - 6, y + 13);
        if (k > 42) { /* the whole of it is in the bar's title */
            snprintf(text, sizeof(text), "%.39s...", bars[i].label);
            om_out_xml(o, text);
        } else {
            om_out_xml(o, bars[i].label);
        }
        om_out_printf(o, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" "
                         "height=\"14\" fill=\"%s\"><title>", label, y + 2, len > 0 ? len : 1,
                      status_colour[bars[i].status]);
        om_out_xml(o, bars[i].label);
        om_out_printf(o, "</title></rect><text x=\"%d\" y=\"%d\" font-size=\"12\">",
                      label + len + 4, y + 13);
        days(o, bars[i].days);
        om_out_str(o, "</text>");
    }
    om_out_str(o, "</svg></figure>");
}

/* Where the days go by status: each status's share of the estimate. */
static void effort_status_chart(om_out *o, const opmap_summary *s)
{
    bar bars[OPMAP_OP_STATUS_COUNT];
    size_t n = 0;
    int st;
    for (st = OPMAP_OP_STATUS_COUNT - 1; st > OPMAP_OP_STRUCTURAL; st--)
        if (s->effort[st].expected) {
            bars[n].label = opmap_op_status_name(st);
            bars[n].days = s->effort[st].expected;
            bars[n++].status = st;
        }
    bar_chart(o, "Where the days go: by status (person-days)", bars, n);
}

/* Why an operator costs what it does, in a phrase shared by the operators it applies to:
 * its first reason that leads to its status, else what its status means. */
static const char *why_label(const om_report_in *in, const om_port_op *p)
{
    size_t k, j, x;
    for (k = 0; k < in->count; k++) {
        const opmap_result *r = in->results[k];
        for (j = 0; j < r->n_ops; j++) {
            const opmap_op *op = r->ops[j];
            if (op->status != p->status || !op->n_reasons || strcmp(op->name, p->name) != 0 ||
                strcmp(op->domain, p->domain) != 0)
                continue;
            for (x = 0; x < op->n_reasons; x++)
                if (op->reasons[x].status == op->status)
                    return op->reasons[x].message;
        }
    }
    switch (p->status) {
    case OPMAP_OP_UNMAPPED: return "no row in the table";
    case OPMAP_OP_REWRITE: return "no Ascend implementation";
    case OPMAP_OP_PARTIAL: return "runs with the limits its row lists";
    default: return "supported as-is: verification";
    }
}

#define OM_REASON_BARS 12

/* Where the days go by reason: operators grouped by why they cost (the costliest groups,
 * the rest as "other"). */
static void effort_reason_chart(om_out *o, const om_report_in *in)
{
    const om_portfolio *p = in->portfolio;
    bar groups[64], other = { "other reasons", 0, OPMAP_OP_STRUCTURAL };
    size_t i, k, n = 0;
    for (i = 0; i < p->n; i++) {
        const om_port_op *op = &p->ops[i];
        const char *why;
        if (op->status == OPMAP_OP_STRUCTURAL || !op->effort.expected)
            continue;
        why = why_label(in, op);
        for (k = 0; k < n && strcmp(groups[k].label, why) != 0; k++)
            ;
        if (k == n && n == sizeof(groups) / sizeof(groups[0])) {
            other.days += op->effort.expected;
            continue;
        }
        if (k == n) {
            groups[n].label = why;
            groups[n].days = 0;
            groups[n++].status = op->status;
        }
        groups[k].days += op->effort.expected;
        if (op->status > groups[k].status)
            groups[k].status = op->status;
    }
    for (i = 1; i < n; i++) { /* costliest first; ties keep the table's order */
        bar b = groups[i];
        for (k = i; k > 0 && groups[k - 1].days < b.days; k--)
            groups[k] = groups[k - 1];
        groups[k] = b;
    }
    if (n > OM_REASON_BARS) { /* (operators past 64 groups are in `other` already) */
        for (i = OM_REASON_BARS - 1; i < n; i++)
            other.days += groups[i].days;
        n = OM_REASON_BARS - 1;
        groups[n++] = other;
    }
    bar_chart(o, "Where the days go: by reason (person-days)", groups, n);
}

static void flag_spans(om_out *o, unsigned flags)
{
    unsigned i;
    for (i = 0; i < OPMAP_FLAG_COUNT; i++)
        if (flags & (1u << i))
            om_out_printf(o, "<span class=\"flag\">%s</span>", opmap_flag_name(i));
}

/* A badge for an operator with device results (scan --results): green for a pass, red for
 * a failure, blue for part of its instances; its title says where and with what. Inline
 * colours, so a page without results keeps its style sheet. */
static void verify_span(om_out *o, const opmap_op *op)
{
    static const char *const colour[] = { "", "#dbeafe", "#bbf7d0", "#fecaca" };
    static const char *const word[] = { "", "partly verified", "verified", "failed on NPU" };
    char summary[1024];
    if (op->verify_state == OPMAP_VERIFY_NONE || op->verify_state > OPMAP_VERIFY_FAIL)
        return;
    om_verify_summary(op, summary, sizeof(summary));
    om_out_printf(o, "<span class=\"flag\" style=\"background:%s\" title=\"",
                  colour[op->verify_state]);
    om_out_html(o, summary);
    om_out_printf(o, "\">%s</span>", word[op->verify_state]);
}

/* The device results of an operator, in its details. */
static void verified_list(om_out *o, const opmap_op *op)
{
    char line[1024];
    size_t i;
    if (!op->n_verified)
        return;
    om_out_str(o, "<div><b>On the device:</b> ");
    om_verify_summary(op, line, sizeof(line));
    om_out_html(o, line);
    om_out_str(o, "<ul>");
    for (i = 0; i < op->n_verified; i++) {
        const om_verified *x = &op->verified[i];
        om_verify_result(x, line, sizeof(line));
        om_out_str(o, "<li>");
        om_out_html(o, line);
        om_out_str(o, " <code>");
        om_out_html(o, x->signature);
        om_out_printf(o, "</code> <span class=\"muted\">(%llu&times;, e.g. ",
                      (unsigned long long)x->instances);
        om_out_html(o, x->example);
        om_out_str(o, "; ");
        om_out_html(o, x->source);
        om_out_str(o, ")</span></li>");
    }
    if (op->verified_dropped)
        om_out_printf(o, "<li class=\"muted\">... %llu more (see the JSON report)</li>",
                      (unsigned long long)op->verified_dropped);
    om_out_str(o, "</ul></div>");
}

/* The details of one operator in one model: reasons, hint, notes, node paths. */
static void op_details(om_out *o, const opmap_result *r, const om_vop *vop, int with_model)
{
    const opmap_op *op = vop->op;
    size_t i;
    if (with_model) {
        om_out_str(o, "<div><b>");
        om_out_html(o, r->model_name);
        om_out_str(o, "</b>: ");
        status_badge(o, op->status);
        om_out_printf(o, " opset %" PRId64 ", %" PRIu64 " instances</div>", op->opset,
                      op->instances);
    }
    if (op->n_reasons) {
        om_out_str(o, "<ul>");
        for (i = 0; i < op->n_reasons; i++) {
            const om_reason *x = &op->reasons[i];
            om_out_str(o, "<li>");
            om_out_html(o, x->message);
            om_out_str(o, " <code>");
            om_out_html(o, x->actual);
            om_out_printf(o, "</code> <span class=\"muted\">(%" PRIu64 "&times;, e.g. ",
                          x->instances);
            om_out_html(o, x->example);
            if (x->grade) {
                om_out_printf(o, "; %s grade: ", om_grade_name(x->grade));
                om_out_html(o, x->sources[0] ? x->sources : "no source");
            }
            om_out_str(o, ")</span></li>");
        }
        om_out_str(o, "</ul>");
    }
    verified_list(o, op);
    if (op->bw_status && op->bw_status[0]) { /* a training scan: what the gradient runs */
        om_out_str(o, "<div><b>Backward:</b> ");
        om_out_html(o, op->bw_status);
        if (op->bw_ops[0]) {
            om_out_str(o, " (");
            om_out_html(o, op->bw_ops);
            om_out_str(o, ")");
        }
        om_out_str(o, "</div>");
    }
    if (vop->next_step ? vop->next_step[0] : op->hint[0]) {
        om_out_str(o, "<div><b>Next step:</b> ");
        om_out_html(o, vop->next_step ? vop->next_step : op->hint);
        om_out_str(o, "</div>");
    }
    if (op->notes[0]) {
        om_out_str(o, "<div class=\"muted\">");
        om_out_html(o, op->notes);
        om_out_str(o, "</div>");
    }
    if (op->n_sources) {
        om_out_str(o, "<div class=\"muted\">sources: ");
        for (i = 0; i < op->n_sources; i++) {
            om_out_str(o, i ? ", " : "");
            om_out_html(o, op->sources[i]);
        }
        om_out_str(o, "</div>");
    }
    om_out_str(o, "<div>nodes:<ul>");
    for (i = 0; i < op->n_paths && i < OM_VIEW_HTML_PLACES; i++) {
        om_out_str(o, "<li><code>");
        om_out_html(o, op->paths[i]);
        om_out_str(o, "</code>");
        if (op->locations && op->locations[i]) {
            om_out_str(o, " <span class=\"muted\">");
            om_out_html(o, op->locations[i]);
            om_out_str(o, "</span>");
        }
        om_out_str(o, "</li>");
    }
    if (op->n_paths > OM_VIEW_HTML_PLACES)
        om_out_printf(o, "<li class=\"muted\">... %zu more (see the JSON report)</li>",
                      op->n_paths - OM_VIEW_HTML_PLACES);
    om_out_str(o, "</ul></div>");
}

static void table_head(om_out *o, const om_report_in *in)
{
    const opmap_result *r0 = in->results[0];
    size_t c;
    om_out_str(o, "<h2 id=\"operators\">Operators</h2><div class=\"controls\">"
                  "<input id=\"filter\" type=\"search\" placeholder=\"Filter operators, "
                  "reasons, nodes\" aria-label=\"filter\"><select id=\"status\" "
                  "aria-label=\"status\"><option value=\"\">every status</option>");
    for (c = OPMAP_OP_STATUS_COUNT; c-- > 0;)
        om_out_printf(o, "<option value=\"%s\">%s</option>", opmap_op_status_name((int)c),
                      opmap_op_status_name((int)c));
    om_out_str(o, "</select></div><div class=\"wide\"><table id=\"ops\"><thead><tr>"
                  "<th data-sort=\"num\">Status</th><th data-sort=\"text\">Operator</th>");
    if (in->count > 1)
        om_out_str(o, "<th data-sort=\"num\">Models</th>");
    else
        om_out_str(o, "<th data-sort=\"num\">Opset</th>");
    om_out_str(o, "<th data-sort=\"num\">Instances</th>");
    if (r0->n_chips > 1)
        for (c = 0; c < r0->n_chips; c++) {
            om_out_str(o, "<th class=\"chip\">");
            om_out_html(o, r0->chips[c]);
            om_out_str(o, "</th>");
        }
    om_out_str(o, "<th data-sort=\"num\">Effort (d)</th><th>On Ascend</th><th>Details</th>"
                  "</tr></thead><tbody>");
}

static void ascend_cell(om_out *o, const char *op, const char *engine, int status)
{
    om_out_str(o, "<td class=\"asc\">");
    if (op && op[0])
        om_out_html(o, op);
    else
        om_out_str(o, status == OPMAP_OP_UNMAPPED ? "<span class=\"muted\">no row</span>" : "-");
    if (engine && engine[0]) {
        om_out_str(o, " <span class=\"muted\">(");
        om_out_html(o, engine);
        om_out_str(o, ")</span>");
    }
    om_out_str(o, "</td>");
}

static void single_model_rows(om_out *o, const om_vmodel *m)
{
    const opmap_result *r = m->r;
    size_t i, c;
    for (i = 0; i < r->n_ops; i++) {
        const opmap_op *op = r->ops[i];
        om_out_printf(o, "<tr data-status=\"%s\"><td data-v=\"%d\">",
                      opmap_op_status_name(op->status), op->status);
        status_badge(o, op->status);
        om_out_str(o, "</td><td class=\"op\"><code>");
        om_out_html(o, op->domain);
        om_out_str(o, "::");
        om_out_html(o, op->name);
        om_out_str(o, "</code> ");
        flag_spans(o, op->flags);
        verify_span(o, op);
        if (op->opset)
            om_out_printf(o, "</td><td class=\"n\">%" PRId64 "</td>", op->opset);
        else
            om_out_str(o, "</td><td class=\"n\" data-v=\"0\">-</td>");
        om_out_printf(o, "<td class=\"n\">%" PRIu64 "</td>", op->instances);
        if (r->n_chips > 1)
            for (c = 0; c < r->n_chips; c++) {
                om_out_str(o, "<td class=\"chip\">");
                if (op->chip_unknown[c])
                    om_out_str(o, "<span class=\"muted\" title=\"nobody has published an answer "
                                  "for this chip: counted apart, not estimated\">unpublished</span>");
                else
                    status_badge(o, op->chip_status[c]);
                om_out_str(o, "</td>");
            }
        om_out_printf(o, "<td class=\"n\" data-v=\"%.3f\">", (double)op->effort.expected / 1000);
        days(o, op->effort.expected);
        om_out_str(o, "</td>");
        ascend_cell(o, m->ops[i].on_ascend, m->ops[i].engine, op->status);
        om_out_printf(o, "<td class=\"d\"><details><summary>%zu reason%s, %zu node%s</summary>",
                      op->n_reasons, op->n_reasons == 1 ? "" : "s", op->n_paths,
                      op->n_paths == 1 ? "" : "s");
        op_details(o, r, &m->ops[i], 0);
        om_out_str(o, "</details></td></tr>");
    }
}

/* A portfolio operator on chip c: the worst answer of the models that have it
 * ("unpublished" when none of them has a published one). */
static void portfolio_chip_cell(om_out *o, const om_report_in *in, const om_port_op *op,
                                size_t c)
{
    size_t k, j;
    int worst = -1;
    for (k = 0; k < in->count; k++) {
        const opmap_result *r = in->results[k];
        for (j = 0; c < r->n_chips && j < r->n_ops; j++) {
            const opmap_op *x = r->ops[j];
            if (!x->chip_unknown[c] && x->chip_status[c] > worst &&
                strcmp(x->name, op->name) == 0 && strcmp(x->domain, op->domain) == 0)
                worst = x->chip_status[c];
        }
    }
    om_out_str(o, "<td class=\"chip\">");
    if (worst < 0)
        om_out_str(o, "<span class=\"muted\" title=\"nobody has published an answer for this "
                      "chip: counted apart, not estimated\">unpublished</span>");
    else
        status_badge(o, worst);
    om_out_str(o, "</td>");
}

static void portfolio_rows(om_out *o, const om_report_in *in)
{
    const om_portfolio *p = in->portfolio;
    size_t i, k, j;
    for (i = 0; i < p->n; i++) {
        const om_port_op *op = &p->ops[i];
        om_out_printf(o, "<tr data-status=\"%s\"><td data-v=\"%d\">",
                      opmap_op_status_name(op->status), op->status);
        status_badge(o, op->status);
        om_out_str(o, "</td><td class=\"op\"><code>");
        om_out_html(o, op->domain);
        om_out_str(o, "::");
        om_out_html(o, op->name);
        om_out_str(o, "</code> ");
        flag_spans(o, op->flags);
        om_out_printf(o, "</td><td class=\"n\">%" PRIu32 "</td><td class=\"n\">%" PRIu64
                         "</td>", op->models, op->instances);
        for (k = 0; in->results[0]->n_chips > 1 && k < in->results[0]->n_chips; k++)
            portfolio_chip_cell(o, in, op, k);
        om_out_printf(o, "<td class=\"n\" data-v=\"%.3f\">", (double)op->effort.expected / 1000);
        days(o, op->effort.expected);
        om_out_str(o, "</td>");
        ascend_cell(o, in->view->port_ops[i].on_ascend, in->view->port_ops[i].engine, op->status);
        om_out_printf(o, "<td class=\"d\"><details><summary>in %" PRIu32 " model%s</summary>", op->models,
                      op->models == 1 ? "" : "s");
        for (k = 0; k < in->count; k++) {
            const opmap_result *r = in->results[k];
            for (j = 0; j < r->n_ops; j++)
                if (strcmp(r->ops[j]->domain, op->domain) == 0 &&
                    strcmp(r->ops[j]->name, op->name) == 0)
                    op_details(o, r, &in->view->models[k].ops[j], 1);
        }
        om_out_str(o, "</details></td></tr>");
    }
}

/* " · answered for torch_npu 2.1 · minimum torch_npu 2.7 (aten::x in m.pt)" */
static void tnpu_header(om_out *o, const om_report_in *in)
{
    const opmap_result *need = om_report_tnpu_needed(in);
    if (om_report_tnpu_target(in)[0]) {
        om_out_str(o, " &middot; answered for torch_npu ");
        om_out_html(o, om_report_tnpu_target(in));
    }
    if (om_report_mode(in) == OPMAP_MODE_GRAPH) {
        om_out_str(o, " &middot; mode ");
        om_out_html(o, om_report_graph_mode_text);
    }
    if (om_report_workload(in) == OPMAP_WORKLOAD_TRAINING) {
        om_out_str(o, " &middot; workload ");
        om_out_html(o, om_report_training_text);
    }
    om_out_str(o, " &middot; minimum torch_npu ");
    if (!need) {
        om_out_str(o, "none stated");
        return;
    }
    om_out_html(o, need->tnpu_needed);
    om_out_str(o, " (");
    om_out_html(o, need->tnpu_needed_by);
    if (in->count > 1) {
        om_out_str(o, " in ");
        om_out_html(o, need->model_name);
    }
    om_out_str(o, ")");
}

/* An advice's places with their source lines (the first OM_VIEW_HTML_PLACES), and every
 * distinct source line. */
static void advice_places(om_out *o, const om_vadvice *x)
{
    const om_advice *a = x->a;
    size_t i, more = 0;
    if (!a->n_places)
        return;
    om_out_printf(o, "<details><summary>%zu place%s</summary><ul>", a->n_places,
                  a->n_places == 1 ? "" : "s");
    for (i = 0; i < a->n_places && i < OM_VIEW_HTML_PLACES; i++) {
        om_out_str(o, "<li><code>");
        om_out_html(o, a->places[i]);
        om_out_str(o, "</code>");
        if (a->lines && a->lines[i]) {
            om_out_str(o, " <span class=\"muted\">");
            om_out_html(o, a->lines[i]);
            om_out_str(o, "</span>");
        }
        om_out_str(o, "</li>");
    }
    if (a->n_places > OM_VIEW_HTML_PLACES)
        om_out_printf(o, "<li class=\"muted\">... %zu more (see the JSON report)</li>",
                      a->n_places - OM_VIEW_HTML_PLACES);
    om_out_str(o, "</ul></details>");
    for (i = 0; i < x->n_lines; i++) /* the lines past the places listed */
        if (!om_view_line_shown(x, i, OM_VIEW_HTML_PLACES)) {
            om_out_str(o, more++ ? ", " : "Source lines: <code>");
            om_out_html(o, x->lines[i]);
        }
    if (more)
        om_out_str(o, "</code>");
}

static void model_section(om_out *o, const om_report_in *in, const om_vmodel *m)
{
    const opmap_result *r = m->r;
    opmap_segments seg = { .size = sizeof(seg) };
    char cmd[4096];
    size_t i;
    om_out_str(o, "<h2>");
    om_out_html(o, r->model_name);
    om_out_printf(o, "</h2><p>%s", opmap_format_name(r->format));
    if (r->ir_version)
        om_out_printf(o, ", IR %" PRId64, r->ir_version);
    for (i = 0; i < r->n_opsets; i++) {
        om_out_str(o, i ? ", " : "; opsets ");
        om_out_html(o, r->opsets[i].domain);
        om_out_printf(o, " %" PRId64, r->opsets[i].version);
    }
    if (r->producer_name[0]) {
        om_out_str(o, "; from ");
        om_out_html(o, r->producer_name);
        if (r->producer_version[0]) {
            om_out_str(o, " ");
            om_out_html(o, r->producer_version);
        }
    }
    om_out_printf(o, "; %" PRIu64 " distinct operators, %" PRIu64 " instances; effort ",
                  r->summary.operators_total, r->summary.instances_total);
    days(o, r->summary.effort_total.expected);
    om_out_str(o, " person-days; minimum torch_npu ");
    if (r->tnpu_needed[0]) {
        om_out_html(o, r->tnpu_needed);
        om_out_str(o, " (");
        om_out_html(o, r->tnpu_needed_by);
        om_out_str(o, ")</p>");
    } else {
        om_out_str(o, "none (no operator's row gives a torch_npu range)</p>");
    }
    if (m->reexport && in->count > 1) {
        om_out_str(o, "<p><b>First:</b> ");
        om_out_html(o, m->reexport);
        om_out_str(o, ".</p>");
    }
    om_verify_counts_text(r, cmd, sizeof(cmd));
    if (cmd[0]) {
        om_out_str(o, "<p><b>Verified on the device:</b> ");
        om_out_html(o, cmd);
        om_out_str(o, ".</p>");
    }
    opmap_result_segments(r, &seg);
    if (m->sources) /* code, not a graph: no segments to speak of */
        om_out_printf(o, "<p>Python sources: %" PRIu64 " files, %" PRIu64 " lines, %" PRIu64
                         " not scanned; each pattern is a rule of data/source_rules.yaml, its "
                         "places are file:line:column.</p>", r->src_files, r->src_lines,
                      r->src_not_read);
    else
        om_out_printf(o, "<p>NPU segments: %" PRIu64 " (largest %" PRIu64 " of %" PRIu64
                         " NPU nodes), %" PRIu64 " device&harr;host transitions, %" PRIu64
                         " breaking nodes.</p>", seg.segments, seg.largest, seg.npu_nodes,
                      seg.transitions, seg.breakers);
    if (r->risks.len) {
        om_out_str(o, "<details><summary>Risks</summary><ul>");
        for (i = 0; i < r->risks.len; i++) {
            const om_risk *k = &OM_VEC_AT(&r->risks, om_risk, i);
            om_out_printf(o, "<li><b>%s</b>: ", k->kind);
            om_out_html(o, k->message);
            om_out_str(o, " <span class=\"muted\">");
            om_out_html(o, k->where);
            om_out_str(o, "</span></li>");
        }
        om_out_str(o, "</ul></details>");
    }
    if (m->n_advice) {
        om_out_printf(o, "<details open><summary>Advice (%zu): what Ascend's engineers did for "
                         "these patterns; not in the effort</summary><ul>", m->n_advice);
        for (i = 0; i < m->n_advice; i++) {
            const om_advice *a = m->advice[i].a;
            om_out_str(o, "<li>");
            if (om_view_advice_kind(a)) {
                om_out_str(o, om_view_advice_kind(a));
                om_out_str(o, " ");
            }
            om_out_str(o, "<b>");
            om_out_html(o, a->id);
            om_out_str(o, "</b>: ");
            om_out_html(o, a->message);
            om_out_str(o, " <code>");
            om_out_html(o, a->value[0] ? a->value : a->where);
            om_out_str(o, "</code><br>Do: <code>");
            om_out_html(o, a->action);
            om_out_printf(o, "</code> <span class=\"muted\">(%s grade; ", om_grade_name(a->grade));
            om_out_html(o, a->recipes[0] ? a->recipes : a->sources);
            om_out_str(o, ")</span>");
            advice_places(o, &m->advice[i]);
            om_out_str(o, "</li>");
        }
        om_out_str(o, "</ul></details>");
    }
    if (m->n_next && m->next[0].chip >= 0) {
        om_out_str(o, "<details open><summary>ATC command line</summary>");
        for (i = 0; i < m->n_next; i++) {
            om_out_str(o, "<pre>");
            om_out_html(o, m->next[i].text);
            om_out_str(o, "</pre>");
            if (m->next[i].notes[0]) {
                om_out_str(o, "<p class=\"muted\">");
                om_out_html(o, m->next[i].notes);
                om_out_str(o, "</p>");
            }
        }
        om_out_str(o, "</details>");
    } else if (m->n_next) {
        om_out_str(o, "<details open><summary>torch_npu migration</summary><pre>");
        for (i = 0; i < m->n_next; i++) {
            om_out_html(o, m->next[i].text);
            om_out_str(o, "\n");
        }
        om_out_str(o, "</pre></details>");
    }
}

static void findings_section(om_out *o, const opmap_verdict *v)
{
    size_t i, n = opmap_verdict_finding_count(v);
    om_out_printf(o, "<h2 id=\"gate\">CI gate: <span class=\"%s\">%s</span></h2>",
                  opmap_verdict_passed(v) ? "pass" : "fail",
                  opmap_verdict_incomplete(v) ? "FAIL (incomplete)"
                  : opmap_verdict_passed(v) ? "PASS" : "FAIL");
    if (!n) {
        om_out_str(o, "<p>No findings.</p>");
        return;
    }
    om_out_str(o, "<details><summary>Findings</summary><ul>");
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, i, &f);
        om_out_printf(o, "<li><b>%s</b>%s: ", opmap_fail_kind_name((unsigned)__builtin_ctz(f.kind)),
                      f.fails ? " <span class=\"fail\">fails</span>" : "");
        om_out_html(o, f.message);
        if (f.waived) {
            om_out_str(o, " <span class=\"muted\">(waived");
            if (f.waiver_expired)
                om_out_str(o, ", <span class=\"fail\">expired</span>");
            om_out_str(o, ": ");
            om_out_html(o, f.waiver_reason);
            om_out_str(o, ")</span>");
        }
        om_out_str(o, "</li>");
    }
    om_out_str(o, "</ul></details>");
}

static void problems_section(om_out *o, const om_report_in *in)
{
    size_t i;
    char msg[1200];
    if (!in->n_problems)
        return;
    om_out_str(o, in->n_unreadable
                      ? "<h2 id=\"not-read\">Files not read: <span class=\"fail\">the report is "
                        "incomplete</span></h2>"
                      : "<h2 id=\"not-read\">Files skipped</h2>");
    om_out_str(o, "<table><thead><tr><th>File</th><th></th><th>Why</th></tr></thead><tbody>");
    for (i = 0; i < in->n_problems; i++) {
        const opmap_file_problem *p = &in->problems[i];
        om_problem_message(p, msg, sizeof(msg));
        om_out_str(o, "<tr><td>");
        om_out_html(o, p->file ? p->file : "");
        om_out_str(o, p->skipped ? "</td><td>skipped</td><td>"
                                 : "</td><td class=\"fail\">could not be read</td><td>");
        om_out_html(o, msg);
        om_out_str(o, "</td></tr>");
    }
    om_out_str(o, "</tbody></table>");
}

/* Past OM_VIEW_DETAILED_MAX models the page lists and details those with the most to
 * change; the others are summed up in one row, and the page says where they all are. */
static void not_detailed_row(om_out *o, const om_report_in *in)
{
    uint64_t by[3] = { 0, 0, 0 }, milli = 0;
    size_t i, rest = in->count - in->view->n_detailed;
    if (!rest)
        return;
    for (i = 0; i < in->count; i++)
        if (!in->view->models[i].detailed) {
            by[in->headlines[i].readiness]++;
            milli += in->results[i]->summary.effort_total.expected;
        }
    om_out_printf(o, "<tr class=\"rest\"><td>%zu more models, not listed</td><td>%" PRIu64
                     " blocked, %" PRIu64 " needs work, %" PRIu64 " ready</td><td></td><td></td>"
                     "<td></td><td></td><td></td><td class=\"n\">", rest, by[OPMAP_BLOCKED],
                  by[OPMAP_NEEDS_WORK], by[OPMAP_READY]);
    days(o, milli);
    om_out_str(o, "</td></tr>");
}

int om_report_html(const om_report_in *in, om_out *o)
{
    const opmap_result *r0 = in->count ? in->results[0] : NULL;
    size_t i;
    om_out_str(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                  "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<title>opmap report");
    if (in->count == 1) {
        om_out_str(o, ": ");
        om_out_html(o, r0->model_name);
    }
    om_out_str(o, "</title><style>");
    om_out_str(o, style); /* long constants go through om_out_str: formatted pieces are short */
    om_out_str(o, "</style></head><body><header><h1>Ascend migration report</h1>"
                  "<p class=\"sub\">");
    if (r0) {
        om_out_str(o, "chips ");
        for (i = 0; i < r0->n_chips; i++) {
            om_out_str(o, i ? ", " : "");
            om_out_html(o, r0->chips[i]);
        }
        om_out_str(o, " &middot; table ");
        om_out_html(o, r0->table_name[0] ? r0->table_name : r0->table_origin);
        om_out_str(o, " ");
        om_out_html(o, r0->table_version);
        if (r0->torch_npu[0]) {
            om_out_str(o, " &middot; torch_npu ");
            om_out_html(o, r0->torch_npu);
        }
        tnpu_header(o, in);
    }
    om_out_printf(o, " &middot; opmap %s</p></header><section>", opmap_version_string());
    headline_section(o, in);
    om_out_str(o, "</section><section class=\"cards\">");
    cards(o, in);
    om_out_str(o, "</section><section class=\"charts\">");
    status_chart(o, &in->portfolio->summary);
    effort_status_chart(o, &in->portfolio->summary);
    effort_reason_chart(o, in);
    om_out_str(o, "</section><section>");
    if (in->count > 1) {
        char sep[32], saved[32];
        om_out_str(o, "<h2 id=\"portfolio\">Portfolio</h2><table><thead><tr><th>Model</th>"
                      "<th>Verdict</th><th>Coverage</th><th>Operators</th><th>Unmapped</th>"
                      "<th>Rewrite</th><th>Partial</th><th>Effort (d)</th></tr></thead><tbody>");
        for (i = 0; i < in->count; i++) {
            const opmap_summary *s = &in->results[i]->summary;
            if (!in->view->models[i].detailed)
                continue;
            const opmap_headline *h = &in->headlines[i];
            char cov[16];
            snprintf(cov, sizeof(cov), "%s", in->view->models[i].coverage);
            om_out_str(o, "<tr><td>");
            om_out_html(o, in->results[i]->model_name);
            om_out_printf(o, "</td><td><span class=\"st %s\" data-verdict=\"%s\">%s</span></td>"
                          "<td class=\"n\">%s</td>",
                          h->readiness == OPMAP_BLOCKED ? "v-blocked"
                          : h->readiness == OPMAP_NEEDS_WORK ? "v-work" : "v-ready",
                          opmap_readiness_name(h->readiness), om_readiness_label(h->readiness),
                          cov);
            om_out_printf(o, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                             "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                             "</td><td class=\"n\">", s->operators_total,
                          s->operators[OPMAP_OP_UNMAPPED], s->operators[OPMAP_OP_REWRITE],
                          s->operators[OPMAP_OP_PARTIAL]);
            days(o, s->effort_total.expected);
            om_out_str(o, "</td></tr>");
        }
        not_detailed_row(o, in);
        om_format_days(in->portfolio->separately.expected, sep, sizeof(sep));
        om_format_days(in->portfolio->separately.expected -
                           in->portfolio->summary.effort_total.expected, saved, sizeof(saved));
        om_out_printf(o, "</tbody></table><p>Adapting each shared operator once: ");
        days(o, in->portfolio->summary.effort_total.expected);
        om_out_printf(o, " person-days; the models one by one: %s; sharing saves %s.</p>", sep,
                      saved);
        if (in->view->n_detailed < in->count)
            om_out_printf(o, "<p class=\"muted\">This page lists and details the %zu models "
                             "with the most to change (worst verdict, then most effort) of "
                             "%zu; the JSON report holds every model.</p>",
                          in->view->n_detailed, in->count);
    }
    if (in->count) {
        table_head(o, in);
        if (in->count == 1)
            single_model_rows(o, &in->view->models[0]);
        else
            portfolio_rows(o, in);
        om_out_str(o, "</tbody></table></div>");
    }
    problems_section(o, in);
    findings_section(o, in->verdict);
    for (i = 0; i < in->count; i++)
        if (in->view->models[i].detailed)
            model_section(o, in, &in->view->models[i]);
    om_out_str(o, "</section><footer class=\"muted\">Every status comes from the "
                  "compatibility table; each row names its public sources (opmap table show "
                  "OP). Effort: person-days per distinct operator, by status.</footer><script>");
    om_out_str(o, script);
    om_out_str(o, "</script></body></html>\n");
    return OPMAP_OK;
}
