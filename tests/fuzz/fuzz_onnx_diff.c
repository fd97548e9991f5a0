/*
 * tests/fuzz/fuzz_onnx_diff.c - differential: opmap's operator histogram against
 * protobuf-c's full unpack of the same bytes (issue 16: the gate must see the graph the
 * runtime sees).
 *
 * For an input both accept, and that has no local functions (whose expansion the
 * reference would have to reimplement), the instances per (domain, op_type) that
 * opmap_scan reports must equal the nodes protobuf-c's ModelProto holds in the main graph,
 * the training graphs, and every subgraph attribute below them. protobuf-c merges repeated occurrences of
 * singular messages and takes the last of repeated scalars, as libprotobuf does, so an
 * input that reads one way here and another way in opmap is a gate bypass. Inputs either
 * side refuses, or with subgraphs nested deeper than the walk below, are skipped.
 *
 * protobuf-c's unpack recurses once per nested message with no bound of its own (4,000
 * nested Ifs overflow an 8 MiB stack), so only inputs up to REF_MAX_BYTES go to it: at two
 * bytes per level at least, that bounds its depth to 2,048 messages.
 */
#include "fuzz_common.h"

#include "onnx/onnx.pb-c.h"

#define REF_MAX_BYTES 4096
#define MAX_KEYS 4096
#define MAX_STACK 4096

typedef struct hist {
    char *key[MAX_KEYS];  /* "domain\n op_type" */
    uint64_t n[MAX_KEYS];
    size_t len;
    int overflow;
} hist;

static void hist_add(hist *h, const char *domain, const char *op, uint64_t count)
{
    size_t i, dl = strlen(domain), ol = strlen(op);
    char *k;
    if (!*domain || strcmp(domain, "ai.onnx") == 0) /* ONNX's default domain */
        domain = "ai.onnx", dl = 7;
    for (i = 0; i < h->len; i++)
        if (strlen(h->key[i]) == dl + 1 + ol && memcmp(h->key[i], domain, dl) == 0 &&
            h->key[i][dl] == '\n' && memcmp(h->key[i] + dl + 1, op, ol) == 0) {
            h->n[i] += count;
            return;
        }
    if (h->len == MAX_KEYS || !(k = malloc(dl + ol + 2))) {
        h->overflow = 1;
        return;
    }
    memcpy(k, domain, dl);
    k[dl] = '\n';
    memcpy(k + dl + 1, op, ol + 1);
    h->key[h->len] = k;
    h->n[h->len++] = count;
}

static void hist_free(hist *h)
{
    size_t i;
    for (i = 0; i < h->len; i++)
        free(h->key[i]);
}

static uint64_t hist_get(const hist *h, const char *key)
{
    size_t i;
    for (i = 0; i < h->len; i++)
        if (strcmp(h->key[i], key) == 0)
            return h->n[i];
    return 0;
}

/* The nodes of the main graph and of every graph attribute below it; an explicit stack.
 * Returns 0 when the walk went deeper than it follows (the input is then skipped). */
static int reference(const Onnx__ModelProto *m, hist *h)
{
    const Onnx__GraphProto *stack[MAX_STACK];
    size_t top = 0, i, a, g;
    if (m->graph)
        stack[top++] = m->graph;
    /* training graphs: what a training runtime runs, and opmap scans them too */
    for (i = 0; i < m->n_training_info; i++) {
        if (top + 2 > MAX_STACK)
            return 0;
        if (m->training_info[i]->initialization)
            stack[top++] = m->training_info[i]->initialization;
        if (m->training_info[i]->algorithm)
            stack[top++] = m->training_info[i]->algorithm;
    }
    while (top) {
        const Onnx__GraphProto *gr = stack[--top];
        for (i = 0; i < gr->n_node; i++) {
            const Onnx__NodeProto *n = gr->node[i];
            hist_add(h, n->domain ? n->domain : "", n->op_type ? n->op_type : "", 1);
            for (a = 0; a < n->n_attribute; a++) {
                const Onnx__AttributeProto *at = n->attribute[a];
                if (at->g) {
                    if (top == MAX_STACK)
                        return 0;
                    stack[top++] = at->g;
                }
                for (g = 0; g < at->n_graphs; g++) {
                    if (top == MAX_STACK)
                        return 0;
                    stack[top++] = at->graphs[g];
                }
            }
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Onnx__ModelProto *ref;
    opmap_ctx *ctx = NULL;
    opmap_model *model = NULL;
    opmap_result *res = NULL;
    static opmap_ctx *tctx;
    static opmap_table *table;
    opmap_error err;
    hist want, got;
    size_t i;
    int deep_ok;

    if (!table) {
        FZ_CHECK(opmap_ctx_new(&tctx, NULL, &err) == OPMAP_OK, "%s", err.message);
        FZ_CHECK(opmap_table_load_default(&table, tctx, &err) == OPMAP_OK, "%s", err.message);
    }
    if (size > REF_MAX_BYTES || !(ref = onnx__model_proto__unpack(NULL, size, data)))
        return 0;
    if (ref->n_functions) {
        onnx__model_proto__free_unpacked(ref, NULL);
        return 0;
    }
    FZ_CHECK(opmap_ctx_new(&ctx, NULL, &err) == OPMAP_OK, "%s", err.message);
    /* bytes protobuf accepts that opmap reads as another format (a zip, graph text) are
     * not a difference of ONNX readings */
    if (opmap_model_open_memory(&model, ctx, data, size, "diff.onnx", &err) != OPMAP_OK ||
        opmap_model_format(model) != OPMAP_FORMAT_ONNX ||
        opmap_scan(&res, ctx, model, table, NULL, &err) != OPMAP_OK) {
        opmap_result_free(res);
        opmap_model_free(model);
        opmap_ctx_free(ctx);
        onnx__model_proto__free_unpacked(ref, NULL);
        return 0; /* opmap refuses it: stricter than protobuf is allowed, never looser */
    }
    memset(&want, 0, sizeof(want));
    memset(&got, 0, sizeof(got));
    deep_ok = reference(ref, &want);
    for (i = 0; i < opmap_result_op_count(res); i++) {
        const opmap_op *op;
        if (opmap_result_op(res, i, &op) != OPMAP_OK)
            continue;
        hist_add(&got, opmap_op_domain(op), opmap_op_name(op), opmap_op_instances(op));
    }
    if (deep_ok && !want.overflow && !got.overflow) {
        FZ_CHECK(want.len == got.len, "protobuf-c reads %zu distinct operators, opmap %zu",
                 want.len, got.len);
        for (i = 0; i < want.len; i++)
            FZ_CHECK(hist_get(&got, want.key[i]) == want.n[i],
                     "'%s': protobuf-c reads %llu instances, opmap %llu", want.key[i],
                     (unsigned long long)want.n[i],
                     (unsigned long long)hist_get(&got, want.key[i]));
    }
    hist_free(&want);
    hist_free(&got);
    opmap_result_free(res);
    opmap_model_free(model);
    opmap_ctx_free(ctx);
    onnx__model_proto__free_unpacked(ref, NULL);
    return 0;
}
