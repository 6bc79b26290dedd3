"""Transfers at a share of their route's speed on multi-port platforms, and the streamed
timetables (issue 43; steady.schedule.fluid, proofs/collectives.md §16)."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples, streamed_schedule

from steady.network.resources import transfer_model
from steady.schedule.collective import collective_timetable
from steady.schedule.effort import effort
from steady.schedule.fluid import streamed_timetable
from steady.schedule.timetable import Timetable
from steady.schedule_file import Schedule, TimedTransfer
from steady.strategies import switched_platforms
from steady.throughput import collective_throughput
from steady.topologies import switched_cluster
from steady.verify import verify


def streamed(platform, kind="allgather", most=8):
    """(result, streamed timetable of the first chunk count's trees)."""
    return streamed_schedule(platform, kind, most)


def largest_load(platform, table) -> Fraction:
    """The trees' largest load per period, in time units, summed here link by link
    (multi-port: a chunk holds each link of its route for the link's cost)."""
    loads: dict = {}
    for tree in table.trees:
        for arc in tree.arcs():
            route = tree.route(arc)
            for a, b in zip(route, route[1:]):
                loads[(a, b)] = loads.get((a, b), 0) + tree.weight * platform.cost(a, b)
    return max(loads.values())


def test_a_cluster_below_the_target_streams_to_the_optimum():
    """switched_cluster(41, multi-port): full-speed timetables reached 0.98 of x*; the
    streamed one reaches x* at 64 chunks, and the checker agrees."""
    platform = switched_cluster(41, "multi-port")
    result = collective_throughput(platform, "allgather")
    table, stats = collective_timetable(platform, result, 64)
    assert stats["ratio"] == 1 and "streamed" in stats["construction"]
    assert table.slowed
    report = verify(platform, table.schedule(result))
    assert report.ok and report.ratio == 1


def test_the_period_is_the_largest_load_and_the_file_says_so():
    platform = switched_cluster(41, "multi-port")
    result, table = streamed(platform)
    assert table.period_time == largest_load(platform, table)
    schedule = table.schedule(result)
    doc = json.loads(schedule.to_json())
    slowed = [t for t in doc["transfers"] if "duration" in t]
    assert slowed and all(Fraction(t["start"]) == 0 for t in doc["transfers"])
    assert all(Fraction(t["duration"]) == schedule.period for t in slowed)
    again = Schedule.from_dict(json.loads(schedule.to_json()))
    assert again.transfers == schedule.transfers
    back = Timetable.of(again)
    assert back.transfers() == table.transfers() and back.slowed
    assert verify(platform, again).ratio == table.rate(result.roots) / result.rate


def _with_duration(schedule, j, duration):
    transfers = list(schedule.transfers)
    transfers[j] = replace(transfers[j], duration=duration)
    return replace(schedule, transfers=tuple(transfers))


def test_a_transfer_faster_than_its_route_is_refused():
    platform = switched_cluster(41, "multi-port")
    result, table = streamed(platform)
    schedule = table.schedule(result)
    j, t = next((j, t) for j, t in enumerate(schedule.transfers) if t.duration)
    c = transfer_model(platform).cost(table.held((t.tree, t.arc))[0])
    report = verify(platform, _with_duration(schedule, j, t.messages * c / 2))
    assert not report.ok and "speed" in {v.kind for v in report.violations}


def test_streamed_transfers_squeezed_overload_a_link():
    """Halve the period and every duration of a streamed timetable whose shares allow
    it: the busiest link is then held twice over."""
    platform = switched_cluster(41, "multi-port")
    result, table = streamed(platform)
    schedule = table.schedule(result)
    model = transfer_model(platform)
    half = []
    for t in schedule.transfers:
        c = model.cost(table.held((t.tree, t.arc))[0])
        length = t.duration if t.duration is not None else t.messages * c
        half.append(replace(t, duration=max(length / 2, t.messages * c)))
    squeezed = replace(schedule, transfers=tuple(half), period=schedule.period / 2,
                       throughput=schedule.throughput * 2)
    report = verify(platform, squeezed)
    assert not report.ok
    assert {"links", "window"} & {v.kind for v in report.violations}


def test_one_port_platforms_run_transfers_at_their_route_s_speed():
    platform = switched_cluster(41, "one-port")
    result = collective_throughput(platform, "allgather")
    table, stats = collective_timetable(platform, result, 8, effort("fast"))
    assert not table.slowed
    schedule = table.schedule(result)
    t = schedule.transfers[0]
    c = transfer_model(platform).cost(table.held((t.tree, t.arc))[0])
    report = verify(platform, _with_duration(schedule, 0, t.messages * c * 2))
    assert not report.ok and "one-port" in {v.kind for v in report.violations}
    with pytest.raises(ValueError, match="multi-port"):
        Timetable.build(platform, table.trees, table.runs, table.period, table.unit,
                        {next(iter(table.runs)): table.period})
    with pytest.raises(ValueError, match="multi-port"):
        streamed_timetable(platform, list(table.trees))


def test_a_slowed_transfer_repr_and_dict():
    t = TimedTransfer("a", "b", 0, 2, Fraction(1, 2), Fraction(3))
    assert t.to_dict() == {"from": "a", "to": "b", "tree": 0, "messages": 2,
                           "start": "1/2", "duration": "3"}
    assert "duration=3" in repr(t)
    assert "duration" not in TimedTransfer("a", "b", 0, 2, Fraction(0)).to_dict()


@given(switched_platforms(min_compute=2, max_compute=4, max_switches=2, ports="multi-port",
                          cost=st.sampled_from([Fraction(1, 2), Fraction(3, 4), 1, 3])),
       st.sampled_from(["allgather", "reduce-scatter", "allreduce"]), st.integers(1, 8))
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_a_streamed_timetable_is_valid_at_its_trees_largest_load(platform, kind, most):
    """Any integer trees streamed (§16): the independent checker accepts the file, the
    period is the trees' largest load summed link by link here, and the rate never
    beats the certified optimum; the chooser never ends below it."""
    result, table = streamed(platform, kind, most)
    assert table.period_time == largest_load(platform, table)
    report = verify(platform, table.schedule(result))
    assert report.ok, report.violations[:2]
    ratio = table.rate(result.roots) / result.rate
    assert report.ratio == ratio <= 1
    _, stats = collective_timetable(platform, result, most, effort("fast"))
    assert stats["ratio"] >= min(ratio, 1)
