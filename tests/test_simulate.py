"""Finite horizons (002 §5.5): the unrolling of a periodic schedule into warm-up, steady
periods and clean-up as a plan, the plan's message-level check, steady(G, K) against
Lemma 7's K·TP (Theorem 7), and the 002 Figure 2 schedule."""

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings

from helpers import examples
from hypothesis import strategies as st

from steady import default_platform
from steady.schedule.periodic import optimal_schedule
from steady.schedule_file import Schedule, Step, Transfer, TreeEntry
from steady.simulate.choose import message_transfers, schedule_choice
from steady.simulate.horizon import bound, phases, steady_count, transfers_needed
from steady.simulate.plan import Plan, check_plan
from steady.simulate.unroll import (PeriodicPattern, finite_schedule, periodic_plan,
                                    synchronous, to_transfers)
from steady.strategies import platforms
from steady.throughput import throughput
from steady.verify import verify

F = Fraction
SMALL = settings(max_examples=examples(30))
EASY_COSTS = st.sampled_from([F(1), F(2), F(1, 2), F(3, 2)])


def optimal(platform) -> Schedule:
    return optimal_schedule(platform, throughput(platform, "trees"))[0]


def figure1_pattern() -> PeriodicPattern:
    return PeriodicPattern(optimal(default_platform()))


def unchecked(pattern, placed, broadcasts) -> Plan:
    """Placed runs as a plan, without the postcondition (to see what the check says)."""
    transfers = tuple(t._replace(id=i) for i, t in enumerate(to_transfers(pattern, placed)))
    nodes = tuple(pattern.platform.nodes)
    return Plan("test", nodes, nodes.index(pattern.source), broadcasts, pattern.unit,
                transfers, max((t.end for t in transfers), default=0), {},
                pattern.platform)


def completion(plan) -> list:
    return [F(c, plan.unit) for c in plan.completion()]


@st.composite
def small_schedules(draw):
    """Optimal schedules of small platforms whose unrolling stays small."""
    platform = draw(platforms(max_nodes=5, cost=EASY_COSTS))
    pattern = PeriodicPattern(optimal(platform))
    assume(transfers_needed(pattern, 1) * (pattern.warmup + 4) <= 20_000)
    return pattern


# -- 002 Figure 1 / Figure 2, by hand --------------------------------------------------

def test_figure1_phase_lengths_by_hand():
    """Trees A = Ps->P1->{P2->P4, P3} and B = Ps->P2->{P1->P3, P4}, weight 1, period 2,
    height 3 (W = 2 warm-up periods).  Warm-up: nothing can move earlier (the source
    is busy every step), I = 4.  Clean-up from 4, worked by hand: P1->P2 A1 [4,5],
    P2->P4 A0 [4,4.5], B1 [4.5,5], P1->P3 A1 [5,5.5], B0 [5.5,6], P2->P1 B1 [5,6],
    P2->P4 A1 [6,6.5], P1->P3 B1 [6,6.5]: J = 5/2 (the pipelined clean-up takes 4).
    The paper's sequential routing: I = sum λ c (H - depth(v)) = 7/2 + 7/2,
    J = sum λ c depth(u) = 5/2 + 5/2."""
    p = phases(figure1_pattern())
    assert (p.warmup_periods, p.period, p.messages_per_period) == (2, 2, 2)
    assert (p.init, p.cleanup, p.pipelined) == (4, F(5, 2), 4)
    assert (p.paper_init, p.paper_cleanup) == (7, 5)


def test_figure1_steady_counts():
    """steady(G, K) = 2·(2 + floor((K - 13/2) / 2)) from K = 13/2 on; before, the most
    whole batches finishing by K (one batch, both messages, ends at 4)."""
    pattern = figure1_pattern()
    expected = {1: 0, 3: 0, 4: 2, 6: 2, F(13, 2): 4, 8: 4, F(17, 2): 6, 100: 96}
    for k, n in expected.items():
        assert steady_count(pattern, k) == n, k


