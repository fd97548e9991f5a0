/*
 * readers/export/export_meta.c - what a node's metadata and tensor metadata say: the module
 * path (nn_module_stack), the source line (stack_trace), dtypes and sizes (TensorMeta),
 * symbolic dimensions with their ranges.
 */
#include "core/text.h"
#include "readers/export/export_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ScalarType (schema.yaml) -> IR dtype; written as its number, or by older versions as its
 * name. */
int ex_dtype(const oj_value *v)
{
    static const struct { const char *name; int code, dt; } map[] = {
        { "BYTE", 1, IR_DT_UINT8 }, { "CHAR", 2, IR_DT_INT8 }, { "SHORT", 3, IR_DT_INT16 },
        { "INT", 4, IR_DT_INT32 }, { "LONG", 5, IR_DT_INT64 }, { "HALF", 6, IR_DT_FLOAT16 },
        { "FLOAT", 7, IR_DT_FLOAT }, { "DOUBLE", 8, IR_DT_DOUBLE },
        { "COMPLEXHALF", 9, IR_DT_UNDEFINED }, { "COMPLEXFLOAT", 10, IR_DT_COMPLEX64 },
        { "COMPLEXDOUBLE", 11, IR_DT_COMPLEX128 }, { "BOOL", 12, IR_DT_BOOL },
        { "BFLOAT16", 13, IR_DT_BFLOAT16 }, { "UINT16", 28, IR_DT_UINT16 },
        { "FLOAT8E4M3FN", 29, IR_DT_FLOAT8E4M3FN }, { "FLOAT8E5M2", 30, IR_DT_FLOAT8E5M2 },
        { "FLOAT8E4M3FNUZ", 31, IR_DT_FLOAT8E4M3FNUZ }, { "FLOAT8E5M2FNUZ", 32,
                                                          IR_DT_FLOAT8E5M2FNUZ },
    };
    size_t i;
    if (!v)
        return IR_DT_UNDEFINED;
    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if ((v->type == OJ_NUMBER && v->is_int && v->i == map[i].code) ||
            (v->type == OJ_STRING && strcmp(v->s, map[i].name) == 0))
            return map[i].dt;
    return IR_DT_UNDEFINED;
}

/* "Symbol('s0', integer=True, positive=True)" (sympy's srepr, newer torch) -> "s0"; other
 * expressions ("s0", "2*s0") as written. */
static void symbol_name(const char *expr, char *out, size_t cap)
{
    const char *q;
    if (strncmp(expr, "Symbol('", 8) == 0 && (q = strchr(expr + 8, '\'')))
        snprintf(out, cap, "%.*s", (int)(q - expr - 8) > 100 ? 100 : (int)(q - expr - 8),
                 expr + 8);
    else
        snprintf(out, cap, "%.100s", expr);
}

/* A range bound as the file gives it: an integer, or "inf" (null, or too large). */
static void bound(const oj_value *v, char *out, size_t cap, const char *none)
{
    if (v && v->type == OJ_NUMBER && v->is_int)
        snprintf(out, cap, "%" PRId64, v->i);
    else
        snprintf(out, cap, "%s", none);
}

/* The dim param of a symbolic size: its symbol, with the program's range when it has one
 * ("s0[2..1024]"), so the dynamic-shape finding shows it. */
static const char *sym_param(ex_ctx *x, const oj_value *expr)
{
    const char *s = oj_str(expr, "expr_str");
    const oj_value *r;
    char name[128], lo[32], hi[32], buf[200];
    if (!s)
        return ir_intern(x->in, "?", 1);
    symbol_name(s, name, sizeof(name));
    if ((r = oj_obj(x->ranges, name))) {
        bound(oj_get(r, "min_val"), lo, sizeof(lo), "0");
        bound(oj_get(r, "max_val"), hi, sizeof(hi), "inf");
        snprintf(buf, sizeof(buf), "%s[%s..%s]", name, lo, hi);
    } else {
        snprintf(buf, sizeof(buf), "%s", name);
    }
    return ir_intern(x->in, buf, strlen(buf));
}

