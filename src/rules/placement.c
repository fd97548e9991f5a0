/*
 * rules/placement.c - where an instance runs, for the NPU segments (see placement.h).
 */
#include "placement.h"

#include <string.h>

#include <opmap/table.h>

static int integer_dtype(int dt)
{
    return dt == IR_DT_INT64 || dt == IR_DT_INT32 || dt == IR_DT_INT16 || dt == IR_DT_INT8 ||
           dt == IR_DT_UINT8 || dt == IR_DT_UINT16 || dt == IR_DT_UINT32 ||
           dt == IR_DT_UINT64 || dt == IR_DT_BOOL;
}

/*
 * Operators that read a tensor's shape, never its data, or only relabel it: GE runs its
 * local Reshape/Squeeze/Unsqueeze on the tensor description, and the data stays on the
 * device.
 */
static int reads_metadata_only(const ir_node *n)
{
    if (strcmp(n->domain, "ai.onnx") == 0)
        return strcmp(n->op, "Shape") == 0 || strcmp(n->op, "Size") == 0 ||
               strcmp(n->op, "Reshape") == 0 || strcmp(n->op, "Squeeze") == 0 ||
               strcmp(n->op, "Unsqueeze") == 0 || strcmp(n->op, "Flatten") == 0;
    if (strcmp(n->domain, "aten") == 0)
        return strcmp(n->op, "size") == 0 || strcmp(n->op, "dim") == 0 ||
               strcmp(n->op, "numel") == 0;
    return 0;
}

/*
 * Where an instance runs. Host and AI CPU operators that compute on integer or boolean
 * tensors are shape and index plumbing (Shape -> Gather -> Unsqueeze -> Concat -> Reshape):
 * what crosses to the host is a few integers, not activations, and for static shapes GE
 * folds them at compile time, so they do not split the NPU graph; nor does reading a
 * shape (Shape, Size). Everything else that
 * runs off the NPU, or has no Ascend implementation, does.
 */
int om_placement(const char *engine, const ir_node *n, int status)
{
    int off_npu = strcmp(engine, "ai_cpu") == 0 || strcmp(engine, "host") == 0 ||
                  strcmp(engine, "cpu_fallback") == 0;
    if (status == OPMAP_OP_STRUCTURAL)
        return OM_PLACE_NEUTRAL;
    if (status >= OPMAP_OP_REWRITE)
        return OM_PLACE_BREAK;
    if (off_npu && strcmp(engine, "cpu_fallback") != 0 &&
        ((n->n_inputs && n->in_facts && integer_dtype(n->in_facts[0].dtype)) ||
         reads_metadata_only(n)))
        return OM_PLACE_NEUTRAL;
    return off_npu ? OM_PLACE_BREAK : OM_PLACE_NPU;
}

const char *om_break_why(const char *engine, int status)
{
    if (status == OPMAP_OP_UNMAPPED)
        return "unmapped: no row in the table";
    if (status == OPMAP_OP_REWRITE)
        return "rewrite: no Ascend implementation";
    if (strcmp(engine, "cpu_fallback") == 0)
        return "falls back to the host CPU (torch_npu)";
    if (strcmp(engine, "host") == 0)
        return "runs on the host";
    return "runs on AI CPU";
}
