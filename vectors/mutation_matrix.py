#!/usr/bin/env python3
"""mutation_matrix.py — run the race and soak scenarios against the mutants
they target and print which mutant kills each file (docs/mutation.md).

A mutant breaks one guarantee (a firmware image without one DRAIN, or an
hcasim whose RTL core and model both carry one -D). A scenario meant to catch
a broken guarantee must fail against its mutant: `hcasim run` exits 1 (a
breach the protection checker saw, or a completion, byte or check that came
out wrong). Exit 0 is a survivor; so is a run whose only failure is its
closing expect_counters (every check passed; a mutant without a DRAIN zeroes
drain_waits whatever the file checks); any other exit (2: the file cannot be
run, a signal) is an error, never a kill.

Verdicts (exit 1 when any fails):
  - every file is killed by at least one of its mutants (on the model engine);
    a file no mutant kills is named;
  - the RTL slice: each RTL mutant is killed on the RTL engine by the file the
    SLICE table names for it (with --rtl all: every pair also runs on the RTL,
    and a pair whose engines disagree is named), or, for a mutant no scenario
    can kill (UNIT_KILLS, with the reason), by its unit test on both engines;
  - no run is an error.

Usage:
  mutation_matrix.py --hcasim BIN --mutant-dir DIR --fw-mutant-dir DIR
                     [--rtl slice|all] [--only STEM | --unit] [--jobs N]
  mutation_matrix.py --list      the stems of the files the matrix covers
"""
import argparse
import concurrent.futures
import fnmatch
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DIRECTED = os.path.join(HERE, "directed")

# The mutants: name -> (kind, what it breaks). Firmware mutants are
# build/firmware/mutants/hcafw_NAME.elf (firmware/firmware.mk), RTL ones
# build/mutants/hcasim_NAME (vectors/mutation.mk, RTL and model twin).
MUTANTS = {
    "no_drain":         ("fw", "LOCAL_INV, REMOTE_INV and READ_INV answer without the ctx DRAIN"),
    "no_drain_linv":    ("fw", "LOCAL_INV answers without the ctx DRAIN"),
    "no_drain_rinv":    ("fw", "SEND_WITH_INV's REMOTE_INV answers without the ctx DRAIN"),
    "no_drain_readinv": ("fw", "RDMA_READ_WITH_INV's READ_INV answers without the ctx DRAIN"),
    "run_drain_early":  ("fw", "a run of invalidations DRAINs before the INVALIDATE it runs last (its first event's)"),
    "no_drain_destroy": ("fw", "DESTROY_MKEY frees the slot without the ctx DRAIN"),
    "peer_no_drain":    ("fw", "a peer client's invalidate callback answers before the DRAIN"),
    "qp_no_drain":      ("fw", "DESTROY_QP and MODIFY_QP RESET answer without the ctx DRAIN"),
    "inv_trust_all":    ("fw", "every invalidation taken on the device's MPT verdict as if it were set (hdr.inv_ok: its MR-state rules unchecked)"),
    "no_fence":         ("rtl", "the translation unit answers INVALIDATE before its in-flight requests finish"),
    "resp_no_recheck":  ("rtl", "a remote key that passed once is trusted after (responder: no per-packet re-check)"),
    "req_no_recheck":   ("rtl", "a local key that passed once is trusted after (requester: no per-chunk re-check)"),
    "klm_no_entry_check": ("rtl", "the KLM walker skips rules 2-5 (key, state, PD, rights) on its entries"),
    "drain_no_wqe_read": ("rtl", "ctx DRAIN does not wait for WQE reads (SQ fetch and read-ahead, RQ fetch)"),
    "drain_no_cqe_write": ("rtl", "ctx DRAIN does not wait for the CQ writer's CQE write"),
    "resp_cpl_after_reset": ("rtl", "the responder hands a completion made before its QP's RESET to the CQ writer after it"),
    "fr_wqe_ok_always": ("rtl", "the send engine sets fw_event.wqe_ok for every FAST_REG_MR (its WQE-local rules unchecked)"),
    "fr_bank_slot":     ("rtl", "fwp's registration bank keeps a popped event one slot on (FAST_REG commits another event's registration)"),
}

