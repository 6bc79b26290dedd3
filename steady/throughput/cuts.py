"""SSB(G) as an LP over (n, TP) with min-cut constraints added by max-flow separation:
the scalable default formulation.

002 §5.2 writes one flow per destination (|V||E| variables).  By max-flow/min-cut
(Ford-Fulkerson, as used in 002 Lemmas 2-3), "each destination P_i receives TP through
capacities n" is equivalent to: for every set S containing the source but not P_i,
sum_{e leaving S} n_e >= TP.  We keep the one-port rows, start with the in-cut of every
destination (S = V minus P_i, which makes the start exactly SSBPDAG of 002 §4.1), and add
a violated minimum cut each time a max-flow falls short (proofs/flow-vs-cuts-vs-trees.md).

The fast route (ours, proofs/spread-cuts.md): the float search of :mod:`.spread` (a
bound LP and a spread primal LP sharing the cuts) and the exact end of
:mod:`.rounding` (exact prices from the bound's duals, exact rates rounded from the
spread primal, everything checked exactly).  When the search fails or its end cannot
be made exact, the exact route below takes over: Kelley's loop, the end point re-solved
exactly from GLOP's basis, a cut found violated by the *exact* check added before trying
again -- and, when GLOP itself gives up (issue 18 F01), the exact simplex of sympy on
small programs.  Every route ends on an exactly certified optimum.
"""

from __future__ import annotations

import time

from ..exact.cutplanes import CutPlanes
from ..exact.floatlp import FloatSearchFailed
from ..exact.lp import CertificationError
from .ports import rate_program
from .postcondition import FlowShortfall, certified_result
from .rounding import certify_rounded
from .spread import SpreadSearch, capacity_rows


def solve_cuts(platform):
    """Exact optimal throughput of SSB(G) by cutting planes; see the module docstring."""
    start = time.perf_counter()
    rows = capacity_rows(platform)
    fallback = "search failed"
    try:
        found = SpreadSearch(platform, rows).run()
        result = certify_rounded(platform, rows, found)
        if result is not None:
            result.stats["seconds"] = round(time.perf_counter() - start, 4)
            result.stats["route"] = "spread search, rounded"
            return result
        fallback = "rounding not exact"
    except FloatSearchFailed:
        pass
    result = solve_cuts_exactly(platform)
    result.stats["route"] = f"exact cut loop ({fallback})"
    result.stats["seconds"] = round(time.perf_counter() - start, 4)
    return result


def solve_cuts_exactly(platform):
    """Kelley's cutting-plane loop ending on an exact basis (the exact route)."""
    start = time.perf_counter()
    planes = CutPlanes(platform, rate_program, "ssb-cuts")
    exact_rounds = 0
    while True:
        try:
            planes.converge_float()
        except CertificationError:
            # GLOP gave up (time or iteration limit): no float guide; the exact simplex
            # of solve_exact decides on small programs, or raises CertificationError.
            pass
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
