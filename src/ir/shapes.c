/*
 * ir/shapes.c - the dimensions of an ONNX operator's output from its inputs' (see
 * values.h, om_values_rule_dims): what onnx's shape inference computes for the operators
 * models are built of, so a model exported without value_info still states the shapes of
 * its intermediate values (testgen writes runnable tests from them). Only what the inputs
 * state is used; a dimension nothing tells stays unknown, never guessed. A Reshape to sizes
 * computed at run time gets its rank alone (ir_fact.rank_only) from its target's length.
 */
#include <stdint.h>
#include <string.h>

#include "values.h"

#define MAXR 16               /* ranks computed here; larger ones are left unknown */
#define DIM_MAX (INT64_C(1) << 40) /* a dimension past this is no real tensor's: unknown */

typedef struct dims {
    int32_t rank;             /* -1: unknown */
    int64_t v[MAXR];          /* -1: unknown */
    const char *p[MAXR];      /* a symbolic dimension's name, or NULL */
} dims;

static int in_list(const char *op, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(op, *list) == 0)
            return 1;
    return 0;
}

/* What a fact states of its shape: declared or inferred dims, or a constant's tensor. */
static void of_fact(const ir_fact *f, dims *d)
{
    int32_t r = f->rank >= 0 ? f->rank : f->value ? (int32_t)f->value->ndims : -1, i;
    d->rank = r >= 0 && r <= MAXR ? r : -1;
    for (i = 0; i < d->rank; i++) {
        d->v[i] = -1;
        d->p[i] = NULL;
        if (f->dims) {
            d->v[i] = f->dims[i].value <= DIM_MAX ? f->dims[i].value : -1;
            d->p[i] = f->dims[i].param && f->dims[i].param[0] ? f->dims[i].param : NULL;
        } else if (f->value && (int32_t)f->value->ndims == d->rank) {
            d->v[i] = f->value->dims[i] <= DIM_MAX ? f->value->dims[i] : -1;
        }
    }
}

static int input(const ir_node *n, uint32_t i, dims *d)
{
    if (i >= n->n_inputs || !n->inputs[i][0])
        return 0;
    of_fact(&n->in_facts[i], d);
    return d->rank >= 0;
}

static int known(const dims *d, int32_t i) { return d->v[i] >= 0; }

static void set(dims *o, int32_t i, int64_t v, const char *p)
{
    if (v > DIM_MAX)
        v = -1;
    o->v[i] = v;
    o->p[i] = v >= 0 ? NULL : p;
}

/* An INTS attribute into v (at most MAXR), its count; -1 when absent. */
/* A tensor value as an int64: INT64_MAX / INT64_MIN where the double is past them (Slice's
 * "to the end" is INT64_MAX, which a double rounds up to 2^63). */
static int64_t to_int(double v)
{
    if (v != v)
        return 0;
    if (v >= 9.2233720368547758e18)
        return INT64_MAX;
    if (v <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)v;
}

static int ints(const ir_node *n, const char *name, int64_t *v)
{
    const ir_attr *a = ir_node_attr(n, name);
    size_t k;
    if (!a || a->type != IR_ATTR_INTS || a->n_ints > MAXR)
        return -1;
    for (k = 0; k < a->n_ints; k++)
        v[k] = a->ints[k];
    return (int)a->n_ints;
}

static int64_t attr_i(const ir_node *n, const char *name, int64_t dflt)
{
    const ir_attr *a = ir_node_attr(n, name);
    return a && a->type == IR_ATTR_INT ? a->i : dflt;
}

/* A constant input's integer values (Reshape's shape, axes), at most MAXR; -1 if unknown. */
static int const_ints(const ir_node *n, uint32_t i, int64_t *v)
{
    const ir_tensor *t;
    uint32_t k;
    if (i >= n->n_inputs || !n->inputs[i][0])
        return -1;
    t = n->in_facts[i].value ? n->in_facts[i].value : n->in_facts[i].shape_data;
    if (!t || !t->values || t->n_values > MAXR)
        return -1;
    for (k = 0; k < t->n_values; k++)
        v[k] = to_int(t->values[k]);
    return (int)t->n_values;
}

