"""Short-period schedules in synchronous steps: steady-schedule version 1 with at most M
messages per period and a ratio to the optimum certified by the optimum's own prices
(ours; builds on 002 §5.4.1-§5.4.2: the bipartite graph of ports G^M and Theorem 6).

For runtimes that need barriers.  The integer trees are those of the timed construction
(:func:`steady.schedule.timed.best_packing`); only the time line differs: instead of a
timetable, a sequence of steps, each a matching of G^M (a node sends over at most one
link and receives over at most one link), lasting as long as its longest transfer.  A
step of duration d lets link e send floor(d / c_e) messages: unless d is a multiple of
c_e, the link's ports idle for the rest, so every step can cost a busy port part of a
message time.  The period is at least the largest port load Δ (002 Lemma 6's bound);
the construction aims at Δ (proofs/timed-schedule.md, "Synchronous steps"):

1. **Plans** (each a list of steps: a duration and messages per link):

   - *Theorem 6, rounded*: the weighted edge colouring of G^M with link weights k_e·c_e
     (:func:`steady.schedule.matchings.weighted_edge_coloring`) is exact in time -- its
     matchings add up to Δ -- but gives link e a fractional μ_i / c_e messages in
     matching i; each link's running total is rounded, which keeps its count k_e and
     moves each share by at most one message;
   - *greedy steps* (ours): while messages are left, a matching that serves the ports
     with the most work left (two rules: links by their busier port, or augmenting
     paths that cover ports in order of work), run for the duration among
     {c_e, 2·c_e, (all of e's messages)·c_e} that lowers the largest remaining port load
     most per unit of time (on platforms of at most :data:`ALIGNED_LINKS` links, also
     durations aligned with the other links' finishing times).  A step's loss is its
     duration minus that decrease; the losses add up to period - Δ, which is what the
     rule keeps small.

2. **Tightening**: durations are lowered, longest step first, to the least that still
   lets every link send its count (sum over its steps of floor(d_i / c_e) >= k_e), and
   the messages are poured again into each link's steps in order.

3. The shortest plan is kept; each link's messages are shared among the trees through it
   in order (a node forwards in period p what it received in period p-1, 002 §5.4.2,
   so any order inside the period is valid).

Everything is exact: integer time units (the least common denominator of the costs),
integer messages.  The greedy plans search with the costs rounded to 62 bits (exact ones
can have hundreds of digits); what they return is which links share a step and how many
messages each sends -- valid whatever the costs -- and its durations are computed with
the exact costs before tightening.  :func:`check_steps` is the runtime postcondition; the command runs the
independent checker :func:`steady.verify.verify` before writing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from fractions import Fraction

from ..inputs import as_platform
from ..numbers import lcm_of_denominators
from ..schedule_file import PriceCertificate, Schedule, Step, Transfer, TreeEntry
from .matchings import pour, weighted_edge_coloring
from .periodic import short_optimum
from .counts import best_packing, usage as link_usage
from .link_steps import check_network_steps
from .timed import optimum_trees
from .timetable import loads_of, port_loads_of

__all__ = ["steps_schedule", "synchronous_steps", "check_steps"]

Arc = tuple[str, str]
Port = tuple[str, str]     # ("out" | "in", node)
Plan = list[tuple[int, dict]]  # [(duration in time units, {arc: messages})]
#: The aligned greedy plan (|matching|² candidate durations per step) is tried up to this
#: many links: a few points of ratio on small platforms, 20x the time of the others.
ALIGNED_LINKS = 100
#: The greedy plans search with costs of this many bits (exact ones: hundreds of digits).
SEARCH_BITS = 62


def steps_schedule(platform, result, max_messages: int, trees=None) -> tuple[Schedule, dict]:
    """A version 1 schedule (synchronous steps) with at most ``max_messages`` messages per
    period, from an exact optimum ``result`` with trees (``throughput(p, "trees")``), and
    statistics.  ``trees``: integer trees ``[(parent, weight)]`` to schedule instead of
    :func:`best_packing`'s (a timed schedule's, to compare both time lines on the same
    counts).  When the exact optimum of 002 §5.4.2 fits, it is returned: ratio 1."""
    platform = as_platform(platform)
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    optimum = result.throughput
    rates = optimum_trees(platform, result)
    schedule = short_optimum(platform, rates, result, max_messages)
    plan = "exact optimum (002 §5.4.2)"
    if schedule is not None:
        schedule = replace(schedule, extra={"optimum": optimum,
                                            "ratio": schedule.throughput / optimum})
    else:
        if trees is None:
            _, trees = best_packing(platform, rates, optimum, max_messages)
        trees = [(dict(parent), int(w)) for parent, w in trees]
        steps, period, plan = synchronous_steps(platform, trees)
        schedule = _document(platform, trees, steps, period, result)
    check_steps(platform, schedule)
    loads = loads_of(platform, schedule.messages_per_link())
    stats = {"messages_target": schedule.messages_per_period, "trees": len(schedule.trees),
             "steps": len(schedule.steps), "transfers": schedule.transfer_count,
             "largest_port_load": max(loads.values()),
             "ratio": schedule.throughput / optimum, "plan": plan,
             "construction": plan if plan.startswith("exact") else
             f"integer trees, synchronous steps ({plan})"}
    return schedule, stats


# -- the steps -------------------------------------------------------------------------

def synchronous_steps(platform, trees) -> tuple[list[Step], Fraction, str]:
    """Steps carrying every tree edge's weight per period: (steps, period, the name of
    the plan kept).  Each step is a matching of G^M; its duration is its longest
    transfer (messages x cost); the period is their sum."""
    counts = link_usage(trees)
    unit = lcm_of_denominators(platform.cost(*arc) for arc in counts)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in counts}
    best = None
    for name, plan in _plans(counts, cost):
        plan = tightened(plan, counts, cost)
        key = (sum(d for d, _ in plan), len(plan))
        if best is None or key < best[0]:
            best = (key, name, plan)
    (total, _), name, plan = best
    # The guarantee (proofs/timed-schedule.md): Theorem 6's rounded plan alone ends by
    # Δ + |E|·c_max (each of its <= |E| matchings grows by at most one message of its
    # slowest link), and the plan kept is no longer.
    if total > max(port_loads_of(counts, cost).values()) + len(counts) * max(cost.values()):
        raise AssertionError("postcondition: steps beyond Δ + |E|·c_max")
    return _poured(plan, trees, unit), Fraction(total, unit), name


def _plans(counts, cost):
    """(name, plan) for every candidate of step 1 of the module docstring, each with
    exact durations.  The greedy plans search with costs rounded to :data:`SEARCH_BITS`
    bits (the exact ones can have hundreds of digits): only which links share a step
    and how many messages each sends come from the search, and any such plan is valid;
    its durations are then computed exactly (and tightened by the caller)."""
    yield "Theorem 6, rounded", theorem6_plan(counts, cost)
    rough = search_costs(cost)
    for extra in (1, 2):
        yield (f"greedy, busier port, {extra}",
               exact_durations(greedy_plan(counts, rough, by_busier_port, extra), cost))
        yield (f"greedy, covering, {extra}",
               exact_durations(greedy_plan(counts, rough, covering_matching, extra), cost))
    if len(counts) <= ALIGNED_LINKS:
        yield "greedy, covering, aligned", exact_durations(
            greedy_plan(counts, rough, covering_matching, 1, align=True), cost)


def search_costs(cost) -> dict[Arc, int]:
    """The costs scaled so that the largest has :data:`SEARCH_BITS` bits, rounded (>= 1):
    small integers for the greedy search, the same ones on every run."""
    top = max(cost.values())
    shift = top.bit_length() - SEARCH_BITS
    if shift <= 0:
        return dict(cost)
    return {arc: max(1, (c + (1 << (shift - 1))) >> shift) for arc, c in cost.items()}


def exact_durations(plan: Plan, cost) -> Plan:
    """The same steps, each lasting its longest transfer under the exact ``cost``."""
    return [(max(n * cost[arc] for arc, n in step.items()), step) for _, step in plan]


def theorem6_plan(counts, cost) -> Plan:
    """002 Thm 6 on G^M weighted by k_e·c_e: matchings (longest first) whose weights add
    up to Δ; link e's share μ_i / c_e of matching i is rounded through its running total
    (half up), so it sends exactly k_e messages and each share moves by at most one:
    step i lasts at most μ_i + the cost of its slowest link, and the plan at most
    Δ + |E|·c_max (002 Thm 6: at most |E| matchings)."""
    weights = {arc: counts[arc] * cost[arc] for arc in counts if counts[arc]}
    matchings = sorted(weighted_edge_coloring(weights), key=lambda m: -m.weight)
    time_so_far = dict.fromkeys(weights, 0)
    sent = dict.fromkeys(weights, 0)
    plan = []
    for matching in matchings:
        step = {}
        for arc in matching.edges:
            time_so_far[arc] += matching.weight
            total = (2 * time_so_far[arc] + cost[arc]) // (2 * cost[arc])
            if total > sent[arc]:
                step[arc] = total - sent[arc]
                sent[arc] = total
        if step:
            plan.append((max(n * cost[arc] for arc, n in step.items()), step))
    return plan


def greedy_plan(counts, cost, matcher, extra: int = 1, align: bool = False) -> Plan:
    """Greedy steps (ours): a matching from ``matcher``, then the duration among
    {c_e, ..., extra·c_e, (all left on e)·c_e} of its links with the largest decrease
    of the largest remaining port load per unit of time (ties: the longer step).  With
    ``align``, also each link's whole messages just below and above the time at which
    another link of the matching would finish (slower: |matching|² durations)."""
    left = {arc: n for arc, n in counts.items() if n}
    work: dict[Port, int] = port_loads_of(left, cost)
    plan = []
    while left:
        top = max(work.values())
        matched = matcher(list(left), work)
        ports = {p for u, v in matched for p in (("out", u), ("in", v))}
        rest = max((w for p, w in work.items() if p not in ports), default=0)
        durations = set()
        finishes = sorted({left[arc] * cost[arc] for arc in matched}) if align else ()
        for arc in matched:
            c = cost[arc]
            durations.update(x * c for x in range(1, min(extra, left[arc]) + 1))
            durations.add(left[arc] * c)
            for end in finishes:
                if c <= end < left[arc] * c:
                    durations.update((end // c * c, -(-end // c) * c))
        # Only a link whose busier port has more work than ``rest`` can set the largest
        # load after the step; busiest first, so that a hopeless duration stops early.
        relevant = sorted(((max(work[("out", u)], work[("in", v)]), cost[(u, v)],
                            left[(u, v)]) for u, v in matched), reverse=True)
        relevant = [r for r in relevant if r[0] > rest]
        best_d, best_gain = None, None
        for d in sorted(durations):
            # beating the best needs after < top - best_gain * d / best_d
            after = rest
            for most, c, n in relevant:
                if most <= after:
                    break
                after = max(after, most - min(n, d // c) * c)
                if best_d is not None and (top - after) * best_d < best_gain * d:
                    break
            gain = top - after
            # the most gain per unit of time; on ties the longer step, unless it gains
            # nothing (then the shorter loses less)
            if (best_d is None or gain * best_d > best_gain * d
                    or gain * best_d == best_gain * d and gain > 0):
                best_d, best_gain = d, gain
        step = {}
        for arc in matched:
            n = min(left[arc], best_d // cost[arc])
            if n:
                step[arc] = n
                busy = n * cost[arc]
                work[("out", arc[0])] -= busy
                work[("in", arc[1])] -= busy
                left[arc] -= n
                if not left[arc]:
                    del left[arc]
        plan.append((max(n * cost[arc] for arc, n in step.items()), step))
    return plan


def by_busier_port(arcs, work) -> list[Arc]:
    """A maximal matching, links taken by their busier port's work left, most first."""
    def key(arc):
        a, b = work[("out", arc[0])], work[("in", arc[1])]
        return (-max(a, b), -min(a, b))

    senders, receivers, matched = set(), set(), []
    for arc in sorted(arcs, key=key):
        if arc[0] not in senders and arc[1] not in receivers:
            senders.add(arc[0])
            receivers.add(arc[1])
            matched.append(arc)
    return matched


