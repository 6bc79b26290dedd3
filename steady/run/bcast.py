"""``steady.mpi.bcast``: an mpi4py program's own broadcast done by a steady schedule
(issue 44, item 4; ours).

The caller's ranks execute the schedule's finite-horizon plan for K broadcasts -- the
plan ``steady run SCHEDULE --broadcasts K`` executes (:func:`steady.run.job.read_plan`:
the schedule verified, then :func:`steady.simulate.choose.broadcast_plan`) -- where
broadcast m is slice m of the caller's buffer (:mod:`.pipeline`): pipelined, real
bytes, no emulated clock.  Rank i plays node i of the schedule's platform, or the node
``map`` gives it.

**The number of slices** K (unless ``slices=`` is given) follows seed 004 §4.2 and §5,
where a pipelined broadcast of a message of n bytes in X segments takes
(X + H - 1)·T(n / X), T(m) = α + β·m, and the segment size is chosen by that model
among sizes a factor 2 apart.  Here the plan's own makespan for K broadcasts, in the
platform's time units, takes the place of (X + H - 1) (ours: it counts the schedule's
trees, periods, warm-up and clean-up exactly): K minimises

    makespan(K) · (A + n / K),    A = α / β (:data:`STARTUP_BYTES`),

over K = M, 2M, 4M, ... (M the schedule's messages per period; at most n and
:data:`MAX_SLICES`, or M when M is more), the smaller K on a tie.  The product is
exact (Fractions): every rank picks the same K.

**Fallback**: a buffer under ``fallback_bytes`` (default :data:`FALLBACK_BYTES`, a
stated crossover), or with fewer bytes than M, goes to the library's ``comm.Bcast``.

**Agreement** (``check=True``, the default): every call starts with one small
``Allreduce`` (a vector of 16 integers) through which the ranks compare what they were
given -- buffer size, root, the schedule and map (a 63-bit digest of each), the slices,
the fallback threshold -- and whether a rank refused its own arguments.  Every rank
reaches it, whatever it was given, so a mismatch raises the same ``ValueError`` on every
rank instead of a hang; with ``check=False`` a mismatch is the caller's error, as with
``MPI_Bcast`` (it may hang).

**Root**: the caller's root must be the rank that plays the schedule's source (the
schedule is optimal for its source; another root needs its own schedule): otherwise
``ValueError`` naming ``root`` and the rank that may broadcast.
"""

from __future__ import annotations

import hashlib
import json
import os
from fractions import Fraction

from ..errors import InputError

ORIGIN = "steady.mpi.bcast"
#: A message's start-up in bytes (α/β of seed 004's T(m) = α + β·m) for the choice of
#: K: measured by ``benchmarks/mpi_bcast.py --sweep`` on this machine (Figure 1, 5
#: ranks on 2 cores, MPICH's shared memory): with A = 1 MB the chosen K took 1.09, 1.00
#: and 1.06 times the fastest K measured at 256 KB, 4 MB and 64 MB (64 KB: 1.09, 1.87,
#: 1.31).  On a network, A = α x bandwidth
#: (``steady calibrate`` measures both): pass ``startup_bytes=``.
STARTUP_BYTES = 1024 * 1024
#: Under this many bytes the call is ``comm.Bcast``: a stated crossover, not a measured
#: one (on this machine ``comm.Bcast`` is faster below 1 MB in every run, and above the
#: order changes from run to run: docs/mpi.md): seed 004 §5.4 finds pipelining worth
#: it from about 62 KB (32 processes, 100 Mb/s; from 128 KB at 1 Gb/s, its Figure 18
#: (a)).
FALLBACK_BYTES = 64 * 1024
#: The most slices of one buffer (a plan of K broadcasts is built once per K).
MAX_SLICES = 1024
#: The most rank parts a prepared schedule keeps (one per K and buffer size).
MAX_PARTS = 256
#: Entries of the agreement vector (each sent as v and -v: one MAX gives max and min).
_FIELDS = ("refused", "nbytes", "root", "schedule", "map", "slices", "fallback",
           "chosen")


