"""Short periods in synchronous steps (steady.schedule.steps; proofs/timed-schedule.md,
"Synchronous steps"): a steady-schedule version 1 file with at most M messages per
period whose ratio to the optimum is certified, and `steady verify` on such files."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import examples

from steady import Link, Platform, default_platform
from steady.schedule.periodic import optimal_schedule
from steady.schedule.steps import (SEARCH_BITS, by_busier_port, covering_matching,
                                   exact_durations, greedy_plan, link_usage, search_costs,
                                   steps_schedule, synchronous_steps, theorem6_plan,
                                   tightened)
from steady.schedule.timed import timed_schedule
from steady.schedule_file import Schedule, Step, Transfer, timed
from steady.strategies import platforms
from steady.throughput import throughput
from steady.verify import verify


def _steps(platform, m):
    return steps_schedule(platform, throughput(platform, "trees"), m)


def _largest_port_load(platform, schedule) -> Fraction:
    """Computed here from the file's transfers and the platform's costs."""
    load: dict = {}
    for step in schedule.steps:
        for t in step.transfers:
            busy = t.messages * platform.cost(t.tail, t.head)
            load[("out", t.tail)] = load.get(("out", t.tail), 0) + busy
            load[("in", t.head)] = load.get(("in", t.head), 0) + busy
    return max(load.values())


def _with_steps(schedule, steps) -> Schedule:
    return replace(schedule, steps=tuple(steps))


# -- exact values -----------------------------------------------------------------------

def test_figure1_one_message_is_the_best_tree_in_steps():
    """One message per period is one tree; 002 §3: Figure 1's best tree reaches 2/3, so
    TP* = 1 gives ratio 2/3, reached when the steps lose nothing (period 3/2)."""
    schedule, stats = _steps(default_platform(), 1)
    assert schedule.version == 1 and schedule.messages_per_period == 1
    assert schedule.period == Fraction(3, 2) and stats["ratio"] == Fraction(2, 3)
    assert schedule.transfer_count == 4                     # 4 tree edges, 1 message each
    report = verify(None, schedule)
    assert report.ok and report.rated and report.ratio == Fraction(2, 3)
    assert schedule.extra["ratio"] == Fraction(2, 3) and schedule.extra["optimum"] == 1


def test_figure1_exact_optimum_fits_in_two_messages():
    """002 Figure 1's optimal schedule has 2 messages per period: it is returned as it
    is (two steps of one time unit), with the claims ratio 1 and optimum 1."""
    exact, _ = optimal_schedule(default_platform(), throughput(default_platform(), "trees"))
    schedule, stats = _steps(default_platform(), 10)
    assert stats["ratio"] == 1 and schedule.steps == exact.steps
    assert schedule.period == 2 and [s.duration for s in schedule.steps] == [1, 1]
    report = verify(None, schedule)
    assert report.ok and report.rated and report.ratio == 1 and report.bound == 1


def test_a_chain_is_one_step():
    """S -> A -> B -> C with costs 1, 2, 3: the three links form a matching (distinct
    senders, distinct receivers), so 5 messages per period are one step of 5 x 3."""
    p = Platform("S", [Link("S", "A", 1), Link("A", "B", 2), Link("B", "C", 3)])
    steps, period, _ = synchronous_steps(p, [({"A": "S", "B": "A", "C": "B"}, 5)])
    assert period == 15 and len(steps) == 1 and steps[0].duration == 15
    assert sorted((t.tail, t.head, t.messages) for t in steps[0].transfers) == [
        ("A", "B", 5), ("B", "C", 5), ("S", "A", 5)]


def test_a_star_takes_its_source_port_load():
    """S -> A (cost 1), S -> B (cost 3): S sends on one link per step, so the period is
    at least 4 x 1 + 4 x 3 = 16 for 4 messages per period, and two steps reach it."""
    p = Platform("S", [Link("S", "A", 1), Link("S", "B", 3)])
    steps, period, _ = synchronous_steps(p, [({"A": "S", "B": "S"}, 4)])
    assert period == 16 and sorted(s.duration for s in steps) == [4, 12]


def test_an_optimal_v1_file_still_verifies_as_optimal():
    """Without claims, steps must be optimal; min_ratio then reads the ratio the
    certificate proves: exactly 1."""
    p = default_platform()
    exact, _ = optimal_schedule(p, throughput(p, "trees"))
    report = verify(p, exact)
    assert report.ok and not report.rated and report.ratio is None
    assert "ratio" not in report.to_dict()
    report = verify(p, exact, min_ratio=Fraction(1))
    assert report.ok and not report.rated and report.ratio == 1


def test_claims_make_steps_rated_and_must_be_exact():
    schedule, stats = _steps(Platform.from_file("samples/random-30.json"), 10)
    assert verify(None, schedule).ratio == stats["ratio"] < 1
    unclaimed = replace(schedule, extra={})          # then it must be optimal: it is not
    assert verify(None, unclaimed).kinds() == {"optimality"}
    assert verify(None, unclaimed, optimality=False).ok
    wrong = replace(schedule, extra={**schedule.extra, "ratio": stats["ratio"] + Fraction(1, 10**9)})
    assert verify(None, wrong).kinds() == {"ratio"}
    wrong = replace(schedule, extra={**schedule.extra, "optimum": "1"})
    assert verify(None, wrong).kinds() == {"ratio"}
    assert verify(None, schedule, min_ratio=stats["ratio"]).ok
    assert verify(None, schedule, min_ratio=stats["ratio"] * (1 + Fraction(1, 10**6))
                  ).kinds() == {"ratio"}


# -- properties ---------------------------------------------------------------------------

@settings(max_examples=examples(25), deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 60))
def test_every_steps_schedule_is_valid_and_certified(platform, m):
    """Claim (proofs/timed-schedule.md, "Synchronous steps"): the file passes the
    independent checker, holds at most M messages, its period is at least the largest
    port load, so its certified ratio is at most M / (TP*·that load) <= 1; its timed
    form is a valid timetable with the same ratio (conversion (c))."""
    result = throughput(platform, "trees")
    schedule, stats = steps_schedule(platform, result, m)
    report = verify(platform, schedule)
    assert report.ok, report.violations[:3]
    assert report.rated and report.ratio == stats["ratio"] == schedule.extra["ratio"]
    assert 1 <= schedule.messages_per_period <= m
    load = _largest_port_load(platform, schedule)
    assert schedule.period >= load
    assert 0 < report.ratio <= Fraction(schedule.messages_per_period) / load / result.throughput
    assert report.ratio <= 1
    again = verify(platform, timed(schedule))
    assert again.ok and again.ratio == report.ratio


@settings(max_examples=examples(20), deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 40))
def test_steps_on_the_timetable_trees_share_its_bound(platform, m):
    """On the timetable's own trees (what `steady tradeoff` compares), the steps carry
    the same messages per period and per link; both periods are at least the same
    largest port load, so both ratios are at most the same bound.  (That steps never
    beat the timetable is what we measure, not what we prove: both are heuristics.)"""
    result = throughput(platform, "trees")
    table, table_stats = timed_schedule(platform, result, m)
    trees = [(tree.parent, tree.weight) for tree in table.trees]
    schedule, stats = steps_schedule(platform, result, m, trees=trees)
    assert verify(platform, schedule).ok
    assert schedule.messages_per_period == table.messages_per_period
    assert schedule.messages_per_link() == table.messages_per_link()
    bound = Fraction(schedule.messages_per_period) / _largest_port_load(platform, schedule)
    assert stats["ratio"] <= bound / result.throughput
    assert table_stats["ratio"] <= bound / result.throughput


@settings(max_examples=examples(15), deadline=None)
@given(platforms(max_nodes=6))
def test_ratio_is_one_when_the_exact_optimum_fits(platform):
    result = throughput(platform, "trees")
    exact, _ = optimal_schedule(platform, result)
    assume(exact.messages_per_period <= 500)
    schedule, stats = steps_schedule(platform, result, exact.messages_per_period)
    assert stats["ratio"] == 1 and verify(platform, schedule).ratio == 1


@st.composite
def _schedule_and_index(draw):
    platform = draw(platforms(max_nodes=5))
    schedule, _ = _steps(platform, draw(st.integers(2, 30)))
    located = [(i, j) for i, step in enumerate(schedule.steps)
               for j in range(len(step.transfers))]
    return schedule, draw(st.sampled_from(located)), draw(st.integers(0, 10**6))


@settings(max_examples=examples(30), deadline=None)
@given(_schedule_and_index())
def test_an_extra_or_rerouted_message_is_rejected(case):
    """Every tree edge carries exactly its weight: one message more on any transfer, a
    transfer moved to another tree, or sent to another node, is rejected."""
    schedule, (i, j), pick = case
    t = schedule.steps[i].transfers[j]

    def changed(new):
        steps = list(schedule.steps)
        transfers = list(steps[i].transfers)
        transfers[j] = new
        steps[i] = Step(steps[i].duration, transfers)
        return _with_steps(schedule, steps)

    assert not verify(None, changed(Transfer(t.tail, t.head, t.tree, t.messages + 1))).ok
    others = [l for l in range(len(schedule.trees)) if l != t.tree]
    if others:
        other = others[pick % len(others)]
        assert not verify(None, changed(Transfer(t.tail, t.head, other, t.messages))).ok
    heads = [v for v in schedule.platform.nodes if v not in (t.tail, t.head)]
    if heads:
        head = heads[pick % len(heads)]
        assert not verify(None, changed(Transfer(t.tail, head, t.tree, t.messages))).ok


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None)
@given(_schedule_and_index())
def test_a_message_moved_to_another_step_is_judged_exactly(case):
    """One message moved from step i to step k on the same link keeps every count, so
    the file stays valid exactly when step k has room for it: the link's messages x cost
    within k's duration, and, if the link is new in k, both its ports free in k.  The
    verifier's verdict is compared with that, computed here."""
    schedule, (i, j), pick = case
    assume(len(schedule.steps) >= 2)
    k = [s for s in range(len(schedule.steps)) if s != i][pick % (len(schedule.steps) - 1)]
    t = schedule.steps[i].transfers[j]
    steps = [list(s.transfers) for s in schedule.steps]
    if t.messages == 1:
        del steps[i][j]
    else:
        steps[i][j] = Transfer(t.tail, t.head, t.tree, t.messages - 1)
    target = schedule.steps[k]
    on_link = sum(u.messages for u in target.transfers if u.arc == t.arc)
    room = (on_link + 1) * schedule.platform.cost(*t.arc) <= target.duration
    ports_free = on_link > 0 or not any(u.tail == t.tail or u.head == t.head
                                        for u in target.transfers)
    steps[k].append(Transfer(t.tail, t.head, t.tree, 1))
    moved = _with_steps(schedule, [Step(s.duration, ts)
                                   for s, ts in zip(schedule.steps, steps)])
    report = verify(None, moved)
    assert report.ok == (room and ports_free), report.violations[:2]
    assert report.ok or report.kinds() <= {"capacity", "one-port"}


