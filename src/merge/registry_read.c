/*
 * merge/registry_read.c - a registry report read back (registry_read.h; docs/reports.md
 * "Registry"): the file in chunks (core/json_stream), its header held against the set as a
 * JSON report's is (report_set.c), then each row of "models" and of "operators" cut out,
 * parsed and checked on its own and handed on; the members after them are kept (a few
 * hundred bytes) to hold the report's counts against its rows: totals, headline, the
 * portfolio's sums, the gate's counts, each verdict against its counts under the report's
 * rule. What a report keeps in the set is its files not read and two hashes of each file's
 * name (overlapping shards are refused); its distinct operators are held while it is read.
 *
 * A row is a positional array; it is read as an object whose members are named by the
 * columns, so that every error names the field ("models[3].coverage").
 */
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/json_stream.h"
#include "estimate/portfolio.h"
#include "policy/headline.h"
#include "table/table_internal.h"
#include "merge_internal.h"
#include "registry_read.h"

#define MAX_MEMBERS 32   /* a registry report has 17 top-level members */
#define MAX_PHRASE 1024  /* bytes of what an operator becomes */

typedef struct rg {
    opmap_report_set *s;
    const om_reg_sink *sink;
    oj_stream js;
    oj_src src;
    om_arena tree;            /* the members other than the rows */
    oj_value root, *kids;
    struct rr_seg segs[MAX_MEMBERS];
    struct rr_seg row;        /* the row being read */
    rr r;
    rr_header h;
    int have_models, have_ops, have_columns;
    size_t members, n, n_ops;
    unsigned blocked_on, needs_work_on;   /* the report's rule (headline.rule) */
    const char *dir;          /* what every row's file follows ("root") */
    size_t dir_len;
    om_portfolio ops;         /* the report's distinct operators, for its counts */
    uint64_t row_ops, row_inst, op_models, op_inst, findings, failing;
    opmap_effort separately;
} rg;

static const char *status_name(int i) { return opmap_op_status_name(i); }
static const char *readiness_name(int i) { return opmap_readiness_name(i); }
static const char *kind_name(int i) { return opmap_fail_kind_name((unsigned)i); }
static const char *flag_name(int i) { return opmap_flag_name((unsigned)i); }

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static int parse_val(rg *x, om_arena *arena, oj_value **out)
{
    oj_src src = x->src;
    int rc;
    src.arena = arena;
    if ((rc = oj_parse(&src, x->js.val, x->js.val_len, out)) && x->r.err &&
        x->r.err->offset != OPMAP_NO_OFFSET)
        x->r.err->offset += x->js.val_offset;
    return rc;
}

/* A positional array named as an object (its members keyed by `names`), exactly n long. */
static int as_object(rr *r, oj_value *v, const char *field, size_t n,
                     const char *(*name)(size_t), oj_value *obj)
{
    size_t i;
    if (v->type != OJ_ARRAY || v->n != n)
        return rr_fail(r, v, field, "not an array of %zu", n);
    for (i = 0; i < n; i++)
        v->kids[i].key = name(i);
    *obj = *v;
    obj->type = OJ_OBJECT;
    return OPMAP_OK;
}

static const char *effort_key(size_t i) { return i == 0 ? "min" : i == 1 ? "expected" : "max"; }
static const char *status_key(size_t i)
{
    return opmap_op_status_name(OPMAP_OP_STATUS_COUNT - 1 - (int)i);
}

/* [min, expected, max] */
static int effort3(rr *r, const oj_value *o, const char *key, opmap_effort *e)
{
    oj_value obj;
    int rc;
    if ((rc = as_object(r, (oj_value *)oj_get(o, key), key, 3, effort_key, &obj)))
        return rc;
    if ((rc = rr_days(r, &obj, "min", &e->min)) ||
        (rc = rr_days(r, &obj, "expected", &e->expected)))
        return rc;
    return rr_days(r, &obj, "max", &e->max);
}

