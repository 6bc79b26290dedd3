"""SSB(G) exactly as 002 §5.2 writes it (and 000 §4.1, LP (2)): the reference formulation.

Maximise TP subject to, for every destination P_i, a flow x_i of value TP from the
source to P_i (eqs. (7)-(9), normalised by TP instead of T*), x_i^{j,k} <= n_{j,k}
(eq. (10) relaxed to <=, which has the same optimum), and the one-port rows (11)-(16).
|V||E| flow variables: exact but heavy, kept as the reference the fast formulation is
tested against.
"""

from __future__ import annotations

import time
from fractions import Fraction

from ..exact.lp import EQ, LE
from .ports import rate_program
from .postcondition import certified_result


def solve_flow(platform):
    start = time.perf_counter()
    lp, nvar, tpvar, words = rate_program(platform, "ssb-flow")
    for i in platform.destinations:
        x = {l.arc: lp.add_variable(f"x[{i}][{l.tail}->{l.head}]") for l in platform.links}
        for v in platform.nodes:
            if v == platform.source:
                continue
            balance = {x[l.arc]: Fraction(1) for l in platform.in_links(v)}
            for l in platform.out_links(v):
                balance[x[l.arc]] = balance.get(x[l.arc], 0) - 1
            if v == i:  # what reaches P_i, net of what leaves it, is TP (eq. (8))
                balance[tpvar] = Fraction(-1)
            lp.add_row(balance, EQ, 0, f"conservation of flow {i} at {v}")
        for arc, j in x.items():
            lp.add_row({j: 1, nvar[arc]: -1}, LE, 0, f"x[{i}] <= n on {arc[0]}->{arc[1]}")
    solution = lp.solve_exact()
    return certified_result(platform, lp, solution, nvar, tpvar, words, "flow",
                            stats={"seconds": round(time.perf_counter() - start, 4)})
