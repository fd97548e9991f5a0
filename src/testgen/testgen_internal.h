/*
 * testgen/testgen_internal.h - writing the per-operator tests (opmap_testgen_write,
 * docs/testgen.md): the distinct signatures of the operators chosen (cases.c), each as the
 * Python a harness case is (py_case.c, in Python literals: py_text.c), and the module and
 * runner around them (testgen.c).
 */
#ifndef OM_TESTGEN_INTERNAL_H
#define OM_TESTGEN_INTERNAL_H

#include <opmap/verify.h>

#include "core/mem.h"
#include "signature/signature.h"

/* Growable text on a budget; `oom` once an append did not fit (the text is then cut). */
typedef struct tg_buf {
    char *data;
    size_t len, cap;
    om_mem *mem;
    int oom;
} tg_buf;

void tg_put(tg_buf *b, const char *s, size_t n);
void tg_puts(tg_buf *b, const char *s);
void tg_int(tg_buf *b, int64_t v);
void tg_free(tg_buf *b);
/* s[0, n) as a Python str literal in ASCII: "..." with \\, \", control characters and
 * every non-ASCII character escaped (\xNN, \uNNNN, \UNNNNNNNN; a byte that is not UTF-8
 * becomes U+FFFD). Safe anywhere in the module, comments included. */
void tg_py_str(tg_buf *b, const char *s, size_t n);
/* A float literal that reads back to v (`single`: as a float32); float("inf") etc. */
void tg_py_float(tg_buf *b, double v, int single);

/* Node paths and models kept per case, for the test to name. */
#define TG_MAX_NODES 8
#define TG_MAX_MODELS 8

/* One test: a distinct signature of a chosen operator. */
typedef struct tg_case {
    uint64_t h;               /* om_hash_name(signature) */
    const char *signature;
    const char *op;           /* "domain::name" as answered */
    const char *why;          /* what made it chosen: "partial; precision" */
    const char *code;         /* the Case's kind, target and arguments, in Python */
    const char *skip;         /* why it cannot run, or NULL */
    uint64_t instances;
    const char *nodes[TG_MAX_NODES];
    size_t n_nodes;
    const char *models[TG_MAX_MODELS];
    size_t n_models;
} tg_case;

typedef struct tg_set {
    om_mem *mem;
    om_arena *arena;
    om_vec cases;             /* tg_case, in the order first met */
    size_t *slots;            /* 1 + case index per signature, 0 empty */
    size_t cap;
    uint32_t max;             /* max_tests */
    opmap_error *err;
} tg_set;

/* cases.c: every chosen instance of `model` (scanned as `res`) into the set. */
int tg_collect(tg_set *set, const opmap_model *model, const opmap_result *res,
               const opmap_testgen_options *o, const opmap_ctx *ctx);
void tg_set_free(tg_set *set);

/* swaps.c: whether the harness has both forms of a fused-kernel pattern (rmsnorm, ...); the
 * swap test at node n (the pattern's place): its signature ("swap::rmsnorm(float32[2,4,8],
 * float32[8])"), the Python of its case into code, and into skip (256 bytes) why it cannot
 * run ("" when it can); 0 for a pattern the harness has no forms of. */
int tg_swap_supported(const char *pattern);
int tg_swap_code(const char *pattern, const ir_node *n, int training, tg_buf *code,
                 char *sig, size_t sig_size, char *skip);

/* py_case.c: the Python of a case for signature s (its kind, target, args, kwargs, attrs,
 * outs), and into why (256 bytes) the first reason it cannot run ("" when it can). */
void tg_case_code(tg_buf *b, const om_sig *s, char *why);

#endif /* OM_TESTGEN_INTERNAL_H */
