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

from ..exact.cutplanes import CutPlanes
from .ports import rate_program
from .postcondition import FlowShortfall, certified_result

def solve_cuts(platform):
    """Exact optimal throughput of SSB(G) by cutting planes; see the module docstring."""
    start = time.perf_counter()
    planes = CutPlanes(platform, rate_program, "ssb-cuts")
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
