/*
 * readers/torchscript/container/pickle.c - a bounded, non-executing pickle reader for .debug_pkl
 * entries (see container/debug_pkl.h); data.pkl is container/root_module.c's.
 *
 * Opcodes build plain values on a stack in a scratch arena that is freed when the entry
 * is done. GLOBAL only names a function; REDUCE of torch.jit._pickle.build_* returns its
 * list argument, any other REDUCE/NEWOBJ/BUILD yields an opaque value. Memo indices are
 * bounded by the entry size, MARK nesting by max_pickle_depth.
 */
#include "readers/torchscript/container/debug_pkl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_TUPLE, PK_LIST, PK_DICT, PK_GLOBAL,
       PK_OPAQUE, PK_MARK };

typedef struct pk_obj {
    uint8_t t;
    int64_t i;
    const char *s;       /* PK_STR bytes, PK_GLOBAL "module name" */
    size_t slen;
    struct pk_obj **items;
    size_t n, cap;
    uint64_t *pre_len;   /* for source lists: cumulative byte lengths of the pieces */
    uint64_t *pre_nl;    /* and cumulative newline counts */
} pk_obj;

typedef struct pk {
    ts_ctx *c;
    const char *entry;
    const unsigned char *d;
    size_t len, pos;
    om_arena A;
    pk_obj **stack;
    size_t sp, scap;
    size_t *marks;
    size_t nmarks, mcap;
    pk_obj **memo;
    size_t memo_cap, memo_next;
    pk_obj none;
} pk;

static int pk_bad(pk *p, const char *what)
{
    return ts_fail_at(p->c, OPMAP_EFORMAT, p->entry, p->pos, "malformed pickle: %s", what);
}

static int pk_oom(pk *p)
{
    return ts_oom(p->c);
}

static pk_obj *obj(pk *p, int t)
{
    pk_obj *o = om_arena_alloc(&p->A, sizeof(*o));
    if (o)
        o->t = (uint8_t)t;
    return o;
}

static int push(pk *p, pk_obj *o)
{
    if (!o)
        return pk_oom(p);
    if (p->sp == p->scap) {
        size_t ncap = p->scap ? p->scap * 2 : 64;
        pk_obj **ns = om_realloc(p->c->mem, p->stack, p->scap * sizeof(*ns), ncap * sizeof(*ns));
        if (!ns)
            return pk_oom(p);
        p->stack = ns;
        p->scap = ncap;
    }
    p->stack[p->sp++] = o;
    return OPMAP_OK;
}

static pk_obj *pop(pk *p)
{
    if (p->sp == 0 || (p->nmarks && p->sp <= p->marks[p->nmarks - 1]))
        return NULL;
    return p->stack[--p->sp];
}

static int need(pk *p, size_t n)
{
    return p->len - p->pos >= n;
}

static uint64_t le(const unsigned char *b, int n)
{
    uint64_t v = 0;
    int k;
    for (k = n - 1; k >= 0; k--)
        v = v << 8 | b[k];
    return v;
}

static int list_add(pk *p, pk_obj *l, pk_obj *it)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        pk_obj **ni = om_arena_array(&p->A, ncap, sizeof(*ni));
        if (!ni)
            return pk_oom(p);
        if (l->n)
            memcpy(ni, l->items, l->n * sizeof(*ni));
        l->items = ni;
        l->cap = ncap;
    }
    l->items[l->n++] = it;
    return OPMAP_OK;
}

/* Pops everything above the last MARK into a new container of type t. */
static int pop_mark(pk *p, int t, pk_obj **out)
{
    size_t m, k;
    pk_obj *o;
    if (!p->nmarks)
        return pk_bad(p, "no MARK");
    m = p->marks[--p->nmarks];
    o = obj(p, t);
    if (!o)
        return pk_oom(p);
    o->n = o->cap = p->sp - m;
    if (o->n && !(o->items = om_arena_array(&p->A, o->n, sizeof(*o->items))))
        return pk_oom(p);
    for (k = 0; k < o->n; k++)
        o->items[k] = p->stack[m + k];
    p->sp = m;
    *out = o;
    return OPMAP_OK;
}

