"""steady.schedule.branchings: weighted broadcast trees (002 §5.3, Theorem 5 and Lemma 4).

The postconditions are re-derived here from scratch (not through check_branchings):
every tree is a spanning arborescence rooted at the source over existing links, the
weights are positive integers adding up to k, and no link carries more than its
capacity.  Capacities are drawn at random (not LP optima), so the construction is
exercised away from the structure SSB(G) gives it; then on the exact LP optima N·n,
N·TP of 002 §5.3.1 too.
"""

from collections import Counter
from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import Link, Platform, default_platform
from steady.throughput import compact_trees
from steady.schedule.branchings import (check_branchings, root_connectivity,
                              weighted_branchings)
from steady.numbers import lcm_of_denominators
from steady.strategies import platforms
from steady.throughput import throughput, tree_formula

F = Fraction
SMALL = settings(max_examples=examples(60), deadline=None)


# -- independent checks ----------------------------------------------------------------

def assert_spanning_arborescence(platform, parent):
    """child -> parent is a spanning arborescence rooted at the source over links."""
    assert set(parent) == set(platform.destinations)
    arcs = set(platform.arcs)
    for child, par in parent.items():
        assert (par, child) in arcs, f"{par}->{child} is not a link"
    for v in parent:
        seen = set()
        while v != platform.source:
            assert v not in seen, f"cycle through {v}"
            seen.add(v)
            v = parent[v]


def assert_branchings(platform, capacities, k, trees):
    """The postcondition of 002 Thm 5, recomputed."""
    usage = Counter()
    for parent, weight in trees:
        assert type(weight) is int and weight > 0
        assert_spanning_arborescence(platform, parent)
        for child, par in parent.items():
            usage[(par, child)] += weight
    assert sum(w for _, w in trees) == k
    for arc, load in usage.items():
        assert load <= capacities.get(arc, 0), f"{arc} carries {load}"


def nx_root_connectivity(platform, capacities) -> int:
    """min over destinations of the source -> destination max-flow, by networkx."""
    g = nx.DiGraph()
    g.add_nodes_from(platform.nodes)
    for arc in platform.arcs:
        g.add_edge(*arc, capacity=capacities.get(arc, 0))
    return min(nx.maximum_flow_value(g, platform.source, d) for d in platform.destinations)


def one_port_rows(platform) -> int:
    """Out-port rows (nodes that can send) plus in-port rows (destinations)."""
    senders = {l.tail for l in platform.links}
    return len(senders) + len(platform.destinations)


def assert_port_loads_fit(platform, trees, scale):
    out, inn = Counter(), Counter()
    for parent, weight in trees:
        rate = F(weight, scale)
        for child, par in parent.items():
            out[par] += rate * platform.cost(par, child)
            inn[child] += rate * platform.cost(par, child)
    assert all(t <= 1 for t in out.values()) and all(t <= 1 for t in inn.values())


@st.composite
def capacitated(draw, max_nodes=7, max_capacity=6):
    """A platform and random integer capacities on its links (0 allowed)."""
    platform = draw(platforms(max_nodes=max_nodes))
    caps = draw(st.lists(st.integers(0, max_capacity), min_size=len(platform.links),
                         max_size=len(platform.links)))
    return platform, dict(zip(platform.arcs, caps))


def optimum_capacities(platform, method="cuts"):
    """002 §5.3.1: N = lcm of the denominators of n and TP; capacities N·n, k = N·TP."""
    result = throughput(platform, method)
    n = {arc: x for arc, x in result.n.items() if x}
    scale = lcm_of_denominators(list(n.values()) + [result.throughput])
    return result, scale, {arc: int(x * scale) for arc, x in n.items()}, \
        int(result.throughput * scale)


# -- Theorem 5 on random capacities ---------------------------------------------------

