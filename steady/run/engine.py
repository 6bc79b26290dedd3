"""One rank's execution of a plan with real MPI messages (ours; the rule is the one of
:func:`steady.run.plan.execute`, now in real time).

The rank plays one node.  Its out-port sends the node's transfers in their planned order
and its in-port receives them in theirs, a few MPI requests ahead on each side (MPI
never lets two messages between the same pair overtake each other, so they match in
order): waiting for each send's completion before the next would add MPI's own
handshakes, every one of them a wake-up of two sleeping ranks, to every transfer.

**Emulation** (``--time-unit``): a transfer holds the sender's out-port and the
receiver's in-port from its begin for ``duration`` (``count`` x the link's cost x the
time unit).  Its begin is the latest of its planned start, the end of the out-port's
previous transfer and the ends of the transfers that brought its messages (emulated
times; in a plan that passed :func:`steady.run.plan.check_plan` this is its planned
start, and the receiver's in-port is free then too).  The rank sleeps until that time,
and until it physically holds the messages, before it sends: nothing is ever early.  The
receiver counts the messages as available at the transfer's emulated end.  So the
emulated platform runs on its own clock and the machine must keep up with it: when it
cannot (a transfer's data arrives after its emulated end), the real work falls behind
and the *measured* makespan -- the real time at which the last rank holds every message
and the emulated end of its last transfer has passed -- grows beyond the planned one.
With ``unit_ns=None`` (``--native``) there is no emulation: every time is a real one and
the ranks go as fast as the hardware does, in the plan's order.

The loop never blocks in MPI (busy-waiting MPI calls would starve oversubscribed ranks):
it tests its requests and sleeps when nothing moved, until the next planned start when
nothing can happen before it.  Every received message is checked (sequence number,
checksum, once only, in order on each parent's stream of each tree) and its bytes are
what the rank forwards.

A fault can be injected for tests with the environment variable
``STEADY_RUN_FAULT=KIND:RANK:AFTER`` (KIND ``die`` or ``silent``): rank RANK dies
(SIGKILL) or stops answering after AFTER transfers.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field

import numpy as np

from . import payload

DATA = 11
#: Requests posted ahead on each port (each holds a buffer of its transfer's size);
#: native runs keep one send at a time (the one-port model, for real).
WINDOW = 8
#: Sleep when nothing moved: short enough for transfers of a fraction of a millisecond,
#: long enough to leave the cores to the other ranks (on a loaded machine a sleep lasts
#: several times longer: measured 50 µs -> ~200 µs at load 6 on 2 cores).
POLL_NS = {True: 50_000, False: 20_000}   # emulated, native


class Stuck(RuntimeError):
    """The run passed its deadline; ``waiting`` says on what (with the peer's rank)."""

    def __init__(self, waiting: str, peer: int | None):
        super().__init__(waiting)
        self.waiting = waiting
        self.peer = peer


@dataclass
class Outcome:
    """What one rank did and saw (sent to rank 0 at the end)."""

    rank: int
    node: int
    received: int = 0
    duplicates: int = 0
    bad_checksums: int = 0
    out_of_order: int = 0
    unplanned: int = 0
    missing: int = 0
    delivered: int = 0
    reorder_depth: int = 0
    done_ns: int = 0
    last_available_ns: int = 0
    late: int = 0
    late_max_ns: int = 0
    cpu_ns: int = 0       # this process's CPU time during the run
    loops: int = 0        # turns of the event loop
    sends: list = field(default_factory=list)     # (tid, begin, end, posted, completed)
    receives: list = field(default_factory=list)  # (tid, arrival, available)
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.duplicates or self.bad_checksums or self.out_of_order
                    or self.unplanned or self.missing or self.problems)


class Clock:
    """Nanoseconds since the run's start on the common clock (``offset`` = this host's
    monotonic clock minus rank 0's)."""

    def __init__(self, offset_ns: int, start_ns: int):
        self.base = offset_ns + start_ns

    def now(self) -> int:
        return time.monotonic_ns() - self.base


def _fault(rank: int):
    spec = os.environ.get("STEADY_RUN_FAULT", "")
    try:
        kind, who, after = spec.split(":")
        if int(who) == rank and kind in ("die", "silent"):
            return kind, int(after)
    except ValueError:
        pass
    return None


