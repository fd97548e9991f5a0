/*
 * report/registry_internal.h - what registry.c (building) and registry_write.c (the bytes)
 * share: the registry being built.
 */
#ifndef OM_REPORT_REGISTRY_INTERNAL_H
#define OM_REPORT_REGISTRY_INTERNAL_H

#include "estimate/portfolio.h"
#include "estimate/registry_row.h"
#include "policy/gate.h"
#include "policy/headline.h"
#include "table/npu_version.h"
#include "registry.h"
#include "report_stream.h"

/* What an operator becomes on Ascend, over the models that have it (distinct phrases in the
 * order first met, as the other formats join them). */
typedef struct om_reg_becomes {
    const char *domain, *name;
    const char *phrases[OM_REG_BECOMES_MAX];
    size_t n;
} om_reg_becomes;

struct om_registry {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;               /* names, phrases, the torch_npu minimum */
    om_registry_opts o;
    opmap_policy policy;
    om_spool rows;                /* the models' rows, as elements of "models" */
    om_out rout;
    size_t count;
    om_portfolio port, port_unverified;
    om_reg_becomes *becomes;      /* per distinct operator, indexed by (domain, name) */
    size_t n_becomes, becomes_cap, *bindex, bindex_cap;
    om_headline_acc head;
    om_gate *gate;
    uint64_t findings, failing;   /* the models' findings */
    const opmap_result *first;    /* names the table and chips; own_first when read */
    opmap_result *own_first;
    const char *first_file;
    char *root;                   /* the files' longest common directory ("a/b/"), or "" */
    size_t root_len, root_cap;
    om_reg_row first_row;         /* one model: the headline's distinct operators are its */
    om_npu_version need_v;
    const char *need, *need_by, *need_model;
    int took, read;               /* results taken, reports read: not both */
    int finished, failed;
    opmap_verdict *verdict;
    opmap_headline overall;
    const opmap_file_problem *problems;
    size_t n_problems;
};

/* The kinds its gate fails on. */
#define OM_REG_FAIL_ON(g) ((g)->policy.fail_on ? (g)->policy.fail_on : OPMAP_FAIL_UNMAPPED)

/* registry_write.c: one model's row into the rows' spool. */
int om_registry_row_out(om_registry *g, const om_reg_row *row);
/* The verdict and coverage of a row under the registry's rule. */
void om_registry_row_headline(const om_registry *g, const om_reg_row *row, opmap_headline *h);
/* The phrases of an operator (NULL when none were met). */
const om_reg_becomes *om_registry_becomes(const om_registry *g, const char *domain,
                                          const char *name);

#endif /* OM_REPORT_REGISTRY_INTERNAL_H */
