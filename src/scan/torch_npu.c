/*
 * scan/torch_npu.c - torch_npu versions in a scan: the version answered for (the options'
 * torch_npu, table/npu_version.h) and the oldest line the model needs (the newest
 * torch_npu.min over the rows its operators matched). answer.c gates each instance.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "scan_internal.h"

int om_scan_torch_npu_target(group *g, const char *version)
{
    opmap_result *res = g->res;
    char why[240];
    if (!version) {
        res->tnpu_target = "";
        return OPMAP_OK;
    }
    if (om_npu_version_parse(version, &g->target, why, sizeof(why)))
        return om_fail(g->err, OPMAP_EINVAL, NULL, "torch_npu target: %s", why);
    g->has_target = 1;
    if (!(res->tnpu_target = om_arena_strdup(&res->arena, version)))
        return om_scan_oom(g);
    return OPMAP_OK;
}

int om_scan_torch_npu_needed(opmap_result *res)
{
    om_npu_version best, v;
    const opmap_op *by = NULL;
    size_t k, len;
    char *s;
    res->tnpu_needed = res->tnpu_needed_by = "";
    for (k = 0; k < res->n_ops; k++) {
        const opmap_op *op = res->ops[k];
        if (!op->row || !op->row->tnpu_min || !op->row->tnpu_min[0] ||
            om_npu_version_parse(op->row->tnpu_min, &v, NULL, 0))
            continue;
        if (!by || om_npu_version_cmp(&v, &best) > 0) {
            best = v;
            by = op;
        }
    }
    if (!by)
        return OPMAP_OK;
    len = strlen(by->domain) + 2 + strlen(by->name) + 1;
    if (!(res->tnpu_needed = om_arena_strdup(&res->arena, by->row->tnpu_min)) ||
        !(s = om_arena_alloc(&res->arena, len)))
        return OPMAP_ENOMEM;
    snprintf(s, len, "%s::%s", by->domain, by->name);
    res->tnpu_needed_by = s;
    return OPMAP_OK;
}
