#!/usr/bin/env python3
"""Waves where they matter and coverage (docs/waves.md, docs/regress.md "Coverage"):

  waves_on_fail   a race file that breaches under the no_drain firmware mutant, run on
                  the model engine with --waves-on-fail: the RTL re-run's FST holds the
                  breach cycle inside its window, the .gtkw carries markers at the
                  breach's issue, invalidation and landing cycles (the --json fields)
  trace_when      two --trace-when line= triggers far apart: both windows are in the one
                  FST, and the cycles between them are not
  txn_names       the same breach: the runner's txn.* variables in that FST (breach pulse,
                  key, QP; the key invalidated; the WRs in flight; the op line; the
                  firmware function) at the cycles --json gives
  txn_receive     the receive WRs and completions in txn.qp.NAME (SEND_WITH_INV's R_Key)
  one_eval_instants  an RTL run traced in three --trace-when windows: each signal of
                  the core changes at edge instants only, the clocks and the runner's
                  txn.* variables aside (one evaluation per traced cycle, docs/engine.md);
                  the same file stepped (HCASIM_RTL_SKIP=0) and checked (=check)
  coverage        hcasim regress --coverage over two scenarios through the coverage
                  build: the functional report has the points those files are known
                  to hit, holes listed first, and the RTL line coverage merged to HTML

Run: HCASIM_BIN=build/bin/hcasim [HCASIM_COV_BIN=build/coverage/hcasim]
     FW_MUTANT=build/firmware/mutants/hcafw_no_drain.elf python3 testbench/test_waves.py [TEST]
Standard library only; fst2vcd (GTKWave) reads the dumps.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HCASIM = os.environ.get("HCASIM_BIN", os.path.join(ROOT, "build/bin/hcasim"))
COV_BIN = os.environ.get("HCASIM_COV_BIN", os.path.join(ROOT, "build/coverage/hcasim"))
FW_MUTANT = os.environ.get("FW_MUTANT", os.path.join(ROOT, "build/firmware/mutants/hcafw_no_drain.elf"))
RACE = "vectors/directed/race_linv_read_mtu512_x16.jsonl"
TICKS = 10  # TRACE_TICKS_PER_CYCLE (abi/hca.toml): device cycle C is at time C * TICKS


def ticks_of(abi=os.path.join(ROOT, "abi/hca.toml")):
    import tomllib
    with open(abi, "rb") as f:
        return next(c["value"] for c in tomllib.load(f)["const"] if c["name"] == "TRACE_TICKS_PER_CYCLE")


def dumped_cycles(fst):
    """The set of device cycles the FST has a time stamp in."""
    p = subprocess.run(["fst2vcd", fst], capture_output=True, text=True, errors="replace")
    if p.returncode:
        raise AssertionError(f"fst2vcd {fst}: exit {p.returncode}: {p.stderr[-300:]}")
    t = ticks_of()
    return {int(l[1:]) // t for l in p.stdout.splitlines() if l.startswith("#")}


def txn_changes(fst):
    """{txn variable: [(cycle, value), ...]} from the FST's value changes (each
    cycle's first dump: the clock-low tick)."""
    p = subprocess.run(["fst2vcd", fst], capture_output=True, text=True, errors="replace")
    if p.returncode:
        raise AssertionError(f"fst2vcd {fst}: exit {p.returncode}: {p.stderr[-300:]}")
    ids, scope, out, t, body = {}, [], {}, 0, False
    tk = ticks_of()
    for line in p.stdout.splitlines():
        w = line.split()
        if not body:
            if w and w[0] == "$scope":
                scope.append(w[2])
            elif w and w[0] == "$upscope":
                scope.pop()
            elif w and w[0] == "$var" and scope and scope[0] == "txn":
                ids.setdefault(w[3], []).append(".".join(scope + [w[4]]))
            elif w and w[0] == "$enddefinitions":
                body = True
            continue
        if line.startswith("#"):
            t = int(line[1:])
            continue
        val, vid = (w[0][1:], w[1]) if line.startswith("b") else (line[:1], line[1:])
        for name in ids.get(vid, []):
            out.setdefault(name, []).append((t // tk, int(val, 2)))
    return out


def read(path):
    with open(path) as f:
        return f.read()


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=900, **kw)


class Waves(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="hcasim-waves-")

    def tearDown(self):
        shutil.rmtree(self.d, ignore_errors=True)

    def test_waves_on_fail(self):
        wdir, js = os.path.join(self.d, "w"), os.path.join(self.d, "r.json")
        p = run([HCASIM, "run", RACE, "--engine", "model", "--firmware", FW_MUTANT, f"--waves-on-fail={wdir}",
                 "--waves-window", "300:100", "--json", js])
        self.assertEqual(p.returncode, 1, f"the mutant must breach: expected exit 1, got {p.returncode}\n{p.stderr}")
        doc = json.loads(read(js))
        b = doc["breaches"][0]
        for k in ("issue_cycle", "inval_req_cycle", "inval_cycle", "land_cycle", "qpn", "key"):
            self.assertIsNotNone(b.get(k), f"breach field {k}: {b}")
        self.assertTrue(b["issue_cycle"] < b["land_cycle"] and b["inval_cycle"] <= b["land_cycle"], b)
        w = doc["waves"]
        self.assertTrue(w["reproduced"], w)
        self.assertEqual(w["engine"], "rtl")
        cyc = dumped_cycles(w["fst"])
        for k in ("issue_cycle", "inval_cycle", "land_cycle"):
            self.assertIn(b[k], cyc, f"{k} {b[k]} is not in the FST's window {min(cyc)}..{max(cyc)}")
        self.assertIn(b["cycle"], cyc)
        lo, hi = w["windows"][0]
        self.assertEqual((min(cyc), max(cyc) + 1), (lo, hi), "the FST holds exactly its window")
        self.assertEqual(lo, min(b["issue_cycle"], b["inval_req_cycle"]) - 300, "300 cycles before the first")
        gtkw = read(w["gtkw"])
        for name, k in (("issue", "issue_cycle"), ("inval", "inval_cycle"), ("land", "land_cycle")):
            self.assertRegex(gtkw, rf"marker [A-Z]: {name} at cycle {b[k]}\n", f"no {name} marker in {w['gtkw']}")
        marks = re.search(r"^\*-?[0-9.]+ -?\d+ (.*)$", gtkw, re.M).group(1).split()
        # GTKWave's marker line, in its time unit (the dump's timescale times TRACE_TICKS_PER_CYCLE per cycle)
        unit = int(marks[0]) // b["issue_cycle"]
        self.assertEqual(int(marks[0]), b["issue_cycle"] * unit)
        self.assertEqual(unit % ticks_of(), 0, marks)
        self.assertIn(str(b["land_cycle"] * unit), marks, "GTKWave's marker line holds the landing time")
        self.assertIn(f"view: gtkwave {w['gtkw']}", p.stdout)

    def test_txn_names(self):
        """The runner's transaction names in the RTL's FST (docs/waves.md "Transaction names"): the
        breach, the key invalidated, the WR in flight on the QPs the file names, the op line, the
        firmware function, each at the cycles the run's --json gives."""
        wdir, js = os.path.join(self.d, "w"), os.path.join(self.d, "r.json")
        p = run([HCASIM, "run", RACE, "--engine", "model", "--firmware", FW_MUTANT, f"--waves-on-fail={wdir}",
                 "--waves-window", "2000:100", "--json", js])
        self.assertEqual(p.returncode, 1, p.stderr)
        doc = json.loads(read(js))
        b, w = doc["breaches"][0], doc["waves"]
        ch = txn_changes(w["fst"])
        # the round that breached, found from the run (not a round number: the device's timing picks
        # it): the LOCAL_INV posted last before the invalidation's request, the RDMA_READ posted last
        # before that line on another QP (the round's probe READ comes after its LOCAL_INV)
        wrs = sorted(doc["wrs"], key=lambda x: x["line"])
        inv = [x for x in wrs if x["opcode"] == "LOCAL_INV" and x["post_cycle"] <= b["inval_req_cycle"]][-1]
        rd = [x for x in wrs if x["opcode"] == "RDMA_READ" and x["line"] < inv["line"] and x["qp"] != inv["qp"]][-1]
        qp = f"txn.qp.{rd['qp']}"
        for v in ("txn.scn.line", "txn.scn.op", "txn.mm.inval_key", "txn.check.breach", "txn.fw.func",
                  f"txn.qp.{inv['qp']}.opcode", f"{qp}.wr_id"):
            self.assertIn(v, ch, f"{v} is not in {w['fst']} (has {sorted(ch)[:8]}...)")
        # the breaches: one pulse each, at the checker's cycle or the next; the first with its key and QP
        ones = [c for c, v in ch["txn.check.breach"] if v == 1]
        self.assertEqual(len(ones), len(doc["breaches"]), f"txn.check.breach pulses {ones}, breaches "
                         f"{[x['cycle'] for x in doc['breaches']]}")
        for c, x in zip(ones, doc["breaches"]):
            self.assertIn(c - x["cycle"], (0, 1), f"breach pulse at {c}, the checker saw it at {x['cycle']}")
        self.assertIn((ones[0], int(b["key"], 16) if isinstance(b["key"], str) else b["key"]),
                      ch["txn.check.breach_key"], "breach_key is the breach's key from then")
        self.assertIn((ones[0], b["qpn"]), ch["txn.check.breach_qpn"])
        # the invalidation: inval_key holds the key from its request to its completion, key_invalid then
        key = int(b["key"], 16) if isinstance(b["key"], str) else b["key"]
        up = [c for c, v in ch["txn.mm.inval_key"] if v == key]
        down = [c for c, v in ch["txn.mm.key_invalid"] if v == key]
        self.assertTrue(up and up[0] - b["inval_req_cycle"] in (0, 1), f"inval_key {key:#x} at {up}, "
                        f"requested at {b['inval_req_cycle']}")
        self.assertTrue(down and down[0] - b["inval_cycle"] in (0, 1), f"key_invalid {key:#x} at {down}, "
                        f"completed at {b['inval_cycle']}")
        # the WRs in flight: the LOCAL_INV on qc from its post, the READ it raced on its QP
        self.assertEqual(inv["qp"], "qc", inv)
        self.assertIn((inv["post_cycle"], inv["wr_id"]), ch["txn.qp.qc.wr_id"], "qc's WR from its post")
        self.assertIn((inv["post_cycle"], inv["line"]), ch["txn.qp.qc.line"])
        self.assertIn((inv["post_cycle"], 5), ch["txn.qp.qc.opcode"], "LOCAL_INV is wr_opcode 5")
        lo = w["windows"][0][0]
        rd_at = (max(rd["post_cycle"], lo), rd["wr_id"])  # posted in the window, or in flight from its start
        self.assertIn(rd_at, ch[f"{qp}.wr_id"], f"{rd['qp']}'s READ ({rd['wr_id']}, posted at "
                      f"{rd['post_cycle']}): {ch[f'{qp}.wr_id']}")
        # the scenario line when the breach landed: the poll that fails (a post takes no cycle)
        at = [v for c, v in ch["txn.scn.line"] if c <= ones[0]][-1]
        self.assertEqual(at, doc["failure"]["line"], f"txn.scn.line at the breach: {ch['txn.scn.line']}")
        self.assertTrue(any(v for _, v in ch["txn.fw.func"]), "the firmware named running in the window")
        # the race view names them, enum-typed ones displayed by name (GTKWave's enum flag)
        gtkw = read(w["gtkw"])
        self.assertRegex(gtkw, r"@1[0-9a-f]{8}\ntxn\.qp\.qc\.opcode\[7:0\]", "opcode shown by its enum")
        self.assertIn("txn.check.breach\n", gtkw)

    def test_txn_receive(self):
        """The receive side of txn.qp.NAME: the oldest receive WR outstanding from its post, each
        receive completion (a pulse, its wr_id and status) and the R_Key a SEND_WITH_INV invalidated
        with it (0 for a plain SEND), at the cycles --json gives."""
        f = "vectors/directed/mm_send_inv_success.jsonl"
        fst, js = os.path.join(self.d, "r.fst"), os.path.join(self.d, "r.json")
        p = run([HCASIM, "run", f, "--engine", "rtl", "--trace", fst, "--json", js])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(read(js))
        ch = txn_changes(fst)

        def at(name, cycle):  # the variable's value during cycle
            return [v for c, v in ch[name] if c <= cycle][-1]

        recvs = [x for x in doc["wrs"] if x["opcode"] == "RECV"]
        self.assertGreaterEqual(len(recvs), 2, doc["wrs"])
        with_inv = 0
        for x in recvs:
            q = f"txn.qp.{x['qp']}"
            self.assertEqual(at(f"{q}.rq_wr_id", x["post_cycle"]), x["wr_id"], f"{x}: {ch[f'{q}.rq_wr_id']}")
            self.assertEqual(at(f"{q}.rq_line", x["post_cycle"]), x["line"], x)
            self.assertGreaterEqual(at(f"{q}.rq_outstanding", x["post_cycle"]), 1, x)
            c = x["completion_cycle"]
            self.assertEqual(at(f"{q}.rq_cqe", c), 1, f"{x}: rq_cqe pulses {ch[f'{q}.rq_cqe']}")
            self.assertEqual(at(f"{q}.rq_cqe", c + 1), 0, x)
            self.assertEqual(at(f"{q}.rq_cqe_wr_id", c), x["wr_id"], x)
            self.assertEqual(at(f"{q}.rq_cqe_status", c), 0, "SUCCESS is wc_status 0")
            # the file's SEND_WITH_INV lands on the receives of lines 31 and 44 (fb's key 42, then fc's)
            rkey = at(f"{q}.rq_inv_rkey", c)
            if x["line"] in (31, 44):
                self.assertNotEqual(rkey, 0, f"{x}: no invalidated R_Key: {ch[f'{q}.rq_inv_rkey']}")
                with_inv += 1
            else:
                self.assertEqual(rkey, 0, f"{x}: a plain SEND invalidates nothing")
        self.assertEqual(at("txn.qp.qb.rq_inv_rkey", recvs[1]["completion_cycle"]) & 0xff, 42, "fb's key byte")
        self.assertEqual(with_inv, 2)
        self.assertEqual(ch["txn.qp.qa.rq_outstanding"], [(0, 0)], "qa posts no receive")

    def test_trace_when_windows(self):
        fst, js = os.path.join(self.d, "t.fst"), os.path.join(self.d, "t.json")
        f = "vectors/directed/mm_linv_success.jsonl"
        # line 18: the FAST_REG_MR's poll; line 26: the LOCAL_INV's poll (thousands of cycles later)
        p = run([HCASIM, "run", f, "--engine", "model", "--trace", fst, "--trace-when", "line=18@20:10",
                 "--trace-when", "line=26@20:10", "--json", js, "-v"])
        self.assertEqual(p.returncode, 0, p.stderr)
        span = {}
        for l in p.stdout.splitlines():  # -v: "cycle C  line L  op ok": the cycle each op ended
            m = re.match(r"cycle\s+(\d+)\s+line\s+(\d+)\s", l)
            if m:
                span[int(m.group(2))] = int(m.group(1))
        w = json.loads(read(js))["waves"]
        self.assertEqual(len(w["windows"]), 2, w)
        cyc = dumped_cycles(fst)
        (a0, a1), (b0, b1) = w["windows"]
        self.assertGreater(b0, a1 + 100, "the two windows are apart")
        self.assertIn(span[18], cyc, "line 18's end is in the first window")
        self.assertIn(span[26], cyc, "line 26's end is in the second window")
        self.assertTrue(all(a0 <= c < a1 or b0 <= c < b1 for c in cyc), "a cycle outside both windows was dumped")
        self.assertFalse(any(a1 + 1 < c < b0 for c in cyc), "the gap between the windows is not in the file")
        self.assertTrue(os.path.exists(w["gtkw"]))

    def test_one_eval_instants(self):
        sys.path.insert(0, os.path.join(ROOT, "sim/runner"))
        import wave_instants
        when = ["--trace-when", "line=20@20:10", "--trace-when", "line=41@100:300", "--trace-when", "line=30@20:10"]
        body = {}
        for skip in ("", "0", "check"):
            fst = os.path.join(self.d, f"e{skip}.fst")
            p = run([HCASIM, "run", RACE, "--engine", "rtl", "--trace", fst] + when,
                    env=dict(os.environ, HCASIM_RTL_SKIP=skip))
            self.assertEqual(p.returncode, 0, f"HCASIM_RTL_SKIP={skip}: {p.stderr[-500:]}")
            body[skip] = wave_instants.Dump(fst)
        d, tk = body[""], ticks_of()
        for skip in ("0", "check"):
            self.assertEqual((body[skip].names, body[skip].ev, body[skip].times), (d.names, d.ev, d.times),
                             f"HCASIM_RTL_SKIP={skip}: the waves differ from the skipping run's")
        starts = d.starts(tk // 2)
        self.assertEqual(len(starts), 3, "three windows")
        self.assertTrue(all(a < b for a, b in zip(d.times, d.times[1:])), "time stamps not increasing")
        low = sorted(n for n in d.names if any(t % tk == 0 for t, _ in d.changes(n) if t not in starts)
                     and not n.endswith(".clk_i") and n != "clk_i" and not n.startswith("txn."))
        self.assertEqual(low, [], "signals that change at a clock-low instant (expected: at the edge only)")
        edge = [n for n in d.names if any(t % tk == tk // 2 for t, _ in d.changes(n))]
        self.assertGreater(len(edge), 100, "the core's signals change at the edges")

    def test_trace_when_names(self):
        # mr=NAME is mpt= of that MR's index (f0: alloc_mr on line 17 says "key 0x00000301": index 3)
        f = "vectors/directed/mm_linv_success.jsonl"
        got = {}
        for expr in ("mr=f0@5:5", "mpt=3@5:5"):
            js = os.path.join(self.d, "n.json")
            p = run([HCASIM, "run", f, "--engine", "model", "--trace", os.path.join(self.d, "n.fst"),
                     "--trace-when", expr, "--json", js, "-v"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("line   17  alloc_mr                 ok  key 0x00000301", p.stdout)
            got[expr] = json.loads(read(js))["waves"]["windows"]
        self.assertGreater(len(got["mpt=3@5:5"]), 2, "the MR's registration, use and invalidation")
        # the same windows once the MR exists (mpt= also sees its creation, before the name is bound)
        self.assertEqual(got["mr=f0@5:5"], [w for w in got["mpt=3@5:5"] if w[0] >= got["mr=f0@5:5"][0][0]])


class Coverage(unittest.TestCase):
    def test_coverage_report(self):
        d = tempfile.mkdtemp(prefix="hcasim-cov-")
        try:
            lst = os.path.join(d, "cov.list")
            with open(lst, "w") as fh:
                fh.write(f"scenarios linv {ROOT}/vectors/directed/mm_linv_success.jsonl engines=rtl\n"
                         f"scenarios race {ROOT}/{RACE} engines=model\n")
            out = os.path.join(d, "out")
            p = run([COV_BIN, "regress", lst, "--root", ROOT, "--coverage", "--no-waves", "--out", out, "-j", "2"])
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            text = read(os.path.join(out, "coverage/functional.txt"))
            hits = {l.strip().rsplit(": ", 1)[0]: int(l.rsplit(": ", 1)[1]) for l in text.split("hit:\n")[1].splitlines()}
            for point in ("completion status x opcode: LOCAL_INV/SUCCESS",
                          "completion status x opcode: RDMA_WRITE/REM_ACCESS_ERR",
                          "completion status x opcode: RDMA_READ/REM_ACCESS_ERR",
                          "wait entered: ctx DRAIN wait",
                          "invalidation landing in an op: between_chunks"):
                self.assertGreater(hits.get(point, 0), 0, f"{point} not hit:\n{text}")
            head = text.splitlines()
            self.assertRegex(head[0], r"^functional coverage over 2 runs: \d+ of \d+ points hit, \d+ more declared "
                                      r"unreachable$")
            self.assertTrue(head[1].startswith("holes ("), "holes come first")
            self.assertIn("peer revocation: mid-op", text.split("declared unreachable (")[0], "no peer file ran: a hole")
            # a declared-unreachable point is listed apart from the holes, with why, and not counted in them
            unr = text.split("declared unreachable (")[1].split("hit:\n")[0]
            self.assertIn("SEND/GENERAL_ERR", unr)
            self.assertNotIn("GENERAL_ERR", text.split("declared unreachable (")[0])
            pts = json.loads(read(os.path.join(out, "coverage/functional.json")))["points"]
            self.assertTrue(any(p.get("unreachable") for p in pts if p["point"] == "SEND/GENERAL_ERR"))
            info = read(os.path.join(out, "coverage/coverage.info"))
            das = [int(l.split(",")[1]) for l in info.splitlines() if l.startswith("DA:")]
            self.assertTrue(das and any(das) and not all(das), "RTL lines: some hit, some not")
            self.assertTrue(os.path.exists(os.path.join(out, "coverage/html/index.html")))
            self.assertRegex(p.stdout, r"coverage: RTL \d+/\d+ lines hit")
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
