"""The threadblocks and steps of an MSCCL program, and its XML text (ours).

Every link a loop uses gets a pair of threadblocks: a *send* threadblock at the sender
(``send`` = the receiver's rank) and a *receive* threadblock at the receiver (``recv`` =
the sender's rank), on one channel.  Both list the link's moves in the order of their
causal start times (:mod:`.loop`), so the k-th send of the link meets the k-th receive:
the connection of a (peer, channel) pair is a FIFO queue.  A move of more than
``MAX_COUNT`` chunks is cut into consecutive steps.

A step that sends chunks its rank received waits for the receive step that delivered
the last of them (``depid``/``deps``; the receive step gets ``hasdep="1"``, which makes
the executor publish its completion); a step that must wait for several threadblocks
is preceded by ``nop`` steps, one per extra dependency, as the executor reads them
(msccl_parser.cc:545-549, 613-621).  A dependency already implied by an earlier step
of the same threadblock is left out.

The root first copies its input into its output buffer (one ``cpy`` step per
``MAX_COUNT`` chunks, in a threadblock of its own) and sends from its output, like
every other rank: so the same file is right in place (the input *is* the output, the
copy rewrites each chunk with itself before anything reads it) and out of place.  In
an allgather every rank does so with its shard, copied to its place in the output (in
place, the input is that place: the same argument).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .runtime import MAX_COUNT, MAX_PEERS_PER_CHANNEL


@dataclass
class Step:
    type: str
    srcbuf: str
    srcoff: int
    dstbuf: str
    dstoff: int
    cnt: int
    depid: int = -1
    deps: int = -1
    hasdep: int = 0


@dataclass
class Threadblock:
    id: int
    send: int = -1
    recv: int = -1
    chan: int = 0
    steps: list = field(default_factory=list)


@dataclass
class Gpu:
    rank: int
    node: str
    i_chunks: int
    o_chunks: int
    s_chunks: int = 0
    threadblocks: list = field(default_factory=list)


def channels(moves, lanes: dict | None = None) -> dict[tuple, int]:
    """(sender, receiver) -> channel, or with ``lanes`` ({(sender, receiver): k}, the
    links whose moves are spread over k connections) (sender, receiver, lane) ->
    channel: the lowest channel on which neither the sender has MAX_PEERS_PER_CHANNEL
    send threadblocks nor the receiver as many receive threadblocks (the executor's
    per-channel limit, msccl_parser.cc:589-605), and no other lane of the link (one
    connection per (peer, channel))."""
    sends, recvs, chan, taken = {}, {}, {}, set()
    for link in sorted({(m.sender, m.receiver) for m in moves}):
        for lane in range((lanes or {}).get(link, 1)):
            c = 0
            while (sends.get((link[0], c), 0) >= MAX_PEERS_PER_CHANNEL
                   or recvs.get((link[1], c), 0) >= MAX_PEERS_PER_CHANNEL
                   or (link, c) in taken):
                c += 1
            chan[link + (lane,) if lanes is not None else link] = c
            taken.add((link, c))
            sends[link[0], c] = sends.get((link[0], c), 0) + 1
            recvs[link[1], c] = recvs.get((link[1], c), 0) + 1
    return chan


def lane_of(moves, timing, lanes: dict) -> dict[int, int]:
    """{move index: lane}: a link's moves, in the order of their causal starts, cut into
    ``lanes[link]`` consecutive blocks of (nearly) equal size (consecutive moves stay
    together, so they can still share steps)."""
    by_index = {m.index: m for m in moves}
    by_link: dict = {}
    for i in sorted(timing.order, key=lambda i: (timing.start[i], i)):
        by_link.setdefault((by_index[i].sender, by_index[i].receiver), []).append(i)
    out = {}
    for link, indices in by_link.items():
        k = lanes.get(link, 1)
        size = -(-len(indices) // k)
        for j, i in enumerate(indices):
            out[i] = j // size
    return out


def broadcast_program(moves, timing, ranks: dict[str, int], root: int,
                      chunks: int) -> list[Gpu]:
    """The GPUs of a broadcast of ``chunks`` chunks per loop from rank ``root``:
    ``moves`` (of :mod:`.loop`) in the order of ``timing``."""
    return program_of(moves, timing, ranks, chunks, {root: (chunks, 0)})


def program_of(moves, timing, ranks: dict[str, int], chunks: int,
               held: dict, merge: bool = False, lanes: dict | None = None) -> list[Gpu]:
    """The GPUs of a program of ``chunks`` output chunks per loop whose ranks of
    ``held`` ({rank: (input chunks, output offset)}) start with their input, copied to
    the output from that offset on (a broadcast: the root's whole buffer at 0; an
    allgather: every rank's shard at its place), and every rank ends with what the
    ``moves`` (of :mod:`.loop`, in the order of ``timing``) bring it.  With ``merge``
    a move that continues the link's last step is folded into it (:func:`_merged`);
    with ``lanes`` ({(sender, receiver): k}) a link's moves are spread over k
    connections, each a send and a receive threadblock on its own channel
    (:func:`lane_of`: fewer steps per threadblock)."""
    node_of = {r: v for v, r in ranks.items()}
    by_index = {m.index: m for m in moves}
    lanes = lanes or {}
    lane = lane_of(moves, timing, lanes) if lanes else {}
    gpus = [Gpu(r, node_of[r], held[r][0] if r in held else 0, chunks)
            for r in range(len(ranks))]
    sending, receiving = link_threadblocks(gpus, moves, lanes, set(held))
    # where each chunk arrives at each rank: (rank, chunk) -> (threadblock, step)
    arrival = {}
    for rank, (count, offset) in sorted(held.items()):
        copy = gpus[rank].threadblocks[0]
        for first in range(0, count, MAX_COUNT):
            cnt = min(MAX_COUNT, count - first)
            copy.steps.append(Step("cpy", "i", first, "o", offset + first, cnt))
            for c in range(first, first + cnt):
                arrival[rank, offset + c] = (copy, len(copy.steps) - 1)
    waited = {}                        # (tb id, rank) -> {other tb id: step waited for}
    for k in sorted(range(len(timing.order)), key=lambda k: (timing.start[timing.order[k]], k)):
        m = by_index[timing.order[k]]
        k_lane = lane.get(m.index, 0)
        out = sending[m.sender, m.receiver, k_lane]
        into = receiving[m.receiver, m.sender, k_lane]
        for first in range(m.first, m.first + m.count, MAX_COUNT):
            cnt = min(MAX_COUNT, m.first + m.count - first)
            needs = {}
            for c in range(first, first + cnt):
                tb, s = arrival[m.sender, c]
                needs[tb.id] = max(needs.get(tb.id, -1), s)
            if not (merge and _merged(gpus[m.sender], out, into, first, cnt, needs,
                                      waited)):
                append_waiting(gpus[m.sender], out, needs, waited,
                                Step("s", "o", first, "o", first, cnt))
                into.steps.append(Step("r", "o", first, "o", first, cnt))
            for c in range(first, first + cnt):
                arrival[m.receiver, c] = (into, len(into.steps) - 1)
    return gpus


def link_threadblocks(gpus, moves, lanes: dict, copying=frozenset()) -> tuple[dict, dict]:
    """Give every GPU its threadblocks: first a copy threadblock (id 0) on the ranks of
    ``copying``, then one send threadblock per (peer, lane) it sends to and one receive
    threadblock per (peer, lane) it receives from, on the channels of
    :func:`channels`.  Returns ({(rank, peer, lane): send tb}, {(rank, peer, lane):
    receive tb})."""
    chan = channels(moves, lanes)
    sending, receiving = {}, {}
    for gpu in gpus:
        if gpu.rank in copying:
            gpu.threadblocks.append(Threadblock(0))
        for peer in sorted({m.receiver for m in moves if m.sender == gpu.rank}):
            for k in range(lanes.get((gpu.rank, peer), 1)):
                tb = Threadblock(len(gpu.threadblocks), send=peer,
                                 chan=chan[gpu.rank, peer, k])
                gpu.threadblocks.append(tb)
                sending[gpu.rank, peer, k] = tb
        for peer in sorted({m.sender for m in moves if m.receiver == gpu.rank}):
            for k in range(lanes.get((peer, gpu.rank), 1)):
                tb = Threadblock(len(gpu.threadblocks), recv=peer,
                                 chan=chan[peer, gpu.rank, k])
                gpu.threadblocks.append(tb)
                receiving[gpu.rank, peer, k] = tb
    return sending, receiving


def _merged(gpu: Gpu, out: Threadblock, into: Threadblock, first: int, cnt: int,
            needs: dict, waited: dict) -> bool:
    """Extend the link's last send and receive by ``cnt`` chunks from ``first`` when
    they end just before ``first``, stay within MAX_COUNT, and every dependency of the
    new chunks was already waited for by the send threadblock (so the longer step can
    start when the shorter one could: a collective's trees of one root carry
    consecutive chunks, and a link often sends them back to back)."""
    if not out.steps or not into.steps:
        return False
    send, receive = out.steps[-1], into.steps[-1]
    if (send.type != "s" or receive.type != "r" or send.srcoff + send.cnt != first
            or receive.dstoff + receive.cnt != first or send.cnt + cnt > MAX_COUNT):
        return False
    seen = waited.get((gpu.rank, out.id), {})
    if any(b != out.id and seen.get(b, -1) < s for b, s in needs.items()):
        return False
    send.cnt += cnt
    receive.cnt += cnt
    return True


def append_waiting(gpu: Gpu, tb: Threadblock, needs: dict, waited: dict,
                    step: Step) -> None:
    """Append ``step`` to ``tb`` waiting for ``needs`` (threadblock id -> step), less
    what ``tb`` already waited for; extra dependencies become nops before it."""
    seen = waited.setdefault((gpu.rank, tb.id), {})
    deps = [(b, s) for b, s in sorted(needs.items()) if b != tb.id and seen.get(b, -1) < s]
    for b, s in deps[1:]:
        tb.steps.append(Step("nop", "i", -1, "o", -1, 0, b, s))
    if deps:
        step.depid, step.deps = deps[0]
    tb.steps.append(step)
    for b, s in deps:
        seen[b] = s
        gpu.threadblocks[b].steps[s].hasdep = 1


def algo_xml(gpus, attributes: dict) -> str:
    """The XML text as the executor's parser reads it: no declaration (the parser
    cannot read one), one element per line, attributes separated by one space and
    always double-quoted (msccl_parser.cc:26-52, 104-157), indentation by spaces only
    (a tab between elements stops it, :104-113)."""
    lines = [f"<algo {_attrs(attributes)}>"]
    for gpu in gpus:
        lines.append(f"  <gpu {_attrs({'id': gpu.rank, 'i_chunks': gpu.i_chunks, 'o_chunks': gpu.o_chunks, 's_chunks': gpu.s_chunks, 'node': gpu.node})}>")
        for tb in gpu.threadblocks:
            lines.append(f"    <tb {_attrs({'id': tb.id, 'send': tb.send, 'recv': tb.recv, 'chan': tb.chan})}>")
            for s, st in enumerate(tb.steps):
                lines.append("      <step " + _attrs({
                    "s": s, "type": st.type, "srcbuf": st.srcbuf, "srcoff": st.srcoff,
                    "dstbuf": st.dstbuf, "dstoff": st.dstoff, "cnt": st.cnt,
                    "depid": st.depid, "deps": st.deps, "hasdep": st.hasdep}) + "/>")
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"


def _attrs(values: dict) -> str:
    return " ".join(f'{k}="{escape(v)}"' for k, v in values.items())


def escape(value) -> str:
    """An attribute value for XML readers; the executor does not decode entities, so
    only free text (names) ever needs them."""
    text = str(value)
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                 ("\n", "&#10;"), ("\r", "&#13;"), ("\t", "&#9;")):
        text = text.replace(a, b)
    return text
