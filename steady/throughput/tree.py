"""Throughput of one broadcast tree, 002 §3.1.2 eq. (1): TP(T) = 1 / max_u sum of the
costs from u to its children in T (the in-port of a node is busy only with its parent's
sends, so it never binds more than the parent's out-port)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from ..network.rows import tree_link_usage
from .dag import solve_dag


def tree_formula(platform, parent: dict) -> Fraction:
    """TP(T) by eq. (1) of 002 §3.1.2; with shared network links, each link's time
    per message joins the maximum (its row, issue 19)."""
    load: dict[str, Fraction] = {}
    for child, par in parent.items():
        load[par] = load.get(par, Fraction(0)) + platform.cost(par, child)
    return 1 / max([*load.values(), *tree_link_usage(platform, parent).values()])


def solve_tree(platform, parent: dict, origin: str = "<tree>"):
    """Exact TP(T) with the same certificate as the graph problems: the LP of the tree
    sub-platform, cross-checked against the closed formula (postcondition)."""
    platform.check_arborescence(parent, origin)
    arcs = {(p, c) for c, p in parent.items()}
    sub = platform.subplatform(lambda l: l.arc in arcs)
    result = solve_dag(sub)
    if result.throughput != tree_formula(platform, parent):
        raise AssertionError("postcondition: tree LP and 002 eq. (1) disagree")
    return replace(result, scope="tree", formulation="tree", tree=dict(parent))
