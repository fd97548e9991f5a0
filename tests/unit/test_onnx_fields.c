/*
 * tests/unit/test_onnx_fields.c - the wire walker's field numbers agree with the
 * descriptors protoc-c generated from Debian's onnx.proto.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../src/readers/onnx/onnx_fields.h"
#include "onnx/onnx.pb-c.h"

static void expect(const ProtobufCMessageDescriptor *d, const char *field, unsigned number)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, field);
    if (!f)
        fail_msg("%s has no field %s", d->name, field);
    if (f->id != number)
        fail_msg("%s.%s is field %u in onnx.proto, the reader uses %u", d->name, field, f->id,
                 number);
}

/* A field newer than Debian's onnx.proto (1.12): when that proto has it, its number must be
 * the reader's; when not, no other field of the message may use the number (protobuf would
 * read it as that field). The numbers are onnx.proto's of IR 9 and 10. */
static void expect_newer(const ProtobufCMessageDescriptor *d, const char *field, unsigned number)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, field);
    const ProtobufCFieldDescriptor *other = protobuf_c_message_descriptor_get_field(d, number);
    if (f && f->id != number)
        fail_msg("%s.%s is field %u in onnx.proto, the reader uses %u", d->name, field, f->id,
                 number);
    if (!f && other)
        fail_msg("%s field %u is %s in onnx.proto, the reader reads it as %s", d->name, number,
                 other->name, field);
}

