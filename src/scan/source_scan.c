/*
 * scan/source_scan.c - a Python project (training code) scanned for CUDA-isms: each file's
 * sites (readers/python) answered by the source rules (source_match.c), grouped per rule
 * into the same distinct "operators" a model scan gives (domain "py", the rule id as the
 * name), so every report, the gate, waivers, merge and the portfolio read them unchanged.
 *
 * A rule's status becomes an operator status: unchanged and automatic -> full, renamed and
 * manual -> partial, rewrite -> rewrite, unknown (nobody published an answer) -> unmapped,
 * charged as the rule's weight (by default the cost of verifying it). A rule found many
 * times is one cost: it is fixed once per project. An instance is "file:line:col text".
 */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/mapfile.h"
#include "source_match.h"
#include "scan_internal.h"

typedef struct project {
    group g;
    const om_source_rules *rules;
    om_sr_index ix;
    om_op_work **by_rule;        /* per rule of the table, once found */
    om_vec sites;                /* py_site, one file's */
} project;

/* "<id>: <repo> <path> @<commit>" for a cited source; a curated one gives its reason */
static const char *citation(om_arena *A, const om_source_rules *r, const om_source_rule *rule,
                            const char *id)
{
    size_t i;
    for (i = 0; i < r->n_sources; i++) {
        const om_sr_source *s = &r->sources[i];
        if (strcmp(s->id, id) != 0)
            continue;
        if (!s->repo)
            return om_arena_printf(A, "%s: %s", id, rule->curated ? rule->curated : s->taken);
        return om_arena_printf(A, "%s: %s %s @%.12s", id, s->repo, s->path ? s->path : "",
                               s->commit ? s->commit : "");
    }
    return om_arena_strdup(A, id);
}

static opmap_op *new_finding(project *p, const om_source_rule *rule)
{
    opmap_result *res = p->g.res;
    om_arena *A = &res->arena;
    opmap_op *op = om_arena_alloc(A, sizeof(*op));
    size_t c, k;
    if (!op)
        return NULL;
    memset(op, 0, sizeof(*op));
    op->source = 1;
    op->grade = rule->grade;
    op->sr_status = (uint8_t)rule->status;
    op->status = om_sr_op_status(rule->status);
    op->effort = rule->weight;
    op->n_chips = res->n_chips;
    if (!(op->domain = om_arena_strdup(A, "py")) || !(op->name = om_arena_strdup(A, rule->id)) ||
        !(op->exported_as = om_arena_strdup(A, "")) ||
        !(op->chip_status = om_arena_array(A, res->n_chips, sizeof(int))) ||
        !(op->chip_unknown = om_arena_array(A, res->n_chips, 1)) ||
        !(op->notes = om_arena_strdup(A, rule->notes ? rule->notes : "")) ||
        !(op->hint = om_arena_strdup(A, rule->hint ? rule->hint : "")) ||
        !(op->api = om_arena_strdup(A, rule->replacement ? rule->replacement : "")) ||
        !(op->becomes = om_arena_strdup(A, rule->replacement && rule->replacement[0]
                                               ? rule->replacement
                                           : rule->status == OM_SR_UNKNOWN ? "not published"
                                           : rule->status == OM_SR_UNCHANGED ? "unchanged"
                                                                             : "none published")) ||
        !(op->ascend_op = om_arena_strdup(A, "")) || !(op->aclnn = om_arena_strdup(A, "")) ||
        !(op->engine = om_arena_strdup(A, "")) || !(op->becomes_how = om_arena_strdup(A, "")))
        return NULL;
    for (c = 0; c < res->n_chips; c++)
        op->chip_status[c] = op->status;
    if (rule->n_sources) {
        if (!(op->sources = om_arena_array(A, rule->n_sources, sizeof(char *))))
            return NULL;
        for (k = 0; k < rule->n_sources; k++)
            if (!(op->sources[k] = citation(A, p->rules, rule, rule->sources[k])))
                return NULL;
        op->n_sources = rule->n_sources;
    }
    return op;
}

