/*
 * api/model_internal.h - what an opmap_model is: the IR plus its context.
 */
#ifndef OM_MODEL_INTERNAL_H
#define OM_MODEL_INTERNAL_H

#include <opmap/model.h>

#include "../ir/ir.h"

struct opmap_model {
    ir_model ir;
    opmap_ctx *ctx;
};

#endif /* OM_MODEL_INTERNAL_H */
