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
  messages; a run of n messages is n slots one after the other;
* ``slowed``: on a multi-port platform, the tree edges whose messages run slower than
  their route, {(tree, arc): ticks per message} (issue 43, proofs/collectives.md §16):
  such a slot holds each of its route's links for the route's cost over the slot's.

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

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Mapping

from ..network.resources import integer_parts, resource_words, transfer_model
from ..network.rows import (conflicting_arcs, integer_shares, link_loads, link_shares)
from ..numbers import lcm_of_denominators
from ..schedule_file import (OUT, TIMED, CollectiveSpec, FabricCertificate,
                             PriceCertificate, Schedule, TimedTransfer, TreeEntry, timed,
                             transfer_cost)

Arc = tuple[str, str]
Port = tuple[str, str]   # ("out", u) or ("in", v)


@dataclass(frozen=True, eq=True)
class Tree:
    """A weighted tree of a timetable: ``parent`` {child: parent}, ``weight`` messages
    per period.  A collective's tree (issue 43) also has its ``root`` (None: the
    platform's source), its ``direction`` (``"out"``: data from parent to child;
    ``"in"``: from child to parent, reduced where streams meet) and ``routes``
    ({child: (switch, ...)}, the switches its edge crosses; None or absent: a link).
    It unpacks as the pair (parent, weight), as the broadcast code reads it."""

    parent: dict
    weight: int
    root: str | None = None
    direction: str = OUT
    routes: Mapping | None = None

    def __iter__(self):
        return iter((self.parent, self.weight))

    def __len__(self) -> int:
        return 2

    def _replace(self, **changes) -> "Tree":
        """A copy with some fields changed (as a named tuple's)."""
        return replace(self, **changes)

    def arc(self, child: str) -> Arc:
        """The edge of ``child`` as the data flows: (sender, receiver)."""
        par = self.parent[child]
        return (par, child) if self.direction == OUT else (child, par)

    def arcs(self) -> list[Arc]:
        return [self.arc(c) for c in self.parent]

    def route(self, arc: Arc) -> tuple:
        """The nodes the edge ``arc`` visits, sender first."""
        if not self.routes:
            return arc
        child = arc[1] if self.direction == OUT else arc[0]
        return (arc[0],) + tuple(self.routes.get(child, ())) + (arc[1],)

    @property
    def collective(self) -> bool:
        return self.root is not None or self.direction != OUT or bool(self.routes)


