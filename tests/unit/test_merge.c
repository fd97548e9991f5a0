/*
 * tests/unit/test_merge.c - JSON reports read back (opmap_report_set_*): what a scan wrote
 * comes back as the same results (rows, totals, problems in their order) and writes the same
 * bytes again; reports of another table, edited, overlapping, malformed or over a limit are
 * refused with an error naming the field, and leave the set as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "../support/onnx_build.h"

#define TABLE(version)                                                                      \
    "schema: 1\n"                                                                           \
    "about: {name: t, version: \"" version "\"}\n"                                          \
    "weights:\n"                                                                            \
    "  partial: {min: 0.125, expected: 0.8, max: 1.5}\n"                                    \
    "sources:\n  - {id: s}\n"                                                               \
    "ops:\n"                                                                                \
    "  - {domain: ai.onnx, op: Conv, since: 11, status: full, sources: [s],\n"              \
    "     ascend: {op: Conv2D, engine: ai_core}}\n"                                         \
    "  - {domain: ai.onnx, op: Relu, since: 14, status: partial, sources: [s], hint: x}\n"

static const char table_v1[] = TABLE("1");
static const char table_v2[] = TABLE("2");

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table, *other;
    opmap_result *res[2];
    opmap_error errs[2];
    opmap_file_problem problems[2];
    char *json;               /* the report of res[0..1] and the problems */
    size_t len;
} fixture;

/* A model of the nodes named by `ops` ("NoSuchOp" is in a domain the table lacks). */
static opmap_result *scan_ops(fixture *f, const char *name, const char *const *ops, size_t n)
{
    mb b;
    Onnx__GraphProto *g;
    Onnx__ModelProto *m;
    const uint8_t *buf;
    size_t len, i;
    opmap_model *model;
    opmap_result *res;
    mb_init(&b);
    g = mb_graph(&b, "g");
    for (i = 0; i < n; i++)
        mb_node(&b, g, ops[i], strcmp(ops[i], "NoSuchOp") == 0 ? "com.example" : NULL, NULL,
                NULL, NULL);
    m = mb_model(&b, g, 8);
    mb_opset(&b, m, "", 17);
    mb_opset(&b, m, "com.example", 1);
    buf = mb_pack(&b, m, &len);
    assert_int_equal(opmap_model_open_memory(&model, f->ctx, buf, len, name, NULL), OPMAP_OK);
    assert_int_equal(opmap_scan(&res, f->ctx, model, f->table, NULL, NULL), OPMAP_OK);
    opmap_model_free(model);
    mb_free(&b);
    return res;
}

static char *write_report(opmap_ctx *ctx, const opmap_result *const *res, size_t n,
                          const opmap_file_problem *p, size_t n_p, opmap_report_format fmt,
                          size_t *len)
{
    opmap_report_options o = OPMAP_REPORT_OPTIONS_INIT;
    char *text = NULL;
    o.problems = p;
    o.problem_count = n_p;
    assert_int_equal(opmap_report_write_memory(ctx, res, n, fmt, &o, &text, len, NULL),
                     OPMAP_OK);
    return text;
}

