"""genfiles — what the scenario generators share: write their files, or
check that the committed ones are exactly what they write (the `*-fresh`
checks of `make test`)."""
import argparse
import json
import os
import sys


def sync(tag, files, dirs, prefix, check):
    """files: [(path, text)]. check=False: write them. check=True: report any
    that differs or is missing, and any PREFIX*.jsonl in dirs the generator
    does not write; exit status 0 or 1."""
    if not check:
        for path, text in files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        print("wrote %d files" % len(files))
        return 0
    bad = []
    for path, text in files:
        try:
            with open(path) as f:
                if f.read() != text:
                    bad.append(path + " differs")
        except OSError:
            bad.append(path + " is missing")
    want = {p for p, _ in files}
    for d in dirs:
        if os.path.isdir(d):
            for n in sorted(os.listdir(d)):
                p = os.path.join(d, n)
                if n.startswith(prefix) and n.endswith(".jsonl") and p not in want:
                    bad.append(p + " is not written by the generator")
    for b in bad:
        print("%s: %s" % (tag, b), file=sys.stderr)
    if bad:
        print("%s: regenerate with python3 %s and commit" % (tag, os.path.relpath(sys.argv[0])), file=sys.stderr)
        return 1
    print("%s: %d files as generated" % (tag, len(files)))
    return 0


