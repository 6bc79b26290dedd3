"""Phased allgather timetables on oversubscribed fat trees (ours; issue 43,
proofs/collectives.md §9 "Oversubscribed fat trees").

In ``fat_tree_platform(k, B, o)`` with an integer oversubscription o >= 2, a route
inside an edge switch (host -> edge -> host, *fast*) runs at B and holds both host links
whole; a route through the aggregation layer (*slow*) runs at B/o and holds 1/o of its
host links and every switch link it crosses whole.  With o <= h = k/2, at the optimum
every host link is busy all the time (x* = B/(N-1), N = k^3/4 hosts), so at every
instant a host link carries one fast transfer or o slow ones; with o > h the edge
switches' downlinks bind instead (x* = B/(o(k^2/2 - 1)): each carries one slow transfer
at every instant) and a fast transfer into a host excludes every slow one.  The list
schedule does not find such instants (480/577 on k = 4, o = 2; 0.779 at o = 4); this
module builds them by hand:

* **Slots and phases.**  A period is S slots of one slow message time τ = o/B; a fast
  transfer sends up to o messages back to back in a slot.  The hosts under an edge
  switch are numbered j = 0 .. h-1; in *phase* φ (S/h slots) host φ of every edge
  switch receives q = min(o, h) slow transfers per slot, host φ-1 sends q, and the
  fast chain φ -> φ+1 -> ... -> φ-1 (mod h) runs inside every edge switch.  With
  o <= h every host link is then full at every instant; with o > h every link between
  an edge and an aggregation switch is.
* **Trees whose every edge goes from host index i to i + 1 (mod h)**, fast inside an
  edge switch, slow across.  For the root (0, 0, 0): type A reaches every other edge
  switch F once, by a slow edge from the root's edge switch into host i_F, then the
  chain i_F -> i_F + 1 -> ...; type B enters one edge switch twice (two chains), one
  slow edge more.  With o <= h, a share 2/k of type A makes the slow edges (N-1)m/h
  per root, the slow receptions of a host per period; with o > h all are of type A
  (the fewest slow edges, k^2/2 - 1 per tree).  Every other root u gets the images
  under the translation g_u of (pod, edge, host) indices (a group acting freely and
  transitively on the hosts), so every host sends and receives, fast and slow,
  exactly the family's counts: the phases' demands.
* **Slots from matchings.**  In phase φ the slow transfers form a bipartite multigraph
  from the hosts φ-1 to the hosts φ, regular of degree qS/h: König's theorem
  (:func:`.matchings.weighted_edge_coloring`) splits it into perfect matchings, q per
  slot, matching a taking aggregation switch a (one uplink and one downlink per edge
  switch); between pods, the transfers of one plane form a bipartite multigraph of
  pods of degree <= h, coloured again with the h core switches of the plane.  The
  fast messages of a pair (j, j+1) are spread evenly over the slots of its h-1 phases
  (o per slot exactly when o <= h).

The period is S·τ, the load of the binding links: the ratio is 1 (the construction
reaches the host links' or the edge switches' cut bound, so the optimum is that
bound).  Runtime checks: the regular degrees, :func:`.matchings.check_coloring` inside
the colouring, the fast messages per slot, ``Timetable.check`` (the resource rule at
every instant, every tree edge's count).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..network.resources import transfer_model
from ..platform import MULTI_PORT
from ..topologies import fat_tree_platform
from .list_schedule import rerouted_trees
from .matchings import weighted_edge_coloring
from .timetable import Timetable, Tree, extend_runs


def fat_tree_shape(platform) -> tuple | None:
    """(k, B, o) when ``platform`` is, link for link and name for name,
    ``fat_tree_platform(k, B, o)`` with an integer o >= 2; else None."""
    if platform.ports != MULTI_PORT or not platform.switches:
        return None
    n = len(platform.compute_nodes)
    k = round((4 * n) ** (1 / 3))
    if k < 4 or k % 2 or k ** 3 != 4 * n:
        return None
    try:
        host = platform.cost("p0.e0.h0", "p0.edge0")
        up = platform.cost("p0.edge0", "p0.agg0")
    except (KeyError, ValueError):
        return None
    over = up / host
    if over.denominator != 1 or over < 2:
        return None
    built = fat_tree_platform(k, 1 / host, int(over))
    if (set(built.links) != set(platform.links)
            or set(built.switches) != set(platform.switches)
            or set(built.compute_nodes) != set(platform.compute_nodes)):
        return None
    return k, 1 / host, int(over)


def chunk_count(k: int, o: int, most: int) -> int | None:
    """The largest m <= ``most`` chunks per root the phases hold: S slots (:func:`_slots`)
    a multiple of h phases, and 2m/k trees of type A when o <= h (module docstring);
    None if none."""
    h = k // 2
    for m in range(most, 0, -1):
        if o > h and (_slots(k, o, m)) % h == 0:
            return m
        if o <= h and ((k ** 3 // 4 - 1) * m) % (o * h) == 0 and (2 * m) % k == 0:
            return m
    return None


def _name(k: int, host: tuple) -> str:
    p, e, j = host
    return f"p{p}.e{e}.h{j}"


def _edge_switches(k: int) -> list[tuple]:
    return [(p, e) for p in range(k) for e in range(k // 2)]


def skeletons(k: int) -> tuple[dict, dict]:
    """(type A, type B): {child: parent} over (pod, edge, host) indices for the root
    (0, 0, 0), every edge from host index i to i + 1 mod h (module docstring)."""
    h = k // 2
    parent_a: dict = {}
    for j in range(1, h):   # the root's edge switch: the fast chain 0 -> 1 -> ...
        parent_a[(0, 0, j)] = (0, 0, j - 1)
    others = [f for f in _edge_switches(k) if f != (0, 0)]
    for p, e in others:
        i = (p + e) % h   # where the chunk enters: spread over the host indices
        parent_a[(p, e, i)] = (0, 0, (i - 1) % h)
        for t in range(1, h):
            parent_a[(p, e, (i + t) % h)] = (p, e, (i + t - 1) % h)
    parent_b = dict(parent_a)
    p, e = others[-1]
    i, second = (p + e) % h, (p + e + h // 2) % h   # entered twice: two chains
    parent_b[(p, e, second)] = (0, 0, (second - 1) % h)
    return parent_a, parent_b


def phased_timetable(platform, result, most: int):
    """(timetable, chunks per root) of the module docstring for an allgather on an
    oversubscribed fat tree with at most ``most`` chunks per root, or None when the
    platform is not one (:func:`fat_tree_shape`), the collective is not an allgather
    or no chunk count fits."""
    shape = fat_tree_shape(platform)
    if shape is None or set(result.roots) != {(v, "out") for v in platform.compute_nodes} \
            or len(set(result.roots.values())) != 1:
        return None
    k, bandwidth, o = shape
    m = chunk_count(k, o, most)
    if m is None:
        return None
    h, q = k // 2, min(o, k // 2)
    slots = _slots(k, o, m)
    model = transfer_model(platform)
    fast, slow = 1 / bandwidth, o / bandwidth
    unit = math.lcm(fast.denominator, slow.denominator)
    tau = int(slow * unit)
    trees = _trees(k, m, o)
    demand, chain = [dict() for _ in range(h)], {}
    for tree in trees:
        for child, par in tree.parent.items():
            if _edge_of(par) != _edge_of(child):   # slow: received in phase of child
                phase = int(child.rsplit(".h", 1)[1])
                demand[phase][(par, child)] = demand[phase].get((par, child), 0) + tree.weight
            else:
                chain[(par, child)] = chain.get((par, child), 0) + tree.weight
    runs: dict = {}
    moved: dict = {}
    per_phase = slots // h
    for phase in range(h):
        matchings = _perfect_matchings(demand[phase], q * per_phase)
        for s in range(per_phase):
            start = (phase * per_phase + s) * tau
            for route in _slot_routes(k, matchings[s * q:(s + 1) * q]):
                extend_runs(runs.setdefault(route, []), start, 1, tau)
                moved.setdefault(_ends(model, route), []).append(route)
    for (a, b), count in chain.items():   # the fast chains, spread over their slots
        active = [phase * per_phase + s for phase in range(h)
                  if phase != int(b.rsplit(".h", 1)[1]) for s in range(per_phase)]
        route = (a, _switch_of(a), b)
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


def _slots(k: int, o: int, m: int) -> int:
    """S: the slots of a period (module docstring): the host links' load (N-1)m/o when
    o <= h, the edge switches' downlinks' (k^2/2 - 1)m (h slow per slot) beyond."""
    if o <= k // 2:
        return (k ** 3 // 4 - 1) * m // o
    return (k * k // 2 - 1) * m


def _edge_of(name: str) -> str:
    return name.rsplit(".h", 1)[0]


def _switch_of(host: str) -> str:
    """The edge switch of a host ``p{p}.e{e}.h{j}``: ``p{p}.edge{e}``."""
    pod, edge = host.split(".")[:2]
    return f"{pod}.edge{edge[1:]}"


def _ends(model, route) -> tuple:
    held = model.holds(route)[1]
    return (held[0][0], held[-1][0])


def _trees(k: int, m: int, o: int) -> list[Tree]:
    """Every root's images of the two skeletons, 2m/k of type A and the rest of type B
    (o <= h), or m of type A (o > h: the fewest slow edges), with a placeholder route (plane 0, core 0) on every slow edge."""
    h = k // 2
    share = 2 * m // k if o <= h else m
    shapes = [(s, w) for s, w in zip(skeletons(k), (share, m - share)) if w]
    out = []
    for p in range(k):
        for e in range(h):
            for j in range(h):
                def g(x):
                    return _name(k, ((x[0] + p) % k, (x[1] + e) % h, (x[2] + j) % h))
                for shape, w in shapes:
                    parent = {g(c): g(par) for c, par in shape.items()}
                    routes = {c: _slow_inner(par, c, 0, 0) if _edge_of(par) != _edge_of(c)
                              else (_switch_of(c),) for c, par in parent.items()}
                    out.append(Tree(parent, w, g((0, 0, 0)), "out", routes))
    return out


def _slow_inner(sender: str, receiver: str, plane: int, core: int | None) -> tuple:
    """The switches of a slow route through aggregation switch ``plane`` (and core
    ``core`` of that plane between pods; h cores per plane)."""
    ps, pr = sender.split(".")[0], receiver.split(".")[0]
    first, last = _switch_of(sender), _switch_of(receiver)
    if ps == pr:
        return (first, f"{ps}.agg{plane}", last)
    return (first, f"{ps}.agg{plane}", f"core{core}", f"{pr}.agg{plane}", last)


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


def _slot_routes(k: int, planes: list[list]) -> list[tuple]:
    """The routes of one slot: matching a through aggregation switch a; between pods,
    the core of plane a from an edge colouring of the pods' multigraph (degree <= h)."""
    h = k // 2
    routes = []
    for a, matching in enumerate(planes):
        between: dict = {}
        for u, v in matching:
            pu, pv = u.split(".")[0], v.split(".")[0]
            if pu == pv:
                routes.append((u,) + _slow_inner(u, v, a, None) + (v,))
            else:
                between.setdefault((pu, pv), []).append((u, v))
        if not between:
            continue
        colours = weighted_edge_coloring({pair: len(x) for pair, x in between.items()})
        c = 0
        for matching_pods in colours:
            for _ in range(matching_pods.weight):
                for pair in matching_pods.edges:
                    u, v = between[pair].pop()
                    routes.append((u,) + _slow_inner(u, v, a, a * h + c) + (v,))
                c += 1
        if c > h:   # pragma: no cover - König: the pods' degree is at most h
            raise AssertionError("postcondition: more colours than core switches")
    return routes
