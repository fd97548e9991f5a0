/*
 * cli/cli_run.c - scanning many models: open the table, waivers and weights, scan every
 * file (in parallel with --jobs: the library has no global state, and one table and
 * context may be shared), show progress on a terminal.
 *
 * Failures are printed as they happen. A file found in a directory that is not a model
 * opmap reads (a weights-only checkpoint, an AOTInductor package) is skipped with a note; anything else
 * that cannot be read makes the exit code 3.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct job {
    scan_run *run;
    const cli_paths *paths;
    const opmap_scan_options *sopts;
    pthread_mutex_t lock;
    size_t next, done;
    int show;
    struct timespec start;
} job;

static double elapsed(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Called with the lock held. */
static void progress(job *j, const char *path)
{
    double t = elapsed(&j->start);
    char safe[1024];
    if (!j->show)
        return;
    opmap_text_for_terminal(path, safe, sizeof(safe));
    fprintf(stderr, "\r\033[K[%zu/%zu] %.0f files/s %s", j->done, j->paths->len,
            t > 0 ? (double)j->done / t : 0.0, safe);
    fflush(stderr);
}

/* A file the scan did not read, as a worker met it. */
struct cli_failed {
    size_t index;         /* in the paths */
    int skipped;
    opmap_error err;
};

/* Keeps a file the scan did not read for the reports; called with the lock held. */
static int keep_problem(scan_run *run, size_t i, int skipped, const opmap_error *err)
{
    if (run->n_failed == run->cap_failed) {
        size_t ncap = run->cap_failed ? run->cap_failed * 2 : 16;
        struct cli_failed *nf = realloc(run->failed, ncap * sizeof(*nf));
        if (!nf)
            return -1;
        run->failed = nf;
        run->cap_failed = ncap;
    }
    run->failed[run->n_failed].index = i;
    run->failed[run->n_failed].skipped = skipped;
    run->failed[run->n_failed].err = *err;
    run->n_failed++;
    return 0;
}

static void report_failure(job *j, size_t i, int rc, const opmap_error *err)
{
    scan_run *run = j->run;
    if (j->show)
        fputs("\r\033[K", stderr);
    if (rc == OPMAP_EUNSUPPORTED && j->paths->found[i]) {
        char msg[1200];
        opmap_error_format(err, msg, sizeof(msg));
        cli_fail("note: skipped %s", msg);
        run->skipped++;
        if (keep_problem(run, i, 1, err))
            run->internal = 1;
        return;
    }
    cli_error(err);
    if (cli_exit_for(rc) == EXIT_INTERNAL)
        run->internal = 1;
    else if (rc == OPMAP_EINVAL)
        run->usage = 1;
    else
        run->input_failed = 1;
    if (rc != OPMAP_EINVAL && keep_problem(run, i, 0, err))
        run->internal = 1;
}

static int by_index(const void *a, const void *b)
{
    size_t x = ((const struct cli_failed *)a)->index, y = ((const struct cli_failed *)b)->index;
    return x < y ? -1 : x > y;
}

/* Problems in command-line order, whatever order the workers met them in. */
static int order_problems(scan_run *run, const cli_paths *paths)
{
    size_t i;
    if (!run->n_failed)
        return 0;
    qsort(run->failed, run->n_failed, sizeof(*run->failed), by_index);
    if (!(run->problems = calloc(run->n_failed, sizeof(*run->problems))))
        return -1;
    for (i = 0; i < run->n_failed; i++) {
        run->problems[i].file = paths->items[run->failed[i].index];
        run->problems[i].skipped = run->failed[i].skipped;
        run->problems[i].error = &run->failed[i].err;
    }
    run->n_problems = run->n_failed;
    return 0;
}

/* Path i is scanned: every result from the first not handed on up to the first path still
 * being scanned goes to the stream, in command-line order. Called with the lock held. */
static void hand_on(scan_run *run, size_t n, size_t i)
{
    run->finished[i] = 1;
    while (run->next_out < n && run->finished[run->next_out]) {
        opmap_result *res = run->slots[run->next_out];
        run->slots[run->next_out++] = NULL;
        if (res && !run->stream_failed && !run->internal)
            cli_stream_take(run, res);
        else
            opmap_result_free(res);
    }
}

