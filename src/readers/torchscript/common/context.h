/*
 * readers/torchscript/common/context.h - what every part of the TorchScript reader shares: the
 * model being filled, a scratch arena for everything that dies with the read (code
 * syntax trees, the optimizer's graphs), interners, limits, and error helpers that name
 * the file plus the archive entry and line.
 */
#ifndef OM_TS_CONTEXT_H
#define OM_TS_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"
#include "ir/ir.h"

typedef struct ts_ctx {
    ir_model *m;
    om_mem *mem;              /* the model's budget: scratch memory counts too */
    om_arena tmp;             /* scratch: freed when the read ends */
    ir_interner ir_in;        /* model arena: domains, ops, labels, file names of the IR */
    ir_interner tmp_in;       /* scratch arena: identifiers of the code */
    const opmap_limits *lim;
    opmap_error *err;
    const char *src;          /* the model's name */
    uint64_t nodes;           /* optimizer nodes made so far */
    uint64_t node_budget;     /* their bound: max_nodes, or max_heap_bytes / 512 if smaller */
    uint32_t stamp;           /* generation counter for scratch marks */
    uint32_t call_depth;      /* functions being optimized, nested (bounded by max_depth) */
    int rc;                   /* the last error reported (for functions returning NULL) */
    /* a module's `self.training` read as False (eval mode, as inference runs the model;
     * torch.jit.freeze folds it the same way); 0 keeps it a run-time value */
    int eval_mode;
} ts_ctx;

/* Sets up / releases a context for model `m` (the scratch arena and interners). */
void ts_ctx_init(ts_ctx *c, ir_model *m, const opmap_limits *lim, opmap_error *err);
void ts_ctx_fini(ts_ctx *c);

/* Out of memory or over budget, whichever happened. */
int ts_oom(ts_ctx *c);

/* An error in archive entry `entry` (NULL: the file itself), at `line`:`col` (0: none). */
int ts_fail(ts_ctx *c, int code, const char *entry, uint32_t line, uint32_t col,
            const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* An error in binary archive entry `entry` at byte `offset` of the entry. */
int ts_fail_at(ts_ctx *c, int code, const char *entry, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Interned copies: in the scratch arena (code identifiers) or the model arena (IR). */
const char *ts_intern_scratch(ts_ctx *c, const char *s, size_t n);
const char *ts_intern_model(ts_ctx *c, const char *s);

#endif /* OM_TS_CONTEXT_H */
