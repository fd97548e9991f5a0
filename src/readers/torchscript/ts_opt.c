/*
 * readers/torchscript/ts_opt.c - inlining and torch's pre-optimization passes over
 * optimizer graphs (see ts_opt.h).
 *
 * Each pass follows its torch 1.13 counterpart (torch/csrc/jit/passes/...): one forward
 * walk, sub-blocks first, replacements visible at once, no fixpoint. What needs aliasing
 * facts uses a small union-find alias analysis: fresh results, views and in-place ops alias
 * their input, block outputs alias what flows into them, and graph inputs, attributes and
 * container elements are one "wildcard" set. Constant folding evaluates the scalar
 * operators printed code uses; other foldable operators (all inputs constant, nothing
 * mutable) become constants of unknown value, as their node would vanish in torch too.
 */
#include "ts_opt.h"

#include <inttypes.h>
#include <string.h>

#include "ts_build.h"
#include "ts_kinds.h"

typedef struct alias {
    uint32_t n, cap;
    uint32_t *parent;
    uint8_t *written;      /* per root: some node mutates the set */
    uint8_t *escapes;      /* per root: reaches a graph input/output or the wildcard */
    uint8_t *flag;         /* per root: pass-specific marks (live, stale) */
    uint32_t wild;
    uint32_t stamp;        /* values numbered in this analysis carry it */
} alias;

typedef struct opt {
    ts_ctx *c;
    ts_prog *prog;
    ts_tys *ty;
    og_graph *g;
    alias a;
    int changed;
} opt;

static const ts_type *T(opt *o, int k)
{
    return ty_prim(o->ty, k);
}

/* ---- constants ---- */

static og_val *new_const(opt *o, og_node *before, og_const *cv, const ts_type *t)
{
    og_node *n;
    if (!cv || !(n = og_const_node(o->c, cv, t)))
        return NULL;
    n->frame = before->frame;
    og_insert_before(before, n);
    return &n->out[0];
}

static og_val *const_bool(opt *o, og_node *before, int v)
{
    og_const *cv = og_const_new(o->c, C_BOOL);
    if (!cv)
        return NULL;
    cv->i = v != 0;
    return new_const(o, before, cv, T(o, TY_BOOL));
}

static og_val *const_int(opt *o, og_node *before, int64_t v)
{
    og_const *cv = og_const_new(o->c, C_INT);
    if (!cv)
        return NULL;
    cv->i = v;
    return new_const(o, before, cv, T(o, TY_INT));
}

static int must_be_none(og_val *v)
{
    const og_const *cv;
    v = og_v(v);
    if (v->type && v->type->k == TY_NONE)
        return 1;
    cv = og_cval(v);
    return cv && cv->k == C_NONE;
}

static int must_not_be_none(og_val *v)
{
    const og_const *cv = og_cval(v);
    if (cv)
        return cv->k != C_NONE;
    return ty_must_not_be_none(og_v(v)->type);
}

static int is_type(og_val *v, int k)
{
    v = og_v(v);
    return v && v->type && v->type->k == k;
}

/* ---- alias analysis ---- */

static void alias_free(opt *o)
{
    alias *a = &o->a;
    if (a->parent) {
        om_dealloc(o->c->mem, a->parent, a->cap * sizeof(uint32_t));
        om_dealloc(o->c->mem, a->written, a->cap);
        om_dealloc(o->c->mem, a->escapes, a->cap);
        om_dealloc(o->c->mem, a->flag, a->cap);
    }
    memset(a, 0, sizeof(*a));
}

static uint32_t af(alias *a, uint32_t x)
{
    uint32_t r = x;
    if (!x)
        return 0;
    while (a->parent[r] != r)
        r = a->parent[r];
    while (a->parent[x] != r) {
        uint32_t nx = a->parent[x];
        a->parent[x] = r;
        x = nx;
    }
    return r;
}

static void au(alias *a, uint32_t x, uint32_t y)
{
    x = af(a, x);
    y = af(a, y);
    if (x && y && x != y)
        a->parent[y] = x;
}

/* The value's alias id in the current analysis; 0 for values made after it, and for
 * values of nodes removed since (dead If/Loop outputs may still name them). */
static uint32_t g_vid(const alias *a, og_val *v)
{
    v = og_v(v);
    return v && a->stamp && v->astamp == a->stamp ? v->aset : 0;
}

#define vid(v) g_vid(&o->a, (v))

static void count_vals(const og_block *b, uint32_t *n)
{
    const og_node *x;
    uint32_t i;
    *n += b->n_params;
    for (x = b->head; x; x = x->next) {
        *n += x->n_out;
        for (i = 0; i < x->n_blk; i++)
            count_vals(x->blk[i], n);
    }
}

static void number_vals(alias *a, og_block *b)
{
    og_node *x;
    uint32_t i;
    for (i = 0; i < b->n_params; i++) {
        b->params[i]->aset = ++a->n;
        b->params[i]->astamp = a->stamp;
        a->parent[a->n] = a->n;
    }
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_out; i++) {
            x->out[i].aset = ++a->n;
            x->out[i].astamp = a->stamp;
            a->parent[a->n] = a->n;
        }
        for (i = 0; i < x->n_blk; i++)
            number_vals(a, x->blk[i]);
    }
}

/* The value a node writes to, or NULL. */
static og_val *written_by(const og_node *n)
{
    uint16_t i;
    if (n->kind == OK_SETATTR)
        return n->n_in ? og_in(n, 0) : NULL;
    if (!og_mutates(n))
        return NULL;
    for (i = 0; i < n->n_kw; i++)
        if (strcmp(n->kw[i], "out") == 0)
            return og_in(n, n->n_in - n->n_kw + i);
    return n->n_in ? og_in(n, 0) : NULL;
}

static void alias_block(opt *o, og_block *b)
{
    alias *a = &o->a;
    og_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_blk; i++)
            alias_block(o, x->blk[i]);
        switch (x->kind) {
        case OK_GETATTR:
        case OK_TUPLEIDX:
        case OK_TUPLEUNPACK:
        case OK_LISTUNPACK:
        case OK_GETITEM:
            /* attributes and container elements: the wildcard */
            for (i = 0; i < x->n_out; i++)
                if (ty_mutable(x->out[i].type))
                    au(a, a->wild, x->out[i].aset);
            break;
        case OK_CALLM:
        case OK_CALLF:
            for (i = 0; i < x->n_out; i++)
                au(a, a->wild, x->out[i].aset);
            for (i = 0; i < x->n_in; i++)
                if (ty_mutable(og_in(x, i)->type))
                    au(a, a->wild, vid(x->in[i]));
            break;
        case OK_UNCHECKED:
        case OK_UNWRAP:
        case OK_UNWRAP_OPT:
            au(a, vid(x->in[0]), x->out[0].aset);
            break;
        case OK_IF:
            for (i = 0; i < x->n_out; i++) {
                if (x->blk[0]->rets[i])
                    au(a, x->out[i].aset, vid(x->blk[0]->rets[i]));
                if (x->blk[1]->rets[i])
                    au(a, x->out[i].aset, vid(x->blk[1]->rets[i]));
            }
            break;
        case OK_LOOP:
            for (i = 0; i < x->n_out; i++) {
                og_block *body = x->blk[0];
                au(a, x->out[i].aset, vid(x->in[2 + i]));
                au(a, x->out[i].aset, body->params[1 + i]->aset);
                au(a, x->out[i].aset, vid(body->rets[1 + i]));
            }
            break;
        default:
            if (x->n_in && x->n_out && strcmp(x->ns, "aten") == 0 && ts_kind_view(x->op) &&
                ty_mutable(x->out[0].type))
                au(a, vid(x->in[0]), x->out[0].aset);
            if (strcmp(x->ns, "aten") == 0) {
                /* elements stored into a list or dict join the wildcard (schema `t(c -> *)`) */
                int el = !strcmp(x->op, "append") ? 1
                       : (!strcmp(x->op, "_set_item") || !strcmp(x->op, "insert") ||
                          !strcmp(x->op, "setdefault")) ? 2 : -1;
                if (el >= 0 && (uint32_t)el < x->n_in && ty_mutable(og_in(x, (uint32_t)el)->type))
                    au(a, a->wild, vid(x->in[el]));
            }
            {
                uint16_t k;
                for (k = 0; k < x->n_kw; k++)
                    if (strcmp(x->kw[k], "out") == 0 && x->n_out)
                        au(a, vid(x->in[x->n_in - x->n_kw + k]), x->out[0].aset);
            }
            break;
        }
    }
}

