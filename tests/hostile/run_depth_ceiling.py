#!/usr/bin/python3
"""Writes 40,000 nested Ifs (1.6 MB: too big to commit) and TorchScript archives whose code
holds a chain of 100,000 attributes (refused: max_depth) and of 8,000 (just under the bound
the ceiling allows: it must not overflow the stack), and runs depth_ceiling on them.

Usage: run_depth_ceiling.py DEPTH_CEILING_BINARY   (ctest: hostile.depth_ceiling)
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_hostile  # noqa: E402

with tempfile.TemporaryDirectory(prefix="opmap-depth-") as tmp:
    path = os.path.join(tmp, "deep_if_40000.onnx")
    with open(path, "wb") as f:
        f.write(make_hostile.nested_if(40000))
    chains = []
    for links in (100000, 8000):
        chains.append(os.path.join(tmp, "chain_%d.pt" % links))
        with open(chains[-1], "wb") as f:
            f.write(make_hostile.ts_archive(code=make_hostile.TS_CODE.replace(
                b"torch.relu(x)", b"x" + b".a" * links)))
    proc = subprocess.run([sys.argv[1], path] + chains, stdout=subprocess.PIPE, text=True)
    print(proc.stdout, end="")
    if proc.returncode == 0 and "chain_100000.pt: a chain of more than 8200" not in proc.stdout:
        print("the 100,000-link chain was not refused by its bound")
        sys.exit(1)
    sys.exit(proc.returncode)
