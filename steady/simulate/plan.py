"""The finite-horizon plan: K broadcasts as a list of transfers with exact planned starts
(ours; the object that ``steady simulate`` counts, ``steady run`` executes and ``steady
replay --plan`` follows).

A plan holds what every rank needs and nothing more: transfers ``tail -> head`` (node
indices into ``nodes``) carrying the consecutive broadcasts ``first .. first + count -
1`` of one stream (a tree of the schedule, or a stream of its own for a transfer routed
off the trees), each planned to start at ``release`` and to hold the sender's out-port
and the receiver's in-port for ``duration`` (``count`` x the link's cost), in integer
*ticks* (``unit`` ticks per platform time unit, so every time is exact).  The ports of
a node take their transfers in the order of their planned starts; a broadcast is at its
receiver when the transfer that brought it ends, and a transfer starts only when its
sender holds every broadcast it carries (one message of the runtime: the plans built
here send one broadcast per transfer, so nothing waits for a longer transfer to end).

Plans are built by :mod:`.unroll` (a periodic timetable unrolled: warm-up, periods,
clean-up), :mod:`.rerouted` (a clean-up routed afresh) and :mod:`.list_run` (no
periods), chosen by :mod:`.choose`, and written as a steady-plan file
(docs/formats.md): ``steady simulate --plan FILE`` writes the plan it counted, ``steady
run --plan FILE`` executes it.

:func:`check_plan` is the runtime postcondition of every plan, independent of how it
was built: one-port, shared network links within capacity at every instant, causality,
each link carrying each tree's broadcasts in increasing order, every node other than
the source receiving each broadcast exactly once.  :func:`execute` is the ideal
(zero-overhead) execution of transfers with port orders and release times, the rule
the MPI engine follows in real time.  Both are linear in the transfers plus the
broadcasts they carry.

A plan may carry a collective instead (issue 43): its ``collective`` (a
:class:`~steady.simulate.plan_streams.Streams`) names each stream's root and direction,
a transfer's ``first`` is a chunk of its stream's root, and :func:`check_plan` applies
the collective's rules (:func:`~steady.simulate.plan_streams.check_streams`); written
as version 2 of the steady-plan file (version 1, the broadcast, is unchanged).
"""

from __future__ import annotations

import gc
import heapq
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain
from typing import NamedTuple

from ..errors import InputError
from ..fileio import JsonDocument, check_format, check_version
from ..numbers import format_exact
from .plan_streams import Streams, check_streams, completion as chunk_completion
from .plan_streams import streams_from_document

FORMAT = "steady-plan"
VERSION = 1
#: The version of a plan that carries a collective (issue 43).
COLLECTIVE_VERSION = 2
#: Transfers a plan may hold at most (a file, a check, a run: all linear in them).
MAX_TRANSFERS = 2_000_000


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector paused inside (as it was after).  Building,
    unrolling and checking a plan allocate 10^5..10^6 tuples and lists, none in a
    cycle, and the collector's passes over them while the lists grow cost more than
    the building itself; reference counting still frees all of them.  Also a decorator."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class TooLarge(ValueError):
    """A plan would exceed its budget of transfers."""


class PlanError(ValueError):
    """Transfers that cannot run as a plan (with the reason)."""


class Transfer(NamedTuple):
    """Broadcasts ``first .. first + count - 1`` of tree ``tree`` sent from node
    ``tail`` to node ``head`` (node indices), planned to start at ``release`` and to
    last ``duration`` ticks.  (A named tuple: plans hold hundreds of thousands.)"""

    id: int
    tail: int
    head: int
    first: int
    count: int
    release: int
    duration: int
    tree: int = 0

    @property
    def end(self) -> int:
        return self.release + self.duration

    @property
    def messages(self) -> range:
        return range(self.first, self.first + self.count)


