# ---- the harness: the same in every module opmap testgen writes (data/testgen/harness.py) ----
#
# Each case runs one operator twice on the same inputs: on the CPU at a raised precision
# (the benchmark: float16/bfloat16 computed in float32, float32 in float64, as msprobe's
# run_ut raises its benchmark) and on the device at the model's dtype, then compares them
# with one of msprobe's standards, chosen by the operator as msprobe chooses it:
#   binary      integer and bool outputs, and msprobe's BinaryCompareStandard list: equal
#   absolute    AbsoluteThreshStandard (elementwise add, mul, div...): every element within
#               rtol where |bench| >= small_value, within small_value_atol below it
#   ulp         ULPStandard (matmul family): float32 passes with a mean ULP error < 64 or
#               fewer than 5 % of elements over 32 ULP; float16/bfloat16 with fewer than
#               0.1 % over 1 ULP
#   thousandth  ThousandthStandard (conv): more than 99.9 % of elements within a relative
#               error of 0.001. msprobe judges the other operators against a GPU run
#               (its benchmark standard); without one, they are held to this standard.
# Infinities and NaNs must match in every standard. The thresholds, lists and raising are
# msprobe's (Ascend mstt, read at github.com/xiaobingling93-pixel/Ascend-mstt, commit
# 99c2e0f990a17d328f487062acc9c490f7f6ff26): debug/accuracy_tools/msprobe/pytorch/
# api_accuracy_checker/precision_standard/standard_config.py (StandardConfig),
# .../compare/api_precision_standard.yaml (the lists), .../compare/compare_utils.py
# (ULP_PARAMETERS), .../compare/algorithm.py (get_rel_err_ratio), msprobe/core/common/
# const.py (ULP thresholds 32 and 1, THOUSAND_RATIO_THRESHOLD, BFLOAT16_EPS) and
# msprobe/pytorch/common/utils.py (RAISE_PRECISION). Facts taken, not code.
import math
import os
import statistics
import time
import unittest
import zlib

import torch

DEVICE = os.environ.get("OPMAP_DEVICE", "npu")   # "npu" (torch_npu) or "cpu" (self-check)
TIMING_RUNS = 5                                  # timed calls per side, after one warm-up

RTOL = {"float16": 2 ** -10, "bfloat16": 2 ** -8, "float32": 2 ** -20}
SMALL_VALUE = {"float16": 2 ** -10, "bfloat16": 2 ** -10, "float32": 2 ** -20}
SMALL_VALUE_ATOL = {"float16": 2 ** -16, "bfloat16": 1e-16, "float32": 2 ** -30}
ULP_PARAMETERS = {"float16": (-14, 10), "bfloat16": (-126, 7), "float32": (-126, 23)}
ULP_FLOAT32_THRESHOLD, ULP_FLOAT16_THRESHOLD = 32, 1
FP32_MEAN_ULP_ERR, FP32_ULP_ERR_PROPORTION, FP16_ULP_ERR_PROPORTION = 64, 0.05, 0.001
THOUSAND_RATIO_THRESHOLD = 0.001
BFLOAT16_EPS = 2 ** -8

ABSOLUTE_APIS = {"mul", "add", "div", "divide", "leaky_relu", "prelu", "reciprocal", "rsqrt",
                 "square", "sub", "rsub"}
BINARY_APIS = {"abs", "absolute", "argmin", "bitwise_and", "broadcast_to", "ceil", "equal",
               "fill", "flatten", "floor", "gather", "greater", "greater_equal", "histc",
               "isfinite", "isnan", "less", "less_equal", "logical_and", "logical_not",
               "logical_or", "masked_fill", "max_pool3d", "maximum", "minimum", "neg",
               "nonzero", "not_equal", "one_hot", "pad", "relu", "reshape", "round", "select",
               "sign", "sort", "tile", "topk", "transpose", "tril", "triu", "type_as"}
ULP_APIS = {"matmul", "addbmm", "addmm", "baddbmm", "bilinear", "bmm", "chain_matmul", "hspmm",
            "linear", "mm", "mv", "smm", "sspaddmm"}
THOUSANDTH_APIS = {"conv1d", "conv2d"}
RAISE = {torch.float16: torch.float32, torch.bfloat16: torch.float32,
         torch.float32: torch.float64}

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "float64": torch.float64, "int64": torch.int64, "int32": torch.int32,
          "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
          "complex64": torch.complex64, "complex128": torch.complex128}


class T:
    """A tensor argument as the model states it: dtype, shape (ints and D), small values."""

    def __init__(self, dtype, shape, values=None):
        self.dtype, self.shape, self.values = dtype, shape, values


class D:
    """A dimension the model names (symbolic) or leaves unknown (name None): DIMS says its
    size, else DEFAULT_DIM."""

    def __init__(self, name=None):
        self.name = name

    def size(self):
        return int(DIMS.get(self.name, DEFAULT_DIM)) if self.name else int(DEFAULT_DIM)


