/*
 * cli/cli_scan.c - `opmap scan`: scan models, write the reports, apply the gate.
 *
 * Exit code: 3 when a model or input file could not be read, or no model was found (it
 * outranks the gate), 1 when the gate fails, else 0 (docs/cli.md). The reports are written
 * in every case, listing the files not read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const cli_command_help scan_help = {
    "opmap scan FILE|DIR... [--files-from LIST] [options]",
    "Scans models and the training code beside them: a file is read whatever its name; a "
    "directory, every file below it of the formats below (its Python sources as one "
    "project).",
    NULL, 1,
    "exit codes: 0 the gate passes, 1 the gate fails, 2 usage,\n"
    "            3 a model or input file unreadable or invalid, or no model found,\n"
    "            4 report not written\n",
};

void cli_policy(const scan_opts *o, const scan_run *run, opmap_policy *policy)
{
    opmap_policy init = OPMAP_POLICY_INIT;
    *policy = init;
    policy->fail_on = o->fail_on_given ? o->fail_on : OPMAP_FAIL_UNMAPPED;
    policy->max_effort = o->max_effort;
    policy->waivers = run->waivers;
    policy->today = getenv("OPMAP_TODAY"); /* tests pin the date; unset means the clock */
    policy->problems = run->problems;
    policy->problem_count = run->n_problems;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where each format goes: one format to -o (or stdout, or into -o when it is a
 * directory); several formats into the directory -o, as opmap-report.<ext>. */
static int write_reports(const scan_opts *o, scan_run *run, const opmap_report_options *ropts)
{
    size_t i;
    int many = o->n_formats > 1, rc;
    if (many && !o->output) {
        cli_fail("several formats need -o DIR to write them into");
        return EXIT_USAGE;
    }
    if (many && !is_dir(o->output) && mkdir(o->output, 0777) != 0) {
        cli_fail("%s: cannot create the report directory: %s", o->output, strerror(errno));
        return EXIT_OUTPUT;
    }
    for (i = 0; i < o->n_formats; i++) {
        opmap_report_options opts = *ropts;
        char path[4096];
        const char *target = o->output;
        if (o->output && (many || is_dir(o->output))) {
            snprintf(path, sizeof(path), "%s/opmap-report.%s", o->output,
                     opmap_report_format_extension(o->formats[i]));
            target = path;
        }
        if (o->formats[i] == OPMAP_REPORT_TEXT && (!target || strcmp(target, "-") == 0) &&
            isatty(STDOUT_FILENO) && !getenv("NO_COLOR"))
            opts.flags |= OPMAP_REPORT_COLOR;
        if ((rc = cli_write_report(run->ctx, (const opmap_result *const *)run->slots, run->count,
                                   o->formats[i], &opts, target)))
            return rc;
    }
    return 0;
}

/* The gate's failing findings, on standard error. */
static void print_failures(const opmap_verdict *v)
{
    size_t i, n = opmap_verdict_finding_count(v), shown = 0, failing = 0;
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, i, &f);
        if (!f.fails)
            continue;
        failing++;
        if (shown++ < 20)
            cli_fail("gate: %s: %s%s%s%s", opmap_fail_kind_name((unsigned)__builtin_ctz(f.kind)),
                     f.message, f.model[0] ? " in " : "", f.model,
                     f.waiver_expired ? " (its waiver has expired)" : "");
    }
    if (failing > shown)
        fprintf(stderr, "opmap: gate: ... and %zu more\n", failing - shown);
    fprintf(stderr, "opmap: the gate fails: %zu finding%s\n", failing, failing == 1 ? "" : "s");
}

/* Python files the scan was given and did not scan, on standard error, -q or not: the
 * source gate fails on them, and a report written to a file would be the only other place
 * that says so. */
static void print_unscanned(const scan_run *run)
{
    size_t i, k;
    for (i = 0; i < run->count; i++) {
        const opmap_result *r = run->slots[i];
        for (k = 0; r && k < opmap_result_diag_count(r); k++) {
            opmap_diag_info d = { .size = sizeof(d) };
            if (opmap_result_diag(r, k, &d) == OPMAP_OK && d.level == OPMAP_DIAG_WARNING &&
                strncmp(d.message, "not scanned (", 13) == 0)
                cli_fail("warning: %s: %s", d.where, d.message);
        }
    }
}

int cli_finish(const scan_opts *o, scan_run *run)
{
    opmap_policy policy;
    opmap_report_options ropts = OPMAP_REPORT_OPTIONS_INIT;
    opmap_verdict *verdict = NULL;
    opmap_error err;
    int code;

    cli_policy(o, run, &policy);
    ropts.day_rate = o->day_rate;
    ropts.currency = o->currency;
    ropts.policy = &policy;
    ropts.problems = run->problems;
    ropts.problem_count = run->n_problems;
    ropts.blocked_on = o->blocked_on;
    ropts.needs_work_on = o->needs_work_on;
    print_unscanned(run);
    /* reports are written whatever failed: each lists the files it could not read */
    if ((code = write_reports(o, run, &ropts)))
        return code;
    code = run->input_failed ? EXIT_INPUT : cli_no_model(run);
    if (code) {
        /* unreadable files or no model: exit 3 outranks the gate */
    } else if (opmap_policy_check(&verdict, run->ctx, (const opmap_result *const *)run->slots,
                                  run->count, &policy, &err) != OPMAP_OK) {
        cli_error(&err);
        code = EXIT_INTERNAL;
    } else if (!opmap_verdict_passed(verdict)) {
        print_failures(verdict);
        code = EXIT_FINDINGS;
    }
    opmap_verdict_free(verdict);
    return code;
}

int cli_scan(int argc, char **argv)
{
    scan_opts o;
    scan_run run;
    cli_paths paths = { 0 };
    int code;

    if ((code = cli_start(argc, argv, CLI_SCAN, &scan_help, &o, &paths, &run)))
        return code < 0 ? EXIT_CLEAN : code;
    code = cli_finish(&o, &run);
    cli_run_free(&run);
    cli_paths_free(&paths);
    return code;
}
