#!/usr/bin/python3
"""Names of msit surgeon's ONNX rewrite knowledges (msit debug surgeon).

Source: msit-surgeon (xiaobingling93-pixel/Ascend-msit, a mirror of Ascend/msit
with the surgeon component; Mulan PSL v2).  Only the knowledge class names
are taken (from knowledges/*.py and the rules document headings); which ONNX
ops each knowledge is about is our reading, in data/curated/surgeon.yaml,
and build_table.py refuses a curated link to a knowledge that is not here.

Facts:
  knowledges: [KnowledgeXxx, ...]
"""
import re

from _common import importer_main, open_source

KDIR = "msit/components/debug/surgeon/auto_optimizer/pattern/knowledges/"
RULES = "msit/components/debug/surgeon/docs/knowledge_optimizer/knowledge_optimizer_rules.md"


def load(locations=None):
    """Surgeon knowledge names present in the pinned snapshot."""
    src = open_source("msit-surgeon", locations)
    names = set()
    for p, text in src.read_many(src.files(KDIR + "*.py")).items():
        names.update(re.findall(r"^class\s+(Knowledge\w+)\s*\(", text, re.M))
    names.update(re.findall(r"\((Knowledge\w+)\)", src.read(RULES)))
    names.discard("KnowledgeBase")
    return {"knowledges": sorted(names)}


if __name__ == "__main__":
    importer_main(load)
