"""Exact linear programming: a float simplex search, then an exact vertex and its proof.

Policy (docs/formats.md): GLOP finds an optimal *basis* in floating point; the floats
are then thrown away.  The basis alone is re-solved in rationals (python-flint's
``fmpq_mat``), and the rational vertex is accepted only if it passes an exact
primal-feasibility check and an exact dual-feasibility check (LP duality: a primal
feasible x and a dual feasible y with c·x = b·y are both optimal).  When the float basis
is wrong, GLOP is asked again with stricter settings; for small programs the exact
simplex of sympy is the last resort.  Nothing unverified is ever returned.

Programs are ``maximize c·x subject to rows, x >= 0`` with rows ``a·x (<=|>=|==) b``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
from ortools.linear_solver import pywraplp

from ..interrupts import solve_linear

from .limits import glop_limits

LE, GE, EQ = "<=", ">=", "=="


#: Wall-clock bound of one GLOP solve, in seconds (the last resort).
TIME_LIMIT = 600.0
#: Bound of one solve in GLOP's deterministic time units (about seconds, unloaded).
WORK_LIMIT = 120.0
#: Iteration budget of one solve: this many per row and column, plus a constant.
ITERATIONS_PER_ENTRY = 50
ITERATIONS_BASE = 10_000


class CertificationError(RuntimeError):
    """The float basis could not be turned into a verified exact optimum."""


@dataclass
class Row:
    coeffs: dict[int, Fraction]
    sense: str
    rhs: Fraction
    name: str


@dataclass
class ExactSolution:
    """An exactly verified optimal vertex: ``value = c·x = b·y``."""

    value: Fraction
    x: list[Fraction]
    duals: list[Fraction]
    basis_size: int
    stats: dict = field(default_factory=dict)
    #: the optimal basis, when known: per row ("col", j) or ("row", i) (a slack), the
    #: start of :func:`steady.exact.simplex.exact_simplex` after columns are added
    basis: list | None = None


class LinearProgram:
    """A maximisation LP with exact coefficients, mirrored into a GLOP model.

    Rows and variables may be added between solves (cutting planes, columns); GLOP then
    re-solves from its previous basis.  ``grows="rows"`` asks GLOP for its dual simplex:
    after added rows the old basis stays dual feasible, and on the cut LP of 65-node
    random platforms this cut the float search 3x, and its worst case 9x.
    """

    def __init__(self, name: str = "steady", grows: str = "columns"):
        self.title = name
        self._params = "use_dual_simplex: true" if grows == "rows" else ""
        self.names: list[str] = []
        self.objective: dict[int, Fraction] = {}
        self.rows: list[Row] = []
        self.columns: list[dict[int, Fraction]] = []  # column j: row -> coefficient
        self._new_solver()
        self.float_solves = 0
        self.float_seconds = 0.0

    def _new_solver(self) -> None:
        """A GLOP model mirroring the exact rows and columns (also used to start over
        when an incremental re-solve goes wrong)."""
        self._solver = pywraplp.Solver.CreateSolver("GLOP")
        if self._solver is None:  # pragma: no cover - ortools always ships GLOP
            raise RuntimeError("OR-Tools GLOP is not available")
        self._solver.SetSolverSpecificParametersAsString(self._params)
        inf = self._solver.infinity()
        self._vars = [self._solver.NumVar(0.0, inf, f"x{j}") for j in range(len(self.names))]
        self._cons = []
        for i, row in enumerate(self.rows):
            rhs = _mirror(row.rhs)
            lo, hi = {LE: (-inf, rhs), GE: (rhs, inf), EQ: (rhs, rhs)}[row.sense]
            con = self._solver.Constraint(lo, hi, f"r{i}")
            for j, a in row.coeffs.items():
                con.SetCoefficient(self._vars[j], _mirror(a))
            self._cons.append(con)
        self._objective = self._solver.Objective()
        self._objective.SetMaximization()
        for j, c in self.objective.items():
            self._objective.SetCoefficient(self._vars[j], _mirror(c))

    # -- building ----------------------------------------------------------------
    def add_variable(self, name: str, objective=0, column: dict[int, Fraction] | None = None) -> int:
        j = len(self.names)
        self.names.append(name)
        self.columns.append({})
        var = self._solver.NumVar(0.0, self._solver.infinity(), f"x{j}")
        self._vars.append(var)
        if objective:
            self.objective[j] = Fraction(objective)
            self._objective.SetCoefficient(var, _mirror(objective))
        for i, a in (column or {}).items():
            self._set(i, j, Fraction(a))
        return j

    def add_row(self, coeffs: dict[int, Fraction], sense: str, rhs, name: str) -> int:
        i = len(self.rows)
        coeffs = {j: Fraction(a) for j, a in coeffs.items() if a}
        self.rows.append(Row({}, sense, Fraction(rhs), name))
        inf = self._solver.infinity()
        f = _mirror(rhs)
        lo, hi = {LE: (-inf, f), GE: (f, inf), EQ: (f, f)}[sense]
        self._cons.append(self._solver.Constraint(lo, hi, f"r{i}"))
        for j, a in coeffs.items():
            self._set(i, j, a)
        return i

    def _set(self, i: int, j: int, a: Fraction) -> None:
        self.rows[i].coeffs[j] = a
        self.columns[j][i] = a
        self._cons[i].SetCoefficient(self._vars[j], _mirror(a))

    # -- solving -----------------------------------------------------------------
    def _limits(self) -> str:
        """GLOP's bound on the work of one solve (it can cycle on badly scaled data,
        issue 18 F01): a time limit and an iteration budget growing with the size."""
        return " " + glop_limits(len(self.names), len(self.rows))

    def solve_float(self, strict: bool = False):
        """GLOP's float optimum: (values, row duals).  ``strict`` disables presolve and
        tightens tolerances, for a second opinion when an exact check fails.  Raises
        CertificationError when GLOP ends without an optimum (limits included)."""
        if strict:
            parameters = (self._params + " use_preprocessing: false "
                          "primal_feasibility_tolerance: 1e-12 "
                          "dual_feasibility_tolerance: 1e-12" + self._limits())
        else:
            parameters = self._params + self._limits()
        start = time.perf_counter()
        status = solve_linear(self._solver, parameters)
        if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.INFEASIBLE,
                          pywraplp.Solver.UNBOUNDED):
            # GLOP occasionally ends ABNORMAL on an incremental re-solve after many
            # added columns (seen on tree masters of ~120 nodes): start from a fresh
            # model, without presolve.
            self._new_solver()
            status = solve_linear(self._solver,
                                  self._params + " use_preprocessing: false" + self._limits())
        self.float_seconds += time.perf_counter() - start
        self.float_solves += 1
        if status != pywraplp.Solver.OPTIMAL:
            raise CertificationError(f"GLOP status {status}: the LP has no optimum")
        return ([v.solution_value() for v in self._vars],
                [c.dual_value() for c in self._cons])

    def solve_exact(self, start: list | None = None, max_pivots: int = 0) -> ExactSolution:
        """The exact optimum: GLOP's basis re-solved in rationals and verified.  When
        that fails: with ``start`` (a primal feasible basis, e.g. the optimal basis of
        this program before columns were added), the exact simplex from it, at most
        ``max_pivots`` pivots (:mod:`steady.exact.simplex`); without, sympy's exact
        simplex for programs up to EXACT_FALLBACK_ENTRIES entries."""
        failure = None
        for strict in (False, True):
            try:
                self.solve_float(strict)
                return self._reconstruct()
            except CertificationError as exc:
                failure = exc
        if start is not None:
            return self._simplex_from(start, max_pivots)
        if len(self.names) * max(1, len(self.rows)) <= EXACT_FALLBACK_ENTRIES:
            return _sympy_fallback(self)
        raise CertificationError(f"no verified optimum from the float basis: {failure}")

    def _simplex_from(self, start: list, max_pivots: int) -> ExactSolution:
        from .simplex import SimplexLimit, exact_simplex

        begin = time.perf_counter()
        try:
            xq, yq, basis, pivots = exact_simplex(self, start, max_pivots)
        except (SimplexLimit, ZeroDivisionError) as exc:
            # the cause kept: a caller names its bound on a PivotLimit
            raise CertificationError(f"the exact simplex failed: {exc or 'singular start'}") \
                from exc
        x, y = [_fraction(v) for v in xq], [_fraction(v) for v in yq]
        self._verify(x, y)
        value = sum((self.objective[j] * x[j] for j in self.objective), Fraction(0))
        return ExactSolution(value, x, y, sum(k == "col" for k, _ in basis),
                             {"fallback": "exact simplex from a basis", "pivots": pivots,
                              "simplex_seconds": time.perf_counter() - begin}, basis)

    def _basis(self):
        basic = pywraplp.Solver.BASIC
        cols = [j for j, v in enumerate(self._vars) if v.basis_status() == basic]
        tight = [i for i, c in enumerate(self._cons) if c.basis_status() != basic]
        return cols, tight

    def _reconstruct(self) -> ExactSolution:
        start = time.perf_counter()
        cols, tight = self._basis()
        if len(cols) != len(tight):
            raise CertificationError(f"basis shape {len(tight)}x{len(cols)} is not square")
        x = [Fraction(0)] * len(self.names)
        y = [Fraction(0)] * len(self.rows)
        if cols:
            B = _matrix([[self.rows[i].coeffs.get(j, 0) for j in cols] for i in tight])
            try:
                xb = B.solve(_matrix([[self.rows[i].rhs] for i in tight]))
                yt = B.transpose().solve(_matrix([[self.objective.get(j, 0)] for j in cols]))
            except ZeroDivisionError:
                raise CertificationError("the float basis is singular") from None
            for k, j in enumerate(cols):
                x[j] = _fraction(xb[k, 0])
            for k, i in enumerate(tight):
                y[i] = _fraction(yt[k, 0])
        self._verify(x, y)
        value = sum((self.objective[j] * x[j] for j in self.objective), Fraction(0))
        tight_rows = set(tight)
        basis = [("col", j) for j in cols] + [("row", i) for i in range(len(self.rows))
                                              if i not in tight_rows]
        return ExactSolution(value, x, y, len(cols),
                             {"reconstruct_seconds": time.perf_counter() - start}, basis)

    def _verify(self, x, y) -> None:
        """Exact primal and dual feasibility; with complementary slackness they prove
        optimality (both objective values are then equal, checked too).  The sums run
        in FLINT rationals (exact, like Fraction, several times faster)."""
        for j, v in enumerate(x):
            if v < 0:
                raise CertificationError(f"variable {self.names[j]} = {v} < 0")
        xq, yq = [_q(v) for v in x], [_q(v) for v in y]
        zero = flint.fmpq(0)
        for i, row in enumerate(self.rows):
            lhs = sum((_q(a) * xq[j] for j, a in row.coeffs.items() if x[j]), zero)
            rhs = _q(row.rhs)
            if (row.sense == LE and lhs > rhs) or (row.sense == GE and lhs < rhs) \
                    or (row.sense == EQ and lhs != rhs):
                raise CertificationError(
                    f"row {row.name} violated: {_fraction(lhs)} {row.sense} {row.rhs}")
            if (row.sense == LE and y[i] < 0) or (row.sense == GE and y[i] > 0):
                raise CertificationError(f"dual of row {row.name} has the wrong sign: {y[i]}")
        for j, column in enumerate(self.columns):
            reduced = _q(self.objective.get(j, 0)) - sum(
                (yq[i] * _q(a) for i, a in column.items() if y[i]), zero)
            if reduced > 0:
                raise CertificationError(
                    f"variable {self.names[j]} has reduced cost {_fraction(reduced)} > 0")
        primal = sum((_q(self.objective[j]) * xq[j] for j in self.objective), zero)
        dual = sum((yq[i] * _q(row.rhs) for i, row in enumerate(self.rows)), zero)
        if primal != dual:
            raise CertificationError(f"duality gap {_fraction(dual - primal)}")


#: The largest LP (columns x rows) the exact simplex fallback takes when the float
#: basis fails its exact check (sympy's simplex: 47k entries took 1.3 s, 71k 2 s).
EXACT_FALLBACK_ENTRIES = 250_000
#: The float mirror's largest magnitude: exact numbers beyond it are clamped there (the
#: float search then only guides; the exact checks decide, and refuse a wrong basis).
FLOAT_CLAMP = 1e300


def _mirror(a) -> float:
    """An exact number as GLOP's float model holds it: clamped to +-FLOAT_CLAMP where it
    would overflow (issue 18 F02: a cost of 1e4300 is a valid exact input)."""
    try:
        return float(a)
    except OverflowError:
        return FLOAT_CLAMP if a > 0 else -FLOAT_CLAMP


def _q(a) -> "flint.fmpq":
    a = Fraction(a)
    return flint.fmpq(a.numerator, a.denominator)


def _matrix(rows) -> "flint.fmpq_mat":
    m, n = len(rows), len(rows[0]) if rows else 0
    flat = [_q(a) for r in rows for a in r]
    return flint.fmpq_mat(m, n, flat)


def _fraction(q) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def _rational(v) -> Fraction:
    """A sympy Rational -- or a plain int, which sympy's linprog returns for zeros --
    as a Fraction."""
    from sympy import Rational

    v = Rational(v)
    return Fraction(int(v.p), int(v.q))


def _sympy_fallback(lp: LinearProgram) -> ExactSolution:
    """Exact simplex (sympy) on the primal and on the dual; verified like the rest."""
    from sympy import Rational, Matrix
    from sympy.solvers.simplex import InfeasibleLPError, UnboundedLPError, linprog

    def solve(*args, **kwargs):
        # sympy's phase 1 can stall ("Oscillating system") or misjudge feasibility
        # (sympy 1.14, e.g. max 2x+3y+3z, 2x+3y <= 1, x+y+z <= 1): keep the contract,
        # which is a verified optimum or CertificationError.
        try:
            return linprog(*args, **kwargs)
        except (InfeasibleLPError, UnboundedLPError) as exc:
            raise CertificationError(f"sympy's exact simplex failed: {exc}") from None

    n, m = len(lp.names), len(lp.rows)
    A_ub, b_ub, A_eq, b_eq, ub_rows, eq_rows = [], [], [], [], [], []
    for i, row in enumerate(lp.rows):
        dense = [Rational(row.coeffs.get(j, 0)) for j in range(n)]
        if row.sense == EQ:
            A_eq.append(dense), b_eq.append(Rational(row.rhs)), eq_rows.append(i)
        else:
            sign = 1 if row.sense == LE else -1
            A_ub.append([sign * a for a in dense]), b_ub.append(sign * Rational(row.rhs))
            ub_rows.append((i, sign))
    c = Matrix([-Rational(lp.objective.get(j, 0)) for j in range(n)])
    kw = {}
    if A_ub:
        kw.update(A=Matrix(A_ub), b=Matrix(b_ub))
    if A_eq:
        kw.update(A_eq=Matrix(A_eq), b_eq=Matrix(b_eq))
    _, xs = solve(c, **kw)
    x = [_rational(v) for v in xs]
    # Dual: min b·y, A^T y >= c, y >= 0 on <= rows (sign-adjusted), free on == rows.
    k_ub, k_eq = len(ub_rows), len(eq_rows)
    dual_c = Matrix(list(b_ub) + list(b_eq) + [-v for v in b_eq])
    At = []
    for j in range(n):
        coeffs = [A_ub[r][j] for r in range(k_ub)] + [A_eq[r][j] for r in range(k_eq)]
        coeffs += [-A_eq[r][j] for r in range(k_eq)]
        At.append([-a for a in coeffs])
    _, ys = solve(dual_c, A=Matrix(At), b=Matrix([-Rational(lp.objective.get(j, 0))
                                                   for j in range(n)]))
    y = [Fraction(0)] * m
    for r, (i, sign) in enumerate(ub_rows):
        y[i] = sign * _rational(ys[r])
    for r, i in enumerate(eq_rows):
        plus, minus = ys[k_ub + r], ys[k_ub + k_eq + r]
        y[i] = _rational(plus) - _rational(minus)
    lp._verify(x, y)
    value = sum((lp.objective[j] * x[j] for j in lp.objective), Fraction(0))
    return ExactSolution(value, x, y, 0, {"fallback": "sympy exact simplex"})
