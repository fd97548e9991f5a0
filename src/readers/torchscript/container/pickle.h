/*
 * readers/torchscript/container/pickle.h - a bounded, non-executing pickle machine: it
 * interprets pickle opcodes into plain values (ints, strings, tuples, lists) and never calls
 * anything. container/debug_pkl.c reads .debug_pkl entries with it; data.pkl is
 * container/root_module.c's, which runs it as torch's own unpickler does.
 *
 * The only global it understands is torch.jit._pickle.build_intlist and friends, whose
 * argument it returns as is. Stack, memo and nesting are bounded.
 */
#ifndef OM_TS_CONTAINER_PICKLE_H
#define OM_TS_CONTAINER_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "readers/torchscript/common/context.h"

enum {
    TSC_PICKLE_NONE, TSC_PICKLE_BOOL, TSC_PICKLE_INT, TSC_PICKLE_FLOAT, TSC_PICKLE_STR,
    TSC_PICKLE_TUPLE, TSC_PICKLE_LIST, TSC_PICKLE_DICT, TSC_PICKLE_GLOBAL, TSC_PICKLE_OPAQUE,
    TSC_PICKLE_MARK
};

typedef struct tsc_pickle_value {
    uint8_t t;           /* TSC_PICKLE_* */
    int64_t i;
    const char *s;       /* TSC_PICKLE_STR bytes, TSC_PICKLE_GLOBAL "module name" */
    size_t slen;
    struct tsc_pickle_value **items;
    size_t n, cap;
    /* container/debug_pkl.c's, for source lists: */
    uint64_t *pre_len;   /* cumulative byte lengths of the pieces */
    uint64_t *pre_nl;    /* and cumulative newline counts */
} tsc_pickle_value;

typedef struct tsc_pickle {
    ts_ctx *c;
    const char *entry;
    const unsigned char *d;
    size_t len, pos;
    om_arena arena;      /* the values: freed by tsc_pickle_fini */
    tsc_pickle_value **stack;
    size_t sp, scap;
    size_t *marks;
    size_t nmarks, mcap;
    tsc_pickle_value **memo;
    size_t memo_cap, memo_next;
    tsc_pickle_value none;
} tsc_pickle;

/* A machine for the pickle data[0, len) of archive entry `entry` (borrowed). */
void tsc_pickle_init(tsc_pickle *p, ts_ctx *c, const char *entry, const unsigned char *data,
                     size_t len);
void tsc_pickle_fini(tsc_pickle *p);

/* Runs the pickle to STOP; the value it leaves is *out (in p's arena). */
int tsc_pickle_run(tsc_pickle *p, tsc_pickle_value **out);

/* "malformed pickle: what" at the current offset; returns the status. */
int tsc_pickle_bad(tsc_pickle *p, const char *what);

#endif /* OM_TS_CONTAINER_PICKLE_H */
