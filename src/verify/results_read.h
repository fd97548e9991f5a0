/*
 * verify/results_read.h - one results file's JSON tree read into checked entries
 * (results_read.c), for the set to take whole or not at all (results.c).
 */
#ifndef OM_VERIFY_RESULTS_READ_H
#define OM_VERIFY_RESULTS_READ_H

#include "core/json.h"
#include "results.h"

/* Reading one file: where errors go, and the member being read. */
typedef struct rd {
    const char *source;
    opmap_error *err;
    char where[48];           /* "results[12]" */
} rd;

/* The run: strings borrowed from the JSON tree. */
typedef struct rd_file {
    const char *chip, *torch_npu, *cann;
    const oj_value *results;  /* the array */
} rd_file;

/* One test's result, borrowed from the tree. outcome: 0 fail, 1 pass, 2 error, 3 skipped. */
typedef struct rd_entry {
    const char *op, *signature, *standard, *message;
    int outcome;
    double max_abs, max_rel, cpu_ms, device_ms;
} rd_entry;

/* The run's header into f, then entries[i] for each of f->results (the caller sized
 * entries after a first call with entries NULL: om_results_header). */
int om_results_header(rd *r, const oj_value *root, rd_file *f);
int om_results_entries(rd *r, const rd_file *f, rd_entry *entries);

#endif /* OM_VERIFY_RESULTS_READ_H */
