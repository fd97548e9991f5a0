/*
 * merge/stream_read.c - a JSON report read back one model at a time
 * (opmap_report_set_stream_file, docs/scale.md "Memory"): the file is read in chunks
 * (core/json_stream), each element of "models" is cut out, parsed and checked on its own
 * (read_model.c, as opmap_report_set_add reads it) and handed to the caller, who owns the
 * result; the rest of the report (its header, files not read, totals, headline) is parsed
 * member by member, and "gate", "portfolio" and "cost" (recomputed by whoever writes the
 * merged report) are stepped over without being held. What a report keeps in the set is
 * its files not read and two hashes of each file's name (overlapping shards are refused as
 * opmap_report_set_add refuses them); its distinct operators are held only while it is read,
 * to check its totals.
 */
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/json_stream.h"
#include "table/table_internal.h"
#include "estimate/portfolio.h"
#include "scan/result_estimate.h"
#include "merge_internal.h"

#define MAX_MEMBERS 64   /* a report has 16 top-level members */

/* One report being streamed. */
typedef struct sr {
    opmap_report_set *s;
    oj_stream js;
    oj_src src;
    om_arena tree;            /* the members other than "models" */
    oj_value root, *kids;
    struct rr_seg segs[MAX_MEMBERS];   /* each member's text, kept (the tree's numbers) */
    struct rr_seg model;               /* the model being read */
    rr r;
    rr_header h;
    int have_models, header_read;
    size_t members;           /* read so far, those stepped over included */
    size_t n;                 /* models read */
    om_portfolio ops;         /* the report's distinct operators, for its totals */
    opmap_result_fn fn;
    void *payload;
} sr;

/* Parses the value just cut out into `arena`; errors at its place in the file. */
static int parse_val(sr *x, om_arena *arena, oj_value **out)
{
    oj_src src = x->src;
    int rc;
    src.arena = arena;
    if ((rc = oj_parse(&src, x->js.val, x->js.val_len, out)) && x->r.err &&
        x->r.err->offset != OPMAP_NO_OFFSET)
        x->r.err->offset += x->js.val_offset;
    return rc;
}

/* The slot of a name in the set's hashes of streamed files. */
static struct seen_slot *seen_slot(opmap_report_set *s, uint64_t h1, uint64_t h2)
{
    size_t j = (size_t)h1 & (s->seen_cap - 1);
    while (s->seen[j].h1 | s->seen[j].h2 ? s->seen[j].h1 != h1 || s->seen[j].h2 != h2 : 0)
        j = (j + 1) & (s->seen_cap - 1);
    return &s->seen[j];
}

static int see(sr *x, const char *name)
{
    return om_merge_see(x->s, &x->r, name);
}

int om_merge_see(opmap_report_set *s, rr *r, const char *name)
{
    uint64_t h1 = om_hash_name(name), h2 = om_hash_str(0x9e3779b97f4a7c15ull, name) | 1;
    struct seen_slot *slot;
    if ((s->n_seen + 1) * 2 > s->seen_cap) {
        struct seen_slot *old = s->seen;
        size_t old_cap = s->seen_cap, i;
        size_t cap = old_cap ? old_cap * 2 : 1024;
        if (!(s->seen = om_calloc(&s->mem, cap, sizeof(*s->seen)))) {
            s->seen = old;
            return om_fail_mem(r->err, &s->mem, r->source);
        }
        s->seen_cap = cap;
        for (i = 0; i < old_cap; i++)
            if (old[i].h1 | old[i].h2)
                *seen_slot(s, old[i].h1, old[i].h2) = old[i];
        if (old)
            om_dealloc(&s->mem, old, old_cap * sizeof(*old));
    }
    slot = seen_slot(s, h1, h2);
    if ((slot->h1 | slot->h2) && slot->report != s->n_reports)
        return om_fail(r->err, OPMAP_EFORMAT, r->source, "%.200s is in report %zu too: "
                       "the shards overlap, and merging would count it twice", name,
                       slot->report + 1);
    if (!(slot->h1 | slot->h2)) {
        slot->h1 = h1;
        slot->h2 = h2;
        slot->report = s->n_reports;
        s->n_seen++;
    }
    return OPMAP_OK;
}

