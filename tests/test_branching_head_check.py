"""steady.schedule.branchings: each step of the tree growth checks the new arc's head
alone (one max-flow) instead of every destination; proofs/weighted-branchings.md, "One
max-flow per step".  The two give the same trees (002 Thm 5) and the same regrown trees
(:mod:`steady.schedule.regrow`), on random capacities and on timetables of random
platforms."""

from contextlib import contextmanager

from hypothesis import assume, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.schedule import branchings
from steady.schedule.branchings import root_connectivity, weighted_branchings
from steady.schedule.effort import FAST
from steady.schedule.regrow import regrown
from steady.schedule.timed import timed_timetable
from steady.strategies import platforms
from steady.throughput import throughput


@st.composite
def capacitated(draw, max_nodes=8, max_capacity=9):
    """A platform, random integer capacities on its links (0 allowed) and a k up to
    their root-connectivity (at least 1 when it allows)."""
    platform = draw(platforms(max_nodes=max_nodes))
    caps = draw(st.lists(st.integers(0, max_capacity), min_size=len(platform.links),
                         max_size=len(platform.links)))
    caps = dict(zip(platform.arcs, caps))
    top = root_connectivity(platform, caps)
    k = draw(st.integers(min(1, top), top))
    return platform, caps, k


@contextmanager
def _full_check(value: bool):
    old = branchings.FULL_CHECK
    branchings.FULL_CHECK = value
    try:
        yield
    finally:
        branchings.FULL_CHECK = old


def _both(build):
    """build() with every destination checked, then with the head alone."""
    with _full_check(True):
        full = build()
    with _full_check(False):
        return full, build()


@settings(max_examples=examples(150), deadline=None)
@given(case=capacitated())
def test_the_head_check_grows_the_trees_of_the_full_check(case):
    platform, caps, k = case
    full, head = _both(lambda: weighted_branchings(platform, caps, k))
    assert head == full
    assert sum(w for _, w in head) == k


@settings(max_examples=examples(150), deadline=None)
@given(case=capacitated())
def test_the_largest_weight_of_a_step_is_the_full_checks(case):
    """Every step of a growth: the largest weight of each candidate arc agrees."""
    platform, caps, k = case
    assume(k >= 1)   # nothing grows at k = 0 (the test above covers it)
    prop = branchings.Propagation(platform)
    parent, reached, weight = {}, {platform.source}, k
    steps = 0
    while len(reached) < len(platform.nodes):
        chosen = None
        for link in platform.links:
            if link.tail in reached and link.head not in reached and caps[link.arc] > 0:
                mu = min(weight, caps[link.arc])
                full = branchings._largest_weight(prop, caps, k, parent, link.arc, mu,
                                                  full=True)
                head = branchings._largest_weight(prop, caps, k, parent, link.arc, mu,
                                                  full=False)
                assert head == full
                steps += 1
                if full > 0 and chosen is None:
                    chosen = (link, full)
        assert chosen is not None   # Lovász's step: some arc extends the tree
        link, weight = chosen
        parent[link.head] = link.tail
        reached.add(link.head)
    assert steps >= len(platform.nodes) - 1


@settings(max_examples=examples(25), deadline=None)
@given(platform=platforms(min_nodes=2, max_nodes=7), m=st.integers(2, 12))
def test_regrown_trees_are_the_same_with_the_head_check(platform, m):
    result = throughput(platform, "trees")
    table, _ = timed_timetable(platform, result, m, FAST)
    full, head = _both(lambda: regrown(table, 2_000))
    assert type(head) is type(full)
    if isinstance(full, str):
        assert head == full
    else:
        assert head.runs == full.runs and [(t.parent, t.weight) for t in head.trees] == \
        [(t.parent, t.weight) for t in full.trees]


@settings(max_examples=examples(80), deadline=None)
@given(capacitated(max_capacity=6), st.data())
def test_the_reused_network_gives_the_built_networks_flow_and_cut(case, data):
    """``_reused_shortfall`` (one OR-Tools network per platform, capacities reset for
    each check) answers as a FlowNetwork built for the check (empty arcs dropped):
    None when the head receives ``need``, else the same source side of a minimum cut
    (the nodes the source reaches in the residual graph, whatever the maximum flow)."""
    import numpy as np

    from steady.exact.connectivity import Propagation
    from steady.exact.maxflow import FlowNetwork

    platform, caps, _ = case
    prop = Propagation(platform)
    vector = np.array([caps[a] for a in prop.arcs], dtype=np.int64)
    for head in platform.destinations:
        need = data.draw(st.integers(1, 8))
        network = FlowNetwork(prop.nodes, platform.source, prop.arcs, vector, prop.ends)
        built = None if network.max_flow(head) >= need else network.min_cut(head)[1]
        assert branchings._reused_shortfall(prop, vector, need, head) == built
