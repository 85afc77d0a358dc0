#!/usr/bin/env python3
"""soak.py — stream constrained-random traffic through the device for a duration
(`make soak`; docs/verification.md "Soak").

Each chunk is one file of vectors/gen_random.py (seed BASE+k, the mode rotating
mix/storm/faults/lifecycle): a device that lives for the whole file while QPs,
CQs, MPT indices and keys are recycled under it, so state grows as in a long run.
Every chunk runs on ENGINE (model or rtl) with the protection checker on; every
--both-every'th chunk runs again with `--engine both` (the RTL and the model side
by side: any divergence fails). A progress line every --progress seconds; at
the end, a summary of operations by kind, outcomes (completion statuses),
breaches and the checker's counters, also written as DIR/summary.json.

Exit 0 when every chunk passed; 1 at the first failure (or at the end with
--keep-going) (a breach, a mismatch of
the oracle, a hang, a divergence), printing the command that reproduces it (the
chunk's file is kept under DIR/fail/); 2 on a usage error.

    python3 vectors/soak.py --duration 10m [--engine model|rtl] [--seed S] [--jobs N]
"""
import argparse
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODES = ["mix", "storm", "faults", "lifecycle"]
# what an "operation" is: a work request posted, or a verb that changes the device's state
# (set_page_list and update_fast_reg_key touch only the driver: not counted)
WR_OPS = {"post_send", "post_recv", "post_raw_wqe"}
VERB_OPS = {"reg_mr", "dereg_mr", "alloc_mr", "get_dma_mr", "create_qp", "destroy_qp", "modify_qp", "connect",
            "create_cq", "destroy_cq", "alloc_pd", "peer_invalidate", "peer_client", "peer_alloc",
            "alloc_fast_reg_page_list"}


