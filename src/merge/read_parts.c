/*
 * merge/read_parts.c - a report model's lists besides its operators: graph inputs and
 * outputs, the NPU segments, risks, advice and diagnostics.
 */
#include <string.h>

#include "core/err.h"
#include "ir/ir.h"
#include "table/table_internal.h"
#include "merge_internal.h"

static int oom(rr *r, opmap_result *res) { return om_fail_mem(r->err, &res->mem, r->source); }

static int read_shape(rr *r, opmap_result *res, const oj_value *v, ir_type *t)
{
    const oj_value *shape = oj_get(v, "shape");
    uint32_t d;
    if (!shape)
        return rr_fail(r, v, "shape", "missing");
    if (shape->type == OJ_NULL) {
        t->rank = -1;
        return OPMAP_OK;
    }
    if (shape->type != OJ_ARRAY || shape->n > INT32_MAX)
        return rr_fail(r, shape, "shape", "not null or a list of dimensions");
    t->rank = (int32_t)shape->n;
    if (shape->n && !(t->dims = om_arena_array(&res->arena, shape->n, sizeof(ir_dim))))
        return oom(r, res);
    for (d = 0; d < shape->n; d++) {
        const oj_value *x = &shape->kids[d];
        t->dims[d].value = -1;
        if (x->type == OJ_STRING) {
            if (!(t->dims[d].param = om_arena_strndup(&res->arena, x->s, x->len)))
                return oom(r, res);
        } else if (x->type == OJ_NUMBER && x->is_int && x->i >= 0) {
            t->dims[d].value = x->i;
        } else if (x->type != OJ_NULL) {
            return rr_fail(r, x, "shape", "a dimension is not a name, a size or null");
        }
    }
    return OPMAP_OK;
}

int om_merge_read_values(rr *r, opmap_result *res, const oj_value *m, const char *key,
                         ir_value **out, size_t *n)
{
    const oj_value *a;
    const char *dtype;
    size_t i;
    int rc = rr_arr(r, m, key, &a);
    if (rc)
        return rc;
    *n = a->n;
    *out = NULL;
    if (a->n && !(*out = om_arena_array(&res->arena, a->n, sizeof(ir_value))))
        return oom(r, res);
    for (i = 0; i < a->n; i++) {
        ir_value *v = &(*out)[i];
        if ((rc = rr_str(r, &a->kids[i], "name", &res->arena, &v->name)) ||
            (rc = rr_str(r, &a->kids[i], "dtype", NULL, &dtype)) ||
            (rc = read_shape(r, res, &a->kids[i], &v->type)))
            return rc;
        v->type.elem = ir_dtype_from_name(dtype);
        if (v->type.elem == IR_DT_UNDEFINED && strcmp(dtype, "unknown") != 0)
            return rr_fail(r, &a->kids[i], "dtype", "not a dtype name");
        v->type.kind = IR_TYPE_TENSOR;
    }
    return OPMAP_OK;
}

static int read_graph(rr *r, opmap_result *res, const oj_value *g, uint32_t id)
{
    om_seq *q = om_segments_add(&res->segments, &res->mem, id, OM_PLACE_NEUTRAL);
    int rc;
    if (!q)
        return oom(r, res);
    if ((rc = rr_str(r, g, "graph", &res->arena, &q->graph)) ||
        (rc = rr_uint(r, g, "nodes", &q->nodes)) || (rc = rr_uint(r, g, "npu_nodes", &q->npu_nodes)) ||
        (rc = rr_uint(r, g, "segments", &q->segments)) ||
        (rc = rr_uint(r, g, "largest_segment", &q->largest)) ||
        (rc = rr_uint(r, g, "transitions", &q->transitions)))
        return rc;
    /* what a walk can produce: a report saying otherwise was edited */
    if (q->npu_nodes > q->nodes || q->largest > q->npu_nodes || q->segments > q->npu_nodes ||
        (q->npu_nodes && (!q->segments || !q->largest)) || q->transitions > q->nodes)
        return rr_fail(r, g, NULL, "segment counts no walk gives (npu_nodes %llu of %llu nodes, "
                       "largest %llu, %llu segments)", (unsigned long long)q->npu_nodes,
                       (unsigned long long)q->nodes, (unsigned long long)q->largest,
                       (unsigned long long)q->segments);
    return OPMAP_OK;
}

