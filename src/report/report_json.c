/*
 * report/report_json.c - the JSON report (schema "opmap-report/5", docs/report-json.md,
 * docs/schema/opmap-report-5.schema.json), written as it is produced (jsonw.c): no tree,
 * so memory does not grow with the number of models, and person-days are exact decimals.
 */
#include <stdio.h>
#include <string.h>

#include <opmap/verify.h>

#include "core/text.h"
#include "ir/ir.h"
#include "scan/result_internal.h"
#include "table/source_rules.h"
#include "table/table_internal.h"
#include "jsonw.h"
#include "report_internal.h"
#include "report_json.h"
#include "torch_npu_need.h"

static void effort(jsonw *w, const char *key, opmap_effort e)
{
    jw_key(w, key);
    jw_object(w);
    jw_kdays(w, "min", e.min);
    jw_kdays(w, "expected", e.expected);
    jw_kdays(w, "max", e.max);
    jw_end_object(w);
}

static void flags(jsonw *w, unsigned bits)
{
    unsigned i;
    jw_key(w, "flags");
    jw_array(w);
    for (i = 0; i < OPMAP_FLAG_COUNT; i++)
        if (bits & (1u << i))
            jw_string(w, opmap_flag_name(i));
    jw_end_array(w);
}

static void chip_list(jsonw *w, const opmap_result *r, uint64_t mask)
{
    size_t c;
    jw_key(w, "chips");
    jw_array(w);
    for (c = 0; c < r->n_chips; c++)
        if (mask & (1ull << c))
            jw_string(w, r->chips[c]);
    jw_end_array(w);
}

static void values(jsonw *w, const char *key, const ir_value *v, size_t n)
{
    size_t i;
    jw_key(w, key);
    jw_array(w);
    for (i = 0; i < n; i++) {
        jw_object(w);
        jw_kstring(w, "name", v[i].name);
        jw_kstring(w, "dtype", ir_dtype_name(v[i].type.elem));
        jw_key(w, "shape");
        if (v[i].type.rank < 0) {
            jw_null(w);
        } else {
            int32_t d;
            jw_array(w);
            for (d = 0; d < v[i].type.rank; d++) {
                const ir_dim *dim = &v[i].type.dims[d];
                if (dim->param)
                    jw_string(w, dim->param);
                else if (dim->value >= 0)
                    jw_int(w, dim->value);
                else
                    jw_null(w);
            }
            jw_end_array(w);
        }
        jw_end_object(w);
    }
    jw_end_array(w);
}

/* "a, b" -> "a", "b" */
static void source_ids(jsonw *w, const char *list)
{
    char id[256];
    while (*list) {
        size_t n = strcspn(list, ",");
        snprintf(id, sizeof(id), "%.*s", (int)(n < 255 ? n : 255), list);
        jw_string(w, id);
        list += n;
        while (*list == ',' || *list == ' ')
            list++;
    }
}

static void reasons(jsonw *w, const opmap_result *r, const opmap_op *op)
{
    size_t i;
    jw_key(w, "reasons");
    jw_array(w);
    for (i = 0; i < op->n_reasons; i++) {
        const om_reason *x = &op->reasons[i];
        jw_object(w);
        jw_kstring(w, "message", x->message);
        jw_kstring(w, "value", x->actual);
        jw_key(w, "status");
        if (x->status >= 0)
            jw_string(w, opmap_op_status_name(x->status));
        else
            jw_null(w);
        jw_key(w, "flag");
        if (x->flag)
            jw_string(w, opmap_flag_name((unsigned)__builtin_ctz(x->flag)));
        else
            jw_null(w);
        chip_list(w, r, x->chips);
        jw_kuint(w, "instances", x->instances);
        jw_kstring(w, "example", x->example);
        jw_key(w, "grade");
        if (x->grade)
            jw_string(w, om_grade_name(x->grade));
        else
            jw_null(w);
        jw_key(w, "sources");
        jw_array(w);
        source_ids(w, x->sources);
        jw_end_array(w);
        jw_end_object(w);
    }
    jw_end_array(w);
}

/* A measurement at its six digits (core/text.h), null when not measured. */
static void measure(jsonw *w, const char *key, double v)
{
    char t[OM_MEASURE_TEXT];
    om_measure_text(v, t);
    jw_key(w, key);
    if (t[0])
        jw_number_text(w, t);
    else
        jw_null(w);
}

