/*
 * readers/reader.h - format detection and dispatch to the format readers.
 */
#ifndef OM_READER_H
#define OM_READER_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "ir/ir.h"

struct om_mapped;

/* The format the bytes look like (content, not file name); `view`: see core/mapfile.h. */
opmap_format om_detect_format(const unsigned char *data, uint64_t size, struct om_mapped *view);

/* Detects the format and fills `m` with the matching reader. */
int om_read_model(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                  opmap_error *err);

/* Checks, with stat() only, that each external-data side file exists and is long enough;
 * the answer goes into each tensor's ext_check. */
void om_check_external(ir_model *m, const char *model_path);

#endif /* OM_READER_H */
