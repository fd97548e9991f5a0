/*
 * readers/torchscript/jit/kinds.c - printed form <-> node kind tables (see jit/kinds.h).
 */
#include "kinds.h"

#include <string.h>

#include "graph.h"

typedef struct kind_name {
    const char *ns, *op;
    int kind;
} kind_name;

static const kind_name kinds[] = {
    { "prim", "Constant", TSJ_KIND_CONST },
    { "prim", "If", TSJ_KIND_IF },
    { "prim", "Loop", TSJ_KIND_LOOP },
    { "prim", "CallMethod", TSJ_KIND_CALLM },
    { "prim", "CallFunction", TSJ_KIND_CALLF },
    { "prim", "GetAttr", TSJ_KIND_GETATTR },
    { "prim", "SetAttr", TSJ_KIND_SETATTR },
    { "prim", "ListConstruct", TSJ_KIND_LISTC },
    { "prim", "TupleConstruct", TSJ_KIND_TUPLEC },
    { "prim", "DictConstruct", TSJ_KIND_DICTC },
    { "prim", "TupleIndex", TSJ_KIND_TUPLEIDX },
    { "prim", "TupleUnpack", TSJ_KIND_TUPLEUNPACK },
    { "prim", "ListUnpack", TSJ_KIND_LISTUNPACK },
    { "prim", "NumToTensor", TSJ_KIND_NUMTOTENSOR },
    { "prim", "Uninitialized", TSJ_KIND_UNINIT },
    { "prim", "RaiseException", TSJ_KIND_RAISE },
    { "prim", "unchecked_cast", TSJ_KIND_UNCHECKED },
    { "prim", "CreateObject", TSJ_KIND_CREATEOBJ },
    { "prim", "isinstance", TSJ_KIND_ISINSTANCE },
    { "prim", "Print", TSJ_KIND_PRINT },
    { "prim", "tolist", TSJ_KIND_TOLIST },
    { "prim", "min", TSJ_KIND_PMIN },
    { "prim", "max", TSJ_KIND_PMAX },
    { "prim", "unchecked_unwrap_optional", TSJ_KIND_UNWRAP },
    { "prim", "Enter", TSJ_KIND_ENTER },
    { "prim", "Exit", TSJ_KIND_EXIT },
    { "aten", "add", TSJ_KIND_ADD },
    { "aten", "sub", TSJ_KIND_SUB },
    { "aten", "mul", TSJ_KIND_MUL },
    { "aten", "div", TSJ_KIND_DIV },
    { "aten", "floordiv", TSJ_KIND_FLOORDIV },
    { "aten", "remainder", TSJ_KIND_REMAINDER },
    { "aten", "neg", TSJ_KIND_NEG },
    { "aten", "pow", TSJ_KIND_POW },
    { "aten", "eq", TSJ_KIND_EQ },
    { "aten", "ne", TSJ_KIND_NE },
    { "aten", "lt", TSJ_KIND_LT },
    { "aten", "le", TSJ_KIND_LE },
    { "aten", "gt", TSJ_KIND_GT },
    { "aten", "ge", TSJ_KIND_GE },
    { "aten", "__not__", TSJ_KIND_NOT },
    { "aten", "__is__", TSJ_KIND_IS },
    { "aten", "__isnot__", TSJ_KIND_ISNOT },
    { "aten", "__and__", TSJ_KIND_AND },
    { "aten", "__or__", TSJ_KIND_OR },
    { "aten", "__xor__", TSJ_KIND_XOR },
    { "aten", "Int", TSJ_KIND_INT },
    { "aten", "Float", TSJ_KIND_FLOAT },
    { "aten", "Bool", TSJ_KIND_BOOL },
    { "aten", "str", TSJ_KIND_STR },
    { "aten", "IntImplicit", TSJ_KIND_INTIMPL },
    { "aten", "FloatImplicit", TSJ_KIND_FLOATIMPL },
    { "aten", "ScalarImplicit", TSJ_KIND_SCALARIMPL },
    { "aten", "len", TSJ_KIND_LEN },
    { "aten", "__getitem__", TSJ_KIND_GETITEM },
    { "aten", "slice", TSJ_KIND_SLICE },
    { "aten", "cat", TSJ_KIND_CAT },
    { "aten", "conv1d", TSJ_KIND_CONV1D },
    { "aten", "conv2d", TSJ_KIND_CONV2D },
    { "aten", "conv3d", TSJ_KIND_CONV3D },
    { "aten", "dim", TSJ_KIND_DIM },
    { "aten", "t", TSJ_KIND_T },
    { "aten", "format", TSJ_KIND_FORMAT },
    { "aten", "ceil", TSJ_KIND_CEIL },
    { "aten", "floor", TSJ_KIND_FLOOR },
    { "aten", "abs", TSJ_KIND_ABS },
    { "aten", "warn", TSJ_KIND_WARN },
    { "aten", "_unwrap_optional", TSJ_KIND_UNWRAP_OPT },
    { "aten", "_grad_sum_to_size", TSJ_KIND_GRADSUM },
    { "aten", "percentFormat", TSJ_KIND_PERCENTFORMAT },
};

