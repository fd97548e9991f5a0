/*
 * tests/unit/test_mapfile.c - models are read, never mapped (core/mapfile.h).
 *
 * A reader that touched a byte without asking the lazy view for it would read a zero: every
 * model of libonnx-testdata, the TorchScript fixtures, the hostile corpus and the cached
 * truth models is read through 1-byte chunks (64 bytes over 4 MB) and must give the same
 * IR, every field a reader fills (or the same error, at the same offset), as when read
 * whole. A file that shrinks or changes under the
 * view is reported as such, deterministically (the file is changed between the open and
 * the reads, not raced).
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <opmap/opmap.h>

#include "readers/model.h"
#include "../../src/core/mapfile.h"

typedef struct fixture {
    opmap_ctx *ctx;
    size_t files, failed;
} fixture;

static int setup(void **state)
{
    static fixture f;
    if (opmap_ctx_new(&f.ctx, NULL, NULL) != OPMAP_OK)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    opmap_ctx_free(f->ctx);
    return 0;
}

/* ---- the model's IR as text: everything a reader fills, so two reads can be compared ---- */

typedef struct dump {
    char *buf;
    size_t len, cap;
} dump;

static void put(dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(dump *d, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(d->buf + d->len, d->cap - d->len, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < d->cap - d->len)
            break;
        d->cap = d->cap * 2 + (size_t)n + 1;
        assert_non_null(d->buf = realloc(d->buf, d->cap));
    }
    d->len += (size_t)n;
}

static const char *str(const char *s)
{
    return s ? s : "(null)";
}

static void put_type(dump *d, const ir_type *t)
{
    int32_t i;
    put(d, " <%u/%u/%d/%d", t->kind, t->outer, t->elem, t->rank);
    for (i = 0; t->dims && i < t->rank; i++)
        put(d, " %lld:%s", (long long)t->dims[i].value, str(t->dims[i].param));
    put(d, ">");
}

static void put_tensor(dump *d, const ir_tensor *t)
{
    uint32_t i;
    put(d, " T(%s %d %llu+%llu ext%u:%s:%llu:%llu:%u", str(t->name), t->dtype,
        (unsigned long long)t->payload_offset, (unsigned long long)t->payload_bytes, t->external,
        str(t->ext_location), (unsigned long long)t->ext_offset,
        (unsigned long long)t->ext_length, t->ext_check);
    for (i = 0; i < t->ndims; i++)
        put(d, " d%lld", (long long)t->dims[i]);
    for (i = 0; t->values && i < t->n_values; i++)
        put(d, " v%.17g", t->values[i]);
    put(d, ")");
}

static void put_graph(dump *d, const ir_graph *g, int depth);

static void put_fact(dump *d, const ir_fact *f)
{
    put(d, " [%d %d %u %u %s]", f->dtype, f->rank, f->is_const, f->is_shape,
        f->def ? str(f->def->name) : "-");
}

static void put_node(dump *d, const ir_node *n, int depth)
{
    uint32_t i;
    size_t k;
    put(d, "%*snode %s %s::%s @%llu %s:%u call %s %s\n", depth, "", str(n->name), str(n->domain),
        str(n->op), (unsigned long long)n->offset, str(n->src_file), n->src_line,
        n->callee ? str(n->callee->name) : "-", str(n->call_label));
    for (i = 0; i < n->n_inputs; i++) {
        put(d, "%*s in %s", depth, "", str(n->inputs[i]));
        if (n->in_facts)
            put_fact(d, &n->in_facts[i]);
        put(d, "\n");
    }
    for (i = 0; i < n->n_outputs; i++) {
        put(d, "%*s out %s", depth, "", str(n->outputs[i]));
        if (n->out_facts)
            put_fact(d, &n->out_facts[i]);
        if (n->out_types)
            put_type(d, &n->out_types[i]);
        put(d, "\n");
    }
    for (i = 0; i < n->n_attrs + n->n_args; i++) {
        const ir_attr *a = i < n->n_attrs ? &n->attrs[i] : &n->args[i - n->n_attrs];
        put(d, "%*s attr %s %d %s i%lld f%.17g s%zu:%.*s", depth, "", str(a->name), a->type,
            str(a->ref_attr_name), (long long)a->i, a->f, a->s.size,
            (int)(a->s.size < 64 ? a->s.size : 64), a->s.data ? a->s.data : "");
        for (k = 0; k < a->n_ints; k++)
            put(d, " %lld", (long long)a->ints[k]);
        for (k = 0; k < a->n_floats; k++)
            put(d, " %.17g", a->floats[k]);
        for (k = 0; k < a->n_strings; k++)
            put(d, " '%.*s'", (int)(a->strings[k].size < 64 ? a->strings[k].size : 64),
                a->strings[k].data);
        for (k = 0; k < a->n_tensors; k++)
            put_tensor(d, &a->tensors[k]);
        put(d, "\n");
        for (k = 0; k < a->n_graphs; k++)
            put_graph(d, a->graphs[k], depth + 2);
    }
}