def covering_matching(arcs, work) -> list[Arc]:
    """A matching that covers the ports in order of work left, most first: each port
    not yet covered is matched by an augmenting path, which keeps every port already
    covered (the ports a matching can cover form a matroid, so this greedy covers the
    busiest ports possible).  Each port tries its busiest partners first."""
    out_adj: dict[str, list] = {}
    in_adj: dict[str, list] = {}
    for arc in sorted(arcs, key=lambda a: (-work[("in", a[1])], -work[("out", a[0])])):
        out_adj.setdefault(arc[0], []).append(arc)
    for arc in sorted(arcs, key=lambda a: (-work[("out", a[0])], -work[("in", a[1])])):
        in_adj.setdefault(arc[1], []).append(arc)
    mate = {0: {}, 1: {}}  # side (0 = senders, 1 = receivers) -> node -> matched arc
    ports = [(0, u) for u in out_adj] + [(1, v) for v in in_adj]
    ports.sort(key=lambda p: -work[("out" if p[0] == 0 else "in", p[1])])
    for side, node in ports:
        if node not in mate[side]:
            _augment(node, side, out_adj if side == 0 else in_adj, mate)
    return list(mate[0].values())


def _augment(root: str, side: int, adj, mate) -> None:
    """Match ``root`` (of ``side``) by a shortest alternating path to a free vertex of
    the other side; flipping it keeps every matched vertex matched (BFS)."""
    other = 1 - side
    via = {}            # vertex of the other side -> the arc that reached it
    queue = deque([root])
    seen = {root}
    while queue:
        node = queue.popleft()
        for arc in adj.get(node, ()):
            far = arc[other]
            if far in via:
                continue
            via[far] = arc
            if far not in mate[other]:
                while True:  # flip the path back to the root
                    arc = via[far]
                    near = arc[side]
                    previous = mate[side].get(near)
                    mate[side][near] = arc
                    mate[other][far] = arc
                    if near == root:
                        return
                    far = previous[other]
            nxt = mate[other][far][side]
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)


