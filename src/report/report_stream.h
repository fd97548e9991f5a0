/*
 * report/report_stream.h - the spool of a report stream (spool.c): the models' part of a
 * report, written as each model is finished and read back once per report written.
 */
#ifndef OM_REPORT_STREAM_H
#define OM_REPORT_STREAM_H

#include <stddef.h>

#include <opmap/error.h>
#include <opmap/report.h>

#include "core/mem.h"

typedef struct om_spool {
    om_mem *mem;
    int fd;               /* an unlinked temporary file, or -1: memory */
    char *buf;            /* memory: the bytes */
    size_t len, cap;
    uint64_t size;        /* bytes written */
    int rc;               /* the first failure: OPMAP_EIO, OPMAP_ENOMEM, OPMAP_ELIMIT */
    int sys_errno;
    char dir[256];        /* for errors */
} om_spool;

/* A spool in `dir` (an unnamed file: created and unlinked at once), or in memory (NULL). */
int om_spool_open(om_spool *s, om_mem *mem, const char *dir, opmap_error *err);
int om_spool_write(om_spool *s, const void *data, size_t size);
/* Every byte written, in order, to fn; OPMAP_OK, the spool's failure, or OPMAP_EWRITE when
 * fn returned non-zero. */
int om_spool_replay(om_spool *s, opmap_write_fn fn, void *payload);
/* Fails err with the spool's failure (naming its directory). */
int om_spool_fail(const om_spool *s, opmap_error *err);
void om_spool_close(om_spool *s);

#endif /* OM_REPORT_STREAM_H */
