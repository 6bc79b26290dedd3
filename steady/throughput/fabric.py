"""A platform as the collective LP sees it: compute nodes, routes through switches,
capacity rows (issue 43; ours; proofs/collectives.md, "The model").

* **Compute nodes and switches.**  Switches forward but never store, replicate or
  reduce.  A *route* is a directed path whose interior nodes are all switches and whose
  ends are two compute nodes; every such path is allowed, and the optimiser derives the
  ones it uses (its trees say which).  A tree edge is one route: two edges of a tree
  that cross the same link load it twice.
* **Capacity rows** (every row reads ``load <= 1`` per time unit):

  - one-port (the default, 002 §2): an out-port and an in-port row per compute node --
    a route u -> ... -> v holds u's out-port and v's in-port for c_P per message, c_P
    the largest link cost on it (the route runs at its slowest link's speed).  Switches
    have no port rule; a link between two switches is shared by every route through it
    and gets a row of its own (``arc u->v``: sum of the rates crossing it times its cost
    <= 1); the links at a compute node need none, its port row already bounds them
    (c_link <= c_P);
  - multi-port: no port row; a row per link (``arc u->v``): the rates crossing it,
    times its cost, at most 1 (at most its bandwidth 1/c);
  - both: the shared links of the round-2 ``network`` section keep their rows
    (``link <id>``: each arc on a route through it adds its rate times the link's cost).

Trees are given to :meth:`Fabric.column` as lists of *edges* (sender, receiver, hops):
the route's link indices in the order the data travels, so an out-tree's edge runs
parent -> child and an in-tree's (reduce-scatter) child -> parent, on the same rows.
:meth:`Fabric.routes` prices every route (exact shortest paths through switch
interiors, min over the slowest-link cost in the one-port model), the closure that the
minimum-arborescence pricing runs on.
"""

from __future__ import annotations

import heapq
from fractions import Fraction

from ..network.rows import ROW_PREFIX, shared_links
from .result import IN, OUT


