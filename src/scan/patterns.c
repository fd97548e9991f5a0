/*
 * scan/patterns.c - fused-kernel advice (docs/patterns.md): the table's patterns matched at
 * every instance (rules/pattern_match.c), each pattern found becoming one piece of advice of
 * the result with every place, the replacement (and whether it is documented for the chips
 * scanned for), its sources and its effort, counted apart from the estimate.
 */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "table/patterns.h"
#include "scan_internal.h"

#define MAX_PLACES 1000   /* places kept per pattern; all are counted */

struct om_pat_found {
    uint64_t count;
    om_vec places, lines;     /* const char* */
};

static const om_patterns *patterns_of(const group *g)
{
    return g->table->patterns;
}

int om_scan_patterns_begin(group *g)
{
    const om_patterns *t = patterns_of(g);
    size_t i;
    if (!t || !t->n_patterns)
        return OPMAP_OK;
    om_pattern_run_init(&g->patterns, t, &g->res->mem);
    if (!(g->found = om_calloc(&g->res->mem, t->n_patterns, sizeof(*g->found))))
        return om_scan_oom(g);
    for (i = 0; i < t->n_patterns; i++) {
        om_vec_init(&g->found[i].places, sizeof(const char *));
        om_vec_init(&g->found[i].lines, sizeof(const char *));
    }
    return OPMAP_OK;
}

static int keep_place(group *g, struct om_pat_found *f, const om_visit *v)
{
    opmap_result *res = g->res;
    const char **p, **l;
    f->count++;
    if (f->places.len >= MAX_PLACES)
        return OPMAP_OK;
    if (!(p = om_vec_push(&f->places, &res->mem)) || !(l = om_vec_push(&f->lines, &res->mem)) ||
        !(*p = om_arena_strdup(&res->arena, v->path)))
        return om_scan_oom(g);
    *l = NULL;
    if (v->node->src_file &&
        !(*l = om_arena_printf(&res->arena, "%s:%u", v->node->src_file,
                               (unsigned)v->node->src_line)))
        return om_scan_oom(g);
    return OPMAP_OK;
}

int om_scan_patterns_visit(group *g, const om_visit *v)
{
    const om_patterns *t = patterns_of(g);
    size_t i;
    int rc;
    for (i = 0; g->found && i < t->n_patterns; i++) {
        if ((rc = om_pattern_match(&g->patterns, &t->patterns[i], v)) < 0)
            return om_scan_oom(g);
        if (rc && (rc = keep_place(g, &g->found[i], v)))
            return rc;
    }
    return OPMAP_OK;
}

/* The replacement, and the chips scanned for that its docs do not name. */
static const char *action(group *g, const om_pattern *p)
{
    opmap_result *res = g->res;
    char missing[300] = "";
    size_t c, k, used = 0;
    for (c = 0; p->n_chips && c < res->n_chips; c++) {
        for (k = 0; k < p->n_chips && strcmp(p->chips[k], res->chips[c]) != 0; k++)
            ;
        if (k == p->n_chips)
            om_appendf(missing, sizeof(missing), &used, "%s%s", used ? ", " : "", res->chips[c]);
    }
    if (!missing[0])
        return om_arena_strdup(&res->arena, p->replacement);
    return om_arena_printf(&res->arena, "%s; not documented for %s: keep the written-out form "
                           "there, or verify the fused kernel first", p->replacement, missing);
}

static int add_advice(group *g, const om_pattern *p, struct om_pat_found *f)
{
    opmap_result *res = g->res;
    om_arena *A = &res->arena;
    om_advice *a = om_vec_push(&res->advice, &res->mem);
    if (!a)
        return om_scan_oom(g);
    memset(a, 0, sizeof(*a));
    a->fused = 1;
    a->count = f->count;
    a->grade = p->grade;
    a->effort = p->weight;
    a->n_places = f->places.len;
    if (!(a->id = om_arena_strdup(A, p->id)) || !(a->message = om_arena_strdup(A, p->name)) ||
        !(a->action = action(g, p)) || !(a->value = om_arena_strdup(A, p->hint)) ||
        !(a->where = om_arena_strdup(A, OM_VEC_AT(&f->places, const char *, 0))) ||
        !(a->sources = om_scan_join(A, p->sources, p->n_sources, ", ")) ||
        !(a->recipes = om_arena_strdup(A, "")) ||
        !(a->atc = om_arena_strdup(A, om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATC) && p->atc ? p->atc : "")) ||
        !(a->places = om_arena_array(A, f->places.len, sizeof(char *))) ||
        !(a->lines = om_arena_array(A, f->places.len, sizeof(char *))))
        return om_scan_oom(g);
    memcpy(a->places, f->places.data, f->places.len * sizeof(char *));
    memcpy(a->lines, f->lines.data, f->lines.len * sizeof(char *));
    return OPMAP_OK;
}

int om_scan_patterns_finish(group *g)
{
    const om_patterns *t = patterns_of(g);
    size_t i;
    int rc;
    for (i = 0; g->found && i < t->n_patterns; i++)
        if (g->found[i].count && (rc = add_advice(g, &t->patterns[i], &g->found[i])))
            return rc;
    return OPMAP_OK;
}

void om_scan_patterns_end(group *g)
{
    const om_patterns *t = patterns_of(g);
    size_t i;
    if (!g->found)
        return;
    for (i = 0; i < t->n_patterns; i++) {
        om_vec_free(&g->found[i].places, &g->res->mem);
        om_vec_free(&g->found[i].lines, &g->res->mem);
    }
    om_dealloc(&g->res->mem, g->found, t->n_patterns * sizeof(*g->found));
    g->found = NULL;
    om_pattern_run_free(&g->patterns);
}
