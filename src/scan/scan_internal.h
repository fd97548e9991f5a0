/*
 * scan/scan_internal.h - the parts of opmap_scan() that live in their own files.
 */
#ifndef OM_SCAN_INTERNAL_H
#define OM_SCAN_INTERNAL_H

#include "ir/ir.h"
#include "readers/formats.h"
#include "rules/advice.h"
#include "rules/pattern_match.h"
#include "table/npu_version.h"
#include "table/table_internal.h"
#include "walker/walker.h"
#include "result_internal.h"

#define OM_MAX_CASES 4

/*
 * What the scan keeps of one distinct operator while it walks: the lists it grows, the
 * counts `becomes` and the verify state are drawn from, and its key. Never in the result:
 * finish_ops() (and source_scan.c's finish) copy what was found into the operator, and
 * om_scan_end frees the rest.
 */
typedef struct om_op_work {
    opmap_op *op;             /* in the result's arena */
    const void *key_domain, *key_op;  /* the model's interned pointers (the index's key) */
    om_vec paths;             /* const char* */
    om_vec locs;              /* const char*, parallel to paths once a location is known */
    om_vec reasons;           /* om_reason */
    om_vec verified;          /* om_verified */
    om_vec verified_entry;    /* size_t, parallel: each one's index in the results set */
    /* the row's `becomes` cases the instances took (a few kept, counted) and the instances
     * none decided; finish_ops() makes the operator's `becomes` from them */
    const char *case_seen[OM_MAX_CASES];
    uint64_t case_count[OM_MAX_CASES];
    uint8_t n_cases_seen, has_cases;
    uint64_t cases_undecided;
    uint8_t verify_failed;    /* a matching device result failed */
    /* a source finding (source_scan.c): its places that are imports under try/except
     * ImportError, and its places that are imports at all */
    uint64_t guarded_places, import_places;
} om_op_work;

/* One scan in progress: the result it fills and the distinct operators so far. */
typedef struct group {
    opmap_result *res;
    const opmap_table *table;
    const opmap_weights *weights; /* the user's, replacing the table's, or NULL */
    uint32_t chip_soc[64];    /* result chip i -> table SoC index */
    om_vec ops;               /* om_op_work*, in the order they were met */
    om_op_work **index;       /* open addressing over (domain, op, opset) */
    size_t index_cap;
    ir_interner names;        /* names of ATen fallback operators, for the index */
    om_advice_state *advice;  /* per table advice entry, or NULL */
    int atc;                  /* the model's operators are answered as ATC converts them */
    om_pattern_run patterns;  /* the table's patterns over the instances (patterns.c) */
    struct om_pat_found *found; /* per pattern, or NULL */
    const struct opmap_results *results; /* device results to match, or NULL */
    int16_t *vchip;           /* per results entry: the result's chip it counts for, -1 none */
    int has_target;           /* a torch_npu version to answer for was given */
    om_npu_version target;    /* ... and its parse */
    const ir_graph *main;     /* ONNX models: the main graph, whose nodes ATC pre-checks */
    opmap_op **main_ops;      /* ... and the operator each of its nodes counts under */
    opmap_error *err;
} group;

/* scan.c: the error for running out of memory (names the model); returns OPMAP_ENOMEM. */
int om_scan_oom(group *g);

/* scan.c: a scan's start, shared by opmap_scan and opmap_scan_sources: the options checked,
 * *res a new result (also on failure, when one was made: the caller frees it) with its
 * name, table facts and chips; g set up over it. om_scan_list_ops puts g's operators into
 * the result in report order; om_scan_summarize totals them; om_scan_end frees what g
 * holds (not the result). */
int om_scan_begin(group *g, opmap_result **res, opmap_ctx *ctx, const char *name,
                  const opmap_table *table, const opmap_scan_options *opts, opmap_error *err);
int om_scan_list_ops(group *g);
void om_scan_summarize(opmap_result *res);
void om_scan_end(group *g);

/* operators.c: the distinct operator node n (at opset) belongs to, created on first sight
 * (NULL when memory ran out); the chip's answer in a row (NULL: the row's applies); items
 * joined by sep into one arena string ("" for none, NULL when memory ran out); a new
 * operator's work, on g's list (NULL when memory ran out). */
om_op_work *om_scan_operator(group *g, const ir_node *n, int64_t opset);
om_op_work *om_scan_work_new(group *g, opmap_op *op);
/* operators.c: the places a work gathered (node paths, and source locations where known)
 * copied into its operator (ENOMEM). */