# Which mutants each file family targets: (glob over vectors/directed/*.jsonl
# stems, mutants). A file takes the row of the first glob it matches.
FAMILIES = [
    # dereg_mr (DESTROY_MKEY) against long WRITEs and READs (gen_mm_races.py DESTROY_SWEEPS)
    ("race_destroy_*",       ["no_drain_destroy", "no_fence", "resp_no_recheck"]),
    # two LOCAL_INVs a round, committed as one run (gen_mm_races.py RUN_SWEEPS)
    ("race_linvrun_*",       ["run_drain_early", "no_drain_linv", "no_fence", "resp_no_recheck"]),
    ("race_linv_readsink_*", ["no_drain_linv", "no_fence", "req_no_recheck"]),
    ("race_linv_*",          ["no_drain_linv", "no_fence", "resp_no_recheck"]),
    ("race_sinv_*",          ["no_drain_rinv", "no_fence", "resp_no_recheck"]),
    ("race_rinv_*",          ["no_drain_readinv", "no_drain", "no_fence", "resp_no_recheck"]),
    ("klm_race_*",           ["no_drain_linv", "no_fence", "resp_no_recheck", "klm_no_entry_check"]),
    ("peer_race_*",          ["peer_no_drain", "no_fence", "resp_no_recheck", "req_no_recheck"]),
    ("soak_mm_*",            ["no_drain", "no_drain_linv", "no_drain_rinv", "no_drain_readinv",
                              "no_fence", "resp_no_recheck", "req_no_recheck"]),
    ("regress_sinv_*",       ["no_drain_rinv", "no_fence", "resp_no_recheck"]),
    # gen_random.py's committed seeds: every invalidation kind, peer revokes, QPs torn down mid-flight
    ("random_*",             ["no_drain", "no_drain_linv", "no_drain_rinv", "no_drain_readinv",
                              "no_drain_destroy", "peer_no_drain", "qp_no_drain"]),
    ("qp_lifecycle_destroy_inflight", ["qp_no_drain"]),
    # DESTROY_QP / RESET while a WQE read of the QP is out (host reads of 6000 cycles)
    ("qp_lifecycle_destroy_wqe_reads", ["drain_no_wqe_read", "qp_no_drain"]),
    ("qp_lifecycle_reset_*_window",   ["drain_no_wqe_read", "qp_no_drain"]),
    # DESTROY_QP / DESTROY_CQ while a CQE write of the QP is out (host writes of 6000 cycles)
    ("qp_lifecycle_destroy_cqe_write", ["drain_no_cqe_write", "resp_cpl_after_reset", "qp_no_drain"]),
    # one-page inline FAST_REG_MRs breaking the rules the engine checks for the firmware (fw_event.wqe_ok)
    ("mm_frmr_err_inline_wqe_rules", ["fr_wqe_ok_always", "fr_bank_slot"]),
    # invalidations breaking one MR-state rule each (the device's verdict, fw_event.hdr.inv_ok, clear)
    ("mm_linv_err_*",        ["inv_trust_all"]),
    ("mm_send_inv_err_*",    ["inv_trust_all"]),
    ("mm_read_inv_err_bad_key", ["inv_trust_all"]),
    ("mm_linv_batch_one_fails", ["inv_trust_all"]),
]

# The RTL slice `make test` runs: for each RTL mutant, the file that must kill
# it on the RTL engine too (chosen from the model's kill table), or "unit": no
# scenario can, and UNIT_KILLS proves it live.
SLICE = {
    "no_fence":        "unit",
    "resp_no_recheck": "race_linv_read_mtu1024_x8",
    "req_no_recheck":  "race_linv_readsink_mtu256_x16",
    "klm_no_entry_check": "klm_race_entry_read_x12",
    "drain_no_wqe_read": "qp_lifecycle_destroy_wqe_reads",
    "drain_no_cqe_write": "qp_lifecycle_destroy_cqe_write",
    "resp_cpl_after_reset": "qp_lifecycle_destroy_cqe_write",
    "fr_wqe_ok_always": "mm_frmr_err_inline_wqe_rules",
    "fr_bank_slot": "mm_frmr_err_inline_wqe_rules",
}


# Mutants proven live at the unit level (vectors/mutation.mk UNIT_MUTANTS):
# name -> (binary in build/mutants/NAME/, gtest filter, why no scenario can).
# Every case the filter selects must fail (both engines: the binary's RTL is
# the mutant xlate_unit, its model the mutant twin).
UNIT_KILLS = {
    "no_fence": ("test_xu", "*XuFence.InvalidateWaitsForOlderRequests*",
                 "the ctx DRAIN the firmware runs after every INVALIDATE waits for every client busy "
                 "from its key checks to its last DMA, which covers the requests the fence waits for"),
}


