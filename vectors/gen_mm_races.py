#!/usr/bin/env python3
"""gen_mm_races.py — race sweeps of invalidation against long RDMA operations.

Writes vectors/directed/race_*.jsonl (stdlib only, deterministic: the same
arguments write the same bytes). Each file is one sweep: an invalidation of a
fast-reg MR's key — LOCAL_INV on the MR owner's send queue, or SEND_WITH_INV
arriving at a responder QP of the MR's PD — posted at many cycle offsets
against a multi-chunk RDMA WRITE into, or RDMA READ from, that MR. (The
race_destroy_* sweeps, DESTROY_SWEEPS below, race dereg_mr of a regular MR
instead: a fresh MR each round, no re-registration.)

(The race_rinv_* sweeps invalidate with an RDMA_READ_WITH_INV naming fb.)

Every round:
  1. a fresh race QP pair (MTU of the sweep) and a fresh probe pair;
  2. update_fast_reg_key + FAST_REG_MR re-register the MR with a new key byte
     (SUCCESS proves the previous round left it FREE), check_mr VALID;
  3. the long operation and the invalidation, OFFSET cycles apart (a negative
     offset posts the invalidation first);
  4. the invalidation completes SUCCESS (SEND_WITH_INV: the receive carries
     WITH_INVALIDATE and the key); the long operation completes exactly as the
     posting order fixes it (below), else SUCCESS or its failure (the winner
     is not fixed, SEMANTICS.md "Invalidation during a long operation");
  5. the bytes: the memory the operation writes (fb for a WRITE or a READ
     into fb, the READ's sink otherwise) is refilled with the round's byte
     before it; a SUCCESS checks every byte against its source (`check_mem`
     "when" SUCCESS where the winner is not fixed); an operation refused
     before its first byte (fixed by order) checks that not one byte landed;
     and where the winner is not fixed and the operation writes fb, every
     other round refills fb once the invalidation has completed and checks,
     whatever the outcome, that no byte landed after that (the rounds in
     between check the SUCCESS bytes instead: the refill would hide them);
  6. certain checks: check_mr FREE with the round's key byte; a probe through
     the old key fails and moves nothing (memory unchanged).
Fixed by the posting order (docs/engine.md): the send engine serves one
message at a time and each round starts with it idle, so the first posted is
sent first, whole; the link is in order and the responder serves requests in
arrival order, holding every later one while a SEND_INV's invalidation runs.
So a SEND_WITH_INV against a WRITE into, or a READ from, fb is no race: posted
first, the operation fails its whole-range check (REM_ACCESS_ERR, nothing
moved); posted second, the operation succeeds. So is a WRITE gathering from
fb (its local source) posted before the SEND_WITH_INV: gathered whole before
the SEND_INV leaves. Races: a LOCAL_INV (its own QP, the firmware's work
while the send engine goes on), and a SEND_WITH_INV posted before a WRITE
that gathers from fb (the send engine gathers while the firmware
invalidates).
The protection checker runs under every `hcasim run` and fails the run on any
DMA through the key after the invalidation completed (SEMANTICS.md
"Invariants the harness checks on every run"): it must stay silent.

Usage:
  python3 vectors/gen_mm_races.py [--out DIR] [--pending-out DIR]   write the files
  python3 vectors/gen_mm_races.py --check [--out DIR] [--pending-out DIR]
                                                   exit 1 unless DIR holds
                                                   exactly what would be written
"""
import argparse
import json
import os
import sys

import genfiles

