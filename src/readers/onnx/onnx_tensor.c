/*
 * readers/onnx/onnx_tensor.c - the flat parts of ONNX: opset imports, tensors (headers
 * only: payloads are stepped over; small numeric ones keep their values), sparse tensors,
 * value types. The flat leaf messages go through protobuf-c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* ---- small messages through protobuf-c ---- */

int om_onnx_opset(rd *r, const pb_field *f, ir_opset *out)
{
    Onnx__OperatorSetIdProto *msg;
    int rc = om_onnx_want(r, f, PB_LEN, "opset_import");
    if (rc)
        return rc;
    om_need(r->view, f->off, f->len);
    msg = onnx__operator_set_id_proto__unpack(&r->pba, (size_t)f->len, r->base + f->off);
    if (!msg) {
        if (r->m->mem.over_limit)
            return om_onnx_oom(r);
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off, "malformed OperatorSetIdProto");
    }
    out->domain = ir_intern(&r->in, msg->domain ? msg->domain : "",
                            msg->domain ? strlen(msg->domain) : 0);
    out->version = msg->has_version ? msg->version : 0;
    onnx__operator_set_id_proto__free_unpacked(msg, &r->pba);
    if (!out->domain)
        return om_onnx_oom(r);
    out->domain = om_onnx_domain(r, out->domain);
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
    if ((rc = om_onnx_want(r, f, PB_LEN, "TensorProto.external_data")))
        return rc;
    om_need(r->view, f->off, f->len);
    kv = onnx__string_string_entry_proto__unpack(&r->pba, (size_t)f->len, r->base + f->off);
    if (!kv) {
        if (r->m->mem.over_limit)
            return om_onnx_oom(r);
        return om_fail_at(r->err, OPMAP_EFORMAT, r->src, f->off,
                          "malformed external_data entry");
    }
    if (kv->key && strcmp(kv->key, "location") == 0) {
        t->ext_location = om_arena_strdup(r->A, kv->value ? kv->value : "");
        if (!t->ext_location)
            rc = om_onnx_oom(r);
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
        return om_onnx_oom(r);
    for (i = 0; i < shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
        t->dims[i].value = -1;
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            t->dims[i].value = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) {
            t->dims[i].param = om_arena_strdup(r->A, d->dim_param ? d->dim_param : "");
            if (!t->dims[i].param)
                return om_onnx_oom(r);
        }
    }
    return OPMAP_OK;
}

/*
 * Types given in pieces. protobuf merges every occurrence of a singular message field, so a
 * ValueInfoProto whose `type` appears twice has one type: the occurrences read as their
 * concatenation (elem_type: the last; shape: the dims of both). Within TypeProto's oneof a
 * repeated member merges the same way and a different member replaces it. A piece list
 * lives in a small buffer, or in the model's arena when a hostile file has more pieces.
 */
#define TYPE_SEGS_INLINE 4

typedef struct segs {
    pb_seg *s;
    size_t n, cap;
    pb_seg inline_s[TYPE_SEGS_INLINE];
} segs;

static void segs_init(segs *v)
{
    v->s = v->inline_s;
    v->n = 0;
    v->cap = TYPE_SEGS_INLINE;
}

static int segs_push(rd *r, segs *v, uint64_t off, uint64_t len)
{
    if (v->n == v->cap) {
        size_t ncap = v->cap * 2;
        pb_seg *ns = om_arena_array(r->A, ncap, sizeof(pb_seg));
        if (!ns)
            return om_onnx_oom(r);
        memcpy(ns, v->s, v->n * sizeof(pb_seg));
        v->s = ns;
        v->cap = ncap;
    }
    v->s[v->n].off = off;
    v->s[v->n].len = len;
    v->n++;
    return OPMAP_OK;
}

/* TypeProto.Tensor / SparseTensor from its pieces: protobuf-c merges repeated occurrences of
 * a message read from one buffer, so several pieces are unpacked from their concatenation. */
