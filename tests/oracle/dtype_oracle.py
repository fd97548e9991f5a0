#!/usr/bin/python3
"""Oracle: python3-onnx's inferred dtype of input 0, per operator, compared with opmap's.

Usage: dtype_oracle.py OPMAP_BINARY [TESTDATA_DIR] [--keep DIR]

Models: a few small ones exported here with /usr/bin/python3's torch (random weights,
nothing downloaded: a batch-first LSTM and GRU whose outputs go through
Squeeze/Unsqueeze/Reshape/Transpose/Gather/Slice, Cast chains with argmax-fed
gather/index_select, a transformer encoder layer at opsets 14 and 17, a scripted Loop/If,
torchvision's mobilenet_v3_small at opsets 13 and 17), plus every model of libonnx-testdata's pytorch-converted and
pytorch-operator (TESTDATA_DIR, default /usr/share/libonnx-testdata/data).

For each model, onnx.shape_inference.infer_shapes types every value it can (graph inputs,
outputs, initializers and the inferred value_info, subgraphs chained to their enclosing
graph's scope); per (domain, op_type), over every node (subgraphs to any depth, training
graphs, model-local function bodies expanded at each call as opmap does), the set of
dtypes of input 0 is collected, `unknown` where onnx has no tensor type (no input 0, an
omitted one, a sequence, or a value onnx could not type). opmap scans the same files in one
run (--format json) and its `input_dtypes` per operator (the union over opsets) is
compared:

  mismatch    opmap states a dtype onnx never states for that operator while onnx typed
              every instance (a false fact); or onnx states a dtype opmap lacks and opmap
              has no `unknown` instance it could be (one of opmap's stated dtypes is false)
  unverified  opmap states a dtype onnx does not, but onnx left some instance `unknown`:
              it may be right, the oracle cannot tell (reported, not a failure)
  gap         opmap has `unknown` where onnx typed an instance (reported, not a failure)

Before the models, a self-check feeds compare() deliberately wrong expectations, and
after them re-compares one real model against a doctored onnx answer, so the oracle
is shown to catch a mismatch. Prints one line per model and the totals; exits 1 on any
mismatch (or when a model cannot be exported, inferred or scanned), 77 (skip) when torch
or torchvision cannot be imported.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import onnx
from onnx import shape_inference

UNKNOWN = "unknown"
DTYPE_NAMES = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
    8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
    14: "complex64", 15: "complex128", 16: "bfloat16", 17: "float8_e4m3fn",
    18: "float8_e4m3fnuz", 19: "float8_e5m2", 20: "float8_e5m2fnuz", 21: "uint4", 22: "int4",
    23: "float4_e2m1",
}


def canon(domain):
    return "ai.onnx" if domain in ("", "ai.onnx") else domain


def dtype_name(elem):
    return DTYPE_NAMES.get(elem, UNKNOWN)


# ---- onnx's side ----

def type_dtype(tp):
    """The dtype of a TypeProto: tensors and sparse tensors only (as opmap)."""
    which = tp.WhichOneof("value")
    if which == "tensor_type" and tp.tensor_type.elem_type:
        return dtype_name(tp.tensor_type.elem_type)
    if which == "sparse_tensor_type" and tp.sparse_tensor_type.elem_type:
        return dtype_name(tp.sparse_tensor_type.elem_type)
    return UNKNOWN


def graph_scope(graph, parent):
    """A chained name -> dtype map of everything the graph declares (after inference)."""
    scope = collections.ChainMap({}, *(parent.maps if parent is not None else ()))
    own = scope.maps[0]

    def put(name, dt):
        if name and (own.get(name, UNKNOWN) == UNKNOWN):
            own[name] = dt

    for vi in graph.input:
        put(vi.name, type_dtype(vi.type))
    for t in graph.initializer:
        put(t.name, dtype_name(t.data_type))
    for st in graph.sparse_initializer:
        put(st.values.name, dtype_name(st.values.data_type))
    for vi in list(graph.value_info) + list(graph.output):
        put(vi.name, type_dtype(vi.type))
    for node in graph.node:  # Constant outputs onnx did not list in value_info
        if node.op_type == "Constant" and canon(node.domain) == "ai.onnx" and node.output:
            for a in node.attribute:
                if a.name == "value" and a.HasField("t"):
                    put(node.output[0], dtype_name(a.t.data_type))
    return scope


def onnx_dtype_sets(model):
    """{(domain, op_type): set of input-0 dtypes} and the node count, onnx's answer."""
    functions = {(canon(f.domain), f.name): f for f in model.functions}
    sets = collections.defaultdict(set)
    count = [0]

    def walk(nodes, scope, chain):
        for node in nodes:
            key = (canon(node.domain), node.op_type)
            fn = functions.get(key)
            if fn is not None:
                if key not in chain:
                    # onnx does not type function bodies: nothing known but their Constants
                    fscope = collections.ChainMap({})
                    walk(fn.node, fscope, chain | {key})
                continue
            count[0] += 1
            dt = scope.get(node.input[0], UNKNOWN) if node.input and node.input[0] else UNKNOWN
            sets[key].add(dt)
            for a in node.attribute:
                subs = ([a.g] if a.HasField("g") else []) + list(a.graphs)
                for g in subs:
                    walk(g.node, graph_scope(g, scope), chain)

    main = graph_scope(model.graph, None)
    walk(model.graph.node, main, frozenset())
    for info in model.training_info:
        for field in ("initialization", "algorithm"):
            if info.HasField(field):
                g = getattr(info, field)
                walk(g.node, graph_scope(g, main), frozenset())
    return dict(sets), count[0]


