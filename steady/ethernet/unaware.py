"""Topology-unaware broadcast trees of seed 004 §3.1 (Figure 2), for comparison.

They ignore the switches: machines are ranked n_0 (the root), n_1, ..., n_{P-1} — the
root, then the other machines in the order of the cluster file — and the tree's shape
depends on the ranks only (004 §5.2, Figure 15: "the topology unaware linear tree
n_0 -> n_1 -> ... -> n_{P-1}" and "the complete binary tree, where node n_k has children
n_{2k+1} and n_{2k+2}").  :func:`contention_report` lists the pairs of their
communications that contend in a pipelined broadcast (004 §4.1: communications from
different machines may be active at the same time).
"""

from __future__ import annotations

from .broadcast_tree import BroadcastTree
from .cluster import Cluster
from .contention import Contention, contending_pairs

SHAPES = ("flat", "binomial", "binary", "k-ary", "linear")


def ranked_machines(cluster: Cluster) -> list[str]:
    """n_0 = the root, then the other machines in file order."""
    return [cluster.root] + [m for m in cluster.machines if m != cluster.root]


def flat_tree(ranks) -> BroadcastTree:
    """004 §3.1: the root sends to every other machine in turn."""
    return BroadcastTree.from_edges(ranks[0], [(ranks[0], v) for v in ranks[1:]])


def binomial_tree(ranks) -> BroadcastTree:
    """004 §3.1, [18]: the hypercube pattern.  In round t = 0, 1, ... every n_r with
    r < 2^t sends to n_{r + 2^t}; so n_r's children are n_{r + 2^t} for 2^t > r, in round
    order, and the root sends ceil(log2 P) messages."""
    edges, step = [], 1
    while step < len(ranks):
        edges += [(ranks[r], ranks[r + step]) for r in range(min(step, len(ranks) - step))]
        step *= 2
    return BroadcastTree.from_edges(ranks[0], edges)


def complete_kary_tree(ranks, k: int) -> BroadcastTree:
    """The complete k-ary tree in heap order: n_r has children n_{kr+1} .. n_{kr+k}
    (k = 2: 004 §5.2's complete binary tree; k = 1: the linear tree)."""
    if k < 1:
        raise ValueError(f"a k-ary tree needs k >= 1, got {k}")
    return BroadcastTree.from_edges(ranks[0], [(ranks[(c - 1) // k], ranks[c])
                                               for c in range(1, len(ranks))])


def unaware_tree(cluster: Cluster, shape: str, k: int = 3) -> BroadcastTree:
    """The topology-unaware tree ``shape`` (one of :data:`SHAPES`) over the cluster's
    machines; ``k`` is the arity of the ``k-ary`` shape."""
    if shape not in SHAPES:
        raise ValueError(f"unknown tree shape {shape!r}")
    ranks = ranked_machines(cluster)
    if shape == "flat":
        return flat_tree(ranks)
    if shape == "binomial":
        return binomial_tree(ranks)
    return complete_kary_tree(ranks, {"binary": 2, "linear": 1}.get(shape, k))


def contention_report(cluster: Cluster, tree: BroadcastTree) -> list[Contention]:
    """Every pair of the tree's communications that have contention in a pipelined
    broadcast over it: two communications from different machines sharing a directed
    channel (004 §3 and §4.1), with the shared channels."""
    return contending_pairs(cluster, tree.edges(), different_senders=True)
