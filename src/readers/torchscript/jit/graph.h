/*
 * readers/torchscript/jit/graph.h - the graph the TorchScript reader builds from code and
 * optimizes like torch does before it counts anything.
 *
 * It mirrors torch::jit::Graph where it matters: nodes with a namespace and an operator,
 * SSA values with types, blocks (prim::If has two, prim::Loop one, with parameters and
 * returns), constants as prim::Constant nodes. Replacing all uses of a value is a forward
 * pointer (og_v resolves it), so passes never walk use lists. Every node remembers the call
 * frame it was inlined through, for node paths, and its original source line.
 * Everything lives in the reader's scratch arena.
 */
#ifndef OM_TS_JIT_GRAPH_H
#define OM_TS_JIT_GRAPH_H

#include <stdint.h>

#include "readers/torchscript/context.h"
#include "readers/torchscript/lang/types.h"

/* Kinds the passes recognize; everything else is OK_OTHER (matched by name). */
enum {
    OK_OTHER,
    /* prim */
    OK_CONST, OK_IF, OK_LOOP, OK_CALLM, OK_CALLF, OK_GETATTR, OK_SETATTR, OK_LISTC, OK_TUPLEC,
    OK_DICTC, OK_TUPLEIDX, OK_TUPLEUNPACK, OK_LISTUNPACK, OK_NUMTOTENSOR, OK_UNINIT, OK_RAISE,
    OK_UNCHECKED, OK_CREATEOBJ, OK_ISINSTANCE, OK_PRINT, OK_TOLIST, OK_PMIN, OK_PMAX,
    OK_UNWRAP, OK_ENTER, OK_EXIT,
    /* aten */
    OK_ADD, OK_SUB, OK_MUL, OK_DIV, OK_FLOORDIV, OK_REMAINDER, OK_NEG, OK_POW, OK_EQ, OK_NE,
    OK_LT, OK_LE, OK_GT, OK_GE, OK_NOT, OK_IS, OK_ISNOT, OK_AND, OK_OR, OK_XOR, OK_INT,
    OK_FLOAT, OK_BOOL, OK_STR, OK_INTIMPL, OK_FLOATIMPL, OK_SCALARIMPL, OK_LEN, OK_GETITEM,
    OK_SLICE, OK_CAT, OK_CONV1D, OK_CONV2D, OK_CONV3D, OK_DIM, OK_T, OK_FORMAT, OK_CEIL,
    OK_FLOOR, OK_ABS, OK_WARN, OK_UNWRAP_OPT, OK_GRADSUM, OK_PERCENTFORMAT,
    OK_COUNT
};

/* Constant values (prim::Constant payloads). */
enum { C_NONE, C_BOOL, C_INT, C_FLOAT, C_STR, C_DEVICE, C_TUPLE, C_TENSOR, C_FUNC, C_OPAQUE };

typedef struct og_const {
    uint8_t k;
    int64_t i;                       /* C_BOOL, C_INT */
    double f;                        /* C_FLOAT */
    const char *s;                   /* C_STR, C_DEVICE */
    uint32_t slen;
    const struct og_const **el;      /* C_TUPLE */
    uint32_t n;
    ts_func *fn;                     /* C_FUNC */
} og_const;

/* A call site the node was inlined through: a submodule call adds a path segment. */
typedef struct og_frame {
    struct og_frame *parent;
    const char *label;               /* attribute path of the submodule ("layer1", "blocks.0") */
    const char *what;                /* "ClassName.method", for the IR function's name */
    uint32_t depth;
    uint32_t cstamp;                 /* copy: `copy` is valid when this is the copy's stamp */
    struct og_frame *copy;
    void *scratch;                   /* emission */
} og_frame;

struct og_node;
struct og_block;

typedef struct og_val {
    struct og_node *def;             /* NULL for block parameters */
    struct og_val *repl;             /* all uses replaced by this value */
    const ts_type *type;
    uint32_t mark;                   /* scratch for passes */
    uint32_t aset;                   /* scratch: alias set, valid when astamp is current */
    uint32_t astamp;
    uint32_t cstamp;                 /* copy: `copy` is valid when this is the copy's stamp */
    struct og_val *copy;
    struct og_node *user;            /* scratch: the last user seen when counting uses */
    uint32_t ustamp, nuses;          /* scratch: use count, valid when ustamp is current */
} og_val;

