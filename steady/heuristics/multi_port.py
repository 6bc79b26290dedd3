"""The multi-port heuristics of seed 000 §3.2 and §5.2.2, in the Bar-Noy model of
000 §2.2: T_uv = send_u + link_uv + recv_v is the link's occupation (the platform's
``cost``), only ``send_u`` (the platform's ``send_overhead``) is serialized at the sender,
so a node u of a tree has the period

    T_period(u) = max(δ_out(u)·send_u, max_{v child of u} T_uv)          (000 §3.2)

and the tree's throughput is 1 / max_u T_period(u) (:mod:`steady.heuristics.models`).
"""

from __future__ import annotations

from fractions import Fraction

from .models import send_overheads
from .one_port import grow_tree, prune_by_node

__all__ = ["multiport_growing_tree", "multiport_prune_degree"]


def multiport_growing_tree(platform) -> dict[str, str]:
    """MULTIPORT-GROWING-MINIMUM-WEIGHTED-OUT-DEGREE-TREE, seed 000 §3.2, Algorithm 5.

    Text and pseudo-code disagree; we follow the text: adapting Algorithm 3 "simply
    amounts to change the cost of adding a new edge", the cost of a frontier link (u, w)
    being u's period once w is its child,
    cost(u, w) = max((δ_out(u) + 1)·send_u, max_{v child of u} T_uv, T_uw).
    (The pseudo-code's update writes to cost(u, v) of the link just added, uses δ_out(u)
    instead of δ_out(u) + 1 and leaves T_uw out.)  It starts at max(send_u, T_uw), which
    is the pseudo-code's initial T_uw whenever send_u <= T_uw, as 000 §2.1 assumes.

    Ties: smaller T_uw, then file order of the links.  Raises InputError when a node with
    an out-link has no send overhead."""
    send = send_overheads(platform)

    def cost(u, link, kids):
        return max((len(kids) + 1) * send[u], link.cost, *(k.cost for k in kids))

    return grow_tree(platform, lambda l: l.cost, cost)


def multiport_prune_degree(platform) -> dict[str, str]:
    """Multiport-Prune-Degree, seed 000 §5.2.2 (Figure 5): Topo-Prune-Degree (Algorithm 2)
    "adapted to the multi-port model".  The paper gives no pseudo-code; the adaptation
    mirrors the one of Algorithm 3 into Algorithm 5: the node metric OutDegree(u) becomes
    u's multi-port period max(δ_out(u)·send_u, max T_uv) over its remaining out-arcs.
    Repeatedly, for the first node (by non-increasing period) with a removable out-arc,
    delete its heaviest removable out-arc (largest T_uv) and recompute its period.

    Ties: nodes in ``platform.nodes`` order, arcs in file order.  Raises InputError when a
    node with an out-link has no send overhead."""
    send = send_overheads(platform)

    def period(u, heads):
        if not heads:
            return Fraction(0)
        return max(len(heads) * send[u], *(platform.cost(u, v) for v in heads))

    return prune_by_node(platform, period)
