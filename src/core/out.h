/*
 * core/out.h - buffered output to the caller's write callback (reports, baselines, diffs).
 *
 * Writers append; the buffer is flushed to the callback when it fills and at the end. A
 * callback failure is remembered and turns into OPMAP_EWRITE.
 */
#ifndef OM_OUT_H
#define OM_OUT_H

#include <stddef.h>

#include <opmap/report.h>

typedef struct om_out {
    opmap_write_fn write;
    void *payload;
    char buf[8192];
    size_t len;
    int failed;
} om_out;

void om_out_init(om_out *o, opmap_write_fn write, void *payload);
void om_out_bytes(om_out *o, const void *data, size_t n);
void om_out_str(om_out *o, const char *s);
void om_out_printf(om_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A string from a model, for a terminal: control characters (C0, C1 as UTF-8, DEL) and
 * malformed UTF-8 become '?'. */
void om_out_term(om_out *o, const char *s);
/* Flushes; returns OPMAP_OK or OPMAP_EWRITE. */
int om_out_finish(om_out *o);

#endif /* OM_OUT_H */