class Case:
    def __init__(self, id, op, signature, kind, target, args, kwargs=None, attrs=None,
                 opset=0, outs=None, nodes=(), instances=0, models=(), why="", skip=None):
        self.id, self.op, self.signature, self.kind, self.target = id, op, signature, kind, target
        self.args, self.kwargs, self.attrs, self.opset = args, kwargs or {}, attrs or {}, opset
        self.outs, self.nodes, self.instances, self.models = outs or [], nodes, instances, models
        self.why, self.skip = why, skip


class Skip(Exception):
    """The case cannot run here (why is the message): it is reported skipped."""


# ---- inputs ----

def shape_of(spec):
    return [d.size() if isinstance(d, D) else int(d) for d in spec.shape]


def index_bound(case):
    """Random integers stay below every dimension of the case's other tensors, so an
    integer input used as an index is in range whatever axis it indexes."""
    dims = []

    def walk(a):
        if isinstance(a, T) and a.dtype in ("float32", "float16", "bfloat16", "float64"):
            dims.extend(s for s in shape_of(a) if s > 0)
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)
    walk(case.args)
    return max(1, min(dims)) if dims else 2


def build(spec, gen, bound):
    if isinstance(spec, T):
        dt, shape = DTYPES[spec.dtype], shape_of(spec)
        if spec.values is not None:
            return torch.tensor(spec.values, dtype=torch.float64).to(dt).reshape(shape)
        if dt.is_complex:
            return torch.randn(shape, generator=gen, dtype=dt)
        if dt.is_floating_point:
            return torch.randn(shape, generator=gen, dtype=torch.float32).to(dt)
        if dt == torch.bool:
            return torch.randint(0, 2, shape, generator=gen).bool()
        return torch.randint(0, bound, shape, generator=gen, dtype=torch.int64).to(dt)
    if isinstance(spec, list):
        return [build(s, gen, bound) for s in spec]
    return spec


def inputs(case):
    """The case's arguments with fixed random values (the seed is the signature's CRC). An
    ONNX input that must hold a shape, axes or sizes (NEEDS_VALUES) and whose value the
    model does not hold is None: its operator derives it from the output shape or skips."""
    gen = torch.Generator().manual_seed(zlib.crc32(case.signature.encode()) & 0x7FFFFFFF)
    bound = index_bound(case)
    needs = NEEDS_VALUES.get(case.target, ()) if case.kind == "onnx" else ()
    args = [None if i in needs and isinstance(a, T) and a.values is None else a
            for i, a in enumerate(case.args)]
    return ([build(a, gen, bound) for a in args],
            {k: build(v, gen, bound) for k, v in case.kwargs.items()})


def moved(x, device=None, raise_floats=False):
    if isinstance(x, torch.Tensor):
        if raise_floats and x.dtype in RAISE:
            x = x.to(RAISE[x.dtype])
        return x.to(device) if device else x
    if isinstance(x, list):
        return [moved(e, device, raise_floats) for e in x]
    if isinstance(x, tuple):
        return tuple(moved(e, device, raise_floats) for e in x)
    if isinstance(x, dict):
        return {k: moved(v, device, raise_floats) for k, v in x.items()}
    return x


# ---- running ----

# The operator namespaces a test calls (opmap testgen writes no other: any other node is a
# skipped test); torch.ops has attributes that are not operators (torch.ops.load_library
# loads a shared library), so only operator objects are ever called.
NAMESPACES = ("aten", "torchvision", "npu")


def aten_function(target):
    """torch.ops.<ns>.<op>[.<overload>] for "ns::op[.overload]": an operator, never another
    attribute of torch.ops."""
    ns, _, rest = target.partition("::")
    if ns in ("prim", "_operator", "builtins", "higher_order", "torch"):
        raise Skip("%s is graph plumbing, not an operator a kernel runs" % target)
    if ns not in NAMESPACES:
        raise Skip("%s: not an operator namespace of the table (%s)" % (target, ", ".join(NAMESPACES)))
    if ns == "torchvision":
        import torchvision  # noqa: F401  (registers torch.ops.torchvision)
    name, _, overload = rest.partition(".")
    space = getattr(torch.ops, ns)
    if not isinstance(space, torch._ops._OpNamespace):
        raise Skip("%s: not an operator namespace" % target)
    fn = getattr(space, name, None)
    if not isinstance(fn, torch._ops.OpOverloadPacket):
        raise Skip("%s: not an operator" % target)
    if overload:
        fn = getattr(fn, overload)
        if not isinstance(fn, torch._ops.OpOverload):
            raise Skip("%s: not an operator overload" % target)
    return fn


def call(case, args, kwargs, device):
    if case.kind == "aten":
        return aten_function(case.target)(*args, **kwargs)
    if case.kind == "swap":
        return SWAPS[case.target](args, case.attrs, device)
    if case.target not in ONNX:
        raise Skip("no ATen equivalent of ai.onnx::%s is written in this harness" % case.target)
    return ONNX[case.target](args, case.attrs, case.opset, case.outs, device)


def device_name():
    if DEVICE == "cpu":
        return "cpu"
    try:
        import torch_npu  # noqa: F401
    except ImportError:
        raise Skip("torch_npu is not installed here: run on the NPU machine, or with "
                   "--device cpu (OPMAP_DEVICE=cpu) to check the tests themselves")
    return "npu:0"


def sync(device):
    if device.startswith("npu"):
        torch.npu.synchronize()


