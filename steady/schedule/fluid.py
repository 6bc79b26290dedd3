"""Streamed timetables: on a multi-port platform, every tree edge streams its chunks over
the whole period at a share of its route's speed (ours; issue 43, proofs/collectives.md
§16, on 002 §5.3's trees with integer weights and the period rule of 002 §5.4.2).

On a multi-port platform the only rule is the links' capacity at every instant, and a
transfer may run slower than its route's slowest link, holding each link of the route
for a share of what it holds at full speed (as a link's concurrent channels share it;
:mod:`steady.network.resources`).  Given integer rooted trees with routes (w_t chunks
of tree t per period), let P be the largest load of a resource: the sum, over the tree
edges whose routes cross it, of w_t times the time a chunk holds it.  Every edge of
tree t is then one transfer of its w_t chunks over [0, P), a chunk every P / w_t: it
holds each resource for its full-speed part times w_t·c_P / P, so at every instant a
resource is held for its load / P <= 1.  The period is the trees' largest load, which
no timetable of the same trees and routes goes below: :func:`streamed_timetable`
reaches the bound of the counts exactly, where full-speed transfers lose what the
whole-hold rows of :func:`steady.network.resources.whole_hold_rows` say (a fat tree
with oversubscription 3/2: 30/37 of x*, proofs/collectives.md §9).
"""

from __future__ import annotations

from ..network.resources import transfer_model
from ..numbers import lcm_of_denominators
from .timetable import Timetable, as_tree

__all__ = ["streamed_timetable"]


def streamed_timetable(platform, trees) -> Timetable:
    """The timetable (module docstring) of weighted trees with their routes (:class:`
    .timetable.Tree`) on a multi-port ``platform``: period = the largest load."""
    model = transfer_model(platform)
    if not model.shares:
        raise ValueError("streamed transfers need a multi-port platform")
    trees = [as_tree(t) for t in trees]
    counts: dict = {}   # {route: messages per period}
    for tree in trees:
        for arc in tree.arcs():
            route = tree.route(arc)
            counts[route] = counts.get(route, 0) + tree.weight
    period = max(model.loads(counts).values())
    costs = {key: model.cost(trees[key[0]].route(key[1]))
             for key in ((l, arc) for l, t in enumerate(trees) for arc in t.arcs())}
    unit = lcm_of_denominators([*costs.values(), period,
                                *(period / t.weight for t in trees)])
    runs, slowed = {}, {}
    for (l, arc), c in costs.items():
        w = trees[l].weight
        runs[(l, arc)] = [[0, w]]
        if period / w != c:   # slower than its route: a share c·w / period of its links
            slowed[(l, arc)] = int(period * unit / w)
    table = Timetable.build(platform, trees, runs, int(period * unit), unit, slowed)
    table.check()
    return table
