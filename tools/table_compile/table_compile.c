/*
 * tools/table_compile/table_compile.c - build-time helper: data/op_map.yaml -> C data.
 *
 *   table_compile INPUT.yaml OUTPUT.c
 *
 * Loads the table with the library's own strict loader (so a table that builds is a table
 * that loads) and writes every row, constraint, chip answer and source as static C
 * initializers over one string pool. libopmap then "loads" its built-in table by pointing
 * at this data: no YAML parsing and no heap for it at run time (docs/performance.md has the
 * before and after).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opmap/opmap.h>

#include "../../src/table/table_internal.h"

/* ---- string pool: every distinct string once, referenced as pool + offset ---- */

typedef struct pool {
    char **strs;
    size_t *offs;
    size_t n, cap, size;
} pool;

static size_t intern(pool *p, const char *s)
{
    size_t i;
    for (i = 0; i < p->n; i++) /* the table has a few thousand distinct strings: linear is fine */
        if (strcmp(p->strs[i], s) == 0)
            return p->offs[i];
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 1024;
        p->strs = realloc(p->strs, p->cap * sizeof(*p->strs));
        p->offs = realloc(p->offs, p->cap * sizeof(*p->offs));
        if (!p->strs || !p->offs) {
            fprintf(stderr, "table_compile: out of memory\n");
            exit(1);
        }
    }
    p->strs[p->n] = strdup(s);
    p->offs[p->n] = p->size;
    p->size += strlen(s) + 1;
    return p->offs[p->n++];
}

static FILE *out;
static pool strings;

/* A string field: NULL stays NULL. */
static void str(const char *s)
{
    if (s)
        fprintf(out, "P+%zu", intern(&strings, s));
    else
        fprintf(out, "0");
}

static void print_pool(void)
{
    size_t i, col = 0;
    fprintf(out, "static const char P[] =\n\"");
    for (i = 0; i < strings.n; i++) {
        const unsigned char *s = (const unsigned char *)strings.strs[i];
        for (; *s; s++) {
            if (*s == '"' || *s == '\\')
                col += (size_t)fprintf(out, "\\%c", *s);
            else if (*s < 0x20 || *s >= 0x7f)
                col += (size_t)fprintf(out, "\\%03o", *s);
            else
                col += (size_t)fprintf(out, "%c", *s);
            if (col > 90) {
                fprintf(out, "\"\n\"");
                col = 0;
            }
        }
        col += (size_t)fprintf(out, "\\000"); /* 3 digits: a digit may follow */
    }
    fprintf(out, "\";\n\n");
}

/* ---- values (constraint operands, possibly lists) ---- */

static int value_id;

static void value_list(const om_value *list, size_t n, int id);

static void value_init(const om_value *v, int list_id)
{
    fprintf(out, "{%d, %.17g, ", (int)v->kind, v->num);
    str(v->str);
    if (v->kind == OM_VAL_LIST && v->n)
        fprintf(out, ", (om_value *)V%d, %zu}", list_id, v->n);
    else
        fprintf(out, ", 0, 0}");
}

/* Lists are written before what points at them; nesting is one level (lists of scalars). */
static int value_prepare(const om_value *v)
{
    int id = -1;
    if (v->kind == OM_VAL_LIST && v->n) {
        id = value_id++;
        value_list(v->list, v->n, id);
    }
    return id;
}

static void value_list(const om_value *list, size_t n, int id)
{
    size_t i;
    fprintf(out, "static const om_value V%d[] = {", id);
    for (i = 0; i < n; i++) {
        fprintf(out, i ? ", " : "");
        value_init(&list[i], -1);
    }
    fprintf(out, "};\n");
}

/* Array names: a prefix, the row, and a part number (chip answer, constraint, flag...). */
static void name_of(char *buf, size_t size, const char *prefix, size_t row, size_t part)
{
    snprintf(buf, size, "%s%zu_%zu", prefix, row, part);
}

static void str_array(const char *name, const char **a, size_t n)
{
    size_t i;
    if (!n)
        return;
    fprintf(out, "static const char *%s[] = {", name);
    for (i = 0; i < n; i++) {
        fprintf(out, i ? ", " : "");
        str(a[i]);
    }
    fprintf(out, "};\n");
}

static void evidence_prepare(const om_evidence *ev, size_t row, const char *what, size_t part)
{
    char name[64];
    name_of(name, sizeof(name), what, row, part);
    str_array(name, ev->sources, ev->n_sources);
}