class PreparedBcast:
    """A schedule ready for repeated broadcasts (:func:`prepare`): the plan of each K,
    the K of each buffer size and each rank's part of each plan are computed once and
    kept, so that calling :meth:`bcast` in a loop costs no planning.

    ``nodes``, ``source`` (node index), ``messages_per_period`` (M), ``rank_of`` (node
    index -> rank), ``plans_built`` (plans built so far), ``label``."""

    def __init__(self, planner, nodes, source: int, messages_per_period: int, *,
                 digest: int, label: str, fixed: int | None = None, map=None,
                 fallback_bytes: int = FALLBACK_BYTES,
                 startup_bytes: int = STARTUP_BYTES):
        self._planner = planner          # K -> Plan
        self.nodes = tuple(nodes)
        self.source = source
        self.messages_per_period = messages_per_period
        self.fixed = fixed               # a plan file: its own K only
        self.label = label
        self.fallback_bytes = _whole(fallback_bytes, "fallback_bytes", 0)
        self.startup_bytes = _whole(startup_bytes, "startup_bytes", 0)
        self.rank_of = ranks_of_map(map, self.nodes)
        self._digest = digest
        self._map_digest = _digest(self.rank_of)
        self._plans: dict[int, object] = {}
        self._chosen: dict[int, int] = {}
        self._parts: dict[tuple, object] = {}
        self.plans_built = 0

    @classmethod
    def from_planner(cls, planner, nodes, source: int, label: str, **options):
        """A prepared broadcast of any plan maker ``planner(K) -> Plan`` (the baselines
        of benchmarks/mpi_bcast.py: the pipelined chain of
        :func:`steady.run.baselines.chain_plan`)."""
        return cls(planner, nodes, source, 1, digest=_digest(label), label=label,
                   **options)

    # -- plans --------------------------------------------------------------------
    def plan(self, slices: int):
        """The plan of ``slices`` broadcasts (built once)."""
        plan = self._plans.get(slices)
        if plan is None:
            plan = self._plans[slices] = self._planner(slices)
            self.plans_built += 1
        return plan

    def slices_for(self, nbytes: int) -> int:
        """K for a buffer of ``nbytes`` bytes (module docstring), or 0: the fallback."""
        m = self.messages_per_period
        if nbytes < max(self.fallback_bytes, m, 1):
            return 0
        if self.fixed is not None:
            return self.fixed
        k = self._chosen.get(nbytes)
        if k is None:
            k = self._chosen[nbytes] = self._best_slices(nbytes)
        return k

    def _best_slices(self, nbytes: int) -> int:
        """argmin over K = M·2^j of makespan(K)·(A + n/K); the ladder stops once the
        product grows: makespan(K) is about (K + W)·T/M for a warm-up of W slots, and
        (K + W)·(A + n/K) has one minimum (tests/test_mpi_bcast.py compares the choice
        with the whole ladder's)."""
        m = self.messages_per_period
        best = None
        k = m
        while k <= min(MAX_SLICES, nbytes):
            cost = self.plan(k).makespan_time * (self.startup_bytes + Fraction(nbytes, k))
            if best is not None and cost >= best[0]:
                break
            best = (cost, k)
            k *= 2
        return best[1] if best else m

    def part(self, slices: int, nbytes: int, rank: int):
        """This rank's part (:class:`~steady.run.pipeline.RankPart`) of the plan of
        ``slices`` broadcasts on ``nbytes`` bytes."""
        from .pipeline import rank_part

        key = (slices, nbytes, rank)
        part = self._parts.get(key)
        if part is None:
            plan = self.plan(slices)
            node = self.rank_of.index(rank)
            if len(self._parts) >= MAX_PARTS:   # the oldest goes (many buffer sizes)
                del self._parts[next(iter(self._parts))]
            part = self._parts[key] = rank_part(plan, node, self.rank_of, nbytes)
        return part

    # -- the call -----------------------------------------------------------------
    def bcast(self, comm, buffer, root: int = 0, *, slices: int | None = None,
              check: bool = True) -> None:
        """Broadcast ``buffer`` from ``root`` to every rank of ``comm`` (module
        docstring); like ``comm.Bcast(buffer, root)``: in place, returns None."""
        MPI, channel, rank, size = _channel_of(comm)
        refused, data, k = None, None, 0
        try:
            if slices is not None:
                _whole(slices, "slices", 1)
            _whole(root, "root", 0)
            if root >= size:
                raise InputError(ORIGIN, "root", f"rank {root}, but the communicator "
                                 f"has {size} ranks")
            data = byte_view(buffer, writable=rank != root)
            if size != len(self.nodes):
                raise InputError(ORIGIN, "comm", f"{size} ranks, but the schedule's "
                                 f"platform has {len(self.nodes)} nodes ({self.label}): "
                                 "one rank per node")
            k = slices if slices is not None else self.slices_for(len(data))
            if slices is not None:
                self._check_slices(slices, len(data))
        except (InputError, TypeError, ValueError) as exc:
            refused = exc
        if check:
            _agree(channel, rank, size, refused, [
                len(data) if data is not None else -1, root if type(root) is int else -1,
                self._digest, self._map_digest, slices if type(slices) is int else 0,
                self.fallback_bytes, k])
        if refused is not None:
            raise refused
        source_rank = self.rank_of[self.source]
        if root != source_rank:
            raise InputError(ORIGIN, "root", f"rank {root}, but the schedule's source "
                             f"{self.nodes[self.source]} is played by rank {source_rank}"
                             " (map=): broadcast from that rank, or use a schedule whose "
                             f"source is the node rank {root} plays")
        if k == 0:
            comm.Bcast(data, root=root)
            return
        from .pipeline import run_part

        run_part(MPI, channel.own, self.part(k, len(data), rank), data, channel.crowded)

    def _check_slices(self, slices: int, nbytes: int) -> None:
        m = self.messages_per_period
        if self.fixed is not None and slices != self.fixed:
            raise InputError(ORIGIN, "slices", f"{slices}, but the plan ({self.label}) "
                             f"carries {self.fixed} broadcasts")
        if slices < m:
            raise InputError(ORIGIN, "slices", f"{slices}, fewer than the schedule's "
                             f"{m} messages per period")
        if slices > min(nbytes, max(MAX_SLICES, m)):
            raise InputError(ORIGIN, "slices", f"{slices} slices of {nbytes} bytes: at "
                             f"most one per byte and {MAX_SLICES}")


