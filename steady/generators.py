"""Seeded, reproducible random platforms (the experiments of seed 000 §5.1, Table 2).

Seed 000 §5.1 draws random platforms with "number of nodes 10, 20, ..., 50", "density
0.04, 0.08, ..., 0.20" where "the density is the probability of the existence of an edge
between two nodes", and link occupation times T_{u,v} drawn from a "Gaussian distribution
(mean=100MB/s, deviation=20MB/s)"; in the multi-port model send_{u,v} is
"0.80 · min_{w,(u,w)∈E} T_{u,w}" (depends only on the sending node).

Choices the paper leaves open, fixed here once and for all:

* **Link symmetry.**  000 §2.1 models the platform as a directed graph and notes that "two
  opposite edges would model a bidirectional link"; Table 2 speaks of an *edge between two
  nodes*, i.e. a physical link, and indexes the occupation time by the ordered pair
  (T_{u,v}).  So, by default (``bidirectional=True``), each unordered pair {u, v} carries a
  link with probability ``density``, a link is the two arcs u->v and v->u, and each arc
  draws its own bandwidth.  ``bidirectional=False`` instead draws every ordered pair
  independently (one arc per success).
* **Bandwidth law.**  bandwidth ~ Gaussian(mean, sd) MB/s, rounded to 2 decimals and read
  as the exact decimal (9873/100, never a double), clipped below at ``min_bandwidth``
  (default 1 MB/s, far in the tail: P[N(100, 20) < 1] ≈ 4e-7) so that every cost is finite
  and positive.  The cost of an arc is the time to send one slice:
  ``Fraction(slice_size) / bandwidth`` (seconds for a slice of ``slice_size`` MB).
* **Reachability.**  002 §2 needs every node reachable from the source.  The density links
  are drawn first, exactly as in the paper; then, while some node is unreachable, a link
  (both arcs when bidirectional, else one arc) is added from a uniformly drawn reached
  node to a uniformly drawn unreached one.  This adds the fewest links possible (one per
  missing component), so the observed density stays close to ``density`` on large
  platforms, while small sparse draws (the paper's 10 nodes at density 0.04) still give
  valid platforms.

Every generator draws from its own ``random.Random(seed)`` (never the global generator),
so a (function, arguments, seed) triple always yields the same platform, and every result
is a validated :class:`~steady.platform.Platform` with exact costs.  Nodes are named
``"P0" .. "P{n-1}"`` and the source is ``"P0"``.
"""

from __future__ import annotations

import random
from fractions import Fraction

from .errors import InputError
from .platform import Link, Platform

__all__ = ["random_platform", "mesh_platform", "random_dag_platform", "tiers_platform",
           "scale_platform", "scale_density", "draw_bandwidth"]

#: Seed 000 Table 2: bandwidths ~ Gaussian(mean=100 MB/s, deviation=20 MB/s).
MEAN_BANDWIDTH = 100
SD_BANDWIDTH = 20
#: Default lower clip of a drawn bandwidth, in MB/s (see the module docstring).
MIN_BANDWIDTH = 1
#: Seed 000 §5.1: in the multi-port model, send_u = 0.80 x the cheapest outgoing arc of u.
SEND_OVERHEAD_RATIO = Fraction(4, 5)


# -- the bandwidth law -------------------------------------------------------------

def draw_bandwidth(rng: random.Random, mean=MEAN_BANDWIDTH, sd=SD_BANDWIDTH,
                   min_bandwidth=MIN_BANDWIDTH) -> Fraction:
    """One bandwidth of seed 000 Table 2: Gaussian(mean, sd), 2 decimals, exact.

    The float only chooses an integer number of hundredths; the result is that exact
    decimal, clipped below at ``min_bandwidth``.
    """
    hundredths = round(rng.gauss(float(mean), float(sd)) * 100)
    return max(Fraction(hundredths, 100), Fraction(min_bandwidth))


def _link(rng: random.Random, tail: str, head: str, law: dict) -> Link:
    return Link(tail, head, Fraction(law["slice_size"]) / draw_bandwidth(rng, **law["gauss"]))