/* numpy broadcasting of every input */
static int broadcast(const ir_node *n, dims *o)
{
    uint32_t i;
    int32_t k;
    o->rank = 0;
    for (i = 0; i < n->n_inputs; i++) {
        dims d;
        if (!n->inputs[i][0])
            continue;
        if (!input(n, i, &d))
            return 0;
        if (d.rank > o->rank) {
            /* shift what is there to the right */
            int32_t s = d.rank - o->rank;
            for (k = o->rank - 1; k >= 0; k--)
                set(o, k + s, o->v[k], o->p[k]);
            for (k = 0; k < s; k++)
                set(o, k, 1, NULL);
            o->rank = d.rank;
        }
        for (k = 0; k < d.rank; k++) {
            int32_t j = k + o->rank - d.rank;
            if (known(&d, k) && d.v[k] == 1)
                continue;
            if (known(o, j) && o->v[j] == 1)
                set(o, j, d.v[k], d.p[k]);
            else if (known(o, j) && known(&d, k) && o->v[j] != d.v[k])
                return 0; /* the model does not broadcast: say nothing */
            else if (!known(o, j) && known(&d, k))
                set(o, j, d.v[k], NULL);
            else if (!known(o, j) && !(o->p[j] && d.p[k] && strcmp(o->p[j], d.p[k]) == 0))
                set(o, j, -1, NULL);
        }
    }
    return 1;
}

/* One spatial output size of a convolution or a pool (ONNX's formulas, auto_pad too). */
static int64_t window(int64_t in, int64_t k, int64_t s, int64_t dil, int64_t pad, const char *ap,
                      int ceil_mode)
{
    int64_t eff, num;
    /* every value is the file's: any overflow leaves the size unknown */
    if (in < 0 || in > DIM_MAX || s <= 0 || k < 1 || dil < 1 || k > DIM_MAX || dil > DIM_MAX || s > DIM_MAX ||
        pad < -DIM_MAX || pad > DIM_MAX)
        return -1;
    eff = dil * (k - 1) + 1;
    if (ap && (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0))
        return (in + s - 1) / s;
    if (ap && strcmp(ap, "VALID") == 0)
        pad = 0;
    num = in + pad - eff;
    if (num < 0)
        return -1;
    return (ceil_mode ? (num + s - 1) / s : num / s) + 1;
}

/* Conv (weight: input 1), MaxPool, AveragePool, LpPool (kernel_shape) */
static int conv_or_pool(const ir_node *n, int is_conv, dims *o)
{
    dims x, w;
    int64_t k[MAXR], s[MAXR], dil[MAXR], pads[2 * MAXR];
    const ir_attr *ap = ir_node_attr(n, "auto_pad");
    const char *apv = ap && ap->type == IR_ATTR_STRING ? (const char *)ap->s.data : NULL;
    int32_t sp, i;
    int nk, ns, nd, np;
    if (!input(n, 0, &x) || x.rank < 3)
        return 0;
    sp = x.rank - 2;
    nk = ints(n, "kernel_shape", k);
    if (is_conv && nk < 0 && input(n, 1, &w) && w.rank == x.rank) {
        for (i = 0; i < sp; i++)
            k[i] = w.v[i + 2];
        nk = sp;
    }
    if (nk != sp)
        return 0;
    ns = ints(n, "strides", s);
    nd = ints(n, "dilations", dil);
    np = ints(n, "pads", pads);
    o->rank = x.rank;
    set(o, 0, x.v[0], x.p[0]);
    if (is_conv) {
        if (!input(n, 1, &w) || w.rank != x.rank)
            return 0;
        set(o, 1, w.v[0], w.p[0]);
    } else {
        set(o, 1, x.v[1], x.p[1]);
    }
    for (i = 0; i < sp; i++) {
        int64_t pad = 0;
        if (np == 2 * sp && __builtin_add_overflow(pads[i], pads[i + sp], &pad))
            pad = INT64_MAX; /* window() refuses it */
        set(o, i + 2, window(x.v[i + 2], k[i], ns == sp ? s[i] : 1, nd == sp ? dil[i] : 1, pad,
                             apv, (int)attr_i(n, "ceil_mode", 0)), NULL);
    }
    return 1;
}

