"""Which short timed schedule for a finite horizon? (ours; builds on 002 §5.5)

A periodic schedule with M messages per period delivers by time K about

    (K - I - J)·TP + W·M,   TP = ratio·TP*,

where its warm-up and clean-up I and J last up to W periods (W + 1 is the depth of its
trees in periods under the forwarding rule: the whole depth under 002 §5.5's rule, less
when forwarding is pipelined, :mod:`steady.simulate.unroll`).  A longer period certifies
a better ratio (finer integer counts, :mod:`steady.schedule.timed`) but makes each of
those periods longer.  :func:`horizon_plan` tries M on a small ladder and both
forwarding rules and keeps the finite schedule that delivers the most by K, computed
exactly (:func:`steady.simulate.horizon.delivered`), not estimated.  With pipelined
forwarding it also counts the same periods followed by a clean-up routed afresh, off
the trees (:mod:`.rerouted`: any holder sends a message to any neighbour lacking it).

:func:`best_for_horizon` then also runs the trees of the best certified ratio tried as a
list run (:mod:`.listed`: no periods) and keeps it when it delivers more; it is what
``steady simulate PLATFORM`` and benchmarks/simulate_timed.py call.

The result is public and documented so that other executors (``steady run``, a SimGrid
replay) can run the same plan: :class:`HorizonPlan` holds the version 2 schedule, the
forwarding rule, its :class:`~steady.simulate.unroll.PeriodicPattern` (lags per tree and
node) and the phase lengths.  When ``candidate.routed_cleanup`` is set, ``steady
simulate`` ran the clean-up routed afresh (:mod:`.rerouted`); ``pattern`` and
``lengths`` still describe the clean-up over the trees, which is what an executor that
follows the periodic time line runs (it then delivers what that candidate without
``routed_cleanup`` delivers, also listed).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..network.fixed_speed import fixed_speed_bound
from ..numbers import format_exact
from ..schedule.regrow import regrown
from ..schedule.timed import port_loads, searched_again, with_shorter_lags
from .engine import TooLarge
from .horizon import Phases, bound, delivered, horizon_report, phases, whole_batches
from .listed import LISTED, listed_horizon, listed_report
from .rerouted import routed_count, routed_report
from .unroll import FORWARDING, PIPELINED, PeriodicPattern

#: Messages per period tried by default, in increasing order, while the period stays
#: below the horizon and until :data:`PATIENCE` values in a row deliver no more than
#: the best so far (building a timed schedule takes seconds on 50 nodes).  Dense at the
#: bottom: the ratio of a timed schedule is not monotone in M (samples/random-50.json:
#: 0.9943 at M = 20, 1 at 24, 0.9926 at 30; with regrown trees 24 delivers the most).
LADDER = (1, 2, 3, 5, 8, 10, 12, 15, 20, 24, 30, 40, 50, 70, 100, 200, 500, 1000)
#: Stop the ladder after this many values in a row that do not beat the best (7 since
#: the ladder gained 12, 24 and 40: with 5 it stopped before M = 30 on a 30-node mesh,
#: seed 2, whose list run then had trees of ratio 0.9979 instead of 1: 0.9957 of
#: K·TP* instead of 0.9974).
PATIENCE = 7
#: Schedules at most whose port orders are searched again for longer after the ladder
#: (:func:`_worth_searching`): each takes about a minute on 65 nodes.  On a 65-node
#: random platform (seed 1) M = 24 then goes from ratio 0.9866 to 0.9960 and from
#: 0.9887 of K·TP* (M = 12) to 0.9914.
SEARCHED_AGAIN = 2
#: Schedules at most, those that deliver the most, whose timetables are then searched
#: for shorter lags (:func:`steady.schedule.timed.with_shorter_lags`, pipelined
#: forwarding only): about 20 s each on 50 nodes.  A 50-node random platform (seed 7):
#: M = 15, regrown trees, W = 7 -> 5 periods, 9326 -> 9329 messages by K = 100000.
LAGS_SEARCHED = 2
#: The candidates (M, rule) ranked best by whole batches get the exact count with the
#: partial last batch; the others keep their whole-batch count.
REFINED = 4


@dataclass(frozen=True)
class Candidate:
    """One (M, forwarding rule) tried: its schedule's figures and what it delivers."""

    max_messages: int           # the M asked of timed_schedule
    messages_per_period: int
    period: Fraction
    ratio: Fraction             # certified: throughput / TP*
    forwarding: str
    warmup_periods: int
    init: Fraction
    cleanup: Fraction
    delivered: int              # by the horizon, exact
    regrown: bool = False       # trees regrown by earliest arrival (:mod:`..schedule.regrow`)
    routed_cleanup: bool = False  # the clean-up routed afresh (:mod:`.rerouted`)
    lags_searched: bool = False   # the timetable searched for lags (:mod:`..schedule.lag_search`)

    def to_dict(self) -> dict:
        return {"max_messages": self.max_messages,
                "messages_per_period": self.messages_per_period,
                "period": format_exact(self.period), "ratio": format_exact(self.ratio),
                "forwarding": self.forwarding, "warmup_periods": self.warmup_periods,
                "init": format_exact(self.init), "cleanup": format_exact(self.cleanup),
                "delivered": self.delivered, "regrown": self.regrown,
                "routed_cleanup": self.routed_cleanup, "lags_searched": self.lags_searched}