@settings(max_examples=examples(20), deadline=None)
@given(platforms(max_nodes=5), st.integers(2, 30))
def test_each_step_is_full_on_its_longest_link(platform, m):
    """Tightening cuts every step to its longest transfer: that link has no room for
    one more message, so moving one there from another step is always rejected."""
    schedule, _ = _steps(platform, m)
    for k, step in enumerate(schedule.steps):
        load: dict = {}
        for u in step.transfers:
            load[u.arc] = load.get(u.arc, 0) + u.messages
        longest = max(load, key=lambda a: load[a] * platform.cost(*a))
        assert load[longest] * platform.cost(*longest) == step.duration
        donor = next(((i, j) for i, s in enumerate(schedule.steps) if i != k
                      for j, u in enumerate(s.transfers) if u.arc == longest), None)
        if donor is None:
            continue
        i, j = donor
        u = schedule.steps[i].transfers[j]
        steps = [list(s.transfers) for s in schedule.steps]
        steps[i][j] = Transfer(u.tail, u.head, u.tree, u.messages - 1)
        if u.messages == 1:
            del steps[i][j]
        steps[k].append(Transfer(u.tail, u.head, u.tree, 1))
        moved = _with_steps(schedule, [Step(s.duration, ts)
                                       for s, ts in zip(schedule.steps, steps)])
        assert "capacity" in verify(None, moved).kinds()


