"""Seed 004 §4.1: Algorithm 1, Algorithm 2 (Figure 4) and its k-ary extension; the
topology-unaware trees of §3.1 and their contention."""

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.ethernet.broadcast_tree import BroadcastTree
from steady.ethernet.cluster import Cluster
from steady.ethernet.contention import contending_pairs
from steady.ethernet.generators import random_cluster, switch_chain
from steady.ethernet.strategies import switched_clusters
from steady.ethernet.trees import (algorithm2_reference, child_start_bounds,
                                   contention_free_binary_tree, contention_free_kary_tree,
                                   contention_free_linear_tree, dfs_switch_order,
                                   kary_reference, linear_order, linear_order_geometry)
from steady.ethernet.unaware import contention_report, ranked_machines, unaware_tree


def pipelined_contention(cluster, tree):
    """Pairs that can be active at once in a pipelined broadcast: different senders
    (004 §4.1) — computed from the paths, independently of the constructors' checks."""
    return contending_pairs(cluster, tree.edges(), different_senders=True)


def root_send_contends(cluster, send, inside):
    """True when the communication ``send`` shares a channel with one of ``inside``
    (different senders); contention among ``inside`` themselves does not count."""
    pairs = contending_pairs(cluster, [send] + list(inside), different_senders=True)
    return any(send in (p.first, p.second) for p in pairs)


def random_forward_tree(rng, m, p, q):
    """A random tree over S(p, q) rooted at m_p whose communications go forward in
    Algorithm 1's order (every tree the programmes build is one)."""
    return [(m[rng.randrange(p, y)], m[y]) for y in range(p + 1, q + 1)]


def assert_spans_from_root(cluster, tree):
    nodes = tree.nodes()
    assert nodes[0] == cluster.root
    assert sorted(nodes) == sorted(cluster.machines)           # each machine exactly once


@settings(max_examples=examples(60), deadline=None)
@given(switched_clusters(max_machines=12, max_switches=7))
def test_lemma1_the_dfs_cycle_uses_every_switch_channel_once(cluster):
    s = dfs_switch_order(cluster)
    assert sorted(s) == sorted(cluster.switches) and s[0] == cluster.switch_of(cluster.root)
    used = [e for a, b in zip(s, s[1:] + s[:1]) for e in cluster.path(a, b)]
    channels = [(a, b) for a in cluster.switches for b in cluster.switch_neighbours(a)]
    assert sorted(used) == sorted(channels)


@settings(max_examples=examples(60), deadline=None)
@given(switched_clusters(max_machines=14, max_switches=7))
def test_theorem1_linear_tree_is_contention_free_and_spans(cluster):
    tree = contention_free_linear_tree(cluster)
    assert_spans_from_root(cluster, tree)
    assert tree.max_degree <= 1
    assert contending_pairs(cluster, tree.edges()) == []        # even same-sender pairs


@settings(max_examples=examples(60), deadline=None)
@given(switched_clusters(max_machines=16, max_switches=7))
def test_theorem2_binary_tree_is_contention_free_and_spans(cluster):
    tree = contention_free_binary_tree(cluster)
    assert_spans_from_root(cluster, tree)
    assert tree.max_degree <= 2
    assert pipelined_contention(cluster, tree) == []
    assert tree.height >= len(cluster.machines).bit_length() - 1   # complete binary tree


@settings(max_examples=examples(40), deadline=None)
@given(switched_clusters(max_machines=14, max_switches=6), st.integers(2, 5))
def test_kary_tree_is_contention_free_and_spans(cluster, k):
    tree = contention_free_kary_tree(cluster, k)
    assert_spans_from_root(cluster, tree)
    assert tree.max_degree <= k
    assert pipelined_contention(cluster, tree) == []


@settings(max_examples=examples(40), deadline=None)
@given(switched_clusters(max_machines=12, max_switches=6))
def test_fast_algorithm2_is_figure4_line_by_line(cluster):
    assert contention_free_binary_tree(cluster).edges() == \
        algorithm2_reference(cluster).edges()


