/*
 * scan/operators.c - distinct operators: what a node is answered as (its own name, or the
 * ATen operator an ATen fallback node stands for), the index by (domain, op, opset), and
 * what a new operator takes from its table row.
 */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "scan_internal.h"

static uint64_t key_hash(const void *d, const void *o, int64_t opset)
{
    uint64_t h = (uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)o + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)opset * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int grow_index(group *g)
{
    size_t ncap = g->index_cap ? g->index_cap * 2 : 64, i;
    om_op_work **ni = om_calloc(&g->res->mem, ncap, sizeof(*ni));
    if (!ni)
        return 0;
    for (i = 0; i < g->index_cap; i++) {
        om_op_work *w = g->index[i];
        size_t j;
        if (!w)
            continue;
        j = key_hash(w->key_domain, w->key_op, w->op->opset) & (ncap - 1);
        while (ni[j])
            j = (j + 1) & (ncap - 1);
        ni[j] = w;
    }
    if (g->index)
        om_dealloc(&g->res->mem, g->index, g->index_cap * sizeof(*g->index));
    g->index = ni;
    g->index_cap = ncap;
    return 1;
}

static const char *dup_or_empty(om_arena *a, const char *s)
{
    return om_arena_strdup(a, s ? s : "");
}

const om_soc_answer *om_scan_soc_answer(const opmap_row *row, uint32_t soc)
{
    size_t i;
    for (i = 0; row && i < row->n_socs; i++)
        if (row->socs[i].soc == soc)
            return &row->socs[i];
    return NULL;
}

const char *om_scan_join(om_arena *A, const char *const *items, size_t n, const char *sep)
{
    size_t i, len = 1, used = 0;
    char *s;
    for (i = 0; i < n; i++)
        len += strlen(items[i]) + strlen(sep);
    if (!(s = om_arena_alloc(A, len)))
        return NULL;
    s[0] = 0;
    for (i = 0; i < n; i++)
        om_appendf(s, len, &used, "%s%s", i ? sep : "", items[i]);
    return s;
}

/*
 * What the operator ends as on Ascend, in one phrase: the operators the table says it
 * becomes (a parser expansion lists them all), else its CANN op, aclnn kernel or torch_npu
 * API. Never a bare dash: rows that say nothing say "not published".
 */
/* A training scan's copy of the row's backward answer: status, its operators joined. */
static int backward_of(om_arena *A, opmap_op *op, const om_backward *b)
{
    size_t k, len = 1;
    char *ops;
    for (k = 0; k < b->n_ops; k++)
        len += strlen(b->ops[k]) + 2;
    if (!(ops = om_arena_alloc(A, len)))
        return 0;
    ops[0] = 0;
    for (k = 0; k < b->n_ops; k++) {
        if (k)
            strcat(ops, ", ");
        strcat(ops, b->ops[k]);
    }
    op->bw_status = om_backward_status_name(b->status);  /* static strings */
    op->bw_ops = ops;
    return (op->bw_note = dup_or_empty(A, b->note)) != NULL;
}

static const char *becomes(om_arena *A, const opmap_row *row, int runs_on_a_chip)
{
    if (!row)
        return om_arena_strdup(A, "no row in the table");
    if (!row->n_ascend_ops) {
        const char *one = row->ascend_op ? row->ascend_op : row->aclnn ? row->aclnn
                          : row->api ? row->api : NULL;
        if (one)
            return om_arena_strdup(A, one);
        if (row->ascend_how && row->status != OPMAP_OP_STRUCTURAL)
            return om_arena_strdup(A, row->ascend_how);
        return om_arena_strdup(A, row->status == OPMAP_OP_STRUCTURAL ? "none (graph plumbing)"
                                  : row->status == OPMAP_OP_REWRITE && !runs_on_a_chip
                                      ? "none (no Ascend implementation)"
                                      : "not published");
    }
    return om_scan_join(A, row->ascend_ops, row->n_ascend_ops, ", ");
}

/* What a node is answered as: usually its own (domain, name); see aten_fallback(). */
typedef struct opkey {
    const char *domain, *name;  /* interned */
    int64_t opset;
    const char *exported_as;    /* "" unless the node stands for another operator */
} opkey;

/*
 * ONNX exports with operator_export_type=ONNX_ATEN_FALLBACK keep an ATen op the exporter
 * could not translate as a node `ATen` (domain org.pytorch.aten, or the default domain in
 * older exporters) whose `operator` attribute names it; ops of the org.pytorch.aten domain
 * are ATen ops by name. Both are answered from the ATen rows, under their ATen name.
 */
int om_scan_answered_as(const ir_node *n, const char **domain, const char **name)
{
    const ir_attr *a;
    int is_domain = strcmp(n->domain, "org.pytorch.aten") == 0;
    *domain = n->domain;
    *name = n->op;
    if (strcmp(n->op, "ATen") == 0 && (is_domain || strcmp(n->domain, "ai.onnx") == 0)) {
        if (!(a = ir_node_attr(n, "operator")) || a->type != IR_ATTR_STRING || !a->s.data ||
            !a->s.data[0] || strlen(a->s.data) != a->s.size)
            return 0; /* no usable operator name: answered as written (unmapped) */
        *name = a->s.data;
    } else if (!is_domain) {
        return 0;
    }
    *domain = "aten";
    return 1;
}

static int aten_fallback(group *g, const ir_node *n, opkey *k)
{
    const char *domain, *name;
    char as[300];
    if (!om_scan_answered_as(n, &domain, &name))
        return 0;
    snprintf(as, sizeof(as), "%.100s::%.100s", n->domain, n->op);
    if (!(k->domain = ir_intern(&g->names, "aten", 4)) ||
        !(k->name = ir_intern(&g->names, name, strlen(name))) ||
        !(k->exported_as = om_arena_strdup(&g->res->arena, as)))
        return -1;
    k->opset = 0;
    return 1;
}

