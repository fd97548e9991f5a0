/*
 * policy/verdict.c - findings from scan results, the policy's answer, and waivers.
 *
 * Findings, per model: one per distinct operator whose status is unmapped / rewrite /
 * partial; one per operator risk flag (precision, performance, ...); one per model-level
 * risk (dynamic dimensions, float64 values); and one for the whole scan when the estimate
 * is over max_effort; one per file the scan did not read (policy version 2: unreadable,
 * which always fails and makes the verdict incomplete, or skipped). A finding fails the
 * gate when its kind is in fail_on and no valid waiver covers it; an expired waiver that
 * would cover it fails the gate by itself.
 */
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/info.h"
#include "scan/result_estimate.h"
#include "scan/result_internal.h"
#include "kinds.h"
#include "gate.h"
#include "policy_internal.h"

static const char *const kind_names[OPMAP_FAIL_KIND_COUNT] = {
    "unmapped", "rewrite", "partial", "precision", "performance", "dynamic-shape", "rng",
    "inf-nan", "nondeterministic", "deprecated", "dtype", "effort", "external-data",
    "unreadable", "skipped", "not-inlined", "source-rewrite", "source-manual", "source-unknown", "advice",
    "source-unscanned"
};

const char *opmap_fail_kind_name(unsigned index)
{
    return index < OPMAP_FAIL_KIND_COUNT ? kind_names[index] : NULL;
}

static unsigned kind_bit(const char *name, size_t len)
{
    unsigned i;
    for (i = 0; i < OPMAP_FAIL_KIND_COUNT; i++)
        if (strlen(kind_names[i]) == len && strncmp(kind_names[i], name, len) == 0)
            return 1u << i;
    /* the table's spelling of flags is accepted too */
    if (len == 13 && strncmp(name, "dynamic_shape", len) == 0)
        return OPMAP_FAIL_DYNAMIC_SHAPE;
    if (len == 7 && strncmp(name, "inf_nan", len) == 0)
        return OPMAP_FAIL_INF_NAN;
    return 0;
}

int opmap_fail_on_parse(const char *list, unsigned *out, opmap_error *err)
{
    const char *p = list;
    unsigned bits = 0;
    om_err_clear(err);
    if (!list || !out)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_fail_on_parse: NULL argument");
    while (*p) {
        size_t len = strcspn(p, ", ");
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            bits |= (1u << OPMAP_FAIL_KIND_COUNT) - 1;
        } else if (len) {
            unsigned b = kind_bit(p, len);
            if (!b)
                return om_fail(err, OPMAP_EINVAL, NULL,
                               "unknown finding kind '%.*s' (expected unmapped, rewrite, partial, "
                               "precision, performance, dynamic-shape, rng, inf-nan, "
                               "nondeterministic, deprecated, dtype, effort, external-data, "
                               "unreadable, skipped, not-inlined, source-rewrite, source-manual, "
                               "source-unknown, advice, source-unscanned, all)",
                               (int)len, p);
            bits |= b;
        }
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    *out = bits;
    return OPMAP_OK;
}

typedef struct builder {
    opmap_verdict *v;
    om_vec list;   /* opmap_finding */
    const opmap_policy *policy;
    unsigned fail_on;
    const opmap_waivers *ws;
    om_widx exact;           /* waivers naming no model, a model literally, or "*" */
    om_widx matched;         /* waivers whose model glob matches `matched_for` */
    uint32_t *globs;         /* waivers with a model glob, in file order */
    const char **glob_pats;  /* ... and their patterns, spelled as model keys are */
    size_t n_globs;
    const char *matched_for;
    const char *cwd;         /* NULL: unknown; model keys are then only cleaned */
    om_arena tmp;            /* the index's strings */
    om_vec keys;             /* const char *: each finding's model key (model_path.c) */
    const char *key_of, *key;   /* the last model given a key, and that key */
    om_arena *strings;       /* the findings' strings: the verdict's arena, or `scratch` */
    om_arena scratch;        /* spooled findings' (om_gate_spool), freed at each take */
    int spooling;
    size_t spooled, spooled_failing;
} builder;

