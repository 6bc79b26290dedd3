"""``steady run`` on every rank of an MPI job (ours): rank 0 reads the schedule, checks
it with the independent verifier, builds the finite-horizon plan (and the baselines'),
and shares them; every rank then plays its node in each plan; rank 0 gathers the
outcomes and returns the measurements.

Rank i plays node i of the platform's node list, or the node a ``--map`` file gives it:
a JSON list of node names (rank i plays the i-th) or an object ``{node: rank}``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from fractions import Fraction

from ..errors import InputError
from ..fileio import load_json
from . import payload
from .engine import Outcome
from .mpi import load_mpi
from .report import Measured
from .session import Session, abort

#: The deadline while rank 0 reads and plans, when --timeout is not given (s).
SETUP_SECONDS = 300
#: Without --timeout: this much, plus three times the planned duration of the runs (s).
SLACK_SECONDS = 30
#: Message deliveries K x (nodes - 1) in a run, at most: rank 0 builds the plan of
#: every one before the clock starts (measured: 4·10^5 take 27 s and 0.5 GB on 002
#: Figure 1's schedule), so 10^6 take about a minute (docs/limits.md).
MAX_DELIVERIES = 10 ** 6
#: The source rank makes its K messages before the clock starts: K x --size bytes, at
#: most this share of the machine's memory.
MEMORY_SHARE = Fraction(1, 2)


def memory_bytes() -> int | None:
    """This machine's physical memory in bytes (None when the system does not say)."""
    import os

    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(broadcasts: int, size: int) -> None:
    """The K messages of the source fit in :data:`MEMORY_SHARE` of this machine's
    memory, or one line naming the limit (before anything is launched)."""
    memory = memory_bytes()
    if memory is not None and broadcasts * size > memory * MEMORY_SHARE:
        raise InputError("<command line>", "--broadcasts", f"{broadcasts} messages of "
                         f"{size} bytes need {broadcasts * size} bytes on the source rank, "
                         f"more than half of this machine's {memory} bytes of memory "
                         "(docs/limits.md)")


def check_deliveries(broadcasts: int, nodes: int) -> None:
    """K x (nodes - 1) <= :data:`MAX_DELIVERIES`, or one line naming the limit."""
    if broadcasts * (nodes - 1) > MAX_DELIVERIES:
        raise InputError("<command line>", "--broadcasts", f"{broadcasts} broadcasts to "
                         f"{nodes - 1} nodes are {broadcasts * (nodes - 1)} deliveries, more "
                         f"than the {MAX_DELIVERIES} a run plans (docs/limits.md)")


@dataclass
class Options:
    schedule: str               # a steady-schedule or a steady-plan file
    broadcasts: int | None      # None: the plan's
    size: int
    unit_ns: int | None        # None: --native
    map: str | None = None
    compare: bool = False
    timeout: float | None = None
    effort: str = "default"


@dataclass
class Setup:
    """What rank 0 shares: plans to run (None = the library's MPI_Bcast), node <-> rank
    maps, the optimum and the schedule's description."""

    plans: list
    names: list
    rank_of: list              # node index -> rank
    node_of: list              # rank -> node index
    nodes: tuple
    optimum: Fraction | None
    about: dict
    timeout: float


def run_job(options: Options):
    """Run on every rank: (the session, then on rank 0 (setup, [Measured, ...]), None
    on the others).  Bad input raises InputError on rank 0 (the others exit quietly
    with 2)."""
    MPI = load_mpi()
    session = Session(MPI, options.timeout or SETUP_SECONDS)
    if session.rank == 0:
        try:
            shared = ("ok", prepare(options, session.size))
        except InputError as exc:   # (not picklable as it is: its three parts)
            shared = ("error", (exc.origin, exc.element, exc.reason))
        session.share(shared, "rank 0 to read the schedule")
    else:
        shared = session.share(None, "rank 0 to read the schedule and plan")
    if shared[0] == "error":
        if session.rank == 0:
            raise InputError(*shared[1])
        raise SystemExit(2)
    setup = shared[1]
    if getattr(setup, "collective", False):   # issue 43: a collective's plan
        from .collective import run_setup
        return session, run_setup(session, setup, options)
    options.broadcasts = setup.plans[0].broadcasts   # a plan file carries its own
    session.set_timeout(setup.timeout)
    node = setup.node_of[session.rank]
    source = setup.nodes.index(setup.about["source"])
    messages = None
    if node == source:   # made before the clock starts: generating is not sending
        messages = [payload.message(i, options.size) for i in range(options.broadcasts)]
    results = []
    for plan, name in zip(setup.plans, setup.names):
        if plan is None:
            outcomes = library_bcast(session, options, setup, messages)
        else:
            outcomes = session.run(plan, setup.node_of, setup.rank_of, options.size,
                                   options.unit_ns, messages)
        if session.rank == 0:
            results.append(Measured(name, plan, outcomes, options.broadcasts,
                                    setup.rank_of[source], options.unit_ns,
                                    None if plan is None or options.unit_ns is None
                                    else plan.throughput))
    return session, ((setup, results) if session.rank == 0 else None)


