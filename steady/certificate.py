"""Independent re-check of a throughput result (proofs/certificate.md).

``check(platform, result)`` trusts nothing the solver computed except the numbers it
reports, and re-derives the proof with different code: networkx's max-flow (on exact
integers) and networkx's own Edmonds branching (on exact Fractions), not the solver's
OR-Tools max-flow or :mod:`steady.exact.arborescence`.  It verifies

1. primal: the rates n live on links of the platform (of the tree / DAG for those
   scopes), are >= 0, load no port beyond one time unit, and let every destination
   receive ``throughput`` per time unit (max-flow from the source >= TP);
2. dual: the port prices are >= 0 and sum to TP, and every spanning arborescence rooted
   at the source costs >= 1 under the weights c_{j,k}(y_j^out + y_k^in);
3. the reported period is 1/TP.

On a platform with a network section (issue 19), every shared link l that a route
crosses is one more capacity: the rates load it sum_{e through l} n_e c_l <= 1 (checked
with 1), and the certificate's link prices z_l >= 0 join the port prices in 2: they sum
to TP with them, and add z_l c_l to the weight of every arc whose route crosses l
(proofs/network-links.md).  The routes are read from the platform here, independently
of the solver's rows.

Together 1 and 2 prove that TP is the optimum of the scope's problem (weak duality).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import networkx as nx

from .inputs import as_platform


@dataclass
class CheckReport:
    """What the check found: ``ok`` is true when ``problems`` is empty."""

    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def __bool__(self) -> bool:
        return self.ok


def check(platform, result) -> CheckReport:
    """Re-check ``result`` (a ThroughputResult; a collective's result goes to
    :func:`check_collective`) against ``platform`` -- any input the solver accepts
    (:func:`steady.inputs.as_platform`: a Platform, a dict, a networkx DiGraph, a
    path); see the module."""
    platform = as_platform(platform)
    if hasattr(result, "roots"):   # a CollectiveResult (issue 43)
        return check_collective(platform, result)
    report = CheckReport()
    scope = _scope_platform(platform, result, report)
    if scope is None:
        return report
    tp = Fraction(result.throughput)
    if tp <= 0:
        report.problems.append(f"throughput {tp} is not positive")
        return report
    if Fraction(result.period) != 1 / tp:
        report.problems.append(f"period {result.period} is not 1/throughput")
    n = {arc: Fraction(x) for arc, x in result.n.items()}
    _check_rates(scope, n, report)
    _check_link_loads(scope, n, report)
    if report.problems:
        return report
    _check_flows(scope, n, tp, report)
    _check_prices(scope, result.certificate, tp, report)
    return report


def _scope_platform(platform, result, report):
    if result.scope == "graph":
        return platform
    if result.scope == "dag":
        if not platform.is_dag():
            report.problems.append("scope 'dag' but the platform has a cycle")
            return None
        return platform
    if result.scope == "tree":
        parent = result.tree or {}
        arcs = {(p, c) for c, p in parent.items()}
        try:
            platform.check_arborescence(parent, "tree")
        except ValueError as exc:
            report.problems.append(f"the tree is not a spanning arborescence: {exc}")
            return None
        return platform.subplatform(lambda l: l.arc in arcs)
    report.problems.append(f"unknown scope {result.scope!r}")
    return None


def _check_rates(scope, n, report):
    for arc, x in n.items():
        if not scope.has_link(*arc):
            report.problems.append(f"rate on {arc[0]}->{arc[1]}, which is not a link in scope")
        elif x < 0:
            report.problems.append(f"negative rate {x} on {arc[0]}->{arc[1]}")
    busy_out: dict[str, Fraction] = {}
    busy_in: dict[str, Fraction] = {}
    for (u, v), x in n.items():
        if scope.has_link(u, v):
            busy_out[u] = busy_out.get(u, Fraction(0)) + x * scope.cost(u, v)
            busy_in[v] = busy_in.get(v, Fraction(0)) + x * scope.cost(u, v)
    for port, busy in (("out-port", busy_out), ("in-port", busy_in)):
        for v, t in busy.items():
            if t > 1:
                report.problems.append(f"{port} of {v} busy {t} > 1 per time unit")


def shared_link_arcs(platform) -> dict:
    """{link id: (cost, [arcs whose route crosses it])} for the shared links of the
    platform's network section that some route of an arc of ``platform`` crosses;
    empty without a network.  Public for the other independent checker
    (steady.verify)."""
    network = getattr(platform, "network", None)
    found: dict = {}
    if network is None:
        return found
    for (tail, head), ids in network.routes.items():
        if not platform.has_link(tail, head):
            continue
        for lid in ids:
            link = network.link(lid)
            if link.sharing == "shared":
                found.setdefault(lid, (link.cost, []))[1].append((tail, head))
    return found


def link_price_weights(platform, link_prices) -> dict:
    """{arc: sum of z_l c_l over the shared links of its route} (issue 19)."""
    weights: dict = {}
    for lid, (cost, arcs) in shared_link_arcs(platform).items():
        z = Fraction(link_prices.get(lid, 0))
        if z:
            for arc in arcs:
                weights[arc] = weights.get(arc, Fraction(0)) + z * cost
    return weights


def _check_link_loads(scope, n, report):
    for lid, (cost, arcs) in shared_link_arcs(scope).items():
        busy = sum((n.get(arc, Fraction(0)) for arc in arcs), Fraction(0)) * cost
        if busy > 1:
            report.problems.append(f"shared link {lid} busy {busy} > 1 per time unit")


def _check_flows(scope, n, tp, report):
    scale = lcm(tp.denominator, *(x.denominator for x in n.values()))
    graph = nx.DiGraph()
    graph.add_nodes_from(scope.nodes)
    for (u, v), x in n.items():
        if x > 0:
            graph.add_edge(u, v, capacity=int(x * scale))
    need = tp * scale
    for d in scope.destinations:
        value = nx.maximum_flow_value(graph, scope.source, d)
        if value < need:
            report.problems.append(f"{d} can receive only {Fraction(value, scale)} < TP = {tp}")


def _check_prices(scope, certificate, tp, report):
    out_p = {v: Fraction(p) for v, p in certificate.out_prices.items()}
    in_p = {v: Fraction(p) for v, p in certificate.in_prices.items()}
    link_p = {l: Fraction(p) for l, p in getattr(certificate, "link_prices", {}).items()}
    if any(p < 0 for p in [*out_p.values(), *in_p.values(), *link_p.values()]):
        report.problems.append("a port price is negative" if not link_p
                               else "a port or link price is negative")
        return
    total = (sum(out_p.values(), Fraction(0)) + sum(in_p.values(), Fraction(0))
             + sum(link_p.values(), Fraction(0)))
    if total != tp:
        what = "port and link prices" if link_p else "port prices"
        report.problems.append(f"{what} sum to {total}, not TP = {tp}")
    extra = link_price_weights(scope, link_p)
    weights = {l.arc: l.cost * (out_p.get(l.tail, 0) + in_p.get(l.head, 0))
               + extra.get(l.arc, 0)
               for l in scope.links if l.head != scope.source}  # nothing enters the root
    cost = _min_arborescence_cost(scope.nodes, weights)
    if cost is None:
        report.problems.append("no spanning arborescence rooted at the source")
    elif cost < 1:
        report.problems.append(f"a spanning arborescence costs {cost} < 1 under the prices")


def min_arborescence_cost(nodes, weights: dict, root=None) -> Fraction | None:
    """Exact cost of a cheapest spanning arborescence of ``nodes`` under ``weights``
    ({(tail, head): exact weight}), or None when there is none.

    With ``root`` given, arcs into ``root`` are ignored, so the arborescence is rooted
    there; without it the caller must already have dropped every arc into the root.
    Public for other independent checkers (steady.verify); see
    :func:`_min_arborescence_cost` for why this is not networkx's own routine."""
    if root is not None:
        weights = {arc: w for arc, w in weights.items() if arc[1] != root}
    return _min_arborescence_cost(tuple(nodes), {arc: Fraction(w) for arc, w in weights.items()})


