/*
 * cli/cli_table.c - `opmap table lint|show|stats|diff`: look into a compatibility table.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char table_usage[] =
    "usage: opmap table lint [FILE]\n"
    "       opmap table show [--table FILE] OP\n"
    "       opmap table stats [FILE]\n"
    "       opmap table diff [--table FILE] [--format text|json] --torch-npu A B\n"
    "\n"
    "  lint   load a table with the strict loader; the first problem is printed as\n"
    "         file:line:column: message (exit 3); then every fact (status, dtype list,\n"
    "         flag, constraint, chip answer, graph-mode answer) without a source or\n"
    "         grade (exit 1);\n"
    "         else a one-line summary (exit 0)\n"
    "  show   everything the table knows about an operator: OP is a name (Conv,\n"
    "         layer_norm) or domain::name (ai.onnx::Resize, aten::layer_norm)\n"
    "  stats  rows per status, domain, chip, graph-mode answer and source; the share of\n"
    "         rows with a source\n"
    "  diff   the operators that gain or lose an NPU kernel from torch_npu A to B (the\n"
    "         rows' torch_npu ranges; a version counts as its line, 2.6.0rc1 as 2.6)\n"
    "\n"
    "FILE defaults to the table built into the library.\n";

static int load(opmap_ctx *ctx, const char *path, opmap_table **out)
{
    opmap_error err;
    int rc;
    path = cli_table_path(path);
    rc = path ? opmap_table_load_file(out, ctx, path, &err)
                  : opmap_table_load_default(out, ctx, &err);
    if (rc != OPMAP_OK) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return 0;
}

static int has_source(const opmap_row *r)
{
    size_t i;
    const char *id;
    for (i = 0; i < opmap_row_source_count(r); i++)
        if (opmap_row_source(r, i, &id) == OPMAP_OK && strcmp(id, "curated") != 0)
            return 1;
    return 0;
}

/* "  [kernel: ops-nn-onnx-plugin, msit-onnx-map]" for a fact; "  [no evidence]" when none. */
void cli_print_evidence(const opmap_row *r, const char *fact)
{
    size_t n = opmap_row_evidence_source_count(r, fact), k;
    const char *grade = opmap_row_evidence(r, fact), *id;
    if (!grade || (!grade[0] && !n)) {
        printf("  [no evidence given]\n");
        return;
    }
    printf("  [%s", grade[0] ? grade : "no grade");
    for (k = 0; k < n; k++)
        if (opmap_row_evidence_source(r, fact, k, &id) == OPMAP_OK)
            printf("%s%s", k ? ", " : ": ", id);
    printf("]\n");
}