def figure2_as_printed() -> Schedule:
    """002 Figure 2 as printed: odd steps Ps->P1, P2->P1, P1->P3 (two messages), even
    steps Ps->P2, P1->P2, P2->P4 (two messages)."""
    a = TreeEntry(1, (("Ps", "P1"), ("P1", "P2"), ("P1", "P3"), ("P2", "P4")))
    b = TreeEntry(1, (("Ps", "P2"), ("P2", "P1"), ("P1", "P3"), ("P2", "P4")))
    odd = Step(F(1), (Transfer("Ps", "P1", 0, 1), Transfer("P2", "P1", 1, 1),
                      Transfer("P1", "P3", 0, 1), Transfer("P1", "P3", 1, 1)))
    even = Step(F(1), (Transfer("Ps", "P2", 1, 1), Transfer("P1", "P2", 0, 1),
                       Transfer("P2", "P4", 0, 1), Transfer("P2", "P4", 1, 1)))
    return Schedule(default_platform(), F(1), F(2), 2, (a, b), (odd, even))


def test_figure2_as_printed_breaks_one_port_reception():
    """Read literally, Figure 2 has P1 receive from Ps and from P2 in the same odd
    step, and P2 from Ps and from P1 in the same even step (the text says so too:
    "Every even-numbered time-step, P1 forwards to P2" while Ps sends to P2).  Both
    the verifier and the simulator reject it."""
    printed = figure2_as_printed()
    report = verify(None, printed)
    assert not report.ok
    assert any("P1" in str(v) for v in report.violations)
    pattern = PeriodicPattern(printed)
    found = check_plan(unchecked(pattern, finite_schedule(pattern, 4).placed, 8))
    assert any(v.startswith("P1 receives transfer") for v in found)
    assert any(v.startswith("P2 receives transfer") for v in found)
    with pytest.raises(AssertionError, match="postcondition"):
        periodic_plan(pattern, 4)


def test_figure2_repaired_reaches_throughput_one_after_warm_up():
    """Swapping the two forwarding links P1->P2 and P2->P1 between the steps repairs
    Figure 2; that is the schedule steady builds.  After the warm-up, one message
    reaches every node per time unit (two per period of 2)."""
    schedule = optimal(default_platform())
    assert verify(None, schedule).ok
    pattern = PeriodicPattern(schedule)
    plan = periodic_plan(pattern, 20)
    done = sorted(completion(plan))
    # batch b is messages 2b, 2b+1; in the steady part batches complete 2 apart
    gaps = {done[2 * b + 3] - done[2 * b + 1] for b in range(2, 16)}
    assert gaps == {2}
    assert plan.delivered_by(30) - plan.delivered_by(20) == 10   # one per time unit


# -- properties ------------------------------------------------------------------------

@SMALL
@given(small_schedules(), st.integers(1, 4))
def test_simulation_is_one_port_causal_and_complete(pattern, extra):
    """Every node receives every message exactly once, never two at once, never
    forwards one it does not hold (the simulator's checks), for warm-up only, one
    steady period and several."""
    for batches in {1, max(pattern.warmup, 1), pattern.warmup + extra}:
        plan = periodic_plan(pattern, batches)
        assert check_plan(plan) == []
        assert None not in plan.completion()
        assert plan.broadcasts == batches * pattern.messages
        assert plan.makespan_time == finite_schedule(pattern, batches).makespan


@SMALL
@given(small_schedules())
def test_simulated_throughput_is_tp_exactly(pattern):
    """Over the steady periods each batch completes exactly one period after the
    previous one: M messages per period T, i.e. TP (002 §5.4.2)."""
    w = pattern.warmup
    batches = w + 4
    times = completion(periodic_plan(pattern, batches))
    m = pattern.messages
    done = [max(times[b * m:(b + 1) * m]) for b in range(batches)]
    steady = [done[b + 1] - done[b] for b in range(batches - w - 1)]
    assert set(steady) == {pattern.period_time}
    assert F(m) / pattern.period_time == pattern.throughput


