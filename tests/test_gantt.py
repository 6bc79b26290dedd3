"""`steady show FILE [--gantt OUT]` for timed (version 2) schedules, and the refusal of a
transfer over a link the platform lacks (issue 18 F05)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples

from steady import default_platform
from steady.present.show import port_bars
from steady.schedule.timed import timed_schedule
from steady.schedule_file import Schedule
from steady.strategies import platforms
from steady.throughput import throughput

from helpers import assert_one_line_error, run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
F = Fraction

# docs/formats.md's version 2 example: 002 Figure 1's optimum as a timetable.
TRANSFERS = [("Ps", "P1", 0, "0"), ("P1", "P2", 0, "0"), ("P2", "P4", 0, "0"),
             ("P2", "P4", 1, "1/2"), ("P1", "P3", 0, "1"), ("P1", "P3", 1, "3/2"),
             ("P2", "P1", 1, "1"), ("Ps", "P2", 1, "1")]


def _figure1_v2() -> dict:
    return {"format": "steady-schedule", "version": 2,
            "platform": default_platform().to_dict(),
            "throughput": "1", "period": "2", "messages_per_period": 2,
            "trees": [{"weight": 1, "edges": [["Ps", "P1"], ["P1", "P2"], ["P1", "P3"],
                                              ["P2", "P4"]]},
                      {"weight": 1, "edges": [["P2", "P1"], ["Ps", "P2"], ["P1", "P3"],
                                              ["P2", "P4"]]}],
            "transfers": [{"from": u, "to": v, "tree": l, "messages": 1, "start": s}
                          for u, v, l, s in TRANSFERS]}


@pytest.fixture
def v2_file(tmp_path):
    path = tmp_path / "fig1.v2.json"
    path.write_text(json.dumps(_figure1_v2()))
    return path


def test_bars_of_the_figure1_timetable():
    """Costs of Figure 1: Ps->P1 1, Ps->P2 1, P1->P2 1, P2->P1 1, P1->P3 1/2, P2->P4 1/2
    (002 Figure 1): each bar is (start, messages x cost, tree), by start."""
    bars = port_bars(Schedule.from_dict(_figure1_v2()))
    assert bars[("P2", "send")] == [(0, F(1, 2), 0), (F(1, 2), F(1, 2), 1), (1, 1, 1)]
    assert bars[("P1", "send")] == [(0, 1, 0), (1, F(1, 2), 0), (F(3, 2), F(1, 2), 1)]
    assert bars[("P3", "recv")] == [(1, F(1, 2), 0), (F(3, 2), F(1, 2), 1)]
    assert bars[("Ps", "send")] == [(0, 1, 0), (1, 1, 1)]
    assert ("P3", "send") not in bars and ("Ps", "recv") not in bars


def test_v1_bars_are_the_steps_back_to_back(tmp_path, capsys):
    """A version 1 schedule is drawn as before: step i from the sum of the earlier
    durations, a link's transfers in the step one after the other."""
    path = tmp_path / "fig1.json"
    assert run(capsys, "schedule", "-o", path, "--quiet")[0] == 0
    schedule = Schedule.from_file(path)
    expected: dict = {}
    begin = F(0)
    for step in schedule.steps:
        clock: dict = {}
        for t in step.transfers:
            at = clock.get(t.arc, begin)
            length = t.messages * schedule.platform.cost(*t.arc)
            expected.setdefault((t.tail, "send"), []).append((at, length, t.tree))
            expected.setdefault((t.head, "recv"), []).append((at, length, t.tree))
            clock[t.arc] = at + length
        begin += step.duration
    bars = port_bars(schedule)
    assert {k: sorted(v) for k, v in bars.items()} == {k: sorted(v)
                                                       for k, v in expected.items()}


