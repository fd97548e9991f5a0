/*
 * scan/source_match.c - a site of Python code -> the source rule that answers it (see
 * source_match.h for the resolution order).
 */
#include "source_match.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/error.h>

#include "readers/python/py_lexer.h"

struct om_sr_slot {
    const char *name;     /* NULL: empty */
    int kind;
    const om_source_rule *rule;
};

static uint64_t name_hash(int kind, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h ^ (h >> 31);
}

static const om_source_rule *lookup(const om_sr_index *ix, int kind, const char *s, size_t n)
{
    size_t j;
    if (!ix->cap)
        return NULL;
    for (j = name_hash(kind, s, n) & (ix->cap - 1); ix->slots[j].name; j = (j + 1) & (ix->cap - 1))
        if (ix->slots[j].kind == kind && strlen(ix->slots[j].name) == n &&
            memcmp(ix->slots[j].name, s, n) == 0)
            return ix->slots[j].rule;
    return NULL;
}

static int by_prefix_length(const void *a, const void *b)
{
    size_t x = strlen((*(const om_source_rule *const *)a)->prefix);
    size_t y = strlen((*(const om_source_rule *const *)b)->prefix);
    return x > y ? -1 : x < y;
}

void om_sr_index_free(om_sr_index *ix)
{
    size_t k;
    if (ix->slots)
        om_dealloc(ix->mem, ix->slots, ix->cap * sizeof(*ix->slots));
    for (k = 0; k < OM_SR_KIND_COUNT; k++)
        if (ix->prefixed[k])
            om_dealloc(ix->mem, ix->prefixed[k], ix->rules->n_rules * sizeof(*ix->prefixed[k]));
    if (ix->strings)
        om_dealloc(ix->mem, ix->strings, ix->rules->n_rules * sizeof(*ix->strings));
    if (ix->files)
        om_dealloc(ix->mem, ix->files, ix->rules->n_rules * sizeof(*ix->files));
    memset(ix, 0, sizeof(*ix));
}

int om_sr_index_build(om_sr_index *ix, const om_source_rules *r, om_mem *mem)
{
    size_t i, k, names = 0, n = r->n_rules ? r->n_rules : 1;
    memset(ix, 0, sizeof(*ix));
    ix->rules = r;
    ix->mem = mem;
    for (i = 0; i < r->n_rules; i++)
        names += r->rules[i].n_names;
    for (ix->cap = 16; ix->cap < names * 2; ix->cap *= 2)
        ;
    if (!(ix->slots = om_calloc(mem, ix->cap, sizeof(*ix->slots))) ||
        !(ix->strings = om_calloc(mem, n, sizeof(*ix->strings))) ||
        !(ix->files = om_calloc(mem, n, sizeof(*ix->files))))
        goto oom;
    for (k = 0; k < OM_SR_KIND_COUNT; k++)
        if (!(ix->prefixed[k] = om_calloc(mem, n, sizeof(*ix->prefixed[k]))))
            goto oom;
    for (i = 0; i < r->n_rules; i++) {
        const om_source_rule *rule = &r->rules[i];
        if (rule->kind == OM_SR_STRING_ARG || rule->kind == OM_SR_STRING)
            ix->strings[ix->n_strings++] = rule;
        else if (rule->kind == OM_SR_FILE)
            ix->files[ix->n_files++] = rule;
        else if (rule->prefix)
            ix->prefixed[rule->kind][ix->n_prefixed[rule->kind]++] = rule;
        for (k = 0; k < rule->n_names; k++) {
            size_t j = name_hash(rule->kind, rule->names[k], strlen(rule->names[k])) & (ix->cap - 1);
            while (ix->slots[j].name) /* the loader refused a name answered twice */
                j = (j + 1) & (ix->cap - 1);
            ix->slots[j].name = rule->names[k];
            ix->slots[j].kind = rule->kind;
            ix->slots[j].rule = rule;
        }
    }
    for (k = 0; k < OM_SR_KIND_COUNT; k++)
        qsort(ix->prefixed[k], ix->n_prefixed[k], sizeof(*ix->prefixed[k]), by_prefix_length);
    return OPMAP_OK;
oom:
    om_sr_index_free(ix);
    return OPMAP_ENOMEM;
}

/* An exact rule of `kind` for the name, else the longest prefix rule (`a.b` is under `a`). */
static const om_source_rule *by_name(const om_sr_index *ix, int kind, const char *name)
{
    const om_source_rule *rule;
    size_t n = strlen(name), i;
    if ((rule = lookup(ix, kind, name, n)))
        return rule;
    for (i = 0; i < ix->n_prefixed[kind]; i++) {
        const char *p = ix->prefixed[kind][i]->prefix;
        size_t pn = strlen(p);
        if (pn <= n && memcmp(name, p, pn) == 0 && (name[pn] == 0 || name[pn] == '.'))
            return ix->prefixed[kind][i];
    }
    return NULL;
}

/* The rule for a name among kinds a, b, c (in that order): every exact rule before any
 * prefix, so `from torch.cuda import is_available` is torch-cuda-is-available, not the
 * torch.cuda fallback (c == OM_SR_KIND_COUNT: two kinds only). */
static const om_source_rule *first_of(const om_sr_index *ix, const char *name, int a, int b, int c)
{
    const int kinds[3] = { a, b, c };
    const om_source_rule *rule;
    size_t n = strlen(name), k;
    for (k = 0; k < 3; k++)
        if (kinds[k] < OM_SR_KIND_COUNT && (rule = lookup(ix, kinds[k], name, n)))
            return rule;
    for (k = 0; k < 3; k++)
        if (kinds[k] < OM_SR_KIND_COUNT && (rule = by_name(ix, kinds[k], name)))
            return rule;
    return NULL;
}

