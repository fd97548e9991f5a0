/*
 * readers/onnx/onnx_reader.h - ONNX ModelProto bytes -> IR.
 */
#ifndef OM_ONNX_READER_H
#define OM_ONNX_READER_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "ir/ir.h"

/*
 * Fills `m` (whose name, mem and arena are set up) from the bytes of an ONNX model.
 * `data` is only read during the call. Errors name m->name and the byte offset.
 */
int om_onnx_read(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                 opmap_error *err);

#endif /* OM_ONNX_READER_H */
