/*
 * readers/torchscript/lang/syntax.h - the syntax of TorchScript code entries.
 *
 * torch.jit.save prints each class and function as Python: `class X(Module):` headers
 * with attribute annotations (`layer1 : __torch__....Sequential`,
 * `__annotations__["0"] = ...`, `name : Final[int] = 3`) and methods; free `def`s.
 * Bodies are one statement per line: assignments, calls, return, if/else, for/while, pass.
 * tsl_parse_entry turns an entry into classes and functions with syntax trees (scratch
 * arena) and registers them in a program under their qualified names.
 */
#ifndef OM_TS_LANG_SYNTAX_H
#define OM_TS_LANG_SYNTAX_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/common/context.h"
#include "readers/torchscript/container/debug_pkl.h"

enum {
    EX_NAME, EX_INT, EX_FLOAT, EX_STR, EX_NONE, EX_TRUE, EX_FALSE, EX_ATTR, EX_CALL, EX_SUB,
    EX_LIST, EX_TUPLE, EX_DICT, EX_NEG
};

typedef struct tsl_expr {
    uint8_t k;                /* EX_* */
    uint8_t paren;            /* written in parentheses */
    uint16_t n_kw;            /* EX_CALL: the last n_kw arguments are keyword arguments */
    uint32_t n;               /* children in a */
    uint32_t line, col, off;  /* where it starts in its entry */
    const char *s;            /* NAME / ATTR: interned name; STR: bytes */
    uint32_t slen;            /* STR length */
    int64_t i;                /* INT */
    double f;                 /* FLOAT */
    struct tsl_expr *base;     /* ATTR: object; CALL: callee; SUB: object; NEG: operand */
    struct tsl_expr **a;       /* CALL: args; SUB: one index; LIST/TUPLE: items; DICT: k,v,k,v */
    const char **kw;          /* EX_CALL: keyword names (n_kw) */
} tsl_expr;

struct tsl_func;

enum { ST_ASSIGN, ST_EXPR, ST_RETURN, ST_IF, ST_FOR, ST_WHILE, ST_PASS, ST_WITH, ST_DEF };

typedef struct tsl_stmt {
    uint8_t k;                /* ST_* */
    uint8_t trailing;         /* ST_ASSIGN: target list ends with a comma (`a, b, = x`) */
    uint32_t line, col, off;
    uint32_t n_t, n_body, n_else;
    tsl_expr **t;              /* ST_ASSIGN: targets */
    tsl_expr *e;               /* value, condition, or the for's iterable */
    tsl_expr *ann;             /* ST_ASSIGN: `name : Type = value` annotation, or NULL */
    const char *var;          /* ST_FOR: the loop variable; ST_DEF: the closure's name */
    struct tsl_stmt **body, **orelse;
    struct tsl_func *def;      /* ST_DEF: a closure (the body of a fork) */
} tsl_stmt;

typedef struct tsl_param {
    const char *name;
    tsl_expr *type;            /* annotation, or NULL */
    tsl_expr *dflt;            /* default, or NULL */
} tsl_param;

struct tsl_class;
struct tsl_file;

typedef struct tsl_func {
    const char *name;         /* method or function name */
    const char *qual;         /* qualified name (functions), class qual + "." + name (methods) */
    struct tsl_class *cls;     /* NULL for free functions */
    struct tsl_file *file;
    tsl_param *params;
    uint32_t n_params;
    tsl_expr *ret;
    tsl_stmt **body;
    uint32_t n_body;
    uint32_t line;
    void *built;              /* the builder's graph (tsj_build_function) */
    void *optimized;          /* its optimized graph */
    uint64_t optimized_size;        /* nodes in it, blocks included */
    uint8_t state;            /* builder: 0 new, 1 in progress, 2 done */
    uint8_t est_state;        /* size estimate: 0 new, 1 in progress, 2 done */
    uint64_t est;             /* nodes if every call were inlined unoptimized (saturating) */
} tsl_func;

typedef struct tsl_class_attr {
    const char *name;         /* attribute, or the key of __annotations__["key"] */
    tsl_expr *type;
    tsl_expr *value;           /* Final constant's value, or NULL */
    const void *rtype;        /* resolved type (tsl_type), lazily */
} tsl_class_attr;

typedef struct tsl_class {
    const char *qual;         /* __torch__.a.b.C */
    const char *name;         /* C */
    const char *base;         /* "Module", "NamedTuple", ... or "" */
    tsl_class_attr *attrs;
    uint32_t n_attrs;
    tsl_func *methods;
    uint32_t n_methods;
    struct tsl_file *file;
    uint32_t line;
    const void *type;         /* tsl_type of instances, lazily */
} tsl_class;

typedef struct tsl_file {
    const char *entry;        /* archive entry, for messages */
    const char *module;       /* __torch__.a.b */
    tsc_debug_map dbg;               /* its .debug_pkl records, when present */
} tsl_file;

/* An object data.pkl holds in the state of another (root_module.c): attribute `attr` of an
 * object of class `owner` is an object of class `value`, as torch.jit.load builds them.
 * What a call through an interface type dispatches to (jit/build_call.c). */
typedef struct tsl_held {
    const struct tsl_class *owner;
    const char *attr;         /* interned (scratch) */
    struct tsl_class *value;
} tsl_held;

/* What the code entries define, by qualified name. */
typedef struct tsl_program {
    om_vec classes;           /* tsl_class* */
    om_vec funcs;             /* tsl_func* (free functions) */
    om_vec files;             /* tsl_file* */
    const char **keys;        /* open addressing on interned qualified names */
    void **vals;
    uint8_t *kinds;           /* 1 class, 2 function */
    size_t cap, len;
    om_vec held;              /* tsl_held: objects held by attributes, one per distinct
                                 (owner, attr, value), from data.pkl */
} tsl_program;

/* 1 when class k is an interface (@torch.jit.interface: base ModuleInterface or Interface),
 * whose methods have no body to run: a call through it runs what the object holds. */
int tsl_class_is_interface(const tsl_class *k);

void tsl_program_init(tsl_program *p);
void tsl_program_free(ts_ctx *c, tsl_program *p);

/* 1 class, 2 function, 0 nothing for an interned qualified name. */
int tsl_program_find(const tsl_program *p, const char *qual, void **out);

/*
 * Parses code entry `entry` (module `module`, e.g. "__torch__.a.b") and adds its classes and
 * functions to `p`. `text` is only read during the call.
 */
int tsl_parse_entry(ts_ctx *c, tsl_program *p, const char *entry, const char *module,
                    const unsigned char *text, size_t len, tsl_file **file);

#endif /* OM_TS_LANG_SYNTAX_H */
