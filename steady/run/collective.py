"""``steady run`` of a collective's plan (issue 43; ours): the plan that ``steady
simulate --collective ... --plan`` counted, with real data on every rank.

The ranks are the plan's *compute* nodes (rank i plays the i-th compute node in the
platform's order, or the node a ``--map`` file gives it): a switch is no rank, and a
transfer over a route through switches is one MPI message from its first compute node
to its last.  The data are integers, so that every result is checked exactly:

* chunk c of an out-root r (broadcast, allgather) is :func:`chunk` (r, c): every other
  rank must end with exactly those words;
* node v's part of chunk c of shard r (reduce-scatter, allreduce) is :func:`share`
  (v, r, c); a rank sends its partial -- its own part plus every partial the plan sends
  it for that chunk -- once all of those have arrived, and the root of the shard must end
  with the exact sum over all ranks; an allreduce's root then sends that sum out on its
  out-streams, and every rank must end with it.

Each rank sends the transfers whose tail it plays, and receives those whose head it
plays, in the plan's order per peer (MPI keeps the order of messages between two ranks,
so a message is the transfer the receiver expects: its first word, the transfer's id,
is checked).  A transfer leaves when its data are ready (received, or reduced) and --
emulated, ``--time-unit`` -- not before its planned start; the plan's causality makes
this order deadlock-free (the pending transfer with the earliest planned start has every
dependency done and every earlier transfer to its peer sent).  Native runs (``--native``)
go as fast as the data allow.  Nothing blocks: requests are tested, the rank sleeps when
nothing moved, and the session's deadline turns a dead peer into one line.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from ..errors import InputError
from .session import Session

TAG = 31
#: Receives posted ahead per peer.
WINDOW = 8
POLL_S = 0.00005
OUT, IN = "out", "in"


def chunk(root: int, c: int, words: int) -> np.ndarray:
    """An out-root's chunk c: ``words`` int64 drawn from a generator seeded by (r, c)."""
    return np.random.default_rng([0, root, c]).integers(0, 2 ** 31, words, dtype=np.int64)


def share(node: int, root: int, c: int, words: int) -> np.ndarray:
    """Node ``node``'s part of chunk c of shard ``root`` (reduced by summing: < 2^31
    each, so sums of up to 2^32 parts stay exact in int64)."""
    return np.random.default_rng([1, node, root, c]).integers(0, 2 ** 31, words,
                                                              dtype=np.int64)


def expected_sum(compute, root: int, c: int, words: int) -> np.ndarray:
    return sum((share(v, root, c, words) for v in compute),
               start=np.zeros(words, dtype=np.int64))


@dataclass
class CollectiveSetup:
    """What rank 0 shares: the plan (without its platform), the compute nodes (node
    indices) and rank maps, and what the report says."""

    plan: object
    compute: list
    rank_of: dict               # node index -> rank
    node_of: list               # rank -> node index
    about: dict
    timeout: float
    collective: bool = True


@dataclass
class RankOutcome:
    rank: int
    node: int
    sent: int = 0
    received: int = 0
    done_ns: int = 0
    checked: dict = field(default_factory=dict)    # root name -> chunks exactly right
    expected: dict = field(default_factory=dict)   # root name -> chunks it must hold
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.checked == self.expected


def prepare(plan, options, size: int, timeout_default, node_ranks) -> CollectiveSetup:
    """Rank 0: map the compute nodes to the ranks (InputError on a mismatch);
    ``node_ranks(path, names)`` reads a ``--map`` file (steady.run.job's)."""
    if options.compare:
        raise InputError("<command line>", "--compare", "the baselines are broadcasts; a "
                         "collective's plan runs alone")
    platform = plan.platform
    switches = set(platform.switches)
    compute = [i for i, v in enumerate(plan.nodes) if v not in switches]
    names = [plan.nodes[i] for i in compute]
    if size != len(compute):
        raise InputError(options.schedule, "platform", f"{len(compute)} compute nodes but "
                         f"{size} MPI rank{'s' if size != 1 else ''}: run it with mpiexec "
                         f"-n {len(compute)} python -m steady run ... (switches are no "
                         "ranks)")
    ranks = node_ranks(options.map, names)
    rank_of = {compute[k]: r for k, r in enumerate(ranks)}
    node_of = [0] * len(compute)
    for v, r in rank_of.items():
        node_of[r] = v
    about = {"platform": platform.name or str(options.schedule),
             "collective": plan.collective.kind,
             "chunks": {plan.nodes[r]: n for r, n in plan.collective.chunks},
             "planned_makespan": plan.makespan_time, "plan": plan.about}
    planned = (float(plan.makespan_time) * options.unit_ns / 1e9 if options.unit_ns
               else 60.0)
    return CollectiveSetup(replace(plan, platform=None), compute, rank_of, node_of,
                           about, options.timeout or timeout_default + 3 * planned)