/* Recursion follows the model's subgraph nesting, which the reader bounded (max_depth). */
static void put_graph(dump *d, const ir_graph *g, int depth)
{
    size_t i;
    if (!g)
        return;
    put(d, "%*sgraph %s %zu sparse\n", depth, "", str(g->name), g->n_sparse_inits);
    for (i = 0; i < g->n_inputs; i++) {
        put(d, "%*s input %s", depth, "", str(g->inputs[i].name));
        put_type(d, &g->inputs[i].type);
        put(d, "\n");
    }
    for (i = 0; i < g->n_outputs; i++) {
        put(d, "%*s output %s", depth, "", str(g->outputs[i].name));
        put_type(d, &g->outputs[i].type);
        put(d, "\n");
    }
    for (i = 0; i < g->n_value_info; i++) {
        put(d, "%*s value %s", depth, "", str(g->value_info[i].name));
        put_type(d, &g->value_info[i].type);
        put(d, "\n");
    }
    for (i = 0; i < g->n_inits; i++) {
        put(d, "%*s init", depth, "");
        put_tensor(d, &g->inits[i]);
        put(d, "\n");
    }
    for (i = 0; i < g->n_nodes; i++)
        put_node(d, &g->nodes[i], depth + 1);
}

static void put_model(dump *d, const ir_model *m)
{
    size_t i;
    const opmap_model_stats *s = &m->stats;
    put(d, "model %d ir%lld %s %s %s %s v%lld\n", m->format, (long long)m->ir_version,
        str(m->producer_name), str(m->producer_version), str(m->domain), str(m->doc),
        (long long)m->model_version);
    put(d, "stats %llu %llu %llu %llu %llu %llu\n", (unsigned long long)s->graphs,
        (unsigned long long)s->nodes, (unsigned long long)s->functions,
        (unsigned long long)s->initializers, (unsigned long long)s->external_tensors,
        (unsigned long long)s->weight_bytes);
    for (i = 0; i < m->n_opsets; i++)
        put(d, "opset %s %lld\n", str(m->opsets[i].domain), (long long)m->opsets[i].version);
    put_graph(d, m->main, 0);
    for (i = 0; i < m->n_extra; i++) {
        put(d, "extra %s\n", str(m->extra_labels[i]));
        put_graph(d, m->extra_graphs[i], 0);
    }
    for (i = 0; i < m->n_functions; i++) {
        const ir_function *f = &m->functions[i];
        size_t k;
        put(d, "function %s::%s", str(f->domain), str(f->name));
        for (k = 0; k < f->n_opsets; k++)
            put(d, " %s:%lld", str(f->opsets[k].domain), (long long)f->opsets[k].version);
        for (k = 0; k < f->n_attr_names; k++)
            put(d, " @%s", str(f->attr_names[k]));
        put(d, "\n");
        put_graph(d, &f->body, 1);
    }
    for (i = 0; i < m->n_external; i++)
        put_tensor(d, &m->external[i]);
}

/* What reading `path` with (small_max, shift) gives: the IR as text, or the error. */
static char *read_as(fixture *f, const char *path, uint64_t small_max, unsigned shift)
{
    opmap_model *m = NULL;
    opmap_error err;
    dump d = { NULL, 0, 0 };
    d.cap = 4096;
    assert_non_null(d.buf = malloc(d.cap));
    d.buf[0] = 0;
    if (om_model_open_file_view(&m, f->ctx, path, small_max, shift, &err) == OPMAP_OK) {
        put_model(&d, &m->ir);
    } else {
        char msg[1200];
        opmap_error_format(&err, msg, sizeof(msg));
        put(&d, "%s", msg);
        f->failed++;
    }
    opmap_model_free(m);
    return d.buf;
}

static void same_both_ways(fixture *f, const char *path, off_t size)
{
    /* big files: the default view is the reference (a whole copy would cost their size) */
    int big = size > (off_t)64 << 20;
    char *whole = read_as(f, path, big ? OM_MAP_SMALL_FILE : UINT64_MAX, OM_MAP_CHUNK_SHIFT);
    /* one-byte chunks: only what is asked for is there (64 bytes for big files: time) */
    unsigned shift = size > (off_t)4 << 20 ? 6 : 0;
    char *lazy = read_as(f, path, 0, shift);
    if (strcmp(whole, lazy) != 0)
        fail_msg("%s: read through %u-byte chunks differs from read whole", path, 1u << shift);
    free(whole);
    free(lazy);
    f->files++;
}

