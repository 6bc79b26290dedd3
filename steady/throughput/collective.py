"""Collectives on today's fabrics: the exact optimal steady-state rate of a broadcast
from one or several sources, an allgather, a reduce-scatter or an allreduce, with trees
and a certificate checked exactly (issue 43; ours; proofs/collectives.md).

The problem: every root r (a compute node, with a relative rate ρ_r) sends x·ρ_r units
of its own data per time unit to every compute node ("out" trees), or, for
reduce-scatter, receives per time unit x units of the reduction of every compute
node's shard for it ("in" trees: reduced where streams meet, at compute nodes).  The
optimum is the largest x that weighted trees reach under the platform's capacity rows
(:mod:`.fabric`): 002 §5.3's tree formulation with one rate per root, solved by
:func:`.trees.solve_rooted`.

* broadcast: one root, the platform's source -- on a one-port platform without
  switches, exactly SSB(G) of 002 §5.2 (:func:`steady.throughput.throughput`);
  ``sources`` (and ``rates``) make it a multi-source broadcast;
* allgather: every compute node a root, equal rates;
* reduce-scatter: every compute node an "in" root -- allgather on the reversed
  platform (proofs/collectives.md, "Reduce-scatter");
* allreduce: reduce-scatter and allgather at once, each compute node both an "in" and
  an "out" root, sharing the capacities: optimal among all ways to run a
  reduce-scatter and an allgather of the same shards, concurrently or one after the
  other; on multi-port fabrics where a cut binds, optimal among all allreduce
  algorithms (the information-theoretic cut bound, proofs/collectives.md).

Symmetry (the platform's ``symmetry``, when it acts freely on the roots and keeps their
rates): one root per orbit is solved and the others' trees are images
(:mod:`.symmetry`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..exact.limits import MAX_EXACT_NODES
from ..exact.maxflow import FlowNetwork
from ..exact.scaling import cost_scale
from ..inputs import as_platform
from ..numbers import format_exact, parse_exact
from .result import (IN, OUT, CollectiveCertificate, CollectiveResult, CutCertificate,
                     RootedTree)
from .symmetry import root_symmetry
from .trees import ExactWayOutLimit, solve_rooted

KINDS = ("broadcast", "allgather", "reduce-scatter", "allreduce")


def collective_throughput(platform, kind: str = "allgather", sources=None, rates=None,
                          symmetry: bool = True, origin: str = "<platform>") -> CollectiveResult:
    """The exact optimal rate of collective ``kind`` (see the module docstring) on
    ``platform`` (a Platform, a steady-platform dict, a networkx DiGraph or a path:
    :mod:`steady.inputs`).  ``sources`` (broadcast only): the roots, default the
    platform's source; ``rates``: their relative rates ({source: rate} or a list in
    the order of ``sources``; default all 1).  ``symmetry=False`` ignores the
    platform's symmetry (for comparisons).  Bad input raises InputError naming the
    element.  Costs too far apart for GLOP take the exact way out of
    :func:`.trees.solve_rooted` (proofs/collective-exact-way-out.md); beyond its
    bounds, InputError on ``costs`` naming the bound."""
    platform = as_platform(platform)
    roots = collective_roots(platform, kind, sources, rates, origin)
    _within_size(platform, origin)
    _check_reachable(platform, roots, origin)
    start = time.perf_counter()
    a = cost_scale(platform)
    solved = platform if a == 1 else platform.scale_costs(1 / a)
    group, why = root_symmetry(solved, roots) if symmetry else (None, "not asked")
    bound = None
    if platform.multi_port and platform.network is None:
        bound = cut_bound(solved, kind, roots, group)
    try:
        solution = solve_rooted(solved, roots, group)
    except ExactWayOutLimit as exc:  # GLOP gave up and the exact way out hit a bound
        raise InputError(origin, "costs", f"the float search of the collective LP failed; "
                         f"{exc} (docs/limits.md)") from None
    result = _result(platform, kind, roots, solution, group, why, a, bound)
    result.stats["seconds"] = round(time.perf_counter() - start, 4)
    return result


def collective_roots(platform, kind: str, sources=None, rates=None,
                     origin: str = "<platform>") -> dict:
    """{(node, direction): relative rate} of collective ``kind`` (InputError on bad
    sources or rates)."""
    if kind not in KINDS:
        raise InputError(origin, "collective", f"unknown collective {kind!r} (choose "
                         "from " + ", ".join(KINDS) + ")")
    compute = platform.compute_nodes
    if kind != "broadcast":
        if sources is not None or rates is not None:
            raise InputError(origin, "sources", f"{kind}: every compute node is a root "
                             "(sources and rates are for a broadcast)")
        directions = {"allgather": (OUT,), "reduce-scatter": (IN,),
                      "allreduce": (IN, OUT)}[kind]
        return {(v, d): Fraction(1) for v in compute for d in directions}
    if sources is None:
        sources = [platform.source]
    elif isinstance(sources, str):
        sources = [s for s in sources.split(",")]
    elif not isinstance(sources, Iterable):
        sources = [sources]
    # a networkx graph's own nodes (tuples, ints) name the platform's str(node)
    sources = _rejoined([s if isinstance(s, str) else str(s) for s in sources],
                        platform.nodes)
    if not sources:
        raise InputError(origin, "sources", "no source given")
    seen = set()
    for i, s in enumerate(sources):
        if s not in platform.nodes:
            raise InputError(origin, f"sources[{i}]", f"unknown node {s!r}")
        if s in platform.switches:
            raise InputError(origin, f"sources[{i}]", f"{s} is a switch: a switch has no "
                             "data of its own")
        if s in seen:
            raise InputError(origin, f"sources[{i}]", f"{s} is given twice")
        seen.add(s)
    weights = _rates(sources, rates, origin)
    return {(s, OUT): weights[s] for s in sources}


def _rejoined(pieces: list, nodes) -> list:
    """The sources, with the pieces of a comma-split list joined again where a node's
    own name holds commas (networkx nodes that are tuples, ForestColl's style, become
    names like ``(0, 'GPU', 0)``): a piece that names no node is joined with the next
    ones while that names one (at most as many as the longest such name has pieces)."""
    names = set(nodes)
    widest = 1 + max((name.count(",") for name in names), default=0)
    out, i = [], 0
    while i < len(pieces):
        take = 1
        if pieces[i] not in names:
            take = next((j for j in range(2, min(widest, len(pieces) - i) + 1)
                         if ",".join(pieces[i:i + j]) in names), 1)
        out.append(",".join(pieces[i:i + take]))
        i += take
    return out


def _rates(sources, rates, origin) -> dict:
    if rates is None:
        return {s: Fraction(1) for s in sources}
    if isinstance(rates, Mapping):
        rates = {s if isinstance(s, str) else str(s): v for s, v in rates.items()}
        unknown = [s for s in rates if s not in sources]
        if unknown:
            raise InputError(origin, f"rates[{unknown[0]!r}]", "not a source")
        values = [rates.get(s, 1) for s in sources]
    else:
        values = list(rates)
        if len(values) != len(sources):
            raise InputError(origin, "rates", f"{len(values)} rates for {len(sources)} "
                             "sources")
    found = {}
    for s, v in zip(sources, values):
        try:
            r = parse_exact(v)
        except (ValueError, TypeError):
            raise InputError(origin, f"rates[{s!r}]", f"must be an exact number > 0, got "
                             f"{v!r}") from None
        if r <= 0:
            raise InputError(origin, f"rates[{s!r}]", f"must be > 0, got {format_exact(r)}")
        found[s] = r
    return found


def _within_size(platform, origin) -> None:
    n = len(platform.nodes)
    if n > MAX_EXACT_NODES:
        raise InputError(origin, "nodes", f"{n} nodes, more than the {MAX_EXACT_NODES} "
                         "the exact optimum takes (docs/limits.md)")


def _check_reachable(platform, roots, origin) -> None:
    """Every "out" root reaches every compute node; every compute node reaches every
    "in" root (paths through compute nodes count: they store and forward)."""
    succ: dict[str, list[str]] = {v: [] for v in platform.nodes}
    pred: dict[str, list[str]] = {v: [] for v in platform.nodes}
    for l in platform.links:
        succ[l.tail].append(l.head)
        pred[l.head].append(l.tail)
    compute = platform.compute_nodes
    for direction, step, words in ((OUT, succ, "cannot reach"), (IN, pred,
                                                                  "cannot be reached from")):
        for r in dict.fromkeys(r for r, d in roots if d == direction):
            seen, stack = {r}, [r]
            while stack:
                for w in step[stack.pop()]:
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
            missing = [v for v in compute if v not in seen]
            if missing:
                raise InputError(origin, f"root {r}", f"{words} {missing[0]}"
                                 + (f" (and {len(missing) - 1} more compute nodes)"
                                    if len(missing) > 1 else ""))


def _result(platform, kind, roots, sol, group, why, a, bound) -> CollectiveResult:
    """The CollectiveResult of a RootedSolution on costs c/a: trees expanded by the
    group, prices and bounds on the full rows, everything scaled back to costs c."""
    master, fabric = sol.master, sol.master.fabric
    order = group.order if group is not None else 1
    x = sol.x / a
    trees = []
    pool = []   # every tree the search generated, with its images: integer packings
    names = np.array(platform.nodes, dtype=object)
    rates = dict(_tree_rates(master, sol.solution))
    for k in range(len(master.trees)):
        root = master.tree_roots[k]
        shape = _shape(fabric, root, master.trees[k], master.tree_hops[k])
        if group is None:
            images = (_image(shape, root, platform.nodes),)
        else:
            images = tuple(_image(shape, root, names[g]) for _, g in group.orbit(root[0]))
        pool.append(images)
        if k in rates:
            trees.extend((image, rates[k] / a) for image in images)
    # Prices on every row: the pricing prices p_j over |G| (proofs/collectives.md).
    prices = {fabric.rows[j][0]: p / order / a for j, p in enumerate(sol.prices)}
    compute = fabric.compute
    root_costs, tree_bounds = {}, {}
    for rep, w in sol.root_costs.items():
        cost, family = sol.bounds[rep]
        if cost < w:  # pragma: no cover - solve_rooted ends only when none is
            raise AssertionError("postcondition: a tree costs less than its root's dual")
        tree_bounds[rep] = tuple((frozenset(compute[i] for i in members), z / order)
                                 for members, z in family)
        nodes = [rep[0]] if group is None else [v for v, _ in group.orbit(rep[0])]
        for v in nodes:
            root_costs[(v, rep[1])] = w / order
    _postcondition(x, prices, roots, root_costs, tree_bounds)
    cut, stats = None, dict(sol.stats)
    if bound is not None:  # computed on costs c/a: the same sets, capacities times 1/a
        bound = CutCertificate(bound.side, bound.direction, bound.capacity / a, bound.share)
        stats["information_bound" if kind == "allreduce" else "cut_bound"] = bound.bound
        if bound.bound == x:
            cut = bound
    solved = len(sol.root_costs)
    stats.update({"symmetry": f"group of order {order}, {solved} "
                              f"root{'' if solved == 1 else 's'} solved"
                              if group is not None else f"none ({why})",
                  "trees": len(trees), "cost_scale": format_exact(a)})
    certificate = CollectiveCertificate(prices, root_costs, tree_bounds,
                                        tuple(platform.symmetry) if group is not None else (),
                                        cut)
    return CollectiveResult(kind, x, dict(roots), tuple(trees), certificate, compute,
                            platform.ports, stats, tuple(pool))


def _tree_rates(master, solution):
    """(tree index, exact rate) of the master's trees with a positive rate."""
    first = 0 if master.single else master.x + 1
    return [(k, solution.x[first + k]) for k in range(len(master.trees))
            if solution.x[first + k]]


