#!/usr/bin/python3
"""The man page (docs/opmap.1) keeps up with the command: every command `opmap --help`
lists, every option of each command's --help, and every exit code are documented there;
the lists --help takes from the library (the report formats, the --fail-on kinds, the
headline's --blocked-on and --needs-work-on defaults) are the man page's lists; its header
names the current version; groff renders it without a warning.

Usage: check_manpage.py OPMAP_BINARY MAN_PAGE VERSION
"""
import re
import shutil
import subprocess
import sys


def help_of(opmap, *args):
    proc = subprocess.run([opmap] + list(args) + ["--help"], capture_output=True, text=True)
    return proc.stdout + proc.stderr


def option_help(usage, option):
    """The help text of one option in --help, on one line."""
    m = re.search(r"^  (?:-\w, )?%s\b(.*?)(?=^  -|^[a-z]|\Z)" % re.escape(option), usage,
                  re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""


def man_entry(src, option):
    """The words of the man page's .TP entry of an option, fonts and escapes gone."""
    m = re.search(r"^\.BI? %s\b(.*?)(?=^\.TP|^\.SH|^\.SS)" % re.escape(option.replace("-", "\\-")),
                  src, re.M | re.S)
    body = m.group(1) if m else ""
    body = re.sub(r"^\.[A-Z]+ ?", "", body, flags=re.M)
    return body.replace("\\-", "-").replace('"', "")


def words(text):
    return set(re.findall(r"[a-z][a-z0-9-]*", text))


def lists_agree(usage, src, text):
    """The lists --help gives from the library are the man page's."""
    problems = []
    kinds = option_help(usage, "--fail-on").split("comma-separated:", 1)[-1].split(";")[0]
    kinds = [k.strip() for k in kinds.split(",") if k.strip()]
    entry = words(man_entry(src, "--fail-on"))
    for k in kinds:
        if k not in entry:
            problems.append("--fail-on kind %s (opmap scan --help) is not in the man page's "
                            "--fail-on" % k)
    for option in ("--blocked-on", "--needs-work-on"):
        m = re.search(r"\(default: ([^)]*?)\)", option_help(usage, option))
        want = set(k.strip() for k in m.group(1).split(",")) if m else set()
        man = man_entry(src, option)
        man_default = man.split("default:", 1)[-1].split(")", 1)[0]
        got = words(man_default) & set(kinds)
        if not want or got != want:
            problems.append("%s defaults: opmap scan --help says %s, the man page %s"
                            % (option, sorted(want), sorted(got)))
    fmts = option_help(usage, "--format").split("(every format", 1)[0]
    entry = words(man_entry(src, "--format"))
    for f in re.findall(r"[a-z][a-z-]*", fmts.replace("(default)", "")):
        if f not in ("or",) and f not in entry:
            problems.append("report format %s (opmap scan --help) is not in the man page's "
                            "--format" % f)
    return problems


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

    problems += lists_agree(help_of(opmap, "scan"), src, text)

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