/* By status, from unmapped to structural. */
static int by_status(rr *r, const oj_value *o, const char *key, uint64_t *out)
{
    oj_value obj;
    size_t i;
    int rc;
    if ((rc = as_object(r, (oj_value *)oj_get(o, key), key, OPMAP_OP_STATUS_COUNT, status_key,
                        &obj)))
        return rc;
    for (i = 0; i < OPMAP_OP_STATUS_COUNT; i++)
        if ((rc = rr_uint(r, &obj, status_key(i), &out[OPMAP_OP_STATUS_COUNT - 1 - i])))
            return rc;
    return OPMAP_OK;
}

/* Kind names (a rule, the gate's fail_on) into bits. */
static int kinds(rr *r, const oj_value *o, const char *key, unsigned *out)
{
    const oj_value *a;
    size_t i;
    int k, rc = rr_arr(r, o, key, &a);
    *out = 0;
    for (i = 0; rc == OPMAP_OK && i < a->n; i++) {
        oj_value one = a->kids[i];
        oj_value obj = { .type = OJ_OBJECT, .n = 1, .kids = &one, .offset = one.offset };
        one.key = key;
        if ((rc = rr_name(r, &obj, key, kind_name, OPMAP_FAIL_KIND_COUNT, &k)) == OPMAP_OK)
            *out |= 1u << k;
    }
    return rc;
}

/* The row's file after the root, into A. */
static int whole_file(rg *x, om_arena *A, om_reg_row *row)
{
    size_t n = strlen(row->file);
    char *f;
    if (!x->dir_len)
        return OPMAP_OK;
    if (!(f = om_arena_alloc(A, x->dir_len + n + 1)))
        return om_fail_mem(x->r.err, &x->s->mem, x->r.source);
    memcpy(f, x->dir, x->dir_len);
    memcpy(f + x->dir_len, row->file, n + 1);
    row->file = f;
    return OPMAP_OK;
}

/* One element of "models". */
static int read_row(rg *x, om_arena *A, oj_value *v, om_reg_row *row)
{
    rr *r = &x->r;
    oj_value o;
    uint64_t found, cov;
    opmap_headline h;
    int s, rc;
    memset(row, 0, sizeof(*row));
    rr_at(r, "models", x->n);
    if ((rc = as_object(r, v, NULL, OM_REG_MODEL_COLUMNS, om_reg_model_column, &o)) ||
        (rc = rr_str(r, &o, "file", NULL, &row->file)) || (rc = whole_file(x, A, row)) ||
        (rc = rr_name(r, &o, "verdict", readiness_name, 3, &row->verdict)) ||
        (rc = rr_days(r, &o, "coverage", &cov)) || (rc = effort3(r, &o, "effort", &row->effort)) ||
        (rc = by_status(r, &o, "operators", row->operators)) ||
        (rc = by_status(r, &o, "instances", row->instances)) ||
        (rc = rr_uint(r, &o, "found", &found)) || (rc = rr_uint(r, &o, "placed", &row->placed)) ||
        (rc = rr_uint(r, &o, "on_npu", &row->on_npu)) ||
        (rc = rr_uint(r, &o, "largest_segment", &row->largest)) ||
        (rc = rr_uint(r, &o, "findings", &row->findings)) ||
        (rc = rr_uint(r, &o, "failing", &row->failing)))
        return rc;
    if (found >> OPMAP_FAIL_KIND_COUNT)
        return rr_fail(r, oj_get(&o, "found"), "found", "bits past the %d kinds",
                       OPMAP_FAIL_KIND_COUNT);
    row->found = (unsigned)found;
    if (row->on_npu > row->placed || row->largest > row->on_npu)
        return rr_fail(r, oj_get(&o, "on_npu"), "on_npu", "the largest segment, the instances "
                       "on the NPU and those placed do not nest (largest <= on_npu <= placed)");
    if (row->failing > row->findings)
        return rr_fail(r, oj_get(&o, "failing"), "failing", "more than its findings");
    om_headline_of_row(row, x->blocked_on, x->needs_work_on, &h);
    if (cov != h.coverage)
        return rr_fail(r, oj_get(&o, "coverage"), "coverage", "does not follow from on_npu "
                       "and placed");
    if (row->verdict != h.readiness)
        return rr_fail(r, oj_get(&o, "verdict"), "verdict", "'%s', where its counts give '%s' "
                       "under the report's rule", opmap_readiness_name(row->verdict),
                       opmap_readiness_name(h.readiness));
    row->coverage = (unsigned)cov;
    for (s = 0; s < OPMAP_OP_STATUS_COUNT; s++) {
        x->row_ops = sat_add(x->row_ops, row->operators[s]);
        x->row_inst = sat_add(x->row_inst, row->instances[s]);
    }
    x->findings = sat_add(x->findings, row->findings);
    x->failing = sat_add(x->failing, row->failing);
    om_effort_add(&x->separately, row->effort);
    return om_merge_see(x->s, r, row->file);
}

