"""One period of a timed schedule, exact, in integer ticks (ours; the one vocabulary of
the constructions and improvers of :mod:`steady.schedule`).

A timed periodic schedule (steady-schedule version 2) is, per tree and link, a set of
*message slots*: the k-th message of tree l on the link (u, v) in a period starts at a
fixed offset and holds u's out-port and v's in-port for one message time c_uv (and,
with shared network links, its part of each link on the route).  A :class:`Timetable`
holds exactly that, with every time an integer number of ticks (``unit`` ticks per
time unit, so that every cost, start and the period are whole ticks):

* ``trees``: (parent map, weight) per tree, the weight being the tree's messages per
  period;
* ``runs``: per (tree, arc), the sorted runs (start tick, messages) of back-to-back
  messages; a run of n messages is n slots one after the other.

Every construction (list schedule, rounds on shared links, the exact optimum in timed
form) writes one, every improver (port orders searched, trees regrown) reads one and
writes a better one, and the finite-horizon plans of :mod:`steady.simulate` unroll one.
The document (:meth:`Timetable.schedule`) and the reader (:meth:`Timetable.of`) are the
only converters.

The *pipelined lags* of 002 §5.5's forwarding, read off the timetable: a node forwards a
tree's message in the first slot of its out-edge that starts after the slot that brought
the message ended, slots keeping their order (first in, first out).  Hop by hop that adds
:func:`hop_lag` messages; summed from the source it is ``lags()``, and the warm-up W (in
periods) is the largest ceil(lag / weight) (proofs/finite-horizon.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Mapping, NamedTuple

from ..network.rows import (conflicting_arcs, integer_shares, link_loads, link_shares)
from ..schedule_file import (TIMED, PriceCertificate, Schedule, TimedTransfer, TreeEntry,
                             timed)

Arc = tuple[str, str]
Port = tuple[str, str]   # ("out", u) or ("in", v)


class Tree(NamedTuple):
    """A weighted tree of a timetable: ``parent`` {child: parent}, ``weight`` messages
    per period."""

    parent: dict
    weight: int


def ticks_per_unit(platform, arcs, times=()) -> int:
    """The least number of ticks per time unit that makes the cost of every arc of
    ``arcs`` and every time of ``times`` a whole number of ticks."""
    return math.lcm(*(platform.cost(*arc).denominator for arc in arcs),
                    *(Fraction(t).denominator for t in times))


def extend_runs(runs: list, start: int, count: int, cost: int) -> None:
    """Add ``count`` messages from ``start`` to a link's runs [[start, messages], ...]:
    onto the last run when they follow it back to back (one transfer), else a new run."""
    if runs and runs[-1][0] + runs[-1][1] * cost == start:
        runs[-1][1] += count
    else:
        runs.append([start, count])


@dataclass(frozen=True, eq=False)
class Timetable:
    """One period (module docstring): ``platform``, ``trees`` (:class:`Tree`), ``unit``
    ticks per time unit, ``period`` in ticks, ``runs`` {(tree, arc): ((start, count),
    ...)} sorted by start.  Immutable; build with :meth:`build` or :meth:`of`."""

    platform: object
    trees: tuple
    unit: int
    period: int
    runs: Mapping = field(repr=False)

    # -- building -------------------------------------------------------------------
    @classmethod
    def build(cls, platform, trees, runs, period: int, unit: int) -> "Timetable":
        """From runs in any order ({(tree, arc): [[start, count], ...]}); empty runs and
        zero counts dropped, runs sorted and merged where back to back."""
        trees = tuple(Tree(dict(p), int(w)) for p, w in trees)
        cost = {arc: int(platform.cost(*arc) * unit) for _, arc in runs}
        clean = {}
        for key, rs in runs.items():
            merged: list = []
            for start, count in sorted((int(s), int(n)) for s, n in rs if n):
                extend_runs(merged, start, count, cost[key[1]])
            if merged:
                clean[key] = tuple(map(tuple, merged))
        return cls(platform, trees, int(unit), int(period), clean)

    @classmethod
    def from_arc_runs(cls, platform, trees, arc_runs, period: int, unit: int) -> "Timetable":
        """From per-arc runs {arc: [[start, count], ...]} (the port view): each arc's
        messages go to the trees through it in tree order, one tree's share after the
        other's (any split is valid: the order inside a period is free)."""
        runs: dict = {}
        for arc, rs in arc_runs.items():
            c = int(platform.cost(*arc) * unit)
            queue = [[l, w] for l, (parent, w) in enumerate(trees)
                     if parent.get(arc[1]) == arc[0]]
            for start, count in sorted(rs):
                at = start
                while count:
                    tree = queue[0]
                    piece = min(count, tree[1])
                    runs.setdefault((tree[0], arc), []).append([at, piece])
                    at += piece * c
                    count -= piece
                    tree[1] -= piece
                    if tree[1] == 0:
                        queue.pop(0)
        return cls.build(platform, trees, runs, period, unit)

    @classmethod
    def of(cls, schedule: Schedule, unit: int | None = None) -> "Timetable":
        """The timetable of a schedule document (version 1 is read through its timed
        form), in its own ticks or ``unit`` (a multiple of them)."""
        table = timed(schedule)
        platform = table.platform
        own = ticks_per_unit(platform, {t.arc for t in table.transfers},
                             [t.start for t in table.transfers] + [table.period])
        unit = own if unit is None else unit
        if unit % own:
            raise ValueError(f"{unit} ticks per time unit do not hold this timetable's")
        runs: dict = {}
        for t in table.transfers:
            runs.setdefault((t.tree, t.arc), []).append([t.start * unit, t.messages])
        return cls.build(platform, [(e.parent, e.weight) for e in table.trees], runs,
                         table.period * unit, unit)

    def replace(self, trees=None, runs=None, period: int | None = None) -> "Timetable":
        """The same platform and unit with other trees, runs or period."""
        return Timetable.build(self.platform, self.trees if trees is None else trees,
                               self.runs if runs is None else runs,
                               self.period if period is None else period, self.unit)

    def refined(self, unit: int) -> "Timetable":
        """The same timetable counted in ``unit`` ticks per time unit (a multiple)."""
        if unit % self.unit:
            raise ValueError(f"{unit} is not a multiple of {self.unit}")
        k = unit // self.unit
        return Timetable.build(self.platform, self.trees,
                               {key: [(s * k, n) for s, n in rs]
                                for key, rs in self.runs.items()}, self.period * k, unit)

    # -- figures ----------------------------------------------------------------------
    @cached_property
    def cost(self) -> dict[Arc, int]:
        """Ticks per message on every arc of the platform that is a whole number of
        ticks (every arc the timetable uses is)."""
        out = {}
        for arc in self.platform.arcs:
            c = self.platform.cost(*arc) * self.unit
            if c.denominator == 1:
                out[arc] = int(c)
        return out

    @property
    def messages(self) -> int:
        """Messages per period: the trees' weights."""
        return sum(t.weight for t in self.trees)

    @property
    def period_time(self) -> Fraction:
        return Fraction(self.period, self.unit)

    def time(self, ticks: int) -> Fraction:
        return Fraction(ticks, self.unit)

    @cached_property
    def counts(self) -> dict[Arc, int]:
        """Messages per period on every arc used."""
        out: dict[Arc, int] = {}
        for (_, arc), rs in self.runs.items():
            out[arc] = out.get(arc, 0) + sum(n for _, n in rs)
        return out

    def arc_runs(self) -> dict[Arc, list[tuple[int, int]]]:
        """Per arc, every tree's runs together, sorted (the port view)."""
        out: dict[Arc, list] = {}
        for (_, arc), rs in self.runs.items():
            out.setdefault(arc, []).extend(rs)
        for rs in out.values():
            rs.sort()
        return out

    def slots(self, key) -> list[int]:
        """The start ticks of the message slots of ``key`` = (tree, arc), in order."""
        c = self.cost[key[1]]
        return [s + k * c for s, n in self.runs.get(key, ()) for k in range(n)]

    def arc_slots(self) -> dict[Arc, list[int]]:
        """Per arc, the sorted start ticks of all its message slots (every tree)."""
        out: dict[Arc, list[int]] = {}
        for (l, arc) in self.runs:
            out.setdefault(arc, []).extend(self.slots((l, arc)))
        for starts in out.values():
            starts.sort()
        return out

    def port_loads(self) -> dict[Port, int]:
        """Busy ticks per period of every port."""
        loads: dict[Port, int] = {}
        for (u, v), k in self.counts.items():
            t = k * self.cost[(u, v)]
            loads[("out", u)] = loads.get(("out", u), 0) + t
            loads[("in", v)] = loads.get(("in", v), 0) + t
        return loads

    @property
    def lower(self) -> Fraction:
        """The largest load, in ticks (exact: a shared link's may not be whole): no
        timetable of these counts has a shorter period (:func:`loads_of`)."""
        return max(loads_of(self.platform, self.counts).values()) * self.unit

    def shares(self):
        """(parts, capacity) of the shared links crossed (integers, see
        :func:`steady.network.rows.integer_shares`)."""
        return integer_shares(link_shares(self.platform, self.counts))

    def end(self) -> int:
        """When the last transfer ends, in ticks."""
        return max((s + n * self.cost[arc] for (_, arc), rs in self.runs.items()
                    for s, n in rs), default=0)

    # -- the pipelined lags -------------------------------------------------------------
    def lags(self) -> list[dict[str, int]]:
        """Per tree, {node: its lag in messages behind the source} under pipelined
        forwarding (module docstring; the source absent)."""
        source = self.platform.source
        out = []
        for l, tree in enumerate(self.trees):
            parent = tree.parent
            lag: dict[str, int] = {}
            for v in _top_down(parent, source):
                u = parent[v]
                if u == source:
                    lag[v] = 0
                    continue
                c = self.cost[(parent[u], u)]
                arrivals = [s + c for s in self.slots((l, (parent[u], u)))]
                lag[v] = lag[u] + hop_lag(arrivals, self.slots((l, (u, v))))
            out.append(lag)
        return out

    def warmup(self) -> int:
        """W: the pipelined warm-up in periods, max over trees and nodes of
        ceil(lag / weight)."""
        return max((-(-lag // tree.weight) for tree, lags in zip(self.trees, self.lags())
                    for lag in lags.values()), default=0)

    # -- the document -------------------------------------------------------------------
    def transfers(self) -> list[TimedTransfer]:
        """The runs as version 2 transfers, by start."""
        out = [TimedTransfer(arc[0], arc[1], l, n, Fraction(s, self.unit))
               for (l, arc), rs in self.runs.items() for s, n in rs]
        out.sort(key=lambda t: (t.start, t.tail, t.head, t.tree))
        return out

    def schedule(self, result) -> Schedule:
        """The version 2 document, with ``result``'s certificate (an exact optimum: its
        port prices certify the ratio throughput / TP*, proofs/timed-schedule.md)."""
        messages = self.messages
        throughput = Fraction(messages * self.unit, self.period)
        extra = {"optimum": result.throughput, "ratio": throughput / result.throughput}
        return Schedule(self.platform, throughput, self.period_time, messages,
                        tuple(TreeEntry.from_parent(t.parent, t.weight) for t in self.trees),
                        (), extra, PriceCertificate.of(result.certificate),
                        tuple(self.transfers()), TIMED)

    def check(self) -> None:
        """Runtime postcondition, exact and cheap: every tree edge carries its weight and
        nothing else is carried, each port's intervals are disjoint inside [0, period],
        every shared link is within its capacity at every instant, and the period is at
        least the largest load."""
        carried: dict = {}
        for (l, arc), rs in self.runs.items():
            carried[(l, arc)] = sum(n for _, n in rs)
        wanted = {(l, (p, c)): t.weight for l, t in enumerate(self.trees)
                  for c, p in t.parent.items()}
        if carried != wanted:
            wrong = next(k for k in set(carried) | set(wanted)
                         if carried.get(k) != wanted.get(k))
            raise AssertionError(f"postcondition: tree {wrong[0]} edge {wrong[1]} carries "
                                 f"{carried.get(wrong, 0)}, not {wanted.get(wrong, 0)}")
        ports: dict = {}
        for arc, rs in self.arc_runs().items():
            for s, n in rs:
                end = s + n * self.cost[arc]
                if s < 0 or end > self.period:
                    raise AssertionError(f"postcondition: a transfer on {arc} leaves the "
                                         "period")
                ports.setdefault(("out", arc[0]), []).append((s, end))
                ports.setdefault(("in", arc[1]), []).append((s, end))
        for port, spans in ports.items():
            spans.sort()
            if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
                raise AssertionError(f"postcondition: port {port} serves two transfers "
                                     "at once")
        parts, capacity = self.shares()
        changes: dict = {}
        for arc, rs in self.arc_runs().items():
            for lid, part in parts.get(arc, ()):
                for s, n in rs:
                    changes.setdefault(lid, []).extend(
                        [(s + n * self.cost[arc], -part), (s, part)])
        for lid, items in changes.items():
            use = 0
            for _, change in sorted(items):   # at one instant the ends come first
                use += change
                if use > capacity[lid]:
                    raise AssertionError(f"postcondition: shared link {lid} over capacity")
        if self.runs and self.period < self.lower:   # pragma: no cover - by construction
            raise AssertionError("postcondition: period below the largest load")


def loads_of(platform, counts) -> dict[tuple[str, str], Fraction]:
    """Busy time per period under per-arc message counts: of every port
    {("out"|"in", node)}, of every shared network link a route crosses {("link", id)}
    (a timetable holds it at most its capacity at every instant, so at most the
    period), and of each link's transfers that cannot overlap {("conflict", id)}
    (:func:`steady.network.rows.conflicting_arcs`).  The largest is a lower bound on the
    period of any timetable of these counts."""
    loads: dict[tuple[str, str], Fraction] = {}
    for (u, v), k in counts.items():
        t = k * platform.cost(u, v)
        loads[("out", u)] = loads.get(("out", u), Fraction(0)) + t
        loads[("in", v)] = loads.get(("in", v), Fraction(0)) + t
    for lid, t in link_loads(platform, counts).items():
        loads[("link", lid)] = t
    for lid, arcs in conflicting_arcs(platform).items():
        loads[("conflict", lid)] = sum((counts.get(a, 0) * platform.cost(*a) for a in arcs),
                                       Fraction(0))
    return loads


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


def children_of(parent: dict) -> dict[str, list]:
    """{node: its children} of a parent map."""
    children: dict[str, list] = {}
    for child, par in parent.items():
        children.setdefault(par, []).append(child)
    return children


def _top_down(parent: dict, source: str) -> list[str]:
    """The non-source nodes of a tree, every parent before its children."""
    children = children_of(parent)
    order, stack = [], list(children.get(source, ()))
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(children.get(v, ()))
    return order
