/*
 * tests/support/onnx_build.h - build ONNX models in memory with protobuf-c, for tests.
 *
 * Tests describe a model with these helpers and pack it to bytes, so most fixtures are
 * code, not binary files. Every allocation is tracked by the builder and released by
 * mb_free().
 */
#ifndef OPMAP_TEST_ONNX_BUILD_H
#define OPMAP_TEST_ONNX_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "onnx/onnx.pb-c.h"

typedef struct mb {
    void **ptrs;
    size_t n, cap;
} mb;

void mb_init(mb *b);
void mb_free(mb *b);
void *mb_alloc(mb *b, size_t size);
char *mb_str(mb *b, const char *s);

Onnx__ModelProto *mb_model(mb *b, Onnx__GraphProto *graph, int64_t ir_version);
void mb_opset(mb *b, Onnx__ModelProto *m, const char *domain, int64_t version);

Onnx__GraphProto *mb_graph(mb *b, const char *name);
/* A node with up to 4 inputs and 4 outputs given as NULL-terminated lists (may be NULL). */
Onnx__NodeProto *mb_node(mb *b, Onnx__GraphProto *g, const char *op, const char *domain,
                         const char *name, const char *const *inputs, const char *const *outputs);
void mb_attr_int(mb *b, Onnx__NodeProto *n, const char *name, int64_t v);
void mb_attr_float(mb *b, Onnx__NodeProto *n, const char *name, float v);
void mb_attr_string(mb *b, Onnx__NodeProto *n, const char *name, const char *v);
void mb_attr_ints(mb *b, Onnx__NodeProto *n, const char *name, const int64_t *v, size_t count);
void mb_attr_graph(mb *b, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g);
void mb_attr_tensor(mb *b, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t);

/* A float tensor with `payload` bytes of raw_data (filled with a pattern). */
Onnx__TensorProto *mb_tensor_raw(mb *b, const char *name, const int64_t *dims, size_t ndims,
                                 size_t payload);
/* A tensor whose data lives in an external file. */
Onnx__TensorProto *mb_tensor_external(mb *b, const char *name, const char *location,
                                      const char *offset, const char *length);
void mb_initializer(mb *b, Onnx__GraphProto *g, Onnx__TensorProto *t);
/* A graph input/output: float tensor with dims (>= 0) or dim_params (when dims[i] < 0). */
void mb_input(mb *b, Onnx__GraphProto *g, const char *name, int32_t elem, const int64_t *dims,
              const char *const *params, size_t rank);

Onnx__FunctionProto *mb_function(mb *b, Onnx__ModelProto *m, const char *domain,
                                 const char *name);
Onnx__NodeProto *mb_fnode(mb *b, Onnx__FunctionProto *f, const char *op, const char *domain);
void mb_fopset(mb *b, Onnx__FunctionProto *f, const char *domain, int64_t version);

/* Packs the model; the buffer is owned by the builder. */
uint8_t *mb_pack(mb *b, const Onnx__ModelProto *m, size_t *len);

#endif /* OPMAP_TEST_ONNX_BUILD_H */
