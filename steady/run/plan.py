"""The finite-horizon plan that ``steady run`` executes: K broadcasts of a periodic
schedule as a list of transfers, each with its messages and its planned start (002 §5.5:
warm-up, periods, clean-up; the causal construction is ours, see below).

A plan is what every rank needs and nothing more: transfers ``tail -> head`` carrying
the consecutive messages ``first .. first + count - 1`` (message = broadcast number),
each planned to start at ``release`` and to hold the sender's out-port and the
receiver's in-port for ``duration`` (``count`` x the link's cost), in integer *ticks*
(``unit`` ticks per platform time unit, so every time is exact).  The ports of a node
take their transfers in the order of their planned starts.

**From a periodic schedule** (version 1 steps or version 2 timetable; version 1 is read
through its timed form, :func:`steady.schedule_file.timed`): batch b = the M messages
b·M .. b·M + M - 1 (M messages per period), tree l's share of it the λ_l messages from
b·M + (λ_0 + ... + λ_{l-1}); on one tree edge the period's transfers, in the order of
their starts, carry consecutive parts of that share.  A transfer of the timetable runs
once per period p; what it carries is batch p - δ, where δ (its *lag*) is chosen one of
two ways:

* **causal lags**: the smallest δ >= 0 such that, with every transfer at its start in
  its period, the sender holds the messages when the transfer starts (computed along
  each tree from the source), the same for all the transfers of one tree edge (the
  largest of theirs, so that each link carries each tree's messages in order).  002
  §5.4.2's rule "forward in period p what you received in period p - 1" is the special
  case δ = depth; here a lag grows only where a child's transfer starts before its
  parent's ends in the period.  The transfers then run *as soon as possible*, each port
  taking its transfers in the order of the periods: never later than the periods as
  written (proofs/run-plan.md), so warm-up and clean-up shrink to what the data
  dependencies need (the remark "shortened ... using parallel routing" of 002 §5.5);
* **no lag, wait for data**: δ = 0 (a message crosses as many edges as it can in the
  period of its batch), and a transfer starts at its start in the period *or later if
  its messages are not there yet*; such delays can push a port's later transfers, period
  after period, or wait in a circle (then this candidate is dropped).

Both can also cut every transfer of m messages into m transfers of one message (finer
pipelining, more MPI messages).  :func:`steady_plan` builds the four, and the list plan
of :mod:`.list_plan` (the schedule's trees only, the K broadcasts list scheduled, no
periods), and keeps the one that ends first.  Periods whose batch does not exist (before batch 0, after the last)
leave their transfers out: warm-up and clean-up.  The last batch may be partial:
messages >= K are dropped from every transfer.

:func:`execute` is the ideal (zero-overhead) execution of any list of transfers with
port orders and release times, the same rule the MPI engine follows in real time; it
gives every plan's predicted makespan.  :func:`check_plan` is the independent
postcondition: one-port, causality, in-order links, every non-source node receives every
message once.
Both run in time linear in the number of transfers plus messages carried, never in the
length of the period.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from fractions import Fraction

from ..numbers import lcm_of_denominators
from ..schedule_file import Schedule, timed
from .list_plan import list_plan
from .transfer import Transfer


@dataclass(frozen=True)
class Plan:
    """K broadcasts from ``source`` as transfers between ``nodes`` (see the module
    docstring); ``makespan`` in ticks, ``unit`` ticks per time unit; ``about`` says how
    it was built (name, period, lags, ...)."""

    name: str
    nodes: tuple
    source: int
    broadcasts: int
    unit: int
    transfers: tuple
    makespan: int
    about: dict = field(default_factory=dict, hash=False)

    @property
    def makespan_time(self) -> Fraction:
        """The planned makespan in platform time units (exact)."""
        return Fraction(self.makespan, self.unit)

    @property
    def throughput(self) -> Fraction:
        """Planned broadcasts per time unit: K / makespan."""
        return Fraction(self.broadcasts * self.unit, self.makespan) if self.makespan else \
            Fraction(0)

    def out_order(self, node: int) -> list[int]:
        """Indices of the transfers ``node`` sends, in its out-port's order."""
        return _port_order(self.transfers, node, "tail")

    def in_order(self, node: int) -> list[int]:
        """Indices of the transfers ``node`` receives, in its in-port's order."""
        return _port_order(self.transfers, node, "head")


