/*
 * opmap/verify.h - per-operator tests on the device, and what they measured read back.
 *
 * `opmap testgen` writes one differential test per distinct signature of the operators a
 * scan flags (docs/testgen.md): the operator run on the CPU and on the NPU through torch_npu
 * with the model's dtypes and shapes, compared with per-dtype tolerances. Its runner writes
 * a results file (JSON, schema "opmap-results/1"): the chip, the torch_npu and CANN
 * versions, and per signature pass or fail with the errors and times measured. Scanning
 * with those results (opmap_scan_options.results) marks each matching operator "verified on
 * <chip>", matching by the signature's text, never by position; an operator whose every
 * instance passed on every chip scanned for leaves the estimate's risk range (it costs its
 * effort's minimum, and an unpublished answer it had is no longer left to verify).
 */
#ifndef OPMAP_VERIFY_H
#define OPMAP_VERIFY_H

#include "common.h"
#include "context.h"
#include "error.h"
#include "model.h"
#include "report.h"
#include "scan.h"

OPMAP_BEGIN_DECL

/** The results file's schema identifier, its top-level "schema" member. */
#define OPMAP_RESULTS_SCHEMA "opmap-results/1"

/* ---- results files ---- */

/** Device results read from one or more results files (opaque; opmap_results_free()). */
typedef struct opmap_results opmap_results;

/**
 * Starts an empty set of device results.
 * @return OPMAP_OK, OPMAP_ENOMEM, OPMAP_EINVAL.
 */
OPMAP_API int opmap_results_new(opmap_results **out, opmap_ctx *ctx, opmap_error *err);

/**
 * Adds one results file (`size` bytes at `data`; `name` names it in errors and reports).
 * The file is untrusted: every member is checked for its type and range, strings and
 * nesting are bounded by the context's limits, memory by its max_heap_bytes; a run on the
 * CPU (`"device": "cpu"`, the tests checking themselves) is refused, as it verifies
 * nothing about an NPU. Entries that errored or were skipped are kept out. The same
 * signature measured twice on one chip with the same versions keeps a failure over a pass.
 * @return OPMAP_OK; OPMAP_EFORMAT (err names the file, the byte offset and the member);
 *         OPMAP_ELIMIT; OPMAP_ENOMEM; OPMAP_EINVAL. On failure the set is as it was.
 */
OPMAP_API int opmap_results_add(opmap_results *set, const char *name, const void *data,
                                size_t size, opmap_error *err);

/**
 * Adds the results file `path`, read whole (at most the context's max_file_bytes), as
 * opmap_results_add().
 * @return as opmap_results_add(), and OPMAP_EIO when the file cannot be read.
 */
OPMAP_API int opmap_results_add_file(opmap_results *set, const char *path, opmap_error *err);

/** @return the number of pass or fail results the set holds. */
OPMAP_API size_t opmap_results_count(const opmap_results *set);

/** Frees the set (NULL is accepted). Results scanned with it keep their own copies. */
OPMAP_API void opmap_results_free(opmap_results *set);

/* ---- what a scan with results says of an operator ---- */

/** How far an operator is verified on the device (opmap_op_verify_state()). */
typedef enum opmap_verify_state {
    OPMAP_VERIFY_NONE = 0,   /**< no result matches any of its instances */
    OPMAP_VERIFY_PARTLY = 1, /**< some instances or chips passed, none failed */
    OPMAP_VERIFY_PASS = 2,   /**< every instance passed on every chip scanned for */
    OPMAP_VERIFY_FAIL = 3    /**< a result matching an instance failed */
} opmap_verify_state;

/** @return an opmap_verify_state: how far the operator is verified. */
OPMAP_API int opmap_op_verify_state(const opmap_op *op);

/** @return the name of a verify state ("none", "partly", "pass", "fail"), or NULL. */
OPMAP_API const char *opmap_verify_state_name(int state);

/** One device result that matched instances of an operator. Versioned: set `size`;
 *  strings borrowed from the result. */