static int matmul(const ir_node *n, dims *o)
{
    dims a, b, batch;
    int32_t i, ra, rb, nb;
    if (!input(n, 0, &a) || !input(n, 1, &b) || !a.rank || !b.rank)
        return 0;
    ra = a.rank < 2 ? 0 : a.rank - 2;
    rb = b.rank < 2 ? 0 : b.rank - 2;
    /* the batch dimensions broadcast */
    nb = ra > rb ? ra : rb;
    batch.rank = nb;
    for (i = 0; i < nb; i++) {
        int32_t ia = i - (nb - ra), ib = i - (nb - rb);
        int64_t va = ia >= 0 ? a.v[ia] : 1, vb = ib >= 0 ? b.v[ib] : 1;
        const char *pa = ia >= 0 ? a.p[ia] : NULL, *pb = ib >= 0 ? b.p[ib] : NULL;
        if (va == 1)
            set(&batch, i, vb, pb);
        else if (vb == 1 || va == vb)
            set(&batch, i, va, pa);
        else
            set(&batch, i, -1, NULL);
    }
    o->rank = nb;
    for (i = 0; i < nb; i++)
        set(o, i, batch.v[i], batch.p[i]);
    if (a.rank >= 2)
        set(o, o->rank++, a.v[a.rank - 2], a.p[a.rank - 2]);
    if (b.rank >= 2)
        set(o, o->rank++, b.v[b.rank - 1], b.p[b.rank - 1]);
    return o->rank <= MAXR;
}

static int gemm(const ir_node *n, dims *o)
{
    dims a, b;
    int ta = (int)attr_i(n, "transA", 0), tb = (int)attr_i(n, "transB", 0);
    if (!input(n, 0, &a) || !input(n, 1, &b) || a.rank != 2 || b.rank != 2)
        return 0;
    o->rank = 2;
    set(o, 0, a.v[ta ? 1 : 0], a.p[ta ? 1 : 0]);
    set(o, 1, b.v[tb ? 0 : 1], b.p[tb ? 0 : 1]);
    return 1;
}

static int64_t product(const dims *d, int32_t from, int32_t to)
{
    int64_t p = 1;
    int32_t i;
    for (i = from; i < to; i++) {
        if (!known(d, i) || (d->v[i] && p > INT64_MAX / d->v[i]))
            return -1;
        p *= d->v[i];
    }
    return p;
}

static int flatten(const ir_node *n, dims *o)
{
    dims x;
    int64_t axis = attr_i(n, "axis", 1);
    if (!input(n, 0, &x))
        return 0;
    if (axis < 0)
        axis += x.rank;
    if (axis < 0 || axis > x.rank)
        return 0;
    o->rank = 2;
    set(o, 0, product(&x, 0, (int32_t)axis), NULL);
    set(o, 1, product(&x, (int32_t)axis, x.rank), NULL);
    return 1;
}

static int reshape(const ir_node *n, dims *o)
{
    dims x;
    int64_t shape[MAXR], total, rest = 1;
    int k, ns = const_ints(n, 1, shape), infer_at = -1;
    if (ns < 0)
        return 0;
    if (!input(n, 0, &x)) {
        x.rank = 0;  /* nothing known: only a target of plain sizes tells */
        for (k = 0; k < ns; k++)
            if (shape[k] <= 0)
                return 0;
    }
    total = x.rank ? product(&x, 0, x.rank) : -1;
    o->rank = ns;
    for (k = 0; k < ns; k++) {
        if (shape[k] == 0 && !attr_i(n, "allowzero", 0)) {
            if (k >= x.rank)
                return 0;
            set(o, k, x.v[k], x.p[k]);
        } else if (shape[k] == -1) {
            infer_at = k;
            set(o, k, -1, NULL);
            continue;
        } else {
            set(o, k, shape[k], NULL);
        }
        if (!known(o, k) || rest < 0 || __builtin_mul_overflow(rest, o->v[k], &rest))
            rest = -1;
    }
    if (infer_at >= 0)
        set(o, infer_at, total >= 0 && rest > 0 && total % rest == 0 ? total / rest : -1, NULL);
    return 1;
}

static int transpose(const ir_node *n, dims *o)
{
    dims x;
    int64_t perm[MAXR];
    int32_t i, np;
    if (!input(n, 0, &x))
        return 0;
    np = ints(n, "perm", perm);
    if (np < 0) {
        for (i = 0; i < x.rank; i++)
            perm[i] = x.rank - 1 - i;
        np = x.rank;
    }
    if (np != x.rank)
        return 0;
    o->rank = x.rank;
    for (i = 0; i < x.rank; i++) {
        if (perm[i] < 0 || perm[i] >= x.rank)
            return 0;
        set(o, i, x.v[perm[i]], x.p[perm[i]]);
    }
    return 1;
}

