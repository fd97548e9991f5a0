/*
 * readers/onnx/onnx_fields.h - ONNX field numbers the wire walker uses.
 *
 * Field numbers are the stable part of onnx.proto. tests/unit/test_onnx_fields.c checks
 * every constant here against the descriptors protoc-c generated from the onnx.proto that
 * Debian's libonnx-dev installs, so a typo cannot survive the test suite.
 */
#ifndef OM_ONNX_FIELDS_H
#define OM_ONNX_FIELDS_H

/* ModelProto */
#define F_MODEL_IR_VERSION 1
#define F_MODEL_PRODUCER_NAME 2
#define F_MODEL_PRODUCER_VERSION 3
#define F_MODEL_DOMAIN 4
#define F_MODEL_MODEL_VERSION 5
#define F_MODEL_DOC_STRING 6
#define F_MODEL_GRAPH 7
#define F_MODEL_OPSET_IMPORT 8
#define F_MODEL_TRAINING_INFO 20
#define F_MODEL_FUNCTIONS 25

/* TrainingInfoProto */
#define F_TRAINING_INITIALIZATION 1
#define F_TRAINING_ALGORITHM 2

/* GraphProto */
#define F_GRAPH_NODE 1
#define F_GRAPH_NAME 2
#define F_GRAPH_INITIALIZER 5
#define F_GRAPH_INPUT 11
#define F_GRAPH_OUTPUT 12
#define F_GRAPH_VALUE_INFO 13
#define F_GRAPH_SPARSE_INITIALIZER 15

/* NodeProto */
#define F_NODE_INPUT 1
#define F_NODE_OUTPUT 2
#define F_NODE_NAME 3
#define F_NODE_OP_TYPE 4
#define F_NODE_ATTRIBUTE 5
#define F_NODE_DOMAIN 7
#define F_NODE_OVERLOAD 8 /* IR 10: newer than Debian's onnx.proto (1.12), see the test */

/* AttributeProto */
#define F_ATTR_NAME 1
#define F_ATTR_F 2
#define F_ATTR_I 3
#define F_ATTR_S 4
#define F_ATTR_T 5
#define F_ATTR_G 6
#define F_ATTR_FLOATS 7
#define F_ATTR_INTS 8
#define F_ATTR_STRINGS 9
#define F_ATTR_TENSORS 10
#define F_ATTR_GRAPHS 11
#define F_ATTR_TP 14
#define F_ATTR_TYPE_PROTOS 15
#define F_ATTR_TYPE 20
#define F_ATTR_REF_ATTR_NAME 21
#define F_ATTR_SPARSE_TENSOR 22
#define F_ATTR_SPARSE_TENSORS 23

/* ValueInfoProto */
#define F_VI_NAME 1
#define F_VI_TYPE 2

/* TypeProto and its nested messages */
#define F_TYPE_TENSOR 1
#define F_TYPE_SEQUENCE 4
#define F_TYPE_MAP 5
#define F_TYPE_OPAQUE 7 /* onnx-ml.proto only: not in the onnx.proto the test checks */
#define F_TYPE_SPARSE_TENSOR 8
#define F_TYPE_OPTIONAL 9
#define F_TYPE_SEQUENCE_ELEM 1
#define F_TYPE_MAP_KEY 1
#define F_TYPE_MAP_VALUE 2
#define F_TYPE_OPTIONAL_ELEM 1

/* TensorProto */
#define F_TENSOR_DIMS 1
#define F_TENSOR_DATA_TYPE 2
#define F_TENSOR_FLOAT_DATA 4
#define F_TENSOR_INT32_DATA 5
#define F_TENSOR_STRING_DATA 6
#define F_TENSOR_INT64_DATA 7
#define F_TENSOR_NAME 8
#define F_TENSOR_RAW_DATA 9
#define F_TENSOR_DOUBLE_DATA 10
#define F_TENSOR_UINT64_DATA 11
#define F_TENSOR_EXTERNAL_DATA 13
#define F_TENSOR_DATA_LOCATION 14

/* SparseTensorProto */
#define F_SPARSE_VALUES 1
#define F_SPARSE_INDICES 2
#define F_SPARSE_DIMS 3

/* FunctionProto */
#define F_FUNC_NAME 1
#define F_FUNC_INPUT 4
#define F_FUNC_OUTPUT 5
#define F_FUNC_ATTRIBUTE 6
#define F_FUNC_NODE 7
#define F_FUNC_OPSET_IMPORT 9
#define F_FUNC_DOMAIN 10
#define F_FUNC_ATTRIBUTE_PROTO 11 /* IR 9: attributes with defaults; newer than 1.12's */
#define F_FUNC_OVERLOAD 13        /* IR 10; newer than 1.12's */

/* TensorProto.DataLocation */
#define ONNX_DATA_LOCATION_EXTERNAL 1

#endif /* OM_ONNX_FIELDS_H */
