#!/usr/bin/env python3
"""Write the translation unit's golden vectors from the Python reference model.

    vectors/gen_xlate_vectors.py [--seed N] [--count N] [--out DIR] [--check]

Writes DIR/directed.vec (hand-picked cases: each rule of SEMANTICS.md "The key
check" failing alone, local and remote; first-failure-wins chains; page seams
and first-byte offsets at 4K/2M/1G; the 2^64 edge; zero length; the reserved
L_Key; DMA MRs; ERR_MTT and ERR_MODE; KLM lists of indirect MRs, nesting and
ERR_DEPTH; invalidation) and DIR/random.vec
(--count requests over random tables, with table writes interleaved).
Format: docs/xlate-vectors.md. Output depends only on the arguments.

--check regenerates in memory and exits 1 if the files in DIR differ (stale
vectors: run without --check and commit the result).
"""
import argparse
import collections
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from xlate_ref import (A, REMOTE_RIGHTS, ST, STATUS_NAME, TWO64, Req, XlateRef,  # noqa: E402
                       abi, key_index, make_key, mpt_words, mtt_words)

DEFAULT_SEED = 1
DEFAULT_COUNT = 4000
DEFAULT_OUT = os.path.join(HERE, "xlate")

LW, RR, RW, RA = A["LOCAL_WRITE"], A["REMOTE_READ"], A["REMOTE_WRITE"], A["REMOTE_ATOMIC"]
ALL = LW | RR | RW | RA
VALID, FREE = abi.MKEY_STATE_VALID, abi.MKEY_STATE_FREE
REGULAR, FAST_REG, INDIRECT, DMA = (abi.MKEY_KIND_REGULAR, abi.MKEY_KIND_FAST_REG,
                                    abi.MKEY_KIND_INDIRECT, abi.MKEY_KIND_DMA)
MTT, KLM = abi.MKEY_MODE_MTT, abi.MKEY_MODE_KLM
RKEY = abi.RESERVED_LKEY
MPT_N, MTT_N = abi.MPT_ENTRIES_DEFAULT, abi.MTT_ENTRIES_DEFAULT
PFN_BITS = abi.MTT_ENTRY_FIELDS["pfn"][1]
LEN_MAX = (1 << abi.XU_LEN_BITS) - 1
PD_MAX = (1 << abi.PD_BITS) - 1


class VecWriter:
    """Applies table records to a reference unit and writes them, with each
    request's expected beats, as .vec lines."""

    def __init__(self, header):
        self.ref = XlateRef()
        self.lines = [f"# {h}" if h else "#" for h in header]
        self.tag = 0
        self.final = collections.Counter()  # final status of each request
        self.beats = 0

    def comment(self, text):
        self.lines.append(f"# {text}")

    def mpt(self, index, **fields):
        words = mpt_words(**fields)
        self.ref.write_mpt(index, words)
        self.lines.append(f"mpt {index:x} " + " ".join(f"{w:x}" for w in words))

    def mtt(self, index, present=1, pfn=0):
        words = mtt_words(present=present, pfn=pfn)
        self.ref.write_mtt(index, words)
        self.lines.append(f"mtt {index:x} {words[0]:x} {words[1]:x}")

    def mtt_word(self, index, word):
        """MTT[index] <- a 64-bit word as it is (a KLM entry word)."""
        words = [word & 0xffffffff, word >> 32]
        self.ref.write_mtt(index, words)
        self.lines.append(f"mtt {index:x} {words[0]:x} {words[1]:x}")

    def klm_list(self, base, entries):
        """A KLM list as firmware/mm.c reg_indir writes it: entry i at MTT
        base + 2i (addr) and base + 2i + 1 (length | lkey << 32)."""
        for i, (addr, length, lkey) in enumerate(entries):
            self.mtt_word(base + 2 * i, addr)
            self.mtt_word(base + 2 * i + 1, length | lkey << 32)

    def inv(self, index):
        self.ref.invalidate(index)
        self.lines.append(f"inv {index:x}")

    def req(self, key, pd, va, length, rights=0, remote=0, want=None):
        """Write one request and its beats; want (a status name) asserts the
        outcome the case was written for: the last beat's status, every earlier
        beat OK."""
        r = Req(self.tag, key, pd, va, length, rights, remote)
        self.tag = (self.tag + 1) & ((1 << abi.XU_TAG_BITS) - 1)
        beats = self.ref.translate(r)
        if want is not None:
            got = [STATUS_NAME[b.status] for b in beats]
            if got[-1] != want or any(s != "OK" for s in got[:-1]):
                raise AssertionError(f"directed case {r} wants {want}, reference says {got}")
        self.lines.append(f"req {r.tag:x} {r.key:x} {r.pd:x} {r.va:x} {r.len:x} {r.rights:x} {r.remote:x}")
        for b in beats:
            self.lines.append(f"exp {b.tag:x} {b.status:x} {b.pa:x} {b.len:x} {b.last:x}")
        self.final[STATUS_NAME[beats[-1].status]] += 1
        self.beats += len(beats)
        return beats

    def text(self):
        summary = ", ".join(f"{name} {self.final[name]}" for name in abi.XLATE_STATUS)
        return "\n".join(self.lines + [f"# requests by final status: {summary}",
                                       f"# beats: {self.beats}"]) + "\n"


def mr(w, index, **over):
    """A VALID regular MTT-mode MR with every right, 4K pages; fields overridable."""
    f = dict(alloc=1, state=VALID, kind=REGULAR, mode=MTT, access=ALL, page_shift=12,
             key=make_key(index, 0x5a), pd=0x123, mtt_base=0, iova=0, length=0x1000, mtt_count=1)
    f.update(over)
    w.mpt(index, **f)
    return f


# ------------------------------------------------------------------ directed

