"""Finite schedules from a periodic one: initialization, steady state, clean-up (002 §5.5).

A steady-schedule v1 file describes one period: in step i, link (j,k) carries some
messages of tree l, "messages that j received from its parent in tree l during the
previous period".  So a node at depth d in tree l forwards, in period p, the messages of
*batch* p - d (batch b = the λ_l messages of each tree injected by the source in period
b; the source is at depth 0).  Unrolled from period 0 with only batches 0..B-1, the
periodic schedule becomes a finite one:

* periods 0..W-1 (W = H - 1, H the largest depth of a tree) are the *warm-up*: a node
  whose batch would be negative has nothing to forward and stays idle (the crosses of
  002 Figure 2);
* periods W..B-1 are *steady* (every transfer of the period happens);
* periods B..B+W-1 are the *clean-up*: the source has stopped, the last batches drain.

Batch b reaches every node by the end of period b + W, so B batches (B·M messages, M the
messages per period) need B + W periods.  The paper's algorithm instead fills buffers
and drains them by routing messages one at a time (§5.5); its own remark, "shortened ...
using parallel routing", is what this module does, in two ways:

1. warm-up and clean-up are the periodic schedule itself, pipelined (no sequential
   routing at all), and
2. within these two phases every transfer starts *as soon as possible*: when its sender's
   send port and its receiver's receive port are free and its sender holds its messages,
   in the order of the periodic schedule (list scheduling).  By induction along that
   order no transfer starts later than in the synchronous unrolling, so the phases only
   get shorter (proofs/finite-horizon.md), and the result is still one-port and causal.

Times are exact: internally integers in units of 1/U (U = lcm of the denominators of
the costs and step durations), reported as Fractions.  Everything here is polynomial in
the size of the *file* (blocks = runs of messages of one tree on one link in one step),
never in the number of messages, so periods of 10^40 time units unroll instantly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..numbers import lcm_of_denominators


@dataclass(frozen=True)
class Block:
    """``count`` consecutive messages of tree ``tree`` and batch ``batch`` sent over the
    link tail -> head, one after the other from ``start``; the messages are numbers
    ``first .. first + count - 1`` of the tree's share of the batch."""

    tail: str
    head: str
    tree: int
    batch: int
    first: int
    count: int
    start: Fraction
    end: Fraction
    period: int
    step: int


@dataclass(frozen=True)
class _Run:
    """A transfer of the periodic schedule, with its place in the tree's batch."""

    tail: str
    head: str
    tree: int
    first: int
    count: int
    cost: int      # per message, in units of 1/U
    offset: int    # start within the period, in units of 1/U
    step: int


class PeriodicPattern:
    """The periodic schedule prepared for unrolling: depths, message numbering, runs."""

    def __init__(self, schedule):
        self.schedule = schedule
        platform = schedule.platform
        self.source = platform.source
        self.weights = [t.weight for t in schedule.trees]
        self.messages = schedule.messages_per_period
        self.tree_offset = [sum(self.weights[:l]) for l in range(len(self.weights))]
        self.depth = [_depths(t.parent, platform.source) for t in schedule.trees]
        self.height = max((max(d.values()) for d in self.depth), default=0)
        self.warmup = max(self.height - 1, 0)
        costs = {l.arc: l.cost for l in platform.links}
        self.unit = lcm_of_denominators(
            [costs[(t.tail, t.head)] for s in schedule.steps for t in s.transfers]
            + [s.duration for s in schedule.steps] + [schedule.period])
        self.period = int(schedule.period * self.unit)
        self.runs = self._runs(costs)

    def _runs(self, costs) -> list[_Run]:
        runs, taken, clock = [], {}, 0
        for i, step in enumerate(self.schedule.steps):
            busy = {}
            for t in step.transfers:
                cost = int(costs[(t.tail, t.head)] * self.unit)
                key = (t.tree, t.tail, t.head)
                first = taken.get(key, 0)
                taken[key] = first + t.messages
                # Several trees on one link in one step go back to back.
                start = busy.get((t.tail, t.head), 0)
                busy[(t.tail, t.head)] = start + t.messages * cost
                runs.append(_Run(t.tail, t.head, t.tree, first, t.messages, cost,
                                 clock + start, i))
            clock += int(step.duration * self.unit)
        return runs

    def time(self, ticks: int) -> Fraction:
        return Fraction(ticks, self.unit)

    def ticks(self, time) -> int:
        """The largest tick count not after ``time``."""
        t = Fraction(time) * self.unit
        return t.numerator // t.denominator

    def message_id(self, batch: int, tree: int, k: int) -> int:
        """Global number of message k of tree ``tree`` in batch ``batch``."""
        return batch * self.messages + self.tree_offset[tree] + k

    def blocks(self, periods, batches: int, share=None):
        """The runs of ``periods`` carrying batches 0..batches-1, in schedule order, as
        (period, run, batch, first, count).  ``share[l]`` (default λ_l) clips the last
        batch to its first share[l] messages of tree l (a partial batch)."""
        for p in periods:
            for run in self.runs:
                b = p - self.depth[run.tree][run.tail]
                if not 0 <= b < batches:
                    continue
                first, count = run.first, run.count
                if share is not None and b == batches - 1:
                    count = min(first + count, share[run.tree]) - first
                if count > 0:
                    yield p, run, b, first, count


def _depths(parent: dict, source: str) -> dict:
    depth = {source: 0}

    def of(v):
        chain = []
        while v not in depth:
            chain.append(v)
            v = parent[v]
        for u in reversed(chain):
            depth[u] = depth[parent[u]] + 1
        return depth[chain[0]] if chain else depth[v]

    for v in parent:
        of(v)
    return depth


