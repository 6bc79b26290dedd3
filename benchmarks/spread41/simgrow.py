"""Prototype (spread41, not kept): the N trees of weight 1 of steady.schedule.regrow grown
all at once through the same slots, in unrolled time order (the earliest arrival over all
trees first) instead of one after the other; trees left unfinished are ripped up and
grown again one after the other (Grower, with its connectivity check) when the slots left
allow it; then the same exchanges and moves.

usage: python benchmarks/spread41/simgrow.py NAME M[,M...]"""
import sys, os, pickle, time, heapq, bisect
from fractions import Fraction
import steady.schedule.regrow as R
from steady.schedule.timetable import Timetable
from steady.platform import load_platform
from steady.schedule.effort import effort as effort_of
from steady.schedule.timed import timed_timetable
from steady.simulate.choose import with_trees, _counted, _routed, _refined
from steady.simulate.horizon import bound
from steady.simulate.unroll import PIPELINED


def simultaneous(table, swap_moves, order="time"):
    platform = table.platform
    table, free = R.growth_slots(table, True)
    period, cost = table.period, table.cost
    free = {a: list(s) for a, s in free.items() if s}
    out = {}
    for arc in sorted(free):
        out.setdefault(arc[0], []).append(arc)
    n = table.messages
    source = platform.source
    nodes = len(platform.nodes)
    arrival = [{source: 0} for _ in range(n)]
    parent = [dict() for _ in range(n)]
    chosen = [[] for _ in range(n)]
    heap = []
    def first(arc, at):
        fs = free.get(arc)
        if not fs:
            return None
        if at is None:
            # source: spread trees over the source's slots: the first free
            return fs[0], fs[0]
        i = bisect.bisect_left(fs, at % period)
        s = fs[i] if i < len(fs) else fs[0]
        return R.unrolled(s, at, period), s
    def offer(l, u, at):
        for arc in out.get(u, ()):
            if arc[1] not in arrival[l]:
                f = first(arc, at)
                if f is not None:
                    heapq.heappush(heap, (f[0] + cost[arc], l, arc, f[1], at))
    # the source slots: tree l offered in turn
    for l in range(n):
        offer(l, source, None)
    done = 0
    while heap:
        end, l, arc, slot, at = heapq.heappop(heap)
        u, v = arc
        if v in arrival[l]:
            continue
        fs = free.get(arc)
        i = bisect.bisect_left(fs, slot) if fs else 0
        if not fs or i >= len(fs) or fs[i] != slot:
            f = first(arc, at)   # slot taken meanwhile: the next free one
            if f is not None:
                heapq.heappush(heap, (f[0] + cost[arc], l, arc, f[1], at))
            continue
        del fs[i]
        parent[l][v] = u
        arrival[l][v] = end
        chosen[l].append((arc, slot))
        offer(l, v, end)
    stuck = [l for l in range(n) if len(arrival[l]) < nodes]
    for l in stuck:   # rip up: their slots back
        for a, s in chosen[l]:
            bisect.insort(free.setdefault(a, []), s)
    kept = [l for l in range(n) if l not in stuck]
    trees = [(parent[l], chosen[l]) for l in kept]
    if stuck:
        from steady.schedule.branchings import root_connectivity
        counts = {a: len(s) for a, s in free.items() if s}
        conn = root_connectivity(platform, counts)
        if conn < len(stuck):
            return f"stuck: {len(stuck)} trees, connectivity left {conn}"
        grower = R._Grower(platform, free, cost, period)
        trees += [grower.grow(len(stuck) - j) for j in range(len(stuck))]
        free = grower.free
    swaps = R._Swaps(source, trees, cost, period)
    swaps.search(swap_moves)
    if swaps.moves(free):
        swaps.search(swap_moves)
    trees = swaps.trees()
    runs = {(l, a): [(s, 1)] for l, (_, ch) in enumerate(trees) for a, s in ch}
    new = Timetable.build(platform, [(p, 1) for p, _ in trees], runs, period, table.unit)
    R.check_regrown(table, new, True)
    return new


if __name__ == "__main__":
    from common import K, load
    name = sys.argv[1]
    platform, result, opt, cap = load(name)
    eff = effort_of("default")
    for m in map(int, sys.argv[2].split(",")):
        table, _ = timed_timetable(platform, result, m, eff.but(cut_counts=False))
        for label, f in (("regrown", lambda: R.regrown(table, eff.swap_moves, True)),
                         ("simultaneous", lambda: simultaneous(table, eff.swap_moves))):
            t = time.process_time()
            rg = f()
            dt = time.process_time() - t
            if isinstance(rg, str):
                print(name, m, label, rg); continue
            ratio = rg.throughput / opt
            c = _refined(_counted(m, rg, ratio, "", (PIPELINED,), K, cap), K, cap)
            r = _routed(c, K, 1)
            best = max(c + r, key=lambda x: x.delivered)
            mx = [max(l.values()) for l in rg.lags()]
            print(f"{name} M={m} {label:12s} {dt:.1f}s W={best.pattern.warmup} sum maxlag={sum(mx)} deliv={best.delivered} ({float(best.delivered/cap):.5f})", flush=True)
