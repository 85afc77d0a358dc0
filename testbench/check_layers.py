#!/usr/bin/env python3
"""check-layers: every #include follows the layer table below.

Each C/C++/assembly source of the tree belongs to the layer whose folder is
the longest prefix of its path. Each `#include "x.h"` is resolved to the file
the compiler would take (next to the including file first, relative paths
such as "../firmware/start.h" too, else the one header of the tree whose path
ends in x.h) and so to that header's layer; `#include <x.h>` is resolved the
same way when the tree holds an x.h, and is a system header otherwise.
Verilator's headers (verilated*.h, the generated V<top>*.h, svdpi.h), which
the tree does not hold, are the pseudo-layer `verilator`; SystemC's (<systemc>,
<tlm>, <tlm_utils/...>, ...) the pseudo-layer `SystemC`.

Reported, each as FILE:LINE, exit status 1:
  - an include of a layer its layer may not include (the table below);
  - a header name held by two folders (the flat -I list makes it ambiguous);
  - a quoted include that resolves to nothing (so nothing goes unchecked);
  - a source outside every layer folder (a new folder must join the table).

    python3 testbench/check_layers.py [--root DIR]   check the tree
    python3 testbench/check_layers.py --self-test    check the checker
"""
import argparse
import os
import re
import sys
import tempfile

# The layers, bottom to top: (name, folders, layers or single headers it may
# include besides its own). "*" is every layer of the tree and SystemC (not
# Verilator).
LAYERS = [
    ("abi",            ["abi/gen"],        []),
    ("firmware",       ["firmware"],       ["abi"]),
    ("firmware-tests", ["firmware/tests"], ["firmware", "abi"]),
    ("iface",          ["sim/iface"],      ["abi"]),
    ("model",          ["model"],          ["iface", "abi"]),
    ("verilated",      ["sim/verilated"],  ["iface", "abi", "verilator"]),
    ("mem",            ["sim/mem"],        ["iface", "abi"]),
    ("iss",            ["sim/iss"],        ["iface", "abi"]),
    ("check",          ["sim/check"],      ["iface", "abi"]),
    ("driver",         ["driver"],         ["abi"]),
    ("harness",        ["sim/harness"],    ["iface", "mem", "check", "abi"]),
    ("device",         ["sim/device"],     ["harness", "iss", "mem", "check", "iface", "abi",
                                            "driver/hca_host.h"]),
    ("systemc",        ["sim/systemc"],    ["device", "harness", "iss", "mem", "check", "iface", "abi",
                                            "driver/hca_host.h", "SystemC"]),
    ("cosim",          ["sim/cosim"],      ["mem", "iface", "abi", "driver/hca_host.h"]),
    ("runner",         ["sim/runner"],     ["driver", "device", "harness", "iss", "mem", "check",
                                            "iface", "abi", "cosim"]),
    ("vp",             ["sim/vp"],         ["systemc", "runner", "driver", "device", "harness", "iss", "mem",
                                            "check", "iface", "abi", "SystemC"]),
    ("testbench",      ["testbench"],      ["*"]),
    ("rtl-tb",         ["rtl/tb"],         ["*"]),
]
VERILATOR = "verilator"
VERILATOR_HEADER = re.compile(r"^(verilated\w*\.h|verilatedos\.h|svdpi\.h|vpi_user\.h|V\w+\.h)$")
SYSTEMC = "SystemC"
SYSTEMC_HEADER = re.compile(r"^(systemc|systemc\.h|tlm|tlm\.h|(tlm_utils|tlm_core|sysc)/.+)$")

SOURCE_EXTS = (".c", ".h", ".cc", ".cpp", ".hh", ".hpp", ".S")
HEADER_EXTS = (".h", ".hh", ".hpp")
SKIP_DIRS = {"build"}  # build output (Verilator's, generated code)

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(path):
    """The layer (name) of a tree-relative path: longest folder prefix, or None."""
    best, best_len = None, -1
    for name, folders, _ in LAYERS:
        for d in folders:
            if path.startswith(d + "/") and len(d) > best_len:
                best, best_len = name, len(d)
    return best


def allowed_of(layer):
    return next(a for n, _, a in LAYERS if n == layer)


def may_include(layer, target_layer, target_path):
    if target_layer == layer:
        return True
    allowed = allowed_of(layer)
    if target_path in allowed or target_layer in allowed:
        return True
    return "*" in allowed and target_layer != VERILATOR


def strip_comments(text):
    """text with /* */ and // comments blanked (newlines kept), strings respected."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan_tree(root):
    """-> sorted tree-relative paths of every source under root."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and not (rel == "." and d in SKIP_DIRS))
        for f in filenames:
            if f.endswith(SOURCE_EXTS):
                found.append(os.path.normpath(os.path.join(rel, f)).replace(os.sep, "/"))
    return sorted(found)


