/*
 * report/report_internal.h - the writers behind opmap_report_write().
 */
#ifndef OM_REPORT_INTERNAL_H
#define OM_REPORT_INTERNAL_H

#include <opmap/report.h>
#include <opmap/version.h>

#include "../estimate/portfolio.h"
#include "out.h"

/* What every writer gets: the results, and the portfolio over them. */
typedef struct om_report_in {
    const opmap_result *const *results;
    size_t count;
    unsigned flags;
    const om_portfolio *portfolio;
} om_report_in;

int om_report_json(const om_report_in *in, om_out *out);
int om_report_text(const om_report_in *in, om_out *out);

/* "12.5" for 12500 thousandths: at most three decimals, no trailing zeros. */
void om_format_days(uint64_t milli, char *buf, size_t size);

#endif /* OM_REPORT_INTERNAL_H */
