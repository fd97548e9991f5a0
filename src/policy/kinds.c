/*
 * policy/kinds.c - the finding kinds a result has (see kinds.h).
 */
#include <string.h>

#include "kinds.h"

static const struct {
    unsigned flag, kind;
} flag_kinds[] = {
    { OPMAP_FLAG_PRECISION, OPMAP_FAIL_PRECISION },
    { OPMAP_FLAG_PERFORMANCE, OPMAP_FAIL_PERFORMANCE },
    { OPMAP_FLAG_DYNAMIC_SHAPE, OPMAP_FAIL_DYNAMIC_SHAPE },
    { OPMAP_FLAG_RNG, OPMAP_FAIL_RNG },
    { OPMAP_FLAG_INF_NAN, OPMAP_FAIL_INF_NAN },
    { OPMAP_FLAG_NONDETERMINISTIC, OPMAP_FAIL_NONDETERMINISTIC },
    { OPMAP_FLAG_DEPRECATED, OPMAP_FAIL_DEPRECATED },
};

unsigned om_op_kind(const opmap_op *op)
{
    if (op->source) /* training code: kinds of its own, so a model's gate stays the model's */
        return op->status == OPMAP_OP_UNMAPPED ? OPMAP_FAIL_SOURCE_UNKNOWN
             : op->status == OPMAP_OP_REWRITE ? OPMAP_FAIL_SOURCE_REWRITE
             : op->status == OPMAP_OP_PARTIAL ? OPMAP_FAIL_SOURCE_MANUAL : 0;
    return op->status == OPMAP_OP_UNMAPPED ? OPMAP_FAIL_UNMAPPED
         : op->status == OPMAP_OP_REWRITE ? OPMAP_FAIL_REWRITE
         : op->status == OPMAP_OP_PARTIAL ? OPMAP_FAIL_PARTIAL : 0;
}

unsigned om_flag_kinds(unsigned flags)
{
    unsigned kinds = 0;
    size_t k;
    for (k = 0; k < sizeof(flag_kinds) / sizeof(flag_kinds[0]); k++)
        if (flags & flag_kinds[k].flag)
            kinds |= flag_kinds[k].kind;
    return kinds;
}

unsigned om_risk_kind(const om_risk *k)
{
    /* flag-based risks repeat the operator findings; info-level ones inform */
    if (k->level != OPMAP_DIAG_WARNING || k->from_flag)
        return 0;
    return strcmp(k->kind, "dynamic_shape") == 0 ? OPMAP_FAIL_DYNAMIC_SHAPE
         : strcmp(k->kind, "dtype") == 0 ? OPMAP_FAIL_DTYPE
         : strcmp(k->kind, "external_data") == 0 ? OPMAP_FAIL_EXTERNAL_DATA
         : strcmp(k->kind, "not_inlined") == 0 ? OPMAP_FAIL_NOT_INLINED : 0;
}

unsigned om_result_kinds(const opmap_result *r)
{
    unsigned kinds = 0;
    size_t i;
    for (i = 0; i < r->n_ops; i++)
        kinds |= om_op_kind(r->ops[i]) | om_flag_kinds(r->ops[i]->flags);
    for (i = 0; i < r->risks.len; i++)
        kinds |= om_risk_kind(&OM_VEC_AT(&r->risks, om_risk, i));
    for (i = 0; i < r->advice.len; i++)
        if (OM_VEC_AT(&r->advice, om_advice, i).fused)
            kinds |= OPMAP_FAIL_ADVICE;
    if (r->src_not_read)
        kinds |= OPMAP_FAIL_SOURCE_UNSCANNED;
    return kinds;
}
