#!/usr/bin/env python3
"""gen_random.py — the constrained-random scenario generator: every feature the
device serves, racing, over many recycled QPs, with an oracle for what is certain.

Writes scenario files (stdlib only; the same arguments write the same bytes).
A file is a run of rounds over one device. Objects live across rounds, so state
grows as in a long-running consumer: MPT indices are freed and taken again with
new key bytes, QP and CQ numbers are destroyed and handed out again, QPs go to
ERROR and come back through RESET + connect.

Objects (SEMANTICS.md):
  - regular MRs (reg_mr over slices of host buffers, random access; deregistered
    while traffic races and registered again under a new name and key);
  - fast-reg MRs (FAST_REG_MR with a new key byte and page order; LOCAL_INV,
    SEND_WITH_INV, RDMA_READ_WITH_INV; sometimes deregistered and allocated again);
  - indirect MRs (REG_INDIR_MR over regular, fast-reg, peer, reserved-L_Key and
    nested indirect entries, up to max_indirection levels; invalidated themselves
    or through an entry's invalidation);
  - peer memory (one client that requires invalidation; MRs over its buffers,
    revoked by peer_invalidate under traffic, deregistered and registered again);
  - the DMA MR / reserved L_Key (local SGEs by bus address, KLM entries).

A round gives each QP pair a role:
  clean   only accesses through MRs nobody invalidates this round and the
          memory-management WRs that must succeed: every status exact, every
          byte moved checked (check_mem same_as) at the end of the round;
  racy    accesses through MRs invalidated (any kind) or registered this round:
          each accepts SUCCESS or the failure of SEMANTICS.md's table (and
          WR_FLUSH_ERR after the pair may have gone to ERROR); a SUCCESS checks
          its bytes (check_mem "when"); the pair is recycled after the round;
  fault   one access that must fail, its status exact (bad key, stale key after
          an invalidation or dereg, FREE MR, missing right, out of range, other
          PD, bad lkey, READ sink without LOCAL_WRITE, receive too short or with
          a bad lkey, RNR exhausted, malformed WQE, bad FAST_REG_MR /
          REG_INDIR_MR / LOCAL_INV / SEND_WITH_INV, a dead KLM entry, an access
          posted after a SEND_WITH_INV of its key on the same QP — fixed by the
          posting order), the bytes it targets checked unchanged, then WRs that
          must flush; the pair is recycled;
  doomed  a fresh pair with traffic in flight that is destroyed (or RESET, then
          destroyed) mid-flight: after that its memory is refilled and checked
          untouched some thousands of cycles later; its numbers are reused.
Destinations of a round are disjoint from each other and from every source (a
reservation map over the physical bytes), so a check is never disturbed by
another WR. After each round: every WR polled (one CQ per QP), CQs empty, every
fast-reg/indirect MR's state and key checked (check_mr), clean pairs in RTS,
fault pairs in ERROR. The protection checker runs in every `hcasim run` and
fails the run on any breach of SEMANTICS.md's invariants; a poll timeout is a
hang.

Knobs: --seed, --rounds or --ops (work requests), --qps (pairs live at once), --weights
(write=,read=,send=,inv=,fault=,doomed=,klm=,peer=,zero=), --mode
(mix | storm: mostly racy | faults: mostly faults | lifecycle: mostly doomed).

Usage:
  python3 vectors/gen_random.py --seed N [--out DIR] [knobs]    write random_sN.jsonl
                                                                 (random_MODE_sN.jsonl)
  python3 vectors/gen_random.py                                  write the committed seeds
                                                                 into vectors/directed/
  python3 vectors/gen_random.py --check                          the committed files are
                                                                 exactly what it writes
"""
import argparse
import os
import random
import sys

import genfiles

# The seeds committed to vectors/directed/ (make scenarios runs them on both engines), with
# their mode; the mutation matrix runs them against the firmware mutants (docs/mutation.md).
FIXED = [(1, "mix"), (2, "mix"), (10, "storm")]

FULL = ["LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE"]
ACCESS_CHOICES = [FULL, FULL, FULL, ["LOCAL_WRITE", "REMOTE_WRITE"], ["REMOTE_READ"],
                  ["LOCAL_WRITE", "REMOTE_READ"], ["LOCAL_WRITE"], []]
SRC_SIZE = 65536
DST_SIZE = 131072
JUNK_SLOT = 16384
JUNK_SLOTS = 4
MAX_PAIRS = 24           # live QP pairs (2 QPs, 2 CQs each) + the control pair: within max_qp / max_cq 63
DEFAULT_WEIGHTS = dict(write=4, read=4, send=2, zero=1, inv=3, fault=2, doomed=1, klm=2, peer=2)
MODES = {
    "mix": dict(roles=dict(clean=4, racy=3, fault=2), doomed=0.4, race=0.5, slow=0.4),
    "storm": dict(roles=dict(clean=2, racy=6, fault=1), doomed=0.3, race=0.9, slow=0.7),
    "faults": dict(roles=dict(clean=2, racy=1, fault=6), doomed=0.2, race=0.3, slow=0.3),
    "lifecycle": dict(roles=dict(clean=3, racy=3, fault=2), doomed=1.5, race=0.5, slow=0.4),
}
# malformed send WQEs (docs/scenarios.md post_raw_wqe; err_malformed_wqe.jsonl): opcode 9 (none),
# num_sge 5 (above max_send_sge), a reserved control bit; bytes 8..15 (the wr_id) follow
RAW_BAD = ["09010000 00000000", "00010500 00000000", "00011000 00000000"]
NO_MEMORY = 0x7000000000   # a bus address with no memory behind it (err_dma_mr_no_memory.jsonl)

J = genfiles.J


class MR:
    """An MR as the generator knows it: device and driver agree on it after every round."""

    def __init__(self, name, kind, pd="pd0"):
        self.name, self.kind, self.pd = name, kind, pd
        self.state = "FREE"      # FREE / VALID / DEAD (deregistered)
        self.key = None          # key byte when the generator chose it
        self.iova = 0
        self.length = 0
        self.access = []
        self.gen = 0             # bumped at every registration and invalidation
        self.plan = None         # this round: stable / inv / reg / idle
        self.inv = None
        self.entries = []        # indirect: [(MR, off, len, gen)]
        self.entry_keys = {}     # indirect: each entry MR's key byte at registration
        self.depth = 0           # indirect: indirect MRs in its deepest chain (itself 1)
        self.reg_posted = False
        self.pl_busy = False

    def pieces(self, off, n):
        """[(buf, offset, len)] of MR offsets [off, off+n)."""
        raise NotImplementedError

    def valid_now(self):
        """VALID with every entry (recursively) as registered: accesses pass rules 1-7
        (given rights and range)."""
        if self.state != "VALID":
            return False
        return all(e.gen == g and e.valid_now() for e, _, _, g in self.entries)

    def dead_entry(self):
        """an entry (at any depth) whose access certainly fails: its MR deregistered, FREE, or
        registered again under another key byte since this MR was registered."""
        for e, _, _, g in self.entries:
            if e.gen == g:
                if e.kind == "indirect" and e.dead_entry():
                    return True
                continue
            if e.state != "VALID" or e.key is None or e.key != self.entry_keys.get(e.name):
                return True
        return False

    def hot(self):
        """being invalidated or registered this round (itself or an entry)."""
        if self.plan in ("inv", "reg"):
            return True
        return any(e.hot() for e, _, _, _ in self.entries)

    def can_write(self):
        """remote writes pass the entries' local check (they need LOCAL_WRITE)."""
        return all("LOCAL_WRITE" in e.access and (e.kind != "indirect" or e.can_write())
                   for e, _, _, _ in self.entries)


class Slice(MR):
    """regular or peer MR over [base, base+length) of one buffer."""

    def __init__(self, name, kind, buf, base, length, access, pd="pd0"):
        MR.__init__(self, name, kind, pd)
        self.buf, self.base = buf, base
        self.length, self.access = length, access
        self.state = "VALID"

    def pieces(self, off, n):
        return [(self.buf, self.base + off, n)]


class Fast(MR):
    def __init__(self, name, pages, shift, pd="pd0"):
        MR.__init__(self, name, "fast_reg", pd)
        self.pages, self.shift, self.psize = pages, shift, 1 << shift
        self.perm = list(range(pages))
        self.npl = 1
        self.buf = "fb_" + name

    def pieces(self, off, n):
        return genfiles.page_pieces(self.buf, self.perm, self.shift, self.iova, off, n)