static int index_waivers(builder *b)
{
    const opmap_waivers *ws = b->ws;
    size_t i;
    int rc = OPMAP_OK;
    om_widx_init(&b->exact, &b->v->mem, ws);
    om_widx_init(&b->matched, &b->v->mem, ws);
    if (!ws || !ws->n)
        return OPMAP_OK;
    if (ws->n >= UINT32_MAX || !(b->globs = om_alloc(&b->v->mem, ws->n * sizeof(*b->globs))) ||
        !(b->glob_pats = om_alloc(&b->v->mem, ws->n * sizeof(*b->glob_pats))))
        return OPMAP_ENOMEM;
    for (i = 0; i < ws->n && rc == OPMAP_OK; i++) {
        const om_waiver *w = &ws->w[i];
        int cls = om_waiver_model_class(w);
        const char *model = NULL;
        if (cls != OM_WMODEL_ANY && !(model = om_model_key(&b->tmp, w->model, b->cwd)))
            return OPMAP_ENOMEM;
        if (cls == OM_WMODEL_GLOB) {
            b->glob_pats[b->n_globs] = model;
            b->globs[b->n_globs++] = (uint32_t)i;
        } else {
            rc = om_widx_add(&b->exact, (uint32_t)i, model);
        }
    }
    return rc;
}

static void free_index(builder *b)
{
    om_widx_clear(&b->exact);
    om_widx_clear(&b->matched);
    if (b->globs)
        om_dealloc(&b->v->mem, b->globs, b->ws->n * sizeof(*b->globs));
    if (b->glob_pats)
        om_dealloc(&b->v->mem, b->glob_pats, b->ws->n * sizeof(*b->glob_pats));
    om_arena_free(&b->tmp);
}

/* The model globs are tried once per model, not once per finding. */
static int match_model_globs(builder *b, const char *model)
{
    size_t i;
    int rc = OPMAP_OK;
    if (b->matched_for && strcmp(b->matched_for, model) == 0)
        return OPMAP_OK;
    om_widx_clear(&b->matched);
    b->matched_for = NULL;
    for (i = 0; i < b->n_globs && rc == OPMAP_OK; i++) {
        b->v->pattern_compares++;
        if (om_glob(b->glob_pats[i], model))
            rc = om_widx_add(&b->matched, b->globs[i], NULL);
    }
    if (rc == OPMAP_OK)
        b->matched_for = model;
    return rc;
}

/* The first waiver in file order that covers the finding (in model `key`): *out, or NULL. */
static int find_waiver(builder *b, const opmap_finding *f, const char *key, const opmap_op *op,
                       const om_waiver **out)
{
    const char *const *paths = op ? op->paths : &f->node;
    size_t n_paths = op ? op->n_paths : 1;
    uint32_t best = UINT32_MAX;
    int rc;
    *out = NULL;
    if (!b->ws || !b->ws->n)
        return OPMAP_OK;
    if ((rc = match_model_globs(b, key)))
        return rc;
    best = om_widx_query(&b->exact, key, f->domain, f->op, f->kind, paths, n_paths, best,
                         &b->v->pattern_compares);
    best = om_widx_query(&b->matched, NULL, f->domain, f->op, f->kind, paths, n_paths, best,
                         &b->v->pattern_compares);
    if (best != UINT32_MAX)
        *out = &b->ws->w[best];
    return OPMAP_OK;
}

