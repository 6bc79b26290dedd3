"""``steady export msccl``: a steady broadcast schedule as an MSCCL algorithm (ours).

The mapping (docs/formats.md, "MSCCL algorithm XML"):

- one period of the schedule is one *loop* of the program: the ``M`` messages of a
  period are the ``nchunksperloop = M`` chunks of the buffer, and the executor runs the
  program once per slice of the chunks (a buffer of B bytes in ceil(B / (M x slice))
  loops);
- tree ``l`` of weight ``w_l`` carries the chunks ``b_l .. b_l + w_l - 1`` (the trees in
  file order, ``b_0 = 0``); on every edge of the tree the timetable's transfers carry
  them in the order of their ``start``: the j-th message of the edge is chunk b_l + j;
- a tree edge whose path crosses switches (which are not ranks) is one move between
  the compute nodes at its ends, timed by the transfers on its last arc, at the path's
  slowest link (cut-through) plus the start-ups of its links;
- within a loop a node forwards a chunk after receiving it: :mod:`.loop` places the
  moves again causally, :mod:`.program` gives each link a send and a receive
  threadblock that list its moves in that order.

What cannot fit the executor's limits (:mod:`.runtime`) is refused with one line naming
the limit and the option that helps (:class:`Refused`).

Collectives (the schedules of the collectives work, trees with a root each) reuse the
middle of the line unchanged: a :class:`.loop.Move` names ranks and a chunk range, and
what it needs at its sender, whatever the tree's root; :func:`.loop.causal_order` and
the per-link threadblocks of :mod:`.program` do not depend on the collective.  What a
collective adds is its front end (which chunks each root's trees carry: an allgather
root's shard, a broadcast tree per shard) and, for the in-trees of a reduce-scatter,
receive steps that reduce (``rrc``) into the accumulating chunk, each waiting for the
previous contribution to that chunk at its rank (:mod:`.reduction`).  An allreduce
(in-trees then out-trees in one program) is refused.  The exporter reads schedule
documents only; ``steady verify --msccl`` checks what it writes, independently.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from ...errors import InputError, echo
from ...schedule_file import IN, Schedule, timed
from .loop import Move, Timing, causal_order
from .program import algo_xml, broadcast_program, escape, program_of
from .ranks import rank_map, switches_of
from .reduction import accumulators, reduction_program
from .runtime import (MAX_CHANNELS, MAX_NODES, MAX_OFFSET, MAX_STEPS, MAX_STRING,
                      MAX_SUBS, MAX_THREADBLOCKS, PROTOCOLS)

#: What a user can do about a program too large for the executor.
FEWER = "use fewer messages per period (steady schedule PLATFORM --max-messages 64 or less)"


#: The same for a collective, whose links carry several roots' chunks (a link's
#: threadblock can hold more steps than M).
FEWER_CHUNKS = ("use fewer chunks per root per period (steady schedule PLATFORM "
                "--collective KIND --max-messages 32, say)")


class Refused(InputError):
    """A schedule the executor cannot run: one line naming the limit (exit code 2)."""


@dataclass
class Export:
    """An exported program: its XML ``text`` and what the command reports."""

    text: str
    gpus: list
    moves: list
    timing: Timing
    ranks: dict
    root: int
    chunks: int
    period: Fraction
    proto: str
    attributes: dict = field(default_factory=dict)

    def with_range(self, low: int, high: int, name: str | None = None) -> "Export":
        """The same program for the sizes ``low .. high`` bytes (minBytes, maxBytes)."""
        attributes = dict(self.attributes, minBytes=low, maxBytes=high)
        if name is not None:
            _check_name(name, "<command line>")
            attributes["name"] = name
        return replace(self, text=algo_xml(self.gpus, attributes), attributes=attributes)

    @property
    def threadblocks(self) -> int:
        return sum(len(g.threadblocks) for g in self.gpus)

    @property
    def steps(self) -> int:
        return sum(len(tb.steps) for g in self.gpus for tb in g.threadblocks)

    @property
    def most_steps(self) -> int:
        return max((len(tb.steps) for g in self.gpus for tb in g.threadblocks), default=0)

    @property
    def channels(self) -> int:
        return 1 + max((tb.chan for g in self.gpus for tb in g.threadblocks), default=0)


def export_broadcast(schedule: Schedule, origin: str = "<schedule>", given=None,
                     proto: str = "Simple", name: str | None = None, min_bytes: int = 0,
                     max_bytes: int = 0) -> Export:
    """The MSCCL broadcast program of ``schedule`` (version 1 or 2); ``given``: a
    partial node -> rank map (:func:`.ranks.rank_map`)."""
    if proto not in PROTOCOLS:
        raise InputError("<command line>", "--proto", f"expected one of {', '.join(PROTOCOLS)}")
    if schedule.version == 1:
        schedule = timed(schedule)
    chunks = schedule.messages_per_period
    if chunks > MAX_OFFSET + 1:
        raise Refused(origin, "messages_per_period", f"{_count(chunks)} chunks per loop; "
                      f"the executor's chunk offsets are 16-bit (at most {MAX_OFFSET + 1} "
                      f"chunks): {FEWER}")
    platform = schedule.platform
    ranks = rank_map(platform, platform.source, given)
    if len(ranks) > MAX_SUBS:
        raise Refused(origin, "platform.nodes", f"{len(ranks)} ranks; the executor's "
                      f"parser holds at most {MAX_SUBS} gpu elements")
    moves = broadcast_moves(schedule, ranks, origin)
    timing = causal_order(moves)
    root = ranks[platform.source]
    gpus = broadcast_program(moves, timing, ranks, root, chunks)
    _check_limits(gpus, ranks, origin)
    title = name if name is not None else (
        f"steady broadcast {platform.name or 'platform'} M={chunks}")
    attributes = {"name": title, "proto": proto, "nchannels": 0, "nchunksperloop": chunks,
                  "ngpus": len(ranks), "coll": "broadcast", "inplace": 1, "outofplace": 1,
                  "minBytes": min_bytes, "maxBytes": max_bytes}
    attributes["nchannels"] = 1 + max(tb.chan for g in gpus for tb in g.threadblocks)
    _check_name(title, origin)
    for g in gpus:
        if len(escape(g.node).encode()) > MAX_STRING:
            raise Refused(origin, f"platform.nodes ({echo(g.node)})", f"a name longer "
                          f"than the {MAX_STRING} bytes the executor's parser reads in a "
                          "value")
    text = algo_xml(gpus, attributes)
    return Export(text, gpus, moves, timing, ranks, root, chunks, schedule.period, proto,
                  attributes)


def export_collective(schedule: Schedule, origin: str = "<schedule>", given=None,
                      proto: str = "Simple", name: str | None = None, min_bytes: int = 0,
                      max_bytes: int = 0) -> Export:
    """The MSCCL program of a collective's schedule (issue 43; trees with roots and
    routes through switches, which are not ranks): an **allgather** -- root r's trees
    carry the m chunks of its shard, which sit at offset rank(r)·m of every rank's
    output (``nchunksperloop`` = N·m, every rank's ``i_chunks`` = m: MSCCL's
    allgather layout) -- a **reduce-scatter** -- root r's in-trees reduce the m chunks
    at input offset rank(r)·m of every rank into r's output (``nchunksperloop`` = N·m,
    ``i_chunks`` = N·m, ``o_chunks`` = m: MSCCL's reducescatter layout; the receives
    are ``rrc`` steps, :mod:`.reduction`) -- or a **broadcast** from one root.  An
    allreduce and several broadcast roots are refused in one line.  ``given``: a
    partial node -> rank map (:func:`.ranks.rank_map`, the platform's source rank 0 by
    default)."""
    if proto not in PROTOCOLS:
        raise InputError("<command line>", "--proto", f"expected one of {', '.join(PROTOCOLS)}")
    if schedule.version == 1:
        schedule = timed(schedule)
    platform = schedule.platform
    kind = schedule.collective.kind if schedule.collective is not None else "broadcast"
    reduces = kind == "reduce-scatter"
    if (kind not in ("allgather", "broadcast", "reduce-scatter")
            or any((t.direction == IN) != reduces for t in schedule.trees)):
        raise Refused(origin, "collective", f"{'an' if kind[0] in 'aeiou' else 'a'} "
                      f"{kind}: steady export msccl writes "
                      "broadcasts, allgathers and reduce-scatters; an allreduce (in-trees "
                      "and out-trees in one program) is not exported yet")
    shards: dict = {}
    for tree in schedule.trees:
        root = tree.root or platform.source
        shards[root] = shards.get(root, 0) + tree.weight
    if kind == "broadcast" and len(shards) > 1:
        raise Refused(origin, "collective.sources", f"{len(shards)} roots; an MSCCL "
                      "broadcast has one root: export a schedule of one source")
    if len(set(shards.values())) > 1:
        raise Refused(origin, "trees", "the roots send different chunks per period "
                      f"({min(shards.values())} to {max(shards.values())}); MSCCL's "
                      f"{'reducescatter' if reduces else 'allgather'} gives every rank an "
                      "equal shard")
    m = next(iter(shards.values()))
    ranks = rank_map(platform, next(iter(shards)) if kind == "broadcast"
                     else platform.source, given)
    if len(ranks) > MAX_SUBS:
        raise Refused(origin, "platform.nodes", f"{len(ranks)} ranks; the executor's "
                      f"parser holds at most {MAX_SUBS} gpu elements")
    if reduces and set(shards) != set(ranks):
        raise Refused(origin, "trees", f"{len(shards)} of the {len(ranks)} compute nodes "
                      "are roots; MSCCL's reducescatter gives every rank a shard")
    chunks = m * (len(ranks) if kind != "broadcast" else 1)
    if chunks > MAX_OFFSET + 1:
        raise Refused(origin, "messages_per_period", f"{_count(chunks)} chunks per loop; "
                      f"the executor's chunk offsets are 16-bit (at most {MAX_OFFSET + 1} "
                      f"chunks): {FEWER}")
    offsets = {r: (ranks[r] * m if kind != "broadcast" else 0) for r in shards}
    moves = collective_moves(schedule, ranks, offsets, origin)
    timing = causal_order(moves, multiport=platform.ports == "multi-port")
    if reduces:
        acc = accumulators(_in_trees(schedule, offsets), ranks, offsets, m)
        gpus = laned_program(moves, timing, ranks, chunks, {}, lambda lanes:
                             reduction_program(moves, timing, ranks, chunks, m, acc, lanes))
    else:
        gpus = laned_program(moves, timing, ranks, chunks,
                             {ranks[r]: (m, offsets[r]) for r in shards})
    _check_limits(gpus, ranks, origin, FEWER_CHUNKS)
    title = name if name is not None else (
        f"steady {kind} {platform.name or 'platform'} M={m}")
    attributes = {"name": title, "proto": proto, "nchannels": 0, "nchunksperloop": chunks,
                  "ngpus": len(ranks), "coll": kind.replace("-", ""), "inplace": 1,
                  "outofplace": 1, "minBytes": min_bytes, "maxBytes": max_bytes}
    attributes["nchannels"] = 1 + max((tb.chan for g in gpus for tb in g.threadblocks),
                                      default=0)
    _check_name(title, origin)
    for g in gpus:
        if len(escape(g.node).encode()) > MAX_STRING:
            raise Refused(origin, f"platform.nodes ({echo(g.node)})", f"a name longer "
                          f"than the {MAX_STRING} bytes the executor's parser reads in a "
                          "value")
    root = ranks[next(iter(shards))] if kind == "broadcast" else -1
    return Export(algo_xml(gpus, attributes), gpus, moves, timing, ranks, root, chunks,
                  schedule.period, proto, attributes)


#: Connections (channels) one link's moves may be spread over.
MAX_LANES = 4


def laned_program(moves, timing, ranks, chunks: int, held: dict, build=None):
    """:func:`.program.program_of` with merged steps (or ``build(lanes)``: a reduce-
    scatter's :func:`.reduction.reduction_program`), each link whose threadblock holds
    more than MAX_STEPS steps spread over more connections (one more channel at a time,
    at most :data:`MAX_LANES`; ours): a link of an allgather carries several roots' chunks
    and can need more steps than one threadblock runs.  Deterministic; the caller's
    limits check refuses what still does not fit."""
    lanes: dict = {}
    while True:
        gpus = (build(lanes) if build is not None else
                program_of(moves, timing, ranks, chunks, held, merge=True, lanes=lanes))
        over = {(g.rank, tb.send) for g in gpus for tb in g.threadblocks
                if len(tb.steps) > MAX_STEPS and tb.send >= 0}
        over |= {(tb.recv, g.rank) for g in gpus for tb in g.threadblocks
                 if len(tb.steps) > MAX_STEPS and tb.recv >= 0}
        grown = {link for link in over if lanes.get(link, 1) < MAX_LANES}
        if not grown:
            return gpus
        for link in grown:
            lanes[link] = lanes.get(link, 1) + 1


def _in_trees(schedule: Schedule, offsets: dict) -> list:
    """[(root, first chunk, weight, {child: parent})] of a reduce-scatter's in-trees, the
    chunks numbered as :func:`collective_moves` numbers them."""
    out, base = [], {}
    for tree in schedule.trees:
        root = tree.root or schedule.platform.source
        out.append((root, offsets[root] + base.get(root, 0), tree.weight, tree.parent))
        base[root] = base.get(root, 0) + tree.weight
    return out


def collective_moves(schedule: Schedule, ranks: dict[str, int], offsets: dict,
                     origin: str = "<schedule>") -> list[Move]:
    """The moves of one loop of a collective's version 2 ``schedule``: tree l of root r
    carries the chunks from ``offsets[r]`` plus the weights of r's earlier trees; on
    each edge (sender, receiver) the j-th message of its transfers, in start order, is
    the tree's j-th chunk; the edge's route through switches runs at its slowest link
    plus its links' start-ups (cut-through, as :func:`broadcast_moves`)."""
    platform = schedule.platform
    arcs = {l.arc: l for l in platform.links}
    by_edge: dict = {}
    for k, t in enumerate(schedule.transfers):
        by_edge.setdefault((t.tree, t.arc), []).append((t.start, k, t))
    specs, ranges, base = [], {}, {}
    for l, tree in enumerate(schedule.trees):
        root = tree.root or platform.source
        first = offsets[root] + base.get(root, 0)
        base[root] = base.get(root, 0) + tree.weight
        for edge in tree.edges:
            route = tree.route(edge)
            links = [arcs.get(hop) for hop in zip(route, route[1:])]
            if None in links or any(v not in ranks for v in edge):
                raise InputError(origin, f"trees[{l}]", f"the edge {echo(edge[0])} -> "
                                 f"{echo(edge[1])} is not a route between compute nodes "
                                 "(run steady verify on the schedule)")
            carried = sorted(by_edge.get((l, tuple(edge)), []), key=lambda x: (x[0], x[1]))
            if sum(t.messages for _, _, t in carried) != tree.weight:
                raise InputError(origin, f"trees[{l}]", f"the edge {echo(edge[0])} -> "
                                 f"{echo(edge[1])} carries "
                                 f"{sum(t.messages for _, _, t in carried)} messages a "
                                 f"period, not the tree's weight {tree.weight} (run steady "
                                 "verify on the schedule)")
            offset = first
            for start, k, t in carried:
                specs.append((l, edge[0], edge[1], offset, t.messages, (start, k),
                              max(link.cost for link in links),
                              sum(link.startup for link in links)))
                ranges.setdefault((l, edge[1]), []).append((offset, t.messages,
                                                            len(specs) - 1))
                offset += t.messages
    moves = []
    for i, (l, sender, v, first, count, priority, cost, startup) in enumerate(specs):
        after = tuple(j for f, c, j in ranges.get((l, sender), ())
                      if f < first + count and first < f + c)
        moves.append(Move(i, ranks[sender], ranks[v], first, count, after, priority,
                          cost, startup, f"{sender}->{v} tree {l}"))
    return moves


def _check_name(name: str, origin: str) -> None:
    if len(escape(name).encode()) > MAX_STRING:
        raise Refused(origin, "name", f"{echo(name)} is longer than the {MAX_STRING} bytes "
                      "the executor's parser reads in a value: use --name")


def broadcast_moves(schedule: Schedule, ranks: dict[str, int],
                    origin: str = "<schedule>") -> list[Move]:
    """The moves of one loop of a version 2 ``schedule`` (module docstring)."""
    platform = schedule.platform
    switches = switches_of(platform)
    arcs = {l.arc: l for l in platform.links}
    into = {}
    for k, t in enumerate(schedule.transfers):
        into.setdefault((t.tree, t.head), []).append((t.start, k, t))
    ranges = {}           # (tree, node) -> [(first, count, move index)]
    specs = []
    base = 0
    for l, tree in enumerate(schedule.trees):
        parent = tree.parent
        for v in parent:
            if v in switches:
                continue
            path = [v]
            while path[-1] != platform.source and (path[-1] == v or path[-1] in switches):
                path.append(parent[path[-1]])
            sender = path[-1]
            links = [arcs[(b, a)] for a, b in zip(path, path[1:])]
            carried = sorted(into.get((l, v), []), key=lambda x: (x[0], x[1]))
            if sum(t.messages for _, _, t in carried) != tree.weight:
                raise InputError(origin, f"trees[{l}]", f"the edge into {echo(v)} carries "
                                 f"{sum(t.messages for _, _, t in carried)} messages a "
                                 f"period, not the tree's weight {tree.weight} (run steady "
                                 "verify on the schedule)")
            offset = base
            for start, k, t in carried:
                specs.append((l, sender, v, offset, t.messages, (start, k),
                              max(link.cost for link in links),
                              sum(link.startup for link in links)))
                ranges.setdefault((l, v), []).append((offset, t.messages, len(specs) - 1))
                offset += t.messages
        base += tree.weight
    moves = []
    for i, (l, sender, v, first, count, priority, cost, startup) in enumerate(specs):
        after = tuple(j for f, c, j in ranges.get((l, sender), ())
                      if f < first + count and first < f + c)
        moves.append(Move(i, ranks[sender], ranks[v], first, count, after, priority,
                          cost, startup, f"{sender}->{v} tree {l}"))
    return moves


def _check_limits(gpus, ranks: dict[str, int], origin: str, fewer: str = FEWER) -> None:
    """Refuse, in one line naming the limit, a program the executor cannot run."""
    node_of = {r: v for v, r in ranks.items()}
    for gpu in gpus:
        who = f"rank {gpu.rank} ({echo(node_of[gpu.rank])})"
        if len(gpu.threadblocks) > MAX_THREADBLOCKS:
            raise Refused(origin, who, f"{len(gpu.threadblocks)} threadblocks (one per "
                          f"link it sends or receives on); the executor runs at most "
                          f"{MAX_THREADBLOCKS} per GPU (RCCL's MSCCL_MAX_NUM_THREAD_BLOCKS): "
                          "use a schedule on fewer trees (steady schedule --max-messages "
                          "with a smaller M)")
        for tb in gpu.threadblocks:
            if len(tb.steps) > MAX_STEPS:
                peer = (f"sending to rank {tb.send}" if tb.send >= 0 else
                        f"receiving from rank {tb.recv}" if tb.recv >= 0 else "copying")
                raise Refused(origin, f"{who}, threadblock {tb.id} ({peer})",
                              f"{len(tb.steps)} steps; the executor runs at most "
                              f"{MAX_STEPS} per threadblock (MSCCL_MAX_NUM_STEPS): {fewer}")
        elements = 1 + len(gpus) + sum(1 + len(tb.steps) for tb in gpu.threadblocks)
        if elements >= MAX_NODES:
            raise Refused(origin, who, f"{elements} XML elements to read; the executor's "
                          f"parser stores fewer than {MAX_NODES} per rank: {fewer}")
        if any(tb.chan >= MAX_CHANNELS for tb in gpu.threadblocks):
            raise Refused(origin, who, f"needs more than {MAX_CHANNELS} channels")


def _count(n: int) -> str:
    digits = len(str(n)) if n.bit_length() < 4000 else n.bit_length() * 3 // 10
    return str(n) if digits <= 12 else f"a {digits}-digit number of"
