/*
 * readers/detect.c - which reader a model's bytes go to.
 *
 * Zip archives ("PK\3\4") go to the torch.export reader first, which takes those laid out
 * as torch.export.load reads them (and AOTInductor packages, to refuse them); any other zip
 * is read as TorchScript, whose reader also tells torch.save checkpoints and lite bytecode
 * apart. Text starting with "graph(" is a
 * printed TorchScript graph. A pickle starting with torch's legacy magic number is an old
 * (non-zip) torch.save file. Anything else is tried as ONNX, whose reader says clearly when
 * the bytes are not a ModelProto.
 */
#include <string.h>

#include "core/err.h"
#include "core/mapfile.h"
#include "readers/export/export_reader.h"
#include "readers/onnx/onnx_reader.h"
#include "reader.h"
#include "readers/torchscript/torchscript_reader.h"

opmap_format om_detect_format(const unsigned char *data, uint64_t size, om_mapped *view)
{
    uint64_t i = 0;
    om_need(view, 0, 16);
    if (size >= 4 && (memcmp(data, "PK\003\004", 4) == 0 ||
                      memcmp(data, "PK\005\006", 4) == 0))
        return OPMAP_FORMAT_TORCHSCRIPT;
    while (i < size && i < 4096 && (om_need(view, i, 1), data[i] == ' ' || data[i] == '\t' ||
                                    data[i] == '\n' || data[i] == '\r'))
        i++;
    om_need(view, i, 6);
    if (size - i >= 6 && memcmp(data + i, "graph(", 6) == 0)
        return OPMAP_FORMAT_TORCHSCRIPT_GRAPH;
    return OPMAP_FORMAT_ONNX;
}

/* torch.save before 1.6 (or with _use_new_zipfile_serialization=False): a pickle whose
 * first value is the long 0x1950a86a20f9469cfc6c. */
static int is_legacy_torch_save(const unsigned char *data, uint64_t size)
{
    static const unsigned char magic[] = { 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20,
                                           0x6a, 0xa8, 0x50, 0x19 };
    return size >= 2 + sizeof(magic) && data[0] == 0x80 &&
           memcmp(data + 2, magic, sizeof(magic)) == 0;
}

int om_read_model(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                  opmap_error *err)
{
    if (size == 0)
        return om_fail(err, OPMAP_EFORMAT, m->name, "empty file: not a model");
    om_need(m->input, 0, 16); /* the legacy magic number */
    if (is_legacy_torch_save(data, size))
        return om_fail(err, OPMAP_EUNSUPPORTED, m->name,
                       "a legacy torch.save file (weights or a pickled module): it holds "
                       "weights, not a graph; export the model with "
                       "torch.jit.trace(model, example_inputs).save(path) or torch.onnx.export");
    switch (om_detect_format(data, size, m->input)) {
    case OPMAP_FORMAT_TORCHSCRIPT: {
        int handled, rc = om_export_read(m, data, size, lim, err, &handled);
        return handled ? rc : om_ts_archive_read(m, data, size, lim, err);
    }
    case OPMAP_FORMAT_TORCHSCRIPT_GRAPH:
        om_need(m->input, 0, size); /* text: every byte is read */
        return om_ts_graph_read(m, data, size, lim, err);
    default:
        return om_onnx_read(m, data, size, lim, err);
    }
}
