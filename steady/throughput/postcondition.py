"""Runtime postcondition shared by every exact formulation: turn an exactly verified LP
vertex into a :class:`ThroughputResult` only after proving, in exact arithmetic, that

* the rates n respect every one-port row (primal feasibility),
* every destination can receive TP through capacities n (exact integer max-flow),
* the port prices are >= 0, sum to TP, and every spanning arborescence costs >= 1
  under them (dual certificate; proofs/certificate.md).
"""

from __future__ import annotations

from fractions import Fraction

from ..numbers import lcm_of_denominators
from ..exact.maxflow import weakest_destination
from ..network.rows import link_loads, link_prices
from .ports import min_tree_cost, port_loads, port_prices
from .result import Certificate, ThroughputResult


class FlowShortfall(Exception):
    """A destination cannot receive TP through n: carries the violated cut."""

    def __init__(self, destination, cut, flow):
        super().__init__(f"{destination} receives only {flow}")
        self.destination, self.cut, self.flow = destination, cut, flow


def certified_result(platform, lp, solution, nvar, tpvar, row_words, formulation,
                     scope="graph", tree=None, stats=None, trees=None) -> ThroughputResult:
    """``nvar``/``tpvar`` locate n and TP among the LP variables; a tree formulation
    passes ``trees`` (child -> parent, rate) instead, which proves the flows itself."""
    if trees is None:
        tp = solution.x[tpvar]
        # The LPs have no in-port row for the source (nothing it needs arrives), so a
        # vertex may put up to 1/c on each link into the source -- the flow LP does, its
        # flows being free to return there -- and overload that port (002 eq. (15)
        # holds for every node).  Such rates reach no destination: dropping them keeps
        # every max-flow and lowers only port loads, and the duals are unchanged.
        n = {arc: (solution.x[j] if arc[1] != platform.source else Fraction(0))
             for arc, j in nvar.items()}
    else:
        tp, n = _tree_rates(platform, trees)
    out_load, in_load = port_loads(platform, n)
    if any(t > 1 for t in out_load.values()) or any(t > 1 for t in in_load.values()):
        raise AssertionError("postcondition: a port is overloaded")
    if any(t > 1 for t in link_loads(platform, n).values()):
        raise AssertionError("postcondition: a shared network link is overloaded")
    if trees is None:
        flow, dest, cut = weakest_destination(platform, n)
        if flow < tp:
            raise FlowShortfall(dest, cut, flow)
    else:
        flow = tp  # each destination receives rate λ_T along every tree T
    out_p, in_p = port_prices(platform, lp, solution.duals)
    link_p = link_prices(lp, solution.duals)  # shared network links (issue 19)
    if any(p < 0 for p in [*out_p.values(), *in_p.values(), *link_p.values()]):
        raise AssertionError("postcondition: negative port or link price")
    if sum(out_p.values()) + sum(in_p.values()) + sum(link_p.values()) != tp:
        raise AssertionError("postcondition: port and link prices do not sum to TP")
    tree_cost = min_tree_cost(platform, out_p, in_p, link_p)
    if tree_cost < 1:
        raise AssertionError(f"postcondition: an arborescence costs {tree_cost} < 1")
    bottleneck = [row_words[i] for i in sorted(row_words) if solution.duals[i] != 0]
    scale = lcm_of_denominators(list(n.values()) + [tp])
    cert = Certificate(out_p, in_p, tree_cost, scale, flow, link_p)
    all_stats = {"float_solves": lp.float_solves,
                 "float_seconds": round(lp.float_seconds, 4),
                 "rows": len(lp.rows), "variables": len(lp.names),
                 "basis_size": solution.basis_size}
    all_stats.update(solution.stats)
    all_stats.update(stats or {})
    return ThroughputResult(tp, n, bottleneck, cert, formulation, scope, tree, all_stats,
                            trees=tuple(trees) if trees else None)


def _tree_rates(platform, trees):
    """TP = sum of the rates, n = rate carried per link; every tree must be a spanning
    arborescence rooted at the source with a positive rate."""
    tp = Fraction(0)
    n = {arc: Fraction(0) for arc in platform.arcs}
    for parent, rate in trees:
        platform.check_arborescence(parent, "<postcondition>")
        if rate <= 0:
            raise AssertionError("postcondition: a tree with rate <= 0")
        tp += rate
        for child, par in parent.items():
            n[(par, child)] += rate
    return tp, n
