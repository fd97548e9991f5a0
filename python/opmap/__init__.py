"""opmap: which operators of an exported PyTorch model run on Huawei Ascend NPUs.

A ctypes binding over libopmap.so (no compiled extension):

    import opmap
    report = opmap.scan("model.onnx", soc="ascend910b")   # the JSON report as Python objects
    for op in report["models"][0]["operators"]:
        print(op["domain"], op["op_type"], op["status"])
    print(opmap.estimate(report))                         # person-days

    with opmap.Table() as table:                          # the table built into the library
        row = table.lookup("ai.onnx", "Resize", 13)

Errors raise opmap.Error subclasses carrying the library's code, source, line, column,
offset and message. The library is found through $OPMAP_LIBRARY, then next to this package
(and the install tree it belongs to), then as the system's libopmap.so.1. Every call runs
with the GIL released, so threads scan in parallel (the library is thread-safe).
"""
import ctypes
import json
import os
import threading

__all__ = [
    "Error", "InvalidArgument", "OutOfMemory", "FileError", "FormatError", "UnsupportedError",
    "TableError", "LimitError", "WriteError", "InternalError",
    "Table", "scan", "report", "estimate", "version", "library_path", "STATUSES",
]

# The ABI this binding speaks: libopmap.so.N, N = OPMAP_ABI_VERSION (include/opmap/version.h).
_ABI = 1
_SONAME = "libopmap.so.%d" % _ABI

# Operator statuses, best to worst (opmap_op_status_code).
STATUSES = ("structural", "full", "partial", "rewrite", "unmapped")

# --- errors -----------------------------------------------------------------------------


class Error(Exception):
    """An error reported by libopmap.

    Attributes: code (the negative opmap_status), status (its name), sys_errno, source (the
    file or "<memory>"), line and column (1-based, 0 when not applicable), offset (byte
    offset in a binary input, or None) and message. str() is the library's formatted
    message, e.g. "t.yaml:3:5: unknown key 'stauts'".
    """

    def __init__(self, code, message, source="", line=0, column=0, offset=None, sys_errno=0,
                 text=None, status=None):
        self.code = code
        self.status = status or _STATUS_NAMES.get(code, "error %d" % code)
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.offset = offset
        self.sys_errno = sys_errno
        self.text = text if text is not None else message
        super().__init__(self.text)
        if isinstance(self, OSError) and sys_errno:
            self.errno = sys_errno
            self.filename = source

    def __str__(self):
        return self.text


class InvalidArgument(Error, ValueError):
    """OPMAP_EINVAL: a bad argument, e.g. an unknown chip or report format."""


class OutOfMemory(Error, MemoryError):
    """OPMAP_ENOMEM."""


class FileError(Error, OSError):
    """OPMAP_EIO: a file could not be opened, mapped or read (sys_errno says why)."""


class FormatError(Error):
    """OPMAP_EFORMAT: not a valid model or table (offset, or line and column, say where)."""


class UnsupportedError(Error):
    """OPMAP_EUNSUPPORTED: valid input of a kind opmap does not read."""


class TableError(Error):
    """OPMAP_ETABLE: the table breaks the table schema (line and column say where)."""


class LimitError(Error):
    """OPMAP_ELIMIT: a configured limit was exceeded."""


class WriteError(Error):
    """OPMAP_EWRITE: a report could not be written."""


class InternalError(Error):
    """OPMAP_EINTERNAL: a bug in opmap."""


_ERRORS = {-1: InvalidArgument, -2: OutOfMemory, -3: FileError, -4: FormatError,
           -5: UnsupportedError, -6: TableError, -7: LimitError, -8: WriteError,
           -9: InternalError}
# opmap_status_str(); the library's own names are used when it is loaded
_STATUS_NAMES = {-1: "invalid argument", -2: "out of memory", -3: "input/output error",
                 -4: "invalid format", -5: "unsupported input", -6: "invalid table",
                 -7: "limit exceeded", -8: "write failed", -9: "internal error"}

# --- the library --------------------------------------------------------------------------