def _agree(channel, rank: int, size: int, refused, given: list) -> None:
    """The agreement of the module docstring: ``given`` holds this rank's values of
    :data:`_FIELDS` after the first (whatever they are when ``refused``).  Every rank
    raises the same error, but a rank that refused, which raises its own."""
    import numpy as np

    MPI = _mpi()
    mine = [size - rank if refused is not None else 0] + given
    vector = np.array(mine + [-v for v in mine], dtype=np.int64)
    both = np.empty_like(vector)
    # MPI's own blocking collective: measured under the 16-rank crowd of 2 cores,
    # 1.8 ms where a non-blocking one, tested and slept on, took 4 ms
    channel.own.Allreduce(vector, both, op=MPI.MAX)
    n = len(mine)
    high, low = both[:n], -both[n:]
    if refused is not None:
        return
    if high[0]:
        raise InputError(ORIGIN, "arguments", f"rank {size - int(high[0])} refused its "
                         "arguments (its own error says why); every rank stopped")
    for name, hi, lo in zip(_FIELDS[1:], high[1:], low[1:]):
        if hi != lo:
            raise InputError(ORIGIN, _ARGUMENT[name], _DISAGREE[name].format(
                lo=int(lo), hi=int(hi)) + ": every rank must pass the same")


_ARGUMENT = {"nbytes": "buffer", "root": "root", "schedule": "schedule", "map": "map",
             "slices": "slices", "fallback": "fallback_bytes", "chosen": "slices"}
_DISAGREE = {"nbytes": "the ranks' buffers differ in size ({lo} to {hi} bytes)",
             "root": "the ranks name different roots ({lo} to {hi})",
             "schedule": "the ranks were given different schedules",
             "map": "the ranks were given different maps",
             "slices": "the ranks ask for different slices ({lo} to {hi})",
             "fallback": "the ranks' fallback thresholds differ ({lo} to {hi} bytes)",
             "chosen": "the ranks chose different slices ({lo} to {hi})"}


