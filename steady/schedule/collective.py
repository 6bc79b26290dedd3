"""Short-period timetables of a collective: M chunks per root per period, a timetable
under the resource rule, and a ratio to the optimum certified by the optimum's own
certificate (issue 43; ours, on 002 §5.3's trees with one rate per root).

1. **Integer trees per root.**  The optimum's rooted trees T (rates λ_T, adding up to
   x*·ρ_r at each root r) get, for m_r messages of root r per period, the weights
   floor(λ_T·m_r / (x*·ρ_r)) and one more for the largest remainders until they add up
   to m_r (ties: the order of the trees, which is the same at every root of an orbit,
   so the images of a tree under the platform's symmetry keep the same weight).  With
   relative rates, m_r = k·q_r for the smallest integers q_r in the rates' proportions.
   Several k (chunks per root) up to the asked M are scored by the bound
   m / (x*·largest row), the rows being the resources' loads and the whole-hold rows
   of :func:`steady.network.resources.whole_hold_rows` (a transfer holding a link
   whole excludes the slower routes holding it in part: a period is never shorter
   than any row), and the most promising are scheduled
   (:func:`chunk_counts`), first with their loads spread (:func:`spread_weights`:
   the same largest load, the other resources kept below it where the trees allow).
2. **The timetable.**  The weighted trees are list scheduled under the resource rule
   (:func:`.list_schedule.route_list_schedule`): in the one-port model the ports of the
   routes' ends and the links between switches, in the multi-port model every link of a
   route, each transfer holding c_l / c_P of each link while it runs; the edges of all
   trees over one route share its messages.
3. **The ratio.**  The rate per root is x = m_r / (ρ_r·period); the optimum's
   certificate (prices and Edmonds families) bounds every schedule's rate by x*, so
   x / x* is certified (``steady verify`` re-checks it independently).

Fabrics with a construction of their own get it first: Clos phases for an allgather
(:mod:`.clos_phases`), mirrored for a reduce-scatter or an allreduce
(:mod:`.reversal`), rail and NIC rounds (:mod:`.rail_phases`, :mod:`.nic_rounds`);
the steps above run where it stays below its bound.  Where the result is still below
1, ring steps (:mod:`.ring_steps`: one cycle of the compute nodes whose routes run at
once; for a broadcast, one path per source) are searched and kept only when strictly
better; on fabrics of :data:`RING_FIRST_COMPUTE` compute nodes or more without a
construction by hand they are searched first, for the optimum itself.
On a multi-port platform where the timetable built stays below 1, the same chunk
counts' trees are also streamed (:mod:`.fluid`: every tree edge one transfer over the
whole period at a share of its route's speed), which reaches their largest load exactly
(proofs/collectives.md §16); the caps below bound full-speed transfers only, so they
are asked on one-port platforms alone.
Where the timetable built stays below 1, :func:`ratio_cap` asks whether the optimum's
certificate, its prices moved onto majority rows, proves a cap below 1 (a one-port
SimGrid cluster whose transfers hold 5/6 of shared limiters: 5/6; proofs/collectives.md
§15): a timetable at the cap ends the search.
On small fabrics (:func:`.config_blocks.applies`) whose timetable stays below
:data:`BLOCKS_BELOW`, trees and blocks of concurrent transfers chosen together
(:mod:`.config_blocks`) are also built, and the better certified ratio is kept.

Under the period rule (a node forwards in period p what it received in period p - 1;
an in-tree node sends up the reduction of its own share with what its children sent in
period p - 1) any timetable whose tree edges carry their weights is valid when
repeated (proofs/collectives.md, "Timetables").  A broadcast from the platform's source
on a one-port platform without switches is today's problem: :func:`collective_schedule`
builds it with :func:`.timed.timed_schedule`, unchanged.
"""

from __future__ import annotations

import copy
import heapq
import math
from fractions import Fraction

from ..interrupts import solve_linear
from ..network.collective_bound import majority_cap
from ..network.resources import (alternative_routes, transfer_model, whole_hold_bound,
                                 whole_hold_rows, whole_holds)
from .effort import DEFAULT, effort as effort_of
from .clos_phases import phased_timetable
from .config_blocks import block_timetable
from .nic_rounds import nic_cap, nic_timetable
from .reversal import reduced_timetable
from .rail_phases import rail_timetable
from .ring_steps import path_timetable, ring_timetable
from .fluid import streamed_timetable
from .list_schedule import route_list_schedule
from .timetable import Timetable, Tree