static void *worker(void *arg)
{
    job *j = arg;
    for (;;) {
        opmap_model *model = NULL;
        opmap_result *res = NULL;
        opmap_error err;
        size_t i;
        int rc;
        pthread_mutex_lock(&j->lock);
        i = j->run->usage ? j->paths->len : j->next++; /* a usage error stops everyone */
        if (i < j->paths->len)
            progress(j, j->paths->items[i]);
        pthread_mutex_unlock(&j->lock);
        if (i >= j->paths->len)
            return NULL;
        if (j->paths->why[i]) { /* found in a directory, no file to read: not opened */
            memset(&err, 0, sizeof(err));
            err.code = rc = OPMAP_EIO;
            err.offset = OPMAP_NO_OFFSET;
            snprintf(err.source, sizeof(err.source), "%s", j->paths->items[i]);
            snprintf(err.message, sizeof(err.message), "%s: not read", j->paths->why[i]);
        } else if (j->paths->proj[i]) {
            const cli_project *pr = j->paths->proj[i];
            rc = opmap_scan_sources(&res, j->run->ctx, j->paths->items[i],
                                    (const char *const *)pr->files, pr->n, j->run->table,
                                    j->sopts, &err);
        } else {
            rc = opmap_model_open_file(&model, j->run->ctx, j->paths->items[i], &err);
            if (rc == OPMAP_OK)
                rc = opmap_scan(&res, j->run->ctx, model, j->run->table, j->sopts, &err);
        }
        opmap_model_free(model);
        pthread_mutex_lock(&j->lock);
        j->done++;
        if (rc == OPMAP_OK)
            j->run->slots[i] = res;
        else
            report_failure(j, i, rc, &err);
        if (j->run->stream)
            hand_on(j->run, j->paths->len, i);
        pthread_mutex_unlock(&j->lock);
    }
}

static int load_inputs(scan_run *run, const scan_opts *o)
{
    opmap_error err;
    const char *table = cli_table_path(o->table);
    int rc;
    rc = table ? opmap_table_load_file(&run->table, run->ctx, table, &err)
               : opmap_table_load_default(&run->table, run->ctx, &err);
    if (rc == OPMAP_OK && o->waivers)
        rc = opmap_waivers_load_file(&run->waivers, run->ctx, o->waivers, &err);
    if (rc == OPMAP_OK && o->n_results) {
        size_t i;
        rc = opmap_results_new(&run->results, run->ctx, &err);
        for (i = 0; rc == OPMAP_OK && i < o->n_results; i++)
            rc = opmap_results_add_file(run->results, o->results[i], &err);
    }
    run->weights = o->weights;
    if (rc == OPMAP_OK && o->weights_file) {
        opmap_weights file;
        int s;
        if ((rc = opmap_weights_load_file(&file, run->ctx, o->weights_file, &err)) == OPMAP_OK)
            for (s = 0; s < OPMAP_OP_STATUS_COUNT; s++) /* --weight flags win over the file */
                if ((file.set & (1u << s)) && !(o->weights.set & (1u << s))) {
                    run->weights.effort[s] = file.effort[s];
                    run->weights.set |= 1u << s;
                }
    }
    if (rc != OPMAP_OK) {
        cli_error(&err);
        return cli_exit_for(rc);
    }
    return 0;
}

/* --files-from: each line a path, as if given on the command line (empty lines skipped; a
 * CRLF line end is one end), so a shard's list of a hundred thousand files needs no
 * argument list. A line that cannot be a path (a NUL in it, over PATH_MAX) and a list
 * naming nothing are errors: a shard silently scanning less would pass a gate it should not. */
/* One line of the list, without its end; 1 when got, 0 at the end, -1 after saying why
 * (a NUL byte, over 4096 bytes). */
static int list_line(FILE *f, const char *list, size_t lineno, char *line, size_t size)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0') {
            cli_fail("--files-from %s: line %zu: a NUL byte in a path", list, lineno);
            return -1;
        }
        if (n + 1 == size) {
            cli_fail("--files-from %s: line %zu: longer than a path can be (%zu bytes)", list,
                     lineno, size - 1);
            return -1;
        }
        line[n++] = (char)c;
    }
    if (n && line[n - 1] == '\r') /* a CRLF line end */
        n--;
    line[n] = '\0';
    return c == EOF && !n ? 0 : 1;
}

static int add_files_from(cli_paths *paths, const char *list)
{
    FILE *f = strcmp(list, "-") == 0 ? stdin : fopen(list, "r");
    char line[4097];
    size_t lineno = 0, named = 0;
    int got = 1, rc = 0;
    if (!f) {
        cli_fail("--files-from %s: %s", list, strerror(errno));
        return EXIT_INPUT;
    }
    while (rc == 0 && (got = list_line(f, list, ++lineno, line, sizeof(line))) > 0)
        if (line[0]) {
            named++;
            rc = cli_paths_add(paths, line);
        }
    if (got < 0)
        rc = EXIT_INPUT;
    else if (rc == 0 && ferror(f)) {
        cli_fail("--files-from %s: %s", list, strerror(errno));
        rc = EXIT_INPUT;
    } else if (rc == 0 && !named) {
        cli_fail("--files-from %s: names no file", list);
        rc = EXIT_INPUT;
    }
    if (f != stdin)
        fclose(f);
    return rc;
}

