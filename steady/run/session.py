"""What all ranks of a ``steady run`` or ``steady calibrate`` job do together (ours): a
common clock, a synchronised start, the gathering of every rank's outcome on rank 0, and
the deadline that turns a dead or silent peer into one clear line instead of a hang.

Deadline protocol (``--timeout S``, counted from the start of the job's work):

* a rank still working at S sends rank 0 one line saying what it waits for, and on whom;
* rank 0, at S, waits one more second for those lines, then prints one line naming the
  ranks that neither finished nor answered (the dead or silent ones) and who waits for
  them, and ends the job with MPI_Abort (exit code 1; :func:`abort` keeps MPICH's own
  messages off the terminal);
* if rank 0 itself is the silent one, the other ranks print that line themselves a few
  seconds later (staggered by rank, so one prints before ``mpiexec`` stops the rest).

Every wait is a test-and-sleep loop (no blocking MPI call that could spin forever).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from .engine import Clock, Outcome, RankRun, Stuck

STATS, STATUS, START, SHARE = 21, 22, 23, 24
#: Ranks sleep this long between tests of a request they wait on.
NAP = 0.0005
#: Rank 0 waits this long after the deadline for the other ranks' status lines.
GRACE_NS = 1_000_000_000


class Session:
    """One MPI job: ``comm`` (COMM_WORLD), the deadline in seconds, and the clock."""

    def __init__(self, MPI, timeout_s: float):
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.timeout_ns = int(timeout_s * 1e9)
        self.offset = 0
        self.began = time.monotonic_ns()
        self.deadline = self.began + self.timeout_ns
        self.barrier()   # everyone is here (ranks start at different times): no spinning
        self.offset = self._clock_offset()
        self.began -= self.offset
        self.deadline = self.began + self.timeout_ns   # on rank 0's clock

    def set_timeout(self, timeout_s: float) -> None:
        """The deadline: ``timeout_s`` after the job began."""
        self.timeout_ns = int(timeout_s * 1e9)
        self.deadline = self.began + self.timeout_ns

    # -- clocks -------------------------------------------------------------------
    def _clock_offset(self) -> int:
        """This rank's monotonic clock minus rank 0's: 0 on rank 0's host (one clock
        for all its processes), else Cristian's estimate (the round trip with the
        smallest delay out of 8)."""
        hosts = self.comm.allgather(self.MPI.Get_processor_name())
        offsets = [0] * self.size
        if self.rank == 0:
            for r in range(1, self.size):
                if hosts[r] == hosts[0]:
                    continue
                best = None
                for _ in range(8):
                    t0 = time.monotonic_ns()
                    self.comm.send(None, dest=r, tag=START)
                    tr = self.comm.recv(source=r, tag=START)
                    t1 = time.monotonic_ns()
                    if best is None or t1 - t0 < best[0]:
                        best = (t1 - t0, tr - (t0 + t1) // 2)
                offsets[r] = best[1]
        elif hosts[self.rank] != hosts[0]:
            for _ in range(8):
                self.comm.recv(source=0, tag=START)
                self.comm.send(time.monotonic_ns(), dest=0, tag=START)
        return self.comm.scatter(offsets, root=0)

    def common_now(self) -> int:
        return time.monotonic_ns() - self.offset

    def start(self, margin_ns: int = 200_000_000) -> Clock:
        """A common start ``margin`` from now (chosen by rank 0), slept to."""
        start = np.array([self.common_now() + margin_ns if self.rank == 0 else 0],
                         dtype=np.int64)
        self.wait_for(self.comm.Ibcast(start, root=0), "the start time", 0)
        clock = Clock(self.offset, int(start[0]))
        while (ahead := -clock.now()) > 0:
            time.sleep(min(ahead / 1e9, 0.01))
        return clock

    # -- waiting --------------------------------------------------------------------
    def wait_for(self, request, what: str, peer: int | None) -> None:
        """Test and sleep on ``request`` until it completes or the deadline passes."""
        while not request.Test():
            if self.common_now() > self.deadline:
                self.stuck(f"waits for {what}", peer)
            time.sleep(NAP)

    def receive(self, source: int, tag: int, what: str):
        """A pickled object from ``source``, probed and slept on until the deadline
        (a non-blocking receive of a pickle needs its size in advance)."""
        while not self.comm.iprobe(source=source, tag=tag):
            if self.common_now() > self.deadline:
                self.stuck(f"waits for {what}", source)
            time.sleep(NAP)
        return self.comm.recv(source=source, tag=tag)

    def share(self, obj, what: str):
        """Rank 0's ``obj`` on every rank (others pass anything)."""
        if self.rank == 0:
            for r in range(1, self.size):
                self.wait_for(self.comm.isend(obj, dest=r, tag=SHARE), f"rank {r}", r)
            return obj
        return self.receive(0, SHARE, what)

    def barrier(self) -> None:
        """All ranks here, tested and slept on (a blocking barrier busy-waits)."""
        req = self.comm.Ibarrier()
        while not req.Test():
            if self.common_now() > self.deadline:
                self.stuck("waits for the other ranks at a barrier", None)
            time.sleep(NAP)

    def finish(self) -> None:
        """The last barrier before MPI_Finalize (which busy-waits for the others):
        rank 0 arrives after its report."""
        self.barrier()

    # -- one plan --------------------------------------------------------------------
    def run(self, plan, node_of: list, rank_of: list, size: int, unit_ns: int | None,
            messages) -> list[Outcome] | None:
        """Every rank runs its part of ``plan``; rank 0 returns all outcomes (by rank),
        the others None."""
        clock = self.start()
        node = node_of[self.rank]
        engine = RankRun(self.comm, self.MPI, plan, node, rank_of, size, unit_ns, clock,
                         self.deadline - clock.base + self.offset,
                         messages if node == plan.source else None)
        try:
            outcome = engine.run()
        except Stuck as exc:
            self.stuck(exc.waiting, exc.peer)
        return self.gather(outcome)

    def gather(self, outcome):
        """All ranks' ``outcome`` on rank 0 (a list by rank), None elsewhere."""
        if self.rank != 0:
            self.wait_for(self.comm.isend(outcome, dest=0, tag=STATS), "rank 0", 0)
            return None
        outcomes = [outcome] + [None] * (self.size - 1)
        for r in range(1, self.size):
            outcomes[r] = self.receive(r, STATS, f"rank {r} to report")
        return outcomes

    # -- the deadline ---------------------------------------------------------------
    def stuck(self, waiting: str, peer: int | None, names=None):
        """Past the deadline: the protocol of the module docstring.  Never returns."""
        seconds = self.timeout_ns / 1e9
        if self.rank != 0:
            self.comm.isend((self.rank, waiting, peer), dest=0, tag=STATUS)
            # Rank 0 reports and ends the job; if it is the silent one, say so.
            time.sleep(3 + 0.2 * self.rank)
            abort(self.comm, f"steady: run: no end within --timeout {seconds:g} s: rank 0 "
                  f"never answered (rank {self.rank} {waiting})")
        end = self.common_now() + GRACE_NS
        waits = {0: (waiting, peer)}
        while self.common_now() < end:
            while self.comm.iprobe(source=self.MPI.ANY_SOURCE, tag=STATUS):
                r, text, p = self.comm.recv(source=self.MPI.ANY_SOURCE, tag=STATUS)
                waits[r] = (text, p)
            time.sleep(NAP)
        reported = set(waits)
        finished = {r for r in range(1, self.size)
                    if self.comm.iprobe(source=r, tag=STATS)}
        silent = [r for r in range(self.size) if r not in reported | finished]
        waiting_on = sorted({r for r, (_, p) in waits.items() if p in silent})
        if silent:
            line = (f"rank {_ranks(silent)} neither finished nor answered (dead or "
                    f"stuck)" + (f"; rank {_ranks(waiting_on)} waited for "
                                 f"{'it' if len(silent) == 1 else 'them'}"
                                 if waiting_on else ""))
        else:
            r0 = min(waits)
            line = (f"{len(waits)} rank(s) still working, e.g. rank {r0} {waits[r0][0]}; "
                    "raise --timeout or the time unit")
        abort(self.comm, f"steady: run: no end within --timeout {seconds:g} s: {line}")


def _ranks(ranks) -> str:
    return ", ".join(str(r) for r in ranks)


def abort(comm, line: str | None, code: int = 1):
    """End the whole job with one line: print it, silence this process (MPICH's
    MPI_Abort prints its own message, and a rank that merely exits makes mpiexec print
    a banner about the ranks it then kills), and MPI_Abort every rank.  Never
    returns."""
    if line:
        print(line, file=sys.stderr, flush=True)
    sys.stdout.flush()
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    comm.Abort(code)
    os._exit(code)
