/*
 * walker/precount.c - counting what a walk would do, before walking (see precount.h).
 *
 * Function calls are expanded at every call site, so a small file can expand without end:
 * A calls B twice, B calls C twice, ... 40 levels make 2^40 instances; a node holding
 * thousands of empty subgraphs at the bottom of such a chain makes as many expansions with
 * no instance at all. Walking until the limits would take seconds to hours, so the walk
 * first counts what it would do -- instances, and expansions (subgraphs entered, calls
 * expanded, recursive calls noted) -- without visiting anything, and refuses a model over
 * max_nodes instances or max_expansions expansions in time linear in its size.
 *
 * Each function's totals are computed once and reused at every later call, unless its
 * expansion met a recursive call (cut, as the walk does, at a function already on the call
 * chain) or max_depth: such totals depend on the chain and are recomputed per call. The
 * counting itself is iterative and its work is bounded: each of its steps (a node, a
 * subgraph entered, a frame left) is one the walk takes too, and a walk within its limits
 * takes at most max_nodes + max_expansions nodes (instances and calls), max_expansions
 * subgraphs and max_expansions frames plus one per root graph; more steps than that mean
 * the walk would pass a limit: max_nodes if more than max_nodes of the steps were
 * instances, else max_expansions.
 */
#include "precount.h"

#include <inttypes.h>

#include "core/err.h"

int om_walk_too_many_expansions(const ir_model *m, const opmap_limits *lim, opmap_error *err)
{
    return om_fail(err, OPMAP_ELIMIT, m->name,
                   "more than max_expansions (%" PRIu64 ") subgraph and function-call "
                   "expansions", lim->max_expansions);
}

int om_walk_too_many_instances(const ir_model *m, const opmap_limits *lim, opmap_error *err)
{
    return om_fail(err, OPMAP_ELIMIT, m->name,
                   "more than max_nodes (%" PRIu64 ") operator instances after expanding "
                   "function calls", lim->max_nodes);
}

/* what the counting needs of the walk */
typedef struct pc {
    const ir_model *m;
    const opmap_limits *lim;
    om_mem *mem;
    opmap_error *err;
} pc;

typedef struct pc_frame {
    const ir_graph *g;
    size_t next;
    const ir_node *cur;        /* node whose subgraphs are being counted */
    uint32_t sub_attr;
    size_t sub_graph;
    const ir_function *fn;     /* the function this frame is the body of, or NULL */
    uint32_t depth;
    uint64_t visits, expansions;
    int cut;                   /* totals depend on the call chain: do not reuse */
} pc_frame;

typedef struct pc_memo {
    uint64_t visits, expansions;
    uint8_t known, on_chain;
} pc_memo;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static pc_memo *memo_of(const ir_model *m, pc_memo *memo, const ir_function *fn)
{
    /* callees normally live in m->functions; anything else is simply not memoized */
    if (!memo || fn < m->functions || fn >= m->functions + m->n_functions)
        return NULL;
    return &memo[fn - m->functions];
}

static pc_frame *pc_push(pc *w, om_vec *st, const ir_graph *g, const ir_function *fn,
                         uint32_t depth)
{
    pc_frame *f = om_vec_push(st, w->mem);
    if (!f)
        return NULL;
    f->g = g;
    f->fn = fn;
    f->depth = depth;
    return f;
}

