/*
 * merge/report_set.c - JSON reports read back into results (opmap_report_set_*, the API of
 * `opmap merge`).
 *
 * Each report is parsed whole into a tree (bounded by the context's limits), its header
 * held against the set's table and first report, its models turned into results and its
 * unread files into problems; only when all of it reads is it added, so a refused report
 * leaves the set as it was. A file named in two reports means the shards overlap: refused,
 * since merging would count it twice.
 */
#include <string.h>

#include <opmap/version.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/mapfile.h"
#include "scan/result_estimate.h"
#include "table/table_internal.h"
#include "merge_internal.h"


int opmap_report_set_new(opmap_report_set **out, opmap_ctx *ctx, const opmap_table *table,
                         opmap_error *err)
{
    opmap_report_set *s;
    om_err_clear(err);
    if (!out || !ctx || !table)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_set_new: NULL argument");
    if (!(s = om_ctx_calloc(ctx, sizeof(*s))))
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    s->ctx = ctx;
    s->table = table;
    om_mem_init(&s->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&s->arena, &s->mem, 0);
    om_vec_init(&s->results, sizeof(opmap_result *));
    om_vec_init(&s->problems, sizeof(opmap_file_problem));
    *out = s;
    return OPMAP_OK;
}

void opmap_report_set_free(opmap_report_set *s)
{
    size_t i;
    if (!s)
        return;
    for (i = 0; i < s->results.len; i++)
        opmap_result_free(OM_VEC_AT(&s->results, opmap_result *, i));
    om_vec_free(&s->results, &s->mem);
    om_vec_free(&s->problems, &s->mem);
    if (s->names)
        om_dealloc(&s->mem, s->names, s->names_cap * sizeof(*s->names));
    if (s->seen)
        om_dealloc(&s->mem, s->seen, s->seen_cap * sizeof(*s->seen));
    om_arena_free(&s->arena);
    om_ctx_release(s->ctx, s);
}

size_t opmap_report_set_count(const opmap_report_set *s) { return s ? s->results.len : 0; }

const opmap_result *const *opmap_report_set_results(const opmap_report_set *s)
{
    return s && s->results.len ? (const opmap_result *const *)s->results.data : NULL;
}

const opmap_file_problem *opmap_report_set_problems(const opmap_report_set *s, size_t *count)
{
    if (count)
        *count = s ? s->problems.len : 0;
    return s && s->problems.len ? (const opmap_file_problem *)s->problems.data : NULL;
}

/* One string of the header, equal to what the set already has (or taken as it). */
static int same(rr *r, const oj_value *o, const char *key, const char *want, const char *what)
{
    const char *s;
    int rc = rr_str(r, o, key, NULL, &s);
    if (!rc && want && strcmp(s, want) != 0)
        return rr_fail(r, oj_get(o, key), key, "'%.80s', where %s is '%.80s': reports of "
                       "other versions or tables cannot be merged", s, what, want);
    return rc;
}

/* The table's index of the chip `name` (as the table spells it, as a scan writes it), or -1. */
static long table_chip(const opmap_table *t, const char *name)
{
    size_t i;
    for (i = 0; i < t->n_socs; i++)
        if (strcmp(t->socs[i], name) == 0)
            return (long)i;
    return -1;
}

/* The family's parts as the report lists them must be the table's, and the part asked for
 * one of them: a scan copies both from the table (scan.c, copy_chips). */
static int check_parts(rr *r, const opmap_table *t, size_t fam, const oj_value *e,
                       const om_chip *x)
{
    const om_soc_parts *sp = t->soc_parts ? &t->soc_parts[fam] : NULL;
    size_t n = sp ? sp->n_parts : 0, k;
    int found = !x->part;
    if (x->n_parts != n)
        return rr_fail(r, e, "parts", "%zu parts, where the table names %zu for '%.40s'",
                       x->n_parts, n, t->socs[fam]);
    for (k = 0; k < n; k++) {
        if (strcmp(x->parts[k], sp->parts[k]) != 0)
            return rr_fail(r, e, "parts", "'%.40s', where the table has '%.40s'", x->parts[k],
                           sp->parts[k]);
        found |= x->part && strcmp(x->part, sp->parts[k]) == 0;
    }
    if (!found)
        return rr_fail(r, e, "part", "'%.40s' is not a part of '%.40s' in the table", x->part,
                       t->socs[fam]);
    return OPMAP_OK;
}

