"""An upper bound on the rate of every collective timetable under the resource rule
(ours; issue 43; proofs/collectives.md §9, "The whole-hold bound of a collective").

The LP of :mod:`steady.throughput.collective` lets a link serve its routes as a fluid.
A timetable (``steady verify``'s rule, :mod:`.resources`) runs each transfer at its
route's speed, holding its parts for its whole time, and then no period is shorter than
any *whole-hold row* of its route counts (:func:`.resources.whole_hold_rows`): rows
linear in the counts, so divided by the period they are rows of an LP over rates whose
optimum bounds every timetable's rate per root, as the loads bound it in the fluid LP.

:func:`whole_hold_rate_bound` finds prices for every row by a float search (GLOP on the
flow LP: each root's route rates carry a flow of value x to every other compute node,
which is exactly the packing of its trees, Edmonds' branching theorem; bounded work;
no bound when it fails), turns them into exact fractions and proves the bound exactly:
with prices y_i >= 0 on the rows and m_r the exact cost of root r's cheapest tree when
a tree edge costs its cheapest route's price sum_i y_i a_i(P), every timetable's rate x
per unit share satisfies x · sum_r ρ_r m_r <= sum_i y_i (weak duality, as the
certificate of proofs/collectives.md §2).  Any prices give a valid bound; good ones a
tight one.  Routes are enumerated (every simple path through switches), so the bound is
for small fabrics (:data:`MAX_ROUTES`).

:func:`majority_cap` needs no search: it moves the optimum's own certificate prices
onto the majority rows of the resources that every route holds by more than half
(proofs/collectives.md §15): a one-port SimGrid dragonfly whose host links (125 MBps)
run under 150 MBps limiters is capped at 5/6 of x* that way.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..exact.arborescence import minimum_arborescence
from ..exact.floatlp import FloatLP, FloatSearchFailed
from .resources import MAJORITY, transfer_model, whole_holds

#: Routes enumerated at most (simple paths between compute nodes through switches);
#: beyond, no bound is given.
MAX_ROUTES = 5_000
#: Flow variables of the float search at most (roots x compute nodes x routes; 5040 on
#: the seed-1 cluster, 0.1 s; 119000 on 3 servers of 8 GPUs: over 6 minutes, loaded).
MAX_VARIABLES = 50_000
#: Prices are rounded to fractions with denominators up to this (any prices are valid;
#: the rounding only costs tightness).
DENOMINATOR = 10 ** 6


@dataclass(frozen=True)
class WholeHoldBound:
    """``bound``: no timetable under the resource rule has a higher rate per unit share;
    ``prices`` {row (l, R): exact price >= 0} over the rows of
    :func:`.resources.whole_hold_rows`; ``tree_costs`` {root: its cheapest tree's
    exact cost under them}; ``routes``: how many routes were priced."""

    bound: Fraction
    prices: dict
    tree_costs: dict
    routes: int


def simple_routes(platform, most: int = MAX_ROUTES) -> list | None:
    """Every route (compute node, switch, ..., compute node; no node twice), in the
    links' order; None when there are more than ``most``."""
    switches = frozenset(platform.switches)
    found: list = []

    def walk(path) -> bool:
        for link in platform.out_links(path[-1]):
            v = link.head
            if v in path:
                continue
            if v in switches:
                if not walk(path + (v,)):
                    return False
            else:
                found.append(path + (v,))
                if len(found) > most:
                    return False
        return True

    for u in platform.compute_nodes:
        if not walk((u,)):
            return None
    return found


def route_rows(model, routes) -> dict:
    """{route: {row (l, R): time per message}}: the coefficients of the whole-hold rows
    (a route holding l whole adds its time to every row (l, R); holding l in part, its
    load on R, and its time to (l, MAJORITY) when it holds more than half)."""
    holds = {route: whole_holds(model, {route: 1}) for route in routes}
    rows: set = set()
    for whole, partial in holds.values():
        rows.update((l, l) for l in whole)
        rows.update(partial)
    by_resource: dict = {}
    for row in rows:
        by_resource.setdefault(row[0], []).append(row)
    out = {}
    for route, (whole, partial) in holds.items():
        coef = dict(partial)
        for l, t in whole.items():
            for row in by_resource[l]:
                coef[row] = coef.get(row, 0) + t
        out[route] = coef
    return out


def whole_hold_rate_bound(platform, roots: dict) -> WholeHoldBound | None:
    """The bound of the module docstring for ``roots`` {(node, direction): ρ}, proved
    exactly; None beyond :data:`MAX_ROUTES` or :data:`MAX_VARIABLES`, when the float
    search fails, or when its prices leave a tree free."""
    routes = simple_routes(platform)
    compute = list(platform.compute_nodes)
    if routes is None or len(roots) * len(compute) * len(routes) > MAX_VARIABLES:
        return None
    coef = route_rows(transfer_model(platform), routes)
    try:
        floats = _float_prices(compute, roots, routes, coef)
    except FloatSearchFailed:
        return None
    prices = {row: p for row, y in floats.items()
              if (p := max(Fraction(0), Fraction(y).limit_denominator(DENOMINATOR)))}
    return proved_bound(compute, roots, routes, coef, prices)