static int concat(const ir_node *n, dims *o)
{
    dims d;
    int64_t axis = attr_i(n, "axis", 0), sum = 0;
    uint32_t i;
    int32_t k;
    if (!input(n, 0, o))
        return 0;
    if (axis < 0)
        axis += o->rank;
    if (axis < 0 || axis >= o->rank)
        return 0;
    for (i = 0; i < n->n_inputs; i++) {
        if (!input(n, i, &d) || d.rank != o->rank) {
            sum = -1;
            break;
        }
        for (k = 0; k < d.rank; k++)
            if (k != axis && !known(o, k) && known(&d, k))
                set(o, k, d.v[k], NULL);
        if (!known(&d, (int32_t)axis) || sum < 0 || __builtin_add_overflow(sum, d.v[axis], &sum))
            sum = -1;
    }
    set(o, (int32_t)axis, sum, NULL);
    return 1;
}

/* Unsqueeze (insert 1s at axes) and Squeeze (drop axes, or every known 1) */
static int squeeze(const ir_node *n, int un, dims *o)
{
    dims x;
    int64_t axes[MAXR];
    uint8_t at[MAXR];
    int na = ints(n, "axes", axes), k;
    int32_t i, j, r;
    if (na < 0)
        na = const_ints(n, 1, axes);
    if (!input(n, 0, &x))
        return 0;
    r = un ? x.rank + (na > 0 ? na : 0) : x.rank;
    if (un && na <= 0)
        return 0;
    if (r > MAXR)
        return 0;
    memset(at, 0, sizeof(at));
    for (k = 0; k < na; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
        if (a < 0 || a >= r)
            return 0;
        at[a] = 1;
    }
    if (!un && na < 0)
        for (i = 0; i < x.rank; i++) {
            if (!known(&x, i))
                return 0; /* which dims are 1 is not known */
            at[i] = x.v[i] == 1;
        }
    o->rank = 0;
    for (i = 0, j = 0; i < r; i++) {
        if (un && at[i])
            set(o, o->rank++, 1, NULL);
        else if (un) {
            set(o, o->rank++, x.v[j], x.p[j]);
            j++;
        } else if (!at[i])
            set(o, o->rank++, x.v[i], x.p[i]);
    }
    return 1;
}

static const char *const reduces[] = {
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
    "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "ArgMax", "ArgMin", NULL
};

static int reduce(const ir_node *n, dims *o)
{
    dims x;
    int64_t axes[MAXR];
    uint8_t at[MAXR];
    int arg = n->op[0] == 'A', na, keep = (int)attr_i(n, "keepdims", 1), k;
    int32_t i;
    if (!input(n, 0, &x))
        return 0;
    if (arg) {
        axes[0] = attr_i(n, "axis", 0);
        na = 1;
    } else if ((na = ints(n, "axes", axes)) < 0 && (na = const_ints(n, 1, axes)) < 0) {
        if (n->n_inputs > 1 && n->inputs[1][0])
            return 0; /* axes computed at run time */
        na = 0;
    }
    memset(at, na == 0 && !attr_i(n, "noop_with_empty_axes", 0), sizeof(at));
    for (k = 0; k < na; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + x.rank : axes[k];
        if (a < 0 || a >= x.rank)
            return 0;
        at[a] = 1;
    }
    o->rank = 0;
    for (i = 0; i < x.rank; i++)
        if (!at[i])
            set(o, o->rank++, x.v[i], x.p[i]);
        else if (keep)
            set(o, o->rank++, 1, NULL);
    return 1;
}

static int gather(const ir_node *n, dims *o)
{
    dims d, q;
    int64_t axis = attr_i(n, "axis", 0);
    int32_t i;
    if (!input(n, 0, &d) || !input(n, 1, &q))
        return 0;
    if (axis < 0)
        axis += d.rank;
    if (axis < 0 || axis >= d.rank || d.rank - 1 + q.rank > MAXR)
        return 0;
    o->rank = 0;
    for (i = 0; i < axis; i++)
        set(o, o->rank++, d.v[i], d.p[i]);
    for (i = 0; i < q.rank; i++)
        set(o, o->rank++, q.v[i], q.p[i]);
    for (i = (int32_t)axis + 1; i < d.rank; i++)
        set(o, o->rank++, d.v[i], d.p[i]);
    return 1;
}

