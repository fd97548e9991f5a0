/*
 * readers/onnx/onnx_reader.c - ONNX ModelProto bytes -> IR.
 *
 * The recursive messages (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto,
 * FunctionProto) are walked field by field with the bounded wire cursor, so that:
 *  - weight payloads (raw_data, the typed *_data fields) are stepped over by length, never
 *    read or copied: memory does not grow with the weights;
 *  - subgraph and type nesting is bounded by limits.max_depth (protobuf-c has no limit);
 *  - offsets are 64-bit, so files and fields over 2 GiB work.
 * The small flat messages (OperatorSetIdProto, StringStringEntryProto, TypeProto.Tensor and
 * its shape) are handed to protobuf-c, generated at build time from Debian's onnx.proto.
 *
 * Each repeated field is counted in a first pass over its message so arrays are allocated
 * once, at their exact size, in the model's arena.
 */
#include "onnx_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* ---- errors ---- */

int om_onnx_wire_fail(rd *r, const pb_cur *c)
{
    return om_fail_at(r->err, OPMAP_EFORMAT, r->src, c->err_off, "malformed protobuf: %s",
                      c->err ? c->err : "unknown problem");
}

int om_onnx_oom(rd *r)
{
    return om_fail_mem(r->err, &r->m->mem, r->src);
}

static const char *wt_name(int wt)
{
    switch (wt) {
    case PB_VARINT: return "varint";
    case PB_FIXED64: return "fixed64";
    case PB_LEN: return "length-delimited";
    case PB_FIXED32: return "fixed32";
    default: return "group";
    }
}

int om_onnx_want(rd *r, const pb_field *f, int wt, const char *what)
{
    if (f->wt == wt)
        return OPMAP_OK;
    return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->tag_off,
                      "%s (field %" PRIu32 ") is %s, expected %s: not an ONNX model?", what,
                      f->num, wt_name(f->wt), wt_name(wt));
}

int om_onnx_ints(rd *r, const pb_field *f, const char *what, int64_t *out, uint64_t *n,
                 uint64_t cap)
{
    int rc;
    if (f->wt == PB_LEN) {
        pb_cur pc = pb_span(r->base, r->view, f->off, f->len);
        uint64_t v;
        while (pc.pos < pc.end) {
            if (pb_varint(&pc, &v) < 0)
                return om_onnx_wire_fail(r, &pc);
            if (*n < cap)
                out[(*n)++] = (int64_t)v;
        }
        return OPMAP_OK;
    }
    if ((rc = om_onnx_want(r, f, PB_VARINT, what)))
        return rc;
    if (*n < cap)
        out[(*n)++] = (int64_t)f->v;
    return OPMAP_OK;
}

/* ---- protobuf-c allocator on the model's budget (it does not pass sizes to free) ---- */

#define PBC_HDR 16

static void *pbc_alloc(void *data, size_t size)
{
    om_mem *m = data;
    size_t total;
    unsigned char *p;
    if (!om_add_ok(size, PBC_HDR, &total))
        return NULL;
    p = om_alloc(m, total);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof(size));
    return p + PBC_HDR;
}

static void pbc_free(void *data, void *ptr)
{
    unsigned char *p;
    size_t size;
    if (!ptr)
        return;
    p = (unsigned char *)ptr - PBC_HDR;
    memcpy(&size, p, sizeof(size));
    om_dealloc(data, p, size + PBC_HDR);
}

/* ---- strings ---- */

static int check_len(rd *r, const pb_field *f, const char *what)
{
    if (f->len > r->lim->max_string_bytes)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, f->tag_off,
                          "%s is %" PRIu64 " bytes, over max_string_bytes (%" PRIu32 ")", what,
                          f->len, r->lim->max_string_bytes);
    return OPMAP_OK;
}

int om_onnx_str(rd *r, const pb_field *f, const char *what, const char **out)
{
    int rc = om_onnx_want(r, f, PB_LEN, what);
    if (rc || (rc = check_len(r, f, what)))
        return rc;
    om_need(r->view, f->off, f->len);
    *out = om_arena_strndup(r->A, (const char *)r->base + f->off, (size_t)f->len);
    return *out ? OPMAP_OK : om_onnx_oom(r);
}

