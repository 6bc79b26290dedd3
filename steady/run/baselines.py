"""The two baselines of ``steady run --compare``, as plans for the same engine and the
same emulation as the schedule's (ours):

* **K x MPI_Bcast**: K successive broadcasts along the binomial tree MPICH's
  ``MPI_Bcast`` uses (``MPIR_Bcast_intra_binomial``: relative rank r receives from
  r - 2^k, 2^k the lowest set bit of r, and sends to r + 2^j for 2^j below that bit,
  largest first), over the ranks in rank order rooted at the source.  MPICH switches to
  scatter + allgather for messages >= 12 KB on >= 8 ranks; that algorithm is only run
  natively (``--native --compare`` calls ``MPI_Bcast`` itself).
* **pipelined chain**: every message goes down one path through all nodes, each node
  forwarding message i to the next as soon as it has it.  The path follows platform
  links, cheapest first, depth first; where the platform has no such path (a node with
  no link to an unvisited node) the walk backs up and the node that continues has
  several children (a depth-first tree; on a platform with a Hamiltonian path from the
  source along cheapest links it is a chain).

Both send over pairs of ranks that need not be platform links (MPI_Bcast does not know
the platform): such a pair costs its cheapest path's cost, holding only the two end
ports (a generous emulation of routing).  A pair with no path at all makes the baseline
unavailable on this platform (:class:`Unavailable`).  Each node takes messages in order:
its in-port receives 0, 1, 2, ... and its out-port sends message i to each child in turn
before message i + 1 (successive broadcasts pipeline, as successive ``MPI_Bcast`` calls
do).
"""

from __future__ import annotations

import heapq
from fractions import Fraction

from ..numbers import lcm_of_denominators
from ..simulate.plan import Plan, Transfer, at_times


class Unavailable(ValueError):
    """The baseline cannot run on this platform (the reason says why)."""


def binomial_children(rank: int, size: int, root: int) -> list[int]:
    """The ranks ``rank`` sends to in MPICH's binomial broadcast, in sending order."""
    rel = (rank - root) % size
    mask = 1
    while mask < size and not rel & mask:
        mask <<= 1
    children = []
    mask >>= 1
    while mask > 0:
        if rel + mask < size:
            children.append((rel + mask + root) % size)
        mask >>= 1
    return children


def binomial_plan(platform, broadcasts: int, rank_of: dict | None = None) -> Plan:
    """K broadcasts along MPICH's binomial tree over the ranks (``rank_of`` maps node
    names to ranks; default: the platform's node order)."""
    nodes = list(platform.nodes)
    rank_of = rank_of or {v: i for i, v in enumerate(nodes)}
    node_at = {r: v for v, r in rank_of.items()}
    size = len(nodes)
    root = rank_of[platform.source]
    children = {node_at[r]: [node_at[c] for c in binomial_children(r, size, root)]
                for r in range(size)}
    return _tree_plan(platform, children, broadcasts, "K x MPI_Bcast (binomial tree)")


def chain_plan(platform, broadcasts: int) -> Plan:
    """K broadcasts pipelined down the depth-first chain of the module docstring."""
    children: dict[str, list[str]] = {v: [] for v in platform.nodes}
    seen = {platform.source}
    stack = [platform.source]
    while stack:
        v = stack[-1]
        nxt = sorted((l.cost, platform.nodes.index(l.head), l.head)
                     for l in platform.out_links(v) if l.head not in seen)
        if not nxt:
            stack.pop()
            continue
        child = nxt[0][2]
        children[v].append(child)
        seen.add(child)
        stack.append(child)
    return _tree_plan(platform, children, broadcasts, "pipelined chain")


def _tree_plan(platform, children: dict, broadcasts: int, name: str) -> Plan:
    nodes = list(platform.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    pairs = [(u, w) for u, ws in children.items() for w in ws]
    costs = _pair_costs(platform, pairs)
    unit = lcm_of_denominators(costs.values())
    order = _tree_order(platform.source, children)
    transfers = []
    for m in range(broadcasts):
        for u in order:
            for w in children[u]:
                c = int(costs[(u, w)] * unit)
                transfers.append(Transfer(len(transfers), index[u], index[w], m, 1, 0, c))
    links = sum(1 for u, w in pairs if platform.has_link(u, w))
    about = {"tree": {w: u for u, ws in children.items() for w in ws},
             "pairs": len(pairs), "platform_links": links,
             "routed": [f"{u}->{w}" for u, w in pairs if not platform.has_link(u, w)]}
    return at_times(name, nodes, index[platform.source], broadcasts, unit, transfers, about)


def _tree_order(source: str, children: dict) -> list[str]:
    order, stack = [], [source]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children[v]))
    return order


def _pair_costs(platform, pairs) -> dict:
    """Each pair's cost: its link's, else its cheapest path's (exact Dijkstra)."""
    out = {}
    for u, w in pairs:
        if platform.has_link(u, w):
            out[(u, w)] = platform.cost(u, w)
            continue
        dist = _distances(platform, u)
        if w not in dist:
            raise Unavailable(f"no path from {u} to {w} on the platform (the tree needs "
                              f"{u} to send to {w})")
        out[(u, w)] = dist[w]
    return out


def _distances(platform, start: str) -> dict:
    dist = {start: Fraction(0)}
    heap = [(Fraction(0), 0, start)]
    tie = 1
    while heap:
        d, _, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for link in platform.out_links(v):
            nd = d + link.cost
            if link.head not in dist or nd < dist[link.head]:
                dist[link.head] = nd
                heapq.heappush(heap, (nd, tie, link.head))
                tie += 1
    return dist
