"""One rank's part of a plan executed on the slices of one buffer (ours; the rule of
:func:`steady.simulate.plan.execute` in real time, with the caller's bytes).

Broadcast ``m`` of a plan of K broadcasts is slice ``m`` of the buffer: bytes
``[m·n // K, (m + 1)·n // K)`` of its n bytes (the slices differ by at most one byte).
A transfer carries the consecutive broadcasts ``first .. first + count - 1``, so its
bytes are one contiguous range of the buffer: it is sent from there and received into
there, never packed or copied by steady.

The rank's out-port sends its transfers one at a time in the plan's port order (the
one-port model), each as soon as the rank holds every slice it carries; its in-port
receives its transfers in their port order, every receive posted at the start into its
own range of the buffer (MPI matches messages between two ranks in the order they were
sent, and the sender's out-port order restricted to one receiver is the receiver's
in-port order restricted to that sender: both sort by planned start).  A node receives
each slice exactly once (:func:`~steady.simulate.plan.check_plan`), so the receives
never overlap; a transfer into the source (a plan may route one there) lands in a
scratch buffer, never in the root's bytes.

There is no emulated clock: every rank goes as fast as MPI does, in the plan's order.
How a rank waits depends on its host.  With a core for each of the host's ranks, in
MPI (``Waitany`` on the current send and the next receive in port order: MPICH spins,
the fastest).  With more ranks than cores (``crowded``), by testing its requests and
sleeping between tests (20 µs, doubling up to 320 µs while nothing moves): a spinning
rank, even one that yields as ``MPIR_CVAR_ENABLE_HEAVY_YIELD=1`` makes MPICH do, stays
on the run queue and takes the core from the ranks that have work.  Measured on 2
cores (16 ranks, 1 MB in 16 slices): 190-215 ms waiting in MPI, 30-45 ms sleeping;
with 2 ranks the other way round (0.3 ms in MPI, 1-3 ms sleeping).  A mismatch between
the ranks' plans cannot reach this loop: :mod:`.bcast` agrees on them first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: The tag of every transfer, on the caller's communicator duplicated (a context of
#: its own: no message of the caller's can match ours).
TAG = 7
#: A crowded rank's naps (s): the first after a test that found nothing, the longest.
NAP = (20e-6, 320e-6)


@dataclass(frozen=True)
class RankPart:
    """What one rank does for one plan and one buffer size: ``receives`` and
    ``sends`` as (peer rank, first byte, end byte) in port order; ``ready[j]``: how
    many receives (in port order) must be over before send j may start;
    ``scratch``: bytes of the buffer that receives into the source need (0: none)."""

    receives: tuple
    sends: tuple
    ready: tuple
    scratch: int


def rank_part(plan, node: int, rank_of, nbytes: int) -> RankPart:
    """The part of node ``node`` (played by rank ``rank_of[node]``) in ``plan`` on a
    buffer of ``nbytes`` bytes."""
    k = plan.broadcasts
    transfers = plan.transfers

    def span(t):
        return t.first * nbytes // k, (t.first + t.count) * nbytes // k

    brought_by: dict[int, int] = {}   # slice -> position of its receive in port order
    receives = []
    for pos, i in enumerate(plan.in_order(node)):
        t = transfers[i]
        receives.append((rank_of[t.tail], *span(t)))
        for m in t.messages:
            brought_by.setdefault(m, pos)
    sends, ready = [], []
    source = node == plan.source
    for i in plan.out_order(node):
        t = transfers[i]
        sends.append((rank_of[t.head], *span(t)))
        ready.append(0 if source else 1 + max(brought_by[m] for m in t.messages))
    scratch = max((hi - lo for _, lo, hi in receives), default=0) if source else 0
    if not source:
        _covers(receives, nbytes, node)
    return RankPart(tuple(receives), tuple(sends), tuple(ready), scratch)


def _covers(receives, nbytes: int, node: int) -> None:
    """Postcondition: a node other than the source receives every byte exactly once
    (its receives' ranges tile [0, n)), so no receive overlaps another."""
    at = 0
    for lo, hi in sorted((lo, hi) for _, lo, hi in receives):
        if lo != at:
            raise AssertionError(f"postcondition: node {node} receives bytes {at}..{lo} "
                                 f"{'never' if lo > at else 'twice'}")
        at = hi
    if at != nbytes:
        raise AssertionError(f"postcondition: node {node} never receives bytes "
                             f"{at}..{nbytes}")


def run_part(MPI, comm, part: RankPart, data, crowded: bool = False) -> None:
    """Execute ``part`` on ``data`` (a writable byte memoryview, or a read-only one on
    the source): returns when every receive and send of this rank is over.
    ``crowded``: the host has more ranks than cores (module docstring)."""
    if part.scratch:
        import numpy as np

        scratch = memoryview(np.empty(part.scratch, dtype=np.uint8))
        recvs = [comm.Irecv(scratch[:hi - lo], source=peer, tag=TAG)
                 for peer, lo, hi in part.receives]
    else:
        recvs = [comm.Irecv(data[lo:hi], source=peer, tag=TAG)
                 for peer, lo, hi in part.receives]
    (_napping if crowded else _waiting)(MPI, comm, part, recvs, data)


def _waiting(MPI, comm, part: RankPart, recvs, data) -> None:
    """The loop of a rank with a core of its own: MPI's blocking waits."""
    sends, ready = part.sends, part.ready
    n_in, n_out = len(recvs), len(sends)
    got = sent = 0          # receives over (in port order), sends started
    sending = None
    waitany = MPI.Request.Waitany
    while got < n_in or sent < n_out or sending is not None:
        if sending is None and sent < n_out and ready[sent] <= got:
            peer, lo, hi = sends[sent]
            sending = comm.Isend(data[lo:hi], dest=peer, tag=TAG)
            sent += 1
            continue
        if sending is not None and got < n_in:
            if waitany([sending, recvs[got]]) == 0:
                sending = None
            else:
                got += 1
        elif sending is not None:
            sending.Wait()
            sending = None
        else:
            recvs[got].Wait()
            got += 1
        while got < n_in and recvs[got].Test():
            got += 1


def _napping(MPI, comm, part: RankPart, recvs, data) -> None:
    """The loop of a crowded rank: test, and sleep while nothing moves."""
    sends, ready = part.sends, part.ready
    n_in, n_out = len(recvs), len(sends)
    got = sent = 0
    sending = None
    nap = NAP[0]
    while got < n_in or sent < n_out or sending is not None:
        moved = False
        while got < n_in and recvs[got].Test():
            got += 1
            moved = True
        if sending is not None and sending.Test():
            sending = None
            moved = True
        if sending is None and sent < n_out and ready[sent] <= got:
            peer, lo, hi = sends[sent]
            sending = comm.Isend(data[lo:hi], dest=peer, tag=TAG)
            sent += 1
            moved = True
        if moved:
            nap = NAP[0]
        else:
            time.sleep(nap)
            nap = min(2 * nap, NAP[1])

