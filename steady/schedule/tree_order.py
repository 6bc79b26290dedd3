"""A timetable that follows the trees: shorter warm-ups under pipelined forwarding (ours).

Any timetable that gives every tree edge its tree's weight is a valid periodic schedule,
since a node forwards in period p what it received in period p - 1 (002 §5.4.2;
proofs/timed-schedule.md).  The order inside the period matters to a finite run: under
pipelined forwarding (:mod:`steady.simulate.unroll`) a message of tree l leaves u in the
period it arrived when u's slot of tree l starts after the slot that brought it ended;
otherwise the tree lags one more message at that hop, and the lags add up along the
tree's paths into the warm-up W (periods) and the latency of every message.  The list
schedule of :mod:`.timed` orders by port work only, so a deep tree lags at about every
other hop (W = 17 periods on samples/mesh-65.json at M = 10, trees 25 hops deep).

:func:`tree_list_schedule` is a list schedule that prefers messages that have arrived
("ready") and lets a port pair with slack wait for one; :func:`warmup_periods` computes W
the way the simulator does, so :func:`steady.schedule.timed.list_schedule` keeps it only
when its period is as short as the plain one's and its warm-up shorter.
"""

from __future__ import annotations

import heapq

Arc = tuple[str, str]

def _heights(parent: dict) -> dict[str, int]:
    """Per node, the number of hops of the longest path below it in the tree."""
    children = _children(parent)
    height: dict[str, int] = {}
    for node in _bottom_up(children, parent):
        height[node] = 1 + max((height[c] for c in children.get(node, ())), default=-1)
    return height


def _bottom_up(children: dict, parent: dict) -> list[str]:
    roots = [p for p in children if p not in parent]
    order, stack = [], list(roots)
    while stack:
        node = stack.pop()
        order.append(node)
        stack += children.get(node, ())
    return order[::-1]


def extend_runs(runs: list, start: int, count: int, cost: int) -> None:
    """Add ``count`` messages from ``start`` to a link's runs [[start, messages], ...]:
    onto the last run when they follow it back to back (one transfer), else a new run."""
    if runs and runs[-1][0] + runs[-1][1] * cost == start:
        runs[-1][1] += count
    else:
        runs.append([start, count])


# -- a list schedule that follows the trees ---------------------------------------------

#: The tree-following list schedule looks at every (tree, link) of a free port pair at
#: each event: it runs when the period has at most this many message slots.
LIST_SLOTS = 20_000


def busier_port(out_work: int, in_work: int):
    """Priority of a free port pair (smallest first): the busier port's remaining work,
    most first — the port with least slack before the period's lower bound."""
    return -max(out_work, in_work)


