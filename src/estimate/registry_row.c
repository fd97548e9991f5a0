/*
 * estimate/registry_row.c - the names of a registry report's columns (registry_row.h),
 * shared by its writer and its reader.
 */
#include "registry_row.h"

static const char *const model_columns[OM_REG_MODEL_COLUMNS] = {
    "file", "verdict", "coverage", "effort", "operators", "instances", "found", "placed",
    "on_npu", "largest_segment", "findings", "failing",
};

static const char *const op_columns[OM_REG_OP_COLUMNS] = {
    "domain", "op_type", "status", "becomes", "models", "instances", "effort", "budget",
    "flags",
};

const char *om_reg_model_column(size_t i)
{
    return i < OM_REG_MODEL_COLUMNS ? model_columns[i] : NULL;
}

const char *om_reg_op_column(size_t i)
{
    return i < OM_REG_OP_COLUMNS ? op_columns[i] : NULL;
}