def spread(lo, hi, n):
    """n offsets from lo to hi inclusive, evenly spread, integers."""
    if n == 1:
        return [lo]
    return [lo + (hi - lo) * i // (n - 1) for i in range(n)]


# The sweeps. Offsets are cycles from posting the first WR to posting the
# second (negative: the invalidation goes first). Where they sit, measured on
# the RTL engine: the requester sends one message at a time, so a LOCAL_INV or
# SEND_WITH_INV posted after a WRITE starts only once the WRITE's last packet is
# sent (about 5,000 cycles for 16 x 256 B, 11,000 for 32 x 1 KiB); a LOCAL_INV
# then takes about 860 cycles. The WRITE sweeps of LOCAL_INV therefore set a
# link latency (1,500 cycles) that keeps packets in flight while the
# invalidation lands, and crowd their offsets where it lands mid-placement; the
# SEND_WITH_INV WRITE sweeps crowd theirs before the WRITE (the SEND arrives
# first and its invalidation meets the WRITE's packets). The READ sweeps span
# the read's length. The readsink sweep invalidates, from another QP, the MR an
# RDMA READ is placing into (its local sink): the READ fails LOC_PROT_ERR.
# (Re-measured when the firmware went through the port sequencer, issue #13
# item 4: the LOCAL_INV READ sweeps meet the fence once less (5 and 4 rounds),
# the SEND_WITH_INV WRITE MTU 1024 sweep no longer sees a chunk refused after
# the invalidation: its minimum is gone.)
# Each sweep's counters: the fence waits, DRAIN waits and refusals after an
# invalidation it hits, measured on the RTL engine (per round at most one of
# each, so these are rounds), asserted as minimums by its closing
# expect_counters. The LOCAL_INV sweeps against a WRITE never make the fence
# wait: the responder's key check of a packet is a few cycles every ~300
# (the requester gathers each packet at the host's read latency), and no
# offset tried (3-cycle steps across 40 cycles, denser links, a faster host)
# put the firmware's INVALIDATE on one. Slow host writes (300 cycles a
# posted write) keep each packet's placement in flight long enough that the
# DRAIN waits on it in 11 of 14 rounds of the MTU 256 sweep (2 with the default
# cost); the MTU 1024 sweep keeps the default (slow writes move its window off
# its offsets: 0 waits; not re-aimed) and waits in 3 of 14.
# Re-aimed when the data path was pipelined (full-duplex host bus, the send
# engine's double-buffered gather, the responder's overlapped placements and
# READ gathers, docs/engine.md "Bandwidth"): every operation got about twice
# as fast, so the offsets were compressed to where the windows now are, and
# no mover holds its key check's beat for its DMA any more (gathers,
# scatters and placements take the beat when the DMA is accepted, or check a
# whole packet first; the ctx DRAIN covers the DMA), so the translation
# unit's fence waits only for checks in flight, a few cycles (0-1 a sweep
# where it was 3-10), and the sweeps assert the DRAIN waits that took over. The SEND_WITH_INV WRITE sweeps no longer
# see a refusal after the invalidation (0 of 14 at any offset tried; the
# invalidation lands before the WRITE arrives or after it was placed).
# Re-measured when the firmware's event service got its fast paths (issue #13
# item 4: a LOCAL_INV or SEND_WITH_INV invalidation about 150 cycles sooner
# after its event): the LOCAL_INV WRITE MTU 1024 sweep's DRAIN waits went
# from 7 to 4 of 14 rounds (offsets shifted by -200..+200 cycles give 3-4:
# not re-aimed), the SEND_WITH_INV WRITE sweeps' from 7 to 6 and the MTU 1024
# writesrc sweep's from 10 to 9. Again with the requester's scheduler a FIFO
# of QPs (1024-QP tables, both changes together): the MTU 256 writesrc
# sweep's from 10 to 9.
# Re-aimed when the event service read an invalidation's 3 words only and
# its decisions got shorter (fseq READ_EVT, GO, IDLE, issue #13 item 4: a
# LOCAL_INV about 50 cycles sooner after its event): the LOCAL_INV WRITE MTU
# 1024 sweep's DRAIN waits went from 4 to 3 of 14 rounds (its window 100
# cycles later: shifts -200..+300 give 3-4), the READ_WITH_INV READ sweep's
# from 11 to 10 and its refusals from 9 to 8 (its window now from -500
# cycles: 11 and 10, -480..-520 alike).
# pending: the name of a device bug; the file goes to vectors/pending/ (out of
# `make scenarios`) with the bug named in its header, until the bug is fixed.
# (The SEND_WITH_INV-during-a-long-READ deadlock this was first used for is
# fixed: hca_core's responder receive queue.)
SWEEPS = [
    dict(inv="linv", op="write", mtu=256, chunks=16, link_latency=1500, host_write_cost=300,
         offsets=[-800, -400, 0] + spread(2100, 3500, 11),
         counters=dict(drain_waits=11, refused_after_inv=12)),
    dict(inv="linv", op="write", mtu=1024, chunks=32, link_latency=1500,
         offsets=[-800, -400, 0] + spread(5250, 6750, 11),
         counters=dict(drain_waits=4, refused_after_inv=11)),
    dict(inv="linv", op="read", mtu=512, chunks=16, offsets=[-1500] + spread(0, 2000, 13),
         counters=dict(drain_waits=13, refused_after_inv=11)),
    dict(inv="linv", op="read", mtu=1024, chunks=8, offsets=[-1000] + spread(0, 2000, 13),
         counters=dict(drain_waits=8, refused_after_inv=5)),
    dict(inv="sinv", op="write", mtu=256, chunks=32, offsets=spread(-1200, 0, 10) + [1000, 3000, 6000, 9000],
         counters=dict(drain_waits=6)),
    dict(inv="sinv", op="write", mtu=1024, chunks=16, offsets=spread(-1200, 0, 10) + [1000, 3000, 5000, 7000],
         counters=dict(drain_waits=6)),
    # SEND_WITH_INV against a READ from fb is no race (module doc): the
    # responder serves the READ_REQ whole or after the invalidation, so the
    # fence and the DRAIN never find a chunk of fb in flight (0 of each,
    # measured, asserted). One sweep keeps that order checked (exact outcomes,
    # bytes); the two that were READs from fb race a WRITE gathering from fb
    # instead: the send engine gathers while the firmware invalidates (the
    # fence waits on its key checks in 10 of 14 rounds; a SEND_WITH_INV first
    # wins every round measured, the order does not fix it). A READ into fb
    # (the requester places while the responder waits for DONE) was tried:
    # at any link latency the invalidation lands before or after the READ_RESPs,
    # never among their placements (0 waits). Since the ctx DRAIN waits for
    # WQE reads too (DESTROY_QP's fence, issue #13 item 1), the READ sweep's
    # DRAIN waits once for a WQE read of the send engine, no chunk of fb (0
    # with the drain_no_wqe_read mutant): at most 1.
    dict(inv="sinv", op="writesrc", mtu=256, chunks=16, offsets=spread(-900, 300, 14),
         counters=dict(drain_waits=9)),
    dict(inv="sinv", op="writesrc", mtu=1024, chunks=12, offsets=spread(-900, 300, 14),
         counters=dict(drain_waits=9)),
    dict(inv="sinv", op="read", mtu=1024, chunks=32, offsets=spread(-1000, 14000, 14),
         counters=dict(fence_waits=(0, 0), drain_waits=(0, 1))),
    dict(inv="linv", op="readsink", mtu=256, chunks=16, offsets=[-800, -300] + spread(0, 2100, 12),
         counters=dict(drain_waits=11)),
    # RDMA_READ_WITH_INV of fb (a 64-byte READ on qc naming fb; fb is not its
    # sink) against a WRITE into fb and a READ from fb. The invalidation runs
    # after the READ_WITH_INV's response is placed, a link round trip after
    # it is sent; the send engine serves one message at a time and the
    # responder serves in arrival order, so posted after the operation it
    # comes back after it (SUCCESS, not fixed in the file: measured), and the
    # race is with the READ_WITH_INV first: its invalidation lands while the
    # operation's packets are placed (WRITE, slow host writes) or its
    # READ_RESPs gathered; measured on the model, single rounds: DRAIN waits
    # from -3,500 (WRITE) and -600 (READ) cycles up to 0, a chunk refused
    # after the invalidation from -1,500 and -500. The files: DRAIN waits in 12
    # (WRITE) and 11 (READ) of 14 rounds, refusals in 6 and 9, both engines;
    # killed by no_drain_readinv (breaches), which no race file killed before.
    dict(inv="rinv", op="write", mtu=256, chunks=16, link_latency=1500, host_write_cost=300,
         offsets=spread(-3600, -100, 12) + [0, 1500], counters=dict(drain_waits=12, refused_after_inv=6)),
    dict(inv="rinv", op="read", mtu=512, chunks=16, offsets=[-1500] + spread(-500, -20, 11) + [0, 1000],
         counters=dict(drain_waits=11, refused_after_inv=9)),
]
# (At most 14 rounds a file: a round takes 4 QPs, the file 2-4 more, the device has 63.)

IOVA = 0x40000000
ACCESS = ["LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE"]


def J(o):
    return json.dumps(o, separators=(",", ":"))


def key_byte(sweep, rnd):
    # consecutive rounds differ (an odd step mod 256); sweeps start apart
    return (0x11 + 0x35 * sweep + 0x25 * rnd) & 0xFF


def sweep_file(si, inv, op, mtu, chunks, offsets, link_latency=None, pending=None, counters=None, host_write_cost=None,
               host_read_latency=None, run=False):
    size = mtu * chunks
    rounds = len(offsets)
    pages = (size + 4095) // 4096
    name = "race_%s%s_%s_mtu%d_x%d.jsonl" % (inv, "run" if run else "", op, mtu, chunks)
    inv_name = {"linv": "LOCAL_INV (on the MR owner's send queue)",
                "sinv": "SEND_WITH_INV (arriving at a responder QP of the MR's PD)",
                "rinv": "RDMA_READ_WITH_INV (a 64-byte READ on the MR owner's send queue naming fb)"}[inv]
    opname = "RDMA_WRITE" if op in ("write", "writesrc") else "RDMA_READ"
    sink = op == "readsink"  # fb is the READ's local sink: LOC_PROT_ERR (row 1), not REM_ACCESS_ERR (row 3)
    gather = op == "writesrc"  # fb is the WRITE's local source: LOC_PROT_ERR (row 1) too
    local = sink or gather
    fail = "LOC_PROT_ERR" if local else "REM_ACCESS_ERR"
    what = {"write": "%s into fb", "read": "%s from fb", "readsink": "%s from a regular MR into fb (its local sink)",
            "writesrc": "%s from fb (its local source) into a regular MR"}[op]
    offs = offsets
    lo, hi = min(offs), max(offs)
    head = [
        "# Generated by vectors/gen_mm_races.py: do not edit (regenerate; `make races-fresh` checks).",
        "# Race sweep: %s of fast-reg MR fb's key against a %d-byte %s (MTU %d, %d chunks)," % (
            inv_name, size, what % opname, mtu, chunks),
        "# posted at %d cycle offsets from %d to %d (negative: the invalidation first)%s. SEMANTICS.md" % (
            rounds, lo, hi, (", link latency %d cycles" % link_latency if link_latency else "") +
            (", host writes %d cycles" % host_write_cost if host_write_cost else "") +
            (", host reads %d cycles" % host_read_latency if host_read_latency else "")),
        "# \"Invalidation during a long operation\": every chunk re-checks the key; once the invalidation has",
        "# completed no DMA reaches memory through the old key (the protection checker fails the run otherwise),",
        "# so the %s completes SUCCESS or %s: exactly the one the posting order fixes where it does (the round's" % (
            opname, fail),
        "# comment says which, gen_mm_races.py why), else either. A SUCCESS checks every byte; an operation refused",
        "# before its first byte checks that none landed; every other race round writing fb refills it once the",
        "# invalidation completed and checks that no byte landed after. Certain after every round:",
        "# the invalidation SUCCESS%s, fb FREE with the round's key byte," % (
            " (RECV with WITH_INVALIDATE and invalidate_rkey)" if inv == "sinv" else ""),
        "# and a probe %s through the old key fails %s moving nothing (\"Where a failed check" % (opname, fail),
        "# lands\", row %d). Each round re-registers fb with a new key byte (FAST_REG_MR SUCCESS: it was FREE)." % (
            1 if local else 3),
    ]
    if run:
        head += [
            "# Each round also posts, right after fb's LOCAL_INV, a LOCAL_INV of the FREE fast-reg MR fc (SUCCESS: an",
            "# MR already FREE is invalidated again) on another QP (qe): both events reach the firmware in one batch,",
            "# fb's first, and are committed as one run (firmware/mm.c: every INVALIDATE, one DRAIN, the DONEs), whose",
            "# DRAIN must follow fb's INVALIDATE too (mutant run_drain_early: breaches).",
        ]
    if pending:
        head[1:1] = ["# PENDING (not in vectors/directed): " + pending]
    L = []
    add = L.append
    dev = {"op": "device", "link_latency": link_latency, "host_write_cost": host_write_cost,
           "host_read_latency": host_read_latency}
    dev = {k: v for k, v in dev.items() if v}
    if len(dev) > 1:
        add(dev)
    add({"op": "alloc_pd", "pd": "pd0"})
    cqs = ("cqc", "cqs", "cqr", "cqx", "cqy", "cqp") + (("cqe",) if run else ())
    for cq in cqs:
        add({"op": "create_cq", "cq": cq, "depth": 64})
    # control pair: qc registers and (LOCAL_INV) invalidates fb
    add({"op": "create_qp", "qp": "qc", "pd": "pd0", "send_cq": "cqc", "recv_cq": "cqc"})
    add({"op": "create_qp", "qp": "qd", "pd": "pd0", "send_cq": "cqc", "recv_cq": "cqc"})
    add({"op": "connect", "qp": "qc", "remote": "qd"})
    if run:  # qe invalidates fc right after qc invalidates fb
        add({"op": "create_qp", "qp": "qe", "pd": "pd0", "send_cq": "cqe", "recv_cq": "cqe"})
        add({"op": "create_qp", "qp": "qf", "pd": "pd0", "send_cq": "cqe", "recv_cq": "cqe"})
        add({"op": "connect", "qp": "qe", "remote": "qf"})
        add({"op": "alloc_mr", "mr": "fc", "pd": "pd0", "type": "fast_reg", "max_page_list_len": 1})
    if inv == "sinv":
        add({"op": "create_qp", "qp": "qs", "pd": "pd0", "send_cq": "cqs", "recv_cq": "cqs"})
        add({"op": "create_qp", "qp": "qr", "pd": "pd0", "send_cq": "cqr", "recv_cq": "cqr"})
        add({"op": "connect", "qp": "qs", "remote": "qr"})
        add({"op": "host_alloc", "buf": "rbuf", "size": 4096})
        add({"op": "reg_mr", "mr": "mrb", "pd": "pd0", "buf": "rbuf", "access": ["LOCAL_WRITE"]})
    add({"op": "host_alloc", "buf": "fbuf", "size": pages * 4096, "fill": "random"})
    add({"op": "host_alloc", "buf": "src", "size": size, "fill": "random"})
    add({"op": "host_alloc", "buf": "dst", "size": size})
    add({"op": "host_alloc", "buf": "pbuf", "size": 4096})
    add({"op": "host_alloc", "buf": "ref", "size": pages * 4096})  # what untouched memory holds
    add({"op": "reg_mr", "mr": "ms", "pd": "pd0", "buf": "src", "access": []})
    add({"op": "reg_mr", "mr": "md", "pd": "pd0", "buf": "dst", "access": ["LOCAL_WRITE"]})
    add({"op": "reg_mr", "mr": "mp", "pd": "pd0", "buf": "pbuf", "access": ["LOCAL_WRITE"]})
    if sink:
        add({"op": "reg_mr", "mr": "mrr", "pd": "pd0", "buf": "src", "access": ["REMOTE_READ"]})
    if inv == "rinv":  # what the READ_WITH_INV reads (qd's side), into pbuf past the probe's bytes
        add({"op": "reg_mr", "mr": "mrq", "pd": "pd0", "buf": "src", "access": ["REMOTE_READ"]})
    if gather:
        add({"op": "reg_mr", "mr": "mw", "pd": "pd0", "buf": "dst", "access": ["LOCAL_WRITE", "REMOTE_WRITE"]})
    add({"op": "alloc_mr", "mr": "fb", "pd": "pd0", "type": "fast_reg", "max_page_list_len": pages})
    add({"op": "alloc_fast_reg_page_list", "pl": "pl", "len": pages})
    # pages in reverse order: iova page i is fbuf page pages-1-i
    add({"op": "set_page_list", "pl": "pl",
         "pages": [{"buf": "fbuf", "offset": 4096 * (pages - 1 - i)} for i in range(pages)]})
    body = [J(o) for o in L]
    wr = 1
    for r, off in enumerate(offs):
        k = key_byte(si, r)
        (a, b, p, q), R = genfiles.race_round_qps(r, mtu)
        R.append({"op": "update_fast_reg_key", "mr": "fb", "key": k})
        R.append({"op": "post_send", "qp": "qc", "wr_id": wr, "opcode": "FAST_REG_MR", "mr": "fb", "page_list": "pl",
                  "page_shift": 12, "iova": IOVA, "length": size, "access": ACCESS})
        R.append({"op": "poll_cq", "cq": "cqc", "expect": [{"wr_id": wr, "status": "SUCCESS", "opcode": "FAST_REG_MR"}]})
        R.append({"op": "check_mr", "mr": "fb", "expect": {"state": "VALID", "key": k, "length": size}})
        w_fr, w_op, w_inv, w_recv, w_probe, w_inv2 = wr, wr + 1, wr + 2, wr + 3, wr + 4, wr + 5
        wr += 10
        if op == "write":
            race = {"op": "post_send", "qp": a, "wr_id": w_op, "opcode": "RDMA_WRITE",
                    "sge": [{"mr": "ms", "offset": 0, "length": size}], "remote": {"mr": "fb", "offset": 0}}
        elif gather:
            race = {"op": "post_send", "qp": a, "wr_id": w_op, "opcode": "RDMA_WRITE",
                    "sge": [{"mr": "fb", "offset": 0, "length": size}], "remote": {"mr": "mw", "offset": 0}}
        elif sink:
            race = {"op": "post_send", "qp": a, "wr_id": w_op, "opcode": "RDMA_READ",
                    "sge": [{"mr": "fb", "offset": 0, "length": size}], "remote": {"mr": "mrr", "offset": 0}}
        else:
            race = {"op": "post_send", "qp": a, "wr_id": w_op, "opcode": "RDMA_READ",
                    "sge": [{"mr": "md", "offset": 0, "length": size}], "remote": {"mr": "fb", "offset": 0}}
        if inv == "linv":
            invw = {"op": "post_send", "qp": "qc", "wr_id": w_inv, "opcode": "LOCAL_INV", "invalidate": {"mr": "fb"}}
        elif inv == "rinv":
            invw = {"op": "post_send", "qp": "qc", "wr_id": w_inv, "opcode": "RDMA_READ_WITH_INV",
                    "sge": [{"mr": "mp", "offset": 2048, "length": 64}], "remote": {"mr": "mrq", "offset": 0},
                    "invalidate": {"mr": "fb"}}
        else:
            R.append({"op": "post_recv", "qp": "qr", "wr_id": w_recv,
                      "sge": [{"mr": "mrb", "offset": 0, "length": 64}]})
            invw = {"op": "post_send", "qp": "qs", "wr_id": w_inv, "opcode": "SEND_WITH_INV",
                    "sge": [{"mr": "ms", "offset": 0, "length": 64}], "invalidate": {"mr": "fb"}}
        invs = [invw]
        if run:
            invs.append({"op": "post_send", "qp": "qe", "wr_id": w_inv2, "opcode": "LOCAL_INV",
                         "invalidate": {"mr": "fc"}})
        first, second = (race, invs) if off >= 0 else (invs, race)
        # what the operation writes: fb (WRITE, READ into fb) or the READ's sink
        into_dst = op in ("read", "writesrc")  # bytes read through fb land in dst, through another key
        tgt = "dst" if into_dst else "fbuf"
        tlen = size if into_dst else pages * 4096
        # the posting order decides (module doc): a SEND_WITH_INV against fb at
        # the responder; a WRITE gathering from fb posted before the SEND_WITH_INV
        fixed = inv == "sinv" and (not local or (gather and off >= 0))
        # check that nothing lands after the invalidation: where bytes land through fb's key
        refill = not fixed and not into_dst and r % 2 == 0
        R.append("# round %d: key byte %d, %s %d cycles before %s%s" % (
            r, k, "RDMA op" if off >= 0 else "invalidation", abs(off), "the invalidation" if off >= 0 else "the RDMA op",
            ": fixed, %s" % ("SUCCESS" if off >= 0 else fail) if fixed else
            ": a race, nothing may land after the invalidation" if refill else ": a race"))
        R.append({"op": "host_fill", "buf": tgt, "length": tlen, "fill": "byte:0x%02x" % k})
        R.append({"op": "host_fill", "buf": "ref", "length": tlen, "fill": "byte:0x%02x" % k})
        for x in (first, {"op": "run", "cycles": abs(off)} if off else None, second):
            if x:
                R += x if isinstance(x, list) else [x]
        if inv != "sinv":
            R.append({"op": "poll_cq", "cq": "cqc", "expect": [
                {"wr_id": w_inv, "status": "SUCCESS", "opcode": "LOCAL_INV" if inv == "linv" else "RDMA_READ"}]})
            if run:
                R.append({"op": "poll_cq", "cq": "cqe", "expect": [
                    {"wr_id": w_inv2, "status": "SUCCESS", "opcode": "LOCAL_INV"}]})
            if refill:
                R.append({"op": "host_fill", "buf": tgt, "length": tlen, "fill": "byte:0x%02x" % (k ^ 0xFF)})
                R.append({"op": "host_fill", "buf": "ref", "length": tlen, "fill": "byte:0x%02x" % (k ^ 0xFF)})
        else:
            R.append({"op": "poll_cq", "cq": "cqs", "expect": [{"wr_id": w_inv, "status": "SUCCESS", "opcode": "SEND"}]})
            R.append({"op": "poll_cq", "cq": "cqr",
                      "expect": [{"wr_id": w_recv, "status": "SUCCESS", "opcode": "RECV", "byte_len": 64,
                                  "wc_flags": ["WITH_INVALIDATE"], "invalidate_rkey": {"mr": "fb"}}]})
            if refill:
                R.append({"op": "host_fill", "buf": tgt, "length": tlen, "fill": "byte:0x%02x" % (k ^ 0xFF)})
                R.append({"op": "host_fill", "buf": "ref", "length": tlen, "fill": "byte:0x%02x" % (k ^ 0xFF)})
        status = ("SUCCESS" if off >= 0 else fail) if fixed else ["SUCCESS", fail]
        R.append({"op": "poll_cq", "cq": "cqx", "expect": [{"wr_id": w_op, "status": status, "opcode": opname}]})
        untouched = {"op": "check_mem", "buf": tgt, "same_as": {"buf": "ref", "offset": 0}, "length": tlen}
        if refill or (fixed and off < 0):
            R.append(untouched)  # refused before its first byte / nothing after the invalidation
        else:
            when = None if fixed else {"qp": a, "wr_id": w_op, "status": "SUCCESS"}
            for i in range(pages):  # iova page i is fbuf page pages-1-i
                fpage = {"buf": "fbuf", "offset": 4096 * (pages - 1 - i)}
                if into_dst:
                    chk = {"op": "check_mem", "buf": "dst", "offset": 4096 * i, "same_as": fpage, "length": 4096}
                else:
                    chk = {"op": "check_mem", "buf": "fbuf", "offset": fpage["offset"],
                           "same_as": {"buf": "src", "offset": 4096 * i}, "length": 4096}
                if when:
                    chk["when"] = when
                R.append(chk)
        R.append({"op": "check_mr", "mr": "fb", "expect": {"state": "FREE", "key": k}})
        # the probe through the old key: refused, nothing moved
        if op == "write":
            R.append({"op": "host_write", "buf": "fbuf", "offset": 4096 * (pages - 1), "hex": "00" * 16})
            R.append({"op": "post_send", "qp": p, "wr_id": w_probe, "opcode": "RDMA_WRITE",
                      "sge": [{"mr": "ms", "offset": 0, "length": 256}], "remote": {"mr": "fb", "offset": 0}})
            R.append({"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": w_probe, "status": "REM_ACCESS_ERR"}]})
            R.append({"op": "check_mem", "buf": "fbuf", "offset": 4096 * (pages - 1), "hex": "00" * 16})
        elif gather:
            R.append({"op": "host_write", "buf": "dst", "offset": 0, "hex": "00" * 16})
            R.append({"op": "post_send", "qp": p, "wr_id": w_probe, "opcode": "RDMA_WRITE",
                      "sge": [{"mr": "fb", "offset": 0, "length": 256}], "remote": {"mr": "mw", "offset": 0}})
            R.append({"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": w_probe, "status": "LOC_PROT_ERR"}]})
            R.append({"op": "check_mem", "buf": "dst", "offset": 0, "hex": "00" * 16})
        elif sink:
            R.append({"op": "host_write", "buf": "fbuf", "offset": 4096 * (pages - 1), "hex": "00" * 16})
            R.append({"op": "post_send", "qp": p, "wr_id": w_probe, "opcode": "RDMA_READ",
                      "sge": [{"mr": "fb", "offset": 0, "length": 256}], "remote": {"mr": "mrr", "offset": 0}})
            R.append({"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": w_probe, "status": "LOC_PROT_ERR"}]})
            R.append({"op": "check_mem", "buf": "fbuf", "offset": 4096 * (pages - 1), "hex": "00" * 16})
        else:
            R.append({"op": "host_write", "buf": "pbuf", "offset": 0, "hex": "00" * 16})
            R.append({"op": "post_send", "qp": p, "wr_id": w_probe, "opcode": "RDMA_READ",
                      "sge": [{"mr": "mp", "offset": 0, "length": 256}], "remote": {"mr": "fb", "offset": 0}})
            R.append({"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": w_probe, "status": "REM_ACCESS_ERR"}]})
            R.append({"op": "check_mem", "buf": "pbuf", "offset": 0, "hex": "00" * 16})
        R.append({"op": "expect_qp_state", "qp": p, "state": "ERROR"})
        body += [x if isinstance(x, str) else J(x) for x in R]
    tail = [{"op": "expect_qp_state", "qp": q, "state": "RTS"} for q in ("qc",) + (("qe",) if run else ())]
    if inv == "sinv":
        tail.append({"op": "expect_qp_state", "qp": "qs", "state": "RTS"})
        tail.append({"op": "expect_qp_state", "qp": "qr", "state": "RTS"})
    for cq in cqs:
        tail.append({"op": "expect_cq_empty", "cq": cq, "after_cycles": 0 if cq != "cqc" else 2000})
    body += [J(o) for o in tail]
    body += genfiles.counters_lines(counters)
    return name, "\n".join(head + body) + "\n"


