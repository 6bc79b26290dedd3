"""Phased allgather timetables on rail fabrics: servers of GPUs on a box switch
(NVSwitch), GPU g of every server on rail switch g (ours; issue 43,
proofs/collectives.md §10 "Rail fabrics").

A *rail fabric* (:func:`rail_shape`, read from the links, whatever the names): every
compute node has exactly two links each way, to two switches, one of each *family*,
each at one cost both ways; the switches of a family partition the compute nodes, and
a switch of one family meets a switch of the other in exactly one compute node (a
grid: S *boxes* of G nodes, G *rails* of S nodes).  Bandwidths may differ from link to
link (box generations, NIC speeds).  The switches may have other links (rails to
spines): the construction does not use them.  Which family is the boxes is chosen by
the rate (both are tried).

Tree of root (s, g): a *rail* edge (s, g) -> (s', g) to every other box s' over the
rail, then a *box* edge (s', g) -> (s', h) to every other node of every box over its
box switch.  Each root's tree carries m chunks per period.  Rounds by translation:

* rail round d = 1 .. S-1: every (s, g) sends its m chunks to (s + d mod S, g); every
  rail link carries one transfer each way, back to back, (S-1)·m/B_rail in all;
* box round e = 1 .. G-1: every (s, g) sends the S·m chunks of the S roots (s', g) to
  (s, g + e mod G), (G-1)·S·m/B_box in all.

Rounds of one kind use disjoint links (a translation is a permutation: one uplink
and one downlink per node), the two kinds use disjoint links too, so the rail rounds
and the box rounds run side by side; a round lasts as long as its slowest route (every
link at one bandwidth: (S-1)·m/B_rail for the rail rounds, (G-1)·S·m/B_box for the box
rounds), and the period is the longer of the two sequences.  When the box switches
link only to their nodes, a box's only links out are its nodes' rail links; contract
every box to a point: every out-tree (and in-tree) then has at least S-1 edges between
boxes, each a transfer through a rail link into a box, so N(S-1)·m·c_rail (twice that
for an allreduce's in- and out-trees) is at most the N rail downlinks' time N·P, and
x* <= B_rail/(S-1) (B_rail/(2(S-1)) for an allreduce) with one rail bandwidth: the
ratio is 1 whenever the box rounds are not longer (proofs/collectives.md §10).
Runtime checks: the permutations' rounds (each route once per round), the tree
edges' counts and ``Timetable.check`` (the resource rule at every instant).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..platform import MULTI_PORT
from .timetable import Timetable, Tree, extend_runs


@dataclass(frozen=True)
class Rail:
    """A rail fabric (module docstring): ``nodes[s][g]`` the node of box s on rail g,
    ``boxes[s]`` and ``rails[g]`` their switches, ``box_costs[s][g]`` and
    ``rail_costs[s][g]`` the costs (1/B, the same both ways) of that node's links to
    its box switch and to its rail switch."""

    nodes: tuple
    boxes: tuple
    rails: tuple
    box_costs: tuple
    rail_costs: tuple

    @property
    def dims(self) -> tuple[int, int]:
        """(S boxes, G rails)."""
        return len(self.boxes), len(self.rails)

    def rail_rounds(self) -> list[Fraction]:
        """The time per chunk of rail round d = 1 .. S-1: its slowest route's cost."""
        s_, g_ = self.dims
        c = self.rail_costs
        return [max(max(c[s][g], c[(s + d) % s_][g]) for s in range(s_) for g in range(g_))
                for d in range(1, s_)]

    def box_rounds(self, s: int) -> list[Fraction]:
        """The time per chunk of box s's round e = 1 .. G-1: its slowest route's cost."""
        g_ = self.dims[1]
        c = self.box_costs[s]
        return [max(max(c[g], c[(g + e) % g_]) for g in range(g_)) for e in range(1, g_)]

    def period(self, m: int) -> Fraction:
        """The rail rounds side by side with every box's rounds (S·m chunks each)."""
        s_ = self.dims[0]
        return max(m * sum(self.rail_rounds()),
                   max(s_ * m * sum(self.box_rounds(s)) for s in range(s_)))

    def rate(self, m: int = 1) -> Fraction:
        """m chunks per root over :meth:`period`."""
        return Fraction(m) / self.period(m)

    def transposed(self) -> "Rail":
        """The same grid with the families' roles swapped."""
        return Rail(tuple(zip(*self.nodes)), self.rails, self.boxes,
                    tuple(zip(*self.rail_costs)), tuple(zip(*self.box_costs)))


def every_arc_its_own_link(platform) -> bool:
    """Multi-port, with switches, and no physical link shared by several arcs (a
    network section's shared links would join resources the rounds keep apart)."""
    if platform.ports != MULTI_PORT or not platform.switches:
        return False
    network = getattr(platform, "network", None)
    return network is None or not list(network.shared_links())


