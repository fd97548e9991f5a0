#!/usr/bin/python3
"""Docs that are run (issue 30): every command, C and Python example of README.md and docs/
is run by the suite as written, or says why it cannot be.

Each fenced block in a runnable language (sh, bash, c, python, cmake) carries a marker on the
line before its fence:

  <!-- run -->              run as written, and it must exit 0
  <!-- run: exit N -->      ... and it must exit N
  <!-- run: output -->      a block showing `$ COMMAND` and what it prints (up to `[...]`):
                            the command is run and its first lines must be the ones shown
  <!-- run: output of CMD -->  a block showing what CMD prints, the whole of it (or up to
                            `[...]`): CMD is run and must print exactly that
  <!-- run: ci -->          a CI configuration (yaml): the steps that call opmap are run as the
                            CI would run them, each must exit 0 (install steps are listed)
  <!-- run: clone -->       run as written in a copy of the source tree (the README's first
                            command: it builds the tree there)
  <!-- recipe: NAME -->     docs/scale.md's recipes, run by e2e.merge (tests/e2e/test_merge.py)
  <!-- not run: WHY -->     not run here, and why (an NPU, a package install, a cluster)

A block without a marker fails the test. The blocks of one document run in order in one
sandbox, so a block may use what an earlier one wrote. The sandbox holds what the docs name:
`opmap` on PATH (this build's), model.onnx, model.pt, a.onnx, b.onnx, b.pt, models/ (a git
repository with its models staged, for the pre-commit hook), main-branch/model.onnx,
export/model.onnx, train/ (nanoGPT's training script and model), my-weights.yaml, my_table.yaml,
app.c (examples/scan_model.c), this build installed for pkg-config (PKG_CONFIG_PATH), and
the README's Faster R-CNN export (made here with /usr/bin/python3's torch and torchvision;
skipped with 77 when they are missing). C blocks
are compiled against this build (a fragment without main() is wrapped in one), Python
blocks run with Debian's python3 and the binding (python/) over this build's libopmap.so.

Usage: run_docs.py OPMAP_BINARY LIBOPMAP_SO SOURCE_DIR [DOC...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

RUNNABLE = ("sh", "bash", "c", "python", "cmake")
FIX = "tests/fixtures"


def blocks(path):
    """(line, language, marker, text) of every fenced block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = re.match(r"^<!-- (run|run: [^>]*|recipe: [^>]*|not run: [^>]*) -->$",
                        lines[k].strip()) if k >= 0 else None
        out.append((i + 1, m.group(1), mark.group(1) if mark else None,
                    "\n".join(lines[i + 1:j]) + "\n"))
        i = j + 1
    return out


def faster_rcnn(cache):
    """The README's Faster R-CNN: torchvision's, random weights, exported at opset 17."""
    path = os.path.join(cache, "fasterrcnn_mobilenet_v3_320.onnx")
    if os.path.exists(path):
        return path
    code = ("import torch, torchvision, warnings\nwarnings.simplefilter('ignore')\n"
            "m = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn("
            "weights=None, weights_backbone=None).eval()\n"
            "torch.onnx.export(m, ([torch.rand(3, 320, 320)],), %r, opset_version=17)\n"
            % (path + ".tmp"))
    proc = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True)
    if proc.returncode:
        return None
    os.replace(path + ".tmp", path)
    return path


def install(so, prefix):
    """This build installed under prefix; its pkg-config directory."""
    build = os.path.dirname(so)
    while build != "/" and not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        build = os.path.dirname(build)
    subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                   capture_output=True)
    for d, _, files in os.walk(prefix):
        if "opmap.pc" in files:
            return d
    raise SystemExit("no opmap.pc under " + prefix)


def clone(root, dst):
    """The source tree's tracked files (links kept), as a clean clone has them."""
    files = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src, out = os.path.join(root, f), os.path.join(dst, f)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), out)
        elif os.path.exists(src):
            shutil.copy2(src, out)


