"""Prototype (spread41, not kept): a message-level modulo schedule.  Every message of every
tree is placed hop by hop down its tree (messages released at their smooth round-robin
position x T/M) at the earliest start >= its arrival at the sender on both ports'
circular time lines of length T (a transfer never crosses the period's end); when no
common gap exists within one period, iterative modulo scheduling (Rau 1994) places it
anyway where it evicts the fewest (least evicted) transfers, which are queued again
(``cascade``: with their subtrees), within ``budget`` placements per transfer.  T starts
at the largest port load and rises by steps of 1/2000 of it.  The timetable is then
counted as the chooser counts one.

usage: python benchmarks/spread41/ims.py mesh-50-s31:32 random-50-s31:48 ...
(CASCADE=1 for the cascading eviction)"""
from __future__ import annotations

import bisect
import heapq
import math
import random

from steady.schedule.timetable import Timetable, ticks_per_unit, loads_of, children_of


class Circle:
    """Busy intervals of one port: sorted starts, ends, op ids."""

    __slots__ = ("starts", "ends", "ops")

    def __init__(self):
        self.starts, self.ends, self.ops = [], [], []

    def conflicts(self, p, c):
        """ops overlapping [p, p + c)."""
        out = []
        i = bisect.bisect_right(self.starts, p) - 1
        if i >= 0 and self.ends[i] > p:
            out.append(self.ops[i])
        j = i + 1
        n = len(self.starts)
        while j < n and self.starts[j] < p + c:
            out.append(self.ops[j])
            j += 1
        return out

    def first_conflict_end(self, p, c):
        i = bisect.bisect_right(self.starts, p) - 1
        if i >= 0 and self.ends[i] > p:
            return self.ends[i]
        j = i + 1
        if j < len(self.starts) and self.starts[j] < p + c:
            return self.ends[j]
        return None

    def add(self, p, c, op):
        i = bisect.bisect_right(self.starts, p)
        self.starts.insert(i, p)
        self.ends.insert(i, p + c)
        self.ops.insert(i, op)

    def remove(self, p, op):
        i = bisect.bisect_left(self.starts, p)
        while self.ops[i] != op:
            i += 1
        del self.starts[i], self.ends[i], self.ops[i]


def smooth_order(weights):
    total = sum(weights)
    cur = [0] * len(weights)
    out = []
    for _ in range(total):
        for l, w in enumerate(weights):
            cur[l] += w
        l = max(range(len(weights)), key=lambda i: (cur[i], -i))
        cur[l] -= total
        out.append(l)
    return out


def ims(platform, trees, cost, period, budget=30, seed=0, cascade=False):
    """{(l, arc): [start ticks in the period]} or None within ``budget``·ops placements."""
    rng = random.Random(seed)
    source = platform.source
    weights = [w for _, w in trees]
    m = sum(weights)
    # ops
    arc_of, parent_op, kids, prio = [], [], [], []
    first_ops = []   # (release, op)
    seq = smooth_order(weights)
    counters = [0] * len(trees)
    tree_children = [children_of(p) for p, _ in trees]
    for j, l in enumerate(seq):
        release = (j * period) // m
        stack = [(source, None)]
        while stack:
            u, pop = stack.pop()
            for v in sorted(tree_children[l].get(u, ())):
                op = len(arc_of)
                arc_of.append((u, v))
                parent_op.append(pop)
                kids.append([])
                prio.append((j, op))
                if pop is None:
                    first_ops.append((release, op))
                else:
                    kids[pop].append(op)
                stack.append((v, op))
        counters[l] += 1
    n = len(arc_of)
    tree_of = []
    for j, l in enumerate(seq):
        pass
    start = [None] * n          # unwrapped start
    release_of = {op: r for r, op in first_ops}
    evicted = [0] * n
    circles: dict = {}

    def circ(key):
        x = circles.get(key)
        if x is None:
            x = circles[key] = Circle()
        return x

    heap = [(r, prio[op], op) for r, op in first_ops]
    heapq.heapify(heap)
    placements = 0
    limit = budget * n
    while heap:
        est, _, op = heapq.heappop(heap)
        if start[op] is not None:
            continue
        pop = parent_op[op]
        if pop is not None:
            if start[pop] is None:
                continue   # re-pushed when its parent is placed
            est = max(est, start[pop] + cost[arc_of[pop]])
        placements += 1
        if placements > limit:
            return None
        u, v = arc_of[op]
        c = cost[(u, v)]
        out, inp = circ(("out", u)), circ(("in", v))
        t = est
        end = est + period
        found = None
        while t < end:
            p = t % period
            if p + c > period:
                t += period - p
                continue
            e = out.first_conflict_end(p, c)
            if e is not None:
                t += e - p
                continue
            e = inp.first_conflict_end(p, c)
            if e is not None:
                t += e - p
                continue
            found = t
            break
        if found is None:
            # forced: candidate starts at est and at every interval end in the window
            cands = {est}
            base = est - est % period
            for circle in (out, inp):
                for e in circle.ends:
                    for b in (base, base + period):
                        x = b + e
                        if est <= x < end:
                            cands.add(x)
            best = None
            for x in sorted(cands):
                p = x % period
                if p + c > period:
                    continue
                victims = set(out.conflicts(p, c)) | set(inp.conflicts(p, c))
                score = sum(1 + evicted[w] for w in victims) + rng.random() * 0.5
                if best is None or score < best[0]:
                    best = (score, x, victims)
            if best is None:
                return None
            _, found, victims = best
            for w in victims:
                _unplace(w, start, arc_of, circles, period)
                evicted[w] += 1
                heapq.heappush(heap, (0, prio[w], w))
                if cascade:
                    stack = list(kids[w])
                    while stack:
                        x = stack.pop()
                        if start[x] is not None:
                            _unplace(x, start, arc_of, circles, period)
                            heapq.heappush(heap, (0, prio[x], x))
                        stack.extend(kids[x])
        p = found % period
        start[op] = found
        out.add(p, c, op)
        inp.add(p, c, op)
        for k in kids[op]:
            if start[k] is None:
                heapq.heappush(heap, (found + c, prio[k], k))
    # orphans: ops whose parent was evicted and re-placed push their kids again above;
    # any op still unplaced means the queue logic missed it
    if any(s is None for s in start):
        # place leftovers by pushing them again
        return None
    runs: dict = {}
    for op in range(n):
        l = seq[prio[op][0]]
        runs.setdefault((l, arc_of[op]), []).append(start[op] % period)
    return runs, placements / n


