/*
 * scan/answer.c - one instance answered on every chip scanned for: the chip's answer, the
 * torch_npu version and graph mode (torchair's converters) answered for, the table's
 * constraints that hold (rules/constraints.h), the kernels' input dtypes under ATC's
 * precision mode, unpublished chips; each reason kept once per operator with the evidence
 * behind it.
 */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "rules/constraints.h"
#include "scan_internal.h"

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
    return om_scan_join(A, w->sources, w->n_sources, ", ");
}

static int add_reason(group *g, om_op_work *ow, const char *message, const char *actual,
                      int status, unsigned flag, uint64_t chips, const char *path, const why *w)
{
    opmap_op *op = ow->op;
    om_reason *r;
    size_t i;
    for (i = 0; i < ow->reasons.len; i++) {
        r = &OM_VEC_AT(&ow->reasons, om_reason, i);
        if (strcmp(r->message, message) == 0 && strcmp(r->actual, actual) == 0) {
            r->instances++;
            r->chips |= chips;
            return OPMAP_OK;
        }
    }
    if (ow->reasons.len >= OM_MAX_REASONS) {
        op->reasons_dropped++;
        return OPMAP_OK;
    }
    if (!(r = om_vec_push(&ow->reasons, &g->res->mem)) ||
        !(r->message = om_arena_strdup(&g->res->arena, message)) ||
        !(r->actual = om_arena_strdup(&g->res->arena, actual)) ||
        !(r->example = om_arena_strdup(&g->res->arena, path)) ||
        !(r->sources = join_sources(&g->res->arena, w)))
        return om_scan_oom(g);
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
 * operator partial (a Cast is needed, or it runs elsewhere), with two exceptions, both notes:
 * float32 on an ONNX operator whose kernels list float16 and not float32 is what ATC's
 * default precision mode (force_fp16) computes in float16 anyway; and a constant input of an
 * ONNX operator (TopK's K, an int64 initializer) is a value ATC's graph engine can cast when
 * it folds constants at compile time, so its dtype alone asks for no change of the model.
 */
static int check_dtypes(group *g, om_op_work *ow, const om_visit *v, int *inst)
{
    opmap_op *op = ow->op;
    const opmap_result *res = g->res;
    const opmap_row *row = op->row;
    const ir_node *n = v->node;
    uint32_t k, last = 0;
    size_t i, c;
    char message[400], actual[200];
    int rc;
    if (!row || !n->in_facts || folded(n))
        return OPMAP_OK;
    /* an ATen operator PyTorch decomposes has no kernel of its own to take the dtypes: the
     * operators it becomes are answered (a doc's "self int64 only" on new_full is not) */
    if (!is_onnx(row->domain) && row->engine && strcmp(row->engine, "decomposed") == 0)
        return OPMAP_OK;
    for (i = 0; i < row->n_inputs; i++)
        if (row->inputs[i].index > last)
            last = row->inputs[i].index;
    for (k = 0; k < n->n_inputs && k <= last; k++) {
        const ir_fact *f = &n->in_facts[k];
        uint64_t partial = 0, note = 0;
        why w = no_evidence, wn = no_evidence, wc;
        int dt = f->dtype;
        int constant = f->is_const && is_onnx(row->domain), fp16 = 0;
        if (!n->inputs[k][0] || dt <= 0 || dt >= 32 || f->is_shape)
            continue;
        for (c = 0; c < res->n_chips; c++) {
            uint32_t mask = kernel_dtypes(row, om_scan_soc_answer(row, g->chip_soc[c]), k, &wc);
            /* structural ops need no kernel; rewrite/unmapped ones are worse already */
            if (!mask || (mask & (1u << dt)) || inst[c] == OPMAP_OP_STRUCTURAL ||
                inst[c] >= OPMAP_OP_REWRITE)
                continue;
            if (dt == IR_DT_FLOAT && (mask & (1u << IR_DT_FLOAT16)) && is_onnx(row->domain)) {
                note |= 1ull << c;
                fp16 = 1;
                wn = wc;
            } else if (constant) {
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
            if ((rc = add_reason(g, ow, message, actual, OPMAP_OP_PARTIAL, 0, partial, v->path,
                                 &w)))
                return rc;
        }
        if (note && constant && !fp16) {
            snprintf(message, sizeof(message),
                     "input %u is a constant of dtype %s, which the kernels listed do not take: "
                     "ATC casts a constant when it folds constants at compile time; if the "
                     "conversion still fails, store it in a dtype the kernel takes", k,
                     ir_dtype_name(dt));
            if ((rc = add_reason(g, ow, message, actual, -1, 0, note, v->path, &wn)))
                return rc;
        } else if (note) {
            snprintf(message, sizeof(message),
                     "the kernels listed for input %u take float16, not float32: under ATC's "
                     "default --precision_mode (force_fp16) it computes in float16; with "
                     "must_keep_origin_dtype it would fall back to AI CPU", k);
            if ((rc = add_reason(g, ow, message, actual, -1, 0, note, v->path, &wn)))
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
 * The evidence for a row's torch_npu range: op-plugin's version lists (the built-in table
 * takes its ranges from op-plugin-functions, tools/table/build_table.py) when the row cites
 * them, else the row's status evidence.
 */
static why range_evidence(const opmap_row *row)
{
    static const char *const op_plugin = "op-plugin-functions";
    size_t i;
    why w = from_evidence(&row->ev_status);
    for (i = 0; i < row->n_sources; i++)
        if (strcmp(row->sources[i], op_plugin) == 0) {
            w.grade = OM_GRADE_KERNEL;
            w.sources = &row->sources[i];
            w.n_sources = 1;
        }
    return w;
}

/*
 * The torch_npu version answered for (--torch-npu) outside the row's range: no NPU kernel
 * in that version, on any chip, so the operator is rewrite there (upgrade, downgrade, or
 * change the model), with the first (or last) version that has one.
 */
static int check_torch_npu(group *g, om_op_work *ow, const om_visit *v, int *inst)
{
    opmap_op *op = ow->op;
    const opmap_row *row = op->row;
    const opmap_result *res = g->res;
    char message[400], actual[120];
    size_t c;
    int place;
    why w;
    if (!g->has_target || !row)
        return OPMAP_OK;
    place = om_npu_range_place(row->tnpu_min, row->tnpu_max, &g->target);
    if (place != -1 && place != 1)
        return OPMAP_OK;
    if (place < 0)
        snprintf(message, sizeof(message),
                 "no NPU kernel before torch_npu %s (the first version with one): upgrade "
                 "torch_npu to %s or later, or rewrite without it", row->tnpu_min, row->tnpu_min);
    else
        snprintf(message, sizeof(message),
                 "no NPU kernel after torch_npu %s (the last version with one): stay on "
                 "torch_npu %s, or rewrite without it", row->tnpu_max, row->tnpu_max);
    snprintf(actual, sizeof(actual), "target torch_npu %s", res->tnpu_target);
    for (c = 0; c < res->n_chips; c++)
        if (inst[c] < OPMAP_OP_REWRITE)
            inst[c] = OPMAP_OP_REWRITE;
    w = range_evidence(row);
    return add_reason(g, ow, message, actual, OPMAP_OP_REWRITE, 0,
                      res->n_chips >= 64 ? ~0ull : (1ull << res->n_chips) - 1, v->path, &w);
}

/* The instance's worst status over the chips, those nobody published an answer for left
 * out unless every chip is one. */
static int worst_of(const opmap_op *op, const int *inst, size_t n_chips)
{
    size_t c;
    int worst = OPMAP_OP_STRUCTURAL;
    for (c = 0; c < n_chips; c++)
        if (inst[c] > worst && (!op->chip_unknown[c] || op->all_unknown))
            worst = inst[c];
    return worst;
}

/*
 * Graph mode (graph_mode.c): the worse of the eager answer and what torchair's converters
 * do with the instance, on every chip (torchair converts the same graph for all of them).
 */
static int check_graph(group *g, om_op_work *ow, const om_visit *v, int *inst)
{
    opmap_op *op = ow->op;
    const opmap_result *res = g->res;
    om_graph_verdict gv;
    size_t c;
    why w;
    if (!om_graph_applies(res) || !om_graph_verdict_of(g->table, op->row, v->node, &gv))
        return OPMAP_OK;
    for (c = 0; c < res->n_chips; c++)
        if (gv.status > inst[c])
            inst[c] = gv.status;
    w = from_evidence(gv.ev);
    return add_reason(g, ow, gv.message, gv.actual, gv.status, 0,
                      res->n_chips >= 64 ? ~0ull : (1ull << res->n_chips) - 1, v->path, &w);
}

/* Whether a training scan answers this result's operators' backward: ATen graphs only. */
int om_scan_backward_applies(const opmap_result *res)
{
    return res->workload == OPMAP_WORKLOAD_TRAINING &&
           om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATEN);
}

/*
 * Training (opmap_scan_options.workload): the worse of the forward answer and the
 * backward's, on every chip: a backward operator with limits or without an NPU kernel
 * (its own row's answer), or an npu operator torch_npu registers no backward for.
 */
static int check_backward(group *g, om_op_work *ow, const om_visit *v, int *inst)
{
    const opmap_op *op = ow->op;
    const opmap_result *res = g->res;
    const om_backward *b = op->row ? &op->row->backward : NULL;
    char actual[256];
    size_t c, k, used = 0;
    int status;
    why w;
    if (!b || !om_scan_backward_applies(res))
        return OPMAP_OK;
    status = b->status == OM_BW_REWRITE ? OPMAP_OP_REWRITE
             : b->status == OM_BW_PARTIAL || b->status == OM_BW_MISSING ? OPMAP_OP_PARTIAL
                                                                       : -1;
    if (status < 0)
        return OPMAP_OK;
    for (c = 0; c < res->n_chips; c++)
        if (status > inst[c])
            inst[c] = status;
    om_appendf(actual, sizeof(actual), &used, "backward: %s", om_backward_status_name(b->status));
    for (k = 0; k < b->n_ops && k < 4; k++)
        om_appendf(actual, sizeof(actual), &used, "%s%s", k ? ", " : " (", b->ops[k]);
    if (k)
        om_appendf(actual, sizeof(actual), &used, "%s)", k < b->n_ops ? ", ..." : "");
    w = from_evidence(&b->ev);
    return add_reason(g, ow, b->note ? b->note : "training: its backward has no NPU kernel",
                      actual, status, 0, res->n_chips >= 64 ? ~0ull : (1ull << res->n_chips) - 1,
                      v->path, &w);
}

/* What this instance becomes: the first of the row's `becomes` cases that holds for it
 * (Conv2D for a 2-D kernel), counted per case; none holding is counted as undecided. */
static int take_case(om_op_work *ow, const ir_node *n)
{
    const opmap_row *row = ow->op->row;
    size_t k, i;
    char actual[64];
    for (k = 0; row && k < row->n_constraints; k++) {
        const om_constraint *ct = &row->constraints[k];
        if (!ct->becomes)
            continue;
        ow->has_cases = 1;
        if (!om_constraint_holds(ct, n, actual, sizeof(actual)))
            continue;
        for (i = 0; i < ow->n_cases_seen; i++)
            if (ow->case_seen[i] == ct->becomes)
                break;
        if (i == ow->n_cases_seen) {
            if (i == OM_MAX_CASES) {
                ow->cases_undecided++;  /* more cases than are kept: said as undecided */
                return OPMAP_OK;
            }
            ow->case_seen[ow->n_cases_seen++] = ct->becomes;
        }
        ow->case_count[i]++;
        return OPMAP_OK;
    }
    if (ow->has_cases)
        ow->cases_undecided++;
    return OPMAP_OK;
}

/*
 * One instance on every chip: the chip's answer, then each constraint that holds (worst
 * wins), then whether the kernels take its input dtypes. A chip whose answer nobody
 * published is evaluated on the row's general answer like the others, but finish_ops()
 * leaves it out of the operator's status: it is counted apart, never charged. Graph mode
 * comes last. Returns the instance's worst status over the chips; *placed is the one its
 * placement follows (the eager answer).
 */
int om_scan_evaluate(group *g, om_op_work *ow, const om_visit *v, int *inst, int *placed,
                     int *rc)
{
    opmap_op *op = ow->op;
    const opmap_result *res = g->res;
    const opmap_row *row = op->row;
    const ir_node *n = v->node;
    size_t c, k;
    int worst = OPMAP_OP_STRUCTURAL;
    char actual[256];
    int is_folded = folded(n);

    *rc = OPMAP_OK;
    if (row && ir_node_scalar_only(n)) {
        /* TorchScript's own arithmetic on ints, floats, strings and lists: the interpreter
         * computes it on the host, no kernel runs (the row answers the tensor overloads) */
        for (c = 0; c < res->n_chips; c++)
            inst[c] = OPMAP_OP_STRUCTURAL;
        *placed = OPMAP_OP_STRUCTURAL;
        return OPMAP_OP_STRUCTURAL;
    }
    op->flags |= row ? row->flags : 0;
    for (c = 0; c < res->n_chips; c++) {
        const om_soc_answer *a = om_scan_soc_answer(row, g->chip_soc[c]);
        inst[c] = !row ? OPMAP_OP_UNMAPPED
                  : a && a->status != OM_SOC_UNKNOWN ? a->status : row->status;
    }
    /* before the dtypes: no kernel in that version takes any */
    if ((*rc = check_torch_npu(g, ow, v, inst)))
        return worst;
    if ((*rc = take_case(ow, n)))
        return worst;
    for (k = 0; row && k < row->n_constraints; k++) {
        const om_constraint *ct = &row->constraints[k];
        uint64_t chips = 0;
        why w = from_evidence(&ct->ev);
        if (ct->becomes)
            continue;       /* a case of what it becomes (take_case), not a restriction */
        /* kernel restrictions (rank, dtype) say nothing of an instance no kernel runs */
        if (is_folded && about_kernel(ct))
            continue;
        for (c = 0; c < res->n_chips; c++)
            if (!ct->soc_mask || (ct->soc_mask & (1ull << g->chip_soc[c])))
                chips |= 1ull << c;
        /* attribute values as the call binds them (a function body's ref_attr_name) */
        if (!chips || !om_constraint_holds(ct, v->bound, actual, sizeof(actual)))
            continue;
        for (c = 0; c < res->n_chips; c++)
            if ((chips & (1ull << c)) && ct->then_status > inst[c])
                inst[c] = ct->then_status;
        op->flags |= ct->flag;
        if ((*rc = add_reason(g, ow, ct->message, actual, ct->then_status, ct->flag, chips,
                              v->path, &w)))
            return worst;
    }
    if ((*rc = check_dtypes(g, ow, v, inst)))
        return worst;
    if (row) {
        /* a chip nobody has published an answer for: say so, never claim support */
        uint64_t unknown = 0;
        const char *note = NULL;
        for (c = 0; c < res->n_chips; c++)
            if (op->chip_unknown[c]) {
                const om_soc_answer *a = om_scan_soc_answer(row, g->chip_soc[c]);
                unknown |= 1ull << c;
                if (!note && a->note)
                    note = a->note;
            }
        if (unknown &&
            (*rc = add_reason(g, ow, note ? note : "no public source states whether this chip "
                                                   "supports the operator",
                              op->all_unknown
                                  ? "answer unpublished for every chip scanned for: estimated "
                                    "on the row's general answer, counted as unpublished too"
                                  : "answer unpublished for this chip: counted apart, not "
                                    "estimated",
                              -1, 0, unknown, v->path, &no_evidence)))
            return worst;
    }
    /* where it runs is the eager answer: in graph mode an operator torchair cannot convert
     * still runs on the NPU, outside the compiled graph */
    *placed = worst_of(op, inst, res->n_chips);
    if ((*rc = check_graph(g, ow, v, inst)) || (*rc = check_backward(g, ow, v, inst)))
        return worst;
    for (c = 0; c < res->n_chips; c++)
        if (inst[c] > op->chip_status[c])
            op->chip_status[c] = inst[c];
    return worst_of(op, inst, res->n_chips);
}

const char *om_scan_sources(om_arena *A, const om_evidence *ev)
{
    why w = from_evidence(ev);
    return join_sources(A, &w);
}