def _law(slice_size, mean, sd, min_bandwidth, origin: str) -> dict:
    for element, value in (("slice_size", slice_size), ("mean", mean),
                           ("min_bandwidth", min_bandwidth)):
        if Fraction(value) <= 0:
            raise InputError(origin, element, f"must be > 0, got {value}")
    if Fraction(sd) < 0:
        raise InputError(origin, "sd", f"must be >= 0, got {sd}")
    return {"slice_size": slice_size,
            "gauss": {"mean": mean, "sd": sd, "min_bandwidth": min_bandwidth}}


# -- argument checks and shared pieces -----------------------------------------------

def _names(nodes: int, origin: str) -> list[str]:
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 2:
        raise InputError(origin, "nodes", f"need an integer >= 2 (a source and a "
                         f"destination), got {nodes!r}")
    return [f"P{i}" for i in range(nodes)]


def _check_density(density, origin: str) -> float:
    if not 0 <= density <= 1:
        raise InputError(origin, "density", f"is a probability in [0, 1], got {density!r}")
    return float(density)


def _reached(source: str, arcs) -> set[str]:
    succ: dict[str, list[str]] = {}
    for tail, head in arcs:
        succ.setdefault(tail, []).append(head)
    reached, stack = {source}, [source]
    while stack:
        for w in succ.get(stack.pop(), ()):
            if w not in reached:
                reached.add(w)
                stack.append(w)
    return reached


def _make_reachable(rng: random.Random, names: list[str], arcs: list[tuple[str, str]],
                    bidirectional: bool) -> None:
    """Add, in place, the fewest links (reached node -> unreached node) so that every
    node is reachable from ``names[0]``; endpoints are drawn uniformly."""
    reached = _reached(names[0], arcs)
    while len(reached) < len(names):
        tail = rng.choice([v for v in names if v in reached])
        head = rng.choice([v for v in names if v not in reached])
        arcs.append((tail, head))
        if bidirectional:
            arcs.append((head, tail))
        reached = _reached(names[0], arcs)


def _platform(rng: random.Random, names, arcs, law: dict, name: str,
              multiport: bool) -> Platform:
    links = [_link(rng, tail, head, law) for tail, head in arcs]
    overhead = _send_overheads(names, links) if multiport else None
    return Platform(names[0], links, names, name, overhead, origin=f"<generated {name}>")


def _send_overheads(names, links) -> dict[str, Fraction]:
    """Seed 000 §5.1: send_u = 0.80 x min over u's outgoing arcs of T_{u,w}."""
    cheapest: dict[str, Fraction] = {}
    for link in links:
        if link.tail not in cheapest or link.cost < cheapest[link.tail]:
            cheapest[link.tail] = link.cost
    return {v: SEND_OVERHEAD_RATIO * cheapest[v] for v in names if v in cheapest}


def _default_name(kind: str, nodes: int, density, seed) -> str:
    if density is None:
        return f"{kind}-{nodes}-s{seed}"
    return f"{kind}-{nodes}-d{density}-s{seed}"


# -- the generators -------------------------------------------------------------------

def random_platform(nodes: int, density: float = 0.1, seed=0, *, slice_size=1000,
                    mean=MEAN_BANDWIDTH, sd=SD_BANDWIDTH, min_bandwidth=MIN_BANDWIDTH,
                    bidirectional: bool = True, multiport: bool = False,
                    name: str | None = None) -> Platform:
    """A random platform of seed 000 §5.1, Table 2.

    Each unordered pair of nodes carries a link (both arcs, each with its own bandwidth)
    with probability ``density``; with ``bidirectional=False`` each ordered pair carries
    an arc with probability ``density``.  Then the fewest links needed to reach every node
    from the source ``"P0"`` are added (see the module docstring).  Costs are
    ``slice_size / bandwidth`` with bandwidth ~ Gaussian(mean, sd) MB/s, 2 decimals,
    clipped below at ``min_bandwidth``.  With ``multiport=True`` every node that sends
    gets the send overhead 0.80 x its cheapest outgoing arc (000 §5.1).

    >>> p = random_platform(10, density=0.2, seed=3)
    >>> p.source, len(p.nodes)
    ('P0', 10)
    >>> p == random_platform(10, density=0.2, seed=3)
    True
    """
    origin = "random_platform"
    names = _names(nodes, origin)
    p = _check_density(density, origin)
    law = _law(slice_size, mean, sd, min_bandwidth, origin)
    rng = random.Random(seed)
    arcs = _density_arcs(rng, names, p, bidirectional)
    _make_reachable(rng, names, arcs, bidirectional)
    return _platform(rng, names, arcs, law,
                     name or _default_name("random", nodes, density, seed), multiport)


