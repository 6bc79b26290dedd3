"""Rounds on shared links (steady.schedule.rounds; proofs/timed-schedule.md, "Rounds on
shared links")."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings, strategies as st

from helpers import examples

from steady.platform import Platform
from steady.schedule.effort import THOROUGH
from steady.schedule.matchings import max_weighted_degree
from steady.schedule.rounds import _Rounds, check_rounds, link_rounds, rounds_needed
from steady.schedule.timed import timed_schedule
from steady.schedule.timetable import Timetable
from steady.throughput import throughput
from steady.verify import verify

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
NANCY = SAMPLES / "simgrid/g5k-nancy-21.json"


@pytest.mark.slow
def test_nancy_rounds_reach_what_the_list_schedule_misses(monkeypatch):
    """samples/simgrid/g5k-nancy-21.json: the packing of at most 200 messages gives 164
    whose counts are exact (the busiest port and link need 164 rounds of 1/125); the
    greedy list schedule alone takes more (169 rounds with all eight priority rules,
    173 with the two of the fast effort), the rounds 164."""
    import steady.schedule.list_schedule as list_module
    from steady.schedule.counts import best_packing
    from steady.schedule.effort import FAST
    from steady.schedule.timed import optimum_trees

    platform = Platform.from_file(NANCY)
    result = throughput(platform, "trees")
    messages, weights = best_packing(platform, optimum_trees(platform, result),
                                     result.throughput, 200)
    assert messages == 164
    table = list_module.list_schedule(platform, weights, FAST)
    assert table.period_time == Fraction(164, 125)
    monkeypatch.setattr(list_module, "_link_rounds", lambda *args: None)
    greedy = list_module.list_schedule(platform, weights, FAST.but(rules=8))
    assert greedy.period_time == Fraction(169, 125)
    assert list_module.list_schedule(platform, weights, FAST).period_time > Fraction(164, 125)


@pytest.mark.slow
def test_nancy_reaches_the_optimum_in_rounds():
    """The same at M = 200 through the whole construction (default effort): 164
    messages per period, period 164/125, ratio exactly 1, verified."""
    platform = Platform.from_file(NANCY)
    result = throughput(platform, "trees")
    schedule, stats = timed_schedule(platform, result, 200)
    assert schedule.messages_per_period == 164
    assert schedule.period == Fraction(164, 125)
    assert stats["ratio"] == 1
    Timetable.of(schedule).check()
    assert verify(platform, schedule).ok


@st.composite
def multigraphs(draw):
    """Counts on arcs between 2-5 senders and receivers, and 1-3 shared links each
    crossed by some arcs with integer parts of capacity 2-4."""
    nodes = [f"n{i}" for i in range(draw(st.integers(2, 5)))]
    arcs = [(u, v) for u in nodes for v in nodes if u != v]
    chosen = draw(st.lists(st.sampled_from(arcs), min_size=1, max_size=8, unique=True))
    used = {arc: draw(st.integers(1, 4)) for arc in chosen}
    capacity = {f"l{i}": draw(st.integers(2, 4)) for i in range(draw(st.integers(1, 3)))}
    parts: dict = {}
    for arc in chosen:
        for lid, cap in capacity.items():
            if draw(st.booleans()):
                parts.setdefault(arc, []).append((lid, draw(st.integers(1, cap))))
    return used, parts, capacity


@given(multigraphs(), st.integers(0, 3))
@settings(max_examples=examples(150))
def test_rounds_found_are_matchings_within_the_links(case, extra):
    """Whatever the search returns holds every count, in matchings that fit every
    link (the postcondition, checked again here), in exactly the rounds asked for."""
    used, parts, capacity = case
    need = rounds_needed(used, parts, capacity)
    found = link_rounds(used, parts, capacity, need + extra)
    if found is not None:
        assert len(found) == need + extra
        check_rounds(used, parts, capacity, found)


@given(multigraphs())
@settings(max_examples=examples(100))
def test_without_link_pressure_the_koenig_rounds_are_kept(case):
    """Links that no round can overload (capacity above every arc's parts together)
    leave the largest port degree: Δ rounds, found at once (002 Thm 6)."""
    used, parts, _ = case
    roomy = {lid: 10 ** 6 for _, shares in parts.items() for lid, _ in shares}
    found = link_rounds(used, parts, roomy, max_weighted_degree(used))
    assert found is not None and len(found) == max_weighted_degree(used)


def test_fewer_rounds_than_the_largest_degree_are_refused():
    used = {("a", "b"): 3}
    assert link_rounds(used, {}, {}, 2) is None
    assert len(link_rounds(used, {}, {}, 3)) == 3


@given(multigraphs(), st.integers(0, 2 ** 32 - 1), st.integers(1, 30))
@settings(max_examples=examples(100))
def test_kempe_swaps_keep_matchings_and_counts(case, seed, steps):
    """Every swap exchanges an alternating path or cycle between two rounds: both stay
    matchings and every arc keeps its count, whatever the links say; the kept total
    overload is the rounds' own."""
    used, parts, capacity = case
    from steady.schedule.matchings import weighted_edge_coloring

    rounds = [set(m.edges) for m in weighted_edge_coloring(used) for _ in range(m.weight)]
    state = _Rounds(rounds + [set()], parts, capacity)
    rng = random.Random(seed)
    for _ in range(steps):
        if not state.total:
            break
        state.step(rng)
    roomy = {lid: 10 ** 6 for lid in capacity}
    check_rounds(used, parts, roomy, state.rounds)
    assert state.total == _Rounds(state.rounds, parts, capacity).total


def test_a_link_bound_above_the_ports_adds_rounds():
    """Two disjoint arcs that each hold 2 of a link of capacity 3 cannot share a round:
    the ports allow 1 round, the link needs 2 (4 parts / 3, rounded up), and the
    search moves one arc into the added empty round."""
    used = {("a", "b"): 1, ("c", "d"): 1}
    parts = {("a", "b"): [("l", 2)], ("c", "d"): [("l", 2)]}
    assert rounds_needed(used, parts, {"l": 3}) == 2
    found = link_rounds(used, parts, {"l": 3}, 2)
    assert sorted(map(sorted, found)) == [[("a", "b")], [("c", "d")]]


@pytest.mark.parametrize("bad", [
    [{("a", "b"), ("a", "c")}],          # a sends twice
    [{("a", "b")}],                       # ("a", "c") missing
    [{("a", "b")}, {("a", "c")}, {("a", "c")}],   # ("a", "c") twice
])
def test_the_postcondition_rejects(bad):
    with pytest.raises(AssertionError):
        check_rounds({("a", "b"): 1, ("a", "c"): 1}, {}, {}, bad)


def test_the_postcondition_rejects_an_overloaded_link():
    parts = {("a", "b"): [("l", 2)], ("c", "d"): [("l", 2)]}
    with pytest.raises(AssertionError, match="shared link"):
        check_rounds({("a", "b"): 1, ("c", "d"): 1}, parts, {"l": 3},
                     [{("a", "b"), ("c", "d")}])


@st.composite
def equal_cost_clusters(draw):
    """A platform whose links all cost 1, with 1-3 shared network links, each crossed by
    some arcs and holding 1, 1/2, 1/3 or 2/3 of their speed."""
    from steady.network import Network, NetworkLink
    from steady.platform import Link
    from steady.strategies import platforms

    p = draw(platforms(min_nodes=3, max_nodes=6))
    p = p.replace_links(Link(l.tail, l.head, Fraction(1)) for l in p.links)
    links, routes = [], {}
    for k in range(draw(st.integers(1, 3))):
        crossing = draw(st.lists(st.sampled_from(list(p.arcs)), min_size=2, unique=True))
        share = draw(st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(1, 3),
                                      Fraction(2, 3)]))
        links.append(NetworkLink(f"l{k}", share))
        for arc in crossing:
            routes.setdefault(arc, []).append(f"l{k}")
    return Platform(p.source, p.links, p.nodes, p.name, network=Network(links, routes))


