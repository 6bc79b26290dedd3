"""Which finite-horizon plan for a horizon K, or for K broadcasts? (ours; builds on 002
§5.5)

A periodic timetable with M messages per period delivers by time K about

    (K - I - J)·TP + W·M,   TP = ratio·TP*,

where its warm-up and clean-up I and J last up to W periods (:mod:`.horizon`).  A longer
period certifies a better ratio (finer integer counts, :mod:`steady.schedule.timed`) but
makes each of those periods longer.  :func:`horizon_choice` builds a *candidate table*:

* timetables for M on the effort's ladder (:mod:`steady.schedule.effort`), each under
  both forwarding rules (:mod:`.unroll`: 002 §5.5's "one period later", and pipelined);
  when trees are regrown, the ladder ends where they no longer can be
  (:func:`steady.schedule.regrow.most_regrown`: such periods lag tens of periods on
  200 nodes, where the work bound falls);
* under pipelined forwarding, the same periods followed by a clean-up routed afresh
  (:mod:`.rerouted`);
* at ``default``, the most promising timetables built again from a second family of
  optimal trees (:func:`rebuilt_timetables`), regrown and counted beside the others;
* at ``default``, when the counts of the best candidate's timetable lose, its M and
  smaller ones built again on link counts chosen over the cuts
  (:func:`recounted_timetables`), regrown and counted beside the others;
* at ``default``, when the timetable of the best candidate has a period well above its
  largest port load, its port orders searched (:func:`searched_timetables`), regrown
  and counted beside the others; so are those of up to :data:`RUNNERS_UP` other
  timetables that could overtake it were that gap closed (:func:`searched_runners_up`),
  counted after all the others, and then the trees of the one that delivers the most
  regrown once more with a larger exchange budget (:func:`regrown_again`);
* at ``default``, when the best candidate still delivers less than :data:`CLOSE_BELOW`
  of K·TP*, its M and longer periods built on link counts chosen over the cuts, their
  port orders searched, regrown and counted after all the others
  (:func:`closing_candidates`);
* at ``thorough``, the ladder built without the costly searches (``Effort.deep``), and
  its few most promising timetables of ratio below 1 built again with them
  (:func:`deepened_timetables`), regrown and counted beside the others;
* for the most promising timetables, their trees regrown by earliest arrival
  (:func:`steady.schedule.regrow.regrown`: same period and ratio, far smaller lags);
* the list run (:mod:`.list_run`: no periods) on the trees of the best ratio;
* at ``thorough``, the candidates of ``default`` too (``Effort.floor_level``: the two
  levels differ in ladder, trees and rebuilds, and neither table contains the other's);

and keeps the candidate that delivers the most by K, counted exactly, not estimated.
The choice is one object, :class:`Choice`; its :meth:`Candidate.plan` is the
:class:`~steady.simulate.plan.Plan` that ``steady simulate`` checks and counts, that
``steady simulate --plan`` writes and that ``steady run --plan`` executes.
:func:`broadcast_plan` makes the same choice for K broadcasts of a given schedule (the
fewest ticks to deliver them all), for ``steady run SCHEDULE``.  Every step is bounded
by the effort's deterministic work; what each improver did is in ``Choice.improvers``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..numbers import format_exact, ratio_text
from ..schedule.cut_counts import CutPool
from ..schedule.effort import DEFAULT, effort as effort_of
from ..schedule.order_search import neighbourhood_searched
from ..schedule.regrow import most_regrown, regrowable, regrown
from ..schedule.timed import CUT_MESSAGES, cut_timetable, cut_timetables, ratio_bound, \
    ratio_hint, timed_timetable, tree_families
from ..schedule.timetable import Timetable
from .horizon import MAX_EVENTS, Phases, bound, delivered, phases, whole_batches
from .list_run import list_plan
from .plan import Plan, TooLarge
from .plan_grid import on_grid_keeping
from .rerouted import routed_bound, routed_cleanup, routed_count
from .unroll import FORWARDING, PIPELINED, PeriodicPattern, TooManySlots, periodic_plan, \
    share_for

#: The list run's name, beside the forwarding rules of :mod:`.unroll`.
LISTED = "listed"
#: The warm-up of regrown trees, in periods, that ranks timetables before they are
#: regrown (typical on generated 50- and 65-node platforms: 3 to 5), and the least one
#: seen there: a period that could not win even with it is not built.
REGROWN_LAG = 4
LEAST_LAG = 2
#: Trees that lag more periods than this as built are counted only regrown when they
#: can be (as built they lag 13 to 20 periods on generated 50- and 65-node platforms,
#: where they are counted; 56 to 80 on 200 nodes, where counting them costs more than
#: building the timetable and they never win).
MOST_BUILT_LAG = 30
#: The candidates ranked best by whole batches get the exact count with the partial
#: last batch; the others keep their whole-batch count.
REFINED = 4


@dataclass(frozen=True)
class Candidate:
    """One way of running the horizon: a timetable of M messages per period under a
    forwarding rule (or the list run on its trees), its trees as built or regrown, its
    clean-up on the trees or routed afresh; ``delivered`` by the horizon, exact."""

    max_messages: int            # the M asked of the timed construction
    table: Timetable
    ratio: Fraction              # certified: throughput / TP*
    forwarding: str              # "period", "pipelined" or "listed"
    regrown: str                 # "", "through idle slots" or "through its slots"
    routed_cleanup: bool
    delivered: int
    batches: int | None = None   # periodic: whole batches unrolled
    pattern: PeriodicPattern | None = field(default=None, compare=False, repr=False)
    phases: Phases | None = field(default=None, compare=False, repr=False)
    built: Plan | None = field(default=None, compare=False, repr=False)

    def plan(self, horizon, optimum: Fraction) -> Plan:
        """The plan of this candidate for the horizon (checked), which delivers exactly
        ``delivered`` by it (with a routed clean-up, on a coarse grid when that keeps
        the count: :func:`steady.simulate.plan_grid.on_grid_keeping`)."""
        if self.built is not None:
            return self.built
        about = {"max_messages": self.max_messages, "ratio": self.ratio,
                 "regrown": self.regrown}
        if self.forwarding == LISTED:
            k = int(Fraction(horizon) * optimum)
            return list_plan(self.table.platform, self.table.trees, k, about)
        if not self.routed_cleanup:
            return periodic_plan(self.pattern, self.batches, None, None, about)
        # a routed clean-up's plan on a coarse grid when its unit has more digits than
        # its times need (the same count; issue 41 keeps the other plans' bytes)
        cleanup = routed_cleanup(self.pattern, self.batches)
        return on_grid_keeping(periodic_plan(self.pattern, self.batches, None, cleanup, about,
                                             check=False), horizon)

    def to_dict(self) -> dict:
        doc = {"max_messages": self.max_messages, "messages_per_period": self.table.messages,
               "period": format_exact(self.table.period_time),
               "ratio": format_exact(self.ratio), "forwarding": self.forwarding,
               "regrown": self.regrown, "routed_cleanup": self.routed_cleanup,
               "delivered": self.delivered}
        if self.pattern is not None:
            doc["warmup_periods"] = self.pattern.warmup
        if self.phases is not None:
            doc.update(init=format_exact(self.phases.init),
                       cleanup=format_exact(self.phases.cleanup))
        return doc


@dataclass(frozen=True)
class Choice:
    """The candidate table of a horizon and the best candidate (the first tried on a
    tie); ``improvers``: what each improver did, in words, per timetable."""

    horizon: Fraction
    optimum: Fraction
    candidates: tuple
    best: Candidate
    improvers: tuple = ()
    result: object = field(default=None, compare=False, repr=False)   # the exact optimum

    def to_dict(self) -> dict:
        """The ``choice`` part of ``steady simulate --json``."""
        doc = self.best.to_dict()
        doc["candidates"] = [c.to_dict() for c in self.candidates]
        doc["improvers"] = list(self.improvers)
        return doc


def horizon_choice(platform, result, horizon, effort=DEFAULT, rules=None, most=None,
                   progress=None, max_events: int = MAX_EVENTS) -> Choice:
    """The candidate table of the module docstring for horizon K from the exact optimum
    ``result``, within ``effort``; ``rules`` among "period", "pipelined", "listed"
    (default: the effort's); ``most``: the largest M tried (default the ladder's);
    ``progress(M)`` is told each M; the list run is tried only when its floor(K·TP*)
    broadcasts to |V| - 1 nodes fit in ``max_events`` single transfers (asked for
    alone, :class:`~steady.simulate.plan.TooLarge` otherwise)."""
    effort = effort_of(effort)
    asked = rules
    rules = tuple(rules or (FORWARDING if effort.period_rule else (PIPELINED,)) + (LISTED,))
    periodic = tuple(r for r in rules if r != LISTED) or (PIPELINED,)
    k = Fraction(horizon)
    result = with_trees(platform, result)
    optimum = result.throughput
    cap = bound(optimum, k)
    families = tree_families(platform, result, effort)
    cuts = CutPool()
    # at a level that searches deeply only a few periods, the ladder builds without
    # those searches (deepened_timetables gives them to the few)
    shallow = effort.but(cut_counts=False, order_search=0.0) if effort.deep else effort
    ladder = [m for m in effort.ladder if most is None or m < most]
    if most is not None:
        ladder.append(most)
    tried, built, seen, improvers, deferred = [], [], set(), [], []
    regrowing = PIPELINED in periodic and effort.regrown > 0
    best_hope, worse = None, 0
    for m in ladder:
        if worse >= effort.patience:
            break
        if progress:
            progress(m)
        if built and regrowing and m > most_regrown(platform):
            break   # trees beyond the regrowth's work bound lag tens of periods
        if best_hope is not None and ratio_hint(platform, result, m, shallow) * cap \
                - LEAST_LAG * m < best_hope:
            worse += 1   # by the estimate this period cannot catch up: not built
            continue
        table, _ = timed_timetable(platform, result, m, shallow, families, cuts)
        key = (table.messages, table.period_time)
        if key in seen:            # the same timetable again (the optimum fits in fewer)
            continue
        seen.add(key)
        if built and table.period_time > k:
            break                  # a longer period than the horizon: no steady state
        ratio = table.throughput / optimum
        built.append((m, table, ratio))
        # trees that lag beyond MOST_BUILT_LAG as built are counted regrown (as built
        # only if no regrowth comes through: that count is the costly part on 200 nodes)
        lag = MOST_BUILT_LAG if regrowing and regrowable(table) else None
        entries = _counted(m, table, ratio, "", periodic, k, cap, lag)
        if not entries:
            deferred.append((m, table, ratio))
        tried += entries
        hope = ratio * cap - REGROWN_LAG * table.messages
        worse = 0 if best_hope is None or hope > best_hope else worse + 1
        best_hope = hope if best_hope is None else max(best_hope, hope)
    if not built:
        raise ValueError("no timed schedule could be built")
    # timetables built again on other trees: their candidates are counted beside the
    # others (``extra``), so that every candidate of the ladder's is still there
    rebuilt = rebuilt_timetables(platform, result, built, cap, effort, cuts)
    for m, table, ratio in rebuilt:
        improvers.append({"max_messages": m, "improver": "rebuild",
                          "how": "on the cut method's trees",
                          "result": f"ratio {ratio_text(ratio)}"})
    regrowths, extra, runners = {}, [], []
    if PIPELINED in periodic and effort.regrown:
        tried += _regrown(_promising(built, tried, cap, effort.regrown), tried, effort, k,
                          cap, regrowths, improvers)
        # counts chosen over the cuts where the best so far (regrown) loses on its counts
        recounted = recounted_timetables(platform, result, built, tried, effort, cuts)
        for m, table, ratio in recounted:
            improvers.append({"max_messages": m, "improver": "recount",
                              "how": "on counts chosen over the cuts",
                              "result": f"ratio {ratio_text(ratio)}"})
        deepened = deepened_timetables(platform, result, built, tried, cap, effort, cuts,
                                       improvers)
        extra = _regrown(rebuilt + recounted + deepened, tried, effort, k, cap, regrowths,
                         improvers)
        # (those whose trees cannot be regrown are counted as built)
        for m, table, ratio in deepened:
            if not regrowable(table):
                extra += _counted(m, table, ratio, "", periodic, k, cap)
        # the chosen timetable's port orders searched where its period is well above
        # its largest port load (the list schedule's loss, not the counts')
        ordered = searched_timetables(built + rebuilt + recounted + deepened, regrowths,
                                      tried + extra, optimum, effort, improvers)
        extra += _regrown(ordered, tried, effort, k, cap, regrowths, improvers)
        # and the few others that could overtake it were their list schedule's gap
        # closed (counted apart, after the others: no other candidate changes)
        runners = _regrown(searched_runners_up(built + rebuilt + recounted + deepened,
                                               regrowths, tried + extra, optimum, cap,
                                               effort, improvers),
                           tried, effort, k, cap, regrowths, improvers)
    if not tried:   # every timetable lagged and none was regrown: count them as built
        for m, table, ratio in deferred:
            tried += _counted(m, table, ratio, "", periodic, k, cap)
    if PIPELINED in periodic:
        tried += _routed(tried, k, effort.routed)
        extra += _routed(extra, k, effort.routed,
                         max((c.delivered for c in tried), default=0))
        runners += _routed(runners, k, effort.routed,
                           max((c.delivered for c in tried + extra), default=0))
        # the trees of the one that delivers the most grown once more, for less lag
        runners += _regrown_again_routed(tried + extra + runners, effort, k, cap, improvers)
    if LISTED in rules and (effort.list_run or asked) and _fits(platform, k, optimum,
                                                                rules, max_events):
        tried += _listed(built, regrowths, k, optimum)
    tried = _refined(tried, k, cap) + _refined(extra, k, cap) + _refined(runners, k, cap)
    if PIPELINED in (asked or periodic):
        # where the best still ends short of CLOSE_BELOW of K·TP*: counts chosen over
        # the cuts at its M and above, searched (counted apart, after all the others)
        tried += _refined(closing_candidates(platform, result, tried, k, cap, effort,
                                             improvers, most), k, cap)
    floor = None
    if effort.floor_level is not None:
        # the floor level's candidates, after this level's own (ties keep those)
        floor = horizon_choice(platform, result, horizon, effort_of(effort.floor_level),
                               asked, most, progress, max_events)
        tried += floor.candidates
        improvers += floor.improvers
    # the best under the rules asked for (the others' candidates built its trees)
    best = _most_delivered([c for c in tried if not asked or c.forwarding in asked])
    if floor is not None and best.delivered < floor.best.delivered:
        raise AssertionError("postcondition: the floor level's choice delivers more")
    return Choice(k, optimum, tuple(tried), best, tuple(improvers), result)


def _most_delivered(tried: list):
    """The candidate that delivers the most by K (the first of them on a tie)."""
    return tried[min(range(len(tried)), key=lambda i: (-tried[i].delivered, i))]


def _regrown(chosen, tried, effort, k: Fraction, cap: Fraction, regrowths: dict,
             improvers: list) -> list[Candidate]:
    """The candidates of the timetables ``chosen`` [(M, table, ratio)] with their trees
    regrown (through idle slots, and at ``regrow_both`` through their own slots too);
    ``regrowths`` and ``improvers`` are told what was done."""
    out = []
    for m, table, ratio in chosen:
        for idle in (True, False) if effort.regrow_both else (True,):
            how = "through idle slots" if idle else "through its slots"
            again = regrown(table, effort.swap_moves, idle)
            if isinstance(again, str):
                improvers.append({"max_messages": m, "improver": "regrow", "how": how,
                                  "result": again})
                continue
            regrowths[(id(table), idle)] = again
            before = min(_warmups(tried, table), default=None)
            entries = _counted(m, again, ratio, how, (PIPELINED,), k, cap)
            out += entries
            after = min((e.pattern.warmup for e in entries), default=None)
            improvers.append({"max_messages": m, "improver": "regrow", "how": how,
                              "result": f"warm-up {before} -> {after} periods"})
    return out


def rebuilt_timetables(platform, result, built, cap: Fraction, effort, cuts) -> list:
    """The ``effort.rebuilt`` most promising timetables of ``built`` (ranked as
    :func:`_promising` ranks them) whose ratio is below 1, built again from the second
    family of optimal trees (the cut method's, :func:`steady.schedule.timed.tree_families`):
    those that come out with a better ratio.  Ours: the period a timetable reaches
    depends on which optimal rate vector is rounded, and on generated 50- and 65-node
    platforms the second family is the better one at some M; building it only for the
    few M that can win costs two timetables instead of one per M of the ladder."""
    if not effort.rebuilt:
        return []
    second = tree_families(platform, result, effort.but(families=2))[1:]
    if not second:
        return []
    ranked = sorted((b for b in built if b[2] < 1),
                    key=lambda b: (-(b[2] * cap - REGROWN_LAG * b[1].messages), b[0]))
    out = []
    for m, table, ratio in ranked[:effort.rebuilt]:
        if not second[0].trees:
            break
        again, _ = timed_timetable(platform, result, m, effort.but(families=1), second, cuts)
        better = again.throughput / result.throughput
        if better > ratio:
            out.append((m, again, better))
    return out


#: The chosen timetable's counts lose when their ratio bound N / (TP*·largest load) is
#: below this: then :func:`recounted_timetables` builds on counts chosen over the cuts.
RECOUNT_BELOW = Fraction(995, 1000)


def recounted_timetables(platform, result, built, tried, effort, cuts) -> list:
    """When the timetable of the candidate that delivers the most has counts whose
    ratio bound is below :data:`RECOUNT_BELOW`: its M and the values of the ladder
    below it (at most ``effort.recounted`` of them, 2 <= M <= CUT_MESSAGES) built again
    on link counts chosen over the cuts (:func:`steady.schedule.timed.cut_timetable`),
    smallest M first, those that beat the ladder's timetable of the same M.  Ours: on
    meshes the counts rounded from the optimum and searched locally keep one message
    too many on some tight port (a ratio bound of 0.97 to 0.99 at M = 24 to 48), which
    the MILP over the cuts removes; a smaller period then wins, since its warm-up and
    clean-up cost fewer messages."""
    if not effort.recounted or not tried:
        return []
    top = _most_delivered(tried).max_messages
    mine = {m: (table, ratio) for m, table, ratio in built}
    if top not in mine:
        return []
    table = mine[top][0]
    if ratio_bound(platform, table.counts, result.throughput, table.messages) \
            >= RECOUNT_BELOW:
        return []
    ms = [m for m in effort.ladder
          if 2 <= m <= min(top, CUT_MESSAGES) and 2 * m >= top and m in mine]
    out = []
    for m in ms[-effort.recounted:]:
        again = cut_timetable(platform, result, m, effort, cuts)
        if again is None:
            continue
        ratio = again.throughput / result.throughput
        if ratio > mine[m][1]:
            out.append((m, again, ratio))
    return out


#: The chosen timetable's list schedule loses when its period is more than this part
#: above its largest port load: then :func:`searched_timetables` searches its orders.
SEARCH_ABOVE = Fraction(1, 400)


def searched_timetables(sources, regrowths: dict, tried, optimum: Fraction, effort,
                        improvers: list) -> list:
    """[(M, timetable, ratio)]: the timetable of ``sources`` [(M, timetable, ratio)]
    behind the candidate of ``tried`` that delivers the most (itself or its trees
    regrown, ``regrowths``), its port orders searched by CP-SAT's neighbourhoods
    (:func:`steady.schedule.order_search.neighbourhood_searched`, ``effort.order_lns``
    deterministic time), when its period is more than :data:`SEARCH_ABOVE` above its
    largest port load and the search ends earlier; ``improvers`` is told what was done.
    Ours: on counts tight on many ports the greedy list schedule can end well after the
    largest load (benchmarks/listgap.md), which the search of the one timetable that
    matters closes; its counts and trees are kept, so its ratio only rises (it is
    regrown and counted beside the others, and the choice keeps the most delivered)."""
    if not effort.order_lns or not tried:
        return []
    top = _most_delivered(tried)
    for m, table, ratio in sources:
        if any(t is top.table for t in _own_tables(table, regrowths)):
            break
    else:
        return []
    if _above_load(table) is None:
        return []
    found = _order_searched(m, table, ratio, optimum, effort.order_lns,
                            "neighbourhoods of the chosen timetable", improvers)
    return [] if found is None else [found]


#: Timetables besides the chosen one whose port orders :func:`searched_runners_up`
#: searches, at most (each within ``effort.order_lns``).
RUNNERS_UP = 2


def searched_runners_up(sources, regrowths: dict, tried, optimum: Fraction, cap: Fraction,
                        effort, improvers: list) -> list:
    """[(M, timetable, ratio)]: at most :data:`RUNNERS_UP` timetables of ``sources``
    [(M, timetable, ratio)] other than the one behind the candidate of ``tried`` that
    delivers the most (:func:`searched_timetables` searches that one), their port
    orders searched as it searches them, when their period is more than
    :data:`SEARCH_ABOVE` above their largest port load L and they could then overtake
    that candidate: what their best candidate delivers (itself or its trees regrown,
    ``regrowths``) plus (ratio at L - ratio)·K·TP* (``cap``), the gap closed with the
    lags unchanged, is above what it delivers; the most such first.  ``improvers`` is
    told what was done.  Ours: a shorter period whose list schedule ends above its load
    can deliver more than the chosen one once searched, since it loses fewer messages
    to its warm-up and clean-up (unseen mesh-65 seed 11: M = 8 on counts chosen over
    the cuts ends 0.5 % above its load, where M = 24 is chosen at its load)."""
    if not effort.order_lns or not tried:
        return []
    top = _most_delivered(tried)
    hopes, seen = [], set()
    for i, (m, table, ratio) in enumerate(sources):
        if id(table) in seen:
            continue
        seen.add(id(table))
        mine = _own_tables(table, regrowths)
        if any(top.table is t for t in mine):
            continue
        counted = [c.delivered for c in tried if any(c.table is t for t in mine)]
        lower = _above_load(table)
        if not counted or lower is None:
            continue
        hope = max(counted) + (ratio * Fraction(table.period, lower) - ratio) * cap
        if hope > top.delivered:
            hopes.append((-hope, i, m, table, ratio))
    out = []
    for _, _, m, table, ratio in sorted(hopes, key=lambda h: h[:2])[:RUNNERS_UP]:
        found = _order_searched(m, table, ratio, optimum, effort.order_lns,
                                "neighbourhoods of a timetable that could overtake the "
                                "chosen one", improvers)
        if found is not None:
            out.append(found)
    return out


#: The best candidate ends short when it delivers less than this part of K·TP*: then
#: :func:`closing_candidates` tries longer periods on counts chosen over the cuts.
CLOSE_BELOW = Fraction(99, 100)
#: The M :func:`closing_candidates` builds, as multiples of the best candidate's M.
CLOSE_FACTORS = (1, Fraction(3, 2), 2)
#: CP-SAT's deterministic time for each of their order searches (the chooser's own,
#: ``Effort.order_lns``, is 2: on generated mesh-65 s4 at M = 24 it stops at 0.99615 of
#: TP*, 8 reaches the counts' bound 0.99811).
CLOSE_LNS = 8.0
#: Platforms of more nodes than this are not tried (measured on 50 and 65 nodes only;
#: on 200 nodes the MILP over the cuts and the regrowths cost far more).
CLOSE_NODES = 100


def closing_candidates(platform, result, tried, k: Fraction, cap: Fraction, effort,
                       improvers: list, most: int | None = None) -> list[Candidate]:
    """When the candidate of ``tried`` that delivers the most delivers less than
    :data:`CLOSE_BELOW` of K·TP* (``cap``), the effort recounts and searches orders
    (``recounted``, ``order_lns``) and the platform has at most :data:`CLOSE_NODES`
    nodes: for M = its M times each of :data:`CLOSE_FACTORS` (2 <= M <= CUT_MESSAGES,
    at most ``most`` when given, trees regrowable), the timetables on link counts chosen over the cuts
    (:func:`steady.schedule.timed.cut_timetables`, a CutPool of their own) whose
    counts' ratio bound could beat that candidate were their lags to cost as many
    messages per message of the period as its own (ratio·K·TP* - delivered), the
    fastest of them after its port orders are searched by CP-SAT's neighbourhoods
    (:data:`CLOSE_LNS` each, when it ends above its load); its trees
    regrown, counted, its clean-up routed, and the trees of the one of these that
    delivers the most regrown once more (:func:`regrown_again`) when it beats
    ``tried``.  The candidates, to be counted after all the others (no other candidate
    changes); ``improvers`` is told what was done.  Ours: on 65-node meshes the
    chooser's recount (:func:`recounted_timetables`) stops at the best candidate's M,
    while 1.5 to 2 times it, counts over the cuts bound the ratio at 0.998 to 1 and a
    longer search of the order reaches that bound (generated mesh-65 s4: M = 16 chosen
    at 0.98670 of K·TP*; here M = 32 reaches ratio 0.99967 and 0.99218 of K·TP*)."""
    if not (effort.recounted and effort.order_lns and tried) \
            or len(platform.nodes) > CLOSE_NODES:
        return []
    top = _most_delivered(tried)
    if top.delivered >= CLOSE_BELOW * cap:
        return []
    optimum = result.throughput
    # what that candidate loses to its lags, per message of its period: a longer period
    # is expected to lose as much per message (an estimate; the count decides)
    lost = max(top.ratio * cap - top.delivered, 0) / max(top.table.messages, 1)
    cuts = CutPool()
    chosen = []
    for m in sorted({int(top.max_messages * f) for f in CLOSE_FACTORS}):
        if not 2 <= m <= min(CUT_MESSAGES, most or CUT_MESSAGES) \
                or m > most_regrown(platform):
            continue
        said = {"max_messages": m, "improver": "close",
                "how": "counts chosen over the cuts, port orders searched"}
        tables = cut_timetables(platform, result, m, effort, cuts)
        hopeful = [t for t in tables if ratio_bound(platform, t.counts, optimum, t.messages)
                   * cap - lost * t.messages > top.delivered]
        if not hopeful:
            improvers.append(dict(said, result="no counts that could win"))
            continue
        best = None
        for table in hopeful:
            if _above_load(table) is not None:
                better = neighbourhood_searched(table, CLOSE_LNS)
                table = better if isinstance(better, Timetable) else table
            if best is None or table.throughput > best.throughput:
                best = table
        ratio = best.throughput / optimum
        improvers.append(dict(said, result=f"ratio {ratio_text(ratio)}"))
        chosen.append((m, best, ratio))
    out = _regrown(chosen, tried, effort, k, cap, {}, improvers)
    out += _routed(out, k, effort.routed, top.delivered)
    if out and _most_delivered(out).delivered > top.delivered:
        out += _regrown_again_routed(out, effort, k, cap, improvers)
    return out


def _own_tables(table, regrowths: dict) -> list:
    """``table`` and the timetables of its trees regrown (``regrowths``, through idle
    slots or not) that were built."""
    return [table] + [regrowths[(id(table), idle)] for idle in (True, False)
                      if (id(table), idle) in regrowths]


def _above_load(table):
    """The largest port load L of ``table`` when its period is more than
    :data:`SEARCH_ABOVE` above it (its port orders may then end earlier); else None."""
    lower = max(table.port_loads().values())
    return lower if table.period > lower * (1 + SEARCH_ABOVE) else None


def _order_searched(m: int, table, ratio: Fraction, optimum: Fraction, budget: float,
                    how: str, improvers: list):
    """(M, timetable, ratio) of ``table`` with its port orders searched by CP-SAT's
    neighbourhoods within ``budget`` deterministic time
    (:func:`steady.schedule.order_search.neighbourhood_searched`), or None when that
    does not end earlier; ``improvers`` is told what was done, as ``how``."""
    better = neighbourhood_searched(table, budget)
    said = {"max_messages": m, "improver": "order search", "how": how}
    if isinstance(better, str):
        improvers.append(dict(said, result=better))
        return None
    again = better.throughput / optimum
    improvers.append(dict(said, result=f"ratio {ratio_text(ratio)} -> {ratio_text(again)}"))
    return (m, better, again)


def deepened_timetables(platform, result, built, tried, cap: Fraction, effort, cuts,
                        improvers: list) -> list:
    """At an effort with ``deep`` > 0: the timetables of the ladder ``built`` (as the
    ladder builds them, without the costly searches) that can still win -- ratio below
    1, M from half the M of the candidate that delivers the most so far up to it,
    2 <= M -- the ``effort.deep`` first as :func:`_promising` ranks them, built again,
    smallest M first, with the searches the ladder leaves out: for M <= CUT_MESSAGES on
    link counts chosen over the cuts by the MILP, one timetable per spread of its
    objective (:func:`steady.schedule.timed.cut_timetables`); when none reaches ratio
    1, the one of those and the ladder's own whose largest port load promises the
    fastest period (:func:`_order_source`) with its port orders searched by
    CP-SAT's large neighbourhood search
    (:func:`steady.schedule.order_search.neighbourhood_searched`, same trees and
    counts), within ``effort.deep_time`` of CP-SAT's deterministic time for all of
    them together (each search at most ``effort.order_search``).  The fastest timetable
    found for each M, and every one as fast, when it beats the ladder's of the same M,
    as (M, table, ratio) (timetables of one ratio differ in how far their regrown trees
    lag); once one reaches ratio 1 the longer periods are not searched (at the same
    ratio a shorter period loses fewer messages to its warm-up and clean-up).
    ``improvers`` is told what each search did.  Ours:
    those searches take most of a ``thorough`` run when given every M (on a 65-node
    random platform, 20 CPU-s of MILP per M from M = 2 on), and pay where they bring a
    short period to ratio 1 (samples/random-50: the ladder as built reaches ratio 1 at
    M = 20, the MILP at M = 10, which delivers more by the horizon).  The
    neighbourhoods, not CP-SAT's whole search
    (:func:`steady.schedule.order_search.searched`): on counts tight on many ports the
    whole search stalls where the neighbourhoods reach the largest port load within
    the same deterministic time (benchmarks/thorough-41.md, benchmarks/listgap.md)."""
    if not effort.deep or not tried:
        return []
    optimum = result.throughput
    top = _most_delivered(tried).max_messages
    ranked = sorted((b for b in built if b[2] < 1 and 2 <= b[0] and 2 * b[0] >= top
                     and b[0] <= top),
                    key=lambda b: (-(b[2] * cap - REGROWN_LAG * b[1].messages), b[0]))
    time_left = effort.deep_time
    unsearched = effort.but(order_search=0.0)
    out = []
    for m, table, ratio in sorted(ranked[:effort.deep], key=lambda b: b[0]):
        found = []
        if m <= CUT_MESSAGES:
            found += [("counts chosen over the cuts", t)
                      for t in cut_timetables(platform, result, m, unsearched, cuts)]
            if not found:
                improvers.append({"max_messages": m, "improver": "deep search",
                                  "how": "counts chosen over the cuts",
                                  "result": "none found"})
        if time_left > 0 and all(t.throughput < optimum for _, t in found):
            source = _order_source([table] + [t for _, t in found])
            if source is not None:
                allowed = min(effort.order_search, time_left)
                time_left -= allowed
                found.append(("port orders searched",
                              neighbourhood_searched(source, allowed)))
        fastest = max([table.throughput] + [t.throughput for _, t in found
                                            if isinstance(t, Timetable)])
        for words, other in found:
            improvers.append({"max_messages": m, "improver": "deep search", "how": words,
                              "result": other if isinstance(other, str) else
                              f"ratio {ratio_text(other.throughput / optimum)}"})
            # the fastest, and those as fast (a slower one seldom wins, and counting
            # it costs two regrowths)
            if (isinstance(other, Timetable) and other.throughput > table.throughput
                    and other.throughput == fastest):
                out.append((m, other, other.throughput / optimum))
        if any(t.throughput == optimum for _, t in found if isinstance(t, Timetable)):
            break   # longer periods of ratio 1 deliver less
    return out


def _order_source(tables: list):
    """Of ``tables`` (one M), the one whose port orders the deep search searches: among
    those whose period is above their largest port load, the one whose load promises
    the fastest period (``messages / load``; the faster, then the first, on a tie),
    when that beats the fastest of ``tables``; None otherwise (no budget is spent: a
    period at its load cannot end earlier, and orders cannot beat the load)."""
    def promise(t):
        return Fraction(t.messages) / t.time(max(t.port_loads().values()))
    fastest = max(t.throughput for t in tables)
    open_ = [t for t in tables if t.period > max(t.port_loads().values())]
    if not open_:
        return None
    best = max(open_, key=lambda t: (promise(t), t.throughput))   # first on a tie
    return best if promise(best) > fastest else None


def _fits(platform, k: Fraction, optimum: Fraction, rules, max_events: int) -> bool:
    """Whether the list run's single transfers fit in ``max_events`` (when the list run
    is all that was asked for, :class:`TooLarge` says why it cannot run)."""
    need = int(k * optimum) * (len(platform.nodes) - 1)
    if need <= max_events:
        return True
    if rules == (LISTED,):
        raise TooLarge(f"floor(K·TP*) = {int(k * optimum)} broadcasts to "
                       f"{len(platform.nodes) - 1} nodes are more single transfers than "
                       f"the budget of {max_events}")
    return False


def _counted(m: int, table: Timetable, ratio: Fraction, regrown_how: str, rules,
             k: Fraction, cap: Fraction, most_lag: int | None = None) -> list[Candidate]:
    """The candidates of one timetable under ``rules``, counted in whole batches (none
    under a rule whose warm-up exceeds ``most_lag`` periods, when given)."""
    out = []
    for rule in rules:
        try:
            pattern = PeriodicPattern(table, rule)
        except TooManySlots:
            continue
        if most_lag is not None and pattern.warmup > most_lag:
            continue
        lengths = phases(pattern)
        most = int(cap // max(pattern.messages, 1))
        batches = whole_batches(pattern, k, lengths, most)
        out.append(Candidate(m, table, ratio, rule, regrown_how, False,
                             batches * pattern.messages, batches, pattern, lengths))
    return out


def _routed(tried, k: Fraction, most: int, known: int = 0) -> list[Candidate]:
    """The ``most`` pipelined candidates that deliver the most, with their clean-up
    routed afresh (:mod:`.rerouted`: an exact count) -- but not those whose count could
    not even reach what a candidate delivers already (:func:`.rerouted.routed_bound`:
    routing the clean-up of trees that lag tens of periods is the costly part, and
    such a candidate is never chosen; ``known``: a count another candidate reaches)."""
    out = []
    ranked = sorted((c for c in tried if c.forwarding == PIPELINED and not c.routed_cleanup),
                    key=lambda c: -c.delivered)
    known = max([known] + [c.delivered for c in tried])
    for c in ranked[:most]:
        if routed_bound(c.pattern, c.phases, k) < known:
            continue
        routed = routed_count(c.pattern, c.phases, k)
        if routed is not None:
            out.append(replace(c, routed_cleanup=True, delivered=routed[0],
                               batches=routed[1]))
            known = max(known, routed[0])
    return out


def regrown_again(tried, effort, k: Fraction, cap: Fraction, improvers: list) -> list:
    """The candidates of the timetable of the candidate of ``tried`` that delivers the
    most, when it is pipelined with regrown trees, with those trees regrown once more
    (:func:`steady.schedule.regrow.regrown` of the regrown timetable, through its slots
    and the idle ones) within ``effort.again_swaps`` exchanges; ``improvers`` is told
    what was done.  Same period and ratio: only the lags change, and the choice keeps
    the candidate that delivers the most.  Ours: the first regrowth's exchange budget
    leaves lags that a larger one on the one timetable that matters shortens (generated
    random-50 seed 4, M = 45: warm-up 5 -> 3 periods, 7109 -> 7118 messages)."""
    if not effort.again_swaps or not tried:
        return []
    top = _most_delivered(tried)
    if top.forwarding != PIPELINED or not top.regrown:
        return []
    said = {"max_messages": top.max_messages, "improver": "regrow",
            "how": "the chosen trees once more"}
    again = regrown(top.table, effort.again_swaps, True)
    if isinstance(again, str):
        improvers.append(dict(said, result=again))
        return []
    out = _counted(top.max_messages, again, top.ratio, top.regrown, (PIPELINED,), k, cap)
    after = min((c.pattern.warmup for c in out), default=None)
    improvers.append(dict(said, result=f"warm-up {top.pattern.warmup} -> {after} periods"))
    return out


def _regrown_again_routed(tried, effort, k: Fraction, cap: Fraction,
                          improvers: list) -> list:
    """:func:`regrown_again` of ``tried``, its candidates also with their clean-up routed
    (:func:`_routed`, against what ``tried`` delivers already)."""
    again = regrown_again(tried, effort, k, cap, improvers)
    return again + _routed(again, k, effort.routed, max((c.delivered for c in tried),
                                                        default=0))


def _warmups(tried, table) -> list[int]:
    return ([c.pattern.warmup for c in tried
             if c.table is table and c.forwarding == PIPELINED]
            or [table.warmup()])   # not counted as built: its lags read afresh


def _promising(built, tried, cap: Fraction, most: int) -> list:
    """The ``most`` timetables of ``built`` whose trees are worth regrowing: the best
    by ratio·K·TP* - REGROWN_LAG·M (what they would deliver with regrown trees lagging
    :data:`REGROWN_LAG` periods), and the one that delivers the most as built."""
    ranked = sorted((b for b in built if regrowable(b[1])),
                    key=lambda b: (-(b[2] * cap - REGROWN_LAG * b[1].messages), b[0]))
    chosen = ranked[:most]
    if not tried:
        return chosen
    top = max(tried, key=lambda c: c.delivered)
    if all(b[1] is not top.table for b in chosen) and regrowable(top.table):
        chosen = chosen[:max(most - 1, 0)] + [b for b in built if b[1] is top.table]
    return chosen


def _listed(built, regrowths, k: Fraction, optimum: Fraction) -> list[Candidate]:
    """The list run on the trees of the best ratio tried (as built, and regrown when it
    was), counted exactly on its plan."""
    m, table, ratio = max(built, key=lambda b: (b[2], -b[0]))
    out = []
    for how, trees in (("", table), ("through idle slots", regrowths.get((id(table), True)))):
        if trees is None:
            continue
        plan = list_plan(table.platform, trees.trees, int(k * optimum),
                         {"max_messages": m, "ratio": ratio, "regrown": how})
        out.append(Candidate(m, trees, ratio, LISTED, how, False, plan.delivered_by(k),
                             built=plan))
    return out


def _refined(tried: list[Candidate], k: Fraction, cap: Fraction) -> list[Candidate]:
    """The :data:`REFINED` best whole-batch counts (not the routed ones, which are
    exact) counted exactly with the partial last batch (:func:`.horizon.delivered`)."""
    order = sorted(range(len(tried)), key=lambda i: (-tried[i].delivered, i))
    out = list(tried)
    for i in [i for i in order if tried[i].forwarding != LISTED
              and not tried[i].routed_cleanup][:REFINED]:
        c = tried[i]
        count, batches = delivered(c.pattern, k, c.phases, int(cap // max(c.table.messages, 1)))
        if count > c.delivered:
            out[i] = replace(c, delivered=count, batches=batches)
    return out


def with_trees(platform, result):
    """``result`` with weighted trees (what the timed construction starts from): a result
    without trees (the cut method's) gets those of 002 Thm 5's weighted branchings on
    its rates (:func:`steady.schedule.periodic.scaled_trees`)."""
    if result.trees:
        return result
    from ..schedule.periodic import scaled_trees

    trees, scale, _ = scaled_trees(platform, result)
    return replace(result, trees=tuple((parent, Fraction(w, scale)) for parent, w in trees))


def schedule_choice(schedule, horizon, optimum: Fraction, rule: str = "period",
                    max_events: int = MAX_EVENTS) -> Choice:
    """The candidate of a given schedule (a document or a timetable) for horizon K under
    one rule: "period" (the files' rule), "pipelined" (with the clean-up on its trees)
    or "listed" (:class:`TooLarge` beyond ``max_events`` single transfers)."""
    table = schedule if isinstance(schedule, Timetable) else Timetable.of(schedule)
    k = Fraction(horizon)
    cap = bound(optimum, k)
    ratio = table.throughput / optimum
    m = table.messages
    if rule == LISTED:
        _fits(table.platform, k, optimum, (LISTED,), max_events)
        tried = _listed([(m, table, ratio)], {}, k, optimum)
    else:
        PeriodicPattern(table, rule)   # TooManySlots: pipelined lags beyond the bound
        tried = _refined(_counted(m, table, ratio, "", (rule,), k, cap), k, cap)
    return Choice(k, optimum, tuple(tried), tried[0])


def message_transfers(candidate: Candidate, horizon, optimum: Fraction) -> int:
    """Single message transfers of a candidate's plan (what materialising it costs)."""
    others = len(candidate.table.platform.nodes) - 1
    if candidate.forwarding == LISTED:
        return int(Fraction(horizon) * optimum) * others
    return candidate.batches * candidate.table.messages * others


# -- K broadcasts of a given schedule (steady run) ---------------------------------------

def broadcast_plan(schedule, broadcasts: int, rules=None, effort=DEFAULT) -> Plan:
    """The plan that delivers ``broadcasts`` broadcasts of ``schedule`` (a schedule
    document or a timetable) in the fewest ticks, among its unrollings under ``rules``
    (default: both forwarding rules, with the clean-up on the trees or, for whole
    batches, routed afresh, and the list run on its trees when its single transfers fit
    :data:`~.horizon.MAX_EVENTS`; at ``fast`` effort, pipelined forwarding only); the
    first on a tie."""
    table = schedule if isinstance(schedule, Timetable) else Timetable.of(schedule)
    if rules is None:
        fits = broadcasts * (len(table.platform.nodes) - 1) <= MAX_EVENTS
        rules = ((PIPELINED,) if effort_of(effort).name == "fast"
                 else FORWARDING + ((LISTED,) if fits else ()))
    rules = tuple(rules)
    best = None
    for rule in rules:
        if rule == LISTED:
            plan = list_plan(table.platform, table.trees, broadcasts)
            options = [(plan.makespan_time, lambda plan=plan: plan)]
        else:
            try:
                pattern = PeriodicPattern(table, rule)
            except TooManySlots:
                continue
            options = _unrollings(pattern, broadcasts)
        for makespan, build in options:
            if best is None or makespan < best[0]:
                best = (makespan, build)
    if best is None:
        raise ValueError("no unrolling of this schedule applies")
    return best[1]()


def _unrollings(pattern: PeriodicPattern, broadcasts: int) -> list:
    """(makespan, build) of ``pattern``'s finite schedule of ``broadcasts`` broadcasts:
    its own clean-up, and for whole batches >= W under pipelined forwarding the clean-up
    routed afresh."""
    from .unroll import finite_schedule

    batches, share = share_for(pattern, broadcasts)
    own = finite_schedule(pattern, batches, share, placed=False).makespan
    out = [(own, lambda: periodic_plan(pattern, batches, share))]
    if (share is None and pattern.forwarding == PIPELINED and pattern.warmup
            and batches >= pattern.warmup):
        cleanup = routed_cleanup(pattern, batches)
        lengths = phases(pattern)
        makespan = (lengths.init + (batches - pattern.warmup) * pattern.period_time
                    + cleanup.length)
        out.append((makespan, lambda: periodic_plan(pattern, batches, None, cleanup)))
    return out
