/*
 * report/report_internal.h - the writers behind opmap_report_write().
 */
#ifndef OM_REPORT_INTERNAL_H
#define OM_REPORT_INTERNAL_H

#include <opmap/report.h>
#include <opmap/version.h>

#include "estimate/portfolio.h"
#include "readers/formats.h"
#include "core/out.h"
#include "view.h"

#include <opmap/policy.h>

struct om_view;

/* What every writer gets: the results, the portfolio over them, the gate's verdict, and
 * the view (view.h): what the report says, decided once for every format. */
typedef struct om_report_in {
    opmap_ctx *ctx;
    const opmap_policy *policy;   /* the gate's (the registry counts each model's findings) */
    const opmap_result *const *results;
    size_t count;
    unsigned flags;
    double day_rate;              /* > 0: show costs */
    const char *currency;         /* "" when none */
    const om_portfolio *portfolio;
    const opmap_verdict *verdict;
    const opmap_file_problem *problems;  /* files not read: n_unreadable errors, the rest skipped */
    size_t n_problems, n_unreadable;
    /* the headline (docs/reports.md): each model's (no files), and over them all with the
     * files not read (one model: its own, with the files) */
    const opmap_headline *headlines;
    opmap_headline overall;
    unsigned blocked_on, needs_work_on;   /* the rule, defaults resolved */
    const struct om_view *view;
} om_report_in;

/*
 * What opmap_report_write() prepares before any writer runs: the gate's verdict, the
 * portfolio, the headlines and the view, all in `in`. om_report_prepare checks the options
 * (OPMAP_EINVAL) and fills p; om_report_release frees what it holds (also after a failed
 * prepare). The view's test prepares a report this way to walk its facts.
 */
typedef struct om_report_prep {
    om_mem mem;
    om_portfolio portfolio;
    om_view view;
    om_report_in in;
    opmap_verdict *verdict;
    opmap_headline *heads;
    opmap_policy policy;
    int has_portfolio, has_view;
} om_report_prep;
int om_report_prepare(om_report_prep *p, opmap_ctx *ctx, const opmap_result *const *results,
                      size_t count, const opmap_report_options *opts, opmap_error *err);
void om_report_release(om_report_prep *p);

/* "ready", "needs work", "blocked": the headline's verdict as a person reads it. */
const char *om_readiness_label(int readiness);

/* "97.5%" for 975 thousandths (rounded down to a tenth: 99.96 % is not shown as 100 %). */
void om_format_permille(unsigned permille, char *buf, size_t size);

/* "unmapped, rewrite": the kinds of `bits`, comma-separated ("" for none). */
void om_kind_list(unsigned bits, char *buf, size_t size);

/* The training code's part of a portfolio: its patterns (domain "py", each fixed once) and
 * their effort; 0 when no Python sources were scanned. */
size_t om_source_share(const om_portfolio *p, opmap_effort *effort);

/* A problem's message without its file ("line 3:4: bad varint"): the file is shown beside it. */
void om_problem_message(const opmap_file_problem *p, char *buf, size_t size);

int om_report_json(const om_report_in *in, om_out *out);
int om_report_text(const om_report_in *in, om_out *out);
int om_report_html(const om_report_in *in, om_out *out);
int om_report_markdown(const om_report_in *in, om_out *out);
int om_report_csv(const om_report_in *in, om_out *out);
int om_report_sarif(const om_report_in *in, om_out *out);
int om_report_junit(const om_report_in *in, om_out *out);
int om_report_atc_precheck(const om_report_in *in, om_out *out);
int om_report_registry(const om_report_in *in, om_out *out);

/* A money amount as "1234.5" / "1234.56" / "1234", whatever the host's locale. */
void om_format_amount(double v, char *buf, size_t size);

/* Cost of `milli` thousandths of a person-day at the day rate. */
double om_cost(const om_report_in *in, uint64_t milli);

/*
 * The ATC command converting an ONNX model for chip `chip` of the result (atc_command.c;
 * docs/reports.md, "The next commands"): the part asked for as --soc_version, or
 * $SOC_VERSION when only the family was; --input_shape from the model's inputs, -1 where
 * a dimension is dynamic, and the profile option those dimensions would take.
 */
typedef struct om_atc {
    const char *model;         /* --model */
    char output[256];          /* --output: the model's file name without .onnx */
    const char *family;        /* the chip's family id */
    const char *part;          /* --soc_version, or NULL: only the family is known */
    const char **parts;        /* the family's parts (n_parts), for the placeholder */
    size_t n_parts;
    char input_shape[2048];    /* --input_shape ("" without inputs) */
    unsigned dynamic;          /* dimensions given as -1 */
    const char *profile_flag;  /* --dynamic_batch_size/_image_size/_dims, or NULL */
} om_atc;

void om_atc_build(const opmap_result *r, size_t chip, om_atc *a);
/* The command line, into buf. */
void om_atc_command(const opmap_result *r, size_t chip, char *buf, size_t size);
/* What the command leaves to the reader (the part to pick, dynamic dims), or "". */
void om_atc_notes(const opmap_result *r, size_t chip, char *buf, size_t size);

/* An operator's next step: the table's hint, or one built from its reasons and status
 * (never empty for partial, rewrite and unmapped); buf holds what is built. */
const char *om_next_step(const opmap_op *op, char *buf, size_t size);

/* The torch_npu migration commands of a TorchScript or torch.export model (0 otherwise). */
size_t om_torch_npu_step_count(const opmap_result *r);
void om_torch_npu_step(const opmap_result *r, size_t i, char *buf, size_t size);

/* What an operator ends as on Ascend, in one phrase (never empty). */
#define om_becomes(op) ((op)->becomes)

/* "12.5" for 12500 thousandths: at most three decimals, no trailing zeros. */
void om_format_days(uint64_t milli, char *buf, size_t size);

#endif /* OM_REPORT_INTERNAL_H */