int tsj_kind_lookup(const char *ns, const char *op)
{
    size_t i;
    if (strcmp(ns, "aten") != 0 && strcmp(ns, "prim") != 0)
        return TSJ_KIND_OTHER;
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(kinds[i].op, op) == 0 && strcmp(kinds[i].ns, ns) == 0)
            return kinds[i].kind;
    return TSJ_KIND_OTHER;
}

/* torch's NormalizeOps aliases (torch/csrc/jit/passes/normalize_ops.cpp) */
static const char *const aliases[][2] = {
    { "absolute", "abs" }, { "absolute_", "abs_" }, { "clip", "clamp" }, { "clip_", "clamp_" },
    { "arccos", "acos" }, { "arccos_", "acos_" }, { "arcsin", "asin" }, { "arcsin_", "asin_" },
    { "arctan", "atan" }, { "arctan_", "atan_" }, { "arctan2", "atan2" },
    { "arctan2_", "atan2_" }, { "arccosh", "acosh" }, { "arccosh_", "acosh_" },
    { "arcsinh", "asinh" }, { "arcsinh_", "asinh_" }, { "arctanh", "atanh" },
    { "arctanh_", "atanh_" }, { "fix", "trunc" }, { "fix_", "trunc_" }, { "negative", "neg" },
    { "negative_", "neg_" }, { "subtract", "sub" }, { "subtract_", "sub_" },
    { "greater_equal", "ge" }, { "greater_equal_", "ge_" }, { "greater", "gt" },
    { "greater_", "gt_" }, { "less_equal", "le" }, { "less_equal_", "le_" }, { "less", "lt" },
    { "less_", "lt_" }, { "not_equal", "ne" }, { "not_equal_", "ne_" }, { "divide", "div" },
    { "divide_", "div_" }, { "multiply", "mul" }, { "multiply_", "mul_" },
    { "true_divide", "div" }, { "true_divide_", "div_" }, { "swapdims", "transpose" },
    { "swapdims_", "transpose_" }, { "swapaxes", "transpose" }, { "swapaxes_", "transpose_" },
    { "moveaxis", "movedim" },
};

const char *tsj_canon_op(const char *op)
{
    size_t i;
    for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strcmp(aliases[i][0], op) == 0)
            return aliases[i][1];
    return op;
}

const char *tsj_builtin_op(const char *name)
{
    static const char *const map[][2] = {
        { "int", "Int" }, { "float", "Float" }, { "bool", "Bool" }, { "str", "str" },
        { "complex", "Complex" }, { "len", "len" }, { "abs", "abs" }, { "round", "round" },
        { "divmod", "divmod" }, { "hash", "hash" }, { "ord", "ord" }, { "chr", "chr" },
        { "hex", "hex" }, { "oct", "oct" }, { "bin", "bin" }, { "list", "list" },
        { "sorted", "sorted" }, { "all", "all" }, { "any", "any" }, { "sum", "sum" },
    };
    size_t i;
    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i][0], name) == 0)
            return map[i][1];
    return NULL;
}

