"""Ring steps: every root's chunks go round one Hamiltonian cycle of the compute nodes
in lock-step steps (ours, after NCCL's ring allgather; issue 43,
proofs/collectives.md §14).

A *ring* is an order v_0 .. v_{N-1} of the N compute nodes with a route P_i from v_i
to v_{i+1} (indices mod N; :func:`hop_routes`: the route of least cost c_P, then of
fewest hops, through switches only).  It *fits* when the N routes can run all at
once: every resource (:mod:`steady.network.resources`) is held by their parts for at
most its capacity 1 in total (exact).

Tree of root v_j (allgather, direction ``"out"``): the path v_j -> v_{j+1} -> ..
-> v_{j-1} over the ring's routes.  Reduce-scatter (``"in"``): the in-tree of v_j
whose data flows v_{j+1} -> v_{j+2} -> .. -> v_j, over the same routes in the same
direction; an allreduce runs the in steps, then the out steps.  With m chunks per
root, step s = 0 .. N-2 of direction t (0, or 1 for an allreduce's out steps): every
v_i sends over P_i the m chunks of the root v_{i-s} (out; v_{i-1-s} for in), from
(t·(N-1) + s)·m·C, C the ring's largest c_P.  Each hop carries every root's
chunks but its receiver's (out) or its sender's (in): each tree edge its weight.
The period is D·(N-1)·m·C for D directions, so the rate per root is
1 / (D·(N-1)·C) whatever m: one chunk per root, the shortest period (under the
period rule a chunk takes a period per hop, N-1 hops round the ring, so the shorter
the period the shorter the warm-up).  Every transfer of a step
runs inside the step; the ring fits, so the transfers running at once never exceed
a resource.

The rate reaches x* exactly when x* is the compute nodes' own bound and the ring's
routes meet it without contending (sg-dragonfly: every host's up- and down-link
carries 15·x*, x* = 1/15, and a ring of cost-1 routes sharing no link exists).
:func:`ring_search` looks for a ring of C at most a threshold, thresholds the
distinct route costs from the least, by depth-first search (next nodes cheapest
route first, then fewest hops, then the platform's order; a forward check drops a
partial ring that leaves a node without a hop in or out that fits), at most
:data:`RING_SEARCH_STEPS` route checks in all: the same input, the same ring.
The chooser (:func:`.collective.collective_timetable`) tries it after the other
constructions and keeps it only where it beats them.
Runtime checks: the ring fits (re-added from nothing), every tree edge once per
direction, the rate 1 / (D·(N-1)·C), ``Timetable.check``.

*Source paths* (:func:`path_timetable`), the same idea for a broadcast from S
sources: a Hamiltonian path of the compute nodes from each source, every hop of
every path carrying one chunk per period C (slow hops side by side, faster ones
placed exactly in it), rate 1 / C per source (a fat tree's two sources behind one
edge switch: x*, where the optimum's rounded trees reach 0.71).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..network.resources import has_room, transfer_model
from .effort import DEFAULT
from .rail_phases import collective_directions
from .timetable import Timetable, Tree

#: Route checks (does a hop still fit?) that :func:`ring_search` and
#: :func:`path_timetable` make at most, over all thresholds, by default (a bound on
#: their work: deterministic, no clock; ``Effort.collective_ring_checks``).
RING_SEARCH_STEPS = DEFAULT.collective_ring_checks


def hop_routes(platform) -> dict:
    """{(a, b): route} for every ordered pair of compute nodes joined by a route
    through switches only (a link, or compute -> switches -> compute): the least
    cost c_P (the route's slowest link), then the fewest hops, then the first found
    breadth first in the platform's link order."""
    switches = frozenset(platform.switches)
    costs = sorted({link.cost for u in platform.nodes for link in platform.out_links(u)})
    out: dict = {}
    for a in platform.compute_nodes:
        reached = _reached(platform, a, switches)
        for limit in costs:   # the least bottleneck first: BFS over links of cost <= limit
            parent = {a: None}
            layer = [a]
            while layer:
                following = []
                for u in layer:
                    for link in platform.out_links(u):
                        v = link.head
                        if link.cost > limit or v in parent:
                            continue
                        parent[v] = u
                        if v in switches:
                            following.append(v)
                layer = following
            for b in platform.compute_nodes:
                if b != a and (a, b) not in out and b in parent:
                    path, v = [b], b
                    while parent[v] is not None:
                        v = parent[v]
                        path.append(v)
                    out[(a, b)] = tuple(reversed(path))
            if all((a, b) in out for b in reached):
                break
    return out


def _least_cost(platform) -> Fraction:
    """The least cost of a link out of a compute node: no route between two compute
    nodes costs less."""
    return min(link.cost for v in platform.compute_nodes for link in platform.out_links(v))


def _reached(platform, a, switches) -> set:
    """The compute nodes other than ``a`` that a route through switches only reaches."""
    seen, stack, found = {a}, [a], set()
    while stack:
        for link in platform.out_links(stack.pop()):
            v = link.head
            if v not in seen:
                seen.add(v)
                if v in switches:
                    stack.append(v)
                else:
                    found.add(v)
    return found


def _add(used: dict, parts, sign: int = 1) -> None:
    for res, part in parts:
        used[res] = used.get(res, 0) + sign * part


def _fits(used: dict, parts) -> bool:
    return all(used.get(res, 0) + part <= 1 for res, part in parts)


def ring_search(platform, routes: dict, beat: Fraction | None = None,
                steps: int = RING_SEARCH_STEPS):
    """(order, C) of the cheapest ring found (module docstring), or None: thresholds
    the distinct costs of ``routes`` (pairs without a route are no hop) from the
    least; a threshold whose 1 / C is at most ``beat`` (a rate, or None) ends the
    search, as do ``steps`` route checks in all."""
    model = transfer_model(platform)
    nodes = list(platform.compute_nodes)
    if len(nodes) < 2:
        return None
    holds = {pair: model.holds(route) for pair, route in routes.items()}
    rank = {v: i for i, v in enumerate(nodes)}
    budget = [steps]
    for limit in sorted({c for c, _ in holds.values()}):
        if beat is not None and 1 / limit <= beat:
            return None
        following = {a: sorted((b for b in nodes if b != a and (a, b) in holds
                                and holds[(a, b)][0] <= limit),
                               key=lambda b, a=a: (holds[(a, b)][0], len(routes[(a, b)]),
                                                   rank[b]))
                     for a in nodes}
        if not _strongly_connected(nodes, following):
            continue   # no Hamiltonian cycle over these hops
        found = _cycle(nodes, following, holds, budget)
        if found is not None:
            return found, max(holds[(a, b)][0] for a, b in zip(found, found[1:] + found[:1]))
        if budget[0] <= 0:
            return None
    return None


def _preceding(nodes, following) -> dict:
    """{b: [a, ...]}: the ``following`` hops read backwards."""
    preceding: dict = {v: [] for v in nodes}
    for a in nodes:
        for b in following[a]:
            preceding[b].append(a)
    return preceding


def _strongly_connected(nodes, following) -> bool:
    """Every node reaches nodes[0] and is reached from it over the ``following`` hops."""
    return (_reaches_all(nodes[0], nodes, following)
            and _reaches_all(nodes[0], nodes, _preceding(nodes, following)))


def _cycle(nodes, following, holds, budget):
    """A Hamiltonian cycle from nodes[0] over the ``following`` pairs whose routes fit
    together, depth first, or None (none, or ``budget`` route checks spent).  After
    each hop a -> b, nodes[0] must keep a hop in that fits from a node still to
    place, and every node still to place a hop in that fits from b or another such
    node and one out that fits to another or back to nodes[0] (a forward check: a
    partial ring failing it is dropped)."""
    n = len(nodes)
    start = nodes[0]
    preceding = _preceding(nodes, following)
    used: dict = {}
    order = [start]
    seen = {start}

    def fit(a, b) -> bool:
        budget[0] -= 1
        return _fits(used, holds[(a, b)][1])

    def alive(b) -> bool:
        if len(order) < n and not any(p != b and p not in seen and fit(p, start)
                                      for p in preceding[start]):
            return False   # nothing left can close the ring
        for u in nodes:
            if u in seen:
                continue
            if not any((p == b or p not in seen) and p != u and fit(p, u)
                       for p in preceding[u]):
                return False
            if not any((q == start or q not in seen) and q != u and fit(u, q)
                       for q in following[u]):
                return False
        return True

    choices = [iter(following[start])]
    while choices:
        if budget[0] < 0:
            return None
        a = order[-1]
        advanced = False
        for b in choices[-1]:
            if b in seen or not fit(a, b):
                continue
            parts = holds[(a, b)][1]
            if len(order) + 1 == n:   # close the ring: b -> start must fit too
                if start not in following[b]:
                    continue
                _add(used, parts)
                ok = fit(b, start)
                _add(used, parts, -1)
                if ok:
                    return order + [b]
                continue
            _add(used, parts)
            order.append(b)
            seen.add(b)
            if alive(b):
                choices.append(iter(following[b]))
                advanced = True
                break
            order.pop()
            seen.discard(b)
            _add(used, parts, -1)
        if not advanced:
            choices.pop()
            if len(order) > 1:
                b = order.pop()
                seen.discard(b)
                _add(used, holds[(order[-1], b)][1], -1)
            else:
                return None
    return None


def ring_timetable(platform, result, most: int, beat: Fraction | None = None,
                   steps: int = RING_SEARCH_STEPS):
    """(timetable, chunks per root) of ring steps (module docstring), one chunk per
    root, or None: not an allgather, reduce-scatter or allreduce at equal rates
    (:func:`.rail_phases.collective_directions`), ``most`` < 1, or no ring found
    whose rate beats ``beat`` (a rate per root, or None) within ``steps`` route
    checks."""
    directions = collective_directions(platform, result)
    if directions is None or most < 1:
        return None
    d_ = len(directions)
    nodes = list(platform.compute_nodes)
    n = len(nodes)
    if n < 2:
        return None
    rho = next(iter(result.roots.values()))   # the roots' one relative rate
    beat_ring = None if beat is None else beat * rho * d_ * (n - 1)
    if beat_ring is not None and 1 / _least_cost(platform) <= beat_ring:
        return None   # no route is cheap enough: nothing to search
    routes = hop_routes(platform)
    found = ring_search(platform, routes, beat_ring, steps)
    if found is None:
        return None
    order, top = found
    model = transfer_model(platform)
    hops = [(order[i], order[(i + 1) % n]) for i in range(n)]
    used: dict = {}
    for hop in hops:   # postcondition: the ring fits, re-added from nothing
        _add(used, model.holds(routes[hop])[1])
    if any(v > 1 for v in used.values()):   # pragma: no cover - ring_search checks it
        raise AssertionError("postcondition: a ring whose routes exceed a resource")
    unit = math.lcm(*(model.cost(routes[h]).denominator for h in hops))
    step = int(top * unit)
    m = 1   # one chunk per root: the shortest period (the rate does not depend on m)
    trees, runs = [], {}
    for t, direction in enumerate(directions):
        for j in range(n):
            parent, via = {}, {}
            for k in range(1, n):
                a, b = order[(j + k - 1) % n], order[(j + k) % n]
                if direction == "out":   # data a -> b: b's parent is a
                    parent[b] = a
                    inner = routes[(a, b)][1:-1]
                    if inner:
                        via[b] = inner
                else:   # in-tree of v_j: data v_{j+k} -> v_{j+k+1}, the parent its receiver
                    a, b = order[(j + k) % n], order[(j + k + 1) % n]
                    parent[a] = b
                    inner = routes[(a, b)][1:-1]
                    if inner:
                        via[a] = inner
            trees.append(Tree(parent, m, order[j], direction, via or None))
        for i, (a, b) in enumerate(hops):
            for s in range(n - 1):
                j = (i - s) % n if direction == "out" else (i - 1 - s) % n
                l = t * n + j
                arc = (a, b)
                if arc not in trees[l].arcs():   # pragma: no cover - by the indices
                    raise AssertionError("postcondition: a step off its tree")
                runs[(l, arc)] = [[((t * (n - 1)) + s) * m * step, m]]
    period = d_ * (n - 1) * m * step
    table = Timetable.build(platform, trees, runs, period, unit)
    table.check()
    if table.rate(result.roots) != Fraction(1, d_ * (n - 1)) / (rho * top):  # pragma: no cover
        raise AssertionError("postcondition: ring steps off their rate")
    return table, m


#: Routes of the same cost and length tried per pair of compute nodes by
#: :func:`path_timetable` (the first found breadth first).
PATH_ROUTES = 8
#: The most compute nodes :func:`path_timetable` is tried on (its routes are listed
#: for every pair first).
PATH_NODES = 64


def path_timetable(platform, result, most: int, beat: Fraction | None = None,
                   steps: int = RING_SEARCH_STEPS):
    """(timetable, chunks per root) of source paths, one chunk per source, or None
    (ours; proofs/collectives.md §14): a broadcast from S sources at equal rates,
    each source's chunk along its own path through every compute node (a
    Hamiltonian path from the source), every hop within one period of length C, a
    threshold on the hops' costs; the rate is 1 / (ρ·C) per source (ρ the sources'
    relative rate, the same for all).  Hops of cost C (*slow*) run the whole period
    side by side; a faster hop runs once somewhere in it.  The search (thresholds as
    for rings, only those whose 1 / C beats ``beat``·ρ; source after source, no
    backtracking across sources; each hop over one of :data:`PATH_ROUTES` routes of
    the pair's least cost and fewest hops; the fastest hops first) keeps, per
    resource, the slow hops' parts F at most 1, a fast hop's part at most 1 - F and
    the fast hops' times at most C; the fast hops are then placed exactly, each at
    the earliest instant where its parts fit (:func:`_placed`), or the threshold
    fails.  At most ``steps`` route checks."""
    from ..network.resources import alternative_routes

    roots = result.roots
    nodes = list(platform.compute_nodes)
    sources = [r for r, _ in roots]
    if most < 1 or result.kind != "broadcast" or len(set(roots.values())) != 1 \
            or any(d != "out" for _, d in roots) or len(nodes) < 2 \
            or len(sources) >= len(nodes) or len(nodes) > PATH_NODES:
        return None
    rho = next(iter(roots.values()))   # the sources' one relative rate: x = 1 / (ρ·C)
    beat = None if beat is None else beat * rho
    if beat is not None and 1 / _least_cost(platform) <= beat:
        return None   # no route is cheap enough: nothing to search
    model = transfer_model(platform)
    base = hop_routes(platform)
    options = {pair: [(model.holds(r), r) for r in
                      alternative_routes(platform, route, model, 0, PATH_ROUTES)]
               for pair, route in base.items()}
    rank = {v: i for i, v in enumerate(nodes)}
    budget = [steps]
    for limit in sorted({h[0] for o in options.values() for h, _ in o}):
        if beat is not None and 1 / limit <= beat:
            return None
        hops = {a: sorted(((b, h, r) for b in nodes if (a, b) in options
                           for h, r in options[(a, b)] if h[0] <= limit),
                          key=lambda item: (item[1][0], len(item[2]), rank[item[0]]))
                for a in nodes}
        simple = {a: [b for b, _, _ in hops[a]] for a in nodes}
        if not all(_reaches_all(src, nodes, simple) for src in sources):
            continue   # some node out of a source's reach over these hops
        state = _Holds(limit)
        paths = []
        for s in sources:
            path = _path(s, nodes, hops, state, budget)
            if path is None:
                break
            paths.append(path)
        if len(paths) == len(sources):
            built = _paths_table(platform, result, paths, limit, rho, 1)
            if built is not None:
                return built
        if budget[0] <= 0:
            return None
    return None


def _reaches_all(source, nodes, following) -> bool:
    """Every node is reached from ``source`` over the ``following`` hops."""
    seen, stack = {source}, [source]
    while stack:
        for v in following[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == len(nodes)


class _Holds:
    """Per resource: the parts of the slow hops (cost ``limit``) side by side, the
    largest part and the total time of the fast ones (:func:`path_timetable`)."""

    def __init__(self, limit: Fraction):
        self.limit = limit
        self.slow: dict = {}
        self.fast: dict = {}   # resource -> [time, [parts]]

    def fits(self, hold) -> bool:
        c, parts = hold
        for res, part in parts:
            slow = self.slow.get(res, 0)
            time, fast = self.fast.get(res, (0, ()))
            if c == self.limit:
                if slow + part + max(fast, default=0) > 1:
                    return False
            elif slow + part > 1 or time + c > self.limit:
                return False
        return True

    def add(self, hold, sign: int = 1) -> None:
        c, parts = hold
        for res, part in parts:
            if c == self.limit:
                self.slow[res] = self.slow.get(res, 0) + sign * part
            else:
                entry = self.fast.setdefault(res, [0, []])
                entry[0] += sign * c
                if sign > 0:
                    entry[1].append(part)
                else:
                    entry[1].remove(part)


def _path(source, nodes, hops, state, budget):
    """[(a, b, route), ...]: a Hamiltonian path from ``source`` over ``hops`` that
    fits beside ``state`` (then added to it), depth first with the forward check of
    :func:`_cycle` (each node still to place keeps a hop in that fits), or None."""
    n = len(nodes)
    entering: dict = {v: [] for v in nodes}
    for a in nodes:
        for b, h, r in hops[a]:
            entering[b].append((a, h))
    seen = {source}
    path: list = []
    choices = [iter(hops[source])]

    def fit(hold) -> bool:
        budget[0] -= 1
        return state.fits(hold)

    def alive(b) -> bool:
        return all(any((a == b or a not in seen) and a != u and fit(h)
                       for a, h in entering[u])
                   for u in nodes if u not in seen)

    while choices:
        if budget[0] < 0:
            return None
        a = path[-1][1] if path else source
        advanced = False
        for b, h, r in choices[-1]:
            if b in seen or not fit(h):
                continue
            state.add(h)
            path.append((a, b, r, h))
            seen.add(b)
            if len(seen) == n:
                return [(a_, b_, r_) for a_, b_, r_, _ in path]
            if alive(b):
                choices.append(iter(hops[b]))
                advanced = True
                break
            path.pop()
            seen.discard(b)
            state.add(h, -1)
        if not advanced:
            choices.pop()
            if not path:
                return None
            _, b_, _, h_ = path.pop()
            seen.discard(b_)
            state.add(h_, -1)
    return None


def _placed(items, period: int):
    """Starts of ``items`` [(length, {resource: int part}, {resource: capacity})]
    (integer ticks) within [0, period): each at the earliest instant where all its
    parts fit beside those placed before it (the candidates: 0 and their ends), or
    None when one does not fit."""
    placed: dict = {}   # resource -> [(start, end, part)]
    starts = []
    for length, parts, capacity in items:
        candidates = sorted({0} | {e for res in parts for _, e, _ in placed.get(res, ())})
        for t in candidates:
            if t + length > period:
                return None
            if all(has_room(placed.get(res, ()), t, t + length, p, capacity[res])
                   for res, p in parts.items()):
                break
        else:   # pragma: no cover - 0 is always a candidate
            return None
        for res, p in parts.items():
            placed.setdefault(res, []).append((t, t + length, p))
        starts.append(t)
    return starts


def _paths_table(platform, result, paths, limit: Fraction, rho: Fraction, m: int):
    """The timetable of :func:`path_timetable`'s paths, m chunks per source (slow hops
    from 0, m back to back, the others placed by :func:`_placed`), checked; None when
    a fast hop finds no place."""
    from ..network.resources import integer_parts

    model = transfer_model(platform)
    hops = [(l, a, b, route) for l, path in enumerate(paths) for a, b, route in path]
    costs = [model.cost(route) for _, _, _, route in hops] + [limit]
    unit = math.lcm(*(c.denominator for c in costs))
    period = m * int(limit * unit)
    ints, capacity = integer_parts({i: model.holds(h[3])[1] for i, h in enumerate(hops)})
    order = sorted(range(len(hops)), key=lambda i: (-model.cost(hops[i][3]), i))
    starts = _placed([(m * int(model.cost(hops[i][3]) * unit), dict(ints[i]), capacity)
                      for i in order], period)
    if starts is None:
        return None
    trees, runs = [], {}
    for l, path in enumerate(paths):
        parent = {b: a for a, b, _ in path}
        via = {b: route[1:-1] for _, b, route in path if len(route) > 2}
        trees.append(Tree(parent, m, path[0][0], "out", via or None))
    for i, t in zip(order, starts):
        l, a, b, _ = hops[i]
        runs[(l, (a, b))] = [[t, m]]
    table = Timetable.build(platform, trees, runs, period, unit)
    table.check()
    if table.rate(result.roots) != 1 / (rho * limit):   # pragma: no cover
        raise AssertionError("postcondition: source paths off their rate")
    return table, m
