/*
 * table/source_rules_load.c - data/source_rules.yaml -> om_source_rules, strict
 * (docs/source-rules.md): unknown keys, kinds, statuses, grades, dangling or missing
 * sources, a grade above every cited source, duplicate ids and an exact name answered by
 * two rules of one kind are errors naming file:line:column.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/yaml_read.h"
#include "core/yaml_tree.h"
#include "data_load.h"
#include "source_rules.h"
#include "table_internal.h"

#define SR_SCHEMA 1

static const char *const kind_names[OM_SR_KIND_COUNT] = { "import", "name", "call",
                                                          "method_call", "string_arg", "file",
                                                          "string" };
static const char *const status_names[OM_SR_STATUS_COUNT] = { "unchanged", "automatic", "renamed",
                                                              "manual", "rewrite", "unknown" };

int om_sr_op_status(int s)
{
    return s == OM_SR_UNCHANGED || s == OM_SR_AUTOMATIC ? OPMAP_OP_FULL
         : s == OM_SR_RENAMED || s == OM_SR_MANUAL ? OPMAP_OP_PARTIAL
         : s == OM_SR_REWRITE ? OPMAP_OP_REWRITE : OPMAP_OP_UNMAPPED;
}

const om_source_rule *om_source_rule_find(const om_source_rules *r, const char *id)
{
    size_t i;
    for (i = 0; i < r->n_rules; i++)
        if (strcmp(r->rules[i].id, id) == 0)
            return &r->rules[i];
    return NULL;
}

const char *om_sr_kind_name(int k) { return k >= 0 && k < OM_SR_KIND_COUNT ? kind_names[k] : ""; }
const char *om_sr_status_name(int s) { return s >= 0 && s < OM_SR_STATUS_COUNT ? status_names[s] : ""; }

static int parse_match(yr *y, const yt_node *m, om_source_rule *rule)
{
    static const char *const keys[] = { "kind", "name", "names", "prefix", "value", "value_prefix",
                                        "call", "keyword", "position", "glob", "ignore_case", NULL };
    const yt_node *n;
    const char *one;
    int rc, k = 0;
    int64_t pos;
    if ((rc = yr_kind(y, m, YT_MAP, "match")) || (rc = yr_keys(y, m, keys, "match")) ||
        (rc = yr_require(y, m, "kind", "match", &n)) ||
        (rc = om_data_pick(y, n, "match kind", kind_names, OM_SR_KIND_COUNT,
                   "import, name, call, method_call, string_arg, file, string", &k)))
        return rc;
    rule->kind = (om_sr_kind)k;
    if ((rc = om_data_opt_str(y, m, "name", &one)) || (rc = om_data_opt_str(y, m, "prefix", &rule->prefix)) ||
        (rc = om_data_opt_str(y, m, "value", &rule->value)) ||
        (rc = om_data_opt_str(y, m, "value_prefix", &rule->value_prefix)) ||
        (rc = om_data_opt_str(y, m, "call", &rule->call)) || (rc = om_data_opt_str(y, m, "keyword", &rule->keyword)) ||
        (rc = om_data_opt_str(y, m, "glob", &rule->glob)))
        return rc;
    if ((n = yt_get(m, "names")) &&
        (rc = yr_str_list(y, n, "names", &rule->names, &rule->n_names)))
        return rc;
    if (one && rule->names)
        return yr_bad(y, m, "match: give name or names, not both");
    if (one) {
        if (!(rule->names = om_arena_array(y->A, 1, sizeof(char *))))
            return yr_oom(y);
        rule->names[0] = one;
        rule->n_names = 1;
    }
    if ((n = yt_get(m, "ignore_case"))) {
        if (n->kind != YT_SCALAR || !n->plain ||
            (strcmp(n->str, "true") != 0 && strcmp(n->str, "false") != 0))
            return yr_bad(y, n, "ignore_case must be true or false");
        rule->ignore_case = n->str[0] == 't';
    }
    rule->position = -1;
    if ((n = yt_get(m, "position"))) {
        if ((rc = yr_int(y, n, "position", &pos)))
            return rc;
        if (pos < 0 || pos > 64)
            return yr_bad(y, n, "position %" PRId64 " is outside 0..64", pos);
        rule->position = (int)pos;
    }
    switch (rule->kind) {
    case OM_SR_STRING_ARG:
        if (!rule->value == !rule->value_prefix)
            return yr_bad(y, m, "a string_arg match needs exactly one of value and value_prefix");
        if (!rule->call && !rule->keyword)
            return yr_bad(y, m, "a string_arg match needs call or keyword");
        if (rule->names || rule->prefix || rule->glob)
            return yr_bad(y, m, "a string_arg match takes value/value_prefix, call, keyword, position");
        break;
    case OM_SR_STRING:
        if (!rule->value == !rule->value_prefix)
            return yr_bad(y, m, "a string match needs exactly one of value and value_prefix");
        if (rule->names || rule->prefix || rule->glob || rule->call || rule->keyword ||
            rule->position >= 0)
            return yr_bad(y, m, "a string match takes value or value_prefix only");
        break;
    case OM_SR_FILE:
        if (rule->ignore_case)
            return yr_bad(y, m, "ignore_case is for string and string_arg matches");
        if (!rule->glob || rule->names || rule->prefix || rule->value || rule->value_prefix ||
            rule->call || rule->keyword || rule->position >= 0)
            return yr_bad(y, m, "a file match takes glob only");
        break;
    default:
        if (rule->ignore_case)
            return yr_bad(y, m, "ignore_case is for string and string_arg matches");
        if (!rule->names == !rule->prefix)
            return yr_bad(y, m, "a %s match needs exactly one of name, names and prefix",
                          kind_names[k]);
        if (rule->value || rule->value_prefix || rule->call || rule->keyword || rule->glob ||
            rule->position >= 0)
            return yr_bad(y, m, "a %s match takes name, names or prefix only", kind_names[k]);
    }
    return OPMAP_OK;
}

static int parse_rule(yr *y, om_source_rules *r, const yt_node *e, om_source_rule *rule)
{
    static const char *const keys[] = { "id", "match", "status", "replacement", "hint", "notes",
                                        "weight", "sources", "grade", "curated", "needs", "group",
                                        NULL };
    const yt_node *n;
    int rc, v = 0;
    if ((rc = yr_kind(y, e, YT_MAP, "a rule")) || (rc = yr_keys(y, e, keys, "a rule")) ||
        (rc = yr_require(y, e, "id", "a rule", &n)) || (rc = yr_str(y, n, "id", &rule->id)) ||
        (rc = yr_require(y, e, "match", "a rule", &n)) || (rc = parse_match(y, n, rule)) ||
        (rc = yr_require(y, e, "status", "a rule", &n)) ||
        (rc = om_data_pick(y, n, "status", status_names, OM_SR_STATUS_COUNT,
                   "unchanged, automatic, renamed, manual, rewrite, unknown", &v)))
        return rc;
    rule->status = (om_sr_status)v;
    if ((rc = om_data_opt_str(y, e, "replacement", &rule->replacement)) ||
        (rc = om_data_opt_str(y, e, "hint", &rule->hint)) || (rc = om_data_opt_str(y, e, "notes", &rule->notes)) ||
        (rc = om_data_opt_str(y, e, "curated", &rule->curated)) || (rc = om_data_opt_str(y, e, "needs", &rule->needs)) ||
        (rc = om_data_opt_str(y, e, "group", &rule->group)))
        return rc;
    if (rule->needs && strcmp(rule->needs, "loop") != 0)
        return yr_bad(y, yt_get(e, "needs"), "unknown needs '%s' (expected loop)", rule->needs);
    if (!rule->hint)
        return yr_bad(y, e, "rule '%s' has no hint", rule->id);
    rule->weight = r->weights[rule->status];
    if ((n = yt_get(e, "weight")) && (rc = om_data_effort(y, n, "weight", &rule->weight)))
        return rc;
    if ((rc = om_data_cited(y, e, rule->id, r->sources, r->n_sources, rule->curated,
                            &rule->sources, &rule->n_sources, &rule->grade)))
        return rc;
    return OPMAP_OK;
}

static int check_unique(yr *y, const om_source_rules *r, const yt_node *seq)
{
    size_t i, j, a, b;
    for (i = 0; i < r->n_rules; i++)
        for (j = 0; j < i; j++) {
            const om_source_rule *p = &r->rules[i], *q = &r->rules[j];
            if (strcmp(p->id, q->id) == 0)
                return yr_bad(y, yt_get(seq->items[i], "id"), "rule id '%s' is used twice", p->id);
            if (p->kind != q->kind)
                continue;
            if (p->prefix && q->prefix && strcmp(p->prefix, q->prefix) == 0)
                return yr_bad(y, yt_get(seq->items[i], "match"),
                              "prefix '%s' is answered by rules '%s' and '%s'", p->prefix, q->id, p->id);
            for (a = 0; a < p->n_names; a++)
                for (b = 0; b < q->n_names; b++)
                    if (strcmp(p->names[a], q->names[b]) == 0)
                        return yr_bad(y, yt_get(seq->items[i], "match"),
                                      "%s '%s' is answered by rules '%s' and '%s'",
                                      kind_names[p->kind], p->names[a], q->id, p->id);
        }
    return OPMAP_OK;
}

void om_source_rules_free(om_source_rules *r)
{
    om_data_free(r ? &r->f : NULL, sizeof(*r));
}

static int parse(yr *y, om_source_rules *r, const void *data, size_t size, const opmap_ctx *ctx)
{
    static const char *const keys[] = { "schema", "about", "weights", "sources", "rules", NULL };
    static const char *const about_keys[] = { "name", "version", "torch_npu", NULL };
    yt_node *root;
    const yt_node *n, *rules;
    int64_t schema;
    size_t i;
    int rc, s = 0;
    if ((rc = yt_parse(data ? data : (const void *)"", size, r->f.origin, &r->f.arena,
                       ctx->limits.max_yaml_depth, ctx->limits.max_yaml_nodes, &root, y->err)) ||
        (rc = yr_kind(y, root, YT_MAP, "the source rules")) ||
        (rc = yr_keys(y, root, keys, "the source rules")) ||
        (rc = yr_require(y, root, "schema", "the source rules", &n)) ||
        (rc = yr_int(y, n, "schema", &schema)))
        return rc;
    if (schema != SR_SCHEMA)
        return yr_bad(y, n, "source-rule schema %" PRId64 " is not supported (this opmap reads %d)",
                      schema, SR_SCHEMA);
    if ((n = yt_get(root, "about")) &&
        ((rc = yr_kind(y, n, YT_MAP, "about")) || (rc = yr_keys(y, n, about_keys, "about"))))
        return rc;
    /* defaults: the operator table's weights (docs/source-rules.md) */
    r->weights[OM_SR_UNCHANGED] = (opmap_effort){ 0, 0, 0 };
    r->weights[OM_SR_AUTOMATIC] = r->weights[OM_SR_RENAMED] = (opmap_effort){ 100, 100, 100 };
    r->weights[OM_SR_MANUAL] = (opmap_effort){ 500, 800, 1000 };
    r->weights[OM_SR_REWRITE] = (opmap_effort){ 2000, 2500, 3000 };
    r->weights[OM_SR_UNKNOWN] = (opmap_effort){ 0, 200, 500 };
    if ((n = yt_get(root, "weights"))) {
        if ((rc = yr_kind(y, n, YT_MAP, "weights")) ||
            (rc = yr_keys(y, n, status_names, "weights")))
            return rc;
        for (i = 0; i < n->n; i++) {
            if ((rc = om_data_pick(y, n->items[2 * i], "status", status_names, OM_SR_STATUS_COUNT,
                           "a status", &s)) ||
                (rc = om_data_effort(y, n->items[2 * i + 1], "weights", &r->weights[s])))
                return rc;
        }
    }
    if ((rc = yr_require(y, root, "sources", "the source rules", &n)) ||
        (rc = om_data_sources(y, &r->f.arena, n, &r->sources, &r->n_sources)) ||
        (rc = yr_require(y, root, "rules", "the source rules", &rules)) ||
        (rc = yr_kind(y, rules, YT_SEQ, "rules")))
        return rc;
    if (rules->n > 65536)
        return yr_bad(y, rules, "%zu rules, over 65536", rules->n);
    if (rules->n && !(r->rules = om_arena_array(&r->f.arena, rules->n, sizeof(*r->rules))))
        return yr_oom(y);
    for (i = 0; i < rules->n; i++) {
        if ((rc = parse_rule(y, r, rules->items[i], &r->rules[i])))
            return rc;
        r->n_rules = i + 1;
    }
    return check_unique(y, r, rules);
}

static int parse_file(yr *y, void *file, const void *data, size_t size, const opmap_ctx *ctx)
{
    return parse(y, file, data, size, ctx);
}

int om_source_rules_load_memory(om_source_rules **out, opmap_ctx *ctx, const void *data,
                                size_t size, const char *name, opmap_error *err)
{
    void *f = NULL;
    int rc = om_data_load(out ? &f : NULL, sizeof(**out), ctx, data, size, name, "source rules",
                          parse_file, err);
    if (out)
        *out = f;
    return rc;
}

extern const unsigned char om_source_rules_builtin[];
extern const size_t om_source_rules_builtin_size;

int om_source_rules_default(om_source_rules **out, opmap_ctx *ctx, opmap_error *err)
{
    return om_source_rules_load_memory(out, ctx, om_source_rules_builtin,
                                       om_source_rules_builtin_size, "data/source_rules.yaml", err);
}
