#!/usr/bin/python3
"""torch_npu kernels of Ascend/op-plugin (D5, D6, D7).

Sources (Ascend/op-plugin, BSD-style):
  op-plugin-functions    op_plugin/config/op_plugin_functions.yaml: every
                         schema with its `acl_op` / `op_api` version ranges
                         (`all_version`, `[v2.1, newest]`, `v2.1`, `"v2.1, v2.2"`),
                         the `gen_opapi.exec` aclnn name and tags; plus the aclnn
                         names called (EXEC_NPU_CMD...) by each function in
                         op_plugin/ops/opapi/*.cpp (names only).
  op-plugin-deprecated   op_plugin/config/deprecated.yaml (name -> replace).
  op-plugin-unsupported  test/unsupported_ops_info_base.yaml (OpInfo name ->
                         test -> failing dtypes).

Sections: `official`, `autograd`, `quant` and the non-npu entries of `symint`
are aten ops (namespace aten); `custom` and npu entries of `symint` are
torch_npu custom ops (namespace npu).

Facts:
  versions: [v2.1, ..., v2.15]
  ops: {"ns|base": {"ns", "base", "overloads": {overload: {"acl_op": [vers],
                    "op_api": [vers], "sparse": [vers] (a kernel for sparse
                    tensors, the `sparse:` key), "exec": aclnn|None, "aclnn_calls": [..],
                    "aclnn_compat": [..], "aten_calls": [..], "aclnn_via": [..],
                    "kernel": ..}}, "aclnn": [names], "aclnn_calls": [names],
                    "aclnn_main": name|None, "tags": [..], "sections": [..]}}
                    ("aclnn" is the older per-base name guess, kept as it was)
  deprecated: {"name.overload": replace-or-None}
  unsupported: {opinfo_name: {test: [dtypes]}}
  unsupported_by_class: {opinfo_name: {class: {test: [dtypes]}}}, class from
                    TEST_MEANING ("precision", "dtype", "harness", "unclear")

Actual aclnn calls (per overload, names in first-use order):
  The dispatch wrapper op-plugin generates for schema `base.ov` calls
  op_api::<cpp name>, cpp name = base + "_out" (out= schema) + "_symint" (listed
  under `symint:`); overloads sharing a cpp name are told apart by their
  parameter types.  The body of that definition (op_plugin/ops/opapi/**.cpp,
  namespace op_api) is read for EXEC_*CMD*(aclnnX, ...) and
  DO_*COMPATIBILITY(aclnnX, ...), following direct C++ calls into functions of
  the same file, op_api:: functions of other files and the helpers of
  op_plugin/utils (never into acl_op::, the graph-mode fallback, nor op_infer::,
  host-side shape inference).  DO_MATMUL/ADDMM_COMPATIBILITY(nz, nd, ..) list
  the nd API (plain ND tensors) before the nz one (weights already in
  FRACTAL_NZ).  Definitions under #if VERSION_BETWEEN(..) count only when their
  versions meet the overload's op_api range.  gen_opapi overloads: their `exec`
  (plus cpu_scalar_op execs); structured_inherit / structured_delegate: the
  target overload's calls.
  aclnn_calls   [aclnn names the op_api kernel executes or gates on]
  aclnn_compat  [the DO_*COMPATIBILITY names: one missing from the CANN
                library -> the kernel falls back to acl_op]
  aten_calls    ["aten::x" / "npu::x"] ops with op-plugin kernels it re-enters
                through the dispatcher (at::x, custom_ops::x; for a kernel that
                only forwards, also its Tensor-method calls)
  aclnn_via     [aclnn names reached through aten_calls (the called base's
                non-out, or out, overloads; transitively)]
  kernel        "gen_opapi" | [opapi source paths] | None (no op_api kernel)
  rec "aclnn_calls": union over overloads (default overload first);
  producers     [("exec" aclnnX | "aten" aten::x / npu::x)] what writes the tensor the
                kernel returns (its first one): the EXEC/COMPAT macro taking it,
                the call assigned to it or returned, another op's kernel called
                with it; helpers called with it only when nothing else writes it
  producer_apis [aclnn names] of the producers, through the ops they name
  rec "aclnn_main": one name for the row, from the principal overload (default,
                Tensor, self, input, else the first non-out one with a name):
                when the output is traced, among its producer APIs (never a
                fill/alloc helper such as aclnnInplaceZero, unless the op is a
                fill) narrowed to the one named aclnn<Base>, naming the op,
                guarded by DO_*COMPATIBILITY, named after the overload, then
                the shortest; none when the producers have no API.  Else, as
                before: among its own-body DO_*COMPATIBILITY names, then
                aclnn_calls, then aclnn_via, the one named aclnn<Base>
                (aclnnInplace<Base> for base_), else the first; *WeightNz
                names only when alone.
  rec "producers": the principal overload's producers, "kind name".

Also writes tools/table/op_plugin_aten_ops.txt (aten base names, one a line)
when run with --write-list.
"""
import bisect
import os
import re

import yaml

from _common import HERE, importer_main, open_source, strip_c_comments, version_key, split_top

FUNCS = "op_plugin/config/op_plugin_functions.yaml"
DEPRECATED = "op_plugin/config/deprecated.yaml"
UNSUPPORTED = "test/unsupported_ops_info_base.yaml"
LIST_FILE = os.path.join(HERE, "op_plugin_aten_ops.txt")