static int setup(void **state)
{
    static fixture f;
    static const char *const a[] = { "Conv", "Relu", "Relu", "NoSuchOp" };
    static const char *const b[] = { "Relu", "Conv" };
    memset(&f, 0, sizeof(f));
    if (opmap_ctx_new(&f.ctx, NULL, NULL) != OPMAP_OK ||
        opmap_table_load_memory(&f.table, f.ctx, table_v1, sizeof(table_v1) - 1, "t1", NULL) ||
        opmap_table_load_memory(&f.other, f.ctx, table_v2, sizeof(table_v2) - 1, "t1", NULL))
        return -1;
    f.res[0] = scan_ops(&f, "a.onnx", a, 4);
    f.res[1] = scan_ops(&f, "b.onnx", b, 2);
    /* a file skipped, then one not read at line 3:7: their order must survive */
    f.errs[0].code = OPMAP_EUNSUPPORTED;
    f.errs[0].offset = OPMAP_NO_OFFSET;
    strcpy(f.errs[0].source, "ckpt.pt");
    strcpy(f.errs[0].message, "a checkpoint, not a model");
    f.errs[1].code = OPMAP_EFORMAT;
    f.errs[1].offset = OPMAP_NO_OFFSET;
    f.errs[1].line = 3;
    f.errs[1].column = 7;
    strcpy(f.errs[1].source, "bad.txt");
    strcpy(f.errs[1].message, "expected ')'");
    f.problems[0] = (opmap_file_problem){ "ckpt.pt", 1, &f.errs[0] };
    f.problems[1] = (opmap_file_problem){ "bad.txt", 0, &f.errs[1] };
    f.json = write_report(f.ctx, (const opmap_result *const *)f.res, 2, f.problems, 2,
                          OPMAP_REPORT_JSON, &f.len);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    opmap_free(f->ctx, f->json);
    opmap_result_free(f->res[0]);
    opmap_result_free(f->res[1]);
    opmap_table_free(f->table);
    opmap_table_free(f->other);
    opmap_ctx_free(f->ctx);
    return 0;
}

static void test_merge__a_report_reads_back_as_it_was_written(void **state)
{
    fixture *f = *state;
    opmap_report_set *set;
    opmap_summary want = { .size = sizeof(want) }, got = { .size = sizeof(got) };
    const opmap_file_problem *p;
    const opmap_op *op, *orig;
    size_t n, i, len;
    opmap_report_format fmt;
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_set_add(set, "r.json", f->json, f->len, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_set_count(set), 2);
    assert_string_equal(opmap_result_model_name(opmap_report_set_results(set)[1]), "b.onnx");
    for (i = 0; i < 2; i++) {
        const opmap_result *r = opmap_report_set_results(set)[i];
        assert_int_equal(opmap_result_summary(f->res[i], &want), OPMAP_OK);
        assert_int_equal(opmap_result_summary(r, &got), OPMAP_OK);
        assert_int_equal(got.effort_total.min, want.effort_total.min);
        assert_int_equal(got.effort_total.expected, want.effort_total.expected);
        assert_int_equal(got.effort_total.max, want.effort_total.max);
        assert_int_equal(got.instances_total, want.instances_total);
        assert_int_equal(opmap_result_op_count(r), opmap_result_op_count(f->res[i]));
        /* the rows are found again: the same row objects as the scan's */
        assert_int_equal(opmap_result_op(r, 0, &op), OPMAP_OK);
        assert_int_equal(opmap_result_op(f->res[i], 0, &orig), OPMAP_OK);
        assert_ptr_equal(opmap_op_row(op), opmap_op_row(orig));
        assert_string_equal(opmap_op_name(op), opmap_op_name(orig));
    }
    /* thousandths of a person-day exactly: 0.125 * 2 instances of a partial op is 0.125 */
    assert_int_equal(opmap_result_summary(opmap_report_set_results(set)[0], &got), OPMAP_OK);
    assert_int_equal(got.effort[OPMAP_OP_PARTIAL].min, 125);
    p = opmap_report_set_problems(set, &n);
    assert_int_equal(n, 2);
    assert_true(p[0].skipped);
    assert_string_equal(p[0].file, "ckpt.pt");
    assert_false(p[1].skipped);
    assert_int_equal(p[1].error->code, OPMAP_EFORMAT);
    assert_int_equal(p[1].error->line, 3);
    assert_int_equal(p[1].error->column, 7);
    assert_int_equal(p[1].error->offset, OPMAP_NO_OFFSET);
    assert_string_equal(p[1].error->message, "expected ')'");
    /* every format writes the same bytes from the set as from the scan */
    for (fmt = OPMAP_REPORT_TEXT; opmap_report_format_name(fmt); fmt = (opmap_report_format)(fmt + 1)) {
        size_t len2;
        char *a = write_report(f->ctx, (const opmap_result *const *)f->res, 2, f->problems, 2,
                               fmt, &len);
        char *b = write_report(f->ctx, opmap_report_set_results(set), 2, p, n, fmt, &len2);
        assert_int_equal(len, len2);
        assert_memory_equal(a, b, len);
        opmap_free(f->ctx, a);
        opmap_free(f->ctx, b);
    }
    opmap_report_set_free(set);
}

