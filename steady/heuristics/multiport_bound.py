"""The multi-port steady-state upper bound: what no multi-port schedule can beat.

Seed 000 §5.2.2 compares multi-port trees with the one-port LP because "we do not know
how to compute the optimal throughput under the multi-port model".  This module computes
an exact, certified *upper bound* on the throughput of every multi-port schedule (several
trees, any routing, periodic or not), in the model of 000 §2.2 / §3.2 (Bar-Noy et al.,
000 eq. (1)): sending one message on the link u->v occupies the sender u for ``send_u``
(the platform's ``send_overhead``) and the link for T_uv (its ``cost``); the sends of a
node are serialized, its links work in parallel.  The LP over rates n_uv (messages per
time unit on u->v) is 002 §5.2 with the one-port rows replaced by the multi-port ones:

    maximise TP
    s.t.  for every set S holding the source but not every node:
              sum_{(u,v) leaving S} n_uv >= TP                    (min cuts, 002 Lemma 2)
          send overhead of u:   sum_v n_uv · send_u <= 1          (serialized sends)
          link u->v:            n_uv · T_uv <= 1                   (one message at a time)

The platform format has no receive overhead (recv_v is inside T_uv, 000 eq. (1)), so no
receive row: a receive row would only lower the value, and the bound stays valid for any
recv_v >= 0.  Why this bounds every schedule, why the value is not always achievable (so
it is a *bound*, not the multi-port optimum), and the certificate: proofs/multiport-bound.md.

The cuts are generated as in :mod:`steady.throughput.cuts` (same class, other capacity
rows); the end point is exact, its max-flows are checked exactly, the LP duals give
prices under which every spanning arborescence costs >= 1 (the certificate), and the
optimum is decomposed into weighted trees with 002 Thm 5 (:mod:`steady.schedule.branchings`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError
from ..numbers import format_exact
from ..exact.arborescence import cheapest_link_arborescence, peeled_trees
from ..exact.cutplanes import CutPlanes, add_rate_variables
from ..exact.lp import LE, LinearProgram
from ..exact.maxflow import weakest_destination
from ..exact.scaling import solve_scaled
from ..platform import Arc
from .models import assert_arborescence, send_overheads

_TOLERANCE = 1e-9


@dataclass(frozen=True)
class MultiportBound:
    """The multi-port steady-state upper bound of a platform, with its proof.

    ``throughput``: the LP value, an upper bound on every multi-port schedule.
    ``n``: optimal rates per link.  ``trees``: ((child -> parent, rate), ...) with rates
    summing to ``throughput`` whose loads fit every row (a decomposition of ``n``).
    Certificate: ``send_prices`` y_u >= 0 and ``link_prices`` z_uv >= 0 summing to
    ``throughput`` under which every spanning arborescence costs
    sum_{(u,v) in T} (send_u·y_u + T_uv·z_uv) >= 1 (``min_tree_cost``, exact Edmonds);
    ``bottleneck`` names the rows with a positive price.
    """

    throughput: Fraction
    n: dict[Arc, Fraction]
    trees: tuple[tuple[dict, Fraction], ...]
    send_prices: dict[str, Fraction]
    link_prices: dict[Arc, Fraction]
    min_tree_cost: Fraction
    bottleneck: list[str]
    stats: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"throughput": format_exact(self.throughput),
                "n": [{"from": u, "to": v, "n": format_exact(x)}
                      for (u, v), x in self.n.items() if x],
                "trees": [{"rate": format_exact(rate),
                           "edges": [[p, c] for c, p in parent.items()]}
                          for parent, rate in self.trees],
                "certificate": {
                    "send_prices": {v: format_exact(y) for v, y in self.send_prices.items()
                                    if y},
                    "link_prices": [{"from": u, "to": v, "price": format_exact(z)}
                                    for (u, v), z in self.link_prices.items() if z],
                    "min_tree_cost": format_exact(self.min_tree_cost)},
                "bottleneck": list(self.bottleneck)}


class MultiportProgram:
    """Builds the multi-port rows over (n, TP) for :class:`CutPlanes` on a platform
    whose costs were divided by ``scale`` (:func:`steady.exact.scaling.solve_scaled`):
    the send overheads are divided here; remembers which row is which."""

    def __init__(self, send: dict, scale: Fraction):
        self.send, self.scale = send, scale
        self.send_rows: dict[int, str] = {}
        self.link_rows: dict[int, Arc] = {}

    def __call__(self, platform, name: str, grows: str = "rows"):
        lp = LinearProgram(name, grows)
        nvar = add_rate_variables(lp, platform)
        tpvar = lp.add_variable("TP", objective=1)
        words = {}
        for u in platform.nodes:
            overhead = self.send.get(u, Fraction(0)) / self.scale
            if platform.out_links(u) and overhead:
                text = f"send overhead of {u}"
                row = lp.add_row({nvar[l.arc]: overhead for l in platform.out_links(u)},
                                 LE, 1, text)
                self.send_rows[row], words[row] = u, text
        for l in platform.links:
            text = f"link {l.tail}->{l.head}"
            row = lp.add_row({nvar[l.arc]: l.cost}, LE, 1, text)
            self.link_rows[row], words[row] = l.arc, text
        return lp, nvar, tpvar, words


def multiport_bound(platform, origin: str = "<platform>") -> MultiportBound:
    """The exact multi-port steady-state upper bound (000 §2.2, §3.2 model; the LP of
    002 §5.2 with multi-port rows, solved by min-cut cutting planes), its price
    certificate and a decomposition into weighted trees (002 Thm 5).  Needs a send
    overhead for every node with an out-link (InputError otherwise)."""
    start = time.perf_counter()
    send = {u: Fraction(o) for u, o in send_overheads(platform, origin).items()}
    for u, o in send.items():
        if o < 0:
            raise InputError(origin, f"send_overhead.{u}", "must be >= 0")
    planes, program, solution, n, tp, a = solve_scaled(
        platform, lambda scaled, a: _converge(platform, scaled, send, a))
    y = {u: solution.duals[row] / a for row, u in program.send_rows.items()}
    z = {arc: solution.duals[row] / a for row, arc in program.link_rows.items()}
    bottleneck = [planes.words[row] for row in sorted(program.send_rows.keys()
                                                      | program.link_rows.keys())
                  if solution.duals[row]]
    trees = decompose(platform, n, tp)
    result = MultiportBound(
        tp, n, tuple(trees), y, z, min_tree_cost(platform, send, y, z), bottleneck,
        {"cuts": len(planes.cuts), "separation_rounds": planes.rounds,
         "exact_rounds": planes.exact_rounds, "trees": len(trees),
         "seconds": round(time.perf_counter() - start, 4)})
    check_multiport_bound(platform, result)
    return result


def _converge(platform, scaled, send, a):
    """Cutting planes on the scaled platform until the exact end point's max-flows reach
    its TP on the caller's ``platform``; returns (planes, program, exact solution, n, TP,
    a) with n and TP scaled back."""
    program = MultiportProgram(send, a)
    planes = CutPlanes(scaled, program, "multiport-cuts")
    while True:
        planes.converge_float()
        planes.exact_rounds += 1
        solution = planes.lp.solve_exact()
        tp = solution.x[planes.tpvar] / a
        # Rates into the source reach no destination: dropping them keeps every
        # max-flow and only frees rows (as in steady.throughput.postcondition).
        n = {arc: (solution.x[j] / a if arc[1] != platform.source else Fraction(0))
             for arc, j in planes.nvar.items()}
        flow, _, cut = weakest_destination(platform, n)
        if flow >= tp:
            return planes, program, solution, n, tp, a
        if not planes.add(cut):  # pragma: no cover - the exact check found a known cut
            raise AssertionError("exact check found a cut the LP already holds")


def decompose(platform, n: dict[Arc, Fraction], tp: Fraction) -> list[tuple[dict, Fraction]]:
    """Trees with rates summing to ``tp`` whose per-link usage is at most ``n`` (002
    Thm 5; they exist because every destination receives ``tp`` through ``n``).

    Found as an optimal basis of  max sum_T μ_T  s.t.  sum_{T ∋ e} μ_T <= n_e / tp  on the
    links of positive rate, by column generation (pricing: a cheapest arborescence under
    the row duals, floats as a search only); the value is exactly 1 at the end, so at
    most one tree per such link.  Much faster than the arc-by-arc construction of
    :func:`steady.schedule.branchings.weighted_branchings` (7 s -> 0.2 s on 50 nodes, density 0.2).
    """
    support = [l for l in platform.links if n.get(l.arc, 0) > 0]
    lp = LinearProgram("multiport-trees")
    rows = {l.arc: lp.add_row({}, LE, n[l.arc] / tp, f"link {l.tail}->{l.head}")
            for l in support}
    trees: list[dict] = []
    known: set[frozenset] = set()

    def cheapest(weights) -> tuple[object, dict]:
        return cheapest_link_arborescence(platform.nodes, platform.source, support,
                                          weights)

    def add(parent: dict) -> bool:
        key = frozenset(parent.items())
        if key in known:
            return False
        known.add(key)
        trees.append(parent)
        lp.add_variable(f"tree{len(trees) - 1}", objective=1,
                        column={rows[(p, c)]: 1 for c, p in parent.items()})
        return True

    add(cheapest([float(tp / n[l.arc]) for l in support])[1])  # wide links first
    rates = {l.arc: float(n[l.arc] / tp) for l in support}
    zero = [0.0] * len(platform.nodes)
    for parent in peeled_trees(platform, rates, (zero, zero), len(platform.nodes)):
        add(parent)
    while True:
        while True:  # float column generation
            _, duals = lp.solve_float()
            cost, parent = cheapest([max(0.0, duals[rows[l.arc]]) for l in support])
            if not (cost < 1 - _TOLERANCE and add(parent)):
                break
        solution = lp.solve_exact()
        if solution.value == 1:
            break
        cost, parent = cheapest([solution.duals[rows[l.arc]] for l in support])
        if cost >= 1 or not add(parent):  # pragma: no cover - Thm 5
            raise AssertionError("postcondition: n holds no trees of total rate TP")
    return [(trees[k], x * tp) for k, x in enumerate(solution.x) if x]


def min_tree_cost(platform, send, y, z) -> Fraction:
    """Exact cost of the cheapest spanning arborescence under the arc weights
    send_u·y_u + T_uv·z_uv (Edmonds, in integers after scaling)."""
    weights = [Fraction(send.get(l.tail, 0) * y.get(l.tail, 0) + l.cost * z.get(l.arc, 0))
               for l in platform.links]
    return cheapest_link_arborescence(platform.nodes, platform.source, platform.links,
                                      weights)[0]


def row_loads(platform, send, trees) -> tuple[dict[str, Fraction], dict[Arc, Fraction]]:
    """Per time unit, under tree rates: each sender's serialized overhead
    sum_T λ_T·δ_T(u)·send_u, and each link's occupation sum_{T ∋ uv} λ_T·T_uv."""
    sender = {u: Fraction(0) for u in platform.nodes}
    link = {arc: Fraction(0) for arc in platform.arcs}
    for parent, rate in trees:
        for child, par in parent.items():
            sender[par] += rate * send.get(par, 0)
            link[(par, child)] += rate * platform.cost(par, child)
    return sender, link


