/*
 * readers/torchscript/root_module.c - data.pkl run as torch.jit.load's unpickler runs
 * it, for the class of the root object (see container/root_module.h).
 *
 * Values are kinds only (an int keeps its value: torch's BUILD and REDUCE take any int as
 * an index into the function table). The function table follows torch's readGlobal: its
 * special names, custom classes (__torch__.torch.classes.*), then classes of code/. Where
 * torch's read fails, this one fails; where torch's could go on and this one cannot
 * follow, it fails too, so the class it returns is the one torch builds.
 */
#include "root_module.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { V_NONE, V_BOOL, V_INT, V_ENUMINT, V_FLOAT, V_STR, V_TUPLE, V_LIST, V_DICT, V_OBJ,
       V_TENSOR, V_OTHER };

/* what a function of the table does to its argument (the top of the stack) */
enum { F_CLASS, F_OPAQUE, F_LIST, F_NO_TABLE, F_INTLIST, F_TENSOR, F_TUPLE_OTHER, F_TO_NONE };

typedef struct rval {
    uint8_t t;
    int64_t i;            /* V_INT; V_DICT: its record (dicts), 1-based, 0 = none */
    tsl_class *k;          /* V_OBJ */
    const unsigned char *s;  /* V_STR: the bytes in data.pkl, while it runs */
    uint32_t slen;
} rval;

/* What a dict holds that an interface call may reach: string keys of object values. Each
 * dict's entries are a list through `next` (1-based, 0 ends it). */
typedef struct rentry {
    const char *key;       /* interned */
    tsl_class *value;
    uint32_t next;
} rentry;

typedef struct rdict {
    uint32_t head;
    const tsl_class *built_as; /* the class whose state it last was: its holds are recorded */
} rdict;

typedef struct rfun {
    uint8_t kind;
    tsl_class *k;          /* F_CLASS */
} rfun;

typedef struct rvm {
    ts_ctx *c;
    const tsl_program *prog;
    const char *entry;
    const unsigned char *d;
    size_t len, pos, op_at;
    rval *st;
    size_t sp, scap;
    size_t *marks;
    size_t nm, mcap;
    rval *memo;
    size_t memo_n, memo_cap;
    rfun *fn;
    size_t nfn, fcap;
    int skip;             /* torch's skip_next_read_global */
    tsl_program *prog_w;  /* where the holds go (prog->held) */
    rdict *dicts;
    size_t ndicts, dcap;
    rentry *ents;
    size_t nents, ecap;
    uint64_t hold_work;   /* entries walked by BUILD, held to 8 x the pickle's length */
    uint32_t *htab;       /* prog->held indices + 1, hashed on (owner, attr, value) */
    size_t hcap;
} rvm;

static int fail(rvm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(rvm *v, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ts_fail_at(v->c, OPMAP_EFORMAT, v->entry, v->op_at, "%s", msg);
}

/* Room for `need` elements of `elem` bytes in *p (capacity *cap). */
static int grow(rvm *v, void **p, size_t *cap, size_t elem, size_t need)
{
    size_t ncap = *cap ? *cap : 16;
    void *np;
    if (need <= *cap)
        return OPMAP_OK;
    while (ncap < need)
        ncap *= 2;
    if (!(np = om_realloc(v->c->mem, *p, *cap * elem, ncap * elem)))
        return ts_oom(v->c);
    memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
    *p = np;
    *cap = ncap;
    return OPMAP_OK;
}

static int push(rvm *v, int t, int64_t i, tsl_class *k)
{
    int rc = grow(v, (void **)&v->st, &v->scap, sizeof(*v->st), v->sp + 1);
    if (rc)
        return rc;
    v->st[v->sp].t = (uint8_t)t;
    v->st[v->sp].i = i;
    v->st[v->sp].k = k;
    v->st[v->sp].s = NULL;
    v->st[v->sp].slen = 0;
    v->sp++;
    return OPMAP_OK;
}

/* A new dict on the stack, with a record for what it will hold. */
static int push_dict(rvm *v)
{
    int rc = grow(v, (void **)&v->dicts, &v->dcap, sizeof(*v->dicts), v->ndicts + 1);
    if (rc)
        return rc;
    v->dicts[v->ndicts].head = 0;
    v->dicts[v->ndicts].built_as = NULL;
    v->ndicts++;
    return push(v, V_DICT, (int64_t)v->ndicts, NULL);
}

/* key -> value stored into dict d (a record index, 1-based): kept when the key is a string
 * and the value an object of a class of code/. */
static int dict_put(rvm *v, int64_t d, const rval *key, const rval *val)
{
    rentry *e;
    int rc;
    if (d <= 0 || (size_t)d > v->ndicts || key->t != V_STR || !key->s || val->t != V_OBJ)
        return OPMAP_OK;
    if ((rc = grow(v, (void **)&v->ents, &v->ecap, sizeof(*v->ents), v->nents + 1)))
        return rc;
    e = &v->ents[v->nents];
    if (!(e->key = ts_intern_scratch(v->c, (const char *)key->s, key->slen)))
        return ts_oom(v->c);
    e->value = val->k;
    e->next = v->dicts[d - 1].head;
    v->dicts[d - 1].head = (uint32_t)++v->nents;
    v->dicts[d - 1].built_as = NULL; /* changed: record it again at its next BUILD */
    return OPMAP_OK;
}

/* The hash slot of (owner, attr, value) in v->htab: its entry, or the empty slot for it. */
static size_t held_slot(const rvm *v, const tsl_class *owner, const char *attr,
                        const tsl_class *value)
{
    uint64_t h = ((uint64_t)(uintptr_t)owner * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)(uintptr_t)attr * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)(uintptr_t)value * 0x165667B19E3779F9ull);
    size_t i = (size_t)(h ^ (h >> 29)) & (v->hcap - 1);
    while (v->htab[i]) {
        const tsl_held *o = &OM_VEC_AT(&v->prog_w->held, tsl_held, v->htab[i] - 1);
        if (o->owner == owner && o->attr == attr && o->value == value)
            break;
        i = (i + 1) & (v->hcap - 1);
    }
    return i;
}