def test_fast_algorithm2_is_figure4_on_random_clusters():
    for seed in range(40):
        rng = random.Random(seed)
        c = random_cluster(rng.randint(2, 18), rng.choice([1, 2, 3, 8]), seed)
        assert contention_free_binary_tree(c).edges() == algorithm2_reference(c).edges()


@settings(max_examples=examples(30), deadline=None)
@given(switched_clusters(max_machines=10, max_switches=5), st.integers(2, 4))
def test_fast_kary_is_the_plain_enumeration(cluster, k):
    assert contention_free_kary_tree(cluster, k).edges() == \
        kary_reference(cluster, k).edges()


def plane_trees(lo, hi, k):
    """Every tree over S(lo, hi) rooted at m_lo whose nodes' children are 1..k
    consecutive sub-arrays (the first starting right after the node): (height, index
    pairs).  These are the plane trees numbered in preorder."""
    if lo == hi:
        yield 0, []
        return
    for c in range(1, min(k, hi - lo) + 1):
        for cuts in itertools.combinations(range(lo + 2, hi + 1), c - 1):
            starts = [lo + 1, *cuts]
            ends = [x - 1 for x in starts[1:]] + [hi]
            for subs in itertools.product(*(list(plane_trees(x, y, k))
                                            for x, y in zip(starts, ends))):
                yield (1 + max(h for h, _ in subs),
                       [(lo, x) for x in starts] + [e for _, es in subs for e in es])


@settings(max_examples=examples(40), deadline=None)
@given(switched_clusters(max_machines=7, max_switches=6), st.integers(2, 4))
def test_kary_is_the_least_height_of_all_consecutive_sub_array_trees(cluster, k):
    # issue 22: brute force over every tree built from consecutive sub-arrays of
    # Algorithm 1's order (degree <= k), contention checked on the explicit paths.
    m = linear_order(cluster)
    least = min(h for h, pairs in plane_trees(0, len(m) - 1, k)
                if contending_pairs(cluster, [(m[a], m[b]) for a, b in pairs],
                                    different_senders=True) == [])
    assert contention_free_kary_tree(cluster, k).height == least


def chain_rule_height(cluster, k):
    """The k-ary construction before issue 22: 2..k children (one when j = i + 1),
    every later child's first machine m_x allowed only when m_i -> m_x contends with
    nothing on the chain m_{i+1} -> ... -> m_{x-1}; explicit paths, small P only."""
    m = linear_order(cluster)
    allowed = {(i, x): not root_send_contends(cluster, (m[i], m[x]),
                                              list(zip(m[i + 1:x - 1], m[i + 2:x])))
               for i in range(len(m)) for x in range(i + 2, len(m))}
    best = {}
    for length in range(len(m)):
        for i in range(len(m) - length):
            j = i + length
            if length <= 1:
                best[i, j] = length
                continue
            options = []
            for c in range(2, k + 1):
                for cuts in itertools.combinations(range(i + 2, j + 1), c - 1):
                    if all(allowed[i, x] for x in cuts):
                        ends = [x - 1 for x in cuts] + [j]
                        options.append(1 + max(best[x, y] for x, y in
                                               zip([i + 1, *cuts], ends)))
            best[i, j] = min(options)
    return best[0, len(m) - 1]


@settings(max_examples=examples(30), deadline=None)
@given(switched_clusters(max_machines=11, max_switches=6), st.integers(2, 4))
def test_kary_is_no_taller_than_the_chain_rule_nor_algorithm2(cluster, k):
    tree = contention_free_kary_tree(cluster, k)
    assert tree.height <= chain_rule_height(cluster, k)
    if k == 2:
        assert tree.height <= contention_free_binary_tree(cluster).height


