"""A group of automorphisms acting freely on a collective's roots: one root per orbit
is enough (issue 43; ours; proofs/collectives.md, "Symmetry").

The platform's ``symmetry`` lists generators, each checked link by link to be an
automorphism when the platform was built (:class:`steady.platform.Platform`).  Here the
group they generate is enumerated *along the roots*: from a representative root r, a
breadth-first walk over the generators gives, for every root u of r's orbit, an
element g_u with g_u(r) = u.  The action is free (no element but the identity fixes a
root) exactly when these elements are consistent -- h·g_u = g_{h(u)} for every
generator h and root u -- and then they are the whole group, |G| of them per orbit.
The roots' relative rates must be constant on orbits.

What it buys (proofs/collectives.md): averaging any optimal solution over G gives an
invariant optimal one, so the LP needs only the representatives' trees and one row per
orbit of capacity rows; the other roots' trees are images.  Nothing here is trusted by
the certificate: :func:`steady.certificate.check_collective` re-checks the generators,
the invariance of the prices and every tree.
"""

from __future__ import annotations

import numpy as np


class RootSymmetry:
    """``reps``: one root key (node, direction) per orbit; ``element[(node, dir)]``: the
    permutation (numpy array over ``platform.nodes`` indices) taking the orbit's
    representative node to ``node``; ``order``: |G|; ``generators``: the generators
    as index arrays."""

    def __init__(self, platform, reps, element, order, generators):
        self.platform = platform
        self.reps = reps
        self.element = element
        self.order = order
        self.generators = generators
        self.index = {v: i for i, v in enumerate(platform.nodes)}
        self.node_element = {v: g for (v, _), g in element.items()}
        self.node_reps = list(dict.fromkeys(v for v, _ in reps))
        self._orbits: dict = {}
        for v, g in self.node_element.items():  # the orbit of each representative node
            rep = platform.nodes[np.argsort(g)[self.index[v]]]
            self._orbits.setdefault(rep, []).append((v, g))
        self._compute = None

    @property
    def acts_on_compute(self) -> bool:
        """Every compute node is a root: the routes can be searched per orbit."""
        return set(self.node_element) == set(self.platform.compute_nodes)

    def orbit(self, rep: str) -> list:
        """[(node, g)] with g(rep) = node, over the orbit of the representative rep."""
        return self._orbits[rep]

    def compute_image(self, g) -> list[int]:
        """Compute-node position -> position of its image under g (free on them)."""
        if self._compute is None:
            compute = self.platform.compute_nodes
            where = {self.index[v]: k for k, v in enumerate(compute)}
            self._compute = (np.array([self.index[v] for v in compute]), where)
        at, where = self._compute
        return [where[int(i)] for i in g[at]]

    def map_hops(self, hops, sender: str, fabric) -> tuple[int, ...]:
        """The image of a route of the sender's representative under g_sender."""
        g = self.node_element[sender]
        nodes, index = self.platform.nodes, self.index
        links = fabric.links
        return tuple(fabric.link_index[(nodes[g[index[links[h].tail]]],
                                        nodes[g[index[links[h].head]]])] for h in hops)

    def image(self, perm, node: str) -> str:
        return self.platform.nodes[perm[self.index[node]]]

    def link_map(self, perm, fabric) -> list[int]:
        """Link index -> index of its image under ``perm``."""
        nodes = self.platform.nodes
        index = self.index
        return [fabric.link_index[(nodes[perm[index[l.tail]]], nodes[perm[index[l.head]]])]
                for l in fabric.links]

    def row_orbits(self, fabric) -> list[list[int]] | None:
        """The orbits of the fabric's capacity rows (row indices), in the order of their
        first row; None when a generator maps a row to no row."""
        parent = list(range(len(fabric.rows)))

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        nodes = self.platform.nodes
        for g in self.generators:
            m = lambda v: nodes[g[self.index[v]]]  # noqa: E731
            for i, (key, _) in enumerate(fabric.rows):
                kind, what = key
                if kind in ("out", "in"):
                    image = (kind, m(what))
                elif kind == "arc":
                    image = (kind, (m(what[0]), m(what[1])))
                else:
                    return None  # network links: no symmetry (refused by Platform)
                j = fabric.row_index.get(image)
                if j is None:
                    return None
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
        orbits: dict[int, list[int]] = {}
        for i in range(len(fabric.rows)):
            orbits.setdefault(find(i), []).append(i)
        return list(orbits.values())


def root_symmetry(platform, roots: dict) -> tuple[RootSymmetry | None, str]:
    """(the platform's symmetry acting freely on ``roots`` ({(node, direction): rate}),
    "") or (None, why not)."""
    if not platform.symmetry:
        return None, "no symmetry given"
    nodes = platform.nodes
    index = {v: i for i, v in enumerate(nodes)}
    gens = [np.array([index[g.get(v, v)] for v in nodes], dtype=np.int64)
            for g in platform.symmetry]
    directions = sorted({d for _, d in roots})
    rate = {}
    for (v, d), r in roots.items():
        rate.setdefault(v, {})[d] = r
    if any(set(by) != set(directions) for by in rate.values()):
        return None, "the roots differ by direction"
    identity = np.arange(len(nodes), dtype=np.int64)
    element: dict[str, np.ndarray] = {}
    rep_nodes = []
    order = None
    for v in nodes:
        if v not in rate or v in element:
            continue
        rep_nodes.append(v)
        element[v] = identity
        orbit = [v]
        for u in orbit:
            g = element[u]
            for h in gens:
                w = nodes[h[index[u]]]
                if w not in rate:
                    return None, "the roots are not invariant under the symmetry"
                if rate[w] != rate[u]:
                    return None, "the roots' rates are not invariant under the symmetry"
                composed = h[g]
                if w not in element:
                    element[w] = composed
                    orbit.append(w)
                elif not np.array_equal(element[w], composed):
                    return None, "the symmetry does not act freely on the roots"
        if order is None:
            order = len(orbit)
        elif len(orbit) != order:  # pragma: no cover - consistency implies it
            return None, "root orbits of different sizes"
    if not order or order == 1:
        return None, "the symmetry fixes every root"
    reps = [(v, d) for v in rep_nodes for d in directions]
    keyed = {(u, d): g for u, g in element.items() for d in directions}
    return RootSymmetry(platform, reps, keyed, order, gens), ""
