/*
 * ir/values.h - static facts about every value: dtype, rank, constness.
 *
 * Runs once per model after reading. Sources, in order of trust: what the model declares
 * (graph inputs/outputs, value_info, initializers, TorchScript's printed output types),
 * then per-operator rules for the common ONNX operators (element-wise ops keep their
 * input's type, comparisons give bool, Shape/ArgMax give int64, Cast gives `to`, ...).
 * Subgraphs see their enclosing graphs' values. Where nothing says, the dtype stays
 * unknown: opmap never guesses.
 */
#ifndef OM_VALUES_H
#define OM_VALUES_H

#include <opmap/error.h>

#include "ir.h"

int om_values_infer(ir_model *m, opmap_error *err);

/* The dtype an ai.onnx operator's output `out` has, given its inputs' facts; 0 if unknown. */
int32_t om_values_rule_dtype(const ir_node *n, uint32_t out);

/* The rank of output 0 the operator gives from its inputs' (rank-preserving operators,
 * broadcasting elementwise ones), or -1 when it cannot be told. */
int32_t om_values_rule_rank(const ir_node *n);

#endif /* OM_VALUES_H */
