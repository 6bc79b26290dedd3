"""`steady tradeoff PLATFORM [--max-messages 10,100,...]`: the timetable's certified ratio
and, beside it, the synchronous steps' on the same trees (issue 24, items 5)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from steady.platform import Platform
from steady.schedule.timed import timed_schedule
from steady.throughput import throughput

from helpers import assert_one_line_error, run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
R30 = str(SAMPLES / "random-30.json")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_figure1_rows_exact(capsys):
    """Figure 1: M = 1 is the best tree (2/3, 002 §3) in both time lines, in two steps
    (the source sends over two links of the tree); M = 2 is the exact optimum, two
    steps of 002 §5.4.2."""
    code, text, _ = run(capsys, "tradeoff", "--max-messages", "1,2", "--json", "--quiet")
    assert code == 0
    rows = json.loads(text)["schedules"]
    assert [(r["ratio"], r["steps_ratio"], r["steps"]) for r in rows] == [
        ("2/3", "2/3", 2), ("1", "1", 2)]
    assert [r["steps_period"] for r in rows] == ["3/2", "2"]
    assert all(r["steps_transfers"] > 0 and r["steps_file_bytes"] > 0 for r in rows)


def test_steps_beside_the_timetable_on_the_same_trees(capsys):
    """The steps' ratio is M / (steps period · TP*), and it cannot pass the same bound
    as the timetable: M / (TP* · largest port load of the shared trees), computed
    here from the timetable's trees."""
    code, text, _ = run(capsys, "tradeoff", R30, "--max-messages", "10,40", "--json",
                        "--quiet")
    assert code == 0
    doc = json.loads(text)
    optimum = Fraction(doc["optimum"])
    platform = Platform.from_file(R30)
    result = throughput(platform, "trees")
    assert result.throughput == optimum
    for row in doc["schedules"]:
        table, _ = timed_schedule(platform, result, row["max_messages"])
        load: dict = {}
        for tree in table.trees:
            for u, v in tree.edges:
                busy = tree.weight * platform.cost(u, v)
                load[("out", u)] = load.get(("out", u), 0) + busy
                load[("in", v)] = load.get(("in", v), 0) + busy
        bound = Fraction(table.messages_per_period) / max(load.values()) / optimum
        steps_ratio = Fraction(row["steps_ratio"])
        assert steps_ratio == row["messages_per_period"] / Fraction(row["steps_period"]) / optimum
        assert 0 < steps_ratio <= bound and Fraction(row["ratio"]) <= bound
        assert row["steps"] >= 1


def test_human_table_has_the_steps_columns(capsys):
    code, text, _ = run(capsys, "tradeoff", "--max-messages", "1,2", "--quiet")
    assert code == 0
    lines = text.splitlines()
    assert lines[1].split()[-4:] == ["bytes", "steps", "ratio", "steps"]
    assert lines[2].split()[-2:] == ["0.666666", "2"]     # rounded down, never up
    assert lines[3].split()[-2:] == ["1.000000", "2"]
    assert lines[-1].startswith("ratio: the timetable")


def test_no_steps_leaves_them_out(capsys):
    code, text, _ = run(capsys, "tradeoff", "--max-messages", "1", "--json", "--quiet",
                        "--no-steps")
    assert code == 0
    assert not any(k.startswith("steps") for k in json.loads(text)["schedules"][0])


def test_plot_draws_both_lines_and_keeps_json_clean(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "tradeoff.png"
    code, text, _ = run(capsys, "tradeoff", "--max-messages", "1,2", "--json", "--quiet",
                        "--plot", png)
    assert code == 0 and json.loads(text)["schedules"]       # stdout is the JSON alone
    assert png.read_bytes()[:8] == PNG_MAGIC
    svg = tmp_path / "tradeoff.svg"
    code, text, _ = run(capsys, "tradeoff", "--max-messages", "1,2", "--quiet", "--plot", svg)
    assert code == 0 and f"plot written to {svg}" in text
    drawing = svg.read_text()
    assert "timetable (v2)" in drawing and "synchronous steps (v1)" in drawing


def test_plot_with_a_bad_suffix_exits_2_before_the_work(capsys, tmp_path):
    bad = tmp_path / "tradeoff.txt"
    code, out, err = run(capsys, "tradeoff", "--max-messages", "1", "--plot", bad)
    assert code == 2 and out == ""
    assert_one_line_error(err, bad)
    assert not bad.exists()
