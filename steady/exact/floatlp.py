"""A float LP for searches only: GLOP through OR-Tools, with a bound on its work (ours).

:class:`~steady.exact.lp.LinearProgram` mirrors every coefficient in exact rationals so
that its basis can be re-solved exactly; a search that only needs GLOP's floats (the
throughput search of :mod:`steady.throughput.spread`, thousands of rows) skips that
mirror.  Rows and columns are added to the same GLOP object between solves, so GLOP
starts from its previous basis (pywraplp keeps it: measured on the cut LP of a 200-node
platform, 76 dual-simplex iterations after 46 new rows instead of 620 from scratch).

Every solve is bounded (:mod:`steady.exact.limits`): GLOP can cycle on badly scaled data
(issue 18 F01: one cost 1e16 among costs 1).  A warm-started solve that ends
otherwise than OPTIMAL or INFEASIBLE is tried once more from scratch; then
:class:`FloatSearchFailed` is raised, and the caller takes an exact way out.  Nothing here is
ever a result: the floats only guide an exact construction that is checked exactly.
"""

from __future__ import annotations

import time

from ortools.linear_solver import pywraplp

from ..interrupts import solve_linear

from .limits import glop_limits
from .lp import CertificationError


class FloatSearchFailed(CertificationError):
    """GLOP ended without an optimum (time or iteration limit, numerical trouble)."""


class FloatLP:
    """``maximize c·x`` over rows ``lo <= a·x <= hi`` and bounds on x, in GLOP floats.

    ``dual_simplex`` suits LPs that grow by rows (cutting planes: the old basis stays
    dual feasible)."""

    def __init__(self, name: str = "search", dual_simplex: bool = False):
        self.name = name
        self._solver = pywraplp.Solver.CreateSolver("GLOP")
        if self._solver is None:  # pragma: no cover - ortools always ships GLOP
            raise RuntimeError("OR-Tools GLOP is not available")
        self._dual = dual_simplex
        self.inf = self._solver.infinity()
        self._vars = []
        self._rows = []
        self._objective = self._solver.Objective()
        self._objective.SetMaximization()
        self._model = ([], [])  # columns (objective, lower, upper), rows (coeffs, lo, hi)
        self.solves = 0
        self.iterations = 0
        self.seconds = 0.0

    @property
    def columns(self) -> int:
        return len(self._vars)

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def add_column(self, objective: float = 0.0, lower: float = 0.0,
                   upper: float | None = None) -> int:
        j = len(self._vars)
        var = self._solver.NumVar(lower, self.inf if upper is None else upper, f"x{j}")
        self._vars.append(var)
        if objective:
            self._objective.SetCoefficient(var, objective)
        self._model[0].append([objective, lower, upper])
        return j

    def add_row(self, coefficients, lower: float | None, upper: float | None) -> int:
        """Row ``lower <= sum a_j x_j <= upper`` (None: unbounded side) over
        ``coefficients``, pairs (column, a_j)."""
        i = len(self._rows)
        coefficients = list(coefficients)
        self._rows.append(self._constraint(coefficients, lower, upper))
        self._model[1].append((coefficients, lower, upper))
        return i

    def _constraint(self, coefficients, lower, upper):
        row = self._solver.Constraint(-self.inf if lower is None else lower,
                                      self.inf if upper is None else upper, "")
        for j, a in coefficients:
            row.SetCoefficient(self._vars[j], a)
        return row

    def _rebuild(self) -> None:
        """A fresh GLOP model from the stored one (no basis to start from)."""
        self._solver = pywraplp.Solver.CreateSolver("GLOP")
        self._objective = self._solver.Objective()
        self._objective.SetMaximization()
        self._vars = []
        for objective, lower, upper in self._model[0]:
            var = self._solver.NumVar(lower, self.inf if upper is None else upper, "")
            self._vars.append(var)
            if objective:
                self._objective.SetCoefficient(var, objective)
        self._rows = [self._constraint(*row) for row in self._model[1]]

    def set_objective(self, j: int, coefficient: float) -> None:
        self._objective.SetCoefficient(self._vars[j], coefficient)
        self._model[0][j][0] = coefficient

    def set_bounds(self, j: int, lower: float, upper: float | None) -> None:
        self._vars[j].SetBounds(lower, self.inf if upper is None else upper)
        self._model[0][j][1:] = [lower, upper]

    def set_row_bounds(self, i: int, lower: float | None, upper: float | None) -> None:
        self._rows[i].SetBounds(-self.inf if lower is None else lower,
                                self.inf if upper is None else upper)
        coefficients = self._model[1][i][0]
        self._model[1][i] = (coefficients, lower, upper)

    def solve(self) -> bool:
        """Solve from the last basis; True when optimal, False when infeasible.
        Raises :class:`FloatSearchFailed` on anything else (limits included)."""
        for attempt in (0, 1):
            if attempt:
                self._rebuild()
            start = time.perf_counter()
            status = solve_linear(self._solver,
                                  glop_limits(len(self._vars), len(self._rows))
                                  + (" use_dual_simplex: true" if self._dual else ""))
            self.seconds += time.perf_counter() - start
            self.solves += 1
            self.iterations += self._solver.iterations()
            if status == pywraplp.Solver.OPTIMAL:
                return True
            if status == pywraplp.Solver.INFEASIBLE:
                return False
        raise FloatSearchFailed(f"{self.name}: GLOP ended with status {status} "
                                f"after {self._solver.iterations()} iterations")

    def values(self) -> list[float]:
        return [v.solution_value() for v in self._vars]

    def value(self, j: int) -> float:
        return self._vars[j].solution_value()

    def duals(self) -> list[float]:
        return [row.dual_value() for row in self._rows]
