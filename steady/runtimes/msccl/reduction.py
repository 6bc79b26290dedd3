"""The program of a reduce-scatter: in-trees whose streams are reduced where they meet
(ours, on the in-trees of the collectives work, proofs/collectives.md).

Tree ``l`` of root ``r`` carries chunks of r's shard (input offsets ``rank(r)·m`` on);
on each of its edges (child -> parent) the child sends, for each chunk, its *partial
sum*: its own input chunk plus everything its children sent it.  So for each chunk a
rank keeps an *accumulator* (:func:`accumulators`): the root its output chunk, a rank
with children a scratch chunk, a leaf none (it sends its input chunk as it is).

- every receive is an ``rrc`` (receive, reduce, copy): received + src -> dst, dst the
  accumulator; the first contribution a rank receives for a chunk reduces with the
  rank's input chunk (src = ``i``), every later one with the accumulator (src = dst);
  so each rank's input enters the sum once, at the rank itself;
- a receive waits for the previous reduction of the same chunk at its rank (another
  receive threadblock, usually: two writes of one chunk must be ordered by the GPU);
- a send of a chunk waits for the last reduction of the chunk at its rank -- the
  moves are processed in causal order (:mod:`.loop`), and a move up the tree depends
  on every move into its sender (:func:`.export.collective_moves`), so when the send
  is placed the rank has reduced every child's contribution.

Every dependency points to a move that starts earlier in the causal order (ties: the
order of placement), which is also each threadblock's step order and each FIFO's: the
argument of proofs/msccl-export.md (no deadlock) holds unchanged; ``steady verify
--msccl`` checks it, and each output chunk's sum, independently.
"""

from __future__ import annotations

from .program import Gpu, Step, append_waiting, lane_of, link_threadblocks
from .runtime import MAX_COUNT


def accumulators(trees, ranks: dict[str, int], offsets: dict, m: int) -> dict:
    """{(rank, chunk): (buffer, offset)}: where a rank reduces chunk ``chunk`` --
    ``trees``: [(root node, first chunk, weight, {child: parent})] (the in-trees, their
    chunks ``first .. first + weight - 1``); ``offsets``: {root: its shard's first
    chunk}.  The root reduces into its output (chunk - offset), a rank with children
    into scratch (consecutive chunks of a rank get consecutive scratch chunks), a leaf
    nowhere."""
    acc, scratch = {}, {}
    for root, first, weight, parent in trees:
        for v in sorted(set(parent.values()), key=lambda v: ranks[v]):
            for c in range(first, first + weight):
                if v == root:
                    acc[ranks[v], c] = ("o", c - offsets[root])
                else:
                    scratch.setdefault(ranks[v], []).append(c)
    for rank, cs in scratch.items():
        for x, c in enumerate(sorted(cs)):
            acc[rank, c] = ("s", x)
    return acc


def reduction_program(moves, timing, ranks: dict[str, int], chunks: int, m: int,
                      acc: dict, lanes: dict | None = None) -> list[Gpu]:
    """The GPUs of a reduce-scatter of ``chunks`` = N·m input chunks per loop (output:
    m chunks; scratch: a rank's accumulators), ``acc`` of :func:`accumulators`,
    ``moves`` (of :mod:`.loop`, up the in-trees) in the order of ``timing``; with
    ``lanes`` a link's moves spread over several connections (:func:`.program.lane_of`).
    """
    node_of = {r: v for v, r in ranks.items()}
    by_index = {mv.index: mv for mv in moves}
    lanes = lanes or {}
    lane = lane_of(moves, timing, lanes) if lanes else {}
    scratch = {}
    for (rank, _), (buf, off) in acc.items():
        if buf == "s":
            scratch[rank] = max(scratch.get(rank, 0), off + 1)
    gpus = [Gpu(r, node_of[r], chunks, m, scratch.get(r, 0)) for r in range(len(ranks))]
    sending, receiving = link_threadblocks(gpus, moves, lanes)
    reduced = {}                       # (rank, chunk) -> (tb, step) of its last reduction
    waited = {}
    for k in sorted(range(len(timing.order)),
                    key=lambda k: (timing.start[timing.order[k]], k)):
        mv = by_index[timing.order[k]]
        k_lane = lane.get(mv.index, 0)
        out = sending[mv.sender, mv.receiver, k_lane]
        into = receiving[mv.receiver, mv.sender, k_lane]
        for first, cnt, send_at, src_at, dst_at in _runs(mv, acc, reduced):
            needs = _needs(reduced, mv.sender, first, cnt)
            append_waiting(gpus[mv.sender], out, needs, waited,
                           Step("s", *send_at, *send_at, cnt))
            needs = _needs(reduced, mv.receiver, first, cnt)
            append_waiting(gpus[mv.receiver], into, needs, waited,
                           Step("rrc", *src_at, *dst_at, cnt))
            for c in range(first, first + cnt):
                reduced[mv.receiver, c] = (into, len(into.steps) - 1)
    return gpus


def _needs(reduced: dict, rank: int, first: int, cnt: int) -> dict:
    """{threadblock id: step}: the last reductions of chunks first .. first + cnt - 1
    at ``rank`` so far."""
    needs = {}
    for c in range(first, first + cnt):
        if (rank, c) in reduced:
            tb, s = reduced[rank, c]
            needs[tb.id] = max(needs.get(tb.id, -1), s)
    return needs


def _runs(mv, acc: dict, reduced: dict):
    """A move's chunks cut into steps: (first, cnt, sender's (buf, off), receiver's src
    (buf, off), receiver's dst (buf, off)) with the three places consecutive within a
    step and at most MAX_COUNT chunks."""
    def places(c):
        send_at = acc.get((mv.sender, c), ("i", c))
        dst_at = acc[mv.receiver, c]
        src_at = dst_at if (mv.receiver, c) in reduced else ("i", c)
        return send_at, src_at, dst_at

    runs = []
    for c in range(mv.first, mv.first + mv.count):
        here = places(c)
        if runs:
            first, cnt, *at = runs[-1]
            if cnt < MAX_COUNT and all(a == (b[0], b[1] + cnt) for a, b in zip(here, at)):
                runs[-1] = (first, cnt + 1, *at)
                continue
        runs.append((c, 1, *here))
    return runs
