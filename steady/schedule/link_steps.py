"""Steps that fit the network's shared links (ours, issue 19; builds on 002 §5.3-§5.4.2).

On a platform with shared network links, the weighted trees of an optimum (002 Thm 5)
still exist -- the link rows are part of the LP -- but the bipartite edge colouring of
002 Thm 6 no longer gives valid steps: a matching keeps one-port, yet the transfers of
one step may together push more through a backbone than it carries.  A step here is a
*configuration*: a matching M of arcs and, for each arc e of M, the fraction x_e in
(0, 1] of the step during which e sends, such that every shared link l is not
overloaded:  sum over e in M crossing l of  x_e · c_l / c_e  <= 1  (a transfer runs at
its arc's speed 1/c_e and so uses c_l / c_e of l).  Then the step rule of steady verify
holds: the step's messages through l take sum messages x c_l <= its duration.

Which configurations, and for how long?  The *configuration LP* over the per-period
message counts m_e of the integer trees:

    minimise  sum_S θ_S   s.t.  sum_S θ_S · x_{S,e} / c_e  >=  m_e   for every arc e

is solved by column generation: its duals π_e price arcs, and a configuration improves
the master when sum_e π_e x_e / c_e > 1.  The fractions x of a matching are not free:
they are its *max-min fair* shares (:func:`max_min`), the sharing SimGrid's CM02 model
applies, so that each step, started all at once, runs in SimGrid exactly as planned
(fractions that merely fit the links would be shared differently by SimGrid and run
late: measured 0.88 of the prediction on a dragonfly).  Pricing searches matchings
(a maximum-weight matching of the prices, greedy ones); the starting columns are the
arcs alone and the matchings of 002 Thm 6.  Floats only search: every column's
fractions are computed exactly, the final master is solved exactly, and whatever the
search reached, the configurations found give a valid schedule.

The period sum θ_S is >= the LP bound's (the largest port or link load); the achieved
throughput's ratio to the optimum is certified by the optimum's prices (steady verify).
Integer messages: as 002 eq. (20) does with s, all counts are scaled by the smallest s
that makes every step's messages integers; each arc's messages are then poured into its
steps tree by tree (002 §5.4.2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from fractions import Fraction

from ..exact.lp import EQ, LinearProgram
from ..numbers import lcm_of_denominators
from ..schedule_file import PriceCertificate, Schedule, Step, Transfer, TreeEntry
from ..platform import Platform
from ..throughput import compact_trees, throughput
from .branchings import weighted_branchings
from .counts import usage
from .matchings import pour, weighted_edge_coloring

Arc = tuple[str, str]
_TOLERANCE = 1e-9
#: Deterministic bounds on the float search (the exact way out is the master as it
#: stands): pricing rounds, and columns the pricing adds; the SimGrid samples stop by
#: themselves below both (benchmarks/figures-41.md).
MAX_ROUNDS = 400
MAX_COLUMNS = 3000


@dataclass
class _Arcs:
    """The arcs that carry messages, with what a configuration needs to know."""

    arcs: list
    cost: list          # c_e, exact
    tail: list
    head: list
    links: list         # per arc: [(link index, c_l / c_e exact)]
    link_ids: list


def _used_arcs(platform, m: dict) -> _Arcs:
    arcs = [arc for arc in platform.arcs if m.get(arc, 0) > 0]
    network = platform.network
    ids: dict[str, int] = {}
    per_arc = []
    for arc in arcs:
        entries = []
        if network is not None:
            cost = platform.cost(*arc)
            for link in network.shared_route(*arc):
                k = ids.setdefault(link.id, len(ids))
                entries.append((k, link.cost / cost))
        per_arc.append(entries)
    return _Arcs(arcs, [platform.cost(*a) for a in arcs], [a[0] for a in arcs],
                 [a[1] for a in arcs], per_arc, list(ids))


def network_trees(platform, result) -> tuple[list[tuple[dict, int]], int]:
    """Integer tree weights at scale N for ``result`` (as 002 Thm 5): the trees of the
    column generation, or the weighted branchings of the rates, compacted."""
    if result.trees:
        scale = lcm_of_denominators(rate for _, rate in result.trees)
        return [(dict(p), int(rate * scale)) for p, rate in result.trees], scale
    scale = lcm_of_denominators(list(result.n.values()) + [result.throughput])
    capacities = {arc: int(x * scale) for arc, x in result.n.items()}
    built = weighted_branchings(platform, capacities, int(result.throughput * scale))
    return compact_trees(platform, built, scale)


def network_schedule(platform, result, periodic=None,
                     rounds: int = MAX_ROUNDS) -> tuple[Schedule, dict]:
    """A version 1 schedule whose steps fit the shared links, for an exact optimum
    ``result`` of the platform with its link rows; statistics include ``ratio``, the
    throughput's ratio to the optimum (certified by ``result``'s prices in verify).

    The best of three constructions, each of whose steps SimGrid runs as planned:
    the configuration LP (above); and, when ``periodic`` -- 002 §5.4.2's construction,
    :func:`steady.schedule.periodic.periodic_schedule` -- is given, its steps for the
    link-aware trees and for the one-port optimum's trees, each step *stretched* to the
    time its transfers take under max-min sharing (:func:`fluid_duration`): a step then
    fits its links by construction (a link carries at most its capacity all along).
    Every candidate is built and scored exactly (a float score can prefer a schedule
    whose period is a rounded double); the first of the best throughputs wins.
    ``rounds``: the pricing rounds of the configuration LP's search at most."""
    start = time.perf_counter()
    cert = PriceCertificate.of(result.certificate)
    trees, scale = network_trees(platform, result)
    candidates = [("configuration LP over max-min steps", trees, None)]
    if periodic is not None:
        candidates.append(("002 §5.4.2 steps of the link-aware trees, stretched", trees,
                           scale))
        plain = Platform(platform.source, platform.links, platform.nodes, platform.name)
        plain_trees, plain_scale = network_trees(plain, throughput(plain, "trees"))
        candidates.append(("002 §5.4.2 steps of the one-port trees, stretched",
                           plain_trees, plain_scale))
    scored, search = [], {}
    for name, weights, n in candidates:
        if n is None:
            m = usage(weights)
            used = _used_arcs(platform, m)
            configs, theta, search = step_configurations(used, m, rounds)
            schedule = _schedule(platform, used, weights, m, configs, theta, cert)
        else:
            schedule = _stretched(platform, periodic(platform, weights, n, cert))
        scored.append((schedule.throughput, name, schedule))
    _, name, schedule = max(scored, key=lambda item: item[0])   # exact; the first best
    schedule = _claims(schedule, result.throughput)
    check_network_steps(platform, schedule)
    ratio = schedule.throughput / result.throughput
    if ratio > 1:
        raise AssertionError("postcondition: the steps beat the optimum")
    stats = {"trees": len(schedule.trees), "trees_built": len(schedule.trees),
             "construction": name, "matchings": len(schedule.steps),
             "steps": len(schedule.steps), "ratio": ratio,
             "candidates": {label: tp / result.throughput for tp, label, _ in scored},
             "seconds": round(time.perf_counter() - start, 3),
             "tree_bound": len(platform.nodes) ** 3 + len(platform.links),
             "matching_bound": len(platform.links), "basis_bound": 2 * len(platform.nodes) - 1}
    stats.update(search)
    return schedule, stats


