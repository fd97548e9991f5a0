/*
 * readers/torchscript/jit/graph.h - the graph the TorchScript reader builds from code and
 * optimizes like torch does before it counts anything.
 *
 * It mirrors torch::jit::Graph where it matters: nodes with a namespace and an operator,
 * SSA values with types, blocks (prim::If has two, prim::Loop one, with parameters and
 * returns), constants as prim::Constant nodes. Replacing all uses of a value is a forward
 * pointer (tsj_resolve resolves it), so passes never walk use lists. Every node remembers the call
 * frame it was inlined through, for node paths, and its original source line.
 * Everything lives in the reader's scratch arena.
 */
#ifndef OM_TS_JIT_GRAPH_H
#define OM_TS_JIT_GRAPH_H

#include <stdint.h>

#include "readers/torchscript/common/context.h"
#include "readers/torchscript/lang/types.h"

/* Kinds the passes recognize; everything else is TSJ_KIND_OTHER (matched by name). */
enum {
    TSJ_KIND_OTHER,
    /* prim */
    TSJ_KIND_CONST, TSJ_KIND_IF, TSJ_KIND_LOOP, TSJ_KIND_CALLM, TSJ_KIND_CALLF,
    TSJ_KIND_GETATTR, TSJ_KIND_SETATTR, TSJ_KIND_LISTC, TSJ_KIND_TUPLEC, TSJ_KIND_DICTC,
    TSJ_KIND_TUPLEIDX, TSJ_KIND_TUPLEUNPACK, TSJ_KIND_LISTUNPACK, TSJ_KIND_NUMTOTENSOR,
    TSJ_KIND_UNINIT, TSJ_KIND_RAISE, TSJ_KIND_UNCHECKED, TSJ_KIND_CREATEOBJ,
    TSJ_KIND_ISINSTANCE, TSJ_KIND_PRINT, TSJ_KIND_TOLIST, TSJ_KIND_PMIN, TSJ_KIND_PMAX,
    TSJ_KIND_UNWRAP, TSJ_KIND_ENTER, TSJ_KIND_EXIT,
    /* a call through an interface type (jit/build_call.c): one block per implementation
     * data.pkl holds, each a call of it; never inlined itself, lowered as its blocks */
    TSJ_KIND_DISPATCH,
    /* prim::ModuleContainerIndex: a ModuleList / ModuleDict entry, typed by the interface
     * its assignment declares; the receiver of a dispatch, not lowered */
    TSJ_KIND_MCINDEX,
    /* aten */
    TSJ_KIND_ADD, TSJ_KIND_SUB, TSJ_KIND_MUL, TSJ_KIND_DIV, TSJ_KIND_FLOORDIV,
    TSJ_KIND_REMAINDER, TSJ_KIND_NEG, TSJ_KIND_POW, TSJ_KIND_EQ, TSJ_KIND_NE, TSJ_KIND_LT,
    TSJ_KIND_LE, TSJ_KIND_GT, TSJ_KIND_GE, TSJ_KIND_NOT, TSJ_KIND_IS, TSJ_KIND_ISNOT,
    TSJ_KIND_AND, TSJ_KIND_OR, TSJ_KIND_XOR, TSJ_KIND_INT, TSJ_KIND_FLOAT, TSJ_KIND_BOOL,
    TSJ_KIND_STR, TSJ_KIND_INTIMPL, TSJ_KIND_FLOATIMPL, TSJ_KIND_SCALARIMPL, TSJ_KIND_LEN,
    TSJ_KIND_GETITEM, TSJ_KIND_SLICE, TSJ_KIND_CAT, TSJ_KIND_CONV1D, TSJ_KIND_CONV2D,
    TSJ_KIND_CONV3D, TSJ_KIND_DIM, TSJ_KIND_T, TSJ_KIND_FORMAT, TSJ_KIND_CEIL, TSJ_KIND_FLOOR,
    TSJ_KIND_ABS, TSJ_KIND_WARN, TSJ_KIND_UNWRAP_OPT, TSJ_KIND_GRADSUM, TSJ_KIND_PERCENTFORMAT,
    TSJ_KIND_COUNT
};

/* Constant values (prim::Constant payloads). */
enum {
    TSJ_CONST_NONE,
    TSJ_CONST_BOOL,
    TSJ_CONST_INT,
    TSJ_CONST_FLOAT,
    TSJ_CONST_STR,
    TSJ_CONST_DEVICE,
    TSJ_CONST_TUPLE,
    TSJ_CONST_TENSOR,
    TSJ_CONST_FUNC,
    TSJ_CONST_OPAQUE
};

typedef struct tsj_const {
    uint8_t k;
    int64_t i;                       /* TSJ_CONST_BOOL, TSJ_CONST_INT */
    double f;                        /* TSJ_CONST_FLOAT */
    const char *s;                   /* TSJ_CONST_STR, TSJ_CONST_DEVICE */
    uint32_t slen;
    const struct tsj_const **el;      /* TSJ_CONST_TUPLE */
    uint32_t n;
    tsl_func *fn;                     /* TSJ_CONST_FUNC */
} tsj_const;

/* A call site the node was inlined through: a submodule call adds a path segment. */
typedef struct tsj_frame {
    struct tsj_frame *parent;
    const char *label;               /* attribute path of the submodule ("layer1", "blocks.0") */
    const char *what;                /* "ClassName.method", for the IR function's name */
    uint32_t depth;
    uint32_t cstamp;                 /* copy: `copy` is valid when this is the copy's stamp */
    struct tsj_frame *copy;
    void *scratch;                   /* emission */
} tsj_frame;

