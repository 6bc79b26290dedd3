"""The one-port platform heuristics of seed 000 §3.1 (Algorithms 1-4), and the two
skeletons they share with the LP-based (§4.2) and multi-port (§3.2) heuristics:
pruning the platform arc by arc while every node stays reachable, and growing a tree
from the source in the manner of Prim.

Conventions (all heuristics of :mod:`steady.heuristics`):

* the link weight is T_uv = ``platform.cost(u, v)`` (000 §3.1: send = recv = T_uv);
* "connected" (000 Alg 1, 2, 6) means every node stays reachable from the source;
* a tree is returned as a ``child -> parent`` dict whose arcs are platform links, except
  for the Binomial Tree, whose logical edges may be routed over several links;
* ties are broken deterministically by the platform's orders: nodes by their position in
  ``platform.nodes``, links by their position in ``platform.links`` (the file order).
  No decision ever depends on the iteration order of a set (string hashes vary between
  processes).

The claims the code relies on are in proofs/heuristics.md.
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from .models import send_overheads

__all__ = ["simple_platform_pruning", "refined_platform_pruning",
           "growing_minimum_weighted_out_degree_tree", "binomial_tree",
           "routed_throughput", "arc_multiplicities", "PrunedGraph", "prune_in_order",
           "prune_by_node", "grow_tree"]


# -- pruning skeleton (000 Alg 1, 2, 6 and Multiport Prune-Degree) -----------------------

class PrunedGraph:
    """The graph (V, TreeEdges) of the pruning heuristics: all platform arcs at first,
    arcs removed one at a time while every node stays reachable from the source."""

    def __init__(self, platform):
        self.source = platform.source
        self.nodes = platform.nodes
        self.succ: dict[str, dict[str, None]] = {v: {} for v in platform.nodes}
        self.pred: dict[str, dict[str, None]] = {v: {} for v in platform.nodes}
        for link in platform.links:
            self.succ[link.tail][link.head] = None
            self.pred[link.head][link.tail] = None
        self.arcs = len(platform.links)
        # Arcs found necessary stay necessary: removing arcs never creates a path
        # (proofs/heuristics.md, claim 1), so each arc fails the test at most once.
        self._necessary: set[tuple[str, str]] = set()

    def removable(self, u: str, v: str) -> bool:
        """Is every node still reachable from the source without the arc (u, v)?

        Exactly when v = source, or some other in-neighbour w of v is reachable from the
        source by a path avoiding v (proofs/heuristics.md, claim 1): a depth-first search
        from the source that never enters v and stops at the first such w."""
        if v == self.source:
            return True
        if (u, v) in self._necessary:
            return False
        others = {w for w in self.pred[v] if w != u}
        if self.source in others:
            return True
        seen, stack = {self.source, v}, [self.source]
        while others and stack:
            for y in self.succ[stack.pop()]:
                if y not in seen:
                    if y in others:
                        return True
                    seen.add(y)
                    stack.append(y)
        self._necessary.add((u, v))
        return False

    def remove(self, u: str, v: str) -> None:
        del self.succ[u][v]
        del self.pred[v][u]
        self.arcs -= 1

    def is_arborescence(self) -> bool:
        """n - 1 arcs and every node reachable (kept invariant) make an arborescence."""
        return self.arcs == len(self.nodes) - 1

    def parent(self) -> dict[str, str]:
        """The tree as ``child -> parent``, children in ``platform.nodes`` order."""
        if not self.is_arborescence():
            raise AssertionError(f"postcondition: pruning stopped with {self.arcs} arcs, "
                                 f"not {len(self.nodes) - 1}")
        return {v: next(iter(self.pred[v])) for v in self.nodes if v != self.source}


def prune_in_order(platform, order: Sequence) -> dict[str, str]:
    """Scan the links in ``order`` once, removing each one whose removal keeps every node
    reachable (the loop body of 000 Alg 1 and Alg 6).

    The pseudo-code repeats the scan ``while |TreeEdges| > n - 1``; one scan always ends
    with n - 1 arcs (proofs/heuristics.md, claim 2), so the loop body runs exactly once."""
    graph = PrunedGraph(platform)
    for link in order:
        if graph.removable(link.tail, link.head):
            graph.remove(link.tail, link.head)
    return graph.parent()


def prune_by_node(platform, node_metric: Callable[[str, list[str]], Fraction]
                  ) -> dict[str, str]:
    """The skeleton of 000 Alg 2: repeatedly take the nodes by non-increasing
    ``node_metric(u, heads of u's current out-arcs)``, and remove the heaviest removable
    out-arc (largest T_uv) of the first node that has one; recompute that node's metric.

    Ties: nodes by position in ``platform.nodes``, arcs by position in ``platform.links``.

    Same choices as re-sorting everything after each removal, without the re-sorting:
    the nodes wait in a heap keyed by (-metric, position), and each node's out-arcs are
    ranked once; the arcs ranked before the one removed were found necessary and stay so
    (proofs/heuristics.md, claim 1), so a pointer per node only moves forward, and a node
    whose pointer reaches the end never has a removable arc again (it leaves the heap)."""
    graph = PrunedGraph(platform)
    index = {link.arc: i for i, link in enumerate(platform.links)}
    ranked = {u: [l.head for l in sorted(platform.out_links(u),
                                         key=lambda l: (-l.cost, index[l.arc]))]
              for u in platform.nodes}
    pointer = {u: 0 for u in platform.nodes}
    metric = {u: node_metric(u, ranked[u]) for u in platform.nodes}
    heap = [(-metric[u], i, u) for i, u in enumerate(platform.nodes) if ranked[u]]
    heapq.heapify(heap)
    while not graph.is_arborescence():
        if not heap:  # cannot happen: proofs/heuristics.md, claim 2
            raise AssertionError("postcondition: no removable arc left above n - 1 arcs")
        _, i, u = heapq.heappop(heap)                 # the heap holds each node once
        heads, k = ranked[u], pointer[u]
        while k < len(heads) and not (heads[k] in graph.succ[u]
                                      and graph.removable(u, heads[k])):
            k += 1
        pointer[u] = k + 1
        if k == len(heads):
            continue                                  # every out-arc necessary: for good
        graph.remove(u, heads[k])
        metric[u] = node_metric(u, list(graph.succ[u]))
        heapq.heappush(heap, (-metric[u], i, u))
    return graph.parent()


def _weighted_out_degree(platform) -> Callable[[str, list[str]], Fraction]:
    return lambda u, heads: sum((platform.cost(u, v) for v in heads), Fraction(0))


def simple_platform_pruning(platform) -> dict[str, str]:
    """SIMPLE-PLATFORM-PRUNING, seed 000 §3.1.1, Algorithm 1.

    Scan the arcs by non-increasing weight T_uv and delete every arc whose deletion keeps
    every node reachable from the source.  Ties: file order of the links."""
    index = {link.arc: i for i, link in enumerate(platform.links)}
    order = sorted(platform.links, key=lambda l: (-l.cost, index[l.arc]))
    return prune_in_order(platform, order)


def refined_platform_pruning(platform) -> dict[str, str]:
    """REFINED-PLATFORM-PRUNING, seed 000 §3.1.2, Algorithm 2 ("Topo-Prune-Degree").

    OutDegree(u) = sum of T_uv over u's remaining out-arcs.  Repeatedly: nodes by
    non-increasing OutDegree; for the first node with a removable out-arc, delete its
    heaviest removable one (line 7 sorts "by decreasing weight T_uv"), update OutDegree,
    start again (line 12: goto 4).  Ties: nodes in ``platform.nodes`` order, arcs in file
    order."""
    return prune_by_node(platform, _weighted_out_degree(platform))


# -- growing skeleton (000 Alg 3, 5, 7) --------------------------------------------------

def grow_tree(platform, arc_key: Callable, cost: Callable) -> dict[str, str]:
    """Prim-like growth from the source (the skeleton of 000 Alg 3, 5 and 7): add, one at
    a time, the link (u, v) with u in the tree and v outside that minimises
    ``cost(u, link, children links of u so far)``; ties by ``arc_key(link)``, then file
    order.

    ``arc_key`` is a static sort key of the links and ``cost`` must be non-decreasing in
    it among the out-links of one node (true of every caller); then the cheapest frontier
    link of u is its first out-link, in ``arc_key`` order, whose head is outside the tree,
    found by a pointer that only moves forward (proofs/heuristics.md, claim 4)."""
    index = {link.arc: i for i, link in enumerate(platform.links)}
    ranked = {u: sorted(platform.out_links(u), key=lambda l: (arc_key(l), index[l.arc]))
              for u in platform.nodes}
    pointer = {u: 0 for u in platform.nodes}
    children: dict[str, list] = {u: [] for u in platform.nodes}
    tree_vertices = [platform.source]
    in_tree = {platform.source}
    parent: dict[str, str] = {}
    while len(tree_vertices) < len(platform.nodes):
        best = None
        for u in tree_vertices:
            links, i = ranked[u], pointer[u]
            while i < len(links) and links[i].head in in_tree:
                i += 1
            pointer[u] = i
            if i < len(links):
                link = links[i]
                key = (cost(u, link, children[u]), arc_key(link), index[link.arc])
                if best is None or key < best[0]:
                    best = (key, link)
        if best is None:  # cannot happen: every node is reachable (002 §2)
            raise AssertionError("postcondition: no link leaves the tree")
        link = best[1]
        parent[link.head] = link.tail
        children[link.tail].append(link)
        tree_vertices.append(link.head)
        in_tree.add(link.head)
    return parent


def growing_minimum_weighted_out_degree_tree(platform) -> dict[str, str]:
    """GROWING-MINIMUM-WEIGHTED-OUT-DEGREE-TREE, seed 000 §3.1.3, Algorithm 3
    ("Topo-Grow-Tree").

    Text and pseudo-code disagree; we follow the text.  The text defines the cost of a
    frontier link (u, w) as the weighted out-degree of u in the tree once (u, w) is added,
    cost(u, w) = sum_{children v of u} T_uv + T_uw (initially T_uw, as in the
    pseudo-code), so the chosen link "increases as little as possible the maximum
    weighted out-degree".  The pseudo-code's update cost(u, w) += cost(u, v) adds the
    chosen link's *cost* (which already contains u's earlier children), counting them
    again at every step: after children of weights a then b, it prices (u, w) at
    T_uw + a + (a + b) instead of T_uw + a + b.

    Ties: smaller T_uw, then file order of the links."""
    return grow_tree(platform, lambda l: l.cost,
                     lambda u, link, kids: sum((k.cost for k in kids), link.cost))


# -- the Binomial Tree (000 Alg 4) and its throughput with routed edges ------------------

def binomial_tree(platform) -> tuple[dict[str, str], dict[tuple[str, str], list[str]]]:
    """BINOMIAL-TREE, seed 000 §3.1.4, Algorithm 4: the MPI binomial tree on node indices,
    blind to the topology.  Returns ``(parent, routes)``: ``parent`` is the logical tree
    (child -> parent), ``routes[(u, v)]`` the path [u, ..., v] of a logical edge that is
    not a link.

    * Index 0 is the source, then the other nodes in ``platform.nodes`` order.
    * m = floor(log2 |V|); stage p = 0..m-1 adds X·2^(m-p) -> X·2^(m-p) + 2^(m-p-1) for
      X = 0..2^p - 1; then every node x >= 2^m receives from x - 2^m.  The text says node x
      "receives the message from ... (x - 2^m)"; the pseudo-code's SHORTEST-PATH(u, u - 2^m)
      goes the other way, so we follow the text.
    * A logical edge (u, v) that is not a link is "scheduled through the shortest path from
      u to v": the cheapest path (sum of T), then fewest hops, then the first found by
      Dijkstra scanning links in file order.  Each logical edge is a separate transfer, so
      a link on several routes carries the message several times (see
      :func:`routed_throughput`).
    * If v cannot be reached from u at all (possible on directed platforms), the message
      comes from u's nearest logical ancestor that reaches v (the source always does, 002
      §2), which becomes v's logical parent.
    """
    order = [platform.source] + [v for v in platform.nodes if v != platform.source]
    n = len(order)
    m = n.bit_length() - 1
    logical = [(x * 2 ** (m - p), x * 2 ** (m - p) + 2 ** (m - p - 1))
               for p in range(m) for x in range(2 ** p)]
    logical += [(x - 2 ** m, x) for x in range(2 ** m, n)]
    parent: dict[str, str] = {}
    routes: dict[tuple[str, str], list[str]] = {}
    paths: dict[str, dict[str, str]] = {}  # sender -> predecessors of its cheapest paths
    weight = _integer_costs(platform)
    for a, b in logical:
        sender, v = order[a], order[b]
        while not platform.has_link(sender, v):
            if sender not in paths:
                paths[sender] = _cheapest_paths(platform, sender, weight)
            if v in paths[sender]:
                routes[(sender, v)] = _path(paths[sender], sender, v)
                break
            sender = parent[sender]      # assigned: stages run from the root down
        parent[v] = sender
    return parent, routes


def _cheapest_paths(platform, start: str, weight: Mapping[tuple[str, str], int]
                    ) -> dict[str, str]:
    """Dijkstra from ``start``: every reachable node's predecessor on a path minimising
    (sum of costs, hops) (:func:`_path` reads one path; the source maps to itself);
    equal labels keep the first found.  ``weight`` holds the costs times a common
    denominator (exact integers: same order as the Fractions, much faster).  Paths are
    read on demand: all of them would take memory quadratic in a deep platform's size."""
    label = {start: (0, 0)}
    before: dict[str, str] = {}
    heap = [(0, 0, 0, start)]
    counter = 1
    done: set[str] = set()
    while heap:
        dist, hops, _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for link in platform.out_links(u):
            candidate = (dist + weight[link.arc], hops + 1)
            if link.head not in label or candidate < label[link.head]:
                label[link.head] = candidate
                before[link.head] = u
                heapq.heappush(heap, (*candidate, counter, link.head))
                counter += 1
    before[start] = start
    return before


