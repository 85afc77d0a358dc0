#!/usr/bin/env python3
"""timing_sensitivity — which outcomes of a scenario hang on the device's timing.

Runs each scenario as it is and again with one timing parameter of the
`device` op (host read latency, link latency, host write cost) scaled by a
small factor (default 1.01: 1 %), on one engine, and compares the two runs:
every work request's completion status (matched by its line), the exit
code, and the checker's counters. Prints what moved, file:line, and a
summary: how many runs changed a functional outcome, how many WR statuses
flipped, how many runs moved a counter, and how far the latency (post to
CQE) of the WRs whose status held moved (median, p95, max with the WR).

What it is for: a race hunter sees which WRs of a scenario are won by a
cycle (the ones that flip); a model's timing is judged against what a 1 %
error would do (docs/model.md "How exact the model must be"). The timing
the file ran with comes from `--json`'s `timing` (defaults applied), so the
script holds no device constant of its own.

usage: timing_sensitivity.py HCASIM [--engine E] [--scale S] [--params P,..]
                             [--jobs N] [--quiet] FILE...
Exit 0 (a report, whatever moved), 1 when the unperturbed run of a file does
not pass, 2 on bad usage.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

PARAMS = ("host_read_latency", "link_latency", "host_write_cost")


def run(hcasim, engine, path, out):
    p = subprocess.run([hcasim, "run", path, "--engine", engine, "--json", out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return p.returncode, json.load(f)


def perturbed(path, param, value, out):
    """path with the `device` op's param set to value; a file without a
    device op gets one before its first op. -> lines every later line moved."""
    with open(path) as f:
        lines = f.read().splitlines()
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s.startswith("{"):
            continue
        op = json.loads(s)
        if op.get("op") == "device":
            op[param] = value
            lines[i] = json.dumps(op)
            shift = 0
        else:
            lines.insert(i, json.dumps({"op": "device", param: value}))
            shift = 1
        break
    else:
        return None
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return shift


def compare(hcasim, engine, path, scale, params, tmp):
    """-> (error message or None, [one dict per param])"""
    base_json = os.path.join(tmp, "base.json")
    rc0, d0 = run(hcasim, engine, path, base_json)
    if rc0 != 0:
        return f"{path}: exit {rc0} unperturbed ({(d0.get('failure') or {}).get('message')})", []
    timing = d0["timing"]
    wrs0 = {w["line"]: w for w in d0["wrs"]}
    out = []
    for param in params:
        base = timing[param]
        value = max(round(base * scale), base + 1) if scale > 1 else round(base * scale)
        vfile = os.path.join(tmp, "v.jsonl")
        shift = perturbed(path, param, value, vfile)
        if shift is None:
            continue
        rc1, d1 = run(hcasim, engine, vfile, os.path.join(tmp, "v.json"))
        flips, lat = [], []
        for w in d1["wrs"]:
            b = wrs0.get(w["line"] - shift)
            if b is None:
                continue
            if b["status"] != w["status"]:
                flips.append((b["line"], b["qp"], b["wr_id"], b["opcode"], b["status"], w["status"]))
            elif b["completion_cycle"] is not None and w["completion_cycle"] is not None:
                l0 = b["completion_cycle"] - b["post_cycle"]
                l1 = w["completion_cycle"] - w["post_cycle"]
                if l0 > 0:
                    lat.append((abs(l1 - l0) / l0, b["line"], b["opcode"], l0, l1))
        c0, c1 = d0["checker"] or {}, d1["checker"] or {}
        counters = {k: (c0.get(k), c1.get(k)) for k in sorted(set(c0) | set(c1)) if c0.get(k) != c1.get(k)}
        out.append({"param": param, "from": base, "to": value, "rc": (rc0, rc1), "flips": flips,
                    "counters": counters, "lat": lat, "wrs": len(d1["wrs"]),
                    "failure": (d1.get("failure") or {}).get("message")})
    return None, out


def pct(vals, q):
    k = max(0, -(-len(vals) * q // 100) - 1)
    return vals[int(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hcasim")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--engine", default="model")
    ap.add_argument("--scale", type=float, default=1.01)
    ap.add_argument("--params", default=",".join(PARAMS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--quiet", action="store_true", help="the summary only")
    a = ap.parse_args()
    params = [p for p in a.params.split(",") if p]
    bad = [p for p in params if p not in PARAMS]
    if bad or a.scale <= 0:
        ap.error(f"--params: one of {', '.join(PARAMS)}" if bad else "--scale must be > 0")

    def one(path):
        with tempfile.TemporaryDirectory() as tmp:
            return path, compare(a.hcasim, a.engine, path, a.scale, params, tmp)

    runs = changed = moved = flips = wrs = 0
    lat, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for path, (err, res) in pool.map(one, a.files):
            if err:
                failed.append(err)
                print(f"FAIL {err}", flush=True)
                continue
            for r in res:
                runs += 1
                wrs += r["wrs"]
                flips += len(r["flips"])
                lat += [(e, path, line, op, l0, l1, r["param"]) for e, line, op, l0, l1 in r["lat"]]
                functional = r["flips"] or r["rc"][0] != r["rc"][1]
                changed += bool(functional)
                moved += bool(r["counters"])
                if a.quiet or not (functional or r["counters"]):
                    continue
                what = [f"exit {r['rc'][0]} -> {r['rc'][1]} ({r['failure']})"] if r["rc"][0] != r["rc"][1] else []
                what += [f"{k} {x} -> {y}" for k, (x, y) in r["counters"].items()]
                print(f"{path} {r['param']} {r['from']} -> {r['to']}: {len(r['flips'])} WR status(es) flipped"
                      + (f"; {', '.join(what)}" if what else ""), flush=True)
                for line, qp, wr_id, op, s0, s1 in r["flips"]:
                    print(f"  {path}:{line} {qp} wr_id {wr_id} {op}: {s0} -> {s1}")
    lat.sort()
    print(f"timing sensitivity ({a.engine} engine, each of {', '.join(params)} x{a.scale:g} "
          f"(whole cycles: at least 1 more), {len(a.files)} file(s), {runs} perturbed runs):")
    print(f"  runs changing a functional outcome (a WR status, the exit code): {changed} of {runs}; "
          f"WR statuses flipped: {flips} of {wrs}")
    print(f"  runs moving a checker count (DMAs watched, fence/drain waits, refusals, breaches): {moved} of {runs}")
    if lat:
        e, path, line, op, l0, l1, param = lat[-1]
        print(f"  latency change of the WRs whose status held ({len(lat)}): median {100 * pct([x[0] for x in lat], 50):.2f} %, "
              f"p95 {100 * pct([x[0] for x in lat], 95):.2f} %, max {100 * e:.1f} % ({path}:{line} {op}, "
              f"{l0} -> {l1} cycles, {param})")
    if failed:
        print(f"  {len(failed)} file(s) did not pass unperturbed: not compared")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
