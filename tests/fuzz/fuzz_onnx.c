/*
 * tests/fuzz/fuzz_onnx.c - model bytes through the public API: open (every format is
 * detected by content, so this reaches every reader), scan with the built-in table on every
 * chip, write every report format.
 *
 * Invariants checked on each input (see fuzz_common.h):
 *  - a failed open returns one of the documented statuses; err.code is that status, the
 *    message is one clean non-empty line, the source is the name given, a byte offset
 *    (when set) lies within the input, and a limit error names its limit;
 *  - a model that opens scans: OPMAP_OK, or OPMAP_ELIMIT for the expansion limits;
 *  - the result is self-consistent: per-status counts add up, every instance has a path;
 *  - reports write (one format per input, all of them on one input in eight): JSON/SARIF
 *    parse, text has no control bytes, HTML/JUnit/Markdown hold only the writers' own
 *    tags, Markdown rows stay whole, CSV cells never start a formula;
 *  - scanning the same bytes twice gives the same JSON report (no uninitialised state;
 *    checked on one input in four);
 *  - everything allocated through the context is freed.
 * One input in four runs under tiny limits, so the limit paths are exercised as well.
 */
#include "fuzz_common.h"

static opmap_table *builtin(opmap_ctx **tctx)
{
    static opmap_ctx *ctx;
    static opmap_table *table;
    opmap_error err;
    if (!table) {
        FZ_CHECK(opmap_ctx_new(&ctx, NULL, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_table_load_default(&table, ctx, &err) == OPMAP_OK, "%s", err.message);
    }
    *tctx = ctx;
    return table;
}

static void check_result(const opmap_result *res)
{
    opmap_summary s = { .size = sizeof(s) };
    uint64_t inst = 0, ops[OPMAP_OP_STATUS_COUNT] = { 0 };
    size_t i, c;
    const opmap_op *prev = NULL;
    FZ_CHECK(opmap_result_summary(res, &s) == OPMAP_OK, "summary");
    FZ_CHECK(opmap_result_op_count(res) == s.operators_total, "op count %zu vs summary %llu",
             opmap_result_op_count(res), (unsigned long long)s.operators_total);
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *op = NULL;
        int st;
        FZ_CHECK(opmap_result_op(res, i, &op) == OPMAP_OK && op, "operator %zu", i);
        st = opmap_op_status(op);
        FZ_CHECK(st >= 0 && st < OPMAP_OP_STATUS_COUNT, "status %d", st);
        FZ_CHECK(opmap_op_domain(op) && opmap_op_name(op) && opmap_op_notes(op) &&
                 opmap_op_hint(op) && opmap_op_ascend_op(op) && opmap_op_engine(op),
                 "NULL string of an operator");
        FZ_CHECK(opmap_op_path_count(op) == opmap_op_instances(op),
                 "%zu paths for %llu instances", opmap_op_path_count(op),
                 (unsigned long long)opmap_op_instances(op));
        /* chips with an unpublished answer are left out of the status (counted apart) */
        for (c = 0; c < opmap_result_chip_count(res); c++) {
            opmap_op_chip_info ci = { .size = sizeof(ci) };
            FZ_CHECK(opmap_op_chip(op, c, &ci) == OPMAP_OK && (ci.status <= st || ci.unknown),
                     "a chip with a published answer worse than the operator");
        }
        {
            opmap_op_chip_info ci = { .size = sizeof(ci) };
            FZ_CHECK(opmap_op_chip(op, c, &ci) == OPMAP_EINVAL, "chip %zu out of range", c);
        }
        FZ_CHECK(!opmap_op_unpublished(op) || s.unpublished > 0 ||
                     st == OPMAP_OP_STRUCTURAL, "an unpublished operator not counted");
        for (c = 0; c < opmap_op_reason_count(op); c++) {
            opmap_reason_info r = { .size = sizeof(r) };
            FZ_CHECK(opmap_op_reason(op, c, &r) == OPMAP_OK && r.message && r.value &&
                         r.example && r.grade && r.sources, "reason %zu", c);
        }
        if (prev)
            FZ_CHECK(opmap_op_status(prev) >= st, "ops not sorted");
        prev = op;
        ops[st]++;
        inst += opmap_op_instances(op);
    }
    for (i = 0; i < OPMAP_OP_STATUS_COUNT; i++)
        FZ_CHECK(ops[i] == s.operators[i], "status %zu: %llu ops, summary %llu", i,
                 (unsigned long long)ops[i], (unsigned long long)s.operators[i]);
    FZ_CHECK(inst == s.instances_total, "instances %llu vs summary %llu",
             (unsigned long long)inst, (unsigned long long)s.instances_total);
    {
        const opmap_op *none = NULL;
        i = opmap_result_op_count(res);
        FZ_CHECK(opmap_result_op(res, i, &none) == OPMAP_EINVAL && !none, "op %zu past the end", i);
    }
    for (i = 0; i < opmap_result_diag_count(res); i++) {
        opmap_diag_info d = { .size = sizeof(d) };
        FZ_CHECK(opmap_result_diag(res, i, &d) == OPMAP_OK && d.message && d.where,
                 "diagnostic %zu", i);
    }
}

