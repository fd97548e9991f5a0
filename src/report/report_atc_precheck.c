/*
 * report/report_atc_precheck.c - the atc-precheck format: what `atc --mode=3` would write
 * into check_result.json for an ONNX model, so a real run can be diffed against opmap's
 * prediction (docs/reports.md, "ATC pre-check (atc-precheck)").
 *
 * The layout is PreChecker::Save's (hicann/ge @ ffdcbc9f7496, parser/parser/common/
 * pre_checker.cc): keys in the sorted order nlohmann::json keeps, indented by two as
 * ModelSaver dumps it, no final newline. The entries are those scan/atc_graph.c lists;
 * the cause codes are pre_checker.h's. ATC's ONNX pre-check checks two things only: that
 * names are unique (9) and that a parser plugin is registered for each type at the
 * model's opset (1); opmap predicts the second from the table, and says why, or what it
 * is unsure of, in a cause of code 0 (ATC's own informational code), which a diff drops.
 */
#include <stdio.h>
#include <string.h>

#include "scan/result_internal.h"
#include "table/table_internal.h"
#include "jsonw.h"
#include "report_internal.h"

/* pre_checker.h's codes and pre_checker.cc's messages */
enum { ATC_OK = 0, ATC_TYPE_UNSUPPORTED = 1, ATC_NAME_REPEATED = 9 };
#define ATC_MSG_TYPE "The type is not supported."
#define ATC_MSG_NAME "The name is repeated in the graph."

typedef struct prediction {
    int unsupported;          /* code 1 predicted */
    char note[640];           /* why, or a doubt, as a code-0 cause ("": none) */
} prediction;

/* Types ATC's parser maps itself (kOnnxOpMap): their type is never checked. */
static int bare_type(const char *type)
{
    return strcmp(type, "Input") == 0 || strcmp(type, "Constant") == 0 ||
           strcmp(type, "FileConstant") == 0;
}

/* The table's status rests on msit's onnx.yaml map alone: no pinned hicann ATC parser
 * plugin registers the operator (the built-in table's source ids, tools/table). */
static int msit_only(const opmap_op *op)
{
    const om_evidence *ev;
    size_t i, n;
    int msit = 0;
    if (!op->row)
        return 0;
    ev = &op->row->ev_status;
    for (i = 0; i < ev->n_sources; i++) {
        n = strlen(ev->sources[i]);
        if (strcmp(ev->sources[i], "msit-onnx-map") == 0)
            msit = 1;
        else if (n > 12 && strcmp(ev->sources[i] + n - 12, "-onnx-plugin") == 0)
            return 0;
    }
    return msit;
}

/* The table's verdict that ATC has no parser registration for the operator at this opset
 * (tools/table/build_table.py writes it as ascend.how: "nothing: no ATC parser
 * registration", "nothing at opset 19-22: ATC parses Identity at opset 8-18 only"). */
static int no_registration(const opmap_op *op)
{
    return strncmp(op->becomes_how, "nothing", 7) == 0;
}

static const char *rewrite_reason(const opmap_op *op)
{
    size_t i;
    for (i = 0; i < op->n_reasons; i++)
        if (op->reasons[i].status == OPMAP_OP_REWRITE)
            return op->reasons[i].message;
    return "no NPU implementation";
}

/* What opmap predicts of an operator's node (note: NULL when only the code is wanted). */
static void predict_op(const opmap_op *op, const char *type, prediction *p, char *note,
                       size_t size)
{
    if (op->exported_as[0]) {
        p->unsupported = 1;
        if (note)
            snprintf(note, size, "opmap: an ATen fallback node (answered as aten::%s); no "
                     "ATC parser plugin the table knows registers %s", op->name, type);
    } else if (op->status == OPMAP_OP_UNMAPPED) {
        p->unsupported = 1;
        if (note)
            snprintf(note, size, "opmap: unmapped (no row in the table at opset %lld): no "
                     "ATC parser registration is known for this type", (long long)op->opset);
    } else if (no_registration(op)) {
        p->unsupported = 1;
        if (note)
            snprintf(note, size, "opmap: no ATC parser plugin for this type at the model's "
                     "opset (the table: \"%s\")", op->becomes_how);
    } else if (note && msit_only(op)) {
        snprintf(note, size, "opmap: only msit's onnx.yaml map lists a parser registration "
                 "for this type, no pinned hicann parser plugin: a real pre-check may answer "
                 "1 (%s)", ATC_MSG_TYPE);
    } else if (note && op->status == OPMAP_OP_REWRITE) {
        snprintf(note, size, "opmap: rewrite (%s); the pre-check looks only for a parser "
                 "plugin, which the table says ATC has: expect it to pass here and the "
                 "conversion to fail later", rewrite_reason(op));
    }
}

