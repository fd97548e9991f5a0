/*
 * tests/unit/test_view.c - what one format says, all say (issue 30): the report view
 * (report/view.h) is walked fact by fact, and every format that must carry a fact is
 * checked for it, escaped as that format escapes it: a traced Llama-style block (fused-kernel
 * advice with its source lines, torch_npu commands), its ONNX export (ATC commands), an
 * opset-6 model (the re-export), training code (source findings and their places), each
 * alone and all together as a portfolio. SARIF places a source line as a region; no SARIF
 * location is in an installed package when the model says a user frame.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "core/json.h"
#include "core/out.h"
#include "core/text.h"
#include "report/escape.h"
#include "report/report_internal.h"
#include "report/view.h"

#define N_MODELS 5

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
    opmap_result *res[N_MODELS];
} fixture;

static opmap_result *scan_file(fixture *f, const char *path, int workload)
{
    opmap_scan_options opts = OPMAP_SCAN_OPTIONS_INIT;
    opmap_model *m;
    opmap_result *r;
    opmap_error err;
    opts.workload = workload;
    if (opmap_model_open_file(&m, f->ctx, path, &err) != OPMAP_OK)
        fail_msg("%s: %s", path, err.message);
    if (opmap_scan(&r, f->ctx, m, f->table, &opts, &err) != OPMAP_OK)
        fail_msg("%s: %s", path, err.message);
    opmap_model_free(m);
    return r;
}

static int setup(void **state)
{
    static const char *const py[] = { OPMAP_SOURCE_DIR "/tests/data/python-projects/nanogpt/train.py",
                                      OPMAP_SOURCE_DIR "/tests/data/python-projects/nanogpt/model.py" };
    fixture *f = calloc(1, sizeof(*f));
    opmap_error err;
    if (!f || opmap_ctx_new(&f->ctx, NULL, &err) != OPMAP_OK ||
        opmap_table_load_default(&f->table, f->ctx, &err) != OPMAP_OK)
        return -1;
    f->res[0] = scan_file(f, OPMAP_SOURCE_DIR "/tests/fixtures/llm/llama_block.traced.pt",
                          OPMAP_WORKLOAD_INFERENCE);
    f->res[1] = scan_file(f, OPMAP_SOURCE_DIR "/tests/fixtures/llm/mixtral_moe.opset17.onnx",
                          OPMAP_WORKLOAD_INFERENCE);
    f->res[2] = scan_file(f, OPMAP_TESTDATA_DIR "/pytorch-converted/test_Conv2d/model.onnx",
                          OPMAP_WORKLOAD_INFERENCE);
    if (opmap_scan_sources(&f->res[3], f->ctx, "nanogpt", py, 2, f->table, NULL, &err) != OPMAP_OK)
        fail_msg("%s", err.message);
    /* a training scan: each ATen operator's backward too */
    f->res[4] = scan_file(f, OPMAP_SOURCE_DIR "/tests/fixtures/llm/llama_kv.traced.pt",
                          OPMAP_WORKLOAD_TRAINING);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    size_t i;
    for (i = 0; i < N_MODELS; i++)
        opmap_result_free(f->res[i]);
    opmap_table_free(f->table);
    opmap_ctx_free(f->ctx);
    free(f);
    return 0;
}

/* ---- a string rendered as a writer renders it ---- */

typedef struct sink {
    char *s;
    size_t n, cap;
} sink;

static int to_sink(void *payload, const void *data, size_t n)
{
    sink *k = payload;
    if (k->n + n + 1 > k->cap) {
        k->cap = (k->n + n + 1) * 2;
        assert_non_null(k->s = realloc(k->s, k->cap));
    }
    memcpy(k->s + k->n, data, n);
    k->n += n;
    k->s[k->n] = '\0';
    return 0;
}

static char *render(void (*esc)(om_out *, const char *), const char *text)
{
    sink k = { NULL, 0, 0 };
    om_out o;
    om_out_init(&o, to_sink, &k);
    esc(&o, text);
    om_out_finish(&o);
    return k.s ? k.s : calloc(1, 1);
}

/* Markdown's code spans: ` and | become ', controls ? (report_markdown.c). */
static void code_span(om_out *o, const char *s)
{
    for (; *s; s++)
        om_out_bytes(o, *s == '`' || *s == '|' ? "'" : (unsigned char)*s < 0x20 ? "?" : s, 1);
}