void om_merge_shift_offsets(oj_value *v, uint64_t by)
{
    struct { oj_value *v; uint32_t i; } stack[66];
    int top = 0;
    v->offset += by;
    stack[0].v = v;
    stack[0].i = 0;
    while (top >= 0) {
        oj_value *p = stack[top].v;
        if (stack[top].i >= p->n || (p->type != OJ_ARRAY && p->type != OJ_OBJECT)) {
            top--;
            continue;
        }
        v = &p->kids[stack[top].i++];
        v->offset += by;
        if ((v->type == OJ_ARRAY || v->type == OJ_OBJECT) && v->n && top + 1 < 66) {
            top++;
            stack[top].v = v;
            stack[top].i = 0;
        }
    }
}

/* One model: read, checked, counted and handed on. */
static int one_model(sr *x)
{
    opmap_report_set *s = x->s;
    om_arena tree;
    oj_value *v;
    opmap_result *res = NULL;
    om_estimate_op *ops = NULL;
    om_portfolio_model m;
    size_t j, n_ops = 0;
    int rc;
    om_arena_init(&tree, &s->mem, 0);
    if ((rc = ojs_value(&x->js, 1)) == OPMAP_OK && (rc = parse_val(x, &tree, &v)) == OPMAP_OK) {
        const struct rr_seg *segs = x->r.segs;
        size_t n_segs = x->r.n_segs;
        om_merge_shift_offsets(v, x->js.val_offset);
        x->model.base = x->js.val_offset;
        x->model.text = x->js.val;
        x->model.len = x->js.val_len;
        x->r.segs = &x->model;
        x->r.n_segs = 1;
        rc = om_merge_read_model(&x->r, s->ctx, &x->h, v, x->n, &res);
        x->r.segs = segs;
        x->r.n_segs = n_segs;
    }
    om_arena_free(&tree);
    if (rc == OPMAP_OK && (rc = see(x, res->model_name)) == OPMAP_OK) {
        n_ops = res->n_ops;
        if (n_ops && !(ops = om_calloc(&s->mem, n_ops, sizeof(*ops))))
            rc = om_fail_mem(x->r.err, &s->mem, x->r.source);
        for (j = 0; rc == OPMAP_OK && j < n_ops; j++)
            ops[j] = om_result_estimate_op(res->ops[j]);
        m.ops = ops;
        m.n = n_ops;
        m.own = res->summary.effort_total;
        if (rc == OPMAP_OK && om_portfolio_add(&x->ops, &m) != OPMAP_OK)
            rc = om_fail_mem(x->r.err, &s->mem, x->r.source);
        if (ops)
            om_dealloc(&s->mem, ops, n_ops * sizeof(*ops));
    }
    if (rc) {
        opmap_result_free(res);
        return rc;
    }
    x->n++;
    s->n_streamed++;
    return x->fn(x->payload, res, x->r.err); /* the caller's from here */
}

/* "models": the header read first (it precedes them), then each element. */
static int models(sr *x)
{
    oj_value fake;
    int c, rc;
    if (x->have_models++)
        return ojs_fail(&x->js, OPMAP_EFORMAT, x->js.offset + x->js.pos, "models: given twice");
    if ((rc = ojs_expect(&x->js, '[', "the list of models")) || (rc = ojs_peek(&x->js, &c)))
        return rc;
    memset(&fake, 0, sizeof(fake)); /* read_header asks only whether there is a model */
    fake.type = OJ_ARRAY;
    fake.n = c != ']';
    fake.key = "models";
    fake.offset = x->js.offset + x->js.pos;
    x->kids[x->root.n++] = fake;
    if ((rc = om_merge_read_header(x->s, &x->r, &x->root, &x->h)))
        return rc;
    x->header_read = 1;
    x->root.n--;
    if (c == ']')
        return ojs_expect(&x->js, ']', "]");
    for (;;) {
        if ((rc = one_model(x)) || (rc = ojs_peek(&x->js, &c)))
            return rc;
        if (c == ']')
            return ojs_expect(&x->js, ']', "]");
        if ((rc = ojs_expect(&x->js, ',', "',' or ']' after a model")))
            return rc;
    }
}

