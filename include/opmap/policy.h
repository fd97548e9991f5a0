/*
 * opmap/policy.h - the CI gate: what a scan fails on, accepted findings (waivers),
 * baselines, and the difference between two reports.
 *
 * Findings come from scan results: an operator's status (unmapped, rewrite, partial), its
 * risk flags (precision, performance, ...), and model-level risks (dynamic dimensions,
 * float64). A policy says which kinds fail; a waiver accepts a finding, with a reason, an
 * owner and an expiry date; an expired waiver fails the gate by itself.
 */
#ifndef OPMAP_POLICY_H
#define OPMAP_POLICY_H

#include "common.h"
#include "context.h"
#include "error.h"
#include "report.h"
#include "scan.h"

OPMAP_BEGIN_DECL

/** Finding kinds (docs/ci.md); a policy's fail_on is a set of these bits. */
enum {
    OPMAP_FAIL_UNMAPPED = 1u << 0,         /**< no row in the table */
    OPMAP_FAIL_REWRITE = 1u << 1,          /**< no Ascend implementation */
    OPMAP_FAIL_PARTIAL = 1u << 2,          /**< runs with limits */
    OPMAP_FAIL_PRECISION = 1u << 3,        /**< flag: results may differ numerically */
    OPMAP_FAIL_PERFORMANCE = 1u << 4,      /**< flag: AI CPU, host, CPU fallback */
    OPMAP_FAIL_DYNAMIC_SHAPE = 1u << 5,    /**< dynamic input dimensions, or the flag */
    OPMAP_FAIL_RNG = 1u << 6,              /**< flag: random streams differ */
    OPMAP_FAIL_INF_NAN = 1u << 7,          /**< flag: inf/nan semantics differ */
    OPMAP_FAIL_NONDETERMINISTIC = 1u << 8, /**< flag */
    OPMAP_FAIL_DEPRECATED = 1u << 9,       /**< flag: deprecated in torch_npu */
    OPMAP_FAIL_DTYPE = 1u << 10,           /**< float64, complex or uint64 values */
    OPMAP_FAIL_EFFORT = 1u << 11,          /**< the estimate is over max_effort */
    OPMAP_FAIL_EXTERNAL_DATA = 1u << 12,   /**< a side file is missing, short or outside */
    OPMAP_FAIL_UNREADABLE = 1u << 13,      /**< a file could not be read: always fails, never
                                                waived (the verdict is incomplete) */
    OPMAP_FAIL_SKIPPED = 1u << 14,         /**< a file found but not a model opmap reads */
    OPMAP_FAIL_NOT_INLINED = 1u << 15,     /**< a printed TorchScript graph not inlined: its
                                                calls hide the operators they run */
    /* Findings of Python sources (opmap_scan_sources), apart from the operators' */
    OPMAP_FAIL_SOURCE_REWRITE = 1u << 16,  /**< code with no NPU path (a CUDA extension,
                                                a CUDA-only library): it must be rewritten */
    OPMAP_FAIL_SOURCE_MANUAL = 1u << 17,   /**< a code change with a published target (a
                                                renamed API, a device string, apex) */
    OPMAP_FAIL_SOURCE_UNKNOWN = 1u << 18,  /**< a CUDA API nobody has published an NPU
                                                answer for */
    OPMAP_FAIL_ADVICE = 1u << 19,          /**< a pattern a fused NPU kernel replaces
                                                (RMSNorm, attention, ... written out) */
    OPMAP_FAIL_SOURCE_UNSCANNED = 1u << 20 /**< a Python source file that was not scanned
                                                (does not tokenize, an encoding not read, a
                                                limit): fails whenever a source kind does */
};

/** The number of OPMAP_FAIL_* bits; opmap_fail_kind_name() takes 0 .. this - 1. */
#define OPMAP_FAIL_KIND_COUNT 21

/** The kinds of Python sources: a policy failing on any of them fails on
 *  OPMAP_FAIL_SOURCE_UNSCANNED too (what the source gate has not seen does not pass). */
#define OPMAP_FAIL_SOURCE_KINDS                                                            \
    (OPMAP_FAIL_SOURCE_REWRITE | OPMAP_FAIL_SOURCE_MANUAL | OPMAP_FAIL_SOURCE_UNKNOWN |    \
     OPMAP_FAIL_SOURCE_UNSCANNED)

