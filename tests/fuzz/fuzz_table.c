/*
 * tests/fuzz/fuzz_table.c - bytes as a compatibility table (YAML, schema 1):
 * opmap_table_load_memory.
 *
 * Invariants: a failure is one of the documented statuses with err.code set, a clean
 * one-line message and the source named; YAML and schema errors (OPMAP_EFORMAT,
 * OPMAP_ETABLE) carry a line and column inside the input. A table that loads answers every
 * accessor, and looking up each of its rows by (domain, op, since) finds a row for that
 * operator; look-ups of names it lacks return NULL without crashing. Everything is freed.
 */
#include "fuzz_common.h"

/* Lines as YAML (and so libyaml's marks) counts them: LF, CR, CR LF, and NEL (U+0085),
 * LS (U+2028) and PS (U+2029). */
static uint32_t count_lines(const uint8_t *d, size_t n)
{
    uint32_t lines = 1;
    size_t i;
    for (i = 0; i < n; i++)
        if (d[i] == '\n' || (d[i] == '\r' && (i + 1 == n || d[i + 1] != '\n')) ||
            (d[i] == 0xC2 && i + 1 < n && d[i + 1] == 0x85) ||
            (d[i] == 0xE2 && i + 2 < n && d[i + 1] == 0x80 &&
             (d[i + 2] == 0xA8 || d[i + 2] == 0xA9)))
            lines++;
    return lines;
}

static void check_table(const opmap_table *t)
{
    size_t i, j, n = opmap_table_row_count(t);
    static const struct { const char *d, *op; int64_t v; } probes[] = {
        { "ai.onnx", "Conv", 17 }, { "", "Relu", 0 }, { "aten", "add", 0 },
        { "prim", "If", 0 }, { "com.microsoft", "FusedGemm", 1 }, { "x", "", -1 },
        { "", "", INT64_MAX }, { "ai.onnx", "Resize", INT64_MIN },
    };
    FZ_CHECK(opmap_table_origin(t) && opmap_table_name(t) && opmap_table_version(t) &&
                 opmap_table_torch_npu(t) && opmap_table_cann(t), "NULL table string");
    FZ_CHECK(opmap_table_soc_count(t) >= 1 && opmap_table_default_soc(t), "no chip");
    for (i = 0; i < opmap_table_soc_count(t); i++) {
        const char *soc = NULL;
        FZ_CHECK(opmap_table_soc(t, i, &soc) == OPMAP_OK && soc, "chip %zu", i);
    }
    for (i = 0; i < opmap_table_source_count(t); i++) {
        opmap_source_info s = { .size = sizeof(s) };
        FZ_CHECK(opmap_table_source(t, i, &s) == OPMAP_OK && s.id && s.url && s.grade,
                 "source %zu", i);
    }
    for (i = OPMAP_OP_STRUCTURAL; i < OPMAP_OP_STATUS_COUNT; i++) {
        opmap_effort e = opmap_table_weights(t, (int)i);
        FZ_CHECK(e.min <= e.expected && e.expected <= e.max, "weights of status %zu", i);
    }
    for (i = 0; i < n; i++) {
        const opmap_row *r = NULL, *found;
        const char *item;
        int st;
        FZ_CHECK(opmap_table_row(t, i, &r) == OPMAP_OK && r && opmap_row_domain(r) && opmap_row_op(r), "row %zu", i);
        st = opmap_row_status(r);
        FZ_CHECK(st >= 0 && st < OPMAP_OP_STATUS_COUNT, "row %zu status %d", i, st);
        FZ_CHECK(opmap_row_line(r) >= 1, "row %zu without a line", i);
        (void)opmap_row_notes(r), (void)opmap_row_hint(r), (void)opmap_row_curated(r);
        (void)opmap_row_ascend_op(r), (void)opmap_row_aclnn(r), (void)opmap_row_api(r);
        (void)opmap_row_engine(r), (void)opmap_row_flags(r);
        (void)opmap_row_torch_npu_min(r), (void)opmap_row_torch_npu_max(r);
        for (j = 0; j < opmap_row_source_count(r); j++)
            FZ_CHECK(opmap_row_source(r, j, &item) == OPMAP_OK && item, "row %zu source %zu", i,
                     j);
        for (j = 0; j < opmap_row_soc_count(r); j++) {
            opmap_row_soc_info rs = { .size = sizeof(rs) };
            FZ_CHECK(opmap_row_soc(r, j, &rs) == OPMAP_OK && rs.name && rs.note,
                     "row %zu chip %zu", i, j);
            FZ_CHECK(rs.status >= -1 && rs.status < OPMAP_OP_STATUS_COUNT,
                     "row %zu chip status %d", i, rs.status);
        }
        for (j = 0; j < opmap_row_constraint_count(r); j++)
            FZ_CHECK(opmap_row_constraint_message(r, j, &item) == OPMAP_OK && item,
                     "row %zu constraint %zu", i, j);
        for (j = 0; j < opmap_row_overload_count(r); j++)
            FZ_CHECK(opmap_row_overload(r, j, &item) == OPMAP_OK && item, "row %zu overload %zu",
                     i, j);
        for (j = 0; j < opmap_row_input_count(r); j++) {
            opmap_row_input_info in = { .size = sizeof(in) };
            FZ_CHECK(opmap_row_input(r, j, &in) == OPMAP_OK && in.name, "row %zu input %zu", i,
                     j);
        }
        FZ_CHECK(opmap_row_soc(r, j + opmap_row_soc_count(r), NULL) == OPMAP_EINVAL,
                 "row %zu: NULL info accepted", i);
        found = opmap_table_lookup(t, opmap_row_domain(r), opmap_row_op(r),
                                   opmap_row_since(r) ? opmap_row_since(r) : 1);
        FZ_CHECK(found && strcmp(opmap_row_op(found), opmap_row_op(r)) == 0 &&
                     strcmp(opmap_row_domain(found), opmap_row_domain(r)) == 0,
                 "row %zu (%s %s) not found by its own key", i, opmap_row_domain(r),
                 opmap_row_op(r));
    }
    {
        const opmap_row *none = NULL;
        FZ_CHECK(opmap_table_row(t, n, &none) == OPMAP_EINVAL && !none, "row past the end");
    }
    for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
        (void)opmap_table_lookup(t, probes[i].d, probes[i].op, probes[i].v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char name[] = "fuzz.yaml";
    fz_alloc a = { 0 };
    opmap_ctx *ctx = fz_ctx(&a, (fz_hash(data, size) & 7) == 0);
    opmap_table *t = NULL;
    opmap_error err;
    int rc = opmap_table_load_memory(&t, ctx, data, size, name, &err);
    if (rc != OPMAP_OK) {
        FZ_CHECK(rc == OPMAP_EFORMAT || rc == OPMAP_ETABLE || rc == OPMAP_ELIMIT,
                 "load returned %d: %s", rc, err.message);
        FZ_CHECK(!t, "a failed load returned a table");
        fz_check_error(rc, &err, name);
        if (rc != OPMAP_ELIMIT) {
            FZ_CHECK(err.line >= 1 && err.column >= 1, "no line:column for: %s", err.message);
            FZ_CHECK(err.line <= count_lines(data, size) + 1, "line %u past the end (%u lines)",
                     err.line, count_lines(data, size));
        }
    } else {
        check_table(t);
        opmap_table_free(t);
    }
    fz_ctx_free(ctx, &a);
    return 0;
}
