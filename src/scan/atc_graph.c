/*
 * scan/atc_graph.c - the main graph of an ONNX model as ATC's pre-check lists it
 * (`atc --mode=3`; docs/reports.md, "ATC pre-check"), so the atc-precheck report can say
 * what ATC's check_result.json would hold.
 *
 * What ATC's ONNX parser does before and during its pre-check (hicann/ge @ ffdcbc9f7496,
 * parser/parser/onnx/onnx_parser.cc): an unnamed node is named <op_type>_<k>, k counting
 * the unnamed nodes of the main graph from 0 (AdaptAndFindAllOnnxGraph, before anything
 * else); an Input node is appended per graph input that is not an initializer
 * (ParseInput), then a Constant per initializer name, in name order, named
 * <name>_Initializer_<i>, FileConstant when its data is external (ParseInitializer: a
 * std::map, so one per name, the last one given winning). A node's type is
 * <domain>::<opset>::<op_type>, the opset the model's import of its domain (ai.onnx for
 * ""), except for Input, Constant and FileConstant, which keep their bare type (a Constant
 * whose value is external becomes FileConstant). Only dense initializers count: the
 * parser never reads sparse_initializer. A main graph without inputs stops ATC before the
 * pre-check; a node whose domain is not imported stops the pre-check there.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_internal.h"

int om_scan_atc_begin(group *g, const ir_model *m)
{
    if (!om_format_has(m->format, OPMAP_FORMAT_TRAIT_ATC) || !m->main)
        return OPMAP_OK;
    g->main = m->main;
    if (m->main->n_nodes &&
        !(g->main_ops = om_calloc(&g->res->mem, m->main->n_nodes, sizeof(*g->main_ops))))
        return om_scan_oom(g);
    return OPMAP_OK;
}

void om_scan_atc_note(group *g, const om_visit *v, opmap_op *op)
{
    if (g->main_ops && v->graph == g->main)
        g->main_ops[v->node - g->main->nodes] = op;
}

typedef struct op_at {
    uintptr_t addr;
    size_t index;
} op_at;

typedef struct builder {
    group *g;
    const ir_model *m;
    om_atc_entry *e;          /* room for every node, input and initializer */
    size_t n;
    const ir_tensor **inits;  /* the dense, named initializers, by name (then given order) */
    size_t n_inits;
    op_at *ops;               /* the result's operators by address: node -> its index */
    char *buf;                /* scratch for a type string */
    size_t cap;
} builder;