def _min_arborescence_cost(nodes, weights: dict) -> Fraction | None:
    """Exact cost of a cheapest spanning arborescence (arcs -> Fraction weights), by
    networkx's Edmonds *maximum branching*, or None when there is none.

    Not ``nx.minimum_spanning_arborescence``: (networkx 3.6) it maps w to
    2·max - min + 1 - w and asks for a maximum branching, which is only guaranteed to be
    spanning when max - min < 1/(|V| - 3); otherwise it may raise "No minimum spanning
    arborescence" on graphs that have one (e.g. weights Ps->P1 3, P1->P2 3, P2->P1 1,
    P2->P3 2, P3->P2 1).  Here w -> K - w with K = (|V|-1)·max - (|V|-2)·min + 1: every
    new weight is >= 1, a spanning arborescence weighs >= (|V|-1)(K - max), which exceeds
    (|V|-2)(K - min), the most a branching with fewer arcs can weigh.  So a maximum
    branching is spanning whenever an arborescence exists, and is then a cheapest one
    (all spanning ones have |V|-1 arcs)."""
    k = len(nodes)
    if not weights:
        return Fraction(0) if k == 1 else None
    hi, lo = max(weights.values()), min(weights.values())
    big = (k - 1) * hi - (k - 2) * lo + 1
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    for (u, v), w in weights.items():
        graph.add_edge(u, v, weight=big - w)
    branching = nx.maximum_branching(graph, attr="weight")
    if branching.number_of_edges() != k - 1:
        return None
    return sum((weights[arc] for arc in branching.edges), Fraction(0))


