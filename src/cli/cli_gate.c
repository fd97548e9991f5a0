/*
 * cli/cli_gate.c - `opmap baseline` (adopt the gate: accept what it fails on today) and
 * `opmap diff OLD.json NEW.json` (did this change make the model harder to migrate?).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command_help baseline_help = {
    "opmap baseline FILE|DIR... [-o WAIVERS.yaml] [options]",
    "Scans like opmap scan and writes a waiver file accepting every finding the gate fails on "
    "now, so a pipeline can adopt the gate and fail only on what is new:",
    "  opmap baseline models/ -o opmap-waivers.yaml\n"
    "  opmap scan models/ --waivers opmap-waivers.yaml      # exit 0\n",
    0,
    "exit codes: 0 written, 2 usage, 3 a model unreadable or none found, 4 not written\n",
};

typedef struct baseline_args {
    const opmap_verdict *verdict;
    const opmap_baseline_options *opts;
} baseline_args;

static int fill_baseline(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    baseline_args *a = arg;
    return opmap_baseline_write(a->verdict, a->opts, write, payload, err);
}

int cli_baseline(int argc, char **argv)
{
    scan_opts o;
    scan_run run;
    cli_paths paths = { 0 };
    opmap_policy policy;
    opmap_baseline_options bopts = OPMAP_BASELINE_OPTIONS_INIT;
    opmap_verdict *verdict = NULL;
    opmap_error err;
    baseline_args a;
    int code;
    size_t i;

    if ((code = cli_start(argc, argv, CLI_BASELINE, &baseline_help, &o, &paths, &run)))
        return code < 0 ? EXIT_CLEAN : code;
    if (run.input_failed) {
        code = EXIT_INPUT; /* a baseline of half the models would hide the rest */
        goto done;
    }
    if ((code = cli_no_model(&run)))
        goto done;
    cli_policy(&o, &run, &policy);
    policy.waivers = NULL;
    if (opmap_policy_check(&verdict, run.ctx, (const opmap_result *const *)run.slots, run.count,
                           &policy, &err) != OPMAP_OK) {
        cli_error(&err);
        code = EXIT_INTERNAL;
        goto done;
    }
    for (i = 0; i < opmap_verdict_finding_count(verdict); i++) {
        opmap_finding f = { .size = sizeof(f) };
        /* a budget is raised, not waived: say so rather than leave a gate that still fails */
        if (opmap_verdict_finding(verdict, i, &f) == OPMAP_OK && f.fails &&
            f.kind == OPMAP_FAIL_EFFORT)
            cli_fail("baseline: %s; no waiver is written for that: raise --max-effort instead",
                     f.message);
    }
    bopts.owner = o.owner;
    bopts.expires = o.expires;
    bopts.reason = o.reason;
    a.verdict = verdict;
    a.opts = &bopts;
    code = cli_write_with(fill_baseline, &a, o.output);
done:
    opmap_verdict_free(verdict);
    cli_run_free(&run);
    cli_paths_free(&paths);
    return code;
}

static const char diff_usage[] =
    "usage: opmap diff OLD.json NEW.json [--fail-on KINDS] [--format text|json] [-o OUT]\n"
    "\n"
    "Compares two JSON reports (opmap scan --format json): operators added, removed, and\n"
    "whose status or risk flags changed. Exit 1 when the new report adds a finding the policy fails on\n"
    "(default: unmapped operators), 0 otherwise.\n";

static int read_all(const char *path, char **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (!f) {
        cli_fail("%s: %s", path, strerror(errno));
        return EXIT_INPUT;
    }
    for (;;) {
        size_t n;
        if (len == cap) {
            char *nb;
            cap = cap ? cap * 2 : 65536;
            if (cap > (1u << 30) || !(nb = realloc(buf, cap))) {
                free(buf);
                fclose(f);
                cli_fail("%s: too large to compare", path);
                return EXIT_INPUT;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    *out = buf;
    *size = len;
    return 0;
}

typedef struct diff_args {
    opmap_ctx *ctx;
    const char *old_path, *new_path;
    const char *old_text, *new_text;
    size_t old_size, new_size;
    const opmap_policy *policy;
    opmap_report_format format;
    size_t failing;
} diff_args;

static int fill_diff(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    diff_args *a = arg;
    int rc = opmap_diff_reports(a->ctx, a->old_text, a->old_size, a->new_text, a->new_size,
                                a->policy, a->format, write, payload, &a->failing, err);
    /* the library sees buffers ("old report"); the user named files */
    if (rc != OPMAP_OK && err && strcmp(err->source, "old report") == 0)
        snprintf(err->source, sizeof(err->source), "%s", a->old_path);
    else if (rc != OPMAP_OK && err && strcmp(err->source, "new report") == 0)
        snprintf(err->source, sizeof(err->source), "%s", a->new_path);
    return rc;
}

int cli_diff(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "fail-on", required_argument, NULL, 'f' },
        { "format", required_argument, NULL, 'F' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    opmap_policy policy = OPMAP_POLICY_INIT;
    opmap_ctx *ctx = NULL;
    opmap_error err;
    diff_args a;
    char *old_text = NULL, *new_text = NULL;
    const char *output = NULL;
    int c, code;

    memset(&a, 0, sizeof(a));
    a.format = OPMAP_REPORT_TEXT;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (opmap_fail_on_parse(optarg, &policy.fail_on, &err) != OPMAP_OK) {
                cli_fail("--fail-on: %s", err.message);
                return EXIT_USAGE;
            }
            break;
        case 'F':
            if (opmap_report_format_parse(optarg, &a.format) != OPMAP_OK ||
                (a.format != OPMAP_REPORT_TEXT && a.format != OPMAP_REPORT_JSON)) {
                cli_fail("diff: --format is text or json");
                return EXIT_USAGE;
            }
            break;
        case 'o': output = optarg; break;
        case 'h': fputs(diff_usage, stdout); return EXIT_CLEAN;
        default:
            fputs(diff_usage, stderr);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fputs(diff_usage, stderr);
        return EXIT_USAGE;
    }
    if ((code = read_all(argv[optind], &old_text, &a.old_size)) ||
        (code = read_all(argv[optind + 1], &new_text, &a.new_size)))
        goto done;
    if (opmap_ctx_new(&ctx, NULL, &err) != OPMAP_OK) {
        cli_error(&err);
        code = EXIT_INTERNAL;
        goto done;
    }
    a.ctx = ctx;
    a.old_text = old_text;
    a.new_text = new_text;
    a.old_path = argv[optind];
    a.new_path = argv[optind + 1];
    a.policy = &policy;
    if ((code = cli_write_with(fill_diff, &a, output)))
        goto done;
    code = a.failing ? EXIT_FINDINGS : EXIT_CLEAN;
done:
    opmap_ctx_free(ctx);
    free(old_text);
    free(new_text);
    return code;
}
