"""The physical network under a platform's arcs: the optional ``network`` section of
steady-platform v1 (docs/formats.md; ours, issue 19).

The one-port model of seed 002 §2 bounds what each node sends and receives; it says
nothing about the wires between them.  On a real cluster or grid, a backbone or a switch
uplink is *one* capacity shared by every route that crosses it (seed 004 §3 meets the
same fact on Ethernet switches: two communications "have contention" when their paths
share an edge).  The network section describes those wires:

* ``links``: physical links ``{"id", "cost"[, "sharing"]}``; ``cost`` is the time one
  unit-size message takes on the link alone (1 / bandwidth), ``sharing`` is ``"shared"``
  (the default: every transfer crossing the link consumes its capacity, times add up) or
  ``"fatpipe"`` (the link bounds each transfer alone, not their sum);
* ``routes``: ``{"from", "to", "links": [id, ...]}``: the links an arc's messages travel
  over.  An arc without a route crosses no network link.

An arc is never faster than a link it crosses (a single transfer goes at most at the
slowest link's speed), so every route link must cost at most its arc's cost: a fatpipe
therefore never binds beyond the arc's own cost, and only shared links add constraints
(the link rows of :mod:`steady.network.rows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Iterable, Mapping

from ..errors import InputError
from ..numbers import document_number, format_exact

SHARED = "shared"
FATPIPE = "fatpipe"
SHARINGS = (SHARED, FATPIPE)
_SECTION_KEYS = {"links", "routes"}
_LINK_KEYS = {"id", "cost", "sharing"}
_ROUTE_KEYS = {"from", "to", "links"}

#: An arc (tail, head) of a platform: the one type every package uses (re-exported by
#: steady.platform for the packages above the network stage).
Arc = tuple[str, str]


@dataclass(frozen=True)
class NetworkLink:
    """A physical link: ``cost`` time units per unit-size message, ``sharing`` policy."""

    id: str
    cost: Fraction
    sharing: str = SHARED

    @property
    def shared(self) -> bool:
        return self.sharing == SHARED

    def to_dict(self) -> dict:
        doc = {"id": self.id, "cost": format_exact(self.cost)}
        if self.sharing != SHARED:
            doc["sharing"] = self.sharing
        return doc


class Network:
    """An immutable network section: links by id, and the route of each arc.

    ``routes`` maps an arc (tail, head) to the tuple of link ids it crosses, in order.
    Validation against the platform's arcs is :meth:`check` (called by Platform)."""

    __slots__ = ("links", "routes", "_by_id", "_crossing")

    def __init__(self, links: Iterable[NetworkLink], routes: Mapping[Arc, Iterable[str]],
                 origin: str = "<network>"):
        links = tuple(links)
        by_id: dict[str, NetworkLink] = {}
        for i, link in enumerate(links):
            if not isinstance(link, NetworkLink):
                raise InputError(origin, f"network.links[{i}]", "not a NetworkLink")
            if link.id in by_id:
                raise InputError(origin, f"network.links[{i}]", f"duplicate link id "
                                 f"{link.id!r}")
            if link.sharing not in SHARINGS:
                raise InputError(origin, f"network.links[{i}] ({link.id})", "sharing must "
                                 f"be 'shared' or 'fatpipe', got {link.sharing!r}")
            if not (isinstance(link.cost, Fraction) and link.cost > 0):
                raise InputError(origin, f"network.links[{i}] ({link.id}).cost",
                                 "must be an exact number > 0")
            by_id[link.id] = link
        table: dict[Arc, tuple[str, ...]] = {}
        for arc, ids in routes.items():
            ids = tuple(ids)
            where = f"network route {arc[0]}->{arc[1]}"
            for lid in ids:
                if lid not in by_id:
                    raise InputError(origin, where, f"unknown link {lid!r}")
            if len(set(ids)) != len(ids):
                twice = next(x for x in ids if ids.count(x) > 1)
                raise InputError(origin, where, f"link {twice!r} appears twice")
            table[tuple(arc)] = ids
        crossing: dict[str, list[Arc]] = {}
        for arc, ids in table.items():
            for lid in ids:
                crossing.setdefault(lid, []).append(arc)
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "routes", MappingProxyType(table))
        object.__setattr__(self, "_by_id", MappingProxyType(by_id))
        object.__setattr__(self, "_crossing", MappingProxyType(
            {lid: tuple(arcs) for lid, arcs in crossing.items()}))

    def __setattr__(self, key, value):
        raise AttributeError("Network is immutable")

    # -- queries -----------------------------------------------------------------
    def link(self, lid: str) -> NetworkLink:
        return self._by_id[lid]

    def route(self, tail: str, head: str) -> tuple[str, ...]:
        """The link ids the arc tail -> head crosses (empty: none)."""
        return self.routes.get((tail, head), ())

    def crossing(self, lid: str) -> tuple[Arc, ...]:
        """The arcs whose route crosses link ``lid``."""
        return self._crossing.get(lid, ())

    def shared_links(self) -> tuple[NetworkLink, ...]:
        """The shared links some route crosses: the ones that add capacity rows."""
        return tuple(l for l in self.links if l.shared and l.id in self._crossing)

    def shared_route(self, tail: str, head: str) -> tuple[NetworkLink, ...]:
        """The shared links on the route of tail -> head."""
        return tuple(self._by_id[lid] for lid in self.route(tail, head)
                     if self._by_id[lid].shared)

    # -- validation against the platform -----------------------------------------
    def check(self, platform, origin: str) -> None:
        """Every route is the route of an arc of ``platform``, and no route link costs
        more than its arc (an arc is never faster than a link it crosses)."""
        for (tail, head), ids in self.routes.items():
            where = f"network route {tail}->{head}"
            if not platform.has_link(tail, head):
                raise InputError(origin, where, "not a link (arc) of the platform")
            cost = platform.cost(tail, head)
            for lid in ids:
                link = self._by_id[lid]
                if link.cost > cost:
                    raise InputError(origin, where, f"crosses link {lid!r} of cost "
                                     f"{format_exact(link.cost)} > the arc's cost "
                                     f"{format_exact(cost)}: an arc is never faster than "
                                     "a link it crosses")

    # -- derived networks ------------------------------------------------------------
    def restricted(self, arcs) -> "Network":
        """The routes of ``arcs`` only (the links are kept)."""
        keep = set(arcs)
        return Network(self.links, {a: r for a, r in self.routes.items() if a in keep})

    def scaled(self, factor: Fraction) -> "Network":
        """Every link cost multiplied by ``factor`` (as :meth:`Platform.scale_costs`)."""
        return Network((NetworkLink(l.id, l.cost * factor, l.sharing) for l in self.links),
                       self.routes)

    def relabel(self, mapping: Mapping[str, str]) -> "Network":
        m = lambda v: mapping.get(v, v)  # noqa: E731
        return Network(self.links, {(m(u), m(v)): r for (u, v), r in self.routes.items()})

    def __eq__(self, other):
        if not isinstance(other, Network):
            return NotImplemented
        return set(self.links) == set(other.links) and dict(self.routes) == dict(other.routes)

    def __hash__(self):
        return hash(frozenset(self.links))

    def __repr__(self):
        return (f"Network({len(self.links)} links, {len(self.shared_links())} shared and "
                f"crossed, {len(self.routes)} routes)")

    # -- documents ---------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"links": [l.to_dict() for l in self.links],
                "routes": [{"from": u, "to": v, "links": list(ids)}
                           for (u, v), ids in self.routes.items()]}

    @classmethod
    def from_dict(cls, doc, origin: str) -> "Network":
        """The ``network`` section of a steady-platform document."""
        if not isinstance(doc, dict):
            raise InputError(origin, "network", "must be an object with 'links' and 'routes'")
        unknown = sorted(set(doc) - _SECTION_KEYS)
        if unknown:
            raise InputError(origin, f"network.{unknown[0]}", "unknown key (allowed: links, "
                             "routes)")
        raw_links = doc.get("links", [])
        raw_routes = doc.get("routes", [])
        for key, value in (("links", raw_links), ("routes", raw_routes)):
            if not isinstance(value, list):
                raise InputError(origin, f"network.{key}", "must be a list")
        links = [_link(entry, origin, i) for i, entry in enumerate(raw_links)]
        routes: dict[Arc, list[str]] = {}
        for i, entry in enumerate(raw_routes):
            arc, ids = _route(entry, origin, i)
            if arc in routes:
                raise InputError(origin, f"network.routes[{i}]", f"second route for "
                                 f"{arc[0]}->{arc[1]}")
            routes[arc] = ids
        return cls(links, routes, origin)