struct tsj_node;
struct tsj_block;

typedef struct tsj_value {
    struct tsj_node *def;             /* NULL for block parameters */
    struct tsj_value *repl;             /* all uses replaced by this value */
    const tsl_type *type;
    uint32_t mark;                   /* scratch for passes */
    uint32_t aset;                   /* scratch: alias set, valid when astamp is current */
    uint32_t astamp;
    uint32_t cstamp;                 /* copy: `copy` is valid when this is the copy's stamp */
    struct tsj_value *copy;
    struct tsj_node *user;            /* scratch: the last user seen when counting uses */
    uint32_t ustamp, nuses;          /* scratch: use count, valid when ustamp is current */
} tsj_value;

typedef struct tsj_node {
    uint16_t kind;                   /* TSJ_KIND_* */
    uint8_t dead;                    /* unlinked */
    uint8_t live;                    /* scratch for DCE */
    const char *ns, *op;             /* interned (scratch interner) */
    tsj_value **in;
    uint32_t n_in, cap_in;
    tsj_value *out;
    uint32_t n_out;
    struct tsj_block **blk;
    uint32_t n_blk;
    struct tsj_block *owner;
    struct tsj_node *prev, *next;
    tsj_frame *frame;
    const char *file;                /* original source (model arena) */
    uint32_t line;
    const tsj_const *cv;              /* TSJ_KIND_CONST */
    const char *name;                /* GetAttr/SetAttr attribute; CallMethod method */
    const char *label;               /* CallMethod: receiver's attribute path, or NULL */
    tsl_func *callee;                 /* CallMethod / CallFunction */
    const tsl_type *ty;               /* unchecked_cast, isinstance, Uninitialized types */
    const char **kw;                 /* keyword names of the last n_kw inputs */
    uint16_t n_kw;
    uint32_t aux_stamp;              /* scratch: aux is valid when this is the pass's stamp */
    void *aux;
} tsj_node;

typedef struct tsj_block {
    tsj_node *owner;                  /* NULL for a graph's top block */
    tsj_node *head, *tail;
    tsj_value **params;                 /* graph inputs; Loop: iteration, carried values */
    uint32_t n_params;
    tsj_value **rets;                   /* graph outputs; If: outputs; Loop: next cond, carried */
    uint32_t n_rets;
} tsj_block;

typedef struct tsj_graph {
    tsj_block *top;
    tsl_func *fn;
} tsj_graph;

/* The value all uses of v now read (follows replacements). */
static inline tsj_value *tsj_resolve(tsj_value *v)
{
    while (v && v->repl)
        v = v->repl;
    return v;
}

/* Input i of n, resolved. */
static inline tsj_value *tsj_input(const tsj_node *n, uint32_t i)
{
    return tsj_resolve(n->in[i]);
}

/* The constant a value holds, or NULL. */
static inline const tsj_const *tsj_const_of(tsj_value *v)
{
    v = tsj_resolve(v);
    return v && v->def && v->def->kind == TSJ_KIND_CONST ? v->def->cv : NULL;
}

/* ---- construction (jit/graph.c) ---- */

/* A node with room for n_in inputs, n_out outputs (typed unknown) and n_blk empty blocks. */
tsj_node *tsj_node_new(ts_ctx *c, int kind, const char *ns, const char *op, uint32_t n_in,
                       uint32_t n_out, uint32_t n_blk);
tsj_block *tsj_block_new(ts_ctx *c, tsj_node *owner);
tsj_value *tsj_param_new(ts_ctx *c, const tsl_type *t);

void tsj_append(tsj_block *b, tsj_node *n);
void tsj_insert_before(tsj_node *at, tsj_node *n);
void tsj_unlink(tsj_node *n);

/* Replaces every use of a by b. */
static inline void tsj_replace_uses(tsj_value *a, tsj_value *b)
{
    a = tsj_resolve(a);
    b = tsj_resolve(b);
    if (a != b)
        a->repl = b;
}

/* A prim::Constant node holding cv, with output type t. */
tsj_node *tsj_const_node(ts_ctx *c, const tsj_const *cv, const tsl_type *t);
tsj_const *tsj_const_new(ts_ctx *c, int k);

/* Constant helpers. */
int tsj_const_eq(const tsj_const *a, const tsj_const *b);

/* Inserts a copy of `src`'s nodes before `at` (a call node), mapping src's graph inputs to
 * `args`; frames of copied nodes are re-rooted under `frame`. Returns the copied outputs
 * through *outs (src->top->n_rets of them), or NULL on OOM/limit (error set). */
int tsj_inline_copy(ts_ctx *c, const tsj_graph *src, tsj_node *at, tsj_value **args,
                    uint32_t n_args, tsj_frame *frame, tsj_value ***outs);

/* Nodes in a block, nested blocks included. */
uint64_t tsj_count_nodes(const tsj_block *b);

/* Whether an op has side effects (Node::hasSideEffects), is nondeterministic, or mutates
 * its first input (schema is_mutable). */
int tsj_side_effects(const tsj_node *n);
int tsj_mutates(const tsj_node *n);

#endif /* OM_TS_JIT_GRAPH_H */