@pytest.mark.slow
@given(equal_cost_clusters(), st.integers(1, 12))
@settings(max_examples=examples(40))
def test_timetables_in_rounds_verify_and_are_as_short_as_their_counts_allow(platform, m):
    """On equal-cost platforms with shared links: the timed schedule passes verify;
    and its trees' counts, timed in rounds (forced here: the list schedule is often as
    short on such small platforms), give a timetable that passes Timetable.check and
    verify too, whose period is the fewest rounds the counts need (the largest port
    degree or link load): no timetable of those counts is shorter."""
    from steady.network.rows import integer_shares, link_shares
    from steady.schedule.counts import usage
    from steady.schedule.list_schedule import _link_rounds

    result = throughput(platform, "trees")
    schedule, _ = timed_schedule(platform, result, m)
    assert verify(platform, schedule).ok
    trees = [(t.parent, t.weight) for t in schedule.trees]
    used = usage(trees)
    cost = {arc: 1 for arc in used}
    links = link_shares(platform, used)
    found = _link_rounds(used, cost, links, 10 ** 9)
    assume(found is not None)   # the bounded Kempe search may give up
    makespan, _, runs = found
    parts, capacity = integer_shares(links)
    assert makespan == rounds_needed(used, parts, capacity)
    table = Timetable.from_arc_runs(platform, trees, runs, makespan, 1)
    table.check()
    rounds = table.schedule(result)
    assert verify(platform, rounds).ok
    assert rounds.period <= schedule.period