# -- 002's steps, stretched -----------------------------------------------------------

def fluid_duration(used: _Arcs, load: dict, number=Fraction):
    """The time a step's transfers {arc index: messages}, started together, take under
    max-min sharing (SimGrid's CM02 with equal weights): progressive filling until the
    first transfer ends, again with the others, and so on.  Exact with Fractions."""
    left = {e: number(k) for e, k in load.items() if k}
    elapsed = number(0)
    while left:
        x = max_min(used, sorted(left), number)
        rates = {e: x[e] / number(used.cost[e]) for e in left}
        dt = min(left[e] / rates[e] for e in left)
        elapsed += dt
        for e in list(left):
            left[e] -= rates[e] * dt
            if left[e] <= (0 if number is Fraction else 1e-9 * load[e]):
                del left[e]
    return elapsed


def _stretched(platform, schedule: Schedule) -> Schedule:
    """The schedule with every step lasting what its transfers take under max-min
    sharing (never less than planned: a contention-free step keeps its duration),
    exactly."""
    arcs = sorted({t.arc for t in schedule.all_transfers()})
    used = _used_arcs(platform, {arc: 1 for arc in arcs})
    index = {arc: e for e, arc in enumerate(used.arcs)}
    steps = []
    for step in schedule.steps:
        load: dict[int, int] = {}
        for t in step.transfers:
            load[index[t.arc]] = load.get(index[t.arc], 0) + t.messages
        duration = max(step.duration, fluid_duration(used, load, Fraction))
        steps.append(Step(duration, step.transfers))
    period = sum((st.duration for st in steps), Fraction(0))
    return replace(schedule, steps=tuple(steps), period=period,
                   throughput=Fraction(schedule.messages_per_period) / period)


# -- the configuration LP -----------------------------------------------------------

