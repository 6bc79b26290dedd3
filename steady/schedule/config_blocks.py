"""Blocks of concurrent transfers: a collective's trees and the sets of transfers that
run together, chosen together (ours; issue 43, on 002 §5.3's trees with one rate per
root; proofs/collectives.md §11).

Under the resource rule (:mod:`steady.network.resources`) a transfer holds c_l / c_P
of every link l of its route P (multi-port; one-port: its ports whole too) for its
whole time, so the links cannot serve their routes as a fluid: at every instant the
transfers in progress form a *configuration*, a multiset of routes whose parts fit
every resource (a route at speed 12 on a link of speed 15 holds 4/5 of it, and the
last 1/5 serves nothing then).  The fluid optimum's trees may need more than any
sequence of configurations gives them (the trial's multi-port clusters: 0.84 and 0.91
by the list schedule); trees chosen *with* the configurations do not.

1. **The configuration LP** (a float search, :func:`configuration_lp`): maximise x
   over rates λ_T of trees (one rate x·ρ_r per root r, as in proofs/collectives.md
   §2) and times t_C >= 0 of configurations (sum at most 1 per time unit), each
   route P carrying at most what the configurations run of it,
   sum_C k_C(P)·t_C / c_P messages per time unit.  Column generation on both sides:
   a tree is priced by Edmonds' minimum arborescence (an edge costs its cheapest
   route's dual price), a configuration by a small knapsack MILP (maximise the
   routes' prices per time unit within every resource's capacity; a greedy fill
   first, SCIP with :data:`PRICING_NODES` nodes when the greedy finds none).  At most
   :data:`ITERATIONS` rounds; it stops early when x reaches the fluid optimum x*
   (no configuration LP exceeds it).
2. **Integer blocks** (:func:`_blocks`, an integer program over the LP's trees and
   configurations, CP-SAT, ``effort.collective_blocks`` units of deterministic time;
   at least the certified optimum's period, so it stops there): integer tree weights,
   k chunks per unit share at every root; each configuration C becomes a block of
   D_C ticks in which each copy of a route P runs at most floor(D_C / c_P) messages
   back to back from the block's start; every route carries its trees' messages;
   minimise the sum of the D_C.  The LP's rounded solution is the hint.
3. **The timetable** (exact, integer ticks): blocks one after the other; every
   transfer then moved to the earliest start where its resources have room, in the
   order of the blocks (a left justification: no transfer moves later, so the period
   never grows).  Where that stays below :data:`ORDER_BELOW` of the optimum, other
   orders of the blocks are searched (:func:`ordered_blocks`: one block moved at a
   time, each order justified, a counted number of orders, until one reaches it;
   any order is valid).
   :meth:`Timetable.check` verifies the resource rule at every instant and every
   tree edge's weight; the ratio is the existing certificate's.

Why a block is valid: its transfers start at the block's start and end by its end, at
most one at a time per copy of a route, so at every instant inside the block the
transfers in progress are a sub-multiset of C, which fits every resource; blocks do not
overlap.  Floats only propose (trees, configurations, weights): the timetable is
built and checked exactly, and its rate is certified by the optimum's certificate.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..exact.arborescence import minimum_arborescence
from ..exact.limits import glop_limits
from ..interrupts import solve_linear
from ..network.collective_bound import simple_routes
from ..network.resources import has_room, integer_parts, transfer_model
from .order_search import solved
from .timetable import Timetable, Tree

#: The most compute nodes and routes (simple paths through switches) the construction
#: is tried on: the LP has a row per route and the blocks model a lane per route of
#: every configuration.
MAX_COMPUTE = 12
MAX_ROUTES = 2_000
#: Column generation rounds at most (each: one GLOP solve, a tree per root, one
#: configuration).
ITERATIONS = 400
#: Branch-and-bound nodes of one configuration pricing MILP.
PRICING_NODES = 1_000
#: Copies of one route in a configuration at most (a bound for the pricing MILP).
COPIES = 64
#: Relative tolerance of the float pricing (a column must gain more to be added).
TOLERANCE = 1e-9


def applies(platform, result):
    """The routes (:func:`steady.network.collective_bound.simple_routes`) when the
    construction can pay: at most :data:`MAX_COMPUTE` compute nodes and
    :data:`MAX_ROUTES` routes; None otherwise (the cheap test of the chooser)."""
    if len(result.compute) > MAX_COMPUTE:
        return None
    return simple_routes(platform, MAX_ROUTES)


def _edges(tree) -> list:
    """A tree of the optimum's search (:class:`steady.throughput.result.RootedTree`)
    as its edges' routes, in the data's direction (sender first)."""
    return [tree.route(child) for child in tree.parent]


def _as_tree(root, edges, weight: int) -> Tree:
    """The timetable tree of ``root`` = (node, direction) whose edges take ``edges``
    (routes, sender first)."""
    node, direction = root
    parent, routes = {}, {}
    for route in edges:
        child = route[-1] if direction == "out" else route[0]
        parent[child] = route[0] if direction == "out" else route[-1]
        if len(route) > 2:
            routes[child] = tuple(route[1:-1])
    return Tree(parent, weight, node, direction, routes or None)


class ConfigurationLP:
    """The float LP of step 1 (module docstring), grown by columns: ``trees``
    [(root, edges)], ``configs`` [{route: copies}], their GLOP variables, and the
    routes' costs and parts (``info`` {route: (c_P, {resource: part})})."""

    def __init__(self, platform, result, routes, shares: dict):
        from ortools.linear_solver import pywraplp

        self.shares = shares
        self._platform = platform
        model = transfer_model(platform)
        self.info = {}
        for route in routes:
            c, parts = model.holds(route)
            self.info[route] = (c, dict(parts))
        self.routes = list(routes)
        self.result = result
        self.compute = list(result.compute)
        self.lp = lp = pywraplp.Solver.CreateSolver("GLOP")
        inf = lp.infinity()
        self.x = lp.NumVar(0, inf, "x")
        lp.Objective().SetCoefficient(self.x, 1)
        lp.Objective().SetMaximization()
        self.root_row = {}
        for r, rho in result.roots.items():
            self.root_row[r] = lp.Constraint(0, 0)
            self.root_row[r].SetCoefficient(self.x, float(rho))
        self.route_row = {P: lp.Constraint(-inf, 0) for P in self.routes}
        self.time_row = lp.Constraint(-inf, 1)
        self.trees, self.tree_vars, self._tree_keys = [], [], set()
        self.configs, self.config_vars, self._config_keys = [], [], set()

    def add_tree(self, root, edges) -> bool:
        key = (root, tuple(sorted(edges)))
        if key in self._tree_keys or any(P not in self.route_row for P in edges):
            return False
        self._tree_keys.add(key)
        v = self.lp.NumVar(0, self.lp.infinity(), "")
        self.root_row[root].SetCoefficient(v, -1)
        counts: dict = {}
        for P in edges:
            counts[P] = counts.get(P, 0) + 1
        for P, k in counts.items():
            self.route_row[P].SetCoefficient(v, k)
        self.trees.append((root, tuple(edges)))
        self.tree_vars.append(v)
        return True

    def add_config(self, config: dict) -> bool:
        key = tuple(sorted(config.items()))
        if key in self._config_keys:
            return False
        self._config_keys.add(key)
        v = self.lp.NumVar(0, self.lp.infinity(), "")
        self.time_row.SetCoefficient(v, 1)
        for P, k in config.items():
            self.route_row[P].SetCoefficient(v, -k / float(self.info[P][0]))
        self.configs.append(dict(config))
        self.config_vars.append(v)
        return True

    def solve(self) -> bool:
        """GLOP from the last basis, then once from scratch (a model rebuilt from the
        columns) when it ends otherwise than optimal (seen: ABNORMAL after some hundred
        columns); whether an optimum was found."""
        from ortools.linear_solver import pywraplp

        for attempt in (0, 1):
            if attempt:
                self._rebuild()
            status = solve_linear(self.lp, glop_limits(self.lp.NumVariables(),
                                                       self.lp.NumConstraints()))
            if status == pywraplp.Solver.OPTIMAL:
                return True
        return False

    def _rebuild(self) -> None:
        fresh = ConfigurationLP(self._platform, self.result, self.routes, self.shares)
        for root, edges in self.trees:
            fresh.add_tree(root, edges)
        for config in self.configs:
            fresh.add_config(config)
        self.__dict__.update(fresh.__dict__)

    def duals(self) -> tuple[dict, dict, float]:
        """({route: price >= 0}, {root: its dual}, the time row's dual) of the last
        solve (read before any column is added: GLOP forgets them then)."""
        return ({P: max(0.0, self.route_row[P].dual_value()) for P in self.routes},
                {r: row.dual_value() for r, row in self.root_row.items()},
                self.time_row.dual_value())

    def price_trees(self, pi: dict, w: dict) -> int:
        """Add, per root, its cheapest tree under the routes' prices ``pi`` when it
        costs less than the root's dual ``w``; how many were added."""
        cheapest: dict = {}
        for P in self.routes:
            key = (P[0], P[-1])
            if key not in cheapest or pi[P] < cheapest[key][0]:
                cheapest[key] = (pi[P], P)
        index = {v: i for i, v in enumerate(self.compute)}
        keys = list(cheapest)
        added = 0
        for root in self.root_row:
            node, direction = root
            arcs = [(index[a], index[b], c) if direction == "out" else (index[b], index[a], c)
                    for (a, b), (c, _) in cheapest.items()]
            found = minimum_arborescence(len(self.compute), index[node], arcs)
            if found is None:
                continue
            cost, chosen = found[0], found[1]
            if cost < w[root] * (1 - TOLERANCE) - 1e-12:
                edges = [cheapest[keys[i]][1] for i in chosen if i is not None]
                added += self.add_tree(root, edges)
        return added

    def price_configs(self, pi: dict, sigma: float) -> int:
        """Add the configuration of the largest price per time unit under ``pi`` when
        it exceeds the time row's dual ``sigma`` (greedy first, then the MILP); 1 when
        added, else 0."""
        value, config = _greedy_config(self.routes, self.info, pi)
        if value <= sigma * (1 + TOLERANCE) + 1e-12:
            value, config = _priced_config(self.routes, self.info, pi)
        if value > sigma * (1 + TOLERANCE) + 1e-12:
            return int(self.add_config(config))
        return 0


