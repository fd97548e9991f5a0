/*
 * table/table.c - opmap_table: loading (built-in, file, memory) and row accessors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/table.h>

#include "core/context.h"
#include "core/err.h"
#include "core/mapfile.h"
#include "core/info.h"
#include "ir/ir.h"
#include "patterns.h"
#include "source_rules.h"
#include "table_internal.h"

static const char *const status_names[OPMAP_OP_STATUS_COUNT] = {
    "structural", "full", "partial", "rewrite", "unmapped"
};

const char *opmap_op_status_name(int status)
{
    if (status < 0 || status >= OPMAP_OP_STATUS_COUNT)
        return "?";
    return status_names[status];
}

opmap_table *om_table_new(opmap_ctx *ctx, const char *origin)
{
    opmap_table *t = om_ctx_calloc(ctx, sizeof(*t));
    if (!t)
        return NULL;
    t->ctx = ctx;
    om_mem_init(&t->mem, &ctx->al, ctx->limits.max_heap_bytes);
    /* chunks of about an eighth of max_heap_bytes, so a small budget is a limit the
     * table's content reaches (OPMAP_ELIMIT), not a failure to start (OPMAP_ENOMEM) */
    om_arena_init(&t->arena, &t->mem,
                  ctx->limits.max_heap_bytes / 8 < 256 * 1024
                      ? (size_t)(ctx->limits.max_heap_bytes / 8) + 16
                      : 256 * 1024);
    if (!(t->origin = om_arena_strdup(&t->arena, origin))) {
        om_arena_free(&t->arena);
        om_ctx_release(ctx, t);
        return NULL;
    }
    return t;
}

int om_table_builtins(opmap_table *t, opmap_error *err)
{
    char msg[sizeof(err->message)];
    const char *what = "the built-in patterns (data/patterns.yaml)";
    int rc = om_patterns_default(&t->patterns, t->ctx, err);
    if (rc == OPMAP_OK) {
        what = "the built-in source rules (data/source_rules.yaml)";
        rc = om_source_rules_default(&t->source_rules, t->ctx, err);
    }
    if (rc == OPMAP_OK || !err)
        return rc;
    /* the table could not be loaded: say so under its name, whatever part failed */
    snprintf(msg, sizeof(msg), "%s", err->message);
    return om_fail(err, rc, t->origin, "%s: %.400s", what, msg);
}

static int load(opmap_table **out, opmap_ctx *ctx, const void *data, size_t size,
                const char *origin, opmap_error *err)
{
    opmap_table *t;
    int rc;
    if (!(t = om_table_new(ctx, origin)))
        return om_fail(err, OPMAP_ENOMEM, origin, "out of memory");
    rc = om_table_parse(t, data, size, &ctx->limits, err);
    if (rc == OPMAP_OK)
        rc = om_table_builtins(t, err);
    if (rc != OPMAP_OK) {
        opmap_table_free(t);
        return rc;
    }
    *out = t;
    return OPMAP_OK;
}

int opmap_table_load_file(opmap_table **out, opmap_ctx *ctx, const char *path, opmap_error *err)
{
    om_mapped map;
    om_mem mem;
    int rc;
    om_err_clear(err);
    if (!out || !ctx || !path)
        return om_fail(err, OPMAP_EINVAL, path, "opmap_table_load_file: NULL argument");
    *out = NULL;
    om_mem_init(&mem, &ctx->al, ctx->limits.max_table_bytes + 1);
    if ((rc = om_map_file_limit(&map, &mem, path, ctx->limits.max_table_bytes,
                                   "max_table_bytes", err)))
        return rc;
    rc = load(out, ctx, map.data ? map.data : (const unsigned char *)"", (size_t)map.size, path,
              err);
    om_unmap(&map);
    return rc;
}

int opmap_table_load_memory(opmap_table **out, opmap_ctx *ctx, const void *data, size_t size,
                            const char *name, opmap_error *err)
{
    om_err_clear(err);
    if (!name)
        name = "<memory>";
    if (!out || !ctx || (!data && size))
        return om_fail(err, OPMAP_EINVAL, name, "opmap_table_load_memory: NULL argument");
    *out = NULL;
    return load(out, ctx, data ? data : "", size, name, err);
}

void opmap_table_free(opmap_table *t)
{
    if (!t)
        return;
    om_patterns_free(t->patterns);
    om_source_rules_free(t->source_rules);
    om_arena_free(&t->arena);
    om_ctx_release(t->ctx, t);
}

const char *opmap_table_origin(const opmap_table *t) { return t->origin; }
const char *opmap_table_name(const opmap_table *t) { return t->name; }
const char *opmap_table_version(const opmap_table *t) { return t->version; }
size_t opmap_table_row_count(const opmap_table *t) { return t->n_rows; }