/** @return the name of finding kind bit `index` ("unmapped", "dynamic-shape", ...), or NULL. */
OPMAP_API const char *opmap_fail_kind_name(unsigned index);

/**
 * Parses a comma-separated list of kind names ("unmapped,rewrite,precision"; "all" for
 * every kind) into bits. @return OPMAP_OK or OPMAP_EINVAL (err names the unknown word).
 */
OPMAP_API int opmap_fail_on_parse(const char *list, unsigned *out, opmap_error *err);

/** The headline's default rule (docs/reports.md, "The headline"): what makes a model
 *  blocked: an unmapped or rewrite operator, a file that could not be read, a source file
 *  that was not scanned. */
#define OPMAP_HEADLINE_BLOCKED_ON                                                          \
    (OPMAP_FAIL_UNMAPPED | OPMAP_FAIL_REWRITE | OPMAP_FAIL_UNREADABLE |                    \
     OPMAP_FAIL_SOURCE_REWRITE | OPMAP_FAIL_SOURCE_UNSCANNED)
/** ... and what makes it need work: a partial operator, a risk flag that asks for work, a
 *  warning-level risk (dynamic dimensions, float64 values, side files, graphs not inlined).
 *  Non-determinism is informational: it asks for no change (it is shown, and a gate can
 *  still fail on it with --fail-on nondeterministic). */
#define OPMAP_HEADLINE_NEEDS_WORK_ON                                                       \
    (OPMAP_FAIL_PARTIAL | OPMAP_FAIL_PRECISION | OPMAP_FAIL_PERFORMANCE |                  \
     OPMAP_FAIL_DYNAMIC_SHAPE | OPMAP_FAIL_RNG | OPMAP_FAIL_INF_NAN |                      \
     OPMAP_FAIL_DEPRECATED | OPMAP_FAIL_DTYPE |                                            \
     OPMAP_FAIL_EXTERNAL_DATA | OPMAP_FAIL_NOT_INLINED | OPMAP_FAIL_SOURCE_MANUAL |        \
     OPMAP_FAIL_SOURCE_UNKNOWN)

/** The headline's verdict: how ready the models are for Ascend. */
typedef enum opmap_readiness {
    OPMAP_READY = 0,      /**< nothing the rule counts, every counted instance on the NPU */
    OPMAP_NEEDS_WORK = 1, /**< a needs-work kind found, or coverage below 100 % */
    OPMAP_BLOCKED = 2     /**< a blocked kind found */
} opmap_readiness;

/** @return "ready", "needs-work" or "blocked", or NULL for another value. */
OPMAP_API const char *opmap_readiness_name(int readiness);

/**
 * The headline of one model or of several (docs/reports.md, "The headline"): what runs
 * as-is, how much of the model runs on the NPU, and the verdict. Filled by the library:
 * set `size` (docs/api.md).
 *
 * Coverage counts the instances that are placed: those that run on the NPU, and those that
 * split the graph (rewrite, unmapped, AI CPU / host / CPU fallback on real data; the
 * segments' breakers). Structural nodes and the shape plumbing the segments treat as
 * neutral (opmap_segments) are not counted.
 */
typedef struct opmap_headline {
    size_t size;               /**< sizeof(opmap_headline), set by the caller */
    int readiness;             /**< an opmap_readiness */
    unsigned found;            /**< OPMAP_FAIL_* kinds found (waivers ignored; never effort) */
    unsigned blocking;         /**< found kinds that make it blocked */
    unsigned needing_work;     /**< found kinds that make it need work */
    uint64_t models;           /**< results it covers */
    uint64_t operators;        /**< distinct operators, structural ones excluded (over several
                                    models: each shared operator once) */
    uint64_t operators_full;   /**< ... of them supported as-is (status full) */
    uint64_t instances;        /**< instances, structural ones excluded */
    uint64_t instances_full;   /**< ... of them of an operator supported as-is */
    uint64_t placed;           /**< instances counted for coverage */
    uint64_t on_npu;           /**< ... of them on the NPU */
    unsigned coverage;         /**< on_npu / placed in thousandths, rounded down; 1000 when
                                    nothing is placed */
    uint64_t largest;          /**< NPU instances in the largest segment (several models:
                                    of the model whose share is lowest) */
    unsigned largest_share;    /**< largest / on_npu in thousandths, rounded down (several
                                    models: the lowest); 1000 when nothing is on the NPU */
    uint64_t files_not_read;   /**< files the report lists as not read (unreadable or
                                    skipped) */
} opmap_headline;

