/*
 * scan/risks.c - model-level risks from the seed guides: dynamic dimensions (each new
 * shape recompiles the graph), dtypes Ascend largely lacks (float64, complex, uint64),
 * random ops in an inference graph, precision and inf/nan differences.
 *
 * Risks repeat across instances, so each distinct message is kept once with its first
 * place; at most OM_MAX_RISKS are kept and the rest counted.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "scan_internal.h"

static int add_risk(opmap_result *res, const char *kind, int level, int from_flag,
                    const char *message, const char *where)
{
    om_risk *r;
    size_t i;
    for (i = 0; i < res->risks.len; i++) {
        r = &OM_VEC_AT(&res->risks, om_risk, i);
        if (strcmp(r->kind, kind) == 0 && strcmp(r->message, message) == 0)
            return OPMAP_OK;
    }
    if (res->risks.len >= OM_MAX_RISKS) {
        res->risks_dropped++;
        return OPMAP_OK;
    }
    if (!(r = om_vec_push(&res->risks, &res->mem)) ||
        !(r->message = om_arena_strdup(&res->arena, message)) ||
        !(r->where = om_arena_strdup(&res->arena, where)))
        return OPMAP_ENOMEM;
    r->kind = kind; /* constant strings */
    r->level = level;
    r->from_flag = from_flag;
    return OPMAP_OK;
}

static int add(opmap_result *res, const char *kind, int level, const char *message,
               const char *where)
{
    return add_risk(res, kind, level, 0, message, where);
}

static int risky_dtype(int dt)
{
    return dt == IR_DT_DOUBLE || dt == IR_DT_COMPLEX64 || dt == IR_DT_COMPLEX128 ||
           dt == IR_DT_UINT64;
}

static const char *const ext_problem[] = {
    [IR_EXT_MISSING] = "is missing",
    [IR_EXT_SHORT] = "is shorter than the data it should hold",
    [IR_EXT_OUTSIDE] = "points outside the model's directory (not followed)",
};

static int by_domain(const void *a, const void *b)
{
    const ir_opset *x = a, *y = b;
    int c = strcmp(x->domain, y->domain);
    return c ? c : (x < y ? -1 : x > y);
}

/*
 * A domain imported twice: runtimes need not agree on which import counts (onnx's checker
 * takes the last one, as opmap does), so the model is not one graph for every reader.
 */
static int duplicate_imports(opmap_result *res)
{
    ir_opset *sorted;
    size_t i;
    char msg[512];
    int rc = OPMAP_OK;
    if (res->n_opsets < 2)
        return OPMAP_OK;
    if (!(sorted = om_alloc(&res->mem, res->n_opsets * sizeof(*sorted))))
        return OPMAP_ENOMEM;
    memcpy(sorted, res->opsets, res->n_opsets * sizeof(*sorted));
    qsort(sorted, res->n_opsets, sizeof(*sorted), by_domain);
    for (i = 1; i < res->n_opsets && rc == OPMAP_OK; i++)
        if (strcmp(sorted[i].domain, sorted[i - 1].domain) == 0 &&
            (i < 2 || strcmp(sorted[i].domain, sorted[i - 2].domain) != 0)) {
            snprintf(msg, sizeof(msg), "domain '%.100s' is imported more than once "
                     "(opset_import): the last import (version %lld) counts, as onnx's checker "
                     "reads it; other runtimes may read another", sorted[i].domain,
                     (long long)ir_opset_version(res->opsets, res->n_opsets, sorted[i].domain));
            rc = add(res, "opset_import", OPMAP_DIAG_WARNING, msg, "main/opset_import");
        }
    om_dealloc(&res->mem, sorted, res->n_opsets * sizeof(*sorted));
    return rc;
}

/*
 * A model-local function defined twice (same domain, name and overload): calls go to the
 * last definition, as onnxruntime and onnx's inliner read it (onnx 1.12's shape inference
 * keeps the first), so the model is not one program for every reader.
 */
int om_risks_functions(opmap_result *res, const ir_model *m)
{
    size_t i;
    char msg[600], where[300];
    int rc;
    for (i = 0; i < m->n_functions; i++) {
        const ir_function *fn = &m->functions[i];
        if (!fn->redefined)
            continue;
        snprintf(msg, sizeof(msg), "local function '%.100s::%.100s'%s%.100s%s is defined more "
                 "than once (ModelProto.functions): calls run the last definition, as "
                 "onnxruntime and onnx's inliner read it; other readers may take another",
                 fn->domain, fn->name, fn->overload && fn->overload[0] ? " (overload '" : "",
                 fn->overload ? fn->overload : "", fn->overload && fn->overload[0] ? "')" : "");
        snprintf(where, sizeof(where), "functions/%.100s::%.100s", fn->domain, fn->name);
        if ((rc = add(res, "local_function", OPMAP_DIAG_WARNING, msg, where)))
            return rc;
    }
    return OPMAP_OK;
}

