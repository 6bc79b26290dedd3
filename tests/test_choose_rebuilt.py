"""Timetables of the ladder built again from the second family of optimal trees
(steady.simulate.choose.rebuilt_timetables)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import examples

from steady.generators import mesh_platform, random_platform
from steady.schedule.cut_counts import CutPool
from steady.schedule.effort import DEFAULT
from steady.simulate.choose import horizon_choice, rebuilt_timetables
from steady.throughput import throughput

from helpers import ladder, ratio_of


def _built(platform, values=(4, 8)):
    return ladder(platform, values)


@pytest.mark.slow
@settings(max_examples=examples(8), deadline=None)
@given(kind=st.sampled_from(["mesh", "random"]), nodes=st.integers(8, 10),
       seed=st.integers(1, 6), most=st.integers(1, 3))
def test_a_rebuilt_timetable_is_valid_and_strictly_faster(kind, nodes, seed, most):
    platform = (mesh_platform(nodes, seed=seed) if kind == "mesh"
                else random_platform(nodes, 0.3, seed=seed))
    result, built = _built(platform)
    cap = result.throughput * 1000
    out = rebuilt_timetables(platform, result, built, cap, DEFAULT.but(rebuilt=most),
                             CutPool())
    assume(out)
    first = {m: ratio for m, _, ratio in built}
    assert len(out) <= most
    for m, table, ratio in out:
        table.check()
        assert table.messages <= m
        assert ratio == ratio_of(table, result.throughput)
        assert first[m] < ratio <= 1


def test_no_rebuild_at_an_effort_without_it():
    platform = mesh_platform(8, seed=3)
    result, built = _built(platform)
    assert rebuilt_timetables(platform, result, built, result.throughput * 1000,
                              DEFAULT.but(rebuilt=0), CutPool()) == []
    assert rebuilt_timetables(platform, result, built, result.throughput * 1000,
                              DEFAULT.but(rebuilt=2), CutPool())   # this one does rebuild


def test_the_chooser_reports_a_rebuild_and_its_plan_checks():
    platform = mesh_platform(12, seed=1)   # M = 8: 0.96852 -> 1 on the second family
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, 2000, DEFAULT.but(rebuilt=2))
    rebuilds = [i for i in choice.improvers if i["improver"] == "rebuild"]
    # at most effort.rebuilt of them, each on the second family; M = 8's reaches 1
    assert 1 <= len(rebuilds) <= 2
    assert all(r["how"] == "on the cut method's trees" for r in rebuilds)
    assert {"max_messages": 8, "improver": "rebuild", "how": "on the cut method's trees",
            "result": "ratio 1.000000 (exactly 1)"} in rebuilds
    assert choice.best.ratio == 1
    plan = choice.best.plan(choice.horizon, choice.optimum)
    assert plan.delivered_by(choice.horizon) == choice.best.delivered