/* The number of elements a slice [start, end) by step takes of a dimension of size dim
 * (ONNX's clamping); -1 when dim is unknown. */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step)
{
    if (dim < 0 || !step)
        return -1;
    /* a step past the dimension takes one element at most, whatever its size */
    if (step > DIM_MAX)
        step = DIM_MAX;
    if (step < -DIM_MAX)
        step = -DIM_MAX;
    if (start < 0)
        start += dim;
    if (end < 0)
        end += dim;
    if (step > 0) {
        start = start < 0 ? 0 : start > dim ? dim : start;
        end = end < 0 ? 0 : end > dim ? dim : end;
        return end > start ? (end - start + step - 1) / step : 0;
    }
    start = start < 0 ? -1 : start > dim - 1 ? dim - 1 : start;
    end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
    return start > end ? (start - end - step - 1) / -step : 0;
}

static int slice(const ir_node *n, dims *o)
{
    int64_t st[MAXR], en[MAXR], ax[MAXR], sp[MAXR];
    int ns, ne, na, np, k;
    if (!input(n, 0, o))
        return 0;
    if ((ns = ints(n, "starts", st)) >= 0) { /* opset 1-9: attributes */
        ne = ints(n, "ends", en);
        na = ints(n, "axes", ax);
        np = -1;
    } else {
        ns = const_ints(n, 1, st);
        ne = const_ints(n, 2, en);
        na = n->n_inputs > 3 && n->inputs[3][0] ? const_ints(n, 3, ax) : -1;
        np = n->n_inputs > 4 && n->inputs[4][0] ? const_ints(n, 4, sp) : -1;
        if ((n->n_inputs > 3 && n->inputs[3][0] && na < 0) ||
            (n->n_inputs > 4 && n->inputs[4][0] && np < 0))
            return 0; /* axes or steps computed at run time */
    }
    if (ns < 0 || ne != ns || (na >= 0 && na != ns) || (np >= 0 && np != ns))
        return 0;
    for (k = 0; k < ns; k++) {
        int64_t a = na >= 0 ? ax[k] : k;
        if (a < 0)
            a += o->rank;
        if (a < 0 || a >= o->rank)
            return 0;
        set(o, (int32_t)a, slice_len(o->v[a], st[k], en[k], np >= 0 ? sp[k] : 1), NULL);
    }
    return 1;
}

/* Expand: the input broadcast with a constant shape */
static int expand(const ir_node *n, dims *o)
{
    dims x;
    int64_t shape[MAXR];
    int ns = const_ints(n, 1, shape), k;
    int32_t r, i;
    if (ns < 0 || !input(n, 0, &x))
        return 0;
    r = ns > x.rank ? ns : x.rank;
    o->rank = r;
    for (i = 0; i < r; i++) {
        int32_t ix = i - (r - x.rank);
        int64_t sv = (k = i - (r - ns)) >= 0 ? shape[k] : 1;
        int64_t xv = ix >= 0 ? x.v[ix] : 1;
        const char *xp = ix >= 0 ? x.p[ix] : NULL;
        if (sv == 1)
            set(o, i, xv, xp);
        else
            set(o, i, sv, NULL);
    }
    return 1;
}

static int constant_of_shape(const ir_node *n, dims *o)
{
    int64_t shape[MAXR];
    int ns = const_ints(n, 0, shape), k;
    if (ns < 0)
        return 0;
    o->rank = ns;
    for (k = 0; k < ns; k++)
        set(o, k, shape[k], NULL);
    return 1;
}

/* Einsum with an explicit output ("bhid,bhjd->bhij"; no ellipsis): each output letter's
 * size from the first input that has it. */
