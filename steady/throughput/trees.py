"""SSB(G) by tree column generation: the default, exact-friendly formulation.

By the weighted version of Edmonds' branching theorem (002 §5.3, Thm 5 and Lemma 4), an
optimal solution of SSB(G) is a set of spanning arborescences T rooted at the source with
rates λ_T whose sum is TP, subject only to the one-port rows (002 eqs. (12)-(16)):

    maximise  sum_T λ_T
    s.t.      out-port of j:  sum_T λ_T · (sum of c_{j,k} over j's children in T) <= 1
              in-port of k:   sum_T λ_T · c_{parent_T(k),k}                        <= 1

The master LP has one row per port (<= 2|V|) and so an optimal basis holds at most 2|V|
trees.  Pricing is a minimum-cost arborescence under the port prices y (arc weight
c_{j,k}(y_j^out + y_k^in)): a tree costing less than 1 improves the master.  Floats drive
the search; the end point is re-solved exactly and the pricing is re-run in exact
arithmetic, which is at the same time the optimality certificate (proofs/certificate.md).
The primal side needs no max-flow: the trees themselves show that every destination
receives TP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from ..exact.arborescence import minimum_arborescence, peeled_trees, shortest_path_tree
from ..exact.lp import EQ, LE, CertificationError, LinearProgram
from ..exact.simplex import PivotLimit
from ..platform import Link
from ..network.rows import ROW_PREFIX, arc_link_weights, shared_links, tree_link_usage
from .fabric import IN, OUT, Fabric, price_scale
from .ports import cheapest_tree
from .postcondition import certified_result
from .spread import SpreadSearch, capacity_rows

_TOLERANCE = 1e-9
_ALPHAS = (0.9,)  # weight(s) of the cut LP's prices in the pricing point(s); more
# points per round were tried (0.9, 0.7, 0.5) and did not cut the rounds on 65 nodes


def tree_column(platform, parent: dict, rows: dict) -> dict[int, Fraction]:
    """The master-LP column of the tree child -> parent: its port loads per message."""
    column: dict[int, Fraction] = {}
    for child, par in parent.items():
        c = platform.cost(par, child)
        i, k = rows[("out", par)], rows[("in", child)]
        column[i] = column.get(i, Fraction(0)) + c
        column[k] = column.get(k, Fraction(0)) + c
    for lid, t in tree_link_usage(platform, parent).items():  # shared links (issue 19)
        column[rows[("link", lid)]] = t
    return column


class TreeMaster:
    """The restricted master LP over a growing set of rooted trees.

    ``TreeMaster(platform)`` is SSB(G) of 002 §5.3: spanning arborescences rooted at
    the source, objective sum λ_T, one row per port (and shared network link).

    Collectives (issue 43; proofs/collectives.md) give ``roots`` ({(node, direction):
    relative rate ρ_r}, direction ``"out"`` for trees that carry data away from the
    root, ``"in"`` for reduction trees that bring it to the root) and a
    :class:`~steady.throughput.fabric.Fabric` (its rows: ports, links, network links).
    With more than one root the objective is the rate x, and each root has the row
    ρ_r·x - sum of its trees' rates = 0, whose dual w_r is the cheapest tree cost the
    certificate needs.  With ``orbits`` (lists of fabric rows that a group G of
    automorphisms permutes, :mod:`.symmetry`) the LP is the one averaged over G: one
    row per orbit O, where a tree's coefficient is |G|/|O| times its load summed over
    O, and only the orbits' representative roots get trees."""

    def __init__(self, platform, roots: dict | None = None, fabric=None, orbits=None,
                 order: int = 1):
        self.platform = platform
        self.roots = dict(roots) if roots else {(platform.source, OUT): Fraction(1)}
        self.fabric = fabric if fabric is not None else Fabric(platform, self.roots)
        self.lp = LinearProgram("ssb-trees")
        self.rows: dict[tuple, int] = {}
        self.words: dict[int, str] = {}
        rows = self.fabric.rows
        self.orbits = orbits if orbits is not None else [[i] for i in range(len(rows))]
        self.order = order
        self.row_of = [0] * len(rows)
        self.factor: list[Fraction] = []
        self._float_factor: list[float] = []
        for k, members in enumerate(self.orbits):
            words = rows[members[0]][1]
            if len(members) > 1:
                words += f" and its {len(members) - 1} images"
            i = self.lp.add_row({}, LE, 1, words)
            self.words[i] = words
            self.factor.append(Fraction(order, len(members)))
            self._float_factor.append(order / len(members))
            for m in members:
                self.rows[rows[m][0]] = i
                self.row_of[m] = k
        self.single = len(self.roots) == 1
        self.root_row: dict[tuple, int] = {}
        if not self.single:
            self.x = self.lp.add_variable("x", objective=1)
            for r, rho in self.roots.items():
                self.root_row[r] = self.lp.add_row({self.x: rho}, EQ, 0,
                                                   f"rate of the trees rooted at {r[0]} ({r[1]})")
        self.trees: list[dict] = []
        self.tree_roots: list[tuple] = []
        self.tree_hops: list[dict | None] = []
        self._known: dict = {}  # the trees' keys: their index in ``trees``

    def edges(self, root, parent: dict, hops: dict | None) -> list[tuple]:
        """(sender, receiver, hops) of a tree: a route per edge, in the data's
        direction (parent to child out of the root, child to parent into it)."""
        index = self.fabric.link_index
        if root[1] == OUT:
            return [(p, c, hops[c] if hops else (index[(p, c)],)) for c, p in parent.items()]
        return [(c, p, hops[c] if hops else (index[(c, p)],)) for c, p in parent.items()]

    def add(self, parent: dict, root: tuple | None = None, hops: dict | None = None) -> bool:
        """Add the tree child -> parent rooted at ``root`` (default: the only root),
        whose edge into each child follows ``hops[child]`` (default: the direct link)."""
        root = root if root is not None else next(iter(self.roots))
        key = (root, frozenset(parent.items()),
               frozenset(hops.items()) if hops else None)
        if key in self._known:
            return False
        self._known[key] = len(self.trees)
        self.trees.append(dict(parent))
        self.tree_roots.append(root)
        self.tree_hops.append(dict(hops) if hops else None)
        column = self.reduced_column(root, parent, hops)
        if self.single:
            objective = 1 / self.roots[root]  # x = (sum of the rates) / ρ
        else:
            objective = 0
            column[self.root_row[root]] = Fraction(-1)
        self.lp.add_variable(f"tree{len(self.trees) - 1}", objective=objective,
                             column=column)
        return True

    def index(self, parent: dict, root: tuple, hops: dict | None) -> int | None:
        """The index in ``trees`` of this tree (None: not in the master)."""
        return self._known.get((root, frozenset(parent.items()),
                                frozenset(hops.items()) if hops else None))

    def reduced_column(self, root, parent: dict, hops: dict | None) -> dict[int, Fraction]:
        """{master row: coefficient}: the tree's loads summed per orbit, times |G|/|O|."""
        column: dict[int, Fraction] = {}
        for row, c in self.fabric.column(self.edges(root, parent, hops)).items():
            k = self.row_of[row]
            column[k] = column.get(k, 0) + c * self.factor[k]
        return column

    def prices(self, duals) -> tuple[dict, dict]:
        out = {v: duals[self.rows[("out", v)]] if ("out", v) in self.rows else 0
               for v in self.platform.nodes}
        inn = {v: duals[self.rows[("in", v)]] if ("in", v) in self.rows else 0
               for v in self.platform.nodes}
        return out, inn

    def link_prices(self, duals) -> dict:
        """{link id: dual of its row} (empty without shared network links)."""
        return {key[1]: duals[i] for key, i in self.rows.items() if key[0] == "link"}

    def row_prices(self, duals, floor=None) -> list:
        """The prices p_j of the fabric's rows at which the master prices trees: the
        orbit's dual times |G|/|O| (``floor``: a float search clamps at 0)."""
        if floor is not None:  # a float search
            factor = self._float_factor
            return [max(floor, duals[k]) * factor[k] for k in self.row_of]
        return [duals[k] * self.factor[k] for k in self.row_of]

    def root_costs(self, duals) -> dict:
        """w_r: the cost under the row prices that a root's new tree must beat."""
        if self.single:
            return {r: 1 / rho for r, rho in self.roots.items()}
        return {r: duals[i] for r, i in self.root_row.items()}