/* "verification": the device results that matched (scan --results), when any did. */
static void verification(jsonw *w, const opmap_op *op)
{
    size_t i;
    if (op->verify_state == OPMAP_VERIFY_NONE)
        return;
    jw_key(w, "verification");
    jw_object(w);
    jw_kstring(w, "state", opmap_verify_state_name(op->verify_state));
    jw_kuint(w, "instances", op->verified_instances);
    jw_key(w, "results");
    jw_array(w);
    for (i = 0; i < op->n_verified; i++) {
        const om_verified *x = &op->verified[i];
        jw_object(w);
        jw_kstring(w, "signature", x->signature);
        jw_kstring(w, "chip", x->chip);
        jw_kstring(w, "family", x->family);
        jw_kstring(w, "torch_npu", x->torch_npu);
        jw_kstring(w, "cann", x->cann);
        jw_kstring(w, "outcome", x->passed ? "pass" : "fail");
        jw_kstring(w, "standard", x->standard);
        measure(w, "max_abs_error", x->max_abs);
        measure(w, "max_rel_error", x->max_rel);
        measure(w, "cpu_ms", x->cpu_ms);
        measure(w, "device_ms", x->device_ms);
        jw_kstring(w, "message", x->message);
        jw_kstring(w, "source", x->source);
        jw_kuint(w, "instances", x->instances);
        jw_kstring(w, "example", x->example);
        jw_end_object(w);
    }
    jw_end_array(w);
    if (op->verified_dropped)
        jw_kuint(w, "results_dropped", op->verified_dropped);
    if (op->verify_state == OPMAP_VERIFY_PASS) /* what the gate's budget counts */
        effort(w, "effort_unverified", op->effort_unverified);
    jw_end_object(w);
}

static void op_json(jsonw *w, const opmap_result *r, const om_vop *x)
{
    const opmap_op *op = x->op;
    size_t i;
    jw_object(w);
    jw_kstring(w, "domain", op->domain);
    jw_kstring(w, "op_type", op->name);
    jw_kint(w, "opset", op->opset);
    jw_key(w, "since_version");
    if (op->since)
        jw_int(w, op->since);
    else
        jw_null(w);
    jw_kstring(w, "status", opmap_op_status_name(op->status));
    jw_kbool(w, "unpublished", op->unpublished);
    if (op->exported_as[0])
        jw_kstring(w, "exported_as", op->exported_as);
    if (op->source) {
        jw_kstring(w, "rule_status", om_sr_status_name(op->sr_status));
        if (op->guarded)
            jw_kbool(w, "guarded", 1);
        jw_kstring(w, "grade", om_grade_name(op->grade));
    }
    jw_key(w, "chips");
    jw_object(w);
    for (i = 0; i < r->n_chips; i++) {
        jw_key(w, r->chips[i]);
        jw_object(w);
        jw_kstring(w, "status", opmap_op_status_name(op->chip_status[i]));
        jw_kbool(w, "published", (op->row || (op->source && op->sr_status != OM_SR_UNKNOWN)) &&
                                     !op->chip_unknown[i]);
        jw_end_object(w);
    }
    jw_end_object(w);
    flags(w, op->flags);
    jw_kuint(w, "instances", op->instances);
    jw_key(w, "input_dtypes");
    jw_array(w);
    for (i = 1; i < 32; i++)
        if (op->dtypes_seen & (1u << i))
            jw_string(w, ir_dtype_name((int)i));
    if (op->dtypes_seen & 1u)
        jw_string(w, "unknown");
    jw_end_array(w);
    reasons(w, r, op);
    if (op->reasons_dropped)
        jw_kuint(w, "reasons_dropped", op->reasons_dropped);
    effort(w, "effort", op->effort);
    verification(w, op);
    {
        jw_key(w, "ascend");
        jw_object(w);
        jw_kstring(w, "becomes", x->on_ascend);
        if (op->becomes_how[0])
            jw_kstring(w, "how", op->becomes_how);
        if (op->ascend_op[0])
            jw_kstring(w, "op", op->ascend_op);
        if (op->aclnn[0])
            jw_kstring(w, "aclnn", op->aclnn);
        if (op->api[0])
            jw_kstring(w, "api", op->api);
        if (x->engine[0])
            jw_kstring(w, "engine", x->engine);
        jw_end_object(w);
    }
    if (op->bw_status && op->bw_status[0]) {
        /* a training scan: what the gradient runs (docs/reports.md, "Workload") */
        jw_key(w, "backward");
        jw_object(w);
        jw_kstring(w, "status", op->bw_status);
        jw_kstring(w, "ops", op->bw_ops);
        jw_kstring(w, "note", op->bw_note);
        jw_end_object(w);
    }
    if (op->notes[0])
        jw_kstring(w, "notes", op->notes);
    if (op->hint[0])
        jw_kstring(w, "hint", op->hint);
    if (x->next_step)
        jw_kstring(w, "next_step", x->next_step);
    jw_key(w, "sources");
    jw_array(w);
    for (i = 0; i < op->n_sources; i++)
        jw_string(w, op->sources[i]);
    jw_end_array(w);
    jw_key(w, "nodes");
    jw_array(w);
    for (i = 0; i < op->n_paths; i++)
        jw_string(w, op->paths[i]);
    jw_end_array(w);
    if (op->locations) {
        jw_key(w, "locations");
        jw_array(w);
        for (i = 0; i < op->n_paths; i++)
            if (op->locations[i])
                jw_string(w, op->locations[i]);
            else
                jw_null(w);
        jw_end_array(w);
    }
    jw_end_object(w);
}

