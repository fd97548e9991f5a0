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

#include "onnx/onnx.pb-c.h"

#include "../../core/err.h"
#include "onnx_fields.h"
#include "pbwire.h"

typedef struct rd {
    const unsigned char *base;
    uint64_t size;
    ir_model *m;
    om_arena *A;
    ir_interner in;
    ProtobufCAllocator pba;
    const char *src;
    opmap_error *err;
    const opmap_limits *lim;
    om_vec graphs;       /* ir_graph*: every graph read, for call resolution */
    om_vec external;     /* ir_tensor copies of external-data tensors */
    const char *onnx_domain; /* interned "ai.onnx" */
} rd;

/* ---- errors ---- */

static int wire_fail(rd *r, const pb_cur *c)
{
    return om_fail_at(r->err, OPMAP_EFORMAT, r->src, c->err_off, "malformed protobuf: %s",
                      c->err ? c->err : "unknown problem");
}

static int oom(rd *r)
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

static int want(rd *r, const pb_field *f, int wt, const char *what)
{
    if (f->wt == wt)
        return OPMAP_OK;
    return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->tag_off,
                      "%s (field %" PRIu32 ") is %s, expected %s: not an ONNX model?", what,
                      f->num, wt_name(f->wt), wt_name(wt));
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

static int get_str(rd *r, const pb_field *f, const char *what, const char **out)
{
    int rc = want(r, f, PB_LEN, what);
    if (rc || (rc = check_len(r, f, what)))
        return rc;
    *out = om_arena_strndup(r->A, (const char *)r->base + f->off, (size_t)f->len);
    return *out ? OPMAP_OK : oom(r);
}

static int get_istr(rd *r, const pb_field *f, const char *what, const char **out)
{
    int rc = want(r, f, PB_LEN, what);
    if (rc || (rc = check_len(r, f, what)))
        return rc;
    *out = ir_intern(&r->in, (const char *)r->base + f->off, (size_t)f->len);
    return *out ? OPMAP_OK : oom(r);
}

static const char *canon_domain(rd *r, const char *d)
{
    if (!d || !d[0] || strcmp(d, "ai.onnx") == 0)
        return r->onnx_domain;
    return d;
}

/* ---- small messages through protobuf-c ---- */

static int read_opset(rd *r, const pb_field *f, ir_opset *out)
{
    Onnx__OperatorSetIdProto *msg;
    int rc = want(r, f, PB_LEN, "opset_import");
    if (rc)
        return rc;
    msg = onnx__operator_set_id_proto__unpack(&r->pba, (size_t)f->len, r->base + f->off);
    if (!msg) {
        if (r->m->mem.over_limit)
            return oom(r);
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off, "malformed OperatorSetIdProto");
    }
    out->domain = ir_intern(&r->in, msg->domain ? msg->domain : "",
                            msg->domain ? strlen(msg->domain) : 0);
    out->version = msg->has_version ? msg->version : 0;
    onnx__operator_set_id_proto__free_unpacked(msg, &r->pba);
    if (!out->domain)
        return oom(r);
    out->domain = canon_domain(r, out->domain);
    return OPMAP_OK;
}

