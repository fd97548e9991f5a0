/*
 * merge/read_ops.c - one distinct operator of a report's model, back into an opmap_op.
 *
 * The table row is found again by (domain, op, opset), as the scan found it; a report whose
 * operators and table disagree (a row the table lacks, a chip answer said published with no
 * row) was written with another table or edited, and is refused.
 */
#include <string.h>

#include "core/err.h"
#include "ir/ir.h"
#include "table/table_internal.h"
#include "merge_internal.h"

static const char *status_name(int s) { return opmap_op_status_name(s); }
static const char *flag_name(int i) { return opmap_flag_name((unsigned)i); }
static const char *grade_name(int g) { return g ? om_grade_name(g) : NULL; }

static int oom(rr *r, opmap_result *res) { return om_fail_mem(r->err, &res->mem, r->source); }

/* A string member that the writer leaves out when it is empty. */
static int opt_str(rr *r, const oj_value *o, const char *key, om_arena *A, const char **out)
{
    if (!oj_get(o, key)) {
        *out = "";
        return OPMAP_OK;
    }
    return rr_str(r, o, key, A, out);
}

/* An array of strings (or, with nulls, NULL entries) copied into the arena. */
static int strings(rr *r, opmap_result *res, const oj_value *a, const char *key, int nulls,
                   const char ***out)
{
    size_t i;
    *out = NULL;
    if (!a->n)
        return OPMAP_OK;
    if (!(*out = om_arena_array(&res->arena, a->n, sizeof(char *))))
        return oom(r, res);
    for (i = 0; i < a->n; i++) {
        const oj_value *v = &a->kids[i];
        if (nulls && v->type == OJ_NULL)
            continue;
        if (v->type != OJ_STRING)
            return rr_fail(r, v, key, "not a list of strings");
        if (!((*out)[i] = om_arena_strndup(&res->arena, v->s, v->len)))
            return oom(r, res);
    }
    return OPMAP_OK;
}

/* Bit c of the result's chips for each chip named in the list. */
static int chip_mask(rr *r, const opmap_result *res, const oj_value *o, uint64_t *out)
{
    const oj_value *a;
    size_t i, c;
    int rc = rr_arr(r, o, "chips", &a);
    *out = 0;
    for (i = 0; !rc && i < a->n; i++) {
        for (c = 0; c < res->n_chips; c++)
            if (a->kids[i].type == OJ_STRING && strcmp(a->kids[i].s, res->chips[c]) == 0)
                break;
        if (c == res->n_chips)
            return rr_fail(r, &a->kids[i], "chips", "not a chip of the report");
        *out |= 1ull << c;
    }
    return rc;
}

/* A member that is null (*out = none) or a name of names[] (*out = its index). */
static int nullable_name(rr *r, const oj_value *o, const char *key, rr_namer *name, int n,
                         int none, int *out)
{
    const oj_value *v = oj_get(o, key);
    if (v && v->type == OJ_NULL) {
        *out = none;
        return OPMAP_OK;
    }
    return rr_name(r, o, key, name, n, out);
}

static int read_reason(rr *r, opmap_result *res, const oj_value *o, om_reason *x)
{
    int rc, status, flag, grade;
    if ((rc = rr_str(r, o, "message", &res->arena, &x->message)) ||
        (rc = rr_str(r, o, "value", &res->arena, &x->actual)) ||
        (rc = nullable_name(r, o, "status", status_name, OPMAP_OP_STATUS_COUNT, -1, &status)) ||
        (rc = nullable_name(r, o, "flag", flag_name, OPMAP_FLAG_COUNT, -1, &flag)) ||
        (rc = chip_mask(r, res, o, &x->chips)) || (rc = rr_uint(r, o, "instances", &x->instances)) ||
        (rc = rr_str(r, o, "example", &res->arena, &x->example)) ||
        (rc = nullable_name(r, o, "grade", grade_name, OM_GRADE_COUNT, 0, &grade)) ||
        (rc = rr_joined(r, o, "sources", ", ", &res->arena, &x->sources)))
        return rc;
    x->status = status;
    x->flag = flag < 0 ? 0 : 1u << flag;
    x->grade = (uint8_t)grade;
    return OPMAP_OK;
}

static int read_reasons(rr *r, opmap_result *res, const oj_value *o, opmap_op *op)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, o, "reasons", &a);
    if (rc)
        return rc;
    if (a->n > OM_MAX_REASONS)
        return rr_fail(r, a, "reasons", "more than %d (a scan keeps at most that many)",
                       OM_MAX_REASONS);
    if (a->n && !(op->reasons = om_arena_array(&res->arena, a->n, sizeof(om_reason))))
        return oom(r, res);
    for (i = 0; i < a->n; i++)
        if ((rc = read_reason(r, res, &a->kids[i], &op->reasons[i])))
            return rc;
    op->n_reasons = a->n;
    op->reasons_dropped = 0;
    if (oj_get(o, "reasons_dropped"))
        return rr_uint(r, o, "reasons_dropped", &op->reasons_dropped);
    return OPMAP_OK;
}

