"""What a finite-horizon plan adds to carry a collective (issue 43; ours; proofs/
finite-plan.md, "Collectives"): the roots of its streams, and the rules its transfers
keep.

A collective's plan is a :class:`steady.simulate.plan.Plan` whose ``collective`` is a
:class:`Streams`: per stream (the transfer's last field, a tree of the schedule) its
root, its direction (``"out"``: the root's chunks copied to every compute node;
``"in"``: every compute node's partial of the root's shard, reduced towards the root)
and the switches its edges cross (``routes``, as in the schedule's trees: a transfer
between two compute nodes is one message over that route); per root the chunks the
plan completes, numbered 0..n_r - 1 (a transfer's ``first``).  Switches never send or
receive: they forward inside routes.

:func:`check_streams` is the plan's independent check of a collective (it imports
nothing of the constructors):

* resources -- a transfer of ``count`` chunks over a route lasts count·c_P (c_P the
  route's slowest link) and holds, while it runs, on a one-port platform its sender's
  out-port and its receiver's in-port and c_l / c_P of every link between two switches;
  on a multi-port platform c_l / c_P of every link of the route (no port rule); both:
  c_nl / c_P of every shared network link an arc of the route crosses.  On a
  multi-port platform a transfer may last longer, running at a share count·c_P /
  duration of its route's speed, and then holds each of those parts times its share
  (as :mod:`steady.verify_collective` rules for a schedule's ``duration``); never
  shorter, and on a one-port platform exactly count·c_P.  Every resource stays within
  its capacity 1 at every instant;
* out-streams -- every compute node other than the root receives each chunk of the root
  exactly once, the root never; a node forwards a chunk only after the transfer that
  brought it has ended (in any order of chunks: a transfer names its chunk);
* in-streams -- every compute node other than the root sends its partial of each chunk
  exactly once, the root never; a node sends its partial only after every partial sent
  to it for that chunk has arrived (so the partials form an in-tree towards the root and
  the root's sum counts every node once: each send is later than the ones it adds up,
  so they cannot form a cycle);
* allreduce -- a root sends chunk c out only after every partial of chunk c has reached
  it (the out-streams carry the reduced chunk).

A chunk is complete when its last transfer ends (for an allreduce, its out-stream's).
Linear in the transfers (times the links of their routes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from ..certificate import shared_link_arcs
from ..errors import InputError
from ..schedule_file import COLLECTIVES as KINDS, IN, OUT


@dataclass(frozen=True)
class Stream:
    """A stream of a collective's plan: its ``root`` (node index), ``direction`` and
    ``routes`` ({child node index: (switch name, ...)}, the child end of an edge: the
    receiver out, the sender in)."""

    root: int
    direction: str = OUT
    routes: dict = field(default_factory=dict, hash=False)

    def route(self, nodes, tail: int, head: int) -> tuple:
        child = head if self.direction == OUT else tail
        return (nodes[tail],) + tuple(self.routes.get(child, ())) + (nodes[head],)


@dataclass(frozen=True)
class Streams:
    """The collective a plan serves: ``kind``, ``streams`` (per stream index a
    :class:`Stream`) and ``chunks`` (((root node index, chunks complete), ...), roots in
    node order)."""

    kind: str
    streams: tuple
    chunks: tuple

    @property
    def roots(self) -> dict:
        return dict(self.chunks)

    def to_dict(self, nodes) -> dict:
        return {"kind": self.kind,
                "chunks": {nodes[r]: n for r, n in self.chunks},
                "streams": [_stream_doc(s, nodes) for s in self.streams]}


def _stream_doc(s: Stream, nodes) -> dict:
    doc = {"root": nodes[s.root], "direction": s.direction}
    if s.routes:
        doc["routes"] = {nodes[c]: list(r) for c, r in sorted(s.routes.items())}
    return doc


def streams_from_document(doc, origin: str, nodes, platform) -> Streams:
    """The ``collective`` object of a steady-plan document, every field checked."""
    where = "collective"
    if not isinstance(doc, dict):
        raise InputError(origin, where, "not an object")
    for key in doc:
        if key not in ("kind", "chunks", "streams"):
            raise InputError(origin, f"{where}.{key}", "unknown key")
    kind = doc.get("kind")
    if kind not in KINDS:
        raise InputError(origin, f"{where}.kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    index = {v: i for i, v in enumerate(nodes)}
    switches = set(platform.switches) if platform is not None else set()
    chunks = doc.get("chunks")
    if not isinstance(chunks, dict) or not chunks:
        raise InputError(origin, f"{where}.chunks", "an object {root: chunks} with a root")
    roots = []
    for name, n in chunks.items():
        if name not in index or name in switches:
            raise InputError(origin, f"{where}.chunks", f"{name!r} is not a compute node")
        if type(n) is not int or n < 0:
            raise InputError(origin, f"{where}.chunks.{name}", f"{n!r} is not a whole "
                             "number >= 0")
        roots.append((index[name], n))
    raw = doc.get("streams")
    if not isinstance(raw, list) or not raw:
        raise InputError(origin, f"{where}.streams", "a list of streams")
    streams = []
    for k, s in enumerate(raw):
        at = f"{where}.streams[{k}]"
        if not isinstance(s, dict) or set(s) - {"root", "direction", "routes"}:
            raise InputError(origin, at, "an object with root, direction and routes")
        if s.get("root") not in chunks:
            raise InputError(origin, f"{at}.root", f"{s.get('root')!r} is not a root of "
                             "collective.chunks")
        direction = s.get("direction", OUT)
        if direction not in (OUT, IN):
            raise InputError(origin, f"{at}.direction", f"{direction!r}: out or in")
        routes = s.get("routes", {})
        if not isinstance(routes, dict):
            raise InputError(origin, f"{at}.routes", "not an object")
        table = {}
        for child, via in routes.items():
            if child not in index or not isinstance(via, list) or not all(
                    isinstance(x, str) and x in switches for x in via):
                raise InputError(origin, f"{at}.routes.{child}", "a node's list of "
                                 "switches")
            table[index[child]] = tuple(via)
        streams.append(Stream(index[s["root"]], direction, table))
    return Streams(kind, tuple(streams), tuple(sorted(roots)))


# -- the independent check ---------------------------------------------------------------

def _holds(platform, route, one_port: bool, switches, shared) -> tuple:
    """(c_P, {resource: part}) of a transfer over ``route`` (module docstring), or
    (None, reason) when the route is not one."""
    for a, b in zip(route, route[1:]):
        if not platform.has_link(a, b):
            return None, f"{a}->{b} is not a link of the platform"
    if any(v not in switches for v in route[1:-1]):
        return None, "its route crosses a compute node"
    c = max(platform.cost(a, b) for a, b in zip(route, route[1:]))
    parts: dict = {}
    if one_port:
        parts[("out-port", route[0])] = Fraction(1)
        parts[("in-port", route[-1])] = Fraction(1)
    for a, b in zip(route, route[1:]):
        if not one_port or (a in switches and b in switches):
            key = ("link", f"{a}->{b}")
            parts[key] = parts.get(key, 0) + platform.cost(a, b) / c
        for lid, lc in shared.get((a, b), ()):
            parts[("shared link", lid)] = parts.get(("shared link", lid), 0) + lc / c
    return c, parts


def check_streams(plan, limit: int = 20) -> list[str]:
    """Violations of a collective's plan (at most ``limit``; module docstring)."""
    found: list[str] = []
    names, spec, platform = plan.nodes, plan.collective, plan.platform
    switches = set(platform.switches) if platform is not None else set()
    compute = [v for v, name in enumerate(names) if name not in switches]
    roots = spec.roots
    shared: dict = {}
    if platform is not None:
        for lid, (cost, arcs) in shared_link_arcs(platform).items():
            for arc in arcs:
                shared.setdefault(arc, []).append((lid, cost))
    multi = platform is not None and platform.ports == "multi-port"
    events: dict = {}
    held: dict = {}      # route -> (c_P, parts): routes repeat every period
    got: dict = {}       # (root, chunk, direction, node) -> [end of each reception]
    sent: dict = {}      # (root, chunk, direction, node) -> [start of each send]
    for t in sorted(plan.transfers, key=lambda t: (t.release, t.id)):
        if len(found) >= limit:
            return found
        if not 0 <= t.tree < len(spec.streams):
            found.append(f"transfer {t.id} names stream {t.tree}, which the plan lacks")
            continue
        s = spec.streams[t.tree]
        if names[t.tail] in switches or names[t.head] in switches:
            found.append(f"transfer {t.id} starts or ends at a switch (switches forward "
                         "inside routes only)")
            continue
        if platform is not None:
            route = s.route(names, t.tail, t.head)
            if route not in held:
                held[route] = _holds(platform, route, not multi, switches, shared)
            c, parts = held[route]
            if c is None:
                found.append(f"transfer {t.id}: {parts}")
                continue
            full = t.count * c * plan.unit
            if t.duration != full:
                if t.duration < full or not multi:
                    found.append(f"transfer {t.id} lasts {t.duration} ticks, not {t.count}"
                                 f" x {c} x {plan.unit} (its route's slowest link)"
                                 + ("" if t.duration < full else ": on a one-port "
                                    "platform a transfer runs at its route's speed"))
                else:   # slower than its route: a share of each part
                    share = full / t.duration
                    parts = {key: part * share for key, part in parts.items()}
            for key, part in parts.items():
                events.setdefault(key, []).extend([(t.end, 0, -part, t.id),
                                                   (t.release, 1, part, t.id)])
        for m in t.messages:
            sent.setdefault((s.root, m, s.direction, t.tail), []).append((t.release, t.id))
            got.setdefault((s.root, m, s.direction, t.head), []).append(t.end)
    for key, items in events.items():
        items.sort(key=lambda e: (e[0], e[1]))
        # in whole multiples of 1/d (d: the parts' common denominator): exact, and
        # integer sums are what a plan of 10^5 transfers can afford
        d = math.lcm(*{part.denominator for _, _, part, _ in items})
        use = 0
        for at, _, part, tid in items:
            step = part.numerator * (d // part.denominator)
            use += step
            if step > 0 and use > d:
                found.append(f"{key[0]} {key[1]} over capacity from time "
                             f"{Fraction(at, plan.unit)} (transfer {tid}): "
                             f"{Fraction(use, d)} of it in use")
                break
    directions = {"reduce-scatter": (IN,), "allreduce": (IN, OUT)}.get(spec.kind, (OUT,))
    for r, n in spec.chunks:
        for m in range(n):
            for d in directions:
                found += _chunk(names, compute, r, m, d, got, sent, spec.kind)
            if len(found) >= limit:
                return found[:limit]
    extra = {(r, m) for (r, m, _, _) in got if r not in roots or not 0 <= m < roots[r]}
    if extra:
        r, m = min(extra)
        found.append(f"chunk {m} of {names[r]} is carried but not among the plan's "
                     f"{roots.get(r, 0)} chunks of that root")
    if {(d, r) for r in roots for d in directions} != {
            (s.direction, s.root) for s in spec.streams}:
        found.append(f"the streams' roots and directions are not the {spec.kind}'s")
    return found[:limit]


def _chunk(names, compute, r, m, d, got, sent, kind) -> list[str]:
    """The rules of one chunk ``m`` of root ``r`` in direction ``d``."""
    out = []
    what = f"chunk {m} of {names[r]} ({d})"
    for v in compute:
        received = got.get((r, m, d, v), [])
        sends = sent.get((r, m, d, v), [])
        if d == OUT:
            if v == r:
                if received:
                    out.append(f"{what} comes back to its root")
                if kind == "allreduce" and sends:
                    ready = max(got.get((r, m, IN, r), [0]))
                    if min(s for s, _ in sends) < ready:
                        out.append(f"{what} leaves {names[r]} before its reduction has "
                                   "arrived")
                continue
            if len(received) != 1:
                out.append(f"{names[v]} receives {what} {len(received)} times, not once")
            elif sends and min(s for s, _ in sends) < received[0]:
                out.append(f"{names[v]} forwards {what} before it has received it")
        else:
            if v == r:
                if sends:
                    out.append(f"the root {names[r]} sends its own {what}")
                if not received and len(compute) > 1:
                    out.append(f"no partial of {what} reaches its root")
                continue
            if len(sends) != 1:
                out.append(f"{names[v]} sends its partial of {what} {len(sends)} times, "
                           "not once")
            elif received and sends[0][0] < max(received):
                out.append(f"{names[v]} sends its partial of {what} before every partial "
                           "sent to it has arrived")
    return out


def completion(plan) -> dict:
    """{root node index: [tick at which chunk c is complete, for c = 0..n_r - 1]}: its
    last transfer's end (an allreduce's chunk: its out-stream's)."""
    spec = plan.collective
    at = {r: [0] * n for r, n in spec.chunks}
    for t in plan.transfers:
        r = spec.streams[t.tree].root if 0 <= t.tree < len(spec.streams) else None
        if r in at:
            for m in t.messages:
                if 0 <= m < len(at[r]):
                    at[r][m] = max(at[r][m], t.end)
    return at