def sandbox(root, opmap, tmp, frcnn):
    def copy(src, dst):
        dst = os.path.join(tmp, dst)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.join(root, src), dst)
    os.makedirs(os.path.join(tmp, "bin"))
    os.symlink(opmap, os.path.join(tmp, "bin", "opmap"))
    # the docs speak of Debian, whose python3 has torch (a pyenv one first on PATH may not)
    os.symlink("/usr/bin/python3", os.path.join(tmp, "bin", "python3"))
    for src, dst in (("llm/llama_block.opset17.onnx", "model.onnx"),
                     ("torchscript/resnet18.traced.pt", "model.pt"),
                     ("llm/gpt_block.opset17.onnx", "a.onnx"),
                     ("llm/mixtral_moe.opset17.onnx", "b.onnx"),
                     ("llm/llama_block.traced.pt", "b.pt"),
                     ("llm/llama_block.opset17.onnx", "models/llama_block.onnx"),
                     ("llm/gpt_block.opset17.onnx", "models/a.onnx"),
                     ("torchscript/resnet18.traced.pt", "models/resnet18.pt"),
                     ("llm/llama_block.opset13.onnx", "main-branch/model.onnx"),
                     ("llm/llama_block.opset17.onnx", "export/model.onnx")):
        copy(os.path.join(FIX, src), dst)
    copy("tests/data/python-projects/nanogpt/train.py", "train/main.py")
    copy("tests/data/python-projects/nanogpt/model.py", "train/model.py")
    copy("data/op_map.yaml", "my_table.yaml")
    copy("examples/scan_model.c", "app.c")
    with open(os.path.join(tmp, "my-weights.yaml"), "w") as f:
        f.write("partial: {min: 0.5, expected: 0.7, max: 1}\n")
    if frcnn:
        os.symlink(frcnn, os.path.join(tmp, "fasterrcnn_mobilenet_v3_320.onnx"))
    git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@invalid"]
    subprocess.run(git + ["init", "-q"], cwd=tmp, check=True)
    subprocess.run(git + ["add", "models"], cwd=tmp, check=True)


def c_program(text):
    """The block as a program: a fragment's statements go into main()."""
    if re.search(r"\bint\s+main\s*\(", text):
        return text
    head = [l for l in text.splitlines() if l.startswith("#include")]
    body = [l for l in text.splitlines() if not l.startswith("#include")]
    return "\n".join(head + ["int main(void)", "{"] + ["    " + l for l in body] +
                     ["    return 0;", "}"]) + "\n"


class Runner:
    def __init__(self, opmap, so, root):
        self.opmap, self.so, self.root = opmap, so, root
        self.env = dict(os.environ, NO_COLOR="1", OPMAP_TODAY="2026-01-01",
                        OPMAP_LIBRARY=so, PYTHONPATH=os.path.join(root, "python"),
                        PYTHONDONTWRITEBYTECODE="1")
        self.env.pop("OPMAP_TABLE", None)

    def shell(self, script, cwd, tmp=None):
        tmp = tmp or cwd
        env = dict(self.env, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"],
                   PKG_CONFIG_PATH=self.pkgconfig)
        return subprocess.run(["bash", "-e", "-u", "-o", "pipefail", "-c", script], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=1800)

    def run(self, lang, mark, text, cwd):
        """(status wanted, completed process)."""
        want = int(mark.split("exit", 1)[1]) if "exit" in mark else 0
        if lang == "c":
            with open(os.path.join(cwd, "doc_example.c"), "w") as f:
                f.write(c_program(text))
            lib = os.path.dirname(self.so)
            build = self.shell("cc -std=c99 -Wall -Werror -I%s doc_example.c -o doc_example "
                               "-L%s -lopmap -Wl,-rpath,%s" % (
                                   os.path.join(self.root, "include"), lib, lib), cwd)
            if build.returncode:
                return want, build
            return want, self.shell("./doc_example", cwd)
        if lang == "python":
            with open(os.path.join(cwd, "doc_example.py"), "w") as f:
                f.write(text)
            return want, self.shell("/usr/bin/python3 doc_example.py", cwd)
        if mark == "run: ci":
            return want, self.shell(ci_script(text), cwd)
        if mark == "run: output":
            return want, self.shell(output_command(text), cwd)
        if mark.startswith("run: output of "):
            return want, self.shell(mark[15:] + " > doc_output.txt\n", cwd)
        if mark == "run: clone":
            tree = os.path.join(cwd, "clone")
            clone(self.root, tree)
            return want, self.shell(text, tree, cwd)
        return want, self.shell(text, cwd)