@SMALL
@given(small_schedules())
def test_phases_add_up(pattern):
    """makespan(B) = I + (B - W)·T + J for B >= W; our I and J never exceed the
    pipelined W·T (as soon as possible never starts a transfer later)."""
    p = phases(pattern)
    for batches in (p.warmup_periods or 1, p.warmup_periods + 3):
        f = finite_schedule(pattern, batches)
        assert f.makespan == p.init + f.steady_periods * p.period + p.cleanup
    assert p.init <= p.pipelined and p.cleanup <= p.pipelined


@SMALL
@given(small_schedules(), st.lists(st.fractions(F(1, 10), 60), min_size=2, max_size=8))
def test_steady_count_is_monotone_bounded_and_delivered(pattern, horizons):
    """steady(G, K) is non-decreasing in K, at most K·TP (Lemma 7: no schedule can do
    better), and the simulation delivers all those messages by K."""
    scale = pattern.period_time
    ks = sorted(h * scale for h in horizons)
    counts = [steady_count(pattern, k) for k in ks]
    assert counts == sorted(counts)
    tp = pattern.throughput
    for k, n in zip(ks, counts):
        assert n <= bound(tp, k)
    k, n = ks[-1], counts[-1]
    assume(n and transfers_needed(pattern, n // pattern.messages) <= 20_000)
    assert periodic_plan(pattern, n // pattern.messages).delivered_by(k) == n


@SMALL
@given(small_schedules())
def test_theorem7_ratio_reaches_nine_tenths(pattern):
    """Theorem 7: steady(G, K) >= (K - I - J - T)·TP, so the ratio to Lemma 7's bound
    is >= 0.9 from K = 10·(I + J + T) on (the horizon this test states)."""
    p = phases(pattern)
    tp = pattern.throughput
    k = 10 * (p.init + p.cleanup + p.period)
    for horizon in (k, 2 * k, 7 * k + F(1, 3)):
        ratio = F(steady_count(pattern, horizon)) / bound(tp, horizon)
        assert F(9, 10) <= ratio <= 1


# -- the plan's own check can fail ----------------------------------------------------

def test_the_check_detects_forwarding_before_receiving():
    pattern = figure1_pattern()
    placed = synchronous(pattern, range(4), 4)  # no warm-up: skips nothing, but ...
    # ... every transfer of the source two time units later: forwards come too early
    moved = [r if r[1].tail != "Ps" else r[:5] + (r[5] + 2 * pattern.unit,
                                                  r[6] + 2 * pattern.unit) for r in placed]
    found = check_plan(unchecked(pattern, moved, 4 * pattern.messages))
    assert any("before it has received it" in v for v in found)


def test_the_check_detects_a_missing_message():
    pattern = figure1_pattern()
    f = finite_schedule(pattern, 3)
    assert check_plan(unchecked(pattern, f.placed, f.messages)) == []
    assert check_plan(unchecked(pattern, f.placed[1:], f.messages)) != []


def test_huge_periods_are_counted_exactly_not_unrolled():
    """Periods of 10^40 time units: the count is exact and instant, and the plan would
    need more transfers than any budget (the report then says so)."""
    k = 5 * 10**39  # Figure 1 with every count times k: I = 4k, J = 5k/2, T = M = 2k
    schedule = Schedule(default_platform(), F(1), F(2 * k), 2 * k, *_scaled_figure1(k))
    choice = schedule_choice(schedule, 10**42, F(1))
    best = choice.best
    assert best.delivered == (2 + 96) * 10**40   # 2 + floor((10^42 - 13k/2) / 2k)
    assert best.delivered <= bound(F(1), 10**42)
    assert message_transfers(best, 10**42, F(1)) > 10**40


def _scaled_figure1(k):
    base = optimal(default_platform())
    trees = tuple(TreeEntry(t.weight * k, t.edges) for t in base.trees)
    steps = tuple(Step(s.duration * k, tuple(Transfer(t.tail, t.head, t.tree, t.messages * k)
                                             for t in s.transfers)) for s in base.steps)
    return trees, steps