/* Parses a decimal external_data number strictly. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

static int read_external_entry(rd *r, const pb_field *f, ir_tensor *t)
{
    Onnx__StringStringEntryProto *kv;
    int rc = OPMAP_OK;
    if ((rc = want(r, f, PB_LEN, "TensorProto.external_data")))
        return rc;
    kv = onnx__string_string_entry_proto__unpack(&r->pba, (size_t)f->len, r->base + f->off);
    if (!kv) {
        if (r->m->mem.over_limit)
            return oom(r);
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off,
                          "malformed external_data entry");
    }
    if (kv->key && strcmp(kv->key, "location") == 0) {
        t->ext_location = om_arena_strdup(r->A, kv->value ? kv->value : "");
        if (!t->ext_location)
            rc = oom(r);
    } else if (kv->key && strcmp(kv->key, "offset") == 0) {
        if (!parse_u64(kv->value, &t->ext_offset))
            rc = om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off,
                            "external_data offset '%s' is not a number",
                            kv->value ? kv->value : "");
        t->has_ext_offset = 1;
    } else if (kv->key && strcmp(kv->key, "length") == 0) {
        if (!parse_u64(kv->value, &t->ext_length))
            rc = om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off,
                            "external_data length '%s' is not a number",
                            kv->value ? kv->value : "");
        t->has_ext_length = 1;
    }
    onnx__string_string_entry_proto__free_unpacked(kv, &r->pba);
    return rc;
}

static int fill_shape(rd *r, const Onnx__TensorShapeProto *shape, ir_type *t)
{
    size_t i;
    if (!shape) {
        t->rank = -1;
        return OPMAP_OK;
    }
    if (shape->n_dim > INT32_MAX)
        return om_fail(r->err, OPMAP_ELIMIT, r->src, "tensor shape with too many dimensions");
    t->rank = (int32_t)shape->n_dim;
    t->dims = om_arena_array(r->A, shape->n_dim ? shape->n_dim : 1, sizeof(ir_dim));
    if (!t->dims)
        return oom(r);
    for (i = 0; i < shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
        t->dims[i].value = -1;
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            t->dims[i].value = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) {
            t->dims[i].param = om_arena_strdup(r->A, d->dim_param ? d->dim_param : "");
            if (!t->dims[i].param)
                return oom(r);
        }
    }
    return OPMAP_OK;
}

static int read_tensor_type(rd *r, const pb_field *f, int sparse, ir_type *t)
{
    int rc;
    if ((rc = want(r, f, PB_LEN, "TypeProto.tensor_type")))
        return rc;
    t->kind = sparse ? IR_TYPE_SPARSE_TENSOR : IR_TYPE_TENSOR;
    if (sparse) {
        Onnx__TypeProto__SparseTensor *msg = (Onnx__TypeProto__SparseTensor *)
            protobuf_c_message_unpack(&onnx__type_proto__sparse_tensor__descriptor, &r->pba,
                                      (size_t)f->len, r->base + f->off);
        if (!msg)
            goto bad;
        t->elem = msg->has_elem_type ? msg->elem_type : 0;
        rc = fill_shape(r, msg->shape, t);
        protobuf_c_message_free_unpacked(&msg->base, &r->pba);
    } else {
        Onnx__TypeProto__Tensor *msg = (Onnx__TypeProto__Tensor *)
            protobuf_c_message_unpack(&onnx__type_proto__tensor__descriptor, &r->pba,
                                      (size_t)f->len, r->base + f->off);
        if (!msg)
            goto bad;
        t->elem = msg->has_elem_type ? msg->elem_type : 0;
        rc = fill_shape(r, msg->shape, t);
        protobuf_c_message_free_unpacked(&msg->base, &r->pba);
    }
    return rc;
bad:
    if (r->m->mem.over_limit)
        return oom(r);
    return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off, "malformed TypeProto.Tensor");
}

/*
 * TypeProto is a chain (sequence of optional of map of ... tensor): followed iteratively,
 * at most max_depth links.
 */
static int read_type(rd *r, uint64_t off, uint64_t len, ir_type *t)
{
    uint32_t depth;
    t->kind = IR_TYPE_NONE;
    t->rank = -1;
    for (depth = 0; depth <= r->lim->max_depth; depth++) {
        pb_cur c = pb_span(r->base, off, len);
        pb_field f, next;
        int k, kind = IR_TYPE_NONE, got = 0;
        while ((k = pb_next(&c, &f)) > 0) {
            switch (f.num) {
            case F_TYPE_TENSOR:
            case F_TYPE_SPARSE_TENSOR:
            case F_TYPE_SEQUENCE:
            case F_TYPE_MAP:
            case F_TYPE_OPTIONAL:
            case F_TYPE_OPAQUE:
                next = f; /* a oneof: the last one present wins */
                got = 1;
                break;
            default:
                break;
            }
        }
        if (k < 0)
            return wire_fail(r, &c);
        if (!got)
            return OPMAP_OK;
        switch (next.num) {
        case F_TYPE_TENSOR:
            return read_tensor_type(r, &next, 0, t);
        case F_TYPE_SPARSE_TENSOR:
            return read_tensor_type(r, &next, 1, t);
        case F_TYPE_OPAQUE:
            t->kind = IR_TYPE_OPAQUE;
            return OPMAP_OK;
        case F_TYPE_SEQUENCE: kind = IR_TYPE_SEQUENCE; break;
        case F_TYPE_MAP: kind = IR_TYPE_MAP; break;
        default: kind = IR_TYPE_OPTIONAL; break;
        }
        if ((k = want(r, &next, PB_LEN, "TypeProto container")))
            return k;
        if (!t->outer)
            t->outer = (uint8_t)kind;
        t->kind = (uint8_t)kind;
        {
            /* descend into the element (value for maps) */
            uint32_t elem_field = kind == IR_TYPE_MAP ? F_TYPE_MAP_VALUE : F_TYPE_SEQUENCE_ELEM;
            pb_cur cc = pb_span(r->base, next.off, next.len);
            pb_field ef;
            int found = 0;
            while ((k = pb_next(&cc, &ef)) > 0)
                if (ef.num == elem_field && ef.wt == PB_LEN) {
                    off = ef.off;
                    len = ef.len;
                    found = 1;
                }
            if (k < 0)
                return wire_fail(r, &cc);
            if (!found)
                return OPMAP_OK;
        }
    }
    return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off,
                      "type nested deeper than max_depth (%" PRIu32 ")", r->lim->max_depth);
}

/* ---- tensors ---- */

