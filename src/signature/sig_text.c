/*
 * signature/sig_text.c - a signature's canonical text (see signature.h):
 *
 *   aten::add.Tensor(float32[2,16,64], float32[64], alpha=1)
 *   ai.onnx::Resize@13(float32[1,3,20,20], -, float32[4]{1.0,1.0,2.0,2.0}){mode='cubic'}
 *
 * A tensor is dtype[dims] (a symbolic dimension by its name, an unknown one '?', an unknown
 * rank '*', '?' alone when nothing is known), with {values} when it is a small constant; a
 * list of tensors [t,t]; constants as Python writes them (None, True, 1e-05, 'mean'). Only
 * printable ASCII is written: names that are not identifiers, and every string, are quoted
 * with \xHH escapes, so the text is the same wherever it is stored.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "signature.h"

typedef struct sw {
    char *buf;
    size_t size, len;   /* bytes kept in buf (size - 1 at most) */
    size_t total;       /* bytes written, kept or not */
    uint64_t h;         /* over all of them: the tail a long text ends with */
} sw;

static void put(sw *w, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        w->h = om_hash_byte(w->h, (unsigned char)s[i]);
        if (w->len + 1 < w->size)
            w->buf[w->len++] = s[i];
    }
    w->total += n;
}

static void puts_(sw *w, const char *s) { put(w, s, strlen(s)); }

/* An integer, after `prefix`. */
static void putf(sw *w, const char *prefix, int64_t v)
{
    char b[32];
    puts_(w, prefix);
    snprintf(b, sizeof(b), "%" PRId64, v);
    puts_(w, b);
}

/* A string as a quoted literal: printable ASCII kept, everything else escaped. */
static void quoted(sw *w, const char *s, size_t n)
{
    size_t i;
    put(w, "'", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[8];
        if (c == '\'' || c == '\\') {
            e[0] = '\\', e[1] = (char)c;
            put(w, e, 2);
        } else if (c >= 0x20 && c < 0x7f) {
            put(w, (const char *)&c, 1);
        } else {
            snprintf(e, sizeof(e), "\\x%02x", c);
            put(w, e, 4);
        }
    }
    put(w, "'", 1);
}

/* A name: bare when it is an identifier (dots allowed: "ai.onnx"), else quoted. */
static void name(sw *w, const char *s)
{
    size_t i, n = strlen(s);
    int ok = n > 0;
    for (i = 0; ok && i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
             (i && c >= '0' && c <= '9');
    }
    if (ok)
        put(w, s, n);
    else
        quoted(w, s, n);
}

static void number(sw *w, double v, int single)
{
    char b[48];
    om_sig_float(v, single, b, sizeof(b));
    puts_(w, b);
}

static int is_float_dtype(int32_t dt)
{
    return dt == IR_DT_FLOAT || dt == IR_DT_FLOAT16 || dt == IR_DT_BFLOAT16 ||
           dt == IR_DT_DOUBLE;
}

/* {v,v,...}: a small constant's values, as the model stores them. */
static void values(sw *w, const ir_tensor *t)
{
    uint32_t i;
    put(w, "{", 1);
    for (i = 0; i < t->n_values; i++) {
        if (i)
            put(w, ",", 1);
        double v = t->values[i];
        char n[48];
        if (is_float_dtype(t->dtype) || !om_sig_integer(v, n, sizeof(n)))
            number(w, v, t->dtype != IR_DT_DOUBLE);
        else
            puts_(w, n);
    }
    put(w, "}", 1);
}

static void tensor(sw *w, const ir_fact *f)
{
    int32_t rank = om_sig_rank(f), d;
    if (!f->dtype && rank < 0) {
        put(w, "?", 1);
        return;
    }
    puts_(w, f->dtype ? ir_dtype_name(f->dtype) : "?");
    if (rank < 0) {
        put(w, "[*]", 3);
        return;
    }
    put(w, "[", 1);
    for (d = 0; d < rank; d++) {
        int64_t v;
        const char *param;
        if (d)
            put(w, ",", 1);
        if (!om_sig_dim(f, d, &v, &param))
            put(w, "?", 1);
        else if (param)
            name(w, param);
        else
            putf(w, "", v);
    }
    put(w, "]", 1);
    if (f->value && f->value->values && f->value->n_values &&
        f->value->n_values <= OM_SIG_MAX_VALUES)
        values(w, f->value);
}

static void int_list(sw *w, const int64_t *v, size_t n)
{
    size_t i;
    put(w, "[", 1);
    for (i = 0; i < n; i++) {
        if (i)
            put(w, ",", 1);
        putf(w, "", v[i]);
    }
    put(w, "]", 1);
}

static void float_list(sw *w, const double *v, size_t n, int single)
{
    size_t i;
    put(w, "[", 1);
    for (i = 0; i < n; i++) {
        if (i)
            put(w, ",", 1);
        number(w, v[i], single);
    }
    put(w, "]", 1);
}