static int einsum(const ir_node *n, dims *o)
{
    const ir_attr *eq = ir_node_attr(n, "equation");
    int64_t size[128];
    const char *par[128], *s, *arrow;
    uint32_t in = 0;
    int32_t pos = 0, c;
    dims d;
    if (!eq || eq->type != IR_ATTR_STRING || !eq->s.data || !(arrow = strstr(eq->s.data, "->")) ||
        strstr(eq->s.data, "..."))
        return 0;
    for (c = 0; c < 128; c++) {
        size[c] = -1;
        par[c] = NULL;
    }
    if (!input(n, 0, &d))
        return 0;
    for (s = eq->s.data; s < arrow; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == ',') {
            if (pos != d.rank || ++in >= n->n_inputs || !input(n, in, &d))
                return 0;
            pos = 0;
        } else if (ch != ' ') {
            if (ch >= 128 || pos >= d.rank)
                return 0;
            if (size[ch] < 0 && !par[ch]) {
                size[ch] = d.v[pos];
                par[ch] = d.p[pos];
            }
            pos++;
        }
    }
    if (pos != d.rank || in + 1 != n->n_inputs)
        return 0;
    o->rank = 0;
    for (s = arrow + 2; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == ' ')
            continue;
        if (ch >= 128 || o->rank >= MAXR)
            return 0;
        set(o, o->rank++, size[ch], par[ch]);
    }
    return 1;
}

static const char *const same_shape[] = {
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization", "Cast",
    "Ceil", "Celu", "Clip", "Cos", "Cosh", "CumSum", "Dropout", "Elu", "Erf", "Exp", "Floor",
    "Gelu", "GroupNormalization", "HardSigmoid", "HardSwish", "Hardmax", "Identity",
    "InstanceNormalization", "IsInf", "IsNaN", "LRN", "LayerNormalization", "LeakyRelu", "Log",
    "LogSoftmax", "LpNormalization", "MeanVarianceNormalization", "Mish", "Neg", "Not",
    "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh",
    "Softmax", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu", "Trilu", NULL
};

static const char *const broadcasting[] = {
    "Add", "And", "BitShift", "Div", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual",
    "Max", "Mean", "Min", "Mod", "Mul", "Or", "PRelu", "Pow", "Sub", "Sum", "Where", "Xor", NULL
};

int om_values_rule_dims(const ir_node *n, om_arena *A, int32_t *rank, const ir_dim **out)
{
    dims o;
    const char *op = n->op;
    int ok = 0;
    int32_t i;
    ir_dim *d;
    if (strcmp(n->domain, "ai.onnx") != 0 || !n->in_facts || !n->n_inputs)
        return 0;
    o.rank = -1;
    if (in_list(op, same_shape))
        ok = input(n, 0, &o);
    else if (in_list(op, broadcasting))
        ok = broadcast(n, &o);
    else if (strcmp(op, "Conv") == 0)
        ok = conv_or_pool(n, 1, &o);
    else if (strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0 ||
             strcmp(op, "LpPool") == 0)
        ok = conv_or_pool(n, 0, &o);
    else if (strncmp(op, "Global", 6) == 0 && input(n, 0, &o) && o.rank >= 2) {
        for (i = 2; i < o.rank; i++)
            set(&o, i, 1, NULL);
        ok = 1;
    } else if (strcmp(op, "MatMul") == 0)
        ok = matmul(n, &o);
    else if (strcmp(op, "Gemm") == 0)
        ok = gemm(n, &o);
    else if (strcmp(op, "Flatten") == 0)
        ok = flatten(n, &o);
    else if (strcmp(op, "Reshape") == 0)
        ok = reshape(n, &o);
    else if (strcmp(op, "Transpose") == 0)
        ok = transpose(n, &o);
    else if (strcmp(op, "Concat") == 0)
        ok = concat(n, &o);
    else if (strcmp(op, "Unsqueeze") == 0 || strcmp(op, "Squeeze") == 0)
        ok = squeeze(n, op[0] == 'U', &o);
    else if (in_list(op, reduces))
        ok = reduce(n, &o);
    else if (strcmp(op, "Gather") == 0)
        ok = gather(n, &o);
    else if (strcmp(op, "Slice") == 0)
        ok = slice(n, &o);
    else if (strcmp(op, "Expand") == 0)
        ok = expand(n, &o);
    else if (strcmp(op, "ConstantOfShape") == 0)
        ok = constant_of_shape(n, &o);
    else if (strcmp(op, "Einsum") == 0)
        ok = einsum(n, &o);
    if (!ok || o.rank < 0 || o.rank > MAXR)
        return 0;
    if (o.rank && !(d = om_arena_array(A, (size_t)o.rank, sizeof(ir_dim))))
        return -1;
    for (i = 0; i < o.rank; i++) {
        d[i].value = o.v[i];
        d[i].param = o.v[i] >= 0 ? NULL : o.p[i];
    }
    *rank = o.rank;
    *out = o.rank ? d : NULL;
    return 1;
}