/* "becomes": distinct phrases, at most OM_REG_BECOMES_MAX. */
static int read_becomes(rr *r, const oj_value *o, om_reg_op *op)
{
    const oj_value *a;
    size_t i, k;
    int rc = rr_arr(r, o, "becomes", &a);
    if (rc)
        return rc;
    if (a->n > OM_REG_BECOMES_MAX)
        return rr_fail(r, a, "becomes", "%u phrases, over %d", a->n, OM_REG_BECOMES_MAX);
    for (i = 0; i < a->n; i++) {
        const oj_value *p = &a->kids[i];
        if (p->type != OJ_STRING || !p->len || p->len > MAX_PHRASE || strlen(p->s) != p->len)
            return rr_fail(r, p, "becomes", "not a list of phrases (strings of 1 to %d bytes)",
                           MAX_PHRASE);
        for (k = 0; k < i; k++)
            if (strcmp(op->becomes[k], p->s) == 0)
                return rr_fail(r, p, "becomes", "'%.60s' twice", p->s);
        op->becomes[i] = p->s;
    }
    op->n_becomes = a->n;
    return OPMAP_OK;
}

static int read_flags(rr *r, const oj_value *o, unsigned *out)
{
    const oj_value *a;
    size_t i;
    int f, rc = rr_arr(r, o, "flags", &a);
    *out = 0;
    for (i = 0; rc == OPMAP_OK && i < a->n; i++) {
        oj_value one = a->kids[i];
        oj_value obj = { .type = OJ_OBJECT, .n = 1, .kids = &one, .offset = one.offset };
        one.key = "flags";
        if ((rc = rr_name(r, &obj, "flags", flag_name, OPMAP_FLAG_COUNT, &f)) == OPMAP_OK) {
            if (*out & (1u << f))
                return rr_fail(r, &a->kids[i], "flags", "'%s' twice", opmap_flag_name((unsigned)f));
            *out |= 1u << f;
        }
    }
    return rc;
}

