#!/usr/bin/python3
"""Writes 40,000 nested Ifs (1.6 MB: too big to commit) and runs depth_ceiling on it.

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
    sys.exit(subprocess.run([sys.argv[1], path]).returncode)
