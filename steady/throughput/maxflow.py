"""Max-flow from the source to each destination, for min-cut separation and for the
exact primal check of a rate vector n (002 §5.3, Lemma 2: every destination must be
able to receive TP from the source through capacities n).

OR-Tools' C++ max-flow works on int64 capacities: floats are scaled (a search only),
exact rationals are scaled by the lcm of their denominators (exact).  Capacities too
large for int64 go to networkx, which computes with Python integers.
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

    def __init__(self, nodes, source, arcs, capacities):
        self.nodes = list(nodes)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        self.source = source
        # Arcs without capacity carry nothing: dropping them keeps the networks small
        # (an LP vertex uses few links).
        kept = [(a, int(c)) for a, c in zip(arcs, capacities) if c > 0]
        self.arcs = [a for a, _ in kept]
        self.capacities = [c for _, c in kept]
        self._python = sum(self.capacities) >= _INT64_SAFE
        if self._python:
            self._graph, self._residual = self._nx_networks()
        else:
            self._smf = max_flow.SimpleMaxFlow()
            tails = np.array([self.index[u] for u, _ in self.arcs], dtype=np.int32)
            heads = np.array([self.index[v] for _, v in self.arcs], dtype=np.int32)
            self._smf.add_arcs_with_capacity(tails, heads,
                                             np.array(self.capacities, dtype=np.int64))

    def max_flow(self, sink) -> int:
        if self._python:
            return self._nx_cut(sink)[0]
        status = self._smf.solve(self.index[self.source], self.index[sink])
        if status != self._smf.OPTIMAL:  # pragma: no cover - capacities are valid
            raise RuntimeError(f"max-flow failed with status {status}")
        return self._smf.optimal_flow()

    def min_cut(self, sink) -> tuple[int, frozenset]:
        """(value, source side S) of a minimum S-cut separating ``sink``."""
        if self._python:
            return self._nx_cut(sink)
        value = self.max_flow(sink)
        side = self._smf.get_source_side_min_cut()
        return value, frozenset(self.nodes[i] for i in side)

    def _nx_networks(self):
        import networkx as nx
        from networkx.algorithms.flow import build_residual_network

        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        for (u, v), c in zip(self.arcs, self.capacities):
            graph.add_edge(u, v, capacity=c)
        return graph, build_residual_network(graph, "capacity")

    def _nx_cut(self, sink):
        import networkx as nx
        from networkx.algorithms.flow import preflow_push

        value, (side, _) = nx.minimum_cut(self._graph, self.source, sink,
                                          flow_func=preflow_push, residual=self._residual)
        return value, frozenset(side)


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
