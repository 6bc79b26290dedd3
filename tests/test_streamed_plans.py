"""Streamed transfers (issue 43, proofs/collectives.md §16) in the finite horizon: a
transfer slower than its route -- its ``duration`` above messages x c_P, on a multi-port
platform -- counts its i-th message as ending at start + (i + 1)·duration / messages,
the plan ``steady simulate --plan`` writes carries it at that pace, and the plan's
independent check holds it to its share of the route (and refuses it on one-port)."""

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, event, given, settings

from helpers import examples, streamed_schedule
from steady.platform import Platform
from steady.schedule_file import Schedule, transfer_cost, transfer_time
from steady.simulate.collective import collective_horizon, collective_plan, message_ends
from steady.simulate.plan import Plan, Transfer, check_plan
from steady.simulate.plan_streams import Stream, Streams
from steady.strategies import collective_schedules, switched_platforms
from steady.topologies import switched_cluster
from steady.verify import verify

F = Fraction


def slowed(schedule) -> list:
    """The transfers of ``schedule`` that run slower than their route."""
    p, trees = schedule.platform, schedule.trees
    return [t for t in schedule.transfers
            if transfer_time(p, trees, t) != t.messages * transfer_cost(p, trees, t)]


@pytest.fixture(scope="module", params=["allgather", "allreduce"])
def streamed(request):
    """switched_cluster(41), multi-port, streamed."""
    platform = switched_cluster(41, "multi-port")
    result, table = streamed_schedule(platform, request.param, 4)
    schedule = table.schedule(result)
    report = verify(platform, schedule)
    assert report.ok
    return schedule, report.bound


def test_a_streamed_message_ends_at_its_share_of_the_duration(streamed):
    """Every edge of a streamed timetable is one transfer of w_t chunks over the whole
    period [0, P): its j-th message ends at (j + 1)·P / w_t, not at (j + 1)·c_P."""
    schedule, _ = streamed
    assert len(slowed(schedule)) == len(schedule.transfers) > 0
    ends = message_ends(schedule)
    for t in schedule.transfers:
        assert t.start == 0 and t.duration == schedule.period
        w = schedule.trees[t.tree].weight
        assert ends[(t.tree, t.arc)] == [(j + 1) * schedule.period / w for j in range(w)]


def test_a_streamed_plan_delivers_what_simulate_counts(streamed):
    """The plan of a streamed schedule passes its independent check, and completes by
    K exactly the chunks per root collective_horizon counts, its transfers lasting
    P / w_t each (slower than their routes)."""
    schedule, bound = streamed
    for periods in (3, 7, F(23, 2)):
        k = periods * schedule.period
        plan = collective_plan(schedule, k)
        assert check_plan(plan) == []
        counted = collective_horizon(schedule, k, bound).delivered
        assert plan.delivered_per_root(k) == counted and sum(counted.values()) > 0
        assert plan.makespan_time <= k
        durations = {F(t.duration, plan.unit)
                     - schedule.period / schedule.trees[t.tree].weight
                     for t in plan.transfers}
        assert durations == {0}


def test_simulate_counts_a_streamed_schedule_file(capsys, tmp_path, streamed):
    """``steady simulate --schedule F --plan P`` of a streamed file: the report's counts
    are the plan's, the plan reads back and passes its check."""
    import json

    from helpers import run

    schedule, _ = streamed
    path, out_plan = tmp_path / "s.json", tmp_path / "p.json"
    schedule.write(path)
    again = Schedule.from_file(path)   # the file keeps every transfer's duration
    assert again.transfers == schedule.transfers and slowed(again)
    assert verify(again.platform, again).ok
    k = 9 * schedule.period
    code, out, err = run(capsys, "simulate", "--schedule", path, "--collective",
                         schedule.collective.kind, "--horizon", str(k), "--plan",
                         out_plan, "--json", "--quiet")
    assert code == 0, err
    doc = json.loads(out)
    plan = Plan.from_file(out_plan)
    assert check_plan(plan) == []
    assert plan.delivered_per_root(k) == {r: each["delivered"]
                                          for r, each in doc["roots"].items()}