def _shape(fabric, root, parent, hops) -> tuple:
    """A tree as node indices: (root, [(child, parent, route or None)]), a route only
    for an edge that crosses switches."""
    index = {v: i for i, v in enumerate(fabric.platform.nodes)}
    edges = []
    for child, par in parent.items():
        route = hops[child] if hops else None
        nodes = (tuple(index[v] for v in fabric.edges_of(route))
                 if route is not None and len(route) > 1 else None)
        edges.append((index[child], index[par], nodes))
    return index[root[0]], edges


def _image(shape, root, names) -> RootedTree:
    """The RootedTree of a shape whose node i is named ``names[i]`` (the platform's
    names, or their images under a group element)."""
    r, edges = shape
    parent, routes = {}, {}
    for child, par, route in edges:
        parent[names[child]] = names[par]
        if route is not None:
            routes[names[child]] = tuple(names[i] for i in route)
    return RootedTree(names[r], root[1], parent, routes)


def _postcondition(x, prices, roots, root_costs, tree_bounds) -> None:
    """The certificate's identities, exactly (the independent check is
    :func:`steady.certificate.check_collective`)."""
    if any(p < 0 for p in prices.values()) or sum(prices.values()) != x:
        raise AssertionError("postcondition: the prices are not >= 0 summing to x")
    if sum(roots[r] * w for r, w in root_costs.items()) < 1:
        raise AssertionError("postcondition: sum of ρ_r·w_r < 1")
    for r, family in tree_bounds.items():
        if sum(z for _, z in family) < root_costs[r]:
            raise AssertionError(f"postcondition: the dual family of {r} proves less than w_r")


