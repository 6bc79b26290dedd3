"""Timed short-period schedules (steady.schedule.timed; proofs/timed-schedule.md)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from steady import default_platform
from steady.platform import Platform
from steady.schedule.packing import dinkelbach_weights, exact_ratio
from steady.schedule.timed import (check_timetable, link_rates, list_schedule, port_loads,
                                   optimum_trees, rounded_counts, timed_schedule)
from steady.schedule_file import TIMED, Schedule
from steady.strategies import platforms
from steady.throughput import throughput
from steady.verify import verify

from helpers import assert_one_line_error, run


def _timed(platform, m):
    return timed_schedule(platform, throughput(platform, "trees"), m)


# -- exact values ---------------------------------------------------------------------

def test_figure1_reaches_the_optimum_once_two_messages_fit():
    """The exact optimum of 002 Figure 1 has 2 messages per period: ratio exactly 1."""
    schedule, stats = _timed(default_platform(), 10)
    assert schedule.version == TIMED
    assert schedule.messages_per_period == 2 and schedule.period == 2
    assert stats["ratio"] == 1
    report = verify(None, schedule)
    assert report.ok and report.ratio == 1 and report.bound == 1


def test_figure1_with_one_message_is_the_best_single_tree():
    """One message per period is one tree; Figure 1's best tree has TP 2/3 (002 §3)."""
    schedule, stats = _timed(default_platform(), 1)
    assert schedule.messages_per_period == 1
    assert stats["ratio"] == Fraction(2, 3)
    assert verify(None, schedule).ratio == Fraction(2, 3)


def test_rounded_counts_keep_every_destination_cut():
    """ceil(n_e·N/TP*) keeps the in-cut of every node >= N (Edmonds' condition)."""
    p = Platform.from_file("samples/random-10.json")
    result = throughput(p, "trees")
    counts = rounded_counts(link_rates(result.trees), result.throughput, 37)
    for v in p.destinations:
        assert sum(k for (_, head), k in counts.items() if head == v) >= 37


# -- properties -----------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 60))
def test_every_timed_schedule_is_valid_and_certified(platform, m):
    """Claim (proofs/timed-schedule.md): the construction's file passes the independent
    checker, holds at most M messages, its period is at least the largest port load
    and its certified ratio is at most 1."""
    schedule, stats = _timed(platform, m)
    report = verify(platform, schedule)
    assert report.ok, report.violations[:3]
    assert 1 <= schedule.messages_per_period <= m
    assert schedule.period >= max(port_loads(platform, schedule.messages_per_link()).values())
    assert 0 < report.ratio <= 1
    assert report.ratio == stats["ratio"]


@settings(max_examples=15, deadline=None)
@given(platforms(max_nodes=6))
def test_ratio_is_one_when_the_exact_optimum_fits(platform):
    """When the exact optimum of 002 §5.4.2 has at most M messages per period, the
    timed schedule is that optimum: ratio exactly 1."""
    from steady.schedule import optimal_schedule

    result = throughput(platform, "trees")
    exact, _ = optimal_schedule(platform, result)
    if exact.messages_per_period > 500:
        return
    schedule, stats = timed_schedule(platform, result, exact.messages_per_period)
    assert stats["ratio"] == 1


@settings(max_examples=20, deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 80), st.data())
def test_the_dinkelbach_search_never_loses_to_its_start(platform, most, data):
    """steady.schedule.packing: the search returns integer weights of at most ``most``
    messages whose exact ratio bound N / (TP*·L) is at least its start's, and at most 1
    (the optimum's prices bound every integer packing)."""
    result = throughput(platform, "trees")
    parents = [parent for parent, _ in optimum_trees(platform, result)]
    start = data.draw(st.lists(st.integers(0, 5), min_size=len(parents),
                               max_size=len(parents)).filter(lambda w: 0 < sum(w) <= most))
    weights = dinkelbach_weights(platform, parents, result.throughput, most, start)
    assert all(isinstance(w, int) and w >= 0 for w in weights)
    assert 1 <= sum(weights) <= most
    ratio = exact_ratio(platform, list(zip(parents, weights)), result.throughput)
    assert exact_ratio(platform, list(zip(parents, start)), result.throughput) <= ratio <= 1


@settings(max_examples=25, deadline=None)
@given(platforms(max_nodes=6), st.lists(st.integers(1, 9), min_size=1, max_size=4))
def test_the_list_schedule_is_a_timetable_of_its_counts(platform, weights):
    """Step 3: any integer trees get a timetable whose period is at least the largest
    port load and at most the sum of all the work (a list schedule never idles every
    port at once), with every tree edge carrying its weight."""
    result = throughput(platform, "trees")
    trees = [(parent, w) for (parent, _), w in zip(optimum_trees(platform, result), weights)]
    transfers, period = list_schedule(platform, trees)
    counts = {}
    for t in transfers:
        counts[(t.tree, t.arc)] = counts.get((t.tree, t.arc), 0) + t.messages
    assert counts == {(l, (par, child)): w for l, (parent, w) in enumerate(trees)
                      for child, par in parent.items()}
    loads = port_loads(platform, {arc: sum(w for l, (p, w) in enumerate(trees)
                                           if (arc[1], arc[0]) in p.items())
                                  for arc in platform.arcs})
    work = sum(w * platform.cost(par, child) for parent, w in trees
               for child, par in parent.items())
    assert max(loads.values()) <= period <= work


