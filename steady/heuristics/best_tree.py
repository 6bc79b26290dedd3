"""The exact best single broadcast tree (the STP optimum), in both models of seed 000.

BEST-BROADCAST-TREE is NP-hard (002 §3.2, Theorem 1) and seed 000 never computes it: its
heuristics are compared with the several-tree optimum only.  Here a tree's period is
P(T) = max_u period(u), with (000 §3.1 / 002 §3.1.2 eq. (1), and 000 §3.2)

    one-port:    period(u) = sum of T_uv over the children v of u
    multi-port:  period(u) = max(δ_out(u)·send_u, max_{v child} T_uv)

and its throughput is 1/P(T) (exact, :func:`steady.heuristics.models.tree_throughput`).
Two exact methods minimise P(T) over the spanning arborescences rooted at the source:

* ``"exhaustive"``: branch-and-bound over the parent choices (small platforms);
* ``"cp-sat"``: an OR-Tools CP-SAT model (levels forbid cycles); one-port costs are
  rounded *down* to integers and the rounding is undone exactly by cover cuts, the
  multi-port periods are encoded by their exact rank, so both are exact.

When its work bound stops a search, the best tree found is returned with a *proven*
upper bound on the throughput of every single tree; ``optimal`` says the bound is
reached.  The bound is deterministic work, never wall-clock time (the same answer at
any machine load): ``time_limit`` counts CP-SAT's deterministic time units (about
seconds on a quiet machine), and :data:`VISITS_PER_UNIT` nodes of the exhaustive search
per unit.  Why every bound is rigorous: proofs/best-tree.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

from ..exact.arborescence import cheapest_link_arborescence, shortest_path_tree
from ..interrupts import solve_cpsat
from ..numbers import lcm_of_denominators
from .models import assert_arborescence, require_model, send_overheads, tree_throughput

METHODS = ("auto", "exhaustive", "cp-sat")
#: "auto" searches exhaustively when the number of parent choices (the product of the
#: in-degrees of the destinations) is at most this; benchmarks/best_tree.py: on such
#: platforms the branch-and-bound ends within a few milliseconds, as fast as CP-SAT.
EXHAUSTIVE_LIMIT = 10**4
#: Nodes of the exhaustive search per unit of ``time_limit``: about what it visits in a
#: second on one core of a quiet machine (benchmarks/best_tree.py), so that one unit is
#: about a second for both methods.
VISITS_PER_UNIT = 50_000
#: CP-SAT workers, with interleaved search: deterministic for a fixed count.
SEARCH_WORKERS = 2


@dataclass(frozen=True)
class BestTree:
    """The best tree found and what is proven about it.

    ``parent``: child -> parent; ``throughput``: its exact throughput in the model;
    ``upper_bound``: no spanning tree has a higher throughput (== ``throughput`` when
    ``optimal``); ``method``: "exhaustive" or "cp-sat"; ``seconds``: wall time (for
    information: the search itself is bounded by work, not by time).
    """

    parent: dict
    throughput: Fraction
    upper_bound: Fraction
    optimal: bool
    method: str
    seconds: float

    @property
    def gap(self) -> Fraction:
        """upper_bound / throughput - 1: 0 when proven optimal."""
        return self.upper_bound / self.throughput - 1


def best_tree(platform, model: str = "one-port", time_limit: float = 10.0,
              method: str = "auto") -> BestTree:
    """The spanning arborescence of maximum throughput in ``model`` (BEST-BROADCAST-TREE,
    002 §3.2 Def. 1; models of 000 §3.1 and §3.2), or the best one found within
    ``time_limit`` units of deterministic work (about seconds on a quiet machine) with a
    proven upper bound."""
    require_model(platform, model)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {METHODS}")
    start = time.perf_counter()
    budget = Work(max(0.0, time_limit))
    periods = TreePeriods(platform, model)
    if method == "auto":
        method = "exhaustive" if parent_choices(platform) <= EXHAUSTIVE_LIMIT else "cp-sat"
    incumbent = first_incumbent(platform, model)
    search = exhaustive_search if method == "exhaustive" else cp_sat_search
    parent, lower = search(periods, incumbent, budget)
    throughput = tree_throughput(platform, parent, model)
    upper = 1 / max(lower, periods.trivial_lower_bound())
    result = BestTree(parent, throughput, upper, upper == throughput, method,
                      time.perf_counter() - start)
    check_best_tree(platform, model, result)
    return result


class Work:
    """What is left of a search's deterministic work bound, in units (about seconds)."""

    def __init__(self, units: float):
        self.left = units

    def spend(self, units: float) -> None:
        self.left -= units

    def visits(self) -> int:
        """The exhaustive search's node budget."""
        return int(self.left * VISITS_PER_UNIT)

    @property
    def spent(self) -> bool:
        return self.left <= 0


