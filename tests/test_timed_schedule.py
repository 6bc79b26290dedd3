"""Timed short-period schedules (steady.schedule.timed and the constructions it puts
together: counts, list_schedule; proofs/timed-schedule.md)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import examples

from steady import default_platform
from steady.platform import Platform
from steady.schedule.counts import link_rates, rounded_counts
from steady.schedule.effort import DEFAULT, FAST, LEVELS, THOROUGH
from steady.schedule.list_schedule import PRIORITIES, list_schedule, runs_plan
from steady.schedule.packing import dinkelbach_weights, exact_ratio
from steady.schedule.timed import PACKED_MESSAGES, optimum_trees, timed_schedule, timed_timetable
from steady.schedule.timetable import Timetable, loads_of
from steady.schedule_file import TIMED, Schedule
from steady.strategies import platforms
from steady.throughput import throughput
from steady.verify import verify

from helpers import assert_one_line_error, run, sample

EFFORTS = st.sampled_from(sorted(LEVELS.values(), key=lambda e: e.name))


def _timed(platform, m, effort=DEFAULT):
    return timed_schedule(platform, throughput(platform, "trees"), m, effort)


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
    p = Platform.from_file(sample("random-10.json"))
    result = throughput(p, "trees")
    counts = rounded_counts(link_rates(result.trees), result.throughput, 37)
    for v in p.destinations:
        assert sum(k for (_, head), k in counts.items() if head == v) >= 37


# -- properties -----------------------------------------------------------------------

@pytest.mark.parametrize("effort", [FAST, DEFAULT, THOROUGH], ids=lambda e: e.name)
@settings(max_examples=examples(15))
@given(platforms(max_nodes=6), st.integers(1, 60))
def test_every_timed_schedule_is_valid_certified_and_deterministic(effort, platform, m):
    """Claim (proofs/timed-schedule.md), at every effort level: the construction's file
    passes the independent checker, holds at most M messages, its period is at least
    the largest port load and its certified ratio is at most 1; and the same input gives
    the same bytes (every search is bounded by deterministic work, steady.schedule.effort)."""
    result = throughput(platform, "trees")
    schedule, stats = timed_schedule(platform, result, m, effort)
    report = verify(platform, schedule)
    assert report.ok, report.violations[:3]
    assert 1 <= schedule.messages_per_period <= m
    assert schedule.period >= max(loads_of(platform, schedule.messages_per_link()).values())
    assert 0 < report.ratio <= 1
    assert report.ratio == stats["ratio"]
    again, stats_again = timed_schedule(platform, result, m, effort)
    assert again.to_json() == schedule.to_json()
    assert stats_again == stats


@settings(max_examples=examples(15))
@given(platforms(max_nodes=6))
def test_ratio_is_one_when_the_exact_optimum_fits(platform):
    """When the exact optimum of 002 §5.4.2 has at most M messages per period, the
    timed schedule is that optimum: ratio exactly 1."""
    from steady.schedule import optimal_schedule

    result = throughput(platform, "trees")
    exact, _ = optimal_schedule(platform, result)
    assume(exact.messages_per_period <= 500)
    schedule, stats = timed_schedule(platform, result, exact.messages_per_period, FAST)
    assert stats["ratio"] == 1
    assert stats["construction"] == "exact optimum (002 §5.4.2), timed"


@settings(max_examples=examples(20))
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


@settings(max_examples=examples(20))
@given(platforms(max_nodes=6), st.data())
def test_a_packing_at_ratio_one_is_kept_without_a_milp(platform, data):
    """steady.schedule.packing: the optimum's own trees weighted in proportion to their
    rates reach ratio bound exactly 1 (no integer packing does better, so the search
    returns them without solving a MILP); other weights stay at or below 1."""
    import steady.schedule.packing as packing

    result = throughput(platform, "trees")
    trees = optimum_trees(platform, result)
    scale = math.lcm(*(rate.denominator for _, rate in trees))
    start = [int(rate * scale) for _, rate in trees]
    parents = [parent for parent, _ in trees]
    assert exact_ratio(platform, list(zip(parents, start)), result.throughput) == 1
    other = data.draw(st.lists(st.integers(0, 9), min_size=len(parents),
                               max_size=len(parents)))
    assume(any(other))
    assert exact_ratio(platform, list(zip(parents, other)), result.throughput) <= 1

    def no_milp(*args, **kwargs):
        raise AssertionError("a MILP was solved at ratio 1")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(packing, "_milp_round", no_milp)
        assert dinkelbach_weights(platform, parents, result.throughput, sum(start),
                                  start) == start


@settings(max_examples=examples(20))
@given(platforms(max_nodes=6), st.integers(2, 80), st.data(), st.sampled_from([0, 1, 100]))
def test_the_quick_dinkelbach_look_gives_the_full_answer_or_none(platform, most, data,
                                                                 nodes):
    """steady.schedule.packing (``proven``): where every round of the search proves its
    optimum within PROVEN_NODES nodes (here 0, 1 or 100: the small bounds make some
    rounds stop unproven), the answer is the full search's; otherwise None."""
    import steady.schedule.packing as packing

    result = throughput(platform, "trees")
    parents = [parent for parent, _ in optimum_trees(platform, result)]
    start = data.draw(st.lists(st.integers(0, 5), min_size=len(parents),
                               max_size=len(parents)).filter(lambda w: 0 < sum(w) <= most))
    full = dinkelbach_weights(platform, parents, result.throughput, most, start)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(packing, "PROVEN_NODES", nodes)
        quick = dinkelbach_weights(platform, parents, result.throughput, most, start,
                                   proven=True)
    assert quick is None or quick == full