int om_risks_model(opmap_result *res)
{
    size_t i;
    char msg[512], where[300];
    int rc0;
    if ((rc0 = duplicate_imports(res)))
        return rc0;
    if (res->workload_narrowed &&
        (rc0 = add(res, "workload", OPMAP_DIAG_INFO, "answered for inference: an ONNX model is "
                   "an inference graph (ATC builds no backward); scan the module's TorchScript "
                   "or torch.export form for what training needs", "main")))
        return rc0;
    if (res->training_reads) {
        if (res->workload == OPMAP_WORKLOAD_TRAINING)
            snprintf(msg, sizeof(msg), "forward read in eval mode: a module's self.training "
                     "is False (%" PRIu64 " read%s), so branches only train mode takes "
                     "(batch-norm statistics, stochastic depth, dropout) are not scanned; the "
                     "backward of every operator read is", res->training_reads,
                     res->training_reads == 1 ? "" : "s");
        else
            snprintf(msg, sizeof(msg), "read in eval mode, as inference runs the model: a "
                     "module's self.training is False (%" PRIu64 " read%s), so code that runs "
                     "only in training (batch-norm statistics, stochastic depth, dropout "
                     "branches) is not scanned", res->training_reads,
                     res->training_reads == 1 ? "" : "s");
        if ((rc0 = add(res, "eval_mode", OPMAP_DIAG_INFO, msg, "main")))
            return rc0;
    }
    for (i = 0; i < res->n_ext; i++) {
        const om_ext_ref *e = &res->ext[i];
        int rc;
        if (e->check < IR_EXT_MISSING)
            continue;
        snprintf(msg, sizeof(msg), "external data '%.200s' of tensor '%.100s' %s",
                 e->location, e->tensor, ext_problem[e->check]);
        snprintf(where, sizeof(where), "main/initializers/%.200s", e->tensor);
        if ((rc = add(res, "external_data", OPMAP_DIAG_WARNING, msg, where)))
            return rc;
    }
    for (i = 0; i < res->n_inputs; i++) {
        const ir_value *v = &res->inputs[i];
        int32_t d;
        size_t used = 0;
        int dynamic = 0, rc;
        om_appendf(msg, sizeof(msg), &used, "input '%.100s' has dynamic dimensions [", v->name);
        for (d = 0; d < v->type.rank && used < sizeof(msg) - 40; d++) {
            const ir_dim *dim = &v->type.dims[d];
            if (dim->param || dim->value < 0)
                dynamic = 1;
            om_appendf(msg, sizeof(msg), &used, "%s%.40s", d ? ", " : "",
                   dim->param ? dim->param : dim->value < 0 ? "?" : "");
            if (!dim->param && dim->value >= 0)
                om_appendf(msg, sizeof(msg), &used, "%lld", (long long)dim->value);
        }
        snprintf(where, sizeof(where), "main/inputs/%.200s", v->name);
        if (dynamic) {
            om_appendf(msg, sizeof(msg), &used,
                   "]: every new shape recompiles the graph on Ascend; fix them, or bucket "
                   "the shapes");
            if ((rc = add(res, "dynamic_shape", OPMAP_DIAG_WARNING, msg, where)))
                return rc;
        }
        if (risky_dtype(v->type.elem)) {
            snprintf(msg, sizeof(msg), "input '%.100s' is %s: Ascend largely lacks %s kernels; "
                     "feed float32/int64 instead", v->name, ir_dtype_name(v->type.elem),
                     ir_dtype_name(v->type.elem));
            if ((rc = add(res, "dtype", OPMAP_DIAG_WARNING, msg, where)))
                return rc;
        }
    }
    return OPMAP_OK;
}

int om_risks_instance(opmap_result *res, const opmap_op *op, const om_visit *v)
{
    const ir_node *n = v->node;
    char msg[512];
    uint32_t i;
    int rc;
    for (i = 0; n->out_facts && i < n->n_outputs; i++) {
        int dt = n->out_facts[i].dtype;
        if (!risky_dtype(dt))
            continue;
        snprintf(msg, sizeof(msg), "%s::%s produces %s: Ascend largely lacks %s kernels; keep "
                 "the model in float32", op->domain, op->name, ir_dtype_name(dt),
                 ir_dtype_name(dt));
        if ((rc = add(res, "dtype", OPMAP_DIAG_WARNING, msg, v->path)))
            return rc;
    }
    if (strcmp(n->domain, "ai.onnx") == 0 && strcmp(n->op, "Reshape") == 0 && n->n_inputs > 1 &&
        n->in_facts && n->in_facts[1].value && n->in_facts[1].value->values) {
        const ir_tensor *t = n->in_facts[1].value;
        size_t used = 0;
        int inferred = 0;
        om_appendf(msg, sizeof(msg), &used, "Reshape target [");
        for (i = 0; i < t->n_values && used < sizeof(msg) - 100; i++) {
            inferred |= t->values[i] == -1;
            om_appendf(msg, sizeof(msg), &used, "%s%.0f", i ? ", " : "", t->values[i]);
        }
        if (inferred) {
            om_appendf(msg, sizeof(msg), &used, "] leaves a dimension to be inferred at run time");
            if ((rc = add(res, "dynamic_shape", OPMAP_DIAG_INFO, msg, v->path)))
                return rc;
        }
    }
    return OPMAP_OK;
}

