"""Weighted branchings: broadcast trees with integer weights (002 §5.3, Theorem 5).

Given integer capacities on the links whose root-connectivity is at least k (every
destination can receive a flow of k from the source), find spanning arborescences T_l
rooted at the source with positive integer weights λ_l such that sum λ_l = k and every
link carries at most its capacity: sum over the trees using it of λ_l <= capacity.
With capacities N·n and k = N·TP from an exact SSB(G) optimum this is 002 Lemma 4.

:func:`weighted_branchings` is the combinatorial construction (the weighted form of
Lovász's proof of Edmonds' branching theorem; proofs/weighted-branchings.md): grow one
tree arc by arc from the source, giving each new arc the largest weight μ that keeps the
rest completable — after reserving μ on the tree's arcs, the remaining capacities still
have root-connectivity >= k - μ, checked by exact max-flows — and shrink the tree's weight
to μ when only part of it fits.  Exact integers throughout.

:func:`steady.throughput.compact_trees` then reduces such a family to a basic solution
of the port rows (at most 2|V| - 1 trees; the paper's bound is |V|^3 + |E|).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from ortools.graph.python import max_flow

from ..exact.connectivity import Propagation, integer_shortfall
from ..exact.maxflow import FlowNetwork


def weighted_branchings(platform, capacities: Mapping[tuple[str, str], int],
                        k: int) -> list[tuple[dict, int]]:
    """Trees (child -> parent) with positive integer weights summing to ``k`` that fit
    in ``capacities`` (002 Thm 5).  Raises ValueError when some destination cannot
    receive ``k`` through the capacities (then no such family exists)."""
    cap = {arc: int(capacities.get(arc, 0)) for arc in platform.arcs}
    if any(c < 0 for c in cap.values()) or k < 0:
        raise ValueError("capacities and k must be non-negative integers")
    weakest = root_connectivity(platform, cap)
    if weakest < k:
        raise ValueError(f"root-connectivity {weakest} < k = {k}: no {k} trees fit")
    trees = []
    remaining = k
    prop = Propagation(platform)
    while remaining > 0:
        parent, weight = _grow_tree(platform, cap, remaining, prop)
        for child, par in parent.items():
            cap[(par, child)] -= weight
        trees.append((parent, weight))
        remaining -= weight
    check_branchings(platform, capacities, k, trees)
    return trees


def root_connectivity(platform, cap) -> int:
    """min over destinations of the max-flow from the source through ``cap``."""
    network = FlowNetwork(platform.nodes, platform.source, platform.arcs,
                          [cap.get(a, 0) for a in platform.arcs])
    return min(network.max_flow(d) for d in platform.destinations)


def _grow_tree(platform, cap, k, prop=None) -> tuple[dict, int]:
    """One tree and its weight; invariant: the remaining capacities, minus the weight on
    the tree's arcs, keep root-connectivity >= k - weight."""
    prop = prop or Propagation(platform)
    parent: dict[str, str] = {}
    reached = {platform.source}
    weight = k
    base = capacity_vector(prop, cap)   # cap changes only between trees
    while len(reached) < len(platform.nodes):
        for link in platform.links:
            if link.tail in reached and link.head not in reached and cap[link.arc] > 0:
                mu = _largest_weight(prop, cap, k, parent, link.arc,
                                     min(weight, cap[link.arc]), base)
                if mu > 0:
                    break
        else:  # pragma: no cover - excluded by the theorem (proofs/weighted-branchings.md)
            raise AssertionError("no arc can extend the tree: invariant broken")
        weight = mu
        parent[link.head] = link.tail
        reached.add(link.head)
    return parent, weight


def can_extend(prop, cap, k: int, parent: dict, arc) -> bool:
    """Whether the tree ``parent`` (child -> parent) can take ``arc`` with weight 1 and
    still leave room for the other k - 1 trees: after reserving 1 on its links and
    ``arc``, the capacities ``cap`` keep root-connectivity >= k - 1 (the step of
    Lovász's proof; :mod:`steady.schedule.regrow` grows unit trees with it)."""
    return _largest_weight(prop, cap, k, parent, arc, 1) > 0


#: Capacities below this go to the connectivity checks as an int64 array (message
#: counts always do); larger ones as Python integers.
SMALL_CAPACITY = 2 ** 40


def capacity_vector(prop, cap):
    """``cap`` ({arc: int}) per arc index of ``prop``: an int64 array when every value
    is below :data:`SMALL_CAPACITY` (the checks then build their networks at C speed),
    else a list."""
    values = [cap[a] for a in prop.arcs]
    if values and max(values) < SMALL_CAPACITY and min(values) >= 0:
        return np.array(values, dtype=np.int64)
    return values