def timed(fn, device):
    fn()
    sync(device)
    times = []
    for _ in range(TIMING_RUNS):
        t0 = time.perf_counter()
        fn()
        sync(device)
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def tensors(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in tensors(o)]
    return []


# ---- comparing ----

def api_name(case):
    """The name msprobe's lists know the operator by: the ATen name without namespace,
    overload and trailing underscore (an ONNX operator: its equivalent's); a swap test's
    is none of them (a fused kernel against its written form: the thousandth standard)."""
    if case.kind == "swap":
        return "swap"
    name = case.target.split("::")[-1].split(".")[0] if case.kind == "aten" else \
        ONNX_API.get(case.target, case.target.lower())
    return name.rstrip("_").lstrip("_")


def standard_of(case, dtype):
    if not dtype.is_floating_point:
        return "binary"
    name = api_name(case)
    if name in BINARY_APIS:
        return "binary"
    if name in ABSOLUTE_APIS:
        return "absolute"
    if name in ULP_APIS:
        return "ulp"
    return "thousandth"


def dtype_key(dtype):
    return {torch.float16: "float16", torch.bfloat16: "bfloat16"}.get(dtype, "float32")


def compare(bench, dev, standard):
    """(passed, max_abs, max_rel, why) for one output."""
    dev = dev.detach().cpu()
    if bench.shape != dev.shape:
        return False, None, None, "shape %s on the device, %s on the CPU" % (
            list(dev.shape), list(bench.shape))
    if standard == "binary" or not dev.dtype.is_floating_point:
        same = torch.equal(dev, bench.to(dev.dtype)) if dev.numel() else True
        if not same and dev.dtype.is_floating_point:
            b = bench.to(dev.dtype)
            same = bool(((dev == b) | (torch.isnan(dev) & torch.isnan(b))).all())
        return same, None, None, "" if same else "not equal"
    key = dtype_key(dev.dtype)
    b, d = bench.double(), dev.double()
    finite = torch.isfinite(b) & torch.isfinite(d)
    special_ok = bool(torch.equal(torch.isnan(b), torch.isnan(d)) and
                      torch.equal(torch.where(finite | torch.isnan(b), torch.zeros_like(b), b),
                                  torch.where(finite | torch.isnan(d), torch.zeros_like(d), d)))
    abs_err = torch.where(finite, (d - b).abs(), torch.zeros_like(b))
    eps = BFLOAT16_EPS if dev.dtype == torch.bfloat16 else torch.finfo(RAISE.get(dev.dtype, dev.dtype)).eps
    rel_err = abs_err / (b.abs() + eps)
    max_abs = float(abs_err.max()) if abs_err.numel() else 0.0
    max_rel = float(rel_err.max()) if rel_err.numel() else 0.0
    if not special_ok:
        return False, max_abs, max_rel, "infinities or NaNs differ"
    if standard == "absolute":
        small = finite & (b.abs() < SMALL_VALUE[key])
        normal = finite & ~small
        bad_rel = int((normal & (rel_err > RTOL[key])).sum())
        bad_abs = int((small & (abs_err > SMALL_VALUE_ATOL[key])).sum())
        ok = bad_rel == 0 and bad_abs == 0
        return ok, max_abs, max_rel, "" if ok else "%d elements over rtol %g, %d small ones " \
            "over atol %g" % (bad_rel, RTOL[key], bad_abs, SMALL_VALUE_ATOL[key])
    if standard == "ulp":
        min_eb, exponent_num = ULP_PARAMETERS[key]
        eb = torch.where(b == 0, torch.zeros_like(b), torch.floor(torch.log2(b.abs())))
        eb = torch.clamp(eb, min=min_eb)
        ulp = (abs_err * torch.pow(2.0, exponent_num - eb))[finite]
        n = max(1, ulp.numel())
        if key == "float32":
            mean = float(ulp.mean()) if ulp.numel() else 0.0
            share = float((ulp > ULP_FLOAT32_THRESHOLD).sum()) / n
            ok = mean < FP32_MEAN_ULP_ERR or share < FP32_ULP_ERR_PROPORTION
            return ok, max_abs, max_rel, "" if ok else "mean ULP error %.3g, %.3g%% over %d ULP" % (
                mean, share * 100, ULP_FLOAT32_THRESHOLD)
        share = float((ulp > ULP_FLOAT16_THRESHOLD).sum()) / n
        ok = share < FP16_ULP_ERR_PROPORTION
        return ok, max_abs, max_rel, "" if ok else "%.3g%% of elements over %d ULP" % (
            share * 100, ULP_FLOAT16_THRESHOLD)
    within = rel_err[finite] < THOUSAND_RATIO_THRESHOLD
    ratio = float(within.sum()) / within.numel() if within.numel() else 1.0
    ok = ratio > 1 - THOUSAND_RATIO_THRESHOLD
    return ok, max_abs, max_rel, "" if ok else "%.4g%% of elements within a relative error " \
        "of %g (more than %g%% needed)" % (ratio * 100, THOUSAND_RATIO_THRESHOLD,
                                           (1 - THOUSAND_RATIO_THRESHOLD) * 100)


def worst(a, b):
    return b if a is None else a if b is None else max(a, b)