static void evidence_init(const om_evidence *ev, size_t row, const char *what, size_t part)
{
    char name[64];
    name_of(name, sizeof(name), what, row, part);
    if (ev->n_sources)
        fprintf(out, "{%u, (const char **)%s, %zu}", ev->grade, name, ev->n_sources);
    else
        fprintf(out, "{%u, 0, 0}", ev->grade);
}

/* about.soc_parts: one entry per chip of about.socs (Pp_0 parts, Ep_0 evidence). */
static void soc_parts(const opmap_table *t)
{
    char name[64];
    size_t i;
    if (!t->soc_parts)
        return;
    for (i = 0; i < t->n_socs; i++) {
        name_of(name, sizeof(name), "Pp", i, 0);
        str_array(name, t->soc_parts[i].parts, t->soc_parts[i].n_parts);
        evidence_prepare(&t->soc_parts[i].ev, i, "Ep", 0);
    }
    fprintf(out, "static const om_soc_parts SOC_PARTS[] = {");
    for (i = 0; i < t->n_socs; i++) {
        const om_soc_parts *sp = &t->soc_parts[i];
        name_of(name, sizeof(name), "Pp", i, 0);
        if (sp->n_parts)
            fprintf(out, "%s{(const char **)%s, %zu, ", i ? ", " : "", name, sp->n_parts);
        else
            fprintf(out, "%s{0, 0, ", i ? ", " : "");
        evidence_init(&sp->ev, i, "Ep", 0);
        fprintf(out, "}");
    }
    fprintf(out, "};\n\n");
}

/* The further conditions of a constraint whose `when` is a list (condition fields only). */
static void also_prepare(const om_constraint *c, size_t row, size_t part)
{
    size_t k;
    int *vid;
    if (!c->n_also)
        return;
    vid = calloc(c->n_also * 2, sizeof(int));
    for (k = 0; k < c->n_also; k++) {
        vid[2 * k] = value_prepare(&c->also[k].value);
        vid[2 * k + 1] = value_prepare(&c->also[k].def);
    }
    fprintf(out, "static const om_constraint X%zu_%zu[] = {", row, part);
    for (k = 0; k < c->n_also; k++) {
        const om_constraint *a = &c->also[k];
        fprintf(out, "%s{.subject = %d, .cmp = %d, .on_output = %d, .has_default = %d, "
                     ".index = %u, .attr = ", k ? ", " : "", a->subject, a->cmp, a->on_output,
                a->has_default, a->index);
        str(a->attr);
        fprintf(out, ", .value = ");
        value_init(&a->value, vid[2 * k]);
        fprintf(out, ", .def = ");
        value_init(&a->def, vid[2 * k + 1]);
        fprintf(out, ", .then_status = -1, .arg = %d}", a->arg);
    }
    fprintf(out, "};\n");
    free(vid);
}

/* The graph-mode answer's overloads (G<row>) and evidence (Eg<row>_0). */
static void graph_parts(const om_graph *g, size_t id)
{
    size_t i;
    if (!g->status)
        return;
    evidence_prepare(&g->ev, id, "Eg", 0);
    if (!g->n_ovs)
        return;
    fprintf(out, "static const om_graph_ov G%zu[] = {", id);
    for (i = 0; i < g->n_ovs; i++) {
        fprintf(out, i ? ", {" : "{");
        str(g->ovs[i].name);
        fprintf(out, ", %u, %u, ", g->ovs[i].status, g->ovs[i].counted);
        str(g->ovs[i].sig);
        fprintf(out, "}");
    }
    fprintf(out, "};\n");
}

static void graph_init(const om_graph *g, size_t id)
{
    if (!g->status)
        return;
    fprintf(out, ",\n  .graph = {.status = %u, .declared = %u, .via = ", g->status, g->declared);
    str(g->via);
    fprintf(out, ", .where = ");
    str(g->where);
    fprintf(out, ", .note = ");
    str(g->note);
    if (g->n_ovs)
        fprintf(out, ", .ovs = (om_graph_ov *)G%zu, .n_ovs = %zu", id, g->n_ovs);
    fprintf(out, ", .ev = ");
    evidence_init(&g->ev, id, "Eg", 0);
    fprintf(out, "}");
}

/* The backward answer's operator and helper lists (Bo/Bh<row>) and evidence (Eb<row>_0). */
static void backward_parts(const om_backward *b, size_t id)
{
    char name[64];
    if (!b->status)
        return;
    evidence_prepare(&b->ev, id, "Eb", 0);
    name_of(name, sizeof(name), "Bo", id, 0);
    str_array(name, b->ops, b->n_ops);
    name_of(name, sizeof(name), "Bh", id, 0);
    str_array(name, b->helpers, b->n_helpers);
}

