"""steady.schedule.packing.exact_ratio adds the trees' loads as integers over their
common denominator, each tree's loads remembered per platform: the same Fraction as
adding the loads of :func:`~steady.schedule.packing.tree_port_loads` as Fractions."""

from fractions import Fraction

from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.schedule.packing import exact_ratio, tree_port_loads
from steady.strategies import platforms, switched_platforms, trees


def fraction_ratio(platform, weights, optimum):
    """The ratio bound computed in Fractions (the reference)."""
    loads: dict = {}
    for parent, w in weights:
        for port, c in tree_port_loads(platform, parent).items():
            loads[port] = loads.get(port, Fraction(0)) + w * c
    return Fraction(sum(w for _, w in weights)) / (optimum * max(loads.values()))


@st.composite
def weighted_trees(draw, kinds):
    platform = draw(kinds)
    drawn = draw(st.lists(trees(platform), min_size=1, max_size=5))
    weights = [(parent, draw(st.integers(0, 40))) for parent in drawn]
    if not any(w for _, w in weights):
        weights[0] = (weights[0][0], 1)
    optimum = draw(st.fractions(Fraction(1, 100), 10))
    return platform, weights, optimum


@settings(max_examples=examples(80), deadline=None)
@given(weighted_trees(st.one_of(platforms(max_nodes=7), switched_platforms())))
def test_the_integer_ratio_is_the_fraction_ratio(case):
    platform, weights, optimum = case
    first = exact_ratio(platform, weights, optimum)
    assert first == fraction_ratio(platform, weights, optimum)
    assert exact_ratio(platform, weights, optimum) == first   # remembered loads
