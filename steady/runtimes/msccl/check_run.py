"""One loop of an MSCCL program, run on symbolic chunks (ours): deadlocks, data races,
what every rank ends with, and the time the loop takes on a platform.

**Progress rule** (msccl_kernel.cu:200-321).  Every threadblock runs its steps in order.
A step first waits for its dependencies: ``depid``/``deps`` is met once threadblock
``depid`` of the same GPU has *published* a step numbered ``deps`` or later; a step
publishes (sets its threadblock's flag) when it ends and has ``hasdep="1"``.  Each
(peer, channel) connection is a FIFO queue of sends (the k-th send meets the k-th
receive, :func:`.check_rules._pair`) that holds :data:`.runtime.FIFO_SENDS` of them
(2 with Simple, 8 with LL and LL128, at any buffer size): a step that sends waits for
room, a step that receives waits for its send, a forward (``rcs``, ``rrs``, ``rrcs``)
for both.  Nothing that becomes possible ever becomes impossible (one threadblock
sends on a connection, one receives), so the order in which possible steps are taken
does not matter: when none is possible and some threadblock has steps left, the
program deadlocks, at any speed.

**Races.**  Two steps of one GPU in different threadblocks that touch a chunk of the
same buffer, one of them writing, must be ordered by the GPU's own dependencies (and
the threadblocks' order), transitively; orders that hold only through other GPUs'
messages are not credited (a well-formed program states its local orders).  In place,
the input and output buffers are one memory (shifted by the rank's shard for
allgather and reducescatter).

**Semantics.**  A chunk holds a multiset of contributions (rank, input chunk); a copy
copies it, a reduction adds multisets, a never-written chunk holds garbage.  The
result is compared with what the collective promises.

**Time** (with a platform).  A send takes ``startup + cnt x cost`` of the platform link
between the two ranks' nodes (one chunk is one unit-size message) from when its
threadblock is free, its dependencies are published and its connection has room; a
receive ends when its threadblock is free and its send has ended; a forward sends
once it has received; local steps take no time; threadblocks run in parallel.  The loop's makespan is when the last step ends; the busiest
port (a rank's sends, or its receives, added up) is what a loop costs once loops
overlap under the one-port model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .check_rules import CProgram, Violation
from .runtime import FIFO_SENDS

_SHOWN = 12


@dataclass
class Run:
    """What one run found."""

    mode: str
    deadlock: list = field(default_factory=list)
    races: list = field(default_factory=list)
    cells: dict = field(default_factory=dict)
    inputs_read: set = field(default_factory=set)
    makespan: Fraction | None = None
    ports: dict = field(default_factory=dict)
    busy: dict = field(default_factory=dict)


def _add(a, b):
    """The sum of two chunks' contributions (None: garbage, which stays garbage)."""
    if a is None or b is None:
        return None
    total = dict(a)
    for key, n in b:
        total[key] = total.get(key, 0) + n
    return tuple(sorted(total.items()))


def cell_of(program: CProgram, mode: str, rank: int, buf: str, k: int):
    """The memory that chunk ``k`` of ``rank``'s buffer ``buf`` is, in ``mode``: in
    place the input is the output (allgather: the rank's shard of it; reducescatter:
    the output is the rank's shard of the input)."""
    if mode == "inplace" and buf != "s":
        per = program.chunks // program.ngpus
        if program.coll == "allgather":
            return (rank, "o", rank * per + k) if buf == "i" else (rank, "o", k)
        if program.coll == "reducescatter":
            return (rank, "i", rank * per + k) if buf == "o" else (rank, "i", k)
        return (rank, "o", k)
    return (rank, buf, k)