def tightened(plan: Plan, counts, cost) -> Plan:
    """Step 2: each duration, longest first, lowered to the least that keeps every link
    able to send its count (sum over its steps of floor(d_i / c_e) >= k_e); then each
    link's messages poured into its steps in order and each duration cut to its longest
    transfer; empty steps dropped.  One pass suffices: lowering a step only raises what
    the others need, and each was set to what it needed."""
    links = [tuple(step) for _, step in plan]
    d = [duration for duration, _ in plan]
    room = dict.fromkeys(counts, 0)
    for i, arcs in enumerate(links):
        for arc in arcs:
            room[arc] += d[i] // cost[arc]
    for i in sorted(range(len(d)), key=lambda i: -d[i]):
        need = 0
        for arc in links[i]:
            others = room[arc] - d[i] // cost[arc]
            need = max(need, (counts[arc] - others) * cost[arc])
        if need < d[i]:
            for arc in links[i]:
                room[arc] += need // cost[arc] - d[i] // cost[arc]
            d[i] = need
    left = dict(counts)
    out = []
    for i, arcs in enumerate(links):
        step = {}
        for arc in arcs:
            n = min(left[arc], d[i] // cost[arc])
            if n:
                step[arc] = n
                left[arc] -= n
        if step:
            out.append((max(n * cost[arc] for arc, n in step.items()), step))
    if any(left.values()):  # pragma: no cover - room >= counts is kept throughout
        raise AssertionError("tightening lost messages")
    return out


def _poured(plan: Plan, trees, unit: int) -> list[Step]:
    """Steps of exact durations; each link's messages shared among its trees in order
    (:func:`~steady.schedule.matchings.pour`)."""
    through: dict[Arc, list] = {}
    for l, (parent, w) in enumerate(trees):
        for child, par in parent.items():
            through.setdefault((par, child), []).append((l, w))
    transfers: list[list] = [[] for _ in plan]
    for arc, demands in through.items():
        rooms = [(i, step.get(arc, 0)) for i, (_, step) in enumerate(plan)]
        for i, l, n in pour(rooms, demands):
            transfers[i].append(Transfer(arc[0], arc[1], l, n))
    return [Step(Fraction(d, unit), tuple(sorted(ts, key=lambda t: (t.arc, t.tree))))
            for (d, _), ts in zip(plan, transfers)]


# -- the document and its postcondition -------------------------------------------------

def _document(platform, trees, steps, period: Fraction, result) -> Schedule:
    messages = sum(w for _, w in trees)
    throughput = Fraction(messages) / period
    extra = {"optimum": result.throughput, "ratio": throughput / result.throughput}
    return Schedule(platform, throughput, period, messages,
                    tuple(TreeEntry.from_parent(p, w) for p, w in trees), tuple(steps),
                    extra, PriceCertificate.of(result.certificate))


def check_steps(platform, schedule: Schedule) -> None:
    """Runtime postcondition, exact and cheap: positive durations adding up to the
    period; in each step one link per sender and per receiver, each link's messages x
    cost within the duration, every tree edge carrying its weight and nothing else
    carried (:func:`~steady.schedule.link_steps.check_network_steps`); the period is at
    least the largest port load; the ratio is at most 1."""
    check_network_steps(platform, schedule)
    for i, step in enumerate(schedule.steps):
        if step.duration <= 0:
            raise AssertionError(f"postcondition: step {i} has duration {step.duration}")
    if sum((s.duration for s in schedule.steps), Fraction(0)) != schedule.period:
        raise AssertionError("postcondition: the durations do not add up to the period")
    loads = loads_of(platform, schedule.messages_per_link())
    if schedule.period < max(loads.values()):  # pragma: no cover - by construction
        raise AssertionError("postcondition: period below the largest port load")
    if schedule.extra["ratio"] > 1:
        raise AssertionError("postcondition: ratio above 1: the optimum is not an optimum")