/* Totals are the sums over the graphs; a report whose totals disagree was edited. */
int om_merge_read_segments(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *s, *a;
    uint64_t total[5], want[5];
    static const char *const keys[5] = { "segments", "transitions", "npu_nodes",
                                         "largest_segment", "nodes" };
    size_t i;
    int rc = rr_obj(r, m, "segments", &s);
    if (rc || (rc = rr_arr(r, s, "graphs", &a)))
        return rc;
    if (a->n > UINT32_MAX)
        return rr_fail(r, a, "graphs", "too many");
    for (i = 0; i < a->n; i++)
        if ((rc = read_graph(r, res, &a->kids[i], (uint32_t)i)))
            return rc;
    om_segments_total(&res->segments, &total[0], &total[1], &total[2], &total[3], &total[4]);
    for (i = 0; i < 5; i++) {
        if ((rc = rr_uint(r, s, keys[i], &want[i])))
            return rc;
        if (want[i] != total[i])
            return rr_fail(r, oj_get(s, keys[i]), keys[i], "%llu, but its graphs add up to %llu",
                           (unsigned long long)want[i], (unsigned long long)total[i]);
    }
    if ((rc = rr_uint(r, s, "breakers_total", &res->segments.n_breakers)) ||
        (rc = rr_arr(r, s, "breakers", &a)))
        return rc;
    if (a->n > OM_MAX_BREAKERS || a->n > res->segments.n_breakers)
        return rr_fail(r, a, "breakers", "%u listed, of %llu (a scan keeps at most %d)", a->n,
                       (unsigned long long)res->segments.n_breakers, OM_MAX_BREAKERS);
    for (i = 0; i < a->n; i++) {
        om_breaker *b = om_vec_push(&res->segments.breakers, &res->mem);
        if (!b)
            return oom(r, res);
        if ((rc = rr_str(r, &a->kids[i], "node", &res->arena, &b->node)) ||
            (rc = rr_str(r, &a->kids[i], "op", &res->arena, &b->op)) ||
            (rc = rr_str(r, &a->kids[i], "why", &res->arena, &b->why)))
            return rc;
    }
    return OPMAP_OK;
}

static const char *level_name(int l) { return l == OPMAP_DIAG_WARNING ? "warning" : l ? NULL : "info"; }
static const char *grade_name(int g) { return g ? om_grade_name(g) : NULL; }

static int read_risks(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, m, "risks", &a);
    if (rc)
        return rc;
    if (a->n > OM_MAX_RISKS)
        return rr_fail(r, a, "risks", "more than %d (a scan keeps at most that many)",
                       OM_MAX_RISKS);
    for (i = 0; i < a->n; i++) {
        const oj_value *k = &a->kids[i];
        om_risk *x = om_vec_push(&res->risks, &res->mem);
        if (!x)
            return oom(r, res);
        if ((rc = rr_str(r, k, "kind", &res->arena, &x->kind)) ||
            (rc = rr_name(r, k, "level", level_name, 2, &x->level)) ||
            (rc = rr_str(r, k, "message", &res->arena, &x->message)) ||
            (rc = rr_str(r, k, "where", &res->arena, &x->where)))
            return rc;
        if (oj_get(k, "restates_flag") && (rc = rr_bool(r, k, "restates_flag", &x->from_flag)))
            return rc;
    }
    if (oj_get(m, "risks_dropped"))
        return rr_uint(r, m, "risks_dropped", &res->risks_dropped);
    return OPMAP_OK;
}

static const char *advice_kind(int k)
{
    return k == 0 ? "required" : k == 1 ? "optional" : k == 2 ? "fused"
         : k == 3 ? "custom_op" : NULL;
}

