"""Seed 004 §4.1: Algorithm 1, Algorithm 2 (Figure 4) and its k-ary extension; the
topology-unaware trees of §3.1 and their contention."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steady.ethernet.broadcast_tree import BroadcastTree
from steady.ethernet.cluster import Cluster
from steady.ethernet.contention import contending_pairs
from steady.ethernet.generators import random_cluster, switch_chain
from steady.ethernet.strategies import switched_clusters
from steady.ethernet.trees import (algorithm2_reference, contention_free_binary_tree,
                                   contention_free_kary_tree, contention_free_linear_tree,
                                   dfs_switch_order, kary_reference, linear_order,
                                   linear_order_geometry)
from steady.ethernet.unaware import contention_report, ranked_machines, unaware_tree


def pipelined_contention(cluster, tree):
    """Pairs that can be active at once in a pipelined broadcast: different senders
    (004 §4.1) — computed from the paths, independently of the constructors' checks."""
    return contending_pairs(cluster, tree.edges(), different_senders=True)


def assert_spans_from_root(cluster, tree):
    nodes = tree.nodes()
    assert nodes[0] == cluster.root
    assert sorted(nodes) == sorted(cluster.machines)           # each machine exactly once


@settings(max_examples=60, deadline=None)
@given(switched_clusters(max_machines=12, max_switches=7))
def test_lemma1_the_dfs_cycle_uses_every_switch_channel_once(cluster):
    s = dfs_switch_order(cluster)
    assert sorted(s) == sorted(cluster.switches) and s[0] == cluster.switch_of(cluster.root)
    used = [e for a, b in zip(s, s[1:] + s[:1]) for e in cluster.path(a, b)]
    channels = [(a, b) for a in cluster.switches for b in cluster.switch_neighbours(a)]
    assert sorted(used) == sorted(channels)


@settings(max_examples=60, deadline=None)
@given(switched_clusters(max_machines=14, max_switches=7))
def test_theorem1_linear_tree_is_contention_free_and_spans(cluster):
    tree = contention_free_linear_tree(cluster)
    assert_spans_from_root(cluster, tree)
    assert tree.max_degree <= 1
    assert contending_pairs(cluster, tree.edges()) == []        # even same-sender pairs


@settings(max_examples=60, deadline=None)
@given(switched_clusters(max_machines=16, max_switches=7))
def test_theorem2_binary_tree_is_contention_free_and_spans(cluster):
    tree = contention_free_binary_tree(cluster)
    assert_spans_from_root(cluster, tree)
    assert tree.max_degree <= 2
    assert pipelined_contention(cluster, tree) == []
    assert tree.height >= len(cluster.machines).bit_length() - 1   # complete binary tree


@settings(max_examples=40, deadline=None)
@given(switched_clusters(max_machines=14, max_switches=6), st.integers(2, 5))
def test_kary_tree_is_contention_free_and_spans(cluster, k):
    tree = contention_free_kary_tree(cluster, k)
    assert_spans_from_root(cluster, tree)
    assert tree.max_degree <= k
    assert pipelined_contention(cluster, tree) == []


@settings(max_examples=40, deadline=None)
@given(switched_clusters(max_machines=12, max_switches=6))
def test_fast_algorithm2_is_figure4_line_by_line(cluster):
    assert contention_free_binary_tree(cluster).edges() == \
        algorithm2_reference(cluster).edges()


def test_fast_algorithm2_is_figure4_on_random_clusters():
    for seed in range(40):
        rng = random.Random(seed)
        c = random_cluster(rng.randint(2, 18), rng.choice([1, 2, 3, 8]), seed)
        assert contention_free_binary_tree(c).edges() == algorithm2_reference(c).edges()


@settings(max_examples=30, deadline=None)
@given(switched_clusters(max_machines=10, max_switches=5), st.integers(2, 4))
def test_fast_kary_is_the_plain_enumeration(cluster, k):
    assert contention_free_kary_tree(cluster, k).edges() == \
        kary_reference(cluster, k).edges()


@settings(max_examples=30, deadline=None)
@given(switched_clusters(max_machines=14, max_switches=6))
def test_kary_with_k_2_is_algorithm2(cluster):
    assert contention_free_kary_tree(cluster, 2).edges() == \
        contention_free_binary_tree(cluster).edges()


