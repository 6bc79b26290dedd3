"""The cluster model of seed 001 §3 (pLogP between coordinators) and its file format.

A grid is a set of clusters, each reduced to its coordinator and to the time ``T_k`` its
intra-cluster broadcast takes once the coordinator starts it.  Between the coordinators
of clusters i and j, the pLogP model gives a latency ``L_ij`` and a gap ``g_ij(m)`` for
the broadcast's message size m; a grid holds the gaps of that one message size.

The broadcast, in the words of 001 §3-§4 made precise (our choices are marked *):

* Set A holds the clusters whose coordinator has the message, initially the root's
  cluster alone (time 0); set B the others.
* A send from i in A to j in B starts at a time s when i has the message and is free,
  occupies i during [s, s + g_ij) (a coordinator sends one message at a time, pLogP's
  gap), and makes the message available at j at s + g_ij + L_ij (001 §4.3).  A cluster
  receives the message exactly once.  *Receiving occupies nobody: a coordinator may
  receive while nothing else happens to it, and the latency is network time.
* RT_i, the ready time of i, is when i has the message and has finished its last send.
* A coordinator starts its intra-cluster broadcast once it takes part in no further
  inter-cluster communication (001 §3): at the later of its arrival time and the end of
  its last send (*a send's part on the sender ends with the gap, not with the latency);
  cluster k finishes at that start plus T_k.  The makespan is the latest finish.
* *L and g may be asymmetric (L_ij != L_ji); the campaign draws symmetric values
  (:mod:`steady.grid.draws`), as measured latencies are (001 Table 3).
* Bounds of the inputs: g_ij > 0 (a gap is a positive time: two sends of one
  coordinator never coincide), L_ij >= 0, T_k >= 0 (a one-machine cluster has T = 0).

Times are exact: ints when the file's numbers are integers, else Fractions.

File format ``steady-grid`` v1 (JSON)::

    {"format": "steady-grid", "version": 1, "name": "table-3", "unit": "us",
     "root": "C0", "message_size": 4194304,
     "clusters": [{"name": "C0", "broadcast_time": "200237.8", "nodes": 31,
                   "site": "Orsay", "latency": "47.56"}, ...],
     "latency": [[null, "62.10", ...], ...],
     "gap": "400000",
     "notes": ["where the numbers come from"]}

``latency`` and ``gap`` are n x n matrices in the order of ``clusters`` with a null
diagonal, or a single number for every pair.  ``unit`` (``s``, ``ms`` or ``us``, default
``ms``) names the time unit of every number; ``message_size`` (bytes), ``nodes``,
``site``, a cluster's own ``latency`` (its intra-cluster latency, Table 3's diagonal)
and ``notes`` are information only.  Unknown keys are rejected.
"""

from __future__ import annotations

from decimal import Decimal
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from ..errors import InputError
from ..fileio import JsonDocument, check_format, check_version
from ..numbers import document_number, format_exact, parse_exact

FORMAT = "steady-grid"
VERSION = 1
#: Clusters of a grid file, at most (docs/limits.md): its L and g tables are clusters
#: x clusters exact numbers (1000 clusters, 24 MB: 31 s to read, 98 s for `steady grid
#: schedule` on a loaded 2-core machine); the campaigns' --clusters has the same bound.
MAX_CLUSTERS = 1000
UNITS = ("s", "ms", "us")
_TOP_KEYS = {"format", "version", "name", "unit", "root", "message_size", "clusters",
             "latency", "gap", "notes"}
_CLUSTER_KEYS = {"name", "broadcast_time", "nodes", "site", "latency"}


def exact(x):
    """``x`` as an int when it is integral, else as a Fraction: integer grids (the
    campaign's microseconds) then compute with plain ints, exactly and fast."""
    if type(x) is int:
        return x
    x = parse_exact(x)   # a Python float by its decimal text: 0.1 is 1/10
    return x.numerator if x.denominator == 1 else x


@dataclass(frozen=True)
class Cluster:
    """One cluster: its name, the broadcast time T_k inside it, and information."""

    name: str
    broadcast_time: int | Fraction
    nodes: int | None = None
    site: str | None = None
    latency: int | Fraction | None = None