/* value (exact) or value_prefix, read as a device: the prefix itself, or "prefix:" and an
 * ordinal, a format field or a placeholder ("cuda:0", "cuda:{rank}", "cuda:%d"), never a
 * message ("cuda: out of memory") */
static int same_bytes(const char *a, const char *b, size_t n, int ignore_case)
{
    size_t i;
    if (!ignore_case)
        return memcmp(a, b, n) == 0;
    for (i = 0; i < n; i++) /* ASCII case only: the values are backend and device names */
        if ((a[i] | (a[i] >= 'A' && a[i] <= 'Z' ? 0x20 : 0)) !=
            (b[i] | (b[i] >= 'A' && b[i] <= 'Z' ? 0x20 : 0)))
            return 0;
    return 1;
}

static int value_matches(const om_source_rule *rule, const py_site *s)
{
    size_t n;
    if (s->str_flags & PY_STR_BYTES)
        return 0;
    if (rule->value)
        return strlen(rule->value) == s->value_len &&
               same_bytes(rule->value, s->value, s->value_len, rule->ignore_case);
    n = strlen(rule->value_prefix);
    return s->value_len >= n && same_bytes(s->value, rule->value_prefix, n, rule->ignore_case) &&
           (s->value_len == n ||
            (s->value[n] == ':' &&
             (s->value_len == n + 1 || (s->value[n + 1] >= '0' && s->value[n + 1] <= '9') ||
              s->value[n + 1] == '{' || s->value[n + 1] == '%')));
}

/* A call named "a.b" is that resolved name; one named "to" is any method .to */
static int call_matches(const char *want, const char *called)
{
    size_t w = strlen(want), c = strlen(called);
    if (strchr(want, '.'))
        return strcmp(want, called) == 0;
    return c > w && called[c - w - 1] == '.' && memcmp(called + c - w, want, w) == 0;
}

static const om_source_rule *by_string(const om_sr_index *ix, const py_site *s)
{
    const om_source_rule *best = NULL;
    int best_score = -1;
    size_t i;
    for (i = 0; i < ix->n_strings; i++) {
        const om_source_rule *rule = ix->strings[i];
        int score;
        if (!value_matches(rule, s))
            continue;
        if (rule->kind == OM_SR_STRING) { /* the value alone says it: "cuda:0", "nccl" */
            score = 0;
        } else {
            /* an argument's rule needs the literal to be the argument */
            if (s->kind != PY_SITE_STRING_ARG || !s->alone || s->nested || (rule->call && !call_matches(rule->call, s->name)) ||
                (rule->keyword && (!s->bound || strcmp(rule->keyword, s->bound) != 0)) ||
                (rule->position >= 0 && (s->bound || s->arg_index != rule->position)))
                continue;
            score = 1 + 4 * !!rule->call + 2 * !!rule->keyword + (rule->position >= 0) +
                    !!rule->value;
        }
        if (score > best_score) {
            best = rule;
            best_score = score;
        }
    }
    return best;
}

static const om_source_rule *answer(const om_sr_index *ix, const py_site *s);

/* A rule that needs a loop (`.item()` per iteration) answers only sites inside one. */
const om_source_rule *om_sr_match_site(const om_sr_index *ix, const py_site *s)
{
    const om_source_rule *rule = answer(ix, s);
    return rule && rule->needs && !s->in_loop ? NULL : rule;
}

static const om_source_rule *answer(const om_sr_index *ix, const py_site *s)
{
    const char *dot;
    switch (s->kind) {
    case PY_SITE_IMPORT: {
        char module[512];
        const char *name = s->name;
        size_t n = strlen(name);
        if (s->level)
            return NULL;
        if (s->star) { /* `from apex.fp16_utils import *`: the module */
            if (n < 3 || n - 2 >= sizeof(module))
                return NULL;
            memcpy(module, name, n - 2);
            module[n - 2] = 0;
            name = module;
        }
        /* a module's rule, else what the name imported is (a name, a function called) */
        return first_of(ix, name, OM_SR_IMPORT, OM_SR_NAME, OM_SR_CALL);
    }
    case PY_SITE_CALL:
        if (!s->resolved)
            return NULL;
        /* a name rule answers its calls too; a library's import rule the uses of its names */
        return first_of(ix, s->name, OM_SR_CALL, OM_SR_NAME, OM_SR_IMPORT);
    case PY_SITE_NAME:
        if (s->resolved)
            return first_of(ix, s->name, OM_SR_NAME, OM_SR_IMPORT, OM_SR_KIND_COUNT);
        /* an attribute of a receiver the file did not import: bare attribute rules only */
        if (!(dot = strrchr(s->name, '.')))
            return NULL;
        return lookup(ix, OM_SR_NAME, dot + 1, strlen(dot + 1));
    case PY_SITE_METHOD_CALL:
        return s->name[0] == '.' ? lookup(ix, OM_SR_METHOD_CALL, s->name + 1, strlen(s->name + 1))
                                 : NULL;
    case PY_SITE_STRING_ARG:
    case PY_SITE_STRING:
        return by_string(ix, s);
    }
    return NULL;
}

const om_source_rule *om_sr_match_file(const om_sr_index *ix, const char *path)
{
    const char *base = strrchr(path, '/');
    size_t i;
    base = base ? base + 1 : path;
    for (i = 0; i < ix->n_files; i++)
        if (fnmatch(ix->files[i]->glob, base, 0) == 0)
            return ix->files[i];
    return NULL;
}
