/*
 * readers/detect.c - which reader a model's bytes go to.
 *
 * Zip archives ("PK\3\4") are TorchScript (or a weights-only torch.save checkpoint);
 * text starting with "graph(" is a printed TorchScript graph; anything else is tried as
 * ONNX, whose reader says clearly when the bytes are not a ModelProto.
 */
#include <string.h>

#include "../core/err.h"
#include "onnx/onnx_reader.h"
#include "reader.h"

opmap_format om_detect_format(const unsigned char *data, uint64_t size)
{
    uint64_t i = 0;
    if (size >= 4 && memcmp(data, "PK\003\004", 4) == 0)
        return OPMAP_FORMAT_TORCHSCRIPT;
    while (i < size && i < 4096 && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' ||
                                    data[i] == '\r'))
        i++;
    if (size - i >= 6 && memcmp(data + i, "graph(", 6) == 0)
        return OPMAP_FORMAT_TORCHSCRIPT_GRAPH;
    return OPMAP_FORMAT_ONNX;
}

int om_read_model(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                  opmap_error *err)
{
    if (size == 0)
        return om_fail(err, OPMAP_EFORMAT, m->name, "empty file: not a model");
    switch (om_detect_format(data, size)) {
    case OPMAP_FORMAT_TORCHSCRIPT:
        return om_fail(err, OPMAP_EUNSUPPORTED, m->name,
                       "zip archive (TorchScript?): reading TorchScript archives is not "
                       "implemented yet; export to ONNX with torch.onnx.export");
    case OPMAP_FORMAT_TORCHSCRIPT_GRAPH:
        return om_fail(err, OPMAP_EUNSUPPORTED, m->name,
                       "TorchScript graph text is not read yet; export to ONNX with "
                       "torch.onnx.export");
    default:
        return om_onnx_read(m, data, size, lim, err);
    }
}
