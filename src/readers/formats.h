/*
 * readers/formats.h - the registry of model formats (formats.c): one entry per format with
 * its name, the file name endings a directory search reads, how its bytes are recognised,
 * its reader, and its traits (OPMAP_FORMAT_TRAIT_*), which every later stage asks instead
 * of naming formats. Adding a format: docs/design.md, "Adding a format".
 */
#ifndef OM_READERS_FORMATS_H
#define OM_READERS_FORMATS_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>
#include <opmap/model.h>

#include "ir/ir.h"

struct om_mapped;

typedef struct om_format {
    opmap_format id;
    const char *name;         /* opmap_format_name(): "onnx" */
    const char *title;        /* "ONNX models" */
    const char *extensions;   /* ".pt .ptl": what a directory search reads, "" for none */
    unsigned traits;          /* OPMAP_FORMAT_TRAIT_* */
    /* its extensions alone do not say it: a file so named is this format only when its
     * first bytes are (sniff), as a .txt is a printed graph only when it starts graph( */
    uint8_t by_content;
    /* 1 when `data` looks like this format (content, not name), NULL: anything does (the
     * last one tried); `view` is the file view the bytes come from (core/mapfile.h) */
    int (*sniff)(const unsigned char *data, uint64_t size, struct om_mapped *view);
    /* fills m from the bytes; *handled = 0 leaves them to the next format whose sniff takes
     * them (a zip that is no torch.export program goes on to the TorchScript reader); NULL
     * for a format that is not opened as a model (Python sources) */
    int (*read)(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                opmap_error *err, int *handled);
    /* the line of the torch_npu commands that loads the model on the NPU (ATen formats):
     * npu_load, then the model's file name as a Python string when npu_load_after is not
     * NULL, then npu_load_after */
    const char *npu_load, *npu_load_after;
} om_format;

/* The entry of a format; the unknown format's (no name but "unknown", no traits) for any
 * value that is none. Never NULL. */
const om_format *om_format_of(opmap_format id);

/* 1 when the format has the trait (OPMAP_FORMAT_TRAIT_*). */
int om_format_has(opmap_format id, unsigned trait);

/* The i-th format in the order a model's bytes are tried (zip readers before text before
 * ONNX, which takes anything), NULL past the last. */
const om_format *om_format_probe(size_t i);

/* Detects the format of the bytes and fills `m` with its reader. */
int om_read_model(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                  opmap_error *err);

#endif /* OM_READERS_FORMATS_H */