class RankRun:
    """Run ``plan`` as node ``node`` (see the module docstring)."""

    def __init__(self, comm, MPI, plan, node: int, rank_of: list, size: int,
                 unit_ns: int | None, clock: Clock, deadline_ns: int, messages=None):
        self.comm, self.MPI, self.plan, self.node = comm, MPI, plan, node
        self.rank_of, self.size, self.clock = rank_of, size, clock
        self.deadline = deadline_ns
        self.emulated = unit_ns is not None
        self.poll = POLL_NS[self.emulated]
        t = plan.transfers
        self.out_q = plan.out_order(node)
        self.in_q = plan.in_order(node)
        scale = (unit_ns or 0, plan.unit)
        self.release = {i: -(-t[i].release * scale[0] // scale[1])
                        for i in self.out_q + self.in_q}
        self.duration = {i: t[i].duration * scale[0] // scale[1] for i in self.out_q}
        self.source = node == plan.source
        self.messages = messages          # the source's payloads, by sequence number
        self.uses: dict[int, int] = {}    # sequence -> out-transfers still to carry it
        for i in self.out_q:
            for m in t[i].messages:
                self.uses[m] = self.uses.get(m, 0) + 1
        self.have: dict[int, tuple] = {}  # sequence -> (bytes, available at)
        self.outcome = Outcome(comm.Get_rank(), node)
        self.fault = _fault(comm.Get_rank())
        self.steps = 0

    # -- the loop -----------------------------------------------------------------
    def run(self) -> Outcome:
        K = self.plan.broadcasts
        self.arrived = np.zeros(K, dtype=bool)
        self.next_delivery = 0
        self.streams: dict[tuple, int] = {}
        self.oi = self.ii = 0
        self.posted: list = []                    # (request, buffer, tid), in order
        self.sending: list = []                   # (request, buffer, tid, end, posted, begin)
        self.out_free = 0
        self._post_receives()
        cpu = time.process_time_ns()
        while True:
            self.outcome.loops += 1
            now = self.clock.now()
            moved = self._receive(now) | self._sent(now)
            wake = self._start_send(now)
            if self._finished(now):
                break
            if now > self.deadline:
                raise Stuck(*self._waiting())
            if wake is None or moved:
                continue
            pause = self._until(now, wake) - now
            if pause > 10_000:
                time.sleep(min(pause, 50_000_000) / 1e9)
        self.outcome.cpu_ns = time.process_time_ns() - cpu
        o = self.outcome
        o.missing = int(K - self.arrived.sum()) if not self.source else 0
        o.delivered = K if self.source else self.next_delivery
        return o

    def _until(self, now: int, wake: int) -> int:
        """When to look again: nothing can happen before the next planned start of
        this rank's transfers (a sender never sends before a transfer's start), so
        sleep until then; poll while a send is in flight (MPI moves large messages
        only when called) or something is due."""
        if self.sending or not self.emulated:
            return now + self.poll
        times = []
        if self.ii < len(self.in_q):
            times.append(self.release[self.in_q[self.ii]])
        if wake >= 0:
            times.append(wake)
        elif self.oi < len(self.out_q):
            times.append(self.release[self.out_q[self.oi]])
        if not times:   # only the last emulated arrivals to wait for
            times.append(self.outcome.last_available_ns)
        target = min(times)
        return target if target > now else now + self.poll

    def _finished(self, now: int) -> bool:
        if self.oi < len(self.out_q) or self.sending or self.ii < len(self.in_q):
            return False
        if now < self.outcome.last_available_ns:
            return False   # the last messages are still crossing (emulated)
        self.outcome.done_ns = now
        return True

    def _step(self) -> None:
        """Count a transfer; the injected fault (tests only) strikes here."""
        self.steps += 1
        if self.fault and self.steps >= self.fault[1]:
            if self.fault[0] == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            while True:           # silent: alive, never answering
                time.sleep(1)

    # -- receiving ------------------------------------------------------------------
    def _post_receives(self) -> None:
        """Keep WINDOW receives posted, for the next in-transfers in order."""
        while len(self.posted) < WINDOW and self.ii + len(self.posted) < len(self.in_q):
            i = self.in_q[self.ii + len(self.posted)]
            t = self.plan.transfers[i]
            buffer = payload.transfer_buffer(t.count, self.size)
            req = self.comm.Irecv(buffer, source=self.rank_of[t.tail], tag=DATA)
            self.posted.append((req, buffer, i))

    def _receive(self, now: int) -> bool:
        moved = False
        while self.posted and self.posted[0][0].Test():
            _, buffer, i = self.posted.pop(0)
            self._arrived(now, buffer, i)
            moved = True
        if moved:
            self._post_receives()
        return moved

    def _arrived(self, now: int, buffer, i: int) -> None:
        t = self.plan.transfers[i]
        tid, begin, end, views = payload.unpack_transfer(buffer, self.size)
        o = self.outcome
        if tid != i:
            o.problems.append(f"expected transfer {i} from node {t.tail}, got {tid}")
        available = end if self.emulated else now
        if now > end and self.emulated:
            o.late += 1
            o.late_max_ns = max(o.late_max_ns, now - end)
        o.receives.append((i, now, available))
        o.last_available_ns = max(o.last_available_ns, available)
        for view, planned in zip(views, t.messages):
            self._check(view, planned, t, available)
        self.ii += 1
        self._step()

    def _check(self, view, planned: int, t, available: int) -> None:
        o = self.outcome
        seq, good = payload.read_message(view)
        o.received += 1
        if not good:
            o.bad_checksums += 1
            return
        if not 0 <= seq < self.plan.broadcasts:
            o.unplanned += 1
            return
        if seq != planned:
            o.unplanned += 1
        if self.arrived[seq]:
            o.duplicates += 1
            return
        self.arrived[seq] = True
        stream = (t.tail, t.tree)
        if seq <= self.streams.get(stream, -1):
            o.out_of_order += 1
        self.streams[stream] = seq
        if self.uses.get(seq):
            self.have[seq] = (view, available)
        while self.next_delivery < self.plan.broadcasts and self.arrived[self.next_delivery]:
            self.next_delivery += 1   # handed to the application in order
        o.reorder_depth = max(o.reorder_depth, seq - self.next_delivery + 1)

    # -- sending --------------------------------------------------------------------
    def _sent(self, now: int) -> bool:
        moved = False
        while self.sending and self.sending[0][0].Test():
            _, _, tid, end, posted, begin = self.sending.pop(0)
            self.outcome.sends.append((tid, begin, end, posted, now))
            if not self.emulated:
                self.out_free = now
            self._step()
            moved = True
        return moved

    def _start_send(self, now: int):
        """Start the next out-transfer if it can: None when started, else the time it
        waits for (-1: waits for a message, not for a time)."""
        if self.oi >= len(self.out_q) or len(self.sending) >= (WINDOW if self.emulated
                                                                 else 1):
            return -1
        i = self.out_q[self.oi]
        t = self.plan.transfers[i]
        ready = max(self.release[i], self.out_free)
        if self.source:
            data = [self.messages[m] for m in t.messages]
        else:
            held = [self.have.get(m) for m in t.messages]
            if any(h is None for h in held):
                return -1
            data = [h[0] for h in held]
            ready = max([ready] + [h[1] for h in held])
        if now < ready:
            return ready
        begin = ready if self.emulated else now
        end = begin + self.duration[i]
        buffer = payload.pack_transfer(i, begin, end, data, self.size)
        req = self.comm.Isend(buffer, dest=self.rank_of[t.head], tag=DATA)
        self.sending.append((req, buffer, i, end, now, begin))
        if self.emulated:
            self.out_free = end
        for m in t.messages:
            left = self.uses[m] - 1
            self.uses[m] = left
            if not left:
                self.have.pop(m, None)
        self.oi += 1
        return None

    def _waiting(self) -> tuple[str, int | None]:
        """What this rank waits for, in words, and the peer it waits on."""
        names = self.plan.nodes
        if self.sending:
            t = self.plan.transfers[self.sending[0][2]]
            return (f"waits for {names[t.head]} (rank {self.rank_of[t.head]}) to take "
                    f"transfer {t.id}", self.rank_of[t.head])
        if self.ii < len(self.in_q):
            t = self.plan.transfers[self.in_q[self.ii]]
            return (f"waits for the data of transfer {t.id} from {names[t.tail]} "
                    f"(rank {self.rank_of[t.tail]})", self.rank_of[t.tail])
        if self.oi < len(self.out_q):
            t = self.plan.transfers[self.out_q[self.oi]]
            return (f"waits for messages {t.first}..{t.first + t.count - 1} to forward",
                    None)
        return "waits for the last messages to arrive", None
