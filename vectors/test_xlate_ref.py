#!/usr/bin/env python3
"""Unit tests of the translation-unit reference model (vectors/xlate_ref.py).

Expected beats here are worked out by hand from SEMANTICS.md and the
translation contract, not from the model, so the model is trustworthy on its
own before it writes golden vectors.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xlate_ref import (ALL, DMA, FREE, INDIRECT, KLM, LW, MTT, RA, REGULAR, RR, RW,  # noqa: E402
                       ST, TWO64, VALID, Beat, Req, XlateRef, abi, make_key, mpt_words, mtt_words)
OK = ST["OK"]

IDX = 5
KEY = make_key(IDX, 0x3c)
PD = 0x42
IOVA = 0x10000 + 0x234  # first-byte offset 0x234 in a 4K page
LENGTH = 0x3000  # touches pages 0..3 of the MR
PFNS = [0x100, 0x2a0, 0x333, 0x7]  # 4K page frames, any order


def one(status, tag=0):
    return [Beat(tag, status, 0, 0, 1)]


class Base(unittest.TestCase):
    def setUp(self):
        self.u = XlateRef()
        self.mr()
        for i, pfn in enumerate(PFNS):
            self.u.write_mtt(i, mtt_words(present=1, pfn=pfn))

    def mr(self, index=IDX, **over):
        f = dict(alloc=1, state=VALID, kind=REGULAR, mode=MTT, access=ALL, page_shift=12,
                 key=KEY, pd=PD, mtt_base=0, iova=IOVA, length=LENGTH, mtt_count=len(PFNS))
        f.update(over)
        self.u.write_mpt(index, mpt_words(**f))

    def x(self, va=IOVA, length=0x10, rights=0, remote=0, key=KEY, pd=PD, tag=0):
        return self.u.translate(Req(tag, key, pd, va, length, rights, remote))


class TestOk(Base):
    def test_inside_first_page(self):
        self.assertEqual(self.x(va=IOVA, length=0x10, tag=9),
                         [Beat(9, OK, 0x100234, 0x10, 1)])

    def test_split_at_pages_with_first_byte_offset(self):
        # [IOVA, IOVA+0x2000): page 0 from 0x234 (0xdcc bytes), all of page 1, 0x234 of page 2
        self.assertEqual(self.x(length=0x2000), [
            Beat(0, OK, 0x100234, 0xdcc, 0),
            Beat(0, OK, 0x2a0000, 0x1000, 0),
            Beat(0, OK, 0x333000, 0x234, 1)])

    def test_whole_mr(self):
        self.assertEqual(self.x(length=LENGTH), [
            Beat(0, OK, 0x100234, 0xdcc, 0),
            Beat(0, OK, 0x2a0000, 0x1000, 0),
            Beat(0, OK, 0x333000, 0x1000, 0),
            Beat(0, OK, 0x7000, 0x234, 1)])

    def test_ends_exactly_at_page_end(self):
        self.assertEqual(self.x(va=0x10f00, length=0x100), [Beat(0, OK, 0x100f00, 0x100, 1)])

    def test_one_byte_across_seam(self):
        self.assertEqual(self.x(va=0x10fff, length=2), [
            Beat(0, OK, 0x100fff, 1, 0), Beat(0, OK, 0x2a0000, 1, 1)])

    def test_starts_at_page_start(self):
        self.assertEqual(self.x(va=0x12000, length=0x10), [Beat(0, OK, 0x333000, 0x10, 1)])

    def test_all_rights_local_and_remote(self):
        self.assertEqual(self.x(rights=ALL)[0].status, OK)
        self.assertEqual(self.x(rights=RR | RW | RA, remote=1)[0].status, OK)

    def test_pd_high_bits_of_entry_ignored(self):
        self.mr(pd=0xff000000 | PD)
        self.assertEqual(self.x()[0].status, OK)

    def test_pfn_plus_offset_is_an_add(self):
        # pa = (pfn << 12) + off, even for a pfn not aligned to a 2M page
        self.mr(page_shift=21, iova=0x200000 + 0x1234, length=0x100, mtt_count=1)
        self.u.write_mtt(0, mtt_words(present=1, pfn=0x401))
        self.assertEqual(self.x(va=0x201234, length=0x10), [Beat(0, OK, 0x401000 + 0x1234, 0x10, 1)])


class TestPages(Base):
    def test_2m(self):
        self.mr(page_shift=21, iova=0x40000000 + 0x1ff000, length=0x400000, mtt_count=3)
        self.u.write_mtt(0, mtt_words(present=1, pfn=0x600000 >> 12))
        self.u.write_mtt(1, mtt_words(present=1, pfn=0x200000 >> 12))
        self.u.write_mtt(2, mtt_words(present=1, pfn=0xa00000 >> 12))
        self.assertEqual(self.x(va=0x401ff800, length=0x201000), [
            Beat(0, OK, 0x7ff800, 0x800, 0),
            Beat(0, OK, 0x200000, 0x200000, 0),
            Beat(0, OK, 0xa00000, 0x800, 1)])

    def test_1g_max_len(self):
        self.mr(page_shift=30, iova=0x3fff_fff0, length=1 << 33, mtt_count=9)
        for i in range(9):
            self.u.write_mtt(i, mtt_words(present=1, pfn=((i + 1) << 30) >> 12))
        beats = self.x(va=0x3fff_fff0, length=0xffff_ffff)
        self.assertEqual(beats, [
            Beat(0, OK, 0x7fff_fff0, 0x10, 0),
            Beat(0, OK, 0x8000_0000, 1 << 30, 0),
            Beat(0, OK, 0xc000_0000, 1 << 30, 0),
            Beat(0, OK, 0x1_0000_0000, 1 << 30, 0),
            Beat(0, OK, 0x1_4000_0000, (1 << 30) - 0x11, 1)])

    def test_mr_ending_at_2_64(self):
        self.mr(iova=TWO64 - 0x2000, length=0x2000, mtt_count=2)
        self.assertEqual(self.x(va=TWO64 - 0x1001, length=0x1001), [
            Beat(0, OK, 0x100fff, 1, 0), Beat(0, OK, 0x2a0000, 0x1000, 1)])
        self.assertEqual(self.x(va=TWO64 - 1, length=2), one(ST["ERR_BOUNDS"]))


class TestRulesAlone(Base):
    """Each rule failing while every other one holds."""

    def test_rule1_index0(self):
        self.mr(index=0, key=make_key(0, 0x3c))
        self.assertEqual(self.x(key=make_key(0, 0x3c)), one(ST["ERR_SLOT"]))

    def test_rule1_beyond_table(self):
        self.assertEqual(self.x(key=make_key(abi.MPT_ENTRIES_DEFAULT, 0x3c)), one(ST["ERR_SLOT"]))
        self.assertEqual(self.x(key=make_key(0xffffff, 0x3c)), one(ST["ERR_SLOT"]))

    def test_rule1_last_slot_ok(self):
        last = abi.MPT_ENTRIES_DEFAULT - 1
        self.mr(index=last, key=make_key(last, 1))
        self.assertEqual(self.x(key=make_key(last, 1))[0].status, OK)

    def test_rule1_not_allocated(self):
        self.mr(alloc=0)
        self.assertEqual(self.x(), one(ST["ERR_SLOT"]))
        self.assertEqual(self.x(key=make_key(IDX + 1, 0x3c)), one(ST["ERR_SLOT"]))

    def test_rule2_key_byte(self):
        self.assertEqual(self.x(key=make_key(IDX, 0x3d)), one(ST["ERR_KEY"]))
        self.assertEqual(self.x(key=make_key(IDX, 0x3d), remote=1), one(ST["ERR_KEY"]))

    def test_rule2_stored_key_index_differs(self):
        # the full 32-bit stored key is compared, index bits included
        self.mr(key=make_key(IDX + 1, 0x3c))
        self.assertEqual(self.x(), one(ST["ERR_KEY"]))

    def test_rule2_remote_without_remote_right(self):
        self.mr(access=LW)
        self.assertEqual(self.x(), [Beat(0, OK, 0x100234, 0x10, 1)])
        self.assertEqual(self.x(remote=1), one(ST["ERR_KEY"]))
        for right in (RR, RW, RA):
            self.mr(access=right | LW)
            self.assertEqual(self.x(remote=1)[0].status, OK)

    def test_rule2_remote_dma(self):
        self.mr(kind=DMA, access=ALL)
        self.assertEqual(self.x(remote=1), one(ST["ERR_KEY"]))

    def test_rule3_state(self):
        self.mr(state=FREE)
        self.assertEqual(self.x(), one(ST["ERR_STATE"]))
        self.assertEqual(self.x(remote=1), one(ST["ERR_STATE"]))

    def test_rule3_invalidate(self):
        self.u.invalidate(IDX)
        self.assertEqual(self.x(), one(ST["ERR_STATE"]))
        e = self.u.mpt_entry(IDX)
        self.assertEqual((e["alloc"], e["key"], e["iova"], e["access"]), (1, KEY, IOVA, ALL))

    def test_rule4_pd(self):
        self.assertEqual(self.x(pd=PD + 1), one(ST["ERR_PD"]))
        self.assertEqual(self.x(pd=PD + 1, remote=1), one(ST["ERR_PD"]))

    def test_rule5_each_right(self):
        for right in (LW, RR, RW, RA):
            self.mr(access=ALL & ~right)
            self.assertEqual(self.x(rights=right), one(ST["ERR_RIGHTS"]), hex(right))
            if right != RR:
                self.assertEqual(self.x(rights=right, remote=1), one(ST["ERR_RIGHTS"]))

    def test_rule6_bounds(self):
        B = one(ST["ERR_BOUNDS"])
        self.assertEqual(self.x(va=IOVA - 1, length=1), B)
        self.assertEqual(self.x(va=IOVA + LENGTH - 0x10, length=0x11), B)
        self.assertEqual(self.x(va=IOVA, length=LENGTH + 1), B)
        self.assertEqual(self.x(va=IOVA + LENGTH, length=1), B)
        self.assertEqual(self.x(va=IOVA + LENGTH - 1, length=1)[-1], Beat(0, OK, 0x7233, 1, 1))
        self.assertEqual(self.x(va=TWO64 - 1, length=2, remote=1), B)

    def test_rule6_no_wrap(self):
        # va + len would wrap 2^64 to a small number inside the MR
        self.mr(iova=0, length=0x1000, mtt_count=1)
        self.assertEqual(self.x(va=TWO64 - 0x10, length=0x20), one(ST["ERR_BOUNDS"]))
        # length - len would wrap if len > length were not checked first
        self.assertEqual(self.x(va=0, length=0x1001), one(ST["ERR_BOUNDS"]))

    def test_mode_klm_of_a_dma_mr(self):
        self.mr(kind=DMA, mode=KLM)
        self.assertEqual(self.x(), one(ST["ERR_MODE"]))
        self.assertEqual(self.x(length=0), one(ST["ERR_MODE"]))


class TestKlm(Base):
    """Rule 7: an indirect MR maps its range onto its KLM entries end to end;
    each entry touched is a local access with its own key in the same PD."""

    KIDX = 9
    KKEY = make_key(9, 0x77)
    KIOVA = 0x7000_0001  # odd, on purpose

    def klm(self, index, key, entries, base, iova, access=ALL, length=None, pd=PD):
        for i, (addr, ln, lkey) in enumerate(entries):
            self.u.write_mtt(base + 2 * i, [addr & 0xffffffff, addr >> 32])
            self.u.write_mtt(base + 2 * i + 1, [ln, lkey])
        total = sum(ln for _, ln, _ in entries) if length is None else length
        self.u.write_mpt(index, mpt_words(alloc=1, state=VALID, kind=INDIRECT, mode=KLM, access=access,
                                          page_shift=12, key=key, pd=pd, mtt_base=base, iova=iova,
                                          length=total, mtt_count=2 * len(entries)))

    def k(self, **kw):
        kw.setdefault("key", self.KKEY)
        kw.setdefault("va", self.KIOVA)
        return self.x(**kw)

    def test_entries_in_order_split_at_pages(self):
        # MR IDX: IOVA 0x10234, pages 0x100, 0x2a0, 0x333, 0x7 (4K)
        self.klm(self.KIDX, self.KKEY, [(0x10f01, 0x200, KEY), (0xabc001, 1, abi.RESERVED_LKEY),
                                        (0x11000, 0x10, KEY)], 0x100, self.KIOVA)
        self.assertEqual(self.k(length=0x211, rights=LW), [
            Beat(0, OK, 0x100f01, 0xff, 0), Beat(0, OK, 0x2a0000, 0x101, 0),
            Beat(0, OK, 0xabc001, 1, 0), Beat(0, OK, 0x2a0000, 0x10, 1)])
        # start in the middle of the list, a single-byte entry
        self.assertEqual(self.k(va=self.KIOVA + 0x200, length=2), [
            Beat(0, OK, 0xabc001, 1, 0), Beat(0, OK, 0x2a0000, 1, 1)])
        self.assertEqual(self.k(va=self.KIOVA + 0x210, length=1), [Beat(0, OK, 0x2a000f, 1, 1)])
        self.assertEqual(self.k(va=self.KIOVA + 0x210, length=2), one(ST["ERR_BOUNDS"]))
        self.assertEqual(self.k(length=0), one(OK))

    def test_indirect_mr_rules_then_entries_as_local(self):
        self.mr(access=LW)  # the entry's MR is local-only
        self.klm(self.KIDX, self.KKEY, [(IOVA, 0x100, KEY)], 0x100, self.KIOVA, access=LW | RR)
        self.assertEqual(self.k(length=0x10, rights=RR, remote=1), [Beat(0, OK, 0x100234, 0x10, 1)])
        self.assertEqual(self.k(length=0x10, rights=RW, remote=1), one(ST["ERR_RIGHTS"]))  # the indirect MR's
        self.mr(access=0)  # read-only entry: a write needs LOCAL_WRITE on it, a read nothing
        self.assertEqual(self.k(length=0x10, rights=LW), one(ST["ERR_RIGHTS"]))
        self.assertEqual(self.k(length=0x10, rights=RR, remote=1), [Beat(0, OK, 0x100234, 0x10, 1)])
        self.klm(self.KIDX, self.KKEY, [(IOVA, 0x100, KEY)], 0x100, self.KIOVA, access=LW)
        self.assertEqual(self.k(length=0x10, remote=1), one(ST["ERR_KEY"]))  # no R_Key on the indirect MR

    def test_entry_failures_after_ok_beats(self):
        self.mr(state=VALID)
        for bad, status in (((IOVA, 0x100, make_key(77, 1)), "ERR_SLOT"),
                            ((IOVA, 0x100, make_key(IDX, 0x3d)), "ERR_KEY"),
                            ((IOVA + LENGTH - 8, 0x100, KEY), "ERR_BOUNDS")):
            self.klm(self.KIDX, self.KKEY, [(IOVA, 0x10, KEY), bad], 0x100, self.KIOVA)
            self.assertEqual(self.k(length=0x20), [Beat(0, OK, 0x100234, 0x10, 0), Beat(0, ST[status], 0, 0, 1)])
        self.klm(self.KIDX, self.KKEY, [(IOVA, 0x10, KEY)], 0x100, self.KIOVA, pd=PD + 1)
        self.assertEqual(self.k(length=0x10, pd=PD + 1), one(ST["ERR_PD"]))  # the entry's MR is in PD
        self.mr(state=FREE)
        self.klm(self.KIDX, self.KKEY, [(IOVA, 0x10, KEY)], 0x100, self.KIOVA)
        self.assertEqual(self.k(length=0x10), one(ST["ERR_STATE"]))

    def test_runs_off_the_list(self):
        self.klm(self.KIDX, self.KKEY, [(IOVA, 0x10, KEY)], 0x100, self.KIOVA, length=0x20)
        self.assertEqual(self.k(length=0x20), [Beat(0, OK, 0x100234, 0x10, 0), one(ST["ERR_MTT"])[0]])

    def test_nesting_and_max_indirection(self):
        # 12 -> 11 -> 10 -> KIDX -> MR IDX: four indirect MRs
        self.klm(self.KIDX, self.KKEY, [(IOVA + 8, 0x100, KEY)], 0x100, self.KIOVA)
        prev_key, prev_iova = self.KKEY, self.KIOVA
        for idx in (10, 11, 12, 13):
            self.klm(idx, make_key(idx, 1), [(prev_iova, 0x100, prev_key)], 0x100 + 4 * idx, 0x1000 * idx)
            prev_key, prev_iova = make_key(idx, 1), 0x1000 * idx
        ok = [Beat(0, OK, 0x10023c, 0x10, 1)]
        self.assertEqual(self.x(key=make_key(12, 1), va=0xc000, length=0x10), ok)
        self.assertEqual(self.x(key=make_key(13, 1), va=0xd000, length=0x10), one(ST["ERR_DEPTH"]))
        self.assertEqual(self.u.set_max_indirection(0), abi.MAX_INDIRECTION)  # refused
        self.assertEqual(self.u.set_max_indirection(abi.MAX_INDIRECTION + 1), abi.MAX_INDIRECTION)
        self.assertEqual(self.u.set_max_indirection(2), 2)
        self.assertEqual(self.x(key=make_key(10, 1), va=0xa000, length=0x10), ok)
        self.assertEqual(self.x(key=make_key(11, 1), va=0xb000, length=0x10), one(ST["ERR_DEPTH"]))
        self.u.set_max_indirection(1)
        self.assertEqual(self.k(length=0x10), ok)
        self.assertEqual(self.x(key=make_key(10, 1), va=0xa000, length=0x10), one(ST["ERR_DEPTH"]))


class TestOrder(Base):
    """First failure wins."""

    def test_chain(self):
        self.mr(state=FREE, pd=PD + 1, access=0, mode=KLM, iova=0x900000)
        self.assertEqual(self.x(key=make_key(IDX, 0)), one(ST["ERR_KEY"]))
        self.assertEqual(self.x(rights=LW), one(ST["ERR_STATE"]))
        self.mr(pd=PD + 1, access=0, mode=KLM, iova=0x900000)
        self.assertEqual(self.x(rights=LW), one(ST["ERR_PD"]))
        self.mr(access=0, mode=KLM, iova=0x900000)
        self.assertEqual(self.x(rights=LW), one(ST["ERR_RIGHTS"]))
        self.mr(mode=KLM, iova=0x900000)
        self.assertEqual(self.x(rights=LW), one(ST["ERR_BOUNDS"]))
        self.mr(mode=KLM, mtt_count=0, page_shift=0)
        self.assertEqual(self.x(rights=LW), one(ST["ERR_MTT"]))  # an empty KLM list, after rules 1-6
        self.mr(alloc=0, state=FREE, key=0)
        self.assertEqual(self.x(key=make_key(IDX, 0), remote=1, pd=7, rights=ALL), one(ST["ERR_SLOT"]))

    def test_remote_key_before_state(self):
        self.mr(state=FREE, access=LW)
        self.assertEqual(self.x(remote=1), one(ST["ERR_KEY"]))


class TestMtt(Base):
    def test_page_shift_range(self):
        for ps in (0, 11, 31):
            self.mr(page_shift=ps)
            self.assertEqual(self.x(), one(ST["ERR_MTT"]), ps)
        for ps in (abi.PAGE_SHIFT_MIN, abi.PAGE_SHIFT_MAX):
            self.mr(page_shift=ps, iova=0, length=0x100, mtt_count=1)
            self.assertEqual(self.x(va=0x10), [Beat(0, OK, 0x100010, 0x10, 1)])

    def test_beyond_count_mid_request(self):
        self.mr(mtt_count=2)
        self.assertEqual(self.x(va=0x11ff0, length=0x20), [
            Beat(0, OK, 0x2a0ff0, 0x10, 0), Beat(0, ST["ERR_MTT"], 0, 0, 1)])

    def test_absent_mid_request(self):
        self.u.write_mtt(2, mtt_words(present=0, pfn=0x333))
        self.assertEqual(self.x(length=0x3000), [
            Beat(0, OK, 0x100234, 0xdcc, 0),
            Beat(0, OK, 0x2a0000, 0x1000, 0),
            Beat(0, ST["ERR_MTT"], 0, 0, 1)])

    def test_never_written_entry_absent(self):
        self.mr(mtt_base=100)
        self.assertEqual(self.x(), one(ST["ERR_MTT"]))

    def test_beyond_mtt_table(self):
        last = abi.MTT_ENTRIES_DEFAULT - 1
        self.u.write_mtt(last, mtt_words(present=1, pfn=0x55))
        self.mr(mtt_base=last)
        self.assertEqual(self.x(va=0x10ff0, length=0x20), [
            Beat(0, OK, 0x55ff0, 0x10, 0), Beat(0, ST["ERR_MTT"], 0, 0, 1)])

    def test_mtt_base_32bit_wrap(self):
        # mtt_base + page = 2^32 must not wrap onto MTT[0]
        self.mr(mtt_base=0xffffffff, mtt_count=4)
        self.assertEqual(self.x(va=0x11000, length=0x10), one(ST["ERR_MTT"]))

    def test_rewrite_mtt(self):
        self.u.write_mtt(0, mtt_words(present=1, pfn=0xabc))
        self.assertEqual(self.x(), [Beat(0, OK, 0xabc234, 0x10, 1)])

    def test_peer_and_low_bits_ignored(self):
        self.u.write_mtt(0, [mtt_words(present=1, peer=1, pfn=0x100)[0] | 0xffc, 0])
        self.assertEqual(self.x(), [Beat(0, OK, 0x100234, 0x10, 1)])


class TestZeroLength(Base):
    def test_inside_and_edges(self):
        Z = [Beat(0, OK, 0, 0, 1)]
        self.assertEqual(self.x(length=0), Z)
        self.assertEqual(self.x(va=IOVA + LENGTH, length=0), Z)
        self.assertEqual(self.x(va=IOVA + LENGTH + 1, length=0), one(ST["ERR_BOUNDS"]))
        self.assertEqual(self.x(va=IOVA - 1, length=0), one(ST["ERR_BOUNDS"]))

    def test_checks_still_apply(self):
        self.assertEqual(self.x(length=0, key=make_key(IDX, 0)), one(ST["ERR_KEY"]))
        self.assertEqual(self.x(length=0, pd=1), one(ST["ERR_PD"]))

    def test_no_page_touched(self):
        self.mr(mtt_base=1000)  # no MTT entry present there
        self.assertEqual(self.x(length=0), [Beat(0, OK, 0, 0, 1)])
        self.mr(page_shift=0)  # page size only matters once a page is touched
        self.assertEqual(self.x(length=0), [Beat(0, OK, 0, 0, 1)])


class TestReservedKey(Base):
    R = abi.RESERVED_LKEY

    def test_no_split_any_pd(self):
        self.assertEqual(self.x(key=self.R, va=0x1ff0, length=0x3000, pd=0xabcdef, tag=3),
                         [Beat(3, OK, 0x1ff0, 0x3000, 1)])

    def test_ignores_mpt0(self):
        self.mr(index=0, key=self.R, state=FREE, access=0, pd=9)
        self.assertEqual(self.x(key=self.R, rights=LW), [Beat(0, OK, IOVA, 0x10, 1)])

    def test_rights_remote_bounds(self):
        self.assertEqual(self.x(key=self.R, remote=1), one(ST["ERR_KEY"]))
        for right in (RR, RW, RA):
            self.assertEqual(self.x(key=self.R, rights=LW | right), one(ST["ERR_RIGHTS"]))
        self.assertEqual(self.x(key=self.R, va=TWO64 - 1, length=1), [Beat(0, OK, TWO64 - 1, 1, 1)])
        self.assertEqual(self.x(key=self.R, va=TWO64 - 1, length=2), one(ST["ERR_BOUNDS"]))
        self.assertEqual(self.x(key=self.R, va=TWO64 - 1, length=0), [Beat(0, OK, 0, 0, 1)])
        self.assertEqual(self.x(key=self.R, remote=1, rights=RR, va=TWO64 - 1, length=2),
                         one(ST["ERR_KEY"]))
        self.assertEqual(self.x(key=self.R, rights=RR, va=TWO64 - 1, length=2), one(ST["ERR_RIGHTS"]))

    def test_other_index0_keys_are_slot_errors(self):
        self.assertEqual(self.x(key=self.R + 1), one(ST["ERR_SLOT"]))
        self.assertEqual(self.x(key=0), one(ST["ERR_SLOT"]))


class TestDma(Base):
    def setUp(self):
        super().setUp()
        self.mr(kind=DMA, access=LW, iova=0x5000, length=0x10, mtt_count=0, page_shift=0)

    def test_untranslated_unchecked_range(self):
        self.assertEqual(self.x(va=0x1ff0, length=0x3000, rights=LW),
                         [Beat(0, OK, 0x1ff0, 0x3000, 1)])

    def test_2_64(self):
        self.assertEqual(self.x(va=TWO64 - 0x10, length=0x10), [Beat(0, OK, TWO64 - 0x10, 0x10, 1)])
        self.assertEqual(self.x(va=TWO64 - 0x10, length=0x11), one(ST["ERR_BOUNDS"]))
        self.assertEqual(self.x(va=TWO64 - 0x10, length=0), [Beat(0, OK, 0, 0, 1)])

    def test_other_rules_apply(self):
        self.assertEqual(self.x(pd=PD + 1), one(ST["ERR_PD"]))
        self.assertEqual(self.x(rights=RR), one(ST["ERR_RIGHTS"]))
        self.assertEqual(self.x(remote=1), one(ST["ERR_KEY"]))
        self.mr(kind=DMA, state=FREE)
        self.assertEqual(self.x(), one(ST["ERR_STATE"]))
        self.mr(kind=DMA, mode=KLM)
        self.assertEqual(self.x(), one(ST["ERR_MODE"]))


class TestPort(unittest.TestCase):
    def test_reset_state(self):
        u = XlateRef()
        self.assertEqual(u.translate(Req(0, make_key(1, 0), 0, 0, 1, 0, 0)), one(ST["ERR_SLOT"]))
        self.assertEqual(u.mtt_entry(0)["present"], 0)

    def test_bad_arguments(self):
        u = XlateRef()
        with self.assertRaises(ValueError):
            u.write_mpt(abi.MPT_ENTRIES_DEFAULT, [0] * 10)
        with self.assertRaises(ValueError):
            u.write_mtt(0, [0])
        with self.assertRaises(ValueError):
            u.translate(Req(0, 0, 0, 0, 1 << 32, 0, 0))
        with self.assertRaises(ValueError):
            u.translate(Req(0, 0, 1 << 24, 0, 0, 0, 0))

    def test_words_follow_abi(self):
        w = mpt_words(alloc=1, state=VALID, access=LW, key=0x12345678, iova=0x1_0000_0002)
        self.assertEqual(w[1], 0x12345678)
        self.assertEqual((w[4], w[5]), (2, 1))
        self.assertEqual(mtt_words(present=1, pfn=0x12345_6789a), [0x6789a001, 0x12345])


if __name__ == "__main__":
    unittest.main()
