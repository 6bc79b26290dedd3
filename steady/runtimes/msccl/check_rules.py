"""The structural rules of an MSCCL algorithm file (ours, from the executor's source:
the facts and their lines are in :mod:`.runtime`).  Each rule the executor enforces is
checked, and so is each one it should enforce but does not (it would read past a
buffer, index past an array, hang or compute garbage): a violation names its kind, the
element (``gpu 2 tb 1 step 3``, with the line) and the reason.

Kinds: ``element`` (an element the executor ignores or cannot hold), ``attribute``
(missing, not an integer as ``strtol(.., 0)`` reads it, out of range, dropped),
``algo``, ``gpu``, ``threadblock``, ``channel``, ``step``, ``dependency``, ``buffer``,
``fifo`` (a (peer, channel) connection whose sends and receives do not pair up).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .check_lexer import Element
from .runtime import (BUFFERS, COLLECTIVES, GPU_ATTRIBUTES, MAX_CHANNELS, MAX_COUNT,
                      MAX_DEPID, MAX_NODES, MAX_OFFSET, MAX_PEERS_PER_CHANNEL,
                      MAX_REDUCE_FUSION, MAX_STEPS, MAX_STRING, MAX_SUBS, MAX_THREADBLOCKS,
                      PROTOCOLS, STEP_TYPES, TB_ATTRIBUTES)

_CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)", re.ASCII)
_INT32 = 2 ** 31
_INT64 = 2 ** 63


@dataclass(frozen=True)
class Violation:
    kind: str
    where: str
    reason: str

    def __str__(self):
        return f"{self.kind}: {self.where}: {self.reason}"


@dataclass(eq=False)
class CStep:
    rank: int
    tb: int
    s: int
    line: int
    type: object = None          # runtime.StepType
    srcbuf: str = "i"
    srcoff: int = 0
    dstbuf: str = "o"
    dstoff: int = 0
    cnt: int = 0
    depid: int = -1
    deps: int = -1
    hasdep: int = 0
    partner_out: object = None   # the receive this step's send meets
    partner_in: object = None    # the send this step's receive meets

    @property
    def where(self) -> str:
        return f"gpu {self.rank} tb {self.tb} step {self.s} (line {self.line})"


@dataclass(eq=False)
class CThreadblock:
    rank: int
    id: int
    line: int
    send: int = -1
    recv: int = -1
    chan: int = 0
    steps: list = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"gpu {self.rank} tb {self.id} (line {self.line})"


@dataclass(eq=False)
class CGpu:
    rank: int
    line: int
    i_chunks: int = 0
    o_chunks: int = 0
    s_chunks: int = 0
    node: str | None = None
    threadblocks: list = field(default_factory=list)


@dataclass(eq=False)
class CProgram:
    """The program as the executor would hold it, once every rule passed."""

    name: str | None
    proto: str
    nchannels: int
    chunks: int
    ngpus: int
    coll: str
    inplace: int
    outofplace: int
    min_bytes: int
    max_bytes: int
    gpus: list = field(default_factory=list)

    def size(self, buf: str) -> int:
        """Chunks in the caller's buffer ``buf`` ('i' or 'o') of this collective: the
        one that holds nchunksperloop chunks, and 1/ngpus of it for allgather's input
        and reducescatter's output."""
        per = self.chunks // self.ngpus
        if self.coll == "allgather" and buf == "i" or self.coll == "reducescatter" and buf == "o":
            return per
        return self.chunks

    def capacity(self, gpu: "CGpu", buf: str) -> int:
        """The chunks a step of ``gpu`` may touch in ``buf``: what the file declares,
        within the collective's real buffer for input and output."""
        if buf == "s":
            return gpu.s_chunks
        declared = gpu.i_chunks if buf == "i" else gpu.o_chunks
        return min(declared, self.size(buf))

    @property
    def steps(self):
        return [st for g in self.gpus for tb in g.threadblocks for st in tb.steps]


