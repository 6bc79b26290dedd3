"""Minimum-cost spanning arborescence (Chu-Liu / Edmonds, in Tarjan's O(E log V) form).

The optimality certificate of the steady-state throughput (002 §5.2 with §5.3's
branchings, see ``proofs/certificate.md``) says: port prices y >= 0 such that every
spanning arborescence rooted at the source costs >= 1 under the arc weights
c_{j,k} (y_j^out + y_k^in).  Checking it is one minimum-arborescence computation, and
the tree column generation prices with it at every step, so it must be fast.

The routine is generic in the number type: floats inside a search, ints or Fractions for
an exact answer (only +, - and comparisons are used, so exact weights stay exact).

Method: every node keeps a mergeable heap (leftist, with a lazy additive offset) of its
entering arcs.  Walking from each node along cheapest entering arcs either reaches the
part already attached to the root, or closes a cycle; a cycle is contracted (union-find)
and its heaps melded, after lowering each heap by the weight of the arc chosen inside the
cycle — Edmonds' reduced costs.  Contractions are recorded and undone at the end
(union-find with rollback) to read off which arc enters each original node.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Sequence

from ..numbers import lcm_of_denominators

# A heap node is a list [key, arc, left, right, rank, lazy]; lazy is added to every key
# below (and including) the node when it is pushed down.
_KEY, _ARC, _LEFT, _RIGHT, _RANK, _LAZY = range(6)


def _push(h) -> None:
    lazy = h[_LAZY]
    if lazy:
        for child in (h[_LEFT], h[_RIGHT]):
            if child is not None:
                child[_KEY] += lazy
                child[_LAZY] += lazy
        h[_LAZY] = 0


def _meld(a, b):
    """Leftist-heap meld ordered by (key, arc); the right spine has O(log n) nodes, so
    the recursion stays shallow."""
    if a is None:
        return b
    if b is None:
        return a
    if (b[_KEY], b[_ARC]) < (a[_KEY], a[_ARC]):
        a, b = b, a
    _push(a)
    a[_RIGHT] = _meld(a[_RIGHT], b)
    left, right = a[_LEFT], a[_RIGHT]
    if left is None or left[_RANK] < right[_RANK]:
        a[_LEFT], a[_RIGHT] = right, left
    a[_RANK] = 1 + (a[_RIGHT][_RANK] if a[_RIGHT] is not None else 0)
    return a


def _pop(h):
    _push(h)
    return _meld(h[_LEFT], h[_RIGHT])


class _RollbackUnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))
        self.size = [1] * n
        self.history: list[tuple[int, int]] = []

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> bool:
        a, b = self.find(a), self.find(b)
        if a == b:
            return False
        if self.size[a] < self.size[b]:
            a, b = b, a
        self.history.append((b, self.size[a]))
        self.parent[b] = a
        self.size[a] += self.size[b]
        return True

    def rollback(self, mark: int) -> None:
        while len(self.history) > mark:
            b, size_a = self.history.pop()
            a = self.parent[b]
            self.parent[b] = b
            self.size[a] = size_a


def minimum_arborescence(n: int, root: int, arcs: Sequence[tuple[int, int, object]],
                         dual: bool = False, sorted_heaps: bool = False):
    """Cheapest spanning arborescence of nodes ``0..n-1`` rooted at ``root``.

    ``arcs`` is a list of ``(tail, head, weight)``.  Returns ``(cost, chosen)`` where
    ``chosen`` lists one arc index per non-root node (the arc entering it), or ``None``
    when some node is unreachable.  Equal weights are broken by the lowest arc index,
    so the answer is deterministic.

    With ``dual=True``, ``(cost, chosen, family)``: Edmonds' dual solution read off the
    same run, a laminar family of ``(members, z)`` (members: a tuple of node indices
    without the root, z > 0) such that every arc (a, b) has weight >= the sum of z over
    the sets holding b but not a, and sum z = cost -- a proof that no arborescence is
    cheaper (Edmonds 1967; each pop of a (contracted) node's cheapest entering arc adds
    its reduced cost to the z of the node set it stands for).  Issue 43's certificate
    carries it so that the independent check needs no arborescence routine.

    ``sorted_heaps=True`` builds each node's heap as its entering arcs sorted, chained
    (a valid leftist heap: 5x faster on the dense closures of issue 43).  The answer is
    the same in exact arithmetic; with floats, sums taken in another order may break an
    exact tie the other way, so the default keeps the melded heaps.
    """
    heaps = [None] * n
    if sorted_heaps:
        buckets: list[list] = [[] for _ in range(n)]
        for i, (u, v, w) in enumerate(arcs):
            if v != root and u != v:
                buckets[v].append((w, i))
        for v, bucket in enumerate(buckets):
            bucket.sort()
            chain = None
            for w, i in reversed(bucket):
                chain = [w, i, chain, None, 1, 0]
            heaps[v] = chain
    else:
        for i, (u, v, w) in enumerate(arcs):
            if v != root and u != v:
                heaps[v] = _meld(heaps[v], [w, i, None, None, 1, 0])
    uf = _RollbackUnionFind(n)
    seen = [-1] * n
    seen[root] = root
    entering = [-1] * n  # per contracted node: the arc chosen to enter it
    contractions = []  # (super node, union-find mark, arcs chosen inside the cycle)
    total = 0
    # the dual (only when asked): set k is node k for k < n, later ones are unions
    current = list(range(n)) if dual else None  # union-find root -> its set
    children: list = [()] * n if dual else None
    z: dict = {}
    for start in range(n):
        u = start
        walk_nodes: list[int] = []
        walk_arcs: list[int] = []
        while seen[u] < 0:
            heap = heaps[u]
            if heap is None:
                return None
            reduced, arc = heap[_KEY], heap[_ARC]
            total += reduced
            if dual and reduced:
                z[current[u]] = z.get(current[u], 0) + reduced
            heaps[u] = _pop(heap)
            if heaps[u] is not None:  # the other entering arcs, relative to this one
                heaps[u][_KEY] -= reduced
                heaps[u][_LAZY] -= reduced
            walk_nodes.append(u)
            walk_arcs.append(arc)
            seen[u] = start
            u = uf.find(arcs[arc][0])
            if seen[u] == start:  # closed a cycle: contract it
                mark = len(uf.history)
                melded = None
                cycle_arcs = []
                merged = []
                while True:
                    w = walk_nodes.pop()
                    cycle_arcs.append(walk_arcs.pop())
                    melded = _meld(melded, heaps[w])
                    if dual:
                        merged.append(current[w])  # w is still its class's root
                    if not uf.union(u, w):
                        break
                u = uf.find(u)
                if dual:
                    current[u] = len(children)
                    children.append(tuple(merged))
                heaps[u] = melded
                seen[u] = -1
                contractions.append((u, mark, cycle_arcs))
        for arc in walk_arcs:
            entering[uf.find(arcs[arc][1])] = arc
    for node, mark, cycle_arcs in reversed(contractions):
        uf.rollback(mark)
        outer = entering[node]
        for arc in cycle_arcs:
            entering[uf.find(arcs[arc][1])] = arc
        entering[uf.find(arcs[outer][1])] = outer
    chosen = [entering[v] for v in range(n) if v != root]
    cost = sum((arcs[i][2] for i in chosen), 0)
    if dual:
        return cost, chosen, _family(n, children, z)
    return cost, chosen


def _family(n: int, children: list, z: dict) -> list[tuple[tuple[int, ...], object]]:
    """(members, z) of the sets with z > 0, members sorted (see minimum_arborescence)."""
    members: dict[int, tuple] = {}

    def of(k: int) -> tuple:
        if k < n:
            return (k,)
        if k not in members:
            stack, found = [k], []
            while stack:
                j = stack.pop()
                if j < n:
                    found.append(j)
                else:
                    stack.extend(children[j])
            members[k] = tuple(sorted(found))
        return members[k]

    return [(of(k), value) for k, value in sorted(z.items()) if value > 0]


def cheapest_link_arborescence(nodes: Sequence[str], source: str, links, weights):
    """``(cost, {head: tail})`` of a cheapest spanning arborescence of ``nodes`` rooted
    at ``source`` over ``links`` (objects with ``tail`` and ``head``), ``weights`` one
    per link; ``None`` when some node is unreachable.

    Float weights: a float search.  Exact weights (ints, Fractions): computed in
    integers after scaling by the lcm of their denominators (much faster than Fraction
    arithmetic inside the heaps), the cost returned as an exact Fraction."""
    weights = list(weights)
    exact = all(isinstance(w, (int, Fraction)) for w in weights)
    scale = lcm_of_denominators(weights) if exact else 1
    if exact:
        weights = [int(w * scale) for w in weights]
    index = {v: i for i, v in enumerate(nodes)}
    arcs = [(index[l.tail], index[l.head], w) for l, w in zip(links, weights)]
    found = minimum_arborescence(len(index), index[source], arcs)
    if found is None:
        return None
    cost, chosen = found
    parent = {links[i].head: links[i].tail for i in chosen}
    return (Fraction(cost, scale) if exact else cost), parent


def shortest_path_tree(platform) -> dict:
    """Dijkstra tree {child: parent} on the link costs: a cheap, always-valid spanning
    arborescence (the first column of the tree master LP, a first incumbent tree)."""
    dist = {platform.source: Fraction(0)}
    parent = {}
    order = {v: i for i, v in enumerate(platform.nodes)}
    heap = [(Fraction(0), 0, platform.source)]
    done = set()
    while heap:
        d, _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for l in platform.out_links(u):
            nd = d + l.cost
            if l.head not in dist or nd < dist[l.head]:
                dist[l.head] = nd
                parent[l.head] = u
                heapq.heappush(heap, (nd, order[l.head], l.head))
    return parent


_PEEL_SHARE = 0.25


def _bottleneck_arcs(platform, residual: dict) -> list:
    """The arcs of residual >= θ for the largest θ at which they still reach every
    node from the source (a spanning arborescence's best possible bottleneck)."""
    levels = sorted({r for r in residual.values() if r > 0}, reverse=True)
    lo, hi, best = 0, len(levels) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        arcs = [arc for arc, r in residual.items() if r >= levels[mid]]
        if _spans(platform, arcs):
            best, hi = arcs, mid - 1
        else:
            lo = mid + 1
    return best or []


def _spans(platform, arcs) -> bool:
    children: dict[str, list] = {}
    for u, v in arcs:
        children.setdefault(u, []).append(v)
    seen, stack = {platform.source}, [platform.source]
    while stack:
        for v in children.get(stack.pop(), ()):
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == len(platform.nodes)


def peeled_trees(platform, rates: dict, prices, count: int) -> list[dict]:
    """Seed trees for the master (a search heuristic, floats): repeatedly take the
    cheapest arborescence under the center prices among the arcs of best bottleneck
    in the residual rates, and subtract a share of its bottleneck.  Such trees lie
    in the support of a near-optimal (n, TP), the trees a decomposition of it
    (002 Thm 5) needs; column generation then completes and certifies the set."""
    index = {v: i for i, v in enumerate(platform.nodes)}
    residual = dict(rates)
    trees = []
    for _ in range(count):
        arcs = _bottleneck_arcs(platform, residual)
        if not arcs:
            break
        weighted = [(index[u], index[v], float(platform.cost(u, v))
                     * (prices[0][index[u]] + prices[1][index[v]])) for u, v in arcs]
        _, chosen = minimum_arborescence(len(index), index[platform.source], weighted)
        tree = [arcs[k] for k in chosen]
        take = _PEEL_SHARE * min(residual[arc] for arc in tree)
        for arc in tree:
            residual[arc] -= take
        trees.append({v: u for u, v in tree})
    return trees
