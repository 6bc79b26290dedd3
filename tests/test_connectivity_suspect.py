"""steady.exact.connectivity.integer_shortfall with a ``suspect``: when capacities that
had root-connectivity >= N lose one message on a link (and others gain some), only
cuts that link leaves can open, so its head is short whenever anything is; the check
then max-flows the head first and the nodes before it only.  The answer is the full
check's (the first short node, its max-flow, its minimum cut nearest the source), and
the count search (:mod:`steady.schedule.count_search`, which checks this way) finds the
same counts."""

from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.exact.connectivity import Propagation, integer_shortfall
from steady.schedule import count_search
from steady.schedule.branchings import root_connectivity
from steady.schedule.count_search import searched_counts
from steady.schedule.counts import link_rates, rounded_counts
from steady.strategies import platforms
from steady.throughput import throughput


@st.composite
def dropped_counts(draw):
    """(propagation, capacities per arc index, N, dropped arc index): capacities of
    root-connectivity N, then one message off a link that had one and 0-2 added on
    up to three others."""
    platform = draw(platforms(min_nodes=2, max_nodes=8))
    caps = {a: draw(st.integers(0, 6)) for a in platform.arcs}
    n = root_connectivity(platform, caps)
    prop = Propagation(platform)
    values = [caps[a] for a in prop.arcs]
    loaded = [i for i, c in enumerate(values) if c]
    i = draw(st.sampled_from(loaded)) if loaded else None
    if i is not None:
        values[i] -= 1
        for j in draw(st.lists(st.sampled_from(range(len(values))), max_size=3)):
            if j != i:
                values[j] += draw(st.integers(0, 2))
    return prop, values, n, i


@settings(max_examples=examples(80), deadline=None)
@given(dropped_counts())
def test_the_suspect_check_answers_as_the_full_check(case):
    prop, values, n, i = case
    full = integer_shortfall(prop, values, n)
    if i is None:
        assert full is None   # nothing dropped: every destination still receives n
    else:
        assert integer_shortfall(prop, values, n, suspect=prop.arcs[i][1]) == full


def test_a_drop_that_opens_a_cut_names_the_first_short_node():
    # s -> a -> b and s -> b, one message each: b receives 2, a receives 1; taking the
    # message off s -> a leaves a short (b still receives 1 over s -> b)
    from steady import Link, Platform
    platform = Platform("s", [Link("s", "a", 1), Link("a", "b", 1), Link("s", "b", 1)],
                        nodes=["s", "a", "b"])
    prop = Propagation(platform)
    values = [1] * len(prop.arcs)
    values[prop.arc_index[("s", "a")]] -= 1
    full = integer_shortfall(prop, values, 1)
    fast = integer_shortfall(prop, values, 1, suspect="a")
    assert full == fast and full[0] == "a" and full[1] == 0


@settings(max_examples=examples(40), deadline=None)
@given(platforms(min_nodes=3, max_nodes=8), st.integers(2, 20), st.integers(0, 6))
def test_the_count_search_finds_the_same_counts_with_the_full_check(platform, n, kicks):
    result = throughput(platform, "trees")
    start = rounded_counts(link_rates(result.trees), result.throughput, n)
    fast = searched_counts(platform, dict(start), n, kicks)
    short = count_search._Counts.short
    try:
        count_search._Counts.short = lambda self, dropped=None: short(self)
        full = searched_counts(platform, dict(start), n, kicks)
    finally:
        count_search._Counts.short = short
    assert fast == full
