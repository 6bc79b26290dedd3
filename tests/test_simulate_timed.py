"""Finite horizons of timed (version 2) schedules (002 §5.5, Lemma 7): the unrolling of a
timetable under the period rule and under pipelined forwarding, the lags, delivered(K)
against K·TP* (TP* the optimum), the v1 -> v2 conversion, and the choice of a short
timed schedule for a horizon (proofs/finite-horizon.md)."""

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from helpers import late_schedule

from steady import default_platform
from steady.platform import Link, Platform
from steady.schedule.periodic import optimal_schedule
from steady.schedule_file import (TIMED, PriceCertificate, Schedule, TimedTransfer,
                                  TreeEntry, timed)
from steady.schedule.timed import searched_again
from steady.simulate.choose import SEARCHED_AGAIN, _worth_searching, horizon_plan
from steady.simulate.engine import simulate, transfers_needed
from steady.simulate.rerouted import routed_count
from steady.simulate.horizon import (bound, completion_times, delivered, horizon_report,
                                     phases, steady_count, whole_batches)
from steady.simulate.unroll import FORWARDING, PeriodicPattern, finite_schedule, hop_lag
from steady.strategies import platforms, schedules
from steady.throughput import throughput
from steady.verify import verify

F = Fraction
SMALL = settings(max_examples=30, deadline=None)
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
    report = horizon_report(schedule, 30, forwarding="pipelined")
    # Lemma 7's bound is K·TP* = 30 (the certificate's optimum 1), not K·TP = 10
    assert (report.delivered, report.bound, report.ratio) == (10, 30, F(1, 3))
    assert report.optimum == 1 and report.optimum_source == "certificate"
    assert report.simulated and not report.violations


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
            sim = simulate(pattern, batches)
            assert sim.ok, sim.violations[:3]
            assert sim.delivered_by(k) >= count


@SMALL
@given(timed_cases(), st.integers(1, 4))
def test_periods_deliver_what_the_counts_promise(case, extra):
    """A timed schedule run over R = W + extra batches: every node receives every
    message exactly once, one-port and causal (checked message by message), and in the
    steady periods one batch of M messages completes exactly every period T: M/T = TP."""
    schedule, pattern = case
    w, m = pattern.warmup, pattern.messages
    batches = w + extra + 1
    sim = simulate(pattern, batches)
    assert sim.ok, sim.violations[:3]
    assert len(sim.completion) == batches * m
    # the makespan is the last delivery, not the end of the last period's time line
    assert sim.makespan == finite_schedule(pattern, batches).makespan
    done = [max(sim.completion[b * m:(b + 1) * m]) for b in range(batches)]
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
        assert simulate(a, batches).completion == simulate(b, batches).completion
    k = (a.warmup + 3) * v1.period
    assert delivered(a, k) == delivered(b, k)


# -- choosing a short timed schedule ------------------------------------------------------

def test_horizon_plan_on_figure1_takes_the_exact_optimum():
    """Figure 1's optimum fits in 2 messages per period: for K = 100 the plan is that
    schedule (ratio 1), 96 messages (I = 4, J = 5/2)."""
    platform = default_platform()
    plan = horizon_plan(platform, throughput(platform, "trees"), 100, forwarding=("period",))
    c = plan.candidate
    assert (c.messages_per_period, c.ratio, c.delivered) == (2, 1, 96)
    assert plan.schedule.version == TIMED and verify(platform, plan.schedule).ok
    assert all(x.delivered <= 100 for x in plan.candidates)
    assert c.delivered == max(x.delivered for x in plan.candidates)


@settings(max_examples=10, deadline=None)
@given(platforms(min_nodes=3, max_nodes=6, cost=EASY_COSTS), st.integers(20, 400))
def test_horizon_plan_is_the_best_candidate_and_verified(platform, horizon):
    """The plan delivers the most among its candidates, at most K·TP*, its schedule
    passes the verifier with a certified ratio <= 1, and its report agrees."""
    result = throughput(platform, "trees")
    plan = horizon_plan(platform, result, horizon, ladder=(1, 2, 5))
    report = verify(platform, plan.schedule)
    assert report.ok and report.ratio == plan.candidate.ratio <= 1
    best = plan.candidate.delivered
    assert best <= bound(result.throughput, horizon)
    if plan.candidate.routed_cleanup:   # the same periods, the clean-up off the trees
        assert best == routed_count(plan.pattern, plan.lengths, horizon)[0]
    else:
        assert best == delivered(plan.pattern, horizon, plan.lengths)[0]
    assert all(c.delivered <= best for c in plan.candidates)
    assert whole_batches(plan.pattern, horizon, plan.lengths) * plan.pattern.messages <= best


def test_worth_searching_again_picks_the_late_timetables_that_could_win():
    """A timetable 4.8 % above its largest port load is searched again when its count
    scaled by period / load beats the best count, not when it cannot; one at that load
    never; the most promising first, at most SEARCHED_AGAIN."""
    platform, result, late, load = late_schedule(39, 5)
    scale = late.period / load
    assert scale > 1
    at_load = searched_again(platform, late, result)
    assert at_load.period == load
    count = 1000
    best = int(count * scale)          # below count·scale: worth it
    assert _worth_searching([(5, late, count)], [[best]], platform) == [(5, late)]
    assert _worth_searching([(5, late, count)], [[best + 1]], platform) == []
    assert _worth_searching([(5, at_load, 2 * best)], [[best]], platform) == []
    built = [(5, late, count), (6, late, count + 2), (7, late, count + 1), (8, late, count)]
    assert SEARCHED_AGAIN == 2
    assert _worth_searching(built, [[count]], platform) == [(6, late), (7, late)]


def test_huge_v1_periods_refuse_pipelined_lags():
    """Pipelined lags read every slot of a period: a period of 10^40 messages is refused
    (the period rule still unrolls it instantly, tests/test_simulate.py)."""
    from test_simulate import _scaled_figure1

    k = 10 ** 20
    schedule = Schedule(default_platform(), F(1), F(2 * k), 2 * k, *_scaled_figure1(k))
    with pytest.raises(ValueError, match="pipelined"):
        PeriodicPattern(schedule, "pipelined")
    assert PeriodicPattern(schedule).warmup == 2
