/*
 * scan/result.c - read-only accessors of a scan result (see opmap/scan.h).
 */
#include <opmap/scan.h>

#include "../table/table_internal.h"
#include "result_internal.h"

const char *opmap_result_model_name(const opmap_result *r) { return r->model_name; }
opmap_format opmap_result_format(const opmap_result *r) { return r->format; }
const char *opmap_result_table_origin(const opmap_result *r) { return r->table_origin; }
size_t opmap_result_op_count(const opmap_result *r) { return r->n_ops; }

const opmap_op *opmap_result_op(const opmap_result *r, size_t i)
{
    return i < r->n_ops ? r->ops[i] : NULL;
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

const char *opmap_op_path(const opmap_op *op, size_t i)
{
    return i < op->n_paths ? op->paths[i] : NULL;
}

const char *opmap_op_location(const opmap_op *op, size_t i)
{
    return i < op->n_paths && op->locations ? op->locations[i] : NULL;
}

void opmap_result_summary(const opmap_result *r, opmap_summary *out)
{
    *out = r->summary;
}

size_t opmap_result_diag_count(const opmap_result *r)
{
    return r->diags.len;
}

int opmap_result_diag(const opmap_result *r, size_t i, const char **message, const char **where)
{
    const om_diag *d;
    if (i >= r->diags.len)
        return -1;
    d = &OM_VEC_AT(&r->diags, om_diag, i);
    if (message)
        *message = d->message;
    if (where)
        *where = d->where;
    return d->level;
}

size_t opmap_result_chip_count(const opmap_result *r) { return r->n_chips; }
const char *opmap_result_chip(const opmap_result *r, size_t i) { return i < r->n_chips ? r->chips[i] : NULL; }
const char *opmap_result_torch_npu(const opmap_result *r) { return r->torch_npu; }
const char *opmap_result_cann(const opmap_result *r) { return r->cann; }

int opmap_op_chip_status(const opmap_op *op, size_t chip)
{
    return op->chip_status[chip];
}

int opmap_op_chip_unknown(const opmap_op *op, size_t chip)
{
    return op->chip_unknown[chip];
}

size_t opmap_op_reason_count(const opmap_op *op) { return op->n_reasons; }

int opmap_op_reason(const opmap_op *op, size_t i, opmap_reason *out)
{
    const om_reason *r;
    if (i >= op->n_reasons || !out)
        return OPMAP_EINVAL;
    r = &op->reasons[i];
    out->message = r->message;
    out->value = r->actual;
    out->status = r->status;
    out->flag = r->flag;
    out->chips = r->chips;
    out->instances = r->instances;
    out->example = r->example;
    return OPMAP_OK;
}

int opmap_op_reason_evidence(const opmap_op *op, size_t i, const char **grade,
                             const char **sources)
{
    if (i >= op->n_reasons)
        return OPMAP_EINVAL;
    if (grade)
        *grade = om_grade_name(op->reasons[i].grade);
    if (sources)
        *sources = op->reasons[i].sources;
    return OPMAP_OK;
}

const char *opmap_op_exported_as(const opmap_op *op) { return op->exported_as; }
int opmap_op_unpublished(const opmap_op *op) { return op->unpublished; }

uint64_t opmap_result_unpublished(const opmap_result *r, opmap_effort *effort)
{
    if (effort)
        *effort = r->unpublished_effort;
    return r->unpublished_ops;
}

void opmap_result_segments(const opmap_result *r, opmap_segments *out)
{
    om_segments_total(&r->segments, &out->segments, &out->transitions, &out->npu_nodes,
                      &out->largest, &out->nodes);
    out->breakers = r->segments.n_breakers;
}

size_t opmap_result_breaker_count(const opmap_result *r) { return r->segments.breakers.len; }

int opmap_result_breaker(const opmap_result *r, size_t i, const char **node, const char **op,
                         const char **why)
{
    const om_breaker *b;
    if (i >= r->segments.breakers.len)
        return OPMAP_EINVAL;
    b = &OM_VEC_AT(&r->segments.breakers, om_breaker, i);
    if (node)
        *node = b->node;
    if (op)
        *op = b->op;
    if (why)
        *why = b->why;
    return OPMAP_OK;
}

size_t opmap_result_risk_count(const opmap_result *r) { return r->risks.len; }

int opmap_result_risk(const opmap_result *r, size_t i, const char **kind, const char **message,
                      const char **where)
{
    const om_risk *k;
    if (i >= r->risks.len)
        return -1;
    k = &OM_VEC_AT(&r->risks, om_risk, i);
    if (kind)
        *kind = k->kind;
    if (message)
        *message = k->message;
    if (where)
        *where = k->where;
    return k->level;
}

size_t opmap_result_advice_count(const opmap_result *r) { return r->advice.len; }

int opmap_result_advice(const opmap_result *r, size_t i, const char **id, const char **message,
                        const char **action, const char **value, const char **where)
{
    const om_advice *a;
    if (i >= r->advice.len)
        return OPMAP_EINVAL;
    a = &OM_VEC_AT(&r->advice, om_advice, i);
    if (id)
        *id = a->id;
    if (message)
        *message = a->message;
    if (action)
        *action = a->action;
    if (value)
        *value = a->value;
    if (where)
        *where = a->where;
    return OPMAP_OK;
}

int opmap_result_advice_evidence(const opmap_result *r, size_t i, const char **grade,
                                 const char **sources, const char **recipes)
{
    const om_advice *a;
    if (i >= r->advice.len)
        return OPMAP_EINVAL;
    a = &OM_VEC_AT(&r->advice, om_advice, i);
    if (grade)
        *grade = om_grade_name(a->grade);
    if (sources)
        *sources = a->sources;
    if (recipes)
        *recipes = a->recipes;
    return OPMAP_OK;
}
