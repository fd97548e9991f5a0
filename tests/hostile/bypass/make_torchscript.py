#!/usr/bin/python3
"""Writes the crafted TorchScript archives of tests/hostile/bypass/ (issue 29) with torch.

Usage: make_torchscript.py [OUT_DIR]     (needs /usr/bin/python3 with torch; default: here)

Each archive is what torch.jit.script writes for a small module, unmodified but for
len_str_bytes.pt, whose string constant is put back inline (see inline_string_constant). Each runs an
operator Ascend has no implementation of (aten::cuda, from `x.cuda()`: rewrite in the table)
on one path and not on the other; which path ran shows when it runs on a machine without
CUDA: the hidden path raises torch's "no CUDA" error, the other returns 2 * x. torch folds the condition when it loads and runs the archive; a reader that
folds it otherwise, or does not follow the call, would report a model without the
operator (run_bypass.py checks that opmap's gate fails and, with torch, that torch runs the
hidden path). The controls take the other path, so their gate passes.

    len_str_bytes.pt        len("\u00e9") is 2 in TorchScript (UTF-8 bytes), 1 in characters
    float_mod.pt            1.0 % 0.1 is fmod(b + fmod(a, b), b) = 0.09999999999999995, not 0
    float_literal.pt        0.48248787268182491 + 0.72414263293808367 == 1.2066305056199087
                            with correctly rounded literals (one ulp off otherwise)
    interface_attr.pt       self.impl: ModuleInterface holding a module whose forward runs it
    interface_dict.pt       f: ModuleInterface = self.impls[k] over a ModuleDict
    interface_list.pt       f: ModuleInterface = self.impls[i] over a ModuleList
    control_len_str.pt      len("e") == 2 is False: the hidden path is not taken
    control_interface.pt    the interface attribute holds a module without the operator
"""
import os
import sys
from typing import Dict

import torch

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))


@torch.jit.interface
class ModuleInterface(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Hidden(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.cuda() * 3


class Plain(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


# The conditions go through script functions: torch.jit.script folds a constant condition
# written inline before it saves the code, but keeps the call; torch.jit.load inlines it
# and folds it then, as opmap's reader does.
@torch.jit.script
def nbytes(s: str) -> int:
    return len(s)


@torch.jit.script
def rem(a: float, b: float) -> float:
    return a % b


@torch.jit.script
def add(a: float, b: float) -> float:
    return a + b


class LenStrBytes(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if nbytes("\u00e9") == 2:
            return x.cuda() * 3
        return x * 2


class ControlLenStr(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if nbytes("e") == 2:
            return x.cuda() * 3
        return x * 2


class FloatMod(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if rem(1.0, 0.1) == 0.0:
            return x * 2
        return x.cuda() * 3


class FloatLiteral(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if add(0.48248787268182491, 0.72414263293808367) == 1.2066305056199087:
            return x.cuda() * 3
        return x * 2


class InterfaceAttr(torch.nn.Module):
    impl: ModuleInterface

    def __init__(self, impl):
        super().__init__()
        self.impl = impl

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.impl(x)


class InterfaceDict(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.impls = torch.nn.ModuleDict({"plain": Plain(), "hidden": Hidden()})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f: ModuleInterface = self.impls["hidden"]
        return f.forward(x)


class InterfaceList(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.impls = torch.nn.ModuleList([Plain(), Hidden()])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f: ModuleInterface = self.impls[1]
        return f.forward(x)


class Wrap(torch.nn.Module):
    """The root: a submodule's forward is optimized after its calls are inlined (the
    root's is only inlined), as torch.jit.load's optimizer folds it."""

    def __init__(self, sub):
        super().__init__()
        self.sub = sub

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sub(x)


CASES = {
    "len_str_bytes.pt": lambda: Wrap(LenStrBytes()),
    "float_mod.pt": lambda: Wrap(FloatMod()),
    "float_literal.pt": lambda: Wrap(FloatLiteral()),
    "interface_attr.pt": lambda: InterfaceAttr(Hidden()),
    "interface_dict.pt": lambda: InterfaceDict(),
    "interface_list.pt": lambda: InterfaceList(),
    "control_len_str.pt": lambda: Wrap(ControlLenStr()),
    "control_interface.pt": lambda: InterfaceAttr(Plain()),
}


def inline_string_constant(path, text):
    """torch's printer moves a non-ASCII string argument to constants.pkl
    (CONSTANTS.c0); written back into the code as the literal it was (UTF-8 bytes), the
    archive is what a printer keeping it inline would write, and torch.jit.load reads it
    so. The only edit any case makes."""
    import zipfile
    with zipfile.ZipFile(path) as z:
        entries = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for info, data in entries:
            if info.filename.endswith("code/__torch__.py"):
                assert b"CONSTANTS.c0" in data
                data = data.replace(b"CONSTANTS.c0", b'"' + text.encode() + b'"')
            z.writestr(info.filename, data)


def path_taken(module, x):
    """"hidden" when running the module reaches x.cuda() (no CUDA here: torch raises),
    "plain" when it returns 2 * x."""
    try:
        y = module(x)
    except Exception as e:  # noqa: BLE001 - torch.jit.Error or RuntimeError, by version
        if "cuda" in str(e).lower():
            return "hidden"
        raise
    return "plain" if float(y[0]) == 2.0 else "other"


def main():
    os.makedirs(OUT, exist_ok=True)
    x = torch.ones(2)
    for name, make in CASES.items():
        m = torch.jit.script(make())
        path = os.path.join(OUT, name)
        m.save(path)
        if name == "len_str_bytes.pt":
            inline_string_constant(path, "\u00e9")
        print("%-22s runs the %s path" % (name, path_taken(torch.jit.load(path), x)))


if __name__ == "__main__":
    main()
