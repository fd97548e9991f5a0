/*
 * tests/fuzz/fuzz_pipeline.c - a fuzzed table and a fuzzed model together: the input is
 * TABLE '\0' MODEL. The table is loaded; the model is opened, scanned against that table
 * for every chip it names and for its default chip, and every report format is written.
 * This reaches constraint evaluation, per-chip answers, dtypes and segments with rows no
 * real table has.
 *
 * Invariants: those of fuzz_table.c for the table's errors and of fuzz_onnx.c for the
 * model's; a model that opens scans against any table that loads (OPMAP_OK or a limit);
 * every report passes the checks of fuzz_common.h; everything is freed.
 */
#include "fuzz_common.h"

static void scan_and_report(opmap_ctx *ctx, const opmap_model *model, const opmap_table *t,
                            const char *soc, uint32_t variant)
{
    opmap_result *res = NULL;
    opmap_scan_options so = OPMAP_SCAN_OPTIONS_INIT;
    opmap_error err;
    int rc;
    so.soc = soc;
    rc = opmap_scan(&res, ctx, model, t, &so, &err);
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_ELIMIT, "a model that opens must scan: %d %s", rc, err.message);
        fz_check_error(rc, &err, "fuzz.model");
        return;
    }
    {
        const opmap_result *const two[2] = { res, res }; /* a portfolio of two */
        fz_write_reports(ctx, two, 1, variant);
        fz_write_reports(ctx, two, 2, variant >> 7);
    }
    opmap_result_free(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, '\0', size);
    size_t tsize = sep ? (size_t)(sep - data) : size;
    fz_alloc a = { 0 };
    opmap_ctx *ctx;
    opmap_table *t = NULL;
    opmap_model *model = NULL;
    opmap_error err;
    int rc;

    if (!sep)
        return 0;
    ctx = fz_ctx(&a, (fz_hash(data, size) & 7) == 0);
    rc = opmap_table_load_memory(&t, ctx, data, tsize, "fuzz.yaml", &err);
    if (rc != OPMAP_OK) {
        fz_check_error(rc, &err, "fuzz.yaml");
        fz_ctx_free(ctx, &a);
        return 0;
    }
    rc = opmap_model_open_memory(&model, ctx, sep + 1, size - tsize - 1, "fuzz.model", &err);
    if (rc != OPMAP_OK) {
        fz_check_error(rc, &err, "fuzz.model");
    } else {
        uint32_t h = fz_hash(data, size);
        scan_and_report(ctx, model, t, "all", h);
        scan_and_report(ctx, model, t, NULL, h >> 3);
        opmap_model_free(model);
    }
    opmap_table_free(t);
    fz_ctx_free(ctx, &a);
    return 0;
}
