"""A plan moved onto a coarse time grid (steady.simulate.plan_grid; proofs/finite-horizon.md,
"A plan on a coarse grid"): any plan, on any grid coarser than its unit, passes
check_plan, never plans a transfer shorter than its cost, keeps the order of the starts
and stretches every time by at most 1 + ε plus two ticks; the chooser's plan keeps its
count."""

from dataclasses import replace
from fractions import Fraction

import pytest

from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st

from helpers import examples

from steady.platform import Link, Platform
from steady.simulate.choose import horizon_choice
from steady.simulate.horizon import transfers_needed
from steady.simulate.plan import check_plan
from steady.simulate.plan_grid import SHORTEST_TICKS, grid_for, on_grid, on_grid_keeping, \
    scaled_up
from steady.simulate.rerouted import routed_cleanup
from steady.simulate.unroll import FORWARDING, PIPELINED, PeriodicPattern, TooManySlots, \
    periodic_plan
from steady.strategies import platforms, schedules
from steady.throughput import throughput

F = Fraction
SMALL = settings(max_examples=examples(25))
ODD_COSTS = st.sampled_from([F(1), F(2), F(1, 2), F(2, 3), F(3, 5), F(5, 7)])


@st.composite
def plans(draw):
    """A checked plan of a small platform: a timetable unrolled under either rule over
    1 to 4 batches beyond its warm-up, its clean-up on the trees or (pipelined) routed
    afresh; its unit above 1, so that coarser grids exist."""
    platform = draw(platforms(max_nodes=5, cost=ODD_COSTS))
    schedule = draw(schedules(platform, version=2))
    try:
        pattern = PeriodicPattern(schedule, draw(st.sampled_from(FORWARDING)))
    except TooManySlots:
        reject()
    batches = pattern.warmup + draw(st.integers(1, 4))
    assume(transfers_needed(pattern, 1) * (batches + pattern.warmup) <= 20_000)
    routed = (pattern.forwarding == PIPELINED and pattern.warmup > 0
              and draw(st.booleans()))
    cleanup = routed_cleanup(pattern, batches) if routed else None
    plan = periodic_plan(pattern, batches, None, cleanup)
    assume(plan.unit > 1)
    return plan


@SMALL
@given(plans(), st.data())
def test_any_plan_on_a_coarser_grid_is_valid_and_slightly_later(plan, data):
    grid = data.draw(st.integers(1, plan.unit - 1), label="grid")
    coarse = on_grid(plan, grid)
    assert coarse.unit == grid and check_plan(coarse) == []
    shortest = F(min(t.duration for t in plan.transfers), plan.unit)
    stretch = 1 + 2 / (grid * shortest)
    for t, c in zip(plan.transfers, coarse.transfers):
        assert (c.tail, c.head, c.first, c.count, c.tree) == (t.tail, t.head, t.first,
                                                              t.count, t.tree)
        # never shorter than planned (so than the cost), at most one tick longer
        assert F(t.duration, plan.unit) <= F(c.duration, grid) \
            < F(t.duration, plan.unit) + F(1, grid)
        # later by at most the stretch plus two ticks
        assert F(t.release, plan.unit) * stretch <= F(c.release, grid) \
            < F(t.release, plan.unit) * stretch + F(1, grid)
        assert F(c.end, grid) < F(t.end, plan.unit) * stretch + F(2, grid)
    order = sorted(range(len(plan.transfers)), key=lambda i: plan.transfers[i].release)
    assert all(coarse.transfers[i].release <= coarse.transfers[j].release
               for i, j in zip(order, order[1:]))
    k = data.draw(st.fractions(0, F(plan.makespan, plan.unit)), label="horizon")
    assert coarse.delivered_by(k) <= plan.delivered_by(k)
    kept = on_grid_keeping(plan, k, grid)
    assert kept.delivered_by(k) == plan.delivered_by(k)
    assert kept is plan or kept.unit == grid


