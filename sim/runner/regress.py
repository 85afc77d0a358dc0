#!/usr/bin/env python3
"""hcasim regress — run a test list in parallel: scenarios, generators, GoogleTest binaries.

Usage (docs/regress.md):
  hcasim regress [LIST] [-j N] [--engine E[,E]] [--seed S] [--reseed N] [--timeout S]
                 [--shard I/N] [--only GLOB] [--out DIR] [--no-waves] [--waves-window C] [--list]
  hcasim regress merge SHARD_DIR... --out DIR

A test list is a plain file, one entry per line ('#' starts a comment):
  scenarios NAME GLOB      [engines=rtl,model,both] [timeout=S]
  generator NAME SCRIPT    seeds=A-B|A,B,C [engines=…] [timeout=S] [-- ARGS…]
  gtest     NAME BINARY|GLOB [filter=GTEST_FILTER] [timeout=S]
Paths are relative to the project root (the nearest ancestor of the list with a
Makefile, or --root). Every entry expands to jobs: a scenario file on one engine,
a generator seed on one engine (the generator writes DIR/*.jsonl with
`SCRIPT --seed S --out DIR ARGS`, then each file runs), a GoogleTest binary.

Results: DIR/results.json, DIR/junit.xml, DIR/summary.txt, DIR/logs/<job>.log, and
for each failed scenario run DIR/waves/<job>/STEM.fst and .gtkw (hcasim run
--waves-on-fail: a re-run on the RTL engine traced around the failure, markers at
the breach's issue, invalidation and landing cycles). Exit 0 when every job
passed, 1 when one failed, 2 on a usage or list error (FILE:LINE: reason).
Standard library only.
"""
import argparse
import concurrent.futures as cf
import fnmatch
import glob
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

RESULTS_VERSION = 1
ENGINES = ("rtl", "model", "both", "lockstep")
KINDS = ("scenarios", "generator", "gtest")
DEFAULT_TIMEOUT = 600


class ListError(Exception):
    pass


# ------------------------------------------------------------------ the test list