@settings(max_examples=60, deadline=None)
@given(switched_clusters(max_machines=12, max_switches=7, min_machines=3), st.randoms())
def test_line17_check_depends_on_the_sub_array_only(cluster, rng):
    # proofs/ethernet-trees.md: m_i -> m_k contends with one forward tree over
    # S(i+1, k-1) iff it contends with every one, iff allowed[i, k] is False.
    g = linear_order_geometry(cluster)
    m = g.machines
    i = rng.randrange(len(m) - 2)
    k = rng.randrange(i + 2, len(m))
    forward = [(m[rng.randrange(i + 1, y)], m[y]) for y in range(i + 2, k)]
    chain = [(m[y], m[y + 1]) for y in range(i + 1, k - 1)]
    for tree in (forward, chain):
        assert (contending_pairs(cluster, [(m[i], m[k])] + tree, different_senders=True)
                == []) == bool(g.allowed[i, k])


def test_algorithm2_on_one_switch_by_hand():
    # One switch: no contention, every k allowed.  best[0][5] (Figure 4): k = 2 gives
    # max(best[1][1], best[2][5]) + 1 = max(0, 2) + 1 = 3; k = 3 gives
    # max(best[1][2], best[3][5]) + 1 = max(1, 1) + 1 = 2: k = 3.  tree[1][2] and
    # tree[3][5] are the 3-node base cases.
    tree = contention_free_binary_tree(switch_chain([6]))
    assert tree.edges() == [("n0", "n1"), ("n0", "n3"), ("n1", "n2"), ("n3", "n4"),
                            ("n3", "n5")]
    assert tree.height == 2


def test_algorithm2_avoids_the_shared_uplink_by_hand():
    # n0, n1 on s0; n2..n5 on s1.  For tree[0][5], every k >= 3 puts n1 -> n2 (over
    # (s0, s1)) in the left subtree while n0 -> n_k also crosses (s0, s1): line (17)
    # rejects them, k = 2 remains: n0 -> n1, n0 -> n2 and tree[2][5] (4 machines on one
    # switch: k = 4 and 5 both give height 2, the first one, k = 4, is kept).
    tree = contention_free_binary_tree(switch_chain([2, 4]))
    assert tree.edges() == [("n0", "n1"), ("n0", "n2"), ("n2", "n3"), ("n2", "n4"),
                            ("n4", "n5")]
    assert tree.height == 3


def test_algorithm1_visits_switches_depth_first_in_link_order():
    # s0 - s1, s0 - s2, s1 - s3: DFS from s0 is s0, s1, s3, s2; root n2 on s0 first.
    c = Cluster(["s0", "s1", "s2", "s3"], ["n0", "n1", "n2", "n3"],
                [("s0", "s1"), ("s0", "s2"), ("s1", "s3"), ("n0", "s2"), ("n1", "s3"),
                 ("n3", "s0"), ("n2", "s0")], "n2")
    assert dfs_switch_order(c) == ["s0", "s1", "s3", "s2"]
    assert linear_order(c) == ["n2", "n3", "n1", "n0"]


def test_broadcast_tree_rejects_a_node_reached_twice():
    with pytest.raises(ValueError):
        BroadcastTree.from_edges("a", [("a", "b"), ("a", "c"), ("b", "c")]).edges()


def test_unaware_shapes_by_hand():
    ranks = ranked_machines(switch_chain([8]))
    children = {shape: dict(unaware_tree(switch_chain([8]), shape).children)
                for shape in ("flat", "binomial", "binary", "linear")}
    assert ranks[0] == "n0" and children["flat"] == {"n0": tuple(ranks[1:])}
    # hypercube: round 0 n0->n1; round 1 n0->n2, n1->n3; round 2 n0->n4 .. n3->n7
    assert children["binomial"] == {"n0": ("n1", "n2", "n4"), "n1": ("n3", "n5"),
                                    "n2": ("n6",), "n3": ("n7",)}
    assert children["binary"] == {"n0": ("n1", "n2"), "n1": ("n3", "n4"),
                                  "n2": ("n5", "n6"), "n3": ("n7",)}
    assert children["linear"] == {f"n{r}": (f"n{r + 1}",) for r in range(7)}
    assert unaware_tree(switch_chain([13]), "k-ary", 3).children["n1"] == ("n4", "n5", "n6")


def test_unaware_trees_contend_where_the_paper_says():
    # 004 §5.2: unaware binary trees contend on every topology but the single switch.
    assert contention_report(switch_chain([32]), unaware_tree(switch_chain([32]),
                                                              "binary")) == []
    four = switch_chain([8] * 4)
    pairs = contention_report(four, unaware_tree(four, "binary"))
    # heap order: n3 -> n8 and n4 -> n9 both go from s0 to s1 over (s0, s1).
    first = {(p.first, p.second) for p in pairs}
    assert (("n3", "n8"), ("n4", "n9")) in first
    # numbered switch by switch, the unaware linear tree is Algorithm 1's tree
    assert contention_report(four, unaware_tree(four, "linear")) == []
    assert contention_report(four, unaware_tree(four, "flat")) == []
