"""Helpers shared by tests (imported as ``helpers``: pytest puts this folder on
``sys.path`` since the tests are not a package): the command line run in-process, the
samples' paths, a timetable that ends after its largest port load, and a ladder of
timetables as the finite-horizon chooser builds them."""

import os
from fractions import Fraction
from pathlib import Path

from steady.cli import main
from steady.generators import random_platform
from steady.schedule.branchings import weighted_branchings
from steady.schedule.counts import merged, usage
from steady.schedule.cut_counts import cut_counts
from steady.schedule.effort import DEFAULT
from steady.schedule.list_schedule import greedy_runs
from steady.schedule.timed import timed_timetable, tree_families
from steady.schedule.timetable import Timetable, loads_of, ticks_per_unit
from steady.throughput import throughput

#: The samples folder, whatever the working directory.
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def sample(name: str) -> Path:
    """The path of ``samples/<name>``."""
    return SAMPLES / name


def run(capsys, *argv):
    """Run ``steady *argv`` in-process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err, name):
    """DESIGN.md: bad input is one line on stderr naming the element, no traceback."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("steady: ") and str(name) in lines[0]


def late_timetable(seed: int, messages: int):
    """(platform, result, timetable, load): on ``random_platform(8, 0.3, seed)``, a
    timetable of ``messages`` arborescences packed into counts chosen over the cuts,
    timed by one greedy run only (no rounds, no search), and the counts' largest port
    load (seed 39, 5 messages: the timetable ends 4.8 % after it); None when the cuts
    give no counts."""
    platform = random_platform(8, 0.3, seed=seed)
    counts = cut_counts(platform, messages)
    if counts is None:
        return None
    trees = merged(weighted_branchings(platform, counts, messages))
    used = usage(trees)
    unit = ticks_per_unit(platform, used)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in used}
    runs = greedy_runs(used, cost)
    end = max(s + n * cost[arc] for arc, rs in runs.items() for s, n in rs)
    table = Timetable.from_arc_runs(platform, trees, runs, end, unit)
    result = throughput(platform, "trees")
    return platform, result, table, max(loads_of(platform, counts).values())


def ratio_of(table, optimum) -> Fraction:
    """A broadcast timetable's ratio, written out: messages per time unit over TP*."""
    return Fraction(table.messages * table.unit, table.period) / optimum


def ladder(platform, values):
    """(the optimum with its trees, [(M, timetable, ratio)] at default effort for each
    M of ``values``): the chooser's ``built`` list."""
    from steady.simulate.choose import with_trees

    result = with_trees(platform, throughput(platform, "trees"))
    families = tree_families(platform, result, DEFAULT)
    built = []
    for m in values:
        table, _ = timed_timetable(platform, result, m, DEFAULT, families)
        built.append((m, table, ratio_of(table, result.throughput)))
    return result, built


def examples(ci: int) -> int:
    """How many examples a property draws: ``ci`` under CI (STEADY_CI, derandomized,
    conftest.py), two fifths of it (at least 10, at most ``ci``) in the README's
    ``python -m pytest``, as conftest's profile does where a test sets no number (40
    of 100): the newcomer's run stays under 3 minutes and CI keeps the full search."""
    if os.environ.get("STEADY_CI"):
        return ci
    return min(ci, max(10, -(-2 * ci // 5)))
