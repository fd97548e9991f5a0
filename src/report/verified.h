/*
 * report/verified.h - device results in words, shared by the writers (verified.c). Every
 * text is plain: the writer escapes it for its format.
 */
#ifndef OM_REPORT_VERIFIED_H
#define OM_REPORT_VERIFIED_H

#include <opmap/verify.h>

#include "scan/result_internal.h"
#include "report_internal.h"

/* A measurement with three digits ("0.0312", "2.1e-06"), "n/a" for NaN; '.' in any locale. */
void om_format_measure(double v, char *buf, size_t size);
/* "Ascend910B3 (torch_npu 2.1.0, CANN 8.0.RC1)": where a result was measured. */
void om_verify_run(const om_verified *x, char *buf, size_t size);
/* One result: "pass on <run>: max abs error ..., max rel error ...; times (standard)". */
void om_verify_result(const om_verified *x, char *buf, size_t size);
/* The operator's state in one phrase ("verified on <run>: pass", "failed on <run>: max abs
 * error ...", "partly verified on <run>: 2 of 3 instances ..."); "" when none matched. */
void om_verify_summary(const opmap_op *op, char *buf, size_t size);
/* Operators per state (OPMAP_VERIFY_*), and in words ("" when none is verified). */
void om_verify_counts(const opmap_result *r, size_t count[4]);
void om_verify_counts_text(const opmap_result *r, char *buf, size_t size);
/* 1 when some operator of the results has device results. */
int om_report_verified(const om_report_in *in);

#endif /* OM_REPORT_VERIFIED_H */