/* One element of "operators". */
static int read_op(rg *x, oj_value *v, om_reg_op *op)
{
    rr *r = &x->r;
    oj_value o;
    uint64_t models;
    size_t before = x->ops.n;
    om_portfolio_model m;
    int rc;
    memset(op, 0, sizeof(*op));
    rr_at(r, "operators", x->n_ops);
    if ((rc = as_object(r, v, NULL, OM_REG_OP_COLUMNS, om_reg_op_column, &o)) ||
        (rc = rr_str(r, &o, "domain", NULL, &op->op.domain)) ||
        (rc = rr_str(r, &o, "op_type", NULL, &op->op.name)) ||
        (rc = rr_name(r, &o, "status", status_name, OPMAP_OP_STATUS_COUNT, &op->op.status)) ||
        (rc = read_becomes(r, &o, op)) || (rc = rr_uint(r, &o, "models", &models)) ||
        (rc = rr_uint(r, &o, "instances", &op->op.instances)) ||
        (rc = effort3(r, &o, "effort", &op->op.effort)) ||
        (rc = rr_days(r, &o, "budget", &op->budget)) || (rc = read_flags(r, &o, &op->op.flags)))
        return rc;
    if (!models || models > x->row_ops || models > UINT32_MAX) /* once an opset imported */
        return rr_fail(r, oj_get(&o, "models"), "models", "%llu, where the report's models "
                       "have %llu operators", (unsigned long long)models,
                       (unsigned long long)x->row_ops);
    op->models = (uint32_t)models;
    x->op_models = sat_add(x->op_models, models);
    x->op_inst = sat_add(x->op_inst, op->op.instances);
    m.ops = &op->op;
    m.n = 1;
    m.own.min = m.own.expected = m.own.max = 0;
    if (om_portfolio_add(&x->ops, &m) != OPMAP_OK)
        return om_fail_mem(r->err, &x->s->mem, r->source);
    if (x->ops.n == before)
        return rr_fail(r, oj_get(&o, "op_type"), "op_type", "%.80s::%.80s listed twice",
                       op->op.domain, op->op.name);
    return OPMAP_OK;
}

/* The next element of "models" or "operators": cut out, parsed, read, handed on. */
static int one_row(rg *x, int is_op)
{
    om_arena tree;
    oj_value *v;
    int rc;
    om_arena_init(&tree, &x->s->mem, 0);
    if ((rc = ojs_value(&x->js, 1)) == OPMAP_OK && (rc = parse_val(x, &tree, &v)) == OPMAP_OK) {
        const struct rr_seg *segs = x->r.segs;
        size_t n_segs = x->r.n_segs;
        om_merge_shift_offsets(v, x->js.val_offset);
        x->row.base = x->js.val_offset;
        x->row.text = x->js.val;
        x->row.len = x->js.val_len;
        x->r.segs = &x->row;
        x->r.n_segs = 1;
        if (is_op) {
            om_reg_op op;
            if ((rc = read_op(x, v, &op)) == OPMAP_OK)
                rc = x->sink->op(x->sink->payload, &op, x->r.err);
            x->n_ops++;
        } else {
            om_reg_row row;
            if ((rc = read_row(x, &tree, v, &row)) == OPMAP_OK)
                rc = x->sink->row(x->sink->payload, &row, x->r.err);
            x->n++;
        }
        x->r.segs = segs;
        x->r.n_segs = n_segs;
    }
    om_arena_free(&tree);
    return rc;
}

/* The rows of an array member, one at a time (its '[' read already). */
static int rows(rg *x, int is_op)
{
    int c, rc;
    if ((rc = ojs_peek(&x->js, &c)))
        return rc;
    while (c != ']') {
        if ((rc = one_row(x, is_op)) || (rc = ojs_peek(&x->js, &c)))
            return rc;
        if (c != ']' && (rc = ojs_expect(&x->js, ',', "',' or ']' after a row")))
            return rc;
        if (c != ']' && (rc = ojs_peek(&x->js, &c)))
            return rc;
    }
    return ojs_expect(&x->js, ']', "]");
}