def _unplace(w, start, arc_of, circles, period):
    u, v = arc_of[w]
    p = start[w] % period
    circles[("out", u)].remove(p, w)
    circles[("in", v)].remove(p, w)
    start[w] = None


def ims_timetable(platform, trees, slack_steps=(0, 1, 2, 3, 5, 8, 12, 20, 30, 50),
                  step=2000, **kw):
    used = {}
    for parent, w in trees:
        for child, par in parent.items():
            used[(par, child)] = used.get((par, child), 0) + w
    unit = ticks_per_unit(platform, used)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in used}
    lower = math.ceil(max(loads_of(platform, used).values()) * unit)
    for s in slack_steps:
        period = lower + lower * s // step
        got = ims(platform, trees, cost, period, **kw)
        if got is not None:
            runs, work = got
            table = Timetable.build(platform, trees,
                                    {k: [(x, 1) for x in xs] for k, xs in runs.items()},
                                    period, unit)
            table.check()
            return table, s, work
    return None, None, None


if __name__ == "__main__":
    import os
    import sys
    import time

    from common import count, load
    from steady.schedule.effort import effort as effort_of
    from steady.schedule.regrow import regrown
    from steady.schedule.timed import timed_timetable

    cascade = os.environ.get("CASCADE") == "1"
    eff = effort_of("default")
    for spec in sys.argv[1:]:
        name, m = spec.split(":")
        m = int(m)
        platform, result, opt, cap = load(name)
        table, _ = timed_timetable(platform, result, m, eff.but(cut_counts=False))
        rg = regrown(table, eff.swap_moves, True)
        for label, src in (("list trees", table), ("regrown trees", rg)):
            trees = [(t.parent, t.weight) for t in src.trees]
            t0 = time.process_time()
            steps = (10, 20, 50, 100, 200, 300, 400, 600)
            mt, s, work = ims_timetable(platform, trees, steps, budget=30, cascade=cascade)
            if mt is None:
                print(f"{name} M={m} {label}: no fit up to +30 %")
                continue
            for how, t2 in (("as placed", mt), ("regrown", regrown(mt, eff.swap_moves, True))):
                best = count(m, t2, opt, cap)
                T = t2.period_time
                lt = [max(lag.values()) * T / t2.trees[i].weight
                      for i, lag in enumerate(best.pattern.lag)]
                print(f"{name} M={m} {label}, {how}: fits at +{s / 20:.1f} % of the load "
                      f"(list schedule: +{float(table.period / table.lower - 1) * 100:.2f} %), "
                      f"{work:.1f} placements per transfer, T={float(T):.1f} "
                      f"rate={float(t2.throughput / opt):.4f} W={best.pattern.warmup} largest "
                      f"lag mean {float(sum(lt) / len(lt)):.0f} time units, delivered "
                      f"{best.delivered} ({float(best.delivered / cap):.5f}) "
                      f"[{time.process_time() - t0:.0f} CPU s]", flush=True)