/* Room in the hash for one more record: rebuilt at twice the size past half full. */
static int held_room(rvm *v)
{
    size_t n = v->prog_w->held.len, ncap = v->hcap ? v->hcap : 64, i;
    uint32_t *old = v->htab;
    size_t ocap = v->hcap;
    if (v->htab && (n + 1) * 2 <= v->hcap)
        return OPMAP_OK;
    while ((n + 1) * 2 > ncap)
        ncap *= 2;
    if (n >= UINT32_MAX - 1 || !(v->htab = om_calloc(v->c->mem, ncap, sizeof(*v->htab)))) {
        v->htab = old;
        return ts_oom(v->c);
    }
    v->hcap = ncap;
    for (i = 0; i < n; i++) {
        const tsl_held *o = &OM_VEC_AT(&v->prog_w->held, tsl_held, i);
        v->htab[held_slot(v, o->owner, o->attr, o->value)] = (uint32_t)(i + 1);
    }
    if (old)
        om_dealloc(v->c->mem, old, ocap * sizeof(*old));
    return OPMAP_OK;
}

/* BUILD of an object of class k from dict d: what each key holds is recorded once per
 * distinct (k, key, class) in prog->held. */
static int record_holds(rvm *v, const tsl_class *k, int64_t d)
{
    uint32_t e;
    int rc;
    if (d <= 0 || (size_t)d > v->ndicts || v->dicts[d - 1].built_as == k)
        return OPMAP_OK;
    v->dicts[d - 1].built_as = k;
    for (e = v->dicts[d - 1].head; e; e = v->ents[e - 1].next) {
        const rentry *x = &v->ents[e - 1];
        size_t i;
        tsl_held *h;
        if (++v->hold_work > 8 * (uint64_t)v->len + 64)
            return ts_fail_at(v->c, OPMAP_ELIMIT, v->entry, v->op_at,
                              "object states walked more than 8 times the pickle's length "
                              "(the same dicts built into objects over and over)");
        if ((rc = held_room(v)))
            return rc;
        i = held_slot(v, k, x->key, x->value);
        if (v->htab[i])
            continue; /* already recorded */
        if (!(h = om_vec_push(&v->prog_w->held, v->c->mem)))
            return ts_oom(v->c);
        h->owner = k;
        h->attr = x->key;
        h->value = x->value;
        v->htab[i] = (uint32_t)v->prog_w->held.len;
    }
    return OPMAP_OK;
}

static int add_fn(rvm *v, int kind, tsl_class *k)
{
    int rc = grow(v, (void **)&v->fn, &v->fcap, sizeof(*v->fn), v->nfn + 1);
    if (rc)
        return rc;
    v->fn[v->nfn].kind = (uint8_t)kind;
    v->fn[v->nfn].k = k;
    v->nfn++;
    return push(v, V_INT, (int64_t)(v->nfn - 1), NULL);
}

