/*
 * readers/torchscript/container/pickle.c - the pickle machine (see container/pickle.h).
 *
 * Opcodes build plain values on a stack in a scratch arena that is freed when the entry
 * is done. GLOBAL only names a function; REDUCE of torch.jit._pickle.build_* returns its
 * list argument, any other REDUCE/NEWOBJ/BUILD yields an opaque value. Memo indices are
 * bounded by the entry size, MARK nesting by max_pickle_depth. The opcode switch is one
 * function per family of opcodes.
 */
#include "pickle.h"

#include <inttypes.h>
#include <string.h>

/* An opcode family's answer for an opcode that is not one of its own (statuses are <= 0). */
enum { NOT_MINE = 1 };

void tsc_pickle_init(tsc_pickle *p, ts_ctx *c, const char *entry, const unsigned char *data,
                     size_t len)
{
    memset(p, 0, sizeof(*p));
    p->c = c;
    p->entry = entry;
    p->d = data;
    p->len = len;
    p->none.t = TSC_PICKLE_NONE;
    om_arena_init(&p->arena, c->mem, 64 * 1024);
}

void tsc_pickle_fini(tsc_pickle *p)
{
    if (p->stack)
        om_dealloc(p->c->mem, p->stack, p->scap * sizeof(*p->stack));
    if (p->marks)
        om_dealloc(p->c->mem, p->marks, p->mcap * sizeof(*p->marks));
    if (p->memo)
        om_dealloc(p->c->mem, p->memo, p->memo_cap * sizeof(*p->memo));
    om_arena_free(&p->arena);
}

int tsc_pickle_bad(tsc_pickle *p, const char *what)
{
    return ts_fail_at(p->c, OPMAP_EFORMAT, p->entry, p->pos, "malformed pickle: %s", what);
}

static tsc_pickle_value *obj(tsc_pickle *p, int t)
{
    tsc_pickle_value *o = om_arena_alloc(&p->arena, sizeof(*o));
    if (o)
        o->t = (uint8_t)t;
    return o;
}

static int push(tsc_pickle *p, tsc_pickle_value *o)
{
    if (!o)
        return ts_oom(p->c);
    if (p->sp == p->scap) {
        size_t ncap = p->scap ? p->scap * 2 : 64;
        tsc_pickle_value **ns = om_realloc(p->c->mem, p->stack, p->scap * sizeof(*ns), ncap * sizeof(*ns));
        if (!ns)
            return ts_oom(p->c);
        p->stack = ns;
        p->scap = ncap;
    }
    p->stack[p->sp++] = o;
    return OPMAP_OK;
}

static tsc_pickle_value *pop(tsc_pickle *p)
{
    if (p->sp == 0 || (p->nmarks && p->sp <= p->marks[p->nmarks - 1]))
        return NULL;
    return p->stack[--p->sp];
}

static int need(tsc_pickle *p, size_t n)
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

static int list_add(tsc_pickle *p, tsc_pickle_value *l, tsc_pickle_value *it)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        tsc_pickle_value **ni = om_arena_array(&p->arena, ncap, sizeof(*ni));
        if (!ni)
            return ts_oom(p->c);
        if (l->n)
            memcpy(ni, l->items, l->n * sizeof(*ni));
        l->items = ni;
        l->cap = ncap;
    }
    l->items[l->n++] = it;
    return OPMAP_OK;
}

/* Pops everything above the last MARK into a new container of type t. */
static int pop_mark(tsc_pickle *p, int t, tsc_pickle_value **out)
{
    size_t m, k;
    tsc_pickle_value *o;
    if (!p->nmarks)
        return tsc_pickle_bad(p, "no MARK");
    m = p->marks[--p->nmarks];
    o = obj(p, t);
    if (!o)
        return ts_oom(p->c);
    o->n = o->cap = p->sp - m;
    if (o->n && !(o->items = om_arena_array(&p->arena, o->n, sizeof(*o->items))))
        return ts_oom(p->c);
    for (k = 0; k < o->n; k++)
        o->items[k] = p->stack[m + k];
    p->sp = m;
    *out = o;
    return OPMAP_OK;
}