om_op_work *om_scan_work_new(group *g, opmap_op *op)
{
    om_op_work *w = om_calloc(&g->res->mem, 1, sizeof(*w)), **slot;
    if (!w)
        return NULL;
    w->op = op;
    om_vec_init(&w->paths, sizeof(const char *));
    om_vec_init(&w->locs, sizeof(const char *));
    om_vec_init(&w->reasons, sizeof(om_reason));
    om_vec_init(&w->verified, sizeof(om_verified));
    om_vec_init(&w->verified_entry, sizeof(size_t));
    if (!(slot = om_vec_push(&g->ops, &g->res->mem))) {
        om_dealloc(&g->res->mem, w, sizeof(*w));
        return NULL;
    }
    *slot = w;
    return w;
}

int om_scan_work_finish(group *g, om_op_work *w)
{
    opmap_result *res = g->res;
    opmap_op *op = w->op;
    if (w->paths.len) {
        if (!(op->paths = om_arena_array(&res->arena, w->paths.len, sizeof(char *))))
            return om_scan_oom(g);
        memcpy(op->paths, w->paths.data, w->paths.len * sizeof(char *));
        op->n_paths = w->paths.len;
    }
    if (w->locs.len) {
        if (!(op->locations = om_arena_array(&res->arena, op->n_paths, sizeof(char *))))
            return om_scan_oom(g);
        memcpy(op->locations, w->locs.data, w->locs.len * sizeof(char *));
    }
    return OPMAP_OK;
}

/* A new distinct operator: its table row and what each chip starts from. */
static opmap_op *new_op(group *g, const opkey *key)
{
    opmap_result *res = g->res;
    om_arena *A = &res->arena;
    opmap_op *op = om_arena_alloc(A, sizeof(*op));
    const opmap_row *row;
    int64_t opset = key->opset;
    size_t c, k;
    if (!op || !(op->domain = om_arena_strdup(A, key->domain)) ||
        !(op->name = om_arena_strdup(A, key->name)) ||
        !(op->exported_as = om_arena_strdup(A, key->exported_as)) ||
        !(op->chip_status = om_arena_array(A, res->n_chips, sizeof(int))) ||
        !(op->chip_unknown = om_arena_array(A, res->n_chips, 1)))
        return NULL;
    op->n_chips = res->n_chips;
    op->opset = opset;
    row = opmap_table_lookup(g->table, op->domain, op->name, opset);
    op->row = row;
    op->since = row ? row->since : 0;
    /* the row's flags and answers are taken by each instance evaluated (answer.c): an
     * operator whose every instance is TorchScript's scalar arithmetic stays structural */
    op->flags = 0;
    for (c = 0, k = 0; c < res->n_chips; c++) {
        const om_soc_answer *a = om_scan_soc_answer(row, g->chip_soc[c]);
        int st = !row ? OPMAP_OP_UNMAPPED : a && a->status != OM_SOC_UNKNOWN ? a->status : row->status;
        k |= st == OPMAP_OP_FULL || st == OPMAP_OP_PARTIAL;
        op->chip_status[c] = OPMAP_OP_STRUCTURAL;
        op->chip_unknown[c] = a && a->status == OM_SOC_UNKNOWN;
        op->unpublished |= op->chip_unknown[c];
    }
    op->all_unknown = op->unpublished;
    for (c = 0; c < res->n_chips; c++)
        if (!op->chip_unknown[c])
            op->all_unknown = 0;
    if (!(op->notes = dup_or_empty(A, row ? row->notes : NULL)) ||
        !(op->hint = dup_or_empty(A, row ? row->hint : NULL)) ||
        !(op->ascend_op = dup_or_empty(A, row ? row->ascend_op : NULL)) ||
        !(op->aclnn = dup_or_empty(A, row ? row->aclnn : NULL)) ||
        !(op->api = dup_or_empty(A, row ? row->api : NULL)) ||
        !(op->engine = dup_or_empty(A, row ? row->engine : NULL)))
        return NULL;
    if (!(op->becomes = becomes(A, row, k != 0)) ||
        !(op->becomes_how = dup_or_empty(A, row ? row->ascend_how : NULL)))
        return NULL;
    if (row && row->backward.status && om_scan_backward_applies(res) &&
        !backward_of(A, op, &row->backward))
        return NULL;
    if (row && row->n_sources) {
        if (!(op->sources = om_arena_array(A, row->n_sources, sizeof(char *))))
            return NULL;
        for (k = 0; k < row->n_sources; k++)
            if (!(op->sources[k] = om_arena_strdup(A, row->sources[k])))
                return NULL;
        op->n_sources = row->n_sources;
    }
    return op;
}

om_op_work *om_scan_operator(group *g, const ir_node *n, int64_t opset)
{
    om_op_work *w;
    opmap_op *op;
    opkey key;
    size_t j;
    if ((g->ops.len + 1) * 2 > g->index_cap && !grow_index(g))
        return NULL;
    key.domain = n->domain;
    key.name = n->op;
    key.opset = opset;
    key.exported_as = "";
    if (aten_fallback(g, n, &key) < 0)
        return NULL;
    j = key_hash(key.domain, key.name, key.opset) & (g->index_cap - 1);
    while ((w = g->index[j])) {
        if (w->key_domain == key.domain && w->key_op == key.name && w->op->opset == key.opset)
            break;
        j = (j + 1) & (g->index_cap - 1);
    }
    if (!w) {
        if (!(op = new_op(g, &key)) || !(w = om_scan_work_new(g, op)))
            return NULL;
        w->key_domain = key.domain;
        w->key_op = key.name;
        g->index[j] = w;
    }
    return w;
}
