#!/usr/bin/env python3
"""bench_tables — the RTL's speed at the default table size and at 64 QPs /
64 CQs, one run (issue #13 item 2: the cost of a cycle must not grow with
the tables).

argv: the default bench_verbs, then the one linked against the core
Verilated with -GMAX_QP=64 -GMAX_CQ=64 (testbench/bench.mk), both with the
same firmware and traffic (`bench_verbs --rtl-cps`: the RTL engine's
simulated cycles per CPU second over bench_verbs' traffic). Runs them in
turn ROUNDS times and keeps each one's best (the machine's other load only
slows a run down).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "abi", "gen"))
import hca_abi  # noqa: E402

ROUNDS = 3


def cps(binary):
    out = subprocess.run([binary, "--rtl-cps"], check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main():
    default_bin, small_bin = sys.argv[1], sys.argv[2]
    best_d = best_s = 0.0
    for _ in range(ROUNDS):
        best_d = max(best_d, cps(default_bin))
        best_s = max(best_s, cps(small_bin))
    print("RTL speed by table size (bench_verbs traffic, simulated cycles per CPU second, best of %d):" % ROUNDS)
    print("  MAX_QP %4d / MAX_CQ %4d (default)  %8.3g" % (hca_abi.MAX_QP, hca_abi.MAX_CQ, best_d))
    print("  MAX_QP   64 / MAX_CQ   64            %8.3g" % best_s)
    print("  default / 64: %.2fx the speed" % (best_d / best_s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