def _port_order(transfers, node: int, side: str) -> list[int]:
    mine = [i for i, t in enumerate(transfers) if getattr(t, side) == node]
    mine.sort(key=lambda i: (transfers[i].release, i))
    return mine


class PlanError(ValueError):
    """A schedule that cannot be unrolled into a plan (with the reason)."""


# -- the ideal execution ------------------------------------------------------------

def execute(transfers, nodes: int, source: int) -> list[tuple[int, int]]:
    """(begin, end) of every transfer when each starts as soon as (a) its release time,
    (b) the end of the previous transfer of its sender's out-port and of its receiver's
    in-port (ports take their transfers by (release, index)), and (c) the ends of the
    transfers that brought its messages to its sender (the source holds every message
    from 0) are all past.  Raises :class:`PlanError` when these waits form a cycle (the
    order cannot run) or a sender forwards a message it never receives."""
    n = len(transfers)
    deps: list[list[int]] = [[] for _ in range(n)]
    by_start = sorted(range(n), key=lambda i: (transfers[i].release, i))
    for side in (1, 2):   # tail, head: each port's previous transfer
        last: dict[int, int] = {}
        for i in by_start:
            v = transfers[i][side]
            if v in last:
                deps[i].append(last[v])
            last[v] = i
    brought = {}
    for i, t in enumerate(transfers):
        for m in t.messages:
            brought[(t.head, m)] = i
    for i, t in enumerate(transfers):
        if t.tail == source:
            continue
        producers = set()
        for m in t.messages:
            if (t.tail, m) not in brought:
                raise PlanError(f"node {t.tail} forwards message {m} it never receives")
            producers.add(brought[(t.tail, m)])
        deps[i].extend(producers)
    # Kahn's order; each begin is the max of its release and its dependencies' ends.
    waiting = [len(d) for d in deps]
    users: list[list[int]] = [[] for _ in range(n)]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    times: list = [None] * n
    ready = [i for i in range(n) if waiting[i] == 0]
    heapq.heapify(ready)
    done = 0
    while ready:
        i = heapq.heappop(ready)
        t = transfers[i]
        begin = max([t.release] + [times[j][1] for j in deps[i]])
        times[i] = (begin, begin + t.duration)
        done += 1
        for k in users[i]:
            waiting[k] -= 1
            if waiting[k] == 0:
                heapq.heappush(ready, k)
    if done < n:
        raise PlanError("the transfers wait for each other in a cycle: this order cannot "
                        "run")
    return times


def at_times(plan_name: str, nodes, source: int, broadcasts: int, unit: int,
             transfers, about=None, times=None) -> Plan:
    """The plan whose transfers start at their ideal execution's begin times
    (:func:`execute`, or ``times`` when already known): releases become exact planned
    starts, port orders unchanged (a port's begins increase in its order)."""
    if times is None:
        times = execute(transfers, len(nodes), source)
    placed = tuple(t._replace(release=b) for t, (b, _) in zip(transfers, times))
    makespan = max((e for _, e in times), default=0)
    plan = Plan(plan_name, tuple(nodes), source, broadcasts, unit, placed, makespan,
                dict(about or {}))
    problems = check_plan(plan)
    if problems:  # the runtime postcondition of every plan built here
        raise AssertionError(f"postcondition: plan {plan_name!r}: {problems[0]}")
    return plan


# -- the independent check -------------------------------------------------------

