"""The clean-up routed afresh (steady.simulate.rerouted; proofs/finite-horizon.md, "A
clean-up routed afresh" and "The clean-up's grid"): what is in flight when the steady
periods end, the greedy's transfers checked one by one, the same clean-up for every
B >= W up to a shift, and the count for a horizon equal to what the message-level check
delivers -- on the exact unit and on a coarser grid with durations rounded up."""

import math

from dataclasses import replace
from fractions import Fraction

from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st

from helpers import examples

from steady.platform import Link, Platform
from steady.schedule_file import TIMED, Schedule, TimedTransfer, TreeEntry
from steady.simulate.horizon import bound, delivered, phases, transfers_needed
from steady.simulate.plan import check_plan
from steady.simulate.rerouted import grid_unit, in_flight, routed_cleanup, routed_count
from steady.simulate.unroll import (PeriodicPattern, TooManySlots, finite_schedule,
                                    periodic_plan, to_transfers)
from steady.strategies import platforms, schedules
from steady.throughput import throughput

F = Fraction
SMALL = settings(max_examples=examples(25))
EASY_COSTS = st.sampled_from([F(1), F(2), F(1, 2), F(3, 2)])


def detour() -> PeriodicPattern:
    """Ps -> A (cost 1), A -> B (cost 2), Ps -> B (cost 1, in no tree); one tree
    Ps -> A -> B of weight 1, period 3: A -> B at [0, 2), Ps -> A at [2, 3).  B's slot
    comes before A's arrival: lag 1, W = 1."""
    platform = Platform("Ps", [Link("Ps", "A", F(1)), Link("A", "B", F(2)),
                               Link("Ps", "B", F(1))])
    tree = TreeEntry(1, (("Ps", "A"), ("A", "B")))
    transfers = (TimedTransfer("A", "B", 0, 1, F(0)), TimedTransfer("Ps", "A", 0, 1, F(2)))
    schedule = Schedule(platform, F(1, 3), F(3), 1, (tree,), (), {}, None, transfers, TIMED)
    return PeriodicPattern(schedule, "pipelined")


def routed_plan(pattern, batches, unit=None):
    """Warm-up and steady periods, then the clean-up routed afresh (in ``unit`` ticks,
    default its grid): the checked plan."""
    return periodic_plan(pattern, batches, None, routed_cleanup(pattern, batches, unit))


def test_detour_by_hand():
    """One batch: the warm-up sends m0 to A over [0, 1) (I = 1); B lacks m0.  Over the
    tree A sends it over [1, 3) (J = 2); routed afresh, the source's free out-port and
    the cheaper link Ps -> B bring it over [1, 2) (J = 1)."""
    pattern = detour()
    assert pattern.warmup == 1 and pattern.lag == [{"A": 0, "B": 1}]
    assert phases(pattern).init == 1 and phases(pattern).cleanup == 2
    assert in_flight(pattern, 1) == {0: {"B"}}
    cleanup = routed_cleanup(pattern, 1)
    assert cleanup.length == 1
    assert [(u, v, g, F(s, cleanup.unit), F(e, cleanup.unit))
            for u, v, g, s, e in cleanup.events] == [("Ps", "B", 0, 0, 1)]
    plan = routed_plan(pattern, 1)
    assert check_plan(plan) == [] and plan.completion() == [2 * plan.unit]


def test_detour_counts_by_hand():
    """B batches: message b reaches B at I + 3b + 2 in the steady periods (b <= B - 2);
    the last one at E + 1, E = 1 + 3(B - 1).  By K = 30: over the tree, the last
    message needs E + 2 <= 30, B = 10 (E = 28); routed, E + 1 <= 30 still allows
    B = 10, and B = 10 is the most: 10 messages either way, but by K = 29 the tree
    gives 9 (E = 25, B = 9, one more would end at 30) and the routed clean-up 10."""
    pattern = detour()
    lengths = phases(pattern)
    assert routed_count(pattern, lengths, 30) == (10, 10)
    assert delivered(pattern, 30, lengths) == (10, 10)
    assert routed_count(pattern, lengths, 29) == (10, 10)
    assert delivered(pattern, 29, lengths)[0] == 9
    assert routed_plan(pattern, 10).delivered_by(29) == 10


