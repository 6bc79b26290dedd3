"""Finite horizons of timed (version 2) schedules (002 §5.5, Lemma 7): the unrolling of a
timetable under the period rule and under pipelined forwarding, the lags, delivered(K)
against K·TP* (TP* the optimum), the v1 -> v2 conversion, and the choice of a short
timed schedule for a horizon (proofs/finite-horizon.md)."""

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import default_platform
from steady.platform import Link, Platform
from steady.schedule.effort import FAST
from steady.schedule.periodic import optimal_schedule
from steady.schedule.timetable import hop_lag
from steady.schedule_file import (TIMED, PriceCertificate, Schedule, TimedTransfer,
                                  TreeEntry, timed)
from steady.simulate.choose import horizon_choice, schedule_choice
from steady.simulate.rerouted import routed_bound, routed_count
from steady.simulate.horizon import (bound, completion_times, delivered, phases,
                                     steady_count, transfers_needed, whole_batches)
from steady.simulate.plan import check_plan
from steady.simulate.unroll import FORWARDING, PeriodicPattern, finite_schedule, \
    periodic_plan
from steady.strategies import platforms, schedules
from steady.throughput import throughput
from steady.verify import verify

F = Fraction
SMALL = settings(max_examples=examples(25))


def times(plan) -> list:
    return [F(c, plan.unit) for c in plan.completion()]
EASY_COSTS = st.sampled_from([F(1), F(2), F(1, 2), F(3, 2)])


def chain3(starts=(0, 1, 2), period=3) -> Schedule:
    """Ps -> P1 -> P2 -> P3, every cost 1, one tree of weight 1, one transfer per link
    starting at ``starts``: the throughput 1/period of an optimum 1 (certified by the
    out-price 1 of Ps: every arborescence uses Ps -> P1)."""
    platform = Platform("Ps", [Link("Ps", "P1", F(1)), Link("P1", "P2", F(1)),
                               Link("P2", "P3", F(1))])
    tree = TreeEntry(1, (("Ps", "P1"), ("P1", "P2"), ("P2", "P3")))
    transfers = tuple(TimedTransfer(u, v, 0, 1, F(s))
                      for (u, v), s in zip(tree.edges, starts))
    cert = PriceCertificate({"Ps": F(1)}, {})
    return Schedule(platform, F(1, period), F(period), 1, (tree,), (), {}, cert,
                    transfers, TIMED)


# -- by hand ----------------------------------------------------------------------------

def test_hop_lag_by_hand():
    # arrivals 1 and 2, slots at 0 and 5: slot 0 needs the previous period's (c >= 1),
    # slot 1 can take the first arrival: c = 1
    assert hop_lag([1, 2], [0, 5]) == 1
    assert hop_lag([1, 2], [1, 2]) == 0          # each slot right after its message
    assert hop_lag([3, 4], [0, 1]) == 2          # everything from the previous period
    assert hop_lag([1], [1]) == 0 and hop_lag([2], [1]) == 1


def test_chain_staggered_timetable_by_hand():
    """Transfers at 0, 1, 2 of a period 3: a message crosses the chain inside its
    period.  Pipelined: no lag, W = 0, message b done at 3b + 3, so 10 by K = 30.
    Period rule: lags 1 and 2 (W = 2); warm-up as soon as possible: period 0 sends m0
    to P1 [0,1], period 1 m1 to P1 [1,2] and m0 to P2 [1,2]: I = 2; the clean-up
    forwards m(B-1) to P2 and m(B-2) to P3 at once, then m(B-1) to P3: J = 2, so
    makespan(B) = 3B - 2 and B*(30) = 10; one batch more ends at 31 but delivers m9 at
    30: still 10."""
    schedule = chain3()
    assert verify(None, schedule).ok
    fast, slow = PeriodicPattern(schedule, "pipelined"), PeriodicPattern(schedule)
    assert fast.lag == [{"P1": 0, "P2": 0, "P3": 0}] and fast.warmup == 0
    assert slow.lag == [{"P1": 0, "P2": 1, "P3": 2}] and slow.warmup == 2
    p = phases(slow)
    assert (p.init, p.cleanup, p.warmup_periods) == (2, 2, 2)
    assert [finite_schedule(slow, b).makespan for b in (2, 5, 10)] == [4, 13, 28]
    assert completion_times(fast, 3, 0) == [3, 6, 9]
    assert delivered(fast, 30) == (10, 10) and delivered(slow, 30)[0] == 10
    assert delivered(fast, 29) == (9, 9)
    choice = schedule_choice(schedule, 30, F(1), "pipelined")
    # Lemma 7's bound is K·TP* = 30 (the certificate's optimum 1), not K·TP = 10
    assert (choice.best.delivered, bound(F(1), 30)) == (10, 30)
    plan = choice.best.plan(30, F(1))
    assert plan.delivered_by(30) == 10 and check_plan(plan) == []


