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
flow LP with these rows, :class:`~steady.exact.floatlp.FloatLP`: bounded work; no bound
when it fails), turns them into exact fractions and
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
from ..exact.floatlp import FloatLP, FloatSearchFailed
from .model import Arc
from .rows import arc_link_weights, k_rows, shared_links


#: The float search runs on platforms with at most this many flow variables
#: ((|V| - 1)·|E|; 12,696 on cluster_dragonfly-24: 3 s); beyond, no bound is given.
MAX_VARIABLES = 50_000
#: Prices are rounded to fractions with denominators up to this (any prices are valid;
#: the rounding only costs tightness).
DENOMINATOR = 10 ** 9


@dataclass(frozen=True)
class FixedSpeedBound:
    """``bound``: no fixed-speed schedule has a higher throughput; ``rows``: the k-rows
    ((link id, k, arcs), ...: :func:`~steady.network.rows.k_rows`); prices (exact,
    >= 0): ``out_prices``, ``in_prices``, ``link_prices``, ``row_prices`` (aligned with
    ``rows``); ``tree_cost``: the cheapest spanning arborescence's exact cost under
    them."""

    bound: Fraction
    rows: tuple
    out_prices: dict
    in_prices: dict
    link_prices: dict
    row_prices: tuple
    tree_cost: Fraction


def fixed_speed_bound(platform) -> FixedSpeedBound | None:
    """The fixed-speed bound of the module docstring, proved exactly; None without
    shared links, beyond :data:`MAX_VARIABLES`, when the float search fails, or when
    its prices leave a spanning arborescence free."""
    if not shared_links(platform) or \
            (len(platform.nodes) - 1) * len(platform.links) > MAX_VARIABLES:
        return None
    rows = k_rows(platform)
    try:
        prices = _float_prices(platform, rows)
    except FloatSearchFailed:
        return None
    out_p, in_p, link_p, row_p = ({key: _fraction(p) for key, p in found.items()}
                                  for found in prices)
    return _proved(platform, rows, out_p, in_p, link_p,
                   tuple(row_p.get(i, Fraction(0)) for i in range(len(rows))))


def _proved(platform, rows, out_p, in_p, link_p, row_p) -> FixedSpeedBound | None:
    """The bound those exact prices prove: their weighted sum over the cheapest
    arborescence's exact cost (None when that cost is 0: no bound)."""
    extra = arc_link_weights(platform, link_p)
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
    return FixedSpeedBound(total / cost, tuple(rows), out_p, in_p, link_p, tuple(row_p),
                           cost)


def _fraction(x: float) -> Fraction:
    return max(Fraction(0), Fraction(x).limit_denominator(DENOMINATOR))


def _float_prices(platform, rows) -> tuple[dict, dict, dict, dict]:
    """Duals ({node: y_out}, {node: y_in}, {link id: z}, {k-row index: w}) of the flow
    LP: max TP such that every destination receives TP through rates n within the port,
    link and k-rows.  Raises FloatSearchFailed when GLOP ends without an optimum."""
    lp = FloatLP("fixed-speed bound")
    arcs = list(platform.arcs)
    cost = {a: float(platform.cost(*a)) for a in arcs}
    n = {a: lp.add_column() for a in arcs}
    tp = lp.add_column(objective=1.0)
    for d in platform.destinations:
        f = {a: lp.add_column() for a in arcs}
        balance: dict[str, list] = {v: [] for v in platform.nodes}
        for a in arcs:
            lp.add_row([(f[a], 1.0), (n[a], -1.0)], None, 0.0)
            balance[a[1]].append((f[a], 1.0))
            balance[a[0]].append((f[a], -1.0))
        for v in platform.nodes:
            if v != platform.source:
                terms = balance[v] + ([(tp, -1.0)] if v == d else [])
                lp.add_row(terms, 0.0, 0.0)
    ports: dict[tuple[str, str], list] = {}
    for a in arcs:
        ports.setdefault(("out", a[0]), []).append((n[a], cost[a]))
        if a[1] != platform.source:
            ports.setdefault(("in", a[1]), []).append((n[a], cost[a]))
    port_rows = {port: lp.add_row(terms, None, 1.0) for port, terms in ports.items()}
    link_rows = {}
    for link in shared_links(platform):
        crossing = [(n[a], float(link.cost)) for a in platform.network.crossing(link.id)
                    if a in n]
        if crossing:
            link_rows[link.id] = lp.add_row(crossing, None, 1.0)
    k_row = {i: lp.add_row([(n[a], cost[a]) for a in arcs_], None, float(k))
             for i, (_, k, arcs_) in enumerate(rows)}
    if not lp.solve():   # pragma: no cover - TP = 0 is always feasible
        raise FloatSearchFailed("fixed-speed bound: infeasible")
    duals = lp.duals()
    return ({v: duals[i] for (side, v), i in port_rows.items() if side == "out"},
            {v: duals[i] for (side, v), i in port_rows.items() if side == "in"},
            {lid: duals[i] for lid, i in link_rows.items()},
            {j: duals[i] for j, i in k_row.items()})
