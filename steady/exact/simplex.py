"""An exact primal simplex started from a feasible basis (ours; the textbook revised
simplex, Dantzig's rule with Bland's rule after degenerate pivots, in FLINT rationals).

For column generation in exact arithmetic (proofs/collective-exact-way-out.md): the
previous master's optimal basis stays primal feasible when columns are added, so a few
pivots from it reach the new optimum -- where sympy's simplex starts over on dense
matrices (minutes on a 112-row master of 400 trees).

Programs are :class:`~steady.exact.lp.LinearProgram` s: ``maximize c·x, rows a·x
(<=|>=|==) b, x >= 0``.  A basis is a list, one entry per row, of ``("col", j)`` (a
structural variable) or ``("row", i)`` (row i's slack: +1 on a <= row, -1 on a >= row;
on an == row an artificial variable held at 0, which may leave the basis and never
enters).  The caller checks the answer exactly (``LinearProgram.solve_exact``).
"""

from __future__ import annotations

import flint

#: Degenerate pivots in a row after which the entering and leaving variables are
#: chosen by Bland's rule (smallest index), which cannot cycle.
DEGENERATE_STREAK = 20


class SimplexLimit(RuntimeError):
    """The exact simplex stopped: its start was not a feasible basis, the program is
    unbounded, or (:class:`PivotLimit`) its pivot bound was reached."""


class PivotLimit(SimplexLimit):
    """The exact simplex reached its pivot bound without an optimum."""


def _q(a) -> "flint.fmpq":
    return flint.fmpq(a.numerator, a.denominator)


def exact_simplex(lp, basis, max_pivots: int):
    """(x, y, basis, pivots) of an optimal vertex of ``lp`` reached from the primal
    feasible ``basis`` in ``pivots`` <= ``max_pivots`` pivots (x and y as FLINT
    rationals).  Raises PivotLimit beyond the bound, SimplexLimit when
    ``basis`` is not a feasible basis, ZeroDivisionError when it is singular."""
    m, n = len(lp.rows), len(lp.names)
    zero, one = flint.fmpq(0), flint.fmpq(1)
    signs = [{"<=": 1, ">=": -1, "==": 0}[row.sense] for row in lp.rows]
    columns = [{i: _q(a) for i, a in col.items()} for col in lp.columns]
    costs = [_q(lp.objective.get(j, 0)) for j in range(n)]
    b = flint.fmpq_mat(m, 1, [_q(row.rhs) for row in lp.rows])
    order = {("col", j): j for j in range(n)}
    order.update({("row", i): n + i for i in range(m)})
    basis = list(basis)
    if len(basis) != m or len(set(basis)) != m:
        raise SimplexLimit("the start is not a basis")

    def column(var):
        kind, k = var
        if kind == "col":
            return columns[k]
        return {k: one if signs[k] >= 0 else -one}

    def matrix(vars_):
        flat = [zero] * (m * m)
        for c, var in enumerate(vars_):
            for i, a in column(var).items():
                flat[i * m + c] = a
        return flint.fmpq_mat(m, m, flat)

    def dense(entries):
        return flint.fmpq_mat(m, 1, [entries.get(i, zero) for i in range(m)])

    inverse = matrix(basis).inv()  # B^-1, kept by rank-one updates (exact: no drift)
    xb = inverse * b
    if any(xb[i, 0] < 0 or (basis[i][0] == "row" and signs[basis[i][1]] == 0
                            and xb[i, 0] != 0) for i in range(m)):
        raise SimplexLimit("the start is not primal feasible")
    streak = 0
    for pivots in range(max_pivots + 1):
        cb = flint.fmpq_mat(1, m, [costs[k] if kind == "col" else zero
                                   for kind, k in basis])
        yt = cb * inverse
        y = [yt[0, i] for i in range(m)]
        inside = set(basis)
        best, entering = zero, None
        bland = streak >= DEGENERATE_STREAK
        for var in sorted((v for v in order if v not in inside), key=order.get):
            kind, k = var
            if kind == "row":
                if signs[k] == 0:
                    continue  # an artificial never enters
                d = -y[k] * signs[k]
            else:
                d = costs[k] - sum((y[i] * a for i, a in columns[k].items() if y[i]), zero)
            if d > best:
                best, entering = d, var
                if bland:
                    break
        if entering is None:  # optimal
            x = [zero] * n
            for i, (kind, k) in enumerate(basis):
                if kind == "col":
                    x[k] = xb[i, 0]
            return x, y, basis, pivots
        d = inverse * dense(column(entering))
        leave, ratio = None, None
        for i in range(m):
            di = d[i, 0]
            artificial = basis[i][0] == "row" and signs[basis[i][1]] == 0
            if artificial and di != 0:
                r = zero  # held at 0: it leaves at once
            elif di > 0:
                r = xb[i, 0] / di
            else:
                continue
            if ratio is None or r < ratio \
                    or (r == ratio and order[basis[i]] < order[basis[leave]]):
                leave, ratio = i, r
        if leave is None:
            raise SimplexLimit("the program is unbounded")
        streak = streak + 1 if ratio == 0 else 0
        basis[leave] = entering
        # B'^-1 = B^-1 - (d - e_leave) (row leave of B^-1) / d_leave, likewise x_B
        pivot = d[leave, 0]
        eta = flint.fmpq_mat(m, 1, [(d[i, 0] - (one if i == leave else zero)) / pivot
                                    for i in range(m)])
        row = flint.fmpq_mat(1, m, [inverse[leave, j] for j in range(m)])
        inverse = inverse - eta * row
        xb = xb - eta * flint.fmpq_mat(1, 1, [xb[leave, 0]])
    raise PivotLimit(f"no optimum within {max_pivots} pivots")
