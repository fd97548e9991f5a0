/*
 * rules/segments.c - NPU segments and device<->host transitions (see segments.h).
 */
#include "segments.h"

void om_segments_init(om_segments *s)
{
    om_vec_init(&s->seqs, sizeof(om_seq));
    om_vec_init(&s->breakers, sizeof(om_breaker));
    s->n_breakers = 0;
}

void om_segments_free(om_segments *s, om_mem *mem)
{
    om_vec_free(&s->seqs, mem);
    om_vec_free(&s->breakers, mem);
}

om_seq *om_segments_add(om_segments *s, om_mem *mem, uint32_t seq, int place)
{
    om_seq *q;
    while (s->seqs.len <= seq)
        if (!om_vec_push(&s->seqs, mem))
            return NULL;
    q = &OM_VEC_AT(&s->seqs, om_seq, seq);
    q->nodes++;
    if (place == OM_PLACE_NPU) {
        if (q->last != OM_PLACE_NPU) {
            q->segments++;
            q->run = 0;
            if (q->last == OM_PLACE_BREAK)
                q->transitions++;
        }
        q->run++;
        q->npu_nodes++;
        if (q->run > q->largest)
            q->largest = q->run;
        q->last = OM_PLACE_NPU;
    } else if (place == OM_PLACE_BREAK) {
        if (q->last == OM_PLACE_NPU)
            q->transitions++;
        q->last = OM_PLACE_BREAK;
    }
    return q;
}

void om_segments_total(const om_segments *s, uint64_t *segments, uint64_t *transitions,
                       uint64_t *npu_nodes, uint64_t *largest, uint64_t *nodes)
{
    size_t i;
    *segments = *transitions = *npu_nodes = *largest = *nodes = 0;
    for (i = 0; i < s->seqs.len; i++) {
        const om_seq *q = &OM_VEC_AT(&s->seqs, om_seq, i);
        *segments += q->segments;
        *transitions += q->transitions;
        *npu_nodes += q->npu_nodes;
        *nodes += q->nodes;
        if (q->largest > *largest)
            *largest = q->largest;
    }
}
