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

void cli_report_options(const scan_opts *o, const scan_run *run, opmap_policy *policy,
                        opmap_report_options *ropts)
{
    opmap_report_options init = OPMAP_REPORT_OPTIONS_INIT;
    cli_policy(o, run, policy);
    *ropts = init;
    ropts->day_rate = o->day_rate;
    ropts->currency = o->currency;
    ropts->policy = policy;
    ropts->problems = run->problems;
    ropts->problem_count = run->n_problems;
    ropts->blocked_on = o->blocked_on;
    ropts->needs_work_on = o->needs_work_on;
}

/* Streamed when every format asked for is JSON, or every one is registry: a stream writes
 * one of them. */
int cli_streams(const scan_opts *o)
{
    size_t i;
    if (getenv("OPMAP_NO_STREAM")) /* the whole-results path, for comparing the two */
        return 0;
    for (i = 0; i < o->n_formats; i++)
        if ((o->formats[i] != OPMAP_REPORT_JSON && o->formats[i] != OPMAP_REPORT_REGISTRY) ||
            o->formats[i] != o->formats[0])
            return 0;
    return o->n_formats > 0;
}

int cli_stream_start(const scan_opts *o, scan_run *run)
{
    opmap_report_stream_options so = OPMAP_REPORT_STREAM_OPTIONS_INIT;
    opmap_report_options ropts;
    opmap_policy policy;
    opmap_error err;
    const char *tmp = getenv("TMPDIR");
    cli_report_options(o, run, &policy, &ropts);
    so.spool_dir = tmp && tmp[0] ? tmp : "/tmp";
    run->model_policy = policy;
    run->model_policy.problems = NULL;
    run->model_policy.problem_count = 0;
    run->model_policy.max_effort = 0;
    if (opmap_report_stream_new(&run->stream, run->ctx, o->formats[0], &ropts, &so, &err)) {
        cli_error(&err);
        return cli_exit_for(err.code);
    }
    return 0;
}

/* A failing finding as the gate prints it. */
static void failure_line(const opmap_finding *f, char *buf, size_t size)
{
    snprintf(buf, size, "gate: %s: %s%s%s%s", opmap_fail_kind_name((unsigned)__builtin_ctz(f->kind)),
             f->message, f->model[0] ? " in " : "", f->model,
             f->waiver_expired ? " (its waiver has expired)" : "");
}

/* The gate's failing findings, on standard error: `lines` printed already (the models' of
 * a stream), then the verdict's, 20 in all; `failing` of them in all. */
static void print_failures(const opmap_verdict *v, char *const *lines, size_t n_lines,
                           size_t failing)
{
    size_t i, n = opmap_verdict_finding_count(v), shown = 0;
    char line[4600];
    for (i = 0; i < n_lines; i++, shown++)
        cli_fail("%s", lines[i]);
    for (i = 0; i < n; i++) {
        opmap_finding f = { .size = sizeof(f) };
        opmap_verdict_finding(v, i, &f);
        if (!f.fails)
            continue;
        if (!lines)
            failing++;
        if (shown < 20) {
            shown++;
            failure_line(&f, line, sizeof(line));
            cli_fail("%s", line);
        }
    }
    if (failing > shown)
        fprintf(stderr, "opmap: gate: ... and %zu more\n", failing - shown);
    fprintf(stderr, "opmap: the gate fails: %zu finding%s\n", failing, failing == 1 ? "" : "s");
}

/* A model's first failing findings, kept while fewer than 20 are: the stream writes the
 * models' findings out and keeps only their count. */
static int keep_failures(scan_run *run, const opmap_result *r)
{
    opmap_verdict *v;
    opmap_error err;
    size_t i;
    if (run->n_gate_lines >= 20)
        return 0;
    if (opmap_policy_check(&v, run->ctx, &r, 1, &run->model_policy, &err) != OPMAP_OK) {
        cli_error(&err);
        return -1;
    }
    for (i = 0; i < opmap_verdict_finding_count(v) && run->n_gate_lines < 20; i++) {
        opmap_finding f = { .size = sizeof(f) };
        char line[4600];
        opmap_verdict_finding(v, i, &f);
        if (!f.fails)
            continue;
        failure_line(&f, line, sizeof(line));
        if (!(run->gate_lines[run->n_gate_lines] = strdup(line))) {
            opmap_verdict_free(v);
            return -1;
        }
        run->n_gate_lines++;
    }
    opmap_verdict_free(v);
    return 0;
}