static int precount_root(pc *w, om_vec *st, pc_memo *memo, const ir_graph *root,
                         uint64_t *work, uint64_t *node_work, uint64_t *visits,
                         uint64_t *expansions)
{
    const ir_model *m = w->m;
    /* the walk's steps (see above), plus one frame left per root graph */
    uint64_t max_work = w->lim->max_expansions > UINT64_MAX / 4
                            ? UINT64_MAX
                            : sat_add(sat_add(w->lim->max_nodes, 3 * w->lim->max_expansions),
                                      1 + (uint64_t)w->m->n_extra);
    st->len = 0;
    if (!pc_push(w, st, root, NULL, 0))
        return om_fail_mem(w->err, w->mem, w->m->name);
    while (st->len) {
        pc_frame *f = &OM_VEC_AT(st, pc_frame, st->len - 1);
        const ir_node *n;
        if (++*work > max_work) /* name the bound the walk would pass first */
            return *node_work > w->lim->max_nodes ? om_walk_too_many_instances(w->m, w->lim, w->err)
                                                   : om_walk_too_many_expansions(w->m, w->lim, w->err);
        if (f->cur) {
            const ir_node *c = f->cur;
            const ir_graph *sub = NULL;
            while (f->sub_attr < c->n_attrs) {
                const ir_attr *a = &c->attrs[f->sub_attr];
                if (f->sub_graph < a->n_graphs) {
                    sub = a->graphs[f->sub_graph++];
                    break;
                }
                f->sub_attr++;
                f->sub_graph = 0;
            }
            if (sub) {
                if (f->depth + 1 > w->lim->max_depth) {
                    f->cut = 1; /* the walk reports it, with its path */
                    continue;
                }
                /* fn NULL: a subgraph frame is not the body, its end is not the call's */
                if (!pc_push(w, st, sub, NULL, f->depth + 1))
                    return om_fail_mem(w->err, w->mem, w->m->name);
                continue;
            }
            f->cur = NULL;
        }
        if (f->next >= f->g->n_nodes) {
            pc_frame done = *f;
            pc_memo *mm = memo_of(m, memo, done.fn);
            st->len--;
            if (mm) {
                mm->on_chain = 0;
                if (!done.cut) {
                    mm->known = 1;
                    mm->visits = done.visits;
                    mm->expansions = done.expansions;
                }
            }
            if (!st->len) {
                *visits = sat_add(*visits, done.visits);
                *expansions = sat_add(*expansions, done.expansions);
            } else {
                pc_frame *p = &OM_VEC_AT(st, pc_frame, st->len - 1);
                p->visits = sat_add(p->visits, done.visits);
                p->expansions = sat_add(p->expansions, sat_add(done.expansions, 1));
                p->cut |= done.cut;
            }
            continue;
        }
        n = &f->g->nodes[f->next++];
        if (n->callee) {
            pc_memo *mm = memo_of(m, memo, n->callee);
            int on_chain = 0;
            size_t i;
            if (mm) {
                on_chain = mm->on_chain;
            } else {
                for (i = 0; i < st->len; i++)
                    if (OM_VEC_AT(st, pc_frame, i).fn == n->callee)
                        on_chain = 1;
            }
            if (on_chain) {
                f->expansions = sat_add(f->expansions, 1); /* noted, not expanded */
                f->cut = 1;
                continue;
            }
            if (f->depth + 1 > w->lim->max_depth) {
                f->cut = 1;
                continue;
            }
            if (mm && mm->known) {
                f->visits = sat_add(f->visits, mm->visits);
                f->expansions = sat_add(f->expansions, sat_add(mm->expansions, 1));
                continue;
            }
            if (mm)
                mm->on_chain = 1;
            if (!pc_push(w, st, &n->callee->body, n->callee, f->depth + 1))
                return om_fail_mem(w->err, w->mem, w->m->name);
            continue;
        }
        f->visits = sat_add(f->visits, 1);
        ++*node_work;
        f->cur = n;
        f->sub_attr = 0;
        f->sub_graph = 0;
    }
    return OPMAP_OK;
}

int om_walk_precount(const ir_model *model, const opmap_limits *lim, om_mem *mem,
                     opmap_error *err)
{
    pc ctx = { model, lim, mem, err };
    pc *w = &ctx;
    const ir_model *m = model;
    om_vec st;
    pc_memo *memo = NULL;
    uint64_t work = 0, node_work = 0, visits = 0, expansions = 0;
    int rc = OPMAP_OK;
    size_t i;
    if (!m->n_functions)
        return OPMAP_OK; /* without calls the walk is linear in the model: nothing to fear */
    if (!(memo = om_calloc(w->mem, m->n_functions, sizeof(*memo))))
        return om_fail_mem(w->err, w->mem, w->m->name);
    om_vec_init(&st, sizeof(pc_frame));
    if (m->main)
        rc = precount_root(w, &st, memo, m->main, &work, &node_work, &visits, &expansions);
    for (i = 0; rc == OPMAP_OK && i < m->n_extra; i++)
        rc = precount_root(w, &st, memo, m->extra_graphs[i], &work, &node_work, &visits,
                           &expansions);
    om_vec_free(&st, w->mem);
    om_dealloc(w->mem, memo, m->n_functions * sizeof(*memo));
    if (rc == OPMAP_OK && visits > w->lim->max_nodes)
        rc = om_walk_too_many_instances(w->m, w->lim, w->err);
    if (rc == OPMAP_OK && expansions > w->lim->max_expansions)
        rc = om_walk_too_many_expansions(w->m, w->lim, w->err);
    return rc;
}
