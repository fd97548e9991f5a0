/*
 * table/patterns_load.c - data/patterns.yaml -> om_patterns, strict (docs/patterns.md):
 * unknown keys, operator names that are not `domain::op`, chains over the bounds, a
 * constraint naming a step the chain does not have, dangling sources and a grade above the
 * cited sources' are errors naming file:line:column.
 */
#include <inttypes.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "patterns.h"
#include "table_internal.h"

#define PAT_SCHEMA 1

/* "ai.onnx::Div|ai.onnx::Reciprocal?" into the step (a trailing '?': optional). */
static int parse_ops(yr *y, const yt_node *n, om_pat_step *st, int allow_optional)
{
    const char *s;
    char *buf, *p;
    int rc = yr_str(y, n, "an operator", &s);
    if (rc)
        return rc;
    if (!(buf = om_arena_strdup(y->A, s)))
        return yr_oom(y);
    memset(st, 0, sizeof(*st));
    if (*buf && buf[strlen(buf) - 1] == '?') {
        if (!allow_optional)
            return yr_bad(y, n, "'%s': only a chain's inner steps may be optional", s);
        st->optional = 1;
        buf[strlen(buf) - 1] = 0;
    }
    for (p = buf; p;) {
        char *bar = strchr(p, '|'), *sep;
        if (bar)
            *bar = 0;
        if (!(sep = strstr(p, "::")) || sep == p || !sep[2] || strchr(sep + 2, ':'))
            return yr_bad(y, n, "'%s' is not domain::op (e.g. ai.onnx::Pow, aten::pow)", p);
        if (st->n_alts == OM_PAT_MAX_ALTS)
            return yr_bad(y, n, "more than %d operators in one step", OM_PAT_MAX_ALTS);
        *sep = 0;
        st->alts[st->n_alts].domain = p;
        st->alts[st->n_alts++].op = sep + 2;
        p = bar ? bar + 1 : NULL;
    }
    return OPMAP_OK;
}

/* [[a, b], ...]: pairs of step indexes (`shares`) or of a step and operators (`other`). */
static int parse_pair(yr *y, const yt_node *pair, uint8_t n_steps, int64_t *a, const yt_node **b)
{
    int rc;
    if ((rc = yr_kind(y, pair, YT_SEQ, "a constraint")))
        return rc;
    if (pair->n != 2)
        return yr_bad(y, pair, "a constraint is a pair: [step, step] or [step, \"ops\"]");
    if ((rc = yr_int(y, pair->items[0], "a step", a)))
        return rc;
    if (*a < 0 || *a >= n_steps)
        return yr_bad(y, pair->items[0], "step %" PRId64 " is not one of the chain's %u",
                      *a, (unsigned)n_steps);
    *b = pair->items[1];
    return OPMAP_OK;
}

static int parse_constraints(yr *y, const yt_node *e, om_pat_chain *c)
{
    const yt_node *n, *b;
    int64_t a, k;
    size_t i;
    int rc;
    if ((n = yt_get(e, "shares"))) {
        if ((rc = yr_kind(y, n, YT_SEQ, "shares")))
            return rc;
        for (i = 0; i < n->n; i++) {
            if (c->n_shares == OM_PAT_MAX_PAIRS)
                return yr_bad(y, n, "more than %d shares", OM_PAT_MAX_PAIRS);
            if ((rc = parse_pair(y, n->items[i], c->n_steps, &a, &b)) ||
                (rc = yr_int(y, b, "a step", &k)))
                return rc;
            if (k < 0 || k >= c->n_steps || k == a)
                return yr_bad(y, b, "step %" PRId64 " is not another of the chain's", k);
            c->shares[c->n_shares][0] = (uint8_t)a;
            c->shares[c->n_shares++][1] = (uint8_t)k;
        }
    }
    if ((n = yt_get(e, "other"))) {
        if ((rc = yr_kind(y, n, YT_SEQ, "other")))
            return rc;
        for (i = 0; i < n->n; i++) {
            if (c->n_other == OM_PAT_MAX_PAIRS)
                return yr_bad(y, n, "more than %d other", OM_PAT_MAX_PAIRS);
            if ((rc = parse_pair(y, n->items[i], c->n_steps, &a, &b)) ||
                (rc = parse_ops(y, b, &c->other[c->n_other], 0)))
                return rc;
            c->other_step[c->n_other++] = (uint8_t)a;
        }
    }
    return OPMAP_OK;
}

