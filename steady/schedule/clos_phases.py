"""Phased allgather timetables on Clos fabrics: fat trees and leaf-spine networks,
oversubscribed or not (ours; issue 43, proofs/collectives.md §9 "Clos fabrics").

A *Clos fabric* (:func:`clos_shape`, recognised from the links, whatever the names):
hosts with one link each way to their *edge* switch (leaf), all at bandwidth B; P pods
of E edge switches with H hosts each, every edge switch linked both ways to the A
*aggregation* switches (spines) of its pod; with P > 1, aggregation switch a of every
pod linked to the C >= E *core* switches of plane a.  Every link between switches
runs at B/o, o a positive integer.  ``fat_tree_platform(k, B, o)`` is one (P = k,
E = H = A = C = k/2); a two-level leaf-spine is one with P = 1.

A route inside an edge switch (host -> edge -> host, *fast*) runs at B and holds both
host links whole; a route through the aggregation layer (*slow*) runs at B/o and holds
1/o of its host links and every switch link it crosses whole.  With o <= A, at the
optimum every host link is busy all the time (x* = B/(N-1), N = PEH hosts), so at every
instant a host link carries one fast transfer or o slow ones; with o > A the edge
switches' downlinks bind instead (x* = AB/(oH(PE-1)): each carries one slow transfer at
every instant) and a fast transfer into a host excludes every slow one.  The list
schedule does not find such instants (480/577 on the k = 4 fat tree with o = 2; 0.779
at o = 4); this module builds them by hand:

* **Slots and phases.**  A period is S slots of one slow message time τ = o/B; a fast
  transfer sends up to o messages back to back in a slot.  The hosts under an edge
  switch are numbered j = 0 .. H-1; in *phase* φ (S/H slots) host φ of every edge
  switch receives q = min(o, A) slow transfers per slot, host φ-1 sends q, and the
  fast chain φ -> φ+1 -> ... -> φ-1 (mod H) runs inside every edge switch.  With
  o <= A every host link is then full at every instant; with o > A the q links from
  the aggregation switches down to every edge switch are.
* **Trees whose every edge goes from host index i to i + 1 (mod H)**, fast inside an
  edge switch, slow across.  For the root (0, 0, 0): type A reaches every other edge
  switch F once, by a slow edge from the root's edge switch into host i_F, then the
  chain i_F -> i_F + 1 -> ...; type B enters one edge switch twice (two chains), one
  slow edge more.  With o <= A, a share 1/H of type A makes the slow edges (N-1)m/H
  per root, the slow receptions of a host per period; with o > A all are of type A
  (the fewest slow edges, PE - 1 per tree).  Every other root u gets the images under
  the translation g_u of (pod, edge, host) indices (a group acting freely and
  transitively on the hosts), so every host sends and receives, fast and slow,
  exactly the family's counts: the phases' demands.
* **Slots from matchings.**  In phase φ the slow transfers form a bipartite multigraph
  from the hosts φ-1 to the hosts φ, regular of degree qS/H: König's theorem
  (:func:`.matchings.weighted_edge_coloring`) splits it into perfect matchings, q per
  slot, matching a taking aggregation switch a (one uplink and one downlink per edge
  switch); between pods, the transfers of one plane form a bipartite multigraph of
  pods of degree <= E, coloured again with the C >= E core switches of the plane.  The
  fast messages of a pair (j, j+1) are spread evenly over the slots of its H-1 phases
  (o per slot exactly when o <= A).

The period is S·τ, the load of the binding links: the ratio is 1 when the optimum is
that cut bound (the construction reaches it; it is x* on every Clos fabric without
other links).  Runtime checks: the regular degrees, :func:`.matchings.check_coloring`
inside the colouring, the fast messages per slot, ``Timetable.check`` (the resource
rule at every instant, every tree edge's count).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..network.resources import transfer_model
from ..platform import MULTI_PORT
from .list_schedule import rerouted_trees
from .matchings import weighted_edge_coloring
from .timetable import Timetable, Tree, extend_runs


@dataclass(frozen=True)
class Clos:
    """A Clos fabric (module docstring): ``hosts[p][e][j]``, ``edges[p][e]``,
    ``aggs[p][a]`` (aggregation switch of plane a in pod p), ``cores[a][c]`` (empty
    with one pod), the hosts' bandwidth ``bandwidth`` and the integer ``over`` (o)."""

    hosts: tuple
    edges: tuple
    aggs: tuple
    cores: tuple
    bandwidth: Fraction
    over: int

    @property
    def dims(self) -> tuple[int, int, int, int]:
        """(P, E, H, A)."""
        return (len(self.hosts), len(self.hosts[0]), len(self.hosts[0][0]),
                len(self.aggs[0]))

    @property
    def size(self) -> int:
        p, e, h, _ = self.dims
        return p * e * h


