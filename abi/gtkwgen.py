#!/usr/bin/env python3
"""The race view for GTKWave, generated from the ABI so it never goes stale.

  gtkwgen.py view ABI_TOML OUT_DIR --dump FST [--marker NAME=CYCLE ...] [--out FILE]
                [--start CYCLE] [--span CYCLES] [--size WxH] [--groups PREFIX,...]
      OUT_DIR/hcasim.gtkw (or FILE): the signals a key/invalidate race is read
      from, grouped (key check, firmware port, context DRAIN, event queue, DMA,
      link), each enum-valued signal with a translate filter file written from
      the ABI's enums (OUT_DIR/filters/ENUM.txt), each packed ABI struct
      (dma_req, fw_event, pkt, dma_rsp) decoded field by field by this script
      run as a translate filter process (OUT_DIR/filters/decode_STRUCT); markers
      A.. at the given cycles. The FST gives the vectors' ranges (GTKWave names
      a vector with its range) and the timescale.
  gtkwgen.py decode ABI_TOML STRUCT
      the translate filter process: one hex value per line in, its fields
      ("op=BUF_TO_HOST tag=3 len=512 addr=0x1000 key=0x00000142") out.

Trace time: hcasim's FST has TRACE_TICKS_PER_CYCLE ticks per device cycle
(abi/hca.toml), so cycle C is at time C * TRACE_TICKS_PER_CYCLE.
Standard library only (tomllib).
"""
import argparse
import math
import os
import stat
import subprocess
import sys
import tomllib

# Verilator's top scope, the simulation wrapper that registers the core's
# inputs (sim/verilated/hca_core_sim.sv), then the core itself
TOP = "hca_core.hca_core_sim.hca_core."
TXN = "txn."  # the runner's transaction names beside it (sim/runner/scn_txn.c)
TXN_ENUM = {"op", "opcode", "cqe_status", "rq_cqe_status", "invalidated_by", "func"}
TXN_HEX = {"inval_key", "key_invalid", "key_valid", "breach_key", "pc", "qpn", "breach_qpn", "rq_inv_rkey"}

# (group, [(signal under TOP, format, filter)]); filter: an enum name (file),
# "struct:NAME" (decoded by the process), or None.
VIEW = [
    ("Key check (translation unit)", [
        ("u_xu.req_valid_i", "bin", None), ("u_xu.req_ready_o", "bin", None),
        ("u_xu.req_tag_i", "hex", None), ("u_xu.req_key_i", "hex", None),
        ("u_xu.req_remote_i", "bin", None), ("u_xu.req_rights_i", "bin", None),
        ("u_xu.req_va_i", "hex", None), ("u_xu.req_len_i", "dec", None),
        ("u_xu.kc_status", "hex", "xlate_status"),
        ("u_xu.rsp_valid_o", "bin", None), ("u_xu.rsp_ready_i", "bin", None),
        ("u_xu.rsp_tag_o", "hex", None), ("u_xu.rsp_status_o", "hex", "xlate_status"),
        ("u_xu.rsp_last_o", "bin", None), ("u_xu.rsp_pa_o", "hex", None), ("u_xu.rsp_len_o", "dec", None),
    ]),
    ("Firmware port: INVALIDATE and its fence", [
        ("u_xu.u_fw_port.fw_valid_i", "bin", None), ("u_xu.u_fw_port.fw_write_i", "bin", None),
        ("u_xu.u_fw_port.fw_addr_i", "hex", None), ("u_xu.u_fw_port.fw_wdata_i", "hex", None),
        ("u_xu.u_fw_port.cmd_write", "bin", None), ("u_xu.u_fw_port.cmd_op", "hex", "fwp_op"),
        ("u_xu.u_fw_port.cmd_idx", "hex", None),
        ("u_xu.u_fw_port.state_q", "enum", None), ("u_xu.u_fw_port.busy", "bin", None),
        ("u_xu.u_fw_port.inflight_q", "dec", None), ("u_xu.u_fw_port.fence_q", "dec", None),
        ("u_xu.u_fw_port.result_q", "hex", "fwp_result"),
    ]),
    ("Context DRAIN", [
        ("u_ctx.fw_valid_i", "bin", None), ("u_ctx.op", "hex", "ctx_op"), ("u_ctx.do_drain", "bin", None),
        ("u_ctx.drain_busy_i", "bin", None), ("u_ctx.drain_q", "bin", None),
    ]),
    ("Event queue (engine -> firmware)", [
        ("u_evt.evt_valid_i", "bin", None), ("u_evt.evt_ready_o", "bin", None),
        ("u_evt.in_evt", "hex", "struct:fw_event"), ("u_evt.level", "dec", None),
        ("u_evt.head", "hex", "struct:fw_event"), ("u_evt.irq_o", "bin", None),
        ("u_evt.done_valid_o", "bin", None), ("u_evt.done_tag_o", "hex", None),
        ("u_evt.done_status_o", "hex", None),
    ]),
    ("DMA", [
        ("dma_req_valid_o", "bin", None), ("dma_req_ready_i", "bin", None),
        ("dma_req_o", "hex", "struct:dma_req"),
        ("dma_rsp_valid_i", "bin", None), ("dma_rsp_ready_o", "bin", None),
        ("dma_rsp_i", "hex", "struct:dma_rsp"),
    ]),
    ("Link (packets)", [
        ("tx_valid_o", "bin", None), ("tx_ready_i", "bin", None), ("tx_o", "hex", "struct:pkt"),
        ("rx_valid_i", "bin", None), ("rx_ready_o", "bin", None), ("rx_i", "hex", "struct:pkt"),
    ]),
]

