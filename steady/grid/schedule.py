"""Timed schedules of the hierarchical broadcast (001 §3-§4) and the shortest-arrival bound.

Every heuristic of :mod:`steady.grid.heuristics` builds its schedule through one
:class:`Broadcast`: sets A and B and the ready times RT_i of 001 §4.3.  Each decision
"i sends to j" is timed the only sensible way in the model (:mod:`steady.grid.model`):
the send starts at RT_i (when i has the message and is free), ends at RT_i + g_ij, and
the message is at j at RT_i + g_ij + L_ij.  Idling never helps (every time in the model
only grows when a start is delayed), so a schedule is, up to its times, a tree rooted at
the root's cluster in which every coordinator has an ordered list of receivers
(proofs/grid-model.md).
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from typing import Sequence

from ..numbers import decimal_text, format_exact
from .model import Grid


@dataclass(frozen=True)
class Send:
    """One inter-cluster message: ``sender`` is busy in [start, end), the message is at
    ``receiver`` from ``arrival`` on (cluster indices, exact times)."""

    sender: int
    receiver: int
    start: int | Fraction
    end: int | Fraction
    arrival: int | Fraction


@dataclass(frozen=True)
class GridSchedule:
    """A complete schedule: the sends in the order they were decided, and per cluster
    the start and the end (``finish``) of its intra-cluster broadcast."""

    grid: Grid
    heuristic: str
    sends: tuple[Send, ...]
    broadcast_start: tuple
    finish: tuple
    makespan: int | Fraction

    @property
    def parent(self) -> dict[int, int]:
        return {s.receiver: s.sender for s in self.sends}

    def children(self, k: int) -> list[int]:
        """The receivers of cluster k, in the order it sends to them."""
        return [s.receiver for s in sorted(self.sends, key=lambda s: s.start)
                if s.sender == k]

    def chronological(self) -> list[Send]:
        """The sends by start time (ties: by sender index)."""
        return sorted(self.sends, key=lambda s: (s.start, s.sender))

    def to_dict(self) -> dict:
        names = self.grid.names
        return {"heuristic": self.heuristic, "makespan": format_exact(self.makespan),
                "sends": [{"from": names[s.sender], "to": names[s.receiver],
                           "start": format_exact(s.start), "end": format_exact(s.end),
                           "arrival": format_exact(s.arrival)}
                          for s in self.chronological()],
                "clusters": [{"name": names[k],
                              "broadcast_start": format_exact(self.broadcast_start[k]),
                              "finish": format_exact(self.finish[k])}
                             for k in range(self.grid.size)]}


class Broadcast:
    """The state of a greedy construction (001 §3): ``A`` (sorted indices of the clusters
    that have the message), ``B`` (sorted, the others) and ``ready[i]`` = RT_i."""

    __slots__ = ("grid", "A", "B", "ready", "sends")

    def __init__(self, grid: Grid):
        self.grid = grid
        self.A = [grid.root]
        self.B = [k for k in range(grid.size) if k != grid.root]
        self.ready = [None] * grid.size
        self.ready[grid.root] = 0
        self.sends: list[Send] = []

    def send(self, i: int, j: int) -> Send:
        """i in A sends to j in B as early as it can: at RT_i (001 §4.3)."""
        start = self.ready[i]
        end = start + self.grid.g[i][j]
        arrival = end + self.grid.L[i][j]
        self.B.remove(j)
        insort(self.A, j)
        self.ready[i] = end
        self.ready[j] = arrival
        record = Send(i, j, start, end, arrival)
        self.sends.append(record)
        return record

    def schedule(self, heuristic: str) -> GridSchedule:
        """Once B is empty: every coordinator starts its intra-cluster broadcast at its
        ready time (it takes part in no further inter-cluster communication)."""
        if self.B:
            raise ValueError(f"clusters {self.B} have not received the message")
        T = self.grid.T
        finish = tuple(self.ready[k] + T[k] for k in range(self.grid.size))
        return GridSchedule(self.grid, heuristic, tuple(self.sends), tuple(self.ready),
                            finish, max(finish))


def replay(grid: Grid, pairs: Sequence[tuple[int, int]], heuristic: str) -> GridSchedule:
    """The schedule of the decisions ``pairs`` (sender, receiver), each sender sending as
    soon as it can, in the order its sends appear in ``pairs``."""
    state = Broadcast(grid)
    for i, j in pairs:
        if state.ready[i] is None:
            raise ValueError(f"cluster {i} sends before it has the message")
        state.send(i, j)
    return state.schedule(heuristic)


def shortest_arrivals(grid: Grid) -> list:
    """For every cluster, the earliest time the message can reach it if no coordinator
    were ever busy: shortest paths from the root's cluster with arc weights g_ij + L_ij
    (Dijkstra on the dense matrix, O(n^2))."""
    root = grid.root
    dist = [grid.transfer(root, j) for j in range(grid.size)]
    dist[root] = 0
    todo = set(range(grid.size)) - {root}
    while todo:             # complete graph: every unsettled cluster has a distance
        i = min(todo, key=dist.__getitem__)
        todo.discard(i)
        d, gi, Li = dist[i], grid.g[i], grid.L[i]
        for j in todo:
            if d + gi[j] + Li[j] < dist[j]:
                dist[j] = d + gi[j] + Li[j]
    return dist


@lru_cache(maxsize=32)
def lower_bound(grid: Grid):
    """max_k (shortest arrival at k + T_k): no schedule ends earlier
    (proofs/grid-model.md, "The shortest-arrival bound").  Cached: every heuristic checks
    its makespan against it."""
    arrivals = shortest_arrivals(grid)
    return max(a + t for a, t in zip(arrivals, grid.T))


def time_text(x) -> str:
    """An exact time for people: its decimal text when it has one ("168009.96"), else
    "p/q (~decimal)"."""
    x = Fraction(x)
    d, twos, fives = x.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d == 1:   # x = n / (2^a 5^b) has exactly max(a, b) decimals
        return decimal_text(x, max(twos, fives))
    return f"{format_exact(x)} (~{decimal_text(x, 3)})"