def run_case(case):
    """Runs one case: a dict of the results file's members for it."""
    res = {"id": case.id, "op": case.op, "signature": case.signature, "outcome": "skipped",
           "standard": "", "max_abs_error": None, "max_rel_error": None, "cpu_ms": None,
           "device_ms": None, "message": "", "nodes": list(case.nodes)[:8]}
    try:
        if case.skip:
            raise Skip(case.skip)
        device = device_name()
        args, kwargs = inputs(case)
        with torch.no_grad():
            bench, raised = benchmark(case, args, kwargs)
            dev_args, dev_kwargs = moved(args, device), moved(kwargs, device)
            try:
                out = call(case, dev_args, dev_kwargs, device)
                sync(device)
            except Skip:
                raise
            except Exception as e:  # it runs on the CPU, not here: that is the answer
                res.update(outcome="fail", message="the device raised %s: %s" % (
                    type(e).__name__, e))
                return finish(res)
            res["cpu_ms"] = timed(lambda: call(case, args, kwargs, "cpu"), "cpu")
            res["device_ms"] = timed(lambda: call(case, dev_args, dev_kwargs, device), device)
        bench_t, out_t = tensors(bench), tensors(out)
        if len(bench_t) != len(out_t):
            raise AssertionError("%d outputs on the device, %d on the CPU" % (len(out_t),
                                                                               len(bench_t)))
        passed, why = True, []
        for i, (b, o) in enumerate(zip(bench_t, out_t)):
            standard = standard_of(case, o.dtype)
            ok, max_abs, max_rel, reason = compare(b, o, standard)
            res["standard"] = standard if not res["standard"] else res["standard"]
            res["max_abs_error"] = worst(res["max_abs_error"], max_abs)
            res["max_rel_error"] = worst(res["max_rel_error"], max_rel)
            if not ok:
                passed = False
                why.append("output %d: %s" % (i, reason))
        if not bench_t and bench != out:
            passed, why = False, ["the device gives %r, the CPU %r" % (out, bench)]
        if case.kind == "swap" and case.attrs.get("backward") and passed:
            passed, why = swap_backward(case, args, device, res)
        res["outcome"] = "pass" if passed else "fail"
        res["message"] = "; ".join(why) + ("" if raised else
                                           " (benchmark at the model's dtype: none raised)")
    except Skip as e:
        res["outcome"], res["message"] = "skipped", str(e)
    except Exception as e:  # the harness itself failed: what it said
        res["outcome"], res["message"] = "error", "%s: %s" % (type(e).__name__, e)
    return finish(res)


def benchmark(case, args, kwargs):
    """The CPU's output at the raised precision (or, when the operator has no kernel
    there, at the model's), and whether it was raised. When the CPU cannot run the operator
    on these inputs either, they are not the model's (a dynamic dimension at its default
    size, a value guessed): the case skips, saying so."""
    try:
        return call(case, moved(args, raise_floats=True), moved(kwargs, raise_floats=True),
                    "cpu"), True
    except Skip:
        raise
    except Exception:
        pass
    try:
        return call(case, args, kwargs, "cpu"), False
    except Skip:
        raise
    except Exception as e:
        raise Skip("the inputs built do not fit the operator on the CPU either (%s: %s): "
                   "give its dynamic dimensions their sizes (opmap testgen --dim NAME=SIZE, "
                   "or DIMS)" % (type(e).__name__, str(e)[:200]))


def finish(res):
    res["message"] = res["message"].strip()[:500]
    for key in ("max_abs_error", "max_rel_error", "cpu_ms", "device_ms"):
        if res[key] is not None and not math.isfinite(res[key]):
            res[key] = None  # an infinite error says no more than the outcome does
    return res


def run_test(case):
    """pytest's (and unittest's) view of a case: skip, fail or pass."""
    res = run_case(case)
    if res["outcome"] == "skipped":
        raise unittest.SkipTest(res["message"])
    assert res["outcome"] == "pass", "%s %s: %s (max abs error %s, max rel error %s)" % (
        res["outcome"], case.signature, res["message"], res["max_abs_error"],
        res["max_rel_error"])


# ---- ONNX operators as the ATen operators they are ----
#
# ONNX[op](args, attrs, opset, outs, device): the operator's semantics in torch calls, on
# the tensors the case built (an omitted input is None). ONNX_API names the ATen operator
# msprobe's lists know it by.

def _need(x, what):
    if x is None:
        raise Skip("%s: the model does not state it" % what)
    return x


def _ints(t):
    return [int(v) for v in t.reshape(-1).tolist()]


def _axes(args, attrs, opset, since, index=1):
    """Axes from the attribute (before `since`) or from input `index` (from it on)."""
    if opset < since:
        return attrs.get("axes")
    return _ints(args[index]) if len(args) > index and args[index] is not None else None


def _out_shape(outs, what):
    if outs and isinstance(outs[0], T) and all(not isinstance(d, D) or d.name for d in outs[0].shape):
        return shape_of(outs[0])
    raise Skip("%s is computed at run time and the model states no output shape" % what)