typedef struct og_node {
    uint16_t kind;                   /* OK_* */
    uint8_t dead;                    /* unlinked */
    uint8_t live;                    /* scratch for DCE */
    const char *ns, *op;             /* interned (scratch interner) */
    og_val **in;
    uint32_t n_in, cap_in;
    og_val *out;
    uint32_t n_out;
    struct og_block **blk;
    uint32_t n_blk;
    struct og_block *owner;
    struct og_node *prev, *next;
    og_frame *frame;
    const char *file;                /* original source (model arena) */
    uint32_t line;
    const og_const *cv;              /* OK_CONST */
    const char *name;                /* GetAttr/SetAttr attribute; CallMethod method */
    const char *label;               /* CallMethod: receiver's attribute path, or NULL */
    ts_func *callee;                 /* CallMethod / CallFunction */
    const ts_type *ty;               /* unchecked_cast, isinstance, Uninitialized types */
    const char **kw;                 /* keyword names of the last n_kw inputs */
    uint16_t n_kw;
    uint32_t aux_stamp;              /* scratch: aux is valid when this is the pass's stamp */
    void *aux;
} og_node;

typedef struct og_block {
    og_node *owner;                  /* NULL for a graph's top block */
    og_node *head, *tail;
    og_val **params;                 /* graph inputs; Loop: iteration, carried values */
    uint32_t n_params;
    og_val **rets;                   /* graph outputs; If: outputs; Loop: next cond, carried */
    uint32_t n_rets;
} og_block;

typedef struct og_graph {
    og_block *top;
    ts_func *fn;
} og_graph;

/* The value all uses of v now read (follows replacements). */
static inline og_val *og_v(og_val *v)
{
    while (v && v->repl)
        v = v->repl;
    return v;
}

/* Input i of n, resolved. */
static inline og_val *og_in(const og_node *n, uint32_t i)
{
    return og_v(n->in[i]);
}

/* The constant a value holds, or NULL. */
static inline const og_const *og_cval(og_val *v)
{
    v = og_v(v);
    return v && v->def && v->def->kind == OK_CONST ? v->def->cv : NULL;
}

/* ---- construction (jit/graph.c) ---- */

/* A node with room for n_in inputs, n_out outputs (typed unknown) and n_blk empty blocks. */
og_node *og_node_new(ts_ctx *c, int kind, const char *ns, const char *op, uint32_t n_in,
                     uint32_t n_out, uint32_t n_blk);
og_block *og_block_new(ts_ctx *c, og_node *owner);
og_val *og_param_new(ts_ctx *c, const ts_type *t);

void og_append(og_block *b, og_node *n);
void og_insert_before(og_node *at, og_node *n);
void og_unlink(og_node *n);

/* Replaces every use of a by b. */
static inline void og_replace(og_val *a, og_val *b)
{
    a = og_v(a);
    b = og_v(b);
    if (a != b)
        a->repl = b;
}

/* A prim::Constant node holding cv, with output type t. */
og_node *og_const_node(ts_ctx *c, const og_const *cv, const ts_type *t);
og_const *og_const_new(ts_ctx *c, int k);

/* Constant helpers. */
int og_const_eq(const og_const *a, const og_const *b);

/* Inserts a copy of `src`'s nodes before `at` (a call node), mapping src's graph inputs to
 * `args`; frames of copied nodes are re-rooted under `frame`. Returns the copied outputs
 * through *outs (src->top->n_rets of them), or NULL on OOM/limit (error set). */
int og_inline_copy(ts_ctx *c, const og_graph *src, og_node *at, og_val **args, uint32_t n_args,
                   og_frame *frame, og_val ***outs);

/* Nodes in a block, nested blocks included. */
uint64_t og_count(const og_block *b);

/* Whether an op has side effects (Node::hasSideEffects), is nondeterministic, or mutates
 * its first input (schema is_mutable). */
int og_side_effects(const og_node *n);
int og_mutates(const og_node *n);

#endif /* OM_TS_JIT_GRAPH_H */
