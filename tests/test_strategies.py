"""steady.strategies: the public hypothesis strategies produce what they promise."""

from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from steady import Platform, default_platform
from steady.strategies import (decimal_costs, exact_costs, platforms, platforms_with_tree,
                               relabelings, spanning_trees)

FAST = settings(max_examples=50, deadline=None)


def reachable(p: Platform) -> set[str]:
    return nx.descendants(p.to_networkx(), p.source) | {p.source}


def assert_spanning_arborescence(p: Platform, parent: dict) -> None:
    """``parent`` is a spanning arborescence of ``p`` rooted at the source (002 §3)."""
    assert set(parent) == set(p.destinations)
    assert all(p.has_link(parent[v], v) for v in parent)
    for v in parent:                      # following parents reaches the source, no cycle
        seen = set()
        while v != p.source:
            assert v not in seen
            seen.add(v)
            v = parent[v]


# -- costs -----------------------------------------------------------------------------

@FAST
@given(exact_costs())
def test_exact_costs_are_small_positive_fractions(c):
    assert type(c) is Fraction and c > 0
    assert c.numerator <= 12 and c.denominator <= 6


@FAST
@given(decimal_costs())
def test_decimal_costs_are_exact_decimals(c):
    assert type(c) is Fraction and 0 < c <= 400
    assert 100 % c.denominator == 0            # at most two decimal places


def test_cost_strategies_shrink_to_one():
    assert find(exact_costs(), lambda c: True) == 1
    assert find(decimal_costs(), lambda c: True) == 1


# -- platforms -----------------------------------------------------------------------------

@FAST
@given(st.data())
def test_platforms_are_valid_and_of_the_requested_size(data):
    lo = data.draw(st.integers(2, 6), label="min_nodes")
    hi = data.draw(st.integers(lo, 8), label="max_nodes")
    p = data.draw(platforms(min_nodes=lo, max_nodes=hi))
    assert lo <= len(p.nodes) <= hi
    assert p.source == "P0" and p.nodes[0] == "P0"
    assert reachable(p) == set(p.nodes)
    assert all(c.numerator <= 12 and c.denominator <= 6 and c > 0
               for c in (l.cost for l in p.links))
    assert Platform.from_dict(p.to_dict()) == p


@FAST
@given(platforms(min_nodes=3, max_nodes=6, exact_costs=False))
def test_decimal_text_costs(p):
    assert all(type(l.cost) is Fraction and 100 % l.cost.denominator == 0 for l in p.links)


@FAST
@given(platforms(max_nodes=5, cost=st.just(Fraction(7, 3))))
def test_cost_strategy_is_used(p):
    assert {l.cost for l in p.links} == {Fraction(7, 3)}


@FAST
@given(platforms(min_nodes=2, max_nodes=8, density=0.6, dag=True))
def test_dag_platforms_are_dags(p):
    assert nx.is_directed_acyclic_graph(p.to_networkx())
    assert reachable(p) == set(p.nodes)
    assert not p.in_links(p.source)


@FAST
@given(st.data())
def test_density_extremes(data):
    dag = data.draw(st.booleans(), label="dag")
    p = data.draw(platforms(min_nodes=2, max_nodes=7, density=0, dag=dag))
    n = len(p.nodes)
    assert len(p.links) == n - 1                   # just the arborescence
    assert nx.is_arborescence(p.to_networkx())
    q = data.draw(platforms(min_nodes=2, max_nodes=7, density=1, dag=dag))
    m = len(q.nodes)
    assert len(q.links) == (m * (m - 1) // 2 if dag else m * (m - 1))


def test_density_is_roughly_respected():
    counts = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(platforms(min_nodes=7, max_nodes=7, density=0.5))
    def collect(p):
        counts.append(len(p.links) - 6)           # extra arcs beyond the arborescence

    collect()
    mean = sum(counts) / len(counts)
    assert 0.3 * 36 < mean < 0.6 * 36              # expected 0.5 * 36 = 18


def test_platforms_shrink_to_a_star_of_unit_costs():
    p = find(platforms(min_nodes=4), lambda p: True)
    assert p.arcs == (("P0", "P1"), ("P0", "P2"), ("P0", "P3"))
    assert {l.cost for l in p.links} == {1}


def test_invalid_arguments():
    with pytest.raises(InvalidArgument):
        platforms(min_nodes=1)
    with pytest.raises(InvalidArgument):
        platforms(min_nodes=5, max_nodes=4)
    with pytest.raises(InvalidArgument):
        platforms(density=1.5)


# -- spanning trees -------------------------------------------------------------------------

@FAST
@given(platforms_with_tree(max_nodes=7, density=0.5))
def test_spanning_trees_are_spanning_arborescences(pair):
    p, parent = pair
    assert_spanning_arborescence(p, parent)


@FAST
@given(platforms_with_tree(max_nodes=7, dag=True))
def test_spanning_trees_of_dags(pair):
    p, parent = pair
    assert_spanning_arborescence(p, parent)


@FAST
@given(st.data())
def test_spanning_trees_of_figure_1(data):
    p = default_platform()
    parent = data.draw(spanning_trees(p))
    assert_spanning_arborescence(p, parent)
    assert parent["P3"] == "P1" and parent["P4"] == "P2"   # their only in-links


def test_every_spanning_tree_of_figure_1_can_be_drawn():
    # Figure 1 has exactly 3 spanning arborescences: P1 and P2 each hang below the
    # source or below each other, but not both below each other (a cycle).
    drawn = set()

    @settings(max_examples=200, deadline=None, database=None)
    @given(spanning_trees(default_platform()))
    def collect(parent):
        drawn.add((parent["P1"], parent["P2"]))

    collect()
    assert drawn == {("Ps", "Ps"), ("Ps", "P1"), ("P2", "Ps")}


# -- relabelings ---------------------------------------------------------------------------

@FAST
@given(st.data())
def test_relabelings_are_bijections(data):
    p = data.draw(platforms(max_nodes=6))
    mapping = data.draw(relabelings(p))
    assert set(mapping) == set(p.nodes)
    assert set(mapping.values()) == set(p.nodes)
    q = p.relabel(mapping)
    assert q.source == mapping[p.source]
    assert sorted(q.cost(mapping[l.tail], mapping[l.head]) for l in p.links) \
        == sorted(l.cost for l in q.links)
    inverse = {new: old for old, new in mapping.items()}
    assert q.relabel(inverse) == p


@FAST
@given(st.data())
def test_relabelings_with_fresh_names(data):
    p = data.draw(platforms(max_nodes=6))
    mapping = data.draw(relabelings(p, names=st.text("abcxyz", min_size=1, max_size=3)))
    assert set(mapping) == set(p.nodes)
    assert len(set(mapping.values())) == len(p.nodes)
    assert p.relabel(mapping).relabel({v: k for k, v in mapping.items()}) == p