class _Rules:
    def __init__(self):
        self.found = []

    def add(self, kind, where, reason):
        self.found.append(Violation(kind, where, reason))

    def integer(self, element: Element, key: str, where: str, lo=None, hi=None,
                bits: int = 32):
        """The attribute as an int, or None after a violation (missing, not canonical
        decimal -- strtol(.., 0) reads "010" as 8 and "x" as 0 --, out of range)."""
        text = element.get(key)
        if text is None:
            self.add("attribute", where, f"no '{key}' (the executor's parser requires it)")
            return None
        if not _CANONICAL.fullmatch(text):
            self.add("attribute", where, f"{key}={text!r} is not a plain decimal integer "
                     "(the executor reads it with strtol(.., 0): '010' is 8, 'x' is 0)")
            return None
        value = int(text)
        limit = _INT32 if bits == 32 else _INT64
        if not -limit <= value < limit:
            self.add("attribute", where, f"{key}={text} does not fit a {bits}-bit integer")
            return None
        if lo is not None and value < lo or hi is not None and value > hi:
            self.add("attribute", where, f"{key}={value} is outside {lo} .. {hi}"
                     if hi is not None else f"{key}={value} must be >= {lo}")
            return None
        return value

    def text(self, element: Element, key: str, where: str, allowed=None):
        value = element.get(key)
        if value is None:
            self.add("attribute", where, f"no '{key}' (the executor's parser requires it)")
        elif allowed is not None and value not in allowed:
            self.add("attribute", where, f"{key}={value!r}: the executor knows "
                     f"{', '.join(allowed)}")
            return None
        return value

    def element(self, element: Element, where: str, children: tuple) -> None:
        for key in element.long_values:
            self.add("attribute", where, f"the value of '{key}' is longer than the "
                     f"{MAX_STRING} bytes of the executor's buffer (it would overflow)")
        if element.dropped:
            self.add("attribute", where, f"more than 16 attributes: the executor drops "
                     f"{', '.join(k for k, _ in element.dropped)}")
        if len(element.children) > MAX_SUBS:
            self.add("element", where, f"{len(element.children)} children; the executor's "
                     f"parser holds {MAX_SUBS}")
        for child in element.children:
            if child.name not in children:
                self.add("element", f"line {child.line}", f"<{child.name}> inside "
                         f"<{element.name}>: the executor ignores it"
                         + (" (its step handler reads no child: it would crash)"
                            if element.name == "step" else ""))


def program_of(top: list[Element]) -> tuple[CProgram | None, list[Violation]]:
    """The program of the elements :func:`.check_lexer.read` returned, and every
    structural violation; the program is None unless there is none."""
    rules = _Rules()
    algos = [e for e in top if e.name == "algo"]
    for e in top:
        if e.name != "algo":
            rules.add("element", f"line {e.line}", f"<{e.name}> at the top: the executor "
                      "ignores it")
    if len(algos) != 1:
        rules.add("element", "algo", f"{len(algos)} <algo> elements; a file holds one")
        return None, rules.found
    program = _algo(algos[0], rules)
    if program is not None and not rules.found:
        _pair(program, rules)
    return (program if not rules.found else None), rules.found