/* "socs": per chip, the part asked for (--soc Ascend910B3) and its family's parts; the
 * same in every report, since the ATC commands name the part. */
static int read_socs(opmap_report_set *s, rr *r, const oj_value *root, rr_header *h)
{
    const oj_value *a;
    size_t c, k;
    int rc = rr_arr(r, root, "socs", &a);
    if (rc)
        return rc;
    if (a->n != h->n_chips)
        return rr_fail(r, a, "socs", "%u entries for %zu chips", a->n, h->n_chips);
    if (a->n && !(h->chip_info = om_arena_array(&s->arena, a->n, sizeof(om_chip))))
        return om_fail_mem(r->err, &s->mem, r->source);
    for (c = 0; c < a->n; c++) {
        const oj_value *e = &a->kids[c], *part, *parts;
        om_chip *x = &h->chip_info[c];
        const char *family;
        rr_at(r, "socs", c);
        if ((rc = rr_str(r, e, "family", NULL, &family)) || (rc = rr_arr(r, e, "parts", &parts)))
            return rc;
        if (strcmp(family, h->chips[c]) != 0)
            return rr_fail(r, e, "family", "'%.40s' for the chip '%.40s'", family, h->chips[c]);
        if ((part = oj_get(e, "part")) && part->type != OJ_NULL &&
            (rc = rr_str(r, e, "part", &s->arena, &x->part)))
            return rc;
        if (s->have_header && !!x->part != !!s->h.chip_info[c].part)
            return rr_fail(r, e, "part", "differs from the first report's (--soc)");
        if (s->have_header && x->part && strcmp(x->part, s->h.chip_info[c].part) != 0)
            return rr_fail(r, e, "part", "'%.40s', where the first report has '%.40s' (--soc)",
                           x->part, s->h.chip_info[c].part);
        if (parts->n > 64)
            return rr_fail(r, parts, "parts", "more than 64");
        if (parts->n && !(x->parts = om_arena_array(&s->arena, parts->n, sizeof(char *))))
            return om_fail_mem(r->err, &s->mem, r->source);
        for (k = 0; k < parts->n; k++) {
            if (parts->kids[k].type != OJ_STRING)
                return rr_fail(r, &parts->kids[k], "parts", "not a list of part names");
            if (!(x->parts[k] = om_arena_strdup(&s->arena, parts->kids[k].s)))
                return om_fail_mem(r->err, &s->mem, r->source);
        }
        x->n_parts = parts->n;
        if ((rc = check_parts(r, s->table, (size_t)table_chip(s->table, h->chips[c]), e, x)))
            return rc;
    }
    rr_at(r, "", SIZE_MAX);
    return OPMAP_OK;
}

static const char *mode_name(int i) { return opmap_mode_name(i); }
static const char *workload_name(int i) { return opmap_workload_name(i); }

/* "workload": what the scans answered for (--workload); every report the first one's. */
static int read_workload(opmap_report_set *s, rr *r, const oj_value *root, rr_header *h)
{
    int rc = rr_name(r, root, "workload", workload_name, 2, &h->workload);
    if (!rc && s->have_header && h->workload != s->h.workload)
        return rr_fail(r, oj_get(root, "workload"), "workload", "'%s', where the first report "
                       "has '%s' (--workload: a report answered for another workload)",
                       opmap_workload_name(h->workload), opmap_workload_name(s->h.workload));
    return rc;
}

/* "mode": how the scans answered (--mode); every report the first one's. */
static int read_mode(opmap_report_set *s, rr *r, const oj_value *root, rr_header *h)
{
    int rc = rr_name(r, root, "mode", mode_name, 2, &h->mode);
    if (!rc && s->have_header && h->mode != s->h.mode)
        return rr_fail(r, oj_get(root, "mode"), "mode", "'%s', where the first report has '%s' "
                       "(--mode: a report answered for another mode)", opmap_mode_name(h->mode),
                       opmap_mode_name(s->h.mode));
    return rc;
}

