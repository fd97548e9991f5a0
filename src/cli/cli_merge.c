/*
 * cli/cli_merge.c - `opmap merge`: JSON reports of earlier scans (shards of one tree, run on
 * several machines) read back and written as one scan over all their files would write
 * them: every format, the portfolio estimate, the gate and the exit code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const cli_command_help merge_help = {
    "opmap merge REPORT.json... [options]",
    "Reads JSON reports written by `opmap scan --format json` (the same opmap version and "
    "table) and writes what one scan over all their models would: every format, the portfolio "
    "estimate and the gate. Registry reports (`--format registry`) merge the same way into a "
    "registry report, under the --fail-on and --waivers their scans had. Models are taken in "
    "the order of the reports given; a file in two reports (overlapping shards) is refused.",
    NULL, 0,
    "exit codes: as `opmap scan` over the same files (3 also for a report that cannot be\n"
    "            read, is not a report, or was written by another version or table)\n",
};

/* The results and unread files of the reports, as a scan run holds its own. */
static int fill_run(scan_run *run, const opmap_report_set *set)
{
    const opmap_result *const *res = opmap_report_set_results(set);
    const opmap_file_problem *p = opmap_report_set_problems(set, &run->n_problems);
    size_t i;
    if (!run->stream)
        run->count = opmap_report_set_count(set);
    else /* the models handed on, or read as rows */
        run->count = opmap_report_stream_count(run->stream);
    if (!(run->slots = calloc(run->count && !run->stream ? run->count : 1, sizeof(*run->slots))) ||
        !(run->problems = calloc(run->n_problems ? run->n_problems : 1, sizeof(*p))))
        return EXIT_INTERNAL;
    for (i = 0; !run->stream && i < run->count; i++)
        run->slots[i] = (opmap_result *)res[i]; /* still the set's: freed with it */
    for (i = 0; i < run->n_problems; i++) {
        run->problems[i] = p[i];
        if (p[i].skipped) { /* the note the shard's scan gave when it met the file */
            char msg[1200];
            if (p[i].error)
                opmap_error_format(p[i].error, msg, sizeof(msg));
            else
                snprintf(msg, sizeof(msg), "%s", p[i].file);
            cli_fail("note: skipped %s", msg);
            run->skipped++;
        } else {
            run->input_failed = 1; /* as the shard's scan said when it met the file */
            if (p[i].error)
                cli_error(p[i].error);
            else
                cli_fail("%s: could not be read", p[i].file);
        }
    }
    return 0;
}

/* A model read back, handed to the report stream. */
static int take(void *payload, opmap_result *res, opmap_error *err)
{
    scan_run *run = payload;
    if (cli_stream_take(run, res) == 0)
        return OPMAP_OK;
    /* said already: stop reading, and say nothing more */
    err->code = OPMAP_EINTERNAL;
    err->message[0] = '\0';
    return OPMAP_EINTERNAL;
}

/*
 * What the reports are: JSON reports (each model's result, any format can be written) or
 * registry reports (a summary of each model: only a registry can be written again). 1 for
 * registry reports, 0 for JSON ones, else the exit code (negated) after saying why.
 */
static int registries(const scan_opts *o, opmap_ctx *ctx, int argc, char **argv)
{
    opmap_report_format f, first = OPMAP_REPORT_JSON;
    opmap_error err;
    size_t k;
    int i;
    for (i = optind; i < argc; i++) {
        if (opmap_report_file_format(ctx, argv[i], &f, &err) != OPMAP_OK) {
            cli_error(&err);
            return -cli_exit_for(err.code);
        }
        if (i > optind && f != first) {
            cli_fail("%s is a %s report and %s a %s one: merge JSON reports or registry "
                     "reports, not both", argv[i], opmap_report_format_name(f), argv[optind],
                     opmap_report_format_name(first));
            return -EXIT_USAGE;
        }
        first = f;
    }
    if (first != OPMAP_REPORT_REGISTRY)
        return 0;
    for (k = 0; k < o->n_formats; k++)
        if (o->formats[k] != OPMAP_REPORT_REGISTRY) {
            cli_fail("--format %s: a registry report keeps a summary of each model, not its "
                     "result, so registry reports merge into a registry report only "
                     "(--format registry); merge the shards' JSON reports for %s",
                     opmap_report_format_name(o->formats[k]),
                     opmap_report_format_name(o->formats[k]));
            return -EXIT_USAGE;
        }
    return 1;
}

static int load(const scan_opts *o, scan_run *run, opmap_report_set **set, int argc,
                char **argv)
{
    opmap_error err;
    const char *table = cli_table_path(o->table);
    int i, rc, reg, show = !o->quiet && argc - optind > 1 && isatty(STDERR_FILENO);
    if (opmap_ctx_new(&run->ctx, NULL, &err) != OPMAP_OK) {
        cli_error(&err);
        return EXIT_INTERNAL;
    }
    if ((reg = registries(o, run->ctx, argc, argv)) < 0)
        return -reg;
    run->counted_only = reg;
    if (reg && !cli_streams(o)) {
        cli_fail("registry reports are merged one row at a time: unset OPMAP_NO_STREAM");
        return EXIT_USAGE;
    }
    rc = table ? opmap_table_load_file(&run->table, run->ctx, table, &err)
               : opmap_table_load_default(&run->table, run->ctx, &err);
    if (rc == OPMAP_OK && o->waivers)
        rc = opmap_waivers_load_file(&run->waivers, run->ctx, o->waivers, &err);
    if (rc == OPMAP_OK)
        rc = opmap_report_set_new(set, run->ctx, run->table, &err);
    if (rc == OPMAP_OK && cli_streams(o) && (rc = cli_stream_start(o, run)))
        return rc;
    for (i = optind; rc == OPMAP_OK && i < argc; i++) {
        if (show) {
            char safe[1024];
            opmap_text_for_terminal(argv[i], safe, sizeof(safe));
            fprintf(stderr, "\r\033[K[%d/%d] %s", i - optind + 1, argc - optind, safe);
        }
        rc = reg ? opmap_report_stream_read(run->stream, *set, argv[i], &err)
           : run->stream ? opmap_report_set_stream_file(*set, argv[i], take, run, &err)
                         : opmap_report_set_add_file(*set, argv[i], &err);
    }
    if (show)
        fputs("\r\033[K", stderr);
    if (rc != OPMAP_OK) {
        if (run->stream && err.code == OPMAP_EINTERNAL && !err.message[0])
            return run->internal ? EXIT_INTERNAL : EXIT_INPUT; /* the stream said why */
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return fill_run(run, *set);
}

int cli_merge(int argc, char **argv)
{
    scan_opts o;
    scan_run run;
    opmap_report_set *set = NULL;
    int code;
    memset(&run, 0, sizeof(run));
    if ((code = cli_parse_scan(argc, argv, &o, CLI_MERGE, &merge_help)))
        return code < 0 ? EXIT_CLEAN : code;
    if ((code = load(&o, &run, &set, argc, argv)) == 0)
        code = cli_finish(&o, &run);
    free(run.slots);
    free(run.problems);
    opmap_report_stream_free(run.stream);
    for (size_t i = 0; i < run.n_unscanned; i++)
        free(run.unscanned[i]);
    for (size_t i = 0; i < run.n_gate_lines; i++)
        free(run.gate_lines[i]);
    free(run.unscanned);
    opmap_report_set_free(set);
    opmap_waivers_free(run.waivers);
    opmap_table_free(run.table);
    opmap_ctx_free(run.ctx);
    return code;
}