/* ---- the rank of a Reshape whose target's values are not known ---- */

/* A tensor's rank, or the rank-only reading of it (ir_fact.rank_only); -1 when unknown. */
static int32_t rank_or_only(const ir_fact *f)
{
    if (f->rank >= 0)
        return f->rank;
    return f->rank_only ? (int32_t)f->rank_only : -1;
}

/* The number of elements of a 1-D value without reading its values: its constant's or shape
 * data's length, its stated or inferred dimension, or what a Shape of a tensor of known rank
 * gives (start and end clamped as ONNX clamps them); -1 when unknown or past MAXR. */
static int32_t length_of(const ir_fact *f)
{
    const ir_tensor *t = f->value ? f->value : f->shape_data;
    const ir_node *d = f->def;
    if (t) {
        if (t->ndims != 1 || !t->dims || t->dims[0] < 0 || t->dims[0] > MAXR)
            return -1;
        return (int32_t)t->dims[0];
    }
    if (f->rank == 1 && f->dims) {
        if (f->dims[0].value < 0 || f->dims[0].value > MAXR)
            return -1;
        return (int32_t)f->dims[0].value;
    }
    if (d && strcmp(d->domain, "ai.onnx") == 0 && strcmp(d->op, "Shape") == 0 && d->n_inputs &&
        d->in_facts && d->inputs[0][0]) {
        int64_t r = rank_or_only(&d->in_facts[0]), start = attr_i(d, "start", 0),
                end = attr_i(d, "end", INT64_MAX);
        if (r < 0 || r > MAXR)
            return -1;
        /* no overflow: r is at most MAXR, and a negative bound only grows by it */
        start = start < 0 ? start + r : start;
        end = end < 0 ? end + r : end;
        start = start < 0 ? 0 : start > r ? r : start;
        end = end < 0 ? 0 : end > r ? r : end;
        return (int32_t)(end > start ? end - start : 0);
    }
    return -1;
}

int32_t om_values_rule_reshape_rank(const ir_node *n)
{
    const ir_attr *shape;
    const ir_node *d;
    int32_t len = -1;
    uint32_t i;
    if (strcmp(n->domain, "ai.onnx") != 0 || strcmp(n->op, "Reshape") != 0 || !n->in_facts)
        return -1;
    if (n->n_inputs < 2 || !n->inputs[1][0]) {
        /* opset 1 to 4: the target is the `shape` attribute */
        shape = ir_node_attr(n, "shape");
        if (!shape || shape->type != IR_ATTR_INTS || shape->n_ints > MAXR)
            return -1;
        return (int32_t)shape->n_ints;
    }
    if ((len = length_of(&n->in_facts[1])) >= 0)
        return len;
    /* a Concat of 1-D pieces (axis 0) whose lengths are known; one level, no recursion, and
     * at most MAXR pieces, so many Reshapes of one huge Concat stay linear */
    d = n->in_facts[1].def;
    if (!d || strcmp(d->domain, "ai.onnx") != 0 || strcmp(d->op, "Concat") != 0 || !d->in_facts ||
        !d->n_inputs || d->n_inputs > MAXR)
        return -1;
    if (attr_i(d, "axis", 0) != 0 && attr_i(d, "axis", 0) != -1)
        return -1;
    for (i = 0, len = 0; i < d->n_inputs; i++) {
        int32_t k;
        if (!d->inputs[i][0] || (k = length_of(&d->in_facts[i])) < 0 || len + k > MAXR)
            return -1;
        len += k;
    }
    return len;
}

/* ---- the values of shape arithmetic ---- */

/* A value's integers when known: a constant's, or shape data computed here (at most MAXR). */
static int values_of(const ir_fact *f, int64_t *v)
{
    const ir_tensor *t = f->value ? f->value : f->shape_data;
    uint32_t k;
    if (!t || !t->values || t->n_values > MAXR || t->ndims > 1)
        return -1;
    for (k = 0; k < t->n_values; k++)
        v[k] = to_int(t->values[k]);
    return (int)t->n_values;
}

