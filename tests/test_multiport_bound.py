"""steady.heuristics.multiport_bound: the exact multi-port steady-state upper bound (000
§2.2 / §3.2 model; the LP of 002 §5.2 with the multi-port rows), its price certificate
and its decomposition into weighted trees (proofs/multiport-bound.md).
"""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings

from helpers import examples

from steady import InputError, Link, Platform
from steady.generators import random_platform
from steady.heuristics.best_tree import best_tree
from steady.heuristics.models import multi_port_throughput
from steady.heuristics.multiport_bound import (MultiportBound, check_multiport_bound,
                                               multiport_bound, row_loads)
from steady.heuristics.reduction import spanning_arborescences
from steady.strategies import multiport_platforms
from steady.throughput import throughput

F = Fraction
SMALL = settings(max_examples=examples(30), deadline=None)


def test_star_limited_by_its_links():
    """S->A and S->B of cost 1, send_S = 1/2: the sends fit (2 · 1/2 = 1) and each link
    carries one message per time unit: the bound is 1, and the star reaches it."""
    p = Platform("S", [Link("S", "A", F(1)), Link("S", "B", F(1))],
                 send_overhead={"S": F(1, 2)})
    bound = multiport_bound(p)
    assert bound.throughput == 1
    assert multi_port_throughput(p, {"A": "S", "B": "S"}) == 1


def test_star_limited_by_the_serialized_sends():
    """Same star with send_S = 1: S serializes two sends per message, TP <= 1/2, and the
    certificate prices S's send row alone."""
    p = Platform("S", [Link("S", "A", F(1)), Link("S", "B", F(1))],
                 send_overhead={"S": F(1)})
    bound = multiport_bound(p)
    assert bound.throughput == F(1, 2)
    assert bound.send_prices == {"S": F(1, 2)} and bound.bottleneck == ["send overhead of S"]


def test_the_bound_that_no_periodic_schedule_reaches():
    """proofs/multiport-bound.md, claim 3: S->A 2, S->B 3, A->B 6, send_S = send_A = 1.
    The bound is 1/2 with both links out of S saturated (n_SA = 1/2, n_SB = 1/3,
    n_AB = 1/6), which forces S's sends at two incommensurable paces; the value is a
    bound, not an achievable optimum.  Two trees carry it: the star at 1/3 and the chain
    through A at 1/6."""
    p = Platform("S", [Link("S", "A", F(2)), Link("S", "B", F(3)), Link("A", "B", F(6))],
                 send_overhead={"S": F(1), "A": F(1)})
    bound = multiport_bound(p)
    assert bound.throughput == F(1, 2)
    assert bound.n == {("S", "A"): F(1, 2), ("S", "B"): F(1, 3), ("A", "B"): F(1, 6)}
    assert sorted((sorted(t.items()), rate) for t, rate in bound.trees) == [
        ([("A", "S"), ("B", "A")], F(1, 6)), ([("A", "S"), ("B", "S")], F(1, 3))]
    assert best_tree(p, "multi-port").throughput == F(1, 3)


@SMALL
@given(multiport_platforms(min_nodes=2, max_nodes=6, density=0.4))
def test_bound_is_above_every_tree_and_certified(p):
    """proofs/multiport-bound.md, claims 1 and 2: every single tree is a multi-port
    schedule, so its throughput is at most the bound; the certificate is checked here
    by brute force over every arborescence (independently of Edmonds)."""
    bound = multiport_bound(p)
    send = p.send_overhead
    for parent in spanning_arborescences(p):
        assert multi_port_throughput(p, parent) <= bound.throughput
        price = sum(send.get(u, 0) * bound.send_prices.get(u, 0)
                    + p.cost(u, v) * bound.link_prices.get((u, v), 0)
                    for v, u in parent.items())
        assert price >= 1
    assert sum(bound.send_prices.values()) + sum(bound.link_prices.values()) \
        == bound.throughput


@SMALL
@given(multiport_platforms(min_nodes=2, max_nodes=7, density=0.4))
def test_trees_decompose_the_bound_within_every_row(p):
    """002 Thm 5 on the multi-port optimum: the trees' rates add up to the bound, and
    their loads fit every serialized-send row and every link row."""
    bound = multiport_bound(p)
    assert sum(rate for _, rate in bound.trees) == bound.throughput
    assert len(bound.trees) <= max(1, sum(1 for x in bound.n.values() if x))
    sender, link = row_loads(p, p.send_overhead, bound.trees)
    assert max(sender.values()) <= 1 and max(link.values()) <= 1


@SMALL
@given(multiport_platforms(min_nodes=2, max_nodes=7, density=0.4))
def test_bound_is_at_least_the_one_port_optimum(p):
    """With send_u at most u's cheapest out-link (000 §2.1), every one-port schedule's
    rates fit the multi-port rows (proofs/multiport-bound.md, claim 4): this is why seed
    000's Figure 5 sees multi-port trees above the one-port 'optimum'."""
    assert multiport_bound(p).throughput >= throughput(p).throughput


def test_generated_platforms_are_certified():
    for n, d, seed in ((20, 0.2, 0), (30, 0.12, 1)):
        bound = multiport_bound(random_platform(n, d, seed, multiport=True))
        assert bound.min_tree_cost >= 1 and bound.stats["trees"] == len(bound.trees)


def test_needs_send_overheads():
    p = Platform("S", [Link("S", "A", F(1))])
    with pytest.raises(InputError, match="send_overhead.S"):
        multiport_bound(p)


def test_postcondition_catches_wrong_claims():
    p = Platform("S", [Link("S", "A", F(1)), Link("S", "B", F(1))],
                 send_overhead={"S": F(1)})
    good = multiport_bound(p)
    star = {"A": "S", "B": "S"}
    fields = dict(n=good.n, send_prices=good.send_prices, link_prices=good.link_prices,
                  min_tree_cost=good.min_tree_cost, bottleneck=good.bottleneck)
    lies = [
        MultiportBound(**{**fields, "throughput": F(1), "trees": ((star, F(1)),)}),
        MultiportBound(**{**fields, "throughput": F(1, 2), "trees": ((star, F(1, 4)),)}),
        MultiportBound(**{**fields, "throughput": F(1, 2), "trees": ((star, F(1, 2)),),
                          "min_tree_cost": F(1, 2)}),
        MultiportBound(**{**fields, "throughput": F(1, 2), "trees": (({"A": "S"}, F(1, 2)),)}),
    ]
    for lie in lies:
        with pytest.raises(AssertionError, match="postcondition"):
            check_multiport_bound(p, lie)


def test_every_subset_cut_holds_for_the_rates():
    """The rates n satisfy every cut constraint exactly (002 Lemma 2), checked by listing
    all subsets of a small platform."""
    p = random_platform(7, 0.5, 3, multiport=True)
    bound = multiport_bound(p)
    others = [v for v in p.nodes if v != p.source]
    for k in range(len(others)):
        for inside in itertools.combinations(others, k):
            s = {p.source, *inside}
            leaving = sum((x for (u, v), x in bound.n.items() if u in s and v not in s),
                          F(0))
            assert leaving >= bound.throughput