class _EdgeCosts(dict):
    """{(tree, arc): ticks per message}, a key that is no tree edge (a corrupted
    timetable under test) costed as its arc's route."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def __missing__(self, key):
        if key in self.table.slowed:
            self[key] = self.table.slowed[key]
            return self[key]
        c = self.table.model.cost(self.table.route(key)) * self.table.unit
        self[key] = int(c) if c.denominator == 1 else c
        return self[key]


def as_tree(tree) -> Tree:
    """A :class:`Tree` from itself or from (parent, weight[, root, direction, routes])."""
    if isinstance(tree, Tree):
        return tree
    parent, weight, *rest = tree
    return Tree(dict(parent), int(weight), *rest)


def ticks_per_unit(platform, arcs, times=()) -> int:
    """The least number of ticks per time unit that makes the cost of every arc of
    ``arcs`` and every time of ``times`` a whole number of ticks."""
    return lcm_of_denominators([*(platform.cost(*arc) for arc in arcs), *times])


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
    ...)} sorted by start, ``slowed`` {(tree, arc): ticks per message} for edges slower
    than their route (multi-port only).  Immutable; build with :meth:`build` or
    :meth:`of`."""

    platform: object
    trees: tuple
    unit: int
    period: int
    runs: Mapping = field(repr=False)
    slowed: Mapping = field(default_factory=dict, repr=False)

    # -- building -------------------------------------------------------------------
    @classmethod
    def build(cls, platform, trees, runs, period: int, unit: int,
              slowed: Mapping | None = None) -> "Timetable":
        """From runs in any order ({(tree, arc): [[start, count], ...]}); empty runs and
        zero counts dropped, runs sorted and merged where back to back; ``slowed``
        {(tree, arc): ticks per message} for edges slower than their route."""
        trees = tuple(as_tree(t) for t in trees)
        model = transfer_model(platform)
        slowed = {key: int(c) for key, c in (slowed or {}).items()}
        if slowed and not model.shares:
            raise ValueError("a transfer runs slower than its route only on a "
                             "multi-port platform")
        cost = {key: slowed.get(key) or int(model.cost(trees[key[0]].route(key[1])) * unit)
                for key in runs}
        clean = {}
        for key, rs in runs.items():
            merged: list = []
            for start, count in sorted((int(s), int(n)) for s, n in rs if n):
                extend_runs(merged, start, count, cost[key])
            if merged:
                clean[key] = tuple(map(tuple, merged))
        return cls(platform, trees, int(unit), int(period), clean,
                   {key: c for key, c in slowed.items() if key in clean})

    @classmethod
    def from_arc_runs(cls, platform, trees, arc_runs, period: int, unit: int) -> "Timetable":
        """From per-arc runs {arc: [[start, count], ...]} (the port view): each arc's
        messages go to the trees through it in tree order, one tree's share after the
        other's (any split is valid: the order inside a period is free)."""
        return cls._split(platform, trees, arc_runs, period, unit, by_route=False)

    @classmethod
    def from_route_runs(cls, platform, trees, route_runs, period: int,
                        unit: int) -> "Timetable":
        """From per-route runs {route: [[start, count], ...]} (a collective's resource
        view, issue 43): each route's messages go to the tree edges over it in tree
        order, as :meth:`from_arc_runs` does."""
        return cls._split(platform, trees, route_runs, period, unit, by_route=True)

    @classmethod
    def _split(cls, platform, trees, given, period: int, unit: int, by_route: bool):
        """The timetable of runs ``given`` per route (``by_route``) or per arc, each
        one's messages given to its tree edges in tree order."""
        trees = [as_tree(t) for t in trees]
        model = transfer_model(platform)
        edges: dict = {}
        for l, tree in enumerate(trees):
            for arc in tree.arcs():
                key = tree.route(arc) if by_route else arc
                edges.setdefault(key, []).append([(l, arc), tree.weight])
        runs: dict = {}
        for key, rs in given.items():
            c = int((model.cost(key) if by_route else platform.cost(*key)) * unit)
            queue = edges.get(key, [])
            for start, count in sorted(rs):
                at = start
                while count:
                    edge = queue[0]
                    piece = min(count, edge[1])
                    runs.setdefault(edge[0], []).append([at, piece])
                    at += piece * c
                    count -= piece
                    edge[1] -= piece
                    if edge[1] == 0:
                        queue.pop(0)
        return cls.build(platform, trees, runs, period, unit)

    @classmethod
    def of(cls, schedule: Schedule, unit: int | None = None) -> "Timetable":
        """The timetable of a schedule document (version 1 is read through its timed
        form), in its own ticks or ``unit`` (a multiple of them)."""
        table = timed(schedule)
        platform = table.platform
        costs = set()
        slowed = {}   # (tree, arc) -> time per message, for transfers slower than their route
        for t in table.transfers:
            cost = transfer_cost(platform, table.trees, t)
            costs.add(cost)
            if t.duration is not None and cost is not None \
                    and t.duration != t.messages * cost:
                per = t.duration / t.messages
                if slowed.setdefault((t.tree, t.arc), per) != per:
                    raise ValueError(f"the transfers of tree {t.tree} on {t.tail}->{t.head} "
                                     "run at different speeds")
        own = lcm_of_denominators([*costs, *slowed.values(),
                                   *(t.start for t in table.transfers), table.period])
        unit = own if unit is None else unit
        if unit % own:
            raise ValueError(f"{unit} ticks per time unit do not hold this timetable's")
        runs: dict = {}
        for t in table.transfers:
            runs.setdefault((t.tree, t.arc), []).append([t.start * unit, t.messages])
        trees = [Tree(e.parent, e.weight, e.root, e.direction, dict(e.routes) or None)
                 if e.collective else Tree(e.parent, e.weight) for e in table.trees]
        return cls.build(platform, trees, runs, table.period * unit, unit,
                         {key: per * unit for key, per in slowed.items()})

    def replace(self, trees=None, runs=None, period: int | None = None) -> "Timetable":
        """The same platform and unit with other trees, runs or period."""
        return Timetable.build(self.platform, self.trees if trees is None else trees,
                               self.runs if runs is None else runs,
                               self.period if period is None else period, self.unit,
                               self.slowed)

    def refined(self, unit: int) -> "Timetable":
        """The same timetable counted in ``unit`` ticks per time unit (a multiple)."""
        if unit % self.unit:
            raise ValueError(f"{unit} is not a multiple of {self.unit}")
        k = unit // self.unit
        return Timetable.build(self.platform, self.trees,
                               {key: [(s * k, n) for s, n in rs]
                                for key, rs in self.runs.items()}, self.period * k, unit,
                               {key: c * k for key, c in self.slowed.items()})

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

    @cached_property
    def model(self):
        """The resource rule of the platform (:mod:`steady.network.resources`)."""
        return transfer_model(self.platform)

    @cached_property
    def edge_cost(self) -> dict:
        """Ticks per message of a tree edge {(tree, arc): ticks}: its route's slowest
        link (the link's cost for a broadcast tree); filled when asked."""
        return _EdgeCosts(self)

    def route(self, key) -> tuple:
        """The nodes the tree edge ``key`` = (tree, arc) visits, sender first."""
        return self.trees[key[0]].route(key[1])

    def held(self, key) -> tuple:
        """(route, share of its speed) of the tree edge ``key``: share 1 but where the
        edge is slowed (``slowed``)."""
        route = self.route(key)
        if key not in self.slowed:
            return route, Fraction(1)
        return route, Fraction(int(self.model.cost(route) * self.unit), self.slowed[key])

    @property
    def collective(self) -> bool:
        """Whether a tree has a root, a direction or routes of its own (issue 43), or
        the platform is multi-port or switched."""
        return not self.platform.classic or any(t.collective for t in self.trees)

    @property
    def messages(self) -> int:
        """Messages per period: the trees' weights."""
        return sum(t.weight for t in self.trees)

    def root_messages(self) -> dict:
        """{(root, direction): messages per period of its trees} (the source for a
        tree without a root)."""
        out: dict = {}
        for t in self.trees:
            key = (t.root if t.root is not None else self.platform.source, t.direction)
            out[key] = out.get(key, 0) + t.weight
        return out

    @cached_property
    def route_counts(self) -> dict:
        """Messages per period on every route used {route: n}."""
        out: dict = {}
        for key, rs in self.runs.items():
            route = self.route(key)
            out[route] = out.get(route, 0) + sum(n for _, n in rs)
        return out

    @property
    def period_time(self) -> Fraction:
        return Fraction(self.period, self.unit)

    @property
    def throughput(self) -> Fraction:
        """Messages per time unit, repeated (a broadcast's throughput; a collective's
        rates per root: :meth:`rate`)."""
        return Fraction(self.messages * self.unit, self.period)

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
        c = self.edge_cost[key]
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
        return port_loads_of(self.counts, self.cost)

    @property
    def lower(self) -> Fraction:
        """The largest load, in ticks (exact: a shared link's may not be whole): no
        timetable of these counts has a shorter period (:func:`loads_of`; for a
        collective the resources' loads, :meth:`TransferModel.loads`)."""
        if self.collective:
            return max(self.model.loads(self.route_counts).values()) * self.unit
        return max(loads_of(self.platform, self.counts).values()) * self.unit

    def shares(self):
        """(parts, capacity) of the shared links crossed (integers, see
        :func:`steady.network.rows.integer_shares`)."""
        return integer_shares(link_shares(self.platform, self.counts))

    def end(self) -> int:
        """When the last transfer ends, in ticks."""
        return max((s + n * self.edge_cost[key] for key, rs in self.runs.items()
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
            for v in top_down(parent, source):
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
        slowed = self.slowed
        out = [TimedTransfer(arc[0], arc[1], l, n, Fraction(s, self.unit),
                             Fraction(n * slowed[(l, arc)], self.unit)
                             if (l, arc) in slowed else None)
               for (l, arc), rs in self.runs.items() for s, n in rs]
        out.sort(key=lambda t: (t.start, t.tail, t.head, t.tree))
        return out

    def schedule(self, result) -> Schedule:
        """The version 2 document, with ``result``'s certificate (an exact optimum: its
        port prices certify the ratio throughput / TP*, proofs/timed-schedule.md); for a
        collective's optimum (issue 43: a result with ``roots``), the trees' roots,
        directions and routes, the collective, and its certificate, which certifies the
        rate per root against the optimum x*."""
        if hasattr(result, "roots"):
            return self._collective_schedule(result)
        messages = self.messages
        throughput = self.throughput
        extra = {"optimum": result.throughput, "ratio": throughput / result.throughput}
        return Schedule(self.platform, throughput, self.period_time, messages,
                        tuple(TreeEntry.from_parent(t.parent, t.weight) for t in self.trees),
                        (), extra, PriceCertificate.of(result.certificate),
                        tuple(self.transfers()), TIMED)

    def rate(self, roots) -> Fraction:
        """The rate per root x = m_r / (ρ_r·period) of a collective's timetable
        (``roots``: {(root, direction): ρ_r}; the same for every root by
        construction)."""
        mine = self.root_messages()
        rates = {Fraction(mine.get(r, 0) * self.unit, self.period) / rho
                 for r, rho in roots.items()}
        if len(rates) != 1:
            raise AssertionError("postcondition: the roots' messages are not in their rates")
        return rates.pop()

    def _collective_schedule(self, result) -> Schedule:
        rate = self.rate(result.roots)
        extra = {"optimum": result.rate, "ratio": rate / result.rate}
        trees = tuple(TreeEntry.from_parent(t.parent, t.weight, t.root, t.direction,
                                            t.routes) for t in self.trees)
        return Schedule(self.platform, self.throughput, self.period_time, self.messages,
                        trees, (), extra,
                        FabricCertificate.of(result.certificate), tuple(self.transfers()),
                        TIMED, collective_spec(self.platform, result))

    def check(self) -> None:
        """Runtime postcondition, exact and cheap: every tree edge carries its weight and
        nothing else is carried, every transfer lies inside [0, period], every resource
        it holds (:mod:`steady.network.resources`: ports, a collective's links, shared
        network links) is within its capacity at every instant, and the period is at
        least the largest load."""
        carried: dict = {}
        for key, rs in self.runs.items():
            carried[key] = sum(n for _, n in rs)
        wanted = {(l, arc): t.weight for l, t in enumerate(self.trees) for arc in t.arcs()}
        if carried != wanted:
            wrong = next(k for k in set(carried) | set(wanted)
                         if carried.get(k) != wanted.get(k))
            raise AssertionError(f"postcondition: tree {wrong[0]} edge {wrong[1]} carries "
                                 f"{carried.get(wrong, 0)}, not {wanted.get(wrong, 0)}")
        holds = {}   # per route and speed: a slowed edge holds its share (§16)
        for key in self.runs:
            held = self.held(key)
            if held not in holds:
                holds[held] = self.model.held(*held)
        parts, capacity = integer_parts(holds)
        changes: dict = {}
        for key, rs in self.runs.items():
            c = self.edge_cost[key]
            for s, n in rs:
                end = s + n * c
                if s < 0 or end > self.period:
                    raise AssertionError(f"postcondition: a transfer on {key[1]} leaves "
                                         "the period")
                for res, part in parts[self.held(key)]:
                    changes.setdefault(res, []).extend([(end, -part), (s, part)])
        for res, items in changes.items():
            use = 0
            for _, change in sorted(items):   # at one instant the ends come first
                use += change
                if use > capacity[res]:
                    raise AssertionError(f"postcondition: {resource_words(res)} over "
                                         "capacity")
        if self.runs and self.period < self.lower:   # pragma: no cover - by construction
            raise AssertionError("postcondition: period below the largest load")


def collective_spec(platform, result) -> CollectiveSpec:
    """The :class:`CollectiveSpec` of a collective's optimum (a broadcast names its
    sources and rates unless it is the platform's source alone)."""
    if result.kind != "broadcast":
        return CollectiveSpec(result.kind)
    roots = result.roots
    if list(roots) == [(platform.source, OUT)] and roots[(platform.source, OUT)] == 1:
        return CollectiveSpec("broadcast")
    sources = tuple(v for v, _ in roots)
    rates = tuple(roots.values())
    return CollectiveSpec("broadcast", sources,
                          None if all(r == 1 for r in rates) else rates)


def loads_of(platform, counts) -> dict[tuple[str, str], Fraction]:
    """Busy time per period under per-arc message counts: of every port
    {("out"|"in", node)}, of every shared network link a route crosses {("link", id)}
    (a timetable holds it at most its capacity at every instant, so at most the
    period), and of each link's transfers that cannot overlap {("conflict", id)}
    (:func:`steady.network.rows.conflicting_arcs`).  The largest is a lower bound on the
    period of any timetable of these counts."""
    loads = port_loads_of(counts, {arc: platform.cost(*arc) for arc in counts})
    for lid, t in link_loads(platform, counts).items():
        loads[("link", lid)] = t
    for lid, arcs in conflicting_arcs(platform).items():
        loads[("conflict", lid)] = sum((counts.get(a, 0) * platform.cost(*a) for a in arcs),
                                       Fraction(0))
    return loads


def port_loads_of(counts, cost) -> dict[Port, int | Fraction]:
    """Busy time per period of every port {("out"|"in", node)} under per-arc message
    counts and per-message costs ``cost`` {arc: cost} (ticks or time units)."""
    loads: dict = {}
    for (u, v), k in counts.items():
        t = k * cost[(u, v)]
        loads[("out", u)] = loads.get(("out", u), 0) + t
        loads[("in", v)] = loads.get(("in", v), 0) + t
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


def top_down(parent: dict, source: str) -> list[str]:
    """The non-source nodes of a tree, every parent before its children."""
    children = children_of(parent)
    order, stack = [], list(children.get(source, ()))
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(children.get(v, ()))
    return order
