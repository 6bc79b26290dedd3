"""A timetable's port orders searched by CP-SAT (ours; an improver of the timed
schedules of :mod:`steady.schedule.timed`, at ``thorough`` effort).

A period's timetable is an open shop: each arc (u, v) carries n_uv messages of cost
c_uv, each holding u's out-port and v's in-port; no port does two things at once; the
period is the makespan, at least the largest port load L.  The greedy list schedule
ends at L on most platforms, but on counts that are tight on many ports at once it can
end 0.2 % to 2.4 % later.  There, what is wrong is the *order* in which the ports serve
their arcs.

The search: CP-SAT (OR-Tools) places one interval per message on costs rounded *up* to
a grid of L / :data:`GRID` (so that a float of the solver never decides a time),
starting from the timetable's order, minimising the makespan.  Its answer is used for
its *orders* only: the transfers are placed again, exactly in integer ticks, in
increasing order of the solver's starts, each as soon as both its ports are free.  With
costs rounded up, the exact placement ends no later than the solver's (proofs/
timed-schedule.md, "Port orders searched"), and whatever the solver says, the exact
placement is one-port by construction; it is kept only when it ends earlier.
Runtime postcondition: every arc keeps its count and the end is not before L (then
:meth:`~steady.schedule.timetable.Timetable.check` checks the whole timetable).

Deterministic: a fixed number of workers with interleaved search and a bound on the
solver's *deterministic* time (the effort's ``order_search``), so the same input gives
the same timetable on any machine.  Work: at most :data:`SEARCH_SLOTS` messages.

:func:`neighbourhood_searched` is the same search with CP-SAT's large neighbourhood
search alone (``use_lns_only``: it frees parts of the hinted timetable and re-solves
them, no search of the whole tree): at ``default`` effort the finite-horizon chooser
runs it on the chosen timetable only, when its period is well above its largest port
load (:func:`steady.simulate.choose.searched_timetables`), and at ``thorough`` on the
few periods it searches deeply (:func:`steady.simulate.choose.deepened_timetables`).
"""

from __future__ import annotations

from ..interrupts import solve_cpsat

#: Messages per period at most for a search (one interval each).
SEARCH_SLOTS = 4000
#: Workers of the interleaved search (fixed, so that results do not follow the machine).
SEARCH_WORKERS = 2
#: The solver's grid: the largest port load is this many grid steps.
GRID = 1_000_000
#: The neighbourhood search stops once its makespan is within this part of the largest
#: port load (its bound): the rest of its budget would buy at most that much.
LNS_CLOSE = 2000


def searched(table, effort):
    """``table`` (a :class:`~steady.schedule.timetable.Timetable`) with its ports'
    orders searched (module docstring), same trees and counts, when that ends earlier;
    otherwise the reason, in words."""
    if not effort.order_search:
        return "not at this effort"
    return _searched(table, effort.order_search, False)


def neighbourhood_searched(table, budget: float):
    """``table`` with its ports' orders searched by CP-SAT's large neighbourhood search
    alone (module docstring) within ``budget`` units of deterministic time, when that
    ends earlier; otherwise the reason, in words.  Ours: on counts tight on many ports
    the interleaved whole search of :func:`searched` spends most of its deterministic
    time on subsolvers that do not move the makespan, while the neighbourhoods alone
    close much more of the list schedule's gap to the largest port load within the same
    time (benchmarks/listgap.md)."""
    if budget <= 0:
        return "no budget"
    return _searched(table, budget, True)


def _searched(table, budget: float, lns: bool):
    """:func:`searched` within ``budget`` deterministic time, ``lns``: neighbourhoods
    alone."""
    from .timetable import Timetable

    parts, _ = table.shares()
    if parts:
        return "shared links: the search holds ports only"
    lower = max(table.port_loads().values())
    if table.period <= lower:
        return "the period is the largest port load already"
    runs = searched_runs(table.counts, table.cost, lower, table.arc_runs(), budget, lns)
    if runs is None:
        return f"more than {SEARCH_SLOTS} messages, or no solution within the effort"
    end = max(s + n * table.cost[arc] for arc, rs in runs.items() for s, n in rs)
    if end >= table.period:
        return "the search ends no earlier"
    better = Timetable.from_arc_runs(table.platform, table.trees, runs, end, table.unit)
    better.check()
    return better