def parent_choices(platform) -> int:
    """The number of parent functions: the product of the in-degrees of the
    destinations (an upper bound on the number of spanning arborescences)."""
    return math.prod(len(platform.in_links(v)) for v in platform.destinations)


def first_incumbent(platform, model: str) -> dict:
    """A cheap starting tree: the better of the shortest-path tree and the
    minimum-cost arborescence on the link costs (both exact searches)."""
    _, cheapest = cheapest_link_arborescence(platform.nodes, platform.source,
                                             platform.links,
                                             [l.cost for l in platform.links])
    return max((shortest_path_tree(platform), cheapest),
               key=lambda tree: tree_throughput(platform, tree, model))


class TreePeriods:
    """The model's node periods in exact integers: every cost (and send overhead) times
    ``scale``, the lcm of their denominators.  ``after(u, v)`` is u's period once v is
    added to its children."""

    def __init__(self, platform, model: str):
        self.platform, self.model = platform, model
        send = send_overheads(platform) if model == "multi-port" else {}
        self.scale = lcm_of_denominators([l.cost for l in platform.links]
                                         + list(send.values()))
        self.cost = {l.arc: int(l.cost * self.scale) for l in platform.links}
        self.send = {u: int(send.get(u, 0) * self.scale) for u in platform.nodes}

    def period(self, load) -> int:
        """A node's period from its load: one-port the sum of the child costs,
        multi-port (children count, largest child cost)."""
        if self.model == "one-port":
            return load
        count, largest, send = load
        return max(count * send, largest)

    def empty(self, u):
        return 0 if self.model == "one-port" else (0, 0, self.send[u])

    def add(self, load, u, v):
        if self.model == "one-port":
            return load + self.cost[(u, v)]
        count, largest, send = load
        return (count + 1, max(largest, self.cost[(u, v)]), send)

    def tree_period(self, parent: dict) -> Fraction:
        loads = {u: self.empty(u) for u in self.platform.nodes}
        for child, par in parent.items():
            loads[par] = self.add(loads[par], par, child)
        return Fraction(max(self.period(x) for x in loads.values()), self.scale)

    def trivial_lower_bound(self) -> Fraction:
        """Every destination has a parent, whose period is at least the cost of that one
        child: P(T) >= max_v min_u period({v})."""
        p = self.platform
        worst = max(min(self.period(self.add(self.empty(l.tail), l.tail, v))
                        for l in p.in_links(v)) for v in p.destinations)
        return Fraction(worst, self.scale)


# -- exhaustive branch-and-bound -------------------------------------------------------

class _Spent(Exception):
    """The work bound stopped the search on entering a subtree whose trees all have a
    period >= ``current`` (loads only grow)."""

    def __init__(self, current: int):
        super().__init__(current)
        self.current = current