/* "columns": the names this opmap writes, in its order. */
static int check_columns(rg *x)
{
    static const char *const lists[] = { "models", "operators" };
    const oj_value *cols, *a;
    rr *r = &x->r;
    size_t i, k;
    int rc;
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_obj(r, &x->root, "columns", &cols)))
        return rc;
    rr_at(r, "columns", SIZE_MAX);
    for (k = 0; k < 2; k++) {
        size_t n = k ? OM_REG_OP_COLUMNS : OM_REG_MODEL_COLUMNS;
        if ((rc = rr_arr(r, cols, lists[k], &a)))
            return rc;
        if (a->n != n)
            return rr_fail(r, a, lists[k], "%u columns, where this opmap writes %zu", a->n, n);
        for (i = 0; i < n; i++) {
            const char *want = k ? om_reg_op_column(i) : om_reg_model_column(i);
            if (a->kids[i].type != OJ_STRING || strcmp(a->kids[i].s, want) != 0)
                return rr_fail(r, &a->kids[i], lists[k], "column %zu is not '%s'", i, want);
        }
    }
    return OPMAP_OK;
}

/* Before the first row: the header against the set, the rule, the columns. */
static int header(rg *x, int has_models)
{
    oj_value fake;
    const oj_value *head, *rule;
    opmap_result *first = NULL;
    rr *r = &x->r;
    int rc;
    memset(&fake, 0, sizeof(fake)); /* read_header asks only whether there is a model */
    fake.type = OJ_ARRAY;
    fake.n = has_models;
    fake.key = "models";
    fake.offset = x->js.offset + x->js.pos;
    x->kids[x->root.n++] = fake;
    rc = om_merge_read_header(x->s, r, &x->root, &x->h);
    x->root.n--;
    if (rc || (rc = check_columns(x)))
        return rc;
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_str(r, &x->root, "root", NULL, &x->dir)))
        return rc;
    x->dir_len = strlen(x->dir);
    if (x->dir_len > 4096 || (x->dir_len && x->dir[x->dir_len - 1] != '/'))
        return rr_fail(r, oj_get(&x->root, "root"), "root", "not a directory of at most "
                       "4096 bytes ending in '/'");
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_obj(r, &x->root, "headline", &head)))
        return rc;
    rr_at(r, "headline", SIZE_MAX);
    if ((rc = rr_obj(r, head, "rule", &rule)))
        return rc;
    rr_at(r, "headline.rule", SIZE_MAX);
    if ((rc = kinds(r, rule, "blocked_on", &x->blocked_on)) ||
        (rc = kinds(r, rule, "needs_work_on", &x->needs_work_on)))
        return rc;
    if (!x->h.empty && (rc = om_merge_header_result(r, x->s->ctx, &x->h, &first)))
        return rc;
    return x->sink->header(x->sink->payload, first, r->err);
}

static int member(rg *x)
{
    oj_value *key, *v;
    int c, rc;
    if ((rc = ojs_value(&x->js, 1)) || (rc = parse_val(x, &x->tree, &key)))
        return rc;
    if (key->type != OJ_STRING)
        return ojs_fail(&x->js, OPMAP_EFORMAT, x->js.val_offset, "JSON: a key expected");
    if ((rc = ojs_expect(&x->js, ':', "':' after a key")))
        return rc;
    if (strcmp(key->s, "models") == 0) {
        if (x->have_models++)
            return ojs_fail(&x->js, OPMAP_EFORMAT, x->js.offset + x->js.pos, "models: twice");
        if ((rc = ojs_expect(&x->js, '[', "the list of models")) || (rc = ojs_peek(&x->js, &c)) ||
            (rc = header(x, c != ']')))
            return rc;
        return rows(x, 0);
    }
    if (strcmp(key->s, "operators") == 0) {
        if (!x->have_models || x->have_ops++)
            return ojs_fail(&x->js, OPMAP_EFORMAT, x->js.offset + x->js.pos, "operators: "
                            "twice, or before the models");
        if ((rc = ojs_expect(&x->js, '[', "the list of operators")))
            return rc;
        return rows(x, 1);
    }
    if (!strcmp(key->s, "cost")) /* the merge computes it again */
        return ojs_value(&x->js, 0);
    if (x->root.n + 2 >= MAX_MEMBERS)
        return ojs_fail(&x->js, OPMAP_ELIMIT, x->js.val_offset, "over %d members in a report "
                        "(the limit of its top level)", MAX_MEMBERS - 2);
    if ((rc = ojs_value(&x->js, 1)) || (rc = parse_val(x, &x->tree, &v)))
        return rc;
    v->key = key->s;
    om_merge_shift_offsets(v, x->js.val_offset);
    x->segs[x->root.n].base = x->js.val_offset;
    x->segs[x->root.n].len = x->js.val_len;
    if (!(x->segs[x->root.n].text = om_arena_strndup(&x->tree, x->js.val, x->js.val_len)))
        return om_fail_mem(x->r.err, &x->s->mem, x->r.source);
    x->kids[x->root.n++] = *v;
    x->r.n_segs = x->root.n;
    return OPMAP_OK;
}