/* One place the rule matched: "file:line:col" (or the file, for a file rule) and text;
 * `guarded`: an import, under try/except ImportError (1) or not (0); -1: no import. */
static int add_instance(project *p, const om_source_rule *rule, const char *file, uint32_t line,
                        uint32_t col, const char *text, int guarded)
{
    opmap_result *res = p->g.res;
    size_t idx = (size_t)(rule - p->rules->rules);
    om_op_work *w = p->by_rule[idx];
    opmap_op *op;
    const char **path, **loc;
    if (!w && (!(op = new_finding(p, rule)) || !(w = om_scan_work_new(&p->g, op))))
        return om_scan_oom(&p->g);
    p->by_rule[idx] = w;
    w->op->instances++;
    w->guarded_places += guarded == 1;
    w->import_places += guarded >= 0;
    if (!(path = om_vec_push(&w->paths, &res->mem)) ||
        !(loc = om_vec_push(&w->locs, &res->mem)))
        return om_scan_oom(&p->g);
    *path = line ? om_arena_printf(&res->arena, "%s:%u:%u %s", file, (unsigned)line,
                                   (unsigned)col, text)
                 : om_arena_strdup(&res->arena, file);
    *loc = line ? om_arena_printf(&res->arena, "%s:%u:%u", file, (unsigned)line, (unsigned)col)
                : om_arena_strdup(&res->arena, file);
    return *path && *loc ? OPMAP_OK : om_scan_oom(&p->g);
}

static uint64_t count_lines(const unsigned char *t, size_t n)
{
    uint64_t lines = 0;
    size_t i;
    for (i = 0; i < n; i++)
        lines += t[i] == '\n' || (t[i] == '\r' && (i + 1 == n || t[i + 1] != '\n'));
    return lines + (n && t[n - 1] != '\n' && t[n - 1] != '\r');
}

static int is_python(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".py") == 0;
}

/* A file that does not scan is a warning naming where, not the project's failure: Python 2
 * files, templates and generated code are common in training repositories. */
static int not_scanned(project *p, const opmap_error *e)
{
    opmap_result *res = p->g.res;
    om_diag *d = om_vec_push(&res->diags, &res->mem);
    char where[600];
    if (e->line)
        snprintf(where, sizeof(where), "%s:%u:%u", e->source, (unsigned)e->line,
                 (unsigned)e->column);
    else
        snprintf(where, sizeof(where), "%s", e->source);
    if (!d || !(d->message = om_arena_printf(&res->arena, OM_NOT_SCANNED "%s): %s",
                                             opmap_status_str(e->code), e->message)) ||
        !(d->where = om_arena_strdup(&res->arena, where)))
        return om_scan_oom(&p->g);
    d->level = OPMAP_DIAG_WARNING;
    res->src_not_read++;
    return OPMAP_OK;
}

/* One file of the project: a file rule by its name; a .py file's sites by the rules. */
static int scan_file(project *p, const char *name, const unsigned char *text, size_t len)
{
    opmap_result *res = p->g.res;
    const om_source_rule *rule = om_sr_match_file(&p->ix, name);
    om_arena tmp;
    opmap_error e;
    size_t i;
    int rc;
    res->src_files++;
    res->src_lines += count_lines(text, len);
    if (rule && (rc = add_instance(p, rule, name, 0, 0, "", -1)))
        return rc;
    if (!is_python(name))
        return OPMAP_OK;
    om_arena_init(&tmp, &res->mem, 0);
    p->sites.len = 0;
    rc = py_scan_source(name, text, len, &res->ctx->limits, &tmp, &p->sites, &e);
    if (rc == OPMAP_ENOMEM) {
        if (p->g.err)
            *p->g.err = e;
    } else if (rc != OPMAP_OK) {
        rc = not_scanned(p, &e);
    } else {
        for (i = 0; i < p->sites.len && rc == OPMAP_OK; i++) {
            const py_site *s = &OM_VEC_AT(&p->sites, py_site, i);
            /* an import is found where its statement is: the line a reader edits */
            if ((rule = om_sr_match_site(&p->ix, s)) && s->kind == PY_SITE_IMPORT)
                rc = add_instance(p, rule, name, s->stmt_line, s->stmt_col, s->name, s->guarded);
            else if (rule)
                rc = add_instance(p, rule, name, s->line, s->col, s->text, -1);
        }
    }
    om_arena_free(&tmp);
    return rc;
}

