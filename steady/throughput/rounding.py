"""The exact end of the default method: an exact optimum from the float search's
prices and spread rates, without re-solving a large basis (ours; proofs/spread-cuts.md).

* **Dual (the bound).**  For any prices y >= 0 on the capacity rows, every spanning
  arborescence T costs  w_y(T) = sum_{e in T} c_e (y_tail^out + y_head^in) (+ link
  shares), and  TP* <= sum(y) / min_T w_y(T)  (proofs/certificate.md).  The float
  duals of the bound LP are turned into a few exact candidates (rationals of bounded
  denominators); each costs one exact minimum arborescence, and the smallest bound U
  is kept, its prices divided by the minimum so that the cheapest tree costs exactly 1.
* **Primal (a witness).**  The spread rates give every destination that can have it
  a margin over U, so they are rounded to multiples of 2^-36, negligible rates
  dropped.  The rows with a positive price must be full at every optimum
  (complementary slackness), and so must the rows that tie with them (a degenerate
  optimum prices only some): in each row full in floats, one *pivot* link, the
  largest, is solved for exactly so that the row is exactly 1 (a linear system of one
  equation per full row); the other rows keep a slack far above the rounding.
* **Check.**  Rates >= 0, every capacity row <= 1, and every destination receives U
  (:func:`steady.exact.connectivity.exact_shortfall`), all exact.  Then U is the
  optimum: primal value U, dual bound U.  If anything fails, ``None``: the caller takes
  the exact route that re-solves a basis.
"""

from __future__ import annotations

import time
from fractions import Fraction

import flint

from ..exact.connectivity import exact_shortfall
from ..exact.cutplanes import cut_words
from ..numbers import lcm_of_denominators
from .ports import cheapest_tree
from .result import Certificate, ThroughputResult

#: Rates are rounded to multiples of 2^-GRID_BITS (int64 max-flows stay exact).
GRID_BITS = 36
#: Rates below this share of U are dropped (a float search's dust).
DUST = 1e-7
#: A row whose float load exceeds 1 - FULL is full (made exactly 1 by its pivot).
FULL = 1e-7
#: Cuts made exact one by one after the rounding, at most.
MAX_REPAIRS = 20
#: Denominator bounds of the exact price candidates (the duals are ratios of costs).
DENOMINATORS = (10**3, 10**6, 10**9)


def price_candidates(prices: dict) -> list[dict]:
    """Exact nonnegative prices near the float ``prices`` (row key -> float), one per
    denominator bound, normalised to sum 1 (the bound is scale-free)."""
    top = max(prices.values(), default=0.0)
    if top <= 0:
        return []
    kept = {k: p for k, p in prices.items() if p > 1e-9 * top}
    total = sum(kept.values())
    out = []
    for bound in DENOMINATORS:
        y = {k: Fraction(p / total).limit_denominator(bound) for k, p in kept.items()}
        y = {k: v for k, v in y.items() if v > 0}
        if y and y not in out:
            out.append(y)
    return out


def split_prices(platform, y: dict) -> tuple[dict, dict, dict]:
    """Row-key prices as (out-port, in-port, link) price dicts, zeros included for
    every node."""
    out = {v: Fraction(0) for v in platform.nodes}
    inn = {v: Fraction(0) for v in platform.nodes}
    links = {}
    for (kind, name), p in y.items():
        {"out": out, "in": inn, "link": links}[kind][name] = p
    return out, inn, links


def exact_bound(platform, prices: dict):
    """(U, prices normalised so that the cheapest arborescence costs exactly 1) for the
    best exact candidate near the float ``prices``; None without a positive bound."""
    best = None
    for y in price_candidates(prices):
        cost, _ = cheapest_tree(platform, *split_prices(platform, y))
        if cost <= 0:
            continue
        bound = sum(y.values()) / cost
        if best is None or bound < best[0]:
            best = (bound, {k: v / cost for k, v in y.items()})
    return best


def grid_rates(platform, rates: list, level: Fraction) -> dict:
    """The float ``rates`` (per arc of ``platform.arcs``) rounded to the grid, dust
    dropped: exact rationals."""
    grid = 2 ** GRID_BITS
    dust = DUST * float(level)
    n = {}
    for arc, x in zip(platform.arcs, rates):
        if x > dust:
            k = round(x * grid)
            if k > 0:
                n[arc] = Fraction(k, grid)
    return n


def full_rows(rows, rates: dict, priced_keys) -> list:
    """Equations (key, coefficients, right-hand side) for the rows that every optimum
    fills: the priced ones and those full in floats (a degenerate optimum prices only
    some of the rows that tie)."""
    return [(row.key, row.coeffs, Fraction(1)) for row in rows if row.key in priced_keys
            or sum(float(c) * rates.get(a, 0.0) for a, c in row.coeffs.items()) > 1 - FULL]