def _algo(algo: Element, rules: _Rules) -> CProgram | None:
    where = f"algo (line {algo.line})"
    rules.element(algo, where, ("gpu",))
    chunks = rules.integer(algo, "nchunksperloop", where, 1, MAX_OFFSET + 1)
    nchannels = rules.integer(algo, "nchannels", where, 1, MAX_CHANNELS)
    ngpus = rules.integer(algo, "ngpus", where, 1, MAX_SUBS)
    proto = rules.text(algo, "proto", where, PROTOCOLS)
    coll = rules.text(algo, "coll", where, tuple(COLLECTIVES))
    lo = rules.integer(algo, "minBytes", where, 0, bits=64)
    hi = rules.integer(algo, "maxBytes", where, 0, bits=64)
    inplace = rules.integer(algo, "inplace", where, 0, 1)
    outofplace = rules.integer(algo, "outofplace", where, 0, 1)
    if None in (chunks, nchannels, ngpus, proto, coll, lo, hi, inplace, outofplace):
        return None
    if hi and hi < lo:
        rules.add("algo", where, f"maxBytes {hi} < minBytes {lo}: no size selects it")
    if not inplace and not outofplace:
        rules.add("algo", where, "inplace and outofplace are both 0: no call selects it")
    if COLLECTIVES[coll] and chunks % ngpus:
        rules.add("algo", where, f"{coll}: nchunksperloop {chunks} is not a multiple of "
                  f"ngpus {ngpus}")
        return None
    program = CProgram(algo.get("name"), proto, nchannels, chunks, ngpus, coll, inplace,
                       outofplace, lo, hi)
    gpus = {}
    for element in algo.children:
        if element.name == "gpu":
            gpu = _gpu(element, program, rules)
            if gpu is not None:
                if gpu.rank in gpus:
                    rules.add("gpu", f"gpu {gpu.rank} (line {element.line})", "a second "
                              f"<gpu> for rank {gpu.rank}")
                gpus[gpu.rank] = gpu
    missing = [r for r in range(ngpus) if r not in gpus]
    if missing:
        rules.add("gpu", where, f"no <gpu> for rank(s) {_few(missing)}: those ranks would "
                  "run nothing")
        return None
    program.gpus = [gpus[r] for r in range(ngpus)]
    if len(algo.children) != ngpus and not rules.found:
        rules.add("gpu", where, f"{len(algo.children)} gpu elements for ngpus {ngpus}")
    for gpu in program.gpus:
        elements = 1 + ngpus + sum(1 + len(tb.steps) for tb in gpu.threadblocks)
        if elements >= MAX_NODES:
            rules.add("element", f"gpu {gpu.rank} (line {gpu.line})", f"rank {gpu.rank} "
                      f"reads {elements} elements; the executor's parser stores fewer "
                      f"than {MAX_NODES}")
    return program


def _gpu(element: Element, program: CProgram, rules: _Rules) -> CGpu | None:
    where = f"gpu (line {element.line})"
    rank = rules.integer(element, "id", where, 0, program.ngpus - 1)
    if rank is None:
        return None
    where = f"gpu {rank} (line {element.line})"
    rules.element(element, where, ("tb",))
    gpu = CGpu(rank, element.line, node=element.get("node"))
    for key in GPU_ATTRIBUTES[1:]:
        value = rules.integer(element, key, where, 0)
        if value is None:
            return gpu
        setattr(gpu, key, value)
    for buf, key in (("i", "i_chunks"), ("o", "o_chunks")):
        if getattr(gpu, key) > program.size(buf):
            rules.add("buffer", where, f"{key}={getattr(gpu, key)}, but a {program.coll}'s "
                      f"{'input' if buf == 'i' else 'output'} holds {program.size(buf)} "
                      "chunks: offsets beyond it pass the executor's check and reach "
                      "memory past the buffer")
    tbs = {}
    for child in element.children:
        if child.name == "tb":
            tb = _threadblock(child, gpu, program, rules)
            if tb is not None:
                if tb.id in tbs:
                    rules.add("threadblock", tb.where, f"a second threadblock {tb.id}")
                tbs[tb.id] = tb
    if tbs:
        missing = [b for b in range(max(tbs) + 1) if b not in tbs]
        if missing:
            rules.add("threadblock", where, f"threadblock(s) {_few(missing)} missing: ids "
                      "run 0, 1, 2, ... without a gap")
    gpu.threadblocks = [tbs[b] for b in sorted(tbs)]
    _channels(gpu, rules)
    for tb in gpu.threadblocks:
        _dependencies(gpu, tb, rules)
    return gpu


def _threadblock(element: Element, gpu: CGpu, program: CProgram,
                 rules: _Rules) -> CThreadblock | None:
    where = f"gpu {gpu.rank} tb (line {element.line})"
    bid = rules.integer(element, "id", where, 0, MAX_THREADBLOCKS - 1)
    if bid is None:
        return None
    tb = CThreadblock(gpu.rank, bid, element.line)
    where = tb.where
    rules.element(element, where, ("step",))
    for key in TB_ATTRIBUTES[1:3]:
        value = rules.integer(element, key, where, -1, program.ngpus - 1)
        if value == gpu.rank:
            rules.add("threadblock", where, f"{key}={value} is the GPU itself")
        elif value is not None:
            setattr(tb, key, value)
    chan = rules.integer(element, "chan", where, 0, program.nchannels - 1)
    if chan is not None:
        tb.chan = chan
    steps = [c for c in element.children if c.name == "step"]
    if len(steps) > MAX_STEPS:
        rules.add("threadblock", where, f"{len(steps)} steps; the executor runs at most "
                  f"{MAX_STEPS} per threadblock (MSCCL_MAX_NUM_STEPS)")
    for position, child in enumerate(steps):
        step = _step(child, position, tb, gpu, program, rules)
        if step is not None:
            tb.steps.append(step)
    _fusions(tb, rules)
    return tb