/* A finding whose every import is under try/except ImportError: the code runs
 * its fallback where the package is missing, as on Ascend; it costs what the fallback does
 * (its own code, scanned), so the finding is a note at no charge. */
static int guard(project *p, const om_op_work *w)
{
    opmap_result *res = p->g.res;
    opmap_op *op = w->op;
    size_t c;
    if (!w->import_places || w->guarded_places != w->import_places ||
        op->sr_status == OM_SR_UNCHANGED)
        return OPMAP_OK;
    op->guarded = 1;
    op->status = OPMAP_OP_FULL;
    for (c = 0; c < op->n_chips; c++)
        op->chip_status[c] = OPMAP_OP_FULL;
    memset(&op->effort, 0, sizeof(op->effort));
    op->notes = om_arena_printf(&res->arena, "guarded: every import of it is under try/except "
                                "ImportError, so where it is missing (on Ascend) the code runs "
                                "its fallback, which costs what its own code does (scanned "
                                "with the project); the hint says what replaces it for speed%s%s",
                                op->notes[0] ? ". " : "", op->notes);
    return op->notes ? OPMAP_OK : om_scan_oom(&p->g);
}

/* Rules of one group (a CUDA extension: its build entry, its kernels and headers) are one
 * piece of work: the first found keeps its charge, the others say where it is counted. */
static int charge_groups(project *p)
{
    opmap_result *res = p->g.res;
    size_t i, j;
    for (i = 0; i < p->rules->n_rules; i++) {
        const om_source_rule *ri = &p->rules->rules[i];
        opmap_op *first = p->by_rule[i] ? p->by_rule[i]->op : NULL;
        if (!ri->group || !first || first->charged_with)
            continue;
        for (j = i + 1; j < p->rules->n_rules; j++) {
            const om_source_rule *rj = &p->rules->rules[j];
            opmap_op *op = p->by_rule[j] ? p->by_rule[j]->op : NULL;
            if (!op || !rj->group || strcmp(rj->group, ri->group) != 0 || op->charged_with)
                continue;
            memset(&op->effort, 0, sizeof(op->effort));
            op->charged_with = first->name;
            if (!(op->notes = om_arena_printf(&res->arena, "one piece of work with py::%s "
                                              "(%s), charged there%s%s", first->name, ri->group,
                                              op->notes[0] ? ". " : "", op->notes)))
                return om_scan_oom(&p->g);
        }
        first->charged_with = "";  /* the one charged: later rules of the group skip it */
    }
    return OPMAP_OK;
}

/* After the files: each finding's paths and locations fixed into the result. */
static int finish(project *p)
{
    opmap_result *res = p->g.res;
    size_t i;
    int rc;
    for (i = 0; i < p->g.ops.len; i++)
        if ((rc = guard(p, OM_VEC_AT(&p->g.ops, om_op_work *, i))))
            return rc;
    if ((rc = charge_groups(p)))
        return rc;
    for (i = 0; i < p->g.ops.len; i++)
        if ((rc = om_scan_work_finish(&p->g, OM_VEC_AT(&p->g.ops, om_op_work *, i))))
            return rc;
    if ((rc = om_scan_list_ops(&p->g)) != OPMAP_OK)
        return rc;
    if (om_scan_torch_npu_needed(res) != OPMAP_OK)
        return om_scan_oom(&p->g);
    om_scan_summarize(res);
    return OPMAP_OK;
}

typedef int (*next_file)(void *state, size_t i, project *p);