/**
 * Computes the headline of `count` results taken together (one result: that model's) and
 * of the files not read that opts lists, by the rule opts gives (blocked_on,
 * needs_work_on; version 3, else the defaults). The reports show each model's (with no
 * files) and, for several models or files, the overall one, computed this way.
 *
 * @param opts  NULL: the default rule, no files not read.
 * @return OPMAP_OK, OPMAP_ENOMEM, OPMAP_ELIMIT, OPMAP_EINVAL (NULL argument, out->size too
 *         small, options version unknown).
 */
OPMAP_API int opmap_headline_compute(opmap_ctx *ctx, const opmap_result *const *results,
                                     size_t count, const opmap_report_options *opts,
                                     opmap_headline *out, opmap_error *err);

/** Accepted findings, loaded from a YAML waiver file (docs/ci.md). */
typedef struct opmap_waivers opmap_waivers;

/**
 * Loads a waiver file. Each entry: `op` (name or domain::name, required), `model` and
 * `node` (glob patterns, optional), `kind` (optional; default any), `reason`, `owner`,
 * `expires` (YYYY-MM-DD), all three required. Model paths and `model` patterns are
 * compared cleaned (`.`, `//`, `..` removed lexically) and relative to the working
 * directory when under it (docs/ci.md).
 * @return OPMAP_OK, OPMAP_EIO, OPMAP_EFORMAT or OPMAP_ETABLE (with line:column), OPMAP_ENOMEM.
 */
OPMAP_API int opmap_waivers_load_file(opmap_waivers **out, opmap_ctx *ctx, const char *path,
                                      opmap_error *err);
/** As opmap_waivers_load_file(), from memory (borrowed for the call); `name` is used in
 *  messages. */
OPMAP_API int opmap_waivers_load_memory(opmap_waivers **out, opmap_ctx *ctx, const void *data,
                                        size_t size, const char *name, opmap_error *err);
/** Releases waivers; NULL is a no-op. Free them after every policy using them. */
OPMAP_API void opmap_waivers_free(opmap_waivers *waivers);

/** The current layout of opmap_policy (2 added `problems`). */
#define OPMAP_POLICY_VERSION 2

/** What the gate fails on; initialise with OPMAP_POLICY_INIT. Version 1 (without
 *  `problems`) is still accepted. */
typedef struct opmap_policy {
    unsigned version;               /**< OPMAP_POLICY_VERSION */
    unsigned fail_on;               /**< OPMAP_FAIL_* bits; 0 means OPMAP_FAIL_UNMAPPED */
    uint64_t max_effort;            /**< thousandths of a person-day; 0: no limit */
    const opmap_waivers *waivers;   /**< NULL: none */
    const char *today;              /**< "YYYY-MM-DD" for waiver expiry; NULL: the clock */
    /** Version 2: files the scan did not read. Each gives a finding: OPMAP_FAIL_UNREADABLE
     *  (always fails; the verdict is incomplete) or OPMAP_FAIL_SKIPPED (fails when in
     *  fail_on). */
    const opmap_file_problem *problems;
    size_t problem_count;
} opmap_policy;

/** Initialiser of an opmap_policy: the current version, every field zero. */
#define OPMAP_POLICY_INIT { OPMAP_POLICY_VERSION, 0, 0, NULL, NULL, NULL, 0 }

/** The gate's answer over some results. */
typedef struct opmap_verdict opmap_verdict;

/** One finding of the gate. Versioned: set `size` (docs/api.md); strings borrowed from
 *  the verdict ("" when absent). */