def root_shares(roots: dict) -> dict:
    """{root: q_r}: the smallest positive integers in the proportions of the relative
    rates ρ_r (all 1 for equal rates)."""
    scale = math.lcm(*(Fraction(r).denominator for r in roots.values()))
    ints = {r: int(Fraction(rho) * scale) for r, rho in roots.items()}
    g = math.gcd(*ints.values())
    return {r: q // g for r, q in ints.items()}


class Family:
    """A tree of the optimum's search with its images under the symmetry (one tree per
    root of its orbit): ``trees`` (timetable trees of weight 0), ``roots`` (their roots,
    a frozenset of (node, direction)), ``rate`` (each image's rate in the optimum, 0 for
    a tree the optimum does not use), ``holds`` (the terms of
    :func:`steady.network.resources.whole_holds` per message of every image together)
    and ``loads`` ({row (l, R): its time per message}, the rows of
    :func:`steady.network.resources.whole_hold_rows` over all families, set by
    :func:`with_rows`; the row (l, l) is resource l's load)."""

    def __init__(self, trees, rate, model):
        self.trees = trees
        self.roots = frozenset((t.root, t.direction) for t in trees)
        self.rate = rate
        counts: dict = {}
        for tree in trees:
            for arc in tree.arcs():
                route = tree.route(arc)
                counts[route] = counts.get(route, 0) + 1
        self.holds = whole_holds(model, counts)
        self.loads = whole_hold_rows(*self.holds)

    def weighted(self, w: int) -> list[Tree]:
        return [Tree(t.parent, w, t.root, t.direction, t.routes) for t in self.trees]


def families(platform, result, pricing: int = 0, neighbours: int = 0) -> list[Family]:
    """The optimum's search trees (``result.pool``, or its trees alone) as families, in
    the result's order, then the new ones of :func:`steady.throughput.tree_pool`
    (``neighbours`` moved edges, ``pricing`` rounds of perturbed prices)."""
    from ..throughput import tree_pool

    model = transfer_model(platform)
    rate = {id(tree): lam for tree, lam in result.trees}
    pool = result.pool or tuple((tree,) for tree, _ in result.trees)
    if pricing or neighbours:
        pool = tuple(pool) + tree_pool(platform, result, pricing, neighbours=neighbours)
    out, seen = [], set()
    for images in pool:
        key = _family_key(images[0])
        if key in seen:
            continue
        seen.add(key)
        trees = []
        for tree in images:
            routes = {c: tuple(path[1:-1]) for c, path in tree.routes.items()
                      if len(path) > 2}
            trees.append(Tree(dict(tree.parent), 0, tree.root, tree.direction,
                              routes or None))
        out.append(Family(trees, rate.get(id(images[0]), Fraction(0)), model))
    return with_rows(out)


def with_rows(fams: list[Family]) -> list[Family]:
    """The families with their ``loads`` over the rows of all of them: a row (l, R)
    counts, in every family, the time of its transfers holding l whole (which
    :func:`steady.network.resources.whole_hold_rows` adds to every row of l)."""
    rows = set()
    for f in fams:
        rows.update(f.loads)
    for f in fams:
        whole, partial = f.holds
        loads = {}
        for row in rows:
            t = whole.get(row[0], 0) + partial.get(row, 0)
            if t:
                loads[row] = t
        f.loads = loads
    return fams


def load_rows(fams: list[Family]) -> list[Family]:
    """Copies of the families whose ``loads`` keep the rows (l, l) alone: the
    resources' loads, which bound streamed timetables (proofs/collectives.md §16)."""
    out = []
    for f in fams:
        g = copy.copy(f)
        g.loads = {row: t for row, t in f.loads.items() if row[0] == row[1]}
        out.append(g)
    return out


def _family_key(tree) -> tuple:
    return (tree.root, tree.direction, frozenset(tree.parent.items()),
            frozenset((c, tuple(r)) for c, r in tree.routes.items()))


def orbits_of(fams: list[Family]) -> dict:
    """{roots of an orbit: [family indices]}: the families sharing the same roots."""
    out: dict = {}
    for i, f in enumerate(fams):
        out.setdefault(f.roots, []).append(i)
    return out


def rounded_weights(fams, rate: Fraction, roots: dict, k: int) -> list[int]:
    """Integer weights per family for k chunks per unit share (step 1 of the module
    docstring): the roots of an orbit get m = k·q_r messages each, shared among the
    orbit's families by largest remainders (ties: the families' order)."""
    shares = root_shares(roots)
    weights = [0] * len(fams)
    for orbit, members in orbits_of(fams).items():
        r = next(iter(orbit))
        m = k * shares[r]
        exact = {i: fams[i].rate * m / (rate * roots[r]) for i in members}
        for i in members:
            weights[i] = math.floor(exact[i])
        order = sorted(members, key=lambda i: (-(exact[i] - weights[i]), i))
        for i in order[:m - sum(weights[i] for i in members)]:
            weights[i] += 1
    return weights


def weights_bound(fams, weights, rate: Fraction, roots: dict, k: int) -> Fraction:
    """k·q_r / (ρ_r·x*·largest row): what a timetable of these weights can reach at
    best (exact; the rows of :class:`Family`)."""
    loads: dict = {}
    for f, w in zip(fams, weights):
        if w:
            for res, c in f.loads.items():
                loads[res] = loads.get(res, 0) + w * c
    r = next(iter(roots))
    return Fraction(k * root_shares(roots)[r]) / (roots[r] * rate * max(loads.values()))


def expanded(fams, weights) -> list[Tree]:
    return [t for f, w in zip(fams, weights) if w for t in f.weighted(w)]



def chunk_counts(fams, rate, roots, most: int, effort) -> list[tuple]:
    """[(bound, k, weights)] for the chunk counts k <= ``most`` (per unit share) whose
    weights promise the best ratios, best first (larger k on ties), at most
    ``effort.collective_built``: rounded (:func:`rounded_weights`), then packed by the
    MILP (:func:`packed_weights`, ``effort.collective_nodes`` nodes) when that bounds
    them higher; candidates: the top quarter of 1..most from the top, at most
    ``effort.collective_counts`` of them evenly spread, the scan stopping at a bound of
    1 (nothing beats it); then up to ``effort.collective_halvings`` halvings of ``most``
    below the scan (:func:`halvings`), scored alike.  Each of the :data:`SPREAD_COUNTS` best counts comes first
    with its weights spread (:func:`spread_weights`) when they keep its bound, then as
    found; the others as found."""
    low = max(1, most - most // 4)
    step = max(1, (most - low + 1) // max(1, effort.collective_counts))
    scored = []
    for k in range(most, low - 1, -step):
        scored.append(_scored(fams, rate, roots, k, effort))
        if scored[-1][0] == 1:
            break
    scored.sort(key=lambda item: (-item[0], -item[1]))
    out = []
    for j, (bound, k, weights) in enumerate(scored[:effort.collective_built]):
        if effort.collective_nodes and j < SPREAD_COUNTS:
            spread = spread_weights(fams, roots, k, weights, effort.collective_nodes)
            if spread != weights and weights_bound(fams, spread, rate, roots, k) == bound:
                out.append((bound, k, spread))   # the same bound, tried first
        out.append((bound, k, weights))
    out = out[:effort.collective_built]
    # the list schedule does not get better with k: a period of fewer chunks can end
    # nearer its bound (hetero-asym allreduce: 0.830 at 16, 0.650 at 64), so halvings
    # of ``most`` below the scan come last, tried when they can still beat what is built
    for k in halvings(most, low)[:effort.collective_halvings]:
        out.append(_scored(fams, rate, roots, k, effort))
    return out


def _scored(fams, rate, roots, k: int, effort, cap: Fraction | None = None,
            rows=None) -> tuple:
    """(bound, k, weights): the rounded weights for k chunks, packed by the MILP when
    that bounds them higher.  With ``cap`` (:func:`grid_cap`, or 1), no MILP when the
    rounded weights reach it, and the MILP stops once its largest row reaches the
    least the cap allows (no solution is better: SCIP's incumbent then is its last)."""
    weights = rounded_weights(fams, rate, roots, k)
    bound = weights_bound(fams, weights, rate, roots, k)
    if effort.collective_nodes and bound < (1 if cap is None else cap):
        least = None if cap is None else _target(rate, roots, k) / cap
        found = packed_weights(fams, rate, roots, k, weights, effort.collective_nodes,
                               least, rows)
        better = weights_bound(fams, found, rate, roots, k)
        if better > bound:
            bound, weights = better, found
    return bound, k, weights


def _target(rate: Fraction, roots: dict, k: int) -> Fraction:
    """T = k·q_r / (ρ_r·x*): the largest row of weights of bound 1 (:func:`weights_bound`)."""
    r = next(iter(roots))
    return Fraction(k * root_shares(roots)[r]) / (roots[r] * rate)


def grid_cap(fams, rate: Fraction, roots: dict, k: int, prices=None,
             grids=None) -> Fraction:
    """An exact upper bound on :func:`weights_bound` of any integer weights for k chunks
    per unit share over ``fams`` (ours; proofs/collectives.md §13).  A row's value is
    sum_i c_i·w_i with integers w_i, so it lies on the grid of g = gcd of its
    coefficients c_i.  Some row is at least T = k·q_r / (ρ_r·x*) -- with the optimum's
    certificate ``prices`` (resource -> y >= 0), some resource of positive price: the
    loads' average under the prices is at least T, since every tree at r costs at
    least w_r and x* = sum(y) / sum(ρ_r·w_r); without, the largest row (no weights
    beat the fluid optimum).  That row is then at least g·ceil(T/g), so the largest
    row is at least the least of those; the bound is T over that.  ``grids``: the
    rows' grids (:func:`row_grids`) when known."""
    target = _target(rate, roots, k)
    least = min(g * math.ceil(target / g)
                for g in (grids if grids is not None else row_grids(fams, prices)))
    return target / least


def row_grids(fams, prices=None) -> list[Fraction]:
    """The grids of :func:`grid_cap` (each row's gcd of its coefficients over the
    families' ``loads``; with ``prices``, only the loads of the resources of positive
    price), each distinct grid once, smallest first."""
    coefficients: dict = {}
    for f in fams:
        for row, c in f.loads.items():
            if prices is None or (row[0] == row[1] and prices.get(row[0], 0) > 0):
                coefficients.setdefault(row, set()).add(Fraction(c))
    grids = set()
    for cs in coefficients.values():
        scale = math.lcm(*(c.denominator for c in cs))
        grids.add(Fraction(math.gcd(*(int(c * scale) for c in cs)), scale))
    return sorted(grids)


class CountsInOrder:
    """The candidates of :func:`chunk_counts`, sorted as :func:`collective_timetable`
    tries them (best bound first, larger k on ties), produced lazily (ours): a count's
    MILPs (packed, spread) run only when its :func:`grid_cap` could still beat the
    best ratio built so far.  Every count starts with its cap as its priority and is
    scored (:func:`_scored`) when it comes first; a scored count comes first only
    when its bound is at least every other count's priority, hence at least every
    other count's bound, so the order is :func:`chunk_counts`' own (the same
    truncation to ``effort.collective_built``, spreads of the
    :data:`SPREAD_COUNTS` best, scan stopped below a count of bound 1), and
    :meth:`next` stops where that list's loop would (a bound, or a cap, at most the
    best ratio): the same counts are built, in the same order, with the same bounds
    (a packing MILP stopped at its cap may return another optimum's weights)."""

    def __init__(self, fams, rate: Fraction, roots: dict, most: int, effort,
                 prices=None):
        self.fams, self.rate, self.roots, self.effort = fams, rate, roots, effort
        low = max(1, most - most // 4)
        step = max(1, (most - low + 1) // max(1, effort.collective_counts))
        self.scanned = list(range(most, low - 1, -step))
        halved = halvings(most, low)[:effort.collective_halvings]
        self.heap = []
        grids = row_grids(fams, prices) or row_grids(fams)
        for k in self.scanned + halved:
            cap = min(Fraction(1), grid_cap(fams, rate, roots, k, grids=grids))
            heapq.heappush(self.heap, (-cap, -k, None))
        self.scanned_set = set(self.scanned)
        self.whole = set()   # scanned counts of bound 1 (the scan stops below them)
        self.ranked = 0      # scanned counts passed on, as in chunk_counts' sorted list
        self.entries = 0     # candidates of the scanned counts passed on
        self.pending = []    # candidates of the count in hand, not yet given
        self.scored = 0      # counts scored (MILPs run): statistics
        self.rows = None     # (_distinct_rows, and of the loads only), once

    def _excluded(self, k: int) -> bool:
        return k in self.scanned_set and any(w > k for w in self.whole)

    def next(self, best: Fraction | None):
        """The next candidate (bound, k, weights) that could beat ``best`` (a ratio
        built, or None), or None: no further candidate can."""
        while True:
            if self.pending:
                item = self.pending.pop(0)
                if best is not None and item[0] <= best:
                    self.heap = []
                    self.pending = []
                    return None
                return item
            if not self.heap:
                return None
            priority, minus_k, scored = heapq.heappop(self.heap)
            k = -minus_k
            if best is not None and -priority <= best:
                self.heap = []
                return None
            if self._excluded(k):
                continue
            if scored is None:
                cap = -priority
                if self.rows is None:   # every count's MILPs share them
                    self.rows = (_distinct_rows(self.fams),
                                 _distinct_rows(self.fams, loads_only=True))
                bound, _, weights = _scored(self.fams, self.rate, self.roots, k,
                                            self.effort, cap, self.rows[0])
                self.scored += 1
                if bound > cap:   # pragma: no cover - proofs/collectives.md §13
                    raise AssertionError("postcondition: a count's bound above its cap")
                if k in self.scanned_set and bound == 1:
                    self.whole.add(k)
                heapq.heappush(self.heap, (-bound, minus_k, weights))
                continue
            bound, weights = -priority, scored
            if k not in self.scanned_set:
                self.pending = [(bound, k, weights)]
                continue
            j = self.ranked
            self.ranked += 1
            if j >= self.effort.collective_built:
                continue
            items = []
            if self.effort.collective_nodes and j < SPREAD_COUNTS:
                spread = spread_weights(self.fams, self.roots, k, weights,
                                        self.effort.collective_nodes, *self.rows)
                if spread != weights and weights_bound(self.fams, spread, self.rate,
                                                       self.roots, k) == bound:
                    items.append((bound, k, spread))
            items.append((bound, k, weights))
            room = self.effort.collective_built - self.entries
            items = items[:max(0, room)]
            self.entries += len(items)
            self.pending = items


def halvings(most: int, low: int) -> list[int]:
    """most // 2, most // 4, ... down to 1, those below ``low`` (not scanned)."""
    out, k = [], most // 2
    while k >= 1:
        if k < low:
            out.append(k)
        k //= 2
    return out


#: Below this ratio the chooser also tries :mod:`.config_blocks` (issue 43's target: a
#: timetable at or above it is kept as it is).
BLOCKS_BELOW = Fraction(99, 100)

#: Ring steps and source paths (:mod:`.ring_steps`) are searched only for ratios
#: above this (and above what the other constructions built): below it the list
#: schedule did better on every fabric measured (benchmarks/sweep43.md, "ratio43").
RING_ABOVE = Fraction(1, 2)

#: Fabrics of at least this many compute nodes and no construction by hand search ring
#: steps and source paths *first*, for the optimum itself (rates above
#: RING_FIRST_WITHIN·x*, kept only at x*): there the list schedule takes minutes
#: (24 hosts: about 2 CPU minutes), the search a second; below it the list schedule
#: takes seconds, and its timetables (shallower trees: less warm-up over a finite
#: horizon) stay first.
RING_FIRST_COMPUTE = 16
RING_FIRST_WITHIN = Fraction(999, 1000)

_RING_BUILDS = (
    (ring_timetable, "ring steps: every root's chunks round one cycle in lock-step"),
    (path_timetable, "source paths: every source's chunk along its own path"))

#: The best chunk counts of :func:`chunk_counts` whose weights are also spread (a MILP
#: each): the others are tried as found.
SPREAD_COUNTS = 3


def collective_timetable(platform, result, max_messages: int,
                         effort=DEFAULT) -> tuple[Timetable, dict]:
    """The fastest timetable (module docstring) with at most ``max_messages`` chunks per
    root per period (for relative rates: the root of the largest rate), from the exact
    optimum ``result`` (a :class:`steady.throughput.CollectiveResult`), and statistics.
    A level with a ``floor_level`` (``thorough``) also builds that level's timetable
    where its own stays below 1 and its cap, and keeps the better: its searches differ
    (the blocks model's deterministic time finds other blocks, whose order search can
    stop lower), and a higher effort must not give a lower ratio."""
    effort = effort_of(effort)
    table, stats = _timetable(platform, result, max_messages, effort)
    if effort.floor_level is not None and stats["ratio"] < (stats["cap"] or 1):
        floor = _timetable(platform, result, max_messages, effort_of(effort.floor_level))
        if floor[1]["ratio"] > stats["ratio"]:
            return floor
    return table, stats


def _timetable(platform, result, max_messages: int, effort) -> tuple[Timetable, dict]:
    """:func:`collective_timetable` at one effort level, without its floor."""
    roots = result.roots
    shares = root_shares(roots)
    most = max_messages // max(shares.values())
    if most < 1:
        raise ValueError(f"the relative rates need {max(shares.values())} messages per "
                         "period at the root of the largest rate: raise max_messages")
    best, construction = None, "integer rooted trees, route rounds and list schedule"
    proved = False
    # multi-port: transfers may run at a share of their route's speed (§16), so the
    # caps of full-speed timetables (§9, §10's NIC cap, §15) do not bound what is built
    streams = transfer_model(platform).shares and effort.collective_streamed > 0
    phased = phased_timetable(platform, result, most)
    if phased is not None:   # a Clos fabric (fat tree, leaf-spine): phases built by hand
        table, k = phased
        best = (table.rate(roots) / result.rate, k, Fraction(1), table)
        construction = "phases of fast and slow transfers on a Clos fabric"
    elif (phased := reduced_timetable(platform, result, most)) is not None:
        # the same phases on the reversed fabric, mirrored (reduce-scatter), then the
        # allgather's (allreduce): ratio 1 where the allreduce is the two in turn
        table, k = phased
        best = (table.rate(roots) / result.rate, k, Fraction(1), table)
        construction = "phases on a Clos fabric, mirrored for the reduction"
    if phased is None:   # rail fabrics, DGX-like boxes behind NICs: rounds by hand
        for build, name in (
                (rail_timetable, "rounds of rail and box transfers on a rail fabric"),
                (nic_timetable, "rounds of NIC and box transfers on a NIC fabric")):
            built = build(platform, result, most)
            if built is not None:
                table, k = built
                best = (table.rate(roots) / result.rate, k, Fraction(1), table)
                construction = name
                break
        if best is not None and best[0] < 1 and build is nic_timetable and not streams \
                and nic_cap(platform, result) == table.rate(roots):
            best = best[:2] + (best[0],) + best[3:]   # proved: no timetable does better
            proved = True
    if best is None and effort.collective_ring_checks \
            and len(platform.compute_nodes) >= RING_FIRST_COMPUTE:
        # a large fabric with no construction by hand: where a ring (or one path per
        # source) reaches the optimum itself, nothing beats it and the list schedule's
        # minutes are saved; the search asks for rates within RING_FIRST_WITHIN of x*
        # and keeps only x* exactly
        for build, name in _RING_BUILDS:
            built = build(platform, result, most, RING_FIRST_WITHIN * result.rate,
                          effort.collective_ring_checks)
            if built is not None and built[0].rate(roots) == result.rate:
                table, k = built
                best = (Fraction(1), k, Fraction(1), table)
                construction = name
                break
    cap = None   # the ratio no timetable beats, when majority rows prove one below 1

    def at_cap() -> bool:
        return cap is not None and best is not None and best[0] >= cap

    if not proved and not streams and (best is None or best[0] < 1):
        cap = ratio_cap(platform, result)
        if at_cap():   # pragma: no cover - no construction by hand is capped so far
            best = best[:2] + (best[0],) + best[3:]
            proved = True
    fams, candidates, first, tried_streams = None, None, None, False
    if streams and (best is None or best[0] < 1):
        fams = families(platform, result, effort.collective_pricing,
                        effort.collective_neighbours)
        candidates = CountsInOrder(fams, result.rate, roots, most, effort,
                                   result.certificate.prices)
        first = candidates.next(None)   # the list schedule's first count, scored once
        if first is not None and first[0] < BLOCKS_BELOW and first[0] < min(1, grid_cap(
                load_rows(fams), result.rate, roots, first[1],
                result.certificate.prices)):
            # the best count's whole-hold rows keep full-speed transfers below the
            # target where its loads alone could go higher (a fat tree with
            # oversubscription 3/2: 0.81, not a broadcast's grid of 31/32): streamed
            # first, the list schedule's minutes only where streaming stays below
            best, construction = _streamed(platform, result, fams, most, effort, best,
                                           construction)
            tried_streams = True
    if best is None or best[0] < best[2]:
        fams = fams or families(platform, result, effort.collective_pricing,
                                effort.collective_neighbours)
        # best bound first; a count's MILPs only while its cap could beat the best
        if candidates is None:
            candidates = CountsInOrder(fams, result.rate, roots, most, effort,
                                       result.certificate.prices)
        item = first or candidates.next(None if best is None else best[0])
        while item is not None and (best is None or item[0] > best[0]):
            bound, k, weights = item
            table = route_list_schedule(platform,
                                        balanced_routes(platform, expanded(fams, weights)),
                                        effort)
            ratio = table.rate(roots) / result.rate
            if best is None or ratio > best[0]:
                best = (ratio, k, bound, table)
                construction = "integer rooted trees, route rounds and list schedule"
            item = candidates.next(None if best is None else best[0])
    proved = proved or at_cap()   # at the cap: no timetable does better
    if not proved and effort.collective_ring_checks and best[0] < 1:
        # every compute node's links the cut (a dragonfly): one ring, lock-step steps;
        # a broadcast's sources: a path each (a fat tree's edges); searches of route
        # checks, only for what would beat what is built, kept only when it does
        floor = max(RING_ABOVE, best[0])
        for build, name in _RING_BUILDS:
            built = build(platform, result, most, floor * result.rate,
                          effort.collective_ring_checks)
            if built is not None:
                table, k = built
                best = (table.rate(roots) / result.rate, k, Fraction(1), table)
                construction = name
                break
        proved = at_cap()
    if streams and best[0] < 1 and not tried_streams:   # after the ring: fewer chunks
        best, construction = _streamed(platform, result, fams, most, effort, best,
                                       construction)
    if effort.collective_blocks and best[0] < BLOCKS_BELOW and not proved:
        # small fabrics: trees chosen together with the sets of transfers that run
        # at once (the search's trees can need more than any such sequence gives);
        # a search of seconds, so only below the target
        built = block_timetable(platform, result, most, effort.collective_blocks,
                                shares, effort.collective_block_orders)
        if built is not None and built[0].rate(roots) / result.rate > best[0]:
            table, k = built
            best = (table.rate(roots) / result.rate, k, Fraction(1), table)
            construction = "trees and blocks of concurrent transfers chosen together"
    ratio, k, bound, table = best
    table.check()
    row = whole_hold_bound(transfer_model(platform), table.route_counts) * table.unit
    if table.period < row and not table.slowed:   # pragma: no cover - "Whole holds"
        raise AssertionError("postcondition: a period below a whole-hold row")
    if table.rate(roots) > result.rate:   # pragma: no cover - the certificate forbids it
        raise AssertionError("postcondition: a timetable beats the certified optimum")
    if cap is not None and ratio > cap:   # pragma: no cover - proofs/collectives.md §15
        raise AssertionError("postcondition: a timetable beats its majority cap")
    stats = {"chunks_per_root": k * max(shares.values()), "trees": len(table.trees),
             "transfers": sum(len(rs) for rs in table.runs.values()),
             "ratio": ratio, "bound": bound, "cap": cap,
             "construction": construction}
    return table, stats


def _streamed(platform, result, fams, most: int, effort, best, construction):
    """(best, construction) after streaming (:mod:`.fluid`, proofs/collectives.md §16)
    the trees of the first ``effort.collective_streamed`` chunk counts, best bound first,
    where one beats ``best``; the bound of a streamed timetable is its own ratio
    (nothing beats its trees' largest load)."""
    roots = result.roots
    if best is not None and best[0] >= BLOCKS_BELOW:
        # at the target already: the rounded weights alone, no packing MILP (which
        # doubled the time of fabrics streamed from 0.995 to the same ratio)
        effort = effort.but(collective_nodes=0)
    fams, counts = streamed_counts(platform, result, most, effort, fams)
    for _ in range(effort.collective_streamed):
        if (item := counts.next(None if best is None else best[0])) is None:
            break
        k, weights = item[1:]
        table = streamed_of(platform, fams, weights)
        ratio = table.rate(roots) / result.rate
        if best is None or ratio > best[0]:
            best = (ratio, k, ratio, table)
            construction = ("integer rooted trees, each edge streamed over the period "
                            "at a share of its route")
        if ratio == 1:
            break
    return best, construction


def streamed_counts(platform, result, most: int, effort, fams=None):
    """(families, :class:`CountsInOrder`) of streamed timetables: the families (the
    optimum's search trees when None) with their load rows alone, since a transfer at a
    share holds nothing whole (proofs/collectives.md §16), and their chunk counts."""
    effort = effort_of(effort)
    if fams is None:
        fams = families(platform, result, effort.collective_pricing,
                        effort.collective_neighbours)
    fams = load_rows(fams)
    return fams, CountsInOrder(fams, result.rate, result.roots, most, effort,
                               result.certificate.prices)


def streamed_of(platform, fams, weights) -> Timetable:
    """The streamed timetable (:func:`.fluid.streamed_timetable`) of the families'
    trees with these weights, their routes balanced by the loads alone."""
    return streamed_timetable(platform, balanced_routes(platform, expanded(fams, weights),
                                                        whole=False))


def ratio_cap(platform, result) -> Fraction | None:
    """The ratio to x* that no timetable under the resource rule beats, when the
    optimum's certificate, its prices moved onto majority rows
    (:func:`steady.network.collective_bound.majority_cap`, proofs/collectives.md §15),
    proves one below 1; else None."""
    found = majority_cap(platform, result.roots, result.certificate.prices)
    if found is None or found.bound >= result.rate:
        return None
    return found.bound / result.rate


def _distinct_rows(fams, loads_only: bool = False) -> list[tuple]:
    """The rows [(family index, float time per message), ...] (:class:`Family`; only
    the resources' loads, rows (l, l), with ``loads_only``), each distinct row once:
    under the symmetry every resource of an orbit has the same row (the families are
    expanded over the group), so this is one row per orbit."""
    rows: dict = {}
    for i, f in enumerate(fams):
        for row, c in f.loads.items():
            if not loads_only or row[0] == row[1]:
                rows.setdefault(row, []).append((i, c))
    return sorted({tuple((i, float(c)) for i, c in terms) for terms in rows.values()})


def _weights_milp(fams, roots: dict, k: int):
    """(solver, weight variables): integer weights per family adding up to k·q_r at
    every root of every orbit, in SCIP (None when ortools ships no SCIP)."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:  # pragma: no cover - the ortools wheels ship SCIP
        return None, None
    shares = root_shares(roots)
    w = [solver.IntVar(0, k * shares[next(iter(f.roots))], f"w{i}")
         for i, f in enumerate(fams)]
    for orbit, members in orbits_of(fams).items():
        solver.Add(solver.Sum([w[i] for i in members]) == k * shares[next(iter(orbit))])
    return solver, w


def _solved(solver, w, fams, roots: dict, k: int, start: list[int], nodes: int,
            extra: str = ""):
    """The weights SCIP finds within ``nodes`` branch-and-bound nodes (no time limit:
    the same input, the same answer), from the hint ``start``; ``start`` when it finds
    none or its rounded values miss the exact counts.  ``extra``: more SCIP
    parameters (lines)."""
    from ortools.linear_solver import pywraplp

    solver.SetHint(w, [float(x) for x in start])
    # through steady.interrupts: SCIP's own handler would swallow Ctrl-C
    status = solve_linear(solver, f"limits/nodes = {nodes}\n{extra}")
    if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        return start
    found = [max(0, round(x.solution_value())) for x in w]
    shares = root_shares(roots)
    for orbit, members in orbits_of(fams).items():   # exact counts, or keep the start
        if sum(found[i] for i in members) != k * shares[next(iter(orbit))]:
            return start
    return found


def packed_weights(fams, rate: Fraction, roots: dict, k: int, start: list[int],
                   nodes: int, least: Fraction | None = None, rows=None) -> list[int]:
    """Integer weights per family, k·q_r per root of every orbit, that minimise the
    largest row (:class:`Family`; a MILP over the search's trees, SCIP, bounded by
    ``nodes`` branch-and-bound nodes and no time limit: the same input, the same
    answer; ours, as :mod:`.packing` for a broadcast): a proposal, ``start`` when the
    solver finds nothing better (the caller compares exactly).  ``least``: a largest
    row no integer weights go below (:func:`grid_cap`): SCIP stops on reaching it
    (its primal limit: the same bound, the weights perhaps another optimum's).
    ``rows``: :func:`_distinct_rows` of ``fams`` when known (the same for every k)."""
    solver, w = _weights_milp(fams, roots, k)
    if solver is None:  # pragma: no cover
        return start
    load = solver.NumVar(0, solver.infinity(), "L")
    for terms in (_distinct_rows(fams) if rows is None else rows):
        _add_row(solver, w, terms, (load, -1.0), -solver.infinity(), 0.0)
    solver.Minimize(load)
    extra = "" if least is None else f"limits/primal = {float(least) * (1 + PRIMAL_SLACK)!r}\n"
    return _solved(solver, w, fams, roots, k, start, nodes, extra)


#: The packing MILP stops at an incumbent within this relative margin of the least
#: largest row (a float search: its objective carries rounding errors far below it).
PRIMAL_SLACK = 1e-12


#: The loads, as parts of the largest, above which :func:`spread_weights` charges a
#: resource (a convex piecewise-linear penalty: the higher, the steeper).
SPREAD_LEVELS = (Fraction(4, 5), Fraction(9, 10), Fraction(19, 20))


def _add_row(solver, w, terms, extra, lower: float, upper: float) -> None:
    """lower <= sum c·w[i] over ``terms`` + a·v (``extra`` = (v, a) or None) <= upper,
    set coefficient by coefficient (the natural API's expressions cost more than the
    solve itself on fabrics of a thousand rows; the model is the same)."""
    row = solver.Constraint(lower, upper)
    for i, c in terms:
        row.SetCoefficient(w[i], c)
    if extra is not None:
        row.SetCoefficient(*extra)


def spread_weights(fams, roots: dict, k: int, start: list[int], nodes: int,
                   rows=None, load_rows=None) -> list[int]:
    """Integer weights per family, k·q_r per root of every orbit, whose largest
    row (:class:`Family`) is at most ``start``'s and whose resources' loads are as far
    below it as the trees allow (ours): minimise, over every resource, its load's
    excess above each level of :data:`SPREAD_LEVELS` times that largest row (a MILP as
    :func:`packed_weights`).  Why: the loads' bound is reached only if every tight
    resource is busy at every instant; the optimum's trees often make many resources
    tight where one cut forces only a few (the heterogeneous cluster: a storage
    node's link is the cut, yet the rounded trees also fill four compute nodes' and
    switches' links, whose transfers hold fractions 2/5 and 1/2 that cannot tile a
    period), and a list schedule keeps one tight resource busy far more easily than
    five.  A proposal: the caller re-scores it exactly (:func:`weights_bound`).
    ``rows``, ``load_rows``: :func:`_distinct_rows` of ``fams`` (all, loads only)
    when known."""
    solver, w = _weights_milp(fams, roots, k)
    if solver is None:  # pragma: no cover
        return start
    rows = _distinct_rows(fams) if rows is None else rows
    largest = max(sum(c * start[i] for i, c in terms) for terms in rows)
    for terms in rows:
        _add_row(solver, w, terms, None, -solver.infinity(), largest)
    excess = []
    if load_rows is None:
        load_rows = _distinct_rows(fams, loads_only=True)
    for j, terms in enumerate(load_rows):
        for level in SPREAD_LEVELS:
            e = solver.NumVar(0, solver.infinity(), f"e{j}_{level}")
            # e >= load - level·largest
            _add_row(solver, w, [(i, -c) for i, c in terms], (e, 1.0),
                     -float(level) * largest, solver.infinity())
            excess.append(e)
    solver.Minimize(solver.Sum(excess))
    return _solved(solver, w, fams, roots, k, start, nodes)


#: Alternative routes considered per tree edge by :func:`balanced_routes`, and how many
#: hops longer than the edge's own they may be.
ROUTE_CHOICES = 16
LONGER_ROUTES = 2


def balanced_routes(platform, trees: list[Tree], whole: bool = True) -> list[Tree]:
    """The trees with each edge moved, where that lowers the loads, to another route
    between its two ends, as fast or faster (ours): the optimum routes an edge through
    any cheapest path and leaves unpriced links (a fat tree's aggregation and core
    links) unevenly loaded; spreading them keeps every resource's load at most the
    largest load of the trees as given (the ratio's bound is unchanged) and gives the
    rounds (:mod:`.route_rounds`) room.  Greedy, heaviest edges first, each edge to
    the route whose resources would be least loaded, the busiest compared first (then
    the fewest hops); at
    most :data:`ROUTE_CHOICES` routes per edge, no more than :data:`LONGER_ROUTES`
    hops longer.  The trees as given when the moves raise the largest whole-hold row
    (:func:`steady.network.resources.whole_hold_rows`: a move may make a slow route
    hold in part a link that fast routes need whole), unless ``whole`` is False
    (streamed transfers hold nothing whole: the loads alone count)."""
    model = transfer_model(platform)
    switches = platform.switches
    if not switches:
        return trees
    loads: dict = {}
    items = []
    for l, tree in enumerate(trees):
        for arc in tree.arcs():
            route = tree.route(arc)
            c, parts = model.holds(route)
            for res, part in parts:
                loads[res] = loads.get(res, 0) + tree.weight * c * part
            items.append((-tree.weight, l, arc, route))
    ceiling = max(loads.values())
    chosen: dict = {}
    found: dict = {}
    for minus_w, l, arc, route in sorted(items):
        w = -minus_w
        c, parts = model.holds(route)
        key = (route[0], route[-1], c, len(route))
        if key not in found:
            found[key] = alternative_routes(platform, route, model, LONGER_ROUTES,
                                            ROUTE_CHOICES)
        for res, part in parts:
            loads[res] -= w * c * part
        best = None
        for other in found[key]:
            oc, oparts = model.holds(other)
            after = sorted((loads.get(res, 0) + w * oc * part for res, part in oparts),
                           reverse=True)   # the busiest first: compared in that order
            if after[0] <= ceiling and (best is None or (after, len(other), other)
                                        < best[:3]):
                best = (after, len(other), other, oc, oparts)
        if best is None:
            best = (None, None, route, c, parts)
        for res, part in best[4]:
            loads[res] = loads.get(res, 0) + w * best[3] * part
        chosen[(l, arc)] = best[2]
    out = []
    for l, tree in enumerate(trees):
        routes = {}
        for child in tree.parent:
            path = chosen[(l, tree.arc(child))]
            if len(path) > 2:
                routes[child] = tuple(path[1:-1])
        out.append(Tree(tree.parent, tree.weight, tree.root, tree.direction,
                        routes or None))
    if whole and whole_hold_bound(model, route_counts(out)) > whole_hold_bound(
            model, route_counts(trees)):
        return trees
    return out


def route_counts(trees: list[Tree]) -> dict:
    """{route: messages per period} of weighted trees."""
    counts: dict = {}
    for tree in trees:
        for arc in tree.arcs():
            route = tree.route(arc)
            counts[route] = counts.get(route, 0) + tree.weight
    return counts


def collective_schedule(platform, result, max_messages: int, effort=DEFAULT):
    """(version 2 schedule, statistics) of :func:`collective_timetable`."""
    table, stats = collective_timetable(platform, result, max_messages, effort)
    return table.schedule(result), stats
