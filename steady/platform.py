"""The platform: an immutable directed graph of processors with exact link costs.

This is the model of seed 002 §2: a directed graph G = (V, E, c) with a source P_s; the
arc (j, k) costs c_{j,k} time units per unit-size message; optional start-up costs
β_{j,k} (002 §6) and per-node send overheads (the multi-port model of seed 000 §2.2).

Collectives on today's fabrics (issue 43; ours) add three optional facts: the port model
(``ports``: ``"one-port"``, the default and the model of 002, or ``"multi-port"``, where
a node uses all its links at once and only the links' capacities bound), the
**switches** (nodes that forward but never store, replicate or reduce: they appear only
inside routes; the other nodes are the *compute* nodes), and a **symmetry** (generators
of a group of automorphisms, checked here link by link, that the collective optimum
uses to solve one root per orbit; docs/formats.md).

A :class:`Platform` is built from a steady-platform v1 document (file or dict, see
docs/formats.md) or from a networkx DiGraph, and validated on the way in: every error names the
file, the element and the reason.  Writing it back gives an equivalent document.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Iterable, Mapping

from .errors import InputError, echo
from .fileio import JsonDocument, check_format, check_version, load_json, loads_json
from .numbers import document_number, format_exact, parse_exact
from .network.model import Arc, Network  # Arc: the one (tail, head) type, for the packages above

FORMAT = "steady-platform"
VERSION = 1
_TOP_KEYS = {"format", "version", "name", "source", "nodes", "links", "send_overhead",
             "network", "ports", "switches", "symmetry"}
#: The port models (issue 43): one-port (002 §2, the default) and multi-port.
ONE_PORT = "one-port"
MULTI_PORT = "multi-port"
PORT_MODELS = (ONE_PORT, MULTI_PORT)
_LINK_KEYS = {"from", "to", "cost", "bandwidth", "startup"}


@dataclass(frozen=True)
class Link:
    """The arc tail -> head: ``cost`` time units per unit message, ``startup`` β.

    ``cost`` (> 0) and ``startup`` (>= 0) may be given as any exact number -- int,
    Fraction, Decimal, text such as ``"1/3"`` or ``"0.1"`` -- or a float, read through its
    shortest decimal text as the file format reads it (``0.1`` is 1/10); they are stored
    as Fractions.  Anything else raises InputError naming the link."""

    tail: str
    head: str
    cost: Fraction
    startup: Fraction = Fraction(0)

    def __post_init__(self):
        # Validated here, not only by Platform: no negative cost ever gets into a Link.
        for name, positive in (("cost", True), ("startup", False)):
            value = getattr(self, name)
            if type(value) is not Fraction or not (value > 0 if positive else value >= 0):
                object.__setattr__(self, name, _python_number(
                    value, f"Link({self.tail!r}, {self.head!r}).{name}", positive))

    @property
    def arc(self) -> tuple[str, str]:
        return (self.tail, self.head)

    def __repr__(self):
        """``Link('a', 'b', '1/3')``: short, and ``eval`` gives the link back."""
        text = f"Link({self.tail!r}, {self.head!r}, {_number_repr(self.cost)}"
        if self.startup:
            text += f", startup={_number_repr(self.startup)}"
        return text + ")"

    def _repr_pretty_(self, p, cycle):  # hypothesis and IPython print the repr
        p.text(repr(self))


def _inferred_nodes(source, links) -> tuple:
    """The nodes a platform without ``nodes`` gets: the source, then in link order."""
    seen: dict[str, None] = {source: None}
    for link in links:
        seen.setdefault(link.tail)
        seen.setdefault(link.head)
    return tuple(seen)


def _python_number(value, element: str, positive: bool, origin: str = "<python>") -> Fraction:
    """An exact number given from Python (see :class:`Link`), or InputError."""
    if type(value) is Fraction and (value > 0 if positive else value >= 0):
        return value
    bound = "> 0" if positive else ">= 0"
    try:   # from Python, surrounding spaces are forgiven (documents have none)
        x = parse_exact(value.strip() if isinstance(value, str) else value)
    except ValueError:
        raise InputError(origin, element, f"must be an exact number {bound} (an int, "
                         f"Fraction, Decimal or text such as '1/3'), got {value!r}") from None
    if x <= 0 if positive else x < 0:
        raise InputError(origin, element, f"must be an exact number {bound}, got "
                         f"{format_exact(x)}")
    return x


def _number_repr(x: Fraction) -> str:
    """An exact number as Python source the constructors read back: 3 or '7/2'."""
    return format_exact(x) if x.denominator == 1 else repr(format_exact(x))


class Platform(JsonDocument):
    """An immutable, validated platform graph (002 §2).

    Nodes keep the order of the file; ``links`` keeps the order of the file too, so
    every derived computation is deterministic.
    """

    __slots__ = ("name", "source", "nodes", "links", "send_overhead", "network", "ports",
                 "switches", "symmetry", "_cost", "_out", "_in")

    def __init__(self, source: str, links: Iterable[Link], nodes: Iterable[str] | None = None,
                 name: str = "", send_overhead: Mapping[str, Fraction] | None = None,
                 origin: str = "<platform>", network: Network | None = None,
                 ports: str = ONE_PORT, switches: Iterable[str] = (),
                 symmetry: Iterable[Mapping[str, str]] | None = None):
        links = tuple(links)
        if nodes is None:
            nodes = _inferred_nodes(source, links)
        object.__setattr__(self, "network", network)  # the physical links (issue 19)
        # issue 43: the port model, the switches (a frozenset: order never matters) and
        # the symmetry's generators ({node: image} for the nodes each one moves)
        object.__setattr__(self, "ports", ports)
        object.__setattr__(self, "switches", frozenset(_switch_names(switches, origin)))
        object.__setattr__(self, "symmetry", _generators(symmetry, origin))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "nodes", tuple(nodes))
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "send_overhead", MappingProxyType({
            v: _python_number(o, f"send_overhead[{v!r}]", False, origin)
            for v, o in (send_overhead or {}).items()}))
        _validate(self, origin)
        out: dict[str, list[Link]] = {v: [] for v in self.nodes}
        inn: dict[str, list[Link]] = {v: [] for v in self.nodes}
        for link in links:
            out[link.tail].append(link)
            inn[link.head].append(link)
        object.__setattr__(self, "_cost", MappingProxyType({l.arc: l.cost for l in links}))
        object.__setattr__(self, "_out", MappingProxyType({v: tuple(ls) for v, ls in out.items()}))
        object.__setattr__(self, "_in", MappingProxyType({v: tuple(ls) for v, ls in inn.items()}))
        if network is not None:
            network.check(self, origin)
        _check_symmetry(self, origin)

    def __setattr__(self, key, value):
        raise AttributeError("Platform is immutable")

    def __delattr__(self, key):
        raise AttributeError("Platform is immutable")

    # -- queries -----------------------------------------------------------------
    @property
    def destinations(self) -> tuple[str, ...]:
        """The compute nodes other than the source (every other node without switches)."""
        return tuple(v for v in self.nodes if v != self.source and v not in self.switches)

    @property
    def compute_nodes(self) -> tuple[str, ...]:
        """The nodes that are not switches, in the platform's order (issue 43)."""
        return tuple(v for v in self.nodes if v not in self.switches)

    @property
    def multi_port(self) -> bool:
        return self.ports == MULTI_PORT

    @property
    def classic(self) -> bool:
        """True for the model of 002 §2: one-port and no switch (every method of
        :mod:`steady.throughput` but the collective one needs it)."""
        return self.ports == ONE_PORT and not self.switches

    @property
    def arcs(self) -> tuple[tuple[str, str], ...]:
        return tuple(l.arc for l in self.links)

    def cost(self, tail: str, head: str) -> Fraction:
        return self._cost[(tail, head)]

    def has_link(self, tail: str, head: str) -> bool:
        return (tail, head) in self._cost

    def out_links(self, node: str) -> tuple[Link, ...]:
        return self._out[node]

    def in_links(self, node: str) -> tuple[Link, ...]:
        return self._in[node]

    def topological_order(self) -> list[str] | None:
        """Nodes in a topological order, or None when the graph has a cycle."""
        indegree = {v: len(self._in[v]) for v in self.nodes}
        ready = [v for v in self.nodes if indegree[v] == 0]
        order = []
        while ready:
            v = ready.pop()
            order.append(v)
            for link in self._out[v]:
                indegree[link.head] -= 1
                if indegree[link.head] == 0:
                    ready.append(link.head)
        return order if len(order) == len(self.nodes) else None

    def check_arborescence(self, parent: Mapping[str, str], origin: str = "<tree>") -> None:
        """Raise InputError unless ``parent`` (child -> parent) is a spanning
        arborescence of this platform rooted at the source, over existing links."""
        if self.source in parent:
            raise InputError(origin, f"edge ->{self.source}", "the source has no parent")
        for child, par in parent.items():
            if not self.has_link(par, child):
                raise InputError(origin, f"edge {par}->{child}", "not a link of the platform")
        missing = [v for v in self.destinations if v not in parent]
        if missing:
            raise InputError(origin, "edges", "not spanning, no parent for: " + ", ".join(missing))
        for v in self.destinations:
            seen = set()
            while v != self.source:
                if v in seen:
                    raise InputError(origin, "edges", f"cycle through {v}")
                seen.add(v)
                v = parent[v]

    def is_dag(self) -> bool:
        return self.topological_order() is not None

    def __eq__(self, other):
        if not isinstance(other, Platform):
            return NotImplemented
        return (self.source == other.source and set(self.nodes) == set(other.nodes)
                and set(self.links) == set(other.links)
                and dict(self.send_overhead) == dict(other.send_overhead)
                and self.network == other.network and self.ports == other.ports
                and self.switches == other.switches
                and set(map(_frozen, self.symmetry)) == set(map(_frozen, other.symmetry)))

    def __hash__(self):
        return hash((self.source, frozenset(self.links)))

    def __repr__(self):
        """``Platform('Ps', [Link('Ps', 'P1', 1), ...], name='figure-1')``: ``eval``
        gives an equal platform back (with ``Platform`` and ``Link`` in scope), so a
        falsifying example can be pasted into a test; ``nodes`` only when their order
        is not the one the links give."""
        args = [repr(self.source), "[" + ", ".join(map(repr, self.links)) + "]"]
        if self.nodes != _inferred_nodes(self.source, self.links):
            args.append(f"nodes={list(self.nodes)!r}")
        if self.name:
            args.append(f"name={self.name!r}")
        if self.send_overhead:
            overhead = ", ".join(f"{v!r}: {_number_repr(o)}"
                                 for v, o in self.send_overhead.items())
            args.append(f"send_overhead={{{overhead}}}")
        if getattr(self, "network", None) is not None:
            args.append(f"network={self.network!r}")
        if self.ports != ONE_PORT:
            args.append(f"ports={self.ports!r}")
        if self.switches:
            args.append(f"switches={sorted(self.switches)!r}")
        if self.symmetry:
            args.append(f"symmetry={[dict(g) for g in self.symmetry]!r}")
        return f"Platform({', '.join(args)})"

    # -- derived platforms (all validated again) ---------------------------------
    def replace_links(self, links: Iterable[Link], name: str | None = None) -> "Platform":
        """The platform with these links; the network keeps the routes of those arcs,
        the port model and the switches are kept, the symmetry is dropped (other links
        need not keep it)."""
        links = tuple(links)
        network = (None if self.network is None
                   else self.network.restricted(l.arc for l in links))
        return Platform(self.source, links, self.nodes,
                        self.name if name is None else name, self.send_overhead,
                        network=network, ports=self.ports, switches=self.switches)

    def scale_costs(self, factor) -> "Platform":
        """Every cost multiplied by ``factor`` (> 0; any exact number, a float by its
        decimal text, as for :class:`Link`)."""
        factor = _python_number(factor, "scale_costs(factor)", True)
        return Platform(self.source, (Link(l.tail, l.head, l.cost * factor, l.startup)
                                      for l in self.links), self.nodes, self.name,
                        self.send_overhead, network=None if self.network is None
                        else self.network.scaled(factor), ports=self.ports,
                        switches=self.switches, symmetry=self.symmetry)

    def relabel(self, mapping: Mapping[str, str]) -> "Platform":
        """The same platform with nodes renamed by ``mapping`` (a bijection)."""
        m = lambda v: mapping.get(v, v)  # noqa: E731
        return Platform(m(self.source),
                        (Link(m(l.tail), m(l.head), l.cost, l.startup) for l in self.links),
                        [m(v) for v in self.nodes], self.name,
                        {m(v): o for v, o in self.send_overhead.items()},
                        network=None if self.network is None else self.network.relabel(mapping),
                        ports=self.ports, switches=[m(v) for v in self.switches],
                        symmetry=[{m(a): m(b) for a, b in g.items()} for g in self.symmetry])

    def reversed(self, source: str | None = None) -> "Platform":
        """Every link turned around (same cost and start-up), the switches, port model
        and symmetry kept (an automorphism of G is one of its reversal), the source
        ``source`` (default: the same).  Reduce-scatter on G is allgather on this
        platform (proofs/collectives.md).  Refused with a network section (routes
        would have to be turned around too)."""
        if self.network is not None:
            raise InputError("<platform>", "network", "a platform with a network section "
                             "cannot be reversed")
        return Platform(self.source if source is None else source,
                        (Link(l.head, l.tail, l.cost, l.startup) for l in self.links),
                        self.nodes, self.name, self.send_overhead, ports=self.ports,
                        switches=self.switches, symmetry=self.symmetry)

    def subplatform(self, keep) -> "Platform":
        """The platform restricted to the links for which ``keep(link)`` is true."""
        return self.replace_links(l for l in self.links if keep(l))

    # -- documents ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """The steady-platform v1 document of this platform (exact numbers as text)."""
        doc = {"format": FORMAT, "version": VERSION}
        if self.name:
            doc["name"] = self.name
        doc["source"] = self.source
        doc["nodes"] = list(self.nodes)
        links = []
        for l in self.links:
            entry = {"from": l.tail, "to": l.head, "cost": format_exact(l.cost)}
            if l.startup:
                entry["startup"] = format_exact(l.startup)
            links.append(entry)
        doc["links"] = links
        if self.send_overhead:
            doc["send_overhead"] = {v: format_exact(o) for v, o in self.send_overhead.items()}
        if self.network is not None:
            doc["network"] = self.network.to_dict()
        if self.ports != ONE_PORT:
            doc["ports"] = self.ports
        if self.switches:
            doc["switches"] = [v for v in self.nodes if v in self.switches]
        if self.symmetry:
            doc["symmetry"] = [dict(g) for g in self.symmetry]
        return doc

    @staticmethod
    def _read(doc, origin: str):
        return _from_document(doc, origin)

    @classmethod
    def from_networkx(cls, graph, source, name: str = "", ports: str | None = None,
                      switches=None, compute_nodes=None) -> "Platform":
        """From a networkx DiGraph whose edges carry ``cost``, ``bandwidth`` or
        ``capacity`` (a bandwidth, ForestColl's name) -- or, when they carry none of
        them, networkx's usual ``weight``, read as the cost -- and optionally
        ``startup``; node attribute ``send_overhead`` is optional.  Node names become
        ``str(node)``; numbers are read as in the file format.

        Switches (issue 43): the nodes whose attribute ``switch`` is true, or those
        listed in ``switches``, or every node not in ``compute_nodes`` (ForestColl's
        way: its generators return the graph and the list of GPUs).  ``ports``
        (default ``graph.graph["ports"]``, else one-port) is the port model."""
        origin = "<networkx>"
        if not graph.is_directed():
            raise InputError(origin, "graph", "must be a directed graph (nx.DiGraph; "
                             "graph.to_directed() gives both arcs of every edge)")
        links = []
        for i, (u, v, data) in enumerate(graph.edges(data=True)):
            entry = {"from": str(u), "to": str(v)}
            entry.update({k: data[k] for k in ("cost", "bandwidth", "startup") if k in data})
            if "capacity" in data:
                if "cost" in entry or "bandwidth" in entry:
                    raise InputError(origin, f"links[{i}] ({u}->{v})", "give one of "
                                     "'cost', 'bandwidth' or 'capacity' (several given)")
                # checked here so that a refusal names the attribute the graph has
                entry["bandwidth"] = document_number(data["capacity"], origin,
                                                     f"links[{i}] ({u}->{v}).capacity")
            if "cost" not in entry and "bandwidth" not in entry:
                if "weight" not in data:
                    raise InputError(origin, f"links[{i}] ({u}->{v})", "give one of "
                                     "'cost', 'bandwidth', 'capacity' or 'weight' (neither given)")
                entry["cost"] = document_number(data["weight"], origin,
                                                f"links[{i}] ({u}->{v}).weight")
            links.append(entry)
        doc = {"format": FORMAT, "version": VERSION, "source": str(source),
               "nodes": [str(v) for v in graph.nodes], "links": links}
        overhead = {str(v): d["send_overhead"] for v, d in graph.nodes(data=True)
                    if "send_overhead" in d}
        if overhead:
            doc["send_overhead"] = overhead
        marked = networkx_switches(graph, switches, compute_nodes)
        if marked:
            doc["switches"] = marked
        ports = graph.graph.get("ports") if ports is None else ports
        if ports is not None:
            doc["ports"] = ports
        if name:
            doc["name"] = name
        return _from_document(doc, origin)

    def to_networkx(self):
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        for v, overhead in self.send_overhead.items():
            graph.nodes[v]["send_overhead"] = overhead
        for v in self.switches:
            graph.nodes[v]["switch"] = True
        if self.ports != ONE_PORT:
            graph.graph["ports"] = self.ports
        for l in self.links:
            graph.add_edge(l.tail, l.head, cost=l.cost, startup=l.startup)
        return graph


