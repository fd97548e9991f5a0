/*
 * signature/signature.c - one instance's signature (see signature.h): its arguments
 * classified, dimensions and ranks read from the facts, attributes in canonical order.
 */
#include "signature.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One argument of an ATen call: a constant keeps its value, a passed value its facts. */
static void aten_arg(om_sig_arg *a, const ir_node *n, const ir_attr *x)
{
    a->name = x->name;
    a->value = x;
    if (x->arg_kind == IR_ARG_NONE) {
        a->kind = OM_SIG_NONE;
        return;
    }
    switch (x->type) {
    case IR_ATTR_INT: a->kind = x->arg_kind == IR_ARG_BOOL ? OM_SIG_BOOL : OM_SIG_INT; return;
    case IR_ATTR_FLOAT: a->kind = OM_SIG_FLOAT; return;
    case IR_ATTR_STRING: a->kind = OM_SIG_STRING; return;
    case IR_ATTR_INTS: a->kind = OM_SIG_INTS; return;
    case IR_ATTR_FLOATS: a->kind = OM_SIG_FLOATS; return;
    default: break;
    }
    a->value = NULL;
    if (x->arg_kind != IR_ARG_INPUTS || !n->in_facts || !x->arg_inputs ||
        x->arg_input >= n->n_inputs || x->arg_inputs > n->n_inputs - x->arg_input)
        return; /* OM_SIG_UNKNOWN */
    a->fact = &n->in_facts[x->arg_input];
    a->n = x->arg_inputs;
    a->kind = x->arg_inputs == 1 ? OM_SIG_TENSOR : OM_SIG_TENSORS;
}

void om_sig_build(om_sig *s, const ir_node *n, const char *domain, const char *op,
                  int64_t opset)
{
    uint32_t i, count;
    memset(s, 0, sizeof(*s));
    s->domain = domain;
    s->op = op;
    s->opset = opset;
    s->node = n;
    s->aten = n->n_args > 0;
    count = s->aten ? n->n_args : n->n_inputs;
    s->n_args = count < OM_SIG_MAX_ARGS ? count : OM_SIG_MAX_ARGS;
    s->more = count - s->n_args;
    if (s->aten) {
        const ir_attr *ov = ir_node_attr(n, "overload");
        if (ov && ov->type == IR_ATTR_STRING && ov->s.data && ov->s.data[0])
            s->overload = ov->s.data;
        for (i = 0; i < s->n_args; i++)
            aten_arg(&s->args[i], n, &n->args[i]);
        return;
    }
    for (i = 0; i < s->n_args; i++) {
        om_sig_arg *a = &s->args[i];
        if (!n->inputs[i][0]) {
            a->kind = OM_SIG_OMITTED;
        } else if (n->in_facts) {
            a->kind = OM_SIG_TENSOR;
            a->fact = &n->in_facts[i];
            a->n = 1;
        }
    }
}

int32_t om_sig_rank(const ir_fact *f)
{
    if (f->rank >= 0)
        return f->rank;
    return f->value ? (int32_t)f->value->ndims : -1;
}

int om_sig_dim(const ir_fact *f, int32_t d, int64_t *value, const char **param)
{
    *value = -1;
    *param = NULL;
    if (d < 0 || d >= om_sig_rank(f))
        return 0;
    if (f->dims) {
        if (f->dims[d].param && f->dims[d].param[0])
            *param = f->dims[d].param;
        else if (f->dims[d].value >= 0)
            *value = f->dims[d].value;
        return *param || *value >= 0;
    }
    if (f->value && (int32_t)f->value->ndims == om_sig_rank(f) && f->value->dims[d] >= 0) {
        *value = f->value->dims[d];
        return 1;
    }
    return 0;
}

/* Name order, then file order: qsort's comparison over pointers into one array. */
static int attr_cmp(const void *a, const void *b)
{
    const ir_attr *x = *(const ir_attr *const *)a, *y = *(const ir_attr *const *)b;
    int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
    return c ? c : x < y ? -1 : x > y;
}

size_t om_sig_attrs(const ir_node *n, const ir_attr **out)
{
    uint32_t i;
    if (n->n_attrs > OM_SIG_MAX_ATTRS)
        return 0;
    for (i = 0; i < n->n_attrs; i++)
        out[i] = &n->attrs[i];
    qsort(out, n->n_attrs, sizeof(*out), attr_cmp);
    return n->n_attrs;
}

/* The decimal point as '.', whatever LC_NUMERIC made printf write (as jsonw.c does). */
static void c_locale_point(char *buf)
{
    size_t i, k = 0;
    for (i = 0; buf[i]; i++) {
        unsigned char c = (unsigned char)buf[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e')
            buf[k++] = (char)c;
        else if ((c < 0x80 || !(c & 0x40)) && (k == 0 || buf[k - 1] != '.'))
            buf[k++] = '.';
    }
    buf[k] = '\0';
}

void om_sig_float(double v, int single, char *buf, size_t size)
{
    int p;
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v < 0 ? "-inf" : "inf");
        return;
    }
    for (p = 1; p <= 17; p++) {
        double back;
        snprintf(buf, size, "%.*g", p, v);
        back = strtod(buf, NULL); /* the same locale both ways */
        if (single ? (float)back == (float)v : back == v)
            break;
    }
    c_locale_point(buf);
    if (!strpbrk(buf, ".e") && strlen(buf) + 2 < size)
        strcat(buf, ".0"); /* "1.0", not "1": a float reads as one */
}

int om_sig_integer(double v, char *buf, size_t size)
{
    if (!(v >= -1e20 && v <= 1e20) || floor(v) != v)
        return 0;
    snprintf(buf, size, "%.0f", v); /* no decimal point: the same in every locale */
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, size, "0");
    return 1;
}
