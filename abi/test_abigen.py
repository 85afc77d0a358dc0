#!/usr/bin/env python3
"""abigen refuses a broken ABI source and names the item at fault."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GOOD = open(os.path.join(HERE, "hca.toml")).read()


def run(src_text):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "abi.toml")
        with open(src, "w") as f:
            f.write(src_text)
        p = subprocess.run([sys.executable, os.path.join(HERE, "abigen.py"), "--src", src, "--out", d],
                           capture_output=True, text=True)
        outs = {n: open(os.path.join(d, n)).read() for n in ("hca_abi.h", "hca_abi.svh", "hca_abi.py")
                if os.path.exists(os.path.join(d, n))}
        return p.returncode, p.stderr, outs


class Refusals(unittest.TestCase):
    def refused(self, text, needle):
        rc, err, outs = run(text)
        self.assertEqual(rc, 2, f"expected exit 2, got {rc}; stderr: {err}")
        self.assertIn(needle, err)
        self.assertEqual(outs, {}, "nothing may be written from a refused source")

    def test_good_source_generates_all_three(self):
        rc, err, outs = run(GOOD)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(outs), ["hca_abi.h", "hca_abi.py", "hca_abi.svh"])

    def test_duplicate_const(self):
        self.refused(GOOD + '\n[[const]]\nname = "KEY_BITS"\nvalue = 1\n', "KEY_BITS is defined twice")

    def test_enum_value_too_wide(self):
        self.refused(GOOD + '\n[[enum]]\nname = "tiny"\nwidth = 1\nvalues = [["A", 2, ""]]\n',
                     "A=2 does not fit 1 bits")

    def test_struct_overlap(self):
        bad = GOOD.replace('{ name = "pd", offset = 8,', '{ name = "pd", offset = 4,')
        self.refused(bad, "mpt_entry")

    def test_struct_misaligned(self):
        bad = GOOD.replace('{ name = "iova", offset = 16,', '{ name = "iova", offset = 12,')
        self.refused(bad, "iova: offset 12 not aligned")

    def test_bitfield_overlap(self):
        bad = GOOD.replace('{ name = "mode", lsb = 4,', '{ name = "mode", lsb = 3,')
        self.refused(bad, "mode: overlaps")

    def test_unknown_enum_reference(self):
        bad = GOOD.replace('enum = "mkey_kind"', 'enum = "no_such_enum"')
        self.refused(bad, "unknown enum no_such_enum")

    def test_register_overlap(self):
        bad = GOOD.replace('{ name = "CMD", offset = 0x30,', '{ name = "CMD", offset = 0x24,')
        self.refused(bad, "misaligned or overlapping")

    def test_array_of_struct_and_of_scalars_generate(self):
        rc, err, outs = run(GOOD)
        self.assertEqual(rc, 0, err)
        self.assertIn("hca_sge_t sge[4];", outs["hca_abi.h"])
        self.assertIn("uint64_t rdata[16];", outs["hca_abi.h"])
        self.assertIn("`define HCA_SQ_WQE_SGE(v, i) v[512 + (i) * 128 +: 128]", outs["hca_abi.svh"])
        self.assertIn('"sge[3]": (896, 128)', outs["hca_abi.py"])

    def test_bitmap_runs_and_masks(self):
        rc, err, outs = run(GOOD)
        self.assertEqual(rc, 0, err)
        h = outs["hca_abi.h"]
        self.assertIn("#define HCA_DRAIN_SRC_WQE_READS_LSB 6u", h)
        self.assertIn("#define HCA_DRAIN_SRC_WQE_READS_WIDTH 9u", h)  # 1 + SQ_PREFETCH_READS
        self.assertIn("#define HCA_DRAIN_SOURCES 19u", h)
        self.assertIn("#define HCA_DRAIN_KEYED_MASK 0x3803fu", h)
        # a run added before the CQ writer moves it and widens the count; the mask follows its runs
        more = GOOD.replace('  ["CQ_WRITER", 1,', '  ["EXTRA", 2, ""],\n  ["CQ_WRITER", 1,')
        rc, err, outs = run(more)
        self.assertEqual(rc, 0, err)
        self.assertIn("#define HCA_DRAIN_SRC_CQ_WRITER_LSB 20u", outs["hca_abi.h"])
        self.assertIn("`define HCA_DRAIN_SOURCES 21", outs["hca_abi.svh"])
        self.assertIn("DRAIN_KEYED_MASK = 0x3803f", outs["hca_abi.py"])

    def test_bitmap_bad_width_expression(self):
        bad = GOOD.replace('"1 + SQ_PREFETCH_READS"', '"1 + NO_SUCH_CONST"')
        self.refused(bad, "bitmap DRAIN_SRC.WQE_READS: '1 + NO_SUCH_CONST' is not an integer expression")

    def test_bitmap_mask_unknown_run(self):
        bad = GOOD.replace('fields = ["SEND", "RESPONSE", "RESPONDER"]', 'fields = ["SEND", "NOPE"]')
        self.refused(bad, "mask DRAIN_KEYED_MASK names unknown run NOPE")

    def test_array_of_unknown_struct(self):
        bad = GOOD.replace('{ name = "sge", offset = 64, type = "sge", count = 4 }',
                           '{ name = "sge", offset = 64, type = "nosuch", count = 4 }')
        self.refused(bad, "unknown type nosuch")

    def test_array_past_the_struct_end(self):
        bad = GOOD.replace('{ name = "sge", offset = 64, type = "sge", count = 4 }',
                           '{ name = "sge", offset = 64, type = "sge", count = 5 }')
        self.refused(bad, "sq_wqe.sge: ends past size 128")

    def test_array_field_with_bits(self):
        bad = GOOD.replace('{ name = "data", offset = 32, type = "u64", count = 4, doc = "WRITE_DATA payload" }',
                           '{ name = "data", offset = 32, type = "u64", count = 4, bits = [{ name = "x", lsb = 0, width = 1 }] }')
        self.refused(bad, "an array field has no bit fields")

    def test_not_toml(self):
        self.refused("this is [not toml", "abi.toml")


if __name__ == "__main__":
    unittest.main(verbosity=1)
