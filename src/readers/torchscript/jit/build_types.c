/*
 * readers/torchscript/jit/build_types.c - the types of what builtins return.
 *
 * Printed code annotates signatures and some assignments, not the results of operators,
 * yet later decisions depend on them: tuple versus list indexing, what may be None, what
 * is mutable (aliasing, constant folding), and the types of If and Loop outputs. So each
 * aten:: and prim:: result gets the type torch's schema would give it, from the op's name
 * and its inputs' types; anything else is a tensor, or unknown where a guess could mislead.
 */
#include <string.h>

#include "build_internal.h"
#include "kinds.h"

static const tsl_type *num_result(tsj_builder *b, tsj_node *n, int to_float)
{
    uint32_t i;
    int any_float = 0, any_num = 0, any_unknown = 0;
    for (i = 0; i < n->n_in; i++) {
        const tsl_type *t = tsj_input(n, i)->type;
        if (!t)
            any_unknown = 1;
        else if (t->k == TY_FLOAT)
            any_float = 1;
        else if (t->k == TY_NUMBER)
            any_num = 1;
        else if (t->k != TY_INT && t->k != TY_BOOL)
            any_unknown = 1;
    }
    if (any_unknown)
        return tsj_prim_type(b, TY_UNKNOWN);
    if (any_num)
        return tsj_prim_type(b, TY_NUMBER);
    return tsj_prim_type(b, to_float || any_float ? TY_FLOAT : TY_INT);
}

/* prim:: ops: attribute reads of tensors, min / max, and the None-returning ones. */
static const tsl_type *prim_result(tsj_builder *b, tsj_node *n, const tsl_type *t0)
{
    const char *op = n->op;
    uint32_t i;
    static const char *const bools[] = { "is_cuda", "is_xpu", "is_sparse", "is_sparse_csr",
                                         "is_nested", "requires_grad", "is_quantized",
                                         "is_meta", "is_mkldnn", "is_vulkan", "is_ort",
                                         "is_mps", "is_ipu", "isinstance" };
    for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
        if (strcmp(op, bools[i]) == 0)
            return tsj_prim_type(b, TY_BOOL);
    if (!strcmp(op, "dtype") || !strcmp(op, "layout") || !strcmp(op, "itemsize"))
        return tsj_prim_type(b, TY_INT);
    if (!strcmp(op, "device"))
        return tsj_prim_type(b, TY_DEVICE);
    if (!strcmp(op, "NumToTensor") || !strcmp(op, "data") || !strcmp(op, "grad"))
        return !strcmp(op, "grad") ? tsl_type_optional(b->ty, tsj_prim_type(b, TY_TENSOR))
                                   : tsj_prim_type(b, TY_TENSOR);
    if (!strcmp(op, "shape"))
        return tsl_type_list(b->ty, tsj_prim_type(b, TY_INT));
    if (!strcmp(op, "name") || !strcmp(op, "type"))
        return !strcmp(op, "name") ? tsl_type_optional(b->ty, tsj_prim_type(b, TY_STR))
                                   : tsj_prim_type(b, TY_STR);
    if (!strcmp(op, "min") || !strcmp(op, "max")) {
        if (t0 && t0->k == TY_LIST && n->n_in == 1)
            return t0->el[0];
        return num_result(b, n, 0);
    }
    if (!strcmp(op, "RaiseException") || !strcmp(op, "Print"))
        return tsj_prim_type(b, TY_NONE);
    return tsj_prim_type(b, TY_UNKNOWN);
}

/* aten:: ops returning a list of tensors (some take one: meshgrid([a, b])), or NULL. */
static const tsl_type *tensor_list_result(tsj_builder *b, tsj_node *n, const tsl_type *t0,
                                          int any_tensor)
{
    const char *op = n->op;
    uint32_t i;
    static const char *const lists_t[] = { "split", "chunk", "unbind", "tensor_split",
                                           "split_with_sizes", "meshgrid",
                                           "broadcast_tensors", "unsafe_chunk",
                                           "unsafe_split", "hsplit", "vsplit", "dsplit",
                                           "nonzero_numpy", "atleast_1d", "atleast_2d",
                                           "atleast_3d", "align_tensors",
                                           "unsafe_split_with_sizes", "gradient",
                                           "_foreach_add", "_foreach_mul" };
    int list_in = t0 && t0->k == TY_LIST && t0->el[0]->k == TY_TENSOR;
    for (i = 0; i < sizeof(lists_t) / sizeof(lists_t[0]); i++)
        if (strcmp(op, lists_t[i]) == 0 && (any_tensor || list_in) &&
            !(t0 && t0->k == TY_STR))
            return tsl_type_list(b->ty, tsj_prim_type(b, TY_TENSOR));
    if ((!strcmp(op, "atleast_1d") || !strcmp(op, "dequantize")) && list_in)
        return tsl_type_list(b->ty, tsj_prim_type(b, TY_TENSOR));
    return NULL;
}

