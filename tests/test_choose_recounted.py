"""Timetables of the ladder built again on link counts chosen over the cuts when the
chosen timetable's counts lose (steady.simulate.choose.recounted_timetables)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import examples

from steady.generators import mesh_platform
from steady.schedule.cut_counts import CutPool
from steady.schedule.effort import DEFAULT
from steady.schedule.timed import CUT_MESSAGES
from steady.simulate.choose import (RECOUNT_BELOW, Candidate, horizon_choice,
                                    recounted_timetables)
from steady.throughput import throughput

from helpers import ladder, ratio_of

LADDER = (4, 8, 12, 16)


def _bound(table, optimum):
    return Fraction(table.messages * table.unit) / (optimum * table.lower)


def _built(platform, values=LADDER):
    return ladder(platform, values)


def _top(m, table, ratio, delivered=1):
    """A counted candidate of the ladder's timetable of M (what the chooser ranks)."""
    return Candidate(m, table, ratio, "pipelined", "", False, delivered)


@pytest.mark.slow
@settings(max_examples=examples(6), deadline=None)
@given(nodes=st.integers(9, 14), seed=st.integers(1, 40), top=st.sampled_from(LADDER),
       most=st.integers(1, 3))
def test_a_recounted_timetable_is_valid_faster_and_within_the_ladder(nodes, seed, top,
                                                                     most):
    platform = mesh_platform(nodes, seed=seed)
    result, built = _built(platform)
    mine = {m: (table, ratio) for m, table, ratio in built}
    assume(_bound(mine[top][0], result.throughput) < RECOUNT_BELOW)
    effort = DEFAULT.but(recounted=most, ladder=LADDER)
    out = recounted_timetables(platform, result, built, [_top(top, *mine[top])], effort,
                               CutPool())
    assume(out)
    assert len(out) <= most
    assert [m for m, _, _ in out] == sorted(m for m, _, _ in out)
    for m, table, ratio in out:
        table.check()
        assert 2 <= m <= min(top, CUT_MESSAGES) and 2 * m >= top
        assert table.messages <= m
        assert ratio == ratio_of(table, result.throughput)
        assert mine[m][1] < ratio <= 1


def test_no_recount_without_the_effort_or_when_the_counts_do_not_lose():
    platform = mesh_platform(12, seed=5)
    result, built = _built(platform)
    m, table, ratio = built[-1]
    tried = [_top(m, table, ratio)]
    assert recounted_timetables(platform, result, built, tried,
                                DEFAULT.but(recounted=0, ladder=LADDER), CutPool()) == []
    assert recounted_timetables(platform, result, built, [],
                                DEFAULT.but(recounted=3, ladder=LADDER), CutPool()) == []
    # a top whose counts reach the bound is not recounted
    best = max(built, key=lambda b: _bound(b[1], result.throughput))
    if _bound(best[1], result.throughput) >= RECOUNT_BELOW:
        assert recounted_timetables(platform, result, built, [_top(*best)],
                                    DEFAULT.but(recounted=3, ladder=LADDER),
                                    CutPool()) == []


def test_a_small_mesh_whose_counts_lose_is_recounted_at_m_and_below():
    platform = mesh_platform(10, seed=4)   # M = 16: counts bound 0.992 on the ladder
    result, built = _built(platform)
    mine = {m: (table, ratio) for m, table, ratio in built}
    assert _bound(mine[16][0], result.throughput) < RECOUNT_BELOW
    out = recounted_timetables(platform, result, built, [_top(16, *mine[16])],
                               DEFAULT.but(ladder=LADDER), CutPool())
    assert [m for m, _, _ in out] == [8, 12, 16]   # down to half of 16, three at most
    for m, table, ratio in out:
        table.check()
        assert mine[m][1] < ratio == ratio_of(table, result.throughput)


def test_the_chooser_reports_its_recounts_and_their_plan_checks():
    platform = mesh_platform(10, seed=4)
    result = throughput(platform, "trees")
    without = horizon_choice(platform, result, 10000, DEFAULT.but(recounted=0))
    choice = horizon_choice(platform, result, 10000, DEFAULT)
    recounts = [i for i in choice.improvers if i["improver"] == "recount"]
    assert recounts and len(recounts) <= DEFAULT.recounted
    assert all(r["how"] == "on counts chosen over the cuts" for r in recounts)
    assert not [i for i in without.improvers if i["improver"] == "recount"]
    # the recounted timetables only add candidates: the count can only grow
    # (964 -> 975 here, K·TP* = 981.7)
    assert choice.best.delivered >= without.best.delivered
    plan = choice.best.plan(choice.horizon, choice.optimum)
    assert plan.delivered_by(choice.horizon) == choice.best.delivered