static void show_row(const opmap_table *t, const opmap_row *r)
{
    size_t i, j;
    char fact[96], dts[400];
    const char *item;
    printf("%s::%s", opmap_row_domain(r), opmap_row_op(r));
    if (opmap_row_since(r))
        printf("  since opset %" PRId64, opmap_row_since(r));
    printf("  %s\n", opmap_op_status_name(opmap_row_status(r)));
    printf("  status:      %s", opmap_op_status_name(opmap_row_status(r)));
    cli_print_evidence(r, "status");
    if (opmap_row_evidence(r, "ascend")) {
        printf("  on Ascend:   ");
        if (opmap_row_ascend_op_count(r)) {
            for (i = 0; i < opmap_row_ascend_op_count(r); i++)
                if (opmap_row_ascend_ops(r, i, &item) == OPMAP_OK)
                    printf("%s%s", i ? ", " : "", item);
        } else {
            printf("%s", opmap_row_ascend_op(r)[0] ? opmap_row_ascend_op(r)
                         : opmap_row_aclnn(r)[0] ? opmap_row_aclnn(r)
                         : opmap_row_api(r)[0] ? opmap_row_api(r)
                         : opmap_row_ascend_how(r)[0] ? opmap_row_ascend_how(r) : "not published");
        }
        if (opmap_row_engine(r)[0])
            printf(" [%s]", opmap_row_engine(r));
        if (opmap_row_ascend_op(r)[0] && opmap_row_ascend_op_count(r))
            printf("  CANN op %s", opmap_row_ascend_op(r));
        if (opmap_row_aclnn(r)[0] && (opmap_row_ascend_op(r)[0] || opmap_row_ascend_op_count(r)))
            printf("  aclnn %s", opmap_row_aclnn(r));
        if (opmap_row_api(r)[0] && (opmap_row_ascend_op(r)[0] || opmap_row_aclnn(r)[0]))
            printf("  api %s", opmap_row_api(r));
        cli_print_evidence(r, "ascend");
        if (opmap_row_ascend_how(r)[0] && (opmap_row_ascend_op_count(r) || opmap_row_ascend_op(r)[0] ||
                                           opmap_row_aclnn(r)[0] || opmap_row_api(r)[0]))
            printf("               %s\n", opmap_row_ascend_how(r));
    }
    if (opmap_row_torch_npu_min(r)[0] || opmap_row_torch_npu_max(r)[0])
        printf("  torch_npu:   %s .. %s\n",
               opmap_row_torch_npu_min(r)[0] ? opmap_row_torch_npu_min(r) : "?",
               opmap_row_torch_npu_max(r)[0] ? opmap_row_torch_npu_max(r) : "newest");
    if (opmap_row_pytorch_since(r)[0])
        printf("  pytorch:     %s%s%s (of the pinned releases)\n", opmap_row_pytorch_since(r),
               opmap_row_pytorch_until(r)[0] ? " .. " : " .. newest",
               opmap_row_pytorch_until(r));
    if (opmap_row_overload_count(r)) {
        printf("  overloads:   ");
        for (i = 0; i < opmap_row_overload_count(r); i++)
            if (opmap_row_overload(r, i, &item) == OPMAP_OK)
                printf("%s%s", i ? ", " : "", item);
        printf("\n");
    }
    if (opmap_row_dtypes(r, "dtypes", dts, sizeof(dts))) {
        printf("  dtypes:      input 0: %s", dts);
        cli_print_evidence(r, "dtypes");
    }
    for (i = 0; i < opmap_row_input_count(r); i++) {
        opmap_row_input_info in = { .size = sizeof(in) };
        if (opmap_row_input(r, i, &in) != OPMAP_OK)
            continue;
        snprintf(fact, sizeof(fact), "inputs.%u", in.index);
        opmap_row_dtypes(r, fact, dts, sizeof(dts));
        printf("  dtypes:      input %u%s%s%s: %s", in.index, in.name[0] ? " (" : "", in.name,
               in.name[0] ? ")" : "", dts);
        cli_print_evidence(r, fact);
    }
    for (i = 0; i < opmap_table_soc_count(t); i++) {
        const char *soc = "", *note = "";
        int status = -2;
        opmap_table_soc(t, i, &soc);
        for (j = 0; j < opmap_row_soc_count(r); j++) {
            opmap_row_soc_info rs = { .size = sizeof(rs) };
            if (opmap_row_soc(r, j, &rs) != OPMAP_OK || strcmp(rs.name, soc) != 0)
                continue;
            status = rs.status; /* this chip's own entry, its note with it */
            note = rs.note;
            break;
        }
        printf("  %-12s %s%s%s", soc,
               status == -2 ? "no chip entry (the row's answer applies)"
                            : status < 0 ? "unpublished" : opmap_op_status_name(status),
               note[0] ? ": " : "", note);
        snprintf(fact, sizeof(fact), "socs.%s", soc);
        if (status == -2) {
            printf("\n");
            continue;
        }
        if (opmap_row_dtypes(r, fact, dts, sizeof(dts)))
            printf("; input 0: %s", dts);
        cli_print_evidence(r, fact);
    }
    for (i = 0; i < OPMAP_FLAG_COUNT; i++) {
        snprintf(fact, sizeof(fact), "flags.%s", opmap_flag_name((unsigned)i));
        if (!(opmap_row_flags(r) & (1u << i)))
            continue;
        printf("  flag:        %s", opmap_flag_name((unsigned)i));
        cli_print_evidence(r, fact);
    }
    for (i = 0; i < opmap_row_constraint_count(r); i++) {
        snprintf(fact, sizeof(fact), "constraints.%zu", i);
        item = "";
        opmap_row_constraint_message(r, i, &item);
        printf("  constraint:  %s", item);
        cli_print_evidence(r, fact);
    }
    cli_show_graph(t, r);
    cli_show_backward(r);
    if (opmap_row_hint(r)[0])
        printf("  hint:        %s\n", opmap_row_hint(r));
    if (opmap_row_notes(r)[0])
        printf("  notes:       %s\n", opmap_row_notes(r));
    if (opmap_row_curated(r)[0])
        printf("  curated:     %s\n", opmap_row_curated(r));
    for (i = 0; i < opmap_row_source_count(r); i++) {
        const char *id = "";
        size_t k;
        opmap_row_source(r, i, &id);
        for (k = 0; k < opmap_table_source_count(t); k++) {
            opmap_source_info s = { .size = sizeof(s) };
            if (opmap_table_source(t, k, &s) != OPMAP_OK)
                continue;
            if (strcmp(s.id, id) == 0) {
                const char *g = s.grade;
                printf("  source:      %s (%s)  %s%s%s%s%s\n", id, g[0] ? g : "no grade", s.repo,
                       s.commit[0] ? "@" : "", s.commit, s.path[0] ? " " : "", s.path);
                break;
            }
        }
    }
    printf("  (%s, line %" PRIu32 ")\n\n", opmap_table_origin(t), opmap_row_line(r));
}