# -- collectives (issue 43; proofs/collectives.md) -----------------------------------
#
# ``check_collective`` re-derives the proof of a CollectiveResult from the platform and
# the numbers only: the trees and their routes (walked link by link), the loads of the
# capacity rows (recomputed here from the model: ports in the one-port model, links in
# the multi-port one, shared network links), the prices, and every root's tree bound
# (Edmonds' dual family checked against the cheapest route between every pair of
# compute nodes, found by networkx's Dijkstra).  With a symmetry, its generators are
# checked to be automorphisms that keep the roots and the prices; one root per orbit
# then carries the bound, and the routes are searched from one node per orbit.

_COLLECTIVE_DIRECTIONS = {"allgather": ("out",), "reduce-scatter": ("in",),
                          "allreduce": ("in", "out")}


def check_collective(platform, result) -> CheckReport:
    """Re-check ``result`` (a CollectiveResult) against ``platform`` (any input
    collective_throughput accepts: :func:`steady.inputs.as_platform`) independently;
    see the comment above and proofs/collectives.md."""
    platform = as_platform(platform)
    report = CheckReport()
    x = Fraction(result.rate)
    roots = {r: Fraction(rho) for r, rho in result.roots.items()}
    compute = [v for v in platform.nodes if v not in platform.switches]
    if x <= 0:
        report.problems.append(f"rate {x} is not positive")
        return report
    _check_roots(platform, result.kind, roots, compute, report)
    if report.problems:
        return report
    rows = _model_rows(platform, roots)
    usage: dict = {}  # (row, coefficient, rate) -> how many times, summed over trees
    sums = {r: Fraction(0) for r in roots}
    context = _TreeContext(platform, rows)
    for k, (tree, rate) in enumerate(result.trees):
        _check_tree(context, tree, Fraction(rate), k, roots, compute, usage, sums, report)
        if len(report.problems) > 20:
            return report
    for r, total in sums.items():
        if total != x * roots[r]:
            report.problems.append(f"the trees rooted at {r[0]} ({r[1]}) carry {total}, "
                                   f"not x·ρ = {x * roots[r]}")
    loads = {key: Fraction(0) for key in rows}
    for (key, c, rate), count in usage.items():
        loads[key] += context.values[c] * rate * count
    for key, load in loads.items():
        if load > 1:
            report.problems.append(f"{_words(key)} busy {load} > 1 per time unit")
    cert = result.certificate
    prices = _dual_prices(cert, rows, report)
    if report.problems:
        return report
    if sum(prices.values(), Fraction(0)) != x:
        report.problems.append(f"the prices sum to {sum(prices.values())}, not x = {x}")
    _check_dual(platform, result.kind, roots, cert, prices, rows, compute, x, report,
                True)
    return report


