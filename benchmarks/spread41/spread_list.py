"""Prototype (spread41, not kept): the list schedule with each link's messages spread over
the period.  One message at a time, free port pairs ranked by the busier port's remaining
work (plus the boost of ports that ended late in earlier rounds, as
steady.schedule.list_schedule does) plus ``alpha`` times how far the link is behind its
fluid progress (n·t/T - sent, over n), links touching a port loaded above ``theta`` of
the largest load not spread when ``theta`` is given; the shortest of ``rounds`` rounds is
regrown and counted as the chooser counts one.

usage: python benchmarks/spread41/spread_list.py NAME M ALPHAS [ROUNDS [THETA]]"""

import sys, os, pickle, time, math, heapq, random
from fractions import Fraction
from steady.platform import load_platform
from steady.schedule.effort import effort as effort_of
from steady.schedule.timed import timed_timetable
from steady.schedule.regrow import regrown
from steady.schedule.timetable import Timetable, ticks_per_unit, loads_of, extend_runs
from steady.simulate.choose import _counted, _routed, _refined, with_trees
from steady.simulate.horizon import bound
from steady.simulate.unroll import PIPELINED


def spread_runs(used, cost, lower, alpha, boost, theta=None):
    arcs = sorted(used)
    T = lower
    left = {a: used[a] for a in arcs}
    sent = {a: 0 for a in arcs}
    w_out, w_in = {}, {}
    out_arcs = {}
    for a in arcs:
        u, v = a
        w_out[u] = w_out.get(u, 0) + used[a] * cost[a]
        w_in[v] = w_in.get(v, 0) + used[a] * cost[a]
        out_arcs.setdefault(u, []).append(a)
    idle_out, idle_in = set(w_out), set(w_in)
    if theta is None:
        amap = {a: alpha for a in arcs}
    else:
        amap = {a: (alpha if max(w_out[a[0]], w_in[a[1]]) < theta * lower else 0.0) for a in arcs}
    runs = {a: [] for a in arcs}
    times = [0]; ending = {}
    pending = sum(left.values())
    ends = {}
    while pending:
        t = heapq.heappop(times)
        for a in ending.pop(t, ()):
            idle_out.add(a[0]); idle_in.add(a[1])
        cands = []
        for u in idle_out:
            for a in out_arcs[u]:
                if left[a] and a[1] in idle_in:
                    x = w_out[u] + boost.get(("out", u), 0)
                    y = w_in[a[1]] + boost.get(("in", a[1]), 0)
                    behind = used[a] * t / T - sent[a]
                    cands.append((-(max(x, y) / T + amap[a] * behind / used[a]), a))
        cands.sort()
        for _, a in cands:
            u, v = a
            if u not in idle_out or v not in idle_in:
                continue
            c = cost[a]
            left[a] -= 1; sent[a] += 1; pending -= 1
            w_out[u] -= c; w_in[v] -= c
            idle_out.discard(u); idle_in.discard(v)
            extend_runs(runs[a], t, 1, c)
            end = t + c
            ends[("out", u)] = end; ends[("in", v)] = end
            if end not in ending:
                ending[end] = []; heapq.heappush(times, end)
            ending[end].append(a)
    return max(ends.values()), runs, ends



if __name__ == "__main__":
    from common import count, load
    name, m = sys.argv[1], int(sys.argv[2])
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    theta = float(sys.argv[5]) if len(sys.argv) > 5 else None
    platform, result, opt, cap = load(name)
    eff = effort_of("default")

    def show(label, table):
        best = count(m, table, opt, cap)
        mx = [max(lag.values()) / table.trees[i].weight for i, lag in enumerate(best.pattern.lag)]
        print(f"{name} M={m} {label:24s} T={float(table.period_time):7.1f} "
              f"rate={float(table.throughput / opt):.5f} W={best.pattern.warmup:2d} "
              f"largest lag mean {sum(mx) / len(mx):.2f} T, delivered {best.delivered} "
              f"({float(best.delivered / cap):.5f})", flush=True)

    table, _ = timed_timetable(platform, result, m, eff.but(cut_counts=False))
    show("list schedule, regrown", regrown(table, eff.swap_moves, True))
    trees = [(tr.parent, tr.weight) for tr in table.trees]
    used = {}
    for parent, w in trees:
        for ch, par in parent.items():
            used[(par, ch)] = used.get((par, ch), 0) + w
    unit = ticks_per_unit(platform, used)
    cost = {a: int(platform.cost(*a) * unit) for a in used}
    lower = math.ceil(max(loads_of(platform, used).values()) * unit)
    for alpha in map(float, sys.argv[3].split(",")):
        boost, best = {}, None
        for _ in range(rounds):
            mk, runs, ends = spread_runs(used, cost, lower, alpha, boost, theta)
            if best is None or mk < best[0]:
                best = (mk, runs)
            for port, e in ends.items():
                if e > lower:
                    boost[port] = boost.get(port, 0) + e - lower
        sp = Timetable.from_arc_runs(platform, trees, best[1], best[0], unit)
        sp.check()
        show(f"alpha={alpha} +{(best[0] / lower - 1) * 100:.2f} %", regrown(sp, eff.swap_moves, True))
