"""A timetable searched by CP-SAT for shorter lags along its trees, its period kept
(ours; after :mod:`.order_search`, which searches for a shorter period, and
:mod:`.tree_order`, whose greedy choices it starts from).

Under pipelined forwarding (:mod:`steady.simulate.unroll`) the k-th message of tree l
that node u forwards over (u, v) in a period is the one that arrived k - c messages
earlier over u's in-arc, c the hop's lag (:func:`.tree_order.hop_lag`); the lags add up
along each path of the tree into D_l messages, and the warm-up, the latency of every
message and the clean-up last W = max_l ceil(D_l / w_l) periods.  A finite run loses
about W periods of messages (:mod:`steady.simulate.choose`), and the list schedules
pick each port's order for the period's length, not for the trees: on a 50-node random
platform (seed 7) at M = 15, W = 11 (7 with the trees regrown); the regrown trees
searched, W = 5, and `steady simulate --horizon 100000` goes from 0.98973 to 0.99005
of K·TP* (9329 messages).

The search: CP-SAT places one interval per message of each (tree, arc) on the grid of
:mod:`.order_search` (costs rounded *up* to P / :data:`GRID`, P the period; exact
ticks when P has at most :data:`GRID`), inside the period; per hop an integer lag c in
[0, w_l] (w_l ordered booleans: c >= 1, ..., c >= w_l); "slot k of the out-arc starts
after slot k - c of the in-arc ends" holds when the lag is at most c; per tree the lags
summed from the source; it minimises W, then the sum over leaves of D_l / w_l.  The list schedule's timetable is its hint.  Its answer is used for its
*orders and lags* only: the messages are placed again, exactly in integer ticks, in
increasing order of the solver's starts, each as soon as both its ports are free and
the slot its lag names has arrived.  That placement is a one-port timetable by
construction, its lags are at most the solver's, and it ends no later than the grid's
bound (proofs/timed-schedule.md, "Lags searched"); the caller keeps it only when it
fits the period and its W, computed again exactly, is smaller.

Deterministic, as :mod:`.order_search`: fixed workers, interleaved search, a bound on
the solver's deterministic time.  Work: at most :data:`LAG_SLOTS` message slots.
"""

from __future__ import annotations

from .order_search import GRID, _placed as placed, solved
from .tree_order import _children, extend_runs, hop_lag

Arc = tuple[str, str]

#: Message slots per period at most for a search: a 50-node random platform at M = 40
#: has 1911, a 65-node mesh at M = 20 has 1280.
LAG_SLOTS = 2000
#: The solver's deterministic time (OR-Tools' unit of work, not seconds).  On a 50-node
#: random platform (seed 7) at M = 15, 2, 5 and 20 units gave the same count by
#: K = 100000 (9332, from 9327) in 19, 21 and 68 s; 10 units gave 9326.
LAG_SEARCH_TIME = 5.0