class Dma(MR):
    """the reserved L_Key / DMA MR: an entry over a buffer by bus address."""

    def __init__(self):
        MR.__init__(self, "dma", "dma")
        self.state = "VALID"
        self.access = ["LOCAL_WRITE"]


class Indirect(MR):
    def __init__(self, name, maxlen):
        MR.__init__(self, name, "indirect")
        self.maxlen = maxlen
        self.segs = []           # [(start in the indirect, length, piece function)]

    def pieces(self, off, n):
        out = []
        pos = 0
        for e, eo, el, g in self.entries:
            lo, hi = max(off, pos), min(off + n, pos + el)
            # an entry whose MR was invalidated or registered again since is dead (dead_entry):
            # no byte moves through it, and its old offsets may lie outside the MR's new mapping
            if lo < hi and e.gen == g:
                if isinstance(e, Dma):
                    buf, base = eo
                    out.append((buf, base + lo - pos, hi - lo))
                else:
                    out += e.pieces(eo + lo - pos, hi - lo)
            pos += el
        return out

    def entry_range(self, i):
        pos = sum(el for _, _, el, _ in self.entries[:i])
        return pos, self.entries[i][2]


Pair = genfiles.Pair


class Gen:
    def __init__(self, seed, rounds=8, qps=4, weights=None, mode="mix", ops=0):
        self.seed = seed
        self.ops = ops
        self.rng = random.Random(seed * 104729 + 7)
        self.rounds = rounds
        self.qps = max(2, min(qps, MAX_PAIRS - 2))
        self.w = dict(DEFAULT_WEIGHTS)
        self.w.update(weights or {})
        self.mode = MODES[mode]
        self.mode_name = mode
        self.out = []
        self.wr = 1
        self.npairs = 0
        self.nnames = 0
        self.active = []
        self.stats = {}

    # ---- output helpers ----
    def add(self, o):
        self.out.append(o if isinstance(o, str) else J(o))

    def count(self, k):
        self.stats[k] = self.stats.get(k, 0) + 1

    def wid(self):
        w = self.wr
        self.wr += 1
        return w

    def name(self, p):
        self.nnames += 1
        return "%s%d" % (p, self.nnames)

    def pick(self, d):
        """a key of d drawn by weight."""
        ks = [k for k in sorted(d) if d[k] > 0]
        return self.rng.choices(ks, [d[k] for k in ks])[0] if ks else None

    def gap(self, dense=False):
        r = self.rng.random()
        if r < (0.8 if dense else 0.3):
            return
        self.add({"op": "run", "cycles": self.rng.choice([self.rng.randint(20, 400), self.rng.randint(400, 3000),
                                                          self.rng.randint(3000, 9000)])})

    def size(self, mtu):
        return genfiles.msg_size(self.rng, mtu, 0.06, 0.2)

    # ---- physical reservations (one round): destinations disjoint from everything ----
    def reserve(self, pieces, write):
        """reserve the physical pieces of one region (an indirect MR's entries may overlap each
        other: a region written twice through it is refused like any other overlap)."""
        added = []
        ok = True
        for b, o, n in pieces:
            if b == "src" and not write:
                continue
            if any(o < hi and lo < o + n and (w or write) for lo, hi, w in self.resv.get(b, [])):
                ok = False
                break
            self.resv.setdefault(b, []).append((o, o + n, write))
            added.append(b)
        if not ok:
            for b in added:
                self.resv[b].pop()
        return ok

    def region(self, m, n, write, tries=6):
        """(m, off, n) with m's bytes there reserved, or None."""
        if m == "src":
            return ("src", self.rng.randrange(0, SRC_SIZE - n + 1), n) if n <= SRC_SIZE else None
        if m == "dst":
            if n > DST_SIZE:
                return None
            for _ in range(tries):
                o = self.rng.randrange(0, DST_SIZE - n + 1)
                if self.reserve([("dst", o, n)], write):
                    return ("dst", o, n)
            return None
        if n > m.length:
            return None
        for _ in range(tries):
            o = self.rng.randrange(0, m.length - n + 1)
            if self.reserve(m.pieces(o, n), write):
                return (m, o, n)
        return None

    loc = staticmethod(genfiles.loc)

    def sge(self, where):
        if isinstance(where, list):
            return [x for w in where for x in self.sge(w)]
        m, off, n = where
        if m in ("src", "dst"):
            if self.rng.random() < 0.25:   # by bus address through the reserved L_Key / DMA MR
                return [{"buf": m, "offset": off, "length": n, "lkey": {"mr": "dma"}}]
            return [{"mr": {"src": "ms", "dst": "md"}[m], "offset": off, "length": n}]
        return [{"mr": m.name, "offset": off, "length": n}]

    remote = staticmethod(genfiles.remote)
    pairs_of = staticmethod(genfiles.pairs_of)

    def checks_same(self, dst, src, when=None):
        for b, o, b2, o2, n in self.pairs_of(self.loc(dst), self.loc(src)):
            c = {"op": "check_mem", "buf": b, "offset": o, "length": n, "same_as": {"buf": b2, "offset": o2}}
            if when:
                c["when"] = when
            self.end_checks.append(c)

    # ---- setup ----
    def setup(self):
        r = self.rng
        dev = {"op": "device"}
        self.race_p = self.mode["race"]
        # a slow link and slow host writes keep packets and placements in flight longer: wider
        # race windows (gen_mm_races.py's sweeps need them to make the fence and DRAIN wait)
        slow = r.random() < self.mode["slow"]
        lat = r.choice([1000, 1500, 2500] if slow else [None, None, 300])
        if lat:
            dev["link_latency"] = lat
        bw = r.choice([None, None, 4, 2])
        if bw:
            dev["link_bytes_per_cycle"] = bw
        if slow and r.random() < 0.6:
            dev["host_write_cost"] = r.choice([100, 300])
        self.max_ind = r.choice([2, 3, 4, 4])
        if self.max_ind != 4:
            dev["max_indirection"] = self.max_ind
        self.add(dev if len(dev) > 1 else "# device defaults")
        self.add({"op": "query_device", "expect": {"mem_mgt_extensions": True, "read_with_inv": True,
                                                   "indir_reg": True, "peer_memory": True,
                                                   "max_indirection": self.max_ind}})
        self.add({"op": "alloc_pd", "pd": "pd0"})
        self.add({"op": "alloc_pd", "pd": "pd1"})
        self.add({"op": "create_cq", "cq": "cqc", "depth": 256})
        self.add({"op": "create_qp", "qp": "qc", "pd": "pd0", "send_cq": "cqc", "recv_cq": "cqc", "sq_depth": 128})
        self.add({"op": "create_qp", "qp": "qd", "pd": "pd0", "send_cq": "cqc", "recv_cq": "cqc"})
        self.add({"op": "connect", "qp": "qc", "remote": "qd"})
        self.add({"op": "host_alloc", "buf": "src", "size": SRC_SIZE, "fill": "random"})
        self.add({"op": "host_alloc", "buf": "dst", "size": DST_SIZE, "fill": "random"})
        self.add({"op": "host_alloc", "buf": "junk", "size": JUNK_SLOT * JUNK_SLOTS})
        self.add({"op": "host_alloc", "buf": "xb", "size": 8192, "fill": "random"})
        self.add({"op": "reg_mr", "mr": "ms", "pd": "pd0", "buf": "src", "access": ["REMOTE_READ"]})
        self.add({"op": "reg_mr", "mr": "md", "pd": "pd0", "buf": "dst", "access": FULL})
        self.add({"op": "reg_mr", "mr": "mj", "pd": "pd0", "buf": "junk", "access": FULL})
        self.add({"op": "reg_mr", "mr": "mx", "pd": "pd1", "buf": "xb", "access": FULL})   # another PD
        self.add({"op": "alloc_mr", "mr": "fx", "pd": "pd1", "type": "fast_reg", "max_page_list_len": 1})
        self.add({"op": "get_dma_mr", "mr": "dma", "pd": "pd0"})
        self.dma = Dma()
        self.mrs = []
        # regular slots: a buffer each, an MR over a slice of it at a time
        self.slots = []
        for i in range(r.randint(2, 4)):
            size = r.choice([16384, 32768, 65536])
            self.add({"op": "host_alloc", "buf": "rb%d" % i, "size": size, "fill": "random"})
            self.slots.append(("rb%d" % i, size, None))
        self.slots = [list(s) for s in self.slots]
        for s in self.slots:
            self.new_regular(s, first=True)
        for i in range(r.randint(2, 4)):
            self.new_fast(i)
        # peer memory
        self.peer_ps = r.choice([4096, 65536])
        self.add({"op": "peer_client", "client": "gpu0", "page_size": self.peer_ps, "size": 1 << 20,
                  "requires_invalidation": True})
        self.peer_slots = []
        for i in range(r.randint(1, 2)):
            size = r.choice([16384, 65536])
            self.add({"op": "peer_alloc", "buf": "g%d" % i, "client": "gpu0", "size": size, "fill": "random"})
            s = ["g%d" % i, size, None]
            self.peer_slots.append(s)
            self.new_peer(s)
        self.indirects = []
        for i in range(r.randint(2, 3)):
            self.new_indirect()
        self.peer_alloc_n = len(self.peer_slots)
        self.peer_dealloc_n = 0
        self.peer_callbacks = 0

    def new_regular(self, s, first=False):
        r = self.rng
        buf, size, _ = s
        ln = r.randint(4096, size)
        base = r.randrange(0, size - ln + 1)
        acc = r.choice(ACCESS_CHOICES[:4] + [["LOCAL_WRITE"]])
        m = Slice(self.name("r"), "regular", buf, base, ln, acc)
        self.add({"op": "reg_mr", "mr": m.name, "pd": "pd0", "buf": buf, "offset": base, "length": ln, "access": acc})
        self.count("reg_mr")
        m.gen = 1
        s[2] = m
        self.mrs.append(m)
        return m

    def new_peer(self, s):
        buf, size, _ = s
        m = Slice(self.name("p"), "peer", buf, 0, size, FULL)
        self.add({"op": "reg_mr", "mr": m.name, "pd": "pd0", "buf": buf, "access": FULL})
        self.count("reg_mr_peer")
        m.gen = 1
        s[2] = m
        self.mrs.append(m)
        return m

    def new_fast(self, i):
        r = self.rng
        f = Fast(self.name("f"), r.choice([2, 4, 6]), r.choice([12, 12, 13, 16]))
        self.add({"op": "host_alloc", "buf": f.buf, "size": f.pages * f.psize, "align": f.psize, "fill": "random"})
        self.add({"op": "alloc_mr", "mr": f.name, "pd": "pd0", "type": "fast_reg", "max_page_list_len": f.pages})
        self.add({"op": "alloc_fast_reg_page_list", "pl": "pl_" + f.name, "len": f.pages})
        self.count("alloc_mr")
        self.mrs.append(f)
        return f

    def new_indirect(self):
        m = Indirect(self.name("k"), self.rng.choice([2, 4, 8]))
        self.add({"op": "alloc_mr", "mr": m.name, "pd": "pd0", "type": "indirect", "max_indir_list_len": m.maxlen})
        self.count("alloc_mr")
        self.mrs.append(m)
        self.indirects.append(m)
        return m

    def new_pair(self, doomed=False):
        n = self.name("q")
        p = Pair(n, self.rng.choice([256, 512, 1024]))
        for cq in (p.cqa, p.cqb):
            self.add({"op": "create_cq", "cq": cq, "depth": 256})
        for qp, cq in ((p.a, p.cqa), (p.b, p.cqb)):
            self.add({"op": "create_qp", "qp": qp, "pd": "pd0", "send_cq": cq, "recv_cq": cq, "mtu": p.mtu,
                      "sq_depth": 128, "rq_depth": 128, "rnr_retry": 3, "rnr_timer": 300})
        self.add({"op": "connect", "qp": p.a, "remote": p.b})
        self.count("create_qp")
        self.count("create_qp")
        return p

    def destroy_pair(self, p):
        for qp in self.rng.sample([p.a, p.b], 2):
            self.add({"op": "destroy_qp", "qp": qp})
            self.count("destroy_qp")
        for cq in (p.cqa, p.cqb):
            self.add({"op": "destroy_cq", "cq": cq})

    def recycle(self, p):
        """a pair whose state is not certain: RESET + connect, or destroy and a new pair."""
        if self.rng.random() < 0.5:
            for qp in (p.a, p.b):
                self.add({"op": "modify_qp", "qp": qp, "state": "RESET"})
                self.count("modify_qp_reset")
            self.add({"op": "connect", "qp": p.a, "remote": p.b})
            self.add({"op": "expect_qp_state", "qp": p.a, "state": "RTS"})
            self.add({"op": "expect_qp_state", "qp": p.b, "state": "RTS"})
            return p
        self.destroy_pair(p)
        return None

    # ---- expectations ----
    def post(self, cq, op):
        self.posted.setdefault(cq, []).append(op)
        return op

    @staticmethod
    def expect_for(op):
        st = op["status"]
        e = {"wr_id": op["wr_id"], "status": st if len(st) > 1 else st[0]}
        if st == ["SUCCESS"]:
            for k in ("opcode", "byte_len", "wc_flags", "invalidate_rkey"):
                if op.get(k) is not None:
                    e[k] = op[k]
        return e

    # ---- registration WRs ----
    def next_key(self, m):
        """a new key byte, a small step on: no earlier life's key comes back within a file (an old
        KLM entry naming it stays dead)."""
        return (self.rng.randrange(256) if m.key is None else m.key + self.rng.randint(1, 7)) & 0xFF

    def frmr(self, f, qp, new=True, **bad):
        r = self.rng
        if new:
            k = self.next_key(f)
            f.key = k
            r.shuffle(f.perm)
            f.npl = r.randint(1, f.pages)
            ps = f.psize
            off = r.choice([0, 0, r.randrange(1, ps)])
            f.iova = r.randrange(1, 1 << 20) * ps * r.choice([1, 1 << 16]) + off
            f.length = r.randint(max(1, (f.npl - 1) * ps - off + 1), f.npl * ps - off)
            f.access = r.choice(ACCESS_CHOICES)
            self.add({"op": "set_page_list", "pl": "pl_" + f.name,
                      "pages": [{"buf": f.buf, "offset": p * ps} for p in f.perm]})
            self.add({"op": "update_fast_reg_key", "mr": f.name, "key": k})
            f.reg_posted = True
        w = self.wid()
        f.pl_busy = True
        o = {"op": "post_send", "qp": qp, "wr_id": w, "opcode": "FAST_REG_MR", "mr": f.name,
             "page_list": "pl_" + f.name, "page_list_len": f.npl, "page_shift": f.shift,
             "iova": "0x%x" % f.iova, "length": f.length, "access": f.access}
        o.update(bad)
        self.add(o)
        self.count("FAST_REG_MR")
        return w

    def entry_candidates(self, depth_left):
        """MRs an indirect may name as entries now, with certainty: stable ones."""
        c = [m for m in self.mrs if m.kind in ("regular", "fast_reg", "peer") and m.plan == "stable"
             and m.valid_now() and m.length > 0 and not m.hot()]
        if depth_left > 1:
            c += [m for m in self.indirects if m.plan == "stable" and m.valid_now() and not m.hot()
                  and m.depth < depth_left]
        return c

    def indir(self, k, qp):
        """REG_INDIR_MR of FREE indirect k over stable entries; None if none fits."""
        r = self.rng
        cands = self.entry_candidates(self.max_ind)
        n = r.randint(1, k.maxlen)
        ents, sges = [], []
        for _ in range(n):
            if cands and r.random() < 0.75:
                e = r.choice(cands)
                el = r.randint(1, min(e.length, r.choice([16, 512, 3000, 8192])))
                eo = r.randrange(0, e.length - el + 1)
                ents.append((e, eo, el, e.gen))
                sges.append({"mr": e.name, "offset": eo, "length": el})
            else:   # a reserved-L_Key entry over a slice of dst (bus address)
                el = r.randint(1, r.choice([16, 700, 4096]))
                eo = r.randrange(0, DST_SIZE - el + 1)
                ents.append((self.dma, ("dst", eo), el, self.dma.gen))
                sges.append({"buf": "dst", "offset": eo, "length": el, "lkey": {"mr": "dma"}})
        kb = self.next_key(k)
        k.key = kb
        k.entries = ents
        k.entry_keys = {e.name: e.key for e, _, _, _ in ents}
        k.depth = 1 + max([e.depth for e, _, _, _ in ents if e.kind == "indirect"] or [0])
        k.length = sum(el for _, _, el, _ in ents)
        k.iova = r.randrange(1, 1 << 30) * r.choice([1, 4096])
        k.access = r.choice([FULL, FULL, ["LOCAL_WRITE", "REMOTE_READ"], ["LOCAL_WRITE", "REMOTE_WRITE"]])
        k.reg_posted = True
        self.add({"op": "update_fast_reg_key", "mr": k.name, "key": kb})
        w = self.wid()
        self.add({"op": "post_send", "qp": qp, "wr_id": w, "opcode": "REG_INDIR_MR", "mr": k.name, "list": sges,
                  "iova": "0x%x" % k.iova, "length": k.length, "access": k.access})
        self.count("REG_INDIR_MR")
        return w

    # ---- a round ----
    def round(self, ri):
        r = self.rng
        self.resv = {}
        self.posted = {}
        self.pair_ops = {}
        self.end_checks = []
        self.zero_checks = []
        self.dense = r.random() < 0.3
        while len(self.active) < self.qps:
            self.active.append(self.new_pair())
        pairs = list(self.active)
        r.shuffle(pairs)
        roles = self.mode["roles"]
        for p in pairs:
            p.role = self.pick(dict(clean=roles["clean"], racy=roles["racy"] * (1 if self.w["inv"] else 0),
                                    fault=roles["fault"] * (1 if self.w["fault"] else 0)))
            p.local_ok = r.random() < 0.5
            p.sent_racy = False
        if not any(p.role == "clean" for p in pairs):
            pairs[0].role = "clean"
        clean = [p for p in pairs if p.role == "clean"]
        racy = [p for p in pairs if p.role == "racy"]
        fault = [p for p in pairs if p.role == "fault"]
        # objects' plans
        self.deregs = []
        for m in self.mrs:
            m.reg_posted = False
            m.pl_busy = False
            m.inv = m.inv2 = None
            m.plan = "idle"
            if m.state == "DEAD":
                continue
            if m.state == "FREE":
                m.plan = r.choice(["reg", "reg", "idle"]) if m.kind in ("fast_reg", "indirect") else "idle"
                if m.kind == "indirect" and self.w["klm"] == 0:
                    m.plan = "idle"
                continue
            m.plan = "stable"
            if r.random() < 0.35 * min(1.0, self.w["inv"] / 3.0) + (0.3 if racy else 0):
                m.plan = "inv"
        # indirect registrations need stable entries: decided now, entries drawn at post time
        for m in self.mrs:
            if m.plan != "inv":
                continue
            meths = []
            if m.kind in ("fast_reg", "indirect"):
                meths.append(("linv", None))
                for p in clean:
                    meths.append(("linv", p))
                    if set(m.access) & {"REMOTE_READ", "REMOTE_WRITE"}:
                        meths.append(("sinv", p))
                    meths.append(("rinv_other", p))
                    if m.kind == "fast_reg" and "LOCAL_WRITE" in m.access:
                        meths.append(("rinv", p))
                if m.kind == "fast_reg" and r.random() < 0.15:
                    meths = [("dereg", None)]
            elif m.kind == "regular":
                meths.append(("dereg", None))
            elif m.kind == "peer":
                if self.w["peer"] == 0:
                    m.plan = "stable"
                    continue
                meths.append(("revoke", None))
            m.inv = r.choice(meths)
            others = [x for x in meths if x[0] in ("linv", "sinv", "rinv_other") and x[1] is not m.inv[1]]
            if m.inv[0] in ("linv", "sinv", "rinv_other") and others and r.random() < 0.25:
                m.inv2 = r.choice(others)
        # MRs whose plan is stable but depend on a hot entry are hot too (MR.hot)
        self.add("# ---- round %d%s: %s" % (ri, " (burst)" if self.dense else "", ", ".join(
            "%s/%s %s mtu %d" % (p.a, p.b, p.role, p.mtu) for p in pairs)))
        self.add("# MRs: " + ", ".join("%s %s%s%s" % (m.name, m.state, "" if m.plan == "idle" else " " + m.plan,
                                                       "(%s)" % m.inv[0] if m.inv else "")
                                      for m in self.mrs if m.state != "DEAD"))
        events = genfiles.mm_events(r, self.mrs, clean)
        for p in fault:
            events.append(("fault", p))
        nd = r.randint(8, 22 if self.dense else 16)
        events += [("data",)] * nd
        r.shuffle(events)
        # a revoke or dereg must come after the WRs racing it were posted (and be no earlier
        # than the middle of the round), so race them by putting them late, at random
        for ev in events:
            if ev[0] == "inv" and ev[2][0] in ("dereg", "revoke"):
                events.remove(ev)
                events.insert(r.randint(len(events) // 2, len(events)), ev)
        doomed = []
        if r.random() < self.mode["doomed"] * self.w["doomed"] / 1.0 and self.npairs_live() < MAX_PAIRS - 1:
            doomed.append(self.new_pair(doomed=True))
        for d in doomed:
            events.insert(r.randint(0, len(events)), ("doom_start", d))
            events.append(("doom_end", d))
        for ev in events:
            k = ev[0]
            if k == "reg":
                m, p = ev[1], ev[2]
                qp, cq = ("qc", "cqc") if p is None else (p.a, p.cqa)
                if m.kind == "fast_reg":
                    w = self.frmr(m, qp)
                    op = self.post(cq, {"wr_id": w, "status": ["SUCCESS"], "opcode": "FAST_REG_MR"})
                else:
                    w = self.indir(m, qp)
                    op = self.post(cq, {"wr_id": w, "status": ["SUCCESS"], "opcode": "REG_INDIR_MR"})
                if p is not None:
                    self.pair_ops.setdefault(p.a, []).append(op)
            elif k == "inv":
                m = ev[1]
                if racy and ev[2] is m.inv and r.random() < self.race_p and self.post_data(clean, racy, force=m):
                    # aimed: the invalidation lands while the long WR through its key is under way
                    self.add({"op": "run", "cycles": r.randint(0, 12000)})
                    self.count("aimed_race")
                self.post_inv(m, ev[2])
            elif k == "fault":
                self.post_fault(ev[1])
            elif k == "doom_start":
                self.doom_start(ev[1], len(doomed))
            elif k == "doom_end":
                self.doom_end(ev[1])
            else:
                self.post_data(clean, racy)
            self.gap(self.dense)
        # racy pairs: after a WR that may fail, later ones may flush; earlier ones too when the
        # failure could be local (a QP in ERROR flushes everything outstanding); so may what
        # b completes of a pair whose a had a racy WR
        any_order = genfiles.flush_after_racy(racy, self.pair_ops)
        for p in racy:
            for o in self.posted.get(p.cqb, []) if p.cqa in any_order else []:
                if "WR_FLUSH_ERR" not in o["status"] and len(o["status"]) > 1:
                    o["status"] = o["status"] + ["WR_FLUSH_ERR"]
        cqs = ["cqc"] + [c for p in pairs for c in (p.cqa, p.cqb)]
        for o in genfiles.poll_all(cqs, self.posted, any_order, self.expect_for):
            self.add(o)
        for c in self.end_checks:
            self.add(c)
        for buf, off, hexs in self.zero_checks:
            self.add({"op": "check_mem", "buf": buf, "offset": off, "hex": hexs})
        # new states
        for m in self.mrs:
            if m.plan == "reg":
                m.state = "VALID"
                m.gen += 1
            elif m.plan == "inv":
                m.gen += 1
                m.state = "DEAD" if m.inv[0] == "dereg" else "FREE"
        for m in self.mrs:
            if m.kind in ("fast_reg", "indirect", "peer") and m.state != "DEAD":
                self.add({"op": "check_mr", "mr": m.name, "expect": genfiles.mr_expect(m, m.kind != "peer")})
        self.add({"op": "check_mr", "mr": "fx", "expect": {"state": "FREE", "pd": "pd1"}})
        for o in genfiles.qp_state_checks(clean, fault):
            self.add(o)
        # recycle what is not certain; replace what was deregistered or revoked
        for p in racy + fault:
            if p in fault or any(o.get("racy") for o in self.pair_ops.get(p.a, [])) or p.sent_racy:
                self.active.remove(p)
                q = self.recycle(p)
                if q is not None:
                    self.active.append(q)
        for m in list(self.mrs):
            if m.state == "DEAD":
                self.mrs.remove(m)
                if m.kind == "regular":
                    s = next(s for s in self.slots if s[2] is m)
                    self.new_regular(s)
                elif m.kind == "fast_reg":
                    self.new_fast(0)
                elif m.kind == "indirect":
                    self.indirects.remove(m)
                    self.new_indirect()
            elif m.kind == "peer" and m.state == "FREE":
                # revoked: deregister (the pages are put once) and register the buffer again
                self.add({"op": "dereg_mr", "mr": m.name})
                self.count("dereg_mr")
                self.peer_dealloc_n += 1
                self.mrs.remove(m)
                s = next(s for s in self.peer_slots if s[2] is m)
                self.new_peer(s)
                self.peer_alloc_n += 1
        self.add({"op": "peer_stats", "client": "gpu0", "expect": {
            "num_alloc_mrs": self.peer_alloc_n, "num_dealloc_mrs": self.peer_dealloc_n,
            "num_free_callbacks": self.peer_callbacks}})

    def nops(self):
        """work requests posted so far (a post_send by opcode, RECV, RAW_WQE)."""
        return sum(v for k, v in self.stats.items() if k.isupper())

    def npairs_live(self):
        return len(self.active) + 1

    # ---- invalidations ----
    def post_inv(self, m, how):
        meth, p = how
        r = self.rng
        self.count("inv_" + meth)
        if meth == "dereg":
            self.add({"op": "dereg_mr", "mr": m.name})
            self.count("dereg_mr")
            return
        if meth == "revoke":
            self.add({"op": "peer_invalidate", "client": "gpu0", "buf": m.buf})
            self.peer_callbacks += 1
            return
        w = self.wid()
        if meth == "linv":
            qp, cq = ("qc", "cqc") if p is None else (p.a, p.cqa)
            self.add({"op": "post_send", "qp": qp, "wr_id": w, "opcode": "LOCAL_INV", "invalidate": {"mr": m.name}})
            self.count("LOCAL_INV")
            op = self.post(cq, {"wr_id": w, "status": ["SUCCESS"], "opcode": "LOCAL_INV"})
            if p is not None:
                self.pair_ops.setdefault(p.a, []).append(op)
        elif meth == "sinv":
            n = self.size(p.mtu)
            s = self.pick_src(n)
            d = self.pick_dst(n)
            if d is None or s is None:
                n, s, d = 0, None, None
            self.add({"op": "post_recv", "qp": p.b, "wr_id": w, "sge": self.sge(d) if d else []})
            self.count("RECV")
            self.post(p.cqb, {"wr_id": w, "status": ["SUCCESS"], "opcode": "RECV", "byte_len": n,
                              "wc_flags": ["WITH_INVALIDATE"], "invalidate_rkey": {"mr": m.name}})
            w2 = self.wid()
            self.add({"op": "post_send", "qp": p.a, "wr_id": w2, "opcode": "SEND_WITH_INV",
                      "sge": self.sge(s) if s else [], "invalidate": {"mr": m.name}})
            self.count("SEND_WITH_INV")
            op = self.post(p.cqa, {"wr_id": w2, "status": ["SUCCESS"], "opcode": "SEND"})
            self.pair_ops.setdefault(p.a, []).append(op)
            if d:
                self.checks_same(d, s)
        elif meth == "rinv_other":
            n = self.size(p.mtu)
            s = self.region("src", n, False)
            d = self.region("dst", n, True)
            if d is None:
                n, sg = 0, []
            else:
                sg = self.sge(d)
            self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_READ_WITH_INV",
                      "sge": sg, "remote": self.remote(s), "invalidate": {"mr": m.name}})
            self.count("RDMA_READ_WITH_INV")
            op = self.post(p.cqa, {"wr_id": w, "status": ["SUCCESS"], "opcode": "RDMA_READ", "byte_len": n})
            self.pair_ops.setdefault(p.a, []).append(op)
            if d:
                self.checks_same(d, s)
        else:   # rinv: READ into m, then m invalidated (the default invalidate key: sge[0]'s)
            n = self.size(p.mtu)
            d = self.region(m, n, True) if not m.inv2 else None
            s = self.region("src", n, False)
            if d is None:
                self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_READ_WITH_INV", "sge": [],
                          "remote": self.remote(s), "invalidate": {"mr": m.name}})
                n = 0
            else:
                self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_READ_WITH_INV",
                          "sge": self.sge(d), "remote": self.remote(s)})
                self.checks_same(d, s)
            self.count("RDMA_READ_WITH_INV")
            op = self.post(p.cqa, {"wr_id": w, "status": ["SUCCESS"], "opcode": "RDMA_READ", "byte_len": n})
            self.pair_ops.setdefault(p.a, []).append(op)

    # ---- data ----
    def usable(self):
        """MRs every access through which is certain this round."""
        return [m for m in self.mrs if m.plan == "stable" and not m.hot() and m.valid_now()] + \
               [k for k in self.indirects if k.plan == "stable" and not k.hot() and k.valid_now()]

    def pick_src(self, n, mrs=None, k=1, local=True):
        """a source region (local read is always allowed): src or an MR; k > 1: maybe a gather list."""
        r = self.rng
        mrs = self.usable() if mrs is None else mrs
        if local:   # the driver's lkey of an indirect MR is not a local SGE here
            mrs = [m for m in mrs if m.kind != "indirect"]
        if k > 1 and n >= 2 and r.random() < 0.3:
            out = [self.pick_src(x, mrs, 1, local) for x in genfiles.split(r, n, k)]
            return None if None in out else out
        if mrs and r.random() < 0.6:
            got = self.region(r.choice(mrs), n, False)
            if got:
                return got
        return self.region("src", n, False)

    def pick_dst(self, n, mrs=None, k=1, right="LOCAL_WRITE"):
        r = self.rng
        mrs = self.usable() if mrs is None else mrs
        mrs = [m for m in mrs if right in m.access and (m.kind != "indirect" or
                                                       (right == "REMOTE_WRITE" and m.can_write()))]
        if k > 1 and n >= 2 and r.random() < 0.3:
            out = [self.pick_dst(x, mrs, 1, right) for x in genfiles.split(r, n, k)]
            return None if None in out else out
        if mrs and r.random() < 0.65:
            got = self.region(r.choice(mrs), n, True)
            if got:
                return got
        return self.region("dst", n, True)

    def post_data(self, clean, racy, force=None):
        """one data WR on a clean or racy pair; force: an MR about to be invalidated, which a long
        WR on a racy pair goes through (the invalidation follows it within its duration)."""
        r = self.rng
        pairs = racy if force else clean + racy
        if not pairs:
            return False
        p = r.choice(pairs)
        usable = self.usable()
        hot = [m for m in self.mrs + [] if m.state == "VALID" and m.hot() and m.plan != "reg"] + \
              [m for m in self.mrs if m.plan == "reg" and m.reg_posted]
        if p.role != "racy":
            hot = []
        tainted = any(o.get("racy") for o in self.pair_ops.get(p.a, []))
        w = self.w
        kinds = dict(write=w["write"], read=w["read"], zero=w["zero"] if p.role == "clean" else 0,
                     send=w["send"] if (p.role == "clean" or (not p.local_ok and not tainted)) else 0)
        n = self.size(p.mtu)
        if force:
            hot = [force]
            kinds = dict(write=1 if "REMOTE_WRITE" in force.access and force.can_write() or
                         (p.local_ok and force.kind != "indirect") else 0,
                         read=1 if "REMOTE_READ" in force.access or
                         (p.local_ok and "LOCAL_WRITE" in force.access and force.kind != "indirect") else 0)
            n = min(force.length, r.randint(4 * p.mtu, 12288))
        kind = self.pick(kinds)
        if kind is None:
            return False
        wid = self.wid()
        fails = set()
        if kind == "zero":
            opc, wr = genfiles.zero_dead_key(r, p.a, wid)
            self.add(wr)
            self.count(opc)
            op = self.post(p.cqa, {"wr_id": wid, "status": ["SUCCESS"], "opcode": opc, "byte_len": 0})
            self.pair_ops.setdefault(p.a, []).append(op)
            return
        if kind == "send":
            s = self.pick_src(n, usable, 4)
            d = None
            cands = [m for m in hot if "LOCAL_WRITE" in m.access and m.kind != "indirect"]
            if p.role == "racy" and cands and r.random() < 0.6:
                d = self.region(r.choice(cands), n, True)
            racy_send = d is not None
            if d is None:
                d = self.pick_dst(n, usable, 3)
            if d is None or s is None:
                return
            # on a clean pair, a SEND sometimes goes first, its receive up to 200 cycles later:
            # RNR-NAKed and retried (rnr_timer 300, rnr_retry 3) until the receive is there
            # (multi-packet too: vectors/directed/err_rnr_multi_packet.jsonl, found here)
            late = p.role == "clean" and r.random() < 0.15
            recv = {"op": "post_recv", "qp": p.b, "wr_id": wid, "sge": self.sge(d)}
            if not late:
                self.add(recv)
            self.count("RECV")
            self.post(p.cqb, {"wr_id": wid, "status": ["SUCCESS", "LOC_PROT_ERR"] if racy_send else ["SUCCESS"],
                              "opcode": "RECV", "byte_len": n, "wc_flags": []})
            w2 = self.wid()
            self.add({"op": "post_send", "qp": p.a, "wr_id": w2, "opcode": "SEND", "sge": self.sge(s)})
            self.count("SEND")
            if late:
                self.add({"op": "run", "cycles": r.randint(0, 200)})
                self.add(recv)
                self.count("late_recv")
            op = self.post(p.cqa, {"wr_id": w2, "status": ["SUCCESS", "REM_OP_ERR"] if racy_send else ["SUCCESS"],
                                   "opcode": "SEND", "racy": racy_send})
            self.pair_ops.setdefault(p.a, []).append(op)
            if racy_send:
                p.sent_racy = True
                self.checks_same(d, s, {"qp": p.a, "wr_id": w2, "status": "SUCCESS"})
            else:
                self.checks_same(d, s)
            return
        racy_op = bool(hot) and (force or r.random() < 0.7)
        local_hot = [m for m in hot if m.kind != "indirect"] if p.local_ok else []
        if kind == "write":
            s = d = None
            if racy_op and (r.random() < 0.7 or not local_hot):
                cands = [m for m in hot if "REMOTE_WRITE" in m.access and (m.kind != "indirect" or m.can_write())]
                if cands:
                    d = self.region(r.choice(cands), n, True)
                    if d:
                        fails.add("REM_ACCESS_ERR")
            elif racy_op:
                s = self.region(r.choice(local_hot), n, False)
                if s:
                    fails.add("LOC_PROT_ERR")
            if s is None:
                s = self.pick_src(n, usable, 4)
            if d is None:
                d = self.pick_dst(n, usable, 1, "REMOTE_WRITE")
            if s is None or d is None:
                return False
            self.add({"op": "post_send", "qp": p.a, "wr_id": wid, "opcode": "RDMA_WRITE", "sge": self.sge(s),
                      "remote": self.remote(d)})
            self.count("RDMA_WRITE")
            opc, bl = "RDMA_WRITE", None
        else:
            s = d = None
            if racy_op and (r.random() < 0.6 or not local_hot):
                cands = [m for m in hot if "REMOTE_READ" in m.access]
                if cands:
                    s = self.region(r.choice(cands), n, False)
                    if s:
                        fails.add("REM_ACCESS_ERR")
            elif racy_op:
                cands = [m for m in local_hot if "LOCAL_WRITE" in m.access]
                if cands:
                    d = self.region(r.choice(cands), n, True)
                    if d:
                        fails.add("LOC_PROT_ERR")
            if s is None:
                s = self.pick_src(n, [m for m in usable if "REMOTE_READ" in m.access], 1, local=False)
            if d is None:
                d = self.pick_dst(n, usable, 3)
            if s is None or d is None:
                return False
            self.add({"op": "post_send", "qp": p.a, "wr_id": wid, "opcode": "RDMA_READ", "sge": self.sge(d),
                      "remote": self.remote(s)})
            self.count("RDMA_READ")
            opc, bl = "RDMA_READ", n
        st = ["SUCCESS"] + sorted(fails)
        op = self.post(p.cqa, {"wr_id": wid, "status": st, "opcode": opc, "byte_len": bl,
                               "racy": bool(fails), "local_fail": "LOC_PROT_ERR" in fails})
        self.pair_ops.setdefault(p.a, []).append(op)
        if fails or tainted:
            self.checks_same(d, s, {"qp": p.a, "wr_id": wid, "status": "SUCCESS"})
        else:
            self.checks_same(d, s)
        return bool(fails)

    # ---- faults: one WR whose failure is certain ----
    def zero(self, where, k=16):
        """the first bytes of a region a failing WR targets: zeroed now, checked zero at the end."""
        b, o, n = self.loc(where)[0]
        n = min(n, k)
        h = "00" * n
        self.add({"op": "host_write", "buf": b, "offset": o, "hex": h})
        self.zero_checks.append((b, o, h))

    def post_fault(self, p):
        r = self.rng
        usable = self.usable()
        w = self.wid()
        kinds = ["bad_rkey", "bad_lkey", "sink_right", "range", "recv_short", "recv_lkey", "rnr", "raw",
                 "other_pd", "dma_nomem", "linv_wrong", "linv_regular", "linv_other_pd", "sinv_wrong",
                 "frmr_bad", "reg_bad_access"]
        dead = [m for m in self.mrs if m.state == "FREE" and m.plan == "idle" and m.key is not None
                and m.kind != "peer"]
        if dead:
            kinds += ["free_write", "free_read"]
        stale = [m for m in usable if m.kind != "indirect"]
        if stale:
            kinds += ["stale_key", "stale_key"]
        if [m for m in usable if "REMOTE_WRITE" not in m.access]:
            kinds.append("noright")
        deadk = [k for k in self.indirects if k.state == "VALID" and k.plan in ("stable", "idle") and not k.hot()
                 and k.dead_entry() and "REMOTE_READ" in k.access]
        if deadk and self.w["klm"]:
            kinds += ["klm_dead_entry", "klm_dead_entry"]
        sinvable = [m for m in self.mrs if m.plan == "inv" and m.inv[0] == "linv" and m.inv[1] is None
                    and m.inv2 is None and set(m.access) >= {"REMOTE_WRITE"} and m.kind == "fast_reg"]
        if sinvable:
            kinds.append("sinv_then_write")
        vfree = [m for m in usable if m.kind == "fast_reg" and not m.pl_busy]
        if vfree:
            kinds.append("frmr_valid")
        kind = r.choice(kinds)
        self.count("fault_" + kind)
        self.add("# fault on %s: %s" % (p.a, kind))
        n = self.size(p.mtu)
        st = "REM_ACCESS_ERR"
        p.b_state = "ERROR"
        ps = {"op": "post_send", "qp": p.a, "wr_id": w}
        if kind in ("bad_rkey", "stale_key", "free_write", "free_read", "range", "noright", "other_pd",
                    "klm_dead_entry"):
            rk = None
            if kind == "bad_rkey":   # an index never allocated
                rem = {"mr": "md", "offset": 0}
                rk = "0x%x" % ((r.randrange(3000, 4000) << 8) | r.randrange(256))
                d = None
            elif kind == "stale_key":
                m = r.choice(stale)
                d = self.region(m, min(n, m.length), True)
                if d is None:
                    d = (m, 0, 1)
                    n = 1
                else:
                    n = d[2]
                    self.zero(d)
                rem = self.remote(d)
                rk = {"mr": m.name, "key": (m.key + r.randrange(1, 256)) & 0xFF} if m.key is not None else \
                    "0x%x" % ((r.randrange(3000, 4000) << 8) | 1)
            elif kind in ("free_write", "free_read"):
                m = r.choice(dead)
                rem = {"mr": m.name, "offset": 0}
                d = None
                if kind == "free_read":
                    kind = "read"
            elif kind == "range":
                m = r.choice([x for x in usable if x.kind != "indirect"] or [None])
                if m is None:
                    rem, n = {"mr": "md", "offset": DST_SIZE - 8}, 64
                else:
                    n = max(n, 2)
                    o = m.length - r.randint(1, min(n - 1, m.length))
                    rem = {"mr": m.name, "offset": o}
                d = None
            elif kind == "noright":
                m = r.choice([x for x in usable if "REMOTE_WRITE" not in x.access])
                rem = {"mr": m.name, "offset": 0}
                n = min(n, m.length)
                d = self.region(m, n, True)
                if d:
                    self.zero(d)
                    rem = self.remote(d)
            elif kind == "other_pd":
                n = min(n, 8192)
                rem = {"mr": "mx", "offset": 0}
                if r.random() < 0.5:   # a WRITE: xb's first bytes must stay as they were
                    kind = "other_pd_write"
                    self.zero(("xb", 0, 16))
                d = None
            else:   # klm_dead_entry: a READ over the whole indirect MR, one entry of which is dead
                m = r.choice(deadk)
                n = m.length
                rem = {"mr": m.name, "offset": 0}
                kind = "read"
                d = None
            sink = None
            if kind == "read" or (kind not in ("noright", "stale_key", "other_pd_write") and r.random() < 0.4):
                # a READ (no room for its sink this round: the WRITE below, which fails as surely)
                sink = self.region("dst", n, True) if n <= SRC_SIZE else None
            if sink is not None:
                self.zero(sink)
                ps.update({"opcode": "RDMA_READ", "sge": self.sge(sink), "remote": rem})
                self.count("RDMA_READ")
            else:
                ps.update({"opcode": "RDMA_WRITE", "sge": self.sge(("src", 0, n)), "remote": rem})
                self.count("RDMA_WRITE")
            if rk is not None:
                ps["rkey"] = rk
            self.add(ps)
        elif kind == "bad_lkey":
            st, p.b_state = "LOC_PROT_ERR", "RTS"
            d = self.region("dst", n, True)
            if d is None:
                d = ("dst", 0, 0)
            else:
                self.zero(d)
            ps.update({"opcode": "RDMA_WRITE", "sge": [{"buf": "src", "offset": 0, "length": max(1, n),
                                                        "lkey": "0x%x" % ((r.randrange(3000, 4000) << 8) | 5)}],
                       "remote": self.remote(d) if d[2] else {"mr": "md", "offset": 0}})
            self.count("RDMA_WRITE")
            self.add(ps)
        elif kind == "sink_right":   # a READ sink through an MR without LOCAL_WRITE (ms)
            st, p.b_state = "LOC_PROT_ERR", "RTS"
            ps.update({"opcode": "RDMA_READ", "sge": [{"mr": "ms", "offset": 0, "length": n}],
                       "remote": {"mr": "ms", "offset": 0}})
            self.count("RDMA_READ")
            self.add(ps)
        elif kind in ("recv_short", "recv_lkey"):
            n = max(n, 2)
            d = self.region("dst", n, True)
            if d is None:
                d = ("dst", 0, 1)
            self.zero(d)
            if kind == "recv_short":
                sg = [{"mr": "md", "offset": d[1], "length": r.randint(1, n - 1)}]
                st, rst = "REM_INV_REQ_ERR", "LOC_LEN_ERR"
            else:
                sg = [{"mr": "ms", "offset": 0, "length": n}]   # ms has no LOCAL_WRITE
                st, rst = "REM_OP_ERR", "LOC_PROT_ERR"
            self.add({"op": "post_recv", "qp": p.b, "wr_id": w, "sge": sg})
            self.count("RECV")
            self.post(p.cqb, {"wr_id": w, "status": [rst]})
            w = self.wid()
            self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "SEND", "sge": self.sge(("src", 0, n))})
            self.count("SEND")
        elif kind == "rnr":   # no receive posted: retried rnr_retry (3) times, then exhausted
            st, p.b_state = "RNR_RETRY_EXC_ERR", "RTS"
            self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "SEND", "sge": self.sge(("src", 0, n))})
            self.count("SEND")
        elif kind == "raw":
            st, p.b_state = "LOC_QP_OP_ERR", "RTS"
            self.add({"op": "post_raw_wqe", "qp": p.a, "hex": r.choice(RAW_BAD) + " " + w.to_bytes(8, "little").hex()})
            self.count("RAW_WQE")
        elif kind == "dma_nomem":
            st, p.b_state = "LOC_ACCESS_ERR", "RTS"
            ps.update({"opcode": "RDMA_WRITE", "sge": [{"addr": "0x%x" % (NO_MEMORY + r.randrange(0, 1 << 20)),
                                                        "length": max(n, 1), "lkey": {"mr": "dma"}}],
                       "remote": {"mr": "md", "offset": 0}})
            self.count("RDMA_WRITE")
            self.add(ps)
        elif kind in ("linv_wrong", "linv_regular", "linv_other_pd"):
            st, p.b_state = "MW_BIND_ERR", "RTS"
            if kind == "linv_wrong":
                fr = [m for m in self.mrs if m.kind in ("fast_reg", "indirect") and m.key is not None
                      and m.plan in ("stable", "idle")]
                if fr:
                    m = r.choice(fr)
                    key = {"mr": m.name, "key": (m.key + r.randrange(1, 256)) & 0xFF}
                else:
                    key = "0x%x" % ((r.randrange(3000, 4000) << 8) | 3)
            elif kind == "linv_regular":
                key = {"mr": "md"}
            else:
                key = {"mr": "fx"}
            ps.update({"opcode": "LOCAL_INV", "invalidate": key})
            self.count("LOCAL_INV")
            self.add(ps)
        elif kind == "sinv_wrong":   # SEND_WITH_INV of a regular MR's key: refused at the responder
            st = "REM_INV_REQ_ERR"
            d = self.region("dst", 64, True) or ("dst", 0, 64)
            self.add({"op": "post_recv", "qp": p.b, "wr_id": w, "sge": [{"mr": "md", "offset": d[1], "length": 64}]})
            self.count("RECV")
            self.post(p.cqb, {"wr_id": w, "status": ["REM_INV_REQ_ERR"]})
            w = self.wid()
            self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "SEND_WITH_INV",
                      "sge": self.sge(("src", 0, 32)), "invalidate": {"mr": r.choice(["md", "ms", "mx"])}})
            self.count("SEND_WITH_INV")
        elif kind == "frmr_bad":   # FAST_REG_MR the device refuses: MW_BIND_ERR, the MR unchanged
            st, p.b_state = "MW_BIND_ERR", "RTS"
            cands = [m for m in self.mrs if m.kind == "fast_reg" and m.plan in ("idle", "stable")
                     and not m.pl_busy and m.key is not None]
            if cands:
                f = r.choice(cands)
                bad = r.choice([dict(page_shift=r.choice([11, 31])), dict(length=0), dict(access=["REMOTE_WRITE"])])
                saved = (f.key, f.iova, f.length, f.access, f.npl)
                w = self.wid() - 1
                self.wr = w
                self.frmr(f, p.a, False, **bad)
                f.key, f.iova, f.length, f.access, f.npl = saved
                f.pl_busy = True
            else:
                ps.update({"opcode": "LOCAL_INV", "invalidate": {"mr": "md"}})
                self.count("LOCAL_INV")
                self.add(ps)
        elif kind == "frmr_valid":   # re-registering a VALID MR: MW_BIND_ERR, the MR unchanged
            st, p.b_state = "MW_BIND_ERR", "RTS"
            f = r.choice(vfree)
            self.wr = w
            self.frmr(f, p.a, False)
        elif kind == "sinv_then_write":
            # fixed by order: the SEND_WITH_INV is served (and its invalidation completes at the
            # responder) before the WRITE that follows it on the same QP: the WRITE fails whole
            m = r.choice(sinvable)
            m.inv = ("sinv_fault", p)
            rd = self.region("dst", 32, True) or ("dst", 0, 32)
            self.add({"op": "post_recv", "qp": p.b, "wr_id": w, "sge": [{"mr": "md", "offset": rd[1], "length": 32}]})
            self.count("RECV")
            self.post(p.cqb, {"wr_id": w, "status": ["SUCCESS"], "opcode": "RECV", "byte_len": 32,
                              "wc_flags": ["WITH_INVALIDATE"], "invalidate_rkey": {"mr": m.name}})
            self.add({"op": "post_send", "qp": p.a, "wr_id": self.wid(), "opcode": "SEND_WITH_INV",
                      "sge": self.sge(("src", 0, 32)), "invalidate": {"mr": m.name}})
            self.count("SEND_WITH_INV")
            self.post(p.cqa, {"wr_id": self.wr - 1, "status": ["SUCCESS"], "opcode": "SEND"})
            self.checks_same(rd, ("src", 0, 32))
            d = self.region(m, min(n, m.length), True)
            w = self.wid()
            if d:
                self.zero(d)
                rem = self.remote(d)
                n = d[2]
            else:
                rem, n = {"mr": m.name, "offset": 0}, min(n, m.length)
            self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_WRITE",
                      "sge": self.sge(("src", 0, n)), "remote": rem})
            self.count("RDMA_WRITE")
        else:   # reg_bad_access: REMOTE_WRITE without LOCAL_WRITE, refused by the driver; the QP fails otherwise
            self.add({"op": "reg_mr", "mr": self.name("bad"), "pd": "pd0", "buf": "dst", "length": 4096,
                      "access": ["REMOTE_WRITE"], "expect_error": "EINVAL"})
            self.count("reg_mr_refused")
            rem = {"mr": "md", "offset": 0}
            ps.update({"opcode": "RDMA_WRITE", "sge": self.sge(("src", 0, 8)), "remote": rem,
                       "rkey": "0x%x" % ((r.randrange(3000, 4000) << 8) | 9)})
            self.count("RDMA_WRITE")
            self.add(ps)
        self.post(p.cqa, {"wr_id": w, "status": [st]})
        for _ in range(r.randint(0, 2)):
            self.gap()
            w = self.wid()
            self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_WRITE",
                      "sge": self.sge(("src", 0, 128)), "remote": {"mr": "md", "offset": 0}})
            self.count("RDMA_WRITE")
            self.post(p.cqa, {"wr_id": w, "status": ["WR_FLUSH_ERR"]})

    # ---- doomed pairs: destroyed (or RESET) with traffic in flight ----
    def doom_start(self, p, nd):
        r = self.rng
        slot = self.npairs % JUNK_SLOTS
        self.npairs += 1
        p.slot = slot * JUNK_SLOT
        self.add("# doomed pair %s/%s: traffic into junk[0x%x..), then torn down mid-flight" % (p.a, p.b, p.slot))
        for _ in range(r.randint(1, 4)):
            n = r.randint(1, JUNK_SLOT // 2)
            o = p.slot + r.randrange(0, JUNK_SLOT - n + 1)
            k = r.choice(["write", "read", "send"])
            w = self.wid()
            if k == "write":
                self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_WRITE",
                          "sge": self.sge(("src", 0, n)), "remote": {"mr": "mj", "offset": o}})
                self.count("RDMA_WRITE")
            elif k == "read":
                self.add({"op": "post_send", "qp": p.a, "wr_id": w, "opcode": "RDMA_READ",
                          "sge": [{"mr": "mj", "offset": o, "length": n}], "remote": {"mr": "ms", "offset": 0}})
                self.count("RDMA_READ")
            else:
                self.add({"op": "post_recv", "qp": p.b, "wr_id": w, "sge": [{"mr": "mj", "offset": o, "length": n}]})
                self.add({"op": "post_send", "qp": p.a, "wr_id": self.wid(), "opcode": "SEND",
                          "sge": self.sge(("src", 0, n))})
                self.count("RECV")
                self.count("SEND")

    def doom_end(self, p):
        r = self.rng
        how = r.choice(["destroy", "destroy", "reset"])
        self.count("doomed_" + how)
        if how == "reset":
            for qp in r.sample([p.a, p.b], 2):
                self.add({"op": "modify_qp", "qp": qp, "state": "RESET"})
                self.count("modify_qp_reset")
        else:
            for qp in r.sample([p.a, p.b], 2):
                self.add({"op": "destroy_qp", "qp": qp})
                self.count("destroy_qp")
        # no DMA of the pair after that: its memory refilled now stays as refilled
        b = "byte:0x%02x" % r.randrange(256)
        self.add({"op": "host_fill", "buf": "junk", "offset": p.slot, "length": JUNK_SLOT, "fill": b})
        self.add({"op": "run", "cycles": r.randint(2000, 12000)})
        self.add({"op": "check_mem", "buf": "junk", "offset": p.slot, "hex": b[7:] * 16})
        self.add({"op": "check_mem", "buf": "junk", "offset": p.slot + JUNK_SLOT - 16, "hex": b[7:] * 16})
        self.add({"op": "check_mem", "buf": "junk", "offset": p.slot + r.randrange(0, JUNK_SLOT - 16),
                  "hex": b[7:] * 16})
        if how == "reset":
            for qp in (p.a, p.b):
                self.add({"op": "destroy_qp", "qp": qp})
                self.count("destroy_qp")
        for cq in (p.cqa, p.cqb):
            self.add({"op": "destroy_cq", "cq": cq})

    def generate(self):
        self.setup()
        ri = 0
        while ri < self.rounds if not self.ops else self.nops() < self.ops:
            self.round(ri)
            ri += 1
        self.rounds = ri
        self.add({"op": "expect_qp_state", "qp": "qc", "state": "RTS"})
        self.add({"op": "expect_cq_empty", "cq": "cqc", "after_cycles": 2000})
        head = [
            "# Generated by vectors/gen_random.py --seed %d%s: do not edit (regenerate; `make random-fresh` checks)."
            % (self.seed, self.args_text()),
            "# Constrained-random: %d rounds over %d QP pairs at a time (recycled through RESET and destroy),"
            % (self.rounds, self.qps),
            "# regular, fast-reg, indirect (KLM), peer and DMA MRs; WRITE/READ/SEND racing every kind of",
            "# invalidation, faults, pairs destroyed mid-flight. Certain outcomes exact; racing ones accept either",
            "# (a SUCCESS checks its bytes). The protection checker must stay silent; a poll timeout is a hang.",
            "# ops: " + " ".join("%s=%d" % kv for kv in sorted(self.stats.items())),
        ]
        return self.file_name(self.seed, self.mode_name), "\n".join(head + self.out) + "\n"

    @staticmethod
    def file_name(seed, mode):
        return "random_s%d.jsonl" % seed if mode == "mix" else "random_%s_s%d.jsonl" % (mode, seed)

    def args_text(self):
        t = ""
        if self.ops:
            t += " --ops %d" % self.ops
        elif self.rounds != 8:
            t += " --rounds %d" % self.rounds
        if self.qps != 4:
            t += " --qps %d" % self.qps
        if self.mode_name != "mix":
            t += " --mode %s" % self.mode_name
        if self.w != DEFAULT_WEIGHTS:
            t += " --weights " + ",".join("%s=%s" % kv for kv in sorted(self.w.items()))
        return t