/* The report with `from` replaced by `to` (the first occurrence; it must be there). */
static char *edited(const fixture *f, const char *from, const char *to, size_t *len)
{
    const char *at = strstr(f->json, from);
    char *out;
    assert_non_null(at);
    *len = f->len - strlen(from) + strlen(to);
    out = malloc(*len + 1);
    assert_non_null(out);
    memcpy(out, f->json, (size_t)(at - f->json));
    strcpy(out + (at - f->json), to);
    strcat(out, at + strlen(from));
    return out;
}

/* Adding `text` is refused with `code` and a message holding `why`; the set keeps `keep`. */
static void refused(opmap_report_set *set, const char *text, size_t len, int code,
                    const char *why, size_t keep)
{
    opmap_error err;
    assert_int_equal(opmap_report_set_add(set, "r.json", text, len, &err), code);
    assert_int_equal(err.code, code);
    assert_string_equal(err.source, "r.json");
    if (!strstr(err.message, why))
        fail_msg("'%s' not in '%s'", why, err.message);
    if (code == OPMAP_EFORMAT && !strstr(why, "overlap")) /* where in the report it is */
        assert_true(err.offset != OPMAP_NO_OFFSET);
    assert_int_equal(opmap_report_set_count(set), keep);
}

static void test_merge__other_tables_edits_and_overlaps_are_refused(void **state)
{
    fixture *f = *state;
    opmap_report_set *set, *other;
    size_t len, n;
    char *t;
    assert_int_equal(opmap_report_set_new(&other, f->ctx, f->other, NULL), OPMAP_OK);
    refused(other, f->json, f->len, OPMAP_EFORMAT, "table.version: '1', where the table's "
            "version is '2'", 0);
    opmap_report_set_free(other);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    t = edited(f, "\"opmap-report/5\"", "\"opmap-report/3\"", &len);
    refused(set, t, len, OPMAP_EFORMAT, "schema: 'opmap-report/3'", 0);
    free(t);
    t = edited(f, "\"instances\": 2", "\"instances\": 3", &len);
    refused(set, t, len, OPMAP_EFORMAT, "do not add up", 0);
    free(t);
    t = edited(f, "\"status\": \"partial\"", "\"status\": 7", &len);
    refused(set, t, len, OPMAP_EFORMAT, "models[0].operators[", 0);
    free(t);
    /* cut before its last "}\n": the document ends with its top object still open */
    refused(set, f->json, f->len - 2, OPMAP_EFORMAT, "ends inside", 0);
    refused(set, "[]", 2, OPMAP_EFORMAT, "not a JSON report", 0);
    assert_int_equal(opmap_report_set_add(set, "r.json", f->json, f->len, NULL), OPMAP_OK);
    refused(set, f->json, f->len, OPMAP_EFORMAT, "the shards overlap", 2);
    opmap_report_set_problems(set, &n);
    assert_int_equal(n, 2);
    opmap_report_set_free(set);
}

/* A scan's chips and parts are the table's: a report naming others was edited (and its
 * names would reach every format unchecked). */