/* A sum the report writes against the one its rows give. */
static int same_sum(rr *r, const oj_value *o, const char *key, uint64_t have, const char *of)
{
    return om_merge_same_count(r, o, key, have, of);
}

static int check_effort(rr *r, const oj_value *o, const char *key, opmap_effort have)
{
    opmap_effort e;
    int rc = rr_effort(r, o, key, &e);
    if (!rc && (e.min != have.min || e.expected != have.expected || e.max != have.max))
        return rr_fail(r, oj_get(o, key), key, "does not add up from the %s (the report was "
                       "edited)", strcmp(key, "separately") ? "operators" : "models' rows");
    return rc;
}

/* The report's counts against its rows. */
static int check_counts(rg *x, size_t n_probs, size_t n_unreadable)
{
    const oj_value *totals, *head, *port, *gate;
    rr *r = &x->r;
    uint64_t findings, failing;
    int passed, incomplete, rc;
    om_portfolio_end(&x->ops);
    rr_at(r, "operators", SIZE_MAX);
    if (x->op_models != x->row_ops)
        return rr_fail(r, &x->root, NULL, "the operators are used by %llu models' operators, "
                       "where the rows count %llu: the lists disagree",
                       (unsigned long long)x->op_models, (unsigned long long)x->row_ops);
    if (x->op_inst != x->row_inst)
        return rr_fail(r, &x->root, NULL, "%llu instances, where the rows count %llu: the "
                       "lists disagree", (unsigned long long)x->op_inst,
                       (unsigned long long)x->row_inst);
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_obj(r, &x->root, "totals", &totals)) ||
        (rc = rr_obj(r, &x->root, "headline", &head)) ||
        (rc = rr_obj(r, &x->root, "portfolio", &port)) ||
        (rc = rr_obj(r, &x->root, "gate", &gate)))
        return rc;
    rr_at(r, "totals", SIZE_MAX);
    if ((rc = same_sum(r, totals, "models", x->n, "models")) ||
        (rc = same_sum(r, totals, "operators", x->ops.summary.operators_total, "operators")) ||
        (rc = same_sum(r, totals, "instances", x->ops.summary.instances_total, "instances")))
        return rc;
    rr_at(r, "headline", SIZE_MAX);
    if ((rc = same_sum(r, head, "models", x->n, "models")) ||
        (rc = same_sum(r, head, "files_not_read", n_probs, "files not read (errors, skipped)")))
        return rc;
    rr_at(r, "portfolio", SIZE_MAX);
    {
        const oj_value *est;
        opmap_effort e;
        if ((rc = check_effort(r, port, "separately", x->separately)) ||
            (rc = rr_obj(r, port, "estimate", &est)))
            return rc;
        rr_at(r, "portfolio.estimate", SIZE_MAX);
        if ((rc = rr_days(r, est, "min", &e.min)) ||
            (rc = rr_days(r, est, "expected", &e.expected)) ||
            (rc = rr_days(r, est, "max", &e.max)))
            return rc;
        if (e.min != x->ops.summary.effort_total.min ||
            e.expected != x->ops.summary.effort_total.expected ||
            e.max != x->ops.summary.effort_total.max)
            return rr_fail(r, est, NULL, "does not add up from the operators (the report was "
                           "edited)");
        /* each operator's effort is one of its models': together they cost no more */
        if (e.min > x->separately.min || e.expected > x->separately.expected ||
            e.max > x->separately.max)
            return rr_fail(r, est, NULL, "more than the models' own estimates together "
                           "(separately): the operators and the rows disagree");
    }
    rr_at(r, "gate", SIZE_MAX);
    if ((rc = rr_bool(r, gate, "passed", &passed)) ||
        (rc = rr_bool(r, gate, "incomplete", &incomplete)) ||
        (rc = rr_uint(r, gate, "findings", &findings)) ||
        (rc = rr_uint(r, gate, "failing", &failing)))
        return rc;
    if (findings < x->findings || failing < x->failing || failing > findings ||
        findings - x->findings > (uint64_t)n_probs + 1)
        return rr_fail(r, oj_get(gate, "findings"), "findings", "%llu, %llu failing, where the "
                       "rows have %llu, %llu failing and %zu files were not read: the counts "
                       "disagree", (unsigned long long)findings, (unsigned long long)failing,
                       (unsigned long long)x->findings, (unsigned long long)x->failing, n_probs);
    if (incomplete != (n_unreadable || (n_probs && !x->n)))
        return rr_fail(r, oj_get(gate, "incomplete"), "incomplete", "disagrees with the files "
                       "not read");
    if (passed != (!failing && !incomplete))
        return rr_fail(r, oj_get(gate, "passed"), "passed", "disagrees with its failing "
                       "findings");
    return OPMAP_OK;
}

