/*
 * readers/onnx/onnx_graph.c - graphs, nodes and attributes: the recursive part of ONNX,
 * bounded by limits.max_depth. Each repeated field is counted first so arrays are
 * allocated once at their exact size.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* ---- graphs, nodes, attributes (mutually recursive, depth-bounded) ---- */

/* What pass 1 counts of an attribute, and what pass 2 has filled. */
typedef struct attr_fill {
    uint64_t nf, ni, ns, nt, ng;          /* elements of each list (t and g count as one) */
    size_t fi, si, ti, gi;                /* filled so far */
    uint64_t ii;
    int declared, has_f, has_i, has_s, has_tp, has_tps;
} attr_fill;

/* Pass 1: counts the list elements, tensors and graphs so arrays are allocated once. */
static int count_attr(rd *r, uint64_t off, uint64_t len, attr_fill *n, ir_attr *a)
{
    pb_cur c = pb_span(r->base, r->view, off, len);
    pb_field f;
    int k;
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_ATTR_FLOATS:
            n->nf += f.wt == PB_LEN ? f.len / 4 : 1;
            break;
        case F_ATTR_INTS:
            n->ni += f.wt == PB_LEN ? pb_count_varints(r->base, r->view, f.off, f.len) : 1;
            break;
        case F_ATTR_STRINGS: n->ns++; break;
        case F_ATTR_T: case F_ATTR_TENSORS:
        case F_ATTR_SPARSE_TENSOR: case F_ATTR_SPARSE_TENSORS: n->nt++; break;
        case F_ATTR_G: case F_ATTR_GRAPHS: n->ng++; break;
        default: break;
        }
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    if ((n->nf && !(a->floats = om_arena_array(r->A, (size_t)n->nf, sizeof(double)))) ||
        (n->ni && !(a->ints = om_arena_array(r->A, (size_t)n->ni, sizeof(int64_t)))) ||
        (n->ns && !(a->strings = om_arena_array(r->A, (size_t)n->ns, sizeof(ir_bytes)))) ||
        (n->nt && !(a->tensors = om_arena_array(r->A, (size_t)n->nt, sizeof(ir_tensor)))) ||
        (n->ng && !(a->graphs = om_arena_array(r->A, (size_t)n->ng, sizeof(ir_graph *)))))
        return om_onnx_oom(r);
    return OPMAP_OK;
}

/* A string field, kept only up to the string limit (big blobs, e.g. serialized engines). */
static int attr_bytes(rd *r, const pb_field *f, const char *what, ir_bytes *out)
{
    uint64_t keep = f->len < r->lim->max_string_bytes ? f->len : r->lim->max_string_bytes;
    int rc;
    if ((rc = om_onnx_want(r, f, PB_LEN, what)))
        return rc;
    out->size = (size_t)f->len;
    om_need(r->view, f->off, keep);
    if (!(out->data = om_arena_strndup(r->A, (const char *)r->base + f->off, (size_t)keep)))
        return om_onnx_oom(r);
    return OPMAP_OK;
}

/* `floats`: packed or one fixed32 at a time. */
static int attr_floats(rd *r, const pb_field *f, attr_fill *n, ir_attr *a)
{
    if (f->wt == PB_LEN) {
        uint64_t j;
        om_need(r->view, f->off, f->len);
        for (j = 0; j + 4 <= f->len && n->fi < n->nf; j += 4) {
            float fv;
            memcpy(&fv, r->base + f->off + j, 4);
            a->floats[n->fi++] = fv;
        }
    } else if (f->wt == PB_FIXED32 && n->fi < n->nf) {
        float fv;
        uint32_t bits = (uint32_t)f->v;
        memcpy(&fv, &bits, sizeof(fv));
        a->floats[n->fi++] = fv;
    } else {
        return om_onnx_want(r, f, PB_FIXED32, "AttributeProto.floats");
    }
    return OPMAP_OK;
}