static int read_tensor(rd *r, uint64_t off, uint64_t len, ir_tensor *t)
{
    pb_cur c = pb_span(r->base, off, len);
    pb_field f;
    int k, rc;
    uint64_t ndims = 0, di = 0;

    while ((k = pb_next(&c, &f)) > 0)
        if (f.num == F_TENSOR_DIMS)
            ndims += f.wt == PB_LEN ? pb_count_varints(r->base, f.off, f.len) : 1;
    if (k < 0)
        return wire_fail(r, &c);
    if (ndims > UINT32_MAX)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off, "tensor with too many dimensions");
    t->ndims = (uint32_t)ndims;
    if (ndims && !(t->dims = om_arena_array(r->A, (size_t)ndims, sizeof(int64_t))))
        return oom(r);

    c = pb_span(r->base, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_TENSOR_DIMS:
            if (f.wt == PB_LEN) {
                pb_cur pc = pb_span(r->base, f.off, f.len);
                uint64_t v;
                while (pc.pos < pc.end && di < ndims) {
                    if (pb_varint(&pc, &v) < 0)
                        return wire_fail(r, &pc);
                    t->dims[di++] = (int64_t)v;
                }
            } else if ((rc = want(r, &f, PB_VARINT, "TensorProto.dims"))) {
                return rc;
            } else if (di < ndims) {
                t->dims[di++] = (int64_t)f.v;
            }
            break;
        case F_TENSOR_DATA_TYPE:
            if ((rc = want(r, &f, PB_VARINT, "TensorProto.data_type")))
                return rc;
            t->dtype = (int32_t)f.v;
            break;
        case F_TENSOR_NAME:
            if ((rc = get_str(r, &f, "TensorProto.name", &t->name)))
                return rc;
            break;
        case F_TENSOR_RAW_DATA:
            t->payload_offset = f.off;
            t->payload_bytes += f.wt == PB_LEN ? f.len : 0;
            break;
        case F_TENSOR_FLOAT_DATA:
        case F_TENSOR_INT32_DATA:
        case F_TENSOR_STRING_DATA:
        case F_TENSOR_INT64_DATA:
        case F_TENSOR_DOUBLE_DATA:
        case F_TENSOR_UINT64_DATA:
            if (!t->payload_bytes)
                t->payload_offset = f.off ? f.off : f.tag_off;
            t->payload_bytes += f.wt == PB_LEN ? f.len
                              : f.wt == PB_FIXED32 ? 4 : 8;
            break;
        case F_TENSOR_EXTERNAL_DATA:
            if ((rc = read_external_entry(r, &f, t)))
                return rc;
            break;
        case F_TENSOR_DATA_LOCATION:
            if ((rc = want(r, &f, PB_VARINT, "TensorProto.data_location")))
                return rc;
            t->external = f.v == ONNX_DATA_LOCATION_EXTERNAL;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return wire_fail(r, &c);
    if (!t->name)
        t->name = "";
    if (t->external) {
        ir_tensor *copy = om_vec_push(&r->external, &r->m->mem);
        if (!copy)
            return oom(r);
        *copy = *t;
        r->m->stats.external_tensors++;
        r->m->stats.weight_bytes += t->ext_length;
    } else {
        r->m->stats.weight_bytes += t->payload_bytes;
    }
    return OPMAP_OK;
}

static int read_sparse(rd *r, uint64_t off, uint64_t len, ir_tensor *t)
{
    pb_cur c = pb_span(r->base, off, len);
    pb_field f;
    ir_tensor part;
    int k, rc;
    uint64_t ndims = 0, di = 0;

    while ((k = pb_next(&c, &f)) > 0)
        if (f.num == F_SPARSE_DIMS)
            ndims += f.wt == PB_LEN ? pb_count_varints(r->base, f.off, f.len) : 1;
    if (k < 0)
        return wire_fail(r, &c);
    if (ndims > UINT32_MAX)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off, "tensor with too many dimensions");
    t->ndims = (uint32_t)ndims;
    if (ndims && !(t->dims = om_arena_array(r->A, (size_t)ndims, sizeof(int64_t))))
        return oom(r);
    t->name = "";

    c = pb_span(r->base, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_SPARSE_VALUES:
        case F_SPARSE_INDICES:
            if ((rc = want(r, &f, PB_LEN, "SparseTensorProto values/indices")))
                return rc;
            memset(&part, 0, sizeof(part));
            if ((rc = read_tensor(r, f.off, f.len, &part)))
                return rc;
            if (f.num == F_SPARSE_VALUES) {
                t->name = part.name;
                t->dtype = part.dtype;
            }
            t->payload_bytes += part.payload_bytes;
            if (part.external && !t->external) {
                t->external = 1;
                t->ext_location = part.ext_location;
                t->ext_offset = part.ext_offset;
                t->ext_length = part.ext_length;
            }
            break;
        case F_SPARSE_DIMS:
            if (f.wt == PB_LEN) {
                pb_cur pc = pb_span(r->base, f.off, f.len);
                uint64_t v;
                while (pc.pos < pc.end && di < ndims) {
                    if (pb_varint(&pc, &v) < 0)
                        return wire_fail(r, &pc);
                    t->dims[di++] = (int64_t)v;
                }
            } else if ((rc = want(r, &f, PB_VARINT, "SparseTensorProto.dims"))) {
                return rc;
            } else if (di < ndims) {
                t->dims[di++] = (int64_t)f.v;
            }
            break;
        default:
            break;
        }
    }
    return k < 0 ? wire_fail(r, &c) : OPMAP_OK;
}

