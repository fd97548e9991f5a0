/*
 * examples/scan_model.c - a small program using libopmap: scans one model and prints, for
 * each distinct operator, its status on Ascend, its instances and why it is worse than its
 * table row says, then the estimate. Optionally writes the JSON report to a file.
 *
 * Build against an installed libopmap:
 *   cc -std=c99 scan_model.c $(pkg-config --cflags --libs opmap) -o scan_model
 *   (or with CMake: find_package(opmap), see CMakeLists.txt here)
 * Run:
 *   ./scan_model model.onnx [CHIP[,CHIP]|all] [REPORT.json]
 */
#include <inttypes.h>
#include <stdio.h>

#include <opmap/opmap.h>

static void print_days(const char *label, opmap_effort e)
{
    printf("%s %" PRIu64 ".%03" PRIu64 " %" PRIu64 ".%03" PRIu64 " %" PRIu64 ".%03" PRIu64
           " person-days\n",
           label, e.min / 1000, e.min % 1000, e.expected / 1000, e.expected % 1000,
           e.max / 1000, e.max % 1000);
}

static void print_result(const opmap_result *res)
{
    opmap_summary sum = { .size = sizeof(sum) }; /* info structs: the caller sets size */
    size_t i, j;
    printf("model: %s (%s)\n", opmap_result_model_name(res),
           opmap_format_name(opmap_result_format(res)));
    printf("chips:");
    for (i = 0; i < opmap_result_chip_count(res); i++) {
        const char *chip;
        if (opmap_result_chip(res, i, &chip) == OPMAP_OK)
            printf(" %s", chip);
    }
    printf("\n");
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *op;
        if (opmap_result_op(res, i, &op) != OPMAP_OK)
            continue;
        printf("op %s %s::%s opset=%" PRId64 " instances=%" PRIu64 " ascend=%s\n",
               opmap_op_status_name(opmap_op_status(op)), opmap_op_domain(op),
               opmap_op_name(op), opmap_op_opset(op), opmap_op_instances(op),
               *opmap_op_ascend_op(op) ? opmap_op_ascend_op(op) : "-");
        for (j = 0; j < opmap_op_reason_count(op); j++) {
            opmap_reason_info r = { .size = sizeof(r) };
            if (opmap_op_reason(op, j, &r) == OPMAP_OK)
                printf("  reason: %s [%s] on %" PRIu64 " instance(s), e.g. %s\n", r.message,
                       r.value, r.instances, r.example);
        }
    }
    if (opmap_result_summary(res, &sum) != OPMAP_OK)
        return;
    printf("totals: %" PRIu64 " operators, %" PRIu64 " instances, %" PRIu64 " unmapped\n",
           sum.operators_total, sum.instances_total, sum.operators[OPMAP_OP_UNMAPPED]);
    print_days("estimate:", sum.effort_total);
}

int main(int argc, char **argv)
{
    opmap_ctx *ctx = NULL;
    opmap_table *table = NULL;
    opmap_model *model = NULL;
    opmap_result *res = NULL;
    opmap_error err;
    opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
    char msg[1200];
    int rc, code = 0;

    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s MODEL [CHIP[,CHIP]|all] [REPORT.json]\n", argv[0]);
        return 2;
    }
    printf("libopmap %s\n", opmap_version_string());
    opts.soc = argc >= 3 && argv[2][0] ? argv[2] : NULL; /* "": the table's default */
    if ((rc = opmap_ctx_new(&ctx, NULL, &err)) != OPMAP_OK ||
        (rc = opmap_table_load_default(&table, ctx, &err)) != OPMAP_OK ||
        (rc = opmap_model_open_file(&model, ctx, argv[1], &err)) != OPMAP_OK ||
        (rc = opmap_scan(&res, ctx, model, table, &opts, &err)) != OPMAP_OK) {
        opmap_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "scan_model: %s (%s)\n", msg, opmap_status_str(rc));
        code = 1;
        goto done;
    }
    print_result(res);
    if (argc == 4) {
        const opmap_result *one[1];
        one[0] = res;
        rc = opmap_report_write_file(ctx, one, 1, OPMAP_REPORT_JSON, NULL, argv[3], &err);
        if (rc != OPMAP_OK) {
            opmap_error_format(&err, msg, sizeof msg);
            fprintf(stderr, "scan_model: %s\n", msg);
            code = 1;
        }
    }
done:
    /* The result copied what it reports: the model could have been freed right after the scan. */
    opmap_result_free(res);
    opmap_model_free(model);
    opmap_table_free(table);
    opmap_ctx_free(ctx);
    return code;
}