@settings(max_examples=examples(60), deadline=None)
@given(switched_clusters(max_machines=12, max_switches=7, min_machines=3), st.randoms())
def test_child_start_bounds_are_the_precaution(cluster, rng):
    # proofs/ethernet-trees.md: m_i -> m_{x_t} contends with nothing inside the subtrees
    # of children 1..t-1 (any forward trees) for every t iff x_{t-1} >= bound(i, x_t)
    # for every t.
    bounds = child_start_bounds(cluster)
    m = bounds.machines
    i = rng.randrange(len(m) - 2)
    later = sorted(rng.sample(range(i + 2, len(m)), rng.randint(1, min(4, len(m) - i - 2))))
    starts = [i + 1] + later
    ends = [x - 1 for x in starts[1:]] + [len(m) - 1]
    subtrees = [random_forward_tree(rng, m, x, y) for x, y in zip(starts, ends)]
    explicit = all(not root_send_contends(cluster, (m[i], m[starts[t]]),
                                          [c for tree in subtrees[:t] for c in tree])
                   for t in range(1, len(starts)))
    assert explicit == all(bounds.bound(i, z) <= x for x, z in zip(starts, starts[1:]))


@settings(max_examples=examples(40), deadline=None)
@given(switched_clusters(max_machines=14, max_switches=7))
def test_kary_with_k_2_is_algorithm2_unless_a_single_child_helps(cluster):
    # proofs/ethernet-trees.md: with k = 2 the precaution is line (17) and the ties are
    # line (18)'s; the trees differ only through a node with one child over 3 or more
    # machines, which Figure 4 does not have.
    tree = contention_free_kary_tree(cluster, 2)
    figure4 = contention_free_binary_tree(cluster)
    assert tree.height <= figure4.height
    sizes = {v: 1 for v in tree.nodes()}
    for u, v in reversed(tree.edges()):
        sizes[u] += sizes[v]
    if all(len(kids) == 2 or sizes[u] == 2 for u, kids in tree.children.items()):
        assert tree.edges() == figure4.edges()


def test_kary_with_k_2_beats_algorithm2_by_hand():
    # n0, n1 on s0; s0 - s1 - s2, s2 - s3 (n2, n3), s2 - s4 (n4), s1 - s5 (n5, n6, n7).
    # Figure 4 gives n0 two children: n0 -> n_k crosses (s0, s1) for every k >= 2, and
    # so does the left subtree once it holds n1 and a machine off s0, so k = 2: n1 is a
    # leaf and n2..n7 need height 3 below n0.  One child lets n1 take the root's place:
    # n1 -> n2 (subtree n2 -> n3, n4) and n1 -> n5 (s0, s1, s5: no channel of
    # n2 -> n3, n2 -> n4), height 3 instead of 4.
    place = {"n0": "s0", "n1": "s0", "n2": "s3", "n3": "s3", "n4": "s4", "n5": "s5",
             "n6": "s5", "n7": "s5"}
    links = [("s0", "s1"), ("s1", "s2"), ("s2", "s3"), ("s2", "s4"), ("s1", "s5")]
    cluster = Cluster([f"s{t}" for t in range(6)], list(place), links + list(place.items()),
                      "n0")
    assert contention_free_binary_tree(cluster).height == 4
    tree = contention_free_kary_tree(cluster, 2)
    assert tree.edges() == [("n0", "n1"), ("n1", "n2"), ("n1", "n5"), ("n2", "n3"),
                            ("n2", "n4"), ("n5", "n6"), ("n5", "n7")]
    assert pipelined_contention(cluster, tree) == []


def test_kary_joins_sub_arrays_the_chain_rule_refused_by_hand():
    # n0, n1 on s0; n2, n3 on s1.  The flat tree n0 -> n1, n2, n3 is contention-free
    # (one sender); the old rule refused n3 as a child start because n0 -> n3 and the
    # chain's n1 -> n2 both cross (s0, s1).
    c = switch_chain([2, 2])
    assert chain_rule_height(c, 3) == 2
    tree = contention_free_kary_tree(c, 3)
    assert tree.edges() == [("n0", "n1"), ("n0", "n2"), ("n0", "n3")]