@settings(max_examples=examples(15), deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 30))
def test_each_port_line_is_its_busy_time(platform, m):
    """On a written timetable, a port's bars never overlap, stay in [0, period] and add
    up to the port's load (messages x cost over its links)."""
    schedule, _ = timed_schedule(platform, throughput(platform, "trees"), m)
    load: dict = {}
    for t in schedule.transfers:
        busy = t.messages * platform.cost(*t.arc)
        load[(t.tail, "send")] = load.get((t.tail, "send"), 0) + busy
        load[(t.head, "recv")] = load.get((t.head, "recv"), 0) + busy
    bars = port_bars(schedule)
    assert set(bars) == set(load)
    for port, spans in bars.items():
        assert sum(length for _, length, _ in spans) == load[port]
        ends = [(s, s + length) for s, length, _ in spans]
        assert all(0 <= a and b <= schedule.period for a, b in ends)
        assert all(b <= c for (_, b), (c, _) in zip(ends, ends[1:]))


def test_show_gantt_of_a_timetable(capsys, v2_file, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "fig1.png"
    code, out, err = run(capsys, "show", v2_file, "--gantt", png)
    assert code == 0 and err == ""
    assert png.read_bytes()[:8] == PNG_MAGIC and f"Gantt chart written to {png}" in out
    svg = tmp_path / "fig1.svg"
    assert run(capsys, "show", v2_file, "--gantt", svg)[0] == 0
    assert "a timetable, 8 transfers" in svg.read_text()


def test_show_prints_a_timetable_by_link(capsys, v2_file):
    code, out, _ = run(capsys, "show", v2_file)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == ("period 2, 2 messages per period, throughput 1, 2 trees, "
                        "8 transfers (a timetable)")
    assert "P2->P4 (busy 1): 0 T0x1, 1/2 T1x1" in lines
    assert "P1->P3 (busy 1): 1 T0x1, 3/2 T1x1" in lines
    assert lines[-1].startswith("legend: t Tkxm")


def test_show_refuses_a_missing_link_in_one_line(capsys, tmp_path):
    """Issue 18 F05: drawing needs every link's cost; a transfer over a link the
    platform lacks is named in one line, exit 2, before anything is printed."""
    doc = _figure1_v2()
    doc["transfers"][1]["to"] = "P4"                 # P1 -> P4: no such link
    bad = tmp_path / "bad.v2.json"
    bad.write_text(json.dumps(doc))
    code, out, err = run(capsys, "show", bad)
    assert code == 2 and out == ""
    assert_one_line_error(err, "transfers[1]")
    assert "P1->P4" in err

    v1 = tmp_path / "fig1.json"
    assert run(capsys, "schedule", "-o", v1, "--quiet")[0] == 0
    doc = json.loads(v1.read_text())
    doc["steps"][0]["transfers"][0]["to"] = "P4"     # Ps -> P4: no such link
    bad = tmp_path / "bad.v1.json"
    bad.write_text(json.dumps(doc))
    code, out, err = run(capsys, "show", bad, "--gantt", tmp_path / "x.png")
    assert code == 2 and out == ""
    assert_one_line_error(err, "steps[0].transfers[0]")
    assert not (tmp_path / "x.png").exists()
    code, out, _ = run(capsys, "show", bad)          # the steps table needs no cost
    assert code == 0 and out.startswith("period 2")


def test_a_collective_timetable_shows_and_draws_over_its_switches(tmp_path, capsys):
    """samples/collectives/a100-1.json (8 GPUs on one NVSwitch): an allgather timetable's
    transfers go GPU -> switch -> GPU; `steady show` lists them per tree edge with the
    route's time (the slowest link: 2 per 75 for 8 chunks at 300 per time unit) and
    draws them, where a schedule over links only is required of a broadcast."""
    from pathlib import Path

    sample = Path(__file__).resolve().parent.parent / "samples/collectives/a100-1.json"
    out = tmp_path / "a1.json"
    code, _, _ = run(capsys, "schedule", sample, "--collective", "allgather",
                     "--max-messages", "8", "-o", out, "--quiet")
    assert code == 0
    code, shown, err = run(capsys, "show", out)
    assert code == 0, err
    assert "b0.gpu0->b0.gpu1 (busy 2/75): 0 T0x8" in shown
    png = tmp_path / "g.png"
    code, _, err = run(capsys, "show", out, "--gantt", png)
    if code == 0:      # matplotlib present
        assert png.read_bytes().startswith(PNG_MAGIC)
    else:
        assert "matplotlib" in err
