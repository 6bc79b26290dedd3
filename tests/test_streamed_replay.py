"""Streamed transfers (issue 43, proofs/collectives.md §16) in SimGrid: a transfer slower
than its route runs capped at its bytes over its duration -- its share of the route's
bandwidth -- so that the replay of a streamed schedule, or of its plan, ends when steady
predicts, on a SimGrid platform with routers imported multi-port."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from helpers import run, streamed_schedule
from steady.platform import Platform
from steady.schedule_file import transfer_cost, transfer_time
from steady.simgrid import locate
from steady.simulate.collective import collective_plan
from steady.simulate.plan import check_plan

F = Fraction
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
DATA_CENTER = SAMPLES / "collectives" / "simgrid-data_center-6.json"   # 1GB, multi-port
XML = SAMPLES / "simgrid" / "data_center.xml"
pytestmark = pytest.mark.skipif(locate.find_simgrid() is None,
                                reason="skipped: SimGrid not installed")


@pytest.fixture(scope="module", params=["allgather", "reduce-scatter"])
def streamed(request):
    platform = Platform.from_file(DATA_CENTER)
    result, table = streamed_schedule(platform, request.param, 2)
    schedule = table.schedule(result)
    p, trees = schedule.platform, schedule.trees
    slow = [t for t in schedule.transfers
            if transfer_time(p, trees, t) > t.messages * transfer_cost(p, trees, t)]
    assert slow
    return schedule


def test_the_replay_of_a_streamed_schedule_ends_as_predicted(capsys, tmp_path, streamed):
    """Every transfer at its share of its route: SimGrid's period is the schedule's
    (to its doubles' precision), no transfer late; at full speed the shares would not
    hold and the transfers sharing a link would end elsewhere."""
    from steady.simgrid.replay import replay

    report = replay(XML, streamed, F(10 ** 9), periods=2)
    assert report.predicted_period == streamed.period
    assert abs(report.simulated_period - float(streamed.period)) \
        <= 1e-12 * float(streamed.period)
    assert abs(report.worst["late"]) <= 1e-9 * float(streamed.period)
    assert "TCP-gamma 10^300" in report.model
    path = tmp_path / "s.json"
    streamed.write(path)
    code, out, err = run(capsys, "replay", XML, path, "--size", "1GB", "--json",
                         "--min-ratio", "0.999999")
    assert code == 0, err
    assert json.loads(out)["predicted_period"] == str(streamed.period)


def test_the_replay_of_a_streamed_plan_ends_as_planned(streamed):
    """The plan of a streamed schedule (transfers longer than count·c_P): its route
    check compares SimGrid's route with the full-speed cost, and every transfer,
    capped at its share, ends at its planned end."""
    from steady.simgrid.replay import replay_plan

    plan = collective_plan(streamed, 4 * streamed.period)
    assert check_plan(plan) == [] and plan.broadcasts > 0
    costs = {(t.tail, t.head): t.duration for t in plan.transfers}
    assert costs   # a streamed plan: every chunk slower than its route (8 s at 1GB)
    assert all(F(d, plan.unit) > 8 for d in costs.values())
    report = replay_plan(XML, plan, F(10 ** 9))
    assert report.planned_makespan == plan.makespan_time
    assert abs(report.simulated_makespan - float(plan.makespan_time)) \
        <= 1e-12 * float(plan.makespan_time)
    assert report.worst["late"] <= 1e-9 * float(plan.makespan_time)
    assert report.delivered_per_root(plan.makespan_time) == {
        r: (n, n) for r, n in ((plan.nodes[r], n) for r, n in plan.collective.chunks)}


def test_a_full_speed_replay_keeps_its_model():
    """A schedule whose transfers all run at their route's speed states TCP-gamma 0, as
    before (its request carries no rate)."""
    from dataclasses import replace

    from steady.simgrid.replay import replay

    platform = Platform.from_file(DATA_CENTER)
    result, table = streamed_schedule(platform, "allgather", 2)
    schedule = table.schedule(result)
    # one transfer alone per period, at full speed: its own route's time
    t = schedule.transfers[0]
    c = transfer_cost(schedule.platform, schedule.trees, t)
    alone = replace(t, duration=None)
    report = replay(XML, replace(schedule, transfers=(alone,), period=t.messages * c),
                    F(10 ** 9))
    assert "TCP-gamma 0" in report.model
    assert report.simulated_period == float(t.messages * c)
