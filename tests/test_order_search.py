"""steady.schedule.order_search: a timetable's port orders searched by CP-SAT, an
improver (a timetable in, a better one or a reason out; proofs/timed-schedule.md, "Port
orders searched")."""

from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st
from helpers import late_timetable

from steady.schedule.effort import DEFAULT, THOROUGH
from steady.schedule.list_schedule import PRIORITIES, _port_ends, greedy_runs
from steady.schedule.order_search import GRID, _messages_in_order, _placed, searched, \
    searched_runs
from steady.schedule.timetable import Timetable
from steady.verify import verify

# 6 derangements of 7 nodes, unit costs: every port sends and receives 6 messages, so
# by König's theorem (002 Thm 6) 6 matchings hold them all and a period of 6 exists
HAND = {("a", "b"): 3, ("b", "a"): 2, ("c", "e"): 1, ("d", "f"): 4, ("e", "g"): 2,
        ("f", "c"): 2, ("g", "d"): 2, ("a", "g"): 2, ("b", "d"): 2, ("c", "a"): 2,
        ("e", "c"): 3, ("f", "b"): 1, ("g", "e"): 3, ("b", "g"): 2, ("c", "f"): 2,
        ("d", "a"): 1, ("f", "e"): 2, ("a", "c"): 1, ("g", "b"): 1, ("c", "d"): 1,
        ("e", "a"): 1, ("d", "b"): 1, ("f", "d"): 1}


def loads(used, cost):
    out = {}
    for (u, v), n in used.items():
        out[("out", u)] = out.get(("out", u), 0) + n * cost[(u, v)]
        out[("in", v)] = out.get(("in", v), 0) + n * cost[(u, v)]
    return out


def check_timetable_of(runs, used, cost):
    """Every arc carries its count; no port holds two messages at once."""
    busy = {}
    for arc, arc_runs in runs.items():
        assert sum(n for _, n in arc_runs) == used[arc]
        for start, n in arc_runs:
            for port in (("out", arc[0]), ("in", arc[1])):
                busy.setdefault(port, []).append((start, start + n * cost[arc]))
    for intervals in busy.values():
        intervals.sort()
        for (_, end), (start, _) in zip(intervals, intervals[1:]):
            assert end <= start
    assert set(runs) == set(used)


def greedy_best(used, cost, lower, rounds=40):
    best = None
    for key, stick in PRIORITIES:
        boost = {}
        for _ in range(rounds):
            runs = greedy_runs(used, cost, key, boost, stick)
            ends = _port_ends(runs, cost)
            if best is None or max(ends.values()) < best[0]:
                best = (max(ends.values()), runs)
            for port, end in ends.items():
                if end > lower:
                    boost[port] = boost.get(port, 0) + end - lower
    return best


def test_the_search_reaches_the_largest_port_load_where_the_greedy_does_not():
    cost = dict.fromkeys(HAND, 1)
    lower = max(loads(HAND, cost).values())
    assert lower == 6
    makespan, runs = greedy_best(HAND, cost, lower)
    assert makespan == 7   # every round of every rule ends one message late
    found = searched_runs(HAND, cost, lower, runs, 2.0)
    check_timetable_of(found, HAND, cost)
    assert max(_port_ends(found, cost).values()) == 6


@st.composite
def open_shops(draw):
    nodes = "abcde"
    arcs = draw(st.lists(st.sampled_from([(u, v) for u in nodes for v in nodes if u != v]),
                         min_size=1, max_size=12, unique=True))
    used = {a: draw(st.integers(1, 4)) for a in arcs}
    cost = {a: draw(st.integers(1, 7)) for a in arcs}
    return used, cost


@settings(max_examples=examples(25))
@given(open_shops())
def test_searched_placements_are_timetables_within_the_grid_bound(shop):
    used, cost = shop
    lower = max(loads(used, cost).values())
    makespan, runs = greedy_best(used, cost, lower, rounds=1)
    found = searched_runs(used, cost, lower, runs, 2.0)
    assert found is not None
    check_timetable_of(found, used, cost)
    end = max(_port_ends(found, cost).values())
    assert end >= lower
    # the exact placement ends by the grid's bound of the hint (proof, claim 2)
    grid = {a: -(-c * GRID // lower) for a, c in cost.items()}
    _, hint_end = _placed(_messages_in_order(runs, cost), grid)
    assert end * GRID <= hint_end * lower


def test_the_improver_brings_a_late_timetable_down_to_the_largest_port_load():
    platform, result, late, load = late_timetable(39, 5)
    assert late.period_time > load   # one greedy run ends 4.8 % late here
    better = searched(late, THOROUGH.but(order_search=20.0))
    assert isinstance(better, Timetable)
    assert better.period_time == load
    assert better.trees == late.trees and better.counts == late.counts
    assert verify(platform, better.schedule(result)).ok
    # at the largest port load there is nothing left to search: a reason, in words
    assert "largest port load" in searched(better, THOROUGH)
    # at the default effort the improver does not run, and says so
    assert searched(late, DEFAULT) == "not at this effort"


#: (seed, messages) whose late_timetable ends after its largest port load: the 47 of
#: seeds 1..119 x messages 3..5 (of 357 pairs, most end at the load and leave the
#: search nothing to do; drawing among all of them filtered too much to run in CI).
LATE = [(4, 3), (5, 4), (8, 3), (8, 4), (11, 4), (13, 5), (15, 5), (35, 3), (35, 5),
        (39, 3), (39, 5), (42, 3), (42, 4), (45, 3), (45, 4), (48, 3), (49, 3), (56, 5),
        (64, 3), (64, 4), (64, 5), (66, 3), (66, 4), (66, 5), (67, 3), (67, 4), (71, 3),
        (71, 4), (71, 5), (75, 3), (75, 5), (76, 3), (76, 5), (78, 3), (78, 4), (78, 5),
        (79, 4), (79, 5), (83, 5), (84, 3), (84, 4), (84, 5), (86, 3), (86, 4), (86, 5),
        (87, 4), (93, 4)]


@settings(max_examples=examples(8))
@given(st.sampled_from(LATE))
def test_an_improved_timetable_is_shorter_and_valid(case):
    """On a timetable that ends after its largest port load the improver returns a
    timetable (at thorough effort: every one of LATE gets one), no shorter than the
    load, shorter than the start, on the same trees and counts, that verifies."""
    platform, result, late, load = late_timetable(*case)
    assert late.period_time > load
    better = searched(late, THOROUGH)
    assert isinstance(better, Timetable), better
    assert load <= better.period_time < late.period_time
    assert better.trees == late.trees and better.counts == late.counts
    assert verify(platform, better.schedule(result)).ok