static int need(rvm *v, size_t n)
{
    return v->len - v->pos >= n ? OPMAP_OK : fail(v, "pickle cut short (truncated data.pkl?)");
}

static uint64_t le(const unsigned char *b, int n)
{
    uint64_t x = 0;
    while (n--)
        x = x << 8 | b[n];
    return x;
}

static int is_one_of(const char *s, size_t n, const char *const *names)
{
    for (; *names; names++)
        if (strlen(*names) == n && memcmp(s, *names, n) == 0)
            return 1;
    return 0;
}

static int eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* A class defined in code/, as torch's type resolver finds it. */
static int code_global(rvm *v, const char *mod, size_t ml, const char *cls, size_t cl)
{
    char q[512];
    const char *iq;
    void *found = NULL;
    tsl_class *k;
    if (ml + cl + 2 > sizeof(q))
        return fail(v, "GLOBAL name of %zu bytes", ml + cl + 1);
    memcpy(q, mod, ml);
    q[ml] = '.';
    memcpy(q + ml + 1, cls, cl);
    q[ml + 1 + cl] = 0;
    if (strncmp(q, "__torch__.torch.classes.", 24) == 0)
        return add_fn(v, F_OPAQUE, NULL); /* a custom C++ class (torchbind) */
    if (!(iq = ts_intern_scratch(v->c, q, ml + 1 + cl)))
        return ts_oom(v->c);
    if (tsl_program_find(v->prog, iq, &found) != 1)
        return fail(v, "data.pkl names the type '%s', which no code/ entry defines "
                       "(torch.jit.load fails the same way)", q);
    k = found;
    if (strcmp(k->base, "Enum") == 0)
        return add_fn(v, F_OPAQUE, NULL);
    if (strcmp(k->base, "NamedTuple") == 0 || strstr(k->base, "Interface"))
        return fail(v, "data.pkl builds an object of '%s', which is not a class", q);
    return add_fn(v, F_CLASS, k);
}

/* GLOBAL "module\nname\n": torch's readGlobal. */
static int op_global(rvm *v)
{
    static const char *const storages[] = {
        "ByteStorage", "CharStorage", "ShortStorage", "IntStorage", "LongStorage",
        "HalfStorage", "FloatStorage", "DoubleStorage", "ComplexHalfStorage",
        "ComplexFloatStorage", "ComplexDoubleStorage", "BoolStorage", "QInt8Storage",
        "QUInt8Storage", "QInt32Storage", "BFloat16Storage", "QUInt4x2Storage",
        "QUInt2x4Storage", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
        "per_channel_symmetric", "per_channel_affine_float_qparams", NULL };
    static const char *const lists[] = { "build_intlist", "build_tensorlist",
                                         "build_doublelist", "build_boollist", NULL };
    const char *mod = (const char *)v->d + v->pos, *cls, *nl;
    size_t ml, cl;
    if (!(nl = memchr(mod, '\n', v->len - v->pos)))
        return fail(v, "GLOBAL cut short");
    ml = (size_t)(nl - mod);
    cls = nl + 1;
    if (!(nl = memchr(cls, '\n', v->len - v->pos - ml - 1)))
        return fail(v, "GLOBAL cut short");
    cl = (size_t)(nl - cls);
    v->pos += ml + cl + 2;
    if (v->skip) {
        /* after torch._tensor._rebuild_from_type_v2: the second GLOBAL names no function */
        if (--v->skip == 0)
            return push(v, V_INT, (int64_t)v->nfn - 1, NULL);
    }
    if (eq(mod, ml, "__main__")) {
        if (eq(cls, cl, "TensorID"))
            return add_fn(v, F_NO_TABLE, NULL);
        if (eq(cls, cl, "IntList"))
            return add_fn(v, F_INTLIST, NULL);
        return fail(v, "unknown pickler class __main__.%.*s", (int)cl, cls);
    }
    if (eq(mod, ml, "torch.jit._pickle")) {
        if (eq(cls, cl, "build_tensor_from_id"))
            return add_fn(v, F_NO_TABLE, NULL);
        if (eq(cls, cl, "restore_type_tag"))
            return add_fn(v, F_TUPLE_OTHER, NULL);
        if (is_one_of(cls, cl, lists))
            return add_fn(v, F_LIST, NULL);
        return fail(v, "unknown pickler class torch.jit._pickle.%.*s", (int)cl, cls);
    }
    if ((eq(mod, ml, "torch._utils") &&
         (eq(cls, cl, "_rebuild_tensor_v2") || eq(cls, cl, "_rebuild_qtensor") ||
          eq(cls, cl, "_rebuild_sparse_tensor"))))
        return add_fn(v, F_TENSOR, NULL);
    if (eq(mod, ml, "torch._tensor") && eq(cls, cl, "_rebuild_from_type_v2")) {
        v->skip = 2;
        return add_fn(v, F_TENSOR, NULL);
    }
    if ((eq(mod, ml, "builtins") && eq(cls, cl, "complex")) ||
        (eq(mod, ml, "torch") && eq(cls, cl, "device")) ||
        (eq(mod, ml, "torch.distributed.rpc") && eq(cls, cl, "rref")))
        return add_fn(v, F_TUPLE_OTHER, NULL);
    if (eq(mod, ml, "collections") && eq(cls, cl, "OrderedDict"))
        return add_fn(v, F_TO_NONE, NULL);
    if (eq(mod, ml, "torch")) {
        if (is_one_of(cls, cl, storages))
            return push(v, V_ENUMINT, 0, NULL); /* a scalar type or qscheme, no function */
        return fail(v, "unknown torch global torch.%.*s", (int)cl, cls);
    }
    return code_global(v, mod, ml, cls, cl);
}

