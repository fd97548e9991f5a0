/*
 * merge/read_model.c - one element of a report's "models" back into a scan result, as
 * opmap_scan() left it: the same fields, so every report format renders it the same.
 *
 * The model's totals and estimate are summed again from its operators, as the scan sums
 * them, and must equal the ones written: a report edited by hand is refused, not believed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "estimate/estimate.h"
#include "ir/ir.h"
#include "scan/result_estimate.h"
#include "merge_internal.h"

static int oom(rr *r, opmap_result *res) { return om_fail_mem(r->err, &res->mem, r->source); }

static const char *format_name(int f) { return opmap_format_name((opmap_format)f); }

static const char *const ext_checks[] = { "unchecked", "ok", "missing", "short", "outside" };
static const char *ext_check(int i) { return i >= 0 && i < 5 ? ext_checks[i] : NULL; }

static int read_facts(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *p, *s, *t;
    int rc, format;
    if ((rc = rr_str(r, m, "file", &res->arena, &res->model_name)) ||
        (rc = rr_name(r, m, "format", format_name, 16, &format)) ||
        (rc = rr_int(r, m, "ir_version", &res->ir_version)) || (rc = rr_obj(r, m, "producer", &p)) ||
        (rc = rr_str(r, p, "name", &res->arena, &res->producer_name)) ||
        (rc = rr_str(r, p, "version", &res->arena, &res->producer_version)) ||
        (rc = rr_int(r, m, "model_version", &res->model_version)) ||
        (rc = rr_str(r, m, "domain", &res->arena, &res->model_domain)) ||
        (rc = rr_obj(r, m, "torch_npu", &t)) ||
        (rc = rr_str(r, t, "needed", &res->arena, &res->tnpu_needed)) ||
        (rc = rr_str(r, t, "needed_by", &res->arena, &res->tnpu_needed_by)) ||
        (rc = rr_obj(r, m, "stats", &s)) || (rc = rr_uint(r, s, "graphs", &res->stats.graphs)) ||
        (rc = rr_uint(r, s, "nodes", &res->stats.nodes)) ||
        (rc = rr_uint(r, s, "functions", &res->stats.functions)) ||
        (rc = rr_uint(r, s, "initializers", &res->stats.initializers)) ||
        (rc = rr_uint(r, s, "external_tensors", &res->stats.external_tensors)) ||
        (rc = rr_uint(r, s, "weight_bytes", &res->stats.weight_bytes)))
        return rc;
    res->format = (opmap_format)format;
    res->stats.size = sizeof(res->stats);
    if (om_format_has(res->format, OPMAP_FORMAT_TRAIT_SOURCES)) {
        if ((rc = rr_obj(r, m, "sources", &s)) || (rc = rr_uint(r, s, "files", &res->src_files)) ||
            (rc = rr_uint(r, s, "lines", &res->src_lines)) ||
            (rc = rr_uint(r, s, "not_scanned", &res->src_not_read)))
            return rc;
    } else if (oj_get(m, "sources")) {
        return rr_fail(r, m, "sources", "only Python sources have it");
    }
    return OPMAP_OK;
}

static int read_opsets(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, m, "opset_imports", &a);
    if (rc)
        return rc;
    if (a->n && !(res->opsets = om_arena_array(&res->arena, a->n, sizeof(ir_opset))))
        return oom(r, res);
    res->n_opsets = a->n;
    for (i = 0; i < a->n; i++)
        if ((rc = rr_str(r, &a->kids[i], "domain", &res->arena, &res->opsets[i].domain)) ||
            (rc = rr_int(r, &a->kids[i], "version", &res->opsets[i].version)))
            return rc;
    return OPMAP_OK;
}

static int read_external(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, m, "external_data", &a);
    if (rc)
        return rc;
    if (a->n && !(res->ext = om_arena_array(&res->arena, a->n, sizeof(om_ext_ref))))
        return oom(r, res);
    res->n_ext = a->n;
    for (i = 0; i < a->n; i++) {
        const oj_value *e = &a->kids[i], *len = oj_get(e, "length");
        om_ext_ref *x = &res->ext[i];
        if ((rc = rr_str(r, e, "tensor", &res->arena, &x->tensor)) ||
            (rc = rr_str(r, e, "location", &res->arena, &x->location)) ||
            (rc = rr_uint(r, e, "offset", &x->offset)) ||
            (rc = rr_name(r, e, "file", ext_check, 5, &x->check)))
            return rc;
        if (len && len->type == OJ_NULL)
            continue;
        if ((rc = rr_uint(r, e, "length", &x->length)))
            return rc;
        x->has_length = 1;
    }
    return OPMAP_OK;
}

static int read_operators(rr *r, opmap_result *res, const oj_value *m, const char *base)
{
    const oj_value *a;
    char where[sizeof(r->where)];
    size_t i;
    int rc = rr_arr(r, m, "operators", &a);
    if (rc)
        return rc;
    if (a->n && !(res->ops = om_arena_array(&res->arena, a->n, sizeof(opmap_op *))))
        return oom(r, res);
    for (i = 0; i < a->n; i++) {
        snprintf(where, sizeof(where), "%s.operators[%zu]", base, i);
        snprintf(r->where, sizeof(r->where), "%s", where);
        if ((rc = om_merge_read_op(r, res, &a->kids[i], &res->ops[i])))
            return rc;
        res->n_ops++;
    }
    snprintf(r->where, sizeof(r->where), "%s", base);
    return OPMAP_OK;
}

/* The totals as the scan sums them (scan.c, summarize), held against those written. */
static int check_totals(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *t, *e, *u;
    uint64_t ops, inst;
    opmap_effort total, unpub;
    size_t k;
    int rc;
    memset(&res->summary, 0, sizeof(res->summary));
    for (k = 0; k < res->n_ops; k++) {
        om_estimate_op op = om_result_estimate_op(res->ops[k]);
        om_estimate_add(&res->summary, &op);
    }
    if ((rc = rr_obj(r, m, "totals", &t)) || (rc = rr_uint(r, t, "operators", &ops)) ||
        (rc = rr_uint(r, t, "instances", &inst)) || (rc = rr_obj(r, m, "estimate", &e)) ||
        (rc = rr_days(r, e, "min", &total.min)) || (rc = rr_days(r, e, "expected", &total.expected)) ||
        (rc = rr_days(r, e, "max", &total.max)) || (rc = rr_obj(r, m, "unpublished", &u)) ||
        (rc = rr_uint(r, u, "operators", &res->unpublished_ops)) ||
        (rc = rr_effort(r, u, "effort", &unpub)))
        return rc;
    res->unpublished_effort = unpub;
    if (ops != res->summary.operators_total || inst != res->summary.instances_total ||
        total.min != res->summary.effort_total.min ||
        total.expected != res->summary.effort_total.expected ||
        total.max != res->summary.effort_total.max)
        return rr_fail(r, t, "totals", "do not add up from the operators (the report was edited)");
    return OPMAP_OK;
}