static void by_status(jsonw *w, const uint64_t *ops, const uint64_t *inst)
{
    int s;
    jw_key(w, "by_status");
    jw_object(w);
    for (s = OPMAP_OP_STATUS_COUNT - 1; s >= 0; s--) {
        jw_key(w, opmap_op_status_name(s));
        jw_object(w);
        jw_kuint(w, "operators", ops[s]);
        jw_kuint(w, "instances", inst[s]);
        jw_end_object(w);
    }
    jw_end_object(w);
}

static void estimate(jsonw *w, const char *key, const opmap_summary *sum)
{
    int s;
    jw_key(w, key);
    jw_object(w);
    jw_kdays(w, "min", sum->effort_total.min);
    jw_kdays(w, "expected", sum->effort_total.expected);
    jw_kdays(w, "max", sum->effort_total.max);
    jw_kstring(w, "unit", "person-days");
    jw_key(w, "by_status");
    jw_object(w);
    for (s = OPMAP_OP_STATUS_COUNT - 1; s > OPMAP_OP_STRUCTURAL; s--)
        effort(w, opmap_op_status_name(s), sum->effort[s]);
    jw_end_object(w);
    jw_end_object(w);
}

static void kinds(jsonw *w, const char *key, unsigned bits)
{
    unsigned k;
    jw_key(w, key);
    jw_array(w);
    for (k = 0; k < OPMAP_FAIL_KIND_COUNT; k++)
        if (bits & (1u << k))
            jw_string(w, opmap_fail_kind_name(k));
    jw_end_array(w);
}

/* The headline (docs/report-json.md, "headline"); `in` adds the rule and the files not read
 * (the report's own, at the top); `reexport` what a model's opset calls for first. */
static void headline(jsonw *w, const opmap_headline *h, const om_report_in *in,
                     const char *reexport)
{
    jw_key(w, "headline");
    jw_object(w);
    jw_kstring(w, "verdict", opmap_readiness_name(h->readiness));
    kinds(w, "blocking", h->blocking);
    kinds(w, "needs_work", h->needing_work);
    jw_kdays(w, "coverage", h->coverage);
    jw_kuint(w, "placed", h->placed);
    jw_kuint(w, "on_npu", h->on_npu);
    jw_kuint(w, "largest_segment", h->largest);
    jw_kdays(w, "largest_share", h->largest_share);
    jw_kuint(w, "operators", h->operators);
    jw_kuint(w, "operators_full", h->operators_full);
    jw_kuint(w, "instances", h->instances);
    jw_kuint(w, "instances_full", h->instances_full);
    if (reexport && reexport[0])
        jw_kstring(w, "reexport", reexport);
    if (in) {
        jw_kuint(w, "models", h->models);
        jw_kuint(w, "files_not_read", h->files_not_read);
        jw_key(w, "rule");
        jw_object(w);
        kinds(w, "blocked_on", in->blocked_on);
        kinds(w, "needs_work_on", in->needs_work_on);
        jw_end_object(w);
    }
    jw_end_object(w);
}

