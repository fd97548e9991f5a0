/*
 * table/table_graph.c - an ATen row's graph-mode answer (docs/table-format.md, "graph"):
 * what torchair's GE converters do with the operator under torch.compile. The `graph:`
 * mapping read strictly, and its public accessors.
 */
#include <stdlib.h>
#include <string.h>

#include "core/info.h"
#include "core/yaml_read.h"
#include "table_internal.h"

static const char *const graph_names[OM_GRAPH_COUNT] = { "", "implemented", "partial", "stub",
                                                          "none", "decomposed" };

/* the lists of overloads, by the status their converter has */
static const char *const list_keys[3] = { "implemented", "partial", "stub" };

/* Overloads a row may list: torchair registers at most a few dozen per operator. */
#define OM_GRAPH_MAX_OVERLOADS 256

const char *om_graph_status_name(int status)
{
    return status >= 0 && status < OM_GRAPH_COUNT ? graph_names[status] : "";
}

static int ov_cmp(const void *a, const void *b)
{
    return strcmp(((const om_graph_ov *)a)->name, ((const om_graph_ov *)b)->name);
}

static int parse_graph_status(yr *y, const yt_node *map, om_graph *g)
{
    const yt_node *n;
    const char *s;
    int i, rc;
    if ((rc = yr_require(y, map, "status", "graph", &n)) || (rc = yr_str(y, n, "graph.status", &s)))
        return rc;
    for (i = OM_GRAPH_IMPLEMENTED; i < OM_GRAPH_COUNT; i++)
        if (strcmp(s, graph_names[i]) == 0) {
            g->status = (uint8_t)i;
            return OPMAP_OK;
        }
    return yr_bad(y, n, "unknown graph.status '%s' (expected implemented, partial, stub, none, "
                        "decomposed)", s);
}

/* The three lists into one array, sorted by name: an overload listed twice is an error. */
static int parse_lists(yr *y, const yt_node *map, om_graph *g)
{
    const char **names[3] = { NULL, NULL, NULL };
    size_t counts[3] = { 0, 0, 0 }, k, i, total = 0;
    const yt_node *n;
    int rc;
    for (k = 0; k < 3; k++)
        if ((n = yt_get(map, list_keys[k]))) {
            if ((rc = yr_str_list(y, n, list_keys[k], &names[k], &counts[k])))
                return rc;
            total += counts[k];
        }
    if (total > OM_GRAPH_MAX_OVERLOADS)
        return yr_bad(y, map, "graph: %zu overloads (at most %d)", total,
                      OM_GRAPH_MAX_OVERLOADS);
    if (total && !(g->ovs = om_arena_array(y->A, total, sizeof(om_graph_ov))))
        return yr_oom(y);
    for (k = 0; k < 3; k++)
        for (i = 0; i < counts[k]; i++) {
            g->ovs[g->n_ovs].name = names[k][i];
            g->ovs[g->n_ovs++].status = (uint8_t)(OM_GRAPH_IMPLEMENTED + k);
        }
    if (total)
        qsort(g->ovs, g->n_ovs, sizeof(om_graph_ov), ov_cmp);
    for (i = 1; i < g->n_ovs; i++)
        if (strcmp(g->ovs[i].name, g->ovs[i - 1].name) == 0)
            return yr_bad(y, map, "graph: overload '%s' is listed twice", g->ovs[i].name);
    return OPMAP_OK;
}

/* `counted`: the overloads the status is answered on, each one of the lists'. */
static int parse_counted(yr *y, const yt_node *map, om_graph *g)
{
    const yt_node *n = yt_get(map, "counted");
    const char **names;
    size_t count, i;
    om_graph_ov key, *ov;
    int rc;
    if (!n)
        return OPMAP_OK;
    if ((rc = yr_str_list(y, n, "graph.counted", &names, &count)))
        return rc;
    for (i = 0; i < count; i++) {
        key.name = names[i];
        ov = g->n_ovs ? bsearch(&key, g->ovs, g->n_ovs, sizeof(om_graph_ov), ov_cmp) : NULL;
        if (!ov)
            return yr_bad(y, n->items[i], "graph.counted: '%s' is in none of implemented, "
                                          "partial, stub", names[i]);
        ov->counted = 1;
    }
    return OPMAP_OK;
}

