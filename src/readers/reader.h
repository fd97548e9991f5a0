/*
 * readers/reader.h - what the model object asks of the readers besides the format registry
 * (formats.h): the external-data side files check.
 */
#ifndef OM_READER_H
#define OM_READER_H

#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "ir/ir.h"

/* Checks, with stat() only, that each external-data side file exists and is long enough;
 * the answer goes into each tensor's ext_check. */
void om_check_external(ir_model *m, const char *model_path);

#endif /* OM_READER_H */