/* ---- value info ---- */

static int read_value_info(rd *r, const pb_field *outer, ir_value *v)
{
    pb_cur c;
    pb_field f;
    int k, rc;
    if ((rc = want(r, outer, PB_LEN, "ValueInfoProto")))
        return rc;
    c = pb_span(r->base, outer->off, outer->len);
    v->name = "";
    v->type.rank = -1;
    while ((k = pb_next(&c, &f)) > 0) {
        if (f.num == F_VI_NAME) {
            if ((rc = get_str(r, &f, "ValueInfoProto.name", &v->name)))
                return rc;
        } else if (f.num == F_VI_TYPE) {
            if ((rc = want(r, &f, PB_LEN, "ValueInfoProto.type")))
                return rc;
            memset(&v->type, 0, sizeof(v->type));
            if ((rc = read_type(r, f.off, f.len, &v->type)))
                return rc;
        }
    }
    return k < 0 ? wire_fail(r, &c) : OPMAP_OK;
}

/* ---- graphs, nodes, attributes (mutually recursive, depth-bounded) ---- */

static ir_graph *read_graph(rd *r, uint64_t off, uint64_t len, uint32_t depth, int *rc);

static int read_attr(rd *r, uint64_t off, uint64_t len, uint32_t depth, ir_attr *a)
{
    pb_cur c = pb_span(r->base, off, len);
    pb_field f;
    int k, rc, declared = 0;
    uint64_t nf = 0, ni = 0, ns = 0, nt = 0, ng = 0;
    int has_f = 0, has_i = 0, has_s = 0, has_tp = 0, has_tps = 0;
    size_t fi = 0, ii = 0, si = 0, ti = 0, gi = 0;

    /* pass 1: count list elements and tensors/graphs (t and g count as one) */
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_ATTR_FLOATS:
            nf += f.wt == PB_LEN ? f.len / 4 : 1;
            break;
        case F_ATTR_INTS:
            ni += f.wt == PB_LEN ? pb_count_varints(r->base, f.off, f.len) : 1;
            break;
        case F_ATTR_STRINGS: ns++; break;
        case F_ATTR_T: case F_ATTR_TENSORS:
        case F_ATTR_SPARSE_TENSOR: case F_ATTR_SPARSE_TENSORS: nt++; break;
        case F_ATTR_G: case F_ATTR_GRAPHS: ng++; break;
        default: break;
        }
    }
    if (k < 0)
        return wire_fail(r, &c);
    if ((nf && !(a->floats = om_arena_array(r->A, (size_t)nf, sizeof(double)))) ||
        (ni && !(a->ints = om_arena_array(r->A, (size_t)ni, sizeof(int64_t)))) ||
        (ns && !(a->strings = om_arena_array(r->A, (size_t)ns, sizeof(ir_bytes)))) ||
        (nt && !(a->tensors = om_arena_array(r->A, (size_t)nt, sizeof(ir_tensor)))) ||
        (ng && !(a->graphs = om_arena_array(r->A, (size_t)ng, sizeof(ir_graph *)))))
        return oom(r);

    /* pass 2 */
    a->name = "";
    c = pb_span(r->base, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_ATTR_NAME:
            if ((rc = get_istr(r, &f, "AttributeProto.name", &a->name)))
                return rc;
            break;
        case F_ATTR_REF_ATTR_NAME:
            if ((rc = get_str(r, &f, "AttributeProto.ref_attr_name", &a->ref_attr_name)))
                return rc;
            break;
        case F_ATTR_TYPE:
            if ((rc = want(r, &f, PB_VARINT, "AttributeProto.type")))
                return rc;
            a->type = (int)f.v;
            declared = 1;
            break;
        case F_ATTR_F: {
            float fv;
            uint32_t bits = (uint32_t)f.v;
            if ((rc = want(r, &f, PB_FIXED32, "AttributeProto.f")))
                return rc;
            memcpy(&fv, &bits, sizeof(fv));
            a->f = fv;
            has_f = 1;
            break;
        }
        case F_ATTR_I:
            if ((rc = want(r, &f, PB_VARINT, "AttributeProto.i")))
                return rc;
            a->i = (int64_t)f.v;
            has_i = 1;
            break;
        case F_ATTR_S:
            if ((rc = want(r, &f, PB_LEN, "AttributeProto.s")))
                return rc;
            /* Big blobs (e.g. serialized engines) are kept only up to the string limit. */
            a->s.size = (size_t)f.len;
            a->s.data = om_arena_strndup(r->A, (const char *)r->base + f.off,
                                         (size_t)(f.len < r->lim->max_string_bytes
                                                      ? f.len : r->lim->max_string_bytes));
            if (!a->s.data)
                return oom(r);
            has_s = 1;
            break;
        case F_ATTR_FLOATS:
            if (f.wt == PB_LEN) {
                uint64_t j;
                for (j = 0; j + 4 <= f.len && fi < nf; j += 4) {
                    float fv;
                    memcpy(&fv, r->base + f.off + j, 4);
                    a->floats[fi++] = fv;
                }
            } else if (f.wt == PB_FIXED32 && fi < nf) {
                float fv;
                uint32_t bits = (uint32_t)f.v;
                memcpy(&fv, &bits, sizeof(fv));
                a->floats[fi++] = fv;
            } else if ((rc = want(r, &f, PB_FIXED32, "AttributeProto.floats"))) {
                return rc;
            }
            break;
        case F_ATTR_INTS:
            if (f.wt == PB_LEN) {
                pb_cur pc = pb_span(r->base, f.off, f.len);
                uint64_t v;
                while (pc.pos < pc.end && ii < ni) {
                    if (pb_varint(&pc, &v) < 0)
                        return wire_fail(r, &pc);
                    a->ints[ii++] = (int64_t)v;
                }
            } else if ((rc = want(r, &f, PB_VARINT, "AttributeProto.ints"))) {
                return rc;
            } else if (ii < ni) {
                a->ints[ii++] = (int64_t)f.v;
            }
            break;
        case F_ATTR_STRINGS:
            if ((rc = want(r, &f, PB_LEN, "AttributeProto.strings")))
                return rc;
            a->strings[si].size = (size_t)f.len;
            a->strings[si].data = om_arena_strndup(
                r->A, (const char *)r->base + f.off,
                (size_t)(f.len < r->lim->max_string_bytes ? f.len : r->lim->max_string_bytes));
            if (!a->strings[si++].data)
                return oom(r);
            break;
        case F_ATTR_T:
        case F_ATTR_TENSORS:
            if ((rc = want(r, &f, PB_LEN, "AttributeProto tensor")))
                return rc;
            if ((rc = read_tensor(r, f.off, f.len, &a->tensors[ti++])))
                return rc;
            break;
        case F_ATTR_SPARSE_TENSOR:
        case F_ATTR_SPARSE_TENSORS:
            if ((rc = want(r, &f, PB_LEN, "AttributeProto sparse tensor")))
                return rc;
            if ((rc = read_sparse(r, f.off, f.len, &a->tensors[ti++])))
                return rc;
            break;
        case F_ATTR_G:
        case F_ATTR_GRAPHS:
            if ((rc = want(r, &f, PB_LEN, "AttributeProto graph")))
                return rc;
            if (!(a->graphs[gi++] = read_graph(r, f.off, f.len, depth + 1, &rc)))
                return rc;
            break;
        case F_ATTR_TP: has_tp = 1; break;
        case F_ATTR_TYPE_PROTOS: has_tps = 1; break;
        default: break;
        }
    }
    if (k < 0)
        return wire_fail(r, &c);
    a->n_floats = fi;
    a->n_ints = ii;
    a->n_strings = si;
    a->n_tensors = ti;
    a->n_graphs = gi;
    if (!declared) {
        /* Old files omit `type`: infer it from the one field that is set. */
        if (gi) a->type = gi > 1 ? IR_ATTR_GRAPHS : IR_ATTR_GRAPH;
        else if (ti) a->type = ti > 1 ? IR_ATTR_TENSORS : IR_ATTR_TENSOR;
        else if (has_s) a->type = IR_ATTR_STRING;
        else if (has_i) a->type = IR_ATTR_INT;
        else if (has_f) a->type = IR_ATTR_FLOAT;
        else if (ii) a->type = IR_ATTR_INTS;
        else if (fi) a->type = IR_ATTR_FLOATS;
        else if (si) a->type = IR_ATTR_STRINGS;
        else if (has_tp) a->type = IR_ATTR_TYPE_PROTO;
        else if (has_tps) a->type = IR_ATTR_TYPE_PROTOS;
    }
    return OPMAP_OK;
}