def directed():
    w = VecWriter(["translation-unit golden vectors: directed cases",
                   "generated by vectors/gen_xlate_vectors.py from vectors/xlate_ref.py; do not edit",
                   "format: docs/xlate-vectors.md"])
    P, Q = 0x000123, 0xabcdef  # the requester's PD and another one
    K = {}  # index -> current key

    def key(index):
        return K[index]

    def setup(index, byte=0x5a, pfns=None, **over):
        over.setdefault("key", make_key(index, byte))
        K[index] = over["key"]
        f = mr(w, index, pd=over.pop("pd", P), **over)
        for i, pfn in enumerate(pfns or []):
            if pfn is not None:
                w.mtt(f["mtt_base"] + i, 1, pfn)
        return f

    w.comment("---- tables")
    w.comment("MR 1: regular, all rights, 4K pages, first-byte offset 0x234, 5 pages at MTT 0x10")
    m1 = setup(1, iova=0x7f00_0000_1234, length=0x4000, mtt_base=0x10, mtt_count=5,
               pfns=[0x12345, 0x00100, 0x7ffff, 0x00042, 0xfedcb])
    w.comment("MR 2: local only (LOCAL_WRITE), page-aligned")
    m2 = setup(2, access=LW, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2,
               pfns=[0x300, 0x301])
    w.comment("MR 3: fast-reg, FREE (rule 3)")
    setup(3, kind=FAST_REG, state=FREE, iova=m1["iova"], length=m1["length"], mtt_base=0x10,
          mtt_count=5)
    w.comment("MRs 4..7: every right but one (LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC)")
    for i, right in enumerate((LW, RR, RW, RA)):
        setup(4 + i, access=ALL & ~right, iova=m1["iova"], length=m1["length"], mtt_base=0x10,
              mtt_count=5)
    w.comment("MR 8: 2M pages, first-byte offset 0x1ff000")
    m8 = setup(8, page_shift=21, iova=0x4000_0000_0000 + 0x1ff000, length=0x600000, mtt_base=0x40,
               mtt_count=4, pfns=[(0x8000_0000 + (n << 21)) >> 12 for n in (3, 0, 7, 1)])
    w.comment("MR 9: 1G pages, first-byte offset 0x3ffff000")
    m9 = setup(9, page_shift=30, iova=0x1_3fff_f000, length=5 << 30, mtt_base=0x50, mtt_count=6,
               pfns=[(n << 30) >> 12 for n in (5, 2, 0x3ff, 9, 0x3ffffff, 1)])
    w.comment("MR 10: DMA kind, LOCAL_WRITE, no range, no pages")
    setup(10, kind=DMA, access=LW, iova=0x5000, length=0x10, mtt_count=0, page_shift=0)
    w.comment("MR 11: indirect, KLM mode, every right: 0x101 bytes of MR 1 across its first seam,")
    w.comment("  one byte through the reserved L_Key, 0x200 bytes of MR 2 (local only), at MTT 0x400")
    w.klm_list(0x400, [(0x7f00_0000_1234 + 0xd00, 0x101, make_key(1, 0x5a)), (0xabc001, 1, RKEY),
                       (0x20e00, 0x200, make_key(2, 0x5a))])
    m11 = setup(11, kind=INDIRECT, mode=KLM, iova=0x9001, length=0x302, mtt_base=0x400, mtt_count=6)
    w.comment("MR 14: indirect over MR 11 (two levels) and the reserved L_Key, at MTT 0x410")
    w.klm_list(0x410, [(0x9001 + 0xf0, 0x20, make_key(11, 0x5a)), (0x5000, 0x10, RKEY)])
    setup(14, kind=INDIRECT, mode=KLM, access=LW | RR, iova=0xa000, length=0x30, mtt_base=0x410,
          mtt_count=4)
    w.comment("MR 12: ends exactly at 2^64, first-byte offset 0x800")
    m12 = setup(12, iova=TWO64 - 0x2800, length=0x2800, mtt_base=0x60, mtt_count=3,
                pfns=[0xa0, 0xb0, 0xc0])
    w.comment("MR 13: PD field with bits above PD_BITS set (compared on PD_BITS only)")
    m13 = setup(13, pd=0x5a00_0000 | P, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    w.comment("MR 4095: the last slot of the table")
    m_last = setup(MPT_N - 1, byte=0xff, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    w.comment("MPT 0: written as a valid MR; index 0 is never an MR")
    w.mpt(0, alloc=1, state=VALID, kind=REGULAR, mode=MTT, access=ALL, page_shift=12,
          key=make_key(0, 0x77), pd=P, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    w.comment("MR 15: fewer MTT entries (2) than its length needs (3 pages)")
    m15 = setup(15, iova=0x30000, length=0x3000, mtt_base=0x20, mtt_count=2)
    w.comment("MR 16: page 1 of 3 absent")
    m16 = setup(16, iova=0x40000, length=0x3000, mtt_base=0x70, mtt_count=3,
                pfns=[0x700, None, 0x702])
    w.mtt(0x71, 0, 0x701)
    w.comment("MR 17: page list starts at the last MTT entry; page 1 is beyond the table")
    m17 = setup(17, iova=0x50000, length=0x2000, mtt_base=MTT_N - 1, mtt_count=2,
                pfns=[0xeee])
    w.comment("MR 18: mtt_base 0xffffffff (mtt_base + page must not wrap to MTT 0..)")
    w.mtt(0, 1, 0xd00)
    w.mtt(1, 1, 0xd01)
    w.mtt(2, 1, 0xd02)
    m18 = setup(18, iova=0x60000, length=0x3000, mtt_base=0xffff_ffff, mtt_count=4)
    w.comment("MR 19: mtt_base = MTT entries + 0x10 (must not alias MTT 0x10)")
    m19 = setup(19, iova=0x70000, length=0x2000, mtt_base=MTT_N + 0x10, mtt_count=2)
    w.comment("MRs 20..22: local write plus a single remote right")
    for i, right in enumerate((RR, RW, RA)):
        setup(20 + i, access=LW | right, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    w.comment("MR 23: starts at va 0 (no wrap of va + len past 2^64 into it)")
    m23 = setup(23, iova=0, length=0x1000, mtt_base=0x20, mtt_count=1)
    w.comment("MR 24: 18 4K pages, first-byte offset 0xff8")
    m24 = setup(24, iova=0x1000_0ff8, length=0x11000, mtt_base=0x100, mtt_count=18,
                pfns=[0x5000 + 3 * i for i in range(18)])
    w.comment("MR 25: every field valid but alloc = 0")
    setup(25, alloc=0, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    w.comment("MR 26: 2M pages with a pfn not aligned to the page (pa = (pfn << 12) + offset)")
    m26 = setup(26, page_shift=21, iova=0x200000 + 0x1234, length=0x300000, mtt_base=0x80,
                mtt_count=2, pfns=[0x401, 0x9ff])
    w.comment("MR 27: stored key's index bits differ from the slot (full 32-bit compare)")
    setup(27, key=make_key(28, 0x5a), iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    K[27] = make_key(27, 0x5a)
    w.comment("MR 28: DMA kind in KLM mode; MR 29: DMA kind, FREE; MR 31: DMA with every right")
    setup(28, kind=DMA, mode=KLM, access=LW)
    setup(29, kind=DMA, state=FREE, access=LW)
    setup(31, kind=DMA, access=ALL, page_shift=0, mtt_count=0, length=0)

    w.comment("---- OK: page seams and first-byte offsets, 4K (MR 1)")
    a = m1["iova"]
    page_end = (a | 0xfff) + 1
    w.req(key(1), P, a, 0x10, want="OK")
    w.req(key(1), P, a, page_end - a, want="OK")  # ends exactly at the page end
    w.req(key(1), P, a, page_end - a + 1, want="OK")  # one byte into the next page
    w.req(key(1), P, page_end - 1, 2, want="OK")  # one byte each side of the seam
    w.req(key(1), P, page_end, 0x1000, want="OK")  # exactly one whole page
    w.req(key(1), P, page_end + 0x1000 - 1, 1, want="OK")  # last byte of a page
    w.req(key(1), P, a, m1["length"], rights=LW, want="OK")  # the whole MR: 5 beats
    w.req(key(1), P, a + m1["length"] - 1, 1, want="OK")  # the MR's last byte
    w.req(key(1), P, a + 0x1001, 0x2ffe, rights=LW, want="OK")
    w.comment("OK: page-aligned MR, local only (MR 2)")
    w.req(key(2), P, m2["iova"], 0x2000, rights=LW, want="OK")
    w.req(key(2), P, m2["iova"] + 0xfff, 1, want="OK")
    w.comment("OK: 18 pages, offset 0xff8 (MR 24): 17 beats, then 19 bytes ending at the MR's end")
    w.req(key(24), P, m24["iova"], 0x10000, rights=LW, want="OK")
    w.req(key(24), P, m24["iova"] + m24["length"] - 0x13, 0x13, want="OK")
    w.comment("OK: 2M pages (MR 8)")
    a = m8["iova"]
    w.req(key(8), P, a, 0x1000, want="OK")  # the first page's last 4K
    w.req(key(8), P, a + 0xfff, 2, want="OK")  # across the first 2M seam
    w.req(key(8), P, a, 0x401000, rights=RW, remote=1, want="OK")  # 3 pages
    w.req(key(8), P, a + m8["length"] - 0x200000, 0x200000, want="OK")
    w.comment("OK: 1G pages (MR 9), up to the longest request (2^32 - 1 bytes)")
    a = m9["iova"]
    w.req(key(9), P, a, 0x1000, want="OK")
    w.req(key(9), P, a + 0xfff, 0x4000_0002, want="OK")
    w.req(key(9), P, a, LEN_MAX, rights=LW, want="OK")
    w.req(key(9), P, a + m9["length"] - 0x10, 0x10, want="OK")
    w.comment("OK: the last slot; PD with high bits set in the entry; pfn + offset is an add")
    w.req(key(MPT_N - 1), P, m_last["iova"], 0x20, want="OK")
    w.req(key(13), P, m13["iova"], 0x20, want="OK")
    w.req(key(26), P, m26["iova"], 0x10, want="OK")
    w.req(key(26), P, m26["iova"] + 0x1ff000 - 0x1234, 0x2000, want="OK")
    w.comment("OK: remote with each single remote right")
    for i, right in enumerate((RR, RW, RA)):
        w.req(key(20 + i), P, 0x20000, 0x40, rights=right, remote=1, want="OK")
    w.req(key(1), P, m1["iova"] + 0x100, 0x100, rights=RR | RW | RA, remote=1, want="OK")

    w.comment("---- rule 1 ERR_SLOT, alone (local, remote)")
    for remote in (0, 1):
        w.req(make_key(0, 0x77), P, 0x20000, 0x10, remote=remote, want="ERR_SLOT")  # index 0
        w.req(make_key(MPT_N, 0x5a), P, 0x20000, 0x10, remote=remote, want="ERR_SLOT")
        w.req(make_key(0xffffff, 0x5a), P, 0x20000, 0x10, remote=remote, want="ERR_SLOT")
        w.req(make_key(30, 0x5a), P, 0x20000, 0x10, remote=remote, want="ERR_SLOT")  # never written
        w.req(key(25), P, 0x20000, 0x10, remote=remote, want="ERR_SLOT")  # alloc = 0
    w.req(0, P, 0, 0x10, want="ERR_SLOT")
    w.req(RKEY + 1, P, 0, 0x10, want="ERR_SLOT")

    w.comment("---- rule 2 ERR_KEY, alone (local, remote)")
    for remote in (0, 1):
        w.req(key(1) ^ 0x01, P, m1["iova"], 0x10, remote=remote, want="ERR_KEY")
        w.req(key(1) ^ 0x80, P, m1["iova"], 0x10, remote=remote, want="ERR_KEY")
        w.req(key(27), P, 0x20000, 0x10, remote=remote, want="ERR_KEY")
    w.comment("remote access to an MR without a remote right; local is fine")
    w.req(key(2), P, m2["iova"], 0x10, remote=1, want="ERR_KEY")
    w.req(key(2), P, m2["iova"], 0x10, remote=0, want="OK")
    w.comment("remote access to a DMA MR (no R_Key), even with every remote right")
    w.req(key(31), P, 0x1000, 0x10, remote=1, want="ERR_KEY")
    w.req(key(10), P, 0x1000, 0x10, remote=1, want="ERR_KEY")
    w.req(key(31), P, 0x1000, 0x10, remote=0, want="OK")

    w.comment("---- rule 3 ERR_STATE, alone (local, remote)")
    for remote in (0, 1):
        w.req(key(3), P, m1["iova"], 0x10, remote=remote, want="ERR_STATE")
    w.req(key(29), P, 0x0, 0x10, want="ERR_STATE")

    w.comment("---- rule 4 ERR_PD, alone (local, remote)")
    for remote in (0, 1):
        w.req(key(1), Q, m1["iova"], 0x10, remote=remote, want="ERR_PD")
        w.req(key(1), P ^ 0x800000, m1["iova"], 0x10, remote=remote, want="ERR_PD")
        w.req(key(13), 0x5a0000 | P, m13["iova"], 0x10, remote=remote, want="ERR_PD")
    w.req(key(10), Q, 0x1000, 0x10, want="ERR_PD")  # DMA MRs are not PD-exempt

    w.comment("---- rule 5 ERR_RIGHTS, alone: each right missing (local, remote)")
    for i, right in enumerate((LW, RR, RW, RA)):
        for remote in (0, 1):
            w.req(key(4 + i), P, m1["iova"], 0x10, rights=right, remote=remote, want="ERR_RIGHTS")
        w.req(key(4 + i), P, m1["iova"], 0x10, rights=ALL & ~right, want="OK")
    w.req(key(2), P, m2["iova"], 0x10, rights=LW | RR, want="ERR_RIGHTS")
    w.req(key(10), P, 0x1000, 0x10, rights=RW, want="ERR_RIGHTS")

    w.comment("---- rule 6 ERR_BOUNDS, alone (local, remote), and the edges that pass")
    a, n = m1["iova"], m1["length"]
    for remote in (0, 1):
        w.req(key(1), P, a - 1, 0x10, remote=remote, want="ERR_BOUNDS")  # starts below
        w.req(key(1), P, a - 1, 1, remote=remote, want="ERR_BOUNDS")
        w.req(key(1), P, a + n - 0x10, 0x11, remote=remote, want="ERR_BOUNDS")  # ends 1 past
        w.req(key(1), P, a + n, 1, remote=remote, want="ERR_BOUNDS")  # starts at the end
        w.req(key(1), P, a, n + 1, remote=remote, want="ERR_BOUNDS")  # longer than the MR
        w.req(key(1), P, TWO64 - 1, 2, remote=remote, want="ERR_BOUNDS")
        w.req(key(1), P, a + n - 0x10, 0x10, remote=remote, want="OK")
    w.comment("va + len wraps 2^64 onto an MR at 0; len > length where length - len would wrap")
    w.req(key(23), P, TWO64 - 0x10, 0x20, want="ERR_BOUNDS")
    w.req(key(23), P, TWO64 - 1, LEN_MAX, want="ERR_BOUNDS")
    w.req(key(23), P, 0, 0x1001, want="ERR_BOUNDS")
    w.req(key(23), P, 0, 0x1000, want="OK")

    w.comment("---- KLM (rule 7): MR 11's entries, local and remote, zero length, entry failures")
    for remote in (0, 1):
        w.req(key(11), P, m11["iova"], 0x302, rights=RR if remote else LW, remote=remote, want="OK")
    w.req(key(11), P, m11["iova"] + 0x100, 3, want="OK")  # end of one entry, a single byte, the next
    w.req(key(11), P, m11["iova"], 0, want="OK")
    w.req(key(11), P, m11["iova"] + 0x301, 2, want="ERR_BOUNDS")  # rule 6 on the indirect MR
    w.req(key(11), Q, m11["iova"], 0x10, want="ERR_PD")
    w.req(key(14), P, 0xa000, 0x30, rights=RR, remote=1, want="OK")  # nested: two levels
    w.req(key(14), P, 0xa000, 0x30, rights=RW, remote=1, want="ERR_RIGHTS")  # MR 14's own rights
    w.comment("MR 1 invalidated: MR 11's first entry fails, its later ones still pass")
    w.inv(1)
    w.req(key(11), P, m11["iova"], 0x10, want="ERR_STATE")
    w.req(key(11), P, m11["iova"] + 0x101, 0x20, want="OK")
    w.req(key(14), P, 0xa000, 0x30, want="ERR_STATE")
    w.comment("MR 1 back as it was")
    setup(1, iova=0x7f00_0000_1234, length=0x4000, mtt_base=0x10, mtt_count=5)
    w.req(key(11), P, m11["iova"], 0x10, want="OK")
    w.comment("MR 40: indirect, its one entry is itself: a chain deeper than max_indirection")
    w.klm_list(0x420, [(0xb000, 0x40, make_key(40, 0x5a))])
    setup(40, kind=INDIRECT, mode=KLM, iova=0xb000, length=0x40, mtt_base=0x420, mtt_count=2)
    w.req(key(40), P, 0xb000, 0x10, want="ERR_DEPTH")
    w.comment("---- ERR_MODE: DMA kind in KLM mode")
    w.req(key(28), P, 0x1000, 0x10, want="ERR_MODE")

    w.comment("---- first failure wins (MR 32 loses one fault at a time)")
    bad = dict(state=FREE, pd=Q, access=0, mode=KLM, iova=0x90_0000, length=0x1000, mtt_count=0,
               page_shift=0)
    setup(32, **bad)
    w.req(key(32) ^ 0x10, P, 0x20000, 0x10, rights=LW, remote=1, want="ERR_KEY")
    w.req(key(32), P, 0x20000, 0x10, rights=LW, want="ERR_STATE")
    bad["state"] = VALID
    setup(32, **bad)
    w.req(key(32), P, 0x20000, 0x10, rights=LW, want="ERR_PD")
    bad["pd"] = P
    setup(32, **bad)
    w.req(key(32), P, 0x20000, 0x10, rights=LW, want="ERR_RIGHTS")
    bad["access"] = ALL
    setup(32, **bad)
    w.req(key(32), P, 0x20000, 0x10, rights=LW, want="ERR_BOUNDS")
    w.req(key(32), P, 0x90_0000, 0x10, rights=LW, want="ERR_MTT")  # KLM mode: an empty list
    bad["mode"] = MTT
    setup(32, **bad)
    w.req(key(32), P, 0x90_0000, 0x10, rights=LW, want="ERR_MTT")
    w.comment("a remote access with no remote right fails ERR_KEY before a FREE state")
    setup(33, state=FREE, access=LW, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
    w.req(key(33), P, 0x20000, 0x10, remote=1, want="ERR_KEY")
    w.req(key(33), P, 0x20000, 0x10, remote=0, want="ERR_STATE")
    w.comment("unallocated slot with everything else wrong too")
    w.req(make_key(34, 0), Q, TWO64 - 1, LEN_MAX, rights=ALL, remote=1, want="ERR_SLOT")

    w.comment("---- ERR_MTT: page shift outside 12..30 (MR 14 rewritten), in-range edges pass")
    for ps in (11, 31, 0, 1):
        setup(14, page_shift=ps, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=2)
        w.req(key(14), P, 0x20000, 0x10, want="ERR_MTT")
        w.req(key(14), P, 0x20000, 0, want="OK")  # zero length touches no page
    w.mtt(0x200, 1, 1 << 18)
    for ps in (abi.PAGE_SHIFT_MIN, abi.PAGE_SHIFT_MAX):
        setup(14, page_shift=ps, iova=0x1230, length=0x2000, mtt_base=0x200, mtt_count=1)
        w.req(key(14), P, 0x1300, 0x20, want="OK")
    w.comment("page beyond mtt_count mid-request: OK beats, then ERR_MTT")
    w.req(key(15), P, m15["iova"] + 0x1ff0, 0x20, want="ERR_MTT")
    w.req(key(15), P, m15["iova"] + 0x2000, 0x10, want="ERR_MTT")
    w.req(key(15), P, m15["iova"] + 0x1ff0, 0x10, want="OK")
    w.comment("no MTT entries at all (mtt_count 0), local and remote")
    setup(14, iova=0x20000, length=0x2000, mtt_base=0x20, mtt_count=0)
    w.req(key(14), P, 0x20000, 0x10, want="ERR_MTT")
    w.req(key(14), P, 0x20000, 0x10, rights=RR, remote=1, want="ERR_MTT")
    w.req(key(14), P, 0x20000, 0, remote=1, want="OK")
    w.comment("absent entry mid-request (local, remote)")
    w.req(key(16), P, m16["iova"] + 0xf00, 0x200, rights=RW, remote=1, want="ERR_MTT")
    w.req(key(16), P, m16["iova"], 0x3000, want="ERR_MTT")
    w.req(key(16), P, m16["iova"] + 0x1000, 0x10, want="ERR_MTT")
    w.req(key(16), P, m16["iova"] + 0x2000, 0x10, want="OK")
    w.req(key(16), P, m16["iova"] + 0x1000, 0, want="OK")
    w.comment("mtt_base + page beyond the MTT")
    w.req(key(17), P, m17["iova"] + 0xff0, 0x20, want="ERR_MTT")
    w.req(key(17), P, m17["iova"], 0x10, want="OK")
    w.req(key(18), P, m18["iova"], 0x10, want="ERR_MTT")
    w.req(key(18), P, m18["iova"] + 0x1000, 0x10, want="ERR_MTT")
    w.req(key(18), P, m18["iova"] + 0x2000, 0x10, want="ERR_MTT")
    w.req(key(19), P, m19["iova"], 0x10, want="ERR_MTT")
    w.req(key(19), P, m19["iova"] + 0x1000, 0x10, want="ERR_MTT")
    w.comment("a page index past 16 and past 32 bits must not alias a low MTT entry")
    setup(14, iova=0x1000, length=1 << 50, mtt_base=0x10, mtt_count=0xffff_ffff)
    w.req(key(14), P, 0x1000, 0x10, want="OK")  # page 0 = MTT 0x10
    w.req(key(14), P, 0x1000 + ((MTT_N - 0x10) << 12), 0x10, want="ERR_MTT")  # MTT index = MTT entries
    w.req(key(14), P, 0x1000 + (1 << 44), 0x10, want="ERR_MTT")  # page 2^32 >= mtt_count
    w.req(key(14), P, 0x1000 + (1 << 44) - 0x1008, 0x10, want="ERR_MTT")  # page 2^32 - 2: index past the MTT

    w.comment("---- every page size 12..30: a request across one seam, first-byte offset 0x18")
    for ps in range(abi.PAGE_SHIFT_MIN, abi.PAGE_SHIFT_MAX + 1):
        page = 1 << ps
        base = 0x300 + 2 * (ps - abi.PAGE_SHIFT_MIN)
        iova = (ps << 40) + 3 * page + 0x18
        setup(35, byte=ps, page_shift=ps, iova=iova, length=2 * page, mtt_base=base, mtt_count=3,
              pfns=[(0x5a5 << ps) >> 12, (0x3c3 << ps) >> 12])
        w.req(key(35), P, iova + page - 0x18 - 3, 6, want="OK")
        w.req(key(35), P, iova, page, want="OK")
    w.comment("pa = (pfn << 12) + offset: largest pfn; 1G page with a pfn not 1G-aligned (carry)")
    setup(36, iova=0x1ff0, length=0x10, mtt_base=0x340, mtt_count=1, pfns=[(1 << PFN_BITS) - 1])
    w.req(key(36), P, 0x1fff, 1, want="OK")
    w.req(key(36), P, 0x1ff0, 0x10, want="OK")
    setup(36, page_shift=30, iova=0x3fff_fff0, length=0x20, mtt_base=0x340, mtt_count=2,
          pfns=[(7 << 18) + 0x3ffff, (9 << 18) + 1])
    w.req(key(36), P, 0x3fff_fff0, 0x20, want="OK")

    w.comment("an MTT entry rewritten, absent, present again")
    w.mtt(0x21, 1, 0x777)
    w.req(key(2), P, m2["iova"] + 0xff8, 0x10, want="OK")
    w.mtt(0x21, 0, 0x777)
    w.req(key(2), P, m2["iova"] + 0xff8, 0x10, want="ERR_MTT")
    w.mtt(0x21, 1, 0x301)
    w.req(key(2), P, m2["iova"] + 0xff8, 0x10, want="OK")

    w.comment("---- the 2^64 edge: MR 12 ends at 2^64")
    w.req(key(12), P, TWO64 - 1, 1, want="OK")
    w.req(key(12), P, TWO64 - 0x1001, 0x1001, want="OK")
    w.req(key(12), P, m12["iova"], m12["length"], want="OK")
    w.req(key(12), P, TWO64 - 1, 2, want="ERR_BOUNDS")
    w.req(key(12), P, TWO64 - 0x10, 0x20, want="ERR_BOUNDS")
    w.req(key(12), P, TWO64 - 1, LEN_MAX, want="ERR_BOUNDS")
    w.req(key(12), P, TWO64 - 1, 0, want="OK")

    w.comment("---- zero length: passes with one empty beat wherever rules 1-6 and the mode pass")
    a, n = m1["iova"], m1["length"]
    w.req(key(1), P, a, 0, want="OK")
    w.req(key(1), P, a + n, 0, want="OK")  # at the end: va - iova == length
    w.req(key(1), P, a + n + 1, 0, want="ERR_BOUNDS")
    w.req(key(1), P, a - 1, 0, want="ERR_BOUNDS")
    w.req(key(1) ^ 2, P, a, 0, want="ERR_KEY")
    w.req(key(1), Q, a, 0, remote=1, want="ERR_PD")
    w.req(key(3), P, a, 0, want="ERR_STATE")
    w.req(key(2), P, m2["iova"], 0, rights=RR, want="ERR_RIGHTS")
    w.req(make_key(30, 0), P, 0, 0, want="ERR_SLOT")
    w.req(key(10), P, 0xdead_beef, 0, want="OK")  # DMA: no pa either
    w.req(key(10), P, TWO64 - 1, 0, want="OK")
    w.req(RKEY, P, 0x1234, 0, want="OK")
    w.req(RKEY, P, TWO64 - 1, 0, want="OK")

    w.comment("---- reserved L_Key: no MPT, any PD, local read/write only, one beat pa = va")
    w.req(RKEY, P, 0x1234, 0x10, want="OK")
    w.req(RKEY, Q, 0x1ff0, 0x3000, rights=LW, want="OK")  # spans pages: still one beat
    w.req(RKEY, 0, 0, LEN_MAX, want="OK")
    w.req(RKEY, PD_MAX, TWO64 - 0x1000, 0x1000, rights=LW, want="OK")
    w.req(RKEY, P, TWO64 - 1, 1, want="OK")
    w.req(RKEY, P, TWO64 - 1, 2, want="ERR_BOUNDS")
    w.req(RKEY, P, TWO64 - 0x1000, 0x1001, rights=LW, want="ERR_BOUNDS")
    w.req(RKEY, P, TWO64 - 1, LEN_MAX, want="ERR_BOUNDS")
    for right in (RR, RW, RA):
        w.req(RKEY, P, 0x1000, 0x10, rights=right | LW, want="ERR_RIGHTS")
    w.req(RKEY, P, TWO64 - 1, 2, rights=RR, want="ERR_RIGHTS")  # rights before bounds
    for rights in (0, RR):
        w.req(RKEY, P, 0x1000, 0x10, rights=rights, remote=1, want="ERR_KEY")
    w.req(RKEY, P, TWO64 - 1, 2, rights=RW, remote=1, want="ERR_KEY")  # remote first
    w.comment("MPT 0 rewritten with the reserved key and FREE: still never read")
    w.mpt(0, alloc=1, state=FREE, kind=REGULAR, mode=KLM, access=0, page_shift=0, key=RKEY, pd=Q)
    w.req(RKEY, P, 0x4000, 0x20, rights=LW, want="OK")
    w.req(make_key(1, RKEY), P, m1["iova"], 0x10, want="ERR_KEY")  # index 1, same key byte

    w.comment("---- DMA MR (MR 10): one beat pa = va, range not checked, below 2^64")
    w.req(key(10), P, 0x1ff0, 0x3000, rights=LW, want="OK")
    w.req(key(10), P, 0, 0x10, want="OK")  # below the MR's iova field
    w.req(key(10), P, 0x1234_5678_9abc, LEN_MAX, want="OK")
    w.req(key(10), P, TWO64 - 0x10, 0x10, want="OK")
    w.req(key(10), P, TWO64 - 0x10, 0x11, want="ERR_BOUNDS")
    w.req(key(10), P, TWO64 - 1, LEN_MAX, rights=LW, want="ERR_BOUNDS")
    w.req(key(10) ^ 0xff, P, 0x1000, 0x10, want="ERR_KEY")

    w.comment("---- invalidation: INVALIDATE keeps the entry but FREE; rewrite with a new key byte")
    a = m1["iova"]
    w.inv(1)
    w.req(key(1), P, a, 0x10, want="ERR_STATE")
    w.req(key(1), Q, a, 0x10, remote=1, want="ERR_STATE")  # state before PD
    w.req(key(1), P, a, 0x10, rights=LW, want="ERR_STATE")
    w.req(key(1) ^ 1, P, a, 0x10, want="ERR_KEY")  # the key is still compared
    w.inv(1)  # invalidating a FREE MR again
    w.req(key(1), P, a, 0, want="ERR_STATE")
    old = key(1)
    setup(1, byte=0x5b, iova=m1["iova"], length=m1["length"], mtt_base=0x10, mtt_count=5)
    w.req(old, P, a, 0x10, want="ERR_KEY")
    w.req(key(1), P, a, 0x2000, want="OK")
    w.inv(30)  # a never-allocated slot stays unallocated
    w.req(make_key(30, 0), P, 0, 0x10, want="ERR_SLOT")
    w.inv(10)
    w.req(key(10), P, 0x1000, 0x10, want="ERR_STATE")
    w.comment("a slot freed (alloc = 0) by rewriting it")
    w.mpt(2, alloc=0)
    w.req(key(2), P, m2["iova"], 0x10, want="ERR_SLOT")

    w.comment("---- back to back: long and short requests interleaved, every tag")
    for i in range(40):
        w.req(key(24), P, m24["iova"] + 0x1000 * (i % 4) + i, 0x3000 if i % 3 == 0 else 0x10,
              want="OK")
        w.req(RKEY, P, 0x1000 * i, i, want="OK")
        w.req(key(1) ^ (i & 1), P, m1["iova"] + i, 0x1800, want="ERR_KEY" if i & 1 else "OK")
    while w.tag != 0:
        w.req(key(9), P, m9["iova"] + w.tag, 0x10, want="OK")
    return w


# ------------------------------------------------------------------ random

class RandomTables:
    """Random MRs over a pool of slots; writes go through the VecWriter."""

    def __init__(self, rng, w):
        self.rng, self.w = rng, w
        self.slots = sorted(set(rng.sample(range(1, 96), 36) + [MPT_N - 1, MPT_N - 2, MPT_N - 9]))
        self.pds = [rng.randrange(PD_MAX + 1) for _ in range(4)]
        self.mrs = {}  # slot -> fields
        self.next_mtt = 0

    def pfn_for(self, ps):
        """A page frame aligned to 2^ps."""
        return self.rng.randrange(1 << (PFN_BITS - (ps - 12))) << (ps - 12)

    def new_mr(self, slot):
        rng = self.rng
        kind = rng.choices([REGULAR, FAST_REG, INDIRECT, DMA], [50, 25, 10, 15])[0]
        mode = KLM if kind == INDIRECT and rng.random() < 0.7 else MTT
        if rng.random() < (0.2 if kind == DMA else 0.03):
            mode = KLM  # a DMA MR in KLM mode is ERR_MODE
        ps = rng.choice([12] * 8 + [13, 14, 16, 20, 21, 21, 21, 29, 30, 30])
        if rng.random() < 0.03:
            ps = rng.choice([0, 5, 11, 31])
        page = 1 << max(ps, 12)
        pages = rng.randint(1, 6 if page > 1 << 21 else 12)
        if rng.random() < 0.1:
            iova = TWO64 - pages * page + rng.randrange(page)  # close to 2^64
        else:
            iova = rng.randrange(1 << rng.choice([20, 32, 48, 64])) & ~0x7 | rng.randrange(8)
            iova = min(iova, TWO64 - pages * page)
        fbo = iova & (page - 1)
        span = pages * page - fbo
        length = span if rng.random() < 0.3 else rng.randint(1, span)
        length = min(length, TWO64 - iova)
        needed = (fbo + length + page - 1) // page
        count = needed if rng.random() < 0.85 else rng.randint(0, needed)
        r = rng.random()
        if r < 0.04:
            base = MTT_N - rng.randint(1, needed)  # runs off the end of the MTT
        elif r < 0.06:
            base = rng.choice([0xffff_ffff, 0xffff_fff0, MTT_N, MTT_N + self.next_mtt])
        else:
            if self.next_mtt + needed > MTT_N - 64:
                self.next_mtt = 0
            base = self.next_mtt
            self.next_mtt += needed
        byte = rng.randrange(256)
        f = dict(alloc=int(rng.random() < 0.97), state=VALID if rng.random() < 0.9 else FREE,
                 kind=kind, mode=mode, access=rng.randrange(16), page_shift=ps,
                 key=make_key(slot, byte), pd=rng.choice(self.pds), mtt_base=base,
                 iova=iova, length=length, mtt_count=count)
        if rng.random() < 0.05:
            f["pd"] |= rng.randrange(1, 256) << abi.PD_BITS
        if kind == DMA and rng.random() < 0.5:
            f.update(iova=0, length=0, mtt_count=0, page_shift=0, mtt_base=0)
        self.w.mpt(slot, **f)
        self.mrs[slot] = f
        if mode == KLM and kind != DMA:
            self.klm_list_for(slot, f)
        if mode == MTT and kind != DMA and abi.PAGE_SHIFT_MIN <= ps <= abi.PAGE_SHIFT_MAX:
            for i in range(needed):
                if base + i < MTT_N and rng.random() < 0.97:
                    self.w.mtt(base + i, int(rng.random() < 0.97), self.pfn_for(ps))

    def klm_list_for(self, slot, f):
        """Give a KLM-mode MR a list over the MRs made so far (any kind: KLM ones
        nest), the reserved L_Key and broken entries; its length the sum
        (sometimes more: the walk runs off the list)."""
        rng = self.rng
        n = rng.randint(1, 6)
        if self.next_mtt + 2 * n > MTT_N - 64:
            self.next_mtt = 0
        base, self.next_mtt = self.next_mtt, self.next_mtt + 2 * n
        entries = []
        for _ in range(n):
            length = rng.choice([1, 512, rng.randint(1, 0x3000)])
            if rng.random() < 0.1 or not self.mrs:
                entries.append((rng.randrange(1 << 40), length, RKEY))
                continue
            if rng.random() < 0.08:  # itself: the walk nests until ERR_DEPTH
                entries.append(((f["iova"] + rng.randrange(0x40)) % TWO64, length, f["key"]))
                continue
            klm = [s for s in sorted(self.mrs) if self.mrs[s]["mode"] == KLM]
            pick = rng.choice(klm) if klm and rng.random() < 0.3 else rng.choice(sorted(self.mrs))
            t = self.mrs[pick]
            key = t["key"] if rng.random() < 0.92 else t["key"] ^ 0x1
            if t["kind"] == DMA or t["length"] <= length or rng.random() < 0.1:
                addr = (t["iova"] + rng.randrange(-0x80, 0x100)) % TWO64
            else:
                addr = t["iova"] + rng.randint(0, t["length"] - length)
            entries.append((addr, length, key))
        self.w.klm_list(base, entries)
        f.update(mtt_base=base, mtt_count=2 * n,
                 length=sum(e[1] for e in entries) + (rng.randint(1, 0x100) if rng.random() < 0.1 else 0))
        if f["iova"] + f["length"] > TWO64:
            f["iova"] = TWO64 - f["length"]
        self.w.mpt(slot, **f)

    def churn(self):
        """One random table change, as firmware would make it."""
        rng, w = self.rng, self.w
        slot = rng.choice(self.slots)
        f = self.mrs.get(slot)
        r = rng.random()
        if f is None or r < 0.45:
            self.new_mr(slot)
        elif r < 0.58:
            w.inv(slot)
            f["state"] = FREE
        elif r < 0.8:  # re-register: new key byte, VALID again
            f["key"] = make_key(slot, (f["key"] + rng.randint(1, 255)) & 0xff)
            f["state"], f["alloc"] = VALID, 1
            w.mpt(slot, **f)
        elif r < 0.985:
            if f["mode"] == MTT and abi.PAGE_SHIFT_MIN <= f["page_shift"] <= abi.PAGE_SHIFT_MAX:
                i = f["mtt_base"] + rng.randrange(max(f["mtt_count"], 1))
                if i < MTT_N:
                    w.mtt(i, int(rng.random() < 0.8), self.pfn_for(f["page_shift"]))
        else:
            f["alloc"] = 0
            w.mpt(slot, **f)

    def request(self):
        rng, w = self.rng, self.w
        r = rng.random()
        remote = int(rng.random() < 0.3)
        if r < 0.06:  # the reserved L_Key
            va = rng.choice([rng.randrange(1 << 48), TWO64 - rng.randrange(1, 0x3000)])
            length = rng.choice([0, rng.randint(1, 64), rng.randint(1, 0x10000)])
            rights = rng.choice([0, LW, 0, LW, rng.randrange(16)])
            return w.req(RKEY, rng.choice(self.pds), va, length, rights, int(rng.random() < 0.1))
        if r < 0.10:  # keys of no slot: index 0, beyond the table, never written
            index = rng.choice([0, 0, MPT_N, MPT_N + rng.randrange(1 << 12), (1 << 24) - 1, 200])
            key = make_key(index, rng.randrange(256))
            if key == RKEY:
                key = 0
            return w.req(key, rng.choice(self.pds), rng.randrange(1 << 40), rng.randint(0, 64),
                         rng.randrange(16), remote)
        slot = rng.choice(self.slots)
        f = self.mrs.get(slot)
        if f is None:
            return w.req(make_key(slot, rng.randrange(256)), self.pds[0], 0, 16, 0, remote)
        key = f["key"] if rng.random() < 0.93 else make_key(slot, rng.randrange(256))
        pd = f["pd"] & PD_MAX if rng.random() < 0.94 else rng.choice(self.pds)
        if rng.random() < 0.85:
            rights = f["access"] & rng.randrange(16)
            if remote:
                rights &= REMOTE_RIGHTS if rng.random() < 0.8 else 0xf
        else:
            rights = rng.randrange(16)
        va, length = self.range_for(f)
        return w.req(key, pd, va, length, rights, remote)

    def range_for(self, f):
        rng = self.rng
        ps = f["page_shift"] if abi.PAGE_SHIFT_MIN <= f["page_shift"] <= abi.PAGE_SHIFT_MAX else 12
        cap = min(LEN_MAX, 6 << ps)
        if f["kind"] == DMA:
            length = rng.choice([0, rng.randint(1, 0x100), rng.randint(1, 0x100000), LEN_MAX])
            va = rng.choice([rng.randrange(1 << 48), TWO64 - rng.randrange(1, 0x2000),
                             rng.randrange(TWO64)])
            return va, length
        iova, n = f["iova"], f["length"]
        r = rng.random()
        if r < 0.08:
            length = 0
        elif r < 0.4:
            length = rng.randint(1, 64)
        elif r < 0.7:
            length = rng.randint(1, 1 << ps)
        else:
            length = rng.randint(1, cap)
        if rng.random() < 0.85:  # inside
            length = min(length, n)
            va = iova + rng.randint(0, n - length)
            if rng.random() < 0.2:  # hug a page seam
                seam = ((va >> ps) + 1) << ps
                if iova <= seam - 1 and seam - 1 + length <= iova + n and rng.random() < 0.5:
                    va = seam - 1
                elif iova <= seam - length // 2 and seam - length // 2 + length <= iova + n:
                    va = seam - length // 2
            return va % TWO64, length  # an empty range may sit at 2^64 itself: wraps to 0
        r = rng.random()  # outside, by a little or a lot
        if r < 0.3:
            va = iova - rng.randint(1, 0x100)
        elif r < 0.6:
            va = iova + n - rng.randint(0, min(length, n))
            length = max(length, 1) + rng.randint(0, 8)
        elif r < 0.8:
            va, length = iova, min(n + rng.randint(1, 0x1000), LEN_MAX)
        else:
            va = rng.randrange(TWO64)
        return va % TWO64, min(length, LEN_MAX)


def random_vectors(seed, count):
    rng = random.Random(seed)
    w = VecWriter(["translation-unit golden vectors: random tables and requests",
                   f"generated by vectors/gen_xlate_vectors.py --seed {seed} --count {count}"
                   " from vectors/xlate_ref.py; do not edit",
                   "format: docs/xlate-vectors.md"])
    t = RandomTables(rng, w)
    for slot in t.slots:
        t.new_mr(slot)
    for i in range(count):
        if rng.random() < 0.04:
            for _ in range(rng.randint(1, 3)):
                t.churn()
        t.request()
    missing = [name for name in abi.XLATE_STATUS if not w.final[name]]
    if missing:
        raise SystemExit(f"gen_xlate_vectors: seed {seed} count {count}: no request ends {missing}; "
                         "pick another seed or a larger count")
    return w


def generate(seed, count):
    """-> {file name: text}"""
    return {"directed.vec": directed().text(), "random.vec": random_vectors(seed, count).text()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT, help="random requests")
    ap.add_argument("--out", default=DEFAULT_OUT, help="folder of the .vec files")
    ap.add_argument("--check", action="store_true",
                    help="fail if the files in --out differ from what would be written")
    args = ap.parse_args()
    files = generate(args.seed, args.count)
    if args.check:
        stale = []
        for name, text in files.items():
            path = os.path.join(args.out, name)
            try:
                with open(path) as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                stale.append(path)
        if stale:
            print(f"gen_xlate_vectors: stale or missing: {' '.join(stale)}; run "
                  f"`{sys.argv[0]} --seed {args.seed} --count {args.count}` and commit",
                  file=sys.stderr)
            return 1
        print(f"gen_xlate_vectors: {len(files)} files up to date")
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(args.out, name), "w") as f:
            f.write(text)
        print(f"gen_xlate_vectors: wrote {os.path.join(args.out, name)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
