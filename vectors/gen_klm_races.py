#!/usr/bin/env python3
"""gen_klm_races — race sweeps of LOCAL_INV against multi-chunk RDMA through
an indirect (KLM) key: vectors/directed/klm_race_*.jsonl.

    python3 vectors/gen_klm_races.py            write the sweeps
    python3 vectors/gen_klm_races.py --check    the committed files are
                                                exactly what would be written

Each round registers a fast-reg MR fb (its key byte new each round) and a
fresh indirect MR over [a regular MR's 4 KiB as two 2 KiB entries, fb's
4 KiB], posts an 8 KiB
RDMA op through the indirect R_Key on one QP (MTU 256: 32 chunks) and, on the
MRs' owner QP, a LOCAL_INV `offset` cycles later (negative: first) of either
the entry fb or the indirect MR itself. SEMANTICS.md rule 7 and "Invalidation
during a long operation": every chunk is checked through the indirection at
its own time, so the op completes SUCCESS or REM_ACCESS_ERR (the winner is not
fixed) and the checker stays silent (an entry's invalidation fences the
indirect key: I2). Certain after every round: the LOCAL_INV SUCCESS, and a
probe WRITE through the indirect key into fb's half fails REM_ACCESS_ERR
moving nothing.
"""
import sys

import genfiles
from genfiles import J, spread, sweep_main


