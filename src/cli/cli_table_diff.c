/*
 * cli/cli_table_diff.c - `opmap table diff --torch-npu A B`: the operators whose NPU kernel
 * comes or goes between two torch_npu versions, by the rows' torch_npu ranges.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A string as a JSON string literal (the table's strings hold no control characters but
 * newline and tab; anything below 0x20 is escaped anyway). */
static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* One changed row: `+ aten::x  (2.7 ..)` in text, an object in JSON. */
static void print_row(const opmap_row *r, int json, int first)
{
    const char *lo = opmap_row_torch_npu_min(r), *hi = opmap_row_torch_npu_max(r);
    if (json) {
        printf("%s\n      {\"domain\": ", first ? "" : ",");
        json_str(opmap_row_domain(r));
        printf(", \"op\": ");
        json_str(opmap_row_op(r));
        printf(", \"min\": ");
        json_str(lo);
        printf(", \"max\": ");
        json_str(hi);
        printf("}");
        return;
    }
    printf("  %s::%s  (torch_npu %s .. %s)\n", opmap_row_domain(r), opmap_row_op(r),
           lo[0] ? lo : "?", hi[0] ? hi : "newest");
}

/* Rows that have a kernel in `to` and not in `from` (gained 1) or the reverse (gained 0). */
static size_t list(const opmap_table *t, const char *from, const char *to, int gained, int json)
{
    size_t i, n = 0;
    for (i = 0; i < opmap_table_row_count(t); i++) {
        const opmap_row *r;
        int a = 0, b = 0;
        if (opmap_table_row(t, i, &r) != OPMAP_OK ||
            opmap_row_torch_npu_has(r, from, &a, NULL) != OPMAP_OK ||
            opmap_row_torch_npu_has(r, to, &b, NULL) != OPMAP_OK || a == b || b != gained)
            continue;
        print_row(r, json, n == 0);
        n++;
    }
    return n;
}

static size_t count(const opmap_table *t, const char *from, const char *to, int gained)
{
    size_t i, n = 0;
    for (i = 0; i < opmap_table_row_count(t); i++) {
        const opmap_row *r;
        int a = 0, b = 0;
        if (opmap_table_row(t, i, &r) == OPMAP_OK &&
            opmap_row_torch_npu_has(r, from, &a, NULL) == OPMAP_OK &&
            opmap_row_torch_npu_has(r, to, &b, NULL) == OPMAP_OK && a != b && b == gained)
            n++;
    }
    return n;
}

static void report(const opmap_table *t, const char *from, const char *to, int json)
{
    size_t gained = count(t, from, to, 1), lost = count(t, from, to, 0);
    if (json) {
        printf("{\n  \"table\": ");
        json_str(opmap_table_origin(t));
        printf(",\n  \"from\": ");
        json_str(from);
        printf(",\n  \"to\": ");
        json_str(to);
        printf(",\n  \"gained\": [");
        list(t, from, to, 1, 1);
        printf("%s],\n  \"lost\": [", gained ? "\n    " : "");
        list(t, from, to, 0, 1);
        printf("%s]\n}\n", lost ? "\n    " : "");
        return;
    }
    printf("torch_npu %s -> %s (%s): %zu operator%s gain an NPU kernel, %zu lose one\n", from,
           to, opmap_table_origin(t), gained, gained == 1 ? "" : "s", lost);
    if (gained) {
        printf("\ngained (no kernel in %s, one in %s):\n", from, to);
        list(t, from, to, 1, 0);
    }
    if (lost) {
        printf("\nlost (a kernel in %s, none in %s):\n", from, to);
        list(t, from, to, 0, 0);
    }
}

int cli_table_diff(opmap_ctx *ctx, int argc, char **argv, const char *usage)
{
    const char *table = NULL, *from = NULL, *to = NULL;
    opmap_table *t;
    opmap_error err;
    int i, json = 0, cmp, rc;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--table") == 0 && i + 1 < argc) {
            table = argv[++i];
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
                   (strcmp(argv[i + 1], "text") == 0 || strcmp(argv[i + 1], "json") == 0)) {
            json = strcmp(argv[++i], "json") == 0;
        } else if (strcmp(argv[i], "--torch-npu") == 0 && i + 2 < argc) {
            from = argv[++i];
            to = argv[++i];
        } else {
            cli_fail("table diff: unknown or incomplete argument '%s'", argv[i]);
            fputs(usage, stderr);
            return EXIT_USAGE;
        }
    }
    if (!from) {
        cli_fail("table diff: --torch-npu A B is required (the two versions to compare)");
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    if (opmap_torch_npu_compare(from, to, &cmp, &err) != OPMAP_OK) {
        cli_fail("table diff --torch-npu: %s", err.message);
        return EXIT_USAGE;
    }
    table = cli_table_path(table);
    rc = table ? opmap_table_load_file(&t, ctx, table, &err) : opmap_table_load_default(&t, ctx, &err);
    if (rc != OPMAP_OK) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    report(t, from, to, json);
    opmap_table_free(t);
    return EXIT_CLEAN;
}