def read_plan(path, broadcasts: int | None, effort="default"):
    """(the plan to run, its platform, what it runs): a steady-plan file (``steady
    simulate --plan``) as it is, checked; or a steady-schedule file, verified, and the
    plan of :func:`steady.simulate.choose.broadcast_plan` for ``broadcasts``."""
    from ..simulate.plan import Plan, check_plan

    doc = load_json(path)
    if isinstance(doc, dict) and doc.get("format") == "steady-plan":
        plan = Plan.from_dict(doc, str(path))
        if plan.platform is None:
            raise InputError(path, "platform", "missing: steady run needs the plan's "
                             "platform (steady simulate --plan writes it)")
        if broadcasts is not None and broadcasts != plan.broadcasts:
            raise InputError("<command line>", "--broadcasts", f"{broadcasts}, but the "
                             f"plan {path} carries {plan.broadcasts} broadcasts")
        problems = check_plan(plan)
        if problems:
            raise InputError(path, "transfers", f"not a valid plan: {problems[0]}")
        return plan, plan.platform, {"version": "plan", "period": plan.about.get("period"),
                                     "messages_per_period":
                                     plan.about.get("messages_per_period"),
                                     "schedule_throughput": None}
    from ..schedule_file import Schedule
    from ..simulate.choose import broadcast_plan
    from ..verify import verify

    schedule = Schedule.from_dict(doc, str(path))
    refuse_collective_schedule(schedule, path)
    report = verify(None, schedule, optimality=False)
    if not report.ok:
        raise InputError(path, "schedule", "rejected by steady verify: "
                         + str(report.violations[0]))
    if broadcasts is None:
        raise InputError("<command line>", "--broadcasts", f"required with a schedule "
                         f"({path} is not a steady-plan file)")
    if schedule.messages_per_period > broadcasts:
        raise InputError(path, "messages_per_period", f"the period holds "
                         f"{schedule.messages_per_period} messages, more than the "
                         f"{broadcasts} broadcasts: make a short period with "
                         "steady schedule PLATFORM --max-messages M")
    check_deliveries(broadcasts, len(schedule.platform.nodes))   # before planning them
    try:
        plan = broadcast_plan(schedule, broadcasts, effort=effort)
    except ValueError as exc:
        raise InputError(path, "schedule", f"cannot be unrolled: {exc}") from None
    return plan, schedule.platform, {"version": schedule.version,
                                     "period": schedule.period,
                                     "messages_per_period": schedule.messages_per_period,
                                     "schedule_throughput": schedule.throughput}


def from_the_source_alone(schedule) -> bool:
    """Whether ``schedule`` is a broadcast that
    :func:`steady.simulate.choose.broadcast_plan` unrolls: a platform without switches
    (its plans know no routes), every tree carrying the source's data out (a
    collective's file of a broadcast from the source alone is one too)."""
    from ..schedule_file import OUT, TreeEntry

    if schedule.platform.switches:
        return False
    source = schedule.platform.source
    if schedule.collective is not None and \
            set(schedule.collective.roots(schedule.platform)) != {(source, OUT)}:
        return False
    return all((t.root or source) == source and t.direction == OUT
               for t in schedule.trees if isinstance(t, TreeEntry))


def refuse_collective_schedule(schedule, path) -> None:
    """A collective's schedule (issue 43) runs through its plan, whose chunks per root
    ``steady simulate`` counted; :func:`read_plan` unrolls broadcasts from the source
    only (the rank that planned an allgather's file as a broadcast failed an internal
    postcondition)."""
    if not from_the_source_alone(schedule):
        raise InputError(str(path), "collective", "a collective's schedule: steady run "
                         "executes its plan (steady simulate --schedule FILE --horizon K "
                         "--plan PLAN.json, then steady run PLAN.json)")