def prepare(schedule, *, map=None, effort: str = "default",
            fallback_bytes: int = FALLBACK_BYTES,
            startup_bytes: int = STARTUP_BYTES) -> PreparedBcast:
    """A :class:`PreparedBcast` of ``schedule``: a
    :class:`~steady.schedule_file.Schedule`, a steady-schedule or steady-plan document
    (a dict), a :class:`~steady.simulate.plan.Plan`, or the path of a steady-schedule
    or steady-plan file.  A schedule is verified (``steady verify``'s rules, optimality
    not required); a plan is checked (:func:`~steady.simulate.plan.check_plan`) and runs
    with its own K only.  ``map``: which node each rank plays (None: rank i plays node
    i; a list of node names: rank i plays the i-th; a dict ``{node: rank}``; or the
    path of a JSON file holding either, as ``steady run --map``).  ``effort``: the
    effort of :func:`~steady.simulate.choose.broadcast_plan` (``steady run``'s default).
    Raises :class:`~steady.errors.InputError` (a ValueError) on bad input."""
    if isinstance(schedule, PreparedBcast):
        return schedule
    from ..schedule_file import Schedule
    from ..simulate.plan import Plan

    origin = "schedule"
    if isinstance(schedule, (str, os.PathLike)):
        from ..fileio import load_json

        origin = os.fspath(schedule)
        schedule = load_json(schedule)
    if isinstance(schedule, dict):
        kind = Plan if schedule.get("format") == "steady-plan" else Schedule
        schedule = kind.from_dict(schedule, origin)
    options = {"map": map, "fallback_bytes": fallback_bytes,
               "startup_bytes": startup_bytes}
    if isinstance(schedule, Plan):
        return _of_plan(schedule, origin, options)
    if isinstance(schedule, Schedule):
        return _of_schedule(schedule, origin, effort, options)
    raise TypeError(f"{ORIGIN}: schedule: a Schedule, a Plan, a steady document or the "
                    f"path of one, or a PreparedBcast; got {type(schedule).__name__}")


def _of_schedule(schedule, origin: str, effort: str, options) -> PreparedBcast:
    from ..simulate.choose import broadcast_plan
    from ..verify import verify
    from .job import from_the_source_alone

    platform = schedule.platform
    if not from_the_source_alone(schedule):   # broadcast_plan unrolls the source's only
        raise InputError(origin, "collective", "a collective's schedule: steady.mpi.bcast "
                         "runs a broadcast schedule from its platform's source")
    if platform.switches:
        raise InputError(origin, "platform.switches", "switches are no ranks: "
                         "steady.mpi.bcast runs one rank per node, without switches")
    report = verify(None, schedule, optimality=False)
    if not report.ok:
        raise InputError(origin, "schedule", "rejected by steady verify: "
                         + str(report.violations[0]))

    def planner(k: int):
        return broadcast_plan(schedule, k, effort=effort)

    nodes = platform.nodes
    return PreparedBcast(planner, nodes, nodes.index(platform.source),
                         schedule.messages_per_period, digest=_digest(schedule.to_json()),
                         label=platform.name or origin, **options)


def _of_plan(plan, origin: str, options) -> PreparedBcast:
    from ..simulate.plan import check_plan

    problems = check_plan(plan)
    if problems:
        raise InputError(origin, "transfers", f"not a valid plan: {problems[0]}")

    def planner(k: int):
        return plan

    return PreparedBcast(planner, plan.nodes, plan.source, plan.broadcasts,
                         digest=_digest(plan.to_json()), label=plan.name,
                         fixed=plan.broadcasts, **options)


def bcast(comm, buffer, root: int = 0, *, schedule, map=None, slices: int | None = None,
          check: bool = True, effort: str = "default") -> None:
    """Broadcast ``buffer`` (any contiguous buffer: a numpy array, a bytearray, ...;
    the root's may be read-only) from rank ``root`` to every rank of ``comm`` by
    ``schedule`` (what :func:`prepare` takes, or a :class:`PreparedBcast` -- in a
    loop, prepare once: a schedule or a path is read, verified and planned at every
    call).  In place, like ``comm.Bcast(buffer, root)``; returns None.  Every rank
    must pass the same size, root, schedule, map and slices (checked: module
    docstring).  ``slices``: K, the number of slices (default: chosen).  Raises
    ValueError (:class:`~steady.errors.InputError`) or TypeError naming the
    argument."""
    try:
        if isinstance(schedule, PreparedBcast):
            if map is not None:
                raise InputError(ORIGIN, "map", "give it to prepare(), with the schedule")
            prepared = schedule
        else:
            prepared = prepare(schedule, map=map, effort=effort)
    except (InputError, TypeError, ValueError) as exc:
        if check:   # the other ranks are in the agreement: tell them, then raise
            _, channel, rank, size = _channel_of(comm)
            _agree(channel, rank, size, exc, [0] * (len(_FIELDS) - 1))
        raise
    prepared.bcast(comm, buffer, root, slices=slices, check=check)