@SMALL
@given(plans())
def test_the_default_grid_is_a_power_of_ten_fine_enough(plan):
    grid = grid_for(plan)
    shortest = F(min(t.duration for t in plan.transfers), plan.unit)
    assert str(grid).rstrip("0") == "1" and grid * shortest >= SHORTEST_TICKS
    assert grid == 1 or grid // 10 * shortest < SHORTEST_TICKS
    # the plan's own unit is far below 10^9 here: nothing to gain, the plan itself
    assert plan.unit <= grid and on_grid(plan) is plan


def four_digit_chain() -> Platform:
    """Ps -> A -> B -> C and shortcuts, costs 100000/q with four-digit primes q (as the
    generated platforms have): the exact unit is their product, far above 10^9."""
    q = [7793, 9157, 7193, 1259, 8923]
    return Platform("Ps", [Link("Ps", "A", F(100000, q[0])), Link("A", "B", F(100000, q[1])),
                           Link("B", "C", F(100000, q[2])), Link("Ps", "B", F(100000, q[3])),
                           Link("A", "C", F(100000, q[4]))])


def test_the_chooser_puts_a_routed_clean_up_s_plan_on_the_grid_with_its_count():
    """Unrelated four-digit denominators: the plan of a candidate with a routed clean-up
    comes on a grid of 10^8 ticks (its shortest transfer, 100000/9157 ~ 10.9, times
    10^8 >= 10^9), passes check_plan and delivers exactly the count the chooser
    computed; a candidate without one keeps its exact plan (issue 41: those bytes stay)."""
    platform = four_digit_chain()
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, 2000)
    routed = [c for c in choice.candidates if c.routed_cleanup]
    others = [c for c in choice.candidates if not c.routed_cleanup]
    assert routed and others
    for c in routed[:2]:
        plan = c.plan(choice.horizon, choice.optimum)
        assert plan.unit == 10**8 < c.table.unit
        assert "grid" in plan.about and check_plan(plan) == []
        assert plan.delivered_by(choice.horizon) == c.delivered
    plan = others[0].plan(choice.horizon, choice.optimum)
    assert plan.unit == others[0].table.unit and "grid" not in plan.about
    assert plan.delivered_by(choice.horizon) == others[0].delivered


@settings(max_examples=examples(200))
@given(st.lists(st.integers(-10**40, 10**40), max_size=30), st.integers(-10**30, 10**30),
       st.integers(1, 10**30), st.booleans())
def test_scaled_up_is_the_ceiling_of_each_value_scaled(values, n, q, ordered):
    """Each value's own ceil(v·n/q), in any order of the values and any sign (the
    running remainder carries across steps of either sign); repeated steps, as a plan's
    periods have, reuse one division."""
    values = sorted(values) if ordered else values
    assert scaled_up(values, n, q) == [-(-v * n // q) for v in values]


def test_scaled_up_over_repeated_periods():
    """Starts of 50 periods of three transfers (steps repeat): the ceilings exact."""
    n, q = 10**9 + 7, 998244353 * 10**20 + 3
    values = [p * 7919 * 10**25 + s for p in range(50) for s in (0, 3 * 10**24, 5 * 10**25)]
    assert scaled_up(values, n, q) == [-(-v * n // q) for v in values]


def test_an_unchecked_plan_comes_back_checked():
    """on_grid_keeping checks the plan it returns, the exact one too (the chooser hands
    it the exact plan unchecked): a plan whose transfer overlaps another on a port is
    refused whether or not it goes onto the grid."""
    platform = four_digit_chain()
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, 2000)
    c = next(c for c in choice.candidates if c.routed_cleanup)
    plan = periodic_plan(c.pattern, c.batches, None, routed_cleanup(c.pattern, c.batches),
                         check=False)
    first, second = plan.transfers[0], plan.transfers[1]
    # the second transfer moved onto the first one's start, on the same out-port
    broken = second._replace(tail=first.tail, release=first.release)
    bad = replace(plan, transfers=(first, broken) + plan.transfers[2:])
    assert check_plan(bad)
    for grid in (10**8, bad.unit):    # on the grid / kept exact (unit not coarser)
        with pytest.raises(AssertionError, match="postcondition"):
            on_grid_keeping(bad, choice.horizon, grid)
