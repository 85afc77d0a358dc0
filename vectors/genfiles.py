"""genfiles — what the scenario generators share: write their files, or
check that the committed ones are exactly what they write (the `*-fresh`
checks of `make test`)."""
import argparse
import json
import os
import sys


def sync(tag, files, dirs, prefix, check):
    """files: [(path, text)]. check=False: write them. check=True: report any
    that differs or is missing, and any PREFIX*.jsonl in dirs the generator
    does not write; exit status 0 or 1."""
    if not check:
        for path, text in files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        print("wrote %d files" % len(files))
        return 0
    bad = []
    for path, text in files:
        try:
            with open(path) as f:
                if f.read() != text:
                    bad.append(path + " differs")
        except OSError:
            bad.append(path + " is missing")
    want = {p for p, _ in files}
    for d in dirs:
        if os.path.isdir(d):
            for n in sorted(os.listdir(d)):
                p = os.path.join(d, n)
                if n.startswith(prefix) and n.endswith(".jsonl") and p not in want:
                    bad.append(p + " is not written by the generator")
    for b in bad:
        print("%s: %s" % (tag, b), file=sys.stderr)
    if bad:
        print("%s: regenerate with python3 %s and commit" % (tag, os.path.relpath(sys.argv[0])), file=sys.stderr)
        return 1
    print("%s: %d files as generated" % (tag, len(files)))
    return 0


def spread(lo, hi, n):
    """n offsets from lo to hi inclusive, evenly spread, integers."""
    if n == 1:
        return [lo]
    return [lo + (hi - lo) * i // (n - 1) for i in range(n)]


def J(o):
    """One scenario line."""
    return json.dumps(o, separators=(",", ":"))


def sweep_main(doc, tag, prefix, sweeps, sweep_file):
    """The command line of a sweep generator: write (or --check) one file per
    sweep, sweep_file(**sweep) -> (name, text), into --out (vectors/directed)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    ap.add_argument("--out", default=os.path.join(here, "directed"), help="where the sweeps go")
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    a = ap.parse_args()
    files = [(os.path.join(a.out, n), t) for n, t in (sweep_file(**sw) for sw in sweeps)]
    return sync(tag, files, (a.out,), prefix, a.check)


def counters_lines(counters):
    """The closing expect_counters of a race file: counters {name: minimum, or
    (min, max)}, as measured on the RTL engine when the sweep was last aimed
    (docs/scenarios.md "Counters"). A sweep whose invalidations stop landing in
    the window they were aimed at (a timing change moved it) fails here
    instead of passing without testing the fence. [] when it names none."""
    if not counters:
        return []
    def bounds(v):
        return {"min": v[0], "max": v[1]} if isinstance(v, tuple) else {"min": v}
    return ["# The windows this sweep is aimed at, at least as often as when it was last measured:",
            J({"op": "expect_counters", **{k: bounds(v) for k, v in counters.items()}})]
