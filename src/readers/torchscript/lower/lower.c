/*
 * readers/torchscript/lower/lower.c - optimizer graph -> IR with call frames (see lower/lower.h).
 *
 * A node list is emitted for one frame: its own nodes become IR nodes, the nodes of each
 * child frame (a submodule call) are gathered, in order, behind one call node placed where
 * the first of them was, and emitted recursively as that call's function. Graphs are
 * hash-consed (equal node lists share one ir_graph), so are functions, which keeps the
 * IR of repetitive models small; the walker expands calls again at each call site.
 *
 * Each node also gets its call's arguments (ir_node.args): the values of constant scalars
 * and of constant int/float lists, as the graph passes them. Argument lists are interned
 * too (equal lists share one array), so nodes compare them by pointer, and two calls that
 * differ only in a constant argument (two LayerNorms with different eps) never share a
 * graph or a function.
 */
#include "lower.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "core/hash.h"
#include "readers/torchscript/passes/pass_state.h"

typedef struct fwrap {
    ir_function fn;           /* first: a callee pointer is a fwrap pointer */
    size_t index;
} fwrap;

typedef struct pend {
    tsj_frame *f;
    om_vec nodes;             /* tsj_node* */
    size_t call_at;
    uint32_t stamp;
} pend;

typedef struct rec_fn {
    const void *callee;       /* the tsl_func a recursive call names */
    fwrap *w;
} rec_fn;

struct tsir_arglist {
    ir_attr *a;               /* model arena */
    uint32_t n;
    uint64_t h;
};

typedef struct em {
    ts_ctx *c;
    tsp_state al;                   /* alias facts of the root graph: which lists are written */
    tsir_argtab args;           /* interned argument lists */
    ir_attr *abuf;            /* scratch: the arguments of the node being filled */
    size_t abuf_cap;
    int64_t *ibuf;            /* scratch: their list values */
    double *fbuf;
    size_t vbuf_cap;
    om_vec recs;              /* rec_fn */
    ir_graph **gtab;
    size_t gcap, glen;
    fwrap **ftab;
    size_t fcap, flen;
    om_vec graphs;            /* ir_graph*: every distinct graph */
    om_vec funcs;             /* fwrap* */
    const char *d_prim, *d_ts, *op_call, *a_block;
    uint32_t depth;
    struct vslot { const tsj_value *v; const char *name; } *vtab; /* value -> flow name */
    size_t vcap, vlen;
} em;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t node_hash(const ir_node *n)
{
    uint64_t h = OM_HASH_SEED;
    uint32_t i, k;
    h = mix(h, (uintptr_t)n->domain);
    h = mix(h, (uintptr_t)n->op);
    h = mix(h, (uintptr_t)n->call_label);
    h = mix(h, (uintptr_t)n->callee);
    h = mix(h, (uintptr_t)n->src_file);
    h = mix(h, n->src_line);
    h = mix(h, (uintptr_t)n->args);  /* interned: equal lists are one pointer */
    h = mix(h, n->n_args);
    for (i = 0; i < n->n_attrs; i++)
        for (k = 0; k < n->attrs[i].n_graphs; k++)
            h = mix(h, (uintptr_t)n->attrs[i].graphs[k]);
    return h;
}

static uint64_t graph_hash(const ir_node *nodes, size_t n)
{
    uint64_t h = n;
    size_t i;
    for (i = 0; i < n; i++)
        h = mix(h, node_hash(&nodes[i]));
    return h;
}

static int node_eq(const ir_node *a, const ir_node *b)
{
    uint32_t i, k;
    if (a->domain != b->domain || a->op != b->op || a->call_label != b->call_label ||
        a->callee != b->callee || a->src_file != b->src_file || a->src_line != b->src_line ||
        a->n_attrs != b->n_attrs || a->args != b->args || a->n_args != b->n_args)
        return 0;
    for (i = 0; i < a->n_attrs; i++) {
        if (a->attrs[i].n_graphs != b->attrs[i].n_graphs)
            return 0;
        for (k = 0; k < a->attrs[i].n_graphs; k++)
            if (a->attrs[i].graphs[k] != b->attrs[i].graphs[k])
                return 0;
    }
    return 1;
}