/* "chips": the answer per chip of the result, in the result's order. */
static int read_chips(rr *r, opmap_result *res, const oj_value *o, opmap_op *op)
{
    const oj_value *m;
    size_t c, known = 0;
    int rc = rr_obj(r, o, "chips", &m), published;
    if (rc)
        return rc;
    if (m->n != res->n_chips)
        return rr_fail(r, m, "chips", "%u chips, the report names %zu", m->n, res->n_chips);
    if (!(op->chip_status = om_arena_array(&res->arena, res->n_chips ? res->n_chips : 1,
                                           sizeof(int))) ||
        !(op->chip_unknown = om_arena_array(&res->arena, res->n_chips ? res->n_chips : 1, 1)))
        return oom(r, res);
    op->n_chips = res->n_chips;
    for (c = 0; c < res->n_chips; c++) {
        const oj_value *k = &m->kids[c];
        if (strcmp(k->key, res->chips[c]) != 0)
            return rr_fail(r, k, "chips", "'%.40s' where the report's chip %zu is '%.40s'",
                           k->key, c, res->chips[c]);
        if ((rc = rr_name(r, k, "status", status_name, OPMAP_OP_STATUS_COUNT,
                          &op->chip_status[c])) ||
            (rc = rr_bool(r, k, "published", &published)))
            return rc;
        if (op->source) { /* a rule answers every chip alike: published unless unknown */
            if (published != (op->sr_status != OM_SR_UNKNOWN) || op->chip_status[c] != op->status)
                return rr_fail(r, k, "published", "disagrees with the rule's status");
            op->chip_unknown[c] = 0;
        } else {
            if (published && !op->row)
                return rr_fail(r, k, "published", "true for an operator the table has no row for");
            op->chip_unknown[c] = op->row && !published;
        }
        known += !op->chip_unknown[c];
    }
    op->all_unknown = op->unpublished && res->n_chips && !known;
    if (op->unpublished != (known < res->n_chips))
        return rr_fail(r, o, "unpublished", "disagrees with the chips' answers");
    return OPMAP_OK;
}

/* A finding of Python sources: its rule found again by id, whose status, rule status and
 * grade the report must repeat (another rule table wrote it otherwise). */
static int read_rule(rr *r, const oj_value *o, opmap_op *op)
{
    const om_source_rule *rule;
    const oj_value *g = oj_get(o, "guarded");
    const char *rs, *grade;
    int rc, want;
    if ((rc = rr_str(r, o, "rule_status", NULL, &rs)) || (rc = rr_str(r, o, "grade", NULL, &grade)))
        return rc;
    if (g && g->type != OJ_TRUE)
        return rr_fail(r, g, "guarded", "only true is written");
    if (strcmp(op->domain, "py") != 0 || !(rule = om_source_rule_find(r->rules, op->name)))
        return rr_fail(r, o, "op_type", "%.60s::%.60s is no source rule of this opmap",
                       op->domain, op->name);
    /* an import under try/except ImportError everywhere is full (source_scan.c, guard) */
    want = g && rule->status != OM_SR_UNCHANGED ? OPMAP_OP_FULL : om_sr_op_status(rule->status);
    if (op->opset != 0 || op->status != want ||
        strcmp(rs, om_sr_status_name(rule->status)) != 0 ||
        strcmp(grade, om_grade_name(rule->grade)) != 0)
        return rr_fail(r, o, "rule_status", "%s/%s for rule %.60s, which is %s/%s here: the "
                       "report was written with other source rules", opmap_op_status_name(op->status),
                       rs, rule->id, opmap_op_status_name(om_sr_op_status(rule->status)),
                       om_sr_status_name(rule->status));
    op->source = 1;
    op->guarded = g != NULL;
    op->sr_status = (uint8_t)rule->status;
    op->grade = rule->grade;
    return OPMAP_OK;
}

static int read_dtypes(rr *r, const oj_value *o, opmap_op *op)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, o, "input_dtypes", &a);
    for (i = 0; !rc && i < a->n; i++) {
        const oj_value *v = &a->kids[i];
        int d = v->type == OJ_STRING ? ir_dtype_from_name(v->s) : 0;
        if (v->type == OJ_STRING && strcmp(v->s, "unknown") == 0)
            op->dtypes_seen |= 1u;
        else if (d <= 0 || d >= 32)
            return rr_fail(r, v, "input_dtypes", "not a dtype name");
        else
            op->dtypes_seen |= 1u << d;
    }
    return rc;
}

