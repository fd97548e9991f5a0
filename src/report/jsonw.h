/*
 * report/jsonw.h - a streaming JSON writer: objects and arrays written as they are
 * produced, two-space indented (or compact), strings escaped, invalid UTF-8 replaced by
 * U+FFFD, person-days written exactly from thousandths. No tree is built, so a report over
 * a thousand models costs no more memory than one.
 */
#ifndef OM_JSONW_H
#define OM_JSONW_H

#include <stdint.h>

#include "core/out.h"

#define JSONW_MAX_DEPTH 32
/* jw_init's `compact`: 0 indented, 1 on one line, JSONW_LINES compact but for a line
 * break before each value at the top two levels (a registry report: a model a line) */
#define JSONW_LINES 2

typedef struct jsonw {
    om_out *o;
    int compact;
    int depth;
    int first[JSONW_MAX_DEPTH];  /* nothing written yet at this level */
    int after_key;
} jsonw;

void jw_init(jsonw *w, om_out *o, int compact);
void jw_object(jsonw *w);          /* { */
void jw_array(jsonw *w);           /* [ */
void jw_end_object(jsonw *w);
void jw_end_array(jsonw *w);
void jw_key(jsonw *w, const char *key);   /* escaped as strings are */
void jw_string(jsonw *w, const char *s);
void jw_int(jsonw *w, int64_t v);
void jw_uint(jsonw *w, uint64_t v);
void jw_days(jsonw *w, uint64_t milli);    /* 2500 -> 2.5 */
void jw_number(jsonw *w, double v);         /* shortest round-trip form */
void jw_number_text(jsonw *w, const char *t); /* a number already written as JSON text */
void jw_bool(jsonw *w, int v);
void jw_null(jsonw *w);

/* key + value in one call */
void jw_kstring(jsonw *w, const char *key, const char *s);
void jw_kint(jsonw *w, const char *key, int64_t v);
void jw_kuint(jsonw *w, const char *key, uint64_t v);
void jw_kdays(jsonw *w, const char *key, uint64_t milli);
void jw_kbool(jsonw *w, const char *key, int v);

#endif /* OM_JSONW_H */
