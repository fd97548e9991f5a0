#!/usr/bin/python3
"""Writes the hand-made seeds of the committed fuzz corpora, tests/fuzz/corpus/<target>/.

The committed corpora stay small (seeds that reach features the system corpora lack, plus
every crash the fuzzers found, kept as regression inputs); tools/fuzz adds the big system
corpora at run time: libonnx-testdata's 1,072 models, the project's tables.

Usage: make_seeds.py [CORPUS_DIR] [OPMAP]   (defaults: corpus/ next to this script; the
       OPMAP binary, when given, writes the JSON reports of the diff and report seeds)

Seeds are named seed-*; crash inputs keep libFuzzer's names (crash-<sha1>, timeout-..., or a
name saying what they caught) and are never overwritten here.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
import make_hostile as h  # noqa: E402  (the protobuf/zip/pickle encoders)

ROOT = os.path.join(HERE, "..", "..")


def onnx_seeds():
    relu = h.node("Relu", "r", ["x"], ["y"])
    every_attr = h.node("Custom", "every_attr", ["x"], ["y"], [
        h.f_len(1, "f") + h.f_int(20, 1) + h.tag(2, 5) + b"\x00\x00\x80\x3f",
        h.f_len(1, "i") + h.f_int(20, 2) + h.f_int(3, (1 << 64) - 1),
        h.attr_str("s", "nearest"),
        h.f_len(1, "t") + h.f_int(20, 4) + h.f_len(5, h.tensor("c", [2], 7, b"\x01" * 16)),
        h.f_len(1, "fs") + h.f_int(20, 6) + h.f_len(7, b"\x00\x00\x80\x3f" * 3),
        h.f_len(1, "is") + h.f_int(20, 7) + h.f_len(8, h.varint(1) + h.varint(300)),
        h.f_len(1, "ss") + h.f_int(20, 8) + h.f_len(9, "a") + h.f_len(9, "b"),
        h.f_len(1, "ref") + h.f_len(21, "caller_attr"),
        h.f_len(1, "tp") + h.f_int(20, 13) + h.f_len(14, h.tensor_type(1, [1])),
        h.f_len(1, "sp") + h.f_int(20, 11) + h.f_len(22, h.f_len(1, h.tensor("v", [1], 1)) +
                                                   h.f_len(2, h.tensor("i", [1], 7)) +
                                                   h.f_int(3, 4)),
    ], domain="com.example")
    then_g = h.graph([relu], name="then")
    typed_inputs = [
        h.value_info("seq", 1, None),
        h.f_len(1, "s2") + h.f_len(2, h.f_len(4, h.f_len(1, h.tensor_type(7, ["n", 2])))),
        h.f_len(1, "m") + h.f_len(2, h.f_len(5, h.f_int(1, 8) + h.f_len(2, h.tensor_type(1)))),
        h.f_len(1, "o") + h.f_len(2, h.f_len(9, h.f_len(1, h.tensor_type(11, [3])))),
        h.f_len(1, "sp") + h.f_len(2, h.f_len(8, h.f_int(1, 1) + h.f_len(2, b""))),
    ]
    ext = (h.tensor("w", [4, 4], 1) + h.f_len(13, h.f_len(1, "location") + h.f_len(2, "w.bin")) +
           h.f_len(13, h.f_len(1, "offset") + h.f_len(2, "0")) +
           h.f_len(13, h.f_len(1, "length") + h.f_len(2, "64")) + h.f_int(14, 1))
    reshape = h.graph([h.node("Reshape", "rs", ["x", "shape"], ["y"]),
                       h.node("Constant", "c", [], ["k"],
                              [h.f_len(1, "value") + h.f_int(20, 4) +
                               h.f_len(5, h.tensor("k", [2], 7, b"\xff" * 8 + b"\x02" + b"\0" * 7))]),
                       h.node("Cast", "cast", ["k"], ["d"], [h.f_len(1, "to") + h.f_int(20, 2) +
                                                           h.f_int(3, 11)])],
                      inputs=[h.value_info("x", 1, ["batch", 3, 4])],
                      inits=[h.tensor("shape", [2], 7, b"\xff" * 8 + b"\x0c" + b"\0" * 7)])
    training = (h.f_int(1, 8) + h.f_len(7, h.graph([relu])) + h.f_len(8, h.opset("", 17)) +
                h.f_len(20, h.f_len(1, h.graph([relu], name="init")) +
                        h.f_len(2, h.graph([h.node("Add", None, ["a", "b"], ["c"])],
                                           name="algo"))))
    return {
        "seed-relu.onnx": h.relu_model(),
        "seed-every-attribute.onnx": h.model(h.graph([every_attr]),
                                             opsets=(("", 17), ("com.example", 1))),
        "seed-if-loop-scan.onnx": h.model(h.graph([
            h.node("If", "if", ["c"], ["y"], [h.attr_graph("then_branch", then_g),
                                             h.attr_graph("else_branch", then_g)]),
            h.node("Loop", "loop", ["n", "c"], ["z"], [h.attr_graph("body", then_g)]),
            h.node("Scan", "scan", ["x"], ["w"], [h.attr_graph("body", then_g)])])),
        "seed-types.onnx": h.model(h.graph([relu], inputs=typed_inputs)),
        "seed-external-data.onnx": h.model(h.graph([relu], inits=[ext])),
        "seed-reshape-constant.onnx": h.model(reshape),
        "seed-training.onnx": training,
        "seed-functions.onnx": h.fan_out(3, 2, 2),
        "seed-recursive.onnx": h.recursive_functions(2),
        "seed-deep-if.onnx": h.nested_if(8),
        "seed-escaping.onnx": h.escaping_model(),
        "seed-ir3-no-opset.onnx": h.f_int(1, 2) + h.f_len(7, h.graph([relu])),
        "seed-sparse-init.onnx": h.model(h.f_len(1, relu) + h.f_len(2, "g") + h.f_len(
            15, h.f_len(1, h.tensor("v", [2], 1, b"\0" * 8)) + h.f_len(2, h.tensor("i", [2], 7)) +
            h.f_int(3, 10))),
        "seed-torchscript.pt": h.ts_archive(),
        "seed-torchscript-graph.txt": b"graph(%x : Float(2, 3)):\n  %y : Float(2, 3) = aten::relu(%x)\n  return (%y)\n",
    }


def table_seeds():
    out = {}
    for name in ("small.yaml", "gate.yaml"):
        with open(os.path.join(ROOT, "tests", "fixtures", "tables", name), "rb") as f:
            out["seed-" + name] = f.read()
    out["seed-constraints.yaml"] = b"""schema: 1