def duration(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", s.strip())
    if not m:
        raise argparse.ArgumentTypeError("expected N[s|m|h|d], got %r" % s)
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def hms(t):
    t = int(t)
    return "%d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)


def count_ops(path):
    """operations in a generated file, by kind (a post_send by its opcode)."""
    kinds = collections.Counter()
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            o = json.loads(line)
            op = o["op"]
            if op == "post_send":
                kinds[o["opcode"]] += 1
            elif op == "post_recv":
                kinds["RECV"] += 1
            elif op == "post_raw_wqe":
                kinds["RAW_WQE"] += 1
            elif op in VERB_OPS:
                kinds[op + ("_" + o["state"] if op == "modify_qp" else "")] += 1
    return kinds


class Soak:
    def __init__(self, a):
        self.a = a
        self.hcasim = a.hcasim
        self.work = os.path.join(a.out, "work")
        os.makedirs(self.work, exist_ok=True)
        # the generator as it was when the run started: an edit during a long run changes no chunk
        self.gen = os.path.join(a.out, "gen", "gen_random.py")
        os.makedirs(os.path.dirname(self.gen), exist_ok=True)
        for f in ("gen_random.py", "genfiles.py"):
            shutil.copy(os.path.join(HERE, f), os.path.join(a.out, "gen", f))
        self.kinds = collections.Counter()
        self.status = collections.Counter()
        self.checker = collections.Counter()
        self.chunks = self.both = 0
        self.ops = self.wrs = 0
        self.cycles = 0
        self.failure = None
        self.failures = []
        self.interrupted = False
        self.fail_kinds = collections.Counter()
        self.t0 = time.time()

    def gen_args(self, k):
        seed = self.a.seed + k
        mode = self.a.mode or MODES[k % len(MODES)]
        args = ["--seed", str(seed), "--mode", mode, "--rounds", str(self.a.rounds), "--qps", str(self.a.qps)]
        if self.a.weights:
            args += ["--weights", self.a.weights]
        return seed, args

    def run_chunk(self, k):
        """generate chunk k, run it (and maybe --engine both); a result dict."""
        seed, args = self.gen_args(k)
        d = os.path.join(self.work, "c%d" % (k % 64))
        subprocess.run([sys.executable, self.gen, "--out", d] + args, check=True, stdout=subprocess.DEVNULL)
        mode = args[args.index("--mode") + 1]
        name = "random_s%d.jsonl" % seed if mode == "mix" else "random_%s_s%d.jsonl" % (mode, seed)
        path = os.path.join(d, name)
        res = {"k": k, "seed": seed, "args": args, "file": path, "kinds": count_ops(path)}
        runs = [self.a.engine] + (["both"] if self.a.both_every and k % self.a.both_every == 0 else [])
        for eng in runs:
            js = os.path.join(d, "result_%s.json" % eng)
            fw = ["--firmware", self.a.firmware] if self.a.firmware else []
            try:
                p = subprocess.run([self.hcasim, "run", path, "--engine", eng, "--json", js] + fw,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                                   timeout=self.a.timeout)
            except subprocess.TimeoutExpired as e:
                p = subprocess.CompletedProcess(e.cmd, 124, "hcasim run timed out after %d s\n" % self.a.timeout)
            try:
                with open(js) as f:
                    j = json.load(f)
            except (OSError, ValueError):
                j = {}
            r = {"rc": p.returncode, "out": p.stdout, "json": j}
            res[eng] = r
            if p.returncode != 0:
                res["failed"] = eng
                break
        return res

    def absorb(self, res):
        self.chunks += 1
        if "both" in res:
            self.both += 1
        self.kinds.update(res["kinds"])
        n = sum(res["kinds"].values())
        self.ops += n
        j = res[self.a.engine]["json"]
        for w in j.get("wrs") or []:
            self.status[w.get("status") or "NOT_COMPLETED"] += 1
            self.wrs += 1
        for k, v in (j.get("checker") or {}).items():
            self.checker[k] += v
        self.cycles += j.get("cycles") or 0
        if "failed" in res:
            self.failures.append(res)
            res["kind"] = self.classify(res)
            self.fail_kinds[res["kind"]] += 1
            if not self.failure:
                self.failure = res

    @staticmethod
    def classify(res):
        r = res[res["failed"]]
        j = r["json"]
        msg = ((j.get("failure") or {}).get("message") or "") + r["out"][-2000:]
        if r["rc"] == 124 or "timed out" in msg:
            return "timeout"
        if "diverge" in msg:
            return "divergence"
        if (j.get("checker") or {}).get("breaches") or "invariant broken" in msg:
            return "breach"
        if re.search(r"completions? on \S+ within", msg):
            return "hang"
        return "mismatch" if r["rc"] == 1 else "error"

    def progress(self, final=False):
        t = time.time() - self.t0
        ok = self.status.get("SUCCESS", 0)
        line = ("soak %s: %s elapsed, %d chunks (%d on both engines), %d ops (%d WRs: %d SUCCESS, %d errors), "
                "%d breaches, %d failed chunks, %.0f ops/s" % (
                    self.a.engine, hms(t), self.chunks, self.both, self.ops, self.wrs, ok, self.wrs - ok,
                    self.checker.get("breaches", 0), len(self.failures), self.ops / max(t, 1e-9)))
        print(line, flush=True)

    def summary(self):
        t = time.time() - self.t0
        L = []
        L.append("soak summary%s: engine %s, base seed %d, %s wall, %d chunks (%d also on --engine both), "
                 "%.3g simulated cycles" % (" (interrupted)" if self.interrupted else "", self.a.engine, self.a.seed,
                                            hms(t), self.chunks, self.both, self.cycles))
        L.append("operations: %d (%.0f/s): %d work requests, %d verbs" % (
            self.ops, self.ops / max(t, 1e-9), sum(v for k, v in self.kinds.items() if k.isupper()),
            sum(v for k, v in self.kinds.items() if not k.isupper())))
        L.append("  by kind: " + ", ".join("%s %d" % kv for kv in sorted(self.kinds.items(), key=lambda x: -x[1])))
        L.append("outcomes (completions of %d WRs): " % self.wrs + ", ".join(
            "%s %d" % kv for kv in sorted(self.status.items(), key=lambda x: -x[1])))
        c = self.checker
        L.append("checker: %d breaches; %d DMAs watched (%d through a key), %d invalidations, %d registrations "
                 "followed; %d fence waits, %d drain waits, %d refused after an invalidation" % (
                     c["breaches"], c["dma"], c["dma_keyed"], c["invalidations"], c["registrations"],
                     c["fence_waits"], c["drain_waits"], c["refused_after_inv"]))
        if self.failures:
            L.append("FAILED chunks: %d (%s)" % (len(self.failures), ", ".join(
                "%s %d" % kv for kv in sorted(self.fail_kinds.items()))))
        for f in self.failures[:10]:
            L.append("FAILED (%s): chunk %d (seed %d) on --engine %s" % (f["kind"], f["k"], f["seed"], f["failed"]))
            L += ["  " + x for x in f[f["failed"]]["out"].splitlines()
                  if not re.search(r" poll_cq \S+: \{", x) and not x.startswith(("checker", "latency"))][-4:]
            L.append("  reproduce: python3 vectors/gen_random.py %s --out DIR && build/bin/hcasim run "
                     "DIR/%s --engine %s%s" % (" ".join(f["args"]), os.path.basename(f["file"]), f["failed"],
                                               " --firmware " + self.a.firmware if self.a.firmware else ""))
            L.append("  file kept: %s" % f.get("kept"))
        if self.interrupted:
            L.append("INTERRUPTED after %d chunks" % self.chunks)
        elif not self.failures:
            L.append("PASS: 0 breaches, 0 failures, 0 divergences")
        return L

    def main(self):
        a = self.a
        end = self.t0 + a.duration
        last = time.time()
        k = 0
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            pending = []
            while True:
                more = time.time() < end and (a.keep_going or not self.failure) and (not a.max_ops or self.ops < a.max_ops) and \
                    (not a.chunks or k < a.chunks)
                while more and len(pending) < a.jobs:
                    pending.append(ex.submit(self.run_chunk, k))
                    k += 1
                if not pending:
                    break
                try:
                    res = pending[0].result()
                except KeyboardInterrupt:   # Ctrl-C or SIGTERM: stop, summarise what ran
                    self.interrupted = True
                    end = 0
                    continue
                pending.pop(0)
                self.absorb(res)
                if "failed" in res:
                    keep = os.path.join(a.out, "fail")
                    os.makedirs(keep, exist_ok=True)
                    dst = os.path.join(keep, os.path.basename(res["file"]))
                    with open(res["file"]) as f, open(dst, "w") as g:
                        g.write(f.read())
                    res["kept"] = dst
                    with open(dst[:-len(".jsonl")] + ".%s.log" % res["failed"], "w") as g:
                        g.write(res[res["failed"]]["out"])
                    print("soak: FAIL (%s) chunk %d seed %d on --engine %s (kept %s)" % (
                        res["kind"], res["k"], res["seed"], res["failed"], dst), flush=True)
                if time.time() - last >= a.progress:
                    self.progress()
                    last = time.time()
        self.progress(True)
        lines = self.summary()
        print("\n".join(lines))
        with open(os.path.join(a.out, "summary.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump({"engine": a.engine, "seed": a.seed, "wall_s": round(time.time() - self.t0, 1),
                       "chunks": self.chunks, "both_chunks": self.both, "ops": self.ops, "wrs": self.wrs,
                       "kinds": dict(self.kinds), "outcomes": dict(self.status), "checker": dict(self.checker),
                       "cycles": self.cycles,
                       "failures": [{"kind": x["kind"], "chunk": x["k"], "seed": x["seed"], "engine": x["failed"],
                                     "args": x["args"], "file": x.get("kept")} for x in self.failures]},
                      f, indent=1)
        return 1 if self.failures or self.interrupted else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=duration, default=duration("10m"), help="how long (N[s|m|h|d]; 10m)")
    ap.add_argument("--engine", choices=["model", "rtl"], default="model")
    ap.add_argument("--seed", type=int, default=None, help="base seed (default: from the clock, printed)")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="chunks run at once (1)")
    ap.add_argument("--both-every", type=int, default=25,
                    help="every N-th chunk also runs on --engine both (25; 0: never)")
    ap.add_argument("--mode", choices=MODES, help="one generator mode (default: rotate)")
    ap.add_argument("--rounds", type=int, default=12, help="rounds per chunk (12)")
    ap.add_argument("--qps", type=int, default=6, help="QP pairs live at once (6)")
    ap.add_argument("--weights", help="passed to gen_random.py --weights")
    ap.add_argument("--keep-going", action="store_true",
                    help="go on after a failing chunk (each kept; exit 1 at the end)")
    ap.add_argument("--max-ops", type=int, default=0, help="stop after this many operations too")
    ap.add_argument("--chunks", type=int, default=0, help="stop after this many chunks too")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per hcasim run (1800)")
    ap.add_argument("--progress", type=float, default=10, help="seconds between progress lines (10)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "soak"), help="work and results (build/soak)")
    ap.add_argument("--hcasim", default=os.path.join(ROOT, "build", "bin", "hcasim"))
    ap.add_argument("--firmware", help="the firmware image every run boots (hcasim run --firmware; a mutant's)")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int(time.time()) % 1000000 * 1000
    if not os.access(a.hcasim, os.X_OK):
        ap.error("%s: not built (make build/bin/hcasim)" % a.hcasim)
    print("soak: engine %s, base seed %d, %s, %d job(s), %s" % (
        a.engine, a.seed, hms(a.duration), a.jobs, "every %d-th chunk also on --engine both" % a.both_every
        if a.both_every else "no chunk on --engine both"), flush=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    return Soak(a).main()


if __name__ == "__main__":
    sys.exit(main())