static int grow_gtab(em *E)
{
    size_t ncap = E->gcap ? E->gcap * 2 : 256, i;
    ir_graph **nt = om_calloc(E->c->mem, ncap, sizeof(*nt));
    if (!nt)
        return 0;
    for (i = 0; i < E->gcap; i++) {
        size_t j;
        if (!E->gtab[i])
            continue;
        j = graph_hash(E->gtab[i]->nodes, E->gtab[i]->n_nodes) & (ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = E->gtab[i];
    }
    if (E->gtab)
        om_dealloc(E->c->mem, E->gtab, E->gcap * sizeof(*E->gtab));
    E->gtab = nt;
    E->gcap = ncap;
    return 1;
}

/* An ir_graph with these nodes: an existing equal one, or a new copy in the model arena. */
static ir_graph *intern_graph(em *E, const ir_node *nodes, size_t n)
{
    size_t j, i;
    ir_graph *g, **slot;
    if ((E->glen + 1) * 2 > E->gcap && !grow_gtab(E))
        return NULL;
    for (j = graph_hash(nodes, n) & (E->gcap - 1); E->gtab[j]; j = (j + 1) & (E->gcap - 1)) {
        g = E->gtab[j];
        if (g->n_nodes != n)
            continue;
        for (i = 0; i < n && node_eq(&g->nodes[i], &nodes[i]); i++)
            ;
        if (i == n)
            return g;
    }
    if (!(g = om_arena_alloc(&E->c->m->arena, sizeof(*g))) ||
        (n && !(g->nodes = om_arena_array(&E->c->m->arena, n, sizeof(ir_node)))) ||
        !(slot = om_vec_push(&E->graphs, E->c->mem)))
        return NULL;
    if (n)
        memcpy(g->nodes, nodes, n * sizeof(ir_node));
    g->n_nodes = n;
    g->name = "";
    *slot = g;
    E->gtab[j] = g;
    E->glen++;
    return g;
}

static ir_function *make_function(em *E, tsj_frame *f, ir_graph *body)
{
    size_t j;
    uint64_t h;
    const char *name =
        f->what ? ts_intern_model(E->c, f->what) : ts_intern_model(E->c, "submodule");
    fwrap *w, **slot;
    if (!name)
        return NULL;
    if ((E->flen + 1) * 2 > E->fcap) {
        size_t ncap = E->fcap ? E->fcap * 2 : 64, i;
        fwrap **nt = om_calloc(E->c->mem, ncap, sizeof(*nt));
        if (!nt)
            return NULL;
        for (i = 0; i < E->fcap; i++) {
            if (!E->ftab[i])
                continue;
            j = mix((uintptr_t)E->ftab[i]->fn.body.nodes, (uintptr_t)E->ftab[i]->fn.name) &
                (ncap - 1);
            while (nt[j])
                j = (j + 1) & (ncap - 1);
            nt[j] = E->ftab[i];
        }
        if (E->ftab)
            om_dealloc(E->c->mem, E->ftab, E->fcap * sizeof(*E->ftab));
        E->ftab = nt;
        E->fcap = ncap;
    }
    h = mix((uintptr_t)body->nodes, (uintptr_t)name);
    for (j = h & (E->fcap - 1); E->ftab[j]; j = (j + 1) & (E->fcap - 1))
        if (E->ftab[j]->fn.body.nodes == body->nodes &&
            E->ftab[j]->fn.body.n_nodes == body->n_nodes && E->ftab[j]->fn.name == name)
            return &E->ftab[j]->fn;
    if (!(w = om_arena_alloc(&E->c->tmp, sizeof(*w))) ||
        !(slot = om_vec_push(&E->funcs, E->c->mem)))
        return NULL;
    w->fn.domain = E->d_ts;
    w->fn.name = name;
    w->fn.body = *body;
    w->fn.body.name = name;
    w->index = E->funcs.len - 1;
    *slot = w;
    E->ftab[j] = w;
    E->flen++;
    return &w->fn;
}

static int emit_list(em *E, tsj_node **nodes, size_t n, tsj_frame *cf, ir_graph **out);

/*
 * A call torch would reject (a function calling itself) is left in the graph. It becomes a
 * call of a function whose body calls itself, so the walker reports the recursion (as for
 * ONNX local functions) and counts nothing for it.
 */
static ir_function *recursive_fn(em *E, const tsj_node *x)
{
    size_t i;
    rec_fn *r;
    fwrap *w;
    ir_node call;
    ir_graph *body, **gslot;
    fwrap **fslot;
    for (i = 0; i < E->recs.len; i++)
        if (OM_VEC_AT(&E->recs, rec_fn, i).callee == x->callee)
            return &OM_VEC_AT(&E->recs, rec_fn, i).w->fn;
    if (!(w = om_arena_alloc(&E->c->tmp, sizeof(*w))) ||
        !(body = om_arena_alloc(&E->c->m->arena, sizeof(*body))) ||
        !(body->nodes = om_arena_alloc(&E->c->m->arena, sizeof(ir_node))) ||
        !(gslot = om_vec_push(&E->graphs, E->c->mem)) ||
        !(fslot = om_vec_push(&E->funcs, E->c->mem)) || !(r = om_vec_push(&E->recs, E->c->mem)))
        return NULL;
    memset(&call, 0, sizeof(call));
    call.name = "";
    call.domain = E->d_prim;
    call.op = E->op_call;
    call.callee = &w->fn;
    body->nodes[0] = call;
    body->n_nodes = 1;
    body->name = "";
    *gslot = body;
    w->fn.domain = E->d_ts;
    if (!(w->fn.name = ts_intern_model(E->c, x->callee->qual)))
        return NULL;
    w->fn.body = *body;
    w->index = E->funcs.len - 1;
    *fslot = w;
    r->callee = x->callee;
    r->w = w;
    return &w->fn;
}

/* ---- call arguments ---- */

static uint64_t hash_f(uint64_t h, double f)
{
    uint64_t bits;
    memcpy(&bits, &f, sizeof(bits));
    return mix(h, bits);
}

static uint64_t args_hash(const ir_attr *a, uint32_t n)
{
    uint64_t h = mix(OM_HASH_SEED, n);
    uint32_t i;
    size_t k;
    for (i = 0; i < n; i++) {
        h = mix(h, (uintptr_t)a[i].name);
        h = mix(h, (uint64_t)a[i].type);
        h = mix(h, ((uint64_t)a[i].arg_kind << 32) ^ a[i].arg_input ^ ((uint64_t)a[i].arg_inputs << 40));
        h = mix(h, (uint64_t)a[i].i);
        h = hash_f(h, a[i].f);
        h = mix(om_hash_bytes(h, a[i].s.data ? a[i].s.data : "", a[i].s.size), a[i].s.size);
        h = mix(h, a[i].n_ints);
        for (k = 0; k < a[i].n_ints; k++)
            h = mix(h, (uint64_t)a[i].ints[k]);
        h = mix(h, a[i].n_floats);
        for (k = 0; k < a[i].n_floats; k++)
            h = hash_f(h, a[i].floats[k]);
    }
    return h;
}

/* Equal argument lists; floats compare by bits, so -0.0 is not 0.0 and NaN equals itself. */
static int args_eq(const ir_attr *a, const ir_attr *b, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].i != b[i].i ||
            a[i].arg_kind != b[i].arg_kind || a[i].arg_type != b[i].arg_type ||
            a[i].arg_input != b[i].arg_input ||
            a[i].arg_inputs != b[i].arg_inputs ||
            memcmp(&a[i].f, &b[i].f, sizeof(double)) != 0 || a[i].s.size != b[i].s.size ||
            (a[i].s.size && memcmp(a[i].s.data, b[i].s.data, a[i].s.size) != 0) ||
            a[i].n_ints != b[i].n_ints || a[i].n_floats != b[i].n_floats ||
            (a[i].n_ints && memcmp(a[i].ints, b[i].ints, a[i].n_ints * sizeof(int64_t))) ||
            (a[i].n_floats && memcmp(a[i].floats, b[i].floats, a[i].n_floats * sizeof(double))))
            return 0;
    }
    return 1;
}

