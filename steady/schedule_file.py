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
             "messages_per_period", "trees", "steps", "certificate")
_REQUIRED = ("platform", "throughput", "period", "messages_per_period", "trees")
_TREE_KEYS = {"weight", "edges"}
_STEP_KEYS = {"duration", "transfers"}
_TRANSFER_KEYS = {"from", "to", "tree", "messages"}
_TIMED_TRANSFER_KEYS = _TRANSFER_KEYS | {"start"}
_CERTIFICATE_KEYS = {"out_prices", "in_prices", "min_tree_cost", "scale", "min_flow",
                     "link_prices"}
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
    of every period."""

    tail: str
    head: str
    tree: int
    messages: int
    start: Fraction

    def __post_init__(self):
        if isinstance(self.start, int) and not isinstance(self.start, bool):
            object.__setattr__(self, "start", Fraction(self.start))

    @property
    def arc(self) -> tuple[str, str]:
        return (self.tail, self.head)

    def __repr__(self):
        return (f"TimedTransfer({self.tail!r}, {self.head!r}, {self.tree!r}, "
                f"{self.messages!r}, {_repr(self.start)})")

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        return {"from": self.tail, "to": self.head, "tree": _int_out(self.tree),
                "messages": _int_out(self.messages), "start": format_exact(self.start)}


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
    """A broadcast tree T_l of weight λ_l: ``edges`` are (parent, child) arcs."""

    weight: int
    edges: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "edges", tuple(tuple(e) for e in self.edges))

    @classmethod
    def from_parent(cls, parent: Mapping[str, str], weight: int) -> "TreeEntry":
        """From a ``{child: parent}`` map (the form used by the rest of steady)."""
        return cls(weight, tuple((p, c) for c, p in parent.items()))

    @property
    def parent(self) -> dict[str, str]:
        """``{child: parent}`` (the last edge wins if a child has two parents)."""
        return {c: p for p, c in self.edges}

    def __repr__(self):
        return f"TreeEntry({self.weight!r}, {list(self.edges)!r})"

    _repr_pretty_ = Transfer._repr_pretty_

    def to_dict(self) -> dict:
        return {"weight": _int_out(self.weight), "edges": [[p, c] for p, c in self.edges]}


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
class Schedule:
    """A steady-schedule document (docs/formats.md), as exact immutable Python objects.

    ``trees`` is a tuple of :class:`TreeEntry`; a version 1 schedule has ``steps`` (a
    tuple of :class:`Step`), a version 2 (timed) one ``transfers`` (a tuple of
    :class:`TimedTransfer`) instead; ``extra`` holds the unknown top-level keys (kept for
    the round trip); ``certificate`` the optional :class:`PriceCertificate`.  A
    ``"certificate"`` entry given in ``extra`` (a document fragment) is parsed into
    ``certificate``.
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
    def optimum_bound(self) -> Fraction | None:
        """The certificate's claim: sum of its port prices, an upper bound on the
        optimal throughput when every arborescence costs >= 1 under them (checked by
        :mod:`steady.verify`, not here).  None without a certificate."""
        if self.certificate is None:
            return None
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
            cost = platform.cost(*t.arc) if platform.has_link(*t.arc) else 0
            offset[t.arc] = offset.get(t.arc, Fraction(0)) + t.messages * cost
        begin += step.duration
    return replace(schedule, steps=(), transfers=tuple(out), version=TIMED)


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
                     f'"start": {json.dumps(format_exact(t.start))}}}')
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
    certificate = None
    if "certificate" in doc:
        certificate = _certificate(doc["certificate"], origin, "certificate")
    extra = {k: v for k, v in doc.items() if k not in _TOP_KEYS + ("transfers",)}
    return Schedule(platform, throughput, period, mpp, trees, steps, extra, certificate,
                    transfers, version)


def _tree(entry, origin: str, element: str) -> TreeEntry:
    entry = _object(entry, origin, element, _TREE_KEYS, "a tree")
    weight = _integer(_required(entry, "weight", origin, element), origin, f"{element}.weight")
    edges = []
    for j, edge in enumerate(_list(_required(entry, "edges", origin, element),
                                   origin, f"{element}.edges")):
        where = f"{element}.edges[{j}]"
        if not (isinstance(edge, list) and len(edge) == 2):
            raise InputError(origin, where, "an edge is a pair [parent, child] of node names")
        edges.append((_node(edge[0], origin, f"{where}[0]"),
                      _node(edge[1], origin, f"{where}[1]")))
    return TreeEntry(weight, tuple(edges))


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
                         _exact(entry["start"], origin, f"{element}.start"))


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