def collective_bound(platform, kind: str, roots: dict, certificate) -> tuple[CheckReport,
                                                                            Fraction | None]:
    """(report, bound): the dual half of :func:`check_collective`, for a schedule that
    carries a collective optimum's certificate (steady.verify).  ``roots`` {(node,
    direction): ρ_r}; ``certificate`` any object with the attributes of a
    CollectiveCertificate.  Prices y >= 0 on the model's rows and w_r per root, every
    tree of root r costing >= w_r (Edmonds' families checked), bound every schedule's
    rate per root by sum(y) / sum(ρ_r·w_r) (weak duality, proofs/collectives.md); the
    bound is None when the report has problems."""
    report = CheckReport()
    roots = {r: Fraction(rho) for r, rho in roots.items()}
    compute = [v for v in platform.nodes if v not in platform.switches]
    _check_roots(platform, kind, roots, compute, report)
    if report.problems:
        return report, None
    rows = _model_rows(platform, roots)
    prices = _dual_prices(certificate, rows, report)
    if report.problems:
        return report, None
    costs = {r: Fraction(w) for r, w in certificate.root_costs.items()}
    weight = sum((roots[r] * w for r, w in costs.items() if r in roots), Fraction(0))
    if weight <= 0:
        report.problems.append("sum over the roots of ρ_r·w_r is not > 0: the prices "
                               "bound nothing")
        return report, None
    bound = sum(prices.values(), Fraction(0)) / weight
    _check_dual(platform, kind, roots, certificate, prices, rows, compute, bound, report,
                False)
    return report, (None if report.problems else bound)


def _dual_prices(cert, rows, report) -> dict:
    prices = {key: Fraction(p) for key, p in cert.prices.items()}
    for key, p in prices.items():
        if key not in rows:
            report.problems.append(f"a price on {_words(key)}, which is not a row of the model")
        elif p < 0:
            report.problems.append(f"negative price {p} on {_words(key)}")
    return prices


def _check_dual(platform, kind, roots, cert, prices, rows, compute, x, report,
                at_least_one: bool) -> None:
    """Every root's w_r stands on a checked tree bound (under the checked symmetry);
    with ``at_least_one``, sum ρ_r·w_r >= 1; a cut, when given, proves ``x``."""
    costs = {r: Fraction(w) for r, w in cert.root_costs.items()}
    if set(costs) != set(roots):
        report.problems.append("root_costs does not give one w per root")
        return
    if at_least_one and sum((roots[r] * w for r, w in costs.items()), Fraction(0)) < 1:
        report.problems.append("sum over the roots of ρ_r·w_r is < 1")
    orbit_of = _symmetry_orbits(platform, cert.symmetry, roots, prices, rows, report)
    if report.problems:
        return
    _check_tree_bounds(platform, cert, roots, costs, prices, rows, compute, orbit_of, report)
    if cert.cut is not None:
        _check_cut(platform, kind, cert.cut, roots, x, compute, report)


def _words(key) -> str:
    kind, what = key
    if kind in ("out", "in"):
        return f"{kind}-port of {what}"
    if kind == "arc":
        return f"arc {what[0]}->{what[1]}"
    return f"link {what}"


def _check_roots(platform, kind, roots, compute, report) -> None:
    for (v, d), rho in roots.items():
        if v not in compute:
            report.problems.append(f"root {v} is not a compute node")
        if d not in ("in", "out") or rho <= 0:
            report.problems.append(f"root {v}: direction {d!r}, relative rate {rho}")
    if kind in _COLLECTIVE_DIRECTIONS:
        wanted = {(v, d) for v in compute for d in _COLLECTIVE_DIRECTIONS[kind]}
        if set(roots) != wanted:
            report.problems.append(f"the roots are not those of a {kind}")
    elif kind != "broadcast" or any(d != "out" for _, d in roots) or not roots:
        report.problems.append(f"the roots are not those of a {kind}")


def _model_rows(platform, roots) -> dict:
    """{row key: None} of the model's capacity rows (recomputed from the platform):
    one-port ports of the compute nodes that can use them and the links between two
    switches; multi-port every link; both, the shared network links that some route
    of an arc crosses."""
    rows = {}
    switches = platform.switches
    multi = platform.ports == "multi-port"
    for v in platform.nodes:
        if v in switches or multi:
            continue
        if any(l.tail == v for l in platform.links) and any(r != (v, "in") for r in roots):
            rows[("out", v)] = None
        if any(l.head == v for l in platform.links) and any(r != (v, "out") for r in roots):
            rows[("in", v)] = None
    for l in platform.links:
        if multi or (l.tail in switches and l.head in switches):
            rows[("arc", (l.tail, l.head))] = None
    for lid in shared_link_arcs(platform):
        rows[("link", lid)] = None
    return rows


