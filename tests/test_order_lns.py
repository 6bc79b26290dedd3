"""The port orders of the chosen timetable searched by CP-SAT's neighbourhoods alone
(steady.schedule.order_search.neighbourhood_searched) and the chooser's trigger for it
(steady.simulate.choose.searched_timetables); proofs/timed-schedule.md, "Port orders
searched"."""

import math
from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import late_timetable
from test_order_search import HAND, LATE, check_timetable_of, greedy_best, loads

from steady.schedule.effort import DEFAULT
from steady.schedule.list_schedule import _port_ends
from steady.schedule.order_search import neighbourhood_searched, searched_runs
from steady.schedule.timetable import Timetable
from steady.simulate.choose import PIPELINED, SEARCH_ABOVE, _counted, searched_runners_up, \
    searched_timetables
from steady.simulate.horizon import bound
from steady.verify import verify


def test_the_neighbourhoods_bring_the_hand_shop_to_its_load():
    cost = dict.fromkeys(HAND, 1)
    lower = max(loads(HAND, cost).values())
    makespan, runs = greedy_best(HAND, cost, lower)
    assert (lower, makespan) == (6, 7)
    found = searched_runs(HAND, cost, lower, runs, 1.0, lns=True)
    check_timetable_of(found, HAND, cost)
    assert max(_port_ends(found, cost).values()) == 6


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(LATE))
def test_a_neighbourhood_searched_timetable_is_shorter_valid_and_the_same_twice(case):
    """On a timetable that ends after its largest port load the neighbourhoods return a
    timetable (every one of LATE gets one within 1.0), no shorter than the load,
    shorter than the start, on the same trees and counts, that verifies; searched
    again, the same timetable (deterministic time, not wall clock)."""
    platform, result, late, load = late_timetable(*case)
    assert late.period_time > load
    better = neighbourhood_searched(late, 1.0)
    assert isinstance(better, Timetable), better
    assert load <= better.period_time < late.period_time
    assert better.trees == late.trees and better.counts == late.counts
    assert verify(platform, better.schedule(result)).ok
    again = neighbourhood_searched(late, 1.0)
    assert again.period == better.period and dict(again.runs) == dict(better.runs)


def test_no_budget_no_search():
    _, _, late, _ = late_timetable(39, 5)
    assert neighbourhood_searched(late, 0.0) == "no budget"


def _chooser_view(table, optimum, horizon=Fraction(1000)):
    ratio = table.throughput / optimum
    tried = _counted(table.messages, table, ratio, "", (PIPELINED,), horizon,
                     bound(optimum, horizon))
    return [(table.messages, table, ratio)], tried


def test_the_chooser_searches_the_chosen_timetable_when_it_ends_late():
    """seed 39, 5 messages: one greedy run ends 4.8 % after the load, far above
    SEARCH_ABOVE: the chosen timetable is searched, keeps its counts and trees, reaches
    its load (a better ratio) and the improver says so; at the load itself, or with no
    budget, nothing is searched."""
    platform, result, late, load = late_timetable(39, 5)
    optimum = result.throughput
    assert late.period_time > load * (1 + SEARCH_ABOVE)
    sources, tried = _chooser_view(late, optimum)
    said = []
    found = searched_timetables(sources, {}, tried, optimum, DEFAULT, said)
    assert len(found) == 1 and len(said) == 1
    m, better, ratio = found[0]
    assert m == late.messages and better.period_time == load
    assert better.counts == late.counts and better.trees == late.trees
    assert ratio == better.throughput / optimum > sources[0][2]
    assert said[0]["improver"] == "order search"
    sources, tried = _chooser_view(better, optimum)
    assert searched_timetables(sources, {}, tried, optimum, DEFAULT, []) == []
    sources, tried = _chooser_view(late, optimum)
    assert searched_timetables(sources, {}, tried, optimum, DEFAULT.but(order_lns=0.0),
                               []) == []


def test_the_chooser_searches_a_runner_up_that_could_overtake():
    """seed 39, 5 messages, as a runner-up (ends 4.8 % after its load) beside a chosen
    candidate of another timetable that delivers one message more: closing the gap
    could overtake it, so the runner-up is searched (to its load, same counts and
    trees) and the improver says so; not when the chosen one delivers at least what the
    runner-up could reach at its load, not the chosen timetable itself, not without a
    budget."""
    platform, result, late, load = late_timetable(39, 5)
    optimum = result.throughput
    horizon = Fraction(100_000)
    cap = bound(optimum, horizon)
    sources, tried = _chooser_view(late, optimum, horizon)
    other = neighbourhood_searched(late, DEFAULT.order_lns)
    assert isinstance(other, Timetable)
    mine = max(c.delivered for c in tried)
    ratio = sources[0][2]
    hope = mine + (ratio * late.period_time / load - ratio) * cap
    assert hope > mine + 1
    top = replace(tried[0], table=other, delivered=mine + 1)
    said = []
    found = searched_runners_up(sources, {}, tried + [top], optimum, cap, DEFAULT, said)
    assert len(found) == 1 and len(said) == 1
    m, better, again = found[0]
    assert m == late.messages and better.period_time == load
    assert better.counts == late.counts and better.trees == late.trees
    assert again == better.throughput / optimum > ratio
    assert said[0]["improver"] == "order search" and "overtake" in said[0]["how"]
    # the chosen one already delivers what the runner-up could reach: not searched
    out_of_reach = replace(top, delivered=math.ceil(hope))
    assert searched_runners_up(sources, {}, tried + [out_of_reach], optimum, cap,
                               DEFAULT, []) == []
    # the chosen timetable is searched_timetables' business, not this one's
    assert searched_runners_up(sources, {}, tried, optimum, cap, DEFAULT, []) == []
    assert searched_runners_up(sources, {}, tried + [top], optimum, cap,
                               DEFAULT.but(order_lns=0.0), []) == []
