/*
 * tests/fuzz/fuzz_waivers.c - bytes as a waiver file (opmap_waivers_load_memory), then the
 * gate applied with it to a fixed scan result (a small model with an unmapped operator, a
 * constraint that fires, a float64 input and a dynamic dimension), and a baseline written;
 * the same bytes as a weights file (opmap_weights_load_memory) too.
 *
 * Invariants: a failure is a documented status with a clean one-line message naming the
 * file, and YAML/schema errors carry line:column; waivers that load give a verdict
 * (OPMAP_OK) whose findings all have their strings; a waived finding does not fail the
 * gate unless its waiver expired; the baseline writes. Everything is freed.
 */
#include "fuzz_common.h"

#include <opmap/policy.h>

/* Relu, Resize(mode=cubic), com.example::FancyOp (unmapped); input x: float64[batch,3] */
static const unsigned char model_bytes[] = {
    0x08, 0x08, 0x12, 0x07, 0x68, 0x6f, 0x73, 0x74, 0x69, 0x6c, 0x65, 0x3a, 0x80, 0x01, 0x0a,
    0x0f, 0x0a, 0x01, 0x78, 0x12, 0x01, 0x79, 0x1a, 0x01, 0x72, 0x22, 0x04, 0x52, 0x65, 0x6c,
    0x75, 0x0a, 0x24, 0x0a, 0x01, 0x79, 0x12, 0x01, 0x7a, 0x1a, 0x02, 0x72, 0x73, 0x22, 0x06,
    0x52, 0x65, 0x73, 0x69, 0x7a, 0x65, 0x2a, 0x10, 0x0a, 0x04, 0x6d, 0x6f, 0x64, 0x65, 0xa0,
    0x01, 0x03, 0x22, 0x05, 0x63, 0x75, 0x62, 0x69, 0x63, 0x0a, 0x1f, 0x0a, 0x01, 0x7a, 0x12,
    0x01, 0x77, 0x1a, 0x01, 0x66, 0x22, 0x07, 0x46, 0x61, 0x6e, 0x63, 0x79, 0x4f, 0x70, 0x3a,
    0x0b, 0x63, 0x6f, 0x6d, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x12, 0x01, 0x67,
    0x5a, 0x18, 0x0a, 0x01, 0x78, 0x12, 0x13, 0x0a, 0x11, 0x08, 0x0b, 0x12, 0x0d, 0x0a, 0x07,
    0x12, 0x05, 0x62, 0x61, 0x74, 0x63, 0x68, 0x0a, 0x02, 0x08, 0x03, 0x62, 0x09, 0x0a, 0x01,
    0x77, 0x12, 0x04, 0x0a, 0x02, 0x08, 0x01, 0x42, 0x02, 0x10, 0x11, 0x42, 0x0f, 0x0a, 0x0b,
    0x63, 0x6f, 0x6d, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x10, 0x01
};

static const opmap_result *fixed_result(void)
{
    static opmap_ctx *ctx;
    static opmap_result *res;
    if (!res) {
        opmap_table *t;
        opmap_model *m;
        opmap_error err;
        FZ_CHECK(opmap_ctx_new(&ctx, NULL, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_table_load_default(&t, ctx, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_model_open_memory(&m, ctx, model_bytes, sizeof(model_bytes), "m.onnx",
                                         &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_scan(&res, ctx, m, t, NULL, &err) == OPMAP_OK, "%s", err.message);
        opmap_model_free(m);
        opmap_table_free(t);
    }
    return res;
}

static int discard(void *payload, const void *data, size_t size)
{
    (void)payload, (void)data, (void)size;
    return 0;
}

/* The same bytes as a weights file (--weights): YAML shaped like a table's weights. */
static void weights(opmap_ctx *ctx, const uint8_t *data, size_t size)
{
    static const char name[] = "fuzz.weights.yaml";
    opmap_weights w;
    opmap_error err;
    int rc = opmap_weights_load_memory(&w, ctx, data, size, name, &err), s;
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ETABLE || rc == OPMAP_ELIMIT,
                 "weights load returned %d: %s", rc, err.message);
        fz_check_error(rc, &err, name);
        if (rc != OPMAP_ELIMIT)
            FZ_CHECK(err.line >= 1 && err.column >= 1, "no line:column: %s", err.message);
        return;
    }
    for (s = 0; s < OPMAP_OP_STATUS_COUNT; s++)
        if (w.set & (1u << s))
            FZ_CHECK(w.effort[s].min <= w.effort[s].expected &&
                         w.effort[s].expected <= w.effort[s].max,
                     "weights of status %d out of order", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char name[] = "fuzz.waivers.yaml";
    const opmap_result *res = fixed_result();
    fz_alloc a = { 0 };
    opmap_ctx *ctx = fz_ctx(&a, (fz_hash(data, size) & 7) == 0);
    opmap_waivers *w = NULL;
    opmap_error err;
    int rc = opmap_waivers_load_memory(&w, ctx, data, size, name, &err);
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ETABLE || rc == OPMAP_ELIMIT,
                 "load returned %d: %s", rc, err.message);
        FZ_CHECK(!w, "a failed load returned waivers");
        fz_check_error(rc, &err, name);
        if (rc != OPMAP_ELIMIT)
            FZ_CHECK(err.line >= 1 && err.column >= 1, "no line:column: %s", err.message);
    } else {
        opmap_policy p = OPMAP_POLICY_INIT;
        opmap_verdict *v = NULL;
        size_t i;
        p.fail_on = ~0u & ((1u << OPMAP_FAIL_KIND_COUNT) - 1);
        p.waivers = w;
        p.today = "2026-06-30";
        rc = opmap_policy_check(&v, ctx, &res, 1, &p, &err);
        FZ_CHECK(rc == OPMAP_OK, "policy check: %s", err.message);
        for (i = 0; i < opmap_verdict_finding_count(v); i++) {
            opmap_finding f = { .size = sizeof(f) };
            FZ_CHECK(opmap_verdict_finding(v, i, &f) == OPMAP_OK, "finding %zu", i);
            FZ_CHECK(f.model && f.domain && f.op && f.node && f.message, "finding %zu", i);
            if (f.waived && !f.waiver_expired)
                FZ_CHECK(!f.fails, "finding %zu is waived but fails", i);
            if (f.waived)
                FZ_CHECK(f.waiver_reason && f.waiver_owner && f.waiver_expires,
                         "finding %zu: waiver strings", i);
        }
        FZ_CHECK(opmap_baseline_write(v, NULL, discard, NULL, &err) == OPMAP_OK, "baseline: %s",
                 err.message);
        opmap_verdict_free(v);
        opmap_waivers_free(w);
    }
    weights(ctx, data, size);
    fz_ctx_free(ctx, &a);
    return 0;
}