# -- the cut that binds (multi-port; a second, combinatorial proof) --------------------

def cut_bound(platform, kind, roots, group=None) -> CutCertificate:
    """The cut bound (multi-port, no network section; proofs/collectives.md §6-7): the
    cut S minimising capacity / share over the node sets that hold a root and miss a
    compute node -- B+(S) / (sum of the relative rates of the roots in S) for out trees,
    B-(S) / (the same) for in trees --, or for allreduce the information-theoretic
    bound min B+(S) / N.  No schedule of the model exceeds its ``bound``.

    By Dinkelbach's method on exact integer max-flows (OR-Tools): with a super-source
    σ -> r of capacity λ·ρ_r, the minimum cut separating a compute node v is
    λ·ρ(roots) + min over S not holding v of [B(S) - λ·ρ(S ∩ roots)]; while that is
    negative for some v, its cut has a smaller ratio, which becomes λ."""
    if kind == "allreduce":
        return _information_cut(platform)
    direction = IN if kind == "reduce-scatter" else OUT
    links = [(l.tail, l.head, 1 / l.cost) if direction == OUT else (l.head, l.tail, 1 / l.cost)
             for l in platform.links]
    rho = {r: w for (r, _), w in roots.items()}
    total = sum(rho.values())
    compute = platform.compute_nodes
    targets = [v for v in compute if len(rho) > 1 or v not in rho]
    if group is not None and group.acts_on_compute:
        targets = group.node_reps  # the max-flows are invariant under the group
    sigma = ("<every root>",)
    nodes = list(platform.nodes) + [sigma]
    arcs = [(u, v) for u, v, _ in links] + [(sigma, r) for r in rho]

    def capacity(side):
        return sum((c for u, w, c in links if u in side and w not in side), Fraction(0))

    side = frozenset(platform.nodes) - {targets[0]}
    share = sum((w for r, w in rho.items() if r in side), Fraction(0))
    ratio = capacity(side) / share
    while True:
        scale = _lcm_den([c for _, _, c in links] + [ratio * w for w in rho.values()])
        caps = [int(c * scale) for _, _, c in links] + [int(ratio * w * scale)
                                                         for w in rho.values()]
        network = FlowNetwork(nodes, sigma, arcs, caps)
        best = None
        for v in targets:
            gap = network.max_flow(v) - ratio * total * scale
            if gap < 0 and (best is None or gap < best[0]):
                found = network.sink_side()
                if found is None:  # pragma: no cover - huge integers: keep the bound
                    continue
                best = (gap, frozenset(found) - {sigma})
        if best is None:
            return CutCertificate(side, direction, capacity(side), share)
        side = best[1]
        share = sum((w for r, w in rho.items() if r in side), Fraction(0))
        ratio = capacity(side) / share