# GTKWave trace flags (its save-file format).
FLAG = {"hex": 1 << 1, "dec": 1 << 2, "bin": 1 << 3, "rjustify": 1 << 5, "blank": 1 << 9,
        "ftranslated": 1 << 13, "ptranslated": 1 << 14, "grp_begin": 1 << 23, "grp_end": 1 << 24, "enum": 1 << 32}


def fst_header(fst):
    """(names -> '[msb:lsb]' or '', ticks -> GTKWave time units) read from the
    dump's header: GTKWave names a vector with its range, and counts time in
    the timescale's unit times its 1/10/100 multiplier."""
    p = subprocess.run(["fst2vcd", fst], capture_output=True, text=True, errors="replace")
    ranges, scope, mult, lines = {}, [], 1, iter(p.stdout.splitlines())
    txn_ids = {}  # VCD id -> the txn.* variables under it, for txn_shown()
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0] == "$timescale":
            ts = (w[1] if len(w) > 1 and w[1] != "$end" else next(lines).strip())
            mult = int("".join(ch for ch in ts if ch.isdigit()) or 1)
        elif w[0] == "$scope":
            scope.append(w[2])
        elif w[0] == "$upscope":
            scope.pop()
        elif w[0] == "$var":
            rng = w[5] if len(w) > 6 and w[5].startswith("[") else ""
            name = ".".join(scope + [w[4]])
            ranges[name] = rng
            if name.startswith(TXN):
                txn_ids.setdefault(w[3], []).append(name)
        elif w[0] == "$enddefinitions":
            break
    if p.returncode or not ranges:
        raise SystemExit(f"gtkwgen: cannot read the signals of {fst} (fst2vcd exit {p.returncode})")
    return ranges, mult, txn_shown(lines, txn_ids)


def txn_shown(lines, ids):
    """The txn.* variables worth a row: those that change in the dump, the
    others that hold something (not 0), and every variable of a QP that has a
    send or receive WR outstanding or whose variables change. The rest (QPs idle in the
    window, a checker that saw nothing) would only push the RTL's rows off
    screen."""
    first, shown = {}, set()
    for line in lines:
        if not line or line[0] == "#" or line[0] == "$":
            continue
        val, _, vid = line.partition(" ") if line[0] in "br" else (line[0], "", line[1:])
        if vid not in ids:
            continue
        v = val.lstrip("b")
        if vid in first and first[vid] != v:
            shown.update(ids[vid])
        first.setdefault(vid, v)
        for name in ids[vid]:
            leaf = name.rpartition(".")[2]
            if v.strip("0") and (not name.startswith(TXN + "qp.") or leaf in ("outstanding", "rq_outstanding")):
                shown.add(name)
    for name in list(shown):
        if name.startswith(TXN + "qp."):
            scope = name.rpartition(".")[0] + "."
            shown.update(n for vs in ids.values() for n in vs if n.startswith(scope))
    return shown