# What a failure in op-plugin's OpInfo skip list (test/unsupported_ops_info_base.yaml) says.
# The list is turned into unittest skips of torch_npu's test/test_ops.py (an NPU copy of
# PyTorch's test_ops.py; torchnpugen/codegen_ops_info.py maps each name to its class) and
# records the (OpInfo, test, dtype) triples skipped on NPU, with no reason: a test fails on
# any exception of the harness too, so an entry is not evidence about a kernel (the table
# notes it, never flags or charges it).  The dtype of an entry is the one the harness
# instantiated the test for, which for most tests is fixed by the test itself
# (allowed_dtypes / OpDTypes), not chosen by what the kernel supports.
#   test -> (class, dtypes the test runs in, what the test checks)
#   class: "precision" the test compares NPU numbers with the CPU reference
#          "dtype"     the kernel lacks the dtype            (no test of the list proves this alone)
#          "harness"   test machinery; nothing a user of the op would see
#          "unclear"   may or may not concern the kernel
TEST_MEANING = {
    # TestCommon
    "test_compare_cpu": (
        "precision",
        "one dtype common to CPU and NPU (OpDTypes.any_common_cpu_cuda_one, float32 first)",
        "NPU vs CPU on the OpInfo reference inputs, atol=rtol=1e-3; an NPU error on one of those inputs "
        "fails it too"),
    "test_variant_consistency_eager": (
        "unclear",
        "float32 and complex64 (allowed_dtypes of _variant_ops)",
        "method / inplace / operator / alias variants and their gradients against the function variant, "
        "plus inplace storage preservation"),
    "test_out": (
        "harness",
        "one supported dtype (OpDTypes.any_one)",
        "out= semantics: resize, noncontiguous / zero-size / wrong-device / wrong-dtype out tensors; "
        "skipped outright in the pinned torch_npu test_ops.py"),
    "test_out_integral_dtype": (
        "harness",
        "int16",
        "reduction dtype= vs out dtype error message"),
    "test_out_warning": (
        "harness",
        "one supported dtype",
        "resize warning of out="),
    "test_non_standard_bool_values": (
        "harness",
        "bool only (allowed_dtypes)",
        "bool tensors whose bytes are 2..255 (a uint8 view) must act as True; normal bool tensors never "
        "hold such bytes"),
    "test_dtypes": (
        "unclear",
        "none (probes every dtype itself)",
        "the OpInfo's claimed dtype list vs what runs on the device; the direction and dtype are not "
        "recorded; skipped in the pinned test file"),
    "test_pointwise_tag_coverage": (
        "harness",
        "none",
        "pointwise tags of ATen's CPU source files; not per op"),
    "test_errors": (
        "harness",
        "none",
        "error inputs raise the expected message"),
    "test_multiple_devices": (
        "harness",
        "one dtype",
        "inputs on two devices"),
    "test_noncontiguous_samples": (
        "harness",
        "supported dtypes",
        "noncontiguous inputs give the same result"),
    "test_numpy_ref": (
        "unclear",
        "float64 / int64 / complex128",
        "device results vs a NumPy reference (float64-heavy)"),
    "test_complex_half_reference_testing": (
        "unclear",
        "complex32",
        "complex32 vs complex64 reference"),
    # TestCompositeCompliance
    "test_operator": (
        "harness",
        "float32 only",
        "composite compliance: forward under a __torch_dispatch__ tensor subclass"),
    "test_backward": (
        "harness",
        "float32 only",
        "composite compliance of the backward formula under a tensor subclass"),
    "test_forward_ad": (
        "harness",
        "float32 only",
        "composite compliance of the forward-mode AD formula"),
    # TestMathBits
    "test_neg_view": (
        "harness",
        "float64 only (allowed_dtypes=double)",
        "negative-bit view input (torch._neg_view) vs physically negated input, forward, inplace and "
        "grad; fails for ~90% of OpInfos where it runs"),
    "test_conj_view": (
        "harness",
        "complex64 only",
        "conjugate-bit view input vs torch.conj_physical input"),
    "test_neg_conj_view": (
        "harness",
        "complex128 only",
        "negative+conjugate-bit view input, first sample only"),
    # TestFakeTensor
    "test_fake": (
        "harness",
        "one supported dtype (OpDTypes.any_one)",
        "FakeTensor / meta propagation: shapes, strides, aliasing of the fake result vs the NPU result"),
    "test_fake_autocast": (
        "harness",
        "one supported dtype",
        "test_fake under NPU autocast"),
    "test_fake_crossref_backward_amp": (
        "harness",
        "float32 only",
        "CrossRefFakeMode over the backward, autocast on; skipped in the pinned test file"),
    "test_fake_crossref_backward_no_amp": (
        "harness",
        "float32 only",
        "CrossRefFakeMode over the backward; skipped in the pinned test file"),
    "test_pointwise_ops": (
        "harness",
        "one supported dtype",
        "output shape of pointwise-tagged ops under fake mode"),
    "test_tags": (
        "harness",
        "one dtype",
        "inplace_view tags"),
}


def expand_versions(spec, all_versions):
    """Version set of an acl_op / op_api field."""
    if spec is None or spec is False:
        return []
    newest = all_versions[-1]
    if spec == "all_version" or spec is True:
        return list(all_versions)
    if isinstance(spec, list):
        if len(spec) == 2:
            lo, hi = spec[0], (newest if spec[1] == "newest" else spec[1])
            return [v for v in all_versions if version_key(lo) <= version_key(v) <= version_key(hi)]
        return [v for v in spec if v in all_versions]
    if isinstance(spec, str):
        vs = [v.strip() for v in spec.split(",")]
        return [v for v in all_versions if v in vs]
    return []


FUNC_DEF = re.compile(r"^[A-Za-z_][\w:<>,\s\*&]*?\b(\w+)\s*\([^;{]*\)\s*(?:const\s*)?\{", re.M)
EXEC = re.compile(r"EXEC_\w*CMD\w*\(\s*(aclnn\w+)")


def opapi_aclnn(texts):
    """{cpp function name: set(aclnn names)} from op_plugin/ops/opapi sources."""
    out = {}
    for text in texts.values():
        text = strip_c_comments(text)
        defs = list(FUNC_DEF.finditer(text))
        for i, m in enumerate(defs):
            body = text[m.end(): defs[i + 1].start() if i + 1 < len(defs) else len(text)]
            names = set(EXEC.findall(body))
            if names:
                out.setdefault(m.group(1), set()).update(names)
    return out


