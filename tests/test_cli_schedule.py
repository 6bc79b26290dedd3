"""The command line for schedules: ``steady schedule``, ``steady verify``, ``steady show``.

Exit codes (DESIGN.md): 0 success / valid, 1 a check failed, 2 bad input or usage; a
user error is one line on stderr naming the file, never a traceback; output files are
written atomically (a failed write leaves nothing behind, or the old file intact).
"""

import errno
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from steady import default_platform
from steady.schedule.periodic import periodic_schedule
from helpers import run, assert_one_line_error

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FIGURE1 = str(SAMPLES / "figure1.json")
DAG = str(SAMPLES / "figure5-dag.json")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def schedule_file(tmp_path, capsys):
    path = tmp_path / "figure1.schedule.json"
    code, _, _ = run(capsys, "schedule", "-o", path)
    assert code == 0
    return path


@pytest.fixture
def suboptimal_file(tmp_path):
    """Figure 4's tree alone (TP 2/3 < 1): valid, not optimal, no certificate."""
    tree = {"P1": "Ps", "P2": "P1", "P3": "P1", "P4": "P2"}
    path = tmp_path / "tree.schedule.json"
    periodic_schedule(default_platform(), [(tree, 1)], 1).write(path)
    return path


# -- steady schedule ---------------------------------------------------------------------

def test_schedule_default_platform_throughput_1(capsys):
    code, out, err = run(capsys, "schedule")
    assert code == 0 and err == ""
    rows = dict(line.split(None, 1) for line in out.splitlines())
    assert rows["throughput"] == "1 broadcast per time unit"
    assert rows["verified"].startswith("yes")


def test_schedule_file_is_accepted_by_verify(capsys, schedule_file):
    code, out, err = run(capsys, "verify", FIGURE1, schedule_file)
    assert code == 0 and err == ""
    assert out.startswith("valid:") and "throughput 1 is optimal" in out


@pytest.mark.parametrize("method", ["trees", "cuts", "flow"])
def test_schedule_json_summary(capsys, tmp_path, method):
    path = tmp_path / "s.json"
    code, out, err = run(capsys, "schedule", FIGURE1, "--method", method, "--json",
                         "-o", path)
    assert code == 0 and err == ""
    doc = json.loads(out)
    for key in ("throughput", "period", "messages_per_period", "trees", "matchings",
                "file_bytes", "verified"):
        assert key in doc, key
    assert doc["throughput"] == "1" and doc["verified"] is True
    assert doc["file_bytes"] == path.stat().st_size
    written = json.loads(path.read_text())
    assert written["format"] == "steady-schedule" and written["throughput"] == "1"
    assert doc["period"] == written["period"]
    assert int(doc["messages_per_period"]) == int(written["messages_per_period"])
    assert doc["trees"] == len(written["trees"]) and doc["matchings"] == len(written["steps"])


def test_schedule_json_ratio_on_shared_links(capsys, tmp_path):
    """With shared network links the steps carry a certified ratio: --json gives it
    exactly, the same as steady verify's; a one-port platform has none (it is optimal)."""
    path = tmp_path / "s.json"
    code, out, _ = run(capsys, "schedule", str(SAMPLES / "simgrid" / "small_platform.json"),
                       "--json", "--quiet", "-o", path)
    assert code == 0
    ratio = Fraction(json.loads(out)["ratio"])
    assert 0 < ratio < 1
    code, out, _ = run(capsys, "verify", str(SAMPLES / "simgrid" / "small_platform.json"),
                       path, "--json")
    assert code == 0 and Fraction(json.loads(out)["ratio"]) == ratio
    code, out, _ = run(capsys, "schedule", FIGURE1, "--json", "--quiet")
    assert code == 0 and "ratio" not in json.loads(out)


def test_schedule_dag_sample(capsys, tmp_path):
    path = tmp_path / "dag.json"
    code, out, _ = run(capsys, "schedule", DAG, "--json", "-o", path)
    assert code == 0 and json.loads(out)["throughput"] == "4/5"
    code, _, _ = run(capsys, "verify", DAG, path)
    assert code == 0


def test_schedule_overwrites_atomically(capsys, schedule_file):
    before = schedule_file.read_text()
    code, _, _ = run(capsys, "schedule", "-o", schedule_file)
    assert code == 0 and schedule_file.read_text() == before
    assert sorted(p.name for p in schedule_file.parent.iterdir()) == [schedule_file.name]


