#!/usr/bin/env python3
"""The regression flow's own tests (`make regress-selftest`): `hcasim regress` run
as a user runs it, on small lists written here, through the real hcasim binary
(HCASIM_BIN). Standard library only."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HCASIM = os.environ.get("HCASIM_BIN", os.path.join(ROOT, "build/bin/hcasim"))

SETUP = [
    {"op": "alloc_pd", "pd": "pd0"},
    {"op": "host_alloc", "buf": "b", "size": 4096, "fill": "pattern"},
]
PASSING = SETUP + [{"op": "check_mem", "buf": "b", "offset": 1, "length": 2, "hex": "0102"}]
FAILING = SETUP + [{"op": "check_mem", "buf": "b", "offset": 1, "length": 2, "hex": "0103"}]
# Runs far longer than its entry's 1 s timeout allows: 10^12 idle cycles,
# every one evaluated with HCASIM_RTL_SKIP=0 (the mixed run's environment;
# an idle device is otherwise skipped through on either engine).
ENDLESS = SETUP + [{"op": "run", "cycles": 10 ** 12}]

GENERATOR = '''import argparse, json, os
ap = argparse.ArgumentParser(); ap.add_argument("--seed", type=int); ap.add_argument("--out")
ap.add_argument("--bad", action="store_true")
a = ap.parse_args()
ops = [{"op": "alloc_pd", "pd": "pd0"}, {"op": "host_alloc", "buf": "b", "size": 64, "fill": "pattern"},
       {"op": "check_mem", "buf": "b", "offset": 3, "length": 1, "hex": "%02x" % (3 if not (a.bad and a.seed % 2) else 4)}]
open(os.path.join(a.out, "gen_s%d.jsonl" % a.seed), "w").write("\\n".join(json.dumps(o) for o in ops) + "\\n")
'''


def write_jsonl(path, ops, head=""):
    with open(path, "w") as f:
        f.write(head + "".join(json.dumps(o) + "\n" for o in ops))


class Regress(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="regress-selftest-")
        self.d = self.tmp.name
        open(os.path.join(self.d, "Makefile"), "w").close()  # the list's root
        os.makedirs(os.path.join(self.d, "s"))
        write_jsonl(os.path.join(self.d, "s/pass.jsonl"), PASSING)
        write_jsonl(os.path.join(self.d, "s/fail.jsonl"), FAILING)
        write_jsonl(os.path.join(self.d, "endless.jsonl"), ENDLESS)
        write_jsonl(os.path.join(self.d, "malformed.jsonl"), [{"op": "alloc_pd"}],
                    head="# expect: line 2: op alloc_pd: field \"pd\": missing\n")
        with open(os.path.join(self.d, "gen.py"), "w") as f:
            f.write(GENERATOR)

    def tearDown(self):
        self.tmp.cleanup()

    def lst(self, text, name="t.list"):
        p = os.path.join(self.d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def regress(self, *args, env=None):
        p = subprocess.run([HCASIM, "regress", *args], capture_output=True, text=True, timeout=600, env=env)
        return p.returncode, p.stdout, p.stderr

    def results(self, out):
        with open(os.path.join(out, "results.json")) as f:
            return json.load(f)

    def test_list_errors_name_file_and_line(self):
        cases = [
            ("scenarios a s/*.jsonl\nbogus b x\n", ":2: unknown kind 'bogus'"),
            ("scenarios a s/*.jsonl engines=rtl,fpga\n", ":1: engines=rtl,fpga: 'fpga' is not one of"),
            ("generator g gen.py\n", ":1: generator: seeds= is required"),
            ("generator g gen.py seeds=5-2\n", ":1: seeds=5-2: expected A-B or A,B,C"),
            ("scenarios a nothing/*.jsonl\n", ":1: nothing/*.jsonl: no scenario file matches"),
            ("scenarios a s/*.jsonl\nscenarios a s/*.jsonl\n", ":2: entry name 'a' used twice"),
            ("scenarios a s/*.jsonl colour=red\n", ":1: scenarios: unknown option 'colour'"),
            ("# only a comment\n", "the test list has no entries"),
        ]
        for text, want in cases:
            p = self.lst(text)
            rc, out, err = self.regress(p, "--out", os.path.join(self.d, "o"))
            self.assertEqual(rc, 2, f"{text!r}: expected exit 2, got {rc}\n{err}")
            self.assertIn(p + want if want.startswith(":") else want, err, f"list {text!r}")

    def test_a_mixed_run_reports_each_outcome(self):
        p = self.lst("scenarios ok s/pass.jsonl engines=model,rtl\n"
                     "scenarios bad s/fail.jsonl engines=model\n"
                     "scenarios hang endless.jsonl engines=rtl timeout=1\n"
                     "scenarios refused malformed.jsonl engines=model\n"
                     "generator gen gen.py seeds=1,2 engines=model -- --bad\n"
                     f"gtest json {os.path.relpath(os.path.join(ROOT, 'build/bin/test_json'), self.d)} "
                     "filter=Json.*\n")
        out = os.path.join(self.d, "out")
        rc, stdout, err = self.regress(p, "-j", "2", "--out", out, env=dict(os.environ, HCASIM_RTL_SKIP="0"))
        self.assertEqual(rc, 1, f"a failing job must fail the run\n{stdout}\n{err}")
        doc = self.results(out)
        st = {j["id"]: j["status"] for j in doc["jobs"]}
        want = {"ok/pass.jsonl@model": "pass", "ok/pass.jsonl@rtl": "pass", "bad/fail.jsonl@model": "fail",
                "hang/endless.jsonl@rtl": "timeout", "refused/malformed.jsonl@model": "pass",
                "gen/s1@model": "fail", "gen/s2@model": "pass", "json/test_json": "pass"}
        self.assertEqual(st, want)
        bad = next(j for j in doc["jobs"] if j["id"] == "bad/fail.jsonl@model")
        self.assertIn("s/fail.jsonl:3: op check_mem", bad["message"])
        self.assertIn("check_mem", bad["message"])
        self.assertTrue(bad["reproduce"].endswith("run s/fail.jsonl --engine model"), bad["reproduce"])
        # The failure re-ran on the RTL engine with waves; the FST is there.
        self.assertTrue(bad.get("waves"), bad)
        self.assertGreater(os.path.getsize(os.path.join(out, bad["waves"])), 0)
        # ... with the race view beside it, markers at the failing op, one click from the summary.
        self.assertTrue(bad.get("gtkw") and os.path.exists(os.path.join(out, bad["gtkw"])), bad)
        self.assertIn("fail", bad.get("markers", {}), bad)
        self.assertIn(f"waves:     gtkwave {os.path.join(out, bad['gtkw'])}", stdout)
        gen = next(j for j in doc["jobs"] if j["id"] == "gen/s1@model")
        self.assertIn("--seed 1", gen["reproduce"])
        self.assertIn("gen_s1.jsonl", gen["message"])
        # JUnit: one suite per entry, failures and errors counted.
        root = ET.parse(os.path.join(out, "junit.xml")).getroot()
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("errors")), ("8", "2", "1"))
        names = sorted(s.get("name") for s in root.iter("testsuite"))
        self.assertEqual(names, ["bad", "gen", "hang", "json", "ok", "refused"])
        fails = [tc.get("name") for tc in root.iter("testcase") if tc.find("failure") is not None]
        self.assertEqual(sorted(fails), ["fail.jsonl@model", "s1@model"])
        # The summary: failures first, the count last.
        lines = stdout.strip().splitlines()
        self.assertTrue(lines[0].startswith("3 failing job(s)"), lines[0])
        self.assertEqual(lines[-1], "5 passed, 3 failed")

    def test_shards_partition_and_merge_joins(self):
        p = self.lst("scenarios ok s/*.jsonl engines=model,rtl\n"
                     "generator gen gen.py seeds=1-5 engines=model\n")
        _, full, _ = self.regress(p, "--list")
        _, s1, _ = self.regress(p, "--list", "--shard", "1/2")
        _, s2, _ = self.regress(p, "--list", "--shard", "2/2")
        ids = lambda t: set(t.strip().splitlines()[:-1])
        self.assertEqual(len(ids(full)), 9)
        self.assertEqual(ids(s1) | ids(s2), ids(full))
        self.assertFalse(ids(s1) & ids(s2))
        o1, o2, m = (os.path.join(self.d, x) for x in ("o1", "o2", "m"))
        self.regress(p, "--shard", "1/2", "--out", o1, "--seed", "7", "--no-waves")
        self.regress(p, "--shard", "2/2", "--out", o2, "--seed", "7", "--no-waves")
        rc, stdout, err = self.regress("merge", o1, o2, "--out", m)
        self.assertEqual(rc, 1, err)  # fail.jsonl fails on both engines
        doc = self.results(m)
        self.assertEqual(len(doc["jobs"]), 9)
        self.assertEqual(stdout.strip().splitlines()[-1], "7 passed, 2 failed")
        self.assertTrue(os.path.exists(os.path.join(m, doc["jobs"][0]["log"])), "logs reachable from the merge")
        rc, _, err = self.regress("merge", o1, "--out", m)
        self.assertEqual(rc, 1)
        self.assertIn("shards 2 of 2 missing", err)
        rc, _, err = self.regress("merge", o1, o1, "--out", m)
        self.assertEqual(rc, 2)
        self.assertIn("shard 1 also in", err)

    def test_farm_array_scripts_run_their_shard(self):
        """The Slurm and LSF scripts, given the variables their schedulers set."""
        p = self.lst("scenarios ok s/pass.jsonl engines=model,rtl\n"
                     "generator gen gen.py seeds=1-3 engines=model\n")
        farm = os.path.join(ROOT, "sim/runner/farm")
        arrays = {"regress.sbatch": {"SLURM_ARRAY_TASK_ID": "{i}", "SLURM_ARRAY_TASK_COUNT": "2",
                                     "SLURM_ARRAY_JOB_ID": "42", "SLURM_CPUS_PER_TASK": "1"},
                  "regress.lsf": {"LSB_JOBINDEX": "{i}", "LSB_JOBINDEX_END": "2", "LSB_JOBID": "42"}}
        for script, env in arrays.items():
            res = os.path.join(self.d, "res-" + script)
            for i in (1, 2):
                e = dict(os.environ, HCASIM=HCASIM, HCASIM_REGRESS_OUT=res,
                         **{k: v.format(i=i) for k, v in env.items()})
                r = subprocess.run(["bash", os.path.join(farm, script), p, "--no-waves"], cwd=self.d, env=e,
                                   capture_output=True, text=True, timeout=300)
                self.assertEqual(r.returncode, 0, f"{script} shard {i}: {r.stdout}{r.stderr}")
                doc = self.results(os.path.join(res, "42", f"shard{i}"))
                self.assertEqual((doc["shard"], doc["seed"]), ([i, 2], 42), script)
            rc, stdout, err = self.regress("merge", os.path.join(res, "42", "shard1"), os.path.join(res, "42", "shard2"),
                                           "--out", os.path.join(res, "merged"))
            self.assertEqual((rc, stdout.strip().splitlines()[-1]), (0, "5 passed, 0 failed"), script + err)
        r = subprocess.run(["bash", os.path.join(farm, "regress.sbatch")], cwd=self.d, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("submit with sbatch --array=1-N", r.stderr)

    def test_reseed_draws_repeatable_fresh_seeds(self):
        p = self.lst("generator gen gen.py seeds=1,2 engines=model\n")
        _, a, _ = self.regress(p, "--list", "--reseed", "4", "--seed", "99")
        _, b, _ = self.regress(p, "--list", "--reseed", "4", "--seed", "99")
        _, c, _ = self.regress(p, "--list", "--reseed", "4", "--seed", "100")
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertEqual(len(a.strip().splitlines()), 5)
        self.assertNotIn("gen/s1@model", a)
        _, d, _ = self.regress(p, "--list")
        self.assertEqual(d.strip().splitlines()[:2], ["gen/s1@model", "gen/s2@model"])
        _, e, _ = self.regress(p, "--list", "--only", "*s2@*")
        self.assertEqual(e.strip().splitlines(), ["gen/s2@model", "1 jobs"])
        rc, _, err = self.regress(p, "--list", "--only", "nothing*")
        self.assertEqual(rc, 2)
        self.assertIn("no job left to run", err)


if __name__ == "__main__":
    r = unittest.main(verbosity=2, exit=False).result
    sys.exit(0 if r.wasSuccessful() else 1)
