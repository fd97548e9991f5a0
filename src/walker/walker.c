/*
 * walker/walker.c - iterative walk over graphs, subgraphs and function calls (see walker.h).
 *
 * One path buffer serves every frame: a frame's path prefix is buf[0, path_len), and a
 * child frame only appends. A frame finishes the subgraphs of its current node before
 * moving to the next node, so the buffer is always the current frame's prefix.
 */
#include "walker.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "precount.h"

typedef struct frame {
    const ir_graph *g;
    size_t next;               /* next node to visit */
    const ir_node *cur;        /* node whose subgraphs are being walked, or NULL */
    uint32_t sub_attr;         /* cursor over cur's subgraphs */
    size_t sub_graph;
    size_t path_len;           /* prefix length, ends with '/' */
    size_t node_path_len;      /* prefix + cur's segment (no '/') */
    const ir_opset *opsets;
    size_t n_opsets;
    const ir_function *fn;     /* the function this frame is a body of */
    const ir_node *call;       /* in a function body (and its subgraphs): the calling node,
                                  whose attributes ref_attr_name refers to; else NULL */
    size_t caller;             /* with call: the frame holding that node */
    uint32_t depth;
    uint32_t seq;              /* node sequence (see om_visit) */
    size_t seq_len;
} frame;

typedef struct walk {
    const ir_model *m;
    const opmap_limits *lim;
    om_mem *mem;
    om_vec frames;
    char *buf;
    size_t cap, len;
    uint64_t visited;
    uint64_t expanded;         /* frames pushed (subgraphs, calls) + recursive calls noted */
    uint64_t path_bytes;       /* bytes appended to node paths, in total */
    int over_paths;            /* path_bytes would pass max_heap_bytes */
    uint32_t next_seq;
    opmap_error *err;
    ir_node bound;             /* the node being visited, its attributes bound (om_visit) */
    ir_attr *bound_attrs;
    size_t bound_cap;
} walk;

static int too_many_expansions(walk *w)
{
    return om_walk_too_many_expansions(w->m, w->lim, w->err);
}

static int too_many_instances(walk *w)
{
    return om_walk_too_many_instances(w->m, w->lim, w->err);
}