static int add(builder *b, unsigned kind, const char *model, const opmap_op *op,
               const char *node, const char *message, uint64_t instances)
{
    om_arena *A = b->strings;
    opmap_finding *f = om_vec_push(&b->list, &b->v->mem);
    const om_waiver *w;
    const char **key;
    int rc;
    if (!f || !(f->message = om_arena_strdup(A, message)) ||
        !(f->node = om_arena_strdup(A, node ? node : "")))
        return OPMAP_ENOMEM;
    /* "one line": operator names in it come from the model (newlines, escape sequences) */
    om_one_line((char *)f->message);
    f->kind = kind;
    f->domain = op ? op->domain : "";
    f->op = op ? op->name : "";
    f->instances = instances;
    if (!(f->model = om_arena_strdup(A, model)) || !(f->domain = om_arena_strdup(A, f->domain)) ||
        !(f->op = om_arena_strdup(A, f->op)))
        return OPMAP_ENOMEM;
    f->waiver_reason = f->waiver_owner = f->waiver_expires = "";
    if (!b->key_of || strcmp(b->key_of, model) != 0) {
        if (!(b->key = om_model_key(A, model, b->cwd)))
            return OPMAP_ENOMEM;
        b->key_of = f->model;
    }
    if (!(key = om_vec_push(&b->keys, &b->v->mem)))
        return OPMAP_ENOMEM;
    *key = b->key;
    w = NULL;
    if (kind != OPMAP_FAIL_UNREADABLE && (rc = find_waiver(b, f, b->key, op, &w)))
        return rc;
    if (w) {
        f->waived = 1;
        f->waiver_reason = w->reason;
        f->waiver_owner = w->owner;
        f->waiver_expires = w->expires;
        f->waiver_expired = strcmp(w->expires, b->v->today) < 0;
    }
    /* a source file not scanned fails wherever the sources are gated: the source gate
     * has not seen it */
    f->fails = f->waiver_expired ||
               ((b->fail_on & (kind == OPMAP_FAIL_SOURCE_UNSCANNED ? OPMAP_FAIL_SOURCE_KINDS
                                                                   : kind)) && !f->waived) ||
               kind == OPMAP_FAIL_UNREADABLE;
    return OPMAP_OK;
}

/* Files the scan did not read: what the gate has not seen is not passed. One finding per
 * problem, in the problems' order (the JUnit writer walks them with a cursor). */
static int problem_findings(builder *b, const opmap_file_problem *p, size_t n)
{
    size_t i;
    int rc;
    for (i = 0; i < n; i++) {
        char msg[1200];
        const char *file = p[i].file ? p[i].file : "";
        if (p[i].error)
            opmap_error_format(p[i].error, msg, sizeof(msg));
        else
            snprintf(msg, sizeof(msg), "%s: %s", file, p[i].skipped ? "skipped" : "not read");
        if (!p[i].skipped)
            b->v->incomplete = 1;
        if ((rc = add(b, p[i].skipped ? OPMAP_FAIL_SKIPPED : OPMAP_FAIL_UNREADABLE, file, NULL,
                      "", msg, 0)))
            return rc;
    }
    return OPMAP_OK;
}