def _information_cut(platform) -> CutCertificate:
    """Allreduce: the cut S minimising B+(S) among those that hold some compute nodes
    and miss some, share N: no allreduce gets a higher rate per root than B+(S)/N
    (proofs/collectives.md §6).  min_S B+(S) is the smallest max-flow r0 -> v or
    v -> r0 over the compute nodes v, r0 the first one (every such S separates r0 from
    some v, one way or the other)."""
    compute = platform.compute_nodes
    scale = _lcm_den([1 / l.cost for l in platform.links])
    caps = [int(scale / l.cost) for l in platform.links]
    r0 = compute[0]
    best = None
    for reverse in (False, True):
        arcs = [(l.head, l.tail) if reverse else (l.tail, l.head) for l in platform.links]
        network = FlowNetwork(platform.nodes, r0, arcs, caps)
        for v in compute[1:]:
            value, side = network.min_cut(v)
            if best is None or value < best[0]:
                # reversed: a cut into r0's side, its complement leaves toward r0
                best = (value, frozenset(platform.nodes) - side if reverse else frozenset(side))
    side = best[1]
    capacity = sum((1 / l.cost for l in platform.links
                    if l.tail in side and l.head not in side), Fraction(0))
    return CutCertificate(side, OUT, capacity, Fraction(len(compute)))


