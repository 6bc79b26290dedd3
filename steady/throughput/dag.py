"""SSBPDAG(G) of 002 §4.1: on a DAG every destination receives exactly TP per time unit
(eq. (6)) within the one-port rows (eqs. (2)-(5)).  On a DAG this equals SSB(G)
(Theorem 2 builds the schedule; a node first in topological order on the far side of
any cut receives all of its TP across that cut)."""

from __future__ import annotations

import time
from fractions import Fraction

from ..errors import InputError
from ..exact.lp import EQ
from .ports import rate_program
from .postcondition import certified_result


def solve_dag(platform, origin: str = "<platform>"):
    if not platform.is_dag():
        raise InputError(origin, "links", "the platform has a cycle; --dag needs a DAG "
                         "(SSBPDAG of 002 §4.1)")
    start = time.perf_counter()
    lp, nvar, tpvar, words = rate_program(platform, "ssbpdag")
    for v in platform.destinations:
        row = {nvar[l.arc]: Fraction(1) for l in platform.in_links(v)}
        row[tpvar] = Fraction(-1)
        i = lp.add_row(row, EQ, 0, f"{v} receives TP")
        words[i] = lp.rows[i].name
    solution = lp.solve_exact()
    return certified_result(platform, lp, solution, nvar, tpvar, words, "ssbpdag",
                            scope="dag", stats={"seconds": round(time.perf_counter() - start, 4)})
