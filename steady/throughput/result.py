"""The result object of every throughput computation (in the spirit of scipy's
OptimizeResult): the exact value, the solution, the binding constraints, the proof."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..numbers import decimal_text, format_exact
from ..schedule_file import FabricCut


@dataclass(frozen=True)
class Certificate:
    """Proof that ``throughput`` is optimal (see proofs/certificate.md).

    Primal side: the per-link rates ``n`` respect every port and let every destination
    receive ``throughput`` messages per time unit (max-flow >= TP, checked in integers
    after scaling by ``scale``).  Dual side: port prices ``out_prices``/``in_prices``
    >= 0 summing to ``throughput`` under which every spanning arborescence rooted at the
    source costs at least 1 (``min_tree_cost``, an exact Edmonds computation).  On a
    platform with shared network links, ``link_prices`` (link id -> price >= 0) join
    the sum and the arborescence costs (proofs/network-links.md).
    """

    out_prices: dict[str, Fraction]
    in_prices: dict[str, Fraction]
    min_tree_cost: Fraction
    scale: int
    min_flow: Fraction
    link_prices: dict[str, Fraction] = field(default_factory=dict)

    def to_dict(self) -> dict:
        doc = {"out_prices": {v: format_exact(p) for v, p in self.out_prices.items() if p},
               "in_prices": {v: format_exact(p) for v, p in self.in_prices.items() if p},
               "min_tree_cost": format_exact(self.min_tree_cost),
               "scale": self.scale, "min_flow": format_exact(self.min_flow)}
        if any(self.link_prices.values()):
            doc["link_prices"] = {l: format_exact(p) for l, p in self.link_prices.items() if p}
        return doc


@dataclass(frozen=True)
class ThroughputResult:
    """Optimal steady-state throughput of a platform, exact and certified.

    ``scope`` says which problem was solved: ``"graph"`` (SSB(G), 002 §5.2), ``"dag"``
    (SSBPDAG, 002 §4.1) or ``"tree"`` (TP(T), 002 §3.1.2, ``tree`` holds child->parent).
    """

    throughput: Fraction
    n: dict[tuple[str, str], Fraction]
    bottleneck: list[str]
    certificate: Certificate
    formulation: str
    scope: str = "graph"
    tree: dict[str, str] | None = None
    stats: dict = field(default_factory=dict)
    certified: bool = True
    trees: tuple | None = None  # ((child -> parent), rate) when the method yields trees

    @property
    def period(self) -> Fraction:
        """T* = 1/TP: the time per broadcast in steady state."""
        return 1 / self.throughput

    def to_dict(self) -> dict:
        doc = {"throughput": format_exact(self.throughput),
               "throughput_decimal": decimal_text(self.throughput),
               "period": format_exact(self.period),
               "certified": self.certified,
               "scope": self.scope,
               "formulation": self.formulation,
               "bottleneck": list(self.bottleneck),
               "n": [{"from": u, "to": v, "n": format_exact(x)}
                     for (u, v), x in self.n.items() if x],
               "certificate": self.certificate.to_dict(),
               "statistics": {k: (format_exact(v) if isinstance(v, Fraction) else v)
                              for k, v in self.stats.items()}}
        if self.trees is not None:
            doc["trees"] = [{"rate": format_exact(rate),
                             "edges": [[p, c] for c, p in parent.items()]}
                            for parent, rate in self.trees]
        if self.tree is not None:
            doc["tree"] = dict(self.tree)
        return doc

    def __repr__(self) -> str:
        """A summary to read at a prompt, as scipy's OptimizeResult prints: the value
        exact and decimal, the period, how it was found and proved, and how many rates
        and trees there are (the dicts themselves are in the attributes)."""
        rates = sum(1 for x in self.n.values() if x)
        counts = f"{rates} links with a positive rate"
        if self.trees is not None:
            counts += f", {len(self.trees)} trees"
        rows = [("throughput", _short(self.throughput)),
                ("period", _short(self.period)),
                ("formulation", f"{self.formulation} ({self.scope})"),
                ("bottleneck", _first(self.bottleneck)),
                ("certified", str(self.certified)),
                ("rates", counts)]
        if self.tree is not None:
            rows.append(("tree", f"{len(self.tree)} edges"))
        width = max(len(key) for key, _ in rows)
        return "\n".join([f"{type(self).__name__}("]
                         + [f"  {key:>{width}}: {value}" for key, value in rows] + [")"])


def _first(items, most: int = 6) -> str:
    """The first ``most`` items and how many more (a large platform binds hundreds)."""
    more = f" … (+{len(items) - most})" if len(items) > most else ""
    return ", ".join(items[:most]) + more or "-"


def _short(x: Fraction) -> str:
    """An exact value and its decimal; a long fraction shows its decimal and length."""
    text = format_exact(x)
    if x.denominator == 1:
        return text if len(text) <= 40 else f"{len(text)}-digit integer"
    decimal = decimal_text(x, 12)
    if len(text) > 40:
        return f"~{decimal} ({len(text)}-character fraction)"
    return f"{text} = {decimal}" if Fraction(decimal) == x else f"{text} (~{decimal})"


# -- collectives (issue 43; proofs/collectives.md) -----------------------------------

#: Tree directions: "out" carries a root's data to every compute node (broadcast,
#: allgather), "in" brings every compute node's data, reduced, to the root
#: (reduce-scatter).
OUT, IN = "out", "in"


def row_words(key) -> str:
    """A capacity row in words: ``out-port of v``, ``in-port of v``, ``arc u->v`` (a
    link's capacity) or ``link <id>`` (a shared network link)."""
    kind, what = key
    if kind == "out":
        return f"out-port of {what}"
    if kind == "in":
        return f"in-port of {what}"
    if kind == "arc":
        return f"arc {what[0]}->{what[1]}"
    return f"link {what}"


@dataclass(frozen=True)
class RootedTree:
    """One tree of a collective: rooted at ``root``; ``direction`` ``"out"`` (the root's
    data flows from parent to child and reaches every compute node) or ``"in"`` (every
    compute node's data flows from child to parent, reduced where streams meet, and
    reaches the root); ``parent`` maps each other compute node to its parent;
    ``routes`` gives, for the children whose edge crosses switches, the nodes that
    edge's data visits in order (sender first, switches inside, receiver last).  An
    edge without a route is the direct link."""

    root: str
    direction: str
    parent: dict
    routes: dict = field(default_factory=dict)

    def route(self, child: str) -> tuple[str, ...]:
        """The nodes child's edge visits, in the data's direction."""
        if child in self.routes:
            return tuple(self.routes[child])
        par = self.parent[child]
        return (par, child) if self.direction == OUT else (child, par)

    def edges(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(sender, receiver, route) per edge, in the data's direction."""
        found = []
        for child, par in self.parent.items():
            route = self.route(child)
            found.append((route[0], route[-1], route))
        return found

    def to_dict(self) -> dict:
        doc = {"root": self.root, "direction": self.direction,
               "edges": [[p, c] for c, p in self.parent.items()]}
        if self.routes:
            doc["routes"] = {c: list(r) for c, r in self.routes.items()}
        return doc


class CutCertificate(FabricCut):
    """A second, combinatorial proof where it binds (multi-port, no network section):
    the node set ``side`` S, the bandwidth ``capacity`` of the links leaving S
    (``direction`` ``"out"``, B+(S)) or entering it (``"in"``, B-(S)), and ``share``:
    the sum of the relative rates of the roots in S (allgather, multi-source
    broadcast, reduce-scatter) or N (allreduce, whose every cut carries N·x: the
    information-theoretic bound).  Then x <= capacity / share for every schedule of
    the model, and ``capacity / share`` equals the optimum.  The schedule file's
    :class:`~steady.schedule_file.FabricCut` is the same cut; the solver's report also
    states its ``bound``."""

    def to_dict(self) -> dict:
        return dict(super().to_dict(), bound=format_exact(self.bound))


@dataclass(frozen=True)
class CollectiveCertificate:
    """Proof that the rate x is optimal (proofs/collectives.md, weak duality).

    ``prices``: capacity row key -> price y >= 0 (rows as in :func:`row_words`),
    summing to x; ``root_costs``: (root, direction) -> w_r, a lower bound of the cost of
    every tree at r under the prices, with sum over roots of ρ_r·w_r >= 1;
    ``tree_bounds``: (root, direction) -> Edmonds' dual family ((members, z), ...),
    members a frozenset of compute nodes without the root, z > 0, such that every
    route's cost (in the tree's direction) is >= the z of the sets it enters: then every
    tree at r costs >= sum z >= w_r.  ``symmetry``: the generators ({node: image}) of a
    group of automorphisms leaving the prices invariant -- the bounds are then given
    for one root per orbit and stand for the orbit -- or ().  ``cut``: a
    :class:`CutCertificate` where one binds, else None."""

    prices: dict
    root_costs: dict
    tree_bounds: dict
    symmetry: tuple = ()
    cut: CutCertificate | None = None

    def to_dict(self) -> dict:
        doc = {"prices": {row_words(k): format_exact(p) for k, p in self.prices.items() if p},
               "root_costs": [{"root": r, "direction": d, "w": format_exact(w)}
                              for (r, d), w in self.root_costs.items()],
               "tree_bounds": [{"root": r, "direction": d,
                                "sets": [{"members": sorted(m), "z": format_exact(z)}
                                         for m, z in family]}
                               for (r, d), family in self.tree_bounds.items()]}
        if self.symmetry:
            doc["symmetry"] = [dict(g) for g in self.symmetry]
        if self.cut is not None:
            doc["cut"] = self.cut.to_dict()
        return doc


#: The collectives, and what NCCL's busbw multiplies the algorithmic bandwidth by
#: (nccl-tests, doc/PERFORMANCE.md) as a function of N.
BUS_FACTOR = {"broadcast": lambda n: Fraction(1),
              "allgather": lambda n: Fraction(n - 1, n),
              "reduce-scatter": lambda n: Fraction(n - 1, n),
              "allreduce": lambda n: Fraction(2 * (n - 1), n)}


@dataclass(frozen=True)
class CollectiveResult:
    """The exact optimal steady-state rate of a collective (issue 43), certified.

    ``rate`` x: each root r sends x·ρ_r units per time unit (``roots``: (node,
    direction) -> ρ_r); ``trees``: ((RootedTree, rate), ...), every root's rates adding
    up to x·ρ_r; ``certificate``: a :class:`CollectiveCertificate`; ``compute``: the
    compute nodes (N of them); ``pool``: every tree the search generated, each as the
    tuple of its images under the symmetry used (one tree per root of its orbit; the
    tree alone without symmetry) -- candidates for integer packings (short periods).  The field's units (:attr:`algorithmic_bandwidth`,
    :attr:`bus_bandwidth`, :meth:`time`) follow nccl-tests' conventions."""

    kind: str
    rate: Fraction
    roots: dict
    trees: tuple
    certificate: CollectiveCertificate
    compute: tuple
    ports: str
    stats: dict = field(default_factory=dict)
    pool: tuple = field(default=(), repr=False, compare=False)

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(r for r, _ in self.roots))

    @property
    def algorithmic_bandwidth(self) -> Fraction:
        """Data of the collective per time unit (nccl-tests' algbw = size / time):
        N·x for allgather, reduce-scatter and allreduce (size = the whole vector,
        x per shard), x·sum of ρ for a broadcast from one or several sources."""
        if self.kind == "broadcast":
            return self.rate * sum(self.roots.values())
        return self.rate * len(self.compute)

    @property
    def bus_bandwidth(self) -> Fraction:
        """nccl-tests' busbw: algbw·(N-1)/N (allgather, reduce-scatter),
        algbw·2(N-1)/N (allreduce), algbw (broadcast)."""
        return self.algorithmic_bandwidth * BUS_FACTOR[self.kind](len(self.compute))

    def time(self, size) -> Fraction:
        """Steady-state time of a collective of ``size`` units of data (size / algbw;
        no start-up, no pipeline fill)."""
        return Fraction(size) / self.algorithmic_bandwidth

    def to_dict(self) -> dict:
        return {"collective": self.kind, "ports": self.ports,
                "rate": format_exact(self.rate), "rate_decimal": decimal_text(self.rate),
                "roots": [{"root": r, "direction": d, "relative_rate": format_exact(rho)}
                          for (r, d), rho in self.roots.items()],
                "compute_nodes": len(self.compute),
                "algorithmic_bandwidth": format_exact(self.algorithmic_bandwidth),
                "bus_bandwidth": format_exact(self.bus_bandwidth),
                "certified": True,
                "trees": [{"rate": format_exact(rate), **tree.to_dict()}
                          for tree, rate in self.trees],
                "certificate": self.certificate.to_dict(),
                "statistics": {k: (format_exact(v) if isinstance(v, Fraction) else v)
                               for k, v in self.stats.items()}}

    def __repr__(self) -> str:
        rows = [("collective", f"{self.kind} ({self.ports}, {len(self.compute)} compute "
                               f"nodes, {len(self.sources)} roots)"),
                ("rate per root", _short(self.rate)),
                ("algbw", _short(self.algorithmic_bandwidth)),
                ("busbw", _short(self.bus_bandwidth)),
                ("trees", str(len(self.trees))),
                ("certified", "True" + (" (cut binds)" if self.certificate.cut else ""))]
        width = max(len(key) for key, _ in rows)
        return "\n".join([f"{type(self).__name__}("]
                         + [f"  {key:>{width}}: {value}" for key, value in rows] + [")"])