# Measured on the RTL engine: an 8 KiB RDMA WRITE at MTU 256 takes about
# 9,500 cycles post to CQE, a READ about 8,000; fb's half is the second. A
# LOCAL_INV's DRAIN waits until the responder's placement engine is seen idle,
# which a back-to-back WRITE stream never is: the WRITE sweeps set a link
# latency (1,500 cycles) that leaves gaps between placements, as
# gen_mm_races.py does. The offsets span each op. counters: what each sweep
# hits, measured (rounds; gen_mm_races.py says how), asserted as minimums. The
# WRITE sweeps also make host writes slow (300 cycles a posted write): each
# packet's placement, and the KLM walk checking the next, stay in flight long
# enough that the fence and the DRAIN wait in most rounds (with the default
# cost: 0 of 12; the invalidation landed between the spaced packets).
# With those costs the firmware's INVALIDATE and the responder's next translation
# both follow the end of a host write, a fixed number of cycles apart whatever
# the offset: whether the fence waits is set by how long the walk of a packet
# through the indirect key takes, not by the offset. Since the KLM walker reads
# a whole entry per cycle (docs/klm.md) a packet into fb's half of a
# [m, fb] list was translated a cycle before the INVALIDATE (0 fence waits in
# 12 rounds); the first half as two entries (one more entry scanned for fb's
# packets) brings the walk back over it (7 of 12, as with the old walker).
M_ENTRIES = [(0, 2048), (2048, 2048)]
# Re-aimed when the data path was pipelined (gen_mm_races.py says how): the
# offsets span the now twice-as-fast ops, and the WRITE sweeps' fence waits
# became DRAIN waits (placements take their beats when their DMA is
# accepted); the READ sweep still meets the fence (5 of 12: the KLM walk
# of a READ chunk's re-check in flight at the INVALIDATE) and asserts it.
# Re-aimed at the mutation matrix's rule that a kill is a breach or a wrong
# result, not a counter minimum (docs/mutation.md): with 300-cycle host
# writes and default reads, no_drain_linv failed the entry sweeps only by
# their drain_waits. Host writes of 1,000 cycles keep the entry WRITE sweep's
# placements in flight past the LOCAL_INV (a breach without the DRAIN; the
# same counts); the fence READ sweep keeps default reads (600-cycle reads
# move its fence waits to 0) and a second READ sweep with 600-cycle host
# reads is the one no_drain_linv breaches (the READ gathers in flight).
# Re-aimed when the firmware's event service got its fast paths (issue #13
# item 4): the LOCAL_INV's INVALIDATE came about 150 cycles sooner and the
# fence READ sweep met the fence in 0 of 12 rounds; its offsets after the
# post moved 60 cycles later (shifts of 0-160 scanned, 4-cycle steps around
# 20-72: 0-4 waits, a few cycles apart; 60 one of the most) and it meets it
# in 4.
# Re-aimed when the responder's RQ flush became a queue (no flush-scan step
# between two packets, so an idle responder takes each packet at once): the
# indirect WRITE sweep with 300-cycle host writes met the DRAIN in 0 of 12
# rounds (400, 600 and 1,000 cycles: 11, model engine); it takes the entry
# sweep's 1,000.
# Re-aimed when the event service's read and one-page FAST_REG_MR program
# got shorter (the event's rsvd word not read, 4 MPT words stored per event):
# the fence READ sweep at 60 met the fence in 2 of 12 rounds; shifts 0-160
# scanned in 8-cycle steps, 58-68 in 2 (0, 2, 3, 4, 5, 2 waits): 64 meets it
# in 4 (model and RTL).
# Re-aimed when the event service read an invalidation's 3 words only and
# its decisions got shorter (fseq READ_EVT, GO, IDLE, issue #13 item 4): at
# 64 the fence READ sweep met the fence in 1 of 12 rounds; shifts 0-200
# scanned in 8-cycle steps, 100-132 in 2 (88-136: 1-6 waits): 102 meets it
# in 4 (model and RTL) and is one of the two (96, 102) where no_drain_linv
# still breaches, as it did at 64 before (at 112: 5 waits, no breach).
# Again with the WQE read-ahead at 16 entries (a miss read through it, the
# waiting QP yielding) and the CQ writer pipelined on top of that: at 102
# the fence READ sweep meets the fence in 3 of 12 rounds (shifts 80-136 in
# 4-cycle steps: 0-5, with no_drain_linv breaching at 86, 90, 98 and 102
# only among those scanned), so 102 is kept with a minimum of 3; the
# 600-cycle READ sweep refuses 10 chunks after an invalidation, not 11.
# Again when the engine checked a one-page FAST_REG_MR's own rules
# (fw_event.wqe_ok, mpt_flags: the service loop's code, so the LOCAL_INV's
# INVALIDATE, moved by a few cycles): at 102 the fence READ sweep met the
# fence in 1 of 12 rounds and no_drain_linv no longer breached it; shifts
# 0-260 scanned in 4-cycle steps, 82-95 in 1 (model): 82-85 meet the fence
# 3-4 times but no_drain_linv survives them, 87-95 are breached by it with
# 2 fence waits at most; 88 meets the fence in 2 and is breached, so it is
# kept with a minimum of 2.
# Again when a one-page FAST_REG_MR became fwp FAST_REG and its event read
# hdr, pd and key only (issue #13 item 4: the service loop's code, so the
# LOCAL_INV's INVALIDATE, moved): at 88 the fence READ sweep met the fence
# in 1 of 12 rounds; shifts 0-260 scanned in 8-cycle steps, 76-100 and
# 217-231 in 1 (model): 90-96 meet it 2-3 times, 91-95 3, but no_drain_linv
# breaches none of them (it breaches at 24-80 and 224-230, where the fence
# is met once at most); 93 is kept with a minimum of 3 (model and RTL),
# the READ sweep with 600-cycle host reads being the one no_drain_linv
# breaches.
# Again with both the invalidation runs (one DRAIN a run of a batch's
# invalidations) and fwp FAST_REG merged: at 93 the sweep met the fence
# twice; shifts 70-130 scanned in 1 (model): 85-90 meet it 4 times, 82-84
# and 103-113 3; no_drain_linv breaches none of 80-112; 87 is kept with a
# minimum of 3 (its DRAIN waits 10 there, 11 at 39 of the 61 shifts).
# Again when invalidations came with the device's MPT verdict (hdr.inv_ok:
# the run loop shorter, the event read 2 words; LOCAL_INV 92 -> 77 cycles/WR
# steady): at 87 the sweep met the fence once; shifts 60-130 scanned in 2,
# 69-77 in 1 (model): 70-77 and 108-112 meet it 4 times, 82-94 once;
# no_drain_linv breaches none of them (as before); 73 is kept with a
# minimum of 3 (4 on the model and the RTL). Again with two WQEs read ahead
# per QP and an untrusted invalidation's MR named after its index check
# (LOCAL_INV 72 cycles/WR steady): at 73 the sweep met the fence once;
# shifts 60-100 scanned in 2 (model): 91-95 meet it 3 times, 62 and 90 / 96
# twice, the rest once or never; 93 is kept, the minimum 3. Again when the
# firmware's run took trusted invalidations two a step and started before
# its bookkeeping (LOCAL_INV 72 -> 64 cycles/WR steady): at 93 the sweep met
# the fence once; shifts 60-128 scanned in 4, 85-95 and 109-123 in 1
# (model): 116-122 meet it 4-5 times, 87-92 and 112-115 3; no_drain_linv
# breaches none of 60-128 (as before); 119 is kept, the minimum 4.
SWEEPS = [
    dict(op="write", target="entry", link_latency=1500, host_write_cost=1000, offsets=[-400] + spread(0, 5600, 11),
         counters=dict(drain_waits=11, refused_after_inv=11)),
    dict(op="read", target="entry", link_latency=None, offsets=[-400] + spread(119, 4288, 11),
         counters=dict(fence_waits=4, drain_waits=10, refused_after_inv=10)),
    dict(op="read", target="entry", link_latency=None, host_read_latency=600, offsets=[-400] + spread(0, 4200, 11),
         counters=dict(drain_waits=11, refused_after_inv=10)),
    dict(op="write", target="indirect", link_latency=1500, host_write_cost=1000,
         offsets=[-400] + spread(0, 5600, 11),
         counters=dict(drain_waits=11, refused_after_inv=11)),
]
LEN = 8192
RW = ["LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE"]