@dataclass(frozen=True)
class Plan(JsonDocument):
    """K broadcasts from ``nodes[source]`` as ``transfers`` (module docstring);
    ``makespan`` in ticks, ``unit`` ticks per time unit; ``about`` says how it was
    built (name, period, forwarding rule, ...); ``platform`` the platform it runs on
    (None for the plans of baselines that need none)."""

    name: str
    nodes: tuple
    source: int
    broadcasts: int
    unit: int
    transfers: tuple
    makespan: int
    about: dict = field(default_factory=dict, hash=False)
    platform: object = field(default=None, compare=False, hash=False, repr=False)
    collective: Streams | None = field(default=None, hash=False)

    @property
    def makespan_time(self) -> Fraction:
        """The planned makespan in platform time units (exact)."""
        return Fraction(self.makespan, self.unit)

    @property
    def throughput(self) -> Fraction:
        """Planned broadcasts per time unit: K / makespan."""
        return (Fraction(self.broadcasts * self.unit, self.makespan) if self.makespan
                else Fraction(0))

    def out_order(self, node: int) -> list[int]:
        """Indices of the transfers ``node`` sends, in its out-port's order."""
        return _port_order(self.transfers, node, "tail")

    def in_order(self, node: int) -> list[int]:
        """Indices of the transfers ``node`` receives, in its in-port's order."""
        return _port_order(self.transfers, node, "head")

    def completion(self) -> list[int | None]:
        """Per broadcast, the tick at which every node other than the source holds it
        (None when one never does); a collective's: per chunk of each root in turn
        (roots in node order)."""
        if self.collective is not None:
            ends = chunk_completion(self)
            return [c for r, _ in self.collective.chunks for c in ends[r]]
        others, source, k = len(self.nodes) - 1, self.source, self.broadcasts
        got = [0] * k
        at = [0] * k
        for _, _, head, first, count, release, duration, _ in self.transfers:
            if head == source:
                continue
            end = release + duration   # fields unpacked: 10^5..10^6 transfers
            for m in (range(first, first + count) if count != 1 else (first,)):
                if 0 <= m < k:
                    got[m] += 1
                    if end > at[m]:
                        at[m] = end
        return [a if g == others else None for g, a in zip(got, at)]

    def delivered_by(self, horizon) -> int:
        """Broadcasts that every node holds by the time ``horizon`` (time units)."""
        limit = Fraction(horizon) * self.unit
        return sum(1 for c in self.completion() if c is not None and c <= limit)

    def delivered_per_root(self, horizon) -> dict:
        """A collective's chunks complete by ``horizon`` (time units), per root name."""
        limit = Fraction(horizon) * self.unit
        return {self.nodes[r]: sum(1 for c in ends if c <= limit)
                for r, ends in chunk_completion(self).items()}

    # -- the steady-plan document ---------------------------------------------------
    def to_dict(self) -> dict:
        doc = self._head()
        doc.update({"transfers": [[t.tail, t.head, t.first, t.count, t.release,
                                   t.duration, t.tree] for t in self.transfers]})
        return doc

    def _head(self) -> dict:
        """The document without its transfers."""
        doc = {"format": FORMAT, "version": VERSION if self.collective is None
               else COLLECTIVE_VERSION}
        if self.platform is not None:
            doc["platform"] = self.platform.to_dict()
        doc.update({"name": self.name, "nodes": list(self.nodes),
                    "source": self.nodes[self.source], "unit": self.unit,
                    "broadcasts": self.broadcasts, "makespan": self.makespan,
                    "about": {k: _plain(v) for k, v in self.about.items()}})
        if self.collective is not None:
            doc["collective"] = self.collective.to_dict(self.nodes)
        return doc

    def to_json(self) -> str:
        """The document, one transfer a line (a plan holds hundreds of thousands)."""
        head = json.dumps(self._head(), indent=1)
        rows = self.transfers
        if set(map(type, chain.from_iterable(rows))) <= {int}:
            # seven ints a row: "[a,b,...]" is what json.dumps writes, without its
            # per-call cost (10^5..10^6 rows); the ticks of a fine unit run to hundreds
            # of digits, and a plan has few distinct durations: each written once
            durations = {d: str(d) for d in {t.duration for t in rows}}
            body = ",\n".join(f"  [{t[1]},{t[2]},{t[3]},{t[4]},{t[5]},{durations[t[6]]},"
                               f"{t[7]}]" for t in rows)
        else:
            body = ",\n".join("  " + json.dumps(list(t[1:]), separators=(",", ":"))
                               for t in rows)
        return head[:-2] + ',\n "transfers": [\n' + body + "\n ]\n}\n"

    @staticmethod
    def _read(doc, origin: str) -> "Plan":
        return _from_document(doc, origin)


