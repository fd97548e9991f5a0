/*
 * report/report.c - opmap_report_write(): format names and dispatch to the writers.
 */
#include <stdio.h>
#include <string.h>

#include "../api/ctx_internal.h"
#include "../core/err.h"
#include "report_internal.h"

static const char *const format_names[] = { "text", "json" };

const char *opmap_report_format_name(opmap_report_format format)
{
    if ((unsigned)format >= sizeof(format_names) / sizeof(format_names[0]))
        return NULL;
    return format_names[format];
}

int opmap_report_format_parse(const char *name, opmap_report_format *out)
{
    unsigned i;
    for (i = 0; name && i < sizeof(format_names) / sizeof(format_names[0]); i++)
        if (strcmp(name, format_names[i]) == 0) {
            *out = (opmap_report_format)i;
            return OPMAP_OK;
        }
    return OPMAP_EINVAL;
}

void om_format_days(uint64_t milli, char *buf, size_t size)
{
    uint64_t whole = milli / 1000, frac = milli % 1000;
    if (!frac)
        snprintf(buf, size, "%llu", (unsigned long long)whole);
    else if (frac % 100 == 0)
        snprintf(buf, size, "%llu.%llu", (unsigned long long)whole, (unsigned long long)(frac / 100));
    else if (frac % 10 == 0)
        snprintf(buf, size, "%llu.%02llu", (unsigned long long)whole, (unsigned long long)(frac / 10));
    else
        snprintf(buf, size, "%llu.%03llu", (unsigned long long)whole, (unsigned long long)frac);
}

int opmap_report_write(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                       opmap_report_format format, unsigned flags, opmap_write_fn write,
                       void *payload, opmap_error *err)
{
    om_out out;
    om_mem mem;
    om_portfolio portfolio;
    om_report_in in;
    int rc;
    om_err_clear(err);
    if (!ctx || !write || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write: NULL argument");
    if (!opmap_report_format_name(format))
        return om_fail(err, OPMAP_EINVAL, NULL, "unknown report format %d", (int)format);
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    if (om_portfolio_build(results, count, &mem, &portfolio) != OPMAP_OK)
        return om_fail_mem(err, &mem, NULL);
    in.results = results;
    in.count = count;
    in.flags = flags;
    in.portfolio = &portfolio;
    om_out_init(&out, write, payload);
    rc = format == OPMAP_REPORT_JSON ? om_report_json(&in, &out) : om_report_text(&in, &out);
    if (rc == OPMAP_OK)
        rc = om_out_finish(&out);
    om_portfolio_free(&portfolio, &mem);
    if (rc == OPMAP_EWRITE)
        return om_fail(err, rc, NULL, "the report could not be written");
    if (rc != OPMAP_OK)
        return om_fail(err, rc, NULL, "%s while writing the report", opmap_status_str(rc));
    return OPMAP_OK;
}