static int show(opmap_ctx *ctx, const char *path, const char *query)
{
    opmap_table *t;
    const char *sep = strstr(query, "::"), *name = sep ? sep + 2 : query;
    size_t i, found = 0, dlen = sep ? (size_t)(sep - query) : 0;
    int rc = load(ctx, path, &t);
    if (rc)
        return rc;
    for (i = 0; i < opmap_table_row_count(t); i++) {
        const opmap_row *r;
        if (opmap_table_row(t, i, &r) != OPMAP_OK || strcmp(opmap_row_op(r), name) != 0)
            continue;
        if (sep && (strlen(opmap_row_domain(r)) != dlen ||
                    strncmp(opmap_row_domain(r), query, dlen) != 0))
            continue;
        show_row(t, r);
        found++;
    }
    if (!found)
        printf("%s: no row in %s (a scan reports it as unmapped)\n", query, opmap_table_origin(t));
    opmap_table_free(t);
    return found ? EXIT_CLEAN : EXIT_FINDINGS;
}

/* counts of rows keyed by a string, for stats */
typedef struct tally {
    const char *key[512];
    uint64_t n[512][OPMAP_OP_STATUS_COUNT + 1];
    size_t len;
} tally;

static uint64_t *tally_row(tally *t, const char *key)
{
    size_t i;
    for (i = 0; i < t->len; i++)
        if (strcmp(t->key[i], key) == 0)
            return t->n[i];
    if (t->len == 512)
        return NULL;
    t->key[t->len] = key;
    return t->n[t->len++];
}

static void print_tally(const char *title, const tally *t, int unknown_column)
{
    size_t i;
    int s;
    printf("\n%-24s", title);
    for (s = OPMAP_OP_STATUS_COUNT - 2; s >= 0; s--)
        printf(" %10s", opmap_op_status_name(s));
    if (unknown_column)
        printf(" %10s", "unknown");
    printf("\n");
    for (i = 0; i < t->len; i++) {
        printf("%-24s", t->key[i]);
        for (s = OPMAP_OP_STATUS_COUNT - 2; s >= 0; s--)
            printf(" %10" PRIu64, t->n[i][s]);
        if (unknown_column)
            printf(" %10" PRIu64, t->n[i][OPMAP_OP_STATUS_COUNT]);
        printf("\n");
    }
}