def _path(before: dict[str, str], start: str, v: str) -> list[str]:
    """The path start -> v in a predecessor map of :func:`_cheapest_paths`."""
    path = [v]
    while path[-1] != start:
        path.append(before[path[-1]])
    return path[::-1]


def _integer_costs(platform) -> dict[tuple[str, str], int]:
    """Every cost times the lcm of their denominators: exact integers, same order."""
    scale = math.lcm(*(link.cost.denominator for link in platform.links))
    return {link.arc: link.cost.numerator * (scale // link.cost.denominator)
            for link in platform.links}


def arc_multiplicities(parent: Mapping[str, str],
                       routes: Mapping[tuple[str, str], Sequence[str]]
                       ) -> dict[tuple[str, str], int]:
    """How many copies of each message every link carries: one per logical edge whose
    route (or the edge itself) uses it."""
    count: dict[tuple[str, str], int] = {}
    for child, par in parent.items():
        path = routes.get((par, child), (par, child))
        for arc in zip(path, path[1:]):
            count[arc] = count.get(arc, 0) + 1
    return count


def routed_throughput(platform, parent: Mapping[str, str],
                      routes: Mapping[tuple[str, str], Sequence[str]],
                      model: str = "one-port") -> Fraction:
    """Exact throughput of a logical tree whose edges may be routed over several links,
    every logical edge being a separate transfer (proofs/heuristics.md, claim 5).  With
    k_uv copies of each message on link (u, v):

    * one-port (002 §2: a node is blocked during each of its sends and each of its
      receptions, relayed ones included): TP = 1 / max_u max(sum_v k_uv T_uv,
      sum_w k_wu T_wu);
    * multi-port (000 §3.2): u serializes one send_u per copy it sends and a link is
      busy T_uv per copy: TP = 1 / max_u max((sum_v k_uv)·send_u, max_v k_uv T_uv).
      Receptions are not serialized: recv_v is only known inside T_uv (as in
      :mod:`steady.heuristics.models`).

    Without routes both are exactly the tree formulas of :mod:`steady.heuristics.models`
    (a node receives once, from its parent, whose out-port carries that transfer too)."""
    count = arc_multiplicities(parent, routes)
    if model == "one-port":
        busy: dict[tuple[str, str], Fraction] = {}
        for (u, v), k in count.items():
            busy[("out", u)] = busy.get(("out", u), Fraction(0)) + k * platform.cost(u, v)
            busy[("in", v)] = busy.get(("in", v), Fraction(0)) + k * platform.cost(u, v)
        return 1 / max(busy.values())
    if model == "multi-port":
        send = send_overheads(platform)
        sends: dict[str, int] = {}
        period: dict[str, Fraction] = {}
        for (u, v), k in count.items():
            sends[u] = sends.get(u, 0) + k
            period[u] = max(period.get(u, Fraction(0)), k * platform.cost(u, v))
        return 1 / max(max(period[u], sends[u] * send[u]) for u in period)
    raise ValueError(f"unknown model {model!r}")