def test_kary_precaution_by_hand():
    # n0 on s0; n1, n2 on s1; n3, n4 on s2 (chain s0 - s1 - s2).  Under the root n0, a
    # child starting at n4 needs the child before it to start on s2, at n3: after a
    # child holding n2 -> n3, n0 -> n4 would share (s1, s2) with it.  A child starting
    # at n3 may follow any child: nothing inside S(1, 2) leaves s1.
    c = switch_chain([1, 2, 2])
    bounds = child_start_bounds(c)
    assert bounds.bound(0, 4) == 3 and bounds.bound(0, 3) <= 1
    assert root_send_contends(c, ("n0", "n4"), [("n2", "n3")])
    assert not root_send_contends(c, ("n0", "n3"), [("n1", "n2")])
    tree = contention_free_kary_tree(c, 3)
    assert tree.edges() == [("n0", "n1"), ("n0", "n2"), ("n2", "n3"), ("n2", "n4")]


def test_kary_on_the_64_machine_sample():
    # issue 22: the construction before it gave height 7 with k = 4; an independent
    # implementation found a contention-free tree of height 4.
    cluster = Cluster.from_file(Path(__file__).resolve().parent.parent / "samples"
                                / "ethernet-random-64.json")
    tree = contention_free_kary_tree(cluster, 4)
    assert tree.height == 4 and tree.max_degree <= 4
    assert pipelined_contention(cluster, tree) == []


@settings(max_examples=examples(60), deadline=None)
@given(switched_clusters(max_machines=12, max_switches=7, min_machines=3), st.randoms())
def test_line17_check_depends_on_the_sub_array_only(cluster, rng):
    # proofs/ethernet-trees.md: m_i -> m_k contends with one forward tree over
    # S(i+1, k-1) iff it contends with every one, iff allowed[i, k] is False.  Only
    # pairs with m_i -> m_k count: a random forward tree may contend with itself.
    g = linear_order_geometry(cluster)
    m = g.machines
    i = rng.randrange(len(m) - 2)
    k = rng.randrange(i + 2, len(m))
    forward = random_forward_tree(rng, m, i + 1, k - 1)
    chain = [(m[y], m[y + 1]) for y in range(i + 1, k - 1)]
    for tree in (forward, chain):
        assert root_send_contends(cluster, (m[i], m[k]), tree) != bool(g.allowed[i, k])


def test_line17_check_ignores_contention_inside_the_sub_array():
    # The counterexample hypothesis found against the first version of the test above,
    # which counted every contending pair: root n0 on s1; Algorithm 1's order is n0,
    # n2..n8 (s1), n9, n10 (s2), n1 (s0).  For i = 3 (n4), k = 10 (n1), the forward
    # tree below contends with itself (n5 -> n9 and n6 -> n10 share (s1, s2)) but not
    # with n4 -> n1, which leaves s1 towards s0: allowed[3, 10] is right.
    links = ([("s1", "s2"), ("s0", "s1"), ("s0", "s3"), ("n0", "s1"), ("n1", "s0")]
             + [(f"n{v}", "s1") for v in range(2, 9)] + [("n9", "s2"), ("n10", "s2")])
    cluster = Cluster(["s0", "s1", "s2", "s3"], [f"n{v}" for v in range(11)], links, "n0")
    g = linear_order_geometry(cluster)
    assert g.machines == ("n0", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10",
                          "n1")
    forward = [("n5", "n6"), ("n5", "n7"), ("n5", "n8"), ("n5", "n9"), ("n6", "n10")]
    pairs = contending_pairs(cluster, [("n4", "n1")] + forward, different_senders=True)
    assert [(p.first, p.second, p.edges) for p in pairs] == \
        [(("n5", "n9"), ("n6", "n10"), (("s1", "s2"),))]
    assert g.allowed[3, 10] and not root_send_contends(cluster, ("n4", "n1"), forward)
    # Algorithm 2 never builds such a tree: its subtrees are checked as built.
    assert pipelined_contention(cluster, contention_free_binary_tree(cluster)) == []


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