static void mark_written(opt *o, og_block *b)
{
    alias *a = &o->a;
    og_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        og_val *w = written_by(x);
        if (w && vid(w))
            a->written[af(a, vid(w))] = 1;
        for (i = 0; i < x->n_blk; i++)
            mark_written(o, x->blk[i]);
    }
}

static int alias_run(opt *o)
{
    alias *a = &o->a;
    uint32_t n = 0, i;
    og_block *top = o->g->top;
    alias_free(o);
    count_vals(top, &n);
    a->cap = n + 2;
    a->parent = om_alloc(o->c->mem, a->cap * sizeof(uint32_t));
    a->written = om_calloc(o->c->mem, a->cap, 1);
    a->escapes = om_calloc(o->c->mem, a->cap, 1);
    a->flag = om_calloc(o->c->mem, a->cap, 1);
    if (!a->parent || !a->written || !a->escapes || !a->flag) {
        if (a->parent)
            om_dealloc(o->c->mem, a->parent, a->cap * sizeof(uint32_t));
        if (a->written)
            om_dealloc(o->c->mem, a->written, a->cap);
        if (a->escapes)
            om_dealloc(o->c->mem, a->escapes, a->cap);
        if (a->flag)
            om_dealloc(o->c->mem, a->flag, a->cap);
        memset(a, 0, sizeof(*a));
        return ts_oom(o->c);
    }
    a->stamp = ++o->c->stamp;
    a->wild = ++a->n;
    a->parent[a->wild] = a->wild;
    number_vals(a, top);
    for (i = 0; i < top->n_params; i++)
        if (ty_mutable(top->params[i]->type))
            au(a, a->wild, top->params[i]->aset);
    alias_block(o, top);
    mark_written(o, top);
    a->escapes[af(a, a->wild)] = 1;
    for (i = 0; i < top->n_rets; i++)
        if (vid(top->rets[i]))
            a->escapes[af(a, vid(top->rets[i]))] = 1;
    return OPMAP_OK;
}

static int has_writers(opt *o, og_val *v)
{
    uint32_t id = vid(v);
    return id && o->a.parent && o->a.written[af(&o->a, id)];
}

static int escapes(opt *o, og_val *v)
{
    uint32_t id = vid(v);
    return id && o->a.parent && o->a.escapes[af(&o->a, id)];
}

/* ---- dead code elimination ---- */

typedef struct dce {
    opt *o;
    int use_alias;
    uint32_t live_stamp, use_stamp;
    int any;
} dce;

static void count_uses_block(og_block *b, uint32_t stamp);
static uint32_t uses_of(og_val *v, uint32_t stamp);

static int node_side_effects(dce *d, og_node *n);

static int block_side_effects(dce *d, og_block *b)
{
    og_node *x;
    for (x = b->head; x; x = x->next)
        if (node_side_effects(d, x))
            return 1;
    return 0;
}

static int node_side_effects(dce *d, og_node *n)
{
    uint32_t i;
    if (og_side_effects(n))
        return 1;
    for (i = 0; i < n->n_blk; i++)
        if (block_side_effects(d, n->blk[i]))
            return 1;
    if (!d->use_alias)
        return og_mutates(n);
    {
        og_val *w = written_by(n);
        opt *o = d->o;
        alias *a = &o->a;
        return w && vid(w) && af(a, vid(w)) == af(a, a->wild);
    }
}

static void set_live(dce *d, og_val *v)
{
    opt *o = d->o;
    v = og_v(v);
    if (!v)
        return;
    v->mark = d->live_stamp;
    if (d->use_alias && vid(v))
        o->a.flag[af(&o->a, vid(v))] = 1;
}

static int is_live(dce *d, og_val *v)
{
    v = og_v(v);
    return v && v->mark == d->live_stamp;
}

static int mark_node(dce *d, og_node *n)
{
    og_node *up;
    uint32_t i;
    if (n->live)
        return 0;
    n->live = 1;
    for (up = n->owner ? n->owner->owner : NULL; up; up = up->owner ? up->owner->owner : NULL)
        if (!up->live)
            mark_node(d, up);
    for (i = 0; i < n->n_in; i++)
        set_live(d, n->in[i]);
    return 1;
}

static int mark_block(dce *d, og_block *b);

static int mark_returns(dce *d, og_block *b)
{
    og_node *owner = b->owner;
    uint32_t i;
    int any = 0;
    if (!owner) {
        for (i = 0; i < b->n_rets; i++)
            if (!is_live(d, b->rets[i])) {
                set_live(d, b->rets[i]);
                any = 1;
            }
        return any;
    }
    if (owner->kind == OK_LOOP) {
        for (i = 0; i + 1 < b->n_rets; i++) {
            if ((!owner->out[i].repl && is_live(d, &owner->out[i])) ||
                uses_of(b->params[1 + i], d->use_stamp)) {
                if (!is_live(d, b->rets[1 + i])) {
                    set_live(d, b->rets[1 + i]);
                    any = 1;
                }
            }
        }
        if (b->n_rets && !is_live(d, b->rets[0])) {
            set_live(d, b->rets[0]);
            any = 1;
        }
        return any;
    }
    for (i = 0; i < b->n_rets && i < owner->n_out; i++)
        if (b->rets[i] && !owner->out[i].repl && is_live(d, &owner->out[i]) &&
            !is_live(d, b->rets[i])) {
            set_live(d, b->rets[i]);
            any = 1;
        }
    return any;
}

static int writes_to_live(dce *d, og_node *n)
{
    og_val *w;
    opt *o = d->o;
    if (!d->use_alias)
        return 0;
    w = written_by(n);
    return w && vid(w) && o->a.flag[af(&o->a, vid(w))];
}

static int mark_if_live(dce *d, og_node *n)
{
    uint32_t i;
    /* a replaced output has no uses left: its replacement is what is live */
    for (i = 0; i < n->n_out; i++)
        if (!n->out[i].repl && is_live(d, &n->out[i]))
            return mark_node(d, n);
    if (writes_to_live(d, n))
        return mark_node(d, n);
    return 0;
}

static int mark_block(dce *d, og_block *b)
{
    og_node *x;
    uint32_t i;
    int any = 0;
    for (x = b->head; x; x = x->next)
        if (node_side_effects(d, x))
            any |= mark_node(d, x);
    any |= mark_returns(d, b);
    for (x = b->tail; x; x = x->prev) {
        if (x->kind == OK_LOOP) {
            int m;
            do {
                m = mark_block(d, x->blk[0]);
                any |= m;
            } while (m);
        } else {
            for (i = 0; i < x->n_blk; i++)
                any |= mark_block(d, x->blk[i]);
        }
        any |= mark_if_live(d, x);
    }
    return any;
}

static void clear_live(og_block *b)
{
    og_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        x->live = 0;
        for (i = 0; i < x->n_blk; i++)
            clear_live(x->blk[i]);
    }
}

static void sweep(dce *d, og_block *b)
{
    og_node *x, *prev;
    uint32_t i;
    for (x = b->tail; x; x = prev) {
        prev = x->prev;
        for (i = 0; i < x->n_blk; i++)
            sweep(d, x->blk[i]);
        if (!x->live) {
            og_unlink(x);
            d->any = 1;
        }
    }
}

