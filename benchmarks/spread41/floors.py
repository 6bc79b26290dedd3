"""Step 1 of spread41: at M, the list schedule's timetable (default effort, no cut
counts) with its trees regrown as the chooser regrows them; its lags vs the physical floor
(the largest shortest-path time from the source) and vs one tree alone through the same
slots (the timetable's and the idle ones), mean over the source's slots.

usage: python benchmarks/spread41/floors.py mesh-50-s31:32,64 random-50-s31:48 ..."""
import bisect
import heapq
import sys

from common import count, load
from steady.schedule.effort import effort as effort_of
from steady.schedule.regrow import growth_slots, regrown, unrolled
from steady.schedule.timed import timed_timetable


def arrivals(platform, slots, cost, period, s0, slotted=True):
    """Largest arrival - s0 of one tree grown alone from the source at s0 (ticks)."""
    out = {}
    for a in slots:
        out.setdefault(a[0], []).append(a)
    arr, heap, done = {platform.source: s0}, [(s0, platform.source)], set()
    while heap:
        a, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for arc in out.get(u, ()):
            if slotted:
                ss = slots[arc]
                i = bisect.bisect_left(ss, a % period)
                st = unrolled(ss[i] if i < len(ss) else ss[0], a, period)
            else:
                st = a
            t = st + cost[arc]
            if arc[1] not in arr or t < arr[arc[1]]:
                arr[arc[1]] = t
                heapq.heappush(heap, (t, arc[1]))
    return max(arr.values()) - s0


def floors(platform, table):
    """(physical floor, one tree alone mean) in time units, of ``table``'s slots."""
    tab, slots = growth_slots(table, True)
    from fractions import Fraction
    phys = Fraction(arrivals(platform, slots, tab.cost, tab.period, 0, False), tab.unit)
    srcs = sorted({s for a in slots if a[0] == platform.source for s in slots[a]})
    alone = [arrivals(platform, slots, tab.cost, tab.period, s) for s in srcs]
    return float(phys), float(Fraction(sum(alone), len(alone) * tab.unit))


if __name__ == "__main__":
    eff = effort_of("default")
    for spec in sys.argv[1:]:
        name, ms = spec.split(":")
        platform, result, opt, cap = load(name)
        for m in map(int, ms.split(",")):
            table, _ = timed_timetable(platform, result, m, eff.but(cut_counts=False))
            rg = regrown(table, eff.swap_moves, True)
            best = count(m, rg, opt, cap)
            phys, alone = floors(platform, rg)
            T = float(rg.period_time)
            mx = [max(lag.values()) for lag in rg.lags()]
            print(f"{name} M={m} T={T:.1f} rate={float(rg.throughput / opt):.5f} "
                  f"W={best.pattern.warmup} I={float(best.phases.init):.0f} "
                  f"J={float(best.phases.cleanup):.0f} delivered={best.delivered} "
                  f"({float(best.delivered / cap):.5f}) | physical floor {phys:.1f} | one tree "
                  f"alone {alone:.0f} ({alone / T:.2f} T) | regrown trees' largest lag, mean "
                  f"{sum(mx) / len(mx) * T:.0f} ({sum(mx) / len(mx):.2f} T), sum {sum(mx)} "
                  "messages", flush=True)