def _unproven_milp(patch, calls: list):
    """steady.schedule.timed's improved_packing made to find its quick look unproven
    (as on 65-node meshes at M = 1000), the calls of the full search recorded."""
    import steady.schedule.timed as timed_module
    from steady.schedule.counts import improved_packing

    def spy(*args, proven=False):
        if proven:
            return None
        calls.append(args)
        return improved_packing(*args)

    patch.setattr(timed_module, "improved_packing", spy)


def _alone(enough: Fraction):
    return DEFAULT.but(one_period=True, milp_enough=enough)


def test_a_timetable_certified_enough_before_the_milp_is_kept():
    """steady.schedule.timed (Effort.one_period, Effort.milp_enough): where the
    Dinkelbach MILP would run to its node bound, a first timetable certified at least
    ``milp_enough`` is kept and the MILP not solved; where none is, the search goes on
    and gives exactly what it gives without it (samples/random-30.json, M = 10: the
    packing's ratio bound is below 1 there, so the MILP is asked for)."""
    platform = Platform.from_file(sample("random-30.json"))
    result = throughput(platform, "trees")
    plain, stats = timed_timetable(platform, result, 10)
    assert stats["ratio"] < 1
    calls = []
    with pytest.MonkeyPatch.context() as patch:
        _unproven_milp(patch, calls)
        early, early_stats = timed_timetable(platform, result, 10, _alone(Fraction(1, 2)))
        assert calls == []
        assert early_stats["ratio"] >= Fraction(1, 2)
        assert verify(platform, early.schedule(result)).ok
        # unreachable: the MILP runs, and the answer is the one without ``enough``
        late, _ = timed_timetable(platform, result, 10, _alone(Fraction(2)))
        assert len(calls) == 1
    assert late.schedule(result).to_json() == plain.schedule(result).to_json()


def test_steady_schedule_uses_the_effort_s_enough_for_one_m_only(capsys, tmp_path):
    """``steady schedule --max-messages M`` asks the timetable for one period alone
    (Effort.one_period, with the effort's milp_enough: at default effort) for a long
    period (M above timed.PACKED_MESSAGES), not for a short one; ``--ratio`` and
    ``--effort thorough`` do not use milp_enough."""
    import steady.schedule.timed as timed_module

    seen = []
    real = timed_module.timed_schedule

    def spy(*args):
        seen.append(args[3].milp_enough if args[3].one_period else None)
        return real(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timed_module, "timed_schedule", spy)
        for m, extra in ((PACKED_MESSAGES + 1, []), (PACKED_MESSAGES, []),
                         (PACKED_MESSAGES + 1, ["--effort", "thorough"]),
                         (PACKED_MESSAGES + 1, ["--ratio", "1/2"])):
            seen.clear()
            code, _, _ = run(capsys, "schedule", sample("random-10.json"),
                             "--max-messages", m, "--quiet", "-o", tmp_path / "s.json",
                             *extra)
            assert code == 0
            asked = m > PACKED_MESSAGES and not extra
            assert seen and set(seen) == ({DEFAULT.milp_enough} if asked else {None})


