"""Which platform node runs as which MSCCL rank (ours).

A platform's *compute nodes* are its nodes that are not switches; each becomes one
rank (one GPU).  Switches only forward: they are not ranks, and a tree edge that
crosses switches is one send/receive between the compute nodes at its ends.  (A
platform lists its switches in an optional ``switches`` attribute; platforms without
one have none.)

Default ranks: the root (the broadcast's source) is rank 0, then the other compute
nodes in the platform's node order.  ``--map NODE=RANK,...`` (or a file holding a JSON
object ``{"NODE": RANK}``) fixes some or all of them; the nodes it does not name take
the free ranks in the default order.
"""

from __future__ import annotations

import os
import re

from ...errors import InputError, echo
from ...fileio import load_json

_ENTRY = re.compile(r"(.+)=(0|[1-9][0-9]*)", re.ASCII | re.DOTALL)


def switches_of(platform) -> frozenset:
    """The platform's switches (none unless it lists them)."""
    return frozenset(getattr(platform, "switches", None) or ())


def compute_nodes(platform) -> list[str]:
    """The nodes that become ranks, in the platform's order."""
    switches = switches_of(platform)
    return [v for v in platform.nodes if v not in switches]


def default_ranks(platform, root: str) -> dict[str, int]:
    """The root first, then the other compute nodes in the platform's order."""
    order = [root] + [v for v in compute_nodes(platform) if v != root]
    return {v: r for r, v in enumerate(order)}


def read_map(text: str, origin: str = "<command line>",
             element: str = "--map") -> dict[str, int]:
    """``NODE=RANK,NODE=RANK`` or the path of a JSON file ``{"NODE": RANK}``: the pairs
    as given (checked against a platform by :func:`rank_map`)."""
    if os.path.isfile(text):
        doc = load_json(text)
        if not isinstance(doc, dict):
            raise InputError(text, "map", "expected a JSON object {\"node\": rank}")
        pairs = {}
        for node, rank in doc.items():
            if isinstance(rank, bool) or not isinstance(rank, int):
                raise InputError(text, f"map[{echo(node)}]",
                                 f"a rank is an integer, got {echo(rank)}")
            pairs[node] = rank
        return pairs
    pairs = {}
    for item in text.split(","):
        match = _ENTRY.fullmatch(item.strip())
        if match is None:
            raise InputError(origin, element, f"expected NODE=RANK,... or a file, got "
                             f"{echo(item)}")
        if match[1] in pairs:
            raise InputError(origin, element, f"node {echo(match[1])} given twice")
        pairs[match[1]] = int(match[2])
    return pairs


def rank_map(platform, root: str, given: dict[str, int] | None = None,
             origin: str = "<command line>", element: str = "--map") -> dict[str, int]:
    """node -> rank for every compute node: ``given`` first, the rest in the default
    order on the free ranks.  Refuses (InputError) an unknown node, a switch, a rank out
    of range or given twice."""
    nodes = compute_nodes(platform)
    known = set(nodes)
    switches = switches_of(platform)
    ranks = {}
    for node, rank in (given or {}).items():
        if node in switches:
            raise InputError(origin, element, f"{echo(node)} is a switch: switches "
                             "forward only and are not ranks")
        if node not in known:
            raise InputError(origin, element, f"{echo(node)} is not a node of the "
                             "platform")
        if not 0 <= rank < len(nodes):
            raise InputError(origin, element, f"rank {rank} of {echo(node)}: ranks are "
                             f"0 .. {len(nodes) - 1} ({len(nodes)} compute nodes)")
        if rank in ranks.values():
            other = next(v for v, r in ranks.items() if r == rank)
            raise InputError(origin, element, f"rank {rank} given to both {echo(other)} "
                             f"and {echo(node)}")
        ranks[node] = rank
    free = iter(sorted(set(range(len(nodes))) - set(ranks.values())))
    for node in default_ranks(platform, root):
        if node not in ranks:
            ranks[node] = next(free)
    return ranks
