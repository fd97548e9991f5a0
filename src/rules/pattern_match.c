/*
 * rules/pattern_match.c - chains of operators found backwards from their last step
 * (pattern_match.h). A graph's producer index (value name -> the node writing it) is built
 * the first time one of its nodes ends a step, and kept for the scan.
 */
#include "pattern_match.h"

#include <stdint.h>
#include <string.h>

#include <opmap/error.h>

#define NONE SIZE_MAX
#define MAX_SKIP_HOPS 8

struct om_pat_graph {
    const ir_graph *g;
    const char **names;      /* open addressing: value name ... */
    size_t *node;            /* ... -> producing node */
    size_t cap;
};

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h ^ (h >> 29);
}

static uint64_t ptr_hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

/* A node's dataflow: its inputs and outputs, or a TorchScript archive's flow names. */
static uint32_t n_ins(const ir_node *n) { return n->n_inputs ? n->n_inputs : n->n_flow_in; }
static uint32_t n_outs(const ir_node *n) { return n->n_outputs ? n->n_outputs : n->n_flow_out; }
static const char *in_at(const ir_node *n, uint32_t i)
{
    return n->n_inputs ? n->inputs[i] : n->flow_in[i];
}
static const char *out_at(const ir_node *n, uint32_t i)
{
    return n->n_outputs ? n->outputs[i] : n->flow_out[i];
}

static void graph_free(om_mem *mem, om_pat_graph *pg)
{
    if (pg->names)
        om_dealloc(mem, pg->names, pg->cap * sizeof(*pg->names));
    if (pg->node)
        om_dealloc(mem, pg->node, pg->cap * sizeof(*pg->node));
    om_dealloc(mem, pg, sizeof(*pg));
}

static om_pat_graph *index_graph(om_mem *mem, const ir_graph *g)
{
    om_pat_graph *pg = om_calloc(mem, 1, sizeof(*pg));
    size_t i, k, outs = 0;
    if (!pg)
        return NULL;
    pg->g = g;
    for (i = 0; i < g->n_nodes; i++)
        outs += n_outs(&g->nodes[i]);
    for (pg->cap = 16; pg->cap < outs * 2; pg->cap *= 2)
        ;
    if (!(pg->names = om_calloc(mem, pg->cap, sizeof(*pg->names))) ||
        !(pg->node = om_calloc(mem, pg->cap, sizeof(*pg->node)))) {
        graph_free(mem, pg);
        return NULL;
    }
    for (i = 0; i < g->n_nodes; i++)
        for (k = 0; k < n_outs(&g->nodes[i]); k++) {
            const char *name = out_at(&g->nodes[i], k);
            size_t j;
            if (!name || !name[0])
                continue;
            for (j = str_hash(name) & (pg->cap - 1); pg->names[j]; j = (j + 1) & (pg->cap - 1))
                if (strcmp(pg->names[j], name) == 0)
                    break;
            pg->names[j] = name; /* a value written twice: the last writer, as SSA forbids */
            pg->node[j] = i;
        }
    return pg;
}

/* The graph's index, built on first use (NULL: out of memory). */
static om_pat_graph *graph_of(om_pattern_run *r, const ir_graph *g)
{
    size_t j;
    if ((r->used + 1) * 2 > r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 16, i;
        om_pat_graph **ng = om_calloc(r->mem, ncap, sizeof(*ng));
        if (!ng)
            return NULL;
        for (i = 0; i < r->cap; i++)
            if (r->graphs[i]) {
                for (j = ptr_hash(r->graphs[i]->g) & (ncap - 1); ng[j]; j = (j + 1) & (ncap - 1))
                    ;
                ng[j] = r->graphs[i];
            }
        if (r->graphs)
            om_dealloc(r->mem, r->graphs, r->cap * sizeof(*r->graphs));
        r->graphs = ng;
        r->cap = ncap;
    }
    for (j = ptr_hash(g) & (r->cap - 1); r->graphs[j]; j = (j + 1) & (r->cap - 1))
        if (r->graphs[j]->g == g)
            return r->graphs[j];
    if (!(r->graphs[j] = index_graph(r->mem, g)))
        return NULL;
    r->used++;
    return r->graphs[j];
}

void om_pattern_run_init(om_pattern_run *r, const om_patterns *t, om_mem *mem)
{
    memset(r, 0, sizeof(*r));
    r->t = t;
    r->mem = mem;
}

void om_pattern_run_free(om_pattern_run *r)
{
    size_t i;
    for (i = 0; i < r->cap; i++)
        if (r->graphs[i])
            graph_free(r->mem, r->graphs[i]);
    if (r->graphs)
        om_dealloc(r->mem, r->graphs, r->cap * sizeof(*r->graphs));
    memset(r, 0, sizeof(*r));
}

static int is_op(const ir_node *n, const om_pat_op *o)
{
    return strcmp(n->op, o->op) == 0 && strcmp(n->domain, o->domain) == 0;
}

static int step_is(const ir_node *n, const om_pat_step *st)
{
    uint8_t i;
    for (i = 0; i < st->n_alts; i++)
        if (is_op(n, &st->alts[i]))
            return 1;
    return 0;
}