static void backward_init(const om_backward *b, size_t id)
{
    char name[64];
    if (!b->status)
        return;
    fprintf(out, ",\n  .backward = {.status = %u, .via = ", b->status);
    str(b->via);
    fprintf(out, ", .note = ");
    str(b->note);
    if (b->n_ops) {
        name_of(name, sizeof(name), "Bo", id, 0);
        fprintf(out, ", .ops = (const char **)%s, .n_ops = %zu", name, b->n_ops);
    }
    if (b->n_helpers) {
        name_of(name, sizeof(name), "Bh", id, 0);
        fprintf(out, ", .helpers = (const char **)%s, .n_helpers = %zu", name, b->n_helpers);
    }
    fprintf(out, ", .ev = ");
    evidence_init(&b->ev, id, "Eb", 0);
    fprintf(out, "}");
}

static void row_parts(const opmap_row *r, size_t id)
{
    char name[64];
    size_t i;
    name_of(name, sizeof(name), "S", id, 0);
    str_array(name, r->sources, r->n_sources);
    name_of(name, sizeof(name), "O", id, 0);
    str_array(name, r->overloads, r->n_overloads);
    name_of(name, sizeof(name), "B", id, 0);
    str_array(name, r->ascend_ops, r->n_ascend_ops);
    evidence_prepare(&r->ev_status, id, "Es", 0);
    evidence_prepare(&r->ev_ascend, id, "Ea", 0);
    evidence_prepare(&r->ev_dtypes, id, "Ed", 0);
    for (i = 0; i < OPMAP_FLAG_COUNT; i++)
        evidence_prepare(&r->ev_flags[i], id, "Ef", i);
    graph_parts(&r->graph, id);
    backward_parts(&r->backward, id);
    for (i = 0; i < r->n_socs; i++) {
        name_of(name, sizeof(name), "A", id, i);
        str_array(name, r->socs[i].sources, r->socs[i].n_sources);
    }
    if (r->n_socs) {
        fprintf(out, "static const om_soc_answer C%zu[] = {", id);
        for (i = 0; i < r->n_socs; i++) {
            const om_soc_answer *a = &r->socs[i];
            fprintf(out, "%s{.soc = %u, .name = ", i ? ", " : "", a->soc);
            str(a->name);
            fprintf(out, ", .status = %d, .dtypes = %uu, .note = ", a->status, a->dtypes);
            str(a->note);
            name_of(name, sizeof(name), "A", id, i);
            if (a->n_sources)
                fprintf(out, ", .sources = (const char **)%s, .n_sources = %zu", name,
                        a->n_sources);
            fprintf(out, ", .grade = %u}", a->grade);
        }
        fprintf(out, "};\n");
    }
    for (i = 0; i < r->n_inputs; i++)
        evidence_prepare(&r->inputs[i].ev, id, "Ei", i);
    if (r->n_inputs) {
        fprintf(out, "static const om_input_dtypes I%zu[] = {", id);
        for (i = 0; i < r->n_inputs; i++) {
            const om_input_dtypes *in = &r->inputs[i];
            fprintf(out, "%s{%u, ", i ? ", " : "", in->index);
            str(in->name);
            fprintf(out, ", %uu, ", in->dtypes);
            evidence_init(&in->ev, id, "Ei", i);
            fprintf(out, "}");
        }
        fprintf(out, "};\n");
    }
    if (r->n_constraints) {
        int *vid = calloc(r->n_constraints * 2, sizeof(int));
        for (i = 0; i < r->n_constraints; i++) {
            vid[2 * i] = value_prepare(&r->constraints[i].value);
            vid[2 * i + 1] = value_prepare(&r->constraints[i].def);
            evidence_prepare(&r->constraints[i].ev, id, "Ek", i);
            also_prepare(&r->constraints[i], id, i);
        }
        fprintf(out, "static const om_constraint K%zu[] = {", id);
        for (i = 0; i < r->n_constraints; i++) {
            const om_constraint *c = &r->constraints[i];
            fprintf(out, "%s{.subject = %d, .cmp = %d, .on_output = %d, .has_default = %d, "
                         ".index = %u, .attr = ", i ? ",\n  " : "", c->subject, c->cmp,
                    c->on_output, c->has_default, c->index);
            str(c->attr);
            fprintf(out, ", .value = ");
            value_init(&c->value, vid[2 * i]);
            fprintf(out, ", .def = ");
            value_init(&c->def, vid[2 * i + 1]);
            fprintf(out, ", .soc_mask = %lluull, .then_status = %d, .flag = %uu, .message = ",
                    (unsigned long long)c->soc_mask, c->then_status, c->flag);
            str(c->message);
            fprintf(out, ", .line = %u, .arg = %d, .note_only = %u, .becomes = ", c->line, c->arg,
                    c->note_only);
            str(c->becomes);
            fprintf(out, ", .ev = ");
            evidence_init(&c->ev, id, "Ek", i);
            if (c->n_also)
                fprintf(out, ", .also = (om_constraint *)X%zu_%zu, .n_also = %zu", id, i, c->n_also);
            fprintf(out, "}");
        }
        fprintf(out, "};\n");
        free(vid);
    }
}