static const ir_tensor *make_data(om_arena *A, const int64_t *v, int n, int scalar, int *oom)
{
    ir_tensor *t = om_arena_alloc(A, sizeof(*t));
    int k;
    if (!t) {
        *oom = 1;
        return NULL;
    }
    memset(t, 0, sizeof(*t));
    if ((n && !(t->values = om_arena_array(A, (size_t)n, sizeof(double)))) ||
        (!scalar && !(t->dims = om_arena_array(A, 1, sizeof(int64_t))))) {
        *oom = 1;
        return NULL;
    }
    for (k = 0; k < n; k++)
        t->values[k] = (double)v[k];
    t->n_values = (uint32_t)n;
    t->dtype = IR_DT_INT64;
    t->ndims = scalar ? 0 : 1;
    if (!scalar)
        t->dims[0] = n;
    return t;
}

int om_values_rule_data(const ir_node *n, om_arena *A, const ir_tensor **out)
{
    int64_t a[MAXR], b[MAXR], r[MAXR];
    int na, nb, nr = -1, k, oom = 0, scalar = 0;
    const char *op = n->op;
    dims d;
    *out = NULL;
    if (strcmp(n->domain, "ai.onnx") != 0 || !n->in_facts || !n->n_inputs || !n->inputs[0][0])
        return 0;
    if (strcmp(op, "Shape") == 0) {
        int64_t start = attr_i(n, "start", 0), end;
        if (!input(n, 0, &d))
            return 0;
        end = attr_i(n, "end", d.rank);
        start = start < 0 ? start + d.rank : start;
        end = end < 0 ? end + d.rank : end > d.rank ? d.rank : end;
        for (k = (int)(start < 0 ? 0 : start), nr = 0; k < end; k++) {
            if (!known(&d, k))
                return 0;
            r[nr++] = d.v[k];
        }
    } else if (strcmp(op, "Identity") == 0 || strcmp(op, "Cast") == 0 ||
               strcmp(op, "Unsqueeze") == 0 || strcmp(op, "Squeeze") == 0) {
        if ((nr = values_of(&n->in_facts[0], r)) < 0)
            return 0;
        scalar = strcmp(op, "Squeeze") == 0 && nr == 1;
    } else if (strcmp(op, "Concat") == 0) {
        uint32_t i;
        for (i = 0, nr = 0; i < n->n_inputs; i++) {
            if ((na = values_of(&n->in_facts[i], a)) < 0 || nr + na > MAXR)
                return 0;
            for (k = 0; k < na; k++)
                r[nr++] = a[k];
        }
    } else if (strcmp(op, "Gather") == 0) {
        const ir_fact *ix = n->n_inputs > 1 ? &n->in_facts[1] : NULL;
        if ((na = values_of(&n->in_facts[0], a)) < 0 || !ix || (nb = values_of(ix, b)) < 0)
            return 0;
        for (k = 0, nr = 0; k < nb; k++) {
            int64_t j = b[k] < 0 ? b[k] + na : b[k];
            if (j < 0 || j >= na)
                return 0;
            r[nr++] = a[j];
        }
        scalar = (ix->value ? ix->value->ndims : ix->shape_data ? ix->shape_data->ndims : 1) == 0;
    } else if (strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0 || strcmp(op, "Mul") == 0 ||
               strcmp(op, "Div") == 0) {
        if (n->n_inputs < 2 || (na = values_of(&n->in_facts[0], a)) < 0 ||
            (nb = values_of(&n->in_facts[1], b)) < 0 || (na != nb && na != 1 && nb != 1))
            return 0;
        nr = na > nb ? na : nb;
        for (k = 0; k < nr; k++) {
            int64_t x = a[na == 1 ? 0 : k], y = b[nb == 1 ? 0 : k];
            int over;
            if (op[0] == 'D' && (!y || (x == INT64_MIN && y == -1)))
                return 0;
            over = op[0] == 'A'   ? __builtin_add_overflow(x, y, &r[k])
                   : op[0] == 'S' ? __builtin_sub_overflow(x, y, &r[k])
                   : op[0] == 'M' ? __builtin_mul_overflow(x, y, &r[k])
                                  : (r[k] = x / y, 0);
            if (over)
                return 0; /* the file's numbers overflow: the value stays unknown */
        }
        scalar = na <= 1 && nb <= 1 &&
                 (n->in_facts[0].value ? n->in_facts[0].value->ndims == 0
                                       : n->in_facts[0].shape_data &&
                                             n->in_facts[0].shape_data->ndims == 0);
    }
    if (nr < 0)
        return 0;
    *out = make_data(A, r, nr, scalar, &oom);
    return oom ? -1 : 1;
}
