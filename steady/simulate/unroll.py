"""Finite schedules from a periodic one: warm-up, steady periods, clean-up (002 §5.5).

A periodic schedule is a time line of one period: synchronous steps (steady-schedule v1)
or a timetable in which every transfer has its own start (version 2, timed).  Either way
it is, per link and tree, a sequence of *message slots*: the k-th slot of tree l on the
link (u, v) in a period starts at a fixed offset and lasts one message time.  What a
finite run needs beyond the time line is *which* message each slot carries.  Tree l's
messages are numbered 0, 1, 2, ... in the order the source sends them (λ_l per period,
the tree's weight); the slot k of period p on the tree edge into v carries

    message  p·λ_l + k - lag_l(v)          (no message while that number is negative),

so ``lag_l(v)`` (in messages) is how far v lags behind the source in tree l.  Two
*forwarding rules* set the lags:

``"period"`` (002 §5.4.2, §5.5; the rule the schedule files state)
    a node forwards in period p the messages it received in period p - 1: a node at
    depth d forwards the source's batch p - d, i.e. lag_l(v) = (depth_l(v) - 1)·λ_l.
    Valid for any valid time line, whatever the order inside the period.
``"pipelined"`` (ours)
    the smallest lags under which the time line itself is causal: on every tree edge
    (u, v) the slot carrying a message starts after the slot that brought it to u has
    ended, in absolute time.  Slots keep their order (first in, first out), so the lag
    added at u is c = max over the period's slots j of (j - the last slot of u's
    in-edge that has arrived when slot j starts) >= 0 (proofs/finite-horizon.md).  A
    message then waits at each hop only until the next free slot of its tree, not a
    whole period: deep trees stop costing one period per level.

With B batches (tree l's messages 0 .. B·λ_l - 1; ``share`` may clip the last one), every
slot of the periods W .. B-1 carries a message (W = max over trees and nodes of
ceil(lag / λ), the *warm-up* periods), and no slot beyond period B + W - 1 carries one:

* periods 0..W-1 (*warm-up*) and B..B+W-1 (*clean-up*) have idle slots; their transfers
  are placed *as soon as possible*, in the order of the periodic time line (list
  scheduling): when both ports are free and the sender holds the messages (each
  message of a transfer goes when it has arrived: cut-through inside a transfer).  By
  induction along that order nothing starts later than in the periodic time line, so
  the phases only get shorter (proofs/finite-horizon.md);
* periods W..B-1 are *steady*: the periodic time line as written, from the end I of the
  warm-up.

The paper fills buffers and drains them by routing messages one at a time (§5.5); its
remark that the phases could be "shortened ... using parallel routing" is what this
module does.  Times are exact: internally integers in units of 1/U (U = lcm of the
denominators of the costs, offsets and period), reported as Fractions.  The work is
polynomial in the size of the *file* (runs = transfers of the time line), never in the
number of messages, except for the pipelined lags, which look at every message slot of
one period (at most :data:`MAX_SLOTS`).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass
from fractions import Fraction

from ..schedule.timetable import Timetable, top_down
from .plan import Plan, Transfer, checked, collector_paused

#: The forwarding rules (see the module docstring).
FORWARDING = ("period", "pipelined")
#: The pipelined rule's name.
PIPELINED = FORWARDING[1]
#: Pipelined lags read every message slot of a period: at most this many.
MAX_SLOTS = 2_000_000


class TooManySlots(ValueError):
    """Pipelined lags asked of a period with more than :data:`MAX_SLOTS` message slots
    (``slots``: how many it has)."""

    def __init__(self, slots: int):
        super().__init__(f"pipelined forwarding reads every message slot of a period: "
                         f"{slots} > {MAX_SLOTS}; use the period rule")
        self.slots = slots


@dataclass(frozen=True)
class _Run:
    """A transfer of the periodic time line: slots first .. first + count - 1 of its
    tree on its link, in the period."""

    tail: str
    head: str
    tree: int
    first: int
    count: int
    cost: int      # per message, in ticks
    offset: int    # start within the period, in ticks


class PeriodicPattern:
    """A timetable prepared for unrolling: runs in time-line order, depths, lags of a
    forwarding rule, message numbering.

    Public attributes: ``table`` (the :class:`~steady.schedule.timetable.Timetable`),
    ``platform``, ``forwarding``, ``source``, ``weights`` (λ_l), ``messages`` (M),
    ``depth`` (per tree {node: depth}), ``lag`` (per tree {node: lag in
    messages}, the source absent), ``warmup`` (W), ``unit`` (ticks per time unit),
    ``period`` (in ticks), ``runs``.  ``schedule`` may be a Timetable or a schedule
    document (version 1 is read through its timed form)."""

    def __init__(self, schedule, forwarding: str = "period"):
        if forwarding not in FORWARDING:
            raise ValueError(f"forwarding rule {forwarding!r}: one of {FORWARDING}")
        table = schedule if isinstance(schedule, Timetable) else Timetable.of(schedule)
        self.table = table
        self.forwarding = forwarding
        self.platform = table.platform
        self.source = self.platform.source
        self.weights = [t.weight for t in table.trees]
        self.messages = table.messages
        self.tree_offset = [sum(self.weights[:l]) for l in range(len(self.weights))]
        self.depth = [_depths(t.parent, self.source) for t in table.trees]
        self.unit = table.unit
        self.period = table.period
        self.period_time = table.period_time
        self.throughput = Fraction(self.messages) / self.period_time
        self.runs = [_Run(arc[0], arc[1], l, first, n, table.cost[arc], s)
                     for s, arc, l, first, n in _timeline(table)]
        # shared network links (issue 19): {arc: [(link id, part, capacity)]}
        parts, capacity = table.shares()
        self.link_parts = {arc: [(lid, x, capacity[lid]) for lid, x in shares]
                           for arc, shares in parts.items()}
        if forwarding == "period":
            self.lag = [{v: (d - 1) * w for v, d in depth.items() if d}
                        for depth, w in zip(self.depth, self.weights)]
        else:
            slots = sum(table.counts.values())
            if slots > MAX_SLOTS:
                raise TooManySlots(slots)
            self.lag = table.lags()
        self.warmup = max((-(-lag // w) for l, w in enumerate(self.weights)
                           for lag in self.lag[l].values()), default=0)

    # -- numbers -----------------------------------------------------------------
    def time(self, ticks: int) -> Fraction:
        return Fraction(ticks, self.unit)

    def ticks(self, time) -> int:
        """The largest tick count not after ``time``."""
        t = Fraction(time) * self.unit
        return t.numerator // t.denominator

    def message_id(self, batch: int, tree: int, k: int) -> int:
        """Global number of message k of tree ``tree`` in batch ``batch``."""
        return batch * self.messages + self.tree_offset[tree] + k

    def limits(self, batches: int, share=None) -> list[int]:
        """Per tree, the number of its messages in ``batches`` batches (the last one
        cut to ``share[l]`` messages of tree l when given)."""
        if share is None:
            return [batches * w for w in self.weights]
        return [max(batches - 1, 0) * w + (share[l] if batches else 0)
                for l, w in enumerate(self.weights)]

    def blocks(self, periods, batches: int, share=None):
        """The runs of ``periods`` that carry messages of batches 0..batches-1, in
        time-line order, as (period, run, batch, first, count, skip): ``count``
        messages ``first ..`` of the tree's share of ``batch``, in the run's slots
        ``skip .. skip + count - 1`` (a run is cut where its messages change batch or
        do not exist)."""
        limit = self.limits(batches, share)
        for p in periods:
            for run in self.runs:
                w = self.weights[run.tree]
                lag = self.lag[run.tree].get(run.head, 0)
                low = p * w + run.first - lag
                lo, hi = max(low, 0), min(low + run.count, limit[run.tree])
                while lo < hi:
                    b, k = divmod(lo, w)
                    n = min(hi, (b + 1) * w) - lo
                    yield p, run, b, k, n, lo - low
                    lo += n


def _timeline(table: Timetable) -> list[tuple]:
    """(offset, arc, tree, first slot, count) of every run, in time-line order (ties:
    link, then tree), slots numbered per tree edge in the order of their starts."""
    out = []
    for (l, arc), rs in table.runs.items():
        first = 0
        for s, n in rs:
            out.append((s, arc, l, first, n))
            first += n
    out.sort()
    return out


def _depths(parent: dict, source: str) -> dict:
    depth = {source: 0}
    for v in top_down(parent, source):
        depth[v] = depth[parent[v]] + 1
    return depth


# -- placing the runs -----------------------------------------------------------------

def synchronous(pattern: PeriodicPattern, periods, batches: int, start: int = 0,
                share=None) -> list[tuple]:
    """The periodic time line as written: period p starts at start + p'·T (p' = p minus
    the first period), every slot at its place.  Returns placed runs
    (period, run, batch, first, count, start tick, end tick); see :func:`to_blocks`."""
    periods = list(periods)
    base = periods[0] if periods else 0
    out = []
    for p, run, b, first, count, skip in pattern.blocks(periods, batches, share):
        t = start + (p - base) * pattern.period + run.offset + skip * run.cost
        out.append((p, run, b, first, count, t, t + count * run.cost))
    return out


class Holdings:
    """What each node holds, per tree: every message below a *frontier* from the phase
    start on, and the messages received during the phase (runs of consecutive message
    numbers, appended in increasing order: one in-edge per tree, first in first out)."""

    def __init__(self, frontier=None):
        self.frontier = frontier or {}      # (node, tree) -> messages held from the start
        self.firsts: dict = {}              # (node, tree) -> [first message of each run]
        self.runs: dict = {}                # (node, tree) -> [(first, count, start, cost)]

    def receive(self, node, tree, first: int, count: int, start: int, cost: int) -> None:
        key = (node, tree)
        self.firsts.setdefault(key, []).append(first)
        self.runs.setdefault(key, []).append((first, count, start, cost))

    def available(self, node, tree, first: int, count: int) -> int:
        """How many of the messages first .. first + count - 1 of ``tree`` ``node``
        holds, from the first on: it holds every message below the frontier and the
        ones received since, which follow the frontier without a gap."""
        runs = self.runs.get((node, tree))
        top = runs[-1][0] + runs[-1][1] if runs else 0
        held = max(self.frontier.get((node, tree), 0), top)
        return max(0, min(count, held - first))

    def ready(self, node, tree, first: int, count: int, cost: int, start: int) -> int:
        """The earliest time >= ``start`` at which ``node`` can send messages
        first .. first + count - 1 of ``tree`` back to back at ``cost`` each, every one
        after it has arrived."""
        low = max(first, self.frontier.get((node, tree), 0))
        end = first + count
        if low >= end:
            return start
        key = (node, tree)
        firsts, runs = self.firsts.get(key, []), self.runs.get(key, [])
        i = bisect.bisect_right(firsts, low) - 1
        at, ready = low, start
        while at < end:
            if i < 0 or i >= len(runs) or not runs[i][0] <= at < runs[i][0] + runs[i][1]:
                raise AssertionError(f"postcondition: {node} forwards message {at} of tree "
                                     f"{tree} it never received")
            f, n, s, c = runs[i]
            stop = min(end, f + n)
            # message m arrives at s + (m - f + 1)·c and leaves at time + (m - first)·cost:
            # linear in m, so the tightest is at one end of the overlap
            for m in ((at, stop - 1) if c != cost else (at,)):
                ready = max(ready, s + (m - f + 1) * c - (m - first) * cost)
            at, i = stop, i + 1
        return ready


def as_soon_as_possible(pattern: PeriodicPattern, periods, batches: int, start: int = 0,
                        share=None, held: Holdings | None = None) -> list[tuple]:
    """List scheduling of the runs of ``periods`` in the order of their slots in the
    periodic time line (see the module docstring): each starts when its ports are free
    and its sender holds its messages.  ``held`` says what every node holds when the
    phase starts (default: nothing; the source holds everything).  Returns placed runs
    like :func:`synchronous`.

    The order is that of the slots' nominal starts, so that every message is placed
    after the run that brings it (in the time line it arrives before its slot starts):
    a run whose later messages come from a run that starts after its own start is cut
    there, the rest waiting for its turn (only then: most runs stay whole)."""
    send_free: dict[str, int] = {}
    recv_free: dict[str, int] = {}
    in_use: dict[str, list] = {}  # shared link -> [(end, start, part)] placed so far
    held = Holdings() if held is None else held
    source = pattern.source
    w = pattern.weights
    queue = []
    for i, (p, run, b, first, count, skip) in enumerate(
            pattern.blocks(periods, batches, share)):
        key = p * pattern.period + run.offset + skip * run.cost
        queue.append((key, i, p, run, b * w[run.tree] + first, count))
    heapq.heapify(queue)
    heappop, heappush = heapq.heappop, heapq.heappush
    frontier, received, firsts = held.frontier, held.runs, held.firsts
    link_parts = pattern.link_parts
    out = []
    while queue:   # Holdings.available and .receive inline: 10^4..10^5 runs a call
        key, i, p, run, index, count = heappop(queue)
        tail, head, tree, cost = run.tail, run.head, run.tree, run.cost
        if tail != source:
            runs = received.get((tail, tree))
            top = runs[-1][0] + runs[-1][1] if runs else 0
            have = max(frontier.get((tail, tree), 0), top) - index
            if have <= 0:
                raise AssertionError(f"postcondition: {tail} forwards message {index} "
                                     f"of tree {tree} before it is received")
            if have < count:     # the rest comes later in the time line: wait for it
                heappush(queue, (key + have * cost, i, p, run, index + have,
                                 count - have))
                count = have
        ready = max(start, send_free.get(tail, start), recv_free.get(head, start))
        if tail != source:
            ready = held.ready(tail, tree, index, count, cost, ready)
        shares = link_parts.get((tail, head))
        if shares:
            ready = _link_fit(in_use, shares, ready, count * cost)
        end = ready + count * cost
        send_free[tail] = recv_free[head] = end
        runs = received.get((head, tree))
        if runs is None:
            firsts[(head, tree)] = [index]
            received[(head, tree)] = [(index, count, ready, cost)]
        else:
            firsts[(head, tree)].append(index)
            runs.append((index, count, ready, cost))
        out.extend(_placed(pattern, p, run, index, count, ready))
    return out


def _link_fit(in_use: dict, shares, ready: int, length: int) -> int:
    """The earliest start >= ``ready`` at which a run of ``length`` ticks holding
    ``shares`` [(link, part of its capacity in integers, the capacity)] keeps every
    shared link within capacity among the runs placed so far (``in_use``: per link,
    [(end, start, part)] sorted by end).  It is never later than the run's start in the
    periodic time line: the runs placed before it started no later and end no later
    than there, so at any instant after its nominal start they hold no more than they
    did there (proofs/finite-horizon.md)."""
    t = ready
    while True:
        later = max(_fit_one(in_use.get(lid, ()), part, cap, t, length)
                    for lid, part, cap in shares)
        if later == t:
            break
        t = later
    for lid, part, _ in shares:
        bisect.insort(in_use.setdefault(lid, []), (t + length, t, part))
    return t


def _fit_one(placed, part: int, cap: int, ready: int, length: int) -> int:
    """The earliest t >= ready with use + part <= cap on [t, t + length) for one link
    (only the runs that end after ``ready`` matter: a suffix of ``placed``)."""
    live = placed[bisect.bisect_right(placed, (ready, float("inf"))):]
    if not live:
        return ready
    for t in [ready] + sorted({e for e, _, _ in live}):
        points = [t] + [s for _, s, _ in live if t < s < t + length]
        if all(sum(x for e, s, x in live if s <= at < e) + part <= cap for at in points):
            return t
    raise AssertionError("unreachable: after every run ends the link is free")


def _placed(pattern, p, run, index: int, count: int, start: int):
    """A run's messages index .. index + count - 1 of its tree from ``start``, cut where
    the batch changes, as placed runs (period, run, batch, first, count, start, end)."""
    w = pattern.weights[run.tree]
    while count:
        b, k = divmod(index, w)
        n = min(count, w - k)
        yield (p, run, b, k, n, start, start + n * run.cost)
        index, count, start = index + n, count - n, start + n * run.cost


def to_transfers(pattern: PeriodicPattern, placed, scale: int = 1) -> list[Transfer]:
    """Placed runs as plan transfers of one message each (node indices, global message
    numbers; message k of a run goes at its own time, cut-through), times multiplied by
    ``scale``, numbered in the order of their starts."""
    return _numbered(_singles(pattern, placed, scale))


def _singles(pattern: PeriodicPattern, placed, scale: int) -> list[tuple]:
    """(release, tail, head, message, duration, tree) of every message of ``placed``."""
    index = {v: i for i, v in enumerate(pattern.platform.nodes)}
    out = []
    for p, run, b, first, count, t, end in placed:
        g = pattern.message_id(b, run.tree, first)
        c = run.cost * scale
        tail, head, start = index[run.tail], index[run.head], t * scale
        out += [(start + k * c, tail, head, g + k, c, run.tree) for k in range(count)]
    return out


def _numbered(rows: list[tuple]) -> list[Transfer]:
    """``rows`` (:func:`_singles`) sorted by start as numbered plan transfers."""
    rows.sort()
    make = tuple.__new__   # Transfer(...) without its Python-level __new__: a plan
    return [make(Transfer, (i, tail, head, g, 1, start, c, tree))   # holds 10^5..10^6
            for i, (start, tail, head, g, c, tree) in enumerate(rows)]


def _steady_rows(pattern: PeriodicPattern, batches: int, i_ticks: int,
                 scale: int) -> list[tuple]:
    """The rows (:func:`_singles`) of the steady periods W .. B-1 of ``batches`` whole
    batches, from the end I of the warm-up: period W's rows, shifted by d periods in
    time and d·M in message number for period W + d.  The same rows as
    :func:`synchronous` over those periods (proofs/finite-plan.md, "Steady periods by
    shifting"; tests/test_plan_fast.py), without walking every run of every period."""
    w = pattern.warmup
    if batches <= w:
        return []
    template = _singles(pattern, synchronous(pattern, range(w, w + 1), batches, i_ticks),
                        scale)
    template.sort()        # each period's rows in order: the final sort is a merge
    ticks, m = pattern.period * scale, pattern.messages
    out = list(template)
    for d in range(1, batches - w):
        dt, dg = d * ticks, d * m
        out += [(s + dt, tail, head, g + dg, c, tree)
                for s, tail, head, g, c, tree in template]
    return out


def _slots_per_period(pattern: PeriodicPattern) -> bool:
    """Whether every tree edge's runs hold at most the tree's weight of slots per
    period (what :func:`_steady_rows` relies on: no steady run is cut by the limits)."""
    return all(run.first + run.count <= pattern.weights[run.tree] for run in pattern.runs)


def _end(placed) -> int:
    return max((placed_run[-1] for placed_run in placed), default=0)


@dataclass(frozen=True)
class FiniteSchedule:
    """B batches broadcast by warm-up, r steady periods and clean-up (002 §5.5):
    ``placed`` runs (period, run, batch, first, count, start, end), times in ticks."""

    batches: int
    messages: int
    placed: tuple
    init_length: Fraction      # I: end of the warm-up (0 without one)
    steady_periods: int        # r
    cleanup_length: Fraction   # J
    makespan: Fraction


def finite_schedule(pattern: PeriodicPattern, batches: int, share=None,
                    placed: bool = True) -> FiniteSchedule:
    """Batches 0..batches-1 (the last one possibly partial, see PeriodicPattern.limits):
    warm-up as soon as possible from 0, the steady periods as written from I, the
    clean-up as soon as possible from I + r·T.  With fewer than W batches the phases
    overlap and the whole is placed as soon as possible.  ``placed=False`` skips
    materialising the runs (and the steady periods): only the lengths."""
    runs, i_ticks, clean_start, end = unrolled(
        pattern, batches, share, pattern.warmup if placed else batches)
    r = max(batches - pattern.warmup, 0)
    return FiniteSchedule(batches, sum(pattern.limits(batches, share)),
                          tuple(runs) if placed else (),
                          pattern.time(i_ticks), r, pattern.time(max(end - clean_start, 0)),
                          pattern.time(end))


def share_for(pattern: PeriodicPattern, broadcasts: int) -> tuple[int, tuple | None]:
    """(B, share): the batches that carry ``broadcasts`` messages numbered 0..K-1, the
    last one cut to its first K - (B-1)·M messages in tree order, filling tree 0 up to
    λ_0, then tree 1, ... (None when whole)."""
    m = pattern.messages
    batches = -(-broadcasts // m)
    rest = broadcasts - (batches - 1) * m
    if rest == m:
        return batches, None
    return batches, tuple(min(max(rest - off, 0), w)
                          for off, w in zip(pattern.tree_offset, pattern.weights))


@collector_paused()
def periodic_plan(pattern: PeriodicPattern, batches: int, share=None, cleanup=None,
                  about=None, check: bool = True) -> Plan:
    """The finite schedule of ``batches`` batches (:func:`finite_schedule`) as a checked
    plan; with ``cleanup`` (a :class:`steady.simulate.rerouted.Cleanup` of these
    batches) the clean-up is that one, from the end of the last steady period, instead
    of the periods' own.  ``check=False``: not checked here, for a caller that checks
    the plan it keeps (:func:`steady.simulate.plan_grid.on_grid_keeping` checks the plan
    on the grid, or this one when it keeps it)."""
    scale = 1 if cleanup is None else cleanup.unit // pattern.unit
    # whole batches: the steady periods are one period shifted (_steady_rows)
    shifted = (share is None and batches >= max(pattern.warmup, 1)
               and _slots_per_period(pattern))
    runs, i_ticks, _, _ = unrolled(pattern, batches, share,
                                   batches if shifted else pattern.warmup)
    messages, r = sum(pattern.limits(batches, share)), max(batches - pattern.warmup, 0)
    steady = _steady_rows(pattern, batches, i_ticks, scale) if shifted else []
    shift = 0
    if cleanup is not None:
        runs = [placed for placed in runs if placed[0] < batches]
        shift = (i_ticks + r * pattern.period) * scale
    rows = _singles(pattern, runs, scale) + steady
    unit = pattern.unit * scale
    if cleanup is not None:
        index = {v: i for i, v in enumerate(pattern.platform.nodes)}
        streams = len(pattern.weights)
        rows += [(shift + s, index[u], index[v], g, e - s, streams + k)   # off the
                 for k, (u, v, g, s, e) in enumerate(cleanup.events)]  # trees: own stream
    transfers = tuple(_numbered(rows))
    nodes = tuple(pattern.platform.nodes)
    info = {"period": pattern.period_time, "messages_per_period": pattern.messages,
            "forwarding": pattern.forwarding, "warmup_periods": pattern.warmup,
            "batches": batches, "cleanup": "routed afresh" if cleanup else "on the trees"}
    info.update(about or {})
    plan = Plan("steady schedule", nodes, nodes.index(pattern.source), messages, unit,
                transfers, max((s + c for s, _, _, _, c, _ in rows), default=0), info,
                pattern.platform)
    return checked(plan) if check else plan


@collector_paused()
def unrolled(pattern: PeriodicPattern, batches: int, share=None, steady_from: int = 0):
    """The placed runs of the finite schedule of ``batches`` batches (see
    :func:`finite_schedule`), with the steady periods only from ``steady_from`` on
    (they are the periodic time line: nothing else depends on them), and the ticks
    (I, start of the clean-up, makespan)."""
    w = pattern.warmup
    if batches < w or batches == 0:
        placed = as_soon_as_possible(pattern, range(batches + w), batches, 0, share)
        end = _end(placed)
        return placed, end, end, end
    init = (_warmup_placed(pattern) if share is None and _slots_per_period(pattern)
            else as_soon_as_possible(pattern, range(w), batches, 0, share))
    i_ticks = _end(init)
    clean_start = i_ticks + (batches - w) * pattern.period
    # Every message received in a period before B arrived by the clean-up's start:
    # node v holds, in tree l, the messages below B·λ_l - lag_l(v) (and the limit).
    limit = pattern.limits(batches, share)
    frontier = {(v, l): min(batches * pattern.weights[l] - lag, limit[l])
                for l, lags in enumerate(pattern.lag) for v, lag in lags.items()}
    cleanup = as_soon_as_possible(pattern, range(batches, batches + w), batches,
                                  clean_start, share, Holdings(frontier))
    first = max(w, steady_from)
    steady = synchronous(pattern, range(first, batches), batches,
                         i_ticks + (first - w) * pattern.period, share)
    return ([*init, *steady, *cleanup], i_ticks, clean_start,
            max(_end(cleanup), _last_steady_end(pattern, batches, share, i_ticks)))


def _warmup_placed(pattern: PeriodicPattern) -> tuple:
    """The warm-up's placed runs, placed once per pattern: they are the same for every
    B >= W whole batches (a run of a period p < W carries messages below
    (p + 1)·λ_l <= W·λ_l when its tree edge holds at most λ_l slots a period, so the
    limit B·λ_l cuts none of them), and the phases, the exact count with the partial
    last batch and the plan each unroll the warm-up of the same pattern."""
    placed = pattern.__dict__.get("_warmup")
    if placed is None:
        placed = pattern._warmup = tuple(as_soon_as_possible(
            pattern, range(pattern.warmup), pattern.warmup, 0))
    return placed


def _last_steady_end(pattern: PeriodicPattern, batches: int, share, i_ticks: int) -> int:
    """When the last message of the steady periods arrives (I when there are none): in
    the last steady period that carries one, which need not end with a message (a cut
    last batch leaves its slots empty)."""
    w = pattern.warmup
    for p in range(batches - 1, w - 1, -1):
        placed = synchronous(pattern, range(p, p + 1), batches,
                             i_ticks + (p - w) * pattern.period, share)
        if placed:
            return _end(placed)
    return i_ticks