static void predict(const opmap_result *r, const om_atc_entry *e, prediction *p, int notes)
{
    char *note = notes ? p->note : NULL;
    p->unsupported = 0;
    p->note[0] = '\0';
    if (e->kind == OM_ATC_INPUT || e->kind == OM_ATC_INITIALIZER || bare_type(e->type))
        return;
    if (e->kind == OM_ATC_CALL) {
        p->unsupported = 1;
        if (note)
            snprintf(note, sizeof(p->note), "opmap: calls a local function of the model; "
                     "ATC's ONNX parser does not expand local functions, so only a custom "
                     "parser plugin for %s would pass", e->type);
    } else if (e->op < r->n_ops) {
        predict_op(r->ops[e->op], e->type, p, note, sizeof(p->note));
    } else if (note) {
        snprintf(note, sizeof(p->note), "opmap: no operator recorded for this node: no "
                 "prediction");
    }
}

static void cause(jsonw *w, int code, const char *message)
{
    jw_object(w);
    jw_kint(w, "code", code);
    jw_kstring(w, "message", message);
    jw_end_object(w);
}

/*
 * An entry as Save writes it. ATC adds causes as it checks: a repeated name is found by
 * the later entry, which marks itself and then the first (after the first's own type
 * check): so a later entry has 9 before its type's cause, the first after. opmap's note
 * comes last, so that dropping code 0 leaves ATC's order.
 */
static void entry_json(jsonw *w, const om_atc_entry *e, const prediction *p)
{
    int failed = e->repeated || p->unsupported;
    jw_object(w);
    if (failed || p->note[0]) {
        jw_key(w, "cause");
        jw_array(w);
        if (e->repeated == 2)
            cause(w, ATC_NAME_REPEATED, ATC_MSG_NAME);
        if (p->unsupported)
            cause(w, ATC_TYPE_UNSUPPORTED, ATC_MSG_TYPE);
        if (e->repeated == 1)
            cause(w, ATC_NAME_REPEATED, ATC_MSG_NAME);
        if (p->note[0])
            cause(w, ATC_OK, p->note);
        jw_end_array(w);
    }
    jw_kstring(w, "name", e->name);
    jw_kstring(w, "result", failed ? "failed" : "success");
    jw_kstring(w, "type", e->type);
    jw_end_object(w);
}

/* One model's check_result.json: "name" is "" (only ATC's Caffe parser sets it), "op" is
 * left out when nothing was listed. */
static void check_result(jsonw *w, const opmap_result *r)
{
    prediction p;
    size_t i, fail = 0;
    for (i = 0; i < r->n_atc; i++) {
        predict(r, &r->atc[i], &p, 0);
        fail += r->atc[i].repeated || p.unsupported;
    }
    jw_object(w);
    jw_kuint(w, "fail", fail);
    jw_kstring(w, "name", "");
    if (r->n_atc) {
        jw_key(w, "op");
        jw_array(w);
        for (i = 0; i < r->n_atc; i++) {
            predict(r, &r->atc[i], &p, 1);
            entry_json(w, &r->atc[i], &p);
        }
        jw_end_array(w);
    }
    jw_kuint(w, "pass", r->n_atc - fail);
    jw_kstring(w, "result", fail ? "failed" : "success");
    jw_kuint(w, "total", r->n_atc);
    jw_end_object(w);
}

static void not_checked(const opmap_result *r, char *buf, size_t size)
{
    if (om_format_has(r->format, OPMAP_FORMAT_TRAIT_SOURCES))
        snprintf(buf, size, "Python sources: no graph for ATC to check");
    else if (om_format_has(r->format, OPMAP_FORMAT_TRAIT_ATC))
        snprintf(buf, size, "no ATC pre-check facts for this model: the JSON report it was "
                 "read from has no atc_precheck");
    else
        snprintf(buf, size, "%s: ATC's pre-check reads ONNX models (atc --framework=5); "
                 "export the model to ONNX to check it", opmap_format_name(r->format));
}

/* Keys sorted here too, so that the whole output is laid out as ATC dumps JSON. */
static void file_entry(jsonw *w, const char *file, const opmap_result *r, const char *skipped)
{
    jw_object(w);
    if (r) {
        jw_key(w, "check_result");
        check_result(w, r);
    }
    jw_kstring(w, "file", file);
    if (!r)
        jw_kstring(w, "skipped", skipped);
    jw_end_object(w);
}

/*
 * One ONNX model and nothing else: its check_result.json, as ATC writes it. Otherwise a
 * list, one entry per result and then per file not read: {"file", "check_result"}, or
 * {"file", "skipped"} saying why there is nothing to compare.
 */
int om_report_atc_precheck(const om_report_in *in, om_out *out)
{
    jsonw w;
    char why[1400], msg[1200];
    size_t i;
    jw_init(&w, out, (in->flags & OPMAP_REPORT_COMPACT) != 0);
    if (in->count == 1 && !in->n_problems && in->results[0]->has_atc) {
        check_result(&w, in->results[0]);
        return OPMAP_OK;
    }
    jw_array(&w);
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        if (!r->has_atc)
            not_checked(r, why, sizeof(why));
        file_entry(&w, r->model_name, r->has_atc ? r : NULL, why);
    }
    for (i = 0; i < in->n_problems; i++) {
        const opmap_file_problem *p = &in->problems[i];
        om_problem_message(p, msg, sizeof(msg));
        snprintf(why, sizeof(why), "%s: %s", p->skipped ? "skipped" : "not read", msg);
        file_entry(&w, p->file ? p->file : "", NULL, why);
    }
    jw_end_array(&w);
    return OPMAP_OK;
}