static int copy_header(rr *r, opmap_result *res, const rr_header *h)
{
    om_arena *A = &res->arena;
    size_t c;
    res->mode = h->mode;
    res->workload = h->workload;
    if (!(res->table_origin = om_arena_strdup(A, h->table_origin)) ||
        !(res->table_name = om_arena_strdup(A, h->table_name)) ||
        !(res->table_version = om_arena_strdup(A, h->table_version)) ||
        !(res->torch_npu = om_arena_strdup(A, h->torch_npu)) ||
        !(res->cann = om_arena_strdup(A, h->cann)) ||
        !(res->tnpu_target = om_arena_strdup(A, h->tnpu_target)) ||
        (h->n_chips && !(res->chips = om_arena_array(A, h->n_chips, sizeof(char *)))))
        return oom(r, res);
    if (h->n_chips && !(res->chip_info = om_arena_array(A, h->n_chips, sizeof(om_chip))))
        return oom(r, res);
    for (c = 0; c < h->n_chips; c++) {
        const om_chip *from = &h->chip_info[c];
        om_chip *to = &res->chip_info[c];
        size_t k;
        if (!(res->chips[c] = om_arena_strdup(A, h->chips[c])) ||
            (from->part && !(to->part = om_arena_strdup(A, from->part))) ||
            (from->n_parts && !(to->parts = om_arena_array(A, from->n_parts, sizeof(char *)))))
            return oom(r, res);
        for (k = 0; k < from->n_parts; k++)
            if (!(to->parts[k] = om_arena_strdup(A, from->parts[k])))
                return oom(r, res);
        to->n_parts = from->n_parts;
    }
    res->n_chips = h->n_chips;
    return OPMAP_OK;
}