def parse_seeds(text, where):
    """'A-B' (inclusive) or 'A,B,C' -> list of ints."""
    try:
        if re.fullmatch(r"\d+-\d+", text):
            lo, hi = (int(x) for x in text.split("-"))
            if hi < lo:
                raise ValueError
            return list(range(lo, hi + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ListError(f"{where}: seeds={text}: expected A-B or A,B,C (integers)") from None


def parse_list(path):
    """The entries of a test list: dicts kind, name, what, opts, args, line."""
    entries, names = [], set()
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise ListError(f"{path}: cannot read the test list: {e.strerror}") from None
    for no, raw in enumerate(lines, 1):
        where = f"{path}:{no}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words, args = shlex.split(line), []
        if "--" in words:
            i = words.index("--")
            words, args = words[:i], words[i + 1:]
        if len(words) < 3:
            raise ListError(f"{where}: expected KIND NAME WHAT [key=value…], got {raw.strip()!r}")
        kind, name, what = words[:3]
        if kind not in KINDS:
            raise ListError(f"{where}: unknown kind '{kind}' (expected {', '.join(KINDS)})")
        if name in names:
            raise ListError(f"{where}: entry name '{name}' used twice")
        names.add(name)
        opts = {}
        for w in words[3:]:
            if "=" not in w:
                raise ListError(f"{where}: '{w}': expected key=value")
            k, v = w.split("=", 1)
            opts[k] = v
        allowed = {"scenarios": {"engines", "timeout"},
                   "generator": {"engines", "timeout", "seeds"},
                   "gtest": {"timeout", "filter"}}[kind]
        for k in opts:
            if k not in allowed:
                raise ListError(f"{where}: {kind}: unknown option '{k}' (allowed: {', '.join(sorted(allowed))})")
        if "engines" in opts:
            for e in opts["engines"].split(","):
                if e not in ENGINES:
                    raise ListError(f"{where}: engines={opts['engines']}: '{e}' is not one of {', '.join(ENGINES)}")
        if "timeout" in opts and not re.fullmatch(r"\d+(\.\d+)?", opts["timeout"]):
            raise ListError(f"{where}: timeout={opts['timeout']}: expected seconds")
        if kind == "generator":
            if "seeds" not in opts:
                raise ListError(f"{where}: generator: seeds= is required (the seeds the list runs)")
            opts["seeds"] = parse_seeds(opts["seeds"], where)
        if args and kind != "generator":
            raise ListError(f"{where}: '-- ARGS' is for generators only")
        entries.append({"kind": kind, "name": name, "what": what, "opts": opts, "args": args, "line": where})
    if not entries:
        raise ListError(f"{path}: the test list has no entries")
    return entries


def file_header(path):
    """What a scenario file's leading comment lines say to the flow: the engines
    of its '# engines:' line (or None), and a malformed file's
    '# expect: line N: MESSAGE' as (N, MESSAGE) (or None): hcasim must refuse
    it with exit 2 and 'FILE:N: MESSAGE' (as test_scenario holds)."""
    engines = expect = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*engines:\s*(.*)", line)
            if m:
                engines = m.group(1).split()
            m = re.match(r"#\s*expect:\s*line (\d+): (.*)", line)
            if m:
                expect = (m.group(1), m.group(2).rstrip())
    return engines, expect


def expand(entries, root, cli):
    """Every job of the list, in a stable order (sharding depends on it)."""
    jobs = []
    engine_override = cli.engine.split(",") if cli.engine else None
    rng = random.Random(cli.seed)
    for ent in entries:
        kind, opts = ent["kind"], ent["opts"]
        timeout = float(opts.get("timeout", cli.timeout))
        engines = engine_override or opts.get("engines", "both").split(",")
        if kind == "scenarios":
            files = sorted(glob.glob(os.path.join(root, ent["what"])))
            if not files:
                raise ListError(f"{ent['line']}: {ent['what']}: no scenario file matches")
            for f in files:
                rel = os.path.relpath(f, root)
                own, expect = file_header(f)
                engs = [e for e in engines if own is None or e in own] or own
                if expect:  # a malformed file is refused before any engine runs: one run
                    engs = engs[:1]
                for e in engs:
                    jobs.append({"id": f"{ent['name']}/{os.path.basename(f)}@{e}", "entry": ent["name"],
                                 "kind": "scenario", "file": rel, "engine": e, "timeout": timeout,
                                 "expect_error": expect})
        elif kind == "generator":
            script = ent["what"]
            if not os.path.exists(os.path.join(root, script)):
                raise ListError(f"{ent['line']}: {script}: no such generator")
            seeds = opts["seeds"]
            if cli.reseed:  # fresh seeds, drawn from --seed so the run can be repeated
                seeds = [rng.randrange(1 << 31) for _ in range(cli.reseed)]
            for s in seeds:
                for e in engines:
                    jobs.append({"id": f"{ent['name']}/s{s}@{e}", "entry": ent["name"], "kind": "generator",
                                 "script": script, "args": ent["args"], "seed": s, "engine": e,
                                 "timeout": timeout})
        else:  # one job per binary; a glob names several
            binaries = [ent["what"]]
            if glob.has_magic(ent["what"]):
                binaries = sorted(os.path.relpath(b, root) for b in glob.glob(os.path.join(root, ent["what"])))
                if not binaries:
                    raise ListError(f"{ent['line']}: {ent['what']}: no binary matches (make all first)")
            for b in binaries:
                jobs.append({"id": f"{ent['name']}/{os.path.basename(b)}", "entry": ent["name"], "kind": "gtest",
                             "binary": b, "filter": opts.get("filter"), "timeout": timeout})
    ids = [j["id"] for j in jobs]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ListError(f"job '{dup}' appears twice (two entries reach the same file on one engine)")
    return jobs


def shard_of(jobs, shard):
    """Jobs of shard I of N (1-based): every N-th job, so each shard gets a mix."""
    i, n = shard
    return [j for k, j in enumerate(jobs) if k % n == i - 1]


# ------------------------------------------------------------------ running a job

def q(argv):
    return " ".join(shlex.quote(a) for a in argv)


def run_argv(argv, cwd, timeout, log):
    """Run argv in its own process group; (exit code or None on timeout, output)."""
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        rc = None
    text = out.decode("utf-8", "replace")
    log.write(f"$ {q(argv)}\n{text}")
    if rc is None:
        log.write(f"\n[regress: killed after {timeout:g} s]\n")
    return rc, text


class Runner:
    def __init__(self, cli, root, out):
        self.cli, self.root, self.out = cli, root, out
        self.hcasim = cli.hcasim

    def rel_hcasim(self):
        try:
            r = os.path.relpath(self.hcasim, self.root)
            return r if not r.startswith("..") else self.hcasim
        except ValueError:
            return self.hcasim

    def scenario_run(self, job, path, engine, log, tag):
        """hcasim run on one file; (status, message, cycles at the end, reproduce)."""
        jpath = os.path.join(self.out, "work", tag + ".json")
        argv = [self.hcasim, "run", path, "--engine", engine, "--json", jpath]
        rc, text = run_argv(argv, self.root, job["timeout"], log)
        repro = q([self.rel_hcasim(), "run", path, "--engine", engine])
        res = None
        try:
            with open(jpath) as f:
                res = json.load(f)
        except (OSError, ValueError):
            pass
        cycles = res.get("cycles") if res else None
        if rc is None:
            return "timeout", f"no result after {job['timeout']:g} s", cycles, repro
        if job.get("expect_error"):
            no, msg = job["expect_error"]
            want = f"{path}:{no}: {msg}"
            if rc == 2 and want in text:
                return "pass", "", cycles, repro
            return "fail", f"expected exit 2 and '{want}', got exit {rc}: {last_line(text)}", cycles, repro
        if rc == 0:
            return "pass", "", cycles, repro
        fail = (res or {}).get("failure") or {}
        msg = fail.get("message") or last_line(text)
        where = f"{path}:{fail['line']}: " if fail.get("line") and not msg.startswith(f"{path}:") else ""
        status = "fail" if rc == 1 else "error"
        return status, f"{where}{msg} (exit {rc})", cycles, repro

    def waves(self, job, path, res, log):
        """Re-run a failed scenario with --waves-on-fail: it runs again as it failed, then on
        the RTL traced around the failure (the breach's issue, invalidation and landing
        cycles, the divergence or the failed op), into waves/<job>/STEM.fst and .gtkw."""
        if self.cli.no_waves:
            return
        wdir = os.path.join(self.out, "waves", safe(job["id"]))
        jpath = os.path.join(self.out, "work", safe(job["id"]) + ".waves.json")
        argv = [self.hcasim, "run", path, "--engine", job["engine"], f"--waves-on-fail={wdir}",
                "--waves-window", str(self.cli.waves_window), "--json", jpath]
        log.write("\n[regress: re-run with waves]\n")
        run_argv(argv, self.root, job["timeout"] * 4, log)
        try:
            with open(jpath) as f:
                w = json.load(f).get("waves") or {}
        except (OSError, ValueError):
            w = {}
        if w.get("fst") and os.path.exists(w["fst"]):
            res["waves"] = os.path.relpath(w["fst"], self.out)
            if w.get("gtkw"):
                res["gtkw"] = os.path.relpath(w["gtkw"], self.out)
            res["markers"] = w.get("markers", {})

    def run(self, job):
        t0 = time.monotonic()
        logp = os.path.join(self.out, "logs", safe(job["id"]) + ".log")
        res = {k: job[k] for k in ("id", "entry", "kind") if k in job}
        for k in ("file", "engine", "seed", "binary"):
            if k in job:
                res[k] = job[k]
        with open(logp, "w") as log:
            if job["kind"] == "scenario":
                st, msg, cycles, repro = self.scenario_run(job, job["file"], job["engine"], log, safe(job["id"]))
                if st == "fail" and not job.get("expect_error"):  # a refused or hung run has no waves worth writing
                    self.waves(job, job["file"], res, log)
            elif job["kind"] == "generator":
                st, msg, repro = self.generator(job, log, res)
            else:
                st, msg, repro = self.gtest(job, log)
        res.update(status=st, message=msg, reproduce=repro, seconds=round(time.monotonic() - t0, 3),
                   log=os.path.relpath(logp, self.out))
        return res

    def generator(self, job, log, res):
        wdir = os.path.join(self.out, "work", safe(job["id"]))
        shutil.rmtree(wdir, ignore_errors=True)
        os.makedirs(wdir)
        gen = [sys.executable, job["script"], "--seed", str(job["seed"]), "--out", wdir] + job["args"]
        repro_gen = q(["python3", job["script"], "--seed", str(job["seed"]), "--out", "/tmp/hcasim-repro"]
                      + job["args"])
        rc, text = run_argv(gen, self.root, job["timeout"], log)
        if rc != 0:
            return ("timeout" if rc is None else "error",
                    f"generator exit {rc}: {last_line(text)}", repro_gen)
        files = sorted(glob.glob(os.path.join(wdir, "*.jsonl")))
        if not files:
            return "error", f"generator wrote no .jsonl into {wdir}", repro_gen
        for i, f in enumerate(files):
            st, msg, cycles, _ = self.scenario_run(job, f, job["engine"], log, f"{safe(job['id'])}.{i}")
            name = os.path.basename(f)
            repro = f"{repro_gen} && " + q([self.rel_hcasim(), "run", "/tmp/hcasim-repro/" + name,
                                           "--engine", job["engine"]])
            if st != "pass":
                if st == "fail":
                    self.waves(job, f, res, log)
                return st, f"{name}: {msg}", repro
        shutil.rmtree(wdir, ignore_errors=True)  # kept only when it failed
        return "pass", "", repro_gen

    def gtest(self, job, log):
        xmlp = os.path.join(self.out, "work", safe(job["id"]) + ".xml")
        argv = [job["binary"], f"--gtest_output=xml:{xmlp}"]
        if job.get("filter"):
            argv.append(f"--gtest_filter={job['filter']}")
        rc, text = run_argv(argv, self.root, job["timeout"], log)
        repro = q(argv[:1] + argv[2:])
        if rc is None:
            return "timeout", f"no result after {job['timeout']:g} s", repro
        if rc == 0:
            return "pass", "", repro
        failed = []
        try:
            for tc in ET.parse(xmlp).getroot().iter("testcase"):
                if tc.find("failure") is not None:
                    failed.append(f"{tc.get('classname')}.{tc.get('name')}")
        except (OSError, ET.ParseError):
            pass
        if failed:
            repro = q(argv[:1] + [f"--gtest_filter={':'.join(failed[:20])}"])
            return "fail", f"{len(failed)} failed: {', '.join(failed[:5])}{' …' if len(failed) > 5 else ''}", repro
        return "error", f"exit {rc}: {last_line(text)}", repro


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else "(no output)"


def safe(s):
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", s)


# ------------------------------------------------------------------ progress and reports

class Progress:
    """One live line on a terminal; a line every 10 % (or 30 s) otherwise."""

    def __init__(self, total, stream=sys.stderr):
        self.total, self.done, self.failed, self.stream = total, 0, 0, stream
        self.t0 = time.monotonic()
        self.tty = stream.isatty()
        self.last = 0.0
        self.lock = threading.Lock()

    def line(self, running):
        el = time.monotonic() - self.t0
        eta = el / self.done * (self.total - self.done) if self.done else 0
        return (f"regress: {self.done}/{self.total} done, {self.failed} failed, {running} running, "
                f"{fmt_s(el)} elapsed, ETA {fmt_s(eta) if self.done else '?'}")

    def update(self, res, running):
        with self.lock:
            self.done += 1
            if res["status"] != "pass":
                self.failed += 1
                self.emit(f"FAIL {res['id']}: {res['message']}", newline=True)
            now = time.monotonic()
            if self.tty:
                self.stream.write("\r\033[K" + self.line(running))
                self.stream.flush()
            elif (self.done * 10 // self.total != (self.done - 1) * 10 // self.total) or now - self.last > 30:
                self.last = now
                self.stream.write(self.line(running) + "\n")

    def emit(self, text, newline):
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + ("\n" if newline else ""))

    def close(self):
        if self.tty:
            self.stream.write("\r\033[K" + self.line(0) + "\n")


def fmt_s(s):
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def write_reports(out, meta, results):
    results = sorted(results, key=lambda r: r["id"])
    doc = dict(meta, version=RESULTS_VERSION, jobs=results,
               passed=sum(r["status"] == "pass" for r in results),
               failed=sum(r["status"] != "pass" for r in results))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_junit(os.path.join(out, "junit.xml"), results)
    text = summary(doc)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    return doc, text


def write_junit(path, results):
    suites = ET.Element("testsuites", name="hcasim regress", tests=str(len(results)),
                        failures=str(sum(r["status"] == "fail" for r in results)),
                        errors=str(sum(r["status"] in ("error", "timeout") for r in results)),
                        time=f"{sum(r['seconds'] for r in results):.3f}")
    by_entry = {}
    for r in results:
        by_entry.setdefault(r["entry"], []).append(r)
    for entry, rs in sorted(by_entry.items()):
        s = ET.SubElement(suites, "testsuite", name=entry, tests=str(len(rs)),
                          failures=str(sum(r["status"] == "fail" for r in rs)),
                          errors=str(sum(r["status"] in ("error", "timeout") for r in rs)),
                          time=f"{sum(r['seconds'] for r in rs):.3f}")
        for r in rs:
            name = r["id"][len(entry) + 1:] if r["id"].startswith(entry + "/") else r["id"]
            tc = ET.SubElement(s, "testcase", classname=f"hcasim.{entry}", name=name, time=f"{r['seconds']:.3f}")
            if r["status"] != "pass":
                tag = "failure" if r["status"] == "fail" else "error"
                el = ET.SubElement(tc, tag, message=r["message"], type=r["status"])
                el.text = f"reproduce: {r['reproduce']}\nlog: {r['log']}" + (
                    f"\nwaves: {r['waves']}" if r.get("waves") else "")
            ET.SubElement(tc, "system-out").text = f"reproduce: {r['reproduce']}"
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def summary(doc):
    jobs = doc["jobs"]
    bad = [r for r in jobs if r["status"] != "pass"]
    lines = []
    if bad:
        lines.append(f"{len(bad)} failing job(s):")
        for r in bad:
            lines.append(f"  {r['status'].upper():7} {r['id']}")
            lines.append(f"          {r['message']}")
            lines.append(f"          reproduce: {r['reproduce']}")
            if r.get("gtkw"):  # one click: the race view with its markers, from anywhere
                g = os.path.join(doc["out"], r["gtkw"]) if doc.get("out") else r["gtkw"]
                lines.append(f"          waves:     gtkwave {g}")
            elif r.get("waves"):
                lines.append(f"          waves:     {r['waves']}")
            lines.append(f"          log:       {r['log']}")
    by_entry = {}
    for r in jobs:
        e = by_entry.setdefault(r["entry"], [0, 0, 0.0])
        e[0 if r["status"] == "pass" else 1] += 1
        e[2] += r["seconds"]
    lines.append("entry                      passed  failed   cpu-s")
    for name, (p, f_, s) in sorted(by_entry.items()):
        lines.append(f"  {name:24} {p:6d}  {f_:6d}  {s:7.1f}")
    sh = doc.get("shard")
    lines.append(f"list {doc.get('list')}, seed {doc.get('seed')}"
                 + (f", shard {sh[0]}/{sh[1]}" if sh and sh[1] > 1 else "")
                 + (f", {fmt_s(doc['elapsed_s'])} wall on {doc.get('jobs_parallel')} jobs" if 'elapsed_s' in doc else ""))
    lines.append(f"{doc['passed']} passed, {doc['failed']} failed")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ commands

def find_root(list_path):
    d = os.path.dirname(os.path.abspath(list_path))
    while True:
        if os.path.exists(os.path.join(d, "Makefile")):
            return d
        up = os.path.dirname(d)
        if up == d:
            return os.getcwd()
        d = up


# ------------------------------------------------------------------ coverage

def device_names(root, prefix):
    """The ABI names (HCA_WC_STATUS_X -> X) the device's sources write: firmware, RTL, model."""
    names = set()
    pat = re.compile(r"HCA_" + prefix + r"_([A-Z0-9_]+)")
    for g in ("firmware/*.c", "firmware/*.h", "rtl/*.sv", "model/*.c"):
        for path in glob.glob(os.path.join(root, g)):
            with open(path, errors="replace") as f:
                names |= set(pat.findall(f.read()))
    return names


def mw_bind_rules(root):
    """The MW_BIND_ERR rules: the reasons firmware/mm.c refuses a registration or invalidation with."""
    with open(os.path.join(root, "firmware/mm.c"), errors="replace") as f:
        text = f.read()
    rules = re.findall(r'refuse\(ev, FAIL, "([^"]+)"\)|why = "([^"]+)"|return "([^"]+)";', text)
    out = []
    for t in rules:
        r = next(x for x in t if x)
        if r not in out:
            out.append(r)
    return out


def functional_points(root, runs):
    """[(group, point, hits)] over every point: the declared list, hits summed over the runs."""
    cqe, ref = {}, {}
    sums = {"fence_wait": 0, "drain_wait": 0, "peer_revoke_mid_op": 0}
    phases, depth = {}, {}
    for c in runs:
        for k, n in c.get("cqe", {}).items():
            cqe[k] = cqe.get(k, 0) + n
        for k, n in c.get("fw_refusals", {}).items():
            kind, _, why = k.partition(": ")
            if kind != "REMOTE_INV":  # its refusals are REM_INV_REQ_ERR, not MW_BIND_ERR
                ref[why] = ref.get(why, 0) + n
        for k in sums:
            sums[k] += c.get(k, 0)
        for k, n in c.get("inval_phase", {}).items():
            phases[k] = phases.get(k, 0) + n
        for k, n in c.get("klm_depth", {}).items():
            depth[k] = depth.get(k, 0) + n
    pts = []
    statuses = sorted(device_names(root, "WC_STATUS"))
    opcodes = sorted(device_names(root, "WC_OPCODE"))
    for op in opcodes:
        for st in statuses:
            pts.append(("completion status x opcode", f"{op}/{st}", cqe.get(f"{op}/{st}", 0)))
    for r in mw_bind_rules(root):
        pts.append(("MW_BIND_ERR rule", r, ref.get(r, 0)))
    pts.append(("wait entered", "translation unit fence wait", sums["fence_wait"]))
    pts.append(("wait entered", "ctx DRAIN wait", sums["drain_wait"]))
    for ph in ("before_first_chunk", "between_chunks", "after_last_chunk"):
        pts.append(("invalidation landing in an op", ph, phases.get(ph, 0)))
    for d in sorted(depth, key=int) or ["1"]:
        pts.append(("KLM depth accessed", d, depth.get(d, 0)))
    pts.append(("peer revocation", "mid-op (a WR in flight had DMA into the range)", sums["peer_revoke_mid_op"]))
    return pts


UNREACHABLE = "vectors/regress/unreachable.toml"


def unreachable(root, pts):
    """{(group, point): why} for the points vectors/regress/unreachable.toml declares the device cannot
    produce (globs over the point names of a group, less its `except` globs)."""
    import tomllib
    path = os.path.join(root, UNREACHABLE)
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        decl = tomllib.load(f).get("unreachable", [])
    out = {}
    for d in decl:
        for g, p, _ in pts:
            if g == d["group"] and any(fnmatch.fnmatchcase(p, x) for x in d["points"]) \
                    and not any(fnmatch.fnmatchcase(p, x) for x in d.get("except", [])):
                out[(g, p)] = d["why"]
    return out


def coverage_report(out, root):
    """Sum the runs' functional points (work/*.json) and merge their RTL .dat files into
    coverage/: functional.txt (holes first), functional.json, merged.dat, coverage.info, html/."""
    cdir = os.path.join(out, "coverage")
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "work", "*.json"))):
        if path.endswith(".waves.json"):
            continue
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError):
            continue
        if d.get("coverage"):
            runs.append(d["coverage"])
    pts = functional_points(root, runs)
    unr = unreachable(root, pts)
    wrong = [(g, p, n) for g, p, n in pts if n and (g, p) in unr]  # declared unreachable, yet hit
    pts_r = [x for x in pts if (x[0], x[1]) not in unr]
    holes = [p for p in pts_r if not p[2]]
    lines = [f"functional coverage over {len(runs)} runs: {len(pts_r) - len(holes)} of {len(pts_r)} points hit, "
             f"{len(unr)} more declared unreachable",
             f"holes ({len(holes) + len(wrong)}):"]
    for g, p, n in wrong:
        lines.append(f"  declared unreachable but hit {n} times ({UNREACHABLE} is wrong): {g}: {p}")
    by_group = {}
    for g, p, _ in holes:
        by_group.setdefault(g, []).append(p)
    for g, ps in by_group.items():
        if g == "completion status x opcode":  # one line per opcode: the statuses it never completed with
            per = {}
            for p in ps:
                op, _, st = p.partition("/")
                per.setdefault(op, []).append(st)
            for op, sts in per.items():
                lines.append(f"  {g}: {op} never with {', '.join(sts)}")
        else:
            for p in ps:
                lines.append(f"  {g}: {p}")
    lines.append(f"declared unreachable ({len(unr)}, {UNREACHABLE}):")
    by_why = {}
    for (g, p), why in unr.items():
        by_why.setdefault((g, why), []).append(p)
    for (g, why), ps in by_why.items():
        lines.append(f"  {g}: {', '.join(ps)} -- {why}")
    lines.append("hit:")
    for g, p, n in pts_r:
        if n:
            lines.append(f"  {g}: {p}: {n}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(cdir, "functional.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(cdir, "functional.json"), "w") as f:
        json.dump({"runs": len(runs), "points": [dict({"group": g, "point": p, "hits": n},
                                                           **({"unreachable": unr[(g, p)]} if (g, p) in unr else {}))
                                                      for g, p, n in pts]}, f, indent=1)
    summary = [f"coverage: functional {len(pts_r) - len(holes)}/{len(pts_r)} points hit, {len(holes)} holes"
               + (f", {len(wrong)} declared unreachable but hit" if wrong else "")
               + f", {len(unr)} declared unreachable ({os.path.relpath(os.path.join(cdir, 'functional.txt'), out)})"]
    dats = sorted(glob.glob(os.path.join(cdir, "dat", "*.dat")))
    if dats and shutil.which("verilator_coverage"):
        merged = os.path.join(cdir, "merged.dat")
        info = os.path.join(cdir, "coverage.info")
        subprocess.run(["verilator_coverage", "--write", merged] + dats, capture_output=True)
        subprocess.run(["verilator_coverage", "--write-info", info, merged], capture_output=True)
        rpt = subprocess.run(["verilator_coverage", "--rank", merged], capture_output=True, text=True)
        hit = tot = 0
        if os.path.exists(info):
            with open(info) as f:
                for l in f:
                    if l.startswith("DA:"):
                        tot += 1
                        hit += int(l.strip().split(",")[1]) > 0
        line = f"coverage: RTL {hit}/{tot} lines hit ({100.0 * hit / max(tot, 1):.1f} %) over {len(dats)} engine runs"
        if shutil.which("genhtml") and os.path.exists(info):
            g = subprocess.run(["genhtml", "-q", "-o", os.path.join(cdir, "html"), info], capture_output=True,
                               text=True, cwd=root)
            line += (f"; html {os.path.relpath(os.path.join(cdir, 'html', 'index.html'), out)}" if g.returncode == 0
                     else f"; genhtml failed: {last_line(g.stderr)}")
        else:
            line += "; no genhtml (Debian's lcov) for the html"
        summary.append(line)
        del rpt
    elif not dats:
        summary.append("coverage: no RTL coverage data (run the coverage build, build/coverage/hcasim, on the rtl engine)")
    with open(os.path.join(cdir, "summary.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    return "\n".join(summary) + "\n" + "\n".join(lines[:2 + min(len(lines) - 2, 40)]) + "\n"


def cmd_run(argv):
    ap = argparse.ArgumentParser(prog="hcasim regress", description="Run a test list in parallel (docs/regress.md).")
    ap.add_argument("list", nargs="?", default=None, help="the test list (default: vectors/regress/nightly.list)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs (default: cores)")
    ap.add_argument("--engine", help="run every scenario/generator job on these engines (E[,E]) instead of the list's")
    ap.add_argument("--seed", type=int, default=None, help="base seed of --reseed (default: from the clock; printed)")
    ap.add_argument("--reseed", type=int, default=0, metavar="N", help="N fresh seeds per generator instead of the list's")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="per-job timeout in seconds (entries may set their own)")
    ap.add_argument("--shard", default="1/1", help="run shard I of N (1-based) of the job list")
    ap.add_argument("--only", action="append", default=[], metavar="GLOB", help="only jobs whose id matches (repeatable)")
    ap.add_argument("--out", default=None, help="results directory (default: build/regress/latest)")
    ap.add_argument("--no-waves", action="store_true", help="do not re-run failures with waves")
    ap.add_argument("--waves-window", default="20000", metavar="B[:A]",
                    help="cycles traced before (and after) the failure (hcasim run --waves-window)")
    ap.add_argument("--list", dest="dry", action="store_true", help="print the jobs and their commands, run nothing")
    ap.add_argument("--coverage", action="store_true",
                    help="functional coverage points summed over the runs, holes first, and (with the coverage "
                         "build, build/coverage/hcasim) the RTL's line coverage merged to lcov HTML: OUT/coverage/")
    ap.add_argument("--root", help="project root the list's paths are relative to")
    ap.add_argument("--hcasim", default=os.environ.get("HCASIM_BIN"), help=argparse.SUPPRESS)
    cli = ap.parse_args(argv)
    m = re.fullmatch(r"(\d+)/(\d+)", cli.shard)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        ap.error(f"--shard {cli.shard}: expected I/N with 1 <= I <= N")
    shard = (int(m.group(1)), int(m.group(2)))
    if cli.jobs < 1:
        ap.error("-j: expected at least 1")
    if cli.engine:
        for e in cli.engine.split(","):
            if e not in ENGINES:
                ap.error(f"--engine {cli.engine}: '{e}' is not one of {', '.join(ENGINES)}")
    if cli.seed is None:
        cli.seed = int(time.time()) & 0x7FFFFFFF
    lst = cli.list
    root = os.path.abspath(cli.root) if cli.root else None
    if lst is None:
        root = root or os.getcwd()
        lst = os.path.join(root, "vectors/regress/nightly.list")
    root = root or find_root(lst)
    if not cli.hcasim:
        cli.hcasim = os.path.join(root, "build/bin/hcasim")
    cli.hcasim = os.path.abspath(cli.hcasim)
    try:
        jobs = expand(parse_list(lst), root, cli)
        if cli.only:
            jobs = [j for j in jobs if any(fnmatch.fnmatchcase(j["id"], g) for g in cli.only)]
        jobs = shard_of(jobs, shard)
        if not jobs:
            raise ListError(f"{lst}: no job left to run (--only {' '.join(cli.only)}, --shard {cli.shard})")
    except ListError as e:
        print(f"hcasim regress: {e}", file=sys.stderr)
        return 2
    for j in jobs:
        for k in ("binary",):
            if k in j and not os.access(os.path.join(root, j[k]), os.X_OK):
                print(f"hcasim regress: {j['id']}: {j[k]} is not built (make all first)", file=sys.stderr)
                return 2
    if cli.dry:
        for j in jobs:
            print(j["id"])
        print(f"{len(jobs)} jobs")
        return 0
    out = os.path.abspath(cli.out or os.path.join(root, "build/regress/latest"))
    shutil.rmtree(out, ignore_errors=True)
    for d in ("logs", "work") + (("coverage/dat",) if cli.coverage else ()):
        os.makedirs(os.path.join(out, d))
    if cli.coverage:  # a coverage build's engines write their .dat here (sim/verilated/vl_engine.h)
        os.environ["HCASIM_COVERAGE_DIR"] = os.path.join(out, "coverage", "dat")
    runner = Runner(cli, root, out)
    prog = Progress(len(jobs))
    results, t0 = [], time.monotonic()
    print(f"regress: {len(jobs)} jobs from {os.path.relpath(lst, root)} (shard {shard[0]}/{shard[1]}, "
          f"seed {cli.seed}) on {cli.jobs} jobs; results in {out}", file=sys.stderr)
    with cf.ThreadPoolExecutor(max_workers=cli.jobs) as ex:
        futs = {ex.submit(runner.run, j): j for j in jobs}
        pending = set(futs)
        try:
            for fut in cf.as_completed(futs):
                pending.discard(fut)
                res = fut.result()
                results.append(res)
                prog.update(res, min(cli.jobs, len(pending)))
        except KeyboardInterrupt:
            for f in pending:
                f.cancel()
            print("\nregress: interrupted; writing the results so far", file=sys.stderr)
    prog.close()
    meta = {"list": os.path.relpath(lst, root), "out": out, "seed": cli.seed, "reseed": cli.reseed, "shard": list(shard),
            "jobs_parallel": cli.jobs, "elapsed_s": round(time.monotonic() - t0, 1), "total_jobs": len(jobs)}
    doc, text = write_reports(out, meta, results)
    sys.stdout.write(text)
    if cli.coverage:
        sys.stdout.write(coverage_report(out, root))
    return 0 if doc["failed"] == 0 and len(results) == len(jobs) else 1


def cmd_merge(argv):
    ap = argparse.ArgumentParser(prog="hcasim regress merge", description="Join the results of a run's shards.")
    ap.add_argument("dirs", nargs="+", help="the shards' result directories")
    ap.add_argument("--out", required=True, help="where the joined results go")
    cli = ap.parse_args(argv)
    docs = []
    for d in cli.dirs:
        p = os.path.join(d, "results.json")
        try:
            with open(p) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"hcasim regress merge: {p}: {e}", file=sys.stderr)
            return 2
        if doc.get("version") != RESULTS_VERSION:
            print(f"hcasim regress merge: {p}: results version {doc.get('version')}, expected {RESULTS_VERSION}",
                  file=sys.stderr)
            return 2
        docs.append((d, doc))
    first = docs[0][1]
    n = first["shard"][1]
    seen = {}
    for d, doc in docs:
        for k in ("list", "seed", "reseed"):
            if doc.get(k) != first.get(k):
                print(f"hcasim regress merge: {d}: {k} {doc.get(k)!r} differs from {docs[0][0]}'s {first.get(k)!r}",
                      file=sys.stderr)
                return 2
        if doc["shard"][1] != n:
            print(f"hcasim regress merge: {d}: shard of {doc['shard'][1]}, others of {n}", file=sys.stderr)
            return 2
        if doc["shard"][0] in seen:
            print(f"hcasim regress merge: {d}: shard {doc['shard'][0]} also in {seen[doc['shard'][0]]}", file=sys.stderr)
            return 2
        seen[doc["shard"][0]] = d
    os.makedirs(cli.out, exist_ok=True)
    results = []
    for d, doc in docs:
        for r in doc["jobs"]:
            r = dict(r)
            for k in ("log", "waves", "gtkw"):
                if r.get(k):
                    r[k] = os.path.relpath(os.path.join(d, r[k]), cli.out)
            results.append(r)
    missing = sorted(set(range(1, n + 1)) - set(seen))
    meta = {"list": first["list"], "out": os.path.abspath(cli.out), "seed": first["seed"], "reseed": first.get("reseed", 0), "shard": [1, 1],
            "merged_shards": sorted(seen), "missing_shards": missing,
            "total_jobs": sum(doc["total_jobs"] for _, doc in docs)}
    doc, text = write_reports(cli.out, meta, results)
    sys.stdout.write(text)
    if missing:
        print(f"hcasim regress merge: shards {', '.join(map(str, missing))} of {n} missing", file=sys.stderr)
        return 1
    return 0 if doc["failed"] == 0 else 1


def main(argv):
    if argv and argv[0] == "merge":
        return cmd_merge(argv[1:])
    return cmd_run(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
