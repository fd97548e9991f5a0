/*
 * tests/api/test_threads.c - libopmap is safe to share between threads.
 *
 * One context (default allocator) and one table are shared by N threads; each thread, in
 * every round, opens each model itself and scans it, scans the model objects the main
 * thread opened, writes every report format over its results and over the shared reference
 * results, and loads a table of its own. Every report (with costs, and a gate failing on
 * every kind of finding) must equal, byte for byte, the one the main thread wrote before
 * the threads started. Public API only (<opmap/opmap.h>).
 *
 * Usage: test_threads [--threads N] [--rounds R] [--table FILE] MODEL...
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/opmap.h>

#define MAX_FORMATS 32

typedef struct shared {
    opmap_ctx *ctx;
    opmap_table *table;
    const char *table_file;        /* NULL: built-in */
    char **paths;
    size_t n_models;
    opmap_model **models;
    opmap_result **results;        /* the main thread's, for the reference reports */
    int n_formats;
    char **ref;                    /* [model * n_formats + format] */
    size_t *ref_size;
    char *ref_all;                 /* JSON over every model (portfolio included) */
    size_t ref_all_size;
    int rounds;
    pthread_barrier_t barrier;
} shared;

typedef struct worker {
    shared *s;
    int id;
    int failures;
    pthread_t thread;
} worker;

static void fail_err(worker *w, const char *what, const opmap_error *err)
{
    char msg[1200];
    opmap_error_format(err, msg, sizeof msg);
    fprintf(stderr, "thread %d: %s: %s\n", w->id, what, msg);
    w->failures++;
}

static void compare(worker *w, const char *what, const char *model, const char *fmt,
                    const char *got, size_t got_size, const char *want, size_t want_size)
{
    size_t i, n = got_size < want_size ? got_size : want_size;
    if (got_size == want_size && memcmp(got, want, n) == 0)
        return;
    for (i = 0; i < n && got[i] == want[i]; i++)
        ;
    fprintf(stderr, "thread %d: %s, %s, %s: report differs at byte %zu (%zu vs %zu bytes)\n",
            w->id, what, model, fmt, i, got_size, want_size);
    w->failures++;
}

/* Reports with a gate that fails on every kind of finding, so the writers that show the
 * gate's findings (SARIF, JUnit, HTML, Markdown) have something to write. */
static int write_report(opmap_ctx *ctx, opmap_result *const *res, size_t n, int format,
                        char **out, size_t *size, opmap_error *err)
{
    opmap_policy policy = OPMAP_POLICY_INIT;
    opmap_report_options opts = OPMAP_REPORT_OPTIONS_INIT;
    policy.fail_on = (1u << OPMAP_FAIL_KIND_COUNT) - 1;
    policy.today = "2026-01-01"; /* not the clock: the reference must not change */
    opts.policy = &policy;
    opts.day_rate = 1000.0;
    opts.currency = "EUR";
    return opmap_report_write_memory(ctx, (const opmap_result *const *)res, n,
                                     (opmap_report_format)format, &opts, out, size, err);
}

/* Writes every format over one result and compares with the reference of model m. */
static void check_result(worker *w, const char *what, size_t m, opmap_result *res)
{
    shared *s = w->s;
    int f;
    for (f = 0; f < s->n_formats; f++) {
        size_t k = m * (size_t)s->n_formats + (size_t)f, size;
        char *text;
        opmap_error err;
        if (write_report(s->ctx, &res, 1, f, &text, &size, &err) != OPMAP_OK) {
            fail_err(w, what, &err);
            continue;
        }
        compare(w, what, s->paths[m], opmap_report_format_name((opmap_report_format)f), text,
                size, s->ref[k], s->ref_size[k]);
        opmap_free(s->ctx, text);
    }
}

static opmap_result *scan(worker *w, const char *what, const opmap_model *model,
                          const opmap_table *table)
{
    opmap_result *res = NULL;
    opmap_error err;
    if (opmap_scan(&res, w->s->ctx, model, table, NULL, &err) != OPMAP_OK)
        fail_err(w, what, &err);
    return res;
}