class _TreeContext:
    """What every tree's check reads: the links with their costs, the shared network
    links each crosses, the model's rows."""

    def __init__(self, platform, rows):
        self.platform = platform
        self.rows = rows
        # costs as ranks into ``values`` (ints hash and compare fast; the sums are exact)
        shared = shared_link_arcs(platform)
        self.values = sorted({l.cost for l in platform.links}
                             | {cost for cost, _ in shared.values()})
        rank = {c: i for i, c in enumerate(self.values)}
        self.cost = {(l.tail, l.head): rank[l.cost] for l in platform.links}
        self.crossing: dict = {}
        for lid, (cost, arcs) in shared.items():
            for arc in arcs:
                self.crossing.setdefault(arc, []).append((("link", lid), rank[cost]))


def _check_tree(context, tree, rate, k, roots, compute, usage, sums, report):
    """One tree: rooted at a root, one parent per other compute node, no cycle, every
    edge a route (links, switch interiors) from its sender to its receiver; its uses of
    the rows are counted into ``usage``."""
    platform, rows = context.platform, context.rows
    where = f"tree {k} (root {tree.root}, {tree.direction})"
    key = (tree.root, tree.direction)
    if key not in roots:
        report.problems.append(f"{where}: not a root of the collective")
        return
    if rate <= 0:
        report.problems.append(f"{where}: rate {rate} <= 0")
    parent = dict(tree.parent)
    if len(parent) != len(compute) - 1 or set(parent) != set(compute) - {tree.root}:
        report.problems.append(f"{where}: does not give one parent to every other compute node")
        return
    reaches = {tree.root}  # nodes known to lead up to the root
    for v in parent:
        chain = []
        while v not in reaches:
            if v not in parent or v in chain:
                report.problems.append(f"{where}: a cycle or a broken chain through {v}")
                return
            chain.append(v)
            v = parent[v]
        reaches.update(chain)
    counts: dict = {}
    for child, par in parent.items():
        route = tuple(tree.route(child))
        sender, receiver = (par, child) if tree.direction == "out" else (child, par)
        if len(route) < 2 or route[0] != sender or route[-1] != receiver:
            report.problems.append(f"{where}: the route of {child}'s edge does not run "
                                   f"from {sender} to {receiver}")
            return
        if any(v not in platform.switches for v in route[1:-1]):
            report.problems.append(f"{where}: the route of {child}'s edge crosses a "
                                   "compute node")
            return
        slowest = -1
        for arc in zip(route, route[1:]):
            c = context.cost.get(arc)
            if c is None:
                report.problems.append(f"{where}: {arc[0]}->{arc[1]} on {child}'s route "
                                       "is not a link")
                return
            if c > slowest:
                slowest = c
            if ("arc", arc) in rows:
                counts[(("arc", arc), c)] = counts.get((("arc", arc), c), 0) + 1
            for row, lc in context.crossing.get(arc, ()):
                counts[(row, lc)] = counts.get((row, lc), 0) + 1
        for port in (("out", sender), ("in", receiver)):
            if port in rows:
                counts[(port, slowest)] = counts.get((port, slowest), 0) + 1
    for (row, c), n in counts.items():
        usage[(row, c, rate)] = usage.get((row, c, rate), 0) + n
    sums[key] += rate


