"""Trees regrown through a timetable's slots (steady.schedule.regrow;
proofs/timed-schedule.md, "Regrown trees")."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples

from steady.generators import mesh_platform
from steady.platform import Platform
from steady.schedule import regrow
from steady.schedule.effort import FAST
from steady.schedule.idle_slots import busy_intervals, idle_slots
from steady.schedule.regrow import check_regrown, regrown, unrolled_starts
from steady.schedule.timed import timed_timetable
from steady.schedule.timetable import Timetable
from steady.simulate.choose import horizon_choice
from steady.simulate.unroll import PeriodicPattern
from steady.strategies import platforms
from steady.throughput import throughput
from steady.verify import verify

SWAPS = 30_000


def _timed(platform, m):
    return timed_timetable(platform, throughput(platform), m, FAST)[0]


def _slots(table: Timetable, unit: int):
    """Every message slot (arc, start tick) of ``table`` counted in ``unit``."""
    return sorted((arc, s) for arc, starts in table.refined(unit).arc_slots().items()
                  for s in starts)


def _common(*tables) -> int:
    return math.lcm(*(t.unit for t in tables))


@given(platforms(min_nodes=2, max_nodes=7), st.integers(1, 12))
@settings(max_examples=examples(40))
def test_regrown_trees_keep_the_slots_and_verify(platform, m):
    """Any platform, any M: one spanning tree of weight 1 per message, every slot of the
    timetable used once, the same period and certified ratio; the independent checker
    accepts the file."""
    table = _timed(platform, m)
    new = regrown(table, SWAPS, idle=False)
    assert isinstance(new, Timetable)
    assert len(new.trees) == table.messages
    assert all(tree.weight == 1 for tree in new.trees)
    assert new.period_time == table.period_time
    unit = _common(table, new)
    assert _slots(new, unit) == _slots(table, unit)
    new.check()
    result = throughput(platform)
    assert verify(platform, new.schedule(result)).ok


@pytest.mark.slow
@given(platforms(min_nodes=2, max_nodes=7), st.integers(1, 12))
@settings(max_examples=examples(40))
def test_trees_regrown_through_idle_slots_verify(platform, m):
    """Claim 5: with idle slots, each slot the trees use is one of the timetable's, at
    most once, or lies where the timetable left both its ports idle; the period, the
    messages per period and the certified ratio stay; the independent checker accepts
    the file."""
    table = _timed(platform, m)
    new = regrown(table, SWAPS)
    assert (new.period_time, new.messages) == (table.period_time, table.messages)
    unit = _common(table, new)
    old = _slots(table, unit)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in platform.arcs}
    held = [(port, start, start + cost[arc]) for arc, start in old
            for port in (("out", arc[0]), ("in", arc[1]))]
    for arc, start in _slots(new, unit):
        if (arc, start) in old:
            old.remove((arc, start))
            continue
        end = start + cost[arc]
        assert not any(p in (("out", arc[0]), ("in", arc[1])) and a < end and start < b
                       for p, a, b in held)
    new.check()
    assert verify(platform, new.schedule(throughput(platform))).ok


def test_an_idle_slot_saves_a_period():
    """S -> A (cost 1), A -> B (1/2), B -> C (2), S -> B (2), A -> C (3); TP* = 1/2, M =
    3, period 6: the timetable sends S -> A at 0, 1, 2, A -> B at 0, 1/2, 1 and
    B -> C at 0, 2, 4.  Through these slots alone the third message reaches B in the
    next period and C two periods after it left (W = 2).  A's send port and B's
    receive port are idle from 3/2 on, and S's send port from 3: with slots there
    (A -> B, S -> B) every message reaches C one period after it left at most (W = 1),
    with the same period and ratio."""
    platform = Platform.from_dict({
        "format": "steady-platform", "version": 1, "source": "S",
        "links": [{"from": a, "to": b, "cost": c} for a, b, c in (
            ("S", "A", "1"), ("A", "B", "1/2"), ("B", "C", "2"), ("S", "B", "2"),
            ("A", "C", "3"))]}, "<test>")
    table = _timed(platform, 3)
    assert table.period_time == 6
    plain, idle = regrown(table, SWAPS, idle=False), regrown(table, SWAPS)
    assert PeriodicPattern(plain, "pipelined").warmup == 2
    assert PeriodicPattern(idle, "pipelined").warmup == 1
    assert ("S", "B") in idle.counts and ("S", "B") not in table.counts
    result = throughput(platform)
    assert idle.schedule(result).extra["ratio"] == table.schedule(result).extra["ratio"] == 1
    assert verify(platform, idle.schedule(result)).ok


@given(platforms(min_nodes=2, max_nodes=7), st.integers(1, 12))
@settings(max_examples=examples(40))
def test_unrolled_starts_are_the_pipelined_lags(platform, m):
    """The arrival times the trees are grown by are the pipelined rule's lags: node v
    of tree l receives in period lag_l(v) after the source sent (one slot per tree and
    link), as the timetable's lags compute them."""
    new = regrown(_timed(platform, m), SWAPS)
    lags = new.lags()
    for l, starts in enumerate(unrolled_starts(new)):
        for v, start in starts.items():
            assert start >= 0
            assert lags[l][v] == start // new.period