static int read_node(rd *r, uint64_t off, uint64_t len, uint32_t depth, ir_node *n)
{
    pb_cur c = pb_span(r->base, off, len);
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
        return wire_fail(r, &c);
    if (nin > UINT32_MAX || nout > UINT32_MAX || nattr > UINT32_MAX)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off, "node with too many fields");
    if ((nin && !(n->inputs = om_arena_array(r->A, (size_t)nin, sizeof(char *)))) ||
        (nout && !(n->outputs = om_arena_array(r->A, (size_t)nout, sizeof(char *)))) ||
        (nattr && !(n->attrs = om_arena_array(r->A, (size_t)nattr, sizeof(ir_attr)))))
        return oom(r);

    n->name = "";
    c = pb_span(r->base, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_NODE_INPUT:
            if ((rc = get_str(r, &f, "NodeProto.input", &n->inputs[ii++])))
                return rc;
            break;
        case F_NODE_OUTPUT:
            if ((rc = get_str(r, &f, "NodeProto.output", &n->outputs[oi++])))
                return rc;
            break;
        case F_NODE_NAME:
            if ((rc = get_str(r, &f, "NodeProto.name", &n->name)))
                return rc;
            break;
        case F_NODE_OP_TYPE:
            if ((rc = get_istr(r, &f, "NodeProto.op_type", &n->op)))
                return rc;
            break;
        case F_NODE_DOMAIN:
            if ((rc = get_istr(r, &f, "NodeProto.domain", &n->domain)))
                return rc;
            break;
        case F_NODE_ATTRIBUTE:
            if ((rc = want(r, &f, PB_LEN, "NodeProto.attribute")))
                return rc;
            if ((rc = read_attr(r, f.off, f.len, depth, &n->attrs[ai++])))
                return rc;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return wire_fail(r, &c);
    n->n_inputs = ii;
    n->n_outputs = oi;
    n->n_attrs = ai;
    if (!n->op || !n->op[0])
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, off, "node '%s' has no op_type",
                          n->name);
    n->domain = canon_domain(r, n->domain);
    return OPMAP_OK;
}