static int read_tensor_type(rd *r, const segs *p, int sparse, ir_type *t)
{
    const unsigned char *data = r->base + p->s[0].off;
    unsigned char *joined = NULL;
    uint64_t total = p->s[0].len;
    size_t i;
    int rc;
    t->kind = sparse ? IR_TYPE_SPARSE_TENSOR : IR_TYPE_TENSOR;
    for (i = 0; i < p->n; i++)
        om_need(r->view, p->s[i].off, p->s[i].len);
    if (p->n > 1) {
        for (total = 0, i = 0; i < p->n; i++)
            total += p->s[i].len; /* pieces of one file: no overflow */
        if (!(joined = r->pba.alloc(r->pba.allocator_data, (size_t)total ? (size_t)total : 1)))
            return om_onnx_oom(r);
        for (total = 0, i = 0; i < p->n; i++) {
            memcpy(joined + total, r->base + p->s[i].off, (size_t)p->s[i].len);
            total += p->s[i].len;
        }
        data = joined;
    }
    if (sparse) {
        Onnx__TypeProto__SparseTensor *msg = (Onnx__TypeProto__SparseTensor *)
            protobuf_c_message_unpack(&onnx__type_proto__sparse_tensor__descriptor, &r->pba,
                                      (size_t)total, data);
        if (!msg)
            goto bad;
        t->elem = msg->has_elem_type ? msg->elem_type : 0;
        rc = fill_shape(r, msg->shape, t);
        protobuf_c_message_free_unpacked(&msg->base, &r->pba);
    } else {
        Onnx__TypeProto__Tensor *msg = (Onnx__TypeProto__Tensor *)
            protobuf_c_message_unpack(&onnx__type_proto__tensor__descriptor, &r->pba,
                                      (size_t)total, data);
        if (!msg)
            goto bad;
        t->elem = msg->has_elem_type ? msg->elem_type : 0;
        rc = fill_shape(r, msg->shape, t);
        protobuf_c_message_free_unpacked(&msg->base, &r->pba);
    }
    if (joined)
        r->pba.free(r->pba.allocator_data, joined);
    return rc;
bad:
    if (joined)
        r->pba.free(r->pba.allocator_data, joined);
    if (r->m->mem.over_limit)
        return om_onnx_oom(r);
    return om_fail_at(r->err, OPMAP_EFORMAT, r->src, p->s[0].off, "malformed TypeProto.Tensor");
}

/*
 * TypeProto is a chain (sequence of optional of map of ... tensor): followed iteratively,
 * at most max_depth links, each link from all its pieces.
 */
static int read_type(rd *r, const segs *pieces, ir_type *t)
{
    uint32_t depth;
    segs cur = *pieces;
    if (cur.s == pieces->inline_s)
        cur.s = cur.inline_s;
    t->kind = IR_TYPE_NONE;
    t->rank = -1;
    for (depth = 0; depth <= r->lim->max_depth; depth++) {
        pb_mcur c = pb_multi(r->base, r->view, cur.s, cur.n);
        pb_field f;
        segs member, elem;
        uint32_t active = 0;
        int k, kind = IR_TYPE_NONE, rc;
        segs_init(&member);
        while ((k = pb_mnext(&c, &f)) > 0) {
            switch (f.num) {
            case F_TYPE_TENSOR:
            case F_TYPE_SPARSE_TENSOR:
            case F_TYPE_SEQUENCE:
            case F_TYPE_MAP:
            case F_TYPE_OPTIONAL:
            case F_TYPE_OPAQUE:
                if ((rc = om_onnx_want(r, &f, PB_LEN, "TypeProto member")))
                    return rc;
                if (f.num != active) { /* another member of the oneof replaces it */
                    active = f.num;
                    segs_init(&member);
                }
                if ((rc = segs_push(r, &member, f.off, f.len)))
                    return rc;
                break;
            default:
                break;
            }
        }
        if (k < 0)
            return om_onnx_wire_fail(r, &c.c);
        if (!active)
            return OPMAP_OK;
        switch (active) {
        case F_TYPE_TENSOR:
            return read_tensor_type(r, &member, 0, t);
        case F_TYPE_SPARSE_TENSOR:
            return read_tensor_type(r, &member, 1, t);
        case F_TYPE_OPAQUE:
            t->kind = IR_TYPE_OPAQUE;
            return OPMAP_OK;
        case F_TYPE_SEQUENCE: kind = IR_TYPE_SEQUENCE; break;
        case F_TYPE_MAP: kind = IR_TYPE_MAP; break;
        default: kind = IR_TYPE_OPTIONAL; break;
        }
        if (!t->outer)
            t->outer = (uint8_t)kind;
        t->kind = (uint8_t)kind;
        {
            /* descend into the element (value for maps): every occurrence, merged */
            uint32_t elem_field = kind == IR_TYPE_MAP ? F_TYPE_MAP_VALUE : F_TYPE_SEQUENCE_ELEM;
            pb_mcur cc = pb_multi(r->base, r->view, member.s, member.n);
            pb_field ef;
            segs_init(&elem);
            while ((k = pb_mnext(&cc, &ef)) > 0)
                if (ef.num == elem_field && ef.wt == PB_LEN &&
                    (rc = segs_push(r, &elem, ef.off, ef.len)))
                    return rc;
            if (k < 0)
                return om_onnx_wire_fail(r, &cc.c);
            if (!elem.n)
                return OPMAP_OK;
            cur = elem;
            if (elem.s == elem.inline_s)
                cur.s = cur.inline_s;
        }
    }
    return om_fail_at(r->err, OPMAP_ELIMIT, r->src, cur.s[0].off,
                      "type nested deeper than max_depth (%" PRIu32 ")", r->lim->max_depth);
}

