/*
 * policy/kinds.h - the finding kinds a result has (kinds.c): shared by the gate's findings
 * (verdict.c) and the headline (headline.c), so both read a model the same way.
 */
#ifndef OM_POLICY_KINDS_H
#define OM_POLICY_KINDS_H

#include <opmap/policy.h>

#include "scan/result_internal.h"

/* The OPMAP_FAIL_* kind of an operator's status (unmapped, rewrite, partial; for a source
 * finding source-unknown, source-rewrite, source-manual), or 0. */
unsigned om_op_kind(const opmap_op *op);

/* The OPMAP_FAIL_* kinds of an operator's risk flags. */
unsigned om_flag_kinds(unsigned flags);

/* The OPMAP_FAIL_* kind a model-level risk is a finding of, or 0 when it is none (an
 * info-level risk, one restating an operator's flag, a kind the gate does not judge). */
unsigned om_risk_kind(const om_risk *risk);

/* Every kind a result has, as the gate finds them (effort never: it needs a budget). */
unsigned om_result_kinds(const opmap_result *r);

#endif /* OM_POLICY_KINDS_H */
