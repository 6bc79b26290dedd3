"""Link rows: the shared links of a platform's network in the steady-state LPs (ours,
issue 19; the LPs are those of 002 §4.1 and §5.2; proofs/network-links.md).

Per time unit, arc e carries n_e messages; each crosses every link l of e's route, and a
shared link serves the messages of all the arcs through it one after the other (its
capacity is one quantity: their times add up).  So every formulation gains, for each
shared link l that some route crosses, the *link row*

    sum over arcs e whose route crosses l of  n_e · c_l  <= 1.

Fatpipe links bound each transfer alone, which the arc's own cost already does (an arc
never costs less than a link it crosses, checked when the platform is read), so they add
no row.  A row only removes solutions: adding one never raises the optimum.

Duality: the row's dual z_l >= 0 is a *link price*.  A spanning arborescence T then
costs  sum_{e in T} [c_e (y_tail^out + y_head^in) + sum_{l shared on route(e)} z_l c_l]
and the certificate of an optimum is: port and link prices >= 0 summing to TP under
which every spanning arborescence costs >= 1 (proofs/network-links.md).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from ..exact.lp import LE
from .model import Arc

#: Every link row's name starts with this, followed by the link's id.
ROW_PREFIX = "link "


def shared_links(platform) -> tuple:
    """The shared links some route crosses (empty without a network section)."""
    network = getattr(platform, "network", None)
    return () if network is None else network.shared_links()


def has_link_rows(platform) -> bool:
    return bool(shared_links(platform))


def link_row_coefficients(platform, link) -> dict[Arc, Fraction]:
    """{arc: c_l} over the arcs whose route crosses ``link``."""
    return {arc: link.cost for arc in platform.network.crossing(link.id)}


def add_link_rows(lp, platform, nvar) -> dict[int, str]:
    """One row per shared crossed link over the rate variables ``nvar`` ({arc: column});
    returns row index -> its name in words (``link <id>``)."""
    names = {}
    for link in shared_links(platform):
        coeffs = {nvar[arc]: c for arc, c in link_row_coefficients(platform, link).items()
                  if arc in nvar}
        if coeffs:
            words = ROW_PREFIX + link.id
            names[lp.add_row(coeffs, LE, 1, words)] = words
    return names


def link_prices(lp, duals) -> dict[str, Fraction]:
    """{link id: exact dual of its row} for the link rows of ``lp``."""
    return {row.name[len(ROW_PREFIX):]: duals[i] for i, row in enumerate(lp.rows)
            if row.name.startswith(ROW_PREFIX)}


def arc_link_weights(platform, prices) -> dict[Arc, object]:
    """{arc: sum of z_l · c_l over the shared links of its route}: what the link prices
    add to the arc's weight in the pricing and in the certificate (exact when the
    prices are, floats when they are floats).  Arcs without a priced link are absent."""
    weights: dict[Arc, object] = {}
    if not prices:
        return weights
    network = platform.network
    for link in shared_links(platform):
        z = prices.get(link.id, 0)
        if not z:
            continue
        for arc in network.crossing(link.id):
            if platform.has_link(*arc):
                weights[arc] = weights.get(arc, 0) + z * link.cost
    return weights


def link_loads(platform, n) -> dict[str, Fraction]:
    """{link id: busy time per time unit} of every shared crossed link under rates n."""
    loads = {}
    for link in shared_links(platform):
        loads[link.id] = sum((n.get(arc, 0) * link.cost
                              for arc in platform.network.crossing(link.id)), Fraction(0))
    return loads


def tree_link_usage(platform, parent: dict) -> dict[str, Fraction]:
    """{link id: time per message} the spanning tree child -> parent spends on each
    shared link: its column in the link rows of the tree master."""
    network = getattr(platform, "network", None)
    usage: dict[str, Fraction] = {}
    if network is None:
        return usage
    for child, par in parent.items():
        for link in network.shared_route(par, child):
            usage[link.id] = usage.get(link.id, Fraction(0)) + link.cost
    return usage


#: k-rows up to "at most this many at once" per shared link (:func:`k_rows`).
MOST_AT_ONCE = 5


def k_rows(platform, most: int = MOST_AT_ONCE) -> tuple[tuple[str, int, tuple[Arc, ...]], ...]:
    """((link id, k, arcs), ...): per shared link and k = 1..``most``, the arcs crossing
    it that hold more than 1/(k+1) of it (c_l / c_e > 1/(k+1)), when they are more than
    k.  A transfer runs at its arc's speed and holds c_l / c_e of the link, so at most k
    of them run at once: sum n_e c_e <= k (ours; proofs/network-links.md section 4).
    Remembered per network (platforms are immutable)."""
    network = getattr(platform, "network", None)
    if network is None:
        return ()
    return _k_rows(network, tuple((l.arc, l.cost) for l in platform.links), most)


@lru_cache(maxsize=16)
def _k_rows(network, costs, most: int) -> tuple:
    cost = dict(costs)
    rows = []
    for link in network.shared_links():
        crossing = [arc for arc in network.crossing(link.id) if arc in cost]
        for k in range(1, most + 1):
            arcs = tuple(sorted(a for a in crossing if (k + 1) * link.cost > cost[a]))
            if len(arcs) > k:
                rows.append((link.id, k, arcs))
    return tuple(rows)


def conflicting_arcs(platform) -> dict[str, frozenset]:
    """{shared link id: the arcs crossing it that hold more than half of it}: the
    k-rows with k = 1 (:func:`k_rows`).  Two of these never overlap in a timetable, so
    their total time per period is a lower bound on the period, like a port's.  The
    loads of every tree ask for it (on samples/simgrid/g5k-nancy-21.json it was a fifth
    of ``steady simulate``'s time before it was remembered)."""
    return {lid: frozenset(arcs) for lid, _, arcs in k_rows(platform, 1)}


# -- the links' rule at every instant (a timetable, a placement) --------------------------

def link_shares(platform, used) -> dict[Arc, list[tuple[str, Fraction]]]:
    """{arc: [(shared link id, c_l / c_arc), ...]} for the arcs of ``used`` whose route
    crosses shared network links: the part of each link's capacity a transfer on the arc
    holds while it runs (a transfer keeps its arc's speed).  Empty without shared links."""
    from ..errors import InputError

    out: dict[Arc, list] = {}
    for link in shared_links(platform):
        lid = link.id
        for arc in platform.network.crossing(lid):
            if arc in used:
                share = link.cost / platform.cost(*arc)
                if share > 1:
                    raise InputError("<platform>", f"network link {lid}",
                                     f"one transfer over {arc[0]}->{arc[1]} needs "
                                     f"{share} of its capacity: an arc's cost is at least "
                                     f"the cost of each link on its route")
                out.setdefault(arc, []).append((lid, share))
    return out


def integer_shares(links) -> tuple[dict, dict[str, int]]:
    """:func:`link_shares` in integers: each link's shares times the least common
    denominator of its shares, which becomes its capacity (exact, and fast to add)."""
    scale: dict[str, int] = {}
    for shares in links.values():
        for lid, share in shares:
            scale[lid] = math.lcm(scale.get(lid, 1), Fraction(share).denominator)
    return ({arc: [(lid, int(share * scale[lid])) for lid, share in shares]
             for arc, shares in links.items()}, scale)


def link_full(arc, parts: dict, in_use: dict, capacity: dict) -> bool:
    """Whether a shared link on ``arc``'s route lacks room for one more transfer on it
    (``parts``, ``capacity``: :func:`integer_shares`; ``in_use``: capacity held by the
    transfers in progress)."""
    return any(in_use.get(lid, 0) + share > capacity[lid]
               for lid, share in parts.get(arc, ()))
