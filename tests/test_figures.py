"""The figures README.md and docs/*.md quote are what the commands print (issue 45,
item 1): docs/figures.py writes them from the commands' own output; these tests fail
when a document and a command disagree.  Exact figures only (counts, ratios, steps,
file sizes): measured ones (wall times, the exact best tree's 10-second search) are
written by the script and never checked.  The cheap commands run by default (in this
process: no start-up), the expensive ones (campaigns: minutes) under ``slow``, without
their measured-only options (``--best-tree 10``: the same exact figures, sooner).

After a change that moves a figure: ``python docs/figures.py`` (``--all`` for the
expensive ones), review ``git diff``, commit."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("docs_figures", ROOT / "docs" / "figures.py")
FIG = importlib.util.module_from_spec(SPEC)
sys.modules[SPEC.name] = FIG     # dataclasses look their module up there
SPEC.loader.exec_module(FIG)


def exact_groups(slow: bool) -> dict[str, list]:
    """{group: its exact figures} whose commands are all cheap (or not all: ``slow``)."""
    groups: dict[str, list] = {}
    for f in FIG.FIGURES:
        if f.measured:
            continue
        expensive = any(FIG.RUNS[k].slow for k in f.runs)
        if expensive == slow:
            groups.setdefault(f.group, []).append(f)
    return groups


CHEAP, SLOW = exact_groups(False), exact_groups(True)


def test_every_marker_names_a_figure_and_every_figure_is_placed():
    known = {f.name for f in FIG.FIGURES} | {"machine"}
    placed = FIG.names_in_documents()
    assert set(placed) <= known, sorted(set(placed) - known)
    assert {f.name for f in FIG.FIGURES} <= set(placed), \
        sorted({f.name for f in FIG.FIGURES} - set(placed))


def test_each_place_is_found_once():
    """A place edited away (or matched twice) is an error naming the figure."""
    for f in FIG.FIGURES:
        assert FIG.quoted(f.name), f.name      # places() raises on 0 or 2+ matches


def test_writing_the_quoted_values_changes_nothing(monkeypatch):
    """Idempotent: the documents as they are, written again, are unchanged."""
    values = {f.name: FIG.quoted(f.name)[0] for f in FIG.FIGURES}
    written = []
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: written.append(self))
    assert FIG.write(values) == [] and written == []


def test_the_cheap_figures_are_checked_by_default():
    assert {"tp-fig1", "simulate-100", "m65", "m65-steps", "schedule-dag"} <= set(CHEAP)
    assert {"stp", "stp-tiers", "grid", "ethernet-height"} <= set(SLOW)


@pytest.mark.parametrize("group", sorted(CHEAP))
def test_cheap_figures_agree_with_the_commands(group, tmp_path):
    figures = CHEAP[group]
    values = FIG.compute(figures, tmp_path, exact=True, in_process=True)
    assert FIG.drift(figures, values) == []


def _marked(group: str):
    """The group, marked ``campaign`` when one of its runs is a campaign of minutes."""
    campaign = any(FIG.RUNS[k].campaign for f in SLOW[group] for k in f.runs)
    return pytest.param(group, marks=[pytest.mark.campaign] if campaign else [])


@pytest.mark.slow
@pytest.mark.parametrize("group", [_marked(g) for g in sorted(SLOW)])
def test_expensive_figures_agree_with_the_commands(group, tmp_path):
    figures = SLOW[group]
    values = FIG.compute(figures, tmp_path, exact=True, in_process=True)
    assert FIG.drift(figures, values) == []