# dereg_mr (DESTROY_MKEY) against a long RDMA WRITE into, or READ from, a
# regular MR: docs/mutation.md, mutant no_drain_destroy. DESTROY_MKEY fences
# the key (INVALIDATE), runs the ctx DRAIN, frees the slot and answers; the
# key is dead at the answer. Without the DRAIN the firmware's work after the
# fence (freeing the slot, answering) is short beside a placement or a read
# still in flight when host memory is slow, so a DMA checked before the fence
# lands after the answer: a breach. Slow host writes (WRITE) or reads (READ)
# keep those DMAs in flight (2,000 cycles: the channel serves one at a time,
# so a 16 KiB op takes about 30,000 cycles): offsets crowd the op's start (the
# DRAIN waits on the first packets' DMAs), then span it, and end where the op
# wins (SUCCESS, bytes checked). Measured (both engines agree): DRAIN waits in
# 9 (WRITE) and 8 (READ) of 14 rounds, asserted; with no_drain_destroy, single
# rounds breach at 900-2100, 5000, 10000, 17000 (WRITE) and 2400-3600,
# 5000-15000 (READ). The translation unit's fence never waits here (0 of 14
# rounds; a placement crossing a page of the MR, two beats, met it at one
# offset in 20 tried 10 cycles apart): its fence covers key checks only, a few
# cycles each, and the DMAs they allow are the DRAIN's (docs/engine.md).
DESTROY_SWEEPS = [
    dict(op="write", mtu=1024, chunks=16, host_write_cost=2000,
         offsets=[-400] + spread(300, 2700, 5) + spread(5000, 25000, 6) + [30000, 34000],
         counters=dict(drain_waits=9, refused_after_inv=7)),
    dict(op="read", mtu=1024, chunks=16, host_read_latency=2000,
         offsets=[-400] + spread(2400, 4000, 5) + spread(5000, 30000, 6) + [34000, 38000],
         counters=dict(drain_waits=8, refused_after_inv=8)),
]


