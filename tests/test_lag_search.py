"""steady.schedule.lag_search: a timetable searched for shorter pipelined lags, its
period kept (proofs/timed-schedule.md, "Lags searched")."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from steady.generators import mesh_platform, random_platform
from steady.platform import Link, Platform
from steady.schedule.branchings import weighted_branchings
from steady.schedule.counts import cut_counts
from steady.schedule.lag_search import shorter_lags
from steady.schedule.order_search import _placed
from steady.schedule.timed import _document, _merged, timetable, with_shorter_lags
from steady.schedule.tree_order import warmup_periods
from steady.schedule_file import TimedTransfer
from steady.simulate.choose import horizon_plan
from steady.simulate.unroll import PeriodicPattern
from steady.throughput import throughput
from steady.verify import verify

CHAIN = Platform("s", [Link("s", "a", 1), Link("a", "b", 1), Link("b", "c", 1)])
PATH = [({"a": "s", "b": "a", "c": "b"}, 1)]
COST = {("s", "a"): 1, ("a", "b"): 1, ("b", "c"): 1}


def test_a_chain_sent_all_at_once_gets_the_pipelined_order():
    """Every slot at 0 in a period of 3 lags a period per hop (W = 2); the search puts
    them at 0, 1, 2 and nothing lags (W = 0)."""
    at_once = {(0, arc): [[0, 1]] for arc in COST}
    assert warmup_periods("s", PATH, at_once, COST) == 2
    found = shorter_lags("s", PATH, COST, 3, at_once)
    assert found == {(0, ("s", "a")): [[0, 1]], (0, ("a", "b")): [[1, 1]],
                     (0, ("b", "c")): [[2, 1]]}
    assert warmup_periods("s", PATH, found, COST) == 0


def test_the_schedule_keeps_its_period_and_trees_and_loses_its_lags():
    """The same on a version 2 schedule: same period 3, ratio 1/3, and the simulator's
    own warm-up of it is 0; with no lag left to lose, a second search returns None."""
    result = throughput(CHAIN, "trees")
    transfers = [TimedTransfer(u, v, 0, 1, Fraction(0)) for u, v in COST]
    late = _document(CHAIN, PATH, transfers, Fraction(3), result)
    assert PeriodicPattern(late, "pipelined").warmup == 2
    shorter = with_shorter_lags(CHAIN, late, result)
    assert shorter.period == 3 and shorter.trees == late.trees
    assert shorter.extra["ratio"] == Fraction(1, 3)
    assert sorted((t.start, t.arc) for t in shorter.transfers) == \
        [(0, ("s", "a")), (1, ("a", "b")), (2, ("b", "c"))]
    assert verify(CHAIN, shorter).ok
    assert PeriodicPattern(shorter, "pipelined").warmup == 0
    assert with_shorter_lags(CHAIN, shorter, result) is None


def test_a_wait_in_the_placement_holds_back_the_message():
    """``_placed`` with ``after``: a message starts no earlier than the end of the one it
    waits for, even when its ports are free."""
    order = [(("s", "a"), 0), (("x", "y"), 0), (("a", "b"), 0)]
    cost = {("s", "a"): 3, ("x", "y"): 1, ("a", "b"): 2}
    at, end = _placed(order, cost, {(("a", "b"), 0): (("s", "a"), 0)})
    assert at == {(("s", "a"), 0): 0, (("x", "y"), 0): 0, (("a", "b"), 0): 3}
    assert end == 5
    assert _placed(order, cost)[0][(("a", "b"), 0)] == 0   # no wait: at once


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 10_000), st.integers(2, 6))
def test_a_schedule_with_shorter_lags_is_valid_and_lags_less(seed, messages):
    """On counts chosen over the cuts of an 8-node random platform, timed by one greedy
    round: when the search finds shorter lags, the schedule verifies, keeps its trees,
    period and ratio, and the simulator's W of it is smaller."""
    platform = random_platform(8, 0.3, seed=seed)
    counts = cut_counts(platform, messages)
    if counts is None:
        return
    trees = _merged(weighted_branchings(platform, counts, messages))
    transfers, period, _ = timetable(platform, trees, 1)
    result = throughput(platform, "trees")
    schedule = _document(platform, trees, transfers, period, result)
    shorter = with_shorter_lags(platform, schedule, result, effort=2.0)
    if shorter is None:
        return
    assert verify(platform, shorter).ok
    assert (shorter.trees, shorter.period, shorter.throughput) == \
        (schedule.trees, schedule.period, schedule.throughput)
    assert PeriodicPattern(shorter, "pipelined").warmup < \
        PeriodicPattern(schedule, "pipelined").warmup


def test_the_horizon_plan_counts_the_searched_timetable_and_takes_it():
    """An 8-node mesh (seed 3), M = 10, K = 100000: the list schedule's trees lag W = 5
    periods under pipelined forwarding, regrown ones 2 or 3; the timetables of the two
    schedules that deliver the most (both regrown) searched for shorter lags reach
    W = 1 to 3 with the same period and ratio, and one of them delivers the most: the
    plan takes it and says so (measured: 9193 messages, against 9190 for the best
    schedule not searched)."""
    platform = mesh_platform(8, seed=3)
    plan = horizon_plan(platform, throughput(platform), 100000, ladder=(10,))
    piped = [c for c in plan.candidates if c.forwarding == "pipelined"]
    searched = [c for c in piped if c.lags_searched]
    others = [c for c in piped if not c.lags_searched]
    assert min(c.warmup_periods for c in searched) < min(c.warmup_periods for c in others)
    assert {(c.period, c.ratio) for c in searched} == {(c.period, c.ratio) for c in others}
    assert plan.candidate.delivered > max(c.delivered for c in others)
    assert plan.candidate.lags_searched and plan.to_dict()["lags_searched"] is True
    assert verify(platform, plan.schedule).ok
