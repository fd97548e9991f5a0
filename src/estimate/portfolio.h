/*
 * estimate/portfolio.h - several models estimated together.
 *
 * An operator shared by several models is adapted once: the portfolio unites the models'
 * distinct operators by (domain, name), keeps the worst status seen, and sums effort over
 * that union. Comparing with the sum of the models' own estimates shows what sharing saves.
 */
#ifndef OM_PORTFOLIO_H
#define OM_PORTFOLIO_H

#include <opmap/scan.h>

#include "core/mem.h"
#include "estimate.h"

typedef struct om_port_op {
    const char *domain, *name;   /* borrowed from the first result that has it */
    int status;                  /* worst over the models */
    unsigned flags;              /* union */
    uint64_t instances;          /* over all models */
    uint32_t models;             /* how many models use it */
    opmap_effort effort;         /* of the worst status */
    const char *ascend_op, *engine, *hint;
} om_port_op;

typedef struct om_portfolio {
    om_port_op *ops;             /* sorted worst first, then by models, instances, name */
    size_t n;
    size_t allocated;            /* entries allocated for ops */
    opmap_summary summary;       /* over the union */
    opmap_effort separately;     /* sum of each model's own estimate */
    /* while it is built one model at a time (om_portfolio_begin): the index of ops by
     * (domain, name), and the strings copied from models freed meanwhile */
    om_mem *mem;
    size_t *index;               /* 0 = empty, else op index + 1 */
    size_t cap;
    int copy;
    om_arena strings;
} om_portfolio;

/* One model as the portfolio sees it: its distinct operators and its own estimate. */
typedef struct om_portfolio_model {
    const om_estimate_op *ops;
    size_t n;
    opmap_effort own;            /* the model's effort_total */
} om_portfolio_model;

/*
 * The same one model at a time, in the models' order, so that what is held is the
 * distinct operators, never the models: om_portfolio_begin (copy: the strings are copied,
 * as the models will be freed before the end), om_portfolio_add for each model,
 * om_portfolio_end (sorts; nothing is added after it). Each returns OPMAP_OK or
 * OPMAP_ENOMEM; om_portfolio_free frees it at any point.
 */
void om_portfolio_begin(om_portfolio *p, om_mem *mem, int copy);
int om_portfolio_add(om_portfolio *p, const om_portfolio_model *m);
void om_portfolio_end(om_portfolio *p);
/* An operator of another union (a registry report's, over `models` models) into this one,
 * as if each of its models had been added here: the worst status (its effort the first
 * seen at it), flags united, instances and models summed. Union them in the models' order
 * and the result is the union over every model. */
int om_portfolio_add_union(om_portfolio *p, const om_estimate_op *op, uint32_t models);

/* Unites `count` models' operators into `out` (freed with om_portfolio_free). */
int om_portfolio_build(const om_portfolio_model *models, size_t count, om_mem *mem,
                       om_portfolio *out);
void om_portfolio_free(om_portfolio *p, om_mem *mem);

#endif /* OM_PORTFOLIO_H */
