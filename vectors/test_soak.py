#!/usr/bin/env python3
"""test_soak.py — the soak's own test (`make soak-selftest`, in `make test`): a
short soak passes (exit 0, PASS, operations and outcomes counted, the summary
files written), and the same chunks on a firmware mutant whose DESTROY_QP /
RESET skips the DMA drain fail (exit 1) as a breach, naming the seed and the
command that reproduces it, with the failing file kept.

    python3 vectors/test_soak.py HCASIM MUTANT_ELF OUTDIR
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# Seed 7112: its lifecycle scenario destroys a QP with DMAs in flight, so the
# qp_no_drain firmware breaches (re-picked after the pipelined data path
# moved 7100's destroys out of the window; 7112 after the ctx DRAIN began
# waiting for WQE reads, which moved 7110's out).
def soak(hcasim, out, *extra):
    cmd = [sys.executable, os.path.join(HERE, "soak.py"), "--hcasim", hcasim, "--out", out, "--seed", "7112",
           "--mode", "lifecycle", "--chunks", "2", "--rounds", "4", "--qps", "3", "--both-every", "0",
           "--progress", "0"] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def main():
    hcasim, mutant, out = sys.argv[1:4]
    bad = []

    def want(cond, what, text):
        if not cond:
            bad.append("%s\n--- output:\n%s" % (what, text[-3000:]))

    rc, text = soak(hcasim, os.path.join(out, "pass"))
    want(rc == 0, "expected exit 0 from a soak on the real firmware, got %d" % rc, text)
    want("PASS: 0 breaches" in text, "expected the PASS line", text)
    try:
        with open(os.path.join(out, "pass", "summary.json")) as f:
            j = json.load(f)
        want(j["chunks"] == 2 and j["ops"] > 100 and j["wrs"] > 50 and j["outcomes"].get("SUCCESS", 0) > 0
             and not j["failures"], "expected 2 chunks, >100 ops, >50 WRs with SUCCESSes, no failure; got %s"
             % {k: j[k] for k in ("chunks", "ops", "wrs", "failures")}, text)
    except (OSError, ValueError, KeyError) as e:
        bad.append("summary.json: %s" % e)

    rc, text = soak(hcasim, os.path.join(out, "mutant"), "--firmware", mutant)
    want(rc == 1, "expected exit 1 from a soak on %s, got %d" % (mutant, rc), text)
    want("FAILED (breach): chunk 0 (seed 7112)" in text, "expected chunk 0 (seed 7112) to fail as a breach", text)
    want("reproduce: python3 vectors/gen_random.py --seed 7112 --mode lifecycle" in text and
         "--firmware " + mutant in text, "expected the reproduce command", text)
    want(os.path.exists(os.path.join(out, "mutant", "fail", "random_lifecycle_s7112.jsonl")),
         "expected the failing file kept in fail/", text)
    for b in bad:
        print("soak-selftest: FAILED: " + b)
    if not bad:
        print("soak-selftest: a short soak passes; on the qp_no_drain firmware it fails as a breach with its "
              "reproduce command")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