@dataclass(frozen=True)
class HorizonPlan:
    """The finite-horizon plan chosen: ``schedule`` (version 2, certified ratio),
    ``pattern`` (its unrolling under ``candidate.forwarding``), ``lengths`` (I, J, W),
    ``optimum`` (TP*), every candidate tried, and ``finest``: the schedule of the
    best certified ratio tried (the one whose trees :mod:`.listed` runs), with
    ``finest_regrown``, its regrown trees when the plan tried them."""

    schedule: object
    pattern: PeriodicPattern
    lengths: Phases
    candidate: Candidate
    optimum: Fraction
    candidates: tuple = field(default=(), repr=False)
    finest: object = field(default=None, repr=False)
    finest_regrown: object = field(default=None, repr=False)

    def to_dict(self) -> dict:
        """The ``choice`` part of ``steady simulate --json``."""
        c = self.candidate
        return {"max_messages": c.max_messages, "messages_per_period": c.messages_per_period,
                "period": format_exact(c.period), "ratio": format_exact(c.ratio),
                "forwarding": c.forwarding, "regrown": c.regrown,
                "routed_cleanup": c.routed_cleanup, "lags_searched": c.lags_searched,
                "candidates": [x.to_dict() for x in self.candidates]}


def horizon_plan(platform, result, horizon, ladder=LADDER, forwarding=FORWARDING,
                 progress=None) -> HorizonPlan:
    """The timed schedule (M on ``ladder``, built by
    :func:`steady.schedule.timed.timed_schedule` from the exact optimum ``result``) and
    forwarding rule whose finite schedule delivers the most messages by ``horizon``;
    ties go to the smaller M, then to the period rule.  ``progress(M)`` is called per M."""
    from ..schedule.counts import CutPool
    from ..schedule.timed import timed_schedule, tree_families

    k = Fraction(horizon)
    result = with_trees(platform, result)
    families = tree_families(platform, result)
    cuts = CutPool()   # the cuts found at one M serve every M
    optimum = result.throughput
    cap = bound(optimum, k)
    tried, seen, best_count, worse = [], set(), -1, 0
    finest = None
    built = []          # (M, schedule, its best count) of every distinct schedule tried
    for m in sorted(set(ladder)):
        if worse >= PATIENCE:
            break
        if progress:
            progress(m)
        schedule, stats = timed_schedule(platform, result, m, families, cuts)
        key = (schedule.messages_per_period, schedule.period, len(schedule.transfers))
        if key in seen:          # the same schedule again (the optimum fits in fewer)
            continue
        seen.add(key)
        if tried and schedule.period > k:
            break                # a longer period than the horizon: no steady state
        variants = _variants(schedule, forwarding)
        finest = _finer(finest, schedule, variants)
        entries = _counted(schedule, variants, m, k, cap)
        built.append((m, schedule, max((e[0] for e in entries), default=-1)))
        tried += entries
        top = max(t[0] for t in tried)
        worse = 0 if top > best_count else worse + 1
        best_count = max(best_count, top)
    if not tried:
        raise ValueError("no timed schedule could be built")
    for m, schedule in _worth_searching(built, tried, platform):
        again = searched_again(platform, schedule, result)
        if again is not None:
            variants = _variants(again, forwarding)
            finest = _finer(finest, again, variants)
            tried += _counted(again, variants, m, k, cap)
    for m, schedule, grown in _most_delivering(tried, LAGS_SEARCHED
                                               if PIPELINED in forwarding else 0):
        shorter = with_shorter_lags(platform, schedule, result)
        if shorter is not None:   # same ratio: ``finest`` stays
            # the lags are the pipelined rule's: the period rule's W is the depth
            entries = _counted(shorter, _variants(shorter, (PIPELINED,)), m, k, cap)
            tried += [e[:7] + [e[7] or grown, e[8], True] for e in entries]
    order = sorted(range(len(tried)), key=lambda i: (-tried[i][0], i))
    for i in [i for i in order if not tried[i][8]][:REFINED]:   # routed counts are exact
        entry = tried[i]
        entry[0] = delivered(entry[4], k, entry[5], int(cap // max(entry[4].messages, 1)))[0]
    best = min(range(len(tried)), key=lambda i: (-tried[i][0], i))
    candidates = tuple(
        Candidate(m, s.messages_per_period, s.period, ratio, rule, p.warmup, l.init,
                  l.cleanup, count, again, routed, lags)
        for count, m, rule, s, p, l, ratio, again, routed, lags in tried)
    schedule, pattern, lengths = tried[best][3:6]
    return HorizonPlan(schedule, pattern, lengths, candidates[best], optimum, candidates,
                       finest[1], finest[2])


def _counted(schedule, variants, m: int, k: Fraction, cap: int) -> list[list]:
    """The entries of ``horizon_plan``'s table for one schedule and its ``variants``
    (:func:`_variants`): per variant and forwarding rule, [count by K in whole batches,
    M, rule, variant, pattern, lengths, ratio, regrown?, routed clean-up?, lags
    searched? (False here)]."""
    ratio = schedule.extra["ratio"]
    entries = []
    for variant, rule in variants:
        try:
            pattern = PeriodicPattern(variant, rule)
        except ValueError:   # too many slots for the pipelined lags
            continue
        lengths = phases(pattern)
        most = int(cap // max(pattern.messages, 1))
        count = whole_batches(pattern, k, lengths, most) * pattern.messages
        entries.append([count, m, rule, variant, pattern, lengths, ratio,
                        variant is not schedule, False, False])
        routed = routed_count(pattern, lengths, k) if rule == PIPELINED else None
        if routed is not None:
            entries.append([routed[0], m, rule, variant, pattern, lengths, ratio,
                            variant is not schedule, True, False])
    return entries


def _finer(finest, schedule, variants):
    """(ratio, schedule, regrown) of the best certified ratio so far (the list run's
    trees, :func:`best_for_horizon`): ``finest`` or ``schedule`` (its ``variants``)."""
    ratio = schedule.extra["ratio"]
    if finest is not None and ratio <= finest[0]:
        return finest
    return (ratio, schedule, next((v for v, _ in variants if v is not schedule), None))


def _worth_searching(built, tried, platform) -> list:
    """Of ``built`` ((M, schedule, its best count) per schedule tried), the (M,
    schedule) pairs whose timetable ends after its largest port load and which
    would deliver more than the best count so far if a longer search of its port orders
    (:func:`steady.schedule.timed.searched_again`) brought the period down to that load
    (each count scaled by period / load), most promising first, at most
    :data:`SEARCHED_AGAIN`."""
    best = max(t[0] for t in tried)
    hopes = []
    for m, schedule, count in built:
        load = max(port_loads(platform, schedule.messages_per_link()).values())
        if schedule.period <= load:
            continue
        hope = count * schedule.period / load
        if hope > best:
            hopes.append((-hope, len(hopes), m, schedule))
    return [(m, schedule) for _, _, m, schedule in sorted(hopes)[:SEARCHED_AGAIN]]


def _most_delivering(tried, most: int) -> list:
    """The ``most`` (M, schedule, regrown?) of ``tried`` (``horizon_plan``'s entries)
    that deliver the most, each schedule once: as built or with its trees regrown,
    whichever delivered (regrown trees lag less to start from)."""
    found, seen = [], set()
    for entry in sorted(tried, key=lambda e: -e[0]):   # stable: the first tried on a tie
        if len(found) == most:
            break
        if id(entry[3]) not in seen:
            seen.add(id(entry[3]))
            found.append((entry[1], entry[3], entry[7]))
    return found


def _variants(schedule, forwarding):
    """(schedule, rule) pairs to try: ``schedule`` under each rule of ``forwarding``,
    and with pipelined forwarding also its trees regrown by earliest arrival
    (:func:`steady.schedule.regrow.regrown`: same period and ratio, usually far smaller
    lags; samples/random-50.json at M = 30: 4.8 periods on average, against 8.8),
    through the timetable's slots and the idle ones, and through the timetable's slots
    alone: neither is better on every schedule, the exact count decides.  Measured by
    K = 100000: a 50-node random platform (seed 4) at M = 70, 7115 messages against
    7076; on a 65-node mesh (seed 4) ``steady simulate`` delivers 8844 with the idle
    slots alone and 8851 with both."""
    pairs = [(schedule, rule) for rule in forwarding]
    if PIPELINED in forwarding:
        for idle in (True, False):
            again = regrown(schedule, idle=idle)
            if again is not None:
                pairs.append((again, PIPELINED))
    return pairs


def with_trees(platform, result):
    """``result`` with weighted trees (what :func:`~steady.schedule.timed.timed_schedule`
    starts from): a result without trees (the cut method's) gets those of 002 Thm 5's
    weighted branchings on its rates (:func:`steady.schedule.periodic.integer_trees`)."""
    if result.trees:
        return result
    from dataclasses import replace

    from ..schedule.periodic import integer_trees

    trees, scale, _ = integer_trees(platform, result)
    return replace(result, trees=tuple((parent, Fraction(w, scale)) for parent, w in trees))


def best_for_horizon(platform, result, horizon, max_events: int, ladder=LADDER,
                     rules=None, stage=None):
    """(schedule, report) of what ``steady simulate PLATFORM`` runs for ``horizon``:
    the timed schedule and forwarding rule of :func:`horizon_plan` (its report by
    :func:`~steady.simulate.horizon.horizon_report`), or the list run on the trees of
    the best ratio tried (:mod:`.listed`) when it delivers more.  ``rules``: among
    "period", "pipelined", "listed" (default all); "listed" alone raises
    :class:`~steady.simulate.engine.TooLarge` when its transfers exceed
    ``max_events``.  ``stage(name)`` is told each stage ("timed schedules",
    "simulation", "list run").  With shared links whose k-rows bind, the report also
    carries the fixed-speed bound (:mod:`steady.network.fixed_speed`): no schedule
    whose transfers keep their speed delivers more than K times it."""
    rules = tuple(rules or FORWARDING + (LISTED,))
    stage = stage or (lambda name: None)
    stage("timed schedules")
    plan = horizon_plan(platform, result, horizon, ladder,
                        tuple(r for r in rules if r != LISTED) or FORWARDING)
    schedule, report = plan.schedule, None
    if rules != (LISTED,):
        stage("simulation")
        if plan.candidate.routed_cleanup:
            report = routed_report(plan.pattern, plan.lengths, horizon, result.throughput,
                                   max_events, plan.to_dict())
        else:
            report = horizon_report(schedule, horizon, max_events, result.throughput,
                                    pattern=plan.pattern, lengths=plan.lengths,
                                    choice=plan.to_dict())
    if LISTED in rules:
        stage("list run")
        run, over, again = _best_list_run(
            plan.finest, plan.finest_regrown or regrown(plan.finest), horizon,
            result.throughput, max_events, report is None)
        if run is not None and (report is None or run.delivered > report.delivered):
            choice = dict(plan.to_dict(), listed_over=dict(_figures(over), regrown=again),
                          periods_delivered=None if report is None else report.delivered)
            report = listed_report(run, horizon, result.throughput, choice)
            schedule = over
    speed = fixed_speed_bound(platform)
    if speed is not None and speed.bound < result.throughput:
        if report.delivered > report.horizon * speed.bound:
            raise AssertionError(f"postcondition (fixed-speed bound): {report.delivered} "
                                 f"messages delivered by {report.horizon} > K x "
                                 f"{speed.bound}")
        report = replace(report, fixed_speed=speed.bound)
    return schedule, report


def _best_list_run(finest, again, horizon, optimum, max_events: int, must: bool):
    """(run, schedule, regrown) of the list run (:mod:`.listed`) that delivers more: on
    the trees of ``finest`` or on ``again``, the same regrown by earliest arrival
    (shallower; a 65-node mesh, seed 1: 0.9784 and 0.9946 of K·TP*); (None, finest,
    False) when neither fits in ``max_events`` (:class:`TooLarge` raised when
    ``must``)."""
    best = (None, finest, False)
    for schedule in (finest, again):
        if schedule is None:
            continue
        try:
            run = listed_horizon(schedule, horizon, optimum, max_events)
        except TooLarge:
            if must:
                raise
            continue
        if best[0] is None or run.delivered > best[0].delivered:
            best = (run, schedule, schedule is not finest)
    return best


def _figures(schedule) -> dict:
    return {"messages_per_period": schedule.messages_per_period,
            "period": format_exact(schedule.period),
            "ratio": format_exact(schedule.extra["ratio"])}