/* `sigs`: {overload: "T,N,s?="}, the kinds of a counted overload's arguments (T tensor,
 * N number, s str, L list, O other; '?' may be None, '=' has a default), for calls that
 * name no overload. */
static int parse_sigs(yr *y, const yt_node *map, om_graph *g)
{
    const yt_node *n = yt_get(map, "sigs");
    size_t i, k;
    if (!n)
        return OPMAP_OK;
    if (n->kind != YT_MAP)
        return yr_bad(y, n, "graph.sigs must be a mapping of overload to argument kinds");
    for (i = 0; i < n->n; i++) {
        const yt_node *key = n->items[2 * i], *val = n->items[2 * i + 1];
        om_graph_ov want, *ov;
        const char *sig;
        int rc;
        if (key->kind != YT_SCALAR || (rc = yr_str(y, val, "graph.sigs", &sig)))
            return key->kind != YT_SCALAR ? yr_bad(y, key, "graph.sigs: a key must be an overload")
                                          : rc;
        want.name = key->str;
        ov = g->n_ovs ? bsearch(&want, g->ovs, g->n_ovs, sizeof(om_graph_ov), ov_cmp) : NULL;
        if (!ov || !ov->counted)
            return yr_bad(y, key, "graph.sigs: '%s' is not a counted overload", key->str);
        for (k = 0; sig[k]; k++)
            if (!strchr("TNsLO?=,", sig[k]))
                return yr_bad(y, val, "graph.sigs: '%s': kinds are T, N, s, L, O, each with an "
                              "optional '?' (may be None) and '=' (has a default), separated "
                              "by ','", sig);
        ov->sig = sig;
    }
    return OPMAP_OK;
}

int om_graph_parse(yr *y, const yt_node *map, om_graph *g)
{
    static const char *const keys[] = { "status", "via", "declared", "implemented", "partial",
                                        "stub", "counted", "sigs", "where", "note", "grade",
                                        "sources", NULL };
    const yt_node *n;
    int64_t declared = 0;
    int rc;
    if ((rc = yr_kind(y, map, YT_MAP, "graph")) || (rc = yr_keys(y, map, keys, "graph")) ||
        (rc = parse_graph_status(y, map, g)) || (rc = parse_lists(y, map, g)) ||
        (rc = parse_counted(y, map, g)) || (rc = parse_sigs(y, map, g)))
        return rc;
    if ((n = yt_get(map, "declared"))) {
        if ((rc = yr_int(y, n, "graph.declared", &declared)))
            return rc;
        if (declared < 0 || declared > 1000000)
            return yr_bad(y, n, "graph.declared must be 0 to 1000000");
        g->declared = (uint32_t)declared;
    }
    if ((n = yt_get(map, "via")) && (rc = yr_str(y, n, "graph.via", &g->via)))
        return rc;
    if ((n = yt_get(map, "where")) && (rc = yr_str(y, n, "graph.where", &g->where)))
        return rc;
    if ((n = yt_get(map, "note")) && (rc = yr_str(y, n, "graph.note", &g->note)))
        return rc;
    return OPMAP_OK;
}

/* ---- public accessors ---- */

#define S(x) ((x) ? (x) : "")

int opmap_row_graph(const opmap_row *r, opmap_row_graph_info *out)
{
    opmap_row_graph_info info;
    if (!r)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.status = graph_names[r->graph.status];
    info.via = S(r->graph.via);
    info.where = S(r->graph.where);
    info.note = S(r->graph.note);
    info.declared = r->graph.declared;
    return OM_INFO_FILL(out, &info, opmap_row_graph_info, declared);
}

size_t opmap_row_graph_overload_count(const opmap_row *r) { return r ? r->graph.n_ovs : 0; }

int opmap_row_graph_overload(const opmap_row *r, size_t i, opmap_row_graph_overload_info *out)
{
    opmap_row_graph_overload_info info;
    if (!r || i >= r->graph.n_ovs)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.name = r->graph.ovs[i].name;
    info.status = graph_names[r->graph.ovs[i].status];
    info.counted = r->graph.ovs[i].counted;
    return OM_INFO_FILL(out, &info, opmap_row_graph_overload_info, counted);
}