def searched_runs(used: dict, cost: dict, lower: int, runs: dict,
                  effort: float, lns: bool = False) -> dict | None:
    """{arc: [[start, messages], ...]} in integer ticks: the messages ``used`` {arc: n}
    of cost ``cost`` {arc: ticks} placed in port orders searched from those of ``runs``
    (a valid timetable in the same form, the port view of a timetable),
    ``lower`` the largest port load in ticks, ``effort`` the solver's deterministic
    time (``lns``: its neighbourhood search alone); None when the search does not apply
    (too many messages) or finds nothing."""
    from ortools.sat.python import cp_model

    if sum(used.values()) > SEARCH_SLOTS or lower <= 0:
        return None
    grid = {arc: -(-c * GRID // lower) for arc, c in cost.items()}
    order = _messages_in_order(runs, cost)
    hint, horizon = _placed(order, grid)
    model = cp_model.CpModel()
    makespan = model.new_int_var(GRID, horizon, "makespan")
    starts: dict = {}
    ports: dict = {}
    for arc, n in used.items():
        c = grid[arc]
        for k in range(n):
            s = model.new_int_var(0, horizon - c, "")
            starts[(arc, k)] = s
            interval = model.new_fixed_size_interval_var(s, c, "")
            ports.setdefault(("out", arc[0]), []).append(interval)
            ports.setdefault(("in", arc[1]), []).append(interval)
            model.add(s + c <= makespan)
            if k:   # the messages of one arc are alike: keep them in order
                model.add(s >= starts[(arc, k - 1)] + c)
    for intervals in ports.values():
        model.add_no_overlap(intervals)
    for key, at in hint.items():
        model.add_hint(starts[key], at)
    model.add_hint(makespan, horizon)
    model.minimize(makespan)
    solver = solved(model, effort, lns, GRID // LNS_CLOSE if lns else None)
    if solver is None:
        return None
    searched = sorted(starts, key=lambda key: (solver.value(starts[key]), key))
    placed, end = _placed(searched, cost)
    runs = _as_runs(placed, cost)
    if end < lower or any(sum(n for _, n in runs[arc]) != n for arc, n in used.items()):
        raise AssertionError("postcondition: the searched timetable lost messages or "
                             "ends before the largest port load")
    return runs


def solved(model, effort: float, lns: bool = False, gap: int | None = None):
    """The CP-SAT solver after solving ``model`` deterministically (fixed workers,
    interleaved search, ``effort`` units of deterministic time; ``lns``: large
    neighbourhood search alone; ``gap``: stop once the objective is within it of the
    bound), or None when it found no solution."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = SEARCH_WORKERS
    solver.parameters.interleave_search = True
    solver.parameters.use_lns_only = lns
    solver.parameters.max_deterministic_time = effort
    if gap is not None:
        solver.parameters.absolute_gap_limit = gap
    if solve_cpsat(solver, model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return solver


def _messages_in_order(runs: dict, cost: dict) -> list:
    """[(arc, k)]: every message of ``runs`` by its start (the k-th of its arc)."""
    timed = []
    for arc, arc_runs in runs.items():
        k = 0
        for start, count in arc_runs:
            timed += [(start + j * cost[arc], arc, k + j) for j in range(count)]
            k += count
    return [(arc, k) for _, arc, k in sorted(timed)]


def _placed(order: list, cost: dict, after: dict | None = None) -> tuple[dict, int]:
    """({(arc, k): start}, makespan): the messages in ``order``, each as soon as both
    its ports are free (ports serve them in that order) and, when ``after`` names one,
    the message it waits for has arrived (``after[(arc, k)]``, earlier in ``order``)."""
    free: dict = {}
    at: dict = {}
    end = 0
    for key in order:
        arc = key[0]
        start = max(free.get(("out", arc[0]), 0), free.get(("in", arc[1]), 0))
        if after and key in after:
            before = after[key]
            start = max(start, at[before] + cost[before[0]])
        at[key] = start
        free[("out", arc[0])] = free[("in", arc[1])] = start + cost[arc]
        end = max(end, start + cost[arc])
    return at, end


def _as_runs(placed: dict, cost: dict) -> dict:
    """{arc: [[start, messages], ...]}: consecutive messages of an arc merged."""
    runs: dict = {}
    for (arc, _), start in sorted(placed.items(), key=lambda item: (item[0][0], item[1])):
        mine = runs.setdefault(arc, [])
        if mine and mine[-1][0] + mine[-1][1] * cost[arc] == start:
            mine[-1][1] += 1
        else:
            mine.append([start, 1])
    return runs
