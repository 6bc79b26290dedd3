"""``steady replay``: a schedule run in SimGrid, the measure of truth (ours, issue 19).

The network model is stated, not SimGrid's default: CM02 (max-min fair sharing of every
link, each flow bounded by its route's slowest link), bandwidth factor 1, latency
factor 0 (latencies are start-ups, which the steady-state model leaves out: 002 §6),
no TCP window limit (TCP-gamma 0), no cross traffic, weight-S 0.  A transfer of k
messages over a contention-free route then takes exactly k x cost, as steady predicts.
``latency=True`` replays with latency factor 1 instead (each transfer pays its route's
latency; the prediction does not).

A version 1 schedule runs as its semantics say: the steps in order, each step's
transfers (merged per link) started together at full speed, the next step when all have
finished; ``periods`` periods back to back.  (SimGrid shares a link max-min fairly, not
in proportion to what each transfer needs, so a step whose transfers only fit the link
together may still run late: the replay shows it, it is not hidden by pacing.)  A
version 2 (timed) schedule starts every transfer at its own start in every period, at
full speed -- but a transfer that runs slower than its route on a multi-port platform
(its ``duration``, issue 43), whose rate SimGrid caps at its bytes over that duration:
its share of the route's bandwidth, as steady predicts it.  The same for a plan's
transfers (``steady replay PLATFORM PLAN``).  SimGrid 3.32 ignores a communication's
rate cap under TCP-gamma 0, so such a replay states TCP-gamma 10^300 instead: no
window limit either (with latency factor 0 the window bounds nothing at all).

CM02 with latency factor 0 is homogeneous -- scaling every size by α scales every time
by α -- so a schedule whose period holds more bytes than SimGrid counts well (beyond
10^12 per transfer) is replayed at a scale α = 10^-k, said in the report.

Reported: predicted and simulated period and throughput, their ratio
(simulated throughput / predicted), and the worst step (or transfer): the largest
simulated / predicted duration.  Simulated times are SimGrid's doubles.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError
from ..fileio import check_input
from ..numbers import format_exact
from ..network.resources import route_cost
from ..schedule_file import transfer_cost, transfer_time
from .importer import load_error
from .locate import WorkerCrash, run_worker
from .xmlinfo import exact_of, read_facts

MODEL = ("network/model:CM02", "network/bandwidth-factor:1", "network/latency-factor:0",
         "network/weight-S:0", "network/TCP-gamma:0", "network/crosstraffic:0")
MODEL_TEXT = ("CM02, bandwidth factor 1, latency factor {lat}, no TCP window limit "
              "(TCP-gamma 0), no cross traffic")
#: The TCP-gamma of a replay whose transfers carry rate caps: SimGrid 3.32 ignores a
#: communication's rate under TCP-gamma 0, and a window of 10^300 bytes limits nothing
#: either (the replay of a full-speed schedule keeps TCP-gamma 0, as stated).
UNLIMITED_WINDOW = "network/TCP-gamma:1e300"

#: Largest bytes in one simulated transfer before the replay is scaled down.
MAX_BYTES = 10 ** 12
#: Transfers a replay simulates at most (--periods x the schedule's transfers): SimGrid
#: runs one actor or one communication each.
MAX_TRANSFERS = 10 ** 6


@dataclass
class ReplayReport:
    """Predicted against simulated (times in seconds; simulated ones are doubles)."""

    platform: str
    version: int
    periods: int
    scale: Fraction
    model: str
    predicted_period: Fraction
    simulated_period: float
    messages_per_period: int
    worst: dict = field(default_factory=dict)

    @property
    def predicted_throughput(self) -> Fraction:
        return self.messages_per_period / self.predicted_period

    @property
    def simulated_throughput(self) -> float:
        return self.messages_per_period / self.simulated_period

    @property
    def ratio(self) -> float:
        """Simulated throughput / predicted throughput."""
        return float(self.predicted_period) / self.simulated_period

    def to_dict(self) -> dict:
        return {"platform": self.platform, "version": self.version,
                "periods": self.periods, "scale": format_exact(self.scale),
                "model": self.model,
                "messages_per_period": self.messages_per_period,
                "predicted_period": format_exact(self.predicted_period),
                "simulated_period": repr(self.simulated_period),
                "predicted_throughput": format_exact(self.predicted_throughput),
                "simulated_throughput": repr(self.simulated_throughput),
                "ratio": repr(self.ratio), "worst": self.worst}


def replay(xml_path, schedule, size: Fraction, periods: int = 1,
           latency: bool = False) -> ReplayReport:
    """Replay ``schedule`` (a Schedule) on the SimGrid platform ``xml_path`` with
    messages of ``size`` bytes; see the module docstring."""
    origin = str(xml_path)
    check_input(xml_path)
    if periods < 1:
        raise InputError("<command line>", "--periods", "must be >= 1")
    facts = read_facts(xml_path)
    platform = schedule.platform
    transfers = list(schedule.all_transfers())
    if periods * len(transfers) > MAX_TRANSFERS:
        raise InputError("<command line>", "--periods", f"{periods} periods of "
                         f"{len(transfers)} transfers are more than the {MAX_TRANSFERS} "
                         "transfers a replay simulates (docs/limits.md)")
    arcs = sorted({t.arc for t in transfers})
    scale = _scale(schedule, size)
    config = list(MODEL)
    if latency:
        config[2] = "network/latency-factor:1"
    request = {"op": "replay", "platform": os.path.abspath(xml_path), "config": config,
               "periods": periods, "arcs": [list(a) for a in arcs]}
    if schedule.version == 2:
        request.update(period=float(schedule.period * scale),
                       timed=[_timed_row(t.tail, t.head, _bytes(t.messages, size, scale),
                                         t.start * scale, *_lengths(schedule, t, scale))
                              for t in schedule.transfers])
        _capped(request)
    else:
        request["steps"] = [_step(step, size, scale) for step in schedule.steps]
    try:
        lines = run_worker(request)
    except WorkerCrash as crash:
        raise InputError(origin, "SimGrid", f"the replay failed: {crash.reason}") from None
    answer = {k: v for line in lines for k, v in line.items()}
    if "load_error" in answer:
        raise load_error(answer["load_error"], origin)
    if "missing" in answer:
        raise InputError(origin, "hosts", "the schedule names hosts the platform lacks: "
                         + ", ".join(answer["missing"][:5]))
    _check_routes(platform, answer["routes"], size, facts, origin)
    model = _model_text(request, latency)
    name = platform.name or os.path.basename(origin)
    if ("transfers" if schedule.version == 2 else "steps") not in answer:
        # the replaying actor was stopped: a host turned off or a link failed (SimGrid's
        # availability and state profiles), which the steady-state model does not have
        raise InputError(origin, "SimGrid", "the replay stopped before the schedule "
                         "ended: the platform's availability or state profiles (hosts "
                         "or links going off) interrupt it; replay a platform without them")
    if schedule.version == 2:
        return _timed_report(schedule, answer["transfers"], periods, scale, name, model)
    return _steps_report(schedule, answer["steps"], periods, scale, name, model)


def _scale(schedule, size: Fraction) -> Fraction:
    """α = 10^-k making the largest transfer at most MAX_BYTES bytes (1 when it is)."""
    largest = max((t.messages for t in schedule.all_transfers()), default=1) * size
    alpha = Fraction(1)
    while largest * alpha > MAX_BYTES:
        alpha /= 10
    return alpha


def _bytes(messages: int, size: Fraction, scale: Fraction) -> int:
    return max(1, round(messages * size * scale))


def _lengths(schedule, t, scale: Fraction) -> tuple[Fraction, Fraction]:
    """(at its route's speed, as it runs) how long the version 2 transfer ``t`` lasts,
    in scaled seconds."""
    full = t.messages * transfer_cost(schedule.platform, schedule.trees, t)
    return full * scale, transfer_time(schedule.platform, schedule.trees, t) * scale


def _capped(request: dict) -> None:
    """The request's TCP-gamma set to :data:`UNLIMITED_WINDOW` when a row caps its
    rate (SimGrid would ignore the caps under TCP-gamma 0)."""
    if any(len(row) > 4 for row in request["timed"]):
        request["config"] = [UNLIMITED_WINDOW if c.startswith("network/TCP-gamma:")
                             else c for c in request["config"]]


def _model_text(request: dict, latency: bool) -> str:
    """The network model the request states (its TCP-gamma as :func:`_capped` set it)."""
    text = MODEL_TEXT.format(lat=1 if latency else 0)
    if UNLIMITED_WINDOW in request["config"]:
        text = text.replace("(TCP-gamma 0)", "(TCP-gamma 10^300)")
    return text


def _timed_row(tail: str, head: str, nbytes: int, start: Fraction, full: Fraction,
               length: Fraction) -> list:
    """The worker's row of a transfer starting at ``start`` that lasts ``length`` (its
    route's speed: ``full``): a transfer slower than its route (issue 43, multi-port
    platforms) carries its rate cap, its bytes over its length, so that SimGrid runs it
    at its share of the route's bandwidth; one at full speed does not (its row and its
    replay are unchanged)."""
    row = [tail, head, nbytes, float(start)]
    if length != full:
        row.append(float(nbytes / length))
    return row


def _step(step, size, scale) -> list:
    """The step's transfers merged per link: [tail, head, bytes]."""
    load: dict = {}
    for t in step.transfers:
        load[t.arc] = load.get(t.arc, 0) + t.messages
    return [[u, v, _bytes(k, size, scale)] for (u, v), k in load.items()]


