/*
 * opmap/model.h - opening an exported model.
 *
 * opmap reads a model's structure only: graphs, nodes, attributes, value types, and the
 * headers of initializers. Weight payloads are stepped over, never copied, so memory does
 * not grow with the weights, and external-data side files are never opened.
 *
 * The format is detected from the content, not the file name. Which files a directory
 * search reads is decided by name (and, for printed graphs, the first bytes):
 * opmap_format_detect(). The formats, their names, extensions and traits are one table in
 * the library (opmap_format_info_get).
 */
#ifndef OPMAP_MODEL_H
#define OPMAP_MODEL_H

#include "common.h"
#include "context.h"
#include "error.h"

OPMAP_BEGIN_DECL

/** An opaque, immutable model; open with opmap_model_open_*(), release with opmap_model_free(). */
typedef struct opmap_model opmap_model;

/** Model formats. */
typedef enum opmap_format {
    OPMAP_FORMAT_UNKNOWN = 0,           /**< not a model opmap reads */
    OPMAP_FORMAT_ONNX = 1,              /**< ONNX ModelProto (protobuf) */
    OPMAP_FORMAT_TORCHSCRIPT = 2,       /**< torch.jit.save archive (.pt / .ptl zip) */
    OPMAP_FORMAT_TORCHSCRIPT_GRAPH = 3, /**< text printed by str(module.graph) */
    OPMAP_FORMAT_TORCH_EXPORT = 4,      /**< torch.export.save program (.pt2 zip) */
    OPMAP_FORMAT_PYTHON = 5             /**< Python sources (a project), opmap_scan_sources() */
} opmap_format;

/** The number of opmap_format values, OPMAP_FORMAT_UNKNOWN included: the formats are 1 to
 *  OPMAP_FORMAT_COUNT - 1. */
#define OPMAP_FORMAT_COUNT 6

/**
 * Opens and reads a model file.
 *
 * The file is read, never memory-mapped (a mapped file that another process truncates
 * would end the process with SIGBUS): small files whole, larger ones in chunks as the
 * reader needs them, so weight payloads are never read. A file that shrinks or changes
 * while it is read fails with OPMAP_EIO, "file changed while being read". The file is
 * closed before the call returns; the model keeps no reference to it.
 *
 * @param[out] out  receives the model; the caller owns it (opmap_model_free).
 * @param ctx       the context whose allocator and limits apply.
 * @param path      the file to read.
 * @return OPMAP_OK; OPMAP_EIO (cannot open or read, err->sys_errno set; or the file changed
 *         while being read); OPMAP_EFORMAT (malformed,
 *         truncated, inconsistent: err->offset says where); OPMAP_EUNSUPPORTED (e.g. a weights-only
 *         checkpoint); OPMAP_ELIMIT; OPMAP_ENOMEM.
 */
OPMAP_API int opmap_model_open_file(opmap_model **out, opmap_ctx *ctx, const char *path,
                                    opmap_error *err);

/**
 * Reads a model from memory. `data` is only borrowed for the duration of the call.
 *
 * @param name  a name for messages and reports (e.g. the original file name), or NULL for "<memory>".
 * @return as opmap_model_open_file(), without OPMAP_EIO.
 */
OPMAP_API int opmap_model_open_memory(opmap_model **out, opmap_ctx *ctx, const void *data,
                                      size_t size, const char *name, opmap_error *err);

/** Releases a model; NULL is a no-op. */
OPMAP_API void opmap_model_free(opmap_model *model);

/** @return the model's format. */
OPMAP_API opmap_format opmap_model_format(const opmap_model *model);

/** @return a short name for a format: "onnx", "torchscript", "torchscript-graph", "torch-export", "python", "unknown". */
OPMAP_API const char *opmap_format_name(opmap_format format);

/** A trait of a format (opmap_format_info.traits): its operators are ONNX's, answered as
 *  ATC converts them (the ATC command, ATC's pre-check, the ATC advice). */
#define OPMAP_FORMAT_TRAIT_ATC 0x1u
/** A trait: its operators are ATen's, answered as torch_npu runs them (the torch_npu
 *  commands; torchair's converters in graph mode). */
#define OPMAP_FORMAT_TRAIT_ATEN 0x2u
/** A trait: source code, not a graph (patterns and their places; nothing is placed). */
#define OPMAP_FORMAT_TRAIT_SOURCES 0x4u
/** A trait: text a program printed, read whole (its calls may be left uninlined). */
#define OPMAP_FORMAT_TRAIT_PRINTED 0x8u

/** What opmap knows of a format. Versioned: set `size` (docs/api.md). */
typedef struct opmap_format_info {
    size_t size;            /**< set by the caller: sizeof(opmap_format_info) */
    const char *name;       /**< as opmap_format_name(): "onnx" */
    const char *title;      /**< for people: "ONNX models" */
    const char *extensions; /**< the name endings a directory search reads, space-separated
                                 (".pt .ptl"); a printed graph's ".txt" only by its start */
    unsigned traits;        /**< OPMAP_FORMAT_TRAIT_* bits */
} opmap_format_info;

/**
 * Fills `out` for one format (1 to OPMAP_FORMAT_COUNT - 1). Every string is static.
 * @return OPMAP_OK, or OPMAP_EINVAL for another value, a NULL `out` or out->size too small.
 */
OPMAP_API int opmap_format_info_get(opmap_format format, opmap_format_info *out);

/** opmap_format_detect() flag: decide by the name alone and never open the file (a name
 *  only the content settles, a .txt, is then OPMAP_FORMAT_UNKNOWN). */
#define OPMAP_DETECT_NAME_ONLY 0x1u

/**
 * What a file is, as `opmap scan DIR` decides which files below DIR to read: by the
 * extension of `path`, in any case (.onnx, .pt, .ptl, .pt2; .py, .cu and .cuh are Python
 * sources), and for a name its extension does not settle (.txt: a printed TorchScript
 * graph, or any other text) by the first bytes of the file, which is opened only then,
 * only when it is a regular file, and only without OPMAP_DETECT_NAME_ONLY.
 *
 * A model opened with opmap_model_open_file() is read by its content whatever its name.
 *
 * @return the format; OPMAP_FORMAT_UNKNOWN for a file opmap does not read, one that cannot
 *         be opened, or a NULL path.
 */
OPMAP_API opmap_format opmap_format_detect(const char *path, unsigned flags);

/** @return the name the model was opened under (path or given name); borrowed. */
OPMAP_API const char *opmap_model_name(const opmap_model *model);

/** Structure counts of a model, all graphs and functions included. Versioned: set `size`
 *  (docs/api.md). */
typedef struct opmap_model_stats {
    size_t size;            /**< set by the caller: sizeof(opmap_model_stats) */
    uint64_t graphs;        /**< main graph + every nested subgraph (+ training graphs) */
    uint64_t nodes;         /**< nodes in all graphs and function bodies, each counted once */
    uint64_t functions;     /**< model-local functions */
    uint64_t initializers;  /**< initializers in all graphs */
    uint64_t external_tensors; /**< tensors whose data lives in a side file */
    uint64_t weight_bytes;  /**< payload bytes stepped over (embedded) or referenced (external) */
} opmap_model_stats;

/**
 * Fills `out` with the model's structure counts.
 * @return OPMAP_OK, or OPMAP_EINVAL when an argument is NULL or out->size is too small.
 */
OPMAP_API int opmap_model_stats_get(const opmap_model *model, opmap_model_stats *out);

OPMAP_END_DECL

#endif /* OPMAP_MODEL_H */