static int memo_put(tsc_pickle *p, uint64_t idx)
{
    if (!p->sp)
        return tsc_pickle_bad(p, "memo store on an empty stack");
    if (idx > p->len)
        return tsc_pickle_bad(p, "memo index out of range");
    if (idx >= p->memo_cap) {
        size_t ncap = p->memo_cap ? p->memo_cap : 64;
        tsc_pickle_value **nm;
        while (ncap <= idx)
            ncap *= 2;
        nm = om_realloc(p->c->mem, p->memo, p->memo_cap * sizeof(*nm), ncap * sizeof(*nm));
        if (!nm)
            return ts_oom(p->c);
        memset(nm + p->memo_cap, 0, (ncap - p->memo_cap) * sizeof(*nm));
        p->memo = nm;
        p->memo_cap = ncap;
    }
    p->memo[idx] = p->stack[p->sp - 1];
    if (idx >= p->memo_next)
        p->memo_next = (size_t)idx + 1;
    return OPMAP_OK;
}

static int memo_get(tsc_pickle *p, uint64_t idx)
{
    if (idx >= p->memo_cap || !p->memo[idx])
        return tsc_pickle_bad(p, "memo index not set");
    return push(p, p->memo[idx]);
}

static int str_op(tsc_pickle *p, size_t n, int t)
{
    tsc_pickle_value *o;
    if (!need(p, n))
        return tsc_pickle_bad(p, "string runs past the end");
    if (n > p->c->lim->max_string_bytes)
        return ts_fail_at(p->c, OPMAP_ELIMIT, p->entry, p->pos,
                          "pickle string of %zu bytes, over max_string_bytes (%" PRIu32 ")", n,
                          p->c->lim->max_string_bytes);
    if (!(o = obj(p, t)))
        return ts_oom(p->c);
    o->s = (const char *)p->d + p->pos; /* borrowed: the entry outlives the pickle */
    o->slen = n;
    p->pos += n;
    return push(p, o);
}

static int is_build_list(const tsc_pickle_value *g)
{
    static const char *const names[] = {
        "torch.jit._pickle build_intlist", "torch.jit._pickle build_doublelist",
        "torch.jit._pickle build_boollist", "torch.jit._pickle build_tensorlist",
        "torch.jit._pickle build_genericlist", "torch.jit._pickle restore_type_tag"
    };
    size_t k;
    if (g->t != TSC_PICKLE_GLOBAL)
        return 0;
    for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if (g->slen == strlen(names[k]) && memcmp(g->s, names[k], g->slen) == 0)
            return 1;
    return 0;
}

/* Framing (PROTO, FRAME) and the stack itself (POP, POP_MARK, DUP). */
static int op_framing_and_stack(tsc_pickle *p, unsigned char op)
{
    int rc;
    switch (op) {
    case 0x80: /* PROTO */
        if (!need(p, 1))
            return tsc_pickle_bad(p, "truncated PROTO");
        p->pos++;
        break;
    case 0x95: /* FRAME */
        if (!need(p, 8))
            return tsc_pickle_bad(p, "truncated FRAME");
        p->pos += 8;
        break;
    case '0': /* POP */
        if (p->nmarks && p->sp == p->marks[p->nmarks - 1])
            p->nmarks--;
        else if (!pop(p))
            return tsc_pickle_bad(p, "POP on an empty stack");
        break;
    case '1': /* POP_MARK */
        if (!p->nmarks)
            return tsc_pickle_bad(p, "POP_MARK without MARK");
        p->sp = p->marks[--p->nmarks];
        break;
    case '2': /* DUP */
        if (!p->sp)
            return tsc_pickle_bad(p, "DUP on an empty stack");
        if ((rc = push(p, p->stack[p->sp - 1])))
            return rc;
        break;
    default:
        return NOT_MINE;
    }
    return OPMAP_OK;
}

