#!/usr/bin/python3
"""opmap reads an ambiguous TorchScript archive as torch.jit.load reads it (issue 16).

    differential_ts.py OPMAP

Each case is a small archive (a module M whose forward calls relu, often with a decoy whose
forward calls tanh) edited where zip readers and unpicklers disagree: end records in the
archive comment, zip64 records (torch.jit.save writes one in every archive) and zip64 extra
fields, names equal but for case, entries outside the archive's folder, data.pkl naming
another class than the first one it mentions. The reference is /usr/bin/python3's torch:
torch.jit.load(path).inlined_graph, its aten:: node kinds counted (blocks included). opmap's
aten:: histogram (`opmap scan --format json`) must equal it, or both must refuse the file.

Two kinds of case may differ, and say so: `ambiguous` ones, where torch reads whichever of
two entries its name search hits, so opmap refuses them; `gap` ones, where torch refuses for
something that does not change the module (a missing constants.pkl) and opmap reads it.
Exits 77 when torch cannot be imported.
"""
import collections
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

TORCH_PY = "/usr/bin/python3"
OPMAP = None

# ---- archives written by hand, so every record can lie ------------------------------------


def cls(name, op):
    return ("class %s(Module):\n  __parameters__ = []\n  __buffers__ = []\n  training : bool\n"
            "  def forward(self: __torch__.%s,\n    x: Tensor) -> Tensor:\n    return torch.%s(x)\n"
            % (name, name, op))


def obj(name, extra=b""):
    """Pickle ops building a __torch__.<name> object (state: training, then `extra`)."""
    return (b"c__torch__\n" + name.encode() + b"\n)\x81}(X\x08\x00\x00\x00training\x88" +
            extra + b"ub")


def pkl(body):
    return b"\x80\x02" + body + b"."


REAL = cls("M", "relu")
DECOY = cls("M", "tanh")
TWO = cls("M", "relu") + cls("D", "tanh")


def archive(code=REAL, data=None, prefix="archive", drop=(), extra=()):
    """(name, bytes, deflate) entries of a torch.jit.save-like archive."""
    es = [(prefix + "/data.pkl", pkl(obj("M")) if data is None else data, False),
          (prefix + "/code/__torch__.py", code.encode(), True),
          (prefix + "/constants.pkl", b"\x80\x02).", False),
          (prefix + "/version", b"3\n", False)]
    return [e for e in es if e[0].split("/", 1)[1] not in drop] + list(extra)


def locals_of(entries, base=0):
    """Local headers and data; the central records (as tuples) pointing at them."""
    out, recs = b"", []
    for name, data, deflate in entries:
        if deflate:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            comp = c.compress(data) + c.flush()
        else:
            comp = data
        nb = name.encode()
        rec = [nb, 8 if deflate else 0, zlib.crc32(data) & 0xFFFFFFFF, len(comp), len(data),
               base + len(out), 0, 0]
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, rec[1], 0, 0x21, rec[2], rec[3],
                           rec[4], len(nb), 0) + nb + comp
        recs.append(rec)
    return out, recs


def central(recs, zip64_extra=False):
    out = b""
    for nb, method, crc, cs, us, lho, attr, disk in recs:
        ex = b""
        if zip64_extra:
            ex = struct.pack("<HHQQQ", 1, 24, us, cs, lho)
            cs = us = lho = 0xFFFFFFFF
        out += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 20, 0, method, 0, 0x21, crc,
                           cs, us, len(nb), len(ex), 0, disk, 0, attr, lho) + nb + ex
    return out


def eocd(n, size, off, comment=0, markers=False):
    if markers:
        n, size, off = 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, size, off, comment)


def zip64(n, size, off, at, disks=1, loc_at=None):
    return (struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, size, off) +
            struct.pack("<IIQI", 0x07064B50, 0, at if loc_at is None else loc_at, disks))


def plain(entries, **kw):
    body, recs = locals_of(entries)
    cd = central(recs)
    return body + cd + eocd(len(recs), len(cd), len(body), **kw)


def with_zip64(entries, markers=False, zip64_extra=False, loc_at=None, disks=1):
    body, recs = locals_of(entries)
    cd = central(recs, zip64_extra)
    at = len(body) + len(cd)
    return (body + cd + zip64(len(recs), len(cd), len(body), at, disks, loc_at) +
            eocd(len(recs), len(cd), len(body), markers=markers))


def real_and_decoy():
    """Local entries of a real (relu) and a decoy (tanh) archive, and both directories."""
    body, recs = locals_of(archive())
    dbody, drecs = locals_of(archive(DECOY), base=len(body))
    return body + dbody, central(recs), central(drecs), len(recs)


def decoy_in_comment(decoy_comment=0):
    body, cd, dcd, n = real_and_decoy()
    comment = dcd + eocd(n, len(dcd), len(body) + len(cd) + 22, decoy_comment)
    return body + cd + eocd(n, len(cd), len(body), len(comment)) + comment