class Grid(JsonDocument):
    """An immutable, validated grid of clusters (001 §3): ``T[k]``, ``L[i][j]``,
    ``g[i][j]`` by cluster index, ``root`` the index of the root's cluster."""

    __slots__ = ("name", "unit", "clusters", "root", "L", "g", "T", "message_size",
                 "notes")

    def __init__(self, clusters: Sequence[Cluster], latency, gap, root: int = 0,
                 name: str = "", unit: str = "ms", message_size=None, notes=(),
                 origin: str = "<grid>"):
        clusters = tuple(clusters)
        n = len(clusters)
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "unit", unit)
        set_(self, "clusters", clusters)
        set_(self, "root", root)
        set_(self, "T", tuple(exact(c.broadcast_time) for c in clusters))
        set_(self, "L", _matrix(latency, n))
        set_(self, "g", _matrix(gap, n))
        set_(self, "message_size", message_size)
        set_(self, "notes", tuple(notes))
        _validate(self, origin)

    def __setattr__(self, key, value):
        raise AttributeError("Grid is immutable")

    @property
    def size(self) -> int:
        return len(self.clusters)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.clusters)

    def index(self, name: str) -> int:
        for k, c in enumerate(self.clusters):
            if c.name == name:
                return k
        raise KeyError(name)

    def transfer(self, i: int, j: int):
        """g_ij + L_ij: the time from the start of a send i -> j to its arrival."""
        return self.g[i][j] + self.L[i][j]

    def with_root(self, root: int) -> "Grid":
        """The same grid broadcasting from cluster ``root``."""
        return Grid(self.clusters, self.L, self.g, root, self.name, self.unit,
                    self.message_size, self.notes)

    def __eq__(self, other):
        if not isinstance(other, Grid):
            return NotImplemented
        return (self.clusters, self.L, self.g, self.root) == \
            (other.clusters, other.L, other.g, other.root)

    def __hash__(self):
        return hash((self.clusters, self.L, self.g, self.root))

    def __repr__(self):
        return (f"Grid(name={self.name!r}, {self.size} clusters, "
                f"root={self.clusters[self.root].name!r}, unit={self.unit!r})")

    # -- documents ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """The steady-grid v1 document of this grid (exact numbers as text)."""
        doc = {"format": FORMAT, "version": VERSION}
        if self.name:
            doc["name"] = self.name
        doc["unit"] = self.unit
        doc["root"] = self.clusters[self.root].name
        if self.message_size is not None:
            doc["message_size"] = format_exact(self.message_size)
        doc["clusters"] = [_cluster_dict(c) for c in self.clusters]
        doc["latency"] = _matrix_doc(self.L)
        doc["gap"] = _matrix_doc(self.g)
        if self.notes:
            doc["notes"] = list(self.notes)
        return doc

    @staticmethod
    def _read(doc, origin: str):
        return _from_document(doc, origin)


def _matrix(values, n: int) -> tuple:
    """An n x n tuple of exact numbers with a zero diagonal (the diagonal is unused)."""
    return tuple(tuple(0 if i == j else exact(values[i][j]) for j in range(n))
                 for i in range(n))


def _cluster_dict(c: Cluster) -> dict:
    entry = {"name": c.name, "broadcast_time": format_exact(c.broadcast_time)}
    if c.nodes is not None:
        entry["nodes"] = c.nodes
    if c.site is not None:
        entry["site"] = c.site
    if c.latency is not None:
        entry["latency"] = format_exact(c.latency)
    return entry


def _matrix_doc(m) -> list:
    return [[None if i == j else format_exact(x) for j, x in enumerate(row)]
            for i, row in enumerate(m)]


# -- parsing and validation -------------------------------------------------------