static int model_findings(builder *b, const opmap_result *r)
{
    size_t i, k;
    char msg[600];
    int rc;
    for (i = 0; i < r->n_ops; i++) {
        const opmap_op *op = r->ops[i];
        const char *first = op->n_paths ? op->paths[0] : "";
        unsigned kind = om_op_kind(op), flag_kinds = om_flag_kinds(op->flags);
        if (kind && op->source) {
            snprintf(msg, sizeof(msg), "%s (%s::%s, %" PRIu64 " place%s) %s", first, op->domain,
                     op->name, op->instances, op->instances == 1 ? "" : "s",
                     kind == OPMAP_FAIL_SOURCE_REWRITE ? "has no NPU path: it must be rewritten"
                     : kind == OPMAP_FAIL_SOURCE_MANUAL ? "needs a code change"
                                                        : "has no published NPU answer");
            if ((rc = add(b, kind, r->model_name, op, first, msg, op->instances)))
                return rc;
        } else if (kind) {
            snprintf(msg, sizeof(msg), "%s::%s (opset %" PRId64 ") is %s on Ascend%s%s",
                     op->domain, op->name, op->opset, opmap_op_status_name(op->status),
                     op->n_reasons ? ": " : "", op->n_reasons ? op->reasons[0].message : "");
            if ((rc = add(b, kind, r->model_name, op, first, msg, op->instances)))
                return rc;
        }
        /* in flag order: precision, performance, dynamic-shape, rng, ... */
        for (k = 0; k < OPMAP_FAIL_KIND_COUNT; k++) {
            if (!(flag_kinds & (1u << k)))
                continue;
            snprintf(msg, sizeof(msg), "%s::%s is flagged %s", op->domain, op->name,
                     kind_names[k]);
            if ((rc = add(b, 1u << k, r->model_name, op, first, msg, op->instances)))
                return rc;
        }
    }
    for (i = 0; i < r->risks.len; i++) {
        const om_risk *k2 = &OM_VEC_AT(&r->risks, om_risk, i);
        unsigned kind = om_risk_kind(k2);
        if (!kind)
            continue;
        if ((rc = add(b, kind, r->model_name, NULL, k2->where, k2->message, 1)))
            return rc;
    }
    for (i = 0; i < r->diags.len; i++) { /* Python sources not scanned: one per file */
        const om_diag *d = &OM_VEC_AT(&r->diags, om_diag, i);
        if (!om_diag_unscanned(d))
            continue;
        snprintf(msg, sizeof(msg), "%.280s: %.300s", d->where, d->message);
        if ((rc = add(b, OPMAP_FAIL_SOURCE_UNSCANNED, r->model_name, NULL, d->where, msg, 1)))
            return rc;
    }
    for (i = 0; i < r->advice.len; i++) { /* fused kernels: one finding per pattern */
        const om_advice *a = &OM_VEC_AT(&r->advice, om_advice, i);
        if (!a->fused)
            continue;
        snprintf(msg, sizeof(msg), "%s: use %s", a->message, a->action);
        if ((rc = add(b, OPMAP_FAIL_ADVICE, r->model_name, NULL, a->where, msg, a->count)))
            return rc;
    }
    return OPMAP_OK;
}

struct om_gate {
    opmap_ctx *ctx;
    builder b;
    opmap_policy copy;
    int has_policy;
};

int om_gate_begin(om_gate **out, opmap_ctx *ctx, const opmap_policy *policy, opmap_error *err)
{
    opmap_verdict *v;
    om_gate *g;
    builder *b;
    om_err_clear(err);
    *out = NULL;
    if (policy && policy->version != 1 && policy->version != OPMAP_POLICY_VERSION)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_policy_check: policy version %u",
                       policy->version);
    if (policy && policy->version != 1 && policy->problem_count && !policy->problems)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_policy_check: NULL problems");
    if (!(g = om_ctx_calloc(ctx, sizeof(*g))))
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    if (!(v = om_ctx_calloc(ctx, sizeof(*v)))) {
        om_ctx_release(ctx, g);
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    }
    g->ctx = ctx;
    if (policy) { /* a version-1 caller's struct ends before `problems` */
        memcpy(&g->copy, policy, policy->version == 1 ? offsetof(opmap_policy, problems)
                                                      : sizeof(g->copy));
        g->has_policy = 1;
    }
    v->ctx = ctx;
    om_mem_init(&v->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&v->arena, &v->mem, 0);
    om_today(policy ? policy->today : NULL, v->today);
    b = &g->b;
    b->v = v;
    b->strings = &v->arena;
    om_arena_init(&b->scratch, &v->mem, 0);
    b->policy = policy ? &g->copy : NULL;
    b->fail_on = policy && policy->fail_on ? policy->fail_on : OPMAP_FAIL_UNMAPPED;
    b->ws = policy ? policy->waivers : NULL;
    om_vec_init(&b->list, sizeof(opmap_finding));
    om_vec_init(&b->keys, sizeof(const char *));
    om_arena_init(&b->tmp, &v->mem, 0);
    b->cwd = om_model_cwd(&b->tmp);
    *out = g;
    if (index_waivers(b) != OPMAP_OK) {
        om_gate_free(g);
        *out = NULL;
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    }
    return OPMAP_OK;
}

int om_gate_model(om_gate *g, const opmap_result *r, opmap_error *err)
{
    if (model_findings(&g->b, r) != OPMAP_OK)
        return om_fail_mem(err, &g->b.v->mem, NULL);
    return OPMAP_OK;
}

