"""An Ethernet switched cluster: a tree of switches with machines as leaves (seed 004 §3).

Seed 004 §3: "the physical topology of the network is always a tree with switches being
the internal nodes and machines being leaves"; every link is full duplex, so the network
is the directed graph G = (V, E) with V = S ∪ M and both directions (u, v), (v, u) of
every link as separate channels.  path(u -> v) is the set of directed edges of the unique
simple path from u to v.

File format ``steady-ethernet-cluster`` v1 (every key but ``name`` required, unknown keys
rejected)::

    {"format": "steady-ethernet-cluster", "version": 1, "name": "figure-1",
     "root": "n0",
     "switches": ["s0", "s1", "s2", "s3"],
     "machines": ["n0", "n1", "n2", "n3"],
     "links": [["s0", "s1"], ["s1", "s2"], ["s1", "s3"],
               ["n0", "s0"], ["n1", "s1"], ["n2", "s2"], ["n3", "s3"]]}

A link is an unordered pair of node names.  Valid documents describe a tree (connected,
|links| = |switches| + |machines| - 1, no cycle, no duplicate link, no self-loop) in which
every machine has exactly one link, to a switch (machines are leaves), and ``root`` (the
machine that broadcasts) is a machine.  Switches may carry no machine.  The order of
``links`` is the order in which Algorithm 1's depth-first search visits neighbours, and
the order of ``machines`` the order of the machines on a switch: results are
deterministic functions of the file.
"""

from __future__ import annotations

import json
from collections import deque
from types import MappingProxyType
from typing import Iterable

from ..errors import InputError
from ..fileio import JsonDocument
from .formats import check_header

FORMAT = "steady-ethernet-cluster"
VERSION = 1
_TOP_KEYS = {"format", "version", "name", "root", "switches", "machines", "links"}

Edge = tuple[str, str]


class Cluster(JsonDocument):
    """An immutable, validated switched cluster (seed 004 §3)."""

    __slots__ = ("name", "root", "switches", "machines", "links", "_adjacent",
                 "_switch_of", "_up", "_depth")

    def __init__(self, switches: Iterable[str], machines: Iterable[str],
                 links: Iterable[Edge], root: str, name: str = "",
                 origin: str = "<cluster>"):
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "root", root)
        set_(self, "switches", tuple(switches))
        set_(self, "machines", tuple(machines))
        set_(self, "links", tuple((str(a), str(b)) for a, b in links))
        adjacent = _validate(self, origin)
        set_(self, "_adjacent", MappingProxyType({v: tuple(ns) for v, ns in adjacent.items()}))
        set_(self, "_switch_of", MappingProxyType(
            {m: self._adjacent[m][0] for m in self.machines}))
        up, depth = _rooted(self._adjacent, self._switch_of[root])
        set_(self, "_up", MappingProxyType(up))
        set_(self, "_depth", MappingProxyType(depth))

    def __setattr__(self, key, value):
        raise AttributeError("Cluster is immutable")

    def __repr__(self):
        return (f"Cluster(name={self.name!r}, root={self.root!r}, "
                f"{len(self.switches)} switches, {len(self.machines)} machines)")

    def __eq__(self, other):
        if not isinstance(other, Cluster):
            return NotImplemented
        return (self.root == other.root and self.switches == other.switches
                and self.machines == other.machines and self.links == other.links)

    def __hash__(self):
        return hash((self.root, self.switches, self.machines, self.links))

    # -- queries -----------------------------------------------------------------
    def switch_of(self, machine: str) -> str:
        """The switch a machine is attached to."""
        return self._switch_of[machine]

    def neighbours(self, node: str) -> tuple[str, ...]:
        """Adjacent nodes, in the order of the file's links."""
        return self._adjacent[node]

    def machines_on(self, switch: str) -> tuple[str, ...]:
        """The machines attached to ``switch``, in the order of ``machines``."""
        return tuple(m for m in self.machines if self._switch_of[m] == switch)

    def switch_neighbours(self, switch: str) -> tuple[str, ...]:
        """The switches linked to ``switch`` (the graph G' of 004 §4.1.1), in file order."""
        return tuple(v for v in self._adjacent[switch] if v not in self._switch_of)

    def path(self, u: str, v: str) -> tuple[Edge, ...]:
        """path(u -> v): the directed edges of the unique simple path, in order (004 §3)."""
        up_part, down_part = [], []
        while self._depth[u] > self._depth[v]:
            up_part.append((u, self._up[u]))
            u = self._up[u]
        while self._depth[v] > self._depth[u]:
            down_part.append((self._up[v], v))
            v = self._up[v]
        while u != v:
            up_part.append((u, self._up[u]))
            down_part.append((self._up[v], v))
            u, v = self._up[u], self._up[v]
        return tuple(up_part) + tuple(reversed(down_part))

    # -- documents ---------------------------------------------------------------
    def to_dict(self) -> dict:
        doc = {"format": FORMAT, "version": VERSION}
        if self.name:
            doc["name"] = self.name
        doc.update({"root": self.root, "switches": list(self.switches),
                    "machines": list(self.machines),
                    "links": [list(link) for link in self.links]})
        return doc

    def to_json(self) -> str:
        """The document, one key per line and one link per line (diff-friendly)."""
        doc = self.to_dict()
        links = doc.pop("links")
        lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in doc.items()]
        body = ",\n".join(f"  {json.dumps(link)}" for link in links)
        return "{\n" + "\n".join(lines) + f'\n "links": [\n{body}\n ]\n}}\n'

    @staticmethod
    def _read(doc, origin: str):
        return _from_document(doc, origin)