class _Machine:
    def __init__(self, program: CProgram, mode: str, pair_time=None):
        self.program = program
        self.mode = mode
        self.pair_time = pair_time
        self.run = Run(mode)
        self.cells = {}
        for gpu in program.gpus:
            for k in range(program.size("i")):
                self.cells[self.cell(gpu.rank, "i", k)] = (((gpu.rank, k), 1),)
        self.head = {}
        self.flag = {}          # (rank, tb) -> [(step index, end time, K snapshot)]
        self.clock = {}
        self.known = {}         # (rank, tb) -> {other tb: last step known ended}
        self.access = {}        # cell -> (last write event, [reads since])
        for gpu in program.gpus:
            for tb in gpu.threadblocks:
                key = (gpu.rank, tb.id)
                self.head[key] = 0
                self.flag[key] = []
                self.clock[key] = Fraction(0)
                self.known[key] = {}
        self.threadblocks = {(g.rank, tb.id): tb for g in program.gpus for tb in g.threadblocks}
        self.depth = FIFO_SENDS[program.proto]
        self.queues = {}        # connection -> [(send step, values, arrival time)]
        self.taken = {}         # connection -> [time each receive took its send]
        self.count = {}         # connection -> sends so far
        self.sent = set()

    def cell(self, rank: int, buf: str, k: int):
        return cell_of(self.program, self.mode, rank, buf, k)

    # -- the progress rule ---------------------------------------------------------
    def published(self, rank: int, depid: int, deps: int):
        """(end time, K snapshot, step) of the first publication of ``depid`` at or
        after step ``deps``, or None."""
        return next(((t, k, s) for s, t, k in self.flag[rank, depid] if s >= deps), None)

    def blocked(self, st):
        """None when ``st`` can run now, else why not (a Violation's reason)."""
        if st.depid >= 0 and self.published(st.rank, st.depid, st.deps) is None:
            return f"waits for gpu {st.rank} tb {st.depid} to publish step {st.deps}"
        if st.partner_in is not None and st.partner_in not in self.sent:
            other = st.partner_in
            return (f"waits for the send of {other.where}, which its threadblock has not "
                    f"reached (it is at step {self.head[other.rank, other.tb]})")
        if st.partner_out is not None:
            queue = self.queues.get(_connection(st), [])
            if len(queue) >= self.depth:
                return (f"waits for room on its connection to gpu {st.partner_out.rank}: "
                        f"{len(queue)} sends not yet received")
        return None

    def fire(self, st) -> None:
        key = (st.rank, st.tb)
        start = self.clock[key]
        if st.depid >= 0:
            t, snapshot, s = self.published(st.rank, st.depid, st.deps)
            start = max(start, t)
            self._join(key, snapshot)
            self._join(key, {st.depid: s})
        received = None
        if st.partner_in is not None:
            link = _connection(st.partner_in)
            sender, received, arrival = self.queues[link].pop(0)
            start = max(start, arrival)
            self.taken.setdefault(link, []).append(start)
        out = self._execute(st, received)
        end = start
        if st.partner_out is not None:
            link = _connection(st)
            n = self.count.get(link, 0)
            if n >= self.depth:          # room: the receive depth sends back has ended
                start = max(start, self.taken[link][n - self.depth])
            duration = (self.pair_time(st.rank, st.partner_out.rank, st.cnt)
                        if self.pair_time is not None else Fraction(0))
            end = start + duration
            self.queues.setdefault(link, []).append((st, out, end))
            self.count[link] = n + 1
            self.sent.add(st)
            for port, rank in (("out", st.rank), ("in", st.partner_out.rank)):
                self.run.ports[port, rank] = self.run.ports.get((port, rank), 0) + duration
            self.run.busy[key] = self.run.busy.get(key, 0) + duration
        self.clock[key] = end
        self.known[key][st.tb] = st.s
        if st.hasdep:
            self.flag[key].append((st.s, end, dict(self.known[key])))
        self.head[key] += 1
        self.run.makespan = max(self.run.makespan or Fraction(0), end)

    def _join(self, key, snapshot: dict) -> None:
        known = self.known[key]
        for b, s in snapshot.items():
            if known.get(b, -1) < s:
                known[b] = s

    # -- data ----------------------------------------------------------------------
    def _execute(self, st, received):
        """Runs ``st`` on its chunks; returns what it sends on (a list, per chunk)."""
        name = st.type.name
        out = []
        for j in range(st.cnt if name != "nop" else 0):
            got = received[j] if st.type.receives else None
            src = self._read(st, st.srcbuf, st.srcoff + j) if st.type.reads else None
            send = write = None
            if name == "s":
                send = src
            elif name in ("r", "rcs"):
                write = send = got
            elif name in ("rrs", "rrc", "rrcs"):
                write = send = _add(got, src)
            elif name == "cpy":
                write = src
            elif name == "re":
                write = _add(self._read(st, st.dstbuf, st.dstoff + j), src)
            if st.type.writes:
                self._write(st, st.dstbuf, st.dstoff + j, write)
            out.append(send)
        return out

    def _read(self, st, buf, k):
        if buf == "i":
            self.run.inputs_read.add(st.rank)
        cell = self.cell(st.rank, buf, k)
        write, reads = self.access.get(cell, (None, []))
        if write is not None and not self._before(write, st):
            self._race(st, write, cell, "reads")
        reads.append(st)
        self.access[cell] = (write, reads)
        return self.cells.get(cell)

    def _write(self, st, buf, k, value):
        cell = self.cell(st.rank, buf, k)
        write, reads = self.access.get(cell, (None, []))
        for other in ([write] if write is not None else []) + reads:
            if not self._before(other, st):
                self._race(st, other, cell, "writes")
                break
        self.access[cell] = (st, [])
        self.cells[cell] = value

    def _before(self, a, b) -> bool:
        """Step ``a`` happens before (or is) step ``b``, by the GPU's own orders."""
        if a.tb == b.tb:
            return a.s <= b.s
        return self.known[b.rank, b.tb].get(a.tb, -1) >= a.s

    def _race(self, st, other, cell, how):
        if len(self.run.races) < _SHOWN:
            rank, buf, k = cell
            self.run.races.append(Violation(
                "race", st.where, f"{how} {buf}[{k}] of gpu {rank} while {other.where} "
                "may still use it: no dependency orders them"))

    # -- the loop --------------------------------------------------------------------
    def go(self) -> Run:
        keys = sorted(self.threadblocks)
        moved = True
        while moved:
            moved = False
            for key in keys:
                tb = self.threadblocks[key]
                while self.head[key] < len(tb.steps):
                    step = tb.steps[self.head[key]]
                    if self.blocked(step) is not None:
                        break
                    self.fire(step)
                    moved = True
        for key in keys:
            tb = self.threadblocks[key]
            if self.head[key] < len(tb.steps) and len(self.run.deadlock) < _SHOWN:
                step = tb.steps[self.head[key]]
                self.run.deadlock.append(Violation("deadlock", step.where,
                                                   self.blocked(step)))
        self.run.cells = self.cells
        return self.run