/* The scalar fields: name, ref_attr_name, type, f, i, s. 1 when f is none of them. */
static int attr_scalar(rd *r, const pb_field *f, attr_fill *n, ir_attr *a, int *rc)
{
    switch (f->num) {
    case F_ATTR_NAME:
        *rc = om_onnx_istr(r, f, "AttributeProto.name", &a->name);
        return 0;
    case F_ATTR_REF_ATTR_NAME:
        /* an attribute name, held to what names are (no NUL byte); an empty one is no
         * reference, as onnxruntime and onnx's inliner test ref_attr_name().empty() */
        *rc = om_onnx_istr(r, f, "AttributeProto.ref_attr_name", &a->ref_attr_name);
        if (!*rc && !a->ref_attr_name[0])
            a->ref_attr_name = NULL;
        return 0;
    case F_ATTR_TYPE:
        if ((*rc = om_onnx_want(r, f, PB_VARINT, "AttributeProto.type")) == OPMAP_OK) {
            a->type = (int)f->v;
            n->declared = 1;
        }
        return 0;
    case F_ATTR_F:
        if ((*rc = om_onnx_want(r, f, PB_FIXED32, "AttributeProto.f")) == OPMAP_OK) {
            float fv;
            uint32_t bits = (uint32_t)f->v;
            memcpy(&fv, &bits, sizeof(fv));
            a->f = fv;
            n->has_f = 1;
        }
        return 0;
    case F_ATTR_I:
        if ((*rc = om_onnx_want(r, f, PB_VARINT, "AttributeProto.i")) == OPMAP_OK) {
            a->i = (int64_t)f->v;
            n->has_i = 1;
        }
        return 0;
    case F_ATTR_S:
        if ((*rc = attr_bytes(r, f, "AttributeProto.s", &a->s)) == OPMAP_OK)
            n->has_s = 1;
        return 0;
    default:
        *rc = OPMAP_OK;
        return 1;
    }
}

/* Old files omit `type`: infer it from the one field that is set. */
static void infer_attr_type(const attr_fill *n, ir_attr *a)
{
    if (n->gi) a->type = n->gi > 1 ? IR_ATTR_GRAPHS : IR_ATTR_GRAPH;
    else if (n->ti) a->type = n->ti > 1 ? IR_ATTR_TENSORS : IR_ATTR_TENSOR;
    else if (n->has_s) a->type = IR_ATTR_STRING;
    else if (n->has_i) a->type = IR_ATTR_INT;
    else if (n->has_f) a->type = IR_ATTR_FLOAT;
    else if (n->ii) a->type = IR_ATTR_INTS;
    else if (n->fi) a->type = IR_ATTR_FLOATS;
    else if (n->si) a->type = IR_ATTR_STRINGS;
    else if (n->has_tp) a->type = IR_ATTR_TYPE_PROTO;
    else if (n->has_tps) a->type = IR_ATTR_TYPE_PROTOS;
}