def _center(platform) -> tuple[tuple[dict, dict], dict, dict]:
    """The float search of the default method (:mod:`.spread`): the bound LP's port
    prices (near-optimal duals for the master, used to stabilise the column
    generation) and the interior rates n (spread over many links: they seed the
    master with diverse trees)."""
    found = SpreadSearch(platform, capacity_rows(platform)).run()
    out = {v: found.prices.get(("out", v), 0.0) for v in platform.nodes}
    inn = {v: found.prices.get(("in", v), 0.0) for v in platform.nodes}
    return (out, inn), dict(zip(platform.arcs, found.rates)), found.stats


#: Seeding: peel |V|/2 trees, at most PEEL_MOST, from the interior rates of the search
#: (measured on scale_platform: the master is optimal after one pricing round at 200
#: and 1000 nodes, with 35 and ~60 trees in its basis; peeling 500 trees at 1000 nodes
#: cost 24 s of peeling and a master of 500 dense columns).
PEEL_MOST = 120
class FloatPricing:
    """Float pricing (a search only): cheapest arborescence under float port prices,
    with the platform's arrays prepared once."""

    def __init__(self, platform):
        self.platform = platform
        index = {v: i for i, v in enumerate(platform.nodes)}
        self.tails = [index[l.tail] for l in platform.links]
        self.heads = [index[l.head] for l in platform.links]
        self.costs = [float(l.cost) for l in platform.links]
        self.root = index[platform.source]
        self.extra = [0.0] * len(platform.links)  # the link prices' share per arc
        self.link_share: dict = {}

    def set_link_prices(self, prices: dict) -> None:
        """Float link prices (issue 19) added to every arc's weight from now on."""
        if prices:
            self.link_share = {arc: float(w) for arc, w in arc_link_weights(
                self.platform, {l: max(0.0, z) for l, z in prices.items()}).items()}
            self.extra = [self.link_share.get(l.arc, 0.0) for l in self.platform.links]

    def cheapest(self, out: list, inn: list) -> tuple[float, dict]:
        arcs = [(u, v, c * (out[u] + inn[v]) + x)
                for u, v, c, x in zip(self.tails, self.heads, self.costs, self.extra)]
        cost, chosen = minimum_arborescence(len(out), self.root, arcs)
        links = self.platform.links
        return cost, {links[i].head: links[i].tail for i in chosen}

    def cost(self, parent: dict, out: list, inn: list) -> float:
        index = {v: i for i, v in enumerate(self.platform.nodes)}
        cost = sum(float(self.platform.cost(p, c)) * (out[index[p]] + inn[index[c]])
                   for c, p in parent.items())
        if self.link_share:
            cost += sum(self.link_share.get((p, c), 0.0) for c, p in parent.items())
        return cost