class Fabric:
    """The rows and routes of ``platform`` for trees rooted at ``roots`` (pairs (node,
    direction), direction ``"out"`` or ``"in"``): the roots decide only which port rows
    exist (a port no tree can use gets none, as in the broadcast LP of 002 §5.2, where
    the source has no in-port row)."""

    def __init__(self, platform, roots=()):
        self.platform = platform
        self.compute = platform.compute_nodes
        self.position = {v: i for i, v in enumerate(self.compute)}
        self.switches = platform.switches
        self.multi_port = platform.multi_port
        self.links = platform.links
        self.cost = [l.cost for l in self.links]
        self.rows: list[tuple[tuple, str]] = []
        self.row_index: dict[tuple, int] = {}
        self.out_row: dict[str, int] = {}
        self.in_row: dict[str, int] = {}
        roots = tuple(roots)
        for v in platform.nodes:
            if v in self.switches or self.multi_port:
                continue
            if platform.out_links(v) and not (roots and all(r == (v, IN) for r in roots)):
                self.out_row[v] = self._row(("out", v), f"out-port of {v}")
            if platform.in_links(v) and not (roots and all(r == (v, OUT) for r in roots)):
                self.in_row[v] = self._row(("in", v), f"in-port of {v}")
        # per link index: [(row, coefficient)] for its own row and its network links
        self.hop_rows: list[list[tuple[int, Fraction]]] = [[] for _ in self.links]
        for i, l in enumerate(self.links):
            if self.multi_port or (l.tail in self.switches and l.head in self.switches):
                row = self._row(("arc", l.arc), f"arc {l.tail}->{l.head}")
                self.hop_rows[i].append((row, l.cost))
        link_index = {l.arc: i for i, l in enumerate(self.links)}
        network_rows = {}
        for link in shared_links(platform):  # the round-2 network rows
            if any(a in link_index for a in platform.network.crossing(link.id)):
                network_rows[link.id] = self._row(("link", link.id), ROW_PREFIX + link.id)
        if network_rows:
            for i, l in enumerate(self.links):  # in route order, as tree_link_usage
                for nl in platform.network.shared_route(l.tail, l.head):
                    if nl.id in network_rows:
                        self.hop_rows[i].append((network_rows[nl.id], nl.cost))
        self.out_hops: dict[str, list[tuple[int, str]]] = {v: [] for v in platform.nodes}
        for i, l in enumerate(self.links):
            self.out_hops[l.tail].append((i, l.head))
        self.link_index = link_index
        self.costs = sorted(set(self.cost))
        self._floats = None  # the costs as floats, for a float search (made when asked)

    def _row(self, key, words) -> int:
        self.row_index[key] = len(self.rows)
        self.rows.append((key, words))
        return self.row_index[key]

    @property
    def direct(self) -> bool:
        """No switch: every route is one link."""
        return not self.switches

    # -- columns -------------------------------------------------------------------
    def route_cost(self, hops) -> Fraction:
        """c_P: the time per message of a route, its slowest link's cost."""
        return max(self.cost[h] for h in hops)

    def column(self, edges) -> dict[int, Fraction]:
        """The rows a tree loads per message: {row: coefficient}; ``edges`` are
        (sender, receiver, hops)."""
        column: dict[int, Fraction] = {}
        for sender, receiver, hops in edges:
            if self.out_row or self.in_row:
                c = self.route_cost(hops)
                for row in (self.out_row.get(sender), self.in_row.get(receiver)):
                    if row is not None:
                        column[row] = column.get(row, 0) + c
        for _, _, hops in edges:
            for h in hops:
                for row, c in self.hop_rows[h]:
                    column[row] = column.get(row, 0) + c
        return column

    def float_price(self, edges, prices: list) -> float:
        """A tree's cost under float row prices (the search's test of a new tree)."""
        costs, hop_rows = self._float_tables()
        total = 0.0
        ports = self.out_row or self.in_row
        for sender, receiver, hops in edges:
            for h in hops:
                for row, c in hop_rows[h]:
                    total += prices[row] * c
            if ports:
                c = max(costs[h] for h in hops)
                for row in (self.out_row.get(sender), self.in_row.get(receiver)):
                    if row is not None:
                        total += prices[row] * c
        return total

    # -- routes (the pricing's closure) -----------------------------------------------
    def hop_weights(self, prices) -> list:
        """Per link: what its own and its network rows charge a route crossing it, under
        the row prices ``prices`` (a list indexed by row; floats or exact)."""
        if prices and type(prices[0]) is float:  # a search: float coefficients, fast
            return [sum(prices[row] * c for row, c in rows) if rows else 0.0
                    for rows in self._float_tables()[1]]
        return [sum(prices[row] * c for row, c in rows) if rows else 0
                for rows in self.hop_rows]

    def _float_tables(self):
        """(link costs, hop rows) in floats, for a float search (made when asked: an
        exact cost may be beyond a float)."""
        if self._floats is None:
            self._floats = ([float(c) for c in self.cost],
                            [[(row, float(c)) for row, c in rows] for rows in self.hop_rows])
        return self._floats

    def routes(self, prices, scale: int = 1, symmetry=None) -> list[tuple]:
        """The cheapest route between every ordered pair of compute nodes under the row
        prices: (sender position, receiver position, weight, route).  A route's weight
        is sum over its links of their row prices times costs, plus, one-port,
        c_P (y_out(sender) + y_in(receiver)).  Exact prices give exact weights: times
        ``scale``, which must make every product of a price and a cost an integer (then
        the weights are ints, fast); floats give a search.

        ``route`` is (hops, None), or with ``symmetry`` (a group acting freely on the
        compute nodes, prices invariant under it) (hops of the representative's route,
        sender): the routes are searched from one compute node per orbit only, and
        :meth:`resolve` maps a route to its sender when a tree uses it."""
        hop = self.hop_weights(prices)
        out_p = {v: prices[r] for v, r in self.out_row.items()}
        in_p = {v: prices[r] for v, r in self.in_row.items()}
        if scale != 1:
            hop = [int(w * scale) for w in hop]
        found = []
        if self.direct:
            for i, l in enumerate(self.links):
                port = self._port_term(l.cost, l.tail, l.head, out_p, in_p, scale)
                found.append((self.position[l.tail], self.position[l.head], port + hop[i],
                              ((i,), None)))
            return found
        senders = self.compute if symmetry is None else symmetry.node_reps
        for s in senders:
            best = self._best_routes(s, hop, out_p, in_p, scale)
            if symmetry is None:
                ps = self.position[s]
                found.extend((ps, self.position[t], w, (hops, None))
                             for t, (w, hops) in best.items())
                continue
            targets = [(self.position[t], w, hops) for t, (w, hops) in best.items()]
            for u, g in symmetry.orbit(s):
                pu = self.position[u]
                image = symmetry.compute_image(g)
                found.extend((pu, image[t], w, (hops, u)) for t, w, hops in targets)
        return found

    def _best_routes(self, s, hop, out_p, in_p, scale) -> dict[str, tuple]:
        thresholds = [None] if self.multi_port or not (out_p or in_p) else self.costs
        best: dict[str, tuple] = {}
        for theta in thresholds:
            for t, (d, hops) in self._shortest(s, hop, theta).items():
                c = self.route_cost(hops) if theta is not None else None
                port = 0 if c is None else self._port_term(c, s, t, out_p, in_p, scale)
                w = d + port
                if t not in best or w < best[t][0]:
                    best[t] = (w, hops)
        return best

    def resolve(self, route, symmetry=None) -> tuple[int, ...]:
        """The link indices of a route of :meth:`routes`."""
        hops, sender = route
        if sender is None:
            return hops
        return symmetry.map_hops(hops, sender, self)

    @staticmethod
    def _port_term(c, s, t, out_p, in_p, scale):
        y = out_p.get(s, 0) + in_p.get(t, 0)
        if not y:
            return 0
        return int(c * y * scale) if scale != 1 else c * y

    def _shortest(self, s: str, hop: list, theta) -> dict[str, tuple]:
        """{compute t: (distance, hops)}: Dijkstra from s over links of cost <= theta
        (all when None), forwarding only at switches."""
        dist = {s: 0}
        pred: dict[str, int] = {}
        heap = [(0, 0, s)]
        count = 1
        done = set()
        cost = self.cost
        switches = self.switches
        while heap:
            d, _, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            if u != s and u not in switches:
                continue  # a compute node ends a route
            for i, v in self.out_hops[u]:
                if theta is not None and cost[i] > theta:
                    continue
                nd = d + hop[i]
                if v not in dist or nd < dist[v]:
                    dist[v] = nd
                    pred[v] = i
                    heapq.heappush(heap, (nd, count, v))
                    count += 1
        found = {}
        links = self.links
        for t, d in dist.items():
            if t == s or t in switches:
                continue
            hops = []
            v = t
            while v != s:
                i = pred[v]
                hops.append(i)
                v = links[i].tail
            found[t] = (d, tuple(reversed(hops)))
        return found

    def edges_of(self, hops) -> tuple[str, ...]:
        """The nodes a route visits, sender first."""
        return (self.links[hops[0]].tail,) + tuple(self.links[h].head for h in hops)


def price_scale(fabric: Fabric, prices) -> int:
    """An integer L such that every hop weight and every cost x port price, times L, is
    an integer: exact route weights then compute in integers."""
    from math import lcm

    scale = 1
    for w in fabric.hop_weights(prices):
        scale = lcm(scale, Fraction(w).denominator)
    ports = {prices[r] for r in (*fabric.out_row.values(), *fabric.in_row.values())}
    for y in ports:
        y = Fraction(y)
        if y:
            for c in fabric.costs:
                scale = lcm(scale, (c * y).denominator)
    return scale
