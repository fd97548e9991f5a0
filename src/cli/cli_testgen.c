/*
 * cli/cli_testgen.c - `opmap testgen`: scan models and write the per-operator differential
 * tests of what the scan flags (docs/testgen.md): DIR/test_opmap_ops.py, a pytest module
 * one test per distinct signature, and DIR/run_opmap_tests.py, which runs it without
 * pytest and writes the results file `opmap scan --results` reads.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char testgen_usage[] =
    "usage: opmap testgen MODEL|DIR... -o DIR [options]\n"
    "\n"
    "Writes, for the operators a scan flags (partial, rewrite, unmapped, or flagged\n"
    "precision or performance), one differential test per distinct signature (operator,\n"
    "attributes, dtypes, shapes): the operator on the CPU and on the NPU through torch_npu\n"
    "with the model's shapes and dtypes, compared with msprobe's tolerances for the dtype.\n"
    "DIR gets test_opmap_ops.py (a pytest module) and run_opmap_tests.py (runs it without\n"
    "pytest and writes the results file for `opmap scan --results`; --device cpu checks\n"
    "the tests where there is no NPU).\n"
    "\n"
    "  -o, --output DIR       where the two files go (created when missing)\n"
    "  --ops OPS              these operators too: domain::name or name, comma-separated\n"
    "  --all                  every operator but graph plumbing\n"
    "  --dim NAME=SIZE        the size of a symbolic dimension (repeatable)\n"
    "  --default-dim N        the size of any other dynamic dimension (default 2)\n"
    "  --max-tests N          at most N tests (default 1000)\n"
    "  --table FILE, --soc CHIP[,CHIP]|all, --torch-npu VERSION   what the scan answers\n"
    "                         for, as for scan: it decides what is flagged\n"
    "  --workload inference|training\n"
    "                         as for scan; training: each fused-kernel swap test compares\n"
    "                         the gradients too\n"
    "  -q, --quiet            only errors on standard error\n"
    "  -h, --help             this help\n"
    "\n"
    "exit codes: 0 written, 2 usage, 3 a model unreadable or none found, 4 not written\n";

enum { T_OPS = 256, T_ALL, T_DIM, T_DEFAULT_DIM, T_MAX_TESTS, T_TABLE, T_SOC, T_TORCH_NPU,
       T_WORKLOAD };

typedef struct tg_opts {
    const char *output, *table, *soc, *torch_npu;
    opmap_testgen_options gen;
    const char *dims[64];
    int quiet;
    int workload;             /* --workload training: 1 */
} tg_opts;

static int number(const char *option, const char *arg, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long v;
    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno || end == arg || *end || v < 1 || v > max) {
        cli_fail("%s: '%s' is not a whole number from 1 to %u", option, arg, (unsigned)max);
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

static int parse(int argc, char **argv, tg_opts *o)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "ops", required_argument, NULL, T_OPS },
        { "all", no_argument, NULL, T_ALL }, { "dim", required_argument, NULL, T_DIM },
        { "default-dim", required_argument, NULL, T_DEFAULT_DIM },
        { "max-tests", required_argument, NULL, T_MAX_TESTS },
        { "table", required_argument, NULL, T_TABLE }, { "soc", required_argument, NULL, T_SOC },
        { "torch-npu", required_argument, NULL, T_TORCH_NPU },
        { "workload", required_argument, NULL, T_WORKLOAD },
        { "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    opmap_testgen_options init = OPMAP_TESTGEN_OPTIONS_INIT;
    int c;
    memset(o, 0, sizeof(*o));
    o->gen = init;
    o->gen.dims = o->dims;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case T_OPS: o->gen.ops = optarg; break;
        case T_ALL: o->gen.select = OPMAP_TESTGEN_ALL; break;
        case T_TABLE: o->table = optarg; break;
        case T_SOC: o->soc = optarg; break;
        case T_TORCH_NPU: o->torch_npu = optarg; break;
        case T_WORKLOAD:
            if (strcmp(optarg, "inference") != 0 && strcmp(optarg, "training") != 0) {
                cli_fail("--workload: '%s' is not inference or training", optarg);
                return EXIT_USAGE;
            }
            o->workload = strcmp(optarg, "training") == 0;
            break;
        case T_DIM:
            if (o->gen.n_dims == sizeof(o->dims) / sizeof(o->dims[0]) || !strchr(optarg, '=') ||
                optarg[0] == '=') {
                cli_fail("--dim: '%s' is not NAME=SIZE (at most 64 of them)", optarg);
                return EXIT_USAGE;
            }
            o->dims[o->gen.n_dims++] = optarg;
            break;
        case T_DEFAULT_DIM:
            if (!number("--default-dim", optarg, 2147483647u, &o->gen.default_dim))
                return EXIT_USAGE;
            break;
        case T_MAX_TESTS:
            if (!number("--max-tests", optarg, 1000000u, &o->gen.max_tests))
                return EXIT_USAGE;
            break;
        case 'h': fputs(testgen_usage, stdout); return -1;
        default:
            cli_fail("unknown or incomplete option '%s'", argv[optind - 1]);
            fputs(testgen_usage, stderr);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc || !o->output) {
        cli_fail(optind >= argc ? "give at least one model file or directory"
                                : "give the directory the tests go into (-o DIR)");
        fputs(testgen_usage, stderr);
        return EXIT_USAGE;
    }
    return 0;
}