/* Strings and bytes: BINUNICODE, BINSTRING, BINBYTES and their short and 8-byte forms. */
static int op_string(tsc_pickle *p, unsigned char op)
{
    int rc;
    switch (op) {
    case 'X': /* BINUNICODE */
    case 'T': /* BINSTRING */
    case 'B': /* BINBYTES */
        if (!need(p, 4))
            return tsc_pickle_bad(p, "truncated length");
        {
            uint64_t n = le(p->d + p->pos, 4);
            p->pos += 4;
            if ((rc = str_op(p, (size_t)n, TSC_PICKLE_STR)))
                return rc;
        }
        break;
    case 0x8c: /* SHORT_BINUNICODE */
    case 'U':  /* SHORT_BINSTRING */
    case 'C':  /* SHORT_BINBYTES */
        if (!need(p, 1))
            return tsc_pickle_bad(p, "truncated length");
        {
            size_t n = p->d[p->pos++];
            if ((rc = str_op(p, n, TSC_PICKLE_STR)))
                return rc;
        }
        break;
    case 0x8d: /* BINUNICODE8 */
    case 0x8e: /* BINBYTES8 */
        if (!need(p, 8))
            return tsc_pickle_bad(p, "truncated length");
        {
            uint64_t n = le(p->d + p->pos, 8);
            p->pos += 8;
            if (n > p->len)
                return tsc_pickle_bad(p, "string runs past the end");
            if ((rc = str_op(p, (size_t)n, TSC_PICKLE_STR)))
                return rc;
        }
        break;
    default:
        return NOT_MINE;
    }
    return OPMAP_OK;
}

/* The memo: BINPUT, LONG_BINPUT, MEMOIZE, BINGET, LONG_BINGET. */
static int op_memo(tsc_pickle *p, unsigned char op)
{
    int rc;
    switch (op) {
    case 'q': /* BINPUT */
        if (!need(p, 1))
            return tsc_pickle_bad(p, "truncated BINPUT");
        if ((rc = memo_put(p, p->d[p->pos++])))
            return rc;
        break;
    case 'r': /* LONG_BINPUT */
        if (!need(p, 4))
            return tsc_pickle_bad(p, "truncated LONG_BINPUT");
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
            return tsc_pickle_bad(p, "truncated BINGET");
        if ((rc = memo_get(p, p->d[p->pos++])))
            return rc;
        break;
    case 'j': /* LONG_BINGET */
        if (!need(p, 4))
            return tsc_pickle_bad(p, "truncated LONG_BINGET");
        p->pos += 4;
        if ((rc = memo_get(p, le(p->d + p->pos - 4, 4))))
            return rc;
        break;
    default:
        return NOT_MINE;
    }
    return OPMAP_OK;
}

