"""Max-flow from the source to each destination, for min-cut separation and for the
exact primal check of a rate vector n (002 §5.3, Lemma 2: every destination must be
able to receive TP from the source through capacities n).

OR-Tools' C++ max-flow works on int64 capacities: floats are scaled (a search only),
exact rationals are scaled by the lcm of their denominators (exact).  Capacities too
large for int64 (exact LP vertices often need ~1000-bit integers) go to a small Dinic
max-flow on Python integers over the arcs that carry capacity.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from ortools.graph.python import max_flow

from ..numbers import lcm_of_denominators

_INT64_SAFE = 2**61
_FLOAT_SCALE = 2**40


class FlowNetwork:
    """The platform's arcs with integer capacities; max-flow to any sink, min cuts."""

    def __init__(self, nodes, source, arcs, capacities, ends=None):
        """``ends``: optionally the (tail, head) node indices of ``arcs`` already known
        (the connectivity checks build thousands of networks on one platform)."""
        self.nodes = list(nodes)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        self.source = source
        # Arcs without capacity carry nothing: dropping them keeps the networks small
        # (an LP vertex uses few links).
        arcs = arcs if isinstance(arcs, (list, tuple)) else list(arcs)
        if isinstance(capacities, np.ndarray):   # int64 from a caller that checked them
            keep = np.flatnonzero(capacities > 0)
            self.capacities = capacities[keep].tolist()
            keep = keep.tolist()
        else:
            keep, self.capacities = [], []
            for i, c in enumerate(capacities):
                if c > 0:
                    keep.append(i)
                    self.capacities.append(int(c))
        self.arcs = [arcs[i] for i in keep]
        self._python = sum(self.capacities) >= _INT64_SAFE
        if ends is None:
            ends = ([self.index[u] for u, _ in arcs], [self.index[v] for _, v in arcs])
        if self._python:
            self._dinic = _Dinic(len(self.nodes), [(ends[0][i], ends[1][i]) for i in keep],
                                 self.capacities)
        else:
            self._smf = max_flow.SimpleMaxFlow()
            # A last arc of capacity 0 makes OR-Tools know every node (it sizes its
            # graph by the largest index it saw): a sink or a source without links that
            # carry capacity still gets a max-flow of 0 and a cut containing the source.
            last = len(self.nodes) - 1
            tails, heads = (np.asarray(e, dtype=np.int32)[keep] for e in ends)
            tails = np.append(tails, 0).astype(np.int32)
            heads = np.append(heads, last).astype(np.int32)
            self._smf.add_arcs_with_capacity(tails, heads,
                                             np.array(self.capacities + [0], dtype=np.int64))

    def max_flow(self, sink) -> int:
        if self._python:
            return self._dinic.max_flow(self.index[self.source], self.index[sink])
        status = self._smf.solve(self.index[self.source], self.index[sink])
        if status != self._smf.OPTIMAL:  # pragma: no cover - capacities are valid
            raise RuntimeError(f"max-flow failed with status {status}")
        return self._smf.optimal_flow()

    def sink_side(self) -> frozenset | None:
        """After :meth:`max_flow`: the source side of the minimum cut nearest to the
        sink (all nodes but those that reach the sink in the residual graph); None on
        the big-integer path."""
        if self._python:
            return None
        near = set(self._smf.get_sink_side_min_cut())
        return frozenset(v for i, v in enumerate(self.nodes) if i not in near)

    def min_cut(self, sink) -> tuple[int, frozenset]:
        """(value, source side S) of a minimum S-cut separating ``sink``."""
        if self._python:
            value = self.max_flow(sink)
            return value, frozenset(self.nodes[i] for i in self._dinic.source_side())
        value = self.max_flow(sink)
        side = self._smf.get_source_side_min_cut()
        return value, frozenset(self.nodes[i] for i in side)


class _Dinic:
    """Dinic's blocking-flow max-flow on integer capacities of any size."""

    def __init__(self, n, arcs, capacities):
        self.n = n
        self.head, self.original, self.adjacent = [], [], [[] for _ in range(n)]
        for (u, v), c in zip(arcs, capacities):
            self.adjacent[u].append(len(self.head))
            self.head.append(v)
            self.original.append(c)
            self.adjacent[v].append(len(self.head))
            self.head.append(u)
            self.original.append(0)
        self.residual = list(self.original)
        self.source = 0

    def max_flow(self, s, t) -> int:
        self.residual = list(self.original)
        self.source = s
        total = 0
        while True:
            level = self._levels(s)
            if level[t] < 0:
                return total
            cursor = [0] * self.n
            while True:
                pushed = self._augment(s, t, level, cursor)
                if not pushed:
                    break
                total += pushed

    def _levels(self, s):
        level = [-1] * self.n
        level[s] = 0
        queue = [s]
        for u in queue:
            for e in self.adjacent[u]:
                v = self.head[e]
                if self.residual[e] > 0 and level[v] < 0:
                    level[v] = level[u] + 1
                    queue.append(v)
        return level

    def _augment(self, s, t, level, cursor) -> int:
        """One augmenting path in the level graph (iterative DFS with cursors)."""
        path = []
        u = s
        while True:
            if u == t:
                pushed = min(self.residual[e] for e in path)
                for e in path:
                    self.residual[e] -= pushed
                    self.residual[e ^ 1] += pushed
                return pushed
            edges = self.adjacent[u]
            while cursor[u] < len(edges):
                e = edges[cursor[u]]
                v = self.head[e]
                if self.residual[e] > 0 and level[v] == level[u] + 1:
                    break
                cursor[u] += 1
            else:
                if u == s:
                    return 0
                level[u] = -1  # dead end: never enter it again in this phase
                e = path.pop()
                u = self.head[e ^ 1]
                cursor[u] += 1
                continue
            path.append(e)
            u = self.head[e]

    def source_side(self):
        """Nodes reachable from the source in the residual graph of the last flow."""
        seen = {self.source}
        stack = [self.source]
        while stack:
            u = stack.pop()
            for e in self.adjacent[u]:
                v = self.head[e]
                if self.residual[e] > 0 and v not in seen:
                    seen.add(v)
                    stack.append(v)
        return seen


def float_network(platform, n: dict) -> tuple[FlowNetwork, int]:
    """Capacities n (floats) scaled to integers; returns (network, scale)."""
    arcs = platform.arcs
    caps = [max(0, int(round(n.get(a, 0.0) * _FLOAT_SCALE))) for a in arcs]
    return FlowNetwork(platform.nodes, platform.source, arcs, caps), _FLOAT_SCALE


def exact_network(platform, n: dict, extra=()) -> tuple[FlowNetwork, int]:
    """Capacities N·n in integers, N the lcm of the denominators of n and ``extra``."""
    arcs = platform.arcs
    values = [Fraction(n.get(a, 0)) for a in arcs]
    scale = lcm_of_denominators(list(values) + list(extra))
    caps = [int(v * scale) for v in values]
    return FlowNetwork(platform.nodes, platform.source, arcs, caps), scale


def weakest_destination(platform, n: dict) -> tuple[Fraction, str, frozenset]:
    """Exactly: the smallest max-flow any destination can receive through n, the
    destination, and a minimum cut (source side) achieving it."""
    network, scale = exact_network(platform, n)
    best = None
    for d in platform.destinations:
        value = network.max_flow(d)
        if best is None or value < best[0]:
            best = (value, d)
    value, cut = network.min_cut(best[1])
    return Fraction(value, scale), best[1], cut