@st.composite
def lagged_cases(draw):
    """A valid timed schedule of a small platform under pipelined forwarding, with a
    warm-up (something is in flight when the steady periods end)."""
    platform = draw(platforms(max_nodes=5, cost=EASY_COSTS))
    schedule = draw(schedules(platform, version=2))
    pattern = PeriodicPattern(schedule, "pipelined")
    assume(pattern.warmup and transfers_needed(pattern, 1) * (pattern.warmup + 4) <= 20_000)
    return pattern


@SMALL
@given(lagged_cases(), st.integers(0, 3))
def test_in_flight_is_what_the_periods_leave(pattern, extra):
    """in_flight(B) is exactly the (message, node) pairs that the warm-up and steady
    periods of the finite schedule have not delivered when the last steady period ends."""
    batches = pattern.warmup + extra
    finite = finite_schedule(pattern, batches)
    transfers = to_transfers(pattern, [r for r in finite.placed if r[0] < batches])
    end = (finite.init_length + finite.steady_periods * pattern.period_time) * pattern.unit
    nodes = pattern.platform.nodes
    held = {(nodes[t.head], t.first) for t in transfers if t.end <= end}
    assert all(t.end <= end for t in transfers)          # every port is free at E
    lacking = {(v, g) for v in nodes if v != pattern.source
               for g in range(batches * pattern.messages) if (v, g) not in held}
    assert lacking == {(v, g) for g, nodes in in_flight(pattern, batches).items()
                       for v in nodes}


@SMALL
@given(lagged_cases(), st.integers(0, 3))
def test_routed_cleanup_is_valid_and_the_same_for_every_b(pattern, extra):
    """Warm-up, steady periods and the routed clean-up pass the message-level checks
    (one-port, causality, shared links, every node gets every message once); the
    clean-up after W + extra batches is the one after W shifted by extra·M messages."""
    w, m = pattern.warmup, pattern.messages
    plan = routed_plan(pattern, w + extra)   # checked message by message when built
    assert check_plan(plan) == [] and plan.broadcasts == (w + extra) * m
    assert None not in plan.completion()
    cleanup = routed_cleanup(pattern, w + extra, shifted=False)   # routed afresh
    template = routed_cleanup(pattern, w)
    # what the plan is built on (the template shifted) is that clean-up
    assert routed_cleanup(pattern, w + extra) == cleanup
    assert cleanup.completion == {g + extra * m: t for g, t in template.completion.items()}
    assert [(u, v, g + extra * m, s, e) for u, v, g, s, e in template.events] \
        == list(cleanup.events)


@SMALL
@given(lagged_cases(), st.fractions(F(1), F(30)))
def test_routed_count_is_what_the_check_delivers(pattern, periods):
    """For a horizon K the count of routed_count is what the plan of its B batches,
    checked message by message, delivers by K, at most K·TP*."""
    k = periods * pattern.period_time
    lengths = phases(pattern)
    found = routed_count(pattern, lengths, k)
    assume(found is not None)
    optimum = throughput(pattern.platform).throughput
    assert routed_plan(pattern, found[1]).delivered_by(k) == found[0] <= bound(optimum, k)


# -- the clean-up's grid ---------------------------------------------------------------

def detour_thirds() -> PeriodicPattern:
    """:func:`detour` with the link Ps -> B (in no tree) at cost 1/3: the period's own
    unit is 1 tick per time unit, the exact clean-up's 3."""
    platform = Platform("Ps", [Link("Ps", "A", F(1)), Link("A", "B", F(2)),
                               Link("Ps", "B", F(1, 3))])
    tree = TreeEntry(1, (("Ps", "A"), ("A", "B")))
    transfers = (TimedTransfer("A", "B", 0, 1, F(0)), TimedTransfer("Ps", "A", 0, 1, F(2)))
    schedule = Schedule(platform, F(1, 3), F(3), 1, (tree,), (), {}, None, transfers, TIMED)
    return PeriodicPattern(schedule, "pipelined")