def _connection(send_step):
    """The connection a sending step uses, named by its threadblock: one threadblock
    sends to a given (peer, channel)."""
    return (send_step.rank, send_step.tb)


def run(program: CProgram, mode: str, pair_time=None) -> Run:
    """One loop of ``program`` with in-place (``"inplace"``) or separate
    (``"outofplace"``) buffers; ``pair_time(a, b, cnt)``: the time of a meeting."""
    return _Machine(program, mode, pair_time).go()


# -- what the collective promises --------------------------------------------------

def expected(program: CProgram, run_: Run):
    """(root or None, {(rank, 'o', k): contributions}) the collective promises; None
    when steady has no model of it.  A broadcast's root is the rank whose input most
    outputs hold."""
    n, per, coll = program.chunks, program.chunks // program.ngpus, program.coll
    ranks = range(program.ngpus)
    if coll == "broadcast":
        votes = {}
        for (rank, buf, k), value in run_.cells.items():
            if value is not None and len(value) == 1 and value[0][0][1] == k:
                votes[value[0][0][0]] = votes.get(value[0][0][0], 0) + 1
        root = min(votes, key=lambda r: (-votes[r], r)) if votes else 0
        return root, {(r, "o", k): (((root, k), 1),) for r in ranks for k in range(n)}
    if coll == "allgather":
        return None, {(r, "o", q * per + k): (((q, k), 1),)
                      for r in ranks for q in ranks for k in range(per)}
    if coll == "reducescatter":
        return None, {(r, "o", k): tuple(((q, r * per + k), 1) for q in ranks)
                      for r in ranks for k in range(per)}
    if coll == "allreduce":
        return None, {(r, "o", k): tuple(((q, k), 1) for q in ranks)
                      for r in ranks for k in range(n)}
    return None


def semantic_violations(program: CProgram, machine_run: Run) -> tuple:
    """(root, violations): every output chunk against the promise."""
    promise = expected(program, machine_run)
    if promise is None:
        return None, []
    root, want = promise
    found = []
    wrong = 0
    for (rank, buf, k), value in sorted(want.items()):
        got = machine_run.cells.get(cell_of(program, machine_run.mode, rank, buf, k))
        if got != value:
            wrong += 1
            if len(found) < _SHOWN:
                found.append(Violation("result", f"gpu {rank} o[{k}] ({machine_run.mode})",
                                       f"holds {_describe(got)}; {program.coll} promises "
                                       f"{_describe(value)}"))
    if wrong > len(found):
        found.append(Violation("result", f"({machine_run.mode})", f"{wrong} output "
                               "chunks in all are wrong"))
    if program.coll == "broadcast" and machine_run.mode == "outofplace":
        for rank in sorted(machine_run.inputs_read - {root}):
            found.append(Violation("result", f"gpu {rank}", "reads its input buffer, which "
                                   "a broadcast defines on the root only"))
    return root, found


def _describe(value) -> str:
    if value is None:
        return "garbage (never written)"
    parts = [f"rank {r} chunk {k}" + (f" x{n}" if n != 1 else "") for (r, k), n in value]
    if len(parts) > 4:
        return f"the sum of {len(parts)} contributions ({', '.join(parts[:3])}, ...)"
    return " + ".join(parts)
