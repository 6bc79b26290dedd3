"""Integer tree weights for a short period: a bounded MILP search over the optimum's trees
(ours; Dinkelbach's method for the fractional objective, on 002 §5.3's trees).

A short period with N messages gives tree l an integer weight w_l (sum N); its throughput
is at most N / L where L is the largest port load of the weights, so the ratio to the
optimum is bounded by N / (TP*·L).  Rounding the optimum's rates loses up to one message
per link at every port; choosing the weights together does better.  Dinkelbach's method
maximises the ratio N / L over integer w: for the best ratio ρ known so far, maximise
N - ρ·TP*·L; a positive optimum is a better ratio, and the search repeats from it.

The search is a MILP solved in floating point by SCIP (OR-Tools) under a node limit, from
a start (``hint``) that is already good; its answer is only a proposal: the caller keeps
it when its exact ratio, computed from exact costs, beats the exact start.  Any
non-negative integer weights are a valid choice (every tree is a spanning arborescence),
so a float error here can cost quality, never validity.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..interrupts import solve_linear

from ..network.rows import conflicting_arcs, tree_link_usage
from .timetable import port_loads_of


#: Loads further apart than this (largest / smallest), or larger than MAX_COEFFICIENT,
#: are beyond what SCIP takes as finite coefficients (issue 18 F01: costs 1e20): the
#: search is skipped and the exact start kept.
MAX_SPREAD = 1e12
MAX_COEFFICIENT = 1e15
#: Branch-and-bound nodes SCIP may explore per round: the deterministic bound on the
#: search's work.
ROUND_NODES = 300
#: Dinkelbach rounds at most: each round after the first is a MILP started from the last
#: answer; two gain most of what more rounds gain on the samples.
ROUNDS = 2


def tree_port_loads(platform, parent) -> dict[tuple[str, str], Fraction]:
    """Busy time one message of the tree ``parent`` costs each port it uses, each
    shared network link its routes cross (key ("link", id); issue 19) and each link's
    set of transfers that cannot overlap (key ("conflict", id))."""
    edges = [(par, child) for child, par in parent.items()]
    loads = port_loads_of(dict.fromkeys(edges, 1), {a: platform.cost(*a) for a in edges})
    for lid, c in tree_link_usage(platform, parent).items():
        loads[("link", lid)] = c
    for lid, arcs in conflicting_arcs(platform).items():
        busy = sum((platform.cost(par, child) for child, par in parent.items()
                    if (par, child) in arcs), Fraction(0))
        if busy:
            loads[("conflict", lid)] = busy
    return loads


def exact_ratio(platform, weights, optimum: Fraction) -> Fraction:
    """N / (TP*·L): the ratio bound of integer tree weights ``weights`` (exact; the
    loads are added as integers over the trees' common denominator, each tree's loads
    remembered: the same trees come back for every N and every M)."""
    weights = [(parent, w) for parent, w in weights]
    scaled = [_integer_loads(platform, frozenset(parent.items())) for parent, _ in weights]
    unit = math.lcm(*(den for den, _ in scaled))
    loads: dict[tuple[str, str], int] = {}
    for (_, w), (den, tree) in zip(weights, scaled):
        factor = w * (unit // den)
        for port, c in tree.items():
            loads[port] = loads.get(port, 0) + factor * c
    return Fraction(sum(w for _, w in weights) * unit) / (optimum * max(loads.values()))


#: The trees' integer loads on the platform last asked about (that very object: hashing
#: a platform hashes all its links).
_REMEMBERED: list = [None, {}]


def _integer_loads(platform, tree: frozenset) -> tuple[int, dict]:
    """(d, {port: d·load}) of one message of the tree (child, parent) pairs ``tree``
    (:func:`tree_port_loads`), d the least common denominator of its loads."""
    if _REMEMBERED[0] is not platform:
        _REMEMBERED[:] = [platform, {}]
    known = _REMEMBERED[1]
    if tree not in known:
        loads = tree_port_loads(platform, dict(tree))
        den = math.lcm(*(c.denominator for c in loads.values()))
        known[tree] = den, {port: int(c * den) for port, c in loads.items()}
    return known[tree]


#: Branch-and-bound nodes per round of the quick look (:func:`dinkelbach_weights`'s
#: ``proven``): where SCIP proves a round's optimum within them, the full search's
#: round ends the same way.
PROVEN_NODES = 100


def dinkelbach_weights(platform, trees, optimum: Fraction, most: int, start,
                       rounds: int = ROUNDS, proven: bool = False):
    """Integer weights for the trees of ``trees`` (parents; their order is kept), at
    most ``most`` messages, whose exact ratio bound is at least ``start``'s (a list of
    weights aligned with ``trees``); returns ``start`` when the search finds nothing
    better or no MILP solver is available.  Work: ``rounds`` MILPs of at most
    :data:`ROUND_NODES` branch-and-bound nodes each (no time limit: the same input gives
    the same weights at any load).  A ratio bound of 1 is final (no weights exceed the
    optimum's throughput): then no MILP is solved.  With ``proven``: each round gets
    :data:`PROVEN_NODES` nodes, and None is returned as soon as one ends without its
    optimum proven (otherwise the answer is the full search's: a round that proves its
    optimum does not use the rest of its node bound)."""
    best = list(start)
    best_ratio = exact_ratio(platform, zip(trees, best), optimum)
    for _ in range(rounds):
        if best_ratio >= 1:   # no weights beat the optimum: a MILP cannot improve
            break
        try:
            proposal = _milp_round(platform, trees, optimum, most, best, best_ratio,
                                   PROVEN_NODES if proven else None, proven)
        except OverflowError:  # loads beyond float range (issue 18 F02): keep the start
            break
        except _Unproven:
            return None
        if proposal is None or not any(proposal):
            break
        ratio = exact_ratio(platform, zip(trees, proposal), optimum)
        if ratio <= best_ratio:
            break
        best, best_ratio = proposal, ratio
    return best


class _Unproven(Exception):
    """A round of the quick look ended at its node bound."""


def _milp_round(platform, trees, optimum, most, hint, rho, nodes=None, proven=False):
    """One Dinkelbach round: maximise N - ρ·TP*·L over integer weights (floats, SCIP,
    node-limited, started from ``hint``); None when the solver has no answer; with
    ``proven``, :class:`_Unproven` unless SCIP proved its optimum."""
    from ortools.linear_solver import pywraplp

    nodes = ROUND_NODES if nodes is None else nodes

    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:  # pragma: no cover - the ortools wheels ship SCIP
        return None
    w = [solver.IntVar(0, most, f"w{l}") for l in range(len(trees))]
    period = solver.NumVar(0, solver.infinity(), "L")
    rows: dict[tuple[str, str], list] = {}
    for l, parent in enumerate(trees):
        for port, c in tree_port_loads(platform, parent).items():
            rows.setdefault(port, []).append((w[l], float(c)))
    sizes = [c for terms in rows.values() for _, c in terms if c > 0]
    if not sizes or max(sizes) > MAX_SPREAD * min(sizes) or max(sizes) > MAX_COEFFICIENT:
        return None  # SCIP would mistake such loads for infinite: keep the exact start
    for terms in rows.values():
        solver.Add(solver.Sum([c * x for x, c in terms]) <= period)
    total = solver.Sum(w)
    solver.Add(total <= most)
    solver.Add(total >= max(1, sum(hint) // 2))  # keeps the search off tiny periods
    solver.Maximize(total - float(rho * optimum) * period)
    solver.SetHint(w, [float(x) for x in hint])
    # The node limit bounds the work deterministically (same answer on a loaded
    # machine): no time limit.
    status = solve_linear(solver, f"limits/nodes = {nodes}\n")
    if proven and status != pywraplp.Solver.OPTIMAL:
        raise _Unproven
    if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        return None
    weights = [max(0, round(x.solution_value())) for x in w]
    return weights if sum(weights) <= most else None
