"""Reduce-scatter and allreduce timetables from allgather ones (ours; issue 43,
proofs/collectives.md §12).

A reduce-scatter on a platform G is an allgather on its reversal R (every link turned
around, same cost; proofs/collectives.md §5): its optimum is the same, and so are its
timetables, turned around in space and in time.

* :func:`mirrored` -- an out-tree timetable of R becomes an in-tree timetable of G:
  every tree keeps its parent map, weight and root and becomes an in-tree (data from
  child to parent, reduced where streams meet), each edge's route read backwards; a
  run of n messages from tick s, c ticks each, becomes a run of n messages from tick
  -(s + n·c) modulo the period.  At every instant t the transfers in progress in the
  mirror are those of the original at -t, on the reversed routes: they hold the same
  parts of the reversed links (one-port: a sender's port becomes a receiver's, and
  the other way round), so the resource rule holds at every instant; every tree edge
  still carries its weight per period, so the period rule makes it valid.
* :func:`one_after_the_other` -- an allreduce as its reduce-scatter's period, then its
  allgather's (the two share no instant), each with the same chunks per root.
* :func:`reduced_timetable` -- both on the fabrics whose allgather is built by hand
  (:mod:`.clos_phases`): the reduce-scatter from the reversal's allgather phases, the
  allreduce as the mirrored phases then the phases themselves.

The chooser keeps the result only for its ratio, certified by the reduce-scatter's or
the allreduce's own optimum; :meth:`Timetable.check` verifies the resource rule.
"""

from __future__ import annotations

from dataclasses import replace

from ..schedule_file import IN, OUT
from .clos_phases import phased_timetable
from .timetable import Timetable, Tree

__all__ = ["mirrored", "one_after_the_other", "reduced_timetable"]


def mirrored(table: Timetable, platform) -> Timetable:
    """The in-tree timetable on ``platform`` of the out-tree timetable ``table`` built
    on ``platform.reversed()`` (module docstring)."""
    if any(tree.direction != OUT for tree in table.trees):
        raise ValueError("only a timetable of out-trees is mirrored")
    trees = [Tree(dict(t.parent), t.weight, t.root, IN,
                  {child: tuple(reversed(r)) for child, r in t.routes.items()}
                  if t.routes else None) for t in table.trees]
    period = table.period
    runs: dict = {}
    for (i, (parent, child)), rs in table.runs.items():
        c = table.edge_cost[(i, (parent, child))]
        runs[(i, (child, parent))] = [[(-(s + n * c)) % period, n] for s, n in rs]
    slowed = {(i, (child, parent)): c for (i, (parent, child)), c in table.slowed.items()}
    out = Timetable.build(platform, trees, runs, period, table.unit, slowed)
    out.check()
    return out


def one_after_the_other(first: Timetable, second: Timetable) -> Timetable:
    """``first``'s period, then ``second``'s (same platform and ticks): one timetable
    whose period is the sum; every run of ``second`` moved by ``first``'s period."""
    if first.unit != second.unit:
        raise ValueError("the two timetables count different ticks")
    k = len(first.trees)
    runs = {key: [list(r) for r in rs] for key, rs in first.runs.items()}
    for (i, arc), rs in second.runs.items():
        runs[(k + i, arc)] = [[s + first.period, n] for s, n in rs]
    slowed = dict(first.slowed)
    slowed.update({(k + i, arc): c for (i, arc), c in second.slowed.items()})
    out = Timetable.build(first.platform, list(first.trees) + list(second.trees), runs,
                          first.period + second.period, first.unit, slowed)
    out.check()
    return out


def reduced_timetable(platform, result, most: int):
    """(timetable, chunks per root) of a reduce-scatter or an allreduce with one rate
    at every root on a fabric whose allgather :func:`.clos_phases.phased_timetable`
    builds (and whose reversal's too), or None."""
    directions = {d for _, d in result.roots}
    nodes = set(platform.compute_nodes)
    if IN not in directions or set(result.roots) != {(v, d) for v in nodes
                                                      for d in directions} \
            or len(set(result.roots.values())) != 1 or platform.network is not None:
        return None
    rho = next(iter(result.roots.values()))
    gather = replace(result, kind="allgather", roots={(v, OUT): rho for v in nodes},
                     trees=(), pool=())
    back = phased_timetable(platform.reversed(), gather, most)
    if back is None:
        return None
    table, m = back
    reduce = mirrored(table, platform)
    if directions == {IN}:
        return reduce, m
    forth = phased_timetable(platform, gather, most)
    if forth is None or forth[1] != m:
        return None
    return one_after_the_other(reduce, forth[0]), m