def rail_shape(platform) -> Rail | None:
    """The :class:`Rail` fabric ``platform`` is (module docstring), boxes the family
    that gives the higher rate (the first family in the nodes' order when equal), or
    None."""
    if not every_arc_its_own_link(platform):
        return None
    switches = set(platform.switches)
    pairs = {}
    for u in platform.compute_nodes:
        outs = {l.head: l.cost for l in platform.out_links(u)}
        ins = {l.tail: l.cost for l in platform.in_links(u)}
        if len(outs) != 2 or len(platform.out_links(u)) != 2 or outs != ins \
                or len(platform.in_links(u)) != 2 or not set(outs) <= switches:
            return None
        pairs[u] = outs
    order = {v: i for i, v in enumerate(platform.nodes)}
    first = next(iter(pairs))
    a, b = sorted(pairs[first], key=order.get)
    family = {a: 0, b: 1}   # two-colour the switches: a node's two are of two families
    members: dict = {}
    pending = list(platform.compute_nodes)
    while pending:   # each new switch is coloured through a node with a coloured one
        progress = [u for u in pending if set(pairs[u]) & set(family)]
        if not progress:
            return None   # two components: not one grid
        for u in progress:
            x, y = sorted(pairs[u], key=order.get)
            fx, fy = family.get(x), family.get(y)
            if fx is None:
                fx = family[x] = 1 - fy
            if fy is None:
                fy = family[y] = 1 - fx
            if fx == fy:
                return None
            members.setdefault(x, []).append(u)
            members.setdefault(y, []).append(u)
        done = set(progress)
        pending = [u for u in pending if u not in done]
    boxes = sorted((s for s in members if family[s] == 0), key=order.get)
    rails = sorted((s for s in members if family[s] == 1), key=order.get)
    if len(boxes) < 2 or len(rails) < 2:
        return None
    rail_of = {u: r for r in rails for u in members[r]}
    nodes = []
    for box in boxes:
        row = {rail_of[u]: u for u in members[box]}
        if len(row) != len(members[box]) or set(row) != set(rails):
            return None   # not a grid: a box without a node on some rail, or two
        nodes.append(tuple(row[r] for r in rails))
    shape = Rail(tuple(nodes), tuple(boxes), tuple(rails),
                 tuple(tuple(pairs[u][box] for u in row) for box, row in zip(boxes, nodes)),
                 tuple(tuple(pairs[u][rail] for u, rail in zip(row, rails))
                       for row in nodes))
    other = shape.transposed()
    return other if other.rate() > shape.rate() else shape


def collective_directions(platform, result) -> tuple | None:
    """("out",) for an allgather, ("in",) for a reduce-scatter, ("in", "out") for an
    allreduce: every compute node a root in each, at equal rates; else None."""
    roots = set(result.roots)
    nodes = set(platform.compute_nodes)
    for directions in (("out",), ("in",), ("in", "out")):
        if roots == {(v, d) for v in nodes for d in directions}:
            return directions if len(set(result.roots.values())) == 1 else None
    return None


def grid_tree(nodes, b: int, g: int, weight: int, direction: str, cross, inside) -> Tree:
    """The tree of GPU g of box b on a grid of boxes x GPUs (``nodes[box][gpu]``): to
    GPU g of every other box t over ``cross(t)`` (the switches between), then inside
    every box t from its GPU g to the others over ``inside(t)``."""
    parent, routes = {}, {}
    for t in range(len(nodes)):
        if t != b:
            parent[nodes[t][g]] = nodes[b][g]
            routes[nodes[t][g]] = cross(t)
        for h in range(len(nodes[t])):
            if h != g:
                parent[nodes[t][h]] = nodes[t][g]
                routes[nodes[t][h]] = inside(t)
    return Tree(parent, weight, nodes[b][g], direction, routes)


def rail_timetable(platform, result, most: int):
    """(timetable, chunks per root) of the module docstring on a rail fabric (one chunk
    per root: the rate does not grow with m), or None when the platform is not one
    (:func:`rail_shape`), the collective is not an allgather, a reduce-scatter or an
    allreduce with equal rates (:func:`collective_directions`) or ``most`` < 1.

    A reduce-scatter's in-trees are the allgather's trees reversed, each transfer on
    the reversed route at the same instant (links have one cost both ways and a round
    is a permutation, so its reverse is one too); an allreduce runs the in rounds, then
    the out rounds (proofs/collectives.md §10)."""
    directions = collective_directions(platform, result)
    if directions is None or most < 1:
        return None
    rail = rail_shape(platform)
    if rail is None:
        return None
    m = 1
    s_, g_ = rail.dims
    unit = math.lcm(*(c.denominator for costs in (rail.box_costs, rail.rail_costs)
                      for row in costs for c in row))
    trees = [grid_tree(rail.nodes, s, g, m, direction, lambda t, g=g: (rail.rails[g],),
                       lambda t: (rail.boxes[t],))
             for direction in directions for s in range(s_) for g in range(g_)]
    runs: dict = {}
    seen: set = set()

    def add(route, direction, start, count, cost):
        if (route, direction) in seen:   # pragma: no cover - a translation: each once
            raise AssertionError("postcondition: a route in two rounds of one direction")
        seen.add((route, direction))
        if direction == "in":
            route = route[::-1]
        extend_runs(runs.setdefault(route, []), start, count, int(cost * unit))

    rail_start, box_start = 0, [0] * s_
    for direction in directions:
        for d, length in enumerate(rail.rail_rounds(), 1):   # a translation of the boxes
            for s in range(s_):
                for g in range(g_):
                    t = (s + d) % s_
                    add((rail.nodes[s][g], rail.rails[g], rail.nodes[t][g]), direction,
                        rail_start, m, max(rail.rail_costs[s][g], rail.rail_costs[t][g]))
            rail_start += int(m * length * unit)
        for s in range(s_):   # box round e: S·m chunks to the node e further on
            for e, length in enumerate(rail.box_rounds(s), 1):
                for g in range(g_):
                    h = (g + e) % g_
                    add((rail.nodes[s][g], rail.boxes[s], rail.nodes[s][h]), direction,
                        box_start[s], s_ * m,
                        max(rail.box_costs[s][g], rail.box_costs[s][h]))
                box_start[s] += int(s_ * m * length * unit)
    period = int(len(directions) * rail.period(m) * unit)
    if rail_start > period or max(box_start) > period:   # pragma: no cover - period()
        raise AssertionError("postcondition: rounds past the period")
    table = Timetable.from_route_runs(platform, trees, runs, period, unit)
    table.check()
    return table, m
