"""A list schedule's runs resized in their order (ours; a repair of :mod:`.list_schedule`
for long periods, `schedule --max-messages 1000`'s target of a certified 0.999).

The greedy's idle gaps on the ports whose load is the period's bound are not only at the
end of the period: a port waits in the middle for its partner, and a few such waits put
the makespan a few message times above the load bound.  Here every port keeps the order
of the runs (transfers of consecutive messages on one link) it had, but the messages of
a link may move between its runs (a run may lose all of them), and every run starts as
early as its two ports allow: a mixed-integer program over the runs' message counts
(SCIP, bounded by :data:`RESIZE_NODES` branch-and-bound nodes, never by time; its
floats only choose the counts).  The timetable is then rebuilt exactly: each run starts
when the runs before it on both its ports have ended (the ports' orders come from one
timetable's start times, so they never contradict each other), and the resized runs are
kept only when they end strictly earlier.  A period's transfers need no order between
each other (lags come afterwards), so any such placement is a valid period.
"""

from __future__ import annotations

from ortools.linear_solver import pywraplp

from ..interrupts import solve_linear
from .timetable import extend_runs

#: Branch-and-bound nodes of the resizing program (its only bound on work).
RESIZE_NODES = 200
#: The program's times are in parts of the load bound of this size (floats inside the
#: search only; the kept timetable is timed exactly).
RESIZE_GRAIN = 10**9

#: SCIP's heuristics that solve sub-programs (their work is not bounded by the nodes:
#: seconds at the root alone on 65-node meshes); off.
SUBMIP_HEURISTICS = ("rens", "rins", "undercover", "feaspump", "alns", "crossover",
                     "dins", "gins", "localbranching", "mutation")


def resized_runs(runs: dict, cost: dict, lower: int, makespan: int):
    """(makespan, runs) of ``runs`` {arc: [[start, messages], ...]} (integer ticks,
    ``cost`` ticks per message of each arc, ``lower`` the largest port load) with their
    messages moved between the runs of each link and retimed (module docstring), or
    None when that does not end before ``makespan``."""
    pieces = sorted(((start, arc, count) for arc, rs in runs.items()
                     for start, count in rs), key=lambda piece: piece[:2])
    by_port: dict = {}
    by_arc: dict = {}
    for i, (_, (u, v), _) in enumerate(pieces):
        by_port.setdefault(("out", u), []).append(i)
        by_port.setdefault(("in", v), []).append(i)
        by_arc.setdefault((u, v), []).append(i)
    counts = _counts(pieces, by_port, by_arc, cost, lower)
    if counts is None:
        return None
    before: dict[int, list] = {i: [] for i in range(len(pieces))}
    for order in by_port.values():
        for x, y in zip(order, order[1:]):
            before[y].append(x)
    starts: list[int] = []
    for i, (_, arc, _) in enumerate(pieces):   # sorted by start: a topological order
        starts.append(max((starts[x] + counts[x] * cost[pieces[x][1]]
                           for x in before[i]), default=0))
    end = max(starts[i] + counts[i] * cost[arc] for i, (_, arc, _) in enumerate(pieces))
    if end >= makespan:
        return None
    new: dict = {arc: [] for arc in runs}
    for i, (_, arc, _) in sorted(enumerate(pieces), key=lambda item: (starts[item[0]],
                                                                      item[1][1])):
        if counts[i]:
            extend_runs(new[arc], starts[i], counts[i], cost[arc])
    for arc, rs in new.items():   # postcondition: every message placed
        if sum(count for _, count in rs) != sum(count for _, count in runs[arc]):
            raise AssertionError(f"resized runs lost messages on {arc}")
    return end, new


def _counts(pieces, by_port, by_arc, cost, lower) -> list[int] | None:
    """The program's message counts per run (in ``pieces``' order), or None when SCIP
    found no solution within its nodes."""
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:   # pragma: no cover - ortools ships SCIP
        return None
    tick = {arc: float(c * RESIZE_GRAIN // lower) / RESIZE_GRAIN for arc, c in cost.items()}
    start = [solver.NumVar(0, 2, "") for _ in pieces]
    count = [solver.IntVar(0, sum(k for *_, k in (pieces[j] for j in by_arc[arc])), "")
             for _, arc, _ in pieces]
    span = solver.NumVar(0, 2, "")
    for i, (_, arc, _) in enumerate(pieces):
        solver.Add(span >= start[i] + tick[arc] * count[i])
    for order in by_port.values():
        for x, y in zip(order, order[1:]):
            solver.Add(start[y] >= start[x] + tick[pieces[x][1]] * count[x])
    for arc, ids in by_arc.items():
        solver.Add(sum(count[i] for i in ids) == sum(pieces[i][2] for i in ids))
    solver.Minimize(span)
    solver.SetHint(count, [float(k) for *_, k in pieces])   # the greedy's own counts
    status = solve_linear(solver, f"limits/nodes = {RESIZE_NODES}\n" + "".join(
        f"heuristics/{name}/freq = -1\n" for name in SUBMIP_HEURISTICS))
    if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        return None
    counts = [round(c.solution_value()) for c in count]
    for arc, ids in by_arc.items():   # integral within SCIP's tolerance, else give up
        if sum(counts[i] for i in ids) != sum(pieces[i][2] for i in ids) or \
                min(counts[i] for i in ids) < 0:
            return None
    return counts
