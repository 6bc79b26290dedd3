"""steady.certificate.check: the independent re-check of a throughput result.

It must accept every result the solvers return (tests/test_throughput.py checks that on
random platforms) and -- tested here -- reject every way a result can be wrong: it is a
proof checker, so each rejection below is a false claim it must not let through.
"""

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import Link, Platform
from steady.certificate import CheckReport, check
from steady.strategies import platforms, spanning_trees
from steady.throughput import dag_throughput, throughput, tree_throughput

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
F = Fraction


@pytest.fixture(scope="module")
def figure1():
    return Platform.from_file(SAMPLES / "figure1.json")


@pytest.fixture(scope="module")
def optimum(figure1):
    result = throughput(figure1, "trees")
    assert result.throughput == 1
    return result


def with_prices(result, out=None, inn=None):
    cert = result.certificate
    return replace(result, certificate=replace(
        cert, out_prices=dict(cert.out_prices, **(out or {})),
        in_prices=dict(cert.in_prices, **(inn or {}))))


def test_the_optimum_passes(figure1, optimum):
    report = check(figure1, optimum)
    assert isinstance(report, CheckReport)
    assert report.ok and bool(report) and report.problems == []


def test_rejects_a_negative_price(figure1, optimum):
    """Weak duality needs y >= 0: a negative out-price, compensated so that the prices
    still sum to TP, is refused."""
    out = optimum.certificate.out_prices
    bad = with_prices(optimum, out={"Ps": out["Ps"] + 1, "P3": F(-1)})
    assert sum(bad.certificate.out_prices.values()) + sum(
        bad.certificate.in_prices.values()) == 1
    report = check(figure1, bad)
    assert not report.ok
    assert any("negative" in p for p in report.problems)


def test_rejects_prices_not_summing_to_tp(figure1, optimum):
    out = optimum.certificate.out_prices
    bad = with_prices(optimum, out={"Ps": out["Ps"] + F(1, 7)})
    report = check(figure1, bad)
    assert not report.ok
    assert any("sum to" in p for p in report.problems)


def test_rejects_prices_that_do_not_price_every_tree_at_one(figure1, optimum):
    """Prices >= 0 summing to TP but all put on a port no tree uses (the source's
    in-port): every arborescence then costs 0 < 1, so TP is not proved optimal."""
    zero = {v: F(0) for v in figure1.nodes}
    cert = replace(optimum.certificate, out_prices=dict(zero),
                   in_prices=dict(zero, Ps=optimum.throughput))
    report = check(figure1, replace(optimum, certificate=cert))
    assert not report.ok
    assert any("arborescence costs 0" in p for p in report.problems)


def test_rejects_a_rate_on_a_non_link(figure1, optimum):
    bad = replace(optimum, n=dict(optimum.n) | {("P3", "P4"): F(1, 10)})
    report = check(figure1, bad)
    assert not report.ok
    assert any("P3->P4" in p and "not a link" in p for p in report.problems)


def test_rejects_a_rate_on_a_link_outside_the_tree(figure1):
    """Scope 'tree': a rate on a platform link that is not a tree edge is refused."""
    tree = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    result = tree_throughput(figure1, tree)
    assert check(figure1, result).ok
    bad = replace(result, n=dict(result.n) | {("Ps", "P2"): F(0)})
    report = check(figure1, bad)
    assert any("Ps->P2" in p for p in report.problems)


def test_rejects_an_overloaded_port(figure1, optimum):
    """One-port (002 eqs. (12)-(16)): Ps->P1 at rate 1 plus Ps->P2 at 1/2 keeps Ps
    busy 3/2 per time unit."""
    bad = replace(optimum, n=dict(optimum.n) | {("Ps", "P1"): F(1)})
    report = check(figure1, bad)
    assert not report.ok
    assert any("out-port of Ps busy 3/2" in p for p in report.problems)
    bad = replace(optimum, n=dict(optimum.n) | {("P1", "P3"): F(3)})   # 3 · 1/2 = 3/2
    report = check(figure1, bad)
    assert any("in-port of P3 busy 3/2" in p for p in report.problems)


def test_rejects_a_negative_rate(figure1, optimum):
    bad = replace(optimum, n=dict(optimum.n) | {("P2", "P1"): F(-1, 2)})
    assert any("negative rate" in p for p in check(figure1, bad).problems)


def test_rejects_rates_that_do_not_deliver_tp(figure1, optimum):
    """Primal side (002 Lemma 2): P4 has a single in-link; halving its rate leaves P4
    able to receive only 1/2 < TP = 1."""
    bad = replace(optimum, n=dict(optimum.n) | {("P2", "P4"): F(1, 2)})
    report = check(figure1, bad)
    assert any("P4 can receive only 1/2" in p for p in report.problems)


def test_rejects_a_claimed_throughput_above_the_optimum(figure1, optimum):
    report = check(figure1, replace(optimum, throughput=F(11, 10)))
    assert not report.ok
    assert any("receive only" in p for p in report.problems)
    assert any("sum to" in p for p in report.problems)