static int run_dce(opt *o, int use_alias)
{
    dce d;
    int rc;
    memset(&d, 0, sizeof(d));
    d.o = o;
    d.use_alias = use_alias;
    d.live_stamp = ++o->c->stamp;
    d.use_stamp = ++o->c->stamp;
    if (use_alias && (rc = alias_run(o)))
        return rc;
    count_uses_block(o->g->top, d.use_stamp);
    clear_live(o->g->top);
    mark_block(&d, o->g->top);
    sweep(&d, o->g->top);
    if (use_alias)
        alias_free(o);
    return OPMAP_OK;
}

/* ---- constant folding ---- */

static double fl(double x)
{
    double t;
    if (x != x || x >= 4503599627370496.0 || x <= -4503599627370496.0)
        return x;
    t = (double)(int64_t)x;
    return t > x ? t - 1 : t;
}

static int num(const og_const *c, int *isf, int64_t *i, double *f)
{
    if (!c)
        return 0;
    if (c->k == C_INT || c->k == C_BOOL) {
        *isf = 0;
        *i = c->i;
        *f = (double)c->i;
        return 1;
    }
    if (c->k == C_FLOAT) {
        *isf = 1;
        *f = c->f;
        *i = 0;
        return 1;
    }
    return 0;
}

static og_const *mk_int(opt *o, int64_t v)
{
    og_const *c = og_const_new(o->c, C_INT);
    if (c)
        c->i = v;
    return c;
}

static og_const *mk_float(opt *o, double v)
{
    og_const *c = og_const_new(o->c, C_FLOAT);
    if (c)
        c->f = v;
    return c;
}

static og_const *mk_bool(opt *o, int v)
{
    og_const *c = og_const_new(o->c, C_BOOL);
    if (c)
        c->i = v != 0;
    return c;
}

/*
 * Evaluates n on constant inputs: 1 and outs[] set, 0 when the value is not computable
 * here (the output becomes an opaque constant), -1 when torch's run would fail (no fold).
 */
