"""Timetables of the ladder searched deeply at ``thorough`` (steady.simulate.choose.
deepened_timetables, Effort.deep): the ladder builds without the MILP over the cuts and
the CP-SAT port-order search, and a few promising periods get them."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from steady.generators import mesh_platform, random_platform
from steady.schedule.cut_counts import CutPool
from steady.schedule.effort import DEFAULT, THOROUGH
from steady.schedule.order_search import neighbourhood_searched
from steady.schedule.timed import CUT_SPREADS, cut_timetable, cut_timetables
from steady.simulate.choose import Candidate, _order_source, deepened_timetables, \
    horizon_choice
from steady.simulate.horizon import bound
from steady.throughput import throughput

from helpers import ladder, late_timetable, ratio_of

LADDER = (4, 8, 12, 16)
K = Fraction(10000)


def _top(m, table, ratio, delivered=1):
    """A counted candidate of the ladder's timetable of M (what the chooser ranks)."""
    return Candidate(m, table, ratio, "pipelined", "", False, delivered)


def _deepened(platform, top, effort=THOROUGH, values=LADDER):
    result, built = ladder(platform, values)
    mine = {m: (table, ratio) for m, table, ratio in built}
    improvers: list = []
    out = deepened_timetables(platform, result, built, [_top(top, *mine[top])],
                              bound(result.throughput, K), effort, CutPool(), improvers)
    return result, mine, out, improvers


def test_thorough_searches_a_few_periods_deeply_and_the_others_not():
    assert THOROUGH.deep == 3 and DEFAULT.deep == 0
    # trees regrown through idle slots only (through their own slots never won on the
    # platforms of benchmarks/thorough-41.md, for a third of the regrowth's time)
    assert not THOROUGH.regrow_both and not DEFAULT.regrow_both
    assert THOROUGH.deep_time == 2 * THOROUGH.order_search == 4.0
    # the levels whose ladder builds with the searches are unchanged by this bound
    assert not DEFAULT.cut_counts and not DEFAULT.order_search


def test_no_deep_search_without_the_effort_or_a_candidate():
    platform = mesh_platform(9, seed=2)
    result, built = ladder(platform, LADDER)
    m, table, ratio = built[1]
    cap = bound(result.throughput, K)
    improvers: list = []
    assert deepened_timetables(platform, result, built, [_top(m, table, ratio)], cap,
                               THOROUGH.but(deep=0), CutPool(), improvers) == []
    assert deepened_timetables(platform, result, built, [], cap, THOROUGH, CutPool(),
                               improvers) == []
    assert improvers == []


@pytest.mark.slow
def test_a_small_mesh_gains_at_m_and_below_it_down_to_half():
    """mesh_platform(9, seed=2), the ladder at 4, 8, 12, 16 (ratios 0.903, 0.939, 0.970,
    0.976), the best candidate at M = 8: M = 4 and 8 are searched (down to half of 8,
    smallest first), and both come out faster (0.919 and 0.967)."""
    platform = mesh_platform(9, seed=2)
    result, mine, out, improvers = _deepened(platform, 8)
    assert sorted({m for m, _, _ in out}) == [4, 8]
    for m, table, ratio in out:
        table.check()
        assert table.messages <= m
        assert mine[m][1] < ratio == ratio_of(table, result.throughput) < 1
    assert {i["max_messages"] for i in improvers} == {4, 8}
    assert all(i["improver"] == "deep search" for i in improvers)