about: {name: t, version: "2", socs: [ascend910b, ascend310p], default_soc: ascend310p,
        torch_npu: "2.1", cann: "8.0", onnx_opset_max: 22}
weights: {full: {min: 0.1, expected: 0.2, max: 0.3}}
sources: [{id: s, title: t, url: "https://example.invalid", commit: abc, license: MIT}]
ops:
  - domain: ai.onnx
    op: Resize
    since: 11
    status: full
    sources: [s]
    ascend: {op: ResizeBilinearV2, aclnn: aclnnResize, api: torch_npu.x, engine: ai_core}
    socs:
      ascend310p: {status: partial, dtypes: [float16], note: "fp16 only", sources: [s]}
      ascend910b: {status: unknown}
    dtypes: [float32, float16]
    flags: [precision, dynamic_shape]
    constraints:
      - {when: {attr: mode, in: [cubic, "nearest"], default: nearest}, then: rewrite, message: m}
      - {when: {attr: scales, gt: 2.5}, flag: performance, socs: [ascend310p], message: "big"}
      - {when: {input: 1, is: constant}, then: partial, message: c}
      - {when: {output: 0, rank: {ge: 5}}, then: partial, message: r}
      - {when: {input: 0, dtype: {not_in: [float32]}}, then: partial, message: d}
  - {domain: aten, op: relu, status: full, overloads: ["relu", "relu_"], torch_npu: {min: "2.1", max: "2.5"}, curated: because}
  - {domain: prim, op: If, status: structural, curated: control flow}
"""
    return out


def pipeline_seeds():
    tables = table_seeds()
    models = onnx_seeds()
    out = {}
    for tn in ("seed-small.yaml", "seed-constraints.yaml"):
        for mn in ("seed-relu.onnx", "seed-every-attribute.onnx", "seed-if-loop-scan.onnx",
                   "seed-reshape-constant.onnx", "seed-functions.onnx", "seed-escaping.onnx"):
            out[f"{tn[:-5]}+{mn}"] = tables[tn] + b"\0" + models[mn]
    for rel in ("node/test_resize_upsample_scales_cubic/model.onnx",
                "node/test_mod_mixed_sign_float64/model.onnx", "node/test_loop11/model.onnx"):
        path = os.path.join(h.TESTDATA, rel)
        if os.path.exists(path):
            with open(path, "rb") as f:
                out["seed-constraints+" + rel.split("/")[1] + ".onnx"] = (
                    tables["seed-constraints.yaml"] + b"\0" + f.read())
    return out


def waiver_seeds():
    return {
        "seed-waivers.yaml": b"""schema: 1
