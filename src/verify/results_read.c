/*
 * verify/results_read.c - one results file read and checked (schema "opmap-results/1",
 * docs/testgen.md): the run's chip and versions, then each test's signature, outcome and
 * numbers. The file comes from another machine and through people's hands: every member is
 * checked for its type and range, and an error names the file, the byte offset and the
 * member ("results[3].max_abs_error: negative").
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "signature/signature.h"
#include "results_read.h"

/* Longest chip, version and standard names, and messages, in bytes. */
#define RR_NAME_MAX 64
#define RR_OP_MAX 600
#define RR_MESSAGE_MAX 1024

static int fail(rd *r, const oj_value *at, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(rd *r, const oj_value *at, const char *member, const char *fmt, ...)
{
    char msg[320], what[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(what, sizeof(what), "%s%s%s", r->where, r->where[0] && member[0] ? "." : "",
             member);
    return om_fail_at(r->err, OPMAP_EFORMAT, r->source, at ? at->offset : 0, "%s%s%s", what,
                      what[0] ? ": " : "", msg);
}

/* Printable ASCII only (chips, versions, signatures, operators): what reports print bare. */
static int printable(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return 0;
    return 1;
}

/* A string member of at most max bytes (min 1 when !empty_ok); printable ASCII unless any. */
static int string(rd *r, const oj_value *o, const char *key, size_t max, int empty_ok,
                  int any, const char **out)
{
    const oj_value *v = oj_get(o, key);
    if (!v)
        return fail(r, o, key, "missing");
    if (v->type != OJ_STRING)
        return fail(r, v, key, "not a string");
    if (v->len > max)
        return fail(r, v, key, "%zu bytes, more than %zu", v->len, max);
    if (!v->len && !empty_ok)
        return fail(r, v, key, "empty");
    if (!any && !printable(v->s, v->len))
        return fail(r, v, key, "not printable ASCII");
    *out = v->s;
    return OPMAP_OK;
}

/* A measurement: a finite number >= 0, or null (not measured: *out NaN). */
static int measure(rd *r, const oj_value *o, const char *key, double *out)
{
    const oj_value *v = oj_get(o, key);
    if (!v)
        return fail(r, o, key, "missing");
    if (v->type == OJ_NULL) {
        *out = NAN;
        return OPMAP_OK;
    }
    if (v->type != OJ_NUMBER || !isfinite(v->d))
        return fail(r, v, key, "not a finite number or null");
    if (v->d < 0)
        return fail(r, v, key, "negative");
    *out = v->d;
    return OPMAP_OK;
}

static const char *const outcomes[] = { "fail", "pass", "error", "skipped" };

/* The signature must be of the operator it says: "op" then '(', '.' (an overload) or '@'. */
static int same_op(const char *op, const char *sig)
{
    size_t n = strlen(op);
    return strncmp(sig, op, n) == 0 && (sig[n] == '(' || sig[n] == '.' || sig[n] == '@');
}

/* The test's id must be the one opmap testgen gave the test of that signature (with the
 * "_<n>" testgen adds to the second of two sharing one): a results file names the tests it
 * ran, and one that names others did not run these. */
static int test_id(rd *r, const oj_value *e, const rd_entry *x)
{
    const char *id;
    char want[64];
    size_t n;
    int rc = string(r, e, "id", 128, 0, 0, &id);
    if (rc)
        return rc;
    om_sig_test_id(x->op, x->signature, want, sizeof(want));
    n = strlen(want);
    if (strncmp(id, want, n) == 0 &&
        (!id[n] || (id[n] == '_' && id[n + 1] && strspn(id + n + 1, "0123456789") ==
                                                     strlen(id + n + 1))))
        return OPMAP_OK;
    return fail(r, oj_get(e, "id"), "id", "'%.80s' is not the test opmap testgen writes for "
                "this signature (%s): the results are not of its tests", id, want);
}

static int entry(rd *r, const oj_value *e, rd_entry *x)
{
    const oj_value *oc = oj_get(e, "outcome");
    int rc, k;
    if (e->type != OJ_OBJECT)
        return fail(r, e, "", "not an object");
    if ((rc = string(r, e, "op", RR_OP_MAX, 0, 0, &x->op)) ||
        (rc = string(r, e, "signature", OM_SIG_TEXT_MAX - 1, 0, 0, &x->signature)))
        return rc;
    if (!same_op(x->op, x->signature))
        return fail(r, oj_get(e, "signature"), "signature", "not a signature of %.80s", x->op);
    if ((rc = test_id(r, e, x)))
        return rc;
    if (!oc || oc->type != OJ_STRING)
        return fail(r, oc ? oc : e, "outcome", oc ? "not a string" : "missing");
    for (k = 0; k < 4 && strcmp(oc->s, outcomes[k]) != 0; k++)
        ;
    if (k == 4)
        return fail(r, oc, "outcome", "not pass, fail, error or skipped");
    x->outcome = k;
    if ((rc = string(r, e, "standard", RR_NAME_MAX, 1, 0, &x->standard)) ||
        (rc = measure(r, e, "max_abs_error", &x->max_abs)) ||
        (rc = measure(r, e, "max_rel_error", &x->max_rel)) ||
        (rc = measure(r, e, "cpu_ms", &x->cpu_ms)) ||
        (rc = measure(r, e, "device_ms", &x->device_ms)))
        return rc;
    x->message = "";
    if (oj_get(e, "message"))
        return string(r, e, "message", RR_MESSAGE_MAX, 1, 1, &x->message);
    return OPMAP_OK;
}

static int header(rd *r, const oj_value *root, rd_file *f)
{
    const char *schema, *device;
    int rc;
    if (root->type != OJ_OBJECT)
        return fail(r, root, "", "not a results file (a JSON object)");
    if ((rc = string(r, root, "schema", RR_NAME_MAX, 0, 0, &schema)))
        return rc;
    if (strcmp(schema, OPMAP_RESULTS_SCHEMA) != 0)
        return fail(r, oj_get(root, "schema"), "schema", "'%s': this opmap reads %s", schema,
                    OPMAP_RESULTS_SCHEMA);
    if ((rc = string(r, root, "device", RR_NAME_MAX, 0, 0, &device)))
        return rc;
    if (strcmp(device, "npu") != 0)
        return fail(r, oj_get(root, "device"), "device",
                    "'%s': only a run on the NPU verifies anything (--device cpu checks "
                    "that the tests themselves run)", device);
    if ((rc = string(r, root, "chip", RR_NAME_MAX, 0, 0, &f->chip)) ||
        (rc = string(r, root, "torch_npu", RR_NAME_MAX, 1, 0, &f->torch_npu)) ||
        (rc = string(r, root, "cann", RR_NAME_MAX, 1, 0, &f->cann)))
        return rc;
    if (!(f->results = oj_arr(root, "results")))
        return fail(r, oj_get(root, "results") ? oj_get(root, "results") : root, "results",
                    oj_get(root, "results") ? "not an array" : "missing");
    return OPMAP_OK;
}

int om_results_header(rd *r, const oj_value *root, rd_file *f)
{
    r->where[0] = '\0';
    return header(r, root, f);
}

int om_results_entries(rd *r, const rd_file *f, rd_entry *entries)
{
    size_t i;
    int rc;
    for (i = 0; i < f->results->n; i++) {
        snprintf(r->where, sizeof(r->where), "results[%zu]", i);
        if ((rc = entry(r, &f->results->kids[i], &entries[i])))
            return rc;
    }
    r->where[0] = '\0';
    return OPMAP_OK;
}
