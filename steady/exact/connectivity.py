"""Root connectivity of rates n: does every destination receive ``level`` from the
source through capacities n?  (002 §5.3, Lemmas 2-3: max-flow/min-cut; proofs/
spread-cuts.md for the propagation rule.)

Checking every destination by a max-flow costs |V| max-flows.  Most are not needed:

    **Propagation rule.**  If nodes u_1..u_k each receive ``level`` (max-flow from the
    source >= level) and n(u_1,d) + ... + n(u_k,d) >= level, then d receives ``level``.

(A cut S separating d from the source either leaves some u_i outside S -- then it
separates u_i too and has capacity >= level -- or holds them all, and then the arcs
(u_i, d) cross it.)  Starting from the source, the rule settles in O(|E|) every node that
a DAG-like part of n feeds; only the others need a max-flow, and each node settled by a
max-flow feeds the rule again.  The float version guides a search; the exact version
(integers after scaling, OR-Tools' int64 max-flow or a big-integer Dinic) is part of a
certificate.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..numbers import lcm_of_denominators
from .maxflow import FlowNetwork

#: Float max-flows are computed on capacities scaled by this power of two.
_FLOAT_SCALE = 2**40


class Propagation:
    """The propagation rule over a platform's arcs (indices into ``platform.arcs``)."""

    def __init__(self, platform):
        self.platform = platform
        self.nodes = list(platform.nodes)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        self.arcs = list(platform.arcs)
        self.tails = [self.index[u] for u, _ in self.arcs]
        self.heads = [self.index[v] for _, v in self.arcs]
        self.out = [[] for _ in self.nodes]
        self.inn = [[] for _ in self.nodes]
        for k, (u, v) in enumerate(zip(self.tails, self.heads)):
            self.out[u].append(k)
            self.inn[v].append(k)
        self.source = self.index[platform.source]
        self.arc_index = {a: k for k, a in enumerate(self.arcs)}
        # the arcs' ends as arrays, for the thousands of flow networks built on them
        self.ends = (np.array(self.tails, dtype=np.int32),
                     np.array(self.heads, dtype=np.int32))

    def settle(self, caps, level, settled=None, acc=None, start=None):
        """Spread the rule from ``start`` (default: the source) with capacities
        ``caps`` (per arc index; ints or floats, same units as ``level``).  Updates and
        returns (settled flags, accumulated in-flow from settled nodes)."""
        if settled is None:
            settled = [False] * len(self.nodes)
            acc = [0] * len(self.nodes)
            start = self.source
            settled[start] = True
        queue = [start]
        for u in queue:
            for k in self.out[u]:
                c = caps[k]
                if c:
                    h = self.heads[k]
                    acc[h] += c
                    if not settled[h] and acc[h] >= level:
                        settled[h] = True
                        queue.append(h)
        return settled, acc


def float_shortfalls(prop: Propagation, n, need, level: float, tolerance: float = 1e-9):
    """Float search: destinations d whose max-flow through rates ``n`` (per arc index)
    is below ``need[d]`` (by more than ``tolerance`` relative), with a minimum cut for
    each: a list of (destination name, flow, source sides of its minimum cuts nearest
    the source and nearest to it).  Nodes settled at ``level``
    (>= every need) are never checked by a max-flow."""
    caps = [max(0, int(round(x * _FLOAT_SCALE))) for x in n]
    big = int(level * _FLOAT_SCALE)
    settled, acc = prop.settle(caps, big)
    network = None
    short = []
    order = sorted((d for d in range(len(prop.nodes)) if not settled[d]),
                   key=lambda d: -acc[d])
    for d in order:
        if settled[d]:
            continue
        if network is None:
            network = FlowNetwork(prop.nodes, prop.platform.source, prop.arcs, caps,
                                  prop.ends)
        flow = network.max_flow(prop.nodes[d])
        if flow >= big:
            settled[d] = True
            prop.settle(caps, big, settled, acc, d)
        elif flow < need[d] * _FLOAT_SCALE * (1 - tolerance):
            _, side = network.min_cut(prop.nodes[d])
            sides = [side]
            far = network.sink_side()  # the minimum cut nearest to d
            if far is not None and far != side:
                sides.append(far)
            short.append((prop.nodes[d], flow / _FLOAT_SCALE, sides))
    return short


def exact_shortfall(platform, n: dict, level: Fraction):
    """Exactly: None when every destination receives ``level`` through the rates ``n``
    ({arc: Fraction}); otherwise (destination, its max-flow, a minimum cut's source
    side) for one destination that does not."""
    prop = Propagation(platform)
    values = [Fraction(n.get(arc, 0)) for arc in prop.arcs]
    if any(v < 0 for v in values):
        raise ValueError("negative rate")
    scale = lcm_of_denominators(values + [Fraction(level)])
    short = integer_shortfall(prop, [int(v * scale) for v in values], int(level * scale))
    return None if short is None else (short[0], Fraction(short[1], scale), short[2])


def integer_shortfall(prop: Propagation, caps: list, need: int, suspect=None):
    """Exactly, on integer capacities (per arc index of ``prop``): None when every
    destination receives ``need``, else (destination, max-flow, a minimum cut's
    source side) for one that does not: the first in ``prop.nodes``' order, with the
    source side of its minimum cut nearest the source (both depend on the capacities
    alone).

    ``suspect``: a node that is short whenever any destination is (the caller knows
    it: e.g. capacities that had the property lost it only on links into it, see
    :mod:`steady.schedule.count_search`); then its max-flow alone decides when it
    receives ``need``, and otherwise only the nodes before it are checked (the same
    answer, fewer max-flows)."""
    values = caps.tolist() if isinstance(caps, np.ndarray) else caps
    last = len(prop.nodes)
    if suspect is not None:
        if suspect == prop.platform.source:
            return None   # no source-side set loses a link into the source
        network = FlowNetwork(prop.nodes, prop.platform.source, prop.arcs, caps, prop.ends)
        flow = network.max_flow(suspect)
        if flow >= need:
            return None
        last = prop.index[suspect]
        found = suspect, flow, network.min_cut(suspect)[1]
    settled, acc = prop.settle(values, need)
    network = None
    for d in range(last):
        if settled[d]:
            continue
        if network is None:
            network = FlowNetwork(prop.nodes, prop.platform.source, prop.arcs, caps,
                                  prop.ends)
        flow = network.max_flow(prop.nodes[d])
        if flow < need:
            _, side = network.min_cut(prop.nodes[d])
            return prop.nodes[d], flow, side
        settled[d] = True
        prop.settle(values, need, settled, acc, d)
    return None if suspect is None else found
