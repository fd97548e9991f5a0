/*
 * testgen/swaps.c - a test per fused-kernel swap the scan advised (data/patterns.yaml,
 * docs/testgen.md, "Swap tests"): at a place of the pattern, the written-out form the
 * model has against the fused kernel the advice names, with the shapes the model states
 * there; in a training scan the gradients too. The harness (data/testgen/harness.py,
 * SWAPS) holds both forms per pattern; this file writes the case: kind "swap", the pattern
 * as target, its tensors, and `k` for the MoE router.
 */
#include <stdio.h>
#include <string.h>

#include "testgen_internal.h"

/* The patterns the harness has both forms of, and the tensors each takes from the
 * shape of the place (the pattern's last operator): x's shape for every tensor, or the
 * last dimension (a norm's weight). */
typedef struct swap_kind {
    const char *id;
    const char *args;          /* one letter per tensor: 'x' the place's shape, 'w' its last
                                  dimension, 'i' the place's input 0 (the router's logits) */
} swap_kind;

static const swap_kind kinds[] = {
    { "rmsnorm", "xw" },   { "layernorm", "xww" }, { "gelu", "x" },  { "swiglu", "xx" },
    { "rotary", "xxx" },   { "attention", "xxx" }, { "moe_router", "i" },
};

static const swap_kind *kind_of(const char *id)
{
    size_t i;
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(kinds[i].id, id) == 0)
            return &kinds[i];
    return NULL;
}

int tg_swap_supported(const char *pattern) { return kind_of(pattern) != NULL; }

/* "float32[2,16,64]" of a tensor's facts (last dimension only with `last`); 0 when the
 * model does not state its dtype or every dimension. */
static int shape_text(const ir_fact *f, int last, char *out, size_t size)
{
    int32_t rank = om_sig_rank(f), d;
    size_t used;
    const char *dt = ir_dtype_name(f->dtype);
    if (rank < 1 || !f->dtype || strcmp(dt, "unknown") == 0)
        return 0;
    used = (size_t)snprintf(out, size, "%s[", dt);
    for (d = last ? rank - 1 : 0; d < rank && used < size; d++) {
        int64_t v;
        const char *param;
        if (!om_sig_dim(f, d, &v, &param) || param)
            return 0;
        used += (size_t)snprintf(out + used, size - used, "%s%lld", d > (last ? rank - 1 : 0)
                                 ? "," : "", (long long)v);
    }
    if (used + 2 > size)
        return 0;
    out[used++] = ']';
    out[used] = 0;
    return 1;
}

/* The router's k: TopK's constant input 1 (opset >= 10) or attribute k; 0 when unknown. */
static int64_t router_k(const ir_node *n)
{
    const ir_attr *a = ir_node_attr(n, "k");
    if (a && a->type == IR_ATTR_INT)
        return a->i;
    if (n->n_inputs > 1 && n->in_facts && n->in_facts[1].value &&
        n->in_facts[1].value->n_values == 1 && n->in_facts[1].value->values)
        return (int64_t)n->in_facts[1].value->values[0];
    if (n->n_args > 1 && n->args[1].type == IR_ATTR_INT) /* aten::topk(x, k, ...) */
        return n->args[1].i;
    return 0;
}

/* Signature text and harness code of the swap at node n; *skip says why it cannot run. */
int tg_swap_code(const char *pattern, const ir_node *n, int training, tg_buf *code,
                 char *sig, size_t sig_size, char *skip)
{
    const swap_kind *k = kind_of(pattern);
    const ir_fact *x = n->out_facts && n->n_outputs ? &n->out_facts[0] : NULL;
    const ir_fact *in0 = n->in_facts && n->n_inputs ? &n->in_facts[0] : NULL;
    char full[256], last[256];
    size_t i, used;
    int64_t topk = 0;
    skip[0] = 0;
    if (!k)
        return 0;
    if (k->args[0] == 'i')
        x = in0;
    if (!x || !shape_text(x, 0, full, sizeof(full)) || !shape_text(x, 1, last, sizeof(last))) {
        snprintf(skip, 256, "the model does not state the shape at the pattern's place");
        snprintf(full, sizeof(full), "?");
        snprintf(last, sizeof(last), "?");
    }
    if (strcmp(pattern, "moe_router") == 0 && (topk = router_k(n)) <= 0 && !skip[0])
        snprintf(skip, 256, "the router's k is computed at run time");
    used = (size_t)snprintf(sig, sig_size, "swap::%s(", pattern);
    for (i = 0; k->args[i] && used < sig_size; i++)
        used += (size_t)snprintf(sig + used, sig_size - used, "%s%s", i ? ", " : "",
                                 k->args[i] == 'w' ? last : full);
    if (used < sig_size)
        used += (size_t)snprintf(sig + used, sig_size - used, ")%s", training ? "+backward" : "");
    if (topk > 0 && used < sig_size)
        snprintf(sig + used, sig_size - used, "{k=%lld}", (long long)topk);
    /* the harness case: kind, target, tensors (T(dtype, shape) from the text above) */
    tg_puts(code, "\"swap\", ");
    tg_py_str(code, pattern, strlen(pattern));
    tg_puts(code, ",\n         [");
    for (i = 0; k->args[i]; i++) {
        const char *t = k->args[i] == 'w' ? last : full, *br = strchr(t, '[');
        tg_puts(code, i ? ", " : "");
        if (!br) {
            tg_puts(code, "None");
            continue;
        }
        tg_puts(code, "T(\"");
        tg_put(code, t, (size_t)(br - t));
        tg_puts(code, "\", ");
        tg_puts(code, br);
        tg_puts(code, ")");
    }
    tg_puts(code, "],\n         kwargs={}, attrs={");
    if (topk > 0) {
        tg_puts(code, "\"k\": ");
        tg_int(code, topk);
        /* training advises the router kernel with a backward (data/patterns.yaml) */
        tg_puts(code, training ? ", \"kernel\": \"npu_moe_gating_top_k\", " : "");
    }
    tg_puts(code, training ? "\"backward\": True" : "");
    tg_puts(code, "}, opset=0,\n         outs=[]");
    return 1;
}