def test_rejects_a_wrong_period(figure1, optimum):
    class WrongPeriod:
        def __init__(self, result):
            self.__dict__.update(result.__dict__)
            self.period = F(2)
    report = check(figure1, WrongPeriod(optimum))
    assert any("period" in p for p in report.problems)


def test_rejects_a_non_positive_throughput(figure1, optimum):
    assert not check(figure1, replace(optimum, throughput=F(0))).ok


def test_rejects_dag_scope_on_a_cyclic_platform(figure1):
    dag = Platform.from_file(SAMPLES / "figure5-dag.json")
    result = dag_throughput(dag)
    assert check(dag, result).ok
    report = check(figure1, result)
    assert any("cycle" in p for p in report.problems)


def test_rejects_a_tree_scope_without_a_spanning_tree(figure1):
    result = tree_throughput(figure1, {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"})
    bad = replace(result, tree={"P1": "Ps", "P2": "P1", "P3": "P1"})
    assert any("spanning arborescence" in p for p in check(figure1, bad).problems)


def test_rejects_an_unknown_scope(figure1, optimum):
    assert any("unknown scope" in p
               for p in check(figure1, replace(optimum, scope="forest")).problems)


@settings(max_examples=examples(60), deadline=None)
@given(platforms(min_nodes=2, max_nodes=7), st.sampled_from(["trees", "cuts", "flow"]),
       st.integers(1, 10 ** 6))
def test_an_inflated_throughput_fails_the_check(platform, method, k):
    """Weak LP duality, the certificate's soundness (proofs/certificate.md): the
    returned TP passes the check, TP + 1/k does not (the prices sum to TP, so at least
    the dual side fails, and by optimality the primal side cannot deliver more)."""
    result = throughput(platform, method)
    assert check(platform, result).ok
    inflated = replace(result, throughput=result.throughput + F(1, k))
    report = check(platform, inflated)
    assert not report.ok
    assert any("sum to" in p for p in report.problems)


@settings(max_examples=examples(40), deadline=None)
@given(platforms(min_nodes=2, max_nodes=7), st.data())
def test_an_inflated_tree_throughput_fails_the_check(platform, data):
    """Same soundness for scope 'tree' (002 §3.1.2 eq. (1)): TP(T) + epsilon is refused,
    and by the primal side too, since n = TP(T) on every tree edge delivers exactly
    TP(T)."""
    tree = data.draw(spanning_trees(platform), label="tree")
    result = tree_throughput(platform, tree)
    assert check(platform, result).ok
    inflated = replace(result, throughput=result.throughput * F(1001, 1000))
    problems = check(platform, inflated).problems
    assert any("receive only" in p for p in problems)


def test_reports_rather_than_crashes_on_a_graph_networkx_cannot_span():
    """Regression: networkx's ``minimum_spanning_arborescence`` (3.6) raised "No minimum
    spanning arborescence" on this graph of weights (Ps->P1 3, P1->P2 3, P2->P1 1,
    P2->P3 2, P3->P2 1, which has one of cost 8), so check() crashed instead of
    reporting.  With out-prices 1 the weights are the costs: the arborescences cost
    >= 8 >= 1, and the one problem is that the prices sum to 4, not TP = 1/3."""
    p = Platform("Ps", [Link("Ps", "P1", F(3)), Link("P1", "P2", F(3)),
                        Link("P2", "P1", F(1)), Link("P2", "P3", F(2)),
                        Link("P3", "P2", F(1))])
    result = throughput(p)
    assert result.throughput == F(1, 3)
    assert check(p, result).ok
    ones = {v: F(1) for v in p.nodes}
    zero = {v: F(0) for v in p.nodes}
    cert = replace(result.certificate, out_prices=ones, in_prices=zero)
    report = check(p, replace(result, certificate=cert))
    assert report.problems == ["port prices sum to 4, not TP = 1/3"]
    # Scaled to sum to TP (1/12 each) the trees cost 8/12 < 1: refused for that.
    twelfth = {v: F(1, 12) for v in p.nodes}
    cert = replace(result.certificate, out_prices=twelfth, in_prices=zero)
    report = check(p, replace(result, certificate=cert))
    assert report.problems == ["a spanning arborescence costs 2/3 < 1 under the prices"]


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_min_arborescence_cost_of_the_checker_matches_the_solver(data):
    """The checker's own Edmonds (networkx maximum branching) and the solver's
    steady.exact.arborescence agree on random exact weights, including weights whose spread
    broke networkx's minimum_spanning_arborescence."""
    from steady.exact.arborescence import minimum_arborescence
    from steady.certificate import _min_arborescence_cost

    p = data.draw(platforms(min_nodes=2, max_nodes=7, density=0.5), label="platform")
    w = {l.arc: data.draw(st.fractions(0, 10, max_denominator=4), label=str(l.arc))
         for l in p.links if l.head != p.source}
    index = {v: i for i, v in enumerate(p.nodes)}
    arcs = [(index[u], index[v], x) for (u, v), x in w.items()]
    assert _min_arborescence_cost(p.nodes, w) == minimum_arborescence(
        len(p.nodes), index[p.source], arcs)[0]