def check_plan(plan: Plan, limit: int = 20) -> list[str]:
    """Violations of the one-port model and of causality in ``plan`` (at most
    ``limit``): no port holds two transfers at once, a node forwards a message only
    after the end of the transfer that brought it, each link carries each tree's
    messages in increasing order, every node other than the source receives each of
    the messages 0..K-1 exactly once, nothing else."""
    found: list[str] = []
    names = plan.nodes
    for side, word in (("tail", "sends"), ("head", "receives")):
        spans: dict[int, list] = {}
        for t in plan.transfers:
            spans.setdefault(getattr(t, side), []).append((t.release, t.end, t.id))
        for v, s in spans.items():
            s.sort()
            for (a0, a1, x), (b0, _, y) in zip(s, s[1:]):
                if b0 < a1:
                    found.append(f"{names[v]} {word} transfers {x} and {y} at once")
    held: dict[tuple[int, int], int] = {}
    for t in plan.transfers:
        if t.duration < 0 or t.count < 1:
            found.append(f"transfer {t.id} has {t.count} messages and duration "
                         f"{t.duration}")
        for m in t.messages:
            if (t.head, m) in held:
                found.append(f"{names[t.head]} receives message {m} twice")
            held[(t.head, m)] = t.end
    for t in plan.transfers:
        if t.tail == plan.source:
            continue
        for m in t.messages:
            got = held.get((t.tail, m))
            if got is None or got > t.release:
                found.append(f"{names[t.tail]} forwards message {m} (transfer {t.id}) "
                             + ("it never receives" if got is None else
                                "before it has received it"))
                break
    streams: dict[tuple[int, int, int], int] = {}
    for t in sorted(plan.transfers, key=lambda t: (t.release, t.id)):
        key = (t.tail, t.head, t.tree)
        if t.first <= streams.get(key, -1):
            found.append(f"{names[t.tail]} sends message {t.first} of tree {t.tree} to "
                         f"{names[t.head]} after message {streams[key]}")
        streams[key] = t.first + t.count - 1
    expected = plan.broadcasts * (len(names) - 1)
    inside = sum(1 for (v, m) in held if 0 <= m < plan.broadcasts and v != plan.source)
    if inside != expected or len(held) != expected:
        found.append(f"{len(held)} receptions, {inside} of them of messages "
                     f"0..{plan.broadcasts - 1} by non-source nodes; expected {expected}")
    return found[:limit]


# -- plans from a periodic schedule ----------------------------------------------------

@dataclass(frozen=True)
class _Slot:
    """A transfer of the period: tree edge tail -> head, share indices [a, a + m),
    start ``start`` and per-message cost ``cost`` in ticks."""

    tail: int
    head: int
    tree: int
    a: int
    m: int
    start: int
    cost: int


def steady_plan(schedule: Schedule, broadcasts: int) -> Plan:
    """The best of the five finite-horizon plans of the module docstring (the one that
    ends first; the fewer transfers on a tie) for ``broadcasts`` messages."""
    if broadcasts < 1:
        raise PlanError("at least one broadcast")
    if schedule.messages_per_period < 1:
        raise PlanError("the schedule sends no message per period")
    best = None
    for lagged in (True, False):
        for split in (False, True):
            try:
                makespan, build = _unrolled(schedule, broadcasts, lagged, split)
            except PlanError:
                continue  # waiting for data in this order would deadlock: skip it
            if best is None or makespan < best[0]:   # on a tie, the earlier: fewer
                best = (makespan, build)               # transfers, or causal lags
    listed = _listed(schedule, broadcasts)
    if listed is not None and (best is None or listed[0] < best[0]):
        best = listed
    if best is None:
        raise PlanError("no unrolling of this schedule runs")
    return best[1]()