def destroy_file(si, op, mtu, chunks, offsets, counters, host_write_cost=None, host_read_latency=None):
    size = mtu * chunks
    name = "race_destroy_%s_mtu%d_x%d.jsonl" % (op, mtu, chunks)
    opname = "RDMA_WRITE" if op == "write" else "RDMA_READ"
    dev = {"op": "device"}
    if host_write_cost:
        dev["host_write_cost"] = host_write_cost
    if host_read_latency:
        dev["host_read_latency"] = host_read_latency
    slow = ", ".join("%s %d cycles" % (k.replace("_", " "), v) for k, v in dev.items() if k != "op")
    head = [
        "# Generated by vectors/gen_mm_races.py: do not edit (regenerate; `make races-fresh` checks).",
        "# Race sweep: dereg_mr (DESTROY_MKEY) of a regular MR m<round> against a %d-byte %s %s it" % (
            size, opname, "into" if op == "write" else "from"),
        "# (MTU %d, %d chunks), posted at %d cycle offsets from %d to %d (negative: the dereg first), %s." % (
            mtu, chunks, len(offsets), min(offsets), max(offsets), slow),
        "# SEMANTICS.md \"Invalidation during a long operation\": once DESTROY_MKEY has answered no DMA through the",
        "# key reaches memory (the protection checker fails the run otherwise; the firmware's DRAIN makes it so,",
        "# and mutant no_drain_destroy must fail here). The %s completes SUCCESS or REM_ACCESS_ERR (exactly" % opname,
        "# REM_ACCESS_ERR when the dereg went first); a SUCCESS checks every byte;%s a probe through the" % (
            " every other race round refills the MR's memory once dereg_mr returned and checks that no byte landed after;"
            if op == "write" else ""),
        "# old key fails REM_ACCESS_ERR moving nothing; the slot is free after (check_mr allocated false).",
    ]
    L = [dev, {"op": "alloc_pd", "pd": "pd0"}]
    for cq in ("cqx", "cqy", "cqp"):
        L.append({"op": "create_cq", "cq": cq, "depth": 64})
    L += [{"op": "host_alloc", "buf": "fbuf", "size": size, "fill": "random"},
          {"op": "host_alloc", "buf": "src", "size": size, "fill": "random"},
          {"op": "host_alloc", "buf": "dst", "size": size},
          {"op": "host_alloc", "buf": "pbuf", "size": 4096},
          {"op": "host_alloc", "buf": "ref", "size": size},
          {"op": "reg_mr", "mr": "ms", "pd": "pd0", "buf": "src", "access": []},
          {"op": "reg_mr", "mr": "md", "pd": "pd0", "buf": "dst", "access": ["LOCAL_WRITE"]},
          {"op": "reg_mr", "mr": "mp", "pd": "pd0", "buf": "pbuf", "access": ["LOCAL_WRITE"]}]
    body = [J(o) for o in L]
    wr = 1
    for r, off in enumerate(offsets):
        k = key_byte(si, r)
        (a, b, p, q), qps = genfiles.race_round_qps(r, mtu)
        m = "m%d" % r
        w_op, w_probe = wr, wr + 1
        wr += 10
        tgt = "fbuf" if op == "write" else "dst"
        fixed = off < 0
        refill = op == "write" and not fixed and r % 2 == 1
        R = ["# round %d: %s %d cycles before %s%s" % (
            r, "RDMA op" if off >= 0 else "dereg", abs(off), "the dereg" if off >= 0 else "the RDMA op",
            ": fixed, REM_ACCESS_ERR" if fixed else
            ": a race, nothing may land after the dereg" if refill else ": a race")]
        R += qps + [
            {"op": "reg_mr", "mr": m, "pd": "pd0", "buf": "fbuf", "access": ACCESS},
            {"op": "check_mr", "mr": m, "expect": {"state": "VALID", "length": size}},
            {"op": "host_fill", "buf": tgt, "fill": "byte:0x%02x" % k},
            {"op": "host_fill", "buf": "ref", "fill": "byte:0x%02x" % k}]
        if op == "write":
            race = {"op": "post_send", "qp": a, "wr_id": w_op, "opcode": "RDMA_WRITE",
                    "sge": [{"mr": "ms", "offset": 0, "length": size}], "remote": {"mr": m, "offset": 0}}
        else:
            race = {"op": "post_send", "qp": a, "wr_id": w_op, "opcode": "RDMA_READ",
                    "sge": [{"mr": "md", "offset": 0, "length": size}], "remote": {"mr": m, "offset": 0}}
        dereg = {"op": "dereg_mr", "mr": m}
        R += [race, {"op": "run", "cycles": off}, dereg] if off >= 0 else \
             [dereg, {"op": "run", "cycles": -off}, race]
        if refill:
            R += [{"op": "host_fill", "buf": tgt, "fill": "byte:0x%02x" % (k ^ 0xFF)},
                  {"op": "host_fill", "buf": "ref", "fill": "byte:0x%02x" % (k ^ 0xFF)}]
        R.append({"op": "poll_cq", "cq": "cqx", "expect": [
            {"wr_id": w_op, "status": "REM_ACCESS_ERR" if fixed else ["SUCCESS", "REM_ACCESS_ERR"], "opcode": opname}]})
        if fixed or refill:
            R.append({"op": "check_mem", "buf": tgt, "same_as": {"buf": "ref", "offset": 0}, "length": size})
        else:
            R.append({"op": "check_mem", "buf": "fbuf" if op == "write" else "dst",
                      "same_as": {"buf": "src" if op == "write" else "fbuf", "offset": 0}, "length": size,
                      "when": {"qp": a, "wr_id": w_op, "status": "SUCCESS"}})
        R.append({"op": "check_mr", "mr": m, "expect": {"allocated": False}})
        # the probe through the old key: refused, nothing moved
        if op == "write":
            R += [{"op": "host_write", "buf": "fbuf", "offset": 0, "hex": "00" * 16},
                  {"op": "post_send", "qp": p, "wr_id": w_probe, "opcode": "RDMA_WRITE",
                   "sge": [{"mr": "ms", "offset": 0, "length": 256}], "remote": {"mr": m, "offset": 0}},
                  {"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": w_probe, "status": "REM_ACCESS_ERR"}]},
                  {"op": "check_mem", "buf": "fbuf", "offset": 0, "hex": "00" * 16}]
        else:
            R += [{"op": "host_write", "buf": "pbuf", "offset": 0, "hex": "00" * 16},
                  {"op": "post_send", "qp": p, "wr_id": w_probe, "opcode": "RDMA_READ",
                   "sge": [{"mr": "mp", "offset": 0, "length": 256}], "remote": {"mr": m, "offset": 0}},
                  {"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": w_probe, "status": "REM_ACCESS_ERR"}]},
                  {"op": "check_mem", "buf": "pbuf", "offset": 0, "hex": "00" * 16}]
        R.append({"op": "expect_qp_state", "qp": p, "state": "ERROR"})
        body += [x if isinstance(x, str) else J(x) for x in R]
    body += [J({"op": "expect_cq_empty", "cq": cq}) for cq in ("cqx", "cqy", "cqp")]
    body += genfiles.counters_lines(counters)
    return name, "\n".join(head + body) + "\n"