def _density_arcs(rng: random.Random, names, p: float, bidirectional: bool):
    arcs = []
    for i, u in enumerate(names):
        for j, v in enumerate(names):
            if bidirectional and j <= i:
                continue
            if u != v and rng.random() < p:
                arcs.append((u, v))
                if bidirectional:
                    arcs.append((v, u))
    return arcs


def mesh_platform(nodes: int, seed=0, in_degree: int = 3, *, slice_size=1000,
                  mean=MEAN_BANDWIDTH, sd=SD_BANDWIDTH, min_bandwidth=MIN_BANDWIDTH,
                  multiport: bool = False, name: str | None = None) -> Platform:
    """A well-connected random platform: every non-source node has ``in_degree`` in-arcs.

    First a random spanning arborescence from the source: the destinations are visited in
    a random order and each gets an arc from a uniformly drawn node visited before it
    (so everything is reachable).  Then every destination receives further in-arcs from
    distinct, uniformly drawn other nodes until it has exactly ``in_degree`` of them (the
    source may be one of them; the source itself gets no in-arc, it never needs one).
    Bandwidths follow the law of :func:`random_platform` (seed 000 Table 2).

    >>> p = mesh_platform(12, seed=1)
    >>> min(len(p.in_links(v)) for v in p.destinations)
    3
    """
    origin = "mesh_platform"
    names = _names(nodes, origin)
    if isinstance(in_degree, bool) or not isinstance(in_degree, int) \
            or not 1 <= in_degree <= nodes - 1:
        raise InputError(origin, "in_degree", f"need an integer in [1, {nodes - 1}] "
                         f"(nodes - 1), got {in_degree!r}")
    law = _law(slice_size, mean, sd, min_bandwidth, origin)
    rng = random.Random(seed)
    arcs = _random_arborescence(rng, names)
    for v in names[1:]:
        senders = {tail for tail, head in arcs if head == v}
        others = [u for u in names if u != v and u not in senders]
        arcs.extend((u, v) for u in rng.sample(others, in_degree - len(senders)))
    return _platform(rng, names, arcs, law,
                     name or _default_name("mesh", nodes, None, seed), multiport)


def _random_arborescence(rng: random.Random, names) -> list[tuple[str, str]]:
    """Arcs of a random spanning arborescence rooted at ``names[0]``: each destination,
    in a random order, hangs below a uniformly drawn node that precedes it."""
    order = names[1:]
    rng.shuffle(order)
    visited = [names[0]]
    arcs = []
    for v in order:
        arcs.append((rng.choice(visited), v))
        visited.append(v)
    return arcs


