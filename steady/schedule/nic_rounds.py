"""Rounds on DGX-like fabrics: boxes of GPUs on a box switch, groups of GPUs behind a
PCIe switch with one NIC each, every NIC on one leaf (ours; issue 43,
proofs/collectives.md §10 "NIC rounds reach the caps").

A *NIC fabric* (:func:`nic_shape`, read from the links, whatever the names): every
compute node has exactly two links each way, each at one cost both ways, to its *box
switch* (linked only to compute nodes) and to its *PCIe switch*; a PCIe switch links
its compute nodes, all in one box, and exactly one other switch, its *NIC*; a NIC links
its PCIe switch and the *leaf*, one switch for every NIC.  Every box has the same
number of GPUs in groups of the same sizes (in the nodes' order): GPU g of box b is
the g-th of b, grouped as in every other box.

Tree of root (b, g): an edge (b, g) -> (b + d, g) to every other box over GPU -> PCIe
-> NIC -> leaf -> NIC -> PCIe -> GPU, then (t, g) -> (t, h) over box t's switch.
Rounds by translation, one chunk per root:

* cross round d = 1 .. B-1: in slot j, the j-th GPU of every group of every box
  sends its chunk to the same GPU of box b + d: every link of a NIC path (and every
  GPU's PCIe link) carries at most one transfer at any instant;
* box round e = 1 .. G-1 of box b: every GPU g sends the B chunks of the roots (t, g)
  to GPU g + e mod G of its box.

A round (a slot) lasts its slowest route; cross and box rounds use disjoint links, so
they run side by side, and the period is the longer sequence.  On dgx-mixed-2 (two
boxes, pairs behind 32 GB/s PCIe, 50 GB/s NICs) the cross rounds take 2/32 and the box
rounds 14/300: rate 16, exactly the cap that the NICs' majority rows prove for every
timetable (ratio 60/83).  A reduce-scatter is the same reversed (one cost both ways;
the reverse of a permutation is one), an allreduce the in rounds then the out rounds.
Runtime checks: each route once per round and direction, the rounds within the
period, ``Timetable.check``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..network.collective_bound import proved_bound, route_rows, simple_routes
from ..network.resources import MAJORITY, transfer_model
from .rail_phases import collective_directions, every_arc_its_own_link, grid_tree
from .timetable import Timetable, extend_runs


@dataclass(frozen=True)
class NicFabric:
    """:func:`nic_shape`'s reading: ``nodes[b][g]``, ``box_switches[b]``, ``pcie[b][g]``
    and ``nic[b][g]`` (GPU g's PCIe switch and NIC), ``slot[g]`` (g's index in its
    group), the ``leaf``, and the model's ``cost`` {(tail, head): cost}."""

    nodes: tuple
    box_switches: tuple
    pcie: tuple
    nic: tuple
    slot: tuple
    leaf: str
    cost: dict

    @property
    def dims(self) -> tuple[int, int]:
        """(B boxes, G GPUs per box)."""
        return len(self.nodes), len(self.nodes[0])

    def cross_route(self, b: int, g: int, t: int) -> tuple:
        """GPU g of box b to GPU g of box t, every node of the route."""
        return (self.nodes[b][g], self.pcie[b][g], self.nic[b][g], self.leaf,
                self.nic[t][g], self.pcie[t][g], self.nodes[t][g])

    def box_route(self, b: int, g: int, h: int) -> tuple:
        return (self.nodes[b][g], self.box_switches[b], self.nodes[b][h])

    def route_cost(self, route: tuple) -> Fraction:
        """The slowest link's cost (the route's speed under the resource rule)."""
        return max(self.cost[(a, c)] for a, c in zip(route, route[1:]))