def _with_runs(table, runs):
    return Timetable(table.platform, table.trees, table.unit, table.period, runs)


def test_postcondition_rejects_moved_slots_and_broken_trees():
    table = _timed(mesh_platform(6, seed=1), 8)
    new = regrown(table, SWAPS, idle=False)
    key = next(iter(new.runs))
    (start, n), = new.runs[key]
    moved = dict(new.runs)
    moved[key] = ((start + 1, n),)
    with pytest.raises(AssertionError, match="moved a message slot"):
        check_regrown(table, _with_runs(new, moved))
    l, arc = key
    other = next(k for k in new.runs if k[0] != l and k[1] not in
                 {(p, c) for c, p in new.trees[l].parent.items()})
    swapped = dict(new.runs)
    swapped[(l, other[1])] = swapped.pop(other)
    with pytest.raises(AssertionError, match="regrown tree"):
        check_regrown(table, _with_runs(new, swapped))
    heavy = (new.trees[0]._replace(weight=2),) + new.trees[1:]   # one message more
    with pytest.raises(AssertionError, match="changed the period"):
        check_regrown(table, Timetable(new.platform, heavy, new.unit, new.period,
                                       new.runs))


def test_postcondition_rejects_a_slot_in_busy_time():
    """With idle slots allowed, a slot moved off the timetable's own into time that
    was busy on one of its ports is refused."""
    table = _timed(mesh_platform(6, seed=1), 8)
    new = regrown(table, SWAPS)
    unit = _common(table, new)
    old = set(_slots(table, unit))
    fine = new.refined(unit)
    key = next(k for k, rs in fine.runs.items() if (k[1], rs[0][0]) in old)
    (start, n), = fine.runs[key]
    moved = dict(fine.runs)
    moved[key] = ((start + fine.cost[key[1]] // 2, n),)
    with pytest.raises(AssertionError, match="was busy"):
        check_regrown(table, _with_runs(fine, moved), idle=True)


def test_beyond_the_work_bound_nothing_is_tried(monkeypatch):
    table = _timed(mesh_platform(6, seed=1), 8)
    work = 8 * 6 ** 3
    monkeypatch.setattr(regrow, "REGROW_WORK", work - 1)
    assert "work bound" in regrown(table, SWAPS)
    monkeypatch.setattr(regrow, "REGROW_WORK", work)
    assert isinstance(regrown(table, SWAPS), Timetable)


def test_the_choice_keeps_regrown_trees_when_they_deliver_more():
    """A 10-node mesh (seed 2), M = 50, horizon 100000: the list schedule's trees lag
    3 periods under pipelined forwarding; regrown through the same slots (and the idle
    ones) they lag less and deliver more, and the choice takes them."""
    platform = mesh_platform(10, seed=2)
    effort = FAST.but(ladder=(50,), regrown=1, list_run=False, routed=0)
    choice = horizon_choice(platform, throughput(platform, "trees"), 100000, effort)
    by_kind = {c.regrown: c.delivered for c in choice.candidates}
    assert by_kind["through idle slots"] > by_kind[""]
    assert choice.best.regrown == "through idle slots"
    assert all(tree.weight == 1 for tree in choice.best.table.trees)
    assert choice.improvers[0]["improver"] == "regrow"


def test_the_ladder_ends_where_trees_can_no_longer_be_regrown(monkeypatch):
    """With regrowth on, a period beyond the regrowth's work bound is not built once a
    timetable is (its trees would lag as built: tens of periods on 200 nodes); the
    timetables regrown are all within the bound.  A 10-node mesh whose bound admits
    M <= 8: the ladder (4, 8, 12, 16) builds 4 and 8 only."""
    platform = mesh_platform(10, seed=2)
    monkeypatch.setattr(regrow, "REGROW_WORK", 8 * 10 ** 3 + 999)
    assert regrow.most_regrown(platform) == 8
    effort = FAST.but(ladder=(4, 8, 12, 16), regrown=3, routed=0, patience=9)
    choice = horizon_choice(platform, throughput(platform, "trees"), 100000, effort)
    assert {c.max_messages for c in choice.candidates} == {4, 8}
    assert all(c.table.messages <= 8 for c in choice.candidates)
    assert {i["max_messages"] for i in choice.improvers} == {4, 8}
    # without regrowth the ladder goes on
    choice = horizon_choice(platform, throughput(platform, "trees"), 100000,
                            effort.but(regrown=0))
    assert max(c.max_messages for c in choice.candidates) > 8


def _grown(table, idle: bool = False):
    """(grower, swaps) of the regrowth's first stage: trees grown one after the other
    through the timetable's slots (and, with ``idle``, the idle slots)."""
    table, free = regrow.growth_slots(table, idle)
    grower = regrow._Grower(table.platform, free, table.cost, table.period)
    grown = [grower.grow(table.messages - j) for j in range(table.messages)]
    return grower, regrow._Swaps(table.platform.source, grown, table.cost, table.period)


@given(platforms(min_nodes=3, max_nodes=7), st.integers(2, 12))
@settings(max_examples=examples(30))
def test_moves_to_free_slots_lower_every_score(platform, m):
    """Claim 5: a move to a free slot keeps spanning arborescences, gives each slot to
    one tree at most (the one left is free again) and lowers the moved tree's score;
    no tree's score rises."""
    grower, swaps = _grown(_timed(platform, m), idle=True)
    swaps.search(SWAPS)
    scores = list(swaps.scores)
    pool = sorted((arc, s) for arc, starts in grower.free.items() for s in starts)
    used = sorted((arc, s) for _, chosen in swaps.trees() for arc, s in chosen)
    made = swaps.moves(grower.free)
    assert all(new <= old for new, old in zip(swaps.scores, scores))
    assert (made > 0) == (swaps.scores != scores)
    after = sorted((arc, s) for _, chosen in swaps.trees() for arc, s in chosen)
    left = sorted((arc, s) for arc, starts in grower.free.items() for s in starts)
    assert sorted(after + left) == sorted(used + pool)
    for l, (parent, _) in enumerate(swaps.trees()):
        platform.check_arborescence(parent, "<test>")
        assert swaps.arrival[l] == regrow._Swaps(platform.source, [swaps.trees()[l]],
                                                 swaps.cost, swaps.period).arrival[0]


@given(platforms(min_nodes=2, max_nodes=7), st.integers(1, 12))
@settings(max_examples=examples(30))
def test_idle_slots_lie_in_idle_time(platform, m):
    """The idle slots overlap neither the timetable's slots nor each other on any port,
    lie inside the period, and the filling is deterministic."""
    table, _ = regrow.growth_slots(_timed(platform, m), idle=True)
    slots = table.arc_slots()
    extra = idle_slots(platform, slots, table.cost, table.period)
    assert extra == idle_slots(platform, slots, table.cost, table.period)
    both = {arc: slots.get(arc, []) + extra.get(arc, []) for arc in platform.arcs}
    for held in busy_intervals(platform, both, table.cost).values():
        assert held[0][0] >= 0 and held[-1][1] <= table.period
        assert all(a[1] <= b[0] for a, b in zip(held, held[1:]))


@given(platforms(min_nodes=3, max_nodes=7), st.integers(2, 12))
@settings(max_examples=examples(30))
def test_exchanges_never_raise_the_total_score(platform, m):
    """The exchanges of the local search (Claim 4) keep spanning trees that use every
    slot once, and accepted ones only lower the sum of the trees' scores."""
    grower, swaps = _grown(_timed(platform, m))
    grown = swaps.trees()
    before = sum(swaps._score(a) for a in swaps.arrival)
    after_trees = swaps.search(SWAPS)
    again = regrow._Swaps(platform.source, after_trees, grower.cost, grower.period)
    assert sum(again._score(a) for a in again.arrival) == sum(
        swaps._score(a) for a in swaps.arrival) <= before
    slots = sorted((arc, start) for _, chosen in grown for arc, start in chosen)
    assert sorted((arc, start) for _, chosen in after_trees for arc, start in chosen) == slots
    for parent, _ in after_trees:
        platform.check_arborescence(parent, "<test>")


def _exchanged(swaps, i: int, j: int, v: str) -> list:
    """Fresh arrivals of trees i and j of ``swaps`` with the slots (and links) that
    bring v its message exchanged, recomputed over the whole trees."""
    trees = swaps.trees()
    parents = [dict(trees[i][0]), dict(trees[j][0])]
    slots = [dict(swaps.slot[i]), dict(swaps.slot[j])]
    parents[0][v], parents[1][v] = parents[1][v], parents[0][v]
    slots[0][v], slots[1][v] = slots[1][v], slots[0][v]
    fresh = [(p, [((u, w), s[w]) for w, u in p.items()]) for p, s in zip(parents, slots)]
    return regrow._Swaps(swaps.source, fresh, swaps.cost, swaps.period).arrival


@given(platforms(min_nodes=3, max_nodes=7), st.integers(2, 12))
@settings(max_examples=examples(30))
def test_an_exchange_is_judged_as_on_the_whole_trees(platform, m):
    """The exchanges rescore from v's subtree (``_rescored``) and skip those the other
    tree's least rise (``_least_rise``) already loses: every (i, j, v) is accepted
    exactly when the two trees' scores recomputed over the whole trees fall; the kept
    arrivals, scores, last and summed arrivals are those of the trees afresh; the least
    rise never exceeds the rise."""
    _, swaps = _grown(_timed(platform, m))
    n = len(swaps.parent)
    tried = accepted = 0
    for i in range(n):
        for j in range(i + 1, n):
            for v in swaps.nodes:
                ui, uj = swaps.parent[i][v], swaps.parent[j][v]
                cycle = swaps._below(i, uj, v) or swaps._below(j, ui, v)
                same = (ui, swaps.slot[i][v]) == (uj, swaps.slot[j][v])
                before = swaps.scores[i] + swaps.scores[j]
                if not cycle and not same:
                    new = _exchanged(swaps, i, j, v)
                    want = sum(swaps._score(a) for a in new) < before
                    for l, a in zip((i, j), new):
                        rise = swaps._score(a) - swaps.scores[l]
                        assert swaps._least_rise(l, v, a[v]) <= max(rise, 0)
                        assert swaps._rescored(l, v, a[v])[0] == swaps._score(a)
                    tried += 1
                else:
                    want = False
                got = swaps._try(i, j, v)
                assert got == want
                accepted += got
    fresh = regrow._Swaps(platform.source, swaps.trees(), swaps.cost, swaps.period)
    assert swaps.arrival == fresh.arrival and swaps.scores == fresh.scores
    assert swaps.last == fresh.last and swaps.total == fresh.total
