/*
 * merge/merge_internal.h - reading opmap's JSON reports back into scan results.
 *
 * A report is untrusted input (anyone can edit a file): the JSON reader bounds nesting,
 * strings and memory, and every field read here is checked for its type and range. An
 * error names the report file, the byte offset and the field ("models[3].operators[12]
 * .status"), and nothing half-read survives it.
 */
#ifndef OM_MERGE_INTERNAL_H
#define OM_MERGE_INTERNAL_H

#include <opmap/report.h>

#include "readers/formats.h"
#include "core/json.h"
#include "scan/result_internal.h"
#include "table/source_rules.h"

/* One report being read: where errors go and what names the field being read. */
typedef struct rr {
    const char *source;       /* the report file, for errors */
    const char *text;         /* its bytes: numbers of person-days are read from them */
    size_t len;
    opmap_error *err;
    const opmap_table *table; /* rows are found again by (domain, op, opset) */
    const om_source_rules *rules; /* ... and source rules by id (Python sources): the table's */
    char where[256];          /* the field being read, e.g. "models[3].operators[1]" */
    /* a report read a value at a time (stream_read.c): the pieces read, each at its offset
     * in the file (the values' offsets are the file's); none: `text` is the report */
    const struct rr_seg { uint64_t base; const char *text; size_t len; } *segs;
    size_t n_segs;
    const char *schema;       /* the schema its header must name; NULL: the JSON report's */
} rr;

/* Fails with "<source>: offset N: <where>.<field>: <what>" (OPMAP_EFORMAT). */
int rr_fail(rr *r, const oj_value *at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Typed members of object `o`; each fails (OPMAP_EFORMAT) when the member is missing or of
 * another type. Strings are copied into `A` (NULL: borrowed from the JSON tree). */
int rr_str(rr *r, const oj_value *o, const char *key, om_arena *A, const char **out);
int rr_uint(rr *r, const oj_value *o, const char *key, uint64_t *out);
int rr_int(rr *r, const oj_value *o, const char *key, int64_t *out);
int rr_bool(rr *r, const oj_value *o, const char *key, int *out);
int rr_obj(rr *r, const oj_value *o, const char *key, const oj_value **out);
int rr_arr(rr *r, const oj_value *o, const char *key, const oj_value **out);
/* Person-days as the writer puts them ("12.5"): thousandths, exactly. */
int rr_days(rr *r, const oj_value *o, const char *key, uint64_t *out);
int rr_effort(rr *r, const oj_value *o, const char *key, opmap_effort *out);
/* An array of strings, joined by sep into one string in A ("" for none): source ids as
 * the scan joins them. */
int rr_joined(rr *r, const oj_value *o, const char *key, const char *sep, om_arena *A,
              const char **out);
/* A string member equal to name(i) for one i in [0, n); *out is that i. */
typedef const char *rr_namer(int i);
int rr_name(rr *r, const oj_value *o, const char *key, rr_namer *name, int n, int *out);

/* Sets r->where to "<base>[i]" (or "<base>" when i is SIZE_MAX) for the errors that follow. */
void rr_at(rr *r, const char *base, size_t i);

/* The report's chips, the result fields they fill (chips, n_chips). */
typedef struct rr_header {
    const char *schema, *tool_version;
    const char *table_origin, *table_name, *table_version, *torch_npu, *cann;
    const char *tnpu_target;  /* --torch-npu of the scans ("" when none) */
    int mode;                 /* --mode of the scans, an opmap_mode */
    int workload;             /* --workload of the scans, an opmap_workload */
    const char **chips;
    om_chip *chip_info;       /* "socs": the part asked for and the family's parts, per chip */
    size_t n_chips;
    int empty;                /* a report of no model: the writer leaves table, chips and
                                 target out (report_json.c), so none of them is held */
} rr_header;

/* read_model.c: one element of "models" into a new result (the report's header fills the
 * table and chip fields). */
int om_merge_read_model(rr *r, opmap_ctx *ctx, const rr_header *h, const oj_value *m,
                        size_t index, opmap_result **out);

/* read_ops.c: one element of a model's "operators" into res (appended to res->ops). */
int om_merge_read_op(rr *r, opmap_result *res, const oj_value *o, opmap_op **out);

/* read_atc.c: the model's "atc_precheck" (after its operators), when it has one. */
int om_merge_read_atc(rr *r, opmap_result *res, const oj_value *m, const char *base);

/* read_verify.c: an operator's "verification" (device results), when it has one. */
int om_merge_read_verification(rr *r, opmap_result *res, const oj_value *o, opmap_op *op);

/* read_parts.c: the model-level lists of a result. */
int om_merge_read_values(rr *r, opmap_result *res, const oj_value *m, const char *key,
                         ir_value **out, size_t *n);
int om_merge_read_segments(rr *r, opmap_result *res, const oj_value *m);
int om_merge_read_notes(rr *r, opmap_result *res, const oj_value *m);

/* report_set.c: the set (shared with stream_read.c). */
struct opmap_report_set {
    opmap_ctx *ctx;
    const opmap_table *table;
    om_mem mem;
    om_arena arena;           /* header, problems and their errors */
    int have_header;
    rr_header h;
    size_t n_reports;
    om_vec results;           /* opmap_result* */
    om_vec problems;          /* opmap_file_problem */
    struct name_slot { const char *name; size_t report; } *names;
    size_t names_cap, n_names;
    /* reports streamed (stream_read.c): their files by two 64-bit hashes of the name and
     * the report that has it, 24 bytes a file, never the models */
    struct seen_slot { uint64_t h1, h2; size_t report; } *seen;
    size_t seen_cap, n_seen;
    size_t n_streamed;        /* models handed on */
};

/* The report's header against the table and the first report's (report_set.c). */
int om_merge_read_header(opmap_report_set *s, rr *r, const oj_value *root, rr_header *h);
/* Its "errors" and "skipped" into out, in the order the scan met them. */
int om_merge_read_problems(opmap_report_set *s, rr *r, const oj_value *root, om_vec *out);
/* stream_read.c: a file an earlier streamed report has is refused (two hashes of its name
 * kept); a tree parsed on its own moved to its offset in the file. */
int om_merge_see(opmap_report_set *s, rr *r, const char *name);
void om_merge_shift_offsets(oj_value *v, uint64_t by);
/* read_model.c: a result with the report's header only (table, chips, mode), no model. */
int om_merge_header_result(rr *r, opmap_ctx *ctx, const rr_header *h, opmap_result **out);

/* A count of `o` held against what the lists hold. */
int om_merge_same_count(rr *r, const oj_value *o, const char *key, uint64_t have, const char *of);

#endif /* OM_MERGE_INTERNAL_H */
