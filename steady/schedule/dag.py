"""The optimal periodic schedule on a DAG: the construction of 002 §4.3 Theorem 2.

On a DAG platform the linear program SSBPDAG (002 §4.1) gives rates n_jk, times
t_jk = n_jk·c_jk and the throughput TP.  Theorem 2 turns them into a schedule:

1. heights h with h(s) = 0 and h(j) < h(k) whenever there is a path j -> k
   (:func:`heights`);
2. q, the smallest positive integer making every q·n_jk, q·t_jk and q·TP an integer;
3. layers (:func:`layer_schedule`): during [q(h-1), qh] every node j of height h
   receives the q·TP messages 0 .. q·TP-1, q·n_kj of them from each in-neighbour k, in
   consecutive ranges.  The senders have smaller heights, so they already hold every
   message, and the one-port rows of the LP make each layer fit in q time units;
4. pipelining with period q: the messages' routes are trees (:func:`dag_trees`);
   each maximal range of messages routed identically is one spanning arborescence,
   weighted by the range's length, and per period link (j,k) carries q·n_jk messages;
5. the edge colouring (Lemma 1) orders one period of these counts:
   :func:`steady.schedule.periodic.periodic_schedule` writes the steady-schedule v1 file.

All numbers are int / Fraction.  Each step has an exact runtime postcondition, the last
one on the file itself (per period, link (j,k) carries s·q·n_jk messages); the callers
(``steady schedule --dag``, the tests) then check the file with the independent
:func:`steady.verify.verify`, which sits above this module in the pipeline.  The proof,
in our words, is proofs/dag-schedule.md; the worked example of §4.4 (samples/figure5-dag
.json: TP = 4/5, q = 5) is reproduced exactly by tests/test_dag_schedule.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..inputs import as_platform
from ..numbers import format_exact, lcm_of_denominators
from .counts import usage
from .periodic import periodic_schedule
from ..schedule_file import PriceCertificate
from ..throughput import dag_throughput

__all__ = ["LayerTransfer", "Layers", "heights", "layer_schedule", "dag_trees",
           "dag_schedule", "check_link_counts"]


@dataclass(frozen=True)
class LayerTransfer:
    """During layer ``layer`` (the interval [q·layer, q·(layer+1)]), ``tail`` sends
    messages ``first`` .. ``last`` (inclusive, as in the table of 002 §4.4) to ``head``."""

    layer: int
    tail: str
    head: str
    first: int
    last: int

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    def to_dict(self) -> dict:
        return {"layer": self.layer, "from": self.tail, "to": self.head,
                "messages": [self.first, self.last]}


@dataclass(frozen=True)
class Layers:
    """The one-shot schedule of Theorem 2: ``messages`` = q·TP messages broadcast in
    H layers of ``q`` time units; ``transfers`` sorted by layer, then link file order."""

    platform: object
    q: int
    messages: int
    heights: dict
    transfers: tuple

    @property
    def layer_count(self) -> int:
        """H, the largest height: the one-shot schedule lasts q·H."""
        return max(self.heights.values())

    def table(self) -> list[dict]:
        return [t.to_dict() for t in self.transfers]


# -- 1. heights -----------------------------------------------------------------------

def heights(platform, origin: str = "<platform>") -> dict[str, int]:
    """Heights of 002 §4.3 Theorem 2: h(s) = 0, h(j) < h(k) when a path j -> k exists.

    Rule: *as late as possible*, h(j) = H - L(j), where L(j) is the length (in links)
    of a longest path from j to a sink and H = L(s).  Every node lies on a path from s,
    so L(s) >= dist(s, j) + L(j) and h(j) >= 1 for j != s; a link j -> k gives
    L(j) >= L(k) + 1, hence h(j) < h(k), and along paths.  This rule reproduces the
    table of §4.4 (Ps 0, P1 1, P2 2, P3 3, P4 3), where the sink P3 sits in the last
    layer although its only parent P1 has height 1; the longest depth from the source
    (as soon as possible) would give P3 height 2.  Any valid height function gives a
    valid schedule with the same per-period counts: only the layer table and the
    warm-up length change.  (The paper's "if and only if" cannot hold for incomparable
    nodes, e.g. h(P2) < h(P3) without a path P2 -> P3; only "if" is needed.)

    Raises InputError when the platform has a cycle, naming one."""
    order = platform.topological_order()
    if order is None:
        raise InputError(origin, "links", f"cycle {' -> '.join(_a_cycle(platform))}: "
                         "--dag needs a DAG (002 §4.3 Theorem 2)")
    to_sink: dict[str, int] = {}
    for v in reversed(order):
        to_sink[v] = max((to_sink[l.head] + 1 for l in platform.out_links(v)), default=0)
    top = to_sink[platform.source]
    return {v: top - to_sink[v] for v in platform.nodes}


def _a_cycle(platform) -> list[str]:
    """Some cycle, as nodes with the first repeated at the end.  Kahn's algorithm leaves
    only nodes with an in-link from another left-over node; walking such in-links
    backwards must repeat a node."""
    left = set(platform.nodes) - set(_kahn_prefix(platform))
    v = next(u for u in platform.nodes if u in left)
    path = [v]
    while path.count(path[-1]) < 2:
        path.append(next(l.tail for l in platform.in_links(path[-1]) if l.tail in left))
    cycle = path[path.index(path[-1]):]
    return cycle[::-1]


def _kahn_prefix(platform) -> list[str]:
    indegree = {v: len(platform.in_links(v)) for v in platform.nodes}
    ready = [v for v in platform.nodes if indegree[v] == 0]
    done = []
    while ready:
        v = ready.pop()
        done.append(v)
        for link in platform.out_links(v):
            indegree[link.head] -= 1
            if indegree[link.head] == 0:
                ready.append(link.head)
    return done


# -- 2. layers ------------------------------------------------------------------------

def period_multiplier(platform, result) -> int:
    """q of Theorem 2: the smallest positive integer making every q·n_jk, q·t_jk
    (t_jk = n_jk·c_jk) and q·TP an integer (the paper's "least common multiple")."""
    values = [result.throughput]
    for arc, n in result.n.items():
        values += [n, n * platform.cost(*arc)]
    return lcm_of_denominators(values)


def layer_schedule(platform, result, origin: str = "<platform>") -> Layers:
    """The layers of 002 §4.3 Theorem 2 for an exact SSBPDAG solution ``result``.

    A node j of height h receives, during layer h - 1 = [q(h-1), qh], recv_j(k) = q·n_kj
    messages from each in-neighbour k with recv_j(k) > 0: the in-links are taken in the
    platform's file order, the first sender gets messages 0 .. recv_j(k_0)-1, the next
    the following ones, and so on up to q·TP - 1 (in §4.4: Ps -> P2 [0], P1 -> P2 [1,3]).
    Postconditions: :func:`check_layers`."""
    h = heights(platform, origin)
    q = period_multiplier(platform, result)
    total = int(q * result.throughput)
    transfers = []
    for j in platform.destinations:
        start = 0
        for link in platform.in_links(j):
            count = int(q * result.n.get(link.arc, 0))
            if count:
                transfers.append(LayerTransfer(h[j] - 1, link.tail, j, start,
                                               start + count - 1))
                start += count
    rank = {arc: i for i, arc in enumerate(platform.arcs)}
    transfers.sort(key=lambda t: (t.layer, rank[(t.tail, t.head)]))
    layers = Layers(platform, q, total, h, tuple(transfers))
    check_layers(layers)
    return layers


def check_layers(layers: Layers) -> None:
    """Raise AssertionError unless every node receives each of the q·TP messages
    exactly once, a node forwards only in layers after the one in which it received
    (the source excepted), and per layer every node sends and receives for <= q."""
    platform = layers.platform
    received: dict[str, list] = {v: [] for v in platform.destinations}
    for t in layers.transfers:
        received[t.head].append(t)
    for v, ts in received.items():
        ranges = sorted((t.first, t.last) for t in ts)
        expected = 0
        for first, last in ranges:
            if first != expected or last < first:
                raise AssertionError(f"postcondition: {v} receives {ranges}, not each "
                                     f"of 0..{layers.messages - 1} once")
            expected = last + 1
        if expected != layers.messages:
            raise AssertionError(f"postcondition: {v} receives {expected} messages, "
                                 f"not {layers.messages}")
    for t in layers.transfers:
        if t.tail != platform.source and any(r.layer >= t.layer for r in received[t.tail]):
            raise AssertionError(f"postcondition: {t.tail} forwards in layer {t.layer} "
                                 "messages it has not received yet")
    _check_layer_ports(layers)


def _check_layer_ports(layers: Layers) -> None:
    load: dict[tuple, Fraction] = {}
    for t in layers.transfers:
        time = t.count * layers.platform.cost(t.tail, t.head)
        for key in ((t.layer, "sends", t.tail), (t.layer, "receives", t.head)):
            load[key] = load.get(key, Fraction(0)) + time
    for (layer, side, v), time in load.items():
        if time > layers.q:
            raise AssertionError(f"postcondition: in layer {layer} {v} {side} for "
                                 f"{format_exact(time)} > q = {layers.q}")


# -- 3. trees -------------------------------------------------------------------------

def dag_trees(layers: Layers) -> list[tuple[dict, int]]:
    """The messages' routes as weighted trees [(child -> parent, weight)].

    Messages 0 .. q·TP-1 are split at every range start of the layer table; on each
    piece every node has one sender, so the piece is a spanning arborescence rooted at
    the source (senders have smaller heights), weighted by the piece's length.  A node
    with r senders starts r - 1 pieces beyond message 0, so there are at most
    1 + sum_j (indeg(j) - 1) = |E| - |V| + 2 trees.  Postconditions: :func:`check_trees`."""
    into: dict[str, list] = {v: [] for v in layers.platform.destinations}
    for t in layers.transfers:
        into[t.head].append(t)
    cuts = sorted({t.first for t in layers.transfers} | {layers.messages})
    trees = []
    for a, b in zip(cuts, cuts[1:]):
        parent = {v: next(t.tail for t in ts if t.first <= a <= t.last)
                  for v, ts in into.items()}
        trees.append((parent, b - a))
    check_trees(layers, trees)
    return trees


def check_trees(layers: Layers, trees) -> None:
    """Raise AssertionError unless every tree is a spanning arborescence rooted at the
    source, the weights add up to q·TP, each link carries its q·n_jk messages and the
    number of trees is within |E| - |V| + 2."""
    platform = layers.platform
    for parent, weight in trees:
        try:
            platform.check_arborescence(parent, "<dag_trees>")
        except InputError as exc:
            raise AssertionError(f"postcondition: {exc}") from None
    if sum(w for _, w in trees) != layers.messages:
        raise AssertionError("postcondition: tree weights do not add up to q·TP")
    if usage(trees) != {(t.tail, t.head): t.count for t in layers.transfers}:
        raise AssertionError("postcondition: the trees do not carry q·n_jk per link")
    if len(trees) > len(platform.links) - len(platform.nodes) + 2:
        raise AssertionError(f"postcondition: {len(trees)} trees > |E| - |V| + 2")


# -- 4. the schedule ------------------------------------------------------------------

def dag_schedule(platform, origin: str = "<platform>"):
    """The optimal periodic schedule of a DAG platform by 002 §4.3 Theorem 2.

    Returns ``(schedule, info)``: a verified steady-schedule v1 :class:`Schedule` whose
    throughput is the SSBPDAG optimum (on a DAG, the graph optimum: its certificate is
    the LP's port prices, checked by the verifier), and ``info`` with q, the heights,
    the layers (:class:`Layers` and its table), the weighted trees
    (``weighted_trees``) and statistics in the keys
    of :func:`steady.schedule.periodic.optimal_schedule`.  Raises InputError(origin, "links", ...)
    when the platform has a cycle.  The schedule is not run through the verifier here
    (it is above this stage): callers check it with :func:`steady.verify.verify`."""
    platform = as_platform(platform)
    h = heights(platform, origin)  # rejects a cycle before any LP is solved
    result = dag_throughput(platform, origin)
    layers = layer_schedule(platform, result, origin)
    trees = dag_trees(layers)
    cert = PriceCertificate.of(result.certificate)
    schedule = periodic_schedule(platform, trees, layers.q, cert)
    if schedule.throughput != result.throughput:
        raise AssertionError(f"postcondition: schedule throughput {schedule.throughput} "
                             f"!= SSBPDAG optimum {result.throughput}")
    check_link_counts(schedule, result, layers.q)
    info = {"q": layers.q, "heights": h, "layers": layers, "layer_table": layers.table(),
            "layer_count": layers.layer_count, "weighted_trees": trees, "result": result,
            "trees": len(trees), "trees_built": len(trees),
            "construction": "the layers of 002 §4.3 Theorem 2",
            "tree_bound": len(platform.links) - len(platform.nodes) + 2,
            "tree_bound_text": "bound |E|-|V|+2", "matchings": len(schedule.steps),
            "matching_bound": len(platform.links), "scale": layers.q}
    return schedule, info


def check_link_counts(schedule, result, q: int) -> None:
    """Raise AssertionError unless, per period, every link (j,k) carries s·q·n_jk
    messages, where s = messages per period / (q·TP): Theorem 2's rates, read back from
    the file (a cheap structural check; validity and optimality are the verifier's)."""
    s, rest = divmod(schedule.messages_per_period, q * result.throughput)
    if rest or s < 1:
        raise AssertionError(f"postcondition: {schedule.messages_per_period} messages per "
                             f"period is not a multiple of q·TP = {q * result.throughput}")
    wanted = {arc: s * q * x for arc, x in result.n.items() if x}
    if schedule.messages_per_link() != wanted:
        raise AssertionError("postcondition: the schedule's messages per link are not "
                             "s·q·n_jk")