int om_onnx_istr(rd *r, const pb_field *f, const char *what, const char **out)
{
    int rc = om_onnx_want(r, f, PB_LEN, what);
    if (rc || (rc = check_len(r, f, what)))
        return rc;
    om_need(r->view, f->off, f->len);
    /* an identifier (op type, domain, overload, attribute or function name) holding a NUL
     * is one name to onnxruntime's std::string and another to every C string after it:
     * which function a call runs, which attribute a node has, would differ */
    if (memchr(r->base + f->off, '\0', (size_t)f->len))
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->tag_off,
                          "%s holds a NUL byte (an identifier every reader must read alike)",
                          what);
    *out = ir_intern(&r->in, (const char *)r->base + f->off, (size_t)f->len);
    return *out ? OPMAP_OK : om_onnx_oom(r);
}

const char *om_onnx_domain(rd *r, const char *d)
{
    if (!d || !d[0] || strcmp(d, "ai.onnx") == 0)
        return r->onnx_domain;
    return d;
}

/* ---- functions ---- */

/* FunctionProto.attribute_proto (IR 9): a default bound where the call does not pass the
 * attribute. A default that is itself a reference has no value to bind: refused. */
static int read_default(rd *r, const pb_field *f, ir_function *fn, size_t *xd)
{
    ir_attr *a = &fn->defaults[*xd];
    int rc;
    if ((rc = om_onnx_want(r, f, PB_LEN, "FunctionProto.attribute_proto")) ||
        (rc = om_onnx_attr(r, f->off, f->len, 1, a)))
        return rc;
    (*xd)++;
    if (a->ref_attr_name)
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off,
                          "FunctionProto.attribute_proto: the default of '%.200s' is a "
                          "reference (ref_attr_name '%.200s'), not a value", a->name,
                          a->ref_attr_name);
    return OPMAP_OK;
}

/* The fields of one FunctionProto, counted before (fields() of read_function). */
typedef struct fn_counts {
    uint64_t nin, nout, nattr, nnode, nops, ndef;
} fn_counts;

static int count_function(rd *r, uint64_t off, uint64_t len, fn_counts *n)
{
    pb_cur c = pb_span(r->base, r->view, off, len);
    pb_field f;
    int k;
    memset(n, 0, sizeof(*n));
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_FUNC_INPUT: n->nin++; break;
        case F_FUNC_OUTPUT: n->nout++; break;
        case F_FUNC_ATTRIBUTE: n->nattr++; break;
        case F_FUNC_NODE: n->nnode++; break;
        case F_FUNC_OPSET_IMPORT: n->nops++; break;
        case F_FUNC_ATTRIBUTE_PROTO: n->ndef++; break;
        default: break;
        }
    }
    return k < 0 ? om_onnx_wire_fail(r, &c) : OPMAP_OK;
}