def complete(n: dict, equations: list, rates: dict):
    """Make the equations (key, coefficients, rhs) hold exactly by solving for pivot
    links (:func:`_pivots`), the other rates kept.  Returns the new rates, or None when
    the pivots' system is singular or a pivot goes < 0.  Equations left out (dependent
    ones) are checked by the caller with every other row."""
    system, columns = _pivots(n, equations, rates)
    if not columns:
        return dict(n)
    chosen = set(columns)
    m = len(columns)
    matrix, rhs = [], []
    for i in system:
        _, coeffs, value = equations[i]
        matrix.extend(_q(coeffs.get(a, 0)) for a in columns)
        rest = sum((c * n[a] for a, c in coeffs.items() if a in n and a not in chosen),
                   Fraction(0))
        rhs.append(_q(value - rest))
    try:
        solved = flint.fmpq_mat(m, m, matrix).solve(flint.fmpq_mat(m, 1, rhs))
    except ZeroDivisionError:
        return None
    out = dict(n)
    for k, a in enumerate(columns):
        value = Fraction(int(solved[k, 0].p), int(solved[k, 0].q))
        if value < 0:
            return None
        out[a] = value
    return out


def _pivots(n: dict, equations: list, rates: dict) -> tuple[list, list]:
    """(equation indices, pivot links) of a square nonsingular system.

    Port rows: a link (j,k) appears in the out-port row of j and the in-port row of k
    with the same coefficient c_jk, so over the full port rows the links are the edges
    of a bipartite graph (a link whose other row is not full is a half-edge to a node
    OUTSIDE).  Its incidence matrix is nonsingular on exactly the forests whose trees
    hold one row fewer than edges plus OUTSIDE's share: a maximum spanning forest by
    float rate (Kruskal) through OUTSIDE gives one pivot per row, except one row per
    component that OUTSIDE does not reach -- that row is the sum of the others minus
    theirs (dependent) and is left to the caller's check.  Other equations (shared
    links, cuts) take their largest free link."""
    ports = {key: i for i, (key, _, _) in enumerate(equations)
             if key is not None and key[0] in ("out", "in")}
    outside = object()
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) is not x:
            parent[x] = parent.setdefault(parent[x], parent[x])
            x = parent[x]
        return x

    edges = []
    for arc in n:
        u, v = arc
        ends = [ports.get(("out", u)), ports.get(("in", v))]
        ends = [e for e in ends if e is not None]
        if ends:
            edges.append((rates.get(arc, 0.0), arc, ends[0], ends[1] if len(ends) > 1 else outside))
    columns, reached = [], set()
    for _, arc, a, b in sorted(edges, key=lambda e: -e[0]):
        ra, rb = find(a), find(b)
        if ra is not rb:
            parent[ra] = rb
            columns.append(arc)
    system = []
    seen_roots = set()
    for key, i in ports.items():
        root = find(i)
        if root is find(outside) or root in seen_roots:
            system.append(i)
        else:
            seen_roots.add(root)  # one dependent row per closed component
    del reached
    used = set(columns)
    for i, (key, coeffs, _) in enumerate(equations):
        if i in ports.values():
            continue
        free = [a for a in coeffs if a in n and a not in used]
        if free:
            pivot = max(free, key=lambda a: rates.get(a, 0.0))
            used.add(pivot)
            columns.append(pivot)
            system.append(i)
    return system, columns


def _q(x) -> "flint.fmpq":
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def certify_rounded(platform, rows, found, formulation: str = "cuts", stats=None):
    """The exact optimum from a float search's result, or None (see the module
    docstring).  ``rows``: the capacity rows; ``found``: a
    :class:`~steady.throughput.spread.SearchResult`."""
    start = time.perf_counter()
    bound = exact_bound(platform, found.prices)
    if bound is None:
        return None
    level, y = bound
    dual_seconds = time.perf_counter() - start
    priced = {row.key for row in rows if y.get(row.key, 0) > 0}
    rates = dict(zip(platform.arcs, found.rates))
    base = grid_rates(platform, found.rates, level)
    equations = full_rows(rows, rates, priced)
    check = time.perf_counter()
    for _ in range(MAX_REPAIRS):
        n = complete(base, equations, rates)
        if n is None:
            return None
        if any(sum((c * n[a] for a, c in row.coeffs.items() if a in n), Fraction(0)) > 1
               for row in rows):
            return None
        short = exact_shortfall(platform, n, level)
        if short is None:
            break
        # A destination short by rounding: its minimum cut is full at every optimum
        # too; make it exactly U with a pivot of its own.
        side = short[2]
        cut = {a: Fraction(1) for a in platform.arcs if a[0] in side and a[1] not in side}
        equations.append((None, cut, level))
    else:
        return None
    out_p, in_p, link_p = split_prices(platform, y)
    # The certificate re-checked on the prices as they are stored (exact): >= 0,
    # summing to U, every arborescence costing >= 1.
    tree_cost, _ = cheapest_tree(platform, out_p, in_p, link_p)
    if min(y.values()) < 0 or sum(y.values()) != level or tree_cost < 1:
        raise AssertionError("postcondition: rounded certificate does not hold")
    bottleneck = [row.words for row in rows if y.get(row.key, 0) > 0]
    bottleneck += [cut_words(platform, side) for side in found.cut_prices]
    full_n = {arc: n.get(arc, Fraction(0)) for arc in platform.arcs}
    scale = lcm_of_denominators(list(n.values()) + [level])
    cert = Certificate(out_p, in_p, tree_cost, scale, level, link_p)
    seconds = {"exact_seconds": round(dual_seconds, 4),
               "check_seconds": round(time.perf_counter() - check, 4)}
    all_stats = {**found.stats, **seconds, **(stats or {})}
    return ThroughputResult(level, full_n, bottleneck, cert, formulation, "graph", None,
                            all_stats)
