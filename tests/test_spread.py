"""The default throughput method's fast route (issue 17, proofs/spread-cuts.md): the
propagation rule, the exact connectivity check, the float search, the rounded exact
end, the bounded GLOP searches and their exact way out, and the large platforms of
steady.generators.scale_platform."""

from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import Link, Platform
from steady.certificate import check
from steady.exact import limits
from steady.exact.connectivity import Propagation, exact_shortfall
from steady.exact.floatlp import FloatLP, FloatSearchFailed
from steady.generators import scale_density, scale_platform
from steady.strategies import platforms
from steady.throughput import throughput
from steady.throughput.rounding import certify_rounded, exact_bound, price_candidates
from steady.throughput.spread import SpreadSearch, capacity_rows

SMALL = settings(max_examples=examples(40), deadline=None)
F = Fraction


def figure1(cost_ps_p1=F(1)) -> Platform:
    return Platform("Ps", [Link("Ps", "P1", cost_ps_p1), Link("Ps", "P2", F(1)),
                           Link("P1", "P2", F(1)), Link("P2", "P1", F(1)),
                           Link("P1", "P3", F(1, 2)), Link("P2", "P4", F(1, 2))])


def max_flows(platform, n) -> dict:
    g = nx.DiGraph()
    g.add_nodes_from(platform.nodes)
    for (u, v), x in n.items():
        if x:
            g.add_edge(u, v, capacity=x)
    return {d: nx.maximum_flow_value(g, platform.source, d) if g.has_node(d) else 0
            for d in platform.destinations}


@st.composite
def rated_platforms(draw):
    """A small platform with exact random rates on its links."""
    platform = draw(platforms(min_nodes=2, max_nodes=7, density=F(1, 2)))
    rates = {arc: F(draw(st.integers(0, 6)), draw(st.integers(1, 3))) for arc in platform.arcs}
    return platform, rates


# -- the propagation rule and the exact connectivity check --------------------------------

@SMALL
@given(rated_platforms(), st.integers(1, 6))
def test_propagation_settles_only_nodes_that_receive_the_level(case, level):
    """proofs/spread-cuts.md §2: a node settled by the rule has max-flow >= level."""
    platform, rates = case
    prop = Propagation(platform)
    caps = [rates[arc] for arc in prop.arcs]
    settled, _ = prop.settle(caps, F(level))
    flows = max_flows(platform, rates)
    for i, v in enumerate(prop.nodes):
        if settled[i] and v != platform.source:
            assert flows[v] >= level


@SMALL
@given(rated_platforms(), st.integers(1, 6), st.integers(1, 3))
def test_exact_shortfall_matches_networkx_max_flows(case, num, den):
    """Max-flow/min-cut (002 Lemmas 2-3): None iff every destination receives the level;
    otherwise a destination that does not, its exact max-flow and a cut of that value."""
    platform, rates = case
    level = F(num, den)
    flows = max_flows(platform, rates)
    short = exact_shortfall(platform, rates, level)
    if short is None:
        assert all(f >= level for f in flows.values())
    else:
        d, flow, side = short
        assert flow == flows[d] < level
        assert platform.source in side and d not in side
        assert sum(x for (u, v), x in rates.items() if u in side and v not in side) == flow


# -- the fast route ------------------------------------------------------------------------

@pytest.mark.parametrize("nodes,seed", [(40, 0), (60, 1), (120, 2)])
def test_default_route_is_rounded_and_certified_on_scale_platforms(nodes, seed):
    """The rounded route answers, its certificate passes the independent checker, and the
    tree method (another formulation) finds the same exact value."""
    platform = scale_platform(nodes, seed)
    result = throughput(platform)
    assert result.stats["route"] == "spread search, rounded"
    assert check(platform, result).ok
    assert result.certificate.min_tree_cost == 1
    assert throughput(platform, "trees").throughput == result.throughput


@SMALL
@given(platforms(min_nodes=2, max_nodes=7))
def test_default_method_agrees_with_the_flow_lp(platform):
    """Whatever route answers, the value is the reference flow LP's (002 §5.2)."""
    result = throughput(platform)
    assert result.throughput == throughput(platform, "flow").throughput
    assert check(platform, result).ok