/* The header of a report of no model: "table" {}, no chips, no socs, target "", and a
 * mode that is one but says nothing (the writer has no result to take it from). */
static int headerless(rr *r, const oj_value *root, rr_header *h)
{
    const oj_value *chips, *socs, *tnpu;
    const char *target;
    int rc, mode;
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_arr(r, root, "chips", &chips)) || (rc = rr_arr(r, root, "socs", &socs)) ||
        (rc = rr_obj(r, root, "torch_npu", &tnpu)) ||
        (rc = rr_name(r, root, "mode", mode_name, 2, &mode)) ||
        (rc = rr_name(r, root, "workload", workload_name, 2, &h->workload)))
        return rc;
    rr_at(r, "torch_npu", SIZE_MAX);
    if ((rc = rr_str(r, tnpu, "target", NULL, &target)))
        return rc;
    rr_at(r, "", SIZE_MAX);
    if (chips->n || socs->n || target[0])
        return rr_fail(r, chips->n ? chips : socs->n ? socs : tnpu, NULL, "chips, socs or a "
                       "torch_npu target in a report of no model, whose table is empty");
    h->empty = 1;
    h->tnpu_target = "";
    return OPMAP_OK;
}

int om_merge_read_header(opmap_report_set *s, rr *r, const oj_value *root, rr_header *h)
{
    const opmap_table *t = s->table;
    const oj_value *tool, *table, *chips, *tnpu, *models;
    size_t c;
    int rc;
    rr_at(r, "", SIZE_MAX);
    if (root->type != OJ_OBJECT)
        return rr_fail(r, root, NULL, "not a JSON report of opmap (not an object)");
    if ((rc = same(r, root, "schema", r->schema ? r->schema : OPMAP_REPORT_JSON_SCHEMA,
                   "the schema this opmap reads")) ||
        (rc = rr_obj(r, root, "tool", &tool)) || (rc = rr_obj(r, root, "table", &table)))
        return rc;
    rr_at(r, "tool", SIZE_MAX);
    if ((rc = same(r, tool, "version", opmap_version_string(), "this opmap's version")))
        return rc;
    /* every file of the shard unreadable: nothing to hold against the table */
    if ((models = oj_arr(root, "models")) && !models->n && !table->n)
        return headerless(r, root, h);
    rr_at(r, "table", SIZE_MAX);
    if ((rc = same(r, table, "origin", opmap_table_origin(t), "the table's origin (--table)")) ||
        (rc = same(r, table, "name", opmap_table_name(t), "the table's name")) ||
        (rc = same(r, table, "version", opmap_table_version(t), "the table's version")) ||
        (rc = same(r, table, "torch_npu", opmap_table_torch_npu(t), "the table's torch_npu")) ||
        (rc = same(r, table, "cann", opmap_table_cann(t), "the table's cann")))
        return rc;
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_obj(r, root, "torch_npu", &tnpu)))
        return rc;
    rr_at(r, "torch_npu", SIZE_MAX);
    if ((rc = same(r, tnpu, "target", s->have_header ? s->h.tnpu_target : NULL,
                   "the first report's --torch-npu")) ||
        (rc = rr_str(r, tnpu, "target", &s->arena, &h->tnpu_target)))
        return rc;
    rr_at(r, "", SIZE_MAX);
    if ((rc = read_mode(s, r, root, h)) || (rc = read_workload(s, r, root, h)) ||
        (rc = rr_arr(r, root, "chips", &chips)))
        return rc;
    h->table_origin = opmap_table_origin(t);
    h->table_name = opmap_table_name(t);
    h->table_version = opmap_table_version(t);
    h->torch_npu = opmap_table_torch_npu(t);
    h->cann = opmap_table_cann(t);
    if (s->have_header && chips->n != s->h.n_chips)
        return rr_fail(r, chips, "chips", "%u chips, where the first report has %zu", chips->n,
                       s->h.n_chips);
    if (!chips->n || chips->n > 64)
        return rr_fail(r, chips, "chips", "%u chips: a scan answers for 1 to 64", chips->n);
    h->n_chips = chips->n;
    if (chips->n && !(h->chips = om_arena_array(&s->arena, chips->n, sizeof(char *))))
        return om_fail_mem(r->err, &s->mem, r->source);
    for (c = 0; c < chips->n; c++) {
        const oj_value *v = &chips->kids[c];
        size_t k;
        if (v->type != OJ_STRING)
            return rr_fail(r, v, "chips", "not a list of chip names");
        /* the table's chips, each once, as a scan picks them (scan.c, pick_chips) */
        if (table_chip(t, v->s) < 0)
            return rr_fail(r, v, "chips", "'%.40s' is not a chip of the table (about.socs)",
                           v->s);
        for (k = 0; k < c; k++)
            if (strcmp(v->s, h->chips[k]) == 0)
                return rr_fail(r, v, "chips", "'%.40s' listed twice", v->s);
        if (s->have_header && strcmp(v->s, s->h.chips[c]) != 0)
            return rr_fail(r, v, "chips", "'%.40s', where the first report has '%.40s'", v->s,
                           s->h.chips[c]);
        if (!(h->chips[c] = om_arena_strdup(&s->arena, v->s)))
            return om_fail_mem(r->err, &s->mem, r->source);
    }
    return read_socs(s, r, root, h);
}