def tree_list_schedule(source: str, trees, cost: dict, lower: int, slack: int = 0,
                       key=busier_port) -> dict[tuple[int, tuple[str, str]], list] | None:
    """A list schedule that follows the trees (ours): {(tree, arc): [[start, count], ...]}
    in ticks, or None beyond :data:`LIST_SLOTS` slots.  As in
    :func:`steady.schedule.timed._greedy_runs`, free (out-port, in-port) pairs are matched
    one message at a time by ``key`` of their ports' remaining work (default: the busier
    port's, most first), but a pair only sends
    a message that has already arrived at the sender in this period ("ready", the deepest
    subtree first), unless its busier port's remaining work leaves at most ``slack`` ticks
    before ``lower`` (the period aimed at: the largest port load) — then it sends what it has, the shallowest
    subtree first, and that tree waits a period at this hop.  Pairs that wait are woken
    when their slack runs out, so the schedule never stalls."""
    left: dict[tuple[int, Arc], int] = {}
    on_arc: dict[Arc, list[int]] = {}
    for l, (parent, w) in enumerate(trees):
        for child, par in parent.items():
            left[(l, (par, child))] = w
            on_arc.setdefault((par, child), []).append(l)
    if sum(left.values()) > LIST_SLOTS:
        return None
    height = [_heights(parent) for parent, _ in trees]
    work_out: dict[str, int] = {}
    work_in: dict[str, int] = {}
    live_out: dict[str, set] = {}
    for (l, (u, v)), k in left.items():
        work_out[u] = work_out.get(u, 0) + k * cost[(u, v)]
        work_in[v] = work_in.get(v, 0) + k * cost[(u, v)]
        live_out.setdefault(u, set()).add((u, v))
    arc_left = {arc: sum(left[(l, arc)] for l in ls) for arc, ls in on_arc.items()}
    idle_out, idle_in = set(work_out), set(work_in)
    have: dict[tuple[int, str], int] = {}   # tree-l messages arrived at a node so far
    sent: dict[tuple[int, Arc], int] = {}
    freed: dict[int, list] = {}
    events = [0]
    pieces: dict[tuple[int, Arc], list] = {}
    pending = sum(left.values())
    while pending:
        t = heapq.heappop(events)
        for kind, a, b in freed.pop(t, ()):
            if kind == "out":
                idle_out.add(a)
            elif kind == "in":
                idle_in.add(a)
            elif kind == "got":
                have[b] = have.get(b, 0) + 1
        candidates = []
        for u in idle_out:
            for arc in live_out[u]:
                v = arc[1]
                if v not in idle_in:
                    continue
                busy = max(work_out[u], work_in[v])
                urgent = lower - t - busy <= slack
                ready = [l for l in on_arc[arc] if left[(l, arc)] and
                         (u == source or have.get((l, u), 0) > sent.get((l, arc), 0))]
                if ready:
                    tree = max(ready, key=lambda l: (height[l][v], -l))
                elif urgent:
                    tree = min((l for l in on_arc[arc] if left[(l, arc)]),
                               key=lambda l: (height[l][v], l))
                else:
                    wake = lower - slack - busy
                    if wake not in freed:
                        freed[wake] = []
                        heapq.heappush(events, wake)
                    continue
                candidates.append(((not urgent, not ready,
                                    key(work_out[u], work_in[v]), arc), tree))
        candidates.sort()
        for (_, _, _, arc), l in candidates:
            u, v = arc
            if u not in idle_out or v not in idle_in:
                continue
            c = cost[arc]
            end = t + c
            left[(l, arc)] -= 1
            sent[(l, arc)] = sent.get((l, arc), 0) + 1
            arc_left[arc] -= 1
            pending -= 1
            work_out[u] -= c
            work_in[v] -= c
            if not arc_left[arc]:
                live_out[u].discard(arc)
            idle_out.discard(u)
            idle_in.discard(v)
            if end not in freed:
                freed[end] = []
                heapq.heappush(events, end)
            freed[end] += [("out", u, None), ("in", v, None), ("got", None, (l, v))]
            extend_runs(pieces.setdefault((l, arc), []), t, 1, c)
        if pending and not events:  # pragma: no cover - a woken pair always sends
            raise AssertionError("tree list schedule stalled with messages left")
    return pieces


# -- which tree each slot carries ---------------------------------------------------------

#: :func:`follow_arrivals` looks at every message slot of a period a few times: it runs
#: when the period has at most this many.
RELABEL_SLOTS = 200_000
#: Passes of :func:`follow_arrivals` over the links (each uses the arrivals of the last).
RELABEL_SWEEPS = 3


