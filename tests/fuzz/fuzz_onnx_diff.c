/*
 * tests/fuzz/fuzz_onnx_diff.c - differential: opmap's operator histogram against
 * protobuf-c's full unpack of the same bytes (issue 16: the gate must see the graph the
 * runtime sees).
 *
 * For an input both accept, the instances per (domain, op_type) that opmap_scan reports
 * must equal the nodes protobuf-c's ModelProto holds in the main graph, the training
 * graphs, every subgraph attribute below them and every model-local function's body at
 * each call, bound as onnx's inliner and onnxruntime bind it (issue 29: the last
 * definition of a (domain, name, overload), IR 9 defaults, ref_attr_name over a graph of
 * the attribute's own; see walk() below). protobuf-c merges repeated occurrences of
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

/* ---- local functions as onnx's inliner and onnxruntime bind them ----
 *
 * Debian's onnx.proto (1.12) predates IR 9's FunctionProto.attribute_proto (11) and IR 10's
 * overloads (FunctionProto 13, NodeProto 8): protobuf-c keeps them as unknown fields, read
 * here from the wire. Functions are keyed by (domain, name, overload), the last definition
 * winning; a call's body is walked with its attributes bound: a body attribute with a
 * ref_attr_name is the call's attribute of that name, else the function's default, else
 * dropped, whatever it holds itself; a call to a function already on the call chain is
 * not expanded (opmap leaves it, as a warning). */

#define MAX_CTX 65536
#define MAX_WORK 2000000u

typedef struct fn_ref {
    const Onnx__FunctionProto *f;
    char overload[256];                  /* "" when none */
    Onnx__AttributeProto **defaults;     /* unpacked from field 11 */
    size_t n_defaults;
} fn_ref;

typedef struct call_ctx {
    const fn_ref *fn;                    /* the function whose body this is, or NULL */
    const Onnx__NodeProto *call;         /* the calling node, or NULL at a root */
    size_t caller;                       /* the context the call node is in */
} call_ctx;

typedef struct item {
    Onnx__NodeProto *const *nodes;       /* a graph's, or a function body's */
    size_t n;
    size_t ctx;
} item;

/* The payload of an unknown length-delimited field (protobuf-c keeps its length prefix). */
static int unknown_payload(const ProtobufCMessageUnknownField *u, const uint8_t **p, size_t *n)
{
    uint64_t v = 0;
    size_t i = 0;
    unsigned shift = 0;
    if (u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
        return 0;
    while (i < u->len && i < 10) {
        v |= (uint64_t)(u->data[i] & 0x7f) << shift;
        shift += 7;
        if (!(u->data[i++] & 0x80))
            break;
    }
    if (i <= u->len && v == u->len - i) {
        *p = u->data + i;
        *n = (size_t)v;
    } else {
        *p = u->data;
        *n = u->len;
    }
    return 1;
}

/* The last occurrence of unknown string field `tag` of `m`, as a NUL-terminated copy into
 * buf (truncated; "" when absent). */
static const char *unknown_string(const ProtobufCMessage *m, uint32_t tag, char *buf, size_t size)
{
    unsigned i;
    buf[0] = '\0';
    for (i = 0; i < m->n_unknown_fields; i++) {
        const uint8_t *p;
        size_t n;
        if (m->unknown_fields[i].tag == tag && unknown_payload(&m->unknown_fields[i], &p, &n))
            snprintf(buf, size, "%.*s", (int)(n < size - 1 ? n : size - 1), (const char *)p);
    }
    return buf;
}

static const char *canon(const char *d)
{
    return !d || !*d || strcmp(d, "ai.onnx") == 0 ? "ai.onnx" : d;
}

/* The function a node calls (the last of its key), or NULL. */
static const fn_ref *callee(const fn_ref *fns, size_t n, const Onnx__NodeProto *node,
                            char *ov, size_t ov_size)
{
    size_t i;
    const char *o = unknown_string(&node->base, 8, ov, ov_size);
    for (i = n; i-- > 0;)
        if (fns[i].f->name && node->op_type && strcmp(fns[i].f->name, node->op_type) == 0 &&
            strcmp(canon(fns[i].f->domain), canon(node->domain)) == 0 &&
            strcmp(fns[i].overload, o) == 0)
            return &fns[i];
    return NULL;
}

static const Onnx__AttributeProto *attr_of(Onnx__AttributeProto *const *a, size_t n,
                                           const char *name)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (a[i]->name && strcmp(a[i]->name, name) == 0)
            return a[i];
    return NULL;
}

/* An attribute as the call binds it; *owner the context whose scope holds its graphs. */
static const Onnx__AttributeProto *bind(const call_ctx *ctx, size_t at,
                                        const Onnx__AttributeProto *a, size_t *owner)
{
    unsigned hops = 0;
    *owner = at;
    while (a && a->ref_attr_name && a->ref_attr_name[0] && ctx[at].call && hops++ < 256) {
        const Onnx__AttributeProto *b =
            attr_of(ctx[at].call->attribute, ctx[at].call->n_attribute, a->ref_attr_name);
        if (!b)
            return ctx[at].fn ? attr_of(ctx[at].fn->defaults, ctx[at].fn->n_defaults,
                                        a->ref_attr_name)
                              : NULL;
        a = b;
        at = ctx[at].caller;
        *owner = at;
    }
    return a;
}