# -- the list schedule (steady.schedule.list_schedule) ----------------------------------

@settings(max_examples=examples(25))
@given(platforms(max_nodes=6), st.lists(st.integers(1, 9), min_size=1, max_size=4),
       EFFORTS)
def test_the_list_schedule_is_a_timetable_of_its_counts(platform, weights, effort):
    """Step 3: any integer trees get a timetable whose period is at least the largest
    port load and at most the sum of all the work (a list schedule never idles every
    port at once), with every tree edge carrying its weight (and Timetable.check
    accepting it)."""
    result = throughput(platform, "trees")
    trees = [(parent, w) for (parent, _), w in zip(optimum_trees(platform, result), weights)]
    table = list_schedule(platform, trees, effort)
    table.check()
    counts = {}
    for t in table.transfers():
        counts[(t.tree, t.arc)] = counts.get((t.tree, t.arc), 0) + t.messages
    assert counts == {(l, (par, child)): w for l, (parent, w) in enumerate(trees)
                      for child, par in parent.items()}
    loads = loads_of(platform, {arc: sum(w for l, (p, w) in enumerate(trees)
                                         if (arc[1], arc[0]) in p.items())
                                for arc in platform.arcs})
    work = sum(w * platform.cost(par, child) for parent, w in trees
               for child, par in parent.items())
    assert max(loads.values()) <= table.period_time <= work