@pytest.mark.slow
@SMALL
@given(st.integers(0, 30), st.lists(st.floats(0.5, 2.0), min_size=1, max_size=8))
def test_rounding_never_returns_a_wrong_optimum(seed, noise):
    """Perturbed float prices or rates may make the exact end give up (None), never
    answer something else than the optimum."""
    platform = scale_platform(30, seed)
    rows = capacity_rows(platform)
    found = SpreadSearch(platform, rows).run()
    keys = sorted(found.prices)
    for k, factor in zip(keys, noise):
        found.prices[k] *= factor
    found.rates = [x * noise[i % len(noise)] for i, x in enumerate(found.rates)]
    result = certify_rounded(platform, rows, found)
    if result is not None:
        assert result.throughput == throughput(platform, "flow").throughput
        assert check(platform, result).ok


@pytest.mark.slow
def test_any_prices_bound_the_optimum():
    """proofs/spread-cuts.md §1: sum(y) / min tree cost >= TP* for any prices y >= 0."""
    platform = scale_platform(25, 3)
    optimum = throughput(platform, "flow").throughput
    rows = capacity_rows(platform)
    for i in range(0, len(rows), 3):
        prices = {row.key: float(1 + (j * 7919) % 13) for j, row in enumerate(rows[i:i + 5])}
        bound = exact_bound(platform, prices)
        if bound is not None:
            assert bound[0] >= optimum
    assert price_candidates({}) == []


# -- bounded GLOP and the exact way out ------------------------------------------------------

def test_glop_without_budget_fails_and_the_answer_stays_exact(monkeypatch):
    """A float search whose GLOP budget runs out raises FloatSearchFailed; the
    throughput is still the exact optimum (exact route, sympy on small programs)."""
    def small_lp():
        lp = FloatLP("small")
        xs = [lp.add_column(objective=1.0 + j % 3) for j in range(6)]
        for k in range(5):
            lp.add_row([(x, 1.0 + (k * j) % 4) for j, x in enumerate(xs)], None, 4.0 + k)
        return lp

    assert small_lp().solve()
    monkeypatch.setattr(limits, "ITERATIONS_BASE", 0)
    monkeypatch.setattr(limits, "ITERATIONS_PER_ENTRY", 0)
    with pytest.raises(FloatSearchFailed):
        small_lp().solve()
    for method in ("cuts", "trees"):
        assert throughput(figure1(), method).throughput == 1


@pytest.mark.parametrize("method", ["cuts", "trees"])
def test_figure1_with_a_huge_cost_is_answered_exactly(method):
    """Issue 18 F01: one cost 1e16 among costs 1 (GLOP used to hang on the tree master)."""
    result = throughput(figure1(F(10**16)), method)
    assert result.throughput == F(20000000000000000, 29999999999999999)
    assert check(figure1(F(10**16)), result).ok


# -- the generator of the scale benchmark ----------------------------------------------------

def test_scale_platform_is_reproducible_and_valid():
    p = scale_platform(150, seed=4)
    assert p == scale_platform(150, seed=4) and p != scale_platform(150, seed=5)
    assert p.source == "P0" and len(p.nodes) == 150
    assert all((v, u) in set(p.arcs) for u, v in p.arcs)       # both directions
    bandwidths = [1000 / l.cost for l in p.links]
    assert all(b.denominator == 1 and b >= 10 for b in bandwidths)
    reached = nx.descendants(p.to_networkx(), p.source) | {p.source}
    assert reached == set(p.nodes)


def test_scale_density_follows_the_issue():
    assert scale_density(50) == scale_density(100) == 0.1
    assert scale_density(600) == pytest.approx(6 / 600)
    p = scale_platform(1000, seed=0)
    pairs = len(p.links) / 2
    assert 999 + 0.8 * 6 / 1000 * 499500 <= pairs <= 999 + 1.2 * 6 / 1000 * 499500