static int stats(opmap_ctx *ctx, const char *path)
{
    opmap_table *t;
    tally *domains = calloc(1, sizeof(*domains)), *socs = calloc(1, sizeof(*socs));
    uint64_t *cites = NULL, cited = 0;
    size_t i, j, rows;
    int rc = load(ctx, path, &t);
    if (rc || !domains || !socs) {
        free(domains);
        free(socs);
        if (!rc)
            opmap_table_free(t);
        return rc ? rc : EXIT_INTERNAL;
    }
    rows = opmap_table_row_count(t);
    cites = calloc(opmap_table_source_count(t) + 1, sizeof(*cites));
    for (i = 0; i < rows; i++) {
        const opmap_row *r;
        uint64_t *d;
        if (opmap_table_row(t, i, &r) != OPMAP_OK)
            continue;
        if ((d = tally_row(domains, opmap_row_domain(r))))
            d[opmap_row_status(r)]++;
        for (j = 0; j < opmap_row_soc_count(r); j++) {
            opmap_row_soc_info rs = { .size = sizeof(rs) };
            uint64_t *c;
            if (opmap_row_soc(r, j, &rs) != OPMAP_OK)
                continue;
            if ((c = tally_row(socs, rs.name)))
                c[rs.status < 0 ? OPMAP_OP_STATUS_COUNT : rs.status]++;
        }
        for (j = 0; cites && j < opmap_row_source_count(r); j++) {
            size_t k;
            const char *id;
            if (opmap_row_source(r, j, &id) != OPMAP_OK)
                continue;
            for (k = 0; k < opmap_table_source_count(t); k++) {
                opmap_source_info s = { .size = sizeof(s) };
                if (opmap_table_source(t, k, &s) == OPMAP_OK && strcmp(s.id, id) == 0)
                    cites[k]++;
            }
        }
        cited += (uint64_t)has_source(r);
    }
    {
        /* a user table may leave about: out; no empty "( )" then */
        const char *name = opmap_table_name(t), *version = opmap_table_version(t);
        printf("%s: %zu rows", opmap_table_origin(t), rows);
        if (name[0] || version[0])
            printf(" (%s%s%s)", name, name[0] && version[0] ? " " : "", version);
        printf(", %zu sources\n", opmap_table_source_count(t));
    }
    printf("rows citing a public source: %" PRIu64 " of %zu (%.1f%%)\n", cited, rows,
           rows ? 100.0 * (double)cited / (double)rows : 0.0);
    print_tally("DOMAIN", domains, 0);
    print_tally("CHIP (per-chip answers)", socs, 1);
    cli_graph_stats(t);
    printf("\n%-28s %8s\n", "SOURCE", "ROWS");
    for (i = 0; cites && i < opmap_table_source_count(t); i++) {
        opmap_source_info s = { .size = sizeof(s) };
        if (opmap_table_source(t, i, &s) != OPMAP_OK)
            continue;
        printf("%-28s %8" PRIu64 "\n", s.id, cites[i]);
    }
    free(cites);
    free(domains);
    free(socs);
    opmap_table_free(t);
    return EXIT_CLEAN;
}

/* A fact without a source or a grade: printed as table:line: what (lint fails on any). */
static int unproven(const opmap_table *t, const opmap_row *r, const char *fact, const char *what)
{
    size_t n = opmap_row_evidence_source_count(r, fact);
    const char *grade = opmap_row_evidence(r, fact);
    if (grade && grade[0] && n)
        return 0;
    fprintf(stderr, "%s:%" PRIu32 ": %s::%s: %s has no %s\n", opmap_table_origin(t),
            opmap_row_line(r), opmap_row_domain(r), opmap_row_op(r), what,
            !grade || !n ? "source" : "grade");
    return 1;
}

/*
 * Every fact carries its source and grade: the status, what it becomes, each dtype list,
 * flag, constraint and published chip answer. Unpublished chip answers are the absence of
 * a fact and need neither.
 */