/* A fixed-size string of opmap_error from a member ("" when absent). */
static int error_text(rr *r, const oj_value *o, const char *key, char *buf, size_t size)
{
    const char *s = "";
    int rc = oj_get(o, key) ? rr_str(r, o, key, NULL, &s) : OPMAP_OK;
    if (rc)
        return rc;
    if (strlen(s) >= size)
        return rr_fail(r, oj_get(o, key), key, "longer than an error holds (%zu bytes)", size - 1);
    memcpy(buf, s, strlen(s) + 1);
    return OPMAP_OK;
}

/* A number member that the writer leaves out when it does not apply. */
static int opt_uint(rr *r, const oj_value *o, const char *key, uint64_t none, uint64_t *out)
{
    *out = none;
    return oj_get(o, key) ? rr_uint(r, o, key, out) : OPMAP_OK;
}

/* One element of "errors" or "skipped": the file and the error that kept it out. */
static int read_problem(opmap_report_set *s, rr *r, const oj_value *o, int skipped,
                        opmap_file_problem *p, uint64_t *order)
{
    opmap_error *e = om_arena_alloc(&s->arena, sizeof(*e));
    uint64_t line, column, offset;
    int64_t code, sys = 0;
    int rc;
    if (!e)
        return om_fail_mem(r->err, &s->mem, r->source);
    p->skipped = skipped;
    p->error = NULL;
    if ((rc = rr_str(r, o, "file", &s->arena, &p->file)) || (rc = rr_uint(r, o, "order", order)))
        return rc;
    if (!oj_get(o, "code")) /* written without its error */
        return OPMAP_OK;
    if ((rc = rr_int(r, o, "code", &code)) ||
        (rc = error_text(r, o, "source", e->source, sizeof(e->source))) ||
        (rc = error_text(r, o, "message", e->message, sizeof(e->message))) ||
        (rc = opt_uint(r, o, "line", 0, &line)) || (rc = opt_uint(r, o, "column", 0, &column)) ||
        (rc = opt_uint(r, o, "offset", OPMAP_NO_OFFSET, &offset)) ||
        (oj_get(o, "errno") && (rc = rr_int(r, o, "errno", &sys))))
        return rc;
    if (code >= 0 || code < -1000 || sys < 0 || sys > 100000 || line > UINT32_MAX ||
        column > UINT32_MAX)
        return rr_fail(r, o, NULL, "an error code, errno, line or column out of range");
    e->code = (int)code;
    e->sys_errno = (int)sys;
    e->line = (uint32_t)line;
    e->column = (uint32_t)column;
    e->offset = offset;
    p->error = e;
    return OPMAP_OK;
}