/* "gate": what the rows were judged by, and torch_npu's minimum, for the caller. */
static int read_end(rg *x, om_reg_end *e)
{
    const oj_value *gate, *tnpu;
    const char *w;
    rr *r = &x->r;
    size_t i;
    int rc;
    memset(e, 0, sizeof(*e));
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_obj(r, &x->root, "gate", &gate)) ||
        (rc = rr_obj(r, &x->root, "torch_npu", &tnpu)))
        return rc;
    e->gate_offset = gate->offset;
    rr_at(r, "gate", SIZE_MAX);
    if ((rc = kinds(r, gate, "fail_on", &e->fail_on)) ||
        (rc = rr_str(r, gate, "waivers", NULL, &w)))
        return rc;
    for (i = 0; w[i]; i++) { /* 16 lower-case hex digits, as the writer puts the digest */
        int d = w[i] >= '0' && w[i] <= '9' ? w[i] - '0'
              : w[i] >= 'a' && w[i] <= 'f' ? w[i] - 'a' + 10 : -1;
        if (d < 0 || i >= 16)
            break;
        e->waivers = e->waivers << 4 | (uint64_t)d;
    }
    if ((i && i != 16) || w[i] || (i && !e->waivers))
        return rr_fail(r, oj_get(gate, "waivers"), "waivers", "not \"\" or 16 hex digits");
    rr_at(r, "torch_npu", SIZE_MAX);
    if ((rc = rr_str(r, tnpu, "needed", NULL, &e->need)) ||
        (rc = rr_str(r, tnpu, "needed_by", NULL, &e->need_by)) ||
        (rc = rr_str(r, tnpu, "needed_by_model", NULL, &e->need_model)))
        return rc;
    return OPMAP_OK;
}

