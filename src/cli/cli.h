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
int cli_merge(int argc, char **argv);
int cli_table(int argc, char **argv);
int cli_baseline(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_testgen(int argc, char **argv);

typedef struct cli_paths cli_paths;

/* Options of scan and baseline (cli_opts.c). */
typedef struct scan_opts {
    const char *table, *soc, *output, *waivers, *weights_file, *currency;
    const char *torch_npu;        /* --torch-npu, or NULL */
    int mode;                     /* --mode: OPMAP_MODE_EAGER (default) or OPMAP_MODE_GRAPH */
    int workload;                 /* --workload: OPMAP_WORKLOAD_INFERENCE (default) or _TRAINING */
    opmap_report_format formats[16]; /* every format, and room to name some twice */
    size_t n_formats;
    unsigned fail_on;
    int fail_on_given;
    uint64_t max_effort;          /* thousandths of a person-day, 0: none */
    opmap_weights weights;        /* from --weight */
    double day_rate;
    unsigned blocked_on, needs_work_on;   /* the headline's rule; 0: the library's default */
    int jobs, quiet;
    const char *owner, *expires, *reason;   /* baseline */
    const char *files_from;       /* --files-from: a list of paths, one per line ("-": stdin) */
    const char *results[64];      /* --results: device results files (docs/testgen.md) */
    size_t n_results;
    int streaming;                /* hand each result to a report stream (cli_streams) */
} scan_opts;

/* The commands that share those options. */
enum { CLI_SCAN = 0, CLI_BASELINE = 1, CLI_MERGE = 2 };

/* Their options, as getopt_long returns them (a short option is its letter). */
enum {
    OPT_TABLE = 256, OPT_SOC, OPT_FORMAT, OPT_FAIL_ON, OPT_MAX_EFFORT, OPT_WAIVERS, OPT_WEIGHTS,
    OPT_WEIGHT, OPT_DAY_RATE, OPT_CURRENCY, OPT_JOBS, OPT_OWNER, OPT_EXPIRES, OPT_REASON,
    OPT_FILES_FROM, OPT_TORCH_NPU, OPT_CANN, OPT_BLOCKED_ON, OPT_NEEDS_WORK_ON, OPT_RESULTS,
    OPT_MODE, OPT_WORKLOAD
};

/* The sections of --help, in order. */
enum { CLI_SEC_ANSWER, CLI_SEC_REPORTS, CLI_SEC_ESTIMATE, CLI_SEC_HEADLINE, CLI_SEC_GATE,
       CLI_SEC_WAIVERS, CLI_SEC_OTHER, CLI_SEC_COUNT };

/* One option of the table (cli_help.c): the parser and --help are made from it. */
typedef struct cli_option {
    const char *name;         /* the long name: "table" */
    int key;                  /* what getopt_long returns: OPT_* or the short letter */
    int short_name;           /* 'o', or 0 */
    const char *arg;          /* its argument in --help ("FILE"), NULL for a flag */
    unsigned cmds;            /* bit CLI_*: the commands it belongs to */
    int section;              /* CLI_SEC_* */
    const char *help;         /* {reports}, {kinds}, {blocked}, {needs_work}, {statuses}:
                                 the library's lists */
} cli_option;
extern const cli_option cli_options[];
extern const size_t cli_n_options;

/* What a command's --help says around its options. */
typedef struct cli_command_help {
    const char *synopsis;     /* after "usage: " */
    const char *about;        /* a paragraph, wrapped */
    const char *example;      /* verbatim lines after it, or NULL */
    int formats;              /* list the formats a directory search reads */
    const char *exits;        /* the exit codes, verbatim */
} cli_command_help;

/* The --help of command cmd (CLI_*): its synopsis and paragraph, then each option of the
 * table that belongs to it, by section, with the library's lists. */
void cli_usage(FILE *f, int cmd, const cli_command_help *h);

/* Parses argv for a CLI_* command; returns 0, an exit code, or -1 after printing --help. */
int cli_parse_scan(int argc, char **argv, scan_opts *o, int cmd, const cli_command_help *help);

/* Scanning every path (cli_run.c). */
typedef struct scan_run {
    opmap_ctx *ctx;
    opmap_table *table;
    opmap_waivers *waivers;
    opmap_weights weights;        /* --weights file merged with --weight flags */
    opmap_results *results;       /* --results files, or NULL */
    opmap_result **slots;         /* the results, count of them, in command-line order */
    size_t count, skipped;
    int input_failed, usage, internal;
    /* files that could not be read or were skipped: kept as the workers meet them, then
     * `problems` in command-line order for the reports and the gate (pointing into them) */
    struct cli_failed *failed;
    size_t n_failed, cap_failed;
    opmap_file_problem *problems;
    size_t n_problems;
    /* a report stream (every format JSON): each result, in order, is handed to it as soon
     * as those before it are, and slots keep none (docs/scale.md, "Memory") */
    opmap_report_stream *stream;
    unsigned char *finished;      /* per path: scanned (a result or a problem) */
    size_t next_out;              /* the first path not handed on yet */
    char **unscanned;             /* the warnings print_unscanned would give, in order */
    size_t n_unscanned, cap_unscanned;
    int stream_failed;            /* the stream refused a result: no report is written */
    int counted_only;             /* merged registry reports: findings counted, none listed */
    char *gate_lines[20];         /* the first failing findings of the models, as printed */
    size_t n_gate_lines;
    opmap_policy model_policy;    /* the gate for one model at a time: no problems, no budget */
} scan_run;

/* 1 when every format asked for is one a report stream writes (JSON), so that the run
 * keeps no result: `opmap scan` and `opmap merge` stream then. */
int cli_streams(const scan_opts *o);
/* The report options and gate the options describe (policy->problems: the run's). */
void cli_report_options(const scan_opts *o, const scan_run *run, opmap_policy *policy,
                        opmap_report_options *ropts);
/* Starts run->stream (after the table and waivers are loaded); 0 or an exit code. */
int cli_stream_start(const scan_opts *o, scan_run *run);
/* Hands one result to the stream (its unscanned-source warnings kept for later); 0, or
 * -1 after printing the error. */
int cli_stream_take(scan_run *run, opmap_result *res);

/* Returns 0, or the exit code of a failure that stops everything (usage, internal). */
int cli_run(const scan_opts *o, const cli_paths *paths, scan_run *run);

/* What scan and baseline both do first: parse the options and paths, scan every model.
 * Returns 0 (free run and paths when done), -1 after --help, or an exit code (nothing left
 * to free). */
int cli_start(int argc, char **argv, int cmd, const cli_command_help *help, scan_opts *o,
              cli_paths *paths, scan_run *run);
void cli_run_free(scan_run *run);

/* EXIT_INPUT after saying "no model found" when the run read no model, else 0. */
int cli_no_model(const scan_run *run);

/* What scan and merge do with their results: write the reports, then the exit code (3 for
 * files not read or no model, else the gate's 0 or 1), printing the gate's failures. */
int cli_finish(const scan_opts *o, scan_run *run);

/* The gate the options describe. */
void cli_policy(const scan_opts *o, const scan_run *run, opmap_policy *policy);

/* Prints "opmap: <formatted error>" to stderr. */
void cli_error(const opmap_error *err);
/* Prints "opmap: message" to stderr, made terminal-safe (opmap_text_for_terminal). */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints one line to f, made terminal-safe as cli_fail's (the newline is added). */
void cli_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The table to use: --table, else $OPMAP_TABLE when set and not empty, else NULL (the
 * library's built-in table). */
const char *cli_table_path(const char *option);
/* A fact's evidence after a line of `opmap table show`: "  [kernel: id, id]" (cli_table.c). */
void cli_print_evidence(const opmap_row *r, const char *fact);
/* An ATen row's graph-mode answer in `opmap table show`, and the rows per answer in
 * `opmap table stats` (cli_table_graph.c). */
void cli_show_graph(const opmap_table *t, const opmap_row *r);
void cli_show_backward(const opmap_row *r);
void cli_graph_stats(const opmap_table *t);
/* `opmap table diff` (cli_table_diff.c): argv after "diff"; usage printed on bad ones. */
int cli_table_diff(opmap_ctx *ctx, int argc, char **argv, const char *usage);

/* Maps a library status to an exit code. */
int cli_exit_for(int status);

/* The Python sources of one project: a directory's .py/.cu/.cuh files, sorted, or one
 * .py file named on the command line (owned strings). */
typedef struct cli_project {
    char **files;
    size_t n, cap;
} cli_project;

/* A list of model paths and projects (owned strings). */
struct cli_paths {
    char **items;           /* a model's path, or a project's name (its directory) */
    unsigned char *found;   /* 1: found in a directory (not named on the command line) */
    cli_project **proj;     /* per item: the project it names, or NULL for a model */
    char **why;             /* per item: why a file found in a directory cannot be read (a
                               link to nothing or in a loop, a FIFO, a socket, a device),
                               or NULL: such a file is never opened, it is not read */
    size_t len, cap;
    struct cli_seen_dir *seen;   /* directories searched: a hash set on (st_dev, st_ino) */
    size_t n_seen, seen_cap, n_again;   /* n_again: directories reached a second time */
};

/*
 * Adds `arg`: a file as given, or every model file under a directory (recursive, sorted,
 * each directory searched once however many links or arguments reach it). Returns 0, or an exit code after printing why (missing path, a directory with no models).
 */
int cli_paths_add(cli_paths *p, const char *arg);
void cli_paths_free(cli_paths *p);

/*
 * Writes a report to `path` ("-" or NULL: stdout) with opmap_write_file(): a file through a
 * temporary one renamed into place, so a failed run never leaves a half-written report; a
 * device or pipe written through. Returns 0 or an exit code after printing why.
 */
int cli_write_report(opmap_ctx *ctx, const opmap_result *const *results, size_t count,
                     opmap_report_format format, const opmap_report_options *opts,
                     const char *path);

/* Writes text produced by `fill` the same way (baseline files, diffs). */
typedef opmap_fill_fn cli_fill_fn;
int cli_write_with(cli_fill_fn fill, void *arg, const char *path);
/* The file `path` written new, following nothing (opmap_write_file_nofollow): testgen's
 * Python, which its runner executes. */
int cli_write_new(cli_fill_fn fill, void *arg, const char *path);

#endif /* OPMAP_CLI_H */
