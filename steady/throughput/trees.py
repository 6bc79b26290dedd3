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
from ..exact.cutplanes import CutPlanes
from ..exact.lp import LE, LinearProgram
from .ports import cheapest_tree, port_prices, rate_program
from .postcondition import certified_result

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


def _center(platform) -> tuple[tuple[dict, dict], dict]:
    """The cut LP's float optimum: its port prices (near-optimal duals for the master,
    used to stabilise the column generation) and its rates n (to seed the master)."""
    planes = CutPlanes(platform, rate_program, "ssb-cuts")
    values, duals = planes.converge_float()
    rates = {arc: max(0.0, values[j]) for arc, j in planes.nvar.items()}
    return port_prices(platform, planes.lp, [max(0.0, d) for d in duals]), rates


#: Seeding: peel |V|/2 trees, each taking this share of its bottleneck (measured on the
#: 65-node random platforms: pricing rounds fall from ~130 to ~30; a full share
#: exhausts arcs after a handful of trees, a smaller one gives less diverse trees).
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

    def cheapest(self, out: list, inn: list) -> tuple[float, dict]:
        arcs = [(u, v, c * (out[u] + inn[v]))
                for u, v, c in zip(self.tails, self.heads, self.costs)]
        cost, chosen = minimum_arborescence(len(out), self.root, arcs)
        links = self.platform.links
        return cost, {links[i].head: links[i].tail for i in chosen}

    def cost(self, parent: dict, out: list, inn: list) -> float:
        index = {v: i for i, v in enumerate(self.platform.nodes)}
        return sum(float(self.platform.cost(p, c)) * (out[index[p]] + inn[index[c]])
                   for c, p in parent.items())


def _price(pricing, master, duals, center) -> int:
    """Add improving trees; returns how many.  Wentges smoothing: price at point(s)
    between the cut LP's prices and the master's duals and keep every tree that
    improves the master at its duals; only when none does, price at the duals
    themselves (the test of optimality)."""
    nodes = pricing.platform.nodes
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
    """Exact optimal throughput of SSB(G) by tree column generation."""
    start = time.perf_counter()
    master = TreeMaster(platform)
    master.add(shortest_path_tree(platform))
    pricing_at = FloatPricing(platform)
    (c_out, c_in), rates = _center(platform)
    center = ([c_out[v] for v in platform.nodes], [c_in[v] for v in platform.nodes])
    master.add(pricing_at.cheapest(*center)[1])
    for parent in peeled_trees(platform, rates, center, len(platform.nodes) // 2):
        master.add(parent)
    pricing = exact_rounds = 0
    while True:
        while True:  # float column generation
            _, duals = master.lp.solve_float()
            pricing += 1
            if not _price(pricing_at, master, duals, center):
                break
        exact_rounds += 1
        solution = master.lp.solve_exact()
        out, inn = master.prices(solution.duals)
        cost, parent = cheapest_tree(platform, out, inn)  # exact pricing = certificate
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
               "seconds": round(time.perf_counter() - start, 4)})