def load(toml):
    with open(toml, "rb") as f:
        return tomllib.load(f)


def enums(abi):
    return {e["name"]: e for e in abi["enum"]}


def const(abi, name):
    return next(c["value"] for c in abi["const"] if c["name"] == name)


def filter_text(enum):
    """value -> name lines, the value as GTKWave prints it in hex."""
    digits = max(1, (enum["width"] + 3) // 4)
    return "".join(f"{v:0{digits}X} {n}\n" for n, v, *_ in enum["values"])


def decode_script(out_dir, abi_path, struct):
    """GTKWave runs a filter process by path, without arguments: one script per struct."""
    path = os.path.abspath(os.path.join(out_dir, "filters", "decode_" + struct))
    with open(path, "w") as fh:
        fh.write(f"#!/bin/sh\n# generated by abi/gtkwgen.py: decodes {struct} values for GTKWave\n"
                 f"exec {sys.executable} {os.path.abspath(__file__)} decode {os.path.abspath(abi_path)} {struct}\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def cmd_view(a):
    abi = load(a.abi)
    ens = enums(abi)
    ranges, mult, shown = fst_header(a.dump)
    ticks = const(abi, "TRACE_TICKS_PER_CYCLE") * mult  # GTKWave time units per cycle
    os.makedirs(os.path.join(a.out_dir, "filters"), exist_ok=True)
    out = a.out or os.path.join(a.out_dir, "hcasim.gtkw")
    files, procs = [], []
    lines = ["[*] hcasim race view, generated by abi/gtkwgen.py from abi/hca.toml (do not edit)",
             f'[dumpfile] "{os.path.abspath(a.dump)}"']

    def sig_name(sig):
        full = TOP + sig
        if full not in ranges:
            raise SystemExit(f"gtkwgen: {full} is not in {a.dump} (the view and the RTL disagree)")
        return full + ranges[full]

    marks = {}
    for i, m in enumerate(a.marker):
        name, _, cyc = m.partition("=")
        marks["abcdefghijklmnopqrstuvwxyz"[i]] = int(cyc) * ticks
        lines.append(f"[*] marker {'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i]}: {name} at cycle {cyc}")
    width, height = (int(x) for x in a.size.split("x"))
    zoom = -14.0  # GTKWave's: 2**-zoom time units per 200 pixels
    if a.span:  # the wave area (the window less the names) holds a.span cycles
        zoom = -math.log2(a.span * ticks * 200 / max(100, width - 420))
    if marks or a.start is not None:
        start = a.start * ticks if a.start is not None else max(0, min(marks.values()) - 40 * ticks)
        lines.append(f"[timestart] {start}")
        lines.append(f"*{zoom:.6f} -1 " + " ".join(str(marks.get(k, -1)) for k in "abcdefghijklmnopqrstuvwxyz"))
    lines += [f"[size] {width} {height}", "[signals_width] 320", "[sst_expanded] 0"]
    flags = None

    def set_flags(v):
        nonlocal flags
        if v != flags:
            lines.append(f"@{v:x}")
            flags = v

    set_flags(FLAG["bin"] | FLAG["rjustify"])
    lines.append(sig_name("clk_i"))
    # The runner's transaction names (sim/runner/scn_txn.c), when the dump has
    # them: one group per scope, in the dump's order; their enum-typed values
    # carry their names in the file, which GTKWave shows as they are.
    txn = {}
    for name in ranges:
        if name in shown:
            txn.setdefault(name.rpartition(".")[0], []).append(name)
    for scope, names in txn.items():
        set_flags(FLAG["grp_begin"] | FLAG["blank"])
        lines.append("-" + scope)
        for name in names:
            leaf = name.rpartition(".")[2]
            if leaf in TXN_ENUM:  # shown by the enum table the variable carries
                set_flags(FLAG["enum"] | FLAG["bin"] | FLAG["rjustify"])
            else:
                wide = ranges[name] and leaf in TXN_HEX
                set_flags((FLAG["hex"] if wide else FLAG["dec"] if ranges[name] else FLAG["bin"]) | FLAG["rjustify"])
            lines.append(name + ranges[name])
        set_flags(FLAG["grp_end"] | FLAG["blank"])
        lines.append("-" + scope)
    for group, sigs in VIEW:
        if a.groups and not any(group.startswith(g) for g in a.groups.split(",")):
            continue
        set_flags(FLAG["grp_begin"] | FLAG["blank"])
        lines.append("-" + group)
        for sig, fmt, flt in sigs:
            # "enum": the RTL's own enum type, whose names Verilator writes into the FST
            f = (FLAG["enum"] | FLAG["bin"] if fmt == "enum" else FLAG[fmt]) | FLAG["rjustify"]
            if flt and flt.startswith("struct:"):
                f |= FLAG["ptranslated"]
                p = decode_script(a.out_dir, a.abi, flt[7:])
                if p not in procs:
                    procs.append(p)
                set_flags(f)
                lines.append(f"^>{procs.index(p) + 1} {p}")
            elif flt:
                f |= FLAG["ftranslated"]
                path = os.path.abspath(os.path.join(a.out_dir, "filters", flt + ".txt"))
                with open(path, "w") as fh:
                    fh.write(filter_text(ens[flt]))
                if path not in files:
                    files.append(path)
                set_flags(f)
                lines.append(f"^{files.index(path) + 1} {path}")
            else:
                set_flags(f)
            lines.append(sig_name(sig))
        set_flags(FLAG["grp_end"] | FLAG["blank"])
        lines.append("-" + group)
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return 0


def decoder(abi, name):
    """A function: the struct's value as an int -> 'field=value …'."""
    ens = enums(abi)
    st = next(s for s in abi["struct"] if s["name"] == name)
    width = {"u8": 8, "u16": 16, "u32": 32, "u64": 64}
    parts = []
    for f in st["fields"]:
        lsb, w = f["offset"] * 8, width[f["type"]]
        if f["name"].startswith("rsvd") or f["name"] == "reserved":
            continue
        if f.get("bits"):
            for b in f["bits"]:
                parts.append((b["name"], lsb + b["lsb"], b["width"], b.get("enum")))
        else:
            parts.append((f["name"], lsb, w, None))

    def fmt(v):
        out = []
        for n, lsb, w, en in parts:
            x = (v >> lsb) & ((1 << w) - 1)
            if en:
                names = {val: nm for nm, val, *_ in ens[en]["values"]}
                out.append(f"{n}={names.get(x, x)}")
            elif w >= 32:
                out.append(f"{n}=0x{x:x}")
            else:
                out.append(f"{n}={x}")
        return " ".join(out)

    return fmt


def cmd_decode(a):
    fmt = decoder(load(a.abi), a.struct)
    for line in sys.stdin:
        s = line.strip()
        try:
            text = fmt(int(s, 16))
        except ValueError:
            text = s  # x, z or a value GTKWave shows otherwise: as it came
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("view")
    v.add_argument("abi")
    v.add_argument("out_dir")
    v.add_argument("--dump", required=True, help="the FST the view is for (its signals' ranges and timescale)")
    v.add_argument("--out")
    v.add_argument("--marker", action="append", default=[], help="NAME=CYCLE")
    v.add_argument("--start", type=int, help="the first cycle shown (default: 40 before the first marker)")
    v.add_argument("--span", type=int, help="zoom so this many cycles fill the window (default: about 100)")
    v.add_argument("--size", default="1600x1000", help="the window, WIDTHxHEIGHT pixels")
    v.add_argument("--groups", help="only the RTL groups whose names start with these (comma-separated)")
    d = sub.add_parser("decode")
    d.add_argument("abi")
    d.add_argument("struct")
    a = ap.parse_args()
    return cmd_view(a) if a.cmd == "view" else cmd_decode(a)


if __name__ == "__main__":
    sys.exit(main())
