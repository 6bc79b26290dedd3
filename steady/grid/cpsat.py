"""The optimal makespan by CP-SAT: an independent cross-check of :mod:`steady.grid.optimum`.

The branch and bound relies on two claims (proofs/grid-model.md): idling never helps,
and every as-soon-as-possible schedule has one canonical order of sends.  This model
relies on neither: it states the cluster model of 001 §3 as constraints over integer
times (scaled by the lcm of the denominators) and lets CP-SAT prove its optimum.

* x_ij (bool): i sends the message to j; every cluster but the root's receives exactly
  once (sum_i x_ij = 1).
* a_j: the arrival at j (a_root = 0); a send i -> j is an optional interval
  [s_ij, s_ij + g_ij) of i, present iff x_ij; x_ij => s_ij >= a_i and
  a_j = s_ij + g_ij + L_ij.  No coordinator sends two messages at once: the intervals of
  one sender do not overlap.  Cycles are impossible: a_j >= a_i + g_ij > a_i.
* b_k >= a_k and b_k >= the end of every send of k (it broadcasts inside its cluster once
  it takes part in no further inter-cluster communication); makespan >= b_k + T_k.

CP-SAT's search is exact on integers and OPTIMAL status is a proof, so the value is exact.
"""

from __future__ import annotations

from fractions import Fraction

from ..interrupts import solve_cpsat
from .heuristics import flat_tree
from .model import Grid
from .optimum import scaled_times


def cp_sat_makespan(grid: Grid, horizon=None, seconds: float = 60.0) -> Fraction | int:
    """The optimal makespan of ``grid`` proved by CP-SAT (exact: scaled integers).

    ``horizon``: the makespan of any valid schedule (default: the Flat Tree's).  Raises
    RuntimeError if CP-SAT does not prove optimality within ``seconds`` units of its
    deterministic time (about seconds on a quiet machine; the same answer at any load).
    """
    from ortools.sat.python import cp_model

    if horizon is None:
        horizon = flat_tree(grid).makespan
    scale, g, c, T = scaled_times(grid)
    n, root = grid.size, grid.root
    horizon_int = int(Fraction(horizon) * scale)
    model = cp_model.CpModel()
    arrival = [model.NewIntVar(0, horizon_int, f"a{k}") for k in range(n)]
    model.Add(arrival[root] == 0)
    start_bc = [model.NewIntVar(0, horizon_int, f"b{k}") for k in range(n)]
    makespan = model.NewIntVar(0, horizon_int, "makespan")
    intervals = [[] for _ in range(n)]
    for j in range(n):
        if j == root:
            continue
        chosen = []
        for i in range(n):
            if i == j:
                continue
            x = model.NewBoolVar(f"x{i}_{j}")
            s = model.NewIntVar(0, horizon_int, f"s{i}_{j}")
            intervals[i].append(model.NewOptionalFixedSizeIntervalVar(s, g[i][j], x,
                                                                      f"send{i}_{j}"))
            model.Add(s >= arrival[i]).OnlyEnforceIf(x)
            model.Add(arrival[j] == s + c[i][j]).OnlyEnforceIf(x)
            model.Add(start_bc[i] >= s + g[i][j]).OnlyEnforceIf(x)
            chosen.append(x)
        model.AddExactlyOne(chosen)
    for k in range(n):
        model.AddNoOverlap(intervals[k])
        model.Add(start_bc[k] >= arrival[k])
        model.Add(makespan >= start_bc[k] + T[k])
    model.Minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = seconds
    solver.parameters.num_workers = 1
    status = solve_cpsat(solver, model)
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"CP-SAT did not prove an optimum ({solver.StatusName(status)})")
    value = Fraction(int(solver.ObjectiveValue()), scale)
    return value.numerator if value.denominator == 1 else value
