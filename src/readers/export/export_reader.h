/*
 * readers/export/export_reader.h - torch.export programs (.pt2) -> IR.
 *
 * A zip is a torch.export program when it is laid out as torch.export.load decides:
 *  - the PT2 archive (torch.export.save of newer torch, torch.export.pt2_archive): under the
 *    folder of the zip's first entry, `archive_format` holding "pt2", the programs in
 *    `models/<name>.json`, weights and constants under `data/` (never read);
 *  - the earlier layout (a Python zipfile): `serialized_exported_program.json` at the top,
 *    beside `serialized_state_dict.pt`, `serialized_constants.pt` and `version`.
 * A PT2 archive with AOTInductor artifacts (`data/aotinductor/<model>/`) and no program
 * holds compiled kernels, not a graph: refused with OPMAP_EUNSUPPORTED naming what it holds.
 * docs/torch-export.md says what of the schema is read.
 */
#ifndef OM_EXPORT_READER_H
#define OM_EXPORT_READER_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "ir/ir.h"

/*
 * Reads the zip in `data` into `m` if it is a torch.export program or an AOTInductor
 * package (*handled = 1, the return value says how it went); any other zip is left alone
 * (*handled = 0, OPMAP_OK) for the TorchScript reader. A zip whose directory is malformed
 * fails here, with the zip reader's message.
 */
int om_export_read(ir_model *m, const unsigned char *data, uint64_t size,
                   const opmap_limits *lim, opmap_error *err, int *handled);

/* One program's JSON (an ExportedProgram) into `m`, its names interned in `in` (one for
 * the whole model: later stages compare operator names by pointer). `entry` names the JSON
 * in errors; `label` is the program's path root ("main" for the first; other programs of a
 * package become extra graphs under their model name). */
int om_export_program(ir_model *m, ir_interner *in, const char *entry, const char *label,
                      const char *json, size_t len, const opmap_limits *lim, opmap_error *err);

#endif /* OM_EXPORT_READER_H */
