"""Weighted bipartite edge colouring: the Edge Colouring Lemma (seed 002 §4.2, Lemma 1)
in its refined form (seed 002 §5.4.1, Theorem 6).

Every processor P_j is split into a sender copy j_out and a receiver copy k_in; a
communication from P_j to P_k lasting w time units is an edge (j, k) of weight w in the
bipartite graph G^M.  Theorem 6: there are matchings M_1..M_K with positive integer
weights mu_1..mu_K such that every edge is covered by matchings of total weight exactly
its own weight, sum(mu_i) = Delta (the largest weighted degree of any j_out or k_in), and
K <= |E|.  Running the matchings back to back, M_i for mu_i time units, performs all the
communications under the one-port model in time Delta (the steps of 002 §5.4.2).

Method (proofs/edge-coloring.md):

1. regularise -- give every deficient vertex dummy edges, chosen by the north-west
   corner rule on the deficient senders x deficient receivers (a forest), after padding
   the smaller side with dummy vertices, so that every vertex has weighted degree Delta;
2. peel -- a Delta-regular weighted bipartite graph has a perfect matching on its
   support (Hall/König); take mu = its smallest weight, subtract, repair the matching
   by one augmenting path per freed sender, repeat until nothing is left;
3. drop the dummy edges and merge matchings that became identical.

Each peel step that does not end the peeling lowers the dimension of the space of
"regular" weightings of the support by at least one, which bounds the number of
matchings by |E| (in fact by |E| - r + 1 + cyc, see the proof note).

Everything is exact Python ``int``; the output is deterministic (inputs are sorted).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Matching", "weighted_edge_coloring", "check_coloring", "max_weighted_degree"]

Edge = tuple[str, str]


@dataclass(frozen=True)
class Matching:
    """One colour class: ``edges`` (sender j, receiver k) pairwise disjoint on both
    sides, used for ``weight`` (mu_i) time units."""

    edges: tuple[Edge, ...]
    weight: int


def max_weighted_degree(weights: Mapping[Edge, int]) -> int:
    """Delta: the largest sum of weights at a sender j_out or at a receiver k_in."""
    out_deg: dict[str, int] = {}
    in_deg: dict[str, int] = {}
    for (j, k), w in weights.items():
        out_deg[j] = out_deg.get(j, 0) + w
        in_deg[k] = in_deg.get(k, 0) + w
    return max([0, *out_deg.values(), *in_deg.values()])


def _validate(weights: Mapping[Edge, int]) -> None:
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping (j, k) -> int, got {type(weights).__name__}")
    for key, w in weights.items():
        if not (isinstance(key, tuple) and len(key) == 2
                and isinstance(key[0], str) and isinstance(key[1], str)):
            raise TypeError(f"edge {key!r}: a key must be a pair (sender, receiver) of str")
        if isinstance(w, bool) or not isinstance(w, int):
            raise TypeError(f"edge {key!r}: weight {w!r} is not an int")
        if w <= 0:
            raise ValueError(f"edge {key!r}: weight {w} is not positive")


def weighted_edge_coloring(weights: Mapping[Edge, int]) -> list[Matching]:
    """Decompose the weighted bipartite graph ``weights`` into weighted matchings.

    ``weights[(j, k)]`` is the (positive integer) weight of the edge from sender copy
    j_out to receiver copy k_in; senders and receivers are separate namespaces.  Returns
    matchings with positive integer weights mu_i such that each edge's weight is the sum
    of the mu_i of the matchings containing it, sum(mu_i) = Delta, and there are at
    most |E| matchings (002 Theorem 6).  Raises ``TypeError``/``ValueError`` on a bad
    key or a weight that is not a positive int.
    """
    _validate(weights)
    real = sorted(weights)
    if not real:
        return []
    graph = _Bipartite.of(weights, real)
    _regularise(graph)                       # 1. every vertex of weighted degree Delta
    colours = _peel(graph, len(real))        # 2. matchings, their dummy edges dropped
    result = _merge(real, colours)           # 3. identical matchings become one
    check_coloring(weights, result)
    return result


@dataclass
class _Bipartite:
    """The graph being peeled: edge e goes from sender ``tail[e]`` to receiver
    ``head[e]`` (indices, both sides padded to ``n`` vertices) with weight ``wt[e]``;
    the real edges come first, the dummy edges of :func:`_regularise` after them."""

    tail: list[int]
    head: list[int]
    wt: list[int]
    n: int
    delta: int

    @classmethod
    def of(cls, weights: Mapping[Edge, int], real: list[Edge]) -> "_Bipartite":
        s_index = {j: i for i, j in enumerate(sorted({j for j, _ in real}))}
        r_index = {k: i for i, k in enumerate(sorted({k for _, k in real}))}
        n = max(len(s_index), len(r_index))  # vertices per side after padding
        tail = [s_index[j] for j, _ in real]
        head = [r_index[k] for _, k in real]
        wt = [weights[e] for e in real]
        out_deg, in_deg = _degrees(tail, head, wt, n)
        return cls(tail, head, wt, n, max(max(out_deg), max(in_deg)))

    def add(self, t: int, h: int, w: int) -> None:
        self.tail.append(t)
        self.head.append(h)
        self.wt.append(w)


def _degrees(tail, head, wt, n: int) -> tuple[list[int], list[int]]:
    out_deg = [0] * n
    in_deg = [0] * n
    for t, h, w in zip(tail, head, wt):
        out_deg[t] += w
        in_deg[h] += w
    return out_deg, in_deg


def _regularise(g: _Bipartite) -> None:
    """Give every deficient vertex dummy edges up to weighted degree Delta.  Padding
    vertices have degree 0, hence deficit Delta.  The north-west corner rule pairs the
    deficits along a staircase, which is a forest: that is what keeps the number of
    matchings <= |E| (proofs/edge-coloring.md)."""
    out_deg, in_deg = _degrees(g.tail, g.head, g.wt, g.n)
    need_out = [(i, g.delta - d) for i, d in enumerate(out_deg) if d < g.delta]
    need_in = [(i, g.delta - d) for i, d in enumerate(in_deg) if d < g.delta]
    a = b = 0
    rest_out = need_out[0][1] if need_out else 0
    rest_in = need_in[0][1] if need_in else 0
    while a < len(need_out) and b < len(need_in):
        w = min(rest_out, rest_in)
        g.add(need_out[a][0], need_in[b][0], w)
        rest_out -= w
        rest_in -= w
        if rest_out == 0:
            a += 1
            rest_out = need_out[a][1] if a < len(need_out) else 0
        if rest_in == 0:
            b += 1
            rest_in = need_in[b][1] if b < len(need_in) else 0
    if a != len(need_out) or b != len(need_in):  # total deficits are equal: n*Delta - W
        raise AssertionError("regularisation left a deficit (internal error)")


def _peel(g: _Bipartite, n_real: int) -> list[tuple[tuple[int, ...], int]]:
    """Peel the Delta-regular graph ``g``: a perfect matching on its support, used for
    its smallest weight mu, subtracted, repaired; until no weight is left.  Returns
    (real edge ids, mu) per matching (``g.wt`` is consumed)."""
    # Support of the regular multigraph: live edge ids per sender (dicts keep order).
    adj: list[dict[int, None]] = [{} for _ in range(g.n)]
    for e, t in enumerate(g.tail):
        adj[t][e] = None
    mate_out, mate_in = _perfect_matching(g, adj)
    colours: list[tuple[tuple[int, ...], int]] = []
    remaining = g.delta
    while True:
        mu = min(g.wt[e] for e in mate_out)
        colours.append((tuple(e for e in mate_out if e < n_real), mu))
        remaining -= mu
        freed = _subtract(g, adj, mate_out, mate_in, mu)
        if remaining == 0:
            if any(adj[u] for u in range(g.n)):
                raise AssertionError("peeling ended with weight left (internal error)")
            return colours
        for u in freed:
            _augment(u, adj, g.head, g.tail, mate_out, mate_in)


def _perfect_matching(g: _Bipartite, adj) -> tuple[list[int], list[int]]:
    """mate_out[u] / mate_in[v]: the matched edge at sender u / receiver v; a greedy
    start, then one augmenting path per sender left free."""
    mate_out = [-1] * g.n
    mate_in = [-1] * g.n
    for u in range(g.n):
        for e in adj[u]:
            if mate_in[g.head[e]] < 0:
                mate_out[u] = e
                mate_in[g.head[e]] = e
                break
    for u in range(g.n):
        if mate_out[u] < 0:
            _augment(u, adj, g.head, g.tail, mate_out, mate_in)
    return mate_out, mate_in


def _subtract(g: _Bipartite, adj, mate_out, mate_in, mu: int) -> list[int]:
    """Use the matching for ``mu``: lower its edges' weights, drop (and unmatch) the
    edges that reach 0; returns the senders so freed."""
    freed = []
    for u, e in enumerate(mate_out):
        g.wt[e] -= mu
        if g.wt[e] == 0:
            del adj[u][e]
            mate_out[u] = -1
            mate_in[g.head[e]] = -1
            freed.append(u)
    return freed


def _merge(real: list[Edge], colours) -> list[Matching]:
    """Matchings with the same real edges become one, their weights added.  Every colour
    keeps a real edge: a vertex of degree Delta has no dummy edge and is always
    matched."""
    merged: dict[tuple[int, ...], int] = {}
    for edges, mu in colours:
        key = tuple(sorted(edges))
        merged[key] = merged.get(key, 0) + mu
    return [Matching(tuple(real[e] for e in key), mu) for key, mu in merged.items()]


def _augment(root: int, adj, head, tail, mate_out, mate_in) -> None:
    """Match the free sender ``root`` by a shortest augmenting path (BFS).  One always
    exists: the support of a regular weighting has a perfect matching, and in its
    symmetric difference with the current matching ``root`` starts an augmenting path."""
    via = {}  # receiver -> edge by which the search reached it
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for e in adj[u]:
            v = head[e]
            if v in via:
                continue
            via[v] = e
            m = mate_in[v]
            if m < 0:
                while True:  # flip the path back to the root
                    e = via[v]
                    u = tail[e]
                    prev = mate_out[u]
                    mate_out[u] = e
                    mate_in[v] = e
                    if u == root:
                        return
                    v = head[prev]
            queue.append(tail[m])
    raise AssertionError("no perfect matching on a regular support (internal error)")


def check_coloring(weights: Mapping[Edge, int], matchings: list[Matching]) -> None:
    """Runtime postcondition of Theorem 6 (002 §5.4.1); raises AssertionError naming the
    first violation: a weight mu_i that is not a positive int, a matching in which two
    edges share a sender or a receiver, an edge that is not in ``weights``, an edge whose
    matchings do not add up to its weight, sum(mu_i) != Delta, or more than |E|
    matchings."""
    covered: dict[Edge, int] = {}
    total = 0
    for i, m in enumerate(matchings):
        if isinstance(m.weight, bool) or not isinstance(m.weight, int) or m.weight <= 0:
            raise AssertionError(f"matching {i}: weight {m.weight!r} is not a positive int")
        seen_out: dict[str, Edge] = {}
        seen_in: dict[str, Edge] = {}
        for edge in m.edges:
            j, k = edge
            if edge not in weights:
                raise AssertionError(f"matching {i}: edge {edge!r} is not in the graph")
            if j in seen_out:
                raise AssertionError(
                    f"matching {i}: edges {seen_out[j]!r} and {edge!r} share sender {j!r}")
            if k in seen_in:
                raise AssertionError(
                    f"matching {i}: edges {seen_in[k]!r} and {edge!r} share receiver {k!r}")
            seen_out[j] = seen_in[k] = edge
            covered[edge] = covered.get(edge, 0) + m.weight
        total += m.weight
    for edge in sorted(weights):
        got = covered.get(edge, 0)
        if got != weights[edge]:
            raise AssertionError(
                f"edge {edge!r}: matchings cover {got}, its weight is {weights[edge]}")
    delta = max_weighted_degree(weights)
    if total != delta:
        raise AssertionError(f"sum of matching weights {total} != max weighted degree {delta}")
    if len(matchings) > len(weights):
        raise AssertionError(f"{len(matchings)} matchings > |E| = {len(weights)}")


def pour(capacities, demands):
    """Fill slots (index, room) with demands (tree, count) in order; the totals are
    equal.  Yields (slot, tree, count); at most len(slots) + len(demands) - 1 pieces."""
    slots = iter(capacities)
    i, room = next(slots)
    for tree, count in demands:
        while count:
            while room == 0:
                i, room = next(slots)
            piece = min(room, count)
            yield i, tree, piece
            room -= piece
            count -= piece
