/*
 * rules/segments.h - how a model would be split between the NPU and the host.
 *
 * Each op that falls back to AI CPU, the host or torch_npu's CPU fallback, or that has no
 * Ascend implementation (rewrite, unmapped), splits the graph and costs a device<->host
 * round trip. In each graph's node order (topological in ONNX), nodes that run on the NPU
 * form segments separated by such breakers; structural nodes (constants, plumbing) join
 * whatever is around them. Subgraphs (If/Loop/Scan bodies) are sequences of their own;
 * a local function's body continues its caller's sequence, as it would once inlined.
 */
#ifndef OM_SEGMENTS_H
#define OM_SEGMENTS_H

#include <stdint.h>

#include "core/mem.h"

enum { OM_PLACE_NEUTRAL = 0, OM_PLACE_NPU = 1, OM_PLACE_BREAK = 2 };

typedef struct om_seq {
    const char *graph;     /* path of the graph, e.g. "main" or "main/If_3/then_branch" */
    uint64_t nodes, npu_nodes, segments, largest, transitions;
    uint64_t run;          /* length of the current NPU run */
    int last;              /* OM_PLACE_NPU / OM_PLACE_BREAK of the last non-neutral node */
} om_seq;

typedef struct om_breaker {
    const char *node;      /* node path */
    const char *op;        /* domain::name */
    const char *why;       /* "runs on ai_cpu", "unmapped", ... */
} om_breaker;

typedef struct om_segments {
    om_vec seqs;           /* om_seq, indexed by the walker's sequence id */
    om_vec breakers;       /* om_breaker, at most OM_MAX_BREAKERS kept */
    uint64_t n_breakers;   /* all of them, kept or not */
} om_segments;

#define OM_MAX_BREAKERS 1000

void om_segments_init(om_segments *s);
void om_segments_free(om_segments *s, om_mem *mem);

/* Accounts one node of sequence `seq`; returns its om_seq (NULL on OOM) so the caller can
 * name a new sequence. */
om_seq *om_segments_add(om_segments *s, om_mem *mem, uint32_t seq, int place);

/* Totals over every sequence. */
void om_segments_total(const om_segments *s, uint64_t *segments, uint64_t *transitions,
                       uint64_t *npu_nodes, uint64_t *largest, uint64_t *nodes);

#endif /* OM_SEGMENTS_H */