def sweep_file(op, target, link_latency, offsets, counters=None, host_write_cost=None, host_read_latency=None):
    name = "klm_race_%s_%s%s_x%d.jsonl" % (target, op, "_hr%d" % host_read_latency if host_read_latency else "",
                                          len(offsets))
    head = [
        "# Generated by vectors/gen_klm_races.py: do not edit (regenerate; `make klm-races-fresh` checks).",
        "# Race sweep: LOCAL_INV of %s against an %d-byte RDMA_%s through an indirect R_Key whose second"
        % ("the fast-reg entry MR fb" if target == "entry" else "the indirect MR itself", LEN, op.upper()),
        "# half is fb (MTU 256, 32 chunks%s), at %d offsets from %d to %d cycles after the post (negative: first)."
        % ("".join([", link latency %d" % link_latency if link_latency else "",
                    ", host writes %d cycles" % host_write_cost if host_write_cost else "",
                    ", host reads %d cycles" % host_read_latency if host_read_latency else ""]),
           len(offsets), offsets[0], offsets[-1]),
        "# Rule 7 checks each chunk's entries at its own time: the op completes SUCCESS or REM_ACCESS_ERR (a race:",
        "# the LOCAL_INV runs on its own QP while the op streams); the checker stays silent; after each round the",
        "# LOCAL_INV is SUCCESS and a probe WRITE into fb's half fails. The memory the op writes is refilled with the",
        "# round's byte first; a SUCCESS checks every byte (check_mem \"when\"); a WRITE round of every other one",
        "# refills fb's half once the LOCAL_INV completed and checks that no byte landed there after it.",
    ]
    dev = {"op": "device"}
    if link_latency:
        dev["link_latency"] = link_latency
    if host_write_cost:
        dev["host_write_cost"] = host_write_cost
    if host_read_latency:
        dev["host_read_latency"] = host_read_latency
    ops = ([dev] if len(dev) > 1 else []) + [
        {"op": "alloc_pd", "pd": "pd0"},
        {"op": "create_cq", "cq": "cqc", "depth": 64},
        {"op": "create_cq", "cq": "cqx", "depth": 64},
        {"op": "create_cq", "cq": "cqy", "depth": 64},
        {"op": "create_cq", "cq": "cqp", "depth": 64},
        {"op": "create_qp", "qp": "qc", "pd": "pd0", "send_cq": "cqc", "recv_cq": "cqc"},
        {"op": "create_qp", "qp": "qd", "pd": "pd0", "send_cq": "cqc", "recv_cq": "cqc"},
        {"op": "connect", "qp": "qc", "remote": "qd"},
        {"op": "host_alloc", "buf": "mbuf", "size": 4096, "fill": "zero" if op == "write" else "random"},
        {"op": "host_alloc", "buf": "fbuf", "size": 4096, "fill": "zero" if op == "write" else "random"},
        {"op": "host_alloc", "buf": "ref", "size": LEN},  # what untouched memory holds
        {"op": "host_alloc", "buf": "src", "size": LEN, "fill": "random"},
        {"op": "host_alloc", "buf": "dst", "size": LEN},
        {"op": "reg_mr", "mr": "m", "pd": "pd0", "buf": "mbuf", "access": ["LOCAL_WRITE"]},
        {"op": "reg_mr", "mr": "ms", "pd": "pd0", "buf": "src", "access": ["LOCAL_WRITE"]},
        {"op": "reg_mr", "mr": "md", "pd": "pd0", "buf": "dst", "access": ["LOCAL_WRITE"]},
        {"op": "alloc_mr", "mr": "fb", "pd": "pd0", "type": "fast_reg", "max_page_list_len": 1},
        {"op": "alloc_fast_reg_page_list", "pl": "pl", "len": 1},
        {"op": "set_page_list", "pl": "pl", "pages": [{"buf": "fbuf", "offset": 0}]},
    ]
    body = [J(o) for o in ops]
    wid = 1
    for k, off in enumerate(offsets):
        (a, b, p, q), qps = genfiles.race_round_qps(k)
        ind = "ind%d" % k
        kb = (0x21 + 0x35 * k) & 0xFF
        refill = op == "write" and k % 2 == 0  # nothing may land in fb's half after the LOCAL_INV
        body.append("# round %d: fb key byte %d, the LOCAL_INV %d cycles %s the post%s"
                    % (k, kb, abs(off), "before" if off < 0 else "after",
                       ": nothing may land in fb's half after it" if refill else ""))
        rnd = qps + [
            {"op": "update_fast_reg_key", "mr": "fb", "key": kb},
            {"op": "post_send", "qp": "qc", "wr_id": wid, "opcode": "FAST_REG_MR", "mr": "fb", "page_list": "pl",
             "page_shift": 12, "iova": 0x60000000, "length": 4096, "access": ["LOCAL_WRITE"]},
            {"op": "poll_cq", "cq": "cqc", "expect": [{"wr_id": wid, "status": "SUCCESS"}]},
            {"op": "alloc_mr", "mr": ind, "pd": "pd0", "type": "indirect", "max_indir_list_len": len(M_ENTRIES) + 1},
            {"op": "post_send", "qp": "qc", "wr_id": wid + 1, "opcode": "REG_INDIR_MR", "mr": ind,
             "list": [{"mr": "m", "offset": o, "length": n} for o, n in M_ENTRIES] +
                     [{"mr": "fb", "offset": 0, "length": 4096}],
             "iova": 0x50000000, "length": LEN, "access": RW},
            {"op": "poll_cq", "cq": "cqc", "expect": [{"wr_id": wid + 1, "status": "SUCCESS"}]},
        ]
        post = {"op": "post_send", "qp": a, "wr_id": 1000 + k,
                "opcode": "RDMA_WRITE" if op == "write" else "RDMA_READ",
                "sge": [{"mr": "ms" if op == "write" else "md", "offset": 0, "length": LEN}],
                "remote": {"mr": ind}}
        inv = {"op": "post_send", "qp": "qc", "wr_id": wid + 2, "opcode": "LOCAL_INV",
               "invalidate": {"mr": "fb" if target == "entry" else ind}}
        fill = "byte:0x%02x" % kb
        if op == "write":
            rnd += [{"op": "host_fill", "buf": b_, "fill": fill} for b_ in ("mbuf", "fbuf")]
        else:
            rnd += [{"op": "host_fill", "buf": "dst", "fill": fill}]
        if off < 0:
            rnd += [inv, {"op": "run", "cycles": -off}, post]
        else:
            rnd += [post, {"op": "run", "cycles": off}, inv] if off else [post, inv]
        rnd += [
            {"op": "poll_cq", "cq": "cqc", "expect": [{"wr_id": wid + 2, "status": "SUCCESS", "opcode": "LOCAL_INV"}]},
        ]
        if refill:
            rnd += [{"op": "host_fill", "buf": b_, "length": 4096, "fill": "byte:0x%02x" % (kb ^ 0xFF)}
                    for b_ in ("fbuf", "ref")]
        rnd += [
            {"op": "poll_cq", "cq": "cqx", "expect": [{"wr_id": 1000 + k, "status": ["SUCCESS", "REM_ACCESS_ERR"]}]},
        ]
        when = {"qp": a, "wr_id": 1000 + k, "status": "SUCCESS"}
        if refill:
            rnd += [{"op": "check_mem", "buf": "fbuf", "same_as": {"buf": "ref", "offset": 0}, "length": 4096}]
        elif op == "write":
            rnd += [{"op": "check_mem", "buf": "mbuf", "same_as": {"buf": "src", "offset": 0}, "length": 4096,
                     "when": when},
                    {"op": "check_mem", "buf": "fbuf", "same_as": {"buf": "src", "offset": 4096}, "length": 4096,
                     "when": when}]
        else:
            rnd += [{"op": "check_mem", "buf": "dst", "same_as": {"buf": "mbuf", "offset": 0}, "length": 4096,
                     "when": when},
                    {"op": "check_mem", "buf": "dst", "offset": 4096, "same_as": {"buf": "fbuf", "offset": 0},
                     "length": 4096, "when": when}]
        rnd += [
            {"op": "host_write", "buf": "fbuf", "offset": 0, "hex": "00" * 16},
            {"op": "post_send", "qp": p, "wr_id": 2000 + k, "opcode": "RDMA_WRITE",
             "sge": [{"mr": "ms", "offset": 0, "length": 256}], "remote": {"mr": ind, "offset": 4096}},
            {"op": "poll_cq", "cq": "cqp", "expect": [{"wr_id": 2000 + k, "status": "REM_ACCESS_ERR"}]},
            {"op": "check_mem", "buf": "fbuf", "offset": 0, "hex": "00" * 16},
        ]
        if target == "indirect":  # fb stays VALID: invalidate it for the next round's registration
            rnd += [{"op": "post_send", "qp": "qc", "wr_id": wid + 3, "opcode": "LOCAL_INV", "invalidate": {"mr": "fb"}},
                    {"op": "poll_cq", "cq": "cqc", "expect": [{"wr_id": wid + 3, "status": "SUCCESS"}]}]
        body += [J(o) for o in rnd]
        wid += 4
    body += [J({"op": "expect_cq_empty", "cq": cq, "after_cycles": 0}) for cq in ("cqc", "cqx", "cqp")]
    body += genfiles.counters_lines(counters)
    return name, "\n".join(head + body) + "\n"


if __name__ == "__main__":
    sys.exit(sweep_main(__doc__, "klm-races-fresh", "klm_race_", SWEEPS, sweep_file))
