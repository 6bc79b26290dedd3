"""The event clock of a greedy one-port placement (ours): which ports are busy, how much
of each shared network link the transfers in progress hold, and when the next one ends.

Three greedy placements share it: the list schedule of a period
(:mod:`steady.schedule.list_schedule`), the list run of a whole finite run
(:mod:`steady.simulate.list_run`) and the clean-up routed afresh
(:mod:`steady.simulate.rerouted`).  Both place single-message transfers at *events*, the
times at which some transfer ends; at an event the ports of the transfers that end are
free again, their shared links give back their part (issue 19: the transfers in
progress on a link use at most its capacity), and their messages have arrived.  Times
are integer ticks.
"""

from __future__ import annotations

import heapq

from ..network.rows import link_full

Arc = tuple[str, str]


class PortClock:
    """Busy out-ports and in-ports, shared links' capacity in use, and the transfers in
    progress by end time.  ``parts`` and ``capacity`` are those of
    :func:`steady.network.rows.integer_shares` (empty without shared links), or for a
    collective's routes those of :func:`steady.network.resources.integer_parts`, keyed
    by route (the ``key`` of :meth:`start` and :meth:`full`).  ``ports=False`` (the
    multi-port model, issue 43): no port is ever busy, only the parts bind."""

    def __init__(self, parts: dict, capacity: dict, ports: bool = True):
        self.parts = parts
        self.capacity = capacity
        self.ports = ports
        self.in_use: dict[str, int] = {}
        self.busy_out: set = set()
        self.busy_in: set = set()
        self._ending: dict[int, list] = {}
        self._times = [0]

    def __bool__(self) -> bool:
        """Whether an event is still to come (the first one is at tick 0)."""
        return bool(self._times)

    def advance(self) -> tuple[int, list]:
        """The next event: (tick, [(tail, head, payload) of each transfer that ends
        then]), with those transfers' ports and link capacity freed."""
        t = heapq.heappop(self._times)
        ended = self._ending.pop(t, [])
        for tail, head, _, key in ended:
            self.busy_out.discard(tail)
            self.busy_in.discard(head)
            if self.parts:
                for lid, share in self.parts.get(key, ()):
                    self.in_use[lid] -= share
        return t, [item[:3] for item in ended]

    def free(self, tail: str, head: str) -> bool:
        """Whether ``tail``'s out-port and ``head``'s in-port are both free."""
        return not self.ports or tail not in self.busy_out and head not in self.busy_in

    def full(self, arc: Arc, key=None) -> bool:
        """Whether a shared link on ``arc``'s route (the parts of ``key``, default the
        arc) lacks room for one more transfer."""
        return bool(self.parts) and link_full(arc if key is None else key, self.parts,
                                              self.in_use, self.capacity)

    def start(self, arc: Arc, end: int, payload, key=None) -> None:
        """A transfer over ``arc`` (the parts of ``key``, default the arc) from now to
        tick ``end`` carrying ``payload``: its ports are busy and its shared links hold
        their part until then."""
        tail, head = arc[0], arc[-1]
        key = arc if key is None else key
        if self.ports:
            self.busy_out.add(tail)
            self.busy_in.add(head)
        if self.parts:
            for lid, share in self.parts.get(key, ()):
                self.in_use[lid] = self.in_use.get(lid, 0) + share
        ending = self._ending.get(end)
        if ending is None:
            ending = self._ending[end] = []
            heapq.heappush(self._times, end)
        ending.append((tail, head, payload, key))