# -- the fixed-speed bound (steady.network.fixed_speed) ----------------------------------

@pytest.mark.slow
def test_dragonfly_no_fixed_speed_schedule_beats_five_sixths():
    """samples/simgrid/cluster_dragonfly-24.json: TP* = 60 with link rows; the k-rows
    prove exactly 50 for every schedule whose transfers keep their speed, and the timed
    schedule at thorough effort reaches it at M = 2 (ratio 5/6 of TP*, i.e. 1 of the
    fixed-speed bound; on the trees of the cut method's optimum, which only thorough
    builds on: the optimum's own give 125/3 with one message per period)."""
    from steady.network.fixed_speed import _proved, fixed_speed_bound

    platform = Platform.from_file(SAMPLES / "simgrid/cluster_dragonfly-24.json")
    result = throughput(platform, "trees")
    bound = fixed_speed_bound(platform)
    assert result.throughput == 60 and bound.bound == 50
    assert all(p >= 0 for prices in (bound.out_prices, bound.in_prices, bound.link_prices)
               for p in prices.values()) and min(bound.row_prices) >= 0
    again = _proved(platform, bound.rows, bound.out_prices, bound.in_prices,
                    bound.link_prices, bound.row_prices)
    assert again.bound == 50 and again.tree_cost == bound.tree_cost
    schedule, stats = timed_schedule(platform, result, 2, THOROUGH)
    assert schedule.throughput == 50 and stats["ratio"] == Fraction(5, 6)
    assert verify(platform, schedule).ok


def test_without_binding_k_rows_the_bound_is_the_optimum():
    """samples/simgrid/g5k-nancy-21.json: its shared links' k-rows do not bind; the
    bound is TP* = 125 exactly (reached by the rounds at M = 200)."""
    from steady.network.fixed_speed import fixed_speed_bound

    platform = Platform.from_file(SAMPLES / "simgrid/g5k-nancy-21.json")
    assert fixed_speed_bound(platform).bound == throughput(platform, "trees").throughput == 125


@given(equal_cost_clusters(), st.integers(1, 8))
@settings(max_examples=examples(30))
def test_no_timed_schedule_beats_the_fixed_speed_bound(platform, m):
    """The k-rows hold for every timetable: its throughput never exceeds the bound
    (which the exact arborescence check proves from any prices)."""
    from steady.network.fixed_speed import fixed_speed_bound

    schedule, _ = timed_schedule(platform, throughput(platform, "trees"), m)
    assert schedule.throughput <= fixed_speed_bound(platform).bound


@pytest.mark.slow
def test_simulate_reports_the_fixed_speed_bound(capsys):
    """steady simulate --json reports the fixed-speed bound K·50 beside K·TP* (a whole
    finite-horizon run: horizon 10 at fast effort keeps it short)."""
    import json

    from helpers import run

    path = SAMPLES / "simgrid/cluster_dragonfly-24.json"
    code, out, _ = run(capsys, "simulate", path, "--horizon", "10", "--max-messages", "2",
                       "--effort", "fast", "--json")
    doc = json.loads(out)
    assert code == 0
    assert Fraction(doc["fixed_speed_bound"]) == 10 * 50
    assert Fraction(doc["fixed_speed_ratio"]) == Fraction(doc["delivered"], 500)
    assert Fraction(doc["bound"]) == 10 * 60


