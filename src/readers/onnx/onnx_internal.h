/*
 * readers/onnx/onnx_internal.h - what the ONNX reader's files share: the reader state and
 * the helpers that turn wire fields into IR strings or precise errors.
 */
#ifndef OM_ONNX_INTERNAL_H
#define OM_ONNX_INTERNAL_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "onnx/onnx.pb-c.h"

#include "core/err.h"
#include "ir/ir.h"
#include "onnx_fields.h"
#include "pbwire.h"

typedef struct rd {
    const unsigned char *base;
    om_mapped *view;     /* the file's lazy view: om_need() before touching bytes; or NULL */
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
    const char *empty;       /* interned "": no overload */
} rd;

/* errors: each returns the status it set */
int om_onnx_wire_fail(rd *r, const pb_cur *c);
int om_onnx_oom(rd *r);
int om_onnx_want(rd *r, const pb_field *f, int wt, const char *what);

/* One occurrence of a repeated int64 field, packed (PB_LEN) or not, stored at out[*n] and on
 * while *n < cap (cap was counted in a first pass). A packed list is read to its end, so a
 * last varint that never ends is an error, not ignored. */
int om_onnx_ints(rd *r, const pb_field *f, const char *what, int64_t *out, uint64_t *n,
                 uint64_t cap);

/* strings copied into the model's arena (interned for names that repeat: identifiers, which
 * may not hold a NUL byte) */
int om_onnx_str(rd *r, const pb_field *f, const char *what, const char **out);
int om_onnx_istr(rd *r, const pb_field *f, const char *what, const char **out);
const char *om_onnx_domain(rd *r, const char *d);

/* onnx_tensor.c: flat messages, tensors, types */
int om_onnx_opset(rd *r, const pb_field *f, ir_opset *out);
int om_onnx_tensor(rd *r, uint64_t off, uint64_t len, ir_tensor *t);
int om_onnx_sparse(rd *r, uint64_t off, uint64_t len, ir_tensor *t);
int om_onnx_value_info(rd *r, const pb_field *outer, ir_value *v);

/* onnx_graph.c: graphs, nodes and attributes, depth-bounded */
ir_graph *om_onnx_graph(rd *r, uint64_t off, uint64_t len, uint32_t depth, int *rc);
/* A graph given in several occurrences of one singular field, merged as protobuf merges it. */
ir_graph *om_onnx_graph_merged(rd *r, const pb_seg *segs, size_t n_segs, uint32_t depth,
                               int *rc);
int om_onnx_node(rd *r, uint64_t off, uint64_t len, uint32_t depth, ir_node *n);
int om_onnx_attr(rd *r, uint64_t off, uint64_t len, uint32_t depth, ir_attr *a);
/* Refuses two attributes of one (interned) name among attrs[0, n): `field` of the `owner`
 * named owner_name, at offset off. */
int om_onnx_unique_attrs(rd *r, const ir_attr *attrs, size_t n, uint64_t off, const char *field,
                         const char *owner, const char *owner_name);

#endif /* OM_ONNX_INTERNAL_H */