@pytest.mark.slow
@pytest.mark.parametrize("time", [0.0, 2.0, 4.0])
def test_the_port_order_searches_share_one_budget(time):
    """The deep search's CP-SAT searches run within ``deep_time`` together, each at most
    ``order_search``: on mesh_platform(9, seed=2) (best at M = 8: M = 4 and 8 searched,
    neither reaching ratio 1 on its cut counts) at most as many as the budget allows
    (a period whose orders cannot beat the fastest costs none of it)."""
    platform = mesh_platform(9, seed=2)
    _, _, _, improvers = _deepened(platform, 8, THOROUGH.but(deep_time=time))
    searches = [i for i in improvers if i["how"] == "port orders searched"]
    assert len(searches) <= int(time // THOROUGH.order_search)


@pytest.mark.slow
def test_the_deep_port_order_search_is_the_neighbourhood_search_of_the_fastest():
    """At each M searched deeply without reaching ratio 1 on its cut counts
    (mesh_platform(9, seed=2), best at M = 8: M = 4 and 8), the port orders searched
    are those of the ladder's or a cut timetable whose largest port load promises the
    fastest period (above it), by CP-SAT's neighbourhoods alone within
    ``order_search`` (the budget allows both): the same trees and counts, the same
    timetable as that search run on its own, faster than its source, and among the
    deepened timetables of M."""
    platform = mesh_platform(9, seed=2)
    result, mine, out, improvers = _deepened(platform, 8)
    searches = [i for i in improvers if i["how"] == "port orders searched"]
    cuts = CutPool()   # shared as the deep search shares it, smallest M first
    for m in (4, 8):
        sources = [mine[m][0]] + cut_timetables(platform, result, m,
                                                 THOROUGH.but(order_search=0.0), cuts)
        fastest = _order_source(sources)
        if fastest is None:   # no orders can beat the fastest: no search, no budget
            assert all(i["max_messages"] != m for i in searches)
            continue
        loads = [max(t.port_loads().values()) for t in sources]
        assert fastest.period > max(fastest.port_loads().values())
        assert all(fastest.time(max(fastest.port_loads().values())) / fastest.messages
                   <= t.time(load) / t.messages for t, load in zip(sources, loads))
        again = neighbourhood_searched(fastest, THOROUGH.order_search)
        said = next(i for i in searches if i["max_messages"] == m)["result"]
        ours = [t for n, t, _ in out if n == m]
        if isinstance(again, str):
            assert said == again
            continue
        assert again.trees == fastest.trees and again.counts == fastest.counts
        assert again.period < fastest.period
        assert any(t.period == again.period and dict(t.runs) == dict(again.runs)
                   for t in ours)


def test_the_orders_searched_are_those_of_the_best_load_above_its_period():
    """_order_source: a timetable ending after its largest port load is searched (its
    load promises more than its period); one ending at its load is not, nor one whose
    load cannot beat a faster timetable of the same M."""
    _, _, late, load = late_timetable(39, 5)
    assert late.period > max(late.port_loads().values())
    assert _order_source([late]) is late
    at_load = late.replace(period=max(late.port_loads().values()))
    assert _order_source([at_load]) is None
    assert _order_source([late, at_load]) is None   # at_load is as fast as late's promise
    slower = late.replace(period=late.period * 2)
    assert _order_source([slower, late]) is late   # the faster on a tie of promises


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(kind=st.sampled_from(["mesh", "random"]), nodes=st.integers(8, 12),
       seed=st.integers(1, 40), top=st.sampled_from(LADDER), deep=st.integers(1, 3))
def test_a_deepened_timetable_is_valid_faster_and_within_its_range(kind, nodes, seed, top,
                                                                   deep):
    platform = (mesh_platform(nodes, seed=seed) if kind == "mesh"
                else random_platform(nodes, 0.3, seed=seed))
    result, mine, out, improvers = _deepened(platform, top, THOROUGH.but(deep=deep))
    assume(out)
    ms = [m for m, _, _ in out]
    assert ms == sorted(ms) and len(set(ms)) <= deep
    for m, table, ratio in out:
        table.check()
        assert 2 <= m <= top <= 2 * m and table.messages <= m
        assert mine[m][1] < ratio == ratio_of(table, result.throughput) <= 1
        # a period of ratio 1 ends the search: no longer period comes after it
        assert ratio < 1 or m == ms[-1]
    assert len({i["max_messages"] for i in improvers}) <= deep


@pytest.mark.slow
def test_the_chooser_reports_its_deep_searches_and_never_delivers_less_than_default():
    platform = mesh_platform(9, seed=2)
    result = throughput(platform, "trees")
    choice = horizon_choice(platform, result, K, THOROUGH)
    floor = horizon_choice(platform, result, K, DEFAULT)
    deep = [i for i in choice.improvers if i["improver"] == "deep search"]
    assert deep and len({i["max_messages"] for i in deep}) <= THOROUGH.deep
    assert choice.best.delivered >= floor.best.delivered
    plan = choice.best.plan(choice.horizon, choice.optimum)
    assert plan.delivered_by(choice.horizon) == choice.best.delivered


@pytest.mark.slow
def test_cut_timetable_is_the_fastest_of_the_cut_timetables():
    """cut_timetables gives one timetable per spread of the MILP's objective that finds
    counts, each valid; cut_timetable keeps the fastest (the first on a tie)."""
    platform = mesh_platform(9, seed=2)
    result, _ = ladder(platform, ())
    tables = cut_timetables(platform, result, 8, THOROUGH, CutPool())
    one = cut_timetable(platform, result, 8, THOROUGH, CutPool())
    assert 1 <= len(tables) <= len(CUT_SPREADS)
    fastest = max(t.throughput for t in tables)
    first = next(t for t in tables if t.throughput == fastest)
    assert one.throughput == fastest
    assert (one.period, one.unit, one.runs) == (first.period, first.unit, first.runs)