typedef struct opmap_verified_info {
    size_t size;             /**< set by the caller: sizeof(opmap_verified_info) */
    const char *signature;   /**< the signature the test ran */
    const char *chip;        /**< the chip it ran on, as the runner read it ("Ascend910B3") */
    const char *family;      /**< the result's chip it counts for (a family id) */
    const char *torch_npu;   /**< torch_npu's version there ("" when unknown) */
    const char *cann;        /**< CANN's version there ("" when unknown) */
    int passed;              /**< 1: pass, 0: fail */
    const char *standard;    /**< the comparison the test applied ("absolute", "ulp", ...) */
    double max_abs_error;    /**< largest absolute error seen, NaN when not measured */
    double max_rel_error;    /**< largest relative error seen, NaN when not measured */
    double cpu_ms;           /**< the operator's time on the CPU, NaN when not measured */
    double device_ms;        /**< ... and on the device */
    const char *message;     /**< what the test said ("" when nothing) */
    const char *source;      /**< the results file it came from */
    uint64_t instances;      /**< instances of the operator with that signature */
    const char *example;     /**< the node path of the first of them */
} opmap_verified_info;

/** @return the number of device results that matched the operator's instances. */
OPMAP_API size_t opmap_op_verified_count(const opmap_op *op);

/**
 * Fills `out` with device result i of the operator.
 * @return OPMAP_OK, or OPMAP_EINVAL when i is out of range, out is NULL or too small.
 */
OPMAP_API int opmap_op_verified(const opmap_op *op, size_t i, opmap_verified_info *out);

/* ---- writing the tests ---- */

/** What opmap_testgen_write() writes. */
typedef enum opmap_testgen_part {
    OPMAP_TESTGEN_MODULE = 0, /**< the pytest module, one test per signature */
    OPMAP_TESTGEN_RUNNER = 1  /**< the runner script: runs the module's tests without
                                   pytest and writes the results file */
} opmap_testgen_part;

/** Which signatures get a test (opmap_testgen_options.select). */
enum {
    OPMAP_TESTGEN_FLAGGED = 0, /**< operators partial, rewrite or unmapped, flagged
                                    precision or performance, or without a published answer
                                    for a chip scanned for (the default) */
    OPMAP_TESTGEN_ALL = 1      /**< every operator but structural ones */
};

/** The current layout of opmap_testgen_options. */
#define OPMAP_TESTGEN_OPTIONS_VERSION 1

/** Options for opmap_testgen_write(); initialise with OPMAP_TESTGEN_OPTIONS_INIT. */
typedef struct opmap_testgen_options {
    unsigned version;          /**< OPMAP_TESTGEN_OPTIONS_VERSION */
    unsigned select;           /**< OPMAP_TESTGEN_FLAGGED or OPMAP_TESTGEN_ALL */
    /** Operators to test as well, comma-separated: "domain::name" or a bare name
     *  ("aten::layer_norm,Softmax"), or NULL. */
    const char *ops;
    /** Sizes of symbolic dimensions, "name=value" each ("batch=8"), or NULL. */
    const char *const *dims;
    size_t n_dims;
    /** The size of a dimension nobody names a value for: 0 for the default, 2. */
    uint32_t default_dim;
    /** At most this many tests: 0 for the default, 1,000. */
    uint32_t max_tests;
} opmap_testgen_options;

/** Initialiser of an opmap_testgen_options: the current version, flagged operators. */
#define OPMAP_TESTGEN_OPTIONS_INIT { OPMAP_TESTGEN_OPTIONS_VERSION, 0, NULL, NULL, 0, 0, 0 }

/**
 * Writes the tests of `count` models (docs/testgen.md): results[i] must be the scan of
 * models[i] (its statuses and flags choose what is tested). The module is self-contained
 * Python (torch; torch_npu on the device): one test per distinct signature selected, each
 * building inputs of the model's dtypes and shapes with fixed seeds, running the operator
 * (an ONNX operator through its ATen equivalent) on the CPU at a higher precision and on
 * the device, comparing with the tolerances of Ascend's msprobe for the dtype, and naming
 * the node paths it stands for. A signature that cannot be built (a shape the model does
 * not state, a value computed at run time) is written as a test that skips, saying why.
 *
 * @return OPMAP_OK; OPMAP_EINVAL (a NULL argument, unknown options, a --dims entry that is
 *         not name=value, a result that is not its model's); OPMAP_ELIMIT (more than
 *         max_tests tests); OPMAP_EWRITE; OPMAP_ENOMEM.
 */
OPMAP_API int opmap_testgen_write(opmap_ctx *ctx, const opmap_model *const *models,
                                  const opmap_result *const *results, size_t count,
                                  opmap_testgen_part part, const opmap_testgen_options *opts,
                                  opmap_write_fn write, void *payload, opmap_error *err);

OPMAP_END_DECL

#endif /* OPMAP_VERIFY_H */