# -- validation ---------------------------------------------------------------------

def _validate(cluster: Cluster, origin: str) -> dict[str, list[str]]:
    """Check the tree rules of the module docstring; return the adjacency lists."""
    kind: dict[str, str] = {}
    for group in ("switches", "machines"):
        names = getattr(cluster, group)
        if not names:
            raise InputError(origin, group, "needs at least one name")
        for i, v in enumerate(names):
            if not isinstance(v, str) or not v:
                raise InputError(origin, f"{group}[{i}]",
                                 f"names are non-empty strings, got {v!r}")
            if v in kind:
                other = "switch" if kind[v] == "switches" else "machine"
                raise InputError(origin, f"{group}[{i}]", f"{v!r} is already a {other}")
            kind[v] = group
    if cluster.root not in kind:
        raise InputError(origin, "root", f"unknown node {cluster.root!r}")
    if kind[cluster.root] != "machines":
        raise InputError(origin, "root", f"{cluster.root!r} is a switch; the root of the "
                         "broadcast is a machine")
    adjacent: dict[str, list[str]] = {v: [] for v in kind}
    component = {v: v for v in kind}          # union-find: a link closing a cycle is named

    def find(v):
        while component[v] != v:
            component[v] = component[component[v]]
            v = component[v]
        return v

    for i, (a, b) in enumerate(cluster.links):
        element = f"links[{i}]"
        for v in (a, b):
            if v not in kind:
                raise InputError(origin, element, f"unknown node {v!r}")
        if a == b:
            raise InputError(origin, element, f"self-loop on {a!r}")
        if kind[a] == kind[b] == "machines":
            raise InputError(origin, element, f"machines {a!r} and {b!r} are linked "
                             "directly; machines connect to switches only")
        if b in adjacent[a]:
            raise InputError(origin, element, f"duplicate link {a!r} - {b!r}")
        for m in (a, b):
            if kind[m] == "machines" and adjacent[m]:
                raise InputError(origin, element, f"machine {m!r} has a second link; "
                                 "machines are leaves of the tree")
        ra, rb = find(a), find(b)
        if ra == rb:
            raise InputError(origin, element, f"link {a!r} - {b!r} closes a cycle; the "
                             "network must be a tree")
        component[ra] = rb
        adjacent[a].append(b)
        adjacent[b].append(a)
    for group in ("machines", "switches"):
        for i, v in enumerate(getattr(cluster, group)):
            if find(v) != find(cluster.root):
                raise InputError(origin, f"{group}[{i}]", f"{v!r} is not connected to the "
                                 f"root {cluster.root!r}")
    return adjacent


def _rooted(adjacent, top: str):
    """Parent pointers and depths of the tree hung from ``top`` (for path queries)."""
    up, depth = {top: top}, {top: 0}
    queue = deque([top])
    while queue:
        u = queue.popleft()
        for v in adjacent[u]:
            if v not in depth:
                up[v], depth[v] = u, depth[u] + 1
                queue.append(v)
    return up, depth


def _from_document(doc, origin: str) -> Cluster:
    check_header(doc, origin, FORMAT, VERSION, _TOP_KEYS)
    name = doc.get("name", "")
    if not isinstance(name, str):
        raise InputError(origin, "name", "must be a string")
    for key in ("root", "switches", "machines", "links"):
        if key not in doc:
            raise InputError(origin, key, "missing")
    for key in ("switches", "machines", "links"):
        if not isinstance(doc[key], list):
            raise InputError(origin, key, "must be a list")
    for i, link in enumerate(doc["links"]):
        if not (isinstance(link, list) and len(link) == 2
                and all(isinstance(v, str) for v in link)):
            raise InputError(origin, f"links[{i}]", "a link is a pair [node, node] of names")
    if not isinstance(doc["root"], str):
        raise InputError(origin, "root", "must be a machine name")
    return Cluster(doc["switches"], doc["machines"], [tuple(l) for l in doc["links"]],
                   doc["root"], name, origin)