/* The models and their scans, in command-line order. */
typedef struct tg_run {
    opmap_ctx *ctx;
    opmap_table *table;
    opmap_model **models;
    opmap_result **results;
    size_t n;
} tg_run;

static void run_free(tg_run *r)
{
    size_t i;
    for (i = 0; i < r->n; i++) {
        opmap_result_free(r->results[i]);
        opmap_model_free(r->models[i]);
    }
    free(r->models);
    free(r->results);
    opmap_table_free(r->table);
    opmap_ctx_free(r->ctx);
}

/* Opens and scans each model; 0, or the exit code after saying why. */
static int scan_all(const tg_opts *o, const cli_paths *paths, tg_run *r)
{
    opmap_scan_options so = OPMAP_SCAN_OPTIONS_INIT;
    opmap_error err;
    const char *table = cli_table_path(o->table);
    size_t i;
    so.soc = o->soc;
    so.torch_npu = o->torch_npu;
    so.workload = o->workload ? OPMAP_WORKLOAD_TRAINING : OPMAP_WORKLOAD_INFERENCE;
    if (opmap_ctx_new(&r->ctx, NULL, &err) != OPMAP_OK ||
        (table ? opmap_table_load_file(&r->table, r->ctx, table, &err)
               : opmap_table_load_default(&r->table, r->ctx, &err)) != OPMAP_OK) {
        cli_error(&err);
        return EXIT_INPUT;
    }
    if (!(r->models = calloc(paths->len + 1, sizeof(*r->models))) ||
        !(r->results = calloc(paths->len + 1, sizeof(*r->results))))
        return EXIT_INTERNAL;
    for (i = 0; i < paths->len; i++) {
        int rc;
        if (paths->proj[i])
            continue; /* training code: no operator to run */
        if (paths->why[i]) { /* found in a directory, no file to read: never opened */
            cli_fail("%s: %s: not read", paths->items[i], paths->why[i]);
            return EXIT_INPUT;
        }
        if ((rc = opmap_model_open_file(&r->models[r->n], r->ctx, paths->items[i], &err)) ||
            (rc = opmap_scan(&r->results[r->n], r->ctx, r->models[r->n], r->table, &so, &err))) {
            opmap_model_free(r->models[r->n]);
            if (rc == OPMAP_EUNSUPPORTED && paths->found[i])
                continue; /* a file in a directory that is not a model: the scan skips it */
            cli_error(&err);
            return rc == OPMAP_EINVAL ? EXIT_USAGE : EXIT_INPUT;
        }
        r->n++;
    }
    if (!r->n) {
        cli_fail("no model found");
        return EXIT_INPUT;
    }
    return 0;
}

typedef struct part_arg {
    const tg_run *run;
    const tg_opts *o;
    opmap_testgen_part part;
} part_arg;

static int fill(void *arg, opmap_write_fn write, void *payload, opmap_error *err)
{
    const part_arg *p = arg;
    return opmap_testgen_write(p->run->ctx, (const opmap_model *const *)p->run->models,
                               (const opmap_result *const *)p->run->results, p->run->n, p->part,
                               &p->o->gen, write, payload, err);
}

/* Counts the tests written and the ones that will skip (reading the file back). */
static void summary(const char *path, size_t *tests, size_t *skips)
{
    char line[4096];
    FILE *f = fopen(path, "r");
    *tests = *skips = 0;
    while (f && fgets(line, sizeof(line), f)) {
        *tests += strncmp(line, "def test_", 9) == 0;
        *skips += strncmp(line, "         skip=\"", 15) == 0;
    }
    if (f)
        fclose(f);
}

int cli_testgen(int argc, char **argv)
{
    tg_opts o;
    tg_run run;
    cli_paths paths = { 0 };
    char module[4096], runner[4096];
    part_arg m, rn;
    size_t tests, skips;
    int code, i;
    memset(&run, 0, sizeof(run));
    if ((code = parse(argc, argv, &o)))
        return code < 0 ? EXIT_CLEAN : code;
    for (i = optind; code == 0 && i < argc; i++)
        code = cli_paths_add(&paths, argv[i]);
    if (code == 0 && !(code = scan_all(&o, &paths, &run))) {
        struct stat st;
        if (stat(o.output, &st) != 0 && mkdir(o.output, 0777) != 0) {
            cli_fail("%s: cannot create the directory: %s", o.output, strerror(errno));
            code = EXIT_OUTPUT;
        }
        snprintf(module, sizeof(module), "%s/test_opmap_ops.py", o.output);
        snprintf(runner, sizeof(runner), "%s/run_opmap_tests.py", o.output);
        m.run = rn.run = &run;
        m.o = rn.o = &o;
        m.part = OPMAP_TESTGEN_MODULE;
        rn.part = OPMAP_TESTGEN_RUNNER;
        /* the Python is code the runner executes: a link or a FIFO planted where it goes
         * is replaced, never followed */
        if (!code && !(code = cli_write_new(fill, &m, module)) &&
            !(code = cli_write_new(fill, &rn, runner)) && !o.quiet) {
            summary(module, &tests, &skips);
            cli_fail("%zu tests for %zu model%s (%zu cannot be built from the model and skip, "
                     "saying why): %s, %s", tests, run.n, run.n == 1 ? "" : "s", skips, module,
                     runner);
        }
    }
    run_free(&run);
    cli_paths_free(&paths);
    return code;
}