static void test_merge__chips_and_parts_are_held_against_the_table(void **state)
{
    fixture *f = *state;
    opmap_report_set *set;
    size_t len;
    char *t;
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    t = edited(f, "\"chips\": [\n    \"ascend910b\"", "\"chips\": [\n    \"x\\u001b[31m\"",
               &len);
    refused(set, t, len, OPMAP_EFORMAT, "is not a chip of the table", 0);
    free(t);
    t = edited(f, "\"chips\": [\n    \"ascend910b\"\n  ]", "\"chips\": []", &len);
    refused(set, t, len, OPMAP_EFORMAT, "0 chips", 0);
    free(t);
    t = edited(f, "\"part\": null", "\"part\": \"<b>Ascend910B3\"", &len);
    refused(set, t, len, OPMAP_EFORMAT, "is not a part of 'ascend910b'", 0);
    free(t);
    t = edited(f, "\"parts\": []", "\"parts\": [\"Ascend910X\"]", &len);
    refused(set, t, len, OPMAP_EFORMAT, "socs[0].parts", 0);
    free(t);
    opmap_report_set_free(set);
}

/* A shard whose every file is unreadable has no table, chips or target in its report (the
 * writer has no result to take them from): it merges, and the set writes what one scan
 * would. */
static void test_merge__a_report_of_no_model_merges(void **state)
{
    fixture *f = *state;
    opmap_report_set *set;
    opmap_error e = { .code = OPMAP_EFORMAT, .offset = OPMAP_NO_OFFSET };
    opmap_file_problem all[3];
    const opmap_file_problem *p;
    opmap_report_format fmt;
    size_t len, len2, n;
    char *empty;
    strcpy(e.source, "x.bin");
    strcpy(e.message, "not a model");
    all[0] = (opmap_file_problem){ "x.bin", 0, &e };
    all[1] = f->problems[0];
    all[2] = f->problems[1];
    empty = write_report(f->ctx, NULL, 0, all, 1, OPMAP_REPORT_JSON, &len);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_set_add(set, "empty.json", empty, len, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_set_add(set, "r.json", f->json, f->len, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_set_count(set), 2);
    p = opmap_report_set_problems(set, &n);
    assert_int_equal(n, 3);
    for (fmt = OPMAP_REPORT_TEXT; opmap_report_format_name(fmt); fmt = (opmap_report_format)(fmt + 1)) {
        char *a = write_report(f->ctx, (const opmap_result *const *)f->res, 2, all, 3, fmt, &len);
        char *b = write_report(f->ctx, opmap_report_set_results(set), 2, p, n, fmt, &len2);
        assert_int_equal(len, len2);
        assert_memory_equal(a, b, len);
        opmap_free(f->ctx, a);
        opmap_free(f->ctx, b);
    }
    opmap_report_set_free(set);
    opmap_free(f->ctx, empty);
}

static void test_merge__limits_bound_a_report(void **state)
{
    fixture *f = *state;
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *tight;
    opmap_report_set *set;
    opmap_error err;
    char deep[20001];
    int rc;
    /* nesting: an explicit stack, refused at its bound whatever the depth */
    memset(deep, '[', 10000);
    memset(deep + 10000, ']', 10000);
    assert_int_equal(opmap_report_set_new(&set, f->ctx, f->table, NULL), OPMAP_OK);
    refused(set, deep, 20000, OPMAP_ELIMIT, "", 0);
    opmap_report_set_free(set);
    /* memory: the tree and the results are drawn from max_heap_bytes */
    o.limits.max_heap_bytes = 2048;
    assert_int_equal(opmap_ctx_new(&tight, &o, NULL), OPMAP_OK);
    assert_int_equal(opmap_report_set_new(&set, tight, f->table, NULL), OPMAP_OK);
    rc = opmap_report_set_add(set, "r.json", f->json, f->len, &err);
    assert_int_equal(rc, OPMAP_ELIMIT);
    assert_non_null(strstr(err.message, "max_heap_bytes"));
    assert_int_equal(opmap_report_set_count(set), 0);
    opmap_report_set_free(set);
    opmap_ctx_free(tight);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge__a_report_reads_back_as_it_was_written),
        cmocka_unit_test(test_merge__other_tables_edits_and_overlaps_are_refused),
        cmocka_unit_test(test_merge__chips_and_parts_are_held_against_the_table),
        cmocka_unit_test(test_merge__a_report_of_no_model_merges),
        cmocka_unit_test(test_merge__limits_bound_a_report),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