def exhaustive_search(periods: TreePeriods, incumbent: dict, budget: Work
                      ) -> tuple[dict, Fraction]:
    """Branch-and-bound over the parent of each destination, in breadth-first order
    from the source.  Returns (best tree, proven lower bound on every tree's period).

    A branch is cut when its bound reaches the incumbent's period: the bound is the
    largest period so far, and for each destination still without parent the least
    period its cheapest possible parent would reach (loads only grow).  Cycles are
    refused when a parent is chosen (the chosen arcs always form a forest)."""
    p = periods.platform
    order = _breadth_first(p)
    candidates = {v: [l.tail for l in p.in_links(v)] for v in order}
    rank = {v: i for i, v in enumerate(p.nodes)}
    best = [dict(incumbent), int(periods.tree_period(incumbent) * periods.scale)]
    loads = {u: periods.empty(u) for u in p.nodes}
    parent: dict[str, str] = {}
    stack: list[list] = []  # per open frame: [period so far, options, next option index]
    visits, most = [0], budget.visits()

    def bound(i: int, current: int) -> int:
        for v in order[i:]:
            current = max(current, min(periods.period(periods.add(loads[u], u, v))
                                       for u in candidates[v]))
        return current

    def search(i: int, current: int) -> None:
        visits[0] += 1
        if visits[0] > most:
            raise _Spent(current)
        if i == len(order):
            best[0], best[1] = dict(parent), current
            return
        v = order[i]
        options = sorted((periods.period(periods.add(loads[u], u, v)), rank[u], u)
                         for u in candidates[v] if not _closes_cycle(parent, u, v))
        frame = [current, options, 0]
        stack.append(frame)
        for k, (after, _, u) in enumerate(options):
            frame[2] = k + 1
            if max(current, after) >= best[1]:
                break  # options are sorted: the rest cannot do better either
            old = loads[u]
            loads[u] = periods.add(old, u, v)
            parent[v] = u
            if bound(i + 1, max(current, after)) < best[1]:
                search(i + 1, max(current, after))
            del parent[v]
            loads[u] = old
        stack.pop()

    try:
        search(0, 0)
    except _Spent as stop:
        # Every tree not yet seen lies below an open frame, in an option it has not
        # started, or in the subtree being entered when the bound stopped the search.
        waiting = [max(current, options[k][0]) for current, options, k in stack
                   if k < len(options)] + [stop.current]
        return best[0], Fraction(min(waiting + [best[1]]), periods.scale)
    return best[0], Fraction(best[1], periods.scale)


def _breadth_first(platform) -> list[str]:
    order, seen = [], {platform.source}
    frontier = [platform.source]
    while frontier:
        nxt = []
        for u in frontier:
            for l in platform.out_links(u):
                if l.head not in seen:
                    seen.add(l.head)
                    order.append(l.head)
                    nxt.append(l.head)
        frontier = nxt
    return order


def _closes_cycle(parent: dict, u: str, v: str) -> bool:
    """Would the arc u -> v close a cycle among the chosen arcs (a forest)?"""
    while u != v:
        if u not in parent:
            return False
        u = parent[u]
    return True


# -- CP-SAT ----------------------------------------------------------------------------

#: One-port costs are rounded down at a scale putting the largest cost near 2^_BITS:
#: fine enough that rounding rarely matters, small enough for CP-SAT's int64 sums.
_BITS = 20


def cp_sat_search(periods: TreePeriods, incumbent: dict, budget: Work
                  ) -> tuple[dict, Fraction]:
    """Minimise the tree period with CP-SAT; returns (best tree, proven lower bound on
    every tree's period)."""
    if periods.model == "multi-port":
        return _multi_port_cp_sat(periods, incumbent, budget)
    return _one_port_cp_sat(periods, incumbent, budget)