static int eval(opt *o, og_node *n, const og_const **in, og_const **outs)
{
    int fa = 0, fb = 0;
    int64_t ia = 0, ib = 0;
    double da = 0, db = 0;
    int two = n->n_in == 2 && num(in[0], &fa, &ia, &da) && num(in[1], &fb, &ib, &db);
    int one = n->n_in == 1 && num(in[0], &fa, &ia, &da);
    uint32_t i;
    switch (n->kind) {
    case OK_TUPLEC: {
        og_const *t = og_const_new(o->c, C_TUPLE);
        if (!t || (n->n_in && !(t->el = om_arena_array(&o->c->tmp, n->n_in, sizeof(*t->el)))))
            return 0;
        for (i = 0; i < n->n_in; i++)
            t->el[i] = in[i];
        t->n = n->n_in;
        outs[0] = t;
        return 1;
    }
    case OK_UNCHECKED:
    case OK_UNWRAP_OPT:
        if (n->n_in == 1 && (n->kind == OK_UNCHECKED || in[0]->k != C_NONE)) {
            outs[0] = (og_const *)in[0];
            return 1;
        }
        return n->kind == OK_UNWRAP_OPT ? -1 : 0;
    case OK_TUPLEIDX:
        if (in[0]->k == C_TUPLE && in[1]->k == C_INT) {
            int64_t k = in[1]->i < 0 ? in[1]->i + (int64_t)in[0]->n : in[1]->i;
            if (k < 0 || k >= (int64_t)in[0]->n)
                return -1;
            outs[0] = (og_const *)in[0]->el[k];
            return 1;
        }
        return 0;
    case OK_TUPLEUNPACK:
        if (in[0]->k == C_TUPLE) {
            if (in[0]->n != n->n_out)
                return -1;
            for (i = 0; i < n->n_out; i++)
                outs[i] = (og_const *)in[0]->el[i];
            return 1;
        }
        return 0;
    case OK_ADD: case OK_SUB: case OK_MUL:
        if (two) {
            if (!fa && !fb && in[0]->k == C_INT && in[1]->k == C_INT) {
                uint64_t r = n->kind == OK_ADD ? (uint64_t)ia + (uint64_t)ib
                           : n->kind == OK_SUB ? (uint64_t)ia - (uint64_t)ib
                                               : (uint64_t)ia * (uint64_t)ib;
                outs[0] = mk_int(o, (int64_t)r);
            } else {
                double r = n->kind == OK_ADD ? da + db : n->kind == OK_SUB ? da - db : da * db;
                outs[0] = mk_float(o, r);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_DIV:
        if (two) {
            if (db == 0)
                return -1;
            outs[0] = mk_float(o, da / db);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_FLOORDIV:
    case OK_REMAINDER:
        if (two) {
            if (!fa && !fb) {
                int64_t q, r;
                if (ib == 0 || (ia == INT64_MIN && ib == -1))
                    return -1;
                q = ia / ib;
                r = ia % ib;
                if (r != 0 && ((r < 0) != (ib < 0))) {
                    q--;
                    r += ib;
                }
                outs[0] = mk_int(o, n->kind == OK_FLOORDIV ? q : r);
            } else {
                double q;
                if (db == 0)
                    return -1;
                q = fl(da / db);
                outs[0] = mk_float(o, n->kind == OK_FLOORDIV ? q : da - q * db);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_NEG:
        if (one) {
            outs[0] = fa ? mk_float(o, -da) : mk_int(o, (int64_t)(0 - (uint64_t)ia));
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_ABS:
        if (one) {
            outs[0] = fa ? mk_float(o, da < 0 ? -da : da)
                         : mk_int(o, ia < 0 ? (int64_t)(0 - (uint64_t)ia) : ia);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_EQ: case OK_NE: case OK_LT: case OK_LE: case OK_GT: case OK_GE: {
        int r;
        if (two) {
            int cmp = (!fa && !fb) ? (ia < ib ? -1 : ia > ib) : (da < db ? -1 : da > db);
            if ((fa || fb) && (da != da || db != db))
                r = n->kind == OK_NE;
            else
                r = n->kind == OK_EQ ? cmp == 0 : n->kind == OK_NE ? cmp != 0
                  : n->kind == OK_LT ? cmp < 0 : n->kind == OK_LE ? cmp <= 0
                  : n->kind == OK_GT ? cmp > 0 : cmp >= 0;
        } else if (n->n_in == 2 && in[0]->k == C_STR && in[1]->k == C_STR) {
            size_t l = in[0]->slen < in[1]->slen ? in[0]->slen : in[1]->slen;
            int cmp = memcmp(in[0]->s, in[1]->s, l);
            if (!cmp)
                cmp = in[0]->slen < in[1]->slen ? -1 : in[0]->slen > in[1]->slen;
            r = n->kind == OK_EQ ? cmp == 0 : n->kind == OK_NE ? cmp != 0
              : n->kind == OK_LT ? cmp < 0 : n->kind == OK_LE ? cmp <= 0
              : n->kind == OK_GT ? cmp > 0 : cmp >= 0;
        } else if (n->n_in == 2 && in[0]->k == C_NONE && in[1]->k == C_NONE &&
                   (n->kind == OK_EQ || n->kind == OK_NE)) {
            r = n->kind == OK_EQ;
        } else if (n->n_in == 2 && (n->kind == OK_EQ || n->kind == OK_NE) &&
                   in[0]->k == C_TUPLE && in[1]->k == C_TUPLE) {
            r = og_const_eq(in[0], in[1]) == (n->kind == OK_EQ);
        } else {
            return 0;
        }
        outs[0] = mk_bool(o, r);
        return outs[0] ? 1 : 0;
    }
    case OK_NOT:
        if (n->n_in == 1 && in[0]->k == C_BOOL) {
            outs[0] = mk_bool(o, !in[0]->i);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_AND: case OK_OR: case OK_XOR:
        if (two && !fa && !fb) {
            int64_t r = n->kind == OK_AND ? (ia & ib) : n->kind == OK_OR ? (ia | ib) : (ia ^ ib);
            outs[0] = in[0]->k == C_BOOL && in[1]->k == C_BOOL ? mk_bool(o, (int)r)
                                                               : mk_int(o, r);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_IS: case OK_ISNOT: {
        int same;
        if (n->n_in != 2)
            return 0;
        if (in[0]->k == C_NONE || in[1]->k == C_NONE)
            same = in[0]->k == in[1]->k;
        else if (in[0]->k == C_BOOL && in[1]->k == C_BOOL)
            same = in[0]->i == in[1]->i;
        else
            return 0;
        outs[0] = mk_bool(o, n->kind == OK_IS ? same : !same);
        return outs[0] ? 1 : 0;
    }
    case OK_INT:
        if (one) {
            if (fa && (da != da || da >= 9.2233720368547758e18 || da <= -9.2233720368547758e18))
                return -1;
            outs[0] = mk_int(o, fa ? (int64_t)da : ia);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_FLOAT:
        if (one) {
            outs[0] = mk_float(o, da);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_BOOL:
        if (one) {
            outs[0] = mk_bool(o, fa ? da != 0 : ia != 0);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_FLOOR:
    case OK_CEIL:
        if (one) {
            double r = fa ? fl(da) : (double)ia;
            if (fa && n->kind == OK_CEIL && r != da)
                r += 1;
            if (!fa) {
                outs[0] = mk_int(o, ia);
            } else {
                if (r != r || r >= 9.2233720368547758e18 || r <= -9.2233720368547758e18)
                    return -1;
                outs[0] = mk_int(o, (int64_t)r);
            }
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_LEN:
        if (n->n_in == 1 && in[0]->k == C_STR) {
            uint32_t k, chars = 0;
            for (k = 0; k < in[0]->slen; k++)
                chars += ((unsigned char)in[0]->s[k] & 0xC0) != 0x80;
            outs[0] = mk_int(o, chars);
            return outs[0] ? 1 : 0;
        }
        return 0;
    case OK_PMIN:
    case OK_PMAX:
        if (two) {
            int pick_a = n->kind == OK_PMIN ? (fa || fb ? da <= db : ia <= ib)
                                            : (fa || fb ? da >= db : ia >= ib);
            outs[0] = (og_const *)(pick_a ? in[0] : in[1]);
            return 1;
        }
        return 0;
    default:
        if (n->n_in == 0 && strcmp(n->ns, "aten") == 0) {
            /* the two argument-less ops torch folds, with the values TorchScript gives */
            if (strcmp(n->op, "_get_tracing_state") == 0 || strcmp(n->op, "is_scripting") == 0) {
                outs[0] = mk_bool(o, n->op[0] == 'i');
                return outs[0] ? 1 : 0;
            }
        }
        return 0;
    }
}

static int is_skip_kind(const og_node *n)
{
    switch (n->kind) {
    case OK_IF: case OK_LOOP: case OK_CONST: case OK_UNINIT: case OK_UNWRAP:
        return 1;
    default:
        return strcmp(n->ns, "prim") == 0 &&
               (!strcmp(n->op, "Closure") || !strcmp(n->op, "AutogradZero") ||
                !strcmp(n->op, "Guard") || !strcmp(n->op, "profile") ||
                !strcmp(n->op, "profile_ivalue") || !strcmp(n->op, "awaitable"));
    }
}

static int supported(const og_node *n)
{
    uint32_t i;
    if (is_skip_kind(n) || n->n_blk || og_side_effects(n))
        return 0;
    for (i = 0; i < n->n_in; i++)
        if (ty_mutable(og_in(n, i)->type))
            return 0;
    for (i = 0; i < n->n_out; i++)
        if (ty_mutable(n->out[i].type))
            return 0;
    /* vararg schemas are not run by constant propagation */
    if (n->kind == OK_FORMAT || n->kind == OK_PERCENTFORMAT || n->kind == OK_PRINT)
        return 0;
    /* the listed ops need their lists; lists are never constants */
    if (n->kind == OK_LISTC || n->kind == OK_DICTC || n->kind == OK_LISTUNPACK)
        return 0;
    if (strcmp(n->ns, "aten") == 0 && ts_kind_fresh_tensor(n->op))
        return 0;
    /* ops without inputs read global state (is_grad_enabled): only the known ones fold */
    if (n->n_in == 0 && (strcmp(n->ns, "aten") != 0 || (strcmp(n->op, "_get_tracing_state") &&
                                                         strcmp(n->op, "is_scripting"))))
        return 0;
    return 1;
}

static int cp_block(opt *o, og_block *b);

static int all_const(const og_node *n)
{
    uint32_t i;
    for (i = 0; i < n->n_in; i++)
        if (!og_cval(n->in[i]))
            return 0;
    return 1;
}

static int propagate(opt *o, og_node *n)
{
    const og_const *in[64];
    og_const *outs[64];
    uint32_t i;
    int r;
    if (n->n_in > 64 || n->n_out > 64)
        return OPMAP_OK;
    for (i = 0; i < n->n_in; i++)
        in[i] = og_cval(n->in[i]);
    memset(outs, 0, sizeof(outs));
    r = eval(o, n, in, outs);
    if (r < 0)
        return OPMAP_OK;
    for (i = 0; i < n->n_out; i++) {
        og_val *v;
        og_const *cv = outs[i];
        if (!cv) {
            if (r > 0)
                return ts_oom(o->c);
            /* folded by torch, value unknown here */
            if (!(cv = og_const_new(o->c, C_OPAQUE)))
                return ts_oom(o->c);
        }
        if (!(v = new_const(o, n, cv, n->out[i].type)))
            return ts_oom(o->c);
        og_replace(&n->out[i], v);
        o->changed = 1;
    }
    return OPMAP_OK;
}

static int inline_block_into(og_node *n, og_block *b)
{
    og_node *x, *next;
    uint32_t i;
    for (x = b->head; x; x = next) {
        next = x->next;
        x->owner = NULL;
        x->prev = x->next = NULL;
        og_insert_before(n, x);
    }
    b->head = b->tail = NULL;
    for (i = 0; i < n->n_out && i < b->n_rets; i++)
        og_replace(&n->out[i], b->rets[i]);
    og_unlink(n);
    return OPMAP_OK;
}

static int cp_node(opt *o, og_node *n)
{
    int rc;
    uint32_t i;
    if (n->kind == OK_IF) {
        const og_const *cv = og_cval(n->in[0]);
        if (cv && cv->k == C_BOOL) {
            og_block *taken = n->blk[cv->i ? 0 : 1];
            if ((rc = cp_block(o, taken)))
                return rc;
            o->changed = 1;
            return inline_block_into(n, taken);
        }
        if ((rc = cp_block(o, n->blk[0])) || (rc = cp_block(o, n->blk[1])))
            return rc;
        /* removeExtraIfOutputs */
        for (i = 0; i < n->n_out; i++) {
            og_val *t = og_v(n->blk[0]->rets[i]), *f = og_v(n->blk[1]->rets[i]);
            const og_const *tc, *fc;
            if (n->out[i].repl || !t || !f)
                continue;
            if (t == f) {
                og_replace(&n->out[i], t);
                o->changed = 1;
                continue;
            }
            tc = og_cval(t);
            fc = og_cval(f);
            if (tc && fc && tc->k != C_OPAQUE && og_const_eq(tc, fc)) {
                og_val *v = new_const(o, n, (og_const *)tc, t->type);
                if (!v)
                    return ts_oom(o->c);
                og_replace(&n->out[i], v);
                o->changed = 1;
            }
        }
        return OPMAP_OK;
    }
    if (n->kind == OK_LOOP) {
        const og_const *trip = og_cval(n->in[0]), *start = og_cval(n->in[1]);
        int64_t iters = trip && trip->k == C_INT ? trip->i : 1;
        int c0 = start && start->k == C_BOOL ? (int)start->i : 1;
        og_block *body = n->blk[0];
        if (!(c0 && iters > 0)) {
            for (i = 0; i < n->n_out; i++)
                og_replace(&n->out[i], n->in[2 + i]);
            og_unlink(n);
            o->changed = 1;
            return OPMAP_OK;
        }
        if ((rc = cp_block(o, body)))
            return rc;
        /* removeExtraLoopOutputs */
        for (i = n->n_out; i-- > 0;) {
            if (n->out[i].repl)
                continue;
            if (og_v(body->params[1 + i]) == og_v(body->rets[1 + i])) {
                og_replace(&n->out[i], n->in[2 + i]);
                og_replace(body->params[1 + i], n->in[2 + i]);
                o->changed = 1;
            }
        }
        return OPMAP_OK;
    }
    if (all_const(n) && supported(n))
        return propagate(o, n);
    for (i = 0; i < n->n_blk; i++)
        if ((rc = cp_block(o, n->blk[i])))
            return rc;
    return OPMAP_OK;
}

static int cp_block(opt *o, og_block *b)
{
    og_node *n, *next;
    int rc;
    for (n = b->head; n; n = next) {
        next = n->next;
        if ((rc = cp_node(o, n)))
            return rc;
    }
    return OPMAP_OK;
}

/* ConstantPropagationImmutableTypes, then dead code elimination if it changed anything. */
static int constprop(opt *o)
{
    int rc;
    o->changed = 0;
    if ((rc = cp_block(o, o->g->top)))
        return rc;
    if (o->changed)
        return run_dce(o, 1);
    return OPMAP_OK;
}

/* ---- peephole ---- */

static int ph_basic(opt *o, og_block *b)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_basic(o, n->blk[i])))
                return rc;
        switch (n->kind) {
        case OK_GRADSUM:
            if (n->n_in == 2 && must_be_none(n->in[1])) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_T:
            if (n->n_in == 1) {
                og_val *x = og_in(n, 0);
                if (x->def && x->def->kind == OK_T && x->def->n_in == 1) {
                    og_replace(&n->out[0], x->def->in[0]);
                    o->changed = 1;
                }
            }
            break;
        case OK_FLOAT: case OK_INT: case OK_FLOATIMPL: case OK_INTIMPL: case OK_SCALARIMPL:
            if (n->n_in == 1) {
                og_val *x = og_in(n, 0);
                if (x->def && x->def->kind == OK_NUMTOTENSOR && x->def->n_in == 1) {
                    og_replace(&n->out[0], x->def->in[0]);
                    o->changed = 1;
                }
            }
            break;
        default:
            break;
        }
    }
    return OPMAP_OK;
}

/* Lists and dicts some node writes to, by alias set (PeepholeOptimizeListIdioms). */
static int mutated(opt *o, og_val *v)
{
    return has_writers(o, v);
}

static int list_of(og_val *v, og_node **lc)
{
    v = og_v(v);
    if (!v->type || v->type->k != TY_LIST || !v->def || v->def->kind != OK_LISTC)
        return 0;
    *lc = v->def;
    return 1;
}

static int const_int_or_default(og_node *n, uint32_t i, int64_t dflt, int *is_none,
                                int64_t *out)
{
    const og_const *cv;
    *is_none = 0;
    if (i >= n->n_in) {
        *out = dflt;
        return 1;
    }
    cv = og_cval(n->in[i]);
    if (!cv)
        return 0;
    if (cv->k == C_NONE) {
        *is_none = 1;
        return 1;
    }
    if (cv->k != C_INT)
        return 0;
    *out = cv->i;
    return 1;
}

/* torch's slice_indices_adjust, for list slices */
static int64_t slice_adjust(int64_t len, int64_t *start, int64_t *stop, int64_t step)
{
    if (step == 0)
        return -1;
    if (*start < 0) {
        *start += len;
        if (*start < 0)
            *start = step < 0 ? -1 : 0;
    } else if (*start >= len) {
        *start = step < 0 ? len - 1 : len;
    }
    if (*stop < 0) {
        *stop += len;
        if (*stop < 0)
            *stop = step < 0 ? -1 : 0;
    } else if (*stop >= len) {
        *stop = step < 0 ? len - 1 : len;
    }
    if (step < 0) {
        if (*stop < *start)
            return (*start - *stop - 1) / (-step) + 1;
    } else if (*start < *stop) {
        return (*stop - *start - 1) / step + 1;
    }
    return 0;
}

static og_node *new_list(opt *o, og_node *before, uint32_t n, const ts_type *t)
{
    og_node *l = og_node_new(o->c, OK_LISTC, "prim", "ListConstruct", n, 1, 0);
    if (!l)
        return NULL;
    l->out[0].type = t;
    l->frame = before->frame;
    l->file = before->file;
    l->line = before->line;
    og_insert_before(before, l);
    return l;
}

static int ph_lists(opt *o, og_block *b)
{
    og_node *n, *lc, *lc2;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_lists(o, n->blk[i])))
                return rc;
        if (!n->n_in || !list_of(n->in[0], &lc) || mutated(o, n->in[0]))
            continue;
        if (n->kind == OK_LEN) {
            og_val *v = const_int(o, n, lc->n_in);
            if (!v)
                return ts_oom(o->c);
            og_replace(&n->out[0], v);
            o->changed = 1;
        } else if (n->kind == OK_GETITEM && n->n_in == 2) {
            const og_const *ix = og_cval(n->in[1]);
            if (ix && ix->k == C_INT) {
                int64_t k = ix->i < 0 ? ix->i + (int64_t)lc->n_in : ix->i;
                if (k >= 0 && k < (int64_t)lc->n_in) {
                    og_replace(&n->out[0], lc->in[k]);
                    o->changed = 1;
                }
            }
        } else if (n->kind == OK_LISTUNPACK) {
            if (lc->n_in != n->n_out)
                continue;
            for (i = 0; i < n->n_out; i++) {
                og_replace(&n->out[i], lc->in[i]);
                o->changed = 1;
            }
        } else if (n->kind == OK_ADD && n->n_in == 2) {
            og_node *l;
            if (mutated(o, n->in[1]) || !list_of(n->in[1], &lc2))
                continue;
            if (!(l = new_list(o, n, lc->n_in + lc2->n_in, n->out[0].type)))
                return ts_oom(o->c);
            for (i = 0; i < lc->n_in; i++)
                l->in[i] = lc->in[i];
            for (i = 0; i < lc2->n_in; i++)
                l->in[lc->n_in + i] = lc2->in[i];
            l->out[0].aset = n->out[0].aset; /* keeps the replaced list's mutation facts */
            og_replace(&n->out[0], &l->out[0]);
            o->changed = 1;
        } else if (n->kind == OK_SLICE) {
            int64_t start = 0, end = INT64_MAX, step = 1, len = lc->n_in, cnt, k;
            int none;
            og_node *l;
            if (!const_int_or_default(n, 1, INT64_MAX, &none, &start))
                continue;
            if (none)
                start = INT64_MAX;
            if (!const_int_or_default(n, 2, INT64_MAX, &none, &end))
                continue;
            if (none)
                end = INT64_MAX;
            if (!const_int_or_default(n, 3, 1, &none, &step))
                continue;
            if (none)
                step = 1;
            if (n->n_in < 2)
                start = INT64_MAX;
            /* torch: a None start is INT64_MAX too (slice_indices_adjust handles it) */
            if (start == INT64_MAX && step > 0)
                start = 0;
            if ((cnt = slice_adjust(len, &start, &end, step)) < 0)
                continue;
            if (!(l = new_list(o, n, (uint32_t)cnt, n->out[0].type)))
                return ts_oom(o->c);
            for (i = 0, k = start; i < (uint32_t)cnt; i++, k += step)
                l->in[i] = lc->in[k];
            l->out[0].aset = n->out[0].aset;
            og_replace(&n->out[0], &l->out[0]);
            o->changed = 1;
        }
    }
    return OPMAP_OK;
}

static int dict_key_ok(const og_const *k)
{
    return k && (k->k == C_INT || k->k == C_FLOAT || k->k == C_STR);
}

static int ph_dicts(opt *o, og_block *b)
{
    og_node *n;
    uint32_t i, j;
    int rc;
    for (n = b->head; n; n = n->next) {
        og_val *d;
        og_node *dc;
        int ok = 1;
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_dicts(o, n->blk[i])))
                return rc;
        if (!n->n_in)
            continue;
        d = og_in(n, 0);
        if (!d->type || d->type->k != TY_DICT || mutated(o, d) || !d->def ||
            d->def->kind != OK_DICTC)
            continue;
        dc = d->def;
        /* canOptimize: constant, distinct keys of type int, float or str */
        if (!d->type->el[0] || (d->type->el[0]->k != TY_INT && d->type->el[0]->k != TY_FLOAT &&
                                d->type->el[0]->k != TY_STR))
            continue;
        for (i = 0; i + 1 < dc->n_in && ok; i += 2) {
            const og_const *ki = og_cval(dc->in[i]);
            if (!dict_key_ok(ki)) {
                ok = 0;
                break;
            }
            for (j = 0; j < i && ok; j += 2)
                if (og_const_eq(ki, og_cval(dc->in[j])))
                    ok = 0;
        }
        if (!ok)
            continue;
        if (n->kind == OK_LEN) {
            og_val *v = const_int(o, n, dc->n_in / 2);
            if (!v)
                return ts_oom(o->c);
            og_replace(&n->out[0], v);
            o->changed = 1;
        } else if (n->kind == OK_GETITEM && n->n_in == 2) {
            const og_const *key = og_cval(n->in[1]);
            if (!key)
                continue;
            for (i = 0; i + 1 < dc->n_in; i += 2)
                if (og_const_eq(key, og_cval(dc->in[i]))) {
                    og_replace(&n->out[0], dc->in[i + 1]);
                    o->changed = 1;
                    break;
                }
        }
    }
    return OPMAP_OK;
}

static int dim_of_conv(int kind)
{
    return kind == OK_CONV1D ? 3 : kind == OK_CONV2D ? 4 : 5;
}

static int scalar_int(og_val *v)
{
    return is_type(v, TY_INT);
}

static int scalar_type(og_val *v)
{
    v = og_v(v);
    return v->type && (v->type->k == TY_INT || v->type->k == TY_FLOAT ||
                       v->type->k == TY_NUMBER || v->type->k == TY_BOOL);
}

static int try_replace_with_input(opt *o, og_node *n)
{
    og_val *in = og_in(n, 0), *out = &n->out[0];
    alias *a = &o->a;
    if (has_writers(o, in) || has_writers(o, out))
        return 0;
    if (escapes(o, in) && escapes(o, out))
        return 0;
    if ((vid(in) && a->flag[af(a, vid(in))]) || (vid(out) && a->flag[af(a, vid(out))]))
        return 0;
    if (vid(in))
        a->flag[af(a, vid(in))] = 1;
    if (vid(out))
        a->flag[af(a, vid(out))] = 1;
    og_replace(out, in);
    o->changed = 1;
    return 1;
}

static int ph_alias(opt *o, og_block *b)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_alias(o, n->blk[i])))
                return rc;
        if (n->kind == OK_DIM && n->n_in == 1) {
            og_val *x = og_in(n, 0);
            if (x->def && (x->def->kind == OK_CONV1D || x->def->kind == OK_CONV2D ||
                           x->def->kind == OK_CONV3D) && !has_writers(o, x)) {
                og_val *v = const_int(o, n, dim_of_conv(x->def->kind));
                if (!v)
                    return ts_oom(o->c);
                og_replace(&n->out[0], v);
                o->changed = 1;
            }
        } else if ((n->kind == OK_ADD || n->kind == OK_SUB) && (n->n_in == 2 || n->n_in == 3) &&
                   !n->n_kw && is_type(n->in[0], TY_TENSOR) && scalar_type(n->in[1])) {
            const og_const *other = og_cval(n->in[1]);
            const og_const *alpha = n->n_in == 3 ? og_cval(n->in[2]) : NULL;
            int alpha_int = n->n_in == 2 || scalar_int(n->in[2]);
            if (!other || (n->n_in == 3 && !alpha))
                continue;
            if (!scalar_int(n->in[1]) || !alpha_int)
                continue;
            if ((alpha ? alpha->i : 1) == 1 && other->k == C_INT && other->i == 0)
                try_replace_with_input(o, n);
        } else if (n->kind == OK_MUL && n->n_in == 2 && is_type(n->in[0], TY_TENSOR) &&
                   scalar_type(n->in[1])) {
            const og_const *other = og_cval(n->in[1]);
            if (!other || !scalar_int(n->in[1]))
                continue;
            if (other->k == C_INT && other->i == 1)
                try_replace_with_input(o, n);
        }
    }
    return OPMAP_OK;
}

