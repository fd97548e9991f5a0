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

/* What the advice says: the pattern's replacement, or in a training scan what its
 * `training:` mapping says instead, and whether that runs backward (kernels). */
typedef struct advised {
    const char *replacement, *hint;
    const char *const *chips;
    size_t n_chips;
    int trainable;             /* every kernel has a backward (or training is not asked) */
} advised;

/* A training step runs through the kernel: its row's backward is not missing or rewrite. */
static int has_backward(const opmap_table *t, const char *kernel)
{
    const char *sep = strstr(kernel, "::");
    char dom[64];
    const opmap_row *row;
    if (!sep || (size_t)(sep - kernel) >= sizeof(dom))
        return 0;
    memcpy(dom, kernel, (size_t)(sep - kernel));
    dom[sep - kernel] = 0;
    row = opmap_table_lookup(t, dom, sep + 2, 0);
    return row && row->backward.status && row->backward.status != OM_BW_MISSING &&
           row->backward.status != OM_BW_REWRITE;
}

static advised advice_for(group *g, const om_pattern *p)
{
    const om_pat_training *tr = &p->training;
    advised a = { p->replacement, p->hint, (const char *const *)p->chips, p->n_chips, 1 };
    const char **ks = p->kernels;
    size_t n = p->n_kernels, i;
    if (!om_scan_backward_applies(g->res))
        return a;
    if (tr->given) {
        a.replacement = tr->replacement ? tr->replacement : a.replacement;
        a.hint = tr->hint ? tr->hint : a.hint;
        if (tr->n_chips) {
            a.chips = (const char *const *)tr->chips;
            a.n_chips = tr->n_chips;
        }
        if (tr->n_kernels) {
            ks = tr->kernels;
            n = tr->n_kernels;
        }
    }
    for (i = 0; i < n; i++)
        a.trainable &= has_backward(g->table, ks[i]);
    if (!a.trainable) {
        a.replacement = "keep the written-out form for training: no fused kernel torch_npu "
                        "documents for it has a backward";
        a.hint = "the fused kernel an inference scan advises registers no backward "
                 "(op-plugin's derivatives.yaml): loss.backward() cannot run through it";
        a.n_chips = 0;
    }
    return a;
}

/* The replacement, and the chips scanned for that its docs do not name. */
static const char *action(group *g, const advised *ad)
{
    opmap_result *res = g->res;
    char missing[300] = "";
    size_t c, k, used = 0;
    for (c = 0; ad->n_chips && c < res->n_chips; c++) {
        for (k = 0; k < ad->n_chips && strcmp(ad->chips[k], res->chips[c]) != 0; k++)
            ;
        if (k == ad->n_chips)
            om_appendf(missing, sizeof(missing), &used, "%s%s", used ? ", " : "", res->chips[c]);
    }
    if (!missing[0])
        return om_arena_strdup(&res->arena, ad->replacement);
    return om_arena_printf(&res->arena, "%s; not documented for %s: keep the written-out form "
                           "there, or verify the fused kernel first", ad->replacement, missing);
}

static int add_advice(group *g, const om_pattern *p, struct om_pat_found *f)
{
    opmap_result *res = g->res;
    om_arena *A = &res->arena;
    advised ad = advice_for(g, p);
    om_advice *a = om_vec_push(&res->advice, &res->mem);
    if (!a)
        return om_scan_oom(g);
    memset(a, 0, sizeof(*a));
    a->fused = 1;
    a->count = f->count;
    a->grade = p->grade;
    a->effort = p->weight;
    if (!ad.trainable)
        memset(&a->effort, 0, sizeof(a->effort));  /* nothing to change for training */
    a->n_places = f->places.len;
    if (!(a->id = om_arena_strdup(A, p->id)) || !(a->message = om_arena_strdup(A, p->name)) ||
        !(a->action = action(g, &ad)) || !(a->value = om_arena_strdup(A, ad.hint)) ||
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