waivers:
  - op: "com.example::FancyOp"
    kind: unmapped
    model: "m.onnx"
    node: "main/*"
    reason: "runs on the host until the plugin lands"
    owner: "team"
    expires: "2027-03-31"
  - op: "Resize"
    reason: r
    owner: o
    expires: "2020-01-01"
  - {op: "*", kind: dtype, reason: r, owner: o, expires: "2026-06-30"}
  - {op: "*", kind: dynamic-shape, node: "main/inputs/[a-z]?", reason: r, owner: o, expires: "2099-12-31"}
""",
        "seed-empty.yaml": b"schema: 1\nwaivers: []\n",
        "seed-weights.yaml": b"partial: {min: 0.5, expected: 0.8, max: 1}\n"
                             b"rewrite: {min: 2, expected: 2.5, max: 3.125}\n"
                             b"unmapped: {min: 2, expected: 2.5, max: 3}\n",
    }


def diff_seeds(opmap):
    if not opmap:
        return {}
    reports = []
    for args in (["node/test_relu/model.onnx", "node/test_if/model.onnx"],
                 ["node/test_if/model.onnx", "node/test_resize_upsample_scales_cubic/model.onnx"]):
        paths = [os.path.join(h.TESTDATA, a) for a in args]
        proc = subprocess.run([opmap, "scan", "-q", "--format", "json"] + paths,
                              capture_output=True)
        reports.append(json.dumps(json.loads(proc.stdout), separators=(",", ":")).encode())
    return {"seed-two-reports.json": reports[0] + b"\0" + reports[1],
            "seed-same-report.json": reports[0] + b"\0" + reports[0]}


def report_seeds(opmap):
    """JSON reports for opmap merge to read back: an ONNX model with a subgraph, a printed
    TorchScript graph (source lines), a .pt2 with an unmapped op and SymInts, a portfolio
    with a file not read and one skipped, and the exact-part / torch_npu-target answers."""
    if not opmap:
        return {}
    fix = os.path.join(ROOT, "tests", "fixtures")
    cases = {
        "seed-onnx-if.json": [os.path.join(h.TESTDATA, "node/test_if/model.onnx")],
        "seed-graph-text.json": [os.path.join(fix, "torchscript", "controlflow.scripted.graph.txt")],
        "seed-export-cond.json": [os.path.join(fix, "export", "cond.pt2")],
        "seed-portfolio-problems.json": [
            os.path.join(h.TESTDATA, "node/test_resize_upsample_scales_cubic/model.onnx"),
            os.path.join(fix, "torchscript", "hostile", "debug_deep_marks.pt"),
            os.path.join(fix, "torchscript", "hostile", "deep_code.pt"),
            os.path.join(fix, "export", "aoti_package.pt2"),
            os.path.join(fix, "export", "resnet18.pt2")],
        "seed-part-target.json": ["--soc", "Ascend910B3,ascend310p", "--torch-npu", "2.1",
                                  os.path.join(h.TESTDATA, "node/test_relu/model.onnx"),
                                  os.path.join(fix, "export", "transformer_block.pt2")],
    }
    out = {}
    for name, args in cases.items():
        proc = subprocess.run([opmap, "scan", "-q", "--format", "json"] + args,
                              capture_output=True)
        out[name] = json.dumps(json.loads(proc.stdout), separators=(",", ":")).encode()
    return out


def ts_entries(suffixes, limit, max_size=6000):
    """Small entries of the TorchScript fixtures whose names end with one of `suffixes`."""
    import zipfile
    out = {}
    fixtures = os.path.join(ROOT, "tests", "fixtures", "torchscript")
    for name in sorted(os.listdir(fixtures)):
        if not name.endswith(".pt"):
            continue
        with zipfile.ZipFile(os.path.join(fixtures, name)) as z:
            for info in z.infolist():
                if info.file_size <= max_size and info.filename.endswith(suffixes):
                    key = "seed-" + name[:-3] + "-" + info.filename.split("/", 1)[1].replace("/", "_")
                    out[key] = z.read(info)
    # a spread over the fixtures, at most `limit`
    keys = sorted(out)
    step = max(1, len(keys) // limit)
    return {k: out[k] for k in keys[::step][:limit]}


def decoy_in_comment():
    """An archive whose end record's comment holds a second directory (a forward calling
    tanh) and its end record: torch reads the second one."""
    real = h.ts_archive()
    decoy = h.ts_archive(code=h.TS_CODE.replace(b"relu", b"tanh"))
    n, cd_size, cd_off = struct.unpack("<HII", real[-12:-2])
    dn, dcd_size, dcd_off = struct.unpack("<HII", decoy[-12:-2])
    body = real[:cd_off]
    shift = len(body)
    # the decoy's local entries after the real ones, its directory records moved with them
    dcd = bytearray(decoy[dcd_off:dcd_off + dcd_size])
    p = 0
    while p < len(dcd):
        struct.pack_into("<I", dcd, p + 42, struct.unpack_from("<I", dcd, p + 42)[0] + shift)
        p += 46 + sum(struct.unpack_from("<HHH", dcd, p + 28))
    body += decoy[:dcd_off]
    real_cd = real[cd_off:cd_off + cd_size]
    comment = bytes(dcd) + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, dn, dn, dcd_size,
                                       len(body) + cd_size + 22, 0)
    return body + real_cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, cd_size,
                                        len(body), len(comment)) + comment


def ts_seeds():
    graph = (b"graph(%self : __torch__.M,\n      %x.1 : Float(1, 3, strides=[3, 1], device=cpu)):\n"
             b"  %2 : int = prim::Constant[value=1]()\n"
             b"  %y : Tensor = aten::relu(%x.1) # m.py:3:0\n"
             b"  %c : bool = aten::gt(%2, %2)\n"
             b"  %z : Tensor = prim::If(%c)\n"
             b"    block0():\n      -> (%y)\n    block1():\n      -> (%x.1)\n"
             b"  %l : Tensor[] = prim::ListConstruct(%y, %z)\n"
             b"  return (%z)\n")
    return {
        "ts_archive": {"seed-minimal.pt": h.ts_archive(),
                       "seed-debug-pkl.pt": h.ts_archive(debug_pkl=b"\x80\x02(K\x00N\x86t."),
                       # how torch finds the directory and the root module (issue 16)
                       "seed-zip64.pt": h.as_zip64(h.ts_archive()),
                       "seed-end-records-in-comment.pt":
                           h.repeat_eocd_in_comment(h.ts_archive(), 8),
                       "seed-decoy-directory-in-comment.pt": decoy_in_comment(),
                       "seed-root-by-reduce.pt":
                           h.ts_archive(data_pkl=b"\x80\x02c__torch__\nM\n}R."),
                       "seed-names-differ-in-case.pt":
                           h.ts_archive(extra=[("archive/CODE/__torch__.py", h.TS_CODE, {})])},
        "ts_graph": {"seed-if-list.txt": graph},
        "ts_code": dict(ts_entries((".py",), 24), **{"seed-minimal.py": h.TS_CODE}),
        "ts_pickle": dict(ts_entries((".debug_pkl", "data.pkl", "constants.pkl"), 24, 4000)),
    }


def results_seeds():
    """Results files of opmap testgen's runner (the results harness scans a printed graph of
    aten::layer_norm and aten::add with them): passes and failures of its signatures, chips
    of two families and one the table lacks, a repeat of a run, every outcome."""
    ln = ("aten::layer_norm(float32[2,16,64], [64], float32[64], None, 1e-05, True)")
    add = "aten::add(float32[2,16,64], float32[64], 1)"

    def entry(op, sig, outcome, err=1e-6, message=None):
        e = {"op": op, "signature": sig, "outcome": outcome, "standard": "thousandth",
             "max_abs_error": err, "max_rel_error": err * 3, "cpu_ms": 0.25,
             "device_ms": None if outcome != "pass" else 0.05}
        if message is not None:
            e["message"] = message
        return e

    def results(chip, entries, device="npu"):
        return json.dumps({"schema": "opmap-results/1", "generator": "opmap testgen",
                           "device": device, "chip": chip, "torch": "2.1.0",
                           "torch_npu": "2.1.0.post3", "cann": "8.0.RC1",
                           "results": entries}, indent=1).encode()

    return {
        "seed-pass-fail.json": results("Ascend910B3", [
            entry("aten::layer_norm", ln, "pass"),
            entry("aten::add", add, "fail", 0.5, "max rel error 1.5 over 0.001 \u00e9")]),
        "seed-chips.json": results("Ascend310P3", [entry("aten::add", add, "pass"),
                                                   entry("aten::x", "aten::x(?)", "pass")]),
        "seed-unknown-chip.json": results("Ascend999Z", [entry("aten::add", add, "pass")]),
        "seed-repeat.json": results("Ascend910B1", [
            entry("aten::add", add, "pass"), entry("aten::add", add, "fail", 0.5),
            entry("aten::layer_norm", ln, "error", 0, "RuntimeError: no kernel"),
            entry("aten::layer_norm", ln, "skipped", 0, "torch_npu is not installed")]),
        "seed-cpu-run.json": results("cpu", [entry("aten::add", add, "pass")], device="cpu"),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    opmap = sys.argv[2] if len(sys.argv) > 2 else None
    sets = {"onnx": onnx_seeds(), "table": table_seeds(), "pipeline": pipeline_seeds(),
            "waivers": waiver_seeds(), "diff": diff_seeds(opmap), "report": report_seeds(opmap),
            "results": results_seeds()}
    sets.update(ts_seeds())
    for target, seeds in sets.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