def random_dag_platform(nodes: int, density: float = 0.1, seed=0, *, slice_size=1000,
                        mean=MEAN_BANDWIDTH, sd=SD_BANDWIDTH, min_bandwidth=MIN_BANDWIDTH,
                        multiport: bool = False, name: str | None = None) -> Platform:
    """A random DAG platform (the setting of 002 §4): arcs only go forward in an order.

    The destinations are put in a random order after the source; each forward pair
    (earlier -> later) carries an arc with probability ``density``.  A destination left
    without an in-arc then gets one from a uniformly drawn earlier node, which makes every
    node reachable (by induction along the order) with the fewest extra arcs.  Bandwidths
    follow the law of :func:`random_platform` (seed 000 Table 2).

    >>> random_dag_platform(15, 0.2, seed=4).is_dag()
    True
    """
    origin = "random_dag_platform"
    names = _names(nodes, origin)
    p = _check_density(density, origin)
    law = _law(slice_size, mean, sd, min_bandwidth, origin)
    rng = random.Random(seed)
    order = [names[0]] + rng.sample(names[1:], nodes - 1)
    arcs = [(order[i], order[j]) for i in range(nodes) for j in range(i + 1, nodes)
            if rng.random() < p]
    fed = {head for _, head in arcs}
    for j in range(1, nodes):
        if order[j] not in fed:
            arcs.append((rng.choice(order[:j]), order[j]))
    return _platform(rng, names, arcs, law,
                     name or _default_name("dag", nodes, density, seed), multiport)


# -- large sparse platforms (issue 17's scaling benchmark) -------------------------------

#: Up to this many nodes a scale platform has seed 000's density 0.1; beyond, 6/n (an
#: average of about 6 random neighbours per node, as in real clusters and grids).
SCALE_DENSE_UP_TO = 100
SCALE_NEIGHBOURS = 6
#: Integer bandwidths, clipped below at 10 MB/s: costs 1000/b stay within [~4, 100].
SCALE_MIN_BANDWIDTH = 10


def scale_density(nodes: int) -> float:
    """The pair probability of :func:`scale_platform`: 0.1 up to 100 nodes, 6/n beyond."""
    return 0.1 if nodes <= SCALE_DENSE_UP_TO else SCALE_NEIGHBOURS / nodes