static int has_method(const tsl_class *k, const char *name)
{
    uint32_t i;
    for (i = 0; i < k->n_methods; i++)
        if (strcmp(k->methods[i].name, name) == 0)
            return 1;
    return 0;
}

/* BUILD and REDUCE: <index> <argument> -> the function at index applied to the argument. */
static int op_apply(rvm *v)
{
    rval idx, *arg;
    const rfun *f;
    if (v->sp < 2)
        return fail(v, "BUILD or REDUCE on a stack of %zu", v->sp);
    idx = v->st[v->sp - 2];
    v->st[v->sp - 2] = v->st[v->sp - 1];
    v->sp--;
    if (idx.t == V_ENUMINT)
        return fail(v, "BUILD or REDUCE of a scalar type");
    if (idx.t != V_INT)
        return fail(v, "BUILD or REDUCE of something that is not a GLOBAL");
    if (idx.i < 0 || (uint64_t)idx.i >= v->nfn)
        return fail(v, "BUILD or REDUCE of function %" PRId64 " of %zu", idx.i, v->nfn);
    f = &v->fn[idx.i];
    arg = &v->st[v->sp - 1];
    switch (f->kind) {
    case F_CLASS: {
        int rc;
        if (arg->t != V_DICT && arg->t != V_OTHER && !has_method(f->k, "__setstate__"))
            return fail(v, "the state of a %s object is not a dict", f->k->qual);
        if (arg->t == V_DICT && (rc = record_holds(v, f->k, arg->i)))
            return rc;
        arg->t = V_OBJ;
        arg->k = f->k;
        return OPMAP_OK;
    }
    case F_NO_TABLE:
        return fail(v, "a tensor-table reference (torch.jit.load has no tensor table)");
    case F_INTLIST:
        if (arg->t != V_LIST && arg->t != V_OTHER)
            return fail(v, "IntList of something that is not a list");
        return OPMAP_OK;
    case F_TO_NONE:
        arg->t = V_NONE;
        return OPMAP_OK;
    case F_OPAQUE:
        arg->t = V_OTHER;
        return OPMAP_OK;
    default: /* these take a tuple of arguments */
        if (arg->t != V_TUPLE)
            return fail(v, "a pickled function called without a tuple of arguments");
        arg->t = f->kind == F_LIST ? V_LIST : f->kind == F_TENSOR ? V_TENSOR : V_OTHER;
        return OPMAP_OK;
    }
}

/* The last MARK, popped; the stack must still reach it. */
static int pop_mark(rvm *v, size_t *start)
{
    if (!v->nm)
        return fail(v, "no MARK");
    *start = v->marks[--v->nm];
    return *start <= v->sp ? OPMAP_OK : fail(v, "MARK above the stack");
}