static int memo_put(pk *p, uint64_t idx)
{
    if (!p->sp)
        return pk_bad(p, "memo store on an empty stack");
    if (idx > p->len)
        return pk_bad(p, "memo index out of range");
    if (idx >= p->memo_cap) {
        size_t ncap = p->memo_cap ? p->memo_cap : 64;
        pk_obj **nm;
        while (ncap <= idx)
            ncap *= 2;
        nm = om_realloc(p->c->mem, p->memo, p->memo_cap * sizeof(*nm), ncap * sizeof(*nm));
        if (!nm)
            return pk_oom(p);
        memset(nm + p->memo_cap, 0, (ncap - p->memo_cap) * sizeof(*nm));
        p->memo = nm;
        p->memo_cap = ncap;
    }
    p->memo[idx] = p->stack[p->sp - 1];
    if (idx >= p->memo_next)
        p->memo_next = (size_t)idx + 1;
    return OPMAP_OK;
}

static int memo_get(pk *p, uint64_t idx)
{
    if (idx >= p->memo_cap || !p->memo[idx])
        return pk_bad(p, "memo index not set");
    return push(p, p->memo[idx]);
}

static int str_op(pk *p, size_t n, int t)
{
    pk_obj *o;
    if (!need(p, n))
        return pk_bad(p, "string runs past the end");
    if (n > p->c->lim->max_string_bytes)
        return ts_fail_at(p->c, OPMAP_ELIMIT, p->entry, p->pos,
                          "pickle string of %zu bytes, over max_string_bytes (%" PRIu32 ")", n,
                          p->c->lim->max_string_bytes);
    if (!(o = obj(p, t)))
        return pk_oom(p);
    o->s = (const char *)p->d + p->pos; /* borrowed: the entry outlives the pickle */
    o->slen = n;
    p->pos += n;
    return push(p, o);
}

static int is_build_list(const pk_obj *g)
{
    static const char *const names[] = {
        "torch.jit._pickle build_intlist", "torch.jit._pickle build_doublelist",
        "torch.jit._pickle build_boollist", "torch.jit._pickle build_tensorlist",
        "torch.jit._pickle build_genericlist", "torch.jit._pickle restore_type_tag"
    };
    size_t k;
    if (g->t != PK_GLOBAL)
        return 0;
    for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if (g->slen == strlen(names[k]) && memcmp(g->s, names[k], g->slen) == 0)
            return 1;
    return 0;
}