def onnx_answer(path):
    model = onnx.load(path, load_external_data=False)
    try:
        inferred = shape_inference.infer_shapes(model)
    except Exception as e:  # non-strict inference rarely raises; keep the declared types
        print(f"  note: infer_shapes failed on {path}: {e}; declared types only")
        inferred = model
    return onnx_dtype_sets(inferred)


# ---- the comparison ----

def compare(expected, got):
    """expected, got: {op_key: set of dtypes}. Returns (mismatches, unverified, gaps), each a
    list of (op_key, detail) strings; only mismatches fail."""
    mismatches, unverified, gaps = [], [], []
    for key in sorted(set(expected) | set(got)):
        want = expected.get(key)
        have = got.get(key)
        name = "/".join(key)
        if want is None or have is None:
            mismatches.append((name, "operator only in %s" % ("opmap" if want is None else "onnx")))
            continue
        want_known, have_known = want - {UNKNOWN}, have - {UNKNOWN}
        extra = sorted(have_known - want_known)
        missing = sorted(want_known - have_known)
        if extra:
            detail = "opmap says %s, onnx says %s" % (sorted(have), sorted(want))
            (unverified if UNKNOWN in want else mismatches).append((name, detail))
        if missing and UNKNOWN not in have:
            mismatches.append((name, "onnx says %s, opmap says %s: some instance is mistyped"
                               % (sorted(want), sorted(have))))
        elif UNKNOWN in have and (missing or UNKNOWN not in want):
            gaps.append((name, "onnx knows %s, opmap %s" % (sorted(want), sorted(have))))
    return mismatches, unverified, gaps


def self_check():
    """compare() must flag deliberately wrong answers. Returns a list of failures."""
    F, I, U = "float32", "int64", UNKNOWN
    k = ("ai.onnx", "Op")
    cases = [  # (onnx, opmap, mismatches, unverified, gaps)
        ({F}, {F}, 0, 0, 0),
        ({F}, {I}, 2, 0, 0),          # false fact (and the float32 instance is lost)
        ({F, I}, {F}, 1, 0, 0),       # an int64 instance called float32
        ({F}, {F, I}, 1, 0, 0),       # an int64 claim onnx never makes
        ({F}, {U}, 0, 0, 1),          # gap
        ({F, I}, {F, U}, 0, 0, 1),    # gap: int64 instance unknown to opmap
        ({F}, {F, U}, 0, 0, 1),       # gap: some float32 instance unknown to opmap
        ({F, U}, {F, U}, 0, 0, 0),
        ({F, U}, {F, I}, 0, 1, 0),    # cannot tell: onnx did not type one instance
        ({U}, {U}, 0, 0, 0),
    ]
    bad = []
    for want, have, nm, nu, ng in cases:
        m, u, g = compare({k: want}, {k: have})
        if (len(m), len(u), len(g)) != (nm, nu, ng):
            bad.append("self-check: onnx %s vs opmap %s gave %d/%d/%d, want %d/%d/%d"
                       % (sorted(want), sorted(have), len(m), len(u), len(g), nm, nu, ng))
    m, _, _ = compare({k: {F}}, {})
    if not m:
        bad.append("self-check: an operator missing from opmap was not flagged")
    return bad