def _largest_weight(prop, cap, k, parent, arc, mu, base=None, full=None) -> int:
    """Largest μ' <= μ such that reserving μ' on the tree's arcs plus ``arc`` leaves
    root-connectivity >= k - μ'.  A violated cut X (entered j times by those arcs, with
    capacity ρ(X) >= k before reserving) bounds μ' <= (ρ(X) - k) / (j - 1); each round
    jumps to that bound (a Newton step on a concave piecewise-linear function).  The
    check settles most destinations by the propagation rule and max-flows only the
    others (:mod:`steady.exact.connectivity`: on 1000 nodes, millions of max-flows
    otherwise).

    The tree ``parent`` fits with weight ``mu`` already (invariant (I) of
    proofs/weighted-branchings.md, which both callers keep), so a violated cut is one
    that ``arc`` enters: it holds ``arc``'s head, and the max-flow to that head alone
    decides (proofs/weighted-branchings.md, "One max-flow per step"; the same μ as the
    check of every destination, which ``full`` (default :data:`FULL_CHECK`) makes)."""
    if base is None:
        base = capacity_vector(prop, cap)
    vector = isinstance(base, np.ndarray)
    on_tree = np.zeros(len(prop.arcs), dtype=bool) if vector else [False] * len(prop.arcs)
    for c, p in parent.items():
        on_tree[prop.arc_index[(p, c)]] = True
    on_tree[prop.arc_index[arc]] = True
    while mu > 0:
        caps = (base - mu * on_tree if vector
                else [c - mu if t else c for c, t in zip(base, on_tree)])
        if FULL_CHECK if full is None else full:
            short = integer_shortfall(prop, caps, k - mu)
            side = None if short is None else short[2]
        else:
            side = _head_shortfall(prop, caps, k - mu, arc[1])
        if side is None:
            return mu
        rho, j = _crossing(prop, side, base, on_tree)
        if j < 2 or rho < k:  # pragma: no cover - see the docstring
            raise AssertionError("violated cut entered fewer than twice by the tree")
        mu = min(mu - 1, (rho - k) // (j - 1))
    return 0


#: Check every destination at each step of :func:`_largest_weight` instead of the new
#: arc's head alone (the same result, ~25 times the max-flows; tests compare the two).
FULL_CHECK = False


def _head_shortfall(prop, caps, need: int, head: str):
    """None when ``head`` receives ``need`` through ``caps`` (per arc index of
    ``prop``), else the source side of a minimum cut separating it (exact max-flow).
    Capacities given as an int64 array go to one OR-Tools network per ``prop``, its
    capacities reset for each check (:func:`_reused_shortfall`)."""
    if isinstance(caps, np.ndarray):
        return _reused_shortfall(prop, caps, need, head)
    network = FlowNetwork(prop.nodes, prop.platform.source, prop.arcs, caps, prop.ends)
    if network.max_flow(head) >= need:
        return None
    return network.min_cut(head)[1]


#: The OR-Tools network of the last :class:`Propagation` checked (that very object),
#: with every arc of the platform (zero capacities included) and its arc indices.
_REUSED: list = [None, None, None]


def _reused_shortfall(prop, caps, need: int, head: str):
    """:func:`_head_shortfall` on int64 capacities (below :data:`SMALL_CAPACITY`, so
    their sum fits int64) without building a network: the max-flow value and the
    source side of OR-Tools' cut (the nodes the source reaches in the residual graph,
    the same for every maximum flow and unchanged by arcs of capacity 0) are those of
    the :class:`~steady.exact.maxflow.FlowNetwork` that drops the empty arcs."""
    if _REUSED[0] is not prop:
        flow = max_flow.SimpleMaxFlow()
        tails, heads = prop.ends
        arcs = flow.add_arcs_with_capacity(tails, heads, np.zeros(len(tails), np.int64))
        flow.add_arc_with_capacity(0, len(prop.nodes) - 1, 0)   # every node known
        _REUSED[:] = [prop, flow, np.asarray(arcs, dtype=np.int32)]
    _, flow, arcs = _REUSED
    flow.set_arcs_capacity(arcs, np.maximum(caps, 0))
    status = flow.solve(prop.source, prop.index[head])
    if status != flow.OPTIMAL:  # pragma: no cover - capacities are valid
        raise RuntimeError(f"max-flow failed with status {status}")
    if flow.optimal_flow() >= need:
        return None
    return frozenset(prop.nodes[i] for i in flow.get_source_side_min_cut())


def _crossing(prop, side, cap, on_tree) -> tuple[int, int]:
    """(capacity of the arcs leaving ``side``, how many of them are on the tree), from
    the out-arcs of the side's nodes (the side is the source's, usually small)."""
    index, heads = prop.index, prop.heads
    inside = [False] * len(prop.nodes)
    for v in side:
        inside[index[v]] = True
    rho = j = 0
    for v in side:
        for e in prop.out[index[v]]:
            if not inside[heads[e]]:
                rho += int(cap[e])
                j += bool(on_tree[e])
    return rho, j


def check_branchings(platform, capacities, k, trees) -> None:
    """Postcondition of Thm 5: spanning arborescences rooted at the source, positive
    integer weights summing to k, capacities respected on every link."""
    used: dict[tuple[str, str], int] = {}
    total = 0
    for parent, weight in trees:
        platform.check_arborescence(parent, "<branchings>")
        if not isinstance(weight, int) or weight <= 0:
            raise AssertionError(f"tree weight {weight!r} is not a positive integer")
        total += weight
        for child, par in parent.items():
            used[(par, child)] = used.get((par, child), 0) + weight
    if total != k:
        raise AssertionError(f"tree weights sum to {total}, not {k}")
    for arc, load in used.items():
        if load > capacities.get(arc, 0):
            raise AssertionError(f"link {arc[0]}->{arc[1]} carries {load} > capacity "
                                 f"{capacities.get(arc, 0)}")