/* ---- tensors ---- */

/*
 * Small numeric tensors (shapes, axes, scalars) keep their values: rules need them (a
 * Reshape target with -1, a constant axis). Anything larger stays a header only.
 */
static void keep_small_values(rd *r, ir_tensor *t, const pb_field *raw, const pb_field *typed)
{
    uint64_t count = 1, i, width;
    uint32_t d;
    for (d = 0; d < t->ndims; d++) {
        if (t->dims[d] < 0 || (uint64_t)t->dims[d] > IR_SMALL_TENSOR)
            return;
        count *= (uint64_t)t->dims[d];
        if (count > IR_SMALL_TENSOR)
            return;
    }
    if (!count)
        return;
    switch (t->dtype) {
    case IR_DT_BOOL: case IR_DT_INT8: case IR_DT_UINT8: width = 1; break; /* flags: training_mode */
    case IR_DT_FLOAT: case IR_DT_INT32: width = 4; break;
    case IR_DT_INT64: case IR_DT_DOUBLE: width = 8; break;
    default: return;
    }
    if (!(t->values = om_arena_array(r->A, (size_t)count, sizeof(double))))
        return; /* values are an extra: without them rules just know less */
    if (raw) {
        const unsigned char *p = r->base + raw->off;
        if (raw->len != count * width) {
            t->values = NULL;
            return;
        }
        om_need(r->view, raw->off, raw->len);
        for (i = 0; i < count; i++, p += width) {
            uint64_t u = 0;
            int b;
            for (b = (int)width - 1; b >= 0; b--)
                u = (u << 8) | p[b];
            if (t->dtype == IR_DT_FLOAT) {
                float f;
                uint32_t u32 = (uint32_t)u;
                memcpy(&f, &u32, 4);
                t->values[i] = f;
            } else if (t->dtype == IR_DT_DOUBLE) {
                double dv;
                memcpy(&dv, &u, 8);
                t->values[i] = dv;
            } else if (t->dtype == IR_DT_INT32) {
                t->values[i] = (double)(int32_t)(uint32_t)u;
            } else if (width == 1) {
                t->values[i] = t->dtype == IR_DT_INT8 ? (double)(int8_t)(uint8_t)u : (double)u;
            } else {
                t->values[i] = (double)(int64_t)u;
            }
        }
    } else if (typed && typed->wt == PB_LEN) {
        pb_cur pc = pb_span(r->base, r->view, typed->off, typed->len);
        for (i = 0; i < count; i++) {
            if (t->dtype == IR_DT_FLOAT || t->dtype == IR_DT_DOUBLE) {
                uint64_t u = 0;
                int b;
                if (pc.end - pc.pos < width || typed->num != (t->dtype == IR_DT_FLOAT
                                                                 ? F_TENSOR_FLOAT_DATA
                                                                 : F_TENSOR_DOUBLE_DATA))
                    break;
                om_need(r->view, pc.pos, width);
                for (b = (int)width - 1; b >= 0; b--)
                    u = (u << 8) | r->base[pc.pos + (uint64_t)b];
                pc.pos += width;
                if (width == 4) {
                    float f;
                    uint32_t u32 = (uint32_t)u;
                    memcpy(&f, &u32, 4);
                    t->values[i] = f;
                } else {
                    double dv;
                    memcpy(&dv, &u, 8);
                    t->values[i] = dv;
                }
            } else {
                uint64_t v;
                if ((typed->num != F_TENSOR_INT64_DATA && typed->num != F_TENSOR_INT32_DATA) ||
                    pb_varint(&pc, &v) < 0)
                    break;
                t->values[i] = t->dtype == IR_DT_INT64 ? (double)(int64_t)v : (double)(int32_t)v;
            }
        }
        if (i < count || pc.pos != pc.end) {
            t->values = NULL;
            return;
        }
    } else {
        t->values = NULL;
        return;
    }
    t->n_values = (uint32_t)count;
}