/* One chain being matched backwards from its anchor. */
typedef struct walk {
    const om_pattern *p;
    const om_pat_chain *c;
    const om_pat_graph *pg;
    size_t m[OM_PAT_MAX_STEPS];   /* the node of each step, NONE for an optional one skipped */
    size_t work;
} walk;

/* The node writing `name`, walked through the pattern's skip operators; NONE when none
 * (a graph input, an initializer, an outer value). */
static size_t producer(walk *w, const char *name)
{
    const om_pat_graph *pg = w->pg;
    int hops;
    for (hops = 0; name && name[0] && hops <= MAX_SKIP_HOPS; hops++) {
        const ir_node *n;
        size_t j, k, at = NONE;
        w->work++;
        for (j = str_hash(name) & (pg->cap - 1); pg->names[j]; j = (j + 1) & (pg->cap - 1))
            if (strcmp(pg->names[j], name) == 0) {
                at = pg->node[j];
                break;
            }
        if (at == NONE)
            return NONE;
        n = &pg->g->nodes[at];
        for (k = 0; k < w->p->n_skip && !is_op(n, &w->p->skip[k]); k++)
            ;
        if (k == w->p->n_skip || !n_ins(n))
            return at;
        name = in_at(n, 0);
    }
    return NONE;
}

/* Every comparison is charged to the walk's budget: a node of huge fan-in costs a bound. */
static int shares_input(walk *w, const ir_node *a, const ir_node *b)
{
    uint32_t i, j;
    for (i = 0; i < n_ins(a); i++)
        for (j = 0; in_at(a, i)[0] && j < n_ins(b); j++) {
            if (++w->work > OM_PAT_MAX_WORK)
                return 0;
            if (strcmp(in_at(a, i), in_at(b, j)) == 0)
                return 1;
        }
    return 0;
}

/* Step s's node reads, besides the chain's value, one made by an operator of `ops`. */
static int other_input(walk *w, uint8_t s, const om_pat_step *ops)
{
    const ir_node *n = &w->pg->g->nodes[w->m[s]];
    size_t prev = NONE, at;
    uint32_t k;
    int8_t t;
    for (t = (int8_t)s - 1; t >= 0 && prev == NONE; t--)
        prev = w->m[t];
    for (k = 0; k < n_ins(n) && w->work < OM_PAT_MAX_WORK; k++)
        if ((at = producer(w, in_at(n, k))) != NONE && at != prev &&
            step_is(&w->pg->g->nodes[at], ops))
            return 1;
    return 0;
}

static int constraints_hold(walk *w)
{
    const om_pat_chain *c = w->c;
    const ir_node *nodes = w->pg->g->nodes;
    uint8_t i;
    for (i = 0; i < c->n_shares; i++) {
        size_t a = w->m[c->shares[i][0]], b = w->m[c->shares[i][1]];
        if (a == NONE || b == NONE || !shares_input(w, &nodes[a], &nodes[b]))
            return 0;
    }
    for (i = 0; i < c->n_other; i++)
        if (w->m[c->other_step[i]] == NONE || !other_input(w, c->other_step[i], &c->other[i]))
            return 0;
    return 1;
}

/* Steps s down to 0, the node of step s being one whose output `consumer` reads. The
 * recursion is bounded by the chain's length (OM_PAT_MAX_STEPS) and the work budget. */
static int back(walk *w, int s, size_t consumer)
{
    const ir_node *cn = &w->pg->g->nodes[consumer];
    const om_pat_step *st;
    uint32_t k;
    if (s < 0)
        return constraints_hold(w);
    st = &w->c->steps[s];
    for (k = 0; k < n_ins(cn) && w->work < OM_PAT_MAX_WORK; k++) {
        size_t at = producer(w, in_at(cn, k));
        if (at != NONE && step_is(&w->pg->g->nodes[at], st)) {
            w->m[s] = at;
            if (back(w, s - 1, at))
                return 1;
        }
    }
    if (st->optional && w->work < OM_PAT_MAX_WORK) {
        w->m[s] = NONE;
        if (back(w, s - 1, consumer))
            return 1;
    }
    return 0;
}

int om_pattern_match(om_pattern_run *r, const om_pattern *p, const om_visit *v)
{
    const ir_graph *g = v->graph;
    size_t i, anchor;
    walk w;
    if (!g || v->node < g->nodes || v->node >= g->nodes + g->n_nodes)
        return 0; /* not a node of its graph's array (nothing to walk back through) */
    anchor = (size_t)(v->node - g->nodes);
    for (i = 0; i < p->n_chains; i++) {
        const om_pat_chain *c = &p->chains[i];
        if (!step_is(v->node, &c->steps[c->n_steps - 1]))
            continue;
        memset(&w, 0, sizeof(w));
        w.p = p;
        w.c = c;
        if (!(w.pg = graph_of(r, g)))
            return OPMAP_ENOMEM;
        w.m[c->n_steps - 1] = anchor;
        if (back(&w, (int)c->n_steps - 2, anchor))
            return 1;
    }
    return 0;
}