/* Python sources: `sources.not_scanned` is the count of the files the diagnostics say were
 * not scanned, one each (the gate's source-unscanned findings are read from them). */
static int check_unscanned(rr *r, const opmap_result *res, const oj_value *m)
{
    uint64_t n = 0;
    size_t i;
    for (i = 0; i < res->diags.len; i++)
        n += om_diag_unscanned(&OM_VEC_AT(&res->diags, om_diag, i));
    if (n != res->src_not_read)
        return rr_fail(r, oj_get(m, "sources"), "sources.not_scanned", "%llu, but %llu "
                       "diagnostics say a file was not scanned: the counts and the list "
                       "disagree", (unsigned long long)res->src_not_read,
                       (unsigned long long)n);
    return OPMAP_OK;
}

/* An ONNX model of a training scan was answered for inference (scan.c), once its format is
 * read: the same result the scan left. */
static int narrow_workload(opmap_result *res)
{
    if (res->workload == OPMAP_WORKLOAD_TRAINING &&
        om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATC)) {
        res->workload = OPMAP_WORKLOAD_INFERENCE;
        res->workload_narrowed = 1;
    }
    return OPMAP_OK;
}

int om_merge_read_model(rr *r, opmap_ctx *ctx, const rr_header *h, const oj_value *m,
                        size_t index, opmap_result **out)
{
    opmap_result *res = om_result_new(ctx);
    char base[64];
    int rc;
    *out = NULL;
    if (!res)
        return om_fail(r->err, OPMAP_ENOMEM, r->source, "out of memory");
    snprintf(base, sizeof(base), "models[%zu]", index);
    rr_at(r, "models", index);
    if (m->type != OJ_OBJECT)
        rc = rr_fail(r, m, NULL, "not an object");
    else if (!(rc = copy_header(r, res, h)) && !(rc = read_facts(r, res, m)) &&
             !(rc = narrow_workload(res)) && !(rc = read_opsets(r, res, m)) &&
             !(rc = om_merge_read_values(r, res, m, "inputs", &res->inputs, &res->n_inputs)) &&
             !(rc = om_merge_read_values(r, res, m, "outputs", &res->outputs, &res->n_outputs)) &&
             !(rc = read_external(r, res, m)) && !(rc = read_operators(r, res, m, base)) &&
             !(rc = om_merge_read_atc(r, res, m, base)) && !(rc = check_totals(r, res, m)) &&
             !(rc = om_merge_read_segments(r, res, m)) &&
             !(rc = om_merge_read_notes(r, res, m)))
        rc = check_unscanned(r, res, m);
    if (rc) {
        opmap_result_free(res);
        return rc;
    }
    *out = res;
    return OPMAP_OK;
}

int om_merge_header_result(rr *r, opmap_ctx *ctx, const rr_header *h, opmap_result **out)
{
    opmap_result *res = om_result_new(ctx);
    int rc;
    *out = NULL;
    if (!res)
        return om_fail(r->err, OPMAP_ENOMEM, r->source, "out of memory");
    if ((rc = copy_header(r, res, h))) {
        opmap_result_free(res);
        return rc;
    }
    *out = res;
    return OPMAP_OK;
}
