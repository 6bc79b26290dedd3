"""Timed short-period schedules: at most M messages per period, a timetable, and a ratio
to the optimum certified by the optimum's own prices (ours; builds on 002 §5.3-§5.4).

The exact optimum of 002 §5.4.2 has a period with hundreds of digits on heterogeneous
platforms.  Here the period holds at most ``M`` messages and every transfer has its own
start time (steady-schedule version 2, a :class:`~.timetable.Timetable`):

1. when the exact optimum's own period holds at most M messages, it is taken, in timed
   form (ratio 1);
2. otherwise integer trees of N <= M messages are drawn from optimal trees
   (:mod:`.counts`: rounded counts, packing, a bounded Dinkelbach search; link counts
   also searched over the cuts, :mod:`.count_search`), on each family of
   :func:`tree_families` the effort allows, and list scheduled (:mod:`.list_schedule`);
3. at ``thorough`` effort, for 2 <= M <= :data:`CUT_MESSAGES`, link counts chosen over
   the cuts by a MILP (:mod:`.cut_counts`) are built on too, and the timetables' port
   orders are searched by CP-SAT (:mod:`.order_search`).

The fastest timetable is kept (the first on a tie).  For one long period asked for
alone (:attr:`.effort.Effort.one_period`), a timetable certified at least
:attr:`.effort.Effort.milp_enough` before the Dinkelbach MILP is kept where that MILP
does not prove its optimum within a few nodes.  The certificate is the optimum's:
port prices summing to TP* under which every spanning arborescence costs >= 1, so
throughput / TP* is a certified ratio (proofs/timed-schedule.md).  Every search is
bounded by the :class:`~.effort.Effort`'s deterministic work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Callable

from ..inputs import as_platform
from ..network.rows import has_link_rows
from ..schedule_file import timed
from ..throughput import compact_trees, throughput as optimal_throughput
from .branchings import root_connectivity, weighted_branchings
from .count_search import searched_counts
from .counts import (improved_packing, link_rates, merged, rounded_counts, rounded_trees,
                     start_packing, usage)
from .cut_counts import CutPool, cut_counts
from .effort import DEFAULT, effort as effort_of
from .list_schedule import list_schedule
from .order_search import searched
from .periodic import scaled_trees, short_optimum
from .timetable import Timetable, loads_of


def timed_schedule(platform, result, max_messages: int, effort=DEFAULT, families=None,
                   cuts: CutPool | None = None):
    """(version 2 schedule, statistics) with at most ``max_messages`` messages per
    period, from an exact optimum ``result``; see :func:`timed_timetable`."""
    table, stats = timed_timetable(platform, result, max_messages, effort, families, cuts)
    return table.schedule(result), stats


def timed_timetable(platform, result, max_messages: int, effort=DEFAULT, families=None,
                    cuts: CutPool | None = None) -> tuple[Timetable, dict]:
    """The fastest timetable of the module docstring with at most ``max_messages``
    messages per period, and statistics.  ``families`` (:func:`tree_families`) and
    ``cuts`` are shared by callers that try many M."""
    platform = as_platform(platform)
    effort = effort_of(effort)
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    optimum = result.throughput
    families = families or tree_families(platform, result, effort)
    best = None
    for family in families[:effort.families]:
        if best is not None and _ratio(best[1], optimum) == 1:
            break   # the optimum itself: no family can do better
        if not family.trees:
            continue
        found = _timed_from(platform, result, family.trees, max_messages, effort)
        if best is None or _faster(found[0], best[1]):
            best = (family.name,) + found
    if effort.cut_counts and _ratio(best[1], optimum) < 1:
        found = _from_cut_counts(platform, max_messages, cuts, effort)
        if found is not None and _faster(found[0], best[1]):
            best = (CUT_TREES,) + found
    family, table, messages, how = best
    table.check()
    stats = {"messages_target": messages, "trees": len(table.trees),
             "transfers": sum(len(rs) for rs in table.runs.values()),
             "largest_port_load": table.time(max(table.port_loads().values())),
             "ratio": _ratio(table, optimum), "trees_from": family, "construction": how}
    return table, stats


def _ratio(table: Timetable, optimum: Fraction) -> Fraction:
    return table.throughput / optimum


def _faster(a: Timetable, b: Timetable) -> bool:
    """Whether ``a`` has the higher throughput (messages / period, exact)."""
    return a.messages * a.unit * b.period > b.messages * b.unit * a.period


#: Beyond this many nodes only the optimum's own trees are built on: a second family
#: doubles the work (at 1000 nodes one takes minutes).
FAMILY_NODES = 300
#: The second family decomposes the cut method's rates scaled to about this many
#: messages (weighted branchings on exact rates with 180-digit denominators are slow).
FAMILY_MESSAGES = 4096


@dataclass
class TreeFamily:
    """A family of optimal trees with rates, named, built when first asked for."""

    name: str
    build: Callable[[], list]

    @cached_property
    def trees(self) -> list[tuple[dict, Fraction]]:
        return self.build()


def tree_families(platform, result, effort=DEFAULT) -> list[TreeFamily]:
    """The optimum's trees (``result.trees``, or 002 Thm 5's weighted branchings of its
    rates when it has none) and, when ``effort`` asks for two families and the result
    has trees on at most :data:`FAMILY_NODES` nodes, trees from the cut method's
    optimum (another optimal rate vector: the LP has many, and which one rounds and
    schedules better depends on the platform)."""
    families = [TreeFamily("the optimum's trees" if result.trees else "weighted branchings",
                           lambda: optimum_trees(platform, result))]
    if (effort_of(effort).families > 1 and result.trees
            and len(platform.nodes) <= FAMILY_NODES):
        def from_cuts():
            cuts = optimal_throughput(platform, "cuts")
            return rounded_branchings(platform, cuts.n, cuts.throughput)

        families.append(TreeFamily("branchings of the cut method's optimum", from_cuts))
    return families


def optimum_trees(platform, result) -> list[tuple[dict, Fraction]]:
    """The optimum's trees with their rates: ``result.trees``, or for a result without
    trees (the cut method's) 002 Thm 5's weighted branchings of its rates."""
    weights, scale, _ = scaled_trees(platform, result)
    return [(dict(parent), Fraction(w, scale)) for parent, w in weights]


def rounded_branchings(platform, rates, optimum: Fraction) -> list[tuple[dict, Fraction]]:
    """Trees with rates summing to at most ``optimum`` from the link rates ``rates``
    (ours; 002 Thm 5): capacities floor(n_e·S) with S = ceil(FAMILY_MESSAGES / TP*),
    as many unit-weight arborescences as their root-connectivity k allows, grouped by
    weighted branchings, then re-weighted to a basic optimum of the tree master over them
    (:func:`steady.throughput.compact_trees`).  Flooring keeps every capacity within
    n_e·S, so the rates w/S fit wherever n fits."""
    scale = max(1, math.ceil(FAMILY_MESSAGES / optimum))
    capacities = {arc: math.floor(x * scale) for arc, x in rates.items()}
    k = root_connectivity(platform, capacities)
    if k < 1:
        return []
    trees, scale = compact_trees(platform, weighted_branchings(platform, capacities, k),
                                 scale)
    return [(parent, Fraction(w, scale)) for parent, w in trees]


def _timed_from(platform, result, trees, max_messages: int, effort):
    """(timetable, messages aimed at, how it was built) on ``trees``; for one period
    asked for alone (``effort.one_period``), a first timetable certified at least
    ``effort.milp_enough`` ends the search before the Dinkelbach MILP
    (:func:`_enough_before_milp`)."""
    optimum = result.throughput
    exact = (None if has_link_rows(platform)   # 002 §5.4.2's steps hold ports only
             else short_optimum(platform, trees, result, max_messages))
    if exact is not None:
        table = Timetable.of(timed(exact))
        return table, table.messages, "exact optimum (002 §5.4.2), timed"
    over_cuts = (not has_link_rows(platform) and effort.count_kicks is not None
                 and 2 <= max_messages <= COUNT_MESSAGES)
    start = start_packing(platform, trees, optimum, max_messages)
    # a timetable is built at most once per construction (the first look below, then
    # the search, may ask for the same one)
    tables: dict = {}

    def packing(weights):
        n = sum(w for _, w in weights)
        key = ("packing", tuple((frozenset(p.items()), w) for p, w in weights))
        return (ratio_bound(platform, usage(weights), optimum, n), n, "rounded counts",
                lambda: _once(tables, key, lambda: list_schedule(platform, weights,
                                                                 effort)))

    def searched_option():
        load, counts = _searched_counts(platform, trees, optimum, max_messages, effort)
        return (Fraction(max_messages) / (optimum * load), max_messages, SEARCHED,
                lambda: _once(tables, SEARCHED,
                              lambda: _from_counts(platform, trees, optimum, counts,
                                                   max_messages, effort)))

    def options_from(weights):
        # each construction's ratio bound N / (TP*·largest load); timetables are built
        # best bound first, and a construction whose bound cannot beat the timetable in
        # hand is not built (packing and timing are the costly part)
        first = packing(weights)
        return [first] + ([searched_option()] if over_cuts and first[0] < 1 else [])

    # long periods: on a tie the counts searched over the cuts first (their list
    # schedule reaches the common bound in fewer rounds, benchmarks/figures-41.md; on
    # short periods the order stays: there either may schedule better)
    long = max_messages > PACKED_MESSAGES
    order = lambda o: (-o[0], long and o[2] != SEARCHED)   # noqa: E731
    found = improved = None
    enough = effort.milp_enough if effort.one_period else None
    if effort.dinkelbach and enough is not None and not has_link_rows(platform):
        improved = improved_packing(platform, trees, optimum, max_messages, start,
                                    proven=True)
        if improved is None:   # the MILP would run to its node bound: look first
            found = _enough_before_milp(min(options_from(start), key=order), optimum,
                                        enough)
    if found is None:
        if effort.dinkelbach and improved is None:
            improved = improved_packing(platform, trees, optimum, max_messages, start)
        options = options_from(improved if effort.dinkelbach else start)
        options.sort(key=order)
        table = None
        for bound, n, words, build in options:
            if table is not None and _ratio(table, optimum) >= bound:
                break
            other = build()
            if table is None or _faster(other, table):
                table, messages, counts_words = other, n, words
    else:
        table, messages, counts_words = found
    if has_link_rows(platform):
        table = _best_on_links(platform, trees, optimum, messages, table, effort)
    counts = counts_words
    how = "list schedule"
    better = searched(table, effort)
    if isinstance(better, Timetable):
        table, how = better, "list schedule, port orders searched"
    return table, messages, f"{counts}, tree packing, {how}"


def _once(tables: dict, key, build):
    if key not in tables:
        tables[key] = build()
    return tables[key]


def _enough_before_milp(option, optimum: Fraction, enough: Fraction):
    """(timetable, messages, how) of ``option`` -- the construction of best ratio
    bound before the Dinkelbach MILP improves the packing's weights -- when its
    timetable is certified at least ``enough``; None otherwise (the search then goes
    on as without ``enough``, and finds that timetable again if it builds it).  Asked
    only where the MILP does not prove its optimum within a few nodes.  Ours: there it
    runs to its node bound (1-4 CPU-s on 65 nodes at M = 1000), and where a timetable
    is certified >= 0.999 without it, it seldom buys more (docs/limits.md)."""
    bound, n, words, build = option
    table = build()
    return (table, n, words) if _ratio(table, optimum) >= enough else None


#: Periods of at most this many messages get counts searched over the cuts.
COUNT_MESSAGES = 10_000
#: How a timetable on those counts says it was built.
SEARCHED = "counts searched over the cuts"


def ratio_hint(platform, result, messages: int, effort) -> Fraction:
    """An estimate of what a timetable of ``messages`` messages per period reaches:
    the ratio bound N / (TP*·largest load) of the counts searched over the cuts (1 when
    they do not apply); cheap next to building the timetable (no packing, no list
    schedule).  Not a bound: the packing's own counts often load the ports less, and at
    thorough effort the MILP over the cuts does (benchmarks/figures-41.md), so where
    that MILP applies the estimate is 1."""
    if (effort.count_kicks is None or not 2 <= messages <= COUNT_MESSAGES
            or has_link_rows(platform)):
        return Fraction(1)
    if effort.cut_counts and messages <= CUT_MESSAGES and len(platform.arcs) <= CUT_ARCS:
        return Fraction(1)
    trees = tree_families(platform, result, effort)[0].trees
    load, _ = _searched_counts(platform, trees, result.throughput, messages, effort)
    return min(Fraction(1), messages / (result.throughput * load))


def _searched_counts(platform, trees, optimum, messages: int, effort):
    """(largest load, counts): the counts improved by the local search of
    :mod:`.count_search` from the rounded rates of ``trees`` and from those of the cut
    method's optimum (another vertex of the LP: the search often ends lower from it),
    the lower largest load kept.  Remembered: the chooser asks for them twice per M
    (:func:`ratio_hint`, then the timetable)."""
    key = tuple((tuple(parent.items()), weight) for parent, weight in trees)
    # the arcs' order too: equal platforms may list them otherwise (and the search
    # follows it)
    load, counts = _searched_counts_of(platform, tuple(platform.arcs), key, optimum,
                                       messages, effort)
    return load, dict(counts)


@lru_cache(maxsize=64)
def _searched_counts_of(platform, arcs, trees_key, optimum, messages: int, effort):
    trees = [(dict(parent), weight) for parent, weight in trees_key]
    best = None
    for rates in (link_rates(trees), cut_rates(platform)):
        start = rounded_counts(rates, optimum, messages)
        counts = searched_counts(platform, start, messages, effort.count_kicks)
        load = max(loads_of(platform, counts).values())
        if best is None or load < best[0]:
            best = (load, counts)
    return best


def _from_counts(platform, trees, optimum, counts, messages: int, effort) -> Timetable:
    """The timetable of ``messages`` spanning arborescences packed into ``counts``: for
    short periods all of them by 002 Thm 5's weighted branchings; for longer ones (the
    packing grows with M) the optimum's trees rounded into the counts and the rest
    packed by Thm 5 into what is left, or all of them by Thm 5 when what is left cannot
    take the rest; list scheduled with the rounds that tight counts need."""
    if messages <= PACKED_MESSAGES:
        weights = merged(weighted_branchings(platform, counts, messages))
    else:
        weights = rounded_trees(platform, trees, optimum, messages, capacity=counts)
        if (sum(w for _, w in weights) < messages
                and root_connectivity(platform, counts) >= messages):
            # the optimum's trees fit counts moved far by the search badly (their
            # floors leave a residual of too little connectivity): Thm 5 packs all
            # ``messages`` into the counts (their root-connectivity allows it)
            weights = merged(weighted_branchings(platform, counts, messages))
    rounds = effort.tight_rounds if messages <= PACKED_MESSAGES else effort.list_rounds
    return list_schedule(platform, weights, effort.but(list_rounds=rounds))


#: Up to this many messages per period the counts searched over the cuts are packed by
#: weighted branchings alone (its work grows with M: benchmarks/figures-41.md).
PACKED_MESSAGES = 200


@lru_cache(maxsize=8)
def cut_rates(platform) -> dict:
    """The link rates of the cut method's optimum (remembered per platform: every M of
    a ladder starts from them)."""
    return dict(optimal_throughput(platform, "cuts").n)


def _best_on_links(platform, trees, optimum, messages: int, table: Timetable, effort):
    """With shared links the load bound that picks the weights misses how the links'
    shares combine in time (a transfer keeps its arc's speed), so the weights it
    prefers can schedule worse than the optimum's own rounded ones: those, for the same
    number of messages, are list scheduled too, and the faster kept."""
    other = list_schedule(platform, rounded_trees(platform, trees, optimum, messages),
                          effort)
    return other if _faster(other, table) else table


#: Counts chosen over the cuts (:mod:`.cut_counts`) are tried for periods of 2 to this
#: many messages, on platforms of at most :data:`CUT_ARCS` links without shared links.
#: (One message per period is one tree of least port load: the MILP gains nothing.)
CUT_MESSAGES = 50
CUT_ARCS = 1000
#: The MILP's weights on the total work (:func:`.cut_counts.cut_counts`): which counts
#: the list schedule then fits best varies, so both are tried.
CUT_SPREADS = (0.0, 0.01)
#: What ``trees_from`` says of a schedule built on those counts (not a tree family).
CUT_TREES = "spanning arborescences of the counts"


def _from_cut_counts(platform, messages: int, cuts: CutPool | None, effort):
    """(timetable, messages, how) on ``messages`` spanning arborescences packed into
    counts chosen over the cuts (:func:`.cut_counts.cut_counts`, 002 Thm 5 for the
    packing), the best of :data:`CUT_SPREADS`, the ports' orders searched; None when
    they do not apply or give no counts."""
    best = None
    for found in _cut_tables(platform, messages, cuts, effort):
        if best is None or _faster(found[0], best[0]):
            best = found
    return best


def _cut_tables(platform, messages: int, cuts: CutPool | None, effort) -> list:
    """[(timetable, messages, how)] of :func:`_from_cut_counts`, one per spread of
    :data:`CUT_SPREADS` that gives counts."""
    if (not 2 <= messages <= CUT_MESSAGES or len(platform.arcs) > CUT_ARCS
            or has_link_rows(platform)):
        return []
    cuts = CutPool() if cuts is None else cuts
    out = []
    for spread in CUT_SPREADS:
        counts = cut_counts(platform, messages, cuts, spread)
        if counts is None:
            continue
        weights = merged(weighted_branchings(platform, counts, messages))
        table = list_schedule(platform, weights, effort.but(list_rounds=effort.tight_rounds))
        how = "list schedule"
        better = searched(table, effort)
        if isinstance(better, Timetable):
            table, how = better, "list schedule, port orders searched"
        out.append((table, messages, f"counts chosen over the cuts, tree packing, {how}"))
    return out


def cut_timetable(platform, result, messages: int, effort=DEFAULT,
                  cuts: CutPool | None = None) -> Timetable | None:
    """The timetable on counts chosen over the cuts (:mod:`.cut_counts`, as at
    ``thorough``) for ``messages`` per period, whatever ``effort.cut_counts`` says: the
    finite-horizon chooser asks for it at a few M where rounded and searched counts
    lose (:func:`steady.simulate.choose.recounted_timetables`); None when those counts
    do not apply or are not found within the MILP's bounds."""
    found = _from_cut_counts(as_platform(platform), messages, cuts,
                             effort_of(effort))
    if found is None:
        return None
    found[0].check()
    return found[0]


def cut_timetables(platform, result, messages: int, effort=DEFAULT,
                   cuts: CutPool | None = None) -> list[Timetable]:
    """Every timetable :func:`cut_timetable` chooses among (one per spread of
    :data:`CUT_SPREADS` that gives counts), each checked: timetables of the same ratio
    can differ in how far their regrown trees lag (the finite-horizon chooser counts
    them all, :func:`steady.simulate.choose.deepened_timetables`)."""
    tables = [t for t, _, _ in _cut_tables(as_platform(platform), messages, cuts,
                                            effort_of(effort))]
    for table in tables:
        table.check()
    return tables


def ratio_bound(platform, counts, optimum: Fraction, messages: int) -> Fraction:
    """N / (TP*·largest load) of per-arc counts: no timetable of them does better."""
    return Fraction(messages) / (optimum * max(loads_of(platform, counts).values()))