def check_multiport_bound(platform, result: MultiportBound) -> None:
    """Runtime postcondition, exact: the trees are spanning arborescences with positive
    rates summing to TP and loads within every row and within n; n respects every row;
    the prices are >= 0, sum to TP, and every arborescence costs >= 1 under them."""
    send = send_overheads(platform)
    tp = result.throughput
    for parent, rate in result.trees:
        assert_arborescence(platform, parent, "<multiport bound>")
        if rate <= 0:
            raise AssertionError("postcondition: a tree with rate <= 0")
    if sum(rate for _, rate in result.trees) != tp:
        raise AssertionError("postcondition: tree rates do not sum to TP")
    used: dict[Arc, Fraction] = {}
    for parent, rate in result.trees:
        for child, par in parent.items():
            used[(par, child)] = used.get((par, child), 0) + rate
    if any(x > result.n.get(arc, 0) for arc, x in used.items()):
        raise AssertionError("postcondition: the trees use more than n on a link")
    for sender, link in (row_loads(platform, send, result.trees),
                         row_loads(platform, send, [({v: u}, x) for (u, v), x
                                                    in result.n.items()])):
        if any(t > 1 for t in sender.values()) or any(t > 1 for t in link.values()):
            raise AssertionError("postcondition: a multi-port row is overloaded")
    prices = list(result.send_prices.values()) + list(result.link_prices.values())
    if any(p < 0 for p in prices) or sum(prices) != tp:
        raise AssertionError("postcondition: prices are negative or do not sum to TP")
    if result.min_tree_cost < 1:
        raise AssertionError(f"postcondition: an arborescence costs "
                             f"{result.min_tree_cost} < 1 under the prices")