/* The report's unread files, in the order the scan met them ("order"). */
int om_merge_read_problems(opmap_report_set *s, rr *r, const oj_value *root, om_vec *out)
{
    const oj_value *a;
    uint64_t *orders;
    unsigned char *seen;
    size_t i, n = 0, k = 0;
    int skipped, rc;
    for (skipped = 0; skipped < 2; skipped++) {
        if ((rc = rr_arr(r, root, skipped ? "skipped" : "errors", &a)))
            return rc;
        n += a->n;
    }
    if (!n)
        return OPMAP_OK;
    if (!(orders = om_arena_array(&s->arena, n, sizeof(*orders))) ||
        !(seen = om_arena_array(&s->arena, n, 1)))
        return om_fail_mem(r->err, &s->mem, r->source);
    for (skipped = 0; skipped < 2; skipped++) {
        rr_arr(r, root, skipped ? "skipped" : "errors", &a);
        for (i = 0; i < a->n; i++, k++) {
            opmap_file_problem *p = om_vec_push(out, &s->mem);
            rr_at(r, skipped ? "skipped" : "errors", i);
            if (!p)
                return om_fail_mem(r->err, &s->mem, r->source);
            if ((rc = read_problem(s, r, &a->kids[i], skipped, p, &orders[k])))
                return rc;
            if (orders[k] >= n)
                return rr_fail(r, &a->kids[i], "order", "%llu of %zu files not read",
                               (unsigned long long)orders[k], n);
            if (seen[orders[k]]++)
                return rr_fail(r, &a->kids[i], "order", "%llu twice",
                               (unsigned long long)orders[k]);
        }
    }
    /* put each where "order" says: a permutation, checked above */
    for (i = 0; i < n; i++)
        while (orders[i] != i) {
            opmap_file_problem t = OM_VEC_AT(out, opmap_file_problem, orders[i]);
            uint64_t o = orders[orders[i]];
            OM_VEC_AT(out, opmap_file_problem, orders[i]) = OM_VEC_AT(out, opmap_file_problem, i);
            orders[orders[i]] = orders[i];
            OM_VEC_AT(out, opmap_file_problem, i) = t;
            orders[i] = o;
        }
    return OPMAP_OK;
}

/* The slot of `name` in the index of model files (empty when it is not there). */
static struct name_slot *name_slot(const opmap_report_set *s, const char *name)
{
    size_t j = (size_t)om_hash_name(name) & (s->names_cap - 1);
    while (s->names[j].name && strcmp(s->names[j].name, name) != 0)
        j = (j + 1) & (s->names_cap - 1);
    return &s->names[j];
}

/* Room for `more` names at a load of at most one half. */
static int grow_names(opmap_report_set *s, size_t more)
{
    struct name_slot *old = s->names, *nn;
    size_t cap = s->names_cap ? s->names_cap : 64, old_cap = s->names_cap, i;
    while ((s->n_names + more) * 2 > cap) {
        if (cap > SIZE_MAX / 4 / sizeof(*nn))
            return OPMAP_ENOMEM;
        cap *= 2;
    }
    if (cap == old_cap)
        return OPMAP_OK;
    if (!(nn = om_calloc(&s->mem, cap, sizeof(*nn))))
        return OPMAP_ENOMEM;
    s->names = nn;
    s->names_cap = cap;
    for (i = 0; i < old_cap; i++)
        if (old[i].name)
            *name_slot(s, old[i].name) = old[i];
    if (old)
        om_dealloc(&s->mem, old, old_cap * sizeof(*old));
    return OPMAP_OK;
}

/* Refuses a model file an earlier report has (the shards overlap); makes room for them. */
static int check_names(opmap_report_set *s, rr *r, opmap_result **res, size_t n,
                       const opmap_file_problem *p, size_t n_p)
{
    size_t i;
    if (grow_names(s, n + n_p) != OPMAP_OK)
        return om_fail_mem(r->err, &s->mem, r->source);
    for (i = 0; i < n + n_p; i++) {
        const char *name = i < n ? res[i]->model_name : p[i - n].file;
        struct name_slot *slot = name_slot(s, name);
        if (slot->name && slot->report != s->n_reports)
            return om_fail(r->err, OPMAP_EFORMAT, r->source, "%.200s is in report %zu too: "
                           "the shards overlap, and merging would count it twice", name,
                           slot->report + 1);
    }
    return OPMAP_OK;
}

