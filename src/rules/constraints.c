/*
 * rules/constraints.c - evaluating declarative constraints (docs/table-format.md).
 */
#include "constraints.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"

/* An attribute value as the comparisons see it. */
typedef struct val {
    int kind;               /* OM_VAL_NUM, OM_VAL_STR or OM_VAL_LIST */
    double num;
    const char *str;
    size_t n;
    const int64_t *ints;    /* list attributes */
    const double *floats;
    const ir_bytes *strings;
    const om_value *list;   /* a table default that is a list */
    uint8_t single;         /* a float32 the model stores (ONNX FLOAT/FLOATS attributes) */
} val;

/*
 * The table's operand at the precision the model stores the value in: ONNX keeps float
 * attributes as float32, so epsilon=1e-5 is 9.99999975e-06 in the file, and comparing it as
 * a double against 1e-5 would call the default "less than 1e-5".
 */
static double operand(const val *a, double table_value)
{
    return a->single ? (double)(float)table_value : table_value;
}

static int from_attr(const ir_attr *a, val *v)
{
    memset(v, 0, sizeof(*v));
    switch (a->type) {
    case IR_ATTR_INT: v->kind = OM_VAL_NUM; v->num = (double)a->i; return 1;
    case IR_ATTR_FLOAT: v->kind = OM_VAL_NUM; v->num = a->f; v->single = 1; return 1;
    case IR_ATTR_STRING: v->kind = OM_VAL_STR; v->str = a->s.data ? a->s.data : ""; return 1;
    case IR_ATTR_INTS: v->kind = OM_VAL_LIST; v->n = a->n_ints; v->ints = a->ints; return 1;
    case IR_ATTR_FLOATS:
        v->kind = OM_VAL_LIST;
        v->n = a->n_floats;
        v->floats = a->floats;
        v->single = 1;
        return 1;
    case IR_ATTR_STRINGS: v->kind = OM_VAL_LIST; v->n = a->n_strings; v->strings = a->strings; return 1;
    default: return 0;
    }
}

static void from_value(const om_value *o, val *v)
{
    memset(v, 0, sizeof(*v));
    if (o->kind == OM_VAL_LIST) {
        v->kind = OM_VAL_LIST;
        v->n = o->n;
        v->list = o->list;
    } else if (o->kind == OM_VAL_STR) {
        v->kind = OM_VAL_STR;
        v->str = o->str;
    } else {
        v->kind = OM_VAL_NUM; /* numbers and booleans (1/0) */
        v->num = o->num;
    }
}

/* Element i of a list value, as a scalar val. */
static val element(const val *v, size_t i)
{
    val e;
    memset(&e, 0, sizeof(e));
    if (v->ints) {
        e.kind = OM_VAL_NUM;
        e.num = (double)v->ints[i];
    } else if (v->floats) {
        e.kind = OM_VAL_NUM;
        e.num = v->floats[i];
        e.single = v->single;
    } else if (v->strings) {
        e.kind = OM_VAL_STR;
        e.str = v->strings[i].data;
    } else if (v->list) {
        from_value(&v->list[i], &e);
    }
    return e;
}

static int scalar_eq(const val *a, const om_value *b)
{
    if (a->kind == OM_VAL_STR)
        return b->kind == OM_VAL_STR && strcmp(a->str, b->str) == 0;
    double y;
    if (b->kind != OM_VAL_NUM && b->kind != OM_VAL_BOOL)
        return 0;
    y = operand(a, b->num);
    return a->num == y || fabs(a->num - y) <= 1e-12 * fabs(y);
}

static int eq(const val *a, const om_value *b)
{
    size_t i;
    if (a->kind != OM_VAL_LIST)
        return b->kind != OM_VAL_LIST && scalar_eq(a, b);
    if (b->kind != OM_VAL_LIST || b->n != a->n)
        return 0;
    for (i = 0; i < a->n; i++) {
        val e = element(a, i);
        if (!scalar_eq(&e, &b->list[i]))
            return 0;
    }
    return 1;
}

static int member(const val *a, const om_value *set)
{
    size_t i;
    for (i = 0; i < set->n; i++)
        if (scalar_eq(a, &set->list[i]))
            return 1;
    return 0;
}

static int order(double x, int cmp, double y)
{
    switch (cmp) {
    case OM_CMP_LT: return x < y;
    case OM_CMP_LE: return x <= y;
    case OM_CMP_GT: return x > y;
    default: return x >= y;
    }
}

