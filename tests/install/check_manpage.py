#!/usr/bin/python3
"""The man page (docs/opmap.1) keeps up with the command: every command `opmap --help`
lists, every option of each command's --help, and every exit code are documented there;
its header names the current version; groff renders it without a warning.

Usage: check_manpage.py OPMAP_BINARY MAN_PAGE VERSION
"""
import re
import shutil
import subprocess
import sys


def help_of(opmap, *args):
    proc = subprocess.run([opmap] + list(args) + ["--help"], capture_output=True, text=True)
    return proc.stdout + proc.stderr


def main():
    opmap, page, version = sys.argv[1:4]
    with open(page) as f:
        src = f.read()
    # the page as plain words: no comments, font escapes or escaped hyphens
    text = "\n".join(l for l in src.splitlines() if not l.startswith('.\\"'))
    text = re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\\(em", "-")
    problems = []

    top = help_of(opmap)
    commands = []
    for line in top.split("commands:", 1)[-1].splitlines():
        m = re.match(r"^  ([a-z]+(?: [a-z]+)?)\b", line)
        if m and not line.startswith("  opmap"):
            commands.append(m.group(1).split(" [")[0])
    if not commands:
        problems.append("cannot read the commands from opmap --help")
    for cmd in commands:
        words = cmd.split()
        if not re.search(r"\b" + r"\s+".join(map(re.escape, words)) + r"\b", text):
            problems.append("command '%s' (opmap --help) is not in the man page" % cmd)
    for opt in ("--help", "--version"):
        if opt not in text:
            problems.append("%s is not in the man page" % opt)

    for cmd in sorted({c.split()[0] for c in commands}):
        usage = help_of(opmap, cmd)
        for opt in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b", usage))):
            if not re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text):
                problems.append("option %s of 'opmap %s --help' is not in the man page"
                                % (opt, cmd))

    codes = re.findall(r"(?:^|[ ,])(\d+) [a-z]", top.split("exit codes:", 1)[-1])
    section = text.split(".SH EXIT STATUS", 1)[-1].split(".SH ", 1)[0]
    for code in codes:
        if not re.search(r"^\.B %s$" % code, section, re.M):
            problems.append("exit code %s is not in EXIT STATUS" % code)

    th = re.search(r'^\.TH OPMAP 1 .*"opmap ([0-9.]+)"', src, re.M)
    major_minor = ".".join(version.split(".")[:2])
    if not th or th.group(1) != major_minor:
        problems.append(".TH should name opmap %s" % major_minor)

    if shutil.which("groff"):
        proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                              capture_output=True, text=True)
        if proc.returncode or proc.stderr:
            problems.append("groff warns: " + proc.stderr.strip())

    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print("ok: %d commands, their options and %d exit codes are in %s"
          % (len(commands), len(codes), page))
    return 0


if __name__ == "__main__":
    sys.exit(main())