static void row_init(const opmap_row *r, size_t id)
{
    size_t i;
    fprintf(out, "{.domain = ");
    str(r->domain);
    fprintf(out, ", .op = ");
    str(r->op);
    fprintf(out, ", .since = %lld, .status = %d, .flags = %uu,\n  .notes = ", (long long)r->since,
            r->status, r->flags);
    str(r->notes);
    fprintf(out, ", .hint = ");
    str(r->hint);
    fprintf(out, ", .curated = ");
    str(r->curated);
    fprintf(out, ", .ascend_op = ");
    str(r->ascend_op);
    fprintf(out, ", .aclnn = ");
    str(r->aclnn);
    fprintf(out, ", .api = ");
    str(r->api);
    fprintf(out, ", .engine = ");
    str(r->engine);
    fprintf(out, ", .ascend_how = ");
    str(r->ascend_how);
    if (r->n_ascend_ops)
        fprintf(out, ", .ascend_ops = (const char **)B%zu_0, .n_ascend_ops = %zu", id,
                r->n_ascend_ops);
    fprintf(out, ", .tnpu_min = ");
    str(r->tnpu_min);
    fprintf(out, ", .tnpu_max = ");
    str(r->tnpu_max);
    fprintf(out, ", .pt_since = ");
    str(r->pt_since);
    fprintf(out, ", .pt_until = ");
    str(r->pt_until);
    fprintf(out, ",\n  ");
    if (r->n_overloads)
        fprintf(out, ".overloads = (const char **)O%zu_0, .n_overloads = %zu, ", id,
                r->n_overloads);
    if (r->n_sources)
        fprintf(out, ".sources = (const char **)S%zu_0, .n_sources = %zu, ", id, r->n_sources);
    fprintf(out, ".dtypes = %uu, ", r->dtypes);
    if (r->n_socs)
        fprintf(out, ".socs = (om_soc_answer *)C%zu, .n_socs = %zu, ", id, r->n_socs);
    if (r->n_constraints)
        fprintf(out, ".constraints = (om_constraint *)K%zu, .n_constraints = %zu, ", id,
                r->n_constraints);
    if (r->n_inputs)
        fprintf(out, ".inputs = (om_input_dtypes *)I%zu, .n_inputs = %zu, ", id, r->n_inputs);
    fprintf(out, ".line = %u,\n  .ev_status = ", r->line);
    evidence_init(&r->ev_status, id, "Es", 0);
    fprintf(out, ", .ev_ascend = ");
    evidence_init(&r->ev_ascend, id, "Ea", 0);
    fprintf(out, ", .ev_dtypes = ");
    evidence_init(&r->ev_dtypes, id, "Ed", 0);
    fprintf(out, ", .ev_flags = {");
    for (i = 0; i < OPMAP_FLAG_COUNT; i++) {
        fprintf(out, i ? ", " : "");
        evidence_init(&r->ev_flags[i], id, "Ef", i);
    }
    fprintf(out, "}");
    graph_init(&r->graph, id);
    backward_init(&r->backward, id);
    fprintf(out, "}");
}

/* The table's advice entries, as ADVICE[] (nothing when it has none). */
static void advice(const opmap_table *t)
{
    char name[64];
    size_t i;
    for (i = 0; i < t->n_advice; i++) {
        name_of(name, sizeof(name), "AR", i, 0);
        str_array(name, t->advice[i].recipes, t->advice[i].n_recipes);
        evidence_prepare(&t->advice[i].ev, i, "AE", 0);
    }
    if (!t->n_advice)
        return;
    fprintf(out, "static const om_advice_rule ADVICE[] = {\n");
    for (i = 0; i < t->n_advice; i++) {
        const om_advice_rule *a = &t->advice[i];
        fprintf(out, "%s{.id = ", i ? ",\n" : "");
        str(a->id);
        fprintf(out, ", .detector = %d, .optional = %u, .custom_op = %u, .message = ", a->detector,
                a->optional, a->custom_op);
        str(a->message);
        fprintf(out, ", .action = ");
        str(a->action);
        fprintf(out, ", .notes = ");
        str(a->notes);
        if (a->n_recipes)
            fprintf(out, ", .recipes = (const char **)AR%zu_0, .n_recipes = %zu", i, a->n_recipes);
        fprintf(out, ", .ev = ");
        evidence_init(&a->ev, i, "AE", 0);
        fprintf(out, ", .line = %u}", a->line);
    }
    fprintf(out, "\n};\n\n");
}