/* Runs the pickle to STOP; the result is left in *out. */
static int run(pk *p, pk_obj **out)
{
    int rc;
    for (;;) {
        unsigned char op;
        pk_obj *a, *b, *o;
        if (!need(p, 1))
            return pk_bad(p, "no STOP opcode (truncated?)");
        op = p->d[p->pos++];
        switch (op) {
        case 0x80: /* PROTO */
            if (!need(p, 1))
                return pk_bad(p, "truncated PROTO");
            p->pos++;
            break;
        case 0x95: /* FRAME */
            if (!need(p, 8))
                return pk_bad(p, "truncated FRAME");
            p->pos += 8;
            break;
        case '.': /* STOP */
            if (!(a = pop(p)))
                return pk_bad(p, "STOP on an empty stack");
            *out = a;
            return OPMAP_OK;
        case 'X': /* BINUNICODE */
        case 'T': /* BINSTRING */
        case 'B': /* BINBYTES */
            if (!need(p, 4))
                return pk_bad(p, "truncated length");
            {
                uint64_t n = le(p->d + p->pos, 4);
                p->pos += 4;
                if ((rc = str_op(p, (size_t)n, PK_STR)))
                    return rc;
            }
            break;
        case 0x8c: /* SHORT_BINUNICODE */
        case 'U':  /* SHORT_BINSTRING */
        case 'C':  /* SHORT_BINBYTES */
            if (!need(p, 1))
                return pk_bad(p, "truncated length");
            {
                size_t n = p->d[p->pos++];
                if ((rc = str_op(p, n, PK_STR)))
                    return rc;
            }
            break;
        case 0x8d: /* BINUNICODE8 */
        case 0x8e: /* BINBYTES8 */
            if (!need(p, 8))
                return pk_bad(p, "truncated length");
            {
                uint64_t n = le(p->d + p->pos, 8);
                p->pos += 8;
                if (n > p->len)
                    return pk_bad(p, "string runs past the end");
                if ((rc = str_op(p, (size_t)n, PK_STR)))
                    return rc;
            }
            break;
        case 'q': /* BINPUT */
            if (!need(p, 1))
                return pk_bad(p, "truncated BINPUT");
            if ((rc = memo_put(p, p->d[p->pos++])))
                return rc;
            break;
        case 'r': /* LONG_BINPUT */
            if (!need(p, 4))
                return pk_bad(p, "truncated LONG_BINPUT");
            p->pos += 4;
            if ((rc = memo_put(p, le(p->d + p->pos - 4, 4))))
                return rc;
            break;
        case 0x94: /* MEMOIZE */
            if ((rc = memo_put(p, p->memo_next)))
                return rc;
            break;
        case 'h': /* BINGET */
            if (!need(p, 1))
                return pk_bad(p, "truncated BINGET");
            if ((rc = memo_get(p, p->d[p->pos++])))
                return rc;
            break;
        case 'j': /* LONG_BINGET */
            if (!need(p, 4))
                return pk_bad(p, "truncated LONG_BINGET");
            p->pos += 4;
            if ((rc = memo_get(p, le(p->d + p->pos - 4, 4))))
                return rc;
            break;
        case '(': /* MARK */
            if (p->nmarks >= p->c->lim->max_pickle_depth)
                return ts_fail_at(p->c, OPMAP_ELIMIT, p->entry, p->pos,
                                  "pickle nested deeper than max_pickle_depth (%" PRIu32 ")",
                                  p->c->lim->max_pickle_depth);
            if (p->nmarks == p->mcap) {
                size_t ncap = p->mcap ? p->mcap * 2 : 16;
                size_t *nm = om_realloc(p->c->mem, p->marks, p->mcap * sizeof(*nm),
                                        ncap * sizeof(*nm));
                if (!nm)
                    return pk_oom(p);
                p->marks = nm;
                p->mcap = ncap;
            }
            p->marks[p->nmarks++] = p->sp;
            break;
        case 't': /* TUPLE */
            if ((rc = pop_mark(p, PK_TUPLE, &o)) || (rc = push(p, o)))
                return rc;
            break;
        case 'l': /* LIST */
            if ((rc = pop_mark(p, PK_LIST, &o)) || (rc = push(p, o)))
                return rc;
            break;
        case 'd': /* DICT */
            if ((rc = pop_mark(p, PK_DICT, &o)) || (rc = push(p, o)))
                return rc;
            break;
        case ')': /* EMPTY_TUPLE */
            if ((rc = push(p, obj(p, PK_TUPLE))))
                return rc;
            break;
        case ']': /* EMPTY_LIST */
            if ((rc = push(p, obj(p, PK_LIST))))
                return rc;
            break;
        case '}': /* EMPTY_DICT */
            if ((rc = push(p, obj(p, PK_DICT))))
                return rc;
            break;
        case 0x85: /* TUPLE1 */
        case 0x86: /* TUPLE2 */
        case 0x87: /* TUPLE3 */
        {
            size_t n = (size_t)(op - 0x84), k;
            if (p->sp < n || (p->nmarks && p->sp - n < p->marks[p->nmarks - 1]))
                return pk_bad(p, "TUPLEn on a short stack");
            if (!(o = obj(p, PK_TUPLE)) ||
                !(o->items = om_arena_array(&p->A, n, sizeof(*o->items))))
                return pk_oom(p);
            o->n = o->cap = n;
            for (k = 0; k < n; k++)
                o->items[k] = p->stack[p->sp - n + k];
            p->sp -= n;
            if ((rc = push(p, o)))
                return rc;
            break;
        }
        case 'a': /* APPEND */
            if (!(b = pop(p)) || !p->sp)
                return pk_bad(p, "APPEND on a short stack");
            a = p->stack[p->sp - 1];
            if (a->t == PK_LIST && (rc = list_add(p, a, b)))
                return rc;
            break;
        case 'e': /* APPENDS */
        {
            size_t m, k;
            if (!p->nmarks)
                return pk_bad(p, "APPENDS without MARK");
            m = p->marks[--p->nmarks];
            if (m == 0)
                return pk_bad(p, "APPENDS without a list");
            a = p->stack[m - 1];
            for (k = m; k < p->sp && a->t == PK_LIST; k++)
                if ((rc = list_add(p, a, p->stack[k])))
                    return rc;
            p->sp = m;
            break;
        }
        case 's': /* SETITEM */
            if (!pop(p) || !pop(p) || !p->sp)
                return pk_bad(p, "SETITEM on a short stack");
            break;
        case 'u': /* SETITEMS */
        {
            size_t m;
            if (!p->nmarks)
                return pk_bad(p, "SETITEMS without MARK");
            m = p->marks[--p->nmarks];
            if (m == 0)
                return pk_bad(p, "SETITEMS without a dict");
            p->sp = m;
            break;
        }
        case 'J': /* BININT */
            if (!need(p, 4))
                return pk_bad(p, "truncated BININT");
            if (!(o = obj(p, PK_INT)))
                return pk_oom(p);
            o->i = (int32_t)(uint32_t)le(p->d + p->pos, 4);
            p->pos += 4;
            if ((rc = push(p, o)))
                return rc;
            break;
        case 'K': /* BININT1 */
        case 'M': /* BININT2 */
        {
            int n = op == 'K' ? 1 : 2;
            if (!need(p, (size_t)n))
                return pk_bad(p, "truncated BININT");
            if (!(o = obj(p, PK_INT)))
                return pk_oom(p);
            o->i = (int64_t)le(p->d + p->pos, n);
            p->pos += (size_t)n;
            if ((rc = push(p, o)))
                return rc;
            break;
        }
        case 0x8a: /* LONG1 */
        {
            size_t n;
            if (!need(p, 1))
                return pk_bad(p, "truncated LONG1");
            n = p->d[p->pos++];
            if (!need(p, n))
                return pk_bad(p, "truncated LONG1");
            if (!(o = obj(p, n <= 8 ? PK_INT : PK_OPAQUE)))
                return pk_oom(p);
            if (n && n <= 8) {
                uint64_t v = le(p->d + p->pos, (int)n);
                if (n < 8 && (p->d[p->pos + n - 1] & 0x80))
                    v |= ~(uint64_t)0 << (8 * n);
                o->i = (int64_t)v;
            }
            p->pos += n;
            if ((rc = push(p, o)))
                return rc;
            break;
        }
        case 'G': /* BINFLOAT */
            if (!need(p, 8))
                return pk_bad(p, "truncated BINFLOAT");
            p->pos += 8;
            if ((rc = push(p, obj(p, PK_FLOAT))))
                return rc;
            break;
        case 'N':
            if ((rc = push(p, &p->none)))
                return rc;
            break;
        case 0x88: /* NEWTRUE */
        case 0x89: /* NEWFALSE */
            if (!(o = obj(p, PK_BOOL)))
                return pk_oom(p);
            o->i = op == 0x88;
            if ((rc = push(p, o)))
                return rc;
            break;
        case 'c': /* GLOBAL "module\nname\n" */
        {
            const unsigned char *nl1, *nl2;
            size_t room = p->len - p->pos, n;
            char *s;
            nl1 = memchr(p->d + p->pos, '\n', room);
            nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(p->d + p->len - nl1 - 1)) : NULL;
            if (!nl2)
                return pk_bad(p, "truncated GLOBAL");
            n = (size_t)(nl2 - (p->d + p->pos));
            if (!(o = obj(p, PK_GLOBAL)) || !(s = om_arena_strndup(&p->A,
                                                                   (const char *)p->d + p->pos,
                                                                   n)))
                return pk_oom(p);
            s[nl1 - (p->d + p->pos)] = ' ';
            o->s = s;
            o->slen = n;
            p->pos += n + 1;
            if ((rc = push(p, o)))
                return rc;
            break;
        }
        case 0x93: /* STACK_GLOBAL */
            if (!(b = pop(p)) || !(a = pop(p)))
                return pk_bad(p, "STACK_GLOBAL on a short stack");
            if (!(o = obj(p, PK_GLOBAL)))
                return pk_oom(p);
            if (a->t == PK_STR && b->t == PK_STR) {
                char *s = om_arena_alloc(&p->A, a->slen + b->slen + 2);
                if (!s)
                    return pk_oom(p);
                memcpy(s, a->s, a->slen);
                s[a->slen] = ' ';
                memcpy(s + a->slen + 1, b->s, b->slen);
                o->s = s;
                o->slen = a->slen + b->slen + 1;
            }
            if ((rc = push(p, o)))
                return rc;
            break;
        case 'R': /* REDUCE: never calls; build_*list(args) is its argument */
            if (!(b = pop(p)) || !(a = pop(p)))
                return pk_bad(p, "REDUCE on a short stack");
            if (is_build_list(a) && b->t == PK_TUPLE && b->n >= 1)
                o = b->items[0];
            else
                o = obj(p, PK_OPAQUE);
            if ((rc = push(p, o)))
                return rc;
            break;
        case 0x81: /* NEWOBJ */
            if (!pop(p) || !pop(p))
                return pk_bad(p, "NEWOBJ on a short stack");
            if ((rc = push(p, obj(p, PK_OPAQUE))))
                return rc;
            break;
        case 'b': /* BUILD */
            if (!pop(p) || !p->sp)
                return pk_bad(p, "BUILD on a short stack");
            break;
        case 'Q': /* BINPERSID */
            if (!pop(p))
                return pk_bad(p, "BINPERSID on an empty stack");
            if ((rc = push(p, obj(p, PK_OPAQUE))))
                return rc;
            break;
        case '0': /* POP */
            if (p->nmarks && p->sp == p->marks[p->nmarks - 1])
                p->nmarks--;
            else if (!pop(p))
                return pk_bad(p, "POP on an empty stack");
            break;
        case '1': /* POP_MARK */
            if (!p->nmarks)
                return pk_bad(p, "POP_MARK without MARK");
            p->sp = p->marks[--p->nmarks];
            break;
        case '2': /* DUP */
            if (!p->sp)
                return pk_bad(p, "DUP on an empty stack");
            if ((rc = push(p, p->stack[p->sp - 1])))
                return rc;
            break;
        default:
            p->pos--;
            return ts_fail_at(p->c, OPMAP_EFORMAT, p->entry, p->pos,
                              "unsupported pickle opcode 0x%02x", op);
        }
    }
}