/* MARK and what it delimits: tuples, lists, dicts, their items. */
static int op_container(tsc_pickle *p, unsigned char op)
{
    tsc_pickle_value *a, *b, *o;
    int rc;
    switch (op) {
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
                return ts_oom(p->c);
            p->marks = nm;
            p->mcap = ncap;
        }
        p->marks[p->nmarks++] = p->sp;
        break;
    case 't': /* TUPLE */
        if ((rc = pop_mark(p, TSC_PICKLE_TUPLE, &o)) || (rc = push(p, o)))
            return rc;
        break;
    case 'l': /* LIST */
        if ((rc = pop_mark(p, TSC_PICKLE_LIST, &o)) || (rc = push(p, o)))
            return rc;
        break;
    case 'd': /* DICT */
        if ((rc = pop_mark(p, TSC_PICKLE_DICT, &o)) || (rc = push(p, o)))
            return rc;
        break;
    case ')': /* EMPTY_TUPLE */
        if ((rc = push(p, obj(p, TSC_PICKLE_TUPLE))))
            return rc;
        break;
    case ']': /* EMPTY_LIST */
        if ((rc = push(p, obj(p, TSC_PICKLE_LIST))))
            return rc;
        break;
    case '}': /* EMPTY_DICT */
        if ((rc = push(p, obj(p, TSC_PICKLE_DICT))))
            return rc;
        break;
    case 0x85: /* TUPLE1 */
    case 0x86: /* TUPLE2 */
    case 0x87: /* TUPLE3 */
    {
        size_t n = (size_t)(op - 0x84), k;
        if (p->sp < n || (p->nmarks && p->sp - n < p->marks[p->nmarks - 1]))
            return tsc_pickle_bad(p, "TUPLEn on a short stack");
        if (!(o = obj(p, TSC_PICKLE_TUPLE)) ||
            !(o->items = om_arena_array(&p->arena, n, sizeof(*o->items))))
            return ts_oom(p->c);
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
            return tsc_pickle_bad(p, "APPEND on a short stack");
        a = p->stack[p->sp - 1];
        if (a->t == TSC_PICKLE_LIST && (rc = list_add(p, a, b)))
            return rc;
        break;
    case 'e': /* APPENDS */
    {
        size_t m, k;
        if (!p->nmarks)
            return tsc_pickle_bad(p, "APPENDS without MARK");
        m = p->marks[--p->nmarks];
        if (m == 0)
            return tsc_pickle_bad(p, "APPENDS without a list");
        a = p->stack[m - 1];
        for (k = m; k < p->sp && a->t == TSC_PICKLE_LIST; k++)
            if ((rc = list_add(p, a, p->stack[k])))
                return rc;
        p->sp = m;
        break;
    }
    case 's': /* SETITEM */
        if (!pop(p) || !pop(p) || !p->sp)
            return tsc_pickle_bad(p, "SETITEM on a short stack");
        break;
    case 'u': /* SETITEMS */
    {
        size_t m;
        if (!p->nmarks)
            return tsc_pickle_bad(p, "SETITEMS without MARK");
        m = p->marks[--p->nmarks];
        if (m == 0)
            return tsc_pickle_bad(p, "SETITEMS without a dict");
        p->sp = m;
        break;
    }
    default:
        return NOT_MINE;
    }
    return OPMAP_OK;
}

/* Ints, floats, None and booleans. */
static int op_scalar(tsc_pickle *p, unsigned char op)
{
    tsc_pickle_value *o;
    int rc;
    switch (op) {
    case 'J': /* BININT */
        if (!need(p, 4))
            return tsc_pickle_bad(p, "truncated BININT");
        if (!(o = obj(p, TSC_PICKLE_INT)))
            return ts_oom(p->c);
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
            return tsc_pickle_bad(p, "truncated BININT");
        if (!(o = obj(p, TSC_PICKLE_INT)))
            return ts_oom(p->c);
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
            return tsc_pickle_bad(p, "truncated LONG1");
        n = p->d[p->pos++];
        if (!need(p, n))
            return tsc_pickle_bad(p, "truncated LONG1");
        if (!(o = obj(p, n <= 8 ? TSC_PICKLE_INT : TSC_PICKLE_OPAQUE)))
            return ts_oom(p->c);
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
            return tsc_pickle_bad(p, "truncated BINFLOAT");
        p->pos += 8;
        if ((rc = push(p, obj(p, TSC_PICKLE_FLOAT))))
            return rc;
        break;
    case 'N':
        if ((rc = push(p, &p->none)))
            return rc;
        break;
    case 0x88: /* NEWTRUE */
    case 0x89: /* NEWFALSE */
        if (!(o = obj(p, TSC_PICKLE_BOOL)))
            return ts_oom(p->c);
        o->i = op == 0x88;
        if ((rc = push(p, o)))
            return rc;
        break;
    default:
        return NOT_MINE;
    }
    return OPMAP_OK;
}

