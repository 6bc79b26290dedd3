"""The list plan of ``steady run`` (ours): the K broadcasts list scheduled over the
schedule's trees (:mod:`steady.schedule.list_run`), as plan transfers.

An unrolled periodic schedule (:mod:`.plan`) keeps the period's order inside every
period, so a message waits at each hop for its tree's next slot: on a 20-node mesh with
trees 15 hops deep, warm-up and clean-up of a 1000-broadcast run cost about 8 %.  The
list run waits only for data and ports.  Consecutive broadcasts of one tree on one link
that leave back to back are merged into one transfer when the sender holds all of them
at its start and the receiver forwards none of them before the merged end (fewer MPI
messages, same times).  The work is one placement per broadcast and hop:
:data:`MAX_PLACEMENTS` bounds it.
"""

from __future__ import annotations

from ..schedule.list_run import list_run
from .transfer import Transfer

#: The list plan places K·(|V| - 1) broadcasts one by one: beyond this many it is not
#: built (the unrolled plans of :mod:`.plan` are linear in transfers, not broadcasts).
MAX_PLACEMENTS = 600_000


def listed_transfers(schedule, broadcasts: int):
    """(unit, transfers) of the list run, one broadcast each, released at their
    list-schedule starts (ticks); None beyond :data:`MAX_PLACEMENTS`."""
    platform = schedule.platform
    if broadcasts * (len(platform.nodes) - 1) > MAX_PLACEMENTS:
        return None
    run = list_run(platform, [(t.parent, t.weight) for t in schedule.trees], broadcasts)
    index = {v: i for i, v in enumerate(platform.nodes)}
    return run.unit, [Transfer(i, index[u], index[v], x, 1, start, run.cost[(u, v)],
                               run.tree_of[x])
                      for i, (u, v, x, start) in enumerate(run.sends)]


def merged(transfers, source: int) -> list[Transfer]:
    """Back-to-back transfers of consecutive messages of one tree on one link, merged
    when that delays nothing: the sender holds every message of the merged transfer at
    its start, and the receiver forwards none of them before its end (so every
    transfer keeps its start, and the plan its makespan).  Taken in the order of their
    starts, so a merge upstream (which delays arrivals to its end) is known before the
    sender's transfers of those messages are looked at."""
    arrival: dict[tuple[int, int], int] = {}
    leaves: dict[tuple[int, int], int] = {}
    for t in transfers:
        arrival[(t.head, t.first)] = t.end
        key = (t.tail, t.first)
        leaves[key] = min(leaves.get(key, t.release), t.release)
    out: list[Transfer] = []
    last: dict[tuple[int, int], int] = {}   # link -> index in out of its last transfer
    for t in sorted(transfers, key=lambda t: (t.release, t.id)):
        i = last.get((t.tail, t.head))
        if i is not None:
            prev = out[i]
            end = prev.end + t.duration
            if (prev.tree == t.tree and prev.end == t.release
                    and prev.first + prev.count == t.first
                    and (t.tail == source or arrival[(t.tail, t.first)] <= prev.release)
                    and all(leaves.get((t.head, x), end) >= end
                            for x in range(prev.first, t.first + 1))):
                out[i] = prev._replace(count=prev.count + 1,
                                       duration=prev.duration + t.duration)
                for x in range(prev.first, t.first + 1):   # they all arrive at the end
                    arrival[(t.head, x)] = end
                continue
        last[(t.tail, t.head)] = len(out)
        out.append(t._replace(id=len(out)))
    return out


def list_plan(schedule, broadcasts: int) -> tuple[int, list[Transfer]] | None:
    """(unit, transfers): the list plan of the module docstring, merged where back to
    back; None beyond :data:`MAX_PLACEMENTS`."""
    built = listed_transfers(schedule, broadcasts)
    if built is None:
        return None
    unit, single = built
    source = list(schedule.platform.nodes).index(schedule.platform.source)
    return unit, merged(single, source)