def check(root):
    """-> (problems as 'FILE:LINE: message' strings, files scanned, includes resolved)"""
    files = scan_tree(root)
    fileset = set(files)
    headers = [f for f in files if f.endswith(HEADER_EXTS)]
    problems = []

    by_name = {}
    for h in headers:
        by_name.setdefault(os.path.basename(h), []).append(h)
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            problems.append(f"{paths[0]}:1: header {name} exists in {len(paths)} folders: "
                            f"{', '.join(paths)} (ambiguous)")

    def resolve(src, spec, quoted):
        """-> tree path, VERILATOR, SYSTEMC, None (not ours: system), or [paths] (ambiguous)."""
        if quoted:
            near = os.path.normpath(os.path.join(os.path.dirname(src), spec)).replace(os.sep, "/")
            if near in fileset:
                return near
        if VERILATOR_HEADER.match(os.path.basename(spec)) and not any(
                h == spec or h.endswith("/" + spec) for h in headers):
            return VERILATOR
        if not quoted and SYSTEMC_HEADER.match(spec):
            return SYSTEMC
        norm = os.path.normpath(spec).replace(os.sep, "/")
        hits = [h for h in headers if h == norm or h.endswith("/" + norm)]
        if len(hits) == 1:
            return hits[0]
        return hits or None

    n_inc = 0
    for src in files:
        layer = layer_of(src)
        if layer is None:
            problems.append(f"{src}:1: in no layer folder (add its folder to LAYERS in "
                            f"testbench/check_layers.py)")
            continue
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        for lineno, line in enumerate(text.splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quoted, spec = m.group(1) == '"', m.group(2)
            target = resolve(src, spec, quoted)
            if isinstance(target, list):
                problems.append(f"{src}:{lineno}: {spec} is ambiguous: {', '.join(target)}")
                continue
            if target is None:
                if quoted:
                    problems.append(f"{src}:{lineno}: \"{spec}\" resolves to no file of the tree")
                continue
            n_inc += 1
            if target == VERILATOR:
                tlayer, tdesc = VERILATOR, f"Verilator's header {spec}"
            elif target == SYSTEMC:
                tlayer, tdesc = SYSTEMC, f"SystemC's header {spec}"
            else:
                tlayer = layer_of(target)
                tdesc = f"{tlayer}'s header {target}" if tlayer else f"header {target} (in no layer)"
            if tlayer is None or not may_include(layer, tlayer, target):
                allowed = ", ".join([layer] + allowed_of(layer))
                problems.append(f"{src}:{lineno}: layer {layer} includes {tdesc} "
                                f"({layer} may include: {allowed})")
    return problems, len(files), n_inc


def self_test():
    """A tiny tree with allowed and forbidden includes of each kind."""
    tree = {
        "abi/gen/hca_abi.h": "#define HCA_X 1\n",
        "driver/hca_host.h": '#include "hca_abi.h"\n',
        "driver/hcadrv.h": ('#include <stdint.h>\n'
                            '#include "hca_abi.h"\n'          # allowed: abi
                            '/* #include "hca_dev.h" */\n'    # a comment: ignored
                            '#include "hca_dev.h"\n'),        # forbidden: line 4
        "sim/device/hca_dev.h": ('#include "hca_host.h"\n'     # allowed: the contract header
                                 '#include "hcadrv.h"\n'),     # forbidden: line 2
        "sim/iface/bus.h": '#include "hca_abi.h"\n',
        "model/m.c": '#include "bus.h"\n#include "verilated.h"\n#include <tlm>\n',  # lines 2, 3 forbidden
        "sim/systemc/s.cc": '#include <systemc>\n#include <tlm_utils/simple_target_socket.h>\n#include "bus.h"\n',
        "sim/verilated/shim.cpp": '#include <verilated.h>\n#include "Vtop.h"\n#include "bus.h"\n',
        "firmware/start.h": "\n",
        "firmware/tests/check.h": '#include "start.h"\n',
        "testbench/t.cc": '#include "../firmware/start.h"\n#include "hca_dev.h"\n#include <systemc>\n',
        "firmware/main.c": '#include "../testbench/t.h"\n#include "missing.h"\n',
        "testbench/t.h": "\n",
        "sim/mem/dup.h": "\n",
        "sim/iss/dup.h": "\n",
        "sim/newdir/x.c": "\n",
    }
    want = [
        "driver/hcadrv.h:4: layer driver includes device's header sim/device/hca_dev.h "
        "(driver may include: driver, abi)",
        "sim/device/hca_dev.h:2: layer device includes driver's header driver/hcadrv.h "
        "(device may include: device, harness, iss, mem, check, iface, abi, driver/hca_host.h)",
        "model/m.c:2: layer model includes Verilator's header verilated.h "
        "(model may include: model, iface, abi)",
        "model/m.c:3: layer model includes SystemC's header tlm "
        "(model may include: model, iface, abi)",
        "firmware/main.c:1: layer firmware includes testbench's header testbench/t.h "
        "(firmware may include: firmware, abi)",
        'firmware/main.c:2: "missing.h" resolves to no file of the tree',
        "sim/iss/dup.h:1: header dup.h exists in 2 folders: sim/iss/dup.h, sim/mem/dup.h (ambiguous)",
        "sim/newdir/x.c:1: in no layer folder (add its folder to LAYERS in testbench/check_layers.py)",
    ]
    with tempfile.TemporaryDirectory(prefix="check_layers.") as root:
        for path, text in tree.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        got, _, _ = check(root)
    ok = True
    for w in want:
        if w not in got:
            print(f"check-layers self-test: expected\n  {w}\ngot\n  " + "\n  ".join(got))
            ok = False
    for g in got:
        if g not in want:
            print(f"check-layers self-test: unexpected (an allowed include reported?)\n  {g}")
            ok = False
    if ok:
        print(f"check-layers self-test: {len(want)} expected problems reported, allowed includes not")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    problems, n_files, n_inc = check(args.root)
    for p in problems:
        print(p)
    print(f"check-layers: {n_files} files, {n_inc} includes of the tree, Verilator or SystemC, "
          f"{len(problems)} problem{'s' if len(problems) != 1 else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
