/*
 * scan/scan.c - the pipeline: walk the model, answer each instance from the table for
 * every chip asked for (constraints evaluated, reasons kept), group per distinct operator,
 * estimate, and keep it all in a self-contained result.
 *
 * A distinct operator is (domain, name, opset in effect): adapting it once serves all its
 * instances, which is what the estimate counts. Its status is the worst any instance gets
 * on any chip scanned for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api/ctx_internal.h"
#include "../api/model_internal.h"
#include "../core/err.h"
#include "../core/text.h"
#include "../estimate/estimate.h"
#include "../rules/advice.h"
#include "../rules/constraints.h"
#include "../table/table_internal.h"
#include "../walker/walker.h"
#include "result_internal.h"
#include "scan_internal.h"

typedef struct group {
    opmap_result *res;
    const opmap_table *table;
    const opmap_weights *weights; /* the user's, replacing the table's, or NULL */
    uint32_t chip_soc[64];    /* result chip i -> table SoC index */
    om_vec ops;               /* opmap_op* */
    opmap_op **index;         /* open addressing over (domain, op, opset) */
    size_t index_cap;
    ir_interner names;        /* names of ATen fallback operators, for the index */
    om_advice_state *advice;  /* per table advice entry (ONNX models only), or NULL */
    opmap_error *err;
} group;

static uint64_t key_hash(const void *d, const void *o, int64_t opset)
{
    uint64_t h = (uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)o + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)opset * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int oom(group *g)
{
    return om_fail_mem(g->err, &g->res->mem, g->res->model_name);
}