/* The warnings print_unscanned gives of one result, kept. */
static int keep_unscanned(scan_run *run, const opmap_result *r)
{
    size_t k;
    for (k = 0; k < opmap_result_diag_count(r); k++) {
        opmap_diag_info d = { .size = sizeof(d) };
        char line[2048], *copy;
        if (opmap_result_diag(r, k, &d) != OPMAP_OK || d.level != OPMAP_DIAG_WARNING ||
            strncmp(d.message, "not scanned (", 13) != 0)
            continue;
        snprintf(line, sizeof(line), "warning: %s: %s", d.where, d.message);
        if (run->n_unscanned == run->cap_unscanned) {
            size_t cap = run->cap_unscanned ? run->cap_unscanned * 2 : 8;
            char **nu = realloc(run->unscanned, cap * sizeof(*nu));
            if (!nu)
                return -1;
            run->unscanned = nu;
            run->cap_unscanned = cap;
        }
        if (!(copy = strdup(line)))
            return -1;
        run->unscanned[run->n_unscanned++] = copy;
    }
    return 0;
}

int cli_stream_take(scan_run *run, opmap_result *res)
{
    opmap_error err;
    if (keep_unscanned(run, res) || keep_failures(run, res)) {
        opmap_result_free(res);
        run->internal = 1;
        return -1;
    }
    if (opmap_report_stream_take(run->stream, res, &err) != OPMAP_OK) {
        cli_error(&err);
        if (cli_exit_for(err.code) == EXIT_INTERNAL || err.code == OPMAP_EINVAL)
            run->internal = 1;
        else
            run->input_failed = run->stream_failed = 1;
        return -1;
    }
    run->count++;
    return 0;
}

static int stream_fill(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    return opmap_report_stream_write(arg, write, payload, err);
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
        if (run->stream)
            rc = cli_write_with(stream_fill, run->stream, target);
        else
            rc = cli_write_report(run->ctx, (const opmap_result *const *)run->slots, run->count,
                                  o->formats[i], &opts, target);
        if (rc)
            return rc;
    }
    return 0;
}

/* Python files the scan was given and did not scan, on standard error, -q or not: the
 * source gate fails on them, and a report written to a file would be the only other place
 * that says so. */
static void print_unscanned(const scan_run *run)
{
    size_t i, k;
    for (i = 0; i < run->n_unscanned; i++)
        cli_fail("%s", run->unscanned[i]);
    for (i = 0; !run->stream && i < run->count; i++) {
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
    opmap_report_options ropts;
    opmap_verdict *verdict = NULL;
    const opmap_verdict *streamed = NULL;
    opmap_error err;
    int code;

    cli_report_options(o, run, &policy, &ropts);
    print_unscanned(run);
    if (run->stream) {
        if (run->stream_failed) /* what the stream took would be a report in part */
            return EXIT_INPUT;
        if (opmap_report_stream_finish(run->stream, run->problems, run->n_problems, &err)) {
            cli_error(&err);
            return cli_exit_for(err.code);
        }
        streamed = opmap_report_stream_verdict(run->stream);
    }
    /* reports are written whatever failed: each lists the files it could not read */
    if ((code = write_reports(o, run, &ropts)))
        return code;
    code = run->input_failed ? EXIT_INPUT : cli_no_model(run);
    if (code) {
        /* unreadable files or no model: exit 3 outranks the gate */
    } else if (streamed) {
        if (!opmap_verdict_passed(streamed)) {
            size_t failing;
            opmap_report_stream_findings(run->stream, &failing);
            if (run->counted_only) /* registry reports keep each model's count */
                fprintf(stderr, "opmap: the gate fails: %zu finding%s (registry reports "
                        "count them; the shards' JSON reports list them)\n", failing,
                        failing == 1 ? "" : "s");
            else
                print_failures(streamed, run->gate_lines, run->n_gate_lines, failing);
            code = EXIT_FINDINGS;
        }
    } else if (opmap_policy_check(&verdict, run->ctx, (const opmap_result *const *)run->slots,
                                  run->count, &policy, &err) != OPMAP_OK) {
        cli_error(&err);
        code = EXIT_INTERNAL;
    } else if (!opmap_verdict_passed(verdict)) {
        print_failures(verdict, NULL, 0, 0);
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