static int read_ascend(rr *r, opmap_result *res, const oj_value *o, opmap_op *op)
{
    const oj_value *a;
    om_arena *A = &res->arena;
    int rc = rr_obj(r, o, "ascend", &a);
    if (rc || (rc = rr_str(r, a, "becomes", A, &op->becomes)) ||
        (rc = opt_str(r, a, "how", A, &op->becomes_how)) ||
        (rc = opt_str(r, a, "op", A, &op->ascend_op)) ||
        (rc = opt_str(r, a, "aclnn", A, &op->aclnn)) || (rc = opt_str(r, a, "api", A, &op->api)) ||
        (rc = opt_str(r, a, "engine", A, &op->engine)) ||
        (rc = opt_str(r, o, "notes", A, &op->notes)) || (rc = opt_str(r, o, "hint", A, &op->hint)))
        return rc;
    if ((a = oj_get(o, "backward"))) {
        /* a training scan's backward answer: written as read */
        static const char *const st[] = { "full", "partial", "rewrite", "missing", "none",
                                          "decomposed" };
        const char *s;
        size_t k;
        if ((rc = rr_obj(r, o, "backward", &a)) || (rc = rr_str(r, a, "status", NULL, &s)))
            return rc;
        for (k = 0; k < sizeof(st) / sizeof(st[0]) && strcmp(s, st[k]) != 0; k++)
            ;
        if (k == sizeof(st) / sizeof(st[0]))
            return rr_fail(r, a, "backward.status", "not a backward status");
        op->bw_status = st[k];
        if ((rc = rr_str(r, a, "ops", A, &op->bw_ops)) || (rc = rr_str(r, a, "note", A, &op->bw_note)))
            return rc;
    }
    return OPMAP_OK;
}

static int read_nodes(rr *r, opmap_result *res, const oj_value *o, opmap_op *op)
{
    const oj_value *a, *l;
    int rc = rr_arr(r, o, "sources", &a);
    if (rc || (rc = strings(r, res, a, "sources", 0, &op->sources)))
        return rc;
    op->n_sources = a->n;
    if ((rc = rr_arr(r, o, "nodes", &a)) ||
        (rc = strings(r, res, a, "nodes", 0, &op->paths)))
        return rc;
    op->n_paths = a->n;
    if (!oj_get(o, "locations"))
        return op->source ? rr_fail(r, o, "locations", "missing for a pattern of Python sources")
                          : OPMAP_OK;
    if ((rc = rr_arr(r, o, "locations", &l)))
        return rc;
    if (l->n != a->n)
        return rr_fail(r, l, "locations", "%u of them for %u nodes", l->n, a->n);
    if (!l->n) /* the scan keeps locations only with a node to go with them */
        return rr_fail(r, l, "locations", "empty");
    return strings(r, res, l, "locations", 1, &op->locations);
}

int om_merge_read_op(rr *r, opmap_result *res, const oj_value *o, opmap_op **out)
{
    opmap_op *op = om_arena_alloc(&res->arena, sizeof(*op));
    const oj_value *since;
    int rc, status, unpublished;
    unsigned bit;
    const oj_value *flags;
    size_t i;
    if (!op)
        return oom(r, res);
    if ((rc = rr_str(r, o, "domain", &res->arena, &op->domain)) ||
        (rc = rr_str(r, o, "op_type", &res->arena, &op->name)) ||
        (rc = rr_int(r, o, "opset", &op->opset)) || (rc = rr_bool(r, o, "unpublished", &unpublished)) ||
        (rc = rr_name(r, o, "status", status_name, OPMAP_OP_STATUS_COUNT, &status)) ||
        (rc = opt_str(r, o, "exported_as", &res->arena, &op->exported_as)))
        return rc;
    op->status = status;
    op->unpublished = (uint8_t)unpublished;
    since = oj_get(o, "since_version");
    if (since && since->type != OJ_NULL && (rc = rr_int(r, o, "since_version", &op->since)))
        return rc;
    if (om_format_has(res->format, OPMAP_FORMAT_TRAIT_SOURCES)) {
        if ((rc = read_rule(r, o, op)))
            return rc;
    } else if (oj_get(o, "rule_status") || oj_get(o, "grade")) {
        return rr_fail(r, o, "rule_status", "only the findings of Python sources have it");
    } else if (!(op->row = opmap_table_lookup(r->table, op->domain, op->name, op->opset)) !=
               (status == OPMAP_OP_UNMAPPED))
        return rr_fail(r, o, "status", "%s for %.60s::%.60s, which the table has %s row for: "
                       "the report was written with another table", opmap_op_status_name(status),
                       op->domain, op->name, op->row ? "a" : "no");
    if ((rc = read_chips(r, res, o, op)) || (rc = rr_arr(r, o, "flags", &flags)))
        return rc;
    for (i = 0; i < flags->n; i++) {
        for (bit = 0; bit < OPMAP_FLAG_COUNT; bit++)
            if (flags->kids[i].type == OJ_STRING && strcmp(flags->kids[i].s, flag_name((int)bit)) == 0)
                break;
        if (bit == OPMAP_FLAG_COUNT)
            return rr_fail(r, &flags->kids[i], "flags", "not a flag name");
        op->flags |= 1u << bit;
    }
    if ((rc = rr_uint(r, o, "instances", &op->instances)) || (rc = read_dtypes(r, o, op)) ||
        (rc = read_reasons(r, res, o, op)) || (rc = rr_effort(r, o, "effort", &op->effort)) ||
        ((op->effort_unverified = op->effort), 0) ||
        (rc = om_merge_read_verification(r, res, o, op)) ||
        (rc = read_ascend(r, res, o, op)) || (rc = read_nodes(r, res, o, op)))
        return rc;
    *out = op;
    return OPMAP_OK;
}
