/*
 * opmap/report.h - writing reports from one or more scan results.
 *
 * Reports are written through a callback, into memory (opmap_report_write_memory) or into a
 * file the caller names (opmap_report_write_file); the library writes no other file. Every
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

struct opmap_policy;
struct opmap_verdict;

/** Report formats (docs/reports.md). */
typedef enum opmap_report_format {
    OPMAP_REPORT_TEXT = 0,     /**< a terminal summary */
    OPMAP_REPORT_JSON = 1,     /**< the versioned JSON document (docs/report-json.md) */
    OPMAP_REPORT_HTML = 2,     /**< one self-contained page: charts, a sortable table */
    OPMAP_REPORT_MARKDOWN = 3, /**< for a pull-request comment */
    OPMAP_REPORT_CSV = 4,      /**< one row per operator, for spreadsheets */
    OPMAP_REPORT_SARIF = 5,    /**< SARIF 2.1.0, for code-scanning dashboards */
    OPMAP_REPORT_JUNIT = 6,    /**< JUnit XML, one test case per distinct operator */
    /** What `atc --mode=3` would write into check_result.json for each ONNX model, in
     *  ATC's layout, with its cause codes (docs/reports.md, "ATC pre-check") */
    OPMAP_REPORT_ATC_PRECHECK = 7,
    /** A summary at registry scale: a line per model and per distinct operator, the
     *  totals, the portfolio and the gate's counts (docs/reports.md, "Registry"); written
     *  one model at a time and merged as JSON reports are */
    OPMAP_REPORT_REGISTRY = 8
} opmap_report_format;

/** The number of opmap_report_format values. */
#define OPMAP_REPORT_FORMAT_COUNT 9

/** The JSON report's schema identifier, written as its top-level "schema" member. */
#define OPMAP_REPORT_JSON_SCHEMA "opmap-report/5"

/** The registry report's schema identifier, its top-level "schema" member. */
#define OPMAP_REPORT_REGISTRY_SCHEMA "opmap-registry/1"

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
 * A file a scan did not turn into a result: it could not be read, or it was skipped (found
 * in a directory but not a model opmap reads: a torch.save checkpoint, a .pt2). Reports list
 * every one, and a file that could not be read makes the gate's verdict incomplete.
 */
typedef struct opmap_file_problem {
    const char *file;            /**< the file, as it was named to the scan */
    int skipped;                 /**< 1: skipped (error says why); 0: could not be read */
    const opmap_error *error;    /**< code, source, location and message */
} opmap_file_problem;

/** The current layout of opmap_report_options (2 added `problems`, 3 the headline's
 *  rule). */
#define OPMAP_REPORT_OPTIONS_VERSION 3

/** Options for opmap_report_write(); initialise with OPMAP_REPORT_OPTIONS_INIT. Versions 1
 *  (without `problems`) and 2 (without the headline's rule) are still accepted. */
typedef struct opmap_report_options {
    unsigned version;          /**< OPMAP_REPORT_OPTIONS_VERSION */
    unsigned flags;            /**< OPMAP_REPORT_* flags */
    double day_rate;           /**< cost of one person-day; > 0 adds costs to the report */
    const char *currency;      /**< shown beside costs, e.g. "USD" (NULL: none) */
    /** The gate (policy.h) whose findings, failures and waivers the report shows (SARIF,
     *  JUnit, HTML, Markdown); NULL: fail on unmapped operators, no waivers. */
    const struct opmap_policy *policy;
    unsigned reserved;         /**< zero */
    /** Version 2: files the scan did not read, listed in every format and judged by the
     *  report's gate (they replace the policy's own `problems`). */
    const opmap_file_problem *problems;
    size_t problem_count;
    /** Version 3: the headline's rule (docs/reports.md, "The headline"), OPMAP_FAIL_* bits
     *  (policy.h). A model is blocked when it has a kind in blocked_on (0: the default,
     *  OPMAP_HEADLINE_BLOCKED_ON); else it needs work when it has a kind in needs_work_on
     *  (0: OPMAP_HEADLINE_NEEDS_WORK_ON) or its coverage is below 100 %. */
    unsigned blocked_on;
    unsigned needs_work_on;
} opmap_report_options;