static void test_fields__match_onnx_proto(void **state)
{
    (void)state;
    expect(&onnx__model_proto__descriptor, "ir_version", F_MODEL_IR_VERSION);
    expect(&onnx__model_proto__descriptor, "producer_name", F_MODEL_PRODUCER_NAME);
    expect(&onnx__model_proto__descriptor, "producer_version", F_MODEL_PRODUCER_VERSION);
    expect(&onnx__model_proto__descriptor, "domain", F_MODEL_DOMAIN);
    expect(&onnx__model_proto__descriptor, "model_version", F_MODEL_MODEL_VERSION);
    expect(&onnx__model_proto__descriptor, "doc_string", F_MODEL_DOC_STRING);
    expect(&onnx__model_proto__descriptor, "graph", F_MODEL_GRAPH);
    expect(&onnx__model_proto__descriptor, "opset_import", F_MODEL_OPSET_IMPORT);
    expect(&onnx__model_proto__descriptor, "training_info", F_MODEL_TRAINING_INFO);
    expect(&onnx__model_proto__descriptor, "functions", F_MODEL_FUNCTIONS);
    expect(&onnx__training_info_proto__descriptor, "initialization", F_TRAINING_INITIALIZATION);
    expect(&onnx__training_info_proto__descriptor, "algorithm", F_TRAINING_ALGORITHM);
    expect(&onnx__graph_proto__descriptor, "node", F_GRAPH_NODE);
    expect(&onnx__graph_proto__descriptor, "name", F_GRAPH_NAME);
    expect(&onnx__graph_proto__descriptor, "initializer", F_GRAPH_INITIALIZER);
    expect(&onnx__graph_proto__descriptor, "input", F_GRAPH_INPUT);
    expect(&onnx__graph_proto__descriptor, "output", F_GRAPH_OUTPUT);
    expect(&onnx__graph_proto__descriptor, "value_info", F_GRAPH_VALUE_INFO);
    expect(&onnx__graph_proto__descriptor, "sparse_initializer", F_GRAPH_SPARSE_INITIALIZER);
    expect(&onnx__node_proto__descriptor, "input", F_NODE_INPUT);
    expect(&onnx__node_proto__descriptor, "output", F_NODE_OUTPUT);
    expect(&onnx__node_proto__descriptor, "name", F_NODE_NAME);
    expect(&onnx__node_proto__descriptor, "op_type", F_NODE_OP_TYPE);
    expect(&onnx__node_proto__descriptor, "attribute", F_NODE_ATTRIBUTE);
    expect(&onnx__node_proto__descriptor, "domain", F_NODE_DOMAIN);
    expect(&onnx__attribute_proto__descriptor, "name", F_ATTR_NAME);
    expect(&onnx__attribute_proto__descriptor, "f", F_ATTR_F);
    expect(&onnx__attribute_proto__descriptor, "i", F_ATTR_I);
    expect(&onnx__attribute_proto__descriptor, "s", F_ATTR_S);
    expect(&onnx__attribute_proto__descriptor, "t", F_ATTR_T);
    expect(&onnx__attribute_proto__descriptor, "g", F_ATTR_G);
    expect(&onnx__attribute_proto__descriptor, "floats", F_ATTR_FLOATS);
    expect(&onnx__attribute_proto__descriptor, "ints", F_ATTR_INTS);
    expect(&onnx__attribute_proto__descriptor, "strings", F_ATTR_STRINGS);
    expect(&onnx__attribute_proto__descriptor, "tensors", F_ATTR_TENSORS);
    expect(&onnx__attribute_proto__descriptor, "graphs", F_ATTR_GRAPHS);
    expect(&onnx__attribute_proto__descriptor, "tp", F_ATTR_TP);
    expect(&onnx__attribute_proto__descriptor, "type_protos", F_ATTR_TYPE_PROTOS);
    expect(&onnx__attribute_proto__descriptor, "type", F_ATTR_TYPE);
    expect(&onnx__attribute_proto__descriptor, "ref_attr_name", F_ATTR_REF_ATTR_NAME);
    expect(&onnx__attribute_proto__descriptor, "sparse_tensor", F_ATTR_SPARSE_TENSOR);
    expect(&onnx__attribute_proto__descriptor, "sparse_tensors", F_ATTR_SPARSE_TENSORS);
    expect(&onnx__value_info_proto__descriptor, "name", F_VI_NAME);
    expect(&onnx__value_info_proto__descriptor, "type", F_VI_TYPE);
    expect(&onnx__type_proto__descriptor, "tensor_type", F_TYPE_TENSOR);
    expect(&onnx__type_proto__descriptor, "sequence_type", F_TYPE_SEQUENCE);
    expect(&onnx__type_proto__descriptor, "map_type", F_TYPE_MAP);
    expect(&onnx__type_proto__descriptor, "sparse_tensor_type", F_TYPE_SPARSE_TENSOR);
    expect(&onnx__type_proto__descriptor, "optional_type", F_TYPE_OPTIONAL);
    expect(&onnx__type_proto__sequence__descriptor, "elem_type", F_TYPE_SEQUENCE_ELEM);
    expect(&onnx__type_proto__map__descriptor, "key_type", F_TYPE_MAP_KEY);
    expect(&onnx__type_proto__map__descriptor, "value_type", F_TYPE_MAP_VALUE);
    expect(&onnx__type_proto__optional__descriptor, "elem_type", F_TYPE_OPTIONAL_ELEM);
    expect(&onnx__tensor_proto__descriptor, "dims", F_TENSOR_DIMS);
    expect(&onnx__tensor_proto__descriptor, "data_type", F_TENSOR_DATA_TYPE);
    expect(&onnx__tensor_proto__descriptor, "float_data", F_TENSOR_FLOAT_DATA);
    expect(&onnx__tensor_proto__descriptor, "int32_data", F_TENSOR_INT32_DATA);
    expect(&onnx__tensor_proto__descriptor, "string_data", F_TENSOR_STRING_DATA);
    expect(&onnx__tensor_proto__descriptor, "int64_data", F_TENSOR_INT64_DATA);
    expect(&onnx__tensor_proto__descriptor, "name", F_TENSOR_NAME);
    expect(&onnx__tensor_proto__descriptor, "raw_data", F_TENSOR_RAW_DATA);
    expect(&onnx__tensor_proto__descriptor, "double_data", F_TENSOR_DOUBLE_DATA);
    expect(&onnx__tensor_proto__descriptor, "uint64_data", F_TENSOR_UINT64_DATA);
    expect(&onnx__tensor_proto__descriptor, "external_data", F_TENSOR_EXTERNAL_DATA);
    expect(&onnx__tensor_proto__descriptor, "data_location", F_TENSOR_DATA_LOCATION);
    expect(&onnx__sparse_tensor_proto__descriptor, "values", F_SPARSE_VALUES);
    expect(&onnx__sparse_tensor_proto__descriptor, "indices", F_SPARSE_INDICES);
    expect(&onnx__sparse_tensor_proto__descriptor, "dims", F_SPARSE_DIMS);
    expect(&onnx__function_proto__descriptor, "name", F_FUNC_NAME);
    expect(&onnx__function_proto__descriptor, "input", F_FUNC_INPUT);
    expect(&onnx__function_proto__descriptor, "output", F_FUNC_OUTPUT);
    expect(&onnx__function_proto__descriptor, "attribute", F_FUNC_ATTRIBUTE);
    expect(&onnx__function_proto__descriptor, "node", F_FUNC_NODE);
    expect(&onnx__function_proto__descriptor, "opset_import", F_FUNC_OPSET_IMPORT);
    expect(&onnx__function_proto__descriptor, "domain", F_FUNC_DOMAIN);
    expect_newer(&onnx__node_proto__descriptor, "overload", F_NODE_OVERLOAD);
    expect_newer(&onnx__function_proto__descriptor, "attribute_proto", F_FUNC_ATTRIBUTE_PROTO);
    expect_newer(&onnx__function_proto__descriptor, "overload", F_FUNC_OVERLOAD);
    assert_int_equal(ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL, ONNX_DATA_LOCATION_EXTERNAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields__match_onnx_proto),
    };
    return cmocka_run_group_tests_name("onnx_fields", tests, NULL, NULL);
}
