"""What the Python API accepts as a platform and as a broadcast tree (issue 21; ours).

The public doors (``steady.throughput.throughput``, ``dag_throughput``,
``tree_throughput``, ``collective_throughput``, the schedule builders of
:mod:`steady.schedule` and the checkers ``steady.certificate.check`` and
``check_collective``) call these once, on their first line, so that every caller may
pass what a Python user has at hand:

* a **platform**: a :class:`~steady.platform.Platform`; a steady-platform v1 document
  as a dict (docs/formats.md); a ``networkx.DiGraph`` whose edges carry ``cost`` or
  ``bandwidth`` (or ``capacity``, a bandwidth as ForestColl names it) -- or, with
  none, networkx's usual ``weight``, read as the cost -- and whose source is
  ``G.graph["source"]`` (when unset: the one node without an in-link; on a switched
  or multi-port graph, the first compute node); nodes whose attribute ``switch`` is
  true are switches and ``G.graph["ports"]`` is the port model (issue 43); or a path
  (``pathlib.Path``) to a steady-platform file;
* a **tree** (a spanning arborescence rooted at the source): a ``{child: parent}`` dict;
  an iterable of ``(parent, child)`` edges; a networkx tree (a DiGraph's arcs run from
  parent to child, an undirected tree is oriented away from the source); or any object
  with such ``edges`` (a schedule's ``TreeEntry``).

Numbers inside follow the file format: exact ints, Fractions, Decimals, text such as
``"1/3"`` or ``"0.1"``, and floats by their shortest decimal text (``0.1`` is 1/10).
Bad content raises :class:`~steady.errors.InputError` naming the element; a value of
the wrong kind altogether raises ``TypeError`` saying what is accepted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from .errors import InputError
from .platform import Platform

__all__ = ["as_platform", "as_tree", "platform_and_tree"]

_PLATFORM_KINDS = ("a Platform, a steady-platform document (dict), a networkx DiGraph "
                   "or the path of a steady-platform file")


def as_platform(value, origin: str | None = None) -> Platform:
    """``value`` as a validated :class:`Platform` (see the module docstring)."""
    if isinstance(value, Platform):
        return value
    if isinstance(value, Mapping):
        return Platform.from_dict(dict(value), origin or "<dict>")
    if _is_networkx(value):
        return _from_networkx(value)
    if isinstance(value, os.PathLike):
        return Platform.from_file(value)
    raise TypeError(f"expected {_PLATFORM_KINDS}, got {type(value).__name__}")


def as_tree(platform: Platform, value, origin: str = "<tree>") -> dict[str, str]:
    """``value`` as ``{child: parent}``, checked to be a spanning arborescence of
    ``platform`` rooted at its source over existing links (InputError otherwise)."""
    if isinstance(value, Mapping):
        parent = {_node(c): _node(p) for c, p in value.items()}
    elif _is_networkx(value):
        edges = (value.edges() if value.is_directed()
                 else _oriented(value, platform.source))
        parent = _parents(edges, origin)
    elif hasattr(value, "edges") or (isinstance(value, Iterable)
                                     and not isinstance(value, (str, bytes))):
        parent = _parents(getattr(value, "edges", value), origin)
    else:
        raise TypeError("expected a tree as a {child: parent} dict, a list of (parent, "
                        f"child) edges or a networkx tree, got {type(value).__name__}")
    platform.check_arborescence(parent, origin)
    return parent


def platform_and_tree(platform, tree, origin: str = "<tree>") -> tuple[Platform, dict]:
    """Both conversions at once, for the doors that take a platform and a tree."""
    platform = as_platform(platform)
    return platform, as_tree(platform, tree, origin)


# -- networkx ------------------------------------------------------------------------

def _is_networkx(value) -> bool:
    # Duck-typed, so that networkx is imported only by its users.
    return all(hasattr(value, a) for a in ("is_directed", "edges", "nodes", "graph"))


def _from_networkx(graph) -> Platform:
    from .platform import networkx_switches

    source = graph.graph.get("source")
    switches = set(networkx_switches(graph))
    if source is None and (switches or graph.graph.get("ports") == "multi-port"):
        # a collective's fabric: the source only names a broadcast's root
        source = next((v for v in graph.nodes if str(v) not in switches), None)
    if source is None and graph.is_directed():
        roots = [v for v, d in graph.in_degree() if d == 0]
        if len(roots) != 1:
            raise InputError("<networkx>", "graph['source']", "say which node broadcasts: "
                             "G.graph['source'] = name (" + (
                                 f"{len(roots)} nodes have no in-link" if roots
                                 else "every node has an in-link") + ")")
        source = roots[0]
    name = graph.graph.get("name", "")
    return Platform.from_networkx(graph, "" if source is None else source,
                                  name=name if isinstance(name, str) else str(name))


def _oriented(tree, source: str) -> list[tuple[str, str]]:
    """The edges of an undirected tree, each from the end nearer the source."""
    adjacent: dict[str, list[str]] = {}
    for u, v in tree.edges():
        adjacent.setdefault(_node(u), []).append(_node(v))
        adjacent.setdefault(_node(v), []).append(_node(u))
    edges, seen, stack = [], {source}, [source]
    while stack:
        u = stack.pop()
        for v in adjacent.get(u, ()):
            if v not in seen:
                seen.add(v)
                edges.append((u, v))
                stack.append(v)
    return edges


# -- edges -----------------------------------------------------------------------------

def _node(v) -> str:
    """A node name as Platform spells it (Platform.from_networkx uses ``str(node)``)."""
    return v if isinstance(v, str) else str(v)


def _parents(edges, origin: str) -> dict[str, str]:
    parent: dict[str, str] = {}
    for i, edge in enumerate(edges):
        if isinstance(edge, (str, bytes)) or not (isinstance(edge, Iterable)
                                                   and len(edge := tuple(edge)) == 2):
            raise InputError(origin, f"edges[{i}]", "an edge is a pair (parent, child), "
                             f"got {edge!r}")
        par, child = map(_node, edge)
        if child in parent and parent[child] != par:
            raise InputError(origin, f"edges[{i}]", f"{child} has two parents, "
                             f"{parent[child]} and {par}")
        parent[child] = par
    return parent
