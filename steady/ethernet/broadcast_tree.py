"""A logical broadcast tree over the machines of a cluster (seed 004 §3.1, §4.1).

The children of a machine are kept in *send order*: in a pipelined broadcast a machine
forwards each segment to its children one after the other (1-port model), first to the
first child ("left child" in 004 §4.2), then to the second, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence


@dataclass(frozen=True)
class BroadcastTree:
    """A rooted tree: ``children[u]`` lists u's children in send order."""

    root: str
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self):
        frozen = {u: tuple(vs) for u, vs in self.children.items() if vs}
        object.__setattr__(self, "children", MappingProxyType(frozen))

    @classmethod
    def from_edges(cls, root: str, edges: Sequence[tuple[str, str]]) -> "BroadcastTree":
        """From (parent, child) pairs; a parent's children keep the order of ``edges``."""
        children: dict[str, list[str]] = {}
        for parent, child in edges:
            children.setdefault(parent, []).append(child)
        return cls(root, {u: tuple(vs) for u, vs in children.items()})

    def edges(self) -> list[tuple[str, str]]:
        """The communications parent -> child, depth first from the root, children in
        send order."""
        out, stack, seen = [], [self.root], {self.root}
        while stack:
            u = stack.pop()
            kids = self.children.get(u, ())
            if seen.intersection(kids):
                raise ValueError(f"not a tree: a child of {u!r} is reached twice")
            seen.update(kids)
            out.extend((u, v) for v in kids)
            stack.extend(reversed(kids))
        return out

    def nodes(self) -> list[str]:
        """The root, then every node in the depth-first order of :meth:`edges`."""
        return [self.root] + [v for _, v in self.edges()]

    def parent(self) -> dict[str, str]:
        return {v: u for u, vs in self.children.items() for v in vs}

    def depths(self) -> dict[str, int]:
        """Number of tree edges from the root to every node."""
        depth = {self.root: 0}
        for u, v in self.edges():
            depth[v] = depth[u] + 1
        return depth

    @property
    def height(self) -> int:
        """The longest root-to-leaf path, in edges (004 Figure 4's ``best``)."""
        return max(self.depths().values())

    @property
    def max_degree(self) -> int:
        """The largest number of children of a node (D of 004 §3.1)."""
        return max((len(vs) for vs in self.children.values()), default=0)

    def spans(self, machines) -> bool:
        """True when the tree reaches exactly ``machines`` from the root, each once."""
        nodes = self.nodes()
        return len(nodes) == len(set(nodes)) and set(nodes) == set(machines)

    def to_dict(self) -> dict:
        return {"root": self.root, "edges": [list(e) for e in self.edges()]}