def ci_script(text):
    """The opmap steps of a GitHub Actions or GitLab CI configuration, as one script."""
    doc = yaml.safe_load(text)
    steps = []
    for job in (doc.get("jobs") or {}).values():
        steps += [s["run"] for s in job.get("steps", []) if "run" in s]
    for job in doc.values():
        if isinstance(job, dict) and "script" in job:
            steps += job["script"]
    run = [s for s in steps if s.lstrip().startswith("opmap ")]
    if not run:
        raise SystemExit("a CI block with no opmap step")
    return "\n".join(run) + "\n"


def output_command(text):
    return text.splitlines()[0][2:] + " > doc_output.txt\n"


def main():
    opmap, so, root = (os.path.abspath(a) for a in sys.argv[1:4])
    docs = sys.argv[4:] or ["README.md"] + sorted(
        os.path.join("docs", d) for d in os.listdir(os.path.join(root, "docs"))
        if d.endswith(".md"))
    cache = os.path.join(os.environ.get("HOME", "/tmp"), ".cache", "opmap", "docs")
    os.makedirs(cache, exist_ok=True)
    runner = Runner(opmap, so, root)
    problems, ran, not_run, elsewhere = [], 0, [], 0
    frcnn = None
    for doc in docs:
        found = blocks(os.path.join(root, doc))
        todo = [b for b in found if b[1] in RUNNABLE or (b[2] or "").startswith("run")]
        for line, lang, mark, text in todo:
            if not mark:
                problems.append("%s:%d: a %s block that is neither run nor said not to be run "
                                "(<!-- run --> or <!-- not run: WHY -->)" % (doc, line, lang))
            elif mark.startswith("not run: "):
                not_run.append("%s:%d: %s" % (doc, line, mark[9:]))
            elif mark.startswith("recipe: "):
                elsewhere += 1
        runnable = [b for b in todo if b[2] and b[2].startswith("run")]
        if not runnable:
            continue
        if any("fasterrcnn_mobilenet_v3_320" in b[3] for b in runnable) and frcnn is None:
            frcnn = faster_rcnn(cache) or ""
            if not frcnn:
                print("skip: /usr/bin/python3 cannot export the Faster R-CNN (torch, torchvision)")
                return 77
        with tempfile.TemporaryDirectory(prefix="opmap-docs-") as tmp:
            sandbox(root, opmap, tmp, frcnn)
            runner.pkgconfig = install(so, os.path.join(tmp, "prefix"))
            for line, lang, mark, text in runnable:
                want, proc = runner.run(lang, mark, text, tmp)
                ran += 1
                where = "%s:%d" % (doc, line)
                if proc.returncode != want:
                    problems.append("%s: exit %d, expected %d\n%s\n%s" % (
                        where, proc.returncode, want, text.strip(),
                        (proc.stdout + proc.stderr).strip()[-2000:]))
                    continue
                if mark.startswith("run: output"):
                    shown = text.splitlines()[0 if mark.startswith("run: output of") else 1:]
                    whole = "[...]" not in shown
                    shown = shown if whole else shown[:shown.index("[...]")]
                    with open(os.path.join(tmp, "doc_output.txt"), encoding="utf-8") as f:
                        got = f.read().splitlines()
                    got = got if whole else got[:len(shown)]
                    if got != shown:
                        diff = [("- " + a, "+ " + b) for a, b in zip(shown, got) if a != b][:5]
                        problems.append("%s: the output shown is not what it prints:\n%s" % (
                            where, "\n".join("%s\n%s" % d for d in diff) or
                            "%d lines shown, %d printed" % (len(shown), len(got))))
    for n in not_run:
        print("not run: " + n)
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print("ok: %d blocks run as written, %d run by e2e.merge, %d not run (listed above)"
          % (ran, elsewhere, len(not_run)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