def shorter_lags(source: str, trees, cost: dict, period: int, pieces: dict,
                 effort: float = LAG_SEARCH_TIME) -> dict | None:
    """{(tree, arc): [[start, count], ...]} in integer ticks: the messages of ``pieces``
    (a valid timetable of the weighted ``trees`` [(parent, weight)] in the same form,
    ``period`` ticks long, ``cost`` {arc: ticks}) placed again in the orders and with
    the lags of a CP-SAT search for a smaller warm-up W; None when the search does not
    apply (too many slots), finds nothing, or its placement does not fit ``period``.
    The caller compares the warm-ups."""
    from ortools.sat.python import cp_model

    slots = {(l, arc): _slot_starts(runs, cost[arc]) for (l, arc), runs in pieces.items()}
    if sum(map(len, slots.values())) > LAG_SLOTS or period <= 0:
        return None
    # a short period in exact ticks; else the grid, on which rounding may push the
    # hint past the period's grid by a few steps
    top = min(period, GRID)
    grid = {arc: -(-c * top // period) for arc, c in cost.items()}
    hops = list(_hops(source, trees))
    lags = {(l, v): hop_lag([s + cost[ain] for s in slots[(l, ain)]], slots[(l, aout)])
            for l, v, ain, aout in hops}
    hint, hint_end = placed(_in_order(slots), grid, _after(hops, trees, lags))
    horizon = max(hint_end, top)
    model = cp_model.CpModel()
    starts, ports = {}, {}
    for (l, arc), arc_slots in slots.items():
        for k in range(len(arc_slots)):
            s = model.new_int_var(0, horizon - grid[arc], "")
            starts[(arc, (l, k))] = s
            interval = model.new_fixed_size_interval_var(s, grid[arc], "")
            ports.setdefault(("out", arc[0]), []).append(interval)
            ports.setdefault(("in", arc[1]), []).append(interval)
            if k:   # the messages of one tree on one arc are alike: keep them in order
                model.add(s >= starts[(arc, (l, k - 1))] + grid[arc])
            model.add_hint(s, hint[(arc, (l, k))])
    for intervals in ports.values():
        model.add_no_overlap(intervals)
    late = model.new_int_var(0, horizon - top, "late")   # beyond the period's grid
    for (arc, _), s in starts.items():
        model.add(s + grid[arc] <= top + late)
    lag_of = {}
    depth = {}
    for l, v, ain, aout in hops:   # parents before children
        w = trees[l][1]
        at_least = [model.new_bool_var("") for _ in range(w)]   # lag >= 1, ..., >= w
        for c in range(1, w):
            model.add_implication(at_least[c], at_least[c - 1])
        for c, b in enumerate(at_least):
            model.add_hint(b, lags[(l, v)] > c)
        for k in range(w):
            for c in range(k + 1):   # lag <= c: slot k follows slot k - c in
                model.add(starts[(aout, (l, k))] >= starts[(ain, (l, k - c))] + grid[ain]
                          ).only_enforce_if(at_least[c].Not())
        lag_of[(l, v)] = at_least
        depth[(l, v)] = depth.get((l, aout[0]), 0) + sum(at_least)
    total = sum(map(len, slots.values()))   # bounds every lag sum, so W and each D_l
    warmup = model.new_int_var(0, total, "W")
    spread, leaves = 0, 0
    for l, (parent, w) in enumerate(trees):
        children = _children(parent)
        for v in parent:
            if not children.get(v) and (l, v) in depth:
                model.add(warmup * w >= depth[(l, v)])
                spread += depth[(l, v)] * max(_LEAF_SCALE // w, 1)
                leaves += 1
    # lexicographic, in weights that keep the objective inside 64 bits: late first
    # (the period is kept), then W, then the leaves' lags
    per_w = leaves * total * _LEAF_SCALE + 1
    model.minimize((total + 1) * per_w * late + per_w * warmup + spread)
    solver = solved(model, effort)
    if solver is None:
        return None
    chosen = {key: sum(solver.value(b) for b in bits) for key, bits in lag_of.items()}
    order = sorted(starts, key=lambda key: (solver.value(starts[key]), key))
    at, end = placed(order, cost, _after(hops, trees, chosen))
    if end > period:
        return None
    found: dict = {}
    for (arc, (l, _)), start in sorted(at.items(), key=lambda item: item[1]):
        extend_runs(found.setdefault((l, arc), []), start, 1, cost[arc])
    if any(sum(n for _, n in found[key]) != len(arc_slots)
           for key, arc_slots in slots.items()):
        raise AssertionError("postcondition: the lag search lost a message of a tree edge")
    return found


#: The leaves' lags D_l / w_l are summed on this scale (every weight up to 10 divides
#: it; heavier trees round down).
_LEAF_SCALE = 2520


def _slot_starts(runs, cost: int) -> list[int]:
    return sorted(s + k * cost for s, n in runs for k in range(n))


def _hops(source: str, trees):
    """(tree, v, in-arc of v's parent u, (u, v)) for every node v whose parent u is not
    the source, parents before children."""
    for l, (parent, _) in enumerate(trees):
        children = _children(parent)
        queue = [source]
        for u in queue:
            for v in sorted(children.get(u, ())):
                queue.append(v)
                if u != source:
                    yield l, v, (parent[u], u), (u, v)


def _in_order(slots: dict) -> list:
    """[(arc, (tree, k))]: every message slot by its start."""
    return [key for _, key in sorted((s, (arc, (l, k))) for (l, arc), starts in slots.items()
                                     for k, s in enumerate(starts))]


def _after(hops, trees, lags: dict) -> dict:
    """{(out-arc, (tree, k)): (in-arc, (tree, k - c))}: the slot each message slot
    waits for under lag c (none when k < c: it came in an earlier period)."""
    after = {}
    for l, v, ain, aout in hops:
        c = lags[(l, v)]
        for k in range(c, trees[l][1]):
            after[(aout, (l, k))] = (ain, (l, k - c))
    return after