def prepare(options: Options, size: int) -> Setup:
    """Rank 0: read, verify, plan, map (InputError on bad input)."""
    from .baselines import Unavailable, binomial_plan, chain_plan

    plan, platform, what = read_plan(options.schedule, options.broadcasts, options.effort)
    if plan.collective is not None:   # issue 43: compute nodes are the ranks
        from .collective import prepare as prepare_collective
        return prepare_collective(plan, options, size, SLACK_SECONDS, node_ranks)
    plan = replace(plan, platform=None)   # what the ranks need travels, not the platform
    options.broadcasts = plan.broadcasts
    nodes = platform.nodes
    if size != len(nodes):
        raise InputError(options.schedule, "platform", f"{len(nodes)} nodes but "
                         f"{size} MPI rank{'s' if size != 1 else ''}: run it with "
                         f"mpiexec -n {len(nodes)} python -m steady run ... (or steady "
                         "run --launch)")
    check_deliveries(options.broadcasts, len(nodes))
    rank_of = node_ranks(options.map, nodes)
    plans = [plan]
    names = ["steady schedule"]
    skipped = {}
    if options.compare:
        if options.unit_ns is None:
            plans.append(None)
            names.append("K x MPI_Bcast (the library's)")
        else:
            try:
                plans.append(binomial_plan(platform, options.broadcasts,
                                           {v: rank_of[i] for i, v in enumerate(nodes)}))
                names.append("K x MPI_Bcast (binomial, emulated)")
            except Unavailable as exc:
                skipped["K x MPI_Bcast"] = str(exc)
        try:
            plans.append(chain_plan(platform, options.broadcasts))
            names.append("pipelined chain")
        except Unavailable as exc:
            skipped["pipelined chain"] = str(exc)
    from ..throughput import throughput

    optimum = throughput(platform).throughput
    node_of = [0] * len(nodes)
    for n, r in enumerate(rank_of):
        node_of[r] = n
    about = {"platform": platform.name or options.schedule, "source": platform.source,
             **what, "skipped": skipped, "plan": plans[0].about,
             "planned_makespan": plans[0].makespan_time}
    timeout = options.timeout or _default_timeout(plans, options)
    return Setup(plans, names, rank_of, node_of, nodes, optimum, about, timeout)


def _default_timeout(plans, options: Options) -> float:
    planned = sum(float(p.makespan_time) * options.unit_ns / 1e9
                  for p in plans if p is not None) if options.unit_ns else 0.0
    # The library's broadcast and native runs have no plan in time: give them room.
    return SLACK_SECONDS + 3 * planned + (60 if options.unit_ns is None else 0)


def node_ranks(path, nodes) -> list:
    """node index -> rank, from a --map file (module docstring) or the identity."""
    if path is None:
        return list(range(len(nodes)))
    return map_ranks(load_json(path), nodes, path)


def map_ranks(doc, nodes, path) -> list:
    """node index -> rank, from a map document (``path`` names it in errors)."""
    if isinstance(doc, list):
        unknown = [v for v in doc if v not in nodes]
        if unknown:
            raise InputError(path, f"[{doc.index(unknown[0])}]", f"{unknown[0]!r} is not "
                             "a node of the schedule's platform")
        if sorted(doc) != sorted(nodes):
            raise InputError(path, "document", f"must list each of the {len(nodes)} "
                             "nodes exactly once (rank i plays the i-th)")
        where = {v: i for i, v in enumerate(doc)}
        return [where[v] for v in nodes]
    if isinstance(doc, dict):
        for v, r in doc.items():
            if v not in nodes:
                raise InputError(path, v, "not a node of the schedule's platform")
            if type(r) is not int or not 0 <= r < len(nodes):
                raise InputError(path, v, f"rank must be an integer in 0..{len(nodes) - 1}, "
                                 f"got {r!r}")
        if sorted(doc) != sorted(nodes) or sorted(doc.values()) != list(range(len(nodes))):
            raise InputError(path, "document", "must give every node one rank, each rank "
                             "once")
        return [doc[v] for v in nodes]
    raise InputError(path, "document", "a list of node names (rank i plays the i-th) or "
                     "an object {node: rank}")


def library_bcast(session: Session, options: Options, setup: Setup, messages):
    """K successive MPI_Bcast calls of the library itself (``--native --compare``),
    each rank checking what it receives.  A watchdog ends the rank at the deadline (a
    blocking broadcast cannot be tested)."""
    import numpy as np

    comm = session.comm
    node = setup.node_of[session.rank]
    root = setup.rank_of[setup.nodes.index(setup.about["source"])]
    clock = session.start()
    outcome = Outcome(session.rank, node)
    watchdog = threading.Timer(max(session.deadline - session.common_now(), 0) / 1e9,
                               _library_stuck, (session,))
    watchdog.daemon = True
    watchdog.start()
    buffer = np.empty(options.size, dtype=np.uint8)
    for i in range(options.broadcasts):
        data = messages[i] if session.rank == root else buffer
        comm.Bcast(data, root=root)
        if session.rank != root:
            seq, good = payload.read_message(buffer)
            outcome.received += 1
            outcome.bad_checksums += not good
            outcome.unplanned += seq != i
    outcome.delivered = options.broadcasts
    outcome.done_ns = outcome.last_available_ns = clock.now()
    watchdog.cancel()
    return session.gather(outcome)


def _library_stuck(session: Session):
    abort(session.comm, f"steady: run: no end within --timeout "
          f"{session.timeout_ns / 1e9:g} s: rank {session.rank} is still in MPI_Bcast")