_NO_OFFSET = 2 ** 64 - 1


class _Err(ctypes.Structure):
    """opmap_error (include/opmap/error.h)."""
    _fields_ = [("code", ctypes.c_int), ("sys_errno", ctypes.c_int),
                ("offset", ctypes.c_uint64), ("line", ctypes.c_uint32),
                ("column", ctypes.c_uint32), ("source", ctypes.c_char * 512),
                ("message", ctypes.c_char * 512), ("reserved", ctypes.c_ubyte * 64)]


class _ScanOptions(ctypes.Structure):
    """opmap_scan_options, version 4 (include/opmap/scan.h): torch_npu is the version to
    answer for (NULL: the table's general answer); results, device results (NULL here); mode
    OPMAP_MODE_EAGER (0) or _GRAPH (1); workload OPMAP_WORKLOAD_INFERENCE (0) or _TRAINING
    (1)."""
    _fields_ = [("version", ctypes.c_uint), ("soc", ctypes.c_char_p),
                ("weights", ctypes.c_void_p), ("reserved", ctypes.c_uint),
                ("torch_npu", ctypes.c_char_p), ("results", ctypes.c_void_p),
                ("mode", ctypes.c_int), ("workload", ctypes.c_int)]


MODES = ("eager", "graph")   # opmap_mode: the index is the value
WORKLOADS = ("inference", "training")   # opmap_workload: the index is the value


class _Effort(ctypes.Structure):
    """opmap_effort: thousandths of a person-day."""
    _fields_ = [("min", ctypes.c_uint64), ("expected", ctypes.c_uint64),
                ("max", ctypes.c_uint64)]


class _Info(ctypes.Structure):
    """A struct the library fills: `size` first, set to our sizeof (docs/api.md)."""

    def __init__(self):
        super().__init__()
        self.size = ctypes.sizeof(self)


class _Summary(_Info):
    """opmap_summary (include/opmap/scan.h)."""
    _fields_ = [("size", ctypes.c_size_t),
                ("operators", ctypes.c_uint64 * 5), ("instances", ctypes.c_uint64 * 5),
                ("effort", _Effort * 5), ("operators_total", ctypes.c_uint64),
                ("instances_total", ctypes.c_uint64), ("effort_total", _Effort),
                ("unpublished", ctypes.c_uint64), ("unpublished_effort", _Effort)]


_SOURCE_KEYS = ("id", "title", "repo", "path", "commit", "license", "taken", "url")


class _SourceInfo(_Info):
    """opmap_source_info (include/opmap/table.h)."""
    _fields_ = [("size", ctypes.c_size_t)] + [(n, ctypes.c_char_p) for n in _SOURCE_KEYS] + \
        [("grade", ctypes.c_char_p)]


class _RowSocInfo(_Info):
    """opmap_row_soc_info (include/opmap/table.h)."""
    _fields_ = [("size", ctypes.c_size_t), ("name", ctypes.c_char_p),
                ("status", ctypes.c_int), ("note", ctypes.c_char_p)]


class _RowGraphInfo(_Info):
    """opmap_row_graph_info (include/opmap/table.h)."""
    _fields_ = [("size", ctypes.c_size_t), ("status", ctypes.c_char_p),
                ("via", ctypes.c_char_p), ("where", ctypes.c_char_p),
                ("note", ctypes.c_char_p), ("declared", ctypes.c_uint64)]


class _FormatInfo(_Info):
    """opmap_format_info (include/opmap/model.h)."""
    _fields_ = [("size", ctypes.c_size_t), ("name", ctypes.c_char_p), ("title", ctypes.c_char_p),
                ("extensions", ctypes.c_char_p), ("traits", ctypes.c_uint)]


_FORMAT_TRAITS = ("atc", "aten", "sources", "printed")   # OPMAP_FORMAT_TRAIT_* bits, in order

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_I = ctypes.c_int
_Z = ctypes.c_size_t
_PERR = ctypes.POINTER(_Err)
_PP = ctypes.POINTER(ctypes.c_void_p)