def _step(element: Element, position: int, tb: CThreadblock, gpu: CGpu,
          program: CProgram, rules: _Rules) -> CStep | None:
    step = CStep(gpu.rank, tb.id, position, element.line)
    where = step.where
    rules.element(element, where, ())
    s = rules.integer(element, "s", where, 0, MAX_STEPS - 1)
    if s is not None and s != position:
        rules.add("step", where, f"s={s}, but it is step {position} of its threadblock: "
                  "the executor numbers steps by position, and dependencies name those "
                  "numbers")
    kind = rules.text(element, "type", where, tuple(STEP_TYPES))
    bufs = [rules.text(element, k, where, BUFFERS) for k in ("srcbuf", "dstbuf")]
    offs = [rules.integer(element, k, where, -1, MAX_OFFSET) for k in ("srcoff", "dstoff")]
    cnt = rules.integer(element, "cnt", where, 0, MAX_COUNT)
    depid = rules.integer(element, "depid", where, -1, MAX_DEPID)
    deps = rules.integer(element, "deps", where, -1, MAX_STEPS - 1)
    hasdep = rules.integer(element, "hasdep", where, 0, 1)
    if None in (kind, cnt, depid, deps, hasdep) or None in bufs or None in offs:
        return None
    step.type = STEP_TYPES[kind]
    step.srcbuf, step.dstbuf = bufs
    step.srcoff, step.dstoff = offs
    step.cnt, step.depid, step.deps, step.hasdep = cnt, depid, deps, hasdep
    t = step.type
    if t.name == "nop":
        return step
    if cnt == 0:
        rules.add("step", where, "cnt=0 moves nothing")
    if t.sends and tb.send < 0:
        rules.add("step", where, f"a '{t.name}' step sends, but its threadblock has no "
                  "send peer")
    if t.receives and tb.recv < 0:
        rules.add("step", where, f"a '{t.name}' step receives, but its threadblock has no "
                  "receive peer")
    for field_, used, buf, off in (("src", t.reads, step.srcbuf, step.srcoff),
                                   ("dst", t.writes, step.dstbuf, step.dstoff)):
        declared = {"i": gpu.i_chunks, "o": gpu.o_chunks, "s": gpu.s_chunks}[buf]
        if field_ in t.checked and not -1 <= off < declared:
            rules.add("buffer", where, f"{field_}off={off} outside -1 .. {declared - 1} "
                      f"({buf}_chunks={declared}): the executor refuses it")
        elif used:
            room = program.capacity(gpu, buf)
            if off < 0 or off + cnt > room:
                rules.add("buffer", where, f"{field_} chunks {off} .. {off + cnt - 1} of "
                          f"buffer '{buf}', which holds {room}")
    return step


def _fusions(tb: CThreadblock, rules: _Rules) -> None:
    """Consecutive ``re`` steps on one destination are one transmission whose count is
    the last one's (msccl_parser.cc:556-566, 569-582, 623-644)."""
    group = []
    for step in tb.steps:
        t = step.type.name if step.type else None
        fused = (group and t == "re" and step.depid == -1 and not group[-1].hasdep
                 and len(group) < MAX_REDUCE_FUSION
                 and (step.dstbuf, step.dstoff, step.srcbuf)
                 == (group[0].dstbuf, group[0].dstoff, group[0].srcbuf))
        if fused:
            group.append(step)
            if step.cnt != group[0].cnt:
                rules.add("step", step.where, f"fused with the 're' of step {group[0].s} "
                          f"(same destination), but cnt {step.cnt} != {group[0].cnt}: the "
                          "executor runs the whole group with the last count")
        else:
            group = [step] if t == "re" else []