int tsj_kind_side_effects(const char *ns, const char *op)
{
    static const char *const prim[] = { "Print", "RaiseException", "SetAttr", "CallFunction",
                                        "CallMethod", "Enter", "Exit", "PythonOp",
                                        "IgnoredPythonOp", "AddStatValue", "TimePoint",
                                        "rpc_async", "rpc_sync", "rpc_remote", "BailOut",
                                        "BailoutTemplate" };
    /* plus the ops registered with conservative alias analysis (global state) */
    static const char *const aten[] = { "warn", "save", "manual_seed", "wait",
                                        "is_grad_enabled", "set_grad_enabled",
                                        "is_autocast_enabled", "is_autocast_cpu_enabled",
                                        "_set_item_no_grad", "seed", "initial_seed" };
    size_t i;
    if (strcmp(ns, "cuda") == 0)
        return 1;
    if (strcmp(ns, "prim") == 0) {
        for (i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
            if (strcmp(prim[i], op) == 0)
                return 1;
    } else if (strcmp(ns, "aten") == 0) {
        for (i = 0; i < sizeof(aten) / sizeof(aten[0]); i++)
            if (strcmp(aten[i], op) == 0)
                return 1;
    }
    return 0;
}

int tsj_kind_mutable(const char *ns, const char *op)
{
    static const char *const list_ops[] = { "append", "extend", "insert", "pop", "remove",
                                            "clear", "reverse", "_set_item", "setdefault",
                                            "update", "popitem", "__setitem__", "sort",
                                            "add_", "copy_", "_index_put_impl_" };
    size_t i, n;
    if (strcmp(ns, "aten") != 0)
        return 0;
    for (i = 0; i < sizeof(list_ops) / sizeof(list_ops[0]); i++)
        if (strcmp(list_ops[i], op) == 0)
            return 1;
    n = strlen(op);
    /* in-place ops end with one underscore; dunders (__and__) are not in-place */
    return n > 1 && op[n - 1] == '_' && op[n - 2] != '_';
}

int tsj_kind_fresh_tensor(const char *op)
{
    static const char *const ops[] = {
        "tensor", "scalar_tensor", "as_tensor", "arange", "range", "linspace", "logspace",
        "eye", "zeros", "ones", "full", "empty", "rand", "randn", "randint", "randperm",
        "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
        "NumToTensor", "from_file", "empty_strided", "new_zeros", "new_ones", "new_full",
        "new_empty", "bartlett_window", "blackman_window", "hamming_window", "hann_window",
        "kaiser_window", "tril_indices", "triu_indices", "normal", "poisson"
    };
    size_t i;
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(ops[i], op) == 0)
            return 1;
    return 0;
}

int tsj_kind_view(const char *op)
{
    static const char *const ops[] = {
        "view", "view_as", "reshape", "reshape_as", "select", "slice", "narrow", "transpose",
        "t", "permute", "squeeze", "unsqueeze", "expand", "expand_as", "flatten", "unflatten",
        "contiguous", "to", "type_as", "detach", "alias", "as_strided", "chunk", "split",
        "split_with_sizes", "unbind", "tensor_split", "real", "imag", "diagonal", "movedim",
        "unfold", "indices", "values", "numpy_T", "mT", "mH", "T", "H", "view_as_real",
        "view_as_complex", "__getitem__", "append", "_set_item", "expand_copy",
        "unsafe_chunk", "unsafe_split", "hsplit", "vsplit", "dsplit", "swapaxes", "swapdims",
        "_reshape_alias", "matrix_H", "adjoint", "conj", "resolve_conj", "resolve_neg",
        "_conj", "_neg_view", "ccol_indices", "crow_indices", "row_indices", "col_indices"
    };
    size_t i, n = strlen(op);
    if (n > 1 && op[n - 1] == '_' && op[n - 2] != '_')
        return 1;
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(ops[i], op) == 0)
            return 1;
    return 0;
}