/* checkArithNode: both inputs int; for mul/add a constant first input is swapped */
static int arith_const(og_node *n, int64_t *c)
{
    const og_const *cv;
    if (n->n_in != 2 || !is_type(n->in[0], TY_INT) || !is_type(n->in[1], TY_INT))
        return 0;
    if (n->kind == OK_MUL || n->kind == OK_ADD) {
        cv = og_cval(n->in[0]);
        if (cv && cv->k == C_INT) {
            og_val *t = n->in[0];
            n->in[0] = n->in[1];
            n->in[1] = t;
            *c = cv->i;
            return 1;
        }
    }
    cv = og_cval(n->in[1]);
    if (cv && cv->k == C_INT) {
        *c = cv->i;
        return 1;
    }
    return 0;
}

static int immut_handled(const ts_type *t)
{
    return t && (t->k == TY_BOOL || t->k == TY_INT || t->k == TY_FLOAT || t->k == TY_NONE);
}

static int ph_nontensor(opt *o, og_block *b, int none_to_const)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        for (i = 0; i < n->n_blk; i++)
            if ((rc = ph_nontensor(o, n->blk[i], none_to_const)))
                return rc;
        if (none_to_const && n->kind != OK_CONST) {
            for (i = 0; i < n->n_out; i++)
                if (n->out[i].type && n->out[i].type->k == TY_NONE && !n->out[i].repl) {
                    og_const *cv = og_const_new(o->c, C_NONE);
                    og_val *v = new_const(o, n, cv, T(o, TY_NONE));
                    if (!v)
                        return ts_oom(o->c);
                    og_replace(&n->out[i], v);
                    o->changed = 1;
                }
        }
        switch (n->kind) {
        case OK_IF:
            for (i = 0; i < n->n_out; i++) {
                const og_const *tc, *fc;
                if (!n->out[i].type || n->out[i].type->k != TY_BOOL)
                    continue;
                tc = og_cval(n->blk[0]->rets[i]);
                fc = og_cval(n->blk[1]->rets[i]);
                if (tc && tc->k == C_BOOL && tc->i && fc && fc->k == C_BOOL && !fc->i) {
                    og_replace(&n->out[i], n->in[0]);
                    o->changed = 1;
                }
            }
            for (i = 0; i < n->n_out; i++) {
                const ts_type *tt = og_v(n->blk[0]->rets[i])->type;
                const ts_type *ft = og_v(n->blk[1]->rets[i])->type;
                const ts_type *u;
                if (!tt || !ft || tt->k == TY_OPTIONAL || ft->k == TY_OPTIONAL ||
                    !n->out[i].type || n->out[i].type->k != TY_OPTIONAL)
                    continue;
                /* torch reports a change whenever this unifies, even to the same type */
                u = ty_unify(o->ty, tt, ft);
                if (u && u->k != TY_UNKNOWN) {
                    n->out[i].type = u;
                    o->changed = 1;
                }
            }
            break;
        case OK_IS:
        case OK_ISNOT:
            if (n->n_in != 2)
                break;
            for (i = 0; i < 2; i++) {
                if (must_be_none(n->in[i]) && must_not_be_none(n->in[1 - i])) {
                    og_val *v = const_bool(o, n, n->kind == OK_ISNOT);
                    if (!v)
                        return ts_oom(o->c);
                    og_replace(&n->out[0], v);
                    o->changed = 1;
                }
            }
            break;
        case OK_UNWRAP:
        case OK_UNWRAP_OPT:
            if (n->n_in == 1 && must_not_be_none(n->in[0])) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_UNCHECKED:
            if (n->n_in == 1 && ty_sub(og_in(n, 0)->type, n->out[0].type)) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_INT:
        case OK_CEIL:
            if (n->n_in == 1 && is_type(n->in[0], TY_INT)) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        case OK_EQ:
        case OK_NE:
            if (n->n_in == 2 && og_in(n, 0) == og_in(n, 1)) {
                const ts_type *t = og_in(n, 0)->type;
                int ok = 0;
                if (t && t->k == TY_LIST)
                    ok = immut_handled(t->el[0]);
                else if (t && t->k == TY_DICT)
                    ok = immut_handled(t->el[0]) && immut_handled(t->el[1]);
                else
                    ok = immut_handled(t);
                if (ok) {
                    og_val *v = const_bool(o, n, n->kind == OK_EQ);
                    if (!v)
                        return ts_oom(o->c);
                    og_replace(&n->out[0], v);
                    o->changed = 1;
                }
            }
            break;
        case OK_MUL:
        case OK_FLOORDIV:
        case OK_DIV: {
            int64_t k;
            if (arith_const(n, &k) && k == 1) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
            }
            break;
        }
        case OK_ADD:
        case OK_SUB: {
            int64_t k, d;
            og_node *dep;
            if (!arith_const(n, &k))
                break;
            if (k == 0) {
                og_replace(&n->out[0], n->in[0]);
                o->changed = 1;
                break;
            }
            dep = og_in(n, 0)->def;
            if (!dep || (dep->kind != OK_ADD && dep->kind != OK_SUB) || !arith_const(dep, &d))
                break;
            d = dep->kind == n->kind ? (int64_t)((uint64_t)k + (uint64_t)d)
                                     : (int64_t)((uint64_t)k - (uint64_t)d);
            if (d == 0) {
                og_replace(&n->out[0], dep->in[0]);
            } else {
                og_val *cv = const_int(o, n, d);
                if (!cv)
                    return ts_oom(o->c);
                n->in[0] = dep->in[0];
                n->in[1] = cv;
            }
            o->changed = 1;
            break;
        }
        default:
            break;
        }
    }
    return OPMAP_OK;
}

