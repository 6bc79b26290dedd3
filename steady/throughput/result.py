"""The result object of every throughput computation (in the spirit of scipy's
OptimizeResult): the exact value, the solution, the binding constraints, the proof."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..numbers import decimal_text, format_exact


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