def scale_platform(nodes: int, seed=0, density: float | None = None, *,
                   slice_size=1000, name: str | None = None) -> Platform:
    """A large random platform of issue 17 (seed 000 Table 2 style, ours for the sizes).

    A random spanning tree (each destination, in a random order, linked to a uniformly
    drawn earlier node) makes every node reachable; then each unordered pair of nodes is
    linked with probability ``density`` (default :func:`scale_density`: 0.1 up to 100
    nodes, 6/n beyond).  Every link is both arcs; each arc draws its own integer
    bandwidth round(N(100, 20)) MB/s clipped below at 10, and costs
    ``slice_size / bandwidth`` exactly.  Nodes ``"P0" .. "P{n-1}"``, source ``"P0"``.

    >>> p = scale_platform(200, seed=1)
    >>> p.source, len(p.nodes), p == scale_platform(200, seed=1)
    ('P0', 200, True)
    """
    origin = "scale_platform"
    names = _names(nodes, origin)
    p = _check_density(scale_density(nodes) if density is None else density, origin)
    if Fraction(slice_size) <= 0:
        raise InputError(origin, "slice_size", f"must be > 0, got {slice_size}")
    rng = random.Random(seed)
    pairs = {frozenset(arc) for arc in _random_arborescence(rng, names)}
    # Drawing every pair is O(n^2) random numbers (0.5 s at 1000 nodes); drawing the
    # gaps between successes (geometric law) is O(links) and gives the same law.
    for k in _bernoulli_successes(rng, nodes * (nodes - 1) // 2, p):
        pairs.add(frozenset(_pair(k, nodes)))
    index = {v: i for i, v in enumerate(names)}
    arcs = sorted((arc for pair in pairs for arc in (tuple(pair), tuple(pair)[::-1])),
                  key=lambda arc: (index[arc[0]], index[arc[1]]))
    links = [Link(u, v, Fraction(slice_size) / max(SCALE_MIN_BANDWIDTH,
                                                   round(rng.gauss(MEAN_BANDWIDTH,
                                                                   SD_BANDWIDTH))))
             for u, v in arcs]
    label = name or _default_name("scale", nodes, None, seed)
    return Platform(names[0], links, names, label, origin=f"<generated {label}>")


def _bernoulli_successes(rng: random.Random, count: int, p: float):
    """Indices in range(count) of independent Bernoulli(p) successes, by geometric gaps."""
    if p <= 0:
        return
    if p >= 1:
        yield from range(count)
        return
    import math

    log_q = math.log1p(-p)
    k = -1
    while True:
        k += 1 + int(math.log(1.0 - rng.random()) / log_q)
        if k >= count:
            return
        yield k


def _pair(k: int, n: int) -> tuple[str, str]:
    """The k-th unordered pair (i < j) of n nodes in row order."""
    i = 0
    while k >= n - 1 - i:
        k -= n - 1 - i
        i += 1
    return f"P{i}", f"P{i + 1 + k}"


# -- Tiers-like hierarchical platforms (seed 000 §5.1, Table 3) ----------------------------

#: Seed 000 §5.1: the Tiers platforms "have a density between 0.05 and 0.15".
TIERS_DENSITY = (0.05, 0.15)


def tiers_platform(nodes: int, seed=0, density: float | None = None, *, slice_size=1000,
                   mean=MEAN_BANDWIDTH, sd=SD_BANDWIDTH, min_bandwidth=MIN_BANDWIDTH,
                   multiport: bool = False, lan_redundancy: int = 1,
                   name: str | None = None) -> Platform:
    """A three-level WAN / MAN / LAN platform in the manner of Tiers (Calvert, Doar and
    Zegura), the "realistic" platforms of seed 000 §5.1 and Table 3 (30 and 65 nodes).

    Tiers itself is not available, so its construction is followed in spirit:

    * **Levels.**  About a sixth of the nodes form the WAN (at least 2), half of the rest
      the MANs (networks of about 4 nodes), the others the LANs (networks of about 5).
    * **Inside a network**, nodes get random positions in the unit square and are joined
      by the Euclidean minimum spanning tree (Tiers' intra-network construction); a LAN
      is a star around its first node, its hub (Tiers' LANs are stars).
    * **Between levels**, every MAN hangs below a uniformly drawn WAN node by one link from
      a uniformly drawn node of the MAN; every LAN hub hangs below a uniformly drawn node
      of a uniformly drawn MAN.  The result is a tree: every node is reachable.
    * **Redundancy** (Tiers' R parameters): links are added, uniformly among the pairs
      Tiers may make redundant (inside the WAN, inside a MAN, MAN node - WAN node, LAN hub -
      node of its MAN; never at a LAN leaf), until the platform has
      ``round(density · n(n-1)/2)`` links or the pool is empty.  ``density=None`` draws it
      uniformly in :data:`TIERS_DENSITY` (the paper's range); the tree alone may already
      exceed a small target (29 links at 30 nodes is density 0.067), then nothing is added.
    * **LAN redundancy** (Tiers' RL, default 1: stars, every LAN leaf single-homed).
      With ``lan_redundancy = r >= 2`` each LAN leaf is also linked to r - 1 other nodes
      of its LAN drawn uniformly (fewer if the LAN is small), before the density target
      is filled.  With r = 1, a hub must send every message to each of its leaves, so
      its out-port fixes the optimum of almost every platform (a trivial bottleneck:
      ``steady.experiments.stp.single_port_bound``).
    * Every link is both arcs, each with its own bandwidth from the law of
      :func:`random_platform` (000 §5.1: "the same distribution for the values of T_uv").
    * The source ``"P0"`` is a WAN node; the other names are shuffled so that index-based
      heuristics (Binomial Tree, 000 Alg 4) see no trace of the hierarchy.

    >>> p = tiers_platform(30, seed=2)
    >>> len(p.nodes), p.source
    (30, 'P0')
    """
    origin = "tiers_platform"
    names = _names(nodes, origin)
    if nodes < 8:
        raise InputError(origin, "nodes", f"a WAN / MAN / LAN hierarchy needs >= 8 nodes, "
                         f"got {nodes}")
    law = _law(slice_size, mean, sd, min_bandwidth, origin)
    rng = random.Random(seed)
    if density is None:
        density = rng.uniform(*TIERS_DENSITY)
    density = _check_density(density, origin)
    order = [names[0]] + rng.sample(names[1:], nodes - 1)
    wan, mans, lans = _tiers_levels(order)
    edges = _tiers_tree(rng, wan, mans, lans)
    if lan_redundancy < 1:
        raise InputError(origin, "lan_redundancy", f"links per LAN leaf, >= 1, got "
                         f"{lan_redundancy}")
    edges += _lan_redundancy(rng, lans, lan_redundancy)
    pool = _tiers_redundancy_pool(wan, mans, lans, edges)
    target = round(density * nodes * (nodes - 1) / 2)
    rng.shuffle(pool)
    edges.extend(pool[:max(0, target - len(edges))])
    arcs = [arc for u, v in edges for arc in ((u, v), (v, u))]
    return _platform(rng, names, arcs, law,
                     name or _default_name("tiers", nodes, None, seed), multiport)


def _tiers_levels(order: list[str]):
    """Split the nodes (source first) into the WAN, the MANs and the LANs."""
    n = len(order)
    n_wan = max(2, n // 6)
    n_man = (n - n_wan) // 2
    wan, man_nodes, lan_nodes = order[:n_wan], order[n_wan:n_wan + n_man], order[n_wan + n_man:]
    return wan, _split(man_nodes, 4), _split(lan_nodes, 5)


def _split(nodes: list[str], size: int) -> list[list[str]]:
    """``nodes`` in ``max(1, len // size)`` networks of near-equal sizes."""
    k = max(1, len(nodes) // size)
    return [nodes[i::k] for i in range(k)]


def _tiers_tree(rng: random.Random, wan, mans, lans) -> list[tuple[str, str]]:
    edges = _euclidean_mst(rng, wan)
    for man in mans:
        edges += _euclidean_mst(rng, man)
        edges.append((rng.choice(wan), rng.choice(man)))
    for lan in lans:
        hub = lan[0]
        edges += [(hub, leaf) for leaf in lan[1:]]
        edges.append((rng.choice(rng.choice(mans)), hub))
    return edges


def _lan_redundancy(rng: random.Random, lans, r: int) -> list[tuple[str, str]]:
    """r - 1 extra links from every LAN leaf to other nodes of its LAN (Tiers' RL),
    never twice the same pair."""
    extra, taken = [], set()
    for lan in lans:
        for leaf in lan[1:]:
            others = [v for v in lan[1:] if v != leaf
                      and frozenset((leaf, v)) not in taken]
            for v in rng.sample(others, min(r - 1, len(others))):
                taken.add(frozenset((leaf, v)))
                extra.append((leaf, v))
    return extra


def _euclidean_mst(rng: random.Random, network: list[str]) -> list[tuple[str, str]]:
    """Prim's minimum spanning tree on random positions (floats only place the nodes:
    they choose a tree, never a number of the result)."""
    where = {v: (rng.random(), rng.random()) for v in network}

    def distance(u, v):
        return (where[u][0] - where[v][0]) ** 2 + (where[u][1] - where[v][1]) ** 2

    inside, edges = [network[0]], []
    while len(inside) < len(network):
        u, v = min(((u, v) for u in inside for v in network if v not in inside),
                   key=lambda e: distance(*e))
        inside.append(v)
        edges.append((u, v))
    return edges


def _tiers_redundancy_pool(wan, mans, lans, edges) -> list[tuple[str, str]]:
    """The pairs Tiers may add as redundant links, minus those already linked, in a
    fixed order (the caller shuffles it with the platform's generator)."""
    taken = {frozenset(e) for e in edges}
    man_of = {v: man for man in mans for v in man}
    pairs = []
    for network in [wan, *mans]:
        pairs += [(u, v) for i, u in enumerate(network) for v in network[i + 1:]]
    pairs += [(w, v) for man in mans for v in man for w in wan]
    for lan in lans:
        hub = lan[0]
        parent = next(u for u, v in edges if v == hub and u in man_of)
        pairs += [(u, hub) for u in man_of[parent]]
    pool = []
    for pair in pairs:
        if frozenset(pair) not in taken:
            taken.add(frozenset(pair))
            pool.append(pair)
    return pool