static int read_function(rd *r, uint64_t off, uint64_t len, ir_function *fn)
{
    pb_cur c;
    pb_field f;
    int k, rc;
    fn_counts n;
    size_t xi = 0, xo = 0, xa = 0, xn = 0, xs = 0, xd = 0;
    ir_graph **slot;

    if ((rc = count_function(r, off, len, &n)))
        return rc;
    if ((n.nin && !(fn->body.inputs = om_arena_array(r->A, (size_t)n.nin, sizeof(ir_value)))) ||
        (n.nout && !(fn->body.outputs = om_arena_array(r->A, (size_t)n.nout, sizeof(ir_value)))) ||
        (n.nattr && !(fn->attr_names = om_arena_array(r->A, (size_t)n.nattr, sizeof(char *)))) ||
        (n.nnode && !(fn->body.nodes = om_arena_array(r->A, (size_t)n.nnode, sizeof(ir_node)))) ||
        (n.nops && !(fn->opsets = om_arena_array(r->A, (size_t)n.nops, sizeof(ir_opset)))) ||
        (n.ndef && !(fn->defaults = om_arena_array(r->A, (size_t)n.ndef, sizeof(ir_attr)))) ||
        !(slot = om_vec_push(&r->graphs, &r->m->mem)))
        return om_onnx_oom(r);
    *slot = &fn->body;

    c = pb_span(r->base, r->view, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_FUNC_NAME:
            rc = om_onnx_istr(r, &f, "FunctionProto.name", &fn->name);
            break;
        case F_FUNC_DOMAIN:
            rc = om_onnx_istr(r, &f, "FunctionProto.domain", &fn->domain);
            break;
        case F_FUNC_OVERLOAD:
            rc = om_onnx_istr(r, &f, "FunctionProto.overload", &fn->overload);
            break;
        case F_FUNC_INPUT:
            fn->body.inputs[xi].type.rank = -1;
            rc = om_onnx_str(r, &f, "FunctionProto.input", &fn->body.inputs[xi++].name);
            break;
        case F_FUNC_OUTPUT:
            fn->body.outputs[xo].type.rank = -1;
            rc = om_onnx_str(r, &f, "FunctionProto.output", &fn->body.outputs[xo++].name);
            break;
        case F_FUNC_ATTRIBUTE:
            rc = om_onnx_str(r, &f, "FunctionProto.attribute", &fn->attr_names[xa++]);
            break;
        case F_FUNC_ATTRIBUTE_PROTO:
            rc = read_default(r, &f, fn, &xd);
            break;
        case F_FUNC_NODE:
            if (!(rc = om_onnx_want(r, &f, PB_LEN, "FunctionProto.node")))
                rc = om_onnx_node(r, f.off, f.len, 1, &fn->body.nodes[xn++]);
            break;
        case F_FUNC_OPSET_IMPORT:
            rc = om_onnx_opset(r, &f, &fn->opsets[xs++]);
            break;
        default:
            rc = OPMAP_OK;
            break;
        }
        if (rc)
            return rc;
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    fn->body.n_inputs = xi;
    fn->body.n_outputs = xo;
    fn->n_attr_names = xa;
    fn->body.n_nodes = xn;
    fn->n_opsets = xs;
    fn->n_defaults = xd;
    if (!fn->name)
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, off, "function without a name");
    fn->domain = om_onnx_domain(r, fn->domain);
    if (!fn->overload)
        fn->overload = r->empty;
    fn->body.name = fn->name;
    return om_onnx_unique_attrs(r, fn->defaults, fn->n_defaults, off,
                                "FunctionProto.attribute_proto", "function", fn->name);
}

static size_t fn_slot(const char *domain, const char *name, const char *overload, size_t cap)
{
    return (((uintptr_t)name >> 4) ^ ((uintptr_t)domain >> 4) ^ ((uintptr_t)overload >> 3)) &
           (cap - 1);
}

/*
 * Points each node that calls a model-local function at it. A function is named by its
 * domain, name and overload (IR 10: NodeProto.overload picks among functions of one name);
 * names are interned, so a match is three pointer comparisons, through a small hash that
 * keeps hostile models with many functions linear. A function defined twice: the last
 * definition is the one called, as onnxruntime (Model::Model) and onnx's inliner keep it;
 * the earlier one is marked redefined (the scan says so).
 */
static int resolve_calls(rd *r)
{
    ir_model *m = r->m;
    size_t cap = 16, i, gi;
    ir_function **tab;
    if (!m->n_functions)
        return OPMAP_OK;
    while (cap < m->n_functions * 2)
        cap *= 2;
    tab = om_calloc(&m->mem, cap, sizeof(*tab));
    if (!tab)
        return om_onnx_oom(r);
    for (i = 0; i < m->n_functions; i++) {
        ir_function *fn = &m->functions[i];
        size_t j = fn_slot(fn->domain, fn->name, fn->overload, cap);
        while (tab[j] && !(tab[j]->name == fn->name && tab[j]->domain == fn->domain &&
                           tab[j]->overload == fn->overload))
            j = (j + 1) & (cap - 1);
        if (tab[j])
            tab[j]->redefined = 1; /* the later definition replaces it */
        tab[j] = fn;
    }
    for (gi = 0; gi < r->graphs.len; gi++) {
        ir_graph *g = OM_VEC_AT(&r->graphs, ir_graph *, gi);
        size_t ni;
        for (ni = 0; ni < g->n_nodes; ni++) {
            ir_node *n = &g->nodes[ni];
            size_t j = fn_slot(n->domain, n->op, n->overload, cap);
            while (tab[j]) {
                if (tab[j]->name == n->op && tab[j]->domain == n->domain &&
                    tab[j]->overload == n->overload) {
                    n->callee = tab[j];
                    break;
                }
                j = (j + 1) & (cap - 1);
            }
        }
    }
    om_dealloc(&m->mem, tab, cap * sizeof(*tab));
    return OPMAP_OK;
}

