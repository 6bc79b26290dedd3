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
    """Re-check ``result`` (a ThroughputResult) against ``platform``; see the module."""
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
