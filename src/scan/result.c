/*
 * scan/result.c - read-only accessors of a scan result (see opmap/scan.h).
 */
#include <opmap/scan.h>
#include <opmap/verify.h>

#include "table/table_internal.h"
#include "core/context.h"
#include "core/info.h"
#include "result_internal.h"

opmap_result *om_result_new(opmap_ctx *ctx)
{
    opmap_result *res = om_ctx_calloc(ctx, sizeof(*res));
    if (!res)
        return NULL;
    res->ctx = ctx;
    om_mem_init(&res->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&res->arena, &res->mem, 0);
    om_vec_init(&res->diags, sizeof(om_diag));
    om_vec_init(&res->risks, sizeof(om_risk));
    om_vec_init(&res->advice, sizeof(om_advice));
    om_segments_init(&res->segments);
    return res;
}

const char *opmap_result_model_name(const opmap_result *r) { return r->model_name; }
opmap_format opmap_result_format(const opmap_result *r) { return r->format; }
const char *opmap_result_table_origin(const opmap_result *r) { return r->table_origin; }
size_t opmap_result_op_count(const opmap_result *r) { return r->n_ops; }

int opmap_result_op(const opmap_result *r, size_t i, const opmap_op **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = r && i < r->n_ops ? r->ops[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

const char *opmap_op_domain(const opmap_op *op) { return op->domain; }
const char *opmap_op_name(const opmap_op *op) { return op->name; }
int64_t opmap_op_opset(const opmap_op *op) { return op->opset; }
int64_t opmap_op_since(const opmap_op *op) { return op->since; }
int opmap_op_status(const opmap_op *op) { return op->status; }
unsigned opmap_op_flags(const opmap_op *op) { return op->flags; }
uint64_t opmap_op_instances(const opmap_op *op) { return op->instances; }
opmap_effort opmap_op_effort(const opmap_op *op) { return op->effort; }
const opmap_row *opmap_op_row(const opmap_op *op) { return op->row; }
size_t opmap_op_path_count(const opmap_op *op) { return op->n_paths; }
const char *opmap_op_notes(const opmap_op *op) { return op->notes; }
const char *opmap_op_hint(const opmap_op *op) { return op->hint; }
const char *opmap_op_ascend_op(const opmap_op *op) { return op->ascend_op; }
const char *opmap_op_engine(const opmap_op *op) { return op->engine; }

int opmap_op_path(const opmap_op *op, size_t i, opmap_path_info *out)
{
    opmap_path_info p;
    if (!op || i >= op->n_paths)
        return OPMAP_EINVAL;
    p.size = sizeof(p);
    p.path = op->paths[i];
    p.location = op->locations ? op->locations[i] : NULL;
    return OM_INFO_FILL(out, &p, opmap_path_info, location);
}

int opmap_result_summary(const opmap_result *r, opmap_summary *out)
{
    opmap_summary s;
    if (!r)
        return OPMAP_EINVAL;
    s = r->summary;
    s.size = sizeof(s);
    s.unpublished = r->unpublished_ops;
    s.unpublished_effort = r->unpublished_effort;
    return OM_INFO_FILL(out, &s, opmap_summary, unpublished_effort);
}

size_t opmap_result_diag_count(const opmap_result *r)
{
    return r->diags.len;
}

int opmap_result_diag(const opmap_result *r, size_t i, opmap_diag_info *out)
{
    const om_diag *d;
    opmap_diag_info info;
    if (!r || i >= r->diags.len)
        return OPMAP_EINVAL;
    d = &OM_VEC_AT(&r->diags, om_diag, i);
    info.size = sizeof(info);
    info.level = d->level;
    info.message = d->message;
    info.where = d->where;
    return OM_INFO_FILL(out, &info, opmap_diag_info, where);
}

size_t opmap_result_chip_count(const opmap_result *r) { return r->n_chips; }
int opmap_result_chip(const opmap_result *r, size_t i, const char **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = r && i < r->n_chips ? r->chips[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}
int opmap_result_chip_part(const opmap_result *r, size_t i, const char **out)
{
    if (!out || !r || i >= r->n_chips) {
        if (out)
            *out = NULL;
        return OPMAP_EINVAL;
    }
    *out = r->chip_info && r->chip_info[i].part ? r->chip_info[i].part : "";
    return OPMAP_OK;
}
const char *opmap_result_torch_npu(const opmap_result *r) { return r->torch_npu; }
const char *opmap_result_torch_npu_target(const opmap_result *r) { return r->tnpu_target; }
int opmap_result_mode(const opmap_result *r) { return r ? r->mode : OPMAP_MODE_EAGER; }
int opmap_result_workload(const opmap_result *r)
{
    return r ? r->workload : OPMAP_WORKLOAD_INFERENCE;
}
int opmap_result_workload_narrowed(const opmap_result *r) { return r ? r->workload_narrowed : 0; }

const char *opmap_workload_name(int workload)
{
    return workload == OPMAP_WORKLOAD_INFERENCE  ? "inference"
           : workload == OPMAP_WORKLOAD_TRAINING ? "training"
                                                 : "?";
}

int opmap_op_backward(const opmap_op *op, opmap_op_backward_info *out)
{
    opmap_op_backward_info info;
    if (!op)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.status = op->bw_status ? op->bw_status : "";
    info.ops = op->bw_ops ? op->bw_ops : "";
    info.note = op->bw_note ? op->bw_note : "";
    return OM_INFO_FILL(out, &info, opmap_op_backward_info, note);
}

const char *opmap_mode_name(int mode)
{
    return mode == OPMAP_MODE_EAGER ? "eager" : mode == OPMAP_MODE_GRAPH ? "graph" : "?";
}
const char *opmap_result_torch_npu_needed(const opmap_result *r) { return r->tnpu_needed; }
const char *opmap_result_torch_npu_needed_by(const opmap_result *r) { return r->tnpu_needed_by; }
const char *opmap_result_cann(const opmap_result *r) { return r->cann; }

int opmap_op_chip(const opmap_op *op, size_t i, opmap_op_chip_info *out)
{
    opmap_op_chip_info c;
    if (!op || i >= op->n_chips)
        return OPMAP_EINVAL;
    c.size = sizeof(c);
    c.status = op->chip_status[i];
    c.unknown = op->chip_unknown[i];
    return OM_INFO_FILL(out, &c, opmap_op_chip_info, unknown);
}

size_t opmap_op_reason_count(const opmap_op *op) { return op->n_reasons; }

int opmap_op_reason(const opmap_op *op, size_t i, opmap_reason_info *out)
{
    const om_reason *r;
    opmap_reason_info info;
    if (!op || i >= op->n_reasons)
        return OPMAP_EINVAL;
    r = &op->reasons[i];
    info.size = sizeof(info);
    info.message = r->message;
    info.value = r->actual;
    info.status = r->status;
    info.flag = r->flag;
    info.chips = r->chips;
    info.instances = r->instances;
    info.example = r->example;
    info.grade = om_grade_name(r->grade);
    info.sources = r->sources;
    return OM_INFO_FILL(out, &info, opmap_reason_info, sources);
}

const char *opmap_op_exported_as(const opmap_op *op) { return op->exported_as; }
int opmap_op_unpublished(const opmap_op *op) { return op->unpublished; }

int opmap_result_segments(const opmap_result *r, opmap_segments *out)
{
    opmap_segments s;
    if (!r)
        return OPMAP_EINVAL;
    s.size = sizeof(s);
    om_segments_total(&r->segments, &s.segments, &s.transitions, &s.npu_nodes, &s.largest,
                      &s.nodes);
    s.breakers = r->segments.n_breakers;
    return OM_INFO_FILL(out, &s, opmap_segments, breakers);
}

size_t opmap_result_breaker_count(const opmap_result *r) { return r->segments.breakers.len; }

int opmap_result_breaker(const opmap_result *r, size_t i, opmap_breaker_info *out)
{
    const om_breaker *b;
    opmap_breaker_info info;
    if (!r || i >= r->segments.breakers.len)
        return OPMAP_EINVAL;
    b = &OM_VEC_AT(&r->segments.breakers, om_breaker, i);
    info.size = sizeof(info);
    info.node = b->node;
    info.op = b->op;
    info.why = b->why;
    return OM_INFO_FILL(out, &info, opmap_breaker_info, why);
}

size_t opmap_result_risk_count(const opmap_result *r) { return r->risks.len; }

int opmap_result_risk(const opmap_result *r, size_t i, opmap_risk_info *out)
{
    const om_risk *k;
    opmap_risk_info info;
    if (!r || i >= r->risks.len)
        return OPMAP_EINVAL;
    k = &OM_VEC_AT(&r->risks, om_risk, i);
    info.size = sizeof(info);
    info.level = k->level;
    info.kind = k->kind;
    info.message = k->message;
    info.where = k->where;
    return OM_INFO_FILL(out, &info, opmap_risk_info, where);
}

size_t opmap_result_advice_count(const opmap_result *r) { return r->advice.len; }

int opmap_result_advice(const opmap_result *r, size_t i, opmap_advice_info *out)
{
    const om_advice *a;
    opmap_advice_info info;
    if (!r || i >= r->advice.len)
        return OPMAP_EINVAL;
    a = &OM_VEC_AT(&r->advice, om_advice, i);
    info.size = sizeof(info);
    info.id = a->id;
    info.message = a->message;
    info.action = a->action;
    info.value = a->value;
    info.where = a->where;
    info.grade = om_grade_name(a->grade);
    info.sources = a->sources;
    info.recipes = a->recipes;
    return OM_INFO_FILL(out, &info, opmap_advice_info, recipes);
}

/* ---- device results (opmap/verify.h) ---- */

int opmap_op_verify_state(const opmap_op *op)
{
    return op ? op->verify_state : OPMAP_VERIFY_NONE;
}

const char *opmap_verify_state_name(int state)
{
    static const char *const names[] = { "none", "partly", "pass", "fail" };
    return state >= 0 && state < 4 ? names[state] : NULL;
}

size_t opmap_op_verified_count(const opmap_op *op)
{
    return op ? op->n_verified : 0;
}

int opmap_op_verified(const opmap_op *op, size_t i, opmap_verified_info *out)
{
    const om_verified *x;
    opmap_verified_info v;
    if (!op || i >= op->n_verified)
        return OPMAP_EINVAL;
    x = &op->verified[i];
    v.size = sizeof(v);
    v.signature = x->signature;
    v.chip = x->chip;
    v.family = x->family;
    v.torch_npu = x->torch_npu;
    v.cann = x->cann;
    v.passed = x->passed;
    v.standard = x->standard;
    v.max_abs_error = x->max_abs;
    v.max_rel_error = x->max_rel;
    v.cpu_ms = x->cpu_ms;
    v.device_ms = x->device_ms;
    v.message = x->message;
    v.source = x->source;
    v.instances = x->instances;
    v.example = x->example;
    return OM_INFO_FILL(out, &v, opmap_verified_info, example);
}