/* A copy of the scratch list in the model arena (strings and list values included). */
static ir_attr *args_commit(ts_ctx *c, const ir_attr *a, uint32_t n)
{
    om_arena *ar = &c->m->arena;
    ir_attr *d = om_arena_array(ar, n, sizeof(*d));
    uint32_t i;
    if (!d)
        return NULL;
    for (i = 0; i < n; i++) {
        d[i] = a[i];
        if (a[i].type == IR_ATTR_STRING &&
            !(d[i].s.data = om_arena_strndup(ar, a[i].s.data, a[i].s.size)))
            return NULL;
        if (a[i].n_ints) {
            if (!(d[i].ints = om_arena_array(ar, a[i].n_ints, sizeof(int64_t))))
                return NULL;
            memcpy(d[i].ints, a[i].ints, a[i].n_ints * sizeof(int64_t));
        }
        if (a[i].n_floats) {
            if (!(d[i].floats = om_arena_array(ar, a[i].n_floats, sizeof(double))))
                return NULL;
            memcpy(d[i].floats, a[i].floats, a[i].n_floats * sizeof(double));
        }
    }
    return d;
}

ir_attr *tsir_args_intern(tsir_argtab *t, const ir_attr *a, uint32_t n)
{
    uint64_t h = args_hash(a, n);
    size_t j;
    struct tsir_arglist *e;
    if (!n)
        return NULL;
    if ((t->len + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 256, i;
        struct tsir_arglist *nt = om_calloc(t->c->mem, ncap, sizeof(*nt));
        if (!nt)
            return NULL;
        for (i = 0; i < t->cap; i++) {
            if (!t->tab[i].a)
                continue;
            for (j = t->tab[i].h & (ncap - 1); nt[j].a; j = (j + 1) & (ncap - 1))
                ;
            nt[j] = t->tab[i];
        }
        if (t->tab)
            om_dealloc(t->c->mem, t->tab, t->cap * sizeof(*t->tab));
        t->tab = nt;
        t->cap = ncap;
    }
    for (j = h & (t->cap - 1); t->tab[j].a; j = (j + 1) & (t->cap - 1)) {
        e = &t->tab[j];
        if (e->h == h && e->n == n && args_eq(e->a, a, n))
            return e->a;
    }
    e = &t->tab[j];
    if (!(e->a = args_commit(t->c, a, n)))
        return NULL;
    e->n = n;
    e->h = h;
    t->len++;
    return e->a;
}

void tsir_args_free(tsir_argtab *t)
{
    if (t->tab)
        om_dealloc(t->c->mem, t->tab, t->cap * sizeof(*t->tab));
    t->tab = NULL;
    t->cap = t->len = 0;
}

/* Scratch room for n arguments and nv list values. */
static int args_room(em *E, size_t n, size_t nv)
{
    om_mem *mem = E->c->mem;
    if (n > E->abuf_cap) {
        size_t cap = n < 16 ? 16 : n;
        ir_attr *b = om_alloc(mem, cap * sizeof(*b));
        if (!b)
            return 0;
        if (E->abuf)
            om_dealloc(mem, E->abuf, E->abuf_cap * sizeof(*E->abuf));
        E->abuf = b;
        E->abuf_cap = cap;
    }
    if (nv > E->vbuf_cap) {
        size_t cap = nv < 64 ? 64 : nv;
        int64_t *ib = om_alloc(mem, cap * sizeof(*ib));
        double *fb = ib ? om_alloc(mem, cap * sizeof(*fb)) : NULL;
        if (!fb) {
            if (ib)
                om_dealloc(mem, ib, cap * sizeof(*ib));
            return 0;
        }
        if (E->ibuf) {
            om_dealloc(mem, E->ibuf, E->vbuf_cap * sizeof(*E->ibuf));
            om_dealloc(mem, E->fbuf, E->vbuf_cap * sizeof(*E->fbuf));
        }
        E->ibuf = ib;
        E->fbuf = fb;
        E->vbuf_cap = cap;
    }
    return 1;
}

/* The prim::ListConstruct a list argument is, when nothing writes to the list (the tsp_alias
 * facts of the root graph say so: an append, a store into a container or a call keeps
 * it), so its elements are what the call reads. NULL for anything else. */
static tsj_node *list_node(em *E, tsj_value *v)
{
    if (!v || !v->def || v->def->kind != TSJ_KIND_LISTC || tsp_has_writers(&E->al, v))
        return NULL;
    return v->def;
}

/* Element kinds: 1 all ints (bools too), 2 all floats, 0 otherwise. */
static int elem_kind(const tsj_const *k)
{
    return !k                                                  ? 0
           : (k->k == TSJ_CONST_INT || k->k == TSJ_CONST_BOOL) ? 1
           : k->k == TSJ_CONST_FLOAT                           ? 2
                                                               : 0;
}

/* Fills a (zeroed) from the constant list elements (l's inputs, or the tuple t's). */
static void list_arg(em *E, tsj_value *v, tsj_node *l, const tsj_const *t, ir_attr *a, size_t *nv)
{
    uint32_t n = l ? l->n_in : t->n, i;
    int kind = -1;
    for (i = 0; i < n; i++) {
        int k = elem_kind(l ? tsj_const_of(l->in[i]) : t->el[i]);
        if (!k || (kind >= 0 && k != kind))
            return;
        kind = k;
    }
    if (kind < 0) {
        /* empty: a list says its element type (`[]` passed to an int[] parameter has none
         * that the code states: an empty int list); an empty tuple is neither */
        const tsl_type *ty = l ? tsj_resolve(v)->type : NULL;
        const tsl_type *et = ty && ty->k == TY_LIST && ty->n ? ty->el[0] : NULL;
        if (!et)
            return;
        kind = et->k == TY_INT || et->k == TY_BOOL || et->k == TY_UNKNOWN ? 1
             : et->k == TY_FLOAT ? 2 : 0;
        if (!kind)
            return;
    }
    if (kind == 1) {
        a->type = IR_ATTR_INTS;
        a->ints = n ? E->ibuf + *nv : NULL; /* an empty list may have no buffer at all */
        a->n_ints = n;
        for (i = 0; i < n; i++)
            a->ints[i] = (l ? tsj_const_of(l->in[i]) : t->el[i])->i;
    } else {
        a->type = IR_ATTR_FLOATS;
        a->floats = n ? E->fbuf + *nv : NULL;
        a->n_floats = n;
        for (i = 0; i < n; i++)
            a->floats[i] = (l ? tsj_const_of(l->in[i]) : t->el[i])->f;
    }
    *nv += n;
}

/* in->args from x's inputs: constant scalars and lists keep their values. */
/* The kind of a value computed at run time (IR_AT_*), from its compiled type. */
static int value_type(const tsl_type *t)
{
    if (t && t->k == TY_OPTIONAL && t->n == 1)
        t = t->el[0];
    if (!t)
        return IR_AT_UNKNOWN;
    switch (t->k) {
    case TY_TENSOR:
        return IR_AT_TENSOR;
    case TY_INT:
    case TY_FLOAT:
    case TY_BOOL:
        return IR_AT_NUMBER;
    case TY_LIST:
    case TY_TUPLE:
        return IR_AT_LIST;
    case TY_STR:
        return IR_AT_STRING;
    case TY_UNKNOWN:
    case TY_ANY:
        return IR_AT_UNKNOWN;
    default:
        return IR_AT_OTHER;
    }
}

static int fill_args(em *E, tsj_node *x, ir_node *in)
{
    uint32_t n = x->n_in, n_kw = x->n_kw < n ? x->n_kw : n, i;
    size_t nv = 0;
    ir_attr *a;
    if (!n)
        return OPMAP_OK;
    for (i = 0; i < n; i++) {
        tsj_value *v = tsj_input(x, i);
        const tsj_const *k = tsj_const_of(v);
        tsj_node *l;
        if (k && k->k == TSJ_CONST_TUPLE)
            nv += k->n;
        else if (!k && (l = list_node(E, v)))
            nv += l->n_in;
    }
    if (!args_room(E, n, nv))
        return ts_oom(E->c);
    a = E->abuf;
    memset(a, 0, n * sizeof(*a));
    nv = 0;
    for (i = 0; i < n; i++) {
        tsj_value *v = tsj_input(x, i);
        const tsj_const *k = tsj_const_of(v);
        tsj_node *l;
        /* kw[j] names input n - x->n_kw + j */
        if (i >= n - n_kw && !(a[i].name = ts_intern_model(E->c, x->kw[x->n_kw - (n - i)])))
            return ts_oom(E->c);
        if (k) {
            switch (k->k) {
            case TSJ_CONST_NONE:
                a[i].arg_kind = IR_ARG_NONE;
                break;
            case TSJ_CONST_BOOL:
            case TSJ_CONST_INT:
                a[i].type = IR_ATTR_INT;
                a[i].i = k->i;
                a[i].arg_kind = k->k == TSJ_CONST_BOOL ? IR_ARG_BOOL : IR_ARG_UNKNOWN;
                break;
            case TSJ_CONST_FLOAT:
                a[i].type = IR_ATTR_FLOAT;
                a[i].f = k->f;
                break;
            case TSJ_CONST_STR:
                a[i].type = IR_ATTR_STRING;
                a[i].s.data = k->s ? k->s : "";
                a[i].s.size = k->s ? k->slen : 0;
                break;
            case TSJ_CONST_TUPLE:
                list_arg(E, v, NULL, k, &a[i], &nv);
                break;
            default:
                break;
            }
        } else if ((l = list_node(E, v))) {
            list_arg(E, v, l, NULL, &a[i], &nv);
        }
        if (a[i].type == IR_ATTR_UNDEFINED && a[i].arg_kind != IR_ARG_NONE && !a[i].arg_type)
            a[i].arg_type = (uint8_t)(!k ? value_type(v->type)
                                      : k->k == TSJ_CONST_TENSOR ? IR_AT_TENSOR : IR_AT_UNKNOWN);
    }
    if (!(in->args = tsir_args_intern(&E->args, a, n)))
        return ts_oom(E->c);
    in->n_args = n;
    return OPMAP_OK;
}

/* The flow name of a value ("1", "2", ... in order of first sight), or NULL. */
static const char *flow_name(em *E, const tsj_value *v)
{
    uint64_t h;
    size_t j;
    char buf[24];
    if ((E->vlen + 1) * 2 > E->vcap) {
        size_t ncap = E->vcap ? E->vcap * 2 : 256, i;
        struct vslot *nt = om_calloc(E->c->mem, ncap, sizeof(*nt));
        if (!nt)
            return NULL;
        for (i = 0; i < E->vcap; i++)
            if (E->vtab[i].v) {
                h = mix(0, (uintptr_t)E->vtab[i].v);
                for (j = h & (ncap - 1); nt[j].v; j = (j + 1) & (ncap - 1))
                    ;
                nt[j] = E->vtab[i];
            }
        if (E->vtab)
            om_dealloc(E->c->mem, E->vtab, E->vcap * sizeof(*E->vtab));
        E->vtab = nt;
        E->vcap = ncap;
    }
    h = mix(0, (uintptr_t)v);
    for (j = h & (E->vcap - 1); E->vtab[j].v; j = (j + 1) & (E->vcap - 1))
        if (E->vtab[j].v == v)
            return E->vtab[j].name;
    snprintf(buf, sizeof(buf), "%zu", E->vlen + 1);
    if (!(E->vtab[j].name = om_arena_strdup(&E->c->m->arena, buf)))
        return NULL;
    E->vtab[j].v = v;
    E->vlen++;
    return E->vtab[j].name;
}

/* in->flow_in / flow_out: the values x reads and writes. */
static int fill_flow(em *E, tsj_node *x, ir_node *in)
{
    uint32_t i;
    if ((x->n_in && !(in->flow_in = om_arena_array(&E->c->m->arena, x->n_in, sizeof(char *)))) ||
        (x->n_out && !(in->flow_out = om_arena_array(&E->c->m->arena, x->n_out, sizeof(char *)))))
        return ts_oom(E->c);
    for (i = 0; i < x->n_in; i++)
        if (!(in->flow_in[i] = flow_name(E, tsj_input(x, i))))
            return ts_oom(E->c);
    for (i = 0; i < x->n_out; i++)
        if (!(in->flow_out[i] = flow_name(E, &x->out[i])))
            return ts_oom(E->c);
    in->n_flow_in = x->n_in;
    in->n_flow_out = x->n_out;
    return OPMAP_OK;
}

/* A submodule call's flow: it writes what the nodes gathered behind it write, so a pattern
 * in the caller sees the call as the producer of the submodule's result. */
static int call_flow(em *E, const pend *p, ir_node *call)
{
    size_t i, n = 0;
    uint32_t k;
    for (i = 0; i < p->nodes.len; i++)
        n += OM_VEC_AT(&p->nodes, tsj_node *, i)->n_out;
    if (!n || n > UINT32_MAX)
        return OPMAP_OK;
    if (!(call->flow_out = om_arena_array(&E->c->m->arena, n, sizeof(char *))))
        return ts_oom(E->c);
    for (i = 0, n = 0; i < p->nodes.len; i++) {
        tsj_node *x = OM_VEC_AT(&p->nodes, tsj_node *, i);
        for (k = 0; k < x->n_out; k++)
            if (!(call->flow_out[n++] = flow_name(E, &x->out[k])))
                return ts_oom(E->c);
    }
    call->n_flow_out = (uint32_t)n;
    return OPMAP_OK;
}

/*
 * The nodes of block b, in order, into v. A call through an interface (TSJ_KIND_DISPATCH) is
 * its blocks' nodes, one implementation after the other: what torch runs is one of them, so
 * every one is counted; the ModuleContainerIndex feeding it is plumbing torch resolves and
 * no operator. Dispatches nest at most as deep as calls do (max_depth).
 */
static int block_nodes_at(em *E, tsj_block *b, om_vec *v, uint32_t depth)
{
    tsj_node *x;
    uint32_t i;
    int rc;
    if (depth > 2 * E->c->lim->max_depth + 2)
        return ts_fail(E->c, OPMAP_ELIMIT, NULL, 0, 0,
                       "TorchScript blocks and calls nested deeper than max_depth (%" PRIu32 ")",
                       E->c->lim->max_depth);
    for (x = b->head; x; x = x->next) {
        tsj_node **slot;
        if (x->kind == TSJ_KIND_MCINDEX)
            continue;
        if (x->kind == TSJ_KIND_DISPATCH) {
            for (i = 0; i < x->n_blk; i++)
                if ((rc = block_nodes_at(E, x->blk[i], v, depth + 1)))
                    return rc;
            continue;
        }
        if (!(slot = om_vec_push(v, E->c->mem)))
            return ts_oom(E->c);
        *slot = x;
    }
    return OPMAP_OK;
}

static int block_nodes(em *E, tsj_block *b, om_vec *v)
{
    return block_nodes_at(E, b, v, 0);
}

/* A type holding no tensor: scalars, strings, None, devices, and containers of them only
 * (an unknown or class type may hold one). */
static int type_scalar(const tsl_type *t, int depth)
{
    uint32_t i;
    if (!t || depth > 8)
        return 0;
    switch (t->k) {
    case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STR: case TY_NUMBER: case TY_NONE:
    case TY_DEVICE:
        return 1;
    case TY_OPTIONAL: case TY_LIST: case TY_TUPLE: case TY_DICT:
        for (i = 0; i < t->n; i++)
            if (!type_scalar(t->el[i], depth + 1))
                return 0;
        return t->n > 0;
    default:
        return 0;
    }
}

static int outputs_scalar(const tsj_node *x)
{
    uint32_t i;
    for (i = 0; i < x->n_out; i++)
        if (!type_scalar(x->out[i].type, 0))
            return 0;
    return x->n_out > 0;
}

static int fill_node(em *E, tsj_node *x, tsj_frame *cf, ir_node *in)
{
    uint32_t i;
    int rc;
    memset(in, 0, sizeof(*in));
    if (!(in->domain = ts_intern_model(E->c, x->ns)) || !(in->op = ts_intern_model(E->c, x->op)))
        return ts_oom(E->c);
    in->name = "";
    in->src_file = x->file;
    in->src_line = x->line;
    in->scalar_out = (uint8_t)outputs_scalar(x);
    if ((rc = fill_args(E, x, in)) || (rc = fill_flow(E, x, in)))
        return rc;
    if (x->n_blk) {
        ir_attr *a = om_arena_alloc(&E->c->m->arena, sizeof(*a));
        if (!a || !(a->graphs = om_arena_array(&E->c->m->arena, x->n_blk, sizeof(ir_graph *))))
            return ts_oom(E->c);
        a->name = E->a_block;
        a->type = IR_ATTR_GRAPHS;
        a->n_graphs = x->n_blk;
        for (i = 0; i < x->n_blk; i++) {
            om_vec v;
            om_vec_init(&v, sizeof(tsj_node *));
            rc = block_nodes(E, x->blk[i], &v);
            if (!rc)
                rc = emit_list(E, v.data, v.len, cf, &a->graphs[i]);
            om_vec_free(&v, E->c->mem);
            if (rc)
                return rc;
        }
        in->attrs = a;
        in->n_attrs = 1;
    }
    return OPMAP_OK;
}

static int emit_list(em *E, tsj_node **nodes, size_t n, tsj_frame *cf, ir_graph **out)
{
    ts_ctx *c = E->c;
    om_vec irn, pends;
    uint32_t stamp = ++c->stamp;
    size_t i;
    int rc = OPMAP_OK;
    if (++E->depth > 2 * c->lim->max_depth + 2) {
        E->depth--;
        return ts_fail(c, OPMAP_ELIMIT, NULL, 0, 0,
                       "TorchScript blocks and calls nested deeper than max_depth (%" PRIu32 ")",
                       c->lim->max_depth);
    }
    om_vec_init(&irn, sizeof(ir_node));
    om_vec_init(&pends, sizeof(pend *));
    for (i = 0; i < n && rc == OPMAP_OK; i++) {
        tsj_node *x = nodes[i];
        tsj_frame *f = x->frame, *k = f;
        if (x->kind == TSJ_KIND_CONST)
            continue;
        while (k && k->parent != cf)
            k = k->parent;
        if (f == cf || !k) {
            ir_node tmp, *slot;
            if ((rc = fill_node(E, x, cf, &tmp)))
                break;
            if ((x->kind == TSJ_KIND_CALLM || x->kind == TSJ_KIND_CALLF) && x->callee &&
                !(tmp.callee = recursive_fn(E, x))) {
                rc = ts_oom(c);
                break;
            }
            if (!(slot = om_vec_push(&irn, c->mem))) {
                rc = ts_oom(c);
                break;
            }
            *slot = tmp;
        } else {
            pend *p = k->scratch;
            tsj_node **slot;
            if (!p || p->stamp != stamp) {
                ir_node *call;
                pend **ps;
                if (!(p = om_arena_alloc(&c->tmp, sizeof(*p))) ||
                    !(call = om_vec_push(&irn, c->mem)) || !(ps = om_vec_push(&pends, c->mem))) {
                    rc = ts_oom(c);
                    break;
                }
                p->f = k;
                p->stamp = stamp;
                p->call_at = irn.len - 1;
                om_vec_init(&p->nodes, sizeof(tsj_node *));
                call->name = "";
                call->domain = E->d_prim;
                call->op = E->op_call;
                call->call_label = k->label ? ts_intern_model(c, k->label) : NULL;
                k->scratch = p;
                *ps = p;
            }
            if (!(slot = om_vec_push(&p->nodes, c->mem))) {
                rc = ts_oom(c);
                break;
            }
            *slot = x;
        }
    }
    for (i = 0; i < pends.len; i++) {
        pend *p = OM_VEC_AT(&pends, pend *, i);
        ir_graph *body;
        if (rc == OPMAP_OK)
            rc = call_flow(E, p, &OM_VEC_AT(&irn, ir_node, p->call_at));
        if (rc == OPMAP_OK) {
            rc = emit_list(E, p->nodes.data, p->nodes.len, p->f, &body);
            if (rc == OPMAP_OK) {
                ir_function *fn = make_function(E, p->f, body);
                if (!fn)
                    rc = ts_oom(c);
                else
                    OM_VEC_AT(&irn, ir_node, p->call_at).callee = fn;
            }
        }
        om_vec_free(&p->nodes, c->mem);
    }
    if (rc == OPMAP_OK && !(*out = intern_graph(E, irn.data, irn.len)))
        rc = ts_oom(c);
    om_vec_free(&irn, c->mem);
    om_vec_free(&pends, c->mem);
    E->depth--;
    return rc;
}

int tsir_lower(ts_ctx *c, tsj_graph *root)
{
    em E;
    om_vec top;
    ir_graph *main;
    ir_model *m = c->m;
    size_t i, k;
    int rc;
    memset(&E, 0, sizeof(E));
    E.c = c;
    om_vec_init(&E.graphs, sizeof(ir_graph *));
    om_vec_init(&E.funcs, sizeof(fwrap *));
    om_vec_init(&E.recs, sizeof(rec_fn));
    om_vec_init(&top, sizeof(tsj_node *));
    E.args.c = c;
    E.al.c = c;
    E.al.g = root;
    if (!(E.d_prim = ts_intern_model(c, "prim")) || !(E.d_ts = ts_intern_model(c, "torchscript")) ||
        !(E.op_call = ts_intern_model(c, "CallMethod")) ||
        !(E.a_block = ts_intern_model(c, "block")))
        rc = ts_oom(c);
    else if ((rc = tsp_alias_run(&E.al)))
        ; /* reported */
    else if (!(rc = block_nodes(&E, root->top, &top)))
        rc = emit_list(&E, top.data, top.len, NULL, &main);
    if (rc == OPMAP_OK && E.funcs.len &&
        !(m->functions = om_arena_array(&m->arena, E.funcs.len, sizeof(ir_function))))
        rc = ts_oom(c);
    if (rc == OPMAP_OK) {
        for (i = 0; i < E.funcs.len; i++)
            m->functions[i] = OM_VEC_AT(&E.funcs, fwrap *, i)->fn;
        m->n_functions = E.funcs.len;
        /* callees point at the model's function array from now on */
        for (i = 0; i < E.graphs.len; i++) {
            ir_graph *g = OM_VEC_AT(&E.graphs, ir_graph *, i);
            for (k = 0; k < g->n_nodes; k++)
                if (g->nodes[k].callee)
                    g->nodes[k].callee = &m->functions[((fwrap *)g->nodes[k].callee)->index];
            m->stats.nodes += g->n_nodes;
        }
        m->stats.graphs = E.graphs.len;
        m->stats.functions = m->n_functions;
        m->main = main;
        main->name = "main";
    }
    om_vec_free(&top, c->mem);
    om_vec_free(&E.graphs, c->mem);
    om_vec_free(&E.funcs, c->mem);
    om_vec_free(&E.recs, c->mem);
    if (E.gtab)
        om_dealloc(c->mem, E.gtab, E.gcap * sizeof(*E.gtab));
    if (E.ftab)
        om_dealloc(c->mem, E.ftab, E.fcap * sizeof(*E.ftab));
    tsir_args_free(&E.args);
    if (E.vtab)
        om_dealloc(c->mem, E.vtab, E.vcap * sizeof(*E.vtab));
    if (E.abuf)
        om_dealloc(c->mem, E.abuf, E.abuf_cap * sizeof(*E.abuf));
    if (E.ibuf) {
        om_dealloc(c->mem, E.ibuf, E.vbuf_cap * sizeof(*E.ibuf));
        om_dealloc(c->mem, E.fbuf, E.vbuf_cap * sizeof(*E.fbuf));
    }
    tsp_alias_free(&E.al);
    return rc;
}
