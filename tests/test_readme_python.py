"""The README's "From Python" section is a doctest (issue 45, item 9): its examples
run as printed, from the repository's folder, so the Python door it shows stays true."""

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)


def section(text: str) -> str:
    start = text.index("## From Python")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_the_from_python_section_runs_as_printed(monkeypatch):
    blocks = BLOCK.findall(section(README.read_text(encoding="utf-8")))
    assert len(blocks) >= 5
    monkeypatch.chdir(ROOT)              # "samples/..." as a reader of the README types it
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README.md",
                                               str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS |
                                   doctest.NORMALIZE_WHITESPACE)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
    assert runner.tries >= 30


def test_the_doors_are_exported():
    import steady

    for name in ("optimal_schedule", "timed_schedule", "timed_timetable", "horizon_choice",
                 "collective_throughput", "check", "check_collective", "Schedule",
                 "tree_throughput", "dag_throughput"):
        assert name in steady.__all__ and callable(getattr(steady, name))
    assert set(steady.__all__) <= set(dir(steady))
