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
from fractions import Fraction

from ..exact.arborescence import minimum_arborescence, peeled_trees, shortest_path_tree
from ..exact.lp import LE, CertificationError, LinearProgram
from ..network.rows import ROW_PREFIX, arc_link_weights, shared_links, tree_link_usage
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
    """The restricted master LP over a growing set of trees."""

    def __init__(self, platform):
        self.platform = platform
        self.lp = LinearProgram("ssb-trees")
        self.rows: dict[tuple[str, str], int] = {}
        self.words: dict[int, str] = {}
        for v in platform.nodes:
            if platform.out_links(v):
                self._row(("out", v), f"out-port of {v}")
            if platform.in_links(v) and v != platform.source:
                self._row(("in", v), f"in-port of {v}")
        for link in shared_links(platform):  # the link rows of issue 19
            self._row(("link", link.id), ROW_PREFIX + link.id)
        self.trees: list[dict] = []
        self._known: set[frozenset] = set()

    def _row(self, key, words):
        i = self.lp.add_row({}, LE, 1, words)
        self.rows[key] = i
        self.words[i] = words

    def add(self, parent: dict) -> bool:
        key = frozenset(parent.items())
        if key in self._known:
            return False
        self._known.add(key)
        self.trees.append(dict(parent))
        self.lp.add_variable(f"tree{len(self.trees) - 1}", objective=1,
                             column=tree_column(self.platform, parent, self.rows))
        return True

    def prices(self, duals) -> tuple[dict, dict]:
        out = {v: duals[self.rows[("out", v)]] if ("out", v) in self.rows else 0
               for v in self.platform.nodes}
        inn = {v: duals[self.rows[("in", v)]] if ("in", v) in self.rows else 0
               for v in self.platform.nodes}
        return out, inn

    def link_prices(self, duals) -> dict:
        """{link id: dual of its row} (empty without shared network links)."""
        return {key[1]: duals[i] for key, i in self.rows.items() if key[0] == "link"}


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