def clos_shape(platform) -> Clos | None:
    """The :class:`Clos` fabric ``platform`` is (module docstring), read from its links
    (the nodes' order numbers hosts, edges, pods and planes), or None."""
    if platform.ports != MULTI_PORT or not platform.switches:
        return None
    switches = set(platform.switches)
    under: dict = {}
    host_cost = None
    for u in platform.compute_nodes:
        outs, ins = platform.out_links(u), platform.in_links(u)
        if len(outs) != 1 or len(ins) != 1 or outs[0].head != ins[0].tail \
                or outs[0].head not in switches or outs[0].cost != ins[0].cost:
            return None
        if host_cost is None:
            host_cost = outs[0].cost
        if outs[0].cost != host_cost:
            return None
        under.setdefault(outs[0].head, []).append(u)
    if len({len(v) for v in under.values()}) != 1:
        return None
    up_cost = None

    def neighbours(s, skip) -> set | None:
        """The switches linked both ways to s at one cost (up_cost), but ``skip``."""
        nonlocal up_cost
        outs = {l.head: l.cost for l in platform.out_links(s) if l.head not in skip}
        ins = {l.tail: l.cost for l in platform.in_links(s) if l.tail not in skip}
        if set(outs) != set(ins) or not set(outs) <= switches:
            return None
        for c in list(outs.values()) + list(ins.values()):
            up_cost = c if up_cost is None else up_cost
            if c != up_cost:
                return None
        return set(outs)

    pods: dict = {}
    for edge, hosts in under.items():
        aggs = neighbours(edge, set(hosts))
        if not aggs or aggs & set(under):
            return None
        pods.setdefault(frozenset(aggs), []).append(edge)
    groups = list(pods.items())
    if len({len(e) for _, e in groups}) != 1 or len({len(a) for a, _ in groups}) != 1:
        return None
    if sum(len(a) for a, _ in groups) != len(set().union(*(a for a, _ in groups))):
        return None   # pods share an aggregation switch
    order = {v: i for i, v in enumerate(platform.nodes)}
    groups.sort(key=lambda g: min(order[e] for e in g[1]))
    over = up_cost / host_cost
    if over.denominator != 1:
        return None
    planes, cores = _planes(groups, neighbours, order)
    if planes is None:
        return None
    hosts = tuple(tuple(tuple(sorted(under[e], key=order.get))
                        for e in sorted(edges, key=order.get)) for _, edges in groups)
    edges = tuple(tuple(sorted(edges, key=order.get)) for _, edges in groups)
    return Clos(hosts, edges, planes, cores, 1 / host_cost, int(over))


def _planes(groups, neighbours, order):
    """(aggs per pod in plane order, cores per plane) or (None, None): with one pod
    the aggregation switches in the nodes' order and no cores; with several, the
    aggregation switches of a plane share their C >= E cores, one per pod."""
    if len(groups) == 1:
        return (tuple(sorted(groups[0][0], key=order.get)),), ()
    edge_set = {e for _, edges in groups for e in edges}
    plane_of: dict = {}
    for aggs, edges in groups:
        for g in aggs:
            cores = neighbours(g, set(edges))
            if not cores or cores & edge_set:
                return None, None
            plane_of.setdefault(frozenset(cores), []).append(g)
    planes = sorted(plane_of.items(), key=lambda item: min(order[c] for c in item[0]))
    every = set().union(*(c for c, _ in planes))
    if sum(len(c) for c, _ in planes) != len(every) or \
            any(len(g) != len(groups) for _, g in planes):
        return None, None
    pod_of = {g: i for i, (aggs, _) in enumerate(groups) for g in aggs}
    aggs = [[None] * len(planes) for _ in groups]
    for a, (_, members) in enumerate(planes):
        for g in members:
            if aggs[pod_of[g]][a] is not None:
                return None, None
            aggs[pod_of[g]][a] = g
    cores = tuple(tuple(sorted(c, key=order.get)) for c, _ in planes)
    if any(len(c) < len(groups[0][1]) for c in cores):
        return None, None   # fewer cores per plane than edge switches per pod
    return tuple(tuple(row) for row in aggs), cores