def test_prices_that_leave_a_tree_free_prove_no_bound():
    from steady.network.fixed_speed import _proved
    from steady.network.rows import k_rows

    platform = Platform.from_file(SAMPLES / "simgrid/g5k-nancy-21.json")
    rows = k_rows(platform)
    assert _proved(platform, rows, {}, {}, {}, tuple(0 for _ in rows)) is None


def test_more_rounds_than_the_bound_are_not_tried():
    """The search keeps one set per round: beyond MAX_ROUNDS it is not started (a
    period of 10^6 messages on a SimGrid cluster keeps its list schedule)."""
    from steady.schedule.rounds import MAX_ROUNDS

    used = {("a", "b"): MAX_ROUNDS + 1}
    assert link_rounds(used, {}, {}, MAX_ROUNDS + 1) is None


@st.composite
def switched_routes(draw):
    """Routes of one cost from 2-4 senders' first resources to 2-4 receivers' last ones,
    each through 0-2 of 1-3 inner resources (links between switches), with counts 1-3."""
    firsts = [f"out{i}" for i in range(draw(st.integers(2, 4)))]
    lasts = [f"in{i}" for i in range(draw(st.integers(2, 4)))]
    inner = [f"link{i}" for i in range(draw(st.integers(1, 3)))]
    pairs = draw(st.lists(st.tuples(st.sampled_from(firsts), st.sampled_from(lasts)),
                          min_size=1, max_size=8, unique=True))
    held, used = {}, {}
    for a, b in pairs:
        through = draw(st.lists(st.sampled_from(inner), max_size=2, unique=True))
        route = (a, *through, b)
        held[route] = list(route)
        used[route] = draw(st.integers(1, 3))
    return used, held


@given(switched_routes(), st.integers(0, 3))
@settings(max_examples=examples(150))
def test_route_rounds_found_hold_no_resource_twice(case, extra):
    """The routes' rounds (steady.schedule.route_rounds, the Kempe search of
    KempeRounds on inner resources): whatever is found holds every count in exactly
    the rounds asked for, no round holding a resource twice; with the ends' degree
    raised by the inner resources' loads the search has swaps to make."""
    from steady.schedule.route_rounds import check_route_rounds, route_rounds

    used, held = case
    ends: dict = {}
    load: dict = {}
    for route, k in used.items():
        for res in {route[0], route[-1]}:
            ends[res] = ends.get(res, 0) + k
        for res in route[1:-1]:
            load[res] = load.get(res, 0) + k
    need = max([*ends.values(), *load.values()])
    found = route_rounds(used, held, need + extra)
    if found is not None:
        assert len(found) == need + extra
        check_route_rounds(used, held, found)
    else:
        assert extra == 0 or any(load.values())   # only inner resources can refuse


@given(switched_routes(), st.integers(0, 2 ** 32 - 1), st.integers(1, 30))
@settings(max_examples=examples(100))
def test_route_kempe_swaps_keep_counts(case, seed, steps):
    """Every swap of the routes' search exchanges an alternating path or cycle between
    two rounds: the ends stay matched once per round and every route keeps its count;
    the kept total overload is the rounds' own."""
    from steady.schedule.matchings import weighted_edge_coloring
    from steady.schedule.route_rounds import _RouteRounds

    used, held = case
    weights: dict = {}
    for route, k in used.items():
        weights[(route[0], route[-1])] = weights.get((route[0], route[-1]), 0) + k
    pool = {edge: [] for edge in weights}
    for route in sorted(used):
        pool[(route[0], route[-1])] += [route] * used[route]
    start = [{a: (b, pool[(a, b)].pop()) for a, b in m.edges}
             for m in weighted_edge_coloring(weights) for _ in range(m.weight)]
    inner = {route: tuple(route[1:-1]) for route in used}
    state = _RouteRounds(start + [{}], inner)
    assume(state.total)
    rng = random.Random(seed)
    for _ in range(steps):
        if not state.total:
            break
        state.step(rng)
    counts: dict = {}
    for r in state.rounds:
        assert len({b for b, _ in r.values()}) == len(r)   # each last resource once
        for _, route in r.values():
            counts[route] = counts.get(route, 0) + 1
    assert counts == used
    assert state.total == _RouteRounds(state.rounds, inner).total