int om_onnx_attr(rd *r, uint64_t off, uint64_t len, uint32_t depth, ir_attr *a)
{
    pb_cur c;
    pb_field f;
    attr_fill n;
    int k, rc;

    memset(&n, 0, sizeof(n));
    if ((rc = count_attr(r, off, len, &n, a)))
        return rc;
    /* pass 2 */
    a->name = r->empty;
    /* a STRING attribute may declare its type and omit `s`: consumers read s.data as a
     * string, so it is never NULL */
    a->s.data = "";
    c = pb_span(r->base, r->view, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        if (!attr_scalar(r, &f, &n, a, &rc)) {
            if (rc)
                return rc;
            continue;
        }
        switch (f.num) {
        case F_ATTR_FLOATS:
            rc = attr_floats(r, &f, &n, a);
            break;
        case F_ATTR_INTS:
            rc = om_onnx_ints(r, &f, "AttributeProto.ints", a->ints, &n.ii, n.ni);
            break;
        case F_ATTR_STRINGS:
            rc = attr_bytes(r, &f, "AttributeProto.strings", &a->strings[n.si]);
            n.si += rc == OPMAP_OK;
            break;
        case F_ATTR_T:
        case F_ATTR_TENSORS:
            if (!(rc = om_onnx_want(r, &f, PB_LEN, "AttributeProto tensor")))
                rc = om_onnx_tensor(r, f.off, f.len, &a->tensors[n.ti++]);
            break;
        case F_ATTR_SPARSE_TENSOR:
        case F_ATTR_SPARSE_TENSORS:
            if (!(rc = om_onnx_want(r, &f, PB_LEN, "AttributeProto sparse tensor")))
                rc = om_onnx_sparse(r, f.off, f.len, &a->tensors[n.ti++]);
            break;
        case F_ATTR_G:
        case F_ATTR_GRAPHS:
            if (!(rc = om_onnx_want(r, &f, PB_LEN, "AttributeProto graph")) &&
                !(a->graphs[n.gi++] = om_onnx_graph(r, f.off, f.len, depth + 1, &rc)))
                return rc;
            break;
        case F_ATTR_TP: n.has_tp = 1; break;
        case F_ATTR_TYPE_PROTOS: n.has_tps = 1; break;
        default: break;
        }
        if (rc)
            return rc;
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    a->n_floats = n.fi;
    a->n_ints = n.ii;
    a->n_strings = n.si;
    a->n_tensors = n.ti;
    a->n_graphs = n.gi;
    if (!n.declared)
        infer_attr_type(&n, a);
    return OPMAP_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Two attributes of one name: onnx's checker refuses the node; onnxruntime and ATC keep the
 * last, onnx's inliner binds the last of a call's: readers differ, so opmap refuses it.
 * Names are compared as the later stages look them up, as C strings, so "mode" and
 * "mode\0x" are one name too. Sorted, a repeat is a neighbour: n log n comparisons however
 * many attributes a node has. */
int om_onnx_unique_attrs(rd *r, const ir_attr *attrs, size_t n, uint64_t off, const char *field,
                         const char *owner, const char *owner_name)
{
    const char *small[16], **names = small;
    size_t i;
    int rc = OPMAP_OK;
    if (n < 2)
        return OPMAP_OK;
    if (n > sizeof(small) / sizeof(small[0]) &&
        !(names = om_alloc(&r->m->mem, n * sizeof(*names))))
        return om_onnx_oom(r);
    for (i = 0; i < n; i++)
        names[i] = attrs[i].name;
    qsort(names, n, sizeof(*names), by_name);
    for (i = 1; i < n; i++)
        if (strcmp(names[i], names[i - 1]) == 0) {
            rc = om_fail_at(r->err, OPMAP_EFORMAT, r->src, off,
                            "%s: attribute '%.200s' is given twice in %s '%.200s': not read "
                            "(onnx's checker refuses such a node; onnxruntime takes the last)",
                            field, names[i], owner, owner_name);
            break;
        }
    if (names != small)
        om_dealloc(&r->m->mem, names, n * sizeof(*names));
    return rc;
}

int om_onnx_node(rd *r, uint64_t off, uint64_t len, uint32_t depth, ir_node *n)
{
    pb_cur c = pb_span(r->base, r->view, off, len);
    pb_field f;
    int k, rc;
    uint64_t nin = 0, nout = 0, nattr = 0;
    uint32_t ii = 0, oi = 0, ai = 0;

    if (++r->m->stats.nodes > r->lim->max_nodes)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off,
                          "more than max_nodes (%" PRIu64 ") nodes", r->lim->max_nodes);
    n->offset = off;
    while ((k = pb_next(&c, &f)) > 0) {
        if (f.num == F_NODE_INPUT) nin++;
        else if (f.num == F_NODE_OUTPUT) nout++;
        else if (f.num == F_NODE_ATTRIBUTE) nattr++;
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    if (nin > UINT32_MAX || nout > UINT32_MAX || nattr > UINT32_MAX)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off, "node with too many fields");
    if ((nin && !(n->inputs = om_arena_array(r->A, (size_t)nin, sizeof(char *)))) ||
        (nout && !(n->outputs = om_arena_array(r->A, (size_t)nout, sizeof(char *)))) ||
        (nattr && !(n->attrs = om_arena_array(r->A, (size_t)nattr, sizeof(ir_attr)))))
        return om_onnx_oom(r);

    n->name = "";
    c = pb_span(r->base, r->view, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_NODE_INPUT:
            if ((rc = om_onnx_str(r, &f, "NodeProto.input", &n->inputs[ii++])))
                return rc;
            break;
        case F_NODE_OUTPUT:
            if ((rc = om_onnx_str(r, &f, "NodeProto.output", &n->outputs[oi++])))
                return rc;
            break;
        case F_NODE_NAME:
            if ((rc = om_onnx_str(r, &f, "NodeProto.name", &n->name)))
                return rc;
            break;
        case F_NODE_OP_TYPE:
            if ((rc = om_onnx_istr(r, &f, "NodeProto.op_type", &n->op)))
                return rc;
            break;
        case F_NODE_DOMAIN:
            if ((rc = om_onnx_istr(r, &f, "NodeProto.domain", &n->domain)))
                return rc;
            break;
        case F_NODE_OVERLOAD:
            if ((rc = om_onnx_istr(r, &f, "NodeProto.overload", &n->overload)))
                return rc;
            break;
        case F_NODE_ATTRIBUTE:
            if ((rc = om_onnx_want(r, &f, PB_LEN, "NodeProto.attribute")))
                return rc;
            if ((rc = om_onnx_attr(r, f.off, f.len, depth, &n->attrs[ai++])))
                return rc;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    n->n_inputs = ii;
    n->n_outputs = oi;
    n->n_attrs = ai;
    if (!n->op || !n->op[0])
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, off, "node '%s' has no op_type",
                          n->name);
    n->domain = om_onnx_domain(r, n->domain);
    if (!n->overload)
        n->overload = r->empty;
    return om_onnx_unique_attrs(r, n->attrs, n->n_attrs, off, "NodeProto.attribute", "node",
                                n->name);
}

ir_graph *om_onnx_graph(rd *r, uint64_t off, uint64_t len, uint32_t depth, int *rc)
{
    pb_seg one;
    one.off = off;
    one.len = len;
    return om_onnx_graph_merged(r, &one, 1, depth, rc);
}

ir_graph *om_onnx_graph_merged(rd *r, const pb_seg *segs, size_t n_segs, uint32_t depth, int *rc)
{
    pb_mcur c = pb_multi(r->base, r->view, segs, n_segs);
    uint64_t off = n_segs ? segs[0].off : 0;
    pb_field f;
    int k;
    uint64_t nn = 0, ni = 0, no = 0, nv = 0, nt = 0;
    size_t xn = 0, xi = 0, xo = 0, xv = 0, xt = 0;
    ir_graph *g, **slot;

    if (depth > r->lim->max_depth) {
        *rc = om_fail_at(r->err, OPMAP_ELIMIT, r->src, off,
                         "subgraphs nested deeper than max_depth (%" PRIu32 ")",
                         r->lim->max_depth);
        return NULL;
    }
    while ((k = pb_mnext(&c, &f)) > 0) {
        switch (f.num) {
        case F_GRAPH_NODE: nn++; break;
        case F_GRAPH_INPUT: ni++; break;
        case F_GRAPH_OUTPUT: no++; break;
        case F_GRAPH_VALUE_INFO: nv++; break;
        case F_GRAPH_INITIALIZER: case F_GRAPH_SPARSE_INITIALIZER: nt++; break;
        default: break;
        }
    }
    if (k < 0) {
        *rc = om_onnx_wire_fail(r, &c.c);
        return NULL;
    }
    g = om_arena_alloc(r->A, sizeof(*g));
    if (!g || (nn && !(g->nodes = om_arena_array(r->A, (size_t)nn, sizeof(ir_node)))) ||
        (ni && !(g->inputs = om_arena_array(r->A, (size_t)ni, sizeof(ir_value)))) ||
        (no && !(g->outputs = om_arena_array(r->A, (size_t)no, sizeof(ir_value)))) ||
        (nv && !(g->value_info = om_arena_array(r->A, (size_t)nv, sizeof(ir_value)))) ||
        (nt && !(g->inits = om_arena_array(r->A, (size_t)nt, sizeof(ir_tensor)))) ||
        !(slot = om_vec_push(&r->graphs, &r->m->mem))) {
        *rc = om_onnx_oom(r);
        return NULL;
    }
    *slot = g;
    g->name = "";
    r->m->stats.graphs++;

    c = pb_multi(r->base, r->view, segs, n_segs);
    while ((k = pb_mnext(&c, &f)) > 0) {
        switch (f.num) {
        case F_GRAPH_NODE:
            if ((*rc = om_onnx_want(r, &f, PB_LEN, "GraphProto.node")) ||
                (*rc = om_onnx_node(r, f.off, f.len, depth, &g->nodes[xn++])))
                return NULL;
            break;
        case F_GRAPH_NAME:
            if ((*rc = om_onnx_str(r, &f, "GraphProto.name", &g->name)))
                return NULL;
            break;
        case F_GRAPH_INPUT:
            if ((*rc = om_onnx_value_info(r, &f, &g->inputs[xi++])))
                return NULL;
            break;
        case F_GRAPH_OUTPUT:
            if ((*rc = om_onnx_value_info(r, &f, &g->outputs[xo++])))
                return NULL;
            break;
        case F_GRAPH_VALUE_INFO:
            if ((*rc = om_onnx_value_info(r, &f, &g->value_info[xv++])))
                return NULL;
            break;
        case F_GRAPH_INITIALIZER:
            if ((*rc = om_onnx_want(r, &f, PB_LEN, "GraphProto.initializer")) ||
                (*rc = om_onnx_tensor(r, f.off, f.len, &g->inits[xt++])))
                return NULL;
            r->m->stats.initializers++;
            break;
        case F_GRAPH_SPARSE_INITIALIZER:
            if ((*rc = om_onnx_want(r, &f, PB_LEN, "GraphProto.sparse_initializer")) ||
                (*rc = om_onnx_sparse(r, f.off, f.len, &g->inits[xt++])))
                return NULL;
            g->n_sparse_inits++;
            r->m->stats.initializers++;
            break;
        default:
            break;
        }
    }
    if (k < 0) {
        *rc = om_onnx_wire_fail(r, &c.c);
        return NULL;
    }
    g->n_nodes = xn;
    g->n_inputs = xi;
    g->n_outputs = xo;
    g->n_value_info = xv;
    g->n_inits = xt;
    *rc = OPMAP_OK;
    return g;
}