static int parse_chain(yr *y, const yt_node *e, om_pat_chain *c)
{
    static const char *const keys[] = { "steps", "shares", "other", NULL };
    const yt_node *steps;
    size_t i;
    int rc;
    memset(c, 0, sizeof(*c));
    if ((rc = yr_kind(y, e, YT_MAP, "a chain")) || (rc = yr_keys(y, e, keys, "a chain")) ||
        (rc = yr_require(y, e, "steps", "a chain", &steps)) ||
        (rc = yr_kind(y, steps, YT_SEQ, "steps")))
        return rc;
    if (!steps->n || steps->n > OM_PAT_MAX_STEPS)
        return yr_bad(y, steps, "a chain has 1 to %d steps, not %zu", OM_PAT_MAX_STEPS, steps->n);
    for (i = 0; i < steps->n; i++)
        if ((rc = parse_ops(y, steps->items[i], &c->steps[i], i > 0 && i + 1 < steps->n)))
            return rc;
    c->n_steps = (uint8_t)steps->n;
    return parse_constraints(y, e, c);
}

/* `skip:` one operator per entry (no alternatives). */
static int parse_list_ops(yr *y, const yt_node *n, om_pat_op **out, size_t *count)
{
    size_t i;
    int rc;
    if ((rc = yr_kind(y, n, YT_SEQ, "skip")))
        return rc;
    if (n->n && !(*out = om_arena_array(y->A, n->n, sizeof(**out))))
        return yr_oom(y);
    for (i = 0; i < n->n; i++) {
        om_pat_step st;
        if ((rc = parse_ops(y, n->items[i], &st, 0)))
            return rc;
        if (st.n_alts != 1)
            return yr_bad(y, n->items[i], "skip lists one operator per entry");
        (*out)[i] = st.alts[0];
    }
    *count = n->n;
    return OPMAP_OK;
}

/* `kernels: [domain::op, ...]`: table rows a replacement calls (at most 8). */
static int parse_kernels(yr *y, const yt_node *map, const char ***out, size_t *n)
{
    const yt_node *v = yt_get(map, "kernels");
    size_t i;
    int rc;
    if (!v)
        return OPMAP_OK;
    if ((rc = yr_str_list(y, v, "kernels", out, n)))
        return rc;
    if (*n > 8)
        return yr_bad(y, v, "kernels: at most 8");
    for (i = 0; i < *n; i++) {
        const char *sep = strstr((*out)[i], "::");
        if (!sep || sep == (*out)[i] || !sep[2])
            return yr_bad(y, v->items[i], "kernels: '%s' is not domain::op", (*out)[i]);
    }
    return OPMAP_OK;
}

/* `training: {replacement, hint, kernels, chips}`: what a training scan advises instead. */
static int parse_training(yr *y, const yt_node *e, om_pat_training *tr)
{
    static const char *const keys[] = { "replacement", "hint", "kernels", "chips", NULL };
    const yt_node *m = yt_get(e, "training"), *n;
    int rc;
    if (!m)
        return OPMAP_OK;
    if ((rc = yr_kind(y, m, YT_MAP, "training")) || (rc = yr_keys(y, m, keys, "training")) ||
        (rc = om_data_opt_str(y, m, "replacement", &tr->replacement)) ||
        (rc = om_data_opt_str(y, m, "hint", &tr->hint)) ||
        (rc = parse_kernels(y, m, &tr->kernels, &tr->n_kernels)))
        return rc;
    if ((n = yt_get(m, "chips")) && (rc = yr_str_list(y, n, "chips", &tr->chips, &tr->n_chips)))
        return rc;
    tr->given = 1;
    return OPMAP_OK;
}

static int parse_pattern(yr *y, om_patterns *t, const yt_node *e, om_pattern *p,
                         const opmap_effort *dflt)
{
    static const char *const keys[] = { "id", "name", "skip", "chains", "replacement", "atc",
                                        "chips", "hint", "notes", "weight", "sources", "curated",
                                        "grade", "kernels", "training", NULL };
    const yt_node *n, *chains;
    size_t i;
    int rc;
    if ((rc = yr_kind(y, e, YT_MAP, "a pattern")) || (rc = yr_keys(y, e, keys, "a pattern")) ||
        (rc = yr_require(y, e, "id", "a pattern", &n)) || (rc = yr_str(y, n, "id", &p->id)) ||
        (rc = yr_require(y, e, "name", "a pattern", &n)) || (rc = yr_str(y, n, "name", &p->name)) ||
        (rc = yr_require(y, e, "replacement", "a pattern", &n)) ||
        (rc = yr_str(y, n, "replacement", &p->replacement)) ||
        (rc = yr_require(y, e, "hint", "a pattern", &n)) || (rc = yr_str(y, n, "hint", &p->hint)) ||
        (rc = om_data_opt_str(y, e, "atc", &p->atc)) ||
        (rc = om_data_opt_str(y, e, "notes", &p->notes)) ||
        (rc = om_data_opt_str(y, e, "curated", &p->curated)) ||
        (rc = yr_require(y, e, "chains", "a pattern", &chains)) ||
        (rc = yr_kind(y, chains, YT_SEQ, "chains")))
        return rc;
    if ((n = yt_get(e, "skip")) && (rc = parse_list_ops(y, n, &p->skip, &p->n_skip)))
        return rc;
    if ((n = yt_get(e, "chips")) && (rc = yr_str_list(y, n, "chips", &p->chips, &p->n_chips)))
        return rc;
    if ((rc = parse_kernels(y, e, &p->kernels, &p->n_kernels)) ||
        (rc = parse_training(y, e, &p->training)))
        return rc;
    if (!chains->n || chains->n > 64)
        return yr_bad(y, chains, "a pattern has 1 to 64 chains");
    if (!(p->chains = om_arena_array(y->A, chains->n, sizeof(*p->chains))))
        return yr_oom(y);
    for (i = 0; i < chains->n; i++)
        if ((rc = parse_chain(y, chains->items[i], &p->chains[i])))
            return rc;
    p->n_chains = chains->n;
    p->weight = *dflt;
    if ((n = yt_get(e, "weight")) && (rc = om_data_effort(y, n, "weight", &p->weight)))
        return rc;
    return om_data_cited(y, e, p->id, t->sources, t->n_sources, p->curated, &p->sources,
                         &p->n_sources, &p->grade);
}