def _symmetry_orbits(platform, generators, roots, prices, rows, report) -> dict:
    """{compute node: (its orbit's first node, g as a dict with g(first) = node)}
    under the group of ``generators`` after checking that each is an automorphism of
    the platform keeping the switches, the roots and their rates, and the prices;
    every node its own orbit without generators."""
    nodes = list(platform.nodes)
    identity = {v: v for v in nodes}
    orbit_of = {v: (v, identity) for v in nodes if v not in platform.switches}
    if not generators:
        return orbit_of
    arcs = {(l.tail, l.head): l.cost for l in platform.links}
    perms = []
    for i, g in enumerate(generators):
        g = {v: g.get(v, v) for v in nodes}
        if sorted(g.values()) != sorted(nodes):
            report.problems.append(f"symmetry[{i}] is not a permutation of the nodes")
            return orbit_of
        if any((v in platform.switches) != (g[v] in platform.switches) for v in nodes):
            report.problems.append(f"symmetry[{i}] maps a switch to a compute node")
        for (u, v), c in arcs.items():
            if arcs.get((g[u], g[v])) != c:
                report.problems.append(f"symmetry[{i}] maps {u}->{v} to no link of its cost")
                break
        for r, rho in roots.items():
            if roots.get((g[r[0]], r[1])) != rho:
                report.problems.append(f"symmetry[{i}] does not keep the roots and their rates")
                break
        for key in rows:
            kind, what = key
            image = (kind, (g[what[0]], g[what[1]]) if kind == "arc" else
                     g[what] if kind in ("out", "in") else what)
            if prices.get(key, 0) != prices.get(image, 0):
                report.problems.append(f"symmetry[{i}] does not keep the price of {_words(key)}")
                break
        perms.append(g)
    if report.problems:
        return orbit_of
    orbit_of = {}
    for v in nodes:
        if v in platform.switches or v in orbit_of:
            continue
        orbit_of[v] = (v, identity)
        queue = [v]
        for u in queue:
            first, g = orbit_of[u]
            for h in perms:
                w = h[u]
                if w not in orbit_of:
                    orbit_of[w] = (first, {a: h[b] for a, b in g.items()})
                    queue.append(w)
    return orbit_of


def _hop_prices(platform, prices) -> dict:
    """{arc: what a route pays for crossing it}: its own row's price times its cost,
    plus its shared network links' prices times their costs."""
    pay = {(l.tail, l.head): prices.get(("arc", (l.tail, l.head)), 0) * l.cost
           for l in platform.links}
    for lid, (cost, arcs) in shared_link_arcs(platform).items():
        for arc in arcs:
            pay[arc] += prices.get(("link", lid), 0) * cost
    return pay


def _route_costs(platform, prices, sources, compute) -> dict:
    """{a: {b: cheapest route price from a to b}} for a in ``sources``, by networkx's
    Dijkstra on exact weights: routes forward only at switches; one-port, the route's
    slowest link costs c_P·(price of a's out-port + price of b's in-port), handled by
    taking, for each cost θ, the routes over links of cost <= θ at θ·(port prices)."""
    pay = _hop_prices(platform, prices)
    multi = platform.ports == "multi-port"
    thresholds = [None] if multi else sorted({l.cost for l in platform.links})
    found: dict = {a: {} for a in sources}
    for theta in thresholds:
        base = nx.DiGraph()
        base.add_nodes_from(platform.nodes)
        for l in platform.links:
            if theta is None or l.cost <= theta:
                base.add_edge(l.tail, l.head, weight=pay[(l.tail, l.head)])
        for a in sources:
            view = nx.subgraph_view(base, filter_edge=lambda u, v, a=a: u == a or
                                    u in platform.switches)
            dist = nx.single_source_dijkstra_path_length(view, a, weight="weight")
            for b, d in dist.items():
                if b == a or b in platform.switches:
                    continue
                if theta is not None:
                    d += theta * (prices.get(("out", a), 0) + prices.get(("in", b), 0))
                if b not in found[a] or d < found[a][b]:
                    found[a][b] = d
    return found


def _check_tree_bounds(platform, cert, roots, costs, prices, rows, compute, orbit_of,
                       report) -> None:
    bounds = {r: tuple((frozenset(m), Fraction(z)) for m, z in family)
              for r, family in cert.tree_bounds.items()}
    for (v, d), w in costs.items():  # every root's w stands on a bound in its orbit
        first = orbit_of[v][0]
        carrier = next((r for r in bounds if r[1] == d and orbit_of[r[0]][0] == first), None)
        if carrier is None:
            report.problems.append(f"no tree bound for the orbit of {v} ({d})")
        elif costs[carrier] != w:
            report.problems.append(f"w of {v} ({d}) differs from its orbit's bound")
    if report.problems:
        return
    firsts = list(dict.fromkeys(orbit_of[v][0] for v in compute))
    routes = _route_costs(platform, prices, firsts, compute)
    position = {v: i for i, v in enumerate(compute)}
    scale = lcm(*(d.denominator for by in routes.values() for d in by.values()),
                *(z.denominator for family in bounds.values() for _, z in family))
    # price[a][position of b]: the cheapest route a -> b times scale (None: no route);
    # a's routes are the images under g_a of its orbit's first node's routes
    price = []
    for a in compute:
        first, g = orbit_of[a]
        row = [None] * len(compute)
        for t, d in routes[first].items():
            row[position[g[t]]] = int(d * scale)
        price.append(row)
    for r, family in bounds.items():
        root, direction = r
        where = f"tree bound of {root} ({direction})"
        if any(root in m or not m or not m <= set(compute) or z <= 0 for m, z in family):
            report.problems.append(f"{where}: a set holds the root, a switch, or has z <= 0")
            continue
        if sum((z for _, z in family), Fraction(0)) < costs[r]:
            report.problems.append(f"{where}: its sets prove less than w = {costs[r]}")
        problem = _family_violation(family, compute, position, price, scale, direction)
        if problem:
            report.problems.append(f"{where}: {problem}")