def step_configurations(used: _Arcs, m: dict, rounds: int = MAX_ROUNDS):
    """(configurations {arc index: x}, their exact durations θ, search statistics):
    an exact optimum of the configuration LP over the columns the search found.  Every
    configuration is a matching with its max-min fair fractions (:func:`max_min`).
    The search is bounded by work, not time: at most ``rounds`` pricing rounds and
    :data:`MAX_COLUMNS` columns added by them (the same columns on any machine)."""
    demand = [m[arc] * c for arc, c in zip(used.arcs, used.cost)]  # time per period
    unit = max(demand)
    lp = LinearProgram("steps", "columns")
    # equalities, not >=: a transfer cut short would change the others' max-min shares
    # (max-min is not monotone: a flow leaving a link can slow a flow elsewhere)
    rows = [lp.add_row({}, EQ, d / unit, f"arc {u}->{v}")
            for d, (u, v) in zip(demand, used.arcs)]
    configs: list[dict] = []
    known: set = set()

    def add(support) -> bool:
        key = frozenset(support)
        if not key or key in known:
            return False
        known.add(key)
        config = max_min(used, sorted(key), Fraction)
        configs.append(config)
        lp.add_variable(f"S{len(configs) - 1}", objective=-1,
                        column={rows[e]: x for e, x in config.items()})
        return True

    for e in range(len(used.arcs)):             # each arc alone: always feasible
        add([e])
    for support in _colour_classes(used, demand):  # 002 Thm 6's matchings, max-min
        add(support)
    begin = time.perf_counter()
    first, done = len(configs), 0
    while done < rounds and len(configs) - first < MAX_COLUMNS:
        done += 1
        _, duals = lp.solve_float()
        price = [-duals[r] for r in rows]
        added = 0
        for support in _candidates(used, price):
            value = sum(price[e] * x for e, x in max_min(used, support, float).items())
            if value > 1 + _TOLERANCE:
                added += add(support)
        if not added:
            break
    exact = lp.solve_exact()
    theta = [x * unit for x in exact.x]
    stats = {"columns": len(configs), "pricing_rounds": done,
             "search_seconds": round(time.perf_counter() - begin, 3)}
    return configs, theta, stats


def max_min(used: _Arcs, support, number=Fraction) -> dict:
    """The max-min fair fractions of the matching ``support`` (ours; the sharing of
    SimGrid's CM02 model with equal weights): every transfer's rate rises at the same
    pace until it reaches its arc's speed 1/c_e or one of its shared links fills up
    (progressive filling).  Returns {arc index: x_e = rate · c_e}, exact with
    ``number=Fraction``.  Transfers sized x_e · duration / c_e and started together
    keep these rates and end together, at the step's end."""
    cost = {e: number(used.cost[e]) for e in support}
    ceiling = {e: 1 / cost[e] for e in support}              # messages per time unit
    through: dict[int, list] = {}
    capacity: dict[int, object] = {}
    for e in support:
        for k, a in used.links[e]:
            through.setdefault(k, []).append(e)
            capacity[k] = 1 / (number(a) * cost[e])             # 1 / c_l
    initial = dict(capacity)
    slack = 0 if number is Fraction else 1e-12     # floats only search
    rate: dict[int, object] = {}
    active = set(support)
    level = number(0)
    while active:
        step = min(ceiling[e] for e in active) - level
        for k, members in through.items():
            live = sum(1 for e in members if e in active)
            if live:
                step = min(step, capacity[k] / live)
        level += step
        for k, members in through.items():
            capacity[k] -= step * sum(1 for e in members if e in active)
        full = {k for k in through if capacity[k] <= slack * initial[k]}
        done = {e for e in active if ceiling[e] - level <= slack * ceiling[e]
                or any(k in full for k, _ in used.links[e])}
        for e in done:
            rate[e] = level
        active -= done
    return {e: rate[e] * cost[e] for e in support if rate[e] > 0}


def _colour_classes(used: _Arcs, demand: list) -> list[list[int]]:
    """The matchings of 002 Thm 6 for the arcs' times (one-port only): starting columns."""
    unit = lcm_of_denominators(demand)
    weights = {(f"{used.tail[e]}", f"{used.head[e]}"): int(d * unit)
               for e, d in enumerate(demand)}
    index = {(used.tail[e], used.head[e]): e for e in range(len(used.arcs))}
    return [[index[arc] for arc in matching.edges]
            for matching in weighted_edge_coloring(weights)]


def _candidates(used: _Arcs, price: list) -> list[list[int]]:
    """Matchings likely to improve the master at ``price``: a maximum-weight matching
    of the prices (networkx), and greedy ones that add an arc only when the max-min
    value grows (arcs by price, and by price per link capacity taken)."""
    import networkx as nx

    live = [e for e in range(len(used.arcs)) if price[e] > _TOLERANCE]
    found = []
    graph = nx.Graph()
    for e in live:
        graph.add_edge(("out", used.tail[e]), ("in", used.head[e]), weight=price[e], arc=e)
    matching = nx.max_weight_matching(graph)
    found.append(sorted(graph.edges[a, b]["arc"] for a, b in matching))
    by_price = sorted(live, key=lambda e: -price[e])
    by_density = sorted(live, key=lambda e: -price[e] / (1 + sum(float(a) for _, a
                                                                  in used.links[e])))
    for order in (by_price, by_density):
        found.append(_greedy(used, price, order))
    return found


