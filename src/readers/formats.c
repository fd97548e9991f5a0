/*
 * readers/formats.c - the registry of model formats: the one table saying, per format, its
 * name, the file name endings a directory search reads, how its bytes are recognised, its
 * reader and its traits (formats.h). Detection by name and by content is in detect.c.
 */
#include <string.h>

#include "core/info.h"
#include "core/mapfile.h"
#include "readers/export/export_reader.h"
#include "readers/onnx/onnx_reader.h"
#include "readers/torchscript/torchscript_reader.h"
#include "formats.h"

/* Zip archives ("PK\3\4", or the end record of an empty one): torch.export programs and
 * TorchScript archives, told apart by their readers. */
static int sniff_zip(const unsigned char *data, uint64_t size, om_mapped *view)
{
    om_need(view, 0, 4);
    return size >= 4 && (memcmp(data, "PK\003\004", 4) == 0 || memcmp(data, "PK\005\006", 4) == 0);
}

/* Text starting "graph(" after blanks (at most 4096 of them): str(module.graph). */
static int sniff_graph_text(const unsigned char *data, uint64_t size, om_mapped *view)
{
    uint64_t i = 0;
    while (i < size && i < 4096 && (om_need(view, i, 1), data[i] == ' ' || data[i] == '\t' ||
                                    data[i] == '\n' || data[i] == '\r'))
        i++;
    om_need(view, i, 6);
    return size - i >= 6 && memcmp(data + i, "graph(", 6) == 0;
}

static int read_export(ir_model *m, const unsigned char *data, uint64_t size,
                       const opmap_limits *lim, opmap_error *err, int *handled)
{
    return om_export_read(m, data, size, lim, err, handled);
}

static int read_ts_archive(ir_model *m, const unsigned char *data, uint64_t size,
                           const opmap_limits *lim, opmap_error *err, int *handled)
{
    *handled = 1;
    return om_ts_archive_read(m, data, size, lim, err);
}

static int read_graph_text(ir_model *m, const unsigned char *data, uint64_t size,
                           const opmap_limits *lim, opmap_error *err, int *handled)
{
    *handled = 1;
    om_need(m->input, 0, size); /* text: every byte is read */
    return om_ts_graph_read(m, data, size, lim, err);
}

static int read_onnx(ir_model *m, const unsigned char *data, uint64_t size,
                     const opmap_limits *lim, opmap_error *err, int *handled)
{
    *handled = 1;
    return om_onnx_read(m, data, size, lim, err);
}

#define ATC OPMAP_FORMAT_TRAIT_ATC
#define ATEN OPMAP_FORMAT_TRAIT_ATEN

/* In the order a model's bytes are tried (om_format_probe): the torch.export reader takes
 * the zips laid out as torch.export.load reads them (and AOTInductor packages, to refuse
 * them), any other zip is TorchScript's, whose reader also tells torch.save checkpoints
 * and lite bytecode apart; ONNX takes anything left, and its reader says clearly when the
 * bytes are not a ModelProto. Python sources are never opened as a model. */
static const om_format formats[] = {
    { OPMAP_FORMAT_TORCH_EXPORT, "torch-export", "torch.export programs, as torch.export.save writes them",
      ".pt2", ATEN, 0, sniff_zip, read_export,
      "model = torch.export.load(", ").module().to(\"npu\")  # and every input .to(\"npu\")" },
    { OPMAP_FORMAT_TORCHSCRIPT, "torchscript", "TorchScript archives, as torch.jit.save writes them",
      ".pt .ptl", ATEN, 0, sniff_zip, read_ts_archive,
      "model = torch.jit.load(", ").npu()  # and every input .npu()" },
    { OPMAP_FORMAT_TORCHSCRIPT_GRAPH, "torchscript-graph",
      "printed TorchScript graphs: text starting graph(, as str(module.inlined_graph) "
      "prints it", ".txt",
      ATEN | OPMAP_FORMAT_TRAIT_PRINTED, 1, sniff_graph_text, read_graph_text,
      "model = model.npu()  # the module the graph was printed from; and every input .npu()",
      NULL },
    { OPMAP_FORMAT_ONNX, "onnx", "ONNX models", ".onnx", ATC, 0, NULL, read_onnx, NULL, NULL },
    { OPMAP_FORMAT_PYTHON, "python", "the training code: Python sources, and CUDA files",
      ".py .cu .cuh", OPMAP_FORMAT_TRAIT_SOURCES, 0, NULL, NULL, NULL, NULL },
};

static const om_format unknown = { OPMAP_FORMAT_UNKNOWN, "unknown", "", "", 0, 0, NULL, NULL,
                                   NULL, NULL };

const om_format *om_format_of(opmap_format id)
{
    size_t i;
    for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (formats[i].id == id)
            return &formats[i];
    return &unknown;
}

int om_format_has(opmap_format id, unsigned trait)
{
    return (om_format_of(id)->traits & trait) != 0;
}

const om_format *om_format_probe(size_t i)
{
    size_t k, n = 0;
    for (k = 0; k < sizeof(formats) / sizeof(formats[0]); k++)
        if (formats[k].read && n++ == i)
            return &formats[k];
    return NULL;
}

const char *opmap_format_name(opmap_format format)
{
    return om_format_of(format)->name;
}

int opmap_format_info_get(opmap_format format, opmap_format_info *out)
{
    const om_format *f = om_format_of(format);
    opmap_format_info info;
    if (f->id == OPMAP_FORMAT_UNKNOWN)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.name = f->name;
    info.title = f->title;
    info.extensions = f->extensions;
    info.traits = f->traits;
    return OM_INFO_FILL(out, &info, opmap_format_info, traits);
}
