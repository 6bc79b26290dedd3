"""Prototype (spread41): rip up and regrow.  From the regrown trees of the chooser (one
after the other, then the exchanges), repeatedly free the slots of a few trees (the one
that lags most and a few others, seeded), grow them again one after the other through the
freed and the idle slots (steady.schedule.regrow's Grower, with its connectivity check:
the freed slots held that many arborescences), even them out by exchanges, and keep the
result when the sum over trees of their largest lag (what the horizon loses) falls.

usage: python benchmarks/spread41/ripup.py NAME M ITERATIONS [SUBSET]"""
import bisect
import random
import sys
import time

import steady.schedule.regrow as R
from common import count, load
from steady.schedule.effort import effort as effort_of
from steady.schedule.timed import timed_timetable
from steady.schedule.timetable import Timetable


def lag_sum(trees, cost, period, source):
    """Sum over trees of floor(last slot start unrolled / period): their largest lags."""
    total = 0
    for parent, chosen in trees:
        slot = {arc[1]: s for arc, s in chosen}
        start = {}
        order = sorted(parent, key=lambda v: 0)
        def st(v):
            if v in start:
                return start[v]
            u = parent[v]
            s = slot[v]
            if u != source:
                s = R.unrolled(s, st(u) + cost[(parent[u], u)], period)
            start[v] = s
            return s
        total += max(st(v) for v in parent) // period
    return total


def main():
    name, m, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    platform, result, opt, cap = load(name)
    eff = effort_of("default")
    table, _ = timed_timetable(platform, result, m, eff.but(cut_counts=False))
    t0 = time.process_time()
    base = R.regrown(table, eff.swap_moves, True)
    tab, universe = R.growth_slots(table, True)
    period, cost, source = tab.period, tab.cost, platform.source
    trees = [(dict(t.parent), [((t.parent[v], v), base.runs[(l, (t.parent[v], v))][0][0])
                               for v in t.parent]) for l, t in enumerate(base.trees)]
    used = {}
    for _, chosen in trees:
        for arc, s in chosen:
            used.setdefault(arc, []).append(s)
    free = {}
    for arc, ss in universe.items():
        left = list(ss)
        for s in used.get(arc, ()):
            left.remove(s)
        free[arc] = sorted(left)
    best = lag_sum(trees, cost, period, source)
    print(f"{name} M={m} start: sum of largest lags {best}", flush=True)
    rng = random.Random(0)
    for it in range(iters):
        lags = []
        for l, tr in enumerate(trees):
            lags.append((lag_sum([tr], cost, period, source), l))
        worst = max(lags)[1]
        others = rng.sample([l for l in range(len(trees)) if l != worst], size - 1)
        subset = [worst] + others
        trial_free = {a: list(ss) for a, ss in free.items()}
        for l in subset:
            for arc, s in trees[l][1]:
                bisect.insort(trial_free.setdefault(arc, []), s)
        grower = R._Grower(platform, trial_free, cost, period)
        grown = [grower.grow(len(subset) - j) for j in range(len(subset))]
        new = list(trees)
        for l, g in zip(subset, grown):
            new[l] = g
        swaps = R._Swaps(source, new, cost, period)
        swaps.search(eff.swap_moves)
        if swaps.moves(grower.free):
            swaps.search(eff.swap_moves)
        new = swaps.trees()
        value = lag_sum(new, cost, period, source)
        if value < best:
            best, trees = value, new
            # the free slots: the universe minus the new trees' slots
            used = {}
            for _, chosen in trees:
                for arc, s in chosen:
                    used.setdefault(arc, []).append(s)
            free = {}
            for arc, ss in universe.items():
                left = list(ss)
                for s in used.get(arc, ()):
                    left.remove(s)
                free[arc] = sorted(left)
            print(f"  iteration {it}: sum of largest lags {best}", flush=True)
    runs = {(l, a): [(s, 1)] for l, (_, ch) in enumerate(trees) for a, s in ch}
    out = Timetable.build(platform, [(p, 1) for p, _ in trees], runs, period, tab.unit)
    R.check_regrown(tab, out, True)
    for label, t in (("regrown", base), ("ripped up", out)):
        b = count(m, t, opt, cap)
        print(f"{name} M={m} {label}: W={b.pattern.warmup} delivered {b.delivered} "
              f"({float(b.delivered / cap):.5f})", flush=True)
    print(f"[{time.process_time() - t0:.0f} CPU s]")


main()
