"""Min-cut cutting planes over (n, TP): "every destination receives TP through the
rates n" as the cuts  sum_{e leaving S} n_e >= TP  (max-flow/min-cut, as in 002 Lemmas
2-3), added lazily by max-flow separation (proofs/flow-vs-cuts-vs-trees.md).

The machinery is shared by every model with capacity rows over per-link rates: the
one-port SSB(G) of :mod:`steady.throughput.cuts` and the multi-port bound of
:mod:`steady.heuristics.multiport_bound`.  The search runs in floats; callers re-solve
the end point exactly (:meth:`LinearProgram.solve_exact`) and check it.
"""

from __future__ import annotations

from fractions import Fraction

from .lp import GE, LinearProgram
from .maxflow import float_network


def add_rate_variables(lp: LinearProgram, platform) -> dict[tuple[str, str], int]:
    """One variable n_{j,k} >= 0 per link."""
    return {l.arc: lp.add_variable(f"n[{l.tail}->{l.head}]") for l in platform.links}


_TOLERANCE = 1e-9


def cut_words(platform, side: frozenset) -> str:
    """A cut in words, naming its smaller side: ``cut {Ps,P1} | rest``."""
    inside = [v for v in platform.nodes if v in side]
    outside = [v for v in platform.nodes if v not in side]
    if len(inside) <= len(outside):
        return "cut {" + ",".join(inside) + "} | rest"
    return "cut rest | {" + ",".join(outside) + "}"


def _add_cut(lp, platform, nvar, tpvar, side, words, cuts):
    if side in cuts:
        return False
    coeffs = {nvar[l.arc]: Fraction(1) for l in platform.links
              if l.tail in side and l.head not in side}
    coeffs[tpvar] = Fraction(-1)
    row = lp.add_row(coeffs, GE, 0, cut_words(platform, side))
    words[row] = lp.rows[row].name
    cuts.add(side)
    return True


def _separate(platform, lp, nvar, tpvar, nvals, words, cuts) -> int:
    """Add the minimum cut of every destination whose float max-flow is short."""
    n = {arc: nvals[j] for arc, j in nvar.items()}
    network, scale = float_network(platform, n)
    need = nvals[tpvar] * scale * (1 - _TOLERANCE)
    added = 0
    for d in platform.destinations:
        if network.max_flow(d) < need:
            _, side = network.min_cut(d)
            added += _add_cut(lp, platform, nvar, tpvar, side, words, cuts)
    return added


class CutPlanes:
    """The cut LP with its rows; :meth:`converge_float` runs the float separation.

    ``program(platform, name, grows)`` builds the LP before the cuts: its capacity rows
    over the (n, TP) variables of :func:`add_rate_variables` (the one-port rows for
    SSB(G), the multi-port rows for the multi-port bound)."""

    def __init__(self, platform, program, name: str):
        self.platform = platform
        self.lp, self.nvar, self.tpvar, self.words = program(platform, name, grows="rows")
        self.cuts: set[frozenset] = set()
        self.rounds = 0
        self.exact_rounds = 0  # kept by the callers that re-solve exactly
        everyone = frozenset(platform.nodes)
        for d in platform.destinations:
            self.add(everyone - {d})

    def add(self, side: frozenset) -> bool:
        return _add_cut(self.lp, self.platform, self.nvar, self.tpvar, side,
                        self.words, self.cuts)

    def converge_float(self):
        """Solve and separate in floats until no cut is violated; returns GLOP's last
        (values, duals)."""
        while True:
            self.rounds += 1
            values, duals = self.lp.solve_float()
            if not _separate(self.platform, self.lp, self.nvar, self.tpvar, values,
                             self.words, self.cuts):
                return values, duals