static void segments(jsonw *w, const opmap_result *r)
{
    opmap_segments t = { .size = sizeof(t) };
    size_t i;
    opmap_result_segments(r, &t);
    jw_key(w, "segments");
    jw_object(w);
    jw_kuint(w, "segments", t.segments);
    jw_kuint(w, "transitions", t.transitions);
    jw_kuint(w, "nodes", t.nodes);
    jw_kuint(w, "npu_nodes", t.npu_nodes);
    jw_kuint(w, "largest_segment", t.largest);
    jw_kdays(w, "largest_share", t.npu_nodes ? t.largest * 1000 / t.npu_nodes : 0);
    jw_key(w, "graphs");
    jw_array(w);
    for (i = 0; i < r->segments.seqs.len; i++) {
        const om_seq *q = &OM_VEC_AT(&r->segments.seqs, om_seq, i);
        if (!q->graph)
            continue;
        jw_object(w);
        jw_kstring(w, "graph", q->graph);
        jw_kuint(w, "nodes", q->nodes);
        jw_kuint(w, "npu_nodes", q->npu_nodes);
        jw_kuint(w, "segments", q->segments);
        jw_kuint(w, "largest_segment", q->largest);
        jw_kuint(w, "transitions", q->transitions);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_kuint(w, "breakers_total", r->segments.n_breakers);
    jw_key(w, "breakers");
    jw_array(w);
    for (i = 0; i < r->segments.breakers.len; i++) {
        const om_breaker *b = &OM_VEC_AT(&r->segments.breakers, om_breaker, i);
        jw_object(w);
        jw_kstring(w, "node", b->node);
        jw_kstring(w, "op", b->op);
        jw_kstring(w, "why", b->why);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
}

static const char *const ext_checks[] = { "unchecked", "ok", "missing", "short", "outside" };


/* One ATC command, its flags as fields (docs/report-json.md, "next"). */
static void atc_json(jsonw *w, const opmap_result *r, const om_vcmd *cmd)
{
    size_t k, c = (size_t)cmd->chip;
    om_atc a;
    om_atc_build(r, c, &a);
    jw_object(w);
    jw_kstring(w, "chip", r->chips[c]);
    jw_key(w, "soc_version");
    if (a.part)
        jw_string(w, a.part);
    else
        jw_null(w);
    jw_key(w, "soc_versions");
    jw_array(w);
    for (k = 0; k < a.n_parts; k++)
        jw_string(w, a.parts[k]);
    jw_end_array(w);
    jw_kstring(w, "command", cmd->text);
    jw_key(w, "flags");
    jw_object(w);
    jw_kstring(w, "model", a.model);
    jw_kstring(w, "framework", "5");
    jw_kstring(w, "output", a.output);
    jw_kstring(w, "soc_version", a.part ? a.part : "$SOC_VERSION");
    if (r->n_inputs)
        jw_kstring(w, "input_shape", a.input_shape);
    jw_end_object(w);
    jw_kuint(w, "dynamic_dims", a.dynamic);
    jw_key(w, "profile_flag");
    if (a.profile_flag)
        jw_string(w, a.profile_flag);
    else
        jw_null(w);
    jw_kstring(w, "notes", cmd->notes);
    jw_end_object(w);
}

/* The next commands: ATC's per chip (ONNX), torch_npu's (TorchScript, torch.export). */
static void next_json(jsonw *w, const om_vmodel *m)
{
    size_t c;
    jw_key(w, "next");
    jw_object(w);
    jw_key(w, "atc");
    jw_array(w);
    for (c = 0; c < m->n_next; c++)
        if (m->next[c].chip >= 0)
            atc_json(w, m->r, &m->next[c]);
    jw_end_array(w);
    jw_key(w, "torch_npu");
    jw_array(w);
    for (c = 0; c < m->n_next; c++)
        if (m->next[c].chip < 0)
            jw_string(w, m->next[c].text);
    jw_end_array(w);
    jw_end_object(w);
}

/* Python sources: what was read (docs/source-scan.md). */
static void sources_json(jsonw *w, const opmap_result *r)
{
    jw_key(w, "sources");
    jw_object(w);
    jw_kuint(w, "files", r->src_files);
    jw_kuint(w, "lines", r->src_lines);
    jw_kuint(w, "not_scanned", r->src_not_read);
    jw_end_object(w);
}

/* A fused-kernel advice's own members (docs/patterns.md): its effort, counted apart, what
 * ATC does with the ONNX form, and every place with its source line. */
static void fused_json(jsonw *w, const om_advice *a)
{
    size_t i;
    effort(w, "effort", a->effort);
    jw_kstring(w, "atc", a->atc);
    jw_key(w, "places");
    jw_array(w);
    for (i = 0; i < a->n_places; i++)
        jw_string(w, a->places[i]);
    jw_end_array(w);
    jw_key(w, "lines");
    jw_array(w);
    for (i = 0; i < a->n_places; i++)
        if (a->lines[i])
            jw_string(w, a->lines[i]);
        else
            jw_null(w);
    jw_end_array(w);
}

static void external_json(jsonw *w, const opmap_result *r)
{
    size_t i;
    jw_key(w, "external_data");
    jw_array(w);
    for (i = 0; i < r->n_ext; i++) {
        jw_object(w);
        jw_kstring(w, "tensor", r->ext[i].tensor);
        jw_kstring(w, "location", r->ext[i].location);
        jw_kuint(w, "offset", r->ext[i].offset);
        jw_key(w, "length");
        if (r->ext[i].has_length)
            jw_uint(w, r->ext[i].length);
        else
            jw_null(w);
        jw_kstring(w, "file", ext_checks[r->ext[i].check]);
        jw_end_object(w);
    }
    jw_end_array(w);
}

/* The main graph as ATC's pre-check lists it (ONNX models): what the atc-precheck format
 * is written from, kept here so that opmap merge writes that format again. */
static void atc_precheck_json(jsonw *w, const opmap_result *r)
{
    size_t i;
    if (!r->has_atc)
        return;
    jw_key(w, "atc_precheck");
    jw_array(w);
    for (i = 0; i < r->n_atc; i++) {
        const om_atc_entry *e = &r->atc[i];
        jw_object(w);
        jw_kstring(w, "name", e->name);
        jw_kstring(w, "type", e->type);
        jw_kstring(w, "kind", om_atc_kind_name(e->kind));
        jw_key(w, "operator");
        if (e->op == OM_ATC_NO_OP)
            jw_null(w);
        else
            jw_uint(w, e->op);
        jw_end_object(w);
    }
    jw_end_array(w);
}

static void model_json(jsonw *w, const om_vmodel *m)
{
    const opmap_result *r = m->r;
    size_t i;
    jw_object(w);
    jw_kstring(w, "file", r->model_name);
    headline(w, m->headline, NULL, m->reexport);
    jw_kstring(w, "format", opmap_format_name(r->format));
    if (m->sources)
        sources_json(w, r);
    jw_kint(w, "ir_version", r->ir_version);
    jw_key(w, "producer");
    jw_object(w);
    jw_kstring(w, "name", r->producer_name);
    jw_kstring(w, "version", r->producer_version);
    jw_end_object(w);
    jw_kint(w, "model_version", r->model_version);
    jw_kstring(w, "domain", r->model_domain);
    jw_key(w, "torch_npu");
    jw_object(w);
    jw_kstring(w, "needed", r->tnpu_needed);
    jw_kstring(w, "needed_by", r->tnpu_needed_by);
    jw_end_object(w);
    jw_key(w, "opset_imports");
    jw_array(w);
    for (i = 0; i < r->n_opsets; i++) {
        jw_object(w);
        jw_kstring(w, "domain", r->opsets[i].domain);
        jw_kint(w, "version", r->opsets[i].version);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_key(w, "stats");
    jw_object(w);
    jw_kuint(w, "graphs", r->stats.graphs);
    jw_kuint(w, "nodes", r->stats.nodes);
    jw_kuint(w, "functions", r->stats.functions);
    jw_kuint(w, "initializers", r->stats.initializers);
    jw_kuint(w, "external_tensors", r->stats.external_tensors);
    jw_kuint(w, "weight_bytes", r->stats.weight_bytes);
    jw_end_object(w);
    values(w, "inputs", r->inputs, r->n_inputs);
    values(w, "outputs", r->outputs, r->n_outputs);
    external_json(w, r);
    jw_key(w, "operators");
    jw_array(w);
    for (i = 0; i < r->n_ops; i++)
        op_json(w, r, &m->ops[i]);
    jw_end_array(w);
    jw_key(w, "unmapped");
    jw_array(w);
    for (i = 0; i < r->n_ops; i++) {
        const opmap_op *op = r->ops[i];
        if (op->status != OPMAP_OP_UNMAPPED)
            continue;
        jw_object(w);
        jw_kstring(w, "domain", op->domain);
        jw_kstring(w, "op_type", op->name);
        jw_kint(w, "opset", op->opset);
        jw_kuint(w, "instances", op->instances);
        jw_end_object(w);
    }
    jw_end_array(w);
    atc_precheck_json(w, r);
    jw_key(w, "totals");
    jw_object(w);
    jw_kuint(w, "operators", r->summary.operators_total);
    jw_kuint(w, "instances", r->summary.instances_total);
    by_status(w, r->summary.operators, r->summary.instances);
    jw_end_object(w);
    estimate(w, "estimate", &r->summary);
    jw_key(w, "unpublished");
    jw_object(w);
    jw_kuint(w, "operators", r->unpublished_ops);
    effort(w, "effort", r->unpublished_effort);
    jw_end_object(w);
    segments(w, r);
    jw_key(w, "risks");
    jw_array(w);
    for (i = 0; i < r->risks.len; i++) {
        const om_risk *k = &OM_VEC_AT(&r->risks, om_risk, i);
        jw_object(w);
        jw_kstring(w, "kind", k->kind);
        jw_kstring(w, "level", k->level == OPMAP_DIAG_WARNING ? "warning" : "info");
        jw_kstring(w, "message", k->message);
        jw_kstring(w, "where", k->where);
        jw_kbool(w, "restates_flag", k->from_flag);
        jw_end_object(w);
    }
    jw_end_array(w);
    if (r->risks_dropped)
        jw_kuint(w, "risks_dropped", r->risks_dropped);
    jw_key(w, "advice");
    jw_array(w);
    for (i = 0; i < r->advice.len; i++) {
        const om_advice *a = &OM_VEC_AT(&r->advice, om_advice, i);
        jw_object(w);
        jw_kstring(w, "id", a->id);
        jw_kstring(w, "kind", a->fused ? "fused" : a->custom_op ? "custom_op"
                              : a->optional ? "optional" : "required");
        jw_kstring(w, "message", a->message);
        jw_kstring(w, "action", a->action);
        jw_kstring(w, "value", a->value);
        jw_kstring(w, "where", a->where);
        jw_kuint(w, "count", a->count);
        jw_key(w, "grade");
        if (a->grade)
            jw_string(w, om_grade_name(a->grade));
        else
            jw_null(w);
        jw_key(w, "sources");
        jw_array(w);
        source_ids(w, a->sources);
        jw_end_array(w);
        jw_kstring(w, "recipes", a->recipes);
        if (a->fused)
            fused_json(w, a);
        jw_end_object(w);
    }
    jw_end_array(w);
    next_json(w, m);
    jw_key(w, "diagnostics");
    jw_array(w);
    for (i = 0; i < r->diags.len; i++) {
        const om_diag *d = &OM_VEC_AT(&r->diags, om_diag, i);
        jw_object(w);
        jw_kstring(w, "level", d->level == OPMAP_DIAG_WARNING ? "warning" : "info");
        jw_kstring(w, "message", d->message);
        jw_kstring(w, "where", d->where);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
}

/* Files the scan did not read: "errors" (could not be read) and "skipped" (not models).
 * Each keeps its error whole and its place among all of them ("order"), so opmap merge
 * gives them back as the scan met them. */
static void problems(jsonw *w, const om_report_in *in)
{
    size_t i;
    int skipped;
    for (skipped = 0; skipped < 2; skipped++) {
        jw_key(w, skipped ? "skipped" : "errors");
        jw_array(w);
        for (i = 0; i < in->n_problems; i++) {
            const opmap_file_problem *p = &in->problems[i];
            const opmap_error *e = p->error;
            char msg[1200];
            if (!p->skipped != !skipped)
                continue;
            jw_object(w);
            jw_kstring(w, "file", p->file ? p->file : "");
            if (skipped) {
                om_problem_message(p, msg, sizeof(msg));
                jw_kstring(w, "reason", msg);
            }
            if (e) { /* a library caller may give a problem without its error */
                jw_kstring(w, "status", opmap_status_str(e->code));
                jw_kint(w, "code", e->code);
                jw_kstring(w, "source", e->source);
                jw_kstring(w, "message", e->message);
                if (e->line) {
                    jw_kuint(w, "line", e->line);
                    jw_kuint(w, "column", e->column);
                }
                if (e->offset != OPMAP_NO_OFFSET)
                    jw_kuint(w, "offset", e->offset);
                if (e->sys_errno)
                    jw_kint(w, "errno", e->sys_errno);
            }
            jw_kuint(w, "order", i);
            jw_end_object(w);
        }
        jw_end_array(w);
    }
}

static int copy_out(void *payload, const void *data, size_t size)
{
    om_out_bytes(payload, data, size);
    return ((om_out *)payload)->failed ? -1 : 0;
}

static void gate(jsonw *w, const opmap_verdict *v, const om_json_top *t)
{
    size_t i, n = opmap_verdict_finding_count(v);
    jw_key(w, "gate");
    jw_object(w);
    jw_kbool(w, "passed", opmap_verdict_passed(v));
    jw_kbool(w, "incomplete", opmap_verdict_incomplete(v));
    jw_key(w, "findings");
    jw_array(w);
    if (t->findings && t->n_findings) { /* the models' findings, written as they came */
        if (om_spool_replay(t->findings, copy_out, w->o) != OPMAP_OK)
            w->o->failed = 1;
        w->first[w->depth] = 0;
    }
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, i, &f);
        om_json_finding(w, &f);
    }
    jw_end_array(w);
    jw_end_object(w);
}

void om_json_finding(jsonw *w, const opmap_finding *fp)
{
    const opmap_finding f = *fp;
    {
        jw_object(w);
        jw_kstring(w, "kind", opmap_fail_kind_name((unsigned)__builtin_ctz(f.kind)));
        jw_kstring(w, "model", f.model);
        jw_kstring(w, "domain", f.domain);
        jw_kstring(w, "op_type", f.op);
        jw_kstring(w, "node", f.node);
        jw_kstring(w, "message", f.message);
        jw_kuint(w, "instances", f.instances);
        jw_kbool(w, "fails", f.fails);
        if (f.waived) {
            jw_key(w, "waiver");
            jw_object(w);
            jw_kstring(w, "reason", f.waiver_reason);
            jw_kstring(w, "owner", f.waiver_owner);
            jw_kstring(w, "expires", f.waiver_expires);
            jw_kbool(w, "expired", f.waiver_expired);
            jw_end_object(w);
        }
        jw_end_object(w);
    }
}

static void portfolio(jsonw *w, const om_portfolio *p)
{
    size_t i;
    jw_key(w, "portfolio");
    jw_object(w);
    om_json_portfolio_sums(w, p);
    jw_key(w, "operators");
    jw_array(w);
    for (i = 0; i < p->n; i++) {
        const om_port_op *op = &p->ops[i];
        jw_object(w);
        jw_kstring(w, "domain", op->domain);
        jw_kstring(w, "op_type", op->name);
        jw_kstring(w, "status", opmap_op_status_name(op->status));
        flags(w, op->flags);
        jw_kuint(w, "models", op->models);
        jw_kuint(w, "instances", op->instances);
        effort(w, "effort", op->effort);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
}

void om_json_portfolio_sums(jsonw *w, const om_portfolio *p)
{
    opmap_effort saved;
    estimate(w, "estimate", &p->summary);
    effort(w, "separately", p->separately);
    saved.min = p->separately.min - p->summary.effort_total.min;
    saved.expected = p->separately.expected - p->summary.effort_total.expected;
    saved.max = p->separately.max - p->summary.effort_total.max;
    effort(w, "saved", saved);
    {
        opmap_effort code;
        size_t n = om_source_share(p, &code);
        if (n) {
            jw_key(w, "training_code");
            jw_object(w);
            jw_kuint(w, "patterns", n);
            effort(w, "effort", code);
            jw_end_object(w);
        }
    }
}

/* Per chip (parallel to "chips"): its family, the part asked for (or null), the parts. */
static void socs_json(jsonw *w, const opmap_result *r)
{
    size_t i, k;
    jw_key(w, "socs");
    jw_array(w);
    for (i = 0; r && i < r->n_chips; i++) {
        const om_chip *c = r->chip_info ? &r->chip_info[i] : NULL;
        jw_object(w);
        jw_kstring(w, "family", r->chips[i]);
        jw_key(w, "part");
        if (c && c->part)
            jw_string(w, c->part);
        else
            jw_null(w);
        jw_key(w, "parts");
        jw_array(w);
        for (k = 0; c && k < c->n_parts; k++)
            jw_string(w, c->parts[k]);
        jw_end_array(w);
        jw_end_object(w);
    }
    jw_end_array(w);
}

/* The top of the report, up to and with the opening of "models". */
void om_json_head(jsonw *w, const om_report_in *in, const om_json_top *t)
{
    om_json_header(w, in, t, OPMAP_REPORT_JSON_SCHEMA);
    jw_key(w, "models");
    jw_array(w);
}

void om_json_header(jsonw *w, const om_report_in *in, const om_json_top *t, const char *schema)
{
    const opmap_result *r0 = t->first;
    size_t i;
    jw_object(w);
    jw_kstring(w, "schema", schema);
    headline(w, &in->overall, in, t->reexport);
    jw_key(w, "tool");
    jw_object(w);
    jw_kstring(w, "name", "opmap");
    jw_kstring(w, "version", opmap_version_string());
    jw_end_object(w);
    jw_key(w, "table");
    jw_object(w);
    if (r0) {
        jw_kstring(w, "origin", r0->table_origin);
        jw_kstring(w, "name", r0->table_name);
        jw_kstring(w, "version", r0->table_version);
        jw_kstring(w, "torch_npu", r0->torch_npu);
        jw_kstring(w, "cann", r0->cann);
    }
    jw_end_object(w);
    jw_key(w, "chips");
    jw_array(w);
    for (i = 0; r0 && i < r0->n_chips; i++)
        jw_string(w, r0->chips[i]);
    jw_end_array(w);
    jw_key(w, "torch_npu");
    jw_object(w);
    jw_kstring(w, "target", r0 && r0->tnpu_target ? r0->tnpu_target : "");
    jw_kstring(w, "needed", t->need);
    jw_kstring(w, "needed_by", t->need_by);
    jw_kstring(w, "needed_by_model", t->need_model);
    jw_end_object(w);
    jw_kstring(w, "mode", opmap_mode_name(r0 ? r0->mode : OPMAP_MODE_EAGER));
    /* the one asked for: an ONNX model of a training scan was answered for inference */
    jw_kstring(w, "workload", opmap_workload_name(
                                  r0 && (r0->workload == OPMAP_WORKLOAD_TRAINING ||
                                         r0->workload_narrowed)
                                      ? OPMAP_WORKLOAD_TRAINING : OPMAP_WORKLOAD_INFERENCE));
    socs_json(w, r0);
}

void om_json_model(jsonw *w, const om_vmodel *m)
{
    model_json(w, m);
}

/* The rest, from the end of "models": the files not read, the totals, the portfolio, the
 * cost and the gate. */
void om_json_tail(jsonw *w, const om_report_in *in, const om_json_top *t)
{
    const om_portfolio *p = in->portfolio;
    jw_end_array(w);
    problems(w, in);
    om_json_totals(w, in, t->count);
    if (t->count > 1)
        portfolio(w, p);
    om_json_cost(w, in);
    gate(w, in->verdict, t);
    jw_end_object(w);
    om_out_str(w->o, "\n");
}

void om_json_problems(jsonw *w, const om_report_in *in)
{
    problems(w, in);
}

void om_json_effort(jsonw *w, const char *key, opmap_effort e)
{
    effort(w, key, e);
}

void om_json_flags(jsonw *w, unsigned bits)
{
    flags(w, bits);
}

void om_json_kinds(jsonw *w, const char *key, unsigned bits)
{
    kinds(w, key, bits);
}

void om_json_totals(jsonw *w, const om_report_in *in, size_t count)
{
    const om_portfolio *p = in->portfolio;
    jw_key(w, "totals");
    jw_object(w);
    jw_kuint(w, "models", count);
    jw_kuint(w, "operators", p->summary.operators_total);
    jw_kuint(w, "instances", p->summary.instances_total);
    by_status(w, p->summary.operators, p->summary.instances);
    jw_end_object(w);
}

void om_json_cost(jsonw *w, const om_report_in *in)
{
    const om_portfolio *p = in->portfolio;
    if (in->day_rate > 0) {
        jw_key(w, "cost");
        jw_object(w);
        jw_key(w, "day_rate");
        jw_number(w, in->day_rate);
        jw_kstring(w, "currency", in->currency);
        jw_key(w, "min");
        jw_number(w, om_cost(in, p->summary.effort_total.min));
        jw_key(w, "expected");
        jw_number(w, om_cost(in, p->summary.effort_total.expected));
        jw_key(w, "max");
        jw_number(w, om_cost(in, p->summary.effort_total.max));
        jw_end_object(w);
    }
}

int om_report_json(const om_report_in *in, om_out *out)
{
    const opmap_result *need = om_report_tnpu_needed(in);
    om_json_top t;
    jsonw w;
    size_t i;
    t.count = in->count;
    t.first = in->count ? in->results[0] : NULL;
    t.need = need ? need->tnpu_needed : "";
    t.need_by = need ? need->tnpu_needed_by : "";
    t.need_model = need ? need->model_name : "";
    t.reexport = in->view->reexport;
    t.findings = NULL;
    t.n_findings = 0;
    jw_init(&w, out, (in->flags & OPMAP_REPORT_COMPACT) != 0);
    om_json_head(&w, in, &t);
    for (i = 0; i < in->count; i++)
        model_json(&w, &in->view->models[i]);
    om_json_tail(&w, in, &t);
    return OPMAP_OK;
}