def _check_routes(platform, routes: dict, size, facts, origin) -> None:
    """Every arc of the schedule costs SIZE / (its route's slowest bandwidth): the
    platform was imported from this file with this --size.  When the schedule's
    platform has a network section, each arc's route, and each link's cost and sharing,
    must be the file's too: the verifier checked the schedule against that section, so
    it must be SimGrid's (a schedule that overloads the file's links is refused)."""
    network = platform.network
    for key, route in routes.items():
        u, v = key.split("\t")
        if not route:
            raise InputError(origin, f"route {u} -> {v}", "empty in SimGrid")
        costs = {name: size / exact_of(bw, facts.bandwidths)[0] for name, bw in route}
        expected = max(costs.values())
        if not platform.has_link(u, v) or platform.cost(u, v) != expected:
            have = format_exact(platform.cost(u, v)) if platform.has_link(u, v) else "none"
            raise InputError(origin, f"route {u} -> {v}", f"costs {have} s in the "
                             f"schedule, {format_exact(expected)} s for --size "
                             f"{format_exact(size)} bytes here: replay with the --size and "
                             "platform the schedule was imported with")
        if network is None:
            continue
        names = tuple(name for name, _ in route)
        if tuple(network.route(u, v)) != names:
            raise InputError(origin, f"route {u} -> {v}", f"crosses {', '.join(names)} "
                             "in the file, not the links of the schedule's network "
                             "section: replay on the platform the schedule was imported "
                             "from")
        for name in names:
            link = network.link(name)
            if link.cost != costs[name] or link.sharing != facts.sharing(name):
                raise InputError(origin, f"link {name}", f"{link.sharing}, costing "
                                 f"{format_exact(link.cost)} s in the schedule; "
                                 f"{facts.sharing(name)}, {format_exact(costs[name])} s in "
                                 "the file for this --size")