def _object(value, origin: str, element: str, allowed: set, what: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(origin, element, f"{what} is a JSON object")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise InputError(origin, f"{element}.{unknown[0]}" if element != "document"
                         else f"key {unknown[0]!r}",
                         "unknown key (allowed: " + ", ".join(sorted(allowed)) + ")")
    return value


def _from_document(doc, origin: str) -> Grid:
    check_format(doc, origin, FORMAT, required=True)   # first: another kind is named
    doc = _object(doc, origin, "document", _TOP_KEYS, "a steady-grid document")
    check_version(doc, origin, VERSION, required=False)
    name = _text(doc.get("name", ""), origin, "name")
    unit = doc.get("unit", "ms")
    if unit not in UNITS:
        raise InputError(origin, "unit", f"expected one of {', '.join(UNITS)}, got {unit!r}")
    message_size = None
    if "message_size" in doc:
        message_size = exact(document_number(doc["message_size"], origin, "message_size", True))
    notes = doc.get("notes", [])
    if isinstance(notes, str):
        notes = [notes]
    if not (isinstance(notes, list) and all(isinstance(x, str) for x in notes)):
        raise InputError(origin, "notes", "a string or a list of strings")
    clusters_doc = doc.get("clusters")
    if not isinstance(clusters_doc, list):
        raise InputError(origin, "clusters", "missing or not a list of clusters")
    if len(clusters_doc) > MAX_CLUSTERS:
        raise InputError(origin, "clusters", f"{len(clusters_doc)} clusters, more than the "
                         f"{MAX_CLUSTERS} steady reads (its tables are clusters x clusters: "
                         "1000 take a minute to read; docs/limits.md)")
    clusters = [_cluster(c, origin, k) for k, c in enumerate(clusters_doc)]
    if len(clusters) < 2:
        raise InputError(origin, "clusters", "a broadcast needs a cluster besides the "
                         "root's (at least 2 clusters)")
    names = [c.name for c in clusters]
    if "root" not in doc:
        raise InputError(origin, "root", "missing (the cluster that broadcasts)")
    if doc["root"] not in names:
        raise InputError(origin, "root", f"unknown cluster {doc['root']!r} (not among "
                         "the clusters)")
    n = len(clusters)
    latency = _pairs(doc, "latency", n, origin, positive=False)
    gap = _pairs(doc, "gap", n, origin, positive=True)
    return Grid(clusters, latency, gap, names.index(doc["root"]), name, unit,
                message_size, notes, origin)


def _text(value, origin: str, element: str) -> str:
    if not isinstance(value, str):
        raise InputError(origin, element, "must be a string")
    return value


def _cluster(entry, origin: str, k: int) -> Cluster:
    element = f"clusters[{k}]"
    entry = _object(entry, origin, element, _CLUSTER_KEYS, "a cluster")
    if not isinstance(entry.get("name"), str) or not entry["name"]:
        raise InputError(origin, f"{element}.name", "cluster names are non-empty strings")
    if "broadcast_time" not in entry:
        raise InputError(origin, f"{element}.broadcast_time",
                         "missing (T_k, the intra-cluster broadcast time)")
    t = document_number(entry["broadcast_time"], origin, f"{element}.broadcast_time", False)
    nodes = entry.get("nodes")
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int)
                              or nodes < 1):
        # numbers as the file wrote them (2.5, not Decimal('2.5')), anything else quoted
        shown = str(nodes) if isinstance(nodes, (int, Decimal)) and \
            not isinstance(nodes, bool) else repr(nodes)
        raise InputError(origin, f"{element}.nodes", f"a whole number of machines >= 1, "
                         f"got {shown}")
    site = entry.get("site")
    if site is not None:
        _text(site, origin, f"{element}.site")
    latency = entry.get("latency")
    if latency is not None:
        latency = exact(document_number(latency, origin, f"{element}.latency", False))
    return Cluster(entry["name"], exact(t), nodes, site, latency)


def _pairs(doc, key: str, n: int, origin: str, positive: bool) -> list:
    """A full matrix from ``doc[key]``: n rows of n entries with a null diagonal, or one
    number for every pair."""
    if key not in doc:
        raise InputError(origin, key, "missing (an n x n matrix or one number)")
    value = doc[key]
    if not isinstance(value, list):
        x = document_number(value, origin, key, positive)
        return [[x] * n for _ in range(n)]
    if len(value) != n:
        raise InputError(origin, key, f"expected {n} rows (one per cluster), got "
                         f"{len(value)}")
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != n:
            raise InputError(origin, f"{key}[{i}]", f"expected a row of {n} entries")
        if row[i] is not None:
            raise InputError(origin, f"{key}[{i}][{i}]", "the diagonal is null (inside a "
                             "cluster, time is the cluster's broadcast_time)")
        rows.append([0 if i == j else document_number(x, origin, f"{key}[{i}][{j}]", positive)
                     for j, x in enumerate(row)])
    return rows


def _validate(grid: Grid, origin: str) -> None:
    """Checks of a Grid built in Python (a file was checked element by element)."""
    n = grid.size
    seen = set()
    for k, c in enumerate(grid.clusters):
        if not isinstance(c.name, str) or not c.name:
            raise InputError(origin, f"clusters[{k}].name", "cluster names are non-empty "
                             "strings")
        if c.name in seen:
            raise InputError(origin, f"clusters[{k}].name", f"duplicate cluster {c.name!r}")
        seen.add(c.name)
        if grid.T[k] < 0:
            raise InputError(origin, f"clusters[{k}].broadcast_time", "must be >= 0")
    if n < 2:
        raise InputError(origin, "clusters", "a broadcast needs a cluster besides the "
                         "root's")
    if not (isinstance(grid.root, int) and 0 <= grid.root < n):
        raise InputError(origin, "root", f"no cluster with index {grid.root!r}")
    if grid.unit not in UNITS:
        raise InputError(origin, "unit", f"expected one of {', '.join(UNITS)}")
    for i in range(n):
        for j in range(n):
            if i != j and grid.L[i][j] < 0:
                raise InputError(origin, f"latency[{i}][{j}]", "must be >= 0")
            if i != j and grid.g[i][j] <= 0:
                raise InputError(origin, f"gap[{i}][{j}]", "must be > 0")
