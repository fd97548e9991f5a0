/*
 * table/table_backward.c - an ATen or npu row's backward answer (docs/table-format.md,
 * "backward"): what a training step runs for the operator's gradient on the NPU, from
 * PyTorch's and op-plugin's derivatives.yaml. The `backward:` mapping read strictly, and
 * its public accessors.
 */
#include <string.h>

#include "core/info.h"
#include "core/yaml_read.h"
#include "table_internal.h"

static const char *const bw_names[OM_BW_COUNT] = { "", "full", "partial", "rewrite", "missing",
                                                    "none", "decomposed" };

/* Operators a gradient formula calls: a handful in practice. */
#define OM_BW_MAX_OPS 64

const char *om_backward_status_name(int status)
{
    return status >= 0 && status < OM_BW_COUNT ? bw_names[status] : "";
}

static int parse_list(yr *y, const yt_node *map, const char *key, const char ***out, size_t *n)
{
    const yt_node *v = yt_get(map, key);
    int rc;
    if (!v)
        return OPMAP_OK;
    if ((rc = yr_str_list(y, v, key, out, n)))
        return rc;
    return *n > OM_BW_MAX_OPS ? yr_bad(y, v, "backward.%s: %zu entries (at most %d)", key, *n,
                                       OM_BW_MAX_OPS)
                              : OPMAP_OK;
}

int om_backward_parse(yr *y, const yt_node *map, om_backward *b)
{
    static const char *const keys[] = { "status", "via", "ops", "helpers", "note", "grade",
                                        "sources", NULL };
    const yt_node *n;
    const char *s;
    int i, rc;
    if ((rc = yr_kind(y, map, YT_MAP, "backward")) || (rc = yr_keys(y, map, keys, "backward")) ||
        (rc = yr_require(y, map, "status", "backward", &n)) ||
        (rc = yr_str(y, n, "backward.status", &s)))
        return rc;
    for (i = OM_BW_FULL; i < OM_BW_COUNT && strcmp(s, bw_names[i]) != 0; i++)
        ;
    if (i == OM_BW_COUNT)
        return yr_bad(y, n, "unknown backward.status '%s' (expected full, partial, rewrite, "
                            "missing, none, decomposed)", s);
    b->status = (uint8_t)i;
    if ((n = yt_get(map, "via"))) {
        if ((rc = yr_str(y, n, "backward.via", &b->via)))
            return rc;
        if (strcmp(b->via, "pytorch") != 0 && strcmp(b->via, "npu") != 0)
            return yr_bad(y, n, "backward.via '%s': pytorch or npu (whose autograd function "
                                "computes the gradient)", b->via);
    }
    if ((rc = parse_list(y, map, "ops", &b->ops, &b->n_ops)) ||
        (rc = parse_list(y, map, "helpers", &b->helpers, &b->n_helpers)))
        return rc;
    return (n = yt_get(map, "note")) ? yr_str(y, n, "backward.note", &b->note) : OPMAP_OK;
}

/* ---- public accessors ---- */

#define S(x) ((x) ? (x) : "")

int opmap_row_backward(const opmap_row *r, opmap_row_backward_info *out)
{
    opmap_row_backward_info info;
    if (!r)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.status = bw_names[r->backward.status];
    info.via = S(r->backward.via);
    info.note = S(r->backward.note);
    info.op_count = r->backward.n_ops;
    return OM_INFO_FILL(out, &info, opmap_row_backward_info, op_count);
}

int opmap_row_backward_op(const opmap_row *r, size_t i, const char **out)
{
    if (!r || !out || i >= r->backward.n_ops)
        return OPMAP_EINVAL;
    *out = r->backward.ops[i];
    return OPMAP_OK;
}
