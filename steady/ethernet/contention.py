"""Contention between communications on a switched cluster (seed 004 §3, §4.1).

Seed 004 §3: two communications u1 -> v1 and u2 -> v2 "have contention if they share a
common edge", a directed edge (x, y) in both path(u1 -> v1) and path(u2 -> v2); a
*pattern* is a set of communications, contention-free when no two of them have
contention.  §4.1: under the 1-port model the communications a machine originates never
run at the same time, so a broadcast tree is contention-free for pipelined broadcast when
no two communications *from different machines* have contention.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .cluster import Cluster, Edge

Communication = tuple[str, str]


@dataclass(frozen=True)
class Contention:
    """Two communications of a pattern and the directed edges they share."""

    first: Communication
    second: Communication
    edges: tuple[Edge, ...]

    def to_dict(self) -> dict:
        return {"first": list(self.first), "second": list(self.second),
                "edges": [list(e) for e in self.edges]}

    def text(self) -> str:
        shared = ", ".join(f"({a},{b})" for a, b in self.edges)
        return f"{self.first[0]}->{self.first[1]} and {self.second[0]}->{self.second[1]} " \
               f"share {shared}"


def users_of_edges(cluster: Cluster, pattern: Iterable[Communication]) -> dict:
    """Directed edge -> the communications of ``pattern`` whose path uses it."""
    users: dict[Edge, list[Communication]] = {}
    for comm in pattern:
        for edge in cluster.path(*comm):
            users.setdefault(edge, []).append(comm)
    return users


def contending_pairs(cluster: Cluster, pattern: Iterable[Communication],
                     different_senders: bool = False) -> list[Contention]:
    """Every pair of communications of ``pattern`` that have contention (004 §3), with
    the edges they share; with ``different_senders`` only pairs from different machines
    (the pairs that can be active at the same time in a pipelined broadcast, §4.1).
    Pairs come in the order of ``pattern``."""
    pattern = list(dict.fromkeys(pattern))
    position = {c: i for i, c in enumerate(pattern)}
    shared: dict[tuple[Communication, Communication], list[Edge]] = {}
    for edge, comms in users_of_edges(cluster, pattern).items():
        for i, c1 in enumerate(comms):
            for c2 in comms[i + 1:]:
                if different_senders and c1[0] == c2[0]:
                    continue
                pair = (c1, c2) if position[c1] < position[c2] else (c2, c1)
                shared.setdefault(pair, []).append(edge)
    pairs = sorted(shared, key=lambda p: (position[p[0]], position[p[1]]))
    return [Contention(a, b, tuple(shared[(a, b)])) for a, b in pairs]


def is_contention_free_tree(cluster: Cluster, pattern: Iterable[Communication]) -> bool:
    """True when no directed edge carries communications from two different senders:
    the contention-freedom of a pipelined broadcast tree (004 §4.1), in time linear in
    the total path length (the cheap runtime check of every tree constructor)."""
    sender_of_edge: dict[Edge, str] = {}
    for sender, receiver in pattern:
        for edge in cluster.path(sender, receiver):
            if sender_of_edge.setdefault(edge, sender) != sender:
                return False
    return True