def cut_prices(fabric, cut: CutCertificate) -> dict:
    """The prices a cut proves its bound with (proofs/collectives.md §7): 1/(c_l·share)
    on every link crossing it (out of S for out cuts, into S for in cuts), summing to
    the bound; every tree of a root in S (out trees; the roots outside S for the in
    trees of an allreduce cut) costs at least 1/share under them.  (Tried as the first
    center of the pricing's smoothing: it made the search slower -- 32 -> 38 rounds
    on MI250 1 box, 172 -> 500 on 2 boxes without symmetry --, as such sparse prices
    leave most trees tied; kept for tests and readers.)"""
    side = cut.side
    found = {}
    for l in fabric.links:
        crossing = (l.tail in side and l.head not in side) if cut.direction == OUT \
            else (l.head in side and l.tail not in side)
        if crossing:
            found[("arc", l.arc)] = 1 / (l.cost * cut.share)
    return found


def _lcm_den(values) -> int:
    from math import lcm

    scale = 1
    for v in values:
        scale = lcm(scale, Fraction(v).denominator)
    return scale


# -- more trees, for integer packings of short periods -------------------------------

def tree_pool(platform, result, rounds: int = 16, seed: int = 0,
              neighbours: int = 2000) -> tuple:
    """Trees for the integer packings of a short period (ours), each with its images
    under the symmetry -- the format of ``result.pool``:

    * *neighbours*: the optimum's trees with one edge moved to another parent whose
      cheapest route costs the same under the certificate's prices (exact), so that the
      tree still costs w_r: every such tree may carry rate in an optimum (complementary
      slackness), and mixes of them balance loads that the optimum's few trees balance
      only with large denominators (A100, 2 boxes: trees crossing InfiniBand once and
      twice); at most ``neighbours``;
    * the cheapest tree of every representative root under ``rounds`` random
      perturbations of the prices (each row orbit's price times 1 ± 1/2, rows without a
      price given a little): nearly optimal trees.

    Which mix packs best in integers is the packing's question (steady.schedule
    .collective).  A search, seeded (the same input gives the same trees), its work
    bounded by ``rounds`` and ``neighbours``."""
    import random

    from .fabric import Fabric
    from .trees import RoutePricing

    platform = as_platform(platform)
    roots = result.roots
    group, _ = root_symmetry(platform, roots)
    fabric = Fabric(platform, roots)
    orbits = group.row_orbits(fabric) if group is not None else None
    if orbits is None:
        group, orbits = None, [[j] for j in range(len(fabric.rows))]
    reps = group.reps if group is not None else list(roots)
    pricing = RoutePricing(fabric, group if group is not None and group.acts_on_compute
                           else None)
    base = [float(result.certificate.prices.get(key, 0)) for key, _ in fabric.rows]
    positive = [p for p in base if p > 0]
    floor = (sum(positive) / len(positive) if positive else 1.0) / 20
    names = np.array(platform.nodes, dtype=object)
    rng = random.Random(seed)
    seen, pool = set(), []

    def keep(r, parent, hops):
        key = (r, frozenset(parent.items()),
               frozenset((c, tuple(h)) for c, h in hops.items()))
        if key in seen:
            return
        seen.add(key)
        shape = _shape(fabric, r, parent, hops)
        if group is None:
            pool.append((_image(shape, r, platform.nodes),))
        else:
            pool.append(tuple(_image(shape, r, names[g]) for _, g in group.orbit(r[0])))

    for r, parent, hops in _neighbours(fabric, result, reps, pricing, neighbours):
        keep(r, parent, hops)
    for _ in range(rounds):
        prices = [0.0] * len(base)
        for orbit in orbits:
            factor = 0.5 + rng.random()
            for j in orbit:
                prices[j] = (base[j] or floor * rng.random()) * factor
        closure = pricing.closure(prices)
        for r in reps:
            _, parent, hops = pricing.cheapest(closure, r)
            keep(r, parent, hops)
    return tuple(pool)


