"""Progress on stderr (steady.progress; docs/cli.md, "Progress"): a moving bar on a
terminal, status lines elsewhere after a few seconds, nothing with --quiet; stdout
untouched (issue 45, item 2)."""

import io
import json
import re

import pytest

from steady import progress
from steady.cli import main
from steady.progress import CountBar, StageBar, seconds_text


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    """A fake time.perf_counter: the lines depend on the clock only through their
    times and through when they are due."""

    def __init__(self):
        self.now = 1000.0

    def perf_counter(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(progress, "time", fake)
    monkeypatch.setattr(progress, "_COMMAND", ["steady"])
    monkeypatch.setenv("STEADY_PROGRESS", "auto")
    return fake


def lines(stream):
    return stream.getvalue().splitlines()


def test_seconds_text():
    assert [seconds_text(s) for s in (0, 4.6, 59, 60, 100, 3599, 3600, 3725)] == [
        "0 s", "5 s", "59 s", "1 min 00 s", "1 min 40 s", "59 min 59 s", "1 h 00 min",
        "1 h 02 min"]


def test_short_work_is_silent_off_a_terminal(clock):
    log = io.StringIO()
    with StageBar(["a", "b"], stream=log) as bar:
        bar.stage("a")
        clock.now += progress.DELAY - 1
        bar.stage("b")
    assert log.getvalue() == ""


def test_long_work_prints_a_line_per_stage_then_every_few_seconds(clock):
    log = io.StringIO()
    with StageBar(["exact throughput", "timed schedules", "count"], stream=log) as bar:
        bar.stage("exact throughput")
        clock.now += progress.DELAY + 1
        bar.stage("timed schedules")              # a new stage: a line at once
        bar.item(0, 4, "M = 1")
        clock.now += 1
        bar.item(1, 4, "M = 2")                   # same stage, not due yet: no line
        clock.now += progress.EVERY
        bar.item(2, 4, "M = 4")                   # due: the heartbeat
        bar.stage("count")
    assert lines(log) == [
        "steady: stage 2/3 timed schedules, 6 s",
        "steady: stage 2/3 timed schedules: M = 4 (item 3 of 4, ~11 s left), 17 s",
        "steady: stage 3/3 count, 17 s",
        "steady: done, 17 s"]


def test_the_ticker_speaks_while_one_call_runs(clock, monkeypatch):
    """Nothing calls the bar during a long solver call: the ticker's redraw is what
    prints the heartbeat (called here directly, as its thread would)."""
    log = io.StringIO()
    with StageBar(["solve"], stream=log) as bar:
        bar.stage("solve")
        clock.now += progress.DELAY
        bar._draw()
        bar._draw()                               # not due again yet
        clock.now += progress.EVERY
        bar._draw()
    assert lines(log) == ["steady: stage 1/1 solve, 5 s", "steady: stage 1/1 solve, 15 s",
                          "steady: done, 15 s"]


def test_count_bar_lines_with_the_time_left(clock):
    log = io.StringIO()
    with CountBar(4, "platforms", stream=log) as bar:
        clock.now += progress.DELAY
        bar.advance()
        bar._draw()
    assert lines(log) == ["steady: 1/4 platforms, ~15 s left, 5 s", "steady: done, 5 s"]


def test_quiet_and_the_environment_silence_it(clock, monkeypatch):
    for quiet, env, stream in ((True, "auto", io.StringIO()), (False, "off", Terminal()),
                               (False, "terminal", io.StringIO())):
        monkeypatch.setenv("STEADY_PROGRESS", env)
        with StageBar(["a"], quiet=quiet, stream=stream) as bar:
            bar.stage("a")
            clock.now += progress.DELAY + progress.EVERY
            bar._draw()
        assert stream.getvalue() == "", (quiet, env)
    monkeypatch.setenv("STEADY_PROGRESS", "lines")   # lines even on a terminal
    term = Terminal()
    with StageBar(["a"], stream=term) as bar:
        bar.stage("a")
        clock.now += progress.DELAY
        bar._draw()
    assert lines(term)[0] == "steady: stage 1/1 a, 5 s"


def test_the_terminal_bar_moves_with_items_and_an_estimate(clock):
    term = Terminal()
    with StageBar(["a", "b"], stream=term) as bar:
        bar.stage("a")
        bar.stage("b")
        bar.item(1, 4, "M = 2")
        clock.now += 3
        bar.item(2, 4, "M = 4")
    drawn = term.getvalue().split("\r")
    assert any("1/2 b: M = 4 (item 3 of 4, ~3 s left)" in d for d in drawn)
    assert drawn[-1].startswith("[########################] 2/2 done")


@pytest.fixture
def loud(monkeypatch):
    """Commands in-process with stderr not a terminal and no delay: every stage line."""
    monkeypatch.setenv("STEADY_PROGRESS", "auto")
    monkeypatch.setattr(progress, "DELAY", 0.0)


def test_commands_name_themselves_and_keep_stdout_clean(loud, capsys):
    assert main(["tradeoff", "--max-messages", "1,2", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["optimum"] == "1"
    said = [re.sub(r"\d+ s\b", "N s", line) for line in err.splitlines()]
    assert said == ["steady tradeoff: stage 1/3 exact throughput, N s",
                    "steady tradeoff: stage 2/3 optimal trees, N s",
                    "steady tradeoff: stage 3/3 short-period schedules, N s",
                    "steady tradeoff: done, N s"]


@pytest.mark.parametrize("argv", [
    ["throughput"], ["throughput", "--collective", "broadcast"], ["heuristics",
                                                                  "--best-tree", "0"],
    ["schedule", "--max-messages", "2"], ["simulate", "--horizon", "10"]])
def test_each_long_command_reports_progress_and_quiet_silences_it(loud, capsys, argv):
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"steady {argv[0]}: ") and err.endswith(" s\n")
    assert main(argv + ["--quiet"]) == 0
    assert capsys.readouterr().err == ""
