"""The tree-following list schedule (steady/schedule/tree_order.py) and its warm-up."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from steady.numbers import lcm_of_denominators
from steady.platform import Link, Platform
from steady.schedule.timed import (_slots, _usage, optimum_trees, port_loads,
                                   timed_schedule)
from steady.schedule.tree_order import follow_arrivals, tree_list_schedule, warmup_periods
from steady.simulate.unroll import PeriodicPattern, finite_schedule
from steady.strategies import platforms
from steady.throughput import throughput

from helpers import assert_one_line_error, run


def _ticks(platform, trees):
    used = _usage(trees)
    unit = lcm_of_denominators(platform.cost(*arc) for arc in used)
    cost = {arc: int(platform.cost(*arc) * unit) for arc in used}
    lower = int(max(port_loads(platform, used).values()) * unit)
    return cost, lower


@settings(max_examples=25, deadline=None)
@given(platforms(max_nodes=6), st.lists(st.integers(1, 6), min_size=1, max_size=4),
       st.fractions(0, 1))
def test_tree_list_schedule_is_a_one_port_timetable_of_the_trees(platform, weights, slack):
    """Every tree edge gets exactly its tree's weight, no port serves two messages at
    once, and nothing starts before 0."""
    result = throughput(platform, "trees")
    trees = [(p, w) for (p, _), w in zip(optimum_trees(platform, result), weights)]
    cost, lower = _ticks(platform, trees)
    pieces = tree_list_schedule(platform.source, trees, cost, lower, int(slack * lower))
    counts = {key: sum(n for _, n in runs) for key, runs in pieces.items()}
    assert counts == {(l, (par, child)): w for l, (parent, w) in enumerate(trees)
                      for child, par in parent.items()}
    ports: dict = {}
    for (_, (u, v)), runs in pieces.items():
        for start, n in runs:
            assert start >= 0
            for port in (("out", u), ("in", v)):
                ports.setdefault(port, []).append((start, start + n * cost[(u, v)]))
    for intervals in ports.values():
        intervals.sort()
        assert all(a[1] <= b[0] for a, b in zip(intervals, intervals[1:]))


@settings(max_examples=20, deadline=None)
@given(platforms(max_nodes=6), st.integers(1, 40))
def test_warmup_periods_is_the_simulators_pipelined_warmup(platform, m):
    """warmup_periods, computed while building, equals the W that the simulator's
    PeriodicPattern reads from the file under pipelined forwarding."""
    result = throughput(platform, "trees")
    schedule, _ = timed_schedule(platform, result, m)
    trees = [(tree.parent, tree.weight) for tree in schedule.trees]
    unit = lcm_of_denominators([platform.cost(*t.arc) for t in schedule.transfers]
                               + [t.start for t in schedule.transfers])
    cost = {arc: int(platform.cost(*arc) * unit) for arc in _usage(trees)}
    pieces: dict = {}
    for t in schedule.transfers:
        pieces.setdefault((t.tree, t.arc), []).append([int(t.start * unit), t.messages])
    for runs in pieces.values():
        runs.sort()
    assert warmup_periods(platform.source, trees, pieces, cost) == \
        PeriodicPattern(schedule, "pipelined").warmup


def test_a_chain_that_follows_its_tree_has_no_warmup():
    """On a chain s -> a -> b -> c aiming at a period of 3, a port with slack waits for
    its message: each hop stays inside the period (W = 0), where sending at once (a
    period of 1, no slack) lags a period per hop."""
    chain = Platform("s", [Link("s", "a", 1), Link("a", "b", 1), Link("b", "c", 1)])
    trees = [({"a": "s", "b": "a", "c": "b"}, 1)]
    cost = {("s", "a"): 1, ("a", "b"): 1, ("b", "c"): 1}
    at_once = tree_list_schedule(chain.source, trees, cost, 1, 0)
    assert warmup_periods(chain.source, trees, at_once, cost) == 2
    pieces = tree_list_schedule(chain.source, trees, cost, 3, 0)
    assert {arc: runs for (_, arc), runs in pieces.items()} == \
        {("s", "a"): [[0, 1]], ("a", "b"): [[1, 1]], ("b", "c"): [[2, 1]]}
    assert warmup_periods(chain.source, trees, pieces, cost) == 0
    backwards = {(0, ("s", "a")): [[2, 1]], (0, ("a", "b")): [[1, 1]],
                 (0, ("b", "c")): [[0, 1]]}
    assert warmup_periods(chain.source, trees, backwards, cost) == 2


def test_pipe_refuses_shared_links_in_one_line(capsys):
    """PIPE's patterns and Lemma 7's bound hold ports only: on a platform whose routes
    share network links it says so (exit 2) instead of failing a postcondition."""
    code, _, err = run(capsys, "pipe", "samples/simgrid/dogbone.json", "--size", "1000")
    assert code == 2
    assert_one_line_error(err, "network")


def test_simulate_on_shared_links_checks_them_message_by_message(capsys):
    """simulate PLATFORM on data_center (shared links): the timed schedule it picks and
    its as-soon-as-possible phases keep every shared link within capacity, checked by
    the message-level simulation; and a transfer moved onto a busy link is caught."""
    import json

    from steady.simulate.engine import check_blocks, simulate

    code, out, _ = run(capsys, "simulate", "samples/simgrid/data_center-24.json",
                       "--horizon", "1", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["simulated"] and doc["violations"] == []
    assert 0 < doc["delivered"] <= 125
    platform = Platform.from_file("samples/simgrid/data_center-24.json")
    schedule, _ = timed_schedule(platform, throughput(platform, "trees"), 5)
    pattern = PeriodicPattern(schedule, "pipelined")
    assert simulate(pattern, pattern.warmup + 2).ok
    finite = finite_schedule(pattern, pattern.warmup + 2)
    crossing = [i for i, b in enumerate(finite.blocks) if (b.tail, b.head) in pattern.links]
    a = finite.blocks[crossing[0]]
    moved = list(finite.blocks)
    for i in crossing[1:]:  # every other transfer over a shared link starts with the first
        moved[i] = replace(finite.blocks[i], start=a.start,
                           end=a.start + finite.blocks[i].end - finite.blocks[i].start)
    sim = check_blocks(pattern, moved, finite.messages)
    assert any("shared link" in v for v in sim.violations)


@settings(max_examples=25, deadline=None)
@given(platforms(max_nodes=6), st.lists(st.integers(1, 6), min_size=1, max_size=4))
def test_follow_arrivals_only_relabels_the_slots(platform, weights):
    """follow_arrivals keeps every link's slots (same starts, same number) and gives
    every tree edge its tree's weight, so the timetable stays one-port with the same
    period; the W it reports is that of the pieces it returns."""
    result = throughput(platform, "trees")
    trees = [(p, w) for (p, _), w in zip(optimum_trees(platform, result), weights)]
    cost, lower = _ticks(platform, trees)
    pieces = tree_list_schedule(platform.source, trees, cost, lower, 0)
    slots = _slots(pieces, cost)
    w, relabelled = follow_arrivals(platform.source, trees, slots, cost)
    assert _slots(relabelled, cost) == slots
    counts = {key: sum(n for _, n in runs) for key, runs in relabelled.items()}
    assert counts == {(l, (par, child)): wt for l, (parent, wt) in enumerate(trees)
                      for child, par in parent.items()}
    assert w == warmup_periods(platform.source, trees, relabelled, cost)


def test_follow_arrivals_gives_the_slot_after_an_arrival_to_the_tree_that_arrived():
    """Unit costs.  S -> A carries trees 0 and 1 (slots at 0 and 1: tree 0 first, on
    the tie of heights); A -> D carries both too, at 1 and 2.  Tree 0's message reaches
    A at 1 and tree 1's at 2, so the slot of A -> D at 1 goes to tree 0 and the one at
    2 to tree 1: no hop lags (W = 0).  Swapped, tree 1 would leave A at 1 before its
    message arrives and lag a whole period there (W = 1)."""
    trees = [({"A": "S", "B": "A", "D": "A", "C": "B"}, 1),
             ({"A": "S", "C": "A", "D": "A", "B": "C"}, 1)]
    cost = {arc: 1 for arc in [("S", "A"), ("A", "B"), ("A", "D"), ("B", "C"),
                               ("A", "C"), ("C", "B")]}
    slots = {("S", "A"): [0, 1], ("A", "D"): [1, 2], ("A", "B"): [2], ("A", "C"): [3],
             ("B", "C"): [3], ("C", "B"): [4]}
    w, pieces = follow_arrivals("S", trees, slots, cost)
    assert w == 0
    assert pieces[(0, ("A", "D"))] == [[1, 1]] and pieces[(1, ("A", "D"))] == [[2, 1]]
    swapped = dict(pieces)
    swapped[(0, ("A", "D"))], swapped[(1, ("A", "D"))] = [[2, 1]], [[1, 1]]
    assert warmup_periods("S", trees, swapped, cost) == 1
