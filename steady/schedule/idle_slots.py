"""Message slots in a timetable's idle time (ours; builds on 002 §5.4.2's free order
inside a period).

A timetable that ends at its largest port load L keeps the busiest ports busy all the
period, but most ports are not the busiest: on a 50-node random platform (seed 4) at
45 messages per period, most in-ports are busy 0.6 to 0.9 of the period.  Their idle
time can hold more message slots: a slot of link (u, v) is an interval of one message
time c_uv during which u's send port and v's receive port are both idle.  Such slots
change neither the period nor the messages per period, so neither the throughput nor
its certified ratio; they only give the trees regrown through the slots
(:mod:`.regrow`) more ways to reach a node soon after its parent got the message.
On that platform, regrown trees that may use them lag 3 periods instead of 5 and the
finite horizon K = 100000 delivers 7110 messages instead of 7090 (proofs/
timed-schedule.md, "Regrown trees", Claim 5).

:func:`idle_slots` fills the idle time greedily in rounds, deterministically: each
round offers every link one slot (links with the fewest slots first), placed where
both ports are idle and as far as possible from the link's other slots (a slot next
to another of the same link saves no wait); a link whose best place is closer than one
message time to one of its slots gets none that round.  It stops when a round adds
nothing, or after :data:`IDLE_ROUNDS` rounds.  Links that share a network link are not
given any (the slots would have to keep the shared link's rule too).
"""

from __future__ import annotations

import bisect

from ..network.rows import shared_links

Arc = tuple[str, str]

#: Rounds of the filling at most (each adds at most one slot per link).  Measured: it
#: stopped by itself after 2 and 10 rounds on samples/random-50.json at M = 8 and 100,
#: after 5 and 56 on samples/mesh-65.json.
IDLE_ROUNDS = 64


def busy_intervals(platform, slots: dict[Arc, list[int]],
                   cost: dict[Arc, int]) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Per port (("out", u) or ("in", v)), the sorted intervals [start, end) its slots
    hold."""
    busy: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for (u, v), starts in slots.items():
        for s in starts:
            busy.setdefault(("out", u), []).append((s, s + cost[(u, v)]))
            busy.setdefault(("in", v), []).append((s, s + cost[(u, v)]))
    for intervals in busy.values():
        intervals.sort()
    return busy


def _gaps(intervals, period: int) -> list[tuple[int, int]]:
    """The idle intervals of a port in [0, period), its busy ``intervals`` sorted."""
    gaps, at = [], 0
    for start, end in intervals:
        if start > at:
            gaps.append((at, start))
        at = max(at, end)
    if at < period:
        gaps.append((at, period))
    return gaps


def _common(first, second, length: int) -> list[tuple[int, int]]:
    """The intervals at least ``length`` long inside both sorted interval lists."""
    out, i, j = [], 0, 0
    while i < len(first) and j < len(second):
        start, end = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        if end - start >= length:
            out.append((start, end))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return out


def _distance(start: int, starts: list[int], period: int) -> int:
    """The distance, around the period, from ``start`` to the nearest of ``starts``."""
    return min(min(abs(start - s), period - abs(start - s)) for s in starts)


def _best_place(places, starts, period: int, cost: int) -> int | None:
    """Where a new slot of a link (``cost`` long) goes among the common idle ``places``:
    farthest from the link's ``starts``; None when that is closer than ``cost``."""
    best = None
    for a, b in places:
        for start in (a, (a + b - cost) // 2, b - cost):
            far = _distance(start, starts, period) if starts else period
            if best is None or far > best[0]:
                best = (far, start)
    if best is None or (starts and best[0] < cost):
        return None
    return best[1]


def idle_slots(platform, slots: dict[Arc, list[int]], cost: dict[Arc, int],
               period: int, rounds: int = IDLE_ROUNDS) -> dict[Arc, list[int]]:
    """Extra slots (per link of ``platform``, sorted start ticks) in the idle time that
    the timetable's ``slots`` leave to both ports of the link, inside [0, ``period``]
    (module docstring).  ``cost``: every link's message time in ticks.  The extra
    slots of one port never overlap each other nor ``slots``."""
    shared = {arc for link in shared_links(platform)
              for arc in platform.network.crossing(link.id)}
    busy = busy_intervals(platform, slots, cost)
    have = {arc: sorted(slots.get(arc, ())) for arc in platform.arcs}
    extra: dict[Arc, list[int]] = {}
    gaps: dict = {}   # per port, its idle intervals, until a slot is added there

    def idle(port):
        if port not in gaps:
            gaps[port] = _gaps(busy.get(port, ()), period)
        return gaps[port]

    for _ in range(rounds):
        added = False
        for arc in sorted(platform.arcs, key=lambda a: (len(have[a]), a)):
            if arc in shared:
                continue
            u, v = arc
            places = _common(idle(("out", u)), idle(("in", v)), cost[arc])
            start = _best_place(places, have[arc], period, cost[arc])
            if start is None:
                continue
            for port in (("out", u), ("in", v)):
                bisect.insort(busy.setdefault(port, []), (start, start + cost[arc]))
                gaps.pop(port, None)
            bisect.insort(have[arc], start)
            bisect.insort(extra.setdefault(arc, []), start)
            added = True
        if not added:
            break
    return extra

