/*
 * scan/verify_match.c - device results (opmap/verify.h) matched to a scan's instances.
 *
 * Each instance's signature text (signature/) is looked up in the results set; a result
 * counts for the result's chip of its chip's family ("Ascend910B3" for ascend910b) and is
 * ignored for chips the scan does not answer for. An operator is verified when every one
 * of its instances passed on every chip scanned for and no result matching any failed; it
 * then costs its effort's minimum: what the range held for the unknown is known.
 */
#include <math.h>
#include <string.h>

#include "core/hash.h"
#include "core/text.h"
#include "signature/signature.h"
#include "verify/results.h"
#include "scan_internal.h"

int om_scan_verify_begin(group *g, const opmap_results *set)
{
    size_t i, c, fam;
    const char *part;
    g->results = set;
    if (!set || !set->entries.len)
        return OPMAP_OK;
    if (!(g->vchip = om_calloc(&g->res->mem, set->entries.len, sizeof(*g->vchip))))
        return om_scan_oom(g);
    for (i = 0; i < set->entries.len; i++) {
        const char *chip = OM_RESULTS_AT(set, i)->chip;
        g->vchip[i] = -1;
        if (!om_table_find_soc(g->table, chip, strlen(chip), &fam, &part))
            continue;
        for (c = 0; c < g->res->n_chips; c++)
            if (g->chip_soc[c] == fam)
                g->vchip[i] = (int16_t)c;
    }
    return OPMAP_OK;
}

void om_scan_verify_end(group *g)
{
    if (g->vchip)
        om_dealloc(&g->res->mem, g->vchip, g->results->entries.len * sizeof(*g->vchip));
    g->vchip = NULL;
}

static int copy_result(group *g, om_verified *x, const om_vres *e, size_t c, const char *path)
{
    om_arena *A = &g->res->arena;
    if (!(x->signature = om_arena_strdup(A, e->signature)) ||
        !(x->chip = om_arena_strdup(A, e->chip)) || !(x->family = g->res->chips[c]) ||
        !(x->torch_npu = om_arena_strdup(A, e->torch_npu)) ||
        !(x->cann = om_arena_strdup(A, e->cann)) ||
        !(x->standard = om_arena_strdup(A, e->standard)) ||
        !(x->message = om_arena_strdup(A, e->message)) ||
        !(x->source = om_arena_strdup(A, e->source)) || !(x->example = om_arena_strdup(A, path)))
        return om_scan_oom(g);
    x->passed = e->passed;
    /* at six digits, as reports write them: a report read back holds the same doubles */
    x->max_abs = om_measure_round(e->max_abs), x->max_rel = om_measure_round(e->max_rel);
    x->cpu_ms = om_measure_round(e->cpu_ms), x->device_ms = om_measure_round(e->device_ms);
    return OPMAP_OK;
}

/* Result k of the set matched one more instance of the operator (at path), on the
 * result's chip c. */
static int note_result(group *g, om_op_work *w, size_t k, size_t c, const char *path)
{
    om_verified *x;
    size_t i, *entry;
    for (i = 0; i < w->verified.len; i++)
        if (OM_VEC_AT(&w->verified_entry, size_t, i) == k) {
            OM_VEC_AT(&w->verified, om_verified, i).instances++;
            return OPMAP_OK;
        }
    if (w->verified.len >= OM_MAX_VERIFIED) {
        w->op->verified_dropped++;
        return OPMAP_OK;
    }
    if (!(entry = om_vec_push(&w->verified_entry, &g->res->mem)))
        return om_scan_oom(g);
    *entry = k;
    if (!(x = om_vec_push(&w->verified, &g->res->mem))) {
        w->verified_entry.len--;
        return om_scan_oom(g);
    }
    x->instances = 1;
    return copy_result(g, x, OM_RESULTS_AT(g->results, k), c, path);
}

int om_scan_verify_instance(group *g, om_op_work *w, const om_visit *v)
{
    const opmap_op *op = w->op;
    om_sig sig;
    char text[OM_SIG_TEXT_MAX];
    uint64_t passed = 0, all = g->res->n_chips >= 64 ? ~0ull : (1ull << g->res->n_chips) - 1;
    size_t k;
    int failed = 0, rc;
    if (!g->vchip || op->source)
        return OPMAP_OK;
    om_sig_build(&sig, v->node, op->domain, op->name, op->opset);
    om_sig_text(&sig, text, sizeof(text));
    for (k = om_results_first(g->results, text, om_hash_name(text)); k != SIZE_MAX;
         k = OM_RESULTS_AT(g->results, k)->next) {
        const om_vres *e = OM_RESULTS_AT(g->results, k);
        if (g->vchip[k] < 0)
            continue; /* a chip this scan does not answer for */
        if ((rc = note_result(g, w, k, (size_t)g->vchip[k], v->path)))
            return rc;
        if (e->passed)
            passed |= 1ull << g->vchip[k];
        else
            failed = 1;
    }
    w->verify_failed |= (uint8_t)failed;
    if (!failed && passed == all)
        w->op->verified_instances++;
    return OPMAP_OK;
}

int om_scan_verify_finish(group *g, om_op_work *w)
{
    opmap_result *res = g->res;
    opmap_op *op = w->op;
    if (w->verified.len) {
        if (!(op->verified = om_arena_array(&res->arena, w->verified.len, sizeof(om_verified))))
            return om_scan_oom(g);
        memcpy(op->verified, w->verified.data, w->verified.len * sizeof(om_verified));
        op->n_verified = w->verified.len;
    }
    op->verify_state = w->verify_failed                                     ? OPMAP_VERIFY_FAIL
                       : op->instances && op->verified_instances == op->instances ? OPMAP_VERIFY_PASS
                       : op->n_verified || op->verified_dropped             ? OPMAP_VERIFY_PARTLY
                                                                            : OPMAP_VERIFY_NONE;
    return OPMAP_OK;
}