/** Initialiser of an opmap_report_options: the current version, every field zero. */
#define OPMAP_REPORT_OPTIONS_INIT \
    { OPMAP_REPORT_OPTIONS_VERSION, 0, 0.0, NULL, NULL, 0, NULL, 0, 0, 0 }

/**
 * Writes a report over `count` results (one per scanned model).
 *
 * @param opts  NULL for defaults.
 * @return OPMAP_OK, OPMAP_EWRITE, OPMAP_ENOMEM, OPMAP_EINVAL (unknown format or options).
 */
OPMAP_API int opmap_report_write(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                                 opmap_report_format format, const opmap_report_options *opts,
                                 opmap_write_fn write, void *payload, opmap_error *err);

/** @return the name of a format ("text", "json", "html", "markdown", "csv", "sarif",
 *  "junit", "atc-precheck", "registry"), or NULL if unknown. */
OPMAP_API const char *opmap_report_format_name(opmap_report_format format);

/** @return the file extension of a format ("txt", "json", "html", "md", "csv", "sarif",
 *  "xml", "atc-precheck.json", "registry.json"), or NULL if unknown. */
OPMAP_API const char *opmap_report_format_extension(opmap_report_format format);

/** Parses a format name ("md" is accepted for markdown); @return OPMAP_OK or OPMAP_EINVAL. */
OPMAP_API int opmap_report_format_parse(const char *name, opmap_report_format *out);

/**
 * Writes a report into memory: as opmap_report_write(), into a buffer the library allocates
 * with the context's allocator.
 *
 * @param[out] out   receives the report, NUL-terminated; the caller owns it and releases it
 *                   with opmap_free(ctx, *out) (never free()). NULL on failure.
 * @param[out] size  receives its length without the NUL; may be NULL.
 * @return OPMAP_OK; OPMAP_ELIMIT (the report would exceed the context's max_heap_bytes);
 *         OPMAP_ENOMEM; OPMAP_EINVAL.
 */
OPMAP_API int opmap_report_write_memory(opmap_ctx *ctx, const opmap_result *const *results,
                                        size_t count, opmap_report_format format,
                                        const opmap_report_options *opts, char **out,
                                        size_t *size, opmap_error *err);

/**
 * Fills a destination: calls `write(payload, ...)` for each piece of output and returns
 * OPMAP_OK or an error (in `err`). opmap_report_write() wrapped this way is one.
 */
typedef int (*opmap_fill_fn)(void *arg, opmap_write_fn write, void *payload, opmap_error *err);

/**
 * Writes the file `path` with what `fill(arg, ...)` produces, as opmap writes reports:
 * - a regular file, or a path that does not exist yet, is written to a new file beside it
 *   and renamed over `path` only when complete, so a failure leaves the old file untouched.
 *   A replaced file keeps its permissions; a new one gets 0666 less the umask.
 * - a symbolic link stays a link: the file it points to is replaced that way.
 * - a device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written through, never
 *   replaced; a failed write there cannot be undone.
 * - a directory, or a link to nothing, is refused.
 *
 * @return OPMAP_OK; OPMAP_EIO (cannot create, write or rename; err->sys_errno set, err->source
 *         is `path`); fill's own error; OPMAP_EINVAL.
 */
OPMAP_API int opmap_write_file(const char *path, opmap_fill_fn fill, void *arg,
                               opmap_error *err);

/**
 * Writes the file `path` as a new regular file, following nothing: the content goes to a
 * file created beside it (O_CREAT | O_EXCL | O_NOFOLLOW) and renamed over `path` when
 * complete, so whatever was there (a symbolic link, a FIFO, a device, a regular file,
 * which keeps its permissions) is replaced, never followed or written through; a directory
 * is refused. For files whose content others run (`opmap testgen`'s Python).
 *
 * @return as opmap_write_file().
 */
