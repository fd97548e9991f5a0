/*
 * merge/registry_read.h - a registry report read back (registry_read.c): its header held
 * against the set's table and first report as a JSON report's is, then each model's row and
 * each distinct operator handed to the caller as they are read, its files not read kept in
 * the set, and its counts held against its rows.
 */
#ifndef OM_MERGE_REGISTRY_READ_H
#define OM_MERGE_REGISTRY_READ_H

#include <opmap/report.h>

#include "estimate/registry_row.h"

/* What the report says once, after its rows. */
typedef struct om_reg_end {
    const char *need, *need_by, *need_model;   /* torch_npu.needed, _by, _by_model ("") */
    unsigned fail_on;                          /* the gate its rows were judged by */
    uint64_t waivers;                          /* ... and its waivers (om_waivers_digest) */
    uint64_t gate_offset;                      /* where "gate" is, for errors */
} om_reg_end;

/* Where what is read goes; each returns OPMAP_OK or fails err (reading stops). */
typedef struct om_reg_sink {
    void *payload;
    /* the header as a result with no operator (table, chips, mode, workload), the
     * caller's; NULL for a report of no model */
    int (*header)(void *payload, opmap_result *first, opmap_error *err);
    int (*row)(void *payload, const om_reg_row *row, opmap_error *err);
    int (*op)(void *payload, const om_reg_op *op, opmap_error *err);
    int (*end)(void *payload, const om_reg_end *end, const char *source, opmap_error *err);
} om_reg_sink;

/* Reads the registry report `path` into sink (and its files not read into the set). */
int om_merge_read_registry(opmap_report_set *s, const char *path, const om_reg_sink *sink,
                           opmap_error *err);

#endif /* OM_MERGE_REGISTRY_READ_H */
