"""steady.schedule.list_schedule: the greedy run without shared links (``_port_runs``,
taken by :func:`greedy_runs` by default) gives the very runs of the general event loop
(``fast=False``) under every priority rule, boost, stickiness and chunk size."""

from hypothesis import given, settings

from helpers import examples
from hypothesis import strategies as st

from steady.schedule.list_schedule import PRIORITIES, busier_port, greedy_runs

NODES = "abcdef"


@st.composite
def greedy_inputs(draw):
    arcs = draw(st.lists(st.sampled_from([(u, v) for u in NODES for v in NODES if u != v]),
                         min_size=1, max_size=20, unique=True))
    used = {a: draw(st.integers(1, 6)) for a in arcs}
    # few distinct costs: ties between ends and between priorities happen often
    cost = {a: draw(st.sampled_from([1, 2, 3, 6, 10**40 + 7])) for a in arcs}
    ports = sorted({("out", u) for u, _ in arcs} | {("in", v) for _, v in arcs})
    boost = {p: draw(st.integers(0, 12)) for p in draw(st.lists(st.sampled_from(ports),
                                                                max_size=4, unique=True))}
    key, stick = draw(st.sampled_from(PRIORITIES))
    chunk = draw(st.integers(1, 3))
    return used, cost, key, boost, stick, chunk


@settings(max_examples=examples(120), deadline=None)
@given(greedy_inputs())
def test_the_fast_greedy_run_is_the_general_one(case):
    used, cost, key, boost, stick, chunk = case
    fast = greedy_runs(used, cost, key, dict(boost), stick, chunk)
    slow = greedy_runs(used, cost, key, dict(boost), stick, chunk, fast=False)
    assert fast == slow
    assert all(sum(n for _, n in fast[arc]) == used[arc] for arc in used)


def test_a_link_that_goes_on_extends_its_run():
    # one link, three messages, nothing else: one run of three back to back
    used, cost = {("a", "b"): 3}, {("a", "b"): 5}
    assert greedy_runs(used, cost, busier_port) == {("a", "b"): [[0, 3]]}
    assert greedy_runs(used, cost, busier_port, fast=False) == {("a", "b"): [[0, 3]]}


@st.composite
def long_runs(draw):
    """Few links with many messages each: one link often ends alone and goes on for
    several events (the streaks of ``_streak``)."""
    arcs = draw(st.lists(st.sampled_from([(u, v) for u in NODES[:4] for v in NODES[:4]
                                          if u != v]), min_size=1, max_size=6, unique=True))
    used = {a: draw(st.integers(1, 40)) for a in arcs}
    cost = {a: draw(st.sampled_from([1, 2, 3, 5, 7, 10**30 + 1])) for a in arcs}
    key, stick = draw(st.sampled_from(PRIORITIES))
    ports = sorted({("out", u) for u, _ in arcs} | {("in", v) for _, v in arcs})
    boost = {p: draw(st.integers(0, 60)) for p in draw(st.lists(st.sampled_from(ports),
                                                                max_size=3, unique=True))}
    return used, cost, key, boost, stick


@settings(max_examples=examples(150), deadline=None)
@given(long_runs())
def test_streaks_of_one_link_give_the_general_runs(case):
    used, cost, key, boost, stick = case
    fast = greedy_runs(used, cost, key, dict(boost), stick)
    assert fast == greedy_runs(used, cost, key, dict(boost), stick, fast=False)


def test_a_streak_stops_at_the_next_other_event_and_when_a_rival_leads():
    # a->b (cost 1, 6 messages) beside c->d (cost 4, 2 messages): a->b goes on alone
    # between c->d's ends; with a->c waiting (a's in-port c idle at the end) a->b keeps
    # its lead only while a's work stays above c's in-port work
    used = {("a", "b"): 6, ("c", "d"): 2, ("a", "c"): 2}
    cost = {("a", "b"): 1, ("c", "d"): 4, ("a", "c"): 3}
    for key, stick in PRIORITIES:
        fast = greedy_runs(used, cost, key, None, stick)
        assert fast == greedy_runs(used, cost, key, None, stick, fast=False)
        assert {arc: sum(n for _, n in rs) for arc, rs in fast.items()} == used


def test_slack_rounds_only_shorten_and_only_where_the_schedule_is_slack():
    """A list schedule of few rounds that ends more than SLACK above its load bound gets
    as many rounds again (effort.slack_rounds): never longer than without them, the very
    same timetable where it was within SLACK, and reached on some of these platforms."""
    from fractions import Fraction

    from steady.generators import random_platform
    from steady.schedule.effort import DEFAULT
    from steady.schedule.list_schedule import SLACK, list_schedule
    from steady.schedule.timed import optimum_trees
    from steady.throughput import throughput

    plain = DEFAULT.but(list_rounds=1, slack_rounds=0)
    slack = DEFAULT.but(list_rounds=1, slack_rounds=1)
    reached = 0
    for seed in range(20):
        p = random_platform(14, 0.3, seed)
        rates = optimum_trees(p, throughput(p, "trees"))
        scale = 60 / sum(rate for _, rate in rates)
        trees = [(parent, max(1, round(rate * scale))) for parent, rate in rates]
        before, after = list_schedule(p, trees, plain), list_schedule(p, trees, slack)
        load = max(before.port_loads().values())
        if before.period > load * (1 + SLACK):
            reached += 1
            assert after.period <= before.period
        else:
            assert after.runs == before.runs and after.period == before.period
    assert reached >= 2