static const struct {
    unsigned flag;
    const char *kind;
    const char *what;
} flag_risks[] = {
    { OPMAP_FLAG_RNG, "rng", "random streams differ from CUDA's; an inference graph should "
                             "not hold it (export in eval mode)" },
    { OPMAP_FLAG_INF_NAN, "inf_nan", "inf/nan semantics differ on Ascend" },
    { OPMAP_FLAG_PRECISION, "precision", "results may differ numerically on Ascend (see its "
                                         "reasons and notes)" },
    { OPMAP_FLAG_NONDETERMINISTIC, "nondeterministic", "not bit-reproducible run to run on "
                                                       "Ascend" },
    { OPMAP_FLAG_DYNAMIC_SHAPE, "dynamic_shape", "its output shape depends on the data: a "
                                                 "graph recompiles for each new shape" },
};

/* Why an ONNX export can need work where the module's ATen forms do not (one model, one
 * answer, or the report says why): ATC compiles ahead of time, eager torch_npu does not. */
#define ONNX_DYNAMIC                                                                        \
    "its output shape depends on the data: ATC builds the model for fixed shapes, so bound "   \
    "it or keep it out of the model; eager torch_npu, which the module's TorchScript or "      \
    "torch.export form is answered for, runs data-dependent shapes op by op, so that answer "  \
    "does not count it"

int om_risks_flags(opmap_result *res)
{
    size_t i, k;
    char msg[512];
    int rc;
    for (i = 0; i < res->n_ops; i++) {
        const opmap_op *op = res->ops[i];
        for (k = 0; k < sizeof(flag_risks) / sizeof(flag_risks[0]); k++) {
            if (!(op->flags & flag_risks[k].flag))
                continue;
            snprintf(msg, sizeof(msg), "%s::%s (%llu instances): %s", op->domain, op->name,
                     (unsigned long long)op->instances,
                     flag_risks[k].flag == OPMAP_FLAG_DYNAMIC_SHAPE &&
                             om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATC) ? ONNX_DYNAMIC
                                                             : flag_risks[k].what);
            if ((rc = add_risk(res, flag_risks[k].kind, OPMAP_DIAG_WARNING, 1, msg,
                               op->n_paths ? op->paths[0] : "")))
                return rc;
        }
    }
    return OPMAP_OK;
}

/* The walker visits no call it expands (archives, ONNX functions); a call it visits in
 * graph text is one the printed graph left in place: its operators are not in the text. */
int om_risks_call(opmap_result *res, const om_visit *v)
{
    const ir_node *n = v->node;
    om_diag *d;
    if (!om_format_has(res->format, OPMAP_FORMAT_TRAIT_PRINTED) || n->callee || strcmp(n->domain, "prim") != 0 ||
        (strcmp(n->op, "CallMethod") != 0 && strcmp(n->op, "CallFunction") != 0))
        return 0;
    if (!res->calls++ && !(res->first_call = om_arena_strdup(&res->arena, v->path)))
        return OPMAP_ENOMEM;
    if (res->calls > OM_MAX_CALL_NOTES) /* the risk counts them all */
        return 1;
    if (!(d = om_vec_push(&res->diags, &res->mem)) ||
        !(d->message = om_arena_strdup(&res->arena, OM_NOT_INLINED)) ||
        !(d->where = om_arena_strdup(&res->arena, v->path)))
        return OPMAP_ENOMEM;
    d->level = OPMAP_DIAG_WARNING;
    return 1;
}

int om_risks_calls(opmap_result *res)
{
    char msg[512];
    if (!res->calls)
        return OPMAP_OK;
    snprintf(msg, sizeof(msg), "graph not inlined: %" PRIu64 " call%s (prim::CallMethod, "
             "prim::CallFunction) hide the operators of what they call; only the operators "
             "printed are scanned: print `module.inlined_graph` for all of them",
             res->calls, res->calls == 1 ? "" : "s");
    return add(res, "not_inlined", OPMAP_DIAG_WARNING, msg, res->first_call);
}