/* ---- CombineConcats ---- */

static void use(og_val *v, og_node *user, uint32_t stamp)
{
    v = og_v(v);
    if (!v)
        return;
    if (v->ustamp != stamp) {
        v->ustamp = stamp;
        v->nuses = 0;
    }
    v->nuses++;
    v->user = user;
}

static void count_uses_block(og_block *b, uint32_t stamp)
{
    og_node *x;
    uint32_t i;
    for (x = b->head; x; x = x->next) {
        for (i = 0; i < x->n_in; i++)
            use(x->in[i], x, stamp);
        for (i = 0; i < x->n_blk; i++)
            count_uses_block(x->blk[i], stamp);
    }
    for (i = 0; i < b->n_rets; i++)
        use(b->rets[i], NULL, stamp);
}

static uint32_t uses_of(og_val *v, uint32_t stamp)
{
    v = og_v(v);
    return v->ustamp == stamp ? v->nuses : 0;
}

typedef struct cat_pair {
    og_node *first, *second;
    uint32_t idx;
} cat_pair;

static int cat_dim(og_node *n, int64_t *dim)
{
    const og_const *cv;
    if (n->n_in < 2) {
        *dim = 0;
        return 1;
    }
    cv = og_cval(n->in[1]);
    if (!cv || cv->k != C_INT)
        return 0;
    *dim = cv->i;
    return 1;
}