def camel_to_snake(name):
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def opapi_file_aclnn(texts):
    """{snake op name from the file name: set(aclnn)}; AddKernelNpuOpApi.cpp -> add."""
    out = {}
    for path, text in texts.items():
        stem = re.sub(r"Kernel\w*$", "", os.path.basename(path)[:-4])
        names = set(EXEC.findall(strip_c_comments(text)))
        if names:
            out.setdefault(camel_to_snake(stem), set()).update(names)
    return out


# ---------------------------------------------------------------- op_api kernel bodies
KERNEL_GLOB = "op_plugin/ops/opapi/*.cpp"             # '*' crosses '/': sparse/ included
HELPER_GLOBS = ("op_plugin/ops/opapi/*.h", "op_plugin/utils/*.cpp", "op_plugin/utils/*.h",
                "op_plugin/utils/custom_functions/opapi/*.cpp", "op_plugin/utils/custom_functions/opapi/*.h")
CPP_KEYWORDS = {"if", "for", "while", "switch", "return", "catch", "sizeof", "decltype", "static_assert",
                "defined", "alignof", "new", "delete", "throw", "operator", "else", "do", "case"}
VERSION_MACRO = re.compile(r"VERSION_BETWEEN\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
FUNC_HEADER = re.compile(r"((?:\w+\s*::\s*)*)(~?\w+)\s*\((.*)\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?"
                         r"(?:->\s*[\w:<>,\s&*]+?)?\s*$", re.S)
ACLNN_TOKEN = re.compile(r"\baclnn[A-Z]\w*")
CALL_SITE = re.compile(r"(?<![\w.>$])((?:\w+\s*::\s*)*)(~?\w+)\s*(?:<[^<>();{}]*>)?\s*\(")


def _mask_literals(text):
    """String / char literal contents -> spaces (same length)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or (c == "'" and not (i and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _preprocess(text):
    """Blank the preprocessor lines (offsets kept); [(offset, active #if conditions)]."""
    out, snaps, stack, pos, cont = [], [(0, ())], [], 0, False
    for line in text.split("\n"):
        s = line.strip()
        if cont or s.startswith("#"):
            if not cont:
                d = s.lstrip("#").strip()
                kw = d.split(None, 1)[0] if d else ""
                rest = d[len(kw):].strip()
                if kw in ("if", "ifdef", "ifndef"):
                    stack.append(rest if kw == "if" else "%s(%s)" % (kw, rest))
                elif kw in ("elif", "else") and stack:
                    stack[-1] = "!(%s)" % stack[-1] if kw == "else" else "!(%s) && (%s)" % (stack[-1], rest)
                elif kw == "endif" and stack:
                    stack.pop()
                snaps.append((pos, tuple(stack)))
            cont = line.rstrip().endswith("\\")
            out.append(" " * len(line))
        else:
            out.append(line)
        pos += len(line) + 1
    return "\n".join(out), snaps


def guard_versions(conds, all_versions):
    """Versions for which the VERSION_BETWEEN parts of the #if conditions hold (None: unguarded)."""
    conds = [c for c in conds if "VERSION_BETWEEN" in c]
    if not conds:
        return None

    def vk(tok):
        m = re.match(r"V(\d+)R(\d+)$", tok)
        return (int(m.group(1)), int(m.group(2))) if m else None
    keep = []
    for v in all_versions:
        cur = tuple(int(x) for x in v.lstrip("v").split("."))

        def rep(m):
            lo, hi = vk(m.group(1)), ((999, 999) if m.group(2) == "VERSION_NEWEST" else vk(m.group(2)))
            return "True" if lo is None or hi is None or lo <= cur <= hi else "False"
        ok = True
        for c in conds:
            expr = VERSION_MACRO.sub(rep, c).replace("&&", " and ").replace("||", " or ")
            expr = re.sub(r"!(?!=)", " not ", expr)
            try:
                ok = ok and bool(eval(expr, {"__builtins__": {}}, {}))  # only True/False/and/or/not left
            except Exception:
                pass
        if ok:
            keep.append(v)
    return keep


def _match_brace(text, i):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def scan_defs(text, path, all_versions):
    """C++ function definitions of one file: name, qual, ns, params, min/max arity, body, versions."""
    text, snaps = _preprocess(strip_c_comments(text))
    text = _mask_literals(text)
    snap_pos = [p for p, _ in snaps]
    defs, scopes = [], []
    i, n, last = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == ";":
            last = i + 1
        elif c == "}":
            if scopes:
                scopes.pop()
            last = i + 1
        elif c == "{":
            header = text[last:i].strip()
            m_ns = re.match(r"^(?:inline\s+)?namespace\s*([\w:]*)\s*$", header)
            m_cls = re.match(r"^(?:template\s*<.*>\s*)?(?:class|struct|union)\s+(\w+)[^()]*$", header, re.S)
            m_fn = None if "=" in header.split("(")[0] else FUNC_HEADER.search(header)
            if m_ns or m_cls or re.match(r'^extern\s*"\s*"\s*$', header):
                scopes.append(m_ns.group(1) if m_ns else (m_cls.group(1) if m_cls else ""))
                last = i + 1
            else:
                end = _match_brace(text, i)
                if m_fn and m_fn.group(2) not in CPP_KEYWORDS:
                    params = [p.strip() for p in split_top(m_fn.group(3)) if p.strip() and p.strip() != "void"]
                    guard = snaps[bisect.bisect_right(snap_pos, i) - 1][1]
                    defs.append({
                        "name": m_fn.group(2), "qual": re.sub(r"\s+", "", m_fn.group(1)).rstrip(":"),
                        "ns": "::".join(x for x in scopes if x), "params": params,
                        "min": sum(1 for p in params if "=" not in p), "max": len(params),
                        "body": text[i + 1:end], "path": path,
                        "static": bool(re.search(r"\bstatic\b", header.split("(")[0])),
                        "versions": guard_versions(guard, all_versions)})
                i = end
                last = end + 1
        i += 1
    return defs


CPP_TYPE_CATEGORY = {
    "Tensor": "T", "TensorList": "TL", "ArrayRef<Tensor>": "TL", "ITensorListRef": "TL", "vector<Tensor>": "TL",
    "List<optional<Tensor>>": "T?L", "int64_t": "I", "SymInt": "I", "int": "I", "IntArrayRef": "IL",
    "SymIntArrayRef": "IL", "ArrayRef<int64_t>": "IL", "OptionalIntArrayRef": "IL?",
    "OptionalSymIntArrayRef": "IL?", "OptionalArrayRef<SymInt>": "IL?", "OptionalArrayRef<int64_t>": "IL?",
    "double": "F", "float": "F", "ArrayRef<double>": "FL", "bool": "B", "string_view": "S", "string": "S",
    "Scalar": "SC", "ArrayRef<Scalar>": "SCL", "ScalarType": "ST", "Dimname": "DN", "DimnameList": "DNL",
    "Generator": "G"}
SCHEMA_TYPE_CATEGORY = {"Tensor": "T", "int": "I", "SymInt": "I", "float": "F", "bool": "B", "str": "S",
                        "Scalar": "SC", "ScalarType": "ST", "Dimname": "DN", "Generator": "G"}


def cpp_param_category(param):
    """Coarse type class of a C++ parameter ("const at::Tensor& self" -> "T")."""
    p = param.split("=")[0].strip()
    if re.search(r"[\w>&*]\s+&?\**\w+$|[&*]\w+$", p):
        p = re.sub(r"\s*\b\w+$", "", p)
    t = re.sub(r"\b(?:const|at|c10|std|torch)::|\bconst\b|[&\s]", "", p)
    m = re.match(r"^optional<(.*)>$", t)
    opt = bool(m)
    if m:
        t = m.group(1)
    cat = "BA" if re.match(r"^array<bool,\d+>$", t) else CPP_TYPE_CATEGORY.get(t, t)
    return cat + "?" if opt and not cat.endswith("?") else cat


def schema_arguments(func):
    """[(argument text, keyword-only)] of a native_functions schema."""
    head = func.split("->")[0]
    inner = head[head.index("(") + 1:head.rindex(")")]
    args, kw = [], False
    for a in split_top(inner.replace("[", "<").replace("]", ">")):
        a = a.strip().replace("<", "[").replace(">", "]")
        if a == "*":
            kw = True
        elif a:
            args.append((a, kw))
    return args


def schema_category(arg):
    t = arg.split("=")[0].strip().rsplit(None, 1)[0]
    t = re.sub(r"\([a-z0-9!|\s]*\)", "", t)
    opt = t.endswith("?")
    t = t.rstrip("?")
    lst = re.search(r"\[\d*\]$", t)
    t = re.sub(r"\[\d*\]$", "", t)
    inner_opt = t.endswith("?")
    base = SCHEMA_TYPE_CATEGORY.get(t.rstrip("?"), t.rstrip("?"))
    if lst:
        cat = "BA" if base == "B" else base + ("?L" if inner_opt else "L")
    else:
        cat = base + ("?" if inner_opt else "")
    return cat + ("?" if opt else "")


def is_out_schema(func):
    return any(kw and re.match(r"Tensor\(\w+!\)", a) for a, kw in schema_arguments(func))


def _enclosing_macro(body, p):
    """(name, '(' offset) of the call whose argument list holds offset p."""
    depth = 0
    for j in range(p - 1, max(-1, p - 400), -1):
        c = body[j]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                m = re.search(r"(\w+)\s*$", body[:j])
                return (m.group(1) if m else ""), j
            depth -= 1
        elif c in ";{}" and depth == 0:
            return "", -1
    return "", -1


def _call_arity(body, p):
    depth, cnt, nonempty = 0, 0, False
    for j in range(p, len(body)):
        c = body[j]
        if c in "([{":
            depth += 1
            nonempty = nonempty or depth > 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return cnt + 1 if nonempty else 0
        elif c == "," and depth == 1:
            cnt += 1
        elif depth >= 1 and not c.isspace():
            nonempty = True
    return cnt


class KernelIndex:
    """Resolves what an op_api definition calls: aclnn names, helpers, re-dispatched aten ops."""

    def __init__(self, defs):
        self.defs = defs
        self.by_file_name, self.by_name = {}, {}
        self.kernel_paths, self.op_cpp_names = set(), set()
        for d in defs:
            self.by_file_name.setdefault((d["path"], d["name"]), []).append(d)
            self.by_name.setdefault(d["name"], []).append(d)
        self.memo = {}

    def _resolve(self, caller, qual, name, nargs):
        parts = qual.split("::") if qual else []
        if "acl_op" in parts or "op_infer" in parts:      # graph fallback / host-side shape inference
            return None
        if qual == "at":
            return ("aten", "aten::" + name)
        if qual == "op_api" and not any(d["ns"] == "op_api" for d in self.by_name.get(name, ())):
            return ("aten", "aten::" + name)      # a registered op without a hand-written kernel
        if parts and parts[-1] == "custom_ops":
            return ("aten", "npu::" + name)
        fits = lambda ds: [d for d in ds if d["min"] <= nargs <= d["max"]]  # noqa: E731
        if not qual:
            same = [d for d in self.by_file_name.get((caller["path"], name), ())
                    if d["ns"] != "acl_op" and not d["qual"]]
            if same:
                return ("follow", fits(same) or same)
            if caller["ns"].split("::")[0] == "op_api":
                c = fits([d for d in self.by_name.get(name, ())
                          if d["ns"] == "op_api" and not d["static"] and not d["qual"]])
                return ("follow", c) if c else None
            return None
        c = fits([d for d in self.by_name.get(name, ()) if not d["static"] and
                  (d["ns"] == qual or d["ns"].endswith("::" + qual) or d["qual"] == parts[-1])])
        return ("follow", c) if c else None

    def producers(self, d, stack=()):
        """[(kind, name)] that compute what d returns (see "what produces the output"):
        kind exec (an aclnn API) or aten ("aten::x" / "npu::x", another registered op)."""
        key = ("producers", id(d))
        if key in self.memo:
            return self.memo[key]
        if id(d) in stack or len(stack) > 12:
            return []
        body, out = d["body"], []
        for m in RETURN_STMT.finditer(body):
            first = _first_returned(_statement(body, m.end()))
            if first is None:
                continue
            if first[0] == "call":
                out += self._from_call(d, first[1], first[2], _statement(body, m.end()), stack)
            else:
                out += self._from_var(d, first[1], stack)
        out = _uniq(out)
        self.memo[key] = out
        return out

    def _from_call(self, d, qual, name, text, stack):
        if ALLOC_CALL.match(name) or name in CPP_KEYWORDS:
            return []
        paren = text.find("(", text.find(name))
        r = self._resolve(d, qual, name, _call_arity(text, paren) if paren >= 0 else 0)
        if r is None:
            return []
        if r[0] == "aten":
            return [] if r[1] in ("aten::Tensor", "npu::Tensor") else [r]
        return [p for t in r[1] if t is not d for p in self.producers(t, stack + (id(d),))]

    def _from_var(self, d, var, stack):
        """What writes `var` in d's body: a macro taking it or a call assigned to it; failing
        those, a helper called with it (the helper's own API calls, then)."""
        body, found, helpers = d["body"], [], []
        tok = re.compile(r"(?<![\w.])%s\b(?!\s*\.)" % re.escape(var))
        for m in MACRO_API.finditer(body):
            args = _statement(body, m.end())
            if tok.search(args):
                found.append((m.start(), [("exec", m.group(2))]))
        for m in re.finditer(r"(?<![\w.])%s\s*=(?!=)" % re.escape(var), body):
            rhs = _statement(body, m.end()).strip()
            c = re.match(r"^((?:\w+\s*::\s*)*)(\w+)\s*(?:<[^<>()]*>)?\s*\(", rhs)
            if c:
                found.append((m.start(), self._from_call(d, re.sub(r"\s+", "", c.group(1)).rstrip(":"),
                                                         c.group(2), rhs, stack)))
        for m in CALL_SITE.finditer(body):
            name = m.group(2)
            if name in CPP_KEYWORDS or name.startswith("acl") or re.match(r"^[A-Z0-9_]+$", name) or \
                    ALLOC_CALL.match(name):
                continue
            args = _statement(body, m.end())
            if not tok.search(args):
                continue
            qual = re.sub(r"\s+", "", m.group(1)).rstrip(":")
            r = self._resolve(d, qual, name, _call_arity(body, m.end() - 1))
            if r is None:
                continue
            if r[0] == "aten":
                if r[1].endswith("_out") or r[1].endswith("_"):
                    found.append((m.start(), [r]))
            elif any(t["path"] in self.kernel_paths and t["name"] in self.op_cpp_names for t in r[1]):
                # another op's kernel writing it (addmm_out into the result)
                found.append((m.start(), [e for t in r[1] if t is not d
                                          for e in self.producers(t, stack + (id(d),))]))
            else:
                helpers.append((m.start(), [e for t in r[1] if t is not d
                                            for e in self.events(t, stack + (id(d),)) if e[0] != "aten"]))
        found = [x for x in found if x[1]] or helpers
        found.sort(key=lambda x: x[0])
        return [e for _, evs in found for e in evs]

    def own_compat(self, d):
        """DO_*COMPATIBILITY names written in d's own body (nd before nz)."""
        return [n for k, n in self.events(d, own_only=True) if k == "compat"]

    def events(self, d, stack=(), own_only=False):
        """[(kind, name)] in body order; kind: compat | exec | aten."""
        key = (id(d), own_only, bool(stack))
        if key in self.memo:
            return self.memo[key]
        if id(d) in stack or len(stack) > 12:
            return []
        body, found = d["body"], []
        nz_pairs = {}
        for m in ACLNN_TOKEN.finditer(body):
            macro, paren = _enclosing_macro(body, m.start())
            if re.match(r"DO_\w*(MATMUL|MM)\w*_COMPATIBILITY$", macro):
                # DO_MATMUL_COMPATIBILITY / DO_ADDMM_COMPATIBILITY(nz_api, nd_api, ...): the nd
                # API serves base-format (ND) tensors, the nz one weights already in FRACTAL_NZ
                nz_pairs.setdefault(paren, []).append(m.group(0))
                if len(nz_pairs[paren]) == 2:
                    found.append((paren, [("compat", nz_pairs[paren][1]), ("compat", nz_pairs[paren][0])]))
            elif "COMPATIBILITY" in macro:
                found.append((m.start(), [("compat", m.group(0))]))
            elif ("EXEC" in macro or "CMD" in macro) and "LOG" not in macro:
                found.append((m.start(), [("exec", m.group(0))]))
        own = bool(found)
        for m in ([] if own_only else CALL_SITE.finditer(body)):
            name = m.group(2)
            if name in CPP_KEYWORDS or name.startswith("aclnn") or re.match(r"^[A-Z0-9_]+$", name):
                continue
            r = self._resolve(d, re.sub(r"\s+", "", m.group(1)).rstrip(":"), name, _call_arity(body, m.end() - 1))
            if r is None:
                continue
            if r[0] == "aten":
                found.append((m.start(), [r]))
            else:
                found.append((m.start(), [e for t in r[1] if t is not d for e in self.events(t, stack + (id(d),))]))
        if not stack and not own and not own_only and not any(e for _, evs in found for e in evs if e[0] != "aten"):
            # a kernel that only forwards to a Tensor method (self.bitwise_or_(other))
            for m in re.finditer(r"\.\s*(\w+)\s*\(", body):
                found.append((m.start(), [("aten", "aten::" + m.group(1))]))
        found.sort(key=lambda x: x[0])
        out = [e for _, evs in found for e in evs]
        self.memo[key] = out
        return out


# ---------------------------------------------------------------- what produces the output
# A kernel body allocates, fills masks and workspaces, and calls the API that computes the
# result. The API named for an op is the one that writes what the kernel returns: the first
# returned tensor (std::get<0>(x), std::make_tuple(x, ...), x) traced back to the EXEC/COMPAT
# macro that takes it, the call assigned to it, or the call returned directly.
RETURN_STMT = re.compile(r"\breturn\b")
MACRO_API = re.compile(r"\b((?:EXEC|DO)_\w*(?:CMD|COMPATIBILITY)\w*)\s*\(\s*(acl(?:nn)?[A-Z]\w*)")
ALLOC_CALL = re.compile(r"(?:apply_tensor\w*|empty\w*|zeros\w*|ones\w*|full\w*|ApplyTensor\w*|"
                        r"value_or\w*|borrow_from_optional_tensor|get\w*|format_trans|contiguous|"
                        r"to|view\w*|reshape|transpose|permute|squeeze|unsqueeze|expand\w*|"
                        r"narrow|select|slice|diagonal|set_|resize_\w*|copy|clone|detach)$")
# fill and allocation helpers: never the API that computes an op, unless the op is a fill
FILL_APIS = re.compile(r"^aclnn(?:Inplace)?(?:Zero|One|Fill\w*|Copy|Cast|Contiguous|DropoutGenMask\w*)$")
FILL_OPS = re.compile(r"zero|one|fill|full|cast|copy|contiguous|gen_mask|empty")


def _statement(body, i):
    """The text from offset i to the next ';' outside brackets."""
    depth = 0
    for j in range(i, len(body)):
        c = body[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return body[i:j]
        elif c == ";" and depth == 0:
            return body[i:j]
    return body[i:]


def _first_returned(expr):
    """('var', name) or ('call', qual, name, '(' offset in expr) of a return expression's first tensor."""
    e = expr.strip()
    for _ in range(4):
        m = re.match(r"^(?:std\s*::\s*)?(?:make_tuple|tie|forward_as_tuple|tuple\s*<[^()]*>|move|get\s*<\s*\d+\s*>)"
                     r"\s*\((.*)\)$", e, re.S)
        if not m:
            break
        parts = split_top(m.group(1))
        e = parts[0].strip() if parts else ""
    m = re.match(r"^(\w+)$", e)
    if m:
        return ("var", m.group(1))
    m = re.match(r"^((?:\w+\s*::\s*)*)(\w+)\s*(?:<[^<>()]*>)?\s*\(", e)
    if m:
        return ("call", re.sub(r"\s+", "", m.group(1)).rstrip(":"), m.group(2), m.end() - 1)
    return None


def _uniq(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


def _pick_main(rec, o):
    """One representative aclnn name of an overload (see module doc)."""
    base = rec["base"]
    named = {"aclnn" + _camel(base)} | ({"aclnnInplace" + _camel(base)} if base.endswith("_") else set())
    named |= {"aclnn" + _camel(base.replace("npu_", "", 1))}
    # the APIs that write the returned tensor: named after the op, else the shortest name
    # (variants such as ...V4 or ...VarLen... extend the base API's name); fill and
    # allocation helpers only for an op that is itself a fill
    is_fill = bool(FILL_OPS.search(base))
    prod = o.get("producer_apis") or []
    real = [n for n in prod if is_fill or not FILL_APIS.match(n)]
    if o.get("producers"):
        # the output is traced: its APIs, or none (it is computed through ops without one).
        # Among several (branches of the kernel): the one named after the op, else the one a
        # DO_*COMPATIBILITY guard names (the API the kernel is built around), else one named
        # after the overload (FmodTensor for fmod.Tensor), else the shortest name (variants
        # such as ...V4 or ...VarLen... extend the base API's name)
        ov = o.get("_name", "")
        stem = _camel(base.replace("npu_", "", 1).rstrip("_"))
        guarded = [n for n in o["_own_compat"] if n in real and not n.endswith("WeightNz")]
        pool = real
        for keep in (lambda n: n in named, lambda n: stem in n, lambda n: n in guarded,
                     lambda n: ov not in ("default", "") and n.endswith(_camel(ov))):
            pool = [n for n in pool if keep(n)] or pool
        first = [n for n in guarded if n in pool]
        return first[0] if first else (min(pool, key=lambda n: (len(n), pool.index(n))) if pool else None)
    for pool in (o["_own_compat"], o["aclnn_calls"], o["aclnn_via"]):
        pool = [n for n in pool if is_fill or not FILL_APIS.match(n)]
        pool = [n for n in pool if not n.endswith("WeightNz")] or pool
        hit = [n for n in pool if n in named]
        if hit or pool:
            return (hit or pool)[0]
    return None


def _principal_overload(rec):
    ovs = rec["overloads"]
    order = ["default", "Tensor", "self", "input"] + sorted(o for o in ovs if not ovs[o].get("_out")) + sorted(ovs)
    return next((o for o in order if o in ovs and (ovs[o]["aclnn_calls"] or ovs[o]["aclnn_via"])), None)


def attach_aclnn_calls(src, ops, schemas, symint_names, versions):
    """Fill the aclnn_calls / aclnn_compat / aten_calls / aclnn_via / kernel fields (see module doc)."""
    kernel_paths = src.files(KERNEL_GLOB)
    helper_paths = sorted({p for g in HELPER_GLOBS for p in src.files(g)} - set(kernel_paths))
    texts = src.read_many(kernel_paths + helper_paths)
    defs = [d for p in kernel_paths + helper_paths for d in scan_defs(texts[p], p, versions)]
    index = KernelIndex(defs)
    kernel_set = set(kernel_paths)
    index.kernel_paths = kernel_set
    index.op_cpp_names = {rec["base"] + sfx for rec in ops.values() for sfx in ("", "_out", "_symint")}
    entry_of = {}
    for key, rec in ops.items():
        for ov, o in rec["overloads"].items():
            o.update({"aclnn_calls": [], "aclnn_compat": [], "aten_calls": [], "aclnn_via": [], "kernel": None,
                      "_own_compat": [], "producers": []})
            for e in schemas.get((key, ov), ()):
                entry_of.setdefault((key, ov), []).append(e)
    pending = []
    for (key, ov), entries in entry_of.items():
        rec = ops[key]
        o = rec["overloads"][ov]
        o["_out"] = any(is_out_schema(e["func"]) for e in entries)
        if not o["op_api"] and o.get("sparse"):
            # a kernel for sparse tensors only (op_plugin/ops/opapi/sparse, namespace sparse,
            # named <base>_sparse): the APIs it executes
            sp = [d for d in index.by_name.get(rec["base"] + "_sparse", ()) if d["ns"] == "sparse"]
            names = [nm for d in sp for kind, nm in index.events(d) if kind != "aten"]
            o["aclnn_calls"] = _uniq(names)
            o["producers"] = [("exec", n) for n in _uniq(names)]
            o["kernel"] = sorted({d["path"] for d in sp}) or None
            continue
        if not o["op_api"]:
            continue
        calls, compat, aten, files, own, prod = [], [], [], [], [], []
        for e in entries:
            g = e.get("gen_opapi") or {}
            if g.get("structured_inherit") or (not g and e.get("structured_delegate")):
                pending.append((key, ov, g.get("structured_inherit") or e.get("structured_delegate")))
                continue
            if g.get("exec"):
                names = [g["exec"].split(",")[0].strip()] + \
                    [c.get("exec", "").split(",")[0].strip() for c in g.get("cpu_scalar_op") or []]
                calls += names
                prod += [("exec", n) for n in names[:1]]
                if expand_versions(e.get("acl_op"), versions):
                    compat += names
                    own += names
                files.append("gen_opapi")
                continue
            name = e["func"].split("(")[0].strip()
            cpp = name.split(".")[0] + ("_out" if is_out_schema(e["func"]) else "") + \
                ("_symint" if name in symint_names else "")
            want = [schema_category(a) for a, _ in schema_arguments(e["func"])]
            evs = set(expand_versions(e.get("op_api"), versions))
            cands = [d for d in index.by_name.get(cpp, ()) if d["path"] in kernel_set and not d["qual"]
                     and d["ns"] == "op_api" and (d["versions"] is None or evs & set(d["versions"]))]
            cats = [[cpp_param_category(p) for p in d["params"]] for d in cands]
            hit = [d for d, c in zip(cands, cats) if c == want]
            if not hit:
                same = [(d, sum(a == b for a, b in zip(c, want))) for d, c in zip(cands, cats) if len(c) == len(want)]
                best = max((s for _, s in same), default=None)
                hit = [d for d, s in same if s == best]
            for d in hit:
                files.append(d["path"])
                own += index.own_compat(d)
                prod += index.producers(d)
                for kind, nm in index.events(d):
                    if kind == "aten":
                        ns, _, base = nm.partition("::")
                        tgt = base[:-4] if base.endswith("_out") and "%s|%s" % (ns, base[:-4]) in ops else base
                        if "%s|%s" % (ns, tgt) in ops:
                            aten.append(nm)
                    else:
                        calls.append(nm)
                        if kind == "compat":
                            compat.append(nm)
        o["aclnn_calls"], o["aclnn_compat"], o["aten_calls"] = _uniq(calls), _uniq(compat), _uniq(aten)
        o["_own_compat"] = _uniq(own)
        o["producers"] = _uniq(prod)
        o["kernel"] = ("gen_opapi" if files == ["gen_opapi"] * len(files) else sorted(set(files) - {"gen_opapi"})) \
            if files else None
    for _ in range(3):                       # inherit / delegate chains are short
        for key, ov, target in pending:
            tb, _, tov = target.partition(".")
            t = ops.get("%s|%s" % (ops[key]["ns"], tb), {}).get("overloads", {}).get(tov or "default")
            o = ops[key]["overloads"][ov]
            if t:
                o["aclnn_calls"] = _uniq(o["aclnn_calls"] + t["aclnn_calls"])
                o["aclnn_compat"] = _uniq(o["aclnn_compat"] + t["aclnn_compat"])
                o["aten_calls"] = _uniq(o["aten_calls"] + t["aten_calls"])
                o["kernel"] = o["kernel"] or t["kernel"]
                o["_own_compat"] = _uniq(o["_own_compat"] + t["_own_compat"])
                o["producers"] = _uniq(o["producers"] + t["producers"])

    def via(key, ov, seen):
        o = ops[key]["overloads"][ov]
        out = []
        for nm in o["aten_calls"]:
            ns, _, base = nm.partition("::")
            want_out = base.endswith("_out") and "%s|%s" % (ns, base[:-4]) in ops
            rec = ops.get("%s|%s" % (ns, base[:-4] if want_out else base))
            if not rec:
                continue
            for tov, t in sorted(rec["overloads"].items()):
                k = (rec["ns"] + "|" + rec["base"], tov)
                if t.get("_out", False) != want_out or k in seen:
                    continue
                out += t["aclnn_calls"] + via(k[0], tov, seen | {k})
        return _uniq(out)
    for key, rec in ops.items():
        for ov in rec["overloads"]:
            rec["overloads"][ov]["aclnn_via"] = [n for n in via(key, ov, {(key, ov)})]
    def producer_apis(key, ov, seen):
        """aclnn APIs that compute the overload's output, through the ops it re-dispatches to."""
        out = []
        for kind, nm in ops[key]["overloads"][ov]["producers"]:
            if kind == "exec":
                out.append(nm)
                continue
            ns, _, base = nm.partition("::")
            tk = "%s|%s" % (ns, base[:-4] if base.endswith("_out") and "%s|%s" % (ns, base[:-4]) in ops else base)
            if tk not in ops or tk in seen:
                continue
            p = _principal_overload(ops[tk]) or next(iter(sorted(ops[tk]["overloads"])), None)
            if p:
                out += producer_apis(tk, p, seen | {tk})
        return _uniq(out)
    for key, rec in ops.items():
        for ov, o in rec["overloads"].items():
            o["producer_apis"] = producer_apis(key, ov, {key})
    for rec in ops.values():
        ovs = rec["overloads"]
        order = (["default"] if "default" in ovs else []) + sorted(o for o in ovs if o != "default")
        rec["aclnn_calls"] = _uniq([n for o in order for n in ovs[o]["aclnn_calls"]])
        p = _principal_overload(rec)
        if p:
            ovs[p]["_name"] = p
        rec["aclnn_main"] = _pick_main(rec, ovs[p]) if p else None
        rec["producers"] = ["%s %s" % x for x in ovs[p]["producers"]] if p else []
    for rec in ops.values():
        for o in rec["overloads"].values():
            o.pop("_out", None)
            o.pop("_own_compat", None)
            o.pop("_name", None)
            o["producers"] = ["%s %s" % x for x in o["producers"]]


def load(locations=None):
    """op-plugin kernels (aten + npu custom), deprecations and OpInfo skip list."""
    src = open_source("op-plugin-functions", locations)
    doc = yaml.safe_load(src.read(FUNCS))
    versions = list(doc["all_version"])
    custom_names = {e["func"].split("(")[0].split(".")[0] for e in doc.get("custom", [])}
    ops = {}
    schemas = {}
    symint_names = {e["func"].split("(")[0].strip() for e in doc.get("symint") or []}
    for section in ("official", "autograd", "quant", "symint", "custom"):
        for e in doc.get(section) or []:
            name = e["func"].split("(")[0].strip()
            base, _, overload = name.partition(".")
            overload = overload or "default"
            if section == "custom":
                ns = "npu"
            elif section == "symint":
                ns = "npu" if (base in custom_names or "npu" in base) else "aten"
            else:
                ns = "aten"
            rec = ops.setdefault("%s|%s" % (ns, base), {
                "ns": ns, "base": base, "overloads": {}, "aclnn": set(), "tags": set(),
                "sections": set()})
            rec["sections"].add(section)
            ov = rec["overloads"].setdefault(overload, {"acl_op": set(), "op_api": set(), "sparse": set(),
                                                        "exec": None})
            if section != "symint":          # symint entries repeat an official/custom schema
                schemas.setdefault(("%s|%s" % (ns, base), overload), []).append(e)
            ov["acl_op"].update(expand_versions(e.get("acl_op"), versions))
            ov["op_api"].update(expand_versions(e.get("op_api"), versions))
            ov["sparse"].update(expand_versions(e.get("sparse"), versions))   # SparseNPU kernels
            ex = (e.get("gen_opapi") or {}).get("exec")
            if ex:
                ov["exec"] = ex.split(",")[0].strip()
                rec["aclnn"].add(ov["exec"])
            tags = e.get("tags")
            if tags:
                rec["tags"].update([tags] if isinstance(tags, str) else tags)
    # aclnn names called by the hand-written op_api kernels
    cpp = src.read_many(src.files("op_plugin/ops/opapi/*.cpp"))
    by_func = opapi_aclnn(cpp)
    by_file = opapi_file_aclnn(cpp)
    for rec in ops.values():
        base = rec["base"]
        for fn in (base, base + "_out", base + "_symint", base.rstrip("_")):
            rec["aclnn"].update(by_func.get(fn, ()))
        rec["aclnn"].update(by_file.get(base.strip("_"), ()))
    attach_aclnn_calls(src, ops, schemas, symint_names, versions)
    for rec in ops.values():
        for ov in rec["overloads"].values():
            ov["acl_op"] = sorted(ov["acl_op"], key=version_key)
            ov["op_api"] = sorted(ov["op_api"], key=version_key)
            ov["sparse"] = sorted(ov["sparse"], key=version_key)
        rec["aclnn"] = sorted(rec["aclnn"])
        rec["tags"] = sorted(rec["tags"])
        rec["sections"] = sorted(rec["sections"])
    dep = yaml.safe_load(open_source("op-plugin-deprecated", locations).read(DEPRECATED))
    deprecated = {d["name"]: d.get("replace") for d in dep.get("deprecated", [])}
    unsup = yaml.safe_load(open_source("op-plugin-unsupported", locations).read(UNSUPPORTED)) or {}
    unsupported = {k: {t: [x for x in (v or []) if x] for t, v in (tests or {}).items()}
                   for k, tests in unsup.items() if isinstance(k, str)}
    by_class = {}
    for k, tests in unsupported.items():
        for t, dts in tests.items():
            cls = TEST_MEANING.get(t, ("unclear",))[0]
            by_class.setdefault(k, {}).setdefault(cls, {})[t] = dts
    return {"versions": versions, "ops": ops, "deprecated": deprecated, "unsupported": unsupported,
            "unsupported_by_class": by_class}


def write_list(facts, path=LIST_FILE):
    names = sorted({r["base"] for r in facts["ops"].values() if r["ns"] == "aten"})
    with open(path, "w", encoding="utf-8") as f:
        f.write("# aten base op names with an op-plugin kernel entry (official/autograd/quant/symint)\n")
        f.write("# generated by tools/table/import_op_plugin.py --write-list from the pinned op-plugin\n")
        for n in names:
            f.write(n + "\n")
    return len(names)


if __name__ == "__main__":
    import sys
    if "--write-list" in sys.argv:
        sys.argv.remove("--write-list")
        n = write_list(load())
        print("%d names written to %s" % (n, LIST_FILE))
    else:
        importer_main(load)