def test_chain_reversed_timetable_lags_a_period_per_hop():
    """Transfers at 2, 1, 0: each hop must wait for the next period: the pipelined lags
    are the period rule's."""
    schedule = chain3(starts=(2, 1, 0))
    assert verify(None, schedule).ok
    assert PeriodicPattern(schedule, "pipelined").lag == PeriodicPattern(schedule).lag


def test_figure1_timed_equals_its_steps():
    """The timed form of the optimal Figure 1 schedule unrolls exactly like its steps:
    I = 4, J = 5/2 (tests/test_simulate.py), 96 messages by K = 100."""
    v1 = optimal_schedule(default_platform(), throughput(default_platform(), "trees"))[0]
    for schedule in (v1, timed(v1)):
        p = phases(PeriodicPattern(schedule))
        assert (p.init, p.cleanup) == (4, F(5, 2))
        assert steady_count(PeriodicPattern(schedule), 100) == 96


# -- properties -------------------------------------------------------------------------

@st.composite
def timed_cases(draw):
    """A valid timed schedule of a small platform (not optimal: no certificate) and a
    forwarding rule, its unrolling small enough to simulate."""
    platform = draw(platforms(max_nodes=5, cost=EASY_COSTS))
    schedule = draw(schedules(platform, version=2))
    rule = draw(st.sampled_from(FORWARDING))
    pattern = PeriodicPattern(schedule, rule)
    assume(transfers_needed(pattern, 1) * (pattern.warmup + 5) <= 20_000)
    return schedule, pattern


@SMALL
@given(timed_cases(), st.lists(st.fractions(F(1, 10), 40), min_size=1, max_size=4))
def test_lemma7_delivered_never_exceeds_k_tp_star(case, horizons):
    """Lemma 7: whatever the schedule and rule, delivered(K) <= K·TP* (TP* the exact
    optimum of the platform), and the message-level simulation delivers every counted
    message by K; the ratio to K·TP* is at most 1 even for this non-optimal schedule."""
    schedule, pattern = case
    optimum = throughput(schedule.platform).throughput
    for h in horizons:
        k = h * schedule.period
        count, batches = delivered(pattern, k)
        assert count <= bound(optimum, k)
        assert count >= steady_count(pattern, k)
        if batches and transfers_needed(pattern, batches) <= 20_000:
            assert periodic_plan(pattern, batches).delivered_by(k) >= count


@SMALL
@given(timed_cases(), st.integers(1, 4))
def test_periods_deliver_what_the_counts_promise(case, extra):
    """A timed schedule run over R = W + extra batches: every node receives every
    message exactly once, one-port and causal (checked message by message), and in the
    steady periods one batch of M messages completes exactly every period T: M/T = TP."""
    schedule, pattern = case
    w, m = pattern.warmup, pattern.messages
    batches = w + extra + 1
    plan = periodic_plan(pattern, batches)
    assert check_plan(plan) == [] and plan.broadcasts == batches * m
    # the makespan is the last delivery, not the end of the last period's time line
    assert plan.makespan_time == finite_schedule(pattern, batches).makespan
    completion = times(plan)
    done = [max(completion[b * m:(b + 1) * m]) for b in range(batches)]
    # batches 0 .. B-1-W complete in steady periods (batch b by period b + W)
    assert {done[b + 1] - done[b] for b in range(batches - w - 1)} == {schedule.period}


@SMALL
@given(timed_cases())
def test_phases_add_up_and_pipelined_lags_are_no_longer(case):
    """makespan(B) = I + (B - W)·T + J for B >= W > 0 (without a warm-up there is no
    clean-up: the last delivery is inside the last period), I and J at most W·T; the
    pipelined lags never exceed the period rule's (a hop lags at most one period)."""
    schedule, pattern = case
    p = phases(pattern)
    for batches in (p.warmup_periods or 1, p.warmup_periods + 3):
        f = finite_schedule(pattern, batches)
        whole = p.init + f.steady_periods * p.period + p.cleanup
        if p.warmup_periods:
            assert f.makespan == whole
        else:
            assert whole - p.period < f.makespan <= whole
    assert p.init <= p.pipelined and p.cleanup <= p.pipelined
    period_rule = PeriodicPattern(schedule, "period")
    for fast, slow in zip(PeriodicPattern(schedule, "pipelined").lag, period_rule.lag):
        assert all(fast[v] <= slow[v] for v in slow)