def parse_weights(s):
    w = {}
    for part in (s or "").split(","):
        if not part:
            continue
        k, _, v = part.partition("=")
        if k not in DEFAULT_WEIGHTS:
            raise argparse.ArgumentTypeError("unknown weight %r (known: %s)" % (k, ", ".join(sorted(DEFAULT_WEIGHTS))))
        w[k] = float(v)
    return w


def main():
    ap = genfiles.seeds_parser(__doc__)
    ap.add_argument("--rounds", type=int, default=8, help="rounds per file (8)")
    ap.add_argument("--ops", type=int, default=0, help="rounds until this many WRs are posted (overrides --rounds)")
    ap.add_argument("--qps", type=int, default=4, help="QP pairs live at once (4; at most %d)" % (MAX_PAIRS - 2))
    ap.add_argument("--weights", type=parse_weights, default={}, help="k=v,... (%s)" % ",".join(
        "%s=%s" % kv for kv in sorted(DEFAULT_WEIGHTS.items())))
    ap.add_argument("--mode", choices=sorted(MODES), default="mix")
    ap.add_argument("--check", action="store_true", help="compare the committed seeds instead of writing")
    a = ap.parse_args()
    if a.seed:
        gens = [Gen(s, a.rounds, a.qps, a.weights, a.mode, a.ops) for s in a.seed]
    else:
        if a.check and (a.rounds != 8 or a.qps != 4 or a.weights or a.mode != "mix" or a.ops):
            ap.error("--check compares the committed seeds, written with the default knobs")
        gens = [Gen(s, mode=m) for s, m in FIXED]
    files = [(os.path.join(a.out, n), t) for n, t in (g.generate() for g in gens)]
    return genfiles.sync("random-fresh", files, () if a.seed else (a.out,), "random_", a.check)


if __name__ == "__main__":
    sys.exit(main())
