/*
 * readers/torchscript/torchscript_reader.h - TorchScript input: archives and graph text -> IR.
 *
 * om_ts_archive_read reads a torch.jit.save zip as torch.jit.load reads it: its code/
 * entries, their .debug_pkl companions, data.pkl (the root object's class) and the version
 * entry; never data/.
 * It also recognizes zips that are not TorchScript (a torch.save checkpoint, a .pt2 from
 * torch.export, a lite-interpreter bytecode archive) and says so (OPMAP_EUNSUPPORTED).
 * om_ts_graph_read reads the text str(module.graph) / str(module.inlined_graph) prints.
 * Both fill `m` (whose name, mem and arena are set up); errors name m->name, the archive
 * entry and line.
 */
#ifndef OM_TS_TORCHSCRIPT_READER_H
#define OM_TS_TORCHSCRIPT_READER_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "ir/ir.h"

int om_ts_archive_read(ir_model *m, const unsigned char *data, uint64_t size,
                       const opmap_limits *lim, opmap_error *err);

int om_ts_graph_read(ir_model *m, const unsigned char *data, uint64_t size,
                     const opmap_limits *lim, opmap_error *err);

#endif /* OM_TS_TORCHSCRIPT_READER_H */