static int scan_project(opmap_result **out, opmap_ctx *ctx, const char *name, size_t n_files,
                        next_file next, void *state, const opmap_table *table,
                        const opmap_scan_options *opts, opmap_error *err)
{
    opmap_result *res = NULL;
    const om_source_rules *rules = NULL;
    project p;
    size_t i;
    int rc;
    memset(&p, 0, sizeof(p));
    if ((rc = om_scan_begin(&p.g, &res, ctx, name, table, opts, err)))
        goto done;
    res->format = OPMAP_FORMAT_PYTHON;
    if (!(res->producer_name = om_arena_strdup(&res->arena, "")) ||
        !(res->producer_version = om_arena_strdup(&res->arena, "")) ||
        !(res->model_domain = om_arena_strdup(&res->arena, ""))) {
        rc = om_scan_oom(&p.g);
        goto done;
    }
    p.rules = rules = table->source_rules; /* loaded with the table, parsed once */
    om_vec_init(&p.sites, sizeof(py_site));
    if (om_sr_index_build(&p.ix, rules, &res->mem) != OPMAP_OK ||
        !(p.by_rule = om_calloc(&res->mem, rules->n_rules ? rules->n_rules : 1,
                                sizeof(*p.by_rule)))) {
        rc = om_scan_oom(&p.g);
        goto done;
    }
    for (i = 0; i < n_files && rc == OPMAP_OK; i++)
        rc = next(state, i, &p);
    if (rc == OPMAP_OK)
        rc = finish(&p);
done:
    if (res) {
        om_vec_free(&p.sites, &res->mem);
        if (p.by_rule)
            om_dealloc(&res->mem, p.by_rule, (rules->n_rules ? rules->n_rules : 1) *
                                                 sizeof(*p.by_rule));
        if (p.ix.rules)
            om_sr_index_free(&p.ix);
    }
    om_scan_end(&p.g);
    if (rc != OPMAP_OK) {
        opmap_result_free(res);
        return rc;
    }
    *out = res;
    return OPMAP_OK;
}

static int next_path(void *state, size_t i, project *p)
{
    const char *path = ((const char *const *)state)[i];
    om_mapped m;
    int rc;
    if (!path)
        return om_fail(p->g.err, OPMAP_EINVAL, NULL, "opmap_scan_sources: path %zu is NULL", i);
    if ((rc = om_map_file_limit(&m, &p->g.res->mem, path, p->g.res->ctx->limits.max_file_bytes,
                                "max_file_bytes", p->g.err)))
        return rc;
    rc = scan_file(p, path, m.data, (size_t)m.size);
    om_unmap(&m);
    return rc;
}

static int next_text(void *state, size_t i, project *p)
{
    const opmap_source_text *f = &((const opmap_source_text *)state)[i];
    if (!f->name || (!f->data && f->size))
        return om_fail(p->g.err, OPMAP_EINVAL, NULL,
                       "opmap_scan_sources_memory: file %zu has no name or no data", i);
    return scan_file(p, f->name, f->data, f->size);
}

int opmap_scan_sources(opmap_result **out, opmap_ctx *ctx, const char *project_name,
                       const char *const *paths, size_t n_paths, const opmap_table *table,
                       const opmap_scan_options *opts, opmap_error *err)
{
    om_err_clear(err);
    if (!out || !ctx || !table || (n_paths && !paths))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan_sources: NULL argument");
    *out = NULL;
    return scan_project(out, ctx, project_name ? project_name : "<sources>", n_paths, next_path,
                        (void *)paths, table, opts, err);
}

int opmap_scan_sources_memory(opmap_result **out, opmap_ctx *ctx, const char *project_name,
                              const opmap_source_text *files, size_t n_files,
                              const opmap_table *table, const opmap_scan_options *opts,
                              opmap_error *err)
{
    om_err_clear(err);
    if (!out || !ctx || !table || (n_files && !files))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_scan_sources_memory: NULL argument");
    *out = NULL;
    return scan_project(out, ctx, project_name ? project_name : "<sources>", n_files, next_text,
                        (void *)files, table, opts, err);
}