def _greedy(used: _Arcs, price: list, order) -> list[int]:
    """A matching grown in ``order``; an arc joins when its ports are free and the
    max-min value sum price·x grows with it."""
    support: list[int] = []
    out_used, in_used = set(), set()
    value = 0.0
    for e in order:
        if used.tail[e] in out_used or used.head[e] in in_used:
            continue
        trial = support + [e]
        if used.links[e]:
            new = sum(price[f] * x for f, x in max_min(used, trial, float).items())
        else:
            new = value + price[e]
        if new > value + _TOLERANCE:
            support, value = trial, new
            out_used.add(used.tail[e])
            in_used.add(used.head[e])
    return support


# -- the schedule -------------------------------------------------------------------

def _schedule(platform, used: _Arcs, trees, m, configs, theta, certificate) -> Schedule:
    active = [i for i, t in enumerate(theta) if t > 0]
    # messages of arc e in step i: θ_i x_ie / c_e; the master's equalities make each
    # arc's steps carry exactly m_e
    counts: dict[int, dict[int, Fraction]] = {i: {} for i in active}
    for e in range(len(used.arcs)):
        total = Fraction(0)
        for i in active:
            if e in configs[i]:
                counts[i][e] = theta[i] * configs[i][e] / used.cost[e]
                total += counts[i][e]
        if total != m[used.arcs[e]]:  # pragma: no cover - the master's rows are exact
            raise AssertionError("postcondition: the steps do not carry an arc's messages")
    s = lcm_of_denominators([k for step in counts.values() for k in step.values()]
                            + [theta[i] for i in active])
    through: dict[Arc, list] = {arc: [] for arc in used.arcs}
    for l, (parent, weight) in enumerate(trees):
        for child, par in parent.items():
            through[(par, child)].append((l, s * weight))
    slots: dict[int, list] = {i: [] for i in active}
    for e, arc in enumerate(used.arcs):
        capacities = [(i, int(s * counts[i][e])) for i in active if counts[i].get(e)]
        for i, l, count in pour(capacities, through[arc]):
            slots[i].append(Transfer(arc[0], arc[1], l, count))
    steps = [Step(s * theta[i], tuple(slots[i])) for i in active if slots[i]]
    period = sum((step.duration for step in steps), Fraction(0))
    messages = s * sum(w for _, w in trees)
    entries = tuple(TreeEntry.from_parent(parent, s * w) for parent, w in trees)
    return Schedule(platform, Fraction(messages) / period, period, messages, entries,
                    tuple(steps), certificate=certificate)


def _claims(schedule: Schedule, optimum: Fraction) -> Schedule:
    """The schedule with its ``optimum`` and ``ratio`` claims (checked by verify)."""
    return replace(schedule, extra={"optimum": optimum,
                                    "ratio": schedule.throughput / optimum})


def check_network_steps(platform, schedule: Schedule) -> None:
    """Runtime postcondition, exact and cheap: per step one-port, each transfer fits,
    each shared link's messages fit; every tree edge carries its weight, and nothing
    else is carried."""
    network = platform.network
    carried: dict = {}
    for i, step in enumerate(schedule.steps):
        out, inn, load = {}, {}, {}
        for t in step.transfers:
            if out.setdefault(t.tail, t.arc) != t.arc or inn.setdefault(t.head, t.arc) != t.arc:
                raise AssertionError(f"postcondition: step {i} breaks one-port at {t.arc}")
            load[t.arc] = load.get(t.arc, 0) + t.messages
            carried[(t.tree, t.arc)] = carried.get((t.tree, t.arc), 0) + t.messages
        links: dict = {}
        for arc, k in load.items():
            if k * platform.cost(*arc) > step.duration:
                raise AssertionError(f"postcondition: step {i} overfills {arc}")
            for link in (network.shared_route(*arc) if network is not None else ()):
                links[link.id] = links.get(link.id, 0) + k * link.cost
        if any(t > step.duration for t in links.values()):
            raise AssertionError(f"postcondition: step {i} overloads a shared link")
    for l, tree in enumerate(schedule.trees):
        for edge in tree.edges:
            if carried.get((l, edge), 0) != tree.weight:
                raise AssertionError(f"postcondition: tree {l} edge {edge} carries "
                                     f"{carried.get((l, edge), 0)} != {tree.weight}")
    if len(carried) != sum(len(tree.edges) for tree in schedule.trees):
        raise AssertionError("postcondition: a transfer is on no edge of its tree")
