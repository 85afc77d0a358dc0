#!/usr/bin/env python3
"""bench_engines — the model against the RTL over the scenario corpus, one run.

For every directed scenario both engines can run (demo + vectors/directed,
without the `# engines: model` files): `hcasim run --engine rtl` and
`--engine model` timed separately (simulated cycles per CPU second of the
run each — the other processes of a shared machine do not change it — and
their ratio), then `--engine both --json` for the latency error of every work
request (post to CQE, model vs RTL). Prints the speed per corpus group and the
error distribution (median, p95, max, with the worst WR) over the corpus.
"""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

HCASIM = sys.argv[1] if len(sys.argv) > 1 else "build/bin/hcasim"


def files():
    out = ["vectors/demo.jsonl"]
    d = "vectors/directed"
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        if f.endswith(".jsonl") and "# engines: model" not in open(p).read(2000):
            out.append(p)
    return out


def group(path):
    b = os.path.basename(path)
    return "race" if b.startswith("race_") else "soak" if b.startswith("soak_") else "directed"


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(path, engine):
    t0 = cpu_children()
    p = subprocess.run([HCASIM, "run", path, "--engine", engine], capture_output=True, text=True)
    dt = cpu_children() - t0
    m = re.search(r"(\d+) cycles, engine", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit("bench_engines: %s on %s: exit %d\n%s" % (path, engine, p.returncode, p.stdout[-2000:]))
    return int(m.group(1)), dt


def pct(sorted_vals, q):
    if not sorted_vals:
        return 0.0
    k = max(0, -(-len(sorted_vals) * q // 100) - 1)  # ceil(q% n)-th smallest
    return sorted_vals[int(k)]


def main():
    speed = {}
    errs = []  # (abs error, file, line, wr_id, rtl, model)
    divergent = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files():
            g = group(f)
            for e in ("rtl", "model"):
                cyc, dt = run(f, e)
                s = speed.setdefault(g, {"rtl": [0, 0.0], "model": [0, 0.0]})[e]
                s[0] += cyc
                s[1] += dt
            j = os.path.join(tmp, "r.json")
            p = subprocess.run([HCASIM, "run", f, "--engine", "both", "--json", j], capture_output=True, text=True)
            if p.returncode != 0:
                divergent.append(f)
                continue
            for w in json.load(open(j))["both"]["wrs"]:
                if w.get("error") is None:  # no CQE on one side (unsignaled, or still pending at the end)
                    continue
                errs.append((abs(w["error"]), f, w["line"], w["wr_id"], w["rtl"], w["model"]))
    print("model vs rtl over the scenario corpus (each file run on each engine, CPU time, one run):")
    print("  %-9s %14s %14s %8s" % ("group", "rtl cycles/s", "model cycles/s", "ratio"))
    tot = {"rtl": [0, 0.0], "model": [0, 0.0]}
    for g in ("directed", "race", "soak"):
        if g not in speed:
            continue
        r, m = speed[g]["rtl"], speed[g]["model"]
        for e in ("rtl", "model"):
            tot[e][0] += speed[g][e][0]
            tot[e][1] += speed[g][e][1]
        print("  %-9s %14.3g %14.3g %7.1fx" % (g, r[0] / r[1], m[0] / m[1], (m[0] / m[1]) / (r[0] / r[1])))
    r, m = tot["rtl"], tot["model"]
    print("  %-9s %14.3g %14.3g %7.1fx" % ("all", r[0] / r[1], m[0] / m[1], (m[0] / m[1]) / (r[0] / r[1])))
    errs.sort()
    vals = [e[0] for e in errs]
    med = (vals[(len(vals) - 1) // 2] + vals[len(vals) // 2]) / 2 if vals else 0.0
    print("latency error (post -> CQE, model vs rtl), %d WRs in %d files: median %.1f%%, p95 %.1f%%, max %.1f%%"
          % (len(vals), len(files()) - len(divergent), med, pct(vals, 95), vals[-1] if vals else 0.0))
    if errs:
        w = errs[-1]
        print("  worst: %s:%d wr_id %s, rtl %d model %d cycles" % (w[1], w[2], w[3], w[4], w[5]))
    for f in divergent:
        print("  DIVERGED or failed with --engine both: %s" % f)
    return 1 if divergent else 0


if __name__ == "__main__":
    sys.exit(main())