typedef struct opmap_finding {
    size_t size;             /**< set by the caller: sizeof(opmap_finding) */
    unsigned kind;           /**< one OPMAP_FAIL_* bit */
    const char *model;       /**< the model's file */
    const char *domain, *op; /**< the operator ("" for model-level findings) */
    const char *node;        /**< a node path: the first instance, or where a risk is */
    const char *message;     /**< one line saying what was found */
    uint64_t instances;      /**< instances of the operator it covers */
    int fails;               /**< the policy fails on it (and no valid waiver covers it) */
    int waived;              /**< a waiver covers it */
    int waiver_expired;      /**< the covering waiver has expired (this fails the gate) */
    const char *waiver_reason;   /**< the covering waiver's reason */
    const char *waiver_owner;    /**< ... its owner */
    const char *waiver_expires;  /**< ... its expiry date, YYYY-MM-DD */
} opmap_finding;

/**
 * Applies a policy to results.
 * @param policy  NULL: fail on unmapped operators, no waivers.
 * @return OPMAP_OK (whether or not the gate passes), OPMAP_ENOMEM, OPMAP_EINVAL.
 */
OPMAP_API int opmap_policy_check(opmap_verdict **out, opmap_ctx *ctx,
                                 const opmap_result *const *results, size_t count,
                                 const opmap_policy *policy, opmap_error *err);
/** Releases a verdict; NULL is a no-op. */
OPMAP_API void opmap_verdict_free(opmap_verdict *verdict);
/** @return 1 when the gate passes: nothing fails and no file was unreadable. */
OPMAP_API int opmap_verdict_passed(const opmap_verdict *verdict);
/** @return 1 when a file could not be read, or every file was skipped, so the verdict
 *  covers only part of the scan or none of it (it then never passes). */
OPMAP_API int opmap_verdict_incomplete(const opmap_verdict *verdict);
/** @return the number of findings, failing or not. */
OPMAP_API size_t opmap_verdict_finding_count(const opmap_verdict *verdict);
/**
 * Fills `out` with finding i.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or out->size is too
 *         small.
 */
OPMAP_API int opmap_verdict_finding(const opmap_verdict *verdict, size_t i, opmap_finding *out);

/** The current layout of opmap_baseline_options. */
#define OPMAP_BASELINE_OPTIONS_VERSION 1

/** Options for opmap_baseline_write(). */
typedef struct opmap_baseline_options {
    unsigned version;       /**< OPMAP_BASELINE_OPTIONS_VERSION */
    const char *owner;      /**< written as each waiver's owner (NULL: "unassigned") */
    const char *expires;    /**< YYYY-MM-DD (NULL: 90 days after today) */
    const char *reason;     /**< NULL: "accepted when the gate was adopted (baseline)" */
} opmap_baseline_options;

/** Initialiser of an opmap_baseline_options: the current version, every field NULL. */
#define OPMAP_BASELINE_OPTIONS_INIT { OPMAP_BASELINE_OPTIONS_VERSION, NULL, NULL, NULL }

/**
 * Writes a waiver file accepting every finding the policy currently fails on, so a team
 * can adopt the gate before fixing everything: scanning again with it passes. The one
 * exceptions are OPMAP_FAIL_EFFORT (a budget is not waived, it is raised: the caller's
 * max_effort) and OPMAP_FAIL_UNREADABLE (a file that cannot be read is fixed, not accepted):
 * none is written for them.
 */
OPMAP_API int opmap_baseline_write(const opmap_verdict *verdict,
                                   const opmap_baseline_options *opts, opmap_write_fn write,
                                   void *payload, opmap_error *err);

/**
 * Compares two JSON reports (opmap-report/1 or /2): operators added, removed, and whose
 * status or risk flags changed, per model file. Writes a text or JSON summary through `write` and sets
 * *failing to the number of added or worsened findings the policy fails on (its waivers
 * and max_effort are not used).
 * @return OPMAP_OK, OPMAP_EFORMAT (not an opmap report), OPMAP_EWRITE, OPMAP_ENOMEM.
 */
OPMAP_API int opmap_diff_reports(opmap_ctx *ctx, const char *old_json, size_t old_size,
                                 const char *new_json, size_t new_size,
                                 const opmap_policy *policy, opmap_report_format format,
                                 opmap_write_fn write, void *payload, size_t *failing,
                                 opmap_error *err);

OPMAP_END_DECL

#endif /* OPMAP_POLICY_H */
