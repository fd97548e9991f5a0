/*
 * report/report_sarif.c - SARIF 2.1.0 for code-scanning dashboards (GitHub, GitLab...):
 * one rule per finding kind, one result per finding with the model file as the artifact
 * and the node path as the logical location. Waived findings carry a suppression. Written
 * with the streaming writer (jsonw.c), like the JSON report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/result_internal.h"
#include "jsonw.h"
#include "report_internal.h"
#include "verified.h"
#include "core/err.h"
#include "torch_npu_need.h"

static const char *const rule_text[OPMAP_FAIL_KIND_COUNT] = {
    "The operator has no row in the compatibility table: nothing says it runs on Ascend.",
    "The operator has no Ascend implementation: the model must be changed.",
    "The operator runs on Ascend with limits (dtypes, attributes, chips) or caveats.",
    "Results may differ numerically on Ascend.",
    "The operator runs on AI CPU, the host or torch_npu's CPU fallback.",
    "Dynamic shapes recompile the graph on Ascend.",
    "Random number streams differ from CUDA's.",
    "inf/nan semantics differ on Ascend.",
    "Not bit-reproducible run to run on Ascend.",
    "Deprecated in torch_npu.",
    "float64, complex or uint64 values, which Ascend largely lacks kernels for.",
    "The migration estimate is over the allowed effort.",
    "An external-data side file is missing, short, or outside the model's directory.",
    "A file could not be read: the scan, and the gate's verdict, are incomplete.",
    "A file was found but is not a model opmap reads (a checkpoint, an unsupported archive).",
    "A printed TorchScript graph is not inlined: its calls hide the operators they run.",
    "Training code with no NPU path (a CUDA extension, a CUDA-only library): it must be rewritten.",
    "Training code that needs a change with a published target (a renamed API, a device string).",
    "Training code using a CUDA API nobody has published an NPU answer for.",
    "A pattern written out of primitives that a fused NPU kernel replaces.",
    "A Python source file was not scanned: the source gate has not seen it.",
};

static char *uri(const char *path, char *buf, size_t size)
{
    if (path[0] == '/')
        snprintf(buf, size, "file://%s", path);
    else
        snprintf(buf, size, "%s", path);
    return buf;
}

/* The headline (docs/reports.md) as SARIF property bag members: read before the results. */
static void headline(jsonw *w, const char *key, const opmap_headline *h, const char *model,
                     const char *reexport)
{
    char kinds[400];
    jw_key(w, key);
    jw_object(w);
    if (model)
        jw_kstring(w, "model", model);
    jw_kstring(w, "verdict", opmap_readiness_name(h->readiness));
    om_kind_list(h->blocking ? h->blocking : h->needing_work, kinds, sizeof(kinds));
    jw_kstring(w, "because", kinds);
    jw_kdays(w, "coverage", h->coverage);
    jw_kuint(w, "placed", h->placed);
    jw_kuint(w, "onNpu", h->on_npu);
    jw_kdays(w, "largestSegmentShare", h->largest_share);
    jw_kuint(w, "operators", h->operators);
    jw_kuint(w, "operatorsFull", h->operators_full);
    jw_kuint(w, "instances", h->instances);
    jw_kuint(w, "instancesFull", h->instances_full);
    if (reexport && reexport[0])
        jw_kstring(w, "reexport", reexport);
    jw_end_object(w);
}

/* Each model's headline and next commands, and the unpublished answers: not findings of
 * the gate (counted apart, docs/reports.md), read before the results. */