def _family_violation(family, compute, position, price, scale, direction) -> str:
    """'' when every arborescence arc a -> b (out trees: the route a -> b; in trees:
    b -> a) costs at least the z of the sets holding b but not a; else the first
    violation.  The family must be laminar: its sets then nest into a forest, listed
    in an order where each set is an interval, so the sets holding b and a position
    are summed with a difference array (N^2 work, not N^2 times the depth)."""
    order = sorted(range(len(family)), key=lambda i: -len(family[i][0]))
    holder: dict = {}                  # node -> smallest set so far that holds it
    parent = []
    for i in order:
        members = family[i][0]
        above = {holder.get(v) for v in members}
        if len(above) != 1:
            return "its sets are not laminar"
        parent.append((i, above.pop()))
        for v in members:
            holder[v] = i
    children: dict = {None: []}
    for i, up in parent:
        children.setdefault(up, []).append(("set", i))
        children.setdefault(i, [])
    for v in compute:
        children[holder.get(v)].append(("node", v))
    start, end, place = {}, {}, {}
    stack = [("enter", None)]
    while stack:  # an Euler tour: every set is the interval [start, end) of places
        step, what = stack.pop()
        if step == "leave":
            end[what] = len(place)
            continue
        start[what] = len(place)
        stack.append(("leave", what))
        for kind, item in reversed(children[what]):
            if kind == "node":
                place[item] = len(place)
            else:
                stack.append(("enter", item))
    by_place = [None] * len(place)
    for v, k in place.items():
        by_place[k] = v
    up = dict(parent)
    z = [int(family[i][1] * scale) for i in range(len(family))]
    for b in compute:
        chain, s = [], holder.get(b)
        while s is not None:
            chain.append(s)
            s = up[s]
        if not chain:
            continue
        total = sum(z[s] for s in chain)
        diff = [0] * (len(place) + 1)
        for s in chain:
            diff[start[s]] += z[s]
            diff[end[s]] -= z[s]
        inside = 0
        pb = position[b]
        for k, a in enumerate(by_place):
            inside += diff[k]
            entered = total - inside
            if entered <= 0 or a == b:
                continue
            cost = price[position[a]][pb] if direction == "out" else price[pb][position[a]]
            if cost is not None and cost < entered:
                return (f"the edge {a}->{b} costs {Fraction(cost, scale)}, less than the "
                        f"{Fraction(entered, scale)} of the sets it enters")
    return ""


def _check_cut(platform, kind, cut, roots, x, compute, report) -> None:
    side = set(cut.side)
    if cut.direction == "out":
        capacity = sum((1 / l.cost for l in platform.links
                        if l.tail in side and l.head not in side), Fraction(0))
    else:
        capacity = sum((1 / l.cost for l in platform.links
                        if l.head in side and l.tail not in side), Fraction(0))
    inside = [v for v in compute if v in side]
    if len(inside) == len(compute):
        report.problems.append("the cut holds every compute node")
        return
    if kind == "allreduce":
        share = Fraction(len(compute))
        if not inside:
            report.problems.append("the cut holds no compute node")
            return
    else:
        want = "in" if kind == "reduce-scatter" else "out"
        if cut.direction != want:
            report.problems.append(f"a {kind} cut counts the links {want} of S")
            return
        share = sum((rho for (v, _), rho in roots.items() if v in side), Fraction(0))
    if capacity != Fraction(cut.capacity) or share != Fraction(cut.share) or not share \
            or capacity / share != x:
        report.problems.append(f"the cut's capacity {capacity} over its share {share} "
                               f"is not x = {x}")