def copies_in_comment():
    body, recs = locals_of(archive())
    cd = central(recs)
    k = 65535 // 22
    copies = b"".join(eocd(len(recs), len(cd), len(body), (k - 1 - j) * 22) for j in range(k))
    return body + cd + eocd(len(recs), len(cd), len(body), len(copies)) + copies


def empty_records_in_comment():
    body, recs = locals_of(archive())
    cd = central(recs)
    fakes = b"".join(eocd(0, 0, 0) for _ in range(65535 // 22))
    return body + cd + eocd(len(recs), len(cd), len(body), len(fakes)) + fakes


def trailing(n):
    """The end record followed by n bytes (its comment length says 65,535)."""
    return plain(archive(), comment=65535) + b"x" * n


def zip64_disagrees():
    body, cd, dcd, n = real_and_decoy()
    at = len(body) + len(cd) + len(dcd)
    return (body + cd + dcd + zip64(n, len(dcd), len(body) + len(cd), at) +
            eocd(n, len(cd), len(body)))


def dangling_locator():
    body, recs = locals_of(archive())
    cd = central(recs)
    return (body + cd + struct.pack("<IIQI", 0x07064B50, 0, 3, 1) +
            eocd(len(recs), len(cd), len(body)))


def patched(data, find, replace):
    i = data.index(find)
    return data[:i] + replace + data[i + len(find):]


def stored_crc_mismatch():
    es = archive()
    es[1] = (es[1][0], es[1][1], False)
    good = plain(es)
    # the code changed after its CRC was taken: torch 1.13 does not check CRCs
    return patched(good, b"torch.relu(x)", b"torch.tanh(x)")


def local_name_differs():
    return patched(plain(archive()), b"archive/code/__torch__.py", b"ARCHIVX/code/__torch__.py")


def memo_root():
    # an M object made first, kept in the memo, becomes an attribute of the D root
    m_first = b"c__torch__\nM\nq\x01\x85\x81"  # GLOBAL M (index 0), dropped by NEWOBJ
    sub = b"X\x03\x00\x00\x00subh\x01}(X\x08\x00\x00\x00training\x88ub"
    return pkl(m_first + obj("D", sub))


CASES = [
    # (name, bytes, kind) kind: "" must agree; "ambiguous": opmap refuses, torch picks one;
    # "gap": torch refuses, opmap reads the same module
    ("plain", plain(archive()), ""),
    ("zip64_as_torch_writes", with_zip64(archive()), ""),
    ("zip64_markers", with_zip64(archive(), markers=True), ""),
    ("zip64_extra_fields", with_zip64(archive(), markers=True, zip64_extra=True), ""),
    ("zip64_record_names_decoy_directory", zip64_disagrees(), ""),
    ("zip64_locator_without_record", dangling_locator(), ""),
    ("zip64_locator_past_end", with_zip64(archive(), loc_at=1 << 40), ""),
    ("zip64_two_disks", with_zip64(archive(), disks=2), ""),
    ("decoy_directory_in_comment", decoy_in_comment(), ""),
    ("decoy_end_record_comment_past_end", decoy_in_comment(100), ""),
    ("comment_of_end_record_copies", copies_in_comment(), ""),
    ("comment_of_empty_end_records", empty_records_in_comment(), ""),
    ("signature_in_last_21_bytes",
     plain(archive(), comment=10) + b"PK\x05\x06" + b"\0" * 6, ""),
    ("end_record_69584_from_end", trailing(69562), ""),
    ("end_record_69585_from_end", trailing(69563), ""),
    ("stored_crc_mismatch", stored_crc_mismatch(), ""),
    ("local_header_name_differs", local_name_differs(), ""),
    ("code_twice", plain(archive(extra=[("archive/code/__torch__.py", DECOY.encode(), True)])),
     "ambiguous"),
    ("code_twice_but_for_case",
     plain(archive(extra=[("archive/CODE/__torch__.py", DECOY.encode(), True)])), "ambiguous"),
    ("data_pkl_twice",
     plain(archive(TWO, extra=[("archive/data.pkl", pkl(obj("D")), False)])), "ambiguous"),
    ("code_in_upper_case", plain([(n.replace("/code/", "/CODE/"), d, f)
                                  for n, d, f in archive()]), ""),
    ("folder_in_upper_case", plain(archive()[:1] + [(n.replace("archive/", "ARCHIVE/"), d, f)
                                                    for n, d, f in archive()[1:]]), ""),
    ("code_outside_the_folder", plain(archive(drop=("code/__torch__.py",),
                                              extra=[("other/code/__torch__.py",
                                                      REAL.encode(), True)])), ""),
    ("decoy_code_outside_the_folder",
     plain(archive(extra=[("other/code/__torch__.py", DECOY.encode(), True)])), ""),
    ("first_entry_in_no_folder", plain([("readme", b"x", False)] + archive()), ""),
    ("first_entry_in_another_folder", plain([("zzz/readme", b"x", False)] + archive()), ""),
    ("no_data_pkl", plain(archive(drop=("data.pkl",))), ""),
    ("no_version", plain(archive(drop=("version",))), ""),
    ("version_not_a_number", plain(archive(drop=("version",),
                                           extra=[("archive/version", b"abc\n", False)])), ""),
    ("dot_data_version", plain(archive(drop=("version",),
                                       extra=[("archive/.data/version", b"3\n", False)])), ""),
    ("no_constants_pkl", plain(archive(drop=("constants.pkl",))), "gap"),
    ("root_is_second_class", plain(archive(TWO, pkl(obj("D")))), ""),
    ("root_built_by_reduce",
     plain(archive(TWO, pkl(b"c__torch__\nD\n}(X\x08\x00\x00\x00training\x88uR"))), ""),
    ("root_class_by_int_index",
     plain(archive(TWO, pkl(b"c__torch__\nD\n\x85\x81K\x00}(X\x08\x00\x00\x00training\x88ub"))),
     ""),
    ("root_first_global_is_an_attribute", plain(archive(TWO, memo_root())), ""),
    ("root_after_pop_of_decoy", plain(archive(TWO, pkl(obj("D") + b"0" + obj("M")))), ""),
    ("root_two_globals_one_newobj",
     plain(archive(TWO, pkl(b"c__torch__\nM\n" + obj("D")))), ""),
    ("root_not_an_object", plain(archive(TWO, pkl(b"K\x01"))), ""),
    ("root_unknown_class", plain(archive(TWO, pkl(obj("Z")))), ""),
    ("root_pickle_protocol_4", plain(archive(TWO, b"\x80\x04" + obj("M") + b".")), ""),
    ("root_setitem_opcode",
     plain(archive(TWO, pkl(obj("M") + b"}NNs"))), ""),
]

# ---- the two readings -----------------------------------------------------------------------

CHILD = r"""
import collections, json, sys, warnings
warnings.simplefilter("ignore")
import torch
def kinds(block, hist):
    for n in block.nodes():
        if n.kind().startswith("aten::"):
            hist[n.kind()] += 1
        for b in n.blocks():
            kinds(b, hist)
for path in sys.argv[1:]:
    try:
        g = torch.jit.load(path).inlined_graph
        hist = collections.Counter()
        kinds(g, hist)
        out = {"hist": dict(hist)}
    except Exception as e:
        out = {"error": (str(e).strip().splitlines() or ["?"])[0][:160]}
    print(json.dumps(out), flush=True)
"""


def torch_view(paths):
    """{path: {"hist": ...} or {"error": ...}}; a crash of torch counts as a refusal."""
    out, todo = {}, list(paths)
    while todo:
        p = subprocess.run([TORCH_PY, "-c", CHILD] + todo, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
        lines = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        for path, r in zip(todo, lines):
            out[path] = r
        todo = todo[len(lines):]
        if todo:  # the child died on todo[0]
            out[todo[0]] = {"error": "torch crashed (exit %d)" % p.returncode}
            todo = todo[1:]
    return out


def opmap_view(path):
    p = subprocess.run([OPMAP, "scan", "--format", "json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    if p.returncode not in (0, 1):
        line = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return {"error": line.replace("opmap: " + path, "", 1).lstrip(": ")}
    hist = collections.Counter()
    for op in json.loads(p.stdout)["models"][0]["operators"]:
        if op["domain"] == "aten":
            hist["aten::" + op["op_type"]] += op["instances"]
    return {"hist": dict(hist)}


def show(r):
    return ("refuses: " + r["error"]) if "error" in r else \
        "reads " + ", ".join("%s x%d" % kv for kv in sorted(r["hist"].items()))


def main():
    global OPMAP
    OPMAP = os.path.abspath(sys.argv[1])
    if subprocess.run([TORCH_PY, "-c", "import torch"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        print("differential_ts: %s cannot import torch; skipped" % TORCH_PY)
        return 77
    bad = 0
    with tempfile.TemporaryDirectory(prefix="opmap-differential-ts-") as tmp:
        paths = []
        for name, data, _ in CASES:
            paths.append(os.path.join(tmp, name + ".pt"))
            with open(paths[-1], "wb") as f:
                f.write(data)
        ref = torch_view(paths)
        for (name, _, kind), path in zip(CASES, paths):
            want, got = ref[path], opmap_view(path)
            agree = ("error" in want and "error" in got) or want.get("hist") == got.get("hist")
            allowed = (kind == "ambiguous" and "error" in got) or \
                (kind == "gap" and "error" in want and "hist" in got)
            tag = "ok  " if agree else (kind if allowed else "FAIL")
            print("%-5s %-36s torch %s | opmap %s" % (tag, name, show(want), show(got)))
            bad |= not (agree or allowed)
    return bad


if __name__ == "__main__":
    sys.exit(main())