int cli_start(int argc, char **argv, int cmd, const cli_command_help *help, scan_opts *o,
              cli_paths *paths, scan_run *run)
{
    int rc = 0;
    size_t i;
    if ((rc = cli_parse_scan(argc, argv, o, cmd, help)))
        return rc;
    o->streaming = cmd == CLI_SCAN && cli_streams(o);
    for (i = (size_t)optind; rc == 0 && i < (size_t)argc; i++)
        rc = cli_paths_add(paths, argv[i]);
    if (rc == 0 && o->files_from)
        rc = add_files_from(paths, o->files_from);
    if (rc) {
        cli_paths_free(paths);
        return rc;
    }
    if ((rc = cli_run(o, paths, run))) {
        cli_run_free(run);
        cli_paths_free(paths);
    }
    return rc;
}

int cli_run(const scan_opts *o, const cli_paths *paths, scan_run *run)
{
    opmap_error err;
    opmap_scan_options sopts = OPMAP_SCAN_OPTIONS_INIT;
    pthread_t threads[256];
    job j;
    int rc, n, started = 0;
    size_t i;

    memset(run, 0, sizeof(*run));
    if (opmap_ctx_new(&run->ctx, NULL, &err) != OPMAP_OK) {
        cli_error(&err);
        return EXIT_INTERNAL;
    }
    if ((rc = load_inputs(run, o)))
        return rc;
    if (!(run->slots = calloc(paths->len ? paths->len : 1, sizeof(*run->slots))))
        return EXIT_INTERNAL;
    if (o->streaming) {
        if (!(run->finished = calloc(paths->len ? paths->len : 1, 1)))
            return EXIT_INTERNAL;
        if ((rc = cli_stream_start(o, run)))
            return rc;
    }
    sopts.soc = o->soc;
    sopts.torch_npu = o->torch_npu;
    sopts.mode = o->mode;
    sopts.workload = o->workload;
    sopts.weights = run->weights.set ? &run->weights : NULL;
    sopts.results = run->results;
    memset(&j, 0, sizeof(j));
    j.run = run;
    j.paths = paths;
    j.sopts = &sopts;
    j.show = !o->quiet && paths->len > 1 && isatty(STDERR_FILENO);
    pthread_mutex_init(&j.lock, NULL);
    clock_gettime(CLOCK_MONOTONIC, &j.start);
    n = o->jobs < (int)paths->len ? o->jobs : (int)paths->len;
    for (i = 1; i < (size_t)n; i++)
        if (pthread_create(&threads[started], NULL, worker, &j) == 0)
            started++;
    worker(&j);
    for (i = 0; i < (size_t)started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&j.lock);
    if (j.show)
        fputs("\r\033[K", stderr);
    /* results in command-line order, whatever order the workers finished in */
    for (i = 0; !run->stream && i < paths->len; i++)
        if (run->slots[i])
            run->slots[run->count++] = run->slots[i];
    if (order_problems(run, paths))
        run->internal = 1;
    if (run->usage)
        return EXIT_USAGE;
    if (run->internal)
        return EXIT_INTERNAL;
    return 0;
}

int cli_no_model(const scan_run *run)
{
    if (run->count)
        return 0;
    /* a directory of checkpoints alone: nothing was checked, so nothing passed */
    cli_fail("no model found: %zu file%s skipped, none of them a model opmap reads",
             run->skipped, run->skipped == 1 ? "" : "s");
    return EXIT_INPUT;
}

void cli_run_free(scan_run *run)
{
    size_t i;
    for (i = 0; !run->stream && i < run->count; i++)
        opmap_result_free(run->slots[i]);
    opmap_report_stream_free(run->stream);
    free(run->finished);
    for (i = 0; i < run->n_unscanned; i++)
        free(run->unscanned[i]);
    for (i = 0; i < run->n_gate_lines; i++)
        free(run->gate_lines[i]);
    free(run->unscanned);
    free(run->slots);
    free(run->problems);
    free(run->failed);
    opmap_waivers_free(run->waivers);
    opmap_results_free(run->results);
    opmap_table_free(run->table);
    opmap_ctx_free(run->ctx);
    memset(run, 0, sizeof(*run));
}