int om_onnx_tensor(rd *r, uint64_t off, uint64_t len, ir_tensor *t)
{
    pb_cur c = pb_span(r->base, r->view, off, len);
    pb_field f;
    int k, rc, has_raw = 0, n_typed = 0;
    uint64_t ndims = 0, di = 0;
    pb_field raw, typed;

    while ((k = pb_next(&c, &f)) > 0)
        if (f.num == F_TENSOR_DIMS)
            ndims += f.wt == PB_LEN ? pb_count_varints(r->base, r->view, f.off, f.len) : 1;
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    if (ndims > UINT32_MAX)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off, "tensor with too many dimensions");
    t->ndims = (uint32_t)ndims;
    if (ndims && !(t->dims = om_arena_array(r->A, (size_t)ndims, sizeof(int64_t))))
        return om_onnx_oom(r);

    c = pb_span(r->base, r->view, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_TENSOR_DIMS:
            if ((rc = om_onnx_ints(r, &f, "TensorProto.dims", t->dims, &di, ndims)))
                return rc;
            break;
        case F_TENSOR_DATA_TYPE:
            if ((rc = om_onnx_want(r, &f, PB_VARINT, "TensorProto.data_type")))
                return rc;
            t->dtype = (int32_t)f.v;
            break;
        case F_TENSOR_NAME:
            if ((rc = om_onnx_str(r, &f, "TensorProto.name", &t->name)))
                return rc;
            break;
        case F_TENSOR_RAW_DATA:
            t->payload_offset = f.off;
            t->payload_bytes += f.wt == PB_LEN ? f.len : 0;
            raw = f;
            has_raw = f.wt == PB_LEN;
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
            typed = f;
            n_typed++;
            break;
        case F_TENSOR_EXTERNAL_DATA:
            if ((rc = read_external_entry(r, &f, t)))
                return rc;
            break;
        case F_TENSOR_DATA_LOCATION:
            if ((rc = om_onnx_want(r, &f, PB_VARINT, "TensorProto.data_location")))
                return rc;
            t->external = f.v == ONNX_DATA_LOCATION_EXTERNAL;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    if (!t->name)
        t->name = "";
    if (!t->external && (has_raw || n_typed == 1))
        keep_small_values(r, t, has_raw ? &raw : NULL, n_typed == 1 ? &typed : NULL);
    if (t->external) {
        ir_tensor *copy = om_vec_push(&r->external, &r->m->mem);
        if (!copy)
            return om_onnx_oom(r);
        *copy = *t;
        r->m->stats.external_tensors++;
        r->m->stats.weight_bytes += t->ext_length;
    } else {
        r->m->stats.weight_bytes += t->payload_bytes;
    }
    return OPMAP_OK;
}

int om_onnx_sparse(rd *r, uint64_t off, uint64_t len, ir_tensor *t)
{
    pb_cur c = pb_span(r->base, r->view, off, len);
    pb_field f;
    ir_tensor part;
    int k, rc;
    uint64_t ndims = 0, di = 0;

    while ((k = pb_next(&c, &f)) > 0)
        if (f.num == F_SPARSE_DIMS)
            ndims += f.wt == PB_LEN ? pb_count_varints(r->base, r->view, f.off, f.len) : 1;
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    if (ndims > UINT32_MAX)
        return om_fail_at(r->err, OPMAP_ELIMIT, r->src, off, "tensor with too many dimensions");
    t->ndims = (uint32_t)ndims;
    if (ndims && !(t->dims = om_arena_array(r->A, (size_t)ndims, sizeof(int64_t))))
        return om_onnx_oom(r);
    t->name = "";
    t->sparse = 1;

    c = pb_span(r->base, r->view, off, len);
    while ((k = pb_next(&c, &f)) > 0) {
        switch (f.num) {
        case F_SPARSE_VALUES:
        case F_SPARSE_INDICES:
            if ((rc = om_onnx_want(r, &f, PB_LEN, "SparseTensorProto values/indices")))
                return rc;
            memset(&part, 0, sizeof(part));
            if ((rc = om_onnx_tensor(r, f.off, f.len, &part)))
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
            if ((rc = om_onnx_ints(r, &f, "SparseTensorProto.dims", t->dims, &di, ndims)))
                return rc;
            break;
        default:
            break;
        }
    }
    return k < 0 ? om_onnx_wire_fail(r, &c) : OPMAP_OK;
}

/* ---- value info ---- */

int om_onnx_value_info(rd *r, const pb_field *outer, ir_value *v)
{
    pb_cur c;
    pb_field f;
    segs types;
    int k, rc;
    if ((rc = om_onnx_want(r, outer, PB_LEN, "ValueInfoProto")))
        return rc;
    c = pb_span(r->base, r->view, outer->off, outer->len);
    v->name = "";
    v->type.rank = -1;
    segs_init(&types);
    while ((k = pb_next(&c, &f)) > 0) {
        if (f.num == F_VI_NAME) {
            if ((rc = om_onnx_str(r, &f, "ValueInfoProto.name", &v->name)))
                return rc;
        } else if (f.num == F_VI_TYPE) {
            if ((rc = om_onnx_want(r, &f, PB_LEN, "ValueInfoProto.type")) ||
                (rc = segs_push(r, &types, f.off, f.len)))
                return rc;
        }
    }
    if (k < 0)
        return om_onnx_wire_fail(r, &c);
    if (types.n) { /* a type given twice is one type, merged (see read_type) */
        memset(&v->type, 0, sizeof(v->type));
        return read_type(r, &types, &v->type);
    }
    return OPMAP_OK;
}
