/*
 * report/view.h - what a report says, decided once for every format (view.c, issue 30).
 *
 * opmap_report_write() builds the view from the scan results, the portfolio, the gate's
 * verdict and the headlines; each writer only formats it. Everything a report decides
 * rather than copies lives here: the next commands of each model (ATC's per chip or
 * torch_npu's), each operator's next step and what it becomes, the advice with its places
 * and every distinct source line, the places of each source finding a summary shows, the
 * model's kind (answered by ATC, in ATen terms, source code), the re-export a model's opset
 * calls for, the unpublished answers over the models, and the portfolio's operators with
 * what they become. The facts it holds are enumerated by om_view_facts (view_facts.c),
 * and a test checks every fact against every format that must carry it.
 *
 * Adding a report kind: docs/design.md, "Adding a report kind".
 */
#ifndef OM_REPORT_VIEW_H
#define OM_REPORT_VIEW_H

#include <stddef.h>

#include <opmap/policy.h>
#include <opmap/scan.h>

#include "core/mem.h"
#include "estimate/portfolio.h"
#include "scan/result_internal.h"

/* How many places of an advice (text, Markdown) and of a source finding (text, Markdown,
 * HTML) a summary shows before "... and N more"; JSON and SARIF hold them all. */
#define OM_VIEW_ADVICE_PLACES 3
#define OM_VIEW_SOURCE_PLACES 5
/* HTML lists at most this many node paths of an operator or places of an advice. */
#define OM_VIEW_HTML_PLACES 50

/* A next command: ATC's for a chip (chip >= 0) or a torch_npu step (chip -1). */
typedef struct om_vcmd {
    const char *text;           /* the command line */
    const char *notes;          /* what it leaves to the reader ("" for none) */
    int chip;                   /* ATC: the result's chip index; -1 for a torch_npu step */
} om_vcmd;

/* An advice of a model: the result's entry, and every distinct source line of its places
 * in the order first met (fused kernels; NULL/0 when the model says none). */
typedef struct om_vadvice {
    const om_advice *a;
    const char **lines;
    size_t n_lines;
} om_vadvice;

/* An operator of a model: what it becomes on Ascend ("Conv2D"), the engine it runs on
 * ("" when the table names none), and its next step (NULL below partial). */
typedef struct om_vop {
    const opmap_op *op;
    const char *on_ascend;
    const char *engine;
    const char *next_step;
} om_vop;

typedef struct om_vmodel {
    const opmap_result *r;
    const opmap_headline *headline;
    unsigned traits;            /* its format's OPMAP_FORMAT_TRAIT_* */
    int atc, aten, sources;     /* traits, spelled out */
    om_vcmd *next;              /* the next commands, in order */
    size_t n_next;
    om_vop *ops;                /* parallel to r->ops */
    om_vadvice *advice;         /* parallel to r->advice */
    size_t n_advice;
    /* ATC parses none of some operators at the model's opset: "re-export at opset 8-18"
     * (the widest range every such operator parses at), said before any coverage figure;
     * NULL when no operator is so */
    const char *reexport;
    char coverage[16];          /* "97.5%", or "-" for sources (nothing is placed) */
    int detailed;               /* among the models a page details (om_view.n_detailed) */
} om_vmodel;

/* A portfolio operator: what it becomes in the models that use it ("; "-joined when they
 * differ, by opset), and its engine; as a single model's table says it. */
typedef struct om_vport_op {
    const om_port_op *op;
    const char *on_ascend;
    const char *engine;
} om_vport_op;

typedef struct om_view {
    om_arena arena;
    om_vmodel *models;          /* parallel to the results */
    size_t n_models;
    om_vport_op *port_ops;      /* parallel to the portfolio's ops */
    size_t n_port_ops;
    int sources_only;           /* every result is Python sources: no graph at all */
    uint64_t unpublished_ops;   /* over the models: counted apart, never charged */
    opmap_effort unpublished_effort;
    const char *reexport;       /* the one model's, or "" over several (each model says) */
    /* A page for people (HTML) details at most OM_VIEW_DETAILED_MAX models: past that, the
     * ones with the most to change (worst verdict, then most effort, then report order)
     * and sums up the rest; the JSON report holds every model. */
    size_t n_detailed;
} om_view;

#define OM_VIEW_DETAILED_MAX 100

/* 1 when source line k of an advice is the line of one of its first `shown` places: a
 * writer that shows those places with their lines lists only the other lines apart. */
int om_view_line_shown(const om_vadvice *x, size_t k, size_t shown);

/* What kind of advice it is, as every format words it: "fused kernel", "custom operator",
 * "optional", or NULL for required advice (said without a word). */
const char *om_view_advice_kind(const om_advice *a);

struct om_report_in;

/* Builds the view of `in` (its results, portfolio and headlines set) into `v`, on `mem`;
 * OPMAP_ENOMEM when memory ran out (v is then freed). */
int om_view_build(om_view *v, const struct om_report_in *in, om_mem *mem);
void om_view_free(om_view *v);

/*
 * The facts of a view, for the test that every format carries each (view_facts.c): the
 * kind, the model it belongs to (SIZE_MAX: the report's), its text as the view holds it,
 * and the formats that must carry it (bit OPMAP_REPORT_*). Returns what fn returns first
 * that is not 0, else 0.
 */
enum {
    OM_FACT_VERDICT,            /* a headline's verdict: "needs work" */
    OM_FACT_REEXPORT,           /* the re-export a model's opset calls for */
    OM_FACT_ON_ASCEND,          /* what an operator becomes */
    OM_FACT_NEXT_STEP,          /* an operator's next step */
    OM_FACT_ADVICE,             /* an advice's message */
    OM_FACT_ADVICE_PLACE,       /* a place of an advice a summary shows */
    OM_FACT_ADVICE_LINE,        /* a distinct source line of an advice: "model.py:38" */
    OM_FACT_NEXT_COMMAND,       /* a next command */
    OM_FACT_SOURCE_PLACE,       /* a place of a source finding a summary shows */
    OM_FACT_BACKWARD,           /* a training scan: what an operator's backward runs on */
    OM_FACT_KIND_COUNT
};
typedef int (*om_fact_fn)(void *payload, int kind, size_t model, const char *text,
                          unsigned formats);
int om_view_facts(const om_view *v, om_fact_fn fn, void *payload);
/* "verdict", "on_ascend", ...: a kind's name, for messages. */
const char *om_fact_kind_name(int kind);

#endif /* OM_REPORT_VIEW_H */