@st.composite
def _counts_and_costs(draw):
    """A bipartite graph of ports: links between 4 senders and 4 receivers with message
    counts and integer costs (what the plans see)."""
    arcs = draw(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("wxyz")),
                         min_size=1, max_size=12, unique=True))
    counts = {arc: draw(st.integers(1, 25)) for arc in arcs}
    cost = {arc: draw(st.integers(1, 12)) for arc in arcs}
    return counts, cost


@settings(max_examples=examples(60), deadline=None)
@given(_counts_and_costs())
def test_every_plan_is_a_valid_step_sequence_and_tightening_never_lengthens(case):
    """Each plan (Theorem 6 rounded, the greedy ones): every step a matching whose
    duration is its longest transfer, every link sending exactly its count; the total
    is at least the largest port load (002 Lemma 6's Δ); tightening keeps all that and
    never makes the total longer; Theorem 6 rounded ends by Δ + |E|·c_max."""
    counts, cost = case
    load: dict = {}
    for (u, v), n in counts.items():
        load[("out", u)] = load.get(("out", u), 0) + n * cost[(u, v)]
        load[("in", v)] = load.get(("in", v), 0) + n * cost[(u, v)]
    plans = [theorem6_plan(counts, cost)]
    for matcher in (by_busier_port, covering_matching):
        for extra in (1, 2):
            plans.append(greedy_plan(counts, cost, matcher, extra))
        plans.append(greedy_plan(counts, cost, matcher, 1, align=True))
    for plan in plans:
        for candidate in (plan, tightened(plan, counts, cost)):
            sent: dict = {}
            for duration, step in candidate:
                assert len({u for u, _ in step}) == len({v for _, v in step}) == len(step)
                assert duration == max(n * cost[arc] for arc, n in step.items())
                for arc, n in step.items():
                    assert n > 0
                    sent[arc] = sent.get(arc, 0) + n
            assert sent == counts
            assert sum(d for d, _ in candidate) >= max(load.values())
        assert sum(d for d, _ in tightened(plan, counts, cost)) <= sum(d for d, _ in plan)
    # Theorem 6 rounded: each of its <= |E| steps lasts at most one message of its
    # slowest link more than its matching's weight (which add up to Δ)
    assert sum(d for d, _ in plans[0]) <= max(load.values()) + len(counts) * max(cost.values())