/* Scalars compare directly; lists hold for ordering and set tests when any element does. */
static int compare(const val *a, int cmp, const om_value *b)
{
    size_t i;
    switch (cmp) {
    case OM_CMP_EQ: return eq(a, b);
    case OM_CMP_NE: return !eq(a, b);
    case OM_CMP_IN:
    case OM_CMP_NOT_IN:
        if (a->kind != OM_VAL_LIST)
            return member(a, b) == (cmp == OM_CMP_IN);
        for (i = 0; i < a->n; i++) {
            val e = element(a, i);
            if (member(&e, b) == (cmp == OM_CMP_IN))
                return 1;
        }
        return 0;
    default:
        if (a->kind == OM_VAL_NUM)
            return order(a->num, cmp, operand(a, b->num));
        for (i = 0; a->kind == OM_VAL_LIST && i < a->n; i++) {
            val e = element(a, i);
            if (e.kind == OM_VAL_NUM && order(e.num, cmp, operand(&e, b->num)))
                return 1;
        }
        return 0;
    }
}

static void print_scalar(const val *v, char *buf, size_t size)
{
    if (v->kind == OM_VAL_STR)
        snprintf(buf, size, "%s", v->str ? v->str : "");
    else if (v->num == floor(v->num) && fabs(v->num) < 1e15)
        snprintf(buf, size, "%.0f", v->num);
    else
        snprintf(buf, size, "%g", v->num);
}

static void print_val(const val *v, char *buf, size_t size)
{
    size_t i, used;
    if (v->kind != OM_VAL_LIST) {
        print_scalar(v, buf, size);
        return;
    }
    used = (size_t)snprintf(buf, size, "[");
    for (i = 0; i < v->n && used + 8 < size; i++) {
        val e = element(v, i);
        used += (size_t)snprintf(buf + used, size - used, "%s", i ? ", " : "");
        if (used < size)
            print_scalar(&e, buf + used, size - used);
        used = strlen(buf);
    }
    if (i < v->n && used + 6 < size)
        used += (size_t)snprintf(buf + used, size - used, ", ...");
    if (used + 2 <= size)
        snprintf(buf + used, size - used, "]");
    else if (size >= 2)
        buf[size - 2] = ']'; /* cut short: still a closed list */
}

static const ir_attr omitted;

/* A TorchScript argument of `c`: by keyword, else by position; &omitted when not passed. */
static const ir_attr *argument(const ir_node *n, const om_constraint *c)
{
    uint32_t i;
    for (i = 0; i < n->n_args; i++)
        if (n->args[i].name && strcmp(n->args[i].name, c->attr) == 0)
            return &n->args[i];
    if ((uint32_t)c->arg < n->n_args && !n->args[c->arg].name)
        return &n->args[c->arg];
    return &omitted;
}

static const ir_fact *tensor_fact(const om_constraint *c, const ir_node *n)
{
    if (c->on_output)
        return c->index < n->n_outputs && n->out_facts ? &n->out_facts[c->index] : NULL;
    if (c->index >= n->n_inputs || !n->inputs[c->index][0] || !n->in_facts)
        return NULL; /* an omitted optional input is neither constant nor anything else */
    return &n->in_facts[c->index];
}

static int holds_one(const om_constraint *c, const ir_node *n, char *actual, size_t size);

int om_constraint_holds(const om_constraint *c, const ir_node *n, char *actual, size_t size)
{
    char part[200];
    size_t i, used;
    /* whether it holds never depends on how long the text of the values is */
    if (!holds_one(c, n, actual, size))
        return 0;
    for (i = 0; i < c->n_also; i++)
        if (!holds_one(&c->also[i], n, part, sizeof(part)))
            return 0;
    used = strlen(actual);
    for (i = 0; i < c->n_also; i++) {
        holds_one(&c->also[i], n, part, sizeof(part));
        om_appendf(actual, size, &used, "; %s", part);
    }
    return 1;
}