def _plain(value):
    """An ``about`` value as JSON: exact numbers as text."""
    if isinstance(value, Fraction):
        return format_exact(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _from_document(doc, origin: str) -> Plan:
    """A plan from its document, every field checked (one line naming the element)."""
    from ..platform import Platform

    check_format(doc, origin, FORMAT, required=True)
    check_version(doc, origin, (VERSION, COLLECTIVE_VERSION))
    known = {"format", "version", "platform", "name", "nodes", "source", "unit",
             "broadcasts", "makespan", "about", "transfers"}
    if doc.get("version") == COLLECTIVE_VERSION:
        known.add("collective")
    for key in doc:
        if key not in known:
            raise InputError(origin, key, "unknown key")
    for key in ("nodes", "source", "unit", "broadcasts", "transfers"):
        if key not in doc:
            raise InputError(origin, key, "missing")
    platform = (Platform.from_dict(doc["platform"], f"{origin}: platform")
                if "platform" in doc else None)
    nodes = doc["nodes"]
    if (not isinstance(nodes, list) or len(nodes) < 2
            or not all(isinstance(v, str) for v in nodes) or len(set(nodes)) != len(nodes)):
        raise InputError(origin, "nodes", "a list of at least two distinct node names")
    if platform is not None and tuple(nodes) != tuple(platform.nodes):
        raise InputError(origin, "nodes", "not the platform's nodes in its order")
    if doc["source"] not in nodes:
        raise InputError(origin, "source", f"{doc['source']!r} is not in nodes")
    unit = _count(doc["unit"], origin, "unit", 1)
    broadcasts = _count(doc["broadcasts"], origin, "broadcasts", 1)
    raw = doc["transfers"]
    if not isinstance(raw, list):
        raise InputError(origin, "transfers", "not a list")
    if len(raw) > MAX_TRANSFERS:
        raise InputError(origin, "transfers", f"{len(raw)} transfers, more than "
                         f"{MAX_TRANSFERS}")
    transfers = []
    for i, entry in enumerate(raw):
        element = f"transfers[{i}]"
        if not isinstance(entry, list) or len(entry) != 7:
            raise InputError(origin, element, "not [tail, head, first, count, release, "
                             "duration, tree]")
        tail, head = (_count(x, origin, element, 0, len(nodes) - 1) for x in entry[:2])
        first = _count(entry[2], origin, element, 0)
        count = _count(entry[3], origin, element, 1)
        release, duration, tree = (_count(x, origin, element, 0) for x in entry[4:])
        if tail == head:
            raise InputError(origin, element, "sends to itself")
        transfers.append(Transfer(i, tail, head, first, count, release, duration, tree))
    makespan = max((t.end for t in transfers), default=0)
    if "makespan" in doc and doc["makespan"] != makespan:
        raise InputError(origin, "makespan", f"{doc['makespan']} but the transfers end "
                         f"at {makespan}")
    about = doc.get("about", {})
    if not isinstance(about, dict):
        raise InputError(origin, "about", "not an object")
    name = doc.get("name", "steady plan")
    if not isinstance(name, str):
        raise InputError(origin, "name", "not text")
    collective = None
    if doc.get("version") == COLLECTIVE_VERSION:
        if "collective" not in doc:
            raise InputError(origin, "collective", "missing (a version 2 plan carries a "
                             "collective)")
        collective = streams_from_document(doc["collective"], origin, nodes, platform)
    return Plan(name, tuple(nodes), nodes.index(doc["source"]), broadcasts, unit,
                tuple(transfers), makespan, dict(about), platform, collective)


def _count(value, origin: str, element: str, low: int, high: int | None = None) -> int:
    if type(value) is not int or value < low or (high is not None and value > high):
        within = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise InputError(origin, element, f"{value!r} is not a whole number {within}")
    return value


def _port_order(transfers, node: int, side: str) -> list[int]:
    mine = [i for i, t in enumerate(transfers) if getattr(t, side) == node]
    mine.sort(key=lambda i: (transfers[i].release, i))
    return mine


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


def at_times(name: str, nodes, source: int, broadcasts: int, unit: int, transfers,
             about=None, times=None, platform=None) -> Plan:
    """The plan whose transfers start at their ideal execution's begin times
    (:func:`execute`, or ``times`` when already known): releases become exact planned
    starts, port orders unchanged (a port's begins increase in its order)."""
    if times is None:
        times = execute(transfers, len(nodes), source)
    placed = tuple(t._replace(id=i, release=b)
                   for i, (t, (b, _)) in enumerate(zip(transfers, times)))
    return checked(Plan(name, tuple(nodes), source, broadcasts, unit, placed,
                        max((e for _, e in times), default=0), dict(about or {}), platform))


def checked(plan: Plan) -> Plan:
    """``plan`` after its runtime postcondition (:func:`check_plan`)."""
    problems = check_plan(plan)
    if problems:
        raise AssertionError(f"postcondition: plan {plan.name!r}: {problems[0]}")
    return plan


# -- the independent check -------------------------------------------------------

@collector_paused()
def check_plan(plan: Plan, limit: int = 20) -> list[str]:
    """Violations in ``plan`` (at most ``limit``): a port holding two transfers at
    once, a shared network link over capacity (when the plan has its platform), a node
    forwarding a broadcast before the end of the transfer that brought it, a link
    carrying a stream's broadcasts out of order, a node other than the source not
    receiving each of the broadcasts 0..K-1 exactly once.  One pass in the order of the
    planned starts: whatever a transfer needs must have started before it.  A
    collective's plan: :func:`~steady.simulate.plan_streams.check_streams`."""
    if plan.collective is not None:
        return check_streams(plan, limit)
    found: list[str] = []
    names = plan.nodes
    source = plan.source
    transfers = plan.transfers
    busy_out = [0] * len(names)    # when each port's transfers so far end, at the latest
    busy_in = [0] * len(names)
    held = [dict() for _ in names]   # per node: broadcast -> when it arrived
    streams: dict = {}
    ordered = all(a.release <= b.release for a, b in zip(transfers, transfers[1:]))
    # fields unpacked, not read through properties: a plan holds 10^5..10^6 transfers,
    # and most carry one broadcast (count 1: the loops over t.messages run once)
    for t in (transfers if ordered else
              sorted(transfers, key=lambda t: t.release)):   # stable: ids break ties
        ident, tail, head, first, count, release, duration, tree = t
        end = release + duration
        if duration <= 0 or count < 1:
            found.append(f"transfer {ident} has {count} messages and duration "
                         f"{duration}")
        if release < busy_out[tail]:
            found.append(f"{names[tail]} sends transfer {ident} while another is on")
        if release < busy_in[head]:
            found.append(f"{names[head]} receives transfer {ident} while another is on")
        if end > busy_out[tail]:
            busy_out[tail] = end
        if end > busy_in[head]:
            busy_in[head] = end
        if tail != source:
            mine = held[tail]
            for m in (range(first, first + count) if count != 1 else (first,)):
                got = mine.get(m)
                if got is None or got > release:
                    found.append(f"{names[tail]} forwards message {m} (transfer {ident}) "
                                 "before it has received it")
                    break
        into = held[head]
        if count == 1:
            if first in into:
                found.append(f"{names[head]} receives message {first} twice")
            into[first] = end
        else:
            for m in range(first, first + count):
                if m in into:
                    found.append(f"{names[head]} receives message {m} twice")
                into[m] = end
        key = (tail, head, tree)
        last = streams.get(key, -1)
        if first <= last:
            found.append(f"{names[tail]} sends message {first} of stream {tree} to "
                         f"{names[head]} after message {last}")
        streams[key] = first + count - 1
        if len(found) >= limit:
            return found[:limit]
    found += _link_overloads(plan)
    expected = plan.broadcasts * (len(names) - 1)
    total = sum(len(h) for v, h in enumerate(held) if v != plan.source)
    inside = sum(1 for v, h in enumerate(held) if v != plan.source
                 for m in h if 0 <= m < plan.broadcasts)
    if held[plan.source] or inside != expected or total != expected:
        found.append(f"{total} receptions by non-source nodes, {inside} of them of "
                     f"messages 0..{plan.broadcasts - 1}; expected {expected}"
                     + (" (and the source receives)" if held[plan.source] else ""))
    return found[:limit]


def _link_overloads(plan: Plan) -> list[str]:
    """The shared network links (issue 19) over capacity at some instant: the transfers
    in progress through a link hold c_l / c_arc of it each."""
    platform = plan.platform
    network = getattr(platform, "network", None)
    if network is None:
        return []
    found = []
    for link in network.shared_links():
        arcs = set(network.crossing(link.id))
        changes = []
        for t in plan.transfers:
            arc = (plan.nodes[t.tail], plan.nodes[t.head])
            if arc in arcs:
                share = link.cost / platform.cost(*arc)
                changes += [(t.end, -share), (t.release, share)]
        use = Fraction(0)
        for at, change in sorted(changes):
            use += change
            if use > 1:
                found.append(f"shared link {link.id} over capacity at time "
                             f"{Fraction(at, plan.unit)}")
                break
    return found