# name: (restype, argtypes)
_PROTOTYPES = {
    "opmap_version_number": (ctypes.c_uint, []),
    "opmap_abi_version": (ctypes.c_uint, []),
    "opmap_version_string": (_S, []),
    "opmap_error_format": (_Z, [_PERR, ctypes.c_char_p, _Z]),
    "opmap_status_str": (_S, [_I]),
    "opmap_ctx_new": (_I, [_PP, _P, _PERR]),
    "opmap_ctx_free": (None, [_P]),
    "opmap_free": (None, [_P, _P]),
    "opmap_model_open_file": (_I, [_PP, _P, _S, _PERR]),
    "opmap_model_open_memory": (_I, [_PP, _P, _P, _Z, _S, _PERR]),
    "opmap_model_free": (None, [_P]),
    "opmap_format_name": (_S, [_I]),
    "opmap_format_info_get": (_I, [_I, ctypes.POINTER(_FormatInfo)]),
    "opmap_format_detect": (_I, [_S, ctypes.c_uint]),
    "opmap_table_load_default": (_I, [_PP, _P, _PERR]),
    "opmap_table_load_file": (_I, [_PP, _P, _S, _PERR]),
    "opmap_table_load_memory": (_I, [_PP, _P, _P, _Z, _S, _PERR]),
    "opmap_table_free": (None, [_P]),
    "opmap_table_origin": (_S, [_P]),
    "opmap_table_name": (_S, [_P]),
    "opmap_table_version": (_S, [_P]),
    "opmap_table_torch_npu": (_S, [_P]),
    "opmap_table_cann": (_S, [_P]),
    "opmap_table_row_count": (_Z, [_P]),
    "opmap_table_row": (_I, [_P, _Z, _PP]),
    "opmap_table_soc_count": (_Z, [_P]),
    "opmap_table_soc": (_I, [_P, _Z, ctypes.POINTER(_S)]),
    "opmap_table_default_soc": (_S, [_P]),
    "opmap_table_source_count": (_Z, [_P]),
    "opmap_table_source": (_I, [_P, _Z, ctypes.POINTER(_SourceInfo)]),
    "opmap_table_weights": (_Effort, [_P, _I]),
    "opmap_table_lookup": (_P, [_P, _S, _S, ctypes.c_int64]),
    "opmap_row_domain": (_S, [_P]),
    "opmap_row_op": (_S, [_P]),
    "opmap_row_since": (ctypes.c_int64, [_P]),
    "opmap_row_status": (_I, [_P]),
    "opmap_row_flags": (ctypes.c_uint, [_P]),
    "opmap_row_notes": (_S, [_P]),
    "opmap_row_hint": (_S, [_P]),
    "opmap_row_curated": (_S, [_P]),
    "opmap_row_ascend_op": (_S, [_P]),
    "opmap_row_aclnn": (_S, [_P]),
    "opmap_row_api": (_S, [_P]),
    "opmap_row_engine": (_S, [_P]),
    "opmap_row_source_count": (_Z, [_P]),
    "opmap_row_source": (_I, [_P, _Z, ctypes.POINTER(_S)]),
    "opmap_row_soc_count": (_Z, [_P]),
    "opmap_row_soc": (_I, [_P, _Z, ctypes.POINTER(_RowSocInfo)]),
    "opmap_row_constraint_count": (_Z, [_P]),
    "opmap_row_constraint_message": (_I, [_P, _Z, ctypes.POINTER(_S)]),
    "opmap_row_overload_count": (_Z, [_P]),
    "opmap_row_overload": (_I, [_P, _Z, ctypes.POINTER(_S)]),
    "opmap_row_torch_npu_min": (_S, [_P]),
    "opmap_row_torch_npu_max": (_S, [_P]),
    "opmap_row_pytorch_since": (_S, [_P]),
    "opmap_row_pytorch_until": (_S, [_P]),
    "opmap_row_line": (ctypes.c_uint32, [_P]),
    "opmap_row_graph": (_I, [_P, ctypes.POINTER(_RowGraphInfo)]),
    "opmap_op_status_name": (_S, [_I]),
    "opmap_flag_name": (_S, [ctypes.c_uint]),
    "opmap_scan": (_I, [_PP, _P, _P, _P, ctypes.POINTER(_ScanOptions), _PERR]),
    "opmap_scan_sources": (_I, [_PP, _P, _S, ctypes.POINTER(ctypes.c_char_p), _Z, _P,
                                ctypes.POINTER(_ScanOptions), _PERR]),
    "opmap_result_free": (None, [_P]),
    "opmap_result_model_name": (_S, [_P]),
    "opmap_result_summary": (_I, [_P, ctypes.POINTER(_Summary)]),
    "opmap_report_format_parse": (_I, [_S, ctypes.POINTER(_I)]),
    "opmap_report_write_memory": (_I, [_P, _PP, _Z, _I, _P, ctypes.POINTER(ctypes.c_void_p),
                                       ctypes.POINTER(_Z), _PERR]),
    "opmap_portfolio_estimate": (_I, [_P, _PP, _Z, ctypes.POINTER(_Effort),
                                      ctypes.POINTER(_Effort), _PERR]),
}