/* A CSV cell's inside: quotes doubled (the cell's own quotes and apostrophe aside). */
static void csv_inside(om_out *o, const char *s)
{
    for (; *s; s++)
        om_out_bytes(o, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
}

static int in_text(const char *report, void (*esc)(om_out *, const char *), const char *text)
{
    char *r = render(esc, text);
    int found = strstr(report, r) != NULL;
    free(r);
    return found;
}

/* ---- JSON and SARIF: every string of the document, and every (uri, line) it places ---- */

typedef struct strings {
    const char **s;
    size_t n, cap;
    struct { const char *uri; int64_t line, col; } *at;
    size_t n_at, cap_at;
} strings;

static void collect(strings *k, const oj_value *v)
{
    uint32_t i;
    if (v->type == OJ_STRING) {
        if (k->n == k->cap)
            assert_non_null(k->s = realloc(k->s, (k->cap = k->cap * 2 + 64) * sizeof(*k->s)));
        k->s[k->n++] = v->s;
    }
    if (v->type == OJ_OBJECT && oj_obj(v, "artifactLocation")) {
        const oj_value *region = oj_obj(v, "region");
        const oj_value *line = region ? oj_get(region, "startLine") : NULL;
        const oj_value *col = region ? oj_get(region, "startColumn") : NULL;
        if (k->n_at == k->cap_at)
            assert_non_null(k->at = realloc(k->at, (k->cap_at = k->cap_at * 2 + 16) *
                                                       sizeof(*k->at)));
        k->at[k->n_at].uri = oj_str(oj_obj(v, "artifactLocation"), "uri");
        k->at[k->n_at].line = line ? line->i : 0;
        k->at[k->n_at++].col = col ? col->i : 0;
    }
    for (i = 0; (v->type == OJ_OBJECT || v->type == OJ_ARRAY) && i < v->n; i++)
        collect(k, &v->kids[i]);
}

static int in_strings(const strings *k, const char *text)
{
    size_t i;
    for (i = 0; i < k->n; i++)
        if (strstr(k->s[i], text))
            return 1;
    return 0;
}

/* "file.py:38" or "train.py:12:5" placed as a SARIF region (an absolute file as file://). */
static int in_regions(const strings *k, const char *place)
{
    const char *c1 = strrchr(place, ':'), *c0;
    char file[1024], uri[1100];
    long line, col = 0;
    size_t i;
    if (!c1)
        return 0;
    line = strtol(c1 + 1, NULL, 10);
    for (c0 = c1 - 1; c0 > place && *c0 != ':'; c0--)
        continue;
    if (c0 > place && strspn(c0 + 1, "0123456789") == (size_t)(c1 - c0 - 1)) {
        col = line;
        line = strtol(c0 + 1, NULL, 10);
        c1 = c0;
    }
    snprintf(file, sizeof(file), "%.*s", (int)(c1 - place), place);
    snprintf(uri, sizeof(uri), "%s%s", file[0] == '/' ? "file://" : "", file);
    for (i = 0; i < k->n_at; i++)
        if (k->at[i].uri && strcmp(k->at[i].uri, uri) == 0 && k->at[i].line == line &&
            (!col || k->at[i].col == col))
            return 1;
    return 0;
}

/* ---- the walk ---- */

typedef struct walk {
    char *report[OPMAP_REPORT_FORMAT_COUNT];
    strings json, sarif;
    size_t facts, checks;
    int per_kind[OM_FACT_KIND_COUNT];
} walk;

static int carried(walk *w, int format, int kind, const char *text)
{
    const char *r = w->report[format];
    switch (format) {
    case OPMAP_REPORT_TEXT: return in_text(r, om_out_term, text);
    case OPMAP_REPORT_HTML: return in_text(r, om_out_html, text);
    case OPMAP_REPORT_MARKDOWN: return in_text(r, om_out_md, text) || in_text(r, code_span, text);
    case OPMAP_REPORT_CSV: return in_text(r, csv_inside, text);
    case OPMAP_REPORT_JUNIT: return in_text(r, om_out_xml, text);
    case OPMAP_REPORT_JSON: return in_strings(&w->json, text);
    case OPMAP_REPORT_SARIF: /* a place of the code is a region there */
        return kind == OM_FACT_ADVICE_LINE || kind == OM_FACT_SOURCE_PLACE
                   ? in_regions(&w->sarif, text) : in_strings(&w->sarif, text);
    default: return 0;
    }
}

/* A verdict is "needs-work" in JSON, SARIF and JUnit, "needs work" where people read it. */
static int check_fact(void *payload, int kind, size_t model, const char *text, unsigned formats)
{
    walk *w = payload;
    int f;
    w->facts++;
    w->per_kind[kind]++;
    for (f = 0; f < OPMAP_REPORT_FORMAT_COUNT; f++) {
        const char *t = text;
        if (!(formats & (1u << f)))
            continue;
        if (kind == OM_FACT_VERDICT && f != OPMAP_REPORT_JSON && f != OPMAP_REPORT_SARIF &&
            strcmp(text, "needs-work") == 0)
            t = "needs work";
        w->checks++;
        if (!carried(w, f, kind, t))
            fail_msg("the %s of model %zu, \"%s\", is not in the %s report", om_fact_kind_name(kind),
                     model, text, opmap_report_format_name((opmap_report_format)f));
    }
    return 0;
}

static void parse(fixture *fx, const char *text, strings *k, om_arena *A, om_mem *mem)
{
    oj_src src;
    oj_value *root;
    opmap_error err;
    src.mem = mem;
    src.arena = A;
    src.err = &err;
    src.source = "report";
    src.max_depth = 64;
    src.max_string = 1u << 24;
    if (oj_parse(&src, text, strlen(text), &root) != OPMAP_OK)
        fail_msg("%s", err.message);
    memset(k, 0, sizeof(*k));
    collect(k, root);
    (void)fx;
}

static void walk_report(fixture *fx, opmap_result **res, size_t count, walk *w)
{
    const opmap_result *const *rs = (const opmap_result *const *)res;
    om_report_prep prep;
    opmap_error err;
    om_mem mem;
    om_arena A;
    int f;
    memset(w, 0, sizeof(*w));
    for (f = 0; f < OPMAP_REPORT_FORMAT_COUNT; f++)
        if (opmap_report_write_memory(fx->ctx, rs, count, (opmap_report_format)f, NULL,
                                      &w->report[f], NULL, &err) != OPMAP_OK)
            fail_msg("%s: %s", opmap_report_format_name((opmap_report_format)f), err.message);
    om_mem_init(&mem, NULL, (uint64_t)1 << 32);
    om_arena_init(&A, &mem, 0);
    parse(fx, w->report[OPMAP_REPORT_JSON], &w->json, &A, &mem);
    parse(fx, w->report[OPMAP_REPORT_SARIF], &w->sarif, &A, &mem);
    assert_int_equal(om_report_prepare(&prep, fx->ctx, rs, count, NULL, &err), OPMAP_OK);
    assert_int_equal(om_view_facts(prep.in.view, check_fact, w), 0);
    om_report_release(&prep);
    om_arena_free(&A);
    free(w->json.s);
    free(w->json.at);
    free(w->sarif.s);
    free(w->sarif.at);
    for (f = 0; f < OPMAP_REPORT_FORMAT_COUNT; f++)
        opmap_free(fx->ctx, w->report[f]);
}

static void test_view__each_model_alone(void **state)
{
    fixture *fx = *state;
    size_t i;
    walk w;
    for (i = 0; i < N_MODELS; i++) {
        walk_report(fx, &fx->res[i], 1, &w);
        assert_true(w.facts > 3);
    }
}

static void test_view__a_portfolio(void **state)
{
    fixture *fx = *state;
    walk w;
    walk_report(fx, fx->res, N_MODELS, &w);
    /* the facts the issue names are there to be checked */
    assert_true(w.per_kind[OM_FACT_ADVICE_LINE] >= 4);
    assert_true(w.per_kind[OM_FACT_NEXT_COMMAND] >= 5);
    assert_true(w.per_kind[OM_FACT_REEXPORT] == 1);
    assert_true(w.per_kind[OM_FACT_SOURCE_PLACE] >= 5);
    assert_true(w.per_kind[OM_FACT_ON_ASCEND] >= 20);
    assert_true(w.per_kind[OM_FACT_BACKWARD] >= 5);
    assert_true(w.checks > 5 * w.facts / 2);
}

/* The traced block's SARIF: every location of the code is the user's, not torch's. */
static void test_view__sarif_points_at_user_frames(void **state)
{
    fixture *fx = *state;
    const opmap_result *const *rs = (const opmap_result *const *)fx->res;
    opmap_error err;
    strings k;
    om_mem mem;
    om_arena A;
    char *sarif;
    size_t i, regions = 0;
    assert_int_equal(opmap_report_write_memory(fx->ctx, rs, 1, OPMAP_REPORT_SARIF, NULL, &sarif,
                                               NULL, &err), OPMAP_OK);
    om_mem_init(&mem, NULL, (uint64_t)1 << 32);
    om_arena_init(&A, &mem, 0);
    parse(fx, sarif, &k, &A, &mem);
    for (i = 0; i < k.n_at; i++) {
        if (!k.at[i].line)
            continue;
        regions++;
        if (om_installed_path(k.at[i].uri, strlen(k.at[i].uri)))
            fail_msg("a SARIF region in an installed package: %s:%lld", k.at[i].uri,
                     (long long)k.at[i].line);
    }
    assert_true(regions >= 5);
    om_arena_free(&A);
    free(k.s);
    free(k.at);
    opmap_free(fx->ctx, sarif);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view__each_model_alone),
        cmocka_unit_test(test_view__a_portfolio),
        cmocka_unit_test(test_view__sarif_points_at_user_frames),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
