"""Streamed transfers (issue 43, proofs/collectives.md §16) in ``steady show`` (text and
Gantt bars) and the MSCCL export: a transfer slower than its route is drawn and timed
for its ``duration``, not for its messages at the route's speed; full-speed schedules
show and export as before."""

from fractions import Fraction
from pathlib import Path

import pytest

from helpers import run, streamed_schedule
from steady.platform import Platform
from steady.present.show import port_bars
from steady.runtimes.msccl.check import check_bytes
from steady.runtimes.msccl.export import export_collective
from steady.schedule.collective import collective_schedule
from steady.schedule_file import transfer_cost, transfer_time
from steady.throughput import collective_throughput
from steady.topologies import switched_cluster

F = Fraction
SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "collectives"


def schedule_of(platform, kind="allgather", most=4):
    result = collective_throughput(platform, kind)
    return collective_schedule(platform, result, most, "fast")[0]


@pytest.fixture(scope="module")
def a100():
    """a100-1's allgather streamed: every edge one transfer over the whole period."""
    result, table = streamed_schedule(Platform.from_file(SAMPLES / "a100-1.json"))
    schedule = table.schedule(result)
    p, trees = schedule.platform, schedule.trees
    assert all(transfer_time(p, trees, t) == schedule.period
               > t.messages * transfer_cost(p, trees, t) for t in schedule.transfers)
    return schedule


def test_the_gantt_bars_of_a_streamed_schedule_last_their_durations(a100):
    bars = port_bars(a100)
    assert bars and all(length == a100.period
                        for spans in bars.values() for _, length, _ in spans)


def test_show_prints_a_streamed_transfer_s_duration(capsys, tmp_path, a100):
    path = tmp_path / "s.json"
    a100.write(path)
    code, out, err = run(capsys, "show", path)
    assert code == 0, err
    t = a100.transfers[0]
    assert f"0 T{t.tree}x{t.messages} over {a100.period}" in out
    assert "t Tkxm over d = the m messages spread over [t, t + d)" in out


def test_show_of_a_full_speed_timetable_has_no_duration(capsys, tmp_path):
    """A one-port switched cluster: its transfers run at their routes' speed; show
    prints neither durations nor their legend."""
    schedule = schedule_of(switched_cluster(1, "one-port"))
    path = tmp_path / "s.json"
    schedule.write(path)
    code, out, err = run(capsys, "show", path)
    assert code == 0, err
    assert "legend: t Tkxm = m messages" in out and "Tkxm over d" not in out
    assert not any(" over " in line for line in out.splitlines() if "->" in line)


def test_the_msccl_export_of_a_streamed_allgather_verifies_at_full_speed(a100):
    """The program passes the independent checker; its moves are timed at their
    routes' speed (a link's threadblock sends its chunks one after the other, as the
    executor runs them: the export's estimate is the pairs' alone, which the shared
    links then stretch to the period), so the loop's estimate is within the period."""
    e = export_collective(a100)
    report = check_bytes(e.text.encode(), "ag.xml", a100.platform)
    assert report.ok, report.violations[:3]
    cost = {t.messages * transfer_cost(a100.platform, a100.trees, t)
            for t in a100.transfers}
    assert {e.timing.end[m.index] - e.timing.start[m.index] - m.startup
            for m in e.moves} <= cost
    assert e.timing.makespan <= a100.period


def test_a_streamed_allgather_on_a_switched_cluster_exports_and_verifies(capsys, tmp_path):
    """switched_cluster(41), multi-port: streamed; the export passes ``steady verify
    --msccl PLATFORM``; its moves run at their routes' speed."""
    platform = switched_cluster(41, "multi-port")
    result, table = streamed_schedule(platform)
    schedule = table.schedule(result)
    e = export_collective(schedule)
    lengths = {e.timing.end[m.index] - e.timing.start[m.index] - m.startup
               for m in e.moves}
    assert lengths <= {t.messages * transfer_cost(platform, schedule.trees, t)
                       for t in schedule.transfers}
    path, xml, plat = tmp_path / "s.json", tmp_path / "ag.xml", tmp_path / "p.json"
    schedule.write(path)
    platform.write(plat)
    code, _, err = run(capsys, "export", "msccl", path, "-o", xml, "--quiet")
    assert code == 0, err
    code, out, err = run(capsys, "verify", plat, "--msccl", xml)
    assert code == 0, err
    assert out.startswith("valid: allgather")
