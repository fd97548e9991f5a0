/*
 * report/verified.c - device results (scan --results, docs/testgen.md) in words, for every
 * writer: one result ("fail on Ascend910B3 (torch_npu 2.1.0, CANN 8.0.RC1): max abs error
 * 0.031, ..."), an operator's state in one phrase, a model's counts. Writers escape the
 * text for their format: a report read back by merge may hold any string.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "scan/result_internal.h"
#include "verified.h"

void om_format_measure(double v, char *buf, size_t size)
{
    size_t i, k = 0;
    if (isnan(v)) {
        snprintf(buf, size, "n/a");
        return;
    }
    snprintf(buf, size, "%.3g", v);
    /* '.' whatever the host's LC_NUMERIC made %g write (as jsonw.c does) */
    for (i = 0; buf[i]; i++) {
        unsigned char c = (unsigned char)buf[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'i' ||
            c == 'n' || c == 'f')
            buf[k++] = (char)c;
        else if ((c < 0x80 || !(c & 0x40)) && (k == 0 || buf[k - 1] != '.'))
            buf[k++] = '.';
    }
    buf[k] = '\0';
}

void om_verify_run(const om_verified *x, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    om_appendf(buf, size, &used, "%s (torch_npu %s, CANN %s)", x->chip,
               x->torch_npu[0] ? x->torch_npu : "unknown", x->cann[0] ? x->cann : "unknown");
}

/* ": max abs error 0.031, max rel error 0.12" ("" when neither was measured: an exact
 * comparison of integers or bools). */
static void errors(const om_verified *x, char *buf, size_t size, size_t *used)
{
    char a[32], r[32];
    if (isnan(x->max_abs) && isnan(x->max_rel))
        return;
    om_format_measure(x->max_abs, a, sizeof(a));
    om_format_measure(x->max_rel, r, sizeof(r));
    om_appendf(buf, size, used, ": max abs error %s, max rel error %s", a, r);
}

void om_verify_result(const om_verified *x, char *buf, size_t size)
{
    char run[256], d[32], c[32];
    size_t used = 0;
    om_verify_run(x, run, sizeof(run));
    buf[0] = '\0';
    om_appendf(buf, size, &used, "%s on %s", x->passed ? "pass" : "FAIL", run);
    errors(x, buf, size, &used);
    if (!isnan(x->device_ms) || !isnan(x->cpu_ms)) {
        om_format_measure(x->device_ms, d, sizeof(d));
        om_format_measure(x->cpu_ms, c, sizeof(c));
        om_appendf(buf, size, &used, "; %s ms on the NPU, %s ms on the CPU", d, c);
    }
    if (x->standard[0])
        om_appendf(buf, size, &used, " (%s standard)", x->standard);
    if (x->message[0])
        om_appendf(buf, size, &used, ": %.200s", x->message);
}

/* The result the operator's state rests on: the first failure, else the first. */
static const om_verified *telling(const opmap_op *op)
{
    size_t i;
    for (i = 0; i < op->n_verified; i++)
        if (!op->verified[i].passed)
            return &op->verified[i];
    return op->n_verified ? &op->verified[0] : NULL;
}

void om_verify_summary(const opmap_op *op, char *buf, size_t size)
{
    const om_verified *x = telling(op);
    char run[256];
    size_t used = 0;
    buf[0] = '\0';
    if (!x) {
        if (op->verify_state != OPMAP_VERIFY_NONE)
            om_appendf(buf, size, &used, "%s on the device", op->verify_state == OPMAP_VERIFY_FAIL
                                                                  ? "failed" : "partly verified");
        return;
    }
    om_verify_run(x, run, sizeof(run));
    if (op->verify_state == OPMAP_VERIFY_FAIL) {
        om_appendf(buf, size, &used, "failed on %s", run);
        errors(x, buf, size, &used);
    } else if (op->verify_state == OPMAP_VERIFY_PASS) {
        om_appendf(buf, size, &used, "verified on %s: pass", run);
    } else {
        om_appendf(buf, size, &used, "partly verified on %s: %llu of %llu instances pass on every "
                   "chip", run, (unsigned long long)op->verified_instances,
                   (unsigned long long)op->instances);
    }
    if (op->n_verified > 1)
        om_appendf(buf, size, &used, " (%zu results)", op->n_verified + (size_t)op->verified_dropped);
}

void om_verify_counts(const opmap_result *r, size_t count[4])
{
    size_t i;
    memset(count, 0, 4 * sizeof(*count));
    for (i = 0; i < r->n_ops; i++)
        if (r->ops[i]->verify_state < 4)
            count[r->ops[i]->verify_state]++;
}

int om_report_verified(const om_report_in *in)
{
    size_t i, j;
    for (i = 0; i < in->count; i++)
        for (j = 0; j < in->results[i]->n_ops; j++)
            if (in->results[i]->ops[j]->verify_state != OPMAP_VERIFY_NONE)
                return 1;
    return 0;
}

void om_verify_counts_text(const opmap_result *r, char *buf, size_t size)
{
    size_t n[4], used = 0;
    om_verify_counts(r, n);
    buf[0] = '\0';
    if (!n[OPMAP_VERIFY_PASS] && !n[OPMAP_VERIFY_FAIL] && !n[OPMAP_VERIFY_PARTLY])
        return;
    om_appendf(buf, size, &used, "%zu operator%s pass%s on the device, %zu fail%s, %zu partly "
               "verified (a pass on every instance costs its effort's minimum)",
               n[OPMAP_VERIFY_PASS], n[OPMAP_VERIFY_PASS] == 1 ? "" : "s",
               n[OPMAP_VERIFY_PASS] == 1 ? "es" : "", n[OPMAP_VERIFY_FAIL],
               n[OPMAP_VERIFY_FAIL] == 1 ? "s" : "", n[OPMAP_VERIFY_PARTLY]);
}