int opmap_table_row(const opmap_table *t, size_t i, const opmap_row **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = t && i < t->n_rows ? &t->rows[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

opmap_effort opmap_table_weights(const opmap_table *t, int status)
{
    opmap_effort zero = { 0, 0, 0 };
    if (status <= OPMAP_OP_STRUCTURAL || status >= OPMAP_OP_STATUS_COUNT)
        return zero;
    return t->weights[status];
}

#define S(x) ((x) ? (x) : "")

const char *opmap_row_domain(const opmap_row *r) { return r->domain; }
const char *opmap_row_op(const opmap_row *r) { return r->op; }
int64_t opmap_row_since(const opmap_row *r) { return r->since; }
int opmap_row_status(const opmap_row *r) { return r->status; }
unsigned opmap_row_flags(const opmap_row *r) { return r->flags; }
const char *opmap_row_notes(const opmap_row *r) { return S(r->notes); }
const char *opmap_row_hint(const opmap_row *r) { return S(r->hint); }
const char *opmap_row_curated(const opmap_row *r) { return S(r->curated); }
const char *opmap_row_ascend_op(const opmap_row *r) { return S(r->ascend_op); }
const char *opmap_row_aclnn(const opmap_row *r) { return S(r->aclnn); }
const char *opmap_row_api(const opmap_row *r) { return S(r->api); }
const char *opmap_row_engine(const opmap_row *r) { return S(r->engine); }
size_t opmap_row_source_count(const opmap_row *r) { return r->n_sources; }
uint32_t opmap_row_line(const opmap_row *r) { return r->line; }

int opmap_row_source(const opmap_row *r, size_t i, const char **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = r && i < r->n_sources ? r->sources[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

size_t opmap_table_soc_count(const opmap_table *t) { return t->n_socs; }
int opmap_table_soc(const opmap_table *t, size_t i, const char **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = t && i < t->n_socs ? t->socs[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}
const char *opmap_table_default_soc(const opmap_table *t) { return t->socs[t->default_soc]; }

/* `a` (len bytes) equals the string b, ASCII case aside. */
static int same_name(const char *a, size_t len, const char *b)
{
    size_t i;
    for (i = 0; i < len; i++) {
        char x = a[i], y = b[i];
        if (!y)
            return 0;
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return b[len] == '\0';
}

int om_table_find_soc(const opmap_table *t, const char *name, size_t len, size_t *family,
                      const char **part)
{
    size_t i, j;
    for (i = 0; i < t->n_socs; i++)
        if (same_name(name, len, t->socs[i])) {
            *family = i;
            *part = NULL;
            return 1;
        }
    for (i = 0; t->soc_parts && i < t->n_socs; i++)
        for (j = 0; j < t->soc_parts[i].n_parts; j++)
            if (same_name(name, len, t->soc_parts[i].parts[j])) {
                *family = i;
                *part = t->soc_parts[i].parts[j];
                return 1;
            }
    return 0;
}
const char *opmap_table_torch_npu(const opmap_table *t) { return t->torch_npu; }
const char *opmap_table_cann(const opmap_table *t) { return t->cann; }
size_t opmap_table_source_count(const opmap_table *t) { return t->n_sources; }

int opmap_table_source(const opmap_table *t, size_t i, opmap_source_info *out)
{
    const om_source *s;
    opmap_source_info info;
    if (!t || i >= t->n_sources)
        return OPMAP_EINVAL;
    s = &t->sources[i];
    info.size = sizeof(info);
    info.id = s->id;
    info.title = S(s->title);
    info.repo = S(s->repo);
    info.path = S(s->path);
    info.commit = S(s->commit);
    info.license = S(s->license);
    info.taken = S(s->taken);
    info.url = S(s->url);
    info.grade = om_grade_name(s->grade);
    return OM_INFO_FILL(out, &info, opmap_source_info, grade);
}

size_t opmap_row_soc_count(const opmap_row *r) { return r->n_socs; }

int opmap_row_soc(const opmap_row *r, size_t i, opmap_row_soc_info *out)
{
    opmap_row_soc_info info;
    if (!r || i >= r->n_socs)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.name = r->socs[i].name;
    info.status = r->socs[i].status;
    info.note = S(r->socs[i].note);
    return OM_INFO_FILL(out, &info, opmap_row_soc_info, note);
}

size_t opmap_row_constraint_count(const opmap_row *r) { return r->n_constraints; }

int opmap_row_constraint_message(const opmap_row *r, size_t i, const char **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = r && i < r->n_constraints ? r->constraints[i].message : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

size_t opmap_row_overload_count(const opmap_row *r) { return r->n_overloads; }

int opmap_row_overload(const opmap_row *r, size_t i, const char **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = r && i < r->n_overloads ? r->overloads[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

const char *opmap_row_torch_npu_min(const opmap_row *r) { return S(r->tnpu_min); }
const char *opmap_row_torch_npu_max(const opmap_row *r) { return S(r->tnpu_max); }
const char *opmap_row_pytorch_since(const opmap_row *r) { return S(r->pt_since); }
const char *opmap_row_pytorch_until(const opmap_row *r) { return S(r->pt_until); }

/* ---- evidence ---- */

/* The evidence of a named fact, and its dtype mask when it is a dtype list. */
static const om_evidence *find_fact(const opmap_row *r, const char *fact, uint32_t *dtypes,
                                    om_evidence *tmp)
{
    size_t i;
    char *end;
    unsigned long k;
    *dtypes = 0;
    if (strcmp(fact, "status") == 0)
        return &r->ev_status;
    if (strcmp(fact, "ascend") == 0)
        return r->ascend_op || r->aclnn || r->api || r->engine || r->n_ascend_ops || r->ascend_how
                   ? &r->ev_ascend
                   : NULL;
    if (strcmp(fact, "dtypes") == 0) {
        *dtypes = r->dtypes;
        return r->dtypes ? &r->ev_dtypes : NULL;
    }
    if (strncmp(fact, "flags.", 6) == 0) {
        unsigned bit = om_flag_from_name(fact + 6), b = 0;
        if (!bit || !(r->flags & bit))
            return NULL;
        while (!(bit & (1u << b)))
            b++;
        return &r->ev_flags[b];
    }
    if (strncmp(fact, "inputs.", 7) == 0 && fact[7] >= '0' && fact[7] <= '9') {
        k = strtoul(fact + 7, &end, 10);
        for (i = 0; !*end && i < r->n_inputs; i++)
            if (r->inputs[i].index == k) {
                *dtypes = r->inputs[i].dtypes;
                return &r->inputs[i].ev;
            }
        return NULL;
    }
    if (strncmp(fact, "socs.", 5) == 0) {
        for (i = 0; i < r->n_socs; i++)
            if (strcmp(r->socs[i].name, fact + 5) == 0) {
                tmp->grade = r->socs[i].grade;
                tmp->sources = r->socs[i].sources;
                tmp->n_sources = r->socs[i].n_sources;
                *dtypes = r->socs[i].dtypes;
                return tmp;
            }
        return NULL;
    }
    if (strcmp(fact, "graph") == 0)
        return r->graph.status ? &r->graph.ev : NULL;
    if (strcmp(fact, "backward") == 0)
        return r->backward.status ? &r->backward.ev : NULL;
    if (strncmp(fact, "constraints.", 12) == 0 && fact[12] >= '0' && fact[12] <= '9') {
        k = strtoul(fact + 12, &end, 10);
        return !*end && k < r->n_constraints ? &r->constraints[k].ev : NULL;
    }
    return NULL;
}

const char *opmap_row_evidence(const opmap_row *r, const char *fact)
{
    om_evidence tmp;
    uint32_t dt;
    const om_evidence *ev = r && fact ? find_fact(r, fact, &dt, &tmp) : NULL;
    return ev ? om_grade_name(ev->grade) : NULL;
}

size_t opmap_row_evidence_source_count(const opmap_row *r, const char *fact)
{
    om_evidence tmp;
    uint32_t dt;
    const om_evidence *ev = r && fact ? find_fact(r, fact, &dt, &tmp) : NULL;
    return ev ? ev->n_sources : 0;
}

int opmap_row_evidence_source(const opmap_row *r, const char *fact, size_t i, const char **out)
{
    om_evidence tmp;
    uint32_t dt;
    const om_evidence *ev = r && fact ? find_fact(r, fact, &dt, &tmp) : NULL;
    if (!out)
        return OPMAP_EINVAL;
    *out = ev && i < ev->n_sources ? ev->sources[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

size_t opmap_row_dtypes(const opmap_row *r, const char *fact, char *buf, size_t size)
{
    om_evidence tmp;
    uint32_t dt = 0;
    size_t n = 0, used = 0;
    int d;
    if (size)
        buf[0] = 0;
    if (!r || !fact || !find_fact(r, fact, &dt, &tmp))
        return 0;
    for (d = 1; d < 32; d++)
        if (dt & (1u << d)) {
            if (buf && size && used < size)
                used += (size_t)snprintf(buf + used, size - used, "%s%s", n ? ", " : "",
                                         ir_dtype_name(d));
            n++;
        }
    return n;
}

size_t opmap_row_input_count(const opmap_row *r) { return r->n_inputs; }

int opmap_row_input(const opmap_row *r, size_t i, opmap_row_input_info *out)
{
    opmap_row_input_info info;
    if (!r || i >= r->n_inputs)
        return OPMAP_EINVAL;
    info.size = sizeof(info);
    info.index = r->inputs[i].index;
    info.name = S(r->inputs[i].name);
    return OM_INFO_FILL(out, &info, opmap_row_input_info, name);
}

size_t opmap_row_ascend_op_count(const opmap_row *r) { return r->n_ascend_ops; }

int opmap_row_ascend_ops(const opmap_row *r, size_t i, const char **out)
{
    if (!out)
        return OPMAP_EINVAL;
    *out = r && i < r->n_ascend_ops ? r->ascend_ops[i] : NULL;
    return *out ? OPMAP_OK : OPMAP_EINVAL;
}

const char *opmap_row_ascend_how(const opmap_row *r) { return S(r->ascend_how); }
