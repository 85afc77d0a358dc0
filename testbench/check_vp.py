#!/usr/bin/env python3
"""check-vp: hcasim-vp (the SystemC virtual platform, docs/cosim.md) prints
what `hcasim run` prints for the same scenario, on each engine: the same exit
code, the same op-by-op lines of -v (each op's outcome and note: completions
with their fields and statuses, check_mem's verdict on the bytes, keys, MPT
fields), the same completion lines, checker line and PASS/FAIL line. Only
cycle counts may differ (the platform's device runs up to a quantum ahead of
its CPU), so numbers before "cycles" and after "cycle" are blanked first.

A scenario whose check_mem expects the wrong bytes must FAIL alike on both,
at the same line: the comparison covers failures too.

    python3 testbench/check_vp.py HCASIM HCASIM_VP FILE...
Exit 1 with FILE, engine, expected (hcasim run) and got (hcasim-vp) lines on a difference.
"""
import os
import re
import subprocess
import sys
import tempfile

CYCLES = re.compile(r"\b\d+ cycles\b")
CYCLE = re.compile(r"^(\s*)cycle\s+\d+")
FW = re.compile(r"^firmware: \d+ instructions retired, busy \d+")  # the diagnosis after a failure


def normalized(text):
    out = []
    for line in text.splitlines():
        line = CYCLE.sub(r"\1cycle N", line)
        line = FW.sub("firmware: N instructions retired, busy N", line)
        out.append(CYCLES.sub("N cycles", line))
    return out


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    return p.returncode, normalized(p.stdout)


def compare(hcasim, vp, path, engine):
    want_rc, want = run([hcasim, "run", path, "--engine", engine, "-v"])
    got_rc, got = run([vp, path, "--engine", engine, "-v"])
    where = f"{path} --engine {engine}"
    if want_rc != got_rc:
        return f"{where}: exit code: expected {want_rc} (hcasim run), got {got_rc} (hcasim-vp)\n" + "\n".join(got[-5:])
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            return f"{where}: output line {i + 1}:\n  expected (hcasim run): {w}\n  got (hcasim-vp):       {g}"
    if len(want) != len(got):
        return f"{where}: expected {len(want)} lines (hcasim run), got {len(got)} (hcasim-vp)"
    if not any(l.startswith(("PASS ", "FAIL ")) for l in got) and want_rc != 2:
        return f"{where}: no PASS/FAIL line"
    return None, want_rc, sum("poll_cq" in l and "{" in l for l in got)


def wrong_bytes(path):
    """path with its first check_mem's expected bytes changed: a scenario that must FAIL."""
    lines = open(path).read().splitlines()
    for i, l in enumerate(lines):
        m = re.search(r'"op"\s*:\s*"check_mem".*"(hex|fill)"\s*:\s*"([^"]*)"', l)
        if m and m.group(1) == "hex":
            h = m.group(2)
            j = next(k for k, ch in enumerate(h) if ch in "0123456789abcdefABCDEF")
            flipped = h[:j] + ("1" if h[j] == "0" else "0") + h[j + 1:]
            lines[i] = l[:m.start(2)] + flipped + l[m.end(2):]
            return "\n".join(lines) + "\n"
    return None


def main():
    hcasim, vp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures, runs, cqes, fails = [], 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        mutated = []
        for f in files:
            text = wrong_bytes(f)
            if text:
                p = os.path.join(tmp, "wrong_" + os.path.basename(f))
                open(p, "w").write(text)
                mutated.append(p)
                break
        if not mutated:
            failures.append("no scenario given has a check_mem with hex bytes to make wrong")
        for f in files + mutated:
            for engine in ("rtl", "model"):
                r = compare(hcasim, vp, f, engine)
                runs += 1
                if isinstance(r, str):
                    failures.append(r)
                    continue
                _, rc, n = r
                cqes += n
                if f in mutated:
                    if rc != 1:
                        failures.append(f"{f} --engine {engine}: expected exit 1 (wrong check_mem bytes), got {rc}")
                    fails += 1
    for m in failures:
        print(m)
    print(f"check-vp: {runs} runs ({len(files)} scenarios and 1 that must fail, 2 engines), "
          f"{cqes} completions compared, {len(failures)} difference(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