void om_gate_spool(om_gate *g)
{
    g->b.spooling = 1;
    g->b.strings = &g->b.scratch;
}

int om_gate_take(om_gate *g, om_gate_finding_fn fn, void *payload)
{
    builder *b = &g->b;
    size_t i;
    int rc = OPMAP_OK;
    for (i = 0; i < b->list.len && rc == OPMAP_OK; i++) {
        const opmap_finding *f = &OM_VEC_AT(&b->list, opmap_finding, i);
        b->spooled++;
        b->spooled_failing += f->fails != 0;
        rc = fn(payload, f);
    }
    b->list.len = 0;
    b->keys.len = 0;
    b->key_of = b->key = NULL;
    b->matched_for = NULL; /* its key was in the scratch too: match the globs again */
    om_arena_free(&b->scratch);
    om_arena_init(&b->scratch, &b->v->mem, 0);
    return rc;
}

size_t om_gate_spooled(const om_gate *g, size_t *failing)
{
    if (failing)
        *failing = g->b.spooled_failing;
    return g->b.spooled;
}

void om_gate_add_counted(om_gate *g, uint64_t findings, uint64_t failing)
{
    g->b.spooled += findings;
    g->b.spooled_failing += failing;
}

uint64_t om_waivers_digest(const opmap_waivers *ws)
{
    uint64_t h = OM_HASH_SEED;
    size_t i;
    if (!ws || !ws->n)
        return 0;
    for (i = 0; i < ws->n; i++) { /* what decides a finding: never the line it is on */
        const om_waiver *w = &ws->w[i];
        const char *f[7] = { w->domain, w->op, w->model, w->node, w->reason, w->owner,
                             w->expires };
        size_t k;
        for (k = 0; k < 7; k++) {
            h = om_hash_byte(h, f[k] ? 1 : 0);
            h = om_hash_byte(om_hash_str(h, f[k] ? f[k] : ""), 0);
        }
        h = om_hash_bytes(h, (const char *)&w->kind, sizeof(w->kind));
    }
    return h | 1; /* 0 is none */
}

int om_gate_wants_effort(const om_gate *g)
{
    return g->has_policy && g->copy.max_effort;
}

/* The estimate over the budget (`expected`: thousandths of a person-day, counted without
 * device results), as one finding. */
static int effort_finding(builder *b, const char *model, uint64_t expected)
{
    char msg[300], have[32], limit[32];
    int rc;
    if (expected <= b->policy->max_effort)
        return OPMAP_OK;
    snprintf(have, sizeof(have), "%.3f", (double)expected / 1000);
    snprintf(limit, sizeof(limit), "%.3f", (double)b->policy->max_effort / 1000);
    snprintf(msg, sizeof(msg), "the estimate, %s person-days, is over the limit of %s", have,
             limit);
    rc = add(b, OPMAP_FAIL_EFFORT, model, NULL, "", msg, 0);
    if (rc == OPMAP_OK) /* --max-effort is asked for explicitly: it always counts */
        OM_VEC_AT(&b->list, opmap_finding, b->list.len - 1).fails = 1;
    return rc;
}

