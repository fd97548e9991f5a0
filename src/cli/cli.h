/*
 * cli/cli.h - the opmap command line: shared pieces of the subcommands.
 *
 * The CLI uses only the public API (<opmap/opmap.h>). It owns the terminal, files and
 * exit codes; the library never prints or exits.
 */
#ifndef OPMAP_CLI_H
#define OPMAP_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <opmap/opmap.h>

/* Exit codes (docs/cli.md). */
enum {
    EXIT_CLEAN = 0,      /* scan done, nothing the policy fails on */
    EXIT_FINDINGS = 1,   /* scan done, the policy fails (e.g. unmapped operators) */
    EXIT_USAGE = 2,      /* bad command line */
    EXIT_INPUT = 3,      /* a model or table is missing, unreadable, invalid or over a limit */
    EXIT_OUTPUT = 4,     /* a report could not be written */
    EXIT_INTERNAL = 70   /* a bug */
};

int cli_scan(int argc, char **argv);
int cli_table(int argc, char **argv);

/* Prints "opmap: <formatted error>" to stderr. */
void cli_error(const opmap_error *err);
/* Prints "opmap: message" to stderr. */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Maps a library status to an exit code. */
int cli_exit_for(int status);

/* A list of model paths (owned strings). */
typedef struct cli_paths {
    char **items;
    size_t len, cap;
} cli_paths;

/*
 * Adds `arg`: a file as given, or every model file under a directory (recursive, sorted).
 * Returns 0, or an exit code after printing why (missing path, a directory with no models).
 */
int cli_paths_add(cli_paths *p, const char *arg);
void cli_paths_free(cli_paths *p);

/*
 * Writes a report to `path` ("-" or NULL: stdout) through a temporary file renamed into
 * place, so a failed run never leaves a half-written report. Returns 0 or EXIT_OUTPUT.
 */
int cli_write_report(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                     opmap_report_format format, unsigned flags, const char *path);

#endif /* OPMAP_CLI_H */
