"""Minimum-cost spanning arborescence (Chu-Liu / Edmonds).

The optimality certificate of the steady-state throughput (002 §5.2 with §5.3's
branchings, see ``proofs/certificate.md``) says: port prices y >= 0 such that every
spanning arborescence rooted at the source costs >= 1 under the arc weights
c_{j,k} (y_j^out + y_k^in).  Checking it is one minimum-arborescence computation.

The routine is generic in the number type: floats inside a search, ints or Fractions
for an exact answer (only +, - and comparisons are used, so exact weights stay exact).
Each contraction round works on flat lists, O(|E|) per round.
"""

from __future__ import annotations

from typing import Sequence


def minimum_arborescence(n: int, root: int, arcs: Sequence[tuple[int, int, object]]):
    """Cheapest spanning arborescence of nodes ``0..n-1`` rooted at ``root``.

    ``arcs`` is a list of ``(tail, head, weight)``.  Returns ``(cost, chosen)`` where
    ``chosen`` lists one arc index per non-root node (the arc entering it), or ``None``
    when some node is unreachable.  Ties are broken by the lowest arc index, so the
    answer is deterministic.
    """
    level_arcs = [(u, v, w, i) for i, (u, v, w) in enumerate(arcs) if v != root and u != v]
    levels = []  # (arcs, best, cycles, node_map) of each contracted level
    nodes, r = n, root
    while True:
        best = [-1] * nodes
        for idx, (u, v, w, _) in enumerate(level_arcs):
            b = best[v]
            if b < 0 or w < level_arcs[b][2]:
                best[v] = idx
        for v in range(nodes):
            if v != r and best[v] < 0:
                return None
        cycles = _cycles(nodes, r, best, level_arcs)
        if not cycles:
            chosen = [best[v] for v in range(nodes) if v != r]
            break
        node_map, count = _contraction_map(nodes, cycles)
        new_arcs = []
        for idx, (u, v, w, _) in enumerate(level_arcs):
            cu, cv = node_map[u], node_map[v]
            if cu != cv:
                new_arcs.append((cu, cv, w - level_arcs[best[v]][2], idx))
        levels.append((level_arcs, best, cycles, node_map))
        level_arcs, nodes, r = new_arcs, count, node_map[r]
    # Expand: map chosen arcs back level by level; inside each cycle keep the cycle
    # arcs except the one entering the node where the chosen arc enters the cycle.
    while levels:
        prev_arcs, best, cycles, node_map = levels.pop()
        picked = [level_arcs[c][3] for c in chosen]
        entered = {prev_arcs[a][1] for a in picked}
        for cycle in cycles:
            picked.extend(best[v] for v in cycle if v not in entered)
        chosen, level_arcs = picked, prev_arcs
    original = [level_arcs[c][3] for c in chosen]
    cost = sum((arcs[i][2] for i in original), 0)
    return cost, original


def _cycles(nodes: int, root: int, best, arcs):
    """Cycles of the graph formed by each node's chosen in-arc."""
    color = [0] * nodes  # 0 new, 1 on the current walk, 2 done
    color[root] = 2
    cycles = []
    for start in range(nodes):
        walk = []
        v = start
        while color[v] == 0:
            color[v] = 1
            walk.append(v)
            v = arcs[best[v]][0]
        if color[v] == 1:  # closed a new cycle at v
            cycles.append(walk[walk.index(v):])
        for x in walk:
            color[x] = 2
    return cycles


def _contraction_map(nodes: int, cycles):
    node_map = [-1] * nodes
    count = 0
    for cycle in cycles:
        for v in cycle:
            node_map[v] = count
        count += 1
    for v in range(nodes):
        if node_map[v] < 0:
            node_map[v] = count
            count += 1
    return node_map, count
