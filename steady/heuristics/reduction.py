"""Theorem 1 of seed 002 (§3.2) as code: DEGREE-CONSTRAINED-SPANNING-TREE reduces to
BEST-BROADCAST-TREE-DEC, so finding the best broadcast tree is NP-hard.

* DCST (Garey-Johnson ND1): an undirected graph G_d and an integer K >= 1; is there a
  spanning tree of G_d in which no vertex has degree larger than K?
* BEST-BROADCAST-TREE-DEC(G, D) (002 §3.2 Def. 2): a platform G with a source and a bound
  D; is there a broadcast tree T (a spanning arborescence rooted at the source) with
  TP(T) >= D, TP(T) = 1 / max_u sum_{v child of u} c_uv (002 §3.1.2 eq. (1))?

The map (002 §3.2, proof of Thm 1): same vertices; every edge {j, k} becomes the two arcs
j->k and k->j; a source s is picked; arcs leaving s cost 1/K, every other arc 1/(K-1);
D = 1.  The paper's construction divides by K - 1 and needs a platform, so three cases
are decided directly (in linear time, as a reduction may) and mapped to fixed instances:
an empty-edged graph on one vertex (YES), a disconnected graph (NO: no spanning tree, and
a platform must reach every node), and K = 1 (YES iff G_d is one vertex or one edge).
Proof in our words and the checks: proofs/theorem1-reduction.md.

The brute-force deciders enumerate every spanning tree / arborescence: for tests only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..platform import Link, Platform
from .models import one_port_throughput

ORIGIN = "<dcst graph>"


@dataclass(frozen=True)
class BroadcastTreeInstance:
    """An instance of BEST-BROADCAST-TREE-DEC: the platform (with its source) and D."""

    platform: Platform
    bound: Fraction


#: Fixed answers for the cases decided directly (see the module docstring): one
#: destination behind a link of cost 1 (TP = 1 >= D) or 2 (TP = 1/2 < D).
YES_INSTANCE = BroadcastTreeInstance(Platform("s", [Link("s", "t", Fraction(1))]), Fraction(1))
NO_INSTANCE = BroadcastTreeInstance(Platform("s", [Link("s", "t", Fraction(2))]), Fraction(1))


def dcst_to_broadcast_tree(graph, K: int, root=None) -> BroadcastTreeInstance:
    """The BEST-BROADCAST-TREE-DEC instance of 002 §3.2 (proof of Theorem 1) for the DCST
    instance (``graph``, ``K``): arcs both ways, cost 1/K out of the source ``root``
    (default: the graph's first node) and 1/(K-1) elsewhere, D = 1.  Node names become
    ``str(node)``.  The instance answers YES iff the graph has a spanning tree of
    maximum degree <= K."""
    names = _names(graph)
    if not isinstance(K, int) or isinstance(K, bool) or K < 1:
        raise InputError(ORIGIN, "K", f"a degree bound is an integer >= 1, got {K!r}")
    if root is not None and root not in graph:
        raise InputError(ORIGIN, "root", f"{root!r} is not a node of the graph")
    if len(names) == 1:
        return YES_INSTANCE
    if not _connected(graph):
        return NO_INSTANCE
    if K == 1:
        return YES_INSTANCE if len(names) == 2 else NO_INSTANCE
    source = names[next(iter(graph)) if root is None else root]
    leaving, other = Fraction(1, K), Fraction(1, K - 1)
    arcs: dict = {}  # a loop is never in a spanning tree, a parallel edge adds nothing
    for j, k in graph.edges():
        if j != k:
            arcs.update({(names[j], names[k]): None, (names[k], names[j]): None})
    links = [Link(tail, head, leaving if tail == source else other) for tail, head in arcs]
    platform = Platform(source, links, list(names.values()),
                        name=f"dcst-K{K}", origin=ORIGIN)
    instance = BroadcastTreeInstance(platform, Fraction(1))
    _check_instance(instance, graph, names, K)
    return instance


def _check_instance(instance: BroadcastTreeInstance, graph, names: dict, K: int) -> None:
    """Runtime postcondition (the construction of 002 §3.2, arc by arc): the arcs are
    exactly the graph's non-loop edges in both directions, out of the source at 1/K,
    elsewhere at 1/(K-1), and D = 1."""
    p = instance.platform
    expected = {(names[j], names[k]) for j, k in graph.edges() if j != k}
    expected |= {(k, j) for j, k in expected}
    if set(p.arcs) != expected or instance.bound != 1:
        raise AssertionError("postcondition: the instance's arcs are not the graph's edges")
    for link in p.links:
        want = Fraction(1, K) if link.tail == p.source else Fraction(1, K - 1)
        if link.cost != want:
            raise AssertionError(f"postcondition: arc {link.tail}->{link.head} costs "
                                 f"{link.cost}, not {want}")


def _names(graph) -> dict:
    if graph.is_directed():
        raise InputError(ORIGIN, "graph", "DCST is about undirected graphs")
    names = {v: str(v) for v in graph.nodes}
    if not names:
        raise InputError(ORIGIN, "nodes", "the graph has no vertex")
    if len(set(names.values())) != len(names):
        raise InputError(ORIGIN, "nodes", "two nodes have the same name as text")
    return names


def _connected(graph) -> bool:
    start = next(iter(graph))
    seen, stack = {start}, [start]
    while stack:
        for w in graph.neighbors(stack.pop()):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return len(seen) == graph.number_of_nodes()


# -- the two directions of the proof, constructively -------------------------------------

def orient_tree(edges, root) -> dict:
    """The spanning tree ``edges`` (undirected pairs) as an arborescence rooted at
    ``root``: child -> parent (the "if" direction of the proof)."""
    adjacent: dict = {}
    for j, k in edges:
        adjacent.setdefault(j, []).append(k)
        adjacent.setdefault(k, []).append(j)
    parent, stack = {}, [root]
    seen = {root}
    while stack:
        u = stack.pop()
        for w in adjacent.get(u, ()):
            if w not in seen:
                seen.add(w)
                parent[w] = u
                stack.append(w)
    return parent


def tree_degrees(parent: dict) -> dict:
    """Undirected degrees of the arborescence child -> parent (the "only if" direction:
    forget the orientation)."""
    degree: dict = {}
    for child, par in parent.items():
        degree[child] = degree.get(child, 0) + 1
        degree[par] = degree.get(par, 0) + 1
    return degree


# -- brute-force deciders (exponential; for tests on small graphs) ----------------------

def spanning_trees(graph):
    """Every spanning tree of the undirected ``graph``, as a tuple of edges: all sets of
    |V| - 1 non-loop edges without a cycle (union-find)."""
    nodes = list(graph.nodes)
    edges = [(j, k) for j, k in graph.edges() if j != k]
    for chosen in itertools.combinations(edges, len(nodes) - 1):
        root = {v: v for v in nodes}

        def find(v):
            while root[v] != v:
                root[v] = root[root[v]]
                v = root[v]
            return v

        for j, k in chosen:
            a, b = find(j), find(k)
            if a == b:
                break
            root[a] = b
        else:
            yield chosen


def has_degree_constrained_spanning_tree(graph, K: int) -> bool:
    """DCST by brute force: some spanning tree with every degree <= K."""
    if graph.number_of_nodes() == 1:
        return True
    for tree in spanning_trees(graph):
        degree: dict = {}
        for j, k in tree:
            degree[j] = degree.get(j, 0) + 1
            degree[k] = degree.get(k, 0) + 1
        if max(degree.values()) <= K:
            return True
    return False


def spanning_arborescences(platform):
    """Every spanning arborescence of ``platform`` rooted at its source (child -> parent):
    each destination picks one of its in-links, and the choices without a cycle are
    kept."""
    destinations = platform.destinations
    choices = [[l.tail for l in platform.in_links(v)] for v in destinations]
    for parents in itertools.product(*choices):
        parent = dict(zip(destinations, parents))
        if _acyclic(parent, platform.source):
            yield parent


def _acyclic(parent: dict, source) -> bool:
    done = {source}
    for v in parent:
        path = []
        while v not in done:
            if v in path:
                return False
            path.append(v)
            v = parent[v]
        done.update(path)
    return True


def has_broadcast_tree(instance: BroadcastTreeInstance) -> bool:
    """BEST-BROADCAST-TREE-DEC by brute force: some arborescence with TP >= D (one-port,
    002 §3.1.2 eq. (1))."""
    return any(one_port_throughput(instance.platform, parent) >= instance.bound
               for parent in spanning_arborescences(instance.platform))