/* ---- model ---- */

static int read_training(rd *r, const pb_field *outer, size_t index, size_t *slot)
{
    pb_cur c = pb_span(r->base, r->view, outer->off, outer->len);
    pb_field f;
    int k, rc;
    while ((k = pb_next(&c, &f)) > 0) {
        if (f.num != F_TRAINING_INITIALIZATION && f.num != F_TRAINING_ALGORITHM)
            continue;
        if ((rc = om_onnx_want(r, &f, PB_LEN, "TrainingInfoProto graph")))
            return rc;
        if (!(r->m->extra_graphs[*slot] = om_onnx_graph(r, f.off, f.len, 0, &rc)))
            return rc;
        r->m->extra_labels[*slot] = om_arena_printf(
            r->A, "training%zu/%s", index,
            f.num == F_TRAINING_INITIALIZATION ? "initialization" : "algorithm");
        if (!r->m->extra_labels[*slot])
            return om_onnx_oom(r);
        (*slot)++;
    }
    return k < 0 ? om_onnx_wire_fail(r, &c) : OPMAP_OK;
}

static int read_model(rd *r)
{
    ir_model *m = r->m;
    pb_cur c = pb_span(r->base, r->view, 0, r->size);
    pb_field f;
    pb_seg *graph;
    int k, rc;
    uint64_t nops = 0, nfun = 0, ntrain_graphs = 0, ngraph = 0;
    size_t xs = 0, xf = 0, xt = 0, ti = 0, xg = 0;

    /* pass 1: counts, and the wire types of the fields that identify an ONNX model */
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_MODEL_IR_VERSION:
            if ((rc = om_onnx_want(r, &f, PB_VARINT, "ModelProto.ir_version")))
                return rc;
            break;
        case F_MODEL_GRAPH:
            if ((rc = om_onnx_want(r, &f, PB_LEN, "ModelProto.graph")))
                return rc;
            ngraph++; /* occurrences merge into one graph, as protobuf merges them */
            break;
        case F_MODEL_OPSET_IMPORT: nops++; break;
        case F_MODEL_FUNCTIONS: nfun++; break;
        case F_MODEL_TRAINING_INFO: {
            pb_cur tc;
            pb_field tf;
            int tk;
            if ((rc = om_onnx_want(r, &f, PB_LEN, "ModelProto.training_info")))
                return rc;
            tc = pb_span(r->base, r->view, f.off, f.len);
            while ((tk = pb_next(&tc, &tf)) > 0)
                if (tf.num == F_TRAINING_INITIALIZATION || tf.num == F_TRAINING_ALGORITHM)
                    ntrain_graphs++;
            if (tk < 0)
                return om_onnx_wire_fail(r, &tc);
            break;
        }
        default:
            break;
        }
    }
    if (k < 0) {
        if (c.err_off == 0)
            return om_fail_at(r->err, OPMAP_EFORMAT, r->src, 0,
                              "not an ONNX model (%s at the first byte)", c.err);
        return om_onnx_wire_fail(r, &c);
    }
    if (!ngraph)
        return om_fail(r->err, OPMAP_EFORMAT, r->src,
                       "not an ONNX model: no graph (ModelProto field 7)");
    if (!(graph = om_arena_array(r->A, (size_t)ngraph, sizeof(pb_seg))))
        return om_onnx_oom(r);
    if ((nops && !(m->opsets = om_arena_array(r->A, (size_t)nops, sizeof(ir_opset)))) ||
        (nfun && !(m->functions = om_arena_array(r->A, (size_t)nfun, sizeof(ir_function)))) ||
        (ntrain_graphs &&
         (!(m->extra_graphs = om_arena_array(r->A, (size_t)ntrain_graphs, sizeof(ir_graph *))) ||
          !(m->extra_labels = om_arena_array(r->A, (size_t)ntrain_graphs, sizeof(char *))))))
        return om_onnx_oom(r);

    /* pass 2 */
    c = pb_span(r->base, r->view, 0, r->size);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_MODEL_IR_VERSION: m->ir_version = (int64_t)f.v; break;
        case F_MODEL_GRAPH:
            graph[xg].off = f.off;
            graph[xg++].len = f.len;
            break;
        case F_MODEL_MODEL_VERSION:
            if ((rc = om_onnx_want(r, &f, PB_VARINT, "ModelProto.model_version")))
                return rc;
            m->model_version = (int64_t)f.v;
            break;
        case F_MODEL_PRODUCER_NAME:
            if ((rc = om_onnx_str(r, &f, "ModelProto.producer_name", &m->producer_name)))
                return rc;
            break;
        case F_MODEL_PRODUCER_VERSION:
            if ((rc = om_onnx_str(r, &f, "ModelProto.producer_version", &m->producer_version)))
                return rc;
            break;
        case F_MODEL_DOMAIN:
            if ((rc = om_onnx_str(r, &f, "ModelProto.domain", &m->domain)))
                return rc;
            break;
        case F_MODEL_OPSET_IMPORT:
            if ((rc = om_onnx_opset(r, &f, &m->opsets[xs++])))
                return rc;
            break;
        case F_MODEL_FUNCTIONS:
            if ((rc = om_onnx_want(r, &f, PB_LEN, "ModelProto.functions")) ||
                (rc = read_function(r, f.off, f.len, &m->functions[xf++])))
                return rc;
            m->stats.functions++;
            break;
        case F_MODEL_TRAINING_INFO:
            if ((rc = read_training(r, &f, ti++, &xt)))
                return rc;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    m->n_opsets = xs;
    m->n_functions = xf;
    m->n_extra = xt;
    if (!(m->main = om_onnx_graph_merged(r, graph, xg, 0, &rc)))
        return rc;
    if (r->external.len) {
        if (!(m->external = om_arena_array(r->A, r->external.len, sizeof(ir_tensor))))
            return om_onnx_oom(r);
        memcpy(m->external, r->external.data, r->external.len * sizeof(ir_tensor));
        m->n_external = r->external.len;
    }
    if (!m->main->name[0])
        m->main->name = "main";
    /* IR versions 1 and 2 predate opset_import: they imply ai.onnx opset 1. */
    if (!m->n_opsets && m->ir_version < 3) {
        if (!(m->opsets = om_arena_alloc(r->A, sizeof(ir_opset))))
            return om_onnx_oom(r);
        m->opsets[0].domain = r->onnx_domain;
        m->opsets[0].version = 1;
        m->n_opsets = 1;
    }
    return resolve_calls(r);
}

int om_onnx_read(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                 opmap_error *err)
{
    rd r;
    int rc;
    memset(&r, 0, sizeof(r));
    r.base = data;
    r.view = m->input;
    r.size = size;
    r.m = m;
    r.A = &m->arena;
    r.src = m->name;
    r.err = err;
    r.lim = lim;
    r.pba.alloc = pbc_alloc;
    r.pba.free = pbc_free;
    r.pba.allocator_data = &m->mem;
    om_vec_init(&r.graphs, sizeof(ir_graph *));
    om_vec_init(&r.external, sizeof(ir_tensor));
    ir_intern_init(&r.in, &m->mem, &m->arena);
    m->format = OPMAP_FORMAT_ONNX;
    m->producer_name = m->producer_version = m->domain = "";
    if (!(r.onnx_domain = ir_intern(&r.in, "ai.onnx", 7)) || !(r.empty = ir_intern(&r.in, "", 0)))
        rc = om_onnx_oom(&r);
    else
        rc = read_model(&r);
    om_vec_free(&r.graphs, &m->mem);
    om_vec_free(&r.external, &m->mem);
    ir_intern_free(&r.in);
    return rc;
}
