/*
 * report/report.c - opmap_report_write(): format names and dispatch to the writers.
 */
#include <stdio.h>
#include <string.h>

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
    int rc;
    (void)ctx;
    om_err_clear(err);
    if (!write || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_write: NULL argument");
    om_out_init(&out, write, payload);
    switch (format) {
    case OPMAP_REPORT_JSON:
        rc = om_report_json(results, count, flags, &out);
        break;
    case OPMAP_REPORT_TEXT:
        rc = om_report_text(results, count, flags, &out);
        break;
    default:
        return om_fail(err, OPMAP_EINVAL, NULL, "unknown report format %d", (int)format);
    }
    if (rc == OPMAP_OK)
        rc = om_out_finish(&out);
    if (rc == OPMAP_EWRITE)
        return om_fail(err, rc, NULL, "the report could not be written");
    if (rc != OPMAP_OK)
        return om_fail(err, rc, NULL, "%s while writing the report", opmap_status_str(rc));
    return OPMAP_OK;
}
