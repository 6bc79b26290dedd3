"""Integer link counts for a short period by a MILP over the cuts (ours; the cut form of
002 §5.3's linear program, in integers).

N arc-disjoint spanning arborescences fit in integer link counts n_e exactly when every
cut separating the source from a node carries >= N (Edmonds' branching theorem, 002
Thm 5), and the period is at least the largest port load.  Rounding the optimum's rates
up (step 1 of :mod:`.timed`) keeps every cut but adds up to one message per link at
every port: at N = 20 on a 65-node random platform the rounded counts reach a ratio
bound of 0.95, while counts with bound 0.996 exist.  Here the counts are chosen
together:

    minimise P  (+ ``spread``/|V| · total work, which leaves fewer ports tight)
    subject to  port loads <= P,  sum of n_e over the arcs leaving S >= N  for every
                cut S found so far,  n_e integer in [0, N],

starting from the cuts into every single node and out of the source.  Its answer is
rounded and checked exactly (a max-flow to every destination); each destination it
leaves short gives its minimum cut, which joins the MILP, and it is solved again, at most
:data:`CUT_SOLVES` times.  Cuts do not depend on N, so callers that try many N share a
:class:`CutPool`.

The MILP is a float search (SCIP, OR-Tools) bounded by :data:`CUT_NODES`
branch-and-bound nodes per solve (deterministic) and a time guard; only counts that pass
the exact check are returned (then N trees fit: :func:`.branchings.weighted_branchings`
packs them exactly), else None and the caller keeps the rounded counts
(proofs/timed-schedule.md, "Counts chosen over the cuts").
"""

from __future__ import annotations

from ..exact.maxflow import FlowNetwork

Arc = tuple[str, str]

#: Solves at most per call (each adds the cuts the last answer left short).
CUT_SOLVES = 40
#: Solves at most per :class:`CutPool`, over all its calls: the work bound of a caller
#: that tries many N (a 65-node random platform takes 0.2 to 2 s per solve).
POOL_SOLVES = 120
#: Branch-and-bound nodes SCIP may explore per solve: the deterministic work bound.
CUT_NODES = 300
#: Seconds per solve at most: a guard against a pathological solve only.
CUT_SECONDS = 20.0
#: Costs further apart than this (largest / smallest), or larger than MAX_COEFFICIENT,
#: are beyond what the float MILP resolves: no counts are proposed (the rounded ones
#: stay).
MAX_SPREAD = 1e9
MAX_COEFFICIENT = 1e12


class CutPool:
    """Source sides S of cuts that some count vector left short: each is a constraint
    sum over the arcs leaving S of n_e >= N for every N.  Kept in the order found, so
    that the MILP gets its rows in the same order on every run (SCIP's answer depends
    on it; a set's order would follow Python's string hashing)."""

    def __init__(self, solves: int | None = None):
        self.sides: dict[frozenset, None] = {}   # a dict: each once, in order
        self.solves_left = POOL_SOLVES if solves is None else solves

    def add(self, sides) -> None:
        self.sides.update(dict.fromkeys(sides))


def cut_counts(platform, messages: int, pool: CutPool | None = None,
               spread: float = 0.0) -> dict[Arc, int] | None:
    """Integer counts {arc: n_e > 0} whose root-connectivity is >= ``messages`` (checked
    exactly) and whose largest port load the MILP of the module docstring minimised;
    None when the search gives no such counts within its bounds."""
    from ortools.linear_solver import pywraplp

    arcs = list(platform.arcs)
    costs = [platform.cost(*a) for a in arcs]
    pool = CutPool() if pool is None else pool
    if (not arcs or pool.solves_left <= 0 or max(costs) > MAX_COEFFICIENT
            or max(costs) > MAX_SPREAD * min(costs)):
        return None
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:  # pragma: no cover - the ortools wheels ship SCIP
        return None
    n = [solver.IntVar(0, messages, f"n{i}") for i in range(len(arcs))]
    period = solver.NumVar(0, solver.infinity(), "P")
    for side in ("out", "in"):
        rows: dict[str, list] = {}
        for x, (u, v), c in zip(n, arcs, costs):
            rows.setdefault(u if side == "out" else v, []).append(float(c) * x)
        for terms in rows.values():
            solver.Add(solver.Sum(terms) <= period)
    nodes = list(platform.nodes)
    pool.add([frozenset([platform.source])]
             + [frozenset(nodes) - {v} for v in platform.destinations])
    added = 0

    def add_cuts() -> None:
        nonlocal added
        for side in list(pool.sides)[added:]:
            solver.Add(solver.Sum([x for x, (u, v) in zip(n, arcs)
                                   if u in side and v not in side]) >= messages)
        added = len(pool.sides)

    total = solver.Sum([float(c) * x for x, c in zip(n, costs)])
    solver.Minimize(period + spread / len(nodes) * total)
    solver.SetSolverSpecificParametersAsString(f"limits/nodes = {CUT_NODES}\n")
    solver.SetTimeLimit(int(CUT_SECONDS * 1000))
    for _ in range(CUT_SOLVES):
        if pool.solves_left <= 0:
            return None
        pool.solves_left -= 1
        add_cuts()
        if solver.Solve() not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
            return None
        counts = {a: round(x.solution_value()) for a, x in zip(arcs, n)}
        counts = {a: k for a, k in counts.items() if k > 0}
        short = short_cuts(platform, counts, messages)
        if not short:
            return counts
        pool.add(short)
    return None


def short_cuts(platform, counts, messages: int) -> list[frozenset]:
    """Source sides of minimum cuts below ``messages`` under ``counts`` (exact max-flows),
    one per destination left short, in the destinations' order, each once; empty when
    every destination receives ``messages``."""
    network = FlowNetwork(platform.nodes, platform.source, platform.arcs,
                          [counts.get(a, 0) for a in platform.arcs])
    short: list[frozenset] = []
    for d in platform.destinations:
        value, side = network.min_cut(d)
        if value < messages and side not in short:
            short.append(side)
    return short
