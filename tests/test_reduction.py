"""Theorem 1 of seed 002 (§3.2) as code: DEGREE-CONSTRAINED-SPANNING-TREE reduces to
BEST-BROADCAST-TREE-DEC (proofs/theorem1-reduction.md).

Property test: on small graphs, both sides decided by brute force give the same answer;
the two directions of the proof are also checked constructively.
"""

from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import InputError
from steady.heuristics.best_tree import best_tree
from steady.heuristics.models import one_port_throughput
from steady.heuristics.reduction import (NO_INSTANCE, YES_INSTANCE, dcst_to_broadcast_tree,
                                         has_broadcast_tree,
                                         has_degree_constrained_spanning_tree, orient_tree,
                                         spanning_arborescences, spanning_trees,
                                         tree_degrees)

F = Fraction


@st.composite
def graphs(draw, max_nodes=6):
    """Small undirected graphs, connected or not, possibly with loops."""
    n = draw(st.integers(1, max_nodes))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for j in range(n):
        for k in range(j, n):
            if draw(st.integers(0, 9)) < (1 if j == k else 5):
                g.add_edge(j, k)
    return g


@settings(max_examples=examples(150), deadline=None)
@given(graphs(), st.integers(1, 4))
def test_theorem_1_both_sides_agree_by_brute_force(g, K):
    """002 Thm 1: G has a spanning tree of degree <= K iff the platform built from it has
    a broadcast tree of throughput >= D = 1."""
    instance = dcst_to_broadcast_tree(g, K)
    assert has_degree_constrained_spanning_tree(g, K) == has_broadcast_tree(instance)


@settings(max_examples=examples(60), deadline=None)
@given(graphs(max_nodes=6), st.integers(2, 4))
def test_the_two_directions_of_the_proof(g, K):
    """'if': a spanning tree of degree <= K, oriented from the source, has TP >= 1.
    'only if': an arborescence of TP >= 1 has undirected degrees <= K."""
    if not nx.is_connected(g) or g.number_of_nodes() < 2:
        return
    instance = dcst_to_broadcast_tree(g, K)
    root = instance.platform.source
    for tree in spanning_trees(g):
        named = [(str(j), str(k)) for j, k in tree]
        parent = orient_tree(named, root)
        ok = max(tree_degrees(parent).values()) <= K
        assert (one_port_throughput(instance.platform, parent) >= 1) == ok
    for parent in spanning_arborescences(instance.platform):
        if one_port_throughput(instance.platform, parent) >= 1:
            assert max(tree_degrees(parent).values()) <= K


def test_costs_follow_the_paper():
    """002 §3.2: arcs both ways; 1/K out of the source, 1/(K-1) elsewhere; D = 1."""
    g = nx.Graph([(0, 1), (1, 2), (0, 2)])
    instance = dcst_to_broadcast_tree(g, 3)
    p = instance.platform
    assert instance.bound == 1 and p.source == "0"
    assert {l.arc: l.cost for l in p.links} == {
        ("0", "1"): F(1, 3), ("1", "0"): F(1, 2), ("1", "2"): F(1, 2),
        ("2", "1"): F(1, 2), ("0", "2"): F(1, 3), ("2", "0"): F(1, 2)}


def test_the_exact_best_tree_decides_the_instance():
    """The STP optimum answers BEST-BROADCAST-TREE-DEC: a star K_{1,4} has no spanning
    tree of degree <= 3, and its instance's best tree is below 1; K_5 has a Hamiltonian
    path (degree 2)."""
    star = nx.star_graph(4)
    for K, expected in ((3, False), (4, True)):
        instance = dcst_to_broadcast_tree(star, K)
        assert (best_tree(instance.platform).throughput >= instance.bound) == expected
    instance = dcst_to_broadcast_tree(nx.complete_graph(5), 2)
    assert best_tree(instance.platform).throughput >= 1


def test_cases_decided_directly():
    single = nx.Graph()
    single.add_node("a")
    assert dcst_to_broadcast_tree(single, 1) is YES_INSTANCE
    assert dcst_to_broadcast_tree(nx.Graph([(0, 1), (2, 3)]), 3) is NO_INSTANCE
    assert dcst_to_broadcast_tree(nx.path_graph(2), 1) is YES_INSTANCE
    assert dcst_to_broadcast_tree(nx.path_graph(3), 1) is NO_INSTANCE
    assert has_broadcast_tree(YES_INSTANCE) and not has_broadcast_tree(NO_INSTANCE)


@pytest.mark.parametrize("graph, K, element", [
    (nx.path_graph(3), 0, "K"),
    (nx.path_graph(3), True, "K"),
    (nx.DiGraph([(0, 1)]), 2, "graph"),
    (nx.Graph(), 2, "nodes"),
])
def test_bad_instances(graph, K, element):
    with pytest.raises(InputError, match=element):
        dcst_to_broadcast_tree(graph, K)


def test_root_must_be_a_node():
    with pytest.raises(InputError, match="root"):
        dcst_to_broadcast_tree(nx.path_graph(3), 2, root=7)
    assert dcst_to_broadcast_tree(nx.path_graph(3), 2, root=1).platform.source == "1"


def test_postcondition_catches_a_wrong_price():
    from steady.heuristics.reduction import BroadcastTreeInstance, _check_instance
    from steady.platform import Link, Platform

    g = nx.path_graph(3)
    names = {v: str(v) for v in g}
    wrong = Platform("0", [Link("0", "1", F(1, 3)), Link("1", "0", F(1, 2)),
                           Link("1", "2", F(1, 3)), Link("2", "1", F(1, 2))])
    with pytest.raises(AssertionError, match="postcondition"):
        _check_instance(BroadcastTreeInstance(wrong, F(1)), g, names, 3)
