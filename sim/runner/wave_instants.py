#!/usr/bin/env python3
"""Two wave dumps of the same run compared instant by instant (docs/engine.md
"One traced evaluation per cycle"):

  wave_instants.py A.fst|A.vcd B.fst|B.vcd

Each signal (by its full name) is sampled at every clock-low instant C*T
(T = TRACE_TICKS_PER_CYCLE, abi/hca.toml) and every edge instant C*T + T/2;
the script prints how many signals differ at each kind of instant (and,
of those differing at edge instants, the ones A changes at edges only), the
"registers" of A (signals A changes at edge instants only, a window's first
instant aside) whose changes differ in B, and the signals B changes at a
clock-low instant. Exit 1 when a signal differs at a clock-low instant or a
register's changes differ, else 0. An FST is read through fst2vcd (GTKWave).
Standard library only.
"""
import collections
import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ticks(abi=os.path.join(ROOT, "abi/hca.toml")):
    with open(abi, "rb") as f:
        return next(c["value"] for c in tomllib.load(f)["const"] if c["name"] == "TRACE_TICKS_PER_CYCLE")


def vcd_lines(path):
    if path.endswith(".vcd"):
        with open(path) as f:
            yield from f
        return
    p = subprocess.Popen(["fst2vcd", path], stdout=subprocess.PIPE, text=True, errors="replace")
    yield from p.stdout
    if p.wait():
        raise SystemExit(f"fst2vcd {path}: exit {p.returncode}")


class Dump:
    """names: full name -> id code; ev: id code -> [(time, value)]; times: every time stamp."""

    def __init__(self, path):
        self.names, self.ev, self.times = {}, collections.defaultdict(list), []
        scope, t, header = [], 0, True
        for line in vcd_lines(path):
            if header:
                w = line.split()
                if not w:
                    continue
                if w[0] == "$scope":
                    scope.append(w[2])
                elif w[0] == "$upscope":
                    scope.pop()
                elif w[0] == "$var":
                    self.names[".".join(scope + [w[4]])] = w[3]
                elif w[0] == "$enddefinitions":
                    header = False
                continue
            c = line[0]
            if c == "#":
                t = int(line[1:])
                self.times.append(t)
            elif c in "bBrR":
                v, code = line[1:].split()
                self.ev[code].append((t, v))
            elif c in "01xzXZ":
                self.ev[line[1:].strip()].append((t, c))

    def changes(self, name):
        return self.ev.get(self.names[name], [])

    def starts(self, half):
        """The first instant of each window (a dump resumed after a gap)."""
        ts = self.times
        return {t for i, t in enumerate(ts) if i == 0 or t - ts[i - 1] > half}


def sampled(events, period, off):
    """[(k, v)]: the value at instant k*period + off is v from k on (changes only)."""
    last = {}
    for t, v in events:
        last[-(-(t - off) // period)] = v  # the last change at or before the instant wins
    out, prev = [], None
    for k in sorted(last):
        if last[k] != prev:
            out.append((k, last[k]))
            prev = last[k]
    return out


def compare(a, b, period, show=10):
    half = period // 2
    both = sorted(set(a.names) & set(b.names))
    print(f"signals {len(a.names)} / {len(b.names)} (common {len(both)}); time stamps {len(a.times)} / "
          f"{len(b.times)}, the same: {a.times == b.times}; B monotonic: "
          f"{all(x < y for x, y in zip(b.times, b.times[1:]))}")
    low = [n for n in both if sampled(a.changes(n), period, 0) != sampled(b.changes(n), period, 0)]
    edge = [n for n in both if sampled(a.changes(n), period, half) != sampled(b.changes(n), period, half)]
    sa, sb = a.starts(half), b.starts(half)
    regs = [n for n in both if all(t % period == half for t, _ in a.changes(n) if t not in sa)]
    moved = [n for n in regs if a.changes(n) != b.changes(n)]
    b_low = [n for n in both if any(t % period == 0 for t, _ in b.changes(n) if t not in sb)]
    a_low = {n for n in both if any(t % period == 0 for t, _ in a.changes(n) if t not in sa)}
    odd = [n for n in edge if n not in a_low]  # differ at an edge though A moves them at edges only
    print(f"clock-low instants: {len(low)} signals differ {low[:show]}")
    print(f"edge instants: {len(edge)} signals differ {edge[:show]}; of them, ones A never changes at a "
          f"clock-low instant: {len(odd)} {odd[:show]}")
    print(f"A's registers (changed at edges only): {len(regs)}, changes differ in B: {len(moved)} {moved[:show]}")
    print(f"B changes at a clock-low instant: {len(b_low)} signals {b_low[:show]}")
    return 1 if low or moved or set(a.names) != set(b.names) else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.exit(compare(Dump(sys.argv[1]), Dump(sys.argv[2]), ticks(), show=40))
