"""Phased allgather timetables on oversubscribed fat trees (issue 43;
steady.schedule.fat_tree_phases, proofs/collectives.md §9)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from steady.platform import Link, Platform
from steady.schedule.fat_tree_phases import (chunk_count, fat_tree_shape, phased_timetable,
                                             skeletons)
from steady.throughput import collective_throughput
from steady.topologies import fat_tree_platform
from steady.verify import verify

K4_O2 = fat_tree_platform(4, oversubscription=2)
K4_O2_RESULT = collective_throughput(K4_O2, "allgather")


def test_the_shape_is_recognised_link_for_link(tmp_path):
    """fat_tree_platform(k, B, o) with an integer o >= 2, also read back from its file;
    not a tree at full speed, not a fractional o, not one link changed."""
    assert fat_tree_shape(K4_O2) == (4, Fraction(25, 2), 2)
    path = tmp_path / "ft.json"
    K4_O2.write(path)
    assert fat_tree_shape(Platform.from_file(path)) == (4, Fraction(25, 2), 2)
    assert fat_tree_shape(fat_tree_platform(6, 50, 3)) == (6, 50, 3)
    assert fat_tree_shape(fat_tree_platform(4)) is None
    assert fat_tree_shape(fat_tree_platform(4, oversubscription=4)) == (4, Fraction(25, 2), 4)
    assert fat_tree_shape(fat_tree_platform(4, oversubscription=Fraction(3, 2))) is None
    changed = K4_O2.replace_links([Link(l.tail, l.head, l.cost * 2)
                                   if l.arc == ("core0", "p1.agg0") else l
                                   for l in K4_O2.links])
    assert fat_tree_shape(changed) is None


@pytest.mark.parametrize("k", [4, 6, 8])
def test_the_skeletons_step_the_host_index_and_span(k):
    """Both skeletons are arborescences rooted at (0, 0, 0) over every host, every edge
    from host index i to i + 1 mod h; type B has one slow edge more than type A's
    k^2/2 - 1 (one per other edge switch)."""
    h = k // 2
    hosts = {(p, e, j) for p in range(k) for e in range(h) for j in range(h)}
    slow = []
    for parent in skeletons(k):
        assert set(parent) == hosts - {(0, 0, 0)}
        for child, par in parent.items():
            assert child[2] == (par[2] + 1) % h
            seen, v = set(), child
            while v != (0, 0, 0):   # every host reaches the root
                assert v not in seen
                seen.add(v)
                v = parent[v]
        slow.append(sum(1 for c, p in parent.items() if c[:2] != p[:2]))
    assert slow == [k * k // 2 - 1, k * k // 2]


def test_a_hand_made_phase_count():
    """k = 4, o = 2: S = 15m/2 slots in 2 phases and m/2 trees of type A: m a multiple
    of 4; k = 6, o = 3: S = 53m/3 in 3 phases and m/3 of type A: a multiple of 9;
    o > h: S = (k^2/2 - 1)m in h phases, all of type A: k = 4, 7m even; k = 6, 17m a
    multiple of 3."""
    assert [chunk_count(4, 2, m) for m in (3, 4, 7, 64, 66)] == [None, 4, 4, 64, 64]
    assert [chunk_count(6, 3, m) for m in (8, 9, 64)] == [None, 9, 63]
    assert chunk_count(6, 2, 64) == 60
    assert [chunk_count(4, 3, m) for m in (1, 2, 63)] == [None, 2, 62]
    assert [chunk_count(6, 5, m) for m in (2, 3, 64)] == [None, 3, 63]


@given(st.integers(1, 96))
@settings(max_examples=15, deadline=None)
def test_phases_reach_the_optimum_at_every_count(most):
    """At every M: the largest chunk count of the phases (none below 4), a valid
    timetable (Timetable.check ran) whose period is the host links' load, so the
    ratio is exactly 1, and steady verify's independent check says the same."""
    found = phased_timetable(K4_O2, K4_O2_RESULT, most)
    if most < 4:
        assert found is None
        return
    table, m = found
    assert m == chunk_count(4, 2, most) and m <= most and m % 4 == 0
    assert table.rate(K4_O2_RESULT.roots) == K4_O2_RESULT.rate
    report = verify(K4_O2, table.schedule(K4_O2_RESULT))
    assert report.ok and report.ratio == 1


def test_no_phases_for_other_collectives_or_fabrics():
    """A broadcast, a reduce-scatter, a fat tree at full speed: not this construction."""
    assert phased_timetable(K4_O2, collective_throughput(K4_O2, "broadcast"), 64) is None
    assert phased_timetable(K4_O2, collective_throughput(K4_O2, "reduce-scatter"),
                            64) is None
    full = fat_tree_platform(4)
    assert phased_timetable(full, collective_throughput(full, "allgather"), 64) is None


@pytest.mark.parametrize("o", [3, 4])
def test_beyond_k_over_2_the_edge_switches_bind(o):
    """k = 4, o = 3 and 4: the edge switches' downlinks bind (x* = B/(7o)); the phases
    with q = 2 slow transfers per slot and only type A trees reach it."""
    platform = fat_tree_platform(4, oversubscription=o)
    result = collective_throughput(platform, "allgather")
    assert result.rate == Fraction(25, 2) / (7 * o)
    table, m = phased_timetable(platform, result, 64)
    assert m == 64 and table.rate(result.roots) == result.rate
    assert verify(platform, table.schedule(result)).ratio == 1


@pytest.mark.slow
@pytest.mark.parametrize("k, o, m", [(6, 2, 60), (6, 3, 63), (6, 5, 63), (8, 2, 64),
                                     (8, 4, 64)])
def test_larger_oversubscribed_fat_trees_reach_the_optimum(k, o, m):
    """54 and 128 hosts, oversubscription 2 to k/2 and beyond: ratio 1 at M <= 64
    (15 to 90 s on a loaded machine, load 10)."""
    platform = fat_tree_platform(k, oversubscription=o)
    result = collective_throughput(platform, "allgather")
    table, found = phased_timetable(platform, result, 64)
    assert found == m and table.rate(result.roots) == result.rate
    binding = k ** 3 // 4 - 1 if o <= k // 2 else o * (k * k // 2 - 1)
    assert result.rate == Fraction(25, 2) / binding   # the host links' or edge's cut
    assert verify(platform, table.schedule(result)).ratio == 1