static ir_graph *read_graph(rd *r, uint64_t off, uint64_t len, uint32_t depth, int *rc)
{
    pb_cur c = pb_span(r->base, off, len);
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
    while ((k = pb_next(&c, &f)) > 0) {
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
        *rc = wire_fail(r, &c);
        return NULL;
    }
    g = om_arena_alloc(r->A, sizeof(*g));
    if (!g || (nn && !(g->nodes = om_arena_array(r->A, (size_t)nn, sizeof(ir_node)))) ||
        (ni && !(g->inputs = om_arena_array(r->A, (size_t)ni, sizeof(ir_value)))) ||
        (no && !(g->outputs = om_arena_array(r->A, (size_t)no, sizeof(ir_value)))) ||
        (nv && !(g->value_info = om_arena_array(r->A, (size_t)nv, sizeof(ir_value)))) ||
        (nt && !(g->inits = om_arena_array(r->A, (size_t)nt, sizeof(ir_tensor)))) ||
        !(slot = om_vec_push(&r->graphs, &r->m->mem))) {
        *rc = oom(r);
        return NULL;
    }
    *slot = g;
    g->name = "";
    r->m->stats.graphs++;

    c = pb_span(r->base, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_GRAPH_NODE:
            if ((*rc = want(r, &f, PB_LEN, "GraphProto.node")) ||
                (*rc = read_node(r, f.off, f.len, depth, &g->nodes[xn++])))
                return NULL;
            break;
        case F_GRAPH_NAME:
            if ((*rc = get_str(r, &f, "GraphProto.name", &g->name)))
                return NULL;
            break;
        case F_GRAPH_INPUT:
            if ((*rc = read_value_info(r, &f, &g->inputs[xi++])))
                return NULL;
            break;
        case F_GRAPH_OUTPUT:
            if ((*rc = read_value_info(r, &f, &g->outputs[xo++])))
                return NULL;
            break;
        case F_GRAPH_VALUE_INFO:
            if ((*rc = read_value_info(r, &f, &g->value_info[xv++])))
                return NULL;
            break;
        case F_GRAPH_INITIALIZER:
            if ((*rc = want(r, &f, PB_LEN, "GraphProto.initializer")) ||
                (*rc = read_tensor(r, f.off, f.len, &g->inits[xt++])))
                return NULL;
            r->m->stats.initializers++;
            break;
        case F_GRAPH_SPARSE_INITIALIZER:
            if ((*rc = want(r, &f, PB_LEN, "GraphProto.sparse_initializer")) ||
                (*rc = read_sparse(r, f.off, f.len, &g->inits[xt++])))
                return NULL;
            g->n_sparse_inits++;
            r->m->stats.initializers++;
            break;
        default:
            break;
        }
    }
    if (k < 0) {
        *rc = wire_fail(r, &c);
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

/* ---- functions ---- */

static int read_function(rd *r, uint64_t off, uint64_t len, ir_function *fn)
{
    pb_cur c = pb_span(r->base, off, len);
    pb_field f;
    int k, rc;
    uint64_t nin = 0, nout = 0, nattr = 0, nnode = 0, nops = 0;
    size_t xi = 0, xo = 0, xa = 0, xn = 0, xs = 0;
    ir_graph **slot;

    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_FUNC_INPUT: nin++; break;
        case F_FUNC_OUTPUT: nout++; break;
        case F_FUNC_ATTRIBUTE: nattr++; break;
        case F_FUNC_NODE: nnode++; break;
        case F_FUNC_OPSET_IMPORT: nops++; break;
        default: break;
        }
    }
    if (k < 0)
        return wire_fail(r, &c);
    if ((nin && !(fn->body.inputs = om_arena_array(r->A, (size_t)nin, sizeof(ir_value)))) ||
        (nout && !(fn->body.outputs = om_arena_array(r->A, (size_t)nout, sizeof(ir_value)))) ||
        (nattr && !(fn->attr_names = om_arena_array(r->A, (size_t)nattr, sizeof(char *)))) ||
        (nnode && !(fn->body.nodes = om_arena_array(r->A, (size_t)nnode, sizeof(ir_node)))) ||
        (nops && !(fn->opsets = om_arena_array(r->A, (size_t)nops, sizeof(ir_opset)))) ||
        !(slot = om_vec_push(&r->graphs, &r->m->mem)))
        return oom(r);
    *slot = &fn->body;

    c = pb_span(r->base, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_FUNC_NAME:
            if ((rc = get_istr(r, &f, "FunctionProto.name", &fn->name)))
                return rc;
            break;
        case F_FUNC_DOMAIN:
            if ((rc = get_istr(r, &f, "FunctionProto.domain", &fn->domain)))
                return rc;
            break;
        case F_FUNC_INPUT:
            fn->body.inputs[xi].type.rank = -1;
            if ((rc = get_str(r, &f, "FunctionProto.input", &fn->body.inputs[xi++].name)))
                return rc;
            break;
        case F_FUNC_OUTPUT:
            fn->body.outputs[xo].type.rank = -1;
            if ((rc = get_str(r, &f, "FunctionProto.output", &fn->body.outputs[xo++].name)))
                return rc;
            break;
        case F_FUNC_ATTRIBUTE:
            if ((rc = get_str(r, &f, "FunctionProto.attribute", &fn->attr_names[xa++])))
                return rc;
            break;
        case F_FUNC_NODE:
            if ((rc = want(r, &f, PB_LEN, "FunctionProto.node")) ||
                (rc = read_node(r, f.off, f.len, 1, &fn->body.nodes[xn++])))
                return rc;
            break;
        case F_FUNC_OPSET_IMPORT:
            if ((rc = read_opset(r, &f, &fn->opsets[xs++])))
                return rc;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return wire_fail(r, &c);
    fn->body.n_inputs = xi;
    fn->body.n_outputs = xo;
    fn->n_attr_names = xa;
    fn->body.n_nodes = xn;
    fn->n_opsets = xs;
    if (!fn->name)
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, off, "function without a name");
    fn->domain = canon_domain(r, fn->domain);
    fn->body.name = fn->name;
    return OPMAP_OK;
}