/* Every regular file below dir (a test tree: depth-bounded all the same). */
static void walk(fixture *f, const char *dir, int depth, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d || depth > 8) {
        if (d)
            closedir(d);
        return;
    }
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        size_t n = strlen(e->d_name), k = suffix ? strlen(suffix) : 0;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(f, path, depth + 1, suffix);
        else if (S_ISREG(st.st_mode) && (!suffix || (n >= k && !strcmp(e->d_name + n - k, suffix))))
            same_both_ways(f, path, st.st_size);
    }
    closedir(d);
}

static void test_mapfile__chunks_read_as_whole(void **state)
{
    fixture *f = *state;
    size_t before;
    walk(f, OPMAP_TESTDATA_DIR, 0, ".onnx");
    assert_true(f->files > 1000);
    before = f->files;
    walk(f, OPMAP_SOURCE_DIR "/tests/fixtures/torchscript", 0, NULL);
    walk(f, OPMAP_SOURCE_DIR "/tests/hostile/cases", 0, NULL);
    assert_true(f->files > before + 50);
    walk(f, OPMAP_TRUTH_CACHE, 0, ".onnx"); /* when the truth suite has exported them */
    assert_true(f->failed > 0 && f->failed < f->files); /* errors compared too */
    print_message("%zu files, %zu of them errors, the same both ways\n", f->files, f->failed);
}

/* A file of `size` bytes (a pattern: the view must give back these, not zeros). */
static void make_file(const char *path, size_t size)
{
    FILE *fp = fopen(path, "wb");
    size_t i;
    assert_non_null(fp);
    for (i = 0; i < size; i++)
        fputc((int)(i % 251) + 1, fp);
    fclose(fp);
}

static void test_mapfile__a_file_that_shrinks_is_reported(void **state)
{
    char path[] = "/tmp/opmap-mapfile-XXXXXX";
    om_mem mem;
    om_mapped m;
    opmap_error err;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_file(path, 1 << 20);
    om_mem_init(&mem, NULL, 1u << 30);
    assert_int_equal(om_map_file_view(&m, &mem, path, UINT64_MAX, 0, 12, &err), OPMAP_OK);
    assert_non_null(m.region);
    om_need(&m, 1000, 10);
    assert_int_equal(m.data[1005], 1005 % 251 + 1);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_OK);
    /* truncated to half: what is past the new end reads as zero, and is reported */
    assert_int_equal(truncate(path, 1 << 19), 0);
    om_need(&m, (1 << 19) + 4096, 100);
    assert_int_equal(m.data[(1 << 19) + 4096], 0);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_EIO);
    assert_non_null(strstr(err.message, "file changed while being read"));
    assert_int_equal(err.offset, (1 << 19) + 4096);
    assert_true(mem.used > 0);
    om_unmap(&m);
    assert_int_equal(mem.used, 0); /* the chunks were drawn from the budget and returned */
    unlink(path);
}

static void test_mapfile__a_file_rewritten_in_place_is_reported(void **state)
{
    char path[] = "/tmp/opmap-mapfile-XXXXXX";
    om_mem mem;
    om_mapped m;
    opmap_error err;
    FILE *fp;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_file(path, 1 << 20);
    om_mem_init(&mem, NULL, 1u << 30);
    assert_int_equal(om_map_file_view(&m, &mem, path, UINT64_MAX, 0, 12, &err), OPMAP_OK);
    om_need(&m, 0, 100);
    fp = fopen(path, "ab"); /* grows: no read comes up short, the size says it */
    assert_non_null(fp);
    fputs("more", fp);
    fclose(fp);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_EIO);
    assert_non_null(strstr(err.message, "file changed while being read"));
    om_unmap(&m);
    unlink(path);
}

static void test_mapfile__chunks_count_against_the_budget(void **state)
{
    char path[] = "/tmp/opmap-mapfile-XXXXXX";
    om_mem mem;
    om_mapped m;
    opmap_error err;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_file(path, 1 << 20);
    om_mem_init(&mem, NULL, 64 * 1024);
    assert_int_equal(om_map_file_view(&m, &mem, path, UINT64_MAX, 0, 12, &err), OPMAP_OK);
    om_need(&m, 0, 32 * 1024);       /* fits */
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_OK);
    om_need(&m, 100 * 1024, 64 * 1024); /* would not */
    assert_int_equal(m.data[100 * 1024], 0);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_ELIMIT);
    om_unmap(&m);
    assert_int_equal(mem.used, 0);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapfile__a_file_that_shrinks_is_reported),
        cmocka_unit_test(test_mapfile__a_file_rewritten_in_place_is_reported),
        cmocka_unit_test(test_mapfile__chunks_count_against_the_budget),
        cmocka_unit_test(test_mapfile__chunks_read_as_whole),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