def _reduce(fn):
    def run(args, attrs, opset, outs, device):
        since = 18 if fn is not torch.sum else 13
        axes = _axes(args, attrs, opset, since)
        keep = bool(attrs.get("keepdims", 1))
        x = args[0]
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                return x
            axes = list(range(x.dim()))
        return fn(x, dim=axes, keepdim=keep)
    return run


def _softmax(fn):
    def run(args, attrs, opset, outs, device):
        x, axis = args[0], attrs.get("axis", -1 if opset >= 13 else 1)
        if opset >= 13:
            return fn(x, axis)
        shape = x.shape
        return fn(x.reshape(int(torch.tensor(shape[:axis]).prod()), -1), 1).reshape(shape)
    return run


def _conv(args, attrs, opset, outs, device):
    x, w, b = args[0], args[1], args[2] if len(args) > 2 else None
    n = x.dim() - 2
    pads = attrs.get("pads", [0] * 2 * n)
    if attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise Skip("auto_pad %s is not written in this harness" % attrs["auto_pad"])
    if pads[:n] != pads[n:]:
        x = torch.nn.functional.pad(x, [p for i in reversed(range(n)) for p in (pads[i], pads[i + n])])
        pads = [0] * 2 * n
    return torch.ops.aten.convolution(x, w, b, attrs.get("strides", [1] * n), pads[:n],
                                      attrs.get("dilations", [1] * n), False, [0] * n,
                                      attrs.get("group", 1))


def _gemm(args, attrs, opset, outs, device):
    a, b = args[0], args[1]
    a = a.t() if attrs.get("transA", 0) else a
    b = b.t() if attrs.get("transB", 0) else b
    y = attrs.get("alpha", 1.0) * torch.matmul(a, b)
    if len(args) > 2 and args[2] is not None:
        y = y + attrs.get("beta", 1.0) * args[2]
    return y


def _layer_norm(args, attrs, opset, outs, device):
    x, axis = args[0], attrs.get("axis", -1)
    shape = list(x.shape[axis:])
    return torch.nn.functional.layer_norm(x, shape, args[1], args[2] if len(args) > 2 else None,
                                          attrs.get("epsilon", 1e-5))


def _resize(args, attrs, opset, outs, device):
    x = args[0]
    mode = attrs.get("mode", "nearest")
    ctm = attrs.get("coordinate_transformation_mode", "half_pixel")
    scales = args[2] if len(args) > 2 and args[2] is not None and args[2].numel() else None
    sizes = args[3] if len(args) > 3 and args[3] is not None and args[3].numel() else None
    kw = {}
    if sizes is not None:
        kw["size"] = _ints(sizes)[2:]
    elif scales is not None:
        kw["scale_factor"] = [float(s) for s in scales.reshape(-1).tolist()][2:]
    else:
        kw["size"] = _out_shape(outs, "Resize's scales and sizes")[2:]
    torch_mode = {"nearest": "nearest", "linear": "bilinear" if x.dim() == 4 else "linear",
                  "cubic": "bicubic"}[mode]
    if torch_mode != "nearest":
        kw["align_corners"] = ctm == "align_corners"
    elif attrs.get("nearest_mode", "round_prefer_floor") != "floor" or ctm != "asymmetric":
        torch_mode = "nearest-exact" if ctm == "half_pixel" else "nearest"
    return torch.nn.functional.interpolate(x, mode=torch_mode, **kw)


def _slice(args, attrs, opset, outs, device):
    """ONNX Slice: per axis, start and end clamped as the operator's definition says (to
    [0, dim] for a positive step, [-1, dim - 1] for a negative one), the indices taken."""
    x = args[0]
    if opset < 10:
        starts, ends, axes, steps = attrs["starts"], attrs["ends"], attrs.get("axes"), None
    else:
        starts, ends = _ints(_need(args[1], "starts")), _ints(_need(args[2], "ends"))
        axes = _ints(args[3]) if len(args) > 3 and args[3] is not None else None
        steps = _ints(args[4]) if len(args) > 4 and args[4] is not None else None
    axes = axes or list(range(len(starts)))
    steps = steps or [1] * len(starts)
    for s, e, a, st in zip(starts, ends, axes, steps):
        a, dim = a % x.dim(), x.shape[a % x.dim()]
        s, e = s + dim if s < 0 else s, e + dim if e < 0 else e
        lo, hi = (0, dim) if st > 0 else (-1, dim - 1)
        s, e = min(max(s, lo), hi), min(max(e, lo), hi)
        idx = torch.arange(s, e, st, dtype=torch.int64, device=x.device)
        x = x.index_select(a, idx)
    return x


def _expand(args, attrs, opset, outs, device):
    shape = _ints(args[1]) if args[1] is not None else _out_shape(outs, "Expand's shape")
    return args[0] * torch.ones(shape, dtype=args[0].dtype, device=args[0].device)


