/*
 * readers/model.h - what an opmap_model is: the IR plus its context.
 */
#ifndef OM_READERS_MODEL_H
#define OM_READERS_MODEL_H

#include <opmap/model.h>

#include "ir/ir.h"

struct opmap_model {
    ir_model ir;
    opmap_ctx *ctx;
};

/* opmap_model_open_file with the file view's whole-file threshold and chunk size given
 * (tests read every model through tiny chunks). */
int om_model_open_file_view(opmap_model **out, opmap_ctx *ctx, const char *path,
                            uint64_t small_max, unsigned chunk_shift, opmap_error *err);

#endif /* OM_READERS_MODEL_H */
