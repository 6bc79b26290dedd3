"""Reduce-scatter and allreduce timetables from allgather ones (issue 43;
steady.schedule.reversal, proofs/collectives.md §12)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples

from steady.schedule.collective import collective_timetable
from steady.schedule.effort import effort
from steady.schedule.reversal import mirrored, one_after_the_other, reduced_timetable
from steady.strategies import switched_platforms
from steady.throughput import collective_throughput
from steady.topologies import fat_tree_platform, switched_cluster
from steady.verify import verify


def _verified_ratio(platform, result, table) -> Fraction:
    report = verify(platform, table.schedule(result))
    assert report.ok, report
    return report.ratio


@given(switched_platforms(min_compute=2, max_compute=4, max_switches=2), st.integers(1, 6))
@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_mirrored_allgather_is_a_reduce_scatter_at_the_same_ratio(platform, most):
    """Any allgather timetable of the reversal, mirrored: a reduce-scatter timetable of
    the platform (in-trees) that the independent checker accepts, at exactly the
    allgather's ratio (the two optima are equal, §5)."""
    back = platform.reversed()
    gather = collective_throughput(back, "allgather")
    table, _ = collective_timetable(back, gather, most, effort("fast"))
    reduce = collective_throughput(platform, "reduce-scatter")
    assert reduce.rate == gather.rate
    mirror = mirrored(table, platform)
    assert all(t.direction == "in" for t in mirror.trees)
    assert mirror.period == table.period and mirror.messages == table.messages
    ratio = table.rate(gather.roots) / gather.rate
    assert mirror.rate(reduce.roots) / reduce.rate == ratio
    assert _verified_ratio(platform, reduce, mirror) == ratio


def test_mirroring_refuses_in_trees():
    platform = switched_cluster(2)
    result = collective_throughput(platform, "reduce-scatter")
    table, _ = collective_timetable(platform, result, 4, effort("fast"))
    with pytest.raises(ValueError):
        mirrored(table, platform.reversed())


def test_one_after_the_other_adds_the_periods():
    """Seed 2's reduce-scatter then its allgather (multi-port): one timetable of both
    trees' sets, period the sum, every run of the second moved by the first period."""
    platform = switched_cluster(2)
    first, _ = collective_timetable(platform, collective_throughput(platform, "reduce-scatter"),
                                    4, effort("fast"))
    second, _ = collective_timetable(platform, collective_throughput(platform, "allgather"),
                                     4, effort("fast"))
    both = one_after_the_other(first, second)
    assert both.period == first.period + second.period
    assert len(both.trees) == len(first.trees) + len(second.trees)
    k = len(first.trees)
    assert all(both.runs[(k + i, arc)] == tuple((s + first.period, n) for s, n in rs)
               for (i, arc), rs in second.runs.items())


@pytest.mark.parametrize("over", [pytest.param(1, marks=pytest.mark.slow), 2,
                                  pytest.param(4, marks=pytest.mark.slow)])
@pytest.mark.parametrize("kind", ["reduce-scatter", "allreduce"])
def test_fat_trees_reduce_at_the_optimum(kind, over):
    """Fat trees k = 4 with oversubscription 1, 2, 4: the reversal's allgather phases
    mirrored (then the allgather's, for the allreduce) reach x* exactly at 64 chunks
    per root, checked independently (the list schedule gave 0.887 for the allreduce
    at o = 2)."""
    platform = fat_tree_platform(4, oversubscription=over)
    result = collective_throughput(platform, kind)
    built = reduced_timetable(platform, result, 64)
    assert built is not None
    table, k = built
    assert k == 64
    assert table.rate(result.roots) == result.rate
    assert _verified_ratio(platform, result, table) == 1
    _, stats = collective_timetable(platform, result, 64)
    assert stats["ratio"] == 1 and stats["construction"].startswith("phases on a Clos")


def test_no_reversal_for_an_allgather_or_off_clos():
    platform = fat_tree_platform(4)
    assert reduced_timetable(platform, collective_throughput(platform, "allgather"), 64) is None
    cluster = switched_cluster(3)
    assert reduced_timetable(cluster, collective_throughput(cluster, "reduce-scatter"),
                             64) is None
