"""``steady calibrate``: a platform measured by ping-pong between MPI ranks (ours; the
model is 002 §2 with the start-up of §6).

For every ordered pair (i, j) of ranks (or the pairs of a ``--pairs`` file), one pair at
a time while the other ranks wait:

* ``repeats`` round trips of an empty message (i -> j -> i): the link's *startup* is
  half the median round trip (the latency of one way);
* ``repeats`` round trips of ``size`` bytes from i to j answered by an empty message:
  the link's *cost* is the median round trip minus that one-way latency back, i.e. the
  one-way time of a ``size``-byte message i -> j.

Times are integer nanoseconds of the monotonic clock; a median of an even number of
samples is the exact mean of the two middle ones; costs and startups are written in
seconds, exactly (decimal text).  The platform's nodes are ``host:rank``, its source
rank 0's node.  A cost measured as 0 or less (the clock's or the network's noise) is
raised to 1 ns and reported: a steady-platform cost must be > 0.

Measured on one loaded 2-core machine, 5 ranks, 64 KB, 10 repeats (proofs-free: a
measurement): repeated calibrations agreed within a factor of 2 on the median link cost
(see docs/cli.md); a cluster's links, unshared by other jobs, agree much more tightly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..fileio import load_json
from ..platform import Link, Platform

PING = 31


@dataclass
class Calibration:
    platform: Platform
    pairs: int
    raised: list          # pairs whose cost was raised to 1 ns
    samples: dict         # (i, j) -> (median round trip empty, median round trip size)


def read_pairs(path: str, ranks: int) -> list[tuple[int, int]]:
    """The ordered rank pairs of a ``--pairs`` file: a JSON list of [i, j]."""
    doc = load_json(path)
    if not isinstance(doc, list):
        raise InputError(path, "document", "a JSON list of rank pairs [i, j]")
    pairs = []
    for k, pair in enumerate(doc):
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(type(x) is int for x in pair)):
            raise InputError(path, f"[{k}]", f"a pair [i, j] of ranks, got {pair!r}")
        i, j = pair
        if not (0 <= i < ranks and 0 <= j < ranks) or i == j:
            raise InputError(path, f"[{k}]", f"ranks are 0..{ranks - 1} and distinct, "
                             f"got {pair!r}")
        if (i, j) not in pairs:
            pairs.append((i, j))
    return pairs


def median(values) -> Fraction:
    values = sorted(values)
    n = len(values)
    if n % 2:
        return Fraction(values[n // 2])
    return Fraction(values[n // 2 - 1] + values[n // 2], 2)


def measure(session, size: int, repeats: int, pairs) -> dict:
    """Every rank: the ping-pongs of the module docstring.  Rank 0 returns
    {(i, j): (median empty round trip, median size round trip)} in ns; others None."""
    comm = session.comm
    me = session.rank
    big = np.zeros(size, dtype=np.uint8)
    empty = np.zeros(0, dtype=np.uint8)
    results = {}
    for i, j in pairs:
        session.barrier()
        if me == i:
            results[(i, j)] = (_round_trips(comm, j, empty, empty, repeats),
                               _round_trips(comm, j, big, empty, repeats))
        elif me == j:
            for data in (empty, big):
                reply = np.empty(len(data), dtype=np.uint8)
                for _ in range(repeats + 1):   # one warm-up round trip
                    comm.Recv(reply, source=i, tag=PING)
                    comm.Send(empty, dest=i, tag=PING)
    session.barrier()
    found = results if me == 0 else None
    if me != 0:
        session.wait_for(comm.isend(results, dest=0, tag=PING), "rank 0", 0)
    else:
        for r in range(1, session.size):
            found.update(session.receive(r, PING, f"rank {r}'s measurements"))
    return found


def _round_trips(comm, peer: int, data, answer, repeats: int) -> Fraction:
    """Median round trip (ns): send ``data`` to peer, wait for its empty answer."""
    reply = np.empty(len(answer), dtype=np.uint8)
    times = []
    for k in range(repeats + 1):
        t0 = time.monotonic_ns()
        comm.Send(data, dest=peer, tag=PING)
        comm.Recv(reply, source=peer, tag=PING)
        if k:                       # the first round trip warms the path up
            times.append(time.monotonic_ns() - t0)
    return median(times)


def platform_of(samples: dict, hosts: list[str], size: int) -> Calibration:
    """The steady-platform of the measurements (costs and startups in seconds)."""
    names = [f"{h}:{r}" for r, h in enumerate(hosts)]
    links, raised = [], []
    for (i, j), (empty, full) in sorted(samples.items()):
        startup = empty / 2
        cost = full - startup
        if cost <= 0:
            raised.append((i, j))
            cost = Fraction(1)
        links.append(Link(names[i], names[j], cost / 10 ** 9, startup / 10 ** 9))
    platform = Platform(names[0], links, names,
                        name=f"calibrated-{len(names)}-ranks-{size}-bytes",
                        origin="steady calibrate")
    return Calibration(platform, len(samples), raised, samples)


def summary(cal: Calibration) -> dict:
    """The spread of the measured costs and startups (exact seconds)."""
    costs = sorted(l.cost for l in cal.platform.links)
    starts = sorted(l.startup for l in cal.platform.links)
    return {"links": len(costs), "cost_min": costs[0], "cost_median": median(costs),
            "cost_max": costs[-1], "startup_median": median(starts),
            "raised_to_1ns": [f"{i}->{j}" for i, j in cal.raised]}
