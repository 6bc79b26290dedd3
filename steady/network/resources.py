"""The resources a transfer holds while it runs (ours; issue 43, generalising the
one-port rule of 002 §2 and the shared links of issue 19; proofs/collectives.md, "The
resource rule").

A transfer sends messages over a *route*: the nodes its data visits, sender first,
switches inside, receiver last (a route of one link for a broadcast tree's edge).  It
runs at the route's slowest link, c_P per message, and while it runs it holds a part of
some *resources*, each of capacity 1:

* one-port (002 §2, the default): its sender's out-port ``("out", u)`` and its
  receiver's in-port ``("in", v)`` whole (part 1; switches have no port), and every
  link between two switches ``("arc", (a, b))`` for c_l / c_P (the link serves it at
  the route's speed; those links are shared by many senders);
* multi-port: every link of the route ``("arc", (a, b))`` for c_l / c_P, no port;
* both, with a ``network`` section: every shared network link ``("link", id)`` that the
  route of one of its arcs crosses, for c_nl / c_P (summed when several arcs cross it).

On a multi-port platform a transfer may also run slower than its route, for a
``duration`` longer than its messages at c_P (docs/formats.md, proofs/collectives.md §16):
it then holds every part above times its *share* (messages x c_P) / duration, as
concurrent channels share a link.  On a one-port platform a transfer runs at its route's
speed: its ports are held whole whatever its speed, so running slower gains nothing
there, and the caps of proofs/collectives.md §9 and §15 rely on it.

At every instant the transfers in progress hold at most the capacity of every resource.
That is the rule the list schedule places by, :meth:`Timetable.check` and the plan
check verify, and the unroller keeps; the capacity rows of the LP (:mod:`steady
.throughput.fabric`) are its time averages: a row's load per time unit is the time its
resource is held.  :mod:`steady.verify` restates it independently.

:func:`integer_parts` turns parts into integers per resource (the resource's capacity
becomes the lcm of the denominators), for placements that add and compare fast;
:func:`has_room` tells whether a part more fits beside those placed.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

Route = tuple  # (sender, switch, ..., receiver)


def route_cost(platform, route: Route) -> Fraction:
    """c_P: the time per message of a route, its slowest link's cost (KeyError when a
    hop is not a link)."""
    return max(platform.cost(a, b) for a, b in zip(route, route[1:]))


class TransferModel:
    """The resource rule of ``platform`` (module docstring): per route, its cost and the
    parts of the resources it holds; remembered per route (platforms are immutable)."""

    def __init__(self, platform):
        self.platform = platform
        self.ports = getattr(platform, "ports", "one-port") != "multi-port"
        self.switches = frozenset(getattr(platform, "switches", ()))
        network = getattr(platform, "network", None)
        self._shared = {}
        if network is not None:
            for link in network.shared_links():
                for arc in network.crossing(link.id):
                    self._shared.setdefault(arc, []).append((link.id, link.cost))
        self._cache: dict = {}

    def cost(self, route: Route) -> Fraction:
        return self.holds(route)[0]

    @property
    def shares(self) -> bool:
        """Whether a transfer may run at a share of its route's speed (multi-port)."""
        return not self.ports

    def held(self, route: Route, share: Fraction = Fraction(1)) -> tuple:
        """((resource, part), ...) of a transfer over ``route`` running at ``share``
        (0 < share <= 1, below 1 only where :attr:`shares`) of the route's speed."""
        parts = self.holds(route)[1]
        if share == 1:
            return parts
        if not self.shares or not 0 < share < 1:
            raise ValueError(f"a transfer over {'->'.join(route)} cannot run at "
                             f"{share} of its speed on this platform")
        return tuple((key, part * share) for key, part in parts)

    def holds(self, route: Route) -> tuple[Fraction, tuple]:
        """(c_P, ((resource, part), ...)) of a route, parts exact and in (0, 1]."""
        route = tuple(route)
        found = self._cache.get(route)
        if found is None:
            found = self._cache[route] = self._holds(route)
        return found

    def _holds(self, route: Route):
        platform = self.platform
        c = route_cost(platform, route)
        parts: dict = {}
        if self.ports:
            parts[("out", route[0])] = Fraction(1)
            parts[("in", route[-1])] = Fraction(1)
        for a, b in zip(route, route[1:]):
            if not self.ports or (a in self.switches and b in self.switches):
                key = ("arc", (a, b))
                parts[key] = parts.get(key, 0) + platform.cost(a, b) / c
            for lid, lc in self._shared.get((a, b), ()):
                key = ("link", lid)
                parts[key] = parts.get(key, 0) + lc / c
        for key, part in parts.items():
            if part > 1:
                raise ValueError(f"a transfer over {'->'.join(route)} needs {part} of "
                                 f"{resource_words(key)}: more than its capacity")
        return c, tuple(parts.items())

    def loads(self, counts) -> dict:
        """{resource: busy time per period} of ``counts`` {route: messages per period}:
        each message holds its parts for c_P.  A period is never shorter than the
        largest (every resource has capacity 1)."""
        loads: dict = {}
        for route, k in counts.items():
            c, parts = self.holds(route)
            for key, part in parts:
                loads[key] = loads.get(key, Fraction(0)) + k * c * part
        return loads


