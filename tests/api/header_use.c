/*
 * tests/api/header_use.c - compiled as C (c99, c11) and as C++ (c++98, c++11, c++17) with
 * -pedantic -Wall -Wextra -Werror by check_headers.sh, linked against libopmap.so and run:
 * the public headers, their initialiser macros and their C linkage work in both languages.
 */
#include <opmap/opmap.h>

#include <stdio.h>
#include <string.h>

static int check(int ok, const char *what)
{
    if (!ok)
        fprintf(stderr, "header_use: %s\n", what);
    return ok ? 0 : 1;
}

int main(void)
{
    opmap_ctx_options copts = OPMAP_CTX_OPTIONS_INIT;
    opmap_scan_options sopts = OPMAP_SCAN_OPTIONS_INIT;
    opmap_report_options ropts = OPMAP_REPORT_OPTIONS_INIT;
    opmap_policy policy = OPMAP_POLICY_INIT;
    opmap_baseline_options bopts = OPMAP_BASELINE_OPTIONS_INIT;
    opmap_ctx *ctx = NULL;
    opmap_table *table = NULL;
    opmap_error err;
    opmap_effort e;
    opmap_source_info src;
    const opmap_row *row = NULL;
    opmap_status st = OPMAP_EINVAL;
    opmap_op_status_code oc = OPMAP_OP_UNMAPPED;
    opmap_report_format rf = OPMAP_REPORT_JSON;
    unsigned flags = OPMAP_FLAG_PRECISION | OPMAP_REPORT_COMPACT | OPMAP_FAIL_UNMAPPED;
    int bad = 0;

    (void)sopts;
    (void)ropts;
    (void)policy;
    (void)bopts;
    (void)flags;
    bad |= check(opmap_version_number() == OPMAP_VERSION_NUMBER, "version mismatch");
    bad |= check(OPMAP_AT_LEAST_VERSION(0, 0, 1), "OPMAP_AT_LEAST_VERSION");
    bad |= check(strcmp(opmap_status_str(st), "") != 0, "opmap_status_str");
    bad |= check(strcmp(opmap_op_status_name(oc), "unmapped") == 0, "opmap_op_status_name");
    bad |= check(strcmp(opmap_report_format_name(rf), "json") == 0, "opmap_report_format_name");
    bad |= check(sizeof(err.reserved) == 64, "opmap_error layout");
    memset(&err, 0, sizeof err);
    err.offset = OPMAP_NO_OFFSET;
    if (opmap_ctx_new(&ctx, &copts, &err) != OPMAP_OK ||
        opmap_table_load_default(&table, ctx, &err) != OPMAP_OK) {
        fprintf(stderr, "header_use: %s\n", err.message);
        return 1;
    }
    e = opmap_table_weights(table, OPMAP_OP_REWRITE);
    bad |= check(e.min <= e.expected && e.expected <= e.max, "weights");
    bad |= check(opmap_table_lookup(table, "ai.onnx", "Conv", 17) != NULL, "lookup Conv");
    /* the one shape of item accessors: int, an index, one out; info structs carry a size */
    bad |= check(opmap_table_row(table, 0, &row) == OPMAP_OK && row != NULL, "row 0");
    bad |= check(opmap_table_row(table, opmap_table_row_count(table), &row) == OPMAP_EINVAL &&
                 row == NULL, "row past the end");
    src.size = sizeof src;
    bad |= check(opmap_table_source(table, 0, &src) == OPMAP_OK && src.id && src.grade,
                 "source 0");
    src.size = 0;
    bad |= check(opmap_table_source(table, 0, &src) == OPMAP_EINVAL, "size 0 refused");
    opmap_table_free(table);
    opmap_ctx_free(ctx);
    if (!bad)
        printf("ok: libopmap %s\n", opmap_version_string());
    return bad;
}