def _reshape(args, attrs, opset, outs, device):
    shape = _ints(args[1]) if args[1] is not None else _out_shape(outs, "Reshape's shape")
    if not attrs.get("allowzero", 0):
        shape = [args[0].shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return args[0].reshape(shape)


def _unsqueeze(args, attrs, opset, outs, device):
    x = args[0]
    axes = sorted(a % (x.dim() + len(_axes(args, attrs, opset, 13)))
                  for a in _axes(args, attrs, opset, 13))
    for a in axes:
        x = x.unsqueeze(a)
    return x


def _squeeze(args, attrs, opset, outs, device):
    axes = _axes(args, attrs, opset, 13)
    if not axes:
        return args[0].squeeze()
    x = args[0]
    for a in sorted((a % x.dim() for a in axes), reverse=True):
        x = x.squeeze(a)
    return x


def _clip(args, attrs, opset, outs, device):
    lo = attrs.get("min") if opset < 11 else (args[1] if len(args) > 1 else None)
    hi = attrs.get("max") if opset < 11 else (args[2] if len(args) > 2 else None)
    return torch.clamp(args[0], lo, hi)


def _pool(kind):
    def run(args, attrs, opset, outs, device):
        x, k = args[0], attrs["kernel_shape"]
        n = len(k)
        pads = attrs.get("pads", [0] * 2 * n)
        if pads[:n] != pads[n:] or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
            raise Skip("asymmetric or automatic pooling pads are not written in this harness")
        f = getattr(torch.nn.functional, "%s_pool%dd" % (kind, n))
        kw = {"stride": attrs.get("strides", [1] * n), "padding": pads[:n],
              "ceil_mode": bool(attrs.get("ceil_mode", 0))}
        if kind == "max":
            kw["dilation"] = attrs.get("dilations", [1] * n)
        else:
            kw["count_include_pad"] = bool(attrs.get("count_include_pad", 0))
        return f(x, k, **kw)
    return run


def _batch_norm(args, attrs, opset, outs, device):
    x, scale, bias, mean, var = args[:5]
    return torch.nn.functional.batch_norm(x, mean, var, scale, bias, False, 0.0,
                                          attrs.get("epsilon", 1e-5))


def _topk(args, attrs, opset, outs, device):
    k = int(attrs["k"]) if opset < 10 else _ints(_need(args[1], "K"))[0]
    v, i = torch.topk(args[0], k, dim=attrs.get("axis", -1), largest=bool(attrs.get("largest", 1)),
                      sorted=bool(attrs.get("sorted", 1)))
    return v, i


def _gather(args, attrs, opset, outs, device):
    x, idx, axis = args[0], args[1].long(), attrs.get("axis", 0)
    idx = torch.where(idx < 0, idx + x.shape[axis], idx)
    return torch.index_select(x, axis, idx.reshape(-1)).reshape(
        list(x.shape[:axis % x.dim()]) + list(idx.shape) + list(x.shape[axis % x.dim() + 1:]))


def _concat(args, attrs, opset, outs, device):
    return torch.cat([a for a in args if a is not None], dim=attrs["axis"])


def _cast(args, attrs, opset, outs, device):
    onnx_types = {1: torch.float32, 2: torch.uint8, 3: torch.int8, 5: torch.int16,
                  6: torch.int32, 7: torch.int64, 9: torch.bool, 10: torch.float16,
                  11: torch.float64, 16: torch.bfloat16}
    if attrs.get("to") not in onnx_types:
        raise Skip("Cast to ONNX type %s is not written in this harness" % attrs.get("to"))
    return args[0].to(onnx_types[attrs["to"]])


def _roi_align(args, attrs, opset, outs, device):
    import torchvision
    x, rois, batch = args[0], args[1], args[2].to(args[1].dtype)
    boxes = torch.cat([batch.reshape(-1, 1), rois], dim=1)
    aligned = attrs.get("coordinate_transformation_mode", "half_pixel" if opset >= 16
                        else "output_half_pixel") == "half_pixel"
    if attrs.get("mode", "avg") != "avg":
        raise Skip("RoiAlign mode max is not written in this harness")
    return torchvision.ops.roi_align(x, boxes, [attrs.get("output_height", 1),
                                                attrs.get("output_width", 1)],
                                     attrs.get("spatial_scale", 1.0), attrs.get("sampling_ratio", 0),
                                     aligned)


def _binary(fn):
    return lambda args, attrs, opset, outs, device: fn(args[0], args[1])


def _unary(fn):
    return lambda args, attrs, opset, outs, device: fn(args[0])


def _variadic(fn):
    def run(args, attrs, opset, outs, device):
        y = args[0]
        for a in args[1:]:
            y = fn(y, a)
        return y
    return run


ONNX = {
    "Add": _binary(torch.add), "Sub": _binary(torch.sub), "Mul": _binary(torch.mul),
    "Div": lambda a, at, o, u, d: torch.div(a[0], a[1], rounding_mode="trunc")
    if not a[0].dtype.is_floating_point else torch.div(a[0], a[1]),
    "Pow": _binary(torch.pow), "MatMul": _binary(torch.matmul), "Gemm": _gemm,
    "Equal": _binary(torch.eq), "Less": _binary(torch.lt), "Greater": _binary(torch.gt),
    "LessOrEqual": _binary(torch.le), "GreaterOrEqual": _binary(torch.ge),
    "And": _binary(torch.logical_and), "Or": _binary(torch.logical_or),
    "Xor": _binary(torch.logical_xor), "Not": _unary(torch.logical_not),
    "Max": _variadic(torch.maximum), "Min": _variadic(torch.minimum),
    "Sum": _variadic(torch.add), "Mean": lambda a, at, o, u, d: _variadic(torch.add)(
        a, at, o, u, d) / len(a),
    "Relu": _unary(torch.relu), "Sigmoid": _unary(torch.sigmoid), "Tanh": _unary(torch.tanh),
    "Erf": _unary(torch.erf), "Exp": _unary(torch.exp), "Log": _unary(torch.log),
    "Sqrt": _unary(torch.sqrt), "Abs": _unary(torch.abs), "Neg": _unary(torch.neg),
    "Floor": _unary(torch.floor), "Ceil": _unary(torch.ceil), "Round": _unary(torch.round),
    "Reciprocal": _unary(torch.reciprocal), "Sign": _unary(torch.sign),
    "Sin": _unary(torch.sin), "Cos": _unary(torch.cos), "Identity": _unary(lambda x: x.clone()),
    "IsNaN": _unary(torch.isnan), "IsInf": _unary(torch.isinf),
    "Softplus": _unary(torch.nn.functional.softplus),
    "Gelu": lambda a, at, o, u, d: torch.nn.functional.gelu(
        a[0], approximate=at.get("approximate", "none")),
    "LeakyRelu": lambda a, at, o, u, d: torch.nn.functional.leaky_relu(a[0], at.get("alpha", 0.01)),
    "Elu": lambda a, at, o, u, d: torch.nn.functional.elu(a[0], at.get("alpha", 1.0)),
    "HardSigmoid": lambda a, at, o, u, d: torch.clamp(
        at.get("alpha", 0.2) * a[0] + at.get("beta", 0.5), 0, 1),
    "HardSwish": _unary(torch.nn.functional.hardswish),
    "PRelu": _binary(torch.nn.functional.prelu),
    "Softmax": _softmax(torch.softmax), "LogSoftmax": _softmax(torch.log_softmax),
    "ReduceMean": _reduce(torch.mean), "ReduceSum": _reduce(torch.sum),
    "ReduceMax": _reduce(torch.amax), "ReduceMin": _reduce(torch.amin),
    "ArgMax": lambda a, at, o, u, d: torch.argmax(a[0], at.get("axis", 0),
                                                  bool(at.get("keepdims", 1))),
    "ArgMin": lambda a, at, o, u, d: torch.argmin(a[0], at.get("axis", 0),
                                                  bool(at.get("keepdims", 1))),
    "Conv": _conv, "LayerNormalization": _layer_norm, "BatchNormalization": _batch_norm,
    "InstanceNormalization": lambda a, at, o, u, d: torch.nn.functional.instance_norm(
        a[0], weight=a[1], bias=a[2], eps=at.get("epsilon", 1e-5)),
    "MaxPool": _pool("max"), "AveragePool": _pool("avg"),
    "GlobalAveragePool": lambda a, at, o, u, d: torch.mean(
        a[0], dim=list(range(2, a[0].dim())), keepdim=True),
    "GlobalMaxPool": lambda a, at, o, u, d: torch.amax(
        a[0], dim=list(range(2, a[0].dim())), keepdim=True),
    "Transpose": lambda a, at, o, u, d: a[0].permute(
        at.get("perm", list(reversed(range(a[0].dim()))))),
    "Reshape": _reshape, "Flatten": lambda a, at, o, u, d: torch.flatten(
        a[0], 0, at.get("axis", 1) - 1).reshape(
        int(torch.tensor(a[0].shape[:at.get("axis", 1)]).prod()), -1)
    if at.get("axis", 1) else a[0].reshape(1, -1),
    "Unsqueeze": _unsqueeze, "Squeeze": _squeeze, "Concat": _concat, "Slice": _slice,
    "Expand": _expand, "Gather": _gather, "Cast": _cast, "Clip": _clip, "TopK": _topk,
    "Where": lambda a, at, o, u, d: torch.where(a[0], a[1], a[2]),
    "NonZero": lambda a, at, o, u, d: torch.nonzero(a[0]).t(),
    "Shape": lambda a, at, o, u, d: torch.tensor(a[0].shape, dtype=torch.int64, device=a[0].device),
    "Tile": lambda a, at, o, u, d: a[0].repeat(_ints(_need(a[1], "repeats"))),
    "CumSum": lambda a, at, o, u, d: torch.cumsum(a[0], _ints(a[1])[0]),
    "Einsum": lambda a, at, o, u, d: torch.einsum(at["equation"], *a),
    "Resize": _resize, "RoiAlign": _roi_align,
    "Dropout": lambda a, at, o, u, d: a[0].clone(),
    "GatherElements": lambda a, at, o, u, d: torch.gather(a[0], at.get("axis", 0), a[1].long()),
}

# ONNX inputs that must hold values (a shape, axes, sizes, starts...): without the value in
# the model, random numbers would test another operation
NEEDS_VALUES = {"Expand": (1,), "Reshape": (1,), "Resize": (1, 2, 3), "Tile": (1,),
                "TopK": (1,), "Slice": (1, 2, 3, 4), "Unsqueeze": (1,), "Squeeze": (1,),
                "ReduceMean": (1,), "ReduceSum": (1,), "ReduceMax": (1,), "ReduceMin": (1,),
                "CumSum": (1,), "Clip": (), "Einsum": ()}

# the ATen operator msprobe's lists name each ONNX operator by (default: its name, lowered)
ONNX_API = {"Sub": "sub", "Mul": "mul", "Div": "div", "Add": "add", "MatMul": "matmul",
            "Gemm": "addmm", "Equal": "equal", "Less": "less", "Greater": "greater",
            "LessOrEqual": "less_equal", "GreaterOrEqual": "greater_equal",
            "Relu": "relu", "Abs": "abs", "Neg": "neg", "Floor": "floor", "Ceil": "ceil",
            "Round": "round", "Reciprocal": "reciprocal", "Sign": "sign",
            "LeakyRelu": "leaky_relu", "PRelu": "prelu", "Max": "maximum", "Min": "minimum",
            "Transpose": "transpose", "Reshape": "reshape", "Flatten": "flatten",
            "Gather": "gather", "TopK": "topk", "NonZero": "nonzero", "Tile": "tile",
            "Conv": "conv2d", "Expand": "broadcast_to", "Not": "logical_not",
            "And": "logical_and", "Or": "logical_or", "Unsqueeze": "reshape",
            "Squeeze": "reshape", "Slice": "select", "Concat": "cat", "Cast": "type_as",
            "IsNaN": "isnan", "Identity": "clone", "Dropout": "clone", "Shape": "reshape"}


# ---- fused-kernel swaps (data/patterns.yaml; docs/testgen.md, "Swap tests") ----
#
# SWAPS[pattern](args, attrs, device): on an NPU the fused kernel the scan advised, else
# (the CPU benchmark, and --device cpu's self-check) the written-out form the model has. So
# on the NPU machine a swap test compares the fused kernel against the written form at a
# raised precision; on the CPU it checks the test itself (shapes, argument conventions).

def _npu(device):
    if not device.startswith("npu"):
        return None
    import torch_npu
    return torch_npu


def _rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def _swap_rmsnorm(a, at, device):
    x, w = a
    npu = _npu(device)
    if npu:
        return npu.npu_rms_norm(x, w, epsilon=1e-6)[0]
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def _swap_rotary(a, at, device):
    x, cos, sin = a
    npu = _npu(device)
    if npu:
        return npu.npu_rotary_mul(x, cos, sin)
    return x * cos + _rotate_half(x) * sin


def _swap_swiglu(a, at, device):
    gate, up = a
    npu = _npu(device)
    if npu:
        return npu.npu_swiglu(torch.cat([gate, up], dim=-1), dim=-1)
    return torch.nn.functional.silu(gate) * up


def _swap_gelu(a, at, device):
    x = a[0]
    if _npu(device):
        return torch.nn.functional.gelu(x)  # op-plugin's aten::gelu kernel
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def _swap_layernorm(a, at, device):
    x, w, b = a
    if _npu(device):
        return torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, 1e-5)
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5) * w + b


