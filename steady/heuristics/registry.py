"""Every single-tree heuristic of seed 000 by a short, stable name, and which model each
one is run in.

Which heuristics run in which model follows the paper's figures:

* **one-port** (000 §5.2.1 Figure 4, §5.2.3 Table 3): the four platform heuristics of
  §3.1 (Alg 1-4) and the two LP heuristics of §4.2 (Alg 6, 7);
* **multi-port** (000 §5.2.2 Figure 5): the Binomial Tree and the two LP heuristics —
  one-port constructions (the LP is the one-port program (2)) whose trees are *evaluated*
  in the multi-port model — beside the two multi-port heuristics, Multiport Growing Tree
  (Alg 5) and Multiport-Prune-Degree.  Figure 5 shows no other one-port heuristic, and the
  multi-port ones need send overheads, which one-port platforms lack.

A tree's throughput is exact: 002 §3.1.2 eq. (1) in the one-port model, the period
formula of 000 §3.2 in the multi-port model (:mod:`steady.heuristics.models`); for the
Binomial Tree, whose logical edges may be routed, :func:`~.one_port.routed_throughput`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Iterable

from ..errors import InputError
from ..platform import Link, Platform
from ..throughput import throughput
from .lp_based import lp_grow_tree, lp_prune
from .models import MODELS, assert_arborescence, require_model, tree_throughput
from .multi_port import multiport_growing_tree, multiport_prune_degree
from .one_port import (binomial_tree, growing_minimum_weighted_out_degree_tree,
                       refined_platform_pruning, routed_throughput, simple_platform_pruning)

__all__ = ["HEURISTICS", "NEEDS_LP", "PAPER_LABELS", "TreeResult", "run_heuristics",
           "heuristics_for", "check_tree_result"]


@dataclass(frozen=True)
class TreeResult:
    """One heuristic's tree in one model.

    ``parent`` maps child -> parent; ``routes`` maps a logical edge (u, v) that is not a
    platform link to the path [u, ..., v] its transfers take (only the Binomial Tree has
    any); ``throughput`` is exact, in ``model``."""

    name: str
    model: str
    parent: dict[str, str]
    throughput: Fraction
    routes: dict[tuple[str, str], list[str]] = field(default_factory=dict)


def _topology(build):
    """A registry entry for a heuristic that needs only the platform."""
    def run(platform, lp):
        return build(platform), {}
    run.__doc__ = build.__doc__
    return run


def _on_lp(build):
    """A registry entry for a heuristic on the communication graph weighted by n_uv."""
    def run(platform, lp):
        return build(platform, lp.n), {}
    run.__doc__ = build.__doc__
    return run


_ONE, _MULTI, _BOTH = ("one-port",), ("multi-port",), ("one-port", "multi-port")

#: name -> (models it runs in, function(platform, lp) -> (parent, routes)): the one-port
#: heuristics in the order of the paper's Figure 4, then the multi-port ones.
HEURISTICS = MappingProxyType({
    "simple-prune": (_ONE, _topology(simple_platform_pruning)),                # 000 Alg 1
    "refined-prune": (_ONE, _topology(refined_platform_pruning)),              # 000 Alg 2
    "grow-min-out-degree": (_ONE, _topology(
        growing_minimum_weighted_out_degree_tree)),                            # 000 Alg 3
    "binomial": (_BOTH, lambda platform, lp: binomial_tree(platform)),         # 000 Alg 4
    "lp-prune": (_BOTH, _on_lp(lp_prune)),                                     # 000 Alg 6
    "lp-grow": (_BOTH, _on_lp(lp_grow_tree)),                                  # 000 Alg 7
    "multiport-grow": (_MULTI, _topology(multiport_growing_tree)),             # 000 Alg 5
    "multiport-prune-degree": (_MULTI, _topology(multiport_prune_degree)),     # 000 §5.2.2
})

#: The heuristics that read the LP solution n_uv.
NEEDS_LP = frozenset({"lp-prune", "lp-grow"})

#: Seed 000's labels (Table 3; Figures 4 and 5 in comments) -> our names.
PAPER_LABELS = MappingProxyType({
    "Prune Simple": "simple-prune",       # Figure 4: Topo-Prune-Simple
    "Refined Prune": "refined-prune",     # Figure 4: Topo-Prune-Degree
    "Grow Tree": "grow-min-out-degree",   # Figure 4: Topo-Grow-Tree
    "LP Grow Tree": "lp-grow",            # Figure 4: LP-Grow-Tree
    "LP Prune Max": "lp-prune",           # Figure 4: LP-Prune
    "Binomial Tree": "binomial",          # Figure 4: Binomial-Tree
})


def heuristics_for(model: str) -> list[str]:
    """The names of the heuristics run in ``model``, in registry order."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    return [name for name, (models, _) in HEURISTICS.items() if model in models]