@SMALL
@given(st.data())
def test_v1_and_its_timed_form_deliver_the_same(data):
    """The v1 -> v2 conversion (proofs/timed-schedule.md (c)) keeps every transfer's
    start, so both forms unroll to the same phases, makespans and deliveries."""
    platform = data.draw(platforms(max_nodes=5, cost=EASY_COSTS))
    v1 = data.draw(schedules(platform, version=1))
    rule = data.draw(st.sampled_from(FORWARDING))
    a, b = PeriodicPattern(v1, rule), PeriodicPattern(timed(v1), rule)
    assume(transfers_needed(a, 1) * (a.warmup + 4) <= 20_000)
    assert a.lag == b.lag and phases(a) == phases(b)
    for batches in (1, a.warmup + 2):
        assert finite_schedule(a, batches).makespan == finite_schedule(b, batches).makespan
        assert times(periodic_plan(a, batches)) == times(periodic_plan(b, batches))
    k = (a.warmup + 3) * v1.period
    assert delivered(a, k) == delivered(b, k)


# -- choosing a short timed schedule ------------------------------------------------------

def test_the_choice_on_figure1_takes_the_exact_optimum():
    """Figure 1's optimum fits in 2 messages per period: for K = 100 the choice is that
    schedule (ratio 1), 96 messages over the trees (I = 4, J = 5/2), 98 with the
    clean-up routed afresh."""
    platform = default_platform()
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, 100, FAST.but(ladder=(1, 2, 5)))
    best = choice.best
    assert (best.table.messages, best.ratio, best.delivered) == (2, 1, 98)
    assert best.routed_cleanup
    assert max(c.delivered for c in choice.candidates if not c.routed_cleanup) == 96
    assert verify(platform, best.table.schedule(result)).ok
    assert all(x.delivered <= 100 for x in choice.candidates)


@settings(max_examples=examples(10))
@given(platforms(min_nodes=3, max_nodes=6, cost=EASY_COSTS), st.integers(20, 400))
def test_the_choice_is_the_best_candidate_and_its_plan_delivers_it(platform, horizon):
    """The choice delivers the most among its candidates, at most K·TP*, its timetable
    passes the verifier with a certified ratio <= 1, and its plan (checked message by
    message) delivers exactly what was counted."""
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, horizon, FAST.but(ladder=(1, 2, 5),
                                                                list_run=True))
    best = choice.best
    report = verify(platform, best.table.schedule(result))
    assert report.ok and report.ratio == best.ratio <= 1
    assert best.delivered <= bound(result.throughput, horizon)
    assert all(c.delivered <= best.delivered for c in choice.candidates)
    if best.routed_cleanup:   # the same periods, the clean-up off the trees
        assert best.delivered == routed_count(best.pattern, best.phases, horizon)[0]
    elif best.pattern is not None:
        assert best.delivered == delivered(best.pattern, horizon, best.phases)[0]
        assert (whole_batches(best.pattern, horizon, best.phases) * best.pattern.messages
                <= best.delivered)
    plan = best.plan(horizon, result.throughput)
    assert check_plan(plan) == [] and plan.delivered_by(horizon) == best.delivered


@settings(max_examples=examples(15))
@given(platforms(min_nodes=3, max_nodes=6, cost=EASY_COSTS), st.integers(1, 6),
       st.integers(20, 400))
def test_the_routed_bound_is_never_below_the_routed_count(platform, m, horizon):
    """routed_bound (what the chooser skips a routing by) is at least what routing the
    clean-up counts, whatever the timetable and horizon: skipping a candidate whose
    bound is below a count in hand never loses the best."""
    from steady.schedule.timed import timed_timetable

    result = throughput(platform, "trees")
    table, _ = timed_timetable(platform, result, m, FAST)
    pattern = PeriodicPattern(table, "pipelined")
    lengths = phases(pattern)
    routed = routed_count(pattern, lengths, horizon)
    assume(routed is not None)
    assert routed[0] <= routed_bound(pattern, lengths, horizon)


def test_huge_v1_periods_refuse_pipelined_lags():
    """Pipelined lags read every slot of a period: a period of 10^40 messages is refused
    (the period rule still unrolls it instantly, tests/test_simulate.py)."""
    from test_simulate import _scaled_figure1

    k = 10 ** 20
    schedule = Schedule(default_platform(), F(1), F(2 * k), 2 * k, *_scaled_figure1(k))
    with pytest.raises(ValueError, match="pipelined"):
        PeriodicPattern(schedule, "pipelined")
    assert PeriodicPattern(schedule).warmup == 2
