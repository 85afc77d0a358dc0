#!/usr/bin/env python3
"""timing_sensitivity.py's own tests (make test: timing-sensitivity-selftest).

1. Scale 1: the perturbed runs are the file itself (a file with a `device`
   op and one without, which gets one inserted): nothing may move, and every
   WR must be matched by its line.
2. Read latency +1 % on a LOCAL_INV race sweep: the WRs' latencies move (the
   comparison sees a change when there is one).
3. Bad usage exits 2; a file that does not pass unperturbed exits 1.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HCASIM = os.environ.get("HCASIM_BIN", "build/bin/hcasim")
TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "timing_sensitivity.py")
RACE = "vectors/directed/race_linv_read_mtu1024_x8.jsonl"  # has a device op? no: the insertion path
WITH_DEVICE = "vectors/directed/race_destroy_read_mtu1024_x16.jsonl"  # host_read_latency 2000
failures = []


def check(cond, what, out=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{out}")


def tool(*args):
    p = subprocess.run([sys.executable, TOOL, HCASIM, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def wrs_of(path):
    with tempfile.TemporaryDirectory() as tmp:
        j = os.path.join(tmp, "r.json")
        subprocess.run([HCASIM, "run", path, "--engine", "model", "--json", j], capture_output=True)
        with open(j) as f:
            return len(json.load(f)["wrs"])


def summary(out):
    m = re.search(r"functional outcome .*: (\d+) of (\d+); WR statuses flipped: (\d+) of (\d+)", out)
    c = re.search(r"checker count .*: (\d+) of (\d+)", out)
    lat = re.search(r"status held \((\d+)\): median ([\d.]+) %, p95 ([\d.]+) %, max ([\d.]+) %", out)
    return m, c, lat


def main():
    has_dev = [json.loads(l).get("op") for l in open(WITH_DEVICE) if l.startswith("{")][0] == "device"
    no_dev = [json.loads(l).get("op") for l in open(RACE) if l.startswith("{")][0] != "device"
    check(has_dev and no_dev, f"fixtures: {WITH_DEVICE} starts with a device op, {RACE} does not")

    # 1. scale 1: nothing moves, every WR matched
    rc, out = tool("--scale", "1", "--params", "host_read_latency,link_latency", "--jobs", "2", RACE, WITH_DEVICE)
    m, c, lat = summary(out)
    n = wrs_of(RACE) + wrs_of(WITH_DEVICE)
    check(rc == 0 and m and c and lat, f"scale 1: exit 0 and a summary (got exit {rc})", out)
    if m and c and lat:
        check(m.group(1) == "0" and m.group(3) == "0", "scale 1: no functional outcome moves", out)
        check(int(m.group(4)) == 2 * n, f"scale 1: every WR of both runs matched by line ({2 * n})", out)
        check(c.group(1) == "0", "scale 1: no checker count moves", out)
        check(float(lat.group(4)) == 0.0, "scale 1: no latency moves", out)

    # 2. +1 % read latency: the latencies move
    rc, out = tool("--params", "host_read_latency", RACE)
    m, c, lat = summary(out)
    check(rc == 0 and lat and float(lat.group(4)) > 0.0, "+1 % read latency: some WR's latency moves", out)

    # 3. usage and a failing file
    rc, out = tool("--params", "bogus", RACE)
    check(rc == 2 and "--params" in out, f"an unknown parameter: exit 2 naming --params (got {rc})", out)
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "fails.jsonl")
        with open(bad, "w") as f:
            f.write('{"op":"device"}\n{"op":"query_device","expect":{"max_pd":1}}\n')
        rc, out = tool(bad)
        check(rc == 1 and "did not pass unperturbed" in out and f"{bad}: exit 1" in out,
              f"a file failing unperturbed: exit 1, named (got {rc})", out)

    print(f"timing-sensitivity-selftest: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