# -- parsing and validation -------------------------------------------------------

def networkx_switches(graph, switches=None, compute_nodes=None) -> list[str]:
    """The switch names of a networkx graph (see :meth:`Platform.from_networkx`)."""
    if switches is not None:
        return [str(v) for v in switches]
    if compute_nodes is not None:
        compute = {str(v) for v in compute_nodes}
        return [str(v) for v in graph.nodes if str(v) not in compute]
    return [str(v) for v, d in graph.nodes(data=True) if d.get("switch")]


def _name(value, origin: str, element: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(origin, element, f"node names are non-empty strings, got {value!r}")
    return value


def _from_document(doc, origin: str) -> Platform:
    check_format(doc, origin, FORMAT)   # first: a schedule given here is named as one
    unknown = sorted(set(doc) - _TOP_KEYS)
    if unknown:
        raise InputError(origin, f"key {unknown[0]!r}", "unknown key (allowed: "
                         + ", ".join(sorted(_TOP_KEYS)) + ")")
    check_version(doc, origin, VERSION, required=False)
    name = doc.get("name", "")
    if not isinstance(name, str):
        raise InputError(origin, "name", "must be a string")
    if "source" not in doc:
        raise InputError(origin, "source", "missing (the node that broadcasts)")
    source = _name(doc["source"], origin, "source")
    nodes = None
    if "nodes" in doc:
        if not isinstance(doc["nodes"], list):
            raise InputError(origin, "nodes", "must be a list of node names")
        nodes = [_name(v, origin, f"nodes[{i}]") for i, v in enumerate(doc["nodes"])]
        seen = set()
        for i, v in enumerate(nodes):
            if v in seen:
                raise InputError(origin, f"nodes[{i}]", f"duplicate node {v!r}")
            seen.add(v)
    if "links" not in doc or not isinstance(doc["links"], list):
        raise InputError(origin, "links", "missing or not a list of links")
    links = [_link(entry, origin, i) for i, entry in enumerate(doc["links"])]
    overhead = {}
    if "send_overhead" in doc:
        if not isinstance(doc["send_overhead"], dict):
            raise InputError(origin, "send_overhead", "must be an object {node: overhead}")
        for v, o in doc["send_overhead"].items():
            overhead[v] = document_number(o, origin, f"send_overhead[{v!r}]", positive=False)
    network = Network.from_dict(doc["network"], origin) if "network" in doc else None
    ports = doc.get("ports", ONE_PORT)
    switches = doc.get("switches", [])
    if not isinstance(switches, list):
        raise InputError(origin, "switches", "must be a list of node names")
    symmetry = doc.get("symmetry")
    if symmetry is not None and not isinstance(symmetry, list):
        raise InputError(origin, "symmetry", "must be a list of permutations "
                         "({node: image} objects)")
    return Platform(source, links, nodes, name, overhead, origin=origin, network=network,
                    ports=ports, switches=switches, symmetry=symmetry)


def _link(entry, origin: str, i: int) -> Link:
    element = f"links[{i}]"
    if not isinstance(entry, dict):
        raise InputError(origin, element, "a link is an object with from, to and cost")
    unknown = sorted(set(entry) - _LINK_KEYS)
    if unknown:
        raise InputError(origin, element, f"unknown key {unknown[0]!r} (allowed: "
                         + ", ".join(sorted(_LINK_KEYS)) + ")")
    for key in ("from", "to"):
        if key not in entry:
            raise InputError(origin, element, f"missing {key!r}")
    tail = _name(entry["from"], origin, f"{element}.from")
    head = _name(entry["to"], origin, f"{element}.to")
    element = f"{element} ({tail}->{head})"
    has_cost, has_bw = "cost" in entry, "bandwidth" in entry
    if has_cost == has_bw:
        raise InputError(origin, element, "give exactly one of 'cost' and 'bandwidth'"
                         + (" (both given)" if has_cost else " (neither given)"))
    if has_cost:
        cost = document_number(entry["cost"], origin, f"{element}.cost")
    else:
        cost = 1 / document_number(entry["bandwidth"], origin, f"{element}.bandwidth")
    startup = document_number(entry.get("startup", 0), origin, f"{element}.startup", positive=False)
    return Link(tail, head, cost, startup)


def _validate(p: Platform, origin: str) -> None:
    nodes = set()
    for i, v in enumerate(p.nodes):
        if not isinstance(v, str) or not v:
            raise InputError(origin, f"nodes[{i}]",
                             f"node names are non-empty strings, got {v!r}")
        if v in nodes:
            raise InputError(origin, f"nodes[{i}]", f"duplicate node {v!r}")
        nodes.add(v)
    if not isinstance(p.source, str) or p.source not in nodes:
        raise InputError(origin, "source", f"unknown source {p.source!r} (not among the nodes)")
    seen = set()
    for i, l in enumerate(p.links):
        element = f"links[{i}] ({l.tail}->{l.head})"
        for end in (l.tail, l.head):
            if end not in nodes:
                raise InputError(origin, element, f"unknown node {end!r} (not in 'nodes')")
        if l.tail == l.head:
            raise InputError(origin, element, "self-loop")
        if l.arc in seen:
            raise InputError(origin, element, "duplicate arc")
        seen.add(l.arc)
        if not (isinstance(l.cost, Fraction) and l.cost > 0):
            raise InputError(origin, f"{element}.cost", "must be an exact number > 0")
        if not (isinstance(l.startup, Fraction) and l.startup >= 0):
            raise InputError(origin, f"{element}.startup", "must be an exact number >= 0")
    for v in p.send_overhead:
        if v not in nodes:
            raise InputError(origin, f"send_overhead[{v!r}]", "unknown node")
        if v in p.switches:
            raise InputError(origin, f"send_overhead[{v!r}]", "a switch sends nothing of "
                             "its own (no send overhead)")
    _check_fabric(p, nodes, origin)
    if len(p.nodes) < 2:
        raise InputError(origin, "nodes", "no destination: a broadcast needs a node besides "
                         "the source")
    reached = {p.source}
    stack = [p.source]
    succ: dict[str, list[str]] = {}
    for l in p.links:
        succ.setdefault(l.tail, []).append(l.head)
    while stack:
        for w in succ.get(stack.pop(), ()):
            if w not in reached:
                reached.add(w)
                stack.append(w)
    unreachable = [v for v in p.nodes if v not in reached]
    if unreachable:
        raise InputError(origin, "nodes", "unreachable from the source "
                         f"{p.source!r}: " + ", ".join(unreachable))


def _switch_names(switches, origin: str) -> list[str]:
    """The switch names as given (order kept for the messages), without duplicates."""
    if isinstance(switches, (str, bytes)) or not isinstance(switches, Iterable):
        raise InputError(origin, "switches", "must be a list of node names")
    names, seen = [], set()
    for i, v in enumerate(switches):
        v = _name(v, origin, f"switches[{i}]")
        if v in seen:
            raise InputError(origin, f"switches[{i}]", f"duplicate switch {v!r}")
        seen.add(v)
        names.append(v)
    return names


def _check_fabric(p: Platform, nodes: set, origin: str) -> None:
    """The port model and the switches (issue 43): a switch is a known node with links
    in and out, never the source; some compute node besides the source."""
    if p.ports not in PORT_MODELS:
        raise InputError(origin, "ports", f"must be 'one-port' or 'multi-port', got "
                         f"{echo(p.ports)}")
    if not p.switches:
        return
    listed = [v for v in p.nodes if v in p.switches]
    unknown = sorted(p.switches - nodes)
    if unknown:
        raise InputError(origin, "switches", f"unknown node {unknown[0]!r} (not in 'nodes')")
    if p.source in p.switches:
        raise InputError(origin, "source", f"{p.source!r} is a switch: a switch forwards "
                         "but has no data of its own (the source is a compute node)")
    tails = {l.tail for l in p.links}
    heads = {l.head for l in p.links}
    for v in listed:
        if v not in tails or v not in heads:
            side = "no link" if v not in tails and v not in heads else (
                "no outgoing link" if v not in tails else "no incoming link")
            raise InputError(origin, f"switches ({v})", f"{side}: a switch forwards what "
                             "it receives, so it needs links in and out")
    if len(p.nodes) - len(p.switches) < 2:
        raise InputError(origin, "switches", "no compute destination: every node but the "
                         "source is a switch")


def _generators(symmetry, origin: str) -> tuple:
    """The symmetry's generators as read-only {node: image} maps of the nodes each one
    moves (checked against the platform by :func:`_check_symmetry`)."""
    if symmetry is None:
        return ()
    if isinstance(symmetry, (str, bytes, Mapping)) or not isinstance(symmetry, Iterable):
        raise InputError(origin, "symmetry", "must be a list of permutations "
                         "({node: image} objects)")
    found = []
    for i, g in enumerate(symmetry):
        if not isinstance(g, Mapping):
            raise InputError(origin, f"symmetry[{i}]", "a permutation is an object "
                             "{node: image}")
        moved = {}
        for a, b in g.items():
            a = _name(a, origin, f"symmetry[{i}]")
            b = _name(b, origin, f"symmetry[{i}] ({a})")
            if a != b:
                moved[a] = b
        found.append(MappingProxyType(moved))
    return tuple(found)


def _frozen(g) -> frozenset:
    return frozenset(g.items())


def _check_symmetry(p: Platform, origin: str) -> None:
    """Every generator is an automorphism: a permutation of the nodes that keeps the
    switches, every link with its cost and start-up, and the send overheads (issue 43;
    checked link by link, so the group it generates is a group of automorphisms)."""
    if not p.symmetry:
        return
    if p.network is not None:
        raise InputError(origin, "symmetry", "not supported with a network section")
    nodes = set(p.nodes)
    arcs = {l.arc: (l.cost, l.startup) for l in p.links}
    for i, g in enumerate(p.symmetry):
        where = f"symmetry[{i}]"
        for a, b in g.items():
            for v in (a, b):
                if v not in nodes:
                    raise InputError(origin, where, f"unknown node {v!r}")
        if sorted(g.values()) != sorted(g):
            raise InputError(origin, where, "not a permutation: the images of the moved "
                             "nodes are not the moved nodes")
        for a, b in g.items():
            if (a in p.switches) != (b in p.switches):
                raise InputError(origin, where, f"maps {a} to {b}: a switch and a compute "
                                 "node")
            if p.send_overhead.get(a) != p.send_overhead.get(b):
                raise InputError(origin, where, f"maps {a} to {b}, whose send overheads "
                                 "differ")
        for (u, v), facts in arcs.items():
            image = (g.get(u, u), g.get(v, v))
            if arcs.get(image) != facts:
                what = "not a link" if image not in arcs else "a link of another cost"
                raise InputError(origin, where, f"maps the link {u}->{v} to {image[0]}->"
                                 f"{image[1]}, {what}: not an automorphism")


def default_platform() -> Platform:
    """The embedded default: the platform of 002 Figure 1 (optimal throughput 1)."""
    from importlib.resources import files

    text = files("steady").joinpath("data/figure1.json").read_text(encoding="utf-8")
    return _from_document(loads_json(text, "<embedded figure-1>"), "<embedded figure-1>")


def load_platform(path) -> tuple[Platform, str]:
    """(platform, origin) of a command's optional PLATFORM argument: the file, or the
    embedded default when ``path`` is None."""
    if path is None:
        return default_platform(), "<embedded figure-1>"
    return Platform.from_file(path), str(path)


def load_tree(path, platform: Platform) -> dict[str, str]:
    """A tree file: ``{"format": "steady-tree", "version": 1, "edges": [[u, v], ...]}``
    or a steady-platform document whose links are the tree's arcs.  Returns
    child -> parent, validated as a spanning arborescence of ``platform``."""
    origin = str(path)
    doc = load_json(path)
    if isinstance(doc, dict) and doc.get("format") == FORMAT:
        edges = [[l.tail, l.head] for l in Platform.from_dict(doc, origin).links]
    elif isinstance(doc, dict) and doc.get("format") == "steady-tree":
        if doc.get("version", 1) != 1:
            raise InputError(origin, "version", f"unsupported version {doc['version']!r}")
        unknown = sorted(set(doc) - {"format", "version", "edges"})
        if unknown:
            raise InputError(origin, f"key {unknown[0]!r}", "unknown key")
        edges = doc.get("edges")
    else:
        got = doc.get("format") if isinstance(doc, dict) else None
        raise InputError(origin, "format", "expected 'steady-tree' or 'steady-platform', "
                         f"got {echo(got)}")
    parent = _tree_edges(edges, origin)
    platform.check_arborescence(parent, origin)
    return parent


def _tree_edges(edges, origin: str) -> dict[str, str]:
    """child -> parent of a tree file's ``edges``, each child with one parent."""
    if not isinstance(edges, list):
        raise InputError(origin, "edges", "must be a list of [parent, child] pairs")
    parent: dict[str, str] = {}
    for i, edge in enumerate(edges):
        if not (isinstance(edge, list) and len(edge) == 2 and all(isinstance(x, str) for x in edge)):
            raise InputError(origin, f"edges[{i}]", "an edge is a pair [parent, child] of names")
        par, child = edge
        if child in parent:
            raise InputError(origin, f"edges[{i}]", f"{child} has two parents")
        parent[child] = par
    return parent
