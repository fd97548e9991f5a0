/*
 * merge/read_atc.c - a report model's "atc_precheck": its main graph as ATC's pre-check
 * lists it (scan/atc_graph.c), so the atc-precheck format is written again from a merge.
 */
#include <stdio.h>

#include "core/err.h"
#include "merge_internal.h"

static int oom(rr *r, opmap_result *res) { return om_fail_mem(r->err, &res->mem, r->source); }

static int read_entry(rr *r, opmap_result *res, const oj_value *o, om_atc_entry *e)
{
    const oj_value *op;
    uint64_t index;
    int kind, rc;
    if ((rc = rr_str(r, o, "name", &res->arena, &e->name)) ||
        (rc = rr_str(r, o, "type", &res->arena, &e->type)) ||
        (rc = rr_name(r, o, "kind", om_atc_kind_name, OM_ATC_KIND_COUNT, &kind)))
        return rc;
    e->kind = (uint8_t)kind;
    e->op = OM_ATC_NO_OP;
    if (!(op = oj_get(o, "operator")))
        return rr_fail(r, o, "operator", "missing");
    if (op->type == OJ_NULL)
        return OPMAP_OK;
    if (kind != OM_ATC_NODE)
        return rr_fail(r, op, "operator", "only a node has one");
    if ((rc = rr_uint(r, o, "operator", &index)))
        return rc;
    if (index >= res->n_ops)
        return rr_fail(r, op, "operator", "not one of the model's %zu operators", res->n_ops);
    e->op = (size_t)index;
    return OPMAP_OK;
}

/* After the operators (the entries name them by index). Absent: not known (a model that
 * is not ONNX has none). */
int om_merge_read_atc(rr *r, opmap_result *res, const oj_value *m, const char *base)
{
    const oj_value *a = oj_get(m, "atc_precheck");
    size_t i;
    int rc;
    if (!a)
        return OPMAP_OK;
    if (!om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATC))
        return rr_fail(r, a, "atc_precheck", "only ONNX models have it");
    if ((rc = rr_arr(r, m, "atc_precheck", &a)))
        return rc;
    if (a->n && !(res->atc = om_arena_array(&res->arena, a->n, sizeof(*res->atc))))
        return oom(r, res);
    for (i = 0; i < a->n; i++) {
        snprintf(r->where, sizeof(r->where), "%s.atc_precheck[%zu]", base, i);
        if ((rc = read_entry(r, res, &a->kids[i], &res->atc[i])))
            return rc;
    }
    snprintf(r->where, sizeof(r->where), "%s", base);
    res->n_atc = a->n;
    res->has_atc = 1;
    return om_atc_mark_repeated(res) == OPMAP_OK ? OPMAP_OK : oom(r, res);
}
