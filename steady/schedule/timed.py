"""Timed short-period schedules: at most M messages per period, a timetable, and a ratio
to the optimum certified by the optimum's own prices (ours; builds on 002 §5.3-§5.4).

The exact optimum of 002 §5.4.2 has a period with hundreds of digits on heterogeneous
platforms.  Here the period holds at most ``M`` messages and every transfer has its own
start time (steady-schedule version 2), built in three steps:

1. **Integer counts.**  The optimum's trees T_l with rates λ_l (sum TP*) give every link
   the rate n_e = sum of λ_l over the trees through it.  With N messages per period the
   link carries n_e·N/TP* messages; rounding up keeps every cut >= N (every cut carries
   >= TP* in the optimum), so N arc-disjoint spanning arborescences fit (Edmonds' branching
   theorem, 002 Thm 5).  The ratio of a count vector is bounded by N / (TP*·largest port
   load); the N <= M with the best bound is kept.  For 2 <= M <= 50, counts for N = M chosen
   together by a MILP over the cuts (:mod:`.counts`: largest port load minimised,
   Edmonds' condition checked exactly) are built on too, and kept when their schedule
   is faster (a 30-node random platform at M = 19: 0.9952 -> 1).
2. **Integer trees.**  Tree l gets floor(λ_l·N/TP*) messages; trees with the largest
   remainders then get one more while their links have room; what is still missing is
   packed into the remaining capacities by the combinatorial construction of Thm 5
   (:func:`steady.schedule.branchings.weighted_branchings`), as far as their
   root-connectivity allows.  A bounded Dinkelbach search over these trees and the
   optimum's (:mod:`.packing`) then improves the weights' ratio bound.  Within a period
   the order of messages is free: a node forwards in period p what it received in
   period p-1 (002 §5.4.2), so any timetable of these counts is valid when repeated.
3. **A timetable by list scheduling**, in exact integer time units: whenever ports are
   free, free (out-port, in-port) pairs with messages left are matched greedily by a
   priority of their remaining work, one message at a time; a few priority rules and
   rounds are tried, the shortest period kept; consecutive messages of one link are
   merged into one transfer per tree.  The period is the makespan, never below the
   largest port load (checked exactly).  A second list schedule that follows the trees
   (:mod:`.tree_order`) replaces it when it is as short and its pipelined warm-up is
   shorter (finite runs then lose less).  With shared links and equal link costs,
   rounds (:mod:`.rounds`: König matchings, Kempe swaps until every link fits) replace
   it when they end earlier.

Steps 1-3 run on two families of optimal trees when the platform is small enough
(:func:`tree_families`), and the faster schedule is kept.

The certificate is the optimum's: port prices summing to TP* under which every spanning
arborescence costs >= 1, so throughput / TP* is a certified ratio (proofs/timed-schedule.md).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import Callable

from ..errors import InputError
from ..inputs import as_platform
from ..network.rows import conflicting_arcs, has_link_rows, link_loads, shared_links
from ..numbers import lcm_of_denominators
from ..schedule_file import (TIMED, PriceCertificate, Schedule, TimedTransfer, TreeEntry,
                             timed)
from ..throughput import compact_trees, throughput as optimal_throughput
from .branchings import root_connectivity, weighted_branchings
from .counts import CutPool, cut_counts
from .lag_search import LAG_SEARCH_TIME, shorter_lags
from .order_search import DEEP_SEARCH_TIME, SEARCH_SLOTS, SEARCH_TIME, searched_runs
from .packing import dinkelbach_weights, exact_ratio
from .periodic import integer_trees as branching_trees, periodic_schedule
from .regrow import tick_unit
from .rounds import link_rounds, rounds_needed
from .tree_order import (LIST_SLOTS, RELABEL_SLOTS, busier_port, extend_runs,
                         follow_arrivals, tree_list_schedule, warmup_periods)

Arc = tuple[str, str]


def timed_schedule(platform, result, max_messages: int,
                   families=None, cuts: CutPool | None = None) -> tuple[Schedule, dict]:
    """A version 2 schedule with at most ``max_messages`` messages per period, from an
    exact optimum ``result``, with statistics.  Its ratio to the optimum is certified
    by ``result``'s prices.  Each family of :func:`tree_families` (``families`` when
    given: callers that try many M compute them once) is built on, and for short
    periods also counts chosen over the cuts (:func:`_from_cut_counts`; ``cuts``: the
    pool that callers trying many M share); the higher throughput is kept (the first
    on a tie)."""
    platform = as_platform(platform)
    if max_messages < 1:
        raise ValueError("max_messages must be >= 1")
    best = None
    for family in families or tree_families(platform, result):
        if best is not None and best[1][0].throughput == result.throughput:
            break   # the optimum itself: no family can do better (nor build it cheaper)
        if not family.trees:
            continue
        found = _timed_from(platform, result, family.trees, max_messages)
        if best is None or found[0].throughput > best[1][0].throughput:
            best = (family.name, found)
    if best[1][0].throughput < result.throughput:
        found = _from_cut_counts(platform, result, max_messages, cuts)
        if found is not None and found[0].throughput > best[1][0].throughput:
            best = (CUT_TREES, found)
    family, (schedule, messages, how) = best
    check_timetable(platform, schedule)
    loads = port_loads(platform, schedule.messages_per_link())
    stats = {"messages_target": messages, "trees": len(schedule.trees),
             "transfers": len(schedule.transfers), "largest_port_load": max(loads.values()),
             "ratio": schedule.throughput / result.throughput, "trees_from": family,
             "construction": how}
    return schedule, stats


#: Beyond this many nodes only the optimum's own trees are built on: a second family
#: doubles the work, and at 1000 nodes one takes 3.6 min of the 5 allowed (issue 17).
FAMILY_NODES = 300
#: The second family decomposes the cut method's rates scaled to about this many
#: messages (weighted branchings on exact rates with 180-digit denominators took 37 s
#: on a 65-node random platform; on these, 2 s).
FAMILY_MESSAGES = 4096


@dataclass
class TreeFamily:
    """A family of optimal trees with rates, named, built when first asked for
    (``trees``): the second family costs an LP and a packing that a first family at
    the optimum makes useless."""

    name: str
    build: Callable[[], list]

    @cached_property
    def trees(self) -> list[tuple[dict, Fraction]]:
        return self.build()


def tree_families(platform, result) -> list[TreeFamily]:
    """The optimum's trees (``result.trees``, or 002 Thm 5's weighted branchings of its
    rates when it has none) and, for a result with trees on at most
    :data:`FAMILY_NODES` nodes, also trees from the cut method's optimum (another
    optimal rate vector: the LP has many), :func:`rounded_branchings`.  Which family
    rounds and schedules better depends on the platform: on
    samples/simgrid/small_platform.json 0.887 from the column generation's trees and 1
    from the cut method's at every M; on samples/random-30.json at M = 10, 0.9997 and
    0.988."""
    families = [TreeFamily("the optimum's trees" if result.trees else "weighted branchings",
                           lambda: optimum_trees(platform, result))]
    if result.trees and len(platform.nodes) <= FAMILY_NODES:
        def from_cuts():
            cuts = optimal_throughput(platform, "cuts")
            return rounded_branchings(platform, cuts.n, cuts.throughput)

        families.append(TreeFamily("branchings of the cut method's optimum", from_cuts))
    return families


def rounded_branchings(platform, rates, optimum: Fraction) -> list[tuple[dict, Fraction]]:
    """Trees with rates summing to at most ``optimum`` from the link rates ``rates``
    (ours; 002 Thm 5): capacities floor(n_e·S) with S = ceil(FAMILY_MESSAGES / TP*),
    as many unit-weight arborescences as their root-connectivity k allows, grouped by
    :func:`~steady.schedule.branchings.weighted_branchings`, then re-weighted to a
    basic optimum of the tree master over them (:func:`steady.throughput.compact_trees`:
    ports and shared links respected, at most one tree per row).  Flooring keeps every
    capacity within n_e·S, so the rates w/S fit wherever n fits."""
    scale = max(1, math.ceil(FAMILY_MESSAGES / optimum))
    capacities = {arc: math.floor(x * scale) for arc, x in rates.items()}
    k = root_connectivity(platform, capacities)
    if k < 1:
        return []
    trees, scale = compact_trees(platform, weighted_branchings(platform, capacities, k),
                                 scale)
    return [(parent, Fraction(w, scale)) for parent, w in trees]


def _timed_from(platform, result, trees, max_messages: int):
    """(schedule, messages aimed at, how it was built) built on ``trees``."""
    optimum = result.throughput
    exact = (None if has_link_rows(platform)  # 002 §5.4.2's steps hold ports only
             else _exact_if_short(platform, trees, result, max_messages))
    if exact is not None:
        return exact, exact.messages_per_period, "exact optimum (002 §5.4.2), timed"
    messages, weights = best_packing(platform, trees, optimum, max_messages)
    transfers, period, how = timetable(platform, weights)
    if has_link_rows(platform):
        weights, transfers, period, how = _best_on_links(
            platform, trees, optimum, messages, (weights, transfers, period, how))
    return (_document(platform, weights, transfers, period, result), messages,
            f"rounded counts, tree packing, {how}")


#: Counts chosen over the cuts (:mod:`.counts`) are tried for periods of 2 to this
#: many messages, on platforms of at most :data:`CUT_ARCS` links without shared links:
#: a 65-node random platform (408 links) takes 1 to 10 s per N.  (One message per
#: period is one tree of least port load: the MILP is slow there and gained nothing.)
CUT_MESSAGES = 50
CUT_ARCS = 1000
#: The MILP's weights on the total work (:func:`.counts.cut_counts`): which counts the
#: list schedule then fits into their largest port load varies (at N = 24 on a 50-node
#: random platform, 0.9872 with 0 and 0.9986 with 0.01; at N = 19 on a 30-node one,
#: 1 and 0.9906), so both are tried.
CUT_SPREADS = (0.0, 0.01)
#: What ``trees_from`` says of a schedule built on those counts (not a tree family).
CUT_TREES = "spanning arborescences of the counts"
#: Rounds per priority rule when the list schedule fits counts chosen over the cuts
#: (:func:`_runs_plan`; :data:`LIST_ROUNDS` elsewhere).  Those counts are tight on
#: many ports, and the greedy's first rounds leave gaps that later rounds close: at
#: M = 19 on a 30-node random platform (seed 2) 8 rounds give 0.9963 and 40 give
#: exactly 1; `steady simulate` on 65-node meshes, seeds 2 and 3, goes from 0.9861
#: and 0.9891 of K·TP* to 0.9928 and 0.9916.  100 rounds gained nothing more there.
#: A run of ~1300 messages takes ~7 ms, and :data:`ROUND_PLACEMENTS` still bounds
#: the rounds' work.
CUT_ROUNDS = 40
#: Rounds per priority rule of the list schedule elsewhere, at most (:func:`timetable`).
LIST_ROUNDS = 8


def _from_cut_counts(platform, result, messages: int, cuts: CutPool | None):
    """(schedule, messages, how) on ``messages`` spanning arborescences packed into
    counts chosen over the cuts (:func:`.counts.cut_counts`, 002 Thm 5 for the
    packing), the best of :data:`CUT_SPREADS`, the ports' orders searched
    (:mod:`.order_search`: which of the two gains the most varies); None when they do
    not apply or give no counts."""
    if (not 2 <= messages <= CUT_MESSAGES or len(platform.arcs) > CUT_ARCS
            or has_link_rows(platform)):
        return None
    cuts = CutPool() if cuts is None else cuts
    best = None
    for spread in CUT_SPREADS:
        counts = cut_counts(platform, messages, cuts, spread)
        if counts is None:
            continue
        weights = _merged(weighted_branchings(platform, counts, messages))
        transfers, period, how = timetable(platform, weights, CUT_ROUNDS, search=True)
        schedule = _document(platform, weights, transfers, period, result)
        if best is None or schedule.throughput > best[0].throughput:
            best = (schedule, messages, f"counts chosen over the cuts, tree packing, {how}")
    return best


def searched_again(platform, schedule: Schedule, result,
                   effort: float = DEEP_SEARCH_TIME) -> Schedule | None:
    """``schedule`` (version 2, on counts chosen over the cuts) with its timetable's
    port orders searched again for longer (``effort``: the solver's deterministic time,
    :mod:`.order_search`), same trees; None when that ends no earlier, when its period
    is already the largest port load, or when the search does not apply (shared links,
    too many messages).  For callers that try many M cheaply and then spend on the few
    that could win (:func:`steady.simulate.choose.horizon_plan`)."""
    trees = [(entry.parent, entry.weight) for entry in schedule.trees]
    used = schedule.messages_per_link()
    if (has_link_rows(platform) or sum(used.values()) > SEARCH_SLOTS
            or schedule.period <= max(port_loads(platform, used).values())):
        return None
    transfers, period, _ = timetable(platform, trees, CUT_ROUNDS, True, effort)
    if period >= schedule.period:
        return None
    again = _document(platform, trees, transfers, period, result)
    check_timetable(platform, again)
    return again


def with_shorter_lags(platform, schedule: Schedule, result,
                      effort: float = LAG_SEARCH_TIME) -> Schedule | None:
    """``schedule`` (version 2) with its timetable searched again for a smaller
    pipelined warm-up W (:mod:`.lag_search`): same trees, period and ratio; None when
    W is no smaller, or the search does not apply (shared links, too many message
    slots).  For callers of finite horizons that spend on the few schedules that could
    win (:func:`steady.simulate.choose.horizon_plan`)."""
    if has_link_rows(platform):   # the search holds ports only
        return None
    trees = [(entry.parent, entry.weight) for entry in schedule.trees]
    unit = tick_unit(schedule)
    cost = {t.arc: int(platform.cost(*t.arc) * unit) for t in schedule.transfers}
    pieces = _pieces(schedule.transfers, unit)
    found = shorter_lags(platform.source, trees, cost, int(schedule.period * unit), pieces,
                         effort)
    if found is None or (warmup_periods(platform.source, trees, found, cost)
                         >= warmup_periods(platform.source, trees, pieces, cost)):
        return None
    transfers = sorted(_transfers(found, unit), key=lambda t: (t.start, t.tail, t.head))
    shorter = _document(platform, trees, transfers, schedule.period, result)
    check_timetable(platform, shorter)
    return shorter


def _best_on_links(platform, trees, optimum, messages: int, found):
    """With shared links the load bound that picks the weights misses how the links'
    shares combine in time (a transfer keeps its arc's speed), so the weights it
    prefers can schedule worse than the optimum's own rounded ones (samples/simgrid
    small_platform at M = 1000: 0.736 against 0.887): those, for the same number of
    messages, are list scheduled too, and the higher throughput N / period kept
    (``found``: (weights, transfers, period, how) so far)."""
    weights = integer_trees(platform, trees, optimum, messages)
    transfers, period, how = timetable(platform, weights)
    if sum(w for _, w in weights) * found[2] > sum(w for _, w in found[0]) * period:
        return weights, transfers, period, how
    return found


def optimum_trees(platform, result) -> list[tuple[dict, Fraction]]:
    """The optimum's trees with their rates: ``result.trees``, or for a result without
    trees (the cut method's) 002 Thm 5's weighted branchings of its rates."""
    weights, scale, _ = branching_trees(platform, result)
    return [(dict(parent), Fraction(w, scale)) for parent, w in weights]


def _exact_if_short(platform, trees, result, most: int) -> Schedule | None:
    """The exact optimal schedule of 002 §5.4.2 in timed form, when its period holds at
    most ``most`` messages (then the ratio is 1); None otherwise.  Cheap to rule out:
    its messages per period are a multiple of N·TP* (N: the rates' common denominator)."""
    scale = lcm_of_denominators(rate for _, rate in trees)
    weights = [(parent, int(rate * scale)) for parent, rate in trees]
    if sum(w for _, w in weights) > most:
        return None
    exact = periodic_schedule(platform, weights, scale,
                              PriceCertificate.of(result.certificate))
    if exact.messages_per_period > most:
        return None
    return replace(timed(exact), extra={"optimum": result.throughput,
                                        "ratio": exact.throughput / result.throughput})


# -- 1. integer counts ------------------------------------------------------------

def link_rates(trees) -> dict[Arc, Fraction]:
    """n_e = sum of the rates of the trees through each link (summed over a common
    denominator: Fraction additions dominated at 100 nodes)."""
    trees = list(trees)
    scale = lcm_of_denominators(rate for _, rate in trees)
    sums: dict[Arc, int] = {}
    for parent, rate in trees:
        k = int(rate * scale)
        for child, par in parent.items():
            sums[(par, child)] = sums.get((par, child), 0) + k
    return {arc: Fraction(k, scale) for arc, k in sums.items()}


def rounded_counts(rates, optimum: Fraction, messages: int) -> dict[Arc, int]:
    """ceil(n_e·N/TP*): every cut keeps >= N (proofs/timed-schedule.md)."""
    return {arc: math.ceil(rate * messages / optimum) for arc, rate in rates.items()}


def port_loads(platform, counts) -> dict[tuple[str, str], Fraction]:
    """Busy time per period of every port, {("out"|"in", node): time}, under counts;
    and of every shared network link routes cross, {("link", id): time} (issue 19: a
    timetable holds it at most its capacity at every instant, so at most the period),
    and of each link's transfers that cannot overlap, {("conflict", id): time}
    (:func:`steady.network.rows.conflicting_arcs`)."""
    loads: dict[tuple[str, str], Fraction] = {}
    for (u, v), k in counts.items():
        t = k * platform.cost(u, v)
        loads[("out", u)] = loads.get(("out", u), Fraction(0)) + t
        loads[("in", v)] = loads.get(("in", v), Fraction(0)) + t
    for lid, t in link_loads(platform, counts).items():
        loads[("link", lid)] = t
    for lid, arcs in conflicting_arcs(platform).items():
        loads[("conflict", lid)] = sum((counts.get(a, 0) * platform.cost(*a) for a in arcs),
                                       Fraction(0))
    return loads


#: Values of N that :func:`message_counts` scores at most (evenly spread over the top
#: tenth of 1..M): its work bound.
COUNT_CANDIDATES = 32


def message_counts(platform, trees, optimum: Fraction, most: int, keep: int = 8) -> list[int]:
    """The ``keep`` values N <= ``most`` whose rounded counts promise the best ratios
    N / (TP*·largest port load), best first (larger N on ties); candidates: the top
    tenth of 1..most, at most :data:`COUNT_CANDIDATES` of them."""
    rates = link_rates(trees)
    scored = []
    low = max(1, most - most // 10 - 1)
    step = max(1, (most - low) // COUNT_CANDIDATES)
    for n in range(most, low - 1, -step):
        load = max(port_loads(platform, rounded_counts(rates, optimum, n)).values())
        scored.append((-Fraction(n) / load, -n))
    scored.sort()
    return [-n for _, n in scored[:keep]]


def best_packing(platform, trees, optimum: Fraction, most: int):
    """(N, integer trees): the rounded counts' best packing among the promising N of
    :func:`message_counts` (by the ratio their trees reach at their own largest port
    load: the rounding often leaves room), then improved by the bounded Dinkelbach
    search of :mod:`.packing` over the same trees and the optimum's."""
    best = None
    for n in message_counts(platform, trees, optimum, most):
        weights = integer_trees(platform, trees, optimum, n, residual=False)
        ratio = exact_ratio(platform, weights, optimum)
        if best is None or ratio > best[0]:
            best = (ratio, n)
    # the residual packing (max-flows) only for the best N: it is the costly part
    packed = integer_trees(platform, trees, optimum, best[1])
    pool = _merged([(parent, 0) for parent, _ in trees] + packed)
    parents = [parent for parent, _ in pool]
    improved = dinkelbach_weights(platform, parents, optimum, most, [w for _, w in pool])
    weights = [(parent, w) for parent, w in zip(parents, improved) if w > 0]
    return sum(w for _, w in weights), weights


# -- 2. integer trees -------------------------------------------------------------

def integer_trees(platform, trees, optimum: Fraction, messages: int,
                  residual: bool = True) -> list[tuple[dict, int]]:
    """Trees with positive integer weights summing to at most ``messages`` whose link
    usage fits the rounded counts (step 2 of the module docstring); without
    ``residual``, the optimum's trees only (no packing of the remaining capacities)."""
    capacity = rounded_counts(link_rates(trees), optimum, messages)
    shares = [(parent, rate * messages / optimum) for parent, rate in trees]
    weights = [math.floor(share) for _, share in shares]
    used = _usage([(parent, w) for (parent, _), w in zip(shares, weights)])
    missing = messages - sum(weights)
    by_remainder = sorted(range(len(shares)), key=lambda l: shares[l][1] - weights[l],
                          reverse=True)
    for l in by_remainder:
        if missing == 0:
            break
        arcs = [(p, c) for c, p in shares[l][0].items()]
        if all(used.get(a, 0) < capacity[a] for a in arcs):
            weights[l] += 1
            missing -= 1
            for a in arcs:
                used[a] = used.get(a, 0) + 1
    packed = [(dict(parent), w) for (parent, _), w in zip(shares, weights) if w > 0]
    if missing and residual:
        left = {a: capacity[a] - used.get(a, 0) for a in capacity}
        extra = min(missing, root_connectivity(platform, left))
        if extra:
            packed += weighted_branchings(platform, left, extra)
    return _merged(packed)


def _merged(trees) -> list[tuple[dict, int]]:
    """Identical trees joined, weights added; first appearance order."""
    index: dict[frozenset, int] = {}
    out: list[tuple[dict, int]] = []
    for parent, w in trees:
        key = frozenset(parent.items())
        if key in index:
            p, old = out[index[key]]
            out[index[key]] = (p, old + w)
        else:
            index[key] = len(out)
            out.append((parent, w))
    return out


def _usage(trees) -> dict[Arc, int]:
    used: dict[Arc, int] = {}
    for parent, w in trees:
        for child, par in parent.items():
            used[(par, child)] = used.get((par, child), 0) + w
    return used


# -- 3. the timetable ---------------------------------------------------------------

def list_schedule(platform, trees) -> tuple[list[TimedTransfer], Fraction]:
    """(transfers, period) of :func:`timetable`."""
    transfers, period, _ = timetable(platform, trees)
    return transfers, period


def timetable(platform, trees, most_rounds: int = LIST_ROUNDS, search: bool = False,
              effort: float = SEARCH_TIME) -> tuple[list[TimedTransfer], Fraction, str]:
    """The period's timetable of the trees' messages (step 3): (transfers, period, how:
    "list schedule", "list schedule, port orders searched" or "rounds on shared
    links").  Greedy list schedule: each
    priority rule of :data:`PRIORITIES` runs a few rounds (:func:`_runs_plan`: at most
    ``most_rounds``), a port that ended after the largest port load gaining that much
    priority in the next round;
    the shortest period wins (then the fewest transfers, within a budget); with shared
    links and equal costs, rounds (:func:`_link_rounds`) when they end earlier; with
    ``search`` and no shared links, the port orders searched by CP-SAT
    (:mod:`.order_search`, ``effort``: its deterministic time) when the list schedule
    ends after the largest port load and the search ends earlier."""
    used = _usage(trees)
    unit = lcm_of_denominators(platform.cost(*arc) for arc in used)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in used}
    per_tree = {arc: [] for arc in used}
    for l, (parent, w) in enumerate(trees):
        for child, par in parent.items():
            per_tree[(par, child)].append((l, w))
    messages = sum(w for _, w in trees)
    budget = 4 * messages + len(used)  # runs: keeps files within ~300 bytes per message
    # makespans are whole ticks: a shared link's load may not be
    lower = math.ceil(max(port_loads(platform, used).values()) * unit)
    links = link_shares(platform, used)
    best = None
    rules, rounds, chunk = _runs_plan(sum(used.values()), most_rounds)
    # with shared links, each rule also runs with the links' work in its priority
    plans = [(key, stick, first) for first in ((False, True) if links else (False,))
             for key, stick in PRIORITIES]
    for key, stick, link_first in plans[:rules]:
        if best is not None and best[0] == lower:
            break
        boost: dict[tuple[str, str], int] = {}
        for _ in range(rounds):
            runs = _greedy_runs(used, cost, key, boost, stick, chunk, links, link_first)
            ends = _port_ends(runs, cost)
            makespan = max(ends.values())
            pieces = sum(len(rs) for rs in runs.values())
            if best is None or (pieces <= budget and (makespan, pieces) < best[:2]):
                best = (makespan, pieces, runs)
            if best[0] == lower:  # the largest port load: nothing can be shorter
                break
            for port, end in ends.items():  # ports that ended late go first next round
                if end > lower:
                    boost[port] = boost.get(port, 0) + end - lower
    how = "list schedule"
    if search and not links and best[0] > lower:
        runs = searched_runs(used, cost, lower, best[2], effort)
        if runs is not None:
            makespan = max(_port_ends(runs, cost).values())
            pieces = sum(len(rs) for rs in runs.values())
            # one transfer per message at most: beyond the budget of the greedy's
            # merged runs, but the search holds at most SEARCH_SLOTS messages
            if makespan < best[0]:
                best, how = (makespan, pieces, runs), "list schedule, port orders searched"
    if links and best[0] > lower:
        rounds = _link_rounds(used, cost, links, best[0])
        if rounds is not None:
            best, how = rounds, "rounds on shared links"
    makespan, _, runs = best
    transfers = []
    for arc, arc_runs in runs.items():
        transfers += _split_by_tree(arc, arc_runs, per_tree[arc], cost[arc], unit)
    if not links:  # the tree-following schedule holds ports only
        transfers = _following_trees(platform.source, trees, transfers, cost, unit,
                                     makespan, lower, budget)
    transfers.sort(key=lambda t: (t.start, t.tail, t.head))
    return transfers, Fraction(makespan, unit), how


def _link_rounds(used, cost, links, makespan: int):
    """(makespan, pieces, runs) of a timetable in rounds (:mod:`.rounds`) when every
    used link costs the same and its rounds end before ``makespan``; else None.  Rounds
    that share arcs are put next to each other, so that their transfers merge."""
    if len(set(cost.values())) != 1:
        return None
    c = next(iter(cost.values()))
    parts, capacity = integer_shares(links)
    need = rounds_needed(used, parts, capacity)
    if need * c >= makespan:
        return None
    found = link_rounds(used, parts, capacity, need)
    if found is None:
        return None
    runs: dict[Arc, list] = {arc: [] for arc in used}
    for i, arcs in enumerate(_chained(found)):
        for arc in sorted(arcs):
            extend_runs(runs[arc], i * c, 1, c)
    return need * c, sum(map(len, runs.values())), runs


#: Rounds that :func:`_chained` orders (its work grows with their square).
CHAIN_ROUNDS = 1_000


def _chained(rounds: list[set]) -> list[set]:
    """The rounds in an order where each shares the most arcs with the one before
    (greedy; up to :data:`CHAIN_ROUNDS` rounds, else as they are)."""
    if len(rounds) > CHAIN_ROUNDS:
        return rounds
    left = list(range(1, len(rounds)))
    order = [0]
    while left:
        last = rounds[order[-1]]
        i = max(range(len(left)), key=lambda j: (len(last & rounds[left[j]]), -j))
        order.append(left.pop(i))
    return [rounds[i] for i in order]


#: Slack (fractions of the largest port load) under which a port pair of the tree-following
#: list schedule stops waiting for a ready message; each is tried.
TREE_SLACKS = (Fraction(1, 10), Fraction(3, 10))


def _following_trees(source, trees, transfers, cost, unit: int, makespan: int,
                     lower: int, budget: int) -> list[TimedTransfer]:
    """``transfers``, or a timetable with the same period and a shorter pipelined
    warm-up (:mod:`.tree_order`): the tree-following list schedule, and for it and for
    ``transfers`` the slots of each link given to the trees whose messages have
    arrived; with at most ``budget`` transfers, or twice as many as ``transfers`` (both
    cut links' runs where the tree changes).  Beyond :data:`RELABEL_SLOTS` message
    slots per period (1000-node platforms) it keeps ``transfers`` without looking."""
    slots = sum(w * len(parent) for parent, w in trees)
    if slots > RELABEL_SLOTS:
        return transfers
    pieces = _pieces(transfers, unit)
    options = [pieces]
    if slots <= LIST_SLOTS:
        options += [tree_list_schedule(source, trees, cost, lower, int(slack * lower))
                    for slack in TREE_SLACKS]
    most = max(budget, 2 * len(transfers))
    best, warmup = pieces, warmup_periods(source, trees, pieces, cost)
    for option in options:
        end = max(s + n * cost[arc] for (_, arc), runs in option.items() for s, n in runs)
        if end > makespan:
            continue
        found = [follow_arrivals(source, trees, _slots(option, cost), cost)]
        if option is not pieces:   # the plain one's W is known already
            found.append((warmup_periods(source, trees, option, cost), option))
        for w, timetable in filter(None, found):
            if w < warmup and sum(map(len, timetable.values())) <= most:
                best, warmup = timetable, w
    if best is pieces:
        return transfers
    return _transfers(best, unit)


def _pieces(transfers, unit: int) -> dict:
    """{(tree, arc): [[start, messages], ...]}: ``transfers`` in ticks (1/``unit``), in
    order of start."""
    pieces: dict = {}
    for t in transfers:
        pieces.setdefault((t.tree, t.arc), []).append([int(t.start * unit), t.messages])
    for runs in pieces.values():
        runs.sort()
    return pieces


def _transfers(pieces: dict, unit: int) -> list[TimedTransfer]:
    """The transfers of ``pieces`` (:func:`_pieces`), back in time units."""
    return [TimedTransfer(arc[0], arc[1], l, n, Fraction(s, unit))
            for (l, arc), runs in pieces.items() for s, n in runs]


def _slots(pieces, cost) -> dict[Arc, list[int]]:
    """Per link, the start ticks of its message slots, in order."""
    slots: dict[Arc, list[int]] = {}
    for (_, arc), runs in pieces.items():
        slots.setdefault(arc, []).extend(s + k * cost[arc] for s, n in runs for k in range(n))
    for starts in slots.values():
        starts.sort()
    return slots


def link_shares(platform, used) -> dict[Arc, list[tuple[str, Fraction]]]:
    """{arc: [(shared link id, c_l / c_arc), ...]} for the arcs of ``used`` whose route
    crosses shared network links (issue 19): the part of each link's capacity a
    transfer on the arc holds while it runs.  Empty without shared links."""
    out: dict[Arc, list] = {}
    for link in shared_links(platform):
        lid = link.id
        for arc in platform.network.crossing(lid):
            if arc in used:
                share = link.cost / platform.cost(*arc)
                if share > 1:
                    raise InputError("<platform>", f"network link {lid}",
                                     f"one transfer over {arc[0]}->{arc[1]} needs "
                                     f"{share} of its capacity: an arc's cost is at least "
                                     f"the cost of each link on its route")
                out.setdefault(arc, []).append((lid, share))
    return out


def integer_shares(links) -> tuple[dict, dict[str, int]]:
    """:func:`link_shares` in integers: each link's shares times the least common
    denominator of its shares, which becomes its capacity (exact, and fast to add)."""
    scale: dict[str, int] = {}
    for shares in links.values():
        for lid, share in shares:
            scale[lid] = math.lcm(scale.get(lid, 1), Fraction(share).denominator)
    return ({arc: [(lid, int(share * scale[lid])) for lid, share in shares]
             for arc, shares in links.items()}, scale)


def link_full(arc, parts: dict, in_use: dict, capacity: dict) -> bool:
    """Whether a shared link on ``arc``'s route lacks room for one more transfer on it
    (``parts``, ``capacity``: :func:`integer_shares`; ``in_use``: capacity held by the
    transfers in progress)."""
    return any(in_use.get(lid, 0) + share > capacity[lid]
               for lid, share in parts.get(arc, ()))


def _greedy_runs(used: dict[Arc, int], cost: dict[Arc, int], key=None,
                 boost=None, stick: bool = False, chunk: int = 1,
                 links=None, link_first: bool = False) -> dict[Arc, list]:
    """{arc: [[start, messages], ...]} in integer time units: ``chunk`` messages at a
    time (fewer when fewer are left) on matched idle port pairs, by ``key`` of the two
    ports' remaining work (plus ``boost``; plus one chunk's work for a link that is
    sending when ``stick``); on ties the link that just sent goes on (fewer, longer
    transfers); a chunk that follows the previous one on its link extends that run.
    With ``links`` (:func:`link_shares`) a chunk also waits until every shared link on
    its route has room for it (the transfers in progress use at most its capacity);
    with ``link_first`` too, the remaining work of a shared link on the route counts as
    the receiving port's when it is larger."""
    key = key or busier_port
    boost = boost or {}
    left = dict(used)
    work_out: dict[str, int] = {}
    work_in: dict[str, int] = {}
    live_out: dict[str, list] = {}  # links with messages left, by tail and by head
    live_in: dict[str, list] = {}
    for (u, v), k in sorted(used.items()):
        work_out[u] = work_out.get(u, 0) + k * cost[(u, v)]
        work_in[v] = work_in.get(v, 0) + k * cost[(u, v)]
        live_out.setdefault(u, []).append((u, v))
        live_in.setdefault(v, []).append((u, v))
    idle_out, idle_in = set(work_out), set(work_in)
    freed: dict[int, list] = {}  # time -> ports that become idle then
    runs: dict[Arc, list] = {arc: [] for arc in used}
    events = [0]
    pending = sum(left.values())
    links, capacity = integer_shares(links or {})
    in_use: dict[str, int] = {}  # shared link -> capacity held by running transfers
    work_link: dict[str, int] = {}  # shared link -> work left, in ticks x its capacity
    for arc, shares in links.items():
        for lid, share in shares:
            work_link[lid] = work_link.get(lid, 0) + used[arc] * cost[arc] * share
    while pending:
        t = heapq.heappop(events)
        for side, node in freed.pop(t, ()):
            if side == "link":
                for lid, share in links[node]:
                    in_use[lid] -= share
            else:
                (idle_out if side == "out" else idle_in).add(node)
        candidates = []
        if len(idle_out) <= len(idle_in):
            pairs = (arc for u in idle_out for arc in live_out[u] if arc[1] in idle_in)
        else:
            pairs = (arc for v in idle_in for arc in live_in[v] if arc[0] in idle_out)
        for arc in pairs:
            u, v = arc
            last = runs[arc][-1] if runs[arc] else None
            going_on = last is not None and last[0] + last[1] * cost[arc] == t
            extra = min(chunk, left[arc]) * cost[arc] if going_on and stick else 0
            inward = work_in[v] + boost.get(("in", v), 0)
            if link_first and arc in links:  # a busy shared link counts like a busy port
                inward = max(inward, max(work_link[lid] // capacity[lid]
                                         for lid, _ in links[arc]))
            candidates.append((key(work_out[u] + boost.get(("out", u), 0) + extra,
                                   inward + extra),
                               not going_on, arc))
        candidates.sort()
        for _, _, arc in candidates:
            u, v = arc
            if u not in idle_out or v not in idle_in:
                continue
            if link_full(arc, links, in_use, capacity):
                continue  # a link in use ends a transfer later: an event comes
            k = min(chunk, left[arc])
            c = cost[arc]
            end = t + k * c
            left[arc] -= k
            pending -= k
            work_out[u] -= k * c
            work_in[v] -= k * c
            for lid, share in links.get(arc, ()):
                work_link[lid] -= k * c * share
            if not left[arc]:
                live_out[u].remove(arc)
                live_in[v].remove(arc)
            idle_out.discard(u)
            idle_in.discard(v)
            if end not in freed:
                freed[end] = []
                heapq.heappush(events, end)
            freed[end] += [("out", u), ("in", v)]
            if arc in links:
                for lid, share in links[arc]:
                    in_use[lid] = in_use.get(lid, 0) + share
                freed[end].append(("link", arc))
            extend_runs(runs[arc], t, k, c)
        if pending and not events:  # pragma: no cover - a free pair always exists
            raise AssertionError("list schedule stalled with messages left")
    return runs


#: Placements one list-schedule run may make: beyond, a placement carries several
#: messages (~2 s of Python per run on the reference machine).
RUN_PLACEMENTS = 400_000
#: Placements of all runs together: the work bound of step 3.
ALL_PLACEMENTS = 1_200_000
#: Extra rounds per priority rule while their placements stay within this budget.
ROUND_PLACEMENTS = 150_000


def _runs_plan(sends: int, most_rounds: int = LIST_ROUNDS) -> tuple[int, int, int]:
    """(priority rules, rounds per rule, messages per placement) for ``sends`` message
    transmissions per period: single messages up to :data:`RUN_PLACEMENTS` per run,
    chunks beyond; up to ``most_rounds`` rounds per rule while they fit
    :data:`ROUND_PLACEMENTS`; as many rules as :data:`ALL_PLACEMENTS` allows (at least
    one)."""
    chunk = -(-sends // RUN_PLACEMENTS)
    placements = -(-sends // chunk)
    rules = max(1, min(2 * len(PRIORITIES), ALL_PLACEMENTS // placements))
    return rules, max(1, min(most_rounds, ROUND_PLACEMENTS // max(1, sends))), chunk


def _port_ends(runs, cost) -> dict[tuple[str, str], int]:
    """When each port's last transfer ends (``runs`` as :func:`_greedy_runs` gives)."""
    ends: dict[tuple[str, str], int] = {}
    for (u, v), rs in runs.items():
        for start, count in rs[-1:]:
            end = start + count * cost[(u, v)]
            ends[("out", u)] = max(ends.get(("out", u), 0), end)
            ends[("in", v)] = max(ends.get(("in", v), 0), end)
    return ends


def _both_ports(out_work: int, in_work: int):
    """Priority of a free port pair: the two ports' remaining work together, most first
    (on the samples it idles a tight port less often than :func:`busier_port` when
    many ports are tight; neither is better everywhere, so both are tried)."""
    return -(out_work + in_work)


#: The list schedule's priority rules, each tried (step 3): (key, stick); with ``stick``
#: a link that is sending counts one more message of work, so it tends to go on (fewer,
#: longer transfers).  Each of the four is the best on some sample platforms.
PRIORITIES = ((busier_port, False), (_both_ports, True), (_both_ports, False),
              (busier_port, True))


def _split_by_tree(arc, runs, trees, cost: int, unit: int) -> list[TimedTransfer]:
    """The arc's runs cut into one transfer per (run, tree) piece, trees poured in order."""
    out = []
    queue = [list(t) for t in trees]
    for start, count in runs:
        at = start
        while count:
            tree = queue[0]
            piece = min(count, tree[1])
            out.append(TimedTransfer(arc[0], arc[1], tree[0], piece, Fraction(at, unit)))
            at += piece * cost
            count -= piece
            tree[1] -= piece
            if tree[1] == 0:
                queue.pop(0)
    return out


# -- the document and its postcondition -------------------------------------------------

def _document(platform, trees, transfers, period: Fraction, result) -> Schedule:
    messages = sum(w for _, w in trees)
    throughput = Fraction(messages) / period
    extra = {"optimum": result.throughput, "ratio": throughput / result.throughput}
    return Schedule(platform, throughput, period, messages,
                    tuple(TreeEntry.from_parent(p, w) for p, w in trees), (), extra,
                    PriceCertificate.of(result.certificate), tuple(transfers), TIMED)


def check_timetable(platform, schedule: Schedule) -> None:
    """Runtime postcondition, exact and cheap: every tree edge carries its weight, each
    port's intervals are disjoint inside [0, period], the period is at least the
    largest port load and the ratio is at most 1."""
    carried: dict[tuple[int, Arc], int] = {}
    ports: dict[tuple[str, str], list] = {}
    for t in schedule.transfers:
        carried[(t.tree, t.arc)] = carried.get((t.tree, t.arc), 0) + t.messages
        end = t.start + t.messages * platform.cost(*t.arc)
        if t.start < 0 or end > schedule.period:
            raise AssertionError(f"postcondition: transfer {t} leaves the period")
        ports.setdefault(("out", t.tail), []).append((t.start, end))
        ports.setdefault(("in", t.head), []).append((t.start, end))
    for l, tree in enumerate(schedule.trees):
        for edge in tree.edges:
            if carried.get((l, edge), 0) != tree.weight:
                raise AssertionError(f"postcondition: tree {l} edge {edge} carries "
                                     f"{carried.get((l, edge), 0)} != {tree.weight}")
    for port, intervals in ports.items():
        intervals.sort()
        if any(a[1] > b[0] for a, b in zip(intervals, intervals[1:])):
            raise AssertionError(f"postcondition: port {port} serves two transfers at once")
    _check_link_use(platform, schedule)
    loads = port_loads(platform, schedule.messages_per_link())
    if schedule.period < max(loads.values()):  # pragma: no cover - by construction
        raise AssertionError("postcondition: period below the largest port load")
    if schedule.extra["ratio"] > 1:
        raise AssertionError("postcondition: ratio above 1: the optimum is not an optimum")


def _check_link_use(platform, schedule: Schedule) -> None:
    """Postcondition (issue 19's rule for a timetable): at every instant the transfers
    in progress through a shared link hold at most its capacity."""
    shares = link_shares(platform, schedule.messages_per_link())
    changes: dict[str, list] = {}
    for t in schedule.transfers:
        end = t.start + t.messages * platform.cost(*t.arc)
        for lid, share in shares.get(t.arc, ()):
            changes.setdefault(lid, []).extend([(end, -share), (t.start, share)])
    for lid, items in changes.items():
        use = Fraction(0)
        for _, change in sorted(items):  # at one instant the ends (< 0) come first
            use += change
            if use > 1:
                raise AssertionError(f"postcondition: shared link {lid} over capacity")