/* One top-level member: "models" streamed, three stepped over, the others kept. */
static int member(sr *x)
{
    oj_value *key, *v;
    int rc;
    if ((rc = ojs_value(&x->js, 1)) || (rc = parse_val(x, &x->tree, &key)))
        return rc;
    if (key->type != OJ_STRING)
        return ojs_fail(&x->js, OPMAP_EFORMAT, x->js.val_offset, "JSON: a key expected");
    if ((rc = ojs_expect(&x->js, ':', "':' after a key")))
        return rc;
    if (strcmp(key->s, "models") == 0)
        return models(x);
    if (!strcmp(key->s, "gate") || !strcmp(key->s, "portfolio") || !strcmp(key->s, "cost"))
        return ojs_value(&x->js, 0);
    if (x->root.n + 1 >= MAX_MEMBERS)
        return ojs_fail(&x->js, OPMAP_ELIMIT, x->js.val_offset, "over %d members in a report "
                        "(the limit of its top level)", MAX_MEMBERS - 1);
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

/* The report's totals and headline against what was read (as check_totals does). */
static int check_counts(sr *x, size_t n_probs)
{
    const oj_value *totals, *head;
    rr *r = &x->r;
    int rc;
    om_portfolio_end(&x->ops);
    rr_at(r, "totals", SIZE_MAX);
    if ((rc = rr_obj(r, &x->root, "totals", &totals)) ||
        (rc = om_merge_same_count(r, totals, "models", x->n, "models")) ||
        (rc = om_merge_same_count(r, totals, "operators", x->ops.summary.operators_total,
                                  "distinct operators")) ||
        (rc = om_merge_same_count(r, totals, "instances", x->ops.summary.instances_total,
                                  "instances")))
        return rc;
    rr_at(r, "headline", SIZE_MAX);
    if ((rc = rr_obj(r, &x->root, "headline", &head)) ||
        (rc = om_merge_same_count(r, head, "models", x->n, "models")) ||
        (rc = om_merge_same_count(r, head, "files_not_read", n_probs,
                                  "files not read (errors, skipped)")))
        return rc;
    return OPMAP_OK;
}

/* After "models": the files not read, the counts, and the report taken into the set. */
static int finish(sr *x)
{
    opmap_report_set *s = x->s;
    om_vec probs;
    size_t i;
    int rc;
    om_vec_init(&probs, sizeof(opmap_file_problem));
    if (!x->have_models)
        rc = rr_fail(&x->r, &x->root, "models", "missing");
    else
        rc = om_merge_read_problems(s, &x->r, &x->root, &probs);
    if (rc == OPMAP_OK)
        rc = check_counts(x, probs.len);
    for (i = 0; rc == OPMAP_OK && i < probs.len; i++)
        rc = see(x, OM_VEC_AT(&probs, opmap_file_problem, i).file);
    for (i = 0; rc == OPMAP_OK && i < probs.len; i++)
        if (!om_vec_push(&s->problems, &s->mem))
            rc = om_fail_mem(x->r.err, &s->mem, x->r.source);
        else
            OM_VEC_AT(&s->problems, opmap_file_problem, s->problems.len - 1) =
                OM_VEC_AT(&probs, opmap_file_problem, i);
    if (rc == OPMAP_OK && !s->have_header && !x->h.empty) {
        s->h = x->h;
        s->have_header = 1;
    }
    om_vec_free(&probs, &s->mem);
    return rc;
}

static int stream(sr *x)
{
    int c, rc;
    if ((rc = ojs_expect(&x->js, '{', "a JSON report of opmap (an object)")))
        return rc;
    if ((rc = ojs_peek(&x->js, &c)))
        return rc;
    while (c != '}') {
        if (x->members++) {
            if ((rc = ojs_expect(&x->js, ',', "',' or '}' after a member")))
                return rc;
        }
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

int opmap_report_set_stream_file(opmap_report_set *s, const char *path, opmap_result_fn fn,
                                 void *payload, opmap_error *err)
{
    sr x;
    int rc;
    om_err_clear(err);
    if (!s || !path || !fn)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_set_stream_file: NULL argument");
    if (s->results.len)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_set_stream_file: the set holds "
                       "reports added whole (opmap_report_set_add)");
    memset(&x, 0, sizeof(x));
    x.s = s;
    x.fn = fn;
    x.payload = payload;
    x.r.source = path;
    x.r.err = err;
    x.r.table = s->table;
    x.r.rules = s->table->source_rules;
    x.r.segs = x.segs;
    x.src.mem = &s->mem;
    x.src.err = err;
    x.src.source = path;
    x.src.max_depth = 64; /* a report nests 8 deep */
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

int opmap_report_file_format(opmap_ctx *ctx, const char *path, opmap_report_format *out,
                             opmap_error *err)
{
    oj_stream js;
    oj_src src;
    om_mem mem;
    om_arena A;
    oj_value *key = NULL, *v = NULL;
    int rc;
    om_err_clear(err);
    if (!ctx || !path || !out)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_file_format: NULL argument");
    om_mem_init(&mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&A, &mem, 0);
    memset(&src, 0, sizeof(src));
    src.mem = &mem;
    src.arena = &A;
    src.err = err;
    src.source = path;
    src.max_depth = 64;
    src.max_string = 4096;
    /* the first member only: its key and value are a few bytes in every report */
    if ((rc = ojs_open(&js, path, &mem, 64, 65536, err)))
        goto out;
    if (!(rc = ojs_expect(&js, '{', "a report of opmap (a JSON object)")) &&
        !(rc = ojs_value(&js, 1)) && !(rc = oj_parse(&src, js.val, js.val_len, &key))) {
        if (key->type != OJ_STRING || strcmp(key->s, "schema") != 0)
            rc = ojs_fail(&js, OPMAP_EFORMAT, js.val_offset, "not a report of opmap (its "
                          "first member is not \"schema\")");
        else if (!(rc = ojs_expect(&js, ':', "':' after a key")) && !(rc = ojs_value(&js, 1)) &&
                 !(rc = oj_parse(&src, js.val, js.val_len, &v))) {
            if (v->type == OJ_STRING && strcmp(v->s, OPMAP_REPORT_JSON_SCHEMA) == 0)
                *out = OPMAP_REPORT_JSON;
            else if (v->type == OJ_STRING && strcmp(v->s, OPMAP_REPORT_REGISTRY_SCHEMA) == 0)
                *out = OPMAP_REPORT_REGISTRY;
            else
                rc = ojs_fail(&js, OPMAP_EFORMAT, js.val_offset, "schema: %s%.60s%s, where this "
                              "opmap reads '%s' (and '%s', a registry): reports of other "
                              "versions cannot be merged", v->type == OJ_STRING ? "'" : "",
                              v->type == OJ_STRING ? v->s : "not a string",
                              v->type == OJ_STRING ? "'" : "", OPMAP_REPORT_JSON_SCHEMA,
                              OPMAP_REPORT_REGISTRY_SCHEMA);
        }
    }
    ojs_close(&js);
out:
    om_arena_free(&A);
    return rc;
}
