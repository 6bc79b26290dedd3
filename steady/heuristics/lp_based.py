"""The LP-based heuristics of seed 000 §4.2: a single tree read off the optimal
multiple-tree solution.

The "communication graph" is the platform weighted by n_uv, the number of messages per
time unit that link (u, v) carries in an optimal solution of the steady-state LP (000 §4.1,
program (2); 002 §5.2).  We use the exact, certified optimum of
:func:`steady.throughput.throughput` (its ``.n``), where the paper used Maple or MuPAD.
The LP may have several optimal solutions; the heuristics use the one the solver returns.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from .one_port import grow_tree, prune_in_order

__all__ = ["lp_prune", "lp_grow_tree"]

_ZERO = Fraction(0)


def lp_prune(platform, n: Mapping[tuple[str, str], Fraction]) -> dict[str, str]:
    """LP-PRUNE, seed 000 §4.2.1, Algorithm 6 (Table 3's "LP Prune Max").

    Text and pseudo-code disagree; we follow the text: it "removes the edges carrying the
    smallest number of messages" ("edges carrying the fewest messages", §4.2.1), so the
    arcs are scanned by non-decreasing n_uv, each deleted when every node stays
    reachable.  (The pseudo-code sorts "by non-increasing value of n_uv", which would
    delete the busiest arcs first.)

    Ties (frequent: many arcs carry nothing, n_uv = 0): the slower arc (larger T_uv) is
    deleted first, then file order.  Arcs missing from ``n`` carry 0."""
    index = {link.arc: i for i, link in enumerate(platform.links)}
    order = sorted(platform.links,
                   key=lambda l: (n.get(l.arc, _ZERO), -l.cost, index[l.arc]))
    return prune_in_order(platform, order)


def lp_grow_tree(platform, n: Mapping[tuple[str, str], Fraction]) -> dict[str, str]:
    """LP-GROW-TREE, seed 000 §4.2.2, Algorithm 7: grow a tree from the source, adding each
    time the link (u, v), u in the tree and v outside, of maximum n_uv.

    Ties: the faster link (smaller T_uv), then file order.  Arcs missing from ``n``
    carry 0."""
    def key(link):
        return (-n.get(link.arc, _ZERO), link.cost)

    return grow_tree(platform, key, lambda u, link, kids: key(link)[0])