/* aten:: ops with a tensor input. */
static const tsl_type *tensor_input_result(tsj_builder *b, tsj_node *n, const tsl_type *t0)
{
    const char *op = n->op;
    uint32_t i;
    static const char *const ints[] = { "dim", "numel", "size", "len", "element_size",
                                        "get_device", "Int", "IntImplicit", "stride",
                                        "nbytes", "itemsize", "storage_offset" };
    static const char *const bools_t[] = { "is_floating_point",
                                           "is_complex",
                                           "Bool",
                                           "is_contiguous",
                                           "is_nonzero",
                                           "equal",
                                           "allclose",
                                           "is_same_size",
                                           "is_signed",
                                           "is_pinned",
                                           "is_set_to",
                                           "is_conj",
                                           "is_neg",
                                           "is_inference",
                                           "__is__",
                                           "__isnot__",
                                           "__contains__",
                                           "_has_compatible_shallow_copy_type" };
    if (!strcmp(op, "size") && n->n_in == 1)
        return tsl_type_list(b->ty, tsj_prim_type(b, TY_INT));
    if (!strcmp(op, "stride") && n->n_in == 1)
        return tsl_type_list(b->ty, tsj_prim_type(b, TY_INT));
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        if (strcmp(op, ints[i]) == 0)
            return tsj_prim_type(b, TY_INT);
    for (i = 0; i < sizeof(bools_t) / sizeof(bools_t[0]); i++)
        if (strcmp(op, bools_t[i]) == 0)
            return tsj_prim_type(b, TY_BOOL);
    if (!strcmp(op, "Float") || !strcmp(op, "FloatImplicit"))
        return tsj_prim_type(b, TY_FLOAT);
    if (!strcmp(op, "item") || !strcmp(op, "ScalarImplicit"))
        return tsj_prim_type(b, TY_NUMBER);
    if (!strcmp(op, "str") || !strcmp(op, "format"))
        return tsj_prim_type(b, TY_STR);
    if (!strcmp(op, "tolist"))
        return tsj_prim_type(b, TY_UNKNOWN);
    if (!strcmp(op, "where") && n->n_in == 1)
        return tsl_type_list(b->ty, tsj_prim_type(b, TY_TENSOR));
    if (t0 && t0->k == TY_LIST && (!strcmp(op, "__getitem__") || !strcmp(op, "pop")))
        return t0->el[0];
    return tsj_prim_type(b, TY_TENSOR);
}