static int op_memo(rvm *v, uint64_t id, int put)
{
    int rc;
    if (!put) {
        if (id >= v->memo_n)
            return fail(v, "memo %" PRIu64 " not set", id);
        return push(v, v->memo[id].t, v->memo[id].i, v->memo[id].k);
    }
    if (!v->sp)
        return fail(v, "memo store on an empty stack");
    if (id > v->len)
        return fail(v, "memo index %" PRIu64 " out of range", id);
    if ((rc = grow(v, (void **)&v->memo, &v->memo_cap, sizeof(*v->memo), (size_t)id + 1)))
        return rc; /* new slots are V_NONE, as torch's are None */
    if (id >= v->memo_n)
        v->memo_n = (size_t)id + 1;
    v->memo[id] = v->st[v->sp - 1];
    return OPMAP_OK;
}

/* Opcodes that build containers from the stack down to the last MARK. */
static int op_marked(rvm *v, unsigned char op)
{
    size_t start = 0; /* set by pop_mark; gcc -O2 cannot see it */
    int rc;
    if (op == 'e' || op == 'u') { /* APPENDS, SETITEMS: into the container below the MARK */
        int want = op == 'e' ? V_LIST : V_DICT;
        if (!v->nm || v->marks[v->nm - 1] == 0)
            return fail(v, "%s without a container", op == 'e' ? "APPENDS" : "SETITEMS");
        if ((rc = pop_mark(v, &start)))
            return rc;
        if (v->st[start - 1].t != want && v->st[start - 1].t != V_OTHER)
            return fail(v, "%s into something that is not a %s", op == 'e' ? "APPENDS" :
                        "SETITEMS", op == 'e' ? "list" : "dict");
        if (op == 'u' && (v->sp - start) % 2)
            return fail(v, "SETITEMS with a key and no value");
        if (op == 'u' && v->st[start - 1].t == V_DICT) {
            size_t k;
            for (k = start; k + 1 < v->sp; k += 2)
                if ((rc = dict_put(v, v->st[start - 1].i, &v->st[k], &v->st[k + 1])))
                    return rc;
        }
        v->sp = start;
        return OPMAP_OK;
    }
    if ((rc = pop_mark(v, &start)))
        return rc;
    if (op == 'd') {
        size_t k, end = v->sp;
        int64_t d;
        if ((v->sp - start) % 2)
            return fail(v, "DICT with a key and no value");
        if ((rc = push_dict(v)))
            return rc;
        d = v->st[v->sp - 1].i;
        for (k = start; k + 1 < end; k += 2)
            if ((rc = dict_put(v, d, &v->st[k], &v->st[k + 1])))
                return rc;
        v->st[start] = v->st[v->sp - 1];
        v->sp = start + 1;
        return OPMAP_OK;
    }
    v->sp = start;
    return push(v, op == 't' ? V_TUPLE : V_LIST, 0, NULL);
}

