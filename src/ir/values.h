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

/* shapes.c: the dimensions of an ai.onnx operator's output 0 from its inputs' (elementwise,
 * broadcasting, Conv and pools, MatMul, Gemm, Flatten, Reshape by a constant shape,
 * Transpose, Concat, (Un)Squeeze, reductions), into *dims (A's) and *rank: 1; 0 when it
 * cannot be told; -1 when memory ran out. Unknown dimensions stay unknown. */
int om_values_rule_dims(const ir_node *n, om_arena *A, int32_t *rank, const ir_dim **dims);

/* shapes.c: the rank of a Reshape's output from the length of its target (the `shape`
 * input, or attribute before opset 5) where the target's values are not known: a constant's
 * or shape data's length, a stated or inferred 1-D size, a Shape of a tensor of known rank, a
 * Concat of such pieces; -1 when the length is not known or past the ranks shapes.c computes.
 * For ir_fact.rank_only: rank conditions only, no dimension. */
int32_t om_values_rule_reshape_rank(const ir_node *n);

/* shapes.c: the integer values of output 0 of shape arithmetic (Shape of a known shape,
 * and Gather, Concat, (Un)Squeeze, Cast, Identity, Add, Sub, Mul, Div of known values) into
 * *data (A's): 1; 0 when not known; -1 when memory ran out. For the shapes downstream
 * only (ir_fact.shape_data). */
int om_values_rule_data(const ir_node *n, om_arena *A, const ir_tensor **data);

#endif /* OM_VALUES_H */
