"""Exact optimal steady-state throughput (002 §3.1.2, §4.1, §5.2), certified.

``throughput(platform)`` solves SSB(G) by min-cut cutting planes (the default);
``method="trees"`` by tree column generation, ``method="flow"`` with the paper's
per-destination flow LP (the reference).
``dag_throughput`` solves SSBPDAG on a DAG, ``tree_throughput`` gives TP(T).
Every result is a :class:`ThroughputResult` whose certificate was checked exactly.
"""

from dataclasses import replace
from fractions import Fraction

from ..errors import InputError
from ..exact.limits import MAX_EXACT_NODES
from ..exact.lp import CertificationError
from ..exact.scaling import solve_scaled
from ..inputs import as_platform, platform_and_tree
from ..numbers import format_exact, lcm_of_denominators
from .collective import KINDS as COLLECTIVES, collective_throughput, tree_pool
from .compact import compact_trees
from .cuts import solve_cuts
from .dag import solve_dag
from .flow import solve_flow
from .ports import port_loads
from .result import (BUS_FACTOR, Certificate, CollectiveCertificate, CollectiveResult,
                     CutCertificate, RootedTree, ThroughputResult)
from .tree import solve_tree, tree_formula
from .trees import solve_trees

METHODS = {"trees": solve_trees, "cuts": solve_cuts, "flow": solve_flow}


def throughput(platform, method: str = "cuts") -> ThroughputResult:
    """Optimal throughput of SSB(G) (002 §5.2): broadcasts per time unit, exact.
    ``platform``: a Platform, a steady-platform dict or a networkx DiGraph
    (:mod:`steady.inputs`); at most :data:`~steady.exact.limits.MAX_EXACT_NODES` nodes
    (InputError beyond, before any work)."""
    platform = as_platform(platform)
    _classic(platform)
    _within_size(platform)
    try:
        solver = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose from {sorted(METHODS)}") from None
    return _with_exact_way_out(platform, solver)


def dag_throughput(platform, origin: str = "<platform>") -> ThroughputResult:
    """Optimal throughput of SSBPDAG(G) (002 §4.1) for a DAG platform."""
    platform = as_platform(platform)
    _classic(platform, origin)
    _within_size(platform, origin)
    return _normalised(platform, lambda p: solve_dag(p, origin))


def _classic(platform, origin: str | None = None) -> None:
    """SSB(G), SSBPDAG and TP(T) are problems of the one-port model without switches
    (002 §2); a multi-port or switched platform (issue 43) is refused in one line that
    names the door that takes it."""
    if not platform.classic:
        what = "multi-port" if platform.multi_port else "switched"
        raise InputError(origin or "<platform>", "ports" if platform.multi_port
                         else "switches", f"a {what} platform: its optimum is "
                         "collective_throughput's (steady throughput --collective); the "
                         "schedules of the one-port model do not apply to it yet")


def _within_size(platform, origin: str | None = None) -> None:
    """Fail fast (issue 18 F15): a platform beyond MAX_EXACT_NODES is refused in one
    line naming the limit, instead of running out of memory minutes later."""
    n = len(platform.nodes)
    if n > MAX_EXACT_NODES:
        named = f"{platform.name} has " if platform.name else ""
        raise InputError(origin or "<platform>", "nodes",
                         f"{named}{n} nodes, more than the {MAX_EXACT_NODES} the exact "
                         f"optimum takes (its rational basis is dense; docs/limits.md)")


def tree_throughput(platform, parent: dict, origin: str = "<tree>") -> ThroughputResult:
    """TP(T) of the spanning tree given as child -> parent (002 §3.1.2), or as an edge
    list or a networkx tree (:mod:`steady.inputs`)."""
    platform, parent = platform_and_tree(platform, parent, origin)
    _classic(platform)
    return _normalised(platform, lambda p: solve_tree(p, parent, origin))


def _normalised(platform, solve) -> ThroughputResult:
    """``solve(platform)``, run on costs brought near 1 when they are all huge or tiny
    (:func:`steady.exact.scaling.solve_scaled`), its exact result scaled back."""
    return solve_scaled(platform, lambda scaled, a: _scaled_back(platform, solve(scaled), a))


#: Cost spreads (largest / smallest) from which a failed float search is blamed on the
#: costs: the exact fallback is tried, then the platform refused in one line.
WIDE_COSTS = Fraction(10) ** 12
#: What a failing float search raises on costs it cannot hold (float overflow or
#: underflow to 0, or a basis whose exact check fails).
FLOAT_TROUBLE = (OverflowError, ZeroDivisionError, CertificationError)


def _with_exact_way_out(platform, solver) -> ThroughputResult:
    """SSB(G) by ``solver``; when its float search cannot hold costs spread far apart
    (issue 18 F01, F02: 1e-4300 beside 1, or 1e16 beside 1e-12), the reference flow LP,
    whose float mirror is clamped and whose answer is reconstructed and checked exactly
    (an exact simplex when the float basis is wrong and the LP is small); when that
    fails too, one line naming the spread.  Narrow costs re-raise: a failure there is
    not the costs' doing."""
    try:
        return _normalised(platform, solver)
    except FLOAT_TROUBLE:
        costs = [l.cost for l in platform.links]
        spread = max(costs) / min(costs)
        if spread < WIDE_COSTS:
            raise
    if solver is not solve_flow:
        try:
            return _normalised(platform, solve_flow)
        except FLOAT_TROUBLE:
            pass
    digits = len(str(spread.numerator // spread.denominator)) - 1
    raise InputError("<platform>", "costs",
                     f"the largest cost is about 10^{digits} times the smallest: more "
                     f"than the float searches resolve, and the exact fallback did not "
                     f"finish (docs/limits.md)")


def _scaled_back(platform, r: ThroughputResult, a: Fraction) -> ThroughputResult:
    """The result for costs c from the result ``r`` for costs c/a (homogeneity)."""
    if a == 1:
        return r
    tp = r.throughput / a
    n = {arc: x / a for arc, x in r.n.items()}
    c = r.certificate
    out_p = {v: y / a for v, y in c.out_prices.items()}
    in_p = {v: y / a for v, y in c.in_prices.items()}
    link_p = {l: z / a for l, z in c.link_prices.items()}  # shared links (issue 19)
    cert = replace(c, out_prices=out_p, in_prices=in_p, link_prices=link_p,
                   min_flow=c.min_flow / a,
                   scale=lcm_of_denominators(list(n.values()) + [tp]))
    trees = None if r.trees is None else tuple((p, rate / a) for p, rate in r.trees)
    result = replace(r, throughput=tp, n=n, certificate=cert, trees=trees,
                     stats={**r.stats, "cost_scale": format_exact(a)})
    # Exact postcondition on the caller's costs (the arborescence costs c·y are the
    # same products as for the solved costs, so min_tree_cost carries over).
    if any(t > 1 for side in port_loads(platform, n) for t in side.values()) \
            or sum(out_p.values()) + sum(in_p.values()) + sum(link_p.values()) != tp:
        raise AssertionError("postcondition: rescaled result is not certified")
    return result


__all__ = ["throughput", "dag_throughput", "tree_throughput", "compact_trees",
           "ThroughputResult", "Certificate", "CertificationError", "tree_formula",
           "port_loads", "collective_throughput", "tree_pool", "COLLECTIVES",
           "CollectiveResult",
           "CollectiveCertificate", "CutCertificate", "RootedTree", "BUS_FACTOR"]