int ex_tensor_type(ex_ctx *x, const oj_value *meta, ir_type *t)
{
    const oj_value *sizes = oj_arr(meta, "sizes");
    uint32_t i;
    memset(t, 0, sizeof(*t));
    t->kind = IR_TYPE_TENSOR;
    t->elem = ex_dtype(oj_get(meta, "dtype"));
    t->rank = -1;
    if (!sizes)
        return OPMAP_OK;
    t->rank = (int32_t)sizes->n;
    if (sizes->n && !(t->dims = om_arena_array(&x->m->arena, sizes->n, sizeof(ir_dim))))
        return ex_oom(x);
    for (i = 0; i < sizes->n; i++) {
        const oj_value *d = &sizes->kids[i], *v;
        t->dims[i].value = -1;
        if ((v = oj_get(d, "as_int")) && v->type == OJ_NUMBER && v->is_int && v->i >= 0)
            t->dims[i].value = v->i;
        else if ((v = oj_obj(d, "as_expr")) && !(t->dims[i].param = sym_param(x, v)))
            return ex_oom(x);
        else if (!v && d->type == OJ_NUMBER && d->is_int && d->i >= 0)
            t->dims[i].value = d->i; /* early schema: plain integers */
    }
    return OPMAP_OK;
}

/* Splits one nn_module_stack item "key,path,type" at the commas outside brackets (as
 * torch's deserializer does); *path gets the second part. */
static int item_path(const char *s, size_t n, const char **path, size_t *plen)
{
    size_t i, start = 0, part = 0;
    int depth = 0;
    for (i = 0; i <= n; i++) {
        char c = i < n ? s[i] : ',';
        if (c == '(' || c == '[')
            depth++;
        else if ((c == ')' || c == ']') && depth > 0)
            depth--;
        else if (c == ',' && depth == 0) {
            if (part == 1) {
                *path = s + start;
                *plen = i - start;
            }
            part++;
            start = i + 1;
        }
    }
    return part == 3;
}

/* The module path of the innermost entry of nn_module_stack ("layer1.0.conv1"), or "". */
void ex_module_path(const char *stack, char *out, size_t cap)
{
    const char *item = stack, *end, *path = NULL;
    size_t plen = 0;
    out[0] = 0;
    if (!stack)
        return;
    for (;;) {
        const char *p;
        size_t l;
        end = strchr(item, ';');
        if (item_path(item, end ? (size_t)(end - item) : strlen(item), &p, &l))
            path = p, plen = l;
        if (!end)
            break;
        item = end + 1;
    }
    if (path)
        snprintf(out, cap, "%.*s", (int)(plen < cap ? plen : cap - 1), path);
}

/* The frame at `at` (a `File "` of a traceback): its file [*file, +*len) and line, 0 when
 * it does not read as one. */
static uint32_t frame_at(const char *at, const char **file, size_t *len)
{
    const char *q = strstr(at + 6, "\", line "), *p;
    long line = 0;
    if (!q || memchr(at + 6, '\n', (size_t)(q - at - 6)))
        return 0;
    for (p = q + 8; *p >= '0' && *p <= '9' && line < 100000000; p++)
        line = line * 10 + (*p - '0');
    *file = at + 6;
    *len = (size_t)(q - at - 6);
    return (uint32_t)line;
}

/* A node's source line from its Python traceback (outermost frame first, as torch.fx
 * prints it): the innermost frame of the user's own code, outside installed packages
 * (core/text.h, om_installed_path) and inside the exporter's call (om_tracer_path), else
 * the innermost frame. */
void ex_source_line(ex_ctx *x, const char *trace, ir_node *n)
{
    const char *p = trace, *last = NULL, *q, *file = NULL, *user = NULL;
    size_t len = 0, user_len = 0;
    uint32_t line = 0, user_line = 0;
    if (!trace)
        return;
    while ((q = strstr(p, "File \""))) {
        uint32_t l = frame_at(q, &file, &len);
        if (l && om_tracer_path(file, len)) {
            user = NULL; /* the frames so far called the exporter: not the model's */
        } else if (l && !om_installed_path(file, len)) {
            user = file;
            user_len = len;
            user_line = l;
        }
        last = q;
        p = q + 6;
    }
    if (user) {
        file = user;
        len = user_len;
        line = user_line;
    } else if (!last || !(line = frame_at(last, &file, &len))) {
        return;
    }
    n->src_file = ir_intern(x->in, file, len);
    n->src_line = line;
}