def _steps_report(schedule, ends, periods, scale, name, model) -> ReplayReport:
    steps = schedule.steps
    worst = None
    begin = 0.0
    for k, end in enumerate(ends):
        step = steps[k % len(steps)]
        predicted = float(step.duration * scale)
        ratio = (end - begin) / predicted if predicted else 1.0
        if worst is None or ratio > worst["ratio"]:
            worst = {"step": k % len(steps), "period": k // len(steps),
                     "predicted": format_exact(step.duration * scale),
                     "simulated": repr(end - begin), "ratio": ratio}
        begin = end
    simulated = ends[-1] / periods / float(scale)
    return ReplayReport(name, 1, periods, scale, model, schedule.period, simulated,
                        schedule.messages_per_period, worst or {})


def _timed_report(schedule, ends, periods, scale, name, model) -> ReplayReport:
    platform = schedule.platform
    transfers = schedule.transfers
    worst = None
    predicted_end = Fraction(0)
    for k, end in enumerate(ends):
        p, j = divmod(k, len(transfers))
        t = transfers[j]
        due = (p * schedule.period + t.start
               + transfer_time(platform, schedule.trees, t)) * scale
        predicted_end = max(predicted_end, due)
        late = end - float(due)
        if worst is None or late > worst["late"]:
            worst = {"transfer": j, "period": p, "predicted_end": format_exact(due),
                     "simulated_end": repr(end), "late": late}
    makespan = max(ends) if ends else 0.0
    # the last period ends at its last transfer: the simulated makespan against the
    # predicted one, spread over the periods
    predicted_total = predicted_end / scale
    simulated = float(schedule.period) * (makespan / float(scale)) / float(predicted_total) \
        if predicted_total else float(schedule.period)
    return ReplayReport(name, 2, periods, scale, model, schedule.period, simulated,
                        schedule.messages_per_period, worst or {})


# -- a finite-horizon plan (steady simulate --plan) -----------------------------------