static void run_properties(jsonw *w, const om_report_in *in)
{
    size_t i, k;
    jw_key(w, "properties");
    jw_object(w);
    headline(w, "headline", &in->overall, NULL, in->view->reexport);
    jw_key(w, "models");
    jw_array(w);
    for (i = 0; i < in->count; i++) {
        const om_vmodel *m = &in->view->models[i];
        jw_object(w);
        headline(w, "headline", m->headline, m->r->model_name, m->reexport);
        if (m->n_next) {
            jw_key(w, "next");
            jw_array(w);
            for (k = 0; k < m->n_next; k++)
                jw_string(w, m->next[k].text);
            jw_end_array(w);
        }
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_kuint(w, "unpublishedOperators", in->view->unpublished_ops);
    jw_end_object(w);
}

/* The model of a finding, from the cursor *ri on (findings come in the results' order, so
 * the search stays linear); 0 when none is. */
static int finding_model(const om_report_in *in, const opmap_finding *f, size_t *ri, size_t *oi)
{
    size_t tries;
    for (tries = 0; tries < in->count && strcmp(in->results[*ri]->model_name, f->model) != 0;
         tries++) {
        *ri = (*ri + 1) % in->count;
        *oi = 0;
    }
    return tries < in->count;
}

/*
 * The operator of a finding (its first node is the finding's), or NULL: its locations give
 * the Python source line ("model.py:12", TorchScript debug info; "train.py:12:5" for a
 * finding of Python sources). Operators come in each result's order: the cursor (*ri, *oi)
 * keeps the search linear.
 */
static const om_vop *finding_op(const om_report_in *in, const opmap_finding *f, size_t *ri,
                                size_t *oi)
{
    size_t n;
    const opmap_result *r;
    if (!f->op[0] || !f->node[0] || !finding_model(in, f, ri, oi))
        return NULL;
    r = in->results[*ri];
    for (n = 0; n < r->n_ops; n++, *oi = (*oi + 1) % r->n_ops) {
        const opmap_op *op = r->ops[*oi];
        if (strcmp(op->name, f->op) == 0 && strcmp(op->domain, f->domain) == 0 &&
            op->n_paths && strcmp(op->paths[0], f->node) == 0)
            return &in->view->models[*ri].ops[*oi];
    }
    return NULL;
}

/* The fused-kernel advice of an advice finding (its first place is the finding's node), or
 * NULL. */
static const om_vadvice *finding_advice(const om_report_in *in, const opmap_finding *f,
                                        size_t *ri, size_t *oi)
{
    const om_vmodel *m;
    size_t k;
    if (f->kind != OPMAP_FAIL_ADVICE || !finding_model(in, f, ri, oi))
        return NULL;
    m = &in->view->models[*ri];
    for (k = 0; k < m->n_advice; k++) {
        const om_advice *a = m->advice[k].a;
        if (a->fused && strcmp(a->where, f->node) == 0 &&
            strncmp(f->message, a->message, strlen(a->message)) == 0)
            return &m->advice[k];
    }
    return NULL;
}

/* A run of 1-9 digits after the colon at c, ending at end: its value, else 0. */
static unsigned long number_after(const char *c, const char *end)
{
    size_t n = (size_t)(end - c - 1);
    return c[1] && n < 10 && strspn(c + 1, "0123456789") >= n ? strtoul(c + 1, NULL, 10) : 0;
}

/* "dir/model.py:12" (or "train.py:12:5") as an artifact, a line (and a column); a location
 * without a line is the file. */
static void source_location(jsonw *w, const char *loc, char *buf, size_t size)
{
    const char *end = loc + strlen(loc), *colon = strrchr(loc, ':'), *prev = NULL;
    unsigned long line = 0, col = 0;
    char file[4096];
    if (colon && (line = number_after(colon, end))) {
        for (prev = colon; prev > loc && prev[-1] != ':';)
            prev--;
        if (prev > loc && prev - 1 < colon && number_after(prev - 1, colon)) {
            col = line;
            line = number_after(prev - 1, colon);
            colon = prev - 1;
        }
    }
    snprintf(file, sizeof(file), "%.*s", line ? (int)(colon - loc) : (int)strlen(loc), loc);
    jw_key(w, "artifactLocation");
    jw_object(w);
    jw_kstring(w, "uri", uri(file, buf, size));
    jw_end_object(w);
    if (line) {
        jw_key(w, "region");
        jw_object(w);
        jw_kuint(w, "startLine", line);
        if (col)
            jw_kuint(w, "startColumn", col);
        jw_end_object(w);
    }
}

/* Files not read, as the run's tool notifications: a dashboard shows the run failed. */
/* The node paths of a result (its logical locations): nodes[0, n), or only those whose
 * source line (lines[i]) is `line` when line is not NULL; "" is none. */
typedef struct nodes_at {
    const char *const *nodes, *const *lines;
    size_t n;
    const char *line;
} nodes_at;

static int node_in(const nodes_at *at, size_t i)
{
    return at->nodes[i][0] && (!at->line || (at->lines[i] && strcmp(at->lines[i], at->line) == 0));
}

/* One SARIF result: a finding at `loc` (a Python line, or NULL: the model file) and its
 * nodes. */
static void result(jsonw *w, const opmap_finding *f, const char *loc, const nodes_at *at,
                   const char *message, uint64_t instances, const om_vop *x, char *buf,
                   size_t size)
{
    size_t i, first = 0;
    const opmap_op *op = x ? x->op : NULL;
    unsigned k = (unsigned)__builtin_ctz(f->kind);
    jw_object(w);
    snprintf(buf, size, "opmap/%s", opmap_fail_kind_name(k));
    jw_kstring(w, "ruleId", buf);
    jw_kuint(w, "ruleIndex", k);
    jw_kstring(w, "level", f->fails ? "error" : f->waived ? "note" : "warning");
    jw_key(w, "message");
    jw_object(w);
    if (op && op->verify_state != OPMAP_VERIFY_NONE) { /* what the device said of it */
        char said[1024];
        om_verify_summary(op, said, sizeof(said));
        snprintf(buf, size, "%s (%s)", message, said);
    } else {
        snprintf(buf, size, "%s", message);
    }
    /* one line a viewer shows as is: a place's text is source code (a string literal may
     * hold ESC, CR, C1 or bidi bytes, which JSON escaping keeps) */
    om_one_line(buf);
    jw_kstring(w, "text", buf);
    jw_end_object(w);
    jw_key(w, "locations");
    jw_array(w);
    jw_object(w);
    jw_key(w, "physicalLocation");
    jw_object(w);
    if (loc) { /* the Python line that made the node; the model is a related location */
        source_location(w, loc, buf, size);
    } else {
        jw_key(w, "artifactLocation");
        jw_object(w);
        jw_kstring(w, "uri", uri(f->model[0] ? f->model : ".", buf, size));
        jw_end_object(w);
    }
    jw_end_object(w);
    for (i = 0; i < at->n; i++) {
        if (!node_in(at, i))
            continue;
        if (!first++) {
            jw_key(w, "logicalLocations");
            jw_array(w);
        }
        jw_object(w);
        jw_kstring(w, "fullyQualifiedName", at->nodes[i]);
        jw_kstring(w, "kind", "element");
        jw_end_object(w);
    }
    if (first)
        jw_end_array(w);
    jw_end_object(w);
    jw_end_array(w); /* locations */
    if (loc) {
        jw_key(w, "relatedLocations");
        jw_array(w);
        jw_object(w);
        jw_kuint(w, "id", 1);
        jw_key(w, "physicalLocation");
        jw_object(w);
        jw_key(w, "artifactLocation");
        jw_object(w);
        jw_kstring(w, "uri", uri(f->model[0] ? f->model : ".", buf, size));
        jw_end_object(w);
        jw_end_object(w);
        jw_key(w, "message");
        jw_object(w);
        jw_kstring(w, "text", "the model");
        jw_end_object(w);
        jw_end_object(w);
        jw_end_array(w);
    }
    if (f->waived) {
        jw_key(w, "suppressions");
        jw_array(w);
        jw_object(w);
        jw_kstring(w, "kind", "external");
        jw_kstring(w, "status", f->waiver_expired ? "rejected" : "accepted");
        snprintf(buf, size, "%s (owner %s, expires %s)", f->waiver_reason, f->waiver_owner,
                 f->waiver_expires);
        jw_kstring(w, "justification", buf);
        jw_end_object(w);
        jw_end_array(w);
    }
    jw_key(w, "properties");
    jw_object(w);
    if (f->op[0]) {
        snprintf(buf, size, "%s::%s", f->domain, f->op);
        jw_kstring(w, "operator", buf);
    }
    jw_kuint(w, "instances", instances);
    if (x) { /* what it becomes on Ascend, and what to do */
        jw_kstring(w, "becomes", x->on_ascend);
        if (x->next_step)
            jw_kstring(w, "nextStep", x->next_step);
    }
    if (op && op->verify_state != OPMAP_VERIFY_NONE)
        jw_kstring(w, "verified", opmap_verify_state_name(op->verify_state));
    jw_end_object(w);
    jw_end_object(w);
}

/* A fused-kernel advice: a result per distinct source line of its places, so code scanning
 * marks each line the pattern is written on, the places on it its logical locations (the
 * model a related location); without lines, one result in the model with every place. */
static void advice_results(jsonw *w, const opmap_finding *f, const om_vadvice *x, char *buf,
                           size_t size)
{
    const om_advice *a = x->a;
    nodes_at at = { (const char *const *)a->places, (const char *const *)a->lines, a->n_places,
                    NULL };
    size_t k, p, n, first;
    if (!x->n_lines) {
        result(w, f, NULL, &at, f->message, f->instances, NULL, buf, size);
        return;
    }
    for (k = 0; k < x->n_lines; k++) {
        char msg[1200];
        at.line = x->lines[k];
        for (p = n = first = 0; p < a->n_places; p++)
            if (node_in(&at, p) && !n++)
                first = p;
        snprintf(msg, sizeof(msg), "%s: %s: use %s", a->places[first], a->message, a->action);
        result(w, f, at.line, &at, k ? msg : f->message, n, NULL, buf, size);
    }
}

/* The invocation's properties: the torch_npu version answered for, the newest minimum
 * over the models and each model's (the same keys as the JSON report's). */
static void tnpu_properties(jsonw *w, const om_report_in *in)
{
    size_t i;
    jw_key(w, "properties");
    jw_object(w);
    if (om_report_mode(in) == OPMAP_MODE_GRAPH)
        jw_kstring(w, "mode", "graph");
    if (om_report_workload(in) == OPMAP_WORKLOAD_TRAINING)
        jw_kstring(w, "workload", "training");
    jw_key(w, "torch_npu");
    jw_object(w);
    om_report_tnpu_members(w, in);
    jw_key(w, "models");
    jw_array(w);
    for (i = 0; i < in->count; i++) {
        jw_object(w);
        jw_kstring(w, "file", in->results[i]->model_name);
        jw_kstring(w, "needed", in->results[i]->tnpu_needed);
        jw_kstring(w, "needed_by", in->results[i]->tnpu_needed_by);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
    jw_end_object(w);
}

/* The file of a place "file:line:col" (or of "file" alone). */
static void where_file(const char *where, char *file, size_t size)
{
    size_t n = strlen(where), end = n, colons = 0, i;
    for (i = n; i-- > 0 && colons < 2;) {
        if (where[i] == ':') {
            colons++;
            end = i;
        } else if (where[i] < '0' || where[i] > '9') {
            break;
        }
    }
    if (colons < 2)
        end = n;
    snprintf(file, size, "%.*s", (int)(end < size ? end : size - 1), where);
}

/* One tool notification: its level, rule id, one-line text, the file it is about ("." when
 * none) and, when `region` says where in that file, the line or byte offset. */
static void notification(jsonw *w, const char *level, const char *id, const char *text,
                         const char *file, const opmap_error *region)
{
    char buf[4200];
    jw_object(w);
    jw_kstring(w, "level", level);
    jw_key(w, "descriptor");
    jw_object(w);
    jw_kstring(w, "id", id);
    jw_end_object(w);
    jw_key(w, "message");
    jw_object(w);
    jw_kstring(w, "text", text);
    jw_end_object(w);
    jw_key(w, "locations");
    jw_array(w);
    jw_object(w);
    jw_key(w, "physicalLocation");
    jw_object(w);
    jw_key(w, "artifactLocation");
    jw_object(w);
    jw_kstring(w, "uri", uri(file && file[0] ? file : ".", buf, sizeof(buf)));
    jw_end_object(w);
    if (region) {
        jw_key(w, "region");
        jw_object(w);
        if (region->line) {
            jw_kuint(w, "startLine", region->line);
            if (region->column)
                jw_kuint(w, "startColumn", region->column);
        } else {
            jw_kuint(w, "byteOffset", region->offset);
        }
        jw_end_object(w);
    }
    jw_end_object(w);
    jw_end_object(w);
    jw_end_array(w);
    jw_end_object(w);
}

/* A notification for each Python source file that was not scanned: the scan did not read
 * all it was given, so it did not succeed. 1 when there is one. */
static int unscanned_notifications(jsonw *w, const om_report_in *in, int write)
{
    char buf[4200], file[1024];
    size_t i, k;
    int any = 0;
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        for (k = 0; k < r->diags.len; k++) {
            const om_diag *d = &OM_VEC_AT(&r->diags, om_diag, k);
            if (!om_diag_unscanned(d))
                continue;
            any = 1;
            if (!write)
                continue;
            where_file(d->where, file, sizeof(file));
            snprintf(buf, sizeof(buf), "%s: %s", d->where, d->message);
            om_one_line(buf);
            notification(w, "error", "opmap/source-unscanned", buf, file, NULL);
        }
    }
    return any;
}

static void invocation(jsonw *w, const om_report_in *in)
{
    char buf[4200];
    size_t i;
    jw_key(w, "invocations");
    jw_array(w);
    jw_object(w);
    jw_kbool(w, "executionSuccessful",
             in->n_unreadable == 0 && !unscanned_notifications(w, in, 0));
    jw_key(w, "toolExecutionNotifications");
    jw_array(w);
    unscanned_notifications(w, in, 1);
    for (i = 0; i < in->n_problems; i++) {
        const opmap_file_problem *p = &in->problems[i];
        const opmap_error *e = p->error;
        /* a region only where the error is about this file */
        int in_file = e && (e->line || e->offset != OPMAP_NO_OFFSET) &&
                      (!e->source[0] || !p->file || strcmp(e->source, p->file) == 0);
        om_problem_message(p, buf, sizeof(buf));
        om_one_line(buf);
        notification(w, p->skipped ? "note" : "error",
                     p->skipped ? "opmap/skipped" : "opmap/unreadable", buf, p->file,
                     in_file ? e : NULL);
    }
    jw_end_array(w);
    tnpu_properties(w, in);
    jw_end_object(w);
    jw_end_array(w);
}

int om_report_sarif(const om_report_in *in, om_out *out)
{
    size_t i, n = opmap_verdict_finding_count(in->verdict), ri = 0, oi = 0;
    char buf[4200];
    unsigned k;
    jsonw w;
    jw_init(&w, out, (in->flags & OPMAP_REPORT_COMPACT) != 0);
    jw_object(&w);
    jw_kstring(&w, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    jw_kstring(&w, "version", "2.1.0");
    jw_key(&w, "runs");
    jw_array(&w);
    jw_object(&w);
    run_properties(&w, in);
    jw_key(&w, "tool");
    jw_object(&w);
    jw_key(&w, "driver");
    jw_object(&w);
    jw_kstring(&w, "name", "opmap");
    jw_kstring(&w, "semanticVersion", opmap_version_string());
    jw_key(&w, "rules");
    jw_array(&w);
    for (k = 0; k < OPMAP_FAIL_KIND_COUNT; k++) {
        jw_object(&w);
        snprintf(buf, sizeof(buf), "opmap/%s", opmap_fail_kind_name(k));
        jw_kstring(&w, "id", buf);
        jw_kstring(&w, "name", opmap_fail_kind_name(k));
        jw_key(&w, "shortDescription");
        jw_object(&w);
        jw_kstring(&w, "text", rule_text[k]);
        jw_end_object(&w);
        jw_end_object(&w);
    }
    jw_end_array(&w);
    jw_end_object(&w); /* driver */
    jw_end_object(&w); /* tool */
    invocation(&w, in);
    jw_key(&w, "results");
    jw_array(&w);
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        const om_vop *x;
        const om_vadvice *adv;
        opmap_verdict_finding(in->verdict, i, &f);
        x = finding_op(in, &f, &ri, &oi);
        if (x && x->op->source) { /* one result per place, so code scanning marks each line */
            const opmap_op *op = x->op;
            size_t p;
            for (p = 0; p < op->n_paths; p++) {
                char msg[1200];
                snprintf(msg, sizeof(msg), "%s: %s::%s: %s", op->paths[p], op->domain, op->name,
                         op->hint);
                nodes_at at = { (const char *const *)&op->paths[p], NULL, 1, NULL };
                result(&w, &f, op->locations ? op->locations[p] : NULL, &at,
                       p ? msg : f.message, 1, x, buf, sizeof(buf));
            }
            continue;
        }
        if (!x && (adv = finding_advice(in, &f, &ri, &oi)) && adv->a->n_places) {
            advice_results(&w, &f, adv, buf, sizeof(buf));
            continue;
        }
        {
            const char *node = f.node;
            nodes_at at = { &node, NULL, 1, NULL };
            result(&w, &f, x && x->op->locations ? x->op->locations[0] : NULL, &at, f.message,
                   f.instances, x, buf, sizeof(buf));
        }
    }
    jw_end_array(&w); /* results */
    jw_end_object(&w); /* run */
    jw_end_array(&w);  /* runs */
    jw_end_object(&w);
    om_out_str(out, "\n");
    return OPMAP_OK;
}