static int collect_cats(opt *o, og_block *b, uint32_t stamp, om_vec *pairs)
{
    og_node *n;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = n->next) {
        int64_t dim, dim2;
        og_val *list;
        og_node *next_list, *next_cat;
        cat_pair *p;
        if (n->kind == OK_CAT && n->n_in >= 1 && n->n_kw == 0 && cat_dim(n, &dim)) {
            list = og_in(n, 0);
            if (list->def && list->def->kind == OK_LISTC && !has_writers(o, list) &&
                uses_of(&n->out[0], stamp) == 1 && (next_list = og_v(&n->out[0])->user) &&
                next_list->kind == OK_LISTC && uses_of(&next_list->out[0], stamp) == 1 &&
                (next_cat = og_v(&next_list->out[0])->user) && next_cat->kind == OK_CAT &&
                next_cat->n_kw == 0 && og_in(next_cat, 0) == &next_list->out[0] &&
                cat_dim(next_cat, &dim2) && dim2 == dim) {
                for (i = 0; i < next_list->n_in; i++)
                    if (og_in(next_list, i) == og_v(&n->out[0]))
                        break;
                if (i < next_list->n_in) {
                    if (!(p = om_vec_push(pairs, o->c->mem)))
                        return ts_oom(o->c);
                    p->first = n;
                    p->second = next_cat;
                    p->idx = i;
                }
            }
        }
        for (i = 0; i < n->n_blk; i++)
            if ((rc = collect_cats(o, n->blk[i], stamp, pairs)))
                return rc;
    }
    return OPMAP_OK;
}

/* A list being built for a cat (torch's deque in getListConstructInputs). */
typedef struct clist {
    og_node *key;          /* the cat it is registered for, or NULL (orphaned / moved) */
    og_val **v;
    size_t n, cap;
} clist;

static int clist_put(opt *o, clist *l, size_t at, og_val *const *v, size_t n)
{
    if (l->n + n > l->cap) {
        size_t ncap = (l->n + n) * 2 + 4;
        og_val **nv = om_arena_array(&o->c->tmp, ncap, sizeof(*nv));
        if (!nv)
            return ts_oom(o->c);
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof(*nv));
        l->v = nv;
        l->cap = ncap;
    }
    memmove(l->v + at + n, l->v + at, (l->n - at) * sizeof(*l->v));
    memcpy(l->v + at, v, n * sizeof(*v));
    l->n += n;
    return OPMAP_OK;
}

/*
 * CombineConcats: cat(a, cat(b, c), d) with one use in between becomes cat(a, b, c, d).
 * Pairs are combined in graph order with torch's map semantics: the first pair registered
 * for an outer cat wins (a later pair into the same cat is dropped), and a chain of cats
 * moves its list along.
 */
static int combine_concats(opt *o)
{
    om_vec pairs, lists;
    uint32_t stamp = ++o->c->stamp;
    size_t i;
    int rc;
    if ((rc = alias_run(o)))
        return rc;
    count_uses_block(o->g->top, stamp);
    om_vec_init(&pairs, sizeof(cat_pair));
    om_vec_init(&lists, sizeof(clist *));
    rc = collect_cats(o, o->g->top, stamp, &pairs);
    alias_free(o);
    for (i = 0; !rc && i < pairs.len; i++) {
        cat_pair *p = &OM_VEC_AT(&pairs, cat_pair, i);
        og_node *l2 = og_in(p->second, 0)->def;
        clist *cur = p->first->aux_stamp == stamp ? p->first->aux : NULL, **slot;
        if (cur) {
            p->first->aux_stamp = 0; /* erased from the map under the inner cat */
            cur->key = NULL;
        } else if (!(cur = om_arena_alloc(&o->c->tmp, sizeof(*cur))) ||
                   !(slot = om_vec_push(&lists, o->c->mem))) {
            rc = ts_oom(o->c);
            break;
        } else {
            *slot = cur;
        }
        if (p->second->aux_stamp != stamp) {
            cur->key = p->second;
            p->second->aux = cur;
            p->second->aux_stamp = stamp;
        }
        if (!cur->n) {
            og_node *l1 = og_in(p->first, 0)->def;
            if ((rc = clist_put(o, cur, 0, l1->in, l1->n_in)))
                break;
        }
        if ((rc = clist_put(o, cur, 0, l2->in, p->idx)) ||
            (rc = clist_put(o, cur, cur->n, l2->in + p->idx + 1, l2->n_in - p->idx - 1)))
            break;
    }
    for (i = 0; !rc && i < lists.len; i++) {
        clist *cl = OM_VEC_AT(&lists, clist *, i);
        og_node *old, *l;
        size_t k;
        if (!cl->key)
            continue;
        old = og_in(cl->key, 0)->def;
        if (!(l = new_list(o, cl->key, (uint32_t)cl->n, old->out[0].type))) {
            rc = ts_oom(o->c);
            break;
        }
        for (k = 0; k < cl->n; k++)
            l->in[k] = cl->v[k];
        og_replace(&old->out[0], &l->out[0]);
        o->changed = 1;
    }
    if (!rc && pairs.len)
        rc = run_dce(o, 1);
    om_vec_free(&pairs, o->c->mem);
    om_vec_free(&lists, o->c->mem);
    return rc;
}

