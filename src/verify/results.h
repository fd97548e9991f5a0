/*
 * verify/results.h - what a set of device results holds (opmap/verify.h), for the scan that
 * matches them to instances by signature.
 */
#ifndef OM_VERIFY_RESULTS_H
#define OM_VERIFY_RESULTS_H

#include <opmap/verify.h>

#include "core/mem.h"

/* One pass or fail of one signature on one chip with one torch_npu and CANN. */
typedef struct om_vres {
    const char *signature, *op, *chip, *torch_npu, *cann, *standard, *message, *source;
    uint8_t passed;
    double max_abs, max_rel, cpu_ms, device_ms;   /* NaN: not measured */
    uint64_t h;               /* om_hash_name(signature) */
    size_t next;              /* the next entry of the same signature, or SIZE_MAX */
} om_vres;

struct opmap_results {
    opmap_ctx *ctx;
    om_mem mem;
    om_arena arena;           /* the entries' strings */
    om_vec entries;           /* om_vres */
    size_t *slots;            /* per signature: 1 + its first entry, 0 for an empty slot */
    size_t cap;
};

/* The first entry whose signature is `sig` (h its om_hash_name), or SIZE_MAX; the others
 * follow through om_vres.next. */
size_t om_results_first(const opmap_results *set, const char *sig, uint64_t h);

/* Entry i (i < set->entries.len). */
#define OM_RESULTS_AT(set, i) (&OM_VEC_AT(&(set)->entries, om_vres, (i)))

#endif /* OM_VERIFY_RESULTS_H */
