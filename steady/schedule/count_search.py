"""Integer link counts for a short period, by a local search over the cuts (ours; the cut
form of 002 §5.3's linear program, in integers, and Edmonds' branching theorem, 002
Thm 5).

N arc-disjoint spanning arborescences fit in integer link counts k_e exactly when every
cut separating the source from a node carries >= N, and no timetable of those counts
is shorter than the largest port load L(k).  Rounding the optimum's rates up keeps every
cut but adds up to one message per link at every port (a ratio bound of 0.61 at N = 8
on samples/random-50.json).  :func:`searched_counts` lowers L from there:

* **descent**: for a port at the largest load, take one message off one of its links
  (the costliest first); while some destination then receives fewer than N (an exact
  max-flow, :func:`steady.exact.connectivity.integer_shortfall`), add one to a link
  crossing that destination's minimum cut whose two ports stay below L (the least
  loaded); keep the move when the largest load, or the number of ports at it, falls;
* **kicks**: from the best counts found, take one message off a few links near the
  largest load (drawn by a seeded generator: deterministic), repair the cuts they open
  with ports at most at L, and descend again.

Every count vector kept passes the exact check (every destination receives N), so N
trees fit (:func:`steady.schedule.branchings.weighted_branchings` packs them exactly);
the work is bounded by :data:`CHECKS` connectivity checks (``kicks`` from the effort).
Runtime postcondition: the counts returned pass the check and their largest load is at
most the start's.  proofs/timed-schedule.md, "Counts searched over the cuts".
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from ..exact.connectivity import Propagation, integer_shortfall

Arc = tuple[str, str]

#: Connectivity checks (one exact max-flow round each) one search may make at most.
CHECKS = 5_000
#: Repairs after taking one message off: minimum cuts fixed, one added message each.
REPAIRS = 8
#: Links a kick takes one message off.
KICKED = 3


def searched_counts(platform, counts: dict[Arc, int], messages: int, kicks: int,
                    seed: int = 0) -> dict[Arc, int]:
    """Counts whose every cut carries >= ``messages`` and whose largest port load is at
    most that of ``counts`` (which must have that property), by the descent and
    ``kicks`` kicks of the module docstring."""
    state = _Counts(platform, counts, messages)
    if state.short() is not None:
        raise ValueError("the starting counts leave a destination short")
    start = state.key()
    state.descend()
    best = (state.key(), list(state.caps))
    rng = random.Random(seed)
    for _ in range(kicks):
        if state.checks >= CHECKS:
            break
        state.reset(best[1])
        top = best[0][0]
        near = [i for i, c in enumerate(state.caps) if c and 50 * state.port_max(i) >= 49 * top]
        for i in rng.sample(near, min(KICKED, len(near))):
            state.drop(i, top + 1)
        state.descend()
        if state.key() < best[0]:
            best = (state.key(), list(state.caps))
    state.reset(best[1])
    if state.short() is not None or state.key() > start:   # the runtime postcondition
        raise AssertionError("postcondition: searched counts leave a destination short "
                             "or load a port more")
    return {arc: c for arc, c in zip(state.arcs, state.caps) if c}


class _Counts:
    """Counts per arc with their port loads in integer ticks, and the cut check."""

    def __init__(self, platform, counts, messages: int):
        self.prop = Propagation(platform)
        self.arcs = self.prop.arcs
        self.need = messages
        cost = [platform.cost(*arc) for arc in self.arcs]
        unit = math.lcm(*(c.denominator for c in cost))
        self.cost = [int(c * unit) for c in cost]
        self.ports = [(("out", u), ("in", v)) for u, v in self.arcs]
        self.at: dict = {}
        for i, ports in enumerate(self.ports):
            for port in ports:
                self.at.setdefault(port, []).append(i)
        self.checks = 0
        self.reset([counts.get(arc, 0) for arc in self.arcs])

    def reset(self, caps) -> None:
        self.caps = list(caps)
        self.load = dict.fromkeys(self.at, 0)
        for i, c in enumerate(self.caps):
            for port in self.ports[i]:
                self.load[port] += c * self.cost[i]

    def change(self, i: int, d: int) -> None:
        self.caps[i] += d
        for port in self.ports[i]:
            self.load[port] += d * self.cost[i]

    def port_max(self, i: int) -> int:
        return max(self.load[p] for p in self.ports[i])

    def key(self) -> tuple[int, int]:
        """(largest load, ports at it): what the search lowers, lexicographically."""
        top = max(self.load.values())
        return top, sum(1 for x in self.load.values() if x == top)

    def short(self, dropped: int | None = None):
        """:func:`integer_shortfall` of the counts (one check of the work bound).
        ``dropped``: the counts had the property before arc ``dropped`` lost a message
        (and others gained some); a cut it opens is one that arc leaves, so its head
        is short whenever anything is (its max-flow alone then decides)."""
        self.checks += 1
        suspect = None if dropped is None else self.arcs[dropped][1]
        return integer_shortfall(self.prop, self.caps, self.need, suspect)

    def drop(self, i: int, below: int) -> list | None:
        """Take one message off arc ``i`` and repair the cuts it opens with links whose
        ports stay below ``below``; the moves made, or None (and nothing changed)."""
        self.change(i, -1)
        moved = [(i, -1)]
        for _ in range(REPAIRS):
            short = self.short(i)
            if short is None:
                return moved
            side = short[2]
            best = None
            for j, (u, v) in enumerate(self.arcs):
                if j != i and u in side and v not in side:
                    m = self.port_max(j) + self.cost[j]
                    if m < below and (best is None or m < best[0]):
                        best = (m, j)
            if best is None:
                break
            self.change(best[1], 1)
            moved.append((best[1], 1))
        for j, d in reversed(moved):
            self.change(j, -d)
        return None

    def descend(self) -> None:
        """Moves that lower the key until none does (or the checks run out)."""
        while self.checks < CHECKS:
            top, count = self.key()
            if not self._improve(top, count):
                return

    def _improve(self, top: int, count: int) -> bool:
        for port in sorted(p for p, x in self.load.items() if x == top):
            for i in sorted(self.at[port], key=lambda i: (-self.cost[i], i)):
                if self.caps[i] == 0 or self.checks >= CHECKS:
                    continue
                moved = self.drop(i, top)
                if moved is None:
                    continue
                if self.key() < (top, count):
                    return True
                for j, d in reversed(moved):
                    self.change(j, -d)
        return False


def ratio_bound(platform, counts: dict[Arc, int], optimum: Fraction, messages: int) -> Fraction:
    """N / (TP*·largest port load): no timetable of ``counts`` does better."""
    loads: dict = {}
    for (u, v), k in counts.items():
        t = k * platform.cost(u, v)
        loads[("out", u)] = loads.get(("out", u), 0) + t
        loads[("in", v)] = loads.get(("in", v), 0) + t
    return Fraction(messages) / (optimum * max(loads.values()))