int main(int argc, char **argv)
{
    opmap_ctx *ctx;
    opmap_table *t;
    opmap_error err;
    char text[1200];
    size_t i;
    FILE *body;
    char *body_text = NULL;
    size_t body_size = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: table_compile INPUT.yaml OUTPUT.c\n");
        return 2;
    }
    if (opmap_ctx_new(&ctx, NULL, &err) != OPMAP_OK ||
        opmap_table_load_file(&t, ctx, argv[1], &err) != OPMAP_OK) {
        opmap_error_format(&err, text, sizeof(text));
        fprintf(stderr, "table_compile: %s\n", text);
        return 1;
    }
    /* the body goes to memory first: the string pool it fills is printed before it */
    body = open_memstream(&body_text, &body_size);
    if (!body)
        return 1;
    out = body;
    for (i = 0; i < t->n_rows; i++)
        row_parts(&t->rows[i], i);
    fprintf(out, "\nstatic const opmap_row ROWS[] = {\n");
    for (i = 0; i < t->n_rows; i++) {
        fprintf(out, i ? ",\n" : "");
        row_init(&t->rows[i], i);
    }
    fprintf(out, "\n};\n\nstatic const om_source SOURCES[] = {\n");
    for (i = 0; i < t->n_sources; i++) {
        const om_source *s = &t->sources[i];
        fprintf(out, "%s{", i ? ",\n" : "");
        str(s->id); fprintf(out, ", ");
        str(s->title); fprintf(out, ", ");
        str(s->repo); fprintf(out, ", ");
        str(s->path); fprintf(out, ", ");
        str(s->commit); fprintf(out, ", ");
        str(s->license); fprintf(out, ", ");
        str(s->taken); fprintf(out, ", ");
        str(s->url);
        fprintf(out, ", %u, %u}", s->line, s->grade);
    }
    fprintf(out, "%s\n};\n\n", t->n_sources ? "" : "{0}");
    advice(t);
    fprintf(out, "static const char *SOCS[] = {");
    for (i = 0; i < t->n_socs; i++) {
        fprintf(out, i ? ", " : "");
        str(t->socs[i]);
    }
    fprintf(out, "};\n\n");
    soc_parts(t);
    fprintf(out, "const om_builtin om_builtin_table = {\n  ");
    str(t->name); fprintf(out, ", ");
    str(t->version); fprintf(out, ", ");
    str(t->torch_npu); fprintf(out, ", ");
    str(t->cann);
    fprintf(out, ", %lld,\n  (const char **)SOCS, %zu, %d,\n  {", (long long)t->onnx_opset_max,
            t->n_socs, t->default_soc);
    for (i = 0; i < OPMAP_OP_STATUS_COUNT; i++)
        fprintf(out, "%s{%llu, %llu, %llu}", i ? ", " : "",
                (unsigned long long)t->weights[i].min, (unsigned long long)t->weights[i].expected,
                (unsigned long long)t->weights[i].max);
    fprintf(out, "},\n  {%llu, %llu, %llu},\n  %s, (om_source *)SOURCES, %zu, (opmap_row *)ROWS, %zu,\n"
                 "  %s, %zu\n};\n",
            (unsigned long long)t->unpublished.min, (unsigned long long)t->unpublished.expected,
            (unsigned long long)t->unpublished.max,
            t->soc_parts ? "(om_soc_parts *)SOC_PARTS" : "0", t->n_sources, t->n_rows,
            t->n_advice ? "(om_advice_rule *)ADVICE" : "0", t->n_advice);
    fclose(body);

    if (!(out = fopen(argv[2], "w"))) {
        perror(argv[2]);
        return 1;
    }
    fprintf(out, "/* generated from %s by tools/table_compile: do not edit */\n"
                 "#include \"table/table_internal.h\"\n\n", argv[1]);
    print_pool();
    fwrite(body_text, 1, body_size, out);
    free(body_text);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    opmap_table_free(t);
    opmap_ctx_free(ctx);
    return 0;
}