/*
 * Points each node that calls a model-local function at it. Names and domains are
 * interned, so a match is two pointer comparisons; a small hash keeps hostile models with
 * many functions linear.
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
        return oom(r);
    for (i = 0; i < m->n_functions; i++) {
        ir_function *fn = &m->functions[i];
        size_t j = (((uintptr_t)fn->name >> 4) ^ ((uintptr_t)fn->domain >> 4)) & (cap - 1);
        while (tab[j]) {
            if (tab[j]->name == fn->name && tab[j]->domain == fn->domain)
                break; /* duplicate definition: the first one is used */
            j = (j + 1) & (cap - 1);
        }
        if (!tab[j])
            tab[j] = fn;
    }
    for (gi = 0; gi < r->graphs.len; gi++) {
        ir_graph *g = OM_VEC_AT(&r->graphs, ir_graph *, gi);
        size_t ni;
        for (ni = 0; ni < g->n_nodes; ni++) {
            ir_node *n = &g->nodes[ni];
            size_t j = (((uintptr_t)n->op >> 4) ^ ((uintptr_t)n->domain >> 4)) & (cap - 1);
            while (tab[j]) {
                if (tab[j]->name == n->op && tab[j]->domain == n->domain) {
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
    pb_cur c = pb_span(r->base, outer->off, outer->len);
    pb_field f;
    int k, rc;
    while ((k = pb_next(&c, &f)) > 0) {
        if (f.num != F_TRAINING_INITIALIZATION && f.num != F_TRAINING_ALGORITHM)
            continue;
        if ((rc = want(r, &f, PB_LEN, "TrainingInfoProto graph")))
            return rc;
        if (!(r->m->extra_graphs[*slot] = read_graph(r, f.off, f.len, 0, &rc)))
            return rc;
        r->m->extra_labels[*slot] = om_arena_printf(
            r->A, "training%zu/%s", index,
            f.num == F_TRAINING_INITIALIZATION ? "initialization" : "algorithm");
        if (!r->m->extra_labels[*slot])
            return oom(r);
        (*slot)++;
    }
    return k < 0 ? wire_fail(r, &c) : OPMAP_OK;
}

static int read_model(rd *r)
{
    ir_model *m = r->m;
    pb_cur c = pb_span(r->base, 0, r->size);
    pb_field f, graph;
    int k, rc, has_graph = 0;

    memset(&graph, 0, sizeof(graph));
    uint64_t nops = 0, nfun = 0, ntrain_graphs = 0;
    size_t xs = 0, xf = 0, xt = 0, ti = 0;

    /* pass 1: counts, and the wire types of the fields that identify an ONNX model */
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_MODEL_IR_VERSION:
            if ((rc = want(r, &f, PB_VARINT, "ModelProto.ir_version")))
                return rc;
            break;
        case F_MODEL_GRAPH:
            if ((rc = want(r, &f, PB_LEN, "ModelProto.graph")))
                return rc;
            graph = f; /* repeated occurrences merge in protobuf; the last one is used */
            has_graph = 1;
            break;
        case F_MODEL_OPSET_IMPORT: nops++; break;
        case F_MODEL_FUNCTIONS: nfun++; break;
        case F_MODEL_TRAINING_INFO: {
            pb_cur tc;
            pb_field tf;
            int tk;
            if ((rc = want(r, &f, PB_LEN, "ModelProto.training_info")))
                return rc;
            tc = pb_span(r->base, f.off, f.len);
            while ((tk = pb_next(&tc, &tf)) > 0)
                if (tf.num == F_TRAINING_INITIALIZATION || tf.num == F_TRAINING_ALGORITHM)
                    ntrain_graphs++;
            if (tk < 0)
                return wire_fail(r, &tc);
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
        return wire_fail(r, &c);
    }
    if (!has_graph)
        return om_fail(r->err, OPMAP_EFORMAT, r->src,
                       "not an ONNX model: no graph (ModelProto field 7)");
    if ((nops && !(m->opsets = om_arena_array(r->A, (size_t)nops, sizeof(ir_opset)))) ||
        (nfun && !(m->functions = om_arena_array(r->A, (size_t)nfun, sizeof(ir_function)))) ||
        (ntrain_graphs &&
         (!(m->extra_graphs = om_arena_array(r->A, (size_t)ntrain_graphs, sizeof(ir_graph *))) ||
          !(m->extra_labels = om_arena_array(r->A, (size_t)ntrain_graphs, sizeof(char *))))))
        return oom(r);

    /* pass 2 */
    c = pb_span(r->base, 0, r->size);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_MODEL_IR_VERSION: m->ir_version = (int64_t)f.v; break;
        case F_MODEL_MODEL_VERSION:
            if ((rc = want(r, &f, PB_VARINT, "ModelProto.model_version")))
                return rc;
            m->model_version = (int64_t)f.v;
            break;
        case F_MODEL_PRODUCER_NAME:
            if ((rc = get_str(r, &f, "ModelProto.producer_name", &m->producer_name)))
                return rc;
            break;
        case F_MODEL_PRODUCER_VERSION:
            if ((rc = get_str(r, &f, "ModelProto.producer_version", &m->producer_version)))
                return rc;
            break;
        case F_MODEL_DOMAIN:
            if ((rc = get_str(r, &f, "ModelProto.domain", &m->domain)))
                return rc;
            break;
        case F_MODEL_OPSET_IMPORT:
            if ((rc = read_opset(r, &f, &m->opsets[xs++])))
                return rc;
            break;
        case F_MODEL_FUNCTIONS:
            if ((rc = want(r, &f, PB_LEN, "ModelProto.functions")) ||
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
        return wire_fail(r, &c);
    m->n_opsets = xs;
    m->n_functions = xf;
    m->n_extra = xt;
    if (!(m->main = read_graph(r, graph.off, graph.len, 0, &rc)))
        return rc;
    if (r->external.len) {
        if (!(m->external = om_arena_array(r->A, r->external.len, sizeof(ir_tensor))))
            return oom(r);
        memcpy(m->external, r->external.data, r->external.len * sizeof(ir_tensor));
        m->n_external = r->external.len;
    }
    if (!m->main->name[0])
        m->main->name = "main";
    /* IR versions 1 and 2 predate opset_import: they imply ai.onnx opset 1. */
    if (!m->n_opsets && m->ir_version < 3) {
        if (!(m->opsets = om_arena_alloc(r->A, sizeof(ir_opset))))
            return oom(r);
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
    if (!(r.onnx_domain = ir_intern(&r.in, "ai.onnx", 7)))
        rc = oom(&r);
    else
        rc = read_model(&r);
    om_vec_free(&r.graphs, &m->mem);
    om_vec_free(&r.external, &m->mem);
    ir_intern_free(&r.in);
    return rc;
}
