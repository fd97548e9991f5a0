/*
 * tests/fuzz/fuzz_sources.c - a project of Python sources (opmap_scan_sources_memory) on
 * fuzzed text: the input split at 0xFE bytes (never in UTF-8) into up to three files,
 * a.py, b/k.cu and c/d.py, scanned against the built-in table and source rules, with
 * roomy or tiny limits picked per input; the result written as JSON and read back.
 *
 * Invariants: OK or a clean error; every pattern of domain "py", as many places as
 * instances, each place's line within its file; the JSON report reads back (opmap merge)
 * and writes the same bytes again; every allocation returned.
 */
#include "fuzz_common.h"

#include <string.h>

static const char *const names[3] = { "a.py", "b/k.cu", "c/d.py" };

static uint32_t lines_of(const uint8_t *d, size_t n)
{
    uint32_t lines = 1;
    size_t i;
    for (i = 0; i < n; i++)
        lines += d[i] == '\n' || (d[i] == '\r' && (i + 1 == n || d[i + 1] != '\n'));
    return lines;
}

static void check_result(opmap_ctx *ctx, const opmap_table *t, opmap_result *res,
                         const opmap_source_text *files, size_t n)
{
    opmap_summary s = { .size = sizeof(s) };
    opmap_report_set *set = NULL;
    const opmap_result *one = res;
    char *json = NULL, *again = NULL;
    size_t len = 0, len2 = 0, i, k;
    uint64_t places = 0;
    opmap_error err;
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *op;
        FZ_CHECK(opmap_result_op(res, i, &op) == OPMAP_OK, "op %zu", i);
        FZ_CHECK(strcmp(opmap_op_domain(op), "py") == 0, "domain %s", opmap_op_domain(op));
        FZ_CHECK(opmap_op_instances(op) == opmap_op_path_count(op), "%s: %llu instances, %zu paths",
                 opmap_op_name(op), (unsigned long long)opmap_op_instances(op),
                 opmap_op_path_count(op));
        places += opmap_op_instances(op);
        for (k = 0; k < opmap_op_path_count(op); k++) {
            opmap_path_info p = { .size = sizeof(p) };
            unsigned line = 0;
            size_t f;
            FZ_CHECK(opmap_op_path(op, k, &p) == OPMAP_OK && p.location, "path %zu", k);
            for (f = 0; f < n; f++) {
                size_t fl = strlen(files[f].name);
                if (strncmp(p.location, files[f].name, fl) == 0 && p.location[fl] == ':') {
                    line = (unsigned)strtoul(p.location + fl + 1, NULL, 10);
                    FZ_CHECK(line >= 1 && line <= lines_of(files[f].data, files[f].size),
                             "%s: line %u of %u", p.location, line,
                             lines_of(files[f].data, files[f].size));
                }
            }
        }
    }
    FZ_CHECK(opmap_result_summary(res, &s) == OPMAP_OK && s.instances_total == places,
             "summary %llu instances, %llu places", (unsigned long long)s.instances_total,
             (unsigned long long)places);
    /* JSON and back: the merge reader takes what the writer wrote, byte for byte */
    if (opmap_report_write_memory(ctx, &one, 1, OPMAP_REPORT_JSON, NULL, &json, &len, &err) !=
        OPMAP_OK)
        return; /* over the tight budget */
    if (opmap_report_set_new(&set, ctx, t, &err) == OPMAP_OK &&
        opmap_report_set_add(set, "r.json", json, len, &err) == OPMAP_OK) {
        const opmap_result *const *back = opmap_report_set_results(set);
        FZ_CHECK(opmap_report_set_count(set) == 1, "%zu results", opmap_report_set_count(set));
        if (opmap_report_write_memory(ctx, back, 1, OPMAP_REPORT_JSON, NULL, &again, &len2,
                                      &err) == OPMAP_OK)
            FZ_CHECK(len == len2 && memcmp(json, again, len) == 0, "JSON differs after merge");
    } else {
        FZ_CHECK(err.code == OPMAP_ENOMEM || err.code == OPMAP_ELIMIT,
                 "own report refused: %s", err.message);
    }
    opmap_report_set_free(set);
    opmap_free(ctx, json);
    opmap_free(ctx, again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static opmap_ctx *table_ctx;
    static opmap_table *table;
    opmap_source_text files[3];
    fz_alloc a = { 0 };
    opmap_ctx *ctx;
    opmap_result *res = NULL;
    opmap_error err;
    size_t n = 0, start = 0, i;
    int rc;
    if (!table) {
        FZ_CHECK(opmap_ctx_new(&table_ctx, NULL, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_table_load_default(&table, table_ctx, &err) == OPMAP_OK, "%s",
                 err.message);
    }
    for (i = 0; i <= size && n < 3; i++)
        if (i == size || data[i] == 0xFE) {
            files[n].name = names[n];
            files[n].data = data + start;
            files[n].size = i - start;
            n++;
            start = i + 1;
        }
    ctx = fz_ctx(&a, (fz_hash(data, size) & 3) == 0);
    rc = opmap_scan_sources_memory(&res, ctx, "fuzz", files, n, table, NULL, &err);
    if (rc != OPMAP_OK) {
        fz_check_error(rc, &err, "");
        FZ_CHECK(!res, "a result on failure");
    } else {
        check_result(ctx, table, res, files, n);
    }
    opmap_result_free(res);
    fz_ctx_free(ctx, &a);
    return 0;
}