def test_link_usage_adds_the_weights_of_the_trees_through_each_link():
    trees = [({"A": "S", "B": "A"}, 3), ({"A": "S", "B": "S"}, 2)]
    assert link_usage(trees) == {("S", "A"): 5, ("A", "B"): 3, ("S", "B"): 2}


@settings(max_examples=examples(40), deadline=None)
@given(_counts_and_costs(), st.integers(0, 2000))
def test_a_plan_searched_with_rounded_costs_is_valid_with_the_exact_ones(case, digits):
    """Costs of hundreds of digits are rounded to SEARCH_BITS bits for the greedy
    search: the largest keeps exactly that many bits, none falls to 0, and the plan it
    finds, given exact durations, is a valid plan for the exact costs."""
    counts, small = case
    cost = {arc: c * 10 ** digits + digits for arc, c in small.items()}
    rough = search_costs(cost)
    assert min(rough.values()) >= 1
    if max(cost.values()).bit_length() <= SEARCH_BITS:
        assert rough == cost
    else:
        assert max(rough.values()).bit_length() in (SEARCH_BITS, SEARCH_BITS + 1)
    plan = exact_durations(greedy_plan(counts, rough, covering_matching, 1), cost)
    sent: dict = {}
    for duration, step in tightened(plan, counts, cost):
        assert duration == max(n * cost[arc] for arc, n in step.items())
        assert len({u for u, _ in step}) == len({v for _, v in step}) == len(step)
        for arc, n in step.items():
            sent[arc] = sent.get(arc, 0) + n
    assert sent == counts