/* ---- debug records ---- */

static const pk_obj *item(const pk_obj *o, size_t i, int t)
{
    if (!o || (o->t != PK_TUPLE && o->t != PK_LIST) || i >= o->n)
        return NULL;
    if (t >= 0 && o->items[i]->t != t)
        return NULL;
    return o->items[i];
}

static uint32_t count_nl(const char *s, size_t n)
{
    uint32_t k = 0;
    const char *e = s + n;
    while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
        k++;
        s++;
    }
    return k;
}

/* Newlines before byte `start` of the text made of the string-table pieces in `list`. */
static int lines_before(pk *p, pk_obj *list, const pk_obj *table, uint64_t start, uint64_t *nl)
{
    size_t k, lo, hi;
    if (!list->pre_len) {
        uint64_t tl = 0, tn = 0;
        if (!(list->pre_len = om_arena_array(&p->A, list->n + 1, sizeof(uint64_t))) ||
            !(list->pre_nl = om_arena_array(&p->A, list->n + 1, sizeof(uint64_t))))
            return pk_oom(p);
        for (k = 0; k < list->n; k++) {
            const pk_obj *ix = list->items[k], *s;
            if (ix->t != PK_INT || ix->i < 0 || !(s = item(table, (size_t)ix->i, PK_STR)))
                return pk_bad(p, "source text index out of the string table");
            list->pre_len[k] = tl;
            list->pre_nl[k] = tn;
            tl += s->slen;
            tn += count_nl(s->s, s->slen);
        }
        list->pre_len[list->n] = tl;
        list->pre_nl[list->n] = tn;
    }
    /* the last piece starting at or before `start` */
    lo = 0;
    hi = list->n;
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        if (list->pre_len[mid] <= start)
            lo = mid;
        else
            hi = mid;
    }
    *nl = 0;
    if (!list->n)
        return OPMAP_OK;
    {
        const pk_obj *s = item(table, (size_t)list->items[lo]->i, PK_STR);
        uint64_t in = start - list->pre_len[lo];
        *nl = list->pre_nl[lo] + count_nl(s->s, in < s->slen ? (size_t)in : s->slen);
    }
    return OPMAP_OK;
}

