/*
 * report/report_internal.h - the writers behind opmap_report_write().
 */
#ifndef OM_REPORT_INTERNAL_H
#define OM_REPORT_INTERNAL_H

#include <opmap/report.h>
#include <opmap/version.h>

#include "out.h"

int om_report_json(const opmap_result *const *results, size_t count, unsigned flags, om_out *out);
int om_report_text(const opmap_result *const *results, size_t count, unsigned flags, om_out *out);

/* "12.5" for 12500 thousandths: at most three decimals, no trailing zeros. */
void om_format_days(uint64_t milli, char *buf, size_t size);

#endif /* OM_REPORT_INTERNAL_H */
