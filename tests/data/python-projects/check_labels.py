#!/usr/bin/env python3
"""Mechanical check of the hand-made labels in this directory.

For every row of <project>/expected.tsv and <project>/unsure.tsv: the kind is
known, the file is stored, and `text` occurs on that (1-based) line; line 0 is
allowed only for `extension` rows naming a stored .cu/.cuh file, and every
stored .cu/.cuh file must have such a row.  With --coverage, also list lines
that mention cuda/nccl/cudnn but carry no row at all (a reading aid, not an
error: identifiers such as `use_cuda` are deliberately left unlabelled).
"""
import os
import re
import sys

KINDS = {"cuda-method", "cuda-api", "amp", "device-string", "nccl", "cudnn",
         "tf32", "extension", "cuda-library", "decoy"}
HERE = os.path.dirname(os.path.abspath(__file__))
WORD = re.compile(r"cuda|nccl|cudnn", re.I)


def rows(path):
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        for n, ln in enumerate(f, 1):
            ln = ln.rstrip("\n")
            if ln.startswith("#") or not ln.strip():
                continue
            yield n, ln.split("\t")


def main():
    coverage = "--coverage" in sys.argv
    errors = 0
    for proj in sorted(os.listdir(HERE)):
        pdir = os.path.join(HERE, proj)
        if not os.path.isdir(pdir):
            continue
        labelled = set()
        cu_rows = set()
        for tsv, ncol in (("expected.tsv", 4), ("unsure.tsv", 5)):
            for n, cols in rows(os.path.join(pdir, tsv)):
                where = f"{proj}/{tsv}:{n}"
                if len(cols) != ncol:
                    print(f"{where}: {len(cols)} columns, want {ncol}")
                    errors += 1
                    continue
                fname, line, kind, text = cols[:4]
                src = os.path.join(pdir, fname)
                if kind not in KINDS:
                    print(f"{where}: unknown kind {kind!r}")
                    errors += 1
                if not os.path.isfile(src):
                    print(f"{where}: no file {fname}")
                    errors += 1
                    continue
                line = int(line)
                if line == 0:
                    if kind != "extension" or not fname.endswith((".cu", ".cuh")):
                        print(f"{where}: line 0 only for extension rows of .cu/.cuh")
                        errors += 1
                    cu_rows.add(fname)
                    continue
                with open(src, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                if line > len(lines) or text not in lines[line - 1]:
                    print(f"{where}: {text!r} not on {fname}:{line}")
                    errors += 1
                labelled.add((fname, line))
        for root, _, files in os.walk(pdir):
            for fn in files:
                rel = os.path.relpath(os.path.join(root, fn), pdir)
                if fn.endswith((".cu", ".cuh")) and rel not in cu_rows:
                    print(f"{proj}: stored {rel} has no line-0 extension row")
                    errors += 1
                if coverage and fn.endswith(".py"):
                    with open(os.path.join(pdir, rel), encoding="utf-8") as f:
                        for i, ln in enumerate(f, 1):
                            if WORD.search(ln) and (rel, i) not in labelled:
                                print(f"unlabelled {proj}/{rel}:{i}: {ln.strip()}")
    print("errors:", errors)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