OPMAP_API int opmap_write_file_nofollow(const char *path, opmap_fill_fn fill, void *arg,
                                        opmap_error *err);

/**
 * Writes a report into the file `path`, as opmap_write_file() writes: replaced atomically,
 * a link followed, a device written through.
 *
 * @return OPMAP_OK; OPMAP_EIO (cannot create, write or rename; err->sys_errno set, err->source
 *         is `path`); OPMAP_ENOMEM; OPMAP_EINVAL.
 */
OPMAP_API int opmap_report_write_file(opmap_ctx *ctx, const opmap_result *const *results,
                                      size_t count, opmap_report_format format,
                                      const opmap_report_options *opts, const char *path,
                                      opmap_error *err);

/**
 * The estimate of several models taken together, as in the report's "portfolio": an
 * operator used by several models is adapted once (at the worst status seen).
 *
 * @param[out] together    the portfolio estimate; may be NULL.
 * @param[out] separately  the sum of each result's own estimate
 *                         (opmap_summary.effort_total); may be NULL.
 * @return OPMAP_OK, OPMAP_ENOMEM, OPMAP_ELIMIT, OPMAP_EINVAL.
 */
OPMAP_API int opmap_portfolio_estimate(opmap_ctx *ctx, const opmap_result *const *results,
                                       size_t count, opmap_effort *together,
                                       opmap_effort *separately, opmap_error *err);

/**
 * JSON reports read back (`opmap merge`): the results and unread files of reports written by
 * earlier scans, as those scans left them, to write every format, the portfolio and the
 * gate again as one scan over all their files would. Opaque; opmap_report_set_free().
 */
typedef struct opmap_report_set opmap_report_set;

/**
 * Starts an empty set. Reports are read against `table`: it must be the one they were
 * written with (same origin, name, version, torch_npu and cann), since each operator's row
 * is found again in it; it must outlive the set.
 * @return OPMAP_OK, OPMAP_ENOMEM, OPMAP_EINVAL.
 */
OPMAP_API int opmap_report_set_new(opmap_report_set **out, opmap_ctx *ctx,
                                   const opmap_table *table, opmap_error *err);

/**
 * Adds one JSON report (`size` bytes at `data`; `name` names it in errors): its models
 * become results and its unread files problems, after those already added. The report is
 * untrusted input: every field is checked, nesting and strings are bounded by the context's
 * limits, and each model's totals must add up from its operators.
 * @return OPMAP_OK; OPMAP_EFORMAT (not a report this opmap reads, or of another schema,
 *         opmap version, table or chip list than the set's, or a file an earlier report
 *         has: err names the report, the byte offset and the field); OPMAP_ELIMIT;
 *         OPMAP_ENOMEM; OPMAP_EINVAL. On failure the set is as it was.
 */
OPMAP_API int opmap_report_set_add(opmap_report_set *set, const char *name, const void *data,
                                   size_t size, opmap_error *err);

/**
 * Adds the JSON report in the file `path`, as opmap_report_set_add(); the file is read
 * whole, from the context's max_heap_bytes.
 * @return as opmap_report_set_add(), and OPMAP_EIO when the file cannot be read.
 */
OPMAP_API int opmap_report_set_add_file(opmap_report_set *set, const char *path,
                                        opmap_error *err);

/** @return the number of results (models) in the set. */
OPMAP_API size_t opmap_report_set_count(const opmap_report_set *set);

/** @return the results, in the order their reports were added (NULL when none); valid
 *  until the next opmap_report_set_add() or opmap_report_set_free(). */
OPMAP_API const opmap_result *const *opmap_report_set_results(const opmap_report_set *set);

/** @return the files the reports' scans did not read, in order, for
 *  opmap_report_options.problems (NULL when none; *count receives how many); valid as the
 *  results are. */