def test_schedule_unreadable_platform_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, out, err = run(capsys, "schedule", bad)
    assert code == 2 and out == ""
    assert_one_line_error(err, bad)


# -- failed writes --------------------------------------------------------------------------

def test_schedule_into_missing_directory(capsys, tmp_path):
    target = tmp_path / "missing" / "s.json"
    code, out, err = run(capsys, "schedule", "-o", target)
    assert code == 2
    assert_one_line_error(err, target)
    assert list(tmp_path.iterdir()) == []


def test_schedule_onto_a_directory(capsys, tmp_path):
    target = tmp_path / "adir"
    target.mkdir()
    code, _, err = run(capsys, "schedule", "-o", target)
    assert code == 2
    assert_one_line_error(err, target)
    assert [p.name for p in tmp_path.iterdir()] == ["adir"] and not any(target.iterdir())


def test_failed_write_keeps_the_old_file(capsys, tmp_path, monkeypatch):
    """A write that fails half-way (disk full) leaves the previous file and no temp."""
    target = tmp_path / "s.json"
    target.write_text("old contents\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("steady.fileio.os.fsync", full)
    code, _, err = run(capsys, "schedule", "-o", target)
    assert code == 2
    assert_one_line_error(err, target)
    assert "No space left on device" in err
    assert target.read_text() == "old contents\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_no_traceback_in_a_real_process(tmp_path):
    target = tmp_path / "missing" / "s.json"
    proc = subprocess.run([sys.executable, "-m", "steady", "schedule", "-o", str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, target)
    assert not (tmp_path / "missing").exists()


# -- steady verify ----------------------------------------------------------------------------

def corrupt_file(path, tmp_path):
    doc = json.loads(path.read_text())
    doc["steps"][0]["transfers"][0]["messages"] += 1
    bad = tmp_path / "corrupted.json"
    bad.write_text(json.dumps(doc))
    return bad, doc["steps"][0]["transfers"][0]


def test_verify_corrupted_file_exits_1_listing_the_violation(capsys, schedule_file, tmp_path):
    bad, t = corrupt_file(schedule_file, tmp_path)
    code, out, err = run(capsys, "verify", FIGURE1, bad)
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("invalid:")
    edge = f"{t['from']}->{t['to']}"
    assert any("[delivery]" in line and edge in line for line in lines[1:]), out


def test_verify_json_report(capsys, schedule_file, tmp_path):
    code, out, _ = run(capsys, "verify", FIGURE1, schedule_file, "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["valid"] is True and doc["optimality_checked"] is True
    assert doc["violations"] == [] and doc["steps"] >= 1 and doc["trees"] >= 1
    bad, _ = corrupt_file(schedule_file, tmp_path)
    code, out, _ = run(capsys, "verify", FIGURE1, bad, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["valid"] is False
    kinds = {v["kind"] for v in doc["violations"]}
    assert "delivery" in kinds
    assert all(set(v) == {"kind", "where", "expected", "found", "message"}
               for v in doc["violations"])


@pytest.mark.parametrize("contents", [None, "{not json", '{"format": "steady-schedule"}',
                                      "[]", b"\xff\xfe"])
def test_verify_unreadable_schedule_exits_2(capsys, tmp_path, contents):
    path = tmp_path / "unreadable.json"
    if isinstance(contents, bytes):
        path.write_bytes(contents)
    elif contents is not None:
        path.write_text(contents)
    code, out, err = run(capsys, "verify", FIGURE1, path)
    assert code == 2 and out == ""
    assert_one_line_error(err, path)


def test_verify_unreadable_platform_exits_2(capsys, tmp_path, schedule_file):
    missing = tmp_path / "nope.json"
    code, _, err = run(capsys, "verify", missing, schedule_file)
    assert code == 2
    assert_one_line_error(err, missing)


def test_verify_suboptimal_schedule(capsys, suboptimal_file):
    code, out, _ = run(capsys, "verify", FIGURE1, suboptimal_file)
    assert code == 1 and "[optimality]" in out
    code, out, err = run(capsys, "verify", FIGURE1, suboptimal_file, "--no-optimality")
    assert code == 0 and err == ""
    assert out.startswith("valid:") and "2/3" in out and "optimality not checked" in out
    code, out, _ = run(capsys, "verify", FIGURE1, suboptimal_file, "--no-optimality",
                       "--json")
    doc = json.loads(out)
    assert code == 0 and doc["valid"] and doc["optimality_checked"] is False


def test_verify_platform_mismatch_exits_1(capsys, schedule_file):
    """The Figure 1 schedule against the DAG of Figure 5 (no P2->P1): one line naming
    the difference, not the cascade of rules it breaks (issue 45); --json lists all."""
    code, out, _ = run(capsys, "verify", DAG, schedule_file)
    assert code == 1
    assert out == ("invalid: the schedule was built for another platform (figure-1, not "
                   "figure-5-dag): link P2->P1: link P2->P1 of the schedule's platform "
                   "is not in the platform; verify it against the platform it was made "
                   "for (--json lists every violation)\n")
    code, out, _ = run(capsys, "verify", DAG, schedule_file, "--json")
    kinds = [v["kind"] for v in json.loads(out)["violations"]]
    assert code == 1 and "platform" in kinds and len(kinds) > 1


# -- steady show ---------------------------------------------------------------------------------

def test_show_prints_the_period_table(capsys, schedule_file):
    code, out, err = run(capsys, "show", schedule_file)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("period 2, 2 messages per period, throughput 1")
    assert lines[1].startswith("link \\ step")
    links = {line.split()[0] for line in lines[2:lines.index("")]}   # then the legend
    assert links == {"Ps->P1", "Ps->P2", "P1->P2", "P2->P1", "P1->P3", "P2->P4"}
    assert lines[lines.index("") + 1].startswith("legend: Tkxm = m messages of tree k")


@pytest.mark.slow
def test_show_gantt_png(capsys, schedule_file, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "chart.png"
    code, out, err = run(capsys, "show", schedule_file, "--gantt", png)
    assert code == 0 and err == ""
    assert f"Gantt chart written to {png}" in out
    assert png.read_bytes()[:8] == PNG_MAGIC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.png", schedule_file.name]


def test_show_gantt_svg(capsys, schedule_file, tmp_path):
    pytest.importorskip("matplotlib")
    svg = tmp_path / "chart.svg"
    code, _, _ = run(capsys, "show", schedule_file, "--gantt", svg)
    assert code == 0 and b"<svg" in svg.read_bytes()


def test_show_gantt_wrong_suffix_exits_2(capsys, schedule_file, tmp_path):
    txt = tmp_path / "chart.txt"
    code, _, err = run(capsys, "show", schedule_file, "--gantt", txt)
    assert code == 2
    assert_one_line_error(err, txt)
    assert not txt.exists()


def test_show_gantt_into_missing_directory_exits_2(capsys, schedule_file, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "missing" / "chart.png"
    code, _, err = run(capsys, "show", schedule_file, "--gantt", png)
    assert code == 2
    assert_one_line_error(err, png)
    assert not png.parent.exists()


def test_show_unreadable_schedule_exits_2(capsys, tmp_path):
    path = tmp_path / "nothing.json"
    code, out, err = run(capsys, "show", path)
    assert code == 2 and out == ""
    assert_one_line_error(err, path)


def test_show_big_schedule_uses_blocks(capsys, tmp_path):
    """More steps than fit a grid: one block per step."""
    from steady import Link, Platform
    from fractions import Fraction

    # A star from S to 14 leaves: 14 steps (the out-port of S sends one link at a time).
    p = Platform("S", [Link("S", f"L{i}", Fraction(1, i + 1)) for i in range(14)])
    tree = {f"L{i}": "S" for i in range(14)}
    path = tmp_path / "star.json"
    periodic_schedule(p, [(tree, 1)], 1).write(path)
    code, out, _ = run(capsys, "show", path)
    assert code == 0
    assert sum(line.startswith("step ") for line in out.splitlines()) == 14


def test_failed_gantt_write_keeps_the_old_chart(capsys, schedule_file, tmp_path,
                                                monkeypatch):
    pytest.importorskip("matplotlib")
    png = tmp_path / "chart.png"
    png.write_bytes(b"old chart")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("steady.fileio.os.fsync", full)
    code, _, err = run(capsys, "show", schedule_file, "--gantt", png)
    assert code == 2
    assert_one_line_error(err, png)
    assert png.read_bytes() == b"old chart"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.png", schedule_file.name]
