/*
 * readers/torchscript/lang/syntax.h - the syntax of TorchScript code entries.
 *
 * torch.jit.save prints each class and function as Python: `class X(Module):` headers
 * with attribute annotations (`layer1 : __torch__....Sequential`,
 * `__annotations__["0"] = ...`, `name : Final[int] = 3`) and methods; free `def`s.
 * Bodies are one statement per line: assignments, calls, return, if/else, for/while, pass.
 * ts_code_parse turns an entry into classes and functions with syntax trees (scratch
 * arena) and registers them in a program under their qualified names.
 */
#ifndef OM_TS_LANG_SYNTAX_H
#define OM_TS_LANG_SYNTAX_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/context.h"
#include "readers/torchscript/container/debug_pkl.h"

enum {
    EX_NAME, EX_INT, EX_FLOAT, EX_STR, EX_NONE, EX_TRUE, EX_FALSE, EX_ATTR, EX_CALL, EX_SUB,
    EX_LIST, EX_TUPLE, EX_DICT, EX_NEG
};

typedef struct ts_expr {
    uint8_t k;                /* EX_* */
    uint8_t paren;            /* written in parentheses */
    uint16_t n_kw;            /* EX_CALL: the last n_kw arguments are keyword arguments */
    uint32_t n;               /* children in a */
    uint32_t line, col, off;  /* where it starts in its entry */
    const char *s;            /* NAME / ATTR: interned name; STR: bytes */
    uint32_t slen;            /* STR length */
    int64_t i;                /* INT */
    double f;                 /* FLOAT */
    struct ts_expr *base;     /* ATTR: object; CALL: callee; SUB: object; NEG: operand */
    struct ts_expr **a;       /* CALL: args; SUB: one index; LIST/TUPLE: items; DICT: k,v,k,v */
    const char **kw;          /* EX_CALL: keyword names (n_kw) */
} ts_expr;

struct ts_func;

enum { ST_ASSIGN, ST_EXPR, ST_RETURN, ST_IF, ST_FOR, ST_WHILE, ST_PASS, ST_WITH, ST_DEF };

typedef struct ts_stmt {
    uint8_t k;                /* ST_* */
    uint8_t trailing;         /* ST_ASSIGN: target list ends with a comma (`a, b, = x`) */
    uint32_t line, col, off;
    uint32_t n_t, n_body, n_else;
    ts_expr **t;              /* ST_ASSIGN: targets */
    ts_expr *e;               /* value, condition, or the for's iterable */
    ts_expr *ann;             /* ST_ASSIGN: `name : Type = value` annotation, or NULL */
    const char *var;          /* ST_FOR: the loop variable; ST_DEF: the closure's name */
    struct ts_stmt **body, **orelse;
    struct ts_func *def;      /* ST_DEF: a closure (the body of a fork) */
} ts_stmt;

typedef struct ts_param {
    const char *name;
    ts_expr *type;            /* annotation, or NULL */
    ts_expr *dflt;            /* default, or NULL */
} ts_param;

struct ts_class;
struct ts_file;

typedef struct ts_func {
    const char *name;         /* method or function name */
    const char *qual;         /* qualified name (functions), class qual + "." + name (methods) */
    struct ts_class *cls;     /* NULL for free functions */
    struct ts_file *file;
    ts_param *params;
    uint32_t n_params;
    ts_expr *ret;
    ts_stmt **body;
    uint32_t n_body;
    uint32_t line;
    void *built;              /* the builder's graph (ts_build) */
    void *opt;                /* its optimized graph */
    uint64_t opt_size;        /* nodes in it, blocks included */
    uint8_t state;            /* builder: 0 new, 1 in progress, 2 done */
    uint8_t est_state;        /* size estimate: 0 new, 1 in progress, 2 done */
    uint64_t est;             /* nodes if every call were inlined unoptimized (saturating) */
} ts_func;

typedef struct ts_cattr {
    const char *name;         /* attribute, or the key of __annotations__["key"] */
    ts_expr *type;
    ts_expr *value;           /* Final constant's value, or NULL */
    const void *rtype;        /* resolved type (ts_type), lazily */
} ts_cattr;

typedef struct ts_class {
    const char *qual;         /* __torch__.a.b.C */
    const char *name;         /* C */
    const char *base;         /* "Module", "NamedTuple", ... or "" */
    ts_cattr *attrs;
    uint32_t n_attrs;
    ts_func *methods;
    uint32_t n_methods;
    struct ts_file *file;
    uint32_t line;
    const void *type;         /* ts_type of instances, lazily */
} ts_class;

typedef struct ts_file {
    const char *entry;        /* archive entry, for messages */
    const char *module;       /* __torch__.a.b */
    ts_dbg dbg;               /* its .debug_pkl records, when present */
} ts_file;

/* What the code entries define, by qualified name. */
typedef struct ts_prog {
    om_vec classes;           /* ts_class* */
    om_vec funcs;             /* ts_func* (free functions) */
    om_vec files;             /* ts_file* */
    const char **keys;        /* open addressing on interned qualified names */
    void **vals;
    uint8_t *kinds;           /* 1 class, 2 function */
    size_t cap, len;
} ts_prog;

void ts_prog_init(ts_prog *p);
void ts_prog_free(ts_ctx *c, ts_prog *p);

/* 1 class, 2 function, 0 nothing for an interned qualified name. */
int ts_prog_find(const ts_prog *p, const char *qual, void **out);

/*
 * Parses code entry `entry` (module `module`, e.g. "__torch__.a.b") and adds its classes and
 * functions to `p`. `text` is only read during the call.
 */
int ts_code_parse(ts_ctx *c, ts_prog *p, const char *entry, const char *module,
                  const unsigned char *text, size_t len, ts_file **file);

#endif /* OM_TS_LANG_SYNTAX_H */
