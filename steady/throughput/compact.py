"""Compaction of weighted trees to a basic solution of the port rows (002 §5.3-§5.4: the
trees of Thm 5 re-weighted by the tree master LP, ours).

Any family of trees that realises an optimum of SSB(G) can be re-weighted by solving the
tree master LP over exactly those trees: a vertex has at most one positive weight per
one-port row, so at most 2|V| - 1 trees (the paper's bound is |V|^3 + |E|), with the
same throughput.  The schedule stage calls it on the family built by
:func:`steady.schedule.branchings.weighted_branchings`.
"""

from __future__ import annotations

from fractions import Fraction

from ..exact.scaling import solve_scaled
from ..numbers import lcm_of_denominators
from .trees import TreeMaster


def compact_trees(platform, trees, scale: int) -> tuple[list[tuple[dict, int]], int]:
    """A basic solution over the given trees: same throughput, at most one tree per
    one-port row.

    ``trees`` are (child -> parent, weight) with integer weights at scale N = ``scale``
    whose port loads fit (rates weight/N, one-port rows <= 1).  The LP max sum λ_T over these
    trees under the port rows has an optimum >= sum weight / N, reached at a vertex with
    at most one positive λ per row; since the trees came from an optimum of SSB(G) the
    value is the same.  Returns the new trees with integer weights and the new scale."""
    rates = solve_scaled(platform, lambda scaled, a: _basic_rates(scaled, trees, a))
    new_scale = lcm_of_denominators(r for _, r in rates)
    compacted = [(parent, int(r * new_scale)) for parent, r in rates]
    if Fraction(sum(w for _, w in compacted), new_scale) < Fraction(
            sum(w for _, w in trees), scale):
        raise AssertionError("compaction lost throughput")
    return compacted, new_scale


def _basic_rates(platform, trees, a: Fraction) -> list[tuple[dict, Fraction]]:
    """An exact optimal vertex of the tree master over ``trees`` on ``platform`` (costs
    divided by ``a``), its rates scaled back: (child -> parent, rate > 0)."""
    master = TreeMaster(platform)
    for parent, _ in trees:
        master.add(parent)
    solution = master.lp.solve_exact()
    return [(master.trees[i], solution.x[i] / a) for i in range(len(master.trees))
            if solution.x[i]]