static int holds_one(const om_constraint *c, const ir_node *n, char *actual, size_t size)
{
    const ir_fact *f;
    char text[200];
    val v;
    switch (c->subject) {
    case OM_SUBJ_ATTR_COUNT: {
        /* how many values a list attribute holds; an absent attribute holds none */
        const ir_attr *a = ir_node_attr(n, c->attr);
        size_t count = !a ? 0 : a->type == IR_ATTR_INTS ? a->n_ints
                     : a->type == IR_ATTR_FLOATS ? a->n_floats
                     : a->type == IR_ATTR_STRINGS ? a->n_strings : 1;
        memset(&v, 0, sizeof(v));
        v.kind = OM_VAL_NUM;
        v.num = (double)count;
        if (!compare(&v, c->cmp, &c->value))
            return 0;
        snprintf(actual, size, "%s has %zu value%s", c->attr, count, count == 1 ? "" : "s");
        return 1;
    }
    case OM_SUBJ_ATTR: {
        const ir_attr *a = ir_node_attr(n, c->attr);
        if (c->cmp == OM_CMP_ABSENT) {
            /* on TorchScript nodes an argument not passed takes the schema's default, so
             * only attribute-carrying (ONNX) nodes can lack one */
            if (a || n->args)
                return 0;
            snprintf(actual, size, "%s absent", c->attr);
            return 1;
        }
        if (!a && c->arg >= 0 && n->args) {
            /* TorchScript: the argument at its schema position (or passed by keyword) */
            const ir_attr *x = argument(n, c);
            if (x == &omitted)
                x = NULL; /* not passed: the schema default applies */
            else if (!x || x->type == IR_ATTR_UNDEFINED)
                return 0; /* computed at run time: nothing to show */
            a = x;
        }
        if (a) {
            if (!from_attr(a, &v))
                return 0;
            if (a != ir_node_attr(n, c->attr))
                v.single = 0; /* TorchScript arguments are doubles */
        } else if (c->has_default) {
            from_value(&c->def, &v);
        } else {
            return 0;
        }
        if (!compare(&v, c->cmp, &c->value))
            return 0;
        print_val(&v, text, sizeof(text));
        snprintf(actual, size, "%s=%s%s", c->attr, text, a ? "" : " (default)");
        return 1;
    }
    case OM_SUBJ_CONST:
        if (!(f = tensor_fact(c, n)))
            return 0;
        if (c->cmp == OM_CMP_NOT_FOLDED) {
            /* shape arithmetic (Shape -> Gather -> Concat ...) is folded by ATC's graph
             * engine once the input shapes are fixed, as the proposed --input_shape does */
            if (f->is_const || f->is_shape)
                return 0;
            snprintf(actual, size, "%s %u is computed at run time from tensor values",
                     c->on_output ? "output" : "input", c->index);
            return 1;
        }
        if ((c->cmp == OM_CMP_IS_CONST) != (f->is_const != 0))
            return 0;
        snprintf(actual, size, "%s %u %s", c->on_output ? "output" : "input", c->index,
                 f->is_const ? "is constant" : "is not constant");
        return 1;
    case OM_SUBJ_RANK: {
        /* a rank-only reading (a Reshape to sizes computed at run time, ir/shapes.c) counts
         * where no rank is declared or inferred: the condition is on the rank alone */
        int32_t rank;
        if (!(f = tensor_fact(c, n)))
            return 0;
        rank = f->rank >= 0 ? f->rank : f->rank_only ? (int32_t)f->rank_only : -1;
        if (rank < 0)
            return 0;
        memset(&v, 0, sizeof(v));
        v.kind = OM_VAL_NUM;
        v.num = rank;
        if (!compare(&v, c->cmp, &c->value))
            return 0;
        snprintf(actual, size, "rank(%s %u)=%d%s", c->on_output ? "output" : "input", c->index,
                 (int)rank, f->rank < 0 ? " (its sizes computed at run time)" : "");
        return 1;
    }
    case OM_SUBJ_DTYPE:
        if (!(f = tensor_fact(c, n)) || !f->dtype)
            return 0;
        memset(&v, 0, sizeof(v));
        v.kind = OM_VAL_STR;
        v.str = ir_dtype_name(f->dtype);
        if (!compare(&v, c->cmp, &c->value))
            return 0;
        snprintf(actual, size, "dtype(%s %u)=%s", c->on_output ? "output" : "input", c->index,
                 v.str);
        return 1;
    case OM_SUBJ_VALUE: {
        /* the value of a small constant input: a scalar, or a list for longer tensors */
        const ir_tensor *t;
        if (c->has_default && (c->index >= n->n_inputs || !n->inputs[c->index][0])) {
            /* an omitted optional input: the operator's default value */
            from_value(&c->def, &v);
            if (!compare(&v, c->cmp, &c->value))
                return 0;
            print_val(&v, text, sizeof(text));
            snprintf(actual, size, "input %u=%s (default)", c->index, text);
            return 1;
        }
        if (!(f = tensor_fact(c, n)) || !f->is_const || !(t = f->value) || !t->values ||
            !t->n_values)
            return 0;
        memset(&v, 0, sizeof(v));
        if (t->n_values == 1) {
            v.kind = OM_VAL_NUM;
            v.num = t->values[0];
            v.single = t->dtype == IR_DT_FLOAT;
        } else {
            v.kind = OM_VAL_LIST;
            v.n = t->n_values;
            v.floats = t->values;
            v.single = t->dtype == IR_DT_FLOAT;
        }
        if (!compare(&v, c->cmp, &c->value))
            return 0;
        print_val(&v, text, sizeof(text));
        snprintf(actual, size, "input %u=%s", c->index, text);
        return 1;
    }
    default:
        return 0;
    }
}