def nic_shape(platform) -> NicFabric | None:
    """The :class:`NicFabric` ``platform`` is (module docstring), or None."""
    if not every_arc_its_own_link(platform):
        return None
    switches = set(platform.switches)
    cost = {l.arc: l.cost for l in platform.links}
    if any(cost.get((b, a)) != c for (a, b), c in cost.items()):
        return None   # one cost both ways
    compute = set(platform.compute_nodes)
    heads = {v: [l.head for l in platform.out_links(v)] for v in platform.nodes}
    box_of, pcie_of = {}, {}
    for u in platform.compute_nodes:
        if len(heads[u]) != 2 or not set(heads[u]) <= switches:
            return None
        boxes = [s for s in heads[u] if set(heads[s]) <= compute]
        if len(boxes) != 1:
            return None
        box_of[u] = boxes[0]
        pcie_of[u] = next(s for s in heads[u] if s != boxes[0])
    nic_of, leaves = {}, set()
    for q in set(pcie_of.values()):
        others = [s for s in heads[q] if s not in compute]
        if len(others) != 1 or len({box_of[u] for u in heads[q] if u in compute}) != 1:
            return None
        n = nic_of[q] = others[0]
        rest = [s for s in heads[n] if s != q]
        if len(rest) != 1:
            return None
        leaves.add(rest[0])
    if len(leaves) != 1 or len(set(nic_of.values())) != len(nic_of):
        return None
    leaf = next(iter(leaves))
    inner = set(nic_of) | set(nic_of.values()) | set(box_of.values())
    if leaf not in switches or leaf in inner:
        return None
    order = {v: i for i, v in enumerate(platform.nodes)}
    box_list = sorted(set(box_of.values()), key=order.get)
    if len(box_list) < 2:
        return None
    nodes, slots = [], None
    for x in box_list:
        members = sorted((u for u in box_of if box_of[u] == x),
                         key=lambda u: (order[pcie_of[u]], order[u]))
        groups = [pcie_of[u] for u in members]
        slot = tuple(groups[:i].count(groups[i]) for i in range(len(groups)))
        shape = tuple(groups.index(q) for q in groups)
        if slots is None:
            slots, first_shape = slot, shape
        elif (slot, shape) != (slots, first_shape):
            return None   # boxes grouped differently
        nodes.append(tuple(members))
    return NicFabric(tuple(nodes), tuple(box_list),
                     tuple(tuple(pcie_of[u] for u in row) for row in nodes),
                     tuple(tuple(nic_of[pcie_of[u]] for u in row) for row in nodes),
                     slots, leaf, cost)


def nic_timetable(platform, result, most: int):
    """(timetable, chunks per root) of the module docstring (one chunk per root), or
    None when the platform is not a NIC fabric (:func:`nic_shape`), the collective is
    not an allgather, a reduce-scatter or an allreduce with equal rates, or ``most`` <
    1."""
    directions = collective_directions(platform, result)
    if directions is None or most < 1:
        return None
    fab = nic_shape(platform)
    if fab is None:
        return None
    b_, g_ = fab.dims
    unit = math.lcm(*(c.denominator for c in fab.cost.values()))
    def cross(b, g, direction):
        def route(t):
            way = (b, g, t) if direction == "out" else (t, g, b)
            return fab.cross_route(*way)[1:-1]
        return route

    trees = [grid_tree(fab.nodes, b, g, 1, direction, cross(b, g, direction),
                       lambda t: (fab.box_switches[t],))
             for direction in directions for b in range(b_) for g in range(g_)]
    runs: dict = {}
    seen: set = set()

    def add(route, direction, start, count):
        if (route, direction) in seen:   # pragma: no cover - a translation: each once
            raise AssertionError("postcondition: a route in two rounds of one direction")
        seen.add((route, direction))
        if direction == "in":
            route = route[::-1]
        extend_runs(runs.setdefault(route, []), start, count,
                    int(fab.route_cost(route) * unit))

    cross, box = 0, [0] * b_
    for direction in directions:
        for d in range(1, b_):
            for j in sorted(set(fab.slot)):   # the j-th GPU of every group
                members = [g for g in range(g_) if fab.slot[g] == j]
                routes = [fab.cross_route(b, g, (b + d) % b_)
                          for b in range(b_) for g in members]
                for route in routes:
                    add(route, direction, cross, 1)
                cross += int(max(map(fab.route_cost, routes)) * unit)
        for b in range(b_):
            for e in range(1, g_):
                routes = [fab.box_route(b, g, (g + e) % g_) for g in range(g_)]
                for route in routes:
                    add(route, direction, box[b], b_)
                box[b] += int(b_ * max(map(fab.route_cost, routes)) * unit)
    period = max(cross, *box)
    table = Timetable.from_route_runs(platform, trees, runs, period, unit)
    table.check()
    return table, 1


def nic_cap(platform, result) -> Fraction | None:
    """The exact bound on every timetable's rate per root that the NICs' majority rows
    prove (proofs/collectives.md §10): for each box, price 1 on the majority row of each
    of its NIC -> leaf links (:func:`steady.network.collective_bound.proved_bound`), the
    smallest bound; None when the platform is not a NIC fabric, its routes are too many
    to enumerate (:data:`~steady.network.collective_bound.MAX_ROUTES`) or no price
    binds."""
    fab = nic_shape(platform)
    if fab is None:
        return None
    routes = simple_routes(platform)
    if routes is None:
        return None
    coef = route_rows(transfer_model(platform), routes)
    compute = list(platform.compute_nodes)
    best = None
    for b in range(fab.dims[0]):
        prices = {(("arc", (n, fab.leaf)), MAJORITY): Fraction(1) for n in set(fab.nic[b])}
        found = proved_bound(compute, result.roots, routes, coef, prices)
        if found is not None and (best is None or found.bound < best):
            best = found.bound
    return best