/* aten:: ops with no tensor input: scalars, strings, lists and dicts. */
static const tsl_type *scalar_result(tsj_builder *b, tsj_node *n, const tsl_type *t0)
{
    const char *op = n->op;
    uint32_t i;
    static const char *const ints[] = { "len", "Int", "IntImplicit", "ord", "__range_length",
                                        "__derive_index", "index", "count", "dim", "numel",
                                        "size", "_get_tracing_state", "get_device", "find",
                                        "rfind", "hash", "__round_to_zero_floordiv" };
    static const char *const bools[] = { "__not__", "__is__", "__isnot__", "__contains__",
                                         "Bool", "eq", "ne", "lt", "le", "gt", "ge",
                                         "isnan", "isinf", "isfinite", "is_scripting",
                                         "startswith", "endswith", "isdigit", "isalpha",
                                         "isupper", "islower", "isspace", "isalnum",
                                         "is_grad_enabled", "is_autocast_enabled",
                                         "is_tensor", "all", "any" };
    static const char *const strs[] = { "str", "format", "percentFormat", "join", "lower",
                                        "upper", "strip", "lstrip", "rstrip", "replace",
                                        "capitalize", "title", "center", "ljust", "rjust",
                                        "zfill", "swapcase", "expandtabs", "hex", "oct",
                                        "bin", "chr", "__str__", "repr", "casefold" };
    if (!strcmp(op, "size") && n->n_in == 1)
        return tsl_type_list(b->ty, tsj_prim_type(b, TY_INT));
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        if (strcmp(op, ints[i]) == 0 && !(t0 && t0->k == TY_UNKNOWN && !strcmp(op, "index")))
            return tsj_prim_type(b, TY_INT);
    for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
        if (strcmp(op, bools[i]) == 0)
            return tsj_prim_type(b, TY_BOOL);
    for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        if (strcmp(op, strs[i]) == 0)
            return tsj_prim_type(b, TY_STR);
    if (!strcmp(op, "Float") || !strcmp(op, "FloatImplicit"))
        return tsj_prim_type(b, TY_FLOAT);
    if (!strcmp(op, "ScalarImplicit") || !strcmp(op, "item"))
        return tsj_prim_type(b, TY_NUMBER);
    if (!strcmp(op, "device"))
        return tsj_prim_type(b, TY_DEVICE);
    if (!strcmp(op, "warn"))
        return tsj_prim_type(b, TY_NONE);
    if (!strcmp(op, "split") || !strcmp(op, "splitlines") || !strcmp(op, "rsplit"))
        return t0 && t0->k == TY_STR ? tsl_type_list(b->ty, tsj_prim_type(b, TY_STR))
                                     : tsl_type_list(b->ty, tsj_prim_type(b, TY_TENSOR));
    if (!strcmp(op, "list") || !strcmp(op, "copy") || !strcmp(op, "sorted") ||
        !strcmp(op, "append") || !strcmp(op, "_set_item") || !strcmp(op, "add_") ||
        !strcmp(op, "mul_") || !strcmp(op, "extend"))
        return t0 && (t0->k == TY_LIST || t0->k == TY_DICT) ? t0
               : t0 && t0->k == TY_STR ? tsl_type_list(b->ty, tsj_prim_type(b, TY_STR))
                                       : tsj_prim_type(b, TY_UNKNOWN);
    if (t0 && t0->k == TY_DICT) {
        if (!strcmp(op, "keys"))
            return tsl_type_list(b->ty, t0->el[0]);
        if (!strcmp(op, "values"))
            return tsl_type_list(b->ty, t0->el[1]);
        if (!strcmp(op, "items")) {
            const tsl_type *kv[2] = { t0->el[0], t0->el[1] };
            return tsl_type_list(b->ty, tsl_type_tuple(b->ty, kv, 2));
        }
        if (!strcmp(op, "get"))
            return n->n_in >= 3 ? t0->el[1] : tsl_type_optional(b->ty, t0->el[1]);
        if (!strcmp(op, "pop") || !strcmp(op, "setdefault") || !strcmp(op, "__getitem__"))
            return t0->el[1];
    }
    if (t0 && t0->k == TY_LIST) {
        if (!strcmp(op, "__getitem__") || !strcmp(op, "pop"))
            return t0->el[0];
        if (!strcmp(op, "add") || !strcmp(op, "mul") || !strcmp(op, "slice"))
            return t0;
    }
    if (t0 && t0->k == TY_STR && (!strcmp(op, "__getitem__") || !strcmp(op, "add") ||
                                  !strcmp(op, "mul") || !strcmp(op, "slice")))
        return tsj_prim_type(b, TY_STR);
    if (!strcmp(op, "div") || !strcmp(op, "pow") || !strcmp(op, "sqrt") ||
        !strcmp(op, "log") || !strcmp(op, "exp") || !strcmp(op, "log2") ||
        !strcmp(op, "log10") || !strcmp(op, "sin") || !strcmp(op, "cos") ||
        !strcmp(op, "tan") || !strcmp(op, "atan2") || !strcmp(op, "tanh") ||
        !strcmp(op, "log1p") || !strcmp(op, "erf"))
        return n->n_in ? (num_result(b, n, 1)->k == TY_UNKNOWN ? tsj_prim_type(b, TY_UNKNOWN)
                                                               : tsj_prim_type(b, TY_FLOAT))
                       : tsj_prim_type(b, TY_FLOAT);
    if (!strcmp(op, "floor") || !strcmp(op, "ceil") || !strcmp(op, "round") ||
        !strcmp(op, "trunc"))
        return t0 && t0->k == TY_FLOAT ? tsj_prim_type(b, TY_INT) : num_result(b, n, 0);
    if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") ||
        !strcmp(op, "floordiv") || !strcmp(op, "remainder") || !strcmp(op, "neg") ||
        !strcmp(op, "abs") || !strcmp(op, "fmod") || !strcmp(op, "min") ||
        !strcmp(op, "max") || !strcmp(op, "__and__") || !strcmp(op, "__or__") ||
        !strcmp(op, "__xor__") || !strcmp(op, "__lshift__") || !strcmp(op, "__rshift__") ||
        !strcmp(op, "__invert__") || !strcmp(op, "gcd") || !strcmp(op, "copysign")) {
        if (t0 && t0->k == TY_BOOL && (!strcmp(op, "__and__") || !strcmp(op, "__or__") ||
                                       !strcmp(op, "__xor__")))
            return tsj_prim_type(b, TY_BOOL);
        if (!strcmp(op, "fmod") || !strcmp(op, "copysign"))
            return tsj_prim_type(b, TY_FLOAT);
        return num_result(b, n, 0);
    }
    if (tsj_kind_fresh_tensor(op))
        return tsj_prim_type(b, TY_TENSOR);
    if (!strcmp(op, "__getitem__"))
        return tsj_prim_type(b, TY_UNKNOWN);
    return tsj_prim_type(b, TY_TENSOR);
}

const tsl_type *tsj_builtin_type(tsj_builder *b, tsj_node *n, uint32_t out_index)
{
    uint32_t i;
    const tsl_type *list;
    int any_tensor = 0;
    const tsl_type *t0 = n->n_in ? tsj_input(n, 0)->type : NULL;
    (void)out_index;
    for (i = 0; i < n->n_in; i++) {
        const tsl_type *t = tsj_input(n, i)->type;
        if (t && (t->k == TY_TENSOR || (t->k == TY_OPTIONAL && t->el[0]->k == TY_TENSOR)))
            any_tensor = 1;
    }
    if (strcmp(n->ns, "prim") == 0)
        return prim_result(b, n, t0);
    if (strcmp(n->ns, "aten") != 0)
        return tsj_prim_type(b, TY_TENSOR);
    if ((list = tensor_list_result(b, n, t0, any_tensor)))
        return list;
    return any_tensor ? tensor_input_result(b, n, t0) : scalar_result(b, n, t0);
}