def test_the_postcondition_rejects_an_overlap():
    schedule, _ = _timed(Platform.from_file("samples/random-10.json"), 20)
    first = schedule.transfers[0]
    twin = [t for t in schedule.transfers[1:] if t.tail == first.tail]
    assert twin
    moved = type(first)(twin[0].tail, twin[0].head, twin[0].tree, twin[0].messages,
                        first.start)
    bad = Schedule(schedule.platform, schedule.throughput, schedule.period,
                   schedule.messages_per_period, schedule.trees, (), schedule.extra,
                   schedule.certificate, (first, moved) + schedule.transfers[1:],
                   TIMED)
    with pytest.raises(AssertionError):
        check_timetable(schedule.platform, bad)


# -- the command line -------------------------------------------------------------------

def test_schedule_max_messages_writes_a_verified_v2_file(tmp_path, capsys):
    out = tmp_path / "r10.json"
    code, text, _ = run(capsys, "schedule", "samples/random-30.json", "--max-messages",
                             "100", "-o", str(out), "--json", "--quiet")
    assert code == 0
    summary = json.loads(text)
    doc = json.loads(out.read_text())
    assert doc["version"] == 2 and "transfers" in doc and "steps" not in doc
    assert summary["messages_per_period"] <= 100
    assert Fraction(summary["ratio"]) == Fraction(doc["ratio"])
    code, text, _ = run(capsys, "verify", "samples/random-30.json", str(out), "--json")
    assert code == 0 and json.loads(text)["ratio"] == summary["ratio"]
    ratio = Fraction(summary["ratio"])
    above = str(min(Fraction(1), ratio + Fraction(1, 10**6)))
    assert run(capsys, "verify", "samples/random-30.json", str(out), "--min-ratio",
                    above)[0] == (0 if ratio == 1 else 1)
    assert run(capsys, "verify", "samples/random-30.json", str(out), "--min-ratio",
                    str(ratio))[0] == 0


def test_schedule_ratio_finds_a_small_m(capsys):
    code, text, _ = run(capsys, "schedule", "--ratio", "1", "--json", "--quiet")
    assert code == 0
    assert json.loads(text)["messages_per_period"] == 2  # Figure 1: M = 1 gives 2/3


def test_schedule_ratio_out_of_reach_exits_1(capsys):
    code, _, err = run(capsys, "schedule", "samples/random-30.json", "--ratio", "1",
                            "--max-messages", "4", "--quiet")
    assert code == 1 and "best found" in err


def test_bad_short_period_options_exit_2(capsys):
    for argv in (["schedule", "--max-messages", "0"], ["schedule", "--max-messages", "x"],
                 ["schedule", "--max-period", "-1"], ["schedule", "--ratio", "abc"],
                 ["tradeoff", "--max-messages", "10,zero"]):
        code, _, err = run(capsys, *argv)
        assert code == 2, argv
        assert_one_line_error(err, argv[-2])


def test_tradeoff_lists_each_m(capsys):
    code, text, _ = run(capsys, "tradeoff", "--max-messages", "1,2", "--json", "--quiet")
    assert code == 0
    rows = json.loads(text)["schedules"]
    assert [r["max_messages"] for r in rows] == [1, 2]
    assert [Fraction(r["ratio"]) for r in rows] == [Fraction(2, 3), 1]


def test_the_cut_methods_trees_schedule_small_platform_at_the_optimum():
    """samples/simgrid/small_platform.json: the column generation's trees round and
    schedule to 0.893 of TP* at M = 10 (9 messages; the timetable ends 12% after the
    busiest port and shared link), the weighted branchings of the cut method's optimum
    to exactly 1: timed_schedule builds on both and keeps the latter."""
    from pathlib import Path

    from steady.schedule.timed import _timed_from, tree_families

    platform = Platform.from_file(Path(__file__).resolve().parent.parent /
                                  "samples/simgrid/small_platform.json")
    result = throughput(platform, "trees")
    families = tree_families(platform, result)
    assert [family.name for family in families] == [
        "the optimum's trees", "branchings of the cut method's optimum"]
    alone = _timed_from(platform, result, families[0].trees, 10)[0]
    assert alone.throughput / result.throughput < Fraction(9, 10)
    schedule, stats = timed_schedule(platform, result, 10)
    assert stats["ratio"] == 1 and stats["trees_from"] == families[1].name
    assert verify(platform, schedule).ok


@settings(max_examples=20, deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 40))
def test_each_tree_family_is_an_optimum_and_the_best_is_kept(platform, m):
    """Every family's trees are spanning arborescences whose rates fit the ports (the
    first family's sum to TP*, the rounded one's to at most TP*), and the schedule kept
    is at least as fast as the one built on each family alone (or comes from counts
    chosen over the cuts)."""
    from steady.schedule.timed import CUT_TREES, _timed_from, tree_families

    result = throughput(platform, "trees")
    schedule, stats = timed_schedule(platform, result, m)
    families = tree_families(platform, result)
    assert stats["trees_from"] in [family.name for family in families] + [CUT_TREES]
    assert sum(rate for _, rate in families[0].trees) == result.throughput
    for trees in (family.trees for family in families):
        assert sum(rate for _, rate in trees) <= result.throughput
        loads = port_loads(platform, link_rates(trees))
        assert max(loads.values()) <= 1
        for parent, _ in trees:
            platform.check_arborescence(parent, "<test>")
        if trees:
            assert _timed_from(platform, result, trees, m)[0].throughput <= \
                schedule.throughput