/* After the rows: files not read, counts, the caller's end. */
static int finish(rg *x)
{
    opmap_report_set *s = x->s;
    om_reg_end end;
    om_vec probs;
    size_t i, unreadable = 0;
    int rc;
    om_vec_init(&probs, sizeof(opmap_file_problem));
    if (!x->have_models || !x->have_ops)
        rc = rr_fail(&x->r, &x->root, x->have_models ? "operators" : "models", "missing");
    else
        rc = om_merge_read_problems(s, &x->r, &x->root, &probs);
    for (i = 0; rc == OPMAP_OK && i < probs.len; i++)
        unreadable += !OM_VEC_AT(&probs, opmap_file_problem, i).skipped;
    if (rc == OPMAP_OK)
        rc = check_counts(x, probs.len, unreadable);
    if (rc == OPMAP_OK)
        rc = read_end(x, &end);
    for (i = 0; rc == OPMAP_OK && i < probs.len; i++)
        rc = om_merge_see(s, &x->r, OM_VEC_AT(&probs, opmap_file_problem, i).file);
    for (i = 0; rc == OPMAP_OK && i < probs.len; i++)
        if (!om_vec_push(&s->problems, &s->mem))
            rc = om_fail_mem(x->r.err, &s->mem, x->r.source);
        else
            OM_VEC_AT(&s->problems, opmap_file_problem, s->problems.len - 1) =
                OM_VEC_AT(&probs, opmap_file_problem, i);
    if (rc == OPMAP_OK)
        rc = x->sink->end(x->sink->payload, &end, x->r.source, x->r.err);
    if (rc == OPMAP_OK && !s->have_header && !x->h.empty) {
        s->h = x->h;
        s->have_header = 1;
    }
    om_vec_free(&probs, &s->mem);
    return rc;
}

static int stream(rg *x)
{
    int c, rc;
    if ((rc = ojs_expect(&x->js, '{', "a registry report of opmap (an object)")) ||
        (rc = ojs_peek(&x->js, &c)))
        return rc;
    while (c != '}') {
        if (x->members++ && (rc = ojs_expect(&x->js, ',', "',' or '}' after a member")))
            return rc;
        if ((rc = member(x)) || (rc = ojs_peek(&x->js, &c)))
            return rc;
        if (c < 0)
            return ojs_expect(&x->js, '}', "'}' at the end of the report");
    }
    x->js.pos++;
    if ((rc = ojs_peek(&x->js, &c)))
        return rc;
    if (c >= 0)
        return ojs_fail(&x->js, OPMAP_EFORMAT, x->js.offset + x->js.pos,
                        "JSON: more after the report");
    return finish(x);
}

int om_merge_read_registry(opmap_report_set *s, const char *path, const om_reg_sink *sink,
                           opmap_error *err)
{
    rg x;
    int rc;
    if (s->results.len)
        return om_fail(err, OPMAP_EINVAL, NULL, "a registry report cannot join a set holding "
                       "reports added whole (opmap_report_set_add)");
    memset(&x, 0, sizeof(x));
    x.s = s;
    x.sink = sink;
    x.r.source = path;
    x.r.err = err;
    x.r.table = s->table;
    x.r.rules = s->table->source_rules;
    x.r.segs = x.segs;
    x.r.schema = OPMAP_REPORT_REGISTRY_SCHEMA;
    x.src.mem = &s->mem;
    x.src.err = err;
    x.src.source = path;
    x.src.max_depth = 64; /* a registry report nests 4 deep */
    x.src.max_string = s->ctx->limits.max_string_bytes;
    om_arena_init(&x.tree, &s->mem, 0);
    om_portfolio_begin(&x.ops, &s->mem, 1);
    x.root.type = OJ_OBJECT;
    if (!(x.kids = om_arena_array(&x.tree, MAX_MEMBERS, sizeof(*x.kids))))
        rc = om_fail_mem(err, &s->mem, path);
    else if ((rc = ojs_open(&x.js, path, &s->mem, 64, s->ctx->limits.max_file_bytes, err)) ==
             OPMAP_OK) {
        x.root.kids = x.kids;
        rc = stream(&x);
        ojs_close(&x.js);
    }
    if (rc == OPMAP_OK)
        s->n_reports++;
    om_portfolio_free(&x.ops, &s->mem);
    om_arena_free(&x.tree);
    return rc;
}
