#!/usr/bin/python3
"""Ascend/ModelZoo-PyTorch inference recipes (modelzoo-recipes).

Source: Ascend/ModelZoo-PyTorch at the pinned commit.  Each ACL_PyTorch/... folder is
one model's published conversion: export script, onnx-simplifier and graph edits, the
ATC command and the results measured on Ascend.  The table takes only which recipe
folders exist (to check the paths data/curated/advice.yaml cites); what each recipe did
is read by hand into tests/truth/recipes/ and data/curated/advice.yaml, in our words.

Facts:
  recipes: [folder path, ...]   folders under ACL_PyTorch/ and PyTorch/ (training
                                recipes) that hold a README
"""
import os

from _common import importer_main, open_source


def load(locations=None):
    """The recipe folders of the pinned snapshot."""
    src = open_source("modelzoo-recipes", locations)
    folders = set()
    # inference recipes (ACL_PyTorch) and training recipes (PyTorch/built-in, PyTorch/contrib)
    for p in src.files("ACL_PyTorch/*") + src.files("PyTorch/*"):
        if os.path.basename(p).lower() in ("readme.md", "readme_cn.md"):
            folders.add(os.path.dirname(p))
    return {"recipes": sorted(folders)}


if __name__ == "__main__":
    importer_main(load)