/* One opcode; *stop set at STOP. */
static int step(rvm *v, int *stop)
{
    unsigned char op;
    int rc;
    v->op_at = v->pos;
    if ((rc = need(v, 1)))
        return rc;
    op = v->d[v->pos++];
    switch (op) {
    case '.':
        *stop = 1;
        return OPMAP_OK;
    case ']':
        return push(v, V_LIST, 0, NULL);
    case ')':
        return push(v, V_TUPLE, 0, NULL);
    case '}':
        return push_dict(v);
    case 'N':
        return push(v, V_NONE, 0, NULL);
    case 0x88:
    case 0x89:
        return push(v, V_BOOL, op == 0x88, NULL);
    case 'K':
    case 'M':
    case 'J': {
        int n = op == 'K' ? 1 : op == 'M' ? 2 : 4;
        int64_t x;
        if ((rc = need(v, (size_t)n)))
            return rc;
        x = (int64_t)le(v->d + v->pos, n);
        if (n == 4)
            x = (int32_t)(uint32_t)x;
        v->pos += (size_t)n;
        return push(v, V_INT, x, NULL);
    }
    case 0x8a: /* LONG1: torch reads only 8-byte ones */
        if ((rc = need(v, 9)))
            return rc;
        if (v->d[v->pos] != 8)
            return fail(v, "LONG1 of %u bytes (torch reads only 8)", v->d[v->pos]);
        v->pos += 9;
        return push(v, V_INT, (int64_t)le(v->d + v->pos - 8, 8), NULL);
    case 'G':
        if ((rc = need(v, 8)))
            return rc;
        v->pos += 8;
        return push(v, V_FLOAT, 0, NULL);
    case 'X': {
        uint64_t n;
        if ((rc = need(v, 4)))
            return rc;
        n = le(v->d + v->pos, 4);
        v->pos += 4;
        if (n > v->c->lim->max_string_bytes)
            return ts_fail_at(v->c, OPMAP_ELIMIT, v->entry, v->op_at,
                              "pickle string of %" PRIu64 " bytes, over max_string_bytes "
                              "(%" PRIu32 ")", n, v->c->lim->max_string_bytes);
        if ((rc = need(v, (size_t)n)))
            return rc;
        if ((rc = push(v, V_STR, 0, NULL)))
            return rc;
        v->st[v->sp - 1].s = v->d + v->pos;
        v->st[v->sp - 1].slen = (uint32_t)n;
        v->pos += (size_t)n;
        return OPMAP_OK;
    }
    case 'q':
    case 'h':
        if ((rc = need(v, 1)))
            return rc;
        return op_memo(v, v->d[v->pos++], op == 'q');
    case 'r':
    case 'j':
        if ((rc = need(v, 4)))
            return rc;
        v->pos += 4;
        return op_memo(v, le(v->d + v->pos - 4, 4), op == 'r');
    case '(':
        if (v->nm >= v->c->lim->max_pickle_depth)
            return ts_fail_at(v->c, OPMAP_ELIMIT, v->entry, v->op_at,
                              "pickle nested deeper than max_pickle_depth (%" PRIu32 ")",
                              v->c->lim->max_pickle_depth);
        if ((rc = grow(v, (void **)&v->marks, &v->mcap, sizeof(*v->marks), v->nm + 1)))
            return rc;
        v->marks[v->nm++] = v->sp;
        return OPMAP_OK;
    case 't':
    case 'l':
    case 'd':
    case 'e':
    case 'u':
        return op_marked(v, op);
    case 0x85:
    case 0x86:
    case 0x87: {
        size_t n = (size_t)(op - 0x84);
        if (v->sp < n)
            return fail(v, "TUPLE%zu on a stack of %zu", n, v->sp);
        v->sp -= n;
        return push(v, V_TUPLE, 0, NULL);
    }
    case 'c':
        return op_global(v);
    case 0x81: /* NEWOBJ: drops the argument tuple; BUILD makes the object */
        if (!v->sp)
            return fail(v, "NEWOBJ on an empty stack");
        v->sp--;
        return OPMAP_OK;
    case 'b':
    case 'R':
        return op_apply(v);
    case 'Q':
        if (!v->sp || v->st[v->sp - 1].t != V_TUPLE)
            return fail(v, "BINPERSID without a tuple");
        v->st[v->sp - 1].t = V_TENSOR;
        return OPMAP_OK;
    default:
        return fail(v, "pickle opcode 0x%02x, which torch's unpickler does not read", op);
    }
}

int ts_root_class(ts_ctx *c, tsl_program *prog, const char *entry, const unsigned char *data,
                   size_t len, tsl_class **root)
{
    rvm v;
    int rc = OPMAP_OK, stop = 0;
    memset(&v, 0, sizeof(v));
    v.c = c;
    v.prog = prog;
    v.prog_w = prog;
    v.entry = entry;
    v.d = data;
    v.len = len;
    *root = NULL;
    if (len < 2 || data[0] != 0x80 || data[1] != 2)
        rc = fail(&v, "data.pkl does not start with PROTO 2 (torch reads only protocol 2)");
    else
        v.pos = 2;
    /* each step consumes at least one byte: at most len steps */
    while (rc == OPMAP_OK && !stop)
        rc = step(&v, &stop);
    if (rc == OPMAP_OK && v.sp != 1)
        rc = fail(&v, "data.pkl leaves %zu values, not one module", v.sp);
    if (rc == OPMAP_OK && v.st[0].t != V_OBJ)
        rc = fail(&v, "data.pkl's root is not an object of a class of code/");
    if (rc == OPMAP_OK)
        *root = v.st[0].k;
    om_dealloc(c->mem, v.st, v.scap * sizeof(*v.st));
    om_dealloc(c->mem, v.marks, v.mcap * sizeof(*v.marks));
    om_dealloc(c->mem, v.memo, v.memo_cap * sizeof(*v.memo));
    om_dealloc(c->mem, v.fn, v.fcap * sizeof(*v.fn));
    om_dealloc(c->mem, v.dicts, v.dcap * sizeof(*v.dicts));
    om_dealloc(c->mem, v.ents, v.ecap * sizeof(*v.ents));
    if (v.htab)
        om_dealloc(c->mem, v.htab, v.hcap * sizeof(*v.htab));
    return rc;
}
