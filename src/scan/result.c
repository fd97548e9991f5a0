/*
 * scan/result.c - read-only accessors of a scan result (see opmap/scan.h).
 */
#include <opmap/scan.h>

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