def doctored_check(expected, got):
    """Re-compares one real model with one known dtype of onnx's answer replaced by another:
    it must become a mismatch. Returns a failure message or None."""
    for key in sorted(expected):
        known = sorted(expected[key] - {UNKNOWN})
        if known and UNKNOWN not in expected[key] and got.get(key, set()) - {UNKNOWN}:
            wrong = dict(expected)
            wrong[key] = {"bfloat16" if known[0] != "bfloat16" else "float64"}
            m, _, _ = compare(wrong, got)
            if not m:
                return "self-check: a doctored expectation for %s was not flagged" % "/".join(key)
            return None
    return "self-check: no typed operator to doctor"


# ---- the models exported here ----

def export_models(tmp):
    """Exports the small torch models into tmp. Returns [(label, path)]."""
    warnings.filterwarnings("ignore")
    import torch
    from torch import nn
    torch.manual_seed(0)
    out = []

    def export(label, module, args, opset=13, names=None, dynamic=None, grad=False):
        path = os.path.join(tmp, label + ".onnx")
        module.eval()
        with torch.set_grad_enabled(grad):
            torch.onnx.export(module, args, path, opset_version=opset, input_names=names,
                              dynamic_axes=dynamic, do_constant_folding=True)
        out.append((label, path))

    class Recurrent(nn.Module):
        def __init__(self, cell):
            super().__init__()
            self.emb = nn.Embedding(50, 8)
            self.rnn = cell(8, 12, num_layers=2, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(24, 5)

        def forward(self, tokens):
            x = self.emb(tokens)                      # Gather: float weights, int64 ids
            res = self.rnn(x)
            y, h = res[0], res[1]
            if isinstance(h, tuple):                  # LSTM: (h, c)
                h = h[0] + h[1]
            last = y[:, -1, :]                        # Gather on a sequence axis
            mid = y[:, 1:3, :].mean(dim=1)            # Slice
            z = self.fc(last + mid).unsqueeze(1).squeeze(1)
            hb = h.transpose(0, 1).reshape(tokens.shape[0], -1)
            return z, hb

    tokens = torch.randint(0, 50, (2, 6))
    dyn = {"tokens": {0: "batch", 1: "seq"}}
    export("lstm", Recurrent(nn.LSTM), (tokens,), names=["tokens"], dynamic=dyn)
    export("gru", Recurrent(nn.GRU), (tokens,), names=["tokens"], dynamic=dyn)

    class Casts(nn.Module):
        def forward(self, x, ids):
            a = x.long().float().half().float()
            b = x.double().int().long().float()
            i = torch.argmax(x, dim=1)                     # int64
            g = torch.gather(x, 1, i.unsqueeze(1))
            s = torch.index_select(x, 0, i[:2])
            t = torch.index_select(x.half(), 1, ids).float()
            m = (x > 0).int().float() * a
            n = torch.where(x > 0, i.unsqueeze(1).float(), b)
            c = torch.cat([ids.float().unsqueeze(0).expand(x.shape[0], -1), x], dim=1)
            r = torch.arange(x.shape[1]).float() + x.sum(0)
            return a + g + m + n, s, t, c, r, i.to(torch.int32)

    export("casts", Casts(), (torch.randn(4, 6), torch.tensor([0, 2, 5])),
           names=["x", "ids"], dynamic={"x": {0: "n"}})

    enc = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                     batch_first=True)
    # with grad enabled, eval mode does not take the fused fast path (not exportable)
    export("transformer_encoder", enc, (torch.randn(2, 5, 16),), opset=14, grad=True)
    export("transformer_encoder.opset17", enc, (torch.randn(2, 5, 16),), opset=17, grad=True)

    class Control(nn.Module):  # scripted: Loop and If with their bodies as subgraphs
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = torch.zeros_like(x[0])
            for i in range(x.size(0)):
                h = torch.tanh(self.fc(x[i]) + h)
            if bool(h.sum() > 0):
                y = h.argmax(dim=0).float()
            else:
                y = h.sum().unsqueeze(0)
            return h, y

    export("control_flow", torch.jit.script(Control()), (torch.randn(3, 4),))

    import torchvision
    net = torchvision.models.mobilenet_v3_small(weights=None)
    img = torch.randn(1, 3, 64, 64)
    export("mobilenet_v3_small.opset13", net, (img,), opset=13)
    export("mobilenet_v3_small.opset17", net, (img,), opset=17)
    return out