static int cmp_rec(const void *a, const void *b)
{
    const tsc_debug_rec *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int extract(pk *p, pk_obj *top, tsc_debug_map *out)
{
    const pk_obj *table = NULL, *recs = top;
    size_t k;
    int sorted = 1;
    if (item(top, 0, PK_STR) && top->n == 3 && top->items[0]->slen == 24 &&
        memcmp(top->items[0]->s, "FORMAT_WITH_STRING_TABLE", 24) == 0) {
        table = item(top, 1, PK_TUPLE);
        recs = item(top, 2, PK_TUPLE);
        if (!table || !recs)
            return pk_bad(p, "not a debug-info string table and records");
    } else if (!top || top->t != PK_TUPLE) {
        return pk_bad(p, "not a tuple of debug records");
    }
    out->n = 0;
    if (!recs->n)
        return OPMAP_OK;
    if (!(out->recs = om_arena_array(&p->c->tmp, recs->n, sizeof(*out->recs))))
        return pk_oom(p);
    for (k = 0; k < recs->n; k++) {
        const pk_obj *r = recs->items[k], *off = item(r, 0, PK_INT), *range = item(r, 1, -1);
        const pk_obj *source = item(range, 0, -1), *start = item(range, 1, PK_INT);
        tsc_debug_rec *d = &out->recs[out->n];
        const pk_obj *fname = NULL, *lineno;
        uint64_t nl = 0;
        int rc;
        if (!off || off->i < 0 || !range || !source || !start || start->i < 0)
            return pk_bad(p, "malformed debug record");
        d->off = (uint64_t)off->i;
        lineno = item(source, 2, PK_INT);
        if (table) {
            const pk_obj *fi = item(source, 1, PK_INT);
            pk_obj *text = source->n > 0 ? source->items[0] : NULL;
            if (!fi || !lineno || !text || text->t != PK_LIST)
                return pk_bad(p, "malformed debug source");
            if (fi->i > 0) {
                fname = item(table, (size_t)fi->i, PK_STR);
                if (!fname)
                    return pk_bad(p, "file index out of the string table");
            }
            if (fname && (rc = lines_before(p, text, table, (uint64_t)start->i, &nl)))
                return rc;
        } else {
            const pk_obj *text = item(source, 0, PK_STR);
            fname = item(source, 1, PK_STR);
            if (!lineno)
                return pk_bad(p, "malformed debug source");
            if (fname && text)
                nl = count_nl(text->s, (uint64_t)start->i < text->slen ? (size_t)start->i
                                                                        : text->slen);
        }
        if (fname && fname->slen && lineno->i > 0) {
            char *tmp = om_arena_strndup(&p->A, fname->s, fname->slen);
            if (!tmp || !(d->file = ts_intern_model(p->c, tmp)))
                return pk_oom(p);
            d->line = (uint32_t)((uint64_t)lineno->i + nl > UINT32_MAX ? UINT32_MAX
                                                                       : lineno->i + nl);
        }
        if (out->n && d->off < out->recs[out->n - 1].off)
            sorted = 0;
        out->n++;
    }
    if (!sorted)
        qsort(out->recs, out->n, sizeof(*out->recs), cmp_rec);
    return OPMAP_OK;
}

int tsc_debug_read(ts_ctx *c, const char *entry, const unsigned char *data, size_t len,
                  tsc_debug_map *out)
{
    pk p;
    pk_obj *top = NULL;
    int rc;
    memset(&p, 0, sizeof(p));
    memset(out, 0, sizeof(*out));
    p.c = c;
    p.entry = entry;
    p.d = data;
    p.len = len;
    p.none.t = PK_NONE;
    om_arena_init(&p.A, c->mem, 64 * 1024);
    rc = run(&p, &top);
    if (rc == OPMAP_OK)
        rc = extract(&p, top, out);
    if (p.stack)
        om_dealloc(c->mem, p.stack, p.scap * sizeof(*p.stack));
    if (p.marks)
        om_dealloc(c->mem, p.marks, p.mcap * sizeof(*p.marks));
    if (p.memo)
        om_dealloc(c->mem, p.memo, p.memo_cap * sizeof(*p.memo));
    om_arena_free(&p.A);
    return rc;
}

int tsc_debug_find(const tsc_debug_map *d, uint64_t off, const char **file, uint32_t *line)
{
    size_t lo = 0, hi = d->n;
    if (!d->n || d->recs[0].off > off)
        return 0;
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        if (d->recs[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    if (!d->recs[lo].file)
        return 0;
    *file = d->recs[lo].file;
    *line = d->recs[lo].line;
    return 1;
}
