"""One loop of an MSCCL program in a causal order (ours).

A steady schedule forwards in period p what a node received in period p - 1 (002
§5.5): any order of a period's transfers is valid when the period repeats.  The MSCCL
executor has no such rule: each pass of the program ("loop") moves one slice of every
chunk, and a node forwards a chunk only after receiving it *in the same loop*.  So the
transfers of one period are placed again, causally: a transfer starts when the sender
holds its chunks (the transfers it depends on have ended), when the sender's out-port
and the receiver's in-port are free (the one-port model), at the earliest such time;
among the transfers that could start, the earliest start goes first, then the
timetable's own order (its ``start``, then its position).  This greedy list schedule
is exact (Fractions) and deterministic.

Its start times order every threadblock's steps.  Since every transfer starts after
the transfers it depends on have ended and after the previous transfers of both its
ports, each step of the program waits only for steps that start strictly earlier: the
program cannot deadlock (proofs/msccl-export.md; ``steady verify --msccl`` checks it
independently).  The loop's length (its *makespan*) is what the first loop costs; the
executor overlaps loops (a threadblock starts loop k + 1 when its own steps of loop k
are done), so in steady state a loop costs its busiest port, as a period does.

On a multi-port platform (a collective's, issue 43) a node uses all its links at once,
and the executor runs every link's threadblock pair in parallel: the resource of a
move is then its (sender, receiver) pair -- the pair's FIFO connection -- instead of
the two ports, and the same argument holds with pairs for ports.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class Move:
    """One transfer of one loop: ``count`` chunks from ``first`` on, from rank
    ``sender`` to rank ``receiver``; ``after``: the moves whose arrival at the sender it
    needs; ``priority``: its place in the timetable; a slice of ``size`` units of data
    per chunk takes ``startup + count x size x cost``."""

    index: int
    sender: int
    receiver: int
    first: int
    count: int
    after: tuple = ()
    priority: tuple = ()
    cost: Fraction = Fraction(1)
    startup: Fraction = Fraction(0)
    label: str = ""

    def duration(self, size=1) -> Fraction:
        return self.startup + self.count * size * self.cost


@dataclass
class Timing:
    """Start and end of every move (by index), the loop's makespan, each port's busy
    time per loop (``("out"|"in", rank)``) and the order in which moves start."""

    start: dict = field(default_factory=dict)
    end: dict = field(default_factory=dict)
    makespan: Fraction = Fraction(0)
    ports: dict = field(default_factory=dict)
    order: list = field(default_factory=list)

    @property
    def busiest_port(self) -> Fraction:
        return max(self.ports.values(), default=Fraction(0))


def causal_order(moves, size=1, multiport: bool = False) -> Timing:
    """The greedy causal list schedule of ``moves`` (module docstring), chunks of
    ``size`` units, one-port (each move holds its sender's out-port and its receiver's
    in-port) or ``multiport`` (each move holds its (sender, receiver) pair).
    Postcondition (checked): every move starts after the moves it depends on end, and
    the busy intervals of each port (pair) do not overlap."""
    by_index = {m.index: m for m in moves}
    waiting = {m.index: len(set(m.after)) for m in moves}
    dependents = {m.index: [] for m in moves}
    for m in moves:
        for a in set(m.after):
            dependents[a].append(m.index)
    free = {}
    timing = Timing()
    heap = []

    def earliest(m):
        ready = max((timing.end[a] for a in m.after), default=Fraction(0))
        return max([ready] + [free.get(port, Fraction(0))
                              for port in held(m, multiport)])

    for m in moves:
        if not waiting[m.index]:
            heapq.heappush(heap, (earliest(m), m.priority, m.index))
    while heap:
        est, priority, i = heapq.heappop(heap)
        m = by_index[i]
        now = earliest(m)
        if now > est:       # a port was taken since: try again at the later time
            heapq.heappush(heap, (now, priority, i))
            continue
        end = now + m.duration(size)
        timing.start[i], timing.end[i] = now, end
        timing.order.append(i)
        for port in held(m, multiport):
            free[port] = end
            timing.ports[port] = timing.ports.get(port, Fraction(0)) + m.duration(size)
        for d in dependents[i]:
            waiting[d] -= 1
            if not waiting[d]:
                heapq.heappush(heap, (earliest(by_index[d]), by_index[d].priority, d))
    if len(timing.order) != len(moves):
        stuck = sorted(set(by_index) - set(timing.start))
        raise ValueError(f"moves {stuck[:5]} wait for each other: no causal order")
    timing.makespan = max(timing.end.values(), default=Fraction(0))
    _check(moves, timing, size, multiport)
    return timing


def held(m: Move, multiport: bool) -> tuple:
    """What a move holds while it runs: its two ports, or its pair (multi-port)."""
    if multiport:
        return (("pair", m.sender, m.receiver),)
    return (("out", m.sender), ("in", m.receiver))


def _check(moves, timing: Timing, size, multiport: bool = False) -> None:
    """The runtime postcondition of :func:`causal_order`."""
    busy = {}
    for m in moves:
        s, e = timing.start[m.index], timing.end[m.index]
        if e != s + m.duration(size) or any(timing.end[a] > s for a in m.after):
            raise AssertionError(f"move {m.index} starts before its data has arrived")
        for port in held(m, multiport):
            busy.setdefault(port, []).append((s, e))
    for port, spans in busy.items():
        spans.sort()
        if any(b[0] < a[1] for a, b in zip(spans, spans[1:])):
            raise AssertionError(f"port {port} holds two moves at once")