# -- the plan's check of a transfer's duration -----------------------------------------

def two_nodes(ports: str) -> Platform:
    return Platform.from_dict({"format": "steady-platform", "version": 1, "source": "A",
                               "links": [{"from": "A", "to": "B", "cost": 1},
                                         {"from": "B", "to": "A", "cost": 1}],
                               "ports": ports})


def broadcast_plan(ports: str, durations, releases=(0, 0)) -> Plan:
    """Two chunks of A's broadcast over A -> B (cost 1, unit 1 tick), with these
    durations and releases."""
    transfers = tuple(Transfer(i, 0, 1, i, 1, r, d, 0)
                      for i, (r, d) in enumerate(zip(releases, durations)))
    return Plan("two", ("A", "B"), 0, 2, 1, transfers, max(t.end for t in transfers),
                {}, two_nodes(ports), Streams("broadcast", (Stream(0),), ((0, 2),)))


def test_two_transfers_at_half_speed_share_a_link_on_multi_port():
    """Two chunks at once over A -> B, each lasting 2 (share 1/2): the link is held
    1/2 + 1/2 = 1, within capacity; one of them at full speed would hold 3/2."""
    assert check_plan(broadcast_plan("multi-port", (2, 2))) == []
    assert check_plan(broadcast_plan("multi-port", (3, 3))) == []
    problems = check_plan(broadcast_plan("multi-port", (2, 1)))
    assert len(problems) == 1 and "over capacity" in problems[0]
    assert "3/2 of it in use" in problems[0]
    # one after the other at full speed: fine, as before
    assert check_plan(broadcast_plan("multi-port", (1, 1), (0, 1))) == []


def test_a_slower_transfer_is_refused_on_one_port_and_a_faster_one_anywhere():
    """On a one-port platform a transfer runs at its route's speed: a duration above
    count·c_P is refused (its ports are held whole anyway); a duration below it is
    refused on either."""
    problems = check_plan(broadcast_plan("one-port", (2, 2), (0, 2)))
    assert problems and all("on a one-port platform" in p for p in problems)
    assert len(problems) == 2
    assert check_plan(broadcast_plan("one-port", (1, 1), (0, 1))) == []
    fast = [p for p in check_plan(broadcast_plan("multi-port", (1, 1)))
            if "lasts" in p]
    assert fast == []
    plan = broadcast_plan("multi-port", (2, 2))
    quick = replace(plan, unit=3)          # 2 ticks at 3 a unit: faster than cost 1
    problems = check_plan(quick)
    assert any("lasts 2 ticks, not 1 x 1 x 3" in p for p in problems)
    assert not any("one-port" in p for p in problems)


@given(collective_schedules(switched_platforms(max_compute=4, max_switches=2,
                                               ports="multi-port"), max_chunks=3))
@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_the_plan_of_any_streamed_timetable_passes_the_checker(schedule):
    """Proofs/finite-plan.md, "Collectives", with proofs/collectives.md §16's shares:
    the period rule's unrolling of a valid timetable whose transfers run at a share
    of their routes keeps every resource within capacity (each message held at the
    transfer's share) and completes exactly the chunks collective_horizon counts."""
    report = verify(schedule.platform, schedule)
    assert report.ok
    assume(slowed(schedule))
    event(f"streamed: {schedule.collective.kind}")
    k = 5 * schedule.period
    plan = collective_plan(schedule, k)
    assert check_plan(plan) == []
    counted = collective_horizon(schedule, k, report.bound).delivered
    if plan.collective is None:   # pragma: no cover - multi-port plans are collective
        assert {plan.nodes[plan.source]: plan.delivered_by(k)} == counted
    else:
        assert plan.delivered_per_root(k) == counted
