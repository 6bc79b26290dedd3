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
branch-and-bound nodes per solve while cuts are found, then :data:`POLISH_NODES` once
the counts pass every cut (deterministic, no time limit); only counts that pass
the exact check are returned (then N trees fit: :func:`.branchings.weighted_branchings`
packs them exactly), else None and the caller keeps the rounded counts
(proofs/timed-schedule.md, "Counts chosen over the cuts").
"""

from __future__ import annotations

from ..exact.maxflow import FlowNetwork
from ..interrupts import solve_linear
from ..throughput import port_loads

Arc = tuple[str, str]

#: Solves at most per call (each adds the cuts the last answer left short).
CUT_SOLVES = 40
#: Solves at most per :class:`CutPool`, over all its calls: the work bound of a caller
#: that tries many N (a 65-node random platform takes 0.2 to 2 s per solve).  With 120,
#: a 50-node random platform (seed 4) spent them all on N <= 5 (N = 2 and 3 do not
#: converge within CUT_SOLVES), and the N that matter to ``steady simulate`` got none;
#: from N = 8 to 50 it needs about 230 more.
POOL_SOLVES = 400
#: Branch-and-bound nodes SCIP may explore per solve while cuts are still being found:
#: the deterministic work bound.
CUT_NODES = 300
#: Nodes of the solve that follows once the counts pass every cut (the same MILP with
#: every cut found, in a new model).  300 nodes stop far from the best counts on meshes: a 65-node mesh
#: (seed 4) reaches ratio bounds 0.9876, 0.9926, 0.9939 at N = 20, 30, 40 with 300 and
#: 0.9937, 0.9990, 1 with 3000 (2 to 5 s a solve).
POLISH_NODES = 3000
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
    exactly) and whose largest port load the MILP of the module docstring minimised
    (with :data:`CUT_NODES` while cuts are found, then once more with
    :data:`POLISH_NODES`; the lower load of the two kept); None when the search gives no
    such counts within its bounds."""
    arcs = list(platform.arcs)
    costs = [platform.cost(*a) for a in arcs]
    pool = CutPool() if pool is None else pool
    if (not arcs or pool.solves_left <= 0 or max(costs) > MAX_COEFFICIENT
            or max(costs) > MAX_SPREAD * min(costs)):
        return None
    pool.add([frozenset([platform.source])]
             + [frozenset(platform.nodes) - {v} for v in platform.destinations])
    milp = None
    found = None     # (largest port load, counts) that passed the exact check
    limit = CUT_NODES
    for _ in range(CUT_SOLVES):
        if pool.solves_left <= 0:
            break
        pool.solves_left -= 1
        if milp is None:
            milp = _CountMilp(platform, arcs, costs, messages, spread, limit)
            if milp.solver is None:  # pragma: no cover - the ortools wheels ship SCIP
                break
        milp.add_cuts(pool)
        values = milp.solve()
        if values is None:
            break
        counts = {a: k for a, k in zip(arcs, values) if k > 0}
        short = short_cuts(platform, counts, messages)
        if short:
            pool.add(short)
            continue
        out, into = port_loads(platform, counts)
        load = max(*out.values(), *into.values())
        if found is None or load < found[0]:
            found = (load, counts)
        if limit == POLISH_NODES:
            break
        # the cuts hold: solve the same MILP again, deeper (a new SCIP model: raising
        # the node limit of a solved one aborts in SCIP)
        limit, milp = POLISH_NODES, None
    return None if found is None else found[1]


class _CountMilp:
    """The MILP of the module docstring in SCIP, its node limit ``nodes``; cuts are
    added as the pool grows."""

    def __init__(self, platform, arcs, costs, messages: int, spread: float, nodes: int):
        from ortools.linear_solver import pywraplp

        self.ok = (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE)
        solver = self.solver = pywraplp.Solver.CreateSolver("SCIP")
        if solver is None:  # pragma: no cover - the ortools wheels ship SCIP
            return
        self.arcs, self.messages, self.added = arcs, messages, 0
        self.n = [solver.IntVar(0, messages, f"n{i}") for i in range(len(arcs))]
        period = solver.NumVar(0, solver.infinity(), "P")
        for side in ("out", "in"):
            rows: dict[str, list] = {}
            for x, (u, v), c in zip(self.n, arcs, costs):
                rows.setdefault(u if side == "out" else v, []).append(float(c) * x)
            for terms in rows.values():
                solver.Add(solver.Sum(terms) <= period)
        total = solver.Sum([float(c) * x for x, c in zip(self.n, costs)])
        solver.Minimize(period + spread / len(platform.nodes) * total)
        self.parameters = f"limits/nodes = {nodes}\n"

    def add_cuts(self, pool: CutPool) -> None:
        for side in list(pool.sides)[self.added:]:
            self.solver.Add(self.solver.Sum([x for x, (u, v) in zip(self.n, self.arcs)
                                             if u in side and v not in side])
                            >= self.messages)
        self.added = len(pool.sides)

    def solve(self) -> list[int] | None:
        """The counts of the MILP's answer, rounded; None when it has none."""
        if solve_linear(self.solver, self.parameters) not in self.ok:
            return None
        return [round(x.solution_value()) for x in self.n]


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