_lock = threading.Lock()
_lib = None
_lib_path = None


def _candidates():
    env = os.environ.get("OPMAP_LIBRARY")
    if env:
        return [env]  # explicit: nothing else is tried
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, _SONAME), os.path.join(here, "libopmap.so")]
    try:  # written by `cmake --install`: where the library is, relative to this package
        from . import _install
        out.append(os.path.normpath(os.path.join(here, _install.LIBDIR, _SONAME)))
    except ImportError:
        pass
    out.append(_SONAME)  # the dynamic linker's search: ld.so.cache, LD_LIBRARY_PATH
    return out


def _load():
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for cand in _candidates():
            if os.sep in cand and not os.path.exists(cand):
                tried.append("%s (absent)" % cand)
                continue
            try:
                lib = ctypes.CDLL(cand)
            except OSError as e:
                tried.append("%s (%s)" % (cand, e))
                continue
            abi = getattr(lib, "opmap_abi_version", None)  # absent before ABI 1
            if abi:
                abi.restype = ctypes.c_uint
            if not abi or abi() != _ABI:
                tried.append("%s (ABI %d, this binding needs ABI %d)"
                             % (cand, abi() if abi else 0, _ABI))
                continue
            for name, (res, args) in _PROTOTYPES.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
            _lib_path = _resolved(lib, cand)
            _lib = lib
            return lib
        raise OSError("opmap: cannot load libopmap: tried " + "; ".join(tried) +
                      " (set OPMAP_LIBRARY to the library's path)")


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _resolved(lib, cand):
    """The file actually loaded (the dynamic linker may have searched for a bare soname)."""
    try:
        libc = ctypes.CDLL(None)
        libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        info = _DlInfo()
        addr = ctypes.cast(lib.opmap_version_number, ctypes.c_void_p)
        if libc.dladdr(addr, ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(os.fsdecode(info.dli_fname))
    except (OSError, AttributeError):
        pass
    return cand


def library_path():
    """The path of the libopmap.so this binding loaded (loading it if needed)."""
    _load()
    return _lib_path


def version():
    """The version of the loaded library, e.g. "0.1.0"."""
    return _load().opmap_version_string().decode()


def _str(b):
    return b.decode("utf-8", "replace") if b is not None else ""


def _raise(rc, err):
    lib = _load()
    buf = ctypes.create_string_buffer(1200)
    lib.opmap_error_format(ctypes.byref(err), buf, len(buf))
    cls = _ERRORS.get(rc, Error)
    raise cls(rc, _str(err.message), source=os.fsdecode(err.source),
              line=err.line, column=err.column,
              offset=None if err.offset == _NO_OFFSET else err.offset,
              sys_errno=err.sys_errno, text=_str(buf.value),
              status=_str(lib.opmap_status_str(rc)))


def _check(rc, err):
    if rc != 0:
        _raise(rc, err)


class _Ctx:
    """An opmap_ctx with default allocator and limits."""

    def __init__(self):
        self._lib = _load()
        self.ptr = ctypes.c_void_p()
        err = _Err()
        _check(self._lib.opmap_ctx_new(ctypes.byref(self.ptr), None, ctypes.byref(err)), err)

    def close(self):
        if self.ptr:
            self._lib.opmap_ctx_free(self.ptr)
            self.ptr = ctypes.c_void_p()

    def __del__(self):
        self.close()


def _path_bytes(path):
    return os.fsencode(os.fspath(path))


# --- the table ----------------------------------------------------------------------------


class Table:
    """A compatibility table: Table() is the one built into the library, Table(path) a file,
    Table(data=b"...", name="t.yaml") one in memory. Immutable; usable from several threads.
    """

    def __init__(self, path=None, *, data=None, name=None):
        self._lib = _load()
        self._ctx = _Ctx()
        self._ptr = ctypes.c_void_p()
        err = _Err()
        if path is not None and data is not None:
            raise ValueError("Table: give a path or data, not both")
        if data is not None:
            if isinstance(data, str):
                data = data.encode("utf-8")
            buf = ctypes.create_string_buffer(bytes(data), len(data))
            rc = self._lib.opmap_table_load_memory(
                ctypes.byref(self._ptr), self._ctx.ptr, buf, len(data),
                (name or "<memory>").encode(), ctypes.byref(err))
        elif path is not None:
            rc = self._lib.opmap_table_load_file(ctypes.byref(self._ptr), self._ctx.ptr,
                                                 _path_bytes(path), ctypes.byref(err))
        else:
            rc = self._lib.opmap_table_load_default(ctypes.byref(self._ptr), self._ctx.ptr,
                                                    ctypes.byref(err))
        if rc != 0:
            self._ctx.close()
            _raise(rc, err)

    def close(self):
        """Releases the table (also done when it is garbage-collected)."""
        if getattr(self, "_ptr", None):
            self._lib.opmap_table_free(self._ptr)
            self._ptr = ctypes.c_void_p()
        if getattr(self, "_ctx", None):
            self._ctx.close()

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._ptr:
            raise ValueError("the table is closed")
        return self._ptr

    @property
    def origin(self):
        """"built-in" or the file name."""
        return _str(self._lib.opmap_table_origin(self._handle()))

    @property
    def name(self):
        return _str(self._lib.opmap_table_name(self._handle()))

    @property
    def version(self):
        return _str(self._lib.opmap_table_version(self._handle()))

    @property
    def torch_npu(self):
        return _str(self._lib.opmap_table_torch_npu(self._handle()))

    @property
    def cann(self):
        return _str(self._lib.opmap_table_cann(self._handle()))

    @property
    def socs(self):
        """The chips the table speaks for."""
        t = self._handle()
        return [_item(self._lib.opmap_table_soc, t, i)
                for i in range(self._lib.opmap_table_soc_count(t))]

    @property
    def default_soc(self):
        return _str(self._lib.opmap_table_default_soc(self._handle()))

    def __len__(self):
        return self._lib.opmap_table_row_count(self._handle())

    def rows(self):
        """Every row, in file order, as dicts (see lookup())."""
        t = self._handle()
        for i in range(self._lib.opmap_table_row_count(t)):
            r = ctypes.c_void_p()
            if self._lib.opmap_table_row(t, i, ctypes.byref(r)) == 0:
                yield self._row(r.value)

    def sources(self):
        """The declared sources: dicts of id, title, repo, path, commit, license, taken, url."""
        t = self._handle()
        out = []
        for i in range(self._lib.opmap_table_source_count(t)):
            s = _SourceInfo()
            if self._lib.opmap_table_source(t, i, ctypes.byref(s)) == 0:
                out.append({n: _str(getattr(s, n)) for n in _SOURCE_KEYS})
        return out

    def weights(self, status):
        """Person-days to adapt one distinct operator of a status: {min, expected, max}."""
        e = self._lib.opmap_table_weights(self._handle(), STATUSES.index(status))
        return _days(e)

    def lookup(self, domain, op, version=0):
        """The row answering for an operator, or None when it is unmapped.

        domain: "ai.onnx" (or "") for ONNX's default domain, "com.microsoft", "aten", ...;
        version: the opset in effect for the domain (0 for unversioned namespaces).
        Returns a dict: domain, op, since, status, flags, notes, hint, curated, ascend_op,
        aclnn, api, engine, sources, socs ({chip: {"status", "note"}}, status "unknown" when
        nobody has published an answer), constraints, overloads, torch_npu_min,
        torch_npu_max, line, and for an ATen row graph ({"status", "via", "where", "note",
        "declared"}: what torchair's converters do with it, docs/table-format.md "graph";
        None when the row gives no graph-mode answer).
        """
        row = self._lib.opmap_table_lookup(self._handle(), (domain or "").encode(),
                                           op.encode(), int(version))
        return self._row(row) if row else None

    def _row(self, r):
        lib = self._lib
        flags = lib.opmap_row_flags(r)
        socs = {}
        for i in range(lib.opmap_row_soc_count(r)):
            rs = _RowSocInfo()
            if lib.opmap_row_soc(r, i, ctypes.byref(rs)) != 0:
                continue
            socs[_str(rs.name)] = {"status": STATUSES[rs.status] if rs.status >= 0 else "unknown",
                                   "note": _str(rs.note)}
        g = _RowGraphInfo()
        graph = None
        if lib.opmap_row_graph(r, ctypes.byref(g)) == 0 and _str(g.status):
            graph = {k: _str(getattr(g, k)) for k in ("status", "via", "where", "note")}
            graph["declared"] = g.declared
        return {
            "domain": _str(lib.opmap_row_domain(r)),
            "op": _str(lib.opmap_row_op(r)),
            "since": lib.opmap_row_since(r),
            "status": _str(lib.opmap_op_status_name(lib.opmap_row_status(r))),
            "flags": _flag_names(flags),
            "notes": _str(lib.opmap_row_notes(r)),
            "hint": _str(lib.opmap_row_hint(r)),
            "curated": _str(lib.opmap_row_curated(r)),
            "ascend_op": _str(lib.opmap_row_ascend_op(r)),
            "aclnn": _str(lib.opmap_row_aclnn(r)),
            "api": _str(lib.opmap_row_api(r)),
            "engine": _str(lib.opmap_row_engine(r)),
            "sources": [_item(lib.opmap_row_source, r, i)
                        for i in range(lib.opmap_row_source_count(r))],
            "socs": socs,
            "constraints": [_item(lib.opmap_row_constraint_message, r, i)
                            for i in range(lib.opmap_row_constraint_count(r))],
            "overloads": [_item(lib.opmap_row_overload, r, i)
                          for i in range(lib.opmap_row_overload_count(r))],
            "torch_npu_min": _str(lib.opmap_row_torch_npu_min(r)),
            "torch_npu_max": _str(lib.opmap_row_torch_npu_max(r)),
            "pytorch_since": _str(lib.opmap_row_pytorch_since(r)),
            "pytorch_until": _str(lib.opmap_row_pytorch_until(r)),
            "line": lib.opmap_row_line(r),
            "graph": graph,
        }


def _item(fn, obj, i):
    """Item i of an item accessor that gives a string: int fn(obj, i, const char **out)."""
    out = ctypes.c_char_p()
    return _str(out.value) if fn(obj, i, ctypes.byref(out)) == 0 else ""


def _flag_names(flags):
    lib = _load()
    out, i = [], 0
    while True:
        name = lib.opmap_flag_name(i)
        if name is None:
            return out
        if flags & (1 << i):
            out.append(_str(name))
        i += 1


def _days(e):
    return {"min": e.min / 1000, "expected": e.expected / 1000, "max": e.max / 1000}


# --- scanning -----------------------------------------------------------------------------


class _Scan:
    """Results of scanning some models with one table, freed on close()."""

    def __init__(self, paths, soc, table, torch_npu=None, sources=None, mode="eager",
                 workload="inference"):
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        paths = list(paths)
        projects = list(dict(sources or {}).items())
        if not paths and not projects:
            raise InvalidArgument(-1, "give at least one model file")
        if isinstance(soc, (list, tuple)):
            soc = ",".join(soc)
        if mode not in MODES:
            raise InvalidArgument(-1, "mode '%s' is not eager or graph" % (mode,))
        if workload not in WORKLOADS:
            raise InvalidArgument(-1, "workload '%s' is not inference or training" % (workload,))
        self._lib = lib = _load()
        self.ctx = _Ctx()
        self.results = []
        own_table = None
        try:
            if table is None or not isinstance(table, Table):
                own_table = table = Table(table)
            opts = _ScanOptions(4, soc.encode() if soc else None, None, 0,
                                torch_npu.encode() if torch_npu else None, None,
                                MODES.index(mode), WORKLOADS.index(workload))
            for path in paths:
                model, res, err = ctypes.c_void_p(), ctypes.c_void_p(), _Err()
                rc = lib.opmap_model_open_file(ctypes.byref(model), self.ctx.ptr,
                                               _path_bytes(path), ctypes.byref(err))
                if rc == 0:
                    rc = lib.opmap_scan(ctypes.byref(res), self.ctx.ptr, model,
                                        table._handle(), ctypes.byref(opts), ctypes.byref(err))
                lib.opmap_model_free(model)
                _check(rc, err)
                self.results.append(res)
            for name, files in projects:  # after the models, as opmap scan DIR lists them
                files = [_path_bytes(f) for f in files]
                arr = (ctypes.c_char_p * max(len(files), 1))(*files)
                res, err = ctypes.c_void_p(), _Err()
                rc = lib.opmap_scan_sources(ctypes.byref(res), self.ctx.ptr, _path_bytes(name),
                                            arr, len(files), table._handle(),
                                            ctypes.byref(opts), ctypes.byref(err))
                _check(rc, err)
                self.results.append(res)
        except BaseException:
            self.close()
            raise
        finally:
            if own_table is not None:
                own_table.close()  # results copy what they report

    def array(self):
        return (ctypes.c_void_p * len(self.results))(*self.results)

    def write(self, fmt):
        lib = self._lib
        code = ctypes.c_int()
        if lib.opmap_report_format_parse(fmt.encode(), ctypes.byref(code)) != 0:
            raise InvalidArgument(-1, "unknown report format '%s'" % fmt)
        buf, size, err = ctypes.c_void_p(), ctypes.c_size_t(), _Err()
        rc = lib.opmap_report_write_memory(self.ctx.ptr, self.array(), len(self.results),
                                           code.value, None, ctypes.byref(buf),
                                           ctypes.byref(size), ctypes.byref(err))
        _check(rc, err)
        try:
            return ctypes.string_at(buf, size.value)
        finally:
            lib.opmap_free(self.ctx.ptr, buf)

    def close(self):
        for r in self.results:
            self._lib.opmap_result_free(r)
        self.results = []
        self.ctx.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def scan(path_or_paths, soc=None, table=None, torch_npu=None, sources=None, mode="eager",
         workload="inference"):
    """Scans one model file or several, and returns the JSON report (docs/report-json.md)
    as Python objects: a dict with "schema", "table", "chips", "models" (one per file, in
    order, each with its "operators" and their "reasons", "estimate", ...), "totals" and,
    for several models, "portfolio".

    soc: None (the table's default chip), "all", "ascend910b,ascend310p" (family ids or
    exact parts, "Ascend910B3") or a list of them.
    table: None (the built-in table), a file path, or a Table.
    torch_npu: None, or the torch_npu version to answer for ("2.1"; opmap scan --torch-npu).
    mode: "eager" (default) or "graph": torch.compile with torchair, each ATen operator of a
    TorchScript or torch.export model also answered by torchair's converters (opmap scan
    --mode graph; docs/reports.md, "Graph mode").
    workload: "inference" (default) or "training": each ATen operator of a TorchScript or
    torch.export model also answered for its backward ("backward" in its operator object),
    fused-kernel advice naming only kernels with a backward (opmap scan --workload training;
    docs/reports.md, "Workload").
    sources: None, or a mapping of project name -> its Python source files (.py, .cu, .cuh;
    docs/source-scan.md), each project scanned for CUDA-isms after the models, as
    `opmap scan DIR` scans a directory's sources (give them sorted to get its report).
    Raises an Error subclass on the first model or table that cannot be read.
    """
    with _Scan(path_or_paths, soc, table, torch_npu, sources, mode, workload) as s:
        return json.loads(s.write("json").decode("utf-8"))


def report(path_or_paths, format="text", soc=None, table=None, torch_npu=None, sources=None,
           mode="eager", workload="inference"):
    """Scans like scan() and returns the report in any format the library writes
    ("text", "json", and the others opmap --help lists) as a string."""
    with _Scan(path_or_paths, soc, table, torch_npu, sources, mode, workload) as s:
        return s.write(format).decode("utf-8")


def formats():
    """The library's format registry: [{"name", "title", "extensions", "traits"}], traits
    among "atc" (ONNX operators, answered as ATC converts them), "aten" (ATen operators),
    "sources" (code, nothing placed), "printed" (printed text)."""
    lib, out, i = _load(), [], 1
    while True:
        info = _FormatInfo()
        if lib.opmap_format_info_get(i, ctypes.byref(info)) != 0:
            return out
        out.append({"name": _str(info.name), "title": _str(info.title),
                    "extensions": _str(info.extensions).split(),
                    "traits": [t for k, t in enumerate(_FORMAT_TRAITS) if info.traits & (1 << k)]})
        i += 1


def format_detect(path, name_only=False):
    """What a file is, as `opmap scan DIR` decides which files below DIR to read: a format's
    name ("onnx", "python", ...), or None for a file opmap does not read. The file is
    opened only for a name its extension does not settle (a .txt), never with name_only."""
    lib = _load()
    f = lib.opmap_format_detect(_path_bytes(path), 1 if name_only else 0)
    return _str(lib.opmap_format_name(f)) if f else None


def estimate(report_or_paths, soc=None, table=None):
    """Person-days to adapt the models, as
    {"min", "expected", "max", "unit", "separately", "models": [{"file", "min", ...}]}:
    min/expected/max count an operator shared by several models once (the portfolio),
    "separately" adds up the models' own estimates.

    report_or_paths: a report from scan() (read from it), or model paths (scanned; soc and
    table as for scan()).
    """
    if isinstance(report_or_paths, dict):
        rep = report_or_paths
        models = [dict(file=m["file"], **{k: m["estimate"][k] for k in ("min", "expected", "max")})
                  for m in rep["models"]]
        if "portfolio" in rep:
            together = {k: rep["portfolio"]["estimate"][k] for k in ("min", "expected", "max")}
            separately = {k: rep["portfolio"]["separately"][k]
                          for k in ("min", "expected", "max")}
        else:
            together = {k: sum(m[k] for m in models) for k in ("min", "expected", "max")}
            separately = dict(together)
    else:
        with _Scan(report_or_paths, soc, table) as s:
            lib = s._lib
            models = []
            for r in s.results:
                summ = _Summary()
                lib.opmap_result_summary(r, ctypes.byref(summ))
                models.append(dict(file=_str(lib.opmap_result_model_name(r)),
                                   **_days(summ.effort_total)))
            tog, sep, err = _Effort(), _Effort(), _Err()
            _check(lib.opmap_portfolio_estimate(s.ctx.ptr, s.array(), len(s.results),
                                                ctypes.byref(tog), ctypes.byref(sep),
                                                ctypes.byref(err)), err)
            together, separately = _days(tog), _days(sep)
    out = dict(together)
    out["unit"] = "person-days"
    out["separately"] = separately
    out["models"] = models
    return out
