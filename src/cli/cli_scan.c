/*
 * cli/cli_scan.c - `opmap scan FILE|DIR... [--table F] [--format text|json] [-o OUT]`.
 *
 * Every model is scanned even when one fails; failures are reported on stderr as they
 * happen and decide the exit code (an input error outranks findings).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char scan_usage[] =
    "usage: opmap scan FILE|DIR... [options]\n"
    "\n"
    "Scans models (a directory: every *.onnx below it) against the compatibility table.\n"
    "\n"
    "options:\n"
    "  --table FILE         use this table instead of the built-in one\n"
    "  --soc CHIP[,CHIP]    the chips to answer for (default: the table's, ascend910b);\n"
    "                       all = every chip the table knows (opmap table stats lists them)\n"
    "  --format text|json   report format (default: text)\n"
    "  -o, --output FILE    write the report to FILE (default: standard output)\n"
    "  -q, --quiet          no progress on standard error\n"
    "  -h, --help           this help\n"
    "\n"
    "exit codes: 0 clean, 1 unmapped operators found, 2 usage,\n"
    "            3 a model or table unreadable or invalid, 4 report not written\n";

typedef struct scan_opts {
    const char *table;
    const char *soc;
    const char *output;
    opmap_report_format format;
    int quiet;
} scan_opts;

static int parse(int argc, char **argv, scan_opts *o)
{
    static const struct option longopts[] = {
        { "table", required_argument, NULL, 't' },
        { "soc", required_argument, NULL, 's' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c;
    memset(o, 0, sizeof(*o));
    o->format = OPMAP_REPORT_TEXT;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 't': o->table = optarg; break;
        case 's': o->soc = optarg; break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'f':
            if (opmap_report_format_parse(optarg, &o->format) != OPMAP_OK) {
                cli_fail("unknown format '%s' (expected text or json)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(scan_usage, stdout);
            return -1;
        default:
            fputs(scan_usage, stderr);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        cli_fail("scan: give at least one model file or directory");
        fputs(scan_usage, stderr);
        return EXIT_USAGE;
    }
    return 0;
}

static void progress(size_t done, size_t total, const char *path, int show)
{
    if (!show)
        return;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, path);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

int cli_scan(int argc, char **argv)
{
    scan_opts o;
    cli_paths paths = { 0 };
    opmap_ctx *ctx = NULL;
    opmap_table *table = NULL;
    opmap_result **results = NULL;
    size_t n_results = 0, i;
    opmap_error err;
    opmap_scan_options sopts = OPMAP_SCAN_OPTIONS_INIT;
    int rc, code = EXIT_CLEAN, input_failed = 0, show;
    unsigned flags = 0;

    if ((rc = parse(argc, argv, &o)))
        return rc < 0 ? EXIT_CLEAN : rc;
    for (i = (size_t)optind; i < (size_t)argc; i++)
        if ((rc = cli_paths_add(&paths, argv[i]))) {
            cli_paths_free(&paths);
            return rc;
        }
    if (opmap_ctx_new(&ctx, NULL, &err) != OPMAP_OK) {
        cli_error(&err);
        cli_paths_free(&paths);
        return EXIT_INTERNAL;
    }
    rc = o.table ? opmap_table_load_file(&table, ctx, o.table, &err)
                 : opmap_table_load_default(&table, ctx, &err);
    if (rc != OPMAP_OK) {
        cli_error(&err);
        code = cli_exit_for(rc);
        goto done;
    }
    sopts.soc = o.soc;
    if (!(results = calloc(paths.len, sizeof(*results)))) {
        code = EXIT_INTERNAL;
        goto done;
    }
    show = !o.quiet && paths.len > 1 && isatty(STDERR_FILENO);
    for (i = 0; i < paths.len; i++) {
        opmap_model *model = NULL;
        progress(i + 1, paths.len, paths.items[i], show);
        rc = opmap_model_open_file(&model, ctx, paths.items[i], &err);
        if (rc == OPMAP_OK)
            rc = opmap_scan(&results[n_results], ctx, model, table, &sopts, &err);
        if (rc == OPMAP_OK) {
            n_results++;
        } else if (rc == OPMAP_EINVAL) {
            cli_error(&err); /* e.g. an unknown chip: the same for every model */
            opmap_model_free(model);
            code = EXIT_USAGE;
            goto done;
        } else {
            if (show)
                fputs("\r\033[K", stderr);
            cli_error(&err);
            input_failed = 1;
            if (cli_exit_for(rc) == EXIT_INTERNAL)
                code = EXIT_INTERNAL;
        }
        opmap_model_free(model);
    }
    if (o.format == OPMAP_REPORT_TEXT && !o.output && isatty(STDOUT_FILENO) &&
        !getenv("NO_COLOR"))
        flags |= OPMAP_REPORT_COLOR;
    if (n_results || !input_failed) {
        rc = cli_write_report(ctx, (const opmap_result *const *)results, n_results, o.format,
                              flags, o.output);
        if (rc) {
            code = rc;
            goto done;
        }
    }
    if (code == EXIT_CLEAN) {
        if (input_failed) {
            code = EXIT_INPUT;
        } else {
            for (i = 0; i < n_results; i++) {
                opmap_summary s;
                opmap_result_summary(results[i], &s);
                if (s.operators[OPMAP_OP_UNMAPPED])
                    code = EXIT_FINDINGS;
            }
        }
    }
done:
    for (i = 0; i < n_results; i++)
        opmap_result_free(results[i]);
    free(results);
    opmap_table_free(table);
    opmap_ctx_free(ctx);
    cli_paths_free(&paths);
    return code;
}