static int grow_index(group *g)
{
    size_t ncap = g->index_cap ? g->index_cap * 2 : 64, i;
    opmap_op **ni = om_calloc(&g->res->mem, ncap, sizeof(*ni));
    if (!ni)
        return 0;
    for (i = 0; i < g->index_cap; i++) {
        opmap_op *op = g->index[i];
        size_t j;
        if (!op)
            continue;
        j = key_hash(op->key_domain, op->key_op, op->opset) & (ncap - 1);
        while (ni[j])
            j = (j + 1) & (ncap - 1);
        ni[j] = op;
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

static const om_soc_answer *soc_answer(const opmap_row *row, uint32_t soc)
{
    size_t i;
    for (i = 0; row && i < row->n_socs; i++)
        if (row->socs[i].soc == soc)
            return &row->socs[i];
    return NULL;
}

/* items joined by sep into one arena string ("" for none); NULL when memory ran out. */
static const char *join_list(om_arena *A, const char *const *items, size_t n, const char *sep)
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
    return join_list(A, row->ascend_ops, row->n_ascend_ops, ", ");
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
static int aten_fallback(group *g, const ir_node *n, opkey *k)
{
    const ir_attr *a;
    const char *name;
    char as[300];
    int is_domain = strcmp(n->domain, "org.pytorch.aten") == 0;
    if (strcmp(n->op, "ATen") == 0 && (is_domain || strcmp(n->domain, "ai.onnx") == 0)) {
        if (!(a = ir_node_attr(n, "operator")) || a->type != IR_ATTR_STRING || !a->s.data ||
            !a->s.data[0] || strlen(a->s.data) != a->s.size)
            return 0; /* no usable operator name: answered as written (unmapped) */
        name = a->s.data;
    } else if (is_domain) {
        name = n->op;
    } else {
        return 0;
    }
    snprintf(as, sizeof(as), "%.100s::%.100s", n->domain, n->op);
    if (!(k->domain = ir_intern(&g->names, "aten", 4)) ||
        !(k->name = ir_intern(&g->names, name, strlen(name))) ||
        !(k->exported_as = om_arena_strdup(&g->res->arena, as)))
        return -1;
    k->opset = 0;
    return 1;
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
    op->key_domain = key->domain;
    op->key_op = key->name;
    op->n_chips = res->n_chips;
    op->opset = opset;
    om_vec_init(&op->path_vec, sizeof(const char *));
    om_vec_init(&op->loc_vec, sizeof(const char *));
    om_vec_init(&op->reason_vec, sizeof(om_reason));
    row = opmap_table_lookup(g->table, op->domain, op->name, opset);
    op->row = row;
    op->since = row ? row->since : 0;
    op->flags = row ? row->flags : 0;
    for (c = 0; c < res->n_chips; c++) {
        const om_soc_answer *a = soc_answer(row, g->chip_soc[c]);
        op->chip_status[c] = !row ? OPMAP_OP_UNMAPPED
                             : a && a->status != OM_SOC_UNKNOWN ? a->status : row->status;
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
    for (c = 0, k = 0; c < res->n_chips; c++)
        k |= op->chip_status[c] == OPMAP_OP_FULL || op->chip_status[c] == OPMAP_OP_PARTIAL;
    if (!(op->becomes = becomes(A, row, k != 0)) ||
        !(op->becomes_how = dup_or_empty(A, row ? row->ascend_how : NULL)))
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

/* The evidence behind a reason: its grade, and its source ids joined for the result. */
typedef struct why {
    uint8_t grade;
    const char *const *sources;
    size_t n_sources;
} why;

static const why no_evidence = { 0, NULL, 0 };

static why from_evidence(const om_evidence *ev)
{
    why w;
    w.grade = ev->grade;
    w.sources = ev->sources;
    w.n_sources = ev->n_sources;
    return w;
}

static const char *join_sources(om_arena *A, const why *w)
{
    return join_list(A, w->sources, w->n_sources, ", ");
}

static int add_reason(group *g, opmap_op *op, const char *message, const char *actual,
                      int status, unsigned flag, uint64_t chips, const char *path, const why *w)
{
    om_reason *r;
    size_t i;
    for (i = 0; i < op->reason_vec.len; i++) {
        r = &OM_VEC_AT(&op->reason_vec, om_reason, i);
        if (strcmp(r->message, message) == 0 && strcmp(r->actual, actual) == 0) {
            r->instances++;
            r->chips |= chips;
            return OPMAP_OK;
        }
    }
    if (op->reason_vec.len >= OM_MAX_REASONS) {
        op->reasons_dropped++;
        return OPMAP_OK;
    }
    if (!(r = om_vec_push(&op->reason_vec, &g->res->mem)) ||
        !(r->message = om_arena_strdup(&g->res->arena, message)) ||
        !(r->actual = om_arena_strdup(&g->res->arena, actual)) ||
        !(r->example = om_arena_strdup(&g->res->arena, path)) ||
        !(r->sources = join_sources(&g->res->arena, w)))
        return oom(g);
    r->status = status;
    r->flag = flag;
    r->chips = chips;
    r->instances = 1;
    r->grade = w->grade;
    return OPMAP_OK;
}

/*
 * An instance whose inputs are all constants or shape arithmetic: the graph engine folds it
 * at compile time (static shapes) or computes it on the host; no kernel sees its dtypes.
 */
static int folded(const ir_node *n)
{
    uint32_t i, present = 0;
    if (!n->in_facts || !n->n_inputs)
        return 0;
    for (i = 0; i < n->n_inputs; i++) {
        if (!n->inputs[i][0])
            continue;
        present++;
        if (!n->in_facts[i].is_const && !n->in_facts[i].is_shape)
            return 0;
    }
    return present > 0;
}

/*
 * The dtypes the kernels take on input k for one chip, and the evidence for them: for
 * input 0, the chip's own list, else the row's per-input list, else the row's `dtypes`;
 * for other inputs, the row's per-input list. 0 when nothing is stated.
 */
static uint32_t kernel_dtypes(const opmap_row *row, const om_soc_answer *a, uint32_t k, why *w)
{
    size_t i;
    if (k == 0 && a && a->dtypes) {
        w->grade = a->grade;
        w->sources = a->sources;
        w->n_sources = a->n_sources;
        return a->dtypes;
    }
    for (i = 0; i < row->n_inputs; i++)
        if (row->inputs[i].index == k) {
            *w = from_evidence(&row->inputs[i].ev);
            return row->inputs[i].dtypes;
        }
    if (k == 0 && row->dtypes) {
        *w = from_evidence(&row->ev_dtypes);
        return row->dtypes;
    }
    return 0;
}

static int is_onnx(const char *domain)
{
    return strncmp(domain, "ai.onnx", 7) == 0;
}

/*
 * Input dtypes against the kernels' lists, per chip. A dtype no kernel takes makes a full
 * operator partial (a Cast is needed, or it runs elsewhere), with one exception: float32 on
 * an ONNX operator whose kernels list float16 and not float32 is what ATC's default precision
 * mode (force_fp16) computes in float16 anyway, so that is a precision note, not a partial.
 */
static int check_dtypes(group *g, opmap_op *op, const om_visit *v, int *inst)
{
    const opmap_result *res = g->res;
    const opmap_row *row = op->row;
    const ir_node *n = v->node;
    uint32_t k, last = 0;
    size_t i, c;
    char message[400], actual[200];
    int rc;
    if (!row || !n->in_facts || folded(n))
        return OPMAP_OK;
    for (i = 0; i < row->n_inputs; i++)
        if (row->inputs[i].index > last)
            last = row->inputs[i].index;
    for (k = 0; k < n->n_inputs && k <= last; k++) {
        const ir_fact *f = &n->in_facts[k];
        uint64_t partial = 0, note = 0;
        why w = no_evidence, wn = no_evidence, wc;
        int dt = f->dtype;
        if (!n->inputs[k][0] || dt <= 0 || dt >= 32 || f->is_shape)
            continue;
        for (c = 0; c < res->n_chips; c++) {
            uint32_t mask = kernel_dtypes(row, soc_answer(row, g->chip_soc[c]), k, &wc);
            /* structural ops need no kernel; rewrite/unmapped ones are worse already */
            if (!mask || (mask & (1u << dt)) || inst[c] == OPMAP_OP_STRUCTURAL ||
                inst[c] >= OPMAP_OP_REWRITE)
                continue;
            if (dt == IR_DT_FLOAT && (mask & (1u << IR_DT_FLOAT16)) && is_onnx(row->domain)) {
                note |= 1ull << c;
                wn = wc;
            } else {
                partial |= 1ull << c;
                inst[c] = OPMAP_OP_PARTIAL;
                w = wc;
            }
        }
        snprintf(actual, sizeof(actual), "dtype(input %u)=%s", k, ir_dtype_name(dt));
        if (partial) {
            snprintf(message, sizeof(message),
                     "input %u dtype %s is not among the dtypes the table lists for this chip's "
                     "kernels: a Cast is needed, or it runs elsewhere", k, ir_dtype_name(dt));
            if ((rc = add_reason(g, op, message, actual, OPMAP_OP_PARTIAL, 0, partial, v->path,
                                 &w)))
                return rc;
        }
        if (note) {
            snprintf(message, sizeof(message),
                     "the kernels listed for input %u take float16, not float32: under ATC's "
                     "default --precision_mode (force_fp16) it computes in float16; with "
                     "must_keep_origin_dtype it would fall back to AI CPU", k);
            if ((rc = add_reason(g, op, message, actual, -1, 0, note, v->path, &wn)))
                return rc;
        }
    }
    return OPMAP_OK;
}

/* A constraint with a rank or dtype condition: a kernel's restriction. */
static int about_kernel(const om_constraint *ct)
{
    size_t i;
    if (ct->subject == OM_SUBJ_RANK || ct->subject == OM_SUBJ_DTYPE)
        return 1;
    for (i = 0; i < ct->n_also; i++)
        if (ct->also[i].subject == OM_SUBJ_RANK || ct->also[i].subject == OM_SUBJ_DTYPE)
            return 1;
    return 0;
}

/*
 * One instance on every chip: the chip's answer, then each constraint that holds (worst
 * wins), then whether the kernels take its input dtypes. A chip whose answer nobody
 * published is evaluated on the row's general answer like the others, but finish_ops()
 * leaves it out of the operator's status: it is counted apart, never charged.
 * Returns the instance's worst status over the chips.
 */
static int evaluate(group *g, opmap_op *op, const om_visit *v, int *inst, int *rc)
{
    const opmap_result *res = g->res;
    const opmap_row *row = op->row;
    const ir_node *n = v->node;
    size_t c, k;
    int worst = OPMAP_OP_STRUCTURAL;
    char actual[256];
    int is_folded = folded(n);

    *rc = OPMAP_OK;
    for (c = 0; c < res->n_chips; c++) {
        const om_soc_answer *a = soc_answer(row, g->chip_soc[c]);
        inst[c] = !row ? OPMAP_OP_UNMAPPED
                  : a && a->status != OM_SOC_UNKNOWN ? a->status : row->status;
    }
    for (k = 0; row && k < row->n_constraints; k++) {
        const om_constraint *ct = &row->constraints[k];
        uint64_t chips = 0;
        why w = from_evidence(&ct->ev);
        /* kernel restrictions (rank, dtype) say nothing of an instance no kernel runs */
        if (is_folded && about_kernel(ct))
            continue;
        for (c = 0; c < res->n_chips; c++)
            if (!ct->soc_mask || (ct->soc_mask & (1ull << g->chip_soc[c])))
                chips |= 1ull << c;
        if (!chips || !om_constraint_holds(ct, n, actual, sizeof(actual)))
            continue;
        for (c = 0; c < res->n_chips; c++)
            if ((chips & (1ull << c)) && ct->then_status > inst[c])
                inst[c] = ct->then_status;
        op->flags |= ct->flag;
        if ((*rc = add_reason(g, op, ct->message, actual, ct->then_status, ct->flag, chips,
                              v->path, &w)))
            return worst;
    }
    if ((*rc = check_dtypes(g, op, v, inst)))
        return worst;
    if (row) {
        /* a chip nobody has published an answer for: say so, never claim support */
        uint64_t unknown = 0;
        const char *note = NULL;
        for (c = 0; c < res->n_chips; c++)
            if (op->chip_unknown[c]) {
                const om_soc_answer *a = soc_answer(row, g->chip_soc[c]);
                unknown |= 1ull << c;
                if (!note && a->note)
                    note = a->note;
            }
        if (unknown &&
            (*rc = add_reason(g, op, note ? note : "no public source states whether this chip "
                                                   "supports the operator",
                              op->all_unknown
                                  ? "answer unpublished for every chip scanned for: estimated "
                                    "on the row's general answer, counted as unpublished too"
                                  : "answer unpublished for this chip: counted apart, not "
                                    "estimated",
                              -1, 0, unknown, v->path, &no_evidence)))
            return worst;
    }
    for (c = 0; c < res->n_chips; c++) {
        if (inst[c] > op->chip_status[c])
            op->chip_status[c] = inst[c];
        if (inst[c] > worst && (!op->chip_unknown[c] || op->all_unknown))
            worst = inst[c];
    }
    return worst;
}

static int integer_dtype(int dt)
{
    return dt == IR_DT_INT64 || dt == IR_DT_INT32 || dt == IR_DT_INT16 || dt == IR_DT_INT8 ||
           dt == IR_DT_UINT8 || dt == IR_DT_UINT16 || dt == IR_DT_UINT32 ||
           dt == IR_DT_UINT64 || dt == IR_DT_BOOL;
}

/*
 * Operators that read a tensor's shape, never its data, or only relabel it: GE runs its
 * local Reshape/Squeeze/Unsqueeze on the tensor description, and the data stays on the
 * device.
 */
static int reads_metadata_only(const ir_node *n)
{
    if (strcmp(n->domain, "ai.onnx") == 0)
        return strcmp(n->op, "Shape") == 0 || strcmp(n->op, "Size") == 0 ||
               strcmp(n->op, "Reshape") == 0 || strcmp(n->op, "Squeeze") == 0 ||
               strcmp(n->op, "Unsqueeze") == 0 || strcmp(n->op, "Flatten") == 0;
    if (strcmp(n->domain, "aten") == 0)
        return strcmp(n->op, "size") == 0 || strcmp(n->op, "dim") == 0 ||
               strcmp(n->op, "numel") == 0;
    return 0;
}

/*
 * Where an instance runs. Host and AI CPU operators that compute on integer or boolean
 * tensors are shape and index plumbing (Shape -> Gather -> Unsqueeze -> Concat -> Reshape):
 * what crosses to the host is a few integers, not activations, and for static shapes GE
 * folds them at compile time, so they do not split the NPU graph; nor does reading a
 * shape (Shape, Size). Everything else that
 * runs off the NPU, or has no Ascend implementation, does.
 */
static int placement(const opmap_op *op, const ir_node *n, int status)
{
    int off_npu = strcmp(op->engine, "ai_cpu") == 0 || strcmp(op->engine, "host") == 0 ||
                  strcmp(op->engine, "cpu_fallback") == 0;
    if (status == OPMAP_OP_STRUCTURAL)
        return OM_PLACE_NEUTRAL;
    if (status >= OPMAP_OP_REWRITE)
        return OM_PLACE_BREAK;
    if (off_npu && strcmp(op->engine, "cpu_fallback") != 0 &&
        ((n->n_inputs && n->in_facts && integer_dtype(n->in_facts[0].dtype)) ||
         reads_metadata_only(n)))
        return OM_PLACE_NEUTRAL;
    return off_npu ? OM_PLACE_BREAK : OM_PLACE_NPU;
}

static const char *break_why(const opmap_op *op, int status)
{
    if (status == OPMAP_OP_UNMAPPED)
        return "unmapped: no row in the table";
    if (status == OPMAP_OP_REWRITE)
        return "rewrite: no Ascend implementation";
    if (strcmp(op->engine, "cpu_fallback") == 0)
        return "falls back to the host CPU (torch_npu)";
    if (strcmp(op->engine, "host") == 0)
        return "runs on the host";
    return "runs on AI CPU";
}

static int segment(group *g, const opmap_op *op, const om_visit *v, int status)
{
    opmap_result *res = g->res;
    int place = placement(op, v->node, status);
    om_seq *q = om_segments_add(&res->segments, &res->mem, v->seq, place);
    if (!q)
        return oom(g);
    if (!q->graph && !(q->graph = om_arena_strndup(&res->arena, v->path, v->seq_path_len)))
        return oom(g);
    if (place == OM_PLACE_BREAK) {
        om_breaker *b;
        char name[300];
        res->segments.n_breakers++;
        if (res->segments.breakers.len >= OM_MAX_BREAKERS)
            return OPMAP_OK;
        snprintf(name, sizeof(name), "%s::%s", op->domain, op->name);
        if (!(b = om_vec_push(&res->segments.breakers, &res->mem)) ||
            !(b->node = om_arena_strdup(&res->arena, v->path)) ||
            !(b->op = om_arena_strdup(&res->arena, name)) ||
            !(b->why = om_arena_strdup(&res->arena, break_why(op, status))))
            return oom(g);
    }
    return OPMAP_OK;
}

static int on_instance(void *payload, const om_visit *v)
{
    group *g = payload;
    opmap_result *res = g->res;
    const ir_node *n = v->node;
    opmap_op *op;
    const char **slot;
    int inst[64], rc, worst;
    size_t j;

    opkey key;

    if ((g->ops.len + 1) * 2 > g->index_cap && !grow_index(g))
        return oom(g);
    key.domain = n->domain;
    key.name = n->op;
    key.opset = v->opset;
    key.exported_as = "";
    if (aten_fallback(g, n, &key) < 0)
        return oom(g);
    j = key_hash(key.domain, key.name, key.opset) & (g->index_cap - 1);
    while ((op = g->index[j])) {
        if (op->key_domain == key.domain && op->key_op == key.name && op->opset == key.opset)
            break;
        j = (j + 1) & (g->index_cap - 1);
    }
    if (!op) {
        opmap_op **p;
        if (!(op = new_op(g, &key)) || !(p = om_vec_push(&g->ops, &res->mem)))
            return oom(g);
        *p = op;
        g->index[j] = op;
    }
    op->instances++;
    op->dtypes_seen |= n->n_inputs && n->in_facts && n->in_facts[0].dtype > 0 &&
                               n->in_facts[0].dtype < 32
                           ? 1u << n->in_facts[0].dtype
                           : 1u;
    if (!(slot = om_vec_push(&op->path_vec, &res->mem)) ||
        !(*slot = om_arena_strdup(&res->arena, v->path)))
        return oom(g);
    if (n->src_file || op->loc_vec.len) {
        /* source lines (TorchScript debug info): kept parallel to the paths */
        while (op->loc_vec.len + 1 < op->path_vec.len)
            if (!om_vec_push(&op->loc_vec, &res->mem))
                return oom(g);
        if (!(slot = om_vec_push(&op->loc_vec, &res->mem)))
            return oom(g);
        if (n->src_file &&
            !(*slot = om_arena_printf(&res->arena, "%s:%u", n->src_file, (unsigned)n->src_line)))
            return oom(g);
    }
    worst = evaluate(g, op, v, inst, &rc);
    if (rc)
        return rc;
    for (j = 0; g->advice && j < g->table->n_advice; j++)
        om_advice_visit(g->table->advice[j].detector, &g->advice[j], v);
    if ((rc = om_risks_instance(res, op, v)))
        return rc == OPMAP_ENOMEM ? oom(g) : rc;
    return segment(g, op, v, worst);
}

static int on_note(void *payload, const char *message, const char *path)
{
    group *g = payload;
    om_diag *d = om_vec_push(&g->res->diags, &g->res->mem);
    if (!d || !(d->message = om_arena_strdup(&g->res->arena, message)) ||
        !(d->where = om_arena_strdup(&g->res->arena, path)))
        return oom(g);
    d->level = OPMAP_DIAG_WARNING;
    return OPMAP_OK;
}

/* The advice that applies, once the walk has seen every instance. */
static int finish_advice(group *g)
{
    opmap_result *res = g->res;
    om_arena *A = &res->arena;
    size_t i;
    for (i = 0; g->advice && i < g->table->n_advice; i++) {
        const om_advice_rule *rule = &g->table->advice[i];
        om_advice_state *st = &g->advice[i];
        om_advice *a;
        why w;
        if (!om_advice_finish(rule->detector, st, res->inputs, res->n_inputs))
            continue;
        w = from_evidence(&rule->ev);
        if (!(a = om_vec_push(&res->advice, &res->mem)) || !(a->id = om_arena_strdup(A, rule->id)) ||
            !(a->message = om_arena_strdup(A, rule->message)) ||
            !(a->action = om_arena_strdup(A, rule->action)) ||
            !(a->value = om_arena_strdup(A, st->value)) ||
            !(a->where = om_arena_strdup(A, st->where)) ||
            !(a->sources = join_sources(A, &w)) ||
            !(a->recipes = join_list(A, rule->recipes, rule->n_recipes, "; ")))
            return oom(g);
        a->count = st->count;
        a->grade = rule->ev.grade;
        a->optional = rule->optional;
    }
    return OPMAP_OK;
}

/* Worst status first, then most instances, then name: stable, readable output. */
static int op_cmp(const void *a, const void *b)
{
    const opmap_op *x = *(opmap_op *const *)a, *y = *(opmap_op *const *)b;
    int c;
    if (x->status != y->status)
        return x->status > y->status ? -1 : 1;
    if (x->instances != y->instances)
        return x->instances > y->instances ? -1 : 1;
    if ((c = strcmp(x->domain, y->domain)))
        return c;
    if ((c = strcmp(x->name, y->name)))
        return c;
    return x->opset < y->opset ? -1 : x->opset > y->opset;
}

/* After the walk: each operator's status over the chips, its effort, and its lists. */
static int finish_ops(group *g)
{
    opmap_result *res = g->res;
    size_t i, c;
    for (i = 0; i < g->ops.len; i++) {
        opmap_op *op = OM_VEC_AT(&g->ops, opmap_op *, i);
        /* chips whose answer is unpublished count apart; with no other chip, the row's
         * general answer is all there is */
        op->status = OPMAP_OP_STRUCTURAL;
        for (c = 0; c < res->n_chips; c++)
            if (op->chip_status[c] > op->status && (!op->chip_unknown[c] || op->all_unknown))
                op->status = op->chip_status[c];
        if (op->unpublished && op->status != OPMAP_OP_STRUCTURAL) {
            res->unpublished_ops++;
            res->unpublished_effort.min += g->table->unpublished.min;
            res->unpublished_effort.expected += g->table->unpublished.expected;
            res->unpublished_effort.max += g->table->unpublished.max;
        }
        op->effort = g->weights && (g->weights->set & (1u << op->status)) &&
                             op->status != OPMAP_OP_STRUCTURAL
                         ? g->weights->effort[op->status]
                         : opmap_table_weights(g->table, op->status);
        if (op->path_vec.len) {
            if (!(op->paths = om_arena_array(&res->arena, op->path_vec.len, sizeof(char *))))
                return oom(g);
            memcpy(op->paths, op->path_vec.data, op->path_vec.len * sizeof(char *));
            op->n_paths = op->path_vec.len;
        }
        if (op->reason_vec.len) {
            if (!(op->reasons = om_arena_array(&res->arena, op->reason_vec.len, sizeof(om_reason))))
                return oom(g);
            memcpy(op->reasons, op->reason_vec.data, op->reason_vec.len * sizeof(om_reason));
            op->n_reasons = op->reason_vec.len;
        }
        if (op->loc_vec.len) {
            if (!(op->locations = om_arena_array(&res->arena, op->n_paths, sizeof(char *))))
                return oom(g);
            memcpy(op->locations, op->loc_vec.data, op->loc_vec.len * sizeof(char *));
        }
        om_vec_free(&op->path_vec, &res->mem);
        om_vec_free(&op->loc_vec, &res->mem);
        om_vec_free(&op->reason_vec, &res->mem);
    }
    return OPMAP_OK;
}

/* The error for a chip the table has no column for: it names the ones it has. */
static int unknown_chip(const opmap_table *t, const char *name, size_t len, opmap_error *err)
{
    char known[256] = "";
    size_t i, used = 0;
    for (i = 0; i < t->n_socs; i++) {
        if (used + strlen(t->socs[i]) + 8 > sizeof(known)) { /* leave room for ", ..." */
            om_appendf(known, sizeof(known), &used, ", ...");
            break;
        }
        om_appendf(known, sizeof(known), &used, "%s%s", i ? ", " : "", t->socs[i]);
    }
    return om_fail(err, OPMAP_EINVAL, t->origin,
                   "unknown chip '%.*s' (the table has: %s; or use all)",
                   (int)(len > 64 ? 64 : len), name, known);
}

/* Which chips to answer for: NULL (the table's default), "all", or names separated by ','. */
static int pick_chips(group *g, const opmap_table *t, const char *soc, opmap_error *err)
{
    opmap_result *res = g->res;
    size_t i;
    if (!soc || !soc[0]) {
        g->chip_soc[0] = (uint32_t)t->default_soc;
        res->n_chips = 1;
    } else if (strcmp(soc, "all") == 0) {
        for (i = 0; i < t->n_socs; i++)
            g->chip_soc[i] = (uint32_t)i;
        res->n_chips = t->n_socs;
    } else {
        const char *p = soc;
        uint64_t named = 0; /* a chip named twice is answered once; a table has <= 64 */
        res->n_chips = 0;
        while (*p) {
            size_t len = strcspn(p, ",");
            for (i = 0; i < t->n_socs; i++)
                if (strlen(t->socs[i]) == len && strncmp(t->socs[i], p, len) == 0)
                    break;
            if (i == t->n_socs)
                return unknown_chip(t, p, len, err);
            if (!(named & (1ull << i)))
                g->chip_soc[res->n_chips++] = (uint32_t)i;
            named |= 1ull << i;
            p += len;
            if (*p == ',')
                p++;
        }
        if (!res->n_chips)
            return om_fail(err, OPMAP_EINVAL, NULL, "no chip given");
    }
    if (!(res->chips = om_arena_array(&res->arena, res->n_chips, sizeof(char *))))
        return om_fail_mem(err, &res->mem, NULL);
    for (i = 0; i < res->n_chips; i++)
        if (!(res->chips[i] = om_arena_strdup(&res->arena, t->socs[g->chip_soc[i]])))
            return om_fail_mem(err, &res->mem, NULL);
    return OPMAP_OK;
}

int opmap_scan(opmap_result **out, opmap_ctx *ctx, const opmap_model *model,
               const opmap_table *table, const opmap_scan_options *opts, opmap_error *err)
{
    opmap_result *res;
    group g;
    int rc;
    size_t i;

    om_err_clear(err);
    if (!out || !ctx || !model || !table)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: NULL argument");
    *out = NULL;
    if (opts && opts->version != OPMAP_SCAN_OPTIONS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: options version %u, expected %u",
                       opts->version, OPMAP_SCAN_OPTIONS_VERSION);
    if (opts && opts->weights && opts->weights->version != OPMAP_WEIGHTS_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan: weights version %u, expected %u",
                       opts->weights->version, OPMAP_WEIGHTS_VERSION);
    if (!(res = om_ctx_calloc(ctx, sizeof(*res))))
        return om_fail(err, OPMAP_ENOMEM, model->ir.name, "out of memory");
    res->ctx = ctx;
    om_mem_init(&res->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&res->arena, &res->mem, 0);
    om_vec_init(&res->diags, sizeof(om_diag));
    om_vec_init(&res->risks, sizeof(om_risk));
    om_vec_init(&res->advice, sizeof(om_advice));
    om_segments_init(&res->segments);

    memset(&g, 0, sizeof(g));
    g.res = res;
    g.table = table;
    g.weights = opts ? opts->weights : NULL;
    g.err = err;
    om_vec_init(&g.ops, sizeof(opmap_op *));
    ir_intern_init(&g.names, &res->mem, &res->arena);

    if ((rc = pick_chips(&g, table, opts ? opts->soc : NULL, err)))
        goto done;
    if (!(res->model_name = om_arena_strdup(&res->arena, model->ir.name)) ||
        !(res->table_origin = om_arena_strdup(&res->arena, table->origin)) ||
        !(res->table_name = om_arena_strdup(&res->arena, table->name)) ||
        !(res->table_version = om_arena_strdup(&res->arena, table->version)) ||
        !(res->torch_npu = om_arena_strdup(&res->arena, table->torch_npu)) ||
        !(res->cann = om_arena_strdup(&res->arena, table->cann)) ||
        om_scan_copy_model(res, &model->ir) != OPMAP_OK ||
        om_risks_model(res) != OPMAP_OK) {
        rc = om_fail_mem(err, &res->mem, model->ir.name);
        goto done;
    }
    if (table->n_advice && model->ir.format == OPMAP_FORMAT_ONNX &&
        !(g.advice = om_calloc(&res->mem, table->n_advice, sizeof(*g.advice)))) {
        rc = om_fail_mem(err, &res->mem, model->ir.name);
        goto done;
    }
    rc = om_walk(&model->ir, &ctx->limits, &res->mem, on_instance, on_note, &g, err);
    if (rc == OPMAP_OK)
        rc = finish_ops(&g);
    if (rc == OPMAP_OK)
        rc = finish_advice(&g);
    if (rc == OPMAP_OK && g.ops.len) {
        if (!(res->ops = om_arena_array(&res->arena, g.ops.len, sizeof(opmap_op *)))) {
            rc = oom(&g);
        } else {
            memcpy(res->ops, g.ops.data, g.ops.len * sizeof(opmap_op *));
            res->n_ops = g.ops.len;
            qsort(res->ops, res->n_ops, sizeof(*res->ops), op_cmp);
        }
    }
    if (rc == OPMAP_OK && om_risks_flags(res) != OPMAP_OK)
        rc = oom(&g);
    if (rc == OPMAP_OK)
        om_estimate_summary(res->ops, res->n_ops, &res->summary);
done:
    for (i = 0; i < g.ops.len; i++) {
        opmap_op *op = OM_VEC_AT(&g.ops, opmap_op *, i);
        om_vec_free(&op->path_vec, &res->mem);
        om_vec_free(&op->loc_vec, &res->mem);
        om_vec_free(&op->reason_vec, &res->mem);
    }
    om_vec_free(&g.ops, &res->mem);
    if (g.index)
        om_dealloc(&res->mem, g.index, g.index_cap * sizeof(*g.index));
    ir_intern_free(&g.names);
    if (g.advice)
        om_dealloc(&res->mem, g.advice, table->n_advice * sizeof(*g.advice));
    if (rc != OPMAP_OK) {
        opmap_result_free(res);
        return rc;
    }
    *out = res;
    return OPMAP_OK;
}

void opmap_result_free(opmap_result *res)
{
    if (!res)
        return;
    om_vec_free(&res->diags, &res->mem);
    om_vec_free(&res->risks, &res->mem);
    om_vec_free(&res->advice, &res->mem);
    om_segments_free(&res->segments, &res->mem);
    om_arena_free(&res->arena);
    om_ctx_release(res->ctx, res);
}