static void *run(void *arg)
{
    worker *w = arg;
    shared *s = w->s;
    int round;
    size_t m;
    for (round = 0; round < s->rounds; round++) {
        opmap_table *own = NULL;
        opmap_error err;
        char *text;
        size_t size;
        pthread_barrier_wait(&s->barrier); /* all threads start each round together */
        for (m = 0; m < s->n_models; m++) {
            opmap_model *model = NULL;
            opmap_result *res;
            /* this thread's own model object, the shared table and context */
            if (opmap_model_open_file(&model, s->ctx, s->paths[m], &err) != OPMAP_OK) {
                fail_err(w, "open", &err);
                continue;
            }
            if ((res = scan(w, "scan own model", model, s->table))) {
                check_result(w, "own model", m, res);
                opmap_result_free(res);
            }
            opmap_model_free(model);
            /* the model object every thread shares */
            if ((res = scan(w, "scan shared model", s->models[m], s->table))) {
                check_result(w, "shared model", m, res);
                opmap_result_free(res);
            }
        }
        /* a report over results every thread reads at once */
        if (write_report(s->ctx, s->results, s->n_models, OPMAP_REPORT_JSON, &text, &size,
                         &err) == OPMAP_OK) {
            compare(w, "shared results", "all models", "json", text, size, s->ref_all,
                    s->ref_all_size);
            opmap_free(s->ctx, text);
        } else {
            fail_err(w, "report over shared results", &err);
        }
        /* tables loaded concurrently: scans with them must say the same */
        if ((s->table_file ? opmap_table_load_file(&own, s->ctx, s->table_file, &err)
                           : opmap_table_load_default(&own, s->ctx, &err)) != OPMAP_OK) {
            fail_err(w, "load table", &err);
            continue;
        }
        for (m = 0; m < s->n_models; m++) {
            opmap_result *res = scan(w, "scan with own table", s->models[m], own);
            if (res) {
                check_result(w, "own table", m, res);
                opmap_result_free(res);
            }
        }
        opmap_table_free(own);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    shared s;
    worker *workers;
    int n_threads = 8, i, failures = 0, f;
    size_t m;
    opmap_error err;

    memset(&s, 0, sizeof s);
    s.rounds = 3;
    for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc)
            break;
        if (strcmp(argv[i], "--threads") == 0)
            n_threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--rounds") == 0)
            s.rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--table") == 0)
            s.table_file = argv[i + 1];
        else
            break;
    }
    if (i >= argc || n_threads < 1 || s.rounds < 1) {
        fprintf(stderr, "usage: %s [--threads N] [--rounds R] [--table FILE] MODEL...\n",
                argv[0]);
        return 2;
    }
    s.paths = argv + i;
    s.n_models = (size_t)(argc - i);

    if (opmap_ctx_new(&s.ctx, NULL, &err) != OPMAP_OK ||
        (s.table_file ? opmap_table_load_file(&s.table, s.ctx, s.table_file, &err)
                      : opmap_table_load_default(&s.table, s.ctx, &err)) != OPMAP_OK) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }
    while (s.n_formats < MAX_FORMATS &&
           opmap_report_format_name((opmap_report_format)s.n_formats))
        s.n_formats++;
    s.models = calloc(s.n_models, sizeof(*s.models));
    s.results = calloc(s.n_models, sizeof(*s.results));
    s.ref = calloc(s.n_models * (size_t)s.n_formats, sizeof(*s.ref));
    s.ref_size = calloc(s.n_models * (size_t)s.n_formats, sizeof(*s.ref_size));
    workers = calloc((size_t)n_threads, sizeof(*workers));
    if (!s.models || !s.results || !s.ref || !s.ref_size || !workers)
        return 1;

    /* the reference, single-threaded */
    for (m = 0; m < s.n_models; m++) {
        char msg[1200];
        if (opmap_model_open_file(&s.models[m], s.ctx, s.paths[m], &err) != OPMAP_OK ||
            opmap_scan(&s.results[m], s.ctx, s.models[m], s.table, NULL, &err) != OPMAP_OK) {
            opmap_error_format(&err, msg, sizeof msg);
            fprintf(stderr, "setup: %s\n", msg);
            return 1;
        }
        for (f = 0; f < s.n_formats; f++) {
            size_t k = m * (size_t)s.n_formats + (size_t)f;
            if (write_report(s.ctx, &s.results[m], 1, f, &s.ref[k], &s.ref_size[k], &err) !=
                OPMAP_OK) {
                fprintf(stderr, "setup: %s report: %s\n",
                        opmap_report_format_name((opmap_report_format)f), err.message);
                return 1;
            }
        }
    }
    if (write_report(s.ctx, s.results, s.n_models, OPMAP_REPORT_JSON, &s.ref_all,
                     &s.ref_all_size, &err) != OPMAP_OK) {
        fprintf(stderr, "setup: %s\n", err.message);
        return 1;
    }

    pthread_barrier_init(&s.barrier, NULL, (unsigned)n_threads);
    for (i = 0; i < n_threads; i++) {
        workers[i].s = &s;
        workers[i].id = i;
        if (pthread_create(&workers[i].thread, NULL, run, &workers[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    for (i = 0; i < n_threads; i++) {
        pthread_join(workers[i].thread, NULL);
        failures += workers[i].failures;
    }
    pthread_barrier_destroy(&s.barrier);

    for (m = 0; m < s.n_models; m++) {
        for (f = 0; f < s.n_formats; f++)
            opmap_free(s.ctx, s.ref[m * (size_t)s.n_formats + (size_t)f]);
        opmap_result_free(s.results[m]);
        opmap_model_free(s.models[m]);
    }
    opmap_free(s.ctx, s.ref_all);
    free(s.ref);
    free(s.ref_size);
    free(s.models);
    free(s.results);
    free(workers);
    opmap_table_free(s.table);
    opmap_ctx_free(s.ctx);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok: %d threads x %d rounds x %zu models x %d formats, shared ctx and table: "
           "every report identical\n", n_threads, s.rounds, s.n_models, s.n_formats);
    return 0;
}