@dataclass
class PlanReplayReport:
    """A plan run in SimGrid: every transfer started at its planned start (when its
    sender holds its messages, which the plan guarantees), its simulated end against
    the planned one, and the broadcasts every node holds by each time (seconds;
    simulated times are SimGrid's doubles)."""

    platform: str
    broadcasts: int
    scale: Fraction
    model: str
    planned_makespan: Fraction
    simulated_makespan: float
    planned_completion: list
    simulated_completion: list
    worst: dict = field(default_factory=dict)
    roots: list | None = None   # a collective's plan: the root of each completion

    @property
    def ratio(self) -> float:
        """Planned makespan / simulated makespan (1: SimGrid ran the plan on time)."""
        return (float(self.planned_makespan) / self.simulated_makespan
                if self.simulated_makespan else 1.0)

    def delivered_by(self, horizon) -> tuple[int, int]:
        """(planned, simulated) broadcasts every node holds by ``horizon`` seconds."""
        k = Fraction(horizon)
        return (sum(1 for c in self.planned_completion if c <= k),
                sum(1 for c in self.simulated_completion if c <= float(k) * (1 + 1e-9)))

    def delivered_per_root(self, horizon) -> dict:
        """A collective's plan: {root: (planned, simulated) chunks complete by
        ``horizon`` seconds}."""
        k = Fraction(horizon)
        out: dict = {}
        for root, p, s in zip(self.roots or (), self.planned_completion,
                              self.simulated_completion):
            a, b = out.get(root, (0, 0))
            out[root] = (a + (p <= k), b + (s <= float(k) * (1 + 1e-9)))
        return out

    def to_dict(self) -> dict:
        return {"platform": self.platform, "broadcasts": self.broadcasts,
                "scale": format_exact(self.scale), "model": self.model,
                "planned_makespan": format_exact(self.planned_makespan),
                "simulated_makespan": repr(self.simulated_makespan),
                "ratio": repr(self.ratio), "worst": self.worst,
                **({"chunks_per_root": {r: self.roots.count(r) for r in
                                        dict.fromkeys(self.roots)}} if self.roots else {})}


def replay_plan(xml_path, plan, size: Fraction, latency: bool = False) -> PlanReplayReport:
    """Run ``plan`` (a :class:`steady.simulate.plan.Plan` with its platform) on the
    SimGrid platform ``xml_path`` with messages of ``size`` bytes: one SimGrid
    transfer per plan transfer, started at its planned start."""
    origin = str(xml_path)
    check_input(xml_path)
    platform = plan.platform
    facts = read_facts(xml_path)
    if len(plan.transfers) > MAX_TRANSFERS:
        raise InputError("<command line>", "plan", f"{len(plan.transfers)} transfers are "
                         f"more than the {MAX_TRANSFERS} a replay simulates "
                         "(docs/limits.md)")
    names = plan.nodes
    arcs = sorted({(names[t.tail], names[t.head]) for t in plan.transfers})
    largest = max((t.count for t in plan.transfers), default=1) * size
    scale = Fraction(1)
    while largest * scale > MAX_BYTES:
        scale /= 10
    config = list(MODEL)
    if latency:
        config[2] = "network/latency-factor:1"
    per_tick = Fraction(1, plan.unit)
    full = _full_speed(plan)
    timed = [_timed_row(names[t.tail], names[t.head], _bytes(t.count, size, scale),
                        t.release * per_tick * scale,
                        t.count * full[t.id] * per_tick * scale,
                        t.duration * per_tick * scale) for t in plan.transfers]
    request = {"op": "replay", "platform": os.path.abspath(xml_path), "config": config,
               "periods": 1, "arcs": [list(a) for a in arcs],
               "period": float(plan.makespan * per_tick * scale), "timed": timed}
    _capped(request)
    try:
        lines = run_worker(request)
    except WorkerCrash as crash:
        raise InputError(origin, "SimGrid", f"the replay failed: {crash.reason}") from None
    answer = {k: v for line in lines for k, v in line.items()}
    if "load_error" in answer:
        raise load_error(answer["load_error"], origin)
    if "missing" in answer:
        raise InputError(origin, "hosts", "the plan names hosts the platform lacks: "
                         + ", ".join(answer["missing"][:5]))
    if plan.collective is None:
        _check_routes(platform, answer["routes"], size, facts, origin)
    else:
        _check_plan_routes(plan, full, answer["routes"], size, facts, origin)
    if "transfers" not in answer:
        raise InputError(origin, "SimGrid", "the replay stopped before the plan ended: "
                         "the platform's availability or state profiles interrupt it")
    ends = [e / float(scale) for e in answer["transfers"]]
    planned, simulated = _completions(plan, ends)
    worst = {}
    for t, end in zip(plan.transfers, ends):
        late = end - float(t.end * per_tick)
        if not worst or late > worst["late"]:
            worst = {"transfer": t.id, "planned_end": format_exact(t.end * per_tick),
                     "simulated_end": repr(end), "late": late}
    roots = None
    if plan.collective is not None:
        roots = [names[r] for r, n in plan.collective.chunks for _ in range(n)]
    return PlanReplayReport(platform.name or os.path.basename(origin), plan.broadcasts,
                            scale, _model_text(request, latency),
                            plan.makespan_time, max(ends, default=0.0), planned,
                            simulated, worst, roots)