/* Names and what would call them: GLOBAL, STACK_GLOBAL, REDUCE, NEWOBJ, BUILD, BINPERSID. */
static int op_global(tsc_pickle *p, unsigned char op)
{
    tsc_pickle_value *a, *b, *o;
    int rc;
    switch (op) {
    case 'c': /* GLOBAL "module\nname\n" */
    {
        const unsigned char *nl1, *nl2;
        size_t room = p->len - p->pos, n;
        char *s;
        nl1 = memchr(p->d + p->pos, '\n', room);
        nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(p->d + p->len - nl1 - 1)) : NULL;
        if (!nl2)
            return tsc_pickle_bad(p, "truncated GLOBAL");
        n = (size_t)(nl2 - (p->d + p->pos));
        if (!(o = obj(p, TSC_PICKLE_GLOBAL)) || !(s = om_arena_strndup(&p->arena,
                                                               (const char *)p->d + p->pos,
                                                               n)))
            return ts_oom(p->c);
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
            return tsc_pickle_bad(p, "STACK_GLOBAL on a short stack");
        if (!(o = obj(p, TSC_PICKLE_GLOBAL)))
            return ts_oom(p->c);
        if (a->t == TSC_PICKLE_STR && b->t == TSC_PICKLE_STR) {
            char *s = om_arena_alloc(&p->arena, a->slen + b->slen + 2);
            if (!s)
                return ts_oom(p->c);
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
            return tsc_pickle_bad(p, "REDUCE on a short stack");
        if (is_build_list(a) && b->t == TSC_PICKLE_TUPLE && b->n >= 1)
            o = b->items[0];
        else
            o = obj(p, TSC_PICKLE_OPAQUE);
        if ((rc = push(p, o)))
            return rc;
        break;
    case 0x81: /* NEWOBJ */
        if (!pop(p) || !pop(p))
            return tsc_pickle_bad(p, "NEWOBJ on a short stack");
        if ((rc = push(p, obj(p, TSC_PICKLE_OPAQUE))))
            return rc;
        break;
    case 'b': /* BUILD */
        if (!pop(p) || !p->sp)
            return tsc_pickle_bad(p, "BUILD on a short stack");
        break;
    case 'Q': /* BINPERSID */
        if (!pop(p))
            return tsc_pickle_bad(p, "BINPERSID on an empty stack");
        if ((rc = push(p, obj(p, TSC_PICKLE_OPAQUE))))
            return rc;
        break;
    default:
        return NOT_MINE;
    }
    return OPMAP_OK;
}

/* The opcode families; each returns NOT_MINE for an opcode of another. */
static int (*const families[])(tsc_pickle *, unsigned char) = {
    op_framing_and_stack, op_string, op_memo, op_container, op_scalar, op_global
};

/* STOP ends the run; every other opcode goes to its family. */
int tsc_pickle_run(tsc_pickle *p, tsc_pickle_value **out)
{
    for (;;) {
        unsigned char op;
        size_t k;
        int rc = NOT_MINE;
        if (!need(p, 1))
            return tsc_pickle_bad(p, "no STOP opcode (truncated?)");
        op = p->d[p->pos++];
        if (op == '.') { /* STOP */
            tsc_pickle_value *a = pop(p);
            if (!a)
                return tsc_pickle_bad(p, "STOP on an empty stack");
            *out = a;
            return OPMAP_OK;
        }
        for (k = 0; k < sizeof(families) / sizeof(families[0]) && rc == NOT_MINE; k++)
            rc = families[k](p, op);
        if (rc == NOT_MINE) {
            p->pos--;
            return ts_fail_at(p->c, OPMAP_EFORMAT, p->entry, p->pos,
                              "unsupported pickle opcode 0x%02x", op);
        }
        if (rc)
            return rc;
    }
}