@SMALL
@given(capacitated(), st.data())
def test_thm5_random_capacities_meet_every_postcondition(pc, data):
    """002 Thm 5: for any integer capacities and any k up to the root-connectivity,
    integer-weighted spanning arborescences of total weight k fit in the capacities."""
    platform, caps = pc
    kmax = root_connectivity(platform, caps)
    assert kmax == nx_root_connectivity(platform, caps)
    k = data.draw(st.integers(0, kmax), label="k")
    before = dict(caps)
    trees = weighted_branchings(platform, caps, k)
    assert caps == before                       # the caller's capacities are not touched
    assert_branchings(platform, caps, k, trees)
    check_branchings(platform, caps, k, trees)  # the library's own check agrees


@SMALL
@given(capacitated())
def test_thm5_reaches_the_root_connectivity(pc):
    """Lemma 4 direction 'sum λ = κ': the maximum k is the root-connectivity itself."""
    platform, caps = pc
    k = root_connectivity(platform, caps)
    assert_branchings(platform, caps, k, weighted_branchings(platform, caps, k))


@SMALL
@given(capacitated())
def test_k_beyond_root_connectivity_is_refused(pc):
    """No k + 1 trees fit when a destination can receive only k (max-flow min-cut)."""
    platform, caps = pc
    k = root_connectivity(platform, caps)
    with pytest.raises(ValueError):
        weighted_branchings(platform, caps, k + 1)


def test_negative_inputs_are_refused():
    p = default_platform()
    with pytest.raises(ValueError):
        weighted_branchings(p, {arc: 1 for arc in p.arcs}, -1)
    with pytest.raises(ValueError):
        weighted_branchings(p, {**{arc: 1 for arc in p.arcs}, ("Ps", "P1"): -1}, 0)


def test_large_capacities_give_few_trees():
    """Weights, not copies: capacities 10^40 on Figure 1 still give a handful of trees
    (002 Lemma 5: the encoding is polynomial in log of the capacities)."""
    p = default_platform()
    caps = {arc: 10**40 for arc in p.arcs}
    k = root_connectivity(p, caps)
    assert k == 10**40         # P3 has one in-link, P1->P3
    trees = weighted_branchings(p, caps, k)
    assert_branchings(p, caps, k, trees)
    assert len(trees) <= len(p.nodes) ** 3 + len(p.links)


# -- Theorem 5 on exact LP optima (002 §5.3.1, Lemma 4) -----------------------------

@SMALL
@given(platforms(max_nodes=7), st.sampled_from(["cuts", "flow"]))
def test_lp_optimum_capacities(platform, method):
    """Capacities N·n from an exact SSB(G) optimum: the root-connectivity is exactly
    N·TP (Thm 4 / Lemma 4) and N·TP weighted trees fit in them."""
    result, scale, caps, k = optimum_capacities(platform, method)
    assert root_connectivity(platform, caps) == k
    trees = weighted_branchings(platform, caps, k)
    assert_branchings(platform, caps, k, trees)


def test_figure_1_optimum_gives_two_trees_of_weight_one():
    """002 Figure 1: TP = 1 and n = 1/2 on the four cost-1 links, 1 on the two 1/2 links
    (N = 2): two trees of weight 1."""
    p = default_platform()
    result, scale, caps, k = optimum_capacities(p)
    assert result.throughput == 1
    trees = weighted_branchings(p, caps, k)
    assert_branchings(p, caps, k, trees)
    assert Fraction(k, scale) == 1


# -- compact_trees: a basic solution of the port rows ----------------------------------

@SMALL
@given(platforms(max_nodes=7))
def test_compact_trees_keeps_the_throughput_with_few_trees(platform):
    """From the Thm 5 family of an optimum: at most one tree per one-port row (a basic
    solution), same throughput, every tree spanning, every port load <= 1."""
    result, scale, caps, k = optimum_capacities(platform)
    built = weighted_branchings(platform, caps, k)
    compacted, new_scale = compact_trees(platform, built, scale)
    assert 1 <= len(compacted) <= one_port_rows(platform) <= 2 * len(platform.nodes) - 1
    assert F(sum(w for _, w in compacted), new_scale) == result.throughput
    for parent, weight in compacted:
        assert type(weight) is int and weight > 0
        assert_spanning_arborescence(platform, parent)
    assert_port_loads_fit(platform, compacted, new_scale)