def run_heuristics(platform, model: str, lp=None,
                   names: Iterable[str] | None = None) -> dict[str, TreeResult]:
    """Run the heuristics ``names`` (default: every one of ``model``) on ``platform``.

    ``lp`` is the exact optimum of :func:`steady.throughput.throughput` on this platform;
    it is computed here only when a heuristic needs it and it is not given.  Raises
    InputError when the multi-port model meets a platform without send overheads, and
    ValueError for an unknown model or name, or a heuristic that does not run in
    ``model``.  Every result passes :func:`check_tree_result`."""
    require_model(platform, model)
    allowed = heuristics_for(model)
    chosen = allowed if names is None else list(names)
    for name in chosen:
        if name not in HEURISTICS:
            raise ValueError(f"unknown heuristic {name!r}; choose from {list(HEURISTICS)}")
        if name not in allowed:
            raise ValueError(f"heuristic {name!r} does not run in the {model} model")
    if lp is None and NEEDS_LP.intersection(chosen):
        lp = throughput(platform)
    results = {}
    for name in chosen:
        parent, routes = HEURISTICS[name][1](platform, lp)
        result = TreeResult(name, model, parent,
                            routed_throughput(platform, parent, routes, model), routes)
        check_tree_result(platform, result)
        results[name] = result
    return results


def check_tree_result(platform, result: TreeResult) -> None:
    """Runtime postcondition: ``parent`` is a spanning arborescence rooted at the source —
    over platform links, or, for routed logical edges, over paths of platform links from
    the edge's tail to its head — and, for a tree without routes, the throughput equals
    the model's tree formula (an independent implementation, models.py)."""
    name = result.name
    if not result.routes:
        assert_arborescence(platform, result.parent, name)
    else:
        try:
            _check_logical_tree(platform, result.parent, result.routes, name)
        except InputError as error:
            raise AssertionError(f"postcondition: {error}") from None
    if not result.routes and \
            result.throughput != tree_throughput(platform, result.parent, result.model):
        raise AssertionError(f"postcondition: {name}: throughput differs from the "
                             f"{result.model} tree formula")


def _check_logical_tree(platform, parent, routes, name: str) -> None:
    edges = [(p, c) for c, p in parent.items()]
    for (p, c) in routes:
        if (p, c) not in edges or platform.has_link(p, c):
            raise InputError(name, f"route {p}->{c}", "not a routed edge of the tree")
        path = routes[(p, c)]
        if path[0] != p or path[-1] != c or len(set(path)) != len(path) or len(path) < 3:
            raise InputError(name, f"route {p}->{c}", f"not a simple path: {path}")
        for a, b in zip(path, path[1:]):
            if not platform.has_link(a, b):
                raise InputError(name, f"route {p}->{c}", f"{a}->{b} is not a link")
    for p, c in edges:
        if (p, c) not in routes and not platform.has_link(p, c):
            raise InputError(name, f"edge {p}->{c}", "neither a link nor routed")
    # The logical tree must span and be rooted at the source: check it as an
    # arborescence of the platform made of its own edges.
    logical = Platform(platform.source, [Link(p, c, Fraction(1)) for p, c in edges
                                         if p != c], platform.nodes, origin=name)
    logical.check_arborescence(parent, name)
