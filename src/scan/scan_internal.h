/*
 * scan/scan_internal.h - the parts of opmap_scan() that live in their own files.
 */
#ifndef OM_SCAN_INTERNAL_H
#define OM_SCAN_INTERNAL_H

#include "ir/ir.h"
#include "rules/advice.h"
#include "table/npu_version.h"
#include "table/table_internal.h"
#include "walker/walker.h"
#include "result_internal.h"

/* One scan in progress: the result it fills and the distinct operators so far. */
typedef struct group {
    opmap_result *res;
    const opmap_table *table;
    const opmap_weights *weights; /* the user's, replacing the table's, or NULL */
    uint32_t chip_soc[64];    /* result chip i -> table SoC index */
    om_vec ops;               /* opmap_op* */
    opmap_op **index;         /* open addressing over (domain, op, opset) */
    size_t index_cap;
    ir_interner names;        /* names of ATen fallback operators, for the index */
    om_advice_state *advice;  /* per table advice entry (ONNX models only), or NULL */
    int has_target;           /* a torch_npu version to answer for was given */
    om_npu_version target;    /* ... and its parse */
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
 * joined by sep into one arena string ("" for none, NULL when memory ran out). */
opmap_op *om_scan_operator(group *g, const ir_node *n, int64_t opset);
const om_soc_answer *om_scan_soc_answer(const opmap_row *row, uint32_t soc);
const char *om_scan_join(om_arena *A, const char *const *items, size_t n, const char *sep);

/* answer.c: one instance on every chip: fills inst[chip], records reasons on op, returns
 * the instance's worst status and sets *placed to the worst its placement follows, the
 * eager answer (*rc: OPMAP_OK or the error); the source ids of a fact, joined for a
 * result. */
int om_scan_evaluate(group *g, opmap_op *op, const om_visit *v, int *inst, int *placed,
                     int *rc);
const char *om_scan_sources(om_arena *A, const om_evidence *ev);

/* torch_npu.c: the version to answer for, from the options (NULL: none; EINVAL for one
 * that does not parse, ENOMEM); the oldest line the model needs, once ops are sorted. */
int om_scan_torch_npu_target(group *g, const char *version);
int om_scan_torch_npu_needed(opmap_result *res);

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
int om_graph_verdict_of(const opmap_table *t, const opmap_row *row, const ir_node *n,
                        om_graph_verdict *out);

/* model_copy.c: the model facts a result keeps (ENOMEM on failure). */
int om_scan_copy_model(opmap_result *res, const ir_model *m);

/* risks.c: model-level risks (ENOMEM on failure). */
int om_risks_model(opmap_result *res);                      /* from the graph inputs */
int om_risks_instance(opmap_result *res, const opmap_op *op, const om_visit *v);
int om_risks_flags(opmap_result *res);                       /* from operators' flags */
/* Graph text printed without inlining (module.graph): its prim::CallMethod and
 * prim::CallFunction nodes are structure, not operators. om_risks_call says whether v is
 * one (1; it is noted) or not (0), or <0 on error; om_risks_calls adds the model's risk. */
int om_risks_call(opmap_result *res, const om_visit *v);
int om_risks_calls(opmap_result *res);

#endif /* OM_SCAN_INTERNAL_H */