def test_grid_by_hand():
    """Exact: Ps -> B brings m0 over [0, 1/3).  On the period's own grid (1 tick a time
    unit) it holds the ports for one tick; the plan still checks and delivers m0 at
    I + 1 = 2 instead of I + 1/3.  The default grid keeps the exact unit (3 ticks are
    far below GRID_SLACK / c_min), and a slack of 1 asks for s = ceil(1 / (1·1/3)) = 3
    ticks: the exact unit again."""
    pattern = detour_thirds()
    assert pattern.unit == 1
    assert grid_unit(pattern) == 3 and grid_unit(pattern, slack=1) == 3
    exact = routed_cleanup(pattern, 1)
    assert exact.unit == 3 and exact.events == (("Ps", "B", 0, 0, 1),)
    coarse = routed_cleanup(pattern, 1, unit=1)
    assert coarse.unit == 1 and coarse.events == (("Ps", "B", 0, 0, 1),)
    assert coarse.length == 1 and exact.length == F(1, 3)
    plan = routed_plan(pattern, 1, unit=1)
    assert check_plan(plan) == [] and plan.unit == 1 and plan.completion() == [2]


@st.composite
def gridded_cases(draw):
    """A lagged case (:func:`lagged_cases`) whose links outside the timetable are made
    cheap at costs with denominators 7 or 11 (the timetable, on its own links, stays
    valid): the period's own unit leaves those costs fractional, and the greedy, which
    takes the cheapest link a holder offers, uses them -- its clean-up on that grid (the
    coarsest, s = 1) rounds their durations up."""
    platform = draw(platforms(min_nodes=3, max_nodes=5, density=0.8, cost=EASY_COSTS))
    schedule = draw(schedules(platform, version=2))
    used = {t.arc for t in schedule.transfers}
    cheap = draw(st.sampled_from([F(1, 7), F(3, 7), F(2, 11)]))
    assume(any(link.arc not in used for link in platform.links))
    schedule = replace(schedule, platform=platform.replace_links(
        Link(l.tail, l.head, l.cost if l.arc in used else cheap) for l in platform.links))
    try:
        pattern = PeriodicPattern(schedule, "pipelined")
    except TooManySlots:
        reject()
    assume(pattern.warmup and transfers_needed(pattern, 1) * (pattern.warmup + 4) <= 20_000)
    return pattern


@SMALL
@given(gridded_cases(), st.integers(0, 3), st.fractions(F(1), F(30)))
def test_a_clean_up_on_the_coarse_grid_checks_and_counts(pattern, extra, periods):
    """On the period's own grid (every clean-up transfer starts and ends at a whole tick
    of U_T, holding its ports for its link's cost rounded up): warm-up, steady periods
    and clean-up pass check_plan, the clean-up after W + extra batches is the one after
    W shifted, and the count formula of routed_count is what the plan of its B delivers
    by K."""
    unit, platform = pattern.unit, pattern.platform
    w, m = pattern.warmup, pattern.messages
    cleanup = routed_cleanup(pattern, w + extra, unit, shifted=False)   # afresh
    template = routed_cleanup(pattern, w, unit)
    assert routed_cleanup(pattern, w + extra, unit) == cleanup
    assert all(e - s == math.ceil(platform.cost(u, v) * unit) >= platform.cost(u, v) * unit
               for u, v, _, s, e in cleanup.events)
    # the branch under test: some transfer holds its ports longer than its cost
    assume(any(e - s > platform.cost(u, v) * unit for u, v, _, s, e in template.events))
    plan = routed_plan(pattern, w + extra, unit)   # checked message by message when built
    assert check_plan(plan) == [] and plan.unit == unit and None not in plan.completion()
    assert [(u, v, g + extra * m, s, e) for u, v, g, s, e in template.events] \
        == list(cleanup.events)
    k = periods * pattern.period_time
    found = routed_count(pattern, phases(pattern), k, unit)
    assume(found is not None)
    optimum = throughput(platform).throughput
    assert routed_plan(pattern, found[1], unit).delivered_by(k) == found[0] \
        <= bound(optimum, k)


@SMALL
@given(gridded_cases(), st.sampled_from([1, 10, 1000, 10**6]))
def test_the_grid_is_exact_or_fine_enough(pattern, slack):
    """grid_unit is a multiple of the period's unit; it is the exact unit (every cost
    whole) or one tick is at most the cheapest cost / slack, and never finer than the
    exact unit."""
    platform = pattern.platform
    unit = grid_unit(pattern, slack)
    exact = math.lcm(pattern.unit, *(platform.cost(*a).denominator for a in platform.arcs))
    cheapest = min(platform.cost(*a) for a in platform.arcs)
    assert unit % pattern.unit == 0 and unit <= exact
    assert unit == exact or unit * cheapest >= slack
