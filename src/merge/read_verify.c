/*
 * merge/read_verify.c - an operator's "verification" (device results that matched its
 * instances, opmap scan --results) read back: each result's strings and numbers checked,
 * its family one of the report's chips, and the state held against what it rests on (a
 * failed result makes it fail; a pass covers every instance at the effort's minimum).
 */
#include <math.h>
#include <string.h>

#include <opmap/verify.h>

#include "core/err.h"
#include "core/text.h"
#include "merge_internal.h"

static const char *state_name(int s) { return opmap_verify_state_name(s); }
static const char *outcome_name(int s) { return s == 0 ? "fail" : s == 1 ? "pass" : NULL; }

/* A measurement: null (NaN: not measured) or a finite number >= 0. */
static int measure(rr *r, const oj_value *o, const char *key, double *out)
{
    const oj_value *v = oj_get(o, key);
    if (v && v->type == OJ_NULL) {
        *out = NAN;
        return OPMAP_OK;
    }
    if (!v || v->type != OJ_NUMBER || !isfinite(v->d) || v->d < 0)
        return rr_fail(r, v ? v : o, key, v ? "not a number >= 0 or null" : "missing");
    *out = om_measure_round(v->d); /* the scan's double, whatever digits the reader rounds */
    return OPMAP_OK;
}

static int read_result(rr *r, opmap_result *res, const oj_value *o, om_verified *x)
{
    om_arena *A = &res->arena;
    const char *family;
    int rc, passed;
    size_t c;
    if ((rc = rr_str(r, o, "signature", A, &x->signature)) ||
        (rc = rr_str(r, o, "chip", A, &x->chip)) || (rc = rr_str(r, o, "family", NULL, &family)) ||
        (rc = rr_str(r, o, "torch_npu", A, &x->torch_npu)) ||
        (rc = rr_str(r, o, "cann", A, &x->cann)) ||
        (rc = rr_name(r, o, "outcome", outcome_name, 2, &passed)) ||
        (rc = rr_str(r, o, "standard", A, &x->standard)) ||
        (rc = measure(r, o, "max_abs_error", &x->max_abs)) ||
        (rc = measure(r, o, "max_rel_error", &x->max_rel)) ||
        (rc = measure(r, o, "cpu_ms", &x->cpu_ms)) ||
        (rc = measure(r, o, "device_ms", &x->device_ms)) ||
        (rc = rr_str(r, o, "message", A, &x->message)) ||
        (rc = rr_str(r, o, "source", A, &x->source)) ||
        (rc = rr_uint(r, o, "instances", &x->instances)) ||
        (rc = rr_str(r, o, "example", A, &x->example)))
        return rc;
    for (c = 0; c < res->n_chips && strcmp(family, res->chips[c]) != 0; c++)
        ;
    if (c == res->n_chips)
        return rr_fail(r, oj_get(o, "family"), "family", "not a chip of the report");
    x->family = res->chips[c];
    x->passed = (uint8_t)passed;
    if (!x->instances)
        return rr_fail(r, oj_get(o, "instances"), "instances", "0");
    return OPMAP_OK;
}

static int read_results(rr *r, opmap_result *res, const oj_value *v, opmap_op *op, int *failed)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, v, "results", &a);
    if (rc)
        return rc;
    if (a->n > OM_MAX_VERIFIED)
        return rr_fail(r, a, "results", "more than %d (a scan keeps at most that many)",
                       OM_MAX_VERIFIED);
    if (a->n && !(op->verified = om_arena_array(&res->arena, a->n, sizeof(om_verified))))
        return om_fail_mem(r->err, &res->mem, r->source);
    for (i = 0; i < a->n; i++) {
        if ((rc = read_result(r, res, &a->kids[i], &op->verified[i])))
            return rc;
        *failed |= !op->verified[i].passed;
    }
    op->n_verified = a->n;
    return OPMAP_OK;
}

int om_merge_read_verification(rr *r, opmap_result *res, const oj_value *o, opmap_op *op)
{
    const oj_value *v = oj_get(o, "verification");
    int rc, state, failed = 0;
    if (!v)
        return OPMAP_OK;
    if ((rc = rr_obj(r, o, "verification", &v)) ||
        (rc = rr_name(r, v, "state", state_name, 4, &state)) ||
        (rc = rr_uint(r, v, "instances", &op->verified_instances)) ||
        (rc = read_results(r, res, v, op, &failed)))
        return rc;
    if (oj_get(v, "results_dropped") && (rc = rr_uint(r, v, "results_dropped", &op->verified_dropped)))
        return rc;
    /* a pass narrowed the effort to its minimum; the gate counts the range it narrowed */
    if (state == OPMAP_VERIFY_PASS) {
        if ((rc = rr_effort(r, v, "effort_unverified", &op->effort_unverified)))
            return rc;
        if (op->effort_unverified.min != op->effort.min ||
            op->effort_unverified.expected < op->effort_unverified.min ||
            op->effort_unverified.max < op->effort_unverified.expected)
            return rr_fail(r, oj_get(v, "effort_unverified"), "effort_unverified",
                           "not a range whose minimum is the effort written");
    } else if (oj_get(v, "effort_unverified")) {
        return rr_fail(r, oj_get(v, "effort_unverified"), "effort_unverified",
                       "given for a state other than pass");
    }
    if (state == OPMAP_VERIFY_NONE || (failed && state != OPMAP_VERIFY_FAIL) ||
        op->verified_instances > op->instances ||
        (state == OPMAP_VERIFY_PASS &&
         (op->verified_instances != op->instances || op->effort.expected != op->effort.min ||
          op->effort.max != op->effort.min)))
        return rr_fail(r, v, "state", "%s does not follow from the results, instances and "
                       "effort written", opmap_verify_state_name(state));
    op->verify_state = (uint8_t)state;
    return OPMAP_OK;
}