static int on_chain(const call_ctx *ctx, size_t at, const fn_ref *fn)
{
    unsigned hops = 0;
    for (; at && hops++ < 1024; at = ctx[at].caller)
        if (ctx[at].fn == fn)
            return 1;
    return 0;
}

/* Graphs an attribute holds, pushed in context `owner`; 0 when a bound is passed. */
static int push_graphs(item *stack, size_t *top, const Onnx__AttributeProto *a, size_t owner)
{
    size_t g;
    if (a->g) {
        if (*top == MAX_STACK)
            return 0;
        stack[(*top)++] = (item){ a->g->node, a->g->n_node, owner };
    }
    for (g = 0; g < a->n_graphs; g++) {
        if (*top == MAX_STACK)
            return 0;
        stack[(*top)++] = (item){ a->graphs[g]->node, a->graphs[g]->n_node, owner };
    }
    return 1;
}

/* The instances of every root graph, subgraph and expanded call. 0 when the walk passed
 * one of its own bounds (the input is then skipped). */
static int walk(const fn_ref *fns, size_t nfn, item *stack, size_t top, call_ctx *ctx,
                hist *h)
{
    size_t nctx = 1, i, a;
    unsigned work = 0;
    char ov[256];
    ctx[0] = (call_ctx){ NULL, NULL, 0 };
    while (top) {
        item it = stack[--top];
        for (i = 0; i < it.n; i++) {
            const Onnx__NodeProto *n = it.nodes[i];
            const fn_ref *fn = callee(fns, nfn, n, ov, sizeof(ov));
            if (++work > MAX_WORK)
                return 0;
            if (fn) {
                if (on_chain(ctx, it.ctx, fn))
                    continue; /* recursion: not expanded */
                if (nctx == MAX_CTX || top == MAX_STACK)
                    return 0;
                ctx[nctx] = (call_ctx){ fn, n, it.ctx };
                stack[top++] = (item){ fn->f->node, fn->f->n_node, nctx++ };
                continue;
            }
            hist_add(h, n->domain ? n->domain : "", n->op_type ? n->op_type : "", 1);
            for (a = 0; a < n->n_attribute; a++) {
                size_t owner;
                const Onnx__AttributeProto *b = bind(ctx, it.ctx, n->attribute[a], &owner);
                if (b && !push_graphs(stack, &top, b, owner))
                    return 0;
            }
        }
    }
    return 1;
}
/* The instances python3-onnx with onnxruntime's binding would run: main graph, training
 * graphs, every subgraph, every call expanded. 0 when a bound of the walk was passed. */
static int reference(const Onnx__ModelProto *m, hist *h)
{
    static item stack[MAX_STACK];
    static call_ctx ctx[MAX_CTX];
    fn_ref *fns = NULL;
    size_t top = 0, i, k, nfn = m->n_functions;
    int ok = 1;
    if (nfn && !(fns = calloc(nfn, sizeof(*fns))))
        return 0;
    for (i = 0; i < nfn; i++) {
        const ProtobufCMessage *b = &m->functions[i]->base;
        fns[i].f = m->functions[i];
        unknown_string(b, 13, fns[i].overload, sizeof(fns[i].overload));
        if (b->n_unknown_fields &&
            !(fns[i].defaults = calloc(b->n_unknown_fields, sizeof(*fns[i].defaults)))) {
            ok = 0;
            continue;
        }
        for (k = 0; k < b->n_unknown_fields; k++) {
            const uint8_t *p;
            size_t n;
            Onnx__AttributeProto *a;
            if (b->unknown_fields[k].tag != 11 || !unknown_payload(&b->unknown_fields[k], &p, &n))
                continue;
            if (!(a = onnx__attribute_proto__unpack(NULL, n, p))) {
                ok = 0; /* opmap read it: protobuf-c did not */
                continue;
            }
            fns[i].defaults[fns[i].n_defaults++] = a;
        }
    }
    if (m->graph)
        stack[top++] = (item){ m->graph->node, m->graph->n_node, 0 };
    /* training graphs: what a training runtime runs, and opmap scans them too */
    for (i = 0; i < m->n_training_info && top + 2 <= MAX_STACK; i++) {
        if (m->training_info[i]->initialization)
            stack[top++] = (item){ m->training_info[i]->initialization->node,
                                   m->training_info[i]->initialization->n_node, 0 };
        if (m->training_info[i]->algorithm)
            stack[top++] = (item){ m->training_info[i]->algorithm->node,
                                   m->training_info[i]->algorithm->n_node, 0 };
    }
    if (i < m->n_training_info)
        ok = 0;
    if (ok)
        ok = walk(fns, nfn, stack, top, ctx, h);
    for (i = 0; i < nfn; i++) {
        for (k = 0; k < fns[i].n_defaults; k++)
            onnx__attribute_proto__free_unpacked(fns[i].defaults[k], NULL);
        free(fns[i].defaults);
    }
    free(fns);
    return ok;
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
    {
        /* default limits but a walk bounded like the reference's: a fan-out of calls at the
         * default 10 million expansions runs for minutes under the sanitizers, and a walk
         * opmap refuses by a limit is not a difference of readings */
        opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
        o.limits.max_nodes = 200000;
        o.limits.max_expansions = 200000;
        FZ_CHECK(opmap_ctx_new(&ctx, &o, &err) == OPMAP_OK, "%s", err.message);
    }
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
