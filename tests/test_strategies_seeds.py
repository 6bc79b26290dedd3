"""Issue 21 for the seed systems' strategies: grids (001) and switched clusters (004)
take values or strategies and reject bad arguments with hypothesis' InvalidArgument."""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import find, given, settings

from helpers import examples
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from steady.ethernet.strategies import switched_clusters
from steady.grid.strategies import grids

FAST = settings(max_examples=examples(30), deadline=None)


@FAST
@given(grids(min_clusters=st.integers(2, 3), max_clusters=st.just(4), latency="1/2",
             gap=st.decimals(1, 2, places=1), broadcast_time=0.25,
             symmetric=st.booleans(), any_root=st.booleans()))
def test_grid_parameters_may_be_values_or_strategies(grid):
    assert 2 <= grid.size <= 4
    off = [(i, j) for i in range(grid.size) for j in range(grid.size) if i != j]
    assert {grid.L[i][j] for i, j in off} == {Fraction(1, 2)}
    assert all(1 <= grid.g[i][j] <= 2 and 10 % Fraction(grid.g[i][j]).denominator == 0
               for i, j in off)
    assert set(grid.T) == {Fraction(1, 4)}


def test_grid_max_clusters_none():
    grid = find(grids(min_clusters=3, max_clusters=None), lambda g: g.size > 5)
    assert grid.size == 6                                  # min_clusters + 3 at most


@pytest.mark.parametrize("make, says", [
    (lambda: grids(min_clusters=1), "min_clusters = 1: must be >= 2"),
    (lambda: grids(max_clusters="5"), "max_clusters = '5': must be an int"),
    (lambda: grids(min_clusters=4, max_clusters=3),
     "max_clusters = 3: must be >= min_clusters (4)"),
    (lambda: grids(gap=0), "gap = 0: must be > 0"),
    (lambda: grids(latency=-1), "latency = -1: must be >= 0"),
    (lambda: grids(broadcast_time="x"), "broadcast_time = 'x': must be an exact number"),
    (lambda: grids(symmetric="yes"), "symmetric = 'yes': must be True or False"),
    (lambda: switched_clusters(max_machines=0), "max_machines = 0: must be >= 1"),
    (lambda: switched_clusters(max_switches=2.0), "max_switches = 2.0: must be an int"),
    (lambda: switched_clusters(max_machines=2, min_machines=3),
     "max_machines=2 < min_machines=3")])
def test_bad_values_fail_at_definition(make, says):
    with pytest.raises(InvalidArgument) as info:
        make()
    assert says in str(info.value)


@pytest.mark.parametrize("strategy, says", [
    (grids(gap=st.just(0)), "gap drew 0: must be > 0"),
    (grids(latency=st.just(Decimal(-1))), "latency drew Decimal('-1'): must be >= 0"),
    (grids(min_clusters=st.just(5), max_clusters=3),
     "max_clusters drew 3: must be >= min_clusters (5)"),
    (switched_clusters(min_machines=st.just(0)), "min_machines drew 0: must be >= 1")])
def test_bad_draws_fail_naming_the_parameter(strategy, says):
    with pytest.raises(InvalidArgument) as info:
        find(strategy, lambda x: True)
    assert says in str(info.value)


@FAST
@given(switched_clusters(max_machines=st.integers(1, 6), max_switches=st.just(3),
                         min_machines=st.just(1)))
def test_cluster_parameters_may_be_strategies(cluster):
    assert 1 <= len(cluster.machines) <= 6 and 1 <= len(cluster.switches) <= 3


@pytest.mark.parametrize("strategy", [grids(), switched_clusters()])
def test_health_checks_pass_at_default_settings(strategy):
    @settings(max_examples=10)
    @given(strategy)
    def draw(x):
        pass

    draw()
