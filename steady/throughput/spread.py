"""The float search of the default method: cutting planes with a *spread* primal (ours;
the LP is SSB(G) of 002 §5.2 in the (n, TP) space of proofs/flow-vs-cuts-vs-trees.md;
why it converges in few rounds: proofs/spread-cuts.md).

Two LPs share the min-cut rows  n(δ+(S)) >= ·  found by max-flow separation:

* **A** (the bound): maximise TP subject to the capacity rows (one-port rows, and the
  shared network links of issue 19) and  n(δ+(S)) >= TP  for every known cut.  Its
  value U bounds the optimum from above, and its duals on the capacity rows are the
  port (and link) prices of the certificate.
* **B** (the spread primal): one variable t_d per destination, U <= t_d <= U(1+ρ),
  maximise sum t_d subject to the capacity rows and  n(δ+(S)) >= t_d  for the cuts
  found for d.  B is feasible exactly when A's value reaches U with the same cuts.

Kelley's loop on A alone ends at vertices that just meet the known cuts, and on sparse
platforms every round finds new ones (measured: 266 rounds at 200 nodes, more than 60
at 500 where each round found ~115 violated destinations).  B asks every destination
for as much as it can get, so its rates spread over many links and satisfy cuts that
were never written: 3 to 6 rounds at 500 and 1000 nodes.  B also rewards, far above
t_d, a margin m_d <= min(μU, t_d - U) per destination and a slack s_r <= ε per capacity
row, and its rates are separated at level min(t_d, U(1+μ/2)): at the end every
destination and row that can have slack has it, and the exact end (:mod:`.rounding`)
rounds these rates without recomputing a vertex.  A is solved again only when new cuts
make B infeasible (U was too high).

Every solve is a bounded GLOP search (:class:`~steady.exact.floatlp.FloatLP`); the
result is floats only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..exact.connectivity import Propagation, float_shortfalls
from ..exact.floatlp import FloatLP, FloatSearchFailed
from ..network.rows import link_row_coefficients, shared_links, ROW_PREFIX

#: ρ: destinations may ask B for up to U(1+ρ).
SPREAD = 0.5
#: μ: the margin over U asked first of every destination (as a share of U).
MARGIN = 1e-3
#: ε: the slack asked first of every capacity row.
INTERIOR = 1e-3
#: How much more a unit of margin or slack is worth than a unit of t_d / U.
WEIGHT = 100.0
#: A bound on the search's rounds (each adds >= 1 cut; the end is exact anyway).
MAX_ROUNDS = 500


@dataclass(frozen=True)
class CapacityRow:
    """A row  sum_e coeffs[e] · n_e <= 1  priced in the certificate: an out-port
    (key ("out", v)), an in-port (("in", v)) or a shared network link (("link", id))."""

    key: tuple
    words: str
    coeffs: dict


def capacity_rows(platform) -> list[CapacityRow]:
    """The one-port rows (002 eqs. (12)-(16)) and the shared-link rows (issue 19)."""
    rows = []
    for v in platform.nodes:
        out = {l.arc: l.cost for l in platform.out_links(v)}
        if out:
            rows.append(CapacityRow(("out", v), f"out-port of {v}", out))
        inn = {l.arc: l.cost for l in platform.in_links(v)}
        if inn and v != platform.source:
            rows.append(CapacityRow(("in", v), f"in-port of {v}", inn))
    for link in shared_links(platform):
        coeffs = {arc: c for arc, c in link_row_coefficients(platform, link).items()
                  if platform.has_link(*arc)}
        if coeffs:
            rows.append(CapacityRow(("link", link.id), ROW_PREFIX + link.id, coeffs))
    return rows


@dataclass
class SearchResult:
    """What the float search leaves for the exact end (floats only)."""

    level: float                       # U, A's value
    prices: dict                       # capacity row key -> A's dual (>= 0)
    cut_prices: dict                   # cut side -> A's dual (> 0)
    rates: list                        # B's n, per arc index of platform.arcs
    cuts: set
    stats: dict = field(default_factory=dict)


class SpreadSearch:
    """The A/B search of the module docstring on one platform."""

    def __init__(self, platform, rows: list[CapacityRow]):
        self.platform = platform
        self.rows = rows
        self.prop = Propagation(platform)
        self.arcs = self.prop.arcs
        self.arc_index = {a: k for k, a in enumerate(self.arcs)}
        self.dests = list(platform.destinations)
        self.a = FloatLP("bound LP", dual_simplex=True)
        self.b = FloatLP("spread LP", dual_simplex=True)
        for lp in (self.a, self.b):
            for _ in self.arcs:
                lp.add_column()
        self.tp = self.a.add_column(objective=1.0)
        self.t = {d: self.b.add_column() for d in self.dests}
        # Interior terms, rewarded WEIGHT times more than t_d: a margin m_d <= t_d - U
        # (at most μU) per destination and a slack s_r (at most ε) per row.
        self.m = {d: self.b.add_column() for d in self.dests}
        self.s = [self.b.add_column(objective=WEIGHT, upper=INTERIOR) for _ in rows]
        for row, s in zip(rows, self.s):
            coeffs = [(self.arc_index[a], float(c)) for a, c in row.coeffs.items()]
            self.a.add_row(coeffs, None, 1.0)
            self.b.add_row(coeffs + [(s, 1.0)], None, 1.0)
        self.margin_rows = {d: self.b.add_row([(self.t[d], 1.0), (self.m[d], -1.0)], 0.0, None)
                            for d in self.dests}
        self.a_cuts: dict[frozenset, int] = {}
        self.b_cuts: set = set()
        self.separation_seconds = 0.0
        self.max_flows = 0
        everyone = frozenset(platform.nodes)
        for d in self.dests:  # in-cuts: the start is SSBPDAG of 002 §4.1 on G
            self.add_cut(everyone - {d}, d)

    def crossing(self, side: frozenset) -> list[int]:
        """Arc indices leaving ``side``, found from its smaller part."""
        prop = self.prop
        if 2 * len(side) <= len(prop.nodes):
            return sorted(k for u in side for k in prop.out[prop.index[u]]
                          if self.arcs[k][1] not in side)
        return sorted(k for v in prop.nodes if v not in side
                      for k in prop.inn[prop.index[v]] if self.arcs[k][0] in side)

    def add_cut(self, side: frozenset, d: str) -> bool:
        """The cut S (source side) in A, and in B for destination d; True if new."""
        new = False
        arcs = None
        if side not in self.a_cuts:
            arcs = self.crossing(side)
            self.a_cuts[side] = self.a.add_row([(k, 1.0) for k in arcs] + [(self.tp, -1.0)],
                                               0.0, None)
            new = True
        if (side, d) not in self.b_cuts:
            arcs = arcs if arcs is not None else self.crossing(side)
            self.b.add_row([(k, 1.0) for k in arcs] + [(self.t[d], -1.0)], 0.0, None)
            self.b_cuts.add((side, d))
            new = True
        return new

    def _add_cuts(self, short) -> int:
        """Each short destination's minimum cuts: the one nearest the source and the one
        nearest to the destination (measured: on a platform whose bound is a far
        out-port, 5 rounds at 500 nodes with both, > 100 with the first alone; writing a
        cut for every short destination it separates made the LP too big to gain)."""
        return sum(self.add_cut(side, d) for d, _, sides in short for side in sides)

    def bound(self) -> float:
        """Solve A; keep its duals (read now: adding rows invalidates them)."""
        if not self.a.solve():  # pragma: no cover - TP = n = 0 is always feasible
            raise FloatSearchFailed("the bound LP is infeasible")
        duals = self.a.duals()
        self.prices = {row.key: max(0.0, duals[i]) for i, row in enumerate(self.rows)}
        self.cut_prices = {side: duals[i] for side, i in self.a_cuts.items()
                           if duals[i] > 1e-12}
        return self.a.value(self.tp)

    def run(self) -> SearchResult:
        start = time.perf_counter()
        self.level = self.bound()
        self.rounds = 0
        rates = self._converge()
        stats = {"rounds": self.rounds, "cuts": len(self.a_cuts),
                 "lp_solves": self.a.solves + self.b.solves,
                 "lp_iterations": self.a.iterations + self.b.iterations,
                 "float_lp_seconds": round(self.a.seconds + self.b.seconds, 4),
                 "separation_seconds": round(self.separation_seconds, 4),
                 "search_seconds": round(time.perf_counter() - start, 4)}
        return SearchResult(self.level, self.prices, self.cut_prices, rates,
                            set(self.a_cuts), stats)

    def _set_level(self, level: float) -> None:
        """B's bounds for the level U: U <= t_d <= U(1+ρ), m_d <= min(μU, t_d - U);
        objective sum t_d/U + WEIGHT (sum m_d/U + sum s_r)."""
        for d in self.dests:
            self.b.set_bounds(self.t[d], level * (1 - 1e-9), level * (1 + SPREAD))
            self.b.set_objective(self.t[d], 1.0 / level)
            self.b.set_bounds(self.m[d], 0.0, MARGIN * level)
            self.b.set_objective(self.m[d], WEIGHT / level)
            self.b.set_row_bounds(self.margin_rows[d], level, None)

    def _converge(self) -> list:
        """B's loop: solve, separate at min(t_d, U(1+μ/2)), add the cuts, until no
        destination falls short; A again when B turns infeasible.  Returns B's rates."""
        fresh_bound = True
        while True:
            self.rounds += 1
            if self.rounds > MAX_ROUNDS:
                raise FloatSearchFailed(f"no spread primal after {MAX_ROUNDS} rounds")
            level = self.level
            self._set_level(level)
            if not self.b.solve():
                if fresh_bound:  # U is out of reach even for A's own cuts: float trouble
                    raise FloatSearchFailed("the spread LP is infeasible at A's value")
                self.level, fresh_bound = self.bound(), True
                continue
            values = self.b.values()
            rates = [max(0.0, x) for x in values[:len(self.arcs)]]
            need = [0.0] * len(self.prop.nodes)
            top = level * (1 + MARGIN / 2)
            for d in self.dests:
                need[self.prop.index[d]] = min(values[self.t[d]], top)
            sep = time.perf_counter()
            short = float_shortfalls(self.prop, rates, need, top, tolerance=1e-7)
            self.separation_seconds += time.perf_counter() - sep
            if not short:
                return rates
            if not self._add_cuts(short):
                return rates  # shortfalls within GLOP's tolerance on known cuts
            fresh_bound = False