def _swap_attention(a, at, device):
    q, k, v = a
    if _npu(device) and hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)  # npu_fusion_attention
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return w @ v


def _swap_moe_router(a, at, device):
    logits, k = a[0], int(at.get("k", 2))
    npu = _npu(device)
    if npu and at.get("kernel") == "npu_moe_gating_top_k":  # a training scan's advice
        y, idx = npu.npu_moe_gating_top_k(logits, k, norm_type=0)[:2]
        return y, idx.long()
    if npu:
        y, idx = npu.npu_moe_gating_top_k_softmax(logits, None, k=k)[:2]
        return y, idx.long()
    y, idx = torch.softmax(logits, dim=-1).topk(k, dim=-1)
    return y, idx


SWAPS = {"rmsnorm": _swap_rmsnorm, "rotary": _swap_rotary, "swiglu": _swap_swiglu,
         "gelu": _swap_gelu, "layernorm": _swap_layernorm, "attention": _swap_attention,
         "moe_router": _swap_moe_router}


def swap_backward(case, args, device, res):
    """A training workload: the gradients of both forms for the same output weights, each
    float input's compared as the outputs were. (passed, why)."""
    def grads(inp, dev):
        xs = [x.detach().clone().requires_grad_(True) if isinstance(x, torch.Tensor) and
              x.dtype.is_floating_point else x for x in inp]
        out = tensors(SWAPS[case.target](xs, case.attrs, dev))
        gen = torch.Generator().manual_seed(1)
        loss = sum((o * torch.randn(o.shape, generator=gen).to(o.dtype).to(o.device)).sum()
                   for o in out if o.dtype.is_floating_point)
        loss.backward()
        return [x.grad for x in xs if isinstance(x, torch.Tensor) and x.requires_grad]
    bench = grads(moved(args, raise_floats=True), "cpu")
    dev = grads(moved(args, device), device)
    why = []
    for i, (b, d) in enumerate(zip(bench, dev)):
        if b is None or d is None:
            continue
        ok, max_abs, max_rel, reason = compare(b, d, "thousandth")
        res["max_abs_error"] = worst(res["max_abs_error"], max_abs)
        res["max_rel_error"] = worst(res["max_rel_error"], max_rel)
        if not ok:
            why.append("gradient %d: %s" % (i, reason))
    return not why, why
