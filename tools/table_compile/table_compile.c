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

static void str_array(const char *prefix, size_t id, const char **a, size_t n)
{
    size_t i;
    if (!n)
        return;
    fprintf(out, "static const char *%s%zu[] = {", prefix, id);
    for (i = 0; i < n; i++) {
        fprintf(out, i ? ", " : "");
        str(a[i]);
    }
    fprintf(out, "};\n");
}

static void row_parts(const opmap_row *r, size_t id)
{
    size_t i;
    str_array("S", id, r->sources, r->n_sources);
    str_array("O", id, r->overloads, r->n_overloads);
    for (i = 0; i < r->n_socs; i++)
        str_array("A", id * 64 + i, r->socs[i].sources, r->socs[i].n_sources);
    if (r->n_socs) {
        fprintf(out, "static const om_soc_answer C%zu[] = {", id);
        for (i = 0; i < r->n_socs; i++) {
            const om_soc_answer *a = &r->socs[i];
            fprintf(out, "%s{%u, ", i ? ", " : "", a->soc);
            str(a->name);
            fprintf(out, ", %d, %uu, ", a->status, a->dtypes);
            str(a->note);
            if (a->n_sources)
                fprintf(out, ", (const char **)A%zu, %zu}", id * 64 + i, a->n_sources);
            else
                fprintf(out, ", 0, 0}");
        }
        fprintf(out, "};\n");
    }
    if (r->n_constraints) {
        int *vid = calloc(r->n_constraints * 2, sizeof(int));
        for (i = 0; i < r->n_constraints; i++) {
            vid[2 * i] = value_prepare(&r->constraints[i].value);
            vid[2 * i + 1] = value_prepare(&r->constraints[i].def);
        }
        fprintf(out, "static const om_constraint K%zu[] = {", id);
        for (i = 0; i < r->n_constraints; i++) {
            const om_constraint *c = &r->constraints[i];
            fprintf(out, "%s{%d, %d, %d, %d, %u, ", i ? ",\n  " : "", c->subject, c->cmp,
                    c->on_output, c->has_default, c->index);
            str(c->attr);
            fprintf(out, ", ");
            value_init(&c->value, vid[2 * i]);
            fprintf(out, ", ");
            value_init(&c->def, vid[2 * i + 1]);
            fprintf(out, ", %lluull, %d, %uu, ", (unsigned long long)c->soc_mask, c->then_status,
                    c->flag);
            str(c->message);
            fprintf(out, ", %u}", c->line);
        }
        fprintf(out, "};\n");
        free(vid);
    }
}

static void row_init(const opmap_row *r, size_t id)
{
    fprintf(out, "{");
    str(r->domain);
    fprintf(out, ", ");
    str(r->op);
    fprintf(out, ", %lld, %d, %uu,\n  ", (long long)r->since, r->status, r->flags);
    str(r->notes);
    fprintf(out, ", ");
    str(r->hint);
    fprintf(out, ", ");
    str(r->curated);
    fprintf(out, ", ");
    str(r->ascend_op);
    fprintf(out, ", ");
    str(r->aclnn);
    fprintf(out, ", ");
    str(r->api);
    fprintf(out, ", ");
    str(r->engine);
    fprintf(out, ", ");
    str(r->tnpu_min);
    fprintf(out, ", ");
    str(r->tnpu_max);
    fprintf(out, ",\n  ");
    if (r->n_overloads)
        fprintf(out, "(const char **)O%zu, %zu, ", id, r->n_overloads);
    else
        fprintf(out, "0, 0, ");
    if (r->n_sources)
        fprintf(out, "(const char **)S%zu, %zu, ", id, r->n_sources);
    else
        fprintf(out, "0, 0, ");
    fprintf(out, "%uu, ", r->dtypes);
    if (r->n_socs)
        fprintf(out, "(om_soc_answer *)C%zu, %zu, ", id, r->n_socs);
    else
        fprintf(out, "0, 0, ");
    if (r->n_constraints)
        fprintf(out, "(om_constraint *)K%zu, %zu, ", id, r->n_constraints);
    else
        fprintf(out, "0, 0, ");
    fprintf(out, "%u}", r->line);
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
        fprintf(out, ", %u}", s->line);
    }
    fprintf(out, "%s\n};\n\nstatic const char *SOCS[] = {", t->n_sources ? "" : "{0}");
    for (i = 0; i < t->n_socs; i++) {
        fprintf(out, i ? ", " : "");
        str(t->socs[i]);
    }
    fprintf(out, "};\n\nconst om_builtin om_builtin_table = {\n  ");
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
    fprintf(out, "},\n  (om_source *)SOURCES, %zu, (opmap_row *)ROWS, %zu\n};\n", t->n_sources,
            t->n_rows);
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
