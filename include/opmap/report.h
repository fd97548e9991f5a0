/*
 * opmap/report.h - writing reports from one or more scan results.
 *
 * Reports are written through a callback; the library never opens output files. Every
 * string that comes from a model is escaped for the format it lands in. Output is
 * deterministic: no timestamps, stable ordering.
 */
#ifndef OPMAP_REPORT_H
#define OPMAP_REPORT_H

#include "common.h"
#include "context.h"
#include "error.h"
#include "scan.h"

OPMAP_BEGIN_DECL

/** Report formats. */
typedef enum opmap_report_format {
    OPMAP_REPORT_TEXT = 0,  /**< a terminal summary */
    OPMAP_REPORT_JSON = 1   /**< the versioned JSON document (docs/report-json.md) */
} opmap_report_format;

/** The JSON report's schema identifier, written as its top-level "schema" member. */
#define OPMAP_REPORT_JSON_SCHEMA "opmap-report/2"

/** Report flags. */
enum {
    OPMAP_REPORT_COLOR = 1u << 0,  /**< TEXT: ANSI colours */
    OPMAP_REPORT_COMPACT = 1u << 1 /**< JSON: no indentation */
};

/**
 * Receives report bytes. Return 0 to go on, non-zero to stop the writer (it then returns
 * OPMAP_EWRITE).
 */
typedef int (*opmap_write_fn)(void *payload, const void *data, size_t size);

/**
 * Writes a report over `count` results (one per scanned model).
 *
 * @return OPMAP_OK, OPMAP_EWRITE, OPMAP_ENOMEM, OPMAP_EINVAL (unknown format).
 */
OPMAP_API int opmap_report_write(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                                 opmap_report_format format, unsigned flags,
                                 opmap_write_fn write, void *payload, opmap_error *err);

/** @return the name of a format ("text", "json"), or NULL if unknown. */
OPMAP_API const char *opmap_report_format_name(opmap_report_format format);

/** Parses a format name; @return OPMAP_OK or OPMAP_EINVAL. */
OPMAP_API int opmap_report_format_parse(const char *name, opmap_report_format *out);

OPMAP_END_DECL

#endif /* OPMAP_REPORT_H */
