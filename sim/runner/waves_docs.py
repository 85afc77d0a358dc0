#!/usr/bin/env python3
"""The pictures of docs/waves.md's race recipe, rendered from a real run
(make docs-waves): both outcomes of one race file, the invalidation winning
and the access winning, as GTKWave shows them.

  waves_docs.py --hcasim BIN --file RACE.jsonl --work DIR --out IMG_DIR

1. Runs the file on the model engine with --json and pairs each round's
   LOCAL_INV with the RDMA_READ it races (the READ posted last before it on
   another QP). It picks the round where the READ started first and still
   failed REM_ACCESS_ERR (the invalidation won between its chunks) and one
   where the invalidation completed while the READ was in flight and the
   READ still succeeded (the access won: its last chunk had passed the key
   check), and fails, naming what is missing, when the file has no such round.
2. For each, runs what the recipe tells a reader to run: `hcasim run FILE
   --trace NAME.fst --trace-when line=L@B:A` (the LOCAL_INV's line, the
   window from B cycles before it to A after, reaching past the READ's
   completion), then abi/gtkwgen.py's race view of that dump with markers at
   the invalidation's post and completion and the READ's completion, zoomed to
   the window, and renders it under Xvfb (the `wave-png` recipe).
3. Writes IMG_DIR/race_inval_wins.png and race_access_wins.png (quantized to a
   small palette: they are committed) and prints the cycles each shows.
Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

BEFORE = 120  # cycles shown before the LOCAL_INV is posted
AFTER_DONE = 80  # ... and after the READ completes
SIZE = "1600x2000"
GROUPS = "Key check,Firmware port,Context DRAIN,DMA"


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        sys.exit(f"waves_docs: {' '.join(cmd)} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
    return p.stdout


def rounds(wrs):
    """(LOCAL_INV, the RDMA_READ it races) per round, in file order."""
    out, last_read = [], None
    for w in sorted(wrs, key=lambda w: w["line"]):
        if w["opcode"] == "RDMA_READ" and w.get("status") in ("SUCCESS", "REM_ACCESS_ERR"):
            last_read = w
        elif w["opcode"] == "LOCAL_INV" and last_read and last_read["qp"] != w["qp"] and w.get("status") == "SUCCESS":
            out.append((w, last_read))
            last_read = None
    return out


def pick(pairs):
    inv_wins = [(i, r) for i, r in pairs
                if r["status"] == "REM_ACCESS_ERR" and r["post_cycle"] < i["post_cycle"] < r["completion_cycle"]]
    acc_wins = [(i, r) for i, r in pairs
                if r["status"] == "SUCCESS" and r["post_cycle"] < i["post_cycle"]
                and i["completion_cycle"] < r["completion_cycle"]]
    if not inv_wins or not acc_wins:
        sys.exit("waves_docs: the file has no round where " +
                 ("the READ started first and failed" if not inv_wins else
                  "the invalidation completed inside a READ that succeeded") +
                 " (regenerated? pick another race file in sim/runner/waves.mk)")
    # the READ furthest along when the invalidation came; the invalidation closest to the READ's end
    return (max(inv_wins, key=lambda p: p[0]["post_cycle"] - p[1]["post_cycle"]),
            min(acc_wins, key=lambda p: p[1]["completion_cycle"] - p[0]["completion_cycle"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hcasim", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--make", default="make")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    ref = os.path.join(a.work, "run.json")
    run([a.hcasim, "run", a.file, "--engine", "model", "--json", ref])
    with open(ref) as f:
        wrs = json.load(f)["wrs"]
    inv_wins, acc_wins = pick(rounds(wrs))
    for name, (inv, rd) in (("race_inval_wins", inv_wins), ("race_access_wins", acc_wins)):
        after = rd["completion_cycle"] - inv["post_cycle"] + AFTER_DONE
        fst = os.path.join(a.work, name + ".fst")
        run([a.hcasim, "run", a.file, "--engine", "model", "--trace", fst,
             "--trace-when", f"line={inv['line']}@{BEFORE}:{after}"])
        start = inv["post_cycle"] - BEFORE
        gtkw = os.path.join(a.work, name + ".gtkw")
        run([sys.executable, "abi/gtkwgen.py", "view", "abi/hca.toml", a.work, "--dump", fst, "--out", gtkw,
             "--marker", f"inval_post={inv['post_cycle']}", "--marker", f"inval_done={inv['completion_cycle']}",
             "--marker", f"read_done={rd['completion_cycle']}", "--start", str(start),
             "--span", str(after + BEFORE), "--size", SIZE, "--groups", GROUPS])
        with open(gtkw) as f:  # the dump by its path from the root: the window's title shows it
            text = f.read().replace(os.path.abspath(fst), os.path.relpath(fst))
        with open(gtkw, "w") as f:
            f.write(text)
        raw = os.path.join(a.work, name + ".png")
        run([a.make, "--no-print-directory", "-s", "wave-png", f"GTKW={gtkw}", f"PNG={raw}",
             f"WAVE_SCREEN={SIZE}x24"])
        png = os.path.join(a.out, name + ".png")
        with open(png, "wb") as f:  # a small palette: the picture is committed
            pnm = subprocess.run(["pngtopnm", raw], capture_output=True, check=True).stdout
            q = subprocess.run(["pnmquant", "64"], input=pnm, capture_output=True, check=True).stdout
            f.write(subprocess.run(["pnmtopng", "-compression", "9"], input=q, capture_output=True,
                                   check=True).stdout)
        print(f"waves_docs: {png}: RDMA_READ line {rd['line']} (QP {rd['qp']}, posted {rd['post_cycle']}, "
              f"{rd['status']} at {rd['completion_cycle']}) against LOCAL_INV line {inv['line']} (posted "
              f"{inv['post_cycle']}, done {inv['completion_cycle']}); cycles {start}..{start + after + BEFORE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