OPMAP_API const opmap_file_problem *opmap_report_set_problems(const opmap_report_set *set,
                                                              size_t *count);

/**
 * Receives a result read back by opmap_report_set_stream_file(); it is the callee's from
 * then on. Return OPMAP_OK to go on, or an error (set in err) to stop the reading.
 */
typedef int (*opmap_result_fn)(void *payload, opmap_result *result, opmap_error *err);

/**
 * Reads the JSON report in the file `path` one model at a time (docs/scale.md, "Memory"):
 * each model is checked as opmap_report_set_add() checks it and handed to `fn` at once,
 * never kept in the set, so memory does not follow the report's size; the file is read in
 * chunks, never whole. Its files not read are kept (opmap_report_set_problems), and a file
 * an earlier report of the set has is refused (the set keeps two 64-bit hashes of each
 * file's name). A set either streams its reports or adds them whole.
 * @return as opmap_report_set_add(), and what `fn` returned. On failure the models already
 *         handed on stay handed on: the caller discards what it built from them.
 */
OPMAP_API int opmap_report_set_stream_file(opmap_report_set *set, const char *path,
                                           opmap_result_fn fn, void *payload,
                                           opmap_error *err);

/** Frees the set and its results (NULL is accepted). */
OPMAP_API void opmap_report_set_free(opmap_report_set *set);

/**
 * The format of the report in the file `path`, from its "schema" (the first member of
 * every report opmap writes, read without reading the rest): OPMAP_REPORT_JSON or
 * OPMAP_REPORT_REGISTRY.
 * @return OPMAP_OK; OPMAP_EFORMAT (not a report opmap reads back, or of another schema:
 *         err names the file and the offset); OPMAP_EIO; OPMAP_ENOMEM; OPMAP_EINVAL.
 */
OPMAP_API int opmap_report_file_format(opmap_ctx *ctx, const char *path,
                                       opmap_report_format *out, opmap_error *err);

/**
 * A report written one model at a time (docs/scale.md, "Memory"): each result handed to
 * the stream is written out as its part of the report and freed, and what the report says
 * of all of them (the portfolio's distinct operators, the totals, the gate's findings, the
 * headline) is kept; so memory follows the distinct operators and the findings, not the
 * number of models. The report is the one opmap_report_write() writes over the same
 * results, in the same order, byte for byte. JSON and registry only (OPMAP_EUNSUPPORTED
 * for other formats). Opaque; opmap_report_stream_free().
 */
typedef struct opmap_report_stream opmap_report_stream;

/** The current layout of opmap_report_stream_options. */
#define OPMAP_REPORT_STREAM_OPTIONS_VERSION 1

/** Options for opmap_report_stream_new(); initialise with OPMAP_REPORT_STREAM_OPTIONS_INIT. */
typedef struct opmap_report_stream_options {
    unsigned version;          /**< OPMAP_REPORT_STREAM_OPTIONS_VERSION */
    unsigned reserved;         /**< zero */
    /** A directory for the spool: the models' part of the report is kept in an unnamed
     *  temporary file there (created and unlinked at once, so nothing is left behind).
     *  NULL: it is kept in memory, from the context's max_heap_bytes. */
    const char *spool_dir;
} opmap_report_stream_options;

/** Initialiser of an opmap_report_stream_options: the current version, no spool directory. */
#define OPMAP_REPORT_STREAM_OPTIONS_INIT { OPMAP_REPORT_STREAM_OPTIONS_VERSION, 0, NULL }

/**
 * Starts a report stream in `format` with the report options `report` (as
 * opmap_report_write() takes them, NULL for the defaults; their `problems` are given to
 * opmap_report_stream_finish() instead; the policy's waivers are borrowed until the
 * stream is freed).
 * @return OPMAP_OK; OPMAP_EUNSUPPORTED (a format other than JSON and registry); OPMAP_EIO
 *         (the spool cannot be created); OPMAP_ENOMEM; OPMAP_EINVAL.
 */