def follow_arrivals(source: str, trees, slots: dict, cost: dict):
    """Which tree each message slot of a link carries, chosen so that the trees lag less
    (ours): (W, pieces) with pieces {(tree, arc): [[start, count], ...]} in ticks, or
    None beyond :data:`RELABEL_SLOTS` slots.

    ``slots`` gives, per link, the start ticks of its message slots in a period (a
    timetable of the links' counts); any assignment that gives every tree edge its
    tree's weight is a valid periodic schedule with the same period (002 §5.4.2: the
    order inside a period is free), so only the warm-up changes.  Links are taken
    breadth first from the source; a slot goes to a tree whose message has already
    arrived at the sender in the period (the deepest subtree first, the tree of the
    previous slot on ties: fewer transfers), else to the tree with the shallowest subtree
    below, which then lags one message more at this hop.  Arrivals come from the
    previous links' choices (a link not yet chosen counts as arrived), and the passes
    are repeated with the arrivals of the last pass; the pass with the smallest W
    (:func:`warmup_periods`) is returned."""
    if sum(map(len, slots.values())) > RELABEL_SLOTS:
        return None
    on_arc: dict[Arc, list[int]] = {}
    for l, (parent, _) in enumerate(trees):
        for child, par in parent.items():
            on_arc.setdefault((par, child), []).append(l)
    height = [_heights(parent) for parent, _ in trees]
    order = _breadth_first(source, on_arc)
    arrivals: dict[tuple[int, str], list[int]] = {}
    best = None
    for _ in range(RELABEL_SWEEPS):
        pieces: dict = {}
        for arc in order:
            u, v = arc
            got = {l: 0 for l in on_arc[arc]}
            previous = None
            for start in slots[arc]:
                open_ = [l for l in on_arc[arc] if got[l] < trees[l][1]]
                ready = [l for l in open_ if u == source or (l, u) not in arrivals
                         or arrivals[(l, u)][got[l]] <= start]
                if ready:
                    l = max(ready, key=lambda t: (height[t][v], t == previous, -t))
                else:
                    l = min(open_, key=lambda t: (height[t][v], t))
                got[l] += 1
                previous = l
                extend_runs(pieces.setdefault((l, arc), []), start, 1, cost[arc])
            for l in on_arc[arc]:
                arrivals[(l, v)] = [s + (k + 1) * cost[arc]
                                    for s, n in pieces[(l, arc)] for k in range(n)]
        w = warmup_periods(source, trees, pieces, cost)
        if best is None or w < best[0]:
            best = (w, pieces)
    return best


def _breadth_first(source: str, on_arc: dict) -> list[Arc]:
    """The links of ``on_arc``, breadth first from the source (then the unreached ones)."""
    out: dict[str, list[Arc]] = {}
    for arc in sorted(on_arc):
        out.setdefault(arc[0], []).append(arc)
    order, seen, queue = [], {source}, [source]
    for u in queue:
        for arc in out.get(u, ()):
            order.append(arc)
            if arc[1] not in seen:
                seen.add(arc[1])
                queue.append(arc[1])
    done = set(order)
    return order + [arc for arc in sorted(on_arc) if arc not in done]


def warmup_periods(source: str, trees, pieces: dict, cost: dict) -> int:
    """The warm-up W of pipelined forwarding (:mod:`steady.simulate.unroll`, whose
    ``PeriodicPattern`` computes the same from a file): per tree, the first-in-first-out
    lag each hop adds, summed from the source; W = max ceil(lag / weight)."""
    worst = 0
    for l, (parent, w) in enumerate(trees):
        lag = {source: 0}
        for v in reversed(_bottom_up(_children(parent), parent)):
            if v == source:
                continue
            u = parent[v]
            add = 0
            if u != source:
                ends = [s + (k + 1) * cost[(parent[u], u)]
                        for s, n in pieces[(l, (parent[u], u))] for k in range(n)]
                starts = [s + k * cost[(u, v)]
                          for s, n in pieces[(l, (u, v))] for k in range(n)]
                add = hop_lag(ends, starts)
            lag[v] = lag[u] + add
            worst = max(worst, -(-lag[v] // w))
    return worst


def _children(parent: dict) -> dict[str, list]:
    children: dict[str, list] = {}
    for child, par in parent.items():
        children.setdefault(par, []).append(child)
    return children


def hop_lag(arrivals, starts) -> int:
    """The lag one hop adds under first-in-first-out forwarding: the smallest c >= 0
    such that slot j of the out-edge (starting at starts[j] in the period) can carry
    what slot j - c of the in-edge brought (arrived at arrivals[j - c], in the previous
    periods when j - c < 0), for every j.  Both lists are sorted, of equal length λ,
    inside [0, period]; the in-edge's slot i of the previous period arrives at
    arrivals[i] - period <= 0 <= starts[j], so c <= λ (the period rule)."""
    c, i = 0, -1
    for j, s in enumerate(starts):
        while i + 1 < len(arrivals) and arrivals[i + 1] <= s:
            i += 1
        c = max(c, j - i)
    return c
