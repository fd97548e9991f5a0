#!/usr/bin/python3
"""The Debian package: built with CPack, installed on this machine with dpkg, used, purged.

Run by ctest as deb.package (needs root: exits 77, which ctest reports as skipped,
otherwise; CI runs as root). Steps:

1. configure this source tree with -DCMAKE_INSTALL_PREFIX=/usr into <build>/deb-build,
   build it and run `cpack -G DEB`;
2. check the package: name, version, architecture, its files (library, static library,
   CLI, headers, pkg-config file, CMake package, table, man page, Python binding, nothing
   outside /usr), and that Depends names the package of every library its ELF files need;
3. refuse to go on if opmap is already installed, or if a file of the package already
   exists on the system (it would be overwritten, then deleted by the purge);
4. dpkg -i; then use it the way a user would: opmap --version, a scan equal to the package
   build's own (uninstalled) CLI, the man page, pkg-config and find_package builds of the
   example, import opmap;
5. always (try/finally, SIGTERM too) dpkg -P, and check nothing is left.

A stamp file marks an installation this test made, so a run that was killed before its
purge is cleaned up by the next run instead of being mistaken for the user's own package.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
ENV = os.environ
BUILD = ENV.get("OPMAP_BUILD_DIR", "")
SOURCE = ENV.get("OPMAP_SOURCE_DIR", "")
CLI = ENV.get("OPMAP_CLI", "")
VERSION = ENV.get("OPMAP_VERSION", "")
ABI = ENV.get("OPMAP_ABI", "")  # the SONAME's number (OPMAP_ABI_VERSION)
TESTDATA = ENV.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
PROTO = ENV.get("OPMAP_ONNX_PROTO", "/usr/include/onnx/onnx.proto")
MODELS = [os.path.join(SOURCE, "tests", "fixtures", "torchscript", "efficientnet_b0.traced.pt"),
          os.path.join(TESTDATA, "pytorch-operator", "test_operator_basic", "model.onnx")]
PACKAGE = "opmap"


def log(msg):
    print(msg, flush=True)


def run(cmd, ok=(0,), **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    proc = subprocess.run(cmd, **kw)
    if ok is not None and proc.returncode not in ok:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s"
                             % (" ".join(cmd), proc.returncode, proc.stdout, proc.stderr))
    return proc


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "OPMAP_LIBRARY", "PYTHONPATH",
                        "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH")}
    env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    env.update(extra)
    return env


def dpkg(*args):
    """dpkg, waiting (up to 5 minutes) while another dpkg/apt holds the lock. A SIGTERM,
    SIGHUP or SIGINT is held back until dpkg is done, so it is never killed half-way."""
    held = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        deadline = time.time() + 300
        while True:
            proc = run(["dpkg"] + list(args), ok=None)
            if proc.returncode == 0 or "lock" not in proc.stderr or time.time() > deadline:
                return proc
            time.sleep(3)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def installed():
    """True when dpkg knows the package in any state but "not-installed"."""
    proc = run(["dpkg-query", "-W", "-f=${db:Status-Status}", PACKAGE], ok=None)
    return proc.returncode == 0 and proc.stdout.strip() not in ("", "not-installed")


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def build_package(work):
    log("== building the package in %s" % work)
    run(["cmake", "-S", SOURCE, "-B", work, "-DCMAKE_INSTALL_PREFIX=/usr",
         "-DCMAKE_BUILD_TYPE=Release", "-DOPMAP_BUILD_TESTS=OFF",
         "-DOPMAP_ONNX_PROTO=%s" % PROTO])
    run(["cmake", "--build", work, "-j", str(os.cpu_count() or 2)])
    out = os.path.join(work, "packages")
    shutil.rmtree(out, ignore_errors=True)
    run(["cpack", "-G", "DEB", "-B", out], cwd=work)
    debs = [f for f in os.listdir(out) if f.endswith(".deb")]
    check(len(debs) == 1, "cpack made %s" % debs)
    return os.path.join(out, debs[0])


def check_package(deb, work):
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip() \
        if shutil.which("dpkg-architecture") else "x86_64-linux-gnu"
    fields = {}
    for name in ("Package", "Version", "Architecture", "Depends", "Section", "Maintainer",
                 "Description"):
        fields[name] = run(["dpkg-deb", "-f", deb, name]).stdout.strip()
    log("== dpkg-deb -I\n" + run(["dpkg-deb", "-I", deb]).stdout)
    check(fields["Package"] == PACKAGE, fields)
    check(fields["Version"] == VERSION, fields)
    check(fields["Architecture"] == arch, fields)
    depends = {d.strip().split()[0] for d in fields["Depends"].split(",") if d.strip()}

    listing = run(["dpkg-deb", "-c", deb]).stdout
    log("== dpkg-deb -c\n" + listing)
    paths = {}
    for line in listing.splitlines():
        parts = line.split(None, 5)
        name = parts[5].split(" -> ")[0]
        paths[name.lstrip(".")] = parts[0]
    libdir = "/usr/lib/%s" % multiarch
    want = ["/usr/bin/opmap", libdir + "/libopmap.so.%s" % VERSION,
            libdir + "/libopmap.so.%s" % ABI, libdir + "/libopmap.so",
            libdir + "/libopmap.a", libdir + "/pkgconfig/opmap.pc",
            libdir + "/cmake/opmap/opmap-config.cmake",
            libdir + "/cmake/opmap/opmap-config-version.cmake",
            libdir + "/cmake/opmap/opmap-targets.cmake",
            "/usr/include/opmap/opmap.h", "/usr/share/opmap/op_map.yaml",
            "/usr/share/man/man1/opmap.1", "/usr/lib/python3/dist-packages/opmap/__init__.py"]
    for p in want:
        check(p in paths, "%s is not in the package" % p)
    for p in paths:
        check(p.startswith("/usr/") or p in ("/", "/usr"), "%s is outside /usr" % p)
        check(not p.startswith("/usr/local"), "%s is under /usr/local" % p)

    # Every library the packaged ELF files need comes from a package Depends names.
    root = os.path.join(work, "extract")
    shutil.rmtree(root, ignore_errors=True)
    run(["dpkg-deb", "-x", deb, root])
    needed = set()
    for dirpath, _, files in os.walk(root):
        for f in files:
            path = os.path.join(dirpath, f)
            if os.path.islink(path) or f.endswith(".a"):
                continue
            with open(path, "rb") as fh:
                if fh.read(4) != b"\x7fELF":
                    continue
            needed |= set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                                     run(["readelf", "-d", path]).stdout))
    needed.discard("libopmap.so.%s" % ABI)
    check(needed, "no NEEDED entries found")
    for lib in sorted(needed):
        where = run(["ldconfig", "-p"]).stdout
        m = re.search(r"^\s*%s \(.*\) => (\S+)$" % re.escape(lib), where, re.M)
        check(m, "%s: not found by ldconfig" % lib)
        owner = run(["dpkg", "-S", os.path.realpath(m.group(1))], ok=None).stdout
        if not owner:
            owner = run(["dpkg", "-S", m.group(1)]).stdout
        pkg = owner.split(":")[0].strip()
        check(pkg in depends, "%s (from %s) is needed, Depends is %s"
              % (lib, pkg, fields["Depends"]))
    log("== needed %s, all from packages in Depends" % sorted(needed))
    return [p for p, mode in paths.items() if not mode.startswith("d")], libdir


def use_installed(libdir, work, ref_cli):
    """ref_cli: the package build's own uninstalled opmap, built from the same sources at the
    same moment (the test build's CLI could be older than the sources when they change)."""
    env = clean_env()
    exe = shutil.which("opmap", path=env["PATH"])
    check(exe == "/usr/bin/opmap", "opmap on PATH is %s" % exe)
    out = run([exe, "--version"], env=env).stdout.strip()
    check(out == "opmap %s" % VERSION, out)
    log("== %s" % out)
    ldd = run(["ldd", exe], env=env).stdout
    m = re.search(r"libopmap\.so\.\d+ => (\S+)", ldd)
    check(m and os.path.realpath(os.path.dirname(m.group(1))) == os.path.realpath(libdir), ldd)
    for model in MODELS:
        want = run([ref_cli, "scan", "--format", "json", model], ok=(0, 1))
        got = run([exe, "scan", "--format", "json", model], ok=(0, 1), env=env)
        check(got.returncode == want.returncode and got.stdout == want.stdout,
              "installed opmap scan %s differs from the build tree's" % model)
        log("== opmap scan %s: exit %d, %d operators" % (
            model, got.returncode, len(json.loads(got.stdout)["models"][0]["operators"])))
    run([exe, "table", "lint", "/usr/share/opmap/op_map.yaml"], env=env)
    if shutil.which("man"):
        page = run(["man", "-w", "opmap"], env=env).stdout.strip()
        check(page.startswith("/usr/share/man/man1/opmap.1"), page)

    # C: the example, with pkg-config and with find_package, from the system's paths only
    ver = run(["pkg-config", "--modversion", "opmap"], env=env).stdout.strip()
    check(ver == VERSION, "pkg-config says %s" % ver)
    ex = os.path.join(work, "example-pc")
    shutil.copytree(os.path.join(SOURCE, "examples"), ex)
    run(["make", "-C", ex], env=env)
    out = run([os.path.join(ex, "scan_model"), MODELS[0]], env=env).stdout
    check("libopmap %s" % VERSION in out and "estimate:" in out, out)
    exc = os.path.join(work, "example-cmake")
    run(["cmake", "-S", os.path.join(SOURCE, "examples"), "-B", exc], env=env)
    run(["cmake", "--build", exc], env=env)
    out2 = run([os.path.join(exc, "scan_model"), MODELS[0]], env=env).stdout
    check(out2 == out, "the find_package build prints something else")
    log("== example built with pkg-config and find_package, runs")

    # Python: Debian's python3 imports the binding from dist-packages, no configuration
    code = ("import json, sys, opmap\n"
            "print(json.dumps({'lib': opmap.library_path(), 'report': opmap.scan(sys.argv[1])}))\n")
    got = json.loads(run(["/usr/bin/python3", "-c", code, MODELS[0]], env=env, cwd="/").stdout)
    check(os.path.realpath(os.path.dirname(got["lib"])) == os.path.realpath(libdir), got["lib"])
    want = json.loads(run([ref_cli, "scan", "--format", "json", MODELS[0]], ok=(0, 1)).stdout)
    check(got["report"] == want, "import opmap; opmap.scan() differs from the CLI")
    log("== python3: import opmap uses %s" % got["lib"])


def main():
    if not (BUILD and SOURCE and CLI and VERSION and ABI):
        sys.exit("run through ctest (OPMAP_BUILD_DIR, OPMAP_SOURCE_DIR, OPMAP_CLI, OPMAP_VERSION, OPMAP_ABI)")
    if os.geteuid() != 0:
        print("SKIP: deb.package installs a package with dpkg and needs root (CI runs as root)")
        return SKIP
    missing = [t for t in ("dpkg", "dpkg-deb", "dpkg-shlibdeps", "file", "cpack", "make")
               if not shutil.which(t)]
    if missing:
        print("FAIL: missing %s (tools/install-deps --test installs them)" % ", ".join(missing))
        return 1

    work = os.path.join(BUILD, "deb-build")
    stamp = os.path.join(BUILD, "deb-package-installed-by-test")
    if installed():
        if not os.path.exists(stamp):
            print("FAIL: package %s is already installed on this machine and this test did not "
                  "install it; not touching it (dpkg -P %s to let the test run)"
                  % (PACKAGE, PACKAGE))
            return 1
        log("== purging the package a killed earlier run left installed")
        dpkg("-P", PACKAGE)
        os.unlink(stamp)

    deb = build_package(work)
    files, libdir = check_package(deb, work)
    clobber = [p for p in files if os.path.lexists(p)]
    if clobber:
        print("FAIL: these files of the package already exist on this machine; dpkg would "
              "overwrite them and the purge delete them:\n  " + "\n  ".join(clobber))
        return 1

    def on_term(signum, frame):
        raise SystemExit("killed by signal %d" % signum)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)

    tmp = tempfile.mkdtemp(prefix="opmap-deb-")
    try:
        with open(stamp, "w") as f:
            f.write(deb + "\n")
        log("== dpkg -i %s" % deb)
        proc = dpkg("-i", deb)
        check(proc.returncode == 0, "dpkg -i failed:\n%s%s" % (proc.stdout, proc.stderr))
        status = run(["dpkg-query", "-W", "-f=${Status} ${Version}", PACKAGE]).stdout
        check(status == "install ok installed %s" % VERSION, status)
        use_installed(libdir, tmp, os.path.join(work, "opmap"))
    finally:
        log("== dpkg -P %s" % PACKAGE)
        proc = dpkg("-P", PACKAGE)
        shutil.rmtree(tmp, ignore_errors=True)
        if proc.returncode == 0:
            if os.path.exists(stamp):
                os.unlink(stamp)
        else:
            print("dpkg -P failed:\n%s%s" % (proc.stdout, proc.stderr))
    check(not installed(), "the package is still installed after dpkg -P")
    left = [p for p in files if os.path.lexists(p)]
    check(not left, "left behind after the purge: %s" % left)
    log("ok: the .deb builds, installs, works and purges cleanly")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("FAIL: %s" % e)
        sys.exit(1)