static uint64_t lint_evidence(const opmap_table *t)
{
    uint64_t bad = 0;
    size_t i, j;
    char fact[96];
    for (i = 0; i < opmap_table_row_count(t); i++) {
        const opmap_row *r;
        if (opmap_table_row(t, i, &r) != OPMAP_OK)
            continue;
        bad += (uint64_t)unproven(t, r, "status", "the status");
        if (opmap_row_evidence(r, "ascend"))
            bad += (uint64_t)unproven(t, r, "ascend", "what it becomes on Ascend");
        if (opmap_row_evidence(r, "dtypes"))
            bad += (uint64_t)unproven(t, r, "dtypes", "the dtype list");
        for (j = 0; j < opmap_row_input_count(r); j++) {
            opmap_row_input_info in = { .size = sizeof(in) };
            if (opmap_row_input(r, j, &in) != OPMAP_OK)
                continue;
            snprintf(fact, sizeof(fact), "inputs.%u", in.index);
            bad += (uint64_t)unproven(t, r, fact, "an input's dtype list");
        }
        for (j = 0; j < OPMAP_FLAG_COUNT; j++)
            if (opmap_row_flags(r) & (1u << j)) {
                snprintf(fact, sizeof(fact), "flags.%s", opmap_flag_name((unsigned)j));
                bad += (uint64_t)unproven(t, r, fact, "a flag");
            }
        for (j = 0; j < opmap_row_constraint_count(r); j++) {
            snprintf(fact, sizeof(fact), "constraints.%zu", j);
            bad += (uint64_t)unproven(t, r, fact, "a constraint");
        }
        if (opmap_row_evidence(r, "graph"))
            bad += (uint64_t)unproven(t, r, "graph", "the graph-mode answer");
        for (j = 0; j < opmap_row_soc_count(r); j++) {
            opmap_row_soc_info rs = { .size = sizeof(rs) };
            if (opmap_row_soc(r, j, &rs) != OPMAP_OK || rs.status < 0)
                continue;
            snprintf(fact, sizeof(fact), "socs.%s", rs.name);
            bad += (uint64_t)unproven(t, r, fact, "a chip answer");
        }
    }
    for (i = 0; i < opmap_table_source_count(t); i++) {
        opmap_source_info s = { .size = sizeof(s) };
        if (opmap_table_source(t, i, &s) != OPMAP_OK)
            continue;
        if (!s.grade[0]) {
            fprintf(stderr, "%s: source %s has no grade\n", opmap_table_origin(t), s.id);
            bad++;
        }
    }
    return bad;
}

static int lint(opmap_ctx *ctx, const char *path)
{
    opmap_table *t;
    uint64_t bad;
    int rc = load(ctx, path, &t);
    if (rc)
        return rc;
    if ((bad = lint_evidence(t))) {
        fprintf(stderr, "%s: %" PRIu64 " fact%s without a source or grade (docs/table-format.md, "
                "\"Evidence\")\n", opmap_table_origin(t), bad, bad == 1 ? "" : "s");
        opmap_table_free(t);
        return EXIT_FINDINGS;
    }
    printf("%s: ok, %zu rows, %zu sources, every fact with a source and a grade\n",
           opmap_table_origin(t), opmap_table_row_count(t), opmap_table_source_count(t));
    opmap_table_free(t);
    return EXIT_CLEAN;
}

int cli_table(int argc, char **argv)
{
    opmap_ctx *ctx;
    opmap_error err;
    const char *sub = argc >= 2 ? argv[1] : NULL;
    int code;
    if (!sub || strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        fputs(table_usage, sub ? stdout : stderr);
        return sub ? EXIT_CLEAN : EXIT_USAGE;
    }
    if (opmap_ctx_new(&ctx, NULL, &err) != OPMAP_OK) {
        cli_error(&err);
        return EXIT_INTERNAL;
    }
    if (strcmp(sub, "lint") == 0 && argc <= 3) {
        code = lint(ctx, argc == 3 ? argv[2] : NULL);
    } else if (strcmp(sub, "stats") == 0 && argc <= 3) {
        code = stats(ctx, argc == 3 ? argv[2] : NULL);
    } else if (strcmp(sub, "show") == 0 && argc == 3) {
        code = show(ctx, NULL, argv[2]);
    } else if (strcmp(sub, "show") == 0 && argc == 5 && strcmp(argv[2], "--table") == 0) {
        code = show(ctx, argv[3], argv[4]);
    } else if (strcmp(sub, "diff") == 0) {
        code = cli_table_diff(ctx, argc - 2, argv + 2, table_usage);
    } else {
        cli_fail("table: unknown subcommand or arguments");
        fputs(table_usage, stderr);
        code = EXIT_USAGE;
    }
    opmap_ctx_free(ctx);
    return code;
}