/* 1 on success; 0 when memory or the path budget ran out (oom() tells which). */
static int put(walk *w, const char *s, size_t n)
{
    /*
     * Every expansion appends its segment to the path, and names may be up to
     * max_string_bytes long: without a budget, many expansions of calls through nodes with
     * long names would copy terabytes. Paths that are kept count against the result's heap;
     * the bytes appended in total are held to the same limit.
     */
    if (n > w->lim->max_heap_bytes - w->path_bytes) {
        w->over_paths = 1;
        return 0;
    }
    w->path_bytes += n;
    if (w->len + n + 1 > w->cap) {
        size_t ncap = w->cap ? w->cap : 256;
        char *nb;
        while (ncap < w->len + n + 1)
            ncap *= 2;
        nb = om_realloc(w->mem, w->buf, w->cap, ncap);
        if (!nb)
            return 0;
        w->buf = nb;
        w->cap = ncap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
    return 1;
}

static int put_s(walk *w, const char *s)
{
    return put(w, s, strlen(s));
}

/* A node's path segment: its name (leading '/' dropped), or op_index when unnamed. */
static int put_node(walk *w, const ir_node *n, size_t index)
{
    const char *name = n->call_label ? n->call_label : n->name;
    while (*name == '/')
        name++;
    if (*name)
        return put_s(w, name);
    {
        char num[32];
        snprintf(num, sizeof(num), "_%zu", index);
        return put_s(w, n->op) && put_s(w, num);
    }
}

/* A new sequence starts with each graph instance; function bodies pass the caller's on. */
static frame *push(walk *w, const ir_graph *g, const ir_opset *opsets, size_t n_opsets,
                   const ir_function *fn, uint32_t depth, const frame *caller)
{
    uint32_t seq = caller ? caller->seq : w->next_seq++;
    size_t seq_len = caller ? caller->seq_len : (w->len ? w->len - 1 : 0);
    frame *f = om_vec_push(&w->frames, w->mem);
    if (!f)
        return NULL;
    f->seq = seq;
    f->seq_len = seq_len;
    f->g = g;
    f->opsets = opsets;
    f->n_opsets = n_opsets;
    f->fn = fn;
    f->depth = depth;
    f->path_len = w->len;
    f->call = NULL;
    f->caller = 0;
    return f;
}

/* The default (FunctionProto.attribute_proto) of attribute `name` of function fn, or NULL. */
static const ir_attr *function_default(const ir_function *fn, const char *name)
{
    size_t i;
    for (i = 0; fn && i < fn->n_defaults; i++)
        if (strcmp(fn->defaults[i].name, name) == 0)
            return &fn->defaults[i];
    return NULL;
}

/*
 * The attribute a function body's attribute stands for, bound as onnx's inliner
 * (AttributeBinder) and onnxruntime bind it: one with a ref_attr_name is the calling
 * node's attribute of that name, whatever value of its own it holds (a graph included),
 * which may itself refer further up; when the call does not pass it, the function's
 * default of that name (IR 9); with neither, the attribute is dropped (NULL). *owner is
 * the frame whose scope holds the graphs found (their opsets, function and caller): the
 * caller's for its attribute, the body's for a default.
 */
static const ir_attr *resolve_ref(const walk *w, const frame *f, const ir_attr *a,
                                  const frame **owner)
{
    uint32_t hops = 0;
    *owner = f;
    while (a && a->ref_attr_name && f->call && hops++ <= w->lim->max_depth) {
        const ir_attr *bound = ir_node_attr(f->call, a->ref_attr_name);
        if (!bound)
            return function_default(f->fn, a->ref_attr_name);
        a = bound;
        f = &OM_VEC_AT(&w->frames, frame, f->caller);
        *owner = f;
    }
    return a;
}

/*
 * v->bound for node n of frame f: n itself, or (in a function body, when an attribute
 * refers to the caller) a copy whose attributes are bound as the walk binds subgraphs.
 * 0, or -1 when out of memory.
 */
static int bind_attrs(walk *w, const frame *f, const ir_node *n, const ir_node **out)
{
    uint32_t i, k = 0;
    *out = n;
    if (!f->call)
        return 0;
    for (i = 0; i < n->n_attrs && !n->attrs[i].ref_attr_name; i++)
        ;
    if (i == n->n_attrs)
        return 0;
    if (n->n_attrs > w->bound_cap) {
        ir_attr *na = om_realloc(w->mem, w->bound_attrs, w->bound_cap * sizeof(ir_attr),
                                 n->n_attrs * sizeof(ir_attr));
        if (!na)
            return -1;
        w->bound_attrs = na;
        w->bound_cap = n->n_attrs;
    }
    for (i = 0; i < n->n_attrs; i++) {
        const frame *owner;
        const ir_attr *a = resolve_ref(w, f, &n->attrs[i], &owner);
        if (!a)
            continue; /* nothing bound: the inliner drops it */
        w->bound_attrs[k] = *a;
        w->bound_attrs[k++].name = n->attrs[i].name;
    }
    w->bound = *n;
    w->bound.attrs = w->bound_attrs;
    w->bound.n_attrs = k;
    *out = &w->bound;
    return 0;
}

static int in_call_chain(const walk *w, const ir_function *fn)
{
    size_t i;
    for (i = 0; i < w->frames.len; i++)
        if (OM_VEC_AT(&w->frames, frame, i).fn == fn)
            return 1;
    return 0;
}

static int oom(walk *w)
{
    if (w->over_paths)
        return om_fail(w->err, OPMAP_ELIMIT, w->m->name,
                       "node paths built by the walk total more than max_heap_bytes (%" PRIu64 ")",
                       w->lim->max_heap_bytes);
    return om_fail_mem(w->err, w->mem, w->m->name);
}

static int too_deep(walk *w)
{
    return om_fail(w->err, OPMAP_ELIMIT, w->m->name,
                   "nesting of subgraphs and function calls deeper than max_depth (%" PRIu32
                   ") at %s", w->lim->max_depth, w->buf);
}

/* Moves to the next subgraph of f->cur; 1 = pushed a frame, 0 = none left, <0 error. */
static int next_subgraph(walk *w, frame *f)
{
    const ir_node *n = f->cur;
    while (f->sub_attr < n->n_attrs) {
        const ir_attr *named = &n->attrs[f->sub_attr];
        const frame *owner;
        const ir_attr *a = resolve_ref(w, f, named, &owner);
        if (a && f->sub_graph < a->n_graphs) {
            size_t gi = f->sub_graph++;
            char idx[32];
            uint32_t depth = f->depth + 1;
            const ir_opset *opsets = owner->opsets;
            size_t n_opsets = owner->n_opsets;
            const ir_function *fn = owner->fn;
            const ir_node *call = owner->call;
            size_t caller = owner->caller;
            frame *sub;
            w->len = f->node_path_len;
            if (!put_s(w, "/") || !put_s(w, named->name[0] ? named->name : "graph"))
                return oom(w);
            if (a->n_graphs > 1 || a->type == IR_ATTR_GRAPHS) {
                snprintf(idx, sizeof(idx), "[%zu]", gi);
                if (!put_s(w, idx))
                    return oom(w);
            }
            if (!put_s(w, "/"))
                return oom(w);
            if (depth > w->lim->max_depth)
                return too_deep(w);
            if (++w->expanded > w->lim->max_expansions)
                return too_many_expansions(w);
            /* push may move the frame array: f and owner are not used after this */
            if (!(sub = push(w, a->graphs[gi], opsets, n_opsets, fn, depth, NULL)))
                return oom(w);
            sub->call = call;
            sub->caller = caller;
            return 1;
        }
        f->sub_attr++;
        f->sub_graph = 0;
    }
    f->cur = NULL;
    return 0;
}

static int run(walk *w, om_visit_fn visit, om_walk_note_fn note, void *payload)
{
    while (w->frames.len) {
        frame *f = &OM_VEC_AT(&w->frames, frame, w->frames.len - 1);
        const ir_node *n;
        size_t index;
        int rc;

        if (f->cur) {
            rc = next_subgraph(w, f);
            if (rc < 0)
                return rc;
            if (rc > 0)
                continue;
        }
        if (f->next >= f->g->n_nodes) {
            w->frames.len--;
            w->len = f->path_len;
            if (w->buf)
                w->buf[w->len] = '\0';
            continue;
        }
        index = f->next++;
        n = &f->g->nodes[index];
        w->len = f->path_len;
        if (!put_node(w, n, index))
            return oom(w);

        if (n->callee) {
            const ir_function *fn = n->callee;
            uint32_t depth = f->depth + 1;
            if (++w->expanded > w->lim->max_expansions)
                return too_many_expansions(w);
            if (in_call_chain(w, fn)) {
                if (note && (rc = note(payload, "recursive call to a local function: not "
                                                "expanded", w->buf)))
                    return rc;
                continue;
            }
            if (depth > w->lim->max_depth)
                return too_deep(w);
            if (!put_s(w, "/"))
                return oom(w);
            {
                frame caller = *f; /* push may move f */
                size_t at = w->frames.len - 1;
                frame *body = push(w, &fn->body, fn->n_opsets ? fn->opsets : w->m->opsets,
                                   fn->n_opsets ? fn->n_opsets : w->m->n_opsets, fn, depth,
                                   &caller);
                if (!body)
                    return oom(w);
                body->call = n;       /* its attributes feed the body's ref_attr_name */
                body->caller = at;
            }
            continue;
        }

        if (++w->visited > w->lim->max_nodes)
            return too_many_instances(w);
        {
            om_visit v;
            v.node = n;
            if (bind_attrs(w, f, n, &v.bound) < 0)
                return oom(w);
            v.graph = f->g;
            v.path = w->buf;
            v.depth = f->depth;
            v.opsets = f->opsets;
            v.n_opsets = f->n_opsets;
            v.seq = f->seq;
            v.seq_path_len = f->seq_len;
            v.opset = ir_opset_version(f->opsets, f->n_opsets, n->domain);
            if (!v.opset && f->fn)
                v.opset = ir_opset_version(w->m->opsets, w->m->n_opsets, n->domain);
            if ((rc = visit(payload, &v)))
                return rc;
        }
        f->cur = n;
        f->sub_attr = 0;
        f->sub_graph = 0;
        f->node_path_len = w->len;
    }
    return OPMAP_OK;
}

static int walk_root(walk *w, const ir_graph *g, const char *label, om_visit_fn visit,
                     om_walk_note_fn note, void *payload)
{
    w->len = 0;
    if (!put_s(w, label) || !put_s(w, "/"))
        return oom(w);
    if (!push(w, g, w->m->opsets, w->m->n_opsets, NULL, 0, NULL))
        return oom(w);
    return run(w, visit, note, payload);
}

int om_walk(const ir_model *m, const opmap_limits *lim, om_mem *mem, om_visit_fn visit,
            om_walk_note_fn note, void *payload, opmap_error *err)
{
    walk w;
    int rc = OPMAP_OK;
    size_t i;
    memset(&w, 0, sizeof(w));
    w.m = m;
    w.lim = lim;
    w.mem = mem;
    w.err = err;
    om_vec_init(&w.frames, sizeof(frame));
    rc = om_walk_precount(m, lim, mem, err);
    if (rc == OPMAP_OK && m->main)
        rc = walk_root(&w, m->main, "main", visit, note, payload);
    for (i = 0; rc == OPMAP_OK && i < m->n_extra; i++)
        rc = walk_root(&w, m->extra_graphs[i], m->extra_labels[i], visit, note, payload);
    om_vec_free(&w.frames, mem);
    if (w.buf)
        om_dealloc(mem, w.buf, w.cap);
    if (w.bound_attrs)
        om_dealloc(mem, w.bound_attrs, w.bound_cap * sizeof(ir_attr));
    return rc;
}