/* Indexes the names check_names() made room for (cannot fail). */
static void index_names(opmap_report_set *s, opmap_result **res, size_t n,
                        const opmap_file_problem *p, size_t n_p)
{
    size_t i;
    for (i = 0; i < n + n_p; i++) {
        const char *name = i < n ? res[i]->model_name : p[i - n].file;
        struct name_slot *slot = name_slot(s, name);
        if (!slot->name) {
            slot->name = name;
            slot->report = s->n_reports;
            s->n_names++;
        }
    }
}

/* Appends n items of `elem` bytes to v; on failure v keeps its old length. */
static int append(om_vec *v, om_mem *mem, const void *items, size_t n, size_t elem)
{
    size_t old = v->len, i;
    for (i = 0; i < n; i++) {
        void *slot = om_vec_push(v, mem);
        if (!slot) {
            v->len = old;
            return OPMAP_ENOMEM;
        }
        memcpy(slot, (const char *)items + i * elem, elem);
    }
    return OPMAP_OK;
}

/* Every model of the report into results (*n of them); freed here on failure. */
static int read_models(opmap_report_set *s, rr *r, const oj_value *root, const rr_header *h,
                       opmap_result ***out, size_t *n)
{
    const oj_value *models;
    opmap_result **res;
    size_t i;
    int rc;
    *out = NULL;
    *n = 0;
    rr_at(r, "", SIZE_MAX);
    if ((rc = rr_arr(r, root, "models", &models)) || !models->n)
        return rc;
    if (!(res = om_calloc(&s->mem, models->n, sizeof(*res))))
        return om_fail_mem(r->err, &s->mem, r->source);
    for (i = 0; i < models->n; i++)
        if ((rc = om_merge_read_model(r, s->ctx, h, &models->kids[i], i, &res[i])))
            break;
    if (rc) {
        while (i--)
            opmap_result_free(res[i]);
        om_dealloc(&s->mem, res, models->n * sizeof(*res));
        return rc;
    }
    *out = res;
    *n = models->n;
    return OPMAP_OK;
}

/* One count the report writes, held against what its lists hold. */
int om_merge_same_count(rr *r, const oj_value *o, const char *key, uint64_t have, const char *of)
{
    uint64_t written;
    int rc = rr_uint(r, o, key, &written);
    if (rc)
        return rc;
    if (written != have)
        return rr_fail(r, oj_get(o, key), key, "%llu, but the report lists %llu %s: its totals "
                       "and its lists disagree", (unsigned long long)written,
                       (unsigned long long)have, of);
    return OPMAP_OK;
}

/*
 * A report's totals and headline against its lists: a scan writes them from the same
 * results, so a report whose `models`, `errors` or `skipped` lost an entry (or gained one)
 * says so in its own counts, and merging what is left would pass a gate the shard failed.
 */
static int check_totals(opmap_report_set *s, rr *r, const oj_value *root, opmap_result **res,
                        size_t n, size_t n_probs)
{
    const oj_value *totals, *head;
    om_portfolio p;
    int rc;
    rr_at(r, "totals", SIZE_MAX);
    if ((rc = rr_obj(r, root, "totals", &totals)) ||
        (rc = om_merge_same_count(r, totals, "models", n, "models")))
        return rc;
    if (om_result_portfolio(n ? (const opmap_result *const *)res : NULL, n, &s->mem, &p))
        return om_fail_mem(r->err, &s->mem, r->source);
    rc = om_merge_same_count(r, totals, "operators", p.summary.operators_total, "distinct operators");
    if (!rc)
        rc = om_merge_same_count(r, totals, "instances", p.summary.instances_total, "instances");
    om_portfolio_free(&p, &s->mem);
    if (rc)
        return rc;
    rr_at(r, "headline", SIZE_MAX);
    if ((rc = rr_obj(r, root, "headline", &head)) ||
        (rc = om_merge_same_count(r, head, "models", n, "models")) ||
        (rc = om_merge_same_count(r, head, "files_not_read", n_probs, "files not read (errors, skipped)")))
        return rc;
    return OPMAP_OK;
}