/* A fused-kernel advice's effort, ATC note and places (report_json.c fused_json). */
static int read_fused(rr *r, opmap_result *res, const oj_value *k, om_advice *x)
{
    const oj_value *p, *l;
    size_t i;
    int rc;
    if ((rc = rr_effort(r, k, "effort", &x->effort)) ||
        (rc = rr_str(r, k, "atc", &res->arena, &x->atc)) || (rc = rr_arr(r, k, "places", &p)) ||
        (rc = rr_arr(r, k, "lines", &l)))
        return rc;
    if (p->n != l->n || !p->n || p->n > x->count || p->n > 1000 ||
        (p->n < x->count && p->n < 1000))
        return rr_fail(r, k, "places", "%u places and %u lines for %llu matches (a scan keeps "
                       "every one, up to 1000)", p->n, l->n, (unsigned long long)x->count);
    if (p->kids[0].type != OJ_STRING || strcmp(p->kids[0].s, x->where) != 0)
        return rr_fail(r, k, "where", "is not the first of the places");
    if (!(x->places = om_arena_array(&res->arena, p->n, sizeof(char *))) ||
        !(x->lines = om_arena_array(&res->arena, p->n, sizeof(char *))))
        return oom(r, res);
    for (i = 0; i < p->n; i++) {
        if (p->kids[i].type != OJ_STRING ||
            !(x->places[i] = om_arena_strdup(&res->arena, p->kids[i].s)))
            return p->kids[i].type != OJ_STRING ? rr_fail(r, &p->kids[i], "places", "not a string")
                                                : oom(r, res);
        if (l->kids[i].type == OJ_NULL)
            continue;
        if (l->kids[i].type != OJ_STRING ||
            !(x->lines[i] = om_arena_strdup(&res->arena, l->kids[i].s)))
            return l->kids[i].type != OJ_STRING ? rr_fail(r, &l->kids[i], "lines", "not a string")
                                                : oom(r, res);
    }
    x->n_places = p->n;
    x->fused = 1;
    return OPMAP_OK;
}

static int read_advice(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, m, "advice", &a);
    for (i = 0; !rc && i < a->n; i++) {
        const oj_value *k = &a->kids[i];
        om_advice *x = om_vec_push(&res->advice, &res->mem);
        int kind, grade = 0;
        const oj_value *g = oj_get(k, "grade");
        if (!x)
            return oom(r, res);
        if ((rc = rr_str(r, k, "id", &res->arena, &x->id)) ||
            (rc = rr_name(r, k, "kind", advice_kind, 4, &kind)) ||
            (rc = rr_str(r, k, "message", &res->arena, &x->message)) ||
            (rc = rr_str(r, k, "action", &res->arena, &x->action)) ||
            (rc = rr_str(r, k, "value", &res->arena, &x->value)) ||
            (rc = rr_str(r, k, "where", &res->arena, &x->where)) ||
            (rc = rr_uint(r, k, "count", &x->count)) ||
            (!(g && g->type == OJ_NULL) &&
             (rc = rr_name(r, k, "grade", grade_name, OM_GRADE_COUNT, &grade))) ||
            (rc = rr_joined(r, k, "sources", ", ", &res->arena, &x->sources)) ||
            (rc = rr_str(r, k, "recipes", &res->arena, &x->recipes)))
            return rc;
        x->optional = kind == 1;
        x->custom_op = kind == 3;
        x->grade = (uint8_t)grade;
        if (kind == 2 && (rc = read_fused(r, res, k, x)))
            return rc;
    }
    return rc;
}

static int read_diags(rr *r, opmap_result *res, const oj_value *m)
{
    const oj_value *a;
    size_t i;
    int rc = rr_arr(r, m, "diagnostics", &a);
    for (i = 0; !rc && i < a->n; i++) {
        om_diag *d = om_vec_push(&res->diags, &res->mem);
        if (!d)
            return oom(r, res);
        if ((rc = rr_name(r, &a->kids[i], "level", level_name, 2, &d->level)) ||
            (rc = rr_str(r, &a->kids[i], "message", &res->arena, &d->message)))
            return rc;
        rc = rr_str(r, &a->kids[i], "where", &res->arena, &d->where);
    }
    return rc;
}

int om_merge_read_notes(rr *r, opmap_result *res, const oj_value *m)
{
    int rc = read_risks(r, res, m);
    if (!rc)
        rc = read_advice(r, res, m);
    if (!rc)
        rc = read_diags(r, res, m);
    return rc;
}