@SMALL
@given(platforms(max_nodes=7), st.data())
def test_compact_trees_of_one_tree_is_that_tree_at_its_throughput(platform, data):
    """A family of one tree: the port-row LP over it is TP(T) of 002 §3.1.2 eq. (1)."""
    from steady.strategies import spanning_trees

    tree = data.draw(spanning_trees(platform))
    tp = tree_formula(platform, tree)
    compacted, scale = compact_trees(platform, [(tree, tp.numerator)], tp.denominator)
    assert len(compacted) == 1 and compacted[0][0] == tree
    assert F(compacted[0][1], scale) == tp
    assert_port_loads_fit(platform, compacted, scale)


def test_compact_trees_with_huge_costs():
    """Costs ~10^30 (rates ~10^-30) still compact exactly: the float search works on
    normalised costs."""
    p = default_platform().scale_costs(10**30)
    result, scale, caps, k = optimum_capacities(p)
    assert result.throughput == F(1, 10**30)
    compacted, new_scale = compact_trees(p, weighted_branchings(p, caps, k), scale)
    assert F(sum(w for _, w in compacted), new_scale) == F(1, 10**30)
    assert_port_loads_fit(p, compacted, new_scale)


# -- check_branchings rejects corrupted families ---------------------------------------

CORRUPTIONS = ["weight+1", "weight0", "weight-fraction", "drop-child", "non-link",
               "cycle", "capacity", "k+1", "k-1"]


def corrupt(platform, caps, k, trees, how):
    """A corrupted (capacities, k, trees), or None when ``how`` does not apply."""
    trees = [(dict(parent), w) for parent, w in trees]
    parent, w = trees[0]
    if how == "weight+1":
        trees[0] = (parent, w + 1)
    elif how == "weight0":
        trees[0] = (parent, 0)
    elif how == "weight-fraction":
        trees[0] = (parent, F(w))            # the right value, but not an int
    elif how == "drop-child":
        parent.pop(next(iter(parent)))
    elif how == "non-link":
        missing = [(u, v) for u in platform.nodes for v in platform.destinations
                   if u != v and not platform.has_link(u, v)]
        if not missing:
            return None
        u, v = missing[0]
        parent[v] = u
    elif how == "cycle":
        # Point a child at one of its own descendants over an existing link.
        for l in platform.links:
            if l.head != platform.source and l.tail != platform.source:
                x = l.tail
                while x != platform.source and x != l.head:
                    x = parent[x]
                if x == l.head:                 # l.tail descends from l.head
                    parent[l.head] = l.tail
                    break
        else:
            return None
    elif how == "capacity":
        child, par = next(iter(parent.items()))
        used = sum(wt for p, wt in trees if p.get(child) == par)
        caps = {**caps, (par, child): used - 1}
    elif how == "k+1":
        k += 1
    elif how == "k-1":
        k -= 1
    return caps, k, trees


@settings(max_examples=examples(30), deadline=None)
@given(capacitated(), st.sampled_from(CORRUPTIONS))
def test_check_branchings_rejects_corruptions(pc, how):
    platform, caps = pc
    k = root_connectivity(platform, caps)
    if k == 0:
        caps = {arc: 1 for arc in platform.arcs}
        k = root_connectivity(platform, caps)
    trees = weighted_branchings(platform, caps, k)
    check_branchings(platform, caps, k, trees)
    bad = corrupt(platform, caps, k, trees, how)
    if bad is None:
        return
    with pytest.raises((AssertionError, ValueError)):
        check_branchings(platform, *bad)


def test_check_branchings_names_the_overloaded_link():
    p = Platform("S", [Link("S", "A", F(1))])
    with pytest.raises(AssertionError, match="S->A carries 2 > capacity 1"):
        check_branchings(p, {("S", "A"): 1}, 2, [({"A": "S"}, 2)])


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_check_branchings_rejects_each_corruption_of_figure_1(how):
    """Every corruption applies to the Figure 1 family and is caught."""
    p = default_platform()
    _, _, caps, k = optimum_capacities(p)
    trees = weighted_branchings(p, caps, k)
    bad = corrupt(p, caps, k, trees, how)
    assert bad is not None
    with pytest.raises((AssertionError, ValueError)):
        check_branchings(p, *bad)