class CollectiveRank:
    """Node ``node``'s part of a collective's plan (module docstring)."""

    def __init__(self, comm, setup: CollectiveSetup, node: int, words: int,
                 unit_ns: int | None, clock, deadline_ns: int):
        self.comm, self.setup, self.node, self.words = comm, setup, node, words
        self.plan = plan = setup.plan
        self.clock, self.deadline = clock, deadline_ns
        self.streams = plan.collective.streams
        self.kind = plan.collective.kind
        scale = (unit_ns or 0, plan.unit)
        self.start = {t.id: -(-t.release * scale[0] // scale[1]) for t in plan.transfers
                      if node in (t.tail, t.head)}
        self.outgoing: dict = {}      # head -> [transfer, ...] in the plan's order
        self.incoming: dict = {}      # tail -> [transfer, ...]
        self.waiting: dict = {}       # (root, chunk) -> partials still to arrive here
        for t in sorted(plan.transfers, key=lambda t: (t.release, t.id)):
            if t.tail == node:
                self.outgoing.setdefault(t.head, []).append(t)
            if t.head == node:
                self.incoming.setdefault(t.tail, []).append(t)
                if self.streams[t.tree].direction == IN:
                    key = (self.streams[t.tree].root, t.first)
                    self.waiting[key] = self.waiting.get(key, 0) + 1
        self.held: dict = {}          # (root, chunk) -> words held (out-streams)
        self.partial: dict = {}       # (root, chunk) -> running sum (in-streams)
        self.posted: dict = {tail: [] for tail in self.incoming}
        self.next_in = {tail: 0 for tail in self.incoming}
        self.next_out = {head: 0 for head in self.outgoing}
        self.sending: list = []       # (request, its buffer), in the order posted
        self.outcome = RankOutcome(comm.Get_rank(), node)

    # -- data -------------------------------------------------------------------------
    def _own(self, root: int, c: int):
        """Words this node can send for (root, chunk) now, or None."""
        if root == self.node and self.kind in ("broadcast", "allgather"):
            return chunk(root, c, self.words)
        if (root, c) in self.held:
            return self.held[(root, c)]
        return None

    def _partial(self, root: int, c: int):
        """This node's partial of (root, chunk) once every partial sent to it is in."""
        if self.waiting.get((root, c), 0):
            return None
        got = self.partial.get((root, c))
        mine = share(self.node, root, c, self.words)
        return mine if got is None else got + mine

    def _data(self, t):
        s = self.streams[t.tree]
        if s.direction == IN:
            return self._partial(s.root, t.first)
        if s.root == self.node and self.kind == "allreduce":
            return self._partial(s.root, t.first)   # the reduction, complete
        return self._own(s.root, t.first)

    # -- the loop ---------------------------------------------------------------------
    def run(self) -> RankOutcome:
        rank_of = self.setup.rank_of
        while True:
            moved = self._post(rank_of) | self._receive() | self._send(rank_of)
            if self._finished():
                break
            if self.clock.now() > self.deadline:
                return self._stuck()
            if not moved:
                time.sleep(POLL_S)
        self.outcome.done_ns = self.clock.now()
        self._check()
        return self.outcome

    def _post(self, rank_of) -> bool:
        moved = False
        for tail, queue in self.incoming.items():
            posted = self.posted[tail]
            while len(posted) < WINDOW and self.next_in[tail] + len(posted) < len(queue):
                t = queue[self.next_in[tail] + len(posted)]
                buffer = np.empty(self.words + 1, dtype=np.int64)
                posted.append((self.comm.Irecv(buffer, source=rank_of[tail], tag=TAG),
                               buffer, t))
                moved = True
        return moved

    def _receive(self) -> bool:
        moved = False
        for tail, posted in self.posted.items():
            while posted and posted[0][0].Test():
                _, buffer, t = posted.pop(0)
                self.next_in[tail] += 1
                self._arrived(buffer, t)
                moved = True
        return moved

    def _arrived(self, buffer, t) -> None:
        o = self.outcome
        o.received += 1
        if int(buffer[0]) != t.id:
            o.problems.append(f"expected transfer {t.id} from {self.plan.nodes[t.tail]}, "
                              f"got {int(buffer[0])}")
        s = self.streams[t.tree]
        key = (s.root, t.first)
        words = buffer[1:].copy()
        if s.direction == IN:
            self.partial[key] = words if key not in self.partial else self.partial[key] + words
            self.waiting[key] -= 1
        else:
            if key in self.held:
                o.problems.append(f"chunk {t.first} of {self.plan.nodes[s.root]} arrives "
                                  "twice")
            self.held[key] = words

    def _send(self, rank_of) -> bool:
        moved = False
        while self.sending and self.sending[0][0].Test():
            self.sending.pop(0)
            moved = True
        now = self.clock.now()
        for head, queue in self.outgoing.items():
            k = self.next_out[head]
            if k >= len(queue) or now < self.start[queue[k].id]:
                continue
            t = queue[k]
            data = self._data(t)
            if data is None:
                continue
            message = np.empty(self.words + 1, dtype=np.int64)
            message[0] = t.id
            message[1:] = data
            self.sending.append((self.comm.Isend(message, dest=rank_of[head], tag=TAG),
                                 message))
            self.next_out[head] = k + 1
            self.outcome.sent += 1
            moved = True
        return moved

    def _finished(self) -> bool:
        return (not self.sending
                and all(self.next_out[h] == len(q) for h, q in self.outgoing.items())
                and all(self.next_in[t] == len(q) for t, q in self.incoming.items()))

    def _stuck(self) -> RankOutcome:
        names = self.plan.nodes
        for tail, queue in self.incoming.items():
            if self.next_in[tail] < len(queue):
                t = queue[self.next_in[tail]]
                raise _Stuck(f"waits for transfer {t.id} from {names[tail]}",
                             self.setup.rank_of[tail])
        raise _Stuck("waits to send its last transfers", None)

    # -- the exact check ----------------------------------------------------------------
    def _check(self) -> None:
        """Every chunk this node must end with, word for word (module docstring)."""
        o, names, spec = self.outcome, self.plan.nodes, self.plan.collective
        compute = self.setup.compute
        for r, n in spec.chunks:
            name = names[r]
            if self.kind in ("broadcast", "allgather"):
                if r == self.node:
                    continue
                want = lambda c: chunk(r, c, self.words)   # noqa: E731
                have = lambda c: self.held.get((r, c))     # noqa: E731
            elif self.kind == "reduce-scatter":
                if r != self.node:
                    continue
                want = lambda c: expected_sum(compute, r, c, self.words)   # noqa: E731
                have = lambda c: self._partial(r, c)                       # noqa: E731
            else:   # allreduce: every node ends with every shard's sum
                want = lambda c: expected_sum(compute, r, c, self.words)   # noqa: E731
                have = (lambda c: self._partial(r, c)) if r == self.node else \
                    (lambda c: self.held.get((r, c)))                        # noqa: E731
            o.expected[name] = n
            right = 0
            for c in range(n):
                got = have(c)
                if got is not None and np.array_equal(got, want(c)):
                    right += 1
                elif len(o.problems) < 5:
                    o.problems.append(f"{names[self.node]} ends with chunk {c} of {name} "
                                      + ("missing" if got is None else "wrong"))
            o.checked[name] = right


class _Stuck(RuntimeError):
    def __init__(self, waiting, peer):
        super().__init__(waiting)
        self.waiting, self.peer = waiting, peer


def run_setup(session: Session, setup: CollectiveSetup, options):
    """Every rank plays its node; rank 0 returns (setup, [outcome by rank], makespan
    in ns), the others None."""
    words = max(1, options.size // 8)
    clock = session.start()
    node = setup.node_of[session.rank]
    engine = CollectiveRank(session.comm, setup, node, words, options.unit_ns, clock,
                            session.deadline - clock.base + session.offset)
    try:
        outcome = engine.run()
    except _Stuck as exc:
        session.stuck(exc.waiting, exc.peer)
    outcomes = session.gather(outcome)
    if session.rank != 0:
        return None
    return setup, outcomes


def summary(setup: CollectiveSetup, outcomes, options) -> dict:
    """The run as the report shows it: chunks per root right at every rank that must
    hold them, the planned and measured makespans."""
    delivered = {}
    for o in outcomes:
        for root, right in o.checked.items():
            delivered[root] = min(delivered.get(root, right), right)
    chunks = setup.about["chunks"]
    ok = all(o.ok for o in outcomes) and all(delivered.get(r, 0) == n
                                             for r, n in chunks.items())
    makespan_ns = max(o.done_ns for o in outcomes)
    unit = options.unit_ns
    return {"collective": setup.about["collective"], "platform": setup.about["platform"],
            "ranks": len(outcomes), "size_bytes": max(1, options.size // 8) * 8,
            "mode": "emulated" if unit else "native",
            "planned_makespan": setup.about["planned_makespan"],
            "makespan_ns": makespan_ns,
            "ratio_to_planned": (Fraction(int(setup.about["planned_makespan"] * unit),
                                          makespan_ns) if unit and makespan_ns else None),
            "chunks": chunks, "delivered": delivered, "delivered_ok": ok,
            "problems": [p for o in outcomes for p in o.problems][:20],
            "ranks_detail": [{"rank": o.rank, "node": o.node, "sent": o.sent,
                              "received": o.received, "checked": o.checked,
                              "done_ns": o.done_ns} for o in outcomes]}