def _greedy_config(routes, info, pi) -> tuple[float, dict]:
    """A configuration filled greedily: routes by price per time unit over their
    largest part, each repeated while every resource has room (exact parts)."""
    candidates = [P for P in routes if pi[P] > 1e-12]
    candidates.sort(key=lambda P: (-pi[P] / float(info[P][0])
                                   / float(max(info[P][1].values())), P))
    used: dict = {}
    config: dict = {}
    value = 0.0
    for P in candidates:
        parts = info[P][1]
        while config.get(P, 0) < COPIES and all(used.get(l, 0) + p <= 1
                                                 for l, p in parts.items()):
            for l, p in parts.items():
                used[l] = used.get(l, 0) + p
            config[P] = config.get(P, 0) + 1
            value += pi[P] / float(info[P][0])
    return value, config


def _priced_config(routes, info, pi) -> tuple[float, dict]:
    """The configuration of the largest price per time unit by SCIP
    (:data:`PRICING_NODES` nodes; the parts as exact integers per resource)."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:  # pragma: no cover - the ortools wheels ship SCIP
        return 0.0, {}
    candidates = [P for P in routes if pi[P] > 1e-12]
    parts, capacity = integer_parts({P: tuple(info[P][1].items()) for P in candidates})
    count = {P: solver.IntVar(0, COPIES, "") for P in candidates}
    rows: dict = {}
    for P in candidates:
        for res, part in parts[P]:
            rows.setdefault(res, []).append((count[P], part))
    for res, terms in rows.items():
        solver.Add(solver.Sum([part * v for v, part in terms]) <= capacity[res])
    solver.Maximize(solver.Sum([pi[P] / float(info[P][0]) * count[P] for P in candidates]))
    status = solve_linear(solver, f"limits/nodes = {PRICING_NODES}\n")
    if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        return 0.0, {}
    config = {P: k for P in candidates if (k := round(count[P].solution_value()))}
    for res, terms in rows.items():   # the rounded values must fit, exactly
        if sum(part * round(v.solution_value()) for v, part in terms) > capacity[res]:
            return 0.0, {}
    return sum(pi[P] / float(info[P][0]) * k for P, k in config.items()), config


def configuration_lp(platform, result, routes, shares: dict,
                     iterations: int = ITERATIONS):
    """The LP of step 1 solved by column generation from the optimum's trees and one
    configuration per route alone (``shares`` {root: q_r}, the smallest integers in the
    proportions of the roots' rates): a :class:`ConfigurationLP`, or None when GLOP
    fails."""
    lp = ConfigurationLP(platform, result, routes, shares)
    for tree, _ in result.trees:
        lp.add_tree((tree.root, tree.direction), _edges(tree))
    for P in routes:
        lp.add_config({P: 1})
    target = float(result.rate) * (1 - TOLERANCE)
    for _ in range(iterations):
        if not lp.solve():
            return None
        if lp.x.solution_value() >= target:
            break   # the fluid optimum bounds every configuration LP
        pi, w, sigma = lp.duals()
        added = lp.price_trees(pi, w) + lp.price_configs(pi, sigma)
        if not added:
            break
    else:
        if not lp.solve():
            return None
    return lp


def _rounded(lp, trees, k: int) -> list[int]:
    """Weights of ``trees`` (indices into lp.trees) by largest remainders: k·q_r per
    root r (the LP's tree rates scaled)."""
    shares = lp.shares
    x = max(lp.x.solution_value(), 1e-12)
    weights = {}
    for root in lp.result.roots:
        members = [i for i in trees if lp.trees[i][0] == root]
        m = k * shares[root]
        exact = {i: lp.tree_vars[i].solution_value() * m / (x * float(lp.result.roots[root]))
                 for i in members}
        for i in members:
            weights[i] = math.floor(exact[i] + 1e-9)
        order = sorted(members, key=lambda i: (-(exact[i] - weights[i]), i))
        for i in order[:max(0, m - sum(weights[i] for i in members))]:
            weights[i] += 1
    return [weights.get(i, 0) for i in trees]


def _blocks(lp, k: int, work: float):
    """Step 2 (module docstring): (weights per tree of the LP's support, [(config,
    {route: [messages per copy]})]) or None when CP-SAT finds nothing within ``work``
    units of deterministic time (fixed workers, interleaved: the same blocks at any
    load; SCIP's answers to this model varied from run to run)."""
    from ortools.sat.python import cp_model

    shares = lp.shares
    trees = [i for i, v in enumerate(lp.tree_vars) if v.solution_value() > 1e-9]
    configs = [j for j, v in enumerate(lp.config_vars) if v.solution_value() > 1e-9]
    unit = math.lcm(*(lp.info[P][0].denominator for P in lp.routes))
    cost = {P: int(lp.info[P][0] * unit) for P in lp.routes}
    model = cp_model.CpModel()
    r, rho = next(iter(lp.result.roots.items()))
    # the LP's period k·q_r / (ρ_r·x*), twice, bounds a block; once, rounded up, bounds
    # the blocks' total from below (they carry k·q_r chunks of root r, and no
    # timetable beats the certified optimum): CP-SAT stops when it reaches it
    period = Fraction(k * shares[r] * unit) / (rho * lp.result.rate)
    horizon = math.ceil(2 * period) + max(cost.values())
    w = {i: model.NewIntVar(0, k * shares[lp.trees[i][0]], "") for i in trees}
    for root in lp.result.roots:
        model.Add(sum(w[i] for i in trees if lp.trees[i][0] == root) == k * shares[root])
    length = {j: model.NewIntVar(0, horizon, "") for j in configs}
    per_copy, carried = {}, {}
    for j in configs:
        for P, copies in sorted(lp.configs[j].items()):
            n = per_copy[(j, P)] = model.NewIntVar(0, horizon // cost[P] + 1, "")
            model.Add(cost[P] * n <= length[j])
            y = carried[(j, P)] = model.NewIntVar(0, copies * (horizon // cost[P] + 1), "")
            model.Add(y <= copies * n)
    need: dict = {}
    for i in trees:
        for P in lp.trees[i][1]:
            need.setdefault(P, []).append(w[i])
    for P, ws in need.items():
        model.Add(sum(carried[(j, P)] for j in configs if (j, P) in carried) >= sum(ws))
    model.Add(sum(length.values()) >= math.ceil(period))
    model.Minimize(sum(length.values()))
    for i, weight in zip(trees, _rounded(lp, trees, k)):
        model.AddHint(w[i], weight)
    solver = solved(model, work)
    if solver is None:
        return None
    weights = {i: solver.Value(w[i]) for i in trees}
    for root in lp.result.roots:   # exact counts, else nothing
        if sum(weights[i] for i in trees if lp.trees[i][0] == root) != k * shares[root]:
            return None
    left: dict = {}
    for i, wi in weights.items():
        for P in lp.trees[i][1]:
            left[P] = left.get(P, 0) + wi
    blocks = []
    for j in configs:
        lanes = {}
        for P, copies in sorted(lp.configs[j].items()):
            n = solver.Value(per_copy[(j, P)])
            y = min(solver.Value(carried[(j, P)]), copies * n, left.get(P, 0))
            row = []
            for _ in range(copies):
                row.append(min(n, y))
                y -= row[-1]
            left[P] = left.get(P, 0) - sum(row)
            if any(row):
                lanes[P] = row
        if lanes:
            blocks.append(lanes)
    if any(left.values()):   # the rounded values carry less than the trees need
        return None
    return {i: wi for i, wi in weights.items() if wi}, blocks, unit, cost


def _left_justified(items, parts, capacity, cost) -> list:
    """[(start, route, messages)] moved, in order of start, each to the earliest
    start >= 0 where every resource of its route has room beside those already moved
    (its old start always has: the transfers moved before it started no later and
    moved no later, so they hold nothing new at its old place)."""
    placed: dict = {}   # resource -> [(start, end, part)]
    out = []
    for start, route, n in sorted(items, key=lambda item: (item[0], item[1])):
        length = n * cost[route]
        held = parts[route]
        candidates = sorted({0, start} | {e for res, _ in held for _, e, _ in
                                           placed.get(res, ()) if e < start})
        for t in candidates:
            if all(has_room(placed.get(res, ()), t, t + length, part, capacity[res])
                   for res, part in held):
                break
        for res, part in held:
            placed.setdefault(res, []).append((t, t + length, part))
        out.append((t, route, n))
    return out


#: Rounds of right then left justification after the first left one.
JUSTIFY_ROUNDS = 4


def _justified(items, parts, capacity, cost) -> list:
    """The transfers left justified (:func:`_left_justified`), then up to
    :data:`JUSTIFY_ROUNDS` times justified to the right (the left justification of the
    period read backwards, latest end first) and to the left again, while that
    shortens the period (forward-backward improvement; no round makes it longer)."""
    def end(found):
        return max(t + n * cost[P] for t, P, n in found)

    best = _left_justified(items, parts, capacity, cost)
    for _ in range(JUSTIFY_ROUNDS):
        period = end(best)
        mirrored = [(period - t - n * cost[P], P, n) for t, P, n in best]
        back = _left_justified(mirrored, parts, capacity, cost)
        span = end(back)
        found = _left_justified([(span - t - n * cost[P], P, n) for t, P, n in back],
                                parts, capacity, cost)
        if end(found) >= period:
            break
        best = found
    return best


#: The ratio below which the blocks' order is searched (:func:`ordered_blocks`;
#: issue 43's target: blocks that reach it keep the model's order).
ORDER_BELOW = Fraction(99, 100)


def _items(blocks, cost) -> tuple[list, int]:
    """([(start, route, messages)], the blocks' total length): the blocks one after
    the other in the order given, each copy of a route from its block's start."""
    items, at = [], 0
    for lanes in blocks:
        for P, row in lanes.items():
            items.extend((at, P, n) for n in row if n)
        at += max(n * cost[P] for P, row in lanes.items() for n in row)
    return items, at


def _end(items, cost) -> int:
    return max(t + n * cost[P] for t, P, n in items)


def ordered_blocks(blocks, parts, capacity, cost, evaluations: int,
                   enough: Fraction = Fraction(0)) -> tuple[list, int]:
    """(the justified transfers, their period) of the best order of ``blocks`` found
    by first-improvement moves (ours; proofs/collectives.md §11, Claim 3): from the
    model's order, the blocks in turn, cyclically, each tried at every other place
    (the others keeping their order), each order justified (:func:`_justified`); the
    first that ends strictly earlier is taken and the next block is tried; it stops
    when no block's move gains in a whole round, once the period is at most
    ``enough`` ticks (the caller's target), or after ``evaluations`` orders scored
    (counted, never timed: the same blocks give the same order).  The justification packs each block's short lanes
    against its neighbours' (a block whose tight resource idles at its end beside one
    that can start early on it), so the order decides how much of the blocks' idle
    time it recovers."""
    order = list(blocks)
    best = _justified(_items(order, cost)[0], parts, capacity, cost)
    period = _end(best, cost)
    scored, i, idle = 1, 0, 0   # idle: blocks tried in a row without a gain
    while idle < len(order) and scored < evaluations and period > enough:
        moved = False
        for j in range(len(order)):
            if j == i or scored >= evaluations:
                continue
            trial = order[:i] + order[i + 1:]
            trial.insert(j, order[i])
            found = _justified(_items(trial, cost)[0], parts, capacity, cost)
            scored += 1
            if _end(found, cost) < period:
                order, best, period, moved = trial, found, _end(found, cost), True
                break
        idle = 0 if moved else idle + 1
        i = (i + 1) % len(order)
    return best, period


def block_timetable(platform, result, most: int, work: float, shares: dict,
                    orders: int = 0):
    """(timetable, k) of the module docstring with k = ``most`` chunks per unit share
    (k·q_r at root r, ``shares`` {root: q_r}: :func:`.collective.root_shares`), the
    blocks model bounded by ``work`` (CP-SAT's deterministic time); where the blocks
    in the model's order stay below :data:`ORDER_BELOW`, up to ``orders`` orders of
    them scored (:func:`ordered_blocks`), until one reaches it.  None where it does not apply
    (:func:`applies`) or a search finds nothing."""
    routes = applies(platform, result)
    if not routes:
        return None
    lp = configuration_lp(platform, result, routes, shares)
    if lp is None:
        return None
    found = _blocks(lp, most, work)
    if found is None:
        return None
    weights, blocks, unit, cost = found
    model = transfer_model(platform)
    used = {P for lanes in blocks for P in lanes}
    parts, capacity = integer_parts({P: model.holds(P)[1] for P in used})
    items = _justified(_items(blocks, cost)[0], parts, capacity, cost)
    period = _end(items, cost)
    r, rho = next(iter(result.roots.items()))
    # the certified optimum's period in ticks: ratio = optimum's period / period
    optimum = Fraction(most * shares[r] * unit) / (rho * result.rate)
    if orders and optimum < ORDER_BELOW * period:
        found_items, found_period = ordered_blocks(blocks, parts, capacity, cost, orders,
                                                   optimum / ORDER_BELOW)
        if found_period < period:
            items, period = found_items, found_period
    route_runs: dict = {}
    for start, P, n in items:
        route_runs.setdefault(P, []).append([start, n])
    trees = [_as_tree(lp.trees[i][0], lp.trees[i][1], wi) for i, wi in weights.items()]
    table = Timetable.from_route_runs(platform, trees, route_runs, period, unit)
    table.check()
    return table, most