static int cmp_op_at(const void *a, const void *b)
{
    const op_at *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static size_t op_index(const builder *b, const opmap_op *op)
{
    op_at key, *hit;
    if (!op || !b->ops)
        return OM_ATC_NO_OP;
    key.addr = (uintptr_t)op;
    hit = bsearch(&key, b->ops, b->g->res->n_ops, sizeof(*b->ops), cmp_op_at);
    return hit ? hit->index : OM_ATC_NO_OP;
}

/* By name, then in the order given: the last of a name is the one std::map keeps. */
static int cmp_init(const void *a, const void *b)
{
    const ir_tensor *x = *(const ir_tensor *const *)a, *y = *(const ir_tensor *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x < y ? -1 : x > y);
}

static int init_named(const void *key, const void *elem)
{
    return strcmp(key, (*(const ir_tensor *const *)elem)->name);
}

static int is_initializer(const builder *b, const char *name)
{
    return b->n_inits &&
           bsearch(name, b->inits, b->n_inits, sizeof(*b->inits), init_named) != NULL;
}

static int collect_inits(builder *b, const ir_graph *main)
{
    size_t i;
    if (main->n_inits &&
        !(b->inits = om_calloc(&b->g->res->mem, main->n_inits, sizeof(*b->inits))))
        return OPMAP_ENOMEM;
    for (i = 0; i < main->n_inits; i++)
        if (!main->inits[i].sparse && main->inits[i].name[0])
            b->inits[b->n_inits++] = &main->inits[i];
    if (b->n_inits)
        qsort(b->inits, b->n_inits, sizeof(*b->inits), cmp_init);
    return OPMAP_OK;
}

/* ATC looks the domain up in the model's imports, the last import of it winning. */
static int imported(const ir_model *m, const char *domain, int64_t *version)
{
    size_t i;
    int found = 0;
    for (i = 0; i < m->n_opsets; i++)
        if (strcmp(m->opsets[i].domain, domain) == 0) {
            *version = m->opsets[i].version;
            found = 1;
        }
    return found;
}

/* "<domain>::<opset>::<op_type>", one arena copy per distinct string (interned). */
static const char *typed(builder *b, const char *domain, int64_t opset, const char *op)
{
    size_t need = strlen(domain) + strlen(op) + 32;
    int len;
    if (need > b->cap) {
        char *nb = om_realloc(&b->g->res->mem, b->buf, b->cap, need);
        if (!nb)
            return NULL;
        b->buf = nb;
        b->cap = need;
    }
    len = snprintf(b->buf, b->cap, "%s::%" PRId64 "::%s", domain, opset, op);
    return ir_intern(&b->g->names, b->buf, (size_t)len);
}

/* A node's type as ATC's pre-check sees it; NULL with *stop set when ATC stops at it (its
 * domain is not imported), NULL alone when memory ran out. */
static const char *node_type(builder *b, const ir_node *n, int *stop)
{
    int64_t opset = 0;
    if (strcmp(n->op, "Constant") == 0) {
        const ir_attr *a = ir_node_attr(n, "value");
        return a && a->type == IR_ATTR_TENSOR && a->n_tensors && a->tensors[0].external
                   ? "FileConstant" : "Constant";
    }
    if (strcmp(n->op, "Input") == 0 || strcmp(n->op, "FileConstant") == 0)
        return n->op;
    if (!imported(b->m, n->domain, &opset)) {
        *stop = 1;
        return NULL;
    }
    return typed(b, n->domain, opset, n->op);
}

static om_atc_entry *add(builder *b, const char *name, const char *type, int kind)
{
    om_atc_entry *e = &b->e[b->n++];
    e->name = name;
    e->type = type;
    e->kind = (uint8_t)kind;
    e->op = OM_ATC_NO_OP;
    return e;
}

/* The nodes, in order; 1 when ATC's pre-check would stop at one, <0 when memory ran out. */
static int add_nodes(builder *b, const ir_graph *main)
{
    om_arena *A = &b->g->res->arena;
    size_t i, unnamed = 0;
    for (i = 0; i < main->n_nodes; i++) {
        const ir_node *n = &main->nodes[i];
        int stop = 0;
        const char *type = node_type(b, n, &stop);
        const char *name = n->name[0] ? om_arena_strdup(A, n->name)
                                      : om_arena_printf(A, "%s_%zu", n->op, unnamed++);
        om_atc_entry *e;
        if (stop)
            return 1;
        if (!type || !name)
            return -1;
        e = add(b, name, type, n->callee ? OM_ATC_CALL : OM_ATC_NODE);
        if (!n->callee)
            e->op = op_index(b, b->g->main_ops ? b->g->main_ops[i] : NULL);
    }
    return 0;
}

static int add_inputs_and_inits(builder *b, const ir_graph *main)
{
    om_arena *A = &b->g->res->arena;
    size_t i, k = 0;
    for (i = 0; i < main->n_inputs; i++) {
        const char *name = main->inputs[i].name;
        if (is_initializer(b, name))
            continue;
        if (!(name = om_arena_strdup(A, name)))
            return OPMAP_ENOMEM;
        add(b, name, "Input", OM_ATC_INPUT);
    }
    for (i = 0; i < b->n_inits; i++) {
        const ir_tensor *t = b->inits[i];
        const char *name;
        if (i + 1 < b->n_inits && strcmp(t->name, b->inits[i + 1]->name) == 0)
            continue; /* a later one of this name is kept */
        if (!(name = om_arena_printf(A, "%s_Initializer_%zu", t->name, k++)))
            return OPMAP_ENOMEM;
        add(b, name, t->external ? "FileConstant" : "Constant", OM_ATC_INITIALIZER);
    }
    return OPMAP_OK;
}

static int index_ops(builder *b)
{
    opmap_result *res = b->g->res;
    size_t i;
    if (!res->n_ops)
        return OPMAP_OK;
    if (!(b->ops = om_calloc(&res->mem, res->n_ops, sizeof(*b->ops))))
        return OPMAP_ENOMEM;
    for (i = 0; i < res->n_ops; i++) {
        b->ops[i].addr = (uintptr_t)res->ops[i];
        b->ops[i].index = i;
    }
    qsort(b->ops, res->n_ops, sizeof(*b->ops), cmp_op_at);
    return OPMAP_OK;
}

static int build(builder *b, const ir_graph *main)
{
    opmap_result *res = b->g->res;
    size_t room;
    int rc;
    if (!main->n_inputs)
        return OPMAP_OK; /* ATC: "Root onnx graph ... has zero input", before the pre-check */
    if ((rc = collect_inits(b, main)) || (rc = index_ops(b)))
        return rc;
    room = main->n_nodes + main->n_inputs + b->n_inits;
    if (room && !(b->e = om_arena_array(&res->arena, room, sizeof(*b->e))))
        return OPMAP_ENOMEM;
    res->atc = b->e;
    rc = add_nodes(b, main);
    if (rc < 0)
        return OPMAP_ENOMEM;
    if (rc == 0 && (rc = add_inputs_and_inits(b, main)))
        return rc;
    res->n_atc = b->n;
    return om_atc_mark_repeated(res);
}

int om_scan_atc_graph(group *g, const ir_model *m)
{
    opmap_result *res = g->res;
    builder b;
    int rc;
    if (!g->main)
        return OPMAP_OK;
    memset(&b, 0, sizeof(b));
    b.g = g;
    b.m = m;
    res->has_atc = 1;
    rc = build(&b, g->main);
    if (b.inits)
        om_dealloc(&res->mem, b.inits, g->main->n_inits * sizeof(*b.inits));
    if (b.ops)
        om_dealloc(&res->mem, b.ops, res->n_ops * sizeof(*b.ops));
    if (b.buf)
        om_dealloc(&res->mem, b.buf, b.cap);
    return rc == OPMAP_OK ? OPMAP_OK : om_scan_oom(g);
}

static const char *const kind_names[OM_ATC_KIND_COUNT] = { "node", "call", "input",
                                                           "initializer" };

const char *om_atc_kind_name(int kind)
{
    return kind >= 0 && kind < OM_ATC_KIND_COUNT ? kind_names[kind] : NULL;
}

static int cmp_entry(const void *a, const void *b)
{
    const om_atc_entry *x = *(const om_atc_entry *const *)a;
    const om_atc_entry *y = *(const om_atc_entry *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x < y ? -1 : x > y);
}

/*
 * ATC's CheckName (pre_checker.cc) compares each entry, as it is added, with those before
 * it, and marks both on a match: so every entry of a name given more than once is marked,
 * the first by the second's check (after its own type check), the others by their own.
 */
int om_atc_mark_repeated(opmap_result *res)
{
    om_atc_entry **by = NULL;
    size_t i, j;
    if (res->n_atc < 2)
        return OPMAP_OK;
    if (!(by = om_calloc(&res->mem, res->n_atc, sizeof(*by))))
        return OPMAP_ENOMEM;
    for (i = 0; i < res->n_atc; i++) {
        by[i] = &res->atc[i];
        by[i]->repeated = 0;
    }
    qsort(by, res->n_atc, sizeof(*by), cmp_entry);
    for (i = 0; i < res->n_atc; i = j) {
        for (j = i + 1; j < res->n_atc && strcmp(by[i]->name, by[j]->name) == 0; j++)
            by[j]->repeated = 2;
        if (j > i + 1)
            by[i]->repeated = 1;
    }
    om_dealloc(&res->mem, by, res->n_atc * sizeof(*by));
    return OPMAP_OK;
}
