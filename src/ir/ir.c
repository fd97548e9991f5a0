/*
 * ir/ir.c - dtype names, domains, look-ups and interning for the IR (see ir.h).
 */
#include "ir.h"
#include "core/hash.h"

#include <string.h>

static const char *const dtype_names[IR_DT_COUNT] = {
    "unknown", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
    "bool", "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "uint4", "int4",
    "float4_e2m1"
};

const char *ir_dtype_name(int dtype)
{
    if (dtype <= 0 || dtype >= IR_DT_COUNT)
        return "unknown";
    return dtype_names[dtype];
}

int ir_dtype_from_name(const char *name)
{
    int i;
    for (i = 1; i < IR_DT_COUNT; i++)
        if (strcmp(dtype_names[i], name) == 0)
            return i;
    return IR_DT_UNDEFINED;
}

const char *ir_canon_domain(const char *domain)
{
    if (!domain || !domain[0] || strcmp(domain, "ai.onnx") == 0)
        return "ai.onnx";
    return domain;
}

int64_t ir_opset_version(const ir_opset *opsets, size_t n, const char *domain)
{
    size_t i;
    domain = ir_canon_domain(domain);
    /* a domain imported twice: the last import counts, as onnx's checker reads it */
    for (i = n; i-- > 0;)
        if (opsets[i].domain == domain || strcmp(opsets[i].domain, domain) == 0)
            return opsets[i].version;
    return 0;
}

int ir_node_scalar_only(const ir_node *n)
{
    uint32_t i;
    if (n->scalar_out)
        return 1;
    if (!n->out_types || !n->n_outputs)
        return 0;
    for (i = 0; i < n->n_outputs; i++) {
        int k = n->out_types[i].kind;
        if (k != IR_TYPE_OTHER && k != IR_TYPE_SEQUENCE && k != IR_TYPE_OPTIONAL &&
            k != IR_TYPE_MAP)
            return 0;
    }
    return 1;
}

const ir_attr *ir_node_attr(const ir_node *node, const char *name)
{
    uint32_t i;
    for (i = 0; i < node->n_attrs; i++)
        if (strcmp(node->attrs[i].name, name) == 0)
            return &node->attrs[i];
    return NULL;
}

/* ---- interning: open addressing over FNV-1a ---- */

static uint64_t hash_bytes(const char *s, size_t n)
{
    return om_hash_bytes(OM_HASH_SEED, s, n);
}

void ir_intern_init(ir_interner *t, om_mem *mem, om_arena *arena)
{
    memset(t, 0, sizeof(*t));
    t->mem = mem;
    t->arena = arena;
}

static int grow(ir_interner *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 256, i;
    const char **ns = om_calloc(t->mem, ncap, sizeof(*ns));
    if (!ns)
        return 0;
    for (i = 0; i < t->cap; i++) {
        const char *s = t->slots[i];
        size_t j;
        if (!s)
            continue;
        j = hash_bytes(s, strlen(s)) & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = s;
    }
    if (t->slots)
        om_dealloc(t->mem, t->slots, t->cap * sizeof(*t->slots));
    t->slots = ns;
    t->cap = ncap;
    return 1;
}

const char *ir_intern(ir_interner *t, const char *s, size_t n)
{
    size_t j;
    char *copy;
    if ((t->len + 1) * 2 > t->cap && !grow(t))
        return NULL;
    j = hash_bytes(s, n) & (t->cap - 1);
    while (t->slots[j]) {
        const char *e = t->slots[j];
        if (strncmp(e, s, n) == 0 && e[n] == '\0' && memchr(s, '\0', n) == NULL)
            return e;
        j = (j + 1) & (t->cap - 1);
    }
    copy = om_arena_strndup(t->arena, s, n);
    if (!copy)
        return NULL;
    t->slots[j] = copy;
    t->len++;
    return copy;
}

void ir_intern_free(ir_interner *t)
{
    if (t->slots)
        om_dealloc(t->mem, t->slots, t->cap * sizeof(*t->slots));
    memset(t, 0, sizeof(*t));
}