def majority_cap(platform, roots: dict, prices: dict,
                 most: int = MAX_ROUTES) -> WholeHoldBound | None:
    """The bound proved by the optimum's certificate ``prices`` {resource: y >= 0} with
    the price of every resource R that every route holding it holds by more than half,
    some in part, moved onto R's majority row, times the largest part a route holds of
    R (ours; proofs/collectives.md §15): every route's price is then at least what the
    certificate gave it, and any prices prove a bound (:func:`proved_bound`).  None
    when no priced resource is such, beyond ``most`` routes, or when a tree is free.
    The bound is at most the certificate's x*; below it where those majority holders
    run one at a time for longer than their load (parts < 1)."""
    priced = {res: Fraction(y) for res, y in prices.items() if y > 0}
    if not any(res[0] in ("arc", "link") for res in priced):
        return None   # ports only: held whole, their load row is already their time
    routes = simple_routes(platform, most)
    if routes is None:
        return None
    model = transfer_model(platform)
    largest: dict = {}
    minority: set = set()
    in_part: set = set()   # held in part (not whole) by some route: a majority row
    for route in routes:
        for res, part in model.holds(route)[1]:
            if res in priced:
                largest[res] = max(largest.get(res, Fraction(0)), part)
                if 2 * part <= 1:
                    minority.add(res)
                elif part < 1:
                    in_part.add(res)
    rows: dict = {}
    for res, y in priced.items():
        if res in in_part and res not in minority:
            row, y = (res, MAJORITY), y * largest[res]
        else:
            row = (res, res)
        rows[row] = rows.get(row, Fraction(0)) + y
    if not any(row[1] == MAJORITY for row in rows):
        return None
    return proved_bound(list(platform.compute_nodes), roots, routes,
                        route_rows(model, routes), rows)


def proved_bound(compute, roots, routes, coef, prices) -> WholeHoldBound | None:
    """The bound that exact ``prices`` prove (module docstring), or None when some
    root's cheapest tree costs 0."""
    cheapest: dict = {}   # (sender, receiver) -> the cheapest route's price
    for route in routes:
        price = sum((prices.get(row, 0) * t for row, t in coef[route].items()), Fraction(0))
        key = (route[0], route[-1])
        if key not in cheapest or price < cheapest[key]:
            cheapest[key] = price
    index = {v: i for i, v in enumerate(compute)}
    costs = {}
    for (r, direction) in roots:
        # an out tree's edge parent -> child is a route parent -> child; an in tree's
        # is a route child -> parent: the arborescence of the reversed arcs
        arcs = [(index[a], index[b], p) if direction == "out" else (index[b], index[a], p)
                for (a, b), p in cheapest.items()]
        found = minimum_arborescence(len(compute), index[r], arcs)
        if found is None:
            return None
        costs[(r, direction)] = Fraction(found[0])
    total = sum((Fraction(rho) * costs[r] for r, rho in roots.items()), Fraction(0))
    if total <= 0:
        return None
    return WholeHoldBound(sum(prices.values(), Fraction(0)) / total, prices, costs,
                          len(routes))


def _float_prices(compute, roots, routes, coef) -> dict:
    """Duals {row: y} of the flow LP: max x such that, for every root r and every other
    compute node v, root r's route rates carry x·ρ_r from r to v (to r from v for an
    in root), within every whole-hold row.  Raises FloatSearchFailed when GLOP ends
    without an optimum."""
    lp = FloatLP("whole-hold bound")
    x = lp.add_column(objective=1.0)
    rate = {(r, i): lp.add_column() for r in roots for i in range(len(routes))}
    for r, rho in roots.items():
        node, direction = r
        for v in compute:
            if v == node:
                continue
            flow = {}
            balance: dict = {u: [] for u in compute}
            for i, route in enumerate(routes):
                f = flow[i] = lp.add_column()
                lp.add_row([(f, 1.0), (rate[(r, i)], -1.0)], None, 0.0)
                balance[route[0]].append((f, -1.0))
                balance[route[-1]].append((f, 1.0))
            sink = v if direction == "out" else node
            for u in compute:
                if u != (node if direction == "out" else v):
                    terms = balance[u] + ([(x, -float(rho))] if u == sink else [])
                    lp.add_row(terms, 0.0, 0.0)
    rows: dict = {}
    for i, route in enumerate(routes):
        for row, t in coef[route].items():
            rows.setdefault(row, []).extend((rate[(r, i)], float(t)) for r in roots)
    index = {row: lp.add_row(terms, None, 1.0) for row, terms in rows.items()}
    if not lp.solve():   # pragma: no cover - x = 0 is always feasible
        raise FloatSearchFailed("whole-hold bound: infeasible")
    duals = lp.duals()
    return {row: duals[i] for row, i in index.items()}