def spread(lo, hi, n):
    """n offsets from lo to hi inclusive, evenly spread, integers."""
    if n == 1:
        return [lo]
    return [lo + (hi - lo) * i // (n - 1) for i in range(n)]


def J(o):
    """One scenario line."""
    return json.dumps(o, separators=(",", ":"))


def sweep_main(doc, tag, prefix, sweeps, sweep_file):
    """The command line of a sweep generator: write (or --check) one file per
    sweep, sweep_file(**sweep) -> (name, text), into --out (vectors/directed)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    ap.add_argument("--out", default=os.path.join(here, "directed"), help="where the sweeps go")
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    a = ap.parse_args()
    files = [(os.path.join(a.out, n), t) for n, t in (sweep_file(**sw) for sw in sweeps)]
    return sync(tag, files, (a.out,), prefix, a.check)


def counters_lines(counters):
    """The closing expect_counters of a race file: counters {name: minimum, or
    (min, max)}, as measured on the RTL engine when the sweep was last aimed
    (docs/scenarios.md "Counters"). A sweep whose invalidations stop landing in
    the window they were aimed at (a timing change moved it) fails here
    instead of passing without testing the fence. [] when it names none."""
    if not counters:
        return []
    def bounds(v):
        return {"min": v[0], "max": v[1]} if isinstance(v, tuple) else {"min": v}
    return ["# The windows this sweep is aimed at, at least as often as when it was last measured:",
            J({"op": "expect_counters", **{k: bounds(v) for k, v in counters.items()}})]


# ---- what the random traffic generators (gen_random.py, gen_mm_soak.py) share ----
# A region is (m, off, n): n bytes at offset off of m, a buffer by name ("src",
# "dst") or an MR object with .name and .pieces(off, n); or a list of regions
# (a gather / scatter list). A piece is (buf, off, n) of one buffer.

def seeds_parser(doc):
    """The command line both start with: --out (vectors/directed), --seed N..."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "directed"), help="where the files go")
    ap.add_argument("--seed", type=int, action="append", help="seed(s) to write (default: the committed ones)")
    return ap


class Pair:
    """A QP pair a<name> / b<name> over the loopback link, one CQ each."""

    def __init__(self, name, mtu):
        self.a, self.b = "a%s" % name, "b%s" % name
        self.cqa, self.cqb = "ca%s" % name, "cb%s" % name
        self.mtu = mtu
        self.role = None


def page_pieces(buf, perm, shift, iova, off, n):
    """The pieces of a fast-reg MR's offsets [off, off+n): its pages are those of
    buf in the order perm, 2^shift bytes each, its first byte at iova's offset
    in a page."""
    out = []
    ps = 1 << shift
    pos = (iova & (ps - 1)) + off
    while n > 0:
        pg, inpg = pos // ps, pos % ps
        take = min(n, ps - inpg)
        out.append((buf, perm[pg] * ps + inpg, take))
        pos += take
        n -= take
    return out


def loc(where):
    """A region (or a list of them) -> its pieces."""
    if isinstance(where, list):
        return [x for w in where for x in loc(w)]
    m, off, n = where
    if isinstance(m, str):   # a buffer by name
        return [(m, off, n)]
    return m.pieces(off, n)


def mr_name(m):
    """The scenario name of a region's MR: ms / md for the src / dst buffers."""
    return {"src": "ms", "dst": "md"}.get(m) if isinstance(m, str) else m.name


def remote(where):
    """A WR's remote side at a region."""
    m, off, _ = where
    return {"mr": mr_name(m), "offset": off}


def pairs_of(dp, sp):
    """Two piece lists of equal total length -> aligned (buf, off, buf2, off2, n)."""
    out = []
    dp, sp = [list(x) for x in dp], [list(x) for x in sp]
    i = j = 0
    while i < len(dp) and j < len(sp):
        n = min(dp[i][2], sp[j][2])
        if n:
            out.append((dp[i][0], dp[i][1], sp[j][0], sp[j][1], n))
        dp[i][1] += n
        dp[i][2] -= n
        sp[j][1] += n
        sp[j][2] -= n
        if dp[i][2] == 0:
            i += 1
        if sp[j][2] == 0:
            j += 1
    return out


def msg_size(rng, mtu, big, small):
    """A message length: 6-12 KiB with probability big, 1-200 bytes up to
    small, else 1-3 MTUs or 2 MTUs to 6 KiB."""
    r = rng.random()
    if r < big:
        return rng.randint(6144, 12288)
    if r < small:
        return rng.randint(1, 200)
    if r < 0.5:
        return rng.randint(mtu, 3 * mtu)
    return rng.randint(2 * mtu, 6144)


def zero_dead_key(rng, qp, wr_id):
    """A zero-length WRITE or READ through a dead key, which succeeds (no R_Key
    check, IBA C9-88): (opcode, its post_send)."""
    opc = rng.choice(["RDMA_WRITE", "RDMA_READ"])
    return opc, {"op": "post_send", "qp": qp, "wr_id": wr_id, "opcode": opc, "sge": [],
                 "remote_addr": "0x%x" % rng.randrange(1 << 40), "rkey": "0x%x" % rng.randrange(1 << 24, 1 << 32)}


def mm_events(rng, mrs, clean, relinv=0.0):
    """A batch's memory-management events from each MR's plan: ("reg", m, pair
    or None for the control QP), ("inv", m, how) for m.inv and m.inv2, and with
    probability relinv ("relinv", m) of an idle MR."""
    events = []
    for m in mrs:
        if m.plan == "reg":
            events.append(("reg", m, rng.choice([None] + clean)))
        elif m.plan == "inv":
            events.append(("inv", m, m.inv))
            if m.inv2:
                events.append(("inv", m, m.inv2))
        elif m.plan == "idle" and relinv and rng.random() < relinv:
            events.append(("relinv", m))
    return events


def flush_after_racy(racy, pair_ops):
    """On a racy pair, a WR that may fail puts the QP in ERROR: the WRs after it
    may flush, and those before it too when the failure could be local (a QP
    in ERROR flushes everything outstanding). pair_ops: {qp: [op]} in posting
    order. WR_FLUSH_ERR added to what may flush; the CQs to poll any_order."""
    any_order = set()
    for p in racy:
        ops = pair_ops.get(p.a, [])
        first = next((i for i, o in enumerate(ops) if o.get("racy")), None)
        if first is None:
            continue
        any_order.add(p.cqa)
        local = any(o.get("local_fail") for o in ops)
        for i, o in enumerate(ops):
            if (i > first or (i < first and local)) and "WR_FLUSH_ERR" not in o["status"]:
                o["status"] = o["status"] + ["WR_FLUSH_ERR"]
    return any_order


def poll_all(cqs, posted, any_order, expect_for):
    """The polls of every op posted on cqs ({cq: [op]}), 32 a poll_cq (any_order
    on the CQs of any_order), then expect_cq_empty of each."""
    out = []
    for cq in cqs:
        ops = posted.get(cq, [])
        for i in range(0, len(ops), 32):
            chunk = ops[i:i + 32]
            q = {"op": "poll_cq", "cq": cq, "expect": [expect_for(o) for o in chunk]}
            if cq in any_order and len(chunk) > 1:
                q["any_order"] = True
            out.append(q)
    out += [{"op": "expect_cq_empty", "cq": cq} for cq in cqs]
    return out


def mr_expect(m, ranged=True):
    """check_mr's expect of an MR the generator knows: its state, its key byte
    when known, its iova and length when VALID (and ranged)."""
    e = {"state": m.state}
    if m.key is not None:
        e["key"] = m.key
    if m.state == "VALID" and ranged:
        e.update({"iova": "0x%x" % m.iova, "length": m.length})
    return e


def qp_state_checks(clean, failed):
    """A batch's end: the control QP qc and the clean pairs in RTS, each failed
    pair's a in ERROR and its b in p.b_state."""
    out = [{"op": "expect_qp_state", "qp": "qc", "state": "RTS"}]
    for p in clean:
        out += [{"op": "expect_qp_state", "qp": p.a, "state": "RTS"},
                {"op": "expect_qp_state", "qp": p.b, "state": "RTS"}]
    for p in failed:
        out += [{"op": "expect_qp_state", "qp": p.a, "state": "ERROR"},
                {"op": "expect_qp_state", "qp": p.b, "state": p.b_state}]
    return out


def race_round_qps(r, mtu=256):
    """A race sweep round's QPs: a<r>/b<r> carry the raced op (MTU mtu, CQs cqx
    and cqy), p<r>/q<r> the probe after it (CQ cqp). -> ((a, b, p, q), ops)."""
    a, b, p, q = "a%d" % r, "b%d" % r, "p%d" % r, "q%d" % r
    return (a, b, p, q), [
        {"op": "create_qp", "qp": a, "pd": "pd0", "send_cq": "cqx", "recv_cq": "cqx", "mtu": mtu},
        {"op": "create_qp", "qp": b, "pd": "pd0", "send_cq": "cqy", "recv_cq": "cqy", "mtu": mtu},
        {"op": "connect", "qp": a, "remote": b},
        {"op": "create_qp", "qp": p, "pd": "pd0", "send_cq": "cqp", "recv_cq": "cqp"},
        {"op": "create_qp", "qp": q, "pd": "pd0", "send_cq": "cqp", "recv_cq": "cqp"},
        {"op": "connect", "qp": p, "remote": q},
    ]


def split(rng, n, k):
    """n bytes cut at random into 2..k sizes (n, k >= 2): a gather or scatter list."""
    parts = rng.randint(2, min(k, n))
    cuts = sorted(rng.sample(range(1, n), parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [n])]
