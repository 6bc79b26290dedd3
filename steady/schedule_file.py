"""The steady-schedule file format (docs/formats.md), read and written exactly.  No
construction logic lives here.

Version 1 is the compact periodic schedule of seed 002 §5.4.2: synchronous steps.
Version 2 (timed) has the same keys but a timetable instead of steps: every transfer has
its own ``start`` in the period (:class:`TimedTransfer`).  Both are read; a version 1
schedule converts to version 2 with :func:`timed` (each step's transfers start at the
step's start, those on one link one after the other).

A schedule is a platform, a list of weighted broadcast trees and a list of steps (the
matchings of 002 Thm 6); each step has a duration and transfers "send ``messages``
messages of tree ``tree`` over the link ``tail -> head``".  Its size is polynomial in the
platform: nothing is expanded in proportion to the period (002 §4.3 note: ``log T`` is
polynomial, ``T`` is not), so a period of 10^40 time units costs 41 digits.

Numbers are exact.  Throughput, period and durations are written as ``"p/q"`` strings
(read from ints, ``"p/q"`` or decimal text); counts and weights are integers, written as
JSON integers up to 2^53 and as decimal strings above (so that JavaScript-style readers
cannot round them); both spellings are read.

Reading is strict inside the objects this module knows (an unknown key in a step, a
transfer, a tree or the certificate is an error naming it) and lenient at the top level:
unknown top-level keys are kept in :attr:`Schedule.extra` and written back unchanged.
Whether the schedule is *valid* is not decided here but by :mod:`steady.verify`; this
module only rejects documents that cannot be read as a schedule at all (wrong format or
version, wrong types, missing keys), raising :class:`~steady.errors.InputError` with the
file, the element (e.g. ``steps[3].transfers[1].messages``) and the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping

from .errors import InputError
from .fileio import atomic_write_text, check_version, load_json
from .numbers import format_exact, int_text, many_digits, parse_exact, parse_integer
from .platform import Platform

FORMAT = "steady-schedule"
VERSION = 1
TIMED = 2  # the version of timed schedules (a timetable instead of steps)
#: Integers beyond this are written as strings: IEEE doubles hold every integer up to 2^53.
MAX_JSON_INT = 2 ** 53

_TOP_KEYS = ("format", "version", "platform", "throughput", "period",
             "messages_per_period", "trees", "steps", "certificate", "collective")
_REQUIRED = ("platform", "throughput", "period", "messages_per_period", "trees")
_TREE_KEYS = {"weight", "edges", "root", "direction", "routes"}
_STEP_KEYS = {"duration", "transfers"}
_TRANSFER_KEYS = {"from", "to", "tree", "messages"}
_TIMED_TRANSFER_KEYS = _TRANSFER_KEYS | {"start", "duration"}
_CERTIFICATE_KEYS = {"out_prices", "in_prices", "min_tree_cost", "scale", "min_flow",
                     "link_prices"}
#: The collectives a schedule may serve (issue 43) and their keys.
COLLECTIVES = ("broadcast", "allgather", "reduce-scatter", "allreduce")
_COLLECTIVE_KEYS = {"kind", "sources", "rates"}
_FABRIC_CERTIFICATE_KEYS = {"prices", "root_costs", "tree_bounds", "symmetry", "cut"}
#: Tree directions: "out" (a root's data to every compute node), "in" (every compute
#: node's data, reduced where streams meet, to the root: reduce-scatter).
OUT, IN = "out", "in"
# -- the objects ------------------------------------------------------------------

@dataclass(frozen=True)
class Transfer:
    """``messages`` messages of tree number ``tree`` sent over the link tail -> head."""

    tail: str
    head: str
    tree: int
    messages: int

    @property
    def arc(self) -> tuple[str, str]:
        return (self.tail, self.head)

    def __repr__(self):
        return f"Transfer({self.tail!r}, {self.head!r}, {self.tree!r}, {self.messages!r})"

    def _repr_pretty_(self, p, cycle):  # hypothesis and IPython print the repr
        p.text(repr(self))

    def to_dict(self) -> dict:
        return {"from": self.tail, "to": self.head, "tree": _int_out(self.tree),
                "messages": _int_out(self.messages)}


@dataclass(frozen=True)
class TimedTransfer:
    """Version 2: ``messages`` messages of tree ``tree`` over tail -> head, holding the
    sender's out-port and the receiver's in-port during [start, start + messages x cost)
    of every period.  ``duration`` (None: messages x cost, the route's speed) is set
    only for a transfer that runs slower than its route on a multi-port platform,
    holding a share of its links (issue 43; docs/formats.md)."""

    tail: str
    head: str
    tree: int
    messages: int
    start: Fraction
    duration: Fraction | None = None

    def __post_init__(self):
        if isinstance(self.start, int) and not isinstance(self.start, bool):
            object.__setattr__(self, "start", Fraction(self.start))

    @property
    def arc(self) -> tuple[str, str]:
        return (self.tail, self.head)

    def __repr__(self):
        extra = "" if self.duration is None else f", duration={_repr(self.duration)}"
        return (f"TimedTransfer({self.tail!r}, {self.head!r}, {self.tree!r}, "
                f"{self.messages!r}, {_repr(self.start)}{extra})")

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        out = {"from": self.tail, "to": self.head, "tree": _int_out(self.tree),
               "messages": _int_out(self.messages), "start": format_exact(self.start)}
        if self.duration is not None:
            out["duration"] = format_exact(self.duration)
        return out


@dataclass(frozen=True)
class Step:
    """One matching of 002 Thm 6, run for ``duration`` time units."""

    duration: Fraction
    transfers: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "transfers", tuple(self.transfers))
        if isinstance(self.duration, int) and not isinstance(self.duration, bool):
            object.__setattr__(self, "duration", Fraction(self.duration))

    def __repr__(self):
        return f"Step({_repr(self.duration)}, {list(self.transfers)!r})"

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        return {"duration": format_exact(self.duration),
                "transfers": [t.to_dict() for t in self.transfers]}


@dataclass(frozen=True)
class TreeEntry:
    """A tree T_l of weight λ_l (messages per period): ``edges`` are (sender, receiver)
    pairs in the direction the data flows -- (parent, child) for a broadcast tree.

    Collectives (issue 43) add three optional facts: ``root`` (None: the platform's
    source), ``direction`` (``"out"``, the root's data flowing to every compute node, or
    ``"in"``, every compute node's data flowing to the root, reduced where streams meet:
    its edges run child -> parent) and ``routes`` ({child: (switch, ...)}: the switches
    the edge into or out of ``child`` crosses, in the data's order; an edge without one
    is a link).  A tree edge through switches is one transfer between its two compute
    ends."""

    weight: int
    edges: tuple = ()
    root: str | None = None
    direction: str = OUT
    routes: Mapping = field(default_factory=dict, hash=False)

    def __post_init__(self):
        object.__setattr__(self, "edges", tuple(tuple(e) for e in self.edges))
        object.__setattr__(self, "routes", MappingProxyType(
            {c: tuple(r) for c, r in dict(self.routes).items()}))

    @classmethod
    def from_parent(cls, parent: Mapping[str, str], weight: int, root: str | None = None,
                    direction: str = OUT, routes: Mapping | None = None) -> "TreeEntry":
        """From a ``{child: parent}`` map (the form used by the rest of steady)."""
        edges = tuple((p, c) if direction != IN else (c, p) for c, p in parent.items())
        return cls(weight, edges, root, direction, routes or {})

    @property
    def collective(self) -> bool:
        """Whether the tree says more than a broadcast tree from the source does."""
        return self.root is not None or self.direction != OUT or bool(self.routes)

    @property
    def parent(self) -> dict[str, str]:
        """``{child: parent}`` (the last edge wins if a child has two parents)."""
        if self.direction == IN:
            return {c: p for c, p in self.edges}
        return {c: p for p, c in self.edges}

    def child_of(self, edge) -> str:
        """The child end of an edge (sender, receiver)."""
        return edge[0] if self.direction == IN else edge[1]

    def route(self, edge) -> tuple:
        """The nodes the edge (sender, receiver) visits, sender first."""
        return (edge[0],) + tuple(self.routes.get(self.child_of(edge), ())) + (edge[1],)

    def __repr__(self):
        extra = ""
        if self.root is not None:
            extra += f", root={self.root!r}"
        if self.direction != OUT:
            extra += f", direction={self.direction!r}"
        if self.routes:
            extra += f", routes={dict(self.routes)!r}"
        return f"TreeEntry({self.weight!r}, {list(self.edges)!r}{extra})"

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        doc = {"weight": _int_out(self.weight)}
        if self.root is not None:
            doc["root"] = self.root
        if self.direction != OUT:
            doc["direction"] = self.direction
        doc["edges"] = [[p, c] for p, c in self.edges]
        if self.routes:
            doc["routes"] = {c: list(r) for c, r in self.routes.items()}
        return doc


@dataclass(frozen=True)
class PriceCertificate:
    """Port prices proving that the throughput is optimal (proofs/certificate.md): prices
    >= 0 summing to the throughput under which every spanning arborescence rooted at the
    source costs >= 1 with weights c_jk (y_j^out + y_k^in).

    ``min_tree_cost`` is an optional claim (checked by :mod:`steady.verify` when given);
    ``scale`` and ``min_flow`` describe the LP's primal rates, which a schedule does not
    carry: they are read and written back, never trusted.  ``link_prices`` (link id ->
    price) are the prices of the shared network links of the platform (issue 19): they
    join the sum and add z_l c_l to every arc whose route crosses link l.
    """

    out_prices: Mapping[str, Fraction] = field(default_factory=dict, hash=False)
    in_prices: Mapping[str, Fraction] = field(default_factory=dict, hash=False)
    min_tree_cost: Fraction | None = None
    scale: int | None = None
    min_flow: Fraction | None = None
    link_prices: Mapping[str, Fraction] = field(default_factory=dict, hash=False)

    def __post_init__(self):
        for name in ("out_prices", "in_prices", "link_prices"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @classmethod
    def of(cls, certificate) -> "PriceCertificate":
        """The port prices of an optimum's certificate (any object with ``out_prices``
        and ``in_prices``, such as :class:`steady.throughput.Certificate`): the one
        conversion from the solver's proof to the file's."""
        return cls(dict(certificate.out_prices), dict(certificate.in_prices),
                   link_prices={l: z for l, z in getattr(certificate, "link_prices",
                                                         {}).items() if z})

    def __repr__(self):
        args = [_mapping_repr(self.out_prices), _mapping_repr(self.in_prices)]
        args += [f"{k}={_repr(getattr(self, k))}" for k in ("min_tree_cost", "scale",
                                                            "min_flow")
                 if getattr(self, k) is not None]
        if self.link_prices:
            args.append(f"link_prices={_mapping_repr(self.link_prices)}")
        return f"PriceCertificate({', '.join(args)})"

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        doc = {"out_prices": {v: format_exact(p) for v, p in self.out_prices.items()},
               "in_prices": {v: format_exact(p) for v, p in self.in_prices.items()}}
        if self.min_tree_cost is not None:
            doc["min_tree_cost"] = format_exact(self.min_tree_cost)
        if self.scale is not None:
            doc["scale"] = _int_out(self.scale)
        if self.min_flow is not None:
            doc["min_flow"] = format_exact(self.min_flow)
        if self.link_prices:
            doc["link_prices"] = {l: format_exact(z) for l, z in self.link_prices.items()}
        return doc


@dataclass(frozen=True)
class CollectiveSpec:
    """Which collective a schedule serves (issue 43): ``kind`` (one of
    :data:`COLLECTIVES`); a broadcast's ``sources`` (None: the platform's source) and
    their relative ``rates`` (None: all 1).  The roots follow: every compute node an
    "out" root (allgather), an "in" root (reduce-scatter) or both (allreduce)."""

    kind: str
    sources: tuple | None = None
    rates: tuple | None = None

    def __post_init__(self):
        for name in ("sources", "rates"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value))

    def roots(self, platform) -> dict:
        """{(node, direction): relative rate} on ``platform`` (no check: the checker and
        the constructors validate)."""
        compute = [v for v in platform.nodes if v not in platform.switches]
        if self.kind == "broadcast":
            sources = self.sources or (platform.source,)
            rates = self.rates or (Fraction(1),) * len(sources)
            return {(v, OUT): Fraction(r) for v, r in zip(sources, rates)}
        directions = {"allgather": (OUT,), "reduce-scatter": (IN,),
                      "allreduce": (IN, OUT)}.get(self.kind, ())
        return {(v, d): Fraction(1) for v in compute for d in directions}

    def to_dict(self) -> dict:
        doc = {"kind": self.kind}
        if self.sources is not None:
            doc["sources"] = list(self.sources)
        if self.rates is not None:
            doc["rates"] = [format_exact(r) for r in self.rates]
        return doc


@dataclass(frozen=True)
class FabricCut:
    """A cut that binds (a collective certificate's second proof): the node set
    ``side``, the bandwidth ``capacity`` of the links leaving it (``direction`` "out")
    or entering it ("in"), and ``share`` (proofs/collectives.md §6-7)."""

    side: frozenset
    direction: str
    capacity: Fraction
    share: Fraction

    @property
    def bound(self) -> Fraction:
        return self.capacity / self.share

    def to_dict(self) -> dict:
        return {"side": sorted(self.side), "direction": self.direction,
                "capacity": format_exact(self.capacity), "share": format_exact(self.share)}


@dataclass(frozen=True)
class FabricCertificate:
    """The certificate of a collective optimum, as a schedule carries it
    (proofs/collectives.md, weak duality): ``prices`` {row: y >= 0} over the capacity
    rows -- ("out", v), ("in", v) ports of the one-port model, ("arc", (u, v)) links,
    ("link", id) shared network links --; ``root_costs`` {(root, direction): w_r};
    ``tree_bounds`` {(root, direction): ((members, z), ...)} (Edmonds' dual family of a
    root, one root per orbit under ``symmetry``); ``symmetry`` the generators
    ({node: image}) the bounds rely on; ``cut`` a :class:`FabricCut` or None.  Every tree
    of root r costs >= w_r under the prices, so every schedule's rate per root is at most
    sum(y) / sum(ρ_r·w_r) (checked by :mod:`steady.verify`, not here)."""

    prices: Mapping = field(default_factory=dict, hash=False)
    root_costs: Mapping = field(default_factory=dict, hash=False)
    tree_bounds: Mapping = field(default_factory=dict, hash=False)
    symmetry: tuple = ()
    cut: FabricCut | None = None

    def __post_init__(self):
        object.__setattr__(self, "prices", MappingProxyType(dict(self.prices)))
        object.__setattr__(self, "root_costs", MappingProxyType(dict(self.root_costs)))
        object.__setattr__(self, "tree_bounds", MappingProxyType(
            {r: tuple((frozenset(m), z) for m, z in family)
             for r, family in dict(self.tree_bounds).items()}))
        object.__setattr__(self, "symmetry", tuple(dict(g) for g in self.symmetry))

    @classmethod
    def of(cls, certificate) -> "FabricCertificate":
        """From a :class:`steady.throughput.CollectiveCertificate` (any object with its
        attributes): the one conversion from the solver's proof to the file's."""
        cut = certificate.cut
        if cut is not None:
            cut = FabricCut(frozenset(cut.side), cut.direction, Fraction(cut.capacity),
                            Fraction(cut.share))
        return cls({k: p for k, p in certificate.prices.items() if p},
                   dict(certificate.root_costs), dict(certificate.tree_bounds),
                   tuple(certificate.symmetry), cut)

    @property
    def price_sum(self) -> Fraction:
        return sum(self.prices.values(), Fraction(0))

    def __repr__(self):
        return (f"FabricCertificate({dict(self.prices)!r}, {dict(self.root_costs)!r}, "
                f"{dict(self.tree_bounds)!r}, {self.symmetry!r}, {self.cut!r})")

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        doc = {"prices": [dict(_row_document(key), price=format_exact(p))
                          for key, p in self.prices.items()],
               "root_costs": [{"root": r, "direction": d, "w": format_exact(w)}
                              for (r, d), w in self.root_costs.items()],
               "tree_bounds": [{"root": r, "direction": d,
                                "sets": [{"members": sorted(m), "z": format_exact(z)}
                                         for m, z in family]}
                               for (r, d), family in self.tree_bounds.items()]}
        if self.symmetry:
            doc["symmetry"] = [dict(g) for g in self.symmetry]
        if self.cut is not None:
            doc["cut"] = self.cut.to_dict()
        return doc


def _row_document(key) -> dict:
    """A capacity row as a document: {"row": "out"|"in", "node"}, {"row": "arc",
    "from", "to"} or {"row": "link", "id"}."""
    kind, what = key
    if kind in ("out", "in"):
        return {"row": kind, "node": what}
    if kind == "arc":
        return {"row": "arc", "from": what[0], "to": what[1]}
    return {"row": "link", "id": what}


@dataclass(frozen=True)
class Schedule:
    """A steady-schedule document (docs/formats.md), as exact immutable Python objects.

    ``trees`` is a tuple of :class:`TreeEntry`; a version 1 schedule has ``steps`` (a
    tuple of :class:`Step`), a version 2 (timed) one ``transfers`` (a tuple of
    :class:`TimedTransfer`) instead; ``extra`` holds the unknown top-level keys (kept for
    the round trip); ``certificate`` the optional :class:`PriceCertificate`.  A
    ``"certificate"`` entry given in ``extra`` (a document fragment) is parsed into
    ``certificate``.

    ``collective`` (issue 43): the :class:`CollectiveSpec` a schedule of a collective
    serves (its trees then have roots, directions and routes, and its certificate is
    a :class:`FabricCertificate`); None for a broadcast from the source.
    """

    platform: Platform
    throughput: Fraction
    period: Fraction
    messages_per_period: int
    trees: tuple = ()
    steps: tuple = ()
    extra: Mapping = field(default_factory=dict, hash=False)
    certificate: PriceCertificate | None = None
    transfers: tuple = ()
    version: int = VERSION
    collective: CollectiveSpec | None = None

    def __post_init__(self):
        object.__setattr__(self, "trees", tuple(self.trees))
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "transfers", tuple(self.transfers))
        if self.version not in (VERSION, TIMED):
            raise ValueError(f"steady-schedule version {self.version!r}: 1 or 2")
        if self.version == VERSION and self.transfers or self.version == TIMED and self.steps:
            raise ValueError("version 1 has steps, version 2 a timetable (transfers)")
        for name in ("throughput", "period"):
            value = getattr(self, name)
            if isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, name, Fraction(value))
        extra = dict(self.extra)
        if "certificate" in extra:
            fragment = extra.pop("certificate")
            if self.certificate is None:
                cert = (fragment if isinstance(fragment, PriceCertificate)
                        else _certificate(fragment, "<extra>", "certificate"))
                object.__setattr__(self, "certificate", cert)
        object.__setattr__(self, "extra", MappingProxyType(extra))

    def __repr__(self):
        """Python source that ``eval`` turns into an equal Schedule (with the classes
        of this module, ``Platform``, ``Link`` and ``Fraction`` in scope; see
        docs/testing.md): falsifying examples can be pasted into a test."""
        return f"Schedule({', '.join(self._repr_args())})"

    def _repr_pretty_(self, p, cycle):
        """The repr, one argument a line (hypothesis' falsifying examples, IPython)."""
        with p.group(4, "Schedule(", ")"):
            for i, arg in enumerate(self._repr_args()):
                if i:
                    p.text(",")
                    p.breakable()
                p.text(arg)

    def _repr_args(self) -> list[str]:
        args = [repr(self.platform), _repr(self.throughput), _repr(self.period),
                repr(self.messages_per_period), f"trees={list(self.trees)!r}"]
        if self.steps or self.version == VERSION:
            args.append(f"steps={list(self.steps)!r}")
        if self.transfers:
            args.append(f"transfers={list(self.transfers)!r}")
        if self.version != VERSION:
            args.append(f"version={self.version!r}")
        if self.certificate is not None:
            args.append(f"certificate={self.certificate!r}")
        if self.collective is not None:
            args.append(f"collective={self.collective!r}")
        if self.extra:
            args.append(f"extra={dict(self.extra)!r}")
        return args

    # -- documents ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """The steady-schedule document (exact numbers as text)."""
        if self.version == TIMED:
            return self._document([t.to_dict() for t in self.transfers])
        return self._document([s.to_dict() for s in self.steps])

    def _document(self, timeline: list) -> dict:
        doc = {"format": FORMAT, "version": self.version,
               "platform": self.platform.to_dict(),
               "throughput": format_exact(self.throughput),
               "period": format_exact(self.period),
               "messages_per_period": _int_out(self.messages_per_period),
               "trees": [t.to_dict() for t in self.trees],
               "transfers" if self.version == TIMED else "steps": timeline}
        if self.collective is not None:
            doc["collective"] = self.collective.to_dict()
        if self.certificate is not None:
            doc["certificate"] = self.certificate.to_dict()
        for key, value in self.extra.items():
            if key not in doc:
                doc[key] = value
        return doc

    def to_json(self) -> str:
        """The document's text; the same as encoding :meth:`to_dict`, with the
        transfers (tens of thousands in a 65-node schedule) encoded directly."""
        timeline = (_timed_document(self.transfers) if self.version == TIMED
                    else _steps_document(self.steps))
        doc = self._document(timeline)
        with many_digits():
            return _dumps(doc) + "\n"

    def write(self, path) -> None:
        """Write the document atomically (temp file + rename)."""
        atomic_write_text(path, self.to_json())

    @classmethod
    def from_dict(cls, doc, origin: str = "<dict>") -> "Schedule":
        with many_digits():
            return _from_document(doc, origin)

    @classmethod
    def from_file(cls, path) -> "Schedule":
        doc = load_json(path)
        with many_digits():
            return _from_document(doc, str(path))

    # -- conveniences --------------------------------------------------------------
    @property
    def transfer_count(self) -> int:
        return len(self.transfers) + sum(len(s.transfers) for s in self.steps)

    def all_transfers(self):
        """Every transfer of one period, steps in order (version 1) or the timetable."""
        yield from self.transfers
        for step in self.steps:
            yield from step.transfers

    def messages_per_link(self) -> dict[tuple[str, str], int]:
        """Messages sent per period on each link, {(tail, head): n}, summed over the
        transfers as written (no check: :mod:`steady.verify` decides validity)."""
        sent: dict[tuple[str, str], int] = {}
        for t in self.all_transfers():
            sent[t.arc] = sent.get(t.arc, 0) + t.messages
        return sent

    @property
    def is_collective(self) -> bool:
        """Whether the schedule serves a collective (issue 43): it says which, or one of
        its trees has a root, a direction or routes."""
        return self.collective is not None or any(
            isinstance(t, TreeEntry) and t.collective for t in self.trees)

    @property
    def optimum_bound(self) -> Fraction | None:
        """The certificate's claim: sum of its port prices, an upper bound on the
        optimal throughput when every arborescence costs >= 1 under them (checked by
        :mod:`steady.verify`, not here); for a collective the claimed ``optimum`` (the
        rate per root).  None without a certificate."""
        if self.certificate is None:
            return None
        if isinstance(self.certificate, FabricCertificate):
            claim = self.extra.get("optimum")
            return parse_exact(claim) if claim is not None else None
        return (sum(self.certificate.out_prices.values(), Fraction(0))
                + sum(self.certificate.in_prices.values(), Fraction(0))
                + sum(self.certificate.link_prices.values(), Fraction(0)))


def timed(schedule: Schedule) -> Schedule:
    """The version 2 (timed) form of a schedule: a version 1 step's transfers start at
    the step's start time, those on one link one after the other (in the step's order);
    a version 2 schedule is returned as it is.  Validity is preserved
    (proofs/timed-schedule.md): a step's transfers on one link fit in its duration, so
    each port's intervals stay inside the step's window, one port per step and side."""
    if schedule.version == TIMED:
        return schedule
    platform = schedule.platform
    out: list[TimedTransfer] = []
    begin = Fraction(0)
    for step in schedule.steps:
        offset: dict[tuple[str, str], Fraction] = {}
        for t in step.transfers:
            start = begin + offset.get(t.arc, Fraction(0))
            out.append(TimedTransfer(t.tail, t.head, t.tree, t.messages, start))
            # a transfer over a missing link takes no time here: verify reports it
            cost = transfer_cost(platform, schedule.trees, t) or 0
            offset[t.arc] = offset.get(t.arc, Fraction(0)) + t.messages * cost
        begin += step.duration
    return replace(schedule, steps=(), transfers=tuple(out), version=TIMED)


def transfer_time(platform, trees, transfer) -> Fraction | None:
    """How long a version 2 transfer runs: its ``duration`` when given, else its
    messages at :func:`transfer_cost`; None when it names no tree edge over links."""
    if getattr(transfer, "duration", None) is not None:
        return transfer.duration
    cost = transfer_cost(platform, trees, transfer)
    return None if cost is None else transfer.messages * cost


def transfer_cost(platform, trees, transfer) -> Fraction | None:
    """The time per message of a transfer: its link's cost, or for a tree whose edge
    crosses switches (issue 43) the slowest link of the route; None when the transfer
    names no tree edge over links (the checker reports it)."""
    tree = trees[transfer.tree] if (isinstance(transfer.tree, int)
                                    and 0 <= transfer.tree < len(trees)) else None
    if isinstance(tree, TreeEntry) and tree.routes:
        route = tree.route(transfer.arc)
    else:
        route = transfer.arc
    if not all(platform.has_link(a, b) for a, b in zip(route, route[1:])):
        return None
    return max(platform.cost(a, b) for a, b in zip(route, route[1:]))


# -- reprs --------------------------------------------------------------------------

def _repr(x) -> str:
    """An exact number as short Python source: ``3`` for an integral Fraction (the
    constructors turn ints into Fractions), ``Fraction(7, 2)`` otherwise."""
    if type(x) is Fraction:
        return repr(x.numerator) if x.denominator == 1 else repr(x)
    return repr(x)


def _mapping_repr(m) -> str:
    return "{" + ", ".join(f"{k!r}: {_repr(v)}" for k, v in m.items()) + "}"


# -- writing ----------------------------------------------------------------------

def _int_out(n):
    """An integer for JSON: a number up to 2^53, its decimal text beyond."""
    if isinstance(n, int) and not isinstance(n, bool) and abs(n) > MAX_JSON_INT:
        return int_text(n)
    return n


class _Encoded(str):
    """JSON text already encoded: :func:`_encode` writes it as it is."""


def _encoders():
    """(name, number): a node name's JSON text (memoised: names repeat in every
    transfer) and an integer's, as :func:`_int_out` spells it."""
    names: dict[str, str] = {}

    def name(v):
        if v not in names:
            names[v] = json.dumps(v)
        return names[v]

    def number(n):
        text = _int_out(n)
        return json.dumps(text) if isinstance(text, str) else str(text)

    return name, number


def _steps_document(steps) -> list:
    """The steps of :meth:`Schedule.to_dict` with every transfer pre-encoded as the
    one-line record ``_encode`` would write (a flat mapping is one line)."""
    name, number = _encoders()
    return [{"duration": format_exact(step.duration),
             "transfers": [_Encoded(f'{{"from": {name(t.tail)}, "to": {name(t.head)}, '
                                    f'"tree": {number(t.tree)}, '
                                    f'"messages": {number(t.messages)}}}')
                           for t in step.transfers]}
            for step in steps]


def _timed_document(transfers) -> list:
    """The timetable of a version 2 document, every transfer pre-encoded on one line."""
    name, number = _encoders()
    return [_Encoded(f'{{"from": {name(t.tail)}, "to": {name(t.head)}, '
                     f'"tree": {number(t.tree)}, "messages": {number(t.messages)}, '
                     f'"start": {json.dumps(format_exact(t.start))}'
                     + ("" if t.duration is None else
                        f', "duration": {json.dumps(format_exact(t.duration))}') + "}")
            for t in transfers]


def _dumps(doc) -> str:
    """JSON text of ``doc``: a value whose one-line text is short stays on one line (a
    transfer, a tree's edge list), larger ones are indented.  Decimals (JSON floats kept
    from an input's unknown keys) are written with their exact text, Fractions as "p/q".
    """
    return _encode(doc, "")


def _encode(obj, indent: str) -> str:
    """Bottom-up, each value encoded once: a flat record (a mapping of plain values)
    is one line; another container whose children are all one-line and whose
    one-line text fits stays on one line."""
    if isinstance(obj, (_Encoded, Decimal)):
        return str(obj)
    if isinstance(obj, Fraction):
        return json.dumps(format_exact(obj))
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return json.dumps(obj)
    if isinstance(obj, Mapping):
        mapping, values, brackets = True, list(obj.values()), "{}"
    elif isinstance(obj, (list, tuple)):
        mapping, values, brackets = False, list(obj), "[]"
    else:
        raise TypeError(f"{type(obj).__name__} is not JSON serializable")
    if not values:
        return brackets
    if all(type(v) in _PLAIN for v in values):       # the common leaf: one call
        text = json.dumps(obj if isinstance(obj, (dict, list)) else
                          (dict(obj) if mapping else list(obj)), separators=(", ", ": "))
        # A flat record (a transfer, a link) stays on one line even when a count
        # with a thousand digits makes it long: one line per record, grep-able.
        if mapping or len(indent) + len(text) <= _LINE:
            return text
    keys = [json.dumps(str(k)) + ": " for k in obj] if mapping else None
    inner = indent + " "
    parts = [_encode(v, inner) for v in values]
    if keys:
        parts = [k + v for k, v in zip(keys, parts)]
    if len(indent) + sum(map(len, parts)) + 2 * len(parts) <= _LINE and not any(
            "\n" in part for part in parts):
        return brackets[0] + ", ".join(parts) + brackets[1]
    return (brackets[0] + "\n" + ",\n".join(inner + part for part in parts) + "\n"
            + indent + brackets[1])


_LINE = 100
_PLAIN = (str, int, bool, type(None))


# -- reading ----------------------------------------------------------------------

def _exact(value, origin: str, element: str) -> Fraction:
    try:
        return parse_exact(value)
    except ValueError as exc:
        raise InputError(origin, element, str(exc)) from None


def _integer(value, origin: str, element: str) -> int:
    try:   # ASCII digits only, no " +1 " (steady.numbers: the one grammar)
        return parse_integer(value)
    except ValueError as exc:
        raise InputError(origin, element, str(exc)) from None


def _node(value, origin: str, element: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(origin, element, f"a node name is a non-empty string, got {value!r}")
    return value


def _object(value, origin: str, element: str, known: set, what: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(origin, element, f"{what} is a JSON object, got {_kind(value)}")
    unknown = [k for k in value if k not in known]
    if unknown:
        raise InputError(origin, f"{element}.{unknown[0]}", "unknown key (allowed: "
                         + ", ".join(sorted(known)) + ")")
    return value


def _list(value, origin: str, element: str) -> list:
    if not isinstance(value, list):
        raise InputError(origin, element, f"must be a list, got {_kind(value)}")
    return value


def _required(obj: dict, key: str, origin: str, element: str):
    if key not in obj:
        raise InputError(origin, f"{element}.{key}" if element else key, "missing")
    return obj[key]


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), type(value).__name__)


def _from_document(doc, origin: str) -> Schedule:
    if not isinstance(doc, dict):
        raise InputError(origin, "document", "a steady-schedule document is a JSON object")
    if "format" not in doc:
        raise InputError(origin, "format", f"missing (expected {FORMAT!r})")
    if doc["format"] != FORMAT:
        raise InputError(origin, "format", f"expected {FORMAT!r}, got {doc['format']!r}")
    check_version(doc, origin, (VERSION, TIMED))
    version = doc["version"]
    timeline = "transfers" if version == TIMED else "steps"
    for key in _REQUIRED + (timeline,):
        _required(doc, key, origin, "")
    other = "steps" if version == TIMED else "transfers"
    if other in doc:
        raise InputError(origin, other, f"a version {version} schedule has "
                         f"{timeline!r}, not {other!r}")
    try:
        platform = Platform.from_dict(doc["platform"], origin)
    except InputError as exc:
        element = exc.element if exc.element == "platform" else f"platform.{exc.element}"
        raise InputError(origin, element, exc.reason) from None
    throughput = _exact(doc["throughput"], origin, "throughput")
    period = _exact(doc["period"], origin, "period")
    mpp = _integer(doc["messages_per_period"], origin, "messages_per_period")
    trees = tuple(_tree(t, origin, f"trees[{i}]")
                  for i, t in enumerate(_list(doc["trees"], origin, "trees")))
    steps = tuple(_step(s, origin, f"steps[{i}]")
                  for i, s in enumerate(_list(doc.get("steps", []), origin, "steps")))
    transfers = tuple(_timed_transfer(s, origin, f"transfers[{i}]") for i, s in
                      enumerate(_list(doc.get("transfers", []), origin, "transfers")))
    collective = None
    if "collective" in doc:
        collective = _collective(doc["collective"], origin, "collective")
    certificate = None
    if "certificate" in doc:
        certificate = (_fabric_certificate(doc["certificate"], origin, "certificate")
                       if collective is not None else
                       _certificate(doc["certificate"], origin, "certificate"))
    extra = {k: v for k, v in doc.items() if k not in _TOP_KEYS + ("transfers",)}
    return Schedule(platform, throughput, period, mpp, trees, steps, extra, certificate,
                    transfers, version, collective)


def _tree(entry, origin: str, element: str) -> TreeEntry:
    entry = _object(entry, origin, element, _TREE_KEYS, "a tree")
    weight = _integer(_required(entry, "weight", origin, element), origin, f"{element}.weight")
    edges = []
    for j, edge in enumerate(_list(_required(entry, "edges", origin, element),
                                   origin, f"{element}.edges")):
        where = f"{element}.edges[{j}]"
        if not (isinstance(edge, list) and len(edge) == 2):
            raise InputError(origin, where, "an edge is a pair [parent, child] of node "
                             "names ([child, parent] in an in-tree: as the data flows)")
        edges.append((_node(edge[0], origin, f"{where}[0]"),
                      _node(edge[1], origin, f"{where}[1]")))
    root = None
    if "root" in entry:
        root = _node(entry["root"], origin, f"{element}.root")
    direction = entry.get("direction", OUT)
    if direction not in (OUT, IN):
        raise InputError(origin, f"{element}.direction", f"\"out\" or \"in\", got "
                         f"{direction!r}")
    routes = {}
    if "routes" in entry:
        table = entry["routes"]
        if not isinstance(table, dict):
            raise InputError(origin, f"{element}.routes", "must be an object {child: "
                             f"[switch, ...]}}, got {_kind(table)}")
        for child, hops in table.items():
            where = f"{element}.routes[{child!r}]"
            routes[child] = tuple(_node(h, origin, f"{where}[{i}]")
                                  for i, h in enumerate(_list(hops, origin, where)))
    return TreeEntry(weight, tuple(edges), root, direction, routes)


def _collective(entry, origin: str, element: str) -> CollectiveSpec:
    entry = _object(entry, origin, element, _COLLECTIVE_KEYS, "a collective")
    kind = _required(entry, "kind", origin, element)
    if kind not in COLLECTIVES:
        raise InputError(origin, f"{element}.kind", f"one of {', '.join(COLLECTIVES)}, "
                         f"got {kind!r}")
    sources = rates = None
    if "sources" in entry:
        sources = tuple(_node(v, origin, f"{element}.sources[{i}]") for i, v in
                        enumerate(_list(entry["sources"], origin, f"{element}.sources")))
    if "rates" in entry:
        rates = tuple(_exact(r, origin, f"{element}.rates[{i}]") for i, r in
                      enumerate(_list(entry["rates"], origin, f"{element}.rates")))
    if (sources is not None or rates is not None) and kind != "broadcast":
        raise InputError(origin, f"{element}.sources", f"{kind}: every compute node is a "
                         "root (sources and rates are for a broadcast)")
    if rates is not None and (sources is None or len(rates) != len(sources)):
        raise InputError(origin, f"{element}.rates", "one rate per source (and the "
                         "sources given)")
    return CollectiveSpec(kind, sources, rates)


_ROW_FIELDS = {"out": {"row", "node", "price"}, "in": {"row", "node", "price"},
               "arc": {"row", "from", "to", "price"}, "link": {"row", "id", "price"}}


def _fabric_certificate(entry, origin: str, element: str) -> FabricCertificate:
    entry = _object(entry, origin, element, _FABRIC_CERTIFICATE_KEYS, "a certificate")
    prices = {}
    for i, row in enumerate(_list(entry.get("prices", []), origin, f"{element}.prices")):
        where = f"{element}.prices[{i}]"
        kind = row.get("row") if isinstance(row, dict) else None
        if kind not in _ROW_FIELDS:
            raise InputError(origin, f"{where}.row", "one of out, in, arc, link")
        row = _object(row, origin, where, _ROW_FIELDS[kind], "a price")
        for key in _ROW_FIELDS[kind]:
            _required(row, key, origin, where)
        if kind in ("out", "in"):
            key = (kind, _node(row["node"], origin, f"{where}.node"))
        elif kind == "arc":
            key = ("arc", (_node(row["from"], origin, f"{where}.from"),
                           _node(row["to"], origin, f"{where}.to")))
        else:
            key = ("link", _node(row["id"], origin, f"{where}.id"))
        if key in prices:
            raise InputError(origin, where, "a row priced twice")
        prices[key] = _exact(row["price"], origin, f"{where}.price")
    costs = {}
    for i, item in enumerate(_list(entry.get("root_costs", []), origin,
                                   f"{element}.root_costs")):
        where = f"{element}.root_costs[{i}]"
        item = _object(item, origin, where, {"root", "direction", "w"}, "a root cost")
        costs[_root_key(item, origin, where)] = _exact(_required(item, "w", origin, where),
                                                       origin, f"{where}.w")
    bounds = {}
    for i, item in enumerate(_list(entry.get("tree_bounds", []), origin,
                                   f"{element}.tree_bounds")):
        where = f"{element}.tree_bounds[{i}]"
        item = _object(item, origin, where, {"root", "direction", "sets"}, "a tree bound")
        family = []
        for j, one in enumerate(_list(_required(item, "sets", origin, where), origin,
                                      f"{where}.sets")):
            at = f"{where}.sets[{j}]"
            one = _object(one, origin, at, {"members", "z"}, "a set")
            members = frozenset(_node(v, origin, f"{at}.members") for v in
                                _list(_required(one, "members", origin, at), origin,
                                      f"{at}.members"))
            family.append((members, _exact(_required(one, "z", origin, at), origin,
                                           f"{at}.z")))
        bounds[_root_key(item, origin, where)] = tuple(family)
    symmetry = []
    for i, g in enumerate(_list(entry.get("symmetry", []), origin, f"{element}.symmetry")):
        if not isinstance(g, dict):
            raise InputError(origin, f"{element}.symmetry[{i}]", "a generator is an "
                             "object {node: image}")
        symmetry.append({_node(a, origin, f"{element}.symmetry[{i}]"):
                         _node(b, origin, f"{element}.symmetry[{i}]") for a, b in g.items()})
    cut = None
    if entry.get("cut") is not None:   # null: no cut (docs/formats.md), as when absent
        where = f"{element}.cut"
        one = _object(entry["cut"], origin, where, {"side", "direction", "capacity",
                                                    "share", "bound"}, "a cut")
        direction = _required(one, "direction", origin, where)
        if direction not in (OUT, IN):
            raise InputError(origin, f"{where}.direction", f"out or in, got {direction!r}")
        cut = FabricCut(frozenset(_node(v, origin, f"{where}.side") for v in
                                  _list(_required(one, "side", origin, where), origin,
                                        f"{where}.side")),
                        direction,
                        _exact(_required(one, "capacity", origin, where), origin,
                               f"{where}.capacity"),
                        _exact(_required(one, "share", origin, where), origin,
                               f"{where}.share"))
    return FabricCertificate(prices, costs, bounds, tuple(symmetry), cut)


def _root_key(item: dict, origin: str, where: str) -> tuple[str, str]:
    root = _node(_required(item, "root", origin, where), origin, f"{where}.root")
    direction = _required(item, "direction", origin, where)
    if direction not in (OUT, IN):
        raise InputError(origin, f"{where}.direction", f"out or in, got {direction!r}")
    return (root, direction)


def _step(entry, origin: str, element: str) -> Step:
    entry = _object(entry, origin, element, _STEP_KEYS, "a step")
    duration = _exact(_required(entry, "duration", origin, element), origin,
                      f"{element}.duration")
    transfers = tuple(_transfer(t, origin, f"{element}.transfers[{j}]")
                      for j, t in enumerate(_list(_required(entry, "transfers", origin, element),
                                                  origin, f"{element}.transfers")))
    return Step(duration, transfers)


def _transfer(entry, origin: str, element: str) -> Transfer:
    entry = _object(entry, origin, element, _TRANSFER_KEYS, "a transfer")
    for key in ("from", "to", "tree", "messages"):
        _required(entry, key, origin, element)
    return Transfer(_node(entry["from"], origin, f"{element}.from"),
                    _node(entry["to"], origin, f"{element}.to"),
                    _integer(entry["tree"], origin, f"{element}.tree"),
                    _integer(entry["messages"], origin, f"{element}.messages"))


def _timed_transfer(entry, origin: str, element: str) -> TimedTransfer:
    entry = _object(entry, origin, element, _TIMED_TRANSFER_KEYS, "a transfer")
    for key in ("from", "to", "tree", "messages", "start"):
        _required(entry, key, origin, element)
    return TimedTransfer(_node(entry["from"], origin, f"{element}.from"),
                         _node(entry["to"], origin, f"{element}.to"),
                         _integer(entry["tree"], origin, f"{element}.tree"),
                         _integer(entry["messages"], origin, f"{element}.messages"),
                         _exact(entry["start"], origin, f"{element}.start"),
                         None if entry.get("duration") is None
                         else _exact(entry["duration"], origin, f"{element}.duration"))


def _certificate(entry, origin: str, element: str) -> PriceCertificate:
    entry = _object(entry, origin, element, _CERTIFICATE_KEYS, "a certificate")
    prices = {}
    for side in ("out_prices", "in_prices", "link_prices"):
        table = entry.get(side, {})
        if not isinstance(table, dict):
            raise InputError(origin, f"{element}.{side}",
                             f"must be an object {{node: price}}, got {_kind(table)}")
        prices[side] = {_node(v, origin, f"{element}.{side}"):
                        _exact(p, origin, f"{element}.{side}[{v!r}]")
                        for v, p in table.items()}
    optional = {}
    for key in ("min_tree_cost", "min_flow"):
        if key in entry:
            optional[key] = _exact(entry[key], origin, f"{element}.{key}")
    if "scale" in entry:
        optional["scale"] = _integer(entry["scale"], origin, f"{element}.scale")
    return PriceCertificate(prices["out_prices"], prices["in_prices"],
                            link_prices=prices["link_prices"], **optional)
