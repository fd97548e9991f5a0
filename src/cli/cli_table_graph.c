/*
 * cli/cli_table_graph.c - the graph-mode answer of an ATen row in `opmap table show`:
 * what torchair's converters do with it under torch.compile, beside the eager answer, and
 * what a `--mode graph` scan makes of the two (docs/table-format.md, "graph"); and the
 * backward answer a training scan adds ("backward").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The status a --mode graph scan gives (src/scan/graph_mode.c): the worse of the eager
 * answer and torchair's; a decomposed operator keeps the eager one. */
static const char *graph_scan_status(const opmap_row *r, const char *graph)
{
    int eager = opmap_row_status(r), worse = eager;
    if (eager == OPMAP_OP_STRUCTURAL)
        return opmap_op_status_name(eager);
    if (strcmp(graph, "partial") == 0 && worse < OPMAP_OP_PARTIAL)
        worse = OPMAP_OP_PARTIAL;
    else if ((strcmp(graph, "stub") == 0 || strcmp(graph, "none") == 0) &&
             worse < OPMAP_OP_REWRITE)
        worse = OPMAP_OP_REWRITE;
    return opmap_op_status_name(worse);
}

/* Where the graph answer comes from: the commit of its first source, torchair's registry
 * (docs/table-format.md, "graph"). */
static void print_commit(const opmap_table *t, const opmap_row *r)
{
    const char *id;
    size_t k;
    if (opmap_row_evidence_source(r, "graph", 0, &id) != OPMAP_OK)
        return;
    for (k = 0; k < opmap_table_source_count(t); k++) {
        opmap_source_info s = { .size = sizeof(s) };
        if (opmap_table_source(t, k, &s) == OPMAP_OK && strcmp(s.id, id) == 0 && s.commit[0]) {
            printf(" (%s@%s)", s.repo, s.commit);
            return;
        }
    }
}

static void print_overloads(const opmap_row *r)
{
    size_t i, n = opmap_row_graph_overload_count(r);
    if (!n)
        return;
    printf("               converters:");
    for (i = 0; i < n; i++) {
        opmap_row_graph_overload_info ov = { .size = sizeof(ov) };
        if (opmap_row_graph_overload(r, i, &ov) == OPMAP_OK)
            printf("%s %s %s%s", i ? "," : "", ov.name, ov.status, ov.counted ? " (counted)" : "");
    }
    printf("\n");
}

void cli_show_graph(const opmap_table *t, const opmap_row *r)
{
    opmap_row_graph_info g = { .size = sizeof(g) };
    if (opmap_row_graph(r, &g) != OPMAP_OK || !g.status[0]) {
        if (strcmp(opmap_row_domain(r), "aten") == 0)
            printf("  graph mode:  not answered (%s)\n",
                   opmap_row_status(r) == OPMAP_OP_STRUCTURAL ? "structural: no kernel runs"
                                                               : "the table gives no answer");
        return;
    }
    printf("  graph mode:  %s (torchair: %s%s%s)", graph_scan_status(r, g.status), g.status,
           g.via[0] ? ", as aten::" : "", g.via);
    cli_print_evidence(r, "graph");
    if (g.note[0])
        printf("               %s\n", g.note);
    print_overloads(r);
    if (g.where[0] || g.declared) {
        printf("               ");
        if (g.where[0]) {
            printf("first converter %s", g.where);
            print_commit(t, r);
        }
        if (g.declared)
            printf("%s%llu Support cases declared", g.where[0] ? "; " : "",
                   (unsigned long long)g.declared);
        printf("\n");
    }
}

/* The backward answer (docs/table-format.md, "backward"): what --workload training adds. */
void cli_show_backward(const opmap_row *r)
{
    opmap_row_backward_info b = { .size = sizeof(b) };
    size_t i;
    if (opmap_row_backward(r, &b) != OPMAP_OK || !b.status[0])
        return;
    printf("  backward:    %s%s%s", b.status, b.via[0] ? " (autograd: " : "", b.via);
    if (b.via[0])
        printf(")");
    for (i = 0; i < b.op_count; i++) {
        const char *op;
        if (opmap_row_backward_op(r, i, &op) == OPMAP_OK)
            printf("%s %s", i ? "," : ":", op);
    }
    cli_print_evidence(r, "backward");
    if (b.note[0])
        printf("               %s\n", b.note);
}

/* `opmap table stats`: ATen rows per graph-mode answer. */
void cli_graph_stats(const opmap_table *t)
{
    static const char *const names[] = { "implemented", "partial", "stub", "none",
                                         "decomposed" };
    uint64_t n[5] = { 0 }, answered = 0;
    size_t i, k;
    for (i = 0; i < opmap_table_row_count(t); i++) {
        const opmap_row *r;
        opmap_row_graph_info g = { .size = sizeof(g) };
        if (opmap_table_row(t, i, &r) != OPMAP_OK || opmap_row_graph(r, &g) != OPMAP_OK)
            continue;
        for (k = 0; k < 5; k++)
            if (strcmp(g.status, names[k]) == 0) {
                n[k]++;
                answered++;
            }
    }
    if (!answered)
        return;
    printf("\n%-24s", "GRAPH MODE (torchair)");
    for (k = 0; k < 5; k++)
        printf(" %11s", names[k]);
    printf("\n%-24s", "aten");
    for (k = 0; k < 5; k++)
        printf(" %11" PRIu64, n[k]);
    printf("\n");
}
