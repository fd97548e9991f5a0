/*
 * rules/advice.h - the detectors behind the table's advice (docs/table-format.md, "Advice"):
 * patterns in an ONNX model that Ascend's engineers met with an ATC flag or a graph edit, and
 * in an ATen graph, a fused torch_npu kernel their training recipes swapped in.
 *
 * A scan keeps one state per advice entry: om_advice_visit() sees every instance of the main
 * graph, om_advice_finish() decides with the model's inputs whether the advice applies.
 */
#ifndef OM_ADVICE_H
#define OM_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "walker/walker.h"

typedef struct om_advice_state {
    uint64_t count;           /* matches: instances or inputs */
    char value[240];          /* what matched, e.g. "input [batch, 3, 224, 224]" */
    char where[300];          /* the first match's node path */
    size_t value_len;
    uint64_t convs;           /* Conv instances seen */
    int seen_conv;            /* the first Conv of the main graph was looked at */
    char chain[200];          /* ops between the graph input and that Conv */
    int64_t small_cin;        /* the fewest input channels of a Conv weight (0: none seen) */
    uint64_t outputs_extra;   /* of the first 64 graph outputs, those a node takes as input
                                 or that are constants */
    int outputs_checked;      /* the initializers were compared with the outputs */
    uint64_t const_nodes;    /* nodes computing float values from constants alone */
    char const_ops[96];      /* their operators, six at most */
    size_t const_ops_len;
    char const_where[300];   /* the first one's node path */
} om_advice_state;

/* Whether a detector reads this kind of model: the ATC advice graphs ATC converts (`atc`:
 * the model's format has OPMAP_FORMAT_TRAIT_ATC), aten_gelu the ATen graphs of
 * TorchScript and torch.export. */
int om_advice_applies(int detector, int atc);

void om_advice_visit(int detector, om_advice_state *st, const om_visit *v);

/* 1 when the advice applies (st->value and st->where then say where); the main graph's
 * inputs (initializers left out) and outputs. */
int om_advice_finish(int detector, om_advice_state *st, const ir_value *inputs, size_t n_inputs,
                     const ir_value *outputs, size_t n_outputs);

#endif /* OM_ADVICE_H */