def _price(pricing, master, duals, center) -> int:
    """Add improving trees; returns how many.  Wentges smoothing: price at point(s)
    between the cut LP's prices and the master's duals and keep every tree that
    improves the master at its duals; only when none does, price at the duals
    themselves (the test of optimality)."""
    nodes = pricing.platform.nodes
    pricing.set_link_prices(master.link_prices(duals))
    out, inn = master.prices([max(0.0, d) for d in duals])
    out, inn = [out[v] for v in nodes], [inn[v] for v in nodes]
    added = 0
    for alpha in _ALPHAS:
        mixed_out = [alpha * c + (1 - alpha) * y for c, y in zip(center[0], out)]
        mixed_in = [alpha * c + (1 - alpha) * y for c, y in zip(center[1], inn)]
        _, parent = pricing.cheapest(mixed_out, mixed_in)
        if pricing.cost(parent, out, inn) < 1 - _TOLERANCE and master.add(parent):
            added += 1
    if added:
        return added
    cost, parent = pricing.cheapest(out, inn)
    return int(cost < 1 - _TOLERANCE and master.add(parent))


def solve_trees(platform):
    """Exact optimal throughput of SSB(G) by tree column generation.  When GLOP gives
    up on the search (its work is bounded; issue 18 F01), the exact route of the cut
    method answers instead (its result has no trees: the schedule then builds them by
    Theorem 5's weighted branchings)."""
    try:
        return _column_generation(platform)
    except CertificationError:
        from .cuts import solve_cuts_exactly

        result = solve_cuts_exactly(platform)
        result.stats["route"] = "exact cut loop (GLOP gave up on the tree master)"
        return result