def _channels(gpu: CGpu, rules: _Rules) -> None:
    """One threadblock per (send peer, channel) and per (receive peer, channel): each is
    one FIFO connection; at most 32 of each per channel (msccl_parser.cc:589-605)."""
    for role in ("send", "recv"):
        seen, count = {}, {}
        for tb in gpu.threadblocks:
            peer = getattr(tb, role)
            if peer < 0:
                continue
            if (peer, tb.chan) in seen:
                rules.add("channel", tb.where, f"threadblocks {seen[peer, tb.chan]} and "
                          f"{tb.id} both {'send to' if role == 'send' else 'receive from'} "
                          f"rank {peer} on channel {tb.chan}: one connection, one FIFO, "
                          "two programs")
            seen[peer, tb.chan] = tb.id
            count[tb.chan] = count.get(tb.chan, 0) + 1
        for chan, n in count.items():
            if n > MAX_PEERS_PER_CHANNEL:
                rules.add("channel", f"gpu {gpu.rank} (line {gpu.line})", f"{n} threadblocks "
                          f"with a {role} peer on channel {chan}; at most "
                          f"{MAX_PEERS_PER_CHANNEL}")


def _dependencies(gpu: CGpu, tb: CThreadblock, rules: _Rules) -> None:
    """``depid``/``deps`` name a step of another threadblock of this GPU that publishes
    its completion (``hasdep="1"``, msccl_kernel.cu:313-318); a nop carries one
    dependency to the next real step, which needs one too (msccl_parser.cc:613-621)."""
    by_id = {t.id: t for t in gpu.threadblocks}
    pending_nop = None
    for step in tb.steps:
        t = step.type
        if step.depid >= 0:
            other = by_id.get(step.depid)
            if step.depid == tb.id:
                rules.add("dependency", step.where, "depends on its own threadblock")
            elif other is None or not 0 <= step.deps < len(other.steps):
                rules.add("dependency", step.where, f"depends on gpu {gpu.rank} tb "
                          f"{step.depid} step {step.deps}, which does not exist")
            else:
                target = other.steps[step.deps]
                if target.type.name == "nop":
                    rules.add("dependency", step.where, f"depends on {target.where}, a nop "
                              "(the executor drops nops)")
                elif not target.hasdep:
                    rules.add("dependency", step.where, f"depends on {target.where}, whose "
                              "hasdep is 0: it never publishes its completion")
        if t.name == "nop":
            if step.depid < 0:
                rules.add("dependency", step.where, "a nop without a dependency: the "
                          "executor drops it and the steps after it are misnumbered")
            pending_nop = pending_nop or step
        elif pending_nop is not None:
            if step.depid < 0:
                rules.add("dependency", step.where, f"follows the nop of step "
                          f"{pending_nop.s} without a dependency of its own: the executor "
                          "refuses the file")
            pending_nop = None
    if pending_nop is not None:
        rules.add("dependency", pending_nop.where, "a nop at the end of its threadblock: "
                  "its dependency guards nothing")


def _pair(program: CProgram, rules: _Rules) -> None:
    """The k-th send from rank a to rank b on channel c meets the k-th receive of b
    from a on c (one FIFO connection per (peer, channel)); their counts must agree."""
    sends, recvs = {}, {}
    for gpu in program.gpus:
        for tb in gpu.threadblocks:
            for step in tb.steps:
                if step.type.sends:
                    sends.setdefault((gpu.rank, tb.send, tb.chan), []).append(step)
                if step.type.receives:
                    recvs.setdefault((tb.recv, gpu.rank, tb.chan), []).append(step)
    for key in sorted(set(sends) | set(recvs)):
        a, b, c = key
        out, into = sends.get(key, []), recvs.get(key, [])
        if len(out) != len(into):
            rules.add("fifo", f"gpu {a} -> gpu {b}, channel {c}", f"{len(out)} send(s), "
                      f"{len(into)} receive(s) per loop: the extra ones wait forever")
            continue
        for k, (x, y) in enumerate(zip(out, into)):
            if x.cnt != y.cnt:
                rules.add("fifo", x.where, f"send #{k} to gpu {b} has cnt {x.cnt}, the "
                          f"receive it meets ({y.where}) cnt {y.cnt}")
            x.partner_out, y.partner_in = y, x


def _few(values) -> str:
    values = list(values)
    return ", ".join(map(str, values[:8])) + (", ..." if len(values) > 8 else "")