def testdata_models(root):
    out = []
    for sub in ("pytorch-converted", "pytorch-operator"):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            print(f"note: {d} not found; skipped")
            continue
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name, "model.onnx")
            if os.path.isfile(p):
                out.append((f"{sub}/{name}", p))
    return out


def opmap_sets(opmap, files, tmp):
    out = os.path.join(tmp, "report.json")
    proc = subprocess.run([opmap, "scan", "--quiet", "--format", "json", "-o", out] + files,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"opmap exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    with open(out) as f:
        report = json.load(f)
    sets = {}
    for m in report["models"]:
        s = collections.defaultdict(set)
        for op in m["operators"]:
            s[(op["domain"], op["op_type"])].update(op["input_dtypes"])
        sets[m["file"]] = dict(s)
    return sets


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    opmap = argv[1]
    rest = argv[2:]
    keep = None
    if "--keep" in rest:
        i = rest.index("--keep")
        keep = rest[i + 1]
        del rest[i:i + 2]
    testdata = rest[0] if rest else "/usr/share/libonnx-testdata/data"
    t0 = time.time()
    failures = self_check()
    if failures:
        for f in failures:
            print(f)
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        mdir = keep or tmp
        os.makedirs(mdir, exist_ok=True)
        try:
            models = export_models(mdir)
        except ImportError as e:  # no torch/torchvision: skipped (ctest SKIP_RETURN_CODE 77)
            print(f"SKIP: /usr/bin/python3 cannot import {e.name}: no models to export")
            return 77
        except Exception as e:
            print(f"FAIL: exporting the torch models: {type(e).__name__}: {e}")
            return 1
        t_export = time.time() - t0
        models += testdata_models(testdata)
        got_all = opmap_sets(opmap, [p for _, p in models], tmp)

        totals = collections.Counter()
        doctored = None
        print(f"{'model':58} {'ops':>4} {'nodes':>5}  mism  unver  gaps")
        for label, path in models:
            try:
                expected, nodes = onnx_answer(path)
            except Exception as e:
                print(f"FAIL {label}: python3-onnx cannot read it: {e}")
                totals["mismatch"] += 1
                continue
            got = got_all.get(path)
            if got is None:
                print(f"FAIL {label}: missing from opmap's report")
                totals["mismatch"] += 1
                continue
            m, u, g = compare(expected, got)
            if doctored is None and expected:
                doctored = doctored_check(expected, got) or ""
            totals.update(mismatch=len(m), unverified=len(u), gap=len(g), models=1)
            print(f"{label:58} {len(expected):4} {nodes:5}  {len(m):4}  {len(u):5}  {len(g):4}")
            for tag, items in (("MISMATCH", m), ("unverified", u), ("gap", g)):
                for name, detail in items:
                    print(f"    {tag:10} {name}: {detail}")
    if doctored:
        print(doctored)
        totals["mismatch"] += 1
    elapsed = time.time() - t0
    print(f"dtype oracle: {totals['models']}/{len(models)} models compared, "
          f"{totals['mismatch']} mismatches, {totals['unverified']} unverified, "
          f"{totals['gap']} gaps (operator-level), {elapsed:.1f}s "
          f"(torch export {t_export:.1f}s)")
    return 1 if totals["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