def _object(entry, origin, element, known, what) -> dict:
    if not isinstance(entry, dict):
        raise InputError(origin, element, f"{what} is an object")
    unknown = sorted(set(entry) - known)
    if unknown:
        raise InputError(origin, element, f"unknown key {unknown[0]!r} (allowed: "
                         + ", ".join(sorted(known)) + ")")
    return entry


def _text(value, origin, element) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(origin, element, f"must be a non-empty string, got {value!r}")
    return value


def _link(entry, origin: str, i: int) -> NetworkLink:
    element = f"network.links[{i}]"
    entry = _object(entry, origin, element, _LINK_KEYS, "a network link")
    for key in ("id", "cost"):
        if key not in entry:
            raise InputError(origin, element, f"missing {key!r}")
    lid = _text(entry["id"], origin, f"{element}.id")
    cost = document_number(entry["cost"], origin, f"{element} ({lid}).cost")
    sharing = entry.get("sharing", SHARED)
    if sharing not in SHARINGS:
        raise InputError(origin, f"{element} ({lid}).sharing", "must be 'shared' or "
                         f"'fatpipe', got {sharing!r}")
    return NetworkLink(lid, cost, sharing)


def _route(entry, origin: str, i: int) -> tuple[Arc, list[str]]:
    element = f"network.routes[{i}]"
    entry = _object(entry, origin, element, _ROUTE_KEYS, "a route")
    for key in ("from", "to", "links"):
        if key not in entry:
            raise InputError(origin, element, f"missing {key!r}")
    tail = _text(entry["from"], origin, f"{element}.from")
    head = _text(entry["to"], origin, f"{element}.to")
    ids = entry["links"]
    if not isinstance(ids, list):
        raise InputError(origin, f"{element}.links", "must be a list of link ids")
    return (tail, head), [_text(x, origin, f"{element}.links[{j}]") for j, x in enumerate(ids)]
