#!/usr/bin/env python3
"""cti.py — read a counterexample to induction (CTI) of a formal_ind_job.

ABC's `ind` says only that K-induction does not close. This turns the
induction step into a bounded check ABC's bmc3 answers in seconds (the
SMT route through yosys-smtbmc -i takes minutes on the whole unit):

  * design.il with its one initialised register (the property module's
    `init`) left free: every register starts arbitrary, and with init = 0
    no reset is assumed — the state space the induction step ranges over;
  * a frame counter: every assertion is assumed to hold in frames 0..K-2
    and is checked in frame K-1 (ABC's `ind -F K`: K frames, the last one
    failing);
  * bmc3 finds such a trace; the script simulates the netlist with it
    (Yosys' sim does not take the witness's start state) and names every
    wire through the -vmap map.

Usage: cti.py DIR K [SIGNAL ...]
  DIR     build/formal/JOB (holds design.il; run the job first)
  K       frames of the induction (formal_ind_job's K)
  SIGNAL  print these wires (top-level names, e.g. t_klm_st dut.s1_valid_q)
          frame by frame
Prints the assertions that fail in the last frame; DIR/cti.txt holds every
named wire, frame by frame ("no CTI": the induction closes at K).
"""
import os
import re
import subprocess
import sys


def run(cmd, log):
    with open(log, "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit(f"cti.py: {' '.join(cmd[:2])} failed, see {log}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, k = sys.argv[1], int(sys.argv[2])
    sigs = sys.argv[3:]
    il = os.path.join(d, "design.il")
    aag = os.path.join(d, "cti.aag")
    aim = os.path.join(d, "cti.aim")
    run(["yosys", "-q", "-p",
         f"read_rtlil {il}; setattr -unset init w:init; opt -full; techmap; opt -fast; dffunmap; "
         f"abc -g AND -fast; opt_clean; write_rtlil {d}/cti.il; "
         f"write_aiger -ascii -I -B -zinit -no-startoffset -vmap {aim} {aag}"],
        os.path.join(d, "cti.yosys.log"))

    # The AIG with the frame counter, in AIGER's canonical order: inputs,
    # the old latches, the counter's, the old AND gates, the new ones.
    lines = open(aag).read().split("\n")
    hdr = lines[0].split()
    m, ni, nl, no, na = map(int, hdr[1:6])
    nb, nc = (int(hdr[6]), int(hdr[7])) if len(hdr) > 6 else (0, 0)
    assert no == 0, "expected no plain outputs"
    pos = 1 + ni
    lat = [list(map(int, x.split())) for x in lines[pos:pos + nl]]; pos += nl
    bads = [int(x) for x in lines[pos:pos + nb]]; pos += nb
    cons = [int(x) for x in lines[pos:pos + nc]]; pos += nc
    ands = [list(map(int, x.split())) for x in lines[pos:pos + na]]
    cw = max(1, (k - 1).bit_length())

    def ren(lit):  # old literal -> new
        v = lit >> 1
        return lit if v <= ni + nl else lit + 2 * cw

    cvars = [2 * (ni + nl + 1 + i) for i in range(cw)]
    nxt = [m + cw + 1]
    gates = []

    def AND(a, b):
        g = 2 * nxt[0]
        nxt[0] += 1
        gates.append((g, a, b))
        return g

    def OR(a, b):
        return AND(a ^ 1, b ^ 1) ^ 1

    last = 1
    for i, b in enumerate(cvars):
        last = AND(last, b if ((k - 1) >> i) & 1 else b ^ 1)
    carry = last ^ 1   # count up to K-1, then hold
    nexts = []
    for b in cvars:
        nexts.append(AND(OR(b, carry), AND(b, carry) ^ 1))
        carry = AND(b, carry)
    new_bads = [AND(ren(b), last) for b in bads]
    new_cons = [ren(c) for c in cons] + [AND(ren(b), last ^ 1) ^ 1 for b in bads]
    # binary AIGER (ABC reads no ASCII with B/C sections)
    allands = [[ren(x) for x in a] for a in ands] + [list(g) for g in gates]
    hdr = f"aig {nxt[0] - 1} {ni} {nl + cw} 0 {len(allands)} {len(new_bads)} {len(new_cons)}\n"
    txt = [" ".join(str(ren(x)) for x in l[1:]) for l in lat]
    txt += [str(n) for n in nexts]
    txt += [str(b) for b in new_bads] + [str(c) for c in new_cons]
    body = bytearray((hdr + "\n".join(txt) + "\n").encode())

    def enc(x):
        while x & ~0x7f:
            body.append((x & 0x7f) | 0x80)
            x >>= 7
        body.append(x)

    for i, (g, a, b) in enumerate(allands):
        assert g == 2 * (ni + nl + cw + i + 1), "AND gates out of order"
        a, b = max(a, b), min(a, b)
        enc(g - a)
        enc(a - b)
    kaag = os.path.join(d, f"cti{k}.aig")
    open(kaag, "wb").write(bytes(body))

    aiw = os.path.join(d, "cti.aiw")
    if os.path.exists(aiw):
        os.remove(aiw)
    run(["yosys-abc", "-c", f"read_aiger {kaag}; fold; bmc3 -F {k} -v; write_cex -a {aiw}"],
        os.path.join(d, "cti.abc.log"))
    log = open(os.path.join(d, "cti.abc.log")).read()
    mm = re.search(r"Output (\d+) of miter .* was asserted in frame (\d+)", log)
    if not mm:
        print("no CTI: " + " ".join(log.strip().split("\n")[-2:]))
        return 0
    print(f"CTI: bad {mm.group(1)} at frame {mm.group(2)}")
    # Replay: simulate cti.aag (every latch 0, -zinit: each register's
    # start value is its init input in frame 0) with the witness's inputs.
    w = [x for x in open(aiw).read().split("\n") if x and x != "."][1:]
    val = simulate(lines, ni, nl, [x[:ni] for x in w])
    names = {}
    for line in open(aim):
        t, lit, bit, name = line.split()
        if t in ("wire", "input", "latch", "invlatch"):
            lit = int(lit)
            if t == "input":
                lit = 2 * (lit + 1)
            elif t in ("latch", "invlatch"):
                lit = 2 * (ni + lit + 1) + (t == "invlatch")
            # a register's wire (its start value muxed in) over its latch
            if t == "wire" or int(bit) not in names.get(name, {}):
                names.setdefault(name, {})[int(bit)] = lit
    tab = []
    for f in range(len(w)):
        row = {}
        for n, bits in names.items():
            row[n] = "".join("1" if lit_val(val[f], bits[i]) else "0" for i in sorted(bits, reverse=True))
        tab.append(row)
    with open(os.path.join(d, "cti.txt"), "w") as f:
        for n in sorted(names):
            f.write(f"{n} " + " ".join(fmt(r[n]) for r in tab) + "\n")
    # the failing assertions, by the $assert cells of cti.il
    cell = None
    for line in open(os.path.join(d, "cti.il")):
        p = line.split()
        if p[:2] == ["cell", "$assert"]:
            cell = [p[2].lstrip("\\"), None, None]
        elif cell and p[:2] == ["connect", "\\A"]:
            cell[1] = p[2]
        elif cell and p[:2] == ["connect", "\\EN"]:
            cell[2] = p[2]
        elif cell and p[:1] == ["end"]:
            a_, en = (sigval(tab[-1], x) for x in cell[1:])
            if en == "1" and a_ == "0":
                print(f"fails in frame {len(w) - 1}: {cell[0]}")
            cell = None
    for s_ in sigs:
        print(f"{s_:28s} " + " ".join(f"{fmt(r.get(s_, '?')):>8s}" for r in tab))
    return 0


def sigval(row, x):
    if x.startswith("1'"):
        return x[2:]
    n = x.lstrip("\\")
    n = re.sub(r"\[0:0\]$", "", n) if n not in row else n
    return row.get(n, "?")


def fmt(v):
    if v != "?" and len(v) > 1:
        return hex(int(v, 2))
    return v


def lit_val(vals, lit):
    return vals[lit >> 1] ^ (lit & 1)


def simulate(lines, ni, nl, frames):
    hdr = lines[0].split()
    m, na = int(hdr[1]), int(hdr[5])
    nb, nc = int(hdr[6]), int(hdr[7])
    lat = [list(map(int, x.split())) for x in lines[1 + ni:1 + ni + nl]]
    base = 1 + ni + nl + nb + nc
    ands = [tuple(map(int, x.split())) for x in lines[base:base + na]]
    state = [0] * nl
    out = []
    for fr in frames:
        v = bytearray(m + 1)
        for i in range(ni):
            v[i + 1] = fr[i] == "1"
        for i in range(nl):
            v[ni + 1 + i] = state[i]
        for g, a, b in ands:
            v[g >> 1] = (v[a >> 1] ^ (a & 1)) & (v[b >> 1] ^ (b & 1))
        out.append(v)
        state = [v[l[1] >> 1] ^ (l[1] & 1) for l in lat]
    return out


if __name__ == "__main__":
    sys.exit(main())
