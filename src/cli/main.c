/*
 * cli/main.c - `opmap`: dispatch to the subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: opmap <command> [options]\n"
    "\n"
    "Tells, before a migration starts, which operators of an exported PyTorch model\n"
    "(ONNX, TorchScript, torch.export) run on Huawei Ascend NPUs, which need work, and what\n"
    "that costs.\n"
    "\n"
    "commands:\n"
    "  scan FILE|DIR...       scan models (directories: every model file below)\n"
    "  baseline FILE|DIR...   write a waiver file accepting what the gate fails on now\n"
    "  diff OLD.json NEW.json what changed between two JSON reports\n"
    "  merge REPORT.json...   one report from the JSON reports of several scans (shards)\n"
    "  testgen FILE|DIR... -o DIR   per-operator tests of what the scan flags, to run on\n"
    "                         the NPU (their results: scan --results)\n"
    "  table lint [FILE]      check a compatibility table (default: the built-in one)\n"
    "  table show OP          everything the table knows about an operator\n"
    "  table stats [FILE]     counts per status, domain, chip and source\n"
    "  table diff --torch-npu A B   operators that gain or lose an NPU kernel from A to B\n"
    "\n"
    "  opmap COMMAND --help   the options of a command\n"
    "  opmap --version        print the version\n"
    "\n"
    "environment: OPMAP_TABLE a table to use instead of the built-in one (--table wins),\n"
    "             NO_COLOR no colour, OPMAP_TODAY YYYY-MM-DD for waiver expiry\n"
    "\n"
    "exit codes: 0 clean, 1 the gate fails (default: unmapped operators),\n"
    "            2 usage, 3 unreadable or invalid input, 4 report not written, 70 internal\n";

/* Every line the CLI writes to standard error is made safe as a whole: file names and
 * model strings in it cannot move the cursor, forge a line (CR, LF) or reorder one (bidi
 * overrides), whatever bytes they hold. */
void cli_line(FILE *f, const char *fmt, ...)
{
    char raw[4600], safe[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    opmap_text_for_terminal(raw, safe, sizeof(safe));
    fprintf(f, "%s\n", safe);
}

void cli_fail(const char *fmt, ...)
{
    char raw[4600], safe[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    opmap_text_for_terminal(raw, safe, sizeof(safe));
    fprintf(stderr, "opmap: %s\n", safe);
}

void cli_error(const opmap_error *err)
{
    char buf[1200];
    opmap_error_format(err, buf, sizeof(buf));
    cli_fail("%s", buf);
}

const char *cli_table_path(const char *option)
{
    const char *env = getenv("OPMAP_TABLE");
    if (option)
        return option;
    return env && env[0] ? env : NULL;
}

int cli_exit_for(int status)
{
    switch (status) {
    case OPMAP_OK: return EXIT_CLEAN;
    case OPMAP_EINVAL: return EXIT_USAGE;
    case OPMAP_EWRITE: return EXIT_OUTPUT;
    case OPMAP_EINTERNAL: return EXIT_INTERNAL;
    default: return EXIT_INPUT;
    }
}

static int run_command(int argc, char **argv)
{
    if (opmap_version_number() != OPMAP_VERSION_NUMBER) {
        cli_fail("library version %s does not match this program (%d)", opmap_version_string(),
                 OPMAP_VERSION_NUMBER);
        return EXIT_INTERNAL;
    }
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return EXIT_CLEAN;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("opmap %s\n", opmap_version_string());
        return EXIT_CLEAN;
    }
    if (strcmp(argv[1], "scan") == 0)
        return cli_scan(argc - 1, argv + 1);
    if (strcmp(argv[1], "table") == 0)
        return cli_table(argc - 1, argv + 1);
    if (strcmp(argv[1], "baseline") == 0)
        return cli_baseline(argc - 1, argv + 1);
    if (strcmp(argv[1], "diff") == 0)
        return cli_diff(argc - 1, argv + 1);
    if (strcmp(argv[1], "merge") == 0)
        return cli_merge(argc - 1, argv + 1);
    if (strcmp(argv[1], "testgen") == 0)
        return cli_testgen(argc - 1, argv + 1);
    cli_fail("unknown command '%s' (try opmap --help)", argv[1]);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int code = run_command(argc, argv);
    /* Output that never arrived (`opmap table stats > /dev/full`, a closed pipe) is a
     * failure, not a clean exit: a summary or verdict nobody can read is not given. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && code != EXIT_OUTPUT) {
        cli_fail("cannot write to standard output");
        if (code == EXIT_CLEAN || code == EXIT_FINDINGS)
            code = EXIT_OUTPUT;
    }
    return code;
}