def whole_holds(model: TransferModel, counts) -> tuple[dict, dict]:
    """({l: time}, {(l, R): time}) of ``counts`` {route: messages}: the time the
    transfers holding resource l whole run, and the load on resource R of those holding
    l only in part, and for R = :data:`MAJORITY` the time of those holding more than
    half of l in part (the terms of :func:`whole_hold_rows`)."""
    whole: dict = {}
    partial: dict = {}
    for route, k in counts.items():
        c, parts = model.holds(route)
        for l, part in parts:
            if part == 1:
                whole[l] = whole.get(l, 0) + k * c
            else:
                for res, p in parts:
                    partial[(l, res)] = partial.get((l, res), 0) + k * c * p
                if 2 * part > 1:
                    partial[(l, MAJORITY)] = partial.get((l, MAJORITY), 0) + k * c
    return whole, partial


#: The second name of the row (l, MAJORITY) of :func:`whole_hold_rows`: the time of the
#: transfers holding more than half of l (no resource has this name).
MAJORITY = "more than half"


def whole_hold_rows(whole: dict, partial: dict) -> dict:
    """{(l, R): W_l + P_l(R)}: no period under the resource rule is shorter than any
    of them (ours; proofs/collectives.md, "Whole holds").  A transfer holding l whole
    runs alone on l, so l's whole holders and its partial holders never overlap: the
    period is at least W_l (their whole holders' time) plus the time during which some
    partial holder of l runs, and that time is at least P_l(R), the load those put on
    any resource R of capacity 1.  The row (l, l) is l's load (the bound of
    :meth:`TransferModel.loads`); the others are larger where slow routes hold a
    fast link in part all the time and fast routes need it whole.  The row (l,
    :data:`MAJORITY`) is W_l plus the time of the transfers holding more than half of l
    in part: any two of those together hold more than l, so they never overlap, nor
    with a whole holder (a one-port cluster: routes holding 4/5 of a switch link run
    one at a time, 23 % above the link's load)."""
    rows = {(l, l): t for l, t in whole.items()}
    for (l, res), t in partial.items():
        rows[(l, res)] = whole.get(l, 0) + t
    return rows


def whole_hold_bound(model: TransferModel, counts) -> Fraction:
    """The largest of :func:`whole_hold_rows` of ``counts`` {route: messages per
    period}: a lower bound on the period of any timetable of them, at least the largest
    load."""
    return max(whole_hold_rows(*whole_holds(model, counts)).values())


@lru_cache(maxsize=16)
def transfer_model(platform) -> TransferModel:
    """The :class:`TransferModel` of a platform (remembered: every timetable, placement
    and plan check of a platform shares it)."""
    return TransferModel(platform)


def alternative_routes(platform, route: Route, model: TransferModel | None = None,
                       longer: int = 2, most: int = 16) -> list:
    """Up to ``most`` routes between the ends of ``route`` through switches, at most
    ``longer`` hops longer, none slower than it (each link's cost at most c_P), the
    shortest first (breadth first, links in the platform's order); ``route`` itself
    is among them."""
    model = model or transfer_model(platform)
    cost = model.cost(route)
    sender, receiver = route[0], route[-1]
    longest = len(route) + longer
    switches = frozenset(platform.switches)
    found = []
    layer = [(sender,)]
    while layer and len(found) < most:
        following = []
        for path in layer:
            for link in platform.out_links(path[-1]):
                v = link.head
                if link.cost > cost or v in path:
                    continue
                if v == receiver:
                    found.append(path + (v,))
                elif v in switches and len(path) + 1 < longest:
                    following.append(path + (v,))
        layer = following
    found = found[:most]
    if tuple(route) not in found:
        found.insert(0, tuple(route))
    return found


def integer_parts(holds: dict) -> tuple[dict, dict]:
    """{key: [(resource, part)]} with exact parts -> ({key: [(resource, int part)]},
    {resource: int capacity}): each resource's parts times the least common denominator
    of its parts, which becomes its capacity."""
    scale: dict = {}
    for parts in holds.values():
        for res, part in parts:
            scale[res] = math.lcm(scale.get(res, 1), Fraction(part).denominator)
    return ({key: [(res, int(part * scale[res])) for res, part in parts]
             for key, parts in holds.items()}, scale)


def has_room(intervals, start: int, end: int, part: int, capacity: int) -> bool:
    """Whether ``part`` more of a resource of integer ``capacity`` (:func:`integer_parts`)
    fits during [start, end) beside ``intervals`` [(start, end, part)] already placed:
    the use is checked at every instant where it can grow (the window's start and the
    starts inside it)."""
    inside = [(s, e, p) for s, e, p in intervals if s < end and e > start]
    for t in {start} | {s for s, _, _ in inside if s > start}:
        if sum(p for s, e, p in inside if s <= t < e) + part > capacity:
            return False
    return True


def resource_words(key) -> str:
    kind, what = key
    if kind in ("out", "in"):
        return f"the {kind}-port of {what}"
    if kind == "arc":
        return f"link {what[0]}->{what[1]}"
    return f"shared link {what}"
