/*
 * signature/signature.h - what one operator instance is, as a per-operator test sees it:
 * the operator as the scan answers it, each argument (a tensor's dtype and shape, a
 * constant's value) and, for ONNX, the node's attributes.
 *
 * Two instances with the same signature are the same test: `opmap testgen` writes one test
 * per distinct signature, and `opmap scan --results` matches what those tests measured
 * back to the instances by the signature's text, never by position. The text is canonical
 * (attributes sorted, numbers in one spelling), so the same model gives the same text on
 * every machine.
 */
#ifndef OM_SIGNATURE_H
#define OM_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

/* A constant tensor's values are part of its signature up to this many elements (shapes,
 * axes, scales, pads); a larger one (weights) is its dtype and shape. */
#define OM_SIG_MAX_VALUES 16

/* Arguments kept per signature; more make the signature untestable (om_sig.more). */
#define OM_SIG_MAX_ARGS 64
/* The longest signature text, NUL included: a longer one ends in "...#<hash of all of it>". */
#define OM_SIG_TEXT_MAX 2048

enum {
    OM_SIG_UNKNOWN = 0, /* a value nothing in the model states (computed at run time) */
    OM_SIG_TENSOR,      /* one tensor: fact */
    OM_SIG_TENSORS,     /* a list of n tensors: fact[0, n) */
    OM_SIG_OMITTED,     /* an ONNX optional input left out */
    OM_SIG_NONE,
    OM_SIG_BOOL,        /* value->i */
    OM_SIG_INT,         /* value->i */
    OM_SIG_FLOAT,       /* value->f */
    OM_SIG_STRING,      /* value->s */
    OM_SIG_INTS,        /* value->ints */
    OM_SIG_FLOATS       /* value->floats */
};

typedef struct om_sig_arg {
    uint8_t kind;            /* OM_SIG_* */
    const char *name;        /* an ATen keyword argument's name, or NULL */
    const ir_fact *fact;     /* OM_SIG_TENSOR(S): the facts of the (first) tensor */
    uint32_t n;              /* OM_SIG_TENSORS: how many */
    const ir_attr *value;    /* constants: the value */
} om_sig_arg;

typedef struct om_sig {
    const char *domain, *op; /* as the scan answers it ("aten", "fft_rfft" for an ATen
                                fallback node) */
    const char *overload;    /* an ATen overload ("default", "Tensor"), or NULL */
    int64_t opset;           /* of the node's domain, 0 for ATen */
    int aten;                /* 1: an ATen call's arguments (ir_node.args); 0: the node's
                                inputs, and its attributes (ONNX) */
    const ir_node *node;     /* borrowed: valid while the model is */
    om_sig_arg args[OM_SIG_MAX_ARGS];
    uint32_t n_args;
    uint32_t more;           /* arguments past OM_SIG_MAX_ARGS, left out */
} om_sig;

/* The signature of node n, answered as domain::op at opset. */
void om_sig_build(om_sig *s, const ir_node *n, const char *domain, const char *op,
                  int64_t opset);

/* Its canonical text into buf (size >= 64; OM_SIG_TEXT_MAX holds any); returns its length. */
size_t om_sig_text(const om_sig *s, char *buf, size_t size);

/* The id `opmap testgen` gives the test of signature text `sig` of operator `op`
 * ("aten_mm_ced8de5c8ca8": the operator as an identifier, 12 hex digits of the text's hash),
 * into id[size] (60 bytes hold it); testgen adds "_<n>" to the rarer second of two cases
 * sharing one. Results files name their tests by it (verify/results_read.c checks it). */
void om_sig_test_id(const char *op, const char *sig, char *id, size_t size);

/* Dimension d of a tensor's facts: 1 with *value (>= 0) or *param (a symbolic name), or 0
 * when the model does not say (the rank is unknown, or the dimension is). */
int om_sig_dim(const ir_fact *f, int32_t d, int64_t *value, const char **param);

/* The rank of a tensor's facts, from a declaration or its constant; -1 when unknown. */
int32_t om_sig_rank(const ir_fact *f);

/* Attributes kept per signature: a node with more is untestable (its text says how many). */
#define OM_SIG_MAX_ATTRS 64

/* The node's attributes in name order (ties in file order), for canonical text, into out
 * (room for OM_SIG_MAX_ATTRS); returns how many, or 0 when there are more than that. */
size_t om_sig_attrs(const ir_node *n, const ir_attr **out);

/* A double as its shortest text that reads back to it ("1e-05", "0.1", "1.0", "inf",
 * "-inf", "nan"); `single`: the shortest that reads back as the same float (ONNX float
 * attributes, stored at that precision). */
void om_sig_float(double v, int single, char *buf, size_t size);

/* An integral value of an integer tensor as its exact decimal digits (INT64_MAX, stored as
 * the double 2^63, as "9223372036854775808"): 1, or 0 when v is not a whole number there. */
int om_sig_integer(double v, char *buf, size_t size);

#endif /* OM_SIGNATURE_H */