# -- helpers ----------------------------------------------------------------------

def byte_view(buffer, writable: bool) -> memoryview:
    """``buffer``'s bytes as a one-dimensional memoryview (C- or Fortran-contiguous
    buffers; TypeError otherwise, or when it must be writable and is not)."""
    if isinstance(buffer, (list, tuple)):
        raise TypeError(f"{ORIGIN}: buffer: pass the buffer itself (steady slices its "
                        "bytes), not an mpi4py [buffer, datatype] specification")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"{ORIGIN}: buffer: a contiguous buffer (numpy array, "
                        f"bytearray, ...), got {type(buffer).__name__}") from None
    if writable and view.readonly:
        raise TypeError(f"{ORIGIN}: buffer: read-only on a rank that receives")
    if view.c_contiguous:
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view
    if view.f_contiguous:
        import numpy as np

        flat = np.asarray(view).ravel(order="K")   # a view: the block is contiguous
        return memoryview(flat.view(np.uint8))
    raise TypeError(f"{ORIGIN}: buffer: not contiguous (a strided view): pass a "
                    "contiguous copy")


def ranks_of_map(map, nodes) -> list:
    """node index -> rank for ``map`` (:func:`prepare`)."""
    from .job import map_ranks, node_ranks

    if map is None:
        return list(range(len(nodes)))
    if isinstance(map, (str, os.PathLike)):
        return node_ranks(os.fspath(map), nodes)
    if isinstance(map, (list, tuple, dict)):
        return map_ranks(list(map) if isinstance(map, tuple) else map, nodes, "map")
    raise TypeError(f"{ORIGIN}: map: a list of node names, a dict {{node: rank}} or a "
                    f"file's path, got {type(map).__name__}")


def _whole(value, name: str, low: int) -> int:
    if type(value) is not int or value < low:
        raise InputError(ORIGIN, name, f"{value!r} is not a whole number >= {low}")
    return value


def _digest(value) -> int:
    """63 bits of BLAKE2b of ``value`` (text, or JSON of a list): equal on every rank
    for equal inputs, and a negation fits an int64."""
    text = value if isinstance(value, str) else json.dumps(value)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(),
                          "little") >> 1


def _mpi():
    from .mpi import load_mpi

    return load_mpi(ORIGIN)


_KEYVAL = None


class _Channel:
    """``comm`` duplicated (``own``: our messages have a context of their own, no
    message of the caller's can match them) and whether this rank's host has more of
    the communicator's ranks than cores (``crowded``: :mod:`.pipeline` then sleeps
    between tests instead of spinning in MPI).  The cores are the union of the host's
    ranks' CPU affinities (ranks pinned one to a core are not crowded)."""

    def __init__(self, MPI, comm):
        self.own = comm.Dup()
        host = self.own.Split_type(MPI.COMM_TYPE_SHARED)
        cores = set().union(*host.allgather(_cores()))
        self.crowded = host.Get_size() > len(cores)
        host.Free()


def _cores() -> set:
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:   # no affinity on this system: every core
        return set(range(os.cpu_count() or 1))


def _channel_of(comm):
    """(MPI, the channel of ``comm``, rank, size); TypeError for no communicator."""
    MPI = _mpi()
    if not isinstance(comm, MPI.Intracomm) or comm == MPI.COMM_NULL:
        raise TypeError(f"{ORIGIN}: comm: an mpi4py intra-communicator, got "
                        f"{type(comm).__name__}")
    return MPI, _private(MPI, comm), comm.Get_rank(), comm.Get_size()


def _private(MPI, comm) -> _Channel:
    """The channel of ``comm``, made on the first call and kept as an attribute of
    ``comm`` (MPI's caching for libraries).  Collective on the first call only; every
    rank's first call on ``comm`` is the same call."""
    global _KEYVAL
    if _KEYVAL is None:
        _KEYVAL = MPI.Comm.Create_keyval()
    channel = comm.Get_attr(_KEYVAL)
    if channel is None:
        channel = _Channel(MPI, comm)
        comm.Set_attr(_KEYVAL, channel)
    return channel