def chunk_count(clos: Clos, most: int) -> int | None:
    """The largest m <= ``most`` chunks per root the phases hold: S slots
    (:func:`slot_count`) a multiple of H phases, m/H trees of type A when o <= A, the
    fast chains within o messages per slot when o > A (module docstring); None if
    none."""
    p, e, h, a = clos.dims
    o = clos.over
    if o > a and o * (p * e - 1) < a * p * e:
        return None   # the fast chains would need more than o messages per slot
    for m in range(most, 0, -1):
        if o > a and (h * m * (p * e - 1)) % (a * h) == 0:
            return m
        if o <= a and ((clos.size - 1) * m) % (o * h) == 0 and m % h == 0:
            return m
    return None


def slot_count(clos: Clos, m: int) -> int:
    """S: the slots of a period (module docstring): the host links' load (N-1)m/o when
    o <= A, the edge switches' downlinks' H(PE - 1)m/A beyond."""
    p, e, h, a = clos.dims
    if clos.over <= a:
        return (clos.size - 1) * m // clos.over
    return h * (p * e - 1) * m // a


def skeletons(clos: Clos) -> tuple[dict, dict]:
    """(type A, type B): {child: parent} over (pod, edge, host) indices for the root
    (0, 0, 0), every edge from host index i to i + 1 mod H (module docstring)."""
    p_, e_, h, _ = clos.dims
    parent_a: dict = {}
    for j in range(1, h):   # the root's edge switch: the fast chain 0 -> 1 -> ...
        parent_a[(0, 0, j)] = (0, 0, j - 1)
    others = [(p, e) for p in range(p_) for e in range(e_) if (p, e) != (0, 0)]
    for p, e in others:
        i = (p + e) % h   # where the chunk enters: spread over the host indices
        parent_a[(p, e, i)] = (0, 0, (i - 1) % h)
        for t in range(1, h):
            parent_a[(p, e, (i + t) % h)] = (p, e, (i + t - 1) % h)
    parent_b = dict(parent_a)
    if h > 1 and others:
        p, e = others[-1]
        second = (p + e + h // 2) % h   # entered twice: two chains
        parent_b[(p, e, second)] = (0, 0, (second - 1) % h)
    return parent_a, parent_b


def phased_timetable(platform, result, most: int):
    """(timetable, chunks per root) of the module docstring for an allgather on a
    Clos fabric with at most ``most`` chunks per root, or None when the platform is
    not one (:func:`clos_shape`), the collective is not an allgather or no chunk count
    fits."""
    if set(result.roots) != {(v, "out") for v in platform.compute_nodes} \
            or len(set(result.roots.values())) != 1:
        return None
    clos = clos_shape(platform)
    if clos is None:
        return None
    m = chunk_count(clos, most)
    if m is None:
        return None
    p_, e_, h, a_ = clos.dims
    o = clos.over
    q = min(o, a_)
    slots = slot_count(clos, m)
    model = transfer_model(platform)
    fast, slow = 1 / clos.bandwidth, o / clos.bandwidth
    unit = math.lcm(fast.denominator, slow.denominator)
    tau = int(slow * unit)
    index = {clos.hosts[p][e][j]: (p, e, j)
             for p in range(p_) for e in range(e_) for j in range(h)}
    trees = _trees(clos, m)
    demand, chain = [dict() for _ in range(h)], {}
    for tree in trees:
        for child, par in tree.parent.items():
            if index[par][:2] != index[child][:2]:   # slow: in the phase of the child
                phase = demand[index[child][2]]
                phase[(par, child)] = phase.get((par, child), 0) + tree.weight
            else:
                chain[(par, child)] = chain.get((par, child), 0) + tree.weight
    runs: dict = {}
    moved: dict = {}
    per_phase = slots // h
    for phase in range(h):
        matchings = _perfect_matchings(demand[phase], q * per_phase)
        for s in range(per_phase):
            start = (phase * per_phase + s) * tau
            for route in _slot_routes(clos, index, matchings[s * q:(s + 1) * q]):
                extend_runs(runs.setdefault(route, []), start, 1, tau)
                moved.setdefault(_ends(model, route), []).append(route)
    for (a, b), count in chain.items():   # the fast chains, spread over their slots
        active = [phase * per_phase + s for phase in range(h)
                  if phase != index[b][2] for s in range(per_phase)]
        route = (a, clos.edges[index[a][0]][index[a][1]], b)
        for i, slot in enumerate(active):
            sent = count // len(active) + (i < count % len(active))
            if sent > o:   # pragma: no cover - chunk_count: the chains fit their slots
                raise AssertionError("postcondition: a fast chain overfills its slot")
            if sent:
                extend_runs(runs.setdefault(route, []), slot * tau, sent, tau // o)
    trees = rerouted_trees(trees, moved, model)
    table = Timetable.from_route_runs(platform, trees, runs, slots * tau, unit)
    table.check()
    return table, m


def _ends(model, route) -> tuple:
    held = model.holds(route)[1]
    return (held[0][0], held[-1][0])


def _trees(clos: Clos, m: int) -> list[Tree]:
    """Every root's images of the two skeletons, m/H of type A and the rest of type B
    (o <= A), or m of type A (o > A: the fewest slow edges), with a placeholder route
    (plane 0, core 0) on every slow edge (the slots choose them)."""
    p_, e_, h, a_ = clos.dims
    share = m // h if clos.over <= a_ else m
    shapes = [(s, w) for s, w in zip(skeletons(clos), (share, m - share)) if w]
    out = []
    for p in range(p_):
        for e in range(e_):
            for j in range(h):
                def g(x):
                    return clos.hosts[(x[0] + p) % p_][(x[1] + e) % e_][(x[2] + j) % h]
                for shape, w in shapes:
                    parent = {g(c): g(par) for c, par in shape.items()}
                    routes = {}
                    for c, par in shape.items():
                        if c[:2] == par[:2]:
                            routes[g(c)] = (clos.edges[(c[0] + p) % p_][(c[1] + e) % e_],)
                        else:
                            routes[g(c)] = _slow_inner(
                                clos, ((par[0] + p) % p_, (par[1] + e) % e_),
                                ((c[0] + p) % p_, (c[1] + e) % e_), 0, 0)
                    out.append(Tree(parent, w, g((0, 0, 0)), "out", routes))
    return out


def _slow_inner(clos: Clos, sender: tuple, receiver: tuple, plane: int,
                core: int | None) -> tuple:
    """The switches of a slow route from edge switch ``sender`` (pod, edge) to
    ``receiver`` through aggregation switch ``plane`` (and core ``core`` of that plane
    between pods)."""
    (ps, es), (pr, er) = sender, receiver
    first, last = clos.edges[ps][es], clos.edges[pr][er]
    if ps == pr:
        return (first, clos.aggs[ps][plane], last)
    return (first, clos.aggs[ps][plane], clos.cores[plane][core], clos.aggs[pr][plane],
            last)


def _perfect_matchings(demand: dict, degree: int) -> list[list]:
    """``degree`` perfect matchings [(sender, receiver), ...] whose union is ``demand``
    {(sender, receiver): messages}, a bipartite multigraph regular of that degree
    (König; checked)."""
    for side in (0, 1):
        deg: dict = {}
        for pair, w in demand.items():
            deg[pair[side]] = deg.get(pair[side], 0) + w
        if set(deg.values()) != {degree}:   # pragma: no cover - the skeletons' counts
            raise AssertionError("postcondition: a phase's slow transfers are not regular")
    out = []
    for matching in weighted_edge_coloring(demand):
        out.extend([sorted(matching.edges)] * matching.weight)
    if len(out) != degree:   # pragma: no cover - König on a regular multigraph
        raise AssertionError("postcondition: a phase is not split into perfect matchings")
    return out


def _slot_routes(clos: Clos, index: dict, planes: list[list]) -> list[tuple]:
    """The routes of one slot: matching a through aggregation switch a; between pods,
    the core of plane a from an edge colouring of the pods' multigraph (degree <= E,
    at most C colours)."""
    routes = []
    for a, matching in enumerate(planes):
        between: dict = {}
        for u, v in matching:
            su, sv = index[u][:2], index[v][:2]
            if su[0] == sv[0]:
                routes.append((u,) + _slow_inner(clos, su, sv, a, None) + (v,))
            else:
                between.setdefault((str(su[0]), str(sv[0])), []).append((u, v))
        if not between:
            continue
        colours = weighted_edge_coloring({pair: len(x) for pair, x in between.items()})
        c = 0
        for matching_pods in colours:
            for _ in range(matching_pods.weight):
                for pair in matching_pods.edges:
                    u, v = between[pair].pop()
                    routes.append((u,) + _slow_inner(clos, index[u][:2], index[v][:2], a,
                                                     c) + (v,))
                c += 1
        if c > len(clos.cores[a]):   # pragma: no cover - König: the pods' degree <= E <= C
            raise AssertionError("postcondition: more colours than core switches")
    return routes
