"""An upper bound on the throughput of schedules whose transfers keep their arc's speed
(ours; issue 24; proofs/network-links.md, "The fixed-speed bound").

The link rows of :mod:`.rows` let a shared link serve its arcs' messages one after the
other, as a fluid.  In a timetable (and in every run of steady: the simulator, a list
run, ``steady run``) a transfer over arc e instead holds the part c_l / c_e of each
shared link l on its route for its whole time c_e.  So the arcs that each hold more than
1/(k+1) of l are never more than k at once, and over any time span their busy times add
up to at most k times it: the *k-rows*

    sum over those arcs e of  n_e · c_e  <= k            (k = 1 .. :data:`MOST_AT_ONCE`),

valid for every such schedule, and not implied by the link row: on
samples/simgrid/cluster_dragonfly-24.json they lower the optimum from 60 to 50.

:func:`fixed_speed_bound` finds prices for every row by a float search (GLOP on the
flow LP with these rows, bounded by its size), turns them into exact fractions and
proves the bound exactly: with port prices y, link prices z and k-row prices w, all
>= 0, and m the exact cost of the cheapest spanning arborescence under the arc weights
c_e (y_tail^out + y_head^in) + sum z_l c_l + sum w_{l,k} c_e, every fixed-speed schedule
has throughput <= (sum y + sum z + sum k·w) / m.  Any prices give a valid bound; good
ones give a tight one.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..exact.arborescence import cheapest_link_arborescence
from .rows import shared_links

Arc = tuple[str, str]

#: k-rows up to "at most this many at once" per shared link.
MOST_AT_ONCE = 5
#: The float search runs on platforms with at most this many flow variables
#: ((|V| - 1)·|E|; 12,696 on cluster_dragonfly-24: 3 s); beyond, no bound is given.
MAX_VARIABLES = 50_000
#: Prices are rounded to fractions with denominators up to this (any prices are valid;
#: the rounding only costs tightness).
DENOMINATOR = 10 ** 9


@dataclass(frozen=True)
class FixedSpeedBound:
    """``bound``: no fixed-speed schedule has a higher throughput; ``rows``: the k-rows
    [(link id, k, arcs)]; prices (exact, >= 0): ``out_prices``, ``in_prices``,
    ``link_prices``, ``row_prices`` (aligned with ``rows``); ``tree_cost``: the cheapest
    spanning arborescence's exact cost under them."""

    bound: Fraction
    rows: tuple
    out_prices: dict
    in_prices: dict
    link_prices: dict
    row_prices: tuple
    tree_cost: Fraction


def k_rows(platform, most: int = MOST_AT_ONCE) -> list[tuple[str, int, tuple[Arc, ...]]]:
    """[(link id, k, arcs)]: per shared link and k = 1..``most``, the arcs crossing it
    that hold more than 1/(k+1) of it (c_l / c_e > 1/(k+1)), when they are more than k
    (fewer can all run at once: the row would say nothing)."""
    rows = []
    for link in shared_links(platform):
        crossing = [a for a in platform.network.crossing(link.id) if platform.has_link(*a)]
        for k in range(1, most + 1):
            arcs = tuple(sorted(a for a in crossing
                                if (k + 1) * link.cost > platform.cost(*a)))
            if len(arcs) > k:
                rows.append((link.id, k, arcs))
    return rows


def fixed_speed_bound(platform) -> FixedSpeedBound | None:
    """The fixed-speed bound of the module docstring, proved exactly; None without
    shared links, beyond :data:`MAX_VARIABLES`, or when the float search's prices leave
    a spanning arborescence free."""
    links = shared_links(platform)
    arcs = list(platform.arcs)
    if not links or (len(platform.nodes) - 1) * len(arcs) > MAX_VARIABLES:
        return None
    rows = k_rows(platform)
    y_out, y_in, z, w = _float_prices(platform, arcs, links, rows)
    exact = [{v: _fraction(p) for v, p in prices.items()} for prices in (y_out, y_in, z)]
    row_prices = tuple(_fraction(p) for p in w)
    return _proved(platform, rows, *exact, row_prices)


def _proved(platform, rows, out_p, in_p, link_p, row_p) -> FixedSpeedBound | None:
    """The bound those exact prices prove: their weighted sum over the cheapest
    arborescence's exact cost (None when that cost is 0: no bound)."""
    extra: dict[Arc, Fraction] = {}
    for link in shared_links(platform):
        z = link_p.get(link.id, 0)
        if z:
            for arc in platform.network.crossing(link.id):
                extra[arc] = extra.get(arc, 0) + z * link.cost
    for (_, _, arcs), price in zip(rows, row_p):
        for arc in arcs:
            extra[arc] = extra.get(arc, 0) + price * platform.cost(*arc)
    weights = [l.cost * (out_p.get(l.tail, 0) + in_p.get(l.head, 0)) + extra.get(l.arc, 0)
               for l in platform.links]
    cost, _ = cheapest_link_arborescence(platform.nodes, platform.source, platform.links,
                                         weights)
    total = (sum(out_p.values(), Fraction(0)) + sum(in_p.values(), Fraction(0))
             + sum(link_p.values(), Fraction(0))
             + sum((k * p for (_, k, _), p in zip(rows, row_p)), Fraction(0)))
    if cost <= 0:  # prices that leave a tree free prove nothing (a failed search)
        return None
    return FixedSpeedBound(total / cost, tuple(rows), out_p, in_p, link_p, row_p, cost)


def _fraction(x: float) -> Fraction:
    return max(Fraction(0), Fraction(x).limit_denominator(DENOMINATOR))


def _float_prices(platform, arcs, links, rows):
    """Duals of the port, link and k-rows of the flow LP (GLOP): max TP such that every
    destination receives TP through rates n within every row."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("GLOP")
    n = {a: solver.NumVar(0, solver.infinity(), "") for a in arcs}
    tp = solver.NumVar(0, solver.infinity(), "TP")
    for d in platform.destinations:
        f = {a: solver.NumVar(0, solver.infinity(), "") for a in arcs}
        for a in arcs:
            solver.Add(f[a] <= n[a])
        for v in platform.nodes:
            if v != platform.source:
                solver.Add(sum(f[a] for a in arcs if a[1] == v)
                           - sum(f[a] for a in arcs if a[0] == v) == (tp if v == d else 0))
    cost = {a: float(platform.cost(*a)) for a in arcs}
    out_rows, in_rows = {}, {}
    for v in platform.nodes:
        out = [a for a in arcs if a[0] == v]
        if out:
            out_rows[v] = solver.Add(sum(n[a] * cost[a] for a in out) <= 1)
        inn = [a for a in arcs if a[1] == v]
        if inn and v != platform.source:
            in_rows[v] = solver.Add(sum(n[a] * cost[a] for a in inn) <= 1)
    link_rows = {}
    for link in links:
        crossing = [a for a in platform.network.crossing(link.id) if a in n]
        if crossing:
            link_rows[link.id] = solver.Add(sum(n[a] for a in crossing) * float(link.cost) <= 1)
    k_constraints = [solver.Add(sum(n[a] * cost[a] for a in row_arcs) <= k)
                     for _, k, row_arcs in rows]
    solver.Maximize(tp)
    solver.Solve()
    return ({v: r.dual_value() for v, r in out_rows.items()},
            {v: r.dual_value() for v, r in in_rows.items()},
            {lid: r.dual_value() for lid, r in link_rows.items()},
            [r.dual_value() for r in k_constraints])