static int parse(yr *y, om_patterns *t, const void *data, size_t size, const opmap_ctx *ctx)
{
    static const char *const keys[] = { "schema", "about", "weight", "sources", "patterns", NULL };
    opmap_effort dflt = { 250, 500, 1000 }; /* docs/patterns.md, "Effort" */
    yt_node *root;
    const yt_node *n, *pats;
    int64_t schema;
    size_t i, j;
    int rc;
    if ((rc = yt_parse(data ? data : (const void *)"", size, t->f.origin, &t->f.arena,
                       ctx->limits.max_yaml_depth, ctx->limits.max_yaml_nodes, &root, y->err)) ||
        (rc = yr_kind(y, root, YT_MAP, "the patterns")) ||
        (rc = yr_keys(y, root, keys, "the patterns")) ||
        (rc = yr_require(y, root, "schema", "the patterns", &n)) ||
        (rc = yr_int(y, n, "schema", &schema)))
        return rc;
    if (schema != PAT_SCHEMA)
        return yr_bad(y, n, "pattern schema %" PRId64 " is not supported (this opmap reads %d)",
                      schema, PAT_SCHEMA);
    if ((n = yt_get(root, "weight")) && (rc = om_data_effort(y, n, "weight", &dflt)))
        return rc;
    if ((rc = yr_require(y, root, "sources", "the patterns", &n)) ||
        (rc = om_data_sources(y, &t->f.arena, n, &t->sources, &t->n_sources)) ||
        (rc = yr_require(y, root, "patterns", "the patterns", &pats)) ||
        (rc = yr_kind(y, pats, YT_SEQ, "patterns")))
        return rc;
    if (pats->n > 1024)
        return yr_bad(y, pats, "%zu patterns, over 1024", pats->n);
    if (pats->n && !(t->patterns = om_arena_array(&t->f.arena, pats->n, sizeof(*t->patterns))))
        return yr_oom(y);
    for (i = 0; i < pats->n; i++) {
        if ((rc = parse_pattern(y, t, pats->items[i], &t->patterns[i], &dflt)))
            return rc;
        for (j = 0; j < i; j++)
            if (strcmp(t->patterns[j].id, t->patterns[i].id) == 0)
                return yr_bad(y, yt_get(pats->items[i], "id"), "pattern id '%s' is used twice",
                              t->patterns[i].id);
        t->n_patterns = i + 1;
    }
    return OPMAP_OK;
}

void om_patterns_free(om_patterns *t)
{
    om_data_free(t ? &t->f : NULL, sizeof(*t));
}

static int parse_file(yr *y, void *file, const void *data, size_t size, const opmap_ctx *ctx)
{
    return parse(y, file, data, size, ctx);
}

int om_patterns_load_memory(om_patterns **out, opmap_ctx *ctx, const void *data, size_t size,
                            const char *name, opmap_error *err)
{
    void *f = NULL;
    int rc = om_data_load(out ? &f : NULL, sizeof(**out), ctx, data, size, name, "patterns",
                          parse_file, err);
    if (out)
        *out = f;
    return rc;
}

extern const unsigned char om_patterns_builtin[];
extern const size_t om_patterns_builtin_size;

int om_patterns_default(om_patterns **out, opmap_ctx *ctx, opmap_error *err)
{
    return om_patterns_load_memory(out, ctx, om_patterns_builtin, om_patterns_builtin_size,
                                   "data/patterns.yaml", err);
}