/* PeepholeOptimize(graph, disable_shape_peepholes=true), then DCE without aliasing. */
static int peephole(opt *o)
{
    int rc, any;
    o->changed = 0;
    if ((rc = ph_basic(o, o->g->top)))
        return rc;
    any = o->changed;
    o->changed = 0;
    if ((rc = alias_run(o)) || (rc = ph_lists(o, o->g->top)))
        goto out;
    alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = alias_run(o)) || (rc = ph_dicts(o, o->g->top)))
        goto out;
    alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = alias_run(o)) || (rc = ph_alias(o, o->g->top)))
        goto out;
    alias_free(o);
    any |= o->changed;
    o->changed = 0;
    if ((rc = ph_nontensor(o, o->g->top, 1)))
        goto out;
    any |= o->changed;
    o->changed = 0;
    if ((rc = combine_concats(o)))
        goto out;
    any |= o->changed;
    if (any)
        rc = run_dce(o, 0);
out:
    alias_free(o);
    return rc;
}

/* ---- inlining ---- */

static int inline_calls(opt *o, og_block *b)
{
    og_node *n, *next;
    uint32_t i;
    int rc;
    for (n = b->head; n; n = next) {
        next = n->next;
        if ((n->kind == OK_CALLM || n->kind == OK_CALLF) && n->callee) {
            og_graph *cg;
            og_frame *frame = n->frame;
            og_val **outs;
            rc = ts_opt_function(o->c, o->prog, o->ty, n->callee, 0, &cg);
            if (rc == 1)
                continue; /* recursive: left as a call */
            if (rc)
                return rc;
            if (n->label) {
                if (!(frame = om_arena_alloc(&o->c->tmp, sizeof(*frame))))
                    return ts_oom(o->c);
                frame->parent = n->frame;
                frame->label = n->label;
                frame->depth = n->frame ? n->frame->depth + 1 : 1;
                if (frame->depth > o->c->lim->max_depth)
                    return ts_fail(o->c, OPMAP_ELIMIT, NULL, 0, 0,
                                   "TorchScript submodule calls nested deeper than max_depth "
                                   "(%" PRIu32 ")", o->c->lim->max_depth);
                frame->what = n->callee->cls ? ts_display_name(o->c, n->callee->cls->qual)
                                             : ts_display_name(o->c, n->callee->qual);
                if (!frame->what)
                    return ts_oom(o->c);
            }
            /* refuse before copying: fan-out (f calls g twice, g calls h twice, ...) grows
             * exponentially */
            if (o->c->nodes > o->c->node_budget ||
                n->callee->opt_size > o->c->node_budget - o->c->nodes)
                return ts_fail(o->c, OPMAP_ELIMIT, n->callee->file->entry, n->callee->line, 1,
                               "calls to %s expand to more than %" PRIu64 " nodes (max_nodes, "
                               "or max_heap_bytes / 512 when smaller)", n->callee->qual,
                               o->c->node_budget);
            if ((rc = og_inline_copy(o->c, cg, n, n->in, n->n_in, frame, &outs)))
                return rc;
            for (i = 0; i < n->n_out && i < cg->top->n_rets; i++)
                og_replace(&n->out[i], outs[i]);
            og_unlink(n);
            continue;
        }
        for (i = 0; i < n->n_blk; i++)
            if ((rc = inline_calls(o, n->blk[i])))
                return rc;
    }
    return OPMAP_OK;
}

int ts_opt_function(ts_ctx *c, ts_prog *prog, ts_tys *ty, ts_func *fn, int root,
                    og_graph **out)
{
    opt o;
    og_graph *g;
    int rc;
    if (fn->state == 2 && !root) {
        *out = fn->opt;
        return OPMAP_OK;
    }
    if (fn->state == 1)
        return 1;
    if (c->call_depth >= c->lim->max_depth)
        return ts_fail(c, OPMAP_ELIMIT, fn->file->entry, fn->line, 1,
                       "TorchScript calls nested deeper than max_depth (%" PRIu32 ")",
                       c->lim->max_depth);
    fn->state = 1;
    if (fn->built) {
        g = fn->built;
        fn->built = NULL;
    } else if ((rc = ts_build(c, prog, ty, fn, &g))) {
        return rc;
    }
    c->call_depth++;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.prog = prog;
    o.ty = ty;
    o.g = g;
    /* the compiler's cleanup passes, then inlining, then pre-optimization */
    rc = constprop(&o);
    if (!rc)
        rc = inline_calls(&o, g->top);
    if (!rc && !root) {
        rc = peephole(&o);
        if (!rc)
            rc = constprop(&o);
    }
    alias_free(&o);
    c->call_depth--;
    if (rc)
        return rc;
    fn->state = root ? 0 : 2;
    fn->opt = root ? NULL : g;
    fn->opt_size = og_count(g->top);
    *out = g;
    return OPMAP_OK;
}

/* ---- size estimate before inlining ---- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX / 4 - b ? UINT64_MAX / 4 : a + b;
}

static int estimate(ts_ctx *c, ts_prog *prog, ts_tys *ty, ts_func *fn, uint32_t depth);

static int estimate_block(ts_ctx *c, ts_prog *prog, ts_tys *ty, og_block *b, uint32_t depth,
                          uint64_t *sum)
{
    og_node *x;
    uint32_t i;
    int rc;
    for (x = b->head; x; x = x->next) {
        *sum = sat_add(*sum, 1);
        if ((x->kind == OK_CALLM || x->kind == OK_CALLF) && x->callee) {
            if ((rc = estimate(c, prog, ty, x->callee, depth + 1)))
                return rc;
            *sum = sat_add(*sum, x->callee->est);
        }
        for (i = 0; i < x->n_blk; i++)
            if ((rc = estimate_block(c, prog, ty, x->blk[i], depth, sum)))
                return rc;
    }
    return OPMAP_OK;
}

static int estimate(ts_ctx *c, ts_prog *prog, ts_tys *ty, ts_func *fn, uint32_t depth)
{
    og_graph *g;
    int rc;
    uint64_t sum = 0;
    if (fn->est_state)
        return OPMAP_OK; /* done, or recursion (counted as nothing: it is not expanded) */
    if (depth >= c->lim->max_depth)
        return ts_fail(c, OPMAP_ELIMIT, fn->file->entry, fn->line, 1,
                       "TorchScript calls nested deeper than max_depth (%" PRIu32 ")",
                       c->lim->max_depth);
    fn->est_state = 1;
    if ((rc = ts_build(c, prog, ty, fn, &g)))
        return rc;
    fn->built = g;
    if ((rc = estimate_block(c, prog, ty, g->top, depth, &sum)))
        return rc;
    fn->est = sum;
    fn->est_state = 2;
    return OPMAP_OK;
}

int ts_opt_precheck(ts_ctx *c, ts_prog *prog, ts_tys *ty, ts_func *fn)
{
    int rc = estimate(c, prog, ty, fn, 0);
    if (rc)
        return rc;
    if (fn->est / 64 > c->node_budget)
        return ts_fail(c, OPMAP_ELIMIT, fn->file->entry, fn->line, 1,
                       "calls from %s expand to about %" PRIu64 " nodes, over 64 x %" PRIu64
                       " (max_nodes, or max_heap_bytes / 512 when smaller)", fn->qual,
                       fn->est, c->node_budget);
    return OPMAP_OK;
}