def synchronous(pattern: PeriodicPattern, periods, batches: int, start: int = 0,
                share=None) -> list[tuple]:
    """The periodic schedule as written: period p starts at start + p'·T (p' = p minus
    the first period), every transfer at its place in its step.  Returns placed runs
    (period, run, batch, first, count, start tick, end tick); see :func:`to_blocks`."""
    periods = list(periods)
    base = periods[0] if periods else 0
    out = []
    for p, run, b, first, count in pattern.blocks(periods, batches, share):
        t = start + (p - base) * pattern.period + run.offset
        out.append((p, run, b, first, count, t, t + count * run.cost))
    return out


def as_soon_as_possible(pattern: PeriodicPattern, periods, batches: int, start: int = 0,
                        share=None, held=None) -> list[tuple]:
    """List scheduling of the runs of ``periods`` in schedule order (see the module
    docstring): each starts when its ports are free and its sender holds all its
    messages.  ``held`` maps (node, tree, batch) to the blocks received so far (shared
    between phases); the source holds everything from the start.  Returns placed runs
    like :func:`synchronous`."""
    send_free: dict[str, int] = {}
    recv_free: dict[str, int] = {}
    held = {} if held is None else held
    source = pattern.source
    out = []
    for p, run, b, first, count in pattern.blocks(periods, batches, share):
        ready = max(start, send_free.get(run.tail, start), recv_free.get(run.head, start))
        if run.tail != source:
            ready = max(ready, _held_at(held, run.tail, run.tree, b, first + count))
        end = ready + count * run.cost
        send_free[run.tail] = recv_free[run.head] = end
        _receive(held, run.head, run.tree, b, first + count, end)
        out.append((p, run, b, first, count, ready, end))
    return out


def _receive(held, node, tree, batch, upto: int, end: int) -> None:
    """Record that ``node`` holds the messages of (tree, batch) up to number upto - 1
    from ``end`` on.  On one link the runs of a tree come in message order and end in
    time order (one receive port), so a list of (upto, end) stays sorted in both."""
    held.setdefault((node, tree, batch), []).append((upto, end))


def _held_at(held, node, tree, batch, upto: int) -> int:
    """When ``node`` holds messages 0..upto-1 of (tree, batch): the end of the first
    received run reaching message upto - 1 (earlier runs ended earlier)."""
    for received, end in held.get((node, tree, batch), ()):
        if received >= upto:
            return end
    raise AssertionError(f"postcondition: {node} forwards messages of tree {tree}, "
                         f"batch {batch} it never received")


def to_blocks(pattern: PeriodicPattern, placed) -> list[Block]:
    """Placed runs as :class:`Block` objects with exact times."""
    return [Block(run.tail, run.head, run.tree, b, first, count, pattern.time(t),
                  pattern.time(end), p, run.step)
            for p, run, b, first, count, t, end in placed]


def _end(placed) -> int:
    return max((placed_run[-1] for placed_run in placed), default=0)


@dataclass(frozen=True)
class FiniteSchedule:
    """B batches broadcast by warm-up, r steady periods and clean-up (002 §5.5)."""

    batches: int
    messages: int
    blocks: tuple
    init_length: Fraction      # I: end of the warm-up (0 without one)
    steady_periods: int        # r
    cleanup_length: Fraction   # J
    makespan: Fraction


def finite_schedule(pattern: PeriodicPattern, batches: int, share=None,
                    blocks: bool = True) -> FiniteSchedule:
    """Batches 0..batches-1 (the last one possibly partial, see PeriodicPattern.blocks):
    warm-up as soon as possible from 0, the steady periods synchronously from I, the
    clean-up as soon as possible from I + r·T.  With fewer batches than warm-up periods
    the phases overlap and the whole is scheduled as soon as possible.  ``blocks=False``
    skips materialising the blocks (and the steady periods): only the lengths."""
    w = pattern.warmup
    total = batches + w
    messages = (batches - 1) * pattern.messages + (
        pattern.messages if share is None else sum(share)) if batches else 0
    if batches < w or batches == 0:
        placed = as_soon_as_possible(pattern, range(total), batches, 0, share)
        end = pattern.time(_end(placed))
        return FiniteSchedule(batches, messages, tuple(to_blocks(pattern, placed)) if blocks
                              else (), end, 0, Fraction(0), end)
    held: dict = {}
    init = as_soon_as_possible(pattern, range(w), batches, 0, share, held)
    i_ticks = _end(init)
    r = batches - w
    clean_start = i_ticks + r * pattern.period
    steady = []
    if r:
        # What the clean-up forwards first was received in the last steady period, by
        # its end; so only that period's deliveries matter to it (earlier ones are
        # never asked for again).
        last = synchronous(pattern, [batches - 1], batches, clean_start - pattern.period,
                           share)
        held = {}
        for _, run, b, first, count, _, end in last:
            _receive(held, run.head, run.tree, b, first + count, end)
        if blocks:
            steady = synchronous(pattern, range(w, batches), batches, i_ticks, share)
    cleanup = as_soon_as_possible(pattern, range(batches, total), batches, clean_start,
                                  share, held)
    end = max(_end(cleanup), clean_start)
    placed = init + steady + cleanup if blocks else ()
    return FiniteSchedule(batches, messages, tuple(to_blocks(pattern, placed)),
                          pattern.time(i_ticks), r, pattern.time(end - clean_start),
                          pattern.time(end))