def run_unit(args, mutant):
    """(outcome, why, seconds) of the mutant's unit kill."""
    exe, filt, _ = UNIT_KILLS[mutant]
    path = os.path.join(args.mutant_dir, mutant, exe)
    if not os.path.exists(path):
        return "ERROR", "missing %s (make mutants)" % path, 0.0
    t0 = time.monotonic()
    p = subprocess.run([path, "--gtest_filter=" + filt], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.monotonic() - t0
    ran = [l.split()[-1] for l in p.stdout.splitlines() if l.startswith("[ RUN      ]")]
    failed = {l.split()[3].rstrip(",") for l in p.stdout.splitlines() if l.startswith("[  FAILED  ]") and "ms)" in l}
    if not ran:
        return "ERROR", "%s: the filter %s selects no test" % (exe, filt), dt
    if p.returncode == 1 and failed == set(ran):
        first = next((l.strip() for l in p.stdout.splitlines() if "Failure" in l or "OK beat" in l), "")
        return "KILL", "%s: all %d cases fail (%s) %s" % (exe, len(ran), ", ".join(sorted(ran)), first), dt
    if p.returncode in (0, 1):
        return "SURVIVE", "%s: %s pass" % (exe, ", ".join(sorted(set(ran) - failed))), dt
    return "ERROR", "%s exit %d" % (exe, p.returncode), dt


def family(stem):
    for pattern, mutants in FAMILIES:
        if fnmatch.fnmatchcase(stem, pattern):
            return mutants
    return None


def files():
    stems = sorted(f[:-len(".jsonl")] for f in os.listdir(DIRECTED) if f.endswith(".jsonl"))
    return [s for s in stems if family(s) is not None]


def run_one(args, stem, mutant, engine):
    """(outcome, why, seconds): outcome KILL, SURVIVE, COUNTERS (survived every
    check, failed only its expect_counters minimums: not a kill) or ERROR."""
    path = os.path.join(DIRECTED, stem + ".jsonl")
    if MUTANTS[mutant][0] == "fw":
        cmd = [args.hcasim, "run", path, "--engine", engine,
               "--firmware", os.path.join(args.fw_mutant_dir, "hcafw_%s.elf" % mutant)]
    else:
        cmd = [os.path.join(args.mutant_dir, "hcasim_" + mutant), "run", path, "--engine", engine]
    for exe in (cmd[0], cmd[-1] if MUTANTS[mutant][0] == "fw" else cmd[0]):
        if not os.path.exists(exe):
            return "ERROR", "missing %s (make mutants)" % exe, 0.0
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.monotonic() - t0
    lines = [l for l in p.stdout.splitlines() if l.strip() and not l.startswith("  ")]
    if p.returncode == 1:
        why = next((l for l in lines if "invariant" in l or "expected" in l or "FAIL" in l),
                   lines[-1] if lines else "exit 1")
        if ": op expect_counters:" in why:
            # Every check passed; only a window counter fell short of its
            # minimum. A mutant without a DRAIN trivially zeroes drain_waits
            # (and shifts the firmware's timing): that proves nothing about
            # the file's checks, so it is no kill.
            return "COUNTERS", why.strip(), dt
        return "KILL", why.strip(), dt
    if p.returncode == 0:
        return "SURVIVE", "exit 0", dt
    return "ERROR", "exit %d: %s" % (p.returncode, " | ".join(lines[-3:]) or "no output"), dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--hcasim")
    ap.add_argument("--mutant-dir")
    ap.add_argument("--fw-mutant-dir")
    ap.add_argument("--rtl", choices=["slice", "all"], default="slice")
    ap.add_argument("--only", help="one file stem (its row, and its RTL slice runs)")
    ap.add_argument("--unit", action="store_true", help="only the unit kills (UNIT_KILLS)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    stems = files()
    if args.list:
        print(" ".join(stems))
        return 0
    for need in ("hcasim", "mutant_dir", "fw_mutant_dir"):
        if getattr(args, need) is None:
            ap.error("--%s is required" % need.replace("_", "-"))
    for m in set(SLICE) | {m for _, ms in FAMILIES for m in ms}:
        assert m in MUTANTS, "mutation_matrix.py: unknown mutant %s in the tables" % m
    if args.unit:
        bad = 0
        for m in sorted(UNIT_KILLS):
            o, why, dt = run_unit(args, m)
            print("mutation-matrix: unit kill of %s (%.1f s): %s %s" % (m, dt, o, why[:200]))
            if o != "KILL":
                bad = 1
                print("mutation-matrix: FAILED %s is not killed by its unit test (%s)" % (m, why))
        return bad
    gone = ["%s (RTL slice of %s)" % (f, m) for m, f in sorted(SLICE.items()) if f != "unit" and f not in stems]
    if gone:  # a renamed file must not drop its mutant's RTL run silently
        print("mutation-matrix: FAILED the SLICE table names files the matrix does not cover: " + ", ".join(gone))
        return 1
    if args.only:
        if args.only not in stems:
            print("mutation-matrix: %s is not a file the matrix covers (%s)" % (args.only, ", ".join(stems)))
            return 2
        stems = [args.only]

    jobs = []  # (stem, mutant, engine)
    for s in stems:
        for m in family(s):
            jobs.append((s, m, "model"))
            if args.rtl == "all" or SLICE.get(m) == s:
                jobs.append((s, m, "rtl"))
    t0 = time.monotonic()
    res = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(run_one, args, *j): j for j in jobs}
        for f in concurrent.futures.as_completed(futs):
            res[futs[f]] = f.result()
    wall = time.monotonic() - t0

    # The table: one row per file, one column per mutant; per engine run
    # K (killed), - (survived), c (only a counter minimum failed: survived),
    # E (error); blank where not targeted.
    cols = [m for m in MUTANTS if any(m in family(s) for s in stems)]
    w = max(len(s) for s in stems)
    print("mutation-matrix: %d files x their mutants, %d runs in %.0f s (K killed, - survived, c survived"
          " every check, failed only a counter minimum: no kill; E error; model[/rtl])" % (len(stems), len(jobs), wall))
    print("  %-*s  %s" % (w, "file", "  ".join(cols)))
    mark = {"KILL": "K", "SURVIVE": "-", "COUNTERS": "c", "ERROR": "E"}
    failures = []
    for s in stems:
        cells = []
        for m in cols:
            if m not in family(s):
                cells.append(" " * len(m))
                continue
            c = mark[res[(s, m, "model")][0]]
            if (s, m, "rtl") in res:
                c += "/" + mark[res[(s, m, "rtl")][0]]
            cells.append(c.center(len(m)))
        print("  %-*s  %s" % (w, s, "  ".join(cells)))
        if not any(res[(s, m, "model")][0] == "KILL" for m in family(s)):
            failures.append("%s: no mutant kills it (targets %s)" % (s, ", ".join(family(s))))
    for (s, m, e), (o, why, dt) in sorted(res.items()):
        if o == "ERROR":
            failures.append("%s vs %s (%s): %s" % (s, m, e, why))
        if e == "rtl" and o != "ERROR" and res[(s, m, "model")][0] != o:
            failures.append("%s vs %s: the model %s, the RTL %s (the twins disagree)"
                            % (s, m, res[(s, m, "model")][0].lower(), o.lower()))
    for m, s in sorted(SLICE.items()):
        if s in stems and (s, m, "rtl") in res and res[(s, m, "rtl")][0] != "KILL":
            failures.append("RTL slice: %s does not kill %s on the RTL engine" % (s, m))
    if not args.only:
        for m in sorted(UNIT_KILLS):
            o, why, dt = run_unit(args, m)
            print("mutation-matrix: %s: unit kill %s (%.1f s): %s" % (m, o, dt, why[:160]))
            if o != "KILL":
                failures.append("%s is not killed by its unit test: %s" % (m, why))
    if not args.only:
        for m in MUTANTS:
            if not any(res.get((s, m, "model"), ("",))[0] == "KILL" for s in stems):
                print("mutation-matrix: note: no file kills %s (%s)%s" % (
                    m, MUTANTS[m][1], "; unit-level only: " + UNIT_KILLS[m][2] if m in UNIT_KILLS else
                    "" if m in cols else "; no file targets it"))
        slow = sorted(res.items(), key=lambda kv: -kv[1][2])[:3]
        print("mutation-matrix: slowest runs: " + ", ".join("%s/%s/%s %.1f s" % (k + (v[2],)) for k, v in slow))
    for (s, m, e), (o, why, dt) in sorted(res.items()):
        if o == "KILL" and (args.only or e == "rtl"):
            print("  %s kills %s (%s): %s" % (s, m, e, why[:140]))
    for f in failures:
        print("mutation-matrix: FAILED " + f)
    if not failures:
        print("mutation-matrix: every file killed by one of its mutants; every RTL mutant killed on the RTL"
              " (or, where no scenario can, by its unit test)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
