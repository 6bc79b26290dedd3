"""Helpers shared by tests (imported as ``helpers``: pytest puts this folder on
``sys.path`` since the tests are not a package): the command line run in-process, and
a timetable that ends after its largest port load."""

from steady.cli import main
from steady.generators import random_platform
from steady.schedule.branchings import weighted_branchings
from steady.schedule.counts import cut_counts
from steady.schedule.timed import _document, _merged, port_loads, timetable
from steady.throughput import throughput


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


def late_schedule(seed: int, messages: int):
    """(platform, result, schedule, load): on ``random_platform(8, 0.3, seed)``, a
    version 2 schedule of ``messages`` arborescences packed into counts chosen over the
    cuts, timed by one greedy round only (no search), and the counts' largest port
    load (seed 39, 5 messages: the schedule ends 4.8 % after it); None when the cuts
    give no counts."""
    platform = random_platform(8, 0.3, seed=seed)
    counts = cut_counts(platform, messages)
    if counts is None:
        return None
    trees = _merged(weighted_branchings(platform, counts, messages))
    transfers, period, _ = timetable(platform, trees, 1)
    result = throughput(platform, "trees")
    return (platform, result, _document(platform, trees, transfers, period, result),
            max(port_loads(platform, counts).values()))
