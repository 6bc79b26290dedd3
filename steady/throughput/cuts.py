"""SSB(G) as an LP over (n, TP) with min-cut constraints added by max-flow separation:
the scalable default formulation.

002 §5.2 writes one flow per destination (|V||E| variables).  By max-flow/min-cut
(Ford-Fulkerson, as used in 002 Lemmas 2-3), "each destination P_i receives TP through
capacities n" is equivalent to: for every set S containing the source but not P_i,
sum_{e leaving S} n_e >= TP.  We keep the one-port rows, start with the in-cut of every
destination (S = V minus P_i, which makes the start exactly SSBPDAG of 002 §4.1), and add
a violated minimum cut each time a max-flow falls short (proofs/flow-vs-cuts-vs-trees.md).

The search runs in floats (GLOP + OR-Tools max-flow); the end point is re-solved and
checked exactly, and a cut found violated by the *exact* check is added before trying
again, so the loop ends on an exactly certified optimum.
"""

from __future__ import annotations

import time
from fractions import Fraction

from .exactlp import GE
from .maxflow import float_network
from .ports import rate_program
from .postcondition import FlowShortfall, certified_result

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

    ``program(platform, name, grows)`` builds the LP before the cuts (default: the
    one-port rows of :func:`~steady.throughput.ports.rate_program`); another model
    passes its own capacity rows over the same (n, TP) variables."""

    def __init__(self, platform, program=rate_program, name: str = "ssb-cuts"):
        self.platform = platform
        self.lp, self.nvar, self.tpvar, self.words = program(platform, name, grows="rows")
        self.cuts: set[frozenset] = set()
        self.rounds = 0
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


def solve_cuts(platform):
    """Exact optimal throughput of SSB(G) by cutting planes; see the module docstring."""
    start = time.perf_counter()
    planes = CutPlanes(platform)
    exact_rounds = 0
    while True:
        planes.converge_float()
        exact_rounds += 1
        solution = planes.lp.solve_exact()
        try:
            return certified_result(
                platform, planes.lp, solution, planes.nvar, planes.tpvar, planes.words,
                "cuts", stats={"separation_rounds": planes.rounds,
                               "exact_rounds": exact_rounds, "cuts": len(planes.cuts),
                               "seconds": round(time.perf_counter() - start, 4)})
        except FlowShortfall as short:
            if not planes.add(short.cut):
                raise AssertionError("exact check found a cut the LP already holds") from None