def _listed(schedule: Schedule, broadcasts: int):
    """(makespan, a function building the plan) of the list plan of :mod:`.list_plan`,
    or None beyond its work bound."""
    built = list_plan(schedule, broadcasts)
    if built is None:
        return None
    unit, transfers = built
    platform = schedule.platform
    nodes = list(platform.nodes)
    source = nodes.index(platform.source)
    times = execute(transfers, len(nodes), source)
    about = {"period": schedule.period, "messages_per_period": schedule.messages_per_period,
             "batches": -(-broadcasts // schedule.messages_per_period),
             "lags": "none: the whole run list scheduled on the trees", "largest_lag": 0,
             "transfers": "one per message, merged where back to back",
             "version": schedule.version}
    return (max(e for _, e in times),
            lambda: at_times("steady schedule", nodes, source, broadcasts, unit, transfers,
                             about, times))


def _unrolled(schedule: Schedule, broadcasts: int, lagged: bool, split: bool):
    """(makespan, a function building the plan) of one unrolling."""
    platform = schedule.platform
    nodes = list(platform.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    source = index[platform.source]
    table = timed(schedule)
    unit = lcm_of_denominators([platform.cost(t.tail, t.head) for t in table.transfers]
                               + [t.start for t in table.transfers] + [table.period])
    period = int(table.period * unit)
    slots = _slots(table, index, unit, split)
    weights = [t.weight for t in table.trees]
    offset = [sum(weights[:l]) for l in range(len(weights))]
    lags = _causal_lags(slots, source, period) if lagged else [0] * len(slots)
    m = table.messages_per_period
    batches = -(-broadcasts // m)
    warm = max(lags, default=0)
    runs = []   # (period, slot, first message, count) in period and slot order
    for p in range(batches + warm):
        for slot, lag in zip(slots, lags):
            b = p - lag
            if not 0 <= b < batches:
                continue  # warm-up (no batch yet) or clean-up (no batch any more)
            first = b * m + offset[slot.tree] + slot.a
            count = min(first + slot.m, broadcasts) - first
            if count > 0:
                runs.append((p, slot, first, count))

    def transfers_from(release):
        return [Transfer(i, slot.tail, slot.head, first, count, release(p, slot),
                         count * slot.cost, slot.tree)
                for i, (p, slot, first, count) in enumerate(runs)]

    if lagged:
        # Every transfer as soon as its ports and messages allow, each port keeping the
        # order of the periods: never later than the periods as written (the induction
        # of proofs/finite-horizon.md), so warm-up and clean-up shrink to what the data
        # dependencies need.
        transfers = transfers_from(lambda p, slot: 0)
    else:
        transfers = transfers_from(lambda p, slot: p * period + slot.start)
    name = "steady schedule"
    about = {"period": table.period, "messages_per_period": m, "batches": batches,
             "lags": "causal" if lagged else "none, wait for data",
             "largest_lag": warm,
             "transfers": "one message each" if split else "as in the schedule",
             "version": schedule.version}
    times = execute(transfers, len(nodes), source)
    makespan = max((e for _, e in times), default=0)
    return makespan, lambda: at_times(name, nodes, source, broadcasts, unit, transfers,
                                      about, times)


def _slots(table: Schedule, index, unit: int, split: bool) -> list[_Slot]:
    """The period's transfers as slots, share indices numbered per tree edge in the
    order of the starts (then of the file)."""
    platform = table.platform
    order = sorted(range(len(table.transfers)), key=lambda i: (table.transfers[i].start, i))
    taken: dict[tuple, int] = {}
    slots = []
    for i in order:
        t = table.transfers[i]
        if t.messages < 1:
            continue
        cost = int(platform.cost(t.tail, t.head) * unit)
        start = int(t.start * unit)
        key = (t.tree, t.tail, t.head)
        a = taken.get(key, 0)
        taken[key] = a + t.messages
        pieces = ([(a + k, 1, start + k * cost) for k in range(t.messages)] if split
                  else [(a, t.messages, start)])
        for first, m, s in pieces:
            slots.append(_Slot(index[t.tail], index[t.head], t.tree, first, m, s, cost))
    return slots


def _causal_lags(slots: list[_Slot], source: int, period: int) -> list[int]:
    """δ per slot (module docstring): along each tree from the source, the smallest
    lag with which the slot's sender holds its messages at the slot's start, given the
    arrivals (lag·T + end) of the slots that bring them."""
    lags = [0] * len(slots)
    arrival: dict[tuple[int, int, int], int] = {}   # (tree, node, share index) -> tick
    by_tree: dict[int, list[int]] = {}
    for i, s in enumerate(slots):
        by_tree.setdefault(s.tree, []).append(i)
    for tree, members in by_tree.items():
        # A slot can be placed once its sender's incoming slots are: follow the tree.
        pending = list(members)
        known = {source}
        while pending:
            placeable = [i for i in pending if slots[i].tail in known]
            if not placeable:
                raise PlanError(f"tree {tree}: a transfer leaves a node the tree never "
                                "reaches")
            heads = set()
            for i in placeable:
                s = slots[i]
                try:
                    need = 0 if s.tail == source else max(
                        arrival[(tree, s.tail, k)] for k in range(s.a, s.a + s.m))
                except KeyError:
                    raise PlanError(f"tree {tree}: a node forwards messages it never "
                                    "receives") from None
                lags[i] = max(0, math.ceil(Fraction(need - s.start, period)))
            # One lag per tree edge, the largest of its transfers': the edge then
            # carries its tree's messages in order, period after period (a FIFO stream;
            # different lags would send batch p - 2 after batch p - 1 in one period).
            edge: dict[tuple[int, int], int] = {}
            for i in placeable:
                key = (slots[i].tail, slots[i].head)
                edge[key] = max(edge.get(key, 0), lags[i])
            for i in placeable:
                s = slots[i]
                lags[i] = edge[(s.tail, s.head)]
                for k in range(s.a, s.a + s.m):
                    arrival[(tree, s.head, k)] = lags[i] * period + s.start + s.m * s.cost
                heads.add(s.head)
            known |= heads
            placed = set(placeable)
            pending = [i for i in pending if i not in placed]
    return lags
