#!/usr/bin/env python3
"""Run hcasim's whole suite and count it.

Each GoogleTest case counts as one test (read from the binary's JSON report);
each check (a make target: lint, synthesis, ABI freshness, scenario runs...)
counts as one. Failures print their output; the last line is always
"N passed, N failed". Exit status 1 when anything failed.
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import time

RESULTS = os.path.join("build", "test-results")  # --results DIR


def run_gtest(binary, results):
    """-> (name, passed, failed, failed-case names, output)"""
    name = os.path.basename(binary)
    report = os.path.join(results, name + ".json")
    if os.path.exists(report):
        os.remove(report)
    t0 = time.time()
    try:
        proc = subprocess.run([binary, f"--gtest_output=json:{report}", "--gtest_brief=1"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        return name, 0, 1, [f"{name} (cannot run: {e.strerror})"], str(e), 0.0
    took = time.time() - t0
    try:
        with open(report) as f:
            data = json.load(f)
    except (OSError, ValueError):
        # The binary died before writing its report (crash, abort): one failure.
        return name, 0, 1, [f"{name} (exit {proc.returncode}, no report)"], proc.stdout, took
    passed, failed, bad = 0, 0, []
    for suite in data.get("testsuites", []):
        for case in suite.get("testsuite", []):
            if case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
                failed += 1  # a skipped test is not a pass
                bad.append(f"{suite['name']}.{case['name']} (skipped)")
            elif case.get("failures"):
                failed += 1
                bad.append(f"{suite['name']}.{case['name']}")
            else:
                passed += 1
    if proc.returncode != 0 and not bad:
        failed += 1
        bad.append(f"{name} (exit {proc.returncode})")
    if passed + failed == 0:
        failed, bad = 1, [f"{name} ran no test"]
    return name, passed, failed, bad, proc.stdout, took


def run_check(make, target):
    t0 = time.time()
    proc = subprocess.run(shlex.split(make) + [target], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    ok = proc.returncode == 0
    return target, int(ok), int(not ok), [] if ok else [target], proc.stdout, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gtest", action="append", default=[])
    ap.add_argument("--check", action="append", default=[])
    ap.add_argument("--make", default="make -s")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", default=RESULTS, help="folder of the GoogleTest JSON reports")
    ap.add_argument("--tail", type=int, default=60, help="lines of a failure's output to print")
    ap.add_argument("--elapsed", metavar="LABEL", help="print 'LABEL: N s of runs' before the last line")
    args = ap.parse_args()
    results = args.results
    os.makedirs(results, exist_ok=True)
    total_pass = total_fail = 0
    failures = []
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = [pool.submit(run_gtest, b, results) for b in args.gtest]
        futs += [pool.submit(run_check, args.make, c) for c in args.check]
        for fut in concurrent.futures.as_completed(futs):
            name, p, f, bad, out, took = fut.result()
            total_pass += p
            total_fail += f
            kind = "FAIL" if f else "ok  "
            print(f"[{kind}] {name:<28} {p:5d} passed {f:3d} failed  {took:6.1f}s", flush=True)
            if f:
                failures.append((name, bad, out))
    for name, bad, out in failures:
        print(f"\n==== {name}: {', '.join(bad)}")
        lines = out.rstrip().splitlines()
        print("\n".join(lines[-args.tail:]))
    if args.elapsed:
        print(f"{args.elapsed}: {time.time() - t0:.0f} s of runs, {args.jobs} at a time")
    print(f"{total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
