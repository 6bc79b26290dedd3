"""The one-port constraints (002 §2, §4.1 eqs. (4)-(5), §5.2 eqs. (12)-(16)) and the
certificate they induce.

Each node has an out-port row  sum_k n_{j,k} c_{j,k} <= 1  and (destinations) an in-port
row  sum_j n_{j,k} c_{j,k} <= 1.  The exact duals of these rows are *port prices*; at an
optimum they make every spanning arborescence cost >= 1 (proofs/certificate.md), which
is checked here by one exact minimum-arborescence computation.
"""

from __future__ import annotations

from fractions import Fraction

from ..exact.arborescence import cheapest_link_arborescence
from ..exact.cutplanes import add_rate_variables
from ..exact.lp import LE, LinearProgram
from ..network.rows import add_link_rows, arc_link_weights


def rate_program(platform, name: str, grows: str = "columns"):
    """An LP maximising TP over rates n >= 0 under the one-port rows: the common start
    of every formulation.  Returns (lp, n variables, TP variable, row words)."""
    lp = LinearProgram(name, grows)
    nvar = add_rate_variables(lp, platform)
    tpvar = lp.add_variable("TP", objective=1)
    words = add_port_rows(lp, platform, nvar)
    words.update(add_link_rows(lp, platform, nvar))  # shared network links (issue 19)
    return lp, nvar, tpvar, words


def add_port_rows(lp: LinearProgram, platform, nvar) -> dict[int, str]:
    """Out-port and in-port rows; returns row index -> its name in words."""
    names = {}
    for v in platform.nodes:
        out = {nvar[l.arc]: l.cost for l in platform.out_links(v)}
        if out:
            names[lp.add_row(out, LE, 1, f"out-port of {v}")] = f"out-port of {v}"
        inn = {nvar[l.arc]: l.cost for l in platform.in_links(v)}
        if inn and v != platform.source:
            names[lp.add_row(inn, LE, 1, f"in-port of {v}")] = f"in-port of {v}"
    return names


def port_prices(platform, lp: LinearProgram, duals) -> tuple[dict, dict]:
    """Exact port prices (y_out, y_in) read off the exact duals of the port rows."""
    out = {v: Fraction(0) for v in platform.nodes}
    inn = {v: Fraction(0) for v in platform.nodes}
    for i, row in enumerate(lp.rows):
        if row.name.startswith("out-port of "):
            out[row.name[len("out-port of "):]] = duals[i]
        elif row.name.startswith("in-port of "):
            inn[row.name[len("in-port of "):]] = duals[i]
    return out, inn


def min_tree_cost(platform, out_prices, in_prices, link_prices=None) -> Fraction:
    """Exact cost of the cheapest spanning arborescence under the arc weights
    c_{j,k} (y_j^out + y_k^in) (+ the link prices' share, issue 19), computed in
    integers after scaling."""
    return cheapest_tree(platform, out_prices, in_prices, link_prices)[0]


def cheapest_tree(platform, out_prices, in_prices, link_prices=None) -> tuple[Fraction, dict]:
    """(cost, child -> parent) of a cheapest spanning arborescence under the port
    prices (and link prices: :func:`steady.network.rows.arc_link_weights`); exact when
    the prices are exact, a float search when they are floats."""
    extra = arc_link_weights(platform, link_prices)
    weights = [l.cost * (out_prices.get(l.tail, 0) + in_prices.get(l.head, 0))
               + extra.get(l.arc, 0) for l in platform.links]
    if not all(isinstance(p, (int, Fraction))
               for prices in (out_prices, in_prices, link_prices or {})
               for p in prices.values()):
        weights = [float(w) for w in weights]
    found = cheapest_link_arborescence(platform.nodes, platform.source, platform.links,
                                       weights)
    if found is None:  # pragma: no cover - platforms are validated reachable
        raise ValueError("no spanning arborescence")
    return found


def port_loads(platform, n) -> tuple[dict, dict]:
    """Exact busy time per time unit of every out-port and in-port under rates n."""
    out = {v: Fraction(0) for v in platform.nodes}
    inn = {v: Fraction(0) for v in platform.nodes}
    for l in platform.links:
        t = n.get(l.arc, 0) * l.cost
        out[l.tail] += t
        inn[l.head] += t
    return out, inn