# A sweep of SWEEPS' kind with a second LOCAL_INV (of a FREE MR, on another
# QP) posted right after fb's, so the firmware commits both as one run, fb's
# first (firmware/mm.c "run"): mutant run_drain_early's DRAIN comes before
# fb's INVALIDATE, and a READ_RESP gathered through a check made before it
# lands after the completion (breaches). The READ MTU 512 sweep's offsets;
# measured (both engines): DRAIN waits in 13 of 14 rounds, refusals in 11.
# (After DESTROY_SWEEPS: the earlier files' key bytes stay as they were.)
RUN_SWEEPS = [
    dict(inv="linv", op="read", mtu=512, chunks=16, offsets=[-1500] + spread(0, 2000, 13), run=True,
         counters=dict(drain_waits=13, refused_after_inv=11)),
]


def generate():
    """[(name, text, pending)] of every sweep."""
    out = []
    for i, sw in enumerate(SWEEPS):
        name, text = sweep_file(i, **sw)
        out.append((name, text, bool(sw.get("pending"))))
    for i, sw in enumerate(DESTROY_SWEEPS):
        out.append(destroy_file(len(SWEEPS) + i, **sw) + (False,))
    for i, sw in enumerate(RUN_SWEEPS):
        out.append(sweep_file(len(SWEEPS) + len(DESTROY_SWEEPS) + i, **sw) + (False,))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "directed"), help="where the sweeps go")
    ap.add_argument("--pending-out", default=os.path.join(here, "pending"),
                    help="where sweeps held back by a device bug go")
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    a = ap.parse_args()
    files = [(os.path.join(a.pending_out if pend else a.out, n), text) for n, text, pend in generate()]
    return genfiles.sync("races-fresh", files, (a.out, a.pending_out), "race_", a.check)


if __name__ == "__main__":
    sys.exit(main())