/* Opens, scans and reports; returns the JSON report (caller frees) or NULL. */
/* The last open's status and error, for harnesses that wrap the input (fuzz_ts_code.c). */
static int fz_open_rc;
static opmap_error fz_open_err;

static char *run(const uint8_t *data, size_t size, int tight, int reports, uint32_t h)
{
    static const char name[] = "fuzz.model";
    fz_alloc a = { 0 };
    opmap_ctx *ctx = fz_ctx(&a, tight), *tctx;
    opmap_table *table = builtin(&tctx);
    opmap_model *model = NULL;
    opmap_result *res = NULL;
    opmap_scan_options so = OPMAP_SCAN_OPTIONS_INIT;
    opmap_error err;
    char *json = NULL;
    int rc;

    rc = opmap_model_open_memory(&model, ctx, data, size, name, &err);
    fz_open_rc = rc;
    fz_open_err = err;
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_EUNSUPPORTED || rc == OPMAP_ELIMIT,
                 "open returned %d: %s", rc, err.message);
        FZ_CHECK(!model, "a failed open returned a model");
        fz_check_error(rc, &err, name);
        /* an offset is in the file, or, when the error names a zip entry ("file:entry"),
         * in that entry's data, which inflated may be larger than the file */
        FZ_CHECK(err.offset == OPMAP_NO_OFFSET || err.offset <= size ||
                     strcmp(err.source, name) != 0,
                 "offset %llu past the end (%zu)", (unsigned long long)err.offset, size);
        fz_ctx_free(ctx, &a);
        return NULL;
    }
    FZ_CHECK(opmap_model_format(model) != OPMAP_FORMAT_UNKNOWN, "unknown format");
    FZ_CHECK(strcmp(opmap_model_name(model), name) == 0, "model name");
    {
        opmap_model_stats st = { .size = sizeof(st) };
        FZ_CHECK(opmap_model_stats_get(model, &st) == OPMAP_OK, "model stats");
        FZ_CHECK(st.nodes <= opmap_ctx_limits(ctx)->max_nodes, "%llu nodes over max_nodes",
                 (unsigned long long)st.nodes);
    }
    so.soc = "all";
    rc = opmap_scan(&res, ctx, model, table, &so, &err);
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_ELIMIT, "a model that opens must scan: %d %s", rc, err.message);
        fz_check_error(rc, &err, name);
    } else {
        const opmap_result *one = res;
        fz_buf b = { NULL, 0, 0 };
        opmap_report_options ro = OPMAP_REPORT_OPTIONS_INIT;
        check_result(res);
        opmap_model_free(model); /* a result stands alone */
        model = NULL;
        if (reports)
            fz_write_reports(ctx, &one, 1, h >> 8);
        ro.flags = OPMAP_REPORT_COMPACT;
        FZ_CHECK(opmap_report_write(ctx, &one, 1, OPMAP_REPORT_JSON, &ro, fz_buf_write, &b,
                                    &err) == OPMAP_OK, "%s", err.message);
        json = b.data;
        opmap_result_free(res);
    }
    opmap_model_free(model);
    fz_ctx_free(ctx, &a);
    (void)tctx;
    return json;
}

/* One model input: open (twice on one input in four, for determinism), scan, report. */
static void fz_model_input(const uint8_t *data, size_t size, unsigned salt)
{
    uint32_t h = fz_hash(data, size) ^ salt;
    int tight = (h & 3) == 0;
    char *first = run(data, size, tight, 1, h), *second;
    /* the second scan, for determinism, on one input in four */
    if (first && (h & 0x300) == 0) {
        second = run(data, size, tight, 0, h);
        FZ_CHECK(second && strcmp(first, second) == 0, "two scans of the same bytes differ");
        free(second);
    }
    free(first);
}

#ifndef FZ_NO_ENTRY_POINT
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_model_input(data, size, 0);
    return 0;
}
#endif
