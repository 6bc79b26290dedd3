"""Throughput of one pipelined broadcast tree in the two models of seed 000 §2.

* **one-port** (000 §3.1, 002 §3.1.2 eq. (1)): a node sends to its children one after
  the other, so its period is the sum of the costs T_uv to its children;
  TP(T) = 1 / max_u sum_{v child of u} T_uv.
* **multi-port** (000 §2.2 eq. (1), Bar-Noy et al.; §3.2 Figure 3): T_uv = send_u +
  link_uv + recv_v is the link's occupation (the platform's ``cost``); only the sender
  overheads ``send_u`` (the platform's ``send_overhead``) are serialized, the link parts
  overlap, so T_period(u) = max(δ_out(u)·send_u, max_{v child} T_uv) and
  TP(T) = 1 / max_u T_period(u).  In a tree every node receives from one parent only, so
  ``recv_v`` never serializes and is already inside T_uv.

Trees are given as ``child -> parent`` dicts (as everywhere in steady).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from ..errors import InputError
from ..throughput import tree_formula

MODELS = ("one-port", "multi-port")


def send_overheads(platform, origin: str = "<platform>") -> Mapping[str, Fraction]:
    """The platform's per-node ``send_overhead`` (000 §2.2's send_u), required for every
    node that has an out-link in the multi-port model: a one-line error names the
    first node that lacks it."""
    for v in platform.nodes:
        if platform.out_links(v) and v not in platform.send_overhead:
            raise InputError(origin, f"send_overhead.{v}", "the multi-port model needs "
                             "a send overhead for every node with an out-link")
    return platform.send_overhead


def require_model(platform, model: str) -> None:
    """ValueError for an unknown model; InputError when the multi-port model meets a
    platform without the send overheads it needs."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
    if model == "multi-port":
        send_overheads(platform)


def assert_arborescence(platform, parent: Mapping[str, str], name: str) -> None:
    """Postcondition helper: ``parent`` is a spanning arborescence of ``platform``
    rooted at its source (an AssertionError, not an InputError: a broken result is a
    bug of ours, never bad input)."""
    try:
        platform.check_arborescence(parent, name)
    except InputError as error:
        raise AssertionError(f"postcondition: {error}") from None


def one_port_throughput(platform, parent: Mapping[str, str]) -> Fraction:
    """TP(T) in the one-port model (002 §3.1.2 eq. (1))."""
    return tree_formula(platform, dict(parent))


def multi_port_periods(platform, parent: Mapping[str, str]) -> dict[str, Fraction]:
    """T_period(u) = max(δ_out(u)·send_u, max_{v child} T_uv) for every inner node u
    (000 §3.2)."""
    send = send_overheads(platform)
    children: dict[str, list[str]] = {}
    for child, par in parent.items():
        children.setdefault(par, []).append(child)
    return {u: max(len(vs) * send[u], max(platform.cost(u, v) for v in vs))
            for u, vs in children.items()}


def multi_port_throughput(platform, parent: Mapping[str, str]) -> Fraction:
    """TP(T) = 1 / max_u T_period(u) in the multi-port model (000 §3.2)."""
    return 1 / max(multi_port_periods(platform, parent).values())


def tree_throughput(platform, parent: Mapping[str, str], model: str = "one-port") -> Fraction:
    """The tree's exact throughput in ``model`` (one of :data:`MODELS`)."""
    if model == "one-port":
        return one_port_throughput(platform, parent)
    if model == "multi-port":
        return multi_port_throughput(platform, parent)
    raise ValueError(f"unknown model {model!r}; choose one of {MODELS}")