class ArborescenceModel:
    """A CP-SAT model whose solutions are the spanning arborescences rooted at the
    source: a Boolean per link, exactly one entering arc per destination, and a level
    per node that grows along every chosen arc (so no cycle)."""

    def __init__(self, platform):
        from ortools.sat.python import cp_model

        self.platform = platform
        self.model = m = cp_model.CpModel()
        n = len(platform.nodes)
        self.x = {l.arc: m.NewBoolVar(f"x[{l.tail}->{l.head}]") for l in platform.links
                  if l.head != platform.source}
        level = {v: m.NewIntVar(1, n - 1, f"level[{v}]") for v in platform.destinations}
        for v in platform.destinations:
            m.AddExactlyOne(self.x[l.arc] for l in platform.in_links(v))
        for (u, v), x in self.x.items():
            if u != platform.source:
                m.Add(level[v] >= level[u] + 1).OnlyEnforceIf(x)
        self.children = {u: [(l.head, self.x[l.arc]) for l in platform.out_links(u)
                             if l.arc in self.x] for u in platform.nodes}

    def hint(self, parent: dict) -> None:
        self.model.ClearHints()
        for (u, v), x in self.x.items():
            self.model.AddHint(x, parent.get(v) == u)

    def solve(self, budget: Work):
        """Solve within what is left of the work bound (deterministically: fixed workers,
        interleaved search); returns (status, tree or None, objective bound)."""
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.parameters.max_deterministic_time = max(0.01, budget.left)
        solver.parameters.num_workers = SEARCH_WORKERS
        solver.parameters.interleave_search = True
        status = solve_cpsat(solver, self.model)
        budget.spend(max(0.01, solver.deterministic_time))
        tree = None
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            tree = {v: u for (u, v), x in self.x.items() if solver.BooleanValue(x)}
        # The objective is an integer variable: the ceiling of any lower bound is one
        # (the margin absorbs the double's rounding of CP-SAT's integer bound).
        bound = (math.ceil(solver.BestObjectiveBound() - 1e-6)
                 if status != cp_model.INFEASIBLE else None)
        return status, tree, bound


def _one_port_cp_sat(periods: TreePeriods, incumbent: dict, budget: Work):
    """One-port: period(u) = sum of child costs.  Costs w = floor(S·c) (S a power of 2);
    every tree T strictly better than the incumbent satisfies, at every node,
    sum w <= ceil(S·P_inc) - 1 (so the model keeps it), and a tree the rounded model
    accepts but that is exactly no better gets its overloaded child sets forbidden
    (cover cuts: a superset of such a set is overloaded too).  INFEASIBLE proves the
    incumbent optimal; an optimum Z* proves it too when no node has a set of children of
    exact cost in [Z*/S, P_inc) (a better tree would need one at its rounded bottleneck);
    otherwise the objective bound Z_lb gives P* >= min(P_inc, Z_lb / S)."""
    from ortools.sat.python import cp_model

    p = periods.platform
    largest = max(l.cost for l in p.links)
    shift = _BITS - (largest.numerator.bit_length() - largest.denominator.bit_length())
    S = Fraction(2) ** shift
    w = {l.arc: math.floor(l.cost * S) for l in p.links}
    arb = ArborescenceModel(p)
    m = arb.model
    z = m.NewIntVar(0, sum(w.values()), "period")
    for u, kids in arb.children.items():
        if kids:
            m.Add(z >= sum(w[(u, v)] * x for v, x in kids))
    m.Minimize(z)
    best, best_period = dict(incumbent), periods.tree_period(incumbent)
    lower = 0  # every tree better than the incumbent has rounded period >= lower
    while True:
        m.Add(z <= math.ceil(best_period * S) - 1)  # strictly better than the incumbent
        m.Add(z >= lower)
        arb.hint(best)
        status, tree, bound = arb.solve(budget)
        if status == cp_model.INFEASIBLE:
            return best, best_period
        lower = max(lower, bound)
        if tree is not None:
            period = periods.tree_period(tree)
            if period < best_period:
                best, best_period = tree, period
            else:
                for u, kids in arb.children.items():
                    chosen = [v for v, _ in kids if tree.get(v) == u]
                    if sum((p.cost(u, v) for v in chosen), Fraction(0)) >= best_period:
                        m.Add(sum(x for v, x in kids if v in chosen) <= len(chosen) - 1)
        if status == cp_model.OPTIMAL and not _child_set_between(p, arb, lower / S,
                                                                  best_period):
            return best, best_period  # proven: see the docstring
        if status != cp_model.OPTIMAL or budget.spent:
            return best, min(best_period, lower / S)