def _column_generation(platform):
    start = time.perf_counter()
    master = TreeMaster(platform)
    master.add(shortest_path_tree(platform))
    pricing_at = FloatPricing(platform)
    (c_out, c_in), rates, search = _center(platform)
    center = ([c_out[v] for v in platform.nodes], [c_in[v] for v in platform.nodes])
    master.add(pricing_at.cheapest(*center)[1])
    for parent in peeled_trees(platform, rates, center, min(PEEL_MOST, len(platform.nodes) // 2)):
        master.add(parent)
    pricing = exact_rounds = 0
    pricing_seconds = exact_seconds = check_seconds = 0.0
    while True:
        while True:  # float column generation
            _, duals = master.lp.solve_float()
            pricing += 1
            mark = time.perf_counter()
            improved = _price(pricing_at, master, duals, center)
            pricing_seconds += time.perf_counter() - mark
            if not improved:
                break
        exact_rounds += 1
        mark = time.perf_counter()
        solution = master.lp.solve_exact()
        exact_seconds += time.perf_counter() - mark
        out, inn = master.prices(solution.duals)
        mark = time.perf_counter()
        cost, parent = cheapest_tree(platform, out, inn,  # exact pricing = certificate
                                     master.link_prices(solution.duals))
        check_seconds += time.perf_counter() - mark
        if cost >= 1:
            break
        if not master.add(parent):  # pragma: no cover - an exact improving tree is new
            raise AssertionError("exact pricing returned a tree already in the master")
    weights = {k: solution.x[k] for k in range(len(master.trees)) if solution.x[k]}
    trees = [(master.trees[k], w) for k, w in weights.items()]
    return certified_result(
        platform, master.lp, solution, None, None, master.words, "trees", trees=trees,
        stats={"pricing_rounds": pricing, "exact_rounds": exact_rounds,
               "columns": len(master.trees), "trees": len(trees),
               "search_rounds": search["rounds"],
               "lp_iterations": search["lp_iterations"],
               "float_lp_seconds": round(search["float_lp_seconds"] + master.lp.float_seconds, 4),
               "separation_seconds": search["separation_seconds"],
               "pricing_seconds": round(pricing_seconds, 4),
               "exact_seconds": round(exact_seconds, 4),
               "check_seconds": round(check_seconds, 4),
               "seconds": round(time.perf_counter() - start, 4)})


# -- collectives (issue 43): the same column generation over several roots ------------

#: A float-priced tree joins the master when it is cheaper than w_r by this share.
ROOTED_TOLERANCE = 1e-9
#: Float pricing rounds before the exact end is tried anyway (a work bound; the exact
#: end decides, and adds the exactly cheapest trees itself when the search stopped early).
ROOTED_ROUNDS = 500


@dataclass
class RootedSolution:
    """The exact optimum of the rooted tree LP: ``x`` (each root r sends x·ρ_r), the
    master (its trees), the exact LP ``solution``, the pricing prices ``prices`` (one
    per fabric row), ``root_costs`` w_r of the representative roots and, per
    representative, ``bounds[r] = (cost, family)``: the exact cheapest tree cost under
    ``prices`` (>= w_r) and Edmonds' dual family proving it (node positions in
    ``fabric.compute``; :func:`steady.exact.arborescence.minimum_arborescence`)."""

    x: Fraction
    master: TreeMaster
    solution: object
    prices: list
    root_costs: dict
    bounds: dict
    stats: dict


class RoutePricing:
    """Pricing over routes (ours, issue 43): the cheapest route between every pair of
    compute nodes (:meth:`Fabric.routes`), then per root a minimum-cost arborescence
    over them (out of the root for ``"out"`` trees, into it for ``"in"`` trees)."""

    def __init__(self, fabric, symmetry=None):
        self.fabric = fabric
        self.symmetry = symmetry  # routes searched from one compute node per orbit
        self.n = len(fabric.compute)

    def closure(self, prices, scale: int = 1):
        """The routes under ``prices`` and, per direction asked so far, their arcs."""
        return self.fabric.routes(prices, scale, self.symmetry), {}

    def cheapest(self, closure, root, dual: bool = False):
        """(cost, parent, hops[, family]) of a cheapest tree rooted at ``root``."""
        routes, arcs_by_direction = closure
        if root[1] not in arcs_by_direction:
            arcs_by_direction[root[1]] = ([(s, t, w) for s, t, w, _ in routes]
                                          if root[1] == OUT else
                                          [(t, s, w) for s, t, w, _ in routes])
        arcs = arcs_by_direction[root[1]]
        found = minimum_arborescence(self.n, self.fabric.position[root[0]], arcs, dual,
                                     sorted_heaps=True)
        if found is None:  # pragma: no cover - reachability is checked by the door
            raise ValueError(f"no spanning tree rooted at {root[0]}")
        compute = self.fabric.compute
        parent, hops = {}, {}
        for i in found[1]:
            s, t, _, route = routes[i]
            child, par = (t, s) if root[1] == OUT else (s, t)
            parent[compute[child]] = compute[par]
            hops[compute[child]] = self.fabric.resolve(route, self.symmetry)
        return (found[0], parent, hops) + ((found[2],) if dual else ())


#: Trees added per pricing round at most, the most improving first (partial pricing:
#: on 32 roots without symmetry, adding every root's tree grew the master to ~4000
#: columns whose solves took half the time).
MOST_COLUMNS = 4
#: Weight of the best bound's prices in the pricing point (Wentges smoothing).
SMOOTHING = 0.7


def _price_roots(master, pricing, reps, point, duals, w) -> tuple[int, float]:
    """Price every representative root at the orbit-row prices ``point``; add each
    tree that is cheaper than w_r at the master's ``duals``.  Returns (trees added, the
    upper bound that ``point`` proves: sum of its prices over sum of ρ_r times the
    cheapest tree cost, the certificate's weak duality)."""
    k = len(master.orbits)
    closure = pricing.closure(master.row_prices(point[:k], floor=0.0))
    at_duals = master.row_prices(duals[:k], floor=0.0) if point is not duals else None
    weighted, found = 0.0, []
    for r in reps:
        cost, parent, hops = pricing.cheapest(closure, r)
        weighted += float(master.roots[r]) * cost
        if at_duals is not None:
            cost = master.fabric.float_price(master.edges(r, parent, hops), at_duals)
        if cost < w[r] - ROOTED_TOLERANCE * (1 + abs(w[r])):
            found.append(((cost - w[r]) / (1 + abs(w[r])), r, parent, hops))
    added = 0
    for _, r, parent, hops in sorted(found, key=lambda f: f[0])[:MOST_COLUMNS]:
        added += master.add(parent, r, hops)
    if len(reps) < MOST_COLUMNS and found:  # few roots: more trees per round
        added += _alternatives(master, pricing, reps, point, duals, w, found)
    bound = sum(point[:k]) / weighted if weighted > 0 else float("inf")
    return added, bound


def _alternatives(master, pricing, reps, point, duals, w, found) -> int:
    """With fewer roots than MOST_COLUMNS, look for other improving trees: price again
    with the rows the found trees load made dearer (by their mean price)."""
    k = len(master.orbits)
    prices = master.row_prices(point[:k], floor=0.0)
    positive = [p for p in prices if p > 0]
    if not positive:
        return 0
    bump = sum(positive) / len(positive)
    at_duals = master.row_prices(duals[:k], floor=0.0)
    added = 0
    for _ in range(MOST_COLUMNS - len(reps)):
        for _, r, parent, hops in found:
            for row in master.fabric.column(master.edges(r, parent, hops)):
                prices[row] += bump
        closure = pricing.closure(prices)
        new = []
        for r in reps:
            _, parent, hops = pricing.cheapest(closure, r)
            cost = master.fabric.float_price(master.edges(r, parent, hops), at_duals)
            if cost < w[r] - ROOTED_TOLERANCE * (1 + abs(w[r])) and master.add(parent, r, hops):
                added += 1
                new.append((0, r, parent, hops))
        if not new:
            break
        found = new
    return added


#: The exact way out (ours): once the float search has failed, at most this many rounds
#: of exact column generation (each: the master solved exactly, every representative
#: root priced exactly).  Each round adds a tree per root that prices below its bound;
#: the hetero-cluster with one link 10^16 times faster needed 4-6 (docs/limits.md).
EXACT_WAY_OUT_ROUNDS = 200
#: Pivots of the exact simplex per master at most, when GLOP's basis fails its exact
#: check (the simplex starts from the previous master's optimal basis).
EXACT_WAY_OUT_PIVOTS = 2000


class ExactWayOutLimit(CertificationError):
    """The exact way out of the collective LP stopped at one of its bounds (its message
    names the bound: :data:`EXACT_WAY_OUT_ROUNDS` or :data:`EXACT_WAY_OUT_PIVOTS`)."""


def solve_rooted(platform, roots: dict, symmetry=None, search: bool = True) -> RootedSolution:
    """The exact optimum of the collective tree LP (issue 43; proofs/collectives.md):
    column generation as for SSB(G) above, over the trees of every root (of one root
    per orbit with ``symmetry``, a :class:`~steady.throughput.symmetry.RootSymmetry`),
    priced by :class:`RoutePricing`; floats search, the end is exact (the master
    re-solved in rationals, every root priced again exactly, in integers).

    When GLOP gives up on the master (costs far apart: its work is bounded) -- or
    without ``search`` (tests) --, the exact way out (ours;
    proofs/collective-exact-way-out.md) goes on from the trees found so far with
    exact rounds only:
    the master solved exactly (:meth:`LinearProgram.solve_exact`: GLOP's basis checked
    in rationals, else the exact simplex from the previous master's optimal basis),
    every root priced exactly, until no tree prices below its bound -- the same
    certificate.  When the search failed and CLAMP_AFTER_ROUNDS exact rounds did not
    stop, the next starts from the trees and basis of the optimum with the costs
    clamped (:func:`_clamped_seeds`, a search whose basis the exact simplex checks;
    from the slacks if it refuses it).  Bounded by :data:`EXACT_WAY_OUT_ROUNDS` rounds and
    :data:`EXACT_WAY_OUT_PIVOTS` pivots per master; beyond them
    :class:`ExactWayOutLimit`."""
    start = time.perf_counter()
    group = symmetry   # as given (reset below where it does not act on the rows)
    fabric = Fabric(platform, roots)
    orbits = symmetry.row_orbits(fabric) if symmetry is not None else None
    if orbits is None:
        symmetry = None
    reps = symmetry.reps if symmetry is not None else list(roots)
    master = TreeMaster(platform, {r: Fraction(roots[r]) for r in reps}, fabric, orbits,
                        symmetry.order if symmetry is not None else 1)
    pricing = RoutePricing(fabric, symmetry if symmetry is not None
                           and symmetry.acts_on_compute else None)
    seed = pricing.closure([1.0] * len(fabric.rows))  # uniform prices spread the seeds
    for r in reps:
        _, parent, hops = pricing.cheapest(seed, r)
        master.add(parent, r, hops)
    exact_rounds = simplex = 0
    clamp = False  # the float search failed: the clamped search may seed the way out
    basis = None  # the last exact optimal basis (a start for the exact simplex)
    seconds = {"float_pricing": 0.0, "exact_lp": 0.0, "exact_pricing": 0.0}
    state = {"rounds": 0, "center": None, "best": float("inf")}
    failure = None if search else "not asked"
    way_out = {"center": None, "best": None}  # the exact rounds' smoothing
    while True:
        if failure is None:
            try:
                _float_rounds(master, pricing, reps, state, seconds)
            except CertificationError as exc:  # GLOP gave up: exact rounds from here
                failure, clamp = str(exc), True
        if clamp and exact_rounds == CLAMP_AFTER_ROUNDS:
            mark = time.perf_counter()
            basis = _clamped_seeds(master, platform, roots, group) or basis
            seconds["clamped_search"] = time.perf_counter() - mark
        exact_rounds += 1
        if failure is not None and exact_rounds > EXACT_WAY_OUT_ROUNDS:
            raise ExactWayOutLimit(
                f"its exact way out priced below the bound after {EXACT_WAY_OUT_ROUNDS} "
                "exact rounds, the most it takes (EXACT_WAY_OUT_ROUNDS)")
        mark = time.perf_counter()
        solution, failure = _solve_master(master, failure, basis)
        basis = solution.basis
        simplex += "fallback" in solution.stats
        seconds["exact_lp"] += time.perf_counter() - mark
        mark = time.perf_counter()
        prices = master.row_prices(solution.duals)
        w = master.root_costs(solution.duals)
        if failure is not None and _smoothed_round(master, pricing, reps, solution.duals,
                                                   prices, w, way_out):
            seconds["exact_pricing"] += time.perf_counter() - mark
            continue
        scale = price_scale(fabric, prices)
        closure = pricing.closure(prices, scale)
        bounds, improved = {}, False
        for r in reps:
            cost, parent, hops, family = pricing.cheapest(closure, r, dual=True)
            cost = Fraction(cost, scale)
            if cost < w[r]:
                improved |= master.add(parent, r, hops)
            bounds[r] = (cost, [(m, Fraction(z, scale)) for m, z in family])
        if failure is not None:
            _keep_center(master, reps, solution.duals, bounds, way_out)
        seconds["exact_pricing"] += time.perf_counter() - mark
        if not improved:
            break
    x = solution.value
    stats = {"pricing_rounds": state["rounds"], "exact_rounds": exact_rounds,
             "columns": len(master.trees), "master_rows": len(master.lp.rows),
             "fabric_rows": len(fabric.rows), "representative_roots": len(reps),
             "float_lp_seconds": round(master.lp.float_seconds, 4),
             **{f"{k}_seconds": round(v, 4) for k, v in seconds.items()},
             "seconds": round(time.perf_counter() - start, 4)}
    if failure is not None:
        stats["route"] = f"exact way out ({failure})"
        stats["exact_simplex_rounds"] = simplex  # the rest: GLOP's basis, checked
    return RootedSolution(x, master, solution, prices, w, bounds, stats)


#: The clamped search (ours; proofs/collective-exact-way-out.md, "Seeds"): in the
#: exact way out, the collective LP is solved on the platform whose costs are clamped
#: to [m / CLAMP_SPAN, m * CLAMP_SPAN] (m: the median cost); its optimal trees and basis
#: seed the exact rounds.  Decided on 2 MI250 boxes with a link x 10^16, confirmed on
#: a100-4 and the rows of benchmarks/exactcol43.md (the spans tried are there).
CLAMP_SPAN = 10**4
#: The clamped search runs when the exact way out has not stopped after this many
#: rounds (the hetero-cluster's rows of benchmarks/exactcol43.md stop within 5; on them
#: the clamped search would cost more than it saves).
CLAMP_AFTER_ROUNDS = 6


def _clamped_seeds(master, platform, roots, symmetry) -> list | None:
    """A search (ours): add to ``master`` the trees of the basis and support of the
    optimum of the collective LP on ``platform`` with its costs clamped (CLAMP_SPAN),
    and return that basis in ``master``'s indices -- a start for the exact simplex,
    which checks it (None: no cost was clamped, or the clamped LP was not solved).
    The clamped platform's costs are within the span, so it is not clamped again; its
    own work is bounded as any collective LP's (its float search, then at most
    EXACT_WAY_OUT_ROUNDS exact rounds)."""
    costs = sorted(l.cost for l in platform.links)
    m = costs[len(costs) // 2]
    lo, hi = m / CLAMP_SPAN, m * CLAMP_SPAN
    if costs[0] >= lo and costs[-1] <= hi:
        return None
    clamped = platform.replace_links(Link(l.tail, l.head, min(hi, max(lo, l.cost)), l.startup)
                                     for l in platform.links)
    try:
        found = solve_rooted(clamped, roots, symmetry)
    except CertificationError:
        return None
    inner = found.master
    first = 0 if inner.single else 1
    basis = found.solution.basis
    if basis is None or len(master.lp.rows) != len(inner.lp.rows):
        return None
    keep = {j for kind, j in basis if kind == "col"}
    keep |= {first + k for k in range(len(inner.trees)) if found.solution.x[first + k]}
    where = {j: j for j in range(first)}
    for j in sorted(keep):
        if j >= first:
            tree = (inner.trees[j - first], inner.tree_roots[j - first],
                    inner.tree_hops[j - first])
            master.add(*tree)
            where[j] = first + master.index(*tree)
    return [("col", where[j]) if kind == "col" else (kind, j) for kind, j in basis]


def _float_rounds(master, pricing, reps, state, seconds) -> None:
    """Float column generation (a search) until no tree improves the master or
    ROOTED_ROUNDS rounds in all; ``state`` keeps the rounds and the smoothing's center
    and best bound between calls.  Raises CertificationError when GLOP gives up."""
    center, best = state["center"], state["best"]
    while state["rounds"] < ROOTED_ROUNDS:
        _, duals = master.lp.solve_float()
        state["rounds"] += 1
        mark = time.perf_counter()
        k = len(master.orbits)
        duals = [max(0.0, d) for d in duals[:k]] + list(duals[k:])
        w = master.root_costs(duals)
        added = 0
        if center is not None:  # Wentges smoothing: price between the best bound's
            point = [SMOOTHING * c + (1 - SMOOTHING) * y  # prices and the duals
                     for c, y in zip(center, duals)]
            added, bound = _price_roots(master, pricing, reps, point, duals, w)
            if bound < best:
                center, best = point, bound
        if not added:
            added, bound = _price_roots(master, pricing, reps, duals, duals, w)
            if bound < best:
                center, best = duals[:k], bound
        state["center"], state["best"] = center, best
        seconds["float_pricing"] += time.perf_counter() - mark
        if not added:
            break


def _keep_center(master, reps, duals, bounds, way_out) -> None:
    """The exact rounds' smoothing center: the orbit prices of the best bound so far,
    sum of the prices over sum of ρ_r times the cheapest tree costs (weak duality)."""
    k = len(master.orbits)
    weighted = sum(master.roots[r] * bounds[r][0] for r in reps)
    if weighted > 0:
        bound = sum(duals[:k]) / weighted
        if way_out["best"] is None or bound < way_out["best"]:
            way_out["center"], way_out["best"] = list(duals[:k]), bound


def _smoothed_round(master, pricing, reps, duals, prices, w, way_out) -> bool:
    """Wentges smoothing in exact rounds (ours, as the float search's): price every
    root at a point between the best bound's prices and the master's duals (rounded to
    53-bit binary fractions: only a search point), add each tree cheaper than w_r at
    the duals (exact costs), keep the point as center when it proves a better bound.
    Returns whether a tree was added (if not, the round prices at the duals, which
    decides)."""
    center = way_out["center"]
    if center is None:
        return False
    k = len(master.orbits)
    try:
        point = [Fraction(SMOOTHING * float(c) + (1 - SMOOTHING) * float(y))
                 for c, y in zip(center, duals[:k])]
    except OverflowError:
        return False
    at = master.row_prices(point)
    scale = price_scale(master.fabric, at)
    closure = pricing.closure(at, scale)
    weighted, added = Fraction(0), 0
    for r in reps:
        cost, parent, hops = pricing.cheapest(closure, r)
        weighted += master.roots[r] * Fraction(cost, scale)
        column = master.fabric.column(master.edges(r, parent, hops))
        if sum(prices[j] * a for j, a in column.items()) < w[r]:
            added += master.add(parent, r, hops)
    if weighted > 0 and sum(point) / weighted < way_out["best"]:
        way_out["center"], way_out["best"] = point, sum(point) / weighted
    return added > 0


def _solve_master(master, failure, basis):
    """(the master's exact optimum, failure): :meth:`LinearProgram.solve_exact`, and in
    the exact way out (``failure``: why the search stopped; also taken when the exact
    end of a successful search fails) GLOP's basis checked, else the exact simplex from
    ``basis`` (the previous master's optimal basis, still feasible: only columns were
    added; or the clamped search's, retried from the slacks when the simplex refuses
    it; None: the slacks, x = 0).  A failure of the way out names the bound it hit."""
    if failure is None:
        try:
            return master.lp.solve_exact(), None
        except CertificationError as exc:
            failure = str(exc)
    slacks = [("row", i) for i in range(len(master.lp.rows))]
    if basis is None:
        basis = slacks
    try:
        try:
            return master.lp.solve_exact(basis, EXACT_WAY_OUT_PIVOTS), failure
        except CertificationError as exc:
            if basis is slacks or isinstance(exc.__cause__, PivotLimit):
                raise
            return master.lp.solve_exact(slacks, EXACT_WAY_OUT_PIVOTS), failure
    except CertificationError as exc:
        bound = " (EXACT_WAY_OUT_PIVOTS)" if isinstance(exc.__cause__, PivotLimit) else ""
        raise ExactWayOutLimit(f"its exact way out failed: {exc}{bound}") from None