@given(st.integers(1, 10**7), EFFORTS, st.none() | st.integers(1, 200))
def test_the_list_schedule_rounds_stay_within_their_budget(sends, effort, most):
    """runs_plan: at most the effort's ``list_rounds`` (or ``most``) rounds per rule, at
    least one, and more than one only while a rule's rounds fit a third of
    ``all_placements``; at least one rule, more only while one placement each fits
    ``all_placements``; one run places at most ``run_placements`` chunks."""
    if most is not None:
        effort = effort.but(list_rounds=most)
    rules, rounds, chunk = runs_plan(sends, effort)
    assert 1 <= rounds <= effort.list_rounds
    assert rounds == 1 or rounds * sends <= effort.all_placements // 3
    placements = -(-sends // chunk)
    assert placements <= effort.run_placements
    assert 1 <= rules <= 2 * len(PRIORITIES)
    assert rules == 1 or rules * placements <= effort.all_placements


def test_the_postcondition_rejects_an_overlap():
    """Timetable.check (the runtime postcondition of every construction): a transfer
    moved onto the start of another of the same sender is refused."""
    schedule, _ = _timed(Platform.from_file(sample("random-10.json")), 20)
    first = schedule.transfers[0]
    twin = [t for t in schedule.transfers[1:] if t.tail == first.tail]
    assert twin
    moved = type(first)(twin[0].tail, twin[0].head, twin[0].tree, twin[0].messages,
                        first.start)
    rest = [t for t in schedule.transfers[1:] if t is not twin[0]]
    bad = Schedule(schedule.platform, schedule.throughput, schedule.period,
                   schedule.messages_per_period, schedule.trees, (), schedule.extra,
                   schedule.certificate, (first, moved, *rest), TIMED)
    Timetable.of(schedule).check()
    with pytest.raises(AssertionError, match="port"):
        Timetable.of(bad).check()


# -- the command line -------------------------------------------------------------------

def test_schedule_max_messages_writes_a_verified_v2_file(tmp_path, capsys):
    out = tmp_path / "r10.json"
    r30 = sample("random-30.json")
    code, text, _ = run(capsys, "schedule", r30, "--max-messages",
                             "100", "-o", str(out), "--json", "--quiet")
    assert code == 0
    summary = json.loads(text)
    doc = json.loads(out.read_text())
    assert doc["version"] == 2 and "transfers" in doc and "steps" not in doc
    assert summary["messages_per_period"] <= 100
    assert Fraction(summary["ratio"]) == Fraction(doc["ratio"])
    code, text, _ = run(capsys, "verify", r30, str(out), "--json")
    assert code == 0 and json.loads(text)["ratio"] == summary["ratio"]
    ratio = Fraction(summary["ratio"])
    above = str(min(Fraction(1), ratio + Fraction(1, 10**6)))
    assert run(capsys, "verify", r30, str(out), "--min-ratio",
                    above)[0] == (0 if ratio == 1 else 1)
    assert run(capsys, "verify", r30, str(out), "--min-ratio",
                    str(ratio))[0] == 0


def test_schedule_ratio_finds_a_small_m(capsys):
    code, text, _ = run(capsys, "schedule", "--ratio", "1", "--json", "--quiet")
    assert code == 0
    assert json.loads(text)["messages_per_period"] == 2  # Figure 1: M = 1 gives 2/3


def test_schedule_ratio_out_of_reach_exits_1(capsys):
    code, _, err = run(capsys, "schedule", sample("random-30.json"), "--ratio", "1",
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


@pytest.mark.slow
def test_the_cut_methods_trees_schedule_small_platform_at_the_optimum():
    """samples/simgrid/small_platform.json: the column generation's trees round and
    schedule to 0.893 of TP* at M = 10 (9 messages; the timetable ends 12% after the
    busiest port and shared link), the weighted branchings of the cut method's optimum
    to exactly 1.  At thorough effort timed_schedule builds on both and keeps the
    latter; below it builds on the first family only."""
    from steady.schedule.timed import _timed_from, tree_families

    platform = Platform.from_file(sample("simgrid/small_platform.json"))
    result = throughput(platform, "trees")
    families = tree_families(platform, result, THOROUGH)
    assert [family.name for family in families] == [
        "the optimum's trees", "branchings of the cut method's optimum"]
    assert [f.name for f in tree_families(platform, result, DEFAULT)] == [families[0].name]
    alone = _timed_from(platform, result, families[0].trees, 10, THOROUGH)[0]
    assert Fraction(alone.messages * alone.unit, alone.period) / result.throughput \
        < Fraction(9, 10)
    schedule, stats = timed_schedule(platform, result, 10, THOROUGH)
    assert stats["ratio"] == 1 and stats["trees_from"] == families[1].name
    assert verify(platform, schedule).ok


@settings(max_examples=examples(20))
@given(platforms(max_nodes=6), st.integers(1, 40))
def test_each_tree_family_is_an_optimum_and_the_best_is_kept(platform, m):
    """Every family's trees (both, at thorough effort) are spanning arborescences whose
    rates fit the ports (the first family's sum to TP*, the rounded one's to at most
    TP*), and the schedule kept is at least as fast as the one built on each family
    alone (or comes from counts chosen over the cuts)."""
    from steady.schedule.timed import CUT_TREES, _timed_from, tree_families

    result = throughput(platform, "trees")
    schedule, stats = timed_schedule(platform, result, m, THOROUGH)
    families = tree_families(platform, result, THOROUGH)
    assert len(families) == 2
    assert stats["trees_from"] in [family.name for family in families] + [CUT_TREES]
    assert sum(rate for _, rate in families[0].trees) == result.throughput
    for trees in (family.trees for family in families):
        assert sum(rate for _, rate in trees) <= result.throughput
        loads = loads_of(platform, link_rates(trees))
        assert max(loads.values()) <= 1
        for parent, _ in trees:
            platform.check_arborescence(parent, "<test>")
        if trees:
            table = _timed_from(platform, result, trees, m, THOROUGH)[0]
            assert Fraction(table.messages * table.unit, table.period) <= schedule.throughput


_BYTES = """
import hashlib
from steady.generators import mesh_platform
from steady.schedule.timed import timed_schedule
from steady.throughput import throughput
platform = mesh_platform(16, seed=1)
result = throughput(platform, "trees")
for effort in ("fast", "default", "thorough"):
    schedule, _ = timed_schedule(platform, result, 7, effort)
    print(effort, hashlib.sha256(schedule.to_json().encode()).hexdigest())
"""


@pytest.mark.slow
def test_the_same_bytes_whatever_the_string_hashing():
    """Determinism across processes: the files of a 16-node mesh at M = 7, at each
    effort, do not depend on Python's string hashing (set and dict orders of node
    names), which an in-process repetition cannot see."""
    import os
    import subprocess
    import sys

    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", _BYTES], env=env, check=True,
                              capture_output=True, text=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert len(outputs[0].splitlines()) == 3