#: Most subsets :func:`_child_set_between` visits before answering "maybe".
_SUBSET_VISITS = 20_000


def _child_set_between(platform, arb: ArborescenceModel, low: Fraction, high: Fraction
                       ) -> bool:
    """Might some node have a set of children whose exact cost sum lies in
    [low, high)?  False is a proof (a depth-first search over each node's sets in
    increasing-cost order, cut at ``high``); True may also mean "too many sets"."""
    visits = 0
    for u, kids in arb.children.items():
        costs = sorted(platform.cost(u, v) for v, _ in kids)
        stack = [(0, Fraction(0))]  # (next index, sum of the set so far)
        while stack:
            i, total = stack.pop()
            visits += 1
            if low <= total < high:
                return True
            if visits > _SUBSET_VISITS:
                return True
            for j in range(i, len(costs)):
                if total + costs[j] >= high:
                    break  # sorted: every later cost overshoots too
                stack.append((j + 1, total + costs[j]))
    return False


def _multi_port_cp_sat(periods: TreePeriods, incumbent: dict, budget: Work):
    """Multi-port: a tree's period is one of the values T_uv or k·send_u, so the model
    minimises the *rank* of the period among these values (exact, no rounding):
    rank >= rank(T_uv) for a chosen link, rank >= rank(δ_out(u)·send_u) by a table."""
    from ortools.sat.python import cp_model

    p = periods.platform
    arb = ArborescenceModel(p)
    m = arb.model
    values = {periods.cost[a] for a in arb.x}
    for u, kids in arb.children.items():
        values.update(k * periods.send[u] for k in range(1, len(kids) + 1))
    ranked = sorted(values | {0})
    rank = {value: r for r, value in enumerate(ranked)}
    z = m.NewIntVar(0, len(ranked) - 1, "period rank")
    for (u, v), x in arb.x.items():
        m.Add(z >= rank[periods.cost[(u, v)]]).OnlyEnforceIf(x)
    for u, kids in arb.children.items():
        if kids:
            degree = m.NewIntVar(0, len(kids), f"degree[{u}]")
            m.Add(degree == sum(x for _, x in kids))
            at = m.NewIntVar(0, len(ranked) - 1, f"send rank[{u}]")
            m.AddElement(degree, [rank[k * periods.send[u]] for k in range(len(kids) + 1)],
                         at)
            m.Add(z >= at)
    m.Minimize(z)
    best, best_period = dict(incumbent), periods.tree_period(incumbent)
    m.Add(z <= rank[int(best_period * periods.scale)])
    arb.hint(best)
    status, tree, bound = arb.solve(budget)
    if status == cp_model.INFEASIBLE:  # pragma: no cover - the incumbent is a solution
        raise AssertionError("CP-SAT rejects the incumbent tree")
    if tree is not None and periods.tree_period(tree) < best_period:
        best, best_period = tree, periods.tree_period(tree)
    if status == cp_model.OPTIMAL:
        return best, best_period
    return best, min(best_period, Fraction(ranked[min(max(0, bound), len(ranked) - 1)],
                                           periods.scale))


# -- postcondition ---------------------------------------------------------------------

def check_best_tree(platform, model: str, result: BestTree) -> None:
    """Runtime postcondition: a spanning arborescence of the platform, its exact
    throughput in the model, below the proven bound, optimal iff the bound is reached."""
    assert_arborescence(platform, result.parent, "<best tree>")
    if tree_throughput(platform, result.parent, model) != result.throughput:
        raise AssertionError("postcondition: best tree throughput is not its formula")
    if result.throughput > result.upper_bound:
        raise AssertionError("postcondition: best tree above its proven upper bound")
    if result.optimal != (result.throughput == result.upper_bound):
        raise AssertionError("postcondition: 'optimal' disagrees with the bound")
