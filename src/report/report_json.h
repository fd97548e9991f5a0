/*
 * report/report_json.h - the JSON report in its three parts, so that a report whose models
 * are written one at a time (report_stream.c) has the bytes opmap_report_write() writes:
 * the top up to "models", each model, and the rest.
 */
#ifndef OM_REPORT_JSON_H
#define OM_REPORT_JSON_H

#include "jsonw.h"
#include "report_internal.h"
#include "report_stream.h"
#include "view.h"

/* What the top and the rest say of the models that is not in `in`. */
typedef struct om_json_top {
    size_t count;                   /* models */
    const opmap_result *first;      /* the first model (table, chips, mode), NULL for none */
    const char *need, *need_by, *need_model;  /* the newest torch_npu minimum ("" for none) */
    const char *reexport;           /* the one model's re-export, "" */
    /* the models' findings of a report stream, written already as elements of the gate's
     * "findings" (before the verdict's own: the files not read, the budget); NULL: none */
    om_spool *findings;
    size_t n_findings;
} om_json_top;

/* Writes "{" ... "models": [ (w at depth 0). */
void om_json_head(jsonw *w, const om_report_in *in, const om_json_top *t);
/* One element of "models" (w inside that array: depth 2). */
void om_json_model(jsonw *w, const om_vmodel *m);
/* One element of the gate's "findings" (w inside that array: depth 3). */
void om_json_finding(jsonw *w, const opmap_finding *f);
/* The members a registry report shares with the JSON report (registry.c). */
/* "{" and the top up to "socs" (what om_json_head writes before "models"). */
void om_json_header(jsonw *w, const om_report_in *in, const om_json_top *t, const char *schema);
void om_json_problems(jsonw *w, const om_report_in *in);      /* "errors", "skipped" */
void om_json_totals(jsonw *w, const om_report_in *in, size_t count);
void om_json_portfolio_sums(jsonw *w, const om_portfolio *p); /* "portfolio" but "operators" */
void om_json_cost(jsonw *w, const om_report_in *in);          /* with a day rate */
void om_json_effort(jsonw *w, const char *key, opmap_effort e);
void om_json_flags(jsonw *w, unsigned bits);                  /* "flags": [names] */
void om_json_kinds(jsonw *w, const char *key, unsigned bits); /* key: [kind names] */
/* "]" ... "}\n": w->first[2] must say whether a model was written. */
void om_json_tail(jsonw *w, const om_report_in *in, const om_json_top *t);

#endif /* OM_REPORT_JSON_H */
