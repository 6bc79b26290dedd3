"""A plan moved onto a coarse time grid (ours).

A plan's unit is the least number of ticks per time unit in which every time of its
timetable is whole: on generated platforms whose link costs are p/q with unrelated
four-digit q (``100000/7791``, ...), that lcm has hundreds of digits, and so has every
tick of the plan -- its file (hundreds of MB), its check, its run and its replay carry
them.  :func:`on_grid` moves the plan onto a grid of G ticks per time unit, G a power of
ten with G·d >= :data:`SHORTEST_TICKS` for the shortest transfer d (time units): every
planned start t (time units) becomes ceil(t·(1 + ε)·G) ticks and every duration d
becomes ceil(d·G) ticks, with ε = 2 / (G·d) for that shortest d.

Why the plan stays valid (proofs/finite-horizon.md, "A plan on a coarse grid"): stretch
the plan's time by 1 + ε (every interval [t, t + d) becomes [t', t' + d(1 + ε)), t' =
t(1 + ε), a valid plan with the same overlaps).  The grid's interval [ceil(t'G),
ceil(t'G) + ceil(dG)) (in ticks) starts no earlier than t'G and ends before
t'G + dG + 2 <= t'G + dG(1 + ε), since ε·d·G >= 2: it lies inside the stretched
interval.  So no two transfers of a port overlap, every transfer still starts after the
one that brought its data ended, a shared link holds at every instant a subset of what
it held in the stretched plan, and the order of the starts (hence the order of each
link's stream) is kept; each transfer holds its ports for its cost rounded up, never
less than the platform needs.  :func:`steady.simulate.plan.check_plan` checks the result
anyway (``checked``).  What it costs: every time grows by the factor 1 + ε <= 1 + 2 /
SHORTEST_TICKS plus at most two ticks, so a broadcast is delivered by K on the grid unless
it was delivered within about 2·K / SHORTEST_TICKS of K: :func:`on_grid_keeping` keeps the
exact plan when the count by K changes.  Linear in the transfers.  ``steady simulate``
moves the plans with a clean-up routed afresh (:meth:`steady.simulate.choose.Candidate.plan`);
the others keep their exact bytes (issue 41).
"""

from __future__ import annotations

from fractions import Fraction

from ..numbers import format_exact
from .plan import Plan, Transfer, checked, collector_paused

#: The shortest transfer lasts at least this many ticks of the grid, and times stretch by
#: at most 2 / SHORTEST_TICKS: 2·10^-9, 0.0002 time units at K = 10^5.
SHORTEST_TICKS = 10**9


def grid_for(plan: Plan, slack: int = SHORTEST_TICKS) -> int:
    """G: the least power of ten with G·d >= ``slack`` for the plan's shortest transfer
    d (time units)."""
    shortest = Fraction(min(t.duration for t in plan.transfers), plan.unit)
    need = Fraction(slack) / shortest
    grid = 1
    while grid < need:
        grid *= 10
    return grid


@collector_paused()   # 10^5..10^6 transfers made, none in a cycle
def on_grid(plan: Plan, grid: int | None = None) -> Plan:
    """``plan`` on ``grid`` ticks per time unit (default :func:`grid_for`; module
    docstring), checked; the plan itself when its unit is not coarser than the grid
    or it has no transfers.  A broadcast plan's (collectives' plans keep their own)."""
    if not plan.transfers or plan.collective is not None:
        return plan
    grid = grid_for(plan) if grid is None else grid
    if plan.unit <= grid:
        return plan
    shortest = min(t.duration for t in plan.transfers)
    # start: ceil(release / U · (1 + ε) · G), ε = 2·U / (G·shortest), as one fraction
    # n / q of the plan's ticks (integers: 10^5..10^6 transfers)
    stretch = Fraction(grid, plan.unit) * (1 + Fraction(2 * plan.unit, grid * shortest))
    n, q = stretch.numerator, stretch.denominator
    durations = {d: -(-d * grid // plan.unit) for d in {t.duration for t in plan.transfers}}
    make = tuple.__new__   # Transfer(...) without its Python-level __new__
    starts = scaled_up([t[5] for t in plan.transfers], n, q)
    transfers = tuple(make(Transfer, (i, tail, head, first, count, start,
                                      durations[duration], tree))
                      for (i, tail, head, first, count, _, duration, tree), start
                      in zip(plan.transfers, starts))
    makespan = max(t[5] + t[6] for t in transfers)
    about = dict(plan.about)
    # 1 + ε, exact (its digits are the shortest cost's, not the unit's)
    about["grid"] = {"ticks_per_time_unit": grid,
                     "stretch": format_exact(stretch * plan.unit / grid)}
    return checked(Plan(plan.name, plan.nodes, plan.source, plan.broadcasts, grid,
                        transfers, makespan, about, plan.platform, plan.collective))


def scaled_up(values: list[int], n: int, q: int) -> list[int]:
    """[ceil(v·n / q) for v in ``values``] (integers, q > 0), exact: each from the last by
    the step between them, divmod(step·n, q) worked out once per distinct step.  Ours:
    a plan's starts are sorted and its steady periods repeat the same steps, so this
    replaces one product and one division of numbers of hundreds of digits per transfer
    by additions (a running quotient and remainder)."""
    out = []
    steps: dict = {}
    last, quotient, rest = 0, 0, 0     # last·n = quotient·q + rest, 0 <= rest < q
    for v in values:
        step = v - last
        if step:
            known = steps.get(step)
            if known is None:
                known = steps[step] = divmod(step * n, q)
            quotient += known[0]
            rest += known[1]
            if rest >= q:
                quotient += 1
                rest -= q
            last = v
        out.append(quotient + 1 if rest else quotient)
    if out and out[-1] != -(-values[-1] * n // q):
        raise AssertionError("postcondition: scaled_up's running sum lost the ceiling")
    return out


def on_grid_keeping(plan: Plan, horizon, grid: int | None = None) -> Plan:
    """:func:`on_grid`, or ``plan`` itself when the grid's plan delivers a different
    count by ``horizon`` (the count ``steady simulate`` reports is the exact plan's);
    checked either way (:func:`steady.simulate.plan.check_plan`), so ``plan`` may come
    unchecked: only the plan returned is checked, once (issue 41: the exact plan's
    check cost as much as the grid's, for a plan that is then dropped)."""
    coarse = on_grid(plan, grid)
    if coarse is plan or coarse.delivered_by(horizon) != plan.delivered_by(horizon):
        return checked(plan)
    return coarse
