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
    senders = sorted({j for j, _ in real})
    receivers = sorted({k for _, k in real})
    s_index = {j: i for i, j in enumerate(senders)}
    r_index = {k: i for i, k in enumerate(receivers)}
    n = max(len(senders), len(receivers))  # vertices per side after padding

    tail = [s_index[j] for j, _ in real]
    head = [r_index[k] for _, k in real]
    wt = [weights[e] for e in real]
    out_deg = [0] * n
    in_deg = [0] * n
    for t, h, w in zip(tail, head, wt):
        out_deg[t] += w
        in_deg[h] += w
    delta = max(max(out_deg), max(in_deg))

    # 1. Regularise.  Padding vertices have degree 0, hence deficit Delta.  The
    # north-west corner rule pairs the deficits along a staircase, which is a forest:
    # that is what keeps the number of matchings <= |E| (proofs/edge-coloring.md).
    need_out = [(i, delta - d) for i, d in enumerate(out_deg) if d < delta]
    need_in = [(i, delta - d) for i, d in enumerate(in_deg) if d < delta]
    a = b = 0
    rest_out = need_out[0][1] if need_out else 0
    rest_in = need_in[0][1] if need_in else 0
    while a < len(need_out) and b < len(need_in):
        w = min(rest_out, rest_in)
        tail.append(need_out[a][0])
        head.append(need_in[b][0])
        wt.append(w)
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
    n_real = len(real)

    # Support of the regular multigraph: live edge ids per sender (dicts keep order).
    adj: list[dict[int, None]] = [{} for _ in range(n)]
    for e, t in enumerate(tail):
        adj[t][e] = None

    # 2. Perfect matching on the support, then peel.  mate_out[u] / mate_in[v] is the
    # id of the matched edge at sender u / receiver v, or -1.
    mate_out = [-1] * n
    mate_in = [-1] * n
    for u in range(n):  # greedy start, then augment
        for e in adj[u]:
            if mate_in[head[e]] < 0:
                mate_out[u] = e
                mate_in[head[e]] = e
                break
    for u in range(n):
        if mate_out[u] < 0:
            _augment(u, adj, head, tail, mate_out, mate_in)

    colours: list[tuple[tuple[int, ...], int]] = []
    remaining = delta
    while True:
        mu = min(wt[e] for e in mate_out)
        colours.append((tuple(e for e in mate_out if e < n_real), mu))
        remaining -= mu
        freed = []
        for u, e in enumerate(mate_out):
            wt[e] -= mu
            if wt[e] == 0:
                del adj[u][e]
                mate_out[u] = -1
                mate_in[head[e]] = -1
                freed.append(u)
        if remaining == 0:
            if any(adj[u] for u in range(n)):
                raise AssertionError("peeling ended with weight left (internal error)")
            break
        for u in freed:
            _augment(u, adj, head, tail, mate_out, mate_in)

    # 3. Drop dummy edges (done above) and merge identical matchings.  Every colour
    # keeps a real edge: a vertex of degree Delta has no dummy edge and is always matched.
    merged: dict[tuple[int, ...], int] = {}
    for edges, mu in colours:
        key = tuple(sorted(edges))
        merged[key] = merged.get(key, 0) + mu
    result = [Matching(tuple(real[e] for e in key), mu) for key, mu in merged.items()]
    check_coloring(weights, result)
    return result


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