OPMAP_API int opmap_report_stream_new(opmap_report_stream **out, opmap_ctx *ctx,
                                      opmap_report_format format,
                                      const opmap_report_options *report,
                                      const opmap_report_stream_options *opts,
                                      opmap_error *err);

/**
 * Hands the next result (in the report's order) to the stream, which owns it from then on,
 * whatever this returns (it is freed once written out).
 * @return OPMAP_OK; OPMAP_EIO (writing the spool); OPMAP_ELIMIT, OPMAP_ENOMEM; OPMAP_EINVAL
 *         (NULL, or a stream finished or failed). After a failure the stream takes nothing
 *         more.
 */
OPMAP_API int opmap_report_stream_take(opmap_report_stream *s, opmap_result *result,
                                       opmap_error *err);

/**
 * Ends the stream: the files not read (`problems`, borrowed until the stream is freed),
 * then the portfolio, the headline and the gate's verdict over everything taken.
 * @return OPMAP_OK, OPMAP_EIO, OPMAP_ENOMEM, OPMAP_EINVAL (twice, or after a failure).
 */
OPMAP_API int opmap_report_stream_finish(opmap_report_stream *s,
                                         const opmap_file_problem *problems, size_t count,
                                         opmap_error *err);

/**
 * Writes the report (after opmap_report_stream_finish; as often as wanted) through
 * `write`, as opmap_report_write() does.
 * @return OPMAP_OK, OPMAP_EWRITE, OPMAP_EIO (reading the spool back), OPMAP_EINVAL.
 */
OPMAP_API int opmap_report_stream_write(opmap_report_stream *s, opmap_write_fn write,
                                        void *payload, opmap_error *err);

/**
 * Adds the registry report in the file `path` (OPMAP_REPORT_REGISTRY, an earlier scan's or
 * merge's) to a registry stream, as if the results of its models had been taken in order:
 * its rows and distinct operators, its files not read into `set` (as
 * opmap_report_set_stream_file keeps them), its header held against the set's table and
 * first report, a file an earlier report has refused. The file is read a line at a time
 * and untrusted: every field is checked, and its totals, headline, portfolio and gate must
 * agree with its rows. Its models were judged by its scan's gate (each row keeps its
 * count of findings): the stream's policy must fail on the same kinds with the same
 * waivers. A stream either takes results or reads registry reports.
 * @return OPMAP_OK; OPMAP_EFORMAT (err names the file, the byte offset and the field);
 *         OPMAP_ELIMIT, OPMAP_ENOMEM, OPMAP_EIO; OPMAP_EINVAL (not a registry stream, one that
 *         took results, finished or failed). After a failure the stream takes nothing more.
 */
OPMAP_API int opmap_report_stream_read(opmap_report_stream *s, opmap_report_set *set,
                                       const char *path, opmap_error *err);

/** @return the number of results taken (models, for a registry stream). */
OPMAP_API size_t opmap_report_stream_count(const opmap_report_stream *s);

/** @return the gate's verdict over the stream, borrowed until the stream is freed; NULL
 *  before opmap_report_stream_finish(). Its passed and incomplete are opmap_policy_check()'s
 *  over the same results and files not read; its findings are only those of the files not
 *  read and of the budget: the models' findings were written out with the models (the
 *  report lists them all; opmap_report_stream_findings() counts them). */
OPMAP_API const struct opmap_verdict *opmap_report_stream_verdict(const opmap_report_stream *s);

/** @return the gate's findings over the stream, the models' included (after
 *  opmap_report_stream_finish; 0 before); *failing (may be NULL) receives how many fail. */
OPMAP_API size_t opmap_report_stream_findings(const opmap_report_stream *s, size_t *failing);

/** Frees the stream, the results it holds and its spool (NULL is accepted). */
OPMAP_API void opmap_report_stream_free(opmap_report_stream *s);

OPMAP_END_DECL

#endif /* OPMAP_REPORT_H */