def _completions(plan, ends) -> tuple[list, list]:
    """Per broadcast, when every node holds it: planned (exact) and simulated (a
    collective's plan: per chunk of each root in turn, roots in node order, as
    :meth:`~steady.simulate.plan.Plan.completion`)."""
    slot = None     # a collective's (root, chunk) -> its place in the lists
    if plan.collective is not None:
        first, at = {}, 0
        for r, n in plan.collective.chunks:
            first[r] = (at, n)
            at += n
        streams = plan.collective.streams
        slot = {}
        for t in plan.transfers:
            base, n = first[streams[t.tree].root]
            for m in t.messages:
                if 0 <= m < n:
                    slot[(t.tree, m)] = base + m
    planned = [None] * plan.broadcasts
    simulated = [0.0] * plan.broadcasts
    for t, end in zip(plan.transfers, ends):
        for m in t.messages:
            k = m if slot is None else slot.get((t.tree, m), -1)
            if 0 <= k < plan.broadcasts:
                at = Fraction(t.end, plan.unit)
                planned[k] = at if planned[k] is None else max(planned[k], at)
                simulated[k] = max(simulated[k], end)
    return planned, simulated


def _full_speed(plan) -> dict:
    """{transfer id: ticks per chunk at its route's speed}: its route's slowest link
    on the plan's platform (a collective's stream names the route), or its own
    duration per chunk when the plan has no platform."""
    platform, names, spec = plan.platform, plan.nodes, plan.collective
    out, memo = {}, {}
    for t in plan.transfers:
        if platform is None:
            out[t.id] = Fraction(t.duration, t.count)
            continue
        route = ((names[t.tail], names[t.head]) if spec is None or
                 not 0 <= t.tree < len(spec.streams)
                 else spec.streams[t.tree].route(names, t.tail, t.head))
        if route not in memo:
            memo[route] = route_cost(platform, route) * plan.unit
        out[t.id] = memo[route]
    return out


def _check_plan_routes(plan, full: dict, routes: dict, size, facts, origin) -> None:
    """A collective's plan (issue 43): every transfer's route costs in SimGrid at
    this size (its slowest link: SIZE / bandwidth) what the plan's platform says, so
    the plan's times are SimGrid's -- a transfer at its route's speed lasts that per
    chunk, a slower one (multi-port) is capped at its share of the route's bandwidth;
    where the pair is a link of the plan's platform with a network section, that
    link's route and costs are the file's too (:func:`_check_routes`).  ``full``: the
    plan's ticks per chunk at each transfer's route's speed (:func:`_full_speed`)."""
    platform = plan.platform
    names = plan.nodes
    planned = {}
    for t in plan.transfers:   # per chunk at the route's speed, not the slowed one
        planned.setdefault((names[t.tail], names[t.head]),
                           Fraction(full[t.id], plan.unit))
    for key, route in routes.items():
        u, v = key.split("\t")
        if not route:
            raise InputError(origin, f"route {u} -> {v}", "empty in SimGrid")
        expected = max(size / exact_of(bw, facts.bandwidths)[0] for _, bw in route)
        if planned.get((u, v)) != expected:
            raise InputError(origin, f"route {u} -> {v}", f"a chunk takes "
                             f"{format_exact(planned.get((u, v), 0))} s in the plan, "
                             f"{format_exact(expected)} s for --size {format_exact(size)} "
                             "bytes here: replay with the --size and platform the plan "
                             "was made for")
    linked = {k: r for k, r in routes.items() if platform.has_link(*k.split("\t"))}
    if platform.network is not None and linked:
        _check_routes(platform, linked, size, facts, origin)