int om_gate_end(om_gate *g, size_t count, const char *only_model, uint64_t unverified_expected,
                const opmap_file_problem *problems, size_t n_problems, opmap_verdict **out,
                opmap_error *err)
{
    builder *b = &g->b;
    opmap_verdict *v = b->v;
    size_t i;
    int rc = OPMAP_OK;
    *out = NULL;
    b->strings = &v->arena; /* what is left is the verdict's */
    if (g->has_policy)
        rc = problem_findings(b, problems, n_problems);
    if (g->has_policy && n_problems && !count)
        v->incomplete = 1; /* every file skipped: nothing was checked, so nothing passed */
    if (rc == OPMAP_OK && om_gate_wants_effort(g))
        rc = effort_finding(b, count == 1 ? only_model : "", unverified_expected);
    if (rc == OPMAP_OK && b->list.len) {
        if (!(v->findings = om_arena_array(&v->arena, b->list.len, sizeof(opmap_finding)))) {
            rc = OPMAP_ENOMEM;
        } else {
            memcpy(v->findings, b->list.data, b->list.len * sizeof(opmap_finding));
            v->n = b->list.len;
        }
        if (rc == OPMAP_OK &&
            !(v->keys = om_arena_array(&v->arena, b->keys.len, sizeof(const char *))))
            rc = OPMAP_ENOMEM;
        else if (rc == OPMAP_OK)
            memcpy(v->keys, b->keys.data, b->keys.len * sizeof(const char *));
    }
    if (rc != OPMAP_OK) {
        rc = om_fail_mem(err, &v->mem, NULL);
        om_gate_free(g);
        return rc;
    }
    v->passed = !b->spooled_failing;
    for (i = 0; i < v->n; i++)
        if (v->findings[i].fails)
            v->passed = 0;
    om_arena_free(&b->scratch);
    om_vec_free(&b->list, &v->mem);
    om_vec_free(&b->keys, &v->mem);
    free_index(b);
    b->v = NULL; /* the verdict is the caller's now */
    om_gate_free(g);
    *out = v;
    return OPMAP_OK;
}

void om_gate_free(om_gate *g)
{
    builder *b;
    if (!g)
        return;
    b = &g->b;
    if (b->v) {
        om_arena_free(&b->scratch);
        om_vec_free(&b->list, &b->v->mem);
        om_vec_free(&b->keys, &b->v->mem);
        free_index(b);
        opmap_verdict_free(b->v);
    }
    om_ctx_release(g->ctx, g);
}

int opmap_policy_check(opmap_verdict **out, opmap_ctx *ctx, const opmap_result *const *results,
                       size_t count, const opmap_policy *policy, opmap_error *err)
{
    om_gate *g;
    uint64_t expected = 0;
    size_t i;
    int rc;
    om_err_clear(err);
    if (!out || !ctx || (count && !results))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_policy_check: NULL argument");
    *out = NULL;
    if ((rc = om_gate_begin(&g, ctx, policy, err)))
        return rc;
    for (i = 0; i < count && rc == OPMAP_OK; i++)
        rc = om_gate_model(g, results[i], err);
    if (rc == OPMAP_OK && om_gate_wants_effort(g)) {
        om_portfolio p;
        om_mem *mem = &g->b.v->mem;
        /* the budget counts every operator at its full range: device results make a
         * verified pass cost its minimum in the reports, but a results file is evidence
         * for the report, never for the gate (anyone can write one) */
        if (om_result_portfolio_as(results, count, mem, &p, 1) != OPMAP_OK) {
            rc = om_fail_mem(err, mem, NULL);
        } else {
            expected = p.summary.effort_total.expected;
            om_portfolio_free(&p, mem);
        }
    }
    if (rc != OPMAP_OK) {
        om_gate_free(g);
        return rc;
    }
    return om_gate_end(g, count, count == 1 ? results[0]->model_name : "", expected,
                       policy ? g->copy.problems : NULL, policy ? g->copy.problem_count : 0,
                       out, err);
}

void opmap_verdict_free(opmap_verdict *v)
{
    if (!v)
        return;
    om_arena_free(&v->arena);
    om_ctx_release(v->ctx, v);
}

int opmap_verdict_passed(const opmap_verdict *v)
{
    return v->passed && !v->incomplete;
}

int opmap_verdict_incomplete(const opmap_verdict *v)
{
    return v->incomplete;
}

size_t opmap_verdict_finding_count(const opmap_verdict *v)
{
    return v->n;
}

int opmap_verdict_finding(const opmap_verdict *v, size_t i, opmap_finding *out)
{
    opmap_finding f;
    if (!v || i >= v->n)
        return OPMAP_EINVAL;
    f = v->findings[i];
    f.size = sizeof(f);
    return OM_INFO_FILL(out, &f, opmap_finding, waiver_expires);
}