/* Adds what a report read to the set; on failure the set is as it was. */
static int take(opmap_report_set *s, rr *r, const rr_header *h, opmap_result **res, size_t n,
                const om_vec *probs)
{
    int rc = check_names(s, r, res, n, probs->data, probs->len);
    if (rc)
        return rc;
    if (append(&s->results, &s->mem, res, n, sizeof(*res)) != OPMAP_OK)
        return om_fail_mem(r->err, &s->mem, r->source);
    if (append(&s->problems, &s->mem, probs->data, probs->len, sizeof(opmap_file_problem))) {
        s->results.len -= n;
        return om_fail_mem(r->err, &s->mem, r->source);
    }
    index_names(s, res, n, probs->data, probs->len);
    if (!s->have_header && !h->empty) {
        s->h = *h;
        s->have_header = 1;
    }
    s->n_reports++;
    return OPMAP_OK;
}

int opmap_report_set_add(opmap_report_set *s, const char *name, const void *data, size_t size,
                         opmap_error *err)
{
    rr r;
    rr_header h;
    oj_src js;
    oj_value *root;
    om_arena tree;
    om_vec probs;
    opmap_result **res = NULL;
    size_t n = 0, i;
    int rc;
    om_err_clear(err);
    if (!s || (size && !data))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_set_add: NULL argument");
    if (s->n_streamed)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_set_add: the set streams its "
                       "reports (opmap_report_set_stream_file)");
    memset(&r, 0, sizeof(r));
    memset(&h, 0, sizeof(h));
    r.source = name ? name : "<memory>";
    r.text = data;
    r.len = size;
    r.err = err;
    r.table = s->table;
    r.rules = s->table->source_rules;
    om_arena_init(&tree, &s->mem, 0);
    om_vec_init(&probs, sizeof(opmap_file_problem));
    js.mem = &s->mem;
    js.arena = &tree;
    js.err = err;
    js.source = r.source;
    js.max_depth = 64; /* a report nests 8 deep */
    js.max_string = s->ctx->limits.max_string_bytes;
    if (size > s->ctx->limits.max_file_bytes)
        rc = om_fail(err, OPMAP_ELIMIT, r.source, "%zu bytes, over max_file_bytes", size);
    else if (!(rc = oj_parse(&js, data, size, &root)) && !(rc = om_merge_read_header(s, &r, root, &h)) &&
             !(rc = om_merge_read_problems(s, &r, root, &probs)) &&
             !(rc = read_models(s, &r, root, &h, &res, &n)) &&
             ((rc = check_totals(s, &r, root, res, n, probs.len)) != OPMAP_OK ||
              (rc = take(s, &r, &h, res, n, &probs)) != OPMAP_OK))
        for (i = 0; i < n; i++) /* refused: nothing of it stays */
            opmap_result_free(res[i]);
    if (res) /* the results, when taken, are the set's now; the array never is */
        om_dealloc(&s->mem, res, n * sizeof(*res));
    om_vec_free(&probs, &s->mem);
    om_arena_free(&tree);
    return rc;
}

int opmap_report_set_add_file(opmap_report_set *s, const char *path, opmap_error *err)
{
    om_mapped map;
    int rc;
    om_err_clear(err);
    if (!s || !path)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_report_set_add_file: NULL argument");
    /* read whole, from the set's budget: the text and its tree live together a moment */
    if ((rc = om_map_file_limit(&map, &s->mem, path, s->ctx->limits.max_file_bytes,
                                "max_file_bytes", err)))
        return rc;
    rc = opmap_report_set_add(s, path, map.data, (size_t)map.size, err);
    om_unmap(&map);
    return rc;
}