def _neighbours(fabric, result, reps, pricing, most: int):
    """(root, parent, hops) of the optimum's trees at the representative roots with one
    edge moved (see :func:`tree_pool`), in a deterministic order, at most ``most``."""
    from .fabric import price_scale

    cert = result.certificate
    prices = [Fraction(cert.prices.get(key, 0)) for key, _ in fabric.rows]
    scale = price_scale(fabric, prices)
    compute = fabric.compute
    cheapest = {}
    for s, t, w, route in pricing.closure(prices, scale)[0]:
        cheapest[(compute[s], compute[t])] = (w, route)
    link = fabric.link_index
    found = 0
    for tree, _ in result.trees:
        r = (tree.root, tree.direction)
        if r not in reps:
            continue
        parent = dict(tree.parent)
        hops = {c: tuple(link[(a, b)] for a, b in zip(path, path[1:]))
                for c in parent for path in (tree.route(c),)}
        children: dict = {}
        for c, par in parent.items():
            children.setdefault(par, []).append(c)
        for v in sorted(parent):
            below, stack = {v}, [v]
            while stack:
                for c in children.get(stack.pop(), ()):
                    below.add(c)
                    stack.append(c)
            old = _edge(parent[v], v, r[1])
            if old not in cheapest:
                continue
            price = cheapest[old][0]
            for u in compute:
                if u in below or u == parent[v]:
                    continue
                new = _edge(u, v, r[1])
                if cheapest.get(new, (None,))[0] != price:
                    continue
                moved = dict(parent)
                moved[v] = u
                routes = dict(hops)
                routes[v] = pricing.fabric.resolve(cheapest[new][1], pricing.symmetry)
                yield r, moved, routes
                found += 1
                if found >= most:
                    return


def _edge(par, child, direction) -> tuple:
    """The (sender, receiver) of a tree edge as the data flows."""
    return (par, child) if direction == OUT else (child, par)