static void arg(sw *w, const om_sig_arg *a)
{
    uint32_t i;
    if (a->name) {
        name(w, a->name);
        put(w, "=", 1);
    }
    switch (a->kind) {
    case OM_SIG_TENSOR: tensor(w, a->fact); break;
    case OM_SIG_TENSORS:
        put(w, "[", 1);
        for (i = 0; i < a->n; i++) {
            if (i)
                put(w, ",", 1);
            tensor(w, &a->fact[i]);
        }
        put(w, "]", 1);
        break;
    case OM_SIG_OMITTED: put(w, "-", 1); break;
    case OM_SIG_NONE: puts_(w, "None"); break;
    case OM_SIG_BOOL: puts_(w, a->value->i ? "True" : "False"); break;
    case OM_SIG_INT: putf(w, "", a->value->i); break;
    case OM_SIG_FLOAT: number(w, a->value->f, 0); break;
    case OM_SIG_STRING: quoted(w, a->value->s.data ? a->value->s.data : "", a->value->s.size); break;
    case OM_SIG_INTS: int_list(w, a->value->ints, a->value->n_ints); break;
    case OM_SIG_FLOATS: float_list(w, a->value->floats, a->value->n_floats, 0); break;
    default: puts_(w, "<unknown>"); break;
    }
}

/* An ONNX attribute tensor: tensor(dtype[dims]{values}). */
static void attr_tensor(sw *w, const ir_tensor *t)
{
    ir_fact f;
    memset(&f, 0, sizeof(f));
    f.dtype = t->dtype;
    f.rank = (int32_t)t->ndims;
    f.value = t;
    puts_(w, "tensor(");
    tensor(w, &f);
    put(w, ")", 1);
}

static void attr_value(sw *w, const ir_attr *a)
{
    size_t i;
    if (a->ref_attr_name) {
        puts_(w, "<ref ");
        name(w, a->ref_attr_name);
        put(w, ">", 1);
        return;
    }
    switch (a->type) {
    case IR_ATTR_INT: putf(w, "", a->i); break;
    case IR_ATTR_FLOAT: number(w, a->f, 1); break;
    case IR_ATTR_STRING: quoted(w, a->s.data ? a->s.data : "", a->s.size); break;
    case IR_ATTR_INTS: int_list(w, a->ints, a->n_ints); break;
    case IR_ATTR_FLOATS: float_list(w, a->floats, a->n_floats, 1); break;
    case IR_ATTR_STRINGS:
        put(w, "[", 1);
        for (i = 0; i < a->n_strings; i++) {
            if (i)
                put(w, ",", 1);
            quoted(w, a->strings[i].data ? a->strings[i].data : "", a->strings[i].size);
        }
        put(w, "]", 1);
        break;
    case IR_ATTR_TENSOR:
        if (a->n_tensors) {
            attr_tensor(w, &a->tensors[0]);
            break;
        }
        puts_(w, "<tensor>");
        break;
    case IR_ATTR_GRAPH:
    case IR_ATTR_GRAPHS: puts_(w, "<graph>"); break;
    default: putf(w, "<type ", a->type);
        put(w, ">", 1);
        break;
    }
}

static void attrs(sw *w, const ir_node *n)
{
    const ir_attr *sorted[OM_SIG_MAX_ATTRS];
    size_t i, k = om_sig_attrs(n, sorted);
    if (!n->n_attrs)
        return;
    put(w, "{", 1);
    if (!k)
    {
        putf(w, "...", (int64_t)n->n_attrs);
        puts_(w, " attributes");
    }
    for (i = 0; i < k; i++) {
        if (i)
            put(w, ", ", 2);
        name(w, sorted[i]->name ? sorted[i]->name : "");
        put(w, "=", 1);
        attr_value(w, sorted[i]);
    }
    put(w, "}", 1);
}

/* Past the buffer: its end becomes "...#<hash of the whole text>", on a whole byte. */
static size_t finish(sw *w)
{
    char tail[24];
    size_t keep;
    if (w->total < w->size) {
        w->buf[w->len] = '\0';
        return w->len;
    }
    snprintf(tail, sizeof(tail), "...#%016" PRIx64, w->h);
    keep = w->size - 1 - strlen(tail);
    memcpy(w->buf + keep, tail, strlen(tail) + 1);
    return keep + strlen(tail);
}

size_t om_sig_text(const om_sig *s, char *buf, size_t size)
{
    sw w = { buf, size, 0, 0, OM_HASH_SEED };
    uint32_t i;
    name(&w, s->domain);
    put(&w, "::", 2);
    name(&w, s->op);
    if (s->overload) {
        put(&w, ".", 1);
        name(&w, s->overload);
    }
    if (s->opset)
        putf(&w, "@", s->opset);
    put(&w, "(", 1);
    for (i = 0; i < s->n_args; i++) {
        if (i)
            put(&w, ", ", 2);
        arg(&w, &s->args[i]);
    }
    if (s->more)
        putf(&w, ", ...+", (int64_t)s->more);
    put(&w, ")", 1);
    if (!s->aten)
        attrs(&w, s->node);
    return finish(&w);
}

void om_sig_test_id(const char *op, const char *sig, char *id, size_t size)
{
    size_t i, k = 0;
    if (!size)
        return;
    for (i = 0; op[i] && k + 1 < 48 && k + 1 < size; i++) {
        char ch = op[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (ok || (k && id[k - 1] != '_'))
            id[k++] = ok ? ch : '_';
    }
    snprintf(id + k, size - k, "_%012llx",
             (unsigned long long)(om_hash_name(sig) & 0xffffffffffffull));
}
