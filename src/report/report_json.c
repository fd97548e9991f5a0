/*
 * report/report_json.c - the JSON report (schema "opmap-report/1", docs/report-json.md).
 *
 * Built as a cJSON tree, printed once. cJSON's process-wide hooks are never touched.
 * Person-days are written as decimal numbers from exact thousandths.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../ir/ir.h"
#include "../scan/result_internal.h"
#include "report_internal.h"

static double days(uint64_t milli)
{
    return (double)milli / 1000.0;
}

static cJSON *effort_json(opmap_effort e)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "min", days(e.min));
    cJSON_AddNumberToObject(o, "expected", days(e.expected));
    cJSON_AddNumberToObject(o, "max", days(e.max));
    return o;
}

static cJSON *flags_json(unsigned flags)
{
    cJSON *a = cJSON_CreateArray();
    unsigned i;
    for (i = 0; a && i < OPMAP_FLAG_COUNT; i++)
        if (flags & (1u << i))
            cJSON_AddItemToArray(a, cJSON_CreateString(opmap_flag_name(i)));
    return a;
}

static cJSON *values_json(const ir_value *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    size_t i;
    for (i = 0; a && i < n; i++) {
        cJSON *o = cJSON_CreateObject(), *shape;
        if (!o)
            return a;
        cJSON_AddItemToArray(a, o);
        cJSON_AddStringToObject(o, "name", v[i].name);
        cJSON_AddStringToObject(o, "dtype", ir_dtype_name(v[i].type.elem));
        if (v[i].type.rank < 0) {
            cJSON_AddNullToObject(o, "shape");
            continue;
        }
        shape = cJSON_AddArrayToObject(o, "shape");
        if (shape) {
            int32_t d;
            for (d = 0; d < v[i].type.rank; d++) {
                const ir_dim *dim = &v[i].type.dims[d];
                if (dim->param)
                    cJSON_AddItemToArray(shape, cJSON_CreateString(dim->param));
                else if (dim->value >= 0)
                    cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)dim->value));
                else
                    cJSON_AddItemToArray(shape, cJSON_CreateNull());
            }
        }
    }
    return a;
}

static cJSON *chip_list(const opmap_result *r, uint64_t mask)
{
    cJSON *a = cJSON_CreateArray();
    size_t c;
    for (c = 0; a && c < r->n_chips; c++)
        if (mask & (1ull << c))
            cJSON_AddItemToArray(a, cJSON_CreateString(r->chips[c]));
    return a;
}

static cJSON *reasons_json(const opmap_result *r, const opmap_op *op)
{
    cJSON *a = cJSON_CreateArray();
    size_t i;
    for (i = 0; a && i < op->n_reasons; i++) {
        const om_reason *x = &op->reasons[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "message", x->message);
        cJSON_AddStringToObject(o, "value", x->actual);
        if (x->status >= 0)
            cJSON_AddStringToObject(o, "status", opmap_op_status_name(x->status));
        else
            cJSON_AddNullToObject(o, "status");
        if (x->flag) {
            unsigned b = 0;
            while (!(x->flag & (1u << b)))
                b++;
            cJSON_AddStringToObject(o, "flag", opmap_flag_name(b));
        } else {
            cJSON_AddNullToObject(o, "flag");
        }
        cJSON_AddItemToObject(o, "chips", chip_list(r, x->chips));
        cJSON_AddNumberToObject(o, "instances", (double)x->instances);
        cJSON_AddStringToObject(o, "example", x->example);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *op_json(const opmap_result *r, const opmap_op *op)
{
    cJSON *o = cJSON_CreateObject(), *nodes, *src, *chips, *dts;
    size_t i;
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "domain", op->domain);
    cJSON_AddStringToObject(o, "op_type", op->name);
    cJSON_AddNumberToObject(o, "opset", (double)op->opset);
    if (op->since)
        cJSON_AddNumberToObject(o, "since_version", (double)op->since);
    else
        cJSON_AddNullToObject(o, "since_version");
    cJSON_AddStringToObject(o, "status", opmap_op_status_name(op->status));
    chips = cJSON_AddObjectToObject(o, "chips");
    for (i = 0; chips && i < r->n_chips; i++) {
        cJSON *c = cJSON_AddObjectToObject(chips, r->chips[i]);
        if (!c)
            break;
        cJSON_AddStringToObject(c, "status", opmap_op_status_name(op->chip_status[i]));
        cJSON_AddBoolToObject(c, "published", op->row && !op->chip_unknown[i]);
    }
    cJSON_AddItemToObject(o, "flags", flags_json(op->flags));
    cJSON_AddNumberToObject(o, "instances", (double)op->instances);
    dts = cJSON_AddArrayToObject(o, "input_dtypes");
    for (i = 1; dts && i < 32; i++)
        if (op->dtypes_seen & (1u << i))
            cJSON_AddItemToArray(dts, cJSON_CreateString(ir_dtype_name((int)i)));
    if (dts && (op->dtypes_seen & 1u))
        cJSON_AddItemToArray(dts, cJSON_CreateString("unknown"));
    cJSON_AddItemToObject(o, "reasons", reasons_json(r, op));
    if (op->reasons_dropped)
        cJSON_AddNumberToObject(o, "reasons_dropped", (double)op->reasons_dropped);
    cJSON_AddItemToObject(o, "effort", effort_json(op->effort));
    if (op->ascend_op[0] || op->engine[0]) {
        cJSON *asc = cJSON_AddObjectToObject(o, "ascend");
        if (asc) {
            if (op->ascend_op[0])
                cJSON_AddStringToObject(asc, "op", op->ascend_op);
            if (op->engine[0])
                cJSON_AddStringToObject(asc, "engine", op->engine);
        }
    }
    if (op->notes[0])
        cJSON_AddStringToObject(o, "notes", op->notes);
    if (op->hint[0])
        cJSON_AddStringToObject(o, "hint", op->hint);
    src = cJSON_AddArrayToObject(o, "sources");
    for (i = 0; src && i < op->n_sources; i++)
        cJSON_AddItemToArray(src, cJSON_CreateString(op->sources[i]));
    nodes = cJSON_AddArrayToObject(o, "nodes");
    for (i = 0; nodes && i < op->n_paths; i++)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(op->paths[i]));
    return o;
}

static cJSON *status_counts_json(const uint64_t *ops, const uint64_t *inst)
{
    cJSON *o = cJSON_CreateObject();
    int s;
    for (s = OPMAP_OP_STATUS_COUNT - 1; o && s >= 0; s--) {
        cJSON *e = cJSON_AddObjectToObject(o, opmap_op_status_name(s));
        if (!e)
            continue;
        cJSON_AddNumberToObject(e, "operators", (double)ops[s]);
        cJSON_AddNumberToObject(e, "instances", (double)inst[s]);
    }
    return o;
}

static cJSON *estimate_json(const opmap_summary *sum)
{
    cJSON *o = effort_json(sum->effort_total), *by;
    int s;
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "unit", "person-days");
    by = cJSON_AddObjectToObject(o, "by_status");
    for (s = OPMAP_OP_STATUS_COUNT - 1; by && s > OPMAP_OP_STRUCTURAL; s--)
        cJSON_AddItemToObject(by, opmap_op_status_name(s), effort_json(sum->effort[s]));
    return o;
}

static cJSON *segments_json(const opmap_result *r)
{
    cJSON *o = cJSON_CreateObject(), *graphs, *br;
    opmap_segments t;
    size_t i;
    if (!o)
        return NULL;
    opmap_result_segments(r, &t);
    cJSON_AddNumberToObject(o, "segments", (double)t.segments);
    cJSON_AddNumberToObject(o, "transitions", (double)t.transitions);
    cJSON_AddNumberToObject(o, "nodes", (double)t.nodes);
    cJSON_AddNumberToObject(o, "npu_nodes", (double)t.npu_nodes);
    cJSON_AddNumberToObject(o, "largest_segment", (double)t.largest);
    cJSON_AddNumberToObject(o, "largest_share",
                            t.npu_nodes ? (double)(t.largest * 1000 / t.npu_nodes) / 1000.0 : 0);
    graphs = cJSON_AddArrayToObject(o, "graphs");
    for (i = 0; graphs && i < r->segments.seqs.len; i++) {
        const om_seq *q = &OM_VEC_AT(&r->segments.seqs, om_seq, i);
        cJSON *g;
        if (!q->graph || !(g = cJSON_CreateObject()))
            continue;
        cJSON_AddStringToObject(g, "graph", q->graph);
        cJSON_AddNumberToObject(g, "nodes", (double)q->nodes);
        cJSON_AddNumberToObject(g, "npu_nodes", (double)q->npu_nodes);
        cJSON_AddNumberToObject(g, "segments", (double)q->segments);
        cJSON_AddNumberToObject(g, "largest_segment", (double)q->largest);
        cJSON_AddNumberToObject(g, "transitions", (double)q->transitions);
        cJSON_AddItemToArray(graphs, g);
    }
    cJSON_AddNumberToObject(o, "breakers_total", (double)r->segments.n_breakers);
    br = cJSON_AddArrayToObject(o, "breakers");
    for (i = 0; br && i < r->segments.breakers.len; i++) {
        const om_breaker *b = &OM_VEC_AT(&r->segments.breakers, om_breaker, i);
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddStringToObject(e, "node", b->node);
        cJSON_AddStringToObject(e, "op", b->op);
        cJSON_AddStringToObject(e, "why", b->why);
        cJSON_AddItemToArray(br, e);
    }
    return o;
}

static cJSON *model_json(const opmap_result *r)
{
    cJSON *m = cJSON_CreateObject(), *a, *p;
    size_t i;
    if (!m)
        return NULL;
    cJSON_AddStringToObject(m, "file", r->model_name);
    cJSON_AddStringToObject(m, "format", opmap_format_name(r->format));
    cJSON_AddNumberToObject(m, "ir_version", (double)r->ir_version);
    p = cJSON_AddObjectToObject(m, "producer");
    if (p) {
        cJSON_AddStringToObject(p, "name", r->producer_name);
        cJSON_AddStringToObject(p, "version", r->producer_version);
    }
    cJSON_AddNumberToObject(m, "model_version", (double)r->model_version);
    cJSON_AddStringToObject(m, "domain", r->model_domain);
    a = cJSON_AddArrayToObject(m, "opset_imports");
    for (i = 0; a && i < r->n_opsets; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "domain", r->opsets[i].domain);
        cJSON_AddNumberToObject(o, "version", (double)r->opsets[i].version);
        cJSON_AddItemToArray(a, o);
    }
    p = cJSON_AddObjectToObject(m, "stats");
    if (p) {
        cJSON_AddNumberToObject(p, "graphs", (double)r->stats.graphs);
        cJSON_AddNumberToObject(p, "nodes", (double)r->stats.nodes);
        cJSON_AddNumberToObject(p, "functions", (double)r->stats.functions);
        cJSON_AddNumberToObject(p, "initializers", (double)r->stats.initializers);
        cJSON_AddNumberToObject(p, "external_tensors", (double)r->stats.external_tensors);
        cJSON_AddNumberToObject(p, "weight_bytes", (double)r->stats.weight_bytes);
    }
    cJSON_AddItemToObject(m, "inputs", values_json(r->inputs, r->n_inputs));
    cJSON_AddItemToObject(m, "outputs", values_json(r->outputs, r->n_outputs));
    a = cJSON_AddArrayToObject(m, "external_data");
    for (i = 0; a && i < r->n_ext; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "tensor", r->ext[i].tensor);
        cJSON_AddStringToObject(o, "location", r->ext[i].location);
        cJSON_AddNumberToObject(o, "offset", (double)r->ext[i].offset);
        if (r->ext[i].has_length)
            cJSON_AddNumberToObject(o, "length", (double)r->ext[i].length);
        else
            cJSON_AddNullToObject(o, "length");
        {
            static const char *const checks[] = { "unchecked", "ok", "missing", "short",
                                                  "outside" };
            cJSON_AddStringToObject(o, "file", checks[r->ext[i].check]);
        }
        cJSON_AddItemToArray(a, o);
    }
    a = cJSON_AddArrayToObject(m, "operators");
    for (i = 0; a && i < r->n_ops; i++)
        cJSON_AddItemToArray(a, op_json(r, r->ops[i]));
    a = cJSON_AddArrayToObject(m, "unmapped");
    for (i = 0; a && i < r->n_ops; i++) {
        const opmap_op *op = r->ops[i];
        cJSON *o;
        if (op->status != OPMAP_OP_UNMAPPED || !(o = cJSON_CreateObject()))
            continue;
        cJSON_AddStringToObject(o, "domain", op->domain);
        cJSON_AddStringToObject(o, "op_type", op->name);
        cJSON_AddNumberToObject(o, "opset", (double)op->opset);
        cJSON_AddNumberToObject(o, "instances", (double)op->instances);
        cJSON_AddItemToArray(a, o);
    }
    p = cJSON_AddObjectToObject(m, "totals");
    if (p) {
        cJSON_AddNumberToObject(p, "operators", (double)r->summary.operators_total);
        cJSON_AddNumberToObject(p, "instances", (double)r->summary.instances_total);
        cJSON_AddItemToObject(p, "by_status",
                              status_counts_json(r->summary.operators, r->summary.instances));
    }
    cJSON_AddItemToObject(m, "estimate", estimate_json(&r->summary));
    cJSON_AddItemToObject(m, "segments", segments_json(r));
    a = cJSON_AddArrayToObject(m, "risks");
    for (i = 0; a && i < r->risks.len; i++) {
        const om_risk *k = &OM_VEC_AT(&r->risks, om_risk, i);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "kind", k->kind);
        cJSON_AddStringToObject(o, "level", k->level == OPMAP_DIAG_WARNING ? "warning" : "info");
        cJSON_AddStringToObject(o, "message", k->message);
        cJSON_AddStringToObject(o, "where", k->where);
        cJSON_AddItemToArray(a, o);
    }
    if (r->risks_dropped)
        cJSON_AddNumberToObject(m, "risks_dropped", (double)r->risks_dropped);
    a = cJSON_AddArrayToObject(m, "diagnostics");
    for (i = 0; a && i < r->diags.len; i++) {
        const om_diag *d = &OM_VEC_AT(&r->diags, om_diag, i);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "level", d->level == OPMAP_DIAG_WARNING ? "warning" : "info");
        cJSON_AddStringToObject(o, "message", d->message);
        cJSON_AddStringToObject(o, "where", d->where);
        cJSON_AddItemToArray(a, o);
    }
    return m;
}

static cJSON *gate_json(const opmap_verdict *v)
{
    cJSON *o = cJSON_CreateObject(), *a;
    size_t i, n = opmap_verdict_finding_count(v);
    if (!o)
        return NULL;
    cJSON_AddBoolToObject(o, "passed", opmap_verdict_passed(v));
    a = cJSON_AddArrayToObject(o, "findings");
    for (i = 0; a && i < n; i++) {
        opmap_finding f;
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        opmap_verdict_finding(v, i, &f);
        cJSON_AddStringToObject(e, "kind", opmap_fail_kind_name((unsigned)__builtin_ctz(f.kind)));
        cJSON_AddStringToObject(e, "model", f.model);
        cJSON_AddStringToObject(e, "domain", f.domain);
        cJSON_AddStringToObject(e, "op_type", f.op);
        cJSON_AddStringToObject(e, "node", f.node);
        cJSON_AddStringToObject(e, "message", f.message);
        cJSON_AddNumberToObject(e, "instances", (double)f.instances);
        cJSON_AddBoolToObject(e, "fails", f.fails);
        if (f.waived) {
            cJSON *w = cJSON_AddObjectToObject(e, "waiver");
            if (w) {
                cJSON_AddStringToObject(w, "reason", f.waiver_reason);
                cJSON_AddStringToObject(w, "owner", f.waiver_owner);
                cJSON_AddStringToObject(w, "expires", f.waiver_expires);
                cJSON_AddBoolToObject(w, "expired", f.waiver_expired);
            }
        }
        cJSON_AddItemToArray(a, e);
    }
    return o;
}

static cJSON *portfolio_json(const om_portfolio *p)
{
    cJSON *o = cJSON_CreateObject(), *ops;
    opmap_effort saved;
    size_t i;
    if (!o)
        return NULL;
    cJSON_AddItemToObject(o, "estimate", estimate_json(&p->summary));
    cJSON_AddItemToObject(o, "separately", effort_json(p->separately));
    saved.min = p->separately.min - p->summary.effort_total.min;
    saved.expected = p->separately.expected - p->summary.effort_total.expected;
    saved.max = p->separately.max - p->summary.effort_total.max;
    cJSON_AddItemToObject(o, "saved", effort_json(saved));
    ops = cJSON_AddArrayToObject(o, "operators");
    for (i = 0; ops && i < p->n; i++) {
        const om_port_op *op = &p->ops[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddStringToObject(e, "domain", op->domain);
        cJSON_AddStringToObject(e, "op_type", op->name);
        cJSON_AddStringToObject(e, "status", opmap_op_status_name(op->status));
        cJSON_AddItemToObject(e, "flags", flags_json(op->flags));
        cJSON_AddNumberToObject(e, "models", (double)op->models);
        cJSON_AddNumberToObject(e, "instances", (double)op->instances);
        cJSON_AddItemToObject(e, "effort", effort_json(op->effort));
        cJSON_AddItemToArray(ops, e);
    }
    return o;
}

int om_report_json(const om_report_in *in, om_out *out)
{
    cJSON *root = cJSON_CreateObject(), *tool, *table, *models, *totals;
    const om_portfolio *p = in->portfolio;
    char *text;
    size_t i;
    if (!root)
        return OPMAP_ENOMEM;
    cJSON_AddStringToObject(root, "schema", OPMAP_REPORT_JSON_SCHEMA);
    tool = cJSON_AddObjectToObject(root, "tool");
    if (tool) {
        cJSON_AddStringToObject(tool, "name", "opmap");
        cJSON_AddStringToObject(tool, "version", opmap_version_string());
    }
    table = cJSON_AddObjectToObject(root, "table");
    if (table && in->count) {
        const opmap_result *r0 = in->results[0];
        cJSON *chips;
        cJSON_AddStringToObject(table, "origin", r0->table_origin);
        cJSON_AddStringToObject(table, "name", r0->table_name);
        cJSON_AddStringToObject(table, "version", r0->table_version);
        cJSON_AddStringToObject(table, "torch_npu", r0->torch_npu);
        cJSON_AddStringToObject(table, "cann", r0->cann);
        chips = cJSON_AddArrayToObject(root, "chips");
        for (i = 0; chips && i < r0->n_chips; i++)
            cJSON_AddItemToArray(chips, cJSON_CreateString(r0->chips[i]));
    }
    models = cJSON_AddArrayToObject(root, "models");
    for (i = 0; models && i < in->count; i++)
        cJSON_AddItemToArray(models, model_json(in->results[i]));
    totals = cJSON_AddObjectToObject(root, "totals");
    if (totals) {
        cJSON_AddNumberToObject(totals, "models", (double)in->count);
        cJSON_AddNumberToObject(totals, "operators", (double)p->summary.operators_total);
        cJSON_AddNumberToObject(totals, "instances", (double)p->summary.instances_total);
        cJSON_AddItemToObject(totals, "by_status",
                              status_counts_json(p->summary.operators, p->summary.instances));
    }
    if (in->count > 1)
        cJSON_AddItemToObject(root, "portfolio", portfolio_json(p));
    if (in->day_rate > 0) {
        cJSON *cost = cJSON_AddObjectToObject(root, "cost");
        if (cost) {
            cJSON_AddNumberToObject(cost, "day_rate", in->day_rate);
            cJSON_AddStringToObject(cost, "currency", in->currency);
            cJSON_AddNumberToObject(cost, "min", om_cost(in, p->summary.effort_total.min));
            cJSON_AddNumberToObject(cost, "expected",
                                    om_cost(in, p->summary.effort_total.expected));
            cJSON_AddNumberToObject(cost, "max", om_cost(in, p->summary.effort_total.max));
        }
    }
    cJSON_AddItemToObject(root, "gate", gate_json(in->verdict));
    text = (in->flags & OPMAP_REPORT_COMPACT) ? cJSON_PrintUnformatted(root) : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return OPMAP_ENOMEM;
    om_out_str(out, text);
    om_out_str(out, "\n");
    cJSON_free(text);
    return OPMAP_OK;
}
