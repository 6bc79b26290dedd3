"""The broadcasts of a finite run list scheduled over weighted trees, as a plan (ours;
002 §5.5 remarks that warm-up and clean-up could be "shortened ... using parallel
routing": here the whole run is routed that way).

A periodic schedule repeated with lags (:mod:`steady.simulate.unroll`) keeps the period's order in every period, so a message waits
at each hop for its tree's next slot: on trees 15 to 37 hops deep, warm-up and clean-up
then cost 1.5 % to 8 % of a run.  A list run keeps only the *trees* of a schedule —
which node forwards which broadcast to whom — and places the K·(|V| - 1) single-message
transfers by the rule of the period's list schedule
(:func:`steady.schedule.list_schedule.busier_port`): at each event, free (out-port,
in-port) pairs whose sender holds a broadcast for that receiver are matched, the pair
whose busier port has the most work left in the whole run first, and each link sends the
oldest broadcast it has for its receiver.  Ports wait only for data, never for a slot.
With shared network links (issue 19) a transfer also waits until every shared link on
its route has room for it (the transfers in progress use at most its capacity).

Broadcasts go to trees by smooth weighted round robin over the weights λ_l
(:func:`tree_of_messages`): any M = sum λ_l consecutive broadcasts give tree l exactly
λ_l of them, the period's split spread out.

Valid by construction (proofs/finite-plan.md, "The list plan"): one-port, causal, every
tree's broadcasts cross each link in increasing order, every node receives every
broadcast once.  Its throughput is not guaranteed (a greedy with data dependencies):
callers compare it with the unrolled periodic schedule and keep the better, exactly
measured.  The work is one placement per broadcast and hop, bounded by the callers.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..network.rows import integer_shares, link_shares
from ..numbers import lcm_of_denominators
from ..platform import Arc
from ..schedule.counts import usage
from ..schedule.list_schedule import busier_port
from ..schedule.port_clock import PortClock
from ..schedule.timetable import children_of, port_loads_of
from .plan import Plan, Transfer, checked


def tree_of_messages(weights: list[int], messages: int) -> list[int]:
    """The tree of each of ``messages`` consecutive broadcasts: smooth weighted round
    robin (at each broadcast every tree gains its weight, the largest credit is chosen
    and pays the sum), so any M = sum(weights) consecutive broadcasts give tree l
    exactly λ_l of them."""
    total = sum(weights)
    credit = [0] * len(weights)
    out = []
    for _ in range(messages):
        for l, w in enumerate(weights):
            credit[l] += w
        best = max(range(len(weights)), key=lambda l: (credit[l], -l))
        credit[best] -= total
        out.append(best)
    return out


@dataclass(frozen=True)
class ListRun:
    """Broadcasts list scheduled: ``sends`` are (tail, head, broadcast, start) in
    placement order, times in ticks (``unit`` ticks per time unit), each lasting
    ``cost[(tail, head)]`` ticks; ``tree_of`` gives each broadcast's tree."""

    unit: int
    cost: dict
    sends: list
    tree_of: list


def list_run(platform, trees, messages: int) -> ListRun:
    """The list run (module docstring) of ``messages`` broadcasts over ``trees``
    [(parent map, weight)]."""
    children = [children_of(parent) for parent, _ in trees]
    arcs = {(par, child) for parent, _ in trees for child, par in parent.items()}
    unit = lcm_of_denominators(platform.cost(*arc) for arc in arcs)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in arcs}
    tree_of = tree_of_messages([w for _, w in trees], messages)
    work_out, work_in = _work(trees, tree_of, cost)
    ready: dict[Arc, list[int]] = {arc: [] for arc in arcs}   # heaps, oldest first
    out_arcs: dict[str, list[Arc]] = {}
    in_arcs: dict[str, list[Arc]] = {}
    for arc in sorted(arcs):
        out_arcs.setdefault(arc[0], []).append(arc)
        in_arcs.setdefault(arc[1], []).append(arc)
    source = platform.source
    for x, l in enumerate(tree_of):
        for child in children[l].get(source, ()):
            ready[(source, child)].append(x)   # increasing: already a heap
    parts, capacity = integer_shares(link_shares(platform, arcs))
    on_link: dict[str, list[Arc]] = {}
    for arc, shares in parts.items():
        for lid, _ in shares:
            on_link.setdefault(lid, []).append(arc)
    clock = PortClock(parts, capacity)
    sends: list = []
    left = messages * (len(platform.nodes) - 1)
    touched = set(arcs)
    while left:
        t, ended = clock.advance()
        for u, v, x in ended:   # broadcast x is at v: its tree's links out of v may send it
            touched.update(out_arcs.get(u, ()))
            touched.update(in_arcs.get(v, ()))
            touched.update(out_arcs.get(v, ()))
            for lid, _ in parts.get((u, v), ()):
                touched.update(on_link[lid])
            for child in children[tree_of[x]].get(v, ()):
                heapq.heappush(ready[(v, child)], x)
        # Only a pair that an event touched can have become free to send: the others
        # were busy, empty or refused at the last event, and nothing of theirs changed.
        candidates = sorted((busier_port(work_out[arc[0]], work_in[arc[1]]), ready[arc][0],
                             arc) for arc in touched
                            if ready[arc] and clock.free(*arc))
        touched = set()
        for _, _, arc in candidates:
            if not clock.free(*arc):
                continue
            if clock.full(arc):
                continue   # a transfer on the link ends later: that is an event
            x = heapq.heappop(ready[arc])
            work_out[arc[0]] -= cost[arc]
            work_in[arc[1]] -= cost[arc]
            clock.start(arc, t + cost[arc], x)
            sends.append((arc[0], arc[1], x, t))
            left -= 1
        if left and not clock:  # pragma: no cover - a sender always holds something
            raise AssertionError("list run stalled with broadcasts left")
    return ListRun(unit, cost, sends, tree_of)


def _work(trees, tree_of, cost) -> tuple[dict, dict]:
    """Each port's work in the whole run, in ticks: (out-ports, in-ports) {node: work}."""
    uses = [0] * len(trees)
    for l in tree_of:
        uses[l] += 1
    work = port_loads_of(usage([(parent, n) for (parent, _), n in zip(trees, uses)]), cost)
    return ({v: t for (side, v), t in work.items() if side == "out"},
            {v: t for (side, v), t in work.items() if side == "in"})


def list_plan(platform, trees, broadcasts: int, about=None) -> Plan:
    """The list run of ``broadcasts`` broadcasts over ``trees`` [(parent map, weight)]
    as a checked plan of single-message transfers."""
    run = list_run(platform, trees, broadcasts)
    index = {v: i for i, v in enumerate(platform.nodes)}
    transfers = sorted((Transfer(0, index[u], index[v], x, 1, start, run.cost[(u, v)],
                                 run.tree_of[x]) for u, v, x, start in run.sends),
                       key=lambda t: (t.release, t.tail, t.head, t.first))
    transfers = tuple(t._replace(id=i) for i, t in enumerate(transfers))
    info = {"forwarding": "listed", "messages_per_period": sum(w for _, w in trees)}
    info.update(about or {})
    nodes = tuple(platform.nodes)
    return checked(Plan("steady schedule", nodes, index[platform.source], broadcasts,
                        run.unit, transfers, max((t.end for t in transfers), default=0),
                        info, platform))