int om_scan_work_finish(group *g, om_op_work *w);
/* What node n is answered as: its own domain and name, or 1 with "aten" and the operator an
 * ATen fallback node names (its opset is then 0); borrowed from the node. */
int om_scan_answered_as(const ir_node *n, const char **domain, const char **name);
const om_soc_answer *om_scan_soc_answer(const opmap_row *row, uint32_t soc);
const char *om_scan_join(om_arena *A, const char *const *items, size_t n, const char *sep);

/* answer.c: one instance on every chip: fills inst[chip], records reasons on op, returns
 * the instance's worst status and sets *placed to the worst its placement follows, the
 * eager answer (*rc: OPMAP_OK or the error); the source ids of a fact, joined for a
 * result. */
int om_scan_evaluate(group *g, om_op_work *w, const om_visit *v, int *inst, int *placed,
                     int *rc);
const char *om_scan_sources(om_arena *A, const om_evidence *ev);

/* torch_npu.c: the version to answer for, from the options (NULL: none; EINVAL for one
 * that does not parse, ENOMEM); the oldest line the model needs, once ops are sorted. */
int om_scan_torch_npu_target(group *g, const char *version);
int om_scan_torch_npu_needed(opmap_result *res);

/* patterns.c: the patterns of the table over the instances (docs/patterns.md): set up, see
 * an instance, add the fused-kernel advice for what was found, free (OPMAP_ENOMEM). */
int om_scan_patterns_begin(group *g);
int om_scan_patterns_visit(group *g, const om_visit *v);
int om_scan_patterns_finish(group *g);
void om_scan_patterns_end(group *g);

/* atc_graph.c: for an ONNX model, room to note the operator of each main-graph node the
 * walk visits (om_scan_atc_note); then, once the operators are in report order, the list
 * ATC's pre-check makes of the main graph, into the result. */
int om_scan_atc_begin(group *g, const ir_model *m);
void om_scan_atc_note(group *g, const om_visit *v, opmap_op *op);
int om_scan_atc_graph(group *g, const ir_model *m);

/* verify_match.c: device results (opmap_scan_options.results) matched to instances by
 * signature: om_scan_verify_begin maps each result's chip to the result's chips (after
 * pick_chips); om_scan_verify_instance matches one instance of op; om_scan_verify_finish
 * gives op its results and state (finish_ops then gives a pass its effort's minimum, and
 * no unpublished answer left to verify). ENOMEM on failure. */
int om_scan_verify_begin(group *g, const struct opmap_results *results);
int om_scan_verify_instance(group *g, om_op_work *w, const om_visit *v);
int om_scan_verify_finish(group *g, om_op_work *w);
void om_scan_verify_end(group *g);

/* graph_mode.c: graph mode (opmap_scan_options.mode). om_graph_applies: the result is in
 * graph mode and its model a TorchScript or torch.export one (ONNX is never compiled by
 * torch.compile). om_graph_verdict_of: what torchair's converters do with instance n of
 * row: 1 with *out filled (status OPMAP_OP_PARTIAL/REWRITE, or -1 for a note), 0 when
 * nothing is to be said (converted, structural, no graph answer). */
typedef struct om_graph_verdict {
    int status;
    char message[512];
    char actual[192];
    const om_evidence *ev;
} om_graph_verdict;
int om_graph_applies(const opmap_result *res);
/* answer.c: a training scan of an ATen graph answers each operator's backward too. */
int om_scan_backward_applies(const opmap_result *res);
int om_graph_verdict_of(const opmap_table *t, const opmap_row *row, const ir_node *n,
                        om_graph_verdict *out);

/* model_copy.c: the model facts a result keeps (ENOMEM on failure). */
int om_scan_copy_model(opmap_result *res, const ir_model *m);

/* risks.c: model-level risks (ENOMEM on failure). */
int om_risks_model(opmap_result *res);                      /* from the graph inputs */
int om_risks_functions(opmap_result *res, const ir_model *m); /* functions defined twice */
int om_risks_instance(opmap_result *res, const opmap_op *op, const om_visit *v);
int om_risks_flags(opmap_result *res);                       /* from operators' flags */
/* Graph text printed without inlining (module.graph): its prim::CallMethod and
 * prim::CallFunction nodes are structure, not operators. om_risks_call says whether v is
 * one (1; it is noted) or not (0), or <0 on error; om_risks_calls adds the model's risk. */
int om_risks_call(opmap_result *res, const om_visit *v);
int om_risks_calls(opmap_result *res);

#endif /* OM_SCAN_INTERNAL_H */
